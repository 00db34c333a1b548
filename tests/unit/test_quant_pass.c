/* test_quant_pass.c - the quantize pass on hand-built graphs: precision
 * decisions, split epilogues, boundaries, and the integer program's output
 * against the float graph for every precision, plus mixed precision from a
 * spec file.
 *
 * The graph covers every integer layer kind: standard, depthwise and
 * pointwise convs with fused Relu, Clip (Relu6), residual and SiLU, max and
 * average pools, global pool, a squeeze-excite Mul with a Sigmoid, Concat
 * of two different scales, Flatten and Gemm. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "passes/quant/quant.h"
#include "test_pass_eval.h"

#define H0 12

static int pool_layer(IrGraph *g, IrOp op, const char *name, int x, int k, int s, int p)
{
    const IrTensor *X = &g->tensors[x];
    int64_t od[4] = {X->dims[0], X->dims[1], (X->dims[2] + 2 * p - k) / s + 1, (X->dims[3] + 2 * p - k) / s + 1};
    int l = tb_layer(g, op, name, &x, 1, 4, od);
    IrPoolAttr *a = &g->layers[l].attr.pool;
    a->nsp = 2;
    for (int i = 0; i < 2; i++) {
        a->kernel[i] = k;
        a->stride[i] = s;
        a->dilation[i] = 1;
        a->pad_begin[i] = a->pad_end[i] = p;
    }
    return tb_out(g, l);
}

static IrLayer *last(IrGraph *g)
{
    return &g->layers[g->n_layers - 1];
}

/* build() with a Mish (as in YOLOv4's backbone) where the SiLU is */
static bool mish_net;

static IrGraph *build(void)
{
    IrGraph *g = ir_graph_new("mini.onnx");
    uint32_t seed = 7;
    int64_t in_dims[4] = {1, 3, H0, H0};
    int x = tb_input(g, "x", 4, in_dims);
    int t1 = tb_conv(g, "conv1", x, 8, 3, 1, 1, 1, 1, &seed);
    last(g)->act = (IrAct){IR_ACT_RELU, 0, 0};
    int t2 = tb_conv(g, "dw", t1, 8, 3, 1, 1, 8, 1, &seed);
    last(g)->act = (IrAct){IR_ACT_CLIP, 0.0f, 6.0f};
    int t3 = tb_conv(g, "pw", t2, 8, 1, 1, 0, 1, 1, &seed);
    last(g)->residual = t1;
    int t4 = tb_conv(g, "down", t3, 8, 3, 2, 1, 1, 1, &seed);
    last(g)->act = (IrAct){mish_net ? IR_ACT_MISH : IR_ACT_SILU, 0, 0};
    int t5 = pool_layer(g, IR_OP_MAXPOOL, "mp", t4, 2, 2, 0);
    int gap = tb_gap(g, "se_gap", t5);
    int se = tb_conv(g, "se_fc", gap, 8, 1, 1, 0, 1, 1, &seed);
    last(g)->act = (IrAct){IR_ACT_SIGMOID, 0, 0};
    int t7 = tb_binary(g, IR_OP_MUL, "se_mul", t5, se);
    int ins[2] = {t7, t5};
    int64_t cd[4] = {1, 16, 3, 3};
    int cl = tb_layer(g, IR_OP_CONCAT, "cat", ins, 2, 4, cd);
    g->layers[cl].attr.axis.axis = 1;
    int t9 = pool_layer(g, IR_OP_AVGPOOL, "ap", tb_out(g, cl), 3, 1, 1);
    int t10 = tb_unary(g, IR_OP_TANH, "tanh", t9, 0, 0);
    g->layers[g->n_layers - 1].attr.act.kind = IR_ACT_TANH;
    int f = tb_flatten(g, "flat", tb_gap(g, "gap", t10));
    int y = tb_fc(g, "fc", f, 5, &seed);
    tb_output(g, y);
    return g;
}

static void input(float *x, uint32_t seed)
{
    for (int i = 0; i < 3 * H0 * H0; i++)
        x[i] = tb_uniform(&seed);
}

/* max |a - b| / max |b| */
static double rel_err(const float *a, const float *b, int n)
{
    double e = 0, m = 0;
    for (int i = 0; i < n; i++) {
        e = fabs(a[i] - b[i]) > e ? fabs(a[i] - b[i]) : e;
        m = fabs(b[i]) > m ? fabs(b[i]) : m;
    }
    return m > 0 ? e / m : e;
}

static int count(const IrGraph *g, IrOp op, IrPrecision p)
{
    int n = 0;
    for (int l = 0; l < g->n_layers; l++)
        n += g->layers[l].op == op && (p == (IrPrecision)-1 || g->layers[l].prec == p);
    return n;
}

static void check_lowering(IrGraph *g, const char *what)
{
    IrDiag d;
    diag_init(&d);
    int bad = 0;
    for (int l = 0; l < g->n_layers; l++) {
        if (!pass_quant_is_int_layer(g, l))
            continue;
        QuantLayer q;
        bad += pass_quant_lower(g, l, &q, &d) != 0;
    }
    CHECK_MSG(bad == 0 && ir_verify(g, &d) == 0, "%s: lowering/verify failed", what);
    if (d.n_errors)
        diag_print(&d, stderr);
    diag_free(&d);
}

static double run(const char *prec, const char *spec, double tol, IrGraph **keep)
{
    IrGraph *ref = build(), *g = build();
    IrDiag d;
    diag_init(&d);
    float x[3 * H0 * H0], yf[5], yq[5];
    input(x, 99);
    const float *in = x;
    float *outf = yf, *outq = yq;
    CHECK(pass_quant_eval(ref, &in, &outf, NULL, NULL, &d) == 0);
    QuantOptions o;
    pass_quant_options_init(&o);
    CHECK(pass_quant_parse_prec(prec, &o.prec) == 0);
    o.spec = spec;
    o.n_random = 16;
    int r = pass_quantize_graph(g, &o, &d);
    CHECK_MSG(r > 0, "%s: quantize returned %d", prec, r);
    ir_graph_compact(g);
    check_lowering(g, prec);
    CHECK(pass_quant_eval(g, &in, &outq, NULL, NULL, &d) == 0);
    if (d.n_errors)
        diag_print(&d, stderr);
    double e = rel_err(yq, yf, 5);
    printf("%-7s %s: max |int - float| / max |float| = %.5f\n", prec, spec ? "(spec)" : "      ", e);
    CHECK_MSG(e < tol, "%s: relative error %g >= %g", prec, e, tol);
    diag_free(&d);
    ir_graph_free(ref);
    if (keep)
        *keep = g;
    else
        ir_graph_free(g);
    return e;
}

static void test_int8_structure(void)
{
    IrGraph *g;
    run("int8", NULL, 0.05, &g);
    /* every layer integer but the two boundaries' float sides */
    int n_float = 0;
    for (int l = 0; l < g->n_layers; l++)
        n_float += g->layers[l].prec == IR_PREC_FLOAT;
    CHECK_EQ_INT(n_float, 0);
    CHECK_EQ_INT(count(g, IR_OP_QUANTIZE_LINEAR, IR_PREC_INT8), 1);
    CHECK_EQ_INT(count(g, IR_OP_DEQUANTIZE_LINEAR, IR_PREC_INT8), 1);
    /* residual split into an Add, SiLU and Sigmoid into table layers */
    CHECK_EQ_INT(count(g, IR_OP_ADD, IR_PREC_INT8), 1);
    CHECK_EQ_INT(count(g, IR_OP_SIGMOID, IR_PREC_INT8), 1);
    CHECK_EQ_INT(count(g, IR_OP_CLIP, IR_PREC_INT8), 1);  /* the SiLU carrier */
    int conv_acts = 0;
    for (int l = 0; l < g->n_layers; l++) {
        const IrLayer *L = &g->layers[l];
        if (L->op == IR_OP_CONV)
            conv_acts += L->act.kind != IR_ACT_NONE && L->act.kind != IR_ACT_RELU && L->act.kind != IR_ACT_CLIP;
        CHECK(L->residual < 0);
    }
    CHECK_EQ_INT(conv_acts, 0);
    /* int8 tensors with per-tensor params, weights per channel */
    int bad = 0;
    for (int t = 0; t < g->n_tensors; t++) {
        const IrTensor *T = &g->tensors[t];
        if (T->dtype == IR_DT_INT8 && T->kind != IR_T_CONST)
            bad += !T->quant || T->quant->n != 1 || T->quant->scale[0] <= 0;
        if (T->dtype == IR_DT_INT8 && T->kind == IR_T_CONST)
            bad += !T->quant || T->quant->axis != 0 || T->quant->n != T->dims[0];
    }
    CHECK_EQ_INT(bad, 0);
    /* graph IO keep their names and float type */
    CHECK(!strcmp(g->tensors[g->inputs[0]].name, "x") && g->tensors[g->inputs[0]].dtype == IR_DT_FLOAT);
    CHECK(!strcmp(g->tensors[g->outputs[0]].name, "fc_out") && g->tensors[g->outputs[0]].dtype == IR_DT_FLOAT);
    /* max pool keeps its input's quantization */
    for (int l = 0; l < g->n_layers; l++)
        if (g->layers[l].op == IR_OP_MAXPOOL) {
            const IrQuant *a = g->tensors[g->layers[l].in[0]].quant, *b = g->tensors[g->layers[l].out[0]].quant;
            CHECK(a && b && a->scale[0] == b->scale[0] && a->zero[0] == b->zero[0]);
        }
    ir_graph_free(g);
}

/* a fused Mish becomes its own int8 table layer computing the float function */
static void test_mish_table(void)
{
    IrGraph *g;
    mish_net = true;
    run("int8", NULL, 0.05, &g);
    mish_net = false;
    CHECK_EQ_INT(count(g, IR_OP_MISH, IR_PREC_INT8), 1);
    int conv_mish = 0;
    for (int l = 0; l < g->n_layers; l++)
        conv_mish += g->layers[l].act.kind == IR_ACT_MISH;
    CHECK_EQ_INT(conv_mish, 0);
    ir_graph_free(g);
}

static void test_precisions(void)
{
    run("dfxp8", NULL, 0.15, NULL);
    run("dfxp12", NULL, 0.01, NULL);
    run("dfxp16", NULL, 0.002, NULL);
    run("int16", NULL, 0.002, NULL);
}

static void test_dfxp_scales(void)
{
    IrGraph *g;
    run("dfxp16", NULL, 0.002, &g);
    int bad = 0, n = 0;
    for (int t = 0; t < g->n_tensors; t++) {
        const IrQuant *q = g->tensors[t].quant;
        if (!q || g->tensors[t].dtype != IR_DT_INT16)
            continue;
        n++;
        bad += q->frac_bits == INT32_MIN || q->zero[0] != 0 || q->scale[0] != (float)ldexp(1.0, -q->frac_bits);
    }
    CHECK(n > 10);
    CHECK_EQ_INT(bad, 0);
    /* every requantization of a dfxp layer is a pure shift (M = 1 or 2^k) */
    IrDiag d;
    diag_init(&d);
    for (int l = 0; l < g->n_layers; l++) {
        QuantLayer q;
        if (g->layers[l].op != IR_OP_CONV || pass_quant_lower(g, l, &q, &d))
            continue;
        for (int c = 0; c < q.rq.n; c++)
            bad += (q.rq.mult[c] & (q.rq.mult[c] - 1)) != 0 || (q.rq.mult[c] > 1 && q.rq.shift[c] != 0);
    }
    CHECK_EQ_INT(bad, 0);
    diag_free(&d);
    ir_graph_free(g);
}

static void test_mixed(void)
{
    const char *path = BINARY_DIR "/test_quant_pass.spec";
    FILE *f = fopen(path, "w");
    fprintf(f, "# mixed precision\n* int8\nconv1 dfxp16\nfc   float  # classifier in float\nnope int8\n");
    fclose(f);
    IrGraph *g;
    run("int8", path, 0.05, &g);
    int conv1 = -1, fc = -1;
    for (int l = 0; l < g->n_layers; l++) {
        if (!strcmp(g->layers[l].name, "conv1"))
            conv1 = l;
        if (!strcmp(g->layers[l].name, "fc"))
            fc = l;
    }
    CHECK(conv1 >= 0 && g->layers[conv1].prec == IR_PREC_DFXP && g->layers[conv1].bits == 16);
    CHECK(fc >= 0 && g->layers[fc].prec == IR_PREC_FLOAT);
    /* dfxp16 -> int8 through a float boundary pair, int8 -> float before fc */
    CHECK(count(g, IR_OP_QUANTIZE_LINEAR, IR_PREC_DFXP) == 1);
    CHECK(count(g, IR_OP_DEQUANTIZE_LINEAR, IR_PREC_DFXP) >= 1);
    CHECK(count(g, IR_OP_QUANTIZE_LINEAR, IR_PREC_INT8) >= 1);
    CHECK(count(g, IR_OP_DEQUANTIZE_LINEAR, IR_PREC_INT8) == 1);
    ir_graph_free(g);
    /* a bad spec line is an error naming the file and line */
    f = fopen(path, "w");
    fprintf(f, "conv1 int7\n");
    fclose(f);
    g = build();
    IrDiag d;
    diag_init(&d);
    QuantOptions o;
    pass_quant_options_init(&o);
    o.prec.prec = IR_PREC_INT8;
    o.prec.bits = 8;
    o.spec = path;
    CHECK(pass_quantize_graph(g, &o, &d) < 0);
    CHECK(diag_contains(&d, "line 1"));
    diag_free(&d);
    ir_graph_free(g);
    remove(path);
}

static void test_float_noop(void)
{
    IrGraph *g = build();
    IrDiag d;
    diag_init(&d);
    QuantOptions o;
    pass_quant_options_init(&o);
    int n = g->n_layers;
    CHECK_EQ_INT(pass_quantize_graph(g, &o, &d), 0);
    CHECK_EQ_INT(pass_quantize_graph(g, NULL, &d), 0);
    CHECK_EQ_INT(g->n_layers, n);
    diag_free(&d);
    ir_graph_free(g);
}

/* Split, Slice, Gather and Transpose of codes: integer layers that keep
 * their input's scale (QK_MOVE), the program close to the float graph */
static IrGraph *build_moves(void)
{
    IrGraph *g = ir_graph_new("moves.onnx");
    uint32_t seed = 11;
    int64_t in_dims[4] = {1, 3, 6, 6}, d3[4] = {1, 3, 6, 6}, d5[4] = {1, 5, 6, 6}, i3 = 3;
    int t = tb_conv(g, "conv", tb_input(g, "x", 4, in_dims), 8, 3, 1, 1, 1, 1, &seed);
    int sl = tb_layer(g, IR_OP_SPLIT, "split", &t, 1, 4, d3), a = tb_out(g, sl);
    int b = ir_tensor_add(g, "split_out1", IR_DT_FLOAT, 4, d5);
    g->layers[sl].n_out = 2, g->layers[sl].out[1] = b, g->layers[sl].attr.axis.axis = 1;
    g->tensors[b].producer = sl;
    int s = tb_out(g, tb_layer(g, IR_OP_SLICE, "slice", &b, 1, 4, d3));
    g->layers[g->n_layers - 1].attr.slice = (IrSliceAttr){1, {1}, {0}, {5}, {2}};
    int64_t *idx;
    int gi[2] = {tb_binary(g, IR_OP_ADD, "add", a, s), ir_const_add(g, "idx", IR_DT_INT64, 1, &i3, (void **)&idx)};
    idx[0] = 2, idx[1] = 0, idx[2] = 1;
    int ga = tb_out(g, tb_layer(g, IR_OP_GATHER, "gather", gi, 2, 4, d3));
    g->layers[g->n_layers - 1].attr.axis.axis = 1;
    int tr = tb_out(g, tb_layer(g, IR_OP_TRANSPOSE, "transpose", &ga, 1, 4, d3));
    g->layers[g->n_layers - 1].attr.axes = (IrAxesAttr){4, {0, 1, 3, 2}, false};
    tb_output(g, tb_fc(g, "fc", tb_flatten(g, "flat", tr), 4, &seed));
    return g;
}

static void test_moves(void)
{
    static const char *const precs[] = {"int8", "int16", "dfxp8"};
    for (int k = 0; k < 3; k++) {
        IrGraph *ref = build_moves(), *g = build_moves();
        IrDiag d;
        diag_init(&d);
        float x[3 * 36], yf[4], yq[4], *outf = yf, *outq = yq;
        for (int i = 0; i < 3 * 36; i++)
            x[i] = (float)((i * 37) % 23 - 11) / 14.0f;   /* inside what calibration saw */
        const float *in = x;
        CHECK(pass_quant_eval(ref, &in, &outf, NULL, NULL, &d) == 0);
        QuantOptions o;
        pass_quant_options_init(&o);
        CHECK(pass_quant_parse_prec(precs[k], &o.prec) == 0);
        CHECK(pass_quantize_graph(g, &o, &d) > 0);
        ir_graph_compact(g);
        check_lowering(g, precs[k]);
        CHECK(pass_quant_eval(g, &in, &outq, NULL, NULL, &d) == 0);
        CHECK_MSG(rel_err(yq, yf, 4) < (k == 1 ? 0.01 : 0.1), "%s moves: relative error %g", precs[k], rel_err(yq, yf, 4));
        int moves = 0;
        for (int l = 0; l < g->n_layers; l++) {
            const IrLayer *L = &g->layers[l];
            QuantLayer q;
            if (pass_quant_lower(g, l, &q, &d) || q.kind != QK_MOVE)
                continue;
            moves++;
            const IrQuant *a = g->tensors[L->in[0]].quant;
            for (int i = 0; i < L->n_out; i++) {
                const IrQuant *b = g->tensors[L->out[i]].quant;
                CHECK(b && b->scale[0] == a->scale[0] && b->zero[0] == a->zero[0] && b->bits == a->bits);
            }
        }
        CHECK_EQ_INT(moves, 4);
        if (d.n_errors)
            diag_print(&d, stderr);
        diag_free(&d);
        ir_graph_free(ref);
        ir_graph_free(g);
    }
}

/* pass_quant_eval_batch gives every image's pass_quant_eval output bit
 * for bit, on one worker and on several (int8, the wide dfxp16 path and a
 * float classifier from the mixed spec) */
static void test_batch(void)
{
    const char *path = BINARY_DIR "/test_quant_batch.spec";
    FILE *f = fopen(path, "w");
    fprintf(f, "* int8\nconv1 dfxp16\nfc float\n");
    fclose(f);
    enum { N = 7, X = 3 * H0 * H0 };
    static float x[N * X], y1[N * 5], yb[N * 5];
    for (int i = 0; i < N; i++)
        input(x + i * X, 100 + (uint32_t)i);
    for (int k = 0; k < 2; k++) {
        IrGraph *g;
        run("int8", k ? path : NULL, 0.05, &g);
        IrDiag d;
        diag_init(&d);
        for (int i = 0; i < N; i++) {
            const float *in = x + i * X;
            float *out = y1 + i * 5;
            CHECK(pass_quant_eval(g, &in, &out, NULL, NULL, &d) == 0);
        }
        for (int threads = 1; threads <= 3; threads += 2) {
            memset(yb, 0, sizeof yb);
            CHECK(pass_quant_eval_batch(g, x, N, yb, threads, &d) == 0);
            CHECK_MSG(memcmp(y1, yb, sizeof yb) == 0, "batch (%s, %d threads) differs", k ? "mixed" : "int8",
                      threads);
        }
        CHECK(d.n_errors == 0);
        diag_free(&d);
        ir_graph_free(g);
    }
    remove(path);
}

int main(void)
{
    test_batch();
    test_moves();
    test_int8_structure();
    test_mish_table();
    test_precisions();
    test_dfxp_scales();
    test_mixed();
    test_float_noop();
    return check_done();
}
