/* rt_int_conv.c - int8 convolution (standard, grouped, depthwise, pointwise)
 * and fully connected layers with int32 accumulators.
 *
 * Why it is written this way: the result is fixed by the contract (exact
 * integer sums, then one requantization), so the only freedom is speed.
 * Every conv is turned into the same int8 panel product
 *     acc[f][p] = bias[f] + sum_k w[f][k] * col[k][p]
 * whose inner loop runs over contiguous output pixels with a broadcast
 * weight, four output channels at a time: plain C that compilers turn into
 * widening SIMD multiply-adds. Pointwise convs read the input as the panel
 * directly; other convs build it (im2col, pads filled with the input zero
 * point); depthwise convs use a padded copy of each plane instead, since
 * their panel would be as large as the input times the kernel size. */
#include "o2h_rt_int.h"

#include <string.h>

#define O2H_PTILE 256  /* output pixels per accumulator tile */

/* ------------------------------------------------ requantize a tile */

static void o2h_requant_row(const int32_t *acc, int n, const O2hRequant *rq, int ch, int8_t *y)
{
    int i = rq->n > 1 ? ch : 0;
    int32_t m = rq->mult[i], z = rq->zero, lo = rq->lo, hi = rq->hi;
    int sh = rq->shift[i];
    if (sh == 0) {
        for (int j = 0; j < n; j++)
            y[j] = (int8_t)o2h_clamp32(z + (int64_t)acc[j] * m, lo, hi);
        return;
    }
    int64_t half = (int64_t)1 << (sh - 1);
    for (int j = 0; j < n; j++) {
        int64_t v = o2h_floor_shift((int64_t)acc[j] * m + half, sh) + z;
        y[j] = (int8_t)(v < lo ? lo : v > hi ? hi : v);
    }
}

/* ------------------------------------------------ panel product */

typedef struct {
    int F, K, P;             /* channels, reduction length, pixels */
    const int8_t *w;         /* [F][K] */
    const int8_t *col;       /* [K][ldc] */
    int64_t ldc;
    const int32_t *bias;     /* [F] */
    const O2hRequant *rq;
    int ch0;                 /* channel index of row 0 (for per-channel rq) */
    int8_t *y;               /* [F][ldy] */
    int64_t ldy;
} O2hPanel;

static void o2h_panel4(const O2hPanel *q, int f, int p0, int np)
{
    int32_t a0[O2H_PTILE], a1[O2H_PTILE], a2[O2H_PTILE], a3[O2H_PTILE];
    const int8_t *w0 = q->w + (int64_t)f * q->K, *w1 = w0 + q->K, *w2 = w1 + q->K, *w3 = w2 + q->K;
    for (int i = 0; i < np; i++) {
        a0[i] = q->bias[f];
        a1[i] = q->bias[f + 1];
        a2[i] = q->bias[f + 2];
        a3[i] = q->bias[f + 3];
    }
    for (int k = 0; k < q->K; k++) {
        const int8_t *c = q->col + k * q->ldc + p0;
        int16_t b0 = w0[k], b1 = w1[k], b2 = w2[k], b3 = w3[k];
        for (int i = 0; i < np; i++) {
            int16_t v = c[i];
            a0[i] += (int16_t)(b0 * v);
            a1[i] += (int16_t)(b1 * v);
            a2[i] += (int16_t)(b2 * v);
            a3[i] += (int16_t)(b3 * v);
        }
    }
    int8_t *y = q->y + (int64_t)f * q->ldy + p0;
    o2h_requant_row(a0, np, q->rq, q->ch0 + f, y);
    o2h_requant_row(a1, np, q->rq, q->ch0 + f + 1, y + q->ldy);
    o2h_requant_row(a2, np, q->rq, q->ch0 + f + 2, y + 2 * q->ldy);
    o2h_requant_row(a3, np, q->rq, q->ch0 + f + 3, y + 3 * q->ldy);
}

static void o2h_panel1(const O2hPanel *q, int f, int p0, int np)
{
    int32_t a0[O2H_PTILE];
    const int8_t *w0 = q->w + (int64_t)f * q->K;
    for (int i = 0; i < np; i++)
        a0[i] = q->bias[f];
    for (int k = 0; k < q->K; k++) {
        const int8_t *c = q->col + k * q->ldc + p0;
        int16_t b0 = w0[k];
        for (int i = 0; i < np; i++)
            a0[i] += (int16_t)(b0 * (int16_t)c[i]);
    }
    o2h_requant_row(a0, np, q->rq, q->ch0 + f, q->y + (int64_t)f * q->ldy + p0);
}

static void o2h_panel(const O2hPanel *q)
{
    for (int p0 = 0; p0 < q->P; p0 += O2H_PTILE) {
        int np = q->P - p0 < O2H_PTILE ? q->P - p0 : O2H_PTILE;
        int f = 0;
        for (; f + 4 <= q->F; f += 4)
            o2h_panel4(q, f, p0, np);
        for (; f < q->F; f++)
            o2h_panel1(q, f, p0, np);
    }
}

/* ------------------------------------------------ conv geometry */

static int o2h_is_pointwise(const O2hConv2d *p)
{
    return p->KH == 1 && p->KW == 1 && p->SH == 1 && p->SW == 1 && !p->PT && !p->PL && !p->PB &&
           !p->PR && p->H == p->HO && p->W == p->WO;
}

static int o2h_is_depthwise(const O2hConv2d *p)
{
    return p->G == p->C && p->F == p->C && p->G > 1;
}

static size_t o2h_padded_plane(const O2hConv2d *p)
{
    return (size_t)(p->H + p->PT + p->PB) * (size_t)(p->W + p->PL + p->PR);
}

size_t o2h_conv2d_s8_scratch(const O2hConv2d *p)
{
    if (o2h_is_pointwise(p))
        return 0;
    if (o2h_is_depthwise(p))
        return o2h_padded_plane(p) + 64 + (size_t)p->WO * 4;
    return (size_t)(p->C / p->G) * p->KH * p->KW * (size_t)p->HO * p->WO;
}

/* col[(c*KH + kh)*KW + kw][oh*WO + ow] for the channels of one group. */
static void o2h_im2col_s8(const O2hConv2d *p, const int8_t *x, int cg, int8_t zero, int8_t *col)
{
    int64_t P = (int64_t)p->HO * p->WO;
    for (int c = 0; c < cg; c++)
        for (int kh = 0; kh < p->KH; kh++)
            for (int kw = 0; kw < p->KW; kw++) {
                int8_t *row = col + (((int64_t)c * p->KH + kh) * p->KW + kw) * P;
                const int8_t *plane = x + (int64_t)c * p->H * p->W;
                for (int oh = 0; oh < p->HO; oh++) {
                    int ih = oh * p->SH - p->PT + kh * p->DH;
                    int8_t *r = row + (int64_t)oh * p->WO;
                    if (ih < 0 || ih >= p->H) {
                        memset(r, zero, (size_t)p->WO);
                        continue;
                    }
                    const int8_t *src = plane + (int64_t)ih * p->W;
                    for (int ow = 0; ow < p->WO; ow++) {
                        int iw = ow * p->SW - p->PL + kw * p->DW;
                        r[ow] = iw >= 0 && iw < p->W ? src[iw] : zero;
                    }
                }
            }
}

/* ------------------------------------------------ depthwise */

static void o2h_dw_plane(const O2hConv2d *p, const int8_t *x, const int8_t *w, int32_t bias,
                         const O2hRequant *rq, int ch, int8_t zero, int8_t *y, int8_t *pad,
                         int32_t *acc)
{
    int Wp = p->W + p->PL + p->PR, Hp = p->H + p->PT + p->PB;
    memset(pad, zero, (size_t)Hp * Wp);
    for (int h = 0; h < p->H; h++)
        memcpy(pad + (int64_t)(h + p->PT) * Wp + p->PL, x + (int64_t)h * p->W, (size_t)p->W);
    for (int oh = 0; oh < p->HO; oh++) {
        for (int ow = 0; ow < p->WO; ow++)
            acc[ow] = bias;
        for (int kh = 0; kh < p->KH; kh++) {
            const int8_t *row = pad + (int64_t)(oh * p->SH + kh * p->DH) * Wp;
            for (int kw = 0; kw < p->KW; kw++) {
                int16_t wv = w[kh * p->KW + kw];
                const int8_t *src = row + kw * p->DW;
                if (p->SW == 1)
                    for (int ow = 0; ow < p->WO; ow++)
                        acc[ow] += (int16_t)(wv * (int16_t)src[ow]);
                else
                    for (int ow = 0; ow < p->WO; ow++)
                        acc[ow] += (int16_t)(wv * (int16_t)src[ow * p->SW]);
            }
        }
        o2h_requant_row(acc, p->WO, rq, ch, y + (int64_t)oh * p->WO);
    }
}

static void o2h_conv_dw_s8(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                           const int8_t *w, const int32_t *bias, int8_t *y, void *scratch)
{
    int8_t *pad = scratch;
    int32_t *acc = (int32_t *)(void *)((char *)scratch + ((o2h_padded_plane(p) + 63) & ~(size_t)63));
    int64_t hw = (int64_t)p->H * p->W, hwo = (int64_t)p->HO * p->WO, kk = (int64_t)p->KH * p->KW;
    for (int n = 0; n < p->N; n++)
        for (int c = 0; c < p->C; c++) {
            int64_t plane = (int64_t)n * p->C + c;
            o2h_dw_plane(p, x + plane * hw, w + c * kk, bias[c], rq, c, (int8_t)x_zero,
                         y + plane * hwo, pad, acc);
        }
}

/* ------------------------------------------------ entry points */

void o2h_conv2d_s8(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                   const int8_t *w, const int32_t *bias, int8_t *y, void *scratch)
{
    if (o2h_is_depthwise(p)) {
        o2h_conv_dw_s8(p, x_zero, rq, x, w, bias, y, scratch);
        return;
    }
    int cg = p->C / p->G, fg = p->F / p->G;
    int64_t hw = (int64_t)p->H * p->W, P = (int64_t)p->HO * p->WO;
    int K = cg * p->KH * p->KW;
    int pw = o2h_is_pointwise(p);
    for (int n = 0; n < p->N; n++)
        for (int g = 0; g < p->G; g++) {
            const int8_t *xg = x + ((int64_t)n * p->C + (int64_t)g * cg) * hw;
            if (!pw)
                o2h_im2col_s8(p, xg, cg, (int8_t)x_zero, scratch);
            O2hPanel q = {fg, K, (int)P, w + (int64_t)g * fg * K, pw ? xg : (const int8_t *)scratch, P,
                          bias + (int64_t)g * fg, rq, g * fg,
                          y + ((int64_t)n * p->F + (int64_t)g * fg) * P, P};
            o2h_panel(&q);
        }
}

void o2h_fc_s8(const O2hFcQ *p, const O2hRequant *rq, const int8_t *x, const int8_t *w,
               const int32_t *bias, int8_t *y)
{
    for (int m = 0; m < p->M; m++) {
        const int8_t *xr = x + (int64_t)m * p->K;
        for (int n = 0; n < p->N; n++) {
            const int8_t *wr = w + (int64_t)n * p->K;
            int32_t acc = 0;
            for (int k = 0; k < p->K; k++)
                acc += (int16_t)(xr[k] * wr[k]);
            acc += bias[n];
            o2h_requant_row(&acc, 1, rq, n, y + (int64_t)m * p->N + n);
        }
    }
}
