/* import_norm.c - BatchNormalization (inference form).
 *
 * Why BN stays a layer: a later pass folds it into the preceding conv when
 * it can; keeping it here lets inspect show the model as exported and lets
 * the fold pass check its own preconditions. Training-mode BN (extra
 * outputs, training_mode=1, or the per-activation spatial=0 form of opsets
 * 7-8) is rejected: an inference compiler cannot honour it. */
#include "fe_internal.h"

FE_IMPORTER(fe_import_norm)
{
    if (fe_check_arity(c, n, 5, 5, 1, 5) < 0)
        return -1;
    IrTensor *x = fe_need_in(c, n, 0, "X");
    if (!x)
        return -1;
    if (x->rank < 2)
        return fe_err(c, n, "input '%s' has rank %d; at least 2 expected (N, C, ...)", x->name,
                      x->rank);
    if (fe_attr_int(c, n, "training_mode", 0) != 0)
        return fe_err(c, n, "training_mode=1 is not supported (inference only)");
    if (n->opset < 9 && fe_attr_int(c, n, "spatial", 1) == 0)
        return fe_err(c, n, "spatial=0 (per-activation statistics) is not supported");
    for (int i = 1; i < n->n_out; i++)
        if (n->pb->output[i][0])
            return fe_err(c, n, "training outputs (running mean/variance) are not supported");
    static const char *what[] = {"X", "scale", "B", "input_mean", "input_var"};
    for (int i = 1; i < 5; i++) {
        IrTensor *p = fe_need_in(c, n, i, what[i]);
        if (!p)
            return -1;
        if (p->rank != 1 || p->dims[0] != x->dims[1])
            return fe_err(c, n, "%s '%s' must have shape [%lld]", what[i], p->name,
                          (long long)x->dims[1]);
    }
    n->attr.norm.epsilon = fe_attr_float(c, n, "epsilon", 1e-5f);
    fe_out_like(n, 0, x);
    n->no_fold = true;
    return 0;
}
