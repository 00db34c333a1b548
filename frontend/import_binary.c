/* import_binary.c - element-wise ops of two or more inputs with numpy
 * (multidirectional) broadcasting, and PRelu (slope broadcast to X).
 *
 * Why: the output shape is the broadcast of all input shapes; a mismatch
 * here is the most common sign of a model exported with inconsistent
 * shapes, so it is reported with both shapes' names. */
#include "fe_internal.h"

static int prelu(FeCtx *c, FeNode *n)
{
    if (fe_check_arity(c, n, 2, 2, 1, 1) < 0)
        return -1;
    IrTensor *x = fe_need_in(c, n, 0, "X"), *s = fe_need_in(c, n, 1, "slope");
    if (!x || !s)
        return -1;
    IrTensor b = *x;
    if (fe_broadcast(c, n, x, s, &b) < 0)
        return -1;
    if (b.rank != x->rank || ir_tensor_numel(&b) != ir_tensor_numel(x))
        return fe_err(c, n, "slope '%s' does not broadcast to the shape of '%s'", s->name, x->name);
    n->attr.act.kind = IR_ACT_PRELU;
    fe_out_like(n, 0, x);
    return 0;
}

FE_IMPORTER(fe_import_binary)
{
    if (n->op == IR_OP_PRELU)
        return prelu(c, n);
    bool variadic = n->op == IR_OP_MAX || n->op == IR_OP_MIN || n->op == IR_OP_SUM ||
                    n->op == IR_OP_MEAN;
    if (fe_check_arity(c, n, variadic ? 1 : 2, variadic ? IR_MAX_IO : 2, 1, 1) < 0)
        return -1;
    IrTensor acc = {0};
    for (int i = 0; i < n->n_in; i++) {
        IrTensor *t = fe_need_in(c, n, i, "operand");
        if (!t)
            return -1;
        if (i == 0) {
            acc = *t;
            continue;
        }
        if (t->dtype != acc.dtype && n->op != IR_OP_POW)
            return fe_err(c, n, "operands '%s' (%s) and '%s' (%s) have different types",
                          acc.name, ir_dtype_name(acc.dtype), t->name, ir_dtype_name(t->dtype));
        if (fe_broadcast(c, n, &acc, t, &acc) < 0)
            return -1;
    }
    fe_set_out(n, 0, acc.dtype, acc.rank, acc.dims);
    return 0;
}
