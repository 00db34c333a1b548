/* fe_fold.c - evaluate a node at import time when all its inputs are
 * constants.
 *
 * Why: real exports compute shapes at run time (Shape -> Gather ->
 * Unsqueeze -> Concat -> Reshape, Cast, small arithmetic). With the input
 * shapes bound those values are known, and an accelerator has no use for
 * them as layers, so they become constant tensors here, and so do other
 * pure functions of constants (weight transposes, scaled constants). The
 * importer has already validated the node and inferred its output shapes and
 * resolved attributes, so this file only moves and computes values.
 * Integer arithmetic wraps (as two's complement) rather than overflowing. */
#include "fe_internal.h"

#include <math.h>
#include <string.h>

/* Per-input strides for broadcasting into an output of rank r. */
static void bcast_strides(const IrTensor *in, int r, const int64_t *odims, int64_t *st)
{
    int64_t s = 1;
    for (int k = r - 1; k >= 0; k--) {
        int ik = k - (r - in->rank);
        if (ik < 0) {
            st[k] = 0;
            continue;
        }
        st[k] = (in->dims[ik] == 1 && odims[k] != 1) ? 0 : s;
        s *= in->dims[ik];
    }
}

/* Advance a multi-index; keeps the input offsets in step. */
static void bump(int r, const int64_t *dims, int64_t *idx, int nin, int64_t st[][IR_MAX_RANK],
                 int64_t *off)
{
    for (int k = r - 1; k >= 0; k--) {
        idx[k]++;
        for (int j = 0; j < nin; j++)
            off[j] += st[j][k];
        if (idx[k] < dims[k])
            return;
        for (int j = 0; j < nin; j++)
            off[j] -= st[j][k] * idx[k];
        idx[k] = 0;
    }
}

static int64_t wrap_i(uint64_t v)
{
    int64_t r;
    memcpy(&r, &v, 8);
    return r;
}

typedef struct {
    IrOp op;
    bool is_float;
    bool div0;
} Arith;

static double arith_f(IrOp op, double a, double b)
{
    switch (op) {
    case IR_OP_ADD: case IR_OP_SUM: case IR_OP_MEAN: return a + b;
    case IR_OP_SUB: return a - b;
    case IR_OP_MUL: return a * b;
    case IR_OP_DIV: return a / b;
    case IR_OP_POW: return pow(a, b);
    case IR_OP_MAX: return a > b || a != a ? a : b;
    case IR_OP_MIN: return a < b || a != a ? a : b;
    default: return 0;
    }
}

static int64_t ipow(int64_t a, int64_t b)
{
    uint64_t r = 1, x = (uint64_t)a;
    if (b < 0)
        return a == 1 ? 1 : a == -1 ? (b & 1 ? -1 : 1) : 0;
    while (b) {
        if (b & 1)
            r *= x;
        x *= x;
        b >>= 1;
    }
    return wrap_i(r);
}

static int64_t arith_i(Arith *ar, int64_t a, int64_t b)
{
    switch (ar->op) {
    case IR_OP_ADD: case IR_OP_SUM: case IR_OP_MEAN: return wrap_i((uint64_t)a + (uint64_t)b);
    case IR_OP_SUB: return wrap_i((uint64_t)a - (uint64_t)b);
    case IR_OP_MUL: return wrap_i((uint64_t)a * (uint64_t)b);
    case IR_OP_DIV:
        if (b == 0) {
            ar->div0 = true;
            return 0;
        }
        if (a == INT64_MIN && b == -1)
            return INT64_MIN;
        return a / b;
    case IR_OP_POW: return ipow(a, b);
    case IR_OP_MAX: return a > b ? a : b;
    case IR_OP_MIN: return a < b ? a : b;
    default: return 0;
    }
}

/* Element-wise n-ary op (binary family) with numpy broadcasting. */
static int fold_nary(FeCtx *c, FeNode *n, const IrTensor *o, void *dst)
{
    int r = o->rank, nin = n->n_in;
    int64_t st[IR_MAX_IO][IR_MAX_RANK], off[IR_MAX_IO] = {0}, idx[IR_MAX_RANK] = {0};
    const void *src[IR_MAX_IO];
    IrDType dts[IR_MAX_IO];
    for (int j = 0; j < nin; j++) {
        bcast_strides(&c->g->tensors[n->in[j]], r, o->dims, st[j]);
        src[j] = ir_tensor_data(c->g, n->in[j]);
        dts[j] = c->g->tensors[n->in[j]].dtype;
    }
    Arith ar = {n->op, fe_dtype_is_float(o->dtype), false};
    int64_t ne = ir_tensor_numel(o);
    for (int64_t e = 0; e < ne; e++) {
        if (ar.is_float || n->op == IR_OP_POW) {
            double v = fe_elem_f(dts[0], src[0], off[0]);
            for (int j = 1; j < nin; j++)
                v = arith_f(n->op, v, fe_elem_f(dts[j], src[j], off[j]));
            if (n->op == IR_OP_MEAN)
                v /= nin;
            if (!ar.is_float && n->op == IR_OP_POW)
                fe_store_i(o->dtype, dst, e, ipow(fe_elem_i(dts[0], src[0], off[0]),
                                                  fe_elem_i(dts[1], src[1], off[1])));
            else
                fe_store_f(o->dtype, dst, e, v);
        } else {
            int64_t v = fe_elem_i(dts[0], src[0], off[0]);
            for (int j = 1; j < nin; j++)
                v = arith_i(&ar, v, fe_elem_i(dts[j], src[j], off[j]));
            if (n->op == IR_OP_MEAN)
                v /= nin;
            fe_store_i(o->dtype, dst, e, v);
        }
        bump(r, o->dims, idx, nin, st, off);
    }
    if (ar.div0)
        return fe_err(c, n, "integer division by zero while evaluating constants");
    return 0;
}

static double unary_f(const FeNode *n, double x)
{
    switch (n->op) {
    case IR_OP_NEG: return -x;
    case IR_OP_ABS: return fabs(x);
    case IR_OP_FLOOR: return floor(x);
    case IR_OP_CEIL: return ceil(x);
    case IR_OP_SQRT: return sqrt(x);
    case IR_OP_RECIPROCAL: return 1.0 / x;
    case IR_OP_EXP: return exp(x);
    case IR_OP_LOG: return log(x);
    case IR_OP_RELU: return x > 0 ? x : 0;
    case IR_OP_CLIP:
        return x < n->attr.act.alpha ? n->attr.act.alpha : x > n->attr.act.beta ? n->attr.act.beta : x;
    default: return x;
    }
}

static int fold_unary(FeCtx *c, FeNode *n, const IrTensor *o, void *dst)
{
    const IrTensor *x = &c->g->tensors[n->in[0]];
    const void *src = ir_tensor_data(c->g, n->in[0]);
    int64_t ne = ir_tensor_numel(o);
    for (int64_t e = 0; e < ne; e++) {
        if (fe_dtype_is_float(x->dtype)) {
            fe_store_f(o->dtype, dst, e, unary_f(n, fe_elem_f(x->dtype, src, e)));
            continue;
        }
        int64_t v = fe_elem_i(x->dtype, src, e);
        if (n->op == IR_OP_NEG)
            v = wrap_i(0 - (uint64_t)v);
        else if (n->op == IR_OP_ABS)
            v = v < 0 ? wrap_i(0 - (uint64_t)v) : v;
        else if (n->op == IR_OP_RELU)
            v = v > 0 ? v : 0;
        else if (n->op == IR_OP_CLIP)
            v = (double)v < n->attr.act.alpha ? (int64_t)ceil(n->attr.act.alpha)
                : (double)v > n->attr.act.beta ? (int64_t)floor(n->attr.act.beta) : v;
        else if (n->op != IR_OP_FLOOR && n->op != IR_OP_CEIL)
            return 0; /* sqrt/exp/... of integers: leave to a layer */
        fe_store_i(o->dtype, dst, e, v);
    }
    return 1;
}

/* ---------------------------------------------------- data movement */

static void fold_transpose(FeCtx *c, FeNode *n, const IrTensor *o, void *dst)
{
    const IrTensor *x = &c->g->tensors[n->in[0]];
    const uint8_t *src = ir_tensor_data(c->g, n->in[0]);
    size_t es = ir_dtype_size(x->dtype);
    int r = x->rank;
    int64_t xs[IR_MAX_RANK], st[1][IR_MAX_RANK], idx[IR_MAX_RANK] = {0}, off[1] = {0};
    int64_t s = 1;
    for (int k = r - 1; k >= 0; k--) {
        xs[k] = s;
        s *= x->dims[k];
    }
    for (int k = 0; k < r; k++)
        st[0][k] = xs[n->attr.axes.perm[k]];
    int64_t ne = ir_tensor_numel(o);
    for (int64_t e = 0; e < ne; e++) {
        memcpy((uint8_t *)dst + (size_t)e * es, src + (size_t)off[0] * es, es);
        bump(r, o->dims, idx, 1, st, off);
    }
}

/* Copy a broadcast input into the output shape (Expand). */
static void fold_expand(FeCtx *c, FeNode *n, const IrTensor *o, void *dst)
{
    const IrTensor *x = &c->g->tensors[n->in[0]];
    const uint8_t *src = ir_tensor_data(c->g, n->in[0]);
    size_t es = ir_dtype_size(x->dtype);
    int64_t st[1][IR_MAX_RANK], idx[IR_MAX_RANK] = {0}, off[1] = {0};
    bcast_strides(x, o->rank, o->dims, st[0]);
    int64_t ne = ir_tensor_numel(o);
    for (int64_t e = 0; e < ne; e++) {
        memcpy((uint8_t *)dst + (size_t)e * es, src + (size_t)off[0] * es, es);
        bump(o->rank, o->dims, idx, 1, st, off);
    }
}

/* outer x (axis block) x inner decomposition of a shape around an axis */
static void split_dims(const IrTensor *t, int64_t axis, int64_t *outer, int64_t *inner)
{
    *outer = 1;
    *inner = 1;
    for (int k = 0; k < axis; k++)
        *outer *= t->dims[k];
    for (int k = (int)axis + 1; k < t->rank; k++)
        *inner *= t->dims[k];
}

static void fold_concat(FeCtx *c, FeNode *n, const IrTensor *o, void *dst)
{
    int64_t axis = n->attr.axis.axis, outer, inner;
    size_t es = ir_dtype_size(o->dtype);
    split_dims(o, axis, &outer, &inner);
    int64_t at = 0;
    for (int j = 0; j < n->n_in; j++) {
        if (n->in[j] < 0)
            continue;
        const IrTensor *x = &c->g->tensors[n->in[j]];
        const uint8_t *src = ir_tensor_data(c->g, n->in[j]);
        size_t blk = (size_t)(x->dims[axis] * inner) * es;
        for (int64_t q = 0; q < outer; q++)
            memcpy((uint8_t *)dst + ((size_t)(q * o->dims[axis] + at) * (size_t)inner) * es,
                   src + (size_t)q * blk, blk);
        at += x->dims[axis];
    }
}

static void fold_slice(FeCtx *c, FeNode *n, const IrTensor *o, void *dst)
{
    const IrTensor *x = &c->g->tensors[n->in[0]];
    const uint8_t *src = ir_tensor_data(c->g, n->in[0]);
    size_t es = ir_dtype_size(x->dtype);
    int r = x->rank;
    int64_t xs[IR_MAX_RANK], st[1][IR_MAX_RANK], idx[IR_MAX_RANK] = {0}, off[1] = {0};
    int64_t s = 1;
    for (int k = r - 1; k >= 0; k--) {
        xs[k] = s;
        s *= x->dims[k];
        st[0][k] = xs[k];
    }
    for (int i = 0; i < n->attr.slice.n; i++) {
        int64_t a = n->attr.slice.axes[i];
        off[0] += n->attr.slice.starts[i] * xs[a];
        st[0][a] = xs[a] * n->attr.slice.steps[i];
    }
    int64_t ne = ir_tensor_numel(o);
    for (int64_t e = 0; e < ne; e++) {
        memcpy((uint8_t *)dst + (size_t)e * es, src + (size_t)off[0] * es, es);
        bump(r, o->dims, idx, 1, st, off);
    }
}

static int fold_gather(FeCtx *c, FeNode *n, const IrTensor *o, void *dst)
{
    const IrTensor *x = &c->g->tensors[n->in[0]], *ix = &c->g->tensors[n->in[1]];
    const uint8_t *src = ir_tensor_data(c->g, n->in[0]);
    const void *ind = ir_tensor_data(c->g, n->in[1]);
    int64_t axis = n->attr.axis.axis, outer, inner;
    size_t es = ir_dtype_size(x->dtype);
    split_dims(x, axis, &outer, &inner);
    int64_t ni = ir_tensor_numel(ix), d = x->dims[axis];
    size_t blk = (size_t)inner * es;
    for (int64_t q = 0; q < outer; q++)
        for (int64_t i = 0; i < ni; i++) {
            int64_t k = fe_elem_i(ix->dtype, ind, i);
            if (k < 0)
                k += d;
            if (k < 0 || k >= d)
                return fe_err(c, n, "index %lld out of range for axis of size %lld",
                              (long long)fe_elem_i(ix->dtype, ind, i), (long long)d);
            memcpy((uint8_t *)dst + (size_t)(q * ni + i) * blk, src + (size_t)(q * d + k) * blk, blk);
        }
    (void)o;
    return 0;
}

static int fold_split(FeCtx *c, FeNode *n)
{
    const IrTensor *x = &c->g->tensors[n->in[0]];
    const uint8_t *src = ir_tensor_data(c->g, n->in[0]);
    int64_t axis = n->attr.axis.axis, outer, inner, at = 0;
    size_t es = ir_dtype_size(x->dtype);
    split_dims(x, axis, &outer, &inner);
    for (int i = 0; i < n->n_out; i++) {
        IrTensor *o = &n->out[i];
        int64_t len = n->attr.axis.split[i];
        if (n->pb->output[i][0]) {
            void *dst;
            n->out_t[i] = fe_const_new(c, n->pb->output[i], o->dtype, o->rank, o->dims, &dst);
            size_t blk = (size_t)(len * inner) * es;
            for (int64_t q = 0; q < outer; q++)
                memcpy((uint8_t *)dst + (size_t)q * blk,
                       src + ((size_t)(q * x->dims[axis] + at) * (size_t)inner) * es, blk);
        }
        at += len;
    }
    return 1;
}

static void fold_cast(FeCtx *c, FeNode *n, const IrTensor *o, void *dst)
{
    const IrTensor *x = &c->g->tensors[n->in[0]];
    const void *src = ir_tensor_data(c->g, n->in[0]);
    int64_t ne = ir_tensor_numel(o);
    for (int64_t e = 0; e < ne; e++) {
        if (fe_dtype_is_float(x->dtype))
            fe_store_f(o->dtype, dst, e, fe_elem_f(x->dtype, src, e));
        else if (x->dtype == IR_DT_UINT64 && fe_dtype_is_float(o->dtype))
            fe_store_f(o->dtype, dst, e, fe_elem_f(x->dtype, src, e));
        else
            fe_store_i(o->dtype, dst, e, fe_elem_i(x->dtype, src, e));
    }
}

static bool foldable(IrOp op)
{
    switch (op) {
    case IR_OP_IDENTITY: case IR_OP_DROPOUT: case IR_OP_RESHAPE: case IR_OP_FLATTEN:
    case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE: case IR_OP_TRANSPOSE: case IR_OP_CONCAT:
    case IR_OP_SPLIT: case IR_OP_SLICE: case IR_OP_GATHER: case IR_OP_EXPAND: case IR_OP_CAST:
    case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_POW:
    case IR_OP_MAX: case IR_OP_MIN: case IR_OP_SUM: case IR_OP_MEAN:
    case IR_OP_NEG: case IR_OP_ABS: case IR_OP_FLOOR: case IR_OP_CEIL: case IR_OP_SQRT:
    case IR_OP_RECIPROCAL: case IR_OP_EXP: case IR_OP_LOG: case IR_OP_RELU: case IR_OP_CLIP:
        return true;
    default:
        return false;
    }
}

/* Output bytes of the node (all outputs). */
static int64_t out_bytes(const FeNode *n)
{
    int64_t b = 0;
    for (int i = 0; i < n->n_out; i++)
        b += (int64_t)ir_tensor_nbytes(&n->out[i]);
    return b;
}

static bool is_view(IrOp op)
{
    return (ir_op_flags(op) & IR_F_NO_DATA) != 0;
}

/* A view of a constant still in the mapped file shares its bytes: weights
 * passed through Identity or Reshape cost nothing. (Materialized data is
 * copied instead, since passes may rewrite a constant's data in place.) */
static int fold_view_alias(FeCtx *c, FeNode *n)
{
    const IrTensor *x = &c->g->tensors[n->in[0]];
    const uint8_t *src = x->src;
    IrTensor *o = &n->out[0];
    int t = ir_tensor_add(c->g, n->pb->output[0], o->dtype, o->rank, o->dims);
    c->g->tensors[t].kind = IR_T_CONST;
    c->g->tensors[t].src = src;
    fe_map_put(&c->names, c->g->tensors[t].name, t);
    n->out_t[0] = t;
    return 1;
}

int fe_fold(FeCtx *c, FeNode *n)
{
    if (!foldable(n->op))
        return 0;
    if (is_view(n->op) && c->g->tensors[n->in[0]].src && !c->g->tensors[n->in[0]].data)
        return fold_view_alias(c, n);
    if (out_bytes(n) > FE_FOLD_MAX_BYTES)
        return 0;
    for (int j = 0; j < n->n_in; j++)
        if (n->in[j] >= 0 && ir_dtype_size(c->g->tensors[n->in[j]].dtype) == 0)
            return 0;
    if (n->op == IR_OP_SPLIT)
        return fold_split(c, n);
    IrTensor *o = &n->out[0];
    void *dst = NULL;
    /* build into a scratch constant first: a failed evaluation must not
     * leave the output name bound */
    int t = ir_const_add(c->g, n->pb->output[0], o->dtype, o->rank, o->dims, &dst);
    int r = 1;
    switch (n->op) {
    case IR_OP_IDENTITY: case IR_OP_DROPOUT: case IR_OP_RESHAPE: case IR_OP_FLATTEN:
    case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE: {
        size_t nb = ir_tensor_nbytes(o);
        if (nb)
            memcpy(dst, ir_tensor_data(c->g, n->in[0]), nb);
        break;
    }
    case IR_OP_TRANSPOSE: fold_transpose(c, n, o, dst); break;
    case IR_OP_CONCAT: fold_concat(c, n, o, dst); break;
    case IR_OP_SLICE: fold_slice(c, n, o, dst); break;
    case IR_OP_GATHER: r = fold_gather(c, n, o, dst) < 0 ? -1 : 1; break;
    case IR_OP_EXPAND: fold_expand(c, n, o, dst); break;
    case IR_OP_CAST: fold_cast(c, n, o, dst); break;
    case IR_OP_NEG: case IR_OP_ABS: case IR_OP_FLOOR: case IR_OP_CEIL: case IR_OP_SQRT:
    case IR_OP_RECIPROCAL: case IR_OP_EXP: case IR_OP_LOG: case IR_OP_RELU: case IR_OP_CLIP:
        r = fold_unary(c, n, o, dst);
        break;
    default: r = fold_nary(c, n, o, dst) < 0 ? -1 : 1; break;
    }
    if (r != 1) {
        /* drop the scratch tensor: it is the last one and unnamed in the map */
        ir_tensor_drop_last(c->g);
        return r;
    }
    fe_map_put(&c->names, c->g->tensors[t].name, t);
    n->out_t[0] = t;
    return 1;
}
