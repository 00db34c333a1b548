/* rt_int_wino.c - int8 3x3 stride-1 pad-1 convs by exact integer Winograd
 * F(2x2, 3x3), for the kernel kinds that multiply int16 pairs (vpmaddwd:
 * AVX2 and AVX-512 without VNNI).
 *
 * Why: there a 3x3 conv as im2col + panel product does 9 multiply-adds per
 * output and input channel; Winograd does 4 per 2x2 outputs (2.25x fewer),
 * and in integers it is exact, so the contract's result (bias + sum w*x,
 * then one requantization, docs/numerics.md) does not change by one bit:
 *  - V = B^T d B of a 4x4 input patch d (pads read x_zero, as im2col) only
 *    adds and subtracts: |V| <= 4 * 128 = 512, an int16;
 *  - U = (2G) g (2G)^T = 4 G g G^T of a 3x3 filter is an integer, |U| <=
 *    9 * 128 = 1152, an int16 (computed once at pack time);
 *  - M = sum over channels of U * V, pairs of channels per vpmaddwd into
 *    int32 lanes (a pair is below 2^21, no saturation);
 *  - A^T M A = 4 * (the conv sum) exactly in the integers. Partial sums may
 *    wrap modulo 2^32 (vector adds wrap by definition, the scalar tail works
 *    in uint32), the final value cannot while |4 * sum| <= 4 * 9 * C * 128 *
 *    128 < 2^31, i.e. C <= O2H_I8W_MAX_C; then /4 is exact and the bias and
 *    the requantization are the direct path's (o2h_rq_row).
 * Two forms of the product, by plane size:
 *  - planes of 400 pixels and more put tiles in the vector lanes: work
 *    goes in blocks of whole tile rows, so that the transformed inputs of
 *    a block (16 x C x tiles int16) stay in L2: transform the block's
 *    inputs, then per MR output channels 16 products U[e] x V[e] (one per
 *    position e of the 4x4 transform, accumulators in registers over all
 *    channels) into a small M, and the output transform with
 *    requantization of those rows;
 *  - smaller planes (14x14 and 7x7: 49 and 16 tiles, too few to fill a
 *    tile of pixel vectors) put filters in the lanes: U[e] is packed per
 *    block of SFB filters as [C/2][SFB][2] int16, so that one vector holds
 *    8 filters of one channel pair, and each tile's V pair (int32) is
 *    broadcast; a register tile is STN tiles x SFV filter vectors. The
 *    whole plane's V (16 x C x tiles int16, 400 KB for 256 channels of
 *    14x14) is one block in L2; per filter block and position the panel
 *    (C x SFB int16, 16 KB for 512 channels) stays in L1 over all tiles,
 *    so U (8 MB for 512 x 512) is read once per run. The output transform
 *    works on vectors of filters into [2th][2tw][SFB] int32, and each
 *    filter's plane is gathered from there and requantized.
 * Measured at x86-64-v3 on one Zen 5 core (one conv repeated, C = F): 256 x
 * 14x14 1.44 -> 0.70 ms, 512 x 7x7 1.59 -> 0.80 ms against the direct path
 * (75-85 GMAC/s of products against a vpmaddwd peak near 96); inside the
 * model U comes from memory and 7x7 takes 1.16 ms. */
#include "rt_int_requant.h"

#if O2H_I8 == O2H_I8_MADD256 || O2H_I8 == O2H_I8_MADD512
#define O2H_I8W_ON 1
#else
#define O2H_I8W_ON 0
#endif

#define O2H_I8W_MAX_C 3640               /* 4 * 9 * C * 2^14 < 2^31 */
#ifndef O2H_I8W_VBUDGET
#define O2H_I8W_VBUDGET (256 * 1024)     /* bytes of transformed input per block */
#endif
/* Where it wins (ResNet-18 at x86-64-v3, model --profile): 56x56 and 28x28
 * planes took half and two thirds of the direct path's time with the
 * tile-lane form, and 0.93-0.96 of that since rows of any length are
 * transformed in vectors; 14x14 planes take 0.57 (1.69 -> 0.96 ms) and
 * 7x7 planes 0.53 (2.15 -> 1.16 ms) with the filter-lane form; 2x2 to 5x5
 * planes about half (one conv); a 1x1 plane would do 16 products for 9. */
#ifndef O2H_I8W_MIN_PIX
#define O2H_I8W_MIN_PIX 4
#endif
#define O2H_I8W_SMALL_PIX 400            /* planes below take the filter-lane form */
#ifndef O2H_I8W_MIN_C
#define O2H_I8W_MIN_C 16
#endif

int o2h_i8w_fits(const O2hConv2d *p)
{
    return p->G == 1 && p->KH == 3 && p->KW == 3 && p->SH == 1 && p->SW == 1 && p->DH == 1 && p->DW == 1 &&
           p->PT == 1 && p->PL == 1 && p->PB == 1 && p->PR == 1 && p->HO == p->H && p->WO == p->W &&
           p->C <= O2H_I8W_MAX_C && p->C >= O2H_I8W_MIN_C && p->F >= O2H_I8W_MIN_C &&
           p->H * p->W >= O2H_I8W_MIN_PIX;
}

int o2h_i8w_use(const O2hConv2d *p)
{
    return O2H_I8W_ON && o2h_i8w_fits(p);
}

/* ------------------------------------------------ geometry */

/* Small planes take the filter-lane form with SFB filters per block (SFV
 * vectors of 8) and STN tiles per register tile, whatever the build. */
enum { SFV = 2, SFB = 8 * SFV, STN = 4 };

static int o2h_i8w_small(const O2hConv2d *p) { return p->H * p->W < O2H_I8W_SMALL_PIX; }

/* Sizes for a kernel kind with VL pixels per vector and MR channels per
 * tile (this build's, or the largest, for the bounds); small planes take
 * SFB and STN instead, and the whole plane as one block. */
typedef struct {
    int tw, th;           /* tiles per row, tile rows */
    int cp, fp;           /* channels rounded to pairs, filters to MR */
    int rows;             /* tile rows per block */
    int mr;
    int ntp;              /* tiles per block rounded up to VL */
    size_t per_e;         /* bytes of one packed panel: MR filters, one position */
    size_t v_bytes, m_bytes, row_bytes, o_bytes;
} O2hI8wGeom;

static void o2h_i8w_geom(const O2hConv2d *p, int vl, int mr, O2hI8wGeom *g)
{
    int small = o2h_i8w_small(p);
    vl = small ? STN : vl;
    mr = small ? SFB : mr;
    g->tw = (p->W + 1) / 2;
    g->th = (p->H + 1) / 2;
    g->cp = (p->C + 1) / 2 * 2;
    g->fp = (p->F + mr - 1) / mr * mr;
    g->mr = mr;
    size_t per_row = (size_t)32 * g->cp * g->tw;
    g->rows = small ? g->th : (int)(O2H_I8W_VBUDGET / per_row);
    g->rows = g->rows < 1 ? 1 : g->rows > g->th ? g->th : g->rows;
    g->ntp = (g->rows * g->tw + vl - 1) / vl * vl;
    g->per_e = (size_t)mr * g->cp * 2;
    g->v_bytes = ((size_t)16 * g->cp * g->ntp * 2 + 63) & ~(size_t)63;
    g->m_bytes = ((size_t)16 * mr * g->ntp * 4 + 63) & ~(size_t)63;
    /* 4 input rows of even and odd pairs (tw + 1 each, one vector over),
     * then 2 output rows of int32 */
    g->row_bytes = (((size_t)8 * (g->tw + 9) * 4 + 63) & ~(size_t)63) + ((size_t)2 * (2 * g->tw + 8) * 4);
    /* small: int32 outputs [2th][2tw][SFB], then one plane of one filter */
    g->o_bytes = small ? (((size_t)16 * g->th * g->tw * SFB + 63) & ~(size_t)63) + (size_t)4 * p->H * p->W : 0;
}

static size_t o2h_i8w_packed_of(const O2hI8wGeom *g)
{
    return 16 * g->per_e * (g->fp / g->mr) + (size_t)g->fp * 4;
}

static size_t o2h_i8w_scratch_of(const O2hI8wGeom *g)
{
    return g->v_bytes + g->m_bytes + ((g->row_bytes + 63) & ~(size_t)63) + g->o_bytes + 4 * 64;
}

size_t o2h_i8w_packed_bytes_max(const O2hConv2d *p)
{
    O2hI8wGeom g;
    o2h_i8w_geom(p, 16, O2H_I8_MR_MAX, &g);
    return o2h_i8w_packed_of(&g);
}

size_t o2h_i8w_scratch_max(const O2hConv2d *p)
{
    O2hI8wGeom g;
    o2h_i8w_geom(p, 16, O2H_I8_MR_MAX, &g);
    return o2h_i8w_scratch_of(&g);
}

#if O2H_I8W_ON

enum { WMR = O2H_I8_MR, WVL = O2H_I8_VL, WNV = O2H_I8_NV };   /* tile shape */

size_t o2h_i8w_packed_bytes(const O2hConv2d *p)
{
    O2hI8wGeom g;
    o2h_i8w_geom(p, WVL, WMR, &g);
    return o2h_i8w_packed_of(&g);
}

size_t o2h_i8w_scratch(const O2hConv2d *p)
{
    O2hI8wGeom g;
    o2h_i8w_geom(p, WVL, WMR, &g);
    return o2h_i8w_scratch_of(&g);
}

/* ------------------------------------------------ weights */

/* u = (2G) g (2G)^T of one 3x3 filter g[kh][kw], u[a * 4 + b] */
static void o2h_i8w_filter(const int8_t *g, int32_t u[16])
{
    int32_t t[4][3];
    for (int j = 0; j < 3; j++) {
        int32_t g0 = g[j], g1 = g[3 + j], g2 = g[6 + j];
        t[0][j] = 2 * g0;
        t[1][j] = g0 + g1 + g2;
        t[2][j] = g0 - g1 + g2;
        t[3][j] = 2 * g2;
    }
    for (int a = 0; a < 4; a++) {
        u[a * 4 + 0] = 2 * t[a][0];
        u[a * 4 + 1] = t[a][0] + t[a][1] + t[a][2];
        u[a * 4 + 2] = t[a][0] - t[a][1] + t[a][2];
        u[a * 4 + 3] = 2 * t[a][2];
    }
}

/* Packed: per MR (small planes: SFB) filters, per position e, a panel of
 * [C/2][MR][2] int16 (zero beyond C and F; the 16 panels of a product run
 * are one stream),
 * then the int32 biases of fp rows. */
void o2h_i8w_pack(const O2hConv2d *p, const int8_t *w, const int32_t *bias, void *packed)
{
    O2hI8wGeom g;
    o2h_i8w_geom(p, WVL, WMR, &g);
    unsigned char *out = packed;
    size_t wb = 16 * g.per_e * (g.fp / g.mr);
    memset(out, 0, wb);
    for (int f = 0; f < p->F; f++)
        for (int c = 0; c < p->C; c++) {
            int32_t u[16];
            o2h_i8w_filter(w + ((size_t)f * p->C + c) * 9, u);
            size_t at = ((size_t)(c / 2) * g.mr + f % g.mr) * 2 + c % 2;
            for (int e = 0; e < 16; e++)
                memcpy(out + ((size_t)(f / g.mr) * 16 + e) * g.per_e + at * 2, &(int16_t){(int16_t)u[e]}, 2);
        }
    int32_t *b = (int32_t *)(void *)(out + wb);
    for (int f = 0; f < g.fp; f++)
        b[f] = f < p->F ? bias[f] : 0;
}

/* ------------------------------------------------ input transform */

/* Row iy of channels c (xr) and c + 1 (xs) as int16 pairs split by the
 * parity of the padded column: ev[k] = column 2k - 1, od[k] = column 2k,
 * k <= tw; columns (and rows) outside the plane read z. */
static void o2h_i8w_row(const int8_t *xr, const int8_t *xs, int iy, int H, int W, int tw, int8_t z, int16_t *ev,
                       int16_t *od)
{
    int k = 0;
    if (iy < 0 || iy >= H) {
        for (; k <= tw; k++)
            ev[2 * k] = ev[2 * k + 1] = od[2 * k] = od[2 * k + 1] = z;
        return;
    }
    xr += (int64_t)iy * W;
    xs += (int64_t)iy * W;
    ev[0] = ev[1] = z;   /* column -1 is a pad */
    od[0] = xr[0];
    od[1] = xs[0];
    k = 1;
    /* 8 k at once: bytes 2k - 1 .. 2k + 14 of both channels */
    for (; 2 * k + 14 < W; k += 8) {
        __m256i a = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(xr + 2 * k - 1)));
        __m256i b = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(xs + 2 * k - 1)));
        __m256 lo = _mm256_castsi256_ps(_mm256_unpacklo_epi16(a, b));
        __m256 hi = _mm256_castsi256_ps(_mm256_unpackhi_epi16(a, b));
        _mm256_storeu_ps((float *)(void *)(ev + 2 * k), _mm256_shuffle_ps(lo, hi, 0x88));
        _mm256_storeu_ps((float *)(void *)(od + 2 * k), _mm256_shuffle_ps(lo, hi, 0xDD));
    }
    for (; k <= tw; k++) {
        int ce = 2 * k - 1, co = 2 * k;
        ev[2 * k] = ce < W ? xr[ce] : z;
        ev[2 * k + 1] = ce < W ? xs[ce] : z;
        od[2 * k] = co < W ? xr[co] : z;
        od[2 * k + 1] = co < W ? xs[co] : z;
    }
}

/* V of 8 tiles (16 int16 lanes from l) for one channel pair, rows r[i] =
 * {ev, od} of padded rows 2ty .. 2ty + 3; the first nd int32 pairs are
 * stored at v (positions vs_e apart). */
static void o2h_i8w_v8(int16_t *const r[4][2], int l, int nd, int16_t *v, size_t vs_e)
{
    __m256i e0[4], e1[4], o0[4], o1[4];
    for (int i = 0; i < 4; i++) {
        e0[i] = _mm256_loadu_si256((const __m256i *)(const void *)(r[i][0] + l));
        e1[i] = _mm256_loadu_si256((const __m256i *)(const void *)(r[i][0] + l + 2));
        o0[i] = _mm256_loadu_si256((const __m256i *)(const void *)(r[i][1] + l));
        o1[i] = _mm256_loadu_si256((const __m256i *)(const void *)(r[i][1] + l + 2));
    }
    /* rows: B^T d (d0 - d2, d1 + d2, d2 - d1, d1 - d3) on each column */
    __m256i re0[4] = {_mm256_sub_epi16(e0[0], e0[2]), _mm256_add_epi16(e0[1], e0[2]),
                      _mm256_sub_epi16(e0[2], e0[1]), _mm256_sub_epi16(e0[1], e0[3])};
    __m256i re1[4] = {_mm256_sub_epi16(e1[0], e1[2]), _mm256_add_epi16(e1[1], e1[2]),
                      _mm256_sub_epi16(e1[2], e1[1]), _mm256_sub_epi16(e1[1], e1[3])};
    __m256i ro0[4] = {_mm256_sub_epi16(o0[0], o0[2]), _mm256_add_epi16(o0[1], o0[2]),
                      _mm256_sub_epi16(o0[2], o0[1]), _mm256_sub_epi16(o0[1], o0[3])};
    __m256i ro1[4] = {_mm256_sub_epi16(o1[0], o1[2]), _mm256_add_epi16(o1[1], o1[2]),
                      _mm256_sub_epi16(o1[2], o1[1]), _mm256_sub_epi16(o1[1], o1[3])};
    /* columns: d0 = ev[tx], d1 = od[tx], d2 = ev[tx + 1], d3 = od[tx + 1] */
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(nd), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    for (int a = 0; a < 4; a++) {
        __m256i q[4] = {_mm256_sub_epi16(re0[a], re1[a]), _mm256_add_epi16(ro0[a], re1[a]),
                        _mm256_sub_epi16(re1[a], ro0[a]), _mm256_sub_epi16(ro0[a], ro1[a])};
        for (int b = 0; b < 4; b++) {
            int *d = (int *)(void *)(v + (size_t)(a * 4 + b) * vs_e + l);
            if (nd == 8)
                _mm256_storeu_si256((__m256i *)(void *)d, q[b]);
            else
                _mm256_maskstore_epi32(d, mask, q[b]);
        }
    }
}

/* V of tile row ty for one channel pair: v[e] (int16 pairs) for tiles
 * 0..tw-1; the row buffers hold 16 lanes past 2 tw + 2 (read, unused). */
static void o2h_i8w_vrow(int16_t *const r[4][2], int tw, int16_t *v, size_t vs_e)
{
    for (int l = 0; l < 2 * tw; l += 16)
        o2h_i8w_v8(r, l, 2 * tw - l < 16 ? (2 * tw - l) / 2 : 8, v, vs_e);
}

/* The block's V: [16][cp/2][ntp][2] int16, tiles of tile rows ty0 ..
 * ty0 + nr - 1 in order, zero beyond. */
static void o2h_i8w_input(const O2hConv2d *p, const O2hI8wGeom *g, const int8_t *x, int8_t z, int ty0, int nr,
                         int16_t *v, int16_t *rows)
{
    size_t vs_e = (size_t)g->cp * g->ntp;   /* int16 per position */
    size_t rl = (size_t)2 * (g->tw + 9);     /* int16 per row buffer */
    int nt = nr * g->tw;
    int64_t hw = (int64_t)p->H * p->W;
    for (int cp = 0; cp < g->cp / 2; cp++) {
        const int8_t *xr = x + 2 * cp * hw, *xs = 2 * cp + 1 < p->C ? xr + hw : xr;
        int16_t *vc = v + (size_t)cp * g->ntp * 2;
        for (int ty = ty0; ty < ty0 + nr; ty++) {
            int16_t *r[4][2];
            for (int i = 0; i < 4; i++) {
                r[i][0] = rows + (size_t)(2 * i) * rl;
                r[i][1] = rows + (size_t)(2 * i + 1) * rl;
                o2h_i8w_row(xr, xs, 2 * ty - 1 + i, p->H, p->W, g->tw, z, r[i][0], r[i][1]);
            }
            o2h_i8w_vrow(r, g->tw, vc + (size_t)(ty - ty0) * g->tw * 2, vs_e);
        }
        if (nt < g->ntp)
            for (int e = 0; e < 16; e++)
                memset(vc + e * vs_e + (size_t)nt * 2, 0, (size_t)(g->ntp - nt) * 4);
    }
}

/* ------------------------------------------------ products */

/* m[r][t] = sum over kg channel pairs of u[r] . v[t] for MR rows and nv
 * vectors of tiles; b steps bstep bytes per pair, w MR pairs. */
O2H_I_INLINE void o2h_i8w_tile(int nv, int kg, const unsigned char *restrict b, size_t bstep,
                              const unsigned char *restrict w, int32_t *m, size_t ldm)
{
    o2h_iacc acc[WMR][WNV];
    O2H_I_UNROLL for (int r = 0; r < WMR; r++)
        O2H_I_UNROLL for (int i = 0; i < nv; i++) acc[r][i] = O2H_ISET1(0);
    for (int k = 0; k < kg; k++) {
        o2h_ix xv[WNV];
        O2H_I_UNROLL for (int i = 0; i < nv; i++) xv[i] = O2H_IXLOAD(b + i * O2H_I8_STEP);
        O2H_I_UNROLL for (int r = 0; r < WMR; r++)
        {
            o2h_iw wv = O2H_IWLOAD(w + r * 4);
            O2H_I_UNROLL for (int i = 0; i < nv; i++) acc[r][i] = O2H_IDOT(acc[r][i], xv[i], wv);
        }
        b += bstep;
        w += WMR * 4;
    }
    O2H_I_UNROLL for (int r = 0; r < WMR; r++)
        O2H_I_UNROLL for (int i = 0; i < nv; i++) O2H_ISTORE(m + r * ldm + i * WVL, acc[r][i]);
}

/* M[e][r][t] for the MR filters of panel f0 over the block's tiles */
static void o2h_i8w_products(const O2hI8wGeom *g, const unsigned char *wp, int f0, const int16_t *v, int32_t *m)
{
    size_t vs_e = (size_t)g->cp * g->ntp;
    int kg = g->cp / 2;
    for (int e = 0; e < 16; e++) {
        const unsigned char *w = wp + ((size_t)(f0 / WMR) * 16 + e) * g->per_e;
        const unsigned char *b = (const unsigned char *)(v + e * vs_e);
        int32_t *me = m + (size_t)e * WMR * g->ntp;
        for (int t0 = 0; t0 < g->ntp; t0 += WNV * WVL) {
            int nv = (g->ntp - t0) / WVL;
            nv = nv < WNV ? nv : WNV;
            const unsigned char *bt = b + (size_t)t0 * 4;
            size_t bs = (size_t)g->ntp * 4;
#if O2H_I8_NV >= 3
            if (nv == 3)
                o2h_i8w_tile(3, kg, bt, bs, w, me + t0, (size_t)g->ntp);
            else
#endif
            if (nv == 2)
                o2h_i8w_tile(2, kg, bt, bs, w, me + t0, (size_t)g->ntp);
            else
                o2h_i8w_tile(1, kg, bt, bs, w, me + t0, (size_t)g->ntp);
        }
    }
}

/* ------------------------------------------------ output transform */

/* (A^T M A) / 4 + bias on 8 lanes: m[e * ms] holds position e of the 4x4
 * transform for each lane; r = the 2x2 outputs (0, 0), (0, 1), (1, 0),
 * (1, 1). The sums are exact multiples of 4 within int32, so the shift
 * is exact. */
O2H_I_INLINE void o2h_i8w_atma8(const int32_t *m, size_t ms, __m256i vb, __m256i r[4])
{
    __m256i s0[4], s1[4];
    for (int j = 0; j < 4; j++) {
        __m256i m0 = _mm256_loadu_si256((const __m256i *)(const void *)(m + (size_t)j * ms));
        __m256i m1 = _mm256_loadu_si256((const __m256i *)(const void *)(m + (size_t)(4 + j) * ms));
        __m256i m2 = _mm256_loadu_si256((const __m256i *)(const void *)(m + (size_t)(8 + j) * ms));
        __m256i m3 = _mm256_loadu_si256((const __m256i *)(const void *)(m + (size_t)(12 + j) * ms));
        s0[j] = _mm256_add_epi32(_mm256_add_epi32(m0, m1), m2);
        s1[j] = _mm256_sub_epi32(_mm256_sub_epi32(m1, m2), m3);
    }
    r[0] = _mm256_add_epi32(_mm256_add_epi32(s0[0], s0[1]), s0[2]);
    r[1] = _mm256_sub_epi32(_mm256_sub_epi32(s0[1], s0[2]), s0[3]);
    r[2] = _mm256_add_epi32(_mm256_add_epi32(s1[0], s1[1]), s1[2]);
    r[3] = _mm256_sub_epi32(_mm256_sub_epi32(s1[1], s1[2]), s1[3]);
    for (int i = 0; i < 4; i++)
        r[i] = _mm256_add_epi32(_mm256_srai_epi32(r[i], 2), vb);
}

/* Output rows 2ty, 2ty + 1 (y0, y1) of one filter from m[e] (stride
 * ms int32 per position) for the tw tiles of one tile row:
 * (A^T M A) / 4 + bias, interleaved into two int32 rows. */
static void o2h_i8w_orow(const int32_t *m, size_t ms, int tw, int32_t bias, int32_t *y0, int32_t *y1)
{
    int tx = 0;
    const __m256i vb = _mm256_set1_epi32(bias);
    for (; tx + 8 <= tw; tx += 8) {
        __m256i r[4];
        o2h_i8w_atma8(m + tx, ms, vb, r);
        __m256i l0 = _mm256_unpacklo_epi32(r[0], r[1]), h0 = _mm256_unpackhi_epi32(r[0], r[1]);
        __m256i l1 = _mm256_unpacklo_epi32(r[2], r[3]), h1 = _mm256_unpackhi_epi32(r[2], r[3]);
        _mm256_storeu_si256((__m256i *)(void *)(y0 + 2 * tx), _mm256_permute2x128_si256(l0, h0, 0x20));
        _mm256_storeu_si256((__m256i *)(void *)(y0 + 2 * tx + 8), _mm256_permute2x128_si256(l0, h0, 0x31));
        _mm256_storeu_si256((__m256i *)(void *)(y1 + 2 * tx), _mm256_permute2x128_si256(l1, h1, 0x20));
        _mm256_storeu_si256((__m256i *)(void *)(y1 + 2 * tx + 8), _mm256_permute2x128_si256(l1, h1, 0x31));
    }
    for (; tx < tw; tx++) {
        uint32_t s0[4], s1[4];
        for (int j = 0; j < 4; j++) {
            uint32_t m0 = (uint32_t)m[(size_t)j * ms + tx], m1 = (uint32_t)m[(size_t)(4 + j) * ms + tx];
            uint32_t m2 = (uint32_t)m[(size_t)(8 + j) * ms + tx], m3 = (uint32_t)m[(size_t)(12 + j) * ms + tx];
            s0[j] = m0 + m1 + m2;
            s1[j] = m1 - m2 - m3;
        }
        /* exact multiples of 4 within int32: the division is exact */
        y0[2 * tx] = (int32_t)((uint32_t)((int32_t)(s0[0] + s0[1] + s0[2]) / 4) + (uint32_t)bias);
        y0[2 * tx + 1] = (int32_t)((uint32_t)((int32_t)(s0[1] - s0[2] - s0[3]) / 4) + (uint32_t)bias);
        y1[2 * tx] = (int32_t)((uint32_t)((int32_t)(s1[0] + s1[1] + s1[2]) / 4) + (uint32_t)bias);
        y1[2 * tx + 1] = (int32_t)((uint32_t)((int32_t)(s1[1] - s1[2] - s1[3]) / 4) + (uint32_t)bias);
    }
}

/* Requantized outputs of filters f0 .. f0 + rows - 1 for the block */
static void o2h_i8w_output(const O2hConv2d *p, const O2hI8wGeom *g, const O2hRequant *rq, const int32_t *m,
                          const int32_t *bias, int f0, int rows, int ty0, int nr, int8_t *y, int32_t *acc)
{
    int32_t *a0 = acc, *a1 = acc + 2 * g->tw + 8;
    size_t ms = (size_t)WMR * g->ntp;
    for (int r = 0; r < rows; r++) {
        O2hRqc c;
        o2h_rqc_init(rq, f0 + r, &c);
        int8_t *yf = y + (int64_t)(f0 + r) * p->H * p->W;
        for (int ty = ty0; ty < ty0 + nr; ty++) {
            o2h_i8w_orow(m + (size_t)r * g->ntp + (size_t)(ty - ty0) * g->tw, ms, g->tw, bias[f0 + r], a0, a1);
            o2h_rq_row(a0, p->W, &c, yf + (int64_t)(2 * ty) * p->W);
            if (2 * ty + 1 < p->H)
                o2h_rq_row(a1, p->W, &c, yf + (int64_t)(2 * ty + 1) * p->W);
        }
    }
}

/* ------------------------------------------------ small planes */

/* m[t][f] = sum over kg channel pairs of u[f] . v[t] for nt tiles and SFB
 * filters: a vector holds 8 filters of one channel pair, each tile's V
 * pair (int32) is broadcast; v steps vstep int32 per pair. U comes from
 * memory once per run: the line O2H_I8W_PF bytes ahead (a panel of 512
 * channels, two of 256) is prefetched (14x14 0.88 -> 0.72 ms, 7x7 1.05 ->
 * 0.93 ms with U cold, one conv). */
#define O2H_I8W_PF 16384
O2H_I_INLINE void o2h_i8w_stile(int nt, int kg, const int32_t *restrict v, size_t vstep,
                               const int16_t *restrict u, int32_t *restrict m)
{
    __m256i acc[STN][SFV];
    O2H_I_UNROLL for (int t = 0; t < nt; t++)
        O2H_I_UNROLL for (int f = 0; f < SFV; f++) acc[t][f] = _mm256_setzero_si256();
    for (int k = 0; k < kg; k++) {
        __m256i w[SFV];
        O2H_I_UNROLL for (int f = 0; f < SFV; f++) w[f] = _mm256_loadu_si256((const __m256i *)(const void *)(u + 16 * f));
        O2H_I_UNROLL for (int t = 0; t < nt; t++)
        {
            __m256i b = _mm256_set1_epi32(v[t]);
            O2H_I_UNROLL for (int f = 0; f < SFV; f++) acc[t][f] = _mm256_add_epi32(acc[t][f], _mm256_madd_epi16(w[f], b));
        }
        _mm_prefetch((const char *)((uintptr_t)u + O2H_I8W_PF), _MM_HINT_T0);   /* a hint: may pass the end */
        v += vstep;
        u += 2 * SFB;
    }
    O2H_I_UNROLL for (int t = 0; t < nt; t++)
        O2H_I_UNROLL for (int f = 0; f < SFV; f++) _mm256_storeu_si256((__m256i *)(void *)(m + t * SFB + 8 * f), acc[t][f]);
}

/* M[e][t][SFB] of filter block fb over the plane's tiles: per position,
 * the block's panel stays in L1 over all tiles. */
static void o2h_i8w_sproducts(const O2hI8wGeom *g, const unsigned char *wp, int fb, const int16_t *v, int32_t *m)
{
    size_t vs_e = (size_t)g->cp * g->ntp;
    int kg = g->cp / 2;
    for (int e = 0; e < 16; e++) {
        const int16_t *u = (const int16_t *)(const void *)(wp + ((size_t)fb * 16 + e) * g->per_e);
        const int32_t *ve = (const int32_t *)(const void *)(v + e * vs_e);
        int32_t *me = m + (size_t)e * g->ntp * SFB;
        for (int t0 = 0; t0 < g->ntp; t0 += STN)
            o2h_i8w_stile(STN, kg, ve + t0, (size_t)g->ntp, u, me + (size_t)t0 * SFB);
    }
}

/* (A^T M A) / 4 + bias of tile t for 8 filters (m: M[0][t][f], positions
 * ms int32 apart) into o[0] (2ty, 2tx), o[1], o[ow] (2ty + 1, 2tx), o[ow + 1] */
static void o2h_i8w_stile_out(const int32_t *m, size_t ms, __m256i vb, int32_t *o, size_t ow)
{
    __m256i r[4];
    o2h_i8w_atma8(m, ms, vb, r);
    _mm256_storeu_si256((__m256i *)(void *)o, r[0]);
    _mm256_storeu_si256((__m256i *)(void *)(o + SFB), r[1]);
    _mm256_storeu_si256((__m256i *)(void *)(o + ow), r[2]);
    _mm256_storeu_si256((__m256i *)(void *)(o + ow + SFB), r[3]);
}

/* Requantized outputs of filter block fb: the int32 sums of all tiles into
 * o[2th][2tw][SFB], then per filter its plane gathered and requantized. */
static void o2h_i8w_soutput(const O2hConv2d *p, const O2hI8wGeom *g, const O2hRequant *rq, const int32_t *m,
                           const int32_t *bias, int fb, int8_t *y, int32_t *o)
{
    size_t ms = (size_t)g->ntp * SFB, ow = (size_t)2 * g->tw * SFB;
    int f0 = fb * SFB, rows = p->F - f0 < SFB ? p->F - f0 : SFB;
    for (int fv = 0; fv < SFV; fv++) {
        __m256i vb = _mm256_loadu_si256((const __m256i *)(const void *)(bias + f0 + 8 * fv));
        for (int ty = 0; ty < g->th; ty++)
            for (int tx = 0; tx < g->tw; tx++)
                o2h_i8w_stile_out(m + ((size_t)ty * g->tw + tx) * SFB + 8 * fv, ms, vb,
                                  o + (size_t)2 * ty * ow + (size_t)2 * tx * SFB + 8 * fv, ow);
    }
    int32_t *a = o + (size_t)4 * g->th * g->tw * SFB;
    a = o2h_i_align64(a);
    for (int r = 0; r < rows; r++) {
        O2hRqc c;
        o2h_rqc_init(rq, f0 + r, &c);
        for (int oy = 0; oy < p->H; oy++)
            for (int ox = 0; ox < p->W; ox++)
                a[oy * p->W + ox] = o[(size_t)oy * ow + (size_t)ox * SFB + r];
        o2h_rq_row(a, p->H * p->W, &c, y + (int64_t)(f0 + r) * p->H * p->W);
    }
}

static void o2h_i8w_srun(const O2hConv2d *p, const O2hI8wGeom *g, int32_t x_zero, const O2hRequant *rq,
                        const int8_t *x, const void *packed, int8_t *y, void *scratch)
{
    const unsigned char *wp = packed;
    const int32_t *bias = (const int32_t *)(const void *)(wp + 16 * g->per_e * (g->fp / SFB));
    int16_t *v = o2h_i_align64(scratch);
    int32_t *m = o2h_i_align64((char *)v + g->v_bytes);
    int16_t *rows = o2h_i_align64((char *)m + g->m_bytes);
    int32_t *o = o2h_i_align64((char *)rows + g->row_bytes);
    for (int n = 0; n < p->N; n++) {
        o2h_i8w_input(p, g, x + (int64_t)n * p->C * p->H * p->W, (int8_t)x_zero, 0, g->th, v, rows);
        for (int fb = 0; fb < g->fp / SFB; fb++) {
            o2h_i8w_sproducts(g, wp, fb, v, m);
            o2h_i8w_soutput(p, g, rq, m, bias, fb, y + (int64_t)n * p->F * p->H * p->W, o);
        }
    }
}

/* ------------------------------------------------ the run */

void o2h_i8w_run(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x, const void *packed,
                int8_t *y, void *scratch)
{
    O2hI8wGeom g;
    o2h_i8w_geom(p, WVL, WMR, &g);
    if (o2h_i8w_small(p)) {
        o2h_i8w_srun(p, &g, x_zero, rq, x, packed, y, scratch);
        return;
    }
    const unsigned char *wp = packed;
    const int32_t *bias = (const int32_t *)(const void *)(wp + 16 * g.per_e * (g.fp / WMR));
    int16_t *v = o2h_i_align64(scratch);
    int32_t *m = o2h_i_align64((char *)v + g.v_bytes);
    int16_t *rows = o2h_i_align64((char *)m + g.m_bytes);
    int32_t *acc = (int32_t *)(void *)((char *)rows + (((size_t)8 * (g.tw + 9) * 4 + 63) & ~(size_t)63));
    for (int n = 0; n < p->N; n++) {
        const int8_t *xn = x + (int64_t)n * p->C * p->H * p->W;
        int8_t *yn = y + (int64_t)n * p->F * p->H * p->W;
        for (int ty0 = 0; ty0 < g.th; ty0 += g.rows) {
            int nr = g.th - ty0 < g.rows ? g.th - ty0 : g.rows;
            o2h_i8w_input(p, &g, xn, (int8_t)x_zero, ty0, nr, v, rows);
            for (int f0 = 0; f0 < p->F; f0 += WMR) {
                o2h_i8w_products(&g, wp, f0, v, m);
                o2h_i8w_output(p, &g, rq, m, bias, f0, p->F - f0 < WMR ? p->F - f0 : WMR, ty0, nr, yn, acc);
            }
        }
    }
}

#else /* no pair-product kernels: the conv keeps its direct path */

size_t o2h_i8w_packed_bytes(const O2hConv2d *p)
{
    (void)p;
    return 0;
}

size_t o2h_i8w_scratch(const O2hConv2d *p)
{
    (void)p;
    return 0;
}

void o2h_i8w_pack(const O2hConv2d *p, const int8_t *w, const int32_t *bias, void *packed)
{
    (void)p, (void)w, (void)bias, (void)packed;
}

void o2h_i8w_run(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x, const void *packed,
                int8_t *y, void *scratch)
{
    (void)p, (void)x_zero, (void)rq, (void)x, (void)packed, (void)y, (void)scratch;
}
#endif
