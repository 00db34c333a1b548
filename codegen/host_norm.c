/* host_norm.c - BatchNormalization in the host C program (family norm:
 * frontend/import_norm.c, runtime/rt_norm.c).
 *
 * Why it still exists after fold_bn: a BatchNormalization with no
 * convolution or Gemm before it to fold into (or with --no-fuse) runs as its
 * own per-channel scale and shift, in place. Training-mode outputs are
 * refused unless unused.
 */
#include "host_emit.h"

int cg_host_norm(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int t[5], y = L->out[0];
    for (int i = 0; i < 5; i++)
        t[i] = in_at(L, i);
    if (t[0] < 0 || t[1] < 0 || t[2] < 0 || t[3] < 0 || t[4] < 0) {
        cg_host_reject(h, l, "BatchNormalization needs X, scale, B, mean and var");
        return -1;
    }
    if (CG_NEED_FLOAT(h, l, t[0], t[1], t[2], t[3], t[4], y) ||
        cg_extra_outputs_unused(h, l, 1, "training-mode statistics") || cg_check_post_shapes(h, l, y))
        return -1;
    const IrTensor *X = TT(h, t[0]);
    if (X->rank < 2) {
        cg_host_reject(h, l, "BatchNormalization of a rank-%d input", X->rank);
        return -1;
    }
    for (int i = 1; i < 5; i++)
        if (numel(h, t[i]) != X->dims[1]) {
            cg_host_reject(h, l, "'%s' must have one value per channel", TT(h, t[i])->name);
            return -1;
        }
    h->inplace[l] = 0;
    return cg_host_call(h, l, NULL, "    o2h_batchnorm_f32(%lld, %lld, %lld, %s, %s, %s, %s, %s, %s, %s);\n",
                        (long long)X->dims[0], (long long)X->dims[1], (long long)prod(X->dims, 2, X->rank),
                        cg_ptr(h, t[0]), cg_ptr(h, t[1]), cg_ptr(h, t[2]), cg_ptr(h, t[3]), cg_ptr(h, t[4]),
                        cg_float(h, L->attr.norm.epsilon), cg_ptr(h, y));
}
