/* rt_int_conv.c - int8 convolution (standard, grouped, depthwise, pointwise)
 * and fully connected layers with int32 accumulators.
 *
 * Why it is written this way: the result is fixed by the contract (exact
 * integer sums, then one requantization), so the only freedom is speed.
 * Every conv but the depthwise ones becomes the int8 panel product of
 * rt_int_gemm.c (weights packed once, pixels packed per block for the ISA's
 * multiply instruction): pointwise convs read the input planes as its K x P
 * matrix directly, other convs first build that matrix (im2col, pads filled
 * with the input zero point). Depthwise convs use a padded copy of each
 * plane instead, since their matrix would be as large as the input times
 * the kernel size for a single output channel. 3x3 stride-1 convs go by
 * integer Winograd (rt_int_wino.c) where the kernels multiply int16 pairs.
 * FC layers are one dot product per output, by int16 pair products where
 * AVX2 is available. */
#include "rt_int_internal.h"

#if defined(__GNUC__) && !defined(O2H_NO_VEC) && (defined(__AVX2__) || defined(__AVX512F__))
#include <immintrin.h>
#endif

/* ------------------------------------------------ conv geometry */

static int o2h_is_pointwise(const O2hConv2d *p)
{
    return p->KH == 1 && p->KW == 1 && p->SH == 1 && p->SW == 1 && !p->PT && !p->PL && !p->PB &&
           !p->PR && p->H == p->HO && p->W == p->WO;
}

static int o2h_is_depthwise(const O2hConv2d *p)
{
    return p->G == p->C && p->F == p->C && p->G > 1 && p->KH * p->KW <= 64;
}

/* im2col matrix (not for pointwise), 64-aligned */
static size_t o2h_col_bytes(const O2hConv2d *p)
{
    size_t K = (size_t)(p->C / p->G) * p->KH * p->KW;
    return o2h_is_pointwise(p) ? 0 : (K * (size_t)p->HO * p->WO + 63) & ~(size_t)63;
}

static int o2h_conv_k(const O2hConv2d *p) { return p->C / p->G * p->KH * p->KW; }

static size_t o2h_max_size(size_t a, size_t b) { return a > b ? a : b; }

size_t o2h_conv2d_s8_packed_size(const O2hConv2d *p)
{
    if (o2h_is_depthwise(p))
        return o2h_dw_s8_packed_bytes(p);
    if (o2h_i8w_use(p))
        return o2h_i8w_packed_bytes(p);
    return (size_t)p->G * o2h_i8_packed_bytes(p->F / p->G, o2h_conv_k(p));
}

/* Bounds over instruction sets: a 3x3 conv that some build runs by
 * Winograd takes the larger of both forms. */
size_t o2h_conv2d_s8_packed_size_max(const O2hConv2d *p)
{
    if (o2h_is_depthwise(p))
        return o2h_dw_s8_packed_bytes_max(p);
    size_t direct = (size_t)p->G * o2h_i8_packed_bytes_max(p->F / p->G, o2h_conv_k(p));
    return o2h_i8w_fits(p) ? o2h_max_size(direct, o2h_i8w_packed_bytes_max(p)) : direct;
}

void o2h_conv2d_s8_pack(const O2hConv2d *p, const int8_t *w, const int32_t *bias, void *packed)
{
    if (o2h_is_depthwise(p)) {
        o2h_dw_s8_pack(p, w, bias, packed);
        return;
    }
    if (o2h_i8w_use(p)) {
        o2h_i8w_pack(p, w, bias, packed);
        return;
    }
    int fg = p->F / p->G, K = o2h_conv_k(p);
    size_t per = o2h_i8_packed_bytes(fg, K);
    for (int g = 0; g < p->G; g++)
        o2h_i8_pack(fg, K, w + (int64_t)g * fg * K, bias + (int64_t)g * fg, (char *)packed + (size_t)g * per);
}

/* Scratch of the packed entry: im2col matrix, then one pixel block (or
 * Winograd's blocks); an upper bound over instruction sets, since the
 * compiler computes it with its own build. */
static size_t o2h_run_scratch(const O2hConv2d *p)
{
    if (o2h_is_depthwise(p))
        return o2h_dw_s8_scratch(p);
    size_t direct = o2h_col_bytes(p) + o2h_i8_gemm_scratch(p->F / p->G, o2h_conv_k(p)) + 64;
    return o2h_i8w_fits(p) ? o2h_max_size(direct, o2h_i8w_scratch_max(p)) : direct;
}

size_t o2h_conv2d_s8_packed_scratch(const O2hConv2d *p)
{
    return o2h_run_scratch(p);
}

/* The unpacked entry packs into its scratch first. */
size_t o2h_conv2d_s8_scratch(const O2hConv2d *p)
{
    return ((o2h_conv2d_s8_packed_size_max(p) + 63) & ~(size_t)63) + o2h_run_scratch(p) + 64;
}

#if defined(__AVX2__) && !defined(O2H_NO_VEC)
/* 32 bytes at src split by parity: the 16 even bytes in the low half, the
 * 16 odd ones in the high half */
O2H_I_INLINE __m256i o2h_i8_split2(const int8_t *src)
{
    const __m256i eo = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12,
                                        14, 1, 3, 5, 7, 9, 11, 13, 15);
    __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)src);
    return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, eo), 0xD8);
}
#endif

/* dst[j] = src[j * S] for j < n, reading no byte past src[(n - 1) * S] */
static void o2h_i8_strided_copy(int8_t *dst, const int8_t *src, int n, int S)
{
    int j = 0;
    if (S == 1) {
        memcpy(dst, src, (size_t)(n > 0 ? n : 0));
        return;
    }
#if defined(__AVX2__) && !defined(O2H_NO_VEC)
    if (S == 2)
        for (; j + 16 <= n && 2 * j + 32 <= 2 * (n - 1) + 1; j += 16)
            _mm_storeu_si128((__m128i *)(void *)(dst + j), _mm256_castsi256_si128(o2h_i8_split2(src + 2 * j)));
#endif
    for (; j < n; j++)
        dst[j] = src[(int64_t)j * S];
}

/* Strided rows by phases: the input row with its pads (ln bytes, zero
 * point outside the plane) is split once into SW phase rows of pa bytes,
 * ph[s * pa + m] = padded[m * SW + s], so that every kw of the row is one
 * contiguous copy of WO bytes from phase kw DW % SW at kw DW / SW. */
enum { O2H_PH_ROW = 1024, O2H_PH_BUF = 1536 };

/* Whether the phase rows fit the stack buffers: SW 2..4, padded row
 * covering every tap read (pa <= ceil(ln / SW) + 63). */
static int o2h_phase_len(const O2hConv2d *p)
{
    int need = (p->WO - 1) * p->SW + (p->KW - 1) * p->DW + 1, ln = p->PL + p->W;
    ln = ln > need ? ln : need;
    return p->SW >= 2 && p->SW <= 4 && ln <= O2H_PH_ROW ? ln : 0;
}

static void o2h_phase_row(const O2hConv2d *p, const int8_t *src, int ln, int pa, int8_t zero, int8_t *pad,
                          int8_t *ph)
{
    int S = p->SW, pw = (ln + S - 1) / S;
    memset(pad, zero, (size_t)p->PL);
    memcpy(pad + p->PL, src, (size_t)p->W);
    memset(pad + p->PL + p->W, zero, (size_t)(S * pa - p->PL - p->W));
    int m = 0;
#if defined(__AVX2__) && !defined(O2H_NO_VEC)
    if (S == 2) {   /* 32 bytes -> 16 even, 16 odd; pa - pw >= 16 and 2 pa bytes of pad */
        for (; m < pw; m += 16) {
            __m256i v = o2h_i8_split2(pad + 2 * m);
            _mm_storeu_si128((__m128i *)(void *)(ph + m), _mm256_castsi256_si128(v));
            _mm_storeu_si128((__m128i *)(void *)(ph + pa + m), _mm256_extracti128_si256(v, 1));
        }
    }
#endif
    for (; m < pw; m++)
        for (int s = 0; s < S; s++)
            ph[s * pa + m] = pad[m * S + s];
}

/* im2col of a strided conv (o2h_phase_len(p) = ln > 0), row by row. */
static void o2h_im2col_phased(const O2hConv2d *p, const int8_t *x, int cg, int8_t zero, int8_t *col, int ln)
{
    _Alignas(32) int8_t pad[O2H_PH_BUF], ph[O2H_PH_BUF];
    int64_t P = (int64_t)p->HO * p->WO;
    int pa = (((ln + p->SW - 1) / p->SW + 31) & ~31) + 32;
    for (int c = 0; c < cg; c++)
        for (int kh = 0; kh < p->KH; kh++) {
            int8_t *row = col + ((int64_t)c * p->KH + kh) * p->KW * P;
            for (int oh = 0; oh < p->HO; oh++) {
                int ih = oh * p->SH - p->PT + kh * p->DH;
                int8_t *r = row + (int64_t)oh * p->WO;
                if (ih < 0 || ih >= p->H) {
                    for (int kw = 0; kw < p->KW; kw++)
                        memset(r + kw * P, zero, (size_t)p->WO);
                    continue;
                }
                o2h_phase_row(p, x + ((int64_t)c * p->H + ih) * p->W, ln, pa, zero, pad, ph);
                for (int kw = 0; kw < p->KW; kw++) {
                    int t = kw * p->DW;
                    memcpy(r + kw * P, ph + t % p->SW * pa + t / p->SW, (size_t)p->WO);
                }
            }
        }
}

/* col[(c*KH + kh)*KW + kw][oh*WO + ow] for the channels of one group. */
static void o2h_im2col_s8(const O2hConv2d *p, const int8_t *x, int cg, int8_t zero, int8_t *col)
{
    int64_t P = (int64_t)p->HO * p->WO;
    int ln = o2h_phase_len(p);
    if (ln) {
        o2h_im2col_phased(p, x, cg, zero, col, ln);
        return;
    }
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
                    int off = kw * p->DW - p->PL;  /* iw = ow * SW + off */
                    int ow0 = off >= 0 ? 0 : (-off + p->SW - 1) / p->SW;
                    int ow1 = p->W - off > 0 ? (p->W - off + p->SW - 1) / p->SW : 0;
                    ow1 = ow1 < p->WO ? ow1 : p->WO;
                    ow0 = ow0 < ow1 ? ow0 : ow1;
                    for (int j = 0; j < ow0 && j < 4; j++)   /* pads: mostly 0 or 1 */
                        r[j] = zero;
                    if (ow0 > 4)
                        memset(r, zero, (size_t)ow0);
                    o2h_i8_strided_copy(r + ow0, src + ow0 * p->SW + off, ow1 - ow0, p->SW);
                    for (int j = ow1; j < p->WO && j < ow1 + 4; j++)
                        r[j] = zero;
                    if (p->WO - ow1 > 4)
                        memset(r + ow1, zero, (size_t)(p->WO - ow1));
                }
            }
}

/* ------------------------------------------------ entry points */

void o2h_conv2d_s8_packed(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                          const void *packed, int8_t *y, void *scratch)
{
    if (o2h_is_depthwise(p)) {
        o2h_dw_s8_run(p, x_zero, rq, x, packed, y, scratch);
        return;
    }
    if (o2h_i8w_use(p)) {
        o2h_i8w_run(p, x_zero, rq, x, packed, y, scratch);
        return;
    }
    int cg = p->C / p->G, fg = p->F / p->G, K = o2h_conv_k(p);
    int64_t hw = (int64_t)p->H * p->W, P = (int64_t)p->HO * p->WO;
    int pw = o2h_is_pointwise(p);
    size_t per = o2h_i8_packed_bytes(fg, K);
    int8_t *col = o2h_i_align64(scratch);
    void *blk = o2h_i_align64((char *)col + o2h_col_bytes(p));
    for (int n = 0; n < p->N; n++)
        for (int g = 0; g < p->G; g++) {
            const int8_t *xg = x + ((int64_t)n * p->C + (int64_t)g * cg) * hw;
            if (!pw)
                o2h_im2col_s8(p, xg, cg, (int8_t)x_zero, col);
            O2hI8Gemm q = {fg, K, (int)P, (const char *)packed + (size_t)g * per, pw ? xg : col, P, rq, g * fg,
                           y + ((int64_t)n * p->F + (int64_t)g * fg) * P, P, blk};
            o2h_i8_gemm(&q);
        }
}

void o2h_conv2d_s8(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                   const int8_t *w, const int32_t *bias, int8_t *y, void *scratch)
{
    void *packed = o2h_i_align64(scratch);
    o2h_conv2d_s8_pack(p, w, bias, packed);
    o2h_conv2d_s8_packed(p, x_zero, rq, x, packed, y,
                         (char *)packed + ((o2h_conv2d_s8_packed_size(p) + 63) & ~(size_t)63));
}

#if defined(__AVX2__) && !defined(O2H_NO_VEC)
/* acc[i] = sum_k x[k] w[i K + k] over the first multiple of 32 of k, for
 * rows i < rows, by int16 pair products: partial sums may wrap modulo
 * 2^32, the whole one does not; returns the k done. One row at a time, so
 * that the weights (read once per inference, mostly from memory) stream
 * in order: four rows side by side measured twice as slow. */
static int o2h_fc_dots(const int8_t *x, const int8_t *w, int K, int rows, int32_t *acc)
{
    int k = 0;
    for (int i = 0; i < rows; i++) {
        const int8_t *wr = w + (int64_t)i * K;
        __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
        for (k = 0; k + 32 <= K; k += 32) {
            __m256i x0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(x + k)));
            __m256i x1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(x + k + 16)));
            __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(wr + k)));
            __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(wr + k + 16)));
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(x0, w0));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(x1, w1));
        }
        __m128i s = _mm_add_epi32(_mm256_castsi256_si128(a0), _mm256_extracti128_si256(a0, 1));
        s = _mm_add_epi32(s, _mm_add_epi32(_mm256_castsi256_si128(a1), _mm256_extracti128_si256(a1, 1)));
        s = _mm_hadd_epi32(s, s);
        acc[i] = _mm_cvtsi128_si32(_mm_hadd_epi32(s, s));
    }
    return k;
}
#endif

/* The sums of rows n .. n + rows - 1 (rows <= 4) of w against x. */
static void o2h_fc_sums(const int8_t *x, const int8_t *w, int K, int rows, int32_t *acc)
{
    int k0 = 0;
#if defined(__AVX2__) && !defined(O2H_NO_VEC)
    k0 = o2h_fc_dots(x, w, K, rows, acc);
#else
    for (int i = 0; i < rows; i++)
        acc[i] = 0;
#endif
    for (int i = 0; i < rows; i++)
        for (int k = k0; k < K; k++)
            acc[i] += (int16_t)(x[k] * w[(int64_t)i * K + k]);
}

void o2h_fc_s8(const O2hFcQ *p, const O2hRequant *rq, const int8_t *x, const int8_t *w,
               const int32_t *bias, int8_t *y)
{
    for (int m = 0; m < p->M; m++) {
        const int8_t *xr = x + (int64_t)m * p->K;
        int32_t sums[4];
        for (int n = 0; n < p->N; n++) {
            if (n % 4 == 0)
                o2h_fc_sums(xr, w + (int64_t)n * p->K, p->K, p->N - n < 4 ? p->N - n : 4, sums);
            int32_t acc = sums[n % 4];
            acc += bias[n];
            int i = rq->n > 1 ? n : 0;
            y[(int64_t)m * p->N + n] = (int8_t)o2h_clamp32(rq->zero + o2h_rq32(acc, rq->mult[i], rq->shift[i]),
                                                            rq->lo, rq->hi);
        }
    }
}
