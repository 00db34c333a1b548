/* dce.c - pass dce: remove layers whose results nobody uses.
 *
 * Contract
 *   requires: nothing.
 *   provides: every live layer has at least one output that is a graph
 *             output or read by a live layer.
 *   breaks:   nothing (layers are only marked dead; the runner compacts).
 *
 * Fusions retire the layers they absorb themselves; this catches layers that
 * were dead in the model as imported and whatever a pass selection leaves
 * unread. Walking backwards frees whole dead chains in one sweep.
 */
#include "passes.h"
#include "pass_util.h"

#include <stdlib.h>

static bool layer_used(const IrGraph *g, int l, const int *uses)
{
    const IrLayer *L = &g->layers[l];
    for (int k = 0; k < L->n_out; k++)
        if (pass_tensor_ok(g, L->out[k]) && uses[L->out[k]] > 0)
            return true;
    return false;
}

/* Use counts are taken once and lowered as layers die, so the sweep is
 * linear in the graph (a 10,000-layer chain must not cost 10,000 scans). */
int pass_dce(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    (void)d;
    int n = 0, *uses = ir_use_counts(g);
    for (int l = g->n_layers - 1; l >= 0; l--) {
        if (g->layers[l].dead || layer_used(g, l, uses))
            continue;
        pass_kill(g, l);
        ir_use_counts_drop(g, l, uses);
        n++;
    }
    free(uses);
    return n;
}
