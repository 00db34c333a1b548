/* verify.c - structural checks of the IR, run after the frontend and (in
 * tests) after every pass, so a pass that breaks an invariant is caught at
 * the pass, not three phases later in generated code. */
#include "ir.h"

#include <stdlib.h>

/* report an error on layer L (or the graph when L is NULL); evaluates to 1 */
#define VERR(...) (diag_error(d, g->path, L ? L->name : NULL, L ? ir_op_name(L->op) : NULL, __VA_ARGS__), 1)

static int check_ref(const IrGraph *g, IrDiag *d, const IrLayer *L, int t, int l, const char *what)
{
    if (t < -1 || t >= g->n_tensors) {
        return VERR("%s tensor index %d out of range", what, t);
    }
    if (t < 0)
        return 0;
    const IrTensor *T = &g->tensors[t];
    if (T->kind == IR_T_ACT && (T->producer < 0 || T->producer >= l)) {
        return VERR("%s '%s' is not produced by an earlier layer", what, T->name);
    }
    if (T->kind == IR_T_ACT && g->layers[T->producer].dead) {
        return VERR("%s '%s' is produced by a removed layer", what, T->name);
    }
    return 0;
}

static int check_shape(const IrGraph *g, IrDiag *d, const IrLayer *L, int t)
{
    const IrTensor *T = &g->tensors[t];
    if (T->rank < 0 || T->rank > IR_MAX_RANK) {
        return VERR("tensor '%s' has no known shape", T->name);
    }
    for (int i = 0; i < T->rank; i++)
        if (T->dims[i] < 0) {
            return VERR("tensor '%s' has unknown dim %d", T->name, i);
        }
    return 0;
}

static int check_spatial(const IrGraph *g, IrDiag *d, const IrLayer *L, int nsp, const int64_t *k,
                         const int64_t *s, const int64_t *dil)
{
    if (nsp < 1 || nsp > IR_MAX_SPATIAL) {
        return VERR("spatial rank %d not in 1..%d", nsp, IR_MAX_SPATIAL);
    }
    for (int i = 0; i < nsp; i++)
        if (k[i] < 1 || s[i] < 1 || dil[i] < 1) {
            return VERR("kernel/stride/dilation must be positive");
        }
    return 0;
}

static int check_layer(const IrGraph *g, IrDiag *d, int l)
{
    const IrLayer *L = &g->layers[l];
    int bad = 0;
    if ((unsigned)L->op >= IR_OP_COUNT) {
        return VERR("unknown op code %d", (int)L->op);
    }
    if (ir_op_flags(L->op) & IR_F_FOLD_ONLY)
        bad |= VERR("could not be folded to a constant (its inputs are not known at compile time)");
    if (L->n_in < 0 || L->n_in > IR_MAX_IO || L->n_out < 1 || L->n_out > IR_MAX_IO) {
        return VERR("bad input/output count %d/%d", L->n_in, L->n_out);
    }
    for (int i = 0; i < L->n_in; i++)
        bad |= check_ref(g, d, L, L->in[i], l, "input");
    bad |= check_ref(g, d, L, L->residual, l, "residual");
    bad |= check_ref(g, d, L, L->act_slope, l, "slope");
    for (int i = 0; i < L->n_out; i++) {
        int t = L->out[i];
        if (t < 0)
            continue;
        if (t >= g->n_tensors) {
            bad |= VERR("output tensor index %d out of range", t);
            continue;
        }
        if (g->tensors[t].producer != l || g->tensors[t].kind != IR_T_ACT) {
            bad |= VERR("output '%s' does not name this layer as producer", g->tensors[t].name);
        }
        bad |= check_shape(g, d, L, t);
    }
    if (L->op == IR_OP_CONV || L->op == IR_OP_CONV_TRANSPOSE) {
        const IrConvAttr *a = &L->attr.conv;
        bad |= check_spatial(g, d, L, a->nsp, a->kernel, a->stride, a->dilation);
        if (a->group < 1)
            bad |= VERR("group must be positive");
        if (L->n_in < 2)
            bad |= VERR("convolution without weights");
    } else if (L->op == IR_OP_MAXPOOL || L->op == IR_OP_AVGPOOL) {
        const IrPoolAttr *a = &L->attr.pool;
        bad |= check_spatial(g, d, L, a->nsp, a->kernel, a->stride, a->dilation);
    }
    return bad;
}

int ir_verify(const IrGraph *g, IrDiag *d)
{
    const IrLayer *L = NULL;
    int bad = 0;
    for (int i = 0; i < g->n_inputs; i++)
        if (g->inputs[i] < 0 || g->inputs[i] >= g->n_tensors || g->tensors[g->inputs[i]].kind != IR_T_INPUT)
            bad |= VERR("graph input %d is not an input tensor", i);
    for (int i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] < 0 || g->outputs[i] >= g->n_tensors || !g->tensors[g->outputs[i]].is_output)
            bad |= VERR("graph output %d is not marked as output", i);
    if (g->n_outputs == 0)
        bad |= VERR("graph has no outputs");
    for (int t = 0; t < g->n_tensors; t++) {
        const IrTensor *T = &g->tensors[t];
        if (T->producer >= g->n_layers)
            bad |= VERR("tensor '%s' names layer %d as producer, out of range", T->name, T->producer);
        if (T->kind == IR_T_CONST && !T->src && !T->data && ir_tensor_nbytes(T) > 0)
            bad |= VERR("constant '%s' has no data", T->name);
    }
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead)
            bad |= check_layer(g, d, l);
    return bad;
}
