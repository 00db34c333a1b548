/* test_pass_samples.c - the default pipeline (and pruning) on the bundled
 * sample models: every pass keeps the graph valid, the fused graphs still
 * compute the ONNX Runtime reference outputs (within 1e-4 of max|ref|, run
 * through the test evaluator), mobilenet_tiny_bn fuses to exactly the
 * layers of mobilenet_tiny, and pruning channels that are provably dead
 * leaves the outputs unchanged. */
#include "check.h"
#include "frontend/frontend.h"
#include "passes/passes.h"
#include "test_pass_eval.h"
#include "test_util.h"

#include <stdio.h>
#include <string.h>

static IrGraph *load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/samples/%s.onnx", SOURCE_DIR, name);
    FeOptions fo;
    memset(&fo, 0, sizeof fo);
    IrDiag d;
    diag_init(&d);
    IrGraph *g = fe_load_onnx(path, &fo, &d);
    if (!g)
        diag_print(&d, stderr);
    diag_free(&d);
    return g;
}

static int run(IrGraph *g, const char *sel, const char *spec)
{
    PassOptions opt;
    passes_options_init(&opt);
    opt.passes = sel;
    opt.prune_spec = spec;
    opt.verify_each = true;
    IrDiag d;
    diag_init(&d);
    int rc = passes_run(g, &opt, &d);
    if (rc || d.n)
        diag_print(&d, stderr);
    diag_free(&d);
    return rc;
}

/* rel. error of g's output on the sample input against the sample reference */
static double err_vs_ref(IrGraph *g, const char *name, const char *ref_name)
{
    char p[512];
    size_t nx = 0, nr = 0;
    int64_t ny = 0;
    snprintf(p, sizeof p, "%s/samples/%s.in.f32", SOURCE_DIR, name);
    float *x = test_read_f32(p, &nx);
    snprintf(p, sizeof p, "%s/samples/%s.ref.f32", SOURCE_DIR, ref_name);
    float *ref = test_read_f32(p, &nr);
    const float *in[1] = {x};
    float *y = x ? ev_run(g, in, &ny) : NULL;
    double e = y && ref && ny == (int64_t)nr ? ev_rel_err(ref, y, (int64_t)nr) : -1;
    free(x);
    free(ref);
    free(y);
    return e;
}

static int count_kind(const IrGraph *g, const char *kind)
{
    int n = 0;
    for (int l = 0; l < g->n_layers; l++)
        n += !strcmp(ir_layer_kind_name(g, l), kind);
    return n;
}

/* every sample: reference before and after the default pipeline */
static void test_sample(const char *name, int want_layers)
{
    IrGraph *g = load(name);
    CHECK_MSG(g != NULL, "%s does not load", name);
    if (!g)
        return;
    double e0 = err_vs_ref(g, name, name);
    CHECK_MSG(e0 >= 0 && e0 <= 1e-4, "%s before passes: err %g", name, e0);
    CHECK_EQ_INT(run(g, NULL, NULL), 0);
    double e1 = err_vs_ref(g, name, name);
    CHECK_MSG(e1 >= 0 && e1 <= 1e-4, "%s after passes: err %g", name, e1);
    CHECK_MSG(g->n_layers == want_layers, "%s: %d layers after fusion, expected %d", name, g->n_layers,
              want_layers);
    CHECK_EQ_INT(count_kind(g, "bn") + count_kind(g, "act") + count_kind(g, "eltwise"), 0);
    printf("%-18s fused to %d layers, err %.2g\n", name, g->n_layers, e1);
    ir_graph_free(g);
}

/* the _bn form fuses to the same layers (kinds, epilogues) as the folded one */
static void test_bn_twins(void)
{
    IrGraph *a = load("mobilenet_tiny"), *b = load("mobilenet_tiny_bn");
    CHECK(a && b);
    if (!a || !b) {
        ir_graph_free(a);
        ir_graph_free(b);
        return;
    }
    CHECK_EQ_INT(run(a, "default", NULL), 0);
    CHECK_EQ_INT(run(b, "default", NULL), 0);
    CHECK_EQ_INT(a->n_layers, b->n_layers);
    for (int l = 0; l < a->n_layers && l < b->n_layers; l++) {
        const IrLayer *A = &a->layers[l], *B = &b->layers[l];
        CHECK_MSG(!strcmp(ir_layer_kind_name(a, l), ir_layer_kind_name(b, l)), "layer %d kind %s vs %s", l,
                  ir_layer_kind_name(a, l), ir_layer_kind_name(b, l));
        CHECK_EQ_INT(A->act.kind, B->act.kind);
        CHECK_EQ_INT(A->residual >= 0, B->residual >= 0);
        CHECK_EQ_INT(A->n_in, B->n_in);
    }
    double e = err_vs_ref(b, "mobilenet_tiny_bn", "mobilenet_tiny");
    CHECK_MSG(e >= 0 && e <= 1e-4, "mobilenet_tiny_bn fused vs mobilenet_tiny reference: err %g", e);
    ir_graph_free(a);
    ir_graph_free(b);
}

/* the first expand conv (pointwise with an act, read by a depthwise conv) */
static int find_expand(const IrGraph *g, int *dw)
{
    for (int l = 0; l + 1 < g->n_layers; l++) {
        if (strcmp(ir_layer_kind_name(g, l), "pwconv") || g->layers[l].act.kind == IR_ACT_NONE)
            continue;
        for (int m = l + 1; m < g->n_layers; m++)
            if (g->layers[m].in[0] == g->layers[l].out[0] && !strcmp(ir_layer_kind_name(g, m), "dwconv")) {
                *dw = m;
                return l;
            }
    }
    return -1;
}

/* zero filter c of conv l (weights and bias) */
static void zero_filter(IrGraph *g, int l, int64_t c)
{
    const IrLayer *L = &g->layers[l];
    int64_t F = g->tensors[L->in[1]].dims[0], per = ir_tensor_numel(&g->tensors[L->in[1]]) / F;
    float *w = ir_tensor_data(g, L->in[1]);
    memset(w + c * per, 0, sizeof(float) * (size_t)per);
    if (L->n_in >= 3 && L->in[2] >= 0)
        ((float *)ir_tensor_data(g, L->in[2]))[c] = 0;
}

/* dead channels (zero expand filter, zero depthwise filter) pruned: same
 * outputs, fewer parameters */
static void test_prune_dead_channels(void)
{
    IrGraph *g = load("mobilenet_tiny");
    if (!g)
        return;
    CHECK_EQ_INT(run(g, "default", NULL), 0);
    int dw = -1, ex = find_expand(g, &dw);
    CHECK(ex >= 0);
    if (ex < 0) {
        ir_graph_free(g);
        return;
    }
    int64_t C = g->tensors[g->layers[ex].out[0]].dims[1];
    int64_t dead[3] = {1, C / 2, C - 1};
    for (int i = 0; i < 3; i++) {
        zero_filter(g, ex, dead[i]);
        zero_filter(g, dw, dead[i]);
    }
    char in[512];
    snprintf(in, sizeof in, "%s/samples/mobilenet_tiny.in.f32", SOURCE_DIR);
    size_t nx;
    int64_t n0, n1;
    float *x = test_read_f32(in, &nx);
    const float *xs[1] = {x};
    float *y0 = ev_run(g, xs, &n0);
    char spec[512];
    snprintf(spec, sizeof spec, "%s/test_pass_samples.prune", BINARY_DIR);
    FILE *f = fopen(spec, "w");
    fprintf(f, "# dead channels only\n%s %g\n", g->layers[ex].name, 3.0 / (double)C);
    fclose(f);
    PassTotals a, b;
    passes_totals(g, &a);
    CHECK_EQ_INT(run(g, "prune", spec), 0);
    passes_totals(g, &b);
    CHECK_EQ_INT(g->tensors[g->layers[ex].out[0]].dims[1], C - 3);
    CHECK_EQ_INT(g->layers[dw].attr.conv.group, C - 3);
    CHECK(b.params < a.params && b.macs < a.macs);
    float *y1 = ev_run(g, xs, &n1);
    CHECK(y0 && y1 && n0 == n1);
    if (y0 && y1 && n0 == n1)
        CHECK_MSG(ev_rel_err(y0, y1, n0) <= 1e-6, "dead channels pruned: err %g", ev_rel_err(y0, y1, n0));
    free(x);
    free(y0);
    free(y1);
    remove(spec);
    ir_graph_free(g);
}

/* filters of conv l ordered by L1 norm: the n weakest in low[] */
static void weakest(IrGraph *g, int l, int64_t *low, int n)
{
    const IrLayer *L = &g->layers[l];
    int64_t F = g->tensors[L->in[1]].dims[0], per = ir_tensor_numel(&g->tensors[L->in[1]]) / F;
    const float *w = ir_tensor_data(g, L->in[1]);
    double *s = calloc((size_t)F, sizeof *s);
    for (int64_t i = 0; i < F * per; i++)
        s[i / per] += fabs(w[i]);
    for (int k = 0; k < n; k++) {
        int64_t best = -1;
        for (int64_t f = 0; f < F; f++)
            if (s[f] >= 0 && (best < 0 || s[f] < s[best]))
                best = f;
        low[k] = best;
        s[best] = -1;
    }
    free(s);
}

/* pruning live channels: the expand/depthwise group feeds only the project
 * conv, so removing its channels must equal zeroing the project conv's input
 * columns for them in the unpruned model */
static void test_prune_equals_masking(void)
{
    IrGraph *g = load("mobilenet_tiny"), *h = load("mobilenet_tiny");
    if (!g || !h) {
        ir_graph_free(g);
        ir_graph_free(h);
        return;
    }
    CHECK_EQ_INT(run(g, "default", NULL), 0);
    CHECK_EQ_INT(run(h, "default", NULL), 0);
    int dw = -1, ex = find_expand(g, &dw), pj = -1;
    for (int l = dw + 1; ex >= 0 && l < g->n_layers; l++)
        if (g->layers[l].in[0] == g->layers[dw].out[0])
            pj = l;
    CHECK(ex >= 0 && pj >= 0);
    if (ex < 0 || pj < 0) {
        ir_graph_free(g);
        ir_graph_free(h);
        return;
    }
    int64_t C = g->tensors[g->layers[ex].out[0]].dims[1], low[4];
    weakest(g, ex, low, 4);
    /* h: zero the project conv's columns of those channels */
    const IrLayer *P = &h->layers[pj];
    int64_t F = h->tensors[P->in[1]].dims[0];
    float *w = ir_tensor_data(h, P->in[1]);
    for (int64_t f = 0; f < F; f++)
        for (int k = 0; k < 4; k++)
            w[f * C + low[k]] = 0;
    char spec[512];
    snprintf(spec, sizeof spec, "%s/test_pass_samples_mask.prune", BINARY_DIR);
    FILE *fs = fopen(spec, "w");
    fprintf(fs, "%s %g\n", g->layers[ex].name, 4.0 / (double)C);
    fclose(fs);
    CHECK_EQ_INT(run(g, "prune", spec), 0);
    remove(spec);
    CHECK_EQ_INT(g->tensors[g->layers[ex].out[0]].dims[1], C - 4);
    char in[512];
    snprintf(in, sizeof in, "%s/samples/mobilenet_tiny.in.f32", SOURCE_DIR);
    size_t nx;
    int64_t n0, n1;
    float *x = test_read_f32(in, &nx);
    const float *xs[1] = {x};
    float *y0 = ev_run(h, xs, &n0), *y1 = ev_run(g, xs, &n1);
    CHECK(y0 && y1 && n0 == n1 && ev_rel_err(y0, y1, n0) <= 1e-6);
    free(x);
    free(y0);
    free(y1);
    ir_graph_free(g);
    ir_graph_free(h);
}

/* uniform pruning keeps every sample valid and runnable, and shrinks it */
static void test_prune_uniform(const char *name)
{
    IrGraph *g = load(name);
    if (!g)
        return;
    PassOptions opt;
    passes_options_init(&opt);
    opt.prune_ratio = 0.3;
    opt.verify_each = true;
    IrDiag d;
    diag_init(&d);
    PassTotals a, b;
    passes_totals(g, &a);
    CHECK_EQ_INT(passes_run(g, &opt, &d), 0);
    diag_free(&d);
    passes_totals(g, &b);
    CHECK_MSG(b.params < a.params && b.macs < a.macs, "%s: params %lld -> %lld", name, (long long)a.params,
              (long long)b.params);
    double e = err_vs_ref(g, name, name);
    CHECK_MSG(e >= 0, "%s pruned does not evaluate", name);
    CHECK_EQ_INT(ir_tensor_numel(&g->tensors[g->outputs[0]]), 10);
    printf("%-18s prune 0.3: params %lld -> %lld, MACs %lld -> %lld\n", name, (long long)a.params,
           (long long)b.params, (long long)a.macs, (long long)b.macs);
    ir_graph_free(g);
}

int main(void)
{
    test_sample("mobilenet_tiny", 19);
    test_sample("mobilenet_tiny_bn", 19);
    test_sample("resnet_tiny", 15);
    test_sample("effnet_tiny", 19);
    test_bn_twins();
    test_prune_dead_channels();
    test_prune_equals_masking();
    const char *names[] = {"mobilenet_tiny", "mobilenet_tiny_bn", "resnet_tiny", "effnet_tiny"};
    for (int i = 0; i < 4; i++)
        test_prune_uniform(names[i]);
    return check_done();
}
