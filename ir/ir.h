/* ir.h - the layer IR every phase of onnx2hls reads and writes.
 *
 * Why this shape: the frontend turns the ONNX protobuf into this IR and frees
 * the protobuf; passes, the planner and every code generator only ever see
 * these structs. Tensors and layers live in growable arrays of the graph and
 * refer to each other by index (never by pointer), so passes can append,
 * kill and renumber freely and the IR prints and diffs as plain tables.
 *
 * Ownership: all strings, shapes, attribute arrays and constant data belong
 * to the graph's arena and die with ir_graph_free(). Constant tensors may be
 * backed lazily by the memory-mapped model file (see IrTensor.src); call
 * ir_tensor_data() to get an aligned, materialized copy.
 *
 * Errors: nothing here exits. Problems are collected on an IrDiag (ir/diag.h)
 * with the ONNX node name they concern, so one run reports all of them.
 */
#ifndef ONNX2HLS_IR_H
#define ONNX2HLS_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* ---------------------------------------------------------------- ops */

enum {
    IR_F_ELEMWISE = 1 << 0,
    IR_F_FOLD_ONLY = 1 << 1,
    IR_F_NO_DATA = 1 << 2,
};

/* The accelerator work an op is (ops.def's unit column). The planner makes
 * one kind of unit of each (plan/units.c) and the accelerator's engines
 * follow the plan; IR_U_NONE runs on the host CPU. */
typedef enum {
    IR_U_NONE = 0,
    IR_U_CONV,      /* convolution: standard, pointwise, depthwise, grouped */
    IR_U_FC,        /* matrix product with constant weights */
    IR_U_MAXPOOL,   /* windowed pools */
    IR_U_AVGPOOL,
    IR_U_GMAXPOOL,  /* pools over the whole map (ReduceMean over H, W too) */
    IR_U_GAVGPOOL,
    IR_U_ADD,       /* two maps or a map and a per-channel vector: Add, Sub */
    IR_U_MUL,
    IR_U_PRELU,     /* per-channel slope (float plans) */
    IR_U_BN,        /* per-channel affine (float plans); folds into a conv epilogue */
    IR_U_CONCAT,    /* along channels */
    IR_U_TABLE,     /* element-wise non-linear activation: an int8 table */
    IR_U_CLAMP,     /* Relu, Clip: the clamp of a requantization */
    IR_U_MOVE,      /* whole channels moved (Split, Slice, Gather of channels: ir_chan_move) */
    IR_U_COUNT
} IrUnit;

typedef enum {
#define OP(id, name, family, flags, unit) IR_OP_##id,
#include "ops.def"
#undef OP
    IR_OP_COUNT
} IrOp;

const char *ir_op_name(IrOp op);    /* ONNX op_type, e.g. "Conv" */
const char *ir_op_family(IrOp op);  /* file stem, e.g. "conv" */
unsigned ir_op_flags(IrOp op);
IrUnit ir_op_unit(IrOp op);         /* IR_U_NONE: a host layer */
const char *ir_unit_name(IrUnit u); /* "conv", "table", ... ("none") */
/* IR_OP_COUNT when op_type is not in ops.def */
IrOp ir_op_lookup(const char *onnx_op_type);

/* ---------------------------------------------------------- data types */

/* Numbering follows onnx.proto TensorProto.DataType so values pass through. */
typedef enum {
    IR_DT_UNDEF = 0,
    IR_DT_FLOAT = 1,
    IR_DT_UINT8 = 2,
    IR_DT_INT8 = 3,
    IR_DT_UINT16 = 4,
    IR_DT_INT16 = 5,
    IR_DT_INT32 = 6,
    IR_DT_INT64 = 7,
    IR_DT_STRING = 8,
    IR_DT_BOOL = 9,
    IR_DT_FLOAT16 = 10,
    IR_DT_DOUBLE = 11,
    IR_DT_UINT32 = 12,
    IR_DT_UINT64 = 13,
    IR_DT_BFLOAT16 = 16,
} IrDType;

/* bytes per element, 0 for UNDEF/STRING and unknown codes */
size_t ir_dtype_size(IrDType dt);
const char *ir_dtype_name(IrDType dt);

/* ------------------------------------------------------------- tensors */

#define IR_MAX_RANK 8

typedef enum {
    IR_T_ACT = 0,   /* produced by a layer at run time */
    IR_T_INPUT,     /* graph input fed by the user */
    IR_T_CONST,     /* initializer or folded constant: data known at compile time */
} IrTensorKind;

/* Quantization parameters of a tensor (int8/uint8/int16/dfxp).
 * Valid when IrTensor.quant != NULL. axis < 0: per tensor (n == 1);
 * otherwise per channel along axis with n entries. real = scale*(q - zero). */
typedef struct {
    int axis;
    int n;
    float *scale;
    int32_t *zero;
    int bits;       /* storage width: 8, 12, 14, 16 */
    int frac_bits;  /* dynamic fixed point: scale == 2^-frac_bits; else INT32_MIN */
} IrQuant;

typedef struct {
    const char *name;       /* ONNX value name (unique in the graph) */
    IrDType dtype;
    int rank;               /* -1 while unknown */
    int64_t dims[IR_MAX_RANK];
    IrTensorKind kind;
    bool is_output;         /* graph output */
    int producer;           /* layer index, -1 for inputs and constants */
    /* valid when kind == IR_T_CONST: */
    const uint8_t *src;     /* raw little-endian bytes, maybe unaligned (mapped file) */
    void *data;             /* aligned materialized copy, NULL until ir_tensor_data() */
    IrQuant *quant;         /* NULL: not quantized */
} IrTensor;

/* Number of elements; -1 when the rank or a dim is unknown; saturates at
 * INT64_MAX on overflow (callers reject such shapes). */
int64_t ir_tensor_numel(const IrTensor *t);
size_t ir_tensor_nbytes(const IrTensor *t);

/* -------------------------------------------------------------- layers */

/* Spatial ranks handled: 1..3. 2-D is the accelerator's case. */
#define IR_MAX_SPATIAL 3

typedef enum {
    IR_CONV_STANDARD = 0,  /* group == 1, kernel > 1x1 */
    IR_CONV_POINTWISE,     /* group == 1, 1x1 kernel */
    IR_CONV_DEPTHWISE,     /* group == C_in == C_out/multiplier */
    IR_CONV_GROUPED,       /* 1 < group < C_in */
} IrConvClass;

typedef struct {
    int nsp;                          /* spatial dims */
    int64_t kernel[IR_MAX_SPATIAL];
    int64_t stride[IR_MAX_SPATIAL];
    int64_t dilation[IR_MAX_SPATIAL];
    int64_t pad_begin[IR_MAX_SPATIAL];
    int64_t pad_end[IR_MAX_SPATIAL];
    int64_t out_pad[IR_MAX_SPATIAL]; /* ConvTranspose output_padding */
    int64_t group;
    IrConvClass cls;
} IrConvAttr;

typedef struct {
    int nsp;
    int64_t kernel[IR_MAX_SPATIAL];
    int64_t stride[IR_MAX_SPATIAL];
    int64_t dilation[IR_MAX_SPATIAL];
    int64_t pad_begin[IR_MAX_SPATIAL];
    int64_t pad_end[IR_MAX_SPATIAL];
    bool ceil_mode;
    bool count_include_pad;
} IrPoolAttr;

/* Activation, standalone (unary ops) or fused into a producer's epilogue,
 * one per line of ir/act.def. alpha/beta meaning: CLIP min/max; LEAKY_RELU,
 * ELU alpha; HARD_SIGMOID alpha*x+beta; others unused. */
typedef enum {
#define ACT(id, name, op) IR_ACT_##id,
#include "act.def"
#undef ACT
    IR_ACT_COUNT
} IrActKind;

typedef struct {
    IrActKind kind;
    float alpha, beta;
} IrAct;

/* The activation a unary op computes (the act column of ops.def: Relu,
 * Clip, LeakyRelu, Sigmoid, ...); IR_ACT_NONE for every other op, PRelu
 * included (it takes a slope tensor). */
IrActKind ir_op_act(IrOp op);
/* The op that computes activation k alone (act.def), e.g. IR_OP_SIGMOID. */
IrOp ir_act_op(IrActKind k);
/* "relu", "hard_swish", ... ("?" when out of range) */
const char *ir_act_name(IrActKind k);

typedef struct {
    bool trans_a, trans_b;
    float alpha, beta;
} IrGemmAttr;

typedef struct {
    int64_t axis;        /* Concat, Split, Softmax, Flatten, Gather, Q/DQ */
    int n_split;         /* Split: number of outputs with their sizes */
    int64_t *split;
} IrAxisAttr;

typedef struct {
    int n;               /* Transpose: rank; Squeeze/Unsqueeze/Reduce: count */
    int64_t perm[IR_MAX_RANK];  /* Transpose perm, or the axes list */
    bool keepdims;       /* Reduce* */
} IrAxesAttr;

typedef struct {         /* Slice, with constant starts/ends/axes/steps resolved */
    int n;
    int64_t axes[IR_MAX_RANK], starts[IR_MAX_RANK], ends[IR_MAX_RANK], steps[IR_MAX_RANK];
} IrSliceAttr;

typedef enum { IR_PAD_CONSTANT = 0, IR_PAD_REFLECT, IR_PAD_EDGE } IrPadMode;

typedef struct {
    IrPadMode mode;
    int64_t begin[IR_MAX_RANK], end[IR_MAX_RANK]; /* per axis of the input rank */
    float value;
} IrPadAttr;

typedef enum { IR_RESIZE_NEAREST = 0, IR_RESIZE_LINEAR, IR_RESIZE_CUBIC } IrResizeMode;
typedef enum {
    IR_CT_HALF_PIXEL = 0, IR_CT_ASYMMETRIC, IR_CT_ALIGN_CORNERS,
    IR_CT_PYTORCH_HALF_PIXEL, IR_CT_TF_CROP_AND_RESIZE, IR_CT_HALF_PIXEL_SYMMETRIC,
} IrCoordMode;
typedef enum {
    IR_NEAREST_ROUND_PREFER_FLOOR = 0, IR_NEAREST_ROUND_PREFER_CEIL,
    IR_NEAREST_FLOOR, IR_NEAREST_CEIL,
} IrNearestMode;

typedef struct {
    IrResizeMode mode;
    IrCoordMode coord;
    IrNearestMode nearest;
    float cubic_a;
    float scale[IR_MAX_RANK]; /* per axis, output/input, as used for coordinates */
} IrResizeAttr;

typedef struct {
    float epsilon;       /* BatchNormalization */
} IrNormAttr;

typedef struct {
    IrDType to;          /* Cast target */
} IrCastAttr;

/* Which attr member is valid, by op:
 *   conv:    CONV, CONV_TRANSPOSE
 *   pool:    MAXPOOL, AVGPOOL (GLOBAL_* leave it zeroed)
 *   act:     the unary activations (also LayerAct for fused epilogues below)
 *   gemm:    GEMM (MATMUL: trans false, alpha = beta = 1)
 *   axis:    CONCAT, SPLIT, SOFTMAX, LOG_SOFTMAX, FLATTEN, GATHER,
 *            QUANTIZE_LINEAR, DEQUANTIZE_LINEAR
 *   axes:    TRANSPOSE, SQUEEZE, UNSQUEEZE, REDUCE_*
 *   slice:   SLICE
 *   pad:     PAD
 *   resize:  RESIZE, UPSAMPLE
 *   norm:    BATCHNORM
 *   cast:    CAST
 *   none:    everything else */
typedef union {
    IrConvAttr conv;
    IrPoolAttr pool;
    IrAct act;
    IrGemmAttr gemm;
    IrAxisAttr axis;
    IrAxesAttr axes;
    IrSliceAttr slice;
    IrPadAttr pad;
    IrResizeAttr resize;
    IrNormAttr norm;
    IrCastAttr cast;
} IrAttr;

/* Precision a layer computes in (set by the quantize pass). */
typedef enum {
    IR_PREC_FLOAT = 0,
    IR_PREC_INT8,
    IR_PREC_INT16,
    IR_PREC_DFXP,        /* dynamic fixed point, width in IrLayer.bits */
} IrPrecision;

#define IR_MAX_IO 32

typedef struct {
    IrOp op;
    const char *name;        /* ONNX node name (generated "<op>_<n>" if empty) */
    const char *origin;      /* all ONNX node names folded into this layer, comma separated */
    int n_in, n_out;
    int in[IR_MAX_IO];       /* tensor indices; -1 for an omitted optional input */
    int out[IR_MAX_IO];
    IrAttr attr;
    /* fused epilogue (passes/fuse_*.c): applied to the op's result in order
     * residual add, then activation. -1 / IR_ACT_NONE when absent. */
    int residual;            /* tensor added before the activation */
    IrAct act;
    int act_slope;           /* PRelu slope tensor when act.kind == IR_ACT_PRELU */
    IrPrecision prec;
    int bits;
    /* MUL only (passes/mark_se.c): squeeze-excite channel scale; in[0] is the
     * feature map [N,C,H,W], in[1] its per-channel scale [N,C,1,1] computed
     * from in[0] (global pool, 1x1 convs, sigmoid-like act). */
    bool se;
    bool dead;               /* removed by a pass; compacted by ir_graph_compact() */
} IrLayer;

/* -------------------------------------------------------------- graph */

typedef struct IrArena IrArena;
typedef struct IrNameIndex IrNameIndex;
typedef struct IrUseIndex IrUseIndex;

/* A graph input given a value (--bind, frontend/fe_bind.c): a constant in
 * the graph, recorded so that a reference run of the original model (verify
 * through ONNX Runtime) can be fed the same value. */
typedef struct {
    const char *name;
    IrDType dtype;
    int rank;
    int64_t dims[IR_MAX_RANK];
    const void *data;        /* numel * dtype size bytes, in the graph's arena */
} IrBound;

typedef struct {
    const char *path;        /* model file, for messages */
    int64_t ir_version;
    int64_t opset;           /* default-domain opset */
    const char *producer;
    IrArena *arena;
    IrTensor *tensors;
    int n_tensors, cap_tensors;
    IrLayer *layers;         /* in topological order */
    int n_layers, cap_layers;
    int inputs[IR_MAX_IO];   /* graph inputs (non-constant), tensor indices */
    int n_inputs;
    int outputs[IR_MAX_IO];
    int n_outputs;
    void *mapping;           /* the mapped model file backing IrTensor.src, or NULL */
    size_t mapping_len;
    IrNameIndex *names;      /* ir_tensor_find's hash of tensor names (a cache) */
    IrUseIndex *uses;        /* consumers per tensor (ir/uses.c, a cache) */
    IrBound bound[IR_MAX_IO];   /* inputs bound to values, in graph input order */
    int n_bound;
} IrGraph;

IrGraph *ir_graph_new(const char *path);
void ir_graph_free(IrGraph *g);

void *ir_alloc(IrGraph *g, size_t n);           /* zeroed, 64-byte aligned, never NULL (aborts only on OOM) */
char *ir_strdup(IrGraph *g, const char *s);
char *ir_sprintf(IrGraph *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Add a tensor; returns its index. name must be unique (caller checks with
 * ir_tensor_find). */
int ir_tensor_add(IrGraph *g, const char *name, IrDType dt, int rank, const int64_t *dims);
int ir_tensor_find(const IrGraph *g, const char *name);  /* -1 if absent; hashed */
/* Forget the last tensor added (a scratch tensor nothing refers to yet). */
void ir_tensor_drop_last(IrGraph *g);
/* A new constant owning a zeroed aligned buffer of numel*size bytes. */
int ir_const_add(IrGraph *g, const char *name, IrDType dt, int rank, const int64_t *dims, void **data_out);
/* Aligned data of a constant (materialized from src on first use), NULL for non-constants. */
void *ir_tensor_data(IrGraph *g, int t);

/* Add a layer at the end; returns its index. */
int ir_layer_add(IrGraph *g, IrOp op, const char *name);
/* Readers of tensors (ir/uses.c), answered from an index kept on the graph:
 * linear in the graph over a whole pass, however many questions it asks.
 * Number of uses of tensor t by live layers (in[], residual, act_slope;
 * +1 if a graph output). */
int ir_tensor_uses(const IrGraph *g, int t);
/* The live layers reading t, ascending, up to max into out; returns their
 * count (may exceed max); *uses (may be NULL) the reads, as above without
 * the graph output. */
int ir_tensor_consumers(const IrGraph *g, int t, int *out, int max, int *uses);
/* *slot (a use slot of layer l: in[i], residual or act_slope) = t. Passes
 * that point an existing layer at an existing tensor must go through here
 * so the index sees the new reader; new layers and tensors need not. */
void ir_set_use(IrGraph *g, int l, int *slot, int t);
/* Forget the index (after reordering layers; compaction does it). */
void ir_uses_drop(IrGraph *g);
/* ir_tensor_uses of every tensor at once, in one sweep (O(layers)): a
 * malloc'd array of n_tensors counts the caller frees. A pass that kills
 * layer l while it walks keeps the counts true with ir_use_counts_drop. */
int *ir_use_counts(const IrGraph *g);
void ir_use_counts_drop(const IrGraph *g, int l, int *uses);
/* Remove dead layers and unreferenced tensors, renumbering indices. */
void ir_graph_compact(IrGraph *g);

/* ----------------------------------------------------- layer analysis */

/* Per-layer figures for inspect and the planner (ir/analyze.c). */
typedef struct {
    int64_t macs;            /* multiply-accumulates per inference */
    int64_t params;          /* weight + bias elements */
    int64_t weight_reuse;    /* times each weight is used per inference (Ho*Wo for conv) */
    int64_t input_reuse;     /* times each input element is read (F*K*K/stride^2 for conv) */
    int64_t ifm_elems, ofm_elems, weight_elems;
} IrLayerStats;

void ir_layer_stats(const IrGraph *g, int layer, IrLayerStats *st);
/* A ReduceMean over every axis after the channel axis: a global average
 * pool (what the quantize pass and the planner run as one). */
bool ir_reduce_is_spatial_mean(const IrGraph *g, const IrLayer *L);
/* Slice: start (clamped as ONNX clamps it) and step of every input axis;
 * -1 when an axis is out of range or the output shape does not fit. */
int ir_slice_bounds(const IrGraph *g, const IrLayer *L, int64_t *starts, int64_t *steps);
/* Transpose: the permutation (no perm attribute: the axes reversed); -1
 * when the attribute is not a permutation of the input's axes. */
int ir_transpose_perm(const IrGraph *g, const IrLayer *L, int *perm);
/* Resize / Upsample: the output-to-input scale of axis i (the recorded
 * one, else output size / input size). */
float ir_resize_scale(const IrGraph *g, const IrLayer *L, int i);
/* A layer that only moves whole channels of its input (one image's pixels
 * keep their place): output channel o of the described output reads input
 * channel
 *     coff + ((o % groups) * (count / groups) + o / groups) * step
 * With groups == 1 that is a channel slice (a Split part, a Slice along
 * channels, a Gather of evenly spaced channels); with groups > 1 (coff 0,
 * step 1) the channel shuffle of ShuffleNet (channels seen as a groups x
 * count/groups matrix, transposed). */
typedef struct {
    int64_t c_in;            /* channels of the input */
    int64_t count;           /* channels of the output */
    int64_t coff;            /* first input channel read */
    int64_t step;            /* between input channels read, >= 1 */
    int64_t groups;          /* >= 1, divides count */
} IrChanMove;
/* True when output k of L (Split, Slice, Gather with constant indices) is
 * such a channel move of its input (axis 1 of a rank >= 2 tensor, every
 * other axis whole), described in *m. */
bool ir_chan_move(const IrGraph *g, const IrLayer *L, int k, IrChanMove *m);
/* "conv", "dwconv", "pwconv", "gconv", "fc", "pool", "eltwise", ... for tables */
const char *ir_layer_kind_name(const IrGraph *g, int layer);

/* ------------------------------------------------- printing, checking */

#include <stdio.h>
void ir_print_text(const IrGraph *g, FILE *f);
void ir_print_json(const IrGraph *g, FILE *f);
/* Structural checks (indices in range, producers, topological order,
 * shapes known for live tensors, attr sanity). Reports on d; returns 0 if ok. */
int ir_verify(const IrGraph *g, IrDiag *d);

#endif
