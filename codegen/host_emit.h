/* host_emit.h - state shared by the host code generator's files (internal).
 *
 * Emission runs twice over the layers with the same code path:
 *   phase 0 (plan): each layer emitter checks what it needs and records its
 *            scratch bytes, in-place wish, repacked-weight floats and blob
 *            constants; nothing is printed;
 *   phase 1 (emit): after the memory plan, the same emitters print their
 *            descriptors, init code and calls with final addresses.
 * Keeping both in one function per op means the sizes planned are exactly
 * the sizes used.
 *
 * Kernel scratch and repacked weights are sized by the runtime, and those
 * sizes follow the target's vector width (AVX-512, NEON, plain C tiles
 * differ). So they are not planned here: model.c asks the runtime it is
 * built with at init and places them in a static pool (see host.c).
 */
#ifndef ONNX2HLS_CG_HOST_EMIT_H
#define ONNX2HLS_CG_HOST_EMIT_H

#include <stdio.h>

#include "blob.h"
#include "host.h"
#include "mem_plan.h"

typedef struct {
    IrGraph *g;
    IrDiag *d;
    const CgHostOptions *opt;
    int phase;                 /* 0 plan, 1 emit */
    CgMemPlan plan;
    CgBlob blob;
    /* per layer, filled in phase 0 */
    int64_t *scratch;          /* bytes */
    int *inplace;              /* input slot out[0] may overwrite, -1 none */
    int *kslot;                /* weight slot of a conv/gemm layer (g_kw[]), -1 none */
    int *aux_entry;            /* a derived blob entry (e.g. int64 indices), -1 none */
    char *read;                /* per tensor: its data is read by the program */
    int n_kslots;
    int64_t pool_est;          /* packed floats as this compiler's runtime sizes them */
    int64_t scratch_est;       /* largest kernel scratch, floats, likewise */
    /* phase 1 cursor within the current layer's scratch */
    int cur_layer;
    int64_t scratch_cursor;
    /* output streams of model.c, phase 1 */
    FILE *decl;                /* descriptors, before model_run */
    FILE *init;                /* model_prepare: kernel sizes from the runtime */
    FILE *pack;                /* model_prepare: weight packing, after the pool is placed */
    FILE *run;                 /* body of model_run */
    unsigned cast_used[32];    /* [from] bit to: cast helpers to define */
    int n_calls;
    int errors;
} CgHost;

/* Emit layer l (both phases). 0 ok, -1 after reporting on h->d. */
int cg_host_layer(CgHost *h, int l);

/* Report that layer l cannot be emitted (adds the node to the message). */
void cg_host_reject(CgHost *h, int l, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Printing into the phase-1 streams; no-ops in phase 0. */
void cg_emit(CgHost *h, FILE *f, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* C expression for tensor t's address (void * for arena tensors, const
 * void * otherwise). Phase 0 returns a placeholder. */
const char *cg_ptr(CgHost *h, int t);
/* A fresh scratch region of the current layer, bytes long. */
const char *cg_scratch(CgHost *h, int64_t bytes);
/* The weight slot of the current layer: g_kw[slot] is set in model_init to
 * the repacked copy of a constant conv/gemm weight (or the constant itself
 * when the runtime does not repack it). */
int cg_kslot(CgHost *h);
/* A C float literal that round-trips (handles inf and nan). */
const char *cg_float(CgHost *h, float v);
/* "{a, b, c}" for an int64 list. */
const char *cg_i64_list(CgHost *h, const int64_t *v, int n);
/* C type of an IR dtype ("float", "int64_t", ...), NULL when the host path
 * cannot hold it. */
const char *cg_ctype(IrDType dt);
/* An identifier-safe short name for dtype dt ("f32", "i64", ...). */
const char *cg_dtype_tag(IrDType dt);

/* Writers of the other files (host_files.c). 0 ok, -1 errno. */
int cg_host_write_main(const CgHost *h, const char *dir);
int cg_host_write_build(const CgHost *h, const char *dir);
int cg_host_write_json(const CgHost *h, const char *dir);
int cg_host_copy_runtime(const char *from, const char *dir);

#endif
