/* host_binary.c - element-wise ops of two or more inputs, with numpy
 * broadcasting, in the host C program (family binary:
 * frontend/import_binary.c, runtime/rt_binary.c).
 *
 * Why two shapes of code: two operands are one o2h_binary_f32 call that can
 * also take the fused epilogue and write in place over an operand of the
 * output's shape; the variadic Sum/Mean/Max/Min fold their operands into the
 * output one by one.
 */
#include "host_emit.h"

#include <string.h>

/* The runtime kernel of each binary op, O2H_BIN_<kernel> from the kernel
 * column of ir/ops.def (Sum and Mean fold their operands with ADD); a
 * kernel missing from runtime/o2h_rt.h stops the build here. */
static const struct {
    const char *name;
    O2hBinOp code;
} binary_kernels[IR_OP_COUNT] = {
#define OP(id, name, family, flags, unit)
#define BINARY(id, name, flags, kernel, unit) [IR_OP_##id] = {"O2H_BIN_" #kernel, O2H_BIN_##kernel},
#include "ir/ops.def"
#undef BINARY
#undef OP
};

/* Two operands: one call with broadcasting and the fused epilogue. */
static int emit_binary2(CgHost *h, int l, int a, int b, int y)
{
    const IrLayer *L = &h->g->layers[l];
    if (cg_check_broadcast(h, l, a, b, y) || cg_check_post_shapes(h, l, y))
        return -1;
    if (cg_same_shape(h, a, y))
        h->inplace[l] = 0;
    else if (cg_same_shape(h, b, y))
        h->inplace[l] = 1;
    const char *bc = ir_sprintf(h->g, "L%d", l);
    cg_emit_broadcast(h, bc, a, b, y);
    CgPost post;
    const char *e = cg_kernel_epilogue(h, L, y, &post);
    return cg_host_call(h, l, &post, "    o2h_binary_f32(%s, &%s, %s, %s, %s, %s);\n", binary_kernels[L->op].name, bc,
                        cg_ptr(h, a), cg_ptr(h, b), e, cg_ptr(h, y));
}

/* Sum/Mean/Max/Min of n operands: y = x0 broadcast to y, then y = y op xi
 * (in place on the full-size y), Mean scales by 1/n at the end. */
static int emit_variadic(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int y = L->out[0], n = L->n_in;
    for (int i = 0; i < n; i++)
        if (L->in[i] < 0 || cg_check_broadcast(h, l, L->in[i], -1, y)) {
            if (L->in[i] < 0)
                cg_host_reject(h, l, "missing operand %d", i);
            return -1;
        }
    if (cg_check_post_shapes(h, l, y))
        return -1;
    const char *Y = cg_ptr(h, y);
    int x0 = L->in[0];
    if (cg_same_shape(h, x0, y)) {
        cg_emit(h, h->run, "    memcpy(%s, %s, %lld);\n", Y, cg_ptr(h, x0),
                (long long)ir_tensor_nbytes(TT(h, y)));
    } else {
        const char *bc = ir_sprintf(h->g, "L%d_x0", l);
        cg_emit_broadcast(h, bc, x0, -1, y);
        cg_host_call(h, l, CG_NO_POST, "    o2h_expand(4, &%s, %s, %s);\n", bc, cg_ptr(h, x0), Y);
    }
    for (int i = 1; i < n; i++) {
        const char *bc = ir_sprintf(h->g, "L%d_x%d", l, i);
        cg_emit_broadcast(h, bc, y, L->in[i], y);
        cg_host_call(h, l, CG_NO_POST, "    o2h_binary_f32(%s, &%s, %s, %s, &E_NONE, %s);\n",
                     binary_kernels[L->op].name, bc, Y, cg_ptr(h, L->in[i]), Y);
    }
    if (L->op == IR_OP_MEAN && n > 1) {
        cg_emit(h, h->decl, "static const float L%d_inv = %s;\n", l, cg_float(h, 1.0f / (float)n));
        const char *bc = ir_sprintf(h->g, "L%d_mean", l);
        int r = TT(h, y)->rank > 0 ? TT(h, y)->rank : 1;
        int64_t ones[O2H_MAX_RANK], yd[O2H_MAX_RANK];
        for (int i = 0; i < r; i++)
            ones[i] = 1, yd[i] = TT(h, y)->rank > 0 ? TT(h, y)->dims[i] : 1;
        cg_emit(h, h->decl, "static const O2hBroadcast %s = {%d, %s, %s, %s};\n", bc, r,
                cg_i64_list(h, yd, r), cg_i64_list(h, ones, r), cg_i64_list(h, yd, r));
        cg_host_call(h, l, CG_NO_POST, "    o2h_binary_f32(O2H_BIN_MUL, &%s, %s, &L%d_inv, &E_NONE, %s);\n",
                     bc, Y, l, Y);
    }
    return cg_host_post(h, l, NULL);
}

int cg_host_binary(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int y = L->out[0];
    for (int i = 0; i < L->n_in; i++)
        if (CG_NEED_FLOAT(h, l, L->in[i]))
            return -1;
    if (CG_NEED_FLOAT(h, l, y))
        return -1;
    bool variadic = L->op == IR_OP_SUM || L->op == IR_OP_MEAN || L->op == IR_OP_MAX || L->op == IR_OP_MIN;
    if (variadic && (L->n_in != 2 || L->op == IR_OP_MEAN))
        return emit_variadic(h, l);
    if (L->n_in != 2 || L->in[0] < 0 || L->in[1] < 0) {
        cg_host_reject(h, l, "expects two operands");
        return -1;
    }
    return emit_binary2(h, l, L->in[0], L->in[1], y);
}
