/* sweep.h - design-space sweeps: the files that fan a sweep's points out
 * (sweep/files.c) and the table that gathers them back (sweep/collect.c,
 * sweep/table.c, sweep/csynth.c). `onnx2hls sweep` (cli/cmd_sweep.c) makes
 * the points themselves with the compile command.
 *
 * Why its own module: a point is a folder that `onnx2hls compile --emit
 * report,hls` wrote; what a sweep adds is the plumbing around those folders
 * (a Makefile for make -j, a Slurm job array, one table at the end), which
 * knows nothing of graphs or plans beyond the files on disk. So the points
 * can be run on machines that never ran the sweep, and collected after.
 *
 * A sweep folder:
 *   sweep.json     the manifest: model, design, the options passed to compile, the points in order
 *   Makefile       per point: plan (only when the model changed), csim, csynth (where Vitis is)
 *   sweep.sh       the commands of those steps; the only file holding paths and options
 *   sweep.sbatch   the Slurm job array: task i runs `make POINT_i`
 *   model.onnx     a link to the model (the plan step's prerequisite)
 *   logs/          Slurm task logs
 *   points/NAME/   plan.json, report.html, hls/ (csim.log, cycles.json, o2h_prj/...)
 *   sweep.csv, sweep.html   written by sweep_collect
 */
#ifndef ONNX2HLS_SWEEP_H
#define ONNX2HLS_SWEEP_H

#include <stdbool.h>

/* One point: a board, a precision and a PE budget. */
typedef struct {
    char name[80];          /* TARGET-PRECISION-peN, only [A-Za-z0-9_.-] */
    char target[40];        /* board name, or the device file's device name */
    const char *precision;  /* int8, dfxp8, ... */
    int pe_budget;
    int argc;               /* the compile command line without -o: "compile" MODEL ... */
    char **argv;
} SweepPoint;

typedef struct {
    const char *model;      /* as the user gave it (compile runs where the sweep ran) */
    const char *design;     /* hybrid, seml or sesl: the design each point's hls/ holds */
    char **pass;            /* options passed through to compile, as given */
    int n_pass;
    const char *cwd;        /* the folder the sweep ran in (absolute) */
    const char *self;       /* this onnx2hls (absolute) */
    const char *model_abs;  /* the model (absolute), for the model.onnx link */
    SweepPoint *points;
    int n_points;
} SweepSpec;

/* sweep.json, Makefile, sweep.sh, sweep.sbatch, model.onnx and logs/ in
 * dir; 0 ok, -1 (message printed). */
int sweep_write_files(const SweepSpec *s, const char *dir);

/* The file names a point's steps leave in points/NAME/hls. */
#define SWEEP_CSIM_LOG "csim.log"
#define SWEEP_CSYNTH_XML "o2h_prj/sol/syn/report/csynth.xml"

/* ------------------------------------------------------------ collect */

/* The columns of the table, in order: name (CSV header, and the plan.json
 * key for the plan's figures), label (HTML), kind. */
#define SWEEP_COLUMNS(X)                                              \
    X(POINT, "point", "point", SWEEP_TEXT)                            \
    X(TARGET, "target", "target", SWEEP_TEXT)                         \
    X(PRECISION, "precision", "precision", SWEEP_TEXT)                \
    X(PE_BUDGET, "pe_budget", "PE budget", SWEEP_NUM)                 \
    X(DESIGN, "design", "design", SWEEP_TEXT)                         \
    X(SPLIT, "split", "split", SWEEP_NUM)                             \
    X(FPS, "fps", "frames/s", SWEEP_NUM)                              \
    X(LATENCY_MS, "latency_ms", "latency ms", SWEEP_NUM)              \
    X(LATENCY_CYCLES, "latency_cycles", "latency cycles", SWEEP_NUM)  \
    X(PERIOD, "period_cycles", "period cycles", SWEEP_NUM)            \
    X(PES, "pes", "PEs", SWEEP_NUM)                                   \
    X(DSP, "dsp", "DSP", SWEEP_NUM)                                   \
    X(BRAM, "bram18k", "BRAM18K", SWEEP_NUM)                          \
    X(URAM, "uram", "URAM", SWEEP_NUM)                                \
    X(LUT, "lut", "LUT", SWEEP_NUM)                                   \
    X(PE_UTIL, "pe_util", "PE util", SWEEP_NUM)                       \
    X(DRAM_BYTES, "dram_bytes", "DRAM bytes", SWEEP_NUM)              \
    X(ONCHIP_BYTES, "onchip_bytes", "on-chip bytes", SWEEP_NUM)       \
    X(CSIM, "csim", "csim", SWEEP_TEXT)                               \
    X(CSIM_PERIOD, "csim_period_cycles", "csim period", SWEEP_NUM)    \
    X(CSIM_RATIO, "csim_over_plan", "csim / plan", SWEEP_NUM)         \
    X(SYN_CLOCK, "synth_clock_ns", "synth clock ns", SWEEP_NUM)       \
    X(SYN_TARGET, "synth_target_ns", "target ns", SWEEP_NUM)          \
    X(SYN_LATENCY, "synth_latency_cycles", "synth latency", SWEEP_NUM) \
    X(SYN_INTERVAL, "synth_interval_cycles", "synth interval", SWEEP_NUM) \
    X(SYN_DSP, "synth_dsp", "synth DSP", SWEEP_NUM)                   \
    X(SYN_BRAM, "synth_bram18k", "synth BRAM18K", SWEEP_NUM)          \
    X(SYN_LUT, "synth_lut", "synth LUT", SWEEP_NUM)                   \
    X(SYN_FF, "synth_ff", "synth FF", SWEEP_NUM)                      \
    X(SYN_URAM, "synth_uram", "synth URAM", SWEEP_NUM)

typedef enum { SWEEP_TEXT, SWEEP_NUM } SweepKind;

typedef enum {
#define SWEEP_COL_ENUM(id, name, label, kind) SWEEP_COL_##id,
    SWEEP_COLUMNS(SWEEP_COL_ENUM)
#undef SWEEP_COL_ENUM
    SWEEP_NCOLS
} SweepCol;

typedef struct {
    const char *name, *label;
    SweepKind kind;
} SweepColumn;
extern const SweepColumn sweep_columns[SWEEP_NCOLS];

/* One row per point: each cell is text (numbers already formatted so they
 * read back as the double they came from), or NULL when the point has no
 * such figure (no csim run, no synthesis report). */
typedef struct {
    char *cell[SWEEP_NCOLS];
} SweepRow;

typedef struct {
    char *model;            /* from sweep.json */
    SweepRow *rows;
    int n_rows;
    int n_csim, n_synth;    /* rows with a C simulation, with a synthesis report */
} SweepTable;

/* Read dir's sweep.json and every point's files into t; 0 ok, -1 (message
 * printed naming the file). */
int sweep_collect(const char *dir, SweepTable *t);
void sweep_table_free(SweepTable *t);
/* dir/sweep.csv and dir/sweep.html, each written whole then renamed into
 * place; 0 ok, -1 (message printed). */
int sweep_write_table(const SweepTable *t, const char *dir);

/* The figures of a Vitis HLS csynth.xml (sweep/csynth.c): each a text
 * number or NULL, into cells SWEEP_COL_SYN_*. 0 read (figures the report
 * lacks stay NULL), -1 not a csynth report (message printed). */
int sweep_read_csynth(const char *path, SweepRow *row);

/* x as the shortest decimal text that reads back as x (malloc'd). */
char *sweep_num(double x);

#endif
