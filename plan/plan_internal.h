/* plan_internal.h - what the planner's files share and nobody else needs:
 * the cost functions of each engine kind (cost.c), the memory resource model
 * (cost.c), the graph-to-units mapping (units.c), the SESL stage frontiers
 * (sesl.c) and the SEML engine selection (seml.c).
 *
 * Why split this way: the search in plan.c only combines numbers; every
 * figure it combines is computed by one small named function here, so a
 * reader looking for "the cost of a depthwise conv" finds plan_cost_dwconv
 * and nothing else decides it.
 */
#ifndef ONNX2HLS_PLAN_INTERNAL_H
#define ONNX2HLS_PLAN_INTERNAL_H

#include "plan.h"

/* ------------------------------------------------------------- cost.c */

int64_t plan_cdiv(int64_t a, int64_t b);
int plan_ilog2_ceil(int64_t x);
int plan_value_bytes(int bits);

/* Loop nest of each kind (PlanLoops in plan.h). */
PlanLoops plan_loops_conv(int64_t f, int64_t c_per_group, int64_t kh, int64_t kw, int64_t pixels);
PlanLoops plan_loops_dwconv(int64_t channels, int64_t kh, int64_t kw, int64_t pixels);
PlanLoops plan_loops_pwconv(int64_t f, int64_t c, int64_t pixels);
PlanLoops plan_loops_fc(int64_t out_features, int64_t in_features, int64_t rows);
PlanLoops plan_loops_pool(int64_t channels, int64_t window, int64_t pixels);
PlanLoops plan_loops_eltwise(int64_t channels, int64_t pixels);

/* Cycles of one unit on an engine of a given shape, at II=1, including the
 * pipeline depth. One function per kind; plan_cost_cycles dispatches. */
int64_t plan_cost_conv(const PlanUnit *u, PlanShape s);
int64_t plan_cost_dwconv(const PlanUnit *u, PlanShape s);
int64_t plan_cost_pwconv(const PlanUnit *u, PlanShape s);
int64_t plan_cost_fc(const PlanUnit *u, PlanShape s);
int64_t plan_cost_pool(const PlanUnit *u, PlanShape s);
int64_t plan_cost_eltwise(const PlanUnit *u, PlanShape s);
int64_t plan_cost_cycles(const PlanUnit *u, PlanShape s);
/* pipeline depth of an engine: multiplier + adder tree over pb + write-back */
int64_t plan_cost_depth(PlanKind k, PlanShape s);
static inline int plan_shape_pes(PlanShape s) { return s.pa * s.pb * s.pp; }

/* Fixed cost of starting one layer on a reusable engine: descriptor fetch,
 * DMA start-up latency and pipeline fill (about half a microsecond). */
#define PLAN_SEML_SETUP 100
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

/* Buffers of an engine running unit u with shape s:
 *   SESL: weights on chip, K-row line buffer
 *   SEML: double-buffered weight tile for the largest reduction it serves */
PlanBuf plan_mem_sesl_weights(const PlanUnit *u, PlanShape s);
PlanBuf plan_mem_sesl_linebuf(const PlanUnit *u, PlanShape s);
PlanBuf plan_mem_seml_wtile(PlanKind k, PlanShape s, int64_t max_b, int bits);
/* DSP slices and LUTs of an engine of kind k (mul: element-wise op that multiplies) */
int plan_engine_dsp(const PlanDevice *dev, PlanKind k, bool mul, IrPrecision prec, int bits, int pes);
int plan_engine_lut(PlanKind k, bool sesl, IrPrecision prec, int bits, int pes);

/* ------------------------------------------------------------ units.c */

/* Per-tensor facts the memory model needs (indexed by tensor). */
typedef struct {
    int *alias;          /* view outputs resolve to their source tensor */
    int *unit_of;        /* unit producing the (resolved) tensor, -1 none */
    bool *dram_out;      /* must reach DRAM: graph output or read by the host */
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
    PlanBuf weights, linebuf;
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
 * (at most the scratch's max_pes) for each reachable cycle count. */
void plan_frontier_build(const PlanUnit *u, const PlanDevice *dev, PlanFrontierScratch *scratch, PlanFrontier *f);
void plan_frontier_free(PlanFrontier *f);
/* index of the cheapest point with cycles <= t, -1 if none */
int plan_frontier_pick(const PlanFrontier *f, int64_t t);

/* -------------------------------------------------------------- seml.c */

/* Engine families of the SEML part: FC layers run on the pointwise engine. */
PlanKind plan_seml_family(PlanKind k);

typedef struct PlanSeml PlanSeml;
typedef struct PlanSemlCache PlanSemlCache;

/* Shapes a reusable engine may take (powers of two in each loop, at most the
 * PE budget, no wider than the largest loop of its family) and the compute
 * cycles of every unit on every shape of its family: split-independent, so
 * built once per plan. */
typedef struct {
    int n_shapes[PLAN_K_COUNT];
    PlanShape *shapes[PLAN_K_COUNT];  /* per family, PEs ascending */
    int64_t **row;                    /* per unit: cycles on each shape of its family */
} PlanSemlTable;

void plan_seml_table_build(const Plan *p, int max_pes, PlanSemlTable *t);
void plan_seml_table_free(const Plan *p, PlanSemlTable *t);

/* What the SEML solver needs to know about the part it plans. */
typedef struct {
    const Plan *p;
    const PlanSemlTable *tab;
    PlanSemlCache *cache;
    const PlanTensorInfo *ti;
    const IrGraph *g;
    int first;             /* units first..n_units-1 are SEML */
    int64_t fm_buf;        /* bytes of each ping-pong / skip buffer */
    bool boundary_on_chip; /* SESL->SEML tensors held in the double buffer */
    double bytes_per_cycle;
    int max_pes;
} PlanSemlIn;

typedef struct {
    int n_engines;
    PlanKind kind[2 * PLAN_K_COUNT];
    PlanShape shape[2 * PLAN_K_COUNT];
} PlanSemlChoice;

/* Per-buffer-size sums shared by every split's solver (filled lazily). */
PlanSemlCache *plan_seml_cache_new(const Plan *p, const PlanSemlTable *tab, const PlanTensorInfo *ti, double bpc);
void plan_seml_cache_free(PlanSemlCache *c);

PlanSeml *plan_seml_new(const PlanSemlIn *in);
void plan_seml_free(PlanSeml *s);
/* Least SEML time (cycles per frame) with at most q PEs; INT64_MAX if none. */
int64_t plan_seml_time(const PlanSeml *s, int q);
/* The engines behind plan_seml_time(s, q). */
void plan_seml_choice(const PlanSeml *s, int q, PlanSemlChoice *c);
/* DRAM traffic of unit u on a SEML engine with pa filter lanes: bytes per
 * frame, and whether its input and output stay in on-chip buffers. */
int64_t plan_seml_unit_bytes(const PlanSemlIn *in, int u, int pa, bool *in_chip, bool *out_chip);

/* ---------------------------------------------------------- memory.c */

void plan_memory_analyse(const Plan *p, PlanMemory *m);
void plan_memory_free(PlanMemory *m);

/* --------------------------------------------------------- roofline.c */

void plan_roofline(Plan *p);

#endif
