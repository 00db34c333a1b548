/* fold_bn_next.c - pass fold_bn_next: fold a BatchNormalization that could
 * not go into its producer into the convolutions that read it.
 *
 * Contract
 *   requires: fold_bn has run (only BNs it could not fold are left); shapes
 *             known; BN parameters and conv weights are float constants.
 *   provides: a BN y = s*x + t (per input channel c) whose every reader is a
 *             Conv taking y as its data input is gone, when exact:
 *               W'[f][c] = W[f][c]*s[c],  b'[f] = b[f] + sum_{c,k} W[f][c][k]*t[c]
 *             The bias term is only right where the window sees no padding:
 *             a conv with non-zero pads pads x with zeros where the original
 *             padded BN(x) with zeros, i.e. x with -t/s. So a conv with
 *             padding takes the fold only when every t[c] is exactly 0;
 *             otherwise the BN stays standalone (fuse_act may still give it
 *             an activation).
 *   breaks:   nothing; new constants per conv.
 */
#include "passes.h"
#include "pass_util.h"

#include <stdlib.h>

#define MAX_CONSUMERS 16

static bool has_pads(const IrConvAttr *a)
{
    for (int i = 0; i < a->nsp; i++)
        if (a->pad_begin[i] || a->pad_end[i])
            return true;
    return false;
}

static bool shift_zero(const double *t, int64_t C)
{
    for (int64_t c = 0; c < C; c++)
        if (t[c] != 0.0)
            return false;
    return true;
}

static bool conv_ok(IrGraph *g, const IrLayer *L, int y, int64_t C, const double *t)
{
    if (L->op != IR_OP_CONV || L->n_in < 2 || L->in[0] != y || L->in[1] == y || L->residual == y ||
        L->act_slope == y || (L->n_in >= 3 && L->in[2] == y))
        return false;
    const IrConvAttr *a = &L->attr.conv;
    if (a->group < 1 || C % a->group || !pass_const_f32(g, L->in[1]))
        return false;
    const IrTensor *W = &g->tensors[L->in[1]];
    if (W->rank < 3 || W->dims[1] != C / a->group || W->dims[0] % a->group)
        return false;
    if (L->n_in >= 3 && L->in[2] >= 0 &&
        (!pass_const_f32(g, L->in[2]) || ir_tensor_numel(&g->tensors[L->in[2]]) != W->dims[0]))
        return false;
    return !has_pads(a) || shift_zero(t, C);
}

static void fold_into(IrGraph *g, int l, int x, const double *s, const double *t)
{
    IrLayer *L = &g->layers[l];
    const IrTensor *W = &g->tensors[L->in[1]];
    int64_t F = W->dims[0], Cg = W->dims[1], G = L->attr.conv.group;
    int64_t k = ir_tensor_numel(W) / (F * Cg);
    const float *w = pass_const_f32(g, L->in[1]);
    const float *b = L->n_in >= 3 && L->in[2] >= 0 ? pass_const_f32(g, L->in[2]) : NULL;
    float *nw, *nb;
    int tw = pass_new_const_f32(g, W->name, "_bnin", W->rank, W->dims, &nw);
    int tb = pass_new_const_f32(g, L->name, "_bias_bnin", 1, &F, &nb);
    for (int64_t f = 0; f < F; f++) {
        double acc = b ? b[f] : 0.0;
        int64_t c0 = (f / (F / G)) * Cg;
        for (int64_t ci = 0; ci < Cg; ci++)
            for (int64_t j = 0; j < k; j++) {
                int64_t idx = (f * Cg + ci) * k + j;
                nw[idx] = (float)(w[idx] * s[c0 + ci]);
                acc += w[idx] * t[c0 + ci];
            }
        nb[f] = (float)acc;
    }
    ir_set_use(g, l, &L->in[0], x);
    L->in[1] = tw;
    L->in[2] = tb;
    L->n_in = 3;
}

static int fold_one(IrGraph *g, int b, double *s, double *t)
{
    IrLayer *B = &g->layers[b];
    if (!pass_no_epilogue(B) || B->n_in != 5 || !pass_single_output(g, b))
        return 0;
    int x = B->in[0], y = B->out[0];
    if (!pass_tensor_ok(g, x) || g->tensors[x].rank < 3 || pass_is_graph_output(g, y))
        return 0;
    int64_t C = g->tensors[x].dims[1];
    if (pass_bn_coeffs(g, B, C, s, t))
        return 0;
    int cons[MAX_CONSUMERS];
    int nc = pass_consumers(g, y, cons, MAX_CONSUMERS);
    if (nc < 1 || nc > MAX_CONSUMERS)
        return 0;
    for (int i = 0; i < nc; i++)
        if (!conv_ok(g, &g->layers[cons[i]], y, C, t))
            return 0;
    for (int i = 0; i < nc; i++) {
        fold_into(g, cons[i], x, s, t);
        pass_merge_origin(g, cons[i], b);
    }
    pass_kill(g, b);
    return 1;
}

int pass_fold_bn_next(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    (void)d;
    int n = 0;
    for (int l = 0; l < g->n_layers; l++) {
        IrLayer *B = &g->layers[l];
        if (B->dead || B->op != IR_OP_BATCHNORM || B->n_in < 1 || !pass_tensor_ok(g, B->in[0]))
            continue;
        int64_t C = g->tensors[B->in[0]].rank >= 2 ? g->tensors[B->in[0]].dims[1] : 0;
        if (C < 1)
            continue;
        double *s = malloc(sizeof(double) * (size_t)C * 2);
        if (!s)
            continue;
        n += fold_one(g, l, s, s + C);
        free(s);
    }
    return n;
}
