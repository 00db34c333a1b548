/* test_quant_qdq.c - importing a QDQ graph as another tool writes it:
 * uint8 activations (zero point 128 and 0), int8 per-channel weights, an
 * int32 bias at s_x * s_w, Relu between the conv and its QuantizeLinear.
 * The graph is built in IR the way the frontend imports it (Q/DQ layers,
 * IrQuant on Q outputs and DQ inputs) and run through the default pass
 * pipeline: the scales must be kept (uint8 -> int8 by z - 128, weights'
 * codes untouched, no calibration), every layer integer, and the integer
 * output within one output step of the fake-quantized float computation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "passes/passes.h"
#include "passes/quant/quant.h"

enum { C = 2, F = 3, H = 5, W = 5 };

static IrQuant *quant(IrGraph *g, int n, const float *s, const int32_t *z, int axis, int bits)
{
    IrQuant *q = ir_alloc(g, sizeof *q);
    q->axis = n > 1 ? axis : -1;
    q->n = n;
    q->scale = ir_alloc(g, sizeof(float) * (size_t)n);
    q->zero = ir_alloc(g, sizeof(int32_t) * (size_t)n);
    memcpy(q->scale, s, sizeof(float) * (size_t)n);
    memcpy(q->zero, z, sizeof(int32_t) * (size_t)n);
    q->bits = bits;
    q->frac_bits = INT32_MIN;
    return q;
}

static int scalar(IrGraph *g, const char *name, IrDType dt, double v)
{
    void *p;
    int t = ir_const_add(g, name, dt, 0, NULL, &p);
    if (dt == IR_DT_FLOAT)
        *(float *)p = (float)v;
    else if (dt == IR_DT_UINT8)
        *(uint8_t *)p = (uint8_t)v;
    else
        *(int8_t *)p = (int8_t)v;
    return t;
}

static int layer(IrGraph *g, IrOp op, const char *name, const int *ins, int n_in, int out)
{
    int l = ir_layer_add(g, op, name);
    IrLayer *L = &g->layers[l];
    memcpy(L->in, ins, sizeof(int) * (size_t)n_in);
    L->n_in = n_in;
    L->out[0] = out;
    L->n_out = 1;
    g->tensors[out].producer = l;
    return l;
}

/* x -> Q/DQ (uint8, 0.02, 128) -> Conv(DQ w, DQ b) -> Relu -> Q/DQ (uint8, 0.05, 0) -> y */
static IrGraph *build(int8_t *wq, int32_t *bq, float *sw)
{
    IrGraph *g = ir_graph_new("qdq.onnx");
    int64_t xd[4] = {1, C, H, W}, yd[4] = {1, F, H, W}, wd[4] = {F, C, 3, 3}, bd[1] = {F};
    int x = ir_tensor_add(g, "x", IR_DT_FLOAT, 4, xd);
    g->tensors[x].kind = IR_T_INPUT;
    g->inputs[g->n_inputs++] = x;
    float sx = 0.02f, sy = 0.05f;
    int32_t zx = 128, zy = 0, zeros[F] = {0, 0, 0};
    /* activations in */
    int xq = ir_tensor_add(g, "x_q", IR_DT_UINT8, 4, xd), xdq = ir_tensor_add(g, "x_dq", IR_DT_FLOAT, 4, xd);
    g->tensors[xq].quant = quant(g, 1, &sx, &zx, 1, 8);
    layer(g, IR_OP_QUANTIZE_LINEAR, "q_x", (int[]){x, scalar(g, "sx", IR_DT_FLOAT, sx), scalar(g, "zx", IR_DT_UINT8, zx)},
          3, xq);
    layer(g, IR_OP_DEQUANTIZE_LINEAR, "dq_x", (int[]){xq, scalar(g, "sx2", IR_DT_FLOAT, sx),
          scalar(g, "zx2", IR_DT_UINT8, zx)}, 3, xdq);
    /* weights and bias */
    void *wp, *bp;
    int w = ir_const_add(g, "w_q", IR_DT_INT8, 4, wd, &wp), b = ir_const_add(g, "b_q", IR_DT_INT32, 1, bd, &bp);
    memcpy(wp, wq, F * C * 9);
    memcpy(bp, bq, F * 4);
    float sb[F];
    for (int f = 0; f < F; f++)
        sb[f] = sx * sw[f];
    g->tensors[w].quant = quant(g, F, sw, zeros, 0, 8);
    g->tensors[b].quant = quant(g, F, sb, zeros, 0, 32);
    int wdq = ir_tensor_add(g, "w_dq", IR_DT_FLOAT, 4, wd), bdq = ir_tensor_add(g, "b_dq", IR_DT_FLOAT, 1, bd);
    layer(g, IR_OP_DEQUANTIZE_LINEAR, "dq_w", (int[]){w}, 1, wdq);
    layer(g, IR_OP_DEQUANTIZE_LINEAR, "dq_b", (int[]){b}, 1, bdq);
    /* conv, relu */
    int c = ir_tensor_add(g, "conv", IR_DT_FLOAT, 4, yd), r = ir_tensor_add(g, "relu", IR_DT_FLOAT, 4, yd);
    int lc = layer(g, IR_OP_CONV, "conv", (int[]){xdq, wdq, bdq}, 3, c);
    IrConvAttr *a = &g->layers[lc].attr.conv;
    a->nsp = 2;
    a->group = 1;
    for (int i = 0; i < 2; i++)
        a->kernel[i] = 3, a->stride[i] = a->dilation[i] = 1, a->pad_begin[i] = a->pad_end[i] = 1;
    int lr = layer(g, IR_OP_RELU, "relu", (int[]){c}, 1, r);
    g->layers[lr].attr.act.kind = IR_ACT_RELU;
    /* activations out */
    int yq = ir_tensor_add(g, "y_q", IR_DT_UINT8, 4, yd), y = ir_tensor_add(g, "y", IR_DT_FLOAT, 4, yd);
    g->tensors[yq].quant = quant(g, 1, &sy, &zy, 1, 8);
    layer(g, IR_OP_QUANTIZE_LINEAR, "q_y", (int[]){r}, 1, yq);
    layer(g, IR_OP_DEQUANTIZE_LINEAR, "dq_y", (int[]){yq}, 1, y);
    g->tensors[y].is_output = true;
    g->outputs[g->n_outputs++] = y;
    return g;
}

int main(void)
{
    int8_t wq[F * C * 9];
    int32_t bq[F];
    float sw[F] = {0.004f, 0.007f, 0.0025f}, x[C * H * W], y[F * H * W];
    uint32_t s = 12345;
    for (int i = 0; i < F * C * 9; i++)
        wq[i] = (int8_t)((s = s * 1664525u + 1013904223u) >> 25) - 64;
    for (int f = 0; f < F; f++)
        bq[f] = (int32_t)(f * 700) - 600;
    for (int i = 0; i < C * H * W; i++)
        x[i] = (float)((s = s * 1664525u + 1013904223u) >> 8) / (float)(1u << 24) * 4.0f - 2.0f;

    IrGraph *g = build(wq, bq, sw);
    IrDiag d;
    diag_init(&d);
    PassOptions po;
    passes_options_init(&po);
    CHECK(passes_run(g, &po, &d) == 0);
    CHECK(!diag_contains(&d, "calibrat"));
    int n_int = 0, n_float = 0, conv = -1;
    for (int l = 0; l < g->n_layers; l++) {
        n_int += g->layers[l].prec == IR_PREC_INT8;
        n_float += g->layers[l].prec == IR_PREC_FLOAT;
        conv = g->layers[l].op == IR_OP_CONV ? l : conv;
    }
    CHECK_EQ_INT(n_float, 0);
    CHECK(n_int >= 3);  /* quantize boundary, conv (Relu fused), dequantize boundary */
    CHECK(conv >= 0);
    if (conv >= 0) {
        const IrLayer *L = &g->layers[conv];
        const IrTensor *X = &g->tensors[L->in[0]], *Wt = &g->tensors[L->in[1]], *Y = &g->tensors[L->out[0]];
        CHECK(L->act.kind == IR_ACT_RELU);
        CHECK(X->quant && X->quant->scale[0] == 0.02f && X->quant->zero[0] == 0);    /* 128 - 128 */
        CHECK(Y->quant && Y->quant->scale[0] == 0.05f && Y->quant->zero[0] == -128); /* 0 - 128 */
        CHECK(Wt->dtype == IR_DT_INT8 && !memcmp(ir_tensor_data(g, L->in[1]), wq, sizeof wq));
        CHECK(Wt->quant && Wt->quant->n == F && Wt->quant->scale[1] == sw[1]);
    }
    const float *in = x;
    float *out = y;
    CHECK(pass_quant_eval(g, &in, &out, NULL, NULL, &d) == 0);
    /* the fake-quantized float computation */
    int bad = 0;
    for (int f = 0; f < F; f++)
        for (int i = 0; i < H; i++)
            for (int j = 0; j < W; j++) {
                double acc = bq[f] * (double)(0.02f * sw[f]);
                for (int ch = 0; ch < C; ch++)
                    for (int ki = 0; ki < 3; ki++)
                        for (int kj = 0; kj < 3; kj++) {
                            int ii = i + ki - 1, jj = j + kj - 1;
                            if (ii < 0 || ii >= H || jj < 0 || jj >= W)
                                continue;
                            double q = nearbyint(x[(ch * H + ii) * W + jj] / 0.02f) + 128;
                            q = q < 0 ? 0 : q > 255 ? 255 : q;
                            acc += (q - 128) * 0.02 * wq[((f * C + ch) * 3 + ki) * 3 + kj] * sw[f];
                        }
                double want = fmin(fmax(nearbyint(fmax(acc, 0) / 0.05), 0), 255) * 0.05;
                bad += fabs(y[(f * H + i) * W + j] - want) > 0.05 * 1.0001;
            }
    CHECK_EQ_INT(bad, 0);
    if (d.n_errors)
        diag_print(&d, stderr);
    diag_free(&d);
    ir_graph_free(g);
    return check_done();
}
