/* pipeline.c - the one table of passes, in the order they run, and the
 * runner that executes a selection of them.
 *
 * Why a table: the order of the passes is a design decision (fold BN before
 * fusing activations, fuse the residual Add before its Relu, prune after the
 * epilogues are settled...), so it is spelled out once here and nowhere else;
 * a selection (--passes=) only switches entries on and off, never reorders.
 * The runner owns the bookkeeping every pass would otherwise repeat:
 * compaction after each pass, the optional verification that names the pass
 * that broke the graph, and --dump-after.
 *
 * A quantize pass slots in after prune (it needs final shapes and fused
 * epilogues, and everything before it stays in float).
 */
#include "passes.h"

#include <string.h>

static const PassInfo pipeline[] = {
    {"drop_views", pass_drop_views, PASS_DEFAULT,
     "remove Identity/Dropout, no-op reshapes and chains of views"},
    {"fuse_shuffle", pass_fuse_shuffle, PASS_DEFAULT,
     "channel shuffle Reshape -> Transpose(0,2,1,...) -> Reshape -> one Gather of channels"},
    {"fold_pad", pass_fold_pad, PASS_DEFAULT,
     "fold zero constant Pad of spatial dims into the next Conv / AveragePool"},
    {"fuse_gemm", pass_fuse_gemm, PASS_DEFAULT,
     "MatMul(x, const W) + const bias over the last dim -> Gemm"},
    {"fold_bn", pass_fold_bn, PASS_DEFAULT,
     "fold BatchNormalization into the preceding Conv/Gemm (new weights and bias)"},
    {"fold_bn_next", pass_fold_bn_next, PASS_DEFAULT,
     "fold a remaining BatchNormalization into the following Conv when exact"},
    {"canon_act", pass_canon_act, PASS_DEFAULT,
     "rewrite x*Clip(x+3,0,6)/6 and x*HardSigmoid(x) into HardSwish, x*Tanh(Softplus(x)) into Mish"},
    {"fuse_residual", pass_fuse_residual, PASS_DEFAULT,
     "fuse a residual Add into the epilogue of the Conv/Gemm producing one operand"},
    {"fuse_act", pass_fuse_act, PASS_DEFAULT,
     "fuse activations (and x*Sigmoid(x)) into the producer's epilogue"},
    {"mark_se", pass_mark_se, PASS_DEFAULT,
     "mark squeeze-excite channel-scale Muls (IrLayer.se)"},
    {"prune", pass_prune, PASS_PRUNE,
     "structured output-channel pruning by L1 norm (--prune)"},
    {"qdq_import", pass_qdq_import, PASS_DEFAULT | PASS_QUANT,
     "QuantizeLinear/DequantizeLinear pairs of a QDQ model -> tensor scales (IrTensor.quant)"},
    {"quantize", pass_quantize, PASS_DEFAULT | PASS_QUANT,
     "int8 / int16 / dynamic fixed point layers, calibration, float boundaries (--precision)"},
    {"dce", pass_dce, PASS_DEFAULT,
     "remove layers whose results nobody uses"},
};

#define N_PIPELINE ((int)(sizeof pipeline / sizeof pipeline[0]))

void passes_options_init(PassOptions *opt)
{
    memset(opt, 0, sizeof *opt);
}

const PassInfo *passes_table(int *n)
{
    *n = N_PIPELINE;
    return pipeline;
}

void passes_totals(const IrGraph *g, PassTotals *t)
{
    memset(t, 0, sizeof *t);
    for (int l = 0; l < g->n_layers; l++) {
        if (g->layers[l].dead)
            continue;
        IrLayerStats st;
        ir_layer_stats(g, l, &st);
        t->layers++;
        t->macs += st.macs;
        t->params += st.params;
    }
}

/* ------------------------------------------------------------ selection */

/* 1 when name is an item of the comma-separated list */
static int list_has(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

static int find_pass(const char *name, size_t len)
{
    for (int i = 0; i < N_PIPELINE; i++)
        if (strlen(pipeline[i].name) == len && !strncmp(pipeline[i].name, name, len))
            return i;
    return -1;
}

static int is_keyword(const char *p, size_t len)
{
    return (len == 7 && !strncmp(p, "default", 7)) || (len == 3 && !strncmp(p, "all", 3)) ||
           (len == 4 && !strncmp(p, "none", 4));
}

int passes_check_selection(const char *sel, char *err, size_t n)
{
    if (!sel)
        return 0;
    for (const char *p = sel; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len && !is_keyword(p, len) && find_pass(p, len) < 0) {
            snprintf(err, n, "unknown pass '%.*s'", (int)len, p);
            return -1;
        }
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

static int prune_wanted(const PassOptions *opt)
{
    return opt->prune_ratio > 0 || opt->prune_spec;
}

static int selected(const PassOptions *opt, int i)
{
    const char *sel = opt->passes ? opt->passes : "default";
    if (list_has(sel, pipeline[i].name) || list_has(sel, "all"))
        return 1;
    if ((pipeline[i].flags & PASS_PRUNE) && prune_wanted(opt))
        return 1;
    if ((pipeline[i].flags & PASS_QUANT) && opt->quant)
        return 1;
    return (pipeline[i].flags & PASS_DEFAULT) && list_has(sel, "default");
}

/* --------------------------------------------------------------- runner */

static void dump(const IrGraph *g, const PassOptions *opt, const char *name)
{
    if (!opt->dump_after || !(list_has(opt->dump_after, name) || list_has(opt->dump_after, "all")))
        return;
    FILE *f = opt->dump ? opt->dump : stderr;
    if (opt->dump_json) {
        ir_print_json(g, f);
        return;
    }
    fprintf(f, "### IR after pass %s\n", name);
    ir_print_text(g, f);
}

static int run_one(IrGraph *g, const PassInfo *p, const PassOptions *opt, IrDiag *d)
{
    int before = g->n_layers;
    int errs = d->n_errors;
    int r = p->fn(g, opt, d);
    ir_graph_compact(g);
    if (r < 0 || d->n_errors > errs) {
        diag_error(d, g->path, NULL, NULL, "pass '%s' failed", p->name);
        return -1;
    }
    if (opt->verify_each && ir_verify(g, d)) {
        diag_error(d, g->path, NULL, NULL, "pass '%s' left an invalid graph", p->name);
        return -1;
    }
    if (opt->log)
        fprintf(opt->log, "pass %-14s %4d rewrites, layers %d -> %d\n", p->name, r, before, g->n_layers);
    dump(g, opt, p->name);
    return 0;
}

int passes_run_list(IrGraph *g, const PassInfo *list, int n, const PassOptions *opt, IrDiag *d)
{
    ir_graph_compact(g);
    if (opt->verify_each && ir_verify(g, d)) {
        diag_error(d, g->path, NULL, NULL, "graph is invalid before the passes");
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (run_one(g, &list[i], opt, d))
            return -1;
    return 0;
}

int passes_run(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    char err[160];
    if (passes_check_selection(opt->passes, err, sizeof err)) {
        diag_error(d, g->path, NULL, NULL, "--passes: %s", err);
        return -1;
    }
    if (opt->dump_after && passes_check_selection(opt->dump_after, err, sizeof err)) {
        diag_error(d, g->path, NULL, NULL, "--dump-after: %s", err);
        return -1;
    }
    PassInfo chosen[N_PIPELINE];
    int n = 0;
    for (int i = 0; i < N_PIPELINE; i++)
        if (selected(opt, i))
            chosen[n++] = pipeline[i];
    return passes_run_list(g, chosen, n, opt, d);
}
