/* fold_pad.c - pass fold_pad: fold an explicit zero Pad into the padding of
 * the Conv or AveragePool that reads it.
 *
 * Contract
 *   requires: shapes known.
 *   provides: a Pad (constant mode, value 0, non-negative pads on spatial
 *             axes only) whose every consumer is a Conv (as data input) or an
 *             AveragePool without ceil_mode is gone; its pads are added to the
 *             consumers' pad_begin/pad_end, and the pools count them
 *             (count_include_pad = 1), which is what the explicit zeros did.
 *   breaks:   nothing.
 *
 * Not folded: MaxPool (its implicit padding is -inf, not 0), an AveragePool
 * that already has its own pads with count_include_pad = 0 (the two kinds of
 * padding would need different divisors), reflect/edge padding, non-zero
 * values and pads on the batch or channel axes.
 */
#include "passes.h"
#include "pass_util.h"

#define MAX_CONSUMERS 16

static bool pad_foldable(const IrGraph *g, const IrLayer *P)
{
    if (P->n_in < 1 || !pass_tensor_ok(g, P->in[0]) || !pass_no_epilogue(P))
        return false;
    const IrPadAttr *a = &P->attr.pad;
    int r = g->tensors[P->in[0]].rank;
    if (a->mode != IR_PAD_CONSTANT || a->value != 0.0f || r < 3 || r > 2 + IR_MAX_SPATIAL)
        return false;
    if (a->begin[0] || a->end[0] || a->begin[1] || a->end[1])
        return false;
    for (int i = 2; i < r; i++)
        if (a->begin[i] < 0 || a->end[i] < 0)
            return false;
    return true;
}

static bool own_pads(const int64_t *b, const int64_t *e, int nsp)
{
    for (int i = 0; i < nsp; i++)
        if (b[i] || e[i])
            return true;
    return false;
}

static bool consumer_ok(const IrGraph *g, const IrLayer *C, int t, int nsp)
{
    if (C->in[0] != t)
        return false;
    for (int i = 1; i < C->n_in; i++)
        if (C->in[i] == t)
            return false;
    if (C->residual == t || C->act_slope == t)
        return false;
    if (C->op == IR_OP_CONV)
        return C->attr.conv.nsp == nsp;
    if (C->op == IR_OP_AVGPOOL) {
        const IrPoolAttr *a = &C->attr.pool;
        if (a->nsp != nsp || a->ceil_mode)
            return false;
        return a->count_include_pad || !own_pads(a->pad_begin, a->pad_end, nsp);
    }
    (void)g;
    return false;
}

static void add_pads(IrLayer *C, const IrPadAttr *a, int nsp)
{
    int64_t *b = C->op == IR_OP_CONV ? C->attr.conv.pad_begin : C->attr.pool.pad_begin;
    int64_t *e = C->op == IR_OP_CONV ? C->attr.conv.pad_end : C->attr.pool.pad_end;
    for (int i = 0; i < nsp; i++) {
        b[i] += a->begin[2 + i];
        e[i] += a->end[2 + i];
    }
    if (C->op == IR_OP_AVGPOOL)
        C->attr.pool.count_include_pad = true;
}

static int fold_one(IrGraph *g, int p)
{
    IrLayer *P = &g->layers[p];
    if (!pad_foldable(g, P) || !pass_single_output(g, p))
        return 0;
    int t = P->out[0];
    int nsp = g->tensors[P->in[0]].rank - 2;
    int cons[MAX_CONSUMERS];
    int nc = pass_consumers(g, t, cons, MAX_CONSUMERS);
    if (nc < 1 || nc > MAX_CONSUMERS || pass_is_graph_output(g, t))
        return 0;
    for (int i = 0; i < nc; i++)
        if (!consumer_ok(g, &g->layers[cons[i]], t, nsp))
            return 0;
    for (int i = 0; i < nc; i++) {
        IrLayer *C = &g->layers[cons[i]];
        add_pads(C, &P->attr.pad, nsp);
        ir_set_use(g, cons[i], &C->in[0], P->in[0]);
        pass_merge_origin(g, cons[i], p);
    }
    pass_kill(g, p);
    return 1;
}

int pass_fold_pad(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    (void)d;
    int n = 0;
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead && g->layers[l].op == IR_OP_PAD)
            n += fold_one(g, l);
    return n;
}
