/* quant_run.c - an evaluator of the IR inside the compiler: float layers on
 * the runtime's float kernels, integer layers on its integer kernels with
 * the lowering's constants.
 *
 * Why: calibration needs the float value of every tensor on real inputs
 * (min/max, histograms), and the tests need the integer program's output
 * without building C. Calling the very kernels the generated host program
 * links, with the very constants pass_quant_lower gives the emitter, makes
 * the integer results here those of the host C bit for bit - which the
 * script tests check. Buffers are malloc'd per run (the compiler is not
 * under the runtime's no-allocation rule). Ops outside the usual CNN set
 * are reported by name. */
#include "quant_internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    IrGraph *g;
    IrDiag *d;
    void **val;
    char *own;
    QuantObserve obs;
    void *ctx;
    int want;
    void *codes;
    bool force_float;
    QuantObserveCodes cobs;
    void *cctx;
    const QuantProgram *prog;   /* lowered layers and packed weights (NULL: lower each run) */
    void *scratch;              /* prog->scratch bytes, this run's own */
} Eval;

static int64_t numel(const Eval *e, int t)
{
    return ir_tensor_numel(&e->g->tensors[t]);
}

/* t's buffer; one kept from an earlier run of a program is reused (every
 * kernel writes its whole output) */
static void *out_buf(Eval *e, int t)
{
    if (e->own[t] && e->prog)
        return e->val[t];
    size_t n = ir_tensor_nbytes(&e->g->tensors[t]);
    void *p = calloc(n ? n : 1, 1);
    if (!p)
        return NULL;
    if (e->own[t])
        free(e->val[t]);
    e->val[t] = p;
    e->own[t] = 1;
    return p;
}

static const void *in_buf(Eval *e, int t)
{
    if (t < 0)
        return NULL;
    if (e->g->tensors[t].kind == IR_T_CONST)
        return ir_tensor_data(e->g, t);
    return e->val[t];
}

static int in_at(const IrLayer *L, int i)
{
    return i < L->n_in ? L->in[i] : -1;
}

static bool all_float(Eval *e, const IrLayer *L)
{
    for (int i = 0; i < L->n_in; i++) {
        const IrTensor *T = L->in[i] >= 0 ? &e->g->tensors[L->in[i]] : NULL;
        bool indices = L->op == IR_OP_GATHER && i == 1 && T && T->kind == IR_T_CONST;
        if (T && T->dtype != IR_DT_FLOAT && !indices)
            return false;
    }
    return L->out[0] >= 0 && e->g->tensors[L->out[0]].dtype == IR_DT_FLOAT;
}

/* ------------------------------------------------------- float epilogue */

static O2hEpilogue epilogue(Eval *e, const IrLayer *L)
{
    O2hEpilogue ep = {(O2hActKind)L->act.kind, L->act.alpha, L->act.beta, NULL, 0, NULL};
    if (L->act_slope >= 0) {
        ep.slope = in_buf(e, L->act_slope);
        ep.n_slope = (int)numel(e, L->act_slope);
    }
    if (L->residual >= 0)
        ep.residual = in_buf(e, L->residual);
    return ep;
}

/* residual + activation after a kernel without an epilogue argument */
static void post(Eval *e, const IrLayer *L, float *y)
{
    const IrTensor *Y = &e->g->tensors[L->out[0]];
    int64_t n = ir_tensor_numel(Y);
    if (L->residual >= 0) {
        const float *r = in_buf(e, L->residual);
        for (int64_t i = 0; i < n; i++)
            y[i] += r[i];
    }
    if (L->act.kind == IR_ACT_NONE)
        return;
    O2hEpilogue ep = epilogue(e, L);
    ep.residual = NULL;
    int64_t C = Y->rank >= 2 ? Y->dims[1] : 1, planes = Y->rank >= 2 ? Y->dims[0] * C : 1;
    int64_t hw = planes > 0 ? n / planes : 0;
    for (int64_t p = 0; p < planes; p++)
        o2h_act_f32(&ep, y + p * hw, (size_t)hw, (int)(p % C));
}

/* ------------------------------------------------------- float layers */

static int f_conv(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    O2hConv2d p;
    if (quant_conv_desc(e->g, l, &p, e->d))
        return -1;
    const float *w = in_buf(e, L->in[1]);
    size_t packed = o2h_conv2d_packed_size(&p), sc = o2h_conv2d_scratch_size(&p);
    float *wp = packed ? malloc(packed * 4) : NULL, *s = malloc(sc * 4 + 64);
    if ((packed && !wp) || !s) {
        free(wp), free(s);
        return quant_error(e->d, e->g, l, "out of memory");
    }
    if (packed)
        o2h_conv2d_pack(&p, w, wp);
    O2hEpilogue ep = epilogue(e, L);
    o2h_conv2d_f32(&p, in_buf(e, L->in[0]), packed ? wp : w, in_buf(e, in_at(L, 2)), &ep, y, s);
    free(wp), free(s);
    return 0;
}

static int f_gemm(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    const IrGemmAttr *a = &L->attr.gemm;
    const IrTensor *A = &e->g->tensors[L->in[0]], *Y = &e->g->tensors[L->out[0]];
    int c = in_at(L, 2);
    if (A->rank != 2 || Y->rank != 2)
        return quant_error(e->d, e->g, l, "Gemm needs 2-D operands");
    int cr = 0, cc = 0;
    if (c >= 0) {
        const IrTensor *C = &e->g->tensors[c];
        cr = C->rank == 2 ? (int)C->dims[0] : 1;
        cc = C->rank >= 1 ? (int)C->dims[C->rank - 1] : 1;
    }
    O2hGemm p = {(int)Y->dims[0], (int)Y->dims[1], (int)(a->trans_a ? A->dims[0] : A->dims[1]), a->trans_a,
                 a->trans_b, a->alpha, a->beta, cr, cc};
    size_t packed = o2h_gemm_packed_size(&p), sc = o2h_gemm_scratch_size(&p);
    const float *b = in_buf(e, L->in[1]);
    float *bp = packed ? malloc(packed * 4) : NULL, *s = malloc(sc * 4 + 64);
    if ((packed && !bp) || !s) {
        free(bp), free(s);
        return quant_error(e->d, e->g, l, "out of memory");
    }
    if (packed)
        o2h_gemm_pack_b(&p, b, bp);
    O2hEpilogue ep = epilogue(e, L);
    o2h_gemm_f32(&p, in_buf(e, L->in[0]), packed ? bp : b, in_buf(e, c), &ep, y, s);
    free(bp), free(s);
    return 0;
}

static int f_matmul(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    const IrTensor *A = &e->g->tensors[L->in[0]], *B = &e->g->tensors[L->in[1]], *Y = &e->g->tensors[L->out[0]];
    if (A->rank < 2 || B->rank < 2 || Y->rank < 2 || Y->rank > O2H_MAX_RANK)
        return quant_error(e->d, e->g, l, "MatMul of vectors is not supported by the evaluator");
    O2hMatMul p;
    memset(&p, 0, sizeof p);
    p.rank = Y->rank;
    for (int i = 0; i < Y->rank; i++) {
        p.a_dims[i] = p.b_dims[i] = 1;
        p.y_dims[i] = Y->dims[i];
    }
    for (int i = 0; i < A->rank; i++)
        p.a_dims[Y->rank - A->rank + i] = A->dims[i];
    for (int i = 0; i < B->rank; i++)
        p.b_dims[Y->rank - B->rank + i] = B->dims[i];
    o2h_matmul_f32(&p, in_buf(e, L->in[0]), in_buf(e, L->in[1]), y);
    post(e, L, y);
    return 0;
}

static int f_pool(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    const float *x = in_buf(e, L->in[0]);
    const IrTensor *X = &e->g->tensors[L->in[0]];
    if (L->op == IR_OP_GLOBAL_AVGPOOL || L->op == IR_OP_GLOBAL_MAXPOOL) {
        int64_t nc = X->dims[0] * X->dims[1], hw = ir_tensor_numel(X) / (nc > 0 ? nc : 1);
        (L->op == IR_OP_GLOBAL_AVGPOOL ? o2h_global_avgpool_f32 : o2h_global_maxpool_f32)(nc, hw, x, y);
    } else {
        O2hPool2d p;
        if (quant_pool_desc(e->g, l, &p, e->d))
            return -1;
        (L->op == IR_OP_MAXPOOL ? o2h_maxpool2d_f32 : o2h_avgpool2d_f32)(&p, x, y);
    }
    post(e, L, y);
    return 0;
}

/* the runtime kernel of each binary op (the kernel column of ir/ops.def) */
static const O2hBinOp binary_kernels[IR_OP_COUNT] = {
#define OP(id, name, family, flags, unit)
#define BINARY(id, name, flags, kernel, unit) [IR_OP_##id] = O2H_BIN_##kernel,
#include "ir/ops.def"
#undef BINARY
#undef OP
};

/* Sum/Mean/Max/Min of n operands as the host computes them: x0 broadcast
 * to y, then y = y op xi, Mean scaled by 1/n at the end. */
static int f_variadic(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    const O2hEpilogue none = {O2H_ACT_NONE, 0, 0, NULL, 0, NULL};
    O2hBroadcast bc;
    quant_broadcast(e->g, L->in[0], -1, L->out[0], &bc);
    o2h_expand(4, &bc, in_buf(e, L->in[0]), y);
    for (int i = 1; i < L->n_in; i++) {
        quant_broadcast(e->g, L->out[0], L->in[i], L->out[0], &bc);
        o2h_binary_f32(binary_kernels[L->op], &bc, y, in_buf(e, L->in[i]), &none, y);
    }
    if (L->op == IR_OP_MEAN && L->n_in > 1) {
        const float inv = 1.0f / (float)L->n_in;
        quant_broadcast(e->g, L->out[0], -1, L->out[0], &bc);
        o2h_binary_f32(O2H_BIN_MUL, &bc, y, &inv, &none, y);
    }
    post(e, L, y);
    return 0;
}

static int f_binary(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    for (int i = 0; i < L->n_in; i++)
        if (L->in[i] < 0)
            return quant_error(e->d, e->g, l, "missing operand %d", i);
    if (L->n_in != 2 || L->op == IR_OP_MEAN)
        return f_variadic(e, l, y);
    O2hBroadcast bc;
    quant_broadcast(e->g, L->in[0], L->in[1], L->out[0], &bc);
    O2hEpilogue ep = epilogue(e, L);
    o2h_binary_f32(binary_kernels[L->op], &bc, in_buf(e, L->in[0]), in_buf(e, L->in[1]), &ep, y);
    return 0;
}

/* the runtime code of each unary op, O2H_UN_<ID> (the UNARY rows of ops.def) */
static const O2hUnOp unary_codes[IR_OP_COUNT] = {
#define OP(id, name, family, flags, unit)
#define UNARY(id, name, flags, act, unit) [IR_OP_##id] = O2H_UN_##id,
#include "ir/ops.def"
#undef UNARY
#undef OP
};

static int f_unary(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    o2h_unary_f32(unary_codes[L->op], L->attr.act.alpha, L->attr.act.beta, in_buf(e, L->in[0]), y,
                  (size_t)numel(e, L->out[0]));
    post(e, L, y);
    return 0;
}

/* ------------------------------------------------------- layout ops */

/* Concat, Split, Transpose, Slice and Gather move elements of es bytes
 * (float 4, codes 1 or 2): the runtime's shape kernels, which the host
 * program calls for both the float and the integer program. */

static int f_concat(Eval *e, int l, size_t es, void *y)
{
    const IrLayer *L = &e->g->layers[l];
    const IrTensor *Y = &e->g->tensors[L->out[0]];
    int axis = (int)(L->attr.axis.axis < 0 ? L->attr.axis.axis + Y->rank : L->attr.axis.axis);
    const void *xs[IR_MAX_IO];
    int64_t dims[IR_MAX_IO], outer, inner;
    for (int i = 0; i < L->n_in; i++) {
        xs[i] = in_buf(e, L->in[i]);
        dims[i] = e->g->tensors[L->in[i]].dims[axis];
    }
    quant_axis_split(Y, axis, &outer, &inner);
    o2h_concat(es, L->n_in, xs, dims, outer, inner, y);
    return 0;
}

/* Split: outputs after the first get their buffers here */
static int f_split(Eval *e, int l, size_t es, void *y)
{
    const IrLayer *L = &e->g->layers[l];
    const IrTensor *X = &e->g->tensors[L->in[0]];
    int axis = (int)(L->attr.axis.axis < 0 ? L->attr.axis.axis + X->rank : L->attr.axis.axis);
    void *ys[IR_MAX_IO] = {y};
    int64_t dims[IR_MAX_IO], outer, inner;
    for (int i = 0; i < L->n_out; i++) {
        if (i > 0 && !(ys[i] = out_buf(e, L->out[i])))
            return quant_error(e->d, e->g, l, "out of memory");
        dims[i] = e->g->tensors[L->out[i]].dims[axis];
    }
    quant_axis_split(X, axis, &outer, &inner);
    o2h_split(es, L->n_out, ys, dims, outer, inner, in_buf(e, L->in[0]));
    return 0;
}

static int f_transpose(Eval *e, int l, size_t es, void *y)
{
    const IrLayer *L = &e->g->layers[l];
    const IrTensor *X = &e->g->tensors[L->in[0]];
    int perm[IR_MAX_RANK];
    if (ir_transpose_perm(e->g, L, perm))
        return quant_error(e->d, e->g, l, "perm is not a permutation of %d axes", X->rank);
    o2h_transpose(es, X->rank, X->dims, perm, in_buf(e, L->in[0]), y);
    return 0;
}

static int f_slice(Eval *e, int l, size_t es, void *y)
{
    const IrLayer *L = &e->g->layers[l];
    const IrTensor *X = &e->g->tensors[L->in[0]], *Y = &e->g->tensors[L->out[0]];
    int64_t starts[IR_MAX_RANK], steps[IR_MAX_RANK];
    if (X->rank == 0 || ir_slice_bounds(e->g, L, starts, steps))
        return quant_error(e->d, e->g, l, "slice axes or output shape do not match the input");
    o2h_slice(es, X->rank, X->dims, Y->dims, starts, steps, in_buf(e, L->in[0]), y);
    return 0;
}

static int f_pad(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    const IrTensor *X = &e->g->tensors[L->in[0]], *Y = &e->g->tensors[L->out[0]];
    const IrPadAttr *a = &L->attr.pad;
    o2h_pad_f32((int)a->mode, a->value, X->rank, X->dims, a->begin, Y->dims, in_buf(e, L->in[0]), y);
    return 0;
}

/* Gather with constant indices (negative ones count from the end) */
static int f_gather(Eval *e, int l, size_t es, void *y)
{
    const IrLayer *L = &e->g->layers[l];
    const IrTensor *X = &e->g->tensors[L->in[0]], *I = &e->g->tensors[L->in[1]];
    int axis = (int)(L->attr.axis.axis < 0 ? L->attr.axis.axis + X->rank : L->attr.axis.axis);
    if (I->kind != IR_T_CONST || (I->dtype != IR_DT_INT64 && I->dtype != IR_DT_INT32))
        return quant_error(e->d, e->g, l, "Gather needs constant int32/int64 indices in the evaluator");
    int64_t n = ir_tensor_numel(I), dim = X->dims[axis], outer, inner;
    int64_t *idx = malloc((size_t)(n > 0 ? n : 1) * sizeof *idx);
    if (!idx)
        return quant_error(e->d, e->g, l, "out of memory");
    const void *src = ir_tensor_data(e->g, L->in[1]);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = I->dtype == IR_DT_INT64 ? ((const int64_t *)src)[i] : ((const int32_t *)src)[i];
        idx[i] = v < 0 ? v + dim : v;
        if (idx[i] < 0 || idx[i] >= dim) {
            free(idx);
            return quant_error(e->d, e->g, l, "index %lld out of range [0, %lld)", (long long)v, (long long)dim);
        }
    }
    quant_axis_split(X, axis, &outer, &inner);
    o2h_gather(es, outer, dim, inner, idx, n, in_buf(e, L->in[0]), y);
    free(idx);
    return 0;
}

static int f_expand(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    O2hBroadcast bc;
    quant_broadcast(e->g, L->in[0], -1, L->out[0], &bc);
    o2h_expand(4, &bc, in_buf(e, L->in[0]), y);
    return 0;
}

/* views and float-to-float casts: a copy */
static int f_copy(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    memcpy(y, in_buf(e, L->in[0]), ir_tensor_nbytes(&e->g->tensors[L->out[0]]));
    return 0;
}

typedef int (*MoveFn)(Eval *e, int l, size_t es, void *y);
static const MoveFn move_fns[IR_OP_COUNT] = {
    [IR_OP_TRANSPOSE] = f_transpose, [IR_OP_CONCAT] = f_concat, [IR_OP_SPLIT] = f_split,
    [IR_OP_SLICE] = f_slice, [IR_OP_GATHER] = f_gather,
};

typedef int (*FloatFn)(Eval *e, int l, float *y);
static const FloatFn shape_fns[IR_OP_COUNT] = {
    [IR_OP_FLATTEN] = f_copy, [IR_OP_RESHAPE] = f_copy, [IR_OP_SQUEEZE] = f_copy,
    [IR_OP_UNSQUEEZE] = f_copy, [IR_OP_IDENTITY] = f_copy, [IR_OP_DROPOUT] = f_copy,
    [IR_OP_CAST] = f_copy, [IR_OP_PAD] = f_pad, [IR_OP_EXPAND] = f_expand,
};

/* the family's ops that move data (Shape, Constant, ConstantOfShape and
 * Range are folded at compile time) */
static int f_shape(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    if (!shape_fns[L->op] && !move_fns[L->op])
        return quant_error(e->d, e->g, l, "%s is not supported by the calibration evaluator", ir_op_name(L->op));
    if (move_fns[L->op] ? move_fns[L->op](e, l, 4, y) : shape_fns[L->op](e, l, y))
        return -1;
    post(e, L, y);
    return 0;
}

static int f_resize(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    const IrTensor *X = &e->g->tensors[L->in[0]], *Y = &e->g->tensors[L->out[0]];
    const IrResizeAttr *a = &L->attr.resize;
    if (X->rank != Y->rank || X->rank < 1 || X->rank > O2H_MAX_RANK)
        return quant_error(e->d, e->g, l, "output rank differs from the input");
    O2hResize p = {X->rank, {0}, {0}, {0}, (int)a->mode, (int)a->coord, (int)a->nearest, a->cubic_a};
    for (int i = 0; i < X->rank; i++) {
        p.in_dims[i] = X->dims[i];
        p.out_dims[i] = Y->dims[i];
        p.scale[i] = ir_resize_scale(e->g, L, i);
    }
    o2h_resize_f32(&p, in_buf(e, L->in[0]), y);
    post(e, L, y);
    return 0;
}

static int f_softmax(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    const IrTensor *X = &e->g->tensors[L->in[0]];
    int axis = (int)(L->attr.axis.axis < 0 ? L->attr.axis.axis + X->rank : L->attr.axis.axis);
    int64_t outer, inner;
    quant_axis_split(X, axis, &outer, &inner);
    o2h_softmax_f32(outer, X->dims[axis], inner, L->op == IR_OP_LOG_SOFTMAX, in_buf(e, L->in[0]), y);
    post(e, L, y);
    return 0;
}

static int f_norm(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    const IrTensor *X = &e->g->tensors[L->in[0]];
    int64_t hw = X->rank > 2 ? ir_tensor_numel(X) / (X->dims[0] * X->dims[1]) : 1;
    o2h_batchnorm_f32(X->dims[0], X->dims[1], hw, in_buf(e, L->in[0]), in_buf(e, L->in[1]), in_buf(e, L->in[2]),
                      in_buf(e, L->in[3]), in_buf(e, L->in[4]), L->attr.norm.epsilon, y);
    post(e, L, y);
    return 0;
}

static int f_reduce(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    const IrTensor *X = &e->g->tensors[L->in[0]];
    const IrAxesAttr *a = &L->attr.axes;
    int lo = X->rank, hi = -1;
    for (int i = 0; i < a->n; i++) {
        int ax = (int)(a->perm[i] < 0 ? a->perm[i] + X->rank : a->perm[i]);
        lo = ax < lo ? ax : lo;
        hi = ax > hi ? ax : hi;
    }
    if (a->n == 0)
        lo = 0, hi = X->rank - 1;
    if (hi - lo + 1 != (a->n ? a->n : X->rank))
        return quant_error(e->d, e->g, l, "reduction over non-adjacent axes is not supported by the evaluator");
    int64_t outer = 1, n = 1, inner = 1;
    for (int i = 0; i < X->rank; i++)
        *(i < lo ? &outer : i > hi ? &inner : &n) *= X->dims[i];
    int op = L->op == IR_OP_REDUCE_MEAN ? 0 : L->op == IR_OP_REDUCE_MAX ? 1 : 2;
    o2h_reduce_f32(op, outer, n, inner, in_buf(e, L->in[0]), y);
    post(e, L, y);
    return 0;
}

static int f_conv_transpose(Eval *e, int l, float *y)
{
    const IrLayer *L = &e->g->layers[l];
    O2hConv2d p;
    if (quant_conv_desc(e->g, l, &p, e->d))
        return -1;
    o2h_conv_transpose2d_f32(&p, in_buf(e, L->in[0]), in_buf(e, L->in[1]), in_buf(e, in_at(L, 2)), y);
    post(e, L, y);
    return 0;
}

static int f_conv_family(Eval *e, int l, float *y)
{
    return e->g->layers[l].op == IR_OP_CONV_TRANSPOSE ? f_conv_transpose(e, l, y) : f_conv(e, l, y);
}

static int f_gemm_family(Eval *e, int l, float *y)
{
    return e->g->layers[l].op == IR_OP_MATMUL ? f_matmul(e, l, y) : f_gemm(e, l, y);
}

static int f_none(Eval *e, int l, float *y)
{
    (void)y;
    return quant_error(e->d, e->g, l, "%s is not supported by the calibration evaluator",
                       ir_op_name(e->g->layers[l].op));
}

/* The evaluator of each op family, expanded from the family column of
 * ir/ops.def: a new family must say here how (or that it cannot) run. */
#define EVAL_conv f_conv_family
#define EVAL_norm f_norm
#define EVAL_unary f_unary
#define EVAL_binary f_binary
#define EVAL_pool f_pool
#define EVAL_reduce f_reduce
#define EVAL_gemm f_gemm_family
#define EVAL_shape f_shape
#define EVAL_resize f_resize
#define EVAL_softmax f_softmax
#define EVAL_quant f_none
static const FloatFn float_fns[IR_OP_COUNT] = {
#define OP(id, name, family, flags, unit) [IR_OP_##id] = EVAL_##family,
#include "ir/ops.def"
#undef OP
};

static int run_float(Eval *e, int l)
{
    const IrLayer *L = &e->g->layers[l];
    if (!all_float(e, L))
        return quant_error(e->d, e->g, l, "float layer with non-float tensors");
    float *y = out_buf(e, L->out[0]);
    if (!y)
        return quant_error(e->d, e->g, l, "out of memory");
    return float_fns[L->op](e, l, y);
}

/* ------------------------------------------------------- integer layers */

static int i_conv(Eval *e, int l, const QuantLayer *q, void *y)
{
    if (e->prog && e->prog->packed[l]) {
        o2h_conv2d_s8_packed(&q->conv, q->x_zero, &q->rq, in_buf(e, q->x), e->prog->packed[l], y, e->scratch);
        return 0;
    }
    size_t sc = q->wide ? o2h_conv2d_s16_scratch(&q->conv) : o2h_conv2d_s8_scratch(&q->conv);
    void *s = malloc(sc + 128);
    if (!s)
        return quant_error(e->d, e->g, l, "out of memory");
    const void *x = in_buf(e, q->x), *w = ir_tensor_data(e->g, q->w);
    if (q->wide)
        o2h_conv2d_s16(&q->conv, q->x_zero, &q->rq, x, w, q->bias, y, s);
    else
        o2h_conv2d_s8(&q->conv, q->x_zero, &q->rq, x, w, q->bias, y, s);
    free(s);
    return 0;
}

static void i_concat(Eval *e, const QuantLayer *q, void *y)
{
    const void *xs[IR_MAX_IO];
    for (int i = 0; i < q->n_in; i++)
        xs[i] = in_buf(e, q->in[i]);
    if (q->wide)
        o2h_concat_s16(q->n_in, (const int16_t *const *)xs, q->dims_axis, q->outer, q->inner, q->in_zero,
                       q->in_rq, y);
    else
        o2h_concat_s8(q->n_in, (const int8_t *const *)xs, q->dims_axis, q->outer, q->inner, q->in_zero,
                      q->in_rq, y);
}

static int run_int(Eval *e, int l)
{
    QuantLayer q;
    if (e->prog)
        q = e->prog->low[l];
    else if (pass_quant_lower(e->g, l, &q, e->d))
        return -1;
    void *y = out_buf(e, q.y);
    const void *x = in_buf(e, q.x), *x2 = in_buf(e, q.x2);
    if (!y || !x)
        return quant_error(e->d, e->g, l, "%s", y ? "input not computed" : "out of memory");
    size_t n = (size_t)q.n;
    switch (q.kind) {
    case QK_QUANTIZE:
        if (q.wide)
            o2h_quantize_f32_s16(x, y, n, q.scale, q.zero, q.lo, q.hi);
        else
            o2h_quantize_f32_s8(x, y, n, q.scale, q.zero, q.lo, q.hi);
        break;
    case QK_DEQUANTIZE:
        if (q.wide)
            o2h_dequantize_s16_f32(x, y, n, q.scale, q.zero);
        else
            o2h_dequantize_s8_f32(x, y, n, q.scale, q.zero);
        break;
    case QK_CONV: return i_conv(e, l, &q, y);
    case QK_FC:
        if (q.wide)
            o2h_fc_s16(&q.fc, &q.rq, x, ir_tensor_data(e->g, q.w), q.bias, y);
        else
            o2h_fc_s8(&q.fc, &q.rq, x, ir_tensor_data(e->g, q.w), q.bias, y);
        break;
    case QK_MAXPOOL:
        if (q.wide)
            o2h_maxpool2d_s16(&q.pool, x, y, q.lo);
        else
            o2h_maxpool2d_s8(&q.pool, x, y, q.lo);
        break;
    case QK_AVGPOOL:
        if (q.wide)
            o2h_avgpool2d_s16(&q.pool, q.x_zero, &q.rq, x, y);
        else
            o2h_avgpool2d_s8(&q.pool, q.x_zero, &q.rq, x, y);
        break;
    case QK_GLOBAL_MAXPOOL:
        if (q.wide)
            o2h_global_maxpool_s16(q.nc, q.hw, x, y);
        else
            o2h_global_maxpool_s8(q.nc, q.hw, x, y);
        break;
    case QK_GLOBAL_AVGPOOL:
        if (q.wide)
            o2h_global_avgpool_s16(q.nc, q.hw, q.x_zero, &q.rq, x, y);
        else
            o2h_global_avgpool_s8(q.nc, q.hw, q.x_zero, &q.rq, x, y);
        break;
    case QK_ADD:
    case QK_MUL:
        if (q.wide)
            (q.kind == QK_ADD ? o2h_add_s16 : o2h_mul_s16)(&q.bc, &q.elt, x, x2, y);
        else
            (q.kind == QK_ADD ? o2h_add_s8 : o2h_mul_s8)(&q.bc, &q.elt, x, x2, y);
        break;
    case QK_LUT: o2h_lut_s8(x, y, n, q.lut); break;
    case QK_RESCALE:
        if (q.wide)
            o2h_rescale_s16(x, y, n, q.x_zero, &q.rq);
        else
            o2h_rescale_s8(x, y, n, q.x_zero, &q.rq);
        break;
    case QK_CONCAT: i_concat(e, &q, y); break;
    case QK_VIEW: memcpy(y, x, ir_tensor_nbytes(&e->g->tensors[q.y])); break;
    case QK_MOVE: return move_fns[e->g->layers[l].op](e, l, q.wide ? 2 : 1, y);
    }
    return 0;
}

/* ------------------------------------------------------- driver */

static void observe(Eval *e, int t)
{
    bool is_float = e->g->tensors[t].dtype == IR_DT_FLOAT;
    if (e->obs && is_float && e->val[t])
        e->obs(e->ctx, t, e->val[t], numel(e, t));
    if (e->cobs && !is_float && e->val[t])
        e->cobs(e->cctx, t, e->val[t], (int64_t)ir_tensor_nbytes(&e->g->tensors[t]));
}

static int run_layer(Eval *e, int l)
{
    const IrLayer *L = &e->g->layers[l];
    if (L->dead)
        return 0;
    int rc = pass_quant_is_int_layer(e->g, l) && !e->force_float ? run_int(e, l) : run_float(e, l);
    if (rc)
        return -1;
    for (int o = 0; o < L->n_out; o++)
        if (L->out[o] >= 0 && e->val[L->out[o]])
            observe(e, L->out[o]);
    if (L->out[0] == e->want && e->codes)
        memcpy(e->codes, e->val[L->out[0]], ir_tensor_nbytes(&e->g->tensors[L->out[0]]));
    return 0;
}

static int run_all(Eval *e, const float *const *inputs, float *const *outputs)
{
    IrGraph *g = e->g;
    for (int i = 0; i < g->n_inputs; i++) {
        e->val[g->inputs[i]] = (void *)inputs[i];
        observe(e, g->inputs[i]);
    }
    for (int l = 0; l < g->n_layers; l++)
        if (run_layer(e, l))
            return -1;
    for (int i = 0; i < g->n_outputs; i++) {
        int t = g->outputs[i];
        if (g->tensors[t].dtype != IR_DT_FLOAT || !in_buf(e, t)) {
            diag_error(e->d, g->path, NULL, NULL, "graph output '%s' is not a computed float tensor",
                       g->tensors[t].name);
            return -1;
        }
        if (outputs && outputs[i])
            memcpy(outputs[i], in_buf(e, t), ir_tensor_nbytes(&g->tensors[t]));
    }
    return 0;
}

static int eval_run(Eval *e0, const float *const *inputs, float *const *outputs)
{
    Eval e = *e0;
    IrGraph *g = e.g;
    e.val = calloc((size_t)g->n_tensors + 1, sizeof(void *));
    e.own = calloc((size_t)g->n_tensors + 1, 1);
    IrDiag *d = e.d;
    int rc = -1;
    if (e.val && e.own)
        rc = run_all(&e, inputs, outputs);
    else
        diag_error(d, g->path, NULL, NULL, "out of memory");
    for (int t = 0; e.val && e.own && t < g->n_tensors; t++)
        if (e.own[t])
            free(e.val[t]);
    free(e.val);
    free(e.own);
    return rc;
}

int quant_eval(IrGraph *g, const float *const *inputs, float *const *outputs, QuantObserve obs, void *ctx,
               bool force_float, int want, void *codes, IrDiag *d)
{
    Eval e = {g, d, NULL, NULL, obs, ctx, want, codes, force_float, NULL, NULL, NULL, NULL};
    return eval_run(&e, inputs, outputs);
}

static int bufs_alloc(const IrGraph *g, QuantRunBufs *b, size_t scratch, IrDiag *d)
{
    b->n = b->val ? b->n : g->n_tensors;
    if (b->val || ((b->val = calloc((size_t)b->n + 1, sizeof(void *))) && (b->own = calloc((size_t)b->n + 1, 1)) &&
                   (b->scratch = malloc(scratch))))
        return 0;
    diag_error(d, g->path, NULL, NULL, "out of memory");
    return -1;
}

int quant_run_program(const QuantProgram *p, QuantRunBufs *b, const float *in, float *out, IrDiag *d)
{
    if (bufs_alloc(p->g, b, p->scratch, d))
        return -1;
    Eval e = {p->g, d, b->val, b->own, NULL, NULL, -1, NULL, false, NULL, NULL, p, b->scratch};
    float *outs[1] = {out};
    return run_all(&e, &in, outs);
}

int quant_eval_span(IrGraph *g, QuantRunBufs *b, const float *in, int first, int last, QuantObserve obs, void *ctx,
                    IrDiag *d)
{
    if (bufs_alloc(g, b, 1, d))
        return -1;
    Eval e = {g, d, b->val, b->own, obs, ctx, -1, NULL, true, NULL, NULL, NULL, NULL};
    e.val[g->inputs[0]] = (void *)in;
    for (int t = 0; t < b->n; t++)
        if (t == g->inputs[0] || (e.own[t] && e.val[t]))
            observe(&e, t);
    for (int l = first; l <= last && l < g->n_layers; l++)
        if (run_layer(&e, l))
            return -1;
    return 0;
}

void quant_live_in(const IrGraph *g, int first, char *keep)
{
    memset(keep, 0, (size_t)g->n_tensors);
    for (int l = first; l < g->n_layers; l++) {
        const IrLayer *L = &g->layers[l];
        for (int i = 0; !L->dead && i < L->n_in; i++)
            if (L->in[i] >= 0)
                keep[L->in[i]] = 1;
        if (!L->dead && L->residual >= 0)
            keep[L->residual] = 1;
        if (!L->dead && L->act_slope >= 0)
            keep[L->act_slope] = 1;
    }
    for (int l = first; l < g->n_layers; l++)
        for (int o = 0; o < g->layers[l].n_out; o++)
            if (g->layers[l].out[o] >= 0)
                keep[g->layers[l].out[o]] = 0;   /* computed again */
}

void quant_bufs_keep_live(const IrGraph *g, QuantRunBufs *b, int first)
{
    char *keep = malloc((size_t)g->n_tensors + 1);
    if (keep)
        quant_live_in(g, first, keep);
    for (int t = 0; b->own && t < b->n; t++)
        if (b->own[t] && (!keep || !keep[t])) {
            free(b->val[t]);
            b->val[t] = NULL;
            b->own[t] = 0;
        }
    free(keep);
}

void quant_run_bufs_free(QuantRunBufs *b)
{
    for (int t = 0; b->val && b->own && t < b->n; t++)
        if (b->own[t])
            free(b->val[t]);
    free(b->val);
    free(b->own);
    free(b->scratch);
}

int pass_quant_eval_all(IrGraph *g, const float *const *inputs, float *const *outputs, QuantObserveCodes obs,
                        void *ctx, IrDiag *d)
{
    Eval e = {g, d, NULL, NULL, NULL, NULL, -1, NULL, false, obs, ctx, NULL, NULL};
    return eval_run(&e, inputs, outputs);
}

int pass_quant_eval(IrGraph *g, const float *const *inputs, float *const *outputs, QuantObserve obs,
                    void *ctx, IrDiag *d)
{
    return quant_eval(g, inputs, outputs, obs, ctx, false, -1, NULL, d);
}

int pass_quant_eval_codes(IrGraph *g, const float *const *inputs, float *const *outputs, int t, void *codes,
                          IrDiag *d)
{
    return quant_eval(g, inputs, outputs, NULL, NULL, false, t, codes, d);
}
