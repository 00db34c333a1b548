/* plan.c - the search: every split point, the PE division by bisection on
 * the pipeline period, the hybrid and the two baselines.
 *
 * Why bisection: for a split s and a target period T, each SESL stage takes
 * the fewest PEs that finish a frame in T cycles (sesl.c frontiers), the SEML
 * part gets the PEs left and its best engines (seml.c); the design is
 * feasible when the SEML part also meets T and every budget holds (PEs, DSPs,
 * BRAM/URAM, LUTs, DRAM bandwidth). Larger T frees PEs and memory, so the
 * least feasible T is found by bisection between a lower bound (all MACs on
 * all PEs) and a T where every stage has its smallest engine.
 *
 * Memory sizing per split: the SEML ping-pong buffers are sized to the
 * largest SEML feature map that fits beside the SESL weights (and the next
 * smaller size is tried too, since BRAM given to buffers is taken from the
 * SESL engines' partitioning); the SESL->SEML tensors are double-buffered on
 * chip when they fit, else they pass through DRAM. Block RAM overflow moves
 * the buffers that save most block RAM per UltraRAM into UltraRAM.
 */
#include "plan_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INF (INT64_MAX / 4)

void plan_options_default(PlanOptions *o)
{
    memset(o, 0, sizeof *o);
    o->prec = IR_PREC_INT8;
    o->bits = 8;
    o->resource_frac = 0.9;
    o->force_split = -1;
}

const char *plan_kind_name(PlanKind k)
{
    static const char *names[PLAN_K_COUNT] = {"conv", "dwconv", "pwconv", "fc", "pool", "eltwise"};
    return (unsigned)k < PLAN_K_COUNT ? names[k] : "?";
}

/* ------------------------------------------------------------ context */

typedef struct {
    const IrGraph *g;
    Plan *p;
    PlanTensorInfo ti;
    PlanFrontier *fr;        /* per unit */
    PlanSemlTable tab;
    PlanSemlCache *cache;
    double bpc;              /* DRAM bytes per cycle */
    int64_t *stage_bytes;    /* DRAM bytes of unit i when it is a SESL stage */
    PlanBuf *skip;           /* residual FIFO of unit i when it is a SESL stage */
    int64_t onchip_cap;      /* bytes of BRAM+URAM the plan may use */
} Search;

typedef struct {
    int split;
    int64_t fm_buf;
    bool boundary_on_chip;
    int64_t boundary_bytes;
    int64_t sesl_bytes;      /* DRAM bytes per frame of the SESL part */
    int fm_width;            /* bits per cycle the SEML buffers must deliver */
    PlanSemlIn in;
    PlanSeml *seml;
} Split;

typedef struct {
    bool ok;
    const char *why;
    int64_t need;            /* a period that might work when bandwidth failed */
    int64_t t_sesl, t_seml, bw, period;
    int pes, dsp, bram, uram, lut;
    int64_t dram_bytes;
    int *pick;               /* frontier index per SESL unit (owned by caller) */
    PlanSemlChoice ch;
} Eval;

/* ---------------------------------------------------- memory allocation */

typedef struct {
    PlanBuf b;
    int owner;               /* engine index, -1 shared buffers */
    bool in_uram;
} Item;

typedef struct {
    Item *v;
    int n, cap;
} Items;

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

/* Block RAM first; when over the cap, move buffers to UltraRAM. */
static bool items_fit(Items *it, int bram_cap, int uram_cap, int *bram, int *uram, int *lut)
{
    int64_t br = 0, ur = 0, lu = 0;
    for (int i = 0; i < it->n; i++) {
        it->v[i].in_uram = false;
        br += it->v[i].b.bram;
        lu += it->v[i].b.lut;
    }
    if (br > bram_cap && uram_cap > 0) {
        int *order = malloc(sizeof(int) * (size_t)(it->n + 1));
        if (!order)
            abort();
        for (int i = 0; i < it->n; i++)
            order[i] = i;
        sort_base = it->v;
        qsort(order, (size_t)it->n, sizeof *order, item_cmp);
        for (int k = 0; k < it->n && br > bram_cap; k++) {
            Item *x = &it->v[order[k]];
            if (x->b.bram == 0 || x->b.uram == 0 || ur + x->b.uram > uram_cap)
                continue;
            x->in_uram = true;
            br -= x->b.bram;
            ur += x->b.uram;
        }
        free(order);
    }
    *bram = br > INT_MAX ? INT_MAX : (int)br;
    *uram = (int)ur;
    *lut = lu > INT_MAX ? INT_MAX : (int)lu;
    return br <= bram_cap && ur <= uram_cap;
}

/* ------------------------------------------------- per-unit SESL facts */

static int64_t mem_cycles(const Search *S, int64_t bytes)
{
    double c = (double)bytes / S->bpc;
    return c >= (double)INF ? INF : (int64_t)ceil(c - 1e-9);
}

static int64_t numel_t(const IrGraph *g, int t)
{
    int64_t n = t >= 0 ? ir_tensor_numel(&g->tensors[t]) : 0;
    return n < 0 ? 0 : n;
}

/* DRAM a dedicated stage cannot avoid: graph inputs, host results, graph outputs */
static int64_t stage_dram(const Search *S, const PlanUnit *u)
{
    int64_t b = 0;
    if (S->ti.unit_of[u->in_t] < 0)
        b += u->in_bytes;
    if (u->extra_t >= 0 && S->ti.unit_of[u->extra_t] < 0)
        b += u->extra_bytes;
    if (S->ti.dram_out[u->out_t])
        b += u->out_bytes;
    return b;
}

/* A stage adding a tensor produced earlier in the pipeline must hold it until
 * the other branch catches up: the rows the stages in between delay it by, or
 * the whole map when the other operand is a per-channel scale computed from
 * the whole map (squeeze-excite). */
static PlanBuf skip_fifo(const Search *S, int ui)
{
    const Plan *p = S->p;
    const PlanUnit *u = &p->units[ui];
    if (u->extra_t < 0)
        return (PlanBuf){0, 0, 0, 0};
    int prod = S->ti.unit_of[u->extra_t];
    if (prod < 0)
        return (PlanBuf){0, 0, 0, 0};
    const IrTensor *x = &S->g->tensors[u->extra_t];
    int64_t xh = x->rank > 2 && x->dims[2] > 0 ? x->dims[2] : 1;
    int64_t xhw = numel_t(S->g, u->extra_t) / (x->rank > 1 && x->dims[1] > 0 ? x->dims[1] : 1);
    int64_t bytes;
    if (xhw < u->hout * u->wout) {
        bytes = u->in_bytes;
    } else {
        int64_t rows = 1;
        for (int v = prod + 1; v < ui; v++)
            rows += p->units[v].kh;
        bytes = rows * (u->extra_bytes / xh);
        if (bytes > u->extra_bytes)
            bytes = u->extra_bytes;
    }
    return plan_buf(1, 64, plan_cdiv(bytes * 8, 64));
}

static void search_init(Search *S)
{
    Plan *p = S->p;
    int n = p->n_units;
    S->bpc = p->bandwidth_gbps * 1e9 / (p->clock_mhz * 1e6);
    S->fr = calloc((size_t)n, sizeof *S->fr);
    S->stage_bytes = calloc((size_t)n, sizeof *S->stage_bytes);
    S->skip = calloc((size_t)n, sizeof *S->skip);
    if (!S->fr || !S->stage_bytes || !S->skip)
        abort();
    PlanFrontierScratch *scratch = plan_frontier_scratch_new(p->pe_budget);
    for (int i = 0; i < n; i++) {
        plan_frontier_build(&p->units[i], &p->dev, scratch, &S->fr[i]);
        S->stage_bytes[i] = stage_dram(S, &p->units[i]);
        S->skip[i] = skip_fifo(S, i);
    }
    plan_frontier_scratch_free(scratch);
    plan_seml_table_build(p, p->pe_budget, &S->tab);
    S->cache = plan_seml_cache_new(p, &S->tab, &S->ti, S->bpc);
    S->onchip_cap = ((int64_t)p->bram_cap * 18432 + (int64_t)p->uram_cap * 294912) / 8;
}

static void search_free(Search *S)
{
    for (int i = 0; i < S->p->n_units; i++)
        plan_frontier_free(&S->fr[i]);
    free(S->fr);
    free(S->stage_bytes);
    free(S->skip);
    plan_seml_cache_free(S->cache);
    plan_seml_table_free(S->p, &S->tab);
}

/* --------------------------------------------------------- evaluation */

/* What a reusable engine of family f must support over the SEML units it may
 * serve: the widest word, whether it multiplies, the longest reduction. */
typedef struct {
    int bits;
    IrPrecision prec;
    bool mul;
    int64_t max_b;
} FamNeeds;

static FamNeeds family_needs(const Plan *p, int split, PlanKind f)
{
    FamNeeds n = {8, IR_PREC_INT8, false, 1};
    for (int i = split; i < p->n_units; i++) {
        const PlanUnit *u = &p->units[i];
        if (plan_seml_family(u->kind) != f)
            continue;
        if (u->loops.b > n.max_b)
            n.max_b = u->loops.b;
        if (u->bits > n.bits || (u->bits == n.bits && u->prec == IR_PREC_FLOAT)) {
            n.bits = u->bits;
            n.prec = u->prec;
        }
        n.mul |= u->mul;
    }
    return n;
}

static void add_seml_engines(const Search *S, const Split *sp, Eval *e, Items *it, int owner0)
{
    const Plan *p = S->p;
    for (int k = 0; k < e->ch.n_engines; k++) {
        PlanKind f = e->ch.kind[k];
        PlanShape sh = e->ch.shape[k];
        FamNeeds nd = family_needs(p, sp->split, f);
        int64_t max_b = nd.max_b;
        int bits = nd.bits;
        bool mul = nd.mul;
        IrPrecision prec = nd.prec;
        int pes = plan_shape_pes(sh);
        PlanBuf wt = plan_mem_seml_wtile(f, sh, max_b, bits);
        e->pes += pes;
        e->dsp += plan_engine_dsp(&p->dev, f, mul, prec, bits, pes);
        e->lut += plan_engine_lut(f, false, prec, bits, pes);
        items_add(it, wt, owner0 + k);
    }
}

/* engine (index in ch) a SEML unit runs on: the faster of its family's */
static int unit_engine(const Search *S, const Split *sp, const PlanSemlChoice *ch, int ui, int64_t *cyc,
                       int64_t *bytes)
{
    const PlanUnit *u = &S->p->units[ui];
    PlanKind f = plan_seml_family(u->kind);
    int best = -1;
    for (int k = 0; k < ch->n_engines; k++) {
        if (ch->kind[k] != f)
            continue;
        int64_t c = plan_cost_cycles(u, ch->shape[k]);
        int64_t b = plan_seml_unit_bytes(&sp->in, ui, ch->shape[k].pa, NULL, NULL);
        int64_t m = mem_cycles(S, b);
        int64_t t = c > m ? c : m;
        if (best < 0 || t < *cyc) {
            best = k;
            *cyc = t;
            *bytes = b;
        }
    }
    return best;
}

static int64_t seml_bytes(const Search *S, const Split *sp, const PlanSemlChoice *ch)
{
    int64_t sum = 0;
    for (int i = sp->split; i < S->p->n_units; i++) {
        int64_t c = 0, b = 0;
        if (unit_engine(S, sp, ch, i, &c, &b) >= 0)
            sum += b;
    }
    return sum;
}

static bool eval_sesl(const Search *S, const Split *sp, int64_t T, Eval *e, Items *it)
{
    for (int i = 0; i < sp->split; i++) {
        int k = plan_frontier_pick(&S->fr[i], T);
        int64_t m = mem_cycles(S, S->stage_bytes[i]);
        if (k < 0 || m > T) {
            e->why = k < 0 ? "a SESL stage cannot reach the period within the PE budget"
                           : "DRAM bandwidth of a SESL stage";
            if (m > T)
                e->need = m;
            return false;
        }
        const PlanPoint *pt = &S->fr[i].pts[k];
        e->pick[i] = k;
        e->pes += pt->pes;
        e->dsp += pt->dsp;
        e->lut += pt->lut;
        int64_t t = pt->cycles > m ? pt->cycles : m;
        if (t > e->t_sesl)
            e->t_sesl = t;
        items_add(it, pt->weights, i);
        items_add(it, pt->linebuf, i);
        items_add(it, S->skip[i], i);
    }
    return true;
}

static void add_shared_buffers(const Split *sp, Items *it, int owner)
{
    if (sp->split < sp->in.p->n_units && sp->fm_buf > 0) {
        int64_t width = sp->fm_width > 0 ? sp->fm_width : 64;
        PlanBuf one = plan_buf(1, width, plan_cdiv(sp->fm_buf * 8, width));
        for (int k = 0; k < 3; k++)   /* ping, pong, skip */
            items_add(it, one, owner);
    }
    if (sp->boundary_on_chip && sp->boundary_bytes > 0) {
        PlanBuf b = plan_buf(1, 64, plan_cdiv(sp->boundary_bytes * 8, 64));
        items_add(it, b, owner);
        items_add(it, b, owner);
    }
}

static bool check_budgets(const Search *S, Eval *e)
{
    const Plan *p = S->p;
    if (e->pes > p->pe_budget)
        e->why = "PE budget";
    else if (e->dsp > p->dsp_cap)
        e->why = "DSP slices";
    else if (e->lut > p->lut_cap)
        e->why = "LUTs";
    else
        return true;
    return false;
}

/* Like the SESL stages, the SEML part takes the fewest PEs (at most q) that
 * meet the period: fewer PEs mean smaller weight tiles, fewer DSPs and LUTs.
 * -1 if even q PEs are too few. SEML time never grows with more PEs. */
static int seml_pes(const PlanSeml *s, int q, int64_t T)
{
    if (q < 1 || plan_seml_time(s, q) > T)
        return -1;
    int lo = 0, hi = q;   /* time(lo) > T (or lo == 0), time(hi) <= T */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (plan_seml_time(s, mid) <= T)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static void eval_at(const Search *S, const Split *sp, int64_t T, Eval *e, Items *it)
{
    const Plan *p = S->p;
    int *pick = e->pick;
    memset(e, 0, sizeof *e);
    e->pick = pick;
    it->n = 0;
    if (!eval_sesl(S, sp, T, e, it))
        return;
    if (e->pes > p->pe_budget) {
        e->why = "PE budget";
        return;
    }
    int64_t sesl_pes = e->pes;
    if (sp->split < p->n_units) {
        int q = seml_pes(sp->seml, p->pe_budget - (int)sesl_pes, T);
        if (q < 0) {
            e->t_seml = plan_seml_time(sp->seml, p->pe_budget - (int)sesl_pes);
            e->why = "the SEML part cannot meet the period with the PEs left";
            return;
        }
        e->t_seml = plan_seml_time(sp->seml, q);
        plan_seml_choice(sp->seml, q, &e->ch);
        add_seml_engines(S, sp, e, it, sp->split);
        e->dram_bytes = seml_bytes(S, sp, &e->ch);
    }
    e->dram_bytes += sp->sesl_bytes;
    e->bw = mem_cycles(S, e->dram_bytes);
    if (e->bw > T) {
        e->why = "DRAM bandwidth";
        e->need = e->bw;
        return;
    }
    add_shared_buffers(sp, it, -1);
    int lut_mem = 0;
    bool mem_ok = items_fit(it, p->bram_cap, p->uram_cap, &e->bram, &e->uram, &lut_mem);
    e->lut += lut_mem;
    if (!mem_ok) {
        e->why = p->uram_cap ? "on-chip memory (BRAM and URAM)" : "on-chip memory (BRAM)";
        return;
    }
    if (!check_budgets(S, e))
        return;
    e->ok = true;
    e->period = T;
}

/* ------------------------------------------------------------- splits */

static int cmp_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x > y ? -1 : x < y;
}

/* distinct sizes of SEML-produced maps, largest first */
static int fm_sizes(const Search *S, int split, int64_t *out)
{
    const Plan *p = S->p;
    int n = 0;
    for (int i = split; i < p->n_units; i++)
        out[n++] = p->units[i].out_bytes;
    qsort(out, (size_t)n, sizeof *out, cmp_desc);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || out[m - 1] != out[i])
            out[m++] = out[i];
    return m;
}

static void boundary(const Search *S, Split *sp)
{
    const Plan *p = S->p;
    char *seen = calloc((size_t)S->g->n_tensors + 1, 1);
    if (!seen)
        abort();
    sp->boundary_bytes = 0;
    for (int i = sp->split; i < p->n_units; i++) {
        const PlanUnit *u = &p->units[i];
        int ts[2] = {u->in_t, u->extra_t};
        for (int k = 0; k < 2; k++) {
            int t = ts[k];
            if (t < 0 || seen[t] || S->ti.unit_of[t] < 0 || S->ti.unit_of[t] >= sp->split)
                continue;
            seen[t] = 1;
            sp->boundary_bytes += plan_tensor_bytes(S->g, t, u->bits);
        }
    }
    free(seen);
}

/* widest read the SEML buffers must serve per cycle */
static int fm_width(const Search *S, int split)
{
    int w = 64;
    for (int i = split; i < S->p->n_units; i++) {
        const PlanUnit *u = &S->p->units[i];
        int64_t lanes = (u->kind == PLAN_K_CONV || u->kind == PLAN_K_PWCONV || u->kind == PLAN_K_FC)
                            ? u->loops.b : u->loops.a;
        int64_t cap = S->p->pe_budget;
        if (lanes > cap)
            lanes = cap;
        int64_t bits = lanes * u->bits;
        if (bits > 1024)
            bits = 1024;
        if (bits > w)
            w = (int)bits;
    }
    return w;
}

static void split_setup(const Search *S, Split *sp, int split, int64_t fm_buf, bool bnd_on_chip)
{
    const Plan *p = S->p;
    memset(sp, 0, sizeof *sp);
    sp->split = split;
    sp->fm_buf = fm_buf;
    boundary(S, sp);
    sp->boundary_on_chip = bnd_on_chip && sp->boundary_bytes > 0;
    for (int i = 0; i < split; i++)
        sp->sesl_bytes += S->stage_bytes[i];
    if (!sp->boundary_on_chip)
        sp->sesl_bytes += sp->boundary_bytes;
    sp->fm_width = fm_width(S, split);
    sp->in = (PlanSemlIn){p, &S->tab, S->cache, &S->ti, S->g, split, fm_buf, sp->boundary_on_chip, S->bpc,
                          p->pe_budget};
    sp->seml = split < p->n_units ? plan_seml_new(&sp->in) : NULL;
}

typedef struct {
    bool ok;
    int64_t T;
    const char *why;         /* failure: why; success: the constraint that binds below T */
} Found;

/* least feasible period for a split, by bisection */
/* a budget failed while the SEML part still has more than one PE per engine */
static bool seml_can_shrink(const Split *sp, const Eval *e)
{
    if (!e->why || !strncmp(e->why, "PE budget", 9) || !strncmp(e->why, "a SESL stage", 12))
        return false;
    for (int k = 0; k < e->ch.n_engines; k++)
        if (plan_shape_pes(e->ch.shape[k]) > 1)
            return true;
    (void)sp;
    return false;
}

static Found bisect(const Search *S, const Split *sp, Eval *e, Items *it)
{
    const Plan *p = S->p;
    Found r = {false, 0, NULL};
    int64_t lo = p->total_macs / (p->pe_budget > 0 ? p->pe_budget : 1), hi = 1;
    for (int i = 0; i < sp->split; i++)
        if (S->fr[i].n > 0 && S->fr[i].pts[0].cycles > hi)
            hi = S->fr[i].pts[0].cycles;
    if (hi <= lo)
        hi = lo + 1;
    /* a period that works: every SESL stage at its smallest engine; then the
     * SEML part's time, the DRAM time, or (resources) a slower, smaller SEML part */
    for (int tries = 0; tries < 16; tries++) {
        eval_at(S, sp, hi, e, it);
        if (e->ok)
            break;
        int64_t next = e->need > hi ? e->need : 0;
        if (!next && sp->split < p->n_units && e->t_seml > hi && e->t_seml < INF)
            next = e->t_seml;
        if (!next && sp->split < p->n_units && seml_can_shrink(sp, e))
            next = 2 * hi;
        if (!next || next >= INF / 4) {
            r.why = e->why;
            return r;
        }
        hi = next;
    }
    if (!e->ok) {
        r.why = e->why;
        return r;
    }
    while (hi - lo > 1 && hi - lo > hi / 4000) {
        int64_t mid = lo + (hi - lo) / 2;
        eval_at(S, sp, mid, e, it);
        if (e->ok) {
            hi = mid;
        } else {
            lo = mid;
            r.why = e->why;   /* what keeps the period from going lower */
        }
    }
    r.ok = true;
    r.T = hi;
    return r;
}

/* ---------------------------------------------------- design assembly */

typedef struct {
    int split;
    int64_t fm_buf;
    bool bnd;
    int64_t T;
    int64_t period, latency;
    bool ok;
    const char *why;
    bool mem_bound;          /* on-chip memory kept the period from going lower */
} Best;

static int64_t period_of(const Eval *e, int64_t host)
{
    int64_t t = e->t_sesl > e->t_seml ? e->t_sesl : e->t_seml;
    if (e->bw > t) t = e->bw;
    if (host > t) t = host;
    return t;
}

static bool better(const Best *a, const Best *b)
{
    if (!b->ok)
        return a->ok;
    if (!a->ok)
        return false;
    if (a->period != b->period)
        return a->period < b->period;
    if (a->latency != b->latency)
        return a->latency < b->latency;
    return a->split < b->split;
}

static int64_t onchip_capacity_left(const Search *S, int split)
{
    int64_t w = 0;
    for (int i = 0; i < split; i++)
        w += S->p->units[i].w_bytes;
    return S->onchip_cap - w;
}

/* Sizes of the SEML ping-pong buffers worth trying: the largest SEML map
 * that fits beside the SESL weights, then the next smaller one. */
static void split_candidates(const Search *S, int split, int64_t cand[2], bool *bnd)
{
    const Plan *p = S->p;
    int64_t *sizes = malloc(sizeof(int64_t) * (size_t)(p->n_units + 1));
    if (!sizes)
        abort();
    int ns = fm_sizes(S, split, sizes);
    int64_t left = onchip_capacity_left(S, split);
    Split probe;
    memset(&probe, 0, sizeof probe);
    probe.split = split;
    boundary(S, &probe);
    *bnd = probe.boundary_bytes > 0 && 2 * probe.boundary_bytes <= left * 3 / 4;
    if (*bnd)
        left -= 2 * probe.boundary_bytes;
    cand[0] = 0;
    cand[1] = -1;
    int k = 0;
    while (k < ns && 3 * sizes[k] > left * 4 / 5)
        k++;
    if (k < ns) {
        cand[0] = sizes[k];
        cand[1] = k + 1 < ns && split < p->n_units ? sizes[k + 1] : -1;
    }
    free(sizes);
}

static void try_one(const Search *S, int split, int64_t fm, bool bnd, Eval *e, Items *it, Best *best,
                    const char **why)
{
    const Plan *p = S->p;
    Split sp;
    split_setup(S, &sp, split, fm, bnd);
    Found f = bisect(S, &sp, e, it);
    if (f.ok) {
        eval_at(S, &sp, f.T, e, it);
        Best b = {split, fm, bnd, f.T, period_of(e, p->host_cycles),
                  e->t_sesl + e->t_seml + p->host_cycles, true, NULL,
                  f.why && !strncmp(f.why, "on-chip memory", 14)};
        if (better(&b, best))
            *best = b;
    } else if (why && !*why) {
        *why = f.why;
    }
    plan_seml_free(sp.seml);
}

static void try_split(const Search *S, int split, int which, Eval *e, Items *it, Best *best, const char **why)
{
    int64_t cand[2];
    bool bnd;
    split_candidates(S, split, cand, &bnd);
    if (cand[which] >= 0)
        try_one(S, split, cand[which], bnd, e, it, best, why);
}

static void engine_maxima(const Plan *p, PlanEngine *en, const PlanUnit *u)
{
    if (u->loops.a > en->max_a) en->max_a = u->loops.a;
    if (u->loops.b > en->max_b) en->max_b = u->loops.b;
    if (u->loops.p > en->max_p) en->max_p = u->loops.p;
    if (u->kh * u->kw > en->max_k) en->max_k = u->kh * u->kw;
    if (u->hin * u->win > en->max_hw) en->max_hw = u->hin * u->win;
    if (u->cin > en->max_c) en->max_c = u->cin;
    (void)p;
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
        en->pes = pt->pes;
        en->dsp = pt->dsp;
        en->lut = pt->lut;
        en->n_layers = 1;
        en->busy = pt->cycles;
        engine_maxima(p, en, &p->units[i]);
        PlanUnitMap *m = &d->map[i];
        m->engine = d->n_engines - 1;
        m->sesl = true;
        m->compute = pt->cycles;
        m->dram_bytes = S->stage_bytes[i];
        m->mem = mem_cycles(S, m->dram_bytes);
        m->cycles = m->compute > m->mem ? m->compute : m->mem;
        m->in_on_chip = S->ti.unit_of[p->units[i].in_t] >= 0;
        m->out_on_chip = true;
    }
}

static void fill_seml(const Search *S, const Split *sp, const Eval *e, PlanDesign *d)
{
    const Plan *p = S->p;
    int first = d->n_engines;
    for (int k = 0; k < e->ch.n_engines; k++) {
        PlanEngine *en = &d->engines[d->n_engines++];
        en->kind = e->ch.kind[k];
        en->shape = e->ch.shape[k];
        en->pes = plan_shape_pes(en->shape);
    }
    for (int i = sp->split; i < p->n_units; i++) {
        int64_t cyc = 0, bytes = 0;
        int k = unit_engine(S, sp, &e->ch, i, &cyc, &bytes);
        PlanUnitMap *m = &d->map[i];
        PlanEngine *en = &d->engines[first + (k < 0 ? 0 : k)];
        m->engine = first + (k < 0 ? 0 : k);
        m->compute = plan_cost_cycles(&p->units[i], en->shape);
        m->dram_bytes = plan_seml_unit_bytes(&sp->in, i, en->shape.pa, &m->in_on_chip, &m->out_on_chip);
        m->mem = mem_cycles(S, m->dram_bytes);
        m->cycles = (m->compute > m->mem ? m->compute : m->mem) + PLAN_SEML_SETUP;
        en->n_layers++;
        en->busy += m->compute;
        engine_maxima(p, en, &p->units[i]);
    }
}

/* per-engine DSP/LUT for SEML engines, and every engine's BRAM/URAM */
static void fill_resources(const Search *S, const Split *sp, const Eval *e, Items *it, PlanDesign *d)
{
    const Plan *p = S->p;
    for (int k = sp->split; k < d->n_engines; k++) {
        PlanEngine *en = &d->engines[k];
        FamNeeds nd = family_needs(p, sp->split, en->kind);
        en->dsp = plan_engine_dsp(&p->dev, en->kind, nd.mul, nd.prec, nd.bits, en->pes);
        en->lut = plan_engine_lut(en->kind, false, nd.prec, nd.bits, en->pes);
    }
    for (int i = 0; i < it->n; i++) {
        const Item *x = &it->v[i];
        if (x->owner < 0 || x->owner >= d->n_engines)
            continue;
        PlanEngine *en = &d->engines[x->owner];
        if (x->in_uram)
            en->uram += x->b.uram;
        else
            en->bram18k += x->b.bram;
        en->lut += x->b.lut;
    }
    d->pes = e->pes;
    d->dsp = e->dsp;
    d->bram18k = e->bram;
    d->uram = e->uram;
    d->lut = e->lut;
    for (int i = 0; i < it->n; i++)
        d->onchip_bytes += it->v[i].b.bits / 8;
}

static void fill_design(const Search *S, const Best *b, PlanDesign *d, Eval *e, Items *it)
{
    const Plan *p = S->p;
    Split sp;
    split_setup(S, &sp, b->split, b->fm_buf, b->bnd);
    eval_at(S, &sp, b->T, e, it);
    d->fits = e->ok;
    d->split = b->split;
    d->engines = calloc((size_t)(p->n_units + 2 * PLAN_K_COUNT + 1), sizeof *d->engines);
    d->map = calloc((size_t)p->n_units + 1, sizeof *d->map);
    if (!d->engines || !d->map)
        abort();
    fill_sesl(S, e, d);
    fill_seml(S, &sp, e, d);
    fill_resources(S, &sp, e, it, d);
    d->t_sesl = e->t_sesl;
    d->t_seml = e->t_seml;
    d->t_host = p->host_cycles;
    d->period = period_of(e, p->host_cycles);
    d->dram_bytes = e->dram_bytes;
    d->fm_buf_bytes = sp.split < p->n_units ? sp.fm_buf : 0;
    d->boundary_bytes = sp.boundary_bytes;
    d->boundary_on_chip = sp.boundary_on_chip;
    double f = p->clock_mhz * 1e6;
    d->fps = d->period > 0 ? f / (double)d->period : 0;
    d->latency_ms = (double)(d->t_sesl + d->t_seml + d->t_host) / f * 1e3;
    d->pe_util = d->pes > 0 && d->period > 0 ? (double)p->total_ops / ((double)d->pes * (double)d->period) : 0;
    plan_seml_free(sp.seml);
}

static void design_none(PlanDesign *d, const char *name, int split, const char *why)
{
    memset(d, 0, sizeof *d);
    d->name = name;
    d->split = split;
    d->fits = false;
    snprintf(d->why, sizeof d->why, "does not fit: %s", why ? why : "no feasible period");
}

/* the k best splits of res[lo..hi] (by `better`), into out */
static int top_splits(const Best *res, int lo, int hi, int k, int *out)
{
    int n = 0;
    for (int s = lo; s <= hi; s++) {
        if (!res[s].ok)
            continue;
        int pos = n < k ? n++ : k;
        if (pos == k && !better(&res[s], &res[out[k - 1]]))
            continue;
        if (pos == k)
            pos = k - 1;
        while (pos > 0 && better(&res[s], &res[out[pos - 1]])) {
            out[pos] = out[pos - 1];
            pos--;
        }
        out[pos] = s;
    }
    return n;
}

#define SECOND_LOOK 8  /* splits that also try the smaller SEML buffer */

/* Every split with the largest buffer that fits; the most promising splits
 * (and both baselines) also with the next smaller buffer. */
static void search_splits(const Search *S, Best *res, const char **why, Eval *e, Items *it)
{
    const Plan *p = S->p;
    int n = p->n_units, lo = 0, hi = n;
    if (p->opt.force_split >= 0)
        lo = hi = p->opt.force_split > n ? n : p->opt.force_split;
    for (int s = lo; s <= hi; s++)
        try_split(S, s, 0, e, it, &res[s], &why[s]);
    if (lo > 0)
        try_split(S, 0, 0, e, it, &res[0], &why[0]);
    if (hi < n)
        try_split(S, n, 0, e, it, &res[n], &why[n]);
    int top[SECOND_LOOK];
    int nt = top_splits(res, lo, hi, SECOND_LOOK, top);
    char *again = calloc((size_t)n + 1, 1);
    if (!again)
        abort();
    for (int k = 0; k < nt; k++)
        again[top[k]] = 1;
    again[0] = 1;
    for (int s = lo; s <= hi; s++)
        if (res[s].ok && res[s].mem_bound)
            again[s] = 1;
    for (int s = 0; s <= n; s++)
        if (again[s])
            try_split(S, s, 1, e, it, &res[s], &why[s]);
    free(again);
}

static void run_search(Search *S)
{
    Plan *p = S->p;
    int n = p->n_units;
    Eval e;
    e.pick = calloc((size_t)n + 1, sizeof(int));
    Best *res = calloc((size_t)n + 1, sizeof *res);
    const char **why = calloc((size_t)n + 1, sizeof *why);
    if (!e.pick || !res || !why)
        abort();
    Items it = {NULL, 0, 0};
    search_splits(S, res, why, &e, &it);
    int lo = 0, hi = n;
    if (p->opt.force_split >= 0)
        lo = hi = p->opt.force_split > n ? n : p->opt.force_split;
    Best hyb = res[lo];
    const char *why_hyb = why[lo];
    for (int s = lo + 1; s <= hi; s++)
        if (better(&res[s], &hyb))
            hyb = res[s];
    Best *bs[3] = {&hyb, &res[0], &res[n]};
    PlanDesign *ds[3] = {&p->hybrid, &p->seml, &p->sesl};
    const char *names[3] = {"hybrid", "seml", "sesl"};
    const char *whys[3] = {why_hyb ? why_hyb : why[0], why[0], why[n]};
    int splits[3] = {lo, 0, n};
    for (int k = 0; k < 3; k++) {
        if (bs[k]->ok) {
            memset(ds[k], 0, sizeof *ds[k]);
            fill_design(S, bs[k], ds[k], &e, &it);
        } else {
            design_none(ds[k], names[k], splits[k], whys[k]);
        }
        ds[k]->name = names[k];
    }
    free(res);
    free(why);
    free(e.pick);
    free(it.v);
}

/* ------------------------------------------------------------- entry */

static int check_options(const IrGraph *g, const PlanOptions *o, const PlanDevice *dev, IrDiag *d)
{
    int bad = 0;
    if (o->pe_budget < 0 || o->pe_budget > 10000000) {
        diag_error(d, g->path, NULL, NULL, "PE budget %d out of range (1..10000000)", o->pe_budget);
        bad = -1;
    }
    if (o->clock_mhz < 0 || o->clock_mhz > 2000 || !isfinite(o->clock_mhz)) {
        diag_error(d, g->path, NULL, NULL, "clock %g MHz out of range (0..2000)", o->clock_mhz);
        bad = -1;
    }
    if (o->bandwidth_gbps < 0 || o->bandwidth_gbps > 10000 || !isfinite(o->bandwidth_gbps)) {
        diag_error(d, g->path, NULL, NULL, "bandwidth %g GB/s out of range (0..10000)", o->bandwidth_gbps);
        bad = -1;
    }
    if (!(o->resource_frac > 0 && o->resource_frac <= 1)) {
        diag_error(d, g->path, NULL, NULL, "resource fraction %g must be in (0, 1]", o->resource_frac);
        bad = -1;
    }
    if (dev->dsp <= 0 || dev->bram18k <= 0 || dev->dram_gbps <= 0 || dev->clock_mhz <= 0) {
        diag_error(d, g->path, NULL, NULL, "device '%s' lacks DSP, BRAM, bandwidth or clock figures", dev->name);
        bad = -1;
    }
    return bad;
}

static double min_lanes_per_dsp(const Plan *p)
{
    double m = plan_lanes_per_dsp(&p->dev, p->opt.prec, p->opt.bits);
    for (int i = 0; i < p->n_units; i++) {
        double x = plan_lanes_per_dsp(&p->dev, p->units[i].prec, p->units[i].bits);
        if (x < m)
            m = x;
    }
    return m;
}

static void set_budgets(Plan *p)
{
    double fr = p->opt.resource_frac;
    p->dsp_cap = (int)floor(p->dev.dsp * fr);
    p->bram_cap = (int)floor(p->dev.bram18k * fr);
    p->uram_cap = (int)floor(p->dev.uram * fr);
    p->lut_cap = (int)floor(p->dev.lut * fr);
    int64_t by_dsp = (int64_t)floor(p->dsp_cap * min_lanes_per_dsp(p));
    int64_t q = p->opt.pe_budget > 0 ? p->opt.pe_budget : by_dsp;
    if (q > by_dsp)
        q = by_dsp;
    p->pe_budget = q < 1 ? 1 : (int)q;
    p->peak_ops = 2.0 * p->pe_budget * p->clock_mhz * 1e6;
}

static double now_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int plan_build(const IrGraph *g, const PlanDevice *dev, const PlanOptions *opt, Plan *p, IrDiag *d)
{
    memset(p, 0, sizeof *p);
    if (check_options(g, opt, dev, d))
        return -1;
    double t0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_THREAD_CPUTIME_ID);
    p->dev = *dev;
    p->opt = *opt;
    p->clock_mhz = opt->clock_mhz > 0 ? opt->clock_mhz : dev->clock_mhz;
    p->bandwidth_gbps = opt->bandwidth_gbps > 0 ? opt->bandwidth_gbps : dev->dram_gbps;
    Search S;
    memset(&S, 0, sizeof S);
    S.g = g;
    S.p = p;
    if (plan_units_build(g, opt, p, &S.ti, d)) {
        plan_tensor_info_free(&S.ti);
        plan_free(p);
        return -1;
    }
    for (int i = 0; i < p->n_units; i++) {
        PlanUnit *u = &p->units[i];
        u->in_dram = S.ti.unit_of[u->in_t] < 0;
        u->out_dram = S.ti.dram_out[u->out_t];
    }
    set_budgets(p);
    search_init(&S);
    run_search(&S);
    search_free(&S);
    plan_tensor_info_free(&S.ti);
    plan_memory_analyse(p, &p->memory);
    plan_roofline(p);
    p->plan_ms = now_ms(CLOCK_MONOTONIC) - t0;
    p->plan_cpu_ms = now_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
    return 0;
}

static void design_free(PlanDesign *d)
{
    free(d->engines);
    free(d->map);
    d->engines = NULL;
    d->map = NULL;
}

void plan_free(Plan *p)
{
    if (!p)
        return;
    design_free(&p->hybrid);
    design_free(&p->seml);
    design_free(&p->sesl);
    plan_memory_free(&p->memory);
    free(p->roof);
    free(p->units);
    free(p->host_layers);
    memset(p, 0, sizeof *p);
}
