/* rt_conv.c - 2-D convolution (all groupings, pads, strides, dilations) with
 * a fused epilogue, weight packing, and ConvTranspose.
 *
 * Why three paths: a CNN's convs come in three shapes that want different
 * loops.
 *  - pointwise (1x1, stride 1, no pads): the input plane [C][H*W] already is
 *    the B matrix of a GEMM, so it goes straight to the GEMM core;
 *  - depthwise (groups == input channels, any multiplier): no reduction over
 *    channels, so a GEMM would waste its tile; instead each input plane is
 *    copied once into a zero-padded, stride-phase-split buffer and every
 *    output row is a short sum of contiguous vector loads times scalar taps;
 *  - everything else: im2col of a block of output columns (sized so the
 *    panel stays in L2) followed by the GEMM core.
 * Weights for the GEMM paths are repacked once at init into MR-row panels;
 * depthwise weights are used in ONNX layout. */
#include "rt_internal.h"

typedef enum { O2H_CONV_GEMM1X1, O2H_CONV_DEPTHWISE, O2H_CONV_IM2COL } O2hConvPath;

/* Bytes of im2col panel kept per block of output columns (L2-sized). */
#define O2H_IM2COL_FLOATS 65536

static O2hConvPath o2h_conv_path(const O2hConv2d *p)
{
    if (p->G > 1 && p->G == p->C && p->F % p->C == 0)
        return O2H_CONV_DEPTHWISE;
    if (p->KH == 1 && p->KW == 1 && p->SH == 1 && p->SW == 1 && p->PT == 0 && p->PL == 0 &&
        p->PB == 0 && p->PR == 0 && p->HO == p->H && p->WO == p->W)
        return O2H_CONV_GEMM1X1;
    return O2H_CONV_IM2COL;
}

static int o2h_conv_k(const O2hConv2d *p) { return p->C / p->G * p->KH * p->KW; }

/* Output columns per im2col block: a multiple of NR, at least NR. */
static int o2h_im2col_cols(const O2hConv2d *p)
{
    int k = o2h_conv_k(p), n = p->HO * p->WO;
    int nc = O2H_IM2COL_FLOATS / (k > 0 ? k : 1) / O2H_NR * O2H_NR;
    int nmax = (n + O2H_NR - 1) / O2H_NR * O2H_NR;
    if (nc < O2H_NR)
        nc = O2H_NR;
    return nc < nmax ? nc : nmax;
}

/* Depthwise padded plane geometry: SW phases of rows x cols floats. */
typedef struct {
    int rows, cols;
} O2hDwPlane;

static O2hDwPlane o2h_dw_plane(const O2hConv2d *p)
{
    int wov = (p->WO + O2H_VL - 1) / O2H_VL * O2H_VL;
    int wneed = (wov - 1) * p->SW + (p->KW - 1) * p->DW + 1;
    O2hDwPlane d;
    d.rows = (p->HO - 1) * p->SH + (p->KH - 1) * p->DH + 1;
    d.cols = (wneed + p->SW - 1) / p->SW + 1;
    return d;
}

size_t o2h_conv2d_packed_size(const O2hConv2d *p)
{
    if (o2h_conv_path(p) == O2H_CONV_DEPTHWISE)
        return 0;
    return (size_t)p->G * o2h_gemm_panels_size(p->F / p->G, o2h_conv_k(p));
}

void o2h_conv2d_pack(const O2hConv2d *p, const float *w_onnx, float *w_packed)
{
    if (o2h_conv_path(p) == O2H_CONV_DEPTHWISE)
        return;
    int fg = p->F / p->G, k = o2h_conv_k(p);
    size_t per = o2h_gemm_panels_size(fg, k);
    for (int g = 0; g < p->G; g++)
        o2h_gemm_pack_a_panels(fg, k, w_onnx + (size_t)g * fg * k, k, 1, w_packed + g * per);
}

size_t o2h_conv2d_scratch_size(const O2hConv2d *p)
{
    size_t s = 0;
    switch (o2h_conv_path(p)) {
    case O2H_CONV_DEPTHWISE: {
        O2hDwPlane d = o2h_dw_plane(p);
        return (size_t)p->SW * d.rows * d.cols + (size_t)O2H_VL;
    }
    case O2H_CONV_IM2COL:
        s = (size_t)o2h_conv_k(p) * o2h_im2col_cols(p);
        break;
    case O2H_CONV_GEMM1X1:
        break;
    }
    return s;
}

/* ------------------------------------------------------------- im2col */

/* Row (c, kh, kw) of the im2col matrix for output pixels [n0, n0+nc). */
static void o2h_im2col_row(const O2hConv2d *p, const float *xc, int kh, int kw, int n0,
                           int nc, float *dst)
{
    int done = 0;
    while (done < nc) {
        int pix = n0 + done, oh = pix / p->WO, ow0 = pix % p->WO;
        int len = p->WO - ow0 < nc - done ? p->WO - ow0 : nc - done;
        int ih = oh * p->SH - p->PT + kh * p->DH;
        float *d = dst + done;
        done += len;
        if (ih < 0 || ih >= p->H) {
            for (int j = 0; j < len; j++)
                d[j] = 0.0f;
            continue;
        }
        const float *xr = xc + (size_t)ih * p->W;
        int off = kw * p->DW - p->PL;
        for (int j = 0; j < len; j++) {
            int iw = (ow0 + j) * p->SW + off;
            d[j] = iw >= 0 && iw < p->W ? xr[iw] : 0.0f;
        }
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
                              (ptrdiff_t)hwo, &ep, NULL);
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

/* Copy input plane xc into the padded, phase-split buffer. */
static void o2h_dw_fill(const O2hConv2d *p, O2hDwPlane d, const float *xc, float *buf)
{
    for (int s = 0; s < p->SW; s++)
        for (int r = 0; r < d.rows; r++) {
            float *row = buf + ((size_t)s * d.rows + r) * d.cols;
            int ih = r - p->PT;
            if (ih < 0 || ih >= p->H) {
                memset(row, 0, (size_t)d.cols * sizeof *row);
                continue;
            }
            const float *xr = xc + (size_t)ih * p->W;
            for (int j = 0; j < d.cols; j++) {
                int iw = j * p->SW + s - p->PL;
                row[j] = iw >= 0 && iw < p->W ? xr[iw] : 0.0f;
            }
        }
}

#if O2H_VEC
/* One output row of one depthwise channel, KH x KW taps, vectors along WO.
 * rows[kh*KW + kw] points at the tap's first input for ow = 0. */
O2H_INLINE void o2h_dw_row_vec(int ntap, const float *const *taps, const float *wt, float b,
                               const float *res, int wo, const O2hEpilogue *e, float *out)
{
    O2hActKind act = e ? e->act : O2H_ACT_NONE;
    o2h_vf lo = o2h_vset1(act == O2H_ACT_CLIP ? e->alpha : 0.0f);
    o2h_vf hi = o2h_vset1(act == O2H_ACT_CLIP ? e->beta : 0.0f);
    for (int ow = 0; ow < wo; ow += O2H_VL) {
        o2h_vf acc = o2h_vset1(b);
        for (int t = 0; t < ntap; t++)
            acc += wt[t] * o2h_vload(taps[t] + ow);
        if (res && ow + O2H_VL <= wo) {
            acc += o2h_vload(res + ow);
        } else if (res) {
            float tmp[O2H_VL] = {0};
            memcpy(tmp, res + ow, (size_t)(wo - ow) * sizeof(float));
            acc += o2h_vload(tmp);
        }
        if (act == O2H_ACT_RELU)
            acc = o2h_vmax(acc, (o2h_vf){0});
        else if (act == O2H_ACT_CLIP)
            acc = o2h_vmin(o2h_vmax(acc, lo), hi);
        if (ow + O2H_VL <= wo) {
            o2h_vstore(out + ow, acc);
        } else {
            float tmp[O2H_VL];
            o2h_vstore(tmp, acc);
            memcpy(out + ow, tmp, (size_t)(wo - ow) * sizeof(float));
        }
    }
}

static void o2h_dw_row(int ntap, const float *const *taps, const float *wt, float b,
                       const float *res, int wo, const O2hEpilogue *e, float *out)
{
    if (ntap == 9)
        o2h_dw_row_vec(9, taps, wt, b, res, wo, e, out);
    else if (ntap == 25)
        o2h_dw_row_vec(25, taps, wt, b, res, wo, e, out);
    else
        o2h_dw_row_vec(ntap, taps, wt, b, res, wo, e, out);
}
#else
static void o2h_dw_row(int ntap, const float *const *taps, const float *wt, float b,
                       const float *res, int wo, const O2hEpilogue *e, float *out)
{
    for (int ow = 0; ow < wo; ow++) {
        float acc = b;
        for (int t = 0; t < ntap; t++)
            acc += wt[t] * taps[t][ow];
        if (res)
            acc += res[ow];
        out[ow] = acc;
    }
    (void)e;
}
#endif

static int o2h_act_inline(const O2hEpilogue *e)
{
#if O2H_VEC
    return !e || e->act == O2H_ACT_NONE || e->act == O2H_ACT_RELU || e->act == O2H_ACT_CLIP;
#else
    return !e || e->act == O2H_ACT_NONE;
#endif
}

/* One output channel f reading the filled buffer of its input channel. */
static void o2h_dw_channel(const O2hConv2d *p, O2hDwPlane d, const float *buf, const float *wf,
                           float b, const float *res, const O2hEpilogue *e, int f, float *yf)
{
    enum { O2H_DW_MAX_TAPS = 64 };
    const float *taps[O2H_DW_MAX_TAPS];
    int ntap = p->KH * p->KW;
    int inl = o2h_act_inline(e);
    for (int oh = 0; oh < p->HO; oh++) {
        int t = 0;
        for (int kh = 0; kh < p->KH; kh++)
            for (int kw = 0; kw < p->KW; kw++, t++) {
                int q = kw * p->DW, s = q % p->SW;
                int r = oh * p->SH + kh * p->DH;
                taps[t] = buf + ((size_t)s * d.rows + r) * d.cols + q / p->SW;
            }
        float *out = yf + (size_t)oh * p->WO;
        const float *rr = res ? res + (size_t)oh * p->WO : NULL;
        o2h_dw_row(ntap, taps, wf, b, rr, p->WO, inl ? e : NULL, out);
        if (!inl)
            o2h_act_row(e, out, (size_t)p->WO, f);
    }
}

/* Generic direct loop for filters too large for the tap table. */
static void o2h_dw_channel_big(const O2hConv2d *p, O2hDwPlane d, const float *buf,
                               const float *wf, float b, const float *res, const O2hEpilogue *e,
                               int f, float *yf)
{
    for (int oh = 0; oh < p->HO; oh++) {
        float *out = yf + (size_t)oh * p->WO;
        for (int ow = 0; ow < p->WO; ow++)
            out[ow] = b + (res ? res[(size_t)oh * p->WO + ow] : 0.0f);
        for (int kh = 0; kh < p->KH; kh++)
            for (int kw = 0; kw < p->KW; kw++) {
                int q = kw * p->DW, s = q % p->SW;
                const float *row =
                    buf + ((size_t)s * d.rows + oh * p->SH + kh * p->DH) * d.cols + q / p->SW;
                float wv = wf[kh * p->KW + kw];
                for (int ow = 0; ow < p->WO; ow++)
                    out[ow] += wv * row[ow];
            }
        o2h_act_row(e, out, (size_t)p->WO, f);
    }
}

static void o2h_conv_depthwise(const O2hConv2d *p, const float *x, const float *w,
                               const float *bias, const O2hEpilogue *e, float *y, float *buf)
{
    O2hDwPlane d = o2h_dw_plane(p);
    int mult = p->F / p->C, ntap = p->KH * p->KW;
    size_t hw = (size_t)p->H * p->W, hwo = (size_t)p->HO * p->WO;
    for (int n = 0; n < p->N; n++)
        for (int c = 0; c < p->C; c++) {
            o2h_dw_fill(p, d, x + ((size_t)n * p->C + c) * hw, buf);
            for (int m = 0; m < mult; m++) {
                int f = c * mult + m;
                size_t off = ((size_t)n * p->F + f) * hwo;
                const float *res = e && e->residual ? e->residual + off : NULL;
                float b = bias ? bias[f] : 0.0f;
                const float *wf = w + (size_t)f * ntap;
                if (ntap <= 64)
                    o2h_dw_channel(p, d, buf, wf, b, res, e, f, y + off);
                else
                    o2h_dw_channel_big(p, d, buf, wf, b, res, e, f, y + off);
            }
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
