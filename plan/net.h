/* net.h - the SESL part of a design as a network of dataflow processes
 * joined by FIFOs: what the HLS emitter instantiates in the top's DATAFLOW
 * region, and what the dataflow simulation (plan/dfsim.c) runs.
 *
 * Why a network and not a list of stages: the SESL part is the emitted
 * DATAFLOW region itself. Every unit becomes one or two processes (a
 * windowed layer: window generator + compute; others: compute), a tensor
 * that two processes read gets a duplicator, the graph input enters through
 * a reader and the tensors the SEML part or the host read leave through
 * writers. The FIFO depths are the network's: the simulation finds the
 * depth each FIFO needs (a residual skip FIFO holds the other path's delay;
 * a squeeze-excite map waits whole for its scale) and checks the period and
 * the absence of deadlock with the depths that get emitted.
 */
#ifndef ONNX2HLS_PLAN_NET_H
#define ONNX2HLS_PLAN_NET_H

#include <stdint.h>
#include <stdio.h>

#include "plan.h"

typedef enum {
    PLAN_P_READ = 0,    /* DRAM -> stream (sesl_stream.c stream_read) */
    PLAN_P_WINDOW,      /* sliding-window generator (sesl_window.c) */
    PLAN_P_MAC,         /* conv / FC compute (sesl_mac.c) */
    PLAN_P_POOL,        /* pools (sesl_pool.c) */
    PLAN_P_ELT,         /* element-wise (sesl_eltwise.c) */
    PLAN_P_DUP,         /* fan-out (sesl_stream.c stream_dup) */
    PLAN_P_WRITE,       /* stream -> DRAM (sesl_stream.c stream_write) */
} PlanProcKind;

typedef struct {
    PlanProcKind kind;
    int unit;           /* plan unit (-1 for movers and duplicators) */
    int tensor;         /* IR tensor this process produces (READ: reads; WRITE: writes) */
    int n_in, n_out;
    int in[2];          /* channels read (MAC: input, skip; ELT: a, b) */
    int out[2];         /* channels written (DUP: two) */
    PlanShape shape;    /* unroll (pa, pb; pp = 1) */
    int64_t iters;      /* pipelined-loop iterations per frame */
    int64_t cycles;     /* per frame, from plan/loopnest.c */
    /* what the simulation needs to know of the loop (the template's I/O pattern) */
    int64_t per_tok;    /* iterations per output word (MAC, POOL, ELT: tiles per pixel; movers: beats per pixel) */
    int64_t tail;       /* POOL global: iterations of its second loop (the results) */
    int depth;          /* pipeline depth: a word written at iteration i is visible at i + depth */
    bool bvec;          /* ELT: in[1] is one per-channel word read before the loop */
    PlanGeom geo;       /* WINDOW: the layer's geometry (in-image reads, window corners) */
    char name[48];      /* kind and layer or tensor, for messages */
} PlanProc;

typedef struct {
    int producer, consumer;  /* process indices */
    int tensor;              /* IR tensor carried, -1 for a window stream */
    int64_t tokens;          /* words per frame */
    int64_t width;           /* bytes per word (a pixel's channels, or a window) */
    int64_t depth;           /* FIFO depth (words): from the simulation */
} PlanChan;

typedef struct {
    PlanProc *procs;         /* in a valid DATAFLOW order: producers before consumers */
    int n_procs;
    PlanChan *chans;
    int n_chans;
    /* dataflow simulation over frames back to back */
    int frames;
    int64_t interval;        /* cycles between frame completions (steady state) */
    int64_t latency;         /* cycles from the first input word to the last output word of a frame */
    int64_t *stall_in;       /* per process: cycles waiting for input */
    int64_t *stall_out;      /* per process: cycles waiting for room */
    bool deadlock;           /* a simulation with the emitted depths stopped */
    char why[400];           /* which processes and FIFOs, when deadlocked */
    int64_t period;          /* the plan's SESL period: the slowest process's cycles per frame */
} PlanNet;

/* The SESL network of design d (its first d->split units). 0 ok, -1 with
 * a message on diag. */
int plan_net_build(const Plan *p, const IrGraph *g, const PlanDesign *d, PlanNet *net, IrDiag *diag);
/* Size every FIFO (simulation with unbounded FIFOs and the DRAM readers
 * paced at the period, depth = high-water mark, at least 2), then simulate
 * `frames` frames with those depths and fill interval, latency, stalls and
 * deadlock. */
void plan_net_simulate(PlanNet *net, int frames);
/* Simulate `frames` frames with the FIFO depths as they are (chans[].depth). */
void plan_net_run(PlanNet *net, int frames);
void plan_net_free(PlanNet *net);
/* The simulation's figures next to design d's (text). */
void plan_net_print(const PlanNet *net, const PlanDesign *d, FILE *f);

#endif
