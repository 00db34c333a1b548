/* fuse_gemm.c - pass fuse_gemm: MatMul by a constant matrix followed by the
 * Add of a constant bias becomes one Gemm (a fully connected layer).
 *
 * Contract
 *   requires: shapes known.
 *   provides: MatMul(x, W) + b, with x of rank 2, W a constant [K, N] and b a
 *             constant of shape [N] or [1, N] (either Add operand), is a Gemm
 *             (transA = transB = 0, alpha = beta = 1, C = b) writing the
 *             Add's output; the MatMul's result must have no other reader.
 *   breaks:   nothing.
 *
 * Exporters turn nn.Linear into MatMul+Add when the input is not 2-D or for
 * some opsets; the accelerator and the host kernel know Gemm with a bias as
 * one layer. Inputs of rank > 2 stay MatMul (Gemm is 2-D only).
 */
#include "passes.h"
#include "pass_util.h"

/* b is a float constant [N] or [1,N] */
static bool bias_ok(IrGraph *g, int b, int64_t n)
{
    if (!pass_const_f32(g, b))
        return false;
    const IrTensor *B = &g->tensors[b];
    if (B->rank == 1)
        return B->dims[0] == n;
    return B->rank == 2 && B->dims[0] == 1 && B->dims[1] == n;
}

static bool matmul_ok(IrGraph *g, const IrLayer *M)
{
    if (M->n_in != 2 || !pass_no_epilogue(M) || !pass_tensor_ok(g, M->in[0]))
        return false;
    const IrTensor *x = &g->tensors[M->in[0]];
    if (x->rank != 2 || x->dtype != IR_DT_FLOAT || !pass_const_f32(g, M->in[1]))
        return false;
    const IrTensor *w = &g->tensors[M->in[1]];
    return w->rank == 2 && w->dims[0] == x->dims[1];
}

static int fuse_one(IrGraph *g, int m)
{
    IrLayer *M = &g->layers[m];
    if (!matmul_ok(g, M) || !pass_single_output(g, m))
        return 0;
    int y = M->out[0];
    int a = pass_sole_consumer(g, y);
    if (a < 0 || g->layers[a].op != IR_OP_ADD || g->layers[a].n_in != 2 || !pass_single_output(g, a))
        return 0;
    IrLayer *A = &g->layers[a];
    if (!pass_no_epilogue(A))
        return 0;
    int b = A->in[0] == y ? A->in[1] : A->in[0];
    int64_t n = g->tensors[M->in[1]].dims[1];
    if (!bias_ok(g, b, n) || !pass_same_shape(g, y, A->out[0]))
        return 0;
    M->op = IR_OP_GEMM;
    M->attr.gemm = (IrGemmAttr){.trans_a = false, .trans_b = false, .alpha = 1.0f, .beta = 1.0f};
    ir_set_use(g, m, &M->in[2], b);
    M->n_in = 3;
    pass_set_output(g, m, 0, A->out[0]);
    pass_merge_origin(g, m, a);
    pass_kill(g, a);
    return 1;
}

int pass_fuse_gemm(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    (void)d;
    int n = 0;
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead && g->layers[l].op == IR_OP_MATMUL)
            n += fuse_one(g, l);
    return n;
}
