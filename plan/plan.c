/* plan.c - the planner's entry: options, budgets, units, the search, the
 * analyses, and freeing it all.
 *
 * Why this file is thin: each phase is its own file with its own cost
 * note (docs/plan.md, "Complexity"): units.c maps layers to units,
 * search.c and design.c search splits and PE divisions, memory.c and
 * roofline.c analyse. Here they are called in order, the budgets the
 * search divides are fixed (a share of the device, the PEs its DSPs
 * allow, the DRAM bytes per cycle its AXI ports reach) and the largest
 * legal split is found: no SESL unit may depend on a host layer, and every
 * SESL unit must be one the SESL templates run.
 */
#include "search.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void plan_options_default(PlanOptions *o)
{
    memset(o, 0, sizeof *o);
    o->prec = IR_PREC_INT8;
    o->bits = 8;
    o->resource_frac = 0.9;
    o->force_split = -1;
    o->objective = PLAN_OBJ_BALANCED;
}

const char *plan_kind_name(PlanKind k)
{
    static const char *names[PLAN_K_COUNT] = {"conv", "dwconv", "pwconv", "fc", "pool", "eltwise"};
    return (unsigned)k < PLAN_K_COUNT ? names[k] : "?";
}

static const char *const objective_names[] = {"balanced", "throughput", "latency"};

const char *plan_objective_name(PlanObjective o)
{
    return (unsigned)o < 3 ? objective_names[o] : "?";
}

int plan_objective_parse(const char *s, PlanObjective *o)
{
    for (int i = 0; s && i < 3; i++)
        if (!strcmp(s, objective_names[i])) {
            *o = (PlanObjective)i;
            return 0;
        }
    return -1;
}

PlanSemlEngine plan_engine_seml(const PlanDesign *d, int engine)
{
    const PlanEngine *en = &d->engines[engine];
    return (PlanSemlEngine){en->shape.pa, en->shape.pb, en->shape.pp, en->ibuf, en->obuf, en->beat};
}

/* ------------------------------------------------------------- options */

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
    if ((unsigned)o->objective > PLAN_OBJ_LATENCY) {
        diag_error(d, g->path, NULL, NULL, "unknown objective %d", (int)o->objective);
        bad = -1;
    }
    if (dev->dsp <= 0 || dev->bram18k <= 0 || dev->dram_gbps <= 0 || dev->clock_mhz <= 0 || dev->axi_ports <= 0 ||
        dev->axi_bits < 8 || !(dev->axi_eff > 0 && dev->axi_eff <= 1)) {
        diag_error(d, g->path, NULL, NULL, "device '%s' lacks DSP, BRAM, bandwidth, AXI or clock figures", dev->name);
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
    p->beat = plan_device_beat(&p->dev);
    p->bytes_per_cycle = plan_device_bytes_per_cycle(&p->dev, p->clock_mhz, p->bandwidth_gbps);
}

/* the largest split whose SESL units the SESL part can run */
static void set_max_split(Plan *p, const PlanTensorInfo *ti)
{
    p->max_split = p->n_units;
    for (int i = 0; i < p->n_units; i++) {
        PlanUnit *u = &p->units[i];
        u->in_dram = ti->unit_of[u->in_t] < 0;
        u->out_dram = ti->dram_out[u->out_t];
        bool bad = u->after_host || !u->sesl_ok;
        if (bad && i < p->max_split)
            p->max_split = i;
    }
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
    PlanTensorInfo ti;
    memset(&ti, 0, sizeof ti);
    if (plan_units_build(g, opt, p, &ti, d)) {
        plan_tensor_info_free(&ti);
        plan_free(p);
        return -1;
    }
    set_budgets(p);
    set_max_split(p, &ti);
    Search S;
    search_init(&S, g, p, &ti);
    design_run(&S);
    search_free(&S);
    plan_tensor_info_free(&ti);
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
    free(p->pareto);
    free(p->roof);
    free(p->units);
    free(p->host_layers);
    memset(p, 0, sizeof *p);
}
