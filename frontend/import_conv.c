/* import_conv.c - Conv and ConvTranspose: attribute checks, padding
 * resolution (explicit pads and auto_pad SAME_UPPER/SAME_LOWER/VALID), output
 * shapes, and the conv class the planner keys its engines on.
 *
 * Why pads are resolved here: after import, pad_begin/pad_end are the
 * explicit numbers whatever auto_pad said, so no later phase has to know
 * about auto_pad. */
#include "fe_internal.h"

#include <string.h>

/* strides, dilations, pads (shared with pools), then the kernel from the weight */
static int spatial_attrs(FeCtx *c, const FeNode *n, IrConvAttr *a)
{
    if (fe_window_attrs(c, n, a->nsp, a->stride, a->dilation, a->pad_begin, a->pad_end) < 0)
        return -1;
    for (int k = 0; k < a->nsp; k++) {
        if (a->kernel[k] > FE_MAX_WINDOW)
            return fe_err(c, n, "kernel, strides, dilations or pads are absurdly large");
        if (a->kernel[k] < 1)
            return fe_err(c, n, "the weight has an empty kernel axis");
    }
    return 0;
}

static int check_kernel_attr(FeCtx *c, const FeNode *n, const IrConvAttr *a)
{
    int64_t v[IR_MAX_SPATIAL];
    int cnt;
    if (fe_attr_ints(c, n, "kernel_shape", v, IR_MAX_SPATIAL, &cnt) < 0)
        return -1;
    if (cnt && cnt != a->nsp)
        return fe_err(c, n, "kernel_shape has %d values for %d spatial dims", cnt, a->nsp);
    for (int k = 0; k < cnt; k++)
        if (v[k] != a->kernel[k])
            return fe_err(c, n, "kernel_shape %lld on axis %d disagrees with the weight's %lld",
                          (long long)v[k], k, (long long)a->kernel[k]);
    return 0;
}

static IrConvClass conv_class(const IrConvAttr *a, int64_t cin, int64_t cout)
{
    bool ones = true;
    for (int k = 0; k < a->nsp; k++)
        ones &= a->kernel[k] == 1;
    if (a->group == 1)
        return ones ? IR_CONV_POINTWISE : IR_CONV_STANDARD;
    if (a->group == cin && cout % a->group == 0)
        return IR_CONV_DEPTHWISE;
    return IR_CONV_GROUPED;
}

/* Forward conv output size along one axis, padding resolved. */
static int conv_out(FeCtx *c, const FeNode *n, IrConvAttr *a, FeAutoPad ap, int k, int64_t in,
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
    } else if (ap == FE_AP_VALID) {
        a->pad_begin[k] = a->pad_end[k] = 0;
    }
    int64_t span = in + a->pad_begin[k] + a->pad_end[k] - ek;
    if (span < 0)
        return fe_err(c, n,
                      "kernel (%lld, dilated) is larger than the padded input (%lld) on spatial axis %d",
                      (long long)ek, (long long)(in + a->pad_begin[k] + a->pad_end[k]), k);
    *out = span / s + 1;
    return 0;
}

/* ConvTranspose output size along one axis; output_shape overrides and
 * turns into padding. */
static int convt_out(FeCtx *c, const FeNode *n, IrConvAttr *a, FeAutoPad ap, int k, int64_t in,
                     const int64_t *oshape, int64_t *out)
{
    int64_t ek = (a->kernel[k] - 1) * a->dilation[k] + 1, s = a->stride[k];
    int64_t full = s * (in - 1) + a->out_pad[k] + ek;
    int64_t want = -1;
    if (oshape)
        want = oshape[k];
    else if (ap == FE_AP_SAME_UPPER || ap == FE_AP_SAME_LOWER)
        want = in * s;
    if (want > full) {
        /* a larger requested output grows at the end, like output_padding */
        a->out_pad[k] += want - full;
        a->pad_begin[k] = a->pad_end[k] = 0;
        *out = want;
        return 0;
    }
    if (want >= 0) {
        int64_t total = full - want;
        /* the ONNX rule: SAME_UPPER puts the odd pixel at the end */
        a->pad_begin[k] = ap == FE_AP_SAME_UPPER ? total / 2 : total - total / 2;
        a->pad_end[k] = total - a->pad_begin[k];
    } else if (ap == FE_AP_VALID) {
        a->pad_begin[k] = a->pad_end[k] = 0;
    }
    *out = full - a->pad_begin[k] - a->pad_end[k];
    if (*out < 0)
        return fe_err(c, n, "padding larger than the output on spatial axis %d", k);
    return 0;
}

static int transpose_attrs(FeCtx *c, const FeNode *n, IrConvAttr *a, int64_t *oshape, bool *has_os)
{
    int64_t v[IR_MAX_RANK];
    int cnt;
    if (fe_attr_ints(c, n, "output_padding", v, IR_MAX_SPATIAL, &cnt) < 0)
        return -1;
    if (cnt && cnt != a->nsp)
        return fe_err(c, n, "output_padding has %d values for %d spatial dims", cnt, a->nsp);
    for (int k = 0; k < cnt; k++) {
        if (v[k] < 0 || v[k] > FE_MAX_WINDOW || (v[k] >= a->stride[k] && v[k] >= a->dilation[k]))
            return fe_err(c, n, "output_padding %lld must be smaller than the stride or dilation",
                          (long long)v[k]);
        a->out_pad[k] = v[k];
    }
    if (fe_attr_ints(c, n, "output_shape", v, IR_MAX_RANK, &cnt) < 0)
        return -1;
    *has_os = cnt > 0;
    if (cnt == a->nsp + 2)
        memmove(v, v + 2, sizeof(int64_t) * (size_t)a->nsp);
    else if (cnt && cnt != a->nsp)
        return fe_err(c, n, "output_shape has %d values for %d spatial dims", cnt, a->nsp);
    memcpy(oshape, v, sizeof(int64_t) * (size_t)a->nsp);
    return 0;
}

FE_IMPORTER(fe_import_conv)
{
    if (fe_check_arity(c, n, 2, 3, 1, 1) < 0)
        return -1;
    bool tr = n->op == IR_OP_CONV_TRANSPOSE;
    IrTensor *x = fe_need_in(c, n, 0, "X"), *w = fe_need_in(c, n, 1, "W"), *b = fe_in(c, n, 2);
    if (!x || !w)
        return -1;
    if (x->rank < 3 || x->rank > 2 + IR_MAX_SPATIAL)
        return fe_err(c, n, "input '%s' has rank %d; 3..%d expected (N, C, spatial...)", x->name,
                      x->rank, 2 + IR_MAX_SPATIAL);
    if (w->rank != x->rank)
        return fe_err(c, n, "weight '%s' has rank %d, input has rank %d", w->name, w->rank, x->rank);
    IrConvAttr *a = &n->attr.conv;
    a->nsp = x->rank - 2;
    for (int k = 0; k < a->nsp; k++)
        a->kernel[k] = w->dims[2 + k];
    a->group = fe_attr_int(c, n, "group", 1);
    FeAutoPad ap;
    if (fe_auto_pad(c, n, &ap) < 0 || spatial_attrs(c, n, a) < 0 || check_kernel_attr(c, n, a) < 0)
        return -1;
    int64_t cin = x->dims[1], g = a->group;
    if (w->dims[0] < 1 || w->dims[1] < 1)
        return fe_err(c, n, "weight '%s' has no channels", w->name);
    if (g < 1 || g > cin || cin % g)
        return fe_err(c, n, "group %lld does not divide the %lld input channels", (long long)g,
                      (long long)cin);
    int64_t cout = tr ? w->dims[1] * g : w->dims[0];
    if (tr ? w->dims[0] != cin : w->dims[1] * g != cin)
        return fe_err(c, n, "weight '%s' expects %lld input channels (group %lld), input has %lld",
                      w->name, (long long)(tr ? w->dims[0] : w->dims[1] * g), (long long)g,
                      (long long)cin);
    if (!tr && cout % g)
        return fe_err(c, n, "group %lld does not divide the %lld output channels", (long long)g,
                      (long long)cout);
    if (b && (b->rank != 1 || b->dims[0] != cout))
        return fe_err(c, n, "bias '%s' must have shape [%lld]", b->name, (long long)cout);
    int64_t od[IR_MAX_RANK] = {x->dims[0], cout}, oshape[IR_MAX_RANK];
    bool has_os = false;
    if (tr && transpose_attrs(c, n, a, oshape, &has_os) < 0)
        return -1;
    for (int k = 0; k < a->nsp; k++) {
        int r = tr ? convt_out(c, n, a, ap, k, x->dims[2 + k], has_os ? oshape : NULL, &od[2 + k])
                   : conv_out(c, n, a, ap, k, x->dims[2 + k], &od[2 + k]);
        if (r < 0)
            return -1;
    }
    a->cls = conv_class(a, cin, cout);
    fe_set_out(n, 0, x->dtype, x->rank, od);
    n->no_fold = true;
    return 0;
}
