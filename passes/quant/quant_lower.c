/* quant_lower.c - lowering: an integer IR layer -> the exact constants of
 * one integer kernel call (QuantLayer).
 *
 * Why one place: the host C emitter, the evaluator used by the tests and
 * the HLS engines must compute bit-identical results, so none of them
 * derives a multiplier, a folded bias or a clamp bound itself; they all
 * call pass_quant_lower and print or use what it returns. The rules are
 * the ones docs/numerics.md states:
 *   - requantization factor r = s_in * s_w[c] / s_out (double from the
 *     float32 scales) -> (M, sh) by pass_quant_multiplier; for dynamic
 *     fixed point, where every scale is a power of two, a pure shift;
 *   - conv/FC bias folded: b'[c] = b_q[c] - z_x * sum_k w_q[c][k], with a
 *     proof that no int32 accumulator can overflow (else an error);
 *   - Relu / Clip folded into the clamp bounds;
 *   - Add: both inputs scaled with their own multiplier at one shift,
 *     one rounding; average pools: 1/count in the multiplier. */
#include "quant_internal.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int quant_error(IrDiag *d, const IrGraph *g, int l, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const IrLayer *L = &g->layers[l];
    diag_error(d, g->path, L->name, ir_op_name(L->op), "%s", msg);
    return -1;
}

const char *pass_quant_kind_name(QuantKind k)
{
    static const char *const names[] = {
        "quantize", "dequantize", "conv", "fc", "maxpool", "avgpool", "global_maxpool",
        "global_avgpool", "add", "mul", "lut", "rescale", "concat", "view", "move",
    };
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

bool pass_quant_is_int_layer(const IrGraph *g, int l)
{
    return g->layers[l].prec != IR_PREC_FLOAT;
}

/* ------------------------------------------------------- descriptors */

static bool fits_int(int64_t v)
{
    return v >= 0 && v <= INT32_MAX;
}

int quant_conv_desc(const IrGraph *g, int l, O2hConv2d *p, IrDiag *d)
{
    const IrLayer *L = &g->layers[l];
    const IrConvAttr *a = &L->attr.conv;
    const IrTensor *X = &g->tensors[L->in[0]], *W = &g->tensors[L->in[1]], *Y = &g->tensors[L->out[0]];
    int nsp = X->rank - 2;
    if (nsp < 1 || nsp > 2 || W->rank != X->rank || Y->rank != X->rank)
        return quant_error(d, g, l, "convolution of a rank-%d input is not supported", X->rank);
    int sp = nsp - 1;
    int64_t gr = a->group > 0 ? a->group : 1;
    int64_t v[18] = {
        X->dims[0], X->dims[1], nsp == 2 ? X->dims[2] : 1, X->dims[1 + nsp],
        Y->dims[1], nsp == 2 ? Y->dims[2] : 1, Y->dims[1 + nsp],
        nsp == 2 ? W->dims[2] : 1, W->dims[1 + nsp],
        nsp == 2 ? a->stride[0] : 1, a->stride[sp], nsp == 2 ? a->dilation[0] : 1, a->dilation[sp],
        nsp == 2 ? a->pad_begin[0] : 0, a->pad_begin[sp], nsp == 2 ? a->pad_end[0] : 0, a->pad_end[sp], gr,
    };
    for (int i = 9; i <= 12; i++)
        if (v[i] <= 0)
            v[i] = 1;
    for (int i = 0; i < 18; i++)
        if (!fits_int(v[i]))
            return quant_error(d, g, l, "convolution dimensions out of range");
    bool tr = L->op == IR_OP_CONV_TRANSPOSE;   /* weights [C][F/group] instead of [F][C/group] */
    if (W->dims[0] != v[tr ? 1 : 4] || W->dims[1] * gr != v[tr ? 4 : 1] || v[1] % gr || v[4] % gr)
        return quant_error(d, g, l, "weight '%s' does not match the channels and group %lld", W->name,
                           (long long)gr);
    *p = (O2hConv2d){(int)v[0], (int)v[1], (int)v[2], (int)v[3], (int)v[4], (int)v[5], (int)v[6],
                     (int)v[7], (int)v[8], (int)v[9], (int)v[10], (int)v[11], (int)v[12],
                     (int)v[13], (int)v[14], (int)v[15], (int)v[16], (int)v[17]};
    return 0;
}

int quant_pool_desc(const IrGraph *g, int l, O2hPool2d *p, IrDiag *d)
{
    const IrLayer *L = &g->layers[l];
    const IrPoolAttr *a = &L->attr.pool;
    const IrTensor *X = &g->tensors[L->in[0]], *Y = &g->tensors[L->out[0]];
    int nsp = X->rank - 2;
    if (nsp < 1 || nsp > 2 || Y->rank != X->rank)
        return quant_error(d, g, l, "pooling of a rank-%d input is not supported", X->rank);
    int sp = nsp - 1;
    int64_t v[16] = {
        X->dims[0], X->dims[1], nsp == 2 ? X->dims[2] : 1, X->dims[1 + nsp],
        nsp == 2 ? Y->dims[2] : 1, Y->dims[1 + nsp],
        nsp == 2 ? a->kernel[0] : 1, a->kernel[sp], nsp == 2 ? a->stride[0] : 1, a->stride[sp],
        nsp == 2 ? a->dilation[0] : 1, a->dilation[sp],
        nsp == 2 ? a->pad_begin[0] : 0, a->pad_begin[sp], nsp == 2 ? a->pad_end[0] : 0, a->pad_end[sp],
    };
    for (int i = 8; i <= 11; i++)
        if (v[i] <= 0)
            v[i] = 1;
    for (int i = 0; i < 16; i++)
        if (!fits_int(v[i]))
            return quant_error(d, g, l, "pooling dimensions out of range");
    *p = (O2hPool2d){(int)v[0], (int)v[1], (int)v[2], (int)v[3], (int)v[4], (int)v[5], (int)v[6],
                     (int)v[7], (int)v[8], (int)v[9], (int)v[10], (int)v[11], (int)v[12],
                     (int)v[13], (int)v[14], (int)v[15], a->count_include_pad};
    return 0;
}

void quant_broadcast(const IrGraph *g, int a, int b, int y, O2hBroadcast *bc)
{
    const IrTensor *Y = &g->tensors[y];
    int r = Y->rank > 0 ? Y->rank : 1;
    memset(bc, 0, sizeof *bc);
    bc->rank = r;
    for (int i = 0; i < r; i++)
        bc->a_dims[i] = bc->b_dims[i] = bc->y_dims[i] = 1;
    for (int i = 0; i < Y->rank; i++)
        bc->y_dims[r - Y->rank + i] = Y->dims[i];
    const IrTensor *A = &g->tensors[a];
    for (int i = 0; i < A->rank; i++)
        bc->a_dims[r - A->rank + i] = A->dims[i];
    if (b >= 0) {
        const IrTensor *B = &g->tensors[b];
        for (int i = 0; i < B->rank; i++)
            bc->b_dims[r - B->rank + i] = B->dims[i];
    }
}

void quant_axis_split(const IrTensor *T, int axis, int64_t *outer, int64_t *inner)
{
    *outer = *inner = 1;
    for (int i = 0; i < axis; i++)
        *outer *= T->dims[i];
    for (int i = axis + 1; i < T->rank; i++)
        *inner *= T->dims[i];
}

/* ------------------------------------------------------- functions */

bool quant_act_foldable(IrActKind k)
{
    return k == IR_ACT_NONE || k == IR_ACT_RELU || k == IR_ACT_CLIP;
}

QuantFn quant_layer_fn(const IrLayer *L)
{
    QuantFn f;
    memset(&f, 0, sizeof f);
    f.op = pass_quant_fn_supported(L->op) ? L->op : IR_OP_COUNT;
    if (f.op != IR_OP_COUNT)
        f.op_act = L->attr.act;
    f.act = L->act;
    return f;
}

bool quant_is_table_op(const IrLayer *L)
{
    return pass_quant_fn_supported(L->op) && L->act.kind != IR_ACT_PRELU && L->residual < 0;
}

/* ------------------------------------------------------- helpers */

static const IrQuant *act_quant(IrGraph *g, int l, int t, IrDiag *d)
{
    const IrTensor *T = &g->tensors[t];
    if (!T->quant || T->quant->n != 1) {
        quant_error(d, g, l, "tensor '%s' has no per-tensor quantization", T->name);
        return NULL;
    }
    IrDType want = T->quant->bits > 8 ? IR_DT_INT16 : IR_DT_INT8;
    if (T->dtype != want) {
        quant_error(d, g, l, "tensor '%s' is %s, expected %s codes", T->name, ir_dtype_name(T->dtype),
                    ir_dtype_name(want));
        return NULL;
    }
    return T->quant;
}

static bool has_fb(const IrQuant *q)
{
    return q->frac_bits != INT32_MIN;
}

/* (M, sh) for s_in * s_w / s_out, or a pure shift when every factor is a
 * dynamic fixed point power of two (fw == INT32_MIN: no weight factor
 * known as frac bits; s_w == 1 and fw == 0 for weightless layers). */
static int factor(IrGraph *g, int l, const IrQuant *in, double s_w, int fw, const IrQuant *out,
                  double extra, int32_t *m, uint8_t *sh, IrDiag *d)
{
    int s, rc;
    if (has_fb(in) && has_fb(out) && fw != INT32_MIN && extra == 1.0)
        rc = pass_quant_shift_multiplier(out->frac_bits - in->frac_bits - fw, m, &s);
    else
        rc = pass_quant_multiplier((double)in->scale[0] * s_w / (double)out->scale[0] * extra, m, &s);
    if (rc)
        return quant_error(d, g, l, "requantization factor %g cannot be represented",
                           (double)in->scale[0] * s_w / (double)out->scale[0] * extra);
    *sh = (uint8_t)s;
    return 0;
}

/* Storage range of q, narrowed by a Relu / Clip. */
static int clamp_bounds(IrGraph *g, int l, const IrQuant *q, const IrAct *act, int32_t *lo, int32_t *hi,
                        IrDiag *d)
{
    int32_t qmin = pass_quant_qmin(q->bits), qmax = pass_quant_qmax(q->bits);
    *lo = qmin;
    *hi = qmax;
    if (act->kind == IR_ACT_RELU) {
        *lo = q->zero[0] > qmin ? q->zero[0] : qmin;
    } else if (act->kind == IR_ACT_CLIP) {
        int32_t a = pass_quant_round(act->alpha, q->scale[0], q->zero[0], qmin, qmax);
        int32_t b = pass_quant_round(act->beta, q->scale[0], q->zero[0], qmin, qmax);
        *lo = a;
        *hi = b > a ? b : a;
    } else if (act->kind != IR_ACT_NONE) {
        return quant_error(d, g, l, "fused activation %d was not split from the layer", (int)act->kind);
    }
    return 0;
}

static void set_rq(QuantLayer *q, int n, int32_t *m, uint8_t *sh, int32_t zero)
{
    q->rq = (O2hRequant){n, m, sh, zero, q->lo, q->hi};
}

static int in_at(const IrLayer *L, int i)
{
    return i < L->n_in ? L->in[i] : -1;
}

/* ------------------------------------------------------- conv and FC */

typedef struct {
    const IrQuant *qx, *qy, *qw;
    const void *w;              /* int8 or int16 codes, rows of K */
    int64_t rows, K;
    int b;                      /* bias tensor or -1 */
} WeightSide;

static int weights(IrGraph *g, int l, int wt, int bt, bool wide, int64_t rows, WeightSide *ws, IrDiag *d)
{
    const IrTensor *W = &g->tensors[wt];
    IrDType want = wide ? IR_DT_INT16 : IR_DT_INT8;
    if (W->kind != IR_T_CONST || W->dtype != want || !W->quant)
        return quant_error(d, g, l, "weight '%s' is not a quantized %s constant", W->name, ir_dtype_name(want));
    if (W->quant->n != 1 && (W->quant->n != rows || W->quant->axis != 0))
        return quant_error(d, g, l, "weight '%s' must be quantized per tensor or per output channel", W->name);
    ws->qw = W->quant;
    ws->w = ir_tensor_data(g, wt);
    ws->rows = rows;
    ws->K = ir_tensor_numel(W) / rows;
    ws->b = bt;
    if (bt >= 0) {
        const IrTensor *B = &g->tensors[bt];
        if (B->kind != IR_T_CONST || (B->dtype != IR_DT_INT32 && B->dtype != IR_DT_INT64) ||
            ir_tensor_numel(B) != rows)
            return quant_error(d, g, l, "bias '%s' must be an int32/int64 constant of %lld values", B->name,
                               (long long)rows);
    }
    return 0;
}

static int64_t bias_at(IrGraph *g, int bt, int64_t i)
{
    if (bt < 0)
        return 0;
    const void *p = ir_tensor_data(g, bt);
    return g->tensors[bt].dtype == IR_DT_INT64 ? ((const int64_t *)p)[i] : ((const int32_t *)p)[i];
}

static int64_t w_at(const WeightSide *ws, bool wide, int64_t i)
{
    return wide ? ((const int16_t *)ws->w)[i] : ((const int8_t *)ws->w)[i];
}

/* folded biases and per-row requantization */
static int fold(IrGraph *g, int l, QuantLayer *q, const WeightSide *ws, IrDiag *d)
{
    int64_t n = ws->rows;
    int32_t *mult = ir_alloc(g, sizeof(int32_t) * (size_t)n);
    uint8_t *shift = ir_alloc(g, (size_t)n);
    void *bias = ir_alloc(g, (size_t)n * (q->wide ? 8 : 4));
    int32_t zx = ws->qx->zero[0];
    for (int64_t r = 0; r < n; r++) {
        int64_t sum = 0, sabs = 0;
        for (int64_t k = 0; k < ws->K; k++) {
            int64_t w = w_at(ws, q->wide, r * ws->K + k);
            sum += w;
            sabs += w < 0 ? -w : w;
        }
        int64_t b = bias_at(g, ws->b, r) - (int64_t)zx * sum;
        if (q->wide) {
            ((int64_t *)bias)[r] = b;
        } else {
            if ((b < 0 ? -b : b) + 128 * sabs > INT32_MAX)
                return quant_error(d, g, l, "channel %lld: an int32 accumulator could overflow "
                                            "(|bias| + 128 * sum|w| > 2^31 - 1); use a wider precision",
                                   (long long)r);
            ((int32_t *)bias)[r] = (int32_t)b;
        }
        const IrQuant *qw = ws->qw;
        int i = qw->n > 1 ? (int)r : 0;
        if (factor(g, l, ws->qx, qw->scale[i], has_fb(qw) ? qw->frac_bits : INT32_MIN, ws->qy, 1.0, &mult[r],
                   &shift[r], d))
            return -1;
    }
    q->bias = bias;
    set_rq(q, (int)n, mult, shift, ws->qy->zero[0]);
    return 0;
}

static int lower_conv(IrGraph *g, int l, QuantLayer *q, IrDiag *d)
{
    const IrLayer *L = &g->layers[l];
    if (L->residual >= 0)
        return quant_error(d, g, l, "a fused residual was not split from the layer");
    WeightSide ws = {0};
    if (!(ws.qx = act_quant(g, l, q->x, d)) || !(ws.qy = act_quant(g, l, q->y, d)))
        return -1;
    if (quant_conv_desc(g, l, &q->conv, d) ||
        weights(g, l, L->in[1], in_at(L, 2), q->wide, q->conv.F, &ws, d) ||
        clamp_bounds(g, l, ws.qy, &L->act, &q->lo, &q->hi, d))
        return -1;
    q->kind = QK_CONV;
    q->w = L->in[1];
    q->x_zero = ws.qx->zero[0];
    return fold(g, l, q, &ws, d);
}

static int lower_fc(IrGraph *g, int l, QuantLayer *q, IrDiag *d)
{
    const IrLayer *L = &g->layers[l];
    const IrGemmAttr *a = &L->attr.gemm;
    const IrTensor *A = &g->tensors[q->x], *B = &g->tensors[L->in[1]], *Y = &g->tensors[q->y];
    if (L->residual >= 0)
        return quant_error(d, g, l, "a fused residual was not split from the layer");
    if (a->trans_a || !a->trans_b || a->alpha != 1.0f || A->rank != 2 || B->rank != 2 || Y->rank != 2)
        return quant_error(d, g, l, "integer Gemm needs A[M][K] and B[N][K] (transB = 1, alpha = 1)");
    if (in_at(L, 2) >= 0 && a->beta != 1.0f)
        return quant_error(d, g, l, "integer Gemm needs beta = 1");
    int64_t M = Y->dims[0], N = Y->dims[1], K = A->dims[1];
    if (B->dims[0] != N || B->dims[1] != K || A->dims[0] != M || !fits_int(M) || !fits_int(N) || !fits_int(K))
        return quant_error(d, g, l, "operand shapes do not agree");
    WeightSide ws = {0};
    if (!(ws.qx = act_quant(g, l, q->x, d)) || !(ws.qy = act_quant(g, l, q->y, d)))
        return -1;
    if (weights(g, l, L->in[1], in_at(L, 2), q->wide, N, &ws, d) ||
        clamp_bounds(g, l, ws.qy, &L->act, &q->lo, &q->hi, d))
        return -1;
    q->kind = QK_FC;
    q->fc = (O2hFcQ){(int)M, (int)N, (int)K};
    q->w = L->in[1];
    q->x_zero = ws.qx->zero[0];
    return fold(g, l, q, &ws, d);
}

/* ------------------------------------------------------- pools */

static int lower_pool(IrGraph *g, int l, QuantLayer *q, IrDiag *d)
{
    const IrLayer *L = &g->layers[l];
    const IrQuant *qx = act_quant(g, l, q->x, d), *qy = qx ? act_quant(g, l, q->y, d) : NULL;
    if (!qy || clamp_bounds(g, l, qy, &L->act, &q->lo, &q->hi, d))
        return -1;
    const IrTensor *X = &g->tensors[q->x];
    bool global = L->op == IR_OP_GLOBAL_AVGPOOL || L->op == IR_OP_GLOBAL_MAXPOOL || L->op == IR_OP_REDUCE_MEAN;
    bool is_max = L->op == IR_OP_MAXPOOL || L->op == IR_OP_GLOBAL_MAXPOOL;
    if (is_max && (!quant_same_params(qx, qy) || L->act.kind != IR_ACT_NONE))
        return quant_error(d, g, l, "integer max pooling needs the output quantized as its input");
    if (global) {
        if (X->rank < 2)
            return quant_error(d, g, l, "global pooling of a rank-%d input", X->rank);
        q->nc = X->dims[0] * X->dims[1];
        q->hw = ir_tensor_numel(X) / (q->nc > 0 ? q->nc : 1);
    } else if (quant_pool_desc(g, l, &q->pool, d)) {
        return -1;
    }
    q->x_zero = qx->zero[0];
    if (is_max) {
        q->kind = global ? QK_GLOBAL_MAXPOOL : QK_MAXPOOL;
        return 0;
    }
    q->kind = global ? QK_GLOBAL_AVGPOOL : QK_AVGPOOL;
    int n = global ? 1 : q->pool.KH * q->pool.KW;
    int32_t *mult = ir_alloc(g, sizeof(int32_t) * (size_t)n);
    uint8_t *shift = ir_alloc(g, (size_t)n);
    for (int c = 1; c <= n; c++) {
        double cnt = global ? (double)q->hw : (double)c;
        if (factor(g, l, qx, 1.0, 0, qy, 1.0 / cnt, &mult[c - 1], &shift[c - 1], d))
            return -1;
    }
    set_rq(q, n, mult, shift, qy->zero[0]);
    return 0;
}

/* ------------------------------------------------------- element-wise */

static int lower_add_mul(IrGraph *g, int l, QuantLayer *q, IrDiag *d)
{
    const IrLayer *L = &g->layers[l];
    q->x2 = in_at(L, 1);
    if (q->x2 < 0 || L->residual >= 0)
        return quant_error(d, g, l, "integer %s needs two inputs and no fused residual", ir_op_name(L->op));
    const IrQuant *qa = act_quant(g, l, q->x, d), *qb = qa ? act_quant(g, l, q->x2, d) : NULL;
    const IrQuant *qy = qb ? act_quant(g, l, q->y, d) : NULL;
    if (!qy || clamp_bounds(g, l, qy, &L->act, &q->lo, &q->hi, d))
        return -1;
    quant_broadcast(g, q->x, q->x2, q->y, &q->bc);
    O2hEltQ *e = &q->elt;
    e->a_zero = qa->zero[0];
    e->b_zero = qb->zero[0];
    e->zero = qy->zero[0];
    e->lo = q->lo;
    e->hi = q->hi;
    int sh;
    if (L->op == IR_OP_MUL) {
        q->kind = QK_MUL;
        uint8_t s8;
        if (factor(g, l, qa, qb->scale[0], has_fb(qb) ? qb->frac_bits : INT32_MIN, qy, 1.0, &e->ma, &s8, d))
            return -1;
        e->shift = s8;
        return 0;
    }
    q->kind = QK_ADD;
    double ra = (double)qa->scale[0] / qy->scale[0], rb = (double)qb->scale[0] / qy->scale[0];
    int32_t mmax;
    if (pass_quant_multiplier(ra > rb ? ra : rb, &mmax, &sh))
        return quant_error(d, g, l, "input/output scale ratio %g cannot be represented", ra > rb ? ra : rb);
    int64_t mother = llround(ldexp(ra > rb ? rb : ra, sh));
    e->ma = ra > rb ? mmax : (int32_t)mother;
    e->mb = ra > rb ? (int32_t)mother : mmax;
    if (L->op == IR_OP_SUB)
        e->mb = -e->mb;
    e->shift = sh;
    return 0;
}

static int lower_unary(IrGraph *g, int l, QuantLayer *q, IrDiag *d)
{
    const IrLayer *L = &g->layers[l];
    const IrQuant *qx = act_quant(g, l, q->x, d), *qy = qx ? act_quant(g, l, q->y, d) : NULL;
    if (!qy)
        return -1;
    q->n = ir_tensor_numel(&g->tensors[q->y]);
    q->x_zero = qx->zero[0];
    bool clamp_op = L->op == IR_OP_RELU || L->op == IR_OP_CLIP;
    if (clamp_op && quant_act_foldable(L->act.kind)) {
        int32_t lo1, hi1, lo2, hi2;
        IrAct own = L->attr.act;
        if (L->op == IR_OP_RELU)
            own.kind = IR_ACT_RELU;
        if (clamp_bounds(g, l, qy, &own, &lo1, &hi1, d) || clamp_bounds(g, l, qy, &L->act, &lo2, &hi2, d))
            return -1;
        q->lo = lo1 > lo2 ? lo1 : lo2;
        q->hi = hi1 < hi2 ? hi1 : hi2;
        if (q->hi < q->lo)
            q->hi = q->lo;
        q->kind = QK_RESCALE;
        int32_t *m = ir_alloc(g, sizeof(int32_t));
        uint8_t *s = ir_alloc(g, 1);
        if (factor(g, l, qx, 1.0, 0, qy, 1.0, m, s, d))
            return -1;
        set_rq(q, 1, m, s, qy->zero[0]);
        return 0;
    }
    if (!quant_is_table_op(L) || qx->bits > 8 || qy->bits > 8)
        return quant_error(d, g, l, "%s has no integer form at %d bits (tables are 8-bit)", ir_op_name(L->op),
                           qy->bits);
    q->kind = QK_LUT;
    q->lo = pass_quant_qmin(8);
    q->hi = pass_quant_qmax(8);
    q->lut = ir_alloc(g, 256);
    QuantFn f = quant_layer_fn(L);
    pass_quant_build_lut(&f, qx->scale[0], qx->zero[0], qy->scale[0], qy->zero[0], q->lo, q->hi, q->lut);
    return 0;
}

static int lower_concat(IrGraph *g, int l, QuantLayer *q, IrDiag *d)
{
    const IrLayer *L = &g->layers[l];
    const IrQuant *qy = act_quant(g, l, q->y, d);
    const IrTensor *Y = &g->tensors[q->y];
    if (!qy || clamp_bounds(g, l, qy, &L->act, &q->lo, &q->hi, d))
        return -1;
    int axis = (int)(L->attr.axis.axis < 0 ? L->attr.axis.axis + Y->rank : L->attr.axis.axis);
    if (axis < 0 || axis >= Y->rank || L->n_in > IR_MAX_IO)
        return quant_error(d, g, l, "bad concat axis");
    q->kind = QK_CONCAT;
    q->n_in = L->n_in;
    quant_axis_split(Y, axis, &q->outer, &q->inner);
    for (int i = 0; i < L->n_in; i++) {
        const IrQuant *qi = act_quant(g, l, L->in[i], d);
        if (!qi)
            return -1;
        q->in[i] = L->in[i];
        q->dims_axis[i] = g->tensors[L->in[i]].dims[axis];
        q->in_zero[i] = qi->zero[0];
        q->in_rq[i] = (O2hRequant){1, NULL, NULL, qy->zero[0], q->lo, q->hi};
        if (quant_same_params(qi, qy) && q->lo == pass_quant_qmin(qy->bits) && q->hi == pass_quant_qmax(qy->bits))
            continue;
        int32_t *m = ir_alloc(g, sizeof(int32_t));
        uint8_t *s = ir_alloc(g, 1);
        if (factor(g, l, qi, 1.0, 0, qy, 1.0, m, s, d))
            return -1;
        q->in_rq[i].mult = m;
        q->in_rq[i].shift = s;
    }
    return 0;
}

static int lower_boundary(IrGraph *g, int l, QuantLayer *q, IrDiag *d)
{
    const IrLayer *L = &g->layers[l];
    bool quantize = L->op == IR_OP_QUANTIZE_LINEAR;
    int it = quantize ? q->y : q->x, ft = quantize ? q->x : q->y;
    const IrQuant *qi = act_quant(g, l, it, d);
    if (!qi)
        return -1;
    if (g->tensors[ft].dtype != IR_DT_FLOAT)
        return quant_error(d, g, l, "the float side '%s' of a boundary is %s", g->tensors[ft].name,
                           ir_dtype_name(g->tensors[ft].dtype));
    q->kind = quantize ? QK_QUANTIZE : QK_DEQUANTIZE;
    q->wide = qi->bits > 8;
    q->n = ir_tensor_numel(&g->tensors[q->y]);
    q->scale = qi->scale[0];
    q->zero = qi->zero[0];
    q->lo = pass_quant_qmin(qi->bits);
    q->hi = pass_quant_qmax(qi->bits);
    return 0;
}

/* views and data movements: every output holds codes of the input's
 * scale and zero point */
static int lower_copy(IrGraph *g, int l, QuantLayer *q, QuantKind kind, IrDiag *d)
{
    const IrLayer *L = &g->layers[l];
    const IrQuant *qx = act_quant(g, l, q->x, d), *qy = NULL;
    if (!qx)
        return -1;
    for (int k = 0; k < (kind == QK_MOVE ? L->n_out : 1); k++) {
        if (L->out[k] < 0)
            continue;
        if (!(qy = act_quant(g, l, L->out[k], d)))
            return -1;
        if (!quant_same_params(qx, qy))
            return quant_error(d, g, l, "%s must keep its input's quantization",
                               kind == QK_VIEW ? "a view" : "a data movement");
    }
    if (kind == QK_MOVE && L->op == IR_OP_GATHER &&
        (L->n_in != 2 || L->in[1] < 0 || g->tensors[L->in[1]].kind != IR_T_CONST))
        return quant_error(d, g, l, "an integer Gather needs constant indices");
    q->kind = kind;
    q->n = ir_tensor_numel(&g->tensors[q->x]);
    q->lo = pass_quant_qmin(qx->bits);
    q->hi = pass_quant_qmax(qx->bits);
    return 0;
}

/* ------------------------------------------------------- entry */

int pass_quant_lower(IrGraph *g, int l, QuantLayer *q, IrDiag *d)
{
    const IrLayer *L = &g->layers[l];
    memset(q, 0, sizeof *q);
    q->x = in_at(L, 0);
    q->x2 = -1;
    q->y = L->n_out > 0 ? L->out[0] : -1;
    q->w = -1;
    if (q->x < 0 || q->y < 0)
        return quant_error(d, g, l, "missing input or output");
    const IrQuant *oq = g->tensors[q->y].quant;
    q->wide = oq && oq->bits > 8;
    if (L->act.kind == IR_ACT_PRELU && L->op != IR_OP_PRELU)
        return quant_error(d, g, l, "a fused PRelu has no integer form");
    switch (L->op) {
    case IR_OP_QUANTIZE_LINEAR:
    case IR_OP_DEQUANTIZE_LINEAR: return lower_boundary(g, l, q, d);
    case IR_OP_CONV: return lower_conv(g, l, q, d);
    case IR_OP_GEMM: return lower_fc(g, l, q, d);
    case IR_OP_MAXPOOL: case IR_OP_AVGPOOL:
    case IR_OP_GLOBAL_MAXPOOL: case IR_OP_GLOBAL_AVGPOOL: return lower_pool(g, l, q, d);
    case IR_OP_REDUCE_MEAN:  /* over the spatial axes: a global average pool */
        if (ir_reduce_is_spatial_mean(g, L))
            return lower_pool(g, l, q, d);
        return quant_error(d, g, l, "ReduceMean has an integer form only over the spatial axes");
    case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: return lower_add_mul(g, l, q, d);
    case IR_OP_CONCAT: return lower_concat(g, l, q, d);
    case IR_OP_SPLIT: case IR_OP_SLICE: case IR_OP_TRANSPOSE:
    case IR_OP_GATHER: return lower_copy(g, l, q, QK_MOVE, d);
    default:
        if (ir_op_flags(L->op) & IR_F_NO_DATA)
            return lower_copy(g, l, q, QK_VIEW, d);
        if (pass_quant_fn_supported(L->op))
            return lower_unary(g, l, q, d);
        return quant_error(d, g, l, "%s has no integer form", ir_op_name(L->op));
    }
}
