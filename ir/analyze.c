/* analyze.c - per-layer figures (MACs, parameters, reuse, feature-map sizes)
 * shared by `inspect`, the planner's cost model and the reports, so the three
 * never disagree about what a layer costs.
 *
 * Conventions: MACs count the multiply-accumulates of conv, conv-transpose,
 * Gemm and MatMul only (the usual figure quoted for CNNs); other layers have
 * macs == 0 but still report their feature-map sizes. Reuse figures are per
 * inference: weight_reuse = uses of each weight (Ho*Wo*N for a conv, M for a
 * Gemm), input_reuse = MACs / input elements. */
#include "ir.h"

#include <string.h>

static int64_t numel_or0(const IrGraph *g, int t)
{
    if (t < 0 || t >= g->n_tensors)
        return 0;
    int64_t n = ir_tensor_numel(&g->tensors[t]);
    return n < 0 ? 0 : n;
}

static int64_t spatial(const IrTensor *t)
{
    int64_t n = 1;
    for (int i = 2; i < t->rank; i++)
        n *= t->dims[i] < 0 ? 0 : t->dims[i];
    return n;
}

static void conv_stats(const IrGraph *g, const IrLayer *L, IrLayerStats *st)
{
    const IrTensor *x = &g->tensors[L->in[0]], *y = &g->tensors[L->out[0]];
    const IrConvAttr *a = &L->attr.conv;
    int64_t k = 1;
    for (int i = 0; i < a->nsp; i++)
        k *= a->kernel[i];
    int64_t n = x->rank > 0 ? x->dims[0] : 1;
    int64_t group = a->group > 0 ? a->group : 1;
    if (L->op == IR_OP_CONV) {
        int64_t cin = x->rank > 1 ? x->dims[1] / group : 0;
        st->macs = numel_or0(g, L->out[0]) * cin * k;
        st->weight_reuse = n * spatial(y);
    } else { /* transposed: every input element meets F/G * K taps */
        int64_t fo = y->rank > 1 ? y->dims[1] / group : 0;
        st->macs = numel_or0(g, L->in[0]) * fo * k;
        st->weight_reuse = n * spatial(x);
    }
}

static void gemm_stats(const IrGraph *g, const IrLayer *L, IrLayerStats *st)
{
    const IrTensor *a = &g->tensors[L->in[0]], *b = &g->tensors[L->in[1]];
    if (a->rank < 1 || b->rank < 1)
        return;
    int64_t k;
    if (L->op == IR_OP_GEMM)
        k = L->attr.gemm.trans_a ? a->dims[0] : a->dims[a->rank - 1];
    else
        k = a->dims[a->rank - 1];
    int64_t ny = numel_or0(g, L->out[0]);
    st->macs = ny * k;
    int64_t ncols = b->rank >= 2 ? (L->op == IR_OP_GEMM && L->attr.gemm.trans_b ? b->dims[0] : b->dims[b->rank - 1]) : 1;
    st->weight_reuse = ncols > 0 ? ny / ncols : 0;
}

void ir_layer_stats(const IrGraph *g, int layer, IrLayerStats *st)
{
    memset(st, 0, sizeof *st);
    const IrLayer *L = &g->layers[layer];
    for (int i = 0; i < L->n_in; i++) {
        int t = L->in[i];
        if (t < 0)
            continue;
        if (g->tensors[t].kind == IR_T_CONST)
            st->weight_elems += numel_or0(g, t);
        else
            st->ifm_elems += numel_or0(g, t);
    }
    if (L->residual >= 0)
        st->ifm_elems += numel_or0(g, L->residual);
    if (L->act_slope >= 0)
        st->weight_elems += numel_or0(g, L->act_slope);
    for (int i = 0; i < L->n_out; i++)
        st->ofm_elems += numel_or0(g, L->out[i]);
    if (L->op == IR_OP_CONV || L->op == IR_OP_CONV_TRANSPOSE)
        conv_stats(g, L, st);
    else if ((L->op == IR_OP_GEMM || L->op == IR_OP_MATMUL) && L->n_in >= 2)
        gemm_stats(g, L, st);
    /* parameters are the learned values: weights, bias, BN statistics,
     * PRelu slopes; shape-operand constants (Reshape's shape) are not */
    switch (L->op) {
    case IR_OP_CONV: case IR_OP_CONV_TRANSPOSE: case IR_OP_GEMM: case IR_OP_MATMUL:
    case IR_OP_BATCHNORM: case IR_OP_PRELU:
        st->params = st->weight_elems;
        break;
    default:
        st->params = L->act_slope >= 0 ? numel_or0(g, L->act_slope) : 0;
        break;
    }
    if (st->ifm_elems > 0)
        st->input_reuse = st->macs / st->ifm_elems;
}

bool ir_reduce_is_spatial_mean(const IrGraph *g, const IrLayer *L)
{
    if (L->op != IR_OP_REDUCE_MEAN || L->n_in < 1 || L->in[0] < 0)
        return false;
    int rank = g->tensors[L->in[0]].rank, seen = 0;
    if (rank < 3 || L->attr.axes.n != rank - 2)
        return false;
    for (int i = 0; i < L->attr.axes.n; i++) {
        int64_t a = L->attr.axes.perm[i] < 0 ? L->attr.axes.perm[i] + rank : L->attr.axes.perm[i];
        if (a < 2 || a >= rank || (seen & (1 << a)))
            return false;
        seen |= 1 << a;
    }
    return true;
}

static int norm_axis(int64_t a, int rank)
{
    return (int)(a < 0 ? a + rank : a);
}

int ir_slice_bounds(const IrGraph *g, const IrLayer *L, int64_t *starts, int64_t *steps)
{
    const IrTensor *X = &g->tensors[L->in[0]], *Y = &g->tensors[L->out[0]];
    const IrSliceAttr *a = &L->attr.slice;
    int r = X->rank;
    if (Y->rank != r)
        return -1;
    for (int i = 0; i < r; i++)
        starts[i] = 0, steps[i] = 1;
    for (int i = 0; i < a->n; i++) {
        int ax = norm_axis(a->axes[i], r);
        if (ax < 0 || ax >= r)
            return -1;
        int64_t dim = X->dims[ax], st = a->steps[i] ? a->steps[i] : 1, s = a->starts[i];
        int64_t hi = st > 0 ? dim : dim - 1;
        s = s < 0 ? s + dim : s;
        starts[ax] = s < 0 ? 0 : s > hi ? hi : s;
        steps[ax] = st;
    }
    for (int i = 0; i < r; i++) {
        int64_t last = starts[i] + (Y->dims[i] - 1) * steps[i];
        if (Y->dims[i] > 0 && (last < 0 || last >= X->dims[i]))
            return -1;
    }
    return 0;
}

int ir_transpose_perm(const IrGraph *g, const IrLayer *L, int *perm)
{
    int r = g->tensors[L->in[0]].rank;
    const IrAxesAttr *a = &L->attr.axes;
    bool seen[IR_MAX_RANK] = {false};
    if (a->n != 0 && a->n != r)
        return -1;
    for (int i = 0; i < r; i++) {
        int p = a->n == 0 ? r - 1 - i : norm_axis(a->perm[i], r);
        if (p < 0 || p >= r || seen[p])
            return -1;
        seen[p] = true;
        perm[i] = p;
    }
    return 0;
}

float ir_resize_scale(const IrGraph *g, const IrLayer *L, int i)
{
    const IrTensor *X = &g->tensors[L->in[0]], *Y = &g->tensors[L->out[0]];
    float s = L->attr.resize.scale[i];
    return s > 0 ? s : X->dims[i] ? (float)Y->dims[i] / (float)X->dims[i] : 1.0f;
}

/* --------------------------------------------------------- channel moves */

/* x and y agree on every axis but the channels (axis 1) */
static bool same_but_channels(const IrTensor *x, const IrTensor *y)
{
    if (x->rank < 2 || y->rank != x->rank)
        return false;
    for (int i = 0; i < x->rank; i++)
        if (i != 1 && x->dims[i] != y->dims[i])
            return false;
    return true;
}

/* element i of an integer constant (aligned copy or the mapped bytes) */
static int64_t const_int(const IrTensor *t, int64_t i)
{
    const uint8_t *p = t->data ? (const uint8_t *)t->data : t->src;
    if (t->dtype == IR_DT_INT32) {
        int32_t v;
        memcpy(&v, p + 4 * i, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, p + 8 * i, 8);
    return v;
}

static bool slice_move(const IrTensor *x, const IrSliceAttr *a, IrChanMove *m)
{
    for (int i = 0; i < a->n; i++) {
        if (a->axes[i] == 1)
            m->coff = a->starts[i], m->step = a->steps[i];
        else if (a->starts[i] != 0 || a->steps[i] != 1 || a->ends[i] < x->dims[a->axes[i]])
            return false;
    }
    return m->step >= 1;
}

/* channel index o of a slice (groups 1) or a shuffle (coff 0, step 1) */
static int64_t move_src(const IrChanMove *m, int64_t o)
{
    return m->coff + ((o % m->groups) * (m->count / m->groups) + o / m->groups) * m->step;
}

/* indices idx[0..count) as evenly spaced channels, or as a shuffle */
static bool gather_move(const IrTensor *ix, IrChanMove *m)
{
    int64_t n = m->count, i0 = const_int(ix, 0), i1;
    i0 += i0 < 0 ? m->c_in : 0;
    i1 = n > 1 ? const_int(ix, 1) : i0 + 1;
    i1 += i1 < 0 ? m->c_in : 0;
    *m = (IrChanMove){m->c_in, n, i0, i1 - i0, 1};
    for (int pass = 0; pass < 2; pass++) {
        bool ok = m->step >= 1 && n % m->groups == 0;
        for (int64_t o = 0; ok && o < n; o++) {
            int64_t v = const_int(ix, o);
            ok = (v < 0 ? v + m->c_in : v) == move_src(m, o);
        }
        if (ok)
            return true;
        if (i0 != 0 || i1 <= 0 || n % i1)   /* a shuffle: idx[1] = count / groups */
            return false;
        *m = (IrChanMove){m->c_in, n, 0, 1, n / i1};
    }
    return false;
}

bool ir_chan_move(const IrGraph *g, const IrLayer *L, int k, IrChanMove *m)
{
    if (L->n_in < 1 || L->in[0] < 0 || k < 0 || k >= L->n_out || L->out[k] < 0)
        return false;
    const IrTensor *x = &g->tensors[L->in[0]], *y = &g->tensors[L->out[k]];
    if (!same_but_channels(x, y) || y->dims[1] <= 0 || x->dims[1] <= 0)
        return false;
    *m = (IrChanMove){x->dims[1], y->dims[1], 0, 1, 1};
    switch (L->op) {
    case IR_OP_SPLIT:
        if (L->attr.axis.axis != 1)
            return false;
        for (int i = 0; i < k; i++)
            m->coff += L->out[i] >= 0 ? g->tensors[L->out[i]].dims[1] : 0;
        return true;
    case IR_OP_SLICE:
        return slice_move(x, &L->attr.slice, m);
    case IR_OP_GATHER: {
        const IrTensor *ix = L->n_in > 1 && L->in[1] >= 0 ? &g->tensors[L->in[1]] : NULL;
        if (!ix || ix->kind != IR_T_CONST || ix->rank != 1 || L->attr.axis.axis != 1 ||
            (ix->dtype != IR_DT_INT32 && ix->dtype != IR_DT_INT64) || (!ix->data && !ix->src))
            return false;
        return gather_move(ix, m);
    }
    default:
        return false;
    }
}

const char *ir_layer_kind_name(const IrGraph *g, int layer)
{
    const IrLayer *L = &g->layers[layer];
    switch (L->op) {
    case IR_OP_CONV:
        switch (L->attr.conv.cls) {
        case IR_CONV_STANDARD: return "conv";
        case IR_CONV_POINTWISE: return "pwconv";
        case IR_CONV_DEPTHWISE: return "dwconv";
        case IR_CONV_GROUPED: return "gconv";
        }
        return "conv";
    case IR_OP_CONV_TRANSPOSE: return "deconv";
    case IR_OP_GEMM: return "fc";
    case IR_OP_MATMUL:
        return (L->n_in >= 2 && L->in[1] >= 0 && g->tensors[L->in[1]].kind == IR_T_CONST) ? "fc" : "matmul";
    case IR_OP_BATCHNORM: return "bn";
    case IR_OP_MUL:
        if (L->se)
            return "se";
        break;
    case IR_OP_MAXPOOL: case IR_OP_AVGPOOL: return "pool";
    case IR_OP_GLOBAL_AVGPOOL: case IR_OP_GLOBAL_MAXPOOL: return "gpool";
    default: break;
    }
    const char *fam = ir_op_family(L->op);
    if (!strcmp(fam, "unary"))
        return "act";
    if (!strcmp(fam, "binary"))
        return "eltwise";
    if (!strcmp(fam, "shape"))
        return "layout";
    return fam;
}
