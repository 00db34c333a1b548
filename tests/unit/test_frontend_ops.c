/* test_frontend_ops.c - shape inference and attribute resolution of each
 * importer family (frontend/import_<family>.c): broadcasting, conv padding
 * rules and classes, pooling ceil_mode, Gemm/MatMul, the shape ops across
 * their opset variants, resize, softmax coercion, Q/DQ.
 *
 * Each case is a tiny model built in memory; the checks read the IR the
 * loader returns (output shapes, IrLayer.attr, kept inputs). */
#include <float.h>

#include "check.h"
#include "test_frontend_build.h"

/* Load, and print the messages when the load unexpectedly fails. */
static IrGraph *load_ok(Mb *b, IrDiag *d)
{
    IrGraph *g = mb_load(b, NULL, d);
    if (!g)
        diag_print(d, stderr);
    return g;
}

static const IrLayer *layer_of(const IrGraph *g, IrOp op)
{
    for (int l = 0; g && l < g->n_layers; l++)
        if (g->layers[l].op == op)
            return &g->layers[l];
    return NULL;
}

static void done(Mb *b, IrGraph *g, IrDiag *d)
{
    ir_graph_free(g);
    diag_free(d);
    mb_free(b);
}

/* Expect the model to be rejected with needle in the messages. */
static void expect_error(Mb *b, const char *needle)
{
    IrDiag d;
    IrGraph *g = mb_load(b, NULL, &d);
    CHECK_MSG(g == NULL && diag_contains(&d, needle), "expected error '%s'", needle);
    if (g || !diag_contains(&d, needle))
        diag_print(&d, stderr);
    done(b, g, &d);
}

/* ------------------------------------------------------------- binary */

static void test_broadcast(void)
{
    Mb *b = mb_new(13);
    mb_input(b, "a", 1, 3, D(2, 1, 4));
    mb_input(b, "b", 1, 2, D(3, 1));
    mb_input(b, "s", 1, 0, NULL);
    mb_node(b, "Add", "add", "a,b", "y");
    mb_node(b, "Mul", "mul", "y,s", "z");
    mb_node(b, "Max", "max", "a,b,s", "m");
    mb_init_f(b, "slope", 3, D(3, 1, 1), NULL);
    mb_input(b, "x4", 1, 4, D(1, 3, 5, 5));
    mb_node(b, "PRelu", "prelu", "x4,slope", "p");
    mb_output(b, "z", 1, 3, D(2, 3, 4));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y", 3, 2, 3, 4) && SHAPE(g, "z", 3, 2, 3, 4) && SHAPE(g, "m", 3, 2, 3, 4));
    CHECK(g && SHAPE(g, "p", 4, 1, 3, 5, 5));
    const IrLayer *L = layer_of(g, IR_OP_PRELU);
    CHECK(L && L->attr.act.kind == IR_ACT_PRELU && L->n_in == 2);
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "a", 1, 2, D(2, 3));
    mb_input(b, "b", 1, 2, D(3, 2));
    mb_node(b, "Sub", "sub", "a,b", "y");
    mb_output(b, "y", 1, 2, D(2, 3));
    expect_error(b, "do not broadcast (axis 0: 2 vs 3)");

    b = mb_new(13);
    mb_input(b, "a", 1, 1, D(3));
    mb_input(b, "b", 7, 1, D(3));
    mb_node(b, "Add", "mixed", "a,b", "y");
    mb_output(b, "y", 1, 1, D(3));
    expect_error(b, "have different types");

    /* opset 6: legacy broadcast along an axis */
    b = mb_new(6);
    mb_input(b, "a", 1, 4, D(2, 3, 4, 5));
    mb_input(b, "b", 1, 1, D(3));
    Onnx__NodeProto *n = mb_node(b, "Add", "legacy", "a,b", "y");
    mb_attr_i(b, n, "broadcast", 1);
    mb_attr_i(b, n, "axis", 1);
    mb_output(b, "y", 1, 4, D(2, 3, 4, 5));
    g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y", 4, 2, 3, 4, 5) && count_layers(g, IR_OP_RESHAPE) == 1);
    const IrLayer *add = layer_of(g, IR_OP_ADD);
    CHECK(add && shape_eq(&g->tensors[add->in[1]], 3, D(3, 1, 1)));
    CHECK(diag_contains(&d, "legacy broadcasting"));
    done(b, g, &d);
}

/* --------------------------------------------------------------- conv */

static Mb *conv_model(int64_t h, int64_t w, int64_t cin, int64_t cout, int64_t k, int64_t group)
{
    Mb *b = mb_new(13);
    mb_input(b, "x", 1, 4, D(1, cin, h, w));
    mb_init_f(b, "w", 4, D(cout, cin / group, k, k), NULL);
    mb_init_f(b, "bias", 1, D(cout), NULL);
    Onnx__NodeProto *n = mb_node(b, "Conv", "conv", "x,w,bias", "y");
    if (group != 1)
        mb_attr_i(b, n, "group", group);
    mb_output(b, "y", 1, -1, NULL);
    return b;
}

static const IrConvAttr *conv_attr(const IrGraph *g)
{
    const IrLayer *L = layer_of(g, IR_OP_CONV);
    if (!L)
        L = layer_of(g, IR_OP_CONV_TRANSPOSE);
    return L ? &L->attr.conv : NULL;
}

static void test_conv(void)
{
    static const struct {
        const char *auto_pad;
        int64_t in, k, s, out, pb, pe;
    } ap[] = {
        {"SAME_UPPER", 8, 3, 2, 4, 0, 1},
        {"SAME_LOWER", 8, 3, 2, 4, 1, 0},
        {"SAME_UPPER", 7, 3, 2, 4, 1, 1},
        {"VALID", 8, 3, 2, 3, 0, 0},
        {"NOTSET", 8, 3, 1, 6, 0, 0},
    };
    for (size_t i = 0; i < sizeof ap / sizeof ap[0]; i++) {
        Mb *b = conv_model(ap[i].in, ap[i].in, 2, 4, ap[i].k, 1);
        Onnx__NodeProto *n = b->nodes[0];
        mb_attr_s(b, n, "auto_pad", ap[i].auto_pad);
        mb_attr_ints(b, n, "strides", 2, D(ap[i].s, ap[i].s));
        IrDiag d;
        IrGraph *g = load_ok(b, &d);
        const IrConvAttr *a = conv_attr(g);
        CHECK_MSG(g && SHAPE(g, "y", 4, 1, 4, ap[i].out, ap[i].out), "auto_pad case %zu", i);
        CHECK_MSG(a && a->pad_begin[0] == ap[i].pb && a->pad_end[1] == ap[i].pe &&
                      a->stride[0] == ap[i].s && a->cls == IR_CONV_STANDARD && a->group == 1,
                  "auto_pad case %zu attrs", i);
        done(b, g, &d);
    }
    /* explicit pads and dilations: 10 + 1 + 2 - (2*2+1) = 8 -> /1 + 1 = 9 */
    Mb *b = conv_model(10, 10, 3, 6, 3, 1);
    mb_attr_ints(b, b->nodes[0], "pads", 4, D(1, 0, 2, 0));
    mb_attr_ints(b, b->nodes[0], "dilations", 2, D(2, 1));
    mb_attr_ints(b, b->nodes[0], "kernel_shape", 2, D(3, 3));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    const IrConvAttr *a = conv_attr(g);
    CHECK(g && SHAPE(g, "y", 4, 1, 6, 9, 8));
    CHECK(a && a->nsp == 2 && a->kernel[0] == 3 && a->dilation[0] == 2 && a->pad_begin[0] == 1 &&
          a->pad_end[0] == 2);
    CHECK(g && layer_of(g, IR_OP_CONV)->n_in == 3);
    done(b, g, &d);

    /* classes */
    static const struct {
        int64_t cin, cout, k, group;
        IrConvClass cls;
    } cl[] = {
        {8, 16, 1, 1, IR_CONV_POINTWISE}, {8, 8, 3, 8, IR_CONV_DEPTHWISE},
        {8, 16, 3, 8, IR_CONV_DEPTHWISE}, {8, 16, 3, 2, IR_CONV_GROUPED},
        {8, 16, 3, 1, IR_CONV_STANDARD}, {1, 4, 1, 1, IR_CONV_POINTWISE},
    };
    for (size_t i = 0; i < sizeof cl / sizeof cl[0]; i++) {
        b = conv_model(6, 6, cl[i].cin, cl[i].cout, cl[i].k, cl[i].group);
        g = load_ok(b, &d);
        a = conv_attr(g);
        CHECK_MSG(a && a->cls == cl[i].cls && a->group == cl[i].group, "class case %zu", i);
        done(b, g, &d);
    }
    /* 1-D conv */
    b = mb_new(11);
    mb_input(b, "x", 1, 3, D(1, 2, 9));
    mb_init_f(b, "w", 3, D(3, 2, 4), NULL);
    mb_node(b, "Conv", "c1d", "x,w", "y");
    mb_attr_ints(b, b->nodes[0], "strides", 1, D(2));
    mb_output(b, "y", 1, 3, D(1, 3, 3));
    g = load_ok(b, &d);
    CHECK(g && conv_attr(g)->nsp == 1);
    done(b, g, &d);

    b = conv_model(6, 6, 3, 4, 3, 1);
    b->inits[0]->dims[1] = 2; /* weight expects 2 channels, input has 3 */
    b->inits[0]->raw_data.len = 4 * 2 * 9 * 4;
    expect_error(b, "expects 2 input channels");
    b = conv_model(2, 2, 3, 4, 5, 1);
    expect_error(b, "is larger than the padded input");
    b = conv_model(6, 6, 6, 4, 3, 4);
    b->inits[0]->dims[1] = 1;
    expect_error(b, "does not divide the 6 input channels");
    b = conv_model(6, 6, 3, 4, 3, 1);
    mb_attr_s(b, b->nodes[0], "auto_pad", "SAME");
    expect_error(b, "unknown auto_pad 'SAME'");
}

static void test_conv_transpose(void)
{
    /* 3x3 input, 3x3 kernel, stride 2: full = 2*2 + 3 = 7 (+1 output_padding) */
    Mb *b = mb_new(13);
    mb_input(b, "x", 1, 4, D(1, 2, 3, 3));
    mb_init_f(b, "w", 4, D(2, 3, 3, 3), NULL);
    Onnx__NodeProto *n = mb_node(b, "ConvTranspose", "ct", "x,w", "y");
    mb_attr_ints(b, n, "strides", 2, D(2, 2));
    mb_attr_ints(b, n, "output_padding", 2, D(1, 0));
    mb_attr_ints(b, n, "pads", 4, D(1, 1, 1, 1));
    mb_output(b, "y", 1, 4, D(1, 3, 6, 5));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    const IrConvAttr *a = conv_attr(g);
    CHECK(g && SHAPE(g, "y", 4, 1, 3, 6, 5));
    CHECK(a && a->out_pad[0] == 1 && a->out_pad[1] == 0 && a->pad_begin[0] == 1);
    done(b, g, &d);

    /* output_shape decides the padding; group 2 doubles the channels */
    b = mb_new(13);
    mb_input(b, "x", 1, 4, D(1, 2, 3, 3));
    mb_init_f(b, "w", 4, D(2, 1, 3, 3), NULL);
    n = mb_node(b, "ConvTranspose", "ct", "x,w", "y");
    mb_attr_ints(b, n, "strides", 2, D(2, 2));
    mb_attr_ints(b, n, "output_shape", 2, D(6, 8));
    mb_attr_i(b, n, "group", 2);
    mb_output(b, "y", 1, 4, D(1, 2, 6, 8));
    g = load_ok(b, &d);
    a = conv_attr(g);
    CHECK(g && SHAPE(g, "y", 4, 1, 2, 6, 8));
    CHECK(a && a->pad_begin[0] + a->pad_end[0] == 1 && a->out_pad[1] == 1);
    done(b, g, &d);
}

/* --------------------------------------------------------------- pool */

static void test_pool(void)
{
    static const struct {
        int ceil;
        int64_t in, k, s, pe, out;
    } pc[] = {
        {0, 5, 2, 2, 0, 2}, {1, 5, 2, 2, 0, 3},
        {1, 4, 2, 2, 1, 2}, /* the window starting in the end padding is dropped */
        {0, 4, 2, 2, 1, 2}, {1, 6, 3, 2, 1, 3},
    };
    for (size_t i = 0; i < sizeof pc / sizeof pc[0]; i++) {
        Mb *b = mb_new(13);
        mb_input(b, "x", 1, 4, D(1, 1, pc[i].in, pc[i].in));
        Onnx__NodeProto *n = mb_node(b, "MaxPool", "mp", "x", "y");
        mb_attr_ints(b, n, "kernel_shape", 2, D(pc[i].k, pc[i].k));
        mb_attr_ints(b, n, "strides", 2, D(pc[i].s, pc[i].s));
        mb_attr_ints(b, n, "pads", 4, D(0, 0, pc[i].pe, pc[i].pe));
        mb_attr_i(b, n, "ceil_mode", pc[i].ceil);
        mb_output(b, "y", 1, -1, NULL);
        IrDiag d;
        IrGraph *g = load_ok(b, &d);
        CHECK_MSG(g && SHAPE(g, "y", 4, 1, 1, pc[i].out, pc[i].out), "pool case %zu", i);
        const IrLayer *L = layer_of(g, IR_OP_MAXPOOL);
        CHECK(L && L->attr.pool.ceil_mode == (pc[i].ceil != 0) && L->attr.pool.pad_end[0] == pc[i].pe);
        done(b, g, &d);
    }
    Mb *b = mb_new(19);
    mb_input(b, "x", 1, 4, D(1, 3, 9, 9));
    Onnx__NodeProto *n = mb_node(b, "AveragePool", "ap", "x", "y");
    mb_attr_ints(b, n, "kernel_shape", 2, D(3, 3));
    mb_attr_ints(b, n, "dilations", 2, D(2, 2));
    mb_attr_s(b, n, "auto_pad", "SAME_UPPER");
    mb_attr_i(b, n, "count_include_pad", 1);
    mb_node(b, "GlobalAveragePool", "gap", "y", "z");
    mb_output(b, "z", 1, 4, D(1, 3, 1, 1));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    const IrLayer *L = layer_of(g, IR_OP_AVGPOOL);
    CHECK(g && SHAPE(g, "y", 4, 1, 3, 9, 9));
    CHECK(L && L->attr.pool.count_include_pad && L->attr.pool.pad_begin[0] == 2 &&
          L->attr.pool.pad_end[0] == 2 && L->attr.pool.dilation[1] == 2);
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "x", 1, 4, D(1, 3, 4, 4));
    n = mb_node(b, "MaxPool", "mp_idx", "x", "y,idx");
    mb_attr_ints(b, n, "kernel_shape", 2, D(2, 2));
    mb_output(b, "y", 1, -1, NULL);
    expect_error(b, "Indices output of MaxPool is not supported");

    b = mb_new(13);
    mb_input(b, "x", 1, 2, D(3, 4));
    n = mb_node(b, "MaxPool", "mp2", "x", "y");
    mb_attr_ints(b, n, "kernel_shape", 1, D(2));
    mb_output(b, "y", 1, -1, NULL);
    expect_error(b, "has rank 2; 3..5 expected");
}

/* ---------------------------------------------------------- gemm/matmul */

static void test_gemm(void)
{
    Mb *b = mb_new(13);
    mb_input(b, "a", 1, 2, D(4, 3));
    mb_init_f(b, "bw", 2, D(5, 4), NULL);
    mb_init_f(b, "c", 1, D(5), NULL);
    Onnx__NodeProto *n = mb_node(b, "Gemm", "fc", "a,bw,c", "y");
    mb_attr_i(b, n, "transA", 1);
    mb_attr_i(b, n, "transB", 1);
    mb_attr_f(b, n, "alpha", 0.5f);
    mb_attr_f(b, n, "beta", 2.0f);
    mb_output(b, "y", 1, 2, D(3, 5));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    const IrLayer *L = layer_of(g, IR_OP_GEMM);
    CHECK(g && SHAPE(g, "y", 2, 3, 5));
    CHECK(L && L->attr.gemm.trans_a && L->attr.gemm.trans_b && L->attr.gemm.alpha == 0.5f &&
          L->attr.gemm.beta == 2.0f && L->n_in == 3);
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "a", 1, 4, D(2, 1, 3, 4));
    mb_input(b, "b", 1, 3, D(5, 4, 6));
    mb_input(b, "v", 1, 1, D(4));
    mb_input(b, "m", 1, 2, D(4, 6));
    mb_input(b, "m2", 1, 2, D(3, 4));
    mb_node(b, "MatMul", "mm", "a,b", "y");
    mb_node(b, "MatMul", "vm", "v,m", "vy");
    mb_node(b, "MatMul", "mv", "m2,v", "my");
    mb_node(b, "MatMul", "vv", "v,v", "dot");
    mb_output(b, "y", 1, 4, D(2, 5, 3, 6));
    g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y", 4, 2, 5, 3, 6) && SHAPE(g, "vy", 1, 6) && SHAPE(g, "my", 1, 3));
    CHECK(g && tensor_named(g, "dot")->rank == 0);
    L = layer_of(g, IR_OP_MATMUL);
    CHECK(L && !L->attr.gemm.trans_a && L->attr.gemm.alpha == 1.0f && L->attr.gemm.beta == 1.0f);
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "a", 1, 2, D(4, 3));
    mb_input(b, "b", 1, 2, D(4, 5));
    mb_node(b, "Gemm", "bad", "a,b", "y");
    mb_output(b, "y", 1, -1, NULL);
    expect_error(b, "inner dimensions differ");
}

/* -------------------------------------------------------- unary, norm */

static void test_unary_norm(void)
{
    Mb *b = mb_new(13);
    mb_input(b, "x", 1, 4, D(1, 4, 2, 2));
    mb_init_f(b, "lo", 0, NULL, (float[]){0.0f});
    mb_init_f(b, "hi", 0, NULL, (float[]){6.0f});
    mb_node(b, "Clip", "clip", "x,lo,hi", "c");
    Onnx__NodeProto *n = mb_node(b, "LeakyRelu", "lrelu", "c", "l");
    mb_attr_f(b, n, "alpha", 0.1f);
    n = mb_node(b, "HardSigmoid", "hs", "l", "h");
    mb_node(b, "Clip", "clip_open", "h,,hi", "h2");
    for (int i = 0; i < 4; i++)
        mb_init_f(b, (const char *[]){"sc", "bi", "mu", "var"}[i], 1, D(4), NULL);
    n = mb_node(b, "BatchNormalization", "bn", "h2,sc,bi,mu,var", "y");
    mb_attr_f(b, n, "epsilon", 1e-3f);
    mb_output(b, "y", 1, 4, D(1, 4, 2, 2));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y", 4, 1, 4, 2, 2));
    const IrLayer *L = layer_of(g, IR_OP_CLIP);
    CHECK(L && L->attr.act.kind == IR_ACT_CLIP && L->attr.act.alpha == 0.0f &&
          L->attr.act.beta == 6.0f && L->n_in == 1);
    if (g) {
        const IrLayer *open = &g->layers[3];
        CHECK(open->op == IR_OP_CLIP && open->attr.act.alpha == -FLT_MAX && open->attr.act.beta == 6.0f);
    }
    L = layer_of(g, IR_OP_LEAKY_RELU);
    CHECK(L && L->attr.act.kind == IR_ACT_LEAKY_RELU && fabsf(L->attr.act.alpha - 0.1f) < 1e-7f);
    L = layer_of(g, IR_OP_HARD_SIGMOID);
    CHECK(L && L->attr.act.alpha == 0.2f && L->attr.act.beta == 0.5f);
    L = layer_of(g, IR_OP_BATCHNORM);
    CHECK(L && L->n_in == 5 && fabsf(L->attr.norm.epsilon - 1e-3f) < 1e-9f);
    done(b, g, &d);

    /* Mish (opset 18): its activation in attr.act, the input's shape */
    b = mb_new(18);
    mb_input(b, "x", 1, 4, D(1, 4, 2, 2));
    mb_node(b, "Mish", "mish", "x", "y");
    mb_output(b, "y", 1, -1, NULL);
    g = load_ok(b, &d);
    L = layer_of(g, IR_OP_MISH);
    CHECK(g && SHAPE(g, "y", 4, 1, 4, 2, 2) && L && L->attr.act.kind == IR_ACT_MISH && L->n_in == 1);
    done(b, g, &d);

    /* Clip before opset 11: attributes */
    b = mb_new(9);
    mb_input(b, "x", 1, 1, D(3));
    n = mb_node(b, "Clip", "clip6", "x", "y");
    mb_attr_f(b, n, "min", -1.0f);
    mb_attr_f(b, n, "max", 1.0f);
    mb_output(b, "y", 1, 1, D(3));
    g = load_ok(b, &d);
    L = layer_of(g, IR_OP_CLIP);
    CHECK(L && L->attr.act.alpha == -1.0f && L->attr.act.beta == 1.0f);
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "x", 1, 1, D(3));
    mb_input(b, "lo", 1, 0, NULL);
    mb_node(b, "Clip", "clip_dyn", "x,lo", "y");
    mb_output(b, "y", 1, 1, D(3));
    expect_error(b, "must be a constant known at compile time");

    b = mb_new(15);
    mb_input(b, "x", 1, 4, D(1, 2, 2, 2));
    for (int i = 0; i < 4; i++)
        mb_init_f(b, (const char *[]){"sc", "bi", "mu", "var"}[i], 1, D(2), NULL);
    n = mb_node(b, "BatchNormalization", "bn_train", "x,sc,bi,mu,var", "y,rm,rv");
    mb_attr_i(b, n, "training_mode", 1);
    mb_output(b, "y", 1, -1, NULL);
    expect_error(b, "training_mode=1 is not supported");
}

/* -------------------------------------------------------- shape family */

static void test_reshape_flatten(void)
{
    Mb *b = mb_new(14);
    mb_input(b, "x", 1, 3, D(2, 3, 4));
    mb_init_i64(b, "s1", 2, D(0, -1));
    mb_init_i64(b, "s2", 3, D(-1, 2, 2));
    mb_node(b, "Reshape", "r1", "x,s1", "y1");
    mb_node(b, "Reshape", "r2", "x,s2", "y2");
    Onnx__NodeProto *n = mb_node(b, "Flatten", "fl", "x", "f");
    mb_attr_i(b, n, "axis", 2);
    n = mb_node(b, "Flatten", "fl0", "x", "f0");
    mb_attr_i(b, n, "axis", 0);
    n = mb_node(b, "Flatten", "flneg", "x", "fn");
    mb_attr_i(b, n, "axis", -1);
    mb_node(b, "Identity", "id", "x", "i");
    mb_output(b, "y1", 1, 2, D(2, 12));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y1", 2, 2, 12) && SHAPE(g, "y2", 3, 6, 2, 2));
    CHECK(g && SHAPE(g, "f", 2, 6, 4) && SHAPE(g, "f0", 2, 1, 24) && SHAPE(g, "fn", 2, 6, 4));
    CHECK(g && SHAPE(g, "i", 3, 2, 3, 4) && count_layers(g, IR_OP_IDENTITY) == 1);
    CHECK(g && count_layers(g, IR_OP_RESHAPE) == 2 && layer_of(g, IR_OP_RESHAPE)->n_in == 1);
    done(b, g, &d);

    /* allowzero: a 0 is a real zero-sized dim */
    b = mb_new(14);
    mb_input(b, "x", 1, 2, D(0, 3));
    mb_init_i64(b, "s", 2, D(3, 0));
    n = mb_node(b, "Reshape", "rz", "x,s", "y");
    mb_attr_i(b, n, "allowzero", 1);
    mb_output(b, "y", 1, 2, D(3, 0));
    g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y", 2, 3, 0));
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "x", 1, 2, D(2, 3));
    mb_init_i64(b, "s", 2, D(-1, -1));
    mb_node(b, "Reshape", "r", "x,s", "y");
    mb_output(b, "y", 1, -1, NULL);
    expect_error(b, "more than one -1");
    b = mb_new(13);
    mb_input(b, "x", 1, 2, D(2, 3));
    mb_init_i64(b, "s", 1, D(5));
    mb_node(b, "Reshape", "r", "x,s", "y");
    mb_output(b, "y", 1, -1, NULL);
    expect_error(b, "cannot reshape 6 elements");
    b = mb_new(13);
    mb_input(b, "x", 1, 2, D(2, 3));
    mb_input(b, "s", 7, 1, D(2));
    mb_node(b, "Reshape", "r_dyn", "x,s", "y");
    mb_output(b, "y", 1, -1, NULL);
    expect_error(b, "must be a constant known at compile time");
}

static void test_squeeze_transpose_concat(void)
{
    Mb *b = mb_new(11); /* attribute forms */
    mb_input(b, "x", 1, 4, D(1, 3, 1, 5));
    Onnx__NodeProto *n = mb_node(b, "Squeeze", "sq", "x", "s");
    mb_attr_ints(b, n, "axes", 1, D(-2));
    mb_node(b, "Squeeze", "sq_all", "x", "sa");
    n = mb_node(b, "Unsqueeze", "usq", "s", "u");
    mb_attr_ints(b, n, "axes", 2, D(0, -1));
    mb_node(b, "Transpose", "tr_default", "x", "t");
    n = mb_node(b, "Transpose", "tr", "x", "t2");
    mb_attr_ints(b, n, "perm", 4, D(0, 2, 3, 1));
    mb_input(b, "c2", 1, 4, D(1, 2, 1, 5));
    n = mb_node(b, "Concat", "cat", "x,c2", "cc");
    mb_attr_i(b, n, "axis", -3);
    mb_output(b, "u", 1, -1, NULL);
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "s", 3, 1, 3, 5) && SHAPE(g, "sa", 2, 3, 5));
    CHECK(g && SHAPE(g, "u", 5, 1, 1, 3, 5, 1));
    CHECK(g && SHAPE(g, "t", 4, 5, 1, 3, 1) && SHAPE(g, "t2", 4, 1, 1, 5, 3));
    CHECK(g && SHAPE(g, "cc", 4, 1, 5, 1, 5));
    const IrLayer *L = layer_of(g, IR_OP_SQUEEZE);
    CHECK(L && L->attr.axes.n == 1 && L->attr.axes.perm[0] == 2);
    L = layer_of(g, IR_OP_UNSQUEEZE);
    CHECK(L && L->attr.axes.n == 2 && L->attr.axes.perm[0] == 0 && L->attr.axes.perm[1] == 4);
    L = layer_of(g, IR_OP_CONCAT);
    CHECK(L && L->attr.axis.axis == 1);
    done(b, g, &d);

    b = mb_new(13); /* input forms */
    mb_input(b, "x", 1, 3, D(1, 3, 1));
    mb_init_i64(b, "ax", 1, D(2));
    mb_init_i64(b, "ax2", 2, D(1, 1));
    mb_node(b, "Squeeze", "sq", "x,ax", "s");
    mb_node(b, "Unsqueeze", "usq", "s,ax", "u");
    mb_output(b, "u", 1, 3, D(1, 3, 1));
    g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "s", 2, 1, 3) && SHAPE(g, "u", 3, 1, 3, 1));
    CHECK(g && layer_of(g, IR_OP_SQUEEZE)->n_in == 1);
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "x", 1, 2, D(2, 3));
    mb_init_i64(b, "ax", 1, D(0));
    mb_node(b, "Squeeze", "sq_bad", "x,ax", "s");
    mb_output(b, "s", 1, -1, NULL);
    expect_error(b, "cannot squeeze axis 0 of size 2");
    b = mb_new(13);
    mb_input(b, "x", 1, 2, D(2, 3));
    mb_init_i64(b, "ax", 2, D(1, -3)); /* both are axis 1 of the rank-4 result */
    mb_node(b, "Unsqueeze", "usq_dup", "x,ax", "s");
    mb_output(b, "s", 1, -1, NULL);
    expect_error(b, "listed twice");
    b = mb_new(13);
    mb_input(b, "x", 1, 2, D(2, 3));
    Onnx__NodeProto *tn = mb_node(b, "Transpose", "tr_bad", "x", "t");
    mb_attr_ints(b, tn, "perm", 2, D(0, 0));
    mb_output(b, "t", 1, -1, NULL);
    expect_error(b, "not a permutation");
    b = mb_new(13);
    mb_input(b, "x", 1, 2, D(2, 3));
    mb_input(b, "y", 1, 2, D(3, 3));
    tn = mb_node(b, "Concat", "cat_bad", "x,y", "c");
    mb_attr_i(b, tn, "axis", 1);
    mb_output(b, "c", 1, -1, NULL);
    expect_error(b, "has 3 on axis 0");
}

static void test_split(void)
{
    Mb *b = mb_new(11);
    mb_input(b, "x", 1, 2, D(4, 6));
    Onnx__NodeProto *n = mb_node(b, "Split", "sp_attr", "x", "a,b2");
    mb_attr_i(b, n, "axis", 1);
    mb_attr_ints(b, n, "split", 2, D(2, 4));
    mb_node(b, "Split", "sp_even", "x", "e1,e2");
    mb_output(b, "a", 1, 2, D(4, 2));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "a", 2, 4, 2) && SHAPE(g, "b2", 2, 4, 4) && SHAPE(g, "e2", 2, 2, 6));
    const IrLayer *L = layer_of(g, IR_OP_SPLIT);
    CHECK(L && L->attr.axis.axis == 1 && L->attr.axis.n_split == 2 && L->attr.axis.split[1] == 4 &&
          L->n_out == 2);
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "x", 1, 1, D(7));
    mb_init_i64(b, "sz", 3, D(1, 2, 4));
    mb_node(b, "Split", "sp_in", "x,sz", "a,b2,c");
    mb_output(b, "c", 1, 1, D(4));
    g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "a", 1, 1) && SHAPE(g, "c", 1, 4) && layer_of(g, IR_OP_SPLIT)->n_in == 1);
    done(b, g, &d);

    b = mb_new(18);
    mb_input(b, "x", 1, 1, D(7));
    n = mb_node(b, "Split", "sp_n", "x", "a,b2,c");
    mb_attr_i(b, n, "num_outputs", 3);
    mb_output(b, "c", 1, 1, D(1));
    g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "a", 1, 3) && SHAPE(g, "b2", 1, 3) && SHAPE(g, "c", 1, 1));
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "x", 1, 1, D(7));
    mb_node(b, "Split", "sp_uneven", "x", "a,b2");
    mb_output(b, "a", 1, -1, NULL);
    expect_error(b, "does not split evenly");
}

static void test_slice(void)
{
    Mb *b = mb_new(13);
    mb_input(b, "x", 1, 2, D(10, 6));
    mb_init_i64(b, "st", 1, D(-3));
    mb_init_i64(b, "en", 1, D(100));
    mb_node(b, "Slice", "s_neg", "x,st,en", "a");
    mb_init_i64(b, "st2", 1, D(-1));
    mb_init_i64(b, "en2", 1, D(INT64_MIN));
    mb_init_i64(b, "ax2", 1, D(1));
    mb_init_i64(b, "sp2", 1, D(-1));
    mb_node(b, "Slice", "s_rev", "x,st2,en2,ax2,sp2", "r");
    mb_init_i64(b, "st3", 2, D(1, 0));
    mb_init_i64(b, "en3", 2, D(8, 5));
    mb_init_i64(b, "sp3", 2, D(2, 3));
    mb_node(b, "Slice", "s_step", "x,st3,en3,,sp3", "s");
    mb_init_i64(b, "st4", 1, D(20));
    mb_init_i64(b, "en4", 1, D(30));
    mb_node(b, "Slice", "s_empty", "x,st4,en4", "e");
    mb_output(b, "a", 1, 2, D(3, 6));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "a", 2, 3, 6) && SHAPE(g, "r", 2, 10, 6) && SHAPE(g, "s", 2, 4, 2) &&
          SHAPE(g, "e", 2, 0, 6));
    if (g) {
        const IrSliceAttr *a = &g->layers[1].attr.slice;
        CHECK(g->layers[1].op == IR_OP_SLICE && a->n == 1 && a->axes[0] == 1 && a->starts[0] == 5 &&
              a->ends[0] == -1 && a->steps[0] == -1 && g->layers[1].n_in == 1);
        a = &g->layers[0].attr.slice;
        CHECK(a->starts[0] == 7 && a->ends[0] == 10);
    }
    done(b, g, &d);

    b = mb_new(9); /* attribute form */
    mb_input(b, "x", 1, 2, D(4, 4));
    Onnx__NodeProto *n = mb_node(b, "Slice", "s_attr", "x", "y");
    mb_attr_ints(b, n, "starts", 2, D(1, 0));
    mb_attr_ints(b, n, "ends", 2, D(3, -1));
    mb_output(b, "y", 1, 2, D(2, 3));
    g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y", 2, 2, 3));
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "x", 1, 1, D(4));
    mb_init_i64(b, "st", 1, D(0));
    mb_init_i64(b, "sp", 1, D(0));
    mb_node(b, "Slice", "s_zero", "x,st,st,,sp", "y");
    mb_output(b, "y", 1, -1, NULL);
    expect_error(b, "steps must not be 0");
}

static void test_pad_gather_expand_cast(void)
{
    Mb *b = mb_new(13);
    mb_input(b, "x", 1, 4, D(1, 3, 4, 4));
    mb_init_i64(b, "pads", 8, D(0, 0, 1, 2, 0, 0, 3, -1));
    mb_init_f(b, "val", 0, NULL, (float[]){1.5f});
    Onnx__NodeProto *n = mb_node(b, "Pad", "pad", "x,pads,val", "p");
    mb_attr_s(b, n, "mode", "constant");
    mb_init_f(b, "table", 2, D(5, 4), NULL);
    Onnx__TensorProto *idx = mb_tensor(b, "idx", 7, 2, D(1, 2));
    mb_raw(b, idx, D(0, -1), 16);
    mb_init(b, idx);
    mb_input(b, "ids", 7, 2, D(2, 3));
    mb_node(b, "Gather", "gather", "table,ids", "gt");
    n = mb_node(b, "Gather", "gather_ax", "x,idx", "ga");
    mb_attr_i(b, n, "axis", 1);
    mb_input(b, "e", 1, 2, D(3, 1));
    mb_init_i64(b, "eshape", 3, D(2, 1, 4));
    mb_node(b, "Expand", "expand", "e,eshape", "ex");
    n = mb_node(b, "Cast", "cast", "x", "xc");
    mb_attr_i(b, n, "to", 10);
    mb_output(b, "p", 1, 4, D(1, 3, 8, 5));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "p", 4, 1, 3, 8, 5));
    const IrLayer *L = layer_of(g, IR_OP_PAD);
    CHECK(L && L->attr.pad.mode == IR_PAD_CONSTANT && L->attr.pad.begin[2] == 1 &&
          L->attr.pad.end[3] == -1 && L->attr.pad.value == 1.5f && L->n_in == 1);
    CHECK(g && SHAPE(g, "gt", 3, 2, 3, 4) && SHAPE(g, "ga", 5, 1, 1, 2, 4, 4));
    L = layer_of(g, IR_OP_GATHER);
    CHECK(L && L->n_in == 2 && L->attr.axis.axis == 0);
    CHECK(g && SHAPE(g, "ex", 3, 2, 3, 4));
    CHECK(g && tensor_named(g, "xc")->dtype == IR_DT_FLOAT16);
    L = layer_of(g, IR_OP_CAST);
    CHECK(L && L->attr.cast.to == IR_DT_FLOAT16);
    done(b, g, &d);

    b = mb_new(7); /* Pad with attributes, reflect */
    mb_input(b, "x", 1, 2, D(3, 4));
    n = mb_node(b, "Pad", "pad7", "x", "p");
    mb_attr_ints(b, n, "pads", 4, D(2, 1, 2, 1));
    mb_attr_s(b, n, "mode", "reflect");
    mb_output(b, "p", 1, 2, D(7, 6));
    g = load_ok(b, &d);
    L = layer_of(g, IR_OP_PAD);
    CHECK(g && SHAPE(g, "p", 2, 7, 6) && L && L->attr.pad.mode == IR_PAD_REFLECT);
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "x", 1, 2, D(3, 4));
    mb_init_i64(b, "idx", 1, D(3));
    mb_node(b, "Gather", "g_oob", "x,idx", "y");
    mb_output(b, "y", 1, -1, NULL);
    expect_error(b, "index 3 out of range");
    b = mb_new(13);
    mb_input(b, "x", 1, 2, D(3, 4));
    n = mb_node(b, "Cast", "c_str", "x", "y");
    mb_attr_i(b, n, "to", 8);
    mb_output(b, "y", 1, -1, NULL);
    expect_error(b, "cast to data type 8 is not supported");
}

static void test_dropout_reduce(void)
{
    Mb *b = mb_new(13);
    mb_input(b, "x", 1, 4, D(2, 3, 4, 5));
    mb_init_f(b, "ratio", 0, NULL, (float[]){0.3f});
    mb_node(b, "Dropout", "drop", "x,ratio", "y,mask");
    Onnx__NodeProto *n = mb_node(b, "ReduceMean", "rm", "y", "m");
    mb_attr_ints(b, n, "axes", 2, D(-1, 2));
    mb_attr_i(b, n, "keepdims", 0);
    mb_node(b, "ReduceMax", "rmax", "y", "mx");
    mb_init_i64(b, "ax", 1, D(1));
    mb_node(b, "ReduceSum", "rs", "y,ax", "s");
    mb_output(b, "m", 1, 2, D(2, 3));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y", 4, 2, 3, 4, 5) && SHAPE(g, "m", 2, 2, 3));
    CHECK(g && SHAPE(g, "mx", 4, 1, 1, 1, 1) && SHAPE(g, "s", 4, 2, 1, 4, 5));
    const IrTensor *mask = g ? tensor_named(g, "mask") : NULL;
    CHECK(mask && mask->kind == IR_T_CONST && mask->dtype == IR_DT_BOOL);
    const IrLayer *L = layer_of(g, IR_OP_DROPOUT);
    CHECK(L && L->n_in == 1 && L->n_out == 1);
    L = layer_of(g, IR_OP_REDUCE_MEAN);
    CHECK(L && L->attr.axes.n == 2 && L->attr.axes.perm[0] == 2 && L->attr.axes.perm[1] == 3 &&
          !L->attr.axes.keepdims);
    L = layer_of(g, IR_OP_REDUCE_MAX);
    CHECK(L && L->attr.axes.n == 4 && L->attr.axes.keepdims);
    done(b, g, &d);

    b = mb_new(18); /* ReduceMean axes as input; empty axes with noop */
    mb_input(b, "x", 1, 2, D(2, 3));
    mb_init_i64(b, "ax", 1, D(0));
    mb_node(b, "ReduceMean", "rm", "x,ax", "m");
    n = mb_node(b, "ReduceMean", "rm_noop", "x", "k");
    mb_attr_i(b, n, "noop_with_empty_axes", 1);
    mb_output(b, "m", 1, 2, D(1, 3));
    g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "m", 2, 1, 3) && SHAPE(g, "k", 2, 2, 3));
    CHECK(g && g->n_layers == 2 && g->layers[1].op == IR_OP_IDENTITY &&
          !strcmp(g->layers[1].name, "rm_noop"));
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "x", 1, 1, D(3));
    mb_init_f(b, "ratio", 0, NULL, (float[]){0.5f});
    Onnx__TensorProto *tm = mb_tensor(b, "tm", 9, 0, NULL);
    mb_raw(b, tm, (uint8_t[]){1}, 1);
    mb_init(b, tm);
    mb_node(b, "Dropout", "drop_train", "x,ratio,tm", "y");
    mb_output(b, "y", 1, -1, NULL);
    expect_error(b, "only inference is supported");
}

/* ------------------------------------------------------------- resize */

static void test_resize(void)
{
    Mb *b = mb_new(13);
    mb_input(b, "x", 1, 4, D(1, 2, 4, 6));
    mb_init_f(b, "scales", 1, D(4), (float[]){1, 1, 2, 0.5f});
    Onnx__NodeProto *n = mb_node(b, "Resize", "rs", "x,,scales", "y");
    mb_attr_s(b, n, "mode", "linear");
    mb_attr_s(b, n, "coordinate_transformation_mode", "align_corners");
    mb_init_i64(b, "sizes", 4, D(1, 2, 7, 9));
    n = mb_node(b, "Resize", "rz", "x,,,sizes", "z");
    mb_attr_s(b, n, "nearest_mode", "floor");
    mb_output(b, "y", 1, 4, D(1, 2, 8, 3));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y", 4, 1, 2, 8, 3) && SHAPE(g, "z", 4, 1, 2, 7, 9));
    if (g) {
        const IrResizeAttr *a = &g->layers[0].attr.resize;
        CHECK(a->mode == IR_RESIZE_LINEAR && a->coord == IR_CT_ALIGN_CORNERS && a->scale[2] == 2.0f &&
              a->scale[3] == 0.5f && g->layers[0].n_in == 1);
        a = &g->layers[1].attr.resize;
        CHECK(a->mode == IR_RESIZE_NEAREST && a->nearest == IR_NEAREST_FLOOR &&
              a->coord == IR_CT_HALF_PIXEL && fabsf(a->scale[3] - 1.5f) < 1e-6f);
    }
    done(b, g, &d);

    b = mb_new(18); /* axes and keep_aspect_ratio_policy */
    mb_input(b, "x", 1, 4, D(1, 1, 4, 8));
    mb_init_i64(b, "sizes", 2, D(6, 6));
    n = mb_node(b, "Resize", "rz18", "x,,,sizes", "y");
    mb_attr_ints(b, n, "axes", 2, D(2, 3));
    mb_attr_s(b, n, "keep_aspect_ratio_policy", "not_larger");
    mb_output(b, "y", 1, 4, D(1, 1, 3, 6));
    g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y", 4, 1, 1, 3, 6));
    done(b, g, &d);

    b = mb_new(10);
    mb_input(b, "x", 1, 4, D(1, 1, 2, 2));
    mb_init_f(b, "scales", 1, D(4), (float[]){1, 1, 3, 2});
    mb_node(b, "Resize", "rs10", "x,scales", "y");
    mb_output(b, "y", 1, 4, D(1, 1, 6, 4));
    g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y", 4, 1, 1, 6, 4));
    CHECK(g && g->layers[0].attr.resize.coord == IR_CT_ASYMMETRIC);
    done(b, g, &d);

    b = mb_new(7);
    mb_input(b, "x", 1, 4, D(1, 1, 2, 2));
    n = mb_node(b, "Upsample", "up7", "x", "y");
    mb_attr_floats(b, n, "scales", 4, (float[]){1, 1, 2, 2});
    mb_output(b, "y", 1, 4, D(1, 1, 4, 4));
    g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y", 4, 1, 1, 4, 4) && layer_of(g, IR_OP_UPSAMPLE));
    done(b, g, &d);

    b = mb_new(9);
    mb_input(b, "x", 1, 4, D(1, 1, 2, 2));
    mb_init_f(b, "scales", 1, D(4), (float[]){1, 1, 2, 3});
    mb_node(b, "Upsample", "up9", "x,scales", "y");
    mb_output(b, "y", 1, 4, D(1, 1, 4, 6));
    g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y", 4, 1, 1, 4, 6));
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "x", 1, 4, D(1, 1, 2, 2));
    mb_init_f(b, "roi", 1, D(8), NULL);
    mb_init_f(b, "scales", 1, D(4), (float[]){1, 1, 2, 2});
    n = mb_node(b, "Resize", "crop", "x,roi,scales", "y");
    mb_attr_s(b, n, "coordinate_transformation_mode", "tf_crop_and_resize");
    mb_output(b, "y", 1, -1, NULL);
    expect_error(b, "'tf_crop_and_resize' is not supported");
}

/* ------------------------------------------------------ softmax, quant */

static void test_softmax(void)
{
    Mb *b = mb_new(11);
    mb_input(b, "x", 1, 3, D(2, 3, 4));
    mb_node(b, "Softmax", "sm_old", "x", "y"); /* axis 1 over a 3x4 block */
    Onnx__NodeProto *n = mb_node(b, "LogSoftmax", "lsm_last", "x", "z");
    mb_attr_i(b, n, "axis", 2);
    mb_output(b, "y", 1, 3, D(2, 3, 4));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    CHECK(g && SHAPE(g, "y", 3, 2, 3, 4) && SHAPE(g, "z", 3, 2, 3, 4));
    CHECK(g && g->n_layers == 4 && g->layers[0].op == IR_OP_FLATTEN &&
          g->layers[1].op == IR_OP_SOFTMAX && g->layers[2].op == IR_OP_RESHAPE);
    CHECK(g && g->layers[1].attr.axis.axis == 1 && !strcmp(g->layers[1].name, "sm_old"));
    CHECK(g && shape_eq(&g->tensors[g->layers[1].out[0]], 2, D(2, 12)));
    CHECK(g && g->layers[3].op == IR_OP_LOG_SOFTMAX && g->layers[3].attr.axis.axis == 2);
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "x", 1, 3, D(2, 3, 4));
    mb_node(b, "Softmax", "sm", "x", "y");
    mb_output(b, "y", 1, 3, D(2, 3, 4));
    g = load_ok(b, &d);
    CHECK(g && g->n_layers == 1 && g->layers[0].attr.axis.axis == 2);
    done(b, g, &d);
}

static void test_quant(void)
{
    Mb *b = mb_new(13);
    mb_input(b, "x", 1, 4, D(1, 3, 2, 2));
    mb_init_f(b, "s", 0, NULL, (float[]){0.5f});
    Onnx__TensorProto *z = mb_tensor(b, "zp", 3, 0, NULL);
    mb_raw(b, z, (int8_t[]){-3}, 1);
    mb_init(b, z);
    mb_node(b, "QuantizeLinear", "q", "x,s,zp", "xq");
    mb_node(b, "DequantizeLinear", "dq", "xq,s,zp", "xd");
    Onnx__TensorProto *w = mb_tensor(b, "wq", 2, 2, D(3, 4));
    mb_raw(b, w, (uint8_t[12]){0}, 12);
    mb_init(b, w);
    mb_init_f(b, "ws", 1, D(3), (float[]){0.1f, 0.2f, 0.3f});
    Onnx__NodeProto *n = mb_node(b, "DequantizeLinear", "dqw", "wq,ws", "wf");
    mb_attr_i(b, n, "axis", 0);
    mb_node(b, "QuantizeLinear", "q_u8", "x,s", "xu");
    mb_output(b, "xd", 1, 4, D(1, 3, 2, 2));
    IrDiag d;
    IrGraph *g = load_ok(b, &d);
    const IrTensor *xq = g ? tensor_named(g, "xq") : NULL;
    CHECK(xq && xq->dtype == IR_DT_INT8 && xq->quant && xq->quant->scale[0] == 0.5f &&
          xq->quant->zero[0] == -3 && xq->quant->axis == -1 && xq->quant->bits == 8);
    CHECK(g && tensor_named(g, "xd")->dtype == IR_DT_FLOAT);
    CHECK(g && tensor_named(g, "xu")->dtype == IR_DT_UINT8);
    const IrTensor *wq = g ? tensor_named(g, "wq") : NULL;
    CHECK(wq && wq->quant && wq->quant->axis == 0 && wq->quant->n == 3 &&
          fabsf(wq->quant->scale[2] - 0.3f) < 1e-7f);
    const IrTensor *wf = g ? tensor_named(g, "wf") : NULL;
    CHECK(wf && wf->kind == IR_T_ACT && count_layers(g, IR_OP_DEQUANTIZE_LINEAR) == 2);
    done(b, g, &d);

    b = mb_new(13);
    mb_input(b, "x", 1, 2, D(2, 4));
    mb_init_f(b, "s", 1, D(3), NULL);
    n = mb_node(b, "QuantizeLinear", "q_bad", "x,s", "y");
    mb_attr_i(b, n, "axis", 1);
    mb_output(b, "y", 2, -1, NULL);
    expect_error(b, "one value per channel");
}

int main(void)
{
    test_broadcast();
    test_conv();
    test_conv_transpose();
    test_pool();
    test_gemm();
    test_unary_norm();
    test_reshape_flatten();
    test_squeeze_transpose_concat();
    test_split();
    test_slice();
    test_pad_gather_expand_cast();
    test_dropout_reduce();
    test_resize();
    test_softmax();
    test_quant();
    return check_done();
}
