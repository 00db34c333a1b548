/* test_plan_graphs.h - small IR graphs built by hand for the planner tests:
 * a MobileNetV2-like net (stem, inverted residuals, global pool, FC), a
 * ResNet-like one (7x7 stem + BN + Relu unfused, max pool, basic blocks with
 * residual Add) and an EfficientNet-like one (SiLU as x*sigmoid(x),
 * squeeze-excite). Why by hand: the planner tests must run without any model
 * file, and these shapes exercise every mapping rule of plan/units.c. */
#ifndef TEST_PLAN_GRAPHS_H
#define TEST_PLAN_GRAPHS_H

#include "ir/ir.h"

#include <stdio.h>
#include <string.h>

static int tg_counter;

static int tg_tensor(IrGraph *g, int rank, const int64_t *dims)
{
    char name[32];
    snprintf(name, sizeof name, "t%d", tg_counter++);
    return ir_tensor_add(g, name, IR_DT_FLOAT, rank, dims);
}

static int tg_const(IrGraph *g, int rank, const int64_t *dims)
{
    char name[32];
    snprintf(name, sizeof name, "w%d", tg_counter++);
    return ir_const_add(g, name, IR_DT_FLOAT, rank, dims, NULL);
}

static int tg_layer(IrGraph *g, IrOp op, const int *in, int n_in, int out)
{
    int l = ir_layer_add(g, op, NULL);
    IrLayer *L = &g->layers[l];
    L->n_in = n_in;
    for (int i = 0; i < n_in; i++)
        L->in[i] = in[i];
    L->n_out = 1;
    L->out[0] = out;
    g->tensors[out].producer = l;
    return l;
}

static int tg_input(IrGraph *g, int64_t c, int64_t h, int64_t w)
{
    int64_t d[4] = {1, c, h, w};
    int t = ir_tensor_add(g, "input", IR_DT_FLOAT, 4, d);
    g->tensors[t].kind = IR_T_INPUT;
    g->inputs[g->n_inputs++] = t;
    return t;
}

static const IrTensor *tg_t(IrGraph *g, int t)
{
    return &g->tensors[t];
}

static int tg_conv(IrGraph *g, int x, int64_t f, int64_t k, int64_t stride, int64_t group)
{
    int64_t c = tg_t(g, x)->dims[1], h = tg_t(g, x)->dims[2], w = tg_t(g, x)->dims[3];
    int64_t pad = k / 2;
    int64_t ho = (h + 2 * pad - k) / stride + 1, wo = (w + 2 * pad - k) / stride + 1;
    int64_t wd[4] = {f, c / group, k, k}, bd[1] = {f}, yd[4] = {1, f, ho, wo};
    int in[3] = {x, tg_const(g, 4, wd), tg_const(g, 1, bd)};
    int y = tg_tensor(g, 4, yd);
    int l = tg_layer(g, IR_OP_CONV, in, 3, y);
    IrConvAttr *a = &g->layers[l].attr.conv;
    a->nsp = 2;
    for (int i = 0; i < 2; i++) {
        a->kernel[i] = k;
        a->stride[i] = stride;
        a->dilation[i] = 1;
        a->pad_begin[i] = a->pad_end[i] = pad;
    }
    a->group = group;
    a->cls = group == c && group > 1 ? IR_CONV_DEPTHWISE
             : group > 1             ? IR_CONV_GROUPED
             : k == 1                ? IR_CONV_POINTWISE
                                     : IR_CONV_STANDARD;
    return y;
}

static int tg_same(IrGraph *g, int x)
{
    int64_t dims[IR_MAX_RANK]; /* copied: adding a tensor may move the array */
    int rank = tg_t(g, x)->rank;
    memcpy(dims, tg_t(g, x)->dims, sizeof dims);
    return tg_tensor(g, rank, dims);
}

static int tg_unary(IrGraph *g, IrOp op, int x)
{
    int y = tg_same(g, x);
    tg_layer(g, op, &x, 1, y);
    return y;
}

static int tg_bn(IrGraph *g, int x)
{
    int64_t cd[1] = {tg_t(g, x)->dims[1]};
    int in[5] = {x, tg_const(g, 1, cd), tg_const(g, 1, cd), tg_const(g, 1, cd), tg_const(g, 1, cd)};
    int y = tg_same(g, x);
    tg_layer(g, IR_OP_BATCHNORM, in, 5, y);
    return y;
}

static int tg_binary(IrGraph *g, IrOp op, int a, int b)
{
    int in[2] = {a, b};
    int y = tg_same(g, ir_tensor_numel(tg_t(g, a)) >= ir_tensor_numel(tg_t(g, b)) ? a : b);
    tg_layer(g, op, in, 2, y);
    return y;
}

static int tg_gap(IrGraph *g, int x)
{
    int64_t d[4] = {1, tg_t(g, x)->dims[1], 1, 1};
    int y = tg_tensor(g, 4, d);
    tg_layer(g, IR_OP_GLOBAL_AVGPOOL, &x, 1, y);
    return y;
}

static int tg_maxpool(IrGraph *g, int x, int64_t k, int64_t s)
{
    const IrTensor *t = tg_t(g, x);
    int64_t d[4] = {1, t->dims[1], (t->dims[2] + 2 * (k / 2) - k) / s + 1, (t->dims[3] + 2 * (k / 2) - k) / s + 1};
    int y = tg_tensor(g, 4, d);
    int l = tg_layer(g, IR_OP_MAXPOOL, &x, 1, y);
    IrPoolAttr *a = &g->layers[l].attr.pool;
    a->nsp = 2;
    for (int i = 0; i < 2; i++) {
        a->kernel[i] = k;
        a->stride[i] = s;
        a->dilation[i] = 1;
        a->pad_begin[i] = a->pad_end[i] = k / 2;
    }
    return y;
}

static int tg_flatten(IrGraph *g, int x)
{
    int64_t d[2] = {1, ir_tensor_numel(tg_t(g, x))};
    int y = tg_tensor(g, 2, d);
    tg_layer(g, IR_OP_FLATTEN, &x, 1, y);
    return y;
}

static int tg_fc(IrGraph *g, int x, int64_t out)
{
    int64_t wd[2] = {out, tg_t(g, x)->dims[1]}, bd[1] = {out}, yd[2] = {1, out};
    int in[3] = {x, tg_const(g, 2, wd), tg_const(g, 1, bd)};
    int y = tg_tensor(g, 2, yd);
    int l = tg_layer(g, IR_OP_GEMM, in, 3, y);
    g->layers[l].attr.gemm = (IrGemmAttr){false, true, 1.0f, 1.0f};
    return y;
}

static void tg_output(IrGraph *g, int y)
{
    g->tensors[y].is_output = true;
    g->outputs[g->n_outputs++] = y;
}

static int tg_relu6(IrGraph *g, int x)
{
    return tg_unary(g, IR_OP_CLIP, x);
}

/* MobileNetV2 inverted residual: pw expand, dw, pw project (+ skip) */
static int tg_inverted(IrGraph *g, int x, int64_t expand, int64_t out, int64_t stride)
{
    int64_t c = tg_t(g, x)->dims[1], mid = c * expand;
    int y = tg_relu6(g, tg_conv(g, x, mid, 1, 1, 1));
    y = tg_relu6(g, tg_conv(g, y, mid, 3, stride, mid));
    y = tg_conv(g, y, out, 1, 1, 1);
    if (stride == 1 && c == out)
        y = tg_binary(g, IR_OP_ADD, y, x);
    return y;
}

static IrGraph *tg_mobilenet(int64_t hw, bool softmax)
{
    IrGraph *g = ir_graph_new("mobilenet_like");
    tg_counter = 0;
    int x = tg_input(g, 3, hw, hw);
    int y = tg_relu6(g, tg_conv(g, x, 32, 3, 2, 1));
    y = tg_relu6(g, tg_conv(g, y, 32, 3, 1, 32));
    y = tg_conv(g, y, 16, 1, 1, 1);
    y = tg_inverted(g, y, 6, 24, 2);
    y = tg_inverted(g, y, 6, 24, 1);
    y = tg_inverted(g, y, 6, 32, 2);
    y = tg_inverted(g, y, 6, 32, 1);
    y = tg_inverted(g, y, 6, 64, 2);
    y = tg_inverted(g, y, 6, 64, 1);
    y = tg_inverted(g, y, 6, 96, 1);
    y = tg_relu6(g, tg_conv(g, y, 320, 1, 1, 1));
    y = tg_fc(g, tg_flatten(g, tg_gap(g, y)), 100);
    if (softmax)
        y = tg_unary(g, IR_OP_SOFTMAX, y);
    tg_output(g, y);
    return g;
}

static int tg_basic(IrGraph *g, int x, int64_t out, int64_t stride)
{
    int64_t c = tg_t(g, x)->dims[1];
    int y = tg_unary(g, IR_OP_RELU, tg_bn(g, tg_conv(g, x, out, 3, stride, 1)));
    y = tg_bn(g, tg_conv(g, y, out, 3, 1, 1));
    int skip = x;
    if (stride != 1 || c != out)
        skip = tg_bn(g, tg_conv(g, x, out, 1, stride, 1));
    return tg_unary(g, IR_OP_RELU, tg_binary(g, IR_OP_ADD, y, skip));
}

static IrGraph *tg_resnet(int64_t hw)
{
    IrGraph *g = ir_graph_new("resnet_like");
    tg_counter = 0;
    int x = tg_input(g, 3, hw, hw);
    int y = tg_unary(g, IR_OP_RELU, tg_bn(g, tg_conv(g, x, 32, 7, 2, 1)));
    y = tg_maxpool(g, y, 3, 2);
    y = tg_basic(g, y, 32, 1);
    y = tg_basic(g, y, 64, 2);
    y = tg_basic(g, y, 128, 2);
    y = tg_fc(g, tg_flatten(g, tg_gap(g, y)), 10);
    tg_output(g, y);
    return g;
}

static int tg_silu(IrGraph *g, int x)
{
    int s = tg_unary(g, IR_OP_SIGMOID, x);
    return tg_binary(g, IR_OP_MUL, x, s);
}

/* MBConv with squeeze-excite */
static int tg_mbconv(IrGraph *g, int x, int64_t out, int64_t stride)
{
    int64_t c = tg_t(g, x)->dims[1], mid = 4 * c;
    int y = tg_silu(g, tg_conv(g, x, mid, 1, 1, 1));
    y = tg_silu(g, tg_conv(g, y, mid, 3, stride, mid));
    int s = tg_silu(g, tg_conv(g, tg_gap(g, y), c / 2 > 0 ? c / 2 : 1, 1, 1, 1));
    s = tg_unary(g, IR_OP_SIGMOID, tg_conv(g, s, mid, 1, 1, 1));
    y = tg_binary(g, IR_OP_MUL, y, s);
    y = tg_conv(g, y, out, 1, 1, 1);
    if (stride == 1 && c == out)
        y = tg_binary(g, IR_OP_ADD, y, x);
    return y;
}

static IrGraph *tg_effnet(int64_t hw)
{
    IrGraph *g = ir_graph_new("effnet_like");
    tg_counter = 0;
    int x = tg_input(g, 3, hw, hw);
    int y = tg_silu(g, tg_conv(g, x, 16, 3, 2, 1));
    y = tg_mbconv(g, y, 24, 2);
    y = tg_mbconv(g, y, 24, 1);
    y = tg_mbconv(g, y, 40, 2);
    y = tg_silu(g, tg_conv(g, y, 256, 1, 1, 1));
    y = tg_fc(g, tg_flatten(g, tg_gap(g, y)), 10);
    tg_output(g, y);
    return g;
}

#endif
