/* qdq_export.c - write the quantized IR as an ONNX QDQ model (opset 13)
 * with protobuf-c.
 *
 * Shape of the output, per integer layer L writing integer tensor y:
 *     t__dq = DequantizeLinear(t, t__s, t__z)        once per integer tensor t read
 *     w__dq = DequantizeLinear(w, w__s, w__z, axis 0) int8 weights, per-channel scales
 *     b__dq = DequantizeLinear(b, b__s, b__z, axis 0) int32 bias at s_x * s_w[c]
 *     y__f  = <the float op>(t__dq, w__dq, b__dq) [-> Relu / Clip]
 *     y     = QuantizeLinear(y__f, y__s, y__z)
 * Boundary layers become a lone QuantizeLinear / DequantizeLinear; float
 * layers are written as float ops. Table activations are written as the
 * float function (HardSwish, absent from opset 13, as x * HardSigmoid(x);
 * SiLU as x * Sigmoid(x)), views as Reshape to the output shape. ONNX
 * Runtime's QDQ fusions then run integer kernels with these scales; its
 * float requantization can differ from ours by one unit at rounding ties.
 *
 * Everything is allocated on the graph's arena: the message tree needs no
 * freeing and dies with the graph. */
#include "qdq_export.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "quant.h"

typedef struct {
    IrGraph *g;
    IrDiag *d;
    Onnx__NodeProto **nodes;
    size_t n_nodes, cap_nodes;
    Onnx__TensorProto **inits;
    size_t n_inits, cap_inits;
    char *dq_done;           /* [tensor] t__dq written */
    char *qp_done;           /* [tensor] t__s / t__z written */
    char *init_done;         /* [tensor] constant written */
    int n_tmp;
    int errors;
    const char *next_name;   /* name of the next node (a layer's own op), else Op_N */
} Qx;

/* ------------------------------------------------------- messages */

static void *grow(Qx *x, void *v, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return v;
    size_t c = *cap ? 2 * *cap : 256;
    void *nv = ir_alloc(x->g, c * elem);
    if (v)
        memcpy(nv, v, *cap * elem);
    *cap = c;
    return nv;
}

static char *str(Qx *x, const char *s)
{
    return ir_strdup(x->g, s);
}

static Onnx__NodeProto *node(Qx *x, const char *op, int n_in, const char *const *ins, const char *out)
{
    Onnx__NodeProto *n = ir_alloc(x->g, sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = str(x, op);
    n->name = x->next_name ? str(x, x->next_name) : ir_sprintf(x->g, "%s_%zu", op, x->n_nodes);
    x->next_name = NULL;
    n->domain = str(x, "");
    n->n_input = (size_t)n_in;
    n->input = ir_alloc(x->g, sizeof(char *) * (size_t)(n_in > 0 ? n_in : 1));
    for (int i = 0; i < n_in; i++)
        n->input[i] = str(x, ins[i] ? ins[i] : "");
    n->n_output = 1;
    n->output = ir_alloc(x->g, sizeof(char *));
    n->output[0] = str(x, out);
    x->nodes = grow(x, x->nodes, &x->cap_nodes, x->n_nodes, sizeof *x->nodes);
    x->nodes[x->n_nodes++] = n;
    return n;
}

static Onnx__AttributeProto *attr(Qx *x, Onnx__NodeProto *n, const char *name,
                                  Onnx__AttributeProto__AttributeType type)
{
    Onnx__AttributeProto *a = ir_alloc(x->g, sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = str(x, name);
    a->has_type = 1;
    a->type = type;
    Onnx__AttributeProto **v = ir_alloc(x->g, sizeof *v * (n->n_attribute + 1));
    if (n->n_attribute)
        memcpy(v, n->attribute, sizeof *v * n->n_attribute);
    v[n->n_attribute++] = a;
    n->attribute = v;
    return a;
}

static void attr_int(Qx *x, Onnx__NodeProto *n, const char *name, int64_t v)
{
    Onnx__AttributeProto *a = attr(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
}

static void attr_float(Qx *x, Onnx__NodeProto *n, const char *name, float v)
{
    Onnx__AttributeProto *a = attr(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1;
    a->f = v;
}

static void attr_ints(Qx *x, Onnx__NodeProto *n, const char *name, const int64_t *v, int count)
{
    Onnx__AttributeProto *a = attr(x, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a->n_ints = (size_t)count;
    a->ints = ir_alloc(x->g, sizeof(int64_t) * (size_t)(count > 0 ? count : 1));
    if (count > 0)
        memcpy(a->ints, v, sizeof(int64_t) * (size_t)count);
}

static const char *init_raw(Qx *x, const char *name, IrDType dt, int rank, const int64_t *dims, const void *data,
                            size_t bytes)
{
    Onnx__TensorProto *t = ir_alloc(x->g, sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = str(x, name);
    t->has_data_type = 1;
    t->data_type = (int32_t)dt;
    t->n_dims = (size_t)rank;
    t->dims = ir_alloc(x->g, sizeof(int64_t) * (size_t)(rank > 0 ? rank : 1));
    if (rank > 0)
        memcpy(t->dims, dims, sizeof(int64_t) * (size_t)rank);
    t->has_raw_data = 1;
    t->raw_data.len = bytes;
    t->raw_data.data = ir_alloc(x->g, bytes ? bytes : 1);
    if (bytes)
        memcpy(t->raw_data.data, data, bytes);
    x->inits = grow(x, x->inits, &x->cap_inits, x->n_inits, sizeof *x->inits);
    x->inits[x->n_inits++] = t;
    return t->name;
}

static const char *tmp_name(Qx *x, const char *base)
{
    return ir_sprintf(x->g, "%s__%d", base, x->n_tmp++);
}

static const char *scalar_f32(Qx *x, const char *base, float v)
{
    return init_raw(x, tmp_name(x, base), IR_DT_FLOAT, 0, NULL, &v, 4);
}

static int fail(Qx *x, int l, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const IrLayer *L = &x->g->layers[l];
    diag_error(x->d, x->g->path, L->name, ir_op_name(L->op), "QDQ export: %s", msg);
    x->errors++;
    return -1;
}

/* ------------------------------------------------------- tensors */

static const IrTensor *T(Qx *x, int t)
{
    return &x->g->tensors[t];
}

/* integer codes of a quantized tensor (not a plain int8 tensor of a float graph) */
static bool is_int(Qx *x, int t)
{
    IrDType dt = T(x, t)->dtype;
    return (dt == IR_DT_INT8 || dt == IR_DT_INT16) && T(x, t)->quant && T(x, t)->kind != IR_T_CONST;
}

/* t__s, t__z for an activation's per-tensor parameters */
static void qparams(Qx *x, int t, const char **s, const char **z)
{
    static const float one = 1.0f;
    static const int32_t zero0 = 0;
    static const IrQuant none = {-1, 1, (float *)&one, (int32_t *)&zero0, 8, INT32_MIN};
    const IrQuant *q = T(x, t)->quant ? T(x, t)->quant : &none;  /* boundaries always have one */
    *s = ir_sprintf(x->g, "%s__s", T(x, t)->name);
    *z = ir_sprintf(x->g, "%s__z", T(x, t)->name);
    if (x->qp_done[t])
        return;
    x->qp_done[t] = 1;
    int8_t zero = (int8_t)q->zero[0];
    init_raw(x, *s, IR_DT_FLOAT, 0, NULL, &q->scale[0], 4);
    init_raw(x, *z, IR_DT_INT8, 0, NULL, &zero, 1);
}

/* float value of tensor t as an ONNX name */
static const char *value(Qx *x, int t)
{
    if (t < 0)
        return "";
    const IrTensor *X = T(x, t);
    if (X->kind == IR_T_CONST) {
        if (!x->init_done[t]) {
            x->init_done[t] = 1;
            init_raw(x, X->name, X->dtype, X->rank, X->dims, ir_tensor_data(x->g, t), ir_tensor_nbytes(X));
        }
        return X->name;
    }
    if (!is_int(x, t))
        return X->name;
    const char *dq = ir_sprintf(x->g, "%s__dq", X->name);
    if (!x->dq_done[t]) {
        x->dq_done[t] = 1;
        const char *s, *z;
        qparams(x, t, &s, &z);
        node(x, "DequantizeLinear", 3, (const char *[]){X->name, s, z}, dq);
    }
    return dq;
}

/* int8 weights or int32 bias constant with per-channel DQ (axis 0) */
static const char *const_dq(Qx *x, int t)
{
    const IrTensor *C = T(x, t);
    const IrQuant *q = C->quant;
    const char *dq = ir_sprintf(x->g, "%s__dq", C->name);
    if (x->dq_done[t])
        return dq;
    x->dq_done[t] = 1;
    init_raw(x, C->name, C->dtype, C->rank, C->dims, ir_tensor_data(x->g, t), ir_tensor_nbytes(C));
    int64_t n = q->n;
    size_t zb = C->dtype == IR_DT_INT32 ? 4 : 1;
    void *zeros = ir_alloc(x->g, (size_t)n * zb);
    const char *s = init_raw(x, ir_sprintf(x->g, "%s__s", C->name), IR_DT_FLOAT, q->n > 1 ? 1 : 0, &n, q->scale,
                             (size_t)n * 4);
    const char *z = init_raw(x, ir_sprintf(x->g, "%s__z", C->name), C->dtype == IR_DT_INT32 ? IR_DT_INT32 : IR_DT_INT8,
                             q->n > 1 ? 1 : 0, &n, zeros, (size_t)n * zb);
    Onnx__NodeProto *nd = node(x, "DequantizeLinear", 3, (const char *[]){C->name, s, z}, dq);
    if (q->n > 1)
        attr_int(x, nd, "axis", 0);
    return dq;
}

/* the name a layer's input slot reads: dequantized weights for integer
 * conv / Gemm, else the float value */
static const char *input(Qx *x, int l, int i)
{
    const IrLayer *L = &x->g->layers[l];
    int t = L->in[i];
    if (t >= 0 && T(x, t)->kind == IR_T_CONST && T(x, t)->quant && T(x, t)->dtype != IR_DT_FLOAT)
        return const_dq(x, t);
    return value(x, t);
}

/* ------------------------------------------------------- ops */

static void conv_attrs(Qx *x, Onnx__NodeProto *n, const IrLayer *L, int nsp)
{
    const IrConvAttr *a = &L->attr.conv;
    int64_t pads[2 * IR_MAX_SPATIAL];
    for (int i = 0; i < nsp; i++)
        pads[i] = a->pad_begin[i], pads[nsp + i] = a->pad_end[i];
    attr_ints(x, n, "kernel_shape", a->kernel, nsp);
    attr_ints(x, n, "strides", a->stride, nsp);
    attr_ints(x, n, "dilations", a->dilation, nsp);
    attr_ints(x, n, "pads", pads, 2 * nsp);
    attr_int(x, n, "group", a->group > 0 ? a->group : 1);
}

static void pool_attrs(Qx *x, Onnx__NodeProto *n, const IrLayer *L, int nsp)
{
    const IrPoolAttr *a = &L->attr.pool;
    int64_t pads[2 * IR_MAX_SPATIAL];
    for (int i = 0; i < nsp; i++)
        pads[i] = a->pad_begin[i], pads[nsp + i] = a->pad_end[i];
    attr_ints(x, n, "kernel_shape", a->kernel, nsp);
    attr_ints(x, n, "strides", a->stride, nsp);
    attr_ints(x, n, "pads", pads, 2 * nsp);
    if (a->ceil_mode)
        attr_int(x, n, "ceil_mode", 1);
    if (L->op == IR_OP_MAXPOOL)
        attr_ints(x, n, "dilations", a->dilation, nsp);
    else if (a->count_include_pad)
        attr_int(x, n, "count_include_pad", 1);
}

/* an activation of kind k on `in`, written to `out` */
static void act_node(Qx *x, const IrAct *a, const char *in, const char *out)
{
    Onnx__NodeProto *n;
    const char *mid;
    switch (a->kind) {
    case IR_ACT_RELU: node(x, "Relu", 1, &in, out); break;
    case IR_ACT_CLIP:
        node(x, "Clip", 3, (const char *[]){in, scalar_f32(x, "clip_min", a->alpha), scalar_f32(x, "clip_max", a->beta)},
             out);
        break;
    case IR_ACT_LEAKY_RELU: attr_float(x, node(x, "LeakyRelu", 1, &in, out), "alpha", a->alpha); break;
    case IR_ACT_SIGMOID: node(x, "Sigmoid", 1, &in, out); break;
    case IR_ACT_TANH: node(x, "Tanh", 1, &in, out); break;
    case IR_ACT_ELU: attr_float(x, node(x, "Elu", 1, &in, out), "alpha", a->alpha); break;
    case IR_ACT_HARD_SIGMOID:
        n = node(x, "HardSigmoid", 1, &in, out);
        attr_float(x, n, "alpha", a->alpha);
        attr_float(x, n, "beta", a->beta);
        break;
    case IR_ACT_HARD_SWISH:
        mid = tmp_name(x, out);
        n = node(x, "HardSigmoid", 1, &in, mid);
        attr_float(x, n, "alpha", 1.0f / 6.0f);
        attr_float(x, n, "beta", 0.5f);
        node(x, "Mul", 2, (const char *[]){in, mid}, out);
        break;
    case IR_ACT_SILU:
        mid = tmp_name(x, out);
        node(x, "Sigmoid", 1, &in, mid);
        node(x, "Mul", 2, (const char *[]){in, mid}, out);
        break;
    case IR_ACT_MISH: {  /* Mish is opset 18: x * Tanh(Softplus(x)) */
        mid = tmp_name(x, out);
        const char *sp = tmp_name(x, out);
        node(x, "Softplus", 1, &in, sp);
        node(x, "Tanh", 1, &sp, mid);
        node(x, "Mul", 2, (const char *[]){in, mid}, out);
        break;
    }
    default: node(x, "Identity", 1, &in, out); break;
    }
}

/* The element-wise ops (the unary and binary rows of ir/ops.def): written
 * as the ONNX op of the same name on the same inputs, except activations,
 * which act_node writes with their attributes. */
static const char *const eltwise_names[IR_OP_COUNT] = {
#define OP(id, name, family, flags, unit)
#define UNARY(id, name, flags, act, unit) [IR_OP_##id] = name,
#define BINARY(id, name, flags, kernel, unit) [IR_OP_##id] = name,
#include "ir/ops.def"
#undef BINARY
#undef UNARY
#undef OP
};

static int view_node(Qx *x, int l, const char *out)
{
    const IrTensor *Y = T(x, x->g->layers[l].out[0]);
    int64_t n = Y->rank;
    const char *shape = init_raw(x, tmp_name(x, "shape"), IR_DT_INT64, 1, &n, Y->dims, sizeof(int64_t) * (size_t)n);
    node(x, "Reshape", 2, (const char *[]){input(x, l, 0), shape}, out);
    return 0;
}

/* an int64 vector initializer named after base */
static const char *ints_init(Qx *x, const char *base, const int64_t *v, int64_t n)
{
    return init_raw(x, tmp_name(x, base), IR_DT_INT64, 1, &n, v, sizeof(int64_t) * (size_t)n);
}

/* Slice (opset 13: starts, ends, axes, steps as inputs); the IR's end -1 of
 * a negative step is "before the first element", INT64_MIN in ONNX */
static int slice_node(Qx *x, int l, const char *out)
{
    const IrSliceAttr *a = &x->g->layers[l].attr.slice;
    int64_t ends[IR_MAX_RANK];
    for (int i = 0; i < a->n; i++)
        ends[i] = a->steps[i] < 0 && a->ends[i] < 0 ? INT64_MIN : a->ends[i];
    node(x, "Slice", 5,
         (const char *[]){input(x, l, 0), ints_init(x, "starts", a->starts, a->n), ints_init(x, "ends", ends, a->n),
                          ints_init(x, "axes", a->axes, a->n), ints_init(x, "steps", a->steps, a->n)},
         out);
    return 0;
}

/* Split (opset 13: the sizes as an input) to the names outs[] */
static void split_node(Qx *x, int l, const char *const *outs)
{
    const IrLayer *L = &x->g->layers[l];
    int64_t sz[IR_MAX_IO];
    for (int k = 0; k < L->n_out; k++)
        sz[k] = T(x, L->out[k])->dims[L->attr.axis.axis];
    Onnx__NodeProto *n = node(x, "Split", 2, (const char *[]){input(x, l, 0), ints_init(x, "split", sz, L->n_out)},
                              outs[0]);
    attr_int(x, n, "axis", L->attr.axis.axis);
    n->n_output = (size_t)L->n_out;
    n->output = ir_alloc(x->g, sizeof(char *) * (size_t)L->n_out);
    for (int k = 0; k < L->n_out; k++)
        n->output[k] = str(x, outs[k]);
}

/* a Split whose outputs are integer: each part quantized again (its
 * input's parameters) */
static int export_split(Qx *x, int l)
{
    const IrLayer *L = &x->g->layers[l];
    const char *outs[IR_MAX_IO];
    for (int k = 0; k < L->n_out; k++)
        outs[k] = is_int(x, L->out[k]) ? ir_sprintf(x->g, "%s__f", T(x, L->out[k])->name) : T(x, L->out[k])->name;
    split_node(x, l, outs);
    for (int k = 0; k < L->n_out; k++) {
        const char *s, *z;
        if (!is_int(x, L->out[k]))
            continue;
        qparams(x, L->out[k], &s, &z);
        node(x, "QuantizeLinear", 3, (const char *[]){outs[k], s, z}, T(x, L->out[k])->name);
    }
    return 0;
}

static int misc_node(Qx *x, int l, const char *out)
{
    const IrLayer *L = &x->g->layers[l];
    Onnx__NodeProto *n;
    int rank = T(x, L->in[0])->rank;
    switch (L->op) {
    case IR_OP_SOFTMAX: case IR_OP_LOG_SOFTMAX:
        n = node(x, L->op == IR_OP_SOFTMAX ? "Softmax" : "LogSoftmax", 1, (const char *[]){input(x, l, 0)}, out);
        attr_int(x, n, "axis", L->attr.axis.axis);
        return 0;
    case IR_OP_TRANSPOSE:
        attr_ints(x, node(x, "Transpose", 1, (const char *[]){input(x, l, 0)}, out), "perm", L->attr.axes.perm, rank);
        return 0;
    case IR_OP_GATHER:
        n = node(x, "Gather", 2, (const char *[]){input(x, l, 0), value(x, L->in[1])}, out);
        attr_int(x, n, "axis", L->attr.axis.axis);
        return 0;
    case IR_OP_SLICE:
        return slice_node(x, l, out);
    case IR_OP_MATMUL:
        node(x, "MatMul", 2, (const char *[]){input(x, l, 0), input(x, l, 1)}, out);
        return 0;
    case IR_OP_BATCHNORM:
        n = node(x, "BatchNormalization", 5,
                 (const char *[]){input(x, l, 0), input(x, l, 1), input(x, l, 2), input(x, l, 3), input(x, l, 4)}, out);
        attr_float(x, n, "epsilon", L->attr.norm.epsilon);
        return 0;
    case IR_OP_REDUCE_MEAN: case IR_OP_REDUCE_MAX: case IR_OP_REDUCE_SUM:
        if (L->op == IR_OP_REDUCE_SUM)
            return fail(x, l, "ReduceSum (axes as an input since opset 13) is not exported");
        n = node(x, L->op == IR_OP_REDUCE_MEAN ? "ReduceMean" : "ReduceMax", 1, (const char *[]){input(x, l, 0)}, out);
        if (L->attr.axes.n)
            attr_ints(x, n, "axes", L->attr.axes.perm, L->attr.axes.n);
        attr_int(x, n, "keepdims", L->attr.axes.keepdims);
        return 0;
    case IR_OP_QUANTIZE_LINEAR: case IR_OP_DEQUANTIZE_LINEAR: {  /* left by the import: as they were */
        const char *ins[3];
        for (int i = 0; i < L->n_in && i < 3; i++)
            ins[i] = value(x, L->in[i]);
        n = node(x, ir_op_name(L->op), L->n_in < 3 ? L->n_in : 3, ins, out);
        attr_int(x, n, "axis", L->attr.axis.axis);
        return 0;
    }
    default:
        return fail(x, l, "%s is not exported", ir_op_name(L->op));
    }
}

/* the layer's own op, reading its inputs, writing `out` */
static int op_node(Qx *x, int l, const char *out)
{
    const IrLayer *L = &x->g->layers[l];
    Onnx__NodeProto *n;
    int nsp = T(x, L->in[0])->rank - 2;
    switch (L->op) {
    case IR_OP_CONV:
        n = node(x, "Conv", L->n_in > 2 && L->in[2] >= 0 ? 3 : 2,
                 (const char *[]){input(x, l, 0), input(x, l, 1), L->n_in > 2 ? input(x, l, 2) : ""}, out);
        conv_attrs(x, n, L, nsp);
        return 0;
    case IR_OP_GEMM:
        n = node(x, "Gemm", L->n_in > 2 && L->in[2] >= 0 ? 3 : 2,
                 (const char *[]){input(x, l, 0), input(x, l, 1), L->n_in > 2 ? input(x, l, 2) : ""}, out);
        attr_int(x, n, "transA", L->attr.gemm.trans_a);
        attr_int(x, n, "transB", L->attr.gemm.trans_b);
        attr_float(x, n, "alpha", L->attr.gemm.alpha);
        attr_float(x, n, "beta", L->attr.gemm.beta);
        return 0;
    case IR_OP_MAXPOOL: case IR_OP_AVGPOOL:
        pool_attrs(x, node(x, L->op == IR_OP_MAXPOOL ? "MaxPool" : "AveragePool", 1,
                           (const char *[]){input(x, l, 0)}, out), L, nsp);
        return 0;
    case IR_OP_GLOBAL_AVGPOOL: case IR_OP_GLOBAL_MAXPOOL:
        node(x, ir_op_name(L->op), 1, (const char *[]){input(x, l, 0)}, out);
        return 0;
    case IR_OP_CONCAT: {
        const char *ins[IR_MAX_IO];
        for (int i = 0; i < L->n_in; i++)
            ins[i] = input(x, l, i);
        attr_int(x, node(x, "Concat", L->n_in, ins, out), "axis", L->attr.axis.axis);
        return 0;
    }
    default:
        break;
    }
    if (ir_op_flags(L->op) & IR_F_NO_DATA)
        return view_node(x, l, out);
    IrActKind k = ir_op_act(L->op);
    if (k != IR_ACT_NONE) {
        IrAct a = L->attr.act;
        a.kind = k;
        if (k == IR_ACT_CLIP && a.alpha <= -3.0e38f && a.beta >= 3.0e38f)
            node(x, "Identity", 1, (const char *[]){input(x, l, 0)}, out);  /* the SiLU carrier */
        else
            act_node(x, &a, input(x, l, 0), out);
        return 0;
    }
    if (eltwise_names[L->op]) {
        const char *ins[IR_MAX_IO];
        for (int i = 0; i < L->n_in; i++)
            ins[i] = input(x, l, i);
        node(x, eltwise_names[L->op], L->n_in, ins, out);
        return 0;
    }
    return misc_node(x, l, out);
}

/* op, then residual add, then the fused activation */
static int layer_nodes(Qx *x, int l, const char *out)
{
    const IrLayer *L = &x->g->layers[l];
    bool res = L->residual >= 0, act = L->act.kind != IR_ACT_NONE;
    if (L->act.kind == IR_ACT_PRELU)
        return fail(x, l, "a fused PRelu is not exported");
    bool carrier = L->op == IR_OP_CLIP && L->attr.act.alpha <= -3.0e38f && L->attr.act.beta >= 3.0e38f;
    const char *a = res || act ? tmp_name(x, out) : out;
    if (carrier && (res || act))
        a = input(x, l, 0);  /* the SiLU carrier: only its activation */
    else if (op_node(x, l, a))
        return -1;
    if (res) {
        const char *b = act ? tmp_name(x, out) : out;
        node(x, "Add", 2, (const char *[]){a, value(x, L->residual)}, b);
        a = b;
    }
    if (act)
        act_node(x, &L->act, a, out);
    return 0;
}

static int export_layer(Qx *x, int l)
{
    const IrLayer *L = &x->g->layers[l];
    int y = L->out[0];
    if (L->prec != IR_PREC_FLOAT && L->bits > 8)
        return fail(x, l, "%d-bit integer layers need opset 21; only 8-bit layers are exported", L->bits);
    bool boundary = L->prec != IR_PREC_FLOAT;
    if (boundary && L->op == IR_OP_QUANTIZE_LINEAR) {
        const char *s, *z;
        qparams(x, y, &s, &z);
        node(x, "QuantizeLinear", 3, (const char *[]){value(x, L->in[0]), s, z}, T(x, y)->name);
        return 0;
    }
    if (boundary && L->op == IR_OP_DEQUANTIZE_LINEAR) {
        const char *s, *z;
        qparams(x, L->in[0], &s, &z);
        node(x, "DequantizeLinear", 3, (const char *[]){T(x, L->in[0])->name, s, z}, T(x, y)->name);
        return 0;
    }
    if (L->op == IR_OP_SPLIT && L->residual < 0 && L->act.kind == IR_ACT_NONE)
        return export_split(x, l);
    if (!is_int(x, y)) {
        x->next_name = L->name;  /* a float layer's op keeps its ONNX node name */
        return layer_nodes(x, l, T(x, y)->name);
    }
    const char *f = ir_sprintf(x->g, "%s__f", T(x, y)->name), *s, *z;
    if (layer_nodes(x, l, f))
        return -1;
    qparams(x, y, &s, &z);
    node(x, "QuantizeLinear", 3, (const char *[]){f, s, z}, T(x, y)->name);
    return 0;
}

/* ------------------------------------------------------- model */

static Onnx__ValueInfoProto *value_info(Qx *x, int t)
{
    const IrTensor *X = T(x, t);
    Onnx__ValueInfoProto *v = ir_alloc(x->g, sizeof *v);
    onnx__value_info_proto__init(v);
    v->name = str(x, X->name);
    Onnx__TypeProto *tp = ir_alloc(x->g, sizeof *tp);
    onnx__type_proto__init(tp);
    Onnx__TypeProto__Tensor *tt = ir_alloc(x->g, sizeof *tt);
    onnx__type_proto__tensor__init(tt);
    tt->has_elem_type = 1;
    tt->elem_type = (int32_t)X->dtype;
    Onnx__TensorShapeProto *sh = ir_alloc(x->g, sizeof *sh);
    onnx__tensor_shape_proto__init(sh);
    sh->n_dim = (size_t)(X->rank > 0 ? X->rank : 0);
    sh->dim = ir_alloc(x->g, sizeof *sh->dim * (sh->n_dim + 1));
    for (int i = 0; i < X->rank; i++) {
        Onnx__TensorShapeProto__Dimension *d = ir_alloc(x->g, sizeof *d);
        onnx__tensor_shape_proto__dimension__init(d);
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        d->dim_value = X->dims[i];
        sh->dim[i] = d;
    }
    tt->shape = sh;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    v->type = tp;
    return v;
}

static int write_model(Qx *x, const char *path, const char *kind)
{
    IrGraph *g = x->g;
    Onnx__GraphProto gp = ONNX__GRAPH_PROTO__INIT;
    gp.name = ir_sprintf(x->g, "onnx2hls_%s", kind);
    gp.n_node = x->n_nodes;
    gp.node = x->nodes;
    gp.n_initializer = x->n_inits;
    gp.initializer = x->inits;
    gp.n_input = (size_t)g->n_inputs;
    gp.input = ir_alloc(g, sizeof *gp.input * (size_t)(g->n_inputs + 1));
    for (int i = 0; i < g->n_inputs; i++)
        gp.input[i] = value_info(x, g->inputs[i]);
    gp.n_output = (size_t)g->n_outputs;
    gp.output = ir_alloc(g, sizeof *gp.output * (size_t)(g->n_outputs + 1));
    for (int i = 0; i < g->n_outputs; i++)
        gp.output[i] = value_info(x, g->outputs[i]);
    Onnx__OperatorSetIdProto op = ONNX__OPERATOR_SET_ID_PROTO__INIT, *ops[1] = {&op};
    op.domain = str(x, "");
    op.has_version = 1;
    op.version = 13;
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    m.has_ir_version = 1;
    m.ir_version = 7;
    m.n_opset_import = 1;
    m.opset_import = ops;
    m.producer_name = str(x, "onnx2hls");
    m.producer_version = str(x, kind);
    m.graph = &gp;
    size_t n = onnx__model_proto__get_packed_size(&m);
    uint8_t *buf = ir_alloc(g, n ? n : 1);
    onnx__model_proto__pack(&m, buf);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) {
        if (f)
            fclose(f);
        diag_error(x->d, path, NULL, NULL, "cannot write the %s model: %s", kind, strerror(errno));
        return -1;
    }
    return 0;
}

static int export_graph(IrGraph *g, const char *path, const char *kind, IrDiag *d)
{
    Qx x;
    memset(&x, 0, sizeof x);
    x.g = g;
    x.d = d;
    x.dq_done = ir_alloc(g, (size_t)g->n_tensors + 1);
    x.qp_done = ir_alloc(g, (size_t)g->n_tensors + 1);
    x.init_done = ir_alloc(g, (size_t)g->n_tensors + 1);
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead)
            export_layer(&x, l);
    if (x.errors)
        return -1;
    return write_model(&x, path, kind);
}

int pass_qdq_export(IrGraph *g, const char *path, IrDiag *d)
{
    return export_graph(g, path, "qdq", d);
}

int pass_onnx_export(IrGraph *g, const char *path, IrDiag *d)
{
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead && pass_quant_is_int_layer(g, l)) {
            diag_error(d, g->path, g->layers[l].name, ir_op_name(g->layers[l].op),
                       "the float ONNX export takes the graph before quantization");
            return -1;
        }
    return export_graph(g, path, "float", d);
}
