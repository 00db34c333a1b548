/* prune_apply.c - remove the pruned channels physically (prune pass, part 3).
 *
 * Why separate: once every group has its mask, the rewrite is mechanical -
 * each layer slices the axes of its constants that run over pruned channels
 * (conv filters and their input columns, FC rows/columns, biases, BN
 * parameters, PRelu slopes, per-channel operands of element-wise ops), a
 * depthwise conv's group count follows its channels, and every activation
 * tensor of a pruned group gets its smaller axis 1. Constants are always
 * copied (ir_const_add), never cut in place: they may be shared.
 */
#include "prune_internal.h"

#include <string.h>

const bool *prune_mask(Pruner *P, int t)
{
    if (t < 0 || t >= P->nt || P->g->tensors[t].kind == IR_T_CONST || P->blk[t] <= 0)
        return NULL;
    int r = prune_find(P, t);
    return P->frozen[r] ? NULL : P->keep[r];
}

/* One axis filter of a constant: keep index i of axis ax iff m[i / blk]. */
typedef struct {
    int ax;
    const bool *m;
    int64_t blk;
} AxisCut;

static bool cut_keeps(const AxisCut *c, const IrTensor *T, int64_t flat)
{
    if (c->ax < 0 || !c->m)
        return true;
    int64_t stride = 1;
    for (int i = c->ax + 1; i < T->rank; i++)
        stride *= T->dims[i];
    int64_t idx = (flat / stride) % T->dims[c->ax];
    return c->m[idx / c->blk];
}

static int64_t cut_len(const AxisCut *c, int64_t n)
{
    if (c->ax < 0 || !c->m)
        return n;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        k += c->m[i / c->blk];
    return k;
}

/* a copy of float constant t without the cut indices of up to two axes */
static int slice_const(IrGraph *g, int t, AxisCut a, AxisCut b)
{
    if ((a.ax < 0 || !a.m) && (b.ax < 0 || !b.m))
        return t;
    IrTensor T = g->tensors[t]; /* copy: the array may move */
    int64_t dims[IR_MAX_RANK];
    for (int i = 0; i < T.rank; i++)
        dims[i] = T.dims[i];
    if (a.ax >= 0)
        dims[a.ax] = cut_len(&a, T.dims[a.ax]);
    if (b.ax >= 0)
        dims[b.ax] = cut_len(&b, T.dims[b.ax]);
    const float *src = pass_const_f32(g, t);
    float *dst;
    int nt = pass_new_const_f32(g, T.name, "_pruned", T.rank, dims, &dst);
    int64_t n = ir_tensor_numel(&T), o = 0;
    for (int64_t i = 0; i < n; i++)
        if (cut_keeps(&a, &T, i) && cut_keeps(&b, &T, i))
            dst[o++] = src[i];
    return nt;
}

static const AxisCut NO_CUT = {-1, NULL, 1};

static AxisCut cut(int ax, const bool *m, int64_t blk)
{
    return (AxisCut){ax, m, blk > 0 ? blk : 1};
}

/* ----------------------------------------------------------- layers */

static void apply_conv(Pruner *P, IrLayer *L)
{
    IrGraph *g = P->g;
    const bool *mo = prune_mask(P, L->out[0]), *mi = prune_mask(P, L->in[0]);
    bool dw = prune_conv_dw(g, L);
    if (dw)
        mi = NULL; /* same mask as the output: cut once, on axis 0 */
    if (!mo && !mi)
        return;
    L->in[1] = slice_const(g, L->in[1], cut(0, mo, 1), cut(1, mi, P->blk[L->in[0]]));
    if (L->n_in >= 3 && L->in[2] >= 0)
        L->in[2] = slice_const(g, L->in[2], cut(0, mo, 1), NO_CUT);
    if (dw && mo)
        L->attr.conv.group = P->n_keep[prune_find(P, L->out[0])];
}

static void apply_gemm(Pruner *P, IrLayer *L)
{
    IrGraph *g = P->g;
    const bool *mk = prune_mask(P, L->in[0]), *mn = prune_mask(P, L->out[0]);
    if (!mk && !mn)
        return;
    bool tb = L->op == IR_OP_GEMM && L->attr.gemm.trans_b;
    AxisCut k = cut(tb ? 1 : 0, mk, P->blk[L->in[0]]), n = cut(tb ? 0 : 1, mn, P->blk[L->out[0]]);
    L->in[1] = slice_const(g, L->in[1], k, n);
    if (L->op != IR_OP_GEMM || L->n_in < 3 || L->in[2] < 0 || !mn)
        return;
    const IrTensor *C = &g->tensors[L->in[2]];
    if (C->rank >= 1 && C->dims[C->rank - 1] > 1)
        L->in[2] = slice_const(g, L->in[2], cut(C->rank - 1, mn, P->blk[L->out[0]]), NO_CUT);
}

static void apply_bn(Pruner *P, IrLayer *L)
{
    const bool *m = prune_mask(P, L->out[0]);
    if (!m)
        return;
    for (int i = 1; i < 5 && i < L->n_in; i++)
        L->in[i] = slice_const(P->g, L->in[i], cut(0, m, P->blk[L->out[0]]), NO_CUT);
}

/* per-channel constant c against output y */
static int apply_chan_const(Pruner *P, int c, int y)
{
    const bool *m = prune_mask(P, y);
    const IrTensor *Y = &P->g->tensors[y];
    if (!m || !pass_const_f32(P->g, c))
        return c;
    int ax = prune_const_axis(P->g, c, Y->rank, Y->dims[1]);
    return ax >= 0 ? slice_const(P->g, c, cut(ax, m, P->blk[y]), NO_CUT) : c;
}

static void apply_layer(Pruner *P, int l)
{
    IrLayer *L = &P->g->layers[l];
    if (L->n_out < 1 || L->out[0] < 0)
        return;
    if (L->op == IR_OP_CONV && L->n_in >= 2)
        apply_conv(P, L);
    else if ((L->op == IR_OP_GEMM || L->op == IR_OP_MATMUL) && L->n_in >= 2)
        apply_gemm(P, L);
    else if (L->op == IR_OP_BATCHNORM)
        apply_bn(P, L);
    else if (ir_op_flags(L->op) & IR_F_ELEMWISE)
        for (int i = 0; i < L->n_in; i++)
            if (pass_is_const(P->g, L->in[i]))
                L->in[i] = apply_chan_const(P, L->in[i], L->out[0]);
    if (L->act_slope >= 0)
        L->act_slope = apply_chan_const(P, L->act_slope, L->out[0]);
}

void prune_apply(Pruner *P)
{
    IrGraph *g = P->g;
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead)
            apply_layer(P, l);
    for (int t = 0; t < P->nt; t++) {
        if (!prune_mask(P, t))
            continue;
        g->tensors[t].dims[1] = P->n_keep[prune_find(P, t)] * P->blk[t];
    }
}
