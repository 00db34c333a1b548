/* host_resize.c - Resize and Upsample in the host C program (family
 * resize: frontend/import_resize.c, runtime/rt_resize.c).
 *
 * Why the scale is resolved here: ONNX maps output to input coordinates by
 * the scale when one is given, which need not equal output/input size, so
 * the descriptor carries the scale the frontend recorded per axis, or
 * output/input where it recorded none.
 */
#include "host_emit.h"

int cg_host_resize(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x, y;
    if (cg_float_io(h, l, &x, &y))
        return -1;
    const IrTensor *X = TT(h, x), *Y = TT(h, y);
    const IrResizeAttr *a = &L->attr.resize;
    if (X->rank != Y->rank || X->rank < 1 || X->rank > O2H_MAX_RANK) {
        cg_host_reject(h, l, "output rank differs from the input");
        return -1;
    }
    int r = X->rank;
    float scale[IR_MAX_RANK];
    for (int i = 0; i < r; i++)
        scale[i] = ir_resize_scale(h->g, L, i);
    const char *id = layer_id(h, l);
    cg_emit(h, h->decl, "static const O2hResize %s = {%d, %s, %s, {", id, r, cg_i64_list(h, X->dims, r),
            cg_i64_list(h, Y->dims, r));
    for (int i = 0; i < r; i++)
        cg_emit(h, h->decl, "%s%s", i ? ", " : "", cg_float(h, scale[i]));
    cg_emit(h, h->decl, "}, %d, %d, %d, %s};\n", (int)a->mode, (int)a->coord, (int)a->nearest,
            cg_float(h, a->cubic_a));
    return cg_host_call(h, l, NULL, "    o2h_resize_f32(&%s, %s, %s);\n", id, cg_ptr(h, x), cg_ptr(h, y));
}
