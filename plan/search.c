/* search.c - one candidate design evaluated: a split, the SESL stages'
 * shapes for a target time, the SEML engines for the PEs left, and every
 * budget checked.
 *
 * Why this split of work: what does not depend on the PE division is
 * tabulated once per plan (search_init): each unit's SESL frontier, the
 * DRAM readers, writers and duplicators the SESL part needs at each split
 * (sesl_stream.c: one beat per cycle), the FIFO that holds a residual skip
 * or a squeeze-excite map while the other operand is on its way, and the
 * fill of each stage (the share of its input it reads before its first
 * output). Evaluating a candidate is then a binary search per SESL stage,
 * the SEML solver's answer, and the budget checks (PEs, DSP, BRAM/URAM,
 * LUT, DRAM bandwidth against min(DRAM, AXI ports x width x clock x
 * efficiency)).
 *
 * Cost per plan: frontiers O(units x factors^2), the per-split tables
 * O(units log units) (an interval max over splits), an evaluation
 * O(split x log frontier).
 */
#include "search.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define INF (INT64_MAX / 4)

/* ----------------------------------------------------- per-unit facts */

static int64_t numel_t(const IrGraph *g, int t)
{
    int64_t n = t >= 0 ? ir_tensor_numel(&g->tensors[t]) : 0;
    return n < 0 ? 0 : n;
}

/* pixels and channels of a tensor as a stream (one word per pixel) */
static void stream_dims(const IrGraph *g, int t, int64_t *pix, int64_t *ch)
{
    const IrTensor *x = &g->tensors[t];
    *ch = x->rank >= 2 ? x->dims[1] : (x->rank == 1 ? x->dims[0] : 1);
    if (x->rank == 2)
        *ch = x->dims[1];
    *pix = *ch > 0 ? numel_t(g, t) / *ch : 0;
}

/* sesl_stream.c reader/writer of tensor t: one beat per cycle */
static int64_t mover(const Search *S, int t)
{
    int64_t pix, ch;
    stream_dims(S->g, t, &pix, &ch);
    return plan_ln_sesl_mover(pix, ch, S->p->beat);
}

static int producer(const Search *S, int t)
{
    return t >= 0 ? S->ti->unit_of[t] : -1;
}

/* Fill: the share of a stage's input stream that arrives after its first
 * word and before its first output is delivered. sesl_window.c emits at
 * the first stride-aligned window corner; a global pool or an FC over a
 * map needs the whole map; a pointwise stage its first pixel. Pipelines
 * stall whole when an input is missing (Vitis HLS's default "stp" style),
 * so an output computed at iteration i leaves only once the reads of the
 * iterations up to i + depth have their words: the compute loop reads the
 * next pixel (or window) first, the window generator its depth's worth of
 * pixels more. */
static double fill_share(const PlanUnit *u)
{
    const PlanGeom *g = &u->geo;
    int64_t px = g->h * g->w, first = 1, ahead = 1;
    if (px <= 1)
        return 0;
    if (u->op == PLAN_SEML_GPOOL || (u->kind == PLAN_K_FC && u->windowed)) {
        first = px, ahead = 0;
    } else if (u->windowed) {
        int64_t sh = (g->kh - 1) * g->dh + 1, sw = (g->kw - 1) * g->dw + 1;
        int64_t rows = sh - 1 - g->pt, cols = sw - g->pl;
        rows = rows < 0 ? 0 : rows > g->h ? g->h : rows;
        cols = cols < 0 ? 0 : cols > g->w ? g->w : cols;
        first = rows * g->w + (rows < g->h ? cols : 0);
        ahead = O2H_DEPTH_WINDOW + g->sw;
    }
    double f = (double)(first > 1 ? first - 1 : 0) + (double)ahead;
    return f < (double)px ? f / (double)px : 1.0;
}

/* The FIFO of a unit with two streamed operands: the one that arrives
 * first waits for the other (residual skip: the main path's fill; SE map:
 * the whole map, until its scale is computed from it). pos[] is each
 * stream's accumulated fill, in frames. */
static void unit_fifo(Search *S, int u, const double *pos)
{
    const PlanUnit *U = &S->p->units[u];
    S->fifo[u] = (PlanBuf){0, 0, 0, 0};
    S->fifo_depth[u] = 0;
    if (U->extra_t < 0)
        return;
    int a = S->prod_in[u], b = S->prod_x[u];
    double pa = (a >= 0 ? pos[a] : 0) + (U->kind == PLAN_K_ELTWISE ? 0 : S->phi[u]);
    double pb = b >= 0 ? pos[b] : 0;
    int early = pa <= pb ? U->in_t : U->extra_t;
    int64_t pix, ch;
    stream_dims(S->g, early, &pix, &ch);
    int64_t depth = (int64_t)ceil(fabs(pb - pa) * (double)pix) + 2;
    if (depth > pix)
        depth = pix > 2 ? pix : 2;
    S->fifo_depth[u] = depth;
    S->fifo[u] = plan_mem_fifo(depth, ch * plan_value_bytes(U->bits));
}

static void unit_facts(Search *S)
{
    double *pos = calloc((size_t)S->n + 1, sizeof(double));
    if (!pos)
        abort();
    for (int u = 0; u < S->n; u++) {
        const PlanUnit *U = &S->p->units[u];
        S->prod_in[u] = producer(S, U->in_t);
        S->prod_x[u] = producer(S, U->extra_t);
        S->phi[u] = fill_share(U);
        double a = (S->prod_in[u] >= 0 ? pos[S->prod_in[u]] : 0) + S->phi[u];
        double b = S->prod_x[u] >= 0 ? pos[S->prod_x[u]] : 0;
        pos[u] = a > b ? a : b;
        unit_fifo(S, u, pos);
        int64_t wd = plan_window_fifo_depth(U);   /* its window FIFO (one window per word), line buffer */
        S->fifo[u] = plan_buf_add(S->fifo[u], plan_mem_fifo(wd, U->geo.kh * U->geo.kw * U->geo.c * plan_value_bytes(U->bits)));
        S->fifo[u] = plan_buf_add(S->fifo[u], plan_mem_sesl_linebuf(U));
        S->floor[u] = 0;
        if (S->prod_in[u] < 0)
            S->floor[u] = mover(S, U->in_t);
        if (U->extra_t >= 0 && S->prod_x[u] < 0 && mover(S, U->extra_t) > S->floor[u])
            S->floor[u] = mover(S, U->extra_t);
        int64_t pix, ch;
        stream_dims(S->g, U->out_t, &pix, &ch);
        if (S->ti->uses[U->out_t] >= 2 && plan_ln_sesl_dup(pix) > S->floor[u])
            S->floor[u] = plan_ln_sesl_dup(pix);
    }
    free(pos);
}

/* ------------------------------------------------- per-split movers */

/* max over intervals [a, b] of splits: a segment tree without propagation */
typedef struct {
    int size;
    int64_t *v;
} RangeMax;

static void rmax_init(RangeMax *r, int n)
{
    for (r->size = 1; r->size < n; r->size <<= 1)
        ;
    r->v = calloc(2 * (size_t)r->size, sizeof(int64_t));
    if (!r->v)
        abort();
}

static void rmax_put(RangeMax *r, int a, int b, int64_t x)
{
    for (a += r->size, b += r->size + 1; a < b; a >>= 1, b >>= 1) {
        if (a & 1) {
            if (x > r->v[a]) r->v[a] = x;
            a++;
        }
        if (b & 1) {
            b--;
            if (x > r->v[b]) r->v[b] = x;
        }
    }
}

static int64_t rmax_get(const RangeMax *r, int i)
{
    int64_t m = 0;
    for (i += r->size; i >= 1; i >>= 1)
        if (r->v[i] > m)
            m = r->v[i];
    return m;
}

/* the last unit reading each unit's output (main or second operand) */
static int *last_readers(const Search *S)
{
    int *last = malloc(sizeof(int) * (size_t)(S->n + 1));
    if (!last)
        abort();
    for (int u = 0; u < S->n; u++)
        last[u] = -1;
    for (int u = 0; u < S->n; u++) {
        if (S->prod_in[u] >= 0)
            last[S->prod_in[u]] = u;
        if (S->prod_x[u] >= 0)
            last[S->prod_x[u]] = u;
    }
    return last;
}

/* A unit's output needs a writer at split s when the unit is SESL (< s)
 * and a SEML unit (>= s) reads it, or the host or a graph output does. */
static void split_movers(Search *S)
{
    int n = S->n;
    int *last = last_readers(S);
    int64_t *dbytes = calloc((size_t)n + 2, sizeof(int64_t)), *dbnd = calloc((size_t)n + 2, sizeof(int64_t));
    bool *seen = calloc((size_t)S->g->n_tensors + 1, sizeof(bool));
    RangeMax rm;
    rmax_init(&rm, n + 1);
    if (!dbytes || !dbnd || !seen)
        abort();
    for (int u = 0; u < n; u++) {
        const PlanUnit *U = &S->p->units[u];
        int64_t bytes = U->out_bytes;
        int hi = S->ti->dram_out[U->out_t] ? n : last[u];
        if (hi > u) {
            rmax_put(&rm, u + 1, hi, mover(S, U->out_t));
            dbytes[u + 1] += bytes, dbytes[hi + 1] -= bytes;
        }
        if (last[u] > u)
            dbnd[u + 1] += bytes, dbnd[last[u] + 1] -= bytes;
        int ts[2] = {U->in_t, U->extra_t};
        for (int k = 0; k < 2; k++)   /* a graph input: read once, by the first SESL unit reading it */
            if (ts[k] >= 0 && producer(S, ts[k]) < 0 && !seen[ts[k]]) {
                int64_t b = plan_tensor_bytes(S->g, ts[k], U->bits);
                seen[ts[k]] = true;
                dbytes[u + 1] += b, dbytes[n + 1] -= b;
            }
    }
    int64_t acc = 0, accb = 0;
    for (int s = 0; s <= n; s++) {
        acc += dbytes[s], accb += dbnd[s];
        S->wr_max[s] = rmax_get(&rm, s);
        S->sesl_bytes[s] = acc;
        S->bnd_bytes[s] = accb;
    }
    free(rm.v);
    free(seen);
    free(dbytes);
    free(dbnd);
    free(last);
}

/* ------------------------------------------------ feasible splits */

/* The least a unit takes as a SESL stage, whatever its shape: a lower
 * bound that only grows with the split, so the first split that breaks a
 * budget with it ends the search (a 10,000-layer chain has thousands of
 * splits no device can hold; evaluating each would make the search
 * quadratic). */
typedef struct {
    int64_t pes, dsp, lut, bram;
} Least;

static Least least_stage(const Search *S, int u)
{
    const PlanFrontier *f = &S->fr[u];
    PlanBuf fifo = S->fifo[u];   /* FIFOs and line buffer */
    Least m = {INF, INF, INF, INF};
    for (int k = 0; k < f->n; k++) {
        const PlanPoint *pt = &f->pts[k];
        int64_t wb = pt->weights.uram ? 0 : pt->weights.bram;   /* URAM-able: may leave the BRAM */
        if (pt->pes < m.pes) m.pes = pt->pes;
        if (pt->dsp < m.dsp) m.dsp = pt->dsp;
        if (pt->lut + pt->weights.lut < m.lut) m.lut = pt->lut + pt->weights.lut;
        if (wb < m.bram) m.bram = wb;
    }
    if (f->n == 0)
        return m;
    m.lut += fifo.lut;
    m.bram += fifo.uram ? 0 : fifo.bram;
    return m;
}

static void sesl_cap(Search *S)
{
    const Plan *p = S->p;
    Least sum = {0, 0, 0, 0};
    S->sesl_cap = p->max_split < S->n ? p->max_split : S->n;
    for (int u = 0; u < S->sesl_cap; u++) {
        Least m = least_stage(S, u);
        sum.pes += m.pes, sum.dsp += m.dsp, sum.lut += m.lut, sum.bram += m.bram;
        const char *why = S->fr[u].n == 0 ? "a SESL stage cannot reach the period within the PE budget"
                          : sum.pes > p->pe_budget ? "PE budget"
                          : sum.dsp > p->dsp_cap   ? "DSP slices"
                          : sum.lut > p->lut_cap   ? "LUTs"
                          : sum.bram > p->bram_cap ? "on-chip memory (BRAM)"
                                                   : NULL;
        if (why) {
            S->sesl_cap = u;
            S->sesl_cap_why = why;
            return;
        }
    }
}

void search_init(Search *S, const IrGraph *g, Plan *p, const PlanTensorInfo *ti)
{
    memset(S, 0, sizeof *S);
    S->g = g, S->p = p, S->ti = ti, S->n = p->n_units;
    S->bpc = p->bytes_per_cycle;
    size_t n = (size_t)S->n + 1;
    S->fr = calloc(n, sizeof *S->fr);
    S->floor = calloc(n, sizeof *S->floor);
    S->phi = calloc(n, sizeof *S->phi);
    S->prod_in = calloc(n, sizeof(int));
    S->prod_x = calloc(n, sizeof(int));
    S->fifo = calloc(n, sizeof *S->fifo);
    S->fifo_depth = calloc(n, sizeof(int64_t));
    S->wr_max = calloc(n, sizeof(int64_t));
    S->sesl_bytes = calloc(n, sizeof(int64_t));
    S->bnd_bytes = calloc(n, sizeof(int64_t));
    S->sesl_bram = calloc(n, sizeof(int64_t));
    if (!S->sesl_bram || !S->fr || !S->floor || !S->phi || !S->prod_in || !S->prod_x || !S->fifo || !S->fifo_depth || !S->wr_max ||
        !S->sesl_bytes || !S->bnd_bytes)
        abort();
    PlanFrontierScratch *scratch = plan_frontier_scratch_new(p->pe_budget);
    for (int i = 0; i < S->n && i < p->max_split; i++)
        plan_frontier_build(&p->units[i], &p->dev, scratch, &S->fr[i]);
    plan_frontier_scratch_free(scratch);
    unit_facts(S);
    split_movers(S);
    for (int i = 0; i < S->n; i++)   /* prefix sums: the stages at their fewest PEs */
        S->sesl_bram[i + 1] = S->sesl_bram[i] + S->fifo[i].bram + (S->fr[i].n ? S->fr[i].pts[0].weights.bram : 0);
    S->tab = plan_seml_tab_new(p, g, p->pe_budget);
    S->onchip_cap = ((int64_t)p->bram_cap * 18432 + (int64_t)p->uram_cap * 294912) / 8;
    sesl_cap(S);
}

void search_free(Search *S)
{
    for (int i = 0; i < S->n; i++)
        plan_frontier_free(&S->fr[i]);
    free(S->fr);
    free(S->floor);
    free(S->phi);
    free(S->prod_in);
    free(S->prod_x);
    free(S->fifo);
    free(S->fifo_depth);
    free(S->wr_max);
    free(S->sesl_bytes);
    free(S->bnd_bytes);
    free(S->sesl_bram);
    plan_seml_tab_free(S->tab);
}

/* ---------------------------------------------------- memory allocation */

static void items_add(Items *it, PlanBuf b, int owner)
{
    if (!b.bram && !b.uram && !b.lut)
        return;
    if (it->n == it->cap) {
        it->cap = it->cap ? 2 * it->cap : 64;
        it->v = realloc(it->v, sizeof *it->v * (size_t)it->cap);
        if (!it->v)
            abort();
    }
    it->v[it->n++] = (Item){b, owner, false};
}

static const Item *sort_base;

/* more block RAM saved per UltraRAM spent first; index breaks ties */
static int item_cmp(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    const PlanBuf *x = &sort_base[i].b, *y = &sort_base[j].b;
    double rx = (double)x->bram / (x->uram ? x->uram : 1), ry = (double)y->bram / (y->uram ? y->uram : 1);
    if (rx != ry)
        return rx > ry ? -1 : 1;
    return i < j ? -1 : i > j;
}

static void move_to_uram(Items *it, int bram_cap, int uram_cap, int64_t *br, int64_t *ur)
{
    int *order = malloc(sizeof(int) * (size_t)(it->n + 1));
    if (!order)
        abort();
    for (int i = 0; i < it->n; i++)
        order[i] = i;
    sort_base = it->v;
    qsort(order, (size_t)it->n, sizeof *order, item_cmp);
    for (int k = 0; k < it->n && *br > bram_cap; k++) {
        Item *x = &it->v[order[k]];
        if (x->b.bram == 0 || x->b.uram == 0 || *ur + x->b.uram > uram_cap)
            continue;
        x->in_uram = true;
        *br -= x->b.bram;
        *ur += x->b.uram;
    }
    free(order);
}

/* Block RAM first; when over the cap, move buffers to UltraRAM. */
static bool items_fit(Items *it, int bram_cap, int uram_cap, int *bram, int *uram, int *lut)
{
    int64_t br = 0, ur = 0, lu = 0;
    for (int i = 0; i < it->n; i++) {
        it->v[i].in_uram = false;
        br += it->v[i].b.bram;
        lu += it->v[i].b.lut;
    }
    if (br > bram_cap && uram_cap > 0)
        move_to_uram(it, bram_cap, uram_cap, &br, &ur);
    *bram = br > INT_MAX ? INT_MAX : (int)br;
    *uram = (int)ur;
    *lut = lu > INT_MAX ? INT_MAX : (int)lu;
    return br <= bram_cap && ur <= uram_cap;
}

/* --------------------------------------------------------- evaluation */

static int64_t mem_cycles(const Search *S, int64_t bytes)
{
    double c = (double)bytes / S->bpc;
    return c >= (double)INF ? INF : (int64_t)ceil(c - 1e-9);
}

static bool fail(Eval *e, const char *why, int64_t need)
{
    e->why = why;
    if (need > e->need)
        e->need = need;
    return false;
}

/* SESL fill. Each stream has a first word (arr), a last word (end) and a
 * duration (run, the slowest stage upstream). A stage's first output comes
 * after the share of its input it reads first, at the rate its input
 * arrives, plus one output pixel; its last output when both its input has
 * ended and it has run its frame from the first output on (no stage
 * catches up the fill: each runs at its own pace, at best the period). A
 * global pool sums as pixels come. A per-channel operand (squeeze-
 * excite scale) is read before the map, which waits whole in its FIFO, so
 * the map's rate does not limit the stage. */
typedef struct {
    int64_t arr, end, run;
} Stream;

static Stream dram_stream(const Search *S, int u)
{
    int64_t t = S->floor[u];
    return (Stream){O2H_DEPTH_BURST + O2H_RESTART, t, t};
}

static Stream stage_stream(const Search *S, const Eval *e, const Stream *st, int u)
{
    const PlanUnit *U = &S->p->units[u];
    const PlanPoint *pt = &S->fr[u].pts[e->pick[u]];
    int a = S->prod_in[u], b = S->prod_x[u];
    Stream in = a >= 0 ? st[a] : dram_stream(S, u), x = b >= 0 ? st[b] : (Stream){0, 0, 0};
    int64_t pix = plan_cost_sesl_pixel(U, pt->shape), own = pt->cycles > S->floor[u] ? pt->cycles : S->floor[u];
    int64_t rate = U->op == PLAN_SEML_GPOOL && own > in.run ? own : in.run;   /* a pool sums at its own pace */
    int64_t start = in.arr + (int64_t)(S->phi[u] * (double)rate);
    if (x.arr > start)
        start = x.arr;
    Stream o;
    o.run = U->bvec ? own : (own > in.run ? own : in.run);   /* a buffered map runs at this stage's pace */
    if (!U->bvec && x.run > o.run)
        o.run = x.run;
    int64_t out_px = U->geo.ho * U->geo.wo > 0 ? U->geo.ho * U->geo.wo : 1;
    o.arr = start + pix + (S->ti->uses[U->out_t] >= 2 ? O2H_DEPTH_COPY * o.run / out_px : 0);   /* a duplicator holds words too */
    /* a pool sums as pixels come and answers at the end; any other stage
     * computes its frame from its first window on, at its own pace */
    o.end = U->op == PLAN_SEML_GPOOL ? o.arr : o.arr + own - pix;
    if (!U->bvec && in.end + pix > o.end)
        o.end = in.end + pix;
    if (x.end + pix > o.end)
        o.end = x.end + pix;
    return o;
}

static int64_t sesl_latency(const Search *S, const Eval *e)
{
    int s = e->split;
    Stream *st = malloc(sizeof *st * (size_t)(s + 1));
    if (!st)
        abort();
    int64_t lat = 0;
    for (int u = 0; u < s; u++) {
        st[u] = stage_stream(S, e, st, u);
        if (st[u].end > lat)
            lat = st[u].end;
    }
    free(st);
    if (lat < e->t_sesl)   /* the slowest process (a writer, say) runs its frame after the first word */
        lat = e->t_sesl;
    return lat + (S->wr_max[s] > 0 ? O2H_DEPTH_BURST + O2H_RESTART : 0);
}

static bool eval_sesl(const Search *S, Eval *e, Items *it)
{
    int64_t t = e->t_sesl_target;
    e->t_sesl = S->wr_max[e->split];
    for (int i = 0; i < e->split; i++) {
        int k = plan_frontier_pick(&S->fr[i], t);
        if (k < 0)
            return fail(e, "a SESL stage cannot reach the period within the PE budget",
                        S->fr[i].n ? S->fr[i].pts[S->fr[i].n - 1].cycles : 0);
        const PlanPoint *pt = &S->fr[i].pts[k];
        e->pick[i] = k;
        e->pes += pt->pes, e->dsp += pt->dsp, e->lut += pt->lut;
        int64_t c = pt->cycles > S->floor[i] ? pt->cycles : S->floor[i];
        if (c > e->t_sesl)
            e->t_sesl = c;
        items_add(it, pt->weights, i);
        items_add(it, S->fifo[i], i);
    }
    if (e->t_sesl > t)
        return fail(e, "the SESL part's DRAM movers (one beat per cycle)", e->t_sesl);
    return true;
}

/* Like the SESL stages, the SEML part takes the fewest PEs (at most q) that
 * meet t: fewer PEs mean fewer DSPs, LUTs and smaller weight tiles. -1 if
 * even q PEs are too few. SEML time never grows with more PEs. */
static int seml_pes(const PlanSeml *s, int q, int64_t t)
{
    if (q < 1 || plan_seml_time(s, q) > t)
        return -1;
    int lo = 0, hi = q;
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (plan_seml_time(s, mid) <= t)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static void add_seml_engines(const Search *S, Eval *e, Items *it)
{
    const Plan *p = S->p;
    for (int k = 0; k < e->ch.n_engines; k++) {
        PlanKind f = e->ch.kind[k];
        PlanShape sh = e->ch.shape[k];
        PlanFamNeeds nd = plan_seml_needs(S->tab, f, e->split);
        int pes = plan_shape_pes(sh);
        e->pes += pes;
        e->seml_pes += pes;
        e->dsp += plan_engine_dsp(&p->dev, f, nd.mul, nd.prec, nd.bits, sh);
        e->lut += plan_engine_lut(f, false, nd.prec, nd.bits, pes);
        items_add(it, plan_mem_seml_engine(f, sh, e->ch.buf_log[k], p->beat, &nd), e->split + k);
    }
}

static bool eval_seml(const Search *S, const PlanSeml *seml, Eval *e, Items *it)
{
    const Plan *p = S->p;
    int left = p->pe_budget - e->pes;
    if (e->split >= S->n)
        return true;
    if (!seml || !plan_seml_ok(seml))
        return fail(e, "a SEML layer's band does not fit the largest band buffer", 0);
    int q = e->t_max >= INF ? left : seml_pes(seml, left, e->t_max);
    if (q < 0 || (e->t_seml = plan_seml_time(seml, q)) >= INF) {
        e->t_seml = plan_seml_time(seml, left);
        return fail(e, "the SEML part cannot meet the period with the PEs left",
                    e->t_seml < INF ? e->t_seml : 0);
    }
    int64_t bytes;
    plan_seml_choice(seml, q, &e->ch, &bytes);
    e->dram_bytes += bytes;
    add_seml_engines(S, e, it);
    return true;
}

static bool check_budgets(const Search *S, Eval *e, Items *it)
{
    const Plan *p = S->p;
    int lut_mem = 0;
    bool mem_ok = items_fit(it, p->bram_cap, p->uram_cap, &e->bram, &e->uram, &lut_mem);
    e->lut += lut_mem;
    if (!mem_ok)
        return fail(e, p->uram_cap ? "on-chip memory (BRAM and URAM)" : "on-chip memory (BRAM)", 0);
    if (e->pes > p->pe_budget)
        return fail(e, "PE budget", 0);
    if (e->dsp > p->dsp_cap)
        return fail(e, "DSP slices", 0);
    if (e->lut > p->lut_cap)
        return fail(e, "LUTs", 0);
    return true;
}

static void reset(Eval *e, Items *it)
{
    int *pick = e->pick;
    int split = e->split, lg = e->buf_log;
    int64_t target = e->t_sesl_target, tmax = e->t_max;
    memset(e, 0, sizeof *e);
    e->pick = pick, e->split = split, e->buf_log = lg, e->t_sesl_target = target, e->t_max = tmax;
    it->n = 0;
}

void search_eval(const Search *S, const PlanSeml *seml, Eval *e, Items *it)
{
    const Plan *p = S->p;
    reset(e, it);
    if (!eval_sesl(S, e, it))
        return;
    if (e->pes > p->pe_budget) {
        fail(e, "PE budget", 0);
        return;
    }
    if (!eval_seml(S, seml, e, it))
        return;
    e->dram_bytes += S->sesl_bytes[e->split];
    e->bw = mem_cycles(S, e->dram_bytes);
    e->period = e->t_sesl;
    if (e->t_seml > e->period) e->period = e->t_seml;
    if (e->bw > e->period) e->period = e->bw;
    if (p->host_cycles > e->period) e->period = p->host_cycles;
    if (e->t_max < INF && e->period > e->t_max) {
        fail(e, e->bw > e->t_max ? "DRAM bandwidth" : "host CPU layers", e->period);
        return;
    }
    if (!check_budgets(S, e, it))
        return;
    e->lat_sesl = e->split > 0 ? sesl_latency(S, e) : 0;
    e->latency = e->lat_sesl + e->t_seml + p->host_cycles;
    e->ok = true;
}
