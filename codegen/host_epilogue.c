/* host_epilogue.c - fused epilogues, broadcasting and the tail every
 * emitted layer shares.
 *
 * Why one place: every float layer may carry a fused residual add and
 * activation (IrLayer.residual / act / act_slope). Kernels that take an
 * O2hEpilogue get it as an argument; what they cannot do (a residual of
 * another shape, PRelu) and everything of the kernels without one is
 * applied by calls after the kernel. Doing that split, and the runtime call
 * that precedes it, in one function keeps the arithmetic of a fused layer
 * the same whichever op carries it.
 */
#include "host_emit.h"

#include <stdarg.h>
#include <string.h>

/* The runtime's name of each activation: the generated code passes
 * O2H_ACT_<ID> where the IR has IR_ACT_<ID> (ir/act.def), and the values
 * must agree because the quantization evaluator hands IR kinds to the
 * runtime kernels as they are. */
#define ACT(id, name, op) _Static_assert((int)IR_ACT_##id == (int)O2H_ACT_##id, \
                                         "IR_ACT_" #id " and O2H_ACT_" #id " differ");
#include "ir/act.def"
#undef ACT
_Static_assert((int)IR_ACT_COUNT == (int)O2H_ACT_COUNT, "ir/act.def and O2hActKind list different activations");

static const char *const act_names[IR_ACT_COUNT] = {
#define ACT(id, name, op) [IR_ACT_##id] = "O2H_ACT_" #id,
#include "ir/act.def"
#undef ACT
};

bool cg_act_valid(IrActKind k)
{
    return (unsigned)k < IR_ACT_COUNT;
}

static const char *act_literal(CgHost *h, IrActKind k, float alpha, float beta, const char *residual)
{
    return ir_sprintf(h->g, "&(O2hEpilogue){%s, %s, %s, NULL, 0, %s}", act_names[k],
                      cg_float(h, alpha), cg_float(h, beta), residual ? residual : "NULL");
}

const char *cg_kernel_epilogue(CgHost *h, const IrLayer *L, int y, CgPost *post)
{
    post->residual = L->residual >= 0 && !cg_same_shape(h, L->residual, y);
    post->act = L->act.kind != IR_ACT_NONE && (post->residual || L->act.kind == IR_ACT_PRELU);
    const char *res = L->residual >= 0 && !post->residual ? cg_ptr(h, L->residual) : NULL;
    IrActKind k = post->act ? IR_ACT_NONE : L->act.kind;
    if (!res && k == IR_ACT_NONE)
        return "&E_NONE";
    return act_literal(h, k, L->act.alpha, L->act.beta, res);
}

void cg_emit_broadcast(CgHost *h, const char *name, int a, int b, int y)
{
    const IrTensor *Y = TT(h, y);
    int r = Y->rank > 0 ? Y->rank : 1;
    int64_t ad[O2H_MAX_RANK], bd[O2H_MAX_RANK], yd[O2H_MAX_RANK];
    for (int i = 0; i < r; i++)
        ad[i] = bd[i] = yd[i] = 1;
    for (int i = 0; i < Y->rank; i++)
        yd[r - Y->rank + i] = Y->dims[i];
    const IrTensor *A = TT(h, a);
    for (int i = 0; i < A->rank; i++)
        ad[r - A->rank + i] = A->dims[i];
    if (b >= 0) {
        const IrTensor *B = TT(h, b);
        for (int i = 0; i < B->rank; i++)
            bd[r - B->rank + i] = B->dims[i];
    } else {
        memcpy(bd, yd, sizeof yd);
    }
    cg_emit(h, h->decl, "static const O2hBroadcast %s = {%d, %s, %s, %s};\n", name, r,
            cg_i64_list(h, ad, r), cg_i64_list(h, bd, r), cg_i64_list(h, yd, r));
}

/* Can a and b broadcast to y? (ranks at most y's, dims 1 or equal) */
int cg_check_broadcast(CgHost *h, int l, int a, int b, int y)
{
    const IrTensor *Y = TT(h, y);
    int ts[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        if (ts[k] < 0)
            continue;
        const IrTensor *A = TT(h, ts[k]);
        bool ok = A->rank <= Y->rank && Y->rank <= O2H_MAX_RANK;
        for (int i = 0; ok && i < A->rank; i++) {
            int64_t da = A->dims[i], dy = Y->dims[Y->rank - A->rank + i];
            ok = da == dy || da == 1;
        }
        if (!ok) {
            cg_host_reject(h, l, "tensor '%s' does not broadcast to the output '%s'", A->name, Y->name);
            return -1;
        }
    }
    return 0;
}

/* Apply what the kernel could not: y = y + residual (broadcast), then the
 * activation (PRelu as a broadcast binary op with its slope). */
static void emit_post(CgHost *h, int l, int y, CgPost post)
{
    const IrLayer *L = &h->g->layers[l];
    const char *Y = cg_ptr(h, y);
    bool act_in_add = post.residual && post.act && L->act.kind != IR_ACT_PRELU;
    if (post.residual) {
        const char *bc = ir_sprintf(h->g, "L%d_res", l);
        cg_emit_broadcast(h, bc, y, L->residual, y);
        const char *e = act_in_add ? act_literal(h, L->act.kind, L->act.alpha, L->act.beta, NULL)
                                   : "&E_NONE";
        cg_emit(h, h->run, "    o2h_binary_f32(O2H_BIN_ADD, &%s, %s, %s, %s, %s);\n", bc, Y,
                cg_ptr(h, L->residual), e, Y);
        h->n_calls++;
    }
    if (!post.act || act_in_add)
        return;
    if (L->act.kind == IR_ACT_PRELU) {
        const char *bc = ir_sprintf(h->g, "L%d_slope", l);
        cg_emit_broadcast(h, bc, y, L->act_slope, y);
        cg_emit(h, h->run, "    o2h_binary_f32(O2H_BIN_PRELU, &%s, %s, %s, &E_NONE, %s);\n", bc, Y,
                cg_ptr(h, L->act_slope), Y);
    } else {
        cg_emit(h, h->run, "    o2h_act_f32(%s, %s, %lld, 0);\n",
                act_literal(h, L->act.kind, L->act.alpha, L->act.beta, NULL), Y,
                (long long)numel(h, y));
    }
    h->n_calls++;
}

int cg_host_post(CgHost *h, int l, const CgPost *post)
{
    const IrLayer *L = &h->g->layers[l];
    CgPost all = {L->residual >= 0, L->act.kind != IR_ACT_NONE};
    emit_post(h, l, L->out[0], post ? *post : all);
    return 0;
}

int cg_host_call(CgHost *h, int l, const CgPost *post, const char *fmt, ...)
{
    if (h->phase != 0 && h->run) {
        va_list ap;
        va_start(ap, fmt);
        vfprintf(h->run, fmt, ap);
        va_end(ap);
    }
    h->n_calls++;
    return cg_host_post(h, l, post);
}

int cg_check_post_shapes(CgHost *h, int l, int y)
{
    const IrLayer *L = &h->g->layers[l];
    if (L->residual >= 0 && cg_check_broadcast(h, l, L->residual, -1, y))
        return -1;
    if (L->act.kind == IR_ACT_PRELU && cg_check_broadcast(h, l, L->act_slope, -1, y))
        return -1;
    return 0;
}

int cg_float_io(CgHost *h, int l, int *x, int *y)
{
    const IrLayer *L = &h->g->layers[l];
    *x = in_at(L, 0);
    *y = L->out[0];
    if (*x < 0) {
        cg_host_reject(h, l, "missing input");
        return -1;
    }
    return CG_NEED_FLOAT(h, l, *x, *y) || cg_check_post_shapes(h, l, *y) ? -1 : 0;
}
