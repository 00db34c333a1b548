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
    return (z > g->h ? g->h : z) - (a < 0 ? 0 : a);
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
        return move((o1 - o0) * g->w, g->c, l->out_dense, e->beat);
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
    default:
        return plan_ln_loop(cdiv((o1 - o0) * g->w, e->pp) * cdiv(g->c, e->pa), O2H_DEPTH_ELT);
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

int64_t plan_ln_seml_layer(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t rows)
{
    int64_t last = global_pool(l) || l->op == PLAN_SEML_ELT ? l->g.h : l->g.ho;
    if (rows <= 0)
        return INT64_MAX / 4;
    int64_t nb = cdiv(last, rows);
    int64_t cyc = plan_ln_desc_fetch(e->beat) + prologue(l, e) + load_band(l, e, rows, 0);
    for (int64_t b = 0; b < nb; b++) {
        int64_t next = b + 1 < nb ? load_band(l, e, rows, b + 1) : 0;
        int64_t prev = b > 0 && !global_pool(l) ? store_band(l, e, rows, b - 1) : 0;
        cyc += max3(next, compute_band(l, e, rows, b), prev);
    }
    if (global_pool(l))
        cyc += plan_ln_loop(cdiv(l->g.c, e->pa), O2H_DEPTH_ELT);
    return cyc + store_band(l, e, rows, nb - 1);
}
