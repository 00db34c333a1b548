/* test_prune.c - structured pruning on hand-built graphs.
 *
 * Exactness: each graph has channels made dead on purpose (zero filter and
 * bias, and whatever follows maps 0 to 0), the spec asks for exactly that
 * many channels, the L1 ranking must pick them, and the outputs must not
 * change. Around that: the dependency rules (residual groups fused or not,
 * depthwise following its producer, BN and PRelu parameters, Concat
 * offsets, Flatten blocks into the FC, SE scales), what must never be
 * pruned (graph outputs, groups touched by unknown ops, grouped convs), the
 * spec file and the reported figures. */
#include "check.h"
#include "passes/passes.h"
#include "test_util.h"
#include "test_pass_eval.h"

#include <stdio.h>
#include <string.h>

/* --------------------------------------------------------------- tools */

static const char *write_spec(const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/test_prune.spec", BINARY_DIR);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static int layer_named(const IrGraph *g, const char *name)
{
    for (int l = 0; l < g->n_layers; l++)
        if (!strcmp(g->layers[l].name, name))
            return l;
    return -1;
}

static int64_t dim_of(const IrGraph *g, int t, int axis)
{
    return t >= 0 ? g->tensors[t].dims[axis] : -1;
}

/* weight dim of the named layer */
static int64_t wdim(const IrGraph *g, const char *name, int axis)
{
    int l = layer_named(g, name);
    return l >= 0 ? dim_of(g, g->layers[l].in[1], axis) : -1;
}

/* zero output channel c of conv/fc layer l: filter and bias */
static void kill_channel(IrGraph *g, int l, int64_t c)
{
    const IrLayer *L = &g->layers[l];
    const IrTensor *W = &g->tensors[L->in[1]];
    float *w = ir_tensor_data(g, L->in[1]);
    bool tb = L->op == IR_OP_GEMM && L->attr.gemm.trans_b;
    if (L->op == IR_OP_CONV || tb) {
        int64_t per = ir_tensor_numel(W) / W->dims[0];
        memset(w + c * per, 0, sizeof(float) * (size_t)per);
    } else {
        for (int64_t k = 0; k < W->dims[0]; k++)
            w[k * W->dims[1] + c] = 0;
    }
    if (L->n_in >= 3 && L->in[2] >= 0)
        ((float *)ir_tensor_data(g, L->in[2]))[c] = 0;
}

/* run passes sel with the spec text; returns the output's rel. change */
static double prune_cmp(IrGraph *g, const char *sel, const char *spec, PassTotals *a, PassTotals *b)
{
    uint32_t seed = 99;
    float *x[IR_MAX_IO];
    for (int i = 0; i < g->n_inputs; i++)
        x[i] = ev_random_input(g, i, &seed);
    int64_t n0 = 0, n1 = 0;
    float *y0 = ev_run(g, (const float *const *)x, &n0);
    PassOptions o;
    passes_options_init(&o);
    o.passes = sel;
    o.prune_spec = spec ? write_spec(spec) : NULL;
    o.verify_each = true;
    IrDiag d;
    diag_init(&d);
    passes_totals(g, a);
    int rc = passes_run(g, &o, &d);
    if (rc || d.n_errors)
        diag_print(&d, stderr);
    CHECK_EQ_INT(rc, 0);
    diag_free(&d);
    passes_totals(g, b);
    float *y1 = ev_run(g, (const float *const *)x, &n1);
    double e = y0 && y1 && n0 == n1 ? ev_rel_err(y0, y1, n0) : -1;
    free(y0);
    free(y1);
    for (int i = 0; i < g->n_inputs; i++)
        free(x[i]);
    return e;
}

/* -------------------------------------------------------- residual */

static IrGraph *residual_net(void)
{
    uint32_t s = 7;
    IrGraph *g = ir_graph_new("res");
    int64_t d[4] = {1, 3, 6, 6};
    int x = tb_input(g, "input", 4, d);
    int a = tb_unary(g, IR_OP_RELU, "r0", tb_conv(g, "stem", x, 8, 3, 1, 1, 1, 1, &s), 0, 0);
    int b = tb_unary(g, IR_OP_RELU, "r1", tb_conv(g, "c1", a, 8, 1, 1, 0, 1, 1, &s), 0, 0);
    int c = tb_conv(g, "c2", b, 8, 3, 1, 1, 1, 1, &s);
    int dd = tb_binary(g, IR_OP_ADD, "add1", a, c);
    int e = tb_conv(g, "c3", dd, 8, 1, 1, 0, 1, 1, &s);
    int f = tb_binary(g, IR_OP_ADD, "add2", dd, e);
    tb_output(g, tb_fc(g, "fc", tb_flatten(g, "flat", tb_gap(g, "gap", f)), 5, &s));
    const char *src[3] = {"stem", "c2", "c3"};
    for (int i = 0; i < 3; i++)
        kill_channel(g, layer_named(g, src[i]), 2);
    return g;
}

static void test_residual(const char *sel)
{
    IrGraph *g = residual_net();
    PassTotals a, b;
    double e = prune_cmp(g, sel, "stem 0.125\nc2 0.125\nc3 0.125\n", &a, &b);
    CHECK_MSG(e >= 0 && e <= 1e-6, "residual (%s): err %g", sel, e);
    CHECK_EQ_INT(wdim(g, "stem", 0), 7);
    CHECK_EQ_INT(wdim(g, "c1", 0), 8); /* its own group, not in the spec */
    CHECK_EQ_INT(wdim(g, "c1", 1), 7);
    CHECK_EQ_INT(wdim(g, "c2", 0), 7);
    CHECK_EQ_INT(wdim(g, "c3", 0), 7);
    CHECK_EQ_INT(wdim(g, "c3", 1), 7);
    CHECK_EQ_INT(wdim(g, "fc", 1), 7);
    CHECK_EQ_INT(wdim(g, "fc", 0), 5);
    CHECK(b.params < a.params && b.macs < a.macs);
    ir_graph_free(g);
}

/* a layer of a residual group that keeps everything keeps the whole group */
static void test_residual_min_ratio(void)
{
    IrGraph *g = residual_net();
    PassTotals a, b;
    double e = prune_cmp(g, "prune", "stem 0.125\nc2 0.125\nc3 0\n", &a, &b);
    CHECK(e == 0);
    CHECK_EQ_INT(wdim(g, "stem", 0), 8);
    CHECK_EQ_INT(a.params, b.params);
    ir_graph_free(g);
}

/* ---------------------------------------- depthwise, BN, PRelu, concat */

static IrGraph *mixed_net(void)
{
    uint32_t s = 17;
    IrGraph *g = ir_graph_new("mixed");
    int64_t d[4] = {1, 3, 5, 5}, sd[3] = {6, 1, 1};
    int x = tb_input(g, "input", 4, d);
    int c1 = tb_conv(g, "pw1", x, 6, 1, 1, 0, 1, 1, &s);
    int bn = tb_bn(g, "bn", c1, &s);
    int p = tb_binary(g, IR_OP_PRELU, "prelu", bn, tb_const(g, "slope", 3, sd, &s, 0.1f, 0.3f));
    int q = tb_conv(g, "dw", p, 6, 3, 1, 1, 6, 1, &s);
    int r = tb_unary(g, IR_OP_RELU, "relu", tb_conv(g, "pw2", x, 4, 1, 1, 0, 1, 1, &s), 0, 0);
    int ins[2] = {q, r};
    int64_t cd[4] = {1, 10, 5, 5};
    int l = tb_layer(g, IR_OP_CONCAT, "cat", ins, 2, 4, cd);
    g->layers[l].attr.axis.axis = 1;
    tb_output(g, tb_conv(g, "pw3", tb_out(g, l), 5, 1, 1, 0, 1, 1, &s));
    /* dead: pw1 channel 1 (BN maps it to 0, PRelu keeps 0, dw adds no bias), pw2 channel 3 */
    kill_channel(g, layer_named(g, "pw1"), 1);
    const IrLayer *B = &g->layers[layer_named(g, "bn")];
    ((float *)ir_tensor_data(g, B->in[2]))[1] = 0;
    ((float *)ir_tensor_data(g, B->in[3]))[1] = 0;
    ((float *)ir_tensor_data(g, g->layers[layer_named(g, "dw")].in[2]))[1] = 0;
    kill_channel(g, layer_named(g, "pw2"), 3);
    return g;
}

static void test_mixed(const char *sel)
{
    IrGraph *g = mixed_net();
    PassTotals a, b;
    double e = prune_cmp(g, sel, "pw1 0.17\npw2 0.25\n", &a, &b);
    CHECK_MSG(e >= 0 && e <= 1e-6, "mixed (%s): err %g", sel, e);
    CHECK_EQ_INT(wdim(g, "pw1", 0), 5);
    CHECK_EQ_INT(wdim(g, "dw", 0), 5);
    CHECK_EQ_INT(g->layers[layer_named(g, "dw")].attr.conv.group, 5);
    CHECK_EQ_INT(wdim(g, "pw2", 0), 3);
    CHECK_EQ_INT(wdim(g, "pw3", 1), 8);
    CHECK_EQ_INT(wdim(g, "pw3", 0), 5);
    int cat = layer_named(g, "cat");
    CHECK(cat >= 0 && dim_of(g, g->layers[cat].out[0], 1) == 8);
    int bn = layer_named(g, "bn");
    if (bn >= 0) {
        for (int i = 1; i < 5; i++)
            CHECK_EQ_INT(ir_tensor_numel(&g->tensors[g->layers[bn].in[i]]), 5);
    }
    int pr = layer_named(g, "prelu");
    int slope = pr >= 0 ? g->layers[pr].in[1] : g->layers[layer_named(g, "pw1")].act_slope;
    CHECK(slope >= 0 && ir_tensor_numel(&g->tensors[slope]) == 5);
    ir_graph_free(g);
}

/* ---------------------------------------------- flatten blocks, SE, FC */

static void test_flatten_fc(void)
{
    uint32_t s = 27;
    IrGraph *g = ir_graph_new("flat");
    int64_t d[4] = {1, 2, 4, 4};
    int x = tb_input(g, "input", 4, d);
    int c = tb_unary(g, IR_OP_RELU, "relu", tb_conv(g, "c", x, 4, 3, 1, 1, 1, 1, &s), 0, 0);
    tb_output(g, tb_fc(g, "fc", tb_flatten(g, "flat", c), 3, &s));
    kill_channel(g, 0, 0);
    PassTotals a, b;
    double e = prune_cmp(g, "prune", "c 0.25\n", &a, &b);
    CHECK_MSG(e >= 0 && e <= 1e-6, "flatten: err %g", e);
    CHECK_EQ_INT(wdim(g, "fc", 1), 48);
    CHECK_EQ_INT(dim_of(g, g->layers[layer_named(g, "flat")].out[0], 1), 48);
    ir_graph_free(g);
}

static void test_se(void)
{
    uint32_t s = 37;
    IrGraph *g = ir_graph_new("se");
    int64_t d[4] = {1, 3, 4, 4};
    int x = tb_input(g, "input", 4, d);
    int y = tb_unary(g, IR_OP_RELU, "relu", tb_conv(g, "c", x, 8, 1, 1, 0, 1, 1, &s), 0, 0);
    int z = tb_unary(g, IR_OP_RELU, "r1", tb_conv(g, "se1", tb_gap(g, "gap", y), 2, 1, 1, 0, 1, 1, &s), 0, 0);
    z = tb_unary(g, IR_OP_SIGMOID, "gate", tb_conv(g, "se2", z, 8, 1, 1, 0, 1, 1, &s), 0, 0);
    tb_output(g, tb_conv(g, "proj", tb_binary(g, IR_OP_MUL, "scale", y, z), 3, 1, 1, 0, 1, 1, &s));
    kill_channel(g, layer_named(g, "c"), 6);
    kill_channel(g, layer_named(g, "se2"), 6);
    PassTotals a, b;
    double e = prune_cmp(g, "default", "c 0.125\nse2 0.125\n", &a, &b);
    CHECK_MSG(e >= 0 && e <= 1e-6, "se: err %g", e);
    CHECK_EQ_INT(wdim(g, "c", 0), 7);
    CHECK_EQ_INT(wdim(g, "se1", 1), 7);
    CHECK_EQ_INT(wdim(g, "se1", 0), 2);
    CHECK_EQ_INT(wdim(g, "se2", 0), 7);
    CHECK_EQ_INT(wdim(g, "proj", 1), 7);
    ir_graph_free(g);
}

/* FC chain through Gemm (transB) and MatMul */
static void test_fc_chain(void)
{
    uint32_t s = 47;
    IrGraph *g = ir_graph_new("mlp");
    int64_t d[2] = {2, 6}, wd[2] = {8, 8}, od[2] = {2, 8};
    int x = tb_input(g, "input", 2, d);
    int h = tb_unary(g, IR_OP_RELU, "r1", tb_fc(g, "fc1", x, 8, &s), 0, 0);
    int ins[2] = {h, tb_const(g, "w2", 2, wd, &s, -1, 1)};
    int m = tb_unary(g, IR_OP_RELU, "r2", tb_out(g, tb_layer(g, IR_OP_MATMUL, "mm", ins, 2, 2, od)), 0, 0);
    tb_output(g, tb_fc(g, "fc3", m, 3, &s));
    kill_channel(g, layer_named(g, "fc1"), 5);
    kill_channel(g, layer_named(g, "mm"), 0);
    kill_channel(g, layer_named(g, "mm"), 7);
    PassTotals a, b;
    double e = prune_cmp(g, "prune", "fc1 0.125\nmm 0.25\n", &a, &b);
    CHECK_MSG(e >= 0 && e <= 1e-6, "fc chain: err %g", e);
    CHECK_EQ_INT(wdim(g, "fc1", 0), 7);
    CHECK_EQ_INT(wdim(g, "mm", 0), 7);
    CHECK_EQ_INT(wdim(g, "mm", 1), 6);
    CHECK_EQ_INT(wdim(g, "fc3", 1), 6);
    ir_graph_free(g);
}

/* ------------------------------------------------------------- frozen */

static void test_frozen(void)
{
    uint32_t s = 57;
    IrGraph *g = ir_graph_new("frozen");
    int64_t d[4] = {1, 4, 4, 4}, td[4] = {1, 4, 8, 4};
    int x = tb_input(g, "input", 4, d);
    int a = tb_conv(g, "a", x, 8, 1, 1, 0, 1, 1, &s);          /* read by a Transpose */
    int t = tb_out(g, tb_layer(g, IR_OP_TRANSPOSE, "tr", &a, 1, 4, td));
    int gc = tb_conv(g, "grouped", x, 8, 1, 1, 0, 2, 1, &s);   /* grouped conv */
    int b = tb_conv(g, "b", gc, 8, 1, 1, 0, 2, 1, &s);
    tb_output(g, t);
    tb_output(g, b);
    int out_conv = tb_conv(g, "last", x, 6, 1, 1, 0, 1, 1, &s); /* graph output */
    tb_output(g, out_conv);
    PassOptions o;
    passes_options_init(&o);
    o.passes = "prune";
    o.prune_ratio = 0.5;
    o.verify_each = true;
    IrDiag dg;
    diag_init(&dg);
    CHECK_EQ_INT(passes_run(g, &o, &dg), 0);
    CHECK_EQ_INT(wdim(g, "a", 0), 8);
    CHECK_EQ_INT(wdim(g, "grouped", 0), 8);
    CHECK_EQ_INT(wdim(g, "last", 0), 6);
    diag_free(&dg);
    ir_graph_free(g);
}

/* ----------------------------------------------------- spec and report */

static void test_spec_errors(void)
{
    IrGraph *g = residual_net();
    PassOptions o;
    passes_options_init(&o);
    o.passes = "prune";
    IrDiag d;
    diag_init(&d);
    o.prune_spec = write_spec("stem 0.5 extra\n");
    CHECK_EQ_INT(passes_run(g, &o, &d), -1);
    CHECK(diag_contains(&d, "line 1: expected 'LAYER_NAME RATIO'"));
    diag_free(&d);
    diag_init(&d);
    o.prune_spec = write_spec("# comment\n\nnosuch 0.5\nstem 1.0\n");
    CHECK_EQ_INT(passes_run(g, &o, &d), -1);
    CHECK(diag_contains(&d, "line 4"));
    diag_free(&d);
    diag_init(&d);
    o.prune_spec = write_spec("nosuch 0.5   # not a layer\n* 0.25\n");
    FILE *log = tmpfile();
    o.log = log;
    CHECK_EQ_INT(passes_run(g, &o, &d), 0);
    CHECK_EQ_INT(d.n_errors, 0);
    CHECK(diag_contains(&d, "prune spec names no layer"));
    CHECK_EQ_INT(wdim(g, "c1", 0), 6);
    char *buf = test_read_stream(log, NULL);
    CHECK(buf && strstr(buf, "prune: c1") && strstr(buf, "params") && strstr(buf, "MACs"));
    free(buf);
    fclose(log);
    diag_free(&d);
    o.prune_spec = "/nonexistent/prune.spec";
    diag_init(&d);
    CHECK_EQ_INT(passes_run(g, &o, &d), -1);
    CHECK(diag_contains(&d, "cannot open the prune spec"));
    diag_free(&d);
    remove(write_spec(""));
    ir_graph_free(g);
}

/* a ratio never removes a whole group */
static void test_keeps_one(void)
{
    uint32_t s = 67;
    IrGraph *g = ir_graph_new("one");
    int64_t d[4] = {1, 2, 3, 3};
    int x = tb_input(g, "input", 4, d);
    int c = tb_conv(g, "c", x, 2, 1, 1, 0, 1, 1, &s);
    tb_output(g, tb_conv(g, "o", c, 2, 1, 1, 0, 1, 1, &s));
    PassTotals a, b;
    prune_cmp(g, "prune", "* 0.99\n", &a, &b);
    CHECK_EQ_INT(wdim(g, "c", 0), 1);
    CHECK_EQ_INT(wdim(g, "o", 1), 1);
    ir_graph_free(g);
}

int main(void)
{
    test_residual("prune");
    test_residual("default,prune");
    test_residual_min_ratio();
    test_mixed("prune");
    test_mixed("default,prune");
    test_flatten_fc();
    test_se();
    test_fc_chain();
    test_frozen();
    test_spec_errors();
    test_keeps_one();
    return check_done();
}
