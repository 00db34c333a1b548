/* seml_conv.c - SEML engine for matrix-product layers: standard, grouped
 * and pointwise convolutions and FC, one layer per descriptor.
 *
 * Why this loop order: feature maps live in DRAM (NHWC), weights in the
 * weight image. A layer runs in bands of output rows: the input rows a band
 * needs are burst into one half of a double-buffered band buffer while the
 * other half is computed; within a band the filters run in tiles of PA,
 * each tile's weights (PA filters x the whole reduction, with their bias,
 * multiplier and shift) burst into one half of a double-buffered tile while
 * the other half is used; finished output bands burst back. The compute
 * loop is one pipelined loop over (pixel tile, reduction tile), PA filters
 * x PB terms x PP pixels per cycle, with the epilogue of sesl_mac.c
 * (requantize, residual Add, table). Terms are in the order of the SESL
 * window, (kh, kw, c), and a tap table built once per layer gives each
 * term's row, column and channel offset, so one engine serves every kernel
 * size, stride, dilation, padding and group count of its layers.
 *
 * Cycles (C simulation, o2h_timing.h): each loop counts its iterations and
 * entries; the double buffers overlap loads, computation and stores, so a
 * band costs max(next band's load, its compute, previous band's store) and
 * a tile max(next tile's load, its compute) - the planner's formula in
 * plan/loopnest.c, counted here by running the loops.
 */
#include <stdint.h>

/* ---- parameters (values set per instance by the specializer) ---- */
#define O2H_P_PA 4          /* unroll: filters */
#define O2H_P_PB 8          /* unroll: reduction terms */
#define O2H_P_PP 2          /* unroll: output pixels */
#define O2H_P_MAX_B 1152    /* longest reduction served (C/G * KH * KW) */
#define O2H_P_IBUF 16384    /* bytes of each half of the input band buffer */
#define O2H_P_OBUF 16384    /* bytes of each half of the output band buffer */
#define O2H_P_BEAT 16       /* bytes per AXI beat */
#define O2H_P_MAX_BANDS 8   /* most bands of a layer served */
#define O2H_P_MAX_TILES 64  /* most filter tiles of a layer served */
#define O2H_P_MAX_IT 4608   /* most iterations of one compute loop over the layers served */
/* ---- end of parameters ---- */

/* bytes of the longest tile record, a whole number of beats (plan_ln_tile_bytes) */
#define TREC ((O2H_P_PA * O2H_P_MAX_B + 9 * O2H_P_PA + O2H_P_BEAT - 1) / O2H_P_BEAT * O2H_P_BEAT)
#define O2H_BURST_MAX ((O2H_P_IBUF > TREC ? O2H_P_IBUF : TREC) / O2H_P_BEAT)

#define O2H_SEML_BEAT O2H_P_BEAT
#include "o2h_seml.h"

/* cycles counted in C simulation, per layer */
int64_t conv_layer_cycles;

static int8_t ibuf[2][O2H_P_IBUF];
static int8_t sbuf[2][O2H_P_OBUF];       /* residual operand band */
static int8_t obuf[2][O2H_P_OBUF];
static int8_t tbuf[2][TREC];              /* weight tile records */
static int32_t bias_buf[2][O2H_P_PA], mult_buf[2][O2H_P_PA];
static int8_t shift_buf[2][O2H_P_PA];
static int16_t tap_dy[O2H_P_MAX_B], tap_dx[O2H_P_MAX_B], tap_c[O2H_P_MAX_B];
static int8_t lut_buf[256];

typedef struct {
    int h, w, c, ho, wo, f, kh, kw, sh, sw, dh, dw, pt, pl, g, cg, fg, b;
    int rows, nbands;
} Geom;

static Geom geom(const int32_t *d)
{
    Geom q;
    q.h = d[O2H_D_H], q.w = d[O2H_D_W], q.c = d[O2H_D_C], q.ho = d[O2H_D_HO], q.wo = d[O2H_D_WO];
    q.f = d[O2H_D_F], q.kh = d[O2H_D_KH], q.kw = d[O2H_D_KW], q.sh = d[O2H_D_SH], q.sw = d[O2H_D_SW];
    q.dh = d[O2H_D_DH], q.dw = d[O2H_D_DW], q.pt = d[O2H_D_PT], q.pl = d[O2H_D_PL], q.g = d[O2H_D_G];
    q.cg = q.c / q.g, q.fg = q.f / q.g, q.b = q.cg * q.kh * q.kw;
    q.rows = d[O2H_D_BAND_ROWS], q.nbands = d[O2H_D_NBANDS];
    return q;
}

/* input rows [*r0, *r1) that output rows [o0, o1) read */
static void in_rows(const Geom *q, int o0, int o1, int *r0, int *r1)
{
    int a = o0 * q->sh - q->pt, b = (o1 - 1) * q->sh - q->pt + (q->kh - 1) * q->dh + 1;
    *r0 = a < 0 ? 0 : a;
    *r1 = b > q->h ? q->h : b;
}

static int64_t build_taps(const Geom *q)
{
    int64_t cyc = 0;
    int c = 0, kw = 0, kh = 0;
    O2H_LOOP_ENTER(cyc, O2H_DEPTH_COPY);
    for (int t = 0; t < q->b; t++) {
#pragma HLS PIPELINE II=1
#pragma HLS LOOP_TRIPCOUNT max=O2H_P_MAX_B
        O2H_LOOP_ITER(cyc);
        tap_dy[t] = (int16_t)(kh * q->dh), tap_dx[t] = (int16_t)(kw * q->dw), tap_c[t] = (int16_t)c;
        if (++c == q->cg) {
            c = 0;
            if (++kw == q->kw) {
                kw = 0;
                kh++;
            }
        }
    }
    return cyc;
}

/* one tile record, one burst: PA filters x B weights, then per filter its
 * bias, multiplier (int32, little-endian) and shift, unpacked as they arrive */
static int64_t load_tile(const int32_t *d, const Geom *q, const int8_t *wimg, int t, int half)
{
    int64_t cyc = o2h_burst(tbuf[half], wimg + d[O2H_D_W_OFF] + (int64_t)t * d[O2H_D_W_TILE], d[O2H_D_W_TILE]);
    const uint8_t *pr = (const uint8_t *)tbuf[half] + O2H_P_PA * q->b;
    for (int a = 0; a < O2H_P_PA; a++) {
        const uint8_t *e = pr + 9 * a;
        bias_buf[half][a] = o2h_le32((const int8_t *)e);
        mult_buf[half][a] = o2h_le32((const int8_t *)e + 4);
        shift_buf[half][a] = (int8_t)e[8];
    }
    return cyc;
}

/* input code of term t for output pixel (oh, ow) and filter f */
static int32_t term(const int32_t *d, const Geom *q, const int8_t *in, int r0, int oh, int ow, int f, int t)
{
    int ih = oh * q->sh - q->pt + tap_dy[t], iw = ow * q->sw - q->pl + tap_dx[t];
    if (ih < 0 || ih >= q->h || iw < 0 || iw >= q->w)
        return d[O2H_D_XZERO];
    return in[((ih - r0) * q->w + iw) * q->c + (f / q->fg) * q->cg + tap_c[t]];
}

/* filters [t*PA, t*PA+PA) for output rows [o0, o1) */
static int64_t compute_tile(const int32_t *d, const Geom *q, int t, int half, int band, int o0, int o1, int r0)
{
    const int8_t *in = ibuf[band & 1], *sk = sbuf[band & 1];
    int8_t *out = obuf[band & 1];
    int npix = (o1 - o0) * q->wo, nr = (q->b + O2H_P_PB - 1) / O2H_P_PB;
    int32_t acc[O2H_P_PA][O2H_P_PP];
#pragma HLS ARRAY_PARTITION variable=acc complete dim=0
    int64_t cyc = 0;
    int pt = 0, r = 0;
    O2H_LOOP_ENTER(cyc, O2H_DEPTH_MAC(O2H_P_PB));
    for (int it = 0; it < (npix + O2H_P_PP - 1) / O2H_P_PP * nr; it++) {
#pragma HLS PIPELINE II=1
#pragma HLS LOOP_TRIPCOUNT max=O2H_P_MAX_IT
        O2H_LOOP_ITER(cyc);
        for (int a = 0; a < O2H_P_PA; a++) {
#pragma HLS UNROLL
            for (int pp = 0; pp < O2H_P_PP; pp++) {
#pragma HLS UNROLL
                int pix = pt * O2H_P_PP + pp, f = t * O2H_P_PA + a;
                int oh = o0 + pix / q->wo, ow = pix % q->wo;
                int32_t sum = r == 0 ? bias_buf[half][a] : acc[a][pp];
                for (int j = 0; j < O2H_P_PB; j++) {
#pragma HLS UNROLL
                    int tt = r * O2H_P_PB + j;
                    if (tt < q->b && pix < npix && f < q->f)
                        sum += tbuf[half][a * q->b + tt] * term(d, q, in, r0, oh, ow, f, tt);
                }
                acc[a][pp] = sum;
                if (r == nr - 1 && pix < npix && f < q->f)
                    out[pix * q->f + f] = o2h_epilogue(d, sum, mult_buf[half][a], shift_buf[half][a],
                                                       d[O2H_D_ADD] ? sk[pix * q->f + f] : 0, lut_buf);
            }
        }
        if (++r == nr) {
            r = 0;
            pt++;
        }
    }
    return cyc;
}

/* all filter tiles of one band, weight tiles double-buffered */
static int64_t compute_band(const int32_t *d, const Geom *q, const int8_t *wimg, int band, int o0, int o1, int r0)
{
    int nt = (q->f + O2H_P_PA - 1) / O2H_P_PA;
    int64_t cyc = load_tile(d, q, wimg, 0, 0);
    for (int t = 0; t < nt; t++) {
#pragma HLS LOOP_TRIPCOUNT max=O2H_P_MAX_TILES
        int64_t next = t + 1 < nt ? load_tile(d, q, wimg, t + 1, (t + 1) & 1) : 0;
        int64_t comp = compute_tile(d, q, t, t & 1, band, o0, o1, r0);
        cyc += next > comp ? next : comp;
    }
    return cyc;
}

/* input rows (and the residual operand's rows) of band b into its half */
static int64_t load_band(const int32_t *d, const Geom *q, const int8_t *fm, int b)
{
    int o0 = b * q->rows, o1 = o0 + q->rows < q->ho ? o0 + q->rows : q->ho, r0, r1;
    in_rows(q, o0, o1, &r0, &r1);
    int64_t cyc = o2h_burst(ibuf[b & 1], fm + d[O2H_D_IN_OFF] + (int64_t)r0 * q->w * q->c, (r1 - r0) * q->w * q->c);
    if (d[O2H_D_ADD])
        cyc += o2h_burst(sbuf[b & 1], fm + d[O2H_D_IN2_OFF] + (int64_t)o0 * q->wo * q->f, (o1 - o0) * q->wo * q->f);
    return cyc;
}

static int64_t store_band(const int32_t *d, const Geom *q, int8_t *fm, int b)
{
    int o0 = b * q->rows, o1 = o0 + q->rows < q->ho ? o0 + q->rows : q->ho;
    return o2h_burst(fm + d[O2H_D_OUT_OFF] + (int64_t)o0 * q->wo * q->f, obuf[b & 1], (o1 - o0) * q->wo * q->f);
}

void conv_layer(const int32_t d[O2H_DESC_WORDS], const int8_t *wimg, const int8_t *fm_r, int8_t *fm_w)
{
    Geom q = geom(d);
    int64_t cyc = build_taps(&q);
    if (d[O2H_D_LUT])
        cyc += o2h_burst(lut_buf, wimg + d[O2H_D_LUT_OFF], 256);
    cyc += load_band(d, &q, fm_r, 0);
    for (int b = 0; b < q.nbands; b++) {
#pragma HLS LOOP_TRIPCOUNT max=O2H_P_MAX_BANDS
        int o0 = b * q.rows, o1 = o0 + q.rows < q.ho ? o0 + q.rows : q.ho, r0, r1;
        in_rows(&q, o0, o1, &r0, &r1);
        int64_t next = b + 1 < q.nbands ? load_band(d, &q, fm_r, b + 1) : 0;
        int64_t comp = compute_band(d, &q, wimg, b, o0, o1, r0);
        int64_t prev = b > 0 ? store_band(d, &q, fm_w, b - 1) : 0;
        cyc += o2h_max3(next, comp, prev);
    }
    cyc += store_band(d, &q, fm_w, q.nbands - 1);
    conv_layer_cycles = cyc;
}
