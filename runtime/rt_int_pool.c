/* rt_int_pool.c - integer max / average pooling and the global pools.
 *
 * Why: pooling needs no multiplier for max (the output keeps the input's
 * scale, so the maximum of the codes is the code of the maximum) and one
 * requantization for averages, with 1/count folded into the multiplier so
 * no division happens at run time. Window bounds follow ONNX exactly as the
 * float kernels do (rt_pool.c): taps off the image never count for max,
 * and count for the average only with count_include_pad and only inside
 * the explicit pads. The same code serves int8 and int16 storage through
 * int32 codes, with a per-type wrapper. */
#include "o2h_rt_int.h"

/* Valid taps [*k0, *k1) of output o along one axis and the taps inside
 * image + explicit pads (*padded). */
static void o2h_qpool_axis(int o, int S, int D, int K, int P0, int P1, int len, int *k0, int *k1,
                           int *padded)
{
    int start = o * S - P0, lo = K, hi = 0, cnt = 0;
    for (int k = 0; k < K; k++) {
        int i = start + k * D;
        if (i >= -P0 && i < len + P1)
            cnt++;
        if (i >= 0 && i < len) {
            if (k < lo)
                lo = k;
            hi = k + 1;
        }
    }
    *k0 = lo;
    *k1 = hi > lo ? hi : lo;
    *padded = cnt;
}

typedef struct {
    const O2hPool2d *p;
    int is_max;
    int32_t x_zero, lo;
    const O2hRequant *rq;
} O2hPoolQ;

static int32_t o2h_avg_out(const O2hPoolQ *q, int64_t acc, int cnt)
{
    const O2hRequant *rq = q->rq;
    if (cnt <= 0 || cnt > rq->n)
        return o2h_clamp32(rq->zero, rq->lo, rq->hi);
    return o2h_clamp32(rq->zero + o2h_rq64(acc, rq->mult[cnt - 1], rq->shift[cnt - 1]), rq->lo, rq->hi);
}

/* One output of a plane; get(x, i) reads element i as int32. */
#define O2H_POOL_PLANE(NAME, T)                                                                \
    static void NAME(const O2hPoolQ *q, const T *x, T *y)                                      \
    {                                                                                          \
        const O2hPool2d *p = q->p;                                                             \
        for (int oh = 0; oh < p->HO; oh++) {                                                   \
            int h0, h1, hc;                                                                    \
            o2h_qpool_axis(oh, p->SH, p->DH, p->KH, p->PT, p->PB, p->H, &h0, &h1, &hc);        \
            for (int ow = 0; ow < p->WO; ow++) {                                               \
                int w0, w1, wc;                                                                \
                o2h_qpool_axis(ow, p->SW, p->DW, p->KW, p->PL, p->PR, p->W, &w0, &w1, &wc);    \
                int ih0 = oh * p->SH - p->PT, iw0 = ow * p->SW - p->PL;                        \
                int64_t acc = 0;                                                               \
                int32_t mx = q->lo;                                                            \
                for (int kh = h0; kh < h1; kh++) {                                             \
                    const T *row = x + (int64_t)(ih0 + kh * p->DH) * p->W + iw0;               \
                    for (int kw = w0; kw < w1; kw++) {                                         \
                        int32_t v = row[kw * p->DW];                                           \
                        acc += v - q->x_zero;                                                  \
                        mx = v > mx ? v : mx;                                                  \
                    }                                                                          \
                }                                                                              \
                int cnt = p->count_include_pad ? hc * wc : (h1 - h0) * (w1 - w0);             \
                y[(int64_t)oh * p->WO + ow] = (T)(q->is_max ? mx : o2h_avg_out(q, acc, cnt)); \
            }                                                                                  \
        }                                                                                      \
    }

O2H_POOL_PLANE(o2h_pool_plane_s8, int8_t)
O2H_POOL_PLANE(o2h_pool_plane_s16, int16_t)

/* Max pooling of a plane without dilation, same results: per output row the
 * maximum of the window's rows is taken first over the whole row (from lo,
 * contiguous, so it vectorizes), then each output takes the maximum over its
 * columns of that row, with no bounds work for windows inside the image.
 * Returns 0 (nothing done) for dilations or rows wider than its buffer. */
#define O2H_MAX_ROW_CAP 2048
#define O2H_MAX_PLANE(NAME, T)                                                                 \
    static int NAME(const O2hPool2d *p, const T *x, T *y, int32_t lo)                          \
    {                                                                                          \
        T t[O2H_MAX_ROW_CAP];                                                                  \
        if (p->DH != 1 || p->DW != 1 || p->W > O2H_MAX_ROW_CAP || p->SW <= 0)                 \
            return 0;                                                                          \
        int KW = p->KW, SW = p->SW, W = p->W;                                                  \
        /* outputs [a, b) have their whole window inside the row */                         \
        int a = (p->PL + SW - 1) / SW, b = W - KW + p->PL >= 0 ? (W - KW + p->PL) / SW + 1 : 0; \
        b = b < p->WO ? b : p->WO;                                                             \
        a = a < b ? a : b;                                                                     \
        for (int oh = 0; oh < p->HO; oh++) {                                                   \
            int h0, h1, hc;                                                                    \
            o2h_qpool_axis(oh, p->SH, 1, p->KH, p->PT, p->PB, p->H, &h0, &h1, &hc);            \
            int ih0 = oh * p->SH - p->PT;                                                      \
            for (int iw = 0; iw < W; iw++)                                                     \
                t[iw] = (T)lo;                                                                 \
            for (int kh = h0; kh < h1; kh++) {                                                 \
                const T *row = x + (int64_t)(ih0 + kh) * W;                                    \
                for (int iw = 0; iw < W; iw++)                                                 \
                    t[iw] = row[iw] > t[iw] ? row[iw] : t[iw];                                 \
            }                                                                                  \
            T *yr = y + (int64_t)oh * p->WO;                                                   \
            for (int ow = 0; ow < p->WO; ow++) {                                               \
                if (ow == a && a < b) {                                                        \
                    const T *s3 = t + (a * SW - p->PL); /* output a's window (>= t) */      \
                    if (KW == 3 && SW == 2) /* a form the compiler vectorizes */              \
                        for (; ow < b; ow++) {                                                 \
                            int i = 2 * (ow - a);                                              \
                            T m0 = s3[i], m1 = s3[i + 1], m2 = s3[i + 2];                      \
                            m0 = m1 > m0 ? m1 : m0;                                            \
                            yr[ow] = m2 > m0 ? m2 : m0;                                        \
                        }                                                                      \
                    for (; ow < b; ow++) {                                                     \
                        const T *s = t + ow * SW - p->PL;                                      \
                        T m = s[0];                                                            \
                        for (int kw = 1; kw < KW; kw++)                                        \
                            m = s[kw] > m ? s[kw] : m;                                         \
                        yr[ow] = m;                                                            \
                    }                                                                          \
                    if (ow >= p->WO)                                                           \
                        break;                                                                 \
                }                                                                              \
                int w0, w1, wc;                                                                \
                o2h_qpool_axis(ow, SW, 1, KW, p->PL, p->PR, W, &w0, &w1, &wc);                 \
                int32_t m = lo;                                                                \
                for (int kw = w0; kw < w1; kw++) {                                             \
                    int32_t v = t[ow * SW - p->PL + kw];                                       \
                    m = v > m ? v : m;                                                         \
                }                                                                              \
                yr[ow] = (T)m;                                                                 \
            }                                                                                  \
        }                                                                                      \
        return 1;                                                                              \
    }

O2H_MAX_PLANE(o2h_max_plane_s8, int8_t)
O2H_MAX_PLANE(o2h_max_plane_s16, int16_t)

void o2h_maxpool2d_s8(const O2hPool2d *p, const int8_t *x, int8_t *y, int32_t lo)
{
    O2hPoolQ q = {p, 1, 0, lo, NULL};
    int64_t hw = (int64_t)p->H * p->W, hwo = (int64_t)p->HO * p->WO;
    for (int64_t i = 0; i < (int64_t)p->N * p->C; i++)
        if (!o2h_max_plane_s8(p, x + i * hw, y + i * hwo, lo))
            o2h_pool_plane_s8(&q, x + i * hw, y + i * hwo);
}

void o2h_maxpool2d_s16(const O2hPool2d *p, const int16_t *x, int16_t *y, int32_t lo)
{
    O2hPoolQ q = {p, 1, 0, lo, NULL};
    int64_t hw = (int64_t)p->H * p->W, hwo = (int64_t)p->HO * p->WO;
    for (int64_t i = 0; i < (int64_t)p->N * p->C; i++)
        if (!o2h_max_plane_s16(p, x + i * hw, y + i * hwo, lo))
            o2h_pool_plane_s16(&q, x + i * hw, y + i * hwo);
}

void o2h_avgpool2d_s8(const O2hPool2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                      int8_t *y)
{
    O2hPoolQ q = {p, 0, x_zero, rq->lo, rq};
    int64_t hw = (int64_t)p->H * p->W, hwo = (int64_t)p->HO * p->WO;
    for (int64_t i = 0; i < (int64_t)p->N * p->C; i++)
        o2h_pool_plane_s8(&q, x + i * hw, y + i * hwo);
}

void o2h_avgpool2d_s16(const O2hPool2d *p, int32_t x_zero, const O2hRequant *rq, const int16_t *x,
                       int16_t *y)
{
    O2hPoolQ q = {p, 0, x_zero, rq->lo, rq};
    int64_t hw = (int64_t)p->H * p->W, hwo = (int64_t)p->HO * p->WO;
    for (int64_t i = 0; i < (int64_t)p->N * p->C; i++)
        o2h_pool_plane_s16(&q, x + i * hw, y + i * hwo);
}

/* ------------------------------------------------ global pools */

void o2h_global_maxpool_s8(int64_t nc, int64_t hw, const int8_t *x, int8_t *y)
{
    for (int64_t i = 0; i < nc; i++) {
        const int8_t *s = x + i * hw;
        int8_t m = -128;
        for (int64_t j = 0; j < hw; j++)
            m = s[j] > m ? s[j] : m;
        y[i] = m;
    }
}

void o2h_global_maxpool_s16(int64_t nc, int64_t hw, const int16_t *x, int16_t *y)
{
    for (int64_t i = 0; i < nc; i++) {
        const int16_t *s = x + i * hw;
        int16_t m = INT16_MIN;
        for (int64_t j = 0; j < hw; j++)
            m = s[j] > m ? s[j] : m;
        y[i] = m;
    }
}

void o2h_global_avgpool_s8(int64_t nc, int64_t hw, int32_t x_zero, const O2hRequant *rq,
                           const int8_t *x, int8_t *y)
{
    for (int64_t i = 0; i < nc; i++) {
        const int8_t *s = x + i * hw;
        int32_t acc = 0;
        for (int64_t j = 0; j < hw; j++)
            acc += s[j];
        int64_t v = (int64_t)acc - hw * x_zero;
        y[i] = (int8_t)o2h_clamp32(rq->zero + o2h_rq32(v, rq->mult[0], rq->shift[0]), rq->lo, rq->hi);
    }
}

void o2h_global_avgpool_s16(int64_t nc, int64_t hw, int32_t x_zero, const O2hRequant *rq,
                            const int16_t *x, int16_t *y)
{
    for (int64_t i = 0; i < nc; i++) {
        const int16_t *s = x + i * hw;
        int64_t acc = 0;
        for (int64_t j = 0; j < hw; j++)
            acc += s[j];
        acc -= hw * x_zero;
        y[i] = (int16_t)o2h_clamp32(rq->zero + o2h_rq64(acc, rq->mult[0], rq->shift[0]), rq->lo, rq->hi);
    }
}
