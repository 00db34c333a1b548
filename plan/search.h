/* search.h - the search state shared by search.c (evaluating a split at a
 * period) and design.c (choosing by the objective, filling the designs).
 *
 * Why a separate header: the figures of one split that do not depend on
 * the PE division (DRAM movers of the SESL part, boundary bytes, FIFO
 * sizes, the fill model) are tabulated once per plan here, so evaluating a
 * candidate is a lookup per SESL stage plus the SEML solver's answer.
 */
#ifndef ONNX2HLS_PLAN_SEARCH_H
#define ONNX2HLS_PLAN_SEARCH_H

#include "plan_internal.h"

typedef struct {
    const IrGraph *g;
    Plan *p;
    const PlanTensorInfo *ti;
    int n;                   /* units */
    double bpc;              /* DRAM bytes per cycle */
    PlanFrontier *fr;        /* per unit: SESL shapes */
    PlanSemlTab *tab;
    /* per unit, as a SESL stage */
    int64_t *floor;          /* cycles of its DRAM reader / duplicator (shape-independent) */
    double *phi;             /* share of its input read before its first output */
    int *prod_in, *prod_x;   /* units producing its main / second operand, -1 DRAM or none */
    PlanBuf *fifo;           /* its buffers but the weights: FIFOs (residual skip or SE map; windows), line buffer */
    int64_t *fifo_depth;     /* that FIFO's depth in words */
    /* per split 0..n */
    int64_t *wr_max;         /* slowest DRAM writer of the SESL part */
    int64_t *sesl_bytes;     /* DRAM bytes of the SESL part's readers and writers */
    int64_t *bnd_bytes;      /* SESL -> SEML tensors, one copy */
    int64_t *sesl_bram;      /* block RAM of the SESL stages at their smallest engines */
    int64_t onchip_cap;      /* bytes of BRAM+URAM the plan may use */
    int sesl_cap;            /* largest split whose SESL part can fit at its smallest engines */
    const char *sesl_cap_why;/* the budget the next unit would break */
} Search;

/* One evaluated design: a split, its SEML band-buffer buf_log, the SESL
 * stages' target time and how the SEML part takes PEs. */
typedef struct {
    int split, buf_log;
    int64_t t_sesl_target;   /* each SESL stage meets this */
    int64_t t_max;           /* the SEML part meets this (fewest PEs), or INT64_MAX: it takes every PE left */
    bool ok;
    const char *why;
    int64_t need;            /* a larger period that might work (bandwidth, pixel rate) */
    int64_t t_sesl, t_seml, bw, period, lat_sesl, latency;
    int pes, dsp, bram, uram, lut, seml_pes;
    int64_t dram_bytes;
    int *pick;               /* frontier point per SESL unit (caller's array) */
    PlanSemlChoice ch;
} Eval;

typedef struct {
    PlanBuf b;
    int owner;               /* engine index, -1 shared buffers */
    bool in_uram;
} Item;

typedef struct {
    Item *v;
    int n, cap;
} Items;

void search_init(Search *S, const IrGraph *g, Plan *p, const PlanTensorInfo *ti);
void search_free(Search *S);
/* Evaluate design e->split/buf_log/t_sesl_target/t_max with its SEML solver
 * (NULL for SESL-only); the items are the on-chip buffers it needs. */
void search_eval(const Search *S, const PlanSeml *seml, Eval *e, Items *it);

/* design.c: every candidate of every split, then the three designs */
void design_run(Search *S);

#endif
