/* hls_sesl.c - the SESL part of the accelerator model: one engine instance
 * per process of the plan's SESL network (plan/net.h), with its template
 * parameters and ROM.
 *
 * Why from the network: the network is what the planner costed and what
 * the dataflow simulation sized (FIFO depths), so the top instantiates
 * exactly its processes and channels. Each compute process gets its unit's
 * constants from the lowering: a conv/FC keeps its weights, folded biases,
 * multipliers, shifts and epilogue table in its own ROM header; pools and
 * element-wise stages their multipliers and tables.
 */
#include "hls_internal.h"

#include <stdlib.h>
#include <string.h>

static char *unit_origin(const CgAccel *a, int u)
{
    const PlanUnit *U = &a->p->units[u];
    size_t n = 1;
    for (int i = 0; i <= U->n_fused; i++) {
        const IrLayer *L = &a->g->layers[i ? U->fused[i - 1] : U->layer];
        n += strlen(L->origin ? L->origin : L->name) + 2;
    }
    char *s = calloc(n, 1);
    if (!s)
        abort();
    for (int i = 0; i <= U->n_fused; i++) {
        const IrLayer *L = &a->g->layers[i ? U->fused[i - 1] : U->layer];
        if (i)
            strcat(s, ", ");
        strcat(s, L->origin ? L->origin : L->name);
    }
    return s;
}

static void geom_params(CgInst *in, const PlanGeom *g)
{
    static const char *names[] = {"H", "W", "C", "KH", "KW", "SH", "SW", "DH", "DW", "PT", "PL", "PB", "PR"};
    const int64_t v[13] = {g->h, g->w, g->c, g->kh, g->kw, g->sh, g->sw, g->dh, g->dw, g->pt, g->pl, g->pb, g->pr};
    for (int i = 0; i < 13; i++)
        cg_param_i(in, names[i], v[i]);
}

/* the unit's geometry as the window generator sees it: bottom/right pads
 * grown so that every output window fits (ceil-mode pools) */
static PlanGeom window_geom(const CgAccel *a, int u)
{
    const QuantLayer *q = &a->q[a->p->units[u].layer];
    PlanGeom g = q->kind == QK_CONV ? cg_geom_conv(&q->conv) : q->kind == QK_FC ? cg_geom_fc(a, q)
                                                                                : cg_geom_pool(&q->pool);
    int64_t need_h = (g.ho - 1) * g.sh + (g.kh - 1) * g.dh + 1 - g.h - g.pt;
    int64_t need_w = (g.wo - 1) * g.sw + (g.kw - 1) * g.dw + 1 - g.w - g.pl;
    g.pb = need_h > g.pb ? need_h : g.pb;
    g.pr = need_w > g.pr ? need_w : g.pr;
    return g;
}

static int window_inst(CgAccel *a, CgInst *in, int u)
{
    const QuantLayer *q = &a->q[a->p->units[u].layer];
    PlanGeom g = window_geom(a, u);
    geom_params(in, &g);
    in->args[0] = cg_accel_resolve(a, q->x);
    cg_param_i(in, "PAD", q->x_zero);
    return 0;
}

/* fused epilogue of a SESL conv: residual Add, then table */
static int mac_epilogue(CgAccel *a, CgInst *in, int u, const QuantLayer **lut, int *skip)
{
    const PlanUnit *U = &a->p->units[u];
    int cur = a->q[U->layer].y;
    bool add = false;
    *lut = NULL;
    for (int i = 0; i < U->n_fused; i++) {
        const QuantLayer *f = &a->q[U->fused[i]];
        if (f->kind == QK_ADD && !add && !*lut && (f->x == cur || f->x2 == cur)) {
            bool first = f->x == cur;
            const O2hEltQ *e = &f->elt;
            static const char *names[] = {"ADD_ZA", "ADD_MA", "ADD_ZB", "ADD_MB", "ADD_SH", "ADD_ZERO", "ADD_LO", "ADD_HI"};
            const int64_t v[8] = {first ? e->a_zero : e->b_zero, first ? e->ma : e->mb, first ? e->b_zero : e->a_zero,
                                  first ? e->mb : e->ma, e->shift, e->zero, e->lo, e->hi};
            for (int k = 0; k < 8; k++)
                cg_param_i(in, names[k], v[k]);
            *skip = cg_accel_resolve(a, first ? f->x2 : f->x);
            add = true;
        } else if (f->kind == QK_LUT && !*lut && f->x == cur) {
            *lut = f;
        } else {
            return cg_accel_error(a, U->fused[i], "this layer cannot join the conv engine's epilogue "
                                                  "(requantize, residual Add, table)");
        }
        cur = f->y;
    }
    if (!add) {
        static const char *names[] = {"ADD_ZA", "ADD_MA", "ADD_ZB", "ADD_MB", "ADD_SH", "ADD_ZERO", "ADD_LO", "ADD_HI"};
        const int64_t v[8] = {0, 0, 0, 0, 0, 0, -128, 127};
        for (int k = 0; k < 8; k++)
            cg_param_i(in, names[k], v[k]);
    }
    cg_param_i(in, "ADD", add);
    cg_param_i(in, "LUT", *lut != NULL);
    return 0;
}

static const char *rom_impl(const PlanEngine *e)
{
    return e->uram > 0 ? "uram" : e->bram18k > 0 ? "bram" : "lutram";
}

static int mac_inst(CgAccel *a, CgInst *in, int u, const PlanProc *pr, bool windowed)
{
    const PlanUnit *U = &a->p->units[u];
    const QuantLayer *q = &a->q[U->layer];
    PlanGeom g = q->kind == QK_CONV ? cg_geom_conv(&q->conv) : cg_geom_fc(a, q);
    int64_t kk = windowed ? g.kh * g.kw : 1, c = windowed ? g.c : g.c * g.kh * g.kw;
    if (!windowed && (g.sh != 1 || g.sw != 1 || g.pt || g.pl || g.pb || g.pr))
        return cg_accel_error(a, U->layer, "a strided or padded layer needs a window generator");
    const int64_t v[6] = {c, g.f, g.g, kk, g.ho * g.wo, pr->shape.pa};
    static const char *names[] = {"C", "F", "G", "KK", "P", "PA"};
    for (int i = 0; i < 6; i++)
        cg_param_i(in, names[i], v[i]);
    cg_param_i(in, "PB", pr->shape.pb);
    cg_param_i(in, "ZERO", q->rq.zero);
    cg_param_i(in, "LO", q->lo);
    cg_param_i(in, "HI", q->hi);
    const QuantLayer *lut;
    if (mac_epilogue(a, in, u, &lut, &in->args[1]))
        return -1;
    in->args[0] = windowed ? -1 : cg_accel_resolve(a, q->x);
    int64_t bytes = 0;
    in->rom = cg_rom_mac(a, U->layer, q, lut, pr->shape.pa, pr->shape.pb, &bytes);
    a->rom_bytes += bytes;
    cg_param_s(in, "ROM_IMPL", rom_impl(&a->d->engines[a->d->map[u].engine]));
    return in->rom ? 0 : -1;
}

static int pool_inst(CgAccel *a, CgInst *in, int u, const PlanProc *pr)
{
    const QuantLayer *q = &a->q[a->p->units[u].layer];
    bool global = q->kind == QK_GLOBAL_AVGPOOL || q->kind == QK_GLOBAL_MAXPOOL;
    bool avg = q->kind == QK_AVGPOOL || q->kind == QK_GLOBAL_AVGPOOL;
    PlanGeom g = global ? cg_geom_map(a, q->x) : cg_geom_pool(&q->pool);
    cg_param_i(in, "MODE", (global ? 2 : 0) + avg);
    in->args[0] = global ? cg_accel_resolve(a, q->x) : -1;
    geom_params(in, &g);
    cg_param_i(in, "HO", global ? 1 : g.ho);
    cg_param_i(in, "WO", global ? 1 : g.wo);
    cg_param_i(in, "INCLUDE_PAD", global ? 0 : q->pool.count_include_pad);
    cg_param_i(in, "PA", pr->shape.pa);
    cg_param_i(in, "PBT", pr->shape.pb);
    cg_param_i(in, "XZERO", q->x_zero);
    cg_param_i(in, "ZERO", avg ? q->rq.zero : 0);
    cg_param_i(in, "LO", q->lo);
    cg_param_i(in, "HI", avg ? q->hi : 127);
    in->rom = cg_rom_pool(a, q);
    return 0;
}

/* the element-wise stage: which channel is operand a, which b */
static int elt_inst(CgAccel *a, CgInst *in, int u, const PlanProc *pr)
{
    const PlanUnit *U = &a->p->units[u];
    const QuantLayer *q = &a->q[U->layer];
    int64_t h, w, c;
    cg_accel_dims(a, cg_accel_resolve(a, U->out_t), &h, &w, &c);
    static const char *names[] = {"ZA", "MA", "ZB", "MB", "SH", "SHB", "COPYA", "COPYB", "ZERO", "LO", "HI"};
    int64_t v[11] = {0, 0, 0, 0, 0, 0, 0, 0, 0, -128, 127}, cb = c, mode;
    IrChanMove mv = {c, c, 0, 1, 1};
    bool bvec = false;
    if (U->n_fused)
        return cg_accel_error(a, U->fused[0], "the element-wise stage has no fused epilogue");
    switch (q->kind) {
    case QK_ADD:
    case QK_MUL: {
        const O2hEltQ *e = &q->elt;
        int x = cg_accel_resolve(a, q->x), x2 = cg_accel_resolve(a, q->x2);
        int64_t za = e->a_zero, ma = e->ma, zb = e->b_zero, mb = e->mb, bh, bw, bc;
        cg_accel_dims(a, x, &bh, &bw, &bc);
        if (bh * bw == 1 && h * w > 1) {   /* the per-channel vector goes second */
            int t = x;
            x = x2, x2 = t;
            int64_t z = za, m = ma;
            za = zb, ma = mb, zb = z, mb = m;
        }
        cg_accel_dims(a, x2, &bh, &bw, &bc);
        bvec = bh * bw == 1 && h * w > 1;
        if (!bvec && (bh != h || bw != w || bc != c))
            return cg_accel_error(a, U->layer, "broadcast of this shape is not a stream operand");
        mode = q->kind == QK_ADD ? 0 : 1;
        int64_t t[11] = {za, ma, zb, mode ? 0 : mb, e->shift, e->shift, 0, 0, e->zero, e->lo, e->hi};
        memcpy(v, t, sizeof v);
        in->args[0] = x, in->args[1] = x2;
        break;
    }
    case QK_LUT:
        mode = 2;
        in->args[0] = cg_accel_resolve(a, q->x);
        break;
    case QK_RESCALE: {
        mode = 3;
        in->args[0] = cg_accel_resolve(a, q->x);
        int64_t t[11] = {q->x_zero, q->rq.mult[0], 0, 0, q->rq.shift[0], 0, 0, 0, q->rq.zero, q->rq.lo, q->rq.hi};
        memcpy(v, t, sizeof v);
        break;
    }
    case QK_CONCAT: {
        if (q->n_in != 2 || q->outer != 1 || q->inner != h * w)
            return cg_accel_error(a, U->layer, "a SESL Concat joins two maps along channels");
        mode = 4;
        cb = q->dims_axis[1];
        in->args[0] = cg_accel_resolve(a, q->in[0]), in->args[1] = cg_accel_resolve(a, q->in[1]);
        const O2hRequant *r0 = &q->in_rq[0], *r1 = &q->in_rq[1];
        int64_t t[11] = {q->in_zero[0], r0->mult ? r0->mult[0] : 0, q->in_zero[1], r1->mult ? r1->mult[0] : 0,
                         r0->mult ? r0->shift[0] : 0, r1->mult ? r1->shift[0] : 0, !r0->mult, !r1->mult,
                         r0->mult ? r0->zero : r1->mult ? r1->zero : 0, -128, 127};
        memcpy(v, t, sizeof v);
        break;
    }
    case QK_MOVE:   /* a channel slice or shuffle of each pixel word */
        if (U->elt != PLAN_ELT_MOVE)
            return cg_accel_error(a, U->layer, "only a move of whole channels stays on the accelerator");
        mode = 5;
        mv = U->mv;
        in->args[0] = cg_accel_resolve(a, U->in_t);
        break;
    default:
        return cg_accel_error(a, U->layer, "no SESL engine runs a %s layer", pass_quant_kind_name(q->kind));
    }
    cg_param_i(in, "MODE", mode);
    cg_param_i(in, "P", h * w);
    cg_param_i(in, "C", c);
    cg_param_i(in, "CB", cb);
    cg_param_i(in, "BVEC", bvec);
    cg_param_i(in, "PA", pr->shape.pa);
    for (int i = 0; i < 11; i++)
        cg_param_i(in, names[i], v[i]);
    cg_param_i(in, "CIN", mv.c_in);
    cg_param_i(in, "COFF", mv.coff);
    cg_param_i(in, "CSTEP", mv.step);
    cg_param_i(in, "CGROUPS", mv.groups);
    in->rom = cg_rom_elt(a, q->kind == QK_LUT ? q : NULL);
    return 0;
}

static int mover_inst(CgAccel *a, CgInst *in, const PlanProc *pr)
{
    int64_t h, w, c;
    cg_accel_dims(a, cg_accel_resolve(a, pr->tensor), &h, &w, &c);
    cg_param_i(in, "P", h * w);
    cg_param_i(in, "C", c);
    cg_param_i(in, "BEAT", a->beat);
    in->args[0] = cg_accel_resolve(a, pr->tensor);
    in->entry = pr->kind == PLAN_P_READ ? "stream_read" : pr->kind == PLAN_P_WRITE ? "stream_write" : "stream_dup";
    return 0;
}

/* does unit u's compute process read a window generator's output? */
static bool windowed(const CgAccel *a, const PlanProc *pr)
{
    return pr->n_in > 0 && a->net.chans[pr->in[0]].tensor < 0;
}

static int proc_inst(CgAccel *a, int i)
{
    const PlanProc *pr = &a->net.procs[i];
    static const CgTemplate tpl[] = {
        [PLAN_P_READ] = CG_TPL_STREAM, [PLAN_P_WINDOW] = CG_TPL_WINDOW, [PLAN_P_MAC] = CG_TPL_MAC,
        [PLAN_P_POOL] = CG_TPL_POOL, [PLAN_P_ELT] = CG_TPL_ELT, [PLAN_P_DUP] = CG_TPL_STREAM,
        [PLAN_P_WRITE] = CG_TPL_STREAM,
    };
    static const char *tag[] = {"rd", "win", "mac", "pool", "elt", "dup", "wr"};
    char prefix[24];
    snprintf(prefix, sizeof prefix, "s%d_%s", i, tag[pr->kind]);
    CgInst *in = cg_inst_new(a, tpl[pr->kind], prefix, pr->unit);
    in->proc = i;
    a->proc_inst[i] = a->n_inst - 1;
    in->origin = pr->unit >= 0 ? unit_origin(a, pr->unit) : strdup(a->g->tensors[pr->tensor].name);
    if (!in->origin)
        abort();
    switch (pr->kind) {
    case PLAN_P_WINDOW: return window_inst(a, in, pr->unit);
    case PLAN_P_MAC: return mac_inst(a, in, pr->unit, pr, windowed(a, pr));
    case PLAN_P_POOL: return pool_inst(a, in, pr->unit, pr);
    case PLAN_P_ELT: return elt_inst(a, in, pr->unit, pr);
    default: return mover_inst(a, in, pr);
    }
}

/* the DRAM edges of the network: readers read placed tensors, writers
 * write tensors the SEML part, the host or the graph's outputs read */
static int edges(CgAccel *a)
{
    for (int i = 0; i < a->net.n_procs; i++) {
        const PlanProc *pr = &a->net.procs[i];
        int t = cg_accel_resolve(a, pr->tensor);
        if (pr->kind == PLAN_P_READ && a->dram_of[t] < 0)
            return cg_accel_error(a, -1, "the SESL part reads '%s', which no one writes to DRAM",
                                  a->g->tensors[t].name);
        if (pr->kind == PLAN_P_WRITE && a->dram_of[t] < 0)
            return cg_accel_error(a, -1, "the SESL part writes '%s', which no one reads", a->g->tensors[t].name);
    }
    return 0;
}

int cg_accel_sesl(CgAccel *a)
{
    if (plan_net_build(a->p, a->g, a->d, &a->net, a->diag))
        return -1;
    a->have_net = true;
    plan_net_simulate(&a->net, 3);
    if (a->net.deadlock)
        return cg_accel_error(a, -1, "the SESL dataflow deadlocks with the sized FIFOs: %s", a->net.why);
    a->proc_inst = malloc(sizeof(int) * ((size_t)a->net.n_procs + 1));
    if (!a->proc_inst)
        abort();
    for (int i = 0; i < a->net.n_procs; i++)
        proc_inst(a, i);
    return a->errors ? -1 : edges(a);
}
