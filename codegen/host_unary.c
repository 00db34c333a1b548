/* host_unary.c - activations and element-wise math of one input in the
 * host C program (family unary: frontend/import_unary.c, runtime/rt_unary.c).
 *
 * Why one emitter: every op of the family is one o2h_unary_f32 call with
 * its runtime code and the alpha/beta of attr.act; only the code differs.
 */
#include "host_emit.h"

/* The runtime code of each unary op, O2H_UN_<ID>, from the UNARY rows of
 * ir/ops.def; an op added there without its code in runtime/o2h_rt.h stops
 * the build here. */
static const struct {
    const char *name;
    O2hUnOp code;
} unary_codes[IR_OP_COUNT] = {
#define OP(id, name, family, flags, unit)
#define UNARY(id, name, flags, act, unit) [IR_OP_##id] = {"O2H_UN_" #id, O2H_UN_##id},
#include "ir/ops.def"
#undef UNARY
#undef OP
};

int cg_host_unary(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0 || !unary_codes[L->op].name) {
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
    return cg_host_call(h, l, NULL, "    o2h_unary_f32(%s, %s, %s, %s, %s, %lld);\n", unary_codes[L->op].name,
                        cg_float(h, L->attr.act.alpha), cg_float(h, L->attr.act.beta), cg_ptr(h, x),
                        cg_ptr(h, y), (long long)numel(h, y));
}
