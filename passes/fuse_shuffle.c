/* fuse_shuffle.c - pass fuse_shuffle: the channel shuffle of ShuffleNet,
 * spelled Reshape -> Transpose -> Reshape, becomes one Gather of channels.
 *
 * Contract
 *   requires: shapes known; views chained once at most (drop_views).
 *   provides: every chain
 *               x [N, C, rest...]  --Reshape-->  [N, g, C/g, rest']
 *                 --Transpose perm (0, 2, 1, 3, ...)-->  [N, C/g, g, rest']
 *                 --Reshape-->  [N, C, rest...]  (x's shape)
 *             whose inner tensors have no other reader, where rest' holds
 *             the same elements as rest, is one Gather(x, idx, axis = 1)
 *             with constant int64 indices idx[j*g + i] = i*(C/g) + j (the
 *             last Reshape's layer, keeping its name and output, with the
 *             three layers' ONNX names in its origin).
 *   breaks:   nothing (the Gather computes exactly the same tensor).
 *
 * Why: the rank-5 tensors between the views are no feature map the
 * accelerator knows, while a Gather of channels is a permutation of each
 * pixel's channels (ir_chan_move): a copy stage or descriptor that never
 * leaves the accelerator, and on the host one strided copy instead of a
 * transpose.
 */
#include "passes.h"
#include "pass_util.h"

#include <string.h>

static bool is_reshape(const IrGraph *g, int l)
{
    return l >= 0 && (g->layers[l].op == IR_OP_RESHAPE || g->layers[l].op == IR_OP_FLATTEN) &&
           pass_no_epilogue(&g->layers[l]) && g->layers[l].n_in >= 1;
}

static int64_t prod(const IrTensor *t, int from)
{
    int64_t n = 1;
    for (int i = from; i < t->rank; i++)
        n *= t->dims[i];
    return n;
}

/* perm swaps axes 1 and 2 of a rank-r tensor and keeps the others */
static bool swaps_1_2(const IrAxesAttr *a, int r)
{
    if (a->n != r || r < 3)
        return false;
    for (int i = 0; i < r; i++)
        if (a->perm[i] != (i == 1 ? 2 : i == 2 ? 1 : i))
            return false;
    return true;
}

/* x [N, C, rest] reshaped to v [N, g, C/g, rest']: g, else 0 */
static int64_t groups_of(const IrTensor *x, const IrTensor *v)
{
    if (x->rank < 2 || v->rank < 3 || v->dims[0] != x->dims[0] || v->dims[1] * v->dims[2] != x->dims[1] ||
        v->dims[1] <= 0 || v->dims[2] <= 0 || prod(v, 3) != prod(x, 2))
        return 0;
    return v->dims[1];
}

/* the indices of the shuffle of c channels in g groups, as a new constant */
static int shuffle_indices(IrGraph *g, const char *base, int64_t c, int64_t groups)
{
    int64_t *idx;
    int t = ir_const_add(g, pass_unique_name(g, base, ".shuffle_idx"), IR_DT_INT64, 1, &c, (void **)&idx);
    int64_t k = c / groups;
    for (int64_t i = 0; i < groups; i++)
        for (int64_t j = 0; j < k; j++)
            idx[j * groups + i] = i * k + j;
    return t;
}

/* Reshape r2 closing a shuffle: rewrite it into the Gather; 1 if done */
static int fuse_at(IrGraph *g, int r2)
{
    const IrLayer *R2 = &g->layers[r2];
    int t = pass_producer(g, R2->in[0]);
    if (t < 0 || g->layers[t].op != IR_OP_TRANSPOSE || !pass_no_epilogue(&g->layers[t]) ||
        pass_sole_consumer(g, R2->in[0]) != r2)
        return 0;
    int v = g->layers[t].in[0], r1 = pass_producer(g, v);
    if (!is_reshape(g, r1) || pass_sole_consumer(g, v) != t || !swaps_1_2(&g->layers[t].attr.axes, g->tensors[v].rank))
        return 0;
    int x = g->layers[r1].in[0];
    int64_t grp = groups_of(&g->tensors[x], &g->tensors[v]);
    if (grp <= 0 || !pass_same_shape(g, x, R2->out[0]))
        return 0;
    int idx = shuffle_indices(g, g->tensors[R2->out[0]].name, g->tensors[x].dims[1], grp);
    IrLayer *L = &g->layers[r2];
    L->op = IR_OP_GATHER;
    memset(&L->attr, 0, sizeof L->attr);
    L->attr.axis.axis = 1;
    L->n_in = 2;
    ir_set_use(g, r2, &L->in[0], x);
    ir_set_use(g, r2, &L->in[1], idx);
    pass_merge_origin(g, r2, r1);
    pass_merge_origin(g, r2, t);
    pass_kill(g, t);
    pass_kill(g, r1);
    return 1;
}

int pass_fuse_shuffle(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    (void)d;
    int n = 0;
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead && is_reshape(g, l) && g->layers[l].n_out >= 1 && pass_single_output(g, l))
            n += fuse_at(g, l);
    return n;
}
