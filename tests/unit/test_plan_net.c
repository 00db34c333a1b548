/* test_plan_net.c - the SESL part as a dataflow network (plan/net.c) and
 * its token-level simulation (plan/dfsim.c): processes in dataflow order,
 * duplicators and writers where streams fan out or leave, FIFO depths from
 * the simulation, the frame interval against the plan's period, and the
 * deadlocks a too shallow FIFO causes (a residual skip; a squeeze-excite
 * map that must wait whole for its scale). */
#include "check.h"
#include "plan/net.h"
#include "test_plan_graphs.h"

#include <string.h>

static Plan plan_sesl(IrGraph *g, int pes)
{
    PlanOptions o;
    plan_options_default(&o);
    o.pe_budget = pes;
    o.objective = PLAN_OBJ_THROUGHPUT;
    IrDiag d;
    diag_init(&d);
    Plan p;
    CHECK(plan_build(g, plan_device_find("zcu102"), &o, &p, &d) == 0);
    o.force_split = p.max_split;
    plan_free(&p);
    CHECK(plan_build(g, plan_device_find("zcu102"), &o, &p, &d) == 0);
    diag_free(&d);
    return p;
}

static PlanNet net_of(const Plan *p, const IrGraph *g)
{
    PlanNet net;
    IrDiag d;
    diag_init(&d);
    int rc = plan_net_build(p, g, &p->hybrid, &net, &d);
    CHECK_MSG(rc == 0, "plan_net_build failed");
    diag_free(&d);
    return net;
}

static int count(const PlanNet *n, PlanProcKind k)
{
    int c = 0;
    for (int i = 0; i < n->n_procs; i++)
        c += n->procs[i].kind == k;
    return c;
}

/* producers before consumers, every channel joins two processes, every
 * process's ports point back at it */
static void check_order(const PlanNet *n)
{
    for (int c = 0; c < n->n_chans; c++) {
        const PlanChan *ch = &n->chans[c];
        CHECK(ch->producer >= 0 && ch->consumer >= 0 && ch->producer < ch->consumer);
        CHECK(ch->tokens > 0 && ch->width > 0);
        const PlanProc *a = &n->procs[ch->producer], *b = &n->procs[ch->consumer];
        CHECK((a->n_out > 0 && a->out[0] == c) || (a->n_out > 1 && a->out[1] == c));
        CHECK((b->n_in > 0 && b->in[0] == c) || (b->n_in > 1 && b->in[1] == c));
    }
    for (int i = 0; i < n->n_procs; i++) {
        const PlanProc *p = &n->procs[i];
        CHECK(p->kind == PLAN_P_READ ? p->n_in == 0 : p->n_in >= 1);
        CHECK(p->kind == PLAN_P_WRITE ? p->n_out == 0 : p->n_out >= 1);
        CHECK(p->cycles >= p->iters && p->cycles <= n->period);
    }
}

static int find(const PlanNet *n, PlanProcKind k, int nth)
{
    for (int i = 0; i < n->n_procs; i++)
        if (n->procs[i].kind == k && nth-- == 0)
            return i;
    return -1;
}

/* x -> conv 3x3 -> conv 3x3 (+ x): the skip waits for two windows' fill */
static void test_residual_diamond(void)
{
    IrGraph *g = ir_graph_new("diamond");
    tg_counter = 0;
    int x = tg_input(g, 8, 24, 24);
    int y = tg_conv(g, tg_conv(g, x, 8, 3, 1, 1), 8, 3, 1, 1);
    tg_output(g, tg_binary(g, IR_OP_ADD, y, x));
    Plan p = plan_sesl(g, 256);
    CHECK_EQ_INT(p.n_units, 2);
    CHECK(p.hybrid.fits && p.hybrid.split == 2);
    PlanNet n = net_of(&p, g);
    check_order(&n);
    CHECK_EQ_INT(count(&n, PLAN_P_READ), 1);
    CHECK_EQ_INT(count(&n, PLAN_P_DUP), 1);       /* x: window of conv 1, skip of conv 2 */
    CHECK_EQ_INT(count(&n, PLAN_P_WINDOW), 2);
    CHECK_EQ_INT(count(&n, PLAN_P_MAC), 2);
    CHECK_EQ_INT(count(&n, PLAN_P_WRITE), 1);
    int mac2 = find(&n, PLAN_P_MAC, 1), skip = n.procs[mac2].in[1];
    CHECK(skip >= 0 && n.procs[n.chans[skip].producer].kind == PLAN_P_DUP);
    CHECK_EQ_INT(n.chans[skip].tokens, 24 * 24);
    plan_net_simulate(&n, 3);
    CHECK(!n.deadlock);
    CHECK_MSG(n.interval >= n.period && n.interval <= n.period * 11 / 10, "interval %lld, period %lld",
              (long long)n.interval, (long long)n.period);
    CHECK_EQ_INT(n.period, p.hybrid.t_sesl);
    CHECK_MSG(n.chans[skip].depth > 2 * 24, "skip depth %lld", (long long)n.chans[skip].depth);  /* two windows' rows */
    CHECK(n.latency > n.period && n.latency < 2 * n.period);
    int64_t interval = n.interval;
    plan_net_run(&n, 3);   /* the sized depths again: the same run */
    CHECK_EQ_INT(n.interval, interval);
    /* a skip FIFO too shallow for the main path's fill: deadlock, named */
    n.chans[skip].depth = 2;
    plan_net_run(&n, 3);
    CHECK(n.deadlock);
    CHECK_MSG(strstr(n.why, "dup:") && strstr(n.why, "room") && strstr(n.why, "depth 2"), "%s", n.why);
    plan_net_free(&n);
    plan_free(&p);
    ir_graph_free(g);
}

/* squeeze-excite: the map waits whole in its FIFO while the global pool and
 * two 1x1 convs compute its channel scale */
static void test_squeeze_excite(void)
{
    IrGraph *g = ir_graph_new("se");
    tg_counter = 0;
    int x = tg_input(g, 8, 12, 12);
    int m = tg_unary(g, IR_OP_RELU, tg_conv(g, x, 16, 1, 1, 1));
    int s = tg_unary(g, IR_OP_SIGMOID, tg_conv(g, tg_unary(g, IR_OP_RELU, tg_conv(g, tg_gap(g, m), 4, 1, 1, 1)), 16, 1, 1, 1));
    tg_output(g, tg_binary(g, IR_OP_MUL, m, s));
    Plan p = plan_sesl(g, 256);
    CHECK_EQ_INT(p.n_units, 5);                  /* conv, pool, conv, conv, mul */
    CHECK(p.units[4].bvec && p.hybrid.split == 5);
    PlanNet n = net_of(&p, g);
    check_order(&n);
    int mul = find(&n, PLAN_P_ELT, 0), map = n.procs[mul].in[0];
    CHECK(n.procs[mul].bvec && n.chans[n.procs[mul].in[1]].tokens == 1);
    plan_net_simulate(&n, 3);
    CHECK(!n.deadlock);
    CHECK_MSG(n.chans[map].depth >= 12 * 12, "map FIFO %lld", (long long)n.chans[map].depth);
    CHECK(n.interval >= n.period && n.interval <= n.period * 11 / 10);
    CHECK(n.latency > n.period);                /* the map is read twice: pool, then scale */
    n.chans[map].depth = 12 * 12 / 2;
    plan_net_run(&n, 3);
    CHECK(n.deadlock);
    CHECK_MSG(strstr(n.why, "room") && strstr(n.why, "elt:"), "%s", n.why);
    plan_net_free(&n);
    plan_free(&p);
    ir_graph_free(g);
}

/* a MobileNet-like hybrid: the simulated period is the plan's, the latency near it */
static void test_hybrid(void)
{
    IrGraph *g = tg_mobilenet(96, false);
    PlanOptions o;
    plan_options_default(&o);
    o.pe_budget = 512;
    o.force_split = 12;
    IrDiag d;
    diag_init(&d);
    Plan p;
    CHECK(plan_build(g, plan_device_find("zcu102"), &o, &p, &d) == 0);
    CHECK(p.hybrid.fits && p.hybrid.split == 12);
    PlanNet n = net_of(&p, g);
    check_order(&n);
    CHECK(count(&n, PLAN_P_WRITE) >= 1);        /* the boundary to the SEML part */
    plan_net_simulate(&n, 3);
    CHECK(!n.deadlock);
    CHECK_MSG(n.interval >= p.hybrid.t_sesl && n.interval <= p.hybrid.t_sesl * 11 / 10, "interval %lld vs %lld",
              (long long)n.interval, (long long)p.hybrid.t_sesl);
    CHECK_MSG(n.latency > p.hybrid.lat_sesl * 3 / 4 && n.latency < p.hybrid.lat_sesl * 5 / 4, "latency %lld vs %lld",
              (long long)n.latency, (long long)p.hybrid.lat_sesl);
    plan_net_free(&n);
    /* SEML-only has no SESL network; a design that does not fit none either */
    PlanNet e;
    CHECK(plan_net_build(&p, g, &p.seml, &e, &d) == 0 && e.n_procs == 0);
    plan_net_free(&e);
    PlanDesign none;
    memset(&none, 0, sizeof none);
    none.name = "none";
    CHECK(plan_net_build(&p, g, &none, &e, &d) == -1 && d.n_errors > 0);
    diag_free(&d);
    plan_free(&p);
    ir_graph_free(g);
}

/* every hand-built CNN as far as its SESL part reaches: sized FIFOs keep the
 * plan's period and never deadlock */
static void test_graphs(void)
{
    IrGraph *gs[3] = {tg_resnet(32), tg_effnet(32), tg_mobilenet(64, true)};
    for (int i = 0; i < 3; i++) {
        Plan p = plan_sesl(gs[i], 1024);
        if (p.hybrid.fits && p.hybrid.split > 0) {
            PlanNet n = net_of(&p, gs[i]);
            check_order(&n);
            plan_net_simulate(&n, 3);
            CHECK_MSG(!n.deadlock, "%s: %s", gs[i]->path, n.why);
            CHECK_MSG(n.interval >= p.hybrid.t_sesl && n.interval <= p.hybrid.t_sesl * 11 / 10,
                      "%s: interval %lld vs %lld", gs[i]->path, (long long)n.interval, (long long)p.hybrid.t_sesl);
            plan_net_free(&n);
        }
        CHECK(p.hybrid.split > 0);
        plan_free(&p);
        ir_graph_free(gs[i]);
    }
}

int main(void)
{
    test_graphs();
    test_residual_diamond();
    test_squeeze_excite();
    test_hybrid();
    return check_done();
}
