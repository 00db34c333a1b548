/* pass_util.h - graph surgery helpers shared by the passes (pass_util.c).
 *
 * Why: every fusion is the same few moves - find the single consumer of a
 * tensor, let one layer take over another's output, retire a layer, make a
 * fresh constant - and doing them one way everywhere keeps the producer
 * links, the graph-output names and the origin lists right. Nothing here is
 * visible outside passes/.
 */
#ifndef ONNX2HLS_PASS_UTIL_H
#define ONNX2HLS_PASS_UTIL_H

#include <stdbool.h>

#include "ir/ir.h"

/* --------------------------------------------------------- queries */

/* t is a live tensor index (0 <= t < n_tensors). */
bool pass_tensor_ok(const IrGraph *g, int t);
bool pass_is_const(const IrGraph *g, int t);
bool pass_is_graph_output(const IrGraph *g, int t);
/* Float data of constant t (materialized), NULL when t is not a float constant
 * with a known shape. */
const float *pass_const_f32(IrGraph *g, int t);
/* 1 and *v when t is a float constant holding a single value. */
int pass_const_scalar(IrGraph *g, int t, float *v);
/* The live layer consuming t through in[], residual or act_slope, when it is
 * the only use of t and t is not a graph output; -1 otherwise. */
int pass_sole_consumer(const IrGraph *g, int t);
/* Live consumers of t (each layer once), up to max; returns the count
 * (which may exceed max). */
int pass_consumers(const IrGraph *g, int t, int *out, int max);
/* The layer producing activation t, -1 for inputs, constants and bad t. */
int pass_producer(const IrGraph *g, int t);
/* Layer l has no fused epilogue yet. */
bool pass_no_epilogue(const IrLayer *L);
/* Shapes of tensors a and b are known and equal. */
bool pass_same_shape(const IrGraph *g, int a, int b);
/* Number of live layers. */
int pass_live_layers(const IrGraph *g);

/* --------------------------------------------------------- rewrites */

/* A name not yet used by any tensor, made from base and suffix. */
const char *pass_unique_name(IrGraph *g, const char *base, const char *suffix);
/* A new float constant named after base+suffix; *data receives its buffer. */
int pass_new_const_f32(IrGraph *g, const char *base, const char *suffix, int rank, const int64_t *dims,
                       float **data);
/* Point every use of tensor from (in[], residual, act_slope of live layers)
 * at tensor to. */
void pass_replace_uses(IrGraph *g, int from, int to);
/* The same for the uses in layer l only. */
void pass_rewire(IrGraph *g, int l, int from, int to);
/* Layer l now writes tensor t as its output slot k. */
void pass_set_output(IrGraph *g, int l, int k, int t);
/* Mark l dead (its outputs lose their producer link only at compaction). */
void pass_kill(IrGraph *g, int l);
/* Append src's origin list to dst's. */
void pass_merge_origin(IrGraph *g, int dst, int src);
/* Layer l has output slot 0 only (other outputs absent or unused). */
bool pass_single_output(const IrGraph *g, int l);
/* Remove layer l whose out[0] is a copy of in[0] (same shape): consumers
 * read in[0] instead, or, when out[0] is a graph output, in[0]'s producer
 * writes out[0] directly so the output keeps its name. Returns 1 when done,
 * 0 when not possible (left untouched). */
int pass_bypass(IrGraph *g, int l);

/* ------------------------------------------------------ batch norm */

/* BatchNormalization layer B over C channels as y = s[c]*x + t[c]
 * (s = scale/sqrt(var+eps), t = bias - mean*s), in double. Returns 0, or -1
 * when B's parameters are not float constants of C elements each. */
int pass_bn_coeffs(IrGraph *g, const IrLayer *B, int64_t C, double *s, double *t);

#endif
