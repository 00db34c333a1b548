/* rt_int_internal.h - what the integer kernel files share and nobody else
 * sees: which instruction set the int8 panel product is built for, its tile
 * shape, and the panel product's interface.
 *
 * Why one selection here: every int8 conv and FC ends in the same product
 *     acc[f][p] = bias[f] + sum_k w[f][k] * x[k][p]
 * and the fastest exact way to compute it differs per ISA: 4-byte dot
 * products (AVX-512 VNNI, AVX-VNNI, Arm sdot), 16-bit pair products
 * (vpmaddwd on AVX2 / AVX-512 without VNNI), widening 16-bit multiply-adds
 * (Armv8.0 smlal, e.g. Cortex-A53), or plain C. The choice follows the
 * compiler's target macros (-march), so one source builds the right kernel
 * everywhere; all of them compute the same integers (docs/numerics.md). */
#ifndef O2H_RT_INT_INTERNAL_H
#define O2H_RT_INT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "o2h_rt_int.h"

#if defined(__GNUC__)
#define O2H_I_INLINE static inline __attribute__((always_inline))
#else
#define O2H_I_INLINE static inline
#endif

/* kernel kinds */
#define O2H_I8_PLAIN 0    /* C loops over pixels, 4 channels at a time */
#define O2H_I8_VNNI512 1  /* vpdpbusd zmm: (x + 128) u8 x w s8, 4 per lane */
#define O2H_I8_VNNI256 2  /* vpdpbusd ymm (AVX-VNNI) */
#define O2H_I8_MADD512 3  /* vpmaddwd zmm on int16 pairs */
#define O2H_I8_MADD256 4  /* vpmaddwd ymm on int16 pairs (AVX2) */
#define O2H_I8_SDOT 5     /* Arm sdot (Armv8.2 dotprod): s8 x s8, 4 per lane */
#define O2H_I8_SMLAL 6    /* Arm smlal: int16 x int16 widening multiply-add */

#if defined(O2H_NO_VEC) || !defined(__GNUC__)
#define O2H_I8 O2H_I8_PLAIN
#elif defined(__AVX512VNNI__) && defined(__AVX512BW__)
#define O2H_I8 O2H_I8_VNNI512
#elif defined(__AVXVNNI__) && defined(__AVX2__)
#define O2H_I8 O2H_I8_VNNI256
#elif defined(__AVX512BW__)
#define O2H_I8 O2H_I8_MADD512
#elif defined(__AVX2__)
#define O2H_I8 O2H_I8_MADD256
#elif defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)
#define O2H_I8 O2H_I8_SDOT
#elif defined(__aarch64__)
#define O2H_I8 O2H_I8_SMLAL
#else
#define O2H_I8 O2H_I8_PLAIN
#endif

/* Tile: MR output channels x NV vectors of VL pixels of int32
 * accumulators; the reduction advances G values of k per step, packed
 * data elements are ES bytes (int8, or int16 for pair products). */
#if O2H_I8 == O2H_I8_VNNI512
#define O2H_I8_G 4
#define O2H_I8_ES 1
#define O2H_I8_VL 16
#define O2H_I8_MR 8
#define O2H_I8_NV 3
#elif O2H_I8 == O2H_I8_VNNI256
#define O2H_I8_G 4
#define O2H_I8_ES 1
#define O2H_I8_VL 8
#define O2H_I8_MR 4
#define O2H_I8_NV 3
#elif O2H_I8 == O2H_I8_MADD512
#define O2H_I8_G 2
#define O2H_I8_ES 2
#define O2H_I8_VL 16
#define O2H_I8_MR 8
#define O2H_I8_NV 3
#elif O2H_I8 == O2H_I8_MADD256
#define O2H_I8_G 2
#define O2H_I8_ES 2
#define O2H_I8_VL 8
#define O2H_I8_MR 4
#define O2H_I8_NV 3
#elif O2H_I8 == O2H_I8_SDOT
#define O2H_I8_G 4
#define O2H_I8_ES 1
#define O2H_I8_VL 4
#define O2H_I8_MR 8
#define O2H_I8_NV 3
#elif O2H_I8 == O2H_I8_SMLAL
#define O2H_I8_G 1
#define O2H_I8_ES 2
#define O2H_I8_VL 4
#define O2H_I8_MR 8
#define O2H_I8_NV 3
#else
#define O2H_I8_G 1
#define O2H_I8_ES 1
#define O2H_I8_VL 1
#define O2H_I8_MR 4
#define O2H_I8_NV 1
#endif

#if O2H_I8 == O2H_I8_VNNI512 || O2H_I8 == O2H_I8_VNNI256 || O2H_I8 == O2H_I8_MADD512 || \
    O2H_I8 == O2H_I8_MADD256
#include <immintrin.h>
#elif O2H_I8 == O2H_I8_SDOT || O2H_I8 == O2H_I8_SMLAL
#include <arm_neon.h>
#endif

#if O2H_I8 == O2H_I8_VNNI512 || O2H_I8 == O2H_I8_VNNI256
#define O2H_I8_FLIP 0x80      /* x + 128 as an unsigned byte */
#else
#define O2H_I8_FLIP 0
#endif

#if defined(__clang__)
#define O2H_I_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && defined(__OPTIMIZE__)   /* gcc warns of the pragma at -O0 */
#define O2H_I_UNROLL _Pragma("GCC unroll 8")
#else
#define O2H_I_UNROLL
#endif

/* The kind's vectors: accumulators (int32 lanes, VL pixels), packed x
 * (G values of k per pixel), packed weights (G values of k, broadcast),
 * and acc += dot(x, w) per lane. */
/* GCC 12 keeps a vpdpbusd accumulator that lives in an array in a loop in
 * a fresh register and copies it back every step; the same instruction as
 * inline assembly with the accumulator tied in place does not. */
#if (O2H_I8 == O2H_I8_VNNI512 || O2H_I8 == O2H_I8_VNNI256) && defined(__GNUC__) && !defined(__clang__)
#define O2H_DPBUSD_ASM 1
#endif

#if O2H_I8 == O2H_I8_VNNI512
O2H_I_INLINE __m512i o2h_dpbusd512(__m512i a, __m512i x, __m512i w)
{
#if defined(O2H_DPBUSD_ASM)
    __asm__("vpdpbusd %2, %1, %0" : "+v"(a) : "v"(x), "v"(w));
    return a;
#else
    return _mm512_dpbusd_epi32(a, x, w);
#endif
}
typedef __m512i o2h_iacc;
typedef __m512i o2h_ix;
typedef __m512i o2h_iw;
#define O2H_ISET1(b) _mm512_set1_epi32(b)
#define O2H_IXLOAD(p) _mm512_loadu_si512(p)
#define O2H_IWLOAD(p) _mm512_set1_epi32(o2h_i8_word(p))
#define O2H_IDOT(a, x, w) o2h_dpbusd512((a), (x), (w))
#define O2H_ISTORE(p, a) _mm512_storeu_si512((p), (a))
#elif O2H_I8 == O2H_I8_VNNI256
O2H_I_INLINE __m256i o2h_dpbusd256(__m256i a, __m256i x, __m256i w)
{
#if defined(O2H_DPBUSD_ASM)
    __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(a) : "x"(x), "x"(w));
    return a;
#else
    return _mm256_dpbusd_avx_epi32(a, x, w);
#endif
}
typedef __m256i o2h_iacc;
typedef __m256i o2h_ix;
typedef __m256i o2h_iw;
#define O2H_ISET1(b) _mm256_set1_epi32(b)
#define O2H_IXLOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define O2H_IWLOAD(p) _mm256_set1_epi32(o2h_i8_word(p))
#define O2H_IDOT(a, x, w) o2h_dpbusd256((a), (x), (w))
#define O2H_ISTORE(p, a) _mm256_storeu_si256((__m256i *)(void *)(p), (a))
#elif O2H_I8 == O2H_I8_MADD512
typedef __m512i o2h_iacc;
typedef __m512i o2h_ix;
typedef __m512i o2h_iw;
#define O2H_ISET1(b) _mm512_set1_epi32(b)
#define O2H_IXLOAD(p) _mm512_loadu_si512(p)
#define O2H_IWLOAD(p) _mm512_set1_epi32(o2h_i8_word(p))
#define O2H_IDOT(a, x, w) _mm512_add_epi32((a), _mm512_madd_epi16((x), (w)))
#define O2H_ISTORE(p, a) _mm512_storeu_si512((p), (a))
#elif O2H_I8 == O2H_I8_MADD256
/* The 4x3 tile needs 17 ymm registers to hold its 3 x vectors (12 sums,
 * the weight pair, a product before its add), one more than there are;
 * loading 2 and reading the third from memory in each vpmaddwd keeps the
 * reduction at 10 loads per k-step, bound by vpmaddwd (2 per cycle).
 * Tuned for Zen 3 (-march=znver3, i.e. native there) GCC 12 folds all
 * three into every vpmaddwd, 16 loads per step where 2 per cycle issue,
 * and MobileNetV1's int8 pointwise layers ran 9-18% slower than at
 * -mtune=generic; the empty asm (O2H_IPIN) keeps x[0] and x[1] in
 * registers whatever the tuning. */
typedef __m256i o2h_iacc;
typedef __m256i o2h_ix;
typedef __m256i o2h_iw;
#define O2H_ISET1(b) _mm256_set1_epi32(b)
#define O2H_IXLOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define O2H_I8_XPIN 2
#define O2H_IPIN(v) __asm__("" : "+x"(v))
#define O2H_IWLOAD(p) _mm256_set1_epi32(o2h_i8_word(p))
#define O2H_IDOT(a, x, w) _mm256_add_epi32((a), _mm256_madd_epi16((x), (w)))
#define O2H_ISTORE(p, a) _mm256_storeu_si256((__m256i *)(void *)(p), (a))
#elif O2H_I8 == O2H_I8_SDOT
typedef int32x4_t o2h_iacc;
typedef int8x16_t o2h_ix;
typedef int8x16_t o2h_iw;
#define O2H_ISET1(b) vdupq_n_s32(b)
#define O2H_IXLOAD(p) vld1q_s8((const int8_t *)(const void *)(p))
#define O2H_IWLOAD(p) vreinterpretq_s8_s32(vdupq_n_s32(o2h_i8_word(p)))
#define O2H_IDOT(a, x, w) vdotq_s32((a), (x), (w))
#define O2H_ISTORE(p, a) vst1q_s32((p), (a))
#elif O2H_I8 == O2H_I8_SMLAL
typedef int32x4_t o2h_iacc;
typedef int16x4_t o2h_ix;
typedef int16_t o2h_iw;
#define O2H_ISET1(b) vdupq_n_s32(b)
#define O2H_IXLOAD(p) vld1_s16((const int16_t *)(const void *)(p))
#define O2H_IWLOAD(p) o2h_i8_half(p)
#define O2H_IDOT(a, x, w) vmlal_n_s16((a), (x), (w))
#define O2H_ISTORE(p, a) vst1q_s32((p), (a))
#endif
#ifndef O2H_I8_XPIN
#define O2H_I8_XPIN 0 /* how many of a tile's x vectors O2H_IPIN holds in registers */
#define O2H_IPIN(v) ((void)0)
#endif

#if O2H_I8 != O2H_I8_PLAIN
/* the G packed weights of one row at one step, as one 32-bit word */
O2H_I_INLINE int32_t o2h_i8_word(const unsigned char *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}
O2H_I_INLINE int16_t o2h_i8_half(const unsigned char *p)
{
    int16_t v;
    memcpy(&v, p, 2);
    return v;
}

#endif

/* A last pixel block of at most O2H_I8_COLS pixels goes by channel
 * vectors (rt_int_gemm.c) in kinds that have that form, else 0. */
#if O2H_I8 == O2H_I8_MADD256
#define O2H_I8_COLS 4
#else
#define O2H_I8_COLS 0
#endif

#define O2H_I8_STEP (O2H_I8_VL * O2H_I8_G * O2H_I8_ES)   /* bytes of one vector of one k-step */
#define O2H_I8_TW (O2H_I8_NV * O2H_I8_VL)                /* pixels of a full tile */

/* Upper bounds over every kind above, so that scratch sizes (which the
 * compiler computes with its own build of the runtime) do not depend on
 * the instruction set a program is built for. */
#define O2H_I8_MR_MAX 8
#define O2H_I8_G_MAX 4
#define O2H_I8_BLOCK_MAX 96   /* bytes of one packed pixel block per k (48 x int16) */

/* Bytes of int8 weights [F][K] packed for the panel product (with the
 * per-channel biases) and the packing itself. */
size_t o2h_i8_packed_bytes(int F, int K);
size_t o2h_i8_packed_bytes_max(int F, int K);
void o2h_i8_pack(int F, int K, const int8_t *w, const int32_t *bias, void *packed);

/* Bytes of scratch one panel product of F channels needs (channel
 * constants and one pixel block). */
size_t o2h_i8_gemm_scratch(int F, int K);

/* y[f][p] = requant(acc[f][p]) for the panel product of packed weights
 * (o2h_i8_pack) and x given as K rows of P pixels with row stride ldx. */
typedef struct {
    int F, K, P;
    const void *wp;
    const int8_t *x;
    int64_t ldx;
    const O2hRequant *rq;
    int ch0;                 /* channel index of row 0 (for per-channel rq) */
    int8_t *y;
    int64_t ldy;
    void *blk;               /* o2h_i8_gemm_scratch(F, K) bytes */
} O2hI8Gemm;
void o2h_i8_gemm(const O2hI8Gemm *g);

/* Depthwise convolution (rt_int_dw.c): packed weights (this build's form
 * and the largest over instruction sets), scratch, and the run. */
size_t o2h_dw_s8_packed_bytes(const O2hConv2d *p);
size_t o2h_dw_s8_packed_bytes_max(const O2hConv2d *p);
void o2h_dw_s8_pack(const O2hConv2d *p, const int8_t *w, const int32_t *bias, void *packed);
size_t o2h_dw_s8_scratch(const O2hConv2d *p);
void o2h_dw_s8_run(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x, const void *packed,
                   int8_t *y, void *scratch);

/* 3x3 stride-1 pad-1 convs by integer Winograd F(2x2,3x3) (rt_int_wino.c):
 * whether the geometry allows it (any instruction set), whether this build
 * takes it, packed weights and scratch (this build's and the bounds over
 * instruction sets), the packing and the run. */
int o2h_i8w_fits(const O2hConv2d *p);
int o2h_i8w_use(const O2hConv2d *p);
size_t o2h_i8w_packed_bytes(const O2hConv2d *p);
size_t o2h_i8w_packed_bytes_max(const O2hConv2d *p);
size_t o2h_i8w_scratch(const O2hConv2d *p);
size_t o2h_i8w_scratch_max(const O2hConv2d *p);
void o2h_i8w_pack(const O2hConv2d *p, const int8_t *w, const int32_t *bias, void *packed);
void o2h_i8w_run(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x, const void *packed,
                 int8_t *y, void *scratch);

/* y[j] = clamp(zero + rq(acc[j], M, sh), lo, hi) for j < n, channel ch of rq. */
void o2h_i8_requant_row(const int32_t *acc, int n, const O2hRequant *rq, int ch, int8_t *y);

/* p rounded up to a multiple of 64 */
O2H_I_INLINE void *o2h_i_align64(void *p)
{
    return (void *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
}

#endif
