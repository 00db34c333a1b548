/* o2h_seml.h - what the SEML engines (seml_*.c) share: the burst copy
 * between DRAM and on-chip buffers, the little-endian reads of the weight
 * image's records, and the conv epilogue.
 *
 * Why a header of inline functions: each engine file is one instance of a
 * template; code the templates would otherwise repeat lives here once, and
 * being static inline in an included header, the specializer leaves its
 * names alone. A template defines O2H_SEML_BEAT (bytes per AXI beat) and
 * O2H_BURST_MAX (the most beats of one burst, for LOOP_TRIPCOUNT) before
 * including this file.
 */
#ifndef O2H_SEML_H
#define O2H_SEML_H

#include <stdint.h>

#include "o2h_desc.h"
#include "o2h_int_contract.h"
#include "o2h_timing.h"

/* n bytes from src to dst, one beat of O2H_SEML_BEAT bytes per cycle;
 * the cycles it counts (a pipelined loop entered once, with the port
 * latency in its depth) */
static inline int64_t o2h_burst(int8_t *dst, const int8_t *src, int n)
{
    int64_t cyc = 0;
    O2H_LOOP_ENTER(cyc, O2H_DEPTH_BURST);
    for (int i = 0; i < n; i += O2H_SEML_BEAT) {
#pragma HLS PIPELINE II=1
#pragma HLS LOOP_TRIPCOUNT max=O2H_BURST_MAX
        O2H_LOOP_ITER(cyc);
        for (int k = 0; k < O2H_SEML_BEAT; k++)
            if (i + k < n)
                dst[i + k] = src[i + k];
    }
    return cyc;
}

static inline int32_t o2h_le32(const int8_t *p)
{
    const uint8_t *u = (const uint8_t *)p;
    return (int32_t)((uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24);
}

static inline int64_t o2h_max3(int64_t a, int64_t b, int64_t c)
{
    int64_t m = a > b ? a : b;
    return m > c ? m : c;
}

/* conv / depthwise epilogue: requantize, then the descriptor's residual Add
 * with the skip code, then its table (runtime/o2h_int_contract.h) */
static inline int8_t o2h_epilogue(const int32_t *d, int32_t acc, int32_t m, int sh, int8_t skip, const int8_t *lut)
{
    int32_t y = o2h_q_requant(acc, m, sh, d[O2H_D_ZERO], d[O2H_D_LO], d[O2H_D_HI]);
    if (d[O2H_D_ADD])
        y = o2h_q_add(y, d[O2H_D_ADD_ZA], d[O2H_D_ADD_MA], skip, d[O2H_D_ADD_ZB], d[O2H_D_ADD_MB], d[O2H_D_ADD_SH],
                      d[O2H_D_ADD_ZERO], d[O2H_D_ADD_LO], d[O2H_D_ADD_HI]);
    if (d[O2H_D_LUT])
        y = o2h_q_lut(y, lut);
    return (int8_t)y;
}

#endif
