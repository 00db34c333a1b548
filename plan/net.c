/* net.c - the SESL part of a design as the process network the top's
 * DATAFLOW region instantiates (plan/net.h).
 *
 * Why built from the plan and not from the graph: the processes are the
 * plan's units on the plan's engines, so their loop counts and cycles are
 * the ones the plan costed (plan/loopnest.c). The network is, in a valid
 * dataflow order (producers first): a DRAM reader per graph input the
 * SESL part reads; per unit a window generator (windowed layers) and its
 * compute process; after every stream that several processes read, a
 * chain of duplicators (sesl_stream.c stream_dup: one in, two out); a
 * writer for every stream the SEML part, the host or a graph output reads.
 * A channel carries one word per pixel (all its channels), or per window
 * between a generator and its compute process.
 *
 * Cost: O(units + tensors).
 */
#include "net.h"

#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const Plan *p;
    const IrGraph *g;
    const PlanDesign *d;
    PlanNet *net;
    int cap_p, cap_c;
    int *prod;          /* per tensor: SESL unit producing it, -1 */
    int *n_cons;        /* per tensor: reads by SESL units */
    bool *writer;       /* per tensor: the SEML part, the host or a graph output reads it */
    int *next_chan;     /* per tensor: its next channel to hand to a consumer */
    int *chan_list;     /* per tensor, from first_chan: its consumer channels */
    int *first_chan;
} Build;

static int64_t numel(const IrGraph *g, int t)
{
    int64_t n = t >= 0 ? ir_tensor_numel(&g->tensors[t]) : 0;
    return n < 0 ? 0 : n;
}

/* a tensor as a stream: pixels per frame and bytes per word */
static void stream_of(const Build *b, int t, int bits, int64_t *pix, int64_t *width)
{
    const IrTensor *x = &b->g->tensors[t];
    int64_t c = x->rank >= 2 ? x->dims[1] : (x->rank == 1 ? x->dims[0] : 1);
    *pix = c > 0 ? numel(b->g, t) / c : 0;
    *width = c * plan_value_bytes(bits);
}

static const char *tensor_name(const IrGraph *g, int t)
{
    return t >= 0 && g->tensors[t].name ? g->tensors[t].name : "?";
}

static const char *layer_name(const Build *b, int unit)
{
    const IrLayer *L = &b->g->layers[b->p->units[unit].layer];
    return L->name ? L->name : "?";
}

static PlanProc *proc_new(Build *b, PlanProcKind k, int unit, int tensor, const char *tag, const char *what)
{
    PlanNet *n = b->net;
    if (n->n_procs == b->cap_p) {
        b->cap_p = b->cap_p ? 2 * b->cap_p : 32;
        n->procs = realloc(n->procs, sizeof *n->procs * (size_t)b->cap_p);
        if (!n->procs)
            abort();
    }
    PlanProc *pr = &n->procs[n->n_procs++];
    memset(pr, 0, sizeof *pr);
    pr->kind = k, pr->unit = unit, pr->tensor = tensor;
    pr->in[0] = pr->in[1] = pr->out[0] = pr->out[1] = -1;
    pr->shape = (PlanShape){1, 1, 1};
    pr->per_tok = 1;
    snprintf(pr->name, sizeof pr->name, "%s:%s", tag, what);
    return pr;
}

static int chan_new(Build *b, int producer, int tensor, int64_t tokens, int64_t width)
{
    PlanNet *n = b->net;
    if (n->n_chans == b->cap_c) {
        b->cap_c = b->cap_c ? 2 * b->cap_c : 32;
        n->chans = realloc(n->chans, sizeof *n->chans * (size_t)b->cap_c);
        if (!n->chans)
            abort();
    }
    n->chans[n->n_chans] = (PlanChan){producer, -1, tensor, tokens, width, 2};
    return n->n_chans++;
}

static void attach_out(Build *b, int proc, int port, int chan)
{
    b->net->procs[proc].out[port] = chan;
    b->net->procs[proc].n_out = port + 1;
    b->net->chans[chan].producer = proc;
}

/* Give stream t's consumers their channels: straight from the producer, or
 * through a chain of duplicators (dup i: out[0] to consumer i, out[1] on);
 * the channels wait in t's list until each consumer takes one. */
static void stream_fanout(Build *b, int t, int source, int bits)
{
    int64_t pix, width;
    stream_of(b, t, bits, &pix, &width);
    int k = b->n_cons[t] + (b->writer[t] ? 1 : 0), from = source, port = 0, m = 0;
    int base = b->first_chan[t] = b->net->n_chans;   /* at most one list slot per channel made here */
    for (int i = 0; i + 1 < k; i++) {
        int in = chan_new(b, from, t, pix, width);
        attach_out(b, from, port, in);
        PlanProc *dp = proc_new(b, PLAN_P_DUP, -1, t, "dup", tensor_name(b->g, t));
        int dup = b->net->n_procs - 1;
        dp->in[0] = in, dp->n_in = 1;
        dp->iters = pix, dp->cycles = plan_ln_sesl_dup(pix), dp->depth = O2H_DEPTH_COPY;
        b->net->chans[in].consumer = dup;
        int c = chan_new(b, dup, t, pix, width);
        attach_out(b, dup, 0, c);
        b->chan_list[base + m++] = c;
        from = dup, port = 1;
    }
    if (k > 0) {
        int c = chan_new(b, from, t, pix, width);
        attach_out(b, from, port, c);
        b->chan_list[base + m++] = c;
    }
    b->next_chan[t] = 0;
}

static int stream_take(Build *b, int t, int proc)
{
    int c = b->chan_list[b->first_chan[t] + b->next_chan[t]++];
    b->net->chans[c].consumer = proc;
    return c;
}

/* DRAM reader of a graph input */
static void add_reader(Build *b, int t, int bits)
{
    int64_t pix, width;
    stream_of(b, t, bits, &pix, &width);
    PlanProc *pr = proc_new(b, PLAN_P_READ, -1, t, "read", tensor_name(b->g, t));
    pr->per_tok = plan_cdiv(width, b->p->beat);
    pr->iters = pix * pr->per_tok;
    pr->cycles = plan_ln_sesl_mover(pix, width, b->p->beat);
    pr->depth = O2H_DEPTH_BURST;
    stream_fanout(b, t, b->net->n_procs - 1, bits);
}

static void add_writer(Build *b, int t, int bits)
{
    int64_t pix, width;
    stream_of(b, t, bits, &pix, &width);
    PlanProc *pr = proc_new(b, PLAN_P_WRITE, -1, t, "write", tensor_name(b->g, t));
    int w = b->net->n_procs - 1;
    pr->per_tok = plan_cdiv(width, b->p->beat);
    pr->iters = pix * pr->per_tok;
    pr->cycles = plan_ln_sesl_mover(pix, width, b->p->beat);
    pr->depth = O2H_DEPTH_BURST;
    pr->in[0] = stream_take(b, t, w), pr->n_in = 1;
}

/* sesl_window.c in front of a windowed unit: reads the input stream, writes windows */
static int add_window(Build *b, int u, const PlanUnit *U)
{
    PlanProc *w = proc_new(b, PLAN_P_WINDOW, u, -1, "window", layer_name(b, u));
    int wi = b->net->n_procs - 1;
    const PlanGeom *g = &U->geo;
    int64_t n = U->batch > 1 ? U->batch : 1;
    w->geo = *g;
    w->iters = n * (g->h + g->pt + g->pb) * (g->w + g->pl + g->pr);
    w->cycles = n * plan_ln_sesl_window(g);
    w->depth = O2H_DEPTH_WINDOW;
    w->in[0] = stream_take(b, U->in_t, wi), w->n_in = 1;
    int c = chan_new(b, wi, -1, n * g->ho * g->wo, g->kh * g->kw * g->c * plan_value_bytes(U->bits));
    attach_out(b, wi, 0, c);
    return c;
}

static void compute_loop(PlanProc *c, const PlanUnit *U, PlanShape s)
{
    int64_t n = U->batch > 1 ? U->batch : 1, nc = plan_cdiv(U->geo.c, s.pa);
    c->shape = s;
    switch (U->kind) {
    case PLAN_K_POOL:
        c->kind = PLAN_P_POOL;
        if (U->op == PLAN_SEML_GPOOL) {
            c->per_tok = nc, c->tail = nc, c->depth = O2H_DEPTH_POOL(1);
            c->iters = n * (U->geo.h * U->geo.w * nc + nc);
            c->cycles = n * plan_ln_sesl_pool(&U->geo, true, s.pa, s.pb);
        } else {
            c->per_tok = nc * plan_cdiv(U->loops.b, s.pb), c->depth = O2H_DEPTH_POOL(s.pb);
            c->iters = n * U->loops.p * c->per_tok;
            c->cycles = n * plan_ln_sesl_pool(&U->geo, false, s.pa, s.pb);
        }
        return;
    case PLAN_K_ELTWISE:   /* over output channels */
        c->kind = PLAN_P_ELT;
        c->per_tok = plan_cdiv(U->geo.f, s.pa), c->depth = O2H_DEPTH_ELT, c->bvec = U->bvec;
        c->iters = n * U->geo.h * U->geo.w * c->per_tok;
        c->cycles = n * plan_ln_sesl_eltwise(U->geo.h * U->geo.w, U->geo.f, s.pa);
        return;
    default:
        c->kind = PLAN_P_MAC;
        c->per_tok = plan_cdiv(U->loops.a, s.pa) * plan_cdiv(U->loops.b, s.pb), c->depth = O2H_DEPTH_MAC(s.pb);
        c->iters = n * U->loops.p * c->per_tok;
        c->cycles = n * plan_ln_sesl_mac(U->loops.p, U->loops.a, U->loops.b, s.pa, s.pb);
    }
}

static void add_unit(Build *b, int u)
{
    const PlanUnit *U = &b->p->units[u];
    PlanShape s = b->d->engines[b->d->map[u].engine].shape;
    int win = U->windowed ? add_window(b, u, U) : -1;
    const char *tag = U->kind == PLAN_K_POOL ? "pool" : U->kind == PLAN_K_ELTWISE ? "elt" : "mac";
    PlanProc *c = proc_new(b, PLAN_P_MAC, u, U->out_t, tag, layer_name(b, u));
    int ci = b->net->n_procs - 1;
    compute_loop(c, U, s);
    c->in[0] = win >= 0 ? win : stream_take(b, U->in_t, ci);
    if (win >= 0)
        b->net->chans[win].consumer = ci;
    c->n_in = 1;
    if (U->extra_t >= 0) {
        int x = stream_take(b, U->extra_t, ci);
        b->net->procs[ci].in[1] = x, b->net->procs[ci].n_in = 2;
    }
    stream_fanout(b, U->out_t, ci, U->bits);
}

/* readers of each tensor inside the SESL part, and whether a writer takes it out */
static void count_consumers(Build *b)
{
    const Plan *p = b->p;
    int s = b->d->split;
    for (int u = 0; u < s; u++)
        b->prod[p->units[u].out_t] = u;
    for (int u = 0; u < p->n_units; u++) {
        int ts[2] = {p->units[u].in_t, p->units[u].extra_t};
        for (int k = 0; k < 2; k++) {
            if (ts[k] < 0)
                continue;
            if (u < s)
                b->n_cons[ts[k]]++;
            else if (b->prod[ts[k]] >= 0)
                b->writer[ts[k]] = true;
        }
    }
    for (int u = 0; u < s; u++)
        if (p->units[u].out_dram)
            b->writer[p->units[u].out_t] = true;
}

static void build(Build *b)
{
    const Plan *p = b->p;
    int s = b->d->split, nt = b->g->n_tensors;
    count_consumers(b);
    char *seen = calloc((size_t)nt + 1, 1);
    if (!seen)
        abort();
    for (int u = 0; u < s; u++) {
        const PlanUnit *U = &p->units[u];
        int ts[2] = {U->in_t, U->extra_t};
        for (int k = 0; k < 2; k++)
            if (ts[k] >= 0 && b->prod[ts[k]] < 0 && !seen[ts[k]]) {
                seen[ts[k]] = 1;
                add_reader(b, ts[k], U->bits);
            }
        add_unit(b, u);
        if (b->writer[U->out_t])
            add_writer(b, U->out_t, U->bits);
    }
    free(seen);
}

int plan_net_build(const Plan *p, const IrGraph *g, const PlanDesign *d, PlanNet *net, IrDiag *diag)
{
    memset(net, 0, sizeof *net);
    if (!d->fits || !d->map || !d->engines) {
        diag_error(diag, g->path, NULL, NULL, "design '%s' has no engines: no SESL network", d->name);
        return -1;
    }
    int nt = g->n_tensors + 1;
    Build b = {p, g, d, net, 0, 0, malloc(sizeof(int) * (size_t)nt), calloc((size_t)nt, sizeof(int)),
               calloc((size_t)nt, sizeof(bool)), calloc((size_t)nt, sizeof(int)),
               malloc(sizeof(int) * 4 * (size_t)(p->n_units + nt)), calloc((size_t)nt, sizeof(int))};
    if (!b.prod || !b.n_cons || !b.writer || !b.next_chan || !b.chan_list || !b.first_chan)
        abort();
    for (int t = 0; t < nt; t++)
        b.prod[t] = -1;
    build(&b);
    for (int i = 0; i < net->n_procs; i++)
        if (net->procs[i].cycles > net->period)
            net->period = net->procs[i].cycles;
    free(b.prod);
    free(b.n_cons);
    free(b.writer);
    free(b.next_chan);
    free(b.chan_list);
    free(b.first_chan);
    return 0;
}

void plan_net_free(PlanNet *net)
{
    free(net->procs);
    free(net->chans);
    free(net->stall_in);
    free(net->stall_out);
    memset(net, 0, sizeof *net);
}
