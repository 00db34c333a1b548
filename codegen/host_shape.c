/* host_shape.c - layout and shape ops in the host C program (family shape:
 * frontend/import_shape.c, runtime/rt_shape.c).
 *
 * Why they are cheap: views (Reshape, Flatten, Squeeze, Unsqueeze, Identity,
 * Dropout) emit no code at all, the memory plan makes their output an alias
 * of their input; the others are plain copies with computed strides, typed
 * by element size only, so they serve every dtype the host path holds.
 */
#include "host_emit.h"

/* Views: no code, the memory plan makes the output an alias. */
static int emit_view(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0) {
        cg_host_reject(h, l, "missing input");
        return -1;
    }
    if (cg_same_dtype(h, l, x, y) || cg_extra_outputs_unused(h, l, 1, "dropout mask"))
        return -1;
    if (ir_tensor_nbytes(TT(h, x)) != ir_tensor_nbytes(TT(h, y))) {
        cg_host_reject(h, l, "input and output sizes differ");
        return -1;
    }
    if (L->residual >= 0 || L->act.kind != IR_ACT_NONE) {
        cg_host_reject(h, l, "a fused epilogue on a view is not supported");
        return -1;
    }
    cg_emit(h, h->run, "    /* view: %s is %s */\n", cg_comment(h, TT(h, y)->name), cg_comment(h, TT(h, x)->name));
    return 0;
}

static int emit_transpose(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0 || cg_same_dtype(h, l, x, y) || cg_check_post_shapes(h, l, y))
        return x < 0 ? (cg_host_reject(h, l, "missing input"), -1) : -1;
    const IrTensor *X = TT(h, x);
    int r = X->rank, perm[IR_MAX_RANK];
    if (ir_transpose_perm(h->g, L, perm)) {
        cg_host_reject(h, l, "perm is not a permutation of %d axes", r);
        return -1;
    }
    if (r == 0) {
        cg_emit(h, h->run, "    memcpy(%s, %s, %zu);\n", cg_ptr(h, y), cg_ptr(h, x), ir_tensor_nbytes(X));
        return 0;
    }
    cg_emit(h, h->decl, "static const int64_t L%d_dims[] = %s;\nstatic const int L%d_perm[] = {", l,
            cg_i64_list(h, X->dims, r), l);
    for (int i = 0; i < r; i++)
        cg_emit(h, h->decl, "%s%d", i ? ", " : "", perm[i]);
    cg_emit(h, h->decl, "};\n");
    return cg_host_call(h, l, NULL, "    o2h_transpose(%zu, %d, L%d_dims, L%d_perm, %s, %s);\n",
                        ir_dtype_size(X->dtype), r, l, l, cg_ptr(h, x), cg_ptr(h, y));
}

static int emit_concat(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int y = L->out[0];
    const IrTensor *Y = TT(h, y);
    int axis = norm_axis(L->attr.axis.axis, Y->rank);
    if (axis < 0 || axis >= Y->rank || L->n_in < 1) {
        cg_host_reject(h, l, "axis %lld out of range", (long long)L->attr.axis.axis);
        return -1;
    }
    int64_t dims[IR_MAX_IO], total = 0;
    for (int i = 0; i < L->n_in; i++) {
        int x = L->in[i];
        if (x < 0 || cg_same_dtype(h, l, x, y))
            return x < 0 ? (cg_host_reject(h, l, "missing input"), -1) : -1;
        if (TT(h, x)->rank != Y->rank) {
            cg_host_reject(h, l, "inputs of different ranks");
            return -1;
        }
        dims[i] = TT(h, x)->dims[axis];
        total += dims[i];
    }
    if (total != Y->dims[axis] || cg_check_post_shapes(h, l, y)) {
        if (total != Y->dims[axis])
            cg_host_reject(h, l, "input sizes along the axis do not add up to the output");
        return -1;
    }
    cg_emit(h, h->decl, "static const int64_t L%d_dims[] = %s;\n", l, cg_i64_list(h, dims, L->n_in));
    cg_emit(h, h->run, "    {\n        const void *const xs[] = {");
    for (int i = 0; i < L->n_in; i++)
        cg_emit(h, h->run, "%s%s", i ? ", " : "", cg_ptr(h, L->in[i]));
    return cg_host_call(h, l, NULL, "};\n        o2h_concat(%zu, %d, xs, L%d_dims, %lld, %lld, %s);\n    }\n",
                        ir_dtype_size(Y->dtype), L->n_in, l, (long long)prod(Y->dims, 0, axis),
                        (long long)prod(Y->dims, axis + 1, Y->rank), cg_ptr(h, y));
}

static int emit_split(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0);
    if (x < 0 || L->n_out < 1) {
        cg_host_reject(h, l, "missing input or outputs");
        return -1;
    }
    if (L->residual >= 0 || L->act.kind != IR_ACT_NONE) {
        cg_host_reject(h, l, "a fused epilogue on Split is not supported");
        return -1;
    }
    const IrTensor *X = TT(h, x);
    int axis = norm_axis(L->attr.axis.axis, X->rank);
    if (axis < 0 || axis >= X->rank) {
        cg_host_reject(h, l, "axis %lld out of range", (long long)L->attr.axis.axis);
        return -1;
    }
    int64_t dims[IR_MAX_IO], total = 0;
    for (int i = 0; i < L->n_out; i++) {
        int y = L->out[i];
        if (y < 0 || cg_same_dtype(h, l, x, y))
            return y < 0 ? (cg_host_reject(h, l, "missing output"), -1) : -1;
        dims[i] = TT(h, y)->dims[axis];
        total += dims[i];
    }
    if (total != X->dims[axis]) {
        cg_host_reject(h, l, "output sizes along the axis do not add up to the input");
        return -1;
    }
    cg_emit(h, h->decl, "static const int64_t L%d_dims[] = %s;\n", l, cg_i64_list(h, dims, L->n_out));
    cg_emit(h, h->run, "    {\n        void *const ys[] = {");
    for (int i = 0; i < L->n_out; i++)
        cg_emit(h, h->run, "%s%s", i ? ", " : "", cg_ptr(h, L->out[i]));
    return cg_host_call(h, l, NULL, "};\n        o2h_split(%zu, %d, ys, L%d_dims, %lld, %lld, %s);\n    }\n",
                        ir_dtype_size(X->dtype), L->n_out, l, (long long)prod(X->dims, 0, axis),
                        (long long)prod(X->dims, axis + 1, X->rank), cg_ptr(h, x));
}

/* Slice: ONNX start clamping per axis, then the strided copy. */
static int emit_slice(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0 || cg_same_dtype(h, l, x, y) || cg_check_post_shapes(h, l, y))
        return x < 0 ? (cg_host_reject(h, l, "missing input"), -1) : -1;
    const IrTensor *X = TT(h, x), *Y = TT(h, y);
    int r = X->rank;
    int64_t starts[IR_MAX_RANK], steps[IR_MAX_RANK];
    if (ir_slice_bounds(h->g, L, starts, steps)) {
        cg_host_reject(h, l, "slice axes or output shape do not match the input");
        return -1;
    }
    if (r == 0) {
        cg_host_reject(h, l, "slice of a scalar");
        return -1;
    }
    cg_emit(h, h->decl, "static const int64_t L%d_in[] = %s, L%d_out[] = %s,\n    L%d_starts[] = %s, L%d_steps[] = %s;\n",
            l, cg_i64_list(h, X->dims, r), l, cg_i64_list(h, Y->dims, r), l, cg_i64_list(h, starts, r), l,
            cg_i64_list(h, steps, r));
    return cg_host_call(h, l, NULL, "    o2h_slice(%zu, %d, L%d_in, L%d_out, L%d_starts, L%d_steps, %s, %s);\n",
                        ir_dtype_size(X->dtype), r, l, l, l, l, cg_ptr(h, x), cg_ptr(h, y));
}

static int emit_pad(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x, y;
    if (cg_float_io(h, l, &x, &y))
        return -1;
    const IrTensor *X = TT(h, x), *Y = TT(h, y);
    const IrPadAttr *a = &L->attr.pad;
    if (X->rank != Y->rank || X->rank == 0) {
        cg_host_reject(h, l, "output rank differs from the input");
        return -1;
    }
    for (int i = 0; i < X->rank; i++)
        if (X->dims[i] + a->begin[i] + a->end[i] != Y->dims[i]) {
            cg_host_reject(h, l, "pads do not match the output shape on axis %d", i);
            return -1;
        }
    int r = X->rank;
    cg_emit(h, h->decl, "static const int64_t L%d_in[] = %s, L%d_begin[] = %s, L%d_out[] = %s;\n", l,
            cg_i64_list(h, X->dims, r), l, cg_i64_list(h, a->begin, r), l, cg_i64_list(h, Y->dims, r));
    return cg_host_call(h, l, NULL, "    o2h_pad_f32(%d, %s, %d, L%d_in, L%d_begin, L%d_out, %s, %s);\n",
                        (int)a->mode, cg_float(h, a->value), r, l, l, l, cg_ptr(h, x), cg_ptr(h, y));
}

/* Gather: constant indices are normalized (negative -> from the end) and
 * widened to int64 at compile time; run-time int32 indices are widened into
 * scratch. */
static int emit_gather(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), ix = in_at(L, 1), y = L->out[0];
    if (x < 0 || ix < 0 || cg_same_dtype(h, l, x, y) || cg_check_post_shapes(h, l, y))
        return x < 0 || ix < 0 ? (cg_host_reject(h, l, "missing input"), -1) : -1;
    const IrTensor *X = TT(h, x), *I = TT(h, ix);
    int axis = norm_axis(L->attr.axis.axis, X->rank);
    if (axis < 0 || axis >= X->rank) {
        cg_host_reject(h, l, "axis %lld out of range", (long long)L->attr.axis.axis);
        return -1;
    }
    if (I->dtype != IR_DT_INT64 && I->dtype != IR_DT_INT32) {
        cg_host_reject(h, l, "indices of type %s", ir_dtype_name(I->dtype));
        return -1;
    }
    int64_t dim = X->dims[axis], n = numel(h, ix);
    const char *idx;
    if (I->kind == IR_T_CONST) {
        if (h->phase == 0) {
            const void *src = ir_tensor_data(h->g, ix);
            int64_t *v = ir_alloc(h->g, (size_t)(n > 0 ? n : 1) * 8);
            for (int64_t i = 0; i < n; i++) {
                v[i] = I->dtype == IR_DT_INT64 ? ((const int64_t *)src)[i] : ((const int32_t *)src)[i];
                if (v[i] < 0)
                    v[i] += dim;
                if (v[i] < 0 || v[i] >= dim) {
                    cg_host_reject(h, l, "index %lld out of range [0, %lld)", (long long)v[i], (long long)dim);
                    return -1;
                }
            }
            h->aux_entry[l] = cg_blob_add(&h->blob, ir_sprintf(h->g, "%s.int64", I->name), IR_DT_INT64,
                                          I->rank, I->dims, v, (uint64_t)n * 8);
        }
        idx = h->phase ? ir_sprintf(h->g, "CST(%llu)", (unsigned long long)h->blob.v[h->aux_entry[l]].offset) : "0";
    } else if (I->dtype == IR_DT_INT32) {
        idx = cg_scratch(h, n * 8);
        h->cast_used[IR_DT_INT32] |= 1u << IR_DT_INT64;
        cg_emit(h, h->run, "    cast_i32_i64(%s, %s, %lld);\n", cg_ptr(h, ix), idx, (long long)n);
    } else {
        idx = cg_ptr(h, ix);
    }
    return cg_host_call(h, l, NULL, "    o2h_gather(%zu, %lld, %lld, %lld, %s, %lld, %s, %s);\n",
                        ir_dtype_size(X->dtype), (long long)prod(X->dims, 0, axis), (long long)dim,
                        (long long)prod(X->dims, axis + 1, X->rank), idx, (long long)n, cg_ptr(h, x), cg_ptr(h, y));
}

static int emit_expand(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0 || cg_same_dtype(h, l, x, y) || cg_check_broadcast(h, l, x, -1, y) || cg_check_post_shapes(h, l, y))
        return x < 0 ? (cg_host_reject(h, l, "missing input"), -1) : -1;
    const char *bc = ir_sprintf(h->g, "L%d", l);
    cg_emit_broadcast(h, bc, x, -1, y);
    return cg_host_call(h, l, NULL, "    o2h_expand(%zu, &%s, %s, %s);\n", ir_dtype_size(TT(h, y)->dtype), bc,
                        cg_ptr(h, x), cg_ptr(h, y));
}

static int emit_cast(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0) {
        cg_host_reject(h, l, "missing input");
        return -1;
    }
    IrDType from = TT(h, x)->dtype, to = TT(h, y)->dtype;
    if (!cg_ctype(from) || !cg_ctype(to)) {
        cg_host_reject(h, l, "cast from %s to %s is not supported", ir_dtype_name(from), ir_dtype_name(to));
        return -1;
    }
    if (cg_check_post_shapes(h, l, y) || (L->residual >= 0 || L->act.kind != IR_ACT_NONE ? CG_NEED_FLOAT(h, l, y) : 0))
        return -1;
    int64_t n = numel(h, y);
    if (from == to) {
        cg_emit(h, h->run, "    memcpy(%s, %s, %lld);\n", cg_ptr(h, y), cg_ptr(h, x),
                (long long)ir_tensor_nbytes(TT(h, y)));
    } else {
        h->cast_used[from] |= 1u << to;
        cg_emit(h, h->run, "    cast_%s_%s(%s, %s, %lld);\n", cg_dtype_tag(from), cg_dtype_tag(to),
                cg_ptr(h, x), cg_ptr(h, y), (long long)n);
    }
    return cg_host_post(h, l, NULL);
}

typedef int (*ShapeEmitter)(CgHost *h, int l);

/* The family's ops that run (Shape, Constant, ConstantOfShape and Range are
 * folded at compile time or rejected before they get here). */
static const ShapeEmitter shape_emitters[IR_OP_COUNT] = {
    [IR_OP_FLATTEN] = emit_view, [IR_OP_RESHAPE] = emit_view, [IR_OP_SQUEEZE] = emit_view,
    [IR_OP_UNSQUEEZE] = emit_view, [IR_OP_IDENTITY] = emit_view, [IR_OP_DROPOUT] = emit_view,
    [IR_OP_TRANSPOSE] = emit_transpose, [IR_OP_CONCAT] = emit_concat, [IR_OP_SPLIT] = emit_split,
    [IR_OP_SLICE] = emit_slice, [IR_OP_PAD] = emit_pad, [IR_OP_GATHER] = emit_gather,
    [IR_OP_EXPAND] = emit_expand, [IR_OP_CAST] = emit_cast,
};

int cg_host_shape(CgHost *h, int l)
{
    IrOp op = h->g->layers[l].op;
    if (!shape_emitters[op]) {
        cg_host_reject(h, l, "%s is not supported by the host path", ir_op_name(op));
        return -1;
    }
    return shape_emitters[op](h, l);
}
