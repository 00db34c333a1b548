/* sesl.c - the shapes worth considering for a dedicated (SESL) engine.
 *
 * Why a frontier: the search asks, again and again, "how few PEs does this
 * stage need to finish a frame in T cycles?". For one unit, only the shapes
 * that give the fewest PEs for some cycle count matter; computing them once
 * (a Pareto frontier of PEs against cycles) turns each question into a binary
 * search. Candidate unroll factors are the smallest ones reaching each
 * distinct ceil(A/pa) (and likewise for B), so non-divisors are allowed and
 * their padding is costed by the ceilings; pixel lanes are added once the
 * channel loops are fully unrolled.
 */
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

/* smallest factors reaching each distinct ceil(n/f): 1, 2, ..., n */
static int factors(int64_t n, int64_t limit, int *out, int cap)
{
    int k = 0;
    if (n < 1)
        n = 1;
    for (int64_t f = 1; f <= n && f <= limit && k < cap;) {
        out[k++] = (int)f;
        int64_t q = plan_cdiv(n, f);
        if (q <= 1)
            break;
        f = plan_cdiv(n, q - 1);
    }
    return k;
}

typedef struct {
    int64_t cycles;
    PlanShape s;
    int bram;
} Slot;

static void consider(Slot *slot, const PlanUnit *u, PlanShape s)
{
    int64_t cyc = plan_cost_cycles(u, s);
    if (slot->cycles && cyc > slot->cycles)
        return;
    if (slot->cycles == cyc) {
        int bram = plan_mem_sesl_weights(u, s).bram + plan_mem_sesl_linebuf(u, s).bram;
        if (bram >= slot->bram)
            return;
        slot->bram = bram;
    } else {
        slot->bram = plan_mem_sesl_weights(u, s).bram + plan_mem_sesl_linebuf(u, s).bram;
    }
    slot->cycles = cyc;
    slot->s = s;
}

static void fill_point(const PlanUnit *u, const PlanDevice *dev, PlanPoint *pt, const Slot *sl)
{
    pt->shape = sl->s;
    pt->pes = plan_shape_pes(sl->s);
    pt->cycles = sl->cycles;
    pt->dsp = plan_engine_dsp(dev, u->kind, u->mul, u->prec, u->bits, pt->pes);
    pt->weights = plan_mem_sesl_weights(u, sl->s);
    pt->linebuf = plan_mem_sesl_linebuf(u, sl->s);
    pt->lut = plan_engine_lut(u->kind, true, u->prec, u->bits, pt->pes); /* memory LUTs come with the buffers */
}

#define MAX_FACTORS 512

struct PlanFrontierScratch {
    int max_pes;
    Slot *slot;
};

PlanFrontierScratch *plan_frontier_scratch_new(int max_pes)
{
    PlanFrontierScratch *s = malloc(sizeof *s);
    if (!s)
        abort();
    s->max_pes = max_pes < 1 ? 1 : max_pes;
    s->slot = malloc(sizeof *s->slot * (size_t)(s->max_pes + 1));
    if (!s->slot)
        abort();
    return s;
}

void plan_frontier_scratch_free(PlanFrontierScratch *s)
{
    if (s)
        free(s->slot);
    free(s);
}

void plan_frontier_build(const PlanUnit *u, const PlanDevice *dev, PlanFrontierScratch *scratch, PlanFrontier *f)
{
    int max_pes = scratch->max_pes;
    Slot *slot = scratch->slot;
    memset(slot, 0, sizeof *slot * (size_t)(max_pes + 1));
    int *fa = malloc(sizeof(int) * MAX_FACTORS * 3);
    if (!fa)
        abort();
    int *fb = fa + MAX_FACTORS, *fp = fb + MAX_FACTORS;
    int na = factors(u->loops.a, max_pes, fa, MAX_FACTORS);
    int nb = factors(u->loops.b, max_pes, fb, MAX_FACTORS);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb && (int64_t)fa[i] * fb[j] <= max_pes; j++)
            consider(&slot[fa[i] * fb[j]], u, (PlanShape){fa[i], fb[j], 1});
    int64_t full = u->loops.a * u->loops.b;
    if (full > 0 && full <= max_pes) {
        int np = factors(u->loops.p, max_pes / full, fp, MAX_FACTORS);
        for (int k = 1; k < np; k++)
            consider(&slot[full * fp[k]], u, (PlanShape){(int)u->loops.a, (int)u->loops.b, fp[k]});
    }
    int n = 0;
    int64_t last = INT64_MAX;
    for (int pe = 1; pe <= max_pes; pe++) {
        if (!slot[pe].cycles || slot[pe].cycles >= last)
            continue;
        slot[n++] = slot[pe];   /* compact in place: n <= pe */
        last = slot[pe].cycles;
    }
    f->pts = malloc(sizeof *f->pts * (size_t)(n + 1));
    if (!f->pts)
        abort();
    for (f->n = 0; f->n < n; f->n++)
        fill_point(u, dev, &f->pts[f->n], &slot[f->n]);
    free(fa);
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
