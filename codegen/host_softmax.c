/* host_softmax.c - Softmax and LogSoftmax in the host C program (family
 * softmax: frontend/import_softmax.c, runtime/rt_softmax.c).
 *
 * Why one axis: the frontend gives every Softmax the opset-13 meaning, so
 * the call is always over the middle of an [outer][n][inner] view.
 */
#include "host_emit.h"

int cg_host_softmax(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x, y;
    if (cg_float_io(h, l, &x, &y))
        return -1;
    const IrTensor *X = TT(h, x);
    int r = X->rank, axis = norm_axis(L->attr.axis.axis, r);
    if (r == 0 || axis < 0 || axis >= r) {
        cg_host_reject(h, l, "axis %lld out of range", (long long)L->attr.axis.axis);
        return -1;
    }
    /* the frontend gives every Softmax the opset-13 meaning (one axis) */
    int64_t outer = prod(X->dims, 0, axis), n = X->dims[axis], inner = prod(X->dims, axis + 1, r);
    h->inplace[l] = 0;
    return cg_host_call(h, l, NULL, "    o2h_softmax_f32(%lld, %lld, %lld, %d, %s, %s);\n", (long long)outer,
                        (long long)n, (long long)inner, L->op == IR_OP_LOG_SOFTMAX, cg_ptr(h, x), cg_ptr(h, y));
}
