/* rt_conv.c - 2-D convolution (all groupings, pads, strides, dilations) with
 * a fused epilogue, weight packing, and ConvTranspose.
 *
 * Why six paths: a CNN's convs come in shapes that want different loops.
 *  - pointwise (1x1, stride 1, no pads): the input plane [C][H*W] already is
 *    the B matrix of a GEMM, so it goes straight to the GEMM core;
 *  - depthwise (groups == input channels, any multiplier): no reduction over
 *    channels, so a GEMM would waste its tile; instead each input plane is
 *    copied into a zero-padded buffer split by stride phase, after which the
 *    whole output plane is one flat loop of contiguous vector loads times
 *    scalar taps (see O2hPhasePlane), accumulated in registers; 3x3
 *    stride 1/2 on wide rows reads the input rows as vectors and makes the
 *    taps by shuffles instead (see o2h_dwv_row); on small maps (3x3/5x5,
 *    stride 1/2) each row in one vector when it fills more than half of it
 *    (14x14 with AVX-512, see o2h_conv_dwr), two channels a vector when
 *    it fills at most half of one (7x7 outputs with AVX-512, see
 *    o2h_conv_dwp), else VL channels share the vector lanes (28x28 and
 *    below, see o2h_conv_dwl);
 *  - direct (KxK with at least 16 input channels per group on maps over
 *    100 pixels): the same phase planes for all input channels make every
 *    tap a shifted view of the input, so the conv is one GEMM whose K rows
 *    come in a segment per tap, with no im2col copy;
 *  - Winograd F(2x2, 3x3) (3x3 stride 1 pad 1 with enough channels and
 *    pixels, ResNet's body): 16 GEMMs over transformed tiles, 2.25x fewer
 *    multiplies than the direct conv (see o2h_conv_wino);
 *  - few input channels with stride 2 (the stem: 3 channels, 3x3): per
 *    output row, the input rows split by column parity into L1 rows whose
 *    runs are the taps, times broadcast weights (see o2h_conv_smallc);
 *  - everything else (few channels, small maps, strided 1x1): im2col of a
 *    block of output columns (sized for L2) followed by the GEMM core.
 * Weights for the GEMM paths are repacked once at init into MR-row panels
 * (K ordered (tap, channel) for the direct path); depthwise weights are used
 * in ONNX layout. */
#include "rt_internal.h"

#if O2H_VEC && defined(__AVX512F__)
#include <immintrin.h>
#endif

typedef enum {
    O2H_CONV_GEMM1X1,
    O2H_CONV_DEPTHWISE,
    O2H_CONV_DIRECT,
    O2H_CONV_IM2COL,
    O2H_CONV_WINOGRAD,
    O2H_CONV_SMALLC
} O2hConvPath;

/* Fewest input channels per group for the direct path: below it each tap's
 * K block is too short for the GEMM tile and im2col is faster. */
#define O2H_DIRECT_MIN_C 16
/* Fewest output pixels for the direct path: on small maps the wq - WO
 * extra columns per row cost more than im2col's copy. */
#define O2H_DIRECT_MIN_PIX 100
/* Most taps (KH*KW) the direct path keeps offsets for on the stack. */
#define O2H_DIRECT_MAX_TAPS 1024

/* Winograd F(2x2, 3x3): fewest output pixels and channels (below them the
 * transforms cost more than the 2.25x fewer multiplies save), widest row
 * (the row buffers are on the stack), and the floats of transformed input
 * kept per block of tile rows. */
#define O2H_WINO_MIN_PIX 196
/* ... or on smaller maps (7x7), at least this many channel pairs C*F */
#ifndef O2H_WINO_MIN_CF
#define O2H_WINO_MIN_CF 65536
#endif
#define O2H_WINO_MIN_C 16
#define O2H_WINO_MAX_W 4096
#ifndef O2H_WINO_V_FLOATS
#define O2H_WINO_V_FLOATS 131072
#endif

/* Floats of im2col panel per block of output columns (sized for L2). */
#define O2H_IM2COL_FLOATS 131072

/* Few-channel stride-2 convs (a CNN's stem, see o2h_conv_smallc): most
 * input channels and taps (C*KH*KW), fewest filters and output columns.
 * With 4-float vectors (SSE) im2col stays 5% faster, so they keep it. */
#define O2H_SMALLC_MAX_C 4
#define O2H_SMALLC_MAX_TAPS 64
#define O2H_SMALLC_MIN_F 8
#define O2H_SMALLC_MIN_WO 16

static int o2h_smallc_ok(const O2hConv2d *p)
{
    return O2H_VL >= 8 && p->G == 1 && p->C <= O2H_SMALLC_MAX_C && p->KH * p->KW > 1 &&
           p->C * p->KH * p->KW <= O2H_SMALLC_MAX_TAPS && p->SH == 2 && p->SW == 2 &&
           p->F >= O2H_SMALLC_MIN_F && p->WO >= O2H_SMALLC_MIN_WO;
}

static O2hConvPath o2h_conv_path(const O2hConv2d *p)
{
    if (p->G > 1 && p->G == p->C && p->F % p->C == 0)
        return O2H_CONV_DEPTHWISE;
    if (p->KH == 1 && p->KW == 1 && p->SH == 1 && p->SW == 1 && p->PT == 0 && p->PL == 0 &&
        p->PB == 0 && p->PR == 0 && p->HO == p->H && p->WO == p->W)
        return O2H_CONV_GEMM1X1;
    if (p->G == 1 && p->KH == 3 && p->KW == 3 && p->SH == 1 && p->SW == 1 && p->DH == 1 &&
        p->DW == 1 && p->PT == 1 && p->PL == 1 && p->PB == 1 && p->PR == 1 && p->HO == p->H &&
        p->WO == p->W && (p->HO * p->WO >= O2H_WINO_MIN_PIX || p->C * p->F >= O2H_WINO_MIN_CF) &&
        p->W <= O2H_WINO_MAX_W && p->C >= O2H_WINO_MIN_C && p->F >= O2H_WINO_MIN_C)
        return O2H_CONV_WINOGRAD;
    if (o2h_smallc_ok(p))
        return O2H_CONV_SMALLC;
    if (p->KH * p->KW > 1 && p->KH * p->KW <= O2H_DIRECT_MAX_TAPS &&
        p->C / p->G >= O2H_DIRECT_MIN_C && p->HO * p->WO > O2H_DIRECT_MIN_PIX)
        return O2H_CONV_DIRECT;
    return O2H_CONV_IM2COL;
}

static int o2h_conv_k(const O2hConv2d *p) { return p->C / p->G * p->KH * p->KW; }

/* Output columns per im2col block: a multiple of NR, at least NR. Filters
 * larger than L2 are streamed once per block, so then one block takes all
 * columns if that panel stays within 8 budgets. */
static int o2h_im2col_cols(const O2hConv2d *p)
{
    int k = o2h_conv_k(p), n = p->HO * p->WO;
    int nc = O2H_IM2COL_FLOATS / (k > 0 ? k : 1) / O2H_NR * O2H_NR;
    int nmax = (n + O2H_NR - 1) / O2H_NR * O2H_NR;
    size_t wfloats = (size_t)(p->F / p->G) * (size_t)k;
    if (wfloats > (size_t)O2H_IM2COL_FLOATS * 2 &&
        (size_t)k * nmax <= (size_t)O2H_IM2COL_FLOATS * 8)
        nc = nmax;
    if (nc < O2H_NR)
        nc = O2H_NR;
    return nc < nmax ? nc : nmax;
}

/* Depthwise buffer geometry. The zero-padded input plane is split into
 * SH x SW stride phases; phase (a,b) holds padded pixel (i*SH+a, j*SW+b) at
 * [i][j] in an hq x wq grid, followed by slack floats for over-reads. Every tap of every
 * output (oh, ow) then reads phase ((kh*DH)%SH, (kw*DW)%SW) at
 * [oh + kh*DH/SH][ow + kw*DW/SW], so one flat vector loop over oh*wq + ow
 * covers the whole output plane with contiguous loads; columns ow >= WO are
 * computed and dropped. */
#define O2H_MAX_PHASE 8

typedef struct {
    int hq, wq;
    size_t phase;   /* floats per phase including slack */
    size_t flat;    /* floats of the flat output buffer */
    /* rows [i0[a], i1[a]) of row phase a and columns [j0[b], j1[b]) of
     * column phase b hold input pixels (strides up to O2H_MAX_PHASE) */
    int i0[O2H_MAX_PHASE], i1[O2H_MAX_PHASE], j0[O2H_MAX_PHASE], j1[O2H_MAX_PHASE];
} O2hPhasePlane;

static int o2h_cdiv(int a, int b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

/* Whether epilogue e is a ReLU or a Clip, which the kernels apply as the
 * clamp [lo, hi] in registers ([0, inf) for ReLU and for anything else). */
static int o2h_act_clamp(const O2hEpilogue *e, float *lo, float *hi)
{
    int clip = e && e->act == O2H_ACT_CLIP;
    *lo = clip ? e->alpha : 0.0f;
    *hi = clip ? e->beta : __builtin_inff();
    return clip || (e && e->act == O2H_ACT_RELU);
}

/* Index range [*lo, *hi) of phase ph (stride s, pad pad, n inputs, cap
 * entries) whose padded position holds an input pixel. */
static void o2h_phase_range(int ph, int s, int pad, int n, int cap, int *lo, int *hi)
{
    int a = o2h_cdiv(pad - ph, s), b = o2h_cdiv(n + pad - ph, s);
    *lo = a < 0 ? 0 : a;
    *hi = b > cap ? cap : b;
}

static O2hPhasePlane o2h_phase_plane(const O2hConv2d *p)
{
    O2hPhasePlane d;
    d.hq = p->HO + (p->KH - 1) * p->DH / p->SH;
    d.wq = p->WO + (p->KW - 1) * p->DW / p->SW;
    d.phase = (size_t)d.hq * d.wq + (size_t)d.wq + 2 * O2H_VL;
    d.flat = ((size_t)p->HO * d.wq + O2H_VL - 1) / O2H_VL * O2H_VL + O2H_VL;
    for (int a = 0; a < p->SH && a < O2H_MAX_PHASE; a++)
        o2h_phase_range(a, p->SH, p->PT, p->H, d.hq, &d.i0[a], &d.i1[a]);
    for (int b = 0; b < p->SW && b < O2H_MAX_PHASE; b++)
        o2h_phase_range(b, p->SW, p->PL, p->W, d.wq, &d.j0[b], &d.j1[b]);
    return d;
}

/* Winograd F(2x2, 3x3) geometry: the output is cut into 2x2 tiles, th x tw
 * of them; rb tile rows form a block whose nb = rb*tw tiles are the columns
 * of the 16 GEMMs (one per transformed position xi), ld floats apart. */
typedef struct {
    int th, tw, rb, ld, hs;
} O2hWino;

static O2hWino o2h_wino(const O2hConv2d *p)
{
    O2hWino g;
    int cmax = p->C > p->F ? p->C : p->F;
    g.th = (p->HO + 1) / 2;   /* an odd map's last tile row/column is half used */
    g.tw = (p->WO + 1) / 2;
    g.rb = O2H_WINO_V_FLOATS / (16 * cmax * g.tw);
    g.rb = g.rb < 1 ? 1 : g.rb > g.th ? g.th : g.rb;
    /* the last row's whole vectors may pass nb by up to VL - 1 columns */
    g.ld = ((g.rb - 1) * g.tw + (g.tw + O2H_VL - 1) / O2H_VL * O2H_VL + O2H_VL - 1) / O2H_VL *
           O2H_VL;
    g.hs = (g.tw + 1 + O2H_VL) / 16 * 16 + 16;   /* even/odd half row, zeroed slack */
    return g;
}

/* Packed floats per group: MR-row panels of filters. */
static size_t o2h_conv_group_packed(const O2hConv2d *p)
{
    return o2h_gemm_panels_size(p->F / p->G, o2h_conv_k(p));
}

size_t o2h_conv2d_packed_size(const O2hConv2d *p)
{
    if (o2h_conv_path(p) == O2H_CONV_DEPTHWISE || o2h_conv_path(p) == O2H_CONV_SMALLC)
        return 0;
    if (o2h_conv_path(p) == O2H_CONV_WINOGRAD)
        return 16 * o2h_gemm_panels_size(p->F, p->C);
    return (size_t)p->G * o2h_conv_group_packed(p);
}

/* The 16 transformed filters U = G g G^T (G = [1 0 0; .5 .5 .5; .5 -.5 .5;
 * 0 0 1]), computed in double, each xi as the A operand of its GEMM. */
static void o2h_wino_pack(const O2hConv2d *p, const float *w, float *wp)
{
    int F = p->F, C = p->C;
    size_t per = o2h_gemm_panels_size(F, C);
    memset(wp, 0, 16 * per * sizeof *wp);
    for (int f = 0; f < F; f++)
        for (int c = 0; c < C; c++) {
            const float *g = w + ((size_t)f * C + c) * 9;
            double t[4][3], u[4][4];
            for (int j = 0; j < 3; j++) {
                double g0 = g[j], g1 = g[3 + j], g2 = g[6 + j];
                t[0][j] = g0;
                t[1][j] = 0.5 * (g0 + g1 + g2);
                t[2][j] = 0.5 * (g0 - g1 + g2);
                t[3][j] = g2;
            }
            for (int a = 0; a < 4; a++) {
                u[a][0] = t[a][0];
                u[a][1] = 0.5 * (t[a][0] + t[a][1] + t[a][2]);
                u[a][2] = 0.5 * (t[a][0] - t[a][1] + t[a][2]);
                u[a][3] = t[a][2];
            }
            size_t at = o2h_gemm_panel_index(F, C, f, c);
            for (int xi = 0; xi < 16; xi++)
                wp[(size_t)xi * per + at] = (float)u[xi / 4][xi % 4];
        }
}

void o2h_conv2d_pack(const O2hConv2d *p, const float *w_onnx, float *w_packed)
{
    if (o2h_conv_path(p) == O2H_CONV_DEPTHWISE || o2h_conv_path(p) == O2H_CONV_SMALLC)
        return;
    if (o2h_conv_path(p) == O2H_CONV_WINOGRAD) {
        o2h_wino_pack(p, w_onnx, w_packed);
        return;
    }
    int fg = p->F / p->G, k = o2h_conv_k(p), taps = p->KH * p->KW;
    size_t per = o2h_conv_group_packed(p);
    for (int g = 0; g < p->G; g++) {
        const float *wg = w_onnx + (size_t)g * fg * k;
        if (o2h_conv_path(p) == O2H_CONV_DIRECT) /* K ordered (tap, channel) */
            o2h_gemm_pack_a_panels(fg, k, wg, k, 1, taps, w_packed + g * per);
        else
            o2h_gemm_pack_a_panels(fg, k, wg, k, 1, 1, w_packed + g * per);
    }
}

static int o2h_dwl_ok(const O2hConv2d *p);
static size_t o2h_dwl_floats(const O2hConv2d *p, int vl);
static size_t o2h_smallc_floats(const O2hConv2d *p);

/* Rows of the split-row ring of the AVX stride-2 depthwise (o2h_dwe_plane):
 * a power of two; output rows oh and oh + 1 read 5. */
#define O2H_DWE_RING 8

/* Columns kept of each split half-row: the output row in whole vectors and
 * the E column past it. */
O2H_INLINE int o2h_dwe_nq(int wo, int vl) { return (wo + vl) / vl * vl; }

/* Floats of the ring: RING rows and a zero row, each a vector and nq
 * columns for O, then for E, and 16 to align. */
static size_t o2h_dwe_floats(const O2hConv2d *p, int vl)
{
    return (size_t)(O2H_DWE_RING + 1) * 2 * (vl + o2h_dwe_nq(p->WO, vl)) + 16;
}

/* Scratch floats of the rows-in-vectors depthwise kernels (o2h_dw_planes)
 * with vl-float vectors: the last plane's input, residual and output with a
 * vector of room each, a zero row, and the split-row ring. */
static size_t o2h_dwr_floats(const O2hConv2d *p, int vl)
{
    return (size_t)p->H * p->W + 2 * (size_t)p->HO * p->WO + (size_t)p->W + 5 * (size_t)vl +
           o2h_dwe_floats(p, vl);
}

size_t o2h_conv2d_scratch_size(const O2hConv2d *p)
{
    size_t s = 0;
    switch (o2h_conv_path(p)) {
    case O2H_CONV_DEPTHWISE: {
        O2hPhasePlane d = o2h_phase_plane(p);
        size_t pl = 2 * (size_t)p->SH * p->SW * d.phase + d.flat;
        size_t l = o2h_dwl_ok(p) ? o2h_dwl_floats(p, O2H_VL) : 0, r = o2h_dwr_floats(p, O2H_VL);
        pl = pl > r ? pl : r;
        return pl > l ? pl : l;
    }
    case O2H_CONV_DIRECT: {
        O2hPhasePlane d = o2h_phase_plane(p);
        return (size_t)(p->C / p->G) * p->SH * p->SW * d.phase +
               (size_t)(p->F / p->G) * ((size_t)p->HO * d.wq + O2H_VL);
    }
    case O2H_CONV_IM2COL:
        s = (size_t)o2h_conv_k(p) * o2h_im2col_cols(p);
        break;
    case O2H_CONV_WINOGRAD: {
        O2hWino g = o2h_wino(p);
        return 16 * (size_t)(p->C + p->F) * g.ld + 8 * (size_t)g.hs;
    }
    case O2H_CONV_SMALLC:
        return o2h_smallc_floats(p);
    case O2H_CONV_GEMM1X1:
        return o2h_gemm_bpack_size(p->F / p->G, p->HO * p->WO, p->C / p->G,
                                   (ptrdiff_t)p->H * p->W);
    }
    return s;
}

/* Scratch floats of a depthwise conv for the widest vectors any build
 * uses (16 floats), so that callers sizing buffers at compile time (the
 * int8 depthwise kernel runs its taps here) need no knowledge of the ISA. */
size_t o2h_conv2d_dw_scratch_bound(const O2hConv2d *p)
{
    O2hPhasePlane d = o2h_phase_plane(p);
    size_t phase = (size_t)d.hq * d.wq + (size_t)d.wq + 32;
    size_t s = 2 * (size_t)p->SH * p->SW * phase + (size_t)p->HO * d.wq + 32;
    size_t l = o2h_dwl_ok(p) ? o2h_dwl_floats(p, 16) : 0, r = o2h_dwr_floats(p, 16);
    s = s > r ? s : r;
    return s > l ? s : l;
}

/* ------------------------------------------------------------- im2col */

/* Copy n input pixels starting at xr with stride s (1 and 2 get their own
 * loops so they vectorize). */
static void o2h_copy_strided(const float *xr, int s, int n, float *d)
{
    if (s == 1)
        memcpy(d, xr, (size_t)n * sizeof *d);
    else if (s == 2)
        for (int j = 0; j < n; j++)
            d[j] = xr[2 * j];
    else
        for (int j = 0; j < n; j++)
            d[j] = xr[j * s];
}

/* Row (c, kh, kw) of the im2col matrix for output pixels [n0, n0+nc): each
 * output row segment is zeros, a strided copy of the input row, zeros. */
static void o2h_im2col_row(const O2hConv2d *p, const float *xc, int kh, int kw, int n0,
                           int nc, float *dst)
{
    int off = kw * p->DW - p->PL;
    /* ow range whose input column is inside the image */
    int lo = o2h_cdiv(-off, p->SW), hi = o2h_cdiv(p->W - off, p->SW);
    lo = lo < 0 ? 0 : lo;
    int done = 0;
    while (done < nc) {
        int pix = n0 + done, oh = pix / p->WO, ow0 = pix % p->WO;
        int len = p->WO - ow0 < nc - done ? p->WO - ow0 : nc - done;
        int ih = oh * p->SH - p->PT + kh * p->DH;
        float *d = dst + done;
        done += len;
        int a = lo > ow0 ? lo - ow0 : 0, b = hi - ow0 < len ? hi - ow0 : len;
        if (ih < 0 || ih >= p->H || b <= a) {
            memset(d, 0, (size_t)len * sizeof *d);
            continue;
        }
        memset(d, 0, (size_t)a * sizeof *d);
        o2h_copy_strided(xc + (size_t)ih * p->W + (ow0 + a) * p->SW + off, p->SW, b - a, d + a);
        memset(d + b, 0, (size_t)(len - b) * sizeof *d);
    }
}

static void o2h_im2col(const O2hConv2d *p, const float *xg, int n0, int nc, int ld, float *b)
{
    int cg = p->C / p->G, row = 0;
    for (int c = 0; c < cg; c++) {
        const float *xc = xg + (size_t)c * p->H * p->W;
        for (int kh = 0; kh < p->KH; kh++)
            for (int kw = 0; kw < p->KW; kw++, row++)
                o2h_im2col_row(p, xc, kh, kw, n0, nc, b + (size_t)row * ld);
    }
}

/* ----------------------------------------------------------- GEMM paths */

static void o2h_conv_gemm(const O2hConv2d *p, const float *x, const float *w, const float *bias,
                          const O2hEpilogue *e, float *y, float *scratch)
{
    O2hConvPath path = o2h_conv_path(p);
    int fg = p->F / p->G, cg = p->C / p->G, k = o2h_conv_k(p);
    size_t hw = (size_t)p->H * p->W, hwo = (size_t)p->HO * p->WO;
    size_t per = o2h_gemm_panels_size(fg, k);
    int nc = path == O2H_CONV_IM2COL ? o2h_im2col_cols(p) : 0;
    for (int n = 0; n < p->N; n++)
        for (int g = 0; g < p->G; g++) {
            const float *xg = x + ((size_t)n * p->C + (size_t)g * cg) * hw;
            size_t yoff = ((size_t)n * p->F + (size_t)g * fg) * hwo;
            O2hTileEpi ep = {1.0f, bias ? bias + g * fg : NULL, NULL,
                             e && e->residual ? e->residual + yoff : NULL, (ptrdiff_t)hwo,
                             e, g * fg, 0};
            const float *wg = w + g * per;
            if (path == O2H_CONV_GEMM1X1) {
                o2h_gemm_core(fg, (int)hwo, k, wg, xg, (ptrdiff_t)hw, y + yoff,
                              (ptrdiff_t)hwo, &ep, scratch);
                continue;
            }
            for (int n0 = 0; n0 < (int)hwo; n0 += nc) {
                int len = (int)hwo - n0 < nc ? (int)hwo - n0 : nc;
                O2hTileEpi ec = ep;
                if (ec.res)
                    ec.res += n0;
                o2h_im2col(p, xg, n0, len, nc, scratch);
                o2h_gemm_core(fg, len, k, wg, scratch, nc, y + yoff + n0, (ptrdiff_t)hwo, &ec,
                              NULL);
            }
        }
}

/* ------------------------------------------------------------ depthwise */

#if O2H_VEC
/* Lane index vector 0, 1, ..., VL-1. */
O2H_INLINE o2h_vi o2h_lane_idx(void)
{
    o2h_vi v;
    for (int k = 0; k < O2H_VL; k++)
        v[k] = k;
    return v;
}

O2H_INLINE size_t o2h_round_vl(int n) { return (size_t)(n + O2H_VL - 1) / O2H_VL * O2H_VL; }
#endif

/* dst[0..n) = src[0..n) for a row of a phase plane. With vectors and room
 * (floats readable from src) for whole vectors, the row is copied in whole
 * vectors whose lanes past n are zero: they land on the row's right pad and
 * on the next rows, which are pads (zero) or are filled after this one. */
static void o2h_put_row(float *dst, const float *src, int n, size_t room)
{
#if O2H_VEC
    if (room >= o2h_round_vl(n)) {
        o2h_vi lane = o2h_lane_idx();
        for (int j = 0; j < n; j += O2H_VL) {
            o2h_vf v = o2h_vload(src + j);
            if (j + O2H_VL > n)
                v = o2h_vselect(lane < n - j, v, (o2h_vf){0});
            o2h_vstore(dst + j, v);
        }
        return;
    }
#else
    (void)room;
#endif
    o2h_copy_short(dst, src, n);
}

/* Split one input row of W floats by column parity: ev[k] = x[2k] for
 * k < ne, od[k] = x[2k+1] for k < no. With room (floats readable from x)
 * for whole vectors, both rows are written in whole vectors with zero lanes
 * past their ends (see o2h_put_row). */
static void o2h_deinterleave2(const float *x, float *ev, int ne, float *od, int no, size_t room)
{
    int k = 0;
#if O2H_VEC
    int nmax = ne > no ? ne : no;
    if (room >= 2 * o2h_round_vl(nmax)) {
        o2h_vi lane = o2h_lane_idx();
        for (k = 0; k < nmax; k += O2H_VL) {
            o2h_vf a = o2h_vload(x + 2 * k), b = o2h_vload(x + 2 * k + O2H_VL);
            o2h_vf e = O2H_VEVEN(a, b), o = O2H_VODD(a, b);
            if (k + O2H_VL > ne)
                e = o2h_vselect(lane < ne - k, e, (o2h_vf){0});
            if (k + O2H_VL > no)
                o = o2h_vselect(lane < no - k, o, (o2h_vf){0});
            o2h_vstore(ev + k, e);
            o2h_vstore(od + k, o);
        }
        return;
    }
    int nb = ne < no ? ne : no;
    for (; k + O2H_VL <= nb; k += O2H_VL) {
        o2h_vf a = o2h_vload(x + 2 * k), b = o2h_vload(x + 2 * k + O2H_VL);
        o2h_vstore(ev + k, O2H_VEVEN(a, b));
        o2h_vstore(od + k, O2H_VODD(a, b));
    }
    for (; k + 4 <= nb; k += 4) {
        o2h_v4 a, b, e, o;
        memcpy(&a, x + 2 * k, sizeof a);
        memcpy(&b, x + 2 * k + 4, sizeof b);
        e = O2H_V4EVEN(a, b);
        o = O2H_V4ODD(a, b);
        memcpy(ev + k, &e, sizeof e);
        memcpy(od + k, &o, sizeof o);
    }
#else
    (void)room;
#endif
    for (int j = k; j < ne; j++)
        ev[j] = x[2 * j];
    for (int j = k; j < no; j++)
        od[j] = x[2 * j + 1];
}

/* Stride-2 fill: each input row feeds the two column phases at once. */
static void o2h_phase_fill_s2(const O2hConv2d *p, const O2hPhasePlane *dp, const float *xc,
                              float *buf)
{
    const O2hPhasePlane d = *dp;
    int be = p->PL % 2, bo = 1 - be;
    int offe = (p->PL - be) / 2, offo = (p->PL - bo + 1) / 2;
    int ne = (p->W + 1) / 2, no = p->W / 2;
    int ke = offe < 0 ? -offe : 0, ko = offo < 0 ? -offo : 0;
    ne = ne < d.wq - offe ? ne : d.wq - offe;
    no = no < d.wq - offo ? no : d.wq - offo;
    for (int a = 0; a < p->SH; a++) {
        float *phe = buf + (size_t)(a * 2 + be) * d.phase;
        float *pho = buf + (size_t)(a * 2 + bo) * d.phase;
        int i0, i1;
        if (a < O2H_MAX_PHASE) {
            i0 = d.i0[a];
            i1 = d.i1[a];
        } else {
            o2h_phase_range(a, p->SH, p->PT, p->H, d.hq, &i0, &i1);
        }
        for (int i = i0; i < i1; i++) {
            const float *xr = xc + (size_t)(i * p->SH + a - p->PT) * p->W;
            float *re = phe + (size_t)i * d.wq + offe, *ro = pho + (size_t)i * d.wq + offo;
            if (ke == 0 && ko == 0) {
                o2h_deinterleave2(xr, re, ne, ro, no, (size_t)(p->H * p->W) - (size_t)(xr - xc));
                continue;
            }
            for (int k = ke; k < ne; k++)
                re[k] = xr[2 * k];
            for (int k = ko; k < no; k++)
                ro[k] = xr[2 * k + 1];
        }
    }
}

/* Copy input plane xc into the phase-split buffer. Only the positions
 * that hold input pixels are written: the pads and the slack were zeroed
 * once per call and are the same for every channel. */
static void o2h_phase_fill(const O2hConv2d *p, const O2hPhasePlane *dp, const float *xc,
                           float *buf)
{
    const O2hPhasePlane d = *dp;
    if (p->SH == 1 && p->SW == 1) {
        int len = d.j1[0] - d.j0[0];
        for (int i = d.i0[0]; len > 0 && i < d.i1[0]; i++) {
            size_t o = (size_t)(i - p->PT) * p->W + (size_t)(d.j0[0] - p->PL);
            o2h_put_row(buf + (size_t)i * d.wq + d.j0[0], xc + o, len, (size_t)p->H * p->W - o);
        }
        return;
    }
    if (p->SW == 2) {
        o2h_phase_fill_s2(p, dp, xc, buf);
        return;
    }
    for (int a = 0; a < p->SH; a++)
        for (int b = 0; b < p->SW; b++) {
            float *ph = buf + (size_t)(a * p->SW + b) * d.phase;
            int i0, i1, j0, j1;
            if (a < O2H_MAX_PHASE && b < O2H_MAX_PHASE) {
                i0 = d.i0[a];
                i1 = d.i1[a];
                j0 = d.j0[b];
                j1 = d.j1[b];
            } else {
                o2h_phase_range(a, p->SH, p->PT, p->H, d.hq, &i0, &i1);
                o2h_phase_range(b, p->SW, p->PL, p->W, d.wq, &j0, &j1);
            }
            int len = j1 - j0;
            if (len <= 0)
                continue;
            for (int i = i0; i < i1; i++) {
                float *row = ph + (size_t)i * d.wq + j0;
                const float *xr = xc + (size_t)(i * p->SH + a - p->PT) * p->W +
                                  (j0 * p->SW + b - p->PL);
                if (p->SW == 1)
                    o2h_copy_short(row, xr, len);
                else if (p->SW == 2)
                    for (int j = 0; j < len; j++)
                        row[j] = xr[2 * j];
                else
                    for (int j = 0; j < len; j++)
                        row[j] = xr[j * p->SW];
            }
        }
}

/* Offset of tap (kh, kw) into the buffer, relative to the flat output index. */
static size_t o2h_phase_tap(const O2hConv2d *p, O2hPhasePlane d, int kh, int kw)
{
    int qh = kh * p->DH, qw = kw * p->DW;
    size_t phase = (size_t)((qh % p->SH) * p->SW + qw % p->SW);
    return phase * d.phase + (size_t)(qh / p->SH) * d.wq + (size_t)(qw / p->SW);
}

#if O2H_VEC
/* flat[i..i+nb*VL) = b + sum_t w[t] * buf[off[t] + i..]: nb accumulators
 * stay in registers while the taps stream by (one broadcast per tap). */
O2H_INLINE void o2h_dw_block(int nb, int ntap, const float *buf, const size_t *off,
                             const float *w, float b, size_t i, float *flat)
{
    o2h_vf acc[8];
    for (int v = 0; v < nb; v++)
        acc[v] = o2h_vset1(b);
    for (int t = 0; t < ntap; t++) {
        o2h_vf wt = o2h_vset1(w[t]);
        const float *src = buf + off[t] + i;
        for (int v = 0; v < nb; v++)
            acc[v] += wt * o2h_vload(src + v * O2H_VL);
    }
    for (int v = 0; v < nb; v++)
        o2h_vstore(flat + i + v * O2H_VL, acc[v]);
}

/* The flat output of one channel, n a multiple of VL. */
static void o2h_dw_flat(int ntap, const float *buf, const size_t *off, const float *w, float b,
                        size_t n, float *flat)
{
    size_t i = 0;
    for (; i + 8 * O2H_VL <= n; i += 8 * O2H_VL)
        o2h_dw_block(8, ntap, buf, off, w, b, i, flat);
    if (i + 4 * O2H_VL <= n) {
        o2h_dw_block(4, ntap, buf, off, w, b, i, flat);
        i += 4 * O2H_VL;
    }
    if (i + 2 * O2H_VL <= n) {
        o2h_dw_block(2, ntap, buf, off, w, b, i, flat);
        i += 2 * O2H_VL;
    }
    if (i < n)
        o2h_dw_block(1, ntap, buf, off, w, b, i, flat);
}
#define O2H_DW_REG_TAPS 256
#else
#define O2H_DW_REG_TAPS 0
static void o2h_dw_flat(int ntap, const float *buf, const size_t *off, const float *w, float b,
                        size_t n, float *flat)
{
    (void)ntap; (void)buf; (void)off; (void)w; (void)b; (void)n; (void)flat;
}
#endif

/* Tap-outer accumulation for filters with many taps (or no vectors). */
static void o2h_dw_flat_big(const O2hConv2d *p, O2hPhasePlane d, const float *buf, const float *w,
                            float b, size_t n, float *flat)
{
    for (size_t i = 0; i < n; i++)
        flat[i] = b;
    for (int kh = 0; kh < p->KH; kh++)
        for (int kw = 0; kw < p->KW; kw++) {
            const float *src = buf + o2h_phase_tap(p, d, kh, kw);
            float wt = w[kh * p->KW + kw];
            for (size_t i = 0; i < n; i++)
                flat[i] += wt * src[i];
        }
}

#if O2H_VEC
/* Row y[0..n) = epilogue(flat[0..n) + res[0..n)) in whole vectors. A row
 * store may run up to VL-1 floats past the row into the next ones of the
 * plane (rows are stored in order, so the next row overwrites them); only
 * where it would leave the plane (room floats left) does the last vector go
 * through a buffer. */
O2H_INLINE void o2h_dw_row_vec(const float *flat, const float *res, const O2hEpilogue *e, int n,
                               size_t room, float *y)
{
    for (int j = 0; j < n; j += O2H_VL) {
        o2h_vf x = o2h_vload(flat + j);
        if ((size_t)j + O2H_VL <= room) {
            if (res)
                x += o2h_vload(res + j);
            if (e)
                x = o2h_vact(e, x);
            o2h_vstore(y + j, x);
            continue;
        }
        float t[O2H_VL] = {0};
        int m = n - j;
        if (res) {
            o2h_copy_short(t, res + j, m);
            x += o2h_vload(t);
        }
        if (e)
            x = o2h_vact(e, x);
        o2h_vstore(t, x);
        o2h_copy_short(y + j, t, m);
    }
}
#endif

/* Compact the flat rows into y, adding the residual, then the activation
 * (in registers when it has a vector form). */
static void o2h_dw_store(const O2hConv2d *p, O2hPhasePlane d, const float *flat, const float *res,
                         const O2hEpilogue *e, int f, float *yf)
{
    size_t hwo = (size_t)p->HO * p->WO;
#if O2H_VEC
    if (!e || e->act == O2H_ACT_NONE || o2h_vact_ok(e->act)) {
        const O2hEpilogue *ev = e && e->act != O2H_ACT_NONE ? e : NULL;
        for (int oh = 0; oh < p->HO; oh++) {
            size_t o = (size_t)oh * p->WO;
            o2h_dw_row_vec(flat + (size_t)oh * d.wq, res ? res + o : NULL, ev, p->WO, hwo - o,
                           yf + o);
        }
        return;
    }
#endif
    for (int oh = 0; oh < p->HO; oh++) {
        const float *src = flat + (size_t)oh * d.wq;
        float *dst = yf + (size_t)oh * p->WO;
        if (res) {
            const float *r = res + (size_t)oh * p->WO;
            for (int ow = 0; ow < p->WO; ow++)
                dst[ow] = src[ow] + r[ow];
        } else {
            o2h_copy_short(dst, src, p->WO);
        }
    }
    if (e)
        o2h_act_row(e, yf, hwo, f);
}

/* All output channels of input channel c, read from its filled buffer. */
static void o2h_dw_outputs(const O2hConv2d *p, O2hPhasePlane d, const float *buf,
                           const size_t *off, int nn, int c, const float *w, const float *bias,
                           const O2hEpilogue *e, float *flat, float *y)
{
    int mult = p->F / p->C, ntap = p->KH * p->KW;
    size_t hwo = (size_t)p->HO * p->WO;
    size_t n = (size_t)p->HO * d.wq, nv = (n + O2H_VL - 1) / O2H_VL * O2H_VL;
    for (int m = 0; m < mult; m++) {
        int f = c * mult + m;
        size_t yoff = ((size_t)nn * p->F + f) * hwo;
        const float *wf = w + (size_t)f * ntap;
        float b = bias ? bias[f] : 0.0f;
        if (ntap <= O2H_DW_REG_TAPS)
            o2h_dw_flat(ntap, buf, off, wf, b, nv, flat);
        else
            o2h_dw_flat_big(p, d, buf, wf, b, n, flat);
        o2h_dw_store(p, d, flat, e && e->residual ? e->residual + yoff : NULL, e, f, y + yoff);
    }
}

/* ------------------------------------------- depthwise, channels in lanes */

/* Depthwise convs on small maps (at most O2H_DWL_MAX_PIX input pixels, the
 * 28x28, 14x14 and 7x7 stages of MobileNet-like nets), 3x3 or 5x5, stride 1 or 2,
 * multiplier 1: per channel the plane is too small for the flat loop above
 * to pay for its fill and store (100-200 ns a channel). Here VL channels
 * share the vector lanes: they are transposed (VL x VL blocks) into a
 * zero-padded [row][col][VL] buffer, every output pixel is K*K FMAs of whole
 * vectors by per-lane weights laid out [tap][VL], and the [pixel][VL]
 * output is transposed back, the residual and the activation applied in
 * registers on the way. */
#ifndef O2H_DWL_MAX_PIX
#define O2H_DWL_MAX_PIX 784
#endif
/* Output pixels of a row computed together (independent FMA chains). */
#define O2H_DWL_NB 4

static int o2h_dwl_ok(const O2hConv2d *p)
{
    return O2H_VEC && p->F == p->C && p->G == p->C && p->H * p->W <= O2H_DWL_MAX_PIX &&
           p->KH == p->KW && (p->KH == 3 || p->KH == 5) && p->SH == p->SW &&
           (p->SH == 1 || p->SH == 2) && p->DH == 1 && p->DW == 1 && p->PT >= 0 && p->PL >= 0 &&
           p->HO > 0 && p->WO > 0;
}

/* Scratch floats of the lanes path with vl-float vectors: 16 to align, the
 * padded input, the output pixels and the weights plus bias. */
static size_t o2h_dwl_floats(const O2hConv2d *p, int vl)
{
    size_t hp = (size_t)(p->HO - 1) * p->SH + p->KH, wp = (size_t)(p->WO - 1) * p->SW + p->KW;
    return 16 + (hp * wp + (size_t)p->HO * p->WO + (size_t)p->KH * p->KW + 1) * vl;
}

#if O2H_VEC
/* r[0..VL) (row i = lane block i) transposed in place: log2(VL) rounds of
 * interleaving row i with row i + VL/2. With AVX (8x8) the 24 shuffles
 * are spelled out: unpack pairs of rows, shuffle pairs of those, and swap
 * 128-bit halves last; the generic rounds cross the halves in every round. */
#if defined(__AVX__) && O2H_VL == 8
O2H_INLINE void o2h_vtranspose(o2h_vf *r)
{
    __m256 t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; i++) {
        u[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
        u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xee);
        u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
    }
    for (int i = 0; i < 4; i++) {
        r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
        r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
    }
}
#else
O2H_INLINE void o2h_vtranspose(o2h_vf *r)
{
    for (int round = 1; round < O2H_VL; round *= 2) {
        o2h_vf t[O2H_VL];
        for (int i = 0; i < O2H_VL / 2; i++) {
            t[2 * i] = O2H_VZIPLO(r[i], r[i + O2H_VL / 2]);
            t[2 * i + 1] = O2H_VZIPHI(r[i], r[i + O2H_VL / 2]);
        }
        for (int i = 0; i < O2H_VL; i++)
            r[i] = t[i];
    }
}
#endif

/* Columns [iw, iw + VL) of input row ih of planes x[0..nc) transposed into
 * d[0..n) (n <= VL pixels of VL channels); lanes >= nc get zero. The loads
 * may run on into the next row, never past the plane. */
O2H_INLINE void o2h_dwl_block(const float *x, int nc, size_t hw, size_t at, int n, float *d)
{
    o2h_vf r[O2H_VL];
    for (int l = 0; l < O2H_VL; l++)
        r[l] = l < nc ? o2h_vload(x + (size_t)l * hw + at) : (o2h_vf){0};
    o2h_vtranspose(r);
    for (int k = 0; k < n; k++)
        o2h_vstore(d + (size_t)k * O2H_VL, r[k]);
}

/* Input planes x[0..nc) (hw floats apart) into the padded buffer xb
 * (wp columns of VL floats; pads stay zero, lanes >= nc get zero), row by
 * row: VL columns at a time, a ragged end of a row by one more block read
 * on into the next row, and only the plane's last VL - 1 floats one by one. */
static void o2h_dwl_fill(const O2hConv2d *p, const float *x, int nc, int hp, int wp, float *xb)
{
    size_t hw = (size_t)p->H * p->W;
    int hn = p->H < hp - p->PT ? p->H : hp - p->PT, wn = p->W < wp - p->PL ? p->W : wp - p->PL;
    for (int ih = 0; ih < hn; ih++) {
        float *d = xb + ((size_t)(ih + p->PT) * wp + p->PL) * O2H_VL;
        size_t at = (size_t)ih * p->W;
        int iw = 0;
        for (; iw + O2H_VL <= wn; iw += O2H_VL)
            o2h_dwl_block(x, nc, hw, at + iw, O2H_VL, d + (size_t)iw * O2H_VL);
        if (iw < wn && at + iw + O2H_VL <= hw) {
            o2h_dwl_block(x, nc, hw, at + iw, wn - iw, d + (size_t)iw * O2H_VL);
            continue;
        }
        for (; iw < wn; iw++)
            for (int l = 0; l < O2H_VL; l++)
                d[(size_t)iw * O2H_VL + l] = l < nc ? x[(size_t)l * hw + at + iw] : 0.0f;
    }
}

/* nb output pixels of a row, s apart in the input: out[v] = bias +
 * sum over taps of wv[tap] * the input vector under it. */
O2H_INLINE void o2h_dwl_pix(int nb, int k, int s, int wp, const float *xb, const float *wv,
                            o2h_vf bv, float *out)
{
    o2h_vf acc[O2H_DWL_NB];
    for (int v = 0; v < nb; v++)
        acc[v] = bv;
    for (int kh = 0; kh < k; kh++)
        for (int kw = 0; kw < k; kw++) {
            o2h_vf wt = o2h_vload(wv + (kh * k + kw) * O2H_VL);
            const float *src = xb + ((size_t)kh * wp + kw) * O2H_VL;
            for (int v = 0; v < nb; v++)
                acc[v] += wt * o2h_vload(src + (size_t)v * s * O2H_VL);
        }
    for (int v = 0; v < nb; v++)
        o2h_vstore(out + (size_t)v * O2H_VL, acc[v]);
}

/* All output pixels of the group (k and s constant after inlining). */
O2H_INLINE void o2h_dwl_compute(const O2hConv2d *p, int k, int s, int wp, const float *xb,
                                const float *wv, float *ob)
{
    o2h_vf bv = o2h_vload(wv + k * k * O2H_VL);
    for (int oh = 0; oh < p->HO; oh++) {
        const float *xr = xb + (size_t)oh * s * wp * O2H_VL;
        float *orow = ob + (size_t)oh * p->WO * O2H_VL;
        int ow = 0;
        for (; ow + O2H_DWL_NB <= p->WO; ow += O2H_DWL_NB)
            o2h_dwl_pix(O2H_DWL_NB, k, s, wp, xr + (size_t)ow * s * O2H_VL, wv, bv,
                        orow + (size_t)ow * O2H_VL);
        switch (p->WO - ow) {
        case 3: o2h_dwl_pix(3, k, s, wp, xr + (size_t)ow * s * O2H_VL, wv, bv, orow + (size_t)ow * O2H_VL); break;
        case 2: o2h_dwl_pix(2, k, s, wp, xr + (size_t)ow * s * O2H_VL, wv, bv, orow + (size_t)ow * O2H_VL); break;
        case 1: o2h_dwl_pix(1, k, s, wp, xr + (size_t)ow * s * O2H_VL, wv, bv, orow + (size_t)ow * O2H_VL); break;
        default: break;
        }
    }
}

/* Output pixels ob ([pixel][VL]) back into planes y[0..nc) with the
 * residual and (ev) the activation in registers, its kind k constant
 * after inlining. */
O2H_INLINE void o2h_dwl_store_as(const O2hConv2d *p, const float *ob, int nc, const float *res,
                                 const O2hEpilogue *ev, O2hActKind k, float *y)
{
    int hwo = p->HO * p->WO, p0 = 0;
    for (; p0 + O2H_VL <= hwo; p0 += O2H_VL) {
        o2h_vf r[O2H_VL];
        for (int q = 0; q < O2H_VL; q++)
            r[q] = o2h_vload(ob + (size_t)(p0 + q) * O2H_VL);
        o2h_vtranspose(r);
        for (int l = 0; l < nc; l++) {
            o2h_vf v = r[l];
            if (res)
                v += o2h_vload(res + (size_t)l * hwo + p0);
            o2h_vstore(y + (size_t)l * hwo + p0, o2h_vact_as(k, ev, v));
        }
    }
    if (p0 == hwo)
        return;
    int m = hwo - p0;
    for (int l = 0; l < nc; l++) {
        float t[O2H_VL] = {0};
        for (int q = 0; q < m; q++)
            t[q] = ob[(size_t)(p0 + q) * O2H_VL + l] + (res ? res[(size_t)l * hwo + p0 + q] : 0.0f);
        o2h_vstore(t, o2h_vact_as(k, ev, o2h_vload(t)));
        memcpy(y + (size_t)l * hwo + p0, t, (size_t)m * sizeof *t);
    }
}

/* The store compiled for the common kinds (one switch per group of
 * channels, not one per vector). */
static void o2h_dwl_store(const O2hConv2d *p, const float *ob, int nc, const float *res,
                          const O2hEpilogue *ev, float *y)
{
    switch (ev ? ev->act : O2H_ACT_NONE) {
    case O2H_ACT_NONE: o2h_dwl_store_as(p, ob, nc, res, ev, O2H_ACT_NONE, y); return;
    case O2H_ACT_RELU: o2h_dwl_store_as(p, ob, nc, res, ev, O2H_ACT_RELU, y); return;
    case O2H_ACT_CLIP: o2h_dwl_store_as(p, ob, nc, res, ev, O2H_ACT_CLIP, y); return;
    case O2H_ACT_SILU: o2h_dwl_store_as(p, ob, nc, res, ev, O2H_ACT_SILU, y); return;
    default: o2h_dwl_store_as(p, ob, nc, res, ev, ev->act, y); return;
    }
}

static void o2h_conv_dwl(const O2hConv2d *p, const float *x, const float *w, const float *bias,
                         const O2hEpilogue *e, float *y, float *scratch)
{
    int k = p->KH, s = p->SH, ntap = k * k;
    int hp = (p->HO - 1) * s + k, wp = (p->WO - 1) * s + k;
    size_t hw = (size_t)p->H * p->W, hwo = (size_t)p->HO * p->WO;
    float *xb = (float *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    float *ob = xb + (size_t)hp * wp * O2H_VL, *wv = ob + hwo * O2H_VL;
    int act = e && e->act != O2H_ACT_NONE;
    const O2hEpilogue *ev = act && o2h_vact_ok(e->act) ? e : NULL;
    memset(xb, 0, (size_t)hp * wp * O2H_VL * sizeof *xb);
    for (int n = 0; n < p->N; n++)
        for (int c0 = 0; c0 < p->C; c0 += O2H_VL) {
            int nc = p->C - c0 < O2H_VL ? p->C - c0 : O2H_VL;
            size_t o = ((size_t)n * p->C + c0) * hwo;
            for (int t = 0; t < ntap; t++)
                for (int l = 0; l < O2H_VL; l++)
                    wv[t * O2H_VL + l] = l < nc ? w[(size_t)(c0 + l) * ntap + t] : 0.0f;
            for (int l = 0; l < O2H_VL; l++)
                wv[ntap * O2H_VL + l] = l < nc && bias ? bias[c0 + l] : 0.0f;
            o2h_dwl_fill(p, x + ((size_t)n * p->C + c0) * hw, nc, hp, wp, xb);
            if (k == 3 && s == 1)
                o2h_dwl_compute(p, 3, 1, wp, xb, wv, ob);
            else if (k == 3)
                o2h_dwl_compute(p, 3, 2, wp, xb, wv, ob);
            else if (s == 1)
                o2h_dwl_compute(p, 5, 1, wp, xb, wv, ob);
            else
                o2h_dwl_compute(p, 5, 2, wp, xb, wv, ob);
            o2h_dwl_store(p, ob, nc, e && e->residual ? e->residual + o : NULL, ev, y + o);
            for (int l = 0; act && !ev && l < nc; l++)
                o2h_act_row(e, y + o + (size_t)l * hwo, hwo, c0 + l);
        }
}
#endif

/* ------------------------------------------ depthwise, rows in registers */

/* Depthwise convs on maps whose rows fit one vector and whose output rows
 * fill more than half of it (W, H <= VL < 2*WO: 14x14 stride 1 with
 * AVX-512, 7x7 stride 1 with AVX), 3x3 or 5x5, stride 1 or 2, multiplier 1,
 * left pad K/2 or K/2 - 1. A channel's rows are loaded once, their lanes
 * past W zeroed, and each row is shuffled into the K column taps the
 * outputs need (output lane l of tap kw reads column s*l + kw - PL, zero
 * outside the row), so an output row is K*K FMAs of whole vectors by
 * broadcast weights (four rows at a time) and nothing is transposed or
 * copied through a padded buffer: 0.45-0.85x the time of the channels-in-
 * lanes form on 14x14 (AVX-512), 0.7x on 7x7 (AVX). Narrower outputs (7x7
 * or stride 2 with AVX-512) waste too many lanes and stay with it. */
#if O2H_VEC && O2H_VL >= 8
/* Index of lane l of a tap: column s*l + d of a row vector, or VL (a lane
 * of the zero vector) outside it. */
#define O2H_DWR_I(s, d, l) ((s) * (l) + (d) >= 0 && (s) * (l) + (d) < O2H_VL ? (s) * (l) + (d) : O2H_VL)
#define O2H_DWR_I8(s, d, l) O2H_DWR_I(s, d, l), O2H_DWR_I(s, d, l + 1), O2H_DWR_I(s, d, l + 2), \
    O2H_DWR_I(s, d, l + 3), O2H_DWR_I(s, d, l + 4), O2H_DWR_I(s, d, l + 5),                   \
    O2H_DWR_I(s, d, l + 6), O2H_DWR_I(s, d, l + 7)
#if O2H_VL == 16
#define O2H_DWR_IDX(s, d) O2H_DWR_I8(s, d, 0), O2H_DWR_I8(s, d, 8)
#else
#define O2H_DWR_IDX(s, d) O2H_DWR_I8(s, d, 0)
#endif
#if defined(__clang__)
#define O2H_DWR_SHUF(r, s, d) __builtin_shufflevector((r), (o2h_vf){0}, O2H_DWR_IDX(s, d))
#else
#define O2H_DWR_SHUF(r, s, d) __builtin_shuffle((r), (o2h_vf){0}, (o2h_vi){O2H_DWR_IDX(s, d)})
#endif
#define O2H_DWR_CASE(s, d) \
    case (s) * 16 + (d) + 8: return O2H_DWR_SHUF(r, s, d)

/* Tap of row r at stride s and column offset d (-4..4); both constant
 * after inlining, so one shuffle. */
O2H_INLINE o2h_vf o2h_dwr_tap(o2h_vf r, int s, int d)
{
    switch (s * 16 + d + 8) {
    O2H_DWR_CASE(1, -4); O2H_DWR_CASE(1, -3); O2H_DWR_CASE(1, -2); O2H_DWR_CASE(1, -1);
    O2H_DWR_CASE(1, 1); O2H_DWR_CASE(1, 2); O2H_DWR_CASE(1, 3); O2H_DWR_CASE(1, 4);
    O2H_DWR_CASE(2, -4); O2H_DWR_CASE(2, -3); O2H_DWR_CASE(2, -2); O2H_DWR_CASE(2, -1);
    O2H_DWR_CASE(2, 0); O2H_DWR_CASE(2, 1); O2H_DWR_CASE(2, 2); O2H_DWR_CASE(2, 3);
    O2H_DWR_CASE(2, 4);
    default: return r;
    }
}

/* Padded rows of the tap buffer: input rows plus at most 4 pad rows each side. */
#define O2H_DWR_ROWS (O2H_VL + 8)

static int o2h_dwr_ok(const O2hConv2d *p)
{
    int k = p->KH;
    return p->F == p->C && p->G == p->C && p->KW == k && (k == 3 || k == 5) &&
           p->SH == p->SW && (p->SH == 1 || p->SH == 2) && p->DH == 1 && p->DW == 1 &&
           p->W <= O2H_VL && p->H <= O2H_VL && p->WO <= O2H_VL && 2 * p->WO > O2H_VL && p->PT >= 0 && p->PT < k &&
           (p->PL == k / 2 || p->PL == k / 2 - 1) && p->HO > 0 && p->WO > 0 &&
           (p->HO - 1) * p->SH + k <= O2H_DWR_ROWS;
}

/* A plane's shape as locals (the vector stores may alias *p) and its
 * epilogue: RELU and CLIP are a clamp to [lo, hi] in registers (other
 * activations, whose code would crowd the registers out of this loop, go
 * over the stored plane). Every row is read and written as a whole vector,
 * which may run into the next rows and planes (written after it); the last
 * plane goes through scratch with room for that. */
typedef struct {
    int h, w, ho, wo, pt, clamp;
    float lo, hi;
    const float *res;
} O2hDwr;

/* 3x3 stride 1, rows wider than a vector (see o2h_dwv_row). */
static int o2h_dwv_ok(const O2hConv2d *p)
{
    return p->F == p->C && p->G == p->C && p->KH == 3 && p->KW == 3 && p->SH == 1 &&
           p->SW == 1 && p->DH == 1 && p->DW == 1 && p->W > O2H_VL && p->PT >= 0 &&
           p->PT < 3 && (p->PL == 0 || p->PL == 1) && p->HO > 0 && p->WO > 0;
}

/* 3x3 stride 2 with output rows over half a vector, on inputs wider than
 * 16 (see o2h_dwv2_row; on 14x14 inputs with AVX the channels-in-lanes
 * form is 1.1x faster). */
static int o2h_dwv2_ok(const O2hConv2d *p)
{
    return p->F == p->C && p->G == p->C && p->KH == 3 && p->KW == 3 && p->SH == 2 &&
           p->SW == 2 && p->DH == 1 && p->DW == 1 && p->W > 16 && 2 * p->WO > O2H_VL &&
           p->PT >= 0 && p->PT < 3 && (p->PL == 0 || p->PL == 1) && p->HO > 0;
}

/* Row i of plane x with lanes >= w zero. */
O2H_INLINE o2h_vf o2h_dwr_row(const O2hDwr *g, const float *x, int i, o2h_vi keep)
{
    return o2h_vselect(keep, o2h_vload(x + (size_t)i * g->w), (o2h_vf){0});
}

/* y[o..o+VL) = act(v + residual). */
O2H_INLINE void o2h_dwr_store(const O2hDwr *g, o2h_vf v, size_t o, float *y)
{
    if (g->res)
        v += o2h_vload(g->res + o);
    if (g->clamp)
        v = o2h_vmin(o2h_vmax(v, o2h_vset1(g->lo)), o2h_vset1(g->hi));
    o2h_vstore(y + o, v);
}

/* Output rows oh..oh+nb of a channel from its taps: one accumulator per
 * row and filter row, so nb*k independent FMA chains. */
O2H_INLINE void o2h_dwr_rows(const O2hDwr *g, int k, int s, int nb, int oh, o2h_vf (*tap)[5],
                             const float *wf, float b, float *y)
{
    o2h_vf acc[4][5];
    for (int v = 0; v < nb; v++)
        for (int kh = 0; kh < k; kh++)
            acc[v][kh] = o2h_vset1(kh ? 0.0f : b);
    for (int kh = 0; kh < k; kh++)
        for (int kw = 0; kw < k; kw++) {
            o2h_vf wt = o2h_vset1(wf[kh * k + kw]);
            for (int v = 0; v < nb; v++)
                acc[v][kh] += wt * tap[(oh + v) * s + kh][kw];
        }
    for (int v = 0; v < nb; v++) {
        for (int kh = 1; kh < k; kh++)
            acc[v][0] += acc[v][kh];
        o2h_dwr_store(g, acc[v][0], (size_t)(oh + v) * g->wo, y);
    }
}

/* One channel (k, s and the left pad pl constant after inlining): taps of
 * every padded row, then the output rows four at a time. */
O2H_INLINE void o2h_dwr_plane(O2hDwr g, int k, int s, int pl, const float *x, const float *wf,
                              float b, float *y)
{
    o2h_vf tap[O2H_DWR_ROWS][5];
    o2h_vi keep = o2h_lane_idx() < g.w;
    int hp = (g.ho - 1) * s + k, oh = 0;
    for (int j = 0; j < hp; j++) {
        int i = j - g.pt;
        o2h_vf r = i >= 0 && i < g.h ? o2h_dwr_row(&g, x, i, keep) : (o2h_vf){0};
        for (int kw = 0; kw < k; kw++)
            tap[j][kw] = o2h_dwr_tap(r, s, kw - pl);
    }
    for (; oh + 4 <= g.ho; oh += 4)
        o2h_dwr_rows(&g, k, s, 4, oh, tap, wf, b, y);
    switch (g.ho - oh) {
    case 3: o2h_dwr_rows(&g, k, s, 3, oh, tap, wf, b, y); break;
    case 2: o2h_dwr_rows(&g, k, s, 2, oh, tap, wf, b, y); break;
    case 1: o2h_dwr_rows(&g, k, s, 1, oh, tap, wf, b, y); break;
    default: break;
    }
}

/* Ask for the n floats at x (the next plane) ahead of their loads, a
 * cache line at a time: on planes of up to 16 lines (14x14) all of a
 * plane's row loads issue at once and wait on the cache misses; larger
 * planes are streamed well enough by the hardware (there it costs 3-9%). */
#define O2H_DW_PREFETCH_MAX 256
O2H_INLINE void o2h_prefetch_plane(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i += 16)
        __builtin_prefetch(x + i);
}

/* A run of consecutive planes of one image, channels c..c+n, handed to a
 * kernel in one call: the kernel loops over them with its shape's set-up
 * (masks, dispatch on k, s and pad) done once, which on 14x14 and 7x7
 * outputs was a fifth to a third of the time when paid per plane. act:
 * an activation applied to each finished plane (one that is not a clamp),
 * or NULL. */
typedef struct {
    const float *x, *w, *bias;
    float *y;
    const O2hEpilogue *act;
    size_t hw, hwo;
    int c, n, ntap;
} O2hDwRun;

/* The current plane's weights and bias. */
O2H_INLINE const float *o2h_dw_wf(const O2hDwRun *r) { return r->w + (size_t)r->c * r->ntap; }
O2H_INLINE float o2h_dw_b(const O2hDwRun *r) { return r->bias ? r->bias[r->c] : 0.0f; }

/* The current plane is done: its activation, then on to the next, whose
 * successor is prefetched. */
O2H_INLINE void o2h_dw_next(O2hDwr *g, O2hDwRun *r)
{
    if (r->act)
        o2h_act_row(r->act, r->y, r->hwo, r->c);
    r->x += r->hw;
    r->y += r->hwo;
    r->c++;
    if (g->res)
        g->res += r->hwo;
    if (r->hw <= O2H_DW_PREFETCH_MAX)
        o2h_prefetch_plane(r->x + r->hw, r->hw);
}

/* Every plane of run r (g and r are the kernel's local copies). */
#define O2H_DW_EACH(g, r) for (int k_ = 0; k_ < (r).n; k_++, o2h_dw_next(&(g), &(r)))

/* The plane kernel for the shape's k, s and left pad (k/2 or k/2 - 1). */
static void o2h_dwr_any(const O2hConv2d *p, O2hDwr g, O2hDwRun r, float *zrow)
{
    (void)zrow;
    int lo = p->PL < p->KH / 2;
    if (p->KH == 3 && p->SH == 1)
        O2H_DW_EACH(g, r) lo ? o2h_dwr_plane(g, 3, 1, 0, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), r.y)
                             : o2h_dwr_plane(g, 3, 1, 1, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), r.y);
    else if (p->KH == 3)
        O2H_DW_EACH(g, r) lo ? o2h_dwr_plane(g, 3, 2, 0, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), r.y)
                             : o2h_dwr_plane(g, 3, 2, 1, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), r.y);
    else if (p->SH == 1)
        O2H_DW_EACH(g, r) lo ? o2h_dwr_plane(g, 5, 1, 1, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), r.y)
                             : o2h_dwr_plane(g, 5, 1, 2, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), r.y);
    else
        O2H_DW_EACH(g, r) lo ? o2h_dwr_plane(g, 5, 2, 1, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), r.y)
                             : o2h_dwr_plane(g, 5, 2, 2, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), r.y);
}

/* A run of planes through a rows-in-vectors kernel. */
typedef void (*O2hDwPlanes)(const O2hConv2d *p, O2hDwr g, O2hDwRun r, float *zrow);

/* Every plane through kern with the epilogue set up in g, a run per image;
 * the last plane's input, residual and output go through scratch so that
 * whole-vector reads and writes stay inside the buffers (see
 * o2h_dwr_floats); zrow (zero row) follows them, then the split-row ring
 * (o2h_dwe_any). */
static void o2h_dw_planes(const O2hConv2d *p, const float *x, const float *w, const float *bias,
                          const O2hEpilogue *e, float *y, float *scratch, O2hDwPlanes kern)
{
    size_t hw = (size_t)p->H * p->W, hwo = (size_t)p->HO * p->WO;
    float *xs = scratch, *rs = xs + hw + O2H_VL, *zrow = rs + 2 * (hwo + O2H_VL), *ys = rs + hwo + O2H_VL;
    const float *res = e && e->residual ? e->residual : NULL;
    O2hDwr g = {p->H, p->W, p->HO, p->WO, p->PT, 0, 0.0f, 0.0f, NULL};
    g.clamp = o2h_act_clamp(e, &g.lo, &g.hi);
    O2hDwRun r = {x, w, bias, y, e && e->act != O2H_ACT_NONE && !g.clamp ? e : NULL, hw, hwo, 0, p->C,
                  p->KH * p->KW};
    memset(zrow, 0, ((size_t)p->W + 2 * O2H_VL) * sizeof *zrow);
    for (int n = 0; n < p->N; n++, r.x += p->C * hw, r.y += p->C * hwo) {
        r.n = n == p->N - 1 ? p->C - 1 : p->C;
        g.res = res ? res + (size_t)n * p->C * hwo : NULL;
        if (hw <= O2H_DW_PREFETCH_MAX)
            o2h_prefetch_plane(r.x + hw, hw);
        kern(p, g, r, zrow);
    }
    size_t last = ((size_t)p->N * p->C - 1);
    O2hDwRun rl = {memcpy(xs, x + last * hw, hw * sizeof *xs), w, bias, ys, r.act, hw, hwo, p->C - 1, 1,
                   r.ntap};
    g.res = res ? memcpy(rs, res + last * hwo, hwo * sizeof *rs) : NULL;
    kern(p, g, rl, zrow);
    memcpy(y + last * hwo, ys, hwo * sizeof *ys);
}

/* ------------------------------------------- depthwise, rows as vectors */

/* Depthwise 3x3 convs with stride 1 on maps wider than a vector (28x28
 * and up with AVX-512, 14x14 and up with AVX), multiplier 1, left pad 0 or
 * 1: each output row is a run of vectors, and the input rows under it are
 * read once each as whole vectors (prev, cur, next per filter row, sliding
 * along the row); a tap at column offset d is one two-source shuffle of cur
 * with prev or next, so an output vector costs 3 loads, 6 shuffles and 9
 * FMAs, with no padded copy of the plane and no split loads re-reading
 * every input pixel 9 times: 0.5-0.8x the time of the flat loop or the
 * channels-in-lanes form (with AVX-512 two output rows share their input
 * vectors' loads and shuffles, see o2h_dwv_row2, another 0.75-0.9x).
 * Rows past the map read a zero row. (5x5 filters,
 * 20 shuffles a vector, gain nothing and stay with those.) */
#define O2H_SEQ4(o) (o), (o) + 1, (o) + 2, (o) + 3
#define O2H_SEQ8(o) O2H_SEQ4(o), O2H_SEQ4((o) + 4)
#if O2H_VL == 16
#define O2H_SEQ(o) O2H_SEQ8(o), O2H_SEQ8((o) + 8)
#else
#define O2H_SEQ(o) O2H_SEQ8(o)
#endif
#if defined(__clang__)
#define O2H_DWV_SHUF(a, b, o) __builtin_shufflevector((a), (b), O2H_SEQ(o))
#else
#define O2H_DWV_SHUF(a, b, o) __builtin_shuffle((a), (b), (o2h_vi){O2H_SEQ(o)})
#endif
#define O2H_DWV_LEFT(d) \
    case (d) + 4: return O2H_DWV_SHUF(prev, cur, O2H_VL + (d))
#define O2H_DWV_RIGHT(d) \
    case (d) + 4: return O2H_DWV_SHUF(cur, next, (d))

/* Columns c + d of the vector cur at column c (d in -1..2, constant after
 * inlining), prev and next its neighbours. */
O2H_INLINE o2h_vf o2h_dwv_tap(o2h_vf prev, o2h_vf cur, o2h_vf next, int d)
{
    switch (d + 4) {
    O2H_DWV_LEFT(-1);
    O2H_DWV_RIGHT(1);
    O2H_DWV_RIGHT(2);
    default: return cur;
    }
}

/* Columns [c, c+VL) of row r (w columns), zero past its end. */
O2H_INLINE o2h_vf o2h_dwv_load(const float *r, int c, int w)
{
    if (c + O2H_VL <= w)
        return o2h_vload(r + c);
    if (c >= w)
        return (o2h_vf){0};
    return o2h_vselect(o2h_lane_idx() < w - c, o2h_vload(r + c), (o2h_vf){0});
}

/* Output row oh (pl constant after inlining). */
O2H_INLINE void o2h_dwv_row(const O2hDwr *g, int pl, const float *x, const float *wf, float b,
                            const float *zrow, int oh, float *y)
{
    const int k = 3;
    const float *row[3];
    o2h_vf prev[3], cur[3];
    for (int kh = 0; kh < k; kh++) {
        int i = oh + kh - g->pt;
        row[kh] = i >= 0 && i < g->h ? x + (size_t)i * g->w : zrow;
        prev[kh] = (o2h_vf){0};
        cur[kh] = o2h_dwv_load(row[kh], 0, g->w);
    }
    for (int c = 0; c < g->wo; c += O2H_VL) {
        o2h_vf acc = o2h_vset1(b), acc2 = (o2h_vf){0};
        for (int kh = 0; kh < k; kh++) {
            o2h_vf next = o2h_dwv_load(row[kh], c + O2H_VL, g->w);
            for (int kw = 0; kw < k; kw++) {
                o2h_vf t = o2h_vset1(wf[kh * k + kw]) * o2h_dwv_tap(prev[kh], cur[kh], next, kw - pl);
                if (kh & 1)
                    acc2 += t;
                else
                    acc += t;
            }
            prev[kh] = cur[kh];
            cur[kh] = next;
        }
        o2h_dwr_store(g, acc + acc2, (size_t)oh * g->wo + c, y);
    }
}

/* o2h_dwv_load for rows of nv vectors at most (nv constant after
 * inlining; 0: any width). */
O2H_INLINE o2h_vf o2h_dwv_loadn(const float *r, int c, int w, int nv)
{
    if (nv && c >= nv * O2H_VL)
        return (o2h_vf){0};
    return o2h_dwv_load(r, c, w);
}

/* Output rows oh and oh + 1 from the four input rows under them: each
 * input vector is loaded and shuffled into its taps once for both rows.
 * Row oh's last vector may run into row oh + 1, so that row's first vector
 * is stored after it. nv (constant after inlining) is the row's vectors
 * when known (2 on 28x28: no loop, no width tests), else 0. */
O2H_INLINE void o2h_dwv_row2(const O2hDwr *g, int pl, int nv, const float *x, const float *wf,
                             float b, const float *zrow, int oh, float *y)
{
    const float *row[4];
    o2h_vf prev[4], cur[4], first = {0};
    int wo = nv ? nv * O2H_VL : g->wo;
    for (int j = 0; j < 4; j++) {
        int i = oh + j - g->pt;
        row[j] = i >= 0 && i < g->h ? x + (size_t)i * g->w : zrow;
        prev[j] = (o2h_vf){0};
        cur[j] = o2h_dwv_load(row[j], 0, g->w);
    }
    for (int c = 0; c < wo; c += O2H_VL) {
        o2h_vf acc[2][2] = {{o2h_vset1(b), (o2h_vf){0}}, {o2h_vset1(b), (o2h_vf){0}}};
        for (int j = 0; j < 4; j++) {
            o2h_vf next = o2h_dwv_loadn(row[j], c + O2H_VL, g->w, nv);
            for (int kw = 0; kw < 3; kw++) {
                o2h_vf t = o2h_dwv_tap(prev[j], cur[j], next, kw - pl);
                if (j < 3)
                    acc[0][j & 1] += o2h_vset1(wf[j * 3 + kw]) * t;
                if (j > 0)
                    acc[1][(j - 1) & 1] += o2h_vset1(wf[(j - 1) * 3 + kw]) * t;
            }
            prev[j] = cur[j];
            cur[j] = next;
        }
        o2h_dwr_store(g, acc[0][0] + acc[0][1], (size_t)oh * g->wo + c, y);
        if (c == 0)
            first = acc[1][0] + acc[1][1];
        else
            o2h_dwr_store(g, acc[1][0] + acc[1][1], (size_t)(oh + 1) * g->wo + c, y);
    }
    o2h_dwr_store(g, first, (size_t)(oh + 1) * g->wo, y);
}

/* One plane (pl constant after inlining), two rows at a time with
 * AVX-512 (with AVX's 16 registers that form spills and is slower), rows
 * of two vectors apart. */
O2H_INLINE void o2h_dwv_plane(const O2hDwr *g, int pl, const float *x, const float *wf, float b,
                              const float *zrow, float *y)
{
    int oh = 0;
    if (g->wo > O2H_VL && g->wo <= 2 * O2H_VL && g->w <= 2 * O2H_VL)
        for (; O2H_VL == 16 && oh + 2 <= g->ho; oh += 2)
            o2h_dwv_row2(g, pl, 2, x, wf, b, zrow, oh, y);
    for (; O2H_VL == 16 && oh + 2 <= g->ho; oh += 2)
        o2h_dwv_row2(g, pl, 0, x, wf, b, zrow, oh, y);
    for (; oh < g->ho; oh++)
        o2h_dwv_row(g, pl, x, wf, b, zrow, oh, y);
}

#if defined(__AVX__) && !defined(__AVX512F__)
/* With AVX the tap shuffles above cross 128-bit lanes (two instructions
 * each) and a 14- or 28-wide row is a few vectors with a tail, so the
 * per-row set-up dominates. Here a tap is an unaligned load at column
 * c + d of the input row, so a row's vectors are independent; only the
 * left tap of the first vector and the right tap of the last are masked
 * (vmaskmovps: zero lanes, no fault), with masks set once per plane. Lanes
 * past the output row read whatever follows the row (the next row or
 * plane, or the scratch copy of the last plane) and are overwritten by the
 * next row's first vector, as elsewhere. Needs wo - pl < w (the middle
 * tap of a valid lane stays inside the row). In MobileNetV1 at x86-64-v3
 * (model --profile) 0.6-0.7x the time of the shuffle form: 14x14 0.110 ->
 * 0.075 ms, 28x28 0.163 -> 0.107, 56x56 0.24 -> 0.15, 112x112 0.233 ->
 * 0.141. */
O2H_INLINE o2h_vi o2h_dwm_mask(int e, int w)
{
    o2h_vi lane = o2h_lane_idx();
    return (lane >= -e) & (lane < w - e);
}

/* Output vectors (oh + v, c), v < nr (1 or 2, constant after inlining),
 * from rows r[nr + 2] (at column -pl) at column c: each input load feeds the filter
 * rows of both outputs that cover it (12 loads for two outputs instead of
 * 18), and the two outputs' FMA chains are independent; each output sums
 * its taps in the same order as alone. mk bit kw: tap kw is masked by
 * m[kw]. */
O2H_INLINE void o2h_dwm_vec(const O2hDwr *g, int nr, int mk, const o2h_vi *m, const float *const *r,
                            int c, const o2h_vf *wt, float b, size_t o, float *y)
{
    o2h_vf acc[2][2] = {{o2h_vset1(b), (o2h_vf){0}}, {o2h_vset1(b), (o2h_vf){0}}};
    for (int j = 0; j < nr + 2; j++)
        for (int kw = 0; kw < 3; kw++) {
            const float *a = r[j] + c + kw;
            o2h_vf v = (mk >> kw) & 1 ? (o2h_vf)_mm256_maskload_ps(a, (__m256i)m[kw]) : o2h_vload(a);
            for (int u = 0; u < nr; u++)
                if (j - u >= 0 && j - u < 3)
                    acc[u][(j - u) & 1] += wt[(j - u) * 3 + kw] * v;
        }
    for (int u = 0; u < nr; u++)
        o2h_dwr_store(g, acc[u][0] + acc[u][1], o + (size_t)u * g->wo + c, y);
}

/* Output rows oh..oh+nr (nr constant after inlining). The last vector of
 * a row may run into the next row, so it is stored before the first. */
O2H_INLINE void o2h_dwm_rows(const O2hDwr *g, int nr, int pl, int last, const o2h_vi *m,
                             const o2h_vf *wt, const float *x, float b, const float *zrow, int oh,
                             float *y)
{
    const float *r[4];
    for (int j = 0; j < nr + 2; j++) {
        int i = oh + j - g->pt;
        r[j] = (i >= 0 && i < g->h ? x + (size_t)i * g->w : zrow) - pl;
    }
    size_t o = (size_t)oh * g->wo;
    if (last == 0) {
        o2h_dwm_vec(g, nr, 4 | pl, m, r, 0, wt, b, o, y);
        return;
    }
    o2h_dwm_vec(g, nr, 4, m, r, last, wt, b, o, y);
    o2h_dwm_vec(g, nr, pl, m, r, 0, wt, b, o, y);
    for (int c = O2H_VL; c < last; c += O2H_VL)
        o2h_dwm_vec(g, nr, 0, m, r, c, wt, b, o, y);
}

/* One plane (pl constant after inlining), two output rows at a time on
 * rows of up to two vectors (14x14: 0.85x the time of one at a time); on
 * wider rows the pairs are no faster (56x56, 112x112: 1.05x slower). */
O2H_INLINE void o2h_dwm_plane(const O2hDwr *g, int pl, const float *x, const float *wf, float b,
                              const float *zrow, float *y)
{
    int last = (g->wo - 1) / O2H_VL * O2H_VL, oh = 0;
    o2h_vf wt[9];
    o2h_vi m[3] = {o2h_dwm_mask(-pl, g->w), o2h_lane_idx() >= 0, o2h_dwm_mask(last + 2 - pl, g->w)};
    for (int t = 0; t < 9; t++)
        wt[t] = o2h_vset1(wf[t]);
    for (; last <= O2H_VL && oh + 2 <= g->ho; oh += 2)
        o2h_dwm_rows(g, 2, pl, last, m, wt, x, b, zrow, oh, y);
    for (; oh < g->ho; oh++)
        o2h_dwm_rows(g, 1, pl, last, m, wt, x, b, zrow, oh, y);
}
#endif

static void o2h_dwv_any(const O2hConv2d *p, O2hDwr g, O2hDwRun r, float *zrow)
{
#if defined(__AVX__) && !defined(__AVX512F__)
    if (g.wo - p->PL < g.w) {
        if (p->PL == 0)
            O2H_DW_EACH(g, r) o2h_dwm_plane(&g, 0, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), zrow, r.y);
        else
            O2H_DW_EACH(g, r) o2h_dwm_plane(&g, 1, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), zrow, r.y);
        return;
    }
#endif
    if (p->PL == 0)
        O2H_DW_EACH(g, r) o2h_dwv_plane(&g, 0, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), zrow, r.y);
    else
        O2H_DW_EACH(g, r) o2h_dwv_plane(&g, 1, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), zrow, r.y);
}

/* Stride 2 (3x3, left pad 0 or 1): output vector c covers input columns
 * 2c + 2l + d; the even and odd columns of two input vectors give d = 0
 * and 1, the previous odd vector shifted in gives d = -1 and the next even
 * one d = 2. Per filter row the state slides by one output vector (two
 * loads, two deinterleaving shuffles), so an output vector costs 6 loads,
 * 9 shuffles at most and 9 FMAs. */
typedef struct {
    o2h_vf po, ce, co;   /* previous odd, current even and odd columns */
} O2hDwvS2;

/* Columns 2l + d of the current pair (d in -1..2, constant after
 * inlining); ne the next even columns. */
O2H_INLINE o2h_vf o2h_dwv2_tap(const O2hDwvS2 *t, o2h_vf ne, int d)
{
    switch (d + 1) {
    case 0: return O2H_DWV_SHUF(t->po, t->co, O2H_VL - 1);
    case 1: return t->ce;
    case 2: return t->co;
    default: return O2H_DWV_SHUF(t->ce, ne, 1);
    }
}

/* Even and odd columns of row r from input column c (two vectors). */
O2H_INLINE void o2h_dwv2_load(const float *r, int c, int w, o2h_vf *ev, o2h_vf *od)
{
    o2h_vf a = o2h_dwv_load(r, c, w), b = o2h_dwv_load(r, c + O2H_VL, w);
    *ev = O2H_VEVEN(a, b);
    *od = O2H_VODD(a, b);
}

/* Output row oh with stride 2 (pl constant after inlining; nv, when not
 * 0, the output row's vectors, the input row at most twice as many, also
 * constant: no loop, no width tests). */
O2H_INLINE void o2h_dwv2_row(const O2hDwr *g, int pl, int nv, const float *x, const float *wf,
                             float b, const float *zrow, int oh, float *y)
{
    int wo = nv ? nv * O2H_VL : g->wo;
    const float *row[3];
    O2hDwvS2 st[3];
    for (int kh = 0; kh < 3; kh++) {
        int i = 2 * oh + kh - g->pt;
        row[kh] = i >= 0 && i < g->h ? x + (size_t)i * g->w : zrow;
        st[kh].po = (o2h_vf){0};
        o2h_dwv2_load(row[kh], 0, g->w, &st[kh].ce, &st[kh].co);
    }
    for (int c = 0; c < wo; c += O2H_VL) {
        o2h_vf acc = o2h_vset1(b), acc2 = (o2h_vf){0};
        for (int kh = 0; kh < 3; kh++) {
            O2hDwvS2 *t = &st[kh];
            o2h_vf ne = {0}, no = {0};
            if (!nv || c + O2H_VL < wo)
                o2h_dwv2_load(row[kh], 2 * (c + O2H_VL), g->w, &ne, &no);
            for (int kw = 0; kw < 3; kw++) {
                o2h_vf v = o2h_vset1(wf[kh * 3 + kw]) * o2h_dwv2_tap(t, ne, kw - pl);
                if (kh & 1)
                    acc2 += v;
                else
                    acc += v;
            }
            t->po = t->co;
            t->ce = ne;
            t->co = no;
        }
        o2h_dwr_store(g, acc + acc2, (size_t)oh * g->wo + c, y);
    }
}

/* One plane with stride 2 (pl constant after inlining), rows of one or
 * two output vectors apart. */
O2H_INLINE void o2h_dwv2_plane(const O2hDwr *g, int pl, const float *x, const float *wf,
                               float b, const float *zrow, float *y)
{
    int nv = g->wo <= O2H_VL && g->w <= 2 * O2H_VL           ? 1
             : g->wo <= 2 * O2H_VL && g->w <= 4 * O2H_VL ? 2 : 0;
    for (int oh = 0; nv == 1 && oh < g->ho; oh++)
        o2h_dwv2_row(g, pl, 1, x, wf, b, zrow, oh, y);
    for (int oh = 0; nv == 2 && oh < g->ho; oh++)
        o2h_dwv2_row(g, pl, 2, x, wf, b, zrow, oh, y);
    for (int oh = 0; nv == 0 && oh < g->ho; oh++)
        o2h_dwv2_row(g, pl, 0, x, wf, b, zrow, oh, y);
}

static void o2h_dwv2_any(const O2hConv2d *p, O2hDwr g, O2hDwRun r, float *zrow)
{
    if (p->PL == 0)
        O2H_DW_EACH(g, r) o2h_dwv2_plane(&g, 0, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), zrow, r.y);
    else
        O2H_DW_EACH(g, r) o2h_dwv2_plane(&g, 1, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), zrow, r.y);
}

#if defined(__AVX__) && !defined(__AVX512F__)
/* Stride 2 with AVX, as o2h_dwm_plane for stride 1: the even columns of
 * the two vectors loaded at input column 2c + d and 2c + d + 8 are tap d
 * of output vector c, and their odd ones tap d + 1, so a filter row is 4
 * unaligned loads and 3 in-lane shuffles (vshufps), which leave the lanes
 * in the order 0 1 4 5 2 3 6 7; the sum is put back in order once per
 * output vector (vpermpd). The first and last vectors' loads are masked
 * (zero outside the row). Inputs wider than a vector whose outputs keep
 * 2*wo <= w + 1 (pads at most 1 a side), from 14x14 up. In MobileNetV1 at
 * x86-64-v3 (model --profile) 112->56 0.155 -> 0.135 ms, 56->28 0.087 ->
 * 0.077, 14->7 (before: channels in lanes) 0.039 -> 0.032, 28->14 the
 * same (0.041). */
static int o2h_dwm2_ok(const O2hConv2d *p)
{
    return p->F == p->C && p->G == p->C && p->KH == 3 && p->KW == 3 && p->SH == 2 &&
           p->SW == 2 && p->DH == 1 && p->DW == 1 && p->W > O2H_VL && 2 * p->WO <= p->W + 1 &&
           p->PT >= 0 && p->PT < 3 && (p->PL == 0 || p->PL == 1) && p->HO > 0 && p->WO > 0;
}

#define O2H_DWM2_EVEN(a, b) ((o2h_vf)_mm256_shuffle_ps((__m256)(a), (__m256)(b), 0x88))
#define O2H_DWM2_ODD(a, b) ((o2h_vf)_mm256_shuffle_ps((__m256)(a), (__m256)(b), 0xdd))

/* Input columns, relative to 2c - pl, of the four loads of a filter row. */
static const int o2h_dwm2_jo[4] = {0, 8, 2, 10};

/* Output vector (oh, c) from rows r[3] (at input column 2c - pl); mk bit
 * j (constant after inlining): the load at jo[j] (0, 8, 2, 10) goes
 * through m[j]. */
O2H_INLINE void o2h_dwm2_vec(const O2hDwr *g, int mk, const o2h_vi *m, const float *const *r,
                             const o2h_vf *wt, float b, size_t o, float *y)
{
    const int *jo = o2h_dwm2_jo;
    o2h_vf acc = o2h_vset1(b), acc2 = (o2h_vf){0};
    for (int kh = 0; kh < 3; kh++) {
        o2h_vf v[4], t[3];
        for (int j = 0; j < 4; j++)
            v[j] = (mk >> j) & 1 ? (o2h_vf)_mm256_maskload_ps(r[kh] + jo[j], (__m256i)m[j])
                          : o2h_vload(r[kh] + jo[j]);
        t[0] = O2H_DWM2_EVEN(v[0], v[1]);
        t[1] = O2H_DWM2_ODD(v[0], v[1]);
        t[2] = O2H_DWM2_EVEN(v[2], v[3]);
        for (int kw = 0; kw < 3; kw++) {
            if (kh & 1)
                acc2 += wt[kh * 3 + kw] * t[kw];
            else
                acc += wt[kh * 3 + kw] * t[kw];
        }
    }
    o2h_dwr_store(g, (o2h_vf)_mm256_permute4x64_pd((__m256d)(acc + acc2), 0xd8), o, y);
}

/* The load masks of output vector c; returns the loads that leave the
 * row (a bit each) if they are within want, else all four. Masked loads
 * cost: the usual edges are the left load of the first vector and the
 * second vectors of the last (want 1, 10 and, for a single vector, 11). */
O2H_INLINE int o2h_dwm2_masks(int c, int pl, int w, int want, o2h_vi *m)
{
    const int *jo = o2h_dwm2_jo;
    int need = 0;
    for (int j = 0; j < 4; j++) {
        int e = 2 * c - pl + jo[j];
        m[j] = o2h_dwm_mask(e, w);
        need |= (e < 0 || e + O2H_VL > w) << j;
    }
    return (need & ~want) ? 15 : want;
}

O2H_INLINE void o2h_dwm2_plane(const O2hDwr *g, int pl, const float *x, const float *wf, float b,
                               const float *zrow, float *y)
{
    int last = (g->wo - 1) / O2H_VL * O2H_VL;
    o2h_vf wt[9];
    o2h_vi mf[4], ml[4];
    int kf = o2h_dwm2_masks(0, pl, g->w, 1, mf);
    int kl = o2h_dwm2_masks(last, pl, g->w, last ? 10 : 11, ml);
    for (int t = 0; t < 9; t++)
        wt[t] = o2h_vset1(wf[t]);
    for (int oh = 0; oh < g->ho; oh++) {
        const float *r[3];
        for (int kh = 0; kh < 3; kh++) {
            int i = 2 * oh + kh - g->pt;
            r[kh] = (i >= 0 && i < g->h ? x + (size_t)i * g->w : zrow) - pl;
        }
        size_t o = (size_t)oh * g->wo;
        if (last == 0) {
            if (kl == 11)
                o2h_dwm2_vec(g, 11, ml, r, wt, b, o, y);
            else
                o2h_dwm2_vec(g, 15, ml, r, wt, b, o, y);
            continue;
        }
        if (kf == 1)
            o2h_dwm2_vec(g, 1, mf, r, wt, b, o, y);
        else
            o2h_dwm2_vec(g, 15, mf, r, wt, b, o, y);
        for (int c = O2H_VL; c < last; c += O2H_VL) {
            const float *rc[3] = {r[0] + 2 * c, r[1] + 2 * c, r[2] + 2 * c};
            o2h_dwm2_vec(g, 0, mf, rc, wt, b, o + c, y);
        }
        const float *rl[3] = {r[0] + 2 * last, r[1] + 2 * last, r[2] + 2 * last};
        if (kl == 10)
            o2h_dwm2_vec(g, 10, ml, rl, wt, b, o + last, y);
        else
            o2h_dwm2_vec(g, 15, ml, rl, wt, b, o + last, y);
    }
}

static void o2h_dwm2_any(const O2hConv2d *p, O2hDwr g, O2hDwRun r, float *zrow)
{
    if (p->PL == 0)
        O2H_DW_EACH(g, r) o2h_dwm2_plane(&g, 0, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), zrow, r.y);
    else
        O2H_DW_EACH(g, r) o2h_dwm2_plane(&g, 1, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), zrow, r.y);
}

/* Stride 2 with AVX on outputs wider than two vectors: each input row is
 * split once into its even and odd columns E and O (a ring of L1 rows,
 * with a zero before O and zeros after both), so tap d of output vector c
 * is one load, O at c - 1 (d = -1), E at c (0), O at c (1) or E at c + 1
 * (2), with no masks: an output vector costs 9 loads and 9 FMAs plus its
 * share of the splits (two input rows per output row, 4 shuffles per 16
 * columns) where o2h_dwm2_vec pays 12 loads and 10 shuffles. 112->56
 * 0.143 -> 0.100 ms, 56->28 0.077 -> 0.059 (MobileNetV1's channels, one
 * conv alone); on 28->14 it is no faster and on 14->7 1.5x slower (the
 * row's set-up and masked tail weigh more there), so those keep
 * o2h_dwm2_plane. */

/* Input row r (w columns) into its even (e) and odd (o) columns 0..nq,
 * zero past the row: per 16 columns two loads, two lane swaps
 * ([0..3 | 8..11] and [4..7 | 12..15]) and two in-lane shuffles. (Making
 * those halves with 128-bit broadcast loads and blends instead took 1.6x
 * as long on Zen 5.) */
O2H_INLINE void o2h_dwe_half(__m256 a, __m256 b, float *o, float *e)
{
    __m256 lo = _mm256_permute2f128_ps(a, b, 0x20), hi = _mm256_permute2f128_ps(a, b, 0x31);
    _mm256_store_ps(e, _mm256_shuffle_ps(lo, hi, 0x88));
    _mm256_store_ps(o, _mm256_shuffle_ps(lo, hi, 0xdd));
}

O2H_INLINE void o2h_dwe_split(const float *r, int w, int nq, float *o, float *e)
{
    int j = 0;
    for (; j < nq && 2 * j + 16 <= w; j += 8)
        o2h_dwe_half(_mm256_loadu_ps(r + 2 * j), _mm256_loadu_ps(r + 2 * j + 8), o + j, e + j);
    for (; j < nq; j += 8) {
        int c = 2 * j;
        o2h_dwe_half(_mm256_maskload_ps(r + c, (__m256i)(o2h_lane_idx() < w - c)),
                     _mm256_maskload_ps(r + c + 8, (__m256i)(o2h_lane_idx() < w - c - 8)), o + j, e + j);
    }
}

/* Input column 2c + d of a split row: its odd half o or even half e at
 * c + (d >> 1), d constant after inlining. */
O2H_INLINE const float *o2h_dwe_at(const float *o, const float *e, int c, int d)
{
    return (d & 1 ? o : e) + c + (d >> 1);
}

/* Output row at offset off from the split rows o[3], e[3] (pl constant
 * after inlining); taps summed in o2h_dwm2_vec's order. (Two output rows
 * at a time, sharing the row between them, spill and are 1.1x slower.) */
O2H_INLINE void o2h_dwe_row(const O2hDwr *g, int pl, const float *const *o, const float *const *e,
                            const o2h_vf *wt, float b, size_t off, float *y)
{
    for (int c = 0; c < g->wo; c += O2H_VL) {
        o2h_vf acc = o2h_vset1(b), acc2 = (o2h_vf){0};
        for (int kh = 0; kh < 3; kh++)
            for (int kw = 0; kw < 3; kw++) {
                int d = kw - pl;
                o2h_vf t = wt[kh * 3 + kw] * o2h_vload(o2h_dwe_at(o[kh], e[kh], c, d));
                if (kh & 1)
                    acc2 += t;
                else
                    acc += t;
            }
        o2h_dwr_store(g, acc + acc2, off + c, y);
    }
}

/* 5x5: n (1-4, constant after inlining) output vectors from column c0 in
 * registers, each tap's weight broadcast once for all of them (25 FMAs
 * per vector, 1.25 loads each with n = 4); taps summed in the order of
 * o2h_dwe_row, even filter rows in acc, odd ones in acc2. */
O2H_INLINE void o2h_dwe5_vecs(const O2hDwr *g, int n, int pl, const float *const *o, const float *const *e,
                              const float *wf, float b, int c0, size_t off, float *y)
{
    o2h_vf acc[4], acc2[4];
    for (int v = 0; v < n; v++)
        acc[v] = o2h_vset1(b), acc2[v] = (o2h_vf){0};
    for (int kh = 0; kh < 5; kh++)
        for (int kw = 0; kw < 5; kw++) {
            const float *s = o2h_dwe_at(o[kh], e[kh], c0, kw - pl);
            o2h_vf wv = o2h_vset1(wf[kh * 5 + kw]);
            for (int v = 0; v < n; v++) {
                if (kh & 1)
                    acc2[v] += wv * o2h_vload(s + v * O2H_VL);
                else
                    acc[v] += wv * o2h_vload(s + v * O2H_VL);
            }
        }
    for (int v = 0; v < n; v++)
        o2h_dwr_store(g, acc[v] + acc2[v], off + c0 + v * O2H_VL, y);
}

O2H_INLINE void o2h_dwe5_row(const O2hDwr *g, int pl, const float *const *o, const float *const *e,
                             const float *wf, float b, size_t off, float *y)
{
    for (int c0 = 0; c0 < g->wo; c0 += 4 * O2H_VL) {
        switch ((g->wo - c0 + O2H_VL - 1) / O2H_VL) {
        case 1: o2h_dwe5_vecs(g, 1, pl, o, e, wf, b, c0, off, y); break;
        case 2: o2h_dwe5_vecs(g, 2, pl, o, e, wf, b, c0, off, y); break;
        case 3: o2h_dwe5_vecs(g, 3, pl, o, e, wf, b, c0, off, y); break;
        default: o2h_dwe5_vecs(g, 4, pl, o, e, wf, b, c0, off, y); break;
        }
    }
}

/* One plane of a k x k filter (k and pl constant after inlining): before
 * output row oh, the input rows up to those of row oh + 1 are split, so
 * row oh's loads find their rows' stores long done (k + 2 rows live in
 * the ring of 8). */
O2H_INLINE void o2h_dwe_plane(const O2hDwr *g, int k, int pl, const float *x, const float *wf, float b,
                              float *ring, float *y)
{
    int nq = o2h_dwe_nq(g->wo, O2H_VL), row = 2 * (O2H_VL + nq), done = 0;
    const float *zero = ring + O2H_DWE_RING * row;
    o2h_vf wt[9];
    for (int t = 0; k == 3 && t < 9; t++)
        wt[t] = o2h_vset1(wf[t]);
    for (int oh = 0; oh < g->ho; oh++) {
        int want = 2 * oh + k + 2 - g->pt < g->h ? 2 * oh + k + 2 - g->pt : g->h;
        for (; done < want; done++) {
            float *s = ring + (done & (O2H_DWE_RING - 1)) * row;
            o2h_dwe_split(x + (size_t)done * g->w, g->w, nq, s + O2H_VL, s + row / 2 + O2H_VL);
        }
        const float *o[5], *e[5];
        for (int kh = 0; kh < k; kh++) {
            int i = 2 * oh + kh - g->pt;
            const float *s = i >= 0 && i < g->h ? ring + (i & (O2H_DWE_RING - 1)) * row : zero;
            o[kh] = s + O2H_VL;
            e[kh] = s + row / 2 + O2H_VL;
        }
        if (k == 3)
            o2h_dwe_row(g, pl, o, e, wt, b, (size_t)oh * g->wo, y);
        else
            o2h_dwe5_row(g, pl, o, e, wf, b, (size_t)oh * g->wo, y);
    }
}

/* The ring follows the zero row (see o2h_dw_planes), aligned to 64 bytes
 * and zeroed once: the split rows never write their leading vector. */
static void o2h_dwe_any(const O2hConv2d *p, O2hDwr g, O2hDwRun r, float *zrow)
{
    float *ring = (float *)(((uintptr_t)(zrow + p->W + 2 * O2H_VL) + 63) & ~(uintptr_t)63);
    memset(ring, 0, (o2h_dwe_floats(p, O2H_VL) - 16) * sizeof *ring);
    if (p->KH == 3 && p->PL == 0)
        O2H_DW_EACH(g, r) o2h_dwe_plane(&g, 3, 0, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), ring, r.y);
    else if (p->KH == 3)
        O2H_DW_EACH(g, r) o2h_dwe_plane(&g, 3, 1, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), ring, r.y);
    else if (p->PL == 1)
        O2H_DW_EACH(g, r) o2h_dwe_plane(&g, 5, 1, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), ring, r.y);
    else
        O2H_DW_EACH(g, r) o2h_dwe_plane(&g, 5, 2, r.x, o2h_dw_wf(&r), o2h_dw_b(&r), ring, r.y);
}

/* 5x5 stride 2 by the same split rows, left pad 1 or 2, outputs over two
 * vectors: tap d = kw - pl (-2..3) of output vector c is E or O at
 * c + (d >> 1), the zeros before and after both halves standing in for
 * the pads; up to four output vectors share each weight's broadcast
 * (o2h_dwe5_vecs). Before, these went through the phase planes and the
 * flat loop. MnasNet at x86-64-v3 on a Zen 3 (model --profile, min of 3):
 * 72x56x56 -> 28x28 0.143 -> 0.096-0.100 ms; on 28 -> 14 it was no faster
 * (0.108 -> 0.105) and on 14 -> 7 slower (0.076 -> 0.099, one vector a
 * row leaves the FMA chains too few), so those keep the other forms. */
static int o2h_dwe5_ok(const O2hConv2d *p)
{
    return p->F == p->C && p->G == p->C && p->KH == 5 && p->KW == 5 && p->SH == 2 && p->SW == 2 &&
           p->DH == 1 && p->DW == 1 && p->W > O2H_VL && p->PT >= 0 && p->PT < 5 &&
           (p->PL == 1 || p->PL == 2) && p->HO > 0 && p->WO > 2 * O2H_VL;
}
#endif

#endif

/* ------------------------------------- depthwise, two channels a vector */

/* With AVX-512, maps whose output rows fill at most half a vector (7x7
 * outputs: 7x7 stride 1, 14x14 stride 2) would leave half the lanes of a
 * row-per-vector form idle, so two channels share a vector here: lanes
 * 0..7 hold an output row of one channel and lanes 8..15 the same row of
 * the next. Per input row, each channel's row is one masked load (lanes
 * past W zero), and a tap is one two-source permute of the two rows with
 * the lanes outside the padded row zeroed by its mask; an output row pair
 * is then K*K FMAs by per-half weights, four rows at a time, and masked
 * stores write each half into its plane, so nothing is copied, transposed
 * or read past a plane. 3x3 or 5x5, stride 1 or 2, multiplier 1, inputs
 * up to 16 wide. */
#if O2H_VEC && defined(__AVX512F__)
static int o2h_dwp_ok(const O2hConv2d *p)
{
    int k = p->KH;
    return p->F == p->C && p->G == p->C && p->KW == k && (k == 3 || k == 5) &&
           p->SH == p->SW && (p->SH == 1 || p->SH == 2) && p->DH == 1 && p->DW == 1 &&
           p->W <= 16 && p->WO <= 8 && 2 * p->WO > 8 && p->HO > 0 && p->HO <= 8 &&
           p->PT >= 0 && p->PL >= 0;
}

/* The shape as locals, the epilogue (ReLU and Clip a clamp in registers
 * as in O2hDwr, ev the other activations o2h_vact computes, applied over
 * a pair's stored planes, else NULL), and per filter column the permute
 * indices and lane masks of its tap. */
typedef struct {
    int h, w, ho, wo, pt, clamp;
    float lo, hi;
    const O2hEpilogue *ev;
    __m512i idx[5];
    __mmask16 km[5];
} O2hDwp;

/* Planes of a channel pair: input, weights, bias, residual, output; m1
 * all ones when the second channel exists (else its pointers repeat the
 * first's and nothing of it is read or written). */
typedef struct {
    const float *x[2], *w[2], *r[2];
    float b[2], *y[2];
    __mmask16 m1;
} O2hDwpPair;

static O2hDwp o2h_dwp_setup(const O2hConv2d *p, const O2hEpilogue *e)
{
    O2hDwp g = {p->H, p->W, p->HO, p->WO, p->PT, 0, 0.0f, 0.0f, NULL, {{0}}, {0}};
    int act = e && e->act != O2H_ACT_NONE;
    g.clamp = o2h_act_clamp(e, &g.lo, &g.hi);
    g.ev = act && !g.clamp && o2h_vact_ok(e->act) ? e : NULL;
    for (int kw = 0; kw < p->KW; kw++) {
        int32_t ix[16];
        unsigned m = 0;
        for (int l = 0; l < 16; l++) {
            int col = p->SW * (l & 7) + kw - p->PL;
            int in = col >= 0 && col < p->W && (l & 7) < p->WO;
            ix[l] = in ? col + (l & 8) * 2 : 0;
            m |= (unsigned)in << l;
        }
        g.idx[kw] = _mm512_loadu_si512(ix);
        g.km[kw] = (__mmask16)m;
    }
    return g;
}

/* act(v + residual) into the two planes at offset o. */
O2H_INLINE void o2h_dwp_store(const O2hDwp *g, const O2hDwpPair *q, __m512 v, size_t o)
{
    __mmask16 lo = (__mmask16)((1u << g->wo) - 1), hi = (__mmask16)(lo << 8) & q->m1;
    if (q->r[0]) {
        __m512 r = _mm512_maskz_loadu_ps(lo, q->r[0] + o);
        v = _mm512_add_ps(v, hi ? _mm512_mask_loadu_ps(r, hi, q->r[1] + o - 8) : r);
    }
    if (g->clamp)
        v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(g->lo)), _mm512_set1_ps(g->hi));
    _mm512_mask_storeu_ps(q->y[0] + o, lo, v);
    if (hi)
        _mm512_mask_storeu_ps(q->y[1] + o - 8, hi, v);
}

/* A lane per half: v0 in lanes 0..7, v1 in 8..15. */
O2H_INLINE __m512 o2h_dwp_pair2(float v0, float v1)
{
    return _mm512_mask_mov_ps(_mm512_set1_ps(v0), 0xff00, _mm512_set1_ps(v1));
}

/* One channel pair (k, s and the rows computed nr constant after
 * inlining): every padded input row is loaded and permuted into its k
 * taps once, which go straight into the nr output rows (accumulators in
 * registers) under it; rows past ho are computed but not stored. */
O2H_INLINE void o2h_dwp_plane(const O2hDwp *g, const O2hDwpPair *q, int k, int s, int nr)
{
    __m512 wv[25], acc[8][2];
    __mmask16 mw = (__mmask16)((1u << g->w) - 1);
    for (int t = 0; t < k * k; t++)
        wv[t] = o2h_dwp_pair2(q->w[0][t], q->w[1][t]);
    for (int r = 0; r < nr; r++) {
        acc[r][0] = o2h_dwp_pair2(q->b[0], q->b[1]);
        acc[r][1] = _mm512_setzero_ps();
    }
#pragma GCC unroll 20
    for (int j = 0; j < (nr - 1) * s + k; j++) {
        int i = j - g->pt, in = i >= 0 && i < g->h;
        size_t o = in ? (size_t)i * g->w : 0;
        __m512 a = _mm512_maskz_loadu_ps(in ? mw : 0, q->x[0] + o), tap[5];
        __m512 b = _mm512_maskz_loadu_ps(in ? mw & q->m1 : 0, q->x[1] + o);
        for (int kw = 0; kw < k; kw++)
            tap[kw] = _mm512_maskz_permutex2var_ps(g->km[kw], a, g->idx[kw], b);
#pragma GCC unroll 8
        for (int r = 0; r < nr; r++) {
            int kh = j - r * s;
            for (int kw = 0; kh >= 0 && kh < k && kw < k; kw++)
                acc[r][kw & 1] = _mm512_fmadd_ps(wv[kh * k + kw], tap[kw], acc[r][kw & 1]);
        }
    }
    for (int r = 0; r < nr && r < g->ho; r++)
        o2h_dwp_store(g, q, _mm512_add_ps(acc[r][0], acc[r][1]), (size_t)r * g->wo);
}

/* The pair kernel for the shape's k and s. */
static void o2h_dwp_any(const O2hConv2d *p, const O2hDwp *g, const O2hDwpPair *q)
{
    int n7 = p->HO <= 7;
    if (p->KH == 3 && p->SH == 1)
        n7 ? o2h_dwp_plane(g, q, 3, 1, 7) : o2h_dwp_plane(g, q, 3, 1, 8);
    else if (p->KH == 3)
        n7 ? o2h_dwp_plane(g, q, 3, 2, 7) : o2h_dwp_plane(g, q, 3, 2, 8);
    else if (p->SH == 1)
        n7 ? o2h_dwp_plane(g, q, 5, 1, 7) : o2h_dwp_plane(g, q, 5, 1, 8);
    else
        n7 ? o2h_dwp_plane(g, q, 5, 2, 7) : o2h_dwp_plane(g, q, 5, 2, 8);
}

/* ev's activation over the n floats at y, in vectors (the tail masked). */
static void o2h_dwp_act(const O2hEpilogue *ev, float *y, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, (__m512)o2h_vact(ev, (o2h_vf)_mm512_loadu_ps(y + i)));
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(m, y + i);
        _mm512_mask_storeu_ps(y + i, m, (__m512)o2h_vact(ev, (o2h_vf)v));
    }
}

/* Planes two at a time (across the batch: plane i is channel i % C; the
 * pair's planes are adjacent); activations other than the clamp go over
 * them after. */
static void o2h_conv_dwp(const O2hConv2d *p, const float *x, const float *w, const float *bias,
                         const O2hEpilogue *e, float *y)
{
    O2hDwp g = o2h_dwp_setup(p, e);
    int ntap = p->KH * p->KW, planes = p->N * p->C;
    size_t hw = (size_t)p->H * p->W, hwo = (size_t)p->HO * p->WO;
    int act = e && e->act != O2H_ACT_NONE;
    for (int i = 0; i < planes; i += 2) {
        int two = i + 1 < planes, i1 = two ? i + 1 : i;
        O2hDwpPair q;
        q.m1 = two ? 0xffff : 0;
        for (int h = 0; h < 2; h++) {
            int pl = h ? i1 : i, c = pl % p->C;
            q.x[h] = x + (size_t)pl * hw;
            q.w[h] = w + (size_t)c * ntap;
            q.b[h] = bias ? bias[c] : 0.0f;
            q.r[h] = e && e->residual ? e->residual + (size_t)pl * hwo : NULL;
            q.y[h] = y + (size_t)pl * hwo;
        }
        o2h_dwp_any(p, &g, &q);
        if (g.ev)
            o2h_dwp_act(g.ev, q.y[0], hwo * (size_t)(two + 1));
        for (int h = 0; act && !g.clamp && !g.ev && h <= two; h++)
            o2h_act_row(e, q.y[h], hwo, (h ? i1 : i) % p->C);
    }
}
#endif

/* Two phase buffers take turns: channel c+1 is filled before channel c is
 * computed, so the vector loads never wait on the fill's just-issued
 * (narrower) stores, which matters on small maps. */
static void o2h_conv_depthwise(const O2hConv2d *p, const float *x, const float *w,
                               const float *bias, const O2hEpilogue *e, float *y, float *scratch)
{
    O2hPhasePlane d = o2h_phase_plane(p);
    int ntap = p->KH * p->KW;
    size_t hw = (size_t)p->H * p->W, per = (size_t)p->SH * p->SW * d.phase;
    size_t off[O2H_DW_REG_TAPS + 1];
    float *buf[2] = {scratch, scratch + per}, *flat = scratch + 2 * per;
    int planes = p->N * p->C;
#if O2H_VEC && defined(__AVX512F__)
    if (o2h_dwp_ok(p)) {
        o2h_conv_dwp(p, x, w, bias, e, y);
        return;
    }
#endif
#if O2H_VEC && O2H_VL >= 8
    O2hDwPlanes kern = o2h_dwr_ok(p) ? o2h_dwr_any : o2h_dwv_ok(p) ? o2h_dwv_any
                      : o2h_dwv2_ok(p) ? o2h_dwv2_any : NULL;
#if defined(__AVX__) && !defined(__AVX512F__)
    if (!o2h_dwr_ok(p) && o2h_dwm2_ok(p))
        kern = p->WO > 2 * O2H_VL ? o2h_dwe_any : o2h_dwm2_any;
    else if (o2h_dwe5_ok(p))   /* inputs wider than a vector: never o2h_dwr_ok */
        kern = o2h_dwe_any;
#endif
    if (kern) {
        o2h_dw_planes(p, x, w, bias, e, y, scratch, kern);
        return;
    }
#endif
#if O2H_VEC
    if (o2h_dwl_ok(p)) {
        o2h_conv_dwl(p, x, w, bias, e, y, scratch);
        return;
    }
#endif
    memset(scratch, 0, 2 * per * sizeof *scratch);
    for (int t = 0; ntap <= O2H_DW_REG_TAPS && t < ntap; t++)
        off[t] = o2h_phase_tap(p, d, t / p->KW, t % p->KW);
    if (planes > 0)
        o2h_phase_fill(p, &d, x, buf[0]);
    for (int i = 0; i < planes; i++) {
        if (i + 1 < planes)
            o2h_phase_fill(p, &d, x + (size_t)(i + 1) * hw, buf[(i + 1) & 1]);
        o2h_dw_outputs(p, d, buf[i & 1], off, i / p->C, i % p->C, w, bias, e, flat, y);
    }
}

/* --------------------------------------------------------------- direct */

/* Standard conv without im2col: the input channels of a group are filled
 * into phase planes (as for depthwise), so tap t of channel c is the
 * contiguous row buf + c*cs + off[t] over the flat output index. The conv is
 * then one GEMM whose K rows come in KH*KW segments (one per tap) of C/G
 * channels, writing the flat [F/G][HO*wq] output; a last pass drops the
 * wq - WO extra columns of each row and applies residual and activation. */
static void o2h_direct_store(const O2hConv2d *p, O2hPhasePlane d, int fg, const float *flat,
                             const float *res, const O2hEpilogue *e, int f0, float *y)
{
    size_t hwo = (size_t)p->HO * p->WO, n = (size_t)p->HO * d.wq;
    for (int f = 0; f < fg; f++)
        o2h_dw_store(p, d, flat + (size_t)f * n, res ? res + (size_t)f * hwo : NULL, e, f0 + f,
                     y + (size_t)f * hwo);
}

static void o2h_conv_direct(const O2hConv2d *p, const float *x, const float *w,
                            const float *bias, const O2hEpilogue *e, float *y, float *scratch)
{
    O2hPhasePlane d = o2h_phase_plane(p);
    int fg = p->F / p->G, cg = p->C / p->G, taps = p->KH * p->KW;
    size_t cs = (size_t)p->SH * p->SW * d.phase, hw = (size_t)p->H * p->W;
    size_t hwo = (size_t)p->HO * p->WO, n = (size_t)p->HO * d.wq;
    size_t per = o2h_gemm_panels_size(fg, o2h_conv_k(p));
    size_t seg[O2H_DIRECT_MAX_TAPS];
    float *buf = scratch, *flat = scratch + (size_t)cg * cs;
    for (int t = 0; t < taps; t++)
        seg[t] = o2h_phase_tap(p, d, t / p->KW, t % p->KW);
    memset(buf, 0, (size_t)cg * cs * sizeof *buf);
    for (int nn = 0; nn < p->N; nn++)
        for (int g = 0; g < p->G; g++) {
            const float *xg = x + ((size_t)nn * p->C + (size_t)g * cg) * hw;
            size_t yoff = ((size_t)nn * p->F + (size_t)g * fg) * hwo;
            O2hTileEpi ep = {1.0f, bias ? bias + g * fg : NULL, NULL, NULL, 0, NULL, 0, 0};
            for (int c = 0; c < cg; c++)
                o2h_phase_fill(p, &d, xg + (size_t)c * hw, buf + (size_t)c * cs);
            o2h_gemm_core_seg(fg, (int)n, taps, cg, w + g * per, buf, seg, (ptrdiff_t)cs, flat,
                              (ptrdiff_t)n, &ep);
            o2h_direct_store(p, d, fg, flat, e && e->residual ? e->residual + yoff : NULL, e,
                             g * fg, y + yoff);
        }
}

/* ------------------------------------------------------------ Winograd */

/* Winograd F(2x2, 3x3) for 3x3 stride-1 pad-1 convs: each 2x2
 * output tile comes from a 4x4 input tile d as A^T [U . (B^T d B)] A, so the
 * channel reduction is 16 GEMMs (one per position xi of the 4x4 transform,
 * F x C times C x tiles) with 2.25x fewer multiplies than the direct conv.
 * Blocks of tile rows keep the transformed input V and the products M in
 * L2; the output transform applies bias, residual and activation. The
 * transforms are exact additions and halvings of the weights, so results
 * differ from the direct sums only in rounding (tests: 2e-5 relative). */

/* The input transform of one 4x4 tile (or VL tiles side by side):
 * B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], V = B^T d B, stored at
 * v[xi*vs]. d[i] = E_i[0], O_i[0], E_i[1], O_i[1] (even/odd padded columns). */
#define O2H_WINO_IN(T, LOAD, STORE)                                                            \
    do {                                                                                       \
        T d[4][4], t[4][4];                                                                    \
        for (int i = 0; i < 4; i++) {                                                          \
            d[i][0] = LOAD(E[i]);                                                              \
            d[i][1] = LOAD(O[i]);                                                              \
            d[i][2] = LOAD(E[i] + 1);                                                          \
            d[i][3] = LOAD(O[i] + 1);                                                          \
        }                                                                                      \
        for (int j = 0; j < 4; j++) {                                                          \
            t[0][j] = d[0][j] - d[2][j];                                                       \
            t[1][j] = d[1][j] + d[2][j];                                                       \
            t[2][j] = d[2][j] - d[1][j];                                                       \
            t[3][j] = d[1][j] - d[3][j];                                                       \
        }                                                                                      \
        for (int a = 0; a < 4; a++) {                                                          \
            STORE(v + (size_t)(4 * a) * vs, t[a][0] - t[a][2]);                                \
            STORE(v + (size_t)(4 * a + 1) * vs, t[a][1] + t[a][2]);                            \
            STORE(v + (size_t)(4 * a + 2) * vs, t[a][2] - t[a][1]);                            \
            STORE(v + (size_t)(4 * a + 3) * vs, t[a][1] - t[a][3]);                            \
        }                                                                                      \
    } while (0)

#define O2H_SLOAD(p) (*(p))
#define O2H_SSTORE(p, x) (*(p) = (x))

/* Transformed input of tile row ty of one channel: v[xi*vs + tx]. */
static void o2h_wino_in_row(const O2hConv2d *p, O2hWino g, const float *xc, int ty,
                            float *restrict eo, float *restrict v, size_t vs)
{
    int W = p->W, tw = g.tw, tx = 0;
    const float *E[4], *O[4];
    /* padded row 2ty+i: even columns E_i[k] = x[2k-1], odd O_i[k] = x[2k] */
    for (int i = 0; i < 4; i++) {
        float *e = eo + (size_t)i * g.hs, *o = eo + (size_t)(4 + i) * g.hs;
        int ih = 2 * ty + i - 1;
        E[i] = e;
        O[i] = o;
        if (ih < 0 || ih >= p->H) {
            memset(e, 0, (size_t)(tw + 1) * sizeof *e);
            memset(o, 0, (size_t)(tw + 1) * sizeof *o);
            continue;
        }
        o2h_deinterleave2(xc + (size_t)ih * W, o, (W + 1) / 2, e + 1, W / 2, 0);
        e[0] = 0.0f;
        for (int k = W / 2 + 1; k <= tw; k++)
            e[k] = 0.0f;
        for (int k = (W + 1) / 2; k <= tw; k++)
            o[k] = 0.0f;
    }
#if O2H_VEC
    /* whole vectors: up to VL-1 tiles past the row are computed from the
     * zeroed slack and land where the next row (or the unused columns of
     * the block) will be written */
    for (; tx < tw; tx += O2H_VL) {
        O2H_WINO_IN(o2h_vf, o2h_vload, o2h_vstore);
        for (int i = 0; i < 4; i++) {
            E[i] += O2H_VL;
            O[i] += O2H_VL;
        }
        v += O2H_VL;
    }
#endif
    for (; tx < tw; tx++) {
        O2H_WINO_IN(float, O2H_SLOAD, O2H_SSTORE);
        for (int i = 0; i < 4; i++) {
            E[i]++;
            O[i]++;
        }
        v++;
    }
}

/* The output transform of one tile (or VL tiles): A^T = [1 1 1 0; 0 1 -1 -1],
 * Y = A^T M A, plus bias b: y00 y01 (row 2ty), y10 y11 (row 2ty+1). */
#define O2H_WINO_OUT(T, LOAD)                                                                  \
    T r[2][4];                                                                                 \
    for (int j = 0; j < 4; j++) {                                                              \
        T m0 = LOAD(m + (size_t)j * ms), m1 = LOAD(m + (size_t)(4 + j) * ms);                  \
        T m2 = LOAD(m + (size_t)(8 + j) * ms), m3 = LOAD(m + (size_t)(12 + j) * ms);           \
        r[0][j] = m0 + m1 + m2;                                                                \
        r[1][j] = m1 - m2 - m3;                                                                \
    }                                                                                          \
    T y00 = r[0][0] + r[0][1] + r[0][2] + b, y01 = r[0][1] - r[0][2] - r[0][3] + b;            \
    T y10 = r[1][0] + r[1][1] + r[1][2] + b, y11 = r[1][1] - r[1][2] - r[1][3] + b

/* y[0..n) = t[0..n) plus the residual res when there is one, in loops of
 * their own: a loop choosing per value between res[j] and 0 is turned by
 * the vectorizer into masked loads through the NULL pointer, each of which
 * takes a microcode assist. */
static void o2h_wino_out_part(const float *t, const float *res, int n, float *y)
{
    if (!res) {
        memcpy(y, t, (size_t)n * sizeof *y);
        return;
    }
    for (int j = 0; j < n; j++)
        y[j] = t[j] + res[j];
}

/* Output rows 2ty and, when two, 2ty+1 (wo columns each, ldy apart) of one
 * channel from its products m[xi*ms + tx], plus bias and residual. */
static void o2h_wino_out_row(int tw, const float *restrict m, size_t ms, float b,
                             const float *restrict res, int wo, int two, size_t ldy,
                             float *restrict y)
{
    int tx = 0;
#if O2H_VEC
    for (; 2 * (tx + O2H_VL) <= wo && two; tx += O2H_VL) {
        O2H_WINO_OUT(o2h_vf, o2h_vload);
        o2h_vf a0 = O2H_VZIPLO(y00, y01), a1 = O2H_VZIPHI(y00, y01);
        o2h_vf c0 = O2H_VZIPLO(y10, y11), c1 = O2H_VZIPHI(y10, y11);
        if (res) {
            a0 += o2h_vload(res);
            a1 += o2h_vload(res + O2H_VL);
            c0 += o2h_vload(res + ldy);
            c1 += o2h_vload(res + ldy + O2H_VL);
            res += 2 * O2H_VL;
        }
        o2h_vstore(y, a0);
        o2h_vstore(y + O2H_VL, a1);
        o2h_vstore(y + ldy, c0);
        o2h_vstore(y + ldy + O2H_VL, c1);
        y += 2 * O2H_VL;
        m += O2H_VL;
    }
    /* the rest in vectors stored through a buffer */
    for (; tx < tw; tx += O2H_VL) {
        int n = wo - 2 * tx < 2 * O2H_VL ? wo - 2 * tx : 2 * O2H_VL;
        float t[4 * O2H_VL];
        O2H_WINO_OUT(o2h_vf, o2h_vload);
        o2h_vstore(t, O2H_VZIPLO(y00, y01));
        o2h_vstore(t + O2H_VL, O2H_VZIPHI(y00, y01));
        o2h_vstore(t + 2 * O2H_VL, O2H_VZIPLO(y10, y11));
        o2h_vstore(t + 3 * O2H_VL, O2H_VZIPHI(y10, y11));
        o2h_wino_out_part(t, res, n, y);
        if (two)
            o2h_wino_out_part(t + 2 * O2H_VL, res ? res + ldy : NULL, n, y + ldy);
        if (res)
            res += 2 * O2H_VL;
        y += 2 * O2H_VL;
        m += O2H_VL;
    }
#else
    for (; tx < tw; tx++) {
        O2H_WINO_OUT(float, O2H_SLOAD);
        float t[4] = {y00, y01, y10, y11};
        int n = 2 * tx + 1 < wo ? 2 : 1;
        o2h_wino_out_part(t, res, n, y);
        if (two)
            o2h_wino_out_part(t + 2, res ? res + ldy : NULL, n, y + ldy);
        if (res)
            res += 2;
        y += 2;
        m++;
    }
#endif
}

static void o2h_conv_wino(const O2hConv2d *p, const float *x, const float *w, const float *bias,
                          const O2hEpilogue *e, float *y, float *scratch)
{
    O2hWino g = o2h_wino(p);
    int C = p->C, F = p->F, WO = p->WO;
    size_t hw = (size_t)p->H * p->W, hwo = (size_t)p->HO * WO, per = o2h_gemm_panels_size(F, C);
    size_t vs = (size_t)C * g.ld, ms = (size_t)F * g.ld;
    float *v = scratch, *m = v + 16 * vs, *eo = m + 16 * ms;
    O2hTileEpi ep = {1.0f, NULL, NULL, NULL, 0, NULL, 0, 0};
    int act = e && e->act != O2H_ACT_NONE;
    memset(eo, 0, 8 * (size_t)g.hs * sizeof *eo);
    for (int n = 0; n < p->N; n++) {
        const float *xn = x + (size_t)n * C * hw;
        float *yn = y + (size_t)n * F * hwo;
        const float *rn = e && e->residual ? e->residual + (size_t)n * F * hwo : NULL;
        for (int ty0 = 0; ty0 < g.th; ty0 += g.rb) {
            int ty1 = ty0 + g.rb < g.th ? ty0 + g.rb : g.th, nb = (ty1 - ty0) * g.tw;
            /* the GEMMs run over whole vectors of tiles: the extra columns
             * [nb, np) are zeros and their products are not used */
            int np = (nb + O2H_VL - 1) / O2H_VL * O2H_VL;
            for (int c = 0; c < C; c++) {
                for (int ty = ty0; ty < ty1; ty++)
                    o2h_wino_in_row(p, g, xn + (size_t)c * hw, ty, eo,
                                    v + (size_t)c * g.ld + (size_t)(ty - ty0) * g.tw, vs);
                for (int xi = 0; xi < 16 && np > nb; xi++)
                    memset(v + (size_t)xi * vs + (size_t)c * g.ld + nb, 0,
                           (size_t)(np - nb) * sizeof *v);
            }
            for (int xi = 0; xi < 16; xi++)
                o2h_gemm_core(F, np, C, w + (size_t)xi * per, v + (size_t)xi * vs, g.ld,
                              m + (size_t)xi * ms, g.ld, &ep, NULL);
            for (int f = 0; f < F; f++) {
                float b = bias ? bias[f] : 0.0f;
                for (int ty = ty0; ty < ty1; ty++) {
                    size_t at = (size_t)f * hwo + (size_t)(2 * ty) * WO;
                    int two = 2 * ty + 1 < p->HO;
                    o2h_wino_out_row(g.tw, m + (size_t)f * g.ld + (size_t)(ty - ty0) * g.tw, ms, b,
                                     rn ? rn + at : NULL, WO, two, (size_t)WO, yn + at);
                    if (act)
                        o2h_act_row(e, yn + at, (size_t)(two ? 2 : 1) * WO, f);
                }
            }
        }
    }
}

/* ------------------------------------------------------- few channels */

/* Convs with few input channels and stride 2 (a CNN's stem: 3 channels,
 * 3x3, 224x224 -> 112x112): im2col would copy every input pixel C*KH*KW/4
 * times into an L2-sized panel for a GEMM with a short K. Instead, each
 * input row is split once by column parity into two zero-padded phase rows
 * in a ring in L1 that holds the (KH-1)*DH + 1 rows an output row spans
 * (an output row splits only the rows the previous one did not reach);
 * tap (c, kh, kw) of output columns ow.. is then the contiguous run of
 * phase row (c, kh, kw*DW % 2) at ow + kw*DW / 2. A register tile of MR filters times NV vectors of
 * columns (then single vectors for the row's rest) accumulates all taps
 * with broadcast weights (ONNX layout, unpacked). With AVX2, 4 x 3 (no
 * ragged filter block at 32 filters) is faster than the GEMM's 6 x 2. */
#if defined(__AVX__) && !defined(__AVX512F__)
#define O2H_SMALLC_MR 4
#define O2H_SMALLC_NV 3
#else
#define O2H_SMALLC_MR O2H_MR
#define O2H_SMALLC_NV O2H_NV
#endif

/* Input rows one output row spans ((KH-1)*DH + 1): the ring of split
 * input rows holds that many. */
static int o2h_smallc_span(const O2hConv2d *p) { return (p->KH - 1) * p->DH + 1; }

/* Floats per phase row: output columns plus the taps' reach, or the input
 * row's half past the left pad if longer, rounded up to 16 floats, plus
 * two 16-float vectors of slack. */
static size_t o2h_smallc_row(const O2hConv2d *p)
{
    int n = p->WO + (p->KW - 1) * p->DW / 2 + 1, m = (p->PL + 1) / 2 + (p->W + 1) / 2;
    n = n > m ? n : m;
    return (size_t)(n + 15) / 16 * 16 + 32;
}

static size_t o2h_smallc_floats(const O2hConv2d *p)
{
    return (size_t)p->C * o2h_smallc_span(p) * 2 * o2h_smallc_row(p);
}

/* Phase rows of input row ih (-PT <= ih) in its ring slot: row
 * ((c*span + slot)*2 + b) holds padded column 2*q + b at [q]. The column
 * parity (b - PL) & 1 of the input lands from q = ceil((PL - b) / 2), so
 * each channel's row is split once by parity; the rest of the rows stays
 * zero from the call's start, as every fill writes the same lanes. Rows
 * outside the map are zeroed. */
static void o2h_smallc_fill(const O2hConv2d *p, const float *xn, size_t room, int ih, float *rows)
{
    size_t len = o2h_smallc_row(p);
    int span = o2h_smallc_span(p), slot = (ih + p->PT) % span;
    int be = p->PL & 1, lo[2] = {o2h_cdiv(p->PL, 2), o2h_cdiv(p->PL - 1, 2)};
    lo[1] = lo[1] < 0 ? 0 : lo[1];
    for (int c = 0; c < p->C; c++) {
        float *r = rows + (size_t)(c * span + slot) * 2 * len;
        if (ih < 0 || ih >= p->H) {
            memset(r, 0, 2 * len * sizeof *r);
            continue;
        }
        size_t at = ((size_t)c * p->H + (size_t)ih) * p->W;
        o2h_deinterleave2(xn + at, r + (size_t)be * len + lo[be], (p->W + 1) / 2,
                          r + (size_t)(1 - be) * len + lo[1 - be], p->W / 2, room - at);
    }
}

/* Epilogue of the few-channel conv: residual rows and a ReLU/Clip clamp
 * applied in registers (other activations go over the stored planes). */
typedef struct {
    const float *res;
    size_t hwo;
    int clamp;
    float lo, hi;
} O2hSmallcEpi;

#if O2H_VEC
/* acc[i][j] = bias + sum over taps t of w_i[t] * columns ow + j*VL.., for
 * nv (constant after inlining) vectors. With yr (a full tile of full
 * vectors, no residual, a ReLU/Clip clamp), the tile is clamped and
 * stored here from registers instead. */
O2H_INLINE void o2h_smallc_tile(int nt, int nv, const size_t *off, const float *rows,
                                const float *const *wr, const float *b, int ow,
                                o2h_vf acc[O2H_SMALLC_MR][O2H_SMALLC_NV],
                                const O2hSmallcEpi *ep, float *yr)
{
    o2h_vf a[O2H_SMALLC_MR][O2H_SMALLC_NV];
    for (int i = 0; i < O2H_SMALLC_MR; i++)
        for (int j = 0; j < nv; j++)
            a[i][j] = o2h_vset1(b[i]);
    for (int t = 0; t < nt; t++) {
        const float *r = rows + off[t] + ow;
        o2h_vf v[O2H_SMALLC_NV];
        for (int j = 0; j < nv; j++)
            v[j] = o2h_vload(r + j * O2H_VL);
        for (int i = 0; i < O2H_SMALLC_MR; i++) {
            o2h_vf wv = o2h_vset1(wr[i][t]);
            for (int j = 0; j < nv; j++)
                a[i][j] += wv * v[j];
        }
    }
    if (yr) {
        o2h_vf lo = o2h_vset1(ep->lo), hi = o2h_vset1(ep->hi);
        for (int i = 0; i < O2H_SMALLC_MR; i++)
            for (int j = 0; j < nv; j++)
                o2h_vstore(yr + (size_t)i * ep->hwo + (size_t)(ow + j * O2H_VL),
                           o2h_vmin(o2h_vmax(a[i][j], lo), hi));
        return;
    }
    for (int i = 0; i < O2H_SMALLC_MR; i++)
        for (int j = 0; j < nv; j++)
            acc[i][j] = a[i][j];
}

/* Store nf filters' tiles of nv vectors at output row yr (plane stride
 * hwo) from column ow; the last vector of the row may be partial. */
static void o2h_smallc_store(o2h_vf acc[O2H_SMALLC_MR][O2H_SMALLC_NV], int nf, int nv, int ow, int wo,
                             const O2hSmallcEpi *ep, float *yr)
{
    for (int i = 0; i < nf; i++)
        for (int j = 0; j < nv; j++) {
            int o = ow + j * O2H_VL, n = wo - o < O2H_VL ? wo - o : O2H_VL;
            if (n <= 0)
                break;
            size_t at = (size_t)i * ep->hwo + (size_t)o;
            float t[O2H_VL] = {0};
            o2h_vf v = acc[i][j];
            if (ep->res && n == O2H_VL)
                v += o2h_vload(ep->res + at);
            else if (ep->res)
                v += o2h_vload(memcpy(t, ep->res + at, (size_t)n * sizeof *t));
            if (ep->clamp)
                v = o2h_vmin(o2h_vmax(v, o2h_vset1(ep->lo)), o2h_vset1(ep->hi));
            if (n == O2H_VL) {
                o2h_vstore(yr + at, v);
                continue;
            }
            o2h_vstore(t, v);
            memcpy(yr + at, t, (size_t)n * sizeof *t);
        }
}

/* Output row oh of image n for every filter, from its filled phase rows. */
static void o2h_smallc_out_row(const O2hConv2d *p, const float *rows, const size_t *off,
                               const float *w, const float *bias, O2hSmallcEpi ep, float *y)
{
    int nt = p->C * p->KH * p->KW;
    const float *res = ep.res;
    for (int f0 = 0; f0 < p->F; f0 += O2H_SMALLC_MR) {
        const float *wr[O2H_SMALLC_MR];
        float b[O2H_SMALLC_MR];
        int nf = p->F - f0 < O2H_SMALLC_MR ? p->F - f0 : O2H_SMALLC_MR;
        for (int i = 0; i < O2H_SMALLC_MR; i++) {
            int f = f0 + (i < nf ? i : nf - 1);
            wr[i] = w + (size_t)f * nt;
            b[i] = bias ? bias[f] : 0.0f;
        }
        ep.res = res ? res + (size_t)f0 * ep.hwo : NULL;
        float *yf = y + (size_t)f0 * ep.hwo;
        float *yd = nf == O2H_SMALLC_MR && !ep.res && ep.clamp ? yf : NULL;
        int ow = 0;
        for (; ow + (O2H_SMALLC_NV * O2H_VL) <= p->WO; ow += (O2H_SMALLC_NV * O2H_VL)) {
            o2h_vf acc[O2H_SMALLC_MR][O2H_SMALLC_NV];
            o2h_smallc_tile(nt, O2H_SMALLC_NV, off, rows, wr, b, ow, acc, &ep, yd);
            if (!yd)
                o2h_smallc_store(acc, nf, O2H_SMALLC_NV, ow, p->WO, &ep, yf);
        }
        for (; ow < p->WO; ow += O2H_VL) {
            o2h_vf acc[O2H_SMALLC_MR][O2H_SMALLC_NV];
            float *yv = ow + O2H_VL <= p->WO ? yd : NULL;
            o2h_smallc_tile(nt, 1, off, rows, wr, b, ow, acc, &ep, yv);
            if (!yv)
                o2h_smallc_store(acc, nf, 1, ow, p->WO, &ep, yf);
        }
    }
}

#else
/* Output row oh of image n for every filter, one column at a time. */
static void o2h_smallc_out_row(const O2hConv2d *p, const float *rows, const size_t *off,
                               const float *w, const float *bias, O2hSmallcEpi ep, float *y)
{
    int nt = p->C * p->KH * p->KW;
    for (int f = 0; f < p->F; f++)
        for (int ow = 0; ow < p->WO; ow++) {
            float a = bias ? bias[f] : 0.0f;
            for (int t = 0; t < nt; t++)
                a += w[(size_t)f * nt + t] * rows[off[t] + (size_t)ow];
            size_t at = (size_t)f * ep.hwo + (size_t)ow;
            if (ep.res)
                a += ep.res[at];
            if (ep.clamp)
                a = a < ep.lo ? ep.lo : a > ep.hi ? ep.hi : a;
            y[at] = a;
        }
}
#endif

/* off[t] of tap t = (c, kh, kw) for output row oh: its phase row in the
 * ring (input row oh*SH - PT + kh*DH, column parity kw*DW % 2) plus the
 * tap's column shift kw*DW / 2. */
static void o2h_smallc_offsets(const O2hConv2d *p, int oh, size_t *off)
{
    size_t len = o2h_smallc_row(p);
    int span = o2h_smallc_span(p), t = 0;
    for (int c = 0; c < p->C; c++)
        for (int kh = 0; kh < p->KH; kh++) {
            int slot = (oh * p->SH + kh * p->DH) % span;
            for (int kw = 0; kw < p->KW; kw++, t++)
                off[t] = ((size_t)(c * span + slot) * 2 + (size_t)(kw * p->DW % 2)) * len +
                         (size_t)(kw * p->DW / 2);
        }
}

/* Image xn: per output row, the input rows it reaches that no earlier row
 * did are split into the ring (each input row once), then every filter's
 * outputs of the row. */
static void o2h_smallc_image(const O2hConv2d *p, const float *xn, size_t room, const float *w,
                             const float *bias, O2hSmallcEpi ep, float *yn, float *scratch)
{
    size_t off[O2H_SMALLC_MAX_TAPS];
    const float *res = ep.res;
    int span = o2h_smallc_span(p), next = -p->PT;
    memset(scratch, 0, o2h_smallc_floats(p) * sizeof *scratch);
    for (int oh = 0; oh < p->HO; oh++) {
        int top = oh * p->SH - p->PT;
        for (next = next > top ? next : top; next < top + span; next++)
            o2h_smallc_fill(p, xn, room, next, scratch);
        o2h_smallc_offsets(p, oh, off);
        ep.res = res ? res + (size_t)oh * p->WO : NULL;
        o2h_smallc_out_row(p, scratch, off, w, bias, ep, yn + (size_t)oh * p->WO);
    }
}

static void o2h_conv_smallc(const O2hConv2d *p, const float *x, const float *w,
                            const float *bias, const O2hEpilogue *e, float *y, float *scratch)
{
    size_t hwo = (size_t)p->HO * p->WO, chw = (size_t)p->C * p->H * p->W;
    int act = e && e->act != O2H_ACT_NONE;
    O2hSmallcEpi ep = {NULL, hwo, 0, 0.0f, 0.0f};
    ep.clamp = o2h_act_clamp(e, &ep.lo, &ep.hi);
    for (int n = 0; n < p->N; n++) {
        size_t yoff = (size_t)n * p->F * hwo;
        ep.res = e && e->residual ? e->residual + yoff : NULL;
        o2h_smallc_image(p, x + (size_t)n * chw, (size_t)(p->N - n) * chw, w, bias, ep,
                         y + yoff, scratch);
        if (act && !ep.clamp)
            for (int f = 0; f < p->F; f++)
                o2h_act_row(e, y + yoff + (size_t)f * hwo, hwo, f);
    }
}

/* ------------------------------------------------------------ interface */

void o2h_conv2d_f32(const O2hConv2d *p, const float *x, const float *w, const float *bias,
                    const O2hEpilogue *e, float *y, float *scratch)
{
    O2hConvPath path = o2h_conv_path(p);
    if (path == O2H_CONV_DEPTHWISE) {
        o2h_conv_depthwise(p, x, w, bias, e, y, scratch);
        return;
    }
    if (path == O2H_CONV_DIRECT) {
        o2h_conv_direct(p, x, w, bias, e, y, scratch);
        return;
    }
    if (path == O2H_CONV_WINOGRAD) {
        o2h_conv_wino(p, x, w, bias, e, y, scratch);
        return;
    }
    if (path == O2H_CONV_SMALLC) {
        o2h_conv_smallc(p, x, w, bias, e, y, scratch);
        return;
    }
    o2h_conv_gemm(p, x, w, bias, e, y, scratch);
}

/* ConvTranspose: every input pixel scatters its KH x KW window into the
 * output; rows are accumulated with contiguous (SW = 1) or strided stores. */
void o2h_conv_transpose2d_f32(const O2hConv2d *p, const float *x, const float *w,
                              const float *bias, float *y)
{
    int cg = p->C / p->G, fg = p->F / p->G;
    size_t hw = (size_t)p->H * p->W, hwo = (size_t)p->HO * p->WO;
    for (int n = 0; n < p->N; n++)
        for (int f = 0; f < p->F; f++) {
            int g = f / fg, fl = f % fg;
            float *yf = y + ((size_t)n * p->F + f) * hwo;
            float b = bias ? bias[f] : 0.0f;
            for (size_t i = 0; i < hwo; i++)
                yf[i] = b;
            for (int cl = 0; cl < cg; cl++) {
                int c = g * cg + cl;
                const float *xc = x + ((size_t)n * p->C + c) * hw;
                const float *wc = w + ((size_t)c * fg + fl) * p->KH * p->KW;
                for (int kh = 0; kh < p->KH; kh++)
                    for (int kw = 0; kw < p->KW; kw++) {
                        float wv = wc[kh * p->KW + kw];
                        int off = kw * p->DW - p->PL;
                        /* iw range with 0 <= iw*SW + off < WO */
                        int lo = off >= 0 ? 0 : (-off + p->SW - 1) / p->SW;
                        int hi = p->WO - off <= 0 ? 0 : (p->WO - off - 1) / p->SW + 1;
                        if (hi > p->W)
                            hi = p->W;
                        for (int ih = 0; ih < p->H; ih++) {
                            int oh = ih * p->SH - p->PT + kh * p->DH;
                            if (oh < 0 || oh >= p->HO)
                                continue;
                            const float *xr = xc + (size_t)ih * p->W;
                            float *yr = yf + (size_t)oh * p->WO;
                            for (int iw = lo; iw < hi; iw++)
                                yr[iw * p->SW + off] += wv * xr[iw];
                        }
                    }
            }
        }
}
