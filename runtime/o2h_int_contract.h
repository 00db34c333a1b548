/* o2h_int_contract.h - the integer arithmetic that every back end of
 * onnx2hls computes bit for bit: the host runtime (rt_int_*.c), the
 * compiler's evaluator (through the runtime) and the HLS engines
 * (templates/hls/, which include this very file; OUT/hls/common/ gets a
 * copy).
 *
 * Why one header: the accelerator's C simulation must equal the host int8
 * program exactly, so the rounding, saturation and element-wise rules are
 * written once, as small inline functions of plain integers, in the C
 * subset that Vitis HLS synthesizes (C99, also valid C++; <stdint.h> types,
 * no library calls, no floating point). docs/numerics.md states the same
 * rules in words; the constants (multipliers, shifts, zero points, bounds,
 * tables) all come from pass_quant_lower in the compiler.
 *
 *   rq(v, M, sh) = floor((v * M + 2^(sh-1)) / 2^sh)      (sh = 0: v * M)
 *   requantize:  y = clamp(zero + rq(acc, M, sh), lo, hi)
 *   add:         y = clamp(zero + floor(((a-za)*ma + (b-zb)*mb + 2^(sh-1)) / 2^sh), lo, hi)
 *   mul:         y = clamp(zero + rq((a-za)*(b-zb), M, sh), lo, hi)
 *   rescale:     y = clamp(zero + rq(x - zx, M, sh), lo, hi)
 *   table:       y = table[x + 128]                       (8-bit codes)
 *
 * M is in [0, 2^31) (add: |ma|, |mb| < 2^31, signed), sh in [0, 63].
 */
#ifndef O2H_INT_CONTRACT_H
#define O2H_INT_CONTRACT_H

#include <stdint.h>

/* floor(v / 2^sh) for any int64 v and sh in [0, 63]: an arithmetic right
 * shift written in unsigned arithmetic (offset by 2^63, which 2^sh
 * divides), so it neither depends on how a compiler shifts negative
 * numbers nor branches. */
static inline int64_t o2h_floor_shift(int64_t v, int sh)
{
    const uint64_t off = (uint64_t)1 << 63;
    if (sh == 0)
        return v;
    return (int64_t)(((uint64_t)v + off) >> sh) - (int64_t)(off >> sh);
}

/* rq for |v| < 2^31 (the 8-bit path: int32 accumulators and element-wise
 * differences). Exact: |v*M| < 2^62, and adding 2^62 at most stays below 2^63. */
static inline int64_t o2h_rq32(int64_t v, int32_t m, int sh)
{
    int64_t p = v * (int64_t)m;
    if (sh == 0)
        return p;
    return o2h_floor_shift(p + ((int64_t)1 << (sh - 1)), sh);
}

/* rq for any int64 v (the 16-bit path, int64 accumulators), exact through a
 * 96-bit product hi * 2^32 + lo. The result saturates at +-2^62, far
 * outside any storage range. */
static inline int64_t o2h_rq64(int64_t v, int32_t m, int sh)
{
    const int64_t cap = (int64_t)1 << 62;
    int64_t vh = o2h_floor_shift(v, 32);                   /* |vh| < 2^31 */
    uint64_t vl = (uint64_t)(v - vh * ((int64_t)1 << 32)); /* [0, 2^32) */
    int64_t ph = vh * (int64_t)m;                          /* |ph| < 2^62 */
    uint64_t pl = vl * (uint64_t)m;                        /* < 2^63 */
    if (sh > 0)
        pl += (uint64_t)1 << (sh - 1);                     /* < 2^63 + 2^62 */
    int64_t hi = ph + (int64_t)(pl >> 32);
    uint64_t lo = pl & 0xffffffffu;
    if (sh >= 32)
        return o2h_floor_shift(hi, sh - 32);
    int up = 32 - sh;                  /* hi * 2^(32-sh) + lo / 2^sh */
    if (hi >= (cap >> up))
        return cap;
    if (hi < -(cap >> up))
        return -cap;
    return hi * ((int64_t)1 << up) + (int64_t)(lo >> sh);
}

static inline int32_t o2h_clamp32(int64_t v, int32_t lo, int32_t hi)
{
    return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

/* Output code of an int32 accumulator (conv, FC, pools, rescale). */
static inline int32_t o2h_q_requant(int64_t acc, int32_t m, int sh, int32_t zero, int32_t lo, int32_t hi)
{
    return o2h_clamp32(zero + o2h_rq32(acc, m, sh), lo, hi);
}

/* Output code of an int64 accumulator (16-bit words). */
static inline int32_t o2h_q_requant64(int64_t acc, int32_t m, int sh, int32_t zero, int32_t lo, int32_t hi)
{
    return o2h_clamp32(zero + o2h_rq64(acc, m, sh), lo, hi);
}

/* Add / Sub of two codes rescaled to the output scale at one shift, one
 * rounding; exact in int64 since |a - za| < 2^17 and |m| < 2^31. */
static inline int32_t o2h_q_add(int32_t a, int32_t za, int32_t ma, int32_t b, int32_t zb, int32_t mb,
                                int sh, int32_t zero, int32_t lo, int32_t hi)
{
    int64_t s = (int64_t)(a - za) * ma + (int64_t)(b - zb) * mb;
    if (sh > 0)
        s = o2h_floor_shift(s + ((int64_t)1 << (sh - 1)), sh);
    return o2h_clamp32(zero + s, lo, hi);
}

/* Product of two 8-bit codes (|p| < 2^16, so rq32 is exact). */
static inline int32_t o2h_q_mul8(int32_t a, int32_t za, int32_t b, int32_t zb, int32_t m, int sh,
                                 int32_t zero, int32_t lo, int32_t hi)
{
    int64_t p = (int64_t)(a - za) * (b - zb);
    return o2h_clamp32(zero + o2h_rq32(p, m, sh), lo, hi);
}

/* Product of two 16-bit codes (|p| < 2^34: the wide rq). */
static inline int32_t o2h_q_mul16(int32_t a, int32_t za, int32_t b, int32_t zb, int32_t m, int sh,
                                  int32_t zero, int32_t lo, int32_t hi)
{
    int64_t p = (int64_t)(a - za) * (b - zb);
    return o2h_clamp32(zero + o2h_rq64(p, m, sh), lo, hi);
}

/* Change of scale of one code (Concat inputs, standalone Relu / Clip). */
static inline int32_t o2h_q_rescale(int32_t x, int32_t zx, int32_t m, int sh, int32_t zero, int32_t lo,
                                    int32_t hi)
{
    return o2h_clamp32(zero + o2h_rq32(x - zx, m, sh), lo, hi);
}

/* Any element-wise function of an 8-bit code, as a 256-entry table. */
static inline int32_t o2h_q_lut(int32_t x, const int8_t *table)
{
    return table[x + 128];
}

#endif
