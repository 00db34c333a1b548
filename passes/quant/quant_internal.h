/* quant_internal.h - what the quantization files of passes/ share and
 * nobody else needs: descriptor builders from IR layers (used by the
 * lowering and by the float evaluator alike, so both read a layer the same
 * way) and small graph-surgery helpers (quant_graph.c). */
#ifndef ONNX2HLS_PASS_QUANT_INTERNAL_H
#define ONNX2HLS_PASS_QUANT_INTERNAL_H

#include "quant.h"

/* quant_graph.c */
bool quant_same_params(const IrQuant *a, const IrQuant *b);
/* a new tensor with like's shape, named like's name + suffix (made unique) */
int quant_new_tensor_like(IrGraph *g, int like, const char *suffix, IrDType dt);
/* a new one-input one-output layer x -> y (appended; call pass_quant_toposort) */
int quant_new_layer(IrGraph *g, IrOp op, const char *name, int x, int y);
void quant_replace_input(IrGraph *g, int l, int from, int to);
bool quant_layer_reads(const IrLayer *L, int t);
int quant_graph_output_index(const IrGraph *g, int t);
/* float constant with the dequantized values of quantized constant t */
int quant_dequantized_const(IrGraph *g, int t);

/* quant_lower.c: descriptors; 0 ok, -1 with an error on d naming the node */
int quant_conv_desc(const IrGraph *g, int l, O2hConv2d *p, IrDiag *d);
int quant_pool_desc(const IrGraph *g, int l, O2hPool2d *p, IrDiag *d);
void quant_broadcast(const IrGraph *g, int a, int b, int y, O2hBroadcast *bc);
/* [outer][axis][inner] split of tensor t at axis */
void quant_axis_split(const IrTensor *T, int axis, int64_t *outer, int64_t *inner);
int quant_error(IrDiag *d, const IrGraph *g, int l, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* quant_run.c: pass_quant_eval with force_float (every layer on the float
 * kernels: calibration before the graph is converted) and the codes of
 * tensor want copied to codes. */
int quant_eval(IrGraph *g, const float *const *inputs, float *const *outputs, QuantObserve obs, void *ctx,
               bool force_float, int want, void *codes, IrDiag *d);

/* quant_batch.c: a graph prepared for many runs - every integer layer
 * lowered once, every int8 conv's weights packed once (read-only while
 * workers run it) */
typedef struct {
    IrGraph *g;
    QuantLayer *low;         /* per layer; valid for integer layers */
    void **packed;           /* per layer: packed int8 conv weights, NULL */
    size_t scratch;          /* bytes of scratch one run needs */
} QuantProgram;

/* quant_run.c: one run of a program on one input with a worker's own
 * buffers, kept from run to run (zeroed before the first; n tensors, the
 * graph's count at the first run: constants added later need no buffer) */
typedef struct {
    void **val;
    char *own;
    void *scratch;
    int n;
} QuantRunBufs;
int quant_run_program(const QuantProgram *p, QuantRunBufs *b, const float *in, float *out, IrDiag *d);
void quant_run_bufs_free(QuantRunBufs *b);
/* A run resumed where the graph changed: layers first..last of g on the
 * float kernels (one input, in), reading what an earlier span on the same
 * input left in b; obs sees the tensors b holds, then those computed. */
int quant_eval_span(IrGraph *g, QuantRunBufs *b, const float *in, int first, int last, QuantObserve obs, void *ctx,
                    IrDiag *d);
/* keep[t] (n_tensors entries) = 1 for every tensor the layers from `first`
 * on read but do not compute */
void quant_live_in(const IrGraph *g, int first, char *keep);
/* free from b every tensor but those (what a span from `first` needs) */
void quant_bufs_keep_live(const IrGraph *g, QuantRunBufs *b, int first);

/* quant_spec.c: every live layer's prec/bits from --precision and
 * --precision-spec (before capability checks); 0 ok, -1 on a bad spec */
int quant_apply_spec(IrGraph *g, const QuantOptions *o, IrDiag *d);

/* quant_weights.c: integer weights and bias of conv / Gemm layer l from its
 * input's quantization; 0 ok, -1 with an error on d */
int quant_convert_weights(IrGraph *g, int l, IrDiag *d);

/* The function a table activation layer computes (op + fused act). */
QuantFn quant_layer_fn(const IrLayer *L);
/* Relu / Clip (as op or fused act) that fold into clamp bounds */
bool quant_act_foldable(IrActKind k);
/* ops whose element-wise function can become a table */
bool quant_is_table_op(const IrLayer *L);

#endif
