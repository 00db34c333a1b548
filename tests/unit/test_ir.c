/* test_ir.c - unit tests of the IR module: op table, dtypes, tensors,
 * layers, compaction, layer statistics, verifier, text and JSON printers. */
#include "check.h"
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>

static int act(IrGraph *g, const char *name, int n, int c, int h, int w)
{
    int64_t d[4] = {n, c, h, w};
    return ir_tensor_add(g, name, IR_DT_FLOAT, 4, d);
}

static int weight(IrGraph *g, const char *name, int f, int c, int kh, int kw)
{
    int64_t d[4] = {f, c, kh, kw};
    return ir_const_add(g, name, IR_DT_FLOAT, 4, d, NULL);
}

static int conv(IrGraph *g, const char *name, int x, int w, int y, int k, int s, int group, IrConvClass cls)
{
    int l = ir_layer_add(g, IR_OP_CONV, name);
    IrLayer *L = &g->layers[l];
    L->n_in = 2;
    L->in[0] = x;
    L->in[1] = w;
    L->n_out = 1;
    L->out[0] = y;
    IrConvAttr *a = &L->attr.conv;
    a->nsp = 2;
    for (int i = 0; i < 2; i++) {
        a->kernel[i] = k;
        a->stride[i] = s;
        a->dilation[i] = 1;
        a->pad_begin[i] = a->pad_end[i] = k / 2;
    }
    a->group = group;
    a->cls = cls;
    g->tensors[y].producer = l;
    return l;
}

/* x[1,3,8,8] -conv3x3 s2-> a[1,8,4,4] -dw3x3-> b -pw-> c[1,16,4,4] (output) */
static IrGraph *small_net(void)
{
    IrGraph *g = ir_graph_new("small.onnx");
    int x = act(g, "x", 1, 3, 8, 8);
    g->tensors[x].kind = IR_T_INPUT;
    g->inputs[g->n_inputs++] = x;
    int a = act(g, "a", 1, 8, 4, 4), b = act(g, "b", 1, 8, 4, 4), c = act(g, "c", 1, 16, 4, 4);
    conv(g, "stem", x, weight(g, "w0", 8, 3, 3, 3), a, 3, 2, 1, IR_CONV_STANDARD);
    conv(g, "dw", a, weight(g, "w1", 8, 1, 3, 3), b, 3, 1, 8, IR_CONV_DEPTHWISE);
    conv(g, "pw", b, weight(g, "w2", 16, 8, 1, 1), c, 1, 1, 1, IR_CONV_POINTWISE);
    g->tensors[c].is_output = true;
    g->outputs[g->n_outputs++] = c;
    return g;
}

static void test_op_table(void)
{
    CHECK(ir_op_lookup("Conv") == IR_OP_CONV);
    CHECK(ir_op_lookup("GlobalAveragePool") == IR_OP_GLOBAL_AVGPOOL);
    CHECK(ir_op_lookup("NoSuchOp") == IR_OP_COUNT);
    CHECK(!strcmp(ir_op_name(IR_OP_BATCHNORM), "BatchNormalization"));
    CHECK(!strcmp(ir_op_family(IR_OP_CLIP), "unary"));
    CHECK(ir_op_flags(IR_OP_SHAPE) & IR_F_FOLD_ONLY);
    CHECK(ir_op_flags(IR_OP_RESHAPE) & IR_F_NO_DATA);
    /* every op round-trips through its name */
    for (int i = 0; i < IR_OP_COUNT; i++)
        CHECK(ir_op_lookup(ir_op_name((IrOp)i)) == (IrOp)i);
    CHECK(ir_dtype_size(IR_DT_FLOAT) == 4 && ir_dtype_size(IR_DT_INT64) == 8 && ir_dtype_size(IR_DT_INT8) == 1);
    CHECK(ir_dtype_size(IR_DT_STRING) == 0);
}

/* ops.def's act column and act.def's op column name each other */
static void test_act_table(void)
{
    for (int i = 0; i < IR_OP_COUNT; i++) {
        IrActKind k = ir_op_act((IrOp)i);
        if (k != IR_ACT_NONE)
            CHECK_MSG(ir_act_op(k) == (IrOp)i, "%s computes %s, whose op is %s", ir_op_name((IrOp)i),
                      ir_act_name(k), ir_op_name(ir_act_op(k)));
    }
    for (int k = 0; k < IR_ACT_COUNT; k++) {
        IrOp op = ir_act_op((IrActKind)k);
        CHECK(op < IR_OP_COUNT);
        /* an activation with an op of its own is that op's act (SiLU rides on Clip) */
        if (k != IR_ACT_NONE && k != IR_ACT_SILU && k != IR_ACT_PRELU)
            CHECK_MSG(ir_op_act(op) == (IrActKind)k, "%s", ir_act_name((IrActKind)k));
    }
    CHECK(ir_op_act(IR_OP_SIGMOID) == IR_ACT_SIGMOID && ir_op_act(IR_OP_EXP) == IR_ACT_NONE);
    CHECK(!strcmp(ir_act_name(IR_ACT_HARD_SWISH), "hard_swish") && !strcmp(ir_act_name(IR_ACT_COUNT), "?"));
}

/* ops.def's unit column agrees with the act column: the planner fuses a
 * table or a clamp into an epilogue, which applies an activation */
static void test_unit_table(void)
{
    for (int i = 0; i < IR_OP_COUNT; i++) {
        IrUnit u = ir_op_unit((IrOp)i);
        IrActKind k = ir_op_act((IrOp)i);
        bool clamp = k == IR_ACT_RELU || k == IR_ACT_CLIP;
        if (u == IR_U_TABLE || u == IR_U_CLAMP)
            CHECK_MSG(k != IR_ACT_NONE && clamp == (u == IR_U_CLAMP), "%s: unit %s, act %s", ir_op_name((IrOp)i),
                      ir_unit_name(u), ir_act_name(k));
        if (ir_op_flags((IrOp)i) & (IR_F_FOLD_ONLY | IR_F_NO_DATA))
            CHECK_MSG(u == IR_U_NONE, "%s moves no data at run time", ir_op_name((IrOp)i));
    }
    CHECK(ir_op_unit(IR_OP_MISH) == IR_U_TABLE && ir_op_unit(IR_OP_EXP) == IR_U_NONE);
    CHECK(!strcmp(ir_unit_name(IR_U_TABLE), "table") && !strcmp(ir_unit_name(IR_U_COUNT), "?"));
}

static void test_tensors(void)
{
    IrGraph *g = ir_graph_new(NULL);
    int64_t d[2] = {3, 5};
    int t = ir_tensor_add(g, "t", IR_DT_FLOAT, 2, d);
    CHECK_EQ_INT(ir_tensor_numel(&g->tensors[t]), 15);
    CHECK_EQ_INT(ir_tensor_nbytes(&g->tensors[t]), 60);
    CHECK_EQ_INT(ir_tensor_find(g, "t"), t);
    CHECK_EQ_INT(ir_tensor_find(g, "u"), -1);
    int64_t unk[2] = {3, -1};
    int u = ir_tensor_add(g, "u", IR_DT_FLOAT, 2, unk);
    CHECK_EQ_INT(ir_tensor_numel(&g->tensors[u]), -1);
    int64_t huge[3] = {INT64_MAX / 2, 4, 4};
    int h = ir_tensor_add(g, "h", IR_DT_FLOAT, 3, huge);
    CHECK_EQ_INT(ir_tensor_numel(&g->tensors[h]), INT64_MAX); /* saturates, never wraps */
    void *p;
    int k = ir_const_add(g, "k", IR_DT_INT64, 1, d, &p);
    CHECK(p != NULL && ((uintptr_t)p % 64) == 0);
    CHECK(ir_tensor_data(g, k) == p);
    CHECK(ir_tensor_data(g, t) == NULL); /* not a constant */
    /* lazily materialized constant from unaligned source bytes */
    static const unsigned char raw[1 + 8] = {0, 1, 0, 0, 0, 2, 0, 0, 0};
    int64_t two[1] = {2};
    int c = ir_tensor_add(g, "c", IR_DT_INT32, 1, two);
    g->tensors[c].kind = IR_T_CONST;
    g->tensors[c].src = raw + 1;
    int32_t *v = ir_tensor_data(g, c);
    CHECK(v && v[0] == 1 && v[1] == 2 && ((uintptr_t)v % 64) == 0);
    /* big allocations do not disturb the current chunk */
    char *s1 = ir_strdup(g, "abc");
    void *big = ir_alloc(g, 3u << 20);
    char *s2 = ir_sprintf(g, "%s-%d", s1, 7);
    CHECK(big && !strcmp(s2, "abc-7"));
    ir_graph_free(g);
}

static void test_stats(void)
{
    IrGraph *g = small_net();
    IrLayerStats st;
    ir_layer_stats(g, 0, &st);
    CHECK_EQ_INT(st.macs, 8 * 4 * 4 * 3 * 9);  /* F*Ho*Wo*C*K*K */
    CHECK_EQ_INT(st.params, 8 * 3 * 9);
    CHECK_EQ_INT(st.weight_reuse, 16);
    CHECK_EQ_INT(st.ifm_elems, 3 * 64);
    CHECK_EQ_INT(st.ofm_elems, 8 * 16);
    ir_layer_stats(g, 1, &st);
    CHECK_EQ_INT(st.macs, 8 * 16 * 9);          /* depthwise: C/G = 1 */
    ir_layer_stats(g, 2, &st);
    CHECK_EQ_INT(st.macs, 16 * 16 * 8);
    CHECK(!strcmp(ir_layer_kind_name(g, 0), "conv"));
    CHECK(!strcmp(ir_layer_kind_name(g, 1), "dwconv"));
    CHECK(!strcmp(ir_layer_kind_name(g, 2), "pwconv"));
    ir_graph_free(g);
}

static void test_verify_and_compact(void)
{
    IrGraph *g = small_net();
    IrDiag d;
    diag_init(&d);
    CHECK_EQ_INT(ir_verify(g, &d), 0);
    CHECK_EQ_INT(d.n_errors, 0);
    /* a layer reading a tensor produced later breaks topological order */
    IrLayer saved = g->layers[1];
    g->layers[1].in[0] = g->layers[2].out[0];
    CHECK(ir_verify(g, &d) != 0);
    CHECK(diag_contains(&d, "not produced by an earlier layer"));
    CHECK(diag_contains(&d, "dw")); /* names the layer */
    g->layers[1] = saved;
    diag_free(&d);
    diag_init(&d);
    /* unknown shape */
    g->tensors[g->layers[0].out[0]].dims[1] = -1;
    CHECK(ir_verify(g, &d) != 0 && diag_contains(&d, "unknown dim"));
    g->tensors[g->layers[0].out[0]].dims[1] = 8;
    diag_free(&d);
    diag_init(&d);
    /* remove the depthwise layer by rewiring pw to read 'a' */
    int a = g->layers[0].out[0];
    g->layers[2].in[0] = a;
    g->layers[1].dead = true;
    CHECK_EQ_INT(ir_tensor_uses(g, a), 1);
    int nt = g->n_tensors;
    ir_graph_compact(g);
    CHECK_EQ_INT(g->n_layers, 2);
    CHECK_EQ_INT(g->n_tensors, nt - 2); /* b and w1 are gone */
    CHECK(!strcmp(g->layers[1].name, "pw"));
    CHECK_EQ_INT(g->tensors[g->layers[1].out[0]].producer, 1);
    CHECK(!strcmp(g->tensors[g->layers[1].in[0]].name, "a"));
    CHECK(!strcmp(g->tensors[g->outputs[0]].name, "c"));
    CHECK_EQ_INT(ir_verify(g, &d), 0);
    diag_free(&d);
    ir_graph_free(g);
}

/* The consumer index answers like a scan through rewires, new layers,
 * new tensors, deaths and compaction. */
static void test_uses(void)
{
    IrGraph *g = small_net();  /* stem: x -> a; dw: a -> b; pw: b -> c */
    int a = ir_tensor_find(g, "a"), b = ir_tensor_find(g, "b"), c = ir_tensor_find(g, "c");
    int cons[4], uses;
    CHECK_EQ_INT(ir_tensor_uses(g, a), 1);           /* builds the index */
    CHECK_EQ_INT(ir_tensor_uses(g, c), 1);           /* the graph output */
    /* an older layer pointed at an older tensor, through ir_set_use */
    ir_set_use(g, 2, &g->layers[2].in[0], a);
    CHECK_EQ_INT(ir_tensor_consumers(g, a, cons, 4, &uses), 2);
    CHECK(cons[0] == 1 && cons[1] == 2 && uses == 2);
    CHECK_EQ_INT(ir_tensor_uses(g, b), 0);           /* the stale entry is filtered */
    /* a new layer reading a, and a new tensor read by an old layer */
    int64_t d[4] = {1, 8, 4, 4};
    int n = ir_tensor_add(g, "n", IR_DT_FLOAT, 4, d);
    int l = ir_layer_add(g, IR_OP_RELU, "late");
    g->layers[l].n_in = 2, g->layers[l].in[0] = a, g->layers[l].in[1] = a;
    g->layers[l].n_out = 1, g->layers[l].out[0] = n, g->tensors[n].producer = l;
    g->layers[1].residual = n;
    CHECK_EQ_INT(ir_tensor_consumers(g, a, cons, 4, &uses), 3);
    CHECK(cons[2] == l && uses == 4);
    CHECK_EQ_INT(ir_tensor_uses(g, n), 1);
    CHECK_EQ_INT(ir_tensor_consumers(g, a, cons, 1, NULL), 3);   /* count beyond max */
    CHECK_EQ_INT(cons[0], 1);
    g->layers[1].dead = true;
    CHECK_EQ_INT(ir_tensor_uses(g, a), 3);
    CHECK_EQ_INT(ir_tensor_uses(g, -1), 0);
    CHECK_EQ_INT(ir_tensor_uses(g, g->n_tensors), 0);
    ir_graph_compact(g);
    a = ir_tensor_find(g, "a");
    CHECK_EQ_INT(ir_tensor_uses(g, a), 3);
    CHECK_EQ_INT(ir_tensor_find(g, "b"), -1);        /* b went with dw */
    /* the name index grows past its first table and forgets dropped names */
    char nm[32];
    for (int i = 0; i < 200; i++) {
        snprintf(nm, sizeof nm, "extra%d", i);
        CHECK_EQ_INT(ir_tensor_add(g, nm, IR_DT_FLOAT, 4, d), ir_tensor_find(g, nm));
    }
    CHECK_EQ_INT(ir_tensor_find(g, "extra0") + 199, ir_tensor_find(g, "extra199"));
    ir_tensor_drop_last(g);
    CHECK_EQ_INT(ir_tensor_find(g, "extra199"), -1);
    CHECK(ir_tensor_find(g, "extra198") >= 0);
    int *counts = ir_use_counts(g);
    CHECK_EQ_INT(counts[a], 3);
    ir_use_counts_drop(g, g->tensors[ir_tensor_find(g, "n")].producer, counts);
    CHECK_EQ_INT(counts[a], 1);
    free(counts);
    ir_graph_free(g);
}

static void test_diag(void)
{
    IrDiag d;
    diag_init(&d);
    d.max_errors = 3;
    for (int i = 0; i < 5; i++)
        diag_error(&d, "m.onnx", "node7", "Foo", "problem %d", i);
    diag_warn(&d, "m.onnx", NULL, NULL, "a warning");
    CHECK_EQ_INT(d.n_errors, 5);
    CHECK_EQ_INT(d.n, 3);
    char buf[1024] = {0};
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    diag_print(&d, f);
    fclose(f);
    CHECK(strstr(buf, "m.onnx: error: node 'node7' (Foo): problem 0") != NULL);
    CHECK(strstr(buf, "5 errors in all") != NULL);
    diag_free(&d);
}

static void test_print(void)
{
    IrGraph *g = small_net();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ir_print_json(g, f);
    fclose(f);
    CHECK(strstr(buf, "\"name\":\"stem\"") != NULL);
    CHECK(strstr(buf, "\"next\":[\"dw\"]") != NULL);
    CHECK(strstr(buf, "\"prev\":[\"dw\"]") != NULL);
    CHECK(strstr(buf, "\"conv_depthwise\":1") != NULL);
    free(buf);
    f = open_memstream(&buf, &len);
    ir_print_text(g, f);
    fclose(f);
    CHECK(strstr(buf, "conv 3 (standard 1, depthwise 1, pointwise 1, grouped 0)") != NULL);
    free(buf);
    ir_graph_free(g);
}

int main(void)
{
    test_op_table();
    test_act_table();
    test_unit_table();
    test_tensors();
    test_stats();
    test_verify_and_compact();
    test_uses();
    test_diag();
    test_print();
    return check_done();
}
