/* seml.c - reusable (SEML) engines for the layers after the split.
 *
 * Why this shape of search: the SEML part runs its layers one after
 * another on one engine per family (seml_conv.c: conv, pointwise, FC;
 * seml_dw.c: depthwise and pools; seml_eltwise.c: the rest), so its time
 * per frame is the sum over its layers of plan_ln_seml_layer: the template's
 * band loop with its loads, weight tiles and stores, as the C simulation
 * counts it. An engine has a fixed shape (pa x pb x pp, legal unroll
 * factors for the largest trip counts among its layers) and band buffers of
 * 2^k bytes per half; the band rows of each layer follow from them
 * (plan_ln_band_rows).
 *
 * Split-independent work is done once (PlanSemlTab): candidate shapes per
 * family, pruned to those not dominated in compute cycles on every unit by
 * a shape with no more PEs and at least as many filter lanes (fewer weight
 * tiles per band); then, lazily per buffer size, every unit's cycles and
 * DRAM bytes on every shape with suffix sums over each family's units, so a
 * split's family time on a shape is one lookup. Per split, each family
 * keeps the shapes that are fastest for their PE count, and a small
 * knapsack over families gives the least SEML time for every PE count
 * (plan_seml_time), which is what the bisection in search.c needs.
 */
#include "plan_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define INF (INT64_MAX / 4)
#define CAP ((int64_t)1 << 50)   /* one unit's time; sums of many stay below INF */
#define NLOG (PLAN_BUF_MAX_LOG + 1)
#define MAX_PP 64                /* pixel lanes tried */
#define MAX_CAND 256             /* factors tried per loop */
#define OPT_STEP 1.01            /* a family option must be this much faster than a cheaper one */

PlanKind plan_seml_family(PlanKind k)
{
    switch (k) {
    case PLAN_K_CONV: case PLAN_K_FC: return PLAN_K_PWCONV;
    case PLAN_K_POOL: return PLAN_K_DWCONV;
    default: return k;
    }
}

typedef struct {
    int64_t *cyc, *bytes;    /* (family units + 1) x shapes: row k sums units k.. */
    int lo;                  /* rows lo..n_units are filled (lazily, from the end) */
} Sums;

typedef struct {
    int n_units;             /* the family's units, in order */
    int *units;
    int *first;              /* per split 0..n: index of its first family unit at or after it */
    int n_shapes;
    PlanShape *shapes;       /* PEs ascending */
    int8_t *need;            /* per family unit: smallest buffer log that fits, -1 none */
    int *twin;               /* per family unit: the next family unit with the same layer(s), -1 none */
    int8_t *suf_need;        /* per family index k: max need of units k.. (-1: one fits nowhere) */
    PlanFamNeeds *suf;       /* per family index k: needs of units k.. */
    int *epoch;              /* per family index k: which largest trip counts (suffix maxima) apply */
    int n_epochs;
    char *legal;             /* n_epochs x n_shapes: the shape's factors are legal for them */
    Sums *sums[NLOG];
} Fam;

struct PlanSemlTab {
    const Plan *p;
    const IrGraph *g;
    int max_pes, beat;
    Fam fam[PLAN_K_COUNT];
    PlanSemlLayer **parts;   /* per unit: its SEML layers (plan_unit_seml_layers) */
    int *n_parts;
};

/* ------------------------------------------------------------ helpers */

static bool family_present(const PlanSemlTab *t, PlanKind f)
{
    return t->fam[f].n_units > 0;
}

/* every unit's SEML layers, built once */
static void parts_init(PlanSemlTab *t)
{
    int n = t->p->n_units;
    t->parts = calloc((size_t)n + 1, sizeof *t->parts);
    t->n_parts = calloc((size_t)n + 1, sizeof(int));
    if (!t->parts || !t->n_parts)
        abort();
    for (int u = 0; u < n; u++) {
        int k = plan_unit_seml_layers(t->p, t->g, u, NULL, 0);
        t->parts[u] = malloc(sizeof **t->parts * (size_t)(k > 0 ? k : 1));
        if (!t->parts[u])
            abort();
        t->n_parts[u] = plan_unit_seml_layers(t->p, t->g, u, t->parts[u], k);
    }
}

static PlanSemlEngine engine_of(PlanShape s, int buf_log, int beat)
{
    int64_t b = (int64_t)1 << buf_log;
    return (PlanSemlEngine){s.pa, s.pb, s.pp, b, b, beat};
}

static int64_t sat_add(int64_t a, int64_t b)
{
    return a >= CAP || b >= CAP || a + b >= CAP ? CAP : a + b;
}

/* ------------------------------------------------- unit on an engine */

/* Band rows: the most that fit the buffers (plan_ln_band_rows), or fewer
 * when more bands overlap more of the loads and stores with the compute
 * loop (a layer in one band loads, computes and stores one after another;
 * each band also reloads the weights). Halving while it helps. */
static PlanLnRun best_run(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t *rows)
{
    int64_t best = plan_ln_band_rows(l, e);
    PlanLnRun br = plan_ln_seml_run(l, e, best);
    for (int64_t r = (best + 1) / 2; best > 1 && r < best; r = (r + 1) / 2) {
        PlanLnRun x = plan_ln_seml_run(l, e, r);
        if (x.cycles >= br.cycles)
            break;
        br = x, best = r;
    }
    if (best <= 0)
        br.cycles = CAP;
    *rows = best;
    return br;
}

/* A unit on an engine: one layer at its best band rows, or the parts of a
 * Concat all at the most rows every part fits (one band_rows per unit). */
static PlanLnRun unit_run(const PlanSemlTab *t, int unit, PlanShape s, int buf_log, int64_t *rows)
{
    PlanLnRun r = {0, 0, 0, 0};
    PlanSemlEngine e = engine_of(s, buf_log, t->beat);
    int64_t batch = t->p->units[unit].batch > 1 ? t->p->units[unit].batch : 1, br = 0;
    int n = t->n_parts[unit];
    if (n == 1) {
        r = best_run(&t->parts[unit][0], &e, &br);
    } else {
        br = INT64_MAX;
        for (int i = 0; i < n; i++) {
            int64_t m = plan_ln_band_rows(&t->parts[unit][i], &e);
            br = m < br ? m : br;
        }
        for (int i = 0; i < n; i++) {
            PlanLnRun x = plan_ln_seml_run(&t->parts[unit][i], &e, br);
            r.cycles = sat_add(r.cycles, br > 0 ? x.cycles : CAP);
            r.compute += x.compute, r.move += x.move, r.bytes += x.bytes;
        }
    }
    if (rows)
        *rows = br;
    r.cycles = r.cycles >= CAP / batch ? CAP : r.cycles * batch;
    r.compute *= batch, r.move *= batch, r.bytes *= batch;
    return r;
}

PlanLnRun plan_seml_unit_run(const PlanSemlTab *t, int unit, PlanShape s, int buf_log, int64_t *band_rows)
{
    return unit_run(t, unit, s, buf_log, band_rows);
}

/* smallest buffer (log2 bytes per half) with at least one band row for every part */
static int unit_need(PlanSemlTab *t, int unit)
{
    for (int lg = PLAN_BUF_MIN_LOG; lg <= PLAN_BUF_MAX_LOG; lg++) {
        PlanSemlEngine e = engine_of((PlanShape){1, 1, 1}, lg, t->beat);
        bool ok = true;
        for (int i = 0; i < t->n_parts[unit] && ok; i++)
            ok = plan_ln_band_rows(&t->parts[unit][i], &e) > 0;
        if (ok)
            return lg;
    }
    return -1;
}

/* ------------------------------------------------------ equal units */

static uint64_t mix(uint64_t h, int64_t x)
{
    return (h ^ (uint64_t)x) * 1099511628211ull;
}

static uint64_t layer_hash(const PlanSemlLayer *l)
{
    const PlanGeom *g = &l->g;
    int64_t v[] = {l->op, g->h, g->w, g->c, g->ho, g->wo, g->f, g->kh, g->kw, g->sh, g->sw, g->dh, g->dw, g->pt,
                   g->pl, g->pb, g->pr, g->g, l->avg, l->add, l->lut, l->binary, l->bvec, l->in_dense, l->in2_dense,
                   l->out_dense, l->rq_n};
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        h = mix(h, v[i]);
    return h;
}

static bool layer_same(const PlanSemlLayer *a, const PlanSemlLayer *b)
{
    return layer_hash(a) == layer_hash(b) && a->op == b->op && !memcmp(&a->g, &b->g, sizeof a->g) &&
           a->avg == b->avg && a->add == b->add && a->lut == b->lut && a->binary == b->binary && a->bvec == b->bvec &&
           a->in_dense == b->in_dense && a->in2_dense == b->in2_dense && a->out_dense == b->out_dense &&
           a->rq_n == b->rq_n;
}

static bool unit_same(const PlanSemlTab *t, int u, int v)
{
    if (t->n_parts[u] != t->n_parts[v] || t->p->units[u].batch != t->p->units[v].batch)
        return false;
    for (int i = 0; i < t->n_parts[u]; i++)
        if (!layer_same(&t->parts[u][i], &t->parts[v][i]))
            return false;
    return true;
}

/* Repeated blocks have equal layers: each family unit's next twin, found
 * through a hash table (O(units)); its runs are read off the suffix sums. */
static void fam_twins(const PlanSemlTab *t, Fam *F)
{
    int size = 4;
    while (size < 2 * F->n_units)
        size *= 2;
    int *slot = malloc(sizeof(int) * (size_t)size);
    F->twin = malloc(sizeof(int) * (size_t)(F->n_units + 1));
    if (!slot || !F->twin)
        abort();
    for (int i = 0; i < size; i++)
        slot[i] = -1;
    for (int k = F->n_units - 1; k >= 0; k--) {
        int u = F->units[k];
        uint64_t h = mix(t->n_parts[u] ? layer_hash(&t->parts[u][0]) : 0, t->p->units[u].batch);
        int i = (int)(h & (uint64_t)(size - 1));
        while (slot[i] >= 0 && !unit_same(t, F->units[slot[i]], u))
            i = (i + 1) & (size - 1);
        F->twin[k] = slot[i];
        slot[i] = k;   /* the nearest later twin for the units before */
    }
    free(slot);
}

/* ---------------------------------------------------------- needs */

static void needs_add(PlanFamNeeds *n, const PlanUnit *u)
{
    const PlanGeom *g = &u->geo;
    if (u->bits > n->bits || (u->bits == n->bits && u->prec == IR_PREC_FLOAT))
        n->bits = u->bits, n->prec = u->prec;
    n->mul |= u->mul, n->add |= u->add, n->lut |= u->lut;
    n->binary |= u->kind == PLAN_K_ELTWISE && u->extra_t >= 0 && !u->bvec;
    n->bvec |= u->bvec;
    n->gpool |= u->op == PLAN_SEML_GPOOL;
    bool windowless = u->op == PLAN_SEML_GPOOL || u->op == PLAN_SEML_ELT;   /* no reduction loop to unroll */
    if (u->loops.a > n->max_a) n->max_a = u->loops.a;
    if (!windowless && u->loops.b > n->max_b) n->max_b = u->loops.b;
    if (u->loops.p > n->max_p) n->max_p = u->loops.p;
    if (!windowless && g->kh * g->kw > n->max_k) n->max_k = g->kh * g->kw;
    if (g->c > n->max_c) n->max_c = g->c;
    if (g->f > n->max_c) n->max_c = g->f;
    if (g->h * g->w > n->max_hw) n->max_hw = g->h * g->w;
}

static void fam_needs(PlanSemlTab *t, Fam *F)
{
    F->need = malloc((size_t)F->n_units + 1);
    F->suf_need = malloc((size_t)F->n_units + 1);
    F->suf = calloc((size_t)F->n_units + 1, sizeof *F->suf);
    if (!F->need || !F->suf_need || !F->suf)
        abort();
    F->suf_need[F->n_units] = PLAN_BUF_MIN_LOG;
    F->suf[F->n_units] = (PlanFamNeeds){8, IR_PREC_INT8, false, false, false, false, false, false, 1, 1, 1, 1, 1, 1};
    for (int k = F->n_units - 1; k >= 0; k--) {
        F->need[k] = (int8_t)unit_need(t, F->units[k]);
        int8_t after = F->suf_need[k + 1];
        F->suf_need[k] = F->need[k] < 0 || after < 0 ? -1 : F->need[k] > after ? F->need[k] : after;
        F->suf[k] = F->suf[k + 1];
        needs_add(&F->suf[k], &t->p->units[F->units[k]]);
    }
}

/* ------------------------------------------------------------- shapes */

static int add_factor(int *v, int n, int64_t f)
{
    for (int i = 0; i < n; i++)
        if (v[i] == f)
            return n;
    if (n < MAX_CAND)
        v[n++] = (int)f;
    return n;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* m*2^k up to lim, and the divisors (up to lim) of every largest trip count
 * a split can leave the family (the suffix maxima of the loop) */
static int factors(const Fam *F, const Plan *p, int which, int64_t lim, int *v)
{
    int n = 0;
    int64_t top = 1, last = -1;
    for (int k = F->n_units - 1; k >= 0; k--) {
        const PlanUnit *u = &p->units[F->units[k]];
        bool windowless = u->op == PLAN_SEML_GPOOL || u->op == PLAN_SEML_ELT;
        int64_t x = which == 0 ? u->loops.a : windowless ? 1 : u->loops.b;
        if (x > top)
            top = x;
        if (top == last)
            continue;
        last = top;
        for (int64_t d = 1; d <= top && d <= lim; d++)
            if (top % d == 0)
                n = add_factor(v, n, d);
    }
    for (int64_t f = 1; f <= top && f <= lim; f++)
        if (plan_unroll_m2k(f))
            n = add_factor(v, n, f);
    qsort(v, (size_t)n, sizeof *v, cmp_int);
    return n;
}

static int shape_cmp(const void *a, const void *b)
{
    const PlanShape *x = a, *y = b;
    int px = plan_shape_pes(*x), py = plan_shape_pes(*y);
    if (px != py)
        return px < py ? -1 : 1;
    if (x->pa != y->pa)
        return x->pa > y->pa ? -1 : 1;
    if (x->pb != y->pb)
        return x->pb > y->pb ? -1 : 1;
    return x->pp < y->pp ? -1 : x->pp > y->pp;
}

/* compute iterations of a unit on every shape (what the bands' compute
 * loops run, ignoring band boundaries): the pruning criterion. The
 * ceilings are tabulated per factor value once per unit. */
typedef struct {
    int64_t *a, *b, *p;  /* indexed by factor value, up to max_pes */
} Ceil;

static void compute_iters(const PlanUnit *u, const PlanShape *v, int n, Ceil *c, int64_t *out)
{
    int64_t b = u->op == PLAN_SEML_GPOOL || u->kind == PLAN_K_ELTWISE ? 1 : u->loops.b;
    int64_t p = u->op == PLAN_SEML_GPOOL ? u->geo.h * u->geo.w : u->loops.p;
    int64_t m = u->batch > 1 ? u->batch : 1;
    for (int j = 0; j < n; j++) {
        c->a[v[j].pa] = plan_cdiv(u->loops.a, v[j].pa);
        c->b[v[j].pb] = plan_cdiv(b, v[j].pb);
        c->p[v[j].pp] = plan_cdiv(p, v[j].pp);
    }
    for (int j = 0; j < n; j++)
        out[j] = m * c->a[v[j].pa] * c->b[v[j].pb] * c->p[v[j].pp];
}

/* legal for units whose largest trip counts are n's */
static bool legal_at(const PlanFamNeeds *n, PlanShape s)
{
    return plan_unroll_legal(s.pa, n->max_a) && plan_unroll_legal(s.pb, n->max_b) && plan_unroll_m2k(s.pp);
}

#define NEAR 1.03   /* within 3% of the fastest: the one with most filter lanes is kept too */

/* Suffixes of the family's units with the same largest trip counts share
 * an epoch; each epoch's legal shapes are tabulated once. */
static void fam_epochs(Fam *F, const PlanShape *v, int n)
{
    F->epoch = malloc(sizeof(int) * (size_t)(F->n_units + 1));
    if (!F->epoch)
        abort();
    F->n_epochs = 0;
    for (int k = F->n_units - 1; k >= 0; k--) {
        bool same = k + 1 < F->n_units && F->suf[k].max_a == F->suf[k + 1].max_a &&
                    F->suf[k].max_b == F->suf[k + 1].max_b;
        F->epoch[k] = same ? F->epoch[k + 1] : F->n_epochs++;
    }
    F->epoch[F->n_units] = 0;
    F->legal = malloc((size_t)(F->n_epochs > 0 ? F->n_epochs : 1) * (size_t)(n + 1));
    if (!F->legal)
        abort();
    for (int k = F->n_units - 1; k >= 0; k--)
        if (k + 1 == F->n_units || F->epoch[k] != F->epoch[k + 1])
            for (int j = 0; j < n; j++)
                F->legal[(size_t)F->epoch[k] * n + j] = legal_at(&F->suf[k], v[j]);
}

static bool legal(const Fam *F, int k, int j)
{
    return F->legal[(size_t)F->epoch[k] * F->n_shapes + j];
}

/* For one suffix of the family's units (a split): at each PE count the
 * shape with the fewest compute iterations and, among those within NEAR of
 * it, the one with the most filter lanes (fewer weight tiles per band);
 * then only PE counts faster than every smaller one. */
static void keep_suffix(const Fam *F, const PlanShape *v, int n, const int64_t *col, int k, char *keep)
{
    const char *ok = F->legal + (size_t)F->epoch[k] * n;
    int64_t run_best = INF;
    for (int lo = 0, hi; lo < n; lo = hi) {
        int pes = plan_shape_pes(v[lo]), b1 = -1, b2 = -1;
        for (hi = lo; hi < n && plan_shape_pes(v[hi]) == pes; hi++)
            if (ok[hi] && (b1 < 0 || col[hi] < col[b1]))
                b1 = hi;
        if (b1 < 0 || col[b1] >= run_best)
            continue;
        int64_t best = col[b1];
        run_best = best;
        for (int j = lo; j < hi; j++)
            if (ok[j] && (double)col[j] <= NEAR * (double)best &&
                (b2 < 0 || v[j].pa > v[b2].pa))
                b2 = j;
        keep[b1] = 1;
        if (b2 >= 0)
            keep[b2] = 1;
    }
}

/* compute_iters gives the same answer for a and b on every shape */
static bool same_iters(const PlanUnit *a, const PlanUnit *b)
{
    return a->op == b->op && a->kind == b->kind && a->loops.a == b->loops.a && a->loops.b == b->loops.b &&
           a->loops.p == b->loops.p && a->geo.h == b->geo.h && a->geo.w == b->geo.w && a->batch == b->batch;
}

/* Keep the shapes some split would choose by compute iterations (suffix
 * sums over the family's units, one column per split, built from the
 * last unit back): O(shapes x units) additions. compute_iters runs only
 * when a unit differs from the one after it, and a suffix of identical
 * units in one epoch is a multiple of a column already kept from (the
 * choice is scale-free), so a deep chain of equal layers costs one pass. */
static void prune(const PlanSemlTab *t, Fam *F, PlanShape *v, int n)
{
    int nu = F->n_units;
    size_t mp = (size_t)t->max_pes + 1;
    int64_t *col = calloc((size_t)n + 1, sizeof *col), *it = calloc((size_t)n + 1, sizeof *it);
    int64_t *tab = malloc(sizeof(int64_t) * 3 * mp);
    char *keep = calloc((size_t)n + 1, 1);
    if (!col || !it || !tab || !keep)
        abort();
    Ceil c = {tab, tab + mp, tab + 2 * mp};
    fam_epochs(F, v, n);
    bool uniform = true;   /* every unit from k on has the iterations of unit k */
    for (int k = nu - 1; k >= 0; k--) {
        const PlanUnit *u = &t->p->units[F->units[k]];
        bool same = k + 1 < nu && same_iters(u, &t->p->units[F->units[k + 1]]);
        if (!same)
            compute_iters(u, v, n, &c, it);
        for (int j = 0; j < n; j++)
            col[j] += it[j];
        uniform = k + 1 == nu || (uniform && same);
        if (!(uniform && k + 1 < nu && F->epoch[k] == F->epoch[k + 1]))
            keep_suffix(F, v, n, col, k, keep);
    }
    int m = 0;
    for (int j = 0; j < n; j++) {
        if (!keep[j])
            continue;
        for (int e = 0; e < F->n_epochs; e++)
            F->legal[(size_t)e * n + m] = F->legal[(size_t)e * n + j];
        v[m++] = v[j];
    }
    for (int e = 1; e < F->n_epochs; e++)   /* rows of n to rows of m */
        memmove(F->legal + (size_t)e * m, F->legal + (size_t)e * n, (size_t)m);
    free(col);
    free(it);
    free(tab);
    free(keep);
    F->n_shapes = m;
    F->shapes = v;
}

static void fam_shapes(PlanSemlTab *t, PlanKind f, Fam *F)
{
    int fa[MAX_CAND], fb[MAX_CAND], fp[MAX_CAND];
    int na = factors(F, t->p, 0, t->max_pes, fa);
    int nb = f == PLAN_K_ELTWISE ? (fb[0] = 1, 1) : factors(F, t->p, 1, t->max_pes, fb);
    int np = 0;
    for (int x = 1; x <= MAX_PP && x <= t->max_pes; x++)
        if (plan_unroll_m2k(x))
            fp[np++] = x;
    int cap = 256, n = 0;
    PlanShape *v = malloc(sizeof *v * (size_t)cap);
    for (int i = 0; v && i < na; i++)
        for (int j = 0; j < nb && (int64_t)fa[i] * fb[j] <= t->max_pes; j++)
            for (int k = 0; k < np && (int64_t)fa[i] * fb[j] * fp[k] <= t->max_pes; k++) {
                if (n == cap)
                    v = realloc(v, sizeof *v * (size_t)(cap *= 2));
                if (!v)
                    abort();
                v[n++] = (PlanShape){fa[i], fb[j], fp[k]};
            }
    if (!v)
        abort();
    qsort(v, (size_t)n, sizeof *v, shape_cmp);
    prune(t, F, v, n);
}

/* ------------------------------------------------------------- tables */

static void fam_units(PlanSemlTab *t, PlanKind f, Fam *F)
{
    const Plan *p = t->p;
    int n = p->n_units;
    F->units = malloc(sizeof(int) * (size_t)(n + 1));
    F->first = malloc(sizeof(int) * (size_t)(n + 1));
    if (!F->units || !F->first)
        abort();
    for (int i = 0; i < n; i++)
        if (plan_seml_family(p->units[i].kind) == f)
            F->units[F->n_units++] = i;
    for (int s = n, k = F->n_units; s >= 0; s--) {
        if (s < n && plan_seml_family(p->units[s].kind) == f)
            k--;
        F->first[s] = k;
    }
}

PlanSemlTab *plan_seml_tab_new(const Plan *p, const IrGraph *g, int max_pes)
{
    PlanSemlTab *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    t->p = p;
    t->g = g;
    t->max_pes = max_pes > 0 ? max_pes : 1;
    t->beat = p->beat > 0 ? p->beat : 16;
    parts_init(t);
    for (int f = 0; f < PLAN_K_COUNT; f++) {
        Fam *F = &t->fam[f];
        fam_units(t, (PlanKind)f, F);
        if (F->n_units == 0)
            continue;
        fam_needs(t, F);
        fam_twins(t, F);
        fam_shapes(t, (PlanKind)f, F);
    }
    return t;
}

void plan_seml_tab_free(PlanSemlTab *t)
{
    if (!t)
        return;
    for (int f = 0; f < PLAN_K_COUNT; f++) {
        Fam *F = &t->fam[f];
        for (int l = 0; l < NLOG; l++)
            if (F->sums[l]) {
                free(F->sums[l]->cyc);
                free(F->sums[l]->bytes);
                free(F->sums[l]);
            }
        free(F->units);
        free(F->first);
        free(F->shapes);
        free(F->need);
        free(F->suf_need);
        free(F->suf);
        free(F->epoch);
        free(F->legal);
        free(F->twin);
    }
    for (int u = 0; t->parts && u < t->p->n_units; u++)
        free(t->parts[u]);
    free(t->parts);
    free(t->n_parts);
    free(t);
}

static Sums *sums_new(const Fam *F)
{
    int ns = F->n_shapes, nu = F->n_units;
    Sums *S = malloc(sizeof *S);
    if (!S)
        abort();
    S->cyc = calloc((size_t)(nu + 1) * (size_t)(ns ? ns : 1), sizeof(int64_t));
    S->bytes = calloc((size_t)(nu + 1) * (size_t)(ns ? ns : 1), sizeof(int64_t));
    if (!S->cyc || !S->bytes)
        abort();
    S->lo = nu;
    return S;
}

/* the suffix sums at buffer 2^lg, filled down to row kmin: only the units a
 * split using this buffer size runs are ever costed on it */
static const Sums *sums_get(PlanSemlTab *t, Fam *F, int lg, int kmin)
{
    if (!F->sums[lg])
        F->sums[lg] = sums_new(F);
    Sums *S = F->sums[lg];
    int ns = F->n_shapes;
    for (int k = S->lo - 1; k >= kmin; k--) {
        int64_t *dc = S->cyc + (size_t)k * ns, *db = S->bytes + (size_t)k * ns;
        const int64_t *tc = F->twin[k] >= 0 ? S->cyc + (size_t)F->twin[k] * ns : NULL;
        const int64_t *tb = tc ? S->bytes + (size_t)F->twin[k] * ns : NULL;
        for (int j = 0; j < ns; j++) {
            PlanLnRun r = {CAP, 0, 0, 0};
            if (tc && tc[j] < CAP)   /* a twin's run: the difference of its suffix sums */
                r.cycles = tc[j] - tc[j + ns], r.bytes = tb[j] - tb[j + ns];
            else if (F->need[k] >= 0 && F->need[k] <= lg)
                r = unit_run(t, F->units[k], F->shapes[j], lg, NULL);
            dc[j] = sat_add(dc[j + ns], r.cycles);
            db[j] = db[j + ns] + r.bytes;
        }
    }
    if (kmin < S->lo)
        S->lo = kmin;
    return S;
}

bool plan_seml_present(const PlanSemlTab *t, PlanKind f, int first)
{
    const Fam *F = &t->fam[f];
    return F->n_units > 0 && F->first[first] < F->n_units;
}

int plan_seml_min_buf(const PlanSemlTab *t, PlanKind f, int first)
{
    const Fam *F = &t->fam[f];
    if (F->n_units == 0)
        return PLAN_BUF_MIN_LOG;
    return F->suf_need[F->first[first]];
}

PlanFamNeeds plan_seml_needs(const PlanSemlTab *t, PlanKind f, int first)
{
    const Fam *F = &t->fam[f];
    if (F->n_units == 0)
        return (PlanFamNeeds){8, IR_PREC_INT8, false, false, false, false, false, false, 1, 1, 1, 1, 1, 1};
    return F->suf[F->first[first]];
}

/* ------------------------------------------------------- engine memory */

/* a double buffer of 2^lg bytes per half, written a beat and read `lanes`
 * bytes per cycle */
static PlanBuf band_buffer(int lg, int64_t lanes, int beat)
{
    int64_t width = 8 * (lanes > beat ? lanes : beat);
    int64_t depth = plan_cdiv(((int64_t)1 << lg) * 8, width);
    PlanBuf b = plan_buf(1, width, depth);
    return plan_buf_add(b, b);
}

static PlanBuf conv_engine(PlanShape s, int lg, int beat, const PlanFamNeeds *n)
{
    int64_t trec = plan_cdiv((int64_t)s.pa * n->max_b + 9 * (int64_t)s.pa, beat) * beat;
    PlanBuf b = band_buffer(lg, (int64_t)s.pb * s.pp, beat);                 /* ibuf */
    b = plan_buf_add(b, band_buffer(lg, (int64_t)s.pa * s.pp, beat));        /* obuf */
    if (n->add)
        b = plan_buf_add(b, band_buffer(lg, (int64_t)s.pa * s.pp, beat));    /* sbuf */
    b = plan_buf_add(b, plan_buf(2 * (int64_t)s.pa, 8 * (int64_t)s.pb, plan_cdiv(trec / s.pa, s.pb)));  /* tbuf */
    b = plan_buf_add(b, plan_buf(s.pb, 48, plan_cdiv(n->max_b, s.pb)));      /* tap_dy, tap_dx, tap_c */
    if (n->lut)
        b = plan_buf_add(b, plan_buf(1, 8, 256));
    return b;
}

static PlanBuf dw_engine(PlanShape s, int lg, int beat, const PlanFamNeeds *n)
{
    int64_t kk = n->max_k, c = n->max_c;
    PlanBuf b = band_buffer(lg, (int64_t)s.pa * s.pb * s.pp, beat);
    b = plan_buf_add(b, band_buffer(lg, (int64_t)s.pa * s.pp, beat));
    if (n->add)
        b = plan_buf_add(b, band_buffer(lg, (int64_t)s.pa * s.pp, beat));    /* sbuf */
    if (n->lut)
        b = plan_buf_add(b, plan_buf(1, 8, 256));
    b = plan_buf_add(b, plan_buf(s.pa, 8 * (int64_t)s.pb, plan_cdiv(c * kk, (int64_t)s.pa * s.pb)));  /* rec weights */
    b = plan_buf_add(b, plan_buf(s.pa, 72, plan_cdiv(c, s.pa)));             /* rec bias, mult, shift */
    if (n->gpool)
        b = plan_buf_add(b, plan_buf(s.pa, 32, plan_cdiv(c, s.pa)));         /* gacc */
    return b;
}

static PlanBuf elt_engine(PlanShape s, int lg, int beat, const PlanFamNeeds *n)
{
    int64_t lanes = (int64_t)s.pa * s.pp;
    PlanBuf b = plan_buf_add(band_buffer(lg, lanes, beat), band_buffer(lg, lanes, beat));  /* abuf, obuf */
    if (n->binary)
        b = plan_buf_add(b, band_buffer(lg, lanes, beat));                   /* bbuf */
    if (n->bvec)
        b = plan_buf_add(b, plan_buf(s.pa, 8, plan_cdiv(n->max_c, s.pa)));  /* vec */
    if (n->lut)
        b = plan_buf_add(b, plan_buf(1, 8, 256));
    return b;
}

PlanBuf plan_mem_seml_engine(PlanKind f, PlanShape s, int buf_log, int beat, const PlanFamNeeds *n)
{
    switch (f) {
    case PLAN_K_PWCONV: return conv_engine(s, buf_log, beat, n);
    case PLAN_K_DWCONV: return dw_engine(s, buf_log, beat, n);
    default: return elt_engine(s, buf_log, beat, n);
    }
}

/* ------------------------------------------------------------ solver */

typedef struct {
    int pes, cost;       /* PEs, and PE quanta of the knapsack */
    int64_t time;
    int shape;
} Opt;

struct PlanSeml {
    PlanSemlTab *tab;
    int first, grid, nq;
    bool ok;
    int n_fam;
    PlanKind fam[PLAN_K_COUNT];
    int lg[PLAN_K_COUNT];
    const Sums *sums[PLAN_K_COUNT];
    int row[PLAN_K_COUNT];   /* the family's first unit at this split */
    Opt *opt[PLAN_K_COUNT];
    int n_opt[PLAN_K_COUNT];
    int64_t *dp;             /* (n_fam) x nq: least time of families 0..i-1 */
    short *arg;
    int64_t *memo;           /* per column: plan_seml_time, -1 not asked yet */
};

/* the family's options: for growing PEs, each shape faster than every cheaper one */
static void family_options(PlanSeml *s, int fi)
{
    PlanKind f = s->fam[fi];
    const Fam *F = &s->tab->fam[f];
    const int64_t *row = s->sums[fi]->cyc + (size_t)s->row[fi] * F->n_shapes;
    Opt *v = malloc(sizeof(Opt) * (size_t)(F->n_shapes + 1));
    if (!v)
        abort();
    int m = 0;
    int64_t best = INF;
    for (int j = 0; j < F->n_shapes; j++) {
        int pes = plan_shape_pes(F->shapes[j]);
        if (row[j] >= CAP || (double)row[j] * OPT_STEP >= (double)best || pes > s->tab->max_pes ||
            !legal(F, s->row[fi], j))
            continue;
        if (m > 0 && v[m - 1].pes == pes)
            m--;   /* same PEs, faster */
        v[m++] = (Opt){pes, (int)plan_cdiv(pes, s->grid), row[j], j};
        best = row[j];
    }
    s->opt[fi] = v;
    s->n_opt[fi] = m;
}

/* the first family alone: its fastest option within q quanta (options get
 * faster with more PEs, so the last one that fits) */
static void first_row(PlanSeml *s, int64_t *cur, short *arg)
{
    int o = -1;
    for (int q = 0; q < s->nq; q++) {
        while (o + 1 < s->n_opt[0] && s->opt[0][o + 1].cost <= q)
            o++;
        cur[q] = o >= 0 ? s->opt[0][o].time : INF;
        arg[q] = (short)o;
    }
}

/* dp row i = least time of families 0..i-1 within q PE quanta: the first
 * row directly, the others by a min-plus product with the family's
 * options; the last family is not tabulated: each query picks its option
 * directly. Families are ordered by option count, most first. */
static void knapsack(PlanSeml *s)
{
    int nq = s->nq, rows = s->n_fam > 0 ? s->n_fam : 1;
    s->dp = malloc(sizeof(int64_t) * (size_t)rows * (size_t)nq);
    s->arg = malloc(sizeof(short) * (size_t)rows * (size_t)nq);
    if (!s->dp || !s->arg)
        abort();
    for (int q = 0; q < nq; q++)
        s->dp[q] = 0;
    for (int i = 0; i + 1 < s->n_fam; i++) {
        const int64_t *prev = s->dp + (size_t)i * nq;
        int64_t *cur = s->dp + (size_t)(i + 1) * nq;
        short *arg = s->arg + (size_t)i * nq;
        if (i == 0) {
            first_row(s, cur, arg);
            continue;
        }
        for (int q = 0; q < nq; q++)
            cur[q] = INF, arg[q] = -1;
        for (int o = 0; o < s->n_opt[i]; o++) {
            int c = s->opt[i][o].cost;
            int64_t to = s->opt[i][o].time;
            for (int q = c; q < nq; q++)
                if (prev[q - c] < INF && prev[q - c] + to < cur[q]) {
                    cur[q] = prev[q - c] + to;
                    arg[q] = (short)o;
                }
        }
    }
}

static void swap_families(PlanSeml *s, int i, int j)
{
    PlanKind f = s->fam[i];
    int lg = s->lg[i], row = s->row[i], n = s->n_opt[i];
    const Sums *sm = s->sums[i];
    Opt *o = s->opt[i];
    s->fam[i] = s->fam[j], s->lg[i] = s->lg[j], s->row[i] = s->row[j];
    s->n_opt[i] = s->n_opt[j], s->sums[i] = s->sums[j], s->opt[i] = s->opt[j];
    s->fam[j] = f, s->lg[j] = lg, s->row[j] = row, s->n_opt[j] = n, s->sums[j] = sm, s->opt[j] = o;
}

/* The first family costs O(PE grid), a middle one O(options x grid), the
 * last O(options) per query: most options first, the second most last,
 * the fewest in the middle. */
static void order_families(PlanSeml *s)
{
    for (int i = 1; i < s->n_fam; i++)
        for (int j = i; j > 0 && s->n_opt[j] > s->n_opt[j - 1]; j--)
            swap_families(s, j, j - 1);
    for (int i = 1; i + 1 < s->n_fam; i++)
        swap_families(s, i, s->n_fam - 1);
}

static bool setup_families(PlanSeml *s, int lg)
{
    PlanSemlTab *t = s->tab;
    for (int f = 0; f < PLAN_K_COUNT; f++) {
        Fam *F = &t->fam[f];
        if (!family_present(t, (PlanKind)f) || F->first[s->first] >= F->n_units)
            continue;
        int need = F->suf_need[F->first[s->first]];
        if (need < 0)
            return false;
        int i = s->n_fam++;
        s->fam[i] = (PlanKind)f;
        s->lg[i] = need > lg ? need : lg;
        s->row[i] = F->first[s->first];
        s->sums[i] = sums_get(t, F, s->lg[i], s->row[i]);
    }
    return true;
}

PlanSeml *plan_seml_new(PlanSemlTab *t, int first, int buf_log, int max_pes)
{
    PlanSeml *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->tab = t;
    s->first = first;
    int mp = max_pes > 0 ? max_pes : 1;
    s->grid = (int)plan_cdiv(mp, 1024);
    s->nq = mp / s->grid + 1;
    s->ok = setup_families(s, buf_log);
    if (!s->ok)
        s->n_fam = 0;
    for (int i = 0; i < s->n_fam; i++)
        family_options(s, i);
    order_families(s);
    knapsack(s);
    s->memo = malloc(sizeof(int64_t) * (size_t)s->nq);
    if (!s->memo)
        abort();
    for (int q = 0; q < s->nq; q++)
        s->memo[q] = -1;
    return s;
}

void plan_seml_free(PlanSeml *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n_fam; i++)
        free(s->opt[i]);
    free(s->dp);
    free(s->arg);
    free(s->memo);
    free(s);
}

bool plan_seml_ok(const PlanSeml *s)
{
    return s->ok;
}

static int column(const PlanSeml *s, int q)
{
    if (q < 0)
        return -1;
    int c = q / s->grid;
    return c >= s->nq ? s->nq - 1 : c;
}

/* best option of the last family at column c, with the total time */
static int last_pick(const PlanSeml *s, int c, int64_t *total)
{
    int i = s->n_fam - 1, best = -1;
    const int64_t *prev = s->dp + (size_t)i * s->nq;
    *total = INF;
    for (int o = 0; o < s->n_opt[i]; o++) {
        int k = s->opt[i][o].cost;
        if (k > c || prev[c - k] >= INF)
            continue;
        int64_t t = prev[c - k] + s->opt[i][o].time;
        if (t < *total) {
            *total = t;
            best = o;
        }
    }
    return best;
}

int64_t plan_seml_time(const PlanSeml *s, int q)
{
    if (!s->ok)
        return INT64_MAX;
    if (s->n_fam == 0)
        return 0;
    int c = column(s, q);
    if (c < 0)
        return INT64_MAX;
    if (s->memo[c] < 0) {
        int64_t t;
        last_pick(s, c, &t);
        s->memo[c] = t >= INF ? INT64_MAX : t;
    }
    return s->memo[c];
}

void plan_seml_choice(const PlanSeml *s, int q, PlanSemlChoice *ch, int64_t *bytes)
{
    memset(ch, 0, sizeof *ch);
    *bytes = 0;
    int c = column(s, q);
    int64_t total;
    for (int i = s->n_fam - 1; i >= 0 && c >= 0; i--) {
        int o = i == s->n_fam - 1 ? last_pick(s, c, &total) : s->arg[(size_t)i * s->nq + c];
        if (o < 0)
            return;
        const Opt *op = &s->opt[i][o];
        const Fam *F = &s->tab->fam[s->fam[i]];
        ch->kind[ch->n_engines] = s->fam[i];
        ch->buf_log[ch->n_engines] = s->lg[i];
        ch->shape[ch->n_engines++] = F->shapes[op->shape];
        *bytes += s->sums[i]->bytes[(size_t)s->row[i] * F->n_shapes + op->shape];
        c -= op->cost;
    }
}
