/* rt_int_wide.c - 16-bit convolution and fully connected layers (int16 and
 * dynamic fixed point wider than 8 bits), int64 accumulators.
 *
 * Why plain loops: wide words are the accuracy reference of the integer
 * path (mixed precision, dfxp12..16), not its fast path, so these kernels
 * favour obviously-right code over speed. Products of two 16-bit codes need
 * 31 bits, so sums are kept in int64 and requantized with the exact 96-bit
 * o2h_rq64; the contract's formula is the same as for int8. */
#include "o2h_rt_int.h"

static int16_t o2h_requant16(int64_t acc, const O2hRequant *rq, int ch)
{
    int i = rq->n > 1 ? ch : 0;
    return (int16_t)o2h_clamp32(rq->zero + o2h_rq64(acc, rq->mult[i], rq->shift[i]), rq->lo, rq->hi);
}

size_t o2h_conv2d_s16_scratch(const O2hConv2d *p)
{
    (void)p;
    return 0;
}

/* acc of output (n, f, oh, ow): pads read x_zero, as the int8 kernel. */
static int64_t o2h_conv_point16(const O2hConv2d *p, int32_t x_zero, const int16_t *x,
                                const int16_t *wf, int n, int g, int oh, int ow)
{
    int cg = p->C / p->G;
    int64_t acc = 0;
    for (int c = 0; c < cg; c++) {
        const int16_t *plane = x + ((int64_t)n * p->C + (int64_t)g * cg + c) * p->H * p->W;
        const int16_t *wc = wf + (int64_t)c * p->KH * p->KW;
        for (int kh = 0; kh < p->KH; kh++) {
            int ih = oh * p->SH - p->PT + kh * p->DH;
            for (int kw = 0; kw < p->KW; kw++) {
                int iw = ow * p->SW - p->PL + kw * p->DW;
                int32_t v = ih >= 0 && ih < p->H && iw >= 0 && iw < p->W ? plane[(int64_t)ih * p->W + iw]
                                                                          : x_zero;
                acc += (int64_t)v * wc[kh * p->KW + kw];
            }
        }
    }
    return acc;
}

void o2h_conv2d_s16(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int16_t *x,
                    const int16_t *w, const int64_t *bias, int16_t *y, void *scratch)
{
    (void)scratch;
    int fg = p->F / p->G;
    int64_t kk = (int64_t)(p->C / p->G) * p->KH * p->KW;
    for (int n = 0; n < p->N; n++)
        for (int f = 0; f < p->F; f++) {
            int16_t *yp = y + ((int64_t)n * p->F + f) * p->HO * p->WO;
            for (int oh = 0; oh < p->HO; oh++)
                for (int ow = 0; ow < p->WO; ow++) {
                    int64_t acc = bias[f] + o2h_conv_point16(p, x_zero, x, w + f * kk, n, f / fg, oh, ow);
                    yp[(int64_t)oh * p->WO + ow] = o2h_requant16(acc, rq, f);
                }
        }
}

void o2h_fc_s16(const O2hFcQ *p, const O2hRequant *rq, const int16_t *x, const int16_t *w,
                const int64_t *bias, int16_t *y)
{
    for (int m = 0; m < p->M; m++) {
        const int16_t *xr = x + (int64_t)m * p->K;
        for (int n = 0; n < p->N; n++) {
            const int16_t *wr = w + (int64_t)n * p->K;
            int64_t acc = bias[n];
            for (int k = 0; k < p->K; k++)
                acc += (int32_t)xr[k] * wr[k];
            y[(int64_t)m * p->N + n] = o2h_requant16(acc, rq, n);
        }
    }
}
