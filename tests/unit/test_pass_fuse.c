/* test_pass_fuse.c - the fusion passes on hand-built graphs: each pattern is
 * checked for its structure after the pass (layer count, epilogue, shapes)
 * and for its function (the reference evaluator gives the same outputs
 * before and after, within float rounding), plus the cases that must be
 * left alone. */
#include "check.h"
#include "passes/passes.h"
#include "test_pass_eval.h"

#include <string.h>

#define TOL 2e-6

/* run the selected passes with verification; returns the rel. error of
 * output 0 against the graph before the passes (-1 if not evaluable) */
static double run_cmp(IrGraph *g, const char *sel, uint32_t seed)
{
    float *x[IR_MAX_IO];
    for (int i = 0; i < g->n_inputs; i++)
        x[i] = ev_random_input(g, i, &seed);
    int64_t n0 = 0, n1 = 0;
    float *before = ev_run(g, (const float *const *)x, &n0);
    PassOptions opt;
    passes_options_init(&opt);
    opt.passes = sel;
    opt.verify_each = true;
    IrDiag d;
    diag_init(&d);
    int rc = passes_run(g, &opt, &d);
    if (rc)
        diag_print(&d, stderr);
    CHECK_EQ_INT(rc, 0);
    diag_free(&d);
    float *after = ev_run(g, (const float *const *)x, &n1);
    double err = -1;
    if (before && after && n0 == n1)
        err = ev_rel_err(before, after, n0);
    free(before);
    free(after);
    for (int i = 0; i < g->n_inputs; i++)
        free(x[i]);
    return err;
}

static IrGraph *new_graph(int64_t c, int64_t h, int *x)
{
    IrGraph *g = ir_graph_new("test.onnx");
    int64_t d[4] = {1, c, h, h};
    *x = tb_input(g, "input", 4, d);
    return g;
}

static int count_op(const IrGraph *g, IrOp op)
{
    int n = 0;
    for (int l = 0; l < g->n_layers; l++)
        n += !g->layers[l].dead && g->layers[l].op == op;
    return n;
}

static const IrLayer *only_layer(const IrGraph *g, IrOp op)
{
    for (int l = 0; l < g->n_layers; l++)
        if (g->layers[l].op == op)
            return &g->layers[l];
    return NULL;
}

/* ------------------------------------------------------------ fold_bn */

static void test_bn_into_conv(int bias, int64_t group)
{
    uint32_t s = 11;
    int x;
    IrGraph *g = new_graph(8, 6, &x);
    int c = tb_conv(g, "conv", x, 8, 3, 1, 1, group, bias, &s);
    int b = tb_bn(g, "bn", c, &s);
    int r = tb_unary(g, IR_OP_RELU, "relu", b, 0, 0);
    tb_output(g, r);
    double err = run_cmp(g, "default", 5);
    CHECK_MSG(err >= 0 && err < TOL, "bn into conv bias=%d group=%lld: err %g", bias, (long long)group, err);
    CHECK_EQ_INT(g->n_layers, 1);
    const IrLayer *L = &g->layers[0];
    CHECK_EQ_INT(L->op, IR_OP_CONV);
    CHECK_EQ_INT(L->n_in, 3);
    CHECK_EQ_INT(L->act.kind, IR_ACT_RELU);
    CHECK(strstr(L->origin, "bn") && strstr(L->origin, "relu"));
    CHECK(!strcmp(g->tensors[L->out[0]].name, "relu_out"));
    ir_graph_free(g);
}

static void test_bn_into_gemm(bool trans_b, int c_rank, float beta)
{
    uint32_t s = 21;
    IrGraph *g = ir_graph_new("t");
    int64_t xd[2] = {3, 6}, wd[2] = {trans_b ? 5 : 6, trans_b ? 6 : 5}, cd[2] = {1, 5}, od[2] = {3, 5};
    int x = tb_input(g, "x", 2, xd);
    int ins[3] = {x, tb_const(g, "w", 2, wd, &s, -1, 1), -1};
    if (c_rank == 1)
        ins[2] = tb_const(g, "c", 1, cd + 1, &s, -1, 1);
    else if (c_rank == 2)
        ins[2] = tb_const(g, "c", 2, cd, &s, -1, 1);
    int l = tb_layer(g, IR_OP_GEMM, "fc", ins, c_rank ? 3 : 2, 2, od);
    g->layers[l].attr.gemm = (IrGemmAttr){false, trans_b, 0.75f, beta};
    tb_output(g, tb_bn(g, "bn", tb_out(g, l), &s));
    double err = run_cmp(g, "fold_bn", 6);
    CHECK_MSG(err >= 0 && err < TOL, "bn into gemm transB=%d c_rank=%d: err %g", trans_b, c_rank, err);
    CHECK_EQ_INT(g->n_layers, 1);
    CHECK_EQ_INT(g->layers[0].op, IR_OP_GEMM);
    CHECK_NEAR(g->layers[0].attr.gemm.beta, 1.0, 0);
    ir_graph_free(g);
}

/* two convs share one weight tensor: folding must not change it */
static void test_bn_shared_weights(void)
{
    uint32_t s = 31;
    int x;
    IrGraph *g = new_graph(4, 5, &x);
    int c1 = tb_conv(g, "c1", x, 4, 3, 1, 1, 1, 0, &s);
    int w = g->layers[0].in[1];
    int ins[2] = {x, w};
    int64_t od[4] = {1, 4, 5, 5};
    int l2 = tb_layer(g, IR_OP_CONV, "c2", ins, 2, 4, od);
    g->layers[l2].attr.conv = g->layers[0].attr.conv;
    int b1 = tb_bn(g, "bn1", c1, &s), b2 = tb_bn(g, "bn2", tb_out(g, l2), &s);
    tb_output(g, tb_binary(g, IR_OP_ADD, "add", b1, b2));
    float saved[4 * 4 * 9];
    memcpy(saved, ir_tensor_data(g, w), sizeof saved);
    const float *orig = ir_tensor_data(g, w);
    double err = run_cmp(g, "fold_bn", 7);
    CHECK_MSG(err >= 0 && err < TOL, "shared weights: err %g", err);
    CHECK_EQ_INT(count_op(g, IR_OP_BATCHNORM), 0);
    CHECK(!memcmp(saved, orig, sizeof saved));
    CHECK(g->layers[0].in[1] != g->layers[1].in[1]);
    ir_graph_free(g);
}

/* the conv output has another reader: BN cannot go backwards; it goes into
 * the following unpadded conv instead, and the Add becomes its residual */
static void test_bn_forward(void)
{
    uint32_t s = 41;
    int x;
    IrGraph *g = new_graph(4, 6, &x);
    int t = tb_conv(g, "c1", x, 6, 3, 1, 1, 1, 1, &s);
    int b = tb_bn(g, "bn", t, &s);
    int u = tb_conv(g, "c2", b, 6, 1, 1, 0, 1, 1, &s);
    tb_output(g, tb_binary(g, IR_OP_ADD, "add", t, u));
    double err = run_cmp(g, "default", 8);
    CHECK_MSG(err >= 0 && err < TOL, "bn forward: err %g", err);
    CHECK_EQ_INT(g->n_layers, 2);
    CHECK_EQ_INT(count_op(g, IR_OP_BATCHNORM), 0);
    CHECK(g->layers[1].residual >= 0 && !strcmp(g->tensors[g->layers[1].residual].name, "c1_out"));
    ir_graph_free(g);
}

/* BN before a padded conv: only folded when its shift is exactly zero */
static void test_bn_forward_padded(bool zero_shift)
{
    uint32_t s = 51;
    int x;
    IrGraph *g = new_graph(3, 5, &x);
    int b = tb_bn(g, "bn", x, &s);
    if (zero_shift) {
        memset(ir_tensor_data(g, g->layers[0].in[2]), 0, 3 * sizeof(float));
        memset(ir_tensor_data(g, g->layers[0].in[3]), 0, 3 * sizeof(float));
    }
    tb_output(g, tb_conv(g, "c", b, 4, 3, 1, 1, 1, 1, &s));
    double err = run_cmp(g, "default", 9);
    CHECK_MSG(err >= 0 && err < TOL, "bn forward padded zero_shift=%d: err %g", zero_shift, err);
    CHECK_EQ_INT(count_op(g, IR_OP_BATCHNORM), zero_shift ? 0 : 1);
    ir_graph_free(g);
}

/* a graph output between conv and BN keeps both layers */
static void test_bn_output_kept(void)
{
    uint32_t s = 61;
    int x;
    IrGraph *g = new_graph(3, 4, &x);
    int c = tb_conv(g, "c", x, 4, 3, 1, 1, 1, 1, &s);
    tb_output(g, c);
    tb_output(g, tb_bn(g, "bn", c, &s));
    double err = run_cmp(g, "default", 10);
    CHECK(err >= 0 && err < TOL);
    CHECK_EQ_INT(g->n_layers, 2);
    ir_graph_free(g);
}

/* ----------------------------------------------------------- fuse_act */

static void test_act(IrOp op, IrActKind kind, float alpha, float beta)
{
    uint32_t s = 71;
    int x;
    IrGraph *g = new_graph(4, 5, &x);
    int c = tb_conv(g, "c", x, 6, 3, 1, 1, 1, 1, &s);
    int y;
    if (op == IR_OP_PRELU) {
        int64_t sd[3] = {6, 1, 1};
        y = tb_binary(g, IR_OP_PRELU, "act", c, tb_const(g, "slope", 3, sd, &s, 0.05f, 0.5f));
    } else {
        y = tb_unary(g, op, "act", c, alpha, beta);
    }
    tb_output(g, y);
    double err = run_cmp(g, "default", 12);
    CHECK_MSG(err >= 0 && err < TOL, "act %s: err %g", ir_op_name(op), err);
    CHECK_EQ_INT(g->n_layers, 1);
    CHECK_EQ_INT(g->layers[0].act.kind, kind);
    CHECK_EQ_INT(g->layers[0].act_slope >= 0, op == IR_OP_PRELU);
    CHECK(!strcmp(g->tensors[g->outputs[0]].name, "act_out"));
    ir_graph_free(g);
}

static void test_acts(void)
{
    test_act(IR_OP_RELU, IR_ACT_RELU, 0, 0);
    test_act(IR_OP_CLIP, IR_ACT_CLIP, 0, 6);
    test_act(IR_OP_LEAKY_RELU, IR_ACT_LEAKY_RELU, 0.1f, 0);
    test_act(IR_OP_PRELU, IR_ACT_PRELU, 0, 0);
    test_act(IR_OP_SIGMOID, IR_ACT_SIGMOID, 0, 0);
    test_act(IR_OP_HARD_SIGMOID, IR_ACT_HARD_SIGMOID, 0.2f, 0.5f);
    test_act(IR_OP_HARD_SWISH, IR_ACT_HARD_SWISH, 0, 0);
    test_act(IR_OP_TANH, IR_ACT_TANH, 0, 0);
    test_act(IR_OP_ELU, IR_ACT_ELU, 1.0f, 0);
    test_act(IR_OP_MISH, IR_ACT_MISH, 0, 0);
}

/* act into Gemm, MatMul(const B), Add and a standalone BN */
static void test_act_producers(void)
{
    uint32_t s = 81;
    IrGraph *g = ir_graph_new("t");
    int64_t xd[2] = {2, 6}, wd[2] = {6, 4}, od[2] = {2, 4};
    int x = tb_input(g, "x", 2, xd);
    int ins[2] = {x, tb_const(g, "w", 2, wd, &s, -1, 1)};
    int m = tb_out(g, tb_layer(g, IR_OP_MATMUL, "mm", ins, 2, 2, od));
    int a = tb_unary(g, IR_OP_TANH, "tanh", m, 0, 0);
    int f = tb_fc(g, "fc", a, 4, &s);
    int r = tb_unary(g, IR_OP_RELU, "relu", f, 0, 0);
    int add = tb_binary(g, IR_OP_ADD, "add", r, a);
    int e = tb_unary(g, IR_OP_ELU, "elu", add, 0.5f, 0);
    int b = tb_bn(g, "bn", e, &s);
    tb_output(g, tb_unary(g, IR_OP_SIGMOID, "sig", b, 0, 0));
    double err = run_cmp(g, "fuse_act", 13);
    CHECK_MSG(err >= 0 && err < TOL, "act producers: err %g", err);
    CHECK_EQ_INT(g->n_layers, 4);
    CHECK_EQ_INT(g->layers[0].act.kind, IR_ACT_TANH);
    CHECK_EQ_INT(g->layers[1].act.kind, IR_ACT_RELU);
    CHECK_EQ_INT(g->layers[2].act.kind, IR_ACT_ELU);
    CHECK_EQ_INT(g->layers[3].act.kind, IR_ACT_SIGMOID);
    ir_graph_free(g);
}

/* an activation whose input has two readers stays */
static void test_act_not_fused(void)
{
    uint32_t s = 91;
    int x;
    IrGraph *g = new_graph(3, 4, &x);
    int c = tb_conv(g, "c", x, 3, 3, 1, 1, 1, 1, &s);
    int r = tb_unary(g, IR_OP_RELU, "relu", c, 0, 0);
    tb_output(g, tb_binary(g, IR_OP_MUL, "mul", r, c));
    double err = run_cmp(g, "default", 14);
    CHECK(err >= 0 && err < TOL);
    CHECK_EQ_INT(count_op(g, IR_OP_RELU), 1);
    CHECK_EQ_INT(g->layers[0].act.kind, IR_ACT_NONE);
    /* an activation right after the graph input has no producer */
    IrGraph *h = new_graph(3, 4, &x);
    tb_output(h, tb_unary(h, IR_OP_RELU, "relu", x, 0, 0));
    CHECK(run_cmp(h, "default", 15) == 0);
    CHECK_EQ_INT(h->n_layers, 1);
    ir_graph_free(g);
    ir_graph_free(h);
}

static void test_silu(int order)
{
    uint32_t s = 101;
    int x;
    IrGraph *g = new_graph(4, 5, &x);
    int c = tb_conv(g, "c", x, 4, 3, 1, 1, 1, 1, &s);
    int sg = tb_unary(g, IR_OP_SIGMOID, "sig", c, 0, 0);
    tb_output(g, order ? tb_binary(g, IR_OP_MUL, "mul", sg, c) : tb_binary(g, IR_OP_MUL, "mul", c, sg));
    double err = run_cmp(g, "default", 16);
    CHECK_MSG(err >= 0 && err < TOL, "silu: err %g", err);
    CHECK_EQ_INT(g->n_layers, 1);
    CHECK_EQ_INT(g->layers[0].act.kind, IR_ACT_SILU);
    ir_graph_free(g);
}

/* HardSwish spelled out: form 0 x*HardSigmoid(x), 1 (x*Clip(x+3))/6,
 * 2 x*(Clip(x+3)*(1/6)), 3 (Clip(3+x)*x)*(1/6) */
static int hswish_composite(IrGraph *g, int x, int form)
{
    if (form == 0)
        return tb_binary(g, IR_OP_MUL, "hs_mul", x, tb_unary(g, IR_OP_HARD_SIGMOID, "hsig", x, 1.0f / 6, 0.5f));
    int a = form == 3 ? tb_binary(g, IR_OP_ADD, "hs_add", tb_scalar(g, "three", 3.0f), x)
                      : tb_binary(g, IR_OP_ADD, "hs_add", x, tb_scalar(g, "three", 3.0f));
    int c = tb_unary(g, IR_OP_CLIP, "hs_clip", a, 0, 6);
    if (form == 1)
        return tb_binary(g, IR_OP_DIV, "hs_div", tb_binary(g, IR_OP_MUL, "hs_mul", x, c), tb_scalar(g, "six", 6.0f));
    if (form == 2)
        return tb_binary(g, IR_OP_MUL, "hs_mul", x,
                         tb_binary(g, IR_OP_MUL, "hs_scale", c, tb_scalar(g, "sixth", 1.0f / 6)));
    return tb_binary(g, IR_OP_MUL, "hs_scale", tb_binary(g, IR_OP_MUL, "hs_mul", c, x),
                     tb_scalar(g, "sixth", 1.0f / 6));
}

static void test_hardswish(int form, bool after_conv)
{
    uint32_t s = 111;
    int x;
    IrGraph *g = new_graph(4, 5, &x);
    int v = after_conv ? tb_conv(g, "c", x, 4, 3, 1, 1, 1, 1, &s) : x;
    tb_output(g, hswish_composite(g, v, form));
    double err = run_cmp(g, "default", 17);
    CHECK_MSG(err >= 0 && err < TOL, "hardswish form %d: err %g", form, err);
    CHECK_EQ_INT(g->n_layers, 1);
    if (after_conv)
        CHECK_EQ_INT(g->layers[0].act.kind, IR_ACT_HARD_SWISH);
    else
        CHECK_EQ_INT(g->layers[0].op, IR_OP_HARD_SWISH);
    ir_graph_free(g);
}

/* Mish as PyTorch exports it before opset 18: x * Tanh(Softplus(x)),
 * operands of the Mul in either order */
static void test_mish(int order, bool after_conv)
{
    uint32_t s = 112;
    int x;
    IrGraph *g = new_graph(4, 5, &x);
    int v = after_conv ? tb_conv(g, "c", x, 4, 3, 1, 1, 1, 1, &s) : x;
    int t = tb_unary(g, IR_OP_TANH, "tanh", tb_unary(g, IR_OP_SOFTPLUS, "softplus", v, 0, 0), 0, 0);
    tb_output(g, order ? tb_binary(g, IR_OP_MUL, "mul", t, v) : tb_binary(g, IR_OP_MUL, "mul", v, t));
    double err = run_cmp(g, "default", 19);
    CHECK_MSG(err >= 0 && err < TOL, "mish order %d: err %g", order, err);
    CHECK_EQ_INT(g->n_layers, 1);
    if (after_conv)
        CHECK_EQ_INT(g->layers[0].act.kind, IR_ACT_MISH);
    else
        CHECK_EQ_INT(g->layers[0].op, IR_OP_MISH);
    ir_graph_free(g);
}

/* wrong constants are not HardSwish */
static void test_hardswish_negative(void)
{
    int x;
    IrGraph *g = new_graph(2, 3, &x);
    tb_output(g, tb_binary(g, IR_OP_MUL, "m", x, tb_unary(g, IR_OP_HARD_SIGMOID, "h", x, 0.2f, 0.5f)));
    CHECK(run_cmp(g, "default", 18) == 0);
    CHECK_EQ_INT(count_op(g, IR_OP_HARD_SWISH), 0);
    ir_graph_free(g);
}

/* ------------------------------------------------------- fuse_residual */

static void test_residual(void)
{
    uint32_t s = 121;
    int x;
    IrGraph *g = new_graph(6, 6, &x);
    int a = tb_unary(g, IR_OP_RELU, "r0", tb_conv(g, "stem", x, 6, 3, 1, 1, 1, 1, &s), 0, 0);
    int b = tb_unary(g, IR_OP_RELU, "r1", tb_conv(g, "c1", a, 6, 3, 1, 1, 1, 1, &s), 0, 0);
    int c = tb_conv(g, "c2", b, 6, 3, 1, 1, 1, 1, &s);
    int add = tb_binary(g, IR_OP_ADD, "add", a, c);
    tb_output(g, tb_unary(g, IR_OP_RELU, "r2", add, 0, 0));
    double err = run_cmp(g, "default", 19);
    CHECK_MSG(err >= 0 && err < TOL, "residual: err %g", err);
    CHECK_EQ_INT(g->n_layers, 3);
    const IrLayer *L = &g->layers[2];
    CHECK(L->residual >= 0 && !strcmp(g->tensors[L->residual].name, "r0_out"));
    CHECK_EQ_INT(L->act.kind, IR_ACT_RELU);
    CHECK(!strcmp(g->tensors[L->out[0]].name, "r2_out"));
    ir_graph_free(g);
}

/* both operands from convs: the later one takes the Add */
static void test_residual_two_convs(void)
{
    uint32_t s = 131;
    int x;
    IrGraph *g = new_graph(4, 6, &x);
    int p = tb_conv(g, "proj", x, 8, 1, 2, 0, 1, 1, &s);
    int c = tb_conv(g, "main", x, 8, 3, 2, 1, 1, 1, &s);
    tb_output(g, tb_binary(g, IR_OP_ADD, "add", p, c));
    double err = run_cmp(g, "default", 20);
    CHECK(err >= 0 && err < TOL);
    CHECK_EQ_INT(g->n_layers, 2);
    CHECK(g->layers[1].residual >= 0 && g->layers[0].residual < 0);
    ir_graph_free(g);
}

/* a conv that already has an activation keeps the Add separate */
static void test_residual_after_act(void)
{
    uint32_t s = 141;
    int x;
    IrGraph *g = new_graph(4, 4, &x);
    int c = tb_unary(g, IR_OP_RELU, "r", tb_conv(g, "c", x, 4, 3, 1, 1, 1, 1, &s), 0, 0);
    tb_output(g, tb_binary(g, IR_OP_ADD, "add", x, c));
    double err = run_cmp(g, "default", 21);
    CHECK(err >= 0 && err < TOL);
    CHECK_EQ_INT(g->n_layers, 2);
    CHECK_EQ_INT(count_op(g, IR_OP_ADD), 1);
    ir_graph_free(g);
}

/* ------------------------------------------------------------ fold_pad */

static int add_pad(IrGraph *g, int x, int64_t p, float value)
{
    const IrTensor *X = &g->tensors[x];
    int64_t od[4] = {X->dims[0], X->dims[1], X->dims[2] + 2 * p, X->dims[3] + 2 * p};
    int l = tb_layer(g, IR_OP_PAD, "pad", &x, 1, 4, od);
    IrPadAttr *a = &g->layers[l].attr.pad;
    a->mode = IR_PAD_CONSTANT;
    a->value = value;
    a->begin[2] = a->begin[3] = a->end[2] = a->end[3] = p;
    return tb_out(g, l);
}

static int add_pool(IrGraph *g, IrOp op, int x, int64_t k, bool cip)
{
    const IrTensor *X = &g->tensors[x];
    int64_t od[4] = {X->dims[0], X->dims[1], X->dims[2] - k + 1, X->dims[3] - k + 1};
    int l = tb_layer(g, op, "pool", &x, 1, 4, od);
    IrPoolAttr *a = &g->layers[l].attr.pool;
    a->nsp = 2;
    a->kernel[0] = a->kernel[1] = k;
    a->stride[0] = a->stride[1] = a->dilation[0] = a->dilation[1] = 1;
    a->count_include_pad = cip;
    return tb_out(g, l);
}

static void test_pad(void)
{
    uint32_t s = 151;
    int x;
    IrGraph *g = new_graph(3, 5, &x);
    tb_output(g, tb_conv(g, "c", add_pad(g, x, 1, 0), 4, 3, 1, 0, 1, 1, &s));
    double err = run_cmp(g, "fold_pad", 22);
    CHECK(err >= 0 && err < TOL);
    CHECK_EQ_INT(g->n_layers, 1);
    CHECK_EQ_INT(g->layers[0].attr.conv.pad_begin[0], 1);
    ir_graph_free(g);
    /* into AveragePool, which then counts the pads */
    g = new_graph(3, 5, &x);
    tb_output(g, add_pool(g, IR_OP_AVGPOOL, add_pad(g, x, 1, 0), 3, false));
    err = run_cmp(g, "fold_pad", 23);
    CHECK(err >= 0 && err < TOL);
    CHECK_EQ_INT(g->n_layers, 1);
    CHECK(g->layers[0].attr.pool.count_include_pad);
    ir_graph_free(g);
    /* not into MaxPool, and not a non-zero pad value */
    g = new_graph(3, 5, &x);
    tb_output(g, add_pool(g, IR_OP_MAXPOOL, add_pad(g, x, 1, 0), 3, false));
    CHECK(run_cmp(g, "fold_pad", 24) == 0);
    CHECK_EQ_INT(g->n_layers, 2);
    ir_graph_free(g);
    g = new_graph(3, 5, &x);
    tb_output(g, tb_conv(g, "c", add_pad(g, x, 1, 0.5f), 4, 3, 1, 0, 1, 1, &s));
    CHECK(run_cmp(g, "fold_pad", 25) == 0);
    CHECK_EQ_INT(g->n_layers, 2);
    ir_graph_free(g);
}

/* ----------------------------------------------------------- fuse_gemm */

static void test_matmul_add(void)
{
    uint32_t s = 161;
    int x;
    IrGraph *g = new_graph(8, 3, &x);
    int f = tb_flatten(g, "flat", tb_gap(g, "gap", x));
    int64_t wd[2] = {8, 5}, bd[1] = {5}, od[2] = {1, 5};
    int ins[2] = {f, tb_const(g, "w", 2, wd, &s, -1, 1)};
    int m = tb_out(g, tb_layer(g, IR_OP_MATMUL, "mm", ins, 2, 2, od));
    int y = tb_binary(g, IR_OP_ADD, "logits", tb_const(g, "b", 1, bd, &s, -1, 1), m);
    tb_output(g, y);
    double err = run_cmp(g, "default", 26);
    CHECK(err >= 0 && err < TOL);
    CHECK_EQ_INT(g->n_layers, 3);
    const IrLayer *G = only_layer(g, IR_OP_GEMM);
    CHECK(G && G->n_in == 3 && !strcmp(g->tensors[G->out[0]].name, "logits_out"));
    CHECK_EQ_INT(count_op(g, IR_OP_FLATTEN), 1);
    ir_graph_free(g);
}

/* ---------------------------------------------------------- drop_views */

static void test_views(void)
{
    int x;
    IrGraph *g = new_graph(4, 2, &x);
    int i1 = tb_unary(g, IR_OP_IDENTITY, "id", x, 0, 0);
    int r = tb_unary(g, IR_OP_RELU, "relu", i1, 0, 0);
    int d = tb_unary(g, IR_OP_DROPOUT, "drop", r, 0, 0);
    int f = tb_flatten(g, "flat", d);
    int64_t rd[2] = {1, 16};
    int q = tb_out(g, tb_layer(g, IR_OP_RESHAPE, "noop", &f, 1, 2, rd));
    int64_t ud[3] = {1, 16, 1};
    int u = tb_out(g, tb_layer(g, IR_OP_UNSQUEEZE, "unsq", &q, 1, 3, ud));
    tb_output(g, tb_unary(g, IR_OP_IDENTITY, "final", u, 0, 0));
    double err = run_cmp(g, "default", 27);
    CHECK(err == 0);
    /* Relu, then one view straight from its output, which writes the output */
    CHECK_EQ_INT(g->n_layers, 2);
    CHECK_EQ_INT(g->layers[0].op, IR_OP_RELU);
    CHECK_EQ_INT(g->layers[1].op, IR_OP_UNSQUEEZE);
    CHECK(!strcmp(g->tensors[g->outputs[0]].name, "final_out"));
    CHECK_EQ_INT(g->layers[1].out[0], g->outputs[0]);
    ir_graph_free(g);
    /* an Identity from the graph input to the output must stay */
    g = new_graph(2, 2, &x);
    tb_output(g, tb_unary(g, IR_OP_IDENTITY, "id", x, 0, 0));
    CHECK(run_cmp(g, "default", 28) == 0);
    CHECK_EQ_INT(g->n_layers, 1);
    ir_graph_free(g);
}

/* --------------------------------------------------------------- shuffle */

/* x [1, c, h, h] -> Reshape [1, g, c/g, h, h] -> Transpose perm -> Reshape back */
static int shuffle_of(IrGraph *g, int x, int64_t groups, const int64_t *perm)
{
    const IrTensor *X = &g->tensors[x];
    int64_t c = X->dims[1], h = X->dims[2], v5[5] = {1, groups, c / groups, h, h}, t5[5], y4[4] = {1, c, h, h};
    for (int i = 0; i < 5; i++)
        t5[i] = v5[perm[i]];
    int v = tb_out(g, tb_layer(g, IR_OP_RESHAPE, "view5", &x, 1, 5, v5));
    int tl = tb_layer(g, IR_OP_TRANSPOSE, "transpose", &v, 1, 5, t5);
    g->layers[tl].attr.axes.n = 5;
    for (int i = 0; i < 5; i++)
        g->layers[tl].attr.axes.perm[i] = perm[i];
    int t = tb_out(g, tl);
    return tb_out(g, tb_layer(g, IR_OP_RESHAPE, "view4", &t, 1, 4, y4));
}

static void test_shuffle(void)
{
    static const int64_t swap[5] = {0, 2, 1, 3, 4}, other[5] = {0, 1, 2, 4, 3};
    for (int64_t groups = 2; groups <= 4; groups++) {
        int x;
        IrGraph *g = new_graph(12, 3, &x);
        tb_output(g, tb_unary(g, IR_OP_RELU, "relu", shuffle_of(g, tb_unary(g, IR_OP_RELU, "r0", x, 0, 0), groups, swap),
                              0, 0));
        CHECK(run_cmp(g, "fuse_shuffle", 31) == 0);   /* the same values, one Gather */
        CHECK_EQ_INT(count_op(g, IR_OP_GATHER), 1);
        CHECK_EQ_INT(count_op(g, IR_OP_TRANSPOSE) + count_op(g, IR_OP_RESHAPE), 0);
        for (int l = 0; l < g->n_layers; l++) {
            IrChanMove m;
            if (g->layers[l].op == IR_OP_GATHER) {
                CHECK(ir_chan_move(g, &g->layers[l], 0, &m) && m.groups == groups && m.count == 12);
                CHECK(strstr(g->layers[l].origin, "transpose") && strstr(g->layers[l].origin, "view5"));
            }
        }
        ir_graph_free(g);
    }
    /* a Transpose of other axes, or a view read twice, stays */
    int x;
    IrGraph *g = new_graph(8, 2, &x);
    tb_output(g, shuffle_of(g, x, 2, other));
    CHECK(run_cmp(g, "fuse_shuffle", 32) == 0);
    CHECK_EQ_INT(count_op(g, IR_OP_GATHER), 0);
    ir_graph_free(g);
    g = new_graph(8, 2, &x);
    int y = shuffle_of(g, x, 2, swap);
    tb_output(g, y);
    tb_output(g, g->layers[g->tensors[g->layers[g->tensors[y].producer].in[0]].producer].in[0]);
    CHECK(run_cmp(g, "fuse_shuffle", 33) == 0);
    CHECK_EQ_INT(count_op(g, IR_OP_GATHER), 0);
    ir_graph_free(g);
}

/* --------------------------------------------------------------- SE */

static int silu_of(IrGraph *g, const char *name, int x)
{
    char n[64];
    snprintf(n, sizeof n, "%s_sig", name);
    return tb_binary(g, IR_OP_MUL, name, x, tb_unary(g, IR_OP_SIGMOID, n, x, 0, 0));
}

static void test_se(void)
{
    uint32_t s = 171;
    int x;
    IrGraph *g = new_graph(8, 6, &x);
    int y = silu_of(g, "silu0", tb_bn(g, "bn0", tb_conv(g, "dw", x, 8, 3, 1, 1, 8, 0, &s), &s));
    int z = tb_gap(g, "gap", y);
    z = silu_of(g, "silu1", tb_conv(g, "se1", z, 4, 1, 1, 0, 1, 1, &s));
    z = tb_unary(g, IR_OP_SIGMOID, "gate", tb_conv(g, "se2", z, 8, 1, 1, 0, 1, 1, &s), 0, 0);
    int m = tb_binary(g, IR_OP_MUL, "scale", z, y);
    tb_output(g, tb_conv(g, "proj", m, 4, 1, 1, 0, 1, 1, &s));
    double err = run_cmp(g, "default", 29);
    CHECK_MSG(err >= 0 && err < TOL, "se: err %g", err);
    CHECK_EQ_INT(g->n_layers, 6);
    const IrLayer *M = only_layer(g, IR_OP_MUL);
    CHECK(M && M->se);
    if (M) {
        CHECK(!strcmp(ir_layer_kind_name(g, (int)(M - g->layers)), "se"));
        CHECK(!strcmp(g->tensors[M->in[0]].name, "silu0_out"));
    }
    CHECK_EQ_INT(g->layers[2].act.kind, IR_ACT_SILU);
    CHECK_EQ_INT(g->layers[3].act.kind, IR_ACT_SIGMOID);
    ir_graph_free(g);
}

/* a channel Mul by something that is not an SE branch is not marked */
static void test_se_negative(void)
{
    uint32_t s = 181;
    int64_t d[4] = {1, 4, 3, 3}, sd[4] = {1, 4, 1, 1};
    IrGraph *g = ir_graph_new("t");
    int x = tb_input(g, "x", 4, d), v = tb_input(g, "v", 4, sd);
    tb_output(g, tb_binary(g, IR_OP_MUL, "m", x, tb_unary(g, IR_OP_SIGMOID, "sg", v, 0, 0)));
    (void)s;
    CHECK(run_cmp(g, "default", 30) == 0);
    CHECK(!only_layer(g, IR_OP_MUL)->se);
    ir_graph_free(g);
}

/* ---------------------------------------------------------- odd graphs */

/* weights that are not constants, and ops the passes do not know */
static void test_odd(void)
{
    int64_t d[4] = {1, 2, 4, 4}, wd[4] = {2, 2, 3, 3}, od[4] = {1, 2, 2, 2};
    IrGraph *g = ir_graph_new("t");
    int x = tb_input(g, "x", 4, d), w = tb_input(g, "w", 4, wd);
    int ins[2] = {x, w};
    int l = tb_layer(g, IR_OP_CONV, "c", ins, 2, 4, od);
    g->layers[l].attr.conv = (IrConvAttr){.nsp = 2, .kernel = {3, 3}, .stride = {1, 1}, .dilation = {1, 1}, .group = 1};
    uint32_t s = 3;
    int b = tb_bn(g, "bn", tb_out(g, l), &s);
    int64_t td[4] = {1, 2, 2, 2};
    int t = tb_out(g, tb_layer(g, IR_OP_TRANSPOSE, "tr", &b, 1, 4, td));
    tb_output(g, tb_unary(g, IR_OP_RELU, "r", t, 0, 0));
    PassOptions opt;
    passes_options_init(&opt);
    opt.verify_each = true;
    IrDiag dg;
    diag_init(&dg);
    CHECK_EQ_INT(passes_run(g, &opt, &dg), 0);
    CHECK_EQ_INT(count_op(g, IR_OP_BATCHNORM), 1);
    CHECK_EQ_INT(g->n_layers, 4);
    diag_free(&dg);
    ir_graph_free(g);
}

int main(void)
{
    test_shuffle();
    test_bn_into_conv(0, 1);
    test_bn_into_conv(1, 1);
    test_bn_into_conv(1, 8);
    test_bn_into_conv(0, 2);
    test_bn_into_gemm(true, 1, 1.0f);
    test_bn_into_gemm(false, 2, 0.5f);
    test_bn_into_gemm(true, 0, 1.0f);
    test_bn_shared_weights();
    test_bn_forward();
    test_bn_forward_padded(false);
    test_bn_forward_padded(true);
    test_bn_output_kept();
    test_acts();
    test_act_producers();
    test_act_not_fused();
    test_silu(0);
    test_silu(1);
    for (int f = 0; f < 4; f++) {
        test_hardswish(f, true);
        test_hardswish(f, false);
    }
    test_hardswish_negative();
    for (int order = 0; order < 2; order++) {
        test_mish(order, true);
        test_mish(order, false);
    }
    test_residual();
    test_residual_two_convs();
    test_residual_after_act();
    test_pad();
    test_matmul_add();
    test_views();
    test_se();
    test_se_negative();
    test_odd();
    return check_done();
}
