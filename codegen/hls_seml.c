/* hls_seml.c - the SEML part of the accelerator model: one engine instance
 * per reusable engine of the plan, one or more descriptors per unit, and
 * the unit's constants in the weight image.
 *
 * Why descriptors carry everything: a reusable engine is compiled once with
 * the plan's unroll shape and buffer sizes; each layer then arrives as a
 * record of int32 fields (templates/hls/common/o2h_desc.h) with its
 * geometry, band schedule, DRAM offsets, integer constants and the offsets
 * of its weights. The band rows are the planner's (plan_ln_band_rows, the
 * same function with the same buffers), so the layer runs exactly as it
 * was costed. A Concat is one channel-slice copy per input.
 */
#include "hls_internal.h"

#include <stdlib.h>
#include <string.h>

#include "templates/hls/common/o2h_desc.h"
#include "templates/hls/common/o2h_timing.h"

static int32_t *desc_new(CgAccel *a, int unit)
{
    if (a->n_desc == a->cap_desc) {
        a->cap_desc = a->cap_desc ? 2 * a->cap_desc : 32;
        a->desc = realloc(a->desc, sizeof(int32_t) * O2H_DESC_WORDS * (size_t)a->cap_desc);
        a->desc_unit = realloc(a->desc_unit, sizeof(int) * (size_t)a->cap_desc);
        if (!a->desc || !a->desc_unit)
            abort();
    }
    int32_t *d = a->desc + (size_t)a->n_desc * O2H_DESC_WORDS;
    memset(d, 0, sizeof(int32_t) * O2H_DESC_WORDS);
    a->desc_unit[a->n_desc++] = unit;
    d[O2H_D_UNIT] = unit;
    return d;
}

/* a reusable engine's template by the family of its kind (plan/seml.c:
 * conv and FC run on the pointwise engine, pools on the depthwise one) */
static CgTemplate engine_template(PlanKind k)
{
    switch (k) {
    case PLAN_K_CONV: case PLAN_K_PWCONV: case PLAN_K_FC: return CG_TPL_SEML_CONV;
    case PLAN_K_DWCONV: case PLAN_K_POOL: return CG_TPL_SEML_DW;
    default: return CG_TPL_SEML_ELT;
    }
}

/* ------------------------------------------------------------- operands */

static const CgDram *dram(const CgAccel *a, int t)
{
    int i = a->dram_of[cg_accel_resolve(a, t)];
    return i >= 0 ? &a->dram[i] : NULL;
}

/* IN (k = 0) or IN2 (k = 1) operand fields */
static int operand(CgAccel *a, int layer, int32_t *d, int k, int t)
{
    const CgDram *m = dram(a, t);
    if (!m)
        return cg_accel_error(a, layer, "operand '%s' has no place in DRAM", a->g->tensors[t].name);
    d[k ? O2H_D_IN2_OFF : O2H_D_IN_OFF] = (int32_t)m->off;
    d[k ? O2H_D_IN2_PSTRIDE : O2H_D_IN_PSTRIDE] = (int32_t)m->c;
    if (k)
        d[O2H_D_IN2_C] = (int32_t)m->c;
    else
        d[O2H_D_IN_BYTES] = (int32_t)m->bytes;
    if (m->boundary)
        d[O2H_D_BND] |= k ? 2 : 1;
    return 0;
}

static int result(CgAccel *a, int layer, int32_t *d, int t)
{
    const CgDram *m = dram(a, t);
    if (!m)
        return cg_accel_error(a, layer, "result '%s' has no place in DRAM", a->g->tensors[t].name);
    d[O2H_D_OUT_OFF] = (int32_t)m->off;
    d[O2H_D_OUT_PSTRIDE] = (int32_t)m->c;
    return 0;
}

static void put_geom(int32_t *d, const PlanGeom *g)
{
    const int64_t v[17] = {g->h, g->w, g->c, g->ho, g->wo, g->f, g->kh, g->kw, g->sh,
                           g->sw, g->dh, g->dw, g->pt, g->pl, g->pb, g->pr, g->g};
    for (int i = 0; i < 17; i++)
        d[O2H_D_H + i] = (int32_t)v[i];
}

static void put_out_q(int32_t *d, int32_t zero, int32_t lo, int32_t hi)
{
    d[O2H_D_ZERO] = zero, d[O2H_D_LO] = lo, d[O2H_D_HI] = hi;
}

/* ---------------------------------------------------------------- engine */

typedef struct {
    PlanSemlEngine e;
    int64_t max_b, max_c, max_kk, max_k, max_it, max_bands, max_tiles;
} EngineUse;

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* iterations of the largest compute loop the layer runs */
static int64_t compute_iters(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t rows)
{
    const PlanGeom *g = &l->g;
    switch (l->op) {
    case PLAN_SEML_CONV:
        return cdiv(rows * g->wo, e->pp) * cdiv(g->c / g->g * g->kh * g->kw, e->pb);
    case PLAN_SEML_DW:
    case PLAN_SEML_POOL:
        return cdiv(rows * g->wo, e->pp) * cdiv(g->f, e->pa) * cdiv(g->kh * g->kw, e->pb);
    default:
        return cdiv(rows * g->w, e->pp) * cdiv(g->f, e->pa);
    }
}

/* the engine's buffers: the plan's, or (a plan without them) the largest
 * input and output map of its layers, capped at 128 KiB per half */
static PlanSemlEngine engine_of(const CgAccel *a, int e)
{
    const PlanEngine *E = &a->d->engines[e];
    PlanSemlEngine se = {E->shape.pa, E->shape.pb, E->shape.pp, E->ibuf, E->obuf, a->beat};
    if (se.ibuf > 0 && se.obuf > 0)
        return se;
    for (int u = a->d->split; u < a->p->n_units; u++) {
        if (a->d->map[u].engine != e)
            continue;
        const PlanUnit *U = &a->p->units[u];
        int64_t in = U->in_bytes > U->extra_bytes ? U->in_bytes : U->extra_bytes;
        se.ibuf = in > se.ibuf ? in : se.ibuf;
        se.obuf = U->out_bytes > se.obuf ? U->out_bytes : se.obuf;
    }
    se.ibuf = se.ibuf > 131072 ? 131072 : se.ibuf < 256 ? 256 : se.ibuf;
    se.obuf = se.obuf > 131072 ? 131072 : se.obuf < 256 ? 256 : se.obuf;
    if (engine_template(E->kind) == CG_TPL_SEML_ELT)
        se.ibuf = se.obuf = se.ibuf > se.obuf ? se.ibuf : se.obuf;
    return se;
}

/* band rows, checked against what the engine can hold */
static int64_t schedule(CgAccel *a, int layer, int u, int32_t *d, const PlanSemlLayer *l, const PlanSemlEngine *e,
                        EngineUse *use)
{
    int64_t rows = a->d->map[u].band_rows > 0 ? a->d->map[u].band_rows : plan_ln_band_rows(l, e);
    int64_t last = l->op == PLAN_SEML_ELT || l->op == PLAN_SEML_GPOOL ? l->g.h : l->g.ho;
    if (rows <= 0)
        return cg_accel_error(a, layer, "not even one row fits the engine's band buffers (%lld / %lld bytes)",
                              (long long)e->ibuf, (long long)e->obuf);
    d[O2H_D_BAND_ROWS] = (int32_t)rows;
    d[O2H_D_NBANDS] = (int32_t)cdiv(last, rows);
    use->max_bands = d[O2H_D_NBANDS] > use->max_bands ? d[O2H_D_NBANDS] : use->max_bands;
    int64_t k = l->g.kh > l->g.kw ? l->g.kh : l->g.kw, tiles = cdiv(l->g.f, e->pa);
    use->max_k = k > use->max_k ? k : use->max_k;
    use->max_tiles = tiles > use->max_tiles ? tiles : use->max_tiles;
    int64_t it = compute_iters(l, e, rows);
    use->max_it = it > use->max_it ? it : use->max_it;
    return rows;
}

/* ------------------------------------------------------------ by kind */

/* conv epilogue: fused residual Add, then table */
static int conv_epilogue(CgAccel *a, const PlanUnit *U, int32_t *d, PlanSemlLayer *l)
{
    int cur = a->q[U->layer].y;
    for (int i = 0; i < U->n_fused; i++) {
        const QuantLayer *f = &a->q[U->fused[i]];
        if (f->kind == QK_ADD && !d[O2H_D_ADD] && !d[O2H_D_LUT] && (f->x == cur || f->x2 == cur)) {
            bool first = f->x == cur;
            const O2hEltQ *e = &f->elt;
            const int32_t v[8] = {first ? e->a_zero : e->b_zero, first ? e->ma : e->mb,
                                  first ? e->b_zero : e->a_zero, first ? e->mb : e->ma,
                                  e->shift, e->zero, e->lo, e->hi};
            d[O2H_D_ADD] = 1;
            for (int k = 0; k < 8; k++)
                d[O2H_D_ADD_ZA + k] = v[k];
            if (operand(a, U->fused[i], d, 1, first ? f->x2 : f->x))
                return -1;
            l->add = true;
        } else if (f->kind == QK_LUT && !d[O2H_D_LUT] && f->x == cur) {
            d[O2H_D_LUT] = 1;
            d[O2H_D_LUT_OFF] = (int32_t)cg_wimg_add(a, f->lut, 256);
            l->lut = true;
        } else {
            return cg_accel_error(a, U->fused[i], "this layer cannot join the conv engine's epilogue "
                                                  "(requantize, residual Add, table)");
        }
        cur = f->y;
    }
    return 0;
}

static int seml_conv(CgAccel *a, int u, const PlanSemlEngine *e, EngineUse *use)
{
    const PlanUnit *U = &a->p->units[u];
    const QuantLayer *q = &a->q[U->layer];
    int32_t *d = desc_new(a, u);
    PlanSemlLayer l = {.op = PLAN_SEML_CONV};
    l.g = q->kind == QK_CONV ? cg_geom_conv(&q->conv) : cg_geom_fc(a, q);
    d[O2H_D_OP] = O2H_OP_CONV;
    put_geom(d, &l.g);
    d[O2H_D_XZERO] = q->x_zero;
    put_out_q(d, q->rq.zero, q->lo, q->hi);
    if (operand(a, U->layer, d, 0, q->x) || conv_epilogue(a, U, d, &l) || result(a, U->layer, d, U->out_t))
        return -1;
    int64_t tile = plan_ln_tile_bytes(&l, e);
    int64_t off = cg_wimg_conv_tiles(a, U->layer, q, e->pa, tile);
    if (off < 0)
        return -1;
    d[O2H_D_W_OFF] = (int32_t)off;
    d[O2H_D_W_TILE] = (int32_t)tile;
    int64_t b = l.g.c / l.g.g * l.g.kh * l.g.kw;
    use->max_b = b > use->max_b ? b : use->max_b;
    return schedule(a, U->layer, u, d, &l, e, use) > 0 ? 0 : -1;
}

static int seml_window(CgAccel *a, int u, const PlanSemlEngine *e, EngineUse *use)
{
    const PlanUnit *U = &a->p->units[u];
    const QuantLayer *q = &a->q[U->layer];
    if (U->n_fused && q->kind != QK_CONV)
        return cg_accel_error(a, U->fused[0], "a pool has no fused epilogue");
    int32_t *d = desc_new(a, u);
    PlanSemlLayer l = {.op = PLAN_SEML_DW};
    int64_t off = 0;
    d[O2H_D_XZERO] = q->x_zero;
    put_out_q(d, q->rq.zero, q->lo, q->hi);
    if (q->kind == QK_CONV) {
        l.g = cg_geom_conv(&q->conv);
        d[O2H_D_OP] = O2H_OP_DWCONV;
        off = cg_wimg_dw_record(a, q);
        if (conv_epilogue(a, U, d, &l))
            return -1;
    } else if (q->kind == QK_MAXPOOL || q->kind == QK_AVGPOOL) {
        l.op = PLAN_SEML_POOL;
        l.g = cg_geom_pool(&q->pool);
        l.avg = q->kind == QK_AVGPOOL;
        d[O2H_D_OP] = l.avg ? O2H_OP_AVGPOOL : O2H_OP_MAXPOOL;
        d[O2H_D_INCLUDE_PAD] = q->pool.count_include_pad;
        d[O2H_D_EPB] = q->pool.PB, d[O2H_D_EPR] = q->pool.PR;
        if (!l.avg)
            put_out_q(d, 0, q->lo, 127);
    } else {
        l.op = PLAN_SEML_GPOOL;
        l.g = cg_geom_map(a, q->x);
        l.g.ho = l.g.wo = 1;
        l.avg = q->kind == QK_GLOBAL_AVGPOOL;
        d[O2H_D_OP] = l.avg ? O2H_OP_GAVGPOOL : O2H_OP_GMAXPOOL;
    }
    if (l.avg) {
        l.rq_n = q->rq.n;
        d[O2H_D_RQ_N] = q->rq.n;
        off = cg_wimg_pool_record(a, q);
    }
    d[O2H_D_W_OFF] = (int32_t)off;
    put_geom(d, &l.g);
    if (operand(a, U->layer, d, 0, q->x) || result(a, U->layer, d, U->out_t))
        return -1;
    int64_t c = l.g.f > l.g.c ? l.g.f : l.g.c, kk = l.op == PLAN_SEML_GPOOL ? 1 : l.g.kh * l.g.kw;
    use->max_c = c > use->max_c ? c : use->max_c;
    use->max_kk = kk > use->max_kk ? kk : use->max_kk;
    return schedule(a, U->layer, u, d, &l, e, use) > 0 ? 0 : -1;
}

/* a per-channel vector operand ([N, C, 1, 1] against an [N, C, H, W] map) */
static bool is_vector(const CgAccel *a, int t, int64_t c)
{
    int64_t h, w, cc;
    cg_accel_dims(a, cg_accel_resolve(a, t), &h, &w, &cc);
    return h * w == 1 && cc == c;
}

static int seml_binary(CgAccel *a, int u, const QuantLayer *q, int32_t *d, PlanSemlLayer *l)
{
    int x = q->x, x2 = q->x2;
    const O2hEltQ *e = &q->elt;
    int32_t za = e->a_zero, ma = e->ma, zb = e->b_zero, mb = e->mb;
    if (is_vector(a, x, l->g.c) && l->g.h * l->g.w > 1) {  /* the map goes first */
        int t = x;
        x = x2, x2 = t;
        int32_t z = za, m = ma;
        za = zb, ma = mb, zb = z, mb = m;
    }
    bool vec = is_vector(a, x2, l->g.c) && l->g.h * l->g.w > 1;
    int64_t h, w, c;
    cg_accel_dims(a, cg_accel_resolve(a, x2), &h, &w, &c);
    if (!vec && (h != l->g.h || w != l->g.w || c != l->g.c))
        return cg_accel_error(a, a->p->units[u].layer, "broadcast of this shape is not an engine operand");
    l->binary = true, l->bvec = vec;
    d[O2H_D_OP] = q->kind == QK_ADD ? O2H_OP_ADD : O2H_OP_MUL;
    d[O2H_D_BVEC] = vec;
    d[O2H_D_ZA] = za, d[O2H_D_MA] = ma, d[O2H_D_ZB] = zb, d[O2H_D_MB] = q->kind == QK_ADD ? mb : 0;
    d[O2H_D_SH_A] = e->shift;
    put_out_q(d, e->zero, e->lo, e->hi);
    return operand(a, a->p->units[u].layer, d, 0, x) || operand(a, a->p->units[u].layer, d, 1, x2) ? -1 : 0;
}

static int seml_elt_one(CgAccel *a, int u, const PlanSemlEngine *e, EngineUse *use, const QuantLayer *q)
{
    int32_t *d = desc_new(a, u);
    PlanSemlLayer l = {.op = PLAN_SEML_ELT, .in_dense = true, .in2_dense = true, .out_dense = true};
    l.g = cg_geom_map(a, q->y);
    int rc = 0;
    if (q->kind == QK_ADD || q->kind == QK_MUL) {
        rc = seml_binary(a, u, q, d, &l);
    } else {
        d[O2H_D_OP] = q->kind == QK_LUT ? O2H_OP_LUT : O2H_OP_RESCALE;
        if (q->kind == QK_LUT) {
            d[O2H_D_LUT_OFF] = (int32_t)cg_wimg_add(a, q->lut, 256);
            l.lut = true;
        } else {
            d[O2H_D_ZA] = q->x_zero, d[O2H_D_MA] = q->rq.mult[0], d[O2H_D_SH_A] = q->rq.shift[0];
            put_out_q(d, q->rq.zero, q->rq.lo, q->rq.hi);
        }
        rc = operand(a, a->p->units[u].layer, d, 0, q->x);
    }
    put_geom(d, &l.g);
    if (rc || result(a, a->p->units[u].layer, d, q->y))
        return -1;
    use->max_c = l.g.c > use->max_c ? l.g.c : use->max_c;
    return schedule(a, a->p->units[u].layer, u, d, &l, e, use) > 0 ? 0 : -1;
}

/* Concat along channels: input i copied (or rescaled) into its channel slice */
static int seml_concat(CgAccel *a, int u, const PlanSemlEngine *e, EngineUse *use, const QuantLayer *q)
{
    int layer = a->p->units[u].layer;
    PlanGeom out = cg_geom_map(a, q->y);
    if (q->outer != 1 || q->inner != out.h * out.w)
        return cg_accel_error(a, layer, "only a Concat along channels stays on the accelerator");
    int64_t coff = 0;
    for (int i = 0; i < q->n_in; i++) {
        int32_t *d = desc_new(a, u);
        PlanSemlLayer l = {.op = PLAN_SEML_ELT, .in_dense = true, .in2_dense = true, .out_dense = false};
        l.g = cg_geom_map(a, q->in[i]);
        d[O2H_D_OP] = O2H_OP_COPY;
        const O2hRequant *rq = &q->in_rq[i];
        d[O2H_D_COPYA] = rq->mult == NULL;
        if (rq->mult) {
            d[O2H_D_ZA] = q->in_zero[i], d[O2H_D_MA] = rq->mult[0], d[O2H_D_SH_A] = rq->shift[0];
            put_out_q(d, rq->zero, rq->lo, rq->hi);
        }
        put_geom(d, &l.g);
        if (operand(a, layer, d, 0, q->in[i]) || result(a, layer, d, q->y))
            return -1;
        d[O2H_D_OUT_COFF] = (int32_t)coff;
        coff += l.g.c;
        use->max_c = l.g.c > use->max_c ? l.g.c : use->max_c;
        if (schedule(a, layer, u, d, &l, e, use) <= 0)
            return -1;
    }
    return 0;
}

/* a channel slice or shuffle: one copy descriptor, the layer as planned */
static int seml_move(CgAccel *a, int u, const PlanSemlEngine *e, EngineUse *use)
{
    const PlanUnit *U = &a->p->units[u];
    if (U->elt != PLAN_ELT_MOVE)
        return cg_accel_error(a, U->layer, "only a move of whole channels stays on the accelerator");
    int32_t *d = desc_new(a, u);
    PlanSemlLayer l;
    plan_unit_seml_layers(a->p, a->g, u, &l, 1);
    d[O2H_D_OP] = O2H_OP_COPY;
    d[O2H_D_COPYA] = 1;
    put_geom(d, &l.g);
    put_out_q(d, 0, -128, 127);
    if (operand(a, U->layer, d, 0, U->in_t) || result(a, U->layer, d, U->out_t))
        return -1;
    d[O2H_D_IN_COFF] = (int32_t)U->mv.coff;
    d[O2H_D_CSTEP] = (int32_t)U->mv.step;
    d[O2H_D_CGROUPS] = (int32_t)U->mv.groups;
    use->max_c = l.g.c > use->max_c ? l.g.c : use->max_c;
    return schedule(a, U->layer, u, d, &l, e, use) > 0 ? 0 : -1;
}

static int seml_unit(CgAccel *a, int u, EngineUse *uses)
{
    const PlanUnit *U = &a->p->units[u];
    int eng = a->d->map[u].engine;
    const QuantLayer *q = &a->q[U->layer];
    EngineUse *use = &uses[eng];
    switch (engine_template(a->d->engines[eng].kind)) {
    case CG_TPL_SEML_CONV:
        if (q->kind != QK_CONV && q->kind != QK_FC)
            return cg_accel_error(a, U->layer, "the conv engine got a %s layer", pass_quant_kind_name(q->kind));
        return seml_conv(a, u, &use->e, use);
    case CG_TPL_SEML_DW:
        return seml_window(a, u, &use->e, use);
    default:
        if (U->n_fused)
            return cg_accel_error(a, U->fused[0], "the element-wise engine has no fused epilogue");
        if (q->kind == QK_CONCAT)
            return seml_concat(a, u, &use->e, use, q);
        if (q->kind == QK_MOVE)
            return seml_move(a, u, &use->e, use);
        if (q->kind != QK_ADD && q->kind != QK_MUL && q->kind != QK_LUT && q->kind != QK_RESCALE)
            return cg_accel_error(a, U->layer, "the element-wise engine cannot run a %s layer",
                                  pass_quant_kind_name(q->kind));
        return seml_elt_one(a, u, &use->e, use, q);
    }
}

/* ------------------------------------------------------------ instances */

static void engine_instance(CgAccel *a, int e, const EngineUse *use)
{
    CgTemplate t = engine_template(a->d->engines[e].kind);
    char prefix[24];
    snprintf(prefix, sizeof prefix, "e%d_%s", e, t == CG_TPL_SEML_CONV ? "conv" : t == CG_TPL_SEML_DW ? "dw" : "elt");
    CgInst *in = cg_inst_new(a, t, prefix, -1);
    in->engine = e;
    a->engine_inst[e] = a->n_inst - 1;
    const PlanSemlEngine *s = &use->e;
    cg_param_i(in, "PA", s->pa);
    if (t != CG_TPL_SEML_ELT)
        cg_param_i(in, "PB", s->pb);
    cg_param_i(in, "PP", s->pp);
    if (t == CG_TPL_SEML_CONV)
        cg_param_i(in, "MAX_B", use->max_b > 0 ? use->max_b : 1);
    if (t != CG_TPL_SEML_CONV)
        cg_param_i(in, "MAX_C", use->max_c > 0 ? use->max_c : 1);
    if (t == CG_TPL_SEML_DW) {
        cg_param_i(in, "MAX_KK", use->max_kk > 0 ? use->max_kk : 1);
        cg_param_i(in, "MAX_K", use->max_k > 0 ? use->max_k : 1);
    }
    if (t == CG_TPL_SEML_CONV)
        cg_param_i(in, "MAX_TILES", use->max_tiles > 0 ? use->max_tiles : 1);
    cg_param_i(in, "MAX_BANDS", use->max_bands > 0 ? use->max_bands : 1);
    if (t == CG_TPL_SEML_ELT) {
        cg_param_i(in, "BUF", s->ibuf);
    } else {
        cg_param_i(in, "IBUF", s->ibuf);
        cg_param_i(in, "OBUF", s->obuf);
    }
    cg_param_i(in, "BEAT", s->beat);
    cg_param_i(in, "MAX_IT", use->max_it > 0 ? use->max_it : 1);
    in->origin = strdup("reusable engine (layers in desc/o2h_desc.h)");
}

int cg_accel_seml(CgAccel *a)
{
    const PlanDesign *d = a->d;
    EngineUse *uses = calloc((size_t)d->n_engines + 1, sizeof *uses);
    if (!uses)
        abort();
    for (int e = 0; e < d->n_engines; e++)
        if (!d->engines[e].sesl)
            uses[e].e = engine_of(a, e);
    for (int u = d->split; u < a->p->n_units; u++) {
        int first = a->n_desc;
        seml_unit(a, u, uses);
        for (int i = first; i < a->n_desc; i++)
            a->desc[(size_t)i * O2H_DESC_WORDS + O2H_D_ENGINE] = d->map[u].engine;
    }
    for (int e = 0; e < d->n_engines; e++)
        if (!d->engines[e].sesl && d->engines[e].n_layers > 0)
            engine_instance(a, e, &uses[e]);
    free(uses);
    return a->errors ? -1 : 0;
}
