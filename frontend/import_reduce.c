/* import_reduce.c - ReduceMean, ReduceMax, ReduceSum.
 *
 * Why: the axes moved from an attribute to an optional input (ReduceSum at
 * opset 13, ReduceMean and ReduceMax at 18), with noop_with_empty_axes
 * deciding what "no axes" means in the input form. After import attr.axes
 * lists the reduced axes explicitly (sorted, non-negative): all of them
 * when none were given. A no-op reduction (noop_with_empty_axes with no
 * axes) is imported as an Identity layer, so attr.axes.n is never 0. */
#include "fe_internal.h"

static bool axes_are_input(const FeNode *n)
{
    return n->op == IR_OP_REDUCE_SUM ? n->opset >= 13 : n->opset >= 18;
}

FE_IMPORTER(fe_import_reduce)
{
    bool as_input = axes_are_input(n);
    if (fe_check_arity(c, n, 1, as_input ? 2 : 1, 1, 1) < 0)
        return -1;
    IrTensor *x = fe_need_in(c, n, 0, "data");
    if (!x)
        return -1;
    IrAxesAttr *a = &n->attr.axes;
    int64_t axes[IR_MAX_RANK];
    int cnt = 0;
    bool noop = false;
    if (as_input) {
        noop = fe_attr_int(c, n, "noop_with_empty_axes", 0) != 0;
        if (fe_has_in(n, 1) && (cnt = fe_const_ints(c, n, 1, "axes", axes, IR_MAX_RANK)) < 0)
            return -1;
    } else if (fe_attr_ints(c, n, "axes", axes, IR_MAX_RANK, &cnt) < 0) {
        return -1;
    }
    bool red[IR_MAX_RANK] = {false};
    for (int i = 0; i < cnt; i++) {
        int64_t ax;
        if (fe_axis(c, n, axes[i], x->rank, &ax) < 0)
            return -1;
        red[ax] = true;
    }
    if (cnt == 0 && noop) {
        n->op = IR_OP_IDENTITY;
        n->n_keep = 1;
        fe_out_like(n, 0, x);
        return 0;
    }
    if (cnt == 0)
        for (int k = 0; k < x->rank; k++)
            red[k] = true;
    a->keepdims = fe_attr_int(c, n, "keepdims", 1) != 0;
    a->n = 0;
    int64_t od[IR_MAX_RANK];
    int r = 0;
    for (int k = 0; k < x->rank; k++) {
        if (red[k])
            a->perm[a->n++] = k;
        if (!red[k])
            od[r++] = x->dims[k];
        else if (a->keepdims)
            od[r++] = 1;
    }
    fe_set_out(n, 0, x->dtype, r, od);
    n->n_keep = 1;
    n->no_fold = true;
    return 0;
}
