/* import_pool.c - MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool.
 *
 * Why its own file: pooling windows follow conv's padding rules but add
 * ceil_mode (with the rule that a window may not start in the end padding),
 * count_include_pad and, for MaxPool, an Indices output we do not produce
 * (rejected with a clear message rather than left unfilled). */
#include "fe_internal.h"

#include <string.h>

static int window_attrs(FeCtx *c, const FeNode *n, IrPoolAttr *a)
{
    int64_t v[IR_MAX_SPATIAL];
    int cnt, sp = a->nsp;
    if (fe_attr_ints(c, n, "kernel_shape", v, IR_MAX_SPATIAL, &cnt) < 0)
        return -1;
    if (cnt != sp)
        return fe_err(c, n, "kernel_shape must have %d values (one per spatial dim), has %d", sp,
                      cnt);
    if (fe_window_attrs(c, n, sp, a->stride, a->dilation, a->pad_begin, a->pad_end) < 0)
        return -1;
    for (int k = 0; k < sp; k++) {
        a->kernel[k] = v[k];
        if (a->kernel[k] < 1)
            return fe_err(c, n, "kernel_shape must be positive");
        if (a->kernel[k] > FE_MAX_WINDOW)
            return fe_err(c, n, "kernel_shape is absurdly large");
        if (a->pad_begin[k] >= a->kernel[k] || a->pad_end[k] >= a->kernel[k])
            return fe_err(c, n, "pads must be smaller than the kernel");
    }
    return 0;
}

static int pool_out(FeCtx *c, const FeNode *n, IrPoolAttr *a, FeAutoPad ap, int k, int64_t in,
                    int64_t *out)
{
    int64_t ek = (a->kernel[k] - 1) * a->dilation[k] + 1, s = a->stride[k];
    if (ap == FE_AP_SAME_UPPER || ap == FE_AP_SAME_LOWER) {
        int64_t o = (in + s - 1) / s;
        int64_t total = (o - 1) * s + ek - in;
        if (total < 0)
            total = 0;
        a->pad_begin[k] = ap == FE_AP_SAME_UPPER ? total / 2 : total - total / 2;
        a->pad_end[k] = total - a->pad_begin[k];
        *out = o;
        return 0;
    }
    if (ap == FE_AP_VALID)
        a->pad_begin[k] = a->pad_end[k] = 0;
    int64_t span = in + a->pad_begin[k] + a->pad_end[k] - ek;
    if (span < 0)
        return fe_err(c, n,
                      "window (%lld, dilated) is larger than the padded input (%lld) on spatial axis %d",
                      (long long)ek, (long long)(in + a->pad_begin[k] + a->pad_end[k]), k);
    int64_t o = (a->ceil_mode ? (span + s - 1) / s : span / s) + 1;
    /* with ceil_mode the last window must start inside the input or the
     * leading padding, never in the trailing padding alone */
    if (a->ceil_mode && (o - 1) * s >= in + a->pad_begin[k])
        o--;
    *out = o;
    return 0;
}

static int global_pool(FeCtx *c, FeNode *n, const IrTensor *x)
{
    int64_t od[IR_MAX_RANK];
    od[0] = x->dims[0];
    od[1] = x->dims[1];
    for (int k = 2; k < x->rank; k++)
        od[k] = 1;
    fe_set_out(n, 0, x->dtype, x->rank, od);
    (void)c;
    return 0;
}

FE_IMPORTER(fe_import_pool)
{
    bool global = n->op == IR_OP_GLOBAL_AVGPOOL || n->op == IR_OP_GLOBAL_MAXPOOL;
    if (fe_check_arity(c, n, 1, 1, 1, n->op == IR_OP_MAXPOOL ? 2 : 1) < 0)
        return -1;
    IrTensor *x = fe_need_in(c, n, 0, "X");
    if (!x)
        return -1;
    if (x->rank < 3 || x->rank > 2 + IR_MAX_SPATIAL)
        return fe_err(c, n, "input '%s' has rank %d; 3..%d expected (N, C, spatial...)", x->name,
                      x->rank, 2 + IR_MAX_SPATIAL);
    if (global)
        return global_pool(c, n, x);
    if (n->n_out > 1 && n->pb->output[1][0])
        return fe_err(c, n, "the Indices output of MaxPool is not supported");
    IrPoolAttr *a = &n->attr.pool;
    a->nsp = x->rank - 2;
    a->ceil_mode = fe_attr_int(c, n, "ceil_mode", 0) != 0;
    a->count_include_pad = fe_attr_int(c, n, "count_include_pad", 0) != 0;
    /* storage_order only concerns the Indices output, rejected above */
    FeAutoPad ap;
    if (fe_auto_pad(c, n, &ap) < 0 || window_attrs(c, n, a) < 0)
        return -1;
    int64_t od[IR_MAX_RANK] = {x->dims[0], x->dims[1]};
    for (int k = 0; k < a->nsp; k++)
        if (pool_out(c, n, a, ap, k, x->dims[2 + k], &od[2 + k]) < 0)
            return -1;
    fe_set_out(n, 0, x->dtype, x->rank, od);
    n->no_fold = true;
    return 0;
}
