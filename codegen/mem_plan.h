/* mem_plan.h - the static memory plan of a generated host program.
 *
 * Why: generated code must not allocate during inference, and embedded
 * targets have little RAM. So every activation tensor gets a fixed byte
 * offset in one arena, chosen at compile time from the tensors' lifetimes
 * (first definition, last use in the layer order): buffers whose lifetimes
 * do not overlap share memory. Views (Reshape, Flatten, Squeeze, Unsqueeze,
 * Identity, Dropout) become aliases of their input, and element-wise layers
 * may write over an input that dies with them (in place). Kernel scratch is
 * one more buffer live only during its layer.
 *
 * The plan knows three storages: the arena, the caller's input arrays
 * (read-only) and the constant blob (read-only). A buffer in a read-only
 * storage is never written in place.
 */
#ifndef ONNX2HLS_CG_MEM_PLAN_H
#define ONNX2HLS_CG_MEM_PLAN_H

#include "ir/ir.h"

#define CG_MEM_ALIGN 64

typedef enum {
    CG_STORE_NONE = 0,   /* tensor not used by the program */
    CG_STORE_ARENA,      /* activation arena at CgBuffer.offset */
    CG_STORE_INPUT,      /* the caller's input array CgBuffer.ref (graph input index) */
    CG_STORE_CONST,      /* constant tensor CgBuffer.ref (tensor index), in the blob */
} CgStorage;

typedef struct {
    CgStorage store;
    int ref;             /* INPUT: graph input index; CONST: tensor index; else -1 */
    int64_t size;        /* bytes, rounded up to CG_MEM_ALIGN for the arena */
    int first, last;     /* lifetime in layer steps, inclusive; outputs live to n_layers */
    int64_t offset;      /* ARENA: byte offset; else 0 */
} CgBuffer;

/* What the emitter tells the planner about each layer. Both arrays are
 * indexed by layer and may be NULL. */
typedef struct {
    const int64_t *scratch_bytes;  /* scratch the layer's kernel needs */
    const int *inplace_input;      /* input slot whose buffer out[0] may reuse, -1 none */
} CgMemRequest;

typedef struct {
    int n_tensors, n_layers;
    int *tensor_buf;       /* tensor -> buffer index, -1 when unused */
    int *scratch_buf;      /* layer -> buffer index of its scratch, -1 none */
    CgBuffer *bufs;
    int n_bufs;
    int64_t arena_bytes;   /* size of the arena: max offset + size */
    int64_t live_bytes;    /* lower bound: max over steps of the bytes live at once */
    int n_alias;           /* tensors sharing a buffer with an earlier tensor (views) */
    int n_inplace;         /* layers writing over an input */
} CgMemPlan;

/* Plan g's memory. Tensors must have known shapes. Returns 0, or -1 with a
 * message on d (unknown shape). Free with cg_mem_plan_free. */
int cg_mem_plan(const IrGraph *g, const CgMemRequest *req, CgMemPlan *p, IrDiag *d);
void cg_mem_plan_free(CgMemPlan *p);

/* The buffer of tensor t, or NULL when t is unused. */
const CgBuffer *cg_mem_buffer(const CgMemPlan *p, int t);

/* Check the plan's invariant: no two arena buffers with overlapping
 * lifetimes overlap in memory, all inside arena_bytes. 0 if it holds. */
int cg_mem_plan_check(const CgMemPlan *p);

#endif
