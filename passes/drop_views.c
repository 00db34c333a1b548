/* drop_views.c - pass drop_views: remove layers that move no data.
 *
 * Contract
 *   requires: shapes of live tensors known (frontend output).
 *   provides: no Identity or inference Dropout layers; no view (Flatten,
 *             Reshape, Squeeze, Unsqueeze) reads the output of another view
 *             (the outer one reads the first one's input instead: a view is a
 *             row-major reinterpretation, so a view of a view is a view of
 *             the original); no view whose output shape equals its input's.
 *   breaks:   nothing. Graph outputs keep their names: when the removed
 *             layer wrote a graph output, the layer before it writes that
 *             tensor instead; when that is impossible (the input is a graph
 *             input, or is used elsewhere) the layer stays.
 *
 * Views that do change the shape stay: every kernel must still see the input
 * layout it expects (a Gemm wants its 2-D input), and the memory plan makes
 * them free aliases anyway.
 */
#include "passes.h"
#include "pass_util.h"

static bool is_view(IrOp op)
{
    return op == IR_OP_FLATTEN || op == IR_OP_RESHAPE || op == IR_OP_SQUEEZE || op == IR_OP_UNSQUEEZE;
}

static bool is_copy(const IrGraph *g, int l)
{
    const IrLayer *L = &g->layers[l];
    return L->op == IR_OP_IDENTITY || L->op == IR_OP_DROPOUT;
}

/* view l reads another view's output: read that view's input instead */
static int skip_inner_view(IrGraph *g, int l)
{
    IrLayer *L = &g->layers[l];
    int p = pass_producer(g, L->in[0]);
    if (p < 0 || !is_view(g->layers[p].op) || g->layers[p].n_in < 1 || !pass_no_epilogue(&g->layers[p]))
        return 0;
    int src = g->layers[p].in[0];
    if (!pass_tensor_ok(g, src) || ir_tensor_numel(&g->tensors[src]) != ir_tensor_numel(&g->tensors[L->out[0]]))
        return 0;
    ir_set_use(g, l, &L->in[0], src);
    pass_merge_origin(g, l, p);
    if (ir_tensor_uses(g, g->layers[p].out[0]) == 0)
        pass_kill(g, p);
    return 1;
}

int pass_drop_views(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    (void)d;
    int n = 0;
    for (int l = 0; l < g->n_layers; l++) {
        IrLayer *L = &g->layers[l];
        if (L->dead || L->n_in < 1 || L->n_out < 1 || !pass_tensor_ok(g, L->in[0]))
            continue;
        if (is_copy(g, l)) {
            n += pass_bypass(g, l);
            continue;
        }
        if (!is_view(L->op) || !pass_no_epilogue(L) || !pass_tensor_ok(g, L->out[0]))
            continue;
        n += skip_inner_view(g, l);
        n += pass_bypass(g, l);
    }
    return n;
}
