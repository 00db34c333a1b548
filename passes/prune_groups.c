/* prune_groups.c - which tensors share a channel mask (prune pass, part 1).
 *
 * Why: removing output channel c of a conv is only legal if every tensor
 * carrying that channel - through depthwise convs, BN, activations, pools,
 * residual Adds (fused or not), SE scales, views down to the FC - drops it
 * too, and every layer reading those tensors can shrink its weights to
 * match. Each layer states here how its inputs and outputs relate:
 *   union    the same channels (element-wise ops, BN, pools, depthwise
 *            conv, residual epilogue, Pad/Resize of spatial axes, views
 *            that keep each channel's elements together);
 *   source   a full conv or a Gemm/MatMul with constant weights chooses its
 *            output channels and shrinks its input side;
 *   derived  a channel Concat's mask is its inputs' masks end to end;
 *   freeze   anything else (unknown ops, graph inputs and outputs, grouped
 *            convs, odd broadcasts) keeps every channel of the tensors it
 *            touches.
 * A group is pruned only if no member is frozen, so whatever this file does
 * not understand is left exactly as it was.
 */
#include "prune_internal.h"

#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------- union-find */

int prune_find(Pruner *P, int t)
{
    while (P->parent[t] != t) {
        P->parent[t] = P->parent[P->parent[t]];
        t = P->parent[t];
    }
    return t;
}

static bool act_tensor(const Pruner *P, int t)
{
    return t >= 0 && t < P->nt && P->g->tensors[t].kind != IR_T_CONST;
}

int64_t prune_chan(const Pruner *P, int t)
{
    if (!act_tensor(P, t) || P->blk[t] <= 0)
        return -1;
    const IrTensor *T = &P->g->tensors[t];
    return T->dims[1] % P->blk[t] ? -1 : T->dims[1] / P->blk[t];
}

static void freeze(Pruner *P, int t)
{
    if (act_tensor(P, t))
        P->frozen[t] = true;
}

static void unite(Pruner *P, int a, int b)
{
    if (!act_tensor(P, a) || !act_tensor(P, b))
        return;
    int64_t ca = prune_chan(P, a), cb = prune_chan(P, b);
    if (ca < 0 || ca != cb) {
        freeze(P, a);
        freeze(P, b);
        return;
    }
    int ra = prune_find(P, a), rb = prune_find(P, b);
    if (ra != rb)
        P->parent[rb] = ra;
}

static void freeze_layer(Pruner *P, const IrLayer *L)
{
    for (int i = 0; i < L->n_in; i++)
        freeze(P, L->in[i]);
    for (int i = 0; i < L->n_out; i++)
        freeze(P, L->out[i]);
    freeze(P, L->residual);
}

/* ------------------------------------------------------------- setup */

int prune_init(Pruner *P, IrGraph *g)
{
    memset(P, 0, sizeof *P);
    P->g = g;
    P->nt = g->n_tensors;
    size_t nt = (size_t)P->nt + 1, nl = (size_t)g->n_layers + 1;
    P->parent = malloc(nt * sizeof *P->parent);
    P->blk = calloc(nt, sizeof *P->blk);
    P->frozen = calloc(nt, sizeof *P->frozen);
    P->concat_of = malloc(nt * sizeof *P->concat_of);
    P->has_source = calloc(nt, sizeof *P->has_source);
    P->n_concat = calloc(nt, sizeof *P->n_concat);
    P->keep = calloc(nt, sizeof *P->keep);
    P->cut = calloc(nt, sizeof *P->cut);
    P->n_keep = calloc(nt, sizeof *P->n_keep);
    P->source = calloc(nl, sizeof *P->source);
    if (!P->parent || !P->blk || !P->frozen || !P->concat_of || !P->has_source || !P->n_concat || !P->keep || !P->cut ||
        !P->n_keep || !P->source)
        return -1;
    for (int t = 0; t < P->nt; t++) {
        const IrTensor *T = &g->tensors[t];
        P->parent[t] = t;
        P->concat_of[t] = -1;
        bool chan = T->kind != IR_T_CONST && T->dtype == IR_DT_FLOAT && T->rank >= 2 && T->dims[1] > 0;
        P->blk[t] = chan ? 1 : 0;
        if (T->kind == IR_T_INPUT || pass_is_graph_output(g, t))
            P->frozen[t] = true;
    }
    return 0;
}

void prune_free(Pruner *P)
{
    if (P->keep)
        for (int t = 0; t < P->nt; t++)
            free(P->keep[t]);
    free(P->parent);
    free(P->blk);
    free(P->frozen);
    free(P->concat_of);
    free(P->has_source);
    free(P->n_concat);
    free(P->keep);
    free(P->cut);
    free(P->n_keep);
    free(P->source);
}

/* ------------------------------------------------------------- conv */

bool prune_conv_full(const IrGraph *g, const IrLayer *L)
{
    (void)g;
    return L->op == IR_OP_CONV && L->attr.conv.group == 1;
}

bool prune_conv_dw(const IrGraph *g, const IrLayer *L)
{
    if (L->op != IR_OP_CONV || L->attr.conv.group <= 1 || !pass_tensor_ok(g, L->in[0]) ||
        !pass_tensor_ok(g, L->out[0]))
        return false;
    int64_t G = L->attr.conv.group;
    return g->tensors[L->in[0]].dims[1] == G && g->tensors[L->out[0]].dims[1] == G;
}

/* weights (and bias) are float constants shaped [F, C/group, k...] ([F]) */
static bool conv_consts_ok(Pruner *P, const IrLayer *L)
{
    IrGraph *g = P->g;
    if (L->n_in < 2 || !pass_const_f32(g, L->in[1]) || g->tensors[L->in[1]].rank < 3)
        return false;
    int64_t F = g->tensors[L->in[1]].dims[0];
    if (F != g->tensors[L->out[0]].dims[1])
        return false;
    return L->n_in < 3 || L->in[2] < 0 || (pass_const_f32(g, L->in[2]) && ir_tensor_numel(&g->tensors[L->in[2]]) == F);
}

static void an_conv(Pruner *P, int l)
{
    const IrLayer *L = &P->g->layers[l];
    if (!conv_consts_ok(P, L) || prune_chan(P, L->in[0]) < 0 || prune_chan(P, L->out[0]) < 0) {
        freeze_layer(P, L);
    } else if (prune_conv_full(P->g, L)) {
        P->source[l] = true;
    } else if (prune_conv_dw(P->g, L)) {
        unite(P, L->in[0], L->out[0]);
    } else {
        freeze_layer(P, L);
    }
}

/* -------------------------------------------------------------- gemm */

static bool gemm_bias_ok(const IrGraph *g, int c, int64_t N)
{
    if (c < 0)
        return true;
    const IrTensor *C = &g->tensors[c];
    if (C->kind != IR_T_CONST || C->dtype != IR_DT_FLOAT || C->rank > 2)
        return false;
    return C->rank == 0 || C->dims[C->rank - 1] == N || C->dims[C->rank - 1] == 1;
}

static void an_gemm(Pruner *P, int l)
{
    const IrLayer *L = &P->g->layers[l];
    IrGraph *g = P->g;
    bool gemm = L->op == IR_OP_GEMM;
    bool ok = L->n_in >= 2 && pass_const_f32(g, L->in[1]) && g->tensors[L->in[1]].rank == 2 &&
              prune_chan(P, L->in[0]) >= 0 && g->tensors[L->in[0]].rank == 2 &&
              prune_chan(P, L->out[0]) >= 0 && g->tensors[L->out[0]].rank == 2;
    if (ok && gemm)
        ok = !L->attr.gemm.trans_a && gemm_bias_ok(g, L->n_in >= 3 ? L->in[2] : -1, g->tensors[L->out[0]].dims[1]);
    if (ok)
        P->source[l] = true;
    else
        freeze_layer(P, L);
}

/* ------------------------------------------------------ element-wise */

int prune_const_axis(const IrGraph *g, int c, int r, int64_t D)
{
    const IrTensor *C = &g->tensors[c];
    if (C->rank < 0 || C->rank > r)
        return -1;
    int ax = 1 - (r - C->rank);
    if (ax < 0 || C->dims[ax] == 1)
        return -2;
    return C->dims[ax] == D ? ax : -1;
}

/* an operand of an element-wise layer with output y: join, accept or freeze */
static void an_operand(Pruner *P, const IrLayer *L, int x, int y)
{
    IrGraph *g = P->g;
    if (x < 0)
        return;
    const IrTensor *X = &g->tensors[x], *Y = &g->tensors[y];
    if (X->kind == IR_T_CONST) {
        if (X->dtype != IR_DT_FLOAT || prune_const_axis(g, x, Y->rank, Y->dims[1]) == -1)
            freeze_layer(P, L);
        return;
    }
    if (X->rank == Y->rank && X->dims[1] == Y->dims[1])
        unite(P, x, y);
    else if (!(X->rank == Y->rank && X->dims[1] == 1))
        freeze_layer(P, L);
}

/* y inherits the channel block of the first operand shaped like it along
 * axis 1 (a Relu after a Flatten keeps the Flatten's blocks) */
static void inherit_blk(Pruner *P, const IrLayer *L, int y)
{
    const IrTensor *Y = &P->g->tensors[y];
    for (int i = 0; i < L->n_in; i++) {
        int x = L->in[i];
        if (act_tensor(P, x) && P->blk[x] > 0 && P->g->tensors[x].rank == Y->rank &&
            P->g->tensors[x].dims[1] == Y->dims[1]) {
            P->blk[y] = P->blk[x];
            return;
        }
    }
}

static void an_elementwise(Pruner *P, int l)
{
    const IrLayer *L = &P->g->layers[l];
    int y = L->out[0];
    inherit_blk(P, L, y);
    if (prune_chan(P, y) < 0) {
        freeze_layer(P, L);
        return;
    }
    for (int i = 0; i < L->n_in; i++)
        an_operand(P, L, L->in[i], y);
}

/* BN: data and per-channel parameters */
static void an_bn(Pruner *P, int l)
{
    const IrLayer *L = &P->g->layers[l];
    int64_t C = P->g->tensors[L->out[0]].dims[1];
    inherit_blk(P, L, L->out[0]);
    bool ok = L->n_in == 5 && prune_chan(P, L->out[0]) >= 0;
    for (int i = 1; ok && i < 5; i++)
        ok = pass_const_f32(P->g, L->in[i]) && ir_tensor_numel(&P->g->tensors[L->in[i]]) == C;
    if (ok)
        unite(P, L->in[0], L->out[0]);
    else
        freeze_layer(P, L);
}

/* ------------------------------------------------------------- views */

static int64_t inner_size(const IrTensor *T)
{
    int64_t n = 1;
    for (int i = 2; i < T->rank; i++)
        n *= T->dims[i];
    return n;
}

/* a view keeps the flat order, so channel c of x stays one contiguous run
 * of each sample: the run length over y's inner size is y's block. A view
 * that still carries a shape operand is frozen (the operand would go stale). */
static void an_view(Pruner *P, int l)
{
    const IrLayer *L = &P->g->layers[l];
    int x = L->in[0], y = L->out[0];
    const IrTensor *X = &P->g->tensors[x], *Y = &P->g->tensors[y];
    int64_t run = prune_chan(P, x) > 0 ? P->blk[x] * inner_size(X) : 0;
    bool ok = L->n_in == 1 && run > 0 && P->blk[y] > 0 && Y->dims[0] == X->dims[0] && inner_size(Y) > 0 &&
              run % inner_size(Y) == 0 && ir_tensor_numel(X) == ir_tensor_numel(Y);
    if (!ok) {
        freeze_layer(P, L);
        return;
    }
    P->blk[y] = run / inner_size(Y);
    unite(P, x, y);
}

/* ----------------------------------------------------------- concat */

static void an_concat(Pruner *P, int l)
{
    const IrLayer *L = &P->g->layers[l];
    int y = L->out[0];
    int64_t axis = L->attr.axis.axis;
    int r = P->g->tensors[y].rank;
    bool ok = r >= 2 && (axis == 1 || axis == 1 - r) && P->blk[y] == 1;
    for (int i = 0; ok && i < L->n_in; i++)
        ok = act_tensor(P, L->in[i]) && P->blk[L->in[i]] == 1 && P->g->tensors[L->in[i]].rank == r;
    if (!ok) {
        freeze_layer(P, L);
        return;
    }
    P->concat_of[y] = l;
}

/* --------------------------------------------- pads, resize, epilogue */

static void an_spatial(Pruner *P, int l)
{
    const IrLayer *L = &P->g->layers[l];
    bool ok = true;
    if (L->op == IR_OP_PAD)
        ok = L->attr.pad.begin[0] == 0 && L->attr.pad.end[0] == 0 && L->attr.pad.begin[1] == 0 &&
             L->attr.pad.end[1] == 0;
    else if (L->op == IR_OP_RESIZE || L->op == IR_OP_UPSAMPLE)
        ok = L->attr.resize.scale[0] == 1.0f && L->attr.resize.scale[1] == 1.0f;
    if (ok && L->n_in == 1 && P->g->tensors[L->in[0]].rank == P->g->tensors[L->out[0]].rank)
        unite(P, L->in[0], L->out[0]);
    else
        freeze_layer(P, L);
}

static void an_epilogue(Pruner *P, const IrLayer *L)
{
    int y = L->out[0];
    if (L->residual >= 0) {
        if (pass_same_shape(P->g, L->residual, y))
            unite(P, L->residual, y);
        else
            freeze_layer(P, L);
    }
    if (L->act_slope >= 0) {
        const IrTensor *Y = &P->g->tensors[y];
        if (!pass_const_f32(P->g, L->act_slope) || prune_const_axis(P->g, L->act_slope, Y->rank, Y->dims[1]) == -1)
            freeze_layer(P, L);
    }
}

/* ----------------------------------------------------------- driver */

static bool is_view_op(IrOp op)
{
    return op == IR_OP_FLATTEN || op == IR_OP_RESHAPE || op == IR_OP_SQUEEZE || op == IR_OP_UNSQUEEZE ||
           op == IR_OP_IDENTITY || op == IR_OP_DROPOUT;
}

static bool is_pool_like(IrOp op)
{
    return op == IR_OP_MAXPOOL || op == IR_OP_AVGPOOL || op == IR_OP_GLOBAL_AVGPOOL ||
           op == IR_OP_GLOBAL_MAXPOOL || op == IR_OP_PAD || op == IR_OP_RESIZE || op == IR_OP_UPSAMPLE;
}

static void analyze_layer(Pruner *P, int l)
{
    const IrLayer *L = &P->g->layers[l];
    IrOp op = L->op;
    if (L->n_out != 1 || L->n_in < 1 || !act_tensor(P, L->out[0]) || !act_tensor(P, L->in[0])) {
        freeze_layer(P, L);
        return;
    }
    if (op == IR_OP_CONV)
        an_conv(P, l);
    else if (op == IR_OP_GEMM || op == IR_OP_MATMUL)
        an_gemm(P, l);
    else if (op == IR_OP_BATCHNORM)
        an_bn(P, l);
    else if (is_view_op(op))
        an_view(P, l);
    else if (op == IR_OP_CONCAT)
        an_concat(P, l);
    else if (is_pool_like(op))
        an_spatial(P, l);
    else if (ir_op_flags(op) & IR_F_ELEMWISE)
        an_elementwise(P, l);
    else
        freeze_layer(P, L);
    an_epilogue(P, L);
}

/* a derived (Concat) group may not also be chosen by a source or by a second
 * Concat; when frozen, its inputs must keep all their channels */
static bool settle_concats(Pruner *P)
{
    bool changed = false;
    for (int t = 0; t < P->nt; t++) {
        int l = P->concat_of[t];
        if (l < 0)
            continue;
        int r = prune_find(P, t);
        const IrLayer *L = &P->g->layers[l];
        for (int i = 0; i < L->n_in; i++)
            if (prune_find(P, L->in[i]) == r && !P->frozen[r])
                P->frozen[r] = changed = true;
        if (!P->frozen[r] && (P->has_source[r] || P->n_concat[r] > 1))
            P->frozen[r] = changed = true;
        if (!P->frozen[r])
            continue;
        for (int i = 0; i < L->n_in; i++) {
            int ri = prune_find(P, L->in[i]);
            if (!P->frozen[ri])
                P->frozen[ri] = changed = true;
        }
    }
    return changed;
}

static void gather_roots(Pruner *P)
{
    for (int t = 0; t < P->nt; t++) {
        int r = prune_find(P, t);
        if (P->frozen[t] || P->blk[t] <= 0)
            P->frozen[r] = true;
        if (P->concat_of[t] >= 0)
            P->n_concat[r]++;
    }
    for (int l = 0; l < P->g->n_layers; l++)
        if (!P->g->layers[l].dead && P->source[l])
            P->has_source[prune_find(P, P->g->layers[l].out[0])] = true;
}

void prune_groups_build(Pruner *P)
{
    for (int l = 0; l < P->g->n_layers; l++)
        if (!P->g->layers[l].dead)
            analyze_layer(P, l);
    gather_roots(P);
    for (int guard = 0; guard < P->nt + 1 && settle_concats(P); guard++)
        ;
}
