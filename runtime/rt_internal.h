/* rt_internal.h - what the runtime's kernel files share and nobody else sees.
 *
 * Why it exists: the conv kernels reuse the GEMM micro-kernel and the
 * activation code, and every hot loop needs the same notion of "a vector of
 * floats" whatever the target. Vectors are GCC/clang vector extensions whose
 * width follows the ISA macros of the compiler (AVX-512, AVX, SSE/NEON), with
 * a plain-C fallback so the runtime still builds with any C99 compiler.
 *
 * Files that include this header before any code get floating-point
 * contraction (a*b+c as one FMA) under GCC even in ISO C mode, where GCC
 * would otherwise turn it off; clang contracts within expressions by default.
 * Contraction only changes the rounding of sums, which the numerics contract
 * allows. */
#ifndef O2H_RT_INTERNAL_H
#define O2H_RT_INTERNAL_H

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast")
#endif

#include "o2h_rt.h"

#include <stddef.h>
#include <string.h>
#if defined(__GNUC__) && !defined(O2H_NO_VEC) && (defined(__SSE__) || defined(__AVX__))
#include <immintrin.h>
#endif

#if defined(__GNUC__)
#define O2H_INLINE static inline __attribute__((always_inline))
#else
#define O2H_INLINE static inline
#endif
/* Define O2H_NO_VEC to build (and test) the plain-C fallback with GCC. */
#if defined(__GNUC__) && !defined(O2H_NO_VEC)
#define O2H_VEC 1
#else
#define O2H_VEC 0
#endif

/* Vector width in floats and the GEMM register tile: MR rows (broadcast
 * operand) times NV vectors (streamed operand) of accumulators. */
#if defined(__AVX512F__)
#define O2H_VL 16
#define O2H_MR 8
#define O2H_NV 3
#elif defined(__AVX__)
#define O2H_VL 8
#define O2H_MR 6
#define O2H_NV 2
#elif defined(__aarch64__) || defined(__ARM_NEON)
#define O2H_VL 4
#define O2H_MR 8
#define O2H_NV 3
#else
#define O2H_VL 4
#define O2H_MR 4
#define O2H_NV 2
#endif
#define O2H_NR (O2H_NV * O2H_VL)

#if O2H_VEC
typedef float o2h_vf __attribute__((vector_size(O2H_VL * 4)));
typedef int32_t o2h_vi __attribute__((vector_size(O2H_VL * 4)));

O2H_INLINE o2h_vf o2h_vload(const float *p)
{
    o2h_vf v;
    memcpy(&v, p, sizeof v);
    return v;
}
O2H_INLINE void o2h_vstore(float *p, o2h_vf v) { memcpy(p, &v, sizeof v); }
/* Broadcast: x - 0 (unlike 0 + x, which maps -0 to +0) is exactly x, so
 * compilers emit one broadcast, or fold it into an FMA's memory operand. */
O2H_INLINE o2h_vf o2h_vset1(float x) { return x - (o2h_vf){0}; }
O2H_INLINE o2h_vf o2h_vselect(o2h_vi m, o2h_vf a, o2h_vf b)
{
    return (o2h_vf)(((o2h_vi)a & m) | ((o2h_vi)b & ~m));
}
/* max(a, b) = a > b ? a : b and min(a, b) = a < b ? a : b, NaN in a
 * giving b: exactly the x86 max/min instructions, which the compilers do not
 * emit for the select themselves (it would be a compare and a blend). */
#if defined(__AVX512F__)
O2H_INLINE o2h_vf o2h_vmax(o2h_vf a, o2h_vf b) { return (o2h_vf)_mm512_max_ps((__m512)a, (__m512)b); }
O2H_INLINE o2h_vf o2h_vmin(o2h_vf a, o2h_vf b) { return (o2h_vf)_mm512_min_ps((__m512)a, (__m512)b); }
#elif defined(__AVX__)
O2H_INLINE o2h_vf o2h_vmax(o2h_vf a, o2h_vf b) { return (o2h_vf)_mm256_max_ps((__m256)a, (__m256)b); }
O2H_INLINE o2h_vf o2h_vmin(o2h_vf a, o2h_vf b) { return (o2h_vf)_mm256_min_ps((__m256)a, (__m256)b); }
#elif defined(__SSE__)
O2H_INLINE o2h_vf o2h_vmax(o2h_vf a, o2h_vf b) { return (o2h_vf)_mm_max_ps((__m128)a, (__m128)b); }
O2H_INLINE o2h_vf o2h_vmin(o2h_vf a, o2h_vf b) { return (o2h_vf)_mm_min_ps((__m128)a, (__m128)b); }
#else
O2H_INLINE o2h_vf o2h_vmax(o2h_vf a, o2h_vf b) { return o2h_vselect(a > b, a, b); }
O2H_INLINE o2h_vf o2h_vmin(o2h_vf a, o2h_vf b) { return o2h_vselect(a < b, a, b); }
#endif

/* Even and odd lanes of the 2*VL floats a:b (deinterleave by two). */
#if O2H_VL == 16
#define O2H_EVEN_IDX 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define O2H_ODD_IDX 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#elif O2H_VL == 8
#define O2H_EVEN_IDX 0, 2, 4, 6, 8, 10, 12, 14
#define O2H_ODD_IDX 1, 3, 5, 7, 9, 11, 13, 15
#else
#define O2H_EVEN_IDX 0, 2, 4, 6
#define O2H_ODD_IDX 1, 3, 5, 7
#endif
/* Low and high halves of a, b interleaved (a0 b0 a1 b1 ...). */
#if O2H_VL == 16
#define O2H_ZIPLO_IDX 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23
#define O2H_ZIPHI_IDX 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31
#elif O2H_VL == 8
#define O2H_ZIPLO_IDX 0, 8, 1, 9, 2, 10, 3, 11
#define O2H_ZIPHI_IDX 4, 12, 5, 13, 6, 14, 7, 15
#else
#define O2H_ZIPLO_IDX 0, 4, 1, 5
#define O2H_ZIPHI_IDX 2, 6, 3, 7
#endif
#if defined(__clang__)
#define O2H_VZIPLO(a, b) __builtin_shufflevector((a), (b), O2H_ZIPLO_IDX)
#define O2H_VZIPHI(a, b) __builtin_shufflevector((a), (b), O2H_ZIPHI_IDX)
#else
#define O2H_VZIPLO(a, b) __builtin_shuffle((a), (b), (o2h_vi){O2H_ZIPLO_IDX})
#define O2H_VZIPHI(a, b) __builtin_shuffle((a), (b), (o2h_vi){O2H_ZIPHI_IDX})
#endif
#if defined(__clang__)
#define O2H_VEVEN(a, b) __builtin_shufflevector((a), (b), O2H_EVEN_IDX)
#define O2H_VODD(a, b) __builtin_shufflevector((a), (b), O2H_ODD_IDX)
#else
#define O2H_VEVEN(a, b) __builtin_shuffle((a), (b), (o2h_vi){O2H_EVEN_IDX})
#define O2H_VODD(a, b) __builtin_shuffle((a), (b), (o2h_vi){O2H_ODD_IDX})
#endif

/* Short rows (a 7x7 or 14x14 map) are moved in vectors of 4 floats after
 * the full vectors, so no libc call is paid per row. */
typedef float o2h_v4 __attribute__((vector_size(16)));
typedef int32_t o2h_vi4 __attribute__((vector_size(16)));
#if defined(__clang__)
#define O2H_V4EVEN(a, b) __builtin_shufflevector((a), (b), 0, 2, 4, 6)
#define O2H_V4ODD(a, b) __builtin_shufflevector((a), (b), 1, 3, 5, 7)
#else
#define O2H_V4EVEN(a, b) __builtin_shuffle((a), (b), (o2h_vi4){0, 2, 4, 6})
#define O2H_V4ODD(a, b) __builtin_shuffle((a), (b), (o2h_vi4){1, 3, 5, 7})
#endif
#endif

/* dst[0..n) = src[0..n) for short runs (n a few vectors at most). */
O2H_INLINE void o2h_copy_short(float *dst, const float *src, int n)
{
    int i = 0;
#if O2H_VEC
    for (; i + O2H_VL <= n; i += O2H_VL)
        o2h_vstore(dst + i, o2h_vload(src + i));
    for (; i + 4 <= n; i += 4) {
        o2h_v4 v;
        memcpy(&v, src + i, sizeof v);
        memcpy(dst + i, &v, sizeof v);
    }
#endif
    for (; i < n; i++)
        dst[i] = src[i];
}

/* exp(x) = 2^n * exp(r), n = round(x / ln 2), r = x - n ln 2 (ln 2 split in
 * two so r is exact), exp(r) by its degree-7 Taylor polynomial. The input is
 * clamped so 2^n stays a normal float. */
#define O2H_EXP_HI 88.0f
#define O2H_EXP_LO -87.0f
#define O2H_LOG2E 1.44269504088896341f
#define O2H_LN2_HI 0.693359375f
#define O2H_LN2_LO -2.12194440e-4f
#define O2H_ROUND_MAGIC 12582912.0f /* 1.5 * 2^23: x + M - M rounds to an integer */

#if O2H_VEC
O2H_INLINE o2h_vf o2h_vexp(o2h_vf x)
{
    x = o2h_vmin(x, o2h_vset1(O2H_EXP_HI));
    x = o2h_vmax(x, o2h_vset1(O2H_EXP_LO));
    o2h_vf magic = o2h_vset1(O2H_ROUND_MAGIC);
    o2h_vf n = (x * O2H_LOG2E + magic) - magic;
    o2h_vf r = (x - n * O2H_LN2_HI) - n * O2H_LN2_LO;
    o2h_vf p = o2h_vset1(1.0f / 5040.0f);
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    o2h_vi e = (__builtin_convertvector(n, o2h_vi) + 127) << 23;
    return p * (o2h_vf)e;
}

O2H_INLINE o2h_vf o2h_vsigmoid(o2h_vf x) { return 1.0f / (1.0f + o2h_vexp(-x)); }
O2H_INLINE o2h_vf o2h_vsilu(o2h_vf x) { return x / (1.0f + o2h_vexp(-x)); }

/* Activations applied to a vector in registers: the kinds o2h_vact
 * computes. The others (PRelu needs the channel; Tanh, Elu and Mish use
 * libm) go through o2h_act_row after the store, and so does any kind added
 * later until o2h_vact learns it. */
O2H_INLINE int o2h_vact_ok(O2hActKind k)
{
    return k == O2H_ACT_RELU || k == O2H_ACT_CLIP || k == O2H_ACT_LEAKY_RELU || k == O2H_ACT_SIGMOID ||
           k == O2H_ACT_HARD_SIGMOID || k == O2H_ACT_HARD_SWISH || k == O2H_ACT_SILU;
}

/* o2h_vact with the kind k given apart: a constant k folds the switch
 * away, so a loop can be compiled once per kind. */
O2H_INLINE o2h_vf o2h_vact_as(O2hActKind k, const O2hEpilogue *e, o2h_vf x)
{
    o2h_vf zero = {0}, one = o2h_vset1(1.0f);
    switch (k) {
    case O2H_ACT_RELU: return o2h_vmax(x, zero);
    case O2H_ACT_CLIP: return o2h_vmin(o2h_vmax(x, o2h_vset1(e->alpha)), o2h_vset1(e->beta));
    case O2H_ACT_LEAKY_RELU: return o2h_vselect(x < zero, x * e->alpha, x);
    case O2H_ACT_SIGMOID: return o2h_vsigmoid(x);
    case O2H_ACT_HARD_SIGMOID: return o2h_vmin(o2h_vmax(x * e->alpha + e->beta, zero), one);
    case O2H_ACT_HARD_SWISH:
        return x * o2h_vmin(o2h_vmax(x * (1.0f / 6.0f) + 0.5f, zero), one);
    case O2H_ACT_SILU: return o2h_vsilu(x);
    default: return x;
    }
}

O2H_INLINE o2h_vf o2h_vact(const O2hEpilogue *e, o2h_vf x) { return o2h_vact_as(e->act, e, x); }
#endif

/* Epilogue of one GEMM output tile, in this order:
 *   v = scale*acc + row_bias[r] + col_bias[c] + res[r*ldr + c]; v = act(v)
 * Activation channel: row index + chan0, or the column when act_by_col. */
typedef struct {
    float scale;
    const float *row_bias;
    const float *col_bias;
    const float *res;
    ptrdiff_t ldr;
    const O2hEpilogue *act;
    int chan0;
    int act_by_col;
} O2hTileEpi;

/* C[M][N] (row stride ldc) = epi(A * B).
 * ap: A packed by o2h_gemm_pack_a_panels (MR-row panels, K-block major).
 * b:  B row-major [K][N] with row stride ldb (read only within N columns).
 * bpack: NULL, or o2h_gemm_bpack_size(M, N, K, ldb) floats the K blocks of
 * B are copied to when that is faster (AVX2 builds).
 * Uses about (KC*NR + KC*MR) floats of stack for ragged tiles. */
void o2h_gemm_core(int M, int N, int K, const float *ap, const float *b, ptrdiff_t ldb,
                   float *c, ptrdiff_t ldc, const O2hTileEpi *ep, float *bpack);
size_t o2h_gemm_bpack_size(int M, int N, int K, ptrdiff_t ldb);
/* Same with K = nseg * seglen rows of B in segments: row r of segment s at
 * b + seg[s] + r*ldb (a conv's taps over shifted views of one input). */
void o2h_gemm_core_seg(int M, int N, int nseg, int seglen, const float *ap, const float *b,
                       const size_t *seg, ptrdiff_t ldb, float *c, ptrdiff_t ldc,
                       const O2hTileEpi *ep);
size_t o2h_gemm_panels_size(int M, int K);
/* Pack rows [0,M) of A (element (m,k) at a[m*rs + k*ks]) into MR-row panels,
 * grouped by the K blocks the GEMM loops use. taps > 1 reorders K from
 * (channel, tap) to (tap, channel) for K = C*taps, the direct conv's order,
 * with K blocks not crossing taps (o2h_gemm_core_seg with seglen = C). */
void o2h_gemm_pack_a_panels(int M, int K, const float *a, ptrdiff_t rs, ptrdiff_t ks, int taps,
                            float *ap);

/* Index of element (m, k) of an M x K matrix packed by
 * o2h_gemm_pack_a_panels with taps = 1 (for packers that compute A on the
 * fly; the padding rows must be zeroed by the caller). */
size_t o2h_gemm_panel_index(int M, int K, int m, int k);

/* o2h_conv2d_scratch_size of a depthwise conv, bounded over every vector
 * width (rt_conv.c). */
size_t o2h_conv2d_dw_scratch_bound(const O2hConv2d *p);

/* Activation of n contiguous values of one channel; fast vector paths. */
void o2h_act_row(const O2hEpilogue *e, float *x, size_t n, int channel);
/* Activation where the channel is the position: x[j] uses channel c0 + j. */
void o2h_act_by_col(const O2hEpilogue *e, float *x, size_t n, int c0);
/* Vector-friendly exp and sigmoid of n values (~2 ulp, no libm call). */
void o2h_exp_n(const float *x, float *y, size_t n);
void o2h_sigmoid_n(const float *x, float *y, size_t n);
/* Sum and max of n contiguous values with vector accumulators (rt_pool.c). */
float o2h_sum_n(const float *x, int64_t n);
float o2h_max_n(const float *x, int64_t n);

#endif
