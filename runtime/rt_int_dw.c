/* rt_int_dw.c - int8 depthwise convolution (groups = channels = filters).
 *
 * Why not the panel product: a depthwise filter reduces over its own KHxKW
 * taps only, so the products have to be laid out differently to use the
 * same dot-product instructions. Each input plane is copied once into a
 * padded plane split by column phase (stride), as the float kernel does.
 * Then, for a band of output rows, the G kernel rows that one instruction
 * sums (4 with VNNI / sdot, 2 with vpmaddwd, 1 with smlal) are interleaved
 * into rows of G-element groups, so that tap column kw of every output of
 * the band is one contiguous vector at a fixed offset of a flat buffer:
 *     acc[i] = bias + sum over groups g, columns kw of dot(Q[g][i + off(kw)], w[g][kw])
 * (i = oh * wf + ow over the band, wf = WO + the widest column offset; the
 * wf - WO extra columns per row are computed and dropped). A 3x3 filter is
 * 3 dot products per vector of outputs with VNNI. Outputs are requantized
 * in registers and the rows compacted into y.
 *
 * Weights are packed per channel as [groups][KW][G] (rows past KH zero)
 * with the bias after them (VNNI: corrected by -128 * sum(w), see
 * rt_int_gemm.c). Plain C builds run a direct loop instead. */
#include "rt_int_requant.h"

/* accumulators per step and flat outputs per band (aimed at L1) */
#define O2H_DW_NV 4
#define O2H_DW_BAND 1024

typedef struct {
    int hp, wq;      /* padded plane: rows, columns per phase */
    int ng;          /* groups of G kernel rows */
    int offmax;      /* widest tap column offset within a phase */
    int wf;          /* flat row width: WO + offmax */
    int band;        /* output rows per band */
} O2hDwGeo;

static O2hDwGeo o2h_dw_geo(const O2hConv2d *p, int g)
{
    O2hDwGeo d;
    d.hp = p->H + p->PT + p->PB;
    d.wq = (p->W + p->PL + p->PR + p->SW - 1) / p->SW;
    d.ng = (p->KH + g - 1) / g;
    d.offmax = (p->KW - 1) * p->DW / p->SW;
    d.wf = p->WO + d.offmax;
    d.band = O2H_DW_BAND / d.wf;
    d.band = d.band < 1 ? 1 : d.band > p->HO ? p->HO : d.band;
    return d;
}

/* elements after a band's flat rows that vector steps may read or write */
static size_t o2h_dw_slack(const O2hDwGeo *d)
{
    return (size_t)O2H_DW_NV * 16 + (size_t)d->offmax + 16;
}

/* bytes of one interleaved band buffer (one group, one phase) for
 * elements of eb bytes */
static size_t o2h_dw_qbytes(const O2hDwGeo *d, size_t eb)
{
    return (((size_t)d->band * d->wf + o2h_dw_slack(d)) * eb + 63) & ~(size_t)63;
}

static size_t o2h_dw_plane_bytes(const O2hConv2d *p, const O2hDwGeo *d)
{
    return ((size_t)p->SW * d->hp * d->wq + 64 + 63) & ~(size_t)63;
}

#if O2H_I8 == O2H_I8_VNNI512 && defined(__AVX512VBMI__)
#define O2H_DW_VBMI 1
#define O2H_DW_TABLE_VECS 64   /* most vectors in one period of the flat output order */
#define O2H_DW_TAPS 128        /* (kernel row, quad of taps) pairs: KH*ceil(KW/4) <= 64 taps */
#endif

#if defined(O2H_DW_VBMI)
static int o2h_dw_span_ok(const O2hConv2d *p, int span)
{
    return span + (p->KW < 4 ? p->KW - 1 : 3) * p->DW <= 63;
}

/* input offset (padded plane, tap 0) of flat output i */
static int o2h_dw_off(const O2hConv2d *p, int wp, int i)
{
    return i / p->WO * p->SH * wp + i % p->WO * p->SW;
}

/* Vectors per period of the flat output order: 16 * T outputs are R whole
 * rows, so vector k = q * T + t starts q * R rows below vector t. */
static int o2h_dw_period(const O2hConv2d *p, int *rows)
{
    int g = 16;
    while (p->WO % g)
        g /= 2;
    *rows = 16 / g;
    return p->WO / g;
}

static int o2h_dw_vbmi_mode(const O2hConv2d *p)
{
    int wp = p->W + p->PL + p->PR, R, T = o2h_dw_period(p, &R), ok = T <= O2H_DW_TABLE_VECS;
    for (int t = 0; t < T && ok; t++)
        ok = o2h_dw_span_ok(p, o2h_dw_off(p, wp, 16 * t + 15) - o2h_dw_off(p, wp, 16 * t));
    if (ok)
        return 1;
    return o2h_dw_span_ok(p, 15 * p->SW) ? 2 : 0;
}

#else
static int o2h_dw_vbmi_mode(const O2hConv2d *p)
{
    (void)p;
    return 0;
}
#endif

/* weights per channel: [KH][ceil(KW/4)][4] (VBMI) or [groups][KW][G] */
static size_t o2h_dw_wchan(const O2hConv2d *p)
{
    if (o2h_dw_vbmi_mode(p))
        return (size_t)p->KH * ((p->KW + 3) / 4) * 4;
    return (size_t)o2h_dw_geo(p, O2H_I8_G).ng * p->KW * O2H_I8_G * O2H_I8_ES;
}

static size_t o2h_dw_wbytes(const O2hConv2d *p)
{
    return ((size_t)p->C * o2h_dw_wchan(p) + 63) & ~(size_t)63;
}

/* weight of element (a, b, i) of channel c's packed form: VBMI (kh, kw
 * quad, lane), else (group, kw, lane) */
static int o2h_dw_wval(const O2hConv2d *p, const int8_t *wc, int vbmi, int a, int b, int i)
{
    int kh = vbmi ? a : a * O2H_I8_G + i, kw = vbmi ? b * 4 + i : b;
    return kh < p->KH && kw < p->KW ? wc[kh * p->KW + kw] : 0;
}

size_t o2h_dw_s8_packed_bytes(const O2hConv2d *p)
{
    return o2h_dw_wbytes(p) + (size_t)p->C * 4;
}

/* The largest packed form over instruction sets: at most 2 (KH + 4)(KW + 4)
 * bytes of weights per channel. */
size_t o2h_dw_s8_packed_bytes_max(const O2hConv2d *p)
{
    return (((size_t)p->C * (p->KH + 4) * (p->KW + 4) * 2 + 63) & ~(size_t)63) + (size_t)p->C * 4;
}

void o2h_dw_s8_pack(const O2hConv2d *p, const int8_t *w, const int32_t *bias, void *packed)
{
    int vbmi = o2h_dw_vbmi_mode(p) != 0, g = vbmi ? 4 : O2H_I8_G, es = vbmi ? 1 : O2H_I8_ES;
    int na = vbmi ? p->KH : o2h_dw_geo(p, g).ng, nb = vbmi ? (p->KW + 3) / 4 : p->KW;
    unsigned char *out = packed;
    int32_t *b = (int32_t *)(void *)(out + o2h_dw_wbytes(p));
    for (int c = 0; c < p->C; c++) {
        const int8_t *wc = w + (int64_t)c * p->KH * p->KW;
        int64_t sum = 0;
        for (int a = 0; a < na; a++)
            for (int bb = 0; bb < nb; bb++)
                for (int i = 0; i < g; i++) {
                    int v = o2h_dw_wval(p, wc, vbmi, a, bb, i);
                    size_t at = (((size_t)c * na + a) * nb + bb) * g + i;
                    sum += v;
                    if (es == 1)
                        out[at] = (unsigned char)(int8_t)v;
                    else
                        memcpy(out + 2 * at, &(int16_t){(int16_t)v}, 2);
                }
        b[c] = (int32_t)((int64_t)bias[c] - (O2H_I8_FLIP ? 128 * sum : 0));
    }
}

/* Scratch: the padded plane, then the band buffers and the flat outputs
 * (bounded over instruction sets: groups * G * ES <= 2 KH + 4 bytes per
 * element), then the channel constants. */
size_t o2h_dw_s8_scratch(const O2hConv2d *p)
{
    O2hDwGeo d = o2h_dw_geo(p, 1);
    return o2h_dw_plane_bytes(p, &d) + (size_t)p->SW * (o2h_dw_qbytes(&d, 2 * (size_t)p->KH + 4) + (size_t)p->KH * 64) +
           o2h_dw_qbytes(&d, 4) + sizeof(O2hRqc) + 128 + 160 * 64 /* VBMI tables */ +
           (size_t)16 * p->SH * (p->W + p->PL + p->PR) /* VBMI slack */;
}

/* padded plane pad[SW][hp][wq]: phase r holds padded columns j*SW + r,
 * the pads hold the input zero point */
static void o2h_dw_fill(const O2hConv2d *p, const O2hDwGeo *d, const int8_t *x, int8_t zero, int8_t *pad)
{
    int SW = p->SW, W = p->W, PL = p->PL, wq = d->wq;
    memset(pad, zero, (size_t)SW * d->hp * wq);
    for (int r = 0; r < SW; r++) {
        /* columns j of phase r read input column j*SW + r - PL */
        int j0 = (PL - r + SW - 1) / SW, j1 = (W + PL - r + SW - 1) / SW;
        j0 = j0 < 0 ? 0 : j0;
        j1 = j1 > wq ? wq : j1;
        for (int h = 0; h < p->H && j1 > j0; h++)
            o2h_i8_strided_copy(pad + ((int64_t)r * d->hp + h + p->PT) * wq + j0, x + (int64_t)h * W + j0 * SW + r - PL,
                                j1 - j0, SW);
    }
}

#if O2H_I8 != O2H_I8_PLAIN

/* Band buffers Q[g][phase]: row b of the band holds, for each column j of
 * the phase, the G padded input values the G kernel rows of group g read
 * for output row oh0 + b (rows past KH repeat row 0: their weight is 0). */
static void o2h_dw_build(const O2hConv2d *p, const O2hDwGeo *d, const int8_t *pad, int oh0, int rows,
                         unsigned char *q, size_t qbytes)
{
    enum { G = O2H_I8_G, EB = O2H_I8_G * O2H_I8_ES };
    int n = d->wf < d->wq ? d->wf : d->wq;
    for (int g = 0; g < d->ng; g++)
        for (int ph = 0; ph < p->SW; ph++) {
            unsigned char *qg = q + (size_t)(g * p->SW + ph) * qbytes;
            for (int b = 0; b < rows; b++) {
                const int8_t *r[G];
                for (int i = 0; i < G; i++) {
                    int kh = g * G + i < p->KH ? g * G + i : 0;
                    r[i] = pad + ((int64_t)ph * d->hp + (int64_t)(oh0 + b) * p->SH + (int64_t)kh * p->DH) * d->wq;
                }
                unsigned char *dst = qg + (size_t)b * d->wf * EB;
                o2h_i8_interleave(r, n, dst);
                memset(dst + (size_t)n * EB, 0, (size_t)(d->wf - n) * EB);
            }
        }
}

/* fb[i .. i + NV*VL) for the flat outputs of a band, NV vectors at once */
O2H_I_INLINE void o2h_dw_step(int nv, const O2hConv2d *p, const O2hDwGeo *d, const unsigned char *q, size_t qbytes,
                              const unsigned char *w, int32_t bias, const O2hRqc *c, const O2hRqv *rv, size_t i,
                              int8_t *fb)
{
    enum { EB = O2H_I8_G * O2H_I8_ES };
    o2h_iacc acc[O2H_DW_NV];
    O2H_I_UNROLL for (int v = 0; v < nv; v++) acc[v] = O2H_ISET1(bias);
    for (int g = 0; g < d->ng; g++)
        for (int kw = 0; kw < p->KW; kw++) {
            int col = kw * p->DW;
            const unsigned char *src = q + (size_t)(g * p->SW + col % p->SW) * qbytes + (i + (size_t)(col / p->SW)) * EB;
            o2h_iw wv = O2H_IWLOAD(w + (size_t)(g * p->KW + kw) * EB);
            O2H_I_UNROLL for (int v = 0; v < nv; v++) acc[v] = O2H_IDOT(acc[v], O2H_IXLOAD(src + v * O2H_I8_STEP), wv);
        }
    if (o2h_rqv_ok(c)) {
        O2H_I_UNROLL for (int v = 0; v < nv; v++) o2h_rqv_store(acc[v], rv, fb + i + (size_t)v * O2H_I8_VL);
    } else {
        int32_t t[O2H_DW_NV * O2H_I8_VL];
        O2H_I_UNROLL for (int v = 0; v < nv; v++) O2H_ISTORE(t + v * O2H_I8_VL, acc[v]);
        o2h_rq_row(t, nv * O2H_I8_VL, c, fb + i);
    }
}

static void o2h_dw_band(const O2hConv2d *p, const O2hDwGeo *d, const unsigned char *q, size_t qbytes,
                        const unsigned char *w, int32_t bias, const O2hRqc *c, int rows, int8_t *fb)
{
    O2hRqv rv;
    o2h_rqv_init(c, &rv);
    size_t n = (size_t)rows * d->wf, i = 0;
    for (; i + O2H_DW_NV * O2H_I8_VL <= n; i += O2H_DW_NV * O2H_I8_VL)
        o2h_dw_step(O2H_DW_NV, p, d, q, qbytes, w, bias, c, &rv, i, fb);
    for (; i < n; i += O2H_I8_VL)
        o2h_dw_step(1, p, d, q, qbytes, w, bias, c, &rv, i, fb);
}

static void o2h_dw_plane(const O2hConv2d *p, const O2hDwGeo *d, const int8_t *pad, const unsigned char *w,
                         int32_t bias, const O2hRqc *c, unsigned char *q, size_t qbytes, int8_t *fb, int8_t *y)
{
    for (int oh0 = 0; oh0 < p->HO; oh0 += d->band) {
        int rows = p->HO - oh0 < d->band ? p->HO - oh0 : d->band;
        o2h_dw_build(p, d, pad, oh0, rows, q, qbytes);
        o2h_dw_band(p, d, q, qbytes, w, bias, c, rows, fb);
        for (int b = 0; b < rows; b++)
            memcpy(y + (int64_t)(oh0 + b) * p->WO, fb + (size_t)b * d->wf, (size_t)p->WO);
    }
}

static void o2h_dw_generic(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                           const void *packed, int8_t *y, void *scratch)
{
    enum { EB = O2H_I8_G * O2H_I8_ES };
    O2hDwGeo d = o2h_dw_geo(p, O2H_I8_G);
    size_t qbytes = o2h_dw_qbytes(&d, EB), wc = o2h_dw_wchan(p);
    int8_t *pad = o2h_i_align64(scratch);
    unsigned char *q = (unsigned char *)pad + o2h_dw_plane_bytes(p, &d);
    int8_t *fb = (int8_t *)(q + (size_t)d.ng * p->SW * qbytes);
    O2hRqc *c = o2h_i_align64(fb + o2h_dw_qbytes(&d, 1));
    const int32_t *bias = (const int32_t *)(const void *)((const char *)packed + o2h_dw_wbytes(p));
    int64_t hw = (int64_t)p->H * p->W, hwo = (int64_t)p->HO * p->WO;
    memset(q, 0, (size_t)d.ng * p->SW * qbytes);
    for (int n = 0; n < p->N; n++)
        for (int ch = 0; ch < p->C; ch++) {
            int64_t plane = (int64_t)n * p->C + ch;
            o2h_rqc_init(rq, ch, c);
            o2h_dw_fill(p, &d, x + plane * hw, (int8_t)x_zero, pad);
            o2h_dw_plane(p, &d, pad, (const unsigned char *)packed + ch * wc, bias[ch], c, q, qbytes, fb,
                         y + plane * hwo);
        }
}

#if defined(O2H_DW_VBMI)
/* AVX-512 VBMI + VNNI: no interleaved copies at all. One vpermb turns 64
 * bytes of a padded input row into 16 lanes of 4 consecutive taps (stride
 * and dilation are in the byte indices), so a 3x3 filter is 3 loads, 3
 * vpermb and 3 vpdpbusd per 16 outputs. The outputs of a vector either
 * follow the flat [HO][WO] order (small planes: a table gives each vector
 * its first input offset and byte indices) or one output row (vectors
 * restart at each row, the last one stored masked). */
typedef struct {
    int wp;          /* padded row length (plane row stride) */
    int mode;        /* 1 flat with tables, 2 per row */
    int nvec;        /* vectors of outputs (mode 1) or per row (mode 2) */
    int period, prow; /* mode 1: vectors per period, offset between periods */
} O2hDwV;

/* byte indices of 16 lanes x 4 taps: lane j at rel[j], taps DW apart */
static __m512i o2h_dw_idx(const O2hConv2d *p, const int *rel)
{
    uint8_t b[64];
    for (int j = 0; j < 16; j++)
        for (int t = 0; t < 4; t++)
            b[4 * j + t] = (uint8_t)((rel[j] + t * p->DW) & 63);
    return _mm512_loadu_si512(b);
}

/* Tables of mode 1: per vector of a period its first offset and indices;
 * mode 2: the indices of a full vector and of a row's last one. */
static void o2h_dw_tables(const O2hConv2d *p, const O2hDwV *v, int32_t *base, __m512i *idx)
{
    int rel[16];
    if (v->mode == 1) {
        for (int k = 0; k < v->period; k++) {
            base[k] = o2h_dw_off(p, v->wp, 16 * k);
            for (int j = 0; j < 16; j++)
                rel[j] = o2h_dw_off(p, v->wp, 16 * k + j) - base[k];
            idx[k] = o2h_dw_idx(p, rel);
        }
        return;
    }
    int tail = p->WO - (v->nvec - 1) * 16;
    for (int j = 0; j < 16; j++)
        rel[j] = j * p->SW;
    idx[0] = o2h_dw_idx(p, rel);
    for (int j = 0; j < 16; j++)
        rel[j] = (j < tail ? j : tail - 1) * p->SW;
    idx[1] = o2h_dw_idx(p, rel);
}

/* bytes after the padded plane that the lanes of a last, partial vector
 * may read: one period of rows (up to 16) and a vector */
static size_t o2h_dw_vslack(const O2hConv2d *p)
{
    return (size_t)16 * p->SH * (p->W + p->PL + p->PR) + 128;
}

/* padded plane [HP][wp] of x + 128 (pads: x_zero + 128), then slack.
 * Rows are copied top to bottom in whole vectors whose bytes past the row
 * are the pad value (merge-masked loads), so each store also writes the
 * right pad and the next row's left pad; memsets cover the rest. */
static void o2h_dw_fill_flip(const O2hConv2d *p, int wp, const int8_t *x, int8_t zero, int8_t *pad)
{
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    const int8_t zf = (int8_t)(zero ^ 0x80);
    const __m512i zv = _mm512_set1_epi8(zf);
    size_t n = (size_t)(p->H + p->PT + p->PB) * wp, top = (size_t)p->PT * wp + p->PL;
    memset(pad, zf, top);
    for (int h = 0; h < p->H; h++) {
        const int8_t *src = x + (int64_t)h * p->W;
        int8_t *dst = pad + top + (int64_t)h * wp;
        for (int j = 0; j < p->W; j += 64) {
            __mmask64 m = p->W - j >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (p->W - j)) - 1);
            __m512i v = _mm512_xor_si512(_mm512_mask_loadu_epi8(zv, m, src + j), flip);
            _mm512_storeu_si512(dst + j, p->W - j >= 64 ? v : _mm512_mask_mov_epi8(zv, m, v));
        }
        if (p->W % 64 == 0)   /* no partial vector wrote this row's right pad */
            memset(dst + p->W, zf, (size_t)(wp - p->W));
    }
    size_t done = top + (size_t)p->H * wp;
    memset(pad + done, zf, n + o2h_dw_vslack(p) - done);
}

/* acc of nv vectors of outputs: vector k reads the plane at base[k] +
 * toff[t] with indices idx[k], for the nt (kernel row, quad of taps) */
O2H_I_INLINE void o2h_dw_vsteps(int nv, int nt, const int8_t *pad, const int32_t *base, const __m512i *idx,
                                const int64_t *toff, const int32_t *w, int32_t bias, __m512i *acc)
{
    O2H_I_UNROLL for (int k = 0; k < nv; k++) acc[k] = _mm512_set1_epi32(bias);
    for (int t = 0; t < nt; t++) {
        __m512i wv = _mm512_set1_epi32(w[t]);
        const int8_t *src = pad + toff[t];
        O2H_I_UNROLL for (int k = 0; k < nv; k++)
        {
            __m512i xv = _mm512_permutexvar_epi8(idx[k], _mm512_loadu_si512(src + base[k]));
            acc[k] = o2h_dpbusd512(acc[k], xv, wv);
        }
    }
}

O2H_I_INLINE void o2h_dw_vstore(__m512i acc, const O2hRqc *c, const O2hRqv *rv, int n, int8_t *y)
{
    __mmask16 m = n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1);
    if (o2h_rqv_ok(c)) {
        _mm_mask_storeu_epi8(y, m, o2h_rqv(acc, rv));
        return;
    }
    int32_t t[16];
    int8_t b[16];
    _mm512_storeu_si512(t, acc);
    o2h_rq_row(t, 16, c, b);
    memcpy(y, b, (size_t)(n < 16 ? n : 16));
}

/* nk (1..4) vectors of outputs */
static void o2h_dw_vgroup(int nk, int nt, const int8_t *pad, const int32_t *base, const __m512i *idx,
                          const int64_t *toff, const int32_t *w, int32_t bias, const O2hRqc *c, const O2hRqv *rv,
                          const int *cnt, int8_t *const *y)
{
    __m512i acc[4];
    switch (nk) {
    case 4: o2h_dw_vsteps(4, nt, pad, base, idx, toff, w, bias, acc); break;
    case 3: o2h_dw_vsteps(3, nt, pad, base, idx, toff, w, bias, acc); break;
    case 2: o2h_dw_vsteps(2, nt, pad, base, idx, toff, w, bias, acc); break;
    default: o2h_dw_vsteps(1, nt, pad, base, idx, toff, w, bias, acc); break;
    }
    for (int u = 0; u < nk; u++)
        o2h_dw_vstore(acc[u], c, rv, cnt[u], y[u]);
}

/* One channel: flat vectors four at a time (mode 1) or each row's vectors */
static void o2h_dw_vplane(const O2hConv2d *p, const O2hDwV *v, const int8_t *pad, const int32_t *base,
                          const __m512i *idx, const int64_t *toff, const int32_t *w, int32_t bias, const O2hRqc *c,
                          int8_t *y)
{
    O2hRqv rv;
    int nt = p->KH * ((p->KW + 3) / 4), cnt[4];
    int8_t *yk[4];
    o2h_rqv_init(c, &rv);
    if (v->mode == 1) {
        int P = p->HO * p->WO, t = 0, q0 = 0;   /* vector k = period index * T + t */
        for (int k = 0; k < v->nvec; k += 4) {
            int nk = v->nvec - k < 4 ? v->nvec - k : 4;
            int32_t b4[4];
            __m512i i4[4];
            for (int u = 0; u < nk; u++) {
                b4[u] = q0 + base[t];
                i4[u] = idx[t];
                cnt[u] = P - 16 * (k + u), yk[u] = y + 16 * (k + u);
                if (++t == v->period)
                    t = 0, q0 += v->prow;
            }
            o2h_dw_vgroup(nk, nt, pad, b4, i4, toff, w, bias, c, &rv, cnt, yk);
        }
        return;
    }
    for (int oh = 0; oh < p->HO; oh++)
        for (int k = 0; k < v->nvec; k += 4) {
            int nk = v->nvec - k < 4 ? v->nvec - k : 4;
            int32_t b4[4];
            __m512i i4[4];
            for (int u = 0; u < nk; u++) {
                b4[u] = oh * p->SH * v->wp + (k + u) * 16 * p->SW;
                i4[u] = idx[k + u == v->nvec - 1];
                cnt[u] = p->WO - (k + u) * 16;
                yk[u] = y + (int64_t)oh * p->WO + (k + u) * 16;
            }
            o2h_dw_vgroup(nk, nt, pad, b4, i4, toff, w, bias, c, &rv, cnt, yk);
        }
}

static void o2h_dw_vbmi(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                        const void *packed, int8_t *y, void *scratch)
{
    O2hDwV v = {p->W + p->PL + p->PR, o2h_dw_vbmi_mode(p), 0, 0, 0};
    int rows;
    v.period = o2h_dw_period(p, &rows);
    v.prow = rows * p->SH * v.wp;
    v.nvec = v.mode == 1 ? (p->HO * p->WO + 15) / 16 : (p->WO + 15) / 16;
    __m512i *idx = o2h_i_align64(scratch);
    int32_t *base = (int32_t *)(idx + O2H_DW_TABLE_VECS);
    O2hRqc *c = o2h_i_align64(base + O2H_DW_TABLE_VECS);
    int8_t *pad = o2h_i_align64(c + 1);
    const int32_t *w = packed;
    const int32_t *bias = (const int32_t *)(const void *)((const char *)packed + o2h_dw_wbytes(p));
    size_t wc = o2h_dw_wchan(p) / 4;
    int64_t hw = (int64_t)p->H * p->W, hwo = (int64_t)p->HO * p->WO;
    int64_t toff[O2H_DW_TAPS];
    for (int kh = 0, t = 0; kh < p->KH; kh++)
        for (int q = 0; q < (p->KW + 3) / 4; q++)
            toff[t++] = (int64_t)kh * p->DH * v.wp + 4 * q * p->DW;
    o2h_dw_tables(p, &v, base, idx);
    for (int n = 0; n < p->N; n++)
        for (int ch = 0; ch < p->C; ch++) {
            int64_t plane = (int64_t)n * p->C + ch;
            o2h_rqc_init(rq, ch, c);
            o2h_dw_fill_flip(p, v.wp, x + plane * hw, (int8_t)x_zero, pad);
            o2h_dw_vplane(p, &v, pad, base, idx, toff, w + ch * wc, bias[ch], c, y + plane * hwo);
        }
}
#endif

void o2h_dw_s8_run(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x, const void *packed,
                   int8_t *y, void *scratch)
{
#if defined(O2H_DW_VBMI)
    if (o2h_dw_vbmi_mode(p)) {
        o2h_dw_vbmi(p, x_zero, rq, x, packed, y, scratch);
        return;
    }
#endif
    o2h_dw_generic(p, x_zero, rq, x, packed, y, scratch);
}

#else /* plain C: each output from its taps in the padded plane */

void o2h_dw_s8_run(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x, const void *packed,
                   int8_t *y, void *scratch)
{
    O2hDwGeo d = o2h_dw_geo(p, 1);
    int8_t *pad = o2h_i_align64(scratch);
    const int8_t *w = packed;   /* G = 1: [C][KH][KW] */
    const int32_t *bias = (const int32_t *)(const void *)((const char *)packed + o2h_dw_wbytes(p));
    int64_t hw = (int64_t)p->H * p->W, hwo = (int64_t)p->HO * p->WO;
    for (int n = 0; n < p->N; n++)
        for (int ch = 0; ch < p->C; ch++) {
            int64_t plane = (int64_t)n * p->C + ch;
            const int8_t *wc = w + (int64_t)ch * p->KH * p->KW;
            O2hRqc c;
            o2h_rqc_init(rq, ch, &c);
            o2h_dw_fill(p, &d, x + plane * hw, (int8_t)x_zero, pad);
            for (int oh = 0; oh < p->HO; oh++)
                for (int ow = 0; ow < p->WO; ow++) {
                    int32_t acc = bias[ch];
                    for (int kh = 0; kh < p->KH; kh++)
                        for (int kw = 0; kw < p->KW; kw++) {
                            int col = ow * p->SW + kw * p->DW;
                            acc += wc[kh * p->KW + kw] *
                                   pad[((int64_t)(col % p->SW) * d.hp + oh * p->SH + kh * p->DH) * d.wq + col / p->SW];
                        }
                    y[plane * hwo + (int64_t)oh * p->WO + ow] = o2h_rq_one(acc, &c);
                }
        }
}
#endif
