/* seml_dw.c - SEML engine for per-channel window layers: depthwise
 * convolutions and max/average pools (windowed and global), one layer per
 * descriptor.
 *
 * Why one engine for both: a depthwise conv and a pool are the same loop
 * nest, channels x window taps x output pixels, with multiply-accumulate
 * or compare/sum as the lane operation (plan/seml.c serves pools on the
 * depthwise family). The layer's constants (weights [F][KK] with the
 * filter's bias, multiplier and shift; or a pool's multipliers per tap
 * count) are one record of the weight image, burst once per layer. Bands of
 * output rows stream through a double-buffered band buffer as in
 * seml_conv.c; the compute loop runs over (pixel tile, channel tile, tap
 * tile), PA channels x PB taps x PP pixels per cycle. Global pools
 * accumulate PA channels x PP pixels per cycle across all bands and write
 * one pixel at the end. Rules (pads, tap counts) are the host runtime's
 * (rt_int_conv.c, rt_int_pool.c), through runtime/o2h_int_contract.h; a
 * depthwise conv ends in the conv epilogue of o2h_seml.h (requantize,
 * residual Add, table).
 */
#include <stdint.h>

/* ---- parameters (values set per instance by the specializer) ---- */
#define O2H_P_PA 8          /* unroll: channels */
#define O2H_P_PB 9          /* unroll: window taps */
#define O2H_P_PP 1          /* unroll: output pixels */
#define O2H_P_MAX_C 1024    /* most channels of a layer served */
#define O2H_P_MAX_KK 25     /* most window taps (windowed layers) */
#define O2H_P_MAX_K 5       /* longest window side */
#define O2H_P_IBUF 16384    /* bytes of each half of the input band buffer */
#define O2H_P_OBUF 16384    /* bytes of each half of the output band buffer */
#define O2H_P_BEAT 16       /* bytes per AXI beat */
#define O2H_P_MAX_BANDS 8   /* most bands of a layer served */
#define O2H_P_MAX_IT 4096   /* most iterations of one compute loop over the layers served */
/* ---- end of parameters ---- */

#define LREC (O2H_P_MAX_C * O2H_P_MAX_KK + 9 * O2H_P_MAX_C)  /* longest layer record */
#define O2H_BURST_MAX ((O2H_P_IBUF > LREC ? O2H_P_IBUF : LREC) / O2H_P_BEAT)

#define O2H_SEML_BEAT O2H_P_BEAT
#include "o2h_seml.h"

/* cycles counted in C simulation, per layer */
int64_t dw_layer_cycles;

static int8_t ibuf[2][O2H_P_IBUF];
static int8_t sbuf[2][O2H_P_OBUF];       /* residual operand band (depthwise conv) */
static int8_t obuf[2][O2H_P_OBUF];
static int8_t lut_buf[256];
static int8_t rec[LREC];
static int32_t gacc[O2H_P_MAX_C];

typedef struct {
    int op, h, w, c, ho, wo, f, kh, kw, kk, sh, sw, dh, dw, pt, pl, pb, pr, mult_ch, rows, nbands;
} Geom;

static Geom geom(const int32_t *d)
{
    Geom q;
    q.op = d[O2H_D_OP], q.h = d[O2H_D_H], q.w = d[O2H_D_W], q.c = d[O2H_D_C], q.ho = d[O2H_D_HO];
    q.wo = d[O2H_D_WO], q.f = d[O2H_D_F], q.kh = d[O2H_D_KH], q.kw = d[O2H_D_KW], q.kk = q.kh * q.kw;
    q.sh = d[O2H_D_SH], q.sw = d[O2H_D_SW], q.dh = d[O2H_D_DH], q.dw = d[O2H_D_DW], q.pt = d[O2H_D_PT];
    q.pl = d[O2H_D_PL], q.pb = d[O2H_D_EPB], q.pr = d[O2H_D_EPR], q.mult_ch = q.f / q.c;
    q.rows = d[O2H_D_BAND_ROWS], q.nbands = d[O2H_D_NBANDS];
    return q;
}

static int global_op(int op)
{
    return op == O2H_OP_GMAXPOOL || op == O2H_OP_GAVGPOOL;
}

static int max_op(int op)
{
    return op == O2H_OP_MAXPOOL || op == O2H_OP_GMAXPOOL;
}

/* record: conv: weights [F][KK], then per channel bias, mult (int32), shift;
 * average pools: per tap count (or once, global) mult (int32), shift */
static int32_t rec_bias(const Geom *q, int f)
{
    return o2h_le32(rec + q->f * q->kk + 9 * f);
}

static int32_t rec_mult(const Geom *q, int i)
{
    return q->op == O2H_OP_DWCONV ? o2h_le32(rec + q->f * q->kk + 9 * i + 4) : o2h_le32(rec + 5 * i);
}

static int rec_shift(const Geom *q, int i)
{
    return q->op == O2H_OP_DWCONV ? rec[q->f * q->kk + 9 * i + 8] : rec[5 * i + 4];
}

static int tap_in(int o, int k, int s, int d, int p0, int len)
{
    int i = o * s - p0 + k * d;
    return i >= 0 && i < len;
}

/* taps of output (oh, ow) counted by an average pool */
static int tap_count(const int32_t *d, const Geom *q, int oh, int ow)
{
    int nh = 0, nw = 0, ph = 0, pw = 0;
    for (int k = 0; k < q->kh; k++) {
#pragma HLS LOOP_TRIPCOUNT max=O2H_P_MAX_K
        int i = oh * q->sh - q->pt + k * q->dh;
        nh += i >= 0 && i < q->h;
        ph += i >= -q->pt && i < q->h + q->pb;
    }
    for (int k = 0; k < q->kw; k++) {
#pragma HLS LOOP_TRIPCOUNT max=O2H_P_MAX_K
        int i = ow * q->sw - q->pl + k * q->dw;
        nw += i >= 0 && i < q->w;
        pw += i >= -q->pl && i < q->w + q->pr;
    }
    return d[O2H_D_INCLUDE_PAD] ? ph * pw : nh * nw;
}

static int8_t pool_out(const int32_t *d, const Geom *q, int32_t v, int oh, int ow)
{
    if (max_op(q->op))
        return (int8_t)v;
    int cnt = global_op(q->op) ? 1 : tap_count(d, q, oh, ow);
    if (cnt <= 0 || cnt > d[O2H_D_RQ_N])
        return (int8_t)o2h_clamp32(d[O2H_D_ZERO], d[O2H_D_LO], d[O2H_D_HI]);
    return (int8_t)o2h_q_requant64(v, rec_mult(q, cnt - 1), rec_shift(q, cnt - 1), d[O2H_D_ZERO], d[O2H_D_LO],
                                   d[O2H_D_HI]);
}

/* one lane: channel f, pixel (oh, ow), taps [r*PB, r*PB+PB) added to v */
static int32_t lane(const int32_t *d, const Geom *q, const int8_t *in, int r0, int oh, int ow, int f, int r, int32_t v)
{
    int ch = f / q->mult_ch;
    for (int j = 0; j < O2H_P_PB; j++) {
#pragma HLS UNROLL
        int t = r * O2H_P_PB + j, kh = t / q->kw, kw = t % q->kw;
        if (t >= q->kk)
            continue;
        int ok = tap_in(oh, kh, q->sh, q->dh, q->pt, q->h) && tap_in(ow, kw, q->sw, q->dw, q->pl, q->w);
        int ih = oh * q->sh - q->pt + kh * q->dh, iw = ow * q->sw - q->pl + kw * q->dw;
        int32_t x = ok ? in[((ih - r0) * q->w + iw) * q->c + ch] : d[O2H_D_XZERO];
        if (q->op == O2H_OP_DWCONV)
            v += rec[f * q->kk + t] * x;
        else if (ok)
            v = max_op(q->op) ? (x > v ? x : v) : v + x - d[O2H_D_XZERO];
    }
    return v;
}

static int64_t compute_band(const int32_t *d, const Geom *q, int band, int o0, int o1, int r0)
{
    const int8_t *in = ibuf[band & 1], *sk = sbuf[band & 1];
    int8_t *out = obuf[band & 1];
    int npix = (o1 - o0) * q->wo, nc = (q->f + O2H_P_PA - 1) / O2H_P_PA, nr = (q->kk + O2H_P_PB - 1) / O2H_P_PB;
    int32_t acc[O2H_P_PA][O2H_P_PP];
#pragma HLS ARRAY_PARTITION variable=acc complete dim=0
    int64_t cyc = 0;
    int pt = 0, ct = 0, r = 0;
    O2H_LOOP_ENTER(cyc, q->op == O2H_OP_DWCONV ? O2H_DEPTH_MAC(O2H_P_PB) : O2H_DEPTH_POOL(O2H_P_PB));
    for (int it = 0; it < (npix + O2H_P_PP - 1) / O2H_P_PP * nc * nr; it++) {
#pragma HLS PIPELINE II=1
#pragma HLS LOOP_TRIPCOUNT max=O2H_P_MAX_IT
        O2H_LOOP_ITER(cyc);
        for (int a = 0; a < O2H_P_PA; a++) {
#pragma HLS UNROLL
            for (int pp = 0; pp < O2H_P_PP; pp++) {
#pragma HLS UNROLL
                int pix = pt * O2H_P_PP + pp, f = ct * O2H_P_PA + a, oh = o0 + pix / q->wo, ow = pix % q->wo;
                if (pix >= npix || f >= q->f)
                    continue;
                int32_t v = r > 0 ? acc[a][pp] : q->op == O2H_OP_DWCONV ? rec_bias(q, f)
                                                 : max_op(q->op) ? d[O2H_D_LO] : 0;
                v = lane(d, q, in, r0, oh, ow, f, r, v);
                acc[a][pp] = v;
                if (r == nr - 1)
                    out[pix * q->f + f] = q->op == O2H_OP_DWCONV
                        ? o2h_epilogue(d, v, rec_mult(q, f), rec_shift(q, f), d[O2H_D_ADD] ? sk[pix * q->f + f] : 0, lut_buf)
                        : pool_out(d, q, v, oh, ow);
            }
        }
        if (++r == nr) {
            r = 0;
            if (++ct == nc) {
                ct = 0;
                pt++;
            }
        }
    }
    return cyc;
}

/* global pools: accumulate a band's pixels into gacc */
static int64_t accumulate_band(const int32_t *d, const Geom *q, int band, int npix)
{
    const int8_t *in = ibuf[band & 1];
    int nc = (q->c + O2H_P_PA - 1) / O2H_P_PA;
    int64_t cyc = 0;
    int pt = 0, ct = 0;
    (void)d;
    O2H_LOOP_ENTER(cyc, O2H_DEPTH_POOL(O2H_P_PP));
    for (int it = 0; it < (npix + O2H_P_PP - 1) / O2H_P_PP * nc; it++) {
#pragma HLS PIPELINE II=1
#pragma HLS LOOP_TRIPCOUNT max=O2H_P_MAX_IT
        O2H_LOOP_ITER(cyc);
        for (int a = 0; a < O2H_P_PA; a++) {
#pragma HLS UNROLL
            for (int pp = 0; pp < O2H_P_PP; pp++) {
#pragma HLS UNROLL
                int pix = pt * O2H_P_PP + pp, ch = ct * O2H_P_PA + a;
                if (pix < npix && ch < q->c) {
                    int32_t x = in[pix * q->c + ch];
                    gacc[ch] = max_op(q->op) ? (x > gacc[ch] ? x : gacc[ch]) : gacc[ch] + x;
                }
            }
        }
        if (++ct == nc) {
            ct = 0;
            pt++;
        }
    }
    return cyc;
}

static int64_t global_out(const int32_t *d, const Geom *q)
{
    int nc = (q->c + O2H_P_PA - 1) / O2H_P_PA;
    int64_t cyc = 0, hw = (int64_t)q->h * q->w;
    O2H_LOOP_ENTER(cyc, O2H_DEPTH_ELT);
    for (int ct = 0; ct < nc; ct++) {
#pragma HLS PIPELINE II=1
#pragma HLS LOOP_TRIPCOUNT max=O2H_P_MAX_C/O2H_P_PA
        O2H_LOOP_ITER(cyc);
        for (int a = 0; a < O2H_P_PA; a++) {
#pragma HLS UNROLL
            int ch = ct * O2H_P_PA + a;
            if (ch < q->c)
                obuf[0][ch] = max_op(q->op) ? (int8_t)gacc[ch]
                    : (int8_t)o2h_q_requant((int64_t)gacc[ch] - hw * d[O2H_D_XZERO], rec_mult(q, 0), rec_shift(q, 0),
                                            d[O2H_D_ZERO], d[O2H_D_LO], d[O2H_D_HI]);
        }
    }
    return cyc;
}

static void band_rows(const Geom *q, int b, int *o0, int *o1, int *r0, int *r1)
{
    int last = global_op(q->op) ? q->h : q->ho;
    *o0 = b * q->rows;
    *o1 = *o0 + q->rows < last ? *o0 + q->rows : last;
    if (global_op(q->op)) {
        *r0 = *o0, *r1 = *o1;
        return;
    }
    int a = *o0 * q->sh - q->pt, e = (*o1 - 1) * q->sh - q->pt + (q->kh - 1) * q->dh + 1;
    *r0 = a < 0 ? 0 : a;
    *r1 = e > q->h ? q->h : e;
}

static int64_t load_band(const int32_t *d, const Geom *q, const int8_t *fm, int b)
{
    int o0, o1, r0, r1;
    band_rows(q, b, &o0, &o1, &r0, &r1);
    int64_t cyc = o2h_burst(ibuf[b & 1], fm + d[O2H_D_IN_OFF] + (int64_t)r0 * q->w * q->c, (r1 - r0) * q->w * q->c);
    if (d[O2H_D_ADD])
        cyc += o2h_burst(sbuf[b & 1], fm + d[O2H_D_IN2_OFF] + (int64_t)o0 * q->wo * q->f, (o1 - o0) * q->wo * q->f);
    return cyc;
}

static int64_t store_band(const int32_t *d, const Geom *q, int8_t *fm, int b)
{
    int o0, o1, r0, r1;
    band_rows(q, b, &o0, &o1, &r0, &r1);
    if (global_op(q->op))
        return o2h_burst(fm + d[O2H_D_OUT_OFF], obuf[0], q->c);
    return o2h_burst(fm + d[O2H_D_OUT_OFF] + (int64_t)o0 * q->wo * q->f, obuf[b & 1], (o1 - o0) * q->wo * q->f);
}

static int64_t layer_record(const int32_t *d, const Geom *q, const int8_t *wimg)
{
    int n = q->op == O2H_OP_DWCONV ? q->f * q->kk + 9 * q->f
          : q->op == O2H_OP_AVGPOOL || q->op == O2H_OP_GAVGPOOL ? 5 * d[O2H_D_RQ_N] : 0;
    return n > 0 ? o2h_burst(rec, wimg + d[O2H_D_W_OFF], n) : 0;
}

void dw_layer(const int32_t d[O2H_DESC_WORDS], const int8_t *wimg, const int8_t *fm_r, int8_t *fm_w)
{
    Geom q = geom(d);
    int global = global_op(q.op);
    for (int i = 0; global && i < q.c; i++) {
#pragma HLS LOOP_TRIPCOUNT max=O2H_P_MAX_C
        gacc[i] = max_op(q.op) ? -128 : 0;
    }
    int64_t cyc = layer_record(d, &q, wimg);
    if (q.op == O2H_OP_DWCONV && d[O2H_D_LUT])
        cyc += o2h_burst(lut_buf, wimg + d[O2H_D_LUT_OFF], 256);
    cyc += load_band(d, &q, fm_r, 0);
    for (int b = 0; b < q.nbands; b++) {
#pragma HLS LOOP_TRIPCOUNT max=O2H_P_MAX_BANDS
        int o0, o1, r0, r1;
        band_rows(&q, b, &o0, &o1, &r0, &r1);
        int64_t next = b + 1 < q.nbands ? load_band(d, &q, fm_r, b + 1) : 0;
        int64_t comp = global ? accumulate_band(d, &q, b, (r1 - r0) * q.w) : compute_band(d, &q, b, o0, o1, r0);
        int64_t prev = b > 0 && !global ? store_band(d, &q, fm_w, b - 1) : 0;
        cyc += o2h_max3(next, comp, prev);
    }
    if (global)
        cyc += global_out(d, &q);
    cyc += store_band(d, &q, fm_w, q.nbands - 1);
    dw_layer_cycles = cyc;
}
