/* o2h_rt_int.h - the integer kernels of the runtime (quantized layers).
 *
 * Why a separate header: the integer path is a contract shared with the
 * HLS engines, which must reproduce these results bit for bit. Everything
 * that defines a result is here or in rt_int_*.c, and docs/numerics.md
 * states the same arithmetic in words. The compiler computes every
 * constant these kernels take (multipliers, shifts, folded biases, tables)
 * in passes/quant/quant_lower.c; the kernels only do integer arithmetic.
 *
 * Two families:
 *   _s8   int8 activations and weights, int32 accumulators (int8, dfxp8);
 *   _s16  int16 activations and weights, int64 accumulators (int16,
 *         dfxp12/14/16; narrower words live in int16 with tighter clamps).
 *
 * Requantization, the one rounding rule of the integer path:
 *
 *     rq(v, M, sh) = floor((v * M + 2^(sh-1)) / 2^sh)     (sh = 0: v * M)
 *     y            = clamp(zero + rq(acc, M, sh), lo, hi)
 *
 * i.e. round half up (toward +infinity) of v * M / 2^sh, computed exactly
 * (the product is never truncated). M is in [0, 2^31) and sh in [0, 63].
 * [lo, hi] is the storage range ([-128, 127] for int8) narrowed by a folded
 * Relu / Clip. Float appears only in o2h_quantize_* / o2h_dequantize_* at
 * the model's float boundaries.
 *
 * Same rules as o2h_rt.h: C99, libm only, no allocation, no printing.
 */
#ifndef O2H_RT_INT_H
#define O2H_RT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "o2h_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define O2H_RQ_MAX_SHIFT 63

/* o2h_floor_shift, o2h_rq32, o2h_rq64, o2h_clamp32 and the scalar rules of
 * every element-wise op live in o2h_int_contract.h, the one header shared
 * with the HLS engines. */
#include "o2h_int_contract.h"

/* Requantization parameters of one output tensor. mult/shift hold n
 * entries: n == 1 for the whole tensor, else one per output channel. */
typedef struct {
    int n;
    const int32_t *mult;     /* M in [0, 2^31) */
    const uint8_t *shift;    /* sh in [0, 63] */
    int32_t zero;            /* output zero point */
    int32_t lo, hi;          /* output clamp */
} O2hRequant;

/* ------------------------------------------------ float boundaries */

/* q = clamp(round_half_even(x / scale) + zero, lo, hi), in float32 as
 * ONNX QuantizeLinear; NaN gives zero. */
void o2h_quantize_f32_s8(const float *x, int8_t *y, size_t n, float scale, int32_t zero,
                         int32_t lo, int32_t hi);
void o2h_quantize_f32_s16(const float *x, int16_t *y, size_t n, float scale, int32_t zero,
                          int32_t lo, int32_t hi);
/* y = (float)(q - zero) * scale, as ONNX DequantizeLinear. */
void o2h_dequantize_s8_f32(const int8_t *x, float *y, size_t n, float scale, int32_t zero);
void o2h_dequantize_s16_f32(const int16_t *x, float *y, size_t n, float scale, int32_t zero);

/* ------------------------------------------------ element-wise */

/* y = clamp(zero_y + rq(x - x_zero, M, sh), lo, hi) with rq->n == 1:
 * rescaling (Concat inputs, standalone Relu / Clip, scale changes). */
void o2h_rescale_s8(const int8_t *x, int8_t *y, size_t n, int32_t x_zero, const O2hRequant *rq);
void o2h_rescale_s16(const int16_t *x, int16_t *y, size_t n, int32_t x_zero, const O2hRequant *rq);

/* y[i] = table[x[i] + 128]: any element-wise function of an int8 value. */
void o2h_lut_s8(const int8_t *x, int8_t *y, size_t n, const int8_t *table);

/* Two-input element-wise ops with numpy broadcasting (O2hBroadcast from
 * o2h_rt.h; a fast path when both shapes equal the output's).
 *   ADD: y = clamp(zero + floor(((a-za)*ma + (b-zb)*mb + 2^(sh-1)) / 2^sh))
 *        one rounding for the sum; ma, mb signed (Sub: mb < 0)
 *   MUL: y = clamp(zero + rq((a-za)*(b-zb), ma, sh)) */
typedef struct {
    int32_t a_zero, b_zero;
    int32_t ma, mb;          /* |m| < 2^31 */
    int shift;               /* 0..63 */
    int32_t zero, lo, hi;
} O2hEltQ;

void o2h_add_s8(const O2hBroadcast *p, const O2hEltQ *q, const int8_t *a, const int8_t *b, int8_t *y);
void o2h_mul_s8(const O2hBroadcast *p, const O2hEltQ *q, const int8_t *a, const int8_t *b, int8_t *y);
void o2h_add_s16(const O2hBroadcast *p, const O2hEltQ *q, const int16_t *a, const int16_t *b, int16_t *y);
void o2h_mul_s16(const O2hBroadcast *p, const O2hEltQ *q, const int16_t *a, const int16_t *b, int16_t *y);

/* Concat along an axis: inputs viewed as [outer][dims_axis[i] * inner].
 * Input i is copied when rq[i].mult is NULL, else rescaled as
 * o2h_rescale_* with x_zero[i]. */
void o2h_concat_s8(int n_in, const int8_t *const *xs, const int64_t *dims_axis, int64_t outer,
                   int64_t inner, const int32_t *x_zero, const O2hRequant *rq, int8_t *y);
void o2h_concat_s16(int n_in, const int16_t *const *xs, const int64_t *dims_axis, int64_t outer,
                    int64_t inner, const int32_t *x_zero, const O2hRequant *rq, int16_t *y);

/* ------------------------------------------------ convolution, FC */

/* 2-D convolution, geometry as O2hConv2d. Weights in ONNX
 * layout [F][C/G][KH][KW]; bias[f] already holds b_q[f] - x_zero * sum(w[f]),
 * so that with padded positions reading x_zero
 *     acc[f,p] = bias[f] + sum_k w[f,k] * x[k,p]  = b_q[f] + sum_k w * (x - x_zero)
 * then y = clamp(zero + rq(acc, M[f], sh[f]), lo, hi). The compiler checks
 * that no accumulator can leave int32. Scratch: o2h_conv2d_s8_scratch bytes. */
size_t o2h_conv2d_s8_scratch(const O2hConv2d *p);
void o2h_conv2d_s8(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                   const int8_t *w, const int32_t *bias, int8_t *y, void *scratch);
/* The same with the weights and biases packed once (at init) for this
 * build's kernels: o2h_conv2d_s8_packed_size bytes (depends on the
 * instruction set), filled by o2h_conv2d_s8_pack; the run then needs
 * o2h_conv2d_s8_packed_scratch bytes of scratch. Same results. */
size_t o2h_conv2d_s8_packed_size(const O2hConv2d *p);
/* Its bound over every instruction set (for buffers sized at compile time). */
size_t o2h_conv2d_s8_packed_size_max(const O2hConv2d *p);
void o2h_conv2d_s8_pack(const O2hConv2d *p, const int8_t *w, const int32_t *bias, void *packed);
size_t o2h_conv2d_s8_packed_scratch(const O2hConv2d *p);
void o2h_conv2d_s8_packed(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                          const void *packed, int8_t *y, void *scratch);
size_t o2h_conv2d_s16_scratch(const O2hConv2d *p);
void o2h_conv2d_s16(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int16_t *x,
                    const int16_t *w, const int64_t *bias, int16_t *y, void *scratch);

/* Fully connected: y[m][n] = requant(bias[n] + sum_k x[m][k] * w[n][k]),
 * bias folded as for the convolution; weights [N][K]. */
typedef struct {
    int M, N, K;
} O2hFcQ;
void o2h_fc_s8(const O2hFcQ *p, const O2hRequant *rq, const int8_t *x, const int8_t *w,
               const int32_t *bias, int8_t *y);
void o2h_fc_s16(const O2hFcQ *p, const O2hRequant *rq, const int16_t *x, const int16_t *w,
                const int64_t *bias, int16_t *y);

/* ------------------------------------------------ pooling */

/* Max pool: the maximum over the in-image taps (pads never win); output
 * scale = input scale. lo when a window has no tap in the image. */
void o2h_maxpool2d_s8(const O2hPool2d *p, const int8_t *x, int8_t *y, int32_t lo);
void o2h_maxpool2d_s16(const O2hPool2d *p, const int16_t *x, int16_t *y, int32_t lo);
void o2h_global_maxpool_s8(int64_t nc, int64_t hw, const int8_t *x, int8_t *y);
void o2h_global_maxpool_s16(int64_t nc, int64_t hw, const int16_t *x, int16_t *y);

/* Average pool: acc = sum over the in-image taps of (x - x_zero) (pads add
 * 0), cnt = taps counted as ONNX does (count_include_pad: also those on
 * explicit pads), y = clamp(zero + rq(acc, M[cnt-1], sh[cnt-1])): rq holds
 * one multiplier per count 1..KH*KW with 1/cnt folded in. cnt == 0 gives zero. */
void o2h_avgpool2d_s8(const O2hPool2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                      int8_t *y);
void o2h_avgpool2d_s16(const O2hPool2d *p, int32_t x_zero, const O2hRequant *rq, const int16_t *x,
                       int16_t *y);
/* Global average: acc = sum(x) - hw * x_zero, 1/hw folded into rq (n == 1). */
void o2h_global_avgpool_s8(int64_t nc, int64_t hw, int32_t x_zero, const O2hRequant *rq,
                           const int8_t *x, int8_t *y);
void o2h_global_avgpool_s16(int64_t nc, int64_t hw, int32_t x_zero, const O2hRequant *rq,
                            const int16_t *x, int16_t *y);

#ifdef __cplusplus
}
#endif
#endif
