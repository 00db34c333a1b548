/* memory.c - per-layer on-chip memory and DRAM traffic under the classic
 * buffering policies, and the best per-layer mix under an on-chip budget.
 *
 * Why: before any engine exists, a designer wants to know which layers can
 * keep what on chip. For every layer this tabulates the bytes held on chip
 * and the bytes moved to/from DRAM per frame for each combination of
 *   filters:      all (every layer's weights resident), layer (this layer's),
 *                 tile (pa filters at a time, pa from the hybrid plan's engine)
 *   activations:  layer (whole input and output maps), tile (K input rows and
 *                 one output row)
 *   prefetch:     with or without double buffering of the next weights / tile
 *                 (more memory, same traffic, the transfer hides behind compute)
 * then the homogeneous plans (one policy everywhere: memory = the largest
 * layer's need, traffic = the sum) and a heterogeneous plan that picks, per
 * layer, the least traffic whose memory fits the budget (all filters resident
 * is decided for the whole network). Finally, the word
 * width at which each layer's weights and maps would all fit the budget.
 */
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

PlanMemConfig plan_mem_config(int idx)
{
    PlanMemConfig c;
    c.prefetch = idx % 2;
    idx /= 2;
    c.a = (PlanActPolicy)(idx % PLAN_A_COUNT);
    c.f = (PlanFilterPolicy)(idx / PLAN_A_COUNT);
    return c;
}

const char *plan_mem_config_name(int idx)
{
    static const char *names[PLAN_MEM_CONFIGS] = {
        "all/layer", "all/layer+pf", "all/tile", "all/tile+pf",
        "layer/layer", "layer/layer+pf", "layer/tile", "layer/tile+pf",
        "tile/layer", "tile/layer+pf", "tile/tile", "tile/tile+pf",
    };
    return idx >= 0 && idx < PLAN_MEM_CONFIGS ? names[idx] : "?";
}

typedef struct {
    int64_t w, wt, i, it, o, ot, ext;   /* bytes: weights, tile; input, tile; output, tile; unavoidable */
    int64_t nf, na;                     /* filter tiles, activation tiles */
    int64_t w_next, w_all;
} LayerBytes;

static int filter_tile(const Plan *p, int ui)
{
    const PlanDesign *d = &p->hybrid;
    if (d->fits && d->map && d->engines)
        return d->engines[d->map[ui].engine].shape.pa;
    return 16;
}

/* w_all: every unit's weights, summed once by the caller (per layer it
 * made this analysis quadratic in the units) */
static void layer_bytes(const Plan *p, int ui, int64_t w_all, LayerBytes *b)
{
    const PlanUnit *u = &p->units[ui];
    int vb = plan_value_bytes(u->bits);
    int64_t a = u->loops.a > 0 ? u->loops.a : 1;
    int64_t pa = filter_tile(p, ui);
    if (pa > a)
        pa = a;
    b->w = u->w_bytes;
    b->wt = u->w_bytes * pa / a;
    b->i = u->in_bytes + u->extra_bytes;
    b->it = u->geo.kh * u->geo.w * u->geo.c * vb;
    if (b->it > b->i)
        b->it = b->i;
    b->o = u->out_bytes;
    b->ot = u->geo.wo * u->geo.f * vb;
    if (b->ot > b->o)
        b->ot = b->o;
    b->nf = plan_cdiv(a, pa);
    b->na = u->geo.ho > 0 ? u->geo.ho : 1;
    b->ext = (u->in_dram ? u->in_bytes : 0) + (u->out_dram ? u->out_bytes : 0);
    b->w_next = ui + 1 < p->n_units ? p->units[ui + 1].w_bytes : 0;
    b->w_all = w_all;
}

static int64_t onchip_of(const LayerBytes *b, PlanMemConfig c)
{
    int64_t f = c.f == PLAN_F_ALL ? b->w_all : c.f == PLAN_F_LAYER ? b->w + (c.prefetch ? b->w_next : 0)
                                                                   : b->wt * (c.prefetch ? 2 : 1);
    int64_t a = c.a == PLAN_A_LAYER ? b->i + b->o : b->it * (c.prefetch ? 2 : 1) + b->ot;
    return f + a;
}

static int64_t dram_of(const LayerBytes *b, PlanMemConfig c)
{
    if (c.a == PLAN_A_LAYER)
        return (c.f == PLAN_F_ALL ? 0 : b->w) + b->ext;
    if (c.f != PLAN_F_TILE)
        return (c.f == PLAN_F_ALL ? 0 : b->w) + b->i + b->o;
    int64_t wo = b->w + b->i * b->nf, io = b->w * b->na + b->i;
    return (wo < io ? wo : io) + b->o;
}

/* least traffic that fits; else the least memory. "All filters" is a
 * whole-network decision: the mix either keeps every layer's weights resident
 * (first = 0) or none (first skips those configs). */
static void choose(PlanMemLayer *L, int64_t budget, int first)
{
    int best = -1;
    for (int c = first; c < PLAN_MEM_CONFIGS; c++) {
        if (L->onchip[c] > budget)
            continue;
        if (best < 0 || L->dram[c] < L->dram[best] ||
            (L->dram[c] == L->dram[best] && L->onchip[c] < L->onchip[best]))
            best = c;
    }
    L->chosen_fits = best >= 0;
    if (best < 0) {
        best = first;
        for (int c = best + 1; c < PLAN_MEM_CONFIGS; c++)
            if (L->onchip[c] < L->onchip[best])
                best = c;
    }
    L->chosen = best;
}

static int fit_bits(const PlanUnit *u, int64_t budget)
{
    int vb = plan_value_bytes(u->bits);
    int64_t elems = (u->w_bytes + u->in_bytes + u->extra_bytes + u->out_bytes) / vb;
    if (elems <= 0)
        return 16;
    int64_t bits = budget * 8 / elems;
    return bits > 16 ? 16 : (int)bits;
}

/* the per-layer mix, with all filters resident or without, whichever moves
 * fewer bytes with every layer fitting (or, failing that, fits more layers) */
static void mix(const Plan *p, PlanMemory *m, int first, int64_t *onchip, int64_t *dram, int *fits)
{
    *onchip = *dram = 0;
    *fits = 0;
    for (int i = 0; i < p->n_units; i++) {
        PlanMemLayer *L = &m->layers[i];
        choose(L, m->budget, first);
        if (L->onchip[L->chosen] > *onchip)
            *onchip = L->onchip[L->chosen];
        *dram += L->dram[L->chosen];
        *fits += L->chosen_fits;
    }
}

static void hetero(const Plan *p, PlanMemory *m)
{
    int64_t on_all, dr_all, on_some, dr_some;
    int fit_all, fit_some;
    mix(p, m, 0, &on_all, &dr_all, &fit_all);
    mix(p, m, 2 * PLAN_A_COUNT, &on_some, &dr_some, &fit_some);
    bool all = fit_all > fit_some || (fit_all == fit_some && dr_all < dr_some);
    if (all)
        mix(p, m, 0, &on_all, &dr_all, &fit_all);
    m->hetero_onchip = all ? on_all : on_some;
    m->hetero_dram = all ? dr_all : dr_some;
}

void plan_memory_analyse(const Plan *p, PlanMemory *m)
{
    memset(m, 0, sizeof *m);
    m->budget = p->opt.mem_budget > 0 ? p->opt.mem_budget
                                      : ((int64_t)p->bram_cap * 18432 + (int64_t)p->uram_cap * 294912) / 8;
    m->layers = calloc((size_t)p->n_units + 1, sizeof *m->layers);
    if (!m->layers)
        abort();
    int64_t w_all = 0;
    for (int k = 0; k < p->n_units; k++)
        w_all += p->units[k].w_bytes;
    for (int i = 0; i < p->n_units; i++) {
        PlanMemLayer *L = &m->layers[i];
        LayerBytes b;
        layer_bytes(p, i, w_all, &b);
        for (int c = 0; c < PLAN_MEM_CONFIGS; c++) {
            L->onchip[c] = onchip_of(&b, plan_mem_config(c));
            L->dram[c] = dram_of(&b, plan_mem_config(c));
            if (L->onchip[c] > m->homo_onchip[c])
                m->homo_onchip[c] = L->onchip[c];
            m->homo_dram[c] += L->dram[c];
        }
        L->fit_bits = fit_bits(&p->units[i], m->budget);
    }
    hetero(p, m);
}

void plan_memory_free(PlanMemory *m)
{
    free(m->layers);
    m->layers = NULL;
}
