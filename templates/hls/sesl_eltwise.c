/* sesl_eltwise.c - SESL element-wise engine: Add/Sub and Mul of two
 * streams (or of a stream and a per-channel vector: the squeeze-excite
 * scale), a table, a rescale, the channel Concat of two streams, and a
 * channel move: a Split's part or a channel Slice (CSTEP-th channels from
 * COFF) or the channel shuffle (CGROUPS groups), each pixel word reordered.
 *
 * Why one template: all of these read one pixel word per input, compute PA
 * channels per cycle with a rule of runtime/o2h_int_contract.h, and write
 * one pixel word; only the rule differs (O2H_P_MODE). A Split of n parts
 * is n such stages behind the duplicators of its input stream. A per-channel vector
 * operand is one word read before the first pixel, so the map waits in its
 * FIFO while the vector is computed from it (squeeze-excite): the FIFO
 * depth the dataflow simulation gives that edge is the whole map.
 *
 * One pipelined loop over (pixel, channel tile): P * ceil(C/PA) iterations.
 */
#include <stdint.h>

#include "o2h_int_contract.h"
#include "o2h_timing.h"

/* ---- parameters (values set per instance by the specializer) ---- */
#define O2H_P_MODE 0        /* 0 add/sub, 1 mul, 2 table, 3 rescale, 4 concat, 5 channel move */
#define O2H_P_P 8           /* pixels */
#define O2H_P_C 4           /* output channels */
#define O2H_P_CB 4          /* channels of the second input (concat: its share of C) */
#define O2H_P_BVEC 0        /* 1: the second input is one per-channel vector */
#define O2H_P_PA 4          /* unroll: channels */
#define O2H_P_ZA 0          /* first input zero point, multiplier (add, rescale, concat) */
#define O2H_P_MA 1073741824
#define O2H_P_ZB 0          /* second input zero point, multiplier (add, concat) */
#define O2H_P_MB 1073741824
#define O2H_P_SH 30         /* shift (add, mul, rescale; concat: first input's) */
#define O2H_P_SHB 30        /* concat: second input's shift */
#define O2H_P_COPYA 0       /* concat: 1 copies the first input as it is */
#define O2H_P_COPYB 0       /* concat: 1 copies the second input as it is */
#define O2H_P_ZERO 0        /* output zero point and clamp */
#define O2H_P_LO (-128)
#define O2H_P_HI 127
#define O2H_P_CIN 4         /* move: channels of the input */
#define O2H_P_COFF 0        /* move: first input channel read */
#define O2H_P_CSTEP 1       /* move: input channels between those read */
#define O2H_P_CGROUPS 1     /* move: shuffle groups; output channel j*G + i reads input i*C/G + j */
#define O2H_P_ROM "sesl_eltwise.rom.h"
/* ---- end of parameters ---- */

#define ADD (O2H_P_MODE == 0)
#define MUL (O2H_P_MODE == 1)
#define LUT (O2H_P_MODE == 2)
#define RESCALE (O2H_P_MODE == 3)
#define CONCAT (O2H_P_MODE == 4)
#define MOVE (O2H_P_MODE == 5)
#define BINARY (ADD || MUL || CONCAT)
#define CA (CONCAT ? O2H_P_C - O2H_P_CB : MOVE ? O2H_P_CIN : O2H_P_C)    /* channels of the first input */
#define CB (BINARY ? O2H_P_CB : 1)
#define PB_ (O2H_P_BVEC ? 1 : O2H_P_P)                  /* words of the second input */
#define NC ((O2H_P_C + O2H_P_PA - 1) / O2H_P_PA)

#include O2H_P_ROM

static const int8_t lut_rom[256] = O2H_ROM_LUT;

/* cycles counted in C simulation (o2h_timing.h) */
int64_t eltwise_cycles;

static int8_t rule(int ch, const int8_t *a, const int8_t *b)
{
    int32_t y;
    if (ADD)
        y = o2h_q_add(a[ch], O2H_P_ZA, O2H_P_MA, b[ch], O2H_P_ZB, O2H_P_MB, O2H_P_SH, O2H_P_ZERO, O2H_P_LO, O2H_P_HI);
    else if (MUL)
        y = o2h_q_mul8(a[ch], O2H_P_ZA, b[ch], O2H_P_ZB, O2H_P_MA, O2H_P_SH, O2H_P_ZERO, O2H_P_LO, O2H_P_HI);
    else if (LUT)
        y = o2h_q_lut(a[ch], lut_rom);
    else if (RESCALE)
        y = o2h_q_rescale(a[ch], O2H_P_ZA, O2H_P_MA, O2H_P_SH, O2H_P_ZERO, O2H_P_LO, O2H_P_HI);
    else if (MOVE)
        y = a[O2H_P_COFF + (ch % O2H_P_CGROUPS * (O2H_P_C / O2H_P_CGROUPS) + ch / O2H_P_CGROUPS) * O2H_P_CSTEP];
    else if (ch < CA)
        y = O2H_P_COPYA ? a[ch] : o2h_q_rescale(a[ch], O2H_P_ZA, O2H_P_MA, O2H_P_SH, O2H_P_ZERO, O2H_P_LO, O2H_P_HI);
    else
        y = O2H_P_COPYB ? b[ch - CA]
                        : o2h_q_rescale(b[ch - CA], O2H_P_ZB, O2H_P_MB, O2H_P_SHB, O2H_P_ZERO, O2H_P_LO, O2H_P_HI);
    return (int8_t)y;
}

#if BINARY
void eltwise_run(const int8_t in_a[O2H_P_P][CA], const int8_t in_b[PB_][CB], int8_t out[O2H_P_P][O2H_P_C])
#else
void eltwise_run(const int8_t in_a[O2H_P_P][CA], int8_t out[O2H_P_P][O2H_P_C])
#endif
{
    int8_t a[CA], b[CB], y[O2H_P_C];
#pragma HLS ARRAY_PARTITION variable=a complete
#pragma HLS ARRAY_PARTITION variable=b complete
#pragma HLS ARRAY_PARTITION variable=y complete
    int p = 0, c = 0;
#if BINARY
    if (O2H_P_BVEC)
        for (int i = 0; i < CB; i++)
            b[i] = in_b[0][i];
#endif
    O2H_LOOP_ENTER(eltwise_cycles, O2H_DEPTH_ELT);
    for (int it = 0; it < O2H_P_P * NC; it++) {
#pragma HLS PIPELINE II=1
        O2H_LOOP_ITER(eltwise_cycles);
        if (c == 0) {
            for (int i = 0; i < CA; i++)
                a[i] = in_a[p][i];
#if BINARY
            if (!O2H_P_BVEC)
                for (int i = 0; i < CB; i++)
                    b[i] = in_b[p][i];
#endif
        }
        for (int k = 0; k < O2H_P_PA; k++) {
#pragma HLS UNROLL
            int ch = c * O2H_P_PA + k;
            if (ch < O2H_P_C)
                y[ch] = rule(ch, a, BINARY ? b : a);
        }
        if (c == NC - 1)
            for (int i = 0; i < O2H_P_C; i++)
                out[p][i] = y[i];
        if (++c == NC) {
            c = 0;
            p++;
        }
    }
}
