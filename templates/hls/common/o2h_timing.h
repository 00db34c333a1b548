/* o2h_timing.h - the timing terms of the accelerator's loops, and the cycle
 * counters of its C simulation.
 *
 * Why one header for both: the planner (plan/loopnest.c) predicts every
 * engine's cycles from its loop nest, and the C simulation of the emitted
 * HLS C must count the same loops by running them. Both read the constants
 * below from this one file, so a depth or restart changed here changes the
 * plan and the counted cycles together; what differs between the two is
 * only how the iterations are obtained: the planner computes them, the
 * simulation counts them.
 *
 * Terms (cycles at the accelerator clock):
 *   a pipelined loop of N iterations at II=1, entered once, takes
 *       N + depth + O2H_RESTART
 *   (the pipeline fills once per entry; leaving and re-entering the loop
 *   costs the restart). A burst copy between DRAM and on-chip memory is
 *   such a loop with one AXI beat per iteration, whose depth includes the
 *   port's latency: n beats take n + O2H_DEPTH_BURST + O2H_RESTART.
 *
 * The counters exist only in C simulation (#ifndef __SYNTHESIS__); in
 * synthesis the macros expand to nothing.
 */
#ifndef O2H_TIMING_H
#define O2H_TIMING_H

#include <stdint.h>

/* leave a pipelined loop and enter it again (loop control, flushing) */
#define O2H_RESTART 2
/* sliding-window generator: line-buffer read, window shift, write */
#define O2H_DEPTH_WINDOW 3
/* element-wise engines: read, arithmetic, requantize, write */
#define O2H_DEPTH_ELT 5
/* stream copies on chip (duplicator, stream <-> buffer): read, write */
#define O2H_DEPTH_COPY 2
/* cycles from a burst request to its first beat on an HP/AXI port */
#define O2H_AXI_LATENCY 40
/* burst copy loops (AXI <-> on-chip): the port's latency, then a copy */
#define O2H_DEPTH_BURST (O2H_AXI_LATENCY + O2H_DEPTH_COPY)

/* ceil(log2(x)) for 1 <= x <= 2^20 as a constant expression */
#define O2H_CLOG2(x)                                                                              \
    ((x) <= 1 ? 0 : (x) <= 2 ? 1 : (x) <= 4 ? 2 : (x) <= 8 ? 3 : (x) <= 16 ? 4 : (x) <= 32 ? 5    \
     : (x) <= 64 ? 6 : (x) <= 128 ? 7 : (x) <= 256 ? 8 : (x) <= 512 ? 9 : (x) <= 1024 ? 10        \
     : (x) <= 2048 ? 11 : (x) <= 4096 ? 12 : (x) <= 8192 ? 13 : (x) <= 16384 ? 14                 \
     : (x) <= 32768 ? 15 : (x) <= 65536 ? 16 : (x) <= 131072 ? 17 : (x) <= 262144 ? 18            \
     : (x) <= 524288 ? 19 : 20)

/* multiply-accumulate engines: weight/input read, multiply, adder tree over
 * the pb reduction lanes, accumulate, requantize epilogue, write */
#define O2H_DEPTH_MAC(pb) (8 + O2H_CLOG2(pb))
/* pooling: read, compare/add tree over pb taps, requantize, write */
#define O2H_DEPTH_POOL(pb) (5 + O2H_CLOG2(pb))

/* beats of n bytes on a port of w bytes */
#define O2H_BEATS(n, w) (((n) + (w) - 1) / (w))

#ifndef __SYNTHESIS__
/* counter += depth + restart at each entry of a pipelined loop; ++ per
 * iteration. A counter is a plain int64_t owned by the engine. */
#define O2H_LOOP_ENTER(cnt, depth) ((cnt) += (int64_t)(depth) + O2H_RESTART)
#define O2H_LOOP_ITER(cnt) ((cnt) += 1)
#else
#define O2H_LOOP_ENTER(cnt, depth) ((void)0)
#define O2H_LOOP_ITER(cnt) ((void)0)
#endif

#endif
