/* dfsim.c - token-level dataflow simulation of the SESL network
 * (plan/net.h): frame interval, latency, stalls, deadlocks, FIFO depths.
 *
 * Why at the level of tokens and loop iterations: a DATAFLOW region's
 * throughput is not just its slowest process. Processes read and write
 * their FIFOs at particular iterations of their pipelined loops (the
 * templates' patterns, below), a full or empty FIFO stalls the whole loop,
 * and a residual skip or a squeeze-excite map must wait in its FIFO while
 * the other operand is on its way; too shallow, the pipeline slows down or
 * deadlocks. FINN sizes such FIFOs by RTL simulation; here the loops are
 * known, so the simulation jumps from one FIFO access to the next.
 *
 * Model. A process runs its loop once per frame, N iterations at II=1,
 * then depth + restart cycles before the next frame's loop. At iteration i
 * it may read a word (at i) or write one (visible at i + depth). Its
 * actions are kept in order of their nominal times; a blocked action (no
 * word to read, no room to write) freezes the loop, so every later action
 * shifts by the stall. Patterns (k-th word of a frame):
 *   reader     writes k at the last beat of pixel k:  (k+1)*beats - 1
 *   writer     reads k at its first beat:             k*beats
 *   duplicator reads k at k, writes both copies at k
 *   window     reads at each in-image padded position, writes at each
 *              stride-aligned window corner (sesl_window.c)
 *   mac/pool   reads input (and skip) at the first iteration of pixel k,
 *              k*T, and writes at its last, k*T + T - 1, T = filter tiles
 *              x reduction tiles (sesl_mac.c, sesl_pool.c)
 *   global pool reads pixel k at k*T (T = channel tiles), writes its one
 *              word at the end of its second loop
 *   eltwise    reads a and b at k*T, writes at k*T + T - 1; a per-channel
 *              b is one word read before the first pixel
 * Events are processed in time order from a heap (one pending action per
 * process), so a read sees every write made before it and occupancy is
 * exact at every instant. Cost: O(words x log processes).
 */
#include "net.h"

#include "plan_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INF (INT64_MAX / 4)

typedef struct {
    int64_t *t;          /* visible times of the words in the FIFO (ring) */
    int64_t cap, head, n;
    int64_t depth;       /* words it may hold; INF: unbounded */
    int64_t hwm;         /* most words held */
    int64_t written, read;
    int reader_wait, writer_wait;   /* process blocked on it, -1 */
} Fifo;

/* a port of a process: one of its channels, with its word schedule */
typedef struct {
    int chan;
    bool write;
    int64_t k;           /* next word of this frame */
} Port;

typedef struct {
    Port port[4];
    int n_port;
    int64_t frame_len;   /* nominal cycles of one frame's loop(s) with depth and restart */
    int64_t frame;       /* current frame */
    int64_t shift;       /* stall accumulated so far */
    int64_t at;          /* actual time of the pending action */
    int act;             /* port of the pending action, -1 finished */
    int64_t pace;        /* readers in the sizing run: cycles per frame, 0 free-running */
    int64_t last;        /* time of the last action of the current frame */
    int64_t first;       /* time of the first action of frame 0 */
} Proc;

typedef struct {
    PlanNet *net;
    Fifo *fifo;
    Proc *pr;
    int frames;
    int *heap;
    int n_heap;
    int64_t *done;       /* per frame: when its last sink action ran */
} Sim;

/* ------------------------------------------------------------- schedule */

static int64_t tokens(const Sim *s, const Proc *q, int port)
{
    return s->net->chans[q->port[port].chan].tokens;
}

/* window k of a window generator: its corner's padded raster index */
static int64_t window_corner(const PlanGeom *g, int64_t k)
{
    int64_t wo = g->wo > 0 ? g->wo : 1, n = g->ho * wo, img = k / n;
    k %= n;
    int64_t wp = g->w + g->pl + g->pr, hp = g->h + g->pt + g->pb;
    int64_t r = (g->kh - 1) * g->dh + (k / wo) * g->sh, c = (g->kw - 1) * g->dw + (k % wo) * g->sw;
    return img * hp * wp + r * wp + c;
}

/* input pixel k of a window generator: its padded raster index */
static int64_t window_input(const PlanGeom *g, int64_t k)
{
    int64_t n = g->h * g->w, img = k / n;
    k %= n;
    int64_t wp = g->w + g->pl + g->pr, hp = g->h + g->pt + g->pb;
    return img * hp * wp + (g->pt + k / g->w) * wp + g->pl + k % g->w;
}

/* nominal iteration (from the frame's loop start) of a port's k-th word */
static int64_t nominal(const Sim *s, const Proc *q, const PlanProc *p, int port, int64_t k)
{
    bool w = q->port[port].write;
    int64_t T = p->per_tok > 0 ? p->per_tok : 1, d = w ? p->depth : 0;
    switch (p->kind) {
    case PLAN_P_READ:
        if (q->pace > 0)
            return (k + 1) * q->pace / tokens(s, q, port) - 1 + d;
        return (k + 1) * T - 1 + d;
    case PLAN_P_WRITE:
        return k * T;
    case PLAN_P_DUP:
        return k + d;
    case PLAN_P_WINDOW:
        return (w ? window_corner(&p->geo, k) : window_input(&p->geo, k)) + d;
    case PLAN_P_POOL:
        if (p->tail > 0)   /* global: one result word after the second loop */
            return w ? p->iters + p->depth + O2H_RESTART - 1 + O2H_DEPTH_ELT : k * T;
        return w ? k * T + T - 1 + d : k * T;
    case PLAN_P_ELT:
        if (!w && p->bvec && port == 1)
            return 0;
        return w ? k * T + T - 1 + d : k * T;
    default:
        return w ? k * T + T - 1 + d : k * T;
    }
}

/* the next action of q: the earliest pending word of its ports (reads first on ties) */
static void next_action(Sim *s, int pi)
{
    Proc *q = &s->pr[pi];
    const PlanProc *p = &s->net->procs[pi];
    for (;;) {
        int best = -1;
        int64_t bt = INF;
        for (int i = 0; i < q->n_port; i++) {
            if (q->port[i].k >= tokens(s, q, i))
                continue;
            int64_t t = nominal(s, q, p, i, q->port[i].k);
            if (t < bt || (t == bt && best >= 0 && q->port[best].write && !q->port[i].write))
                best = i, bt = t;
        }
        if (best >= 0) {
            q->act = best;
            q->at = q->frame * q->frame_len + bt + q->shift;
            return;
        }
        if (++q->frame >= s->frames) {   /* every frame done */
            q->act = -1;
            return;
        }
        for (int i = 0; i < q->n_port; i++)
            q->port[i].k = 0;
    }
}

/* ------------------------------------------------------------------ heap */

static bool earlier(const Sim *s, int a, int b)
{
    return s->pr[a].at < s->pr[b].at || (s->pr[a].at == s->pr[b].at && a < b);
}

static void heap_push(Sim *s, int pi)
{
    int i = s->n_heap++;
    s->heap[i] = pi;
    while (i > 0 && earlier(s, s->heap[i], s->heap[(i - 1) / 2])) {
        int t = s->heap[i];
        s->heap[i] = s->heap[(i - 1) / 2], s->heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static int heap_pop(Sim *s)
{
    int top = s->heap[0];
    s->heap[0] = s->heap[--s->n_heap];
    for (int i = 0;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->n_heap && earlier(s, s->heap[l], s->heap[m]))
            m = l;
        if (r < s->n_heap && earlier(s, s->heap[r], s->heap[m]))
            m = r;
        if (m == i)
            break;
        int t = s->heap[i];
        s->heap[i] = s->heap[m], s->heap[m] = t;
        i = m;
    }
    return top;
}

/* ----------------------------------------------------------------- fifos */

static void fifo_push(Fifo *f, int64_t t)
{
    if (f->n == f->cap) {
        int64_t nc = f->cap ? 2 * f->cap : 16;
        int64_t *v = malloc(sizeof *v * (size_t)nc);
        if (!v)
            abort();
        for (int64_t i = 0; i < f->n; i++)
            v[i] = f->t[(f->head + i) % f->cap];
        free(f->t);
        f->t = v, f->cap = nc, f->head = 0;
    }
    f->t[(f->head + f->n++) % f->cap] = t;
    f->written++;
    if (f->n > f->hwm)
        f->hwm = f->n;
}

static int64_t fifo_front(const Fifo *f)
{
    return f->n > 0 ? f->t[f->head] : INF;
}

static void fifo_pop(Fifo *f)
{
    f->head = (f->head + 1) % f->cap;
    f->n--;
    f->read++;
}

/* --------------------------------------------------------------- running */

static void wake(Sim *s, int pi, int64_t t)
{
    Proc *q = &s->pr[pi];
    if (t > q->at) {
        int64_t stall = t - q->at;
        q->shift += stall;
        const Port *pt = &q->port[q->act];
        if (pt->write)
            s->net->stall_out[pi] += stall;
        else
            s->net->stall_in[pi] += stall;
        q->at = t;
    }
    heap_push(s, pi);
}

/* try the pending action of pi at its time: false when it must wait (it
 * is then parked on the FIFO, or back in the heap for a word written in
 * this very cycle) */
static bool act(Sim *s, int pi)
{
    Proc *q = &s->pr[pi];
    Port *pt = &q->port[q->act];
    Fifo *f = &s->fifo[pt->chan];
    if (pt->write) {
        if (f->n >= f->depth) {
            f->writer_wait = pi;
            return false;
        }
        fifo_push(f, q->at);
        if (f->reader_wait >= 0) {
            int r = f->reader_wait;
            f->reader_wait = -1;
            wake(s, r, q->at + 1);
        }
    } else {
        if (f->n > 0 && fifo_front(f) >= q->at) {
            wake(s, pi, fifo_front(f) + 1);
            return false;
        }
        if (f->n == 0) {
            f->reader_wait = pi;
            return false;
        }
        fifo_pop(f);
        if (f->writer_wait >= 0) {
            int w = f->writer_wait;
            f->writer_wait = -1;
            wake(s, w, q->at + 1);
        }
    }
    return true;
}

/* record frame ends at the sinks (processes that write no channel) */
static void account(Sim *s, int pi, int64_t frame_before)
{
    Proc *q = &s->pr[pi];
    if (frame_before == 0 && q->first < 0)
        q->first = q->at;
    q->last = q->at;
    if (s->net->procs[pi].n_out == 0 && q->last > s->done[frame_before])
        s->done[frame_before] = q->last;
}

static void step(Sim *s, int pi)
{
    Proc *q = &s->pr[pi];
    if (!act(s, pi))
        return;
    int64_t f = q->frame;
    account(s, pi, f);
    q->port[q->act].k++;
    next_action(s, pi);
    if (q->act >= 0)
        heap_push(s, pi);
}

static void proc_init(Sim *s, int pi, bool paced)
{
    const PlanProc *p = &s->net->procs[pi];
    Proc *q = &s->pr[pi];
    memset(q, 0, sizeof *q);
    for (int i = 0; i < p->n_in; i++)
        q->port[q->n_port++] = (Port){p->in[i], false, 0};
    for (int i = 0; i < p->n_out; i++)
        q->port[q->n_port++] = (Port){p->out[i], true, 0};
    q->frame_len = p->iters + p->depth + O2H_RESTART + (p->tail > 0 ? O2H_DEPTH_ELT + O2H_RESTART : 0);
    if (paced && p->kind == PLAN_P_READ && s->net->period > q->frame_len)
        q->pace = q->frame_len = s->net->period;
    q->first = -1;
    next_action(s, pi);
}

/* the processes and FIFOs left waiting, into net->why */
static void explain_deadlock(Sim *s)
{
    PlanNet *n = s->net;
    int len = snprintf(n->why, sizeof n->why, "deadlock:");
    for (int c = 0; c < n->n_chans && len < (int)sizeof n->why - 1; c++) {
        const Fifo *f = &s->fifo[c];
        const char *who = f->writer_wait >= 0 ? n->procs[f->writer_wait].name
                          : f->reader_wait >= 0 ? n->procs[f->reader_wait].name : NULL;
        if (who)
            len += snprintf(n->why + len, sizeof n->why - (size_t)len, " %s waits for %s in FIFO %d (%s -> %s, depth %lld);",
                            who, f->writer_wait >= 0 ? "room" : "data", c, n->procs[n->chans[c].producer].name,
                            n->procs[n->chans[c].consumer].name, (long long)n->chans[c].depth);
    }
}

static void sim_run(PlanNet *net, int frames, bool sizing)
{
    Sim s = {net, calloc((size_t)net->n_chans + 1, sizeof(Fifo)), calloc((size_t)net->n_procs + 1, sizeof(Proc)),
             frames, malloc(sizeof(int) * (size_t)(net->n_procs + 1)), 0, calloc((size_t)frames + 1, sizeof(int64_t))};
    if (!s.fifo || !s.pr || !s.heap || !s.done)
        abort();
    for (int c = 0; c < net->n_chans; c++)
        s.fifo[c] = (Fifo){NULL, 0, 0, 0, sizing ? INF : net->chans[c].depth, 0, 0, 0, -1, -1};
    for (int i = 0; i < net->n_procs; i++) {
        net->stall_in[i] = net->stall_out[i] = 0;
        proc_init(&s, i, sizing);
        if (s.pr[i].act >= 0)
            heap_push(&s, i);
    }
    while (s.n_heap > 0)
        step(&s, heap_pop(&s));
    net->deadlock = false;
    net->why[0] = 0;
    for (int i = 0; i < net->n_procs && !net->deadlock; i++)
        net->deadlock = s.pr[i].act >= 0;
    if (net->deadlock)
        explain_deadlock(&s);
    int64_t start = INF;
    for (int i = 0; i < net->n_procs; i++)
        if (net->procs[i].n_in == 0 && s.pr[i].first >= 0 && s.pr[i].first < start)
            start = s.pr[i].first;
    net->frames = frames;
    net->latency = net->deadlock || start >= INF ? 0 : s.done[0] - start;
    net->interval = net->deadlock || frames < 2 ? 0 : s.done[frames - 1] - s.done[frames - 2];
    for (int c = 0; sizing && c < net->n_chans; c++)
        net->chans[c].depth = s.fifo[c].hwm > 2 ? s.fifo[c].hwm : 2;
    for (int c = 0; c < net->n_chans; c++)
        free(s.fifo[c].t);
    free(s.fifo);
    free(s.pr);
    free(s.heap);
    free(s.done);
}

static void alloc_stalls(PlanNet *net)
{
    if (net->stall_in)
        return;
    net->stall_in = calloc((size_t)net->n_procs + 1, sizeof(int64_t));
    net->stall_out = calloc((size_t)net->n_procs + 1, sizeof(int64_t));
    if (!net->stall_in || !net->stall_out)
        abort();
}

void plan_net_run(PlanNet *net, int frames)
{
    alloc_stalls(net);
    sim_run(net, frames > 0 ? frames : 1, false);
}

void plan_net_simulate(PlanNet *net, int frames)
{
    alloc_stalls(net);
    sim_run(net, frames > 0 ? frames : 1, true);
    sim_run(net, frames > 0 ? frames : 1, false);
}
