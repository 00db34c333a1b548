/* fold_bn.c - pass fold_bn: fold an inference BatchNormalization into the
 * Conv or Gemm that produces its input.
 *
 * Contract
 *   requires: shapes known; BN parameters are float constants.
 *   provides: a BN whose input comes from a Conv (any group) or a Gemm with
 *             constant B, with no fused epilogue and no other reader of its
 *             result, is gone. With s = scale/sqrt(var+eps) and
 *             t = bias - mean*s per output channel:
 *               Conv: W'[f] = s[f]*W[f], b'[f] = s[f]*b[f] + t[f]
 *               Gemm: op(B)'[:,n] = s[n]*op(B)[:,n], C' = s*beta*C + t, beta' = 1
 *             (bias created when absent). The producer writes the BN's
 *             output tensor.
 *   breaks:   nothing. New constants are always created (arithmetic in
 *             double, rounded once), since the old ones may be shared by
 *             other layers; unused ones disappear at compaction.
 *
 * A BN that cannot go backwards is left for fold_bn_next (into the
 * following conv) and otherwise stays standalone.
 */
#include "passes.h"
#include "pass_util.h"

#include <stdlib.h>

/* -------------------------------------------------------------- conv */

static bool conv_ok(IrGraph *g, const IrLayer *P, int64_t C)
{
    if (P->op != IR_OP_CONV || P->n_in < 2 || !pass_const_f32(g, P->in[1]))
        return false;
    const IrTensor *w = &g->tensors[P->in[1]];
    if (w->rank < 3 || w->dims[0] != C)
        return false;
    return P->n_in < 3 || P->in[2] < 0 || (pass_const_f32(g, P->in[2]) && ir_tensor_numel(&g->tensors[P->in[2]]) == C);
}

static void fold_conv(IrGraph *g, int p, const double *s, const double *t, int64_t C)
{
    IrLayer *P = &g->layers[p];
    const IrTensor *W = &g->tensors[P->in[1]];
    int64_t per = ir_tensor_numel(W) / C;
    const float *w = pass_const_f32(g, P->in[1]);
    const float *b = P->n_in >= 3 && P->in[2] >= 0 ? pass_const_f32(g, P->in[2]) : NULL;
    float *nw, *nb;
    int tw = pass_new_const_f32(g, W->name, "_bn", W->rank, W->dims, &nw);
    int tb = pass_new_const_f32(g, P->name, "_bias_bn", 1, &C, &nb);
    w = pass_const_f32(g, P->in[1]); /* the tensor array may have moved */
    for (int64_t f = 0; f < C; f++) {
        for (int64_t k = 0; k < per; k++)
            nw[f * per + k] = (float)(s[f] * w[f * per + k]);
        nb[f] = (float)(s[f] * (b ? b[f] : 0.0) + t[f]);
    }
    P->in[1] = tw;
    P->in[2] = tb;
    P->n_in = 3;
}

/* -------------------------------------------------------------- gemm */

/* C broadcast to [M][N] read at (i, j); c may be NULL (zero) */
static double gemm_c_at(const IrTensor *Ct, const float *c, int64_t i, int64_t j)
{
    if (!c)
        return 0;
    if (Ct->rank == 0 || ir_tensor_numel(Ct) == 1)
        return c[0];
    if (Ct->rank == 1)
        return c[Ct->dims[0] == 1 ? 0 : j];
    int64_t r = Ct->dims[0] == 1 ? 0 : i, q = Ct->dims[1] == 1 ? 0 : j;
    return c[r * Ct->dims[1] + q];
}

static bool gemm_ok(IrGraph *g, const IrLayer *P, int64_t N, int64_t M)
{
    if (P->op != IR_OP_GEMM || P->n_in < 2 || !pass_const_f32(g, P->in[1]))
        return false;
    const IrTensor *B = &g->tensors[P->in[1]];
    if (B->rank != 2 || B->dims[P->attr.gemm.trans_b ? 0 : 1] != N)
        return false;
    if (P->n_in < 3 || P->in[2] < 0)
        return true;
    const IrTensor *Ct = &g->tensors[P->in[2]];
    if (!pass_const_f32(g, P->in[2]) || Ct->rank > 2)
        return false;
    for (int i = 0; i < Ct->rank; i++) {
        int64_t want = i == Ct->rank - 1 ? N : M;
        if (Ct->dims[i] != 1 && Ct->dims[i] != want)
            return false;
    }
    return true;
}

static void fold_gemm(IrGraph *g, int p, const double *s, const double *t, int64_t N, int64_t M)
{
    IrLayer *P = &g->layers[p];
    bool tb = P->attr.gemm.trans_b;
    int has_c = P->n_in >= 3 && P->in[2] >= 0;
    bool rows = has_c && g->tensors[P->in[2]].rank == 2 && g->tensors[P->in[2]].dims[0] == M && M > 1;
    int64_t cdims[2] = {rows ? M : N, N};
    float *nw, *nc;
    const IrTensor *B = &g->tensors[P->in[1]];
    int64_t bd[2] = {B->dims[0], B->dims[1]};
    int twn = pass_new_const_f32(g, B->name, "_bn", 2, bd, &nw);
    int tcn = pass_new_const_f32(g, P->name, "_bias_bn", rows ? 2 : 1, cdims, &nc);
    const float *w = pass_const_f32(g, P->in[1]);
    const float *c = has_c ? pass_const_f32(g, P->in[2]) : NULL;
    const IrTensor *Ct = has_c ? &g->tensors[P->in[2]] : NULL;
    for (int64_t i = 0; i < bd[0]; i++)
        for (int64_t j = 0; j < bd[1]; j++)
            nw[i * bd[1] + j] = (float)(s[tb ? i : j] * w[i * bd[1] + j]);
    double beta = P->attr.gemm.beta;
    for (int64_t i = 0; i < (rows ? M : 1); i++)
        for (int64_t j = 0; j < N; j++)
            nc[i * N + j] = (float)(s[j] * beta * gemm_c_at(Ct, c, i, j) + t[j]);
    P->in[1] = twn;
    P->in[2] = tcn;
    P->n_in = 3;
    P->attr.gemm.beta = 1.0f;
}

/* ------------------------------------------------------------- driver */

static int fold_one(IrGraph *g, int b)
{
    IrLayer *B = &g->layers[b];
    if (!pass_no_epilogue(B) || B->n_in != 5 || !pass_single_output(g, b))
        return 0;
    int x = B->in[0];
    int p = pass_producer(g, x);
    if (p < 0 || pass_sole_consumer(g, x) != b || !pass_no_epilogue(&g->layers[p]) || !pass_single_output(g, p))
        return 0;
    const IrTensor *X = &g->tensors[x];
    if (X->rank < 2 || X->dtype != IR_DT_FLOAT || !pass_same_shape(g, x, B->out[0]))
        return 0;
    int64_t C = X->dims[1];
    if (C < 1)
        return 0;
    bool conv = conv_ok(g, &g->layers[p], C);
    bool gemm = X->rank == 2 && gemm_ok(g, &g->layers[p], C, X->dims[0]);
    if (!conv && !gemm)
        return 0;
    double *s = malloc(sizeof(double) * (size_t)C * 2);
    if (!s)
        return 0;
    int ok = pass_bn_coeffs(g, B, C, s, s + C) == 0;
    if (ok && conv)
        fold_conv(g, p, s, s + C, C);
    else if (ok)
        fold_gemm(g, p, s, s + C, C, X->dims[0]);
    free(s);
    if (!ok)
        return 0;
    pass_set_output(g, p, 0, g->layers[b].out[0]);
    pass_merge_origin(g, p, b);
    pass_kill(g, b);
    return 1;
}

int pass_fold_bn(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    (void)d;
    int n = 0;
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead && g->layers[l].op == IR_OP_BATCHNORM)
            n += fold_one(g, l);
    return n;
}
