/* mark_se.c - pass mark_se: recognize squeeze-and-excite and mark its
 * channel-scale Mul (IrLayer.se, kind "se").
 *
 * Contract
 *   requires: fuse_act has run (the gate is usually a sigmoid fused into the
 *             last 1x1 conv of the branch).
 *   provides: a Mul of a feature map x [N,C,H,W] by s [N,C,1,1], where s is
 *             computed from x by GlobalAveragePool (or ReduceMean over the
 *             spatial axes), then 1x1 convs / Gemms / views / activations,
 *             ending in a sigmoid-like gate (Sigmoid or HardSigmoid, as a
 *             layer or a fused epilogue), has se = true and its inputs in
 *             the order (x, s).
 *   breaks:   nothing: the layers keep their ops, so every consumer that
 *             ignores the flag still sees a plain broadcasting Mul.
 *
 * Why a mark rather than a new op: the planner costs an SE Mul as a cheap
 * per-channel scale that must wait for a global reduction of its own input
 * (a pipeline stall on the accelerator), while kernels need nothing new.
 */
#include "passes.h"
#include "pass_util.h"

#include <string.h>

#define MAX_BRANCH 16

static bool gate_kind(IrActKind k)
{
    return k == IR_ACT_SIGMOID || k == IR_ACT_HARD_SIGMOID;
}

static bool is_gate(const IrLayer *L)
{
    return L->op == IR_OP_SIGMOID || L->op == IR_OP_HARD_SIGMOID || gate_kind(L->act.kind);
}

/* L reduces x over its spatial axes, keeping them as 1s */
static bool is_squeeze(const IrGraph *g, const IrLayer *L, int x)
{
    if (L->n_in < 1 || L->in[0] != x)
        return false;
    if (L->op == IR_OP_GLOBAL_AVGPOOL)
        return true;
    if (L->op != IR_OP_REDUCE_MEAN || !L->attr.axes.keepdims || L->attr.axes.n != g->tensors[x].rank - 2)
        return false;
    for (int i = 0; i < L->attr.axes.n; i++) {
        int64_t a = L->attr.axes.perm[i];
        if (a < 0)
            a += g->tensors[x].rank;
        if (a < 2)
            return false;
    }
    return true;
}

/* layers allowed between the squeeze and the gate: one data input */
static bool branch_step(const IrGraph *g, const IrLayer *L)
{
    switch (L->op) {
    case IR_OP_CONV: case IR_OP_GEMM: case IR_OP_MATMUL:
        return L->residual < 0 && L->n_in >= 2 && pass_is_const(g, L->in[1]);
    case IR_OP_FLATTEN: case IR_OP_RESHAPE: case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE:
        return true;
    default:
        return !strcmp(ir_op_family(L->op), "unary") && L->n_in == 1;
    }
}

/* s is an SE scale computed from x */
static bool is_se_branch(const IrGraph *g, int s, int x)
{
    int p = pass_producer(g, s);
    if (p < 0 || !is_gate(&g->layers[p]))
        return false;
    for (int step = 0; step < MAX_BRANCH && p >= 0; step++) {
        const IrLayer *L = &g->layers[p];
        if (is_squeeze(g, L, x))
            return true;
        if (!branch_step(g, L))
            return false;
        p = pass_producer(g, L->in[0]);
    }
    return false;
}

static bool scale_shape(const IrGraph *g, int s, int x)
{
    const IrTensor *S = &g->tensors[s], *X = &g->tensors[x];
    if (X->rank < 3 || S->rank != X->rank || S->dims[0] != X->dims[0] || S->dims[1] != X->dims[1])
        return false;
    for (int i = 2; i < S->rank; i++)
        if (S->dims[i] != 1)
            return false;
    return true;
}

static int mark_one(IrGraph *g, int m)
{
    IrLayer *M = &g->layers[m];
    if (M->n_in != 2 || M->se || !pass_tensor_ok(g, M->out[0]))
        return 0;
    for (int k = 0; k < 2; k++) {
        int x = M->in[k], s = M->in[1 - k];
        if (!pass_tensor_ok(g, x) || !pass_tensor_ok(g, s) || !pass_same_shape(g, x, M->out[0]))
            continue;
        if (!scale_shape(g, s, x) || !is_se_branch(g, s, x))
            continue;
        M->in[0] = x;
        M->in[1] = s;
        M->se = true;
        return 1;
    }
    return 0;
}

int pass_mark_se(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    (void)d;
    int n = 0;
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead && g->layers[l].op == IR_OP_MUL)
            n += mark_one(g, l);
    return n;
}
