/* import_shape.c - layout and shape ops: Flatten, Reshape, Squeeze,
 * Unsqueeze, Identity, Dropout, Transpose, Concat, Split, Slice, Pad,
 * Gather, Expand, Cast (and, in import_shape_const.c, the compile-time
 * Shape, Constant, ConstantOfShape, Range).
 *
 * Why this file is the biggest importer: these are the ops whose
 * parameters moved from attributes to inputs across opsets (Squeeze,
 * Unsqueeze, Split, Slice, Pad) and whose output shape depends on values
 * (Reshape's 0 and -1, Slice's clamping). Every such parameter must be a
 * constant once shapes are bound; it is resolved into attr and dropped
 * from the layer's inputs. */
#include "fe_internal.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ Flatten */

static int flatten(FeCtx *c, FeNode *n, const IrTensor *x)
{
    int64_t axis = fe_attr_int(c, n, "axis", 1);
    if (axis < -x->rank || axis > x->rank)
        return fe_err(c, n, "axis %lld out of range for rank %d", (long long)axis, x->rank);
    if (axis < 0)
        axis += x->rank;
    int64_t od[2] = {1, 1};
    for (int k = 0; k < x->rank; k++)
        od[k < axis ? 0 : 1] *= x->dims[k];
    n->attr.axis.axis = axis;
    fe_set_out(n, 0, x->dtype, 2, od);
    return 0;
}

/* ------------------------------------------------------------ Reshape */

static int reshape(FeCtx *c, FeNode *n, const IrTensor *x)
{
    if (fe_check_arity(c, n, 2, 2, 1, 1) < 0)
        return -1;
    int64_t sh[IR_MAX_RANK];
    int r = fe_const_ints(c, n, 1, "shape", sh, IR_MAX_RANK);
    if (r < 0)
        return -1;
    bool allowzero = fe_attr_int(c, n, "allowzero", 0) != 0;
    int minus = -1;
    int64_t known = 1, total = ir_tensor_numel(x);
    for (int k = 0; k < r; k++) {
        if (sh[k] == -1) {
            if (minus >= 0)
                return fe_err(c, n, "shape has more than one -1");
            minus = k;
            continue;
        }
        if (sh[k] < -1)
            return fe_err(c, n, "shape has invalid value %lld", (long long)sh[k]);
        if (sh[k] == 0 && !allowzero) {
            if (k >= x->rank)
                return fe_err(c, n, "shape copies axis %d (0) but the input has rank %d", k, x->rank);
            sh[k] = x->dims[k];
        }
        if (sh[k] && known > FE_MAX_TENSOR_BYTES / sh[k])
            return fe_err(c, n, "shape is absurdly large");
        known *= sh[k];
    }
    if (minus >= 0) {
        if (known == 0 || total % known)
            return fe_err(c, n, "cannot infer the -1 dimension: %lld elements into blocks of %lld",
                          (long long)total, (long long)known);
        sh[minus] = total / known;
        known = total;
    }
    if (known != total)
        return fe_err(c, n, "cannot reshape %lld elements of '%s' into %lld", (long long)total,
                      x->name, (long long)known);
    fe_set_out(n, 0, x->dtype, r, sh);
    n->n_keep = 1;
    return 0;
}

/* -------------------------------------------------- Squeeze / Unsqueeze */

/* axes from the attribute (before opset 13) or the optional input. */
static int get_axes(FeCtx *c, FeNode *n, int64_t *axes, int max, bool *given)
{
    int cnt = 0;
    *given = false;
    if (n->opset < 13) {
        int r = fe_attr_ints(c, n, "axes", axes, max, &cnt);
        if (r < 0)
            return -1;
        *given = r > 0;
        return cnt;
    }
    if (!fe_has_in(n, 1))
        return 0;
    *given = true;
    return fe_const_ints(c, n, 1, "axes", axes, max);
}

static int sort_unique_axes(FeCtx *c, const FeNode *n, int64_t *axes, int cnt, int rank)
{
    for (int i = 0; i < cnt; i++)
        if (fe_axis(c, n, axes[i], rank, &axes[i]) < 0)
            return -1;
    for (int i = 1; i < cnt; i++) /* insertion sort, tiny */
        for (int j = i; j > 0 && axes[j - 1] > axes[j]; j--) {
            int64_t t = axes[j];
            axes[j] = axes[j - 1];
            axes[j - 1] = t;
        }
    for (int i = 1; i < cnt; i++)
        if (axes[i] == axes[i - 1])
            return fe_err(c, n, "axis %lld is listed twice", (long long)axes[i]);
    return 0;
}

static int squeeze(FeCtx *c, FeNode *n, const IrTensor *x)
{
    if (fe_check_arity(c, n, 1, n->opset < 13 ? 1 : 2, 1, 1) < 0)
        return -1;
    IrAxesAttr *a = &n->attr.axes;
    bool given;
    int cnt = get_axes(c, n, a->perm, IR_MAX_RANK, &given);
    if (cnt < 0 || sort_unique_axes(c, n, a->perm, cnt, x->rank) < 0)
        return -1;
    if (cnt == 0)
        for (int k = 0; k < x->rank; k++)
            if (x->dims[k] == 1)
                a->perm[cnt++] = k;
    a->n = cnt;
    int64_t od[IR_MAX_RANK];
    int r = 0, j = 0;
    for (int k = 0; k < x->rank; k++) {
        if (j < cnt && a->perm[j] == k) {
            if (x->dims[k] != 1)
                return fe_err(c, n, "cannot squeeze axis %d of size %lld", k, (long long)x->dims[k]);
            j++;
            continue;
        }
        od[r++] = x->dims[k];
    }
    fe_set_out(n, 0, x->dtype, r, od);
    n->n_keep = 1;
    return 0;
}

static int unsqueeze(FeCtx *c, FeNode *n, const IrTensor *x)
{
    if (fe_check_arity(c, n, 1, n->opset < 13 ? 1 : 2, 1, 1) < 0)
        return -1;
    IrAxesAttr *a = &n->attr.axes;
    bool given;
    int cnt = get_axes(c, n, a->perm, IR_MAX_RANK, &given);
    if (cnt < 0)
        return -1;
    if (!given)
        return fe_err(c, n, "axes are required");
    int r = x->rank + cnt;
    if (r > IR_MAX_RANK)
        return fe_err(c, n, "result rank %d exceeds %d", r, IR_MAX_RANK);
    if (sort_unique_axes(c, n, a->perm, cnt, r) < 0)
        return -1;
    a->n = cnt;
    int64_t od[IR_MAX_RANK];
    for (int k = 0, j = 0, i = 0; k < r; k++)
        od[k] = (j < cnt && a->perm[j] == k) ? (j++, 1) : x->dims[i++];
    fe_set_out(n, 0, x->dtype, r, od);
    n->n_keep = 1;
    return 0;
}

/* ---------------------------------------------------- Identity, Dropout */

static int dropout(FeCtx *c, FeNode *n, const IrTensor *x)
{
    if (fe_check_arity(c, n, 1, n->opset < 12 ? 1 : 3, 1, 2) < 0)
        return -1;
    if (fe_has_in(n, 2)) {
        int64_t tm;
        int k = fe_const_ints(c, n, 2, "training_mode", &tm, 1);
        if (k < 0)
            return -1;
        if (k != 1)
            return fe_err(c, n, "training_mode must be a scalar");
        if (tm)
            return fe_err(c, n, "training_mode is true; only inference is supported");
    }
    fe_out_like(n, 0, x);
    if (n->n_out > 1 && n->pb->output[1][0]) {
        /* in inference the mask keeps everything */
        IrDType mdt = n->opset < 10 ? x->dtype : IR_DT_BOOL;
        if (ir_tensor_numel(x) * (int64_t)ir_dtype_size(mdt) > FE_CONST_MAX_BYTES)
            return fe_err(c, n, "the mask output is too large to create at compile time");
        void *data;
        int t = fe_const_new(c, n->pb->output[1], mdt, x->rank, x->dims, &data);
        int64_t ne = ir_tensor_numel(x);
        for (int64_t i = 0; i < ne; i++)
            fe_store_i(mdt, data, i, 1);
        n->out_t[1] = t;
    }
    n->n_keep = 1;
    return 0;
}

/* ---------------------------------------------------------- Transpose */

static int transpose(FeCtx *c, FeNode *n, const IrTensor *x)
{
    IrAxesAttr *a = &n->attr.axes;
    int cnt = 0;
    if (fe_attr_ints(c, n, "perm", a->perm, IR_MAX_RANK, &cnt) < 0)
        return -1;
    if (cnt == 0) {
        cnt = x->rank;
        for (int k = 0; k < cnt; k++)
            a->perm[k] = cnt - 1 - k;
    }
    if (cnt != x->rank)
        return fe_err(c, n, "perm has %d entries for rank %d", cnt, x->rank);
    bool seen[IR_MAX_RANK] = {false};
    int64_t od[IR_MAX_RANK];
    for (int k = 0; k < cnt; k++) {
        if (a->perm[k] < 0 || a->perm[k] >= cnt || seen[a->perm[k]])
            return fe_err(c, n, "perm is not a permutation of 0..%d", cnt - 1);
        seen[a->perm[k]] = true;
        od[k] = x->dims[a->perm[k]];
    }
    a->n = cnt;
    fe_set_out(n, 0, x->dtype, cnt, od);
    return 0;
}

/* ------------------------------------------------------------- Concat */

static int concat(FeCtx *c, FeNode *n, const IrTensor *x)
{
    if (fe_check_arity(c, n, 1, IR_MAX_IO, 1, 1) < 0)
        return -1;
    const Onnx__AttributeProto *aa = fe_attr(n, "axis");
    if (!aa)
        return fe_err(c, n, "attribute 'axis' is required");
    int64_t axis;
    if (fe_axis(c, n, fe_attr_int(c, n, "axis", 0), x->rank, &axis) < 0)
        return -1;
    int64_t od[IR_MAX_RANK];
    memcpy(od, x->dims, sizeof od);
    for (int i = 1; i < n->n_in; i++) {
        IrTensor *t = fe_need_in(c, n, i, "input");
        if (!t)
            return -1;
        if (t->rank != x->rank || t->dtype != x->dtype)
            return fe_err(c, n, "input '%s' (%s, rank %d) does not match '%s' (%s, rank %d)",
                          t->name, ir_dtype_name(t->dtype), t->rank, x->name,
                          ir_dtype_name(x->dtype), x->rank);
        for (int k = 0; k < x->rank; k++)
            if (k != axis && t->dims[k] != x->dims[k])
                return fe_err(c, n, "input '%s' has %lld on axis %d, '%s' has %lld", t->name,
                              (long long)t->dims[k], k, x->name, (long long)x->dims[k]);
        od[axis] += t->dims[axis];
    }
    n->attr.axis.axis = axis;
    fe_set_out(n, 0, x->dtype, x->rank, od);
    return 0;
}

/* -------------------------------------------------------------- Split */

static int split_sizes(FeCtx *c, FeNode *n, int64_t dim, int64_t *sz)
{
    int cnt = 0;
    if (n->opset < 13) {
        if (fe_attr_ints(c, n, "split", sz, IR_MAX_IO, &cnt) < 0)
            return -1;
    } else if (fe_has_in(n, 1)) {
        cnt = fe_const_ints(c, n, 1, "split", sz, IR_MAX_IO);
        if (cnt < 0)
            return -1;
    }
    if (cnt) {
        if (cnt != n->n_out)
            return fe_err(c, n, "split has %d sizes for %d outputs", cnt, n->n_out);
        int64_t sum = 0;
        for (int i = 0; i < cnt; i++) {
            if (sz[i] < 0 || sz[i] > dim)
                return fe_err(c, n, "split size %lld does not fit an axis of %lld",
                              (long long)sz[i], (long long)dim);
            sum += sz[i];
        }
        if (sum != dim)
            return fe_err(c, n, "split sizes add up to %lld, the axis has %lld", (long long)sum,
                          (long long)dim);
        return 0;
    }
    int64_t parts = n->n_out;
    const Onnx__AttributeProto *no = n->opset >= 18 ? fe_attr(n, "num_outputs") : NULL;
    if (no) {
        parts = fe_attr_int(c, n, "num_outputs", n->n_out);
        if (parts != n->n_out)
            return fe_err(c, n, "num_outputs %lld differs from the %d outputs", (long long)parts,
                          n->n_out);
        int64_t chunk = (dim + parts - 1) / parts;
        for (int i = 0; i < parts; i++) {
            int64_t left = dim - chunk * i;
            sz[i] = left < 0 ? 0 : left < chunk ? left : chunk;
        }
        return 0;
    }
    if (dim % parts)
        return fe_err(c, n, "axis of size %lld does not split evenly into %lld outputs",
                      (long long)dim, (long long)parts);
    for (int i = 0; i < parts; i++)
        sz[i] = dim / parts;
    return 0;
}

static int split(FeCtx *c, FeNode *n, const IrTensor *x)
{
    if (fe_check_arity(c, n, 1, n->opset < 13 ? 1 : 2, 1, IR_MAX_IO) < 0)
        return -1;
    int64_t axis;
    if (fe_axis(c, n, fe_attr_int(c, n, "axis", 0), x->rank, &axis) < 0)
        return -1;
    int64_t *sz = ir_alloc(c->g, sizeof(int64_t) * IR_MAX_IO);
    if (split_sizes(c, n, x->dims[axis], sz) < 0)
        return -1;
    n->attr.axis = (IrAxisAttr){.axis = axis, .n_split = n->n_out, .split = sz};
    for (int i = 0; i < n->n_out; i++) {
        fe_out_like(n, i, x);
        n->out[i].dims[axis] = sz[i];
    }
    n->n_keep = 1;
    return 0;
}

/* -------------------------------------------------------------- Slice */

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int slice_params(FeCtx *c, FeNode *n, const IrTensor *x, int64_t *st, int64_t *en,
                        int64_t *ax, int64_t *sp, int *cnt)
{
    int ns, ne, na = -1, nst = -1;
    if (n->opset < 10) {
        if (fe_check_arity(c, n, 1, 1, 1, 1) < 0 ||
            fe_attr_ints(c, n, "starts", st, IR_MAX_RANK, &ns) < 0 ||
            fe_attr_ints(c, n, "ends", en, IR_MAX_RANK, &ne) < 0 ||
            fe_attr_ints(c, n, "axes", ax, IR_MAX_RANK, &na) < 0)
            return -1;
        if (!fe_attr(n, "axes"))
            na = -1;
    } else {
        if (fe_check_arity(c, n, 3, 5, 1, 1) < 0)
            return -1;
        if ((ns = fe_const_ints(c, n, 1, "starts", st, IR_MAX_RANK)) < 0 ||
            (ne = fe_const_ints(c, n, 2, "ends", en, IR_MAX_RANK)) < 0)
            return -1;
        if (fe_has_in(n, 3) && (na = fe_const_ints(c, n, 3, "axes", ax, IR_MAX_RANK)) < 0)
            return -1;
        if (fe_has_in(n, 4) && (nst = fe_const_ints(c, n, 4, "steps", sp, IR_MAX_RANK)) < 0)
            return -1;
    }
    if (ns != ne || (na >= 0 && na != ns) || (nst >= 0 && nst != ns))
        return fe_err(c, n, "starts, ends, axes and steps must have the same length");
    if (ns > x->rank)
        return fe_err(c, n, "slices %d axes of a rank-%d input", ns, x->rank);
    for (int i = 0; i < ns; i++) {
        if (na < 0)
            ax[i] = i;
        if (nst < 0)
            sp[i] = 1;
    }
    *cnt = ns;
    return 0;
}

static int slice(FeCtx *c, FeNode *n, const IrTensor *x)
{
    IrSliceAttr *a = &n->attr.slice;
    int cnt = 0;
    if (slice_params(c, n, x, a->starts, a->ends, a->axes, a->steps, &cnt) < 0)
        return -1;
    int64_t od[IR_MAX_RANK];
    memcpy(od, x->dims, sizeof od);
    bool seen[IR_MAX_RANK] = {false};
    for (int i = 0; i < cnt; i++) {
        if (fe_axis(c, n, a->axes[i], x->rank, &a->axes[i]) < 0)
            return -1;
        if (seen[a->axes[i]])
            return fe_err(c, n, "axis %lld is sliced twice", (long long)a->axes[i]);
        seen[a->axes[i]] = true;
        int64_t d = x->dims[a->axes[i]], s = a->steps[i], b = a->starts[i], e = a->ends[i];
        if (s == 0)
            return fe_err(c, n, "steps must not be 0");
        /* a step beyond the axis takes one element either way; bounding it
         * keeps the arithmetic below from overflowing */
        if (s > d + 1)
            s = d + 1;
        if (s < -(d + 1))
            s = -(d + 1);
        a->steps[i] = s;
        if (b < 0)
            b += d;
        if (e < 0)
            e += d;
        if (s > 0) {
            b = clamp64(b, 0, d);
            e = clamp64(e, 0, d);
            od[a->axes[i]] = e > b ? (e - b - 1) / s + 1 : 0;
        } else {
            b = clamp64(b, 0, d - 1);
            e = clamp64(e, -1, d - 1);
            od[a->axes[i]] = b > e ? (b - e - 1) / (-s) + 1 : 0;
        }
        if (d == 0)
            b = e = 0;
        a->starts[i] = b;
        a->ends[i] = e;
    }
    a->n = cnt;
    fe_set_out(n, 0, x->dtype, x->rank, od);
    n->n_keep = 1;
    return 0;
}

/* ---------------------------------------------------------------- Pad */

static int pad_mode(FeCtx *c, FeNode *n, IrPadMode *m)
{
    const char *s = fe_attr_str(c, n, "mode", "constant");
    if (!strcmp(s, "constant"))
        *m = IR_PAD_CONSTANT;
    else if (!strcmp(s, "reflect"))
        *m = IR_PAD_REFLECT;
    else if (!strcmp(s, "edge"))
        *m = IR_PAD_EDGE;
    else
        return fe_err(c, n, "pad mode '%s' is not supported (constant, reflect, edge)", s);
    return 0;
}

static int pad_amounts(FeCtx *c, FeNode *n, const IrTensor *x, int64_t *pads, int *np, int64_t *axes,
                       int *na)
{
    *na = -1;
    if (n->opset < 11) {
        if (fe_check_arity(c, n, 1, 1, 1, 1) < 0 ||
            fe_attr_ints(c, n, "pads", pads, 2 * IR_MAX_RANK, np) < 0)
            return -1;
        if (!fe_attr(n, "pads"))
            return fe_err(c, n, "attribute 'pads' is required");
        n->attr.pad.value = fe_attr_float(c, n, "value", 0.0f);
        return 0;
    }
    if (fe_check_arity(c, n, 2, n->opset >= 18 ? 4 : 3, 1, 1) < 0)
        return -1;
    if ((*np = fe_const_ints(c, n, 1, "pads", pads, 2 * IR_MAX_RANK)) < 0)
        return -1;
    if (fe_has_in(n, 2)) {
        double v = 0;
        int k = fe_const_floats(c, n, 2, "constant_value", &v, 1);
        if (k < 0)
            return -1;
        n->attr.pad.value = (float)v;
    }
    if (fe_has_in(n, 3)) {
        if ((*na = fe_const_ints(c, n, 3, "axes", axes, IR_MAX_RANK)) < 0)
            return -1;
        for (int i = 0; i < *na; i++)
            if (fe_axis(c, n, axes[i], x->rank, &axes[i]) < 0)
                return -1;
    }
    return 0;
}

static int pad(FeCtx *c, FeNode *n, const IrTensor *x)
{
    IrPadAttr *a = &n->attr.pad;
    int64_t pads[2 * IR_MAX_RANK], axes[IR_MAX_RANK];
    int np, na;
    if (pad_mode(c, n, &a->mode) < 0 || pad_amounts(c, n, x, pads, &np, axes, &na) < 0)
        return -1;
    int nax = na >= 0 ? na : x->rank;
    if (np != 2 * nax)
        return fe_err(c, n, "pads has %d values; %d expected", np, 2 * nax);
    for (int i = 0; i < nax; i++) {
        int k = na >= 0 ? (int)axes[i] : i;
        if (pads[i] > FE_MAX_TENSOR_BYTES || pads[i] < -FE_MAX_TENSOR_BYTES ||
            pads[i + nax] > FE_MAX_TENSOR_BYTES || pads[i + nax] < -FE_MAX_TENSOR_BYTES)
            return fe_err(c, n, "pads are absurdly large");
        a->begin[k] = pads[i];
        a->end[k] = pads[i + nax];
    }
    int64_t od[IR_MAX_RANK];
    for (int k = 0; k < x->rank; k++) {
        od[k] = x->dims[k] + a->begin[k] + a->end[k];
        if (od[k] < 0)
            return fe_err(c, n, "negative pads remove more than axis %d holds", k);
        if (a->mode == IR_PAD_REFLECT && (a->begin[k] >= x->dims[k] || a->end[k] >= x->dims[k]) &&
            (a->begin[k] > 0 || a->end[k] > 0))
            return fe_err(c, n, "reflect padding of %lld/%lld on axis %d needs more than %lld elements",
                          (long long)a->begin[k], (long long)a->end[k], k, (long long)x->dims[k]);
        if (a->mode == IR_PAD_EDGE && x->dims[k] == 0 && (a->begin[k] > 0 || a->end[k] > 0))
            return fe_err(c, n, "edge padding of an empty axis %d", k);
    }
    fe_set_out(n, 0, x->dtype, x->rank, od);
    n->n_keep = 1;
    return 0;
}

/* ------------------------------------------------------------- Gather */

static int gather(FeCtx *c, FeNode *n, const IrTensor *x)
{
    if (fe_check_arity(c, n, 2, 2, 1, 1) < 0)
        return -1;
    IrTensor *ix = fe_need_in(c, n, 1, "indices");
    if (!ix)
        return -1;
    if (ix->dtype != IR_DT_INT32 && ix->dtype != IR_DT_INT64)
        return fe_err(c, n, "indices '%s' must be int32 or int64", ix->name);
    if (x->rank < 1)
        return fe_err(c, n, "data '%s' must have rank >= 1", x->name);
    int64_t axis;
    if (fe_axis(c, n, fe_attr_int(c, n, "axis", 0), x->rank, &axis) < 0)
        return -1;
    int r = x->rank - 1 + ix->rank;
    if (r > IR_MAX_RANK)
        return fe_err(c, n, "result rank %d exceeds %d", r, IR_MAX_RANK);
    if (ix->kind == IR_T_CONST) {
        const void *p = ir_tensor_data(c->g, n->in[1]);
        int64_t ni = ir_tensor_numel(ix), d = x->dims[axis];
        for (int64_t i = 0; i < ni; i++) {
            int64_t v = fe_elem_i(ix->dtype, p, i);
            if (v < -d || v >= d)
                return fe_err(c, n, "index %lld out of range for axis %lld of size %lld",
                              (long long)v, (long long)axis, (long long)d);
        }
    }
    int64_t od[IR_MAX_RANK];
    int k = 0;
    for (int i = 0; i < axis; i++)
        od[k++] = x->dims[i];
    for (int i = 0; i < ix->rank; i++)
        od[k++] = ix->dims[i];
    for (int i = (int)axis + 1; i < x->rank; i++)
        od[k++] = x->dims[i];
    n->attr.axis.axis = axis;
    fe_set_out(n, 0, x->dtype, r, od);
    return 0;
}

/* ------------------------------------------------------- Expand, Cast */

static int expand(FeCtx *c, FeNode *n, const IrTensor *x)
{
    if (fe_check_arity(c, n, 2, 2, 1, 1) < 0)
        return -1;
    IrTensor s = {.name = "shape"};
    int r = fe_const_ints(c, n, 1, "shape", s.dims, IR_MAX_RANK);
    if (r < 0)
        return -1;
    s.rank = r;
    for (int k = 0; k < r; k++)
        if (s.dims[k] < 0)
            return fe_err(c, n, "shape has negative value %lld", (long long)s.dims[k]);
    IrTensor o;
    if (fe_broadcast(c, n, x, &s, &o) < 0)
        return -1;
    fe_set_out(n, 0, x->dtype, o.rank, o.dims);
    n->n_keep = 1;
    return 0;
}

static int cast(FeCtx *c, FeNode *n, const IrTensor *x)
{
    if (!fe_attr(n, "to"))
        return fe_err(c, n, "attribute 'to' is required");
    int64_t to = fe_attr_int(c, n, "to", 0);
    if (to < 0 || to > 100 || ir_dtype_size((IrDType)to) == 0)
        return fe_err(c, n, "cast to data type %lld is not supported", (long long)to);
    n->attr.cast.to = (IrDType)to;
    fe_set_out(n, 0, (IrDType)to, x->rank, x->dims);
    return 0;
}

/* ----------------------------------------------------------- dispatch */

FE_IMPORTER(fe_import_shape)
{
    switch (n->op) {
    case IR_OP_CONSTANT: return fe_import_constant(c, n);
    case IR_OP_SHAPE: return fe_import_shape_of(c, n);
    case IR_OP_CONSTANT_OF_SHAPE: return fe_import_constant_of_shape(c, n);
    case IR_OP_RANGE: return fe_import_range(c, n);
    default: break;
    }
    if (n->n_in < 1)
        return fe_err(c, n, "expects at least one input");
    IrTensor *x = fe_need_in(c, n, 0, "data");
    if (!x)
        return -1;
    switch (n->op) {
    case IR_OP_FLATTEN: return fe_check_arity(c, n, 1, 1, 1, 1) < 0 ? -1 : flatten(c, n, x);
    case IR_OP_RESHAPE: return reshape(c, n, x);
    case IR_OP_SQUEEZE: return squeeze(c, n, x);
    case IR_OP_UNSQUEEZE: return unsqueeze(c, n, x);
    case IR_OP_IDENTITY:
        if (fe_check_arity(c, n, 1, 1, 1, 1) < 0)
            return -1;
        fe_out_like(n, 0, x);
        return 0;
    case IR_OP_DROPOUT: return dropout(c, n, x);
    case IR_OP_TRANSPOSE: return fe_check_arity(c, n, 1, 1, 1, 1) < 0 ? -1 : transpose(c, n, x);
    case IR_OP_CONCAT: return concat(c, n, x);
    case IR_OP_SPLIT: return split(c, n, x);
    case IR_OP_SLICE: return slice(c, n, x);
    case IR_OP_PAD: return pad(c, n, x);
    case IR_OP_GATHER: return gather(c, n, x);
    case IR_OP_EXPAND: return expand(c, n, x);
    case IR_OP_CAST: return fe_check_arity(c, n, 1, 1, 1, 1) < 0 ? -1 : cast(c, n, x);
    default: return fe_err(c, n, "no importer for this op");
    }
}
