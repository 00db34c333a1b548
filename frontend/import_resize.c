/* import_resize.c - Resize (opsets 10, 11-12, 13-17, 18+) and Upsample
 * (scales attribute before opset 9, input after).
 *
 * Why: across these versions the target is given as scales or sizes, for
 * all axes or (18+) a subset, with an aspect-ratio policy; the IR keeps one
 * form: the output shape plus the per-axis scale used to map coordinates,
 * with the coordinate transformation and rounding modes spelled out
 * (Resize-10 and Upsample behave as asymmetric / floor). Variants the IR
 * cannot express (tf_crop_and_resize's roi, exclude_outside, antialias) are
 * rejected by name. */
#include "fe_internal.h"

#include <math.h>
#include <string.h>

static int parse_mode(FeCtx *c, const FeNode *n, IrResizeMode *m)
{
    const char *s = fe_attr_str(c, n, "mode", "nearest");
    if (!strcmp(s, "nearest"))
        *m = IR_RESIZE_NEAREST;
    else if (!strcmp(s, "linear") || !strcmp(s, "bilinear"))
        *m = IR_RESIZE_LINEAR;
    else if (!strcmp(s, "cubic") && n->op == IR_OP_RESIZE && n->opset >= 11)
        *m = IR_RESIZE_CUBIC;
    else
        return fe_err(c, n, "unknown mode '%s'", s);
    return 0;
}

static int parse_coord(FeCtx *c, const FeNode *n, IrResizeAttr *a)
{
    static const struct {
        const char *name;
        IrCoordMode mode;
    } coords[] = {
        {"half_pixel", IR_CT_HALF_PIXEL}, {"asymmetric", IR_CT_ASYMMETRIC},
        {"align_corners", IR_CT_ALIGN_CORNERS}, {"pytorch_half_pixel", IR_CT_PYTORCH_HALF_PIXEL},
        {"half_pixel_symmetric", IR_CT_HALF_PIXEL_SYMMETRIC},
    };
    static const struct {
        const char *name;
        IrNearestMode mode;
    } nearest[] = {
        {"round_prefer_floor", IR_NEAREST_ROUND_PREFER_FLOOR},
        {"round_prefer_ceil", IR_NEAREST_ROUND_PREFER_CEIL},
        {"floor", IR_NEAREST_FLOOR}, {"ceil", IR_NEAREST_CEIL},
    };
    const char *s = fe_attr_str(c, n, "coordinate_transformation_mode", "half_pixel");
    size_t i;
    for (i = 0; i < sizeof coords / sizeof coords[0] && strcmp(s, coords[i].name); i++)
        ;
    if (i == sizeof coords / sizeof coords[0])
        return fe_err(c, n, "coordinate_transformation_mode '%s' is not supported", s);
    a->coord = coords[i].mode;
    s = fe_attr_str(c, n, "nearest_mode", "round_prefer_floor");
    for (i = 0; i < sizeof nearest / sizeof nearest[0] && strcmp(s, nearest[i].name); i++)
        ;
    if (i == sizeof nearest / sizeof nearest[0])
        return fe_err(c, n, "nearest_mode '%s' is not supported", s);
    a->nearest = nearest[i].mode;
    a->cubic_a = fe_attr_float(c, n, "cubic_coeff_a", -0.75f);
    if (fe_attr_int(c, n, "exclude_outside", 0) != 0)
        return fe_err(c, n, "exclude_outside=1 is not supported");
    if (fe_attr_int(c, n, "antialias", 0) != 0)
        return fe_err(c, n, "antialias=1 is not supported");
    return 0;
}

/* A constant input counts as absent when omitted or empty. */
static bool given(FeCtx *c, const FeNode *n, int i)
{
    IrTensor *t = fe_in(c, n, i);
    return t && !(t->kind == IR_T_CONST && ir_tensor_numel(t) == 0);
}

/* The resized axes: all, or the (18+) axes attribute. */
static int resize_axes(FeCtx *c, const FeNode *n, const IrTensor *x, int64_t *axes)
{
    int cnt = 0;
    if (n->op == IR_OP_RESIZE && n->opset >= 18 && fe_attr(n, "axes")) {
        if (fe_attr_ints(c, n, "axes", axes, IR_MAX_RANK, &cnt) < 0)
            return -1;
        for (int i = 0; i < cnt; i++)
            if (fe_axis(c, n, axes[i], x->rank, &axes[i]) < 0)
                return -1;
        return cnt;
    }
    for (int k = 0; k < x->rank; k++)
        axes[k] = k;
    return x->rank;
}

static int from_scales(FeCtx *c, FeNode *n, const IrTensor *x, const double *sc, int cnt,
                       const int64_t *axes, int na, int64_t *od)
{
    IrResizeAttr *a = &n->attr.resize;
    if (cnt != na)
        return fe_err(c, n, "scales has %d values for %d axes", cnt, na);
    for (int i = 0; i < na; i++) {
        if (!(sc[i] > 0) || sc[i] > 1e6)
            return fe_err(c, n, "scale %g is not a positive factor", sc[i]);
        int k = (int)axes[i];
        a->scale[k] = (float)sc[i];
        od[k] = (int64_t)floor((double)x->dims[k] * (double)(float)sc[i]);
    }
    return 0;
}

static int aspect_policy(FeCtx *c, const FeNode *n, int *pol)
{
    const char *s = fe_attr_str(c, n, "keep_aspect_ratio_policy", "stretch");
    *pol = !strcmp(s, "stretch") ? 0 : !strcmp(s, "not_larger") ? 1 : !strcmp(s, "not_smaller") ? 2 : -1;
    if (*pol < 0)
        return fe_err(c, n, "keep_aspect_ratio_policy '%s' is not supported", s);
    return 0;
}

static int from_sizes(FeCtx *c, FeNode *n, const IrTensor *x, const int64_t *sz, int cnt,
                      const int64_t *axes, int na, int64_t *od)
{
    IrResizeAttr *a = &n->attr.resize;
    int pol = 0;
    if (cnt != na)
        return fe_err(c, n, "sizes has %d values for %d axes", cnt, na);
    if (n->opset >= 18 && aspect_policy(c, n, &pol) < 0)
        return -1;
    double common = pol == 1 ? INFINITY : 0;
    for (int i = 0; i < na; i++) {
        int k = (int)axes[i];
        if (sz[i] < 0 || sz[i] > FE_MAX_TENSOR_BYTES || x->dims[k] == 0)
            return fe_err(c, n, "size %lld for an axis of %lld is invalid", (long long)sz[i],
                          (long long)x->dims[k]);
        double s = (double)sz[i] / (double)x->dims[k];
        common = pol == 1 ? fmin(common, s) : fmax(common, s);
        od[k] = sz[i];
        a->scale[k] = (float)s;
    }
    for (int i = 0; pol && i < na; i++) {
        int k = (int)axes[i];
        od[k] = (int64_t)floor(common * (double)x->dims[k] + 0.5);
        a->scale[k] = (float)common;
    }
    return 0;
}

/* Upsample and Resize-10: scales only (attribute or input 1). */
static int scales_only(FeCtx *c, FeNode *n, const IrTensor *x, int64_t *od)
{
    double sc[IR_MAX_RANK];
    int cnt;
    int64_t axes[IR_MAX_RANK];
    int na = resize_axes(c, n, x, axes);
    if (n->op == IR_OP_UPSAMPLE && n->opset < 9) {
        float f[IR_MAX_RANK];
        if (fe_check_arity(c, n, 1, 1, 1, 1) < 0)
            return -1;
        if (fe_attr_floats(c, n, "scales", f, IR_MAX_RANK, &cnt) <= 0)
            return fe_err(c, n, "attribute 'scales' is required");
        for (int i = 0; i < cnt; i++)
            sc[i] = f[i];
    } else {
        if (fe_check_arity(c, n, 2, 2, 1, 1) < 0 ||
            (cnt = fe_const_floats(c, n, 1, "scales", sc, IR_MAX_RANK)) < 0)
            return -1;
    }
    n->attr.resize.coord = IR_CT_ASYMMETRIC;
    n->attr.resize.nearest = IR_NEAREST_FLOOR;
    n->n_keep = 1;
    return from_scales(c, n, x, sc, cnt, axes, na, od);
}

FE_IMPORTER(fe_import_resize)
{
    IrTensor *x = fe_need_in(c, n, 0, "X");
    if (!x)
        return -1;
    IrResizeAttr *a = &n->attr.resize;
    for (int k = 0; k < IR_MAX_RANK; k++)
        a->scale[k] = 1.0f;
    a->cubic_a = -0.75f;
    int64_t od[IR_MAX_RANK];
    memcpy(od, x->dims, sizeof od);
    if (parse_mode(c, n, &a->mode) < 0)
        return -1;
    if (n->op == IR_OP_UPSAMPLE || n->opset < 11) {
        if (scales_only(c, n, x, od) < 0)
            return -1;
    } else {
        if (fe_check_arity(c, n, 1, 4, 1, 1) < 0 || parse_coord(c, n, a) < 0)
            return -1;
        int64_t axes[IR_MAX_RANK];
        int na = resize_axes(c, n, x, axes);
        if (na < 0)
            return -1;
        bool has_s = given(c, n, 2), has_z = given(c, n, 3);
        if (has_s == has_z)
            return fe_err(c, n, "exactly one of scales and sizes must be given");
        if (has_s) {
            double sc[IR_MAX_RANK];
            int cnt = fe_const_floats(c, n, 2, "scales", sc, IR_MAX_RANK);
            if (cnt < 0 || from_scales(c, n, x, sc, cnt, axes, na, od) < 0)
                return -1;
        } else {
            int64_t sz[IR_MAX_RANK];
            int cnt = fe_const_ints(c, n, 3, "sizes", sz, IR_MAX_RANK);
            if (cnt < 0 || from_sizes(c, n, x, sz, cnt, axes, na, od) < 0)
                return -1;
        }
        n->n_keep = 1;
    }
    fe_set_out(n, 0, x->dtype, x->rank, od);
    n->no_fold = true;
    return 0;
}
