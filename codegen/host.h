/* host.h - the host C code generator: IR -> a standalone C program.
 *
 * cg_host_emit writes DIR/ with
 *   model.h          the model's API (init from a weight blob, run, tensor info)
 *   model.c          one runtime call per layer with constant descriptors
 *   main.c           a command-line driver: raw input files in, raw outputs out
 *   weights.bin      the constant blob (or weights.c with embed_weights)
 *   Makefile, CMakeLists.txt, runtime/ (a copy of the runtime sources)
 *   model.json       the source model path and the input/output tensors
 * so DIR builds alone with any C compiler. The generated program never
 * allocates while running: activations live in one static arena laid out by
 * codegen/mem_plan.c.
 *
 * Layers the host path cannot run are reported on the IrDiag with their
 * ONNX node; then nothing is written and -1 is returned.
 */
#ifndef ONNX2HLS_CG_HOST_H
#define ONNX2HLS_CG_HOST_H

#include <stdbool.h>

#include "ir/ir.h"

typedef struct {
    const char *model_path;    /* recorded in model.json (absolute path preferred) */
    bool embed_weights;        /* weights.c instead of weights.bin */
    const char *runtime_dir;   /* runtime sources to copy; NULL: cg_host_runtime_dir() */
    bool heap_arena;           /* activation arena, weight pool and blob buffer allocated in
                                  model_init instead of static storage (--heap-arena) */
} CgHostOptions;

/* The most a generated program may hold in static storage: every static
 * array of an x86-64 (or aarch64) program built in the default small code
 * model must fit in 2 GiB with its code; half of that is left to ours. A
 * model needing more is refused at compile time, unless --heap-arena. */
#define CG_STATIC_MAX (1ull << 30)
/* The most a heap-allocated arena may ask for. */
#define CG_HEAP_MAX (1ull << 40)

typedef struct {
    int64_t arena_bytes;       /* activation arena (peak activation memory) */
    int64_t live_bytes;        /* lower bound: most bytes live at one step */
    int64_t weight_bytes;      /* blob payload */
    int64_t pool_bytes;        /* repacked weights + kernel scratch, as sized by this
                                  compiler's runtime build (see model.h) */
    int n_calls;               /* runtime calls emitted */
    int n_alias, n_inplace;    /* views turned into aliases, layers run in place */
} CgHostReport;

/* Write the host program of g into dir (created; must not hold another
 * program's files). rep may be NULL. 0 ok, -1 with errors on d. */
int cg_host_emit(IrGraph *g, const CgHostOptions *o, const char *dir, CgHostReport *rep, IrDiag *d);

/* Check that every layer of g can be emitted, reporting each one that
 * cannot on d. 0 if all can. */
int cg_host_check(IrGraph *g, IrDiag *d);

/* model.json read back (codegen/host_manifest.c), for verify: strict JSON,
 * dims whole and >= 0, rank <= 8, sizes overflow-checked within a cap. */
#define CG_MANIFEST_MAX_IO 32
#define CG_MANIFEST_MAX_RANK 8
#define CG_MANIFEST_MAX_BYTES (4096ull << 20)   /* one tensor: what verify holds in memory */

typedef struct {
    char *name;                /* any length */
    char dtype[16];            /* "float32", "int64", ... */
    int rank;
    int64_t dims[CG_MANIFEST_MAX_RANK];
    int64_t elems;             /* product of dims; elems * elem_size <= CG_MANIFEST_MAX_BYTES */
    size_t elem_size;
    char file[32];             /* "bound": its value beside model.json ("bound<i>.bin"); else "" */
} CgManifestTensor;

typedef struct {
    char *model;               /* source model path */
    bool embedded;             /* weights.c (no weights.bin) */
    CgManifestTensor in[CG_MANIFEST_MAX_IO], out[CG_MANIFEST_MAX_IO];
    int n_in, n_out;
    CgManifestTensor bound[CG_MANIFEST_MAX_IO];   /* inputs bound to values (--bind), optional */
    int n_bound;
} CgManifest;

/* Parse text (len bytes) / read path (bounded, ir/sidefile.h). 0 ok; -1
 * with errors on d naming path (m is then empty). */
int cg_manifest_parse(const char *text, size_t len, const char *path, CgManifest *m, IrDiag *d);
int cg_manifest_read(const char *path, CgManifest *m, IrDiag *d);
void cg_manifest_free(CgManifest *m);

/* Where the runtime sources are: $ONNX2HLS_RUNTIME_DIR, else
 * <exe>/../share/onnx2hls/runtime (an installed compiler), else the source
 * tree this compiler was built from. NULL if none holds o2h_rt.h. */
const char *cg_host_runtime_dir(void);

/* Same search for another shipped file (e.g. "tools/ort_run.js"):
 * $ONNX2HLS_DATA_DIR/REL, <exe>/../share/onnx2hls/REL, <source>/REL.
 * Returns a malloc'd path or NULL. */
char *cg_find_data_file(const char *rel);

#endif
