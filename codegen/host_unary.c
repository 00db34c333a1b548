/* host_unary.c - activations and element-wise math of one input in the
 * host C program (family unary: frontend/import_unary.c, runtime/rt_unary.c).
 *
 * Why one emitter: every op of the family is one o2h_unary_f32 call with
 * its runtime code and the alpha/beta of attr.act; only the code differs.
 */
#include "host_emit.h"

static const char *unary_name(IrOp op)
{
    switch (op) {
    case IR_OP_RELU: return "O2H_UN_RELU";
    case IR_OP_CLIP: return "O2H_UN_CLIP";
    case IR_OP_LEAKY_RELU: return "O2H_UN_LEAKY_RELU";
    case IR_OP_SIGMOID: return "O2H_UN_SIGMOID";
    case IR_OP_HARD_SIGMOID: return "O2H_UN_HARD_SIGMOID";
    case IR_OP_HARD_SWISH: return "O2H_UN_HARD_SWISH";
    case IR_OP_TANH: return "O2H_UN_TANH";
    case IR_OP_ELU: return "O2H_UN_ELU";
    case IR_OP_SOFTPLUS: return "O2H_UN_SOFTPLUS";
    case IR_OP_EXP: return "O2H_UN_EXP";
    case IR_OP_LOG: return "O2H_UN_LOG";
    case IR_OP_SQRT: return "O2H_UN_SQRT";
    case IR_OP_NEG: return "O2H_UN_NEG";
    case IR_OP_ABS: return "O2H_UN_ABS";
    case IR_OP_RECIPROCAL: return "O2H_UN_RECIPROCAL";
    case IR_OP_FLOOR: return "O2H_UN_FLOOR";
    case IR_OP_CEIL: return "O2H_UN_CEIL";
    case IR_OP_ERF: return "O2H_UN_ERF";
    default: return NULL;
    }
}

int cg_host_unary(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0 || !unary_name(L->op)) {
        cg_host_reject(h, l, "missing input");
        return -1;
    }
    if (CG_NEED_FLOAT(h, l, x, y) || cg_check_post_shapes(h, l, y))
        return -1;
    for (int i = 1; i < L->n_in; i++)
        if (L->in[i] >= 0 && !cg_is_const(h, L->in[i])) {
            cg_host_reject(h, l, "input '%s' must be a constant", TT(h, L->in[i])->name);
            return -1;
        }
    if (numel(h, x) != numel(h, y)) {
        cg_host_reject(h, l, "input and output sizes differ");
        return -1;
    }
    h->inplace[l] = 0;
    return cg_host_call(h, l, NULL, "    o2h_unary_f32(%s, %s, %s, %s, %s, %lld);\n", unary_name(L->op),
                        cg_float(h, L->attr.act.alpha), cg_float(h, L->attr.act.beta), cg_ptr(h, x),
                        cg_ptr(h, y), (long long)numel(h, y));
}
