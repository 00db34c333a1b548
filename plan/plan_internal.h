/* plan_internal.h - what the planner's files share and nobody else needs:
 * the cost and resource functions of each engine kind (cost.c), the
 * graph-to-units mapping (units.c), the SESL stage frontiers (sesl.c), the
 * SEML engine selection (seml.c) and the search state (search.c,
 * design.c).
 *
 * Why split this way: the search only combines numbers; every figure it
 * combines is computed by one small named function here, so a reader
 * looking for "the cost of a SESL depthwise stage" finds
 * plan_cost_sesl_mac and nothing else decides it.
 */
#ifndef ONNX2HLS_PLAN_INTERNAL_H
#define ONNX2HLS_PLAN_INTERNAL_H

#include "plan.h"

#include "templates/hls/common/o2h_timing.h"

/* ------------------------------------------------------------- cost.c */

int64_t plan_cdiv(int64_t a, int64_t b);
int plan_ilog2_ceil(int64_t x);
int plan_value_bytes(int bits);

/* f = m * 2^k with m in {1, 3, 5, 7} (legal for any trip count) */
bool plan_unroll_m2k(int64_t f);
/* legal factors of a loop of `trip` iterations up to min(trip, limit), ascending */
int plan_unroll_factors(int64_t trip, int64_t limit, int *out, int cap);

/* (A, B, P) of an engine kind over a geometry (plan.h, PlanLoops) */
PlanLoops plan_loops_of(const PlanGeom *g, PlanKind k);

/* Cycles of a SESL stage per frame with shape s (pp = 1): the slowest of
 * its window generator and its compute loop (plan/loopnest.c). One
 * function per engine kind; plan_cost_sesl dispatches. */
int64_t plan_cost_sesl_mac(const PlanUnit *u, PlanShape s);
int64_t plan_cost_sesl_pool(const PlanUnit *u, PlanShape s);
int64_t plan_cost_sesl_eltwise(const PlanUnit *u, PlanShape s);
int64_t plan_cost_sesl(const PlanUnit *u, PlanShape s);
/* cycles a SESL stage adds to the first output beyond waiting for input */
int64_t plan_cost_sesl_pixel(const PlanUnit *u, PlanShape s);
static inline int plan_shape_pes(PlanShape s) { return s.pa * s.pb * s.pp; }

/* Host CPU model for layers the accelerator does not run: one element
 * operation per nanosecond (an embedded ARM core with NEON). */
#define PLAN_HOST_NS_PER_ELEM 1.0

/* On-chip memory needed by one buffer, in each technology that can hold it.
 * A buffer is `banks` independent memories of `width` bits x `depth` words
 * (banks are what array partitioning creates so that many PEs read at once). */
typedef struct {
    int64_t bits;        /* payload */
    int bram;            /* 18 Kb blocks if in block RAM */
    int uram;            /* 288 Kb blocks if in UltraRAM (0 when it cannot be) */
    int lut;             /* LUTs if small enough for distributed RAM (then bram = uram = 0) */
} PlanBuf;

int plan_bram18k(int64_t width_bits, int64_t depth);
int plan_uram(int64_t width_bits, int64_t depth);
PlanBuf plan_buf(int64_t banks, int64_t width_bits, int64_t depth);
PlanBuf plan_buf_add(PlanBuf a, PlanBuf b);
bool plan_kind_has_weights(PlanKind k);

/* SESL arrays: the weight ROM of shape s, the window generator's line
 * buffer, a FIFO of depth words of `bytes` */
PlanBuf plan_mem_sesl_weights(const PlanUnit *u, PlanShape s);
PlanBuf plan_mem_sesl_linebuf(const PlanUnit *u);
PlanBuf plan_mem_fifo(int64_t depth, int64_t bytes);
/* words the window generator -> compute FIFO of unit u needs (0: not windowed) */
int64_t plan_window_fifo_depth(const PlanUnit *u);
/* DSP slices and LUTs of an engine of kind k (mul: element-wise op that multiplies) */
int plan_engine_dsp(const PlanDevice *dev, PlanKind k, bool mul, IrPrecision prec, int bits, PlanShape s);
int plan_engine_lut(PlanKind k, bool sesl, IrPrecision prec, int bits, int pes);

/* ------------------------------------------------------------ units.c */

/* Per-tensor facts (indexed by tensor). */
typedef struct {
    int *alias;          /* view outputs resolve to their source tensor */
    int *unit_of;        /* unit producing the (resolved) tensor, -1 none */
    bool *dram_out;      /* must reach DRAM: graph output or read by the host */
    int *uses;           /* readers (layers, residuals, slopes; +1 for a graph output) */
    int *reader;         /* the last layer reading it, -1 none */
    bool *tainted;       /* computed (transitively) from a host layer's result */
} PlanTensorInfo;

/* Map g's layers to units, host layers and views. 0 ok; -1 with messages. */
int plan_units_build(const IrGraph *g, const PlanOptions *o, Plan *p, PlanTensorInfo *ti, IrDiag *d);
void plan_tensor_info_free(PlanTensorInfo *ti);
int64_t plan_tensor_bytes(const IrGraph *g, int t, int bits);

/* -------------------------------------------------------------- sesl.c */

typedef struct {
    PlanShape shape;
    int pes;
    int64_t cycles;
    int dsp, lut;
    PlanBuf weights;
} PlanPoint;

typedef struct {
    PlanPoint *pts;      /* pes ascending, cycles strictly descending */
    int n;
} PlanFrontier;

/* Working memory of plan_frontier_build for budgets up to max_pes, reused
 * from unit to unit. */
typedef struct PlanFrontierScratch PlanFrontierScratch;
PlanFrontierScratch *plan_frontier_scratch_new(int max_pes);
void plan_frontier_scratch_free(PlanFrontierScratch *s);

/* Every shape worth having for a dedicated engine of unit u: the fewest PEs
 * (at most the scratch's max_pes) for each reachable cycle count, over the
 * legal unroll factors (pp = 1). */
void plan_frontier_build(const PlanUnit *u, const PlanDevice *dev, PlanFrontierScratch *scratch, PlanFrontier *f);
void plan_frontier_free(PlanFrontier *f);
/* index of the cheapest point with cycles <= t, -1 if none */
int plan_frontier_pick(const PlanFrontier *f, int64_t t);

/* -------------------------------------------------------------- seml.c */

/* Engine families of the SEML part: seml_conv.c (conv, pointwise, FC),
 * seml_dw.c (depthwise, pools), seml_eltwise.c (the rest). */
PlanKind plan_seml_family(PlanKind k);

/* What a family's engine must support over the SEML units of a split. */
typedef struct {
    int bits;
    IrPrecision prec;
    bool mul, add, lut, binary, bvec, gpool;
    int64_t max_a, max_b, max_p, max_k, max_c, max_hw;
} PlanFamNeeds;

/* Band buffer sizes are powers of two: 2^k bytes per half */
#define PLAN_BUF_MIN_LOG 9
#define PLAN_BUF_MAX_LOG 24

/* on-chip memory of a SEML engine of family f, shape s, band buffers of
 * 2^buf_log bytes per half, serving units with needs n (the template's arrays) */
PlanBuf plan_mem_seml_engine(PlanKind f, PlanShape s, int buf_log, int beat, const PlanFamNeeds *n);

typedef struct PlanSemlTab PlanSemlTab;
typedef struct PlanSeml PlanSeml;

/* Split-independent tables of the SEML engines: candidate shapes per family
 * and, lazily per band-buffer size, every unit's cycles and DRAM bytes on
 * every shape with suffix sums over each family's units. */
PlanSemlTab *plan_seml_tab_new(const Plan *p, const IrGraph *g, int max_pes);
void plan_seml_tab_free(PlanSemlTab *t);
/* family f has units from `first` on */
bool plan_seml_present(const PlanSemlTab *t, PlanKind f, int first);
/* smallest band buffer (log2 bytes) every family-f unit from `first` on fits; -1 none */
int plan_seml_min_buf(const PlanSemlTab *t, PlanKind f, int first);
/* what the family-f engine must support for units first.. */
PlanFamNeeds plan_seml_needs(const PlanSemlTab *t, PlanKind f, int first);

typedef struct {
    int n_engines;
    PlanKind kind[PLAN_K_COUNT];
    PlanShape shape[PLAN_K_COUNT];
    int buf_log[PLAN_K_COUNT];
} PlanSemlChoice;

/* The SEML part of one split (units first..n-1) with band buffers of
 * 2^buf_log bytes per half (or a family's smallest that fits, if larger):
 * for every PE count, the least time. */
PlanSeml *plan_seml_new(PlanSemlTab *t, int first, int buf_log, int max_pes);
void plan_seml_free(PlanSeml *s);
/* false when some family has no band buffer size that fits its units */
bool plan_seml_ok(const PlanSeml *s);
/* Least SEML time (cycles per frame) with at most q PEs; INT64_MAX if none. */
int64_t plan_seml_time(const PlanSeml *s, int q);
/* The engines behind plan_seml_time(s, q), and their DRAM bytes per frame. */
void plan_seml_choice(const PlanSeml *s, int q, PlanSemlChoice *c, int64_t *bytes);
/* One unit on a chosen engine: the loop-nest run (cycles, bytes, ...) and its band rows. */
PlanLnRun plan_seml_unit_run(const PlanSemlTab *t, int unit, PlanShape s, int buf_log, int64_t *band_rows);

/* ---------------------------------------------------------- memory.c */

void plan_memory_analyse(const Plan *p, PlanMemory *m);
void plan_memory_free(PlanMemory *m);

/* --------------------------------------------------------- roofline.c */

void plan_roofline(Plan *p);

#endif
