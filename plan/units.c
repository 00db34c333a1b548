/* units.c - from IR layers to the planner's units of accelerator work.
 *
 * Why a mapping step: the planner reasons about engines, not ONNX nodes.
 * Each accelerated layer (IR_F_ACCEL) becomes a unit with its loop nest and
 * byte counts; what happens to the rest is decided here, in one place:
 *
 *  - views (IR_F_NO_DATA: Reshape, Flatten, ...) and QuantizeLinear /
 *    DequantizeLinear left in a QDQ graph cost nothing; their output is an
 *    alias of their input;
 *  - BatchNormalization, activations and Add/Sub/Mul/PRelu whose input is the
 *    output of the unit just made and that are its only reader are fused
 *    into that unit's epilogue (as passes/fuse_* will do to the IR): no
 *    cycles of their own, the second operand of a binary op becomes the
 *    unit's residual input; x*act(x) (SiLU, HardSwish as x*HardSigmoid(x))
 *    is fused as one gated activation;
 *  - the same ops standing alone become element-wise units;
 *  - everything else (Softmax, Transpose, Resize, MatMul of two activations,
 *    ...) runs on the host CPU: listed, timed by a simple CPU model, and its
 *    inputs and outputs pass through DRAM.
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

static int resolve(const PlanTensorInfo *ti, int t);

/* constant, also through a view or a DequantizeLinear of a constant */
static bool is_const(const IrGraph *g, const PlanTensorInfo *ti, int t)
{
    if (t >= 0 && ti)
        t = resolve(ti, t);
    return t >= 0 && g->tensors[t].kind == IR_T_CONST;
}

static int resolve(const PlanTensorInfo *ti, int t)
{
    return t < 0 ? t : ti->alias[t];
}

void plan_tensor_info_free(PlanTensorInfo *ti)
{
    free(ti->alias);
    free(ti->unit_of);
    free(ti->dram_out);
    memset(ti, 0, sizeof *ti);
}

/* ------------------------------------------------------ classification */

static bool fusable_op(IrOp op)
{
    switch (op) {
    case IR_OP_BATCHNORM: case IR_OP_RELU: case IR_OP_CLIP: case IR_OP_LEAKY_RELU:
    case IR_OP_SIGMOID: case IR_OP_HARD_SIGMOID: case IR_OP_HARD_SWISH: case IR_OP_TANH:
    case IR_OP_ELU: case IR_OP_PRELU: case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL:
        return true;
    default:
        return false;
    }
}

static bool unary_act(IrOp op)
{
    return op == IR_OP_SIGMOID || op == IR_OP_HARD_SIGMOID || op == IR_OP_TANH;
}

/* spatial extent of an NC... tensor: H and the product of the rest */
static void spatial_hw(const IrTensor *t, int64_t *h, int64_t *w)
{
    *h = t->rank > 2 ? t->dims[2] : 1;
    *w = 1;
    for (int i = 3; i < t->rank; i++)
        *w *= t->dims[i];
}

static int64_t channels(const IrTensor *t)
{
    return t->rank >= 2 ? t->dims[1] : (t->rank == 1 ? t->dims[0] : 1);
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

static void fill_fm(const IrGraph *g, PlanUnit *u)
{
    const IrTensor *x = &g->tensors[u->in_t], *y = &g->tensors[u->out_t];
    u->cin = channels(x);
    u->cout = channels(y);
    spatial_hw(x, &u->hin, &u->win);
    spatial_hw(y, &u->hout, &u->wout);
    u->kh = u->kw = u->stride = 1;
}

static void conv_unit(const IrGraph *g, const IrLayer *L, PlanUnit *u)
{
    const IrConvAttr *a = &L->attr.conv;
    u->kh = a->nsp > 0 ? a->kernel[0] : 1;
    u->kw = 1;
    for (int i = 1; i < a->nsp; i++)
        u->kw *= a->kernel[i];
    u->stride = a->nsp > 0 && a->stride[0] > 0 ? a->stride[0] : 1;
    int64_t group = a->group > 0 ? a->group : 1;
    int64_t pixels = numel(g, u->out_t) / (u->cout > 0 ? u->cout : 1);
    if (group == 1 && u->kh * u->kw == 1) {
        u->kind = PLAN_K_PWCONV;
        u->loops = plan_loops_pwconv(u->cout, u->cin, pixels);
    } else if (group > 1 && group == u->cin) {
        u->kind = PLAN_K_DWCONV;
        u->loops = plan_loops_dwconv(u->cout, u->kh, u->kw, pixels);
    } else {
        u->kind = PLAN_K_CONV;
        u->loops = plan_loops_conv(u->cout, u->cin / group, u->kh, u->kw, pixels);
    }
}

static void fc_unit(const IrGraph *g, const IrLayer *L, const IrLayerStats *st, PlanUnit *u)
{
    (void)L;
    const IrTensor *y = &g->tensors[u->out_t];
    int64_t outf = y->rank > 0 ? y->dims[y->rank - 1] : 1;
    int64_t ny = numel(g, u->out_t);
    int64_t rows = outf > 0 ? ny / outf : 1;
    int64_t k = ny > 0 ? st->macs / ny : 0;
    u->kind = PLAN_K_FC;
    u->loops = plan_loops_fc(outf, k, rows);
    u->cin = k;
    u->cout = outf;
}

static void pool_unit(const IrGraph *g, const IrLayer *L, PlanUnit *u)
{
    int64_t ny = numel(g, u->out_t), c = u->cout > 0 ? u->cout : 1;
    int64_t window = ny > 0 ? numel(g, u->in_t) / ny : 1;
    if (L->op == IR_OP_MAXPOOL || L->op == IR_OP_AVGPOOL) {
        const IrPoolAttr *a = &L->attr.pool;
        u->kh = a->nsp > 0 ? a->kernel[0] : 1;
        u->kw = 1;
        for (int i = 1; i < a->nsp; i++)
            u->kw *= a->kernel[i];
        u->stride = a->nsp > 0 && a->stride[0] > 0 ? a->stride[0] : 1;
        window = u->kh * u->kw;
    }
    u->kind = PLAN_K_POOL;
    u->loops = plan_loops_pool(c, window, ny / c);
    u->ops = ny * window;
}

static bool is_fc(const IrGraph *g, const PlanTensorInfo *ti, const IrLayer *L)
{
    if (L->op == IR_OP_GEMM || L->op == IR_OP_MATMUL)
        return L->n_in >= 2 && is_const(g, ti, L->in[1]);
    return false;
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

static bool is_pool(IrOp op)
{
    return op == IR_OP_MAXPOOL || op == IR_OP_AVGPOOL || op == IR_OP_GLOBAL_AVGPOOL ||
           op == IR_OP_GLOBAL_MAXPOOL || op == IR_OP_REDUCE_MEAN;
}

/* ------------------------------------------------------------ building */

typedef struct {
    const IrGraph *g;
    const PlanOptions *o;
    Plan *p;
    PlanTensorInfo *ti;
    IrDiag *d;
    int cap;
    bool *prefused;   /* layers already folded into an earlier unit */
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

static PlanUnit *unit_new(Ctx *c)
{
    Plan *p = c->p;
    if (p->n_units == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        PlanUnit *nu = realloc(p->units, (size_t)c->cap * sizeof *nu);
        if (!nu)
            abort();
        p->units = nu;
    }
    PlanUnit *u = &p->units[p->n_units++];
    memset(u, 0, sizeof *u);
    u->extra_t = -1;
    return u;
}

static void unit_bytes(Ctx *c, PlanUnit *u)
{
    u->in_bytes = plan_tensor_bytes(c->g, u->in_t, u->bits);
    u->out_bytes = plan_tensor_bytes(c->g, u->out_t, u->bits);
    u->extra_bytes = plan_tensor_bytes(c->g, u->extra_t, u->bits);
}

static void new_unit(Ctx *c, int l, int x, int x2)
{
    const IrGraph *g = c->g;
    const IrLayer *L = &g->layers[l];
    IrLayerStats st;
    ir_layer_stats(g, l, &st);
    PlanUnit *u = unit_new(c);
    u->layer = l;
    u->in_t = x;
    u->out_t = L->out[0];
    set_precision(L, c->o, u);
    fill_fm(g, u);
    u->macs = st.macs;
    u->ops = st.macs;
    int vb = plan_value_bytes(u->bits);
    if (L->op == IR_OP_CONV) {
        conv_unit(g, L, u);
        u->w_bytes = weight_bytes(g, c->ti, L, vb);
    } else if (is_fc(g, c->ti, L)) {
        fc_unit(g, L, &st, u);
        u->w_bytes = weight_bytes(g, c->ti, L, vb);
    } else if (is_pool(L->op)) {
        pool_unit(g, L, u);
    } else {
        int64_t ny = numel(g, u->out_t), ch = u->cout > 0 ? u->cout : 1;
        u->kind = PLAN_K_ELTWISE;
        u->loops = plan_loops_eltwise(ch, ny / ch);
        u->ops = ny;
        u->extra_t = x2;
        u->mul = L->op == IR_OP_BATCHNORM || L->op == IR_OP_MUL || L->op == IR_OP_PRELU;
        if (L->op == IR_OP_BATCHNORM || L->op == IR_OP_PRELU)
            u->w_bytes = 2 * ch * vb;
    }
    if (L->residual >= 0 && u->extra_t < 0)   /* epilogue fused by passes/fuse_* */
        u->extra_t = resolve(c->ti, L->residual);
    unit_bytes(c, u);
    c->ti->unit_of[u->out_t] = c->p->n_units - 1;
}

/* the Mul reading both x and a(x), for x*sigmoid(x) and friends */
static int find_gate_mul(const IrGraph *g, int from, int x, int ax)
{
    for (int m = from + 1; m < g->n_layers; m++) {
        const IrLayer *M = &g->layers[m];
        if (M->dead || M->op != IR_OP_MUL || M->n_in != 2)
            continue;
        if ((M->in[0] == x && M->in[1] == ax) || (M->in[0] == ax && M->in[1] == x))
            return m;
    }
    return -1;
}

static void absorb(Ctx *c, int ui, int l, int out)
{
    PlanUnit *u = &c->p->units[ui];
    u->fused[u->n_fused++] = l;
    u->out_t = out;
    u->out_bytes = plan_tensor_bytes(c->g, out, u->bits);
    c->ti->unit_of[out] = ui;
}

/* x*act(x) where x is the open output of unit ui and has exactly those two readers */
static bool try_fuse_gate(Ctx *c, int l, int ui)
{
    const IrGraph *g = c->g;
    const IrLayer *L = &g->layers[l];
    int x = L->in[0], ax = L->out[0];
    if (ir_tensor_uses(g, x) != 2 || ir_tensor_uses(g, ax) != 1)
        return false;
    int m = find_gate_mul(g, l, x, ax);
    if (m < 0 || c->p->units[ui].n_fused + 2 > 8)
        return false;
    absorb(c, ui, l, ax);
    absorb(c, ui, m, g->layers[m].out[0]);
    c->p->units[ui].out_t = g->layers[m].out[0];
    c->prefused[m] = true;
    return true;
}

/* Fold layer l into the unit whose open output it reads, when allowed. */
static bool try_fuse(Ctx *c, int l)
{
    const IrGraph *g = c->g;
    const IrLayer *L = &g->layers[l];
    if (!fusable_op(L->op) || L->n_out != 1)
        return false;
    int a, b;
    data_inputs(g, c->ti, L, &a, &b);
    for (int pick = 0; pick < 2; pick++) {
        int x = pick ? b : a, other = pick ? a : b;
        if (x < 0)
            continue;
        int ui = c->ti->unit_of[x];
        if (ui < 0 || c->p->units[ui].out_t != x)
            continue;
        PlanUnit *u = &c->p->units[ui];
        if (unary_act(L->op) && other < 0 && try_fuse_gate(c, l, ui))
            return true;
        if (ir_tensor_uses(g, x) != 1 || u->n_fused >= 8 || other == x)
            continue;
        if (numel(g, L->out[0]) != numel(g, x))  /* a broadcast that grows the map is no epilogue */
            continue;
        if (other >= 0 && u->extra_t >= 0)
            continue;
        if (other >= 0) {
            u->extra_t = resolve(c->ti, other);
            u->extra_bytes = plan_tensor_bytes(g, u->extra_t, u->bits);
        }
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
    for (int i = 0; i < L->n_out; i++)
        elems += numel(c->g, L->out[i]);
    for (int i = 0; i < L->n_in; i++) {
        int t = resolve(c->ti, L->in[i]);
        if (t >= 0 && !is_const(c->g, NULL, t)) {
            elems += numel(c->g, t);
            c->ti->dram_out[t] = true;
        }
    }
    p->host_cycles += (int64_t)((double)elems * PLAN_HOST_NS_PER_ELEM * p->clock_mhz / 1000.0 + 0.5);
}

static int map_layer(Ctx *c, int l)
{
    const IrGraph *g = c->g;
    const IrLayer *L = &g->layers[l];
    unsigned fl = ir_op_flags(L->op);
    if (L->dead || c->prefused[l] || (fl & IR_F_FOLD_ONLY))
        return 0;
    /* views, and QDQ boundaries left in the graph: they only say which
     * precision the neighbouring layers compute in */
    if ((fl & IR_F_NO_DATA) || L->op == IR_OP_QUANTIZE_LINEAR || L->op == IR_OP_DEQUANTIZE_LINEAR) {
        if (L->n_in > 0 && L->in[0] >= 0 && L->n_out > 0 && L->out[0] >= 0)
            c->ti->alias[L->out[0]] = resolve(c->ti, L->in[0]);
        return 0;
    }
    if (!shapes_known(c, L))
        return -1;
    if (try_fuse(c, l))
        return 0;
    int a, b;
    data_inputs(g, c->ti, L, &a, &b);
    bool accel = (fl & IR_F_ACCEL) && a >= 0 && L->n_out >= 1 && L->out[0] >= 0;
    if (accel && (L->op == IR_OP_GEMM || L->op == IR_OP_MATMUL))
        accel = is_fc(g, c->ti, L);
    if (accel && L->op == IR_OP_CONV)
        accel = L->attr.conv.nsp >= 1 && g->tensors[a].rank >= 3;
    if (!accel) {
        add_host(c, l);
        return 0;
    }
    new_unit(c, l, resolve(c->ti, a), resolve(c->ti, b));
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

int plan_units_build(const IrGraph *g, const PlanOptions *o, Plan *p, PlanTensorInfo *ti, IrDiag *d)
{
    int nt = g->n_tensors > 0 ? g->n_tensors : 1;
    ti->alias = malloc(sizeof(int) * (size_t)nt);
    ti->unit_of = malloc(sizeof(int) * (size_t)nt);
    ti->dram_out = calloc((size_t)nt, sizeof(bool));
    p->host_layers = malloc(sizeof(int) * (size_t)(g->n_layers + 1));
    Ctx c = {g, o, p, ti, d, 0, calloc((size_t)g->n_layers + 1, sizeof(bool))};
    if (!ti->alias || !ti->unit_of || !ti->dram_out || !p->host_layers || !c.prefused)
        abort();
    for (int t = 0; t < nt; t++) {
        ti->alias[t] = t;
        ti->unit_of[t] = -1;
    }
    int rc = 0;
    for (int l = 0; l < g->n_layers; l++)
        if (map_layer(&c, l))
            rc = -1;
    free(c.prefused);
    mark_outputs(&c);
    totals(p);
    if (rc == 0 && p->n_units == 0) {
        diag_error(d, g->path, NULL, NULL, "no layer the accelerator can run: nothing to plan");
        rc = -1;
    }
    return rc;
}
