/* seml_eltwise.c - SEML element-wise engine: Add/Sub and Mul of two maps
 * (or of a map and a per-channel vector: squeeze-excite), a table, a
 * rescale, and channel copies (the parts of a Concat, a Split's parts, a
 * channel Slice, the channel shuffle), one layer per descriptor.
 *
 * Why reorderings are copies here: a Concat along channels is one
 * descriptor per input, each writing its channels [COFF, COFF + C) of every
 * output pixel (OUT_PSTRIDE = the output's channels), rescaled to the
 * output scale when its scale differs; a Split part or a Slice reads the C
 * channels from IN_COFF of each input pixel (IN_PSTRIDE = the input's
 * channels) and keeps F of them, every CSTEP-th; a shuffle of G groups
 * reads whole pixels and writes output channel j*G + i from input channel
 * i*F/G + j. Each is one pass over the map, so reorderings of channels
 * never leave the accelerator. Bands of rows go through double-buffered
 * band buffers; a strided operand (a slice of a wider map) moves as one
 * beat run per pixel, its port latency paid once per band. The compute
 * loop runs over (pixel tile, output channel tile), PA channels x PP pixels
 * per cycle, with the rules of runtime/o2h_int_contract.h.
 */
#include <stdint.h>

/* ---- parameters (values set per instance by the specializer) ---- */
#define O2H_P_PA 16         /* unroll: channels */
#define O2H_P_PP 1          /* unroll: pixels */
#define O2H_P_MAX_C 1024    /* most channels of a layer served */
#define O2H_P_BUF 16384     /* bytes of each half of each band buffer */
#define O2H_P_BEAT 16       /* bytes per AXI beat */
#define O2H_P_MAX_BANDS 8   /* most bands of a layer served */
#define O2H_P_MAX_IT 4096   /* most iterations of one compute loop over the layers served */
/* ---- end of parameters ---- */

#define O2H_BURST_MAX (O2H_P_BUF / O2H_P_BEAT)

#define O2H_SEML_BEAT O2H_P_BEAT
#include "o2h_seml.h"

/* cycles counted in C simulation, per layer */
int64_t eltwise_layer_cycles;

static int8_t abuf[2][O2H_P_BUF];
static int8_t bbuf[2][O2H_P_BUF];
static int8_t obuf[2][O2H_P_BUF];
static int8_t vec[O2H_P_MAX_C];
static int8_t lut_buf[256];

typedef struct {
    int op, h, w, c, f, cb, rows, nbands, binary, bvec, step, groups;
} Geom;

static Geom geom(const int32_t *d)
{
    Geom q;
    q.op = d[O2H_D_OP], q.h = d[O2H_D_H], q.w = d[O2H_D_W], q.c = d[O2H_D_C], q.cb = d[O2H_D_IN2_C];
    q.f = q.op == O2H_OP_COPY ? d[O2H_D_F] : q.c;
    q.rows = d[O2H_D_BAND_ROWS], q.nbands = d[O2H_D_NBANDS];
    q.binary = q.op == O2H_OP_ADD || q.op == O2H_OP_MUL, q.bvec = q.binary && d[O2H_D_BVEC];
    q.step = q.op == O2H_OP_COPY && d[O2H_D_CSTEP] > 1 ? d[O2H_D_CSTEP] : 1;
    q.groups = q.op == O2H_OP_COPY && d[O2H_D_CGROUPS] > 1 ? d[O2H_D_CGROUPS] : 1;
    return q;
}

/* the input channel (of the C loaded per pixel) output channel ch reads */
static int source(const Geom *q, int ch)
{
    return (ch % q->groups * (q->f / q->groups) + ch / q->groups) * q->step;
}

/* n pixels of c channels between a dense buffer and a map with pixel
 * stride ps: one beat run per pixel (a single burst when dense) */
static int64_t move(int8_t *dst, int dps, const int8_t *src, int sps, int n, int c)
{
    int nb = (c + O2H_P_BEAT - 1) / O2H_P_BEAT, p = 0, b = 0;
    if (dps == c && sps == c) {       /* dense: one run of n*c bytes */
        nb = (n * c + O2H_P_BEAT - 1) / O2H_P_BEAT;
        c = n * c, dps = sps = c, n = 1;
    }
    int64_t cyc = 0;
    O2H_LOOP_ENTER(cyc, O2H_DEPTH_BURST);
    for (int it = 0; it < n * nb; it++) {
#pragma HLS PIPELINE II=1
#pragma HLS LOOP_TRIPCOUNT max=O2H_BURST_MAX
        O2H_LOOP_ITER(cyc);
        for (int k = 0; k < O2H_P_BEAT; k++) {
            int i = b * O2H_P_BEAT + k;
            if (i < c)
                dst[(int64_t)p * dps + i] = src[(int64_t)p * sps + i];
        }
        if (++b == nb) {
            b = 0;
            p++;
        }
    }
    return cyc;
}

static int32_t rule(const int32_t *d, const Geom *q, int32_t a, int32_t b)
{
    if (q->op == O2H_OP_ADD)
        return o2h_q_add(a, d[O2H_D_ZA], d[O2H_D_MA], b, d[O2H_D_ZB], d[O2H_D_MB], d[O2H_D_SH_A], d[O2H_D_ZERO],
                         d[O2H_D_LO], d[O2H_D_HI]);
    if (q->op == O2H_OP_MUL)
        return o2h_q_mul8(a, d[O2H_D_ZA], b, d[O2H_D_ZB], d[O2H_D_MA], d[O2H_D_SH_A], d[O2H_D_ZERO], d[O2H_D_LO],
                          d[O2H_D_HI]);
    if (q->op == O2H_OP_LUT)
        return o2h_q_lut(a, lut_buf);
    if (q->op == O2H_OP_COPY && d[O2H_D_COPYA])
        return a;
    return o2h_q_rescale(a, d[O2H_D_ZA], d[O2H_D_MA], d[O2H_D_SH_A], d[O2H_D_ZERO], d[O2H_D_LO], d[O2H_D_HI]);
}

static int64_t compute_band(const int32_t *d, const Geom *q, int band, int npix)
{
    const int8_t *a = abuf[band & 1], *b = bbuf[band & 1];
    int8_t *out = obuf[band & 1];
    int nc = (q->f + O2H_P_PA - 1) / O2H_P_PA, pt = 0, ct = 0;
    int64_t cyc = 0;
    O2H_LOOP_ENTER(cyc, O2H_DEPTH_ELT);
    for (int it = 0; it < (npix + O2H_P_PP - 1) / O2H_P_PP * nc; it++) {
#pragma HLS PIPELINE II=1
#pragma HLS LOOP_TRIPCOUNT max=O2H_P_MAX_IT
        O2H_LOOP_ITER(cyc);
        for (int k = 0; k < O2H_P_PA; k++) {
#pragma HLS UNROLL
            for (int pp = 0; pp < O2H_P_PP; pp++) {
#pragma HLS UNROLL
                int pix = pt * O2H_P_PP + pp, ch = ct * O2H_P_PA + k;
                if (pix < npix && ch < q->f) {
                    int32_t bv = !q->binary ? 0 : q->bvec ? vec[ch] : b[pix * q->c + ch];
                    out[pix * q->f + ch] = (int8_t)rule(d, q, a[pix * q->c + source(q, ch)], bv);
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

static int band_pixels(const Geom *q, int b, int *p0)
{
    int r0 = b * q->rows, r1 = r0 + q->rows < q->h ? r0 + q->rows : q->h;
    *p0 = r0 * q->w;
    return (r1 - r0) * q->w;
}

static int64_t load_band(const int32_t *d, const Geom *q, const int8_t *fm, int b)
{
    int p0, n = band_pixels(q, b, &p0);
    int64_t cyc = move(abuf[b & 1], q->c, fm + d[O2H_D_IN_OFF] + (int64_t)p0 * d[O2H_D_IN_PSTRIDE] + d[O2H_D_IN_COFF],
                       d[O2H_D_IN_PSTRIDE], n, q->c);
    if (q->binary && !q->bvec)
        cyc += move(bbuf[b & 1], q->c,
                    fm + d[O2H_D_IN2_OFF] + (int64_t)p0 * d[O2H_D_IN2_PSTRIDE] + d[O2H_D_IN2_COFF],
                    d[O2H_D_IN2_PSTRIDE], n, q->c);
    return cyc;
}

static int64_t store_band(const int32_t *d, const Geom *q, int8_t *fm, int b)
{
    int p0, n = band_pixels(q, b, &p0);
    return move(fm + d[O2H_D_OUT_OFF] + (int64_t)p0 * d[O2H_D_OUT_PSTRIDE] + d[O2H_D_OUT_COFF],
                d[O2H_D_OUT_PSTRIDE], obuf[b & 1], q->f, n, q->f);
}

void eltwise_layer(const int32_t d[O2H_DESC_WORDS], const int8_t *wimg, const int8_t *fm_r, int8_t *fm_w)
{
    Geom q = geom(d);
    int64_t cyc = 0;
    if (q.op == O2H_OP_LUT)
        cyc += move(lut_buf, 256, wimg + d[O2H_D_LUT_OFF], 256, 1, 256);
    if (q.bvec)
        cyc += move(vec, q.c, fm_r + d[O2H_D_IN2_OFF] + d[O2H_D_IN2_COFF], q.c, 1, q.c);
    cyc += load_band(d, &q, fm_r, 0);
    for (int b = 0; b < q.nbands; b++) {
#pragma HLS LOOP_TRIPCOUNT max=O2H_P_MAX_BANDS
        int p0, n = band_pixels(&q, b, &p0);
        int64_t next = b + 1 < q.nbands ? load_band(d, &q, fm_r, b + 1) : 0;
        int64_t comp = compute_band(d, &q, b, n);
        int64_t prev = b > 0 ? store_band(d, &q, fm_w, b - 1) : 0;
        cyc += o2h_max3(next, comp, prev);
    }
    cyc += store_band(d, &q, fm_w, q.nbands - 1);
    eltwise_layer_cycles = cyc;
}
