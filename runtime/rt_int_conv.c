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
#if defined(__GNUC__) && !defined(O2H_NO_VEC) && (defined(__AVX2__) || defined(__AVX512F__))
#include <immintrin.h>
#endif

/* ------------------------------------------------ requantize a tile */

#if defined(__AVX512F__) && !defined(O2H_NO_VEC)
/* 16 outputs per step: the rule below in 8-lane int64 halves, clamped with
 * 64-bit min/max and narrowed straight to bytes. */
static int o2h_requant_avx512(const int32_t *acc, int n, int32_t m, int sh, int32_t z, int32_t lo, int32_t hi,
                              int8_t *y)
{
    const uint64_t off = (uint64_t)1 << 63;
    const __m512i vm = _mm512_set1_epi64(m);
    const __m512i add = _mm512_set1_epi64((long long)(off | ((uint64_t)1 << (sh - 1))));
    const __m512i sub = _mm512_set1_epi64((long long)(off >> sh) - z);
    const __m512i vlo = _mm512_set1_epi64(lo), vhi = _mm512_set1_epi64(hi);
    const __m128i cnt = _mm_cvtsi32_si128(sh);
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i a = _mm512_loadu_si512(acc + i);
        __m512i q[2] = {_mm512_cvtepi32_epi64(_mm512_castsi512_si256(a)),
                        _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(a, 1))};
        for (int k = 0; k < 2; k++) {
            __m512i v = _mm512_add_epi64(_mm512_mul_epi32(q[k], vm), add);
            v = _mm512_sub_epi64(_mm512_srl_epi64(v, cnt), sub);
            v = _mm512_min_epi64(_mm512_max_epi64(v, vlo), vhi);
            _mm_storel_epi64((__m128i *)(void *)(y + i + 8 * k), _mm512_cvtepi64_epi8(v));
        }
    }
    return i;
}
#endif

#if defined(__AVX2__) && !defined(O2H_NO_VEC)
/* 8 outputs per step, the exact rule in 64-bit lanes: p = acc * M (signed
 * 32x32 -> 64), u = p + 2^(sh-1) + 2^63 (no wrap: |p| < 2^62), y = (u >>
 * sh) - 2^(63-sh) + zero, clamped. Returns how many outputs it wrote. */
static int o2h_requant_avx2(const int32_t *acc, int n, int32_t m, int sh, int32_t z, int32_t lo, int32_t hi,
                            int8_t *y)
{
    const uint64_t off = (uint64_t)1 << 63;
    const __m256i vm = _mm256_set1_epi64x(m);
    const __m256i add = _mm256_set1_epi64x((long long)(off | ((uint64_t)1 << (sh - 1))));
    const __m256i sub = _mm256_set1_epi64x((long long)(off >> sh) - z);
    const __m256i vlo = _mm256_set1_epi64x(lo), vhi = _mm256_set1_epi64x(hi);
    const __m256i low32 = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    const __m128i cnt = _mm_cvtsi32_si128(sh);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(acc + i));
        __m256i q[2] = {_mm256_cvtepi32_epi64(_mm256_castsi256_si128(a)),
                        _mm256_cvtepi32_epi64(_mm256_extracti128_si256(a, 1))};
        __m128i h[2];
        for (int k = 0; k < 2; k++) {
            __m256i v = _mm256_add_epi64(_mm256_mul_epi32(q[k], vm), add);
            v = _mm256_sub_epi64(_mm256_srl_epi64(v, cnt), sub);
            v = _mm256_blendv_epi8(v, vlo, _mm256_cmpgt_epi64(vlo, v));
            v = _mm256_blendv_epi8(v, vhi, _mm256_cmpgt_epi64(v, vhi));
            h[k] = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(v, low32));
        }
        __m128i w16 = _mm_packs_epi32(h[0], h[1]);
        _mm_storel_epi64((__m128i *)(void *)(y + i), _mm_packs_epi16(w16, w16));
    }
    return i;
}
#endif

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
    int j = 0;
#if defined(__AVX512F__) && !defined(O2H_NO_VEC)
    j = o2h_requant_avx512(acc, n, m, sh, z, lo, hi, y);
#endif
#if defined(__AVX2__) && !defined(O2H_NO_VEC)
    j += o2h_requant_avx2(acc + j, n - j, m, sh, z, lo, hi, y + j);
#endif
    int64_t half = (int64_t)1 << (sh - 1);
    for (; j < n; j++) {
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
    int8_t *tail;            /* K * O2H_VT bytes of scratch for a partial tile (VT <= O2H_TAIL_MAX) */
    void *work;              /* o2h_vnni_bytes(F, K) bytes for the VNNI path */
} O2hPanel;

/* Scratch of the VNNI path (sized for every build, so that the size does
 * not depend on the instruction set): packed weights, corrected biases and
 * one packed block of 32 pixels. */
static size_t o2h_vnni_bytes(int F, int K)
{
    size_t k4 = ((size_t)K + 3) / 4;
    return (size_t)F * k4 * 4 + (size_t)F * 4 + 64 + k4 * 128 + 64;
}

/* Bytes per reduction step of the partial-tile block: the scratch size
 * must not depend on the instruction set the program is built for. */
#define O2H_TAIL_MAX 64

#if defined(__GNUC__) && !defined(O2H_NO_VEC)
/* Vector path: 4 channels x O2H_VT pixels of int32 accumulators live in
 * registers for the whole reduction (GCC/clang vector extensions, as wide
 * as the target's registers). */
#if defined(__AVX512F__)
#define O2H_IVL 16
#elif defined(__AVX__)
#define O2H_IVL 8
#else
#define O2H_IVL 4
#endif
#define O2H_VT (2 * O2H_IVL)
#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512F__)
#define O2H_VNNI 1  /* 4 products per int32 lane and instruction (below) */
#endif
typedef int32_t o2h_vi __attribute__((vector_size(O2H_IVL * 4)));
typedef int8_t o2h_vb __attribute__((vector_size(O2H_IVL)));

/* O2H_IVL int8 -> int32 lanes: one sign-extending load where the ISA has it */
#if defined(__AVX512F__)
#define O2H_LD8(v, p) ((v) = (o2h_vi)_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p))))
#elif defined(__AVX2__)
#define O2H_LD8(v, p) ((v) = (o2h_vi)_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(p))))
#else
#define O2H_LD8(v, p)                                 \
    do {                                              \
        o2h_vb b_;                                    \
        memcpy(&b_, (p), sizeof b_);                  \
        (v) = __builtin_convertvector(b_, o2h_vi);    \
    } while (0)
#endif

static void o2h_tile_out(const O2hPanel *q, int f, int rows, int p0, int np, const int32_t *acc)
{
    for (int r = 0; r < rows; r++)
        o2h_requant_row(acc + r * O2H_VT, np, q->rq, q->ch0 + f + r, q->y + (int64_t)(f + r) * q->ldy + p0);
}

#ifndef O2H_VNNI
static void o2h_tile4(const O2hPanel *q, const int8_t *col, int64_t ldc, int f, int p0, int np)
{
    const int8_t *w0 = q->w + (int64_t)f * q->K, *w1 = w0 + q->K, *w2 = w1 + q->K, *w3 = w2 + q->K;
    o2h_vi z = {0}, a0 = z + q->bias[f], a1 = a0, b0 = z + q->bias[f + 1], b1 = b0;
    o2h_vi c0 = z + q->bias[f + 2], c1 = c0, d0 = z + q->bias[f + 3], d1 = d0;
    for (int k = 0; k < q->K; k++) {
        const int8_t *c = col + k * ldc;
        o2h_vi x0, x1;
        O2H_LD8(x0, c);
        O2H_LD8(x1, c + O2H_IVL);
        int32_t u = w0[k], v = w1[k], s = w2[k], t = w3[k];
        a0 += x0 * u, a1 += x1 * u;
        b0 += x0 * v, b1 += x1 * v;
        c0 += x0 * s, c1 += x1 * s;
        d0 += x0 * t, d1 += x1 * t;
    }
    int32_t acc[4 * O2H_VT];
    size_t vb = sizeof(o2h_vi);
    memcpy(acc, &a0, vb), memcpy(acc + O2H_IVL, &a1, vb);
    memcpy(acc + O2H_VT, &b0, vb), memcpy(acc + O2H_VT + O2H_IVL, &b1, vb);
    memcpy(acc + 2 * O2H_VT, &c0, vb), memcpy(acc + 2 * O2H_VT + O2H_IVL, &c1, vb);
    memcpy(acc + 3 * O2H_VT, &d0, vb), memcpy(acc + 3 * O2H_VT + O2H_IVL, &d1, vb);
    o2h_tile_out(q, f, 4, p0, np, acc);
}

static void o2h_tile1(const O2hPanel *q, const int8_t *col, int64_t ldc, int f, int p0, int np)
{
    const int8_t *w0 = q->w + (int64_t)f * q->K;
    o2h_vi z = {0}, a0 = z + q->bias[f], a1 = a0;
    for (int k = 0; k < q->K; k++) {
        const int8_t *c = col + k * ldc;
        o2h_vi x0, x1;
        O2H_LD8(x0, c);
        O2H_LD8(x1, c + O2H_IVL);
        int32_t u = w0[k];
        a0 += x0 * u, a1 += x1 * u;
    }
    int32_t acc[O2H_VT];
    memcpy(acc, &a0, sizeof(o2h_vi)), memcpy(acc + O2H_IVL, &a1, sizeof(o2h_vi));
    o2h_tile_out(q, f, 1, p0, np, acc);
}

#endif

#ifdef O2H_VNNI
/* VNNI: vpdpbusd adds 4 products of unsigned x signed bytes per int32 lane.
 * Inputs are shifted to unsigned (x + 128) and the bias corrected by
 * -128 * sum(w[f]) - the same integer sum, wrapping arithmetic (exact in
 * the end since the true sum fits int32, see the compiler's check). A block
 * holds 32 pixels x 4 consecutive k as [k/4][pixel][4] bytes. */

/* rows of K bytes with K % 4 == 0 are already [k/4][4]: only the sums */
static const int32_t *o2h_vnni_weights(const O2hPanel *q, int32_t *w4, int32_t *corr)
{
    int K4 = (q->K + 3) / 4;
    if (q->K % 4 == 0) {
        for (int f = 0; f < q->F; f++) {
            const int8_t *w = q->w + (int64_t)f * q->K;
            int32_t sum = 0;
            for (int k = 0; k < q->K; k++)
                sum += w[k];
            corr[f] = (int32_t)((int64_t)q->bias[f] - 128 * (int64_t)sum);
        }
        return (const int32_t *)(const void *)q->w;
    }
    for (int f = 0; f < q->F; f++) {
        const int8_t *w = q->w + (int64_t)f * q->K;
        int64_t sum = 0;
        for (int k4 = 0; k4 < K4; k4++) {
            uint8_t b[4] = {0, 0, 0, 0};
            for (int j = 0; j < 4 && 4 * k4 + j < q->K; j++) {
                b[j] = (uint8_t)w[4 * k4 + j];
                sum += w[4 * k4 + j];
            }
            memcpy(&w4[(int64_t)f * K4 + k4], b, 4);
        }
        corr[f] = (int32_t)((int64_t)q->bias[f] - 128 * sum);
    }
    return w4;
}

static void o2h_vnni_block(const int8_t *col, int64_t ldc, int K, uint8_t *blk)
{
    const __m256i flip = _mm256_set1_epi8((char)0x80);
    for (int k = 0; k < K; k += 4) {
        __m256i r[4];
        for (int j = 0; j < 4; j++)
            r[j] = k + j < K ? _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(col + (k + j) * ldc)),
                                                flip)
                             : _mm256_setzero_si256();
        __m256i t0 = _mm256_unpacklo_epi8(r[0], r[1]), t1 = _mm256_unpackhi_epi8(r[0], r[1]);
        __m256i t2 = _mm256_unpacklo_epi8(r[2], r[3]), t3 = _mm256_unpackhi_epi8(r[2], r[3]);
        __m256i u0 = _mm256_unpacklo_epi16(t0, t2), u1 = _mm256_unpackhi_epi16(t0, t2);
        __m256i u2 = _mm256_unpacklo_epi16(t1, t3), u3 = _mm256_unpackhi_epi16(t1, t3);
        uint8_t *o = blk + (k / 4) * 128;
        _mm256_storeu_si256((__m256i *)(void *)o, _mm256_permute2x128_si256(u0, u1, 0x20));
        _mm256_storeu_si256((__m256i *)(void *)(o + 32), _mm256_permute2x128_si256(u2, u3, 0x20));
        _mm256_storeu_si256((__m256i *)(void *)(o + 64), _mm256_permute2x128_si256(u0, u1, 0x31));
        _mm256_storeu_si256((__m256i *)(void *)(o + 96), _mm256_permute2x128_si256(u2, u3, 0x31));
    }
}

/* a 4-byte weight group (rows may be unaligned when used in place) */
static inline int32_t o2h_word(const int32_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void o2h_vnni_tile(const O2hPanel *q, const uint8_t *blk, const int32_t *w4, const int32_t *corr, int f,
                          int rows, int p0, int np)
{
    int K4 = (q->K + 3) / 4;
    __m512i a[4][2];
    for (int r = 0; r < rows; r++)
        a[r][0] = a[r][1] = _mm512_set1_epi32(corr[f + r]);
    const int32_t *w = w4 + (int64_t)f * K4;
    if (rows == 4) {
        for (int k4 = 0; k4 < K4; k4++) {
            __m512i x0 = _mm512_loadu_si512(blk + k4 * 128), x1 = _mm512_loadu_si512(blk + k4 * 128 + 64);
            for (int r = 0; r < 4; r++) {
                __m512i u = _mm512_set1_epi32(o2h_word(w + (int64_t)r * K4 + k4));
                a[r][0] = _mm512_dpbusd_epi32(a[r][0], x0, u);
                a[r][1] = _mm512_dpbusd_epi32(a[r][1], x1, u);
            }
        }
    } else {
        for (int k4 = 0; k4 < K4; k4++) {
            __m512i x0 = _mm512_loadu_si512(blk + k4 * 128), x1 = _mm512_loadu_si512(blk + k4 * 128 + 64);
            for (int r = 0; r < rows; r++) {
                __m512i u = _mm512_set1_epi32(o2h_word(w + (int64_t)r * K4 + k4));
                a[r][0] = _mm512_dpbusd_epi32(a[r][0], x0, u);
                a[r][1] = _mm512_dpbusd_epi32(a[r][1], x1, u);
            }
        }
    }
    int32_t acc[4 * O2H_VT];
    for (int r = 0; r < rows; r++) {
        _mm512_storeu_si512(acc + r * O2H_VT, a[r][0]);
        _mm512_storeu_si512(acc + r * O2H_VT + 16, a[r][1]);
    }
    o2h_tile_out(q, f, rows, p0, np, acc);
}
#endif

/* a last partial tile is copied to a zero-padded K x O2H_VT block */
static void o2h_panel(const O2hPanel *q)
{
#ifdef O2H_VNNI
    int K4 = (q->K + 3) / 4;
    int32_t *corr = q->work, *pack = corr + q->F;
    uint8_t *blk = (uint8_t *)(((uintptr_t)(pack + (int64_t)q->F * K4) + 63) & ~(uintptr_t)63);
    const int32_t *w4 = o2h_vnni_weights(q, pack, corr);
#endif
    for (int p0 = 0; p0 < q->P; p0 += O2H_VT) {
        int np = q->P - p0 < O2H_VT ? q->P - p0 : O2H_VT;
        const int8_t *col = q->col + p0;
        int64_t ldc = q->ldc;
        if (np < O2H_VT) {
            for (int k = 0; k < q->K; k++) {
                memcpy(q->tail + (int64_t)k * O2H_VT, q->col + k * q->ldc + p0, (size_t)np);
                memset(q->tail + (int64_t)k * O2H_VT + np, 0, (size_t)(O2H_VT - np));
            }
            col = q->tail;
            ldc = O2H_VT;
        }
#ifdef O2H_VNNI
        o2h_vnni_block(col, ldc, q->K, blk);
        for (int f = 0; f < q->F; f += 4)
            o2h_vnni_tile(q, blk, w4, corr, f, q->F - f < 4 ? q->F - f : 4, p0, np);
#else
        int f = 0;
        for (; f + 4 <= q->F; f += 4)
            o2h_tile4(q, col, ldc, f, p0, np);
        for (; f < q->F; f++)
            o2h_tile1(q, col, ldc, f, p0, np);
#endif
    }
}
#else
/* Plain C: the same sums over tiles of output pixels, accumulators in
 * memory; compilers vectorize the inner loops. */
#define O2H_VT 256

static void o2h_panel_rows(const O2hPanel *q, int f, int rows, int p0, int np)
{
    int32_t acc[4][O2H_VT];
    for (int r = 0; r < rows; r++)
        for (int i = 0; i < np; i++)
            acc[r][i] = q->bias[f + r];
    for (int k = 0; k < q->K; k++) {
        const int8_t *c = q->col + k * q->ldc + p0;
        for (int r = 0; r < rows; r++) {
            int16_t b = q->w[(int64_t)(f + r) * q->K + k];
            for (int i = 0; i < np; i++)
                acc[r][i] += (int16_t)(b * (int16_t)c[i]);
        }
    }
    for (int r = 0; r < rows; r++)
        o2h_requant_row(acc[r], np, q->rq, q->ch0 + f + r, q->y + (int64_t)(f + r) * q->ldy + p0);
}

static void o2h_panel(const O2hPanel *q)
{
    for (int p0 = 0; p0 < q->P; p0 += O2H_VT) {
        int np = q->P - p0 < O2H_VT ? q->P - p0 : O2H_VT;
        for (int f = 0; f < q->F; f += 4)
            o2h_panel_rows(q, f, q->F - f < 4 ? q->F - f : 4, p0, np);
    }
}
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

/* bytes of the phase-split padded plane (depthwise) */
static size_t o2h_padded_plane(const O2hConv2d *p)
{
    size_t wq = (size_t)(p->W + p->PL + p->PR + p->SW - 1) / (size_t)p->SW;
    return (size_t)p->SW * (size_t)(p->H + p->PT + p->PB) * wq;
}

/* im2col panel (not for pointwise) + the partial-tile block */
static size_t o2h_panel_bytes(const O2hConv2d *p)
{
    size_t K = (size_t)(p->C / p->G) * p->KH * p->KW;
    return o2h_is_pointwise(p) ? 0 : (K * (size_t)p->HO * p->WO + 63) & ~(size_t)63;
}

size_t o2h_conv2d_s8_scratch(const O2hConv2d *p)
{
    if (o2h_is_depthwise(p))  /* phase planes, accumulators, each with slack */
        return ((o2h_padded_plane(p) + 64 + 63) & ~(size_t)63) + (size_t)p->HO * p->WO * 4 + 64;
    int K = p->C / p->G * p->KH * p->KW;
    return o2h_panel_bytes(p) + (size_t)K * O2H_TAIL_MAX + o2h_vnni_bytes(p->F / p->G, K);
}

/* col[(c*KH + kh)*KW + kw][oh*WO + ow] for the channels of one group. */
/* dst[j] = src[j * S] for j < n, reading no byte past src[(n - 1) * S] */
static void o2h_strided_copy(int8_t *dst, const int8_t *src, int n, int S)
{
    int j = 0;
    if (S == 1) {
        memcpy(dst, src, (size_t)(n > 0 ? n : 0));
        return;
    }
#if defined(__AVX2__) && !defined(O2H_NO_VEC)
    if (S == 2) {
        const __m256i even = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8,
                                              10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
        for (; j + 16 <= n && 2 * j + 32 <= 2 * (n - 1) + 1; j += 16) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(src + 2 * j));
            v = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, even), 0xD8);
            _mm_storeu_si128((__m128i *)(void *)(dst + j), _mm256_castsi256_si128(v));
        }
    }
#endif
    for (; j < n; j++)
        dst[j] = src[(int64_t)j * S];
}

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
                    int off = kw * p->DW - p->PL;  /* iw = ow * SW + off */
                    int ow0 = off >= 0 ? 0 : (-off + p->SW - 1) / p->SW;
                    int ow1 = p->W - off > 0 ? (p->W - off + p->SW - 1) / p->SW : 0;
                    ow1 = ow1 < p->WO ? ow1 : p->WO;
                    ow0 = ow0 < ow1 ? ow0 : ow1;
                    memset(r, zero, (size_t)ow0);
                    o2h_strided_copy(r + ow0, src + ow0 * p->SW + off, ow1 - ow0, p->SW);
                    memset(r + ow1, zero, (size_t)(p->WO - ow1));
                }
            }
}

/* ------------------------------------------------ depthwise */

/* The padded plane split by column phase: phase r holds columns
 * j*SW + r, so every tap reads a unit-stride run whatever the stride. */
typedef struct {
    int Hp, Wp, Wq;          /* padded size, columns per phase */
    int8_t *pad;             /* [SW][Hp][Wq] */
} O2hDwPlane;

static void o2h_dw_fill(const O2hConv2d *p, const int8_t *x, int8_t zero, O2hDwPlane *d)
{
    int SW = p->SW, W = p->W, PL = p->PL, Wq = d->Wq;
    memset(d->pad, zero, (size_t)SW * d->Hp * Wq);
    for (int r = 0; r < SW; r++) {
        /* columns j of phase r read input column j*SW + r - PL */
        int j0 = (PL - r + SW - 1) / SW, j1 = (W + PL - r + SW - 1) / SW;
        j0 = j0 < 0 ? 0 : j0;
        j1 = j1 > Wq ? Wq : j1;
        for (int h = 0; h < p->H; h++) {
            const int8_t *src = x + (int64_t)h * W;
            int8_t *dst = d->pad + ((int64_t)r * d->Hp + h + p->PT) * Wq;
            if (j1 > j0)
                o2h_strided_copy(dst + j0, src + j0 * SW + r - PL, j1 - j0, SW);
        }
    }
}

/* One output row: acc[ow] = bias + sum over taps w * src_tap[ow], for
 * ow < WO rounded up to a multiple of O2H_DW_ROUND (the extra lanes spill
 * into the next row, initialized after, or into the scratch slack). */
#define O2H_DW_ROUND 16
#define O2H_DW_TAPS 64       /* kernels up to 8x8 keep tap pointers on the stack */

#ifdef O2H_IVL
static void o2h_dw_row(int32_t *acc, const int8_t *const *src, const int8_t *w, int taps, int32_t bias, int n)
{
    for (int i = 0; i < n; i += O2H_IVL) {
        o2h_vi z = {0}, v = z + bias;
        for (int t = 0; t < taps; t++) {
            o2h_vi x;
            O2H_LD8(x, src[t] + i);
            v += x * (int32_t)w[t];
        }
        memcpy(acc + i, &v, sizeof v);
    }
}
#else
static void o2h_dw_row(int32_t *restrict acc, const int8_t *const *src, const int8_t *w, int taps, int32_t bias,
                       int n)
{
    for (int i = 0; i < n; i++)
        acc[i] = bias;
    for (int t = 0; t < taps; t++) {
        const int8_t *restrict s = src[t];
        int16_t wv = w[t];
        for (int i = 0; i < n; i++)
            acc[i] += (int16_t)(wv * (int16_t)s[i]);
    }
}
#endif

static void o2h_dw_plane(const O2hConv2d *p, const int8_t *x, const int8_t *w, int32_t bias,
                         const O2hRequant *rq, int ch, int8_t zero, int8_t *y, O2hDwPlane *d,
                         int32_t *acc)
{
    o2h_dw_fill(p, x, zero, d);
    int HO = p->HO, WO = p->WO, KH = p->KH, KW = p->KW, SW = p->SW;
    int n = (WO + O2H_DW_ROUND - 1) & ~(O2H_DW_ROUND - 1), taps = 0;
    int64_t off[O2H_DW_TAPS];
    const int8_t *src[O2H_DW_TAPS];
    for (int kh = 0; kh < KH; kh++)
        for (int kw = 0; kw < KW; kw++) {
            int c = kw * p->DW;
            off[taps++] = ((int64_t)(c % SW) * d->Hp + kh * p->DH) * d->Wq + c / SW;
        }
    for (int oh = 0; oh < HO; oh++) {
        const int8_t *row = d->pad + (int64_t)oh * p->SH * d->Wq;
        for (int t = 0; t < taps; t++)
            src[t] = row + off[t];
        o2h_dw_row(acc + (int64_t)oh * WO, src, w, taps, bias, n);
    }
    o2h_requant_row(acc, HO * WO, rq, ch, y);
}

static void o2h_conv_dw_s8(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                           const int8_t *w, const int32_t *bias, int8_t *y, void *scratch)
{
    O2hDwPlane d = {p->H + p->PT + p->PB, p->W + p->PL + p->PR, 0, scratch};
    d.Wq = (d.Wp + p->SW - 1) / p->SW;
    int32_t *acc = (int32_t *)(void *)((char *)scratch + ((o2h_padded_plane(p) + 64 + 63) & ~(size_t)63));
    int64_t hw = (int64_t)p->H * p->W, hwo = (int64_t)p->HO * p->WO, kk = (int64_t)p->KH * p->KW;
    for (int n = 0; n < p->N; n++)
        for (int c = 0; c < p->C; c++) {
            int64_t plane = (int64_t)n * p->C + c;
            o2h_dw_plane(p, x + plane * hw, w + c * kk, bias[c], rq, c, (int8_t)x_zero, y + plane * hwo, &d, acc);
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
                          y + ((int64_t)n * p->F + (int64_t)g * fg) * P, P,
                          (int8_t *)scratch + o2h_panel_bytes(p),
                          (char *)scratch + o2h_panel_bytes(p) + (size_t)K * O2H_TAIL_MAX};
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
            int i = rq->n > 1 ? n : 0;
            y[(int64_t)m * p->N + n] = (int8_t)o2h_clamp32(rq->zero + o2h_rq32(acc, rq->mult[i], rq->shift[i]),
                                                            rq->lo, rq->hi);
        }
    }
}
