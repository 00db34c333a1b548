/* rt_int_requant.h - the requantization rule of the integer contract
 * (docs/numerics.md section 3) on vectors of int32 accumulators, for the
 * int8 kernel files only.
 *
 * Why vectors need their own form: the rule is exact on the 64-bit product
 * acc * M, and requantizing costs as much as the multiply-adds on layers
 * with a short reduction (a 1x1 conv of 16 channels), so every instruction
 * counts. Two facts make it cheap and still exact:
 *  - clamping acc first to [L, U] (per channel, computed once per call by
 *    o2h_rqc_init) changes no output, since the rule is monotonic in acc and
 *    rq(U) > hi - zero, rq(L) < lo - zero; after that every intermediate
 *    below fits 32 bits (for sh >= 34 they do for any int32 acc, and the
 *    clamp is skipped);
 *  - floor((P + 2^(sh-1)) / 2^sh) = ((h >> (s-1)) + 1) >> 1 with
 *    h = floor(P / 2^b), s = sh - b, b = min(sh - 1, 31) (floor of a floor;
 *    the last steps round half up without overflow), and h of a 64-bit
 *    product comes from one even/odd pair of 32x32->64 multiplies (x86) or
 *    is one sqdmulh (Arm, b = 31), after which Arm's rounding shift srshl
 *    does the rest. AVX-512 shifts 64-bit lanes arithmetically instead.
 * Layers with sh = 0 (or sh < 31 on Arm) use the scalar rule. */
#ifndef O2H_RT_INT_REQUANT_H
#define O2H_RT_INT_REQUANT_H

#include "rt_int_internal.h"

#if !defined(O2H_NO_VEC) && defined(__GNUC__) && (defined(__AVX512F__) || defined(__AVX2__))
#include <immintrin.h>
#endif
#if !defined(O2H_NO_VEC) && defined(__GNUC__) && defined(__aarch64__)
#include <arm_neon.h>
#endif

#if !defined(O2H_NO_VEC) && defined(__GNUC__) && defined(__AVX2__)
/* 32 int32 (four vectors) -> 32 int8 with saturation, in order: the packs
 * interleave the 128-bit lanes, one dword permute restores the order. */
O2H_I_INLINE __m256i o2h_narrow4(__m256i y0, __m256i y1, __m256i y2, __m256i y3)
{
    __m256i w0 = _mm256_packs_epi32(y0, y1), w1 = _mm256_packs_epi32(y2, y3);
    return _mm256_permutevar8x32_epi32(_mm256_packs_epi16(w0, w1), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

#endif

/* Constants of one output channel: acc clamp [lo_acc, hi_acc] (needed
 * when clamp_acc), M, sh, zero and the output clamp [lo, hi] (needed
 * unless it is the int8 range, which narrowing saturates to anyway). */
typedef struct {
    int32_t lo_acc, hi_acc, m, sh;
    int32_t zero, lo, hi;
    uint8_t clamp_acc, clamp_out, pad[2];
} O2hRqc;

void o2h_rqc_init(const O2hRequant *rq, int ch, O2hRqc *c);

/* y[j] = clamp(zero + rq(acc[j])), j < n, with the constants c. */
void o2h_rq_row(const int32_t *acc, int n, const O2hRqc *c, int8_t *y);

O2H_I_INLINE int8_t o2h_rq_one(int32_t a, const O2hRqc *c)
{
    int64_t v = c->zero + (c->sh ? o2h_floor_shift((int64_t)a * c->m + ((int64_t)1 << (c->sh - 1)), c->sh)
                                 : (int64_t)a * c->m);
    return (int8_t)(v < c->lo ? c->lo : v > c->hi ? c->hi : v);
}

#if !defined(O2H_NO_VEC) && defined(__GNUC__) && defined(__AVX512F__)
#define O2H_RQ_VL 16
#define O2H_RQ_NB 1   /* vectors narrowed together */
typedef __m512i o2h_rqacc;
#define O2H_RQ_LOAD(p) _mm512_loadu_si512(p)
typedef struct {
    __m512i lo_acc, hi_acc, m, rnd, zero, lo, hi;
    __m128i cnt;
    int clamp_acc, clamp_out, add_zero;
} O2hRqv;

/* The zero point is folded into the rounding constant (rnd + zero * 2^sh)
 * while that stays far from 2^63. */
O2H_I_INLINE void o2h_rqv_init(const O2hRqc *c, O2hRqv *v)
{
    int64_t rnd = c->sh > 0 ? (int64_t)1 << (c->sh - 1) : 0;
    v->add_zero = c->sh > 54;
    if (!v->add_zero)
        rnd += (int64_t)c->zero * ((int64_t)1 << c->sh);
    v->lo_acc = _mm512_set1_epi32(c->lo_acc);
    v->hi_acc = _mm512_set1_epi32(c->hi_acc);
    v->m = _mm512_set1_epi64(c->m);
    v->rnd = _mm512_set1_epi64(rnd);
    v->zero = _mm512_set1_epi32(c->zero);
    v->lo = _mm512_set1_epi32(c->lo);
    v->hi = _mm512_set1_epi32(c->hi);
    v->cnt = _mm_cvtsi32_si128(c->sh);
    v->clamp_acc = c->clamp_acc;
    v->clamp_out = c->clamp_out;
}

/* 16 accumulators -> 16 int8 (sh >= 1): even and odd lanes multiplied as
 * 64-bit, shifted arithmetically, merged back to 32-bit lanes, narrowed
 * with saturation. */
O2H_I_INLINE __m128i o2h_rqv(__m512i a, const O2hRqv *v)
{
    if (v->clamp_acc)
        a = _mm512_min_epi32(_mm512_max_epi32(a, v->lo_acc), v->hi_acc);
    __m512i e = _mm512_add_epi64(_mm512_mul_epi32(a, v->m), v->rnd);
    __m512i o = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), v->m), v->rnd);
    e = _mm512_sra_epi64(e, v->cnt);
    o = _mm512_slli_epi64(_mm512_sra_epi64(o, v->cnt), 32);
    __m512i y = _mm512_mask_blend_epi32(0xAAAA, e, o);
    if (v->add_zero)
        y = _mm512_add_epi32(y, v->zero);
    if (v->clamp_out)
        y = _mm512_min_epi32(_mm512_max_epi32(y, v->lo), v->hi);
    return _mm512_cvtsepi32_epi8(y);
}

O2H_I_INLINE void o2h_rqv_store(__m512i a, const O2hRqv *v, int8_t *y)
{
    _mm_storeu_si128((__m128i *)(void *)y, o2h_rqv(a, v));
}

O2H_I_INLINE void o2h_rqv_store_nv(const __m512i *a, int nv, const O2hRqv *v, int8_t *y)
{
    O2H_I_UNROLL for (int i = 0; i < nv; i++) o2h_rqv_store(a[i], v, y + 16 * i);
}

#elif !defined(O2H_NO_VEC) && defined(__GNUC__) && defined(__AVX2__)
#define O2H_RQ_VL 8
#define O2H_RQ_NB 4
typedef __m256i o2h_rqacc;
#define O2H_RQ_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
typedef struct {
    __m256i lo_acc, hi_acc, m, lo, hi, zero2, lo8, hi8, rnd;
    __m128i b, b32, s1, s;
    int clamp_acc, clamp_out, hi32;
} O2hRqv;

/* Whether the high-half form (o2h_rqv32h) applies: sh in [33, 62] (the
 * rounding bit 2^(sh-1) lies above the 32 low bits it drops) and the
 * constant c = 2^(sh-33) + zero * 2^(sh-32) within [-2^30, 2^30). */
O2H_I_INLINE int o2h_rqv_hi32_ok(const O2hRqc *c, int64_t *rnd)
{
    if (c->sh < 33 || c->sh > 62)
        return 0;
    *rnd = ((int64_t)1 << (c->sh - 33)) + (int64_t)c->zero * ((int64_t)1 << (c->sh - 32));
    return *rnd >= -((int64_t)1 << 30) && *rnd < ((int64_t)1 << 30);
}

O2H_I_INLINE void o2h_rqv_init(const O2hRqc *c, O2hRqv *v)
{
    int64_t rnd = 0;
    int b = c->sh - 1 < 31 ? c->sh - 1 : 31;
    v->hi32 = o2h_rqv_hi32_ok(c, &rnd);
    v->rnd = _mm256_set1_epi32((int32_t)rnd);
    v->s = _mm_cvtsi32_si128(c->sh - 32);
    v->lo_acc = _mm256_set1_epi32(c->lo_acc);
    v->hi_acc = _mm256_set1_epi32(c->hi_acc);
    v->m = _mm256_set1_epi64x(c->m);
    v->lo = _mm256_set1_epi32(c->lo);
    v->hi = _mm256_set1_epi32(c->hi);
    v->lo8 = _mm256_set1_epi8((char)c->lo);
    v->hi8 = _mm256_set1_epi8((char)c->hi);
    v->zero2 = _mm256_set1_epi32(1 + 2 * c->zero);
    v->b = _mm_cvtsi32_si128(b);
    v->b32 = _mm_cvtsi32_si128(32 - b);
    v->s1 = _mm_cvtsi32_si128(c->sh - b - 1);
    v->clamp_acc = c->clamp_acc;
    v->clamp_out = c->clamp_out;
}

/* 8 accumulators -> 8 int32 outputs before the output clamp (sh >= 1):
 * h = floor(acc * M / 2^b) from the even/odd products, then
 * ((h >> (s - 1)) + 1 + 2 zero) >> 1. */
O2H_I_INLINE __m256i o2h_rqv32u(__m256i a, const O2hRqv *v)
{
    if (v->clamp_acc)
        a = _mm256_min_epi32(_mm256_max_epi32(a, v->lo_acc), v->hi_acc);
    __m256i e = _mm256_srl_epi64(_mm256_mul_epi32(a, v->m), v->b);
    __m256i o = _mm256_sll_epi64(_mm256_mul_epi32(_mm256_srli_epi64(a, 32), v->m), v->b32);
    __m256i h = _mm256_blend_epi32(e, o, 0xAA);
    return _mm256_srai_epi32(_mm256_add_epi32(_mm256_sra_epi32(h, v->s1), v->zero2), 1);
}

/* The same for sh >= 33 (hi32): h = floor(acc * M / 2^32) is the high
 * half of each 64-bit product, already in place in the odd lanes, one
 * shift away in the even ones; |h| <= 2^30 for any int32 acc and M, so
 * no clamp is needed, and (h + c) >> (sh - 32) with c = 2^(sh-33) +
 * zero * 2^(sh-32) (|c| < 2^30, o2h_rqv_hi32_ok) cannot wrap. */
O2H_I_INLINE __m256i o2h_rqv32h(__m256i a, const O2hRqv *v)
{
    __m256i e = _mm256_srli_epi64(_mm256_mul_epi32(a, v->m), 32);
    __m256i o = _mm256_mul_epi32(_mm256_srli_epi64(a, 32), v->m);
    return _mm256_sra_epi32(_mm256_add_epi32(_mm256_blend_epi32(e, o, 0xAA), v->rnd), v->s);
}

/* 32 accumulators a[0..3] -> 32 int8 in order. Narrowing four vectors at
 * once costs three packs and one dword permute (the packs interleave the
 * 128-bit lanes) instead of four narrowings of one, and the output clamp
 * runs on the bytes: clamping before or after the saturating narrowing
 * gives the same bytes, since lo and hi are int8 values. */
O2H_I_INLINE __m256i o2h_rqv_pack4(const __m256i *a, const O2hRqv *v)
{
    __m256i y = v->hi32 ? o2h_narrow4(o2h_rqv32h(a[0], v), o2h_rqv32h(a[1], v), o2h_rqv32h(a[2], v), o2h_rqv32h(a[3], v))
                        : o2h_narrow4(o2h_rqv32u(a[0], v), o2h_rqv32u(a[1], v), o2h_rqv32u(a[2], v), o2h_rqv32u(a[3], v));
    if (v->clamp_out)
        y = _mm256_min_epi8(_mm256_max_epi8(y, v->lo8), v->hi8);
    return y;
}

/* the first 8 * nv (1..4) bytes of r to y */
O2H_I_INLINE void o2h_rqv_put_nv(__m256i r, int nv, int8_t *y)
{
    __m128i lo = _mm256_castsi256_si128(r), hi = _mm256_extracti128_si256(r, 1);
    if (nv == 4)
        _mm256_storeu_si256((__m256i *)(void *)y, r);
    else if (nv == 1)
        _mm_storel_epi64((__m128i *)(void *)y, lo);
    else
        _mm_storeu_si128((__m128i *)(void *)y, lo);
    if (nv == 3)
        _mm_storel_epi64((__m128i *)(void *)(y + 16), hi);
}

/* nv (1..4) vectors of accumulators -> 8 * nv int8 at y */
O2H_I_INLINE void o2h_rqv_store_nv(const __m256i *a, int nv, const O2hRqv *v, int8_t *y)
{
    __m256i q[4] = {a[0], a[nv > 1], a[nv > 2 ? 2 : 0], a[nv > 3 ? 3 : 0]};
    o2h_rqv_put_nv(o2h_rqv_pack4(q, v), nv, y);
}

O2H_I_INLINE void o2h_rqv_store(__m256i a, const O2hRqv *v, int8_t *y)
{
    o2h_rqv_store_nv(&a, 1, v, y);
}

/* The high-half form (o2h_rqv_hi32_ok must hold) with the two products'
 * high halves merged by one vshufps instead of a shift and a blend: h
 * comes out for lanes 0, 2, 1, 3 of every four, an order that
 * o2h_rq_pack4s undoes on the bytes. m holds M in the low dword of every
 * qword, rnd and s are o2h_rqv_hi32_ok's c and sh - 32. */
O2H_I_INLINE __m256i o2h_rq32s(__m256i a, __m256i m, __m256i rnd, __m128i s)
{
    __m256 e = _mm256_castsi256_ps(_mm256_mul_epi32(a, m));
    __m256 o = _mm256_castsi256_ps(_mm256_mul_epi32(_mm256_srli_epi64(a, 32), m));
    __m256i h = _mm256_castps_si256(_mm256_shuffle_ps(e, o, 0xDD));
    return _mm256_sra_epi32(_mm256_add_epi32(h, rnd), s);
}

/* Four vectors of o2h_rq32s results -> 32 int8 in order: one byte
 * shuffle per 32 outputs puts bytes 1 and 2 of every dword back before
 * the dword permute, three operations fewer than four o2h_rqv32h; the
 * output clamp [lo8, hi8] on the bytes where clamp. */
O2H_I_INLINE __m256i o2h_rq_narrow4s(__m256i y0, __m256i y1, __m256i y2, __m256i y3, int clamp, __m256i lo8,
                                     __m256i hi8)
{
    const __m256i fix = _mm256_setr_epi8(0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15, 0, 2, 1, 3, 4, 6, 5,
                                         7, 8, 10, 9, 11, 12, 14, 13, 15);
    __m256i w0 = _mm256_packs_epi32(y0, y1), w1 = _mm256_packs_epi32(y2, y3);
    __m256i y = _mm256_shuffle_epi8(_mm256_packs_epi16(w0, w1), fix);
    y = _mm256_permutevar8x32_epi32(y, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    if (clamp)
        y = _mm256_min_epi8(_mm256_max_epi8(y, lo8), hi8);
    return y;
}

/* 32 accumulators a[0..3] by o2h_rq32s -> 32 int8 in order */
O2H_I_INLINE __m256i o2h_rq_pack4s(const __m256i *a, __m256i m, __m256i rnd, __m128i s, int clamp, __m256i lo8,
                                   __m256i hi8)
{
    return o2h_rq_narrow4s(o2h_rq32s(a[0], m, rnd, s), o2h_rq32s(a[1], m, rnd, s), o2h_rq32s(a[2], m, rnd, s),
                           o2h_rq32s(a[3], m, rnd, s), clamp, lo8, hi8);
}

/* o2h_rqv_pack4 for hi32 constants by o2h_rq_pack4s */
O2H_I_INLINE __m256i o2h_rqv_pack4s(const __m256i *a, const O2hRqv *v)
{
    return o2h_rq_pack4s(a, v->m, v->rnd, v->s, v->clamp_out, v->lo8, v->hi8);
}

/* o2h_rqv_store_nv by o2h_rqv_pack4s where the constants are hi32 */
O2H_I_INLINE void o2h_rqv_store_nvs(const __m256i *a, int nv, const O2hRqv *v, int8_t *y)
{
    __m256i q[4] = {a[0], a[nv > 1], a[nv > 2 ? 2 : 0], a[nv > 3 ? 3 : 0]};
    o2h_rqv_put_nv(v->hi32 ? o2h_rqv_pack4s(q, v) : o2h_rqv_pack4(q, v), nv, y);
}

/* The hi32 constants of one channel as 32 bytes of scalars (an O2hRqv is
 * 352), for the panel product, which sets up every output channel per
 * call: M, c and s = sh - 32 of o2h_rqv32h, the output clamp [lo, hi] and
 * its bytes repeated in a dword (lo4, hi4; used where clamp). */
typedef struct {
    int32_t m, rnd, s, lo, hi, lo4, hi4, clamp;
} O2hRqh;

/* o2h_rqh of channel ch of rq; 0 where the hi32 form does not apply */
O2H_I_INLINE int o2h_rqh_init(const O2hRequant *rq, int ch, O2hRqh *h)
{
    int i = rq->n > 1 ? ch : 0, sh = rq->shift[i];
    if (sh < 33 || sh > 62)
        return 0;
    int64_t c = ((int64_t)1 << (sh - 33)) + (int64_t)rq->zero * ((int64_t)1 << (sh - 32));
    if (c < -((int64_t)1 << 30) || c >= ((int64_t)1 << 30))
        return 0;
    h->m = rq->mult[i];
    h->rnd = (int32_t)c;
    h->s = sh - 32;
    h->lo = rq->lo;
    h->hi = rq->hi;
    h->lo4 = (int32_t)((uint32_t)(uint8_t)rq->lo * 0x01010101u);
    h->hi4 = (int32_t)((uint32_t)(uint8_t)rq->hi * 0x01010101u);
    h->clamp = !(rq->lo == -128 && rq->hi == 127);
    return 1;
}

/* o2h_rqv_store_nvs by the constants h (loaded by broadcasts) */
O2H_I_INLINE void o2h_rqh_store_nv(const __m256i *a, int nv, const O2hRqh *h, int8_t *y)
{
    __m256i q[4] = {a[0], a[nv > 1], a[nv > 2 ? 2 : 0], a[nv > 3 ? 3 : 0]};
    __m256i r = o2h_rq_pack4s(q, _mm256_set1_epi32(h->m), _mm256_set1_epi32(h->rnd), _mm_cvtsi32_si128(h->s),
                              h->clamp, _mm256_set1_epi32(h->lo4), _mm256_set1_epi32(h->hi4));
    o2h_rqv_put_nv(r, nv, y);
}

/* o2h_rq32s of a by the constants h */
O2H_I_INLINE __m256i o2h_rqh32(__m256i a, const O2hRqh *h)
{
    return o2h_rq32s(a, _mm256_set1_epi32(h->m), _mm256_set1_epi32(h->rnd), _mm_cvtsi32_si128(h->s));
}

/* bytes 8-15 of v to y (any alignment): one movhpd, as _mm_storeh_pd,
 * whose double store GCC's UBSan takes as needing 8-byte alignment */
typedef double o2h_f64u __attribute__((aligned(1), may_alias));
O2H_I_INLINE void o2h_storeh(int8_t *y, __m128i v)
{
    __m128d d = _mm_castsi128_pd(v);
    *(o2h_f64u *)(void *)y = _mm_cvtsd_f64(_mm_unpackhi_pd(d, d));
}

/* A full tile of four rows x 24 outputs (a[r][v], rows' constants
 * h[r * step]) to rows y + r ldy: the twelve vectors narrowed four at a
 * time across rows (rows 0 | 1, 1 | 2, 2 | 3 share a pack) instead of
 * four packs with a quarter of each repeated. */
O2H_I_INLINE void o2h_rqh_store43(__m256i a[4][3], const O2hRqh *h, int step, int8_t *y, int64_t ldy)
{
    __m256i q[4][3];
    O2H_I_UNROLL for (int r = 0; r < 4; r++) O2H_I_UNROLL for (int v = 0; v < 3; v++)
        q[r][v] = o2h_rqh32(a[r][v], h + r * step);
    __m256i lo8 = _mm256_set1_epi32(h->lo4), hi8 = _mm256_set1_epi32(h->hi4);
    __m256i g0 = o2h_rq_narrow4s(q[0][0], q[0][1], q[0][2], q[1][0], h->clamp, lo8, hi8);
    __m256i g1 = o2h_rq_narrow4s(q[1][1], q[1][2], q[2][0], q[2][1], h->clamp, lo8, hi8);
    __m256i g2 = o2h_rq_narrow4s(q[2][2], q[3][0], q[3][1], q[3][2], h->clamp, lo8, hi8);
    __m128i g0h = _mm256_extracti128_si256(g0, 1), g2l = _mm256_castsi256_si128(g2);
    int8_t *y1 = y + ldy, *y2 = y1 + ldy, *y3 = y2 + ldy;
    _mm_storeu_si128((__m128i *)(void *)y, _mm256_castsi256_si128(g0));
    _mm_storel_epi64((__m128i *)(void *)(y + 16), g0h);
    o2h_storeh(y1, g0h);
    _mm_storeu_si128((__m128i *)(void *)(y1 + 8), _mm256_castsi256_si128(g1));
    _mm_storeu_si128((__m128i *)(void *)y2, _mm256_extracti128_si256(g1, 1));
    _mm_storel_epi64((__m128i *)(void *)(y2 + 16), g2l);
    o2h_storeh(y3, g2l);
    _mm_storeu_si128((__m128i *)(void *)(y3 + 8), _mm256_extracti128_si256(g2, 1));
}

/* o2h_rq32s with constants per lane: m, rnd, s hold lane i's M, c and
 * sh - 32 of its channel, mo = m >> 32 (as 64-bit lanes, the odd lanes'
 * M); h comes out in lane order, by a shift and a blend. */
O2H_I_INLINE __m256i o2h_rq32l(__m256i a, __m256i m, __m256i mo, __m256i rnd, __m256i s)
{
    __m256i e = _mm256_srli_epi64(_mm256_mul_epi32(a, m), 32);
    __m256i o = _mm256_mul_epi32(_mm256_srli_epi64(a, 32), mo);
    return _mm256_srav_epi32(_mm256_add_epi32(_mm256_blend_epi32(e, o, 0xAA), rnd), s);
}

/* o2h_rq_one by the constants h: the same integer (the high-half argument
 * of o2h_rqv32h), clamped to [lo, hi] */
O2H_I_INLINE int8_t o2h_rqh_one(int32_t a, const O2hRqh *h)
{
    int64_t v = o2h_floor_shift(o2h_floor_shift((int64_t)a * h->m, 32) + h->rnd, h->s);
    return (int8_t)(v < h->lo ? h->lo : v > h->hi ? h->hi : v);
}

#elif !defined(O2H_NO_VEC) && defined(__GNUC__) && defined(__aarch64__)
#define O2H_RQ_VL 4
#define O2H_RQ_NB 1
typedef int32x4_t o2h_rqacc;
#define O2H_RQ_LOAD(p) vld1q_s32(p)
typedef struct {
    int32x4_t m, nsh, zero, lo, hi;
    int exact31;     /* sh == 31: sqrdmulh alone */
} O2hRqv;

O2H_I_INLINE void o2h_rqv_init(const O2hRqc *c, O2hRqv *v)
{
    v->m = vdupq_n_s32(c->m);
    v->nsh = vdupq_n_s32(-(c->sh - 31));
    v->zero = vdupq_n_s32(c->zero);
    v->lo = vdupq_n_s32(c->lo);
    v->hi = vdupq_n_s32(c->hi);
    v->exact31 = c->sh == 31;
}

/* 4 accumulators -> 4 clamped int32 (sh >= 31): sqdmulh gives
 * floor(acc * M / 2^31), srshl rounds half up by the rest of the shift. */
O2H_I_INLINE int32x4_t o2h_rqv32(int32x4_t a, const O2hRqv *v)
{
    int32x4_t y = v->exact31 ? vqrdmulhq_s32(a, v->m) : vrshlq_s32(vqdmulhq_s32(a, v->m), v->nsh);
    return vminq_s32(vmaxq_s32(vqaddq_s32(y, v->zero), v->lo), v->hi);
}

O2H_I_INLINE void o2h_rqv_store(int32x4_t a, const O2hRqv *v, int8_t *y)
{
    int16x4_t h = vmovn_s32(o2h_rqv32(a, v));
    int32_t w = vget_lane_s32(vreinterpret_s32_s8(vmovn_s16(vcombine_s16(h, h))), 0);
    memcpy(y, &w, 4);
}

O2H_I_INLINE void o2h_rqv_store_nv(const int32x4_t *a, int nv, const O2hRqv *v, int8_t *y)
{
    O2H_I_UNROLL for (int i = 0; i < nv; i++) o2h_rqv_store(a[i], v, y + 4 * i);
}
#endif

/* Whether the vector form applies to channel constants c (o2h_rqv_init
 * may be called for any c). AVX2 needs sh >= 3: then |h| < 2^29 after the
 * clamp (a factor M / 2^sh below 2^29), so h + 1 + 2 zero cannot wrap. */
O2H_I_INLINE int o2h_rqv_ok(const O2hRqc *c)
{
#if defined(O2H_RQ_VL) && defined(__aarch64__)
    return c->sh >= 31;
#elif defined(O2H_RQ_VL) && O2H_RQ_VL == 8
    return c->sh >= 3;
#elif defined(O2H_RQ_VL)
    return c->sh >= 1;
#else
    (void)c;
    return 0;
#endif
}

#endif
