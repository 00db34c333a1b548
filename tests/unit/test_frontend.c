/* test_frontend.c - the ONNX loader: storage forms of constants, external
 * data, Constant nodes, dynamic dims, shape folding, error collection and
 * malformed files (which must give NULL and a message, never a crash).
 * Per-op shape inference lives in test_frontend_ops.c.
 *
 * Models are built in memory (test_frontend_build.h) and written to temp
 * files. The checks on the shared models run only when /work/shared/models
 * exists. */
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>

#include "check.h"
#include "test_frontend_build.h"

#define SHARED_MODELS "/work/shared/models"

/* x -> Relu -> y, a one-node graph to hang initializers and checks on */
static Mb *relu_model(int64_t opset)
{
    Mb *b = mb_new(opset);
    mb_input(b, "x", 1, 2, D(2, 3));
    mb_node(b, "Relu", "relu", "x", "y");
    mb_output(b, "y", 1, 2, D(2, 3));
    return b;
}

static const void *const_data(IrGraph *g, const char *name)
{
    int t = ir_tensor_find(g, name);
    return t >= 0 ? ir_tensor_data(g, t) : NULL;
}

/* ------------------------------------------------------ storage forms */

static void test_storage_forms(void)
{
    Mb *b = relu_model(13);
    float big[32];
    for (int i = 0; i < 32; i++)
        big[i] = (float)i * 0.5f;
    mb_init_f(b, "raw_big", 1, D(32), big);            /* left in the mapped file */
    mb_init_f(b, "raw_small", 1, D(2), (float[]){1.5f, -2.0f}); /* copied */
    Onnx__TensorProto *t;
    t = mb_init(b, mb_tensor(b, "f_data", 1, 2, D(1, 3)));
    t->n_float_data = 3;
    t->float_data = mb_alloc(b, 12);
    t->float_data[0] = 1, t->float_data[1] = 2, t->float_data[2] = 3;
    t = mb_init(b, mb_tensor(b, "i32", 6, 1, D(2)));
    t->n_int32_data = 2;
    t->int32_data = mb_alloc(b, 8);
    t->int32_data[0] = -7, t->int32_data[1] = 1 << 20;
    t = mb_init(b, mb_tensor(b, "i8", 3, 1, D(3)));
    t->n_int32_data = 3;
    t->int32_data = mb_alloc(b, 12);
    t->int32_data[0] = -128, t->int32_data[1] = 5, t->int32_data[2] = 127;
    t = mb_init(b, mb_tensor(b, "u8", 2, 1, D(2)));
    t->n_int32_data = 2;
    t->int32_data = mb_alloc(b, 8);
    t->int32_data[0] = 255, t->int32_data[1] = 1;
    t = mb_init(b, mb_tensor(b, "i16", 5, 1, D(1)));
    t->n_int32_data = 1;
    t->int32_data = mb_alloc(b, 4);
    t->int32_data[0] = -300;
    t = mb_init(b, mb_tensor(b, "flag", 9, 1, D(2)));
    t->n_int32_data = 2;
    t->int32_data = mb_alloc(b, 8);
    t->int32_data[0] = 1, t->int32_data[1] = 0;
    t = mb_init(b, mb_tensor(b, "half", 10, 1, D(2)));
    t->n_int32_data = 2;
    t->int32_data = mb_alloc(b, 8);
    t->int32_data[0] = 0x3c00, t->int32_data[1] = 0xc000; /* 1.0, -2.0 */
    t = mb_init(b, mb_tensor(b, "i64", 7, 1, D(2)));
    t->n_int64_data = 2;
    t->int64_data = mb_alloc(b, 16);
    t->int64_data[0] = -1, t->int64_data[1] = (int64_t)1 << 40;
    t = mb_init(b, mb_tensor(b, "dbl", 11, 0, NULL));
    t->n_double_data = 1;
    t->double_data = mb_alloc(b, 8);
    t->double_data[0] = 2.25;
    t = mb_init(b, mb_tensor(b, "u64", 13, 1, D(1)));
    t->n_uint64_data = 1;
    t->uint64_data = mb_alloc(b, 8);
    t->uint64_data[0] = 0xffffffffffffffffull;
    t = mb_init(b, mb_tensor(b, "u32", 12, 1, D(1)));
    t->n_uint64_data = 1;
    t->uint64_data = mb_alloc(b, 8);
    t->uint64_data[0] = 4000000000u;
    mb_init(b, mb_tensor(b, "empty", 1, 2, D(0, 4)));
    /* views of a mapped weight share its bytes */
    mb_node(b, "Identity", "id_w", "raw_big", "raw_alias");
    mb_init_i64(b, "to_4x8", 2, D(4, 8));
    mb_node(b, "Reshape", "rs_w", "raw_alias,to_4x8", "raw_4x8");

    IrDiag d;
    IrGraph *g = mb_load(b, NULL, &d);
    CHECK(g != NULL);
    if (g) {
        const IrTensor *rb = tensor_named(g, "raw_big");
        CHECK(rb && rb->kind == IR_T_CONST && rb->src && !rb->data);
        CHECK(rb && g->mapping && rb->src >= (const uint8_t *)g->mapping &&
              rb->src + 128 <= (const uint8_t *)g->mapping + g->mapping_len);
        const IrTensor *ra = tensor_named(g, "raw_4x8");
        CHECK(rb && ra && ra->kind == IR_T_CONST && ra->src == rb->src && SHAPE(g, "raw_4x8", 2, 4, 8));
        CHECK_EQ_INT(g->n_layers, 1);
        const float *f = const_data(g, "raw_big");
        CHECK(f && f[31] == 15.5f && f[1] == 0.5f);
        f = const_data(g, "raw_4x8");
        CHECK(f && f[31] == 15.5f);
        f = const_data(g, "raw_small");
        CHECK(f && f[0] == 1.5f && f[1] == -2.0f);
        f = const_data(g, "f_data");
        CHECK(f && f[2] == 3.0f && SHAPE(g, "f_data", 2, 1, 3));
        const int32_t *i32 = const_data(g, "i32");
        CHECK(i32 && i32[0] == -7 && i32[1] == 1 << 20);
        const int8_t *i8 = const_data(g, "i8");
        CHECK(i8 && i8[0] == -128 && i8[2] == 127);
        const uint8_t *u8 = const_data(g, "u8");
        CHECK(u8 && u8[0] == 255 && u8[1] == 1);
        const int16_t *i16 = const_data(g, "i16");
        CHECK(i16 && i16[0] == -300);
        const uint8_t *fl = const_data(g, "flag");
        CHECK(fl && fl[0] == 1 && fl[1] == 0);
        const uint16_t *h = const_data(g, "half");
        CHECK(h && h[0] == 0x3c00 && h[1] == 0xc000);
        const int64_t *i64 = const_data(g, "i64");
        CHECK(i64 && i64[0] == -1 && i64[1] == (int64_t)1 << 40);
        const double *db = const_data(g, "dbl");
        CHECK(db && *db == 2.25 && tensor_named(g, "dbl")->rank == 0);
        const uint64_t *u64 = const_data(g, "u64");
        CHECK(u64 && *u64 == 0xffffffffffffffffull);
        const uint32_t *u32 = const_data(g, "u32");
        CHECK(u32 && *u32 == 4000000000u);
        CHECK(SHAPE(g, "empty", 2, 0, 4));
        CHECK_EQ_INT(g->n_inputs, 1);
        CHECK_EQ_INT(g->n_outputs, 1);
        CHECK(g->opset == 13 && g->ir_version == 8 && !strcmp(g->producer, "frontend-test"));
    }
    diag_print(&d, stderr);
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);
}

/* one bad initializer -> NULL with a message containing `needle` */
static void expect_init_error(Onnx__TensorProto *(*make)(Mb *), const char *needle)
{
    Mb *b = relu_model(13);
    make(b);
    IrDiag d;
    IrGraph *g = mb_load(b, NULL, &d);
    CHECK_MSG(g == NULL && diag_contains(&d, needle), "expected '%s'", needle);
    if (!diag_contains(&d, needle))
        diag_print(&d, stderr);
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);
}

static Onnx__TensorProto *short_raw(Mb *b)
{
    Onnx__TensorProto *t = mb_init(b, mb_tensor(b, "w", 1, 1, D(4)));
    mb_raw(b, t, (float[]){1, 2, 3}, 12);
    return t;
}

static Onnx__TensorProto *short_big_raw(Mb *b)
{
    static float v[100];
    Onnx__TensorProto *t = mb_init(b, mb_tensor(b, "w", 1, 2, D(10, 11)));
    mb_raw(b, t, v, sizeof v); /* mapped path: 400 of 440 bytes */
    return t;
}

static Onnx__TensorProto *short_floats(Mb *b)
{
    Onnx__TensorProto *t = mb_init(b, mb_tensor(b, "w", 1, 1, D(4)));
    t->n_float_data = 2;
    t->float_data = mb_alloc(b, 8);
    return t;
}

static Onnx__TensorProto *no_data(Mb *b)
{
    return mb_init(b, mb_tensor(b, "w", 1, 1, D(4)));
}

static Onnx__TensorProto *absurd_dims(Mb *b)
{
    return mb_init(b, mb_tensor(b, "w", 1, 3, D(1 << 20, 1 << 20, 1 << 20)));
}

static Onnx__TensorProto *overflow_dims(Mb *b)
{
    return mb_init(b, mb_tensor(b, "w", 1, 4, D(INT64_MAX / 2, 4, 4, 4)));
}

static Onnx__TensorProto *negative_dim(Mb *b)
{
    return mb_init(b, mb_tensor(b, "w", 1, 2, D(3, -2)));
}

static Onnx__TensorProto *string_tensor(Mb *b)
{
    return mb_init(b, mb_tensor(b, "w", 8, 1, D(1)));
}

static Onnx__TensorProto *dup_init(Mb *b)
{
    mb_init_f(b, "w", 1, D(1), (float[]){1});
    return mb_init_f(b, "w", 1, D(1), (float[]){2});
}

static void test_bad_initializers(void)
{
    expect_init_error(short_raw, "shorter than its shape");
    expect_init_error(short_big_raw, "shorter than its shape");
    expect_init_error(short_floats, "shorter than its shape");
    expect_init_error(no_data, "has no data");
    expect_init_error(absurd_dims, "absurdly large");
    expect_init_error(overflow_dims, "absurdly large");
    expect_init_error(negative_dim, "negative dimension");
    expect_init_error(string_tensor, "unsupported data type");
    expect_init_error(dup_init, "defined twice");
}

/* ------------------------------------------------------- external data */

static void ext_entry(Mb *b, Onnx__TensorProto *t, const char *key, const char *val)
{
    if (!t->external_data)
        t->external_data = mb_alloc(b, sizeof(void *) * 4);
    Onnx__StringStringEntryProto *e = mb_alloc(b, sizeof *e);
    onnx__string_string_entry_proto__init(e);
    e->key = mb_str(b, key);
    e->value = mb_str(b, val);
    t->external_data[t->n_external_data++] = e;
    t->has_data_location = 1;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
}

/* Model in its own directory with a weights file next to it. */
static void test_external_data(void)
{
    char dir[] = "/tmp/o2h_fe_ext_XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    char wpath[256], mpath[256], sub[256];
    snprintf(wpath, sizeof wpath, "%s/weights.bin", dir);
    snprintf(mpath, sizeof mpath, "%s/model.onnx", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    mkdir(sub, 0700);
    float w[8] = {0, 0, 0, 0, 1.0f, 2.0f, 3.0f, 4.0f};
    write_bytes(wpath, w, sizeof w);

    static const struct {
        const char *loc, *off, *len, *needle;
    } cases[] = {
        {"weights.bin", "16", "16", NULL},
        {"sub/../weights.bin", "16", NULL, NULL},
        {"../weights.bin", "0", "16", "escapes the model directory"},
        {"/etc/passwd", "0", "16", "escapes the model directory"},
        {"missing.bin", "0", "16", "escapes the model directory"},
        {"weights.bin", "24", "16", "too short"},
        {"weights.bin", "0", "12", "does not match its shape"},
        {"weights.bin", "-4", "16", "bad external data offset"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Mb *b = relu_model(13);
        Onnx__TensorProto *t = mb_init(b, mb_tensor(b, "w", 1, 1, D(4)));
        ext_entry(b, t, "location", cases[i].loc);
        ext_entry(b, t, "offset", cases[i].off);
        if (cases[i].len)
            ext_entry(b, t, "length", cases[i].len);
        size_t len;
        uint8_t *buf = mb_pack(b, &len);
        write_bytes(mpath, buf, len);
        free(buf);
        IrDiag d;
        diag_init(&d);
        IrGraph *g = fe_load_onnx(mpath, NULL, &d);
        if (!cases[i].needle) {
            CHECK_MSG(g != NULL, "external case %zu", i);
            const float *f = g ? const_data(g, "w") : NULL;
            CHECK(f && f[0] == 1.0f && f[3] == 4.0f);
        } else {
            CHECK_MSG(g == NULL && diag_contains(&d, cases[i].needle), "external case %zu", i);
        }
        ir_graph_free(g);
        diag_free(&d);
        mb_free(b);
    }
    unlink(mpath);
    unlink(wpath);
    rmdir(sub);
    rmdir(dir);
}

/* ----------------------------------------------------- Constant nodes */

static void test_constant_forms(void)
{
    Mb *b = relu_model(13);
    float big[40];
    for (int i = 0; i < 40; i++)
        big[i] = (float)i;
    Onnx__NodeProto *n = mb_node(b, "Constant", "c_t", "", "ct");
    Onnx__TensorProto *t = mb_tensor(b, NULL, 1, 2, D(4, 10));
    mb_raw(b, t, big, sizeof big);
    mb_attr_t(b, n, "value", t);
    n = mb_node(b, "Constant", "c_f", "", "cf");
    mb_attr_f(b, n, "value_float", 0.25f);
    n = mb_node(b, "Constant", "c_fs", "", "cfs");
    mb_attr_floats(b, n, "value_floats", 3, (float[]){1, 2, 3});
    n = mb_node(b, "Constant", "c_i", "", "ci");
    mb_attr_i(b, n, "value_int", -5);
    n = mb_node(b, "Constant", "c_is", "", "cis");
    mb_attr_ints(b, n, "value_ints", 2, D(7, 8));
    IrDiag d;
    IrGraph *g = mb_load(b, NULL, &d);
    CHECK(g != NULL);
    if (g) {
        const IrTensor *ct = tensor_named(g, "ct");
        CHECK(ct && ct->kind == IR_T_CONST && SHAPE(g, "ct", 2, 4, 10) && ct->src);
        const float *f = const_data(g, "ct");
        CHECK(f && f[39] == 39.0f);
        f = const_data(g, "cf");
        CHECK(f && *f == 0.25f && tensor_named(g, "cf")->rank == 0);
        f = const_data(g, "cfs");
        CHECK(f && f[2] == 3.0f && SHAPE(g, "cfs", 1, 3));
        const int64_t *i = const_data(g, "ci");
        CHECK(i && *i == -5 && tensor_named(g, "ci")->dtype == IR_DT_INT64);
        i = const_data(g, "cis");
        CHECK(i && i[0] == 7 && i[1] == 8);
        CHECK_EQ_INT(count_layers(g, IR_OP_CONSTANT), 0);
        CHECK_EQ_INT(g->n_layers, 1);
    }
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);

    /* sparse and string constants are rejected by name */
    b = relu_model(13);
    n = mb_node(b, "Constant", "sparse_c", "", "s");
    Onnx__AttributeProto *a = mb_attr(b, n, "sparse_value", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR);
    a->sparse_tensor = mb_alloc(b, sizeof *a->sparse_tensor);
    onnx__sparse_tensor_proto__init(a->sparse_tensor);
    n = mb_node(b, "Constant", "string_c", "", "str");
    mb_attr_s(b, n, "value_string", "hello");
    g = mb_load(b, NULL, &d);
    CHECK(g == NULL);
    CHECK(diag_contains(&d, "sparse constants") && diag_contains(&d, "sparse_c"));
    CHECK(diag_contains(&d, "string constants") && diag_contains(&d, "string_c"));
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);
}

/* ------------------------------------------------------- dynamic dims */

static Mb *dynamic_model(void)
{
    Mb *b = mb_new(13);
    b->inputs[b->graph.n_input++] =
        mb_value(b, "img", 1, 4, D(-1, 3, -1, 8), (const char *const[]){"batch", NULL, "height", NULL});
    mb_input(b, "aux", 1, 1, D(-1));
    mb_node(b, "Relu", "r1", "img", "y");
    mb_node(b, "Relu", "r2", "aux", "z");
    mb_output(b, "y", 1, 4, D(-1, 3, -1, 8));
    mb_output(b, "z", 1, 1, D(-1));
    return b;
}

static void test_dynamic_dims(void)
{
    IrDiag d;
    Mb *b = dynamic_model();
    IrGraph *g = mb_load(b, NULL, &d);
    CHECK(g == NULL);
    CHECK(diag_contains(&d, "input 'img' has unbound dynamic dims: axis 0 ('batch'), axis 2 ('height')"));
    CHECK(diag_contains(&d, "input 'aux' has unbound dynamic dims: axis 0 ('d0')"));
    CHECK_EQ_INT(d.n_errors, 2);
    diag_free(&d);

    FeOptions o = {0};
    CHECK(fe_parse_input_shape("img=2,3,16,8", &o.shapes[0]) == 0);
    CHECK(fe_parse_input_shape("aux=5", &o.shapes[1]) == 0);
    o.n_shapes = 2;
    g = mb_load(b, &o, &d);
    CHECK(g != NULL);
    if (g) {
        CHECK(SHAPE(g, "y", 4, 2, 3, 16, 8));
        CHECK(SHAPE(g, "z", 1, 5));
        CHECK_EQ_INT(g->n_inputs, 2);
    }
    ir_graph_free(g);
    diag_free(&d);

    /* an unnamed shape binds the first input; wrong rank, a fixed-dim
     * conflict and an unknown name are errors */
    static const struct {
        const char *spec, *needle;
    } bad[] = {
        {"img=1,3,16", "has 3 dims but the input has rank 4"},
        {"img=1,4,16,8", "the model fixes it to 3"},
        {"nope=1", "'nope', which is not a graph input"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FeOptions ob = o;
        CHECK(fe_parse_input_shape(bad[i].spec, &ob.shapes[0]) == 0);
        g = mb_load(b, &ob, &d);
        CHECK_MSG(g == NULL && diag_contains(&d, bad[i].needle), "%s", bad[i].spec);
        ir_graph_free(g);
        diag_free(&d);
    }
    FeOptions ou = o;
    CHECK(fe_parse_input_shape("1,3,4,8", &ou.shapes[0]) == 0);
    g = mb_load(b, &ou, &d);
    CHECK(g && SHAPE(g, "y", 4, 1, 3, 4, 8));
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);

    /* an input without any shape needs --input-shape */
    b = mb_new(13);
    mb_input(b, "x", 1, -1, NULL);
    mb_node(b, "Relu", "r", "x", "y");
    mb_output(b, "y", 1, -1, NULL);
    g = mb_load(b, NULL, &d);
    CHECK(g == NULL && diag_contains(&d, "has no shape"));
    diag_free(&d);
    FeOptions o1 = {0};
    fe_parse_input_shape("x=4,4", &o1.shapes[0]);
    o1.n_shapes = 1;
    g = mb_load(b, &o1, &d);
    CHECK(g && SHAPE(g, "y", 2, 4, 4));
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);
}

static void test_input_is_initializer(void)
{
    Mb *b = mb_new(13);
    mb_input(b, "x", 1, 2, D(2, 3));
    mb_input(b, "w", 1, 2, D(2, 3)); /* listed as input, but a weight */
    mb_init_f(b, "w", 2, D(2, 3), NULL);
    mb_node(b, "Add", "add", "x,w", "y");
    mb_output(b, "y", 1, 2, D(2, 3));
    IrDiag d;
    IrGraph *g = mb_load(b, NULL, &d);
    CHECK(g && g->n_inputs == 1 && g->tensors[g->inputs[0]].kind == IR_T_INPUT);
    CHECK(g && tensor_named(g, "w")->kind == IR_T_CONST);
    CHECK(g && g->n_outputs == 1 && g->tensors[g->outputs[0]].is_output);
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);
}

/* ------------------------------------------------------ shape folding */

/* x[N,3,4,4] -> Shape -> Gather(0) -> Unsqueeze -> Concat(-1) -> Reshape */
static void test_shape_folding(void)
{
    Mb *b = mb_new(13);
    b->inputs[b->graph.n_input++] = mb_value(b, "x", 1, 4, D(-1, 3, 4, 4), NULL);
    mb_init_i64(b, "zero", 1, D(0));
    b->inits[b->graph.n_initializer - 1]->n_dims = 0; /* scalar index */
    mb_init_i64(b, "ax0", 1, D(0));
    mb_init_i64(b, "minus1", 1, D(-1));
    mb_node(b, "Shape", "shape", "x", "s");
    Onnx__NodeProto *n = mb_node(b, "Gather", "gather", "s,zero", "n");
    mb_attr_i(b, n, "axis", 0);
    mb_node(b, "Unsqueeze", "unsq", "n,ax0", "n1");
    n = mb_node(b, "Concat", "concat", "n1,minus1", "shp");
    mb_attr_i(b, n, "axis", 0);
    mb_node(b, "Cast", "cast_noop", "shp", "shp64");
    n = b->nodes[b->graph.n_node - 1];
    mb_attr_i(b, n, "to", 7);
    mb_node(b, "Reshape", "reshape", "x,shp64", "y");
    mb_output(b, "y", 1, 2, D(-1, -1));
    FeOptions o = {0};
    fe_parse_input_shape("x=2,3,4,4", &o.shapes[0]);
    o.n_shapes = 1;
    IrDiag d;
    IrGraph *g = mb_load(b, &o, &d);
    CHECK(g != NULL);
    if (g) {
        CHECK(SHAPE(g, "y", 2, 2, 48));
        CHECK_EQ_INT(g->n_layers, 1);
        CHECK_EQ_INT(count_layers(g, IR_OP_RESHAPE), 1);
        const int64_t *s = const_data(g, "shp64");
        CHECK(s && s[0] == 2 && s[1] == -1);
        CHECK_EQ_INT(g->layers[0].n_in, 1); /* the shape input is resolved */
    }
    diag_print(&d, stderr);
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);
}

static void test_fold_arith(void)
{
    Mb *b = relu_model(13);
    Onnx__NodeProto *n = mb_node(b, "ConstantOfShape", "cos", "dims", "filled");
    mb_init_i64(b, "dims", 2, D(2, 3));
    Onnx__TensorProto *v = mb_tensor(b, NULL, 6, 1, D(1));
    mb_raw(b, v, (int32_t[]){7}, 4);
    mb_attr_t(b, n, "value", v);
    mb_init_i64(b, "start", 1, D(1));
    mb_init_i64(b, "limit", 1, D(10));
    mb_init_i64(b, "delta", 1, D(3));
    for (int i = 0; i < 3; i++)
        b->inits[b->graph.n_initializer - 1 - i]->n_dims = 0;
    mb_node(b, "Range", "range", "start,limit,delta", "r");
    mb_node(b, "Mul", "mul", "r,r", "r2");
    mb_node(b, "Sub", "sub", "r2,start", "r3");
    mb_node(b, "Div", "div", "r3,delta", "r4");
    n = mb_node(b, "Slice", "slice", "r4,s_st,s_en", "r5");
    mb_init_i64(b, "s_st", 1, D(-2));
    mb_init_i64(b, "s_en", 1, D(100));
    mb_init_f(b, "fx", 1, D(3), (float[]){1.5f, -2.5f, 4.0f});
    mb_node(b, "Neg", "neg", "fx", "fneg");
    mb_node(b, "Transpose", "tr", "filled", "filled_t");
    IrDiag d;
    IrGraph *g = mb_load(b, NULL, &d);
    CHECK(g != NULL);
    if (g) {
        const int32_t *f = const_data(g, "filled");
        CHECK(f && f[5] == 7 && SHAPE(g, "filled", 2, 2, 3) && tensor_named(g, "filled")->dtype == IR_DT_INT32);
        const int64_t *r = const_data(g, "r");
        CHECK(r && SHAPE(g, "r", 1, 3) && r[0] == 1 && r[1] == 4 && r[2] == 7);
        const int64_t *r4 = const_data(g, "r4");
        CHECK(r4 && r4[0] == 0 && r4[1] == 5 && r4[2] == 16); /* (r*r-1)/3 */
        const int64_t *r5 = const_data(g, "r5");
        CHECK(r5 && SHAPE(g, "r5", 1, 2) && r5[0] == 5 && r5[1] == 16);
        const float *fn = const_data(g, "fneg");
        CHECK(fn && fn[0] == -1.5f && fn[1] == 2.5f);
        CHECK(SHAPE(g, "filled_t", 2, 3, 2));
        CHECK_EQ_INT(g->n_layers, 1);
    }
    diag_print(&d, stderr);
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);

    /* fold-only ops over run-time values are errors on that node */
    b = relu_model(13);
    b->inputs[b->graph.n_input++] = mb_value(b, "lim", 7, 0, NULL, NULL);
    mb_init_i64(b, "start", 1, D(0));
    b->inits[0]->n_dims = 0;
    mb_node(b, "Range", "dyn_range", "start,lim,start", "r");
    g = mb_load(b, NULL, &d);
    CHECK(g == NULL && diag_contains(&d, "dyn_range") && diag_contains(&d, "must be a constant"));
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);

    /* integer division by zero while folding */
    b = relu_model(13);
    mb_init_i64(b, "a", 1, D(4));
    mb_init_i64(b, "z", 1, D(0));
    mb_node(b, "Div", "div0", "a,z", "q");
    g = mb_load(b, NULL, &d);
    CHECK(g == NULL && diag_contains(&d, "division by zero"));
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);
}

/* ---------------------------------------------- unsupported, all at once */

static void test_unsupported_all_reported(void)
{
    Mb *b = mb_new(13);
    mb_input(b, "x", 1, 4, D(1, 3, 8, 8));
    mb_node(b, "Relu", "ok1", "x", "a");
    mb_node(b, "LSTM", "bad_lstm", "a", "b");
    mb_node(b, "Relu", "after_bad", "b", "c"); /* consumer of a failed value: not reported */
    Onnx__NodeProto *n = mb_node(b, "Relu", "custom_relu", "c", "e");
    n->domain = mb_str(b, "com.example");
    mb_node(b, "NonMaxSuppression", "", "e", "f");
    mb_node(b, "Add", "sum", "f,a", "y");
    mb_output(b, "y", 1, 4, D(1, 3, 8, 8));
    IrDiag d;
    IrGraph *g = mb_load(b, NULL, &d);
    CHECK(g == NULL);
    CHECK_EQ_INT(d.n_errors, 3);
    CHECK(diag_contains(&d, "unsupported operator 'LSTM' (domain 'ai.onnx', opset 13)"));
    CHECK(diag_contains(&d, "bad_lstm"));
    CHECK(diag_contains(&d, "unsupported operator 'Relu' (domain 'com.example', opset 13)"));
    CHECK(diag_contains(&d, "custom_relu"));
    CHECK(diag_contains(&d, "NonMaxSuppression_4")); /* generated name */
    CHECK(!diag_contains(&d, "after_bad"));
    CHECK(d.n > 0 && d.v[0].file && strstr(d.v[0].file, "o2h_fe_test"));
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);
}

/* ----------------------------------------------------- graph structure */

static void test_names_and_order(void)
{
    Mb *b = mb_new(13);
    mb_input(b, "x", 1, 2, D(2, 3));
    /* out of order: the consumer comes first */
    mb_node(b, "Sigmoid", "second", "a", "y");
    mb_node(b, "Relu", "", "x", "a");
    mb_output(b, "y", 1, 2, D(2, 3));
    IrDiag d;
    IrGraph *g = mb_load(b, NULL, &d);
    CHECK(g != NULL);
    if (g) {
        CHECK_EQ_INT(g->n_layers, 2);
        CHECK(g->layers[0].op == IR_OP_RELU && !strcmp(g->layers[0].name, "Relu_1"));
        CHECK(g->layers[1].op == IR_OP_SIGMOID && !strcmp(g->layers[1].name, "second"));
        CHECK(g->tensors[g->layers[1].out[0]].producer == 1);
    }
    CHECK(diag_contains(&d, "not in topological order"));
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);
}

typedef void (*Breaker)(Mb *);

static void undefined_input(Mb *b) { mb_node(b, "Add", "add_undef", "y,ghost", "z"); mb_output(b, "z", 1, 2, D(2, 3)); }
static void duplicate_output(Mb *b) { mb_node(b, "Sigmoid", "dup", "x", "y"); }
static void cycle(Mb *b)
{
    mb_node(b, "Add", "cyc_a", "y,q", "p");
    mb_node(b, "Relu", "cyc_b", "p", "q");
    mb_output(b, "q", 1, 2, D(2, 3));
}
static void no_graph(Mb *b) { b->model.graph = NULL; }
static void no_opset(Mb *b) { b->model.n_opset_import = 0; }
static void old_opset(Mb *b) { b->opset.version = 5; }
static void old_ir(Mb *b) { b->model.ir_version = 2; }
static void ghost_output(Mb *b) { mb_output(b, "nowhere", 1, 2, D(2, 3)); }
static void wrong_output_shape(Mb *b) { b->outputs[0] = mb_value(b, "y", 1, 2, D(3, 2), NULL); }
static void wrong_output_type(Mb *b) { b->outputs[0] = mb_value(b, "y", 7, 2, D(2, 3), NULL); }
static void bad_attr_type(Mb *b) { mb_attr_s(b, b->nodes[0], "alpha", "x"); b->nodes[0]->op_type = mb_str(b, "LeakyRelu"); }
static void absurd_input(Mb *b) { b->inputs[0] = mb_value(b, "x", 1, 3, D(1 << 22, 1 << 22, 1 << 22), NULL); }
static void broadcast_fail(Mb *b) { mb_init_f(b, "w", 1, D(4), NULL); mb_node(b, "Add", "bad_add", "y,w", "z"); }
static void no_outputs(Mb *b) { b->graph.n_output = 0; }
static void empty_op(Mb *b) { mb_node(b, "", "noop", "y", "z"); }

static void test_malformed_graphs(void)
{
    static const struct {
        Breaker f;
        const char *needle;
    } cases[] = {
        {undefined_input, "input 'ghost' is not produced"},
        {duplicate_output, "output 'y' is already defined"},
        {cycle, "the graph has a cycle"},
        {no_graph, "the model has no graph"},
        {no_opset, "imports no opset of the default ONNX domain"},
        {old_opset, "opset 5 is not supported"},
        {old_ir, "ir_version 2 is not supported"},
        {ghost_output, "graph output 'nowhere' is not produced"},
        {wrong_output_shape, "declared with dim 3 on axis 0 but computes 2"},
        {wrong_output_type, "declared int64 but computes float32"},
        {bad_attr_type, "attribute 'alpha' should be of type float"},
        {absurd_input, "absurdly large"},
        {broadcast_fail, "do not broadcast"},
        {no_outputs, "the graph has no outputs"},
        {empty_op, "unsupported operator ''"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Mb *b = relu_model(13);
        cases[i].f(b);
        IrDiag d;
        IrGraph *g = mb_load(b, NULL, &d);
        CHECK_MSG(g == NULL && diag_contains(&d, cases[i].needle), "case %zu: '%s'", i,
                  cases[i].needle);
        if (!diag_contains(&d, cases[i].needle))
            diag_print(&d, stderr);
        ir_graph_free(g);
        diag_free(&d);
        mb_free(b);
    }
}

/* ------------------------------------------------------ wire fallback */

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    do {
        p[n] = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
        v >>= 7;
        n++;
    } while (v);
    return n;
}

/* Append field 7 (graph) holding the packed graph g. */
static size_t append_graph(uint8_t *buf, size_t at, const Onnx__GraphProto *g)
{
    size_t len = onnx__graph_proto__get_packed_size(g);
    buf[at++] = (7 << 3) | 2;
    at += put_varint(buf + at, len);
    onnx__graph_proto__pack(g, buf + at);
    return at + len;
}

/* A graph split over two `graph` fields (which protobuf merges) and a
 * tensor with two raw_data fields (the last wins) make the wire walker give
 * up; the loader must then decode the whole file and still be right. */
static void test_wire_fallback(void)
{
    Mb *b = relu_model(13);
    float w[32];
    for (int i = 0; i < 32; i++)
        w[i] = (float)i;
    mb_init_f(b, "w", 1, D(32), w);
    /* halves: nodes and inputs first, initializers and outputs second */
    Onnx__GraphProto g1 = b->graph, g2 = b->graph;
    g1.n_initializer = 0;
    g1.n_output = 0;
    g2.n_node = 0;
    g2.n_input = 0;
    g2.name = NULL;
    Onnx__ModelProto head = b->model;
    head.graph = NULL;
    size_t cap = onnx__model_proto__get_packed_size(&b->model) + 256;
    uint8_t *buf = calloc(1, cap);
    size_t at = onnx__model_proto__pack(&head, buf);
    at = append_graph(buf, at, &g1);
    at = append_graph(buf, at, &g2);
    write_bytes(b->path, buf, at);
    IrDiag d;
    diag_init(&d);
    IrGraph *g = fe_load_onnx(b->path, NULL, &d);
    CHECK(g != NULL);
    const float *f = g ? const_data(g, "w") : NULL;
    CHECK(f && f[31] == 31.0f && f[5] == 5.0f);
    CHECK(g && g->n_layers == 1 && g->n_outputs == 1);
    ir_graph_free(g);
    diag_free(&d);

    /* raw_data twice in one tensor: the second value counts. Bytes:
     * head + graph(7){ graph without initializers + initializer(5){
     * tensor + raw_data(9) } } */
    Onnx__TensorProto *t = b->inits[0];
    float w2[32];
    for (int i = 0; i < 32; i++)
        w2[i] = -(float)i;
    size_t tcap = onnx__tensor_proto__get_packed_size(t) + sizeof w2 + 16;
    uint8_t *tb = calloc(1, tcap);
    size_t tat = onnx__tensor_proto__pack(t, tb);
    tb[tat++] = (9 << 3) | 2;
    tat += put_varint(tb + tat, sizeof w2);
    memcpy(tb + tat, w2, sizeof w2);
    tat += sizeof w2;
    Onnx__GraphProto g3 = b->graph;
    g3.n_initializer = 0;
    size_t gcap = onnx__graph_proto__get_packed_size(&g3) + tcap + 16;
    uint8_t *gb = calloc(1, gcap);
    size_t gat = onnx__graph_proto__pack(&g3, gb);
    gb[gat++] = (5 << 3) | 2;
    gat += put_varint(gb + gat, tat);
    memcpy(gb + gat, tb, tat);
    gat += tat;
    free(buf);
    buf = calloc(1, gat + 256);
    at = onnx__model_proto__pack(&head, buf);
    buf[at++] = (7 << 3) | 2;
    at += put_varint(buf + at, gat);
    memcpy(buf + at, gb, gat);
    at += gat;
    write_bytes(b->path, buf, at);
    diag_init(&d);
    g = fe_load_onnx(b->path, NULL, &d);
    f = g ? const_data(g, "w") : NULL;
    CHECK(f && f[31] == -31.0f && f[5] == -5.0f);
    ir_graph_free(g);
    diag_free(&d);
    free(tb);
    free(gb);
    free(buf);
    mb_free(b);
}

/* ------------------------------------------------------ malformed files */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)rng_state;
}

/* Load path: NULL must come with an error; never crash. */
static void load_must_not_crash(const char *path, const char *what)
{
    IrDiag d;
    diag_init(&d);
    IrGraph *g = fe_load_onnx(path, NULL, &d);
    CHECK_MSG(g != NULL || d.n_errors > 0, "%s: NULL without an error", what);
    if (!g)
        CHECK_MSG(d.n > 0 && d.v[0].file && !strcmp(d.v[0].file, path), "%s: message names the file", what);
    ir_graph_free(g);
    diag_free(&d);
}

static Mb *rich_model(void)
{
    Mb *b = mb_new(13);
    mb_input(b, "x", 1, 4, D(1, 2, 4, 4));
    float w[2 * 2 * 3 * 3];
    for (int i = 0; i < 36; i++)
        w[i] = (float)i;
    mb_init_f(b, "w", 4, D(2, 2, 3, 3), w);
    Onnx__NodeProto *n = mb_node(b, "Conv", "conv", "x,w", "c");
    mb_attr_ints(b, n, "pads", 4, D(1, 1, 1, 1));
    n = mb_node(b, "Constant", "k", "", "kv");
    Onnx__TensorProto *t = mb_tensor(b, NULL, 1, 1, D(20));
    mb_raw(b, t, w, 80);
    mb_attr_t(b, n, "value", t);
    mb_node(b, "Relu", "relu", "c", "y");
    mb_output(b, "y", 1, 4, D(1, 2, 4, 4));
    return b;
}

static void test_malformed_files(void)
{
    char path[] = "/tmp/o2h_fe_bad_XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    IrDiag d;

    diag_init(&d);
    CHECK(fe_load_onnx("/nonexistent/dir/model.onnx", NULL, &d) == NULL);
    CHECK(diag_contains(&d, "cannot open"));
    diag_free(&d);

    write_bytes(path, "", 0);
    diag_init(&d);
    CHECK(fe_load_onnx(path, NULL, &d) == NULL && diag_contains(&d, "empty"));
    diag_free(&d);

    diag_init(&d);
    CHECK(fe_load_onnx("/tmp", NULL, &d) == NULL && diag_contains(&d, "not a regular file"));
    diag_free(&d);

    write_bytes(path, "\x0a\xff\xff\xff\xff\x0f", 6);
    diag_init(&d);
    CHECK(fe_load_onnx(path, NULL, &d) == NULL && diag_contains(&d, "does not decode"));
    diag_free(&d);

    /* every truncation of a valid model */
    Mb *b = rich_model();
    size_t len;
    uint8_t *buf = mb_pack(b, &len);
    for (size_t cut = 1; cut < len; cut++) {
        write_bytes(path, buf, cut);
        load_must_not_crash(path, "truncated");
    }
    /* random bytes, and random corruption of a valid model */
    uint8_t junk[512];
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + rnd() % sizeof junk;
        for (size_t i = 0; i < n; i++)
            junk[i] = (uint8_t)rnd();
        write_bytes(path, junk, n);
        load_must_not_crash(path, "random bytes");
        uint8_t *copy = malloc(len);
        memcpy(copy, buf, len);
        for (int k = 0; k < 3; k++)
            copy[rnd() % len] = (uint8_t)rnd();
        write_bytes(path, copy, len);
        load_must_not_crash(path, "corrupted");
        free(copy);
    }
    free(buf);
    mb_free(b);
    unlink(path);
}

/* ------------------------------------------------------ shared models */

static void check_model(const char *file, int n_conv, int std, int dw, int pw, int n_gemm, int n_bn)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SHARED_MODELS, file);
    struct stat st;
    if (stat(path, &st) != 0) {
        printf("skipped %s (not present)\n", path);
        return;
    }
    IrDiag d;
    diag_init(&d);
    IrGraph *g = fe_load_onnx(path, NULL, &d);
    CHECK_MSG(g != NULL, "%s loads", file);
    if (!g) {
        diag_print(&d, stderr);
        diag_free(&d);
        return;
    }
    int cls[4] = {0};
    for (int l = 0; l < g->n_layers; l++)
        if (g->layers[l].op == IR_OP_CONV)
            cls[g->layers[l].attr.conv.cls]++;
    CHECK_EQ_INT(count_layers(g, IR_OP_CONV), n_conv);
    if (std >= 0) {
        CHECK_EQ_INT(cls[IR_CONV_STANDARD], std);
        CHECK_EQ_INT(cls[IR_CONV_DEPTHWISE], dw);
        CHECK_EQ_INT(cls[IR_CONV_POINTWISE], pw);
    }
    CHECK_EQ_INT(count_layers(g, IR_OP_GEMM) + count_layers(g, IR_OP_MATMUL), n_gemm);
    CHECK_EQ_INT(count_layers(g, IR_OP_BATCHNORM), n_bn);
    CHECK(g->n_outputs == 1 && shape_eq(&g->tensors[g->outputs[0]], 2, D(1, 1000)));
    CHECK_MSG(ir_verify(g, &d) == 0, "%s passes ir_verify", file);
    ir_graph_free(g);
    diag_free(&d);
}

static void test_shared_models(void)
{
    check_model("mobilenet_v2.onnx", 52, 1, 17, 34, 1, 0);
    check_model("mobilenet_v2_bn.onnx", 52, 1, 17, 34, 1, 52);
    check_model("resnet18.onnx", 20, -1, 0, 0, 1, 0);
    check_model("efficientnet_b0.onnx", 81, -1, 0, 0, 1, 0);
}

int main(void)
{
    test_storage_forms();
    test_bad_initializers();
    test_external_data();
    test_constant_forms();
    test_dynamic_dims();
    test_input_is_initializer();
    test_shape_folding();
    test_fold_arith();
    test_unsupported_all_reported();
    test_names_and_order();
    test_malformed_graphs();
    test_wire_fallback();
    test_malformed_files();
    test_shared_models();
    return check_done();
}
