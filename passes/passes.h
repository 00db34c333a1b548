/* passes.h - the graph-to-graph passes between the frontend and the planner.
 *
 * Why one header: the compile and inspect commands only need passes_run()
 * and the option helpers; tests also reach each pass's entry function to
 * exercise it alone. Every pass is one file passes/<name>.c that opens with
 * its contract (requires / provides / breaks), and the order they run in is
 * the single table in passes/pipeline.c (documented in docs/passes.md).
 *
 * A pass returns the number of rewrites it made (>= 0), or -1 after reporting
 * an error on the IrDiag. Passes mark removed layers dead; the runner calls
 * ir_graph_compact() after each pass, so every pass starts on a compact,
 * topologically ordered graph. A pass leaves anything it does not fully
 * understand untouched: an odd graph is never an error here, only a missed
 * optimization.
 */
#ifndef ONNX2HLS_PASSES_H
#define ONNX2HLS_PASSES_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/ir.h"
#include "ir/option.h"
#include "ir/sidefile.h"

typedef struct {
    /* selection: comma-separated pass names from the table, "default"
     * (the default pipeline), "all" or "none"; NULL = "default" */
    const char *passes;
    /* print the IR after these passes (comma list, or "all"); NULL = never */
    const char *dump_after;
    bool dump_json;          /* JSON (ir_print_json) instead of the text table */
    FILE *dump;              /* where dumps go; NULL = stderr */
    bool verify_each;        /* ir_verify after every pass, failing with the pass's name */
    FILE *log;               /* one line per pass run (and pruning figures); NULL = quiet */
    /* prune (passes/prune.c): either enables the pass */
    double prune_ratio;      /* uniform output-channel ratio in [0, 1); 0 = none */
    const char *prune_spec;  /* file of "LAYER_NAME RATIO" lines; NULL = none */
    /* raw float32 inputs for recovery (passes/prune_recover.c): channels
     * chosen by reconstruction error, readers refit by least squares;
     * NULL = L1 ranking, no refit */
    const char *prune_calib;
    int prune_calib_max;     /* use at most this many of them (0 = all) */
    /* quantize (passes/quant/quant.h): precision, calibration; NULL = float */
    const struct QuantOptions *quant;
} PassOptions;

typedef int (*PassFn)(IrGraph *g, const PassOptions *opt, IrDiag *d);

enum {
    PASS_DEFAULT = 1 << 0,   /* in the default pipeline */
    PASS_PRUNE = 1 << 1,     /* runs whenever pruning options are set */
    PASS_QUANT = 1 << 2,     /* runs whenever quantization options are set */
};

typedef struct {
    const char *name;
    PassFn fn;
    unsigned flags;
    const char *contract;    /* one line; the full contract is atop the pass's file */
} PassInfo;

/* ------------------------------------------------------------- runner */

void passes_options_init(PassOptions *opt);
/* The pipeline table, in run order. */
const PassInfo *passes_table(int *n);
/* Run the selected passes in table order. 0 ok, -1 error (reported on d:
 * a bad selection, a failing pass, or a pass that left an invalid graph
 * while opt->verify_each is on). */
int passes_run(IrGraph *g, const PassOptions *opt, IrDiag *d);
/* Same over an explicit list (every entry runs), for tests. */
int passes_run_list(IrGraph *g, const PassInfo *list, int n, const PassOptions *opt, IrDiag *d);
/* Check a --passes value; 0 ok, -1 with a message in err. */
int passes_check_selection(const char *sel, char *err, size_t n);

/* Totals of ir_layer_stats over the live layers. */
typedef struct {
    int layers;
    int64_t macs, params;
} PassTotals;
void passes_totals(const IrGraph *g, PassTotals *t);

/* ----------------------------------------------- command-line options */

/* The pass options, a table the CLI drives (ir/option.h; value strings
 * point into argv):
 *   --passes LIST          selection (see PassOptions.passes)
 *   --fuse, --no-fuse      the default pipeline; no pass at all
 *   --dump-after P[,P][:json]  print the IR after those passes (stderr)
 *   --prune SPEC           ratio in [0,1) or a per-layer spec file
 *   --prune-calib FILE     inputs for accuracy recovery
 *   --verify-passes        ir_verify after every pass */
extern const IrOption passes_options[];
/* 1 when any pass option was given (a command may then print before/after). */
int passes_options_given(const PassOptions *opt);

/* ------------------------------------------------------ prune groups */

/* A set of tensors that lose channels together (passes/prune_groups.c),
 * named by the layers choosing its channels: a spec ratio given to all of
 * them prunes the group by that ratio. */
#define PASS_PRUNE_MAX_SRC 16
typedef struct {
    int64_t channels;
    int n_src;
    int src[PASS_PRUNE_MAX_SRC];   /* source layers (full convs, Gemm/MatMul) */
} PassPruneGroup;
/* The prunable groups of g (after the fusions), in tensor order; returns
 * how many were written (at most max). */
int pass_prune_groups(IrGraph *g, PassPruneGroup *out, int max);

/* -------------------------------------------------- pass entry points */

int pass_drop_views(IrGraph *g, const PassOptions *opt, IrDiag *d);
int pass_fuse_shuffle(IrGraph *g, const PassOptions *opt, IrDiag *d);
int pass_fold_pad(IrGraph *g, const PassOptions *opt, IrDiag *d);
int pass_fuse_gemm(IrGraph *g, const PassOptions *opt, IrDiag *d);
int pass_fold_bn(IrGraph *g, const PassOptions *opt, IrDiag *d);
int pass_fold_bn_next(IrGraph *g, const PassOptions *opt, IrDiag *d);
int pass_canon_act(IrGraph *g, const PassOptions *opt, IrDiag *d);
int pass_fuse_residual(IrGraph *g, const PassOptions *opt, IrDiag *d);
int pass_fuse_act(IrGraph *g, const PassOptions *opt, IrDiag *d);
int pass_mark_se(IrGraph *g, const PassOptions *opt, IrDiag *d);
int pass_prune(IrGraph *g, const PassOptions *opt, IrDiag *d);
int pass_dce(IrGraph *g, const PassOptions *opt, IrDiag *d);
/* passes/quant/qdq_import.c, passes/quant/quantize.c (see passes/quant/quant.h) */
int pass_qdq_import(IrGraph *g, const PassOptions *opt, IrDiag *d);
int pass_quantize(IrGraph *g, const PassOptions *opt, IrDiag *d);

#endif
