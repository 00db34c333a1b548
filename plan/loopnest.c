/* loopnest.c - cycles of the accelerator's loops (see loopnest.h). Each
 * function names the template loop it mirrors; when a template changes,
 * its function here changes in the same commit, and the C simulation's
 * counters (cycles.json) check that they still agree. */
#include "loopnest.h"

#include "templates/hls/common/o2h_desc.h"
#include "templates/hls/common/o2h_timing.h"

static int64_t cdiv(int64_t a, int64_t b)
{
    return b <= 0 ? 0 : (a + b - 1) / b;
}

static int64_t max2(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t max3(int64_t a, int64_t b, int64_t c)
{
    return max2(max2(a, b), c);
}

int64_t plan_ln_loop(int64_t iters, int64_t depth)
{
    return iters + depth + O2H_RESTART;
}

int64_t plan_ln_burst(int64_t bytes, int beat)
{
    return plan_ln_loop(cdiv(bytes, beat), O2H_DEPTH_BURST);
}

/* ---------------------------------------------------------------- SESL */

int64_t plan_ln_sesl_window(const PlanGeom *g)
{
    return plan_ln_loop((g->h + g->pt + g->pb) * (g->w + g->pl + g->pr), O2H_DEPTH_WINDOW);
}

int64_t plan_ln_sesl_mac(int64_t pixels, int64_t f, int64_t b, int pa, int pb)
{
    return plan_ln_loop(pixels * cdiv(f, pa) * cdiv(b, pb), O2H_DEPTH_MAC(pb));
}

int64_t plan_ln_sesl_pool(const PlanGeom *g, bool global, int pa, int pb)
{
    int64_t nc = cdiv(g->c, pa);
    if (global)
        return plan_ln_loop(g->h * g->w * nc, O2H_DEPTH_POOL(1)) + plan_ln_loop(nc, O2H_DEPTH_ELT);
    return plan_ln_loop(g->ho * g->wo * nc * cdiv(g->kh * g->kw, pb), O2H_DEPTH_POOL(pb));
}

int64_t plan_ln_sesl_eltwise(int64_t pixels, int64_t c, int pa)
{
    return plan_ln_loop(pixels * cdiv(c, pa), O2H_DEPTH_ELT);
}

int64_t plan_ln_sesl_mover(int64_t pixels, int64_t c, int beat)
{
    return plan_ln_loop(pixels * cdiv(c, beat), O2H_DEPTH_BURST);
}

int64_t plan_ln_sesl_dup(int64_t pixels)
{
    return plan_ln_loop(pixels, O2H_DEPTH_COPY);
}

/* ---------------------------------------------------------------- SEML */

int64_t plan_ln_desc_fetch(int beat)
{
    return plan_ln_burst(O2H_DESC_WORDS * 4, beat);
}

static bool global_pool(const PlanSemlLayer *l)
{
    return l->op == PLAN_SEML_GPOOL;
}

/* input rows a band of r output rows reads at most (an inner band) */
static int64_t band_in_rows(const PlanGeom *g, int64_t r)
{
    int64_t n = (r - 1) * g->sh + (g->kh - 1) * g->dh + 1;
    return n < g->h ? n : g->h;
}

int64_t plan_ln_band_rows(const PlanSemlLayer *l, const PlanSemlEngine *e)
{
    const PlanGeom *g = &l->g;
    if (l->op == PLAN_SEML_ELT || global_pool(l)) {
        int64_t r = g->w * g->c > 0 ? e->ibuf / (g->w * g->c) : 0;
        if (global_pool(l) && e->obuf < g->c)
            return 0;
        return r < g->h ? r : g->h;
    }
    int64_t best = 0;
    for (int64_t lo = 1, hi = g->ho; lo <= hi;) {  /* the fit is monotonic in r */
        int64_t r = lo + (hi - lo) / 2;
        bool fits = band_in_rows(g, r) * g->w * g->c <= e->ibuf && r * g->wo * g->f <= e->obuf;
        if (fits)
            best = r, lo = r + 1;
        else
            hi = r - 1;
    }
    return best;
}

int64_t plan_ln_tile_bytes(const PlanSemlLayer *l, const PlanSemlEngine *e)
{
    int64_t b = l->g.c / (l->g.g > 0 ? l->g.g : 1) * l->g.kh * l->g.kw;
    return cdiv((int64_t)e->pa * b + 9 * (int64_t)e->pa, e->beat) * e->beat;
}

int64_t plan_ln_record_bytes(const PlanSemlLayer *l)
{
    if (l->op == PLAN_SEML_DW)
        return l->g.f * l->g.kh * l->g.kw + 9 * l->g.f;
    return l->avg ? 5 * l->rq_n : 0;
}

/* rows [o0, o1) of band b */
static void band(const PlanSemlLayer *l, int64_t rows, int64_t b, int64_t *o0, int64_t *o1)
{
    int64_t last = global_pool(l) || l->op == PLAN_SEML_ELT ? l->g.h : l->g.ho;
    *o0 = b * rows;
    *o1 = *o0 + rows < last ? *o0 + rows : last;
}

/* input rows of output rows [o0, o1), clipped to the map */
static int64_t in_rows(const PlanGeom *g, int64_t o0, int64_t o1)
{
    int64_t a = o0 * g->sh - g->pt, z = (o1 - 1) * g->sh - g->pt + (g->kh - 1) * g->dh + 1;
    int64_t n = (z > g->h ? g->h : z) - (a < 0 ? 0 : a);
    return n > 0 ? n : 0;   /* a band that reads only padding (pads beyond the window) */
}

/* seml_eltwise.c move(): one beat run per pixel, one burst when dense */
static int64_t move(int64_t pixels, int64_t c, bool dense, int beat)
{
    if (dense)
        return plan_ln_burst(pixels * c, beat);
    return plan_ln_loop(pixels * cdiv(c, beat), O2H_DEPTH_BURST);
}

static int64_t load_band(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t rows, int64_t b)
{
    const PlanGeom *g = &l->g;
    int64_t o0, o1;
    band(l, rows, b, &o0, &o1);
    switch (l->op) {
    case PLAN_SEML_CONV:
        return plan_ln_burst(in_rows(g, o0, o1) * g->w * g->c, e->beat) +
               (l->add ? plan_ln_burst((o1 - o0) * g->wo * g->f, e->beat) : 0);
    case PLAN_SEML_DW:
    case PLAN_SEML_POOL:
        return plan_ln_burst(in_rows(g, o0, o1) * g->w * g->c, e->beat) +
               (l->add ? plan_ln_burst((o1 - o0) * g->wo * g->f, e->beat) : 0);
    case PLAN_SEML_GPOOL:
        return plan_ln_burst((o1 - o0) * g->w * g->c, e->beat);
    default:
        return move((o1 - o0) * g->w, g->c, l->in_dense, e->beat) +
               (l->binary && !l->bvec ? move((o1 - o0) * g->w, g->c, l->in2_dense, e->beat) : 0);
    }
}

static int64_t store_band(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t rows, int64_t b)
{
    const PlanGeom *g = &l->g;
    int64_t o0, o1;
    band(l, rows, b, &o0, &o1);
    if (global_pool(l))
        return plan_ln_burst(g->c, e->beat);
    if (l->op == PLAN_SEML_ELT)
        return move((o1 - o0) * g->w, g->f, l->out_dense, e->beat);
    return plan_ln_burst((o1 - o0) * g->wo * g->f, e->beat);
}

/* seml_conv.c compute_band(): weight tiles double-buffered */
static int64_t conv_band(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t npix)
{
    const PlanGeom *g = &l->g;
    int64_t b = g->c / (g->g > 0 ? g->g : 1) * g->kh * g->kw, nt = cdiv(g->f, e->pa);
    int64_t tile = plan_ln_burst(plan_ln_tile_bytes(l, e), e->beat);
    int64_t comp = plan_ln_loop(cdiv(npix, e->pp) * cdiv(b, e->pb), O2H_DEPTH_MAC(e->pb));
    return tile + (nt - 1) * max2(tile, comp) + comp;
}

static int64_t compute_band(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t rows, int64_t b)
{
    const PlanGeom *g = &l->g;
    int64_t o0, o1;
    band(l, rows, b, &o0, &o1);
    int64_t kk = g->kh * g->kw;
    switch (l->op) {
    case PLAN_SEML_CONV:
        return conv_band(l, e, (o1 - o0) * g->wo);
    case PLAN_SEML_DW:
    case PLAN_SEML_POOL:
        return plan_ln_loop(cdiv((o1 - o0) * g->wo, e->pp) * cdiv(g->f, e->pa) * cdiv(kk, e->pb),
                            l->op == PLAN_SEML_DW ? O2H_DEPTH_MAC(e->pb) : O2H_DEPTH_POOL(e->pb));
    case PLAN_SEML_GPOOL:
        return plan_ln_loop(cdiv((o1 - o0) * g->w, e->pp) * cdiv(g->c, e->pa), O2H_DEPTH_POOL(e->pp));
    default:   /* over output channels: a channel move reads c, writes f */
        return plan_ln_loop(cdiv((o1 - o0) * g->w, e->pp) * cdiv(g->f, e->pa), O2H_DEPTH_ELT);
    }
}

/* what a layer loads before its first band */
static int64_t prologue(const PlanSemlLayer *l, const PlanSemlEngine *e)
{
    const PlanGeom *g = &l->g;
    switch (l->op) {
    case PLAN_SEML_CONV:
        return plan_ln_loop(g->c / (g->g > 0 ? g->g : 1) * g->kh * g->kw, O2H_DEPTH_COPY) +
               (l->lut ? plan_ln_burst(256, e->beat) : 0);
    case PLAN_SEML_DW:
    case PLAN_SEML_POOL:
    case PLAN_SEML_GPOOL: {
        int64_t n = plan_ln_record_bytes(l);
        return (n > 0 ? plan_ln_burst(n, e->beat) : 0) + (l->lut ? plan_ln_burst(256, e->beat) : 0);
    }
    default:
        return (l->lut ? plan_ln_burst(256, e->beat) : 0) + (l->bvec ? plan_ln_burst(g->c, e->beat) : 0);
    }
}

/* bytes each band moves (the bursts of load_band, store_band and the
 * weight tiles of compute_band) */
static int64_t band_bytes(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t rows, int64_t b)
{
    const PlanGeom *g = &l->g;
    int64_t o0, o1, n = 0;
    band(l, rows, b, &o0, &o1);
    switch (l->op) {
    case PLAN_SEML_CONV:
        n = in_rows(g, o0, o1) * g->w * g->c + (l->add ? 2 : 1) * (o1 - o0) * g->wo * g->f;
        return n + cdiv(g->f, e->pa) * plan_ln_tile_bytes(l, e);
    case PLAN_SEML_DW:
    case PLAN_SEML_POOL:
        return in_rows(g, o0, o1) * g->w * g->c + (l->add ? 2 : 1) * (o1 - o0) * g->wo * g->f;
    case PLAN_SEML_GPOOL:
        return (o1 - o0) * g->w * g->c;
    default:
        return (o1 - o0) * g->w * (g->c * (l->binary && !l->bvec ? 2 : 1) + g->f);
    }
}

static int64_t prologue_bytes(const PlanSemlLayer *l)
{
    switch (l->op) {
    case PLAN_SEML_CONV:
        return l->lut ? 256 : 0;
    case PLAN_SEML_DW:
    case PLAN_SEML_POOL:
    case PLAN_SEML_GPOOL:
        return plan_ln_record_bytes(l) + (l->lut ? 256 : 0);
    default:
        return (l->lut ? 256 : 0) + (l->bvec ? l->g.c : 0);
    }
}

/* a band of `rows` rows whose input rows are not clipped by the map's edges */
static bool regular(const PlanSemlLayer *l, int64_t rows, int64_t b)
{
    const PlanGeom *g = &l->g;
    int64_t o0, o1;
    band(l, rows, b, &o0, &o1);
    if (o1 - o0 != rows)
        return false;
    if (global_pool(l) || l->op == PLAN_SEML_ELT)
        return true;
    return o0 * g->sh - g->pt >= 0 && (o1 - 1) * g->sh - g->pt + (g->kh - 1) * g->dh + 1 <= g->h;
}

typedef struct {
    int64_t cycles, compute, move, bytes;
} Step;

/* iteration b of the band loop: max(next band's load, compute, previous band's store) */
static Step step(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t rows, int64_t b, int64_t nb)
{
    int64_t next = b + 1 < nb ? load_band(l, e, rows, b + 1) : 0;
    int64_t prev = b > 0 && !global_pool(l) ? store_band(l, e, rows, b - 1) : 0;
    int64_t comp = compute_band(l, e, rows, b);
    return (Step){max3(next, comp, prev), comp, next + prev, band_bytes(l, e, rows, b)};
}

static void add_step(PlanLnRun *r, Step s, int64_t times)
{
    r->cycles += s.cycles * times;
    r->compute += s.compute * times;
    r->move += s.move * times;
    r->bytes += s.bytes * times;
}

/* Regular bands form one run [r0, r1]; an iteration whose band and both
 * neighbours are regular costs the same as any other such iteration, so
 * the loop evaluates the irregular ends one by one and the middle once. */
static void band_loop(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t rows, int64_t nb, PlanLnRun *r)
{
    int64_t r0 = 0, r1 = nb - 1;
    while (r0 < nb && !regular(l, rows, r0))
        r0++;
    while (r1 >= r0 && !regular(l, rows, r1))
        r1--;
    int64_t lo = r0 + 1 > 1 ? r0 + 1 : 1, hi = r1 - 1 < nb - 2 ? r1 - 1 : nb - 2;
    if (lo <= hi)
        add_step(r, step(l, e, rows, lo, nb), hi - lo + 1);
    for (int64_t b = 0; b < nb; b++) {
        if (lo <= hi && b == lo)
            b = hi + 1;
        if (b < nb)
            add_step(r, step(l, e, rows, b, nb), 1);
    }
}

PlanLnRun plan_ln_seml_run(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t rows)
{
    PlanLnRun r = {0, 0, 0, 0};
    int64_t last = global_pool(l) || l->op == PLAN_SEML_ELT ? l->g.h : l->g.ho;
    if (rows <= 0) {
        r.cycles = INT64_MAX / 4;
        return r;
    }
    int64_t nb = cdiv(last, rows);
    int64_t first = load_band(l, e, rows, 0), tail = store_band(l, e, rows, nb - 1);
    r.cycles = plan_ln_desc_fetch(e->beat) + prologue(l, e) + first;
    r.move = first + tail;
    r.bytes = O2H_DESC_WORDS * 4 + prologue_bytes(l);
    band_loop(l, e, rows, nb, &r);
    if (global_pool(l)) {   /* the results, then their store */
        int64_t out = plan_ln_loop(cdiv(l->g.c, e->pa), O2H_DEPTH_ELT);
        r.cycles += out;
        r.compute += out;
        r.bytes += l->g.c;
    }
    r.cycles += tail;
    return r;
}

/* the template's band loop, band by band (plan_ln_seml_run gives the same
 * cycles without walking equal bands) */
int64_t plan_ln_seml_layer(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t rows)
{
    int64_t last = global_pool(l) || l->op == PLAN_SEML_ELT ? l->g.h : l->g.ho;
    if (rows <= 0)
        return INT64_MAX / 4;
    int64_t nb = cdiv(last, rows);
    int64_t cyc = plan_ln_desc_fetch(e->beat) + prologue(l, e) + load_band(l, e, rows, 0);
    for (int64_t b = 0; b < nb; b++)
        cyc += step(l, e, rows, b, nb).cycles;
    if (global_pool(l))
        cyc += plan_ln_loop(cdiv(l->g.c, e->pa), O2H_DEPTH_ELT);
    return cyc + store_band(l, e, rows, nb - 1);
}
