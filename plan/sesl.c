/* sesl.c - the shapes worth considering for a dedicated (SESL) engine.
 *
 * Why a frontier: the search asks, again and again, "how few PEs does this
 * stage need to finish a frame in T cycles?". For one unit, only the shapes
 * that give the fewest PEs for some cycle count matter; computing them once
 * (a Pareto frontier of PEs against cycles) turns each question into a
 * binary search. Candidate factors are the legal unroll factors of each
 * loop (plan_unroll_legal: divisors of the trip count and m*2^k), the same
 * rule as the reusable engines'; a SESL stream moves one pixel per cycle,
 * so there are no pixel lanes (pp = 1) and a stage never runs faster than
 * its window generator or its pixel count.
 */
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t cycles;
    PlanShape s;
    int bram;
} Slot;

static void consider(Slot *slot, const PlanUnit *u, PlanShape s)
{
    int64_t cyc = plan_cost_sesl(u, s);
    if (slot->cycles && cyc > slot->cycles)
        return;
    int bram = plan_mem_sesl_weights(u, s).bram;
    if (slot->cycles == cyc && bram >= slot->bram)
        return;
    slot->bram = bram;
    slot->cycles = cyc;
    slot->s = s;
}

static void fill_point(const PlanUnit *u, const PlanDevice *dev, PlanPoint *pt, const Slot *sl)
{
    pt->shape = sl->s;
    pt->pes = plan_shape_pes(sl->s);
    pt->cycles = sl->cycles;
    pt->dsp = plan_engine_dsp(dev, u->kind, u->mul, u->prec, u->bits, sl->s);
    pt->weights = plan_mem_sesl_weights(u, sl->s);
    pt->lut = plan_engine_lut(u->kind, true, u->prec, u->bits, pt->pes); /* memory LUTs come with the buffers */
}

#define MAX_FACTORS 4096

struct PlanFrontierScratch {
    int max_pes;
    Slot *slot;      /* per PE count, all clear between units */
    int *fa, *fb;
    int *used, n_used;   /* PE counts whose slot was filled */
};

PlanFrontierScratch *plan_frontier_scratch_new(int max_pes)
{
    PlanFrontierScratch *s = malloc(sizeof *s);
    if (!s)
        abort();
    s->max_pes = max_pes < 1 ? 1 : max_pes;
    s->slot = calloc((size_t)s->max_pes + 1, sizeof *s->slot);
    s->fa = malloc(sizeof(int) * 2 * MAX_FACTORS);
    s->used = malloc(sizeof(int) * ((size_t)s->max_pes + 1));
    s->n_used = 0;
    if (!s->slot || !s->fa || !s->used)
        abort();
    s->fb = s->fa + MAX_FACTORS;
    return s;
}

void plan_frontier_scratch_free(PlanFrontierScratch *s)
{
    if (s) {
        free(s->slot);
        free(s->fa);
        free(s->used);
    }
    free(s);
}

/* the reduction loop a stage unrolls by pb: none for element-wise and
 * global pools (their loop runs over channels only) */
static int64_t reduction(const PlanUnit *u)
{
    if (u->kind == PLAN_K_ELTWISE || u->op == PLAN_SEML_GPOOL)
        return 1;
    return u->loops.b;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* Pareto points, into out: the slots with fewer cycles than every cheaper
 * one. Only the PE counts some shape reached are visited (and cleared for
 * the next unit), so a unit costs its shapes, not the PE budget: a deep
 * network's frontiers are linear in its units. */
static int compact(PlanFrontierScratch *sc, Slot *out)
{
    int n = 0;
    int64_t last = INT64_MAX;
    qsort(sc->used, (size_t)sc->n_used, sizeof *sc->used, cmp_int);
    for (int k = 0; k < sc->n_used; k++) {
        Slot *s = &sc->slot[sc->used[k]];
        if (s->cycles && s->cycles < last) {
            out[n++] = *s;
            last = s->cycles;
        }
        memset(s, 0, sizeof *s);
    }
    sc->n_used = 0;
    return n;
}

void plan_frontier_build(const PlanUnit *u, const PlanDevice *dev, PlanFrontierScratch *scratch, PlanFrontier *f)
{
    int max_pes = scratch->max_pes;
    Slot *slot = scratch->slot;
    int na = plan_unroll_factors(u->loops.a, max_pes, scratch->fa, MAX_FACTORS);
    int nb = plan_unroll_factors(reduction(u), max_pes, scratch->fb, MAX_FACTORS);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb && (int64_t)scratch->fa[i] * scratch->fb[j] <= max_pes; j++) {
            int pe = scratch->fa[i] * scratch->fb[j];
            if (!slot[pe].cycles)
                scratch->used[scratch->n_used++] = pe;
            consider(&slot[pe], u, (PlanShape){scratch->fa[i], scratch->fb[j], 1});
        }
    Slot *pts = malloc(sizeof *pts * (size_t)(scratch->n_used + 1));
    if (!pts)
        abort();
    int n = compact(scratch, pts);
    f->pts = malloc(sizeof *f->pts * (size_t)(n + 1));
    if (!f->pts)
        abort();
    for (f->n = 0; f->n < n; f->n++)
        fill_point(u, dev, &f->pts[f->n], &pts[f->n]);
    free(pts);
}

void plan_frontier_free(PlanFrontier *f)
{
    free(f->pts);
    f->pts = NULL;
    f->n = 0;
}

int plan_frontier_pick(const PlanFrontier *f, int64_t t)
{
    int lo = 0, hi = f->n - 1, best = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (f->pts[mid].cycles <= t) {
            best = mid;
            hi = mid - 1;
        } else {
            lo = mid + 1;
        }
    }
    return best;
}
