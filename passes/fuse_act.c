/* fuse_act.c - pass fuse_act: element-wise activations become the epilogue
 * of the layer producing their input (IrLayer.act / act_slope).
 *
 * Contract
 *   requires: shapes known; canon_act and fuse_residual have run (so
 *             HardSwish is one layer and residual Adds already sit in conv
 *             epilogues, ahead of the activation).
 *   provides: an activation layer A - Relu, Clip (min/max in attr.act),
 *             LeakyRelu, PRelu (constant slope, one per channel or one for
 *             all), Sigmoid, HardSigmoid, HardSwish, Tanh, Elu - and the SiLU
 *             form Mul(x, Sigmoid(x)) is gone when its input x is the only
 *             use of the result of a Conv, Gemm, MatMul with constant B, Add
 *             or BatchNormalization that has no activation yet; that layer
 *             takes the activation and writes A's output.
 *   breaks:   nothing. Each producer gets at most one activation.
 *
 * Kernels apply the epilogue as y = act(acc + bias + residual); for BN and
 * MatMul (whose runtime kernels have no epilogue argument) the host emitter
 * applies the activation after the kernel.
 */
#include "passes.h"
#include "pass_util.h"

static bool producer_ok(IrGraph *g, int p)
{
    if (p < 0)
        return false;
    const IrLayer *P = &g->layers[p];
    if (P->act.kind != IR_ACT_NONE || P->act_slope >= 0 || !pass_single_output(g, p))
        return false;
    switch (P->op) {
    case IR_OP_CONV: case IR_OP_GEMM: case IR_OP_ADD: case IR_OP_BATCHNORM:
        return true;
    case IR_OP_MATMUL:
        return P->n_in == 2 && pass_is_const(g, P->in[1]);
    default:
        return false;
    }
}


/* the activation a layer computes on its own: the unary ops and PRelu */
static IrActKind unary_kind(IrOp op)
{
    return op == IR_OP_PRELU ? IR_ACT_PRELU : ir_op_act(op);
}

/* PRelu slope s against input x: a float constant with one value, or one per
 * channel (axis 1 of x once s is right-aligned to x's rank) */
static bool slope_ok(IrGraph *g, int s, int x)
{
    if (!pass_const_f32(g, s))
        return false;
    const IrTensor *S = &g->tensors[s], *X = &g->tensors[x];
    int64_t n = ir_tensor_numel(S);
    if (n == 1)
        return true;
    if (X->rank < 2 || S->rank > X->rank || n != X->dims[1])
        return false;
    int off = X->rank - S->rank;
    for (int i = 0; i < S->rank; i++)
        if (S->dims[i] != 1 && i + off != 1)
            return false;
    return true;
}

/* A = act(x): 1 when fused into x's producer */
static int fuse_unary(IrGraph *g, int a)
{
    IrLayer *A = &g->layers[a];
    IrActKind kind = unary_kind(A->op);
    if (kind == IR_ACT_NONE || A->n_in < 1 || !pass_no_epilogue(A) || !pass_single_output(g, a))
        return 0;
    int x = A->in[0];
    int p = pass_producer(g, x);
    if (!producer_ok(g, p) || pass_sole_consumer(g, x) != a || !pass_same_shape(g, x, A->out[0]))
        return 0;
    if (kind == IR_ACT_PRELU && (A->n_in != 2 || !slope_ok(g, A->in[1], x)))
        return 0;
    if (kind != IR_ACT_PRELU && A->n_in != 1)
        return 0;
    IrLayer *P = &g->layers[p];
    P->act = A->attr.act;
    P->act.kind = kind;
    if (kind == IR_ACT_PRELU) {
        P->act.alpha = P->act.beta = 0;
        ir_set_use(g, p, &P->act_slope, A->in[1]);
    }
    pass_set_output(g, p, 0, A->out[0]);
    pass_merge_origin(g, p, a);
    pass_kill(g, a);
    return 1;
}

/* M = Mul(x, Sigmoid(x)): 1 when fused as SiLU into x's producer */
static int fuse_silu(IrGraph *g, int m)
{
    IrLayer *M = &g->layers[m];
    if (M->n_in != 2 || !pass_no_epilogue(M) || !pass_single_output(g, m))
        return 0;
    for (int k = 0; k < 2; k++) {
        int x = M->in[k], s = M->in[1 - k];
        int q = pass_producer(g, s);
        if (q < 0 || g->layers[q].op != IR_OP_SIGMOID || g->layers[q].in[0] != x ||
            !pass_no_epilogue(&g->layers[q]) || pass_sole_consumer(g, s) != m)
            continue;
        int p = pass_producer(g, x);
        if (!producer_ok(g, p) || ir_tensor_uses(g, x) != 2 || pass_is_graph_output(g, x) ||
            !pass_same_shape(g, x, M->out[0]))
            return 0;
        IrLayer *P = &g->layers[p];
        P->act = (IrAct){.kind = IR_ACT_SILU};
        pass_set_output(g, p, 0, M->out[0]);
        pass_merge_origin(g, p, q);
        pass_merge_origin(g, p, m);
        pass_kill(g, q);
        pass_kill(g, m);
        return 1;
    }
    return 0;
}

int pass_fuse_act(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    (void)d;
    int n = 0;
    for (int l = 0; l < g->n_layers; l++) {
        if (g->layers[l].dead)
            continue;
        if (g->layers[l].op == IR_OP_MUL)
            n += fuse_silu(g, l);
        else
            n += fuse_unary(g, l);
    }
    return n;
}
