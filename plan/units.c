/* units.c - from IR layers to the planner's units of accelerator work.
 *
 * Why a mapping step: the planner reasons about engines, not ONNX nodes.
 * Each layer an engine can run becomes a unit with its full geometry (one
 * image, NHWC: pads with any ceil-mode overhang, strides, dilations,
 * groups; an FC is a conv whose window is its whole input map, in (h, w, c)
 * order) and byte counts; what happens to the rest is decided here, in one
 * place:
 *
 *  - views (Reshape, Flatten, ...) and QuantizeLinear / DequantizeLinear
 *    cost nothing: their output is an alias of their input;
 *  - a conv/FC unit absorbs only the epilogue the engines have, in their
 *    order (docs/hls.md, section 2): requantize and clamp (Relu and Clip
 *    fold into the clamp; a float graph also folds BatchNormalization), a
 *    residual Add/Sub of a second map of the same shape, then one table
 *    activation (an op of unit TABLE in ir/ops.def: Sigmoid, Tanh, Mish,
 *    ...; SiLU as x*sigmoid(x)); pools and element-wise units absorb
 *    nothing;
 *  - the same ops standing alone become element-wise units;
 *  - everything else runs on the host CPU, and so does every float layer
 *    that moves data in a graph the quantize pass made integer.
 *
 * Every phase is linear in layers + tensors: reader counts and the single
 * reader of each tensor are tabulated once (ir_tensor_uses scans the whole
 * graph per call), and host dependence is propagated in one pass.
 */
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

int64_t plan_tensor_bytes(const IrGraph *g, int t, int bits)
{
    if (t < 0 || t >= g->n_tensors)
        return 0;
    int64_t n = ir_tensor_numel(&g->tensors[t]);
    return n < 0 ? 0 : n * plan_value_bytes(bits);
}

static int64_t numel(const IrGraph *g, int t)
{
    if (t < 0 || t >= g->n_tensors)
        return 0;
    int64_t n = ir_tensor_numel(&g->tensors[t]);
    return n < 0 ? 0 : n;
}

static int resolve(const PlanTensorInfo *ti, int t)
{
    return t < 0 ? t : ti->alias[t];
}

/* constant, also through a view or a DequantizeLinear of a constant */
static bool is_const(const IrGraph *g, const PlanTensorInfo *ti, int t)
{
    if (t >= 0 && ti)
        t = resolve(ti, t);
    return t >= 0 && g->tensors[t].kind == IR_T_CONST;
}

void plan_tensor_info_free(PlanTensorInfo *ti)
{
    free(ti->alias);
    free(ti->unit_of);
    free(ti->dram_out);
    free(ti->uses);
    free(ti->reader);
    free(ti->tainted);
    memset(ti, 0, sizeof *ti);
}

/* -------------------------------------------------------- geometry */

/* NCHW tensor -> images, rows, columns, channels of one image: rank 4
 * [N,C,H,W]; rank 3 [N,C,L] is one row of L; rank 2 [M,K] is M rows of one
 * pixel of K channels; more spatial dims multiply into the columns */
static void nhwc(const IrTensor *t, int64_t *n, int64_t *h, int64_t *w, int64_t *c)
{
    *n = 1, *h = 1, *w = 1, *c = t->rank >= 1 ? t->dims[t->rank >= 2 ? 1 : 0] : 1;
    if (t->rank == 2) {
        *h = t->dims[0];
        return;
    }
    if (t->rank >= 3)
        *n = t->dims[0];
    if (t->rank == 3)
        *w = t->dims[2];
    if (t->rank >= 4) {
        *h = t->dims[2];
        for (int i = 3; i < t->rank; i++)
            *w *= t->dims[i];
    }
}

/* window attributes of a conv or pool along (h, w): nsp 1 is one row */
typedef struct {
    int nsp;
    const int64_t *k, *s, *d, *pb, *pe;
} Window;

static void apply_window(PlanGeom *g, const Window *a)
{
    int i = a->nsp >= 2 ? 1 : 0;
    g->kw = a->k[i], g->sw = a->s[i] > 0 ? a->s[i] : 1, g->dw = a->d[i] > 0 ? a->d[i] : 1;
    g->pl = a->pb[i], g->pr = a->pe[i];
    if (a->nsp >= 2) {
        g->kh = a->k[0], g->sh = a->s[0] > 0 ? a->s[0] : 1, g->dh = a->d[0] > 0 ? a->d[0] : 1;
        g->pt = a->pb[0], g->pb = a->pe[0];
    }
    /* ceil mode: the last window reaches past the explicit pad */
    int64_t oh = (g->ho - 1) * g->sh + (g->kh - 1) * g->dh + 1 - g->h - g->pt;
    int64_t ow = (g->wo - 1) * g->sw + (g->kw - 1) * g->dw + 1 - g->w - g->pl;
    if (oh > g->pb)
        g->pb = oh;
    if (ow > g->pr)
        g->pr = ow;
}

static void base_geom(const IrGraph *g, int x, int y, PlanGeom *o, int64_t *batch)
{
    int64_t n;
    memset(o, 0, sizeof *o);
    nhwc(&g->tensors[x], batch, &o->h, &o->w, &o->c);
    nhwc(&g->tensors[y], &n, &o->ho, &o->wo, &o->f);
    o->kh = o->kw = o->sh = o->sw = o->dh = o->dw = o->g = 1;
}

static bool has_pads(const PlanGeom *g)
{
    return g->pt || g->pl || g->pb || g->pr;
}

/* ------------------------------------------------------ classification */

/* What each op is to the accelerator comes from ops.def's unit column
 * (ir_op_unit); nothing below names an op but for its attributes. */

static bool table_op(IrOp op)
{
    return ir_op_unit(op) == IR_U_TABLE;
}

static bool clamp_op(IrOp op)
{
    return ir_op_unit(op) == IR_U_CLAMP;
}

/* a layer an integer program runs as a 256-entry table: a table op, or a
 * Relu/Clip carrying a non-linear activation (the quantize pass puts SiLU
 * there, x*sigmoid(x) having no ONNX op of its own) */
static bool table_layer(const IrLayer *L)
{
    IrActKind k = L->act.kind;
    return table_op(L->op) || (clamp_op(L->op) && k != IR_ACT_NONE && k != IR_ACT_RELU && k != IR_ACT_CLIP);
}

static bool is_pool(IrOp op)
{
    IrUnit k = ir_op_unit(op);
    return k == IR_U_MAXPOOL || k == IR_U_AVGPOOL || k == IR_U_GMAXPOOL || k == IR_U_GAVGPOOL;
}

/* ------------------------------------------------------------ building */

typedef struct {
    const IrGraph *g;
    const PlanOptions *o;
    Plan *p;
    PlanTensorInfo *ti;
    IrDiag *d;
    int cap;
    bool int_graph;   /* the quantize pass made layers integer */
    bool *prefused;   /* layers already folded into an earlier unit */
    int *stage;       /* per unit: epilogue reached (0 none, 1 residual Add, 2 table) */
    bool *clamped;    /* per unit: a clamp already applied (BN may no longer fold) */
} Ctx;

static bool shapes_known(Ctx *c, const IrLayer *L)
{
    for (int i = 0; i < L->n_in; i++)
        if (L->in[i] >= 0 && ir_tensor_numel(&c->g->tensors[L->in[i]]) < 0)
            goto bad;
    for (int i = 0; i < L->n_out; i++)
        if (L->out[i] >= 0 && ir_tensor_numel(&c->g->tensors[L->out[i]]) < 0)
            goto bad;
    return true;
bad:
    diag_error(c->d, c->g->path, L->name, ir_op_name(L->op),
               "tensor shape unknown: the planner needs static shapes (use --input-shape)");
    return false;
}

static void set_precision(const IrLayer *L, const PlanOptions *o, PlanUnit *u)
{
    if (L->prec != IR_PREC_FLOAT) {
        u->prec = L->prec;
        u->bits = L->bits > 0 ? L->bits : 8;
    } else {
        u->prec = o->prec;
        u->bits = o->bits;
    }
}

/* first and second non-constant inputs */
static void data_inputs(const IrGraph *g, const PlanTensorInfo *ti, const IrLayer *L, int *a, int *b)
{
    *a = *b = -1;
    for (int i = 0; i < L->n_in; i++) {
        int t = L->in[i];
        if (t < 0 || is_const(g, ti, t))
            continue;
        if (*a < 0)
            *a = t;
        else if (*b < 0)
            *b = t;
    }
}

static bool is_fc(const IrGraph *g, const PlanTensorInfo *ti, const IrLayer *L)
{
    /* attr.gemm: MatMul's has no transposes */
    return ir_op_unit(L->op) == IR_U_FC && L->n_in >= 2 && is_const(g, ti, L->in[1]) && !L->attr.gemm.trans_a;
}

/* weight and bias bytes: the constant inputs after the data input */
static int64_t weight_bytes(const IrGraph *g, const PlanTensorInfo *ti, const IrLayer *L, int vb)
{
    int64_t n = 0;
    for (int i = 1; i < L->n_in; i++)
        if (L->in[i] >= 0 && is_const(g, ti, L->in[i]))
            n += numel(g, resolve(ti, L->in[i]));
    return n * vb;
}

static PlanUnit *unit_new(Ctx *c)
{
    Plan *p = c->p;
    if (p->n_units == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        PlanUnit *nu = realloc(p->units, (size_t)c->cap * sizeof *nu);
        int *st = realloc(c->stage, (size_t)c->cap * sizeof *st);
        bool *cl = realloc(c->clamped, (size_t)c->cap * sizeof *cl);
        if (!nu || !st || !cl)
            abort();
        p->units = nu, c->stage = st, c->clamped = cl;
    }
    c->stage[p->n_units] = 0;
    c->clamped[p->n_units] = false;
    PlanUnit *u = &p->units[p->n_units++];
    memset(u, 0, sizeof *u);
    u->extra_t = -1;
    u->sesl_ok = true;
    return u;
}

/* conv: KxK (standard, grouped), depthwise, pointwise */
static void conv_unit(const IrGraph *g, const IrLayer *L, PlanUnit *u)
{
    const IrConvAttr *a = &L->attr.conv;
    Window w = {a->nsp, a->kernel, a->stride, a->dilation, a->pad_begin, a->pad_end};
    apply_window(&u->geo, &w);
    int64_t grp = a->group > 0 ? a->group : 1;
    u->geo.g = grp;
    u->op = PLAN_SEML_CONV;
    if (grp == 1 && u->geo.kh * u->geo.kw == 1)
        u->kind = PLAN_K_PWCONV;
    else if (grp > 1 && grp == u->geo.c && u->geo.f % grp == 0)
        u->kind = PLAN_K_DWCONV, u->op = PLAN_SEML_DW;
    else
        u->kind = PLAN_K_CONV;
    u->windowed = u->geo.kh * u->geo.kw > 1 || u->geo.sh > 1 || u->geo.sw > 1 || has_pads(&u->geo);
    u->w_bytes = 0;
    (void)g;
}

/* FC: a conv whose window is its whole input map (an image flattened into
 * the FC), or a 1x1 conv over the M rows of a [M, K] matrix */
static void fc_unit(const IrGraph *g, int x, const IrLayerStats *st, PlanUnit *u)
{
    const IrTensor *X = &g->tensors[x], *Y = &g->tensors[u->out_t];
    int64_t ny = numel(g, u->out_t), nf = Y->rank > 0 ? Y->dims[Y->rank - 1] : 1;
    int64_t rows = nf > 0 ? ny / nf : 1, k = ny > 0 ? st->macs / ny : 0, n, h, w, c;
    nhwc(X, &n, &h, &w, &c);
    u->kind = PLAN_K_FC;
    u->op = PLAN_SEML_CONV;
    PlanGeom *o = &u->geo;
    o->f = nf, o->ho = o->wo = 1;
    if (X->rank >= 3 && h * w * c == k && rows == n) {
        o->h = h, o->w = w, o->c = c, o->kh = h, o->kw = w;
        u->batch = n;
        u->windowed = h * w > 1;
        return;
    }
    o->h = o->ho = rows, o->w = 1, o->c = k, o->kh = o->kw = 1;
    u->batch = 1;
}

static void pool_unit(const IrGraph *g, const IrLayer *L, PlanUnit *u)
{
    IrUnit k = ir_op_unit(L->op);
    u->kind = PLAN_K_POOL;
    u->avg = k == IR_U_AVGPOOL || k == IR_U_GAVGPOOL;
    if (k == IR_U_MAXPOOL || k == IR_U_AVGPOOL) {
        const IrPoolAttr *a = &L->attr.pool;
        Window w = {a->nsp, a->kernel, a->stride, a->dilation, a->pad_begin, a->pad_end};
        apply_window(&u->geo, &w);
        u->op = PLAN_SEML_POOL;
        u->windowed = true;
        u->rq_n = u->avg ? u->geo.kh * u->geo.kw : 0;
    } else {
        u->op = PLAN_SEML_GPOOL;
        u->geo.kh = u->geo.h, u->geo.kw = u->geo.w, u->geo.ho = u->geo.wo = 1;
        u->rq_n = u->avg ? 1 : 0;
    }
    u->geo.f = u->geo.c;
    (void)g;
}

static void eltwise_unit(Ctx *c, const IrLayer *L, PlanUnit *u, int x2)
{
    const IrGraph *g = c->g;
    u->kind = PLAN_K_ELTWISE;
    u->op = PLAN_SEML_ELT;
    IrUnit k = ir_op_unit(L->op);
    bool move = k == IR_U_MOVE && ir_chan_move(g, L, u->part, &u->mv);
    u->geo.ho = u->geo.h, u->geo.wo = u->geo.w;
    if (!move && k != IR_U_CONCAT)   /* a channel move or Concat keeps its output's channels */
        u->geo.f = u->geo.c;
    u->extra_t = x2;
    u->bvec = x2 >= 0 && numel(g, x2) == u->geo.c && numel(g, u->in_t) > u->geo.c;
    bool per_channel = k == IR_U_BN || k == IR_U_PRELU;   /* a float plan's scale and shift or slope */
    if (k == IR_U_ADD)
        u->elt = x2 >= 0 ? PLAN_ELT_ADD : PLAN_ELT_RESCALE;
    else if (k == IR_U_MUL || k == IR_U_PRELU)
        u->elt = x2 >= 0 ? PLAN_ELT_MUL : PLAN_ELT_RESCALE;
    else if (k == IR_U_CONCAT)
        u->elt = PLAN_ELT_CONCAT;
    else if (move)
        u->elt = PLAN_ELT_MOVE;
    else if (table_layer(L))
        u->elt = PLAN_ELT_LUT;
    else
        u->elt = PLAN_ELT_RESCALE;   /* Relu, Clip, a float plan's BN */
    u->lut = u->elt == PLAN_ELT_LUT;
    u->mul = u->elt == PLAN_ELT_MUL || per_channel;
    if (per_channel)
        u->w_bytes = 2 * u->geo.c * plan_value_bytes(u->bits);
    if (u->elt == PLAN_ELT_CONCAT) {
        int n = 0;
        for (int i = 0; i < L->n_in; i++)
            if (L->in[i] >= 0 && n++ >= 2)   /* a unit streams two operands: the SEML */
                c->ti->dram_out[resolve(c->ti, L->in[i])] = true;   /* engine reads the others from DRAM */
        u->sesl_ok = n == 2;   /* sesl_eltwise.c joins two streams */
    }
}

/* the fused epilogue of a layer the passes already fused (conv with residual/act) */
static void read_fused_epilogue(Ctx *c, const IrLayer *L, PlanUnit *u)
{
    int ui = c->p->n_units - 1;
    if (L->residual >= 0 && u->extra_t < 0) {
        u->extra_t = resolve(c->ti, L->residual);
        u->add = true;
        c->stage[ui] = 1;
    }
    IrActKind k = L->act.kind;
    if (k == IR_ACT_RELU || k == IR_ACT_CLIP)
        c->clamped[ui] = true;
    else if (k != IR_ACT_NONE)
        u->lut = true, c->stage[ui] = 2;
}

static void unit_bytes(Ctx *c, PlanUnit *u)
{
    u->in_bytes = plan_tensor_bytes(c->g, u->in_t, u->bits);
    u->out_bytes = plan_tensor_bytes(c->g, u->out_t, u->bits);
    u->extra_bytes = plan_tensor_bytes(c->g, u->extra_t, u->bits);
}

static void unit_ops(const IrGraph *g, const IrLayerStats *st, PlanUnit *u)
{
    u->loops = plan_loops_of(&u->geo, u->kind);
    int64_t n = u->batch > 1 ? u->batch : 1;
    u->macs = st->macs;
    if (u->kind == PLAN_K_POOL)
        u->ops = n * u->loops.a * u->loops.b * u->loops.p;
    else if (u->kind == PLAN_K_ELTWISE)
        u->ops = numel(g, u->out_t);
    else
        u->ops = st->macs;
}

/* unit of layer l computing its output k */
static void new_unit(Ctx *c, int l, int k, int x, int x2)
{
    const IrGraph *g = c->g;
    const IrLayer *L = &g->layers[l];
    IrLayerStats st;
    ir_layer_stats(g, l, &st);
    PlanUnit *u = unit_new(c);
    u->layer = l;
    u->part = k;
    u->in_t = x;
    u->out_t = L->out[k];
    set_precision(L, c->o, u);
    base_geom(g, x, u->out_t, &u->geo, &u->batch);
    if (ir_op_unit(L->op) == IR_U_CONV)
        conv_unit(g, L, u);
    else if (is_fc(g, c->ti, L))
        fc_unit(g, x, &st, u);
    else if (is_pool(L->op))
        pool_unit(g, L, u);
    else
        eltwise_unit(c, L, u, x2);
    if (plan_kind_has_weights(u->kind))
        u->w_bytes = weight_bytes(g, c->ti, L, plan_value_bytes(u->bits));
    read_fused_epilogue(c, L, u);
    unit_ops(g, &st, u);
    unit_bytes(c, u);
    c->ti->unit_of[u->out_t] = c->p->n_units - 1;
}

static void absorb(Ctx *c, int ui, int l, int out)
{
    PlanUnit *u = &c->p->units[ui];
    u->fused[u->n_fused++] = l;
    u->out_t = out;
    u->out_bytes = plan_tensor_bytes(c->g, out, u->bits);
    c->ti->unit_of[out] = ui;
}

/* x*act(x) for act = Sigmoid (SiLU) or HardSigmoid (HardSwish): the Mul is
 * the only reader of act(x), and x has exactly those two readers */
static int gate_mul(Ctx *c, const IrLayer *L)
{
    const IrGraph *g = c->g;
    int x = L->in[0], ax = L->out[0];
    if ((L->op != IR_OP_SIGMOID && L->op != IR_OP_HARD_SIGMOID) || c->ti->uses[x] != 2 || c->ti->uses[ax] != 1)
        return -1;
    int m = c->ti->reader[ax];
    const IrLayer *M = m >= 0 ? &g->layers[m] : NULL;
    if (!M || M->dead || M->op != IR_OP_MUL || M->n_in != 2)
        return -1;
    bool both = (M->in[0] == x && M->in[1] == ax) || (M->in[0] == ax && M->in[1] == x);
    return both ? m : -1;
}

/* the epilogue step layer L would be for unit ui, or -1 if it is none */
static int epilogue_step(Ctx *c, int ui, const IrLayer *L, int other)
{
    const PlanUnit *u = &c->p->units[ui];
    int st = c->stage[ui];
    IrUnit k = ir_op_unit(L->op);
    if (k == IR_U_BN)
        return !c->int_graph && st == 0 && !c->clamped[ui] && other < 0 ? 0 : -1;
    if (table_layer(L))
        return st < 2 && other < 0 ? 2 : -1;
    if (clamp_op(L->op))
        return st < 2 && other < 0 ? st : -1;
    if (k == IR_U_ADD && other >= 0 && st == 0 && u->extra_t < 0)
        return 1;
    return -1;
}

static bool same_shape(const IrGraph *g, int a, int b)
{
    const IrTensor *x = &g->tensors[a], *y = &g->tensors[b];
    if (x->rank != y->rank)
        return false;
    for (int i = 0; i < x->rank; i++)
        if (x->dims[i] != y->dims[i])
            return false;
    return true;
}

/* Fold layer l into the conv/FC unit whose open output it reads, when the
 * engines' epilogue has room for it. */
static bool try_fuse(Ctx *c, int l)
{
    const IrGraph *g = c->g;
    const IrLayer *L = &g->layers[l];
    if (L->n_out != 1 || (c->int_graph && L->prec == IR_PREC_FLOAT))
        return false;
    int a, b;
    data_inputs(g, c->ti, L, &a, &b);
    int ua = a >= 0 ? c->ti->unit_of[resolve(c->ti, a)] : -1, ub = b >= 0 ? c->ti->unit_of[resolve(c->ti, b)] : -1;
    bool b_first = ub > ua;   /* into the later producer: the residual is then computed before it */
    for (int pick = 0; pick < 2; pick++) {
        int x = pick != b_first ? b : a, other = pick != b_first ? a : b;
        int ui = x >= 0 ? c->ti->unit_of[x] : -1;
        int uo = other >= 0 ? c->ti->unit_of[resolve(c->ti, other)] : -1;
        if (uo > ui)
            continue;   /* units stay in topological order */
        if (ui < 0 || c->p->units[ui].out_t != x || !plan_kind_has_weights(c->p->units[ui].kind))
            continue;
        PlanUnit *u = &c->p->units[ui];
        int m = gate_mul(c, L);
        if (m >= 0 && c->stage[ui] < 2 && u->n_fused + 2 <= 8) {
            absorb(c, ui, l, L->out[0]);
            absorb(c, ui, m, g->layers[m].out[0]);
            c->prefused[m] = true;
            c->stage[ui] = 2, u->lut = true;
            return true;
        }
        int step = epilogue_step(c, ui, L, other);
        if (step < 0 || c->ti->uses[x] != 1 || u->n_fused >= 8 || other == x)
            continue;
        if (other >= 0 && !same_shape(g, other, x))
            continue;
        if (numel(g, L->out[0]) != numel(g, x))
            continue;
        if (other >= 0) {
            u->extra_t = resolve(c->ti, other);
            u->extra_bytes = plan_tensor_bytes(g, u->extra_t, u->bits);
            u->add = true;
        }
        if (table_layer(L))
            u->lut = true;
        else if (clamp_op(L->op))
            c->clamped[ui] = true;
        c->stage[ui] = step;
        absorb(c, ui, l, L->out[0]);
        return true;
    }
    return false;
}

static void add_host(Ctx *c, int l)
{
    Plan *p = c->p;
    const IrLayer *L = &c->g->layers[l];
    p->host_layers[p->n_host++] = l;
    int64_t elems = 0;
    bool mid = false;   /* reads the accelerator's results: what follows waits for the host */
    for (int i = 0; i < L->n_in; i++) {
        int t = resolve(c->ti, L->in[i]);
        mid |= t >= 0 && (c->ti->unit_of[t] >= 0 || c->ti->tainted[t]);
    }
    for (int i = 0; i < L->n_out; i++) {
        elems += numel(c->g, L->out[i]);
        if (L->out[i] >= 0 && mid)
            c->ti->tainted[L->out[i]] = true;
    }
    for (int i = 0; i < L->n_in; i++) {
        int t = resolve(c->ti, L->in[i]);
        if (t >= 0 && !is_const(c->g, NULL, t)) {
            elems += numel(c->g, t);
            c->ti->dram_out[t] = true;
        }
    }
    p->host_cycles += (int64_t)((double)elems * PLAN_HOST_NS_PER_ELEM * p->clock_mhz / 1000.0 + 0.5);
}

/* the second operand of a binary element-wise op the engines take: a map
 * of the same shape or a per-channel vector */
static bool binary_ok(const IrGraph *g, int a, int b)
{
    if (b < 0)
        return true;
    const IrTensor *x = &g->tensors[a];
    int64_t ch = x->rank >= 2 ? x->dims[1] : 1;
    return same_shape(g, a, b) || (numel(g, b) == ch && numel(g, a) > ch);
}

/* Split, Slice, Gather: every output a channel move (a Slice along H or W,
 * a Gather of other indices stay on the host) */
static bool move_ok(const IrGraph *g, const IrLayer *L)
{
    IrChanMove m;
    for (int k = 0; k < L->n_out; k++)
        if (L->out[k] >= 0 && !ir_chan_move(g, L, k, &m))
            return false;
    return true;
}

static bool concat_ok(const IrGraph *g, const IrLayer *L)
{
    int rank = g->tensors[L->out[0]].rank;
    int64_t axis = L->attr.axis.axis < 0 ? L->attr.axis.axis + rank : L->attr.axis.axis;
    return rank >= 2 && axis == 1;
}

/* Can an engine run layer L (data inputs a, b)? */
static bool accel_ok(Ctx *c, const IrLayer *L, int a, int b)
{
    const IrGraph *g = c->g;
    IrUnit k = ir_op_unit(L->op);
    if (k == IR_U_NONE || a < 0 || L->n_out < 1 || L->out[0] < 0)
        return false;
    if (c->int_graph && L->prec == IR_PREC_FLOAT)
        return false;
    int rank = g->tensors[a].rank;
    switch (k) {
    case IR_U_FC: return is_fc(g, c->ti, L);
    case IR_U_CONV: return L->attr.conv.nsp >= 1 && L->attr.conv.nsp <= 2 && rank == L->attr.conv.nsp + 2;
    case IR_U_MAXPOOL: case IR_U_AVGPOOL: return L->attr.pool.nsp <= 2 && rank == L->attr.pool.nsp + 2;
    case IR_U_GMAXPOOL: case IR_U_GAVGPOOL:   /* a ReduceMean only over H, W (its axes) */
        return L->op == IR_OP_REDUCE_MEAN ? ir_reduce_is_spatial_mean(g, L) : rank >= 3 && rank <= 4;
    case IR_U_CONCAT: return concat_ok(g, L);
    case IR_U_MOVE: return move_ok(g, L);
    case IR_U_ADD: case IR_U_MUL: return binary_ok(g, a, b);
    case IR_U_BN: case IR_U_PRELU: return !c->int_graph;
    default: return true;
    }
}

static bool reads_tainted(const Ctx *c, const IrLayer *L)
{
    for (int i = 0; i < L->n_in; i++)
        if (L->in[i] >= 0 && c->ti->tainted[L->in[i]])
            return true;
    return L->residual >= 0 && c->ti->tainted[L->residual];
}

static void taint_outputs(Ctx *c, const IrLayer *L)
{
    for (int i = 0; i < L->n_out; i++)
        if (L->out[i] >= 0)
            c->ti->tainted[L->out[i]] = true;
}

static int map_layer(Ctx *c, int l)
{
    const IrGraph *g = c->g;
    const IrLayer *L = &g->layers[l];
    unsigned fl = ir_op_flags(L->op);
    bool tainted = reads_tainted(c, L);
    if (tainted)
        taint_outputs(c, L);
    if (L->dead || c->prefused[l] || (fl & IR_F_FOLD_ONLY))
        return 0;
    /* views move nothing; so do Q/DQ pairs left in a float (QDQ) graph. In an
     * integer program a QuantizeLinear / DequantizeLinear is a real host layer
     * at the accelerator's edge (the host quantizes its input, dequantizes
     * its output), and the tensors the accelerator reads are its codes. */
    bool qdq = L->op == IR_OP_QUANTIZE_LINEAR || L->op == IR_OP_DEQUANTIZE_LINEAR;
    if ((fl & IR_F_NO_DATA) || (qdq && !c->int_graph)) {
        if (L->n_in > 0 && L->in[0] >= 0 && L->n_out > 0 && L->out[0] >= 0)
            c->ti->alias[L->out[0]] = resolve(c->ti, L->in[0]);
        return 0;
    }
    if (!shapes_known(c, L))
        return -1;
    if (try_fuse(c, l)) {
        c->p->units[c->ti->unit_of[L->out[0]]].after_host |= tainted;
        return 0;
    }
    int a, b;
    data_inputs(g, c->ti, L, &a, &b);
    if (b >= 0 && ir_op_unit(L->op) != IR_U_CONCAT && numel(g, a) < numel(g, b)) {   /* the map first, a broadcast vector second */
        int t = a;
        a = b, b = t;
    }
    if (!accel_ok(c, L, a, b)) {
        add_host(c, l);
        return 0;
    }
    for (int k = 0; k < (L->op == IR_OP_SPLIT ? L->n_out : 1); k++) {
        if (L->op == IR_OP_SPLIT && (L->out[k] < 0 || c->ti->uses[L->out[k]] == 0))
            continue;   /* a part nobody reads */
        new_unit(c, l, k, resolve(c->ti, a), resolve(c->ti, b));
        c->p->units[c->p->n_units - 1].after_host = tainted;
    }
    return 0;
}

static void mark_outputs(Ctx *c)
{
    for (int i = 0; i < c->g->n_outputs; i++) {
        int t = resolve(c->ti, c->g->outputs[i]);
        if (t >= 0)
            c->ti->dram_out[t] = true;
    }
}

static void totals(Plan *p)
{
    p->total_macs = p->total_ops = 0;
    for (int i = 0; i < p->n_units; i++) {
        p->total_macs += p->units[i].macs;
        p->total_ops += p->units[i].ops;
    }
}

/* readers of every tensor, and the last layer reading it, in one pass */
static void count_readers(const IrGraph *g, PlanTensorInfo *ti)
{
    for (int t = 0; t < g->n_tensors; t++)
        ti->uses[t] = g->tensors[t].is_output ? 1 : 0;
    for (int l = 0; l < g->n_layers; l++) {
        const IrLayer *L = &g->layers[l];
        if (L->dead)
            continue;
        int ts[IR_MAX_IO + 2], n = 0;
        for (int i = 0; i < L->n_in; i++)
            ts[n++] = L->in[i];
        ts[n++] = L->residual;
        ts[n++] = L->act_slope;
        for (int i = 0; i < n; i++)
            if (ts[i] >= 0 && ts[i] < g->n_tensors) {
                ti->uses[ts[i]]++;
                ti->reader[ts[i]] = l;
            }
    }
}

static bool has_int_layers(const IrGraph *g)
{
    for (int l = 0; l < g->n_layers; l++) {
        const IrLayer *L = &g->layers[l];
        if (!L->dead && L->prec != IR_PREC_FLOAT && L->op != IR_OP_QUANTIZE_LINEAR &&
            L->op != IR_OP_DEQUANTIZE_LINEAR)
            return true;
    }
    return false;
}

static void info_alloc(const IrGraph *g, Plan *p, PlanTensorInfo *ti)
{
    size_t nt = (size_t)(g->n_tensors > 0 ? g->n_tensors : 1);
    ti->alias = malloc(sizeof(int) * nt);
    ti->unit_of = malloc(sizeof(int) * nt);
    ti->reader = malloc(sizeof(int) * nt);
    ti->uses = calloc(nt, sizeof(int));
    ti->dram_out = calloc(nt, sizeof(bool));
    ti->tainted = calloc(nt, sizeof(bool));
    p->host_layers = malloc(sizeof(int) * (size_t)(g->n_layers + 1));
    if (!ti->alias || !ti->unit_of || !ti->reader || !ti->uses || !ti->dram_out || !ti->tainted || !p->host_layers)
        abort();
    for (size_t t = 0; t < nt; t++) {
        ti->alias[t] = (int)t;
        ti->unit_of[t] = -1;
        ti->reader[t] = -1;
    }
    count_readers(g, ti);
}

int plan_units_build(const IrGraph *g, const PlanOptions *o, Plan *p, PlanTensorInfo *ti, IrDiag *d)
{
    info_alloc(g, p, ti);
    Ctx c = {g, o, p, ti, d, 0, has_int_layers(g), calloc((size_t)g->n_layers + 1, sizeof(bool)), NULL, NULL};
    if (!c.prefused)
        abort();
    int rc = 0;
    for (int l = 0; l < g->n_layers; l++)
        if (map_layer(&c, l))
            rc = -1;
    free(c.prefused);
    free(c.stage);
    free(c.clamped);
    mark_outputs(&c);
    totals(p);
    if (rc == 0 && p->n_units == 0) {
        diag_error(d, g->path, NULL, NULL, "no layer the accelerator can run: nothing to plan");
        rc = -1;
    }
    return rc;
}

/* ------------------------------------------------------ SEML descriptors */

static PlanSemlLayer seml_layer(const PlanUnit *u)
{
    PlanSemlLayer l;
    memset(&l, 0, sizeof l);
    l.op = u->op;
    l.g = u->geo;
    l.avg = u->avg;
    l.add = u->add;
    l.lut = u->lut;
    l.rq_n = u->rq_n;
    l.binary = u->kind == PLAN_K_ELTWISE && (u->elt == PLAN_ELT_ADD || u->elt == PLAN_ELT_MUL);
    l.bvec = l.binary && u->bvec;
    l.in_dense = l.in2_dense = l.out_dense = true;
    return l;
}

/* a Concat runs one channel-slice copy per input (seml_eltwise.c) */
static int concat_parts(const PlanUnit *u, const IrGraph *g, PlanSemlLayer *l, int cap)
{
    const IrLayer *L = &g->layers[u->layer];
    int n = 0;
    for (int i = 0; i < L->n_in; i++) {
        if (L->in[i] < 0)
            continue;
        if (n < cap) {
            l[n] = seml_layer(u);
            int64_t nn, h, w, c;
            nhwc(&g->tensors[L->in[i]], &nn, &h, &w, &c);
            l[n].g.c = l[n].g.f = c;
            l[n].binary = false;
            l[n].out_dense = false;
        }
        n++;
    }
    return n;
}

/* a channel move loads the span of input channels it reads (all of them
 * for a shuffle), one burst when that is whole pixels */
static PlanSemlLayer move_layer(const PlanUnit *u)
{
    PlanSemlLayer l = seml_layer(u);
    const IrChanMove *m = &u->mv;
    l.g.c = m->groups > 1 ? m->count : (m->count - 1) * m->step + 1;
    l.in_dense = l.g.c == m->c_in;
    return l;
}

int plan_unit_seml_layers(const Plan *p, const IrGraph *g, int unit, PlanSemlLayer *l, int cap)
{
    if (unit < 0 || unit >= p->n_units)
        return 0;
    const PlanUnit *u = &p->units[unit];
    if (u->kind == PLAN_K_ELTWISE && u->elt == PLAN_ELT_CONCAT)
        return concat_parts(u, g, l, cap);
    if (cap > 0)
        l[0] = u->kind == PLAN_K_ELTWISE && u->elt == PLAN_ELT_MOVE ? move_layer(u) : seml_layer(u);
    return 1;
}
