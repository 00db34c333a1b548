/* quant_weights.c - integer weights and biases of conv and Gemm layers.
 *
 * Why this scheme: weights are known at compile time, so they get the best
 * grid each output channel allows - symmetric, per output channel
 * (s_w[c] = max|w_c| / 127 for int8, / 32767 for int16), zero point 0 so
 * the kernels need no weight offset - while dynamic fixed point keeps one
 * power-of-two scale per tensor (MuPPET). The bias is stored at the
 * accumulator's scale s_x * s_w[c] (int32 for 8-bit words, int64 for
 * wider ones) so it adds to the sum directly; the lowering folds the input
 * zero point into it. Gemm weights are stored [N][K] (transB = 1) with
 * alpha and beta folded, so FC layers look like 1x1 convolutions.
 * Weights that are already integer (a QDQ model) keep their codes. */
#include "quant_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t rows, K;         /* output channels, values per channel */
    float *w;                /* float weights [rows][K] (owned) */
} FloatW;

/* Gemm B as [N][K] with alpha folded; conv W as [F][K] */
static int float_rows(IrGraph *g, int l, FloatW *fw)
{
    IrLayer *L = &g->layers[l];
    const IrTensor *W = &g->tensors[L->in[1]];
    const float *src = ir_tensor_data(g, L->in[1]);
    int64_t n = ir_tensor_numel(W);
    bool gemm = L->op == IR_OP_GEMM;
    fw->rows = gemm ? (L->attr.gemm.trans_b ? W->dims[0] : W->dims[1]) : W->dims[0];
    fw->K = fw->rows > 0 ? n / fw->rows : 0;
    fw->w = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    if (!fw->w || !src)
        return -1;
    float alpha = gemm ? L->attr.gemm.alpha : 1.0f;
    for (int64_t r = 0; r < fw->rows; r++)
        for (int64_t k = 0; k < fw->K; k++) {
            int64_t at = gemm && !L->attr.gemm.trans_b ? k * fw->rows + r : r * fw->K + k;
            fw->w[r * fw->K + k] = src[at] * alpha;
        }
    return 0;
}

static IrQuant *channel_quant(IrGraph *g, int64_t rows, int bits)
{
    IrQuant *q = ir_alloc(g, sizeof *q);
    q->axis = 0;
    q->n = (int)rows;
    q->scale = ir_alloc(g, sizeof(float) * (size_t)rows);
    q->zero = ir_alloc(g, sizeof(int32_t) * (size_t)rows);
    q->bits = bits;
    q->frac_bits = INT32_MIN;
    return q;
}

static int64_t clamp64(double v, int64_t lo, int64_t hi)
{
    if (!(v == v))
        return 0;
    return v < (double)lo ? lo : v > (double)hi ? hi : (int64_t)llround(v);
}

/* new integer constant named after t with dims (rows, K) collapsed as t's */
static int int_const(IrGraph *g, int like, const char *suffix, IrDType dt, int rank, const int64_t *dims,
                     void **data)
{
    const char *base = g->tensors[like].name;
    char *name = ir_sprintf(g, "%s%s", base, suffix);
    for (int k = 2; ir_tensor_find(g, name) >= 0; k++)
        name = ir_sprintf(g, "%s%s%d", base, suffix, k);
    return ir_const_add(g, name, dt, rank, dims, data);
}

static int quantize_weights(IrGraph *g, int l, const FloatW *fw, IrQuant **qout)
{
    IrLayer *L = &g->layers[l];
    bool wide = L->bits > 8;
    IrQuant *q;
    if (L->prec == IR_PREC_DFXP) {
        double mn = 0, mx = 0;
        for (int64_t i = 0; i < fw->rows * fw->K; i++) {
            mn = fw->w[i] < mn ? fw->w[i] : mn;
            mx = fw->w[i] > mx ? fw->w[i] : mx;
        }
        int fb = pass_quant_dfxp_frac_bits(mn, mx, L->bits);
        q = pass_quant_new(g, (float)ldexp(1.0, -fb), 0, L->bits, fb);
    } else {
        q = channel_quant(g, fw->rows, L->bits);
        int32_t qmax = pass_quant_qmax(L->bits);
        for (int64_t r = 0; r < fw->rows; r++) {
            double m = 0;
            for (int64_t k = 0; k < fw->K; k++)
                m = fabs(fw->w[r * fw->K + k]) > m ? fabs(fw->w[r * fw->K + k]) : m;
            q->scale[r] = pass_quant_sym_scale(m, qmax);
        }
    }
    const IrTensor *W = &g->tensors[L->in[1]];
    int64_t dims[IR_MAX_RANK];
    memcpy(dims, W->dims, sizeof dims);
    if (L->op == IR_OP_GEMM)
        dims[0] = fw->rows, dims[1] = fw->K;
    void *data;
    int t = int_const(g, L->in[1], ".q", wide ? IR_DT_INT16 : IR_DT_INT8, W->rank, dims, &data);
    int32_t lo = L->prec == IR_PREC_DFXP ? pass_quant_qmin(L->bits) : -pass_quant_qmax(L->bits);
    int32_t hi = pass_quant_qmax(L->bits);
    for (int64_t r = 0; r < fw->rows; r++) {
        double s = q->n > 1 ? q->scale[r] : q->scale[0];
        for (int64_t k = 0; k < fw->K; k++) {
            int64_t v = clamp64(fw->w[r * fw->K + k] / s, lo, hi);
            if (wide)
                ((int16_t *)data)[r * fw->K + k] = (int16_t)v;
            else
                ((int8_t *)data)[r * fw->K + k] = (int8_t)v;
        }
    }
    g->tensors[t].quant = q;
    L->in[1] = t;
    *qout = q;
    return 0;
}

/* transposed copy of imported [K][N] integer Gemm weights */
static int transpose_int_weights(IrGraph *g, int l)
{
    IrLayer *L = &g->layers[l];
    const IrTensor *W = &g->tensors[L->in[1]];
    int64_t K = W->dims[0], N = W->dims[1], dims[2] = {N, K};
    size_t es = ir_dtype_size(W->dtype);
    const unsigned char *src = ir_tensor_data(g, L->in[1]);
    void *data;
    int t = int_const(g, L->in[1], ".t", W->dtype, 2, dims, &data);
    for (int64_t k = 0; k < K; k++)
        for (int64_t n = 0; n < N; n++)
            memcpy((unsigned char *)data + (n * K + k) * es, src + (k * N + n) * es, es);
    IrQuant *q = g->tensors[L->in[1]].quant;
    IrQuant *nq = ir_alloc(g, sizeof *nq);
    *nq = *q;
    nq->axis = q->n > 1 ? 0 : -1;
    g->tensors[t].quant = nq;
    L->in[1] = t;
    L->attr.gemm.trans_b = true;
    return 0;
}

/* accumulator scale of channel r */
static double acc_scale(const IrQuant *qx, const IrQuant *qw, int64_t r)
{
    if (qx->frac_bits != INT32_MIN && qw->frac_bits != INT32_MIN)
        return ldexp(1.0, -(qx->frac_bits + qw->frac_bits));
    return (double)qx->scale[0] * (double)(qw->n > 1 ? qw->scale[r] : qw->scale[0]);
}

static double bias_value(IrGraph *g, int bt, int64_t r, bool *is_int)
{
    const IrTensor *B = &g->tensors[bt];
    const void *p = ir_tensor_data(g, bt);
    *is_int = B->dtype != IR_DT_FLOAT;
    if (B->dtype == IR_DT_FLOAT)
        return ((const float *)p)[r];
    double v = B->dtype == IR_DT_INT64 ? (double)((const int64_t *)p)[r] : (double)((const int32_t *)p)[r];
    const IrQuant *q = B->quant;
    return q ? v * (q->n > 1 ? q->scale[r] : q->scale[0]) : v;
}

static int quantize_bias(IrGraph *g, int l, const IrQuant *qx, const IrQuant *qw, int64_t rows, IrDiag *d)
{
    IrLayer *L = &g->layers[l];
    int bt = L->n_in > 2 ? L->in[2] : -1;
    if (bt < 0)
        return 0;
    const IrTensor *B = &g->tensors[bt];
    if (B->kind != IR_T_CONST || ir_tensor_numel(B) != rows)
        return quant_error(d, g, l, "bias '%s' must be a constant of %lld values", B->name, (long long)rows);
    bool wide = L->bits > 8, is_int = false, clamped = false;
    float beta = L->op == IR_OP_GEMM ? L->attr.gemm.beta : 1.0f;
    int64_t dims[1] = {rows};
    void *data;
    int t = int_const(g, bt, ".q", wide ? IR_DT_INT64 : IR_DT_INT32, 1, dims, &data);
    B = &g->tensors[bt];  /* the tensor array may have moved */
    IrQuant *q = channel_quant(g, rows, wide ? 64 : 32);
    int64_t lim = wide ? ((int64_t)1 << 62) : INT32_MAX;
    for (int64_t r = 0; r < rows; r++) {
        double s = acc_scale(qx, qw, r), v = bias_value(g, bt, r, &is_int) * beta / s;
        int64_t b = clamp64(v, -lim, lim);
        if (is_int && B->quant && beta == 1.0f && (float)s == B->quant->scale[B->quant->n > 1 ? r : 0])
            b = B->dtype == IR_DT_INT64 ? ((const int64_t *)ir_tensor_data(g, bt))[r]
                                        : ((const int32_t *)ir_tensor_data(g, bt))[r];
        clamped |= fabs(v) > (double)lim;
        if (wide)
            ((int64_t *)data)[r] = b;
        else
            ((int32_t *)data)[r] = (int32_t)b;
        q->scale[r] = (float)s;
    }
    if (clamped)
        diag_warn(d, g->path, L->name, ir_op_name(L->op), "bias '%s' saturated at the accumulator's range",
                  B->name);
    g->tensors[t].quant = q;
    L->in[2] = t;
    if (L->op == IR_OP_GEMM)
        L->attr.gemm.beta = 1.0f;
    return 0;
}

int quant_convert_weights(IrGraph *g, int l, IrDiag *d)
{
    IrLayer *L = &g->layers[l];
    const IrQuant *qx = g->tensors[L->in[0]].quant;
    const IrTensor *W = &g->tensors[L->in[1]];
    if (!qx || W->kind != IR_T_CONST)
        return quant_error(d, g, l, "weights and input quantization are needed");
    IrQuant *qw = NULL;
    if (W->dtype == IR_DT_FLOAT) {
        FloatW fw = {0, 0, NULL};
        int rc = float_rows(g, l, &fw) ? quant_error(d, g, l, "cannot read weights") : quantize_weights(g, l, &fw, &qw);
        free(fw.w);
        if (rc)
            return -1;
        if (L->op == IR_OP_GEMM)
            L->attr.gemm.trans_b = true, L->attr.gemm.alpha = 1.0f;
    } else {
        IrDType want = L->bits > 8 ? IR_DT_INT16 : IR_DT_INT8;
        if (W->dtype != want || !W->quant)
            return quant_error(d, g, l, "weight '%s' is %s; %d-bit layers need %s weights", W->name,
                               ir_dtype_name(W->dtype), L->bits, ir_dtype_name(want));
        if (L->op == IR_OP_GEMM && !L->attr.gemm.trans_b)
            transpose_int_weights(g, l);
        if (L->op == IR_OP_GEMM && L->attr.gemm.alpha != 1.0f)
            return quant_error(d, g, l, "integer Gemm weights with alpha != 1");
        qw = g->tensors[L->in[1]].quant;
    }
    int64_t rows = g->tensors[L->in[1]].dims[0];
    return quantize_bias(g, l, qx, qw, rows, d);
}
