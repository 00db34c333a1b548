/* import_softmax.c - Softmax and LogSoftmax.
 *
 * Why the expansion: before opset 13 these ops flatten the input to 2-D at
 * `axis` (default 1) and normalize over everything after it; from 13 they
 * normalize along one axis (default -1). The IR has the opset-13 meaning
 * (attr.axis). When an old-opset node's trailing block is more than one
 * axis, it is imported as Flatten -> Softmax(axis 1) -> Reshape, which is
 * exactly the old definition. */
#include "fe_internal.h"

/* Old semantics over a multi-axis block: three layers. */
static int expand_coerced(FeCtx *c, FeNode *n, const IrTensor *x, int64_t axis)
{
    int64_t flat[2] = {1, 1};
    for (int k = 0; k < x->rank; k++)
        flat[k < axis ? 0 : 1] *= x->dims[k];
    const char *out = n->pb->output[0];
    int xi = n->in[0];
    int t_flat = fe_act_tensor(c, fe_gen_name(c, out, "flat"), x->dtype, 2, flat);
    int t_sm = fe_act_tensor(c, fe_gen_name(c, out, "norm"), x->dtype, 2, flat);
    int t_out = fe_act_tensor(c, out, x->dtype, x->rank, x->dims);
    IrAttr fa = {.axis = {.axis = axis}}, sa = {.axis = {.axis = 1}};
    int lf = fe_emit_layer(c, IR_OP_FLATTEN, ir_sprintf(c->g, "%s__flatten", n->name), &xi, 1,
                           &t_flat, 1, &fa);
    fe_emit_layer(c, n->op, n->name, &t_flat, 1, &t_sm, 1, &sa);
    int lr = fe_emit_layer(c, IR_OP_RESHAPE, ir_sprintf(c->g, "%s__reshape", n->name), &t_sm, 1,
                           &t_out, 1, NULL);
    /* all three implement the one ONNX node */
    c->g->layers[lf].origin = c->g->layers[lr].origin = c->g->layers[lf + 1].origin;
    n->out_t[0] = t_out;
    n->done = true;
    return 0;
}

FE_IMPORTER(fe_import_softmax)
{
    if (fe_check_arity(c, n, 1, 1, 1, 1) < 0)
        return -1;
    IrTensor *x = fe_need_in(c, n, 0, "input");
    if (!x)
        return -1;
    if (!fe_dtype_is_float(x->dtype))
        return fe_err(c, n, "input '%s' must be floating point", x->name);
    bool old = n->opset < 13;
    int64_t axis;
    if (x->rank == 0)
        return fe_err(c, n, "input '%s' must have rank >= 1", x->name);
    if (fe_axis(c, n, fe_attr_int(c, n, "axis", old ? 1 : -1), x->rank, &axis) < 0)
        return -1;
    if (old) {
        int64_t tail = 1;
        for (int k = (int)axis + 1; k < x->rank; k++)
            tail *= x->dims[k];
        if (tail != 1)
            return expand_coerced(c, n, x, axis);
    }
    n->attr.axis.axis = axis;
    fe_out_like(n, 0, x);
    n->no_fold = true;
    return 0;
}
