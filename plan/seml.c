/* seml.c - reusable (SEML) engines for the layers after the split.
 *
 * Why this shape of search: the SEML part runs its layers one after another,
 * so its time per frame is the sum over layers of max(compute, DRAM traffic /
 * bandwidth) plus a fixed start-up per layer, and every engine but the busy
 * one idles. Each family (standard conv, depthwise, pointwise+FC, pooling,
 * element-wise) gets one engine, or two of equal size with different shapes
 * when that pays (say, one with pixel lanes for the large early maps and one
 * with channel lanes for the deep layers; each layer then runs on the faster
 * one). Engine shapes are powers of two in each loop, as array partitioning
 * factors are in HLS. A small knapsack over families then gives, for every PE
 * count q, the least SEML time with at most q PEs (plan_seml_time), which is
 * what the bisection in plan.c needs.
 *
 * Memory model: feature maps up to fm_buf bytes stay in on-chip ping-pong
 * buffers (a third holds a skip tensor); larger ones go through DRAM, read in
 * bands, with the loop order (weights outer or bands outer) that moves fewer
 * bytes. Weights always stream from DRAM into double-buffered tiles.
 */
#include "plan_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define INF (INT64_MAX / 4)
#define CAP ((int64_t)1 << 50)   /* one unit's time; sums of many stay below INF */
#define MAX_LEVELS 24
#define PAIR_CANDIDATES 3

/* One reusable engine family serves every layer that is a matrix product
 * over its reduction: standard conv (C*K*K terms gathered by the window
 * generator), pointwise conv and FC (a pointwise conv on a 1x1 map). Pooling
 * is a depthwise conv with a fixed window (sum or max instead of
 * multiply-add). */
PlanKind plan_seml_family(PlanKind k)
{
    switch (k) {
    case PLAN_K_CONV: case PLAN_K_FC: return PLAN_K_PWCONV;
    case PLAN_K_POOL: return PLAN_K_DWCONV;
    default: return k;
    }
}

static int64_t next_pow2(int64_t x)
{
    int64_t p = 1;
    while (p < x && p < ((int64_t)1 << 40))
        p <<= 1;
    return p;
}

/* ------------------------------------------------------------ table */

/* Unroll factors a reusable engine may use: 1, 2, 3, 4, 6, 8, 12, 16, ...
 * (powers of two and three times powers of two, as array partitioning
 * factors usually are), up to max and the PE budget, ascending. */
static int factor_list(int64_t max, int64_t budget, int64_t *out)
{
    int n = 0;
    for (int64_t p = 1; p <= max && p <= budget && n < 62; p <<= 1) {
        out[n++] = p;
        if (3 * p <= max && 3 * p <= budget)
            out[n++] = 3 * p;
    }
    /* keep ascending: 1, 3?, 2 ... -> sort */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            int64_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* 1 when x has a factor three (at most one dimension of a shape may) */
static int threes(int64_t x)
{
    return x % 3 == 0;
}

static int shape_cmp(const void *a, const void *b)
{
    const PlanShape *x = a, *y = b;
    int px = plan_shape_pes(*x), py = plan_shape_pes(*y);
    if (px != py)
        return px < py ? -1 : 1;
    if (x->pa != y->pa)
        return x->pa < y->pa ? -1 : 1;
    if (x->pb != y->pb)
        return x->pb < y->pb ? -1 : 1;
    return x->pp < y->pp ? -1 : x->pp > y->pp;
}

static void family_shapes(const Plan *p, PlanKind fam, int max_pes, PlanSemlTable *t)
{
    int64_t ma = 1, mb = 1, mp = 1;
    for (int i = 0; i < p->n_units; i++) {
        const PlanUnit *u = &p->units[i];
        if (plan_seml_family(u->kind) != fam)
            continue;
        if (u->loops.a > ma) ma = u->loops.a;
        if (u->loops.b > mb) mb = u->loops.b;
        if (u->loops.p > mp) mp = u->loops.p;
    }
    ma = next_pow2(ma), mb = next_pow2(mb), mp = next_pow2(mp);
    int64_t fa[64], fb[64], fp[64];
    int na = factor_list(ma, max_pes, fa), nb = factor_list(mb, max_pes, fb), np = factor_list(mp, max_pes, fp);
    int cap = 64, n = 0;
    PlanShape *v = malloc(sizeof *v * (size_t)cap);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb && fa[i] * fb[j] <= max_pes; j++)
            for (int k = 0; k < np && fa[i] * fb[j] * fp[k] <= max_pes; k++) {
                if (threes(fa[i]) + threes(fb[j]) + threes(fp[k]) > 1)
                    continue;
                if (n == cap)
                    v = realloc(v, sizeof *v * (size_t)(cap *= 2));
                if (!v)
                    abort();
                v[n++] = (PlanShape){(int)fa[i], (int)fb[j], (int)fp[k]};
            }
    qsort(v, (size_t)n, sizeof *v, shape_cmp);
    t->shapes[fam] = v;
    t->n_shapes[fam] = n;
}

/* Shape x is dominated by y (same PEs) when y is at least as fast on every
 * unit of the family and has at least as many filter lanes (fewer DRAM
 * re-reads). Dropping dominated shapes keeps every optimum, for any subset
 * of the family's units, and makes each split's search much smaller. */
static bool dominated(const Plan *p, const PlanSemlTable *t, PlanKind fam, int x, int y)
{
    const PlanShape *sx = &t->shapes[fam][x], *sy = &t->shapes[fam][y];
    if (sy->pa < sx->pa)
        return false;
    bool strict = sy->pa > sx->pa;
    for (int i = 0; i < p->n_units; i++) {
        if (plan_seml_family(p->units[i].kind) != fam)
            continue;
        if (t->row[i][y] > t->row[i][x])
            return false;
        strict |= t->row[i][y] < t->row[i][x];
    }
    return strict || y < x;
}

static void prune_family(const Plan *p, PlanSemlTable *t, PlanKind fam)
{
    int n = t->n_shapes[fam];
    char *drop = calloc((size_t)n + 1, 1);
    if (!drop)
        abort();
    for (int lo = 0, hi; lo < n; lo = hi) {
        int pes = plan_shape_pes(t->shapes[fam][lo]);
        for (hi = lo; hi < n && plan_shape_pes(t->shapes[fam][hi]) == pes; hi++)
            ;
        for (int x = lo; x < hi; x++)
            for (int y = lo; y < hi && !drop[x]; y++)
                if (y != x && !drop[y] && dominated(p, t, fam, x, y))
                    drop[x] = 1;
    }
    int m = 0;
    for (int x = 0; x < n; x++) {
        if (drop[x])
            continue;
        t->shapes[fam][m] = t->shapes[fam][x];
        for (int i = 0; i < p->n_units; i++)
            if (plan_seml_family(p->units[i].kind) == fam)
                t->row[i][m] = t->row[i][x];
        m++;
    }
    t->n_shapes[fam] = m;
    free(drop);
}

void plan_seml_table_build(const Plan *p, int max_pes, PlanSemlTable *t)
{
    memset(t, 0, sizeof *t);
    bool present[PLAN_K_COUNT] = {false};
    for (int i = 0; i < p->n_units; i++)
        present[plan_seml_family(p->units[i].kind)] = true;
    for (int f = 0; f < PLAN_K_COUNT; f++)
        if (present[f])
            family_shapes(p, (PlanKind)f, max_pes, t);
    t->row = calloc((size_t)p->n_units + 1, sizeof *t->row);
    if (!t->row)
        abort();
    for (int i = 0; i < p->n_units; i++) {
        const PlanUnit *u = &p->units[i];
        PlanKind f = plan_seml_family(u->kind);
        t->row[i] = malloc(sizeof(int64_t) * (size_t)(t->n_shapes[f] + 1));
        if (!t->row[i])
            abort();
        for (int s = 0; s < t->n_shapes[f]; s++)
            t->row[i][s] = plan_cost_cycles(u, t->shapes[f][s]);
    }
    for (int f = 0; f < PLAN_K_COUNT; f++)
        if (present[f])
            prune_family(p, t, (PlanKind)f);
}

void plan_seml_table_free(const Plan *p, PlanSemlTable *t)
{
    if (t->row)
        for (int i = 0; i < p->n_units; i++)
            free(t->row[i]);
    free(t->row);
    for (int f = 0; f < PLAN_K_COUNT; f++)
        free(t->shapes[f]);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------ DRAM traffic */

static bool tensor_on_chip(const PlanSemlIn *in, int t, int64_t bytes)
{
    if (t < 0)
        return true;
    int prod = in->ti->unit_of[t];
    if (prod < 0)
        return false;                     /* graph input or host output: in DRAM */
    if (prod < in->first)
        return in->boundary_on_chip;      /* from the SESL part */
    return bytes <= in->fm_buf;
}

static bool reuses_input(PlanKind k)
{
    return k == PLAN_K_CONV || k == PLAN_K_PWCONV || k == PLAN_K_FC;
}

/* weights with the input map in DRAM: stream the input once per filter tile,
 * or the weights once per input band, whichever moves fewer bytes */
static int64_t weights_and_input(const PlanSemlIn *in, const PlanUnit *u, int pa, bool in_chip)
{
    int64_t w = u->w_bytes, i = u->in_bytes;
    if (in_chip)
        return w;
    if (!reuses_input(u->kind))
        return w + i;
    int64_t band = u->kh * u->win * u->cin * plan_value_bytes(u->bits);
    if (band < in->fm_buf)
        band = in->fm_buf;
    int64_t nbands = plan_cdiv(i, band > 0 ? band : 1);
    int64_t wo = w + i * plan_cdiv(u->loops.a, pa);
    int64_t io = w * nbands + i;
    return wo < io ? wo : io;
}

int64_t plan_seml_unit_bytes(const PlanSemlIn *in, int ui, int pa, bool *in_chip, bool *out_chip)
{
    const PlanUnit *u = &in->p->units[ui];
    bool ic = tensor_on_chip(in, u->in_t, u->in_bytes);
    bool ec = tensor_on_chip(in, u->extra_t, u->extra_bytes);
    bool oc = u->out_bytes <= in->fm_buf;
    int64_t bytes = weights_and_input(in, u, pa, ic);
    if (!ec)
        bytes += u->extra_bytes;
    if (!oc || in->ti->dram_out[u->out_t])
        bytes += u->out_bytes;
    if (in_chip)
        *in_chip = ic;
    if (out_chip)
        *out_chip = oc;
    return bytes;
}

static int64_t mem_cycles(const PlanSemlIn *in, int64_t bytes)
{
    double c = (double)bytes / in->bytes_per_cycle;
    return c >= (double)INF ? INF : (int64_t)(c + 0.999999);
}

/* ------------------------------------------------------------- cache */

/* A small index for each unroll factor 2^k or 3*2^k: DRAM traffic depends on
 * a shape only through its filter lanes pa, so it is computed per key. */
#define NKEYS (4 * MAX_LEVELS)

static int pa_key(int pa)
{
    int three = pa % 3 == 0;
    int k = plan_ilog2_ceil(three ? pa / 3 : pa);
    int key = 2 * k + three;
    return key < NKEYS ? key : NKEYS - 1;
}

/* For one buffer size: every unit's time on every shape assuming its inputs
 * come from SEML layers (memin per unit and key), summed over each family's
 * units from every start index on (suf). A split then only corrects the few
 * units reading tensors from the SESL part. */
typedef struct {
    int64_t fm;
    int64_t *memin;                   /* n_units x NKEYS */
    int64_t *suf[PLAN_K_COUNT];       /* (family units + 1) x n_shapes[f]: row k sums units k.. */
} SumSet;

struct PlanSemlCache {
    const Plan *p;
    const PlanSemlTable *tab;
    const PlanTensorInfo *ti;
    double bpc;
    int *key[PLAN_K_COUNT];           /* per shape */
    int *first[PLAN_K_COUNT];         /* per split: index of its first SEML unit among the family's */
    int n_fam_units[PLAN_K_COUNT];
    SumSet *sets;
    int n, cap;
};

PlanSemlCache *plan_seml_cache_new(const Plan *p, const PlanSemlTable *tab, const PlanTensorInfo *ti, double bpc)
{
    PlanSemlCache *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->p = p;
    c->tab = tab;
    c->ti = ti;
    c->bpc = bpc;
    for (int f = 0; f < PLAN_K_COUNT; f++) {
        c->key[f] = malloc(sizeof(int) * (size_t)(tab->n_shapes[f] + 1));
        c->first[f] = malloc(sizeof(int) * (size_t)(p->n_units + 1));
        if (!c->key[f] || !c->first[f])
            abort();
        for (int j = 0; j < tab->n_shapes[f]; j++)
            c->key[f][j] = pa_key(tab->shapes[f][j].pa);
        int k = 0;
        for (int u = 0; u < p->n_units; u++)
            if (plan_seml_family(p->units[u].kind) == (PlanKind)f)
                k++;
        c->n_fam_units[f] = k;
        for (int u = p->n_units; u >= 0; u--) {   /* first[u] = family units before u */
            if (u < p->n_units && plan_seml_family(p->units[u].kind) == (PlanKind)f)
                k--;
            c->first[f][u] = k;
        }
    }
    return c;
}

void plan_seml_cache_free(PlanSemlCache *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++) {
        free(c->sets[i].memin);
        for (int f = 0; f < PLAN_K_COUNT; f++)
            free(c->sets[i].suf[f]);
    }
    for (int f = 0; f < PLAN_K_COUNT; f++) {
        free(c->key[f]);
        free(c->first[f]);
    }
    free(c->sets);
    free(c);
}

static void mem_keys(const PlanSemlIn *in, int ui, int64_t *out)
{
    for (int k = 0; k < NKEYS; k++)
        out[k] = -1;
    PlanKind f = plan_seml_family(in->p->units[ui].kind);
    for (int j = 0; j < in->tab->n_shapes[f]; j++) {
        int pa = in->tab->shapes[f][j].pa, k = pa_key(pa);
        if (out[k] < 0)
            out[k] = mem_cycles(in, plan_seml_unit_bytes(in, ui, pa, NULL, NULL));
    }
}

static void sumset_build(PlanSemlCache *c, SumSet *ss, int64_t fm)
{
    const Plan *p = c->p;
    int n = p->n_units;
    PlanSemlIn in = {p, c->tab, c, c->ti, NULL, 0, fm, false, c->bpc, 0};
    ss->fm = fm;
    ss->memin = malloc(sizeof(int64_t) * (size_t)n * NKEYS + 1);
    if (!ss->memin)
        abort();
    for (int u = 0; u < n; u++)
        mem_keys(&in, u, ss->memin + (size_t)u * NKEYS);
    for (int f = 0; f < PLAN_K_COUNT; f++) {
        int ns = c->tab->n_shapes[f], k = c->n_fam_units[f];
        ss->suf[f] = calloc((size_t)(k + 1) * (size_t)(ns ? ns : 1), sizeof(int64_t));
        if (!ss->suf[f])
            abort();
        for (int u = n - 1; u >= 0; u--) {
            if (plan_seml_family(p->units[u].kind) != (PlanKind)f)
                continue;
            k--;
            int64_t *dst = ss->suf[f] + (size_t)k * ns, *src = dst + ns;
            const int64_t *mem = ss->memin + (size_t)u * NKEYS;
            for (int j = 0; j < ns; j++) {
                int64_t cc = c->tab->row[u][j], m = mem[c->key[f][j]];
                int64_t t = cc > m ? cc : m;
                dst[j] = src[j] + (t > CAP ? CAP : t);
            }
        }
    }
}

static const SumSet *cache_get(PlanSemlCache *c, int64_t fm)
{
    for (int i = 0; i < c->n; i++)
        if (c->sets[i].fm == fm)
            return &c->sets[i];
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        c->sets = realloc(c->sets, sizeof *c->sets * (size_t)c->cap);
        if (!c->sets)
            abort();
    }
    SumSet *ss = &c->sets[c->n++];
    memset(ss, 0, sizeof *ss);
    sumset_build(c, ss, fm);
    return ss;
}

/* ------------------------------------------------------------ solver */

typedef struct {
    int pes;
    int cost;            /* PE quanta of the knapsack (set by knapsack) */
    int64_t time;
    int s1, s2;          /* shape indices in the family; s2 < 0: one engine */
} Opt;

struct PlanSeml {
    PlanSemlIn in;
    int grid, nq;
    int n_fam;
    PlanKind fam[PLAN_K_COUNT];
    Opt *opt[PLAN_K_COUNT];
    int n_opt[PLAN_K_COUNT];
    int64_t *dp;         /* (n_fam+1) x nq */
    short *arg;          /* n_fam x nq */
    int64_t base;        /* per-layer set-up of every SEML layer */
};

/* One family's view of this split: its units, their times per shape. */
typedef struct {
    const PlanSemlIn *in;
    const SumSet *ss;
    PlanKind f;
    int n_units, n_shapes;
    int *units;
    int64_t *memb;       /* NKEYS DRAM cycles per corrected unit, with this split's inputs */
    int *corr;           /* per unit: its row in memb when it reads a tensor from the SESL part, else -1 */
    int n_corr;
    int64_t *tsum;       /* per shape: the family's time on it */
    const PlanShape *shapes;
    const int *key;
    int n_lev;           /* shapes are sorted by PEs: level l is [lo[l], hi[l]) */
    int lev_pes[2 * MAX_LEVELS], lo[2 * MAX_LEVELS], hi[2 * MAX_LEVELS];
} FamTable;

static void fam_levels(FamTable *ft)
{
    ft->n_lev = 0;
    for (int j = 0; j < ft->n_shapes; j++) {
        int pes = plan_shape_pes(ft->shapes[j]);
        if (ft->n_lev && ft->lev_pes[ft->n_lev - 1] == pes) {
            ft->hi[ft->n_lev - 1] = j + 1;
            continue;
        }
        if (ft->n_lev == 2 * MAX_LEVELS)
            break;
        ft->lev_pes[ft->n_lev] = pes;
        ft->lo[ft->n_lev] = j;
        ft->hi[ft->n_lev++] = j + 1;
    }
}

/* level index of a PE count, -1 if no single engine has it */
static int fam_level(const FamTable *ft, int pes)
{
    for (int l = 0; l < ft->n_lev; l++)
        if (ft->lev_pes[l] == pes)
            return l;
    return -1;
}

/* time of the k-th unit of the family on shape j */
static inline int64_t unit_time(const FamTable *ft, int k, int j)
{
    int ui = ft->units[k];
    int64_t cc = ft->in->tab->row[ui][j];
    const int64_t *mem = ft->corr[k] >= 0 ? ft->memb + (size_t)ft->corr[k] * NKEYS
                                          : ft->ss->memin + (size_t)ui * NKEYS;
    int64_t m = mem[ft->key[j]];
    int64_t t = cc > m ? cc : m;
    return t > CAP ? CAP : t;
}

static bool reads_sesl(const PlanSemlIn *in, const PlanUnit *u)
{
    int ts[2] = {u->in_t, u->extra_t};
    for (int k = 0; k < 2; k++) {
        int prod = ts[k] >= 0 ? in->ti->unit_of[ts[k]] : -1;
        if (prod >= 0 && prod < in->first)
            return true;
    }
    return false;
}

static void fam_table(const PlanSeml *s, PlanKind f, FamTable *ft)
{
    const PlanSemlIn *in = &s->in;
    const Plan *p = in->p;
    int n = p->n_units;
    memset(ft, 0, sizeof *ft);
    ft->in = in;
    ft->ss = cache_get(in->cache, in->fm_buf);
    ft->f = f;
    ft->n_shapes = in->tab->n_shapes[f];
    ft->shapes = in->tab->shapes[f];
    ft->key = in->cache->key[f];
    ft->units = malloc(sizeof(int) * (size_t)(n + 1));
    ft->corr = malloc(sizeof(int) * (size_t)(n + 1));
    ft->tsum = malloc(sizeof(int64_t) * (size_t)(ft->n_shapes + 1));
    if (!ft->units || !ft->corr || !ft->tsum)
        abort();
    for (int i = in->first; i < n; i++)
        if (plan_seml_family(p->units[i].kind) == f)
            ft->units[ft->n_units++] = i;
    const int64_t *suf = ft->ss->suf[f] + (size_t)in->cache->first[f][in->first] * ft->n_shapes;
    for (int j = 0; j < ft->n_shapes; j++)
        ft->tsum[j] = suf[j];
    int n_corr = 0;
    for (int k = 0; k < ft->n_units; k++) {
        ft->corr[k] = -1;
        n_corr += reads_sesl(in, &p->units[ft->units[k]]);
    }
    ft->memb = malloc(sizeof(int64_t) * (size_t)(n_corr + 1) * NKEYS);
    if (!ft->memb)
        abort();
    for (int k = 0; k < ft->n_units; k++) {
        if (!reads_sesl(in, &p->units[ft->units[k]]))
            continue;
        for (int j = 0; j < ft->n_shapes; j++)
            ft->tsum[j] -= unit_time(ft, k, j);
        ft->corr[k] = ft->n_corr;
        mem_keys(in, ft->units[k], ft->memb + (size_t)ft->n_corr++ * NKEYS);
        for (int j = 0; j < ft->n_shapes; j++)
            ft->tsum[j] += unit_time(ft, k, j);
    }
    fam_levels(ft);
}

static void fam_free(FamTable *ft)
{
    free(ft->units);
    free(ft->corr);
    free(ft->memb);
    free(ft->tsum);
}

static int64_t pair_time(const FamTable *ft, int a, int b)
{
    int64_t sum = 0;
    for (int k = 0; k < ft->n_units; k++) {
        int64_t x = unit_time(ft, k, a), y = unit_time(ft, k, b);
        sum += x < y ? x : y;
        if (sum >= INF)
            return INF;
    }
    return sum;
}

/* the shapes that are the best at PE level `pes` for at least one unit */
static int level_candidates(const FamTable *ft, int pes, int *out)
{
    int n = 0, l = fam_level(ft, pes);
    if (l < 0)
        return 0;
    for (int k = 0; k < ft->n_units && n < PAIR_CANDIDATES; k++) {
        int best = -1;
        int64_t bt = INF;
        for (int j = ft->lo[l]; j < ft->hi[l]; j++) {
            int64_t t = unit_time(ft, k, j);
            if (best < 0 || t < bt) {
                best = j;
                bt = t;
            }
        }
        bool dup = best < 0;
        for (int i = 0; i < n && !dup; i++)
            dup = out[i] == best;
        if (!dup)
            out[n++] = best;
    }
    return n;
}

static Opt best_single(const FamTable *ft, int pes)
{
    Opt o = {pes, 0, INF, -1, -1};
    int l = fam_level(ft, pes);
    for (int j = l < 0 ? 0 : ft->lo[l]; l >= 0 && j < ft->hi[l]; j++)
        if (ft->tsum[j] < o.time) {
            o.time = ft->tsum[j];
            o.s1 = j;
        }
    return o;
}

/* two engines of pes/2 each */
static Opt best_pair(const FamTable *ft, int pes)
{
    Opt o = {pes, 0, INF, -1, -1};
    int cand[PAIR_CANDIDATES];
    int n = pes >= 2 && pes % 2 == 0 ? level_candidates(ft, pes / 2, cand) : 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int64_t t = pair_time(ft, cand[i], cand[j]);
            if (t < o.time) {
                o.time = t;
                o.s1 = cand[i];
                o.s2 = cand[j];
            }
        }
    return o;
}

/* distinct PE counts of single engines and of pairs, ascending */
static int pe_levels(const FamTable *ft, int max_pes, int64_t *out)
{
    int n = 0;
    for (int l = 0; l < ft->n_lev; l++)
        for (int twice = 0; twice < 2; twice++) {
            int64_t v = (int64_t)ft->lev_pes[l] * (twice ? 2 : 1);
            bool dup = v > max_pes;
            for (int k = 0; k < n && !dup; k++)
                dup = out[k] == v;
            if (!dup && n < 2 * MAX_LEVELS)
                out[n++] = v;
        }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            int64_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

static void family_options(PlanSeml *s, int fi)
{
    FamTable ft;
    fam_table(s, s->fam[fi], &ft);
    Opt *v = malloc(sizeof(Opt) * 2 * MAX_LEVELS);
    if (!v)
        abort();
    int n = 0;
    int64_t best = INF;
    int64_t levels[2 * MAX_LEVELS];
    int nl = pe_levels(&ft, s->in.max_pes, levels);
    for (int l = 0; l < nl && n < 2 * MAX_LEVELS; l++) {
        Opt a = best_single(&ft, (int)levels[l]), b = best_pair(&ft, (int)levels[l]);
        Opt o = b.time < a.time ? b : a;
        if (o.time < best) {   /* more PEs that do not help are never chosen */
            v[n++] = o;
            best = o.time;
        }
    }
    s->opt[fi] = v;
    s->n_opt[fi] = n;
    fam_free(&ft);
}
/* dp row i+1 = least time of families 0..i within q PE quanta. The last
 * family is not tabulated: each query picks its option directly. */
static void knapsack(PlanSeml *s)
{
    int nq = s->nq, rows = s->n_fam > 0 ? s->n_fam : 1;
    s->dp = malloc(sizeof(int64_t) * (size_t)rows * (size_t)nq);
    s->arg = malloc(sizeof(short) * (size_t)rows * (size_t)nq);
    if (!s->dp || !s->arg)
        abort();
    for (int q = 0; q < nq; q++)
        s->dp[q] = 0;
    for (int i = 0; i < s->n_fam; i++)
        for (int o = 0; o < s->n_opt[i]; o++)
            s->opt[i][o].cost = (int)plan_cdiv(s->opt[i][o].pes, s->grid);
    for (int i = 0; i + 1 < s->n_fam; i++) {
        const int64_t *prev = s->dp + (size_t)i * nq;
        int64_t *cur = s->dp + (size_t)(i + 1) * nq;
        short *arg = s->arg + (size_t)i * nq;
        for (int q = 0; q < nq; q++) {
            cur[q] = INF;
            arg[q] = -1;
        }
        for (int o = 0; o < s->n_opt[i]; o++) {
            int c = s->opt[i][o].cost;
            int64_t to = s->opt[i][o].time;
            for (int q = c; q < nq; q++) {
                int64_t t = prev[q - c] >= INF ? INF : prev[q - c] + to;
                if (t < cur[q]) {
                    cur[q] = t;
                    arg[q] = (short)o;
                }
            }
        }
    }
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

PlanSeml *plan_seml_new(const PlanSemlIn *in)
{
    PlanSeml *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->in = *in;
    int max_pes = in->max_pes > 0 ? in->max_pes : 1;
    s->in.max_pes = max_pes;
    s->grid = (int)plan_cdiv(max_pes, 1024);
    s->nq = max_pes / s->grid + 1;
    bool present[PLAN_K_COUNT] = {false};
    for (int i = in->first; i < in->p->n_units; i++) {
        present[plan_seml_family(in->p->units[i].kind)] = true;
        s->base += PLAN_SEML_SETUP;
    }
    for (int f = 0; f < PLAN_K_COUNT; f++)
        if (present[f])
            s->fam[s->n_fam++] = (PlanKind)f;
    for (int i = 0; i < s->n_fam; i++)
        family_options(s, i);
    knapsack(s);
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
    free(s);
}

static int column(const PlanSeml *s, int q)
{
    if (q < 0)
        return -1;
    int c = q / s->grid;
    return c >= s->nq ? s->nq - 1 : c;
}

int64_t plan_seml_time(const PlanSeml *s, int q)
{
    if (s->n_fam == 0)
        return 0;
    int c = column(s, q);
    if (c < 0)
        return INT64_MAX;
    int64_t t;
    last_pick(s, c, &t);
    return t >= INF ? INT64_MAX : t + s->base;
}

void plan_seml_choice(const PlanSeml *s, int q, PlanSemlChoice *ch)
{
    memset(ch, 0, sizeof *ch);
    int c = column(s, q);
    int64_t total;
    for (int i = s->n_fam - 1; i >= 0 && c >= 0; i--) {
        int o = i == s->n_fam - 1 ? last_pick(s, c, &total) : s->arg[(size_t)i * s->nq + c];
        if (o < 0)
            return;
        const Opt *op = &s->opt[i][o];
        PlanKind f = s->fam[i];
        ch->kind[ch->n_engines] = f;
        ch->shape[ch->n_engines++] = s->in.tab->shapes[f][op->s1];
        if (op->s2 >= 0) {
            ch->kind[ch->n_engines] = f;
            ch->shape[ch->n_engines++] = s->in.tab->shapes[f][op->s2];
        }
        c -= op->cost;
    }
}
