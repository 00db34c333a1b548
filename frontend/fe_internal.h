/* fe_internal.h - what the frontend's files share and nothing else sees.
 *
 * Why: the loader (fe_load.c), the graph walker (fe_graph.c), the constant
 * folder (fe_fold.c) and the per-family importers (import_<family>.c) all work
 * on one import context and one view of the node being imported. Keeping the
 * protobuf types inside this header means no other module ever includes the
 * generated onnx.pb-c.h: the protobuf message dies inside fe_load_onnx().
 *
 * How an ONNX node becomes IR (fe_graph.c):
 *   1. its input names are resolved to tensor indices (FeNode.in),
 *   2. the importer of its op validates attributes and inputs, fills
 *      FeNode.attr and the output shapes/dtypes (FeNode.out), and says how many
 *      leading inputs the layer keeps (FeNode.n_keep): inputs that only carry
 *      parameters (shapes, axes, pads, scales, clip bounds...) are resolved
 *      into the attribute and dropped, so a layer looks the same whatever
 *      opset it came from,
 *   3. when every input is a constant the folder evaluates the node and the
 *      outputs become constant tensors; otherwise a layer is added.
 * Importers of ops that are only ever compile-time (Shape, Constant, ...)
 * create their constant outputs themselves (FeNode.out_t).
 */
#ifndef ONNX2HLS_FE_INTERNAL_H
#define ONNX2HLS_FE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frontend.h"
#include "onnx.pb-c.h"

/* Largest tensor the frontend accepts (bytes); anything bigger is a corrupt
 * or absurd model rather than a CNN for an FPGA. */
#define FE_MAX_TENSOR_BYTES ((int64_t)1 << 34)
/* Largest constant the import-time ops (ConstantOfShape, Range, Dropout
 * masks) create. */
#define FE_CONST_MAX_BYTES ((int64_t)256 << 20)
/* Bound on kernel sizes, strides, dilations and pads: far beyond any real
 * model, small enough that shape arithmetic cannot overflow. */
#define FE_MAX_WINDOW ((int64_t)1 << 24)
/* Largest output the folder evaluates for ops that may also run as layers. */
#define FE_FOLD_MAX_BYTES ((int64_t)64 << 20)

/* ------------------------------------------------------- name -> index */

typedef struct {
    IrGraph *g;                  /* arena the arrays live in */
    const char **keys;
    int *vals;
    size_t cap, n;
} FeMap;

void fe_map_init(FeMap *m, IrGraph *g, size_t expected);
void fe_map_free(FeMap *m);
/* key must outlive the map (arena or protobuf strings). Replaces. */
void fe_map_put(FeMap *m, const char *key, int val);
int fe_map_get(const FeMap *m, const char *key); /* -1 if absent */

/* --------------------------------------------------- wire-level compaction */

/* A TensorProto.raw_data payload left in the mapped file. init >= 0: the
 * graph initializer with that index; else the tensor attribute `attr` of
 * graph node `node` (Constant nodes). */
typedef struct {
    int init, node, attr;
    size_t off, len;
} FeRawRef;

typedef struct {
    IrGraph *g;                  /* arena the array lives in */
    FeRawRef *v;
    int n, cap;
} FeRawRefs;

/* Copy the ModelProto in buf without the raw_data payloads of at least
 * min_raw bytes found under graph.initializer and graph.node.attribute.t,
 * recording their offsets in refs. Returns a malloc'd buffer (length in
 * *out_len), or NULL when the bytes do not walk as protobuf (the caller then
 * lets protobuf-c decode the original and report). */
uint8_t *fe_wire_compact(const uint8_t *buf, size_t len, size_t min_raw, FeRawRefs *refs,
                         size_t *out_len);

/* ------------------------------------------------------------- context */

typedef struct FeCtx {
    IrGraph *g;
    IrDiag *d;
    const char *path;
    const char *dir;             /* directory of the model, for external data */
    const FeOptions *opt;
    int64_t opset;
    const FeRawRefs *raw;
    int *node_raw;               /* per graph node: its first entry in raw, or -1 */
    const uint8_t *map;          /* the mapped file */
    FeMap names;                 /* tensor name -> tensor index */
    int n_unsupported;
    int gen_id;                  /* counter for generated tensor names */
    bool bind_used[IR_MAX_IO];   /* per FeOptions.binds: matched a graph input */
} FeCtx;

/* The node being imported. */
typedef struct {
    const Onnx__NodeProto *pb;
    int idx;                     /* index of the node in the GraphProto */
    const char *name;            /* node name, generated when empty */
    const char *op_type;
    IrOp op;
    int64_t opset;
    int n_in, n_out;
    int in[IR_MAX_IO];           /* tensor indices, -1 for omitted optional inputs */
    /* filled by the importer: */
    IrTensor out[IR_MAX_IO];     /* dtype, rank, dims of each output (quant optional) */
    int out_t[IR_MAX_IO];        /* >= 0: output already bound to this tensor */
    IrAttr attr;
    int n_keep;                  /* inputs kept on the layer (default n_in) */
    bool no_fold;                /* never evaluate at import time */
    bool done;                   /* importer emitted everything itself */
} FeNode;

typedef int (*FeImportFn)(FeCtx *c, FeNode *n);

/* ------------------------------------------------ messages (fe_node.c) */

/* Report an error on node n; always returns -1. */
int fe_err(FeCtx *c, const FeNode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void fe_warn(FeCtx *c, const FeNode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---------------------------------------------- attributes (fe_node.c) */

const Onnx__AttributeProto *fe_attr(const FeNode *n, const char *name);
/* Each getter returns the default when absent and reports a type mismatch. */
int64_t fe_attr_int(FeCtx *c, const FeNode *n, const char *name, int64_t def);
float fe_attr_float(FeCtx *c, const FeNode *n, const char *name, float def);
/* NUL-terminated copy in the arena, or def when absent */
const char *fe_attr_str(FeCtx *c, const FeNode *n, const char *name, const char *def);
/* Fill out[0..max) and *count. Returns 1 present, 0 absent, -1 error
 * (wrong type or more than max values; reported). */
int fe_attr_ints(FeCtx *c, const FeNode *n, const char *name, int64_t *out, int max, int *count);
int fe_attr_floats(FeCtx *c, const FeNode *n, const char *name, float *out, int max, int *count);

/* -------------------------------------------------- inputs (fe_node.c) */

static inline bool fe_has_in(const FeNode *n, int i)
{
    return i < n->n_in && n->in[i] >= 0;
}
IrTensor *fe_in(FeCtx *c, const FeNode *n, int i); /* NULL when omitted */
bool fe_is_const(FeCtx *c, int t);
/* Read constant integer input i (int32/int64/uint8...) into out. Returns
 * the element count, or -1 (reported) when not constant, not integer or
 * longer than max. */
int fe_const_ints(FeCtx *c, const FeNode *n, int i, const char *what, int64_t *out, int max);
/* Same for floating inputs (float/double/float16/ints), as doubles. */
int fe_const_floats(FeCtx *c, const FeNode *n, int i, const char *what, double *out, int max);
/* Require input i to be present: reports and returns NULL otherwise. */
IrTensor *fe_need_in(FeCtx *c, const FeNode *n, int i, const char *what);
/* Require at least lo and at most hi inputs; -1 reported otherwise. */
int fe_check_arity(FeCtx *c, const FeNode *n, int lo, int hi, int out_lo, int out_hi);

/* ------------------------------------------------- shapes (fe_node.c) */

typedef enum { FE_AP_NOTSET, FE_AP_SAME_UPPER, FE_AP_SAME_LOWER, FE_AP_VALID } FeAutoPad;
/* The auto_pad attribute of conv and pool nodes; -1 reported if unknown. */
int fe_auto_pad(FeCtx *c, const FeNode *n, FeAutoPad *ap);
/* The strides, dilations and pads of a conv or pool node over sp spatial
 * dims: defaults 1/1/0, counts checked, positive strides and dilations,
 * non-negative pads, nothing absurdly large; -1 reported otherwise. */
int fe_window_attrs(FeCtx *c, const FeNode *n, int sp, int64_t *stride, int64_t *dilation,
                    int64_t *pad_begin, int64_t *pad_end);

/* Output i takes dtype and shape. */
void fe_set_out(FeNode *n, int i, IrDType dt, int rank, const int64_t *dims);
/* Output i copies input tensor t's dtype and shape. */
void fe_out_like(FeNode *n, int i, const IrTensor *t);
/* Normalize an axis against rank (negative counts from the end). -1 and
 * reported when out of [-rank, rank). */
int fe_axis(FeCtx *c, const FeNode *n, int64_t axis, int rank, int64_t *out);
/* numpy broadcast of a and b into out; -1 reported if incompatible. */
int fe_broadcast(FeCtx *c, const FeNode *n, const IrTensor *a, const IrTensor *b, IrTensor *out);
/* Read a 16/32/64-bit element of a constant as double / int64. */
double fe_elem_f(IrDType dt, const void *p, int64_t i);
int64_t fe_elem_i(IrDType dt, const void *p, int64_t i);
void fe_store_f(IrDType dt, void *p, int64_t i, double v);
void fe_store_i(IrDType dt, void *p, int64_t i, int64_t v);
bool fe_dtype_is_float(IrDType dt);
bool fe_dtype_is_int(IrDType dt);
float fe_half_to_float(uint16_t h);
float fe_bf16_to_float(uint16_t h);
uint16_t fe_float_to_half(float f);

/* ------------------------------------------- tensors (fe_tensor.c) */

/* Check a shape against the size limits; -1 reported otherwise. */
int fe_check_shape(FeCtx *c, const FeNode *n, const char *tname, IrDType dt, int rank,
                   const int64_t *dims);
/* Convert a TensorProto to a constant tensor named name. raw/raw_len: the
 * payload left in the mapped file, or NULL. Returns the tensor index, -1
 * reported. n may be NULL (initializers). */
int fe_tensor_from_proto(FeCtx *c, const FeNode *n, const Onnx__TensorProto *tp, const char *name,
                         const uint8_t *raw, size_t raw_len);
/* Add a new constant with a fresh arena buffer, bound to name in the map. */
int fe_const_new(FeCtx *c, const char *name, IrDType dt, int rank, const int64_t *dims, void **data);
/* Bind name to a tensor of unknown shape: consumers of a value whose
 * producer failed are skipped instead of piling up follow-on errors. */
int fe_poison(FeCtx *c, const char *name);
/* A unique internal tensor name derived from base. */
const char *fe_gen_name(FeCtx *c, const char *base, const char *suffix);

/* --------------------------------------------------- folding (fe_fold.c) */

/* Evaluate n when all inputs are constant. 1 folded (outputs bound),
 * 0 not foldable (make a layer), -1 error (reported). */
int fe_fold(FeCtx *c, FeNode *n);

/* ----------------------------------------------- boundary (fe_io.c) */

void fe_import_initializers(FeCtx *c, const Onnx__GraphProto *gp);
void fe_index_node_raw(FeCtx *c, size_t n_node);
/* The raw_data payload left in the file for attribute `attr` of graph node
 * `node`, or NULL. */
const FeRawRef *fe_node_raw(const FeCtx *c, int node, int attr);
void fe_import_inputs(FeCtx *c, const Onnx__GraphProto *gp);
/* Dims of tensor input vi from its declaration and --input-shape (first:
 * it is the first graph input, which an unnamed --input-shape binds); -1
 * reported. */
int fe_input_dims(FeCtx *c, const Onnx__ValueInfoProto *vi, bool first, int *rank, int64_t *dims);

/* ----------------------------------------------- --bind (fe_bind.c) */

/* The --bind for graph input name (its index in *index), or NULL. */
const FeBind *fe_bind_for(const FeCtx *c, const char *name, int *index);
/* Input vi as a constant from b's file; on failure reported and poisoned. */
void fe_bind_input(FeCtx *c, const Onnx__ValueInfoProto *vi, const FeBind *b, bool first);
void fe_import_outputs(FeCtx *c, const Onnx__GraphProto *gp);

/* ----------------------------------------------- graph (fe_graph.c) */

int fe_import_graph(FeCtx *c, const Onnx__GraphProto *gp);
/* Add a layer for n with its kept inputs and its outputs; used by importers
 * that expand into several layers too. Returns the layer index. */
int fe_emit_layer(FeCtx *c, IrOp op, const char *name, const int *in, int n_in, const int *out,
                  int n_out, const IrAttr *attr);
/* Add an activation tensor and bind name to it; returns its index. */
int fe_act_tensor(FeCtx *c, const char *name, IrDType dt, int rank, const int64_t *dims);

/* ------------------------------------------- importers (import_*.c) */

#define FE_IMPORTER(fn) int fn(FeCtx *c, FeNode *n)
FE_IMPORTER(fe_import_conv);
FE_IMPORTER(fe_import_norm);
FE_IMPORTER(fe_import_unary);
FE_IMPORTER(fe_import_binary);
FE_IMPORTER(fe_import_pool);
FE_IMPORTER(fe_import_reduce);
FE_IMPORTER(fe_import_gemm);
FE_IMPORTER(fe_import_shape);
FE_IMPORTER(fe_import_resize);
FE_IMPORTER(fe_import_softmax);
FE_IMPORTER(fe_import_quant);
/* the compile-time-only members of the shape family (import_shape_const.c) */
FE_IMPORTER(fe_import_constant);
FE_IMPORTER(fe_import_shape_of);
FE_IMPORTER(fe_import_constant_of_shape);
FE_IMPORTER(fe_import_range);

#endif
