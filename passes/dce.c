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

static bool layer_used(const IrGraph *g, int l)
{
    const IrLayer *L = &g->layers[l];
    for (int k = 0; k < L->n_out; k++)
        if (pass_tensor_ok(g, L->out[k]) && ir_tensor_uses(g, L->out[k]) > 0)
            return true;
    return false;
}

int pass_dce(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    (void)d;
    int n = 0;
    for (int l = g->n_layers - 1; l >= 0; l--) {
        if (g->layers[l].dead || layer_used(g, l))
            continue;
        pass_kill(g, l);
        n++;
    }
    return n;
}
