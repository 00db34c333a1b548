/* import_binary.c - element-wise ops of two or more inputs with numpy
 * (multidirectional) broadcasting, and PRelu (slope broadcast to X).
 *
 * Why: the output shape is the broadcast of all input shapes; a mismatch
 * here is the most common sign of a model exported with inconsistent
 * shapes, so it is reported with both shapes' names. Opset 6 files use the
 * legacy form (broadcast=1 with B aligned at `axis`); B is then given
 * trailing 1-axes (a reshaped constant, or a Reshape layer) so the layer
 * has plain numpy semantics. */
#include "fe_internal.h"

#include <string.h>

/* Give input i the shape dims (same elements, more axes): a reshaped alias
 * for constants, a Reshape layer otherwise. */
static void reshape_operand(FeCtx *c, FeNode *n, int i, int r, const int64_t *dims)
{
    IrTensor *b = fe_in(c, n, i);
    const char *nm = fe_gen_name(c, b->name, "bcast");
    IrDType dt = b->dtype;
    bool is_const = b->kind == IR_T_CONST;
    int bi = n->in[i];
    int t = fe_act_tensor(c, nm, dt, r, dims);
    if (is_const) {
        /* share the mapped bytes; copy materialized data (passes may
         * rewrite a constant in place) */
        IrTensor *T = &c->g->tensors[t];
        b = &c->g->tensors[bi]; /* the tensor array may have moved */
        T->kind = IR_T_CONST;
        T->src = b->src;
        if (b->data) {
            size_t nb = ir_tensor_nbytes(T);
            T->data = ir_alloc(c->g, nb ? nb : 1);
            memcpy(T->data, b->data, nb);
        }
    } else {
        int l = fe_emit_layer(c, IR_OP_RESHAPE, ir_sprintf(c->g, "%s__bcast", n->name), &bi, 1, &t,
                              1, NULL);
        c->g->layers[l].origin = ir_strdup(c->g, n->name); /* part of that ONNX node */
    }
    n->in[i] = t;
}

/* Legacy broadcast: B's dims match A's from `axis` on. */
static int legacy_broadcast(FeCtx *c, FeNode *n)
{
    if (fe_attr_int(c, n, "broadcast", 0) == 0 || n->n_in != 2)
        return 0;
    IrTensor *a = fe_in(c, n, 0), *b = fe_in(c, n, 1);
    if (!a || !b)
        return 0;
    int64_t axis = fe_attr_int(c, n, "axis", a->rank - b->rank);
    if (axis < 0 || axis + b->rank > a->rank)
        return fe_err(c, n, "legacy broadcast axis %lld does not fit '%s' into '%s'",
                      (long long)axis, b->name, a->name);
    for (int k = 0; k < b->rank; k++)
        if (b->dims[k] != 1 && b->dims[k] != a->dims[axis + k])
            return fe_err(c, n, "legacy broadcast: '%s' does not match '%s' at axis %lld", b->name,
                          a->name, (long long)axis);
    int r = (int)(a->rank - axis);
    if (r == b->rank)
        return 0;
    int64_t dims[IR_MAX_RANK];
    for (int k = 0; k < r; k++)
        dims[k] = k < b->rank ? b->dims[k] : 1;
    reshape_operand(c, n, 1, r, dims);
    return 0;
}

/* PRelu before opset 7: a 1-D slope of C values is per channel (axis 1). */
static void legacy_prelu_slope(FeCtx *c, FeNode *n)
{
    IrTensor *x = fe_in(c, n, 0), *s = fe_in(c, n, 1);
    if (n->opset >= 7 || s->rank != 1 || x->rank < 3 || s->dims[0] != x->dims[1] || s->dims[0] == 1)
        return;
    int64_t dims[IR_MAX_RANK];
    int r = x->rank - 1;
    for (int k = 0; k < r; k++)
        dims[k] = k ? 1 : s->dims[0];
    reshape_operand(c, n, 1, r, dims);
}

static int prelu(FeCtx *c, FeNode *n)
{
    if (fe_check_arity(c, n, 2, 2, 1, 1) < 0)
        return -1;
    IrTensor *x = fe_need_in(c, n, 0, "X"), *s = fe_need_in(c, n, 1, "slope");
    if (!x || !s)
        return -1;
    legacy_prelu_slope(c, n);
    x = fe_in(c, n, 0);
    s = fe_in(c, n, 1);
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
    if (n->opset < 7 && !variadic && legacy_broadcast(c, n) < 0)
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
