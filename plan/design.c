/* design.c - the search over splits and its outcome: candidates, the
 * objective, the Pareto table, and the three designs (hybrid, SEML-only,
 * SESL-only) filled in for print.c, the report and the HLS emitter.
 *
 * Why candidates and not one optimum per split: throughput and latency
 * pull apart. For each legal split (no SESL unit may depend on a host
 * layer) and SEML band-buffer buf_log, a bisection finds the least period
 * (each SESL stage takes its cheapest shape meeting T, the SEML part the
 * fewest PEs meeting T); the design at that period is then taken with the
 * SEML part using every PE left (same period, lower latency when the
 * budgets allow), and a few variants with faster or slower SESL stages
 * trade frames/s for latency (latency = SESL fill + T_SEML + host: a
 * faster SESL part fills sooner but leaves fewer PEs to the SEML part).
 * The objective then picks among all of them: throughput; latency; or
 * balanced, the best throughput whose latency is no worse than SEML-only's.
 *
 * Cost: splits x buffer sizes tried (from the largest that fits down,
 * while on-chip memory binds; at most MAX_LEVELS) x (a bisection of ~20
 * evaluations, 4 variants, ~30 evaluations of the latency search), each
 * evaluation O(split x log frontier).
 */
#include "search.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define INF (INT64_MAX / 4)
static const double VARIANTS[] = {0.55, 0.7, 0.85, 1.25};
#define N_VARIANTS (int)(sizeof VARIANTS / sizeof VARIANTS[0])

typedef struct {
    int split, buf_log;
    int64_t target, tmax;
    int64_t period, latency;
} Cand;

typedef struct {
    Search *S;
    Eval e;
    Items it;
    Cand *c;
    int n, cap;
    int64_t l_ref;           /* SEML-only's latency (balanced objective), INF unknown */
    const char **why;        /* per split: why it has no design */
    bool *mem_bound;         /* per split: on-chip memory kept its period from going lower */
} Run;

static void cand_add(Run *r, const Eval *e)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->c = realloc(r->c, sizeof *r->c * (size_t)r->cap);
        if (!r->c)
            abort();
    }
    r->c[r->n++] = (Cand){e->split, e->buf_log, e->t_sesl_target, e->t_max, e->period, e->latency};
}

static void eval_at(Run *r, const PlanSeml *sm, int split, int buf_log, int64_t target, int64_t tmax)
{
    r->e.split = split, r->e.buf_log = buf_log, r->e.t_sesl_target = target, r->e.t_max = tmax;
    search_eval(r->S, sm, &r->e, &r->it);
}

/* ------------------------------------------------------------ bisection */

/* a period where every SESL stage has its smallest engine */
static int64_t start_period(const Search *S, int split)
{
    int64_t hi = S->wr_max[split] + 1;
    for (int i = 0; i < split; i++) {
        if (S->fr[i].n > 0 && S->fr[i].pts[0].cycles > hi)
            hi = S->fr[i].pts[0].cycles;
        if (S->floor[i] > hi)
            hi = S->floor[i];
    }
    return hi;
}

/* the fastest the SESL part can be: its slowest stage at its largest shape */
static int64_t start_floor(const Search *S, int split)
{
    int64_t lo = S->wr_max[split] + 1;
    for (int i = 0; i < split; i++) {
        if (S->fr[i].n > 0 && S->fr[i].pts[S->fr[i].n - 1].cycles > lo)
            lo = S->fr[i].pts[S->fr[i].n - 1].cycles;
        if (S->floor[i] > lo)
            lo = S->floor[i];
    }
    return lo;
}

/* the least feasible period of a split, 0 if none */
static int64_t bisect(Run *r, const PlanSeml *sm, int split, int buf_log)
{
    const Plan *p = r->S->p;
    int64_t lo = p->total_macs / (p->pe_budget > 0 ? p->pe_budget : 1), hi = start_period(r->S, split);
    if (p->host_cycles > lo)
        lo = p->host_cycles - 1;
    if (hi <= lo)
        hi = lo + 1;
    for (int tries = 0; tries < 48; tries++) {
        eval_at(r, sm, split, buf_log, hi, hi);
        if (r->e.ok)
            break;
        int64_t next = r->e.need > hi ? r->e.need : 2 * hi;
        if (next >= INF / 4 || (r->e.need == 0 && !strncmp(r->e.why, "a SEML layer", 12))) {
            r->why[split] = r->e.why;
            return 0;
        }
        hi = next;
    }
    if (!r->e.ok) {
        r->why[split] = r->e.why;
        return 0;
    }
    while (hi - lo > 1 && hi - lo > hi / 4000) {
        int64_t mid = lo + (hi - lo) / 2;
        eval_at(r, sm, split, buf_log, mid, mid);
        if (r->e.ok) {
            hi = mid;
        } else {
            lo = mid;
            r->mem_bound[split] = !strncmp(r->e.why, "on-chip memory", 14);
        }
    }
    return hi;
}

/* latency with SESL stages meeting t (SEML on every PE left), INF if infeasible */
static int64_t latency_at(Run *r, const PlanSeml *sm, int split, int buf_log, int64_t t)
{
    eval_at(r, sm, split, buf_log, t, INF);
    return r->e.ok ? r->e.latency : INF;
}

/* Faster SESL stages fill sooner but leave fewer PEs to the SEML part:
 * a golden-section search over the SESL target (log scale, between the
 * fastest SESL part and 2T) for the least latency; then, for the balanced
 * objective, the slowest SESL target (so the most SEML PEs, the best
 * period) whose latency is still within SEML-only's. */
static void latency_points(Run *r, const PlanSeml *sm, int split, int buf_log, int64_t T)
{
    const double g = 0.6180339887;
    double lo = log((double)start_floor(r->S, split)), hi = log(2.0 * (double)T);
    double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    int64_t fa = latency_at(r, sm, split, buf_log, (int64_t)exp(a)), fb = latency_at(r, sm, split, buf_log, (int64_t)exp(b));
    for (int it = 0; it < 14 && hi - lo > 0.01; it++) {
        if (fa <= fb) {
            hi = b, b = a, fb = fa, a = hi - g * (hi - lo);
            fa = latency_at(r, sm, split, buf_log, (int64_t)exp(a));
        } else {
            lo = a, a = b, fa = fb, b = lo + g * (hi - lo);
            fb = latency_at(r, sm, split, buf_log, (int64_t)exp(b));
        }
    }
    double best = fa <= fb ? a : b;
    if (latency_at(r, sm, split, buf_log, (int64_t)exp(best)) >= INF)
        return;
    cand_add(r, &r->e);
    if (r->l_ref >= INF || r->e.latency > r->l_ref)
        return;
    int64_t ok = (int64_t)exp(best), bad = T + 1;   /* latency(ok) <= l_ref */
    while (bad - ok > 1 && bad - ok > bad / 2000) {
        int64_t mid = ok + (bad - ok) / 2;
        if (latency_at(r, sm, split, buf_log, mid) <= r->l_ref)
            ok = mid;
        else
            bad = mid;
    }
    if (latency_at(r, sm, split, buf_log, ok) <= r->l_ref)
        cand_add(r, &r->e);
}

/* The candidates of one split at its best buffer size and least period T:
 * the design at T with the SEML part on every PE left (or on the fewest,
 * when budgets do not allow more), a few slower or faster SESL parts, and
 * the latency points. */
static void candidates(Run *r, const PlanSeml *sm, int split, int buf_log, int64_t T)
{
    eval_at(r, sm, split, buf_log, T, INF);
    if (!r->e.ok || r->e.period > T)
        eval_at(r, sm, split, buf_log, T, T);
    if (r->e.ok)
        cand_add(r, &r->e);
    if (split == 0 && r->e.ok && r->e.latency < r->l_ref)
        r->l_ref = r->e.latency;
    for (int v = 0; split > 0 && v < N_VARIANTS; v++) {
        eval_at(r, sm, split, buf_log, (int64_t)((double)T * VARIANTS[v]), INF);
        if (r->e.ok)
            cand_add(r, &r->e);
    }
    if (split > 0)
        latency_points(r, sm, split, buf_log, T);
}

static PlanSeml *seml_of(const Search *S, int split, int buf_log)
{
    return split < S->n ? plan_seml_new(S->tab, split, buf_log, S->p->pe_budget) : NULL;
}

/* the largest band buffer (log2 bytes per half, at most MAX_TRY_LOG) whose
 * SEML engines, at their smallest shape, fit the block RAM the SESL stages
 * leave at their smallest engines */
#define MAX_TRY_LOG 18
static int top_buffer(const Search *S, int split)
{
    const Plan *p = S->p;
    int64_t room = p->bram_cap + 2 * (int64_t)p->uram_cap - S->sesl_bram[split];
    for (int lg = MAX_TRY_LOG; lg > PLAN_BUF_MIN_LOG; lg--) {
        int64_t bram = 0;
        for (int f = 0; f < PLAN_K_COUNT; f++) {
            int need = plan_seml_min_buf(S->tab, (PlanKind)f, split);
            if (!plan_seml_present(S->tab, (PlanKind)f, split))
                continue;
            if (need < 0)
                return PLAN_BUF_MIN_LOG;
            PlanFamNeeds nd = plan_seml_needs(S->tab, (PlanKind)f, split);
            bram += plan_mem_seml_engine((PlanKind)f, (PlanShape){1, 1, 1}, need > lg ? need : lg, p->beat, &nd).bram;
        }
        if (bram <= room)
            return lg;
    }
    return PLAN_BUF_MIN_LOG;
}

/* Band buffers: the largest that fits beside the SESL stages, then smaller
 * ones while on-chip memory is what keeps the period up; `extra` tries one
 * size larger too (the most promising splits). The best size's candidates. */
#define MAX_LEVELS 3
static void try_buffers(Run *r, int split, bool extra)
{
    int64_t best = 0;
    int best_lg = PLAN_BUF_MIN_LOG, top = split < r->S->n ? top_buffer(r->S, split) : PLAN_BUF_MIN_LOG;
    if (extra && top < MAX_TRY_LOG)
        top++;
    PlanSeml *keep = NULL;
    for (int lg = top, k = 0; lg >= PLAN_BUF_MIN_LOG && k < MAX_LEVELS + extra; lg--, k++) {
        r->mem_bound[split] = false;
        PlanSeml *sm = seml_of(r->S, split, lg);
        int64_t T = bisect(r, sm, split, lg);
        if (T > 0 && (best == 0 || T < best)) {
            plan_seml_free(keep);
            keep = sm, best = T, best_lg = lg;
        } else {
            plan_seml_free(sm);
        }
        bool memory = r->mem_bound[split] || (T == 0 && r->why[split] && !strncmp(r->why[split], "on-chip", 7));
        if ((!memory && !(extra && k == 0)) || split >= r->S->n)
            break;
    }
    if (best > 0)
        candidates(r, keep, split, best_lg, best);
    plan_seml_free(keep);
}

static bool by_period(const Cand *a, const Cand *b);

/* the best candidate's split so far, -1 none */
static int best_split(const Run *r)
{
    int b = -1;
    for (int i = 0; i < r->n; i++)
        if (b < 0 || by_period(&r->c[i], &r->c[b]))
            b = i;
    return b < 0 ? -1 : r->c[b].split;
}

/* Every split of [lo, hi] when there are at most MAX_ALL of them; beyond,
 * a grid of MAX_ALL splits and then, around the best, halving steps (an
 * evaluation costs O(split), so trying every split of a deep graph would
 * be quadratic). */
#define MAX_ALL 256
static void search_splits(Run *r, int lo, int hi)
{
    if (hi - lo + 1 <= MAX_ALL) {
        for (int s = lo; s <= hi; s++)
            try_buffers(r, s, false);
        return;
    }
    int step = (hi - lo) / (MAX_ALL - 1);
    for (int s = lo; s <= hi; s += step)
        try_buffers(r, s, false);
    char *tried = calloc((size_t)(hi + 2), 1);
    if (!tried)
        abort();
    for (int s = lo; s <= hi; s += step)
        tried[s] = 1;
    for (step /= 2; step >= 1; step /= 2) {
        int b = best_split(r);
        for (int d = -1; b >= 0 && d <= 1; d += 2) {
            int s = b + d * step;
            if (s >= lo && s <= hi && !tried[s]) {
                tried[s] = 1;
                try_buffers(r, s, false);
            }
        }
    }
    free(tried);
}

/* the splits of the best few candidates by period, once each */
#define SECOND_LOOK 4
static void second_look(Run *r, int lo, int hi)
{
    int done[SECOND_LOOK], n = 0, n_before = r->n;
    while (n < SECOND_LOOK) {
        int b = -1;
        for (int i = 0; i < n_before; i++) {
            bool seen = r->c[i].split < lo || r->c[i].split > hi || r->c[i].split >= r->S->n;
            for (int k = 0; k < n && !seen; k++)
                seen = done[k] == r->c[i].split;
            if (!seen && (b < 0 || r->c[i].period < r->c[b].period))
                b = i;
        }
        if (b < 0)
            break;
        done[n++] = r->c[b].split;
        try_buffers(r, r->c[b].split, true);
    }
}

/* ------------------------------------------------------------ choosing */

static bool by_period(const Cand *a, const Cand *b)
{
    if (a->period != b->period)
        return a->period < b->period;
    if (a->latency != b->latency)
        return a->latency < b->latency;
    return a->split < b->split;
}

static bool by_latency(const Cand *a, const Cand *b)
{
    if (a->latency != b->latency)
        return a->latency < b->latency;
    if (a->period != b->period)
        return a->period < b->period;
    return a->split < b->split;
}

/* best candidate with split in [lo, hi] and latency <= lmax, -1 none */
static int best_of(const Run *r, int lo, int hi, PlanObjective obj, int64_t lmax)
{
    int best = -1;
    for (int i = 0; i < r->n; i++) {
        const Cand *c = &r->c[i];
        if (c->split < lo || c->split > hi || c->latency > lmax)
            continue;
        bool b = obj == PLAN_OBJ_LATENCY ? by_latency(c, &r->c[best < 0 ? i : best])
                                         : by_period(c, &r->c[best < 0 ? i : best]);
        if (best < 0 || b)
            best = i;
    }
    return best;
}

/* the balanced objective: the best throughput no slower to answer than
 * SEML-only; without a SEML-only design, the best throughput */
static int choose(Run *r, int lo, int hi, PlanObjective obj, char *note, size_t nn)
{
    if (obj != PLAN_OBJ_BALANCED)
        return best_of(r, lo, hi, obj, INF);
    int seml = best_of(r, 0, 0, PLAN_OBJ_THROUGHPUT, INF);
    int k = seml >= 0 ? best_of(r, lo, hi, PLAN_OBJ_THROUGHPUT, r->c[seml].latency) : -1;
    if (k >= 0)
        return k;
    if (note)
        snprintf(note, nn, "balanced: %s; the best throughput is shown",
                 seml < 0 ? "no SEML-only design to compare latency with"
                          : "no design has a latency as low as SEML-only's");
    return best_of(r, lo, hi, PLAN_OBJ_THROUGHPUT, INF);
}

/* ------------------------------------------------------------- filling */

static void engine_maxima(PlanEngine *en, const PlanUnit *u)
{
    if (u->loops.a > en->max_a) en->max_a = u->loops.a;
    if (u->loops.b > en->max_b) en->max_b = u->loops.b;
    if (u->loops.p > en->max_p) en->max_p = u->loops.p;
    if (u->geo.kh * u->geo.kw > en->max_k) en->max_k = u->geo.kh * u->geo.kw;
    if (u->geo.h * u->geo.w > en->max_hw) en->max_hw = u->geo.h * u->geo.w;
    if (u->geo.c > en->max_c) en->max_c = u->geo.c;
}

static int64_t writer_of(const Search *S, int u, int split)
{
    const PlanUnit *U = &S->p->units[u];
    bool out = S->ti->dram_out[U->out_t];
    for (int v = split; !out && v < S->n; v++)
        out = S->prod_in[v] == u || S->prod_x[v] == u;
    return out ? plan_ln_sesl_mover(U->geo.ho * U->geo.wo * (U->batch > 1 ? U->batch : 1), U->geo.f, S->p->beat)
               : 0;
}

static void fill_sesl(const Search *S, const Eval *e, PlanDesign *d)
{
    const Plan *p = S->p;
    for (int i = 0; i < d->split; i++) {
        const PlanPoint *pt = &S->fr[i].pts[e->pick[i]];
        PlanEngine *en = &d->engines[d->n_engines++];
        en->kind = p->units[i].kind;
        en->sesl = true;
        en->shape = pt->shape;
        en->pes = pt->pes, en->dsp = pt->dsp, en->lut = pt->lut;
        en->n_layers = 1;
        en->busy = pt->cycles;
        en->beat = p->beat;
        engine_maxima(en, &p->units[i]);
        PlanUnitMap *m = &d->map[i];
        m->engine = d->n_engines - 1;
        m->sesl = true;
        m->compute = pt->cycles;
        m->mem = S->floor[i] > writer_of(S, i, d->split) ? S->floor[i] : writer_of(S, i, d->split);
        m->cycles = m->compute > m->mem ? m->compute : m->mem;
        m->in_on_chip = S->prod_in[i] >= 0;
        m->out_on_chip = true;
    }
}

static void fill_seml(const Search *S, const Eval *e, PlanDesign *d)
{
    const Plan *p = S->p;
    int first = d->n_engines;
    for (int k = 0; k < e->ch.n_engines; k++) {
        PlanEngine *en = &d->engines[d->n_engines++];
        en->kind = e->ch.kind[k];
        en->shape = e->ch.shape[k];
        en->pes = plan_shape_pes(en->shape);
        en->ibuf = en->obuf = (int64_t)1 << e->ch.buf_log[k];
        en->beat = p->beat;
        PlanFamNeeds nd = plan_seml_needs(S->tab, en->kind, d->split);
        en->dsp = plan_engine_dsp(&p->dev, en->kind, nd.mul, nd.prec, nd.bits, en->shape);
        en->lut = plan_engine_lut(en->kind, false, nd.prec, nd.bits, en->pes);
        /* the loop maxima the shape was ranked against (a pool or element-wise
         * layer has no reduction loop, so it sets no max_b/max_k) */
        en->max_a = nd.max_a, en->max_b = nd.max_b, en->max_p = nd.max_p;
        en->max_k = nd.max_k, en->max_hw = nd.max_hw, en->max_c = nd.max_c;
    }
    for (int i = d->split; i < p->n_units; i++) {
        int k = 0;
        while (k < e->ch.n_engines && e->ch.kind[k] != plan_seml_family(p->units[i].kind))
            k++;
        PlanEngine *en = &d->engines[first + k];
        PlanUnitMap *m = &d->map[i];
        PlanLnRun run = plan_seml_unit_run(S->tab, i, en->shape, e->ch.buf_log[k], &m->band_rows);
        m->engine = first + k;
        m->cycles = run.cycles, m->compute = run.compute, m->mem = run.move, m->dram_bytes = run.bytes;
        en->n_layers++;
        en->busy += run.compute;
    }
}

/* every engine's BRAM/URAM/LUT-RAM from the items it owns */
static void fill_memory(const Items *it, PlanDesign *d)
{
    for (int i = 0; i < it->n; i++) {
        const Item *x = &it->v[i];
        d->onchip_bytes += x->b.bits / 8;
        if (x->owner < 0 || x->owner >= d->n_engines)
            continue;
        PlanEngine *en = &d->engines[x->owner];
        if (x->in_uram)
            en->uram += x->b.uram;
        else
            en->bram18k += x->b.bram;
        en->lut += x->b.lut;
    }
}

static void fill_totals(const Search *S, const Eval *e, PlanDesign *d)
{
    const Plan *p = S->p;
    d->pes = e->pes, d->dsp = e->dsp, d->bram18k = e->bram, d->uram = e->uram, d->lut = e->lut;
    d->t_sesl = e->t_sesl, d->t_seml = e->t_seml, d->t_host = p->host_cycles;
    d->period = e->period;
    d->dram_bytes = e->dram_bytes;
    d->boundary_bytes = S->bnd_bytes[d->split];
    d->lat_sesl = e->lat_sesl;
    d->latency = e->latency;
    double f = p->clock_mhz * 1e6;
    d->fps = d->period > 0 ? f / (double)d->period : 0;
    d->latency_ms = (double)d->latency / f * 1e3;
    d->pe_util = d->pes > 0 && d->period > 0 ? (double)p->total_ops / ((double)d->pes * (double)d->period) : 0;
}

static void fill_design(Run *r, const Cand *c, PlanDesign *d)
{
    const Search *S = r->S;
    const Plan *p = S->p;
    PlanSeml *sm = c->split < S->n ? plan_seml_new(S->tab, c->split, c->buf_log, p->pe_budget) : NULL;
    eval_at(r, sm, c->split, c->buf_log, c->target, c->tmax);
    plan_seml_free(sm);
    d->fits = r->e.ok;
    d->split = c->split;
    d->engines = calloc((size_t)(p->n_units + PLAN_K_COUNT + 1), sizeof *d->engines);
    d->map = calloc((size_t)p->n_units + 1, sizeof *d->map);
    if (!d->engines || !d->map)
        abort();
    fill_sesl(S, &r->e, d);
    fill_seml(S, &r->e, d);
    fill_memory(&r->it, d);
    fill_totals(S, &r->e, d);
}

static void design_none(PlanDesign *d, const char *name, int split, const char *why)
{
    memset(d, 0, sizeof *d);
    d->name = name;
    d->split = split;
    d->fits = false;
    snprintf(d->why, sizeof d->why, "does not fit: %s", why ? why : "no feasible period");
}

/* -------------------------------------------------------------- Pareto */

static int cand_cmp(const void *a, const void *b)
{
    const Cand *x = a, *y = b;
    if (x->period != y->period)
        return x->period < y->period ? -1 : 1;
    if (x->latency != y->latency)
        return x->latency < y->latency ? -1 : 1;
    return x->split - y->split;
}

static void pareto(Run *r, Plan *p)
{
    Cand *v = malloc(sizeof *v * (size_t)(r->n + 1));
    if (!v)
        abort();
    if (r->n > 0)
        memcpy(v, r->c, sizeof *v * (size_t)r->n);
    qsort(v, (size_t)r->n, sizeof *v, cand_cmp);
    p->pareto = calloc((size_t)r->n + 1, sizeof *p->pareto);
    if (!p->pareto)
        abort();
    int64_t best_lat = INF;
    double f = p->clock_mhz * 1e6;
    for (int i = 0; i < r->n; i++) {
        if (v[i].latency >= best_lat)
            continue;   /* a faster design answers at least as soon */
        best_lat = v[i].latency;
        p->pareto[p->n_pareto++] = (PlanPareto){v[i].split, v[i].period, v[i].latency, f / (double)v[i].period,
                                                (double)v[i].latency / f * 1e3};
    }
    free(v);
}

/* ------------------------------------------------------------------ run */

static void finish(Run *r, int lo, int hi)
{
    Plan *p = r->S->p;
    int n = r->S->n;
    PlanObjective obj = p->opt.objective;
    int k[3] = {choose(r, lo, hi, obj, p->note, sizeof p->note), choose(r, 0, 0, obj, NULL, 0),
                p->max_split >= n ? choose(r, n, n, obj, NULL, 0) : -1};
    PlanDesign *ds[3] = {&p->hybrid, &p->seml, &p->sesl};
    const char *names[3] = {"hybrid", "seml", "sesl"};
    const char *whys[3] = {r->why[lo] ? r->why[lo] : r->why[0], r->why[0],
                           p->max_split >= n ? r->why[n] : "a layer the SESL part cannot run (host layer before it, "
                                                            "or an operation the SESL templates lack)"};
    int splits[3] = {lo, 0, n};
    for (int i = 0; i < 3; i++) {
        if (k[i] >= 0) {
            memset(ds[i], 0, sizeof *ds[i]);
            Cand c = r->c[k[i]];
            fill_design(r, &c, ds[i]);
        } else {
            design_none(ds[i], names[i], splits[i], whys[i]);
        }
        ds[i]->name = names[i];
    }
    pareto(r, p);
}

void design_run(Search *S)
{
    Plan *p = S->p;
    int n = S->n, lo = 0, hi = p->max_split;
    if (p->opt.force_split >= 0)
        lo = hi = p->opt.force_split > hi ? hi : p->opt.force_split;
    Run r;
    memset(&r, 0, sizeof r);
    r.S = S;
    r.l_ref = INF;
    r.e.pick = calloc((size_t)n + 1, sizeof(int));
    r.why = calloc((size_t)n + 2, sizeof *r.why);
    r.mem_bound = calloc((size_t)n + 2, sizeof(bool));
    if (!r.e.pick || !r.why || !r.mem_bound)
        abort();
    try_buffers(&r, 0, false);   /* first: SEML-only's latency bounds the balanced objective */
    int cap = S->sesl_cap < hi ? S->sesl_cap : hi;   /* beyond: the smallest SESL engines break a budget */
    for (int s = cap + 1; s <= hi; s++)
        r.why[s] = S->sesl_cap_why;
    search_splits(&r, lo > 0 ? lo : 1, cap);
    if (hi < n && p->max_split >= n)
        try_buffers(&r, n, false);
    second_look(&r, lo, hi);
    finish(&r, lo, hi);
    free(r.e.pick);
    free(r.why);
    free(r.mem_bound);
    free(r.c);
    free(r.it.v);
}
