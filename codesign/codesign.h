/* codesign.h - hardware-aware co-design: per-layer pruning ratios and
 * precisions searched against the planner's cost model and the integer
 * evaluator's accuracy.
 *
 * Why here, as its own module: the search composes the whole compiler -
 * frontend, the prune pass with its recovery, the quantize pass, the
 * bit-exact integer evaluator (passes/quant/quant.h) and the planner's public API
 * (plan_build: a design's frames/s and latency under one fixed budget) -
 * and owns none of them. Every candidate is built exactly as `compile`
 * builds it from the spec files written at the end, so what the search
 * measured is what the user gets. docs/codesign.md describes the method.
 */
#ifndef ONNX2HLS_CODESIGN_H
#define ONNX2HLS_CODESIGN_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "frontend/frontend.h"
#include "passes/passes.h"
#include "passes/quant/quant.h"
#include "plan/plan.h"

#define CODESIGN_MAX_PRECS 6
#define CODESIGN_MAX_RATIOS 8

typedef enum { CODESIGN_FPS = 0, CODESIGN_LATENCY } CodesignObjective;

typedef struct {
    const char *model, *val_x, *val_y, *calib, *out_dir;
    FeOptions fe;
    PlanDevice dev;
    PlanOptions po;
    QuantPrec prec;                         /* base precision (--precision, default int8) */
    QuantPrec alts[CODESIGN_MAX_PRECS];     /* other per-layer precisions to try (--precisions) */
    int n_alts;
    CodesignObjective objective;
    double target_speedup;                  /* 0: none */
    double max_drop;                        /* accuracy points; < 0: none */
    double front_speedup;                   /* the search goes on up to this speedup (default 2) */
    bool sensitivity;                       /* --sensitivity: the table only */
    double ratios[CODESIGN_MAX_RATIOS];     /* sensitivity ratios */
    int n_ratios;
    double step, max_ratio;                 /* greedy step and cap per group */
    int search_images;                      /* validation images used while searching (0 = all) */
    int probes;                             /* best predicted cuts measured per search step */
    int calib_max;                          /* calibration inputs for recovery (0 = all) */
    bool no_recover;                        /* L1 pruning without refit (for comparison) */
    double uniform;                         /* > 0: evaluate this uniform ratio only */
    int threads;                            /* evaluator workers (--threads; 0: one per core) */
    FILE *progress;                         /* one line per candidate (stderr); NULL quiet */
} CodesignOptions;

void codesign_options_init(CodesignOptions *o);

/* One evaluated design. Figures from the integer evaluator (acc, on n_img
 * validation images) and the planner (fps, latency, BRAM under the budget). */
typedef struct {
    const char *kind;        /* "baseline", "sensitivity", "search", "precision", "uniform" */
    double *ratio;           /* per prune group */
    QuantPrec *prec;         /* per layer of the base graph (NULL = all base) */
    double acc;              /* top-1 % */
    int n_img;
    double acc_full;         /* on the whole validation set, < 0 if not measured */
    double fps, latency_ms, speedup;
    int bram18k, dsp;
    int64_t macs, params;
    bool front;              /* on the Pareto front (speedup vs accuracy) */
    int note_group;          /* sensitivity: the group pruned, -1 */
    double note_ratio;
} CodesignCand;

typedef struct {
    CodesignOptions opt;
    IrGraph *base;           /* float graph after the default pipeline (names, groups) */
    PassPruneGroup *groups;
    int n_groups;
    const char **group_name; /* a group is named by its first source layer */
    float *vx;
    int *vy;
    int n_val;
    int64_t in_size, out_size;
    CodesignCand *c;
    int n_c, cap_c;
    int chosen;              /* index in c of the design written out, -1 */
    double base_speed;       /* the baseline's frames/s (or 1/latency) */
    double t_start;
    clock_t cpu_start;       /* the process's CPU time at the start (all threads) */
} Codesign;

/* Run the whole co-design (or the sensitivity table) and write
 * OUT/prune.spec, OUT/precision.spec, OUT/codesign.json, OUT/codesign.html.
 * 0 ok; -1 with errors on d (naming the file or the ONNX node). */
int codesign_run(Codesign *cs, const CodesignOptions *o, IrDiag *d);
void codesign_free(Codesign *cs);

/* codesign/eval.c: build and measure candidate c (its ratios and
 * precisions) on the first n validation images; c->speedup receives the
 * raw speed (frames/s, or 1/latency). 0 ok, -1 on d. */
int codesign_eval(Codesign *cs, CodesignCand *c, int n, IrDiag *d);
/* the planner's speed of a float graph pruned by ratio[] (no recovery, no
 * calibration): the search's quick look before measuring accuracy */
int codesign_quick_plan(Codesign *cs, const double *ratio, double *speed, IrDiag *d);
/* a spec file of c's ratios / precisions at path; 0 ok */
int codesign_write_prune_spec(const Codesign *cs, const CodesignCand *c, const char *path);
int codesign_write_prec_spec(const Codesign *cs, const CodesignCand *c, const char *path);

/* codesign/report.c: codesign.json and codesign.html */
int codesign_write_json(const Codesign *cs, const char *path);
int codesign_write_html(const Codesign *cs, const char *path);

#endif
