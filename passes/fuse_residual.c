/* fuse_residual.c - pass fuse_residual: a residual Add becomes part of the
 * epilogue of the Conv (or Gemm) that produces one of its operands.
 *
 * Contract
 *   requires: shapes known; runs before fuse_act so the conv's epilogue is
 *             still free (the epilogue order is bias, + residual, then act).
 *   provides: Add(a, b) with a, b and the result of one shape, where one
 *             operand is the only use of a Conv/Gemm result with no epilogue
 *             and the other operand is computed before that layer, is gone:
 *             the layer gets residual = the other operand and writes the
 *             Add's output; an activation already fused into the Add moves
 *             with it. Of two candidate operands the one produced later is
 *             taken (the other is then ready by topological order).
 *   breaks:   nothing; the residual tensor now lives until the conv runs
 *             (ir_tensor_uses counts IrLayer.residual).
 */
#include "passes.h"
#include "pass_util.h"

static bool host_ok(const IrGraph *g, int p, int y, int a)
{
    if (p < 0)
        return false;
    const IrLayer *P = &g->layers[p];
    if (P->op != IR_OP_CONV && P->op != IR_OP_GEMM)
        return false;
    return pass_no_epilogue(P) && pass_single_output(g, p) && P->out[0] == y && pass_sole_consumer(g, y) == a;
}

/* the other operand r is available before layer p runs */
static bool ready_before(const IrGraph *g, int r, int p)
{
    if (!pass_tensor_ok(g, r) || g->tensors[r].kind == IR_T_CONST)
        return false;
    if (g->tensors[r].kind == IR_T_INPUT)
        return true;
    int q = pass_producer(g, r);
    return q >= 0 && q < p;
}

static int fuse_one(IrGraph *g, int a)
{
    IrLayer *A = &g->layers[a];
    if (A->n_in != 2 || A->residual >= 0 || !pass_single_output(g, a))
        return 0;
    int y = A->out[0];
    for (int k = 0; k < 2; k++)
        if (!pass_same_shape(g, A->in[k], y) || g->tensors[A->in[k]].dtype != IR_DT_FLOAT)
            return 0;
    int p0 = pass_producer(g, A->in[0]), p1 = pass_producer(g, A->in[1]);
    int k = p1 > p0 ? 1 : 0; /* operand produced later */
    int p = k ? p1 : p0, r = A->in[1 - k];
    if (!host_ok(g, p, A->in[k], a) || !ready_before(g, r, p))
        return 0;
    IrLayer *P = &g->layers[p];
    ir_set_use(g, p, &P->residual, r);
    P->act = A->act;
    ir_set_use(g, p, &P->act_slope, A->act_slope);
    pass_set_output(g, p, 0, y);
    pass_merge_origin(g, p, a);
    pass_kill(g, a);
    return 1;
}

int pass_fuse_residual(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    (void)d;
    int n = 0;
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead && g->layers[l].op == IR_OP_ADD)
            n += fuse_one(g, l);
    return n;
}
