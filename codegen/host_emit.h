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

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "blob.h"
#include "host.h"
#include "mem_plan.h"
#include "runtime/o2h_rt.h"

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
    char *has_code;            /* per layer: model_run_layer has a case for it (phase 1) */
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

/* Emit layer l (both phases; host_layer.c). 0 ok, -1 after reporting on h->d. */
int cg_host_layer(CgHost *h, int l);

/* The emitter of each op family, codegen/host_<family>.c, as named by the
 * family column of ir/ops.def (host_layer.c expands the table from it).
 * Each is called for a float layer whose shapes are static and whose fused
 * epilogue is valid; 0 ok, -1 after cg_host_reject. */
#define OP(id, name, family, flags, unit) int cg_host_##family(CgHost *h, int l);
#include "ir/ops.def"
#undef OP
/* Quantized layers and Q/DQ boundaries of every family (host_quant.c). */
int cg_host_int_layer(CgHost *h, int l);

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
/* Model text (names, origins) for a C block comment: escaped by
 * ir/escape.h (ESC_C_COMMENT), on the graph arena. */
const char *cg_comment(CgHost *h, const char *s);
/* "{a, b, c}" for an int64 list. */
const char *cg_i64_list(CgHost *h, const int64_t *v, int n);
/* C type of an IR dtype ("float", "int64_t", ...), NULL when the host path
 * cannot hold it. */
const char *cg_ctype(IrDType dt);
/* An identifier-safe short name for dtype dt ("f32", "i64", ...). */
const char *cg_dtype_tag(IrDType dt);

/* ------------------------------------------ helpers of the emitters */

static inline const IrTensor *TT(CgHost *h, int t)
{
    return &h->g->tensors[t];
}

/* input i of L, -1 when absent */
static inline int in_at(const IrLayer *L, int i)
{
    return i < L->n_in ? L->in[i] : -1;
}

/* d[a] * ... * d[b-1] */
static inline int64_t prod(const int64_t *d, int a, int b)
{
    int64_t p = 1;
    for (int i = a; i < b; i++)
        p *= d[i];
    return p;
}

static inline int64_t numel(CgHost *h, int t)
{
    return ir_tensor_numel(TT(h, t));
}

static inline bool fits_int(int64_t v)
{
    return v >= INT_MIN && v <= INT_MAX;
}

static inline int norm_axis(int64_t axis, int rank)
{
    return (int)(axis < 0 ? axis + rank : axis);
}

/* the C name of layer l's descriptors */
static inline const char *layer_id(CgHost *h, int l)
{
    return ir_sprintf(h->g, "L%d", l);
}

/* Checks shared by the emitters (host_layer.c); each returns 0 or -1 after
 * rejecting layer l. */
bool cg_same_shape(CgHost *h, int a, int b);
/* t's data is a constant, also through views of a constant */
bool cg_is_const(CgHost *h, int t);
/* every listed tensor (-1 = absent, skipped) is float32 */
int cg_need_float(CgHost *h, int l, const int *ts, int n);
#define CG_NEED_FLOAT(h, l, ...) cg_need_float((h), (l), (const int[]){__VA_ARGS__}, \
                                               (int)(sizeof((const int[]){__VA_ARGS__}) / sizeof(int)))
/* outputs from..n_out-1 (training statistics, pool indices) are unused */
int cg_extra_outputs_unused(CgHost *h, int l, int from, const char *what);
/* a and y have the same dtype, one the host path can hold */
int cg_same_dtype(CgHost *h, int l, int a, int y);
/* Size queries for model_prepare and the packed weight of a conv2d/gemm
 * kernel in its pool slot; the C expression of the packed weight. */
const char *cg_kernel_weight(CgHost *h, const char *kind, const char *id, size_t packed, size_t scratch, int w);

/* Fused epilogues and broadcasting (host_epilogue.c). */
typedef struct {
    bool residual, act;  /* still to apply after the kernel */
} CgPost;
/* for calls before the last one of a layer: no epilogue yet */
#define CG_NO_POST (&(const CgPost){false, false})
/* k is an activation the runtime's O2hEpilogue knows */
bool cg_act_valid(IrActKind k);
/* The epilogue argument of a kernel that takes one; whatever the kernel
 * cannot do (a residual of another shape, PRelu) is left in *post. */
const char *cg_kernel_epilogue(CgHost *h, const IrLayer *L, int y, CgPost *post);
/* the fused residual and slope broadcast to y */
int cg_check_post_shapes(CgHost *h, int l, int y);
/* The first input and the output of a one-in one-out float layer, with the
 * shapes of its fused epilogue checked. */
int cg_float_io(CgHost *h, int l, int *x, int *y);
/* O2hBroadcast declaration NAME for a (op) b -> y; b may be -1 (Expand). */
void cg_emit_broadcast(CgHost *h, const char *name, int a, int b, int y);
int cg_check_broadcast(CgHost *h, int l, int a, int b, int y);
/* The tail of an emitted layer: print one runtime call (fmt) into
 * model_run, count it, then apply what is left of the layer's epilogue
 * (post; NULL: all of it, for kernels without one). Returns 0. */
int cg_host_call(CgHost *h, int l, const CgPost *post, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same tail after code that is not a runtime call (memcpy, casts). */
int cg_host_post(CgHost *h, int l, const CgPost *post);

/* Descriptors printed by both the float and the integer path. */
void cg_emit_conv_desc(CgHost *h, const char *name, const O2hConv2d *p);
void cg_emit_pool_desc(CgHost *h, const char *name, const O2hPool2d *p);

/* Writers of the other files (host_files.c). 0 ok, -1 errno. */
int cg_host_write_main(const CgHost *h, const char *dir);
int cg_host_write_build(const CgHost *h, const char *dir);
int cg_host_write_json(const CgHost *h, const char *dir);
int cg_host_copy_runtime(const char *from, const char *dir);
/* ISA=multi (host_isa.c): the Makefile's and CMakeLists.txt's parts, and
 * isa_dispatch.c, model.h's API choosing a level at run time */
void cg_host_isa_make(const CgHost *h, FILE *f);
void cg_host_isa_cmake(const CgHost *h, FILE *f);
int cg_host_write_isa(const CgHost *h, const char *dir);

#endif
