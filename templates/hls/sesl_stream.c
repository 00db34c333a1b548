/* sesl_stream.c - the SESL part's stream movers: DRAM to stream (reader),
 * stream to DRAM (writer), and one stream to two (duplicator).
 *
 * Why separate processes: a DATAFLOW region in canonical form gives every
 * channel one writer and one reader, so a tensor that two stages read is
 * copied by a duplicator, and the SESL chain meets DRAM (graph input, the
 * ping-pong boundary buffer, graph outputs) only in these movers, each on
 * its own AXI port. Feature maps in DRAM are NHWC: pixel p's C channels at
 * offset p*C. A mover copies one AXI beat (O2H_P_BEAT bytes) per cycle, so
 * a pixel of C channels takes ceil(C/BEAT) cycles; the duplicator one cycle
 * per pixel.
 */
#include <stdint.h>

#include "o2h_timing.h"

/* ---- parameters (values set per instance by the specializer) ---- */
#define O2H_P_P 8           /* pixels */
#define O2H_P_C 4           /* channels */
#define O2H_P_BEAT 16       /* bytes per AXI beat */
/* ---- end of parameters ---- */

#define NBEAT ((O2H_P_C + O2H_P_BEAT - 1) / O2H_P_BEAT)

/* cycles counted in C simulation (o2h_timing.h) */
int64_t stream_cycles;

void stream_read(const int8_t *mem, int32_t off, int8_t out[O2H_P_P][O2H_P_C])
{
    int p = 0, b = 0;
    O2H_LOOP_ENTER(stream_cycles, O2H_DEPTH_BURST);
    for (int it = 0; it < O2H_P_P * NBEAT; it++) {
#pragma HLS PIPELINE II=1
        O2H_LOOP_ITER(stream_cycles);
        for (int k = 0; k < O2H_P_BEAT; k++) {
#pragma HLS UNROLL
            int c = b * O2H_P_BEAT + k;
            if (c < O2H_P_C)
                out[p][c] = mem[off + p * O2H_P_C + c];
        }
        if (++b == NBEAT) {
            b = 0;
            p++;
        }
    }
}

void stream_write(const int8_t in[O2H_P_P][O2H_P_C], int8_t *mem, int32_t off)
{
    int p = 0, b = 0;
    O2H_LOOP_ENTER(stream_cycles, O2H_DEPTH_BURST);
    for (int it = 0; it < O2H_P_P * NBEAT; it++) {
#pragma HLS PIPELINE II=1
        O2H_LOOP_ITER(stream_cycles);
        for (int k = 0; k < O2H_P_BEAT; k++) {
#pragma HLS UNROLL
            int c = b * O2H_P_BEAT + k;
            if (c < O2H_P_C)
                mem[off + p * O2H_P_C + c] = in[p][c];
        }
        if (++b == NBEAT) {
            b = 0;
            p++;
        }
    }
}

void stream_dup(const int8_t in[O2H_P_P][O2H_P_C], int8_t out0[O2H_P_P][O2H_P_C], int8_t out1[O2H_P_P][O2H_P_C])
{
    O2H_LOOP_ENTER(stream_cycles, O2H_DEPTH_COPY);
    for (int p = 0; p < O2H_P_P; p++) {
#pragma HLS PIPELINE II=1
        O2H_LOOP_ITER(stream_cycles);
        for (int c = 0; c < O2H_P_C; c++) {
            out0[p][c] = in[p][c];
            out1[p][c] = in[p][c];
        }
    }
}
