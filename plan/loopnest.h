/* loopnest.h - the cycles of every engine's loops, as the planner predicts
 * them and as the emitted HLS C runs them.
 *
 * Why one module: an accelerator plan is only true if the code realizes it.
 * Each function here mirrors one loop structure of templates/hls/ (named in
 * its comment) term by term: a pipelined loop of N iterations at II=1 costs
 * N + depth + restart per entry, a burst copy ceil(bytes/beat) beats plus
 * the port latency, and double-buffered phases cost the larger of the
 * phases they overlap. The constants (depths, restart, latency, descriptor
 * size) come from templates/hls/common/o2h_timing.h, the header the
 * templates' cycle counters use. The planner costs units with these
 * functions (plan/cost.c, plan/seml.c); the HLS emitter takes band sizes
 * and the plan's per-layer cycles (cycles.json) from them; the C
 * simulation counts the same loops by running them. See docs/hls.md,
 * section 4.
 */
#ifndef ONNX2HLS_PLAN_LOOPNEST_H
#define ONNX2HLS_PLAN_LOOPNEST_H

#include <stdbool.h>
#include <stdint.h>

/* Geometry of one layer: input map h x w x c, output ho x wo x f, window
 * kh x kw with strides, dilations and pads (pb/pr: bottom/right, including
 * any ceil-mode overhang), groups g. Element-wise layers: ho = h, wo = w,
 * f = c, a 1x1 window. */
typedef struct {
    int64_t h, w, c, ho, wo, f;
    int64_t kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, g;
} PlanGeom;

/* a pipelined loop of iters iterations entered once */
int64_t plan_ln_loop(int64_t iters, int64_t depth);
/* a burst copy of bytes on a port of beat bytes */
int64_t plan_ln_burst(int64_t bytes, int beat);

/* ---------------------------------------------------------------- SESL */

/* sesl_window.c: one iteration per padded input pixel */
int64_t plan_ln_sesl_window(const PlanGeom *g);
/* sesl_mac.c: pixels x ceil(f/pa) x ceil(b/pb) */
int64_t plan_ln_sesl_mac(int64_t pixels, int64_t f, int64_t b, int pa, int pb);
/* sesl_pool.c: windowed (pixels x ceil(c/pa) x ceil(kk/pb)) or global
 * (input pixels x ceil(c/pa), then ceil(c/pa) outputs) */
int64_t plan_ln_sesl_pool(const PlanGeom *g, bool global, int pa, int pb);
/* sesl_eltwise.c: pixels x ceil(c/pa) */
int64_t plan_ln_sesl_eltwise(int64_t pixels, int64_t c, int pa);
/* sesl_stream.c: reader / writer, pixels x ceil(c/beat) beats; duplicator */
int64_t plan_ln_sesl_mover(int64_t pixels, int64_t c, int beat);
int64_t plan_ln_sesl_dup(int64_t pixels);

/* ---------------------------------------------------------------- SEML */

/* What the SEML engines need to know of a layer (o2h_desc.h fields). */
typedef enum {
    PLAN_SEML_CONV = 0,   /* seml_conv.c: standard, grouped, pointwise conv, FC */
    PLAN_SEML_DW,         /* seml_dw.c: depthwise conv */
    PLAN_SEML_POOL,       /* seml_dw.c: windowed max / average pools */
    PLAN_SEML_GPOOL,      /* seml_dw.c: global pools */
    PLAN_SEML_ELT,        /* seml_eltwise.c: add, mul, table, rescale, channel copy */
} PlanSemlOp;

typedef struct {
    PlanSemlOp op;
    PlanGeom g;
    bool avg;             /* pools: average (constants per tap count) */
    bool add;             /* conv, depthwise: fused residual Add (skip band loaded with the input) */
    bool lut;             /* conv, depthwise, element-wise: a table */
    bool binary;          /* element-wise: a second map operand */
    bool bvec;            /* element-wise: the second operand is a per-channel vector */
    bool in_dense, in2_dense, out_dense;  /* element-wise: operands not channel slices */
    int64_t rq_n;         /* pools: requantization entries */
} PlanSemlLayer;

/* Buffers of a SEML engine, bytes per half of each double buffer. */
typedef struct {
    int pa, pb, pp;
    int64_t ibuf, obuf;   /* input / output band (element-wise: each operand) */
    int beat;             /* bytes per AXI beat */
} PlanSemlEngine;

/* Output rows per band: the most whose input rows fit ibuf and output rows
 * obuf (global pools: input rows). 0 when not even one row fits. */
int64_t plan_ln_band_rows(const PlanSemlLayer *l, const PlanSemlEngine *e);
/* Bytes of one weight tile record of a conv layer on engine e (pa filters
 * x the reduction, then bias, multiplier, shift per filter; a whole number
 * of beats), and of a depthwise/pool layer record. */
int64_t plan_ln_tile_bytes(const PlanSemlLayer *l, const PlanSemlEngine *e);
int64_t plan_ln_record_bytes(const PlanSemlLayer *l);
/* Cycles of one layer on engine e with the given band rows, including the
 * dispatcher's descriptor fetch: the template's band loop, band by band. */
int64_t plan_ln_seml_layer(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t rows);
/* The same run in parts: cycles (= plan_ln_seml_layer), the cycles of its
 * compute loops alone and of its loads and stores alone (not overlapped),
 * and the DRAM bytes its bursts move (descriptor, constants, bands, weight
 * tiles once per band). Bands of equal size are costed once, so the
 * planner's time does not grow with the number of bands; the cycles equal
 * plan_ln_seml_layer's (tests/unit/test_plan_model.c checks). */
typedef struct {
    int64_t cycles, compute, move, bytes;
} PlanLnRun;
PlanLnRun plan_ln_seml_run(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t rows);
/* Cycles of the dispatcher's descriptor fetch alone. */
int64_t plan_ln_desc_fetch(int beat);

#endif
