/* host_layers.c - one emitter per operator family for the host C program.
 *
 * Each emitter turns one IR layer into a constant descriptor and one call
 * into the runtime (runtime/o2h_rt.h), in both phases described in
 * host_emit.h. It is also where the host path says no: anything it cannot
 * run exactly (3-D convolutions, integer arithmetic, training outputs ...)
 * is rejected here with the ONNX node named, so `compile` fails before
 * writing anything rather than producing a program that computes garbage.
 *
 * Fused epilogues (IrLayer.residual / act / act_slope) are honored for every
 * layer: kernels that take an O2hEpilogue get it, the others get the same
 * arithmetic as calls after the kernel (emit_post).
 */
#include "host_emit.h"
#include "host_int.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>

#include "runtime/o2h_rt.h"

/* ------------------------------------------------------------ helpers */

static const IrTensor *TT(CgHost *h, int t)
{
    return &h->g->tensors[t];
}

static int in_at(const IrLayer *L, int i)
{
    return i < L->n_in ? L->in[i] : -1;
}

static int64_t prod(const int64_t *d, int a, int b)
{
    int64_t p = 1;
    for (int i = a; i < b; i++)
        p *= d[i];
    return p;
}

static int64_t numel(CgHost *h, int t)
{
    return ir_tensor_numel(TT(h, t));
}

static bool fits_int(int64_t v)
{
    return v >= INT_MIN && v <= INT_MAX;
}

static bool same_shape(CgHost *h, int a, int b)
{
    const IrTensor *A = TT(h, a), *B = TT(h, b);
    if (A->rank != B->rank)
        return false;
    for (int i = 0; i < A->rank; i++)
        if (A->dims[i] != B->dims[i])
            return false;
    return true;
}

/* True when t's data is a constant, looking through views of constants. */
static bool is_const(CgHost *h, int t)
{
    while (t >= 0) {
        const IrTensor *T = TT(h, t);
        if (T->kind == IR_T_CONST)
            return true;
        if (T->producer < 0)
            return false;
        const IrLayer *P = &h->g->layers[T->producer];
        if (!(ir_op_flags(P->op) & IR_F_NO_DATA))
            return false;
        t = in_at(P, 0);
    }
    return false;
}

/* Every listed tensor (-1 = absent, skipped) must be float32. */
static int need_float(CgHost *h, int l, const int *ts, int n)
{
    for (int i = 0; i < n; i++) {
        if (ts[i] < 0)
            continue;
        IrDType dt = TT(h, ts[i])->dtype;
        if (dt != IR_DT_FLOAT) {
            cg_host_reject(h, l, "tensor '%s' is %s; the host path computes this op in float32 only",
                           TT(h, ts[i])->name, ir_dtype_name(dt));
            return -1;
        }
    }
    return 0;
}
#define NEED_FLOAT(h, l, ...) need_float((h), (l), (const int[]){__VA_ARGS__}, \
                                         (int)(sizeof((const int[]){__VA_ARGS__}) / sizeof(int)))

/* An unused extra output (training statistics, pool indices) is fine; a
 * used one cannot be produced. */
static int extra_outputs_unused(CgHost *h, int l, int from, const char *what)
{
    const IrLayer *L = &h->g->layers[l];
    for (int i = from; i < L->n_out; i++)
        if (L->out[i] >= 0 && ir_tensor_uses(h->g, L->out[i]) > 0) {
            cg_host_reject(h, l, "output '%s' (%s) is not supported", TT(h, L->out[i])->name, what);
            return -1;
        }
    return 0;
}

static int norm_axis(int64_t axis, int rank)
{
    return (int)(axis < 0 ? axis + rank : axis);
}

static const char *layer_id(CgHost *h, int l)
{
    return ir_sprintf(h->g, "L%d", l);
}

/* ---------------------------------------------------------- epilogues */

static const char *const act_names[] = {
    "O2H_ACT_NONE", "O2H_ACT_RELU", "O2H_ACT_CLIP", "O2H_ACT_LEAKY_RELU", "O2H_ACT_PRELU",
    "O2H_ACT_SIGMOID", "O2H_ACT_HARD_SIGMOID", "O2H_ACT_HARD_SWISH", "O2H_ACT_SILU",
    "O2H_ACT_TANH", "O2H_ACT_ELU",
};

typedef struct {
    bool residual, act;  /* still to apply after the kernel */
} Post;

static bool act_valid(IrActKind k)
{
    return (unsigned)k < sizeof act_names / sizeof act_names[0];
}

static int check_epilogue(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    if (!act_valid(L->act.kind)) {
        cg_host_reject(h, l, "unknown fused activation %d", (int)L->act.kind);
        return -1;
    }
    if (L->act.kind == IR_ACT_PRELU && L->act_slope < 0) {
        cg_host_reject(h, l, "fused PRelu without a slope tensor");
        return -1;
    }
    int y = L->n_out > 0 ? L->out[0] : -1;
    return NEED_FLOAT(h, l, L->residual, L->act_slope, L->residual >= 0 || L->act.kind ? y : -1);
}

static const char *act_literal(CgHost *h, IrActKind k, float alpha, float beta, const char *residual)
{
    return ir_sprintf(h->g, "&(O2hEpilogue){%s, %s, %s, NULL, 0, %s}", act_names[k],
                      cg_float(h, alpha), cg_float(h, beta), residual ? residual : "NULL");
}

/* The epilogue argument of a kernel that takes one; whatever the kernel
 * cannot do (a residual of another shape, PRelu) is left in *post. */
static const char *kernel_epilogue(CgHost *h, const IrLayer *L, int y, Post *post)
{
    post->residual = L->residual >= 0 && !same_shape(h, L->residual, y);
    post->act = L->act.kind != IR_ACT_NONE && (post->residual || L->act.kind == IR_ACT_PRELU);
    const char *res = L->residual >= 0 && !post->residual ? cg_ptr(h, L->residual) : NULL;
    IrActKind k = post->act ? IR_ACT_NONE : L->act.kind;
    if (!res && k == IR_ACT_NONE)
        return "&E_NONE";
    return act_literal(h, k, L->act.alpha, L->act.beta, res);
}

/* O2hBroadcast declaration named NAME for a (op) b -> y; b may be -1 (Expand). */
static void emit_broadcast(CgHost *h, const char *name, int a, int b, int y)
{
    const IrTensor *Y = TT(h, y);
    int r = Y->rank > 0 ? Y->rank : 1;
    int64_t ad[O2H_MAX_RANK], bd[O2H_MAX_RANK], yd[O2H_MAX_RANK];
    for (int i = 0; i < r; i++)
        ad[i] = bd[i] = yd[i] = 1;
    for (int i = 0; i < Y->rank; i++)
        yd[r - Y->rank + i] = Y->dims[i];
    const IrTensor *A = TT(h, a);
    for (int i = 0; i < A->rank; i++)
        ad[r - A->rank + i] = A->dims[i];
    if (b >= 0) {
        const IrTensor *B = TT(h, b);
        for (int i = 0; i < B->rank; i++)
            bd[r - B->rank + i] = B->dims[i];
    } else {
        memcpy(bd, yd, sizeof yd);
    }
    cg_emit(h, h->decl, "static const O2hBroadcast %s = {%d, %s, %s, %s};\n", name, r,
            cg_i64_list(h, ad, r), cg_i64_list(h, bd, r), cg_i64_list(h, yd, r));
}

/* Can a and b broadcast to y? (ranks at most y's, dims 1 or equal) */
static int check_broadcast(CgHost *h, int l, int a, int b, int y)
{
    const IrTensor *Y = TT(h, y);
    int ts[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        if (ts[k] < 0)
            continue;
        const IrTensor *A = TT(h, ts[k]);
        bool ok = A->rank <= Y->rank && Y->rank <= O2H_MAX_RANK;
        for (int i = 0; ok && i < A->rank; i++) {
            int64_t da = A->dims[i], dy = Y->dims[Y->rank - A->rank + i];
            ok = da == dy || da == 1;
        }
        if (!ok) {
            cg_host_reject(h, l, "tensor '%s' does not broadcast to the output '%s'", A->name, Y->name);
            return -1;
        }
    }
    return 0;
}

/* Apply what the kernel could not: y = y + residual (broadcast), then the
 * activation (PRelu as a broadcast binary op with its slope). */
static void emit_post(CgHost *h, int l, int y, Post post)
{
    const IrLayer *L = &h->g->layers[l];
    const char *Y = cg_ptr(h, y);
    bool act_in_add = post.residual && post.act && L->act.kind != IR_ACT_PRELU;
    if (post.residual) {
        const char *bc = ir_sprintf(h->g, "L%d_res", l);
        emit_broadcast(h, bc, y, L->residual, y);
        const char *e = act_in_add ? act_literal(h, L->act.kind, L->act.alpha, L->act.beta, NULL)
                                   : "&E_NONE";
        cg_emit(h, h->run, "    o2h_binary_f32(O2H_BIN_ADD, &%s, %s, %s, %s, %s);\n", bc, Y,
                cg_ptr(h, L->residual), e, Y);
        h->n_calls++;
    }
    if (!post.act || act_in_add)
        return;
    if (L->act.kind == IR_ACT_PRELU) {
        const char *bc = ir_sprintf(h->g, "L%d_slope", l);
        emit_broadcast(h, bc, y, L->act_slope, y);
        cg_emit(h, h->run, "    o2h_binary_f32(O2H_BIN_PRELU, &%s, %s, %s, &E_NONE, %s);\n", bc, Y,
                cg_ptr(h, L->act_slope), Y);
    } else {
        cg_emit(h, h->run, "    o2h_act_f32(%s, %s, %lld, 0);\n",
                act_literal(h, L->act.kind, L->act.alpha, L->act.beta, NULL), Y,
                (long long)numel(h, y));
    }
    h->n_calls++;
}

/* For layers whose kernel has no epilogue: everything is post. */
static Post all_post(const IrLayer *L)
{
    Post p = {L->residual >= 0, L->act.kind != IR_ACT_NONE};
    return p;
}

static int check_post_shapes(CgHost *h, int l, int y)
{
    const IrLayer *L = &h->g->layers[l];
    if (L->residual >= 0 && check_broadcast(h, l, L->residual, -1, y))
        return -1;
    if (L->act.kind == IR_ACT_PRELU && check_broadcast(h, l, L->act_slope, -1, y))
        return -1;
    return 0;
}

/* The first input and the output of a one-in one-out float layer, with the
 * shapes of its fused epilogue checked; -1 (layer rejected) otherwise. */
static int float_io(CgHost *h, int l, int *x, int *y)
{
    const IrLayer *L = &h->g->layers[l];
    *x = in_at(L, 0);
    *y = L->out[0];
    if (*x < 0) {
        cg_host_reject(h, l, "missing input");
        return -1;
    }
    return NEED_FLOAT(h, l, *x, *y) || check_post_shapes(h, l, *y) ? -1 : 0;
}

/* --------------------------------------------------------- convolution */

static int conv_desc(CgHost *h, int l, bool transpose, O2hConv2d *p)
{
    const IrLayer *L = &h->g->layers[l];
    const IrConvAttr *a = &L->attr.conv;
    const IrTensor *X = TT(h, L->in[0]), *W = TT(h, L->in[1]), *Y = TT(h, L->out[0]);
    int nsp = X->rank - 2;
    if (nsp == 3) {
        cg_host_reject(h, l, "3-D %s is not supported (1-D and 2-D are)",
                       transpose ? "transposed convolution" : "convolution");
        return -1;
    }
    if (nsp < 1 || nsp > 2 || W->rank != X->rank || Y->rank != X->rank) {
        cg_host_reject(h, l, "convolution of a rank-%d input is not supported", X->rank);
        return -1;
    }
    int64_t v[18];
    int sp = nsp - 1; /* index of the W axis in attr arrays */
    int64_t g = a->group > 0 ? a->group : 1;
    v[0] = X->dims[0], v[1] = X->dims[1];
    v[2] = nsp == 2 ? X->dims[2] : 1, v[3] = X->dims[1 + nsp];
    v[4] = Y->dims[1], v[5] = nsp == 2 ? Y->dims[2] : 1, v[6] = Y->dims[1 + nsp];
    v[7] = nsp == 2 ? W->dims[2] : 1, v[8] = W->dims[1 + nsp];
    v[9] = nsp == 2 ? a->stride[0] : 1, v[10] = a->stride[sp];
    v[11] = nsp == 2 ? a->dilation[0] : 1, v[12] = a->dilation[sp];
    v[13] = nsp == 2 ? a->pad_begin[0] : 0, v[14] = a->pad_begin[sp];
    v[15] = nsp == 2 ? a->pad_end[0] : 0, v[16] = a->pad_end[sp];
    v[17] = g;
    for (int i = 9; i <= 12; i++)
        if (v[i] <= 0)
            v[i] = 1;
    for (int i = 0; i < 18; i++)
        if (!fits_int(v[i]) || v[i] < 0) {
            cg_host_reject(h, l, "convolution dimensions out of range");
            return -1;
        }
    bool wshape = transpose ? W->dims[0] == v[1] && W->dims[1] * g == v[4]
                            : W->dims[0] == v[4] && W->dims[1] * g == v[1];
    if (!wshape || v[1] % g || v[4] % g) {
        cg_host_reject(h, l, "weight '%s' does not match the input/output channels and group %lld",
                       W->name, (long long)g);
        return -1;
    }
    *p = (O2hConv2d){(int)v[0], (int)v[1], (int)v[2], (int)v[3], (int)v[4], (int)v[5], (int)v[6],
                     (int)v[7], (int)v[8], (int)v[9], (int)v[10], (int)v[11], (int)v[12],
                     (int)v[13], (int)v[14], (int)v[15], (int)v[16], (int)v[17]};
    return 0;
}

static void emit_conv_desc(CgHost *h, const char *name, const O2hConv2d *p)
{
    cg_emit(h, h->decl,
            "static const O2hConv2d %s = {.N = %d, .C = %d, .H = %d, .W = %d, .F = %d, .HO = %d, "
            ".WO = %d,\n    .KH = %d, .KW = %d, .SH = %d, .SW = %d, .DH = %d, .DW = %d, "
            ".PT = %d, .PL = %d, .PB = %d, .PR = %d, .G = %d%s};\n",
            name, p->N, p->C, p->H, p->W, p->F, p->HO, p->WO, p->KH, p->KW, p->SH, p->SW, p->DH,
            p->DW, p->PT, p->PL, p->PB, p->PR, p->G, "");
}

/* Size queries for model_prepare and the pool estimate of this compiler's
 * runtime build. Each conv/gemm weight gets a slot in the pool: a constant
 * one is repacked there once at init, a run-time one before every call. */
static const char *kernel_weight(CgHost *h, const char *kind, const char *id, size_t packed,
                                 size_t scratch, int w)
{
    const char *pack_fn = !strcmp(kind, "conv2d") ? "pack_conv" : "pack_gemm";
    if (scratch > (size_t)h->scratch_est)
        h->scratch_est = (int64_t)scratch;
    cg_emit(h, h->init, "    scratch_need(o2h_%s_scratch_size(&%s));\n", kind, id);
    int k = cg_kslot(h);
    if (h->phase == 0)
        h->pool_est += ((int64_t)packed + 15) / 16 * 16;
    cg_emit(h, h->init, "    g_kw_size[%d] = o2h_%s_packed_size(&%s);\n", k, kind, id);
    if (!is_const(h, w))
        return ir_sprintf(h->g, "%s(&%s, %s, %d)", pack_fn, id, cg_ptr(h, w), k);
    cg_emit(h, h->pack, "    g_kw[%d] = %s(&%s, %s, %d);\n", k, pack_fn, id, cg_ptr(h, w), k);
    return ir_sprintf(h->g, "g_kw[%d]", k);
}

static int emit_conv(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), w = in_at(L, 1), b = in_at(L, 2), y = L->out[0];
    if (x < 0 || w < 0) {
        cg_host_reject(h, l, "missing input or weight");
        return -1;
    }
    O2hConv2d p;
    if (NEED_FLOAT(h, l, x, w, b, y) || conv_desc(h, l, false, &p))
        return -1;
    if (b >= 0 && numel(h, b) != p.F) {
        cg_host_reject(h, l, "bias '%s' has %lld values for %d channels", TT(h, b)->name,
                       (long long)numel(h, b), p.F);
        return -1;
    }
    const char *id = layer_id(h, l);
    emit_conv_desc(h, id, &p);
    const char *W = kernel_weight(h, "conv2d", id, o2h_conv2d_packed_size(&p),
                                  o2h_conv2d_scratch_size(&p), w);
    Post post;
    const char *e = kernel_epilogue(h, L, y, &post);
    cg_emit(h, h->run, "    o2h_conv2d_f32(&%s, %s, %s, %s, %s, %s, g_scratch);\n", id, cg_ptr(h, x), W,
            b >= 0 ? cg_ptr(h, b) : "NULL", e, cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, post);
    return check_post_shapes(h, l, y);
}

static int emit_conv_transpose(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), w = in_at(L, 1), b = in_at(L, 2), y = L->out[0];
    if (x < 0 || w < 0) {
        cg_host_reject(h, l, "missing input or weight");
        return -1;
    }
    O2hConv2d p;
    if (NEED_FLOAT(h, l, x, w, b, y) || conv_desc(h, l, true, &p) || check_post_shapes(h, l, y))
        return -1;
    const char *id = layer_id(h, l);
    emit_conv_desc(h, id, &p);
    cg_emit(h, h->run, "    o2h_conv_transpose2d_f32(&%s, %s, %s, %s, %s);\n", id, cg_ptr(h, x),
            cg_ptr(h, w), b >= 0 ? cg_ptr(h, b) : "NULL", cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, all_post(L));
    return 0;
}

/* ------------------------------------------------------ normalization */

static int emit_batchnorm(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int t[5], y = L->out[0];
    for (int i = 0; i < 5; i++)
        t[i] = in_at(L, i);
    if (t[0] < 0 || t[1] < 0 || t[2] < 0 || t[3] < 0 || t[4] < 0) {
        cg_host_reject(h, l, "BatchNormalization needs X, scale, B, mean and var");
        return -1;
    }
    if (NEED_FLOAT(h, l, t[0], t[1], t[2], t[3], t[4], y) ||
        extra_outputs_unused(h, l, 1, "training-mode statistics") || check_post_shapes(h, l, y))
        return -1;
    const IrTensor *X = TT(h, t[0]);
    if (X->rank < 2) {
        cg_host_reject(h, l, "BatchNormalization of a rank-%d input", X->rank);
        return -1;
    }
    for (int i = 1; i < 5; i++)
        if (numel(h, t[i]) != X->dims[1]) {
            cg_host_reject(h, l, "'%s' must have one value per channel", TT(h, t[i])->name);
            return -1;
        }
    h->inplace[l] = 0;
    cg_emit(h, h->run, "    o2h_batchnorm_f32(%lld, %lld, %lld, %s, %s, %s, %s, %s, %s, %s);\n",
            (long long)X->dims[0], (long long)X->dims[1], (long long)prod(X->dims, 2, X->rank),
            cg_ptr(h, t[0]), cg_ptr(h, t[1]), cg_ptr(h, t[2]), cg_ptr(h, t[3]), cg_ptr(h, t[4]),
            cg_float(h, L->attr.norm.epsilon), cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, all_post(L));
    return 0;
}

/* ---------------------------------------------------------- unary ops */

static const char *unary_name(IrOp op)
{
    switch (op) {
    case IR_OP_RELU: return "O2H_UN_RELU";
    case IR_OP_CLIP: return "O2H_UN_CLIP";
    case IR_OP_LEAKY_RELU: return "O2H_UN_LEAKY_RELU";
    case IR_OP_SIGMOID: return "O2H_UN_SIGMOID";
    case IR_OP_HARD_SIGMOID: return "O2H_UN_HARD_SIGMOID";
    case IR_OP_HARD_SWISH: return "O2H_UN_HARD_SWISH";
    case IR_OP_TANH: return "O2H_UN_TANH";
    case IR_OP_ELU: return "O2H_UN_ELU";
    case IR_OP_SOFTPLUS: return "O2H_UN_SOFTPLUS";
    case IR_OP_EXP: return "O2H_UN_EXP";
    case IR_OP_LOG: return "O2H_UN_LOG";
    case IR_OP_SQRT: return "O2H_UN_SQRT";
    case IR_OP_NEG: return "O2H_UN_NEG";
    case IR_OP_ABS: return "O2H_UN_ABS";
    case IR_OP_RECIPROCAL: return "O2H_UN_RECIPROCAL";
    case IR_OP_FLOOR: return "O2H_UN_FLOOR";
    case IR_OP_CEIL: return "O2H_UN_CEIL";
    case IR_OP_ERF: return "O2H_UN_ERF";
    default: return NULL;
    }
}

static int emit_unary(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0 || !unary_name(L->op)) {
        cg_host_reject(h, l, "missing input");
        return -1;
    }
    if (NEED_FLOAT(h, l, x, y) || check_post_shapes(h, l, y))
        return -1;
    for (int i = 1; i < L->n_in; i++)
        if (L->in[i] >= 0 && !is_const(h, L->in[i])) {
            cg_host_reject(h, l, "input '%s' must be a constant", TT(h, L->in[i])->name);
            return -1;
        }
    if (numel(h, x) != numel(h, y)) {
        cg_host_reject(h, l, "input and output sizes differ");
        return -1;
    }
    h->inplace[l] = 0;
    cg_emit(h, h->run, "    o2h_unary_f32(%s, %s, %s, %s, %s, %lld);\n", unary_name(L->op),
            cg_float(h, L->attr.act.alpha), cg_float(h, L->attr.act.beta), cg_ptr(h, x),
            cg_ptr(h, y), (long long)numel(h, y));
    h->n_calls++;
    emit_post(h, l, y, all_post(L));
    return 0;
}

/* --------------------------------------------------------- binary ops */

static const char *binary_name(IrOp op)
{
    switch (op) {
    case IR_OP_ADD: case IR_OP_SUM: case IR_OP_MEAN: return "O2H_BIN_ADD";
    case IR_OP_SUB: return "O2H_BIN_SUB";
    case IR_OP_MUL: return "O2H_BIN_MUL";
    case IR_OP_DIV: return "O2H_BIN_DIV";
    case IR_OP_POW: return "O2H_BIN_POW";
    case IR_OP_MAX: return "O2H_BIN_MAX";
    case IR_OP_MIN: return "O2H_BIN_MIN";
    case IR_OP_PRELU: return "O2H_BIN_PRELU";
    default: return NULL;
    }
}

/* Two operands: one call with broadcasting and the fused epilogue. */
static int emit_binary2(CgHost *h, int l, int a, int b, int y)
{
    const IrLayer *L = &h->g->layers[l];
    if (check_broadcast(h, l, a, b, y) || check_post_shapes(h, l, y))
        return -1;
    if (same_shape(h, a, y))
        h->inplace[l] = 0;
    else if (same_shape(h, b, y))
        h->inplace[l] = 1;
    const char *bc = ir_sprintf(h->g, "L%d", l);
    emit_broadcast(h, bc, a, b, y);
    Post post;
    const char *e = kernel_epilogue(h, L, y, &post);
    cg_emit(h, h->run, "    o2h_binary_f32(%s, &%s, %s, %s, %s, %s);\n", binary_name(L->op), bc,
            cg_ptr(h, a), cg_ptr(h, b), e, cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, post);
    return 0;
}

/* Sum/Mean/Max/Min of n operands: y = x0 broadcast to y, then y = y op xi
 * (in place on the full-size y), Mean scales by 1/n at the end. */
static int emit_variadic(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int y = L->out[0], n = L->n_in;
    for (int i = 0; i < n; i++)
        if (L->in[i] < 0 || check_broadcast(h, l, L->in[i], -1, y)) {
            if (L->in[i] < 0)
                cg_host_reject(h, l, "missing operand %d", i);
            return -1;
        }
    if (check_post_shapes(h, l, y))
        return -1;
    const char *Y = cg_ptr(h, y);
    int x0 = L->in[0];
    if (same_shape(h, x0, y)) {
        cg_emit(h, h->run, "    memcpy(%s, %s, %lld);\n", Y, cg_ptr(h, x0),
                (long long)ir_tensor_nbytes(TT(h, y)));
    } else {
        const char *bc = ir_sprintf(h->g, "L%d_x0", l);
        emit_broadcast(h, bc, x0, -1, y);
        cg_emit(h, h->run, "    o2h_expand(4, &%s, %s, %s);\n", bc, cg_ptr(h, x0), Y);
        h->n_calls++;
    }
    for (int i = 1; i < n; i++) {
        const char *bc = ir_sprintf(h->g, "L%d_x%d", l, i);
        emit_broadcast(h, bc, y, L->in[i], y);
        cg_emit(h, h->run, "    o2h_binary_f32(%s, &%s, %s, %s, &E_NONE, %s);\n", binary_name(L->op),
                bc, Y, cg_ptr(h, L->in[i]), Y);
        h->n_calls++;
    }
    if (L->op == IR_OP_MEAN && n > 1) {
        cg_emit(h, h->decl, "static const float L%d_inv = %s;\n", l, cg_float(h, 1.0f / (float)n));
        const char *bc = ir_sprintf(h->g, "L%d_mean", l);
        int r = TT(h, y)->rank > 0 ? TT(h, y)->rank : 1;
        int64_t ones[O2H_MAX_RANK], yd[O2H_MAX_RANK];
        for (int i = 0; i < r; i++)
            ones[i] = 1, yd[i] = TT(h, y)->rank > 0 ? TT(h, y)->dims[i] : 1;
        cg_emit(h, h->decl, "static const O2hBroadcast %s = {%d, %s, %s, %s};\n", bc, r,
                cg_i64_list(h, yd, r), cg_i64_list(h, ones, r), cg_i64_list(h, yd, r));
        cg_emit(h, h->run, "    o2h_binary_f32(O2H_BIN_MUL, &%s, %s, &L%d_inv, &E_NONE, %s);\n", bc, Y, l, Y);
        h->n_calls++;
    }
    emit_post(h, l, y, all_post(L));
    return 0;
}

static int emit_binary(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int y = L->out[0];
    for (int i = 0; i < L->n_in; i++)
        if (NEED_FLOAT(h, l, L->in[i]))
            return -1;
    if (NEED_FLOAT(h, l, y))
        return -1;
    bool variadic = L->op == IR_OP_SUM || L->op == IR_OP_MEAN || L->op == IR_OP_MAX || L->op == IR_OP_MIN;
    if (variadic && (L->n_in != 2 || L->op == IR_OP_MEAN))
        return emit_variadic(h, l);
    if (L->n_in != 2 || L->in[0] < 0 || L->in[1] < 0) {
        cg_host_reject(h, l, "expects two operands");
        return -1;
    }
    return emit_binary2(h, l, L->in[0], L->in[1], y);
}

/* -------------------------------------------------------------- pools */

static int pool_desc(CgHost *h, int l, O2hPool2d *p)
{
    const IrLayer *L = &h->g->layers[l];
    const IrPoolAttr *a = &L->attr.pool;
    const IrTensor *X = TT(h, L->in[0]), *Y = TT(h, L->out[0]);
    int nsp = X->rank - 2;
    if (nsp == 3) {
        cg_host_reject(h, l, "3-D pooling is not supported (1-D and 2-D are)");
        return -1;
    }
    if (nsp < 1 || nsp > 2 || Y->rank != X->rank) {
        cg_host_reject(h, l, "pooling of a rank-%d input is not supported", X->rank);
        return -1;
    }
    int sp = nsp - 1;
    int64_t v[17] = {
        X->dims[0], X->dims[1], nsp == 2 ? X->dims[2] : 1, X->dims[1 + nsp],
        nsp == 2 ? Y->dims[2] : 1, Y->dims[1 + nsp],
        nsp == 2 ? a->kernel[0] : 1, a->kernel[sp],
        nsp == 2 ? a->stride[0] : 1, a->stride[sp],
        nsp == 2 ? a->dilation[0] : 1, a->dilation[sp],
        nsp == 2 ? a->pad_begin[0] : 0, a->pad_begin[sp],
        nsp == 2 ? a->pad_end[0] : 0, a->pad_end[sp],
        a->count_include_pad,
    };
    for (int i = 8; i <= 11; i++)
        if (v[i] <= 0)
            v[i] = 1;
    for (int i = 0; i < 17; i++)
        if (!fits_int(v[i]) || v[i] < 0 || (i >= 6 && i <= 7 && v[i] == 0)) {
            cg_host_reject(h, l, "pooling dimensions out of range");
            return -1;
        }
    *p = (O2hPool2d){(int)v[0], (int)v[1], (int)v[2], (int)v[3], (int)v[4], (int)v[5],
                     (int)v[6], (int)v[7], (int)v[8], (int)v[9], (int)v[10], (int)v[11],
                     (int)v[12], (int)v[13], (int)v[14], (int)v[15], (int)v[16]};
    return 0;
}

static int emit_pool(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0) {
        cg_host_reject(h, l, "missing input");
        return -1;
    }
    if (NEED_FLOAT(h, l, x, y) || extra_outputs_unused(h, l, 1, "indices") || check_post_shapes(h, l, y))
        return -1;
    const IrTensor *X = TT(h, x);
    if (L->op == IR_OP_GLOBAL_AVGPOOL || L->op == IR_OP_GLOBAL_MAXPOOL) {
        if (X->rank < 2) {
            cg_host_reject(h, l, "global pooling of a rank-%d input", X->rank);
            return -1;
        }
        cg_emit(h, h->run, "    o2h_global_%spool_f32(%lld, %lld, %s, %s);\n",
                L->op == IR_OP_GLOBAL_AVGPOOL ? "avg" : "max", (long long)(X->dims[0] * X->dims[1]),
                (long long)prod(X->dims, 2, X->rank), cg_ptr(h, x), cg_ptr(h, y));
    } else {
        O2hPool2d p;
        if (pool_desc(h, l, &p))
            return -1;
        const char *id = layer_id(h, l);
        cg_emit(h, h->decl,
                "static const O2hPool2d %s = {.N = %d, .C = %d, .H = %d, .W = %d, .HO = %d, .WO = %d,\n"
                "    .KH = %d, .KW = %d, .SH = %d, .SW = %d, .DH = %d, .DW = %d, .PT = %d, .PL = %d, "
                ".PB = %d, .PR = %d, .count_include_pad = %d};\n",
                id, p.N, p.C, p.H, p.W, p.HO, p.WO, p.KH, p.KW, p.SH, p.SW, p.DH, p.DW, p.PT, p.PL,
                p.PB, p.PR, p.count_include_pad);
        cg_emit(h, h->run, "    o2h_%spool2d_f32(&%s, %s, %s);\n", L->op == IR_OP_MAXPOOL ? "max" : "avg",
                id, cg_ptr(h, x), cg_ptr(h, y));
    }
    h->n_calls++;
    emit_post(h, l, y, all_post(L));
    return 0;
}

/* ---------------------------------------------------------- reductions */

/* Reduce over a set of axes: each run of adjacent axes is one call on the
 * [outer][n][inner] view; several runs chain through scratch (mean of
 * means over equal counts is the mean, and max/sum compose the same way). */
static int emit_reduce(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x, y;
    if (float_io(h, l, &x, &y))
        return -1;
    const IrTensor *X = TT(h, x);
    int r = X->rank, op = L->op == IR_OP_REDUCE_MEAN ? 0 : L->op == IR_OP_REDUCE_MAX ? 1 : 2;
    bool axis[IR_MAX_RANK] = {false};
    const IrAxesAttr *a = &L->attr.axes;
    for (int i = 0; i < a->n; i++) {
        int ax = norm_axis(a->perm[i], r);
        if (ax < 0 || ax >= r) {
            cg_host_reject(h, l, "axis %lld out of range", (long long)a->perm[i]);
            return -1;
        }
        axis[ax] = true;
    }
    for (int i = 0; a->n == 0 && i < r; i++)
        axis[i] = true;
    if (numel(h, x) == 0) {
        cg_host_reject(h, l, "reduction of an empty tensor is not supported");
        return -1;
    }
    int64_t cur[IR_MAX_RANK];
    memcpy(cur, X->dims, sizeof cur);
    int runs[IR_MAX_RANK][2], nr = 0;
    for (int i = 0; i < r; i++) {
        if (!axis[i] || X->dims[i] == 1)
            continue;
        if (nr > 0 && runs[nr - 1][1] == i)
            runs[nr - 1][1] = i + 1;
        else
            runs[nr][0] = i, runs[nr][1] = i + 1, nr++;
    }
    const char *src = cg_ptr(h, x);
    if (nr == 0) {
        cg_emit(h, h->run, "    memcpy(%s, %s, %lld);\n", cg_ptr(h, y), src,
                (long long)ir_tensor_nbytes(TT(h, y)));
    }
    for (int k = 0; k < nr; k++) {
        int64_t outer = prod(cur, 0, runs[k][0]), n = prod(cur, runs[k][0], runs[k][1]);
        int64_t inner = prod(cur, runs[k][1], r);
        const char *dst = k == nr - 1 ? cg_ptr(h, y) : cg_scratch(h, outer * inner * 4);
        cg_emit(h, h->run, "    o2h_reduce_f32(%d, %lld, %lld, %lld, %s, %s);\n", op, (long long)outer,
                (long long)n, (long long)inner, src, dst);
        h->n_calls++;
        for (int i = runs[k][0]; i < runs[k][1]; i++)
            cur[i] = 1;
        src = dst;
    }
    emit_post(h, l, y, all_post(L));
    return 0;
}

/* ----------------------------------------------------- matrix products */

static void emit_gemm_call(CgHost *h, int l, O2hGemm *p, int a, int b, int c, int y)
{
    const IrLayer *L = &h->g->layers[l];
    const char *id = layer_id(h, l);
    cg_emit(h, h->decl,
            "static const O2hGemm %s = {.M = %d, .N = %d, .K = %d, .trans_a = %d, .trans_b = %d, "
            ".alpha = %s, .beta = %s, .c_rows = %d, .c_cols = %d%s};\n",
            id, p->M, p->N, p->K, p->trans_a, p->trans_b, cg_float(h, p->alpha), cg_float(h, p->beta),
            p->c_rows, p->c_cols, "");
    const char *B = kernel_weight(h, "gemm", id, o2h_gemm_packed_size(p), o2h_gemm_scratch_size(p), b);
    Post post;
    const char *e = kernel_epilogue(h, L, y, &post);
    cg_emit(h, h->run, "    o2h_gemm_f32(&%s, %s, %s, %s, %s, %s, g_scratch);\n", id, cg_ptr(h, a), B,
            c >= 0 ? cg_ptr(h, c) : "NULL", e, cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, post);
}

static int emit_gemm(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    const IrGemmAttr *ga = &L->attr.gemm;
    int a = in_at(L, 0), b = in_at(L, 1), c = in_at(L, 2), y = L->out[0];
    if (a < 0 || b < 0) {
        cg_host_reject(h, l, "missing operand");
        return -1;
    }
    if (NEED_FLOAT(h, l, a, b, c, y) || check_post_shapes(h, l, y))
        return -1;
    const IrTensor *A = TT(h, a), *B = TT(h, b), *Y = TT(h, y);
    if (A->rank != 2 || B->rank != 2 || Y->rank != 2) {
        cg_host_reject(h, l, "Gemm needs 2-D operands");
        return -1;
    }
    O2hGemm p = {0};
    int64_t M = Y->dims[0], N = Y->dims[1], K = ga->trans_a ? A->dims[0] : A->dims[1];
    int64_t cr = 0, cc = 0;
    if (c >= 0) {
        const IrTensor *C = TT(h, c);
        cr = C->rank == 2 ? C->dims[0] : 1;
        cc = C->rank >= 1 ? C->dims[C->rank - 1] : 1;
        if (C->rank > 2 || (cr != 1 && cr != M) || (cc != 1 && cc != N)) {
            cg_host_reject(h, l, "bias '%s' does not broadcast to %lldx%lld", C->name, (long long)M,
                           (long long)N);
            return -1;
        }
    }
    if (!fits_int(M) || !fits_int(N) || !fits_int(K) ||
        (ga->trans_a ? A->dims[1] : A->dims[0]) != M || (ga->trans_b ? B->dims[1] : B->dims[0]) != K ||
        (ga->trans_b ? B->dims[0] : B->dims[1]) != N) {
        cg_host_reject(h, l, "operand shapes do not agree");
        return -1;
    }
    p = (O2hGemm){(int)M, (int)N, (int)K, ga->trans_a, ga->trans_b, ga->alpha, ga->beta, (int)cr, (int)cc};
    emit_gemm_call(h, l, &p, a, b, c, y);
    return 0;
}

/* MatMul: a constant 2-D B makes it a Gemm over the flattened leading dims
 * of A (weights packed once); otherwise the batched broadcasting kernel. */
static int emit_matmul(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int a = in_at(L, 0), b = in_at(L, 1), y = L->out[0];
    if (a < 0 || b < 0) {
        cg_host_reject(h, l, "missing operand");
        return -1;
    }
    if (NEED_FLOAT(h, l, a, b, y) || check_post_shapes(h, l, y))
        return -1;
    const IrTensor *A = TT(h, a), *B = TT(h, b), *Y = TT(h, y);
    if (A->rank < 1 || B->rank < 1 || A->rank > O2H_MAX_RANK || B->rank > O2H_MAX_RANK) {
        cg_host_reject(h, l, "MatMul of scalars");
        return -1;
    }
    int64_t K = A->dims[A->rank - 1];
    int64_t Kb = B->rank == 1 ? B->dims[0] : B->dims[B->rank - 2];
    if (K != Kb) {
        cg_host_reject(h, l, "inner dimensions differ (%lld vs %lld)", (long long)K, (long long)Kb);
        return -1;
    }
    if (B->rank == 2 && is_const(h, b)) {
        int64_t N = B->dims[1], M = K ? numel(h, a) / K : 0;
        if (!fits_int(M) || !fits_int(N) || !fits_int(K) || M * N != numel(h, y)) {
            cg_host_reject(h, l, "operand shapes out of range");
            return -1;
        }
        O2hGemm p = {(int)M, (int)N, (int)K, 0, 0, 1.0f, 1.0f, 0, 0};
        emit_gemm_call(h, l, &p, a, b, -1, y);
        return 0;
    }
    /* promote 1-D operands, pad ranks with leading ones */
    int ra = A->rank < 2 ? 2 : A->rank, rb = B->rank < 2 ? 2 : B->rank;
    int r = ra > rb ? ra : rb;
    int64_t ad[O2H_MAX_RANK], bd[O2H_MAX_RANK], yd[O2H_MAX_RANK];
    for (int i = 0; i < r; i++)
        ad[i] = bd[i] = 1;
    if (A->rank == 1)
        ad[r - 1] = K;
    else
        for (int i = 0; i < A->rank; i++)
            ad[r - A->rank + i] = A->dims[i];
    if (B->rank == 1)
        bd[r - 2] = K;
    else
        for (int i = 0; i < B->rank; i++)
            bd[r - B->rank + i] = B->dims[i];
    for (int i = 0; i < r - 2; i++) {
        if (ad[i] != bd[i] && ad[i] != 1 && bd[i] != 1) {
            cg_host_reject(h, l, "batch dimensions do not broadcast");
            return -1;
        }
        yd[i] = ad[i] > bd[i] ? ad[i] : bd[i];
    }
    yd[r - 2] = ad[r - 2];
    yd[r - 1] = bd[r - 1];
    if (prod(yd, 0, r) != numel(h, y) || Y->rank > r) {
        cg_host_reject(h, l, "output shape does not match the operands");
        return -1;
    }
    const char *id = layer_id(h, l);
    cg_emit(h, h->decl, "static const O2hMatMul %s = {%d, %s, %s, %s};\n", id, r, cg_i64_list(h, ad, r),
            cg_i64_list(h, bd, r), cg_i64_list(h, yd, r));
    cg_emit(h, h->run, "    o2h_matmul_f32(&%s, %s, %s, %s);\n", id, cg_ptr(h, a), cg_ptr(h, b), cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, all_post(L));
    return 0;
}

/* ---------------------------------------------------- layout and shape */

static int same_dtype(CgHost *h, int l, int a, int y)
{
    if (TT(h, a)->dtype != TT(h, y)->dtype) {
        cg_host_reject(h, l, "'%s' is %s but the output is %s", TT(h, a)->name,
                       ir_dtype_name(TT(h, a)->dtype), ir_dtype_name(TT(h, y)->dtype));
        return -1;
    }
    if (!cg_ctype(TT(h, y)->dtype)) {
        cg_host_reject(h, l, "dtype %s is not supported by the host path", ir_dtype_name(TT(h, y)->dtype));
        return -1;
    }
    return 0;
}

/* Views: no code, the memory plan makes the output an alias. */
static int emit_view(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0) {
        cg_host_reject(h, l, "missing input");
        return -1;
    }
    if (same_dtype(h, l, x, y) || extra_outputs_unused(h, l, 1, "dropout mask"))
        return -1;
    if (ir_tensor_nbytes(TT(h, x)) != ir_tensor_nbytes(TT(h, y))) {
        cg_host_reject(h, l, "input and output sizes differ");
        return -1;
    }
    if (L->residual >= 0 || L->act.kind != IR_ACT_NONE) {
        cg_host_reject(h, l, "a fused epilogue on a view is not supported");
        return -1;
    }
    cg_emit(h, h->run, "    /* view: %s is %s */\n", TT(h, y)->name, TT(h, x)->name);
    return 0;
}

static int emit_transpose(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0 || same_dtype(h, l, x, y) || check_post_shapes(h, l, y))
        return x < 0 ? (cg_host_reject(h, l, "missing input"), -1) : -1;
    const IrTensor *X = TT(h, x);
    int r = X->rank, perm[IR_MAX_RANK];
    const IrAxesAttr *a = &L->attr.axes;
    bool seen[IR_MAX_RANK] = {false};
    for (int i = 0; i < r; i++) {
        int p = a->n == 0 ? r - 1 - i : norm_axis(a->perm[i], r);
        if (a->n != 0 && a->n != r)
            p = -1;
        if (p < 0 || p >= r || seen[p]) {
            cg_host_reject(h, l, "perm is not a permutation of %d axes", r);
            return -1;
        }
        seen[p] = true;
        perm[i] = p;
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
    cg_emit(h, h->run, "    o2h_transpose(%zu, %d, L%d_dims, L%d_perm, %s, %s);\n",
            ir_dtype_size(X->dtype), r, l, l, cg_ptr(h, x), cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, all_post(L));
    return 0;
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
        if (x < 0 || same_dtype(h, l, x, y))
            return x < 0 ? (cg_host_reject(h, l, "missing input"), -1) : -1;
        if (TT(h, x)->rank != Y->rank) {
            cg_host_reject(h, l, "inputs of different ranks");
            return -1;
        }
        dims[i] = TT(h, x)->dims[axis];
        total += dims[i];
    }
    if (total != Y->dims[axis] || check_post_shapes(h, l, y)) {
        if (total != Y->dims[axis])
            cg_host_reject(h, l, "input sizes along the axis do not add up to the output");
        return -1;
    }
    cg_emit(h, h->decl, "static const int64_t L%d_dims[] = %s;\n", l, cg_i64_list(h, dims, L->n_in));
    cg_emit(h, h->run, "    {\n        const void *const xs[] = {");
    for (int i = 0; i < L->n_in; i++)
        cg_emit(h, h->run, "%s%s", i ? ", " : "", cg_ptr(h, L->in[i]));
    cg_emit(h, h->run, "};\n        o2h_concat(%zu, %d, xs, L%d_dims, %lld, %lld, %s);\n    }\n",
            ir_dtype_size(Y->dtype), L->n_in, l, (long long)prod(Y->dims, 0, axis),
            (long long)prod(Y->dims, axis + 1, Y->rank), cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, all_post(L));
    return 0;
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
        if (y < 0 || same_dtype(h, l, x, y))
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
    cg_emit(h, h->run, "};\n        o2h_split(%zu, %d, ys, L%d_dims, %lld, %lld, %s);\n    }\n",
            ir_dtype_size(X->dtype), L->n_out, l, (long long)prod(X->dims, 0, axis),
            (long long)prod(X->dims, axis + 1, X->rank), cg_ptr(h, x));
    h->n_calls++;
    return 0;
}

/* Slice: ONNX start clamping per axis, then the strided copy. */
static int emit_slice(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0 || same_dtype(h, l, x, y) || check_post_shapes(h, l, y))
        return x < 0 ? (cg_host_reject(h, l, "missing input"), -1) : -1;
    const IrTensor *X = TT(h, x), *Y = TT(h, y);
    const IrSliceAttr *a = &L->attr.slice;
    int r = X->rank;
    int64_t starts[IR_MAX_RANK], steps[IR_MAX_RANK];
    for (int i = 0; i < r; i++)
        starts[i] = 0, steps[i] = 1;
    for (int i = 0; i < a->n; i++) {
        int ax = norm_axis(a->axes[i], r);
        int64_t dim = ax >= 0 && ax < r ? X->dims[ax] : 0, st = a->steps[i] ? a->steps[i] : 1;
        if (ax < 0 || ax >= r || Y->rank != r) {
            cg_host_reject(h, l, "slice axis %lld out of range", (long long)a->axes[i]);
            return -1;
        }
        int64_t s = a->starts[i];
        if (s < 0)
            s += dim;
        int64_t hi = st > 0 ? dim : dim - 1;
        s = s < 0 ? 0 : s > hi ? hi : s;
        starts[ax] = s;
        steps[ax] = st;
    }
    for (int i = 0; i < r; i++)
        if (Y->dims[i] > 0 && (starts[i] + (Y->dims[i] - 1) * steps[i] < 0 ||
                               starts[i] + (Y->dims[i] - 1) * steps[i] >= X->dims[i])) {
            cg_host_reject(h, l, "output shape does not match the slice bounds");
            return -1;
        }
    if (r == 0) {
        cg_host_reject(h, l, "slice of a scalar");
        return -1;
    }
    cg_emit(h, h->decl, "static const int64_t L%d_in[] = %s, L%d_out[] = %s,\n    L%d_starts[] = %s, L%d_steps[] = %s;\n",
            l, cg_i64_list(h, X->dims, r), l, cg_i64_list(h, Y->dims, r), l, cg_i64_list(h, starts, r), l,
            cg_i64_list(h, steps, r));
    cg_emit(h, h->run, "    o2h_slice(%zu, %d, L%d_in, L%d_out, L%d_starts, L%d_steps, %s, %s);\n",
            ir_dtype_size(X->dtype), r, l, l, l, l, cg_ptr(h, x), cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, all_post(L));
    return 0;
}

static int emit_pad(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x, y;
    if (float_io(h, l, &x, &y))
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
    cg_emit(h, h->run, "    o2h_pad_f32(%d, %s, %d, L%d_in, L%d_begin, L%d_out, %s, %s);\n", (int)a->mode,
            cg_float(h, a->value), r, l, l, l, cg_ptr(h, x), cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, all_post(L));
    return 0;
}

/* Gather: constant indices are normalized (negative -> from the end) and
 * widened to int64 at compile time; run-time int32 indices are widened into
 * scratch. */
static int emit_gather(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), ix = in_at(L, 1), y = L->out[0];
    if (x < 0 || ix < 0 || same_dtype(h, l, x, y) || check_post_shapes(h, l, y))
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
    cg_emit(h, h->run, "    o2h_gather(%zu, %lld, %lld, %lld, %s, %lld, %s, %s);\n", ir_dtype_size(X->dtype),
            (long long)prod(X->dims, 0, axis), (long long)dim, (long long)prod(X->dims, axis + 1, X->rank),
            idx, (long long)n, cg_ptr(h, x), cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, all_post(L));
    return 0;
}

static int emit_expand(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0 || same_dtype(h, l, x, y) || check_broadcast(h, l, x, -1, y) || check_post_shapes(h, l, y))
        return x < 0 ? (cg_host_reject(h, l, "missing input"), -1) : -1;
    const char *bc = ir_sprintf(h->g, "L%d", l);
    emit_broadcast(h, bc, x, -1, y);
    cg_emit(h, h->run, "    o2h_expand(%zu, &%s, %s, %s);\n", ir_dtype_size(TT(h, y)->dtype), bc,
            cg_ptr(h, x), cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, all_post(L));
    return 0;
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
    if (check_post_shapes(h, l, y) || (all_post(L).residual || all_post(L).act ? NEED_FLOAT(h, l, y) : 0))
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
    emit_post(h, l, y, all_post(L));
    return 0;
}

/* ---------------------------------------------------------- resampling */

static int emit_resize(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x, y;
    if (float_io(h, l, &x, &y))
        return -1;
    const IrTensor *X = TT(h, x), *Y = TT(h, y);
    const IrResizeAttr *a = &L->attr.resize;
    if (X->rank != Y->rank || X->rank < 1 || X->rank > O2H_MAX_RANK) {
        cg_host_reject(h, l, "output rank differs from the input");
        return -1;
    }
    int r = X->rank;
    float scale[IR_MAX_RANK];
    for (int i = 0; i < r; i++)
        scale[i] = a->scale[i] > 0 ? a->scale[i] : X->dims[i] ? (float)Y->dims[i] / (float)X->dims[i] : 1.0f;
    const char *id = layer_id(h, l);
    cg_emit(h, h->decl, "static const O2hResize %s = {%d, %s, %s, {", id, r, cg_i64_list(h, X->dims, r),
            cg_i64_list(h, Y->dims, r));
    for (int i = 0; i < r; i++)
        cg_emit(h, h->decl, "%s%s", i ? ", " : "", cg_float(h, scale[i]));
    cg_emit(h, h->decl, "}, %d, %d, %d, %s};\n", (int)a->mode, (int)a->coord, (int)a->nearest,
            cg_float(h, a->cubic_a));
    cg_emit(h, h->run, "    o2h_resize_f32(&%s, %s, %s);\n", id, cg_ptr(h, x), cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, all_post(L));
    return 0;
}

/* Softmax and LogSoftmax along one axis. */
static int emit_softmax(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x, y;
    if (float_io(h, l, &x, &y))
        return -1;
    const IrTensor *X = TT(h, x);
    int r = X->rank, axis = norm_axis(L->attr.axis.axis, r);
    if (r == 0 || axis < 0 || axis >= r) {
        cg_host_reject(h, l, "axis %lld out of range", (long long)L->attr.axis.axis);
        return -1;
    }
    /* the frontend gives every Softmax the opset-13 meaning (one axis) */
    int64_t outer = prod(X->dims, 0, axis), n = X->dims[axis], inner = prod(X->dims, axis + 1, r);
    h->inplace[l] = 0;
    cg_emit(h, h->run, "    o2h_softmax_f32(%lld, %lld, %lld, %d, %s, %s);\n", (long long)outer,
            (long long)n, (long long)inner, L->op == IR_OP_LOG_SOFTMAX, cg_ptr(h, x), cg_ptr(h, y));
    h->n_calls++;
    emit_post(h, l, y, all_post(L));
    return 0;
}

/* --------------------------------------------------------------- table */

typedef int (*LayerEmitter)(CgHost *h, int l);

static const LayerEmitter emitters[IR_OP_COUNT] = {
    [IR_OP_CONV] = emit_conv,
    [IR_OP_CONV_TRANSPOSE] = emit_conv_transpose,
    [IR_OP_BATCHNORM] = emit_batchnorm,
    [IR_OP_RELU] = emit_unary, [IR_OP_CLIP] = emit_unary, [IR_OP_LEAKY_RELU] = emit_unary,
    [IR_OP_SIGMOID] = emit_unary, [IR_OP_HARD_SIGMOID] = emit_unary, [IR_OP_HARD_SWISH] = emit_unary,
    [IR_OP_TANH] = emit_unary, [IR_OP_ELU] = emit_unary, [IR_OP_SOFTPLUS] = emit_unary,
    [IR_OP_EXP] = emit_unary, [IR_OP_LOG] = emit_unary, [IR_OP_SQRT] = emit_unary,
    [IR_OP_NEG] = emit_unary, [IR_OP_ABS] = emit_unary, [IR_OP_RECIPROCAL] = emit_unary,
    [IR_OP_FLOOR] = emit_unary, [IR_OP_CEIL] = emit_unary, [IR_OP_ERF] = emit_unary,
    [IR_OP_ADD] = emit_binary, [IR_OP_SUB] = emit_binary, [IR_OP_MUL] = emit_binary,
    [IR_OP_DIV] = emit_binary, [IR_OP_POW] = emit_binary, [IR_OP_PRELU] = emit_binary,
    [IR_OP_MAX] = emit_binary, [IR_OP_MIN] = emit_binary, [IR_OP_SUM] = emit_binary,
    [IR_OP_MEAN] = emit_binary,
    [IR_OP_MAXPOOL] = emit_pool, [IR_OP_AVGPOOL] = emit_pool,
    [IR_OP_GLOBAL_AVGPOOL] = emit_pool, [IR_OP_GLOBAL_MAXPOOL] = emit_pool,
    [IR_OP_REDUCE_MEAN] = emit_reduce, [IR_OP_REDUCE_MAX] = emit_reduce, [IR_OP_REDUCE_SUM] = emit_reduce,
    [IR_OP_GEMM] = emit_gemm, [IR_OP_MATMUL] = emit_matmul,
    [IR_OP_FLATTEN] = emit_view, [IR_OP_RESHAPE] = emit_view, [IR_OP_SQUEEZE] = emit_view,
    [IR_OP_UNSQUEEZE] = emit_view, [IR_OP_IDENTITY] = emit_view, [IR_OP_DROPOUT] = emit_view,
    [IR_OP_TRANSPOSE] = emit_transpose, [IR_OP_CONCAT] = emit_concat, [IR_OP_SPLIT] = emit_split,
    [IR_OP_SLICE] = emit_slice, [IR_OP_PAD] = emit_pad, [IR_OP_GATHER] = emit_gather,
    [IR_OP_EXPAND] = emit_expand, [IR_OP_CAST] = emit_cast,
    [IR_OP_RESIZE] = emit_resize, [IR_OP_UPSAMPLE] = emit_resize,
    [IR_OP_SOFTMAX] = emit_softmax, [IR_OP_LOG_SOFTMAX] = emit_softmax,
};

/* A comment line naming the layer and the ONNX nodes it implements. */
static void emit_header(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    cg_emit(h, h->run, "\n    /* L%d %s: ONNX ", l, ir_op_name(L->op));
    if (h->run)
        for (const char *s = L->origin ? L->origin : L->name; *s; s++)
            fputc(*s == '*' && s[1] == '/' ? '_' : *s, h->run);
    if (L->residual >= 0 || L->act.kind != IR_ACT_NONE)
        cg_emit(h, h->run, " (fused:%s%s)", L->residual >= 0 ? " residual add" : "",
                L->act.kind != IR_ACT_NONE ? " activation" : "");
    cg_emit(h, h->run, " */\n");
}

/* Every tensor the layer touches has a static shape (the emitters index
 * dims by rank and size buffers by element count). */
static int check_shapes(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int ts[2 * IR_MAX_IO + 2], n = 0;
    for (int i = 0; i < L->n_in && i < IR_MAX_IO; i++)
        ts[n++] = L->in[i];
    for (int i = 0; i < L->n_out && i < IR_MAX_IO; i++)
        ts[n++] = L->out[i];
    ts[n++] = L->residual;
    ts[n++] = L->act_slope;
    for (int i = 0; i < n; i++) {
        if (ts[i] < 0)
            continue;
        if (ts[i] >= h->g->n_tensors) {
            cg_host_reject(h, l, "tensor index %d out of range", ts[i]);
            return -1;
        }
        const IrTensor *T = TT(h, ts[i]);
        int64_t ne = ir_tensor_numel(T);
        if (T->rank < 0 || T->rank > IR_MAX_RANK || ne < 0 || ne == INT64_MAX) {
            cg_host_reject(h, l, "tensor '%s' has no static shape; give --input-shape", T->name);
            return -1;
        }
    }
    return 0;
}

static bool outputs_empty(CgHost *h, const IrLayer *L)
{
    for (int i = 0; i < L->n_out; i++)
        if (L->out[i] >= 0 && numel(h, L->out[i]) != 0)
            return false;
    return L->n_out > 0;
}

int cg_host_layer(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    if (L->dead)
        return 0;
    h->cur_layer = l;
    h->scratch_cursor = 0;
    unsigned flags = ir_op_flags(L->op);
    if ((unsigned)L->op >= IR_OP_COUNT) {
        cg_host_reject(h, l, "unknown operator");
        return -1;
    }
    if (flags & IR_F_FOLD_ONLY) {
        cg_host_reject(h, l, "%s must be folded to a constant at compile time, but its inputs are "
                             "only known at run time", ir_op_name(L->op));
        return -1;
    }
    if (L->prec != IR_PREC_FLOAT) /* quantized layers and boundaries: the integer path */
        return cg_host_int_layer(h, l);
    if (L->op == IR_OP_QUANTIZE_LINEAR || L->op == IR_OP_DEQUANTIZE_LINEAR) {
        cg_host_reject(h, l, "%s is not supported by the float host path yet", ir_op_name(L->op));
        return -1;
    }
    if (L->prec != IR_PREC_FLOAT) {
        cg_host_reject(h, l, "layer precision is not float; the host path emits float32 only");
        return -1;
    }
    if (L->n_out < 1 || L->out[0] < 0) {
        cg_host_reject(h, l, "layer has no output");
        return -1;
    }
    if (!emitters[L->op]) {
        cg_host_reject(h, l, "%s is not supported by the host path", ir_op_name(L->op));
        return -1;
    }
    if (check_shapes(h, l) || check_epilogue(h, l))
        return -1;
    emit_header(h, l);
    if (outputs_empty(h, L) && !(flags & IR_F_NO_DATA)) {
        cg_emit(h, h->run, "    /* empty output: nothing to compute */\n");
        return 0;
    }
    return emitters[L->op](h, l);
}
