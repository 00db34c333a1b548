/* test_plan.c - the planner's invariants on every model and budget:
 * latency >= MACs / (PEs * f), no budget exceeded (PEs, DSP, BRAM, URAM, LUT,
 * DRAM bandwidth), the hybrid at least as fast as both baselines, every unit
 * on an engine that can run it, determinism, forced splits, bad options.
 * Runs on hand-built graphs (test_plan_graphs.h) always, on the sample models
 * when present, and on the shared CNNs (../shared/models) when present. */
#include "check.h"
#include "frontend/frontend.h"
#include "plan/plan.h"
#include "test_plan_graphs.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static PlanKind family(PlanKind k)
{
    return k == PLAN_K_CONV || k == PLAN_K_FC ? PLAN_K_PWCONV : k == PLAN_K_POOL ? PLAN_K_DWCONV : k;
}

static void check_design(const Plan *p, const PlanDesign *d, const char *what)
{
    if (!d->fits)
        return;
    double f = p->clock_mhz * 1e6;
    double bound_s = (double)p->total_macs / ((double)p->pe_budget * f);
    CHECK_MSG(d->latency_ms / 1e3 >= bound_s * (1 - 1e-9), "%s %s: latency %g ms < MACs bound %g ms", what,
              d->name, d->latency_ms, bound_s * 1e3);
    CHECK_MSG(1.0 / d->fps >= bound_s * (1 - 1e-9), "%s %s: period below the MACs bound", what, d->name);
    CHECK_MSG(d->pes <= p->pe_budget, "%s %s: %d PEs > %d", what, d->name, d->pes, p->pe_budget);
    CHECK_MSG(d->dsp <= p->dsp_cap, "%s %s: DSP %d > %d", what, d->name, d->dsp, p->dsp_cap);
    CHECK_MSG(d->bram18k <= p->bram_cap, "%s %s: BRAM %d > %d", what, d->name, d->bram18k, p->bram_cap);
    CHECK_MSG(d->uram <= p->uram_cap, "%s %s: URAM %d > %d", what, d->name, d->uram, p->uram_cap);
    CHECK_MSG(d->lut <= p->lut_cap, "%s %s: LUT %d > %d", what, d->name, d->lut, p->lut_cap);
    double bw = (double)d->dram_bytes * d->fps / 1e9, cap = p->bytes_per_cycle * p->clock_mhz / 1e3;
    CHECK_MSG(bw <= cap * (1 + 1e-6), "%s %s: %g GB/s > %g", what, d->name, bw, cap);
    CHECK(cap <= p->bandwidth_gbps * (1 + 1e-9));
    CHECK_MSG(d->latency >= d->t_seml + d->t_host && d->lat_sesl >= (d->split ? d->t_sesl : 0), "%s %s: lat_sesl %lld, t_sesl %lld", what, d->name, (long long)d->lat_sesl, (long long)d->t_sesl);
    int pes = 0, dsp = 0, bram = 0, uram = 0;
    for (int e = 0; e < d->n_engines; e++) {
        pes += d->engines[e].pes;
        dsp += d->engines[e].dsp;
        bram += d->engines[e].bram18k;
        uram += d->engines[e].uram;
    }
    CHECK_EQ_INT(pes, d->pes);
    CHECK_EQ_INT(dsp, d->dsp);
    CHECK(bram <= d->bram18k && uram <= d->uram);
    int64_t t_seml = 0;
    for (int i = 0; i < p->n_units; i++) {
        const PlanUnitMap *m = &d->map[i];
        CHECK(m->engine >= 0 && m->engine < d->n_engines);
        const PlanEngine *en = &d->engines[m->engine];
        CHECK_EQ_INT(m->sesl, i < d->split);
        CHECK_EQ_INT(en->sesl, m->sesl);
        if (m->sesl) {
            CHECK_EQ_INT(en->kind, p->units[i].kind);
            CHECK(m->cycles <= d->t_sesl);
            CHECK(en->shape.pp == 1 && m->cycles >= p->units[i].loops.p);   /* one pixel per cycle at most */
        } else {
            CHECK_EQ_INT(en->kind, family(p->units[i].kind));
            CHECK(m->band_rows >= 1 && en->ibuf > 0 && en->beat == p->beat);
            t_seml += m->cycles;
        }
        CHECK(plan_unroll_legal(en->shape.pa, en->max_a) && plan_unroll_legal(en->shape.pb, en->max_b));
        CHECK(m->compute >= p->units[i].macs / (en->pes > 0 ? en->pes : 1));
    }
    CHECK_MSG(t_seml == d->t_seml, "%s %s: SEML layer times add to %lld, T_SEML %lld", what, d->name,
              (long long)t_seml, (long long)d->t_seml);
    CHECK(d->period >= d->t_sesl && d->period >= d->t_seml);
}

/* What the emitter reads reproduces the planner's cycles: each SEML unit's
 * layers (plan_unit_seml_layers) on its engine (plan_engine_seml) with its
 * band rows, through the loop-nest model. */
static void check_emitter_view(const Plan *p, const IrGraph *g, const PlanDesign *d, const char *what)
{
    if (!d->fits)
        return;
    for (int i = d->split; i < p->n_units; i++) {
        const PlanUnitMap *m = &d->map[i];
        PlanSemlEngine e = plan_engine_seml(d, m->engine);
        const PlanEngine *en = &d->engines[m->engine];
        CHECK(e.pa == en->shape.pa && e.pb == en->shape.pb && e.pp == en->shape.pp && e.ibuf == en->ibuf &&
              e.beat == en->beat);
        PlanSemlLayer l[IR_MAX_IO];
        int n = plan_unit_seml_layers(p, g, i, l, IR_MAX_IO);
        int64_t cyc = 0, batch = p->units[i].batch > 1 ? p->units[i].batch : 1;
        for (int k = 0; k < n; k++) {
            CHECK(m->band_rows <= plan_ln_band_rows(&l[k], &e));
            cyc += plan_ln_seml_layer(&l[k], &e, m->band_rows);
        }
        CHECK_MSG(cyc * batch == m->cycles, "%s %s: unit %d: %lld cycles from its layers, %lld planned", what,
                  d->name, i, (long long)(cyc * batch), (long long)m->cycles);
    }
}

/* the hybrid is never worse than a baseline on the objective it was chosen for */
static void check_objective(const Plan *p, const char *what)
{
    const PlanDesign *h = &p->hybrid, *b[2] = {&p->seml, &p->sesl};
    if (!h->fits || p->opt.force_split >= 0)
        return;
    for (int k = 0; k < 2; k++) {
        if (!b[k]->fits)
            continue;
        switch (p->opt.objective) {
        case PLAN_OBJ_THROUGHPUT:
            CHECK_MSG(h->period <= b[k]->period, "%s: hybrid slower than %s", what, b[k]->name);
            break;
        case PLAN_OBJ_LATENCY:
            CHECK_MSG(h->latency <= b[k]->latency, "%s: hybrid answers later than %s", what, b[k]->name);
            break;
        default:
            if (p->seml.fits && !p->note[0])
                CHECK_MSG(h->latency <= p->seml.latency, "%s: balanced hybrid answers later than SEML-only", what);
            if (!p->seml.fits || b[k]->latency <= p->seml.latency)
                CHECK_MSG(h->period <= b[k]->period, "%s: balanced hybrid slower than %s", what, b[k]->name);
        }
    }
}

static void check_pareto(const Plan *p, const char *what)
{
    CHECK_MSG(p->n_pareto > 0 || !p->hybrid.fits, "%s: no Pareto rows", what);
    for (int i = 1; i < p->n_pareto; i++) {
        CHECK(p->pareto[i].fps < p->pareto[i - 1].fps || p->pareto[i].period > p->pareto[i - 1].period);
        CHECK(p->pareto[i].latency < p->pareto[i - 1].latency);
    }
    for (int i = 0; i < p->n_pareto && p->hybrid.fits; i++)   /* nothing on the frontier beats the hybrid on both */
        CHECK(!(p->pareto[i].period < p->hybrid.period && p->pareto[i].latency < p->hybrid.latency));
}

/* units are in topological order: every operand comes from an earlier unit (or DRAM) */
static void check_topological(const Plan *p, const char *what)
{
    for (int i = 0; i < p->n_units; i++)
        for (int j = i; j < p->n_units; j++)
            CHECK_MSG(p->units[j].out_t != p->units[i].in_t && p->units[j].out_t != p->units[i].extra_t,
                      "%s: unit %d reads unit %d's output", what, i, j);
}

static void check_plan(const Plan *p, const char *what)
{
    check_topological(p, what);
    check_design(p, &p->hybrid, what);
    check_design(p, &p->seml, what);
    check_design(p, &p->sesl, what);
    CHECK_MSG(p->hybrid.fits || !p->seml.fits, "%s: SEML fits but no hybrid", what);
    check_objective(p, what);
    check_pareto(p, what);
    CHECK_EQ_INT(p->seml.split, 0);
    CHECK_EQ_INT(p->sesl.split, p->n_units);
    CHECK(p->hybrid.split >= 0 && p->hybrid.split <= p->max_split && p->max_split <= p->n_units);
    if (p->sesl.fits)
        CHECK_EQ_INT(p->sesl.n_engines, p->n_units);
}

/* two runs give the same plan */
static void check_deterministic(const IrGraph *g, const PlanDevice *dev, const PlanOptions *o, const Plan *a)
{
    IrDiag d;
    diag_init(&d);
    Plan b;
    CHECK(plan_build(g, dev, o, &b, &d) == 0);
    CHECK_EQ_INT(a->hybrid.split, b.hybrid.split);
    CHECK_EQ_INT(a->hybrid.period, b.hybrid.period);
    CHECK_EQ_INT(a->seml.period, b.seml.period);
    CHECK_EQ_INT(a->hybrid.bram18k, b.hybrid.bram18k);
    plan_free(&b);
    diag_free(&d);
}

/* the JSON is valid and carries the three designs */
static void check_json(const Plan *p, const IrGraph *g)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    plan_write_json(p, g, f);
    fclose(f);
    cJSON *root = cJSON_ParseWithLength(buf, len);
    CHECK_MSG(root != NULL, "plan JSON does not parse");
    if (root) {
        cJSON *ds = cJSON_GetObjectItemCaseSensitive(root, "designs");
        CHECK(cJSON_GetObjectItemCaseSensitive(ds, "hybrid") != NULL);
        CHECK(cJSON_GetObjectItemCaseSensitive(ds, "seml") != NULL);
        CHECK(cJSON_GetObjectItemCaseSensitive(ds, "sesl") != NULL);
        CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "units")), p->n_units);
    }
    cJSON_Delete(root);
    free(buf);
}

static void plan_all(const IrGraph *g, const char *name, const int *budgets, int nb, const char *const *targets,
                     int nt)
{
    for (int t = 0; t < nt; t++)
        for (int b = 0; b < nb; b++) {
            const PlanDevice *dev = plan_device_find(targets[t]);
            PlanOptions o;
            plan_options_default(&o);
            o.pe_budget = budgets[b];
            o.objective = (PlanObjective)((t + b) % 3);   /* every objective on every graph */
            IrDiag d;
            diag_init(&d);
            Plan p;
            char what[160];
            snprintf(what, sizeof what, "%s/%s/%d/%s", name, targets[t], budgets[b], plan_objective_name(o.objective));
            int rc = plan_build(g, dev, &o, &p, &d);
            CHECK_MSG(rc == 0, "%s: plan_build failed", what);
            if (rc) {
                diag_print(&d, stderr);
                diag_free(&d);
                continue;
            }
            check_plan(&p, what);
            check_emitter_view(&p, g, &p.hybrid, what);
            check_emitter_view(&p, g, &p.seml, what);
            if (t == 0 && b == 0) {
                check_deterministic(g, dev, &o, &p);
                check_json(&p, g);
            }
            plan_free(&p);
            diag_free(&d);
        }
}

static void test_hand_built(void)
{
    static const int budgets[] = {64, 256, 1024};
    static const char *const targets[] = {"zcu102", "kv260", "pynq-z2", "u250"};
    IrGraph *gs[3] = {tg_mobilenet(96, true), tg_resnet(64), tg_effnet(64)};
    for (int i = 0; i < 3; i++) {
        plan_all(gs[i], gs[i]->path, budgets, 3, targets, 4);
        ir_graph_free(gs[i]);
    }
}

/* on a MobileNet-like net the dedicated pipeline beats the reusable engines */
static void test_hybrid_gain(void)
{
    IrGraph *g = tg_mobilenet(224, false);
    PlanOptions o;
    plan_options_default(&o);
    o.pe_budget = 1024;
    o.clock_mhz = 167;
    IrDiag d;
    diag_init(&d);
    Plan p;
    CHECK(plan_build(g, plan_device_find("zcu102"), &o, &p, &d) == 0);
    CHECK(p.hybrid.fits && p.seml.fits);
    CHECK_MSG(p.hybrid.fps >= 1.2 * p.seml.fps, "hybrid %.1f fps vs SEML %.1f", p.hybrid.fps, p.seml.fps);
    CHECK(p.hybrid.split > 0);
    CHECK(p.hybrid.pe_util > p.seml.pe_util);
    plan_free(&p);
    diag_free(&d);
    ir_graph_free(g);
}

/* ---------------------------------------------------------- channel moves */

/* Slice of x along axis by [from, to) with step */
static int tg_slice(IrGraph *g, int x, int axis, int64_t from, int64_t to, int64_t step)
{
    int64_t d[IR_MAX_RANK];
    memcpy(d, tg_t(g, x)->dims, sizeof d);
    d[axis] = (to - from + step - 1) / step;
    int y = tg_tensor(g, tg_t(g, x)->rank, d);
    IrSliceAttr *a = &g->layers[tg_layer(g, IR_OP_SLICE, &x, 1, y)].attr.slice;
    a->n = 1, a->axes[0] = axis, a->starts[0] = from, a->ends[0] = to, a->steps[0] = step;
    return y;
}

/* Split of x's channels in two: parts *a and *b */
static void tg_split(IrGraph *g, int x, int64_t c0, int *a, int *b)
{
    int64_t d[4] = {1, c0, tg_t(g, x)->dims[2], tg_t(g, x)->dims[3]}, e[4] = {1, tg_t(g, x)->dims[1] - c0, d[2], d[3]};
    *a = tg_tensor(g, 4, d), *b = tg_tensor(g, 4, e);
    int l = tg_layer(g, IR_OP_SPLIT, &x, 1, *a);
    IrLayer *L = &g->layers[l];
    L->n_out = 2, L->out[1] = *b, L->attr.axis.axis = 1;
    g->tensors[*b].producer = l;
}

/* Gather of x's channels by the shuffle of `groups` (as fuse_shuffle makes it) */
static int tg_shuffle(IrGraph *g, int x, int64_t groups)
{
    int64_t c = tg_t(g, x)->dims[1], *idx;
    int in[2] = {x, ir_const_add(g, "shuffle_idx", IR_DT_INT64, 1, &c, (void **)&idx)};
    for (int64_t o = 0; o < c; o++)
        idx[o] = o % groups * (c / groups) + o / groups;
    int y = tg_same(g, x);
    g->layers[tg_layer(g, IR_OP_GATHER, in, 2, y)].attr.axis.axis = 1;
    return y;
}

/* ShuffleNet-like: Split, Concat, shuffle, every other channel; then a
 * Slice of rows and a Transpose (host layers) before the classifier */
static IrGraph *tg_shufflenet(void)
{
    tg_counter = 0;
    IrGraph *g = ir_graph_new("shufflenet-like");
    int a, b, x = tg_conv(g, tg_input(g, 3, 16, 16), 16, 3, 2, 1);
    tg_split(g, x, 6, &a, &b);
    int y = tg_conv(g, tg_conv(g, b, 10, 1, 1, 1), 10, 3, 1, 10);
    int cat_in[2] = {a, y};
    int cat = tg_same(g, x);
    g->layers[tg_layer(g, IR_OP_CONCAT, cat_in, 2, cat)].attr.axis.axis = 1;
    x = tg_slice(g, tg_shuffle(g, cat, 2), 1, 1, 16, 2);            /* 8 channels */
    x = tg_slice(g, tg_conv(g, x, 8, 1, 1, 1), 2, 0, 4, 1);         /* rows: the host */
    int64_t td[4] = {1, 8, 8, 4};
    int t = tg_tensor(g, 4, td);
    IrAxesAttr *pa = &g->layers[tg_layer(g, IR_OP_TRANSPOSE, &x, 1, t)].attr.axes;
    *pa = (IrAxesAttr){4, {0, 1, 3, 2}, false};
    tg_output(g, tg_fc(g, tg_flatten(g, tg_gap(g, t)), 10));
    return g;
}

static void test_channel_moves(void)
{
    IrGraph *g = tg_shufflenet();
    PlanOptions o;
    plan_options_default(&o);
    IrDiag d;
    diag_init(&d);
    Plan p;
    CHECK(plan_build(g, plan_device_find("zcu102"), &o, &p, &d) == 0);
    int parts = 0, moves = 0;
    for (int u = 0; u < p.n_units; u++) {
        const PlanUnit *U = &p.units[u];
        if (U->kind != PLAN_K_ELTWISE || U->elt != PLAN_ELT_MOVE)
            continue;
        moves++;
        const IrLayer *L = &g->layers[U->layer];
        PlanSemlLayer l;
        CHECK_EQ_INT(plan_unit_seml_layers(&p, g, u, &l, 1), 1);
        CHECK(U->out_t == L->out[U->part] && U->geo.f == U->mv.count && U->geo.c == U->mv.c_in);
        if (L->op == IR_OP_SPLIT) {   /* one unit per part, at its channel offset */
            CHECK(U->mv.coff == (U->part ? 6 : 0) && U->mv.count == (U->part ? 10 : 6) && U->mv.step == 1);
            CHECK(l.g.c == U->mv.count && l.in_dense == false);
            parts++;
        } else if (L->op == IR_OP_GATHER) {
            CHECK(U->mv.groups == 2 && U->mv.count == 16 && l.g.c == 16 && l.in_dense);
        } else {   /* channels 1, 3, ..., 15: spans 15 input channels */
            CHECK(U->mv.coff == 1 && U->mv.step == 2 && U->mv.count == 8 && l.g.c == 15 && l.g.f == 8 && !l.in_dense);
        }
    }
    CHECK_EQ_INT(parts, 2);
    CHECK_EQ_INT(moves, 4);
    CHECK_EQ_INT(p.n_host, 2);   /* the Slice of rows and the Transpose */
    for (int i = 0; i < p.n_host; i++) {
        IrOp op = g->layers[p.host_layers[i]].op;
        CHECK(op == IR_OP_TRANSPOSE || (op == IR_OP_SLICE && g->layers[p.host_layers[i]].attr.slice.axes[0] == 2));
    }
    plan_free(&p);
    diag_free(&d);
    static const int budgets[] = {256, 2048};
    static const char *const targets[] = {"zcu102", "pynq-z2"};
    plan_all(g, "shufflenet-like", budgets, 2, targets, 2);
    ir_graph_free(g);
}

static void test_force_split(void)
{
    IrGraph *g = tg_mobilenet(96, false);
    PlanOptions o;
    plan_options_default(&o);
    o.pe_budget = 512;
    o.force_split = 5;
    IrDiag d;
    diag_init(&d);
    Plan p;
    CHECK(plan_build(g, plan_device_find("zcu104"), &o, &p, &d) == 0);
    CHECK_EQ_INT(p.hybrid.split, 5);
    check_plan(&p, "forced split");
    plan_free(&p);
    diag_free(&d);
    ir_graph_free(g);
}

static void test_bad_options(void)
{
    IrGraph *g = tg_resnet(32);
    const PlanDevice *dev = plan_device_find("zcu102");
    PlanOptions bad[4];
    for (int i = 0; i < 4; i++)
        plan_options_default(&bad[i]);
    bad[0].pe_budget = -5;
    bad[1].resource_frac = 0;
    bad[2].clock_mhz = -1;
    bad[3].bandwidth_gbps = 1e9;
    for (int i = 0; i < 4; i++) {
        IrDiag d;
        diag_init(&d);
        Plan p;
        CHECK(plan_build(g, dev, &bad[i], &p, &d) == -1);
        CHECK(d.n_errors > 0);
        diag_free(&d);
    }
    /* a tiny budget on a tiny board still plans (or says why not) without crashing */
    PlanOptions o;
    plan_options_default(&o);
    o.pe_budget = 1;
    IrDiag d;
    diag_init(&d);
    Plan p;
    CHECK(plan_build(g, plan_device_find("pynq-z2"), &o, &p, &d) == 0);
    check_plan(&p, "one PE");
    CHECK(!p.sesl.fits);
    plan_free(&p);
    diag_free(&d);
    ir_graph_free(g);
}

static void test_unknown_shape(void)
{
    IrGraph *g = ir_graph_new("dyn");
    int64_t dims[4] = {1, 3, -1, -1};
    int x = ir_tensor_add(g, "x", IR_DT_FLOAT, 4, dims);
    g->tensors[x].kind = IR_T_INPUT;
    g->inputs[g->n_inputs++] = x;
    int y = tg_unary(g, IR_OP_RELU, x);
    tg_output(g, y);
    IrDiag d;
    diag_init(&d);
    PlanOptions o;
    plan_options_default(&o);
    Plan p;
    CHECK(plan_build(g, plan_device_find("zcu102"), &o, &p, &d) == -1);
    CHECK(diag_contains(&d, "shape unknown"));
    diag_free(&d);
    ir_graph_free(g);
}

static IrGraph *load(const char *path)
{
    if (access(path, R_OK) != 0)
        return NULL;
    FeOptions fo;
    memset(&fo, 0, sizeof fo);
    IrDiag d;
    diag_init(&d);
    IrGraph *g = fe_load_onnx(path, &fo, &d);
    if (!g)
        diag_print(&d, stderr);
    diag_free(&d);
    return g;
}

static void test_samples(void)
{
    static const char *names[] = {"mobilenet_tiny", "mobilenet_tiny_bn", "resnet_tiny", "effnet_tiny"};
    static const int budgets[] = {32, 256};
    static const char *const targets[] = {"zcu102", "ultra96v2"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/samples/%s.onnx", SOURCE_DIR, names[i]);
        IrGraph *g = load(path);
        if (!g)
            continue;
        plan_all(g, names[i], budgets, 2, targets, 2);
        ir_graph_free(g);
    }
}

/* The CNNs of the acceptance table, when the shared folder is there. */
static void test_shared_models(void)
{
    static const char *names[] = {"mobilenet_v1", "mobilenet_v2", "mnasnet1_0", "efficientnet_b0", "resnet18"};
    static const int budgets[] = {512, 1024, 2048};
    static const char *const targets[] = {"zcu102"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/../shared/models/%s.onnx", SOURCE_DIR, names[i]);
        IrGraph *g = load(path);
        if (!g)
            continue;
        plan_all(g, names[i], budgets, 3, targets, 1);
        ir_graph_free(g);
    }
}

int main(void)
{
    test_hand_built();
    test_hybrid_gain();
    test_force_split();
    test_channel_moves();
    test_bad_options();
    test_unknown_shape();
    test_samples();
    test_shared_models();
    return check_done();
}
