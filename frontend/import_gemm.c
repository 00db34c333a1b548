/* import_gemm.c - Gemm and MatMul.
 *
 * Why together: both are the fully connected layer of a CNN; MatMul is
 * recorded as a Gemm without transposes or scaling (attr.gemm) so later
 * phases handle one form. MatMul follows numpy.matmul: 1-D operands are
 * promoted and the added axis dropped again, batch axes broadcast. */
#include "fe_internal.h"

static int gemm(FeCtx *c, FeNode *n)
{
    if (fe_check_arity(c, n, 2, 3, 1, 1) < 0)
        return -1;
    IrTensor *a = fe_need_in(c, n, 0, "A"), *b = fe_need_in(c, n, 1, "B"), *cc = fe_in(c, n, 2);
    if (!a || !b)
        return -1;
    if (n->opset < 11 && !cc)
        return fe_err(c, n, "input C is required before opset 11");
    IrGemmAttr *g = &n->attr.gemm;
    g->trans_a = fe_attr_int(c, n, "transA", 0) != 0;
    g->trans_b = fe_attr_int(c, n, "transB", 0) != 0;
    g->alpha = fe_attr_float(c, n, "alpha", 1.0f);
    g->beta = fe_attr_float(c, n, "beta", 1.0f);
    if (a->rank != 2 || b->rank != 2)
        return fe_err(c, n, "A and B must be matrices; '%s' has rank %d, '%s' rank %d", a->name,
                      a->rank, b->name, b->rank);
    int64_t m = g->trans_a ? a->dims[1] : a->dims[0], k = g->trans_a ? a->dims[0] : a->dims[1];
    int64_t kb = g->trans_b ? b->dims[1] : b->dims[0], nn = g->trans_b ? b->dims[0] : b->dims[1];
    if (k != kb)
        return fe_err(c, n, "inner dimensions differ: A gives %lld, B gives %lld", (long long)k,
                      (long long)kb);
    int64_t od[2] = {m, nn};
    if (cc) {
        IrTensor y = {.rank = 2, .dims = {m, nn}, .name = "Y"}, r;
        if (fe_broadcast(c, n, &y, cc, &r) < 0)
            return -1;
        if (r.rank != 2 || r.dims[0] != m || r.dims[1] != nn)
            return fe_err(c, n, "C '%s' does not broadcast to [%lld, %lld]", cc->name, (long long)m,
                          (long long)nn);
    }
    if (a->dtype != b->dtype)
        return fe_err(c, n, "A and B have different types (%s, %s)", ir_dtype_name(a->dtype),
                      ir_dtype_name(b->dtype));
    fe_set_out(n, 0, a->dtype, 2, od);
    return 0;
}

static int matmul(FeCtx *c, FeNode *n)
{
    if (fe_check_arity(c, n, 2, 2, 1, 1) < 0)
        return -1;
    IrTensor *a = fe_need_in(c, n, 0, "A"), *b = fe_need_in(c, n, 1, "B");
    if (!a || !b)
        return -1;
    if (a->rank < 1 || b->rank < 1)
        return fe_err(c, n, "operands must have rank >= 1");
    if (a->dtype != b->dtype)
        return fe_err(c, n, "A and B have different types (%s, %s)", ir_dtype_name(a->dtype),
                      ir_dtype_name(b->dtype));
    /* promote 1-D operands */
    IrTensor pa = *a, pb = *b;
    if (pa.rank == 1) {
        pa.rank = 2;
        pa.dims[1] = a->dims[0];
        pa.dims[0] = 1;
    }
    if (pb.rank == 1) {
        pb.rank = 2;
        pb.dims[0] = b->dims[0];
        pb.dims[1] = 1;
    }
    int64_t k = pa.dims[pa.rank - 1], kb = pb.dims[pb.rank - 2];
    if (k != kb)
        return fe_err(c, n, "inner dimensions differ: '%s' gives %lld, '%s' gives %lld", a->name,
                      (long long)k, b->name, (long long)kb);
    /* broadcast the batch axes */
    IrTensor ba = {.name = a->name, .rank = pa.rank - 2}, bb = {.name = b->name, .rank = pb.rank - 2}, r;
    for (int i = 0; i < ba.rank; i++)
        ba.dims[i] = pa.dims[i];
    for (int i = 0; i < bb.rank; i++)
        bb.dims[i] = pb.dims[i];
    if (fe_broadcast(c, n, &ba, &bb, &r) < 0)
        return -1;
    int64_t od[IR_MAX_RANK];
    int rank = r.rank;
    for (int i = 0; i < rank; i++)
        od[i] = r.dims[i];
    if (a->rank > 1)
        od[rank++] = pa.dims[pa.rank - 2];
    if (b->rank > 1)
        od[rank++] = pb.dims[pb.rank - 1];
    if (rank > IR_MAX_RANK)
        return fe_err(c, n, "result rank exceeds %d", IR_MAX_RANK);
    n->attr.gemm = (IrGemmAttr){false, false, 1.0f, 1.0f};
    fe_set_out(n, 0, a->dtype, rank, od);
    return 0;
}

FE_IMPORTER(fe_import_gemm)
{
    return n->op == IR_OP_GEMM ? gemm(c, n) : matmul(c, n);
}
