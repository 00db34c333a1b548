/* hls_prog.c - from (integer graph, plan, design) to the accelerator model
 * (CgAccel) that the HLS writers print.
 *
 * Why a model first: the engines, the top, the descriptors, the weight
 * image and the testbench must all agree on the same facts - which unit
 * runs where, where each feature map lives in DRAM, which constants each
 * engine holds. Deciding them once here, from the plan and from the
 * lowering's constants (pass_quant_lower: the numbers the host program
 * uses), keeps the writers free of decisions.
 *
 * Steps: lower every integer layer; resolve views (a Flatten before an FC,
 * size-1 reshapes) to the feature map they show; place the feature maps
 * the SEML part, the host or the SESL part's DRAM edges touch in the DRAM
 * arena (NHWC, the SESL->SEML boundary twice, for ping-pong); instantiate
 * the SESL network's processes (hls_sesl.c) and, per SEML unit, its
 * descriptors and weight-image records on its engine (hls_seml.c).
 */
#include "hls_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "templates/hls/common/o2h_desc.h"

int cg_accel_error(CgAccel *a, int layer, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const IrLayer *L = layer >= 0 ? &a->g->layers[layer] : NULL;
    diag_error(a->diag, a->g->path, L ? L->name : NULL, L ? ir_op_name(L->op) : NULL, "accelerator: %s", msg);
    a->errors++;
    return -1;
}

static void *grow(void *p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return p;
    int n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(p, (size_t)n * elem);
    if (!q)
        abort();
    memset((char *)q + (size_t)*cap * elem, 0, (size_t)(n - *cap) * elem);
    *cap = n;
    return q;
}

/* ------------------------------------------------------------ instances */

static const struct {
    const char *file, *entry, *counter;
} tpl_info[CG_TPL_COUNT] = {
    [CG_TPL_WINDOW] = {"sesl_window", "window_run", "window_cycles"},
    [CG_TPL_MAC] = {"sesl_mac", "mac_run", "mac_cycles"},
    [CG_TPL_POOL] = {"sesl_pool", "pool_run", "pool_cycles"},
    [CG_TPL_ELT] = {"sesl_eltwise", "eltwise_run", "eltwise_cycles"},
    [CG_TPL_STREAM] = {"sesl_stream", NULL, "stream_cycles"},
    [CG_TPL_SEML_CONV] = {"seml_conv", "conv_layer", "conv_layer_cycles"},
    [CG_TPL_SEML_DW] = {"seml_dw", "dw_layer", "dw_layer_cycles"},
    [CG_TPL_SEML_ELT] = {"seml_eltwise", "eltwise_layer", "eltwise_layer_cycles"},
};

const char *cg_tpl_file(CgTemplate t)
{
    return tpl_info[t].file;
}

CgInst *cg_inst_new(CgAccel *a, CgTemplate tpl, const char *prefix, int unit)
{
    a->inst = grow(a->inst, &a->cap_inst, a->n_inst + 1, sizeof *a->inst);
    CgInst *in = &a->inst[a->n_inst++];
    memset(in, 0, sizeof *in);
    in->tpl = tpl;
    snprintf(in->prefix, sizeof in->prefix, "%s", prefix);
    in->entry = tpl_info[tpl].entry;
    in->counter = tpl_info[tpl].counter;
    in->proc = in->engine = -1;
    in->unit = unit;
    in->args[0] = in->args[1] = -1;
    return in;
}

void cg_param_s(CgInst *in, const char *name, const char *v)
{
    in->params = grow(in->params, &in->cap_params, in->n_params + 1, sizeof *in->params);
    CgParam *p = &in->params[in->n_params++];
    snprintf(p->name, sizeof p->name, "%s", name);
    p->value = strdup(v);
    if (!p->value)
        abort();
}

void cg_param_i(CgInst *in, const char *name, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, v < 0 ? "(%lld)" : "%lld", (long long)v);
    cg_param_s(in, name, buf);
}

/* ---------------------------------------------------------------- views */

/* Views the accelerator passes through: the NHWC bytes of the source are
 * the bytes the reader sees. A Flatten/Reshape to [N, K] is one (its FC
 * reader takes the map in (h, w, c) order); a reshape that only adds or
 * drops size-1 dims keeps the channel order (e.g. [1, C, 1, 1] <-> [1, C]). */
static bool is_view(const IrGraph *g, int l)
{
    return (ir_op_flags(g->layers[l].op) & IR_F_NO_DATA) && !g->layers[l].dead;
}

int cg_accel_resolve(const CgAccel *a, int t)
{
    const IrGraph *g = a->g;
    for (int guard = 0; t >= 0 && guard < g->n_layers; guard++) {
        int l = g->tensors[t].producer;
        if (l < 0 || !is_view(g, l) || g->layers[l].n_in < 1)
            break;
        t = g->layers[l].in[0];
    }
    return t;
}

/* NHWC dims of a tensor: [N, C, H, W...] -> (H, prod W..., C); rank 2 [N, K] -> (1, 1, K) */
void cg_accel_dims(const CgAccel *a, int t, int64_t *h, int64_t *w, int64_t *c)
{
    const IrTensor *T = &a->g->tensors[t];
    *h = *w = *c = 1;
    if (T->rank >= 2)
        *c = T->dims[1];
    else if (T->rank == 1)
        *c = T->dims[0];
    if (T->rank >= 3)
        *h = T->dims[2];
    for (int i = 3; i < T->rank; i++)
        *w *= T->dims[i];
}

/* ------------------------------------------------------------ geometry */

PlanGeom cg_geom_conv(const O2hConv2d *c)
{
    return (PlanGeom){c->H, c->W, c->C, c->HO, c->WO, c->F, c->KH, c->KW, c->SH,
                      c->SW, c->DH, c->DW, c->PT, c->PL, c->PB, c->PR, c->G};
}

/* FC: a conv whose window is its whole input map */
PlanGeom cg_geom_fc(const CgAccel *a, const QuantLayer *q)
{
    int64_t h, w, c;
    cg_accel_dims(a, cg_accel_resolve(a, q->x), &h, &w, &c);
    return (PlanGeom){h, w, c, 1, 1, q->fc.N, h, w, 1, 1, 1, 1, 0, 0, 0, 0, 1};
}

PlanGeom cg_geom_pool(const O2hPool2d *p)
{
    return (PlanGeom){p->H, p->W, p->C, p->HO, p->WO, p->C, p->KH, p->KW, p->SH,
                      p->SW, p->DH, p->DW, p->PT, p->PL, p->PB, p->PR, p->C};
}

PlanGeom cg_geom_map(const CgAccel *a, int t)
{
    int64_t h, w, c;
    cg_accel_dims(a, cg_accel_resolve(a, t), &h, &w, &c);
    return (PlanGeom){h, w, c, h, w, c, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1};
}

/* ----------------------------------------------------------------- DRAM */

static int dram_place(CgAccel *a, int t, bool boundary)
{
    t = cg_accel_resolve(a, t);
    if (a->dram_of[t] >= 0) {
        a->dram[a->dram_of[t]].boundary |= boundary;
        return a->dram_of[t];
    }
    a->dram = grow(a->dram, &a->cap_dram, a->n_dram + 1, sizeof *a->dram);
    CgDram *m = &a->dram[a->n_dram];
    memset(m, 0, sizeof *m);
    m->tensor = t;
    cg_accel_dims(a, t, &m->h, &m->w, &m->c);
    m->bytes = m->h * m->w * m->c;
    m->boundary = boundary;
    a->dram_of[t] = a->n_dram;
    return a->n_dram++;
}

/* Offsets: the boundary area first (twice), then everything else; every
 * region 64-byte aligned. */
static void dram_layout(CgAccel *a)
{
    int64_t off = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < a->n_dram; i++) {
            CgDram *m = &a->dram[i];
            if (m->boundary != (pass == 0))
                continue;
            m->off = off;
            off += (m->bytes + 63) / 64 * 64;
        }
        if (pass == 0) {
            a->bnd_stride = off;
            off *= 2;
        }
    }
    a->fm_bytes = off > 0 ? off : 64;
}

/* A tensor's producer: the unit that makes it (through views), else -1 */
static int unit_of(const CgAccel *a, int t, const int *unit_by_layer)
{
    t = cg_accel_resolve(a, t);
    int l = a->g->tensors[t].producer;
    return l >= 0 ? unit_by_layer[l] : -1;
}

int cg_unit_io(const CgAccel *a, int u, int *ins, int *out)
{
    const PlanUnit *U = &a->p->units[u];
    int n = 0, cur = -1;
    for (int i = 0; i <= U->n_fused; i++) {
        const QuantLayer *q = &a->q[i ? U->fused[i - 1] : U->layer];
        int xs[IR_MAX_IO + 1], nx = 0;
        if (q->kind == QK_CONCAT)
            for (int k = 0; k < q->n_in; k++)
                xs[nx++] = q->in[k];
        else
            xs[nx++] = q->x;
        if (q->kind == QK_ADD || q->kind == QK_MUL)
            xs[nx++] = q->x2;
        for (int k = 0; k < nx; k++)
            if (xs[k] >= 0 && xs[k] != cur && n < IR_MAX_IO)
                ins[n++] = cg_accel_resolve(a, xs[k]);
        cur = q->y;
    }
    *out = cg_accel_resolve(a, U->out_t);   /* a Split's unit: its part */
    return n;
}

/* Which tensors need DRAM: everything a SEML unit reads or writes, and
 * every tensor crossing between the host and the accelerator. */
static void dram_plan(CgAccel *a, const int *unit_by_layer)
{
    const Plan *p = a->p;
    int split = a->d->split, ins[IR_MAX_IO], out;
    for (int u = split; u < p->n_units; u++) {
        int n = cg_unit_io(a, u, ins, &out);
        for (int k = 0; k < n; k++) {
            int pu = unit_of(a, ins[k], unit_by_layer);
            dram_place(a, ins[k], pu >= 0 && pu < split);
        }
        dram_place(a, out, false);
    }
    /* read outside the accelerator: every layer in no unit that moves data
     * (host layers, QuantizeLinear / DequantizeLinear at the edges) */
    for (int l = 0; l < a->g->n_layers; l++) {
        const IrLayer *L = &a->g->layers[l];
        if (L->dead || unit_by_layer[l] >= 0 || is_view(a->g, l) || (ir_op_flags(L->op) & IR_F_FOLD_ONLY))
            continue;
        for (int k = 0; k < L->n_in; k++) {
            int t = L->in[k];
            if (t < 0 || a->g->tensors[t].kind == IR_T_CONST)
                continue;
            int pu = unit_of(a, t, unit_by_layer);
            if (pu >= 0) {
                int m = dram_place(a, t, pu < split);   /* may move a->dram */
                a->dram[m].output = true;
            }
        }
    }
}

/* tensors the host writes before a frame: inputs of units made by no unit */
static void dram_inputs(CgAccel *a, const int *unit_by_layer)
{
    int ins[IR_MAX_IO], out;
    for (int u = 0; u < a->p->n_units; u++) {
        int n = cg_unit_io(a, u, ins, &out);
        for (int k = 0; k < n; k++)
            if (unit_of(a, ins[k], unit_by_layer) < 0) {
                int i = dram_place(a, ins[k], false);   /* may move a->dram */
                a->dram[i].input = true;
            }
    }
}

/* ------------------------------------------------------------ schedule */

static void step_add(CgAccel *a, CgStepKind k, int layer, int first, int last)
{
    CgSegment *prev = a->n_seg ? &a->seg[a->n_seg - 1] : NULL;
    if (prev && k == CG_STEP_SEML && prev->kind == CG_STEP_SEML && prev->last == first) {
        prev->last = last;   /* consecutive descriptors: one range */
        return;
    }
    a->seg = grow(a->seg, &a->cap_seg, a->n_seg + 1, sizeof *a->seg);
    a->seg[a->n_seg++] = (CgSegment){k, layer, first, last};
}

/* unit u's SEML descriptors, one step */
static void seml_step(CgAccel *a, int u)
{
    int first = -1, last = -1;
    for (int i = 0; i < a->n_desc; i++)
        if (a->desc_unit[i] == u)
            first = first < 0 ? i : first, last = i + 1;
    if (first >= 0)
        step_add(a, CG_STEP_SEML, -1, first, last);
}

/* The frame's steps in the graph's order: every layer that moves data is
 * either a host layer, in the SESL part (one step, where its first layer
 * is) or in SEML units (their descriptors; a Split has a unit per part,
 * consecutive, and its parts may fall on both sides of the split). */
static void schedule(CgAccel *a, const int *unit_by_layer)
{
    bool sesl_done = false;
    for (int l = 0; l < a->g->n_layers; l++) {
        const IrLayer *L = &a->g->layers[l];
        int u0 = unit_by_layer[l];
        if (L->dead || is_view(a->g, l) || (ir_op_flags(L->op) & IR_F_FOLD_ONLY))
            continue;
        if (u0 < 0) {
            step_add(a, CG_STEP_HOST, l, 0, 0);
            continue;
        }
        for (int u = u0; u < a->p->n_units && (u == u0 || a->p->units[u].layer == l); u++) {
            if (u < a->d->split) {
                if (!sesl_done)
                    step_add(a, CG_STEP_SESL, -1, 0, 0);
                sesl_done = true;
            } else if (l == a->p->units[u].layer) {
                seml_step(a, u);
            }
        }
    }
}

/* --------------------------------------------------------------- build */

static int lower_all(CgAccel *a)
{
    IrGraph *g = a->g;
    a->q = calloc((size_t)g->n_layers + 1, sizeof *a->q);
    a->has_q = calloc((size_t)g->n_layers + 1, sizeof *a->has_q);
    if (!a->q || !a->has_q)
        abort();
    for (int l = 0; l < g->n_layers; l++) {
        if (g->layers[l].dead || !pass_quant_is_int_layer(g, l))
            continue;
        if (pass_quant_lower(g, l, &a->q[l], a->diag))
            return -1;
        a->has_q[l] = a->q[l].kind != QK_QUANTIZE && a->q[l].kind != QK_DEQUANTIZE;
    }
    return 0;
}

/* every accelerated layer must be an 8-bit integer layer */
static int check_units(CgAccel *a)
{
    for (int u = 0; u < a->p->n_units; u++) {
        const PlanUnit *U = &a->p->units[u];
        int ls[9] = {U->layer};
        for (int i = 0; i < U->n_fused; i++)
            ls[i + 1] = U->fused[i];
        for (int i = 0; i <= U->n_fused; i++) {
            int l = ls[i];
            if (!a->has_q[l])
                cg_accel_error(a, l, "the layer is not integer (compile with --precision int8)");
            else if (a->q[l].wide)
                cg_accel_error(a, l, "16-bit layers are not implemented by the engines yet (use int8 or dfxp8)");
        }
    }
    return a->errors ? -1 : 0;
}

int *cg_units_by_layer(const CgAccel *a)
{
    int *ub = malloc(sizeof(int) * ((size_t)a->g->n_layers + 1));
    if (!ub)
        abort();
    for (int l = 0; l < a->g->n_layers; l++)
        ub[l] = -1;
    for (int u = a->p->n_units - 1; u >= 0; u--) {   /* a Split: its first part's unit */
        const PlanUnit *U = &a->p->units[u];
        ub[U->layer] = u;
        for (int i = 0; i < U->n_fused; i++)
            ub[U->fused[i]] = u;
    }
    return ub;
}

int cg_accel_build(CgAccel *a, IrGraph *g, const Plan *p, const PlanDesign *d, IrDiag *diag)
{
    memset(a, 0, sizeof *a);
    a->g = g, a->p = p, a->d = d, a->diag = diag;
    a->beat = 16;
    for (int e = 0; e < d->n_engines; e++)
        if (!d->engines[e].sesl && d->engines[e].beat > 0)
            a->beat = d->engines[e].beat;
    a->dram_of = malloc(sizeof(int) * ((size_t)g->n_tensors + 1));
    a->engine_inst = malloc(sizeof(int) * ((size_t)d->n_engines + 1));
    if (!a->dram_of || !a->engine_inst)
        abort();
    for (int t = 0; t < g->n_tensors; t++)
        a->dram_of[t] = -1;
    for (int e = 0; e < d->n_engines; e++)
        a->engine_inst[e] = -1;
    if (lower_all(a) || check_units(a))
        return -1;
    int *ub = cg_units_by_layer(a);
    dram_plan(a, ub);
    dram_inputs(a, ub);
    free(ub);
    if (d->split > 0 && cg_accel_sesl(a))
        return -1;
    for (int i = 0; i < a->n_dram; i++)
        if (a->dram[i].output || a->g->tensors[a->dram[i].tensor].is_output)
            a->dram[i].output = true;
    dram_layout(a);
    if (cg_accel_seml(a))
        return -1;
    ub = cg_units_by_layer(a);
    schedule(a, ub);
    free(ub);
    return a->errors ? -1 : 0;
}

void cg_accel_free(CgAccel *a)
{
    for (int i = 0; i < a->n_inst; i++) {
        for (int k = 0; k < a->inst[i].n_params; k++)
            free(a->inst[i].params[k].value);
        free(a->inst[i].params);
        free(a->inst[i].origin);
        free(a->inst[i].rom);
    }
    free(a->inst);
    free(a->proc_inst);
    free(a->engine_inst);
    free(a->dram);
    free(a->dram_of);
    free(a->desc);
    free(a->desc_unit);
    free(a->wimg);
    free(a->seg);
    free(a->q);
    free(a->has_q);
    if (a->have_net)
        plan_net_free(&a->net);
    memset(a, 0, sizeof *a);
}
