/* rt_int_core.c - the integer path's float boundaries and element-wise
 * kernels (rescale, lookup table, add, mul, concat).
 *
 * Why here: these are the operations whose rounding the numerics contract
 * pins down (docs/numerics.md); their scalar rules are the inline functions
 * of o2h_int_contract.h, shared with the HLS engines, so this file only
 * walks the tensors (the float -> int8 quantization in AVX2 lanes too,
 * with the same float operations as its scalar rule). */
#include "rt_int_requant.h"

#if defined(__GNUC__) && !defined(O2H_NO_VEC) && defined(__AVX512VBMI__) && defined(__AVX512BW__)
#include <immintrin.h>
#define O2H_LUT_VBMI 1
#else
#define O2H_LUT_VBMI 0
#endif
#if defined(__GNUC__) && !defined(O2H_NO_VEC) && defined(__AVX2__) && !O2H_LUT_VBMI
#include <immintrin.h>
#define O2H_LUT_SHUF 1
#else
#define O2H_LUT_SHUF 0
#endif

#include <math.h>
#include <string.h>

/* ------------------------------------------------ float boundaries */

/* clamp(round_half_even(x / scale) + zero, lo, hi) without depending on
 * the FPU rounding mode: the quotient is clamped first (so the conversion
 * is defined), truncated, floored, then rounded from the remainder.
 * Written with selects only, so that compilers vectorize it. */
static int32_t o2h_quantize_one(float x, float scale, int32_t zero, int32_t lo, int32_t hi)
{
    float top = (float)(hi - zero) + 1.0f, bot = (float)(lo - zero) - 1.0f;
    float v = x / scale;
    v = v == v ? v : 0.0f;  /* NaN -> the zero point */
    v = v < top ? v : top;
    v = v > bot ? v : bot;
    int32_t r = (int32_t)v;
    r -= (float)r > v;      /* floor */
    float d = v - (float)r;
    int32_t odd = r & 1;
    r += d > 0.5f ? 1 : d == 0.5f ? odd : 0;
    r += zero;
    return r < lo ? lo : r > hi ? hi : r;
}

#if defined(__GNUC__) && !defined(O2H_NO_VEC) && defined(__AVX2__)
/* o2h_quantize_one on 8 lanes: the same quotient, NaN masked to +0, the
 * same clamp (min / max select exactly as the scalar ternaries), then
 * vroundps with its rounding mode in the instruction (half to even
 * whatever MXCSR says), which is the scalar rule's floor-and-remainder
 * result; lo, hi within int8 make the saturating narrowing exact.
 * Returns the count done. */
static size_t o2h_quantize8_s8(const float *x, int8_t *y, size_t n, float scale, int32_t zero, int32_t lo,
                               int32_t hi)
{
    const __m256 sc = _mm256_set1_ps(scale);
    const __m256 top = _mm256_set1_ps((float)(hi - zero) + 1.0f), bot = _mm256_set1_ps((float)(lo - zero) - 1.0f);
    const __m256i z = _mm256_set1_epi32(zero), vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
    const __m256i pick = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_div_ps(_mm256_loadu_ps(x + i), sc);
        v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));
        v = _mm256_max_ps(_mm256_min_ps(v, top), bot);
        v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m256i r = _mm256_add_epi32(_mm256_cvtps_epi32(v), z);
        r = _mm256_min_epi32(_mm256_max_epi32(r, vlo), vhi);
        __m256i b = _mm256_packs_epi16(_mm256_packs_epi32(r, r), r);
        _mm_storel_epi64((__m128i *)(void *)(y + i), _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(b, pick)));
    }
    return i;
}
#endif

void o2h_quantize_f32_s8(const float *x, int8_t *y, size_t n, float scale, int32_t zero,
                         int32_t lo, int32_t hi)
{
    size_t i = 0;
#if defined(__GNUC__) && !defined(O2H_NO_VEC) && defined(__AVX2__)
    if (lo >= -128 && hi <= 127 && zero >= -(1 << 20) && zero <= 1 << 20)
        i = o2h_quantize8_s8(x, y, n, scale, zero, lo, hi);
#endif
    for (; i < n; i++)
        y[i] = (int8_t)o2h_quantize_one(x[i], scale, zero, lo, hi);
}

void o2h_quantize_f32_s16(const float *x, int16_t *y, size_t n, float scale, int32_t zero,
                          int32_t lo, int32_t hi)
{
    for (size_t i = 0; i < n; i++)
        y[i] = (int16_t)o2h_quantize_one(x[i], scale, zero, lo, hi);
}

void o2h_dequantize_s8_f32(const int8_t *x, float *y, size_t n, float scale, int32_t zero)
{
    for (size_t i = 0; i < n; i++)
        y[i] = (float)(x[i] - zero) * scale;
}

void o2h_dequantize_s16_f32(const int16_t *x, float *y, size_t n, float scale, int32_t zero)
{
    for (size_t i = 0; i < n; i++)
        y[i] = (float)(x[i] - zero) * scale;
}

/* ------------------------------------------------ element-wise */

void o2h_rescale_s8(const int8_t *x, int8_t *y, size_t n, int32_t x_zero, const O2hRequant *rq)
{
    int32_t m = rq->mult[0], z = rq->zero, lo = rq->lo, hi = rq->hi;
    int sh = rq->shift[0];
    for (size_t i = 0; i < n; i++)
        y[i] = (int8_t)o2h_q_rescale(x[i], x_zero, m, sh, z, lo, hi);
}

void o2h_rescale_s16(const int16_t *x, int16_t *y, size_t n, int32_t x_zero, const O2hRequant *rq)
{
    int32_t m = rq->mult[0], z = rq->zero, lo = rq->lo, hi = rq->hi;
    int sh = rq->shift[0];
    for (size_t i = 0; i < n; i++)
        y[i] = (int16_t)o2h_q_rescale(x[i], x_zero, m, sh, z, lo, hi);
}

#if O2H_LUT_SHUF
/* 32 codes by sixteen 16-entry byte shuffles: with u = x + 128, slice k
 * holds table[16k .. 16k+15]; saturating (u - 16k) + 0x70 keeps bit 7
 * clear (shuffle lane live) only for u in [16k, 16k+15], where its low
 * nibble is u's, so exactly one slice gives each lane and the rest give 0.
 * Every slice's index comes from u itself (no chain between slices). */
O2H_I_INLINE __m256i o2h_lut32(__m256i u, const __m256i *t, const __m256i *off)
{
    const __m256i live = _mm256_set1_epi8(0x70);
    __m256i r0 = _mm256_setzero_si256(), r1 = r0;
    for (int k = 0; k < 16; k += 2) {
        r0 = _mm256_or_si256(r0, _mm256_shuffle_epi8(t[k], _mm256_adds_epu8(_mm256_sub_epi8(u, off[k]), live)));
        r1 = _mm256_or_si256(r1,
                             _mm256_shuffle_epi8(t[k + 1], _mm256_adds_epu8(_mm256_sub_epi8(u, off[k + 1]), live)));
    }
    return _mm256_or_si256(r0, r1);
}

static void o2h_lut_shuf(const int8_t *x, int8_t *y, size_t n, const int8_t *table)
{
    __m256i t[16], off[16];
    for (int k = 0; k < 16; k++) {
        t[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(table + 16 * k)));
        off[k] = _mm256_set1_epi8((char)(16 * k));
    }
    const __m256i flip = _mm256_set1_epi8((char)0x80);
    for (size_t i = 0; i + 32 <= n; i += 32) {
        __m256i u = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(x + i)), flip);
        _mm256_storeu_si256((__m256i *)(void *)(y + i), o2h_lut32(u, t, off));
    }
}
#endif

void o2h_lut_s8(const int8_t *x, int8_t *y, size_t n, const int8_t *table)
{
    size_t i = 0;
#if O2H_LUT_SHUF
    o2h_lut_shuf(x, y, n, table);
    i = n & ~(size_t)31;
#endif
#if O2H_LUT_VBMI
    /* 64 codes at a time: two 128-entry byte permutes over the table held
     * in four registers, the index x + 128 = x ^ 0x80 choosing the half */
    const __m512i t0 = _mm512_loadu_si512((const void *)table), t1 = _mm512_loadu_si512((const void *)(table + 64));
    const __m512i t2 = _mm512_loadu_si512((const void *)(table + 128)), t3 = _mm512_loadu_si512((const void *)(table + 192));
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    for (; i + 64 <= n; i += 64) {
        __m512i u = _mm512_xor_si512(_mm512_loadu_si512((const void *)(x + i)), flip);
        __m512i lo = _mm512_permutex2var_epi8(t0, u, t1), hi = _mm512_permutex2var_epi8(t2, u, t3);
        _mm512_storeu_si512((void *)(y + i), _mm512_mask_blend_epi8(_mm512_movepi8_mask(u), lo, hi));
    }
#endif
    for (; i < n; i++)
        y[i] = (int8_t)o2h_q_lut(x[i], table);
}

/* The contract's scalar rules (o2h_int_contract.h) over O2hEltQ. */
static inline int32_t o2h_add_one(const O2hEltQ *q, int32_t a, int32_t b)
{
    return o2h_q_add(a, q->a_zero, q->ma, b, q->b_zero, q->mb, q->shift, q->zero, q->lo, q->hi);
}

static inline int32_t o2h_mul_one8(const O2hEltQ *q, int32_t a, int32_t b)
{
    return o2h_q_mul8(a, q->a_zero, b, q->b_zero, q->ma, q->shift, q->zero, q->lo, q->hi);
}

static inline int32_t o2h_mul_one16(const O2hEltQ *q, int32_t a, int32_t b)
{
    return o2h_q_mul16(a, q->a_zero, b, q->b_zero, q->ma, q->shift, q->zero, q->lo, q->hi);
}

/* Broadcast walk: calls row(a + ia, sa, b + ib, sb, y + iy, n) for each
 * run of the innermost axis, where sa/sb are 0 (broadcast) or 1. */
typedef struct {
    int64_t n_rows, inner, sa, sb;
    int rank;
    int64_t as[O2H_MAX_RANK], bs[O2H_MAX_RANK];
} O2hWalk;

static int64_t o2h_walk_init(const O2hBroadcast *p, O2hWalk *w)
{
    int r = p->rank > 0 ? p->rank : 1;
    int64_t sa = 1, sb = 1;
    w->rank = r;
    w->n_rows = 1;
    for (int i = r - 1; i >= 0; i--) {
        int64_t yd = p->rank > 0 ? p->y_dims[i] : 1;
        w->as[i] = (p->rank > 0 && p->a_dims[i] == 1) ? 0 : sa;
        w->bs[i] = (p->rank > 0 && p->b_dims[i] == 1) ? 0 : sb;
        sa *= p->rank > 0 ? p->a_dims[i] : 1;
        sb *= p->rank > 0 ? p->b_dims[i] : 1;
        if (i < r - 1)
            w->n_rows *= yd;
    }
    w->inner = p->rank > 0 ? p->y_dims[r - 1] : 1;
    w->sa = w->as[r - 1];
    w->sb = w->bs[r - 1];
    return w->n_rows;
}

/* Offsets of row number `row` into a and b. */
static void o2h_walk_row(const O2hBroadcast *p, const O2hWalk *w, int64_t row, int64_t *ia, int64_t *ib)
{
    *ia = *ib = 0;
    for (int i = w->rank - 2; i >= 0; i--) {
        int64_t d = p->y_dims[i], k = row % d;
        row /= d;
        *ia += k * w->as[i];
        *ib += k * w->bs[i];
    }
}

/* q = p with axes of extent 1 dropped and each axis merged into the one
 * before it when a and b both keep or both broadcast the two: the
 * squeeze-excite scale [C,1,1] on [C,H,W] becomes [C,1] on [C,H*W], one
 * row of H*W a channel. */
static void o2h_bc_merge(const O2hBroadcast *p, O2hBroadcast *q)
{
    q->rank = 0;
    for (int i = 0; i < p->rank; i++) {
        if (p->y_dims[i] == 1)
            continue;
        int r = q->rank;
        if (r > 0 && (p->a_dims[i] == 1) == (q->a_dims[r - 1] == 1) &&
            (p->b_dims[i] == 1) == (q->b_dims[r - 1] == 1)) {
            q->a_dims[r - 1] *= p->a_dims[i];
            q->b_dims[r - 1] *= p->b_dims[i];
            q->y_dims[r - 1] *= p->y_dims[i];
            continue;
        }
        q->a_dims[r] = p->a_dims[i];
        q->b_dims[r] = p->b_dims[i];
        q->y_dims[r] = p->y_dims[i];
        q->rank++;
    }
    if (q->rank == 0) {
        q->rank = 1;
        q->a_dims[0] = q->b_dims[0] = q->y_dims[0] = 1;
    }
}

static int o2h_same_shapes(const O2hBroadcast *p)
{
    for (int i = 0; i < p->rank; i++)
        if (p->a_dims[i] != p->y_dims[i] || p->b_dims[i] != p->y_dims[i])
            return 0;
    return 1;
}

/* q is copied to a local: y's stores (character type) could alias *q, which
 * would reload its fields for every element and keep the loop scalar.
 * FIRST: how many leading elements of equal shapes (n of them) a vector
 * form has already written (0 where there is none). */
#define O2H_ELT_BODY(ONE, TY, FIRST)                                                   \
    O2hWalk w;                                                                         \
    const O2hEltQ qloc = *q;                                                           \
    O2hBroadcast merged;                                                               \
    o2h_bc_merge(p, &merged);                                                          \
    p = &merged;                                                                       \
    q = &qloc;                                                                         \
    if (o2h_same_shapes(p)) {                                                          \
        int64_t n = 1;                                                                 \
        for (int i = 0; i < p->rank; i++)                                              \
            n *= p->y_dims[i];                                                         \
        for (int64_t i = (FIRST); i < n; i++)                                          \
            y[i] = (TY)ONE(q, a[i], b[i]);                                             \
        return;                                                                        \
    }                                                                                  \
    int64_t rows = o2h_walk_init(p, &w);                                               \
    for (int64_t r = 0; r < rows; r++) {                                               \
        int64_t ia, ib;                                                                \
        o2h_walk_row(p, &w, r, &ia, &ib);                                              \
        TY *yr = y + r * w.inner;                                                      \
        const TY *ar = a + ia, *br = b + ib;                                           \
        /* the usual strides get loops the compiler vectorizes */                     \
        if (w.sa == 1 && w.sb == 0) {                                                  \
            const int32_t bv = br[0];                                                  \
            for (int64_t i = 0; i < w.inner; i++)                                      \
                yr[i] = (TY)ONE(q, ar[i], bv);                                         \
        } else if (w.sa == 0 && w.sb == 1) {                                           \
            const int32_t av = ar[0];                                                  \
            for (int64_t i = 0; i < w.inner; i++)                                      \
                yr[i] = (TY)ONE(q, av, br[i]);                                         \
        } else if (w.sa == 1 && w.sb == 1) {                                           \
            for (int64_t i = 0; i < w.inner; i++)                                      \
                yr[i] = (TY)ONE(q, ar[i], br[i]);                                      \
        } else {                                                                       \
            for (int64_t i = 0; i < w.inner; i++)                                      \
                yr[i] = (TY)ONE(q, ar[i * w.sa], br[i * w.sb]);                        \
        }                                                                              \
    }

#if defined(__GNUC__) && !defined(O2H_NO_VEC) && defined(__AVX2__)
/* Why a vector form for adds of equal shapes (the residual adds of the
 * MobileNets), and why int16 pairs: the rule is exact on the 64-bit sum
 * (a - za) ma + (b - zb) mb, which AVX2 has no cheap way to shift. Split
 * each multiplier as m = mh 2^16 + ml (ml in [-2^15, 2^15)), fold the zero
 * points and the rounding bit into one constant R = 2^(sh-1) - za ma -
 * zb mb = Rh 2^16 + Rl (Rl in [0, 2^16)); then with H = a mha + b mhb and
 * L = a mla + b mlb (one vpmaddwd each on the pairs (a, b), |H|, |L| <=
 * 2^23) the sum plus R is (H + Rh) 2^16 + (L + Rl), and floor of a floor
 * gives zero + floor(s / 2^sh) = (H + C + ((L + Rl) >> 16)) >> (sh - 16),
 * C = Rh + zero 2^(sh-16), all in int32 where bounds checked once per
 * call say so (sh >= 16, mh an int16, |C| < 2^30, zero points within
 * 2^16 so that R fits 64 bits). */
typedef struct {
    __m256i wh, wl, rl, c, lo8, hi8;
    __m128i cnt;
} O2hAdd8;

/* m = mh 2^16 + ml with ml in [-2^15, 2^15); 0 where mh is not an int16 */
static int o2h_add8_split(int32_t m, int16_t *mh, int16_t *ml)
{
    int64_t l = (int16_t)(uint16_t)((uint32_t)m & 0xFFFFu), h = ((int64_t)m - l) / 65536;
    *ml = (int16_t)l;
    *mh = (int16_t)h;
    return h >= -32768 && h <= 32767;
}

/* int16 pair (lo, hi) in every dword */
static __m256i o2h_add8_pair(int16_t lo, int16_t hi)
{
    return _mm256_set1_epi32((int32_t)((uint32_t)(uint16_t)lo | (uint32_t)(uint16_t)hi << 16));
}

static int o2h_add8_init(const O2hEltQ *q, O2hAdd8 *k)
{
    int16_t ha, la, hb, lb;
    if (q->shift < 16 || q->shift > 62 || q->lo < -128 || q->hi > 127 || q->a_zero < -65536 || q->a_zero > 65536 ||
        q->b_zero < -65536 || q->b_zero > 65536 || !o2h_add8_split(q->ma, &ha, &la) || !o2h_add8_split(q->mb, &hb, &lb))
        return 0;
    int64_t r = ((int64_t)1 << (q->shift - 1)) - (int64_t)q->a_zero * q->ma - (int64_t)q->b_zero * q->mb;
    int64_t rl = r & 0xFFFF, c = (r - rl) / 65536 + (int64_t)q->zero * ((int64_t)1 << (q->shift - 16));
    if (c <= -((int64_t)1 << 30) || c >= ((int64_t)1 << 30))
        return 0;
    k->wh = o2h_add8_pair(ha, hb);
    k->wl = o2h_add8_pair(la, lb);
    k->rl = _mm256_set1_epi32((int32_t)rl);
    k->c = _mm256_set1_epi32((int32_t)c);
    k->lo8 = _mm256_set1_epi8((char)q->lo);
    k->hi8 = _mm256_set1_epi8((char)q->hi);
    k->cnt = _mm_cvtsi32_si128(q->shift - 16);
    return 1;
}

/* 8 results (before the output clamp) of the int16 pairs (a[i], b[i]) in p */
O2H_I_INLINE __m256i o2h_add8_8(__m256i p, const O2hAdd8 *k)
{
    __m256i h = _mm256_add_epi32(_mm256_madd_epi16(p, k->wh), k->c);
    __m256i l = _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(p, k->wl), k->rl), 16);
    return _mm256_sra_epi32(_mm256_add_epi32(h, l), k->cnt);
}

/* the pairs (a[i], b[i]) of i < 8 (lo) and 8 <= i < 16 (hi) as int16 */
O2H_I_INLINE void o2h_add8_pairs(const int8_t *a, const int8_t *b, __m256i *lo, __m256i *hi)
{
    __m128i va = _mm_loadu_si128((const __m128i *)(const void *)a);
    __m128i vb = _mm_loadu_si128((const __m128i *)(const void *)b);
    *lo = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(va, vb));
    *hi = _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(va, vb));
}

/* y[i] for i below the returned count (a multiple of 32) */
static int64_t o2h_add8_vec(const O2hEltQ *q, const int8_t *a, const int8_t *b, int8_t *y, int64_t n)
{
    O2hAdd8 k;
    int64_t i = 0;
    if (!o2h_add8_init(q, &k))
        return 0;
    for (; i + 32 <= n; i += 32) {
        __m256i p[4];
        o2h_add8_pairs(a + i, b + i, &p[0], &p[1]);
        o2h_add8_pairs(a + i + 16, b + i + 16, &p[2], &p[3]);
        __m256i r = o2h_narrow4(o2h_add8_8(p[0], &k), o2h_add8_8(p[1], &k), o2h_add8_8(p[2], &k), o2h_add8_8(p[3], &k));
        r = _mm256_min_epi8(_mm256_max_epi8(r, k.lo8), k.hi8);
        _mm256_storeu_si256((__m256i *)(void *)(y + i), r);
    }
    return i;
}
#else
static int64_t o2h_add8_vec(const O2hEltQ *q, const int8_t *a, const int8_t *b, int8_t *y, int64_t n)
{
    (void)q, (void)a, (void)b, (void)y, (void)n;
    return 0;
}
#endif

void o2h_add_s8(const O2hBroadcast *p, const O2hEltQ *q, const int8_t *a, const int8_t *b, int8_t *y)
{
    O2H_ELT_BODY(o2h_add_one, int8_t, o2h_add8_vec(q, a, b, y, n))
}

/* Products of a row of the 8-bit mul, per block of int32 (|p| <= 255^2). */
#define O2H_MUL8_BLOCK 256

/* y[j] = rule(a[j * sa], b[j * sb]), j < n, for strides sa, sb of 0
 * (broadcast) or 1, not both 0 (an innermost axis): the products in int32 blocks,
 * each requantized as a row of accumulators (the vector forms of
 * rt_int_requant.h, exact for M >= 0). */
static void o2h_mul8_row(const O2hEltQ *q, const O2hRqc *c, const int8_t *a, int64_t sa, const int8_t *b,
                         int64_t sb, int64_t n, int8_t *y)
{
    int32_t acc[O2H_MUL8_BLOCK];
    const int32_t za = q->a_zero, zb = q->b_zero;
    for (int64_t i0 = 0; i0 < n; i0 += O2H_MUL8_BLOCK) {
        int m = n - i0 < O2H_MUL8_BLOCK ? (int)(n - i0) : O2H_MUL8_BLOCK;
        const int8_t *ar = a + i0 * sa, *br = b + i0 * sb;
        if (sb == 0) {
            const int32_t kb = br[0] - zb;
            for (int j = 0; j < m; j++)
                acc[j] = (ar[j] - za) * kb;
        } else if (sa == 0) {
            const int32_t ka = ar[0] - za;
            for (int j = 0; j < m; j++)
                acc[j] = ka * (br[j] - zb);
        } else {
            for (int j = 0; j < m; j++)
                acc[j] = (ar[j] - za) * (br[j] - zb);
        }
        o2h_rq_row(acc, m, c, y + i0);
    }
}

/* The block form needs int32 products (zero points of int8 codes) and the
 * requantization's M >= 0 (O2hRequant); any other constants take the
 * scalar rule element by element. */
void o2h_mul_s8(const O2hBroadcast *p, const O2hEltQ *q, const int8_t *a, const int8_t *b, int8_t *y)
{
    if (q->ma < 0 || q->a_zero < -128 || q->a_zero > 127 || q->b_zero < -128 || q->b_zero > 127) {
        O2H_ELT_BODY(o2h_mul_one8, int8_t, 0)
        return;
    }
    const uint8_t sh = (uint8_t)q->shift;
    const O2hRequant rq = {1, &q->ma, &sh, q->zero, q->lo, q->hi};
    O2hRqc c;
    O2hBroadcast m;
    O2hWalk w;
    o2h_rqc_init(&rq, 0, &c);
    o2h_bc_merge(p, &m);
    int64_t rows = o2h_walk_init(&m, &w);
    for (int64_t r = 0; r < rows; r++) {
        int64_t ia, ib;
        o2h_walk_row(&m, &w, r, &ia, &ib);
        o2h_mul8_row(q, &c, a + ia, w.sa, b + ib, w.sb, w.inner, y + r * w.inner);
    }
}

void o2h_add_s16(const O2hBroadcast *p, const O2hEltQ *q, const int16_t *a, const int16_t *b, int16_t *y)
{
    O2H_ELT_BODY(o2h_add_one, int16_t, 0)
}

void o2h_mul_s16(const O2hBroadcast *p, const O2hEltQ *q, const int16_t *a, const int16_t *b, int16_t *y)
{
    O2H_ELT_BODY(o2h_mul_one16, int16_t, 0)
}

/* ------------------------------------------------ concat */

void o2h_concat_s8(int n_in, const int8_t *const *xs, const int64_t *dims_axis, int64_t outer,
                   int64_t inner, const int32_t *x_zero, const O2hRequant *rq, int8_t *y)
{
    int64_t total = 0;
    for (int i = 0; i < n_in; i++)
        total += dims_axis[i] * inner;
    for (int64_t o = 0; o < outer; o++) {
        int8_t *dst = y + o * total;
        for (int i = 0; i < n_in; i++) {
            int64_t len = dims_axis[i] * inner;
            const int8_t *src = xs[i] + o * len;
            if (rq[i].mult)
                o2h_rescale_s8(src, dst, (size_t)len, x_zero[i], &rq[i]);
            else
                memcpy(dst, src, (size_t)len);
            dst += len;
        }
    }
}

void o2h_concat_s16(int n_in, const int16_t *const *xs, const int64_t *dims_axis, int64_t outer,
                    int64_t inner, const int32_t *x_zero, const O2hRequant *rq, int16_t *y)
{
    int64_t total = 0;
    for (int i = 0; i < n_in; i++)
        total += dims_axis[i] * inner;
    for (int64_t o = 0; o < outer; o++) {
        int16_t *dst = y + o * total;
        for (int i = 0; i < n_in; i++) {
            int64_t len = dims_axis[i] * inner;
            const int16_t *src = xs[i] + o * len;
            if (rq[i].mult)
                o2h_rescale_s16(src, dst, (size_t)len, x_zero[i], &rq[i]);
            else
                memcpy(dst, src, (size_t)len * 2);
            dst += len;
        }
    }
}
