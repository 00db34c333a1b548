/* import_unary.c - activations and element-wise math of one input.
 *
 * Why: these all keep the input's shape; what differs is the activation
 * parameters, which go into attr.act so a fusion pass can move them into a
 * producer's epilogue unchanged. Clip takes its bounds from attributes
 * before opset 11 and from (constant) inputs after; both end in
 * attr.act.alpha/beta and the layer keeps only X. */
#include "fe_internal.h"

#include <float.h>

static int clip_bounds(FeCtx *c, FeNode *n, IrAct *a)
{
    a->alpha = -FLT_MAX;
    a->beta = FLT_MAX;
    if (n->opset < 11) {
        if (fe_check_arity(c, n, 1, 1, 1, 1) < 0)
            return -1;
        a->alpha = fe_attr_float(c, n, "min", -FLT_MAX);
        a->beta = fe_attr_float(c, n, "max", FLT_MAX);
        return 0;
    }
    if (fe_check_arity(c, n, 1, 3, 1, 1) < 0)
        return -1;
    double v;
    for (int i = 1; i < 3; i++) {
        if (!fe_has_in(n, i))
            continue;
        int k = fe_const_floats(c, n, i, i == 1 ? "min" : "max", &v, 1);
        if (k < 0)
            return -1;
        if (k != 1)
            return fe_err(c, n, "the %s bound must be a scalar", i == 1 ? "min" : "max");
        if (i == 1)
            a->alpha = (float)v;
        else
            a->beta = (float)v;
    }
    n->n_keep = 1;
    return 0;
}


FE_IMPORTER(fe_import_unary)
{
    IrAct *a = &n->attr.act;
    a->kind = ir_op_act(n->op);
    if (n->op == IR_OP_CLIP) {
        if (clip_bounds(c, n, a) < 0)
            return -1;
    } else if (fe_check_arity(c, n, 1, 1, 1, 1) < 0) {
        return -1;
    }
    IrTensor *x = fe_need_in(c, n, 0, "X");
    if (!x)
        return -1;
    switch (n->op) {
    case IR_OP_LEAKY_RELU: a->alpha = fe_attr_float(c, n, "alpha", 0.01f); break;
    case IR_OP_ELU: a->alpha = fe_attr_float(c, n, "alpha", 1.0f); break;
    case IR_OP_HARD_SIGMOID:
        a->alpha = fe_attr_float(c, n, "alpha", 0.2f);
        a->beta = fe_attr_float(c, n, "beta", 0.5f);
        break;
    default: break;
    }
    if (x->dtype == IR_DT_BOOL || (!fe_dtype_is_float(x->dtype) && a->kind != IR_ACT_NONE &&
                                   n->op != IR_OP_RELU && n->op != IR_OP_CLIP))
        return fe_err(c, n, "input '%s' has type %s; a floating type is expected", x->name,
                      ir_dtype_name(x->dtype));
    fe_out_like(n, 0, x);
    return 0;
}
