/* plan.h - the hybrid partition planner: which layers get their own pipelined
 * engine and which share a few reusable ones, and how a fixed budget of PEs,
 * DSPs, on-chip memory and DRAM bandwidth is divided between them.
 *
 * Why: the accelerator onnx2hls emits is the FiBHA hybrid. The first
 * `split` accelerator layers (in topological order) each get a dedicated
 * engine in a line-buffered row pipeline with weights on chip (SESL: single
 * engine, single layer); the remaining layers run one after another on a few
 * reusable engines that stream weights from DRAM through double-buffered
 * tiles and keep feature maps in ping-pong buffers (SEML: single engine,
 * multiple layers). A double buffer joins the two parts so both work at
 * once: period = max(T_SESL, T_SEML), latency = T_SESL + T_SEML. The planner
 * tries every split, divides the PEs by bisection on the pipeline period, and
 * reports the best hybrid next to the two baselines under the same budget:
 * SEML-only (split 0) and SESL-only (every layer its own engine).
 *
 * Units: time in clock cycles of the accelerator clock unless a name says
 * otherwise (_s, _ms); memory in bytes; a PE is one arithmetic lane (a MAC
 * for conv/FC engines, a compare/add/multiply lane for pool and
 * element-wise engines) working every cycle.
 *
 * Layers the accelerator does not run (unit NONE in ir/ops.def) go to the
 * host CPU, views (IR_F_NO_DATA) cost nothing, and element-wise layers or
 * BatchNormalization directly following a conv/FC/pool whose output they
 * alone consume are planned as fused into that producer's epilogue (what the
 * fusion pass does to the IR). See docs/plan.md for the model in full.
 *
 * Nothing here exits: errors go to the IrDiag with the node name.
 */
#ifndef ONNX2HLS_PLAN_H
#define ONNX2HLS_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/ir.h"
#include "loopnest.h"

/* ------------------------------------------------------------ devices */

typedef enum {
    PLAN_DSP48E1 = 0,  /* 7-series: 25x18, one int8 MAC per slice */
    PLAN_DSP48E2,      /* UltraScale(+): 27x18, two int8 MACs share a slice */
    PLAN_DSP58,        /* Versal: three-element int8 dot product, native fp32 */
} PlanDspKind;

typedef struct {
    char name[32];        /* lookup key, e.g. "zcu102" */
    char board[64];       /* e.g. "Xilinx ZCU102" */
    char part[48];        /* e.g. "XCZU9EG" */
    PlanDspKind dsp_kind;
    int dsp;              /* DSP slices */
    int bram18k;          /* 18 Kb block RAMs (two per BRAM36) */
    int uram;             /* 288 Kb UltraRAMs */
    int lut, ff;
    double dram_gbps;     /* peak DRAM bandwidth the fabric reaches, GB/s (1e9 B/s) */
    double clock_mhz;     /* usual accelerator clock */
    int axi_ports;        /* AXI ports from the fabric to DRAM (HP ports, memory channels) */
    int axi_bits;         /* data width of each port: one beat of axi_bits/8 bytes per cycle */
    double axi_eff;       /* share of the ports' peak that DRAM sustains (controller efficiency) */
} PlanDevice;

int plan_device_count(void);
const PlanDevice *plan_device_at(int i);
/* case-insensitive by name ("zcu102") or part ("xczu9eg"); NULL if unknown */
const PlanDevice *plan_device_find(const char *name);
/* Read a device from a JSON object file (docs/plan.md lists the keys).
 * 0 ok; -1 with a message naming the file on d. */
int plan_device_load(const char *path, PlanDevice *dev, IrDiag *d);
/* Multiply lanes one DSP slice gives at a precision: 2 for int8 on DSP48E2
 * (two MACs share a slice), 3 on DSP58, 1/5 for float on DSP48 (fmul 3 +
 * fadd 2 slices). plan_dsp_for_lanes rounds the slices for `lanes` up. */
double plan_lanes_per_dsp(const PlanDevice *dev, IrPrecision prec, int bits);
int plan_dsp_for_lanes(const PlanDevice *dev, IrPrecision prec, int bits, int64_t lanes);
/* Bytes per AXI beat of the device's ports, and the DRAM bytes per cycle at
 * clock_mhz the whole accelerator may move: min(DRAM peak, ports x width x
 * clock x efficiency) (docs/plan.md, "Bandwidth"). */
int plan_device_beat(const PlanDevice *dev);
double plan_device_bytes_per_cycle(const PlanDevice *dev, double clock_mhz, double dram_gbps);

/* ------------------------------------------------------------ options */

/* What the hybrid optimizes: frames/s; latency of one frame; or (default)
 * the best frames/s whose latency is no worse than the SEML-only design's. */
typedef enum { PLAN_OBJ_BALANCED = 0, PLAN_OBJ_THROUGHPUT, PLAN_OBJ_LATENCY } PlanObjective;

const char *plan_objective_name(PlanObjective o);
/* "throughput", "latency", "balanced"; 0 ok, -1 unknown */
int plan_objective_parse(const char *s, PlanObjective *o);

typedef struct {
    int pe_budget;         /* PEs (MAC lanes); 0 = as many as the DSPs allow */
    double clock_mhz;      /* 0 = the device's usual clock */
    double bandwidth_gbps; /* 0 = the device's DRAM bandwidth */
    IrPrecision prec;      /* precision of layers the graph leaves in float */
    int bits;
    double resource_frac;  /* share of DSP/BRAM/URAM/LUT the plan may use (shell, DMA keep the rest) */
    int force_split;       /* -1: search; else the hybrid uses this split */
    int64_t mem_budget;    /* on-chip bytes for the memory analysis; 0 = device BRAM+URAM */
    PlanObjective objective;
    bool timings;          /* the planner's run time in the outputs (--timings); off, they are
                            * a function of the inputs alone, byte for byte */
} PlanOptions;

void plan_options_default(PlanOptions *o);

/* ------------------------------------------------------------ engines */

typedef enum {
    PLAN_K_CONV = 0,   /* standard or grouped KxK convolution */
    PLAN_K_DWCONV,     /* depthwise convolution */
    PLAN_K_PWCONV,     /* 1x1 convolution */
    PLAN_K_FC,         /* Gemm / MatMul with constant weights */
    PLAN_K_POOL,       /* max/average/global pooling, ReduceMean */
    PLAN_K_ELTWISE,    /* BN, activations, Add/Mul/..., Concat standing alone */
    PLAN_K_COUNT
} PlanKind;

const char *plan_kind_name(PlanKind k);

/* Every engine kind is costed as one loop nest pipelined at II=1:
 *   A outputs in parallel (output channels, or channels for dw/pool/eltwise)
 *   B reduction terms per output (C*K*K, C, K*K, window, 1)
 *   P output pixels (times batch)
 * An engine unrolls pa x pb x pp of them: cycles = ceil(A/pa)*ceil(B/pb)*ceil(P/pp) + depth. */
typedef struct {
    int64_t a, b, p;
} PlanLoops;

typedef struct {
    int pa, pb, pp;
} PlanShape;

/* Legal unroll factor f of a loop of `trip` iterations, for SESL and SEML
 * engines alike: f divides trip (no padding), or f = m * 2^k with m in
 * {1, 3, 5, 7} (the tail runs padded; arrays are padded to a multiple of f
 * and partitioned cyclically by f). A SEML engine passes the largest trip
 * count of that loop among its layers. docs/hls.md, section 3. */
bool plan_unroll_legal(int64_t f, int64_t trip);

/* Element-wise rules (sesl_eltwise.c O2H_P_MODE, seml_eltwise.c O2H_OP_*) */
typedef enum {
    PLAN_ELT_ADD = 0,   /* Add / Sub of two maps */
    PLAN_ELT_MUL,       /* Mul of two maps, or of a map and a per-channel vector */
    PLAN_ELT_LUT,       /* a 256-entry table (activation standing alone) */
    PLAN_ELT_RESCALE,   /* requantize and clamp (Relu / Clip standing alone, BN / PRelu of a float plan) */
    PLAN_ELT_CONCAT,    /* channel Concat: one copy per input */
    PLAN_ELT_MOVE,      /* channel slice or shuffle (Split part, Slice, Gather; PlanUnit.mv) */
} PlanEltOp;

/* One unit of accelerator work: an accelerated layer plus the layers fused
 * into its epilogue (conv/FC: requantize + clamp, residual Add, table). */
typedef struct {
    int layer;             /* IR layer index */
    int part;              /* the layer's output this unit computes (a Split: one unit per part) */
    PlanKind kind;
    PlanLoops loops;
    PlanGeom geo;          /* one image, NHWC (plan/loopnest.h): pads include a ceil-mode
                            * overhang; FC = a conv whose window is its whole input map */
    int64_t batch;         /* images per frame (N of the NCHW tensors) */
    PlanSemlOp op;         /* what the engines run (plan/loopnest.h) */
    PlanEltOp elt;         /* element-wise units: the rule */
    IrChanMove mv;         /* PLAN_ELT_MOVE: the input channel of each output channel (geo.c
                            * is the input's channels, geo.f the output's) */
    bool add;              /* conv/FC: residual Add in the epilogue (second operand extra_t) */
    bool lut;              /* a table ends the epilogue (Sigmoid, SiLU, HardSwish, Tanh, ...) */
    bool avg;              /* pools: average */
    int64_t rq_n;          /* average pools: requantization entries (one per tap count) */
    bool bvec;             /* element-wise: the second operand is a per-channel vector */
    bool windowed;         /* SESL: a sliding-window generator feeds the compute process */
    bool sesl_ok;          /* the SESL templates can run it */
    bool after_host;       /* depends (transitively) on a host layer's result */
    int64_t macs;          /* from ir_layer_stats (0 for pool/eltwise) */
    int64_t ops;           /* MACs, or element operations for pool/eltwise */
    IrPrecision prec;      /* arithmetic: float, or integer/fixed point of `bits` */
    int bits;              /* word width of values and weights */
    int64_t w_bytes;       /* weights + bias */
    int64_t in_bytes, out_bytes;
    int64_t extra_bytes;   /* second operand / residual read */
    int in_t, out_t;       /* main input and output tensors */
    int extra_t;           /* second operand or residual tensor, -1 none */
    bool mul;              /* element-wise op that multiplies (needs DSPs) */
    bool in_dram;          /* input comes from DRAM (graph input or host result) */
    bool out_dram;         /* output must reach DRAM (graph output or host input) */
    int n_fused;
    int fused[8];          /* IR layers folded into this unit */
} PlanUnit;

typedef struct {
    PlanKind kind;
    bool sesl;             /* dedicated pipeline stage (else reusable SEML engine) */
    PlanShape shape;
    int pes, dsp, bram18k, uram, lut;
    int n_layers;          /* units mapped to it */
    int64_t busy;          /* cycles per frame it computes */
    /* compile-time maxima over the units it serves (SEML runtime params stay below) */
    int64_t max_a, max_b, max_p, max_k, max_hw, max_c;
    /* SEML: bytes per half of the double-buffered input / output band
     * buffers, and the AXI beat (bytes) of its ports (plan/loopnest.h,
     * PlanSemlEngine); 0 when not chosen */
    int64_t ibuf, obuf;
    int beat;
} PlanEngine;

typedef struct {
    int engine;            /* index in PlanDesign.engines */
    bool sesl;
    int64_t compute;       /* cycles of its compute loops (SEML: summed over bands) */
    int64_t mem;           /* cycles of its DRAM movers (SESL reader/writer; SEML loads and stores) */
    int64_t cycles;        /* the unit's time (plan/loopnest.c): SESL: the slowest of its
                            * processes; SEML: the layer on its engine with the descriptor fetch */
    int64_t dram_bytes;    /* per frame */
    bool in_on_chip, out_on_chip;
    int64_t band_rows;     /* SEML: output rows per band (plan_ln_band_rows), 0 when not chosen */
} PlanUnitMap;

typedef struct {
    const char *name;      /* "hybrid", "seml", "sesl" */
    bool fits;
    char why[200];         /* when !fits: which budget broke */
    int split;             /* first `split` units are SESL */
    PlanEngine *engines;
    int n_engines;
    PlanUnitMap *map;      /* per unit */
    int64_t t_sesl, t_seml, t_host;  /* cycles per frame */
    int64_t period;        /* steady-state cycles per frame */
    double fps, latency_ms;
    int pes, dsp, bram18k, uram, lut;
    double pe_util;        /* MAC-ops / (pes * period) */
    int64_t dram_bytes;    /* per frame */
    int64_t onchip_bytes;  /* weights + buffers held on chip */
    int64_t boundary_bytes;/* SESL->SEML tensors, one copy (DRAM holds two: ping-pong) */
    int64_t lat_sesl;      /* SESL part: fill along the pipeline + the slowest stage's frame */
    int64_t latency;       /* cycles: lat_sesl + t_seml + t_host */
} PlanDesign;

/* One row of the split -> (frames/s, latency) trade-off the search found */
typedef struct {
    int split;
    int64_t period, latency;   /* cycles */
    double fps, latency_ms;
} PlanPareto;

/* ------------------------------------------- memory analysis, roofline */

typedef enum { PLAN_F_ALL = 0, PLAN_F_LAYER, PLAN_F_TILE, PLAN_F_COUNT } PlanFilterPolicy;
typedef enum { PLAN_A_LAYER = 0, PLAN_A_TILE, PLAN_A_COUNT } PlanActPolicy;
#define PLAN_MEM_CONFIGS (PLAN_F_COUNT * PLAN_A_COUNT * 2)  /* x prefetch */

typedef struct {
    PlanFilterPolicy f;
    PlanActPolicy a;
    bool prefetch;
} PlanMemConfig;

/* config index -> policies, and its name ("layer/tile+pf") */
PlanMemConfig plan_mem_config(int idx);
const char *plan_mem_config_name(int idx);

typedef struct {
    int64_t onchip[PLAN_MEM_CONFIGS];   /* bytes on chip while this layer runs */
    int64_t dram[PLAN_MEM_CONFIGS];     /* DRAM bytes moved for this layer per frame */
    int chosen;                         /* heterogeneous choice (config index) */
    bool chosen_fits;
    int fit_bits;                       /* widest word (<= 16) whose layer-resident plan fits */
} PlanMemLayer;

typedef struct {
    int64_t budget;                     /* on-chip bytes */
    PlanMemLayer *layers;               /* per unit */
    int64_t homo_onchip[PLAN_MEM_CONFIGS], homo_dram[PLAN_MEM_CONFIGS];
    int64_t hetero_onchip, hetero_dram;
} PlanMemory;

typedef struct {
    double intensity;      /* ops per DRAM byte when the layer streams weights and maps once */
    double attainable;     /* ops/s min(compute roof, intensity * bandwidth) */
    double achieved;       /* ops/s in the hybrid plan */
} PlanRoof;

/* -------------------------------------------------------------- plan */

typedef struct {
    PlanDevice dev;
    PlanOptions opt;
    double clock_mhz, bandwidth_gbps;
    int pe_budget;         /* effective: min(option, what DSPs allow) */
    int dsp_cap, bram_cap, uram_cap, lut_cap;
    PlanUnit *units;
    int n_units;
    int *host_layers;      /* layers run by the host CPU */
    int n_host;
    int64_t host_cycles;
    int64_t total_macs, total_ops;
    double bytes_per_cycle;/* DRAM bytes per cycle (plan_device_bytes_per_cycle) */
    int beat;              /* bytes per AXI beat */
    int max_split;         /* largest legal split (host layers, what SESL templates run) */
    PlanDesign hybrid, seml, sesl;
    PlanPareto *pareto;    /* non-dominated designs, frames/s descending */
    int n_pareto;
    char note[240];        /* how the objective was met (or why it fell back) */
    PlanMemory memory;
    PlanRoof *roof;        /* per unit */
    double peak_ops;       /* 2 * pe_budget * f */
    double plan_ms;        /* wall time of plan_build (printed only with PlanOptions.timings) */
    double plan_cpu_ms;    /* CPU time of plan_build (what it costs on an idle machine) */
} Plan;

/* Plan graph g (shapes known) for dev under opt. 0 ok; -1 with messages on d
 * (unknown shapes, empty graph, bad options). Deterministic. */
int plan_build(const IrGraph *g, const PlanDevice *dev, const PlanOptions *opt, Plan *p, IrDiag *d);
void plan_free(Plan *p);

/* The layer(s) unit `unit` runs as on the SEML engines, exactly as the
 * planner costs them (one per descriptor: a Concat has one per input, every
 * other unit one); fills at most cap, returns how many there are. */
int plan_unit_seml_layers(const Plan *p, const IrGraph *g, int unit, PlanSemlLayer *l, int cap);
/* The loop-nest view of SEML engine `engine` of design d (shape, band
 * buffers, beat). */
PlanSemlEngine plan_engine_seml(const PlanDesign *d, int engine);

/* Human-readable tables: the three designs side by side, engines, layers. */
void plan_print_text(const Plan *p, const IrGraph *g, FILE *f);
/* The whole plan as one JSON object (what `compile` writes to plan.json). */
void plan_write_json(const Plan *p, const IrGraph *g, FILE *f);

#endif
