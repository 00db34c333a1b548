/* test_pass_eval.h - a plain reference evaluator of the IR and a small graph
 * builder, for the pass and prune tests.
 *
 * Why: a pass is only right if the graph computes the same function after
 * it (or, for pruning dead channels, exactly the same outputs). The tests
 * build graphs by hand, run them here before and after a pass and compare.
 * The evaluator is deliberately naive (direct loops, double accumulators)
 * and independent of the runtime kernels, so it checks the passes rather
 * than reusing the code under test. It covers the ops the passes touch.
 */
#ifndef ONNX2HLS_TEST_PASS_EVAL_H
#define ONNX2HLS_TEST_PASS_EVAL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

/* ------------------------------------------------------------ builder */

static inline uint32_t tb_rand(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* uniform in [-1, 1) */
static inline float tb_uniform(uint32_t *s)
{
    return (float)tb_rand(s) / (float)(1u << 23) - 1.0f;
}

static inline int tb_input(IrGraph *g, const char *name, int rank, const int64_t *dims)
{
    int t = ir_tensor_add(g, name, IR_DT_FLOAT, rank, dims);
    g->tensors[t].kind = IR_T_INPUT;
    g->inputs[g->n_inputs++] = t;
    return t;
}

static inline void tb_output(IrGraph *g, int t)
{
    g->tensors[t].is_output = true;
    g->outputs[g->n_outputs++] = t;
}

/* constant with values lo + (hi-lo)*u, u uniform in [0,1) */
static inline int tb_const(IrGraph *g, const char *name, int rank, const int64_t *dims, uint32_t *seed, float lo,
                           float hi)
{
    void *p;
    int t = ir_const_add(g, name, IR_DT_FLOAT, rank, dims, &p);
    float *f = p;
    int64_t n = ir_tensor_numel(&g->tensors[t]);
    for (int64_t i = 0; i < n; i++)
        f[i] = lo + (hi - lo) * (tb_uniform(seed) * 0.5f + 0.5f);
    return t;
}

static inline int tb_scalar(IrGraph *g, const char *name, float v)
{
    void *p;
    int t = ir_const_add(g, name, IR_DT_FLOAT, 0, NULL, &p);
    *(float *)p = v;
    return t;
}

/* a layer reading ins and writing one new tensor named "<name>_out" */
static inline int tb_layer(IrGraph *g, IrOp op, const char *name, const int *ins, int n_in, int rank,
                           const int64_t *dims)
{
    int l = ir_layer_add(g, op, name);
    char tn[256];
    snprintf(tn, sizeof tn, "%s_out", g->layers[l].name);
    int t = ir_tensor_add(g, tn, IR_DT_FLOAT, rank, dims);
    IrLayer *L = &g->layers[l];
    for (int i = 0; i < n_in; i++)
        L->in[i] = ins[i];
    L->n_in = n_in;
    L->out[0] = t;
    L->n_out = 1;
    g->tensors[t].producer = l;
    return l;
}

static inline int tb_out(const IrGraph *g, int l)
{
    return g->layers[l].out[0];
}

/* unary op on x (same shape) */
static inline int tb_unary(IrGraph *g, IrOp op, const char *name, int x, float alpha, float beta)
{
    const IrTensor *X = &g->tensors[x];
    int64_t dims[IR_MAX_RANK];
    memcpy(dims, X->dims, sizeof dims);
    int l = tb_layer(g, op, name, &x, 1, X->rank, dims);
    g->layers[l].attr.act.alpha = alpha;
    g->layers[l].attr.act.beta = beta;
    return tb_out(g, l);
}

/* binary op, output shaped like the larger-rank/larger operand a */
static inline int tb_binary(IrGraph *g, IrOp op, const char *name, int a, int b)
{
    const IrTensor *A = &g->tensors[a], *B = &g->tensors[b];
    bool a_big = A->rank != B->rank ? A->rank > B->rank : ir_tensor_numel(A) >= ir_tensor_numel(B);
    const IrTensor *big = a_big ? A : B;
    int64_t dims[IR_MAX_RANK];
    memcpy(dims, big->dims, sizeof dims);
    int ins[2] = {a, b};
    return tb_out(g, tb_layer(g, op, name, ins, 2, big->rank, dims));
}

/* 2-D conv with square kernel k, stride s, pad p; random weights (and bias) */
static inline int tb_conv(IrGraph *g, const char *name, int x, int64_t F, int64_t k, int64_t s, int64_t p,
                          int64_t group, int bias, uint32_t *seed)
{
    const IrTensor *X = &g->tensors[x];
    int64_t N = X->dims[0], C = X->dims[1], H = X->dims[2], W = X->dims[3];
    int64_t wd[4] = {F, C / group, k, k};
    char wn[256], bn[256];
    snprintf(wn, sizeof wn, "%s_w", name);
    snprintf(bn, sizeof bn, "%s_b", name);
    float sc = 1.0f / sqrtf((float)(C / group * k * k));
    int w = tb_const(g, wn, 4, wd, seed, -sc, sc);
    int ins[3] = {x, w, -1};
    if (bias)
        ins[2] = tb_const(g, bn, 1, &F, seed, -0.2f, 0.2f);
    int64_t od[4] = {N, F, (H + 2 * p - k) / s + 1, (W + 2 * p - k) / s + 1};
    int l = tb_layer(g, IR_OP_CONV, name, ins, bias ? 3 : 2, 4, od);
    IrConvAttr *a = &g->layers[l].attr.conv;
    a->nsp = 2;
    for (int i = 0; i < 2; i++) {
        a->kernel[i] = k;
        a->stride[i] = s;
        a->dilation[i] = 1;
        a->pad_begin[i] = a->pad_end[i] = p;
    }
    a->group = group;
    a->cls = group == 1 ? (k == 1 ? IR_CONV_POINTWISE : IR_CONV_STANDARD)
                        : (group == C ? IR_CONV_DEPTHWISE : IR_CONV_GROUPED);
    return tb_out(g, l);
}

/* BatchNormalization with random statistics */
static inline int tb_bn(IrGraph *g, const char *name, int x, uint32_t *seed)
{
    int64_t C = g->tensors[x].dims[1];
    char n[4][256];
    const char *sfx[4] = {"_gamma", "_beta", "_mean", "_var"};
    for (int i = 0; i < 4; i++)
        snprintf(n[i], sizeof n[i], "%s%s", name, sfx[i]);
    int ins[5] = {x, tb_const(g, n[0], 1, &C, seed, 0.5f, 1.5f), tb_const(g, n[1], 1, &C, seed, -0.2f, 0.2f),
                  tb_const(g, n[2], 1, &C, seed, -0.2f, 0.2f), tb_const(g, n[3], 1, &C, seed, 0.5f, 2.0f)};
    const IrTensor *X = &g->tensors[x];
    int64_t dims[IR_MAX_RANK];
    memcpy(dims, X->dims, sizeof dims);
    int l = tb_layer(g, IR_OP_BATCHNORM, name, ins, 5, X->rank, dims);
    g->layers[l].attr.norm.epsilon = 1e-5f;
    return tb_out(g, l);
}

static inline int tb_gap(IrGraph *g, const char *name, int x)
{
    const IrTensor *X = &g->tensors[x];
    int64_t od[4] = {X->dims[0], X->dims[1], 1, 1};
    return tb_out(g, tb_layer(g, IR_OP_GLOBAL_AVGPOOL, name, &x, 1, 4, od));
}

static inline int tb_flatten(IrGraph *g, const char *name, int x)
{
    const IrTensor *X = &g->tensors[x];
    int64_t od[2] = {X->dims[0], ir_tensor_numel(X) / X->dims[0]};
    int l = tb_layer(g, IR_OP_FLATTEN, name, &x, 1, 2, od);
    g->layers[l].attr.axis.axis = 1;
    return tb_out(g, l);
}

/* Gemm y = x * W^T + b with W [F, K] */
static inline int tb_fc(IrGraph *g, const char *name, int x, int64_t F, uint32_t *seed)
{
    int64_t K = g->tensors[x].dims[1], M = g->tensors[x].dims[0];
    int64_t wd[2] = {F, K};
    char wn[256], bn[256];
    snprintf(wn, sizeof wn, "%s_w", name);
    snprintf(bn, sizeof bn, "%s_b", name);
    int ins[3] = {x, tb_const(g, wn, 2, wd, seed, -0.3f, 0.3f), tb_const(g, bn, 1, &F, seed, -0.1f, 0.1f)};
    int64_t od[2] = {M, F};
    int l = tb_layer(g, IR_OP_GEMM, name, ins, 3, 2, od);
    g->layers[l].attr.gemm = (IrGemmAttr){false, true, 1.0f, 1.0f};
    return tb_out(g, l);
}

/* ---------------------------------------------------------- evaluator */

typedef struct {
    IrGraph *g;
    float **v;     /* per tensor: values (constants point at their data) */
    int n;
} Eval;

static inline double ev_act(IrActKind k, double a, double b, double x, double slope)
{
    switch (k) {
    case IR_ACT_NONE: return x;
    case IR_ACT_RELU: return x > 0 ? x : 0;
    case IR_ACT_CLIP: return x < a ? a : (x > b ? b : x);
    case IR_ACT_LEAKY_RELU: return x < 0 ? a * x : x;
    case IR_ACT_PRELU: return x < 0 ? slope * x : x;
    case IR_ACT_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case IR_ACT_HARD_SIGMOID: return fmax(0.0, fmin(1.0, a * x + b));
    case IR_ACT_HARD_SWISH: return x * fmax(0.0, fmin(1.0, x / 6.0 + 0.5));
    case IR_ACT_SILU: return x / (1.0 + exp(-x));
    case IR_ACT_TANH: return tanh(x);
    case IR_ACT_ELU: return x < 0 ? a * (exp(x) - 1.0) : x;
    case IR_ACT_MISH: return x * tanh(log1p(exp(x)));
    case IR_ACT_COUNT: break;
    }
    return x;
}


static inline const IrTensor *ev_t(const Eval *e, int t)
{
    return &e->g->tensors[t];
}

static inline int64_t ev_inner(const IrTensor *T)
{
    int64_t n = 1;
    for (int i = 2; i < T->rank; i++)
        n *= T->dims[i];
    return n;
}

/* --- conv (1-D or 2-D) */
static inline void ev_conv(Eval *e, const IrLayer *L, float *y)
{
    const IrTensor *X = ev_t(e, L->in[0]), *Y = ev_t(e, L->out[0]), *Wt = ev_t(e, L->in[1]);
    const float *x = e->v[L->in[0]], *w = e->v[L->in[1]];
    const float *b = L->n_in >= 3 && L->in[2] >= 0 ? e->v[L->in[2]] : NULL;
    const IrConvAttr *a = &L->attr.conv;
    int two = a->nsp == 2;
    int64_t N = X->dims[0], C = X->dims[1], H = two ? X->dims[2] : 1, W = X->dims[X->rank - 1];
    int64_t F = Y->dims[1], HO = two ? Y->dims[2] : 1, WO = Y->dims[Y->rank - 1];
    int64_t KH = two ? Wt->dims[2] : 1, KW = Wt->dims[Wt->rank - 1], G = a->group, Cg = C / G;
    int64_t SH = two ? a->stride[0] : 1, SW = a->stride[two], DH = two ? a->dilation[0] : 1, DW = a->dilation[two];
    int64_t PT = two ? a->pad_begin[0] : 0, PL = a->pad_begin[two];
    for (int64_t n = 0; n < N; n++)
        for (int64_t f = 0; f < F; f++)
            for (int64_t oy = 0; oy < HO; oy++)
                for (int64_t ox = 0; ox < WO; ox++) {
                    double acc = b ? b[f] : 0.0;
                    int64_t c0 = f / (F / G) * Cg;
                    for (int64_t ci = 0; ci < Cg; ci++)
                        for (int64_t ky = 0; ky < KH; ky++)
                            for (int64_t kx = 0; kx < KW; kx++) {
                                int64_t iy = oy * SH - PT + ky * DH, ix = ox * SW - PL + kx * DW;
                                if (iy < 0 || iy >= H || ix < 0 || ix >= W)
                                    continue;
                                acc += (double)x[((n * C + c0 + ci) * H + iy) * W + ix] *
                                       w[((f * Cg + ci) * KH + ky) * KW + kx];
                            }
                    y[((n * F + f) * HO + oy) * WO + ox] = (float)acc;
                }
}

/* --- gemm / matmul */
static inline void ev_gemm(Eval *e, const IrLayer *L, float *y)
{
    const IrTensor *A = ev_t(e, L->in[0]), *B = ev_t(e, L->in[1]), *Y = ev_t(e, L->out[0]);
    const float *a = e->v[L->in[0]], *b = e->v[L->in[1]];
    bool gemm = L->op == IR_OP_GEMM;
    bool ta = gemm && L->attr.gemm.trans_a, tbb = gemm && L->attr.gemm.trans_b;
    double alpha = gemm ? L->attr.gemm.alpha : 1, beta = gemm ? L->attr.gemm.beta : 1;
    int64_t N = Y->dims[Y->rank - 1], M = ir_tensor_numel(Y) / N;
    int64_t K = ta ? A->dims[0] : A->dims[A->rank - 1];
    const float *c = gemm && L->n_in >= 3 && L->in[2] >= 0 ? e->v[L->in[2]] : NULL;
    const IrTensor *Ct = c ? ev_t(e, L->in[2]) : NULL;
    (void)B;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double acc = 0;
            for (int64_t k = 0; k < K; k++)
                acc += (double)(ta ? a[k * M + i] : a[i * K + k]) * (tbb ? b[j * K + k] : b[k * N + j]);
            double cv = 0;
            if (c) {
                int64_t cn = ir_tensor_numel(Ct);
                if (cn == 1)
                    cv = c[0];
                else if (Ct->rank == 1)
                    cv = c[j];
                else
                    cv = c[(Ct->dims[0] == 1 ? 0 : i) * Ct->dims[1] + (Ct->dims[1] == 1 ? 0 : j)];
            }
            y[i * N + j] = (float)(alpha * acc + beta * cv);
        }
}

/* --- batch norm */
static inline void ev_bn(Eval *e, const IrLayer *L, float *y)
{
    const IrTensor *X = ev_t(e, L->in[0]);
    const float *x = e->v[L->in[0]], *s = e->v[L->in[1]], *b = e->v[L->in[2]], *m = e->v[L->in[3]],
                *var = e->v[L->in[4]];
    int64_t C = X->dims[1], in = ev_inner(X), n = ir_tensor_numel(X);
    for (int64_t i = 0; i < n; i++) {
        int64_t c = (i / in) % C;
        y[i] = (float)((x[i] - m[c]) / sqrt((double)var[c] + L->attr.norm.epsilon) * s[c] + b[c]);
    }
}

/* --- broadcasting binary */
static inline int64_t ev_bcast_index(const IrTensor *T, const IrTensor *Y, int64_t flat)
{
    int64_t idx = 0, stride = 1;
    for (int d = Y->rank - 1, k = T->rank - 1; d >= 0; d--, k--) {
        int64_t coord = flat % Y->dims[d];
        flat /= Y->dims[d];
        if (k < 0)
            continue;
        if (T->dims[k] != 1)
            idx += coord * stride;
        stride *= T->dims[k];
    }
    return idx;
}

static inline void ev_binary(Eval *e, const IrLayer *L, float *y)
{
    const IrTensor *A = ev_t(e, L->in[0]), *B = ev_t(e, L->in[1]), *Y = ev_t(e, L->out[0]);
    const float *a = e->v[L->in[0]], *b = e->v[L->in[1]];
    int64_t n = ir_tensor_numel(Y);
    for (int64_t i = 0; i < n; i++) {
        double u = a[ev_bcast_index(A, Y, i)], v = b[ev_bcast_index(B, Y, i)], r = 0;
        switch (L->op) {
        case IR_OP_ADD: r = u + v; break;
        case IR_OP_SUB: r = u - v; break;
        case IR_OP_MUL: r = u * v; break;
        case IR_OP_DIV: r = u / v; break;
        case IR_OP_MAX: r = u > v ? u : v; break;
        case IR_OP_MIN: r = u < v ? u : v; break;
        case IR_OP_PRELU: r = u < 0 ? u * v : u; break;
        default: break;
        }
        y[i] = (float)r;
    }
}

/* --- pools */
static inline void ev_pool(Eval *e, const IrLayer *L, float *y)
{
    const IrTensor *X = ev_t(e, L->in[0]), *Y = ev_t(e, L->out[0]);
    const float *x = e->v[L->in[0]];
    const IrPoolAttr *a = &L->attr.pool;
    int64_t NC = X->dims[0] * X->dims[1], H = X->dims[2], W = X->dims[3], HO = Y->dims[2], WO = Y->dims[3];
    for (int64_t p = 0; p < NC; p++)
        for (int64_t oy = 0; oy < HO; oy++)
            for (int64_t ox = 0; ox < WO; ox++) {
                double acc = L->op == IR_OP_MAXPOOL ? -INFINITY : 0;
                int64_t cnt = 0;
                for (int64_t ky = 0; ky < a->kernel[0]; ky++)
                    for (int64_t kx = 0; kx < a->kernel[1]; kx++) {
                        int64_t iy = oy * a->stride[0] - a->pad_begin[0] + ky;
                        int64_t ix = ox * a->stride[1] - a->pad_begin[1] + kx;
                        bool in = iy >= 0 && iy < H && ix >= 0 && ix < W;
                        bool padded = iy >= -a->pad_begin[0] && iy < H + a->pad_end[0] &&
                                      ix >= -a->pad_begin[1] && ix < W + a->pad_end[1];
                        if (in) {
                            double v = x[(p * H + iy) * W + ix];
                            acc = L->op == IR_OP_MAXPOOL ? fmax(acc, v) : acc + v;
                        }
                        cnt += in || (padded && a->count_include_pad);
                    }
                y[(p * HO + oy) * WO + ox] = (float)(L->op == IR_OP_MAXPOOL ? acc : acc / (double)cnt);
            }
}

static inline void ev_global(Eval *e, const IrLayer *L, float *y)
{
    const IrTensor *X = ev_t(e, L->in[0]);
    const float *x = e->v[L->in[0]];
    int64_t NC = X->dims[0] * X->dims[1], HW = ev_inner(X);
    for (int64_t p = 0; p < NC; p++) {
        double acc = L->op == IR_OP_GLOBAL_MAXPOOL ? -INFINITY : 0;
        for (int64_t i = 0; i < HW; i++)
            acc = L->op == IR_OP_GLOBAL_MAXPOOL ? fmax(acc, x[p * HW + i]) : acc + x[p * HW + i];
        y[p] = (float)(L->op == IR_OP_GLOBAL_MAXPOOL ? acc : acc / (double)HW);
    }
}

/* --- pad (constant) and concat */
static inline void ev_pad(Eval *e, const IrLayer *L, float *y)
{
    const IrTensor *X = ev_t(e, L->in[0]), *Y = ev_t(e, L->out[0]);
    const float *x = e->v[L->in[0]];
    int64_t n = ir_tensor_numel(Y);
    for (int64_t i = 0; i < n; i++) {
        int64_t f = i, src = 0, stride = 1;
        bool in = true;
        for (int d = Y->rank - 1; d >= 0; d--) {
            int64_t c = f % Y->dims[d] - L->attr.pad.begin[d];
            f /= Y->dims[d];
            in = in && c >= 0 && c < X->dims[d];
            src += c * stride;
            stride *= X->dims[d];
        }
        y[i] = in ? x[src] : L->attr.pad.value;
    }
}

static inline void ev_concat(Eval *e, const IrLayer *L, float *y)
{
    const IrTensor *Y = ev_t(e, L->out[0]);
    int ax = (int)(L->attr.axis.axis < 0 ? L->attr.axis.axis + Y->rank : L->attr.axis.axis);
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < ax; i++)
        outer *= Y->dims[i];
    for (int i = ax + 1; i < Y->rank; i++)
        inner *= Y->dims[i];
    int64_t off = 0;
    for (int k = 0; k < L->n_in; k++) {
        int64_t dk = ev_t(e, L->in[k])->dims[ax];
        for (int64_t o = 0; o < outer; o++)
            memcpy(y + (o * Y->dims[ax] + off) * inner, e->v[L->in[k]] + o * dk * inner,
                   sizeof(float) * (size_t)(dk * inner));
        off += dk;
    }
}

/* --- transpose, gather (constant int64 indices) */
static inline void ev_transpose(Eval *e, const IrLayer *L, float *y)
{
    const IrTensor *X = ev_t(e, L->in[0]), *Y = ev_t(e, L->out[0]);
    int64_t n = ir_tensor_numel(Y), st[IR_MAX_RANK], s = 1;
    for (int d = X->rank - 1; d >= 0; d--)
        st[d] = s, s *= X->dims[d];
    for (int64_t i = 0; i < n; i++) {
        int64_t f = i, src = 0;
        for (int d = Y->rank - 1; d >= 0; d--) {
            src += f % Y->dims[d] * st[L->attr.axes.perm[d]];
            f /= Y->dims[d];
        }
        y[i] = e->v[L->in[0]][src];
    }
}

static inline void ev_gather(Eval *e, const IrLayer *L, float *y)
{
    const IrTensor *X = ev_t(e, L->in[0]);
    const int64_t *idx = ir_tensor_data(e->g, L->in[1]);
    int ax = (int)L->attr.axis.axis;
    int64_t outer = 1, inner = 1, n = ir_tensor_numel(ev_t(e, L->in[1]));
    for (int i = 0; i < ax; i++)
        outer *= X->dims[i];
    for (int i = ax + 1; i < X->rank; i++)
        inner *= X->dims[i];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < n; j++)
            memcpy(y + (o * n + j) * inner, e->v[L->in[0]] + (o * X->dims[ax] + idx[j]) * inner,
                   sizeof(float) * (size_t)inner);
}

/* --- epilogue: residual, then activation */
static inline void ev_epilogue(Eval *e, const IrLayer *L, float *y)
{
    const IrTensor *Y = ev_t(e, L->out[0]);
    int64_t n = ir_tensor_numel(Y), C = Y->rank >= 2 ? Y->dims[1] : 1, in = ev_inner(Y);
    const float *r = L->residual >= 0 ? e->v[L->residual] : NULL;
    const float *s = L->act_slope >= 0 ? e->v[L->act_slope] : NULL;
    int64_t ns = s ? ir_tensor_numel(ev_t(e, L->act_slope)) : 0;
    for (int64_t i = 0; i < n; i++) {
        double v = y[i] + (r ? r[i] : 0.0f);
        double sl = s ? s[ns == 1 ? 0 : (i / in) % C] : 0.0;
        y[i] = (float)ev_act(L->act.kind, L->act.alpha, L->act.beta, v, sl);
    }
}

/* the evaluator computes L exactly as ONNX does (float tensors, the
 * geometries the loops above implement) */
static inline bool ev_supported(const Eval *e, const IrLayer *L)
{
    if (L->n_out != 1 || L->out[0] < 0 || ev_t(e, L->out[0])->dtype != IR_DT_FLOAT)
        return false;
    for (int i = 0; i < L->n_in; i++)   /* a Gather's indices: int64 constants */
        if (L->in[i] < 0 || (ev_t(e, L->in[i])->dtype != IR_DT_FLOAT &&
                             !(L->op == IR_OP_GATHER && i == 1 && ev_t(e, L->in[i])->dtype == IR_DT_INT64 &&
                               ev_t(e, L->in[i])->kind == IR_T_CONST && ev_t(e, L->in[i])->rank == 1)))
            return false;
    switch (L->op) {
    case IR_OP_CONV:
        return L->n_in >= 2 && (L->attr.conv.nsp == 1 || L->attr.conv.nsp == 2) &&
               ev_t(e, L->in[0])->rank == L->attr.conv.nsp + 2;
    case IR_OP_GEMM:
        return L->n_in >= 2 && ev_t(e, L->in[0])->rank == 2 && ev_t(e, L->in[1])->rank == 2;
    case IR_OP_MATMUL:
        return L->n_in == 2 && ev_t(e, L->in[0])->rank >= 2 && ev_t(e, L->in[1])->rank == 2;
    case IR_OP_BATCHNORM:
        return L->n_in == 5 && ev_t(e, L->in[0])->rank >= 2;
    case IR_OP_MAXPOOL: case IR_OP_AVGPOOL: {
        const IrPoolAttr *a = &L->attr.pool;
        return a->nsp == 2 && !a->ceil_mode && a->dilation[0] == 1 && a->dilation[1] == 1 &&
               ev_t(e, L->in[0])->rank == 4;
    }
    case IR_OP_GLOBAL_AVGPOOL: case IR_OP_GLOBAL_MAXPOOL:
        return ev_t(e, L->in[0])->rank >= 3;
    case IR_OP_PAD:
        return L->attr.pad.mode == IR_PAD_CONSTANT;
    case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_MAX: case IR_OP_MIN:
    case IR_OP_PRELU:
        return L->n_in == 2;
    default:
        return L->n_in >= 1;
    }
}

/* Run layer l; -1 for an op the evaluator does not know. */
static inline int ev_layer(Eval *e, int l)
{
    const IrLayer *L = &e->g->layers[l];
    if (!ev_supported(e, L))
        return -1;
    int out = L->out[0];
    int64_t n = ir_tensor_numel(ev_t(e, out));
    float *y = calloc((size_t)(n > 0 ? n : 1), sizeof(float));
    e->v[out] = y;
    switch (L->op) {
    case IR_OP_CONV: ev_conv(e, L, y); break;
    case IR_OP_GEMM: case IR_OP_MATMUL: ev_gemm(e, L, y); break;
    case IR_OP_BATCHNORM: ev_bn(e, L, y); break;
    case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_MAX: case IR_OP_MIN:
    case IR_OP_PRELU:
        ev_binary(e, L, y);
        break;
    case IR_OP_MAXPOOL: case IR_OP_AVGPOOL: ev_pool(e, L, y); break;
    case IR_OP_GLOBAL_AVGPOOL: case IR_OP_GLOBAL_MAXPOOL: ev_global(e, L, y); break;
    case IR_OP_FLATTEN: case IR_OP_RESHAPE: case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE: case IR_OP_IDENTITY:
    case IR_OP_DROPOUT:
        memcpy(y, e->v[L->in[0]], sizeof(float) * (size_t)n);
        break;
    case IR_OP_PAD: ev_pad(e, L, y); break;
    case IR_OP_CONCAT: ev_concat(e, L, y); break;
    case IR_OP_TRANSPOSE: ev_transpose(e, L, y); break;
    case IR_OP_GATHER: ev_gather(e, L, y); break;
    case IR_OP_SOFTPLUS:  /* Mish spelled out: x * Tanh(Softplus(x)) */
        for (int64_t i = 0; i < n; i++)
            y[i] = (float)log1p(exp(e->v[L->in[0]][i]));
        break;
    default: {
        IrActKind k = ir_op_act(L->op);
        if (k == IR_ACT_NONE)
            return -1;
        const float *x = e->v[L->in[0]];
        for (int64_t i = 0; i < n; i++)
            y[i] = (float)ev_act(k, L->attr.act.alpha, L->attr.act.beta, x[i], 0);
    }
    }
    ev_epilogue(e, L, y);
    return 0;
}

static inline void ev_free(Eval *e)
{
    for (int t = 0; t < e->n; t++)
        if (e->g->tensors[t].kind == IR_T_ACT)
            free(e->v[t]);
    free(e->v);
}

/* Evaluate g on inputs (one array per graph input) and return a malloc'd
 * copy of output 0 (*n its length), NULL when an op is not supported. */
static inline float *ev_run(IrGraph *g, const float *const *inputs, int64_t *n)
{
    Eval e = {g, calloc((size_t)g->n_tensors + 1, sizeof(float *)), g->n_tensors};
    for (int t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].kind == IR_T_CONST)
            e.v[t] = ir_tensor_data(g, t);
    for (int i = 0; i < g->n_inputs; i++)
        e.v[g->inputs[i]] = (float *)inputs[i];
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead && ev_layer(&e, l)) {
            ev_free(&e);
            return NULL;
        }
    int o = g->outputs[0];
    *n = ir_tensor_numel(&g->tensors[o]);
    float *r = malloc(sizeof(float) * (size_t)*n);
    memcpy(r, e.v[o], sizeof(float) * (size_t)*n);
    ev_free(&e);
    return r;
}

/* max |a-b| / max(max|a|, tiny) */
static inline double ev_rel_err(const float *a, const float *b, int64_t n)
{
    double m = 0, d = 0;
    for (int64_t i = 0; i < n; i++) {
        m = fmax(m, fabs(a[i]));
        d = fmax(d, fabs((double)a[i] - b[i]));
    }
    return d / (m > 1e-30 ? m : 1e-30);
}

static inline float *ev_random_input(IrGraph *g, int i, uint32_t *seed)
{
    int64_t n = ir_tensor_numel(&g->tensors[g->inputs[i]]);
    float *x = malloc(sizeof(float) * (size_t)n);
    for (int64_t k = 0; k < n; k++)
        x[k] = tb_uniform(seed);
    return x;
}

#endif
