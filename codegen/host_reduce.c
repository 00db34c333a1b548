/* host_reduce.c - ReduceMean, ReduceMax and ReduceSum in the host C
 * program (family reduce: frontend/import_reduce.c, runtime/rt_reduce.c).
 *
 * Why runs of axes: the runtime reduces the middle of an [outer][n][inner]
 * view, so any set of axes becomes one call per run of adjacent axes.
 */
#include "host_emit.h"

#include <string.h>

/* Reduce over a set of axes: each run of adjacent axes is one call on the
 * [outer][n][inner] view; several runs chain through scratch (mean of
 * means over equal counts is the mean, and max/sum compose the same way). */
int cg_host_reduce(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x, y;
    if (cg_float_io(h, l, &x, &y))
        return -1;
    const IrTensor *X = TT(h, x);
    int r = X->rank, op = L->op == IR_OP_REDUCE_MEAN ? 0 : L->op == IR_OP_REDUCE_MAX ? 1 : 2;
    bool axis[IR_MAX_RANK] = {false};
    const IrAxesAttr *a = &L->attr.axes;
    for (int i = 0; i < a->n; i++) {
        int ax = norm_axis(a->perm[i], r);
        if (ax < 0 || ax >= r) {
            cg_host_reject(h, l, "axis %lld out of range", (long long)a->perm[i]);
            return -1;
        }
        axis[ax] = true;
    }
    for (int i = 0; a->n == 0 && i < r; i++)
        axis[i] = true;
    if (numel(h, x) == 0) {
        cg_host_reject(h, l, "reduction of an empty tensor is not supported");
        return -1;
    }
    int64_t cur[IR_MAX_RANK];
    memcpy(cur, X->dims, sizeof cur);
    int runs[IR_MAX_RANK][2], nr = 0;
    for (int i = 0; i < r; i++) {
        if (!axis[i] || X->dims[i] == 1)
            continue;
        if (nr > 0 && runs[nr - 1][1] == i)
            runs[nr - 1][1] = i + 1;
        else
            runs[nr][0] = i, runs[nr][1] = i + 1, nr++;
    }
    const char *src = cg_ptr(h, x);
    if (nr == 0) {
        cg_emit(h, h->run, "    memcpy(%s, %s, %lld);\n", cg_ptr(h, y), src,
                (long long)ir_tensor_nbytes(TT(h, y)));
    }
    for (int k = 0; k < nr; k++) {
        int64_t outer = prod(cur, 0, runs[k][0]), n = prod(cur, runs[k][0], runs[k][1]);
        int64_t inner = prod(cur, runs[k][1], r);
        const char *dst = k == nr - 1 ? cg_ptr(h, y) : cg_scratch(h, outer * inner * 4);
        cg_host_call(h, l, CG_NO_POST, "    o2h_reduce_f32(%d, %lld, %lld, %lld, %s, %s);\n", op,
                     (long long)outer, (long long)n, (long long)inner, src, dst);
        for (int i = runs[k][0]; i < runs[k][1]; i++)
            cur[i] = 1;
        src = dst;
    }
    return cg_host_post(h, l, NULL);
}
