/* print.c - the plan as text tables (for people) and as JSON (plan.json, for
 * `compile`, the HTML report and scripts).
 *
 * Why both from one place: the text output, the JSON and the report must show
 * the same numbers; they all read the Plan struct and nothing recomputes a
 * figure here except unit conversions.
 */
#include "net.h"
#include "plan_internal.h"
#include "ir/escape.h"

#include <string.h>

static const char *layer_name(const IrGraph *g, int l)
{
    return l >= 0 && l < g->n_layers && g->layers[l].name ? g->layers[l].name : "?";
}

static const char *prec_name(IrPrecision prec, int bits)
{
    static char buf[16];
    switch (prec) {
    case IR_PREC_FLOAT: return "float";
    case IR_PREC_INT8: return "int8";
    case IR_PREC_INT16: return "int16";
    default:
        snprintf(buf, sizeof buf, "dfxp%d", bits);
        return buf;
    }
}

/* ------------------------------------------------------------- text */

static void text_header(const Plan *p, const IrGraph *g, FILE *f)
{
    int count[PLAN_K_COUNT] = {0};
    for (int i = 0; i < p->n_units; i++)
        count[p->units[i].kind]++;
    char path[512], board[128], part[128];
    fprintf(f, "plan for %s on %s (%s): %s, %d PEs, %.0f MHz, objective %s\n",
            esc_buf(path, sizeof path, ESC_TERM, g->path), esc_buf(board, sizeof board, ESC_TERM, p->dev.board),
            esc_buf(part, sizeof part, ESC_TERM, p->dev.part), prec_name(p->opt.prec, p->opt.bits), p->pe_budget,
            p->clock_mhz, plan_objective_name(p->opt.objective));
    fprintf(f, "DRAM: %.1f GB/s, %d AXI ports x %d bit at %.0f%% -> %.1f bytes/cycle (%.2f GB/s)\n",
            p->bandwidth_gbps, p->dev.axi_ports, p->dev.axi_bits, p->dev.axi_eff * 100, p->bytes_per_cycle,
            p->bytes_per_cycle * p->clock_mhz / 1e3);
    fprintf(f, "budgets (%.0f%% of the device): DSP %d, BRAM18K %d, URAM %d, LUT %d\n",
            p->opt.resource_frac * 100, p->dsp_cap, p->bram_cap, p->uram_cap, p->lut_cap);
    fprintf(f, "%d accelerated units (", p->n_units);
    for (int k = 0, first = 1; k < PLAN_K_COUNT; k++)
        if (count[k]) {
            fprintf(f, "%s%s %d", first ? "" : ", ", plan_kind_name((PlanKind)k), count[k]);
            first = 0;
        }
    fprintf(f, "), %d host layers; %.1f M MACs per frame; splits 0..%d are legal\n\n", p->n_host,
            p->total_macs / 1e6, p->max_split);
}

typedef void (*RowFn)(const PlanDesign *d, char *buf, size_t n);

static void r_fits(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%s", d->fits ? "yes" : "NO"); }
static void r_split(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%d", d->split); }
static void r_fps(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%.1f", d->fps); }
static void r_lat(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%.3f", d->latency_ms); }
static void r_period(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%lld", (long long)d->period); }
static void r_tsesl(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%lld", (long long)d->t_sesl); }
static void r_lsesl(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%lld", (long long)d->lat_sesl); }
static void r_tseml(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%lld", (long long)d->t_seml); }
static void r_pes(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%d", d->pes); }
static void r_util(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%.1f%%", d->pe_util * 100); }
static void r_dsp(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%d", d->dsp); }
static void r_bram(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%d", d->bram18k); }
static void r_uram(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%d", d->uram); }
static void r_lut(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%d", d->lut); }
static void r_dram(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%.2f", d->dram_bytes / 1e6); }
static void r_chip(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%.0f", d->onchip_bytes / 1024.0); }
static void r_engines(const PlanDesign *d, char *b, size_t n) { snprintf(b, n, "%d", d->n_engines); }

static void text_compare(const Plan *p, FILE *f)
{
    static const struct {
        const char *label;
        RowFn fn;
    } rows[] = {
        {"fits", r_fits}, {"split (SESL units)", r_split}, {"throughput (frames/s)", r_fps},
        {"latency (ms)", r_lat}, {"period (cycles)", r_period}, {"T_SESL (cycles)", r_tsesl},
        {"T_SEML (cycles)", r_tseml}, {"SESL fill+frame (cyc)", r_lsesl}, {"engines", r_engines}, {"PEs used", r_pes},
        {"PE utilization", r_util}, {"DSP", r_dsp}, {"BRAM18K", r_bram}, {"URAM", r_uram},
        {"LUT", r_lut}, {"DRAM MB/frame", r_dram}, {"on-chip KiB", r_chip},
    };
    const PlanDesign *ds[3] = {&p->hybrid, &p->seml, &p->sesl};
    fprintf(f, "%-24s %14s %14s %14s\n", "", "hybrid", "SEML-only", "SESL-only");
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        fprintf(f, "%-24s", rows[r].label);
        for (int k = 0; k < 3; k++) {
            char buf[64] = "-";
            if (ds[k]->fits || rows[r].fn == r_fits || rows[r].fn == r_split)
                rows[r].fn(ds[k], buf, sizeof buf);
            fprintf(f, " %14s", buf);
        }
        fputc('\n', f);
    }
    for (int k = 0; k < 3; k++)
        if (!ds[k]->fits)
        {
            fprintf(f, "%s: ", ds[k]->name);
            esc_put(f, ESC_TERM, ds[k]->why);
            fputc('\n', f);
        }
    if (p->hybrid.fits && p->seml.fits && p->seml.fps > 0)
        fprintf(f, "hybrid / SEML-only: throughput %.2fx, latency %.2fx\n", p->hybrid.fps / p->seml.fps,
                p->hybrid.latency_ms / p->seml.latency_ms);
    if (p->note[0])
        fprintf(f, "%s\n", p->note);
    fputc('\n', f);
}

static void text_pareto(const Plan *p, FILE *f)
{
    fprintf(f, "split -> (frames/s, latency): designs no other beats on both\n  %6s %12s %12s\n", "split",
            "frames/s", "latency ms");
    for (int i = 0; i < p->n_pareto; i++)
        fprintf(f, "  %6d %12.1f %12.3f\n", p->pareto[i].split, p->pareto[i].fps, p->pareto[i].latency_ms);
    fputc('\n', f);
}

static void text_engines(const PlanDesign *d, FILE *f)
{
    fprintf(f, "%s engines:\n  %3s %-8s %-5s %17s %6s %5s %5s %4s %6s %12s %9s\n", d->name, "#", "kind", "mode",
            "pa x pb x pp", "PEs", "DSP", "BRAM", "URAM", "layers", "busy cycles", "band KiB");
    for (int e = 0; e < d->n_engines; e++) {
        const PlanEngine *en = &d->engines[e];
        char shape[40], buf[24] = "-";
        snprintf(shape, sizeof shape, "%d x %d x %d", en->shape.pa, en->shape.pb, en->shape.pp);
        if (!en->sesl)
            snprintf(buf, sizeof buf, "%.1f", en->ibuf / 1024.0);
        fprintf(f, "  %3d %-8s %-5s %17s %6d %5d %5d %4d %6d %12lld %9s\n", e, plan_kind_name(en->kind),
                en->sesl ? "SESL" : "SEML", shape, en->pes, en->dsp, en->bram18k, en->uram, en->n_layers,
                (long long)en->busy, buf);
    }
    fputc('\n', f);
}

static void text_layers(const Plan *p, const IrGraph *g, const PlanDesign *d, FILE *f)
{
    fprintf(f, "%s layers:\n  %3s %-32s %-8s %6s %10s %10s %10s %10s %5s\n", d->name, "#", "layer", "kind",
            "engine", "cycles", "compute", "DRAM cyc", "DRAM KiB", "rows");
    char nb[160];
    for (int i = 0; i < p->n_units; i++) {
        const PlanUnitMap *m = &d->map[i];
        fprintf(f, "  %3d %-32s %-8s %5d%c %10lld %10lld %10lld %10.1f %5lld\n", i,
                esc_term_fit(nb, sizeof nb, layer_name(g, p->units[i].layer), 32, 0),
                plan_kind_name(p->units[i].kind), m->engine,
                m->sesl ? '*' : ' ', (long long)m->cycles, (long long)m->compute, (long long)m->mem,
                m->dram_bytes / 1024.0, (long long)m->band_rows);
    }
    fprintf(f, "  (* = dedicated SESL stage)\n");
    if (p->n_host) {
        fprintf(f, "host CPU layers:");
        for (int i = 0; i < p->n_host; i++)
        {
            fputc(' ', f);
            esc_put(f, ESC_TERM, layer_name(g, p->host_layers[i]));
        }
        fputc('\n', f);
    }
    fputc('\n', f);
}

void plan_print_text(const Plan *p, const IrGraph *g, FILE *f)
{
    text_header(p, g, f);
    text_compare(p, f);
    text_pareto(p, f);
    if (p->hybrid.fits) {
        text_engines(&p->hybrid, f);
        text_layers(p, g, &p->hybrid, f);
    }
    if (p->opt.timings)
        fprintf(f, "planner time: %.1f ms (%.1f ms CPU)\n", p->plan_ms, p->plan_cpu_ms);
}

/* ------------------------------------------------------------- JSON */

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    esc_put(f, ESC_JSON, s);
    fputc('"', f);
}

static void jnum(FILE *f, double x)
{
    if (x != x || x > 1e300 || x < -1e300)
        fputs("null", f);
    else
        fprintf(f, "%.6g", x);
}

static void json_device(const Plan *p, FILE *f)
{
    const PlanDevice *d = &p->dev;
    static const char *dsp_names[] = {"DSP48E1", "DSP48E2", "DSP58"};
    fprintf(f, "\"device\":{\"name\":");
    jstr(f, d->name);
    fprintf(f, ",\"board\":");
    jstr(f, d->board);
    fprintf(f, ",\"part\":");
    jstr(f, d->part);
    fprintf(f, ",\"dsp_kind\":\"%s\",\"dsp\":%d,\"bram18k\":%d,\"uram\":%d,\"lut\":%d,\"ff\":%d,"
               "\"dram_gbps\":%g,\"clock_mhz\":%g,\"axi_ports\":%d,\"axi_bits\":%d,\"axi_eff\":%g},\n",
            dsp_names[d->dsp_kind], d->dsp, d->bram18k, d->uram, d->lut, d->ff, d->dram_gbps, d->clock_mhz,
            d->axi_ports, d->axi_bits, d->axi_eff);
}

static void json_budget(const Plan *p, FILE *f)
{
    fprintf(f, "\"options\":{\"precision\":\"%s\",\"pe_budget\":%d,\"clock_mhz\":%g,\"bandwidth_gbps\":%g,"
               "\"resource_frac\":%g,\"force_split\":%d,\"objective\":\"%s\"},\n",
            prec_name(p->opt.prec, p->opt.bits), p->pe_budget, p->clock_mhz, p->bandwidth_gbps,
            p->opt.resource_frac, p->opt.force_split, plan_objective_name(p->opt.objective));
    fprintf(f, "\"budgets\":{\"pes\":%d,\"dsp\":%d,\"bram18k\":%d,\"uram\":%d,\"lut\":%d,\"peak_ops\":%.6g,"
               "\"dram_bytes_per_cycle\":%.6g,\"beat\":%d,\"max_split\":%d},\n",
            p->pe_budget, p->dsp_cap, p->bram_cap, p->uram_cap, p->lut_cap, p->peak_ops, p->bytes_per_cycle, p->beat,
            p->max_split);
}

static void json_engine(const PlanEngine *en, FILE *f)
{
    fprintf(f, "{\"kind\":\"%s\",\"mode\":\"%s\",\"pa\":%d,\"pb\":%d,\"pp\":%d,\"pes\":%d,\"dsp\":%d,"
               "\"bram18k\":%d,\"uram\":%d,\"lut\":%d,\"layers\":%d,\"busy_cycles\":%lld,"
               "\"ibuf\":%lld,\"obuf\":%lld,\"beat\":%d,"
               "\"max\":{\"a\":%lld,\"b\":%lld,\"p\":%lld,\"k\":%lld,\"hw\":%lld,\"c\":%lld}}",
            plan_kind_name(en->kind), en->sesl ? "sesl" : "seml", en->shape.pa, en->shape.pb, en->shape.pp,
            en->pes, en->dsp, en->bram18k, en->uram, en->lut, en->n_layers, (long long)en->busy,
            (long long)en->ibuf, (long long)en->obuf, en->beat,
            (long long)en->max_a, (long long)en->max_b, (long long)en->max_p, (long long)en->max_k,
            (long long)en->max_hw, (long long)en->max_c);
}

static void json_design_map(const Plan *p, const PlanDesign *d, FILE *f)
{
    fprintf(f, ",\"layers\":[");
    for (int i = 0; d->map && i < p->n_units; i++) {
        const PlanUnitMap *m = &d->map[i];
        fprintf(f, "%s{\"unit\":%d,\"engine\":%d,\"sesl\":%s,\"cycles\":%lld,\"compute\":%lld,\"mem\":%lld,"
                   "\"dram_bytes\":%lld,\"band_rows\":%lld}",
                i ? "," : "", i, m->engine, m->sesl ? "true" : "false", (long long)m->cycles,
                (long long)m->compute, (long long)m->mem, (long long)m->dram_bytes, (long long)m->band_rows);
    }
    fprintf(f, "]");
}

static void json_design(const Plan *p, const PlanDesign *d, FILE *f)
{
    fprintf(f, "{\"fits\":%s,\"why\":", d->fits ? "true" : "false");
    jstr(f, d->fits ? "" : d->why);
    fprintf(f, ",\"split\":%d,\"period_cycles\":%lld,\"fps\":", d->split, (long long)d->period);
    jnum(f, d->fps);
    fprintf(f, ",\"latency_ms\":");
    jnum(f, d->latency_ms);
    fprintf(f, ",\"latency_cycles\":%lld,\"lat_sesl\":%lld", (long long)d->latency, (long long)d->lat_sesl);
    fprintf(f, ",\"t_sesl\":%lld,\"t_seml\":%lld,\"t_host\":%lld,\"pes\":%d,\"dsp\":%d,\"bram18k\":%d,"
               "\"uram\":%d,\"lut\":%d,\"pe_util\":",
            (long long)d->t_sesl, (long long)d->t_seml, (long long)d->t_host, d->pes, d->dsp, d->bram18k,
            d->uram, d->lut);
    jnum(f, d->pe_util);
    fprintf(f, ",\"dram_bytes\":%lld,\"onchip_bytes\":%lld,\"boundary_bytes\":%lld,\"engines\":[",
            (long long)d->dram_bytes, (long long)d->onchip_bytes, (long long)d->boundary_bytes);
    for (int e = 0; e < d->n_engines; e++) {
        if (e)
            fputc(',', f);
        json_engine(&d->engines[e], f);
    }
    fprintf(f, "]");
    json_design_map(p, d, f);
    fprintf(f, "}");
}

static void json_unit(const Plan *p, const IrGraph *g, int i, FILE *f)
{
    const PlanUnit *u = &p->units[i];
    fprintf(f, "{\"name\":");
    jstr(f, layer_name(g, u->layer));
    fprintf(f, ",\"op\":\"%s\",\"kind\":\"%s\",\"precision\":\"%s\",\"fused\":[", ir_op_name(g->layers[u->layer].op),
            plan_kind_name(u->kind), prec_name(u->prec, u->bits));
    for (int k = 0; k < u->n_fused; k++) {
        if (k)
            fputc(',', f);
        jstr(f, layer_name(g, u->fused[k]));
    }
    const PlanGeom *o = &u->geo;
    fprintf(f, "],\"loops\":[%lld,%lld,%lld],\"geo\":{\"in\":[%lld,%lld,%lld],\"out\":[%lld,%lld,%lld],"
               "\"k\":[%lld,%lld],\"stride\":[%lld,%lld],\"dilation\":[%lld,%lld],\"pads\":[%lld,%lld,%lld,%lld],"
               "\"groups\":%lld,\"batch\":%lld},\"windowed\":%s,\"sesl_ok\":%s,\"after_host\":%s,"
               "\"macs\":%lld,\"ops\":%lld,\"w_bytes\":%lld,\"in_bytes\":%lld,\"out_bytes\":%lld,"
               "\"extra_bytes\":%lld",
            (long long)u->loops.a, (long long)u->loops.b, (long long)u->loops.p, (long long)o->h, (long long)o->w,
            (long long)o->c, (long long)o->ho, (long long)o->wo, (long long)o->f, (long long)o->kh, (long long)o->kw,
            (long long)o->sh, (long long)o->sw, (long long)o->dh, (long long)o->dw, (long long)o->pt,
            (long long)o->pl, (long long)o->pb, (long long)o->pr, (long long)o->g, (long long)u->batch,
            u->windowed ? "true" : "false", u->sesl_ok ? "true" : "false", u->after_host ? "true" : "false",
            (long long)u->macs, (long long)u->ops, (long long)u->w_bytes, (long long)u->in_bytes,
            (long long)u->out_bytes, (long long)u->extra_bytes);
    const PlanRoof *r = &p->roof[i];
    fprintf(f, ",\"roofline\":{\"intensity\":");
    jnum(f, r->intensity);
    fprintf(f, ",\"attainable_ops\":");
    jnum(f, r->attainable);
    fprintf(f, ",\"achieved_ops\":");
    jnum(f, r->achieved);
    const PlanMemLayer *m = &p->memory.layers[i];
    fprintf(f, "},\"memory\":{\"chosen\":\"%s\",\"chosen_fits\":%s,\"fit_bits\":%d,\"onchip\":[",
            plan_mem_config_name(m->chosen), m->chosen_fits ? "true" : "false", m->fit_bits);
    for (int c = 0; c < PLAN_MEM_CONFIGS; c++)
        fprintf(f, "%s%lld", c ? "," : "", (long long)m->onchip[c]);
    fprintf(f, "],\"dram\":[");
    for (int c = 0; c < PLAN_MEM_CONFIGS; c++)
        fprintf(f, "%s%lld", c ? "," : "", (long long)m->dram[c]);
    fprintf(f, "]}}");
}

static void json_memory(const Plan *p, FILE *f)
{
    const PlanMemory *m = &p->memory;
    fprintf(f, "\"memory_analysis\":{\"budget_bytes\":%lld,\"configs\":[", (long long)m->budget);
    for (int c = 0; c < PLAN_MEM_CONFIGS; c++) {
        fprintf(f, "%s{\"name\":\"%s\",\"onchip_bytes\":%lld,\"dram_bytes\":%lld}", c ? "," : "",
                plan_mem_config_name(c), (long long)m->homo_onchip[c], (long long)m->homo_dram[c]);
    }
    fprintf(f, "],\"heterogeneous\":{\"onchip_bytes\":%lld,\"dram_bytes\":%lld}},\n", (long long)m->hetero_onchip,
            (long long)m->hetero_dram);
}

void plan_write_json(const Plan *p, const IrGraph *g, FILE *f)
{
    fprintf(f, "{\"model\":");
    jstr(f, g->path);
    fprintf(f, ",\n");
    json_device(p, f);
    json_budget(p, f);
    fprintf(f, "\"totals\":{\"macs\":%lld,\"ops\":%lld,\"units\":%d,\"host_cycles\":%lld,\"host_layers\":[",
            (long long)p->total_macs, (long long)p->total_ops, p->n_units, (long long)p->host_cycles);
    for (int i = 0; i < p->n_host; i++) {
        if (i)
            fputc(',', f);
        jstr(f, layer_name(g, p->host_layers[i]));
    }
    fprintf(f, "]},\n\"designs\":{\n\"hybrid\":");
    json_design(p, &p->hybrid, f);
    fprintf(f, ",\n\"seml\":");
    json_design(p, &p->seml, f);
    fprintf(f, ",\n\"sesl\":");
    json_design(p, &p->sesl, f);
    fprintf(f, "},\n\"note\":");
    jstr(f, p->note);
    fprintf(f, ",\n\"pareto\":[");
    for (int i = 0; i < p->n_pareto; i++) {
        const PlanPareto *r = &p->pareto[i];
        fprintf(f, "%s{\"split\":%d,\"period_cycles\":%lld,\"latency_cycles\":%lld,\"fps\":", i ? "," : "",
                r->split, (long long)r->period, (long long)r->latency);
        jnum(f, r->fps);
        fprintf(f, ",\"latency_ms\":");
        jnum(f, r->latency_ms);
        fputc('}', f);
    }
    fprintf(f, "],\n");
    json_memory(p, f);
    fprintf(f, "\"units\":[\n");
    for (int i = 0; i < p->n_units; i++) {
        json_unit(p, g, i, f);
        fprintf(f, "%s\n", i + 1 < p->n_units ? "," : "");
    }
    fprintf(f, "]");
    if (p->opt.timings) {
        fprintf(f, ",\n\"plan_ms\":");
        jnum(f, p->plan_ms);
        fprintf(f, ",\"plan_cpu_ms\":");
        jnum(f, p->plan_cpu_ms);
    }
    fprintf(f, "}\n");
}

/* ---------------------------------------------------- dataflow simulation */

void plan_net_print(const PlanNet *net, const PlanDesign *d, FILE *f)
{
    int64_t words = 0, bytes = 0, deep = 0;
    for (int c = 0; c < net->n_chans; c++) {
        words += net->chans[c].depth;
        bytes += net->chans[c].depth * net->chans[c].width;
        if (net->chans[c].depth > deep)
            deep = net->chans[c].depth;
    }
    fprintf(f, "SESL dataflow simulation, %d frames: %d processes, %d FIFOs (%lld words, %.1f KiB; deepest %lld)\n",
            net->frames, net->n_procs, net->n_chans, (long long)words, bytes / 1024.0, (long long)deep);
    if (net->deadlock) {
        fprintf(f, "  %s\n", net->why);
        return;
    }
    fprintf(f, "  frame interval %lld cycles (plan T_SESL %lld: %+.1f%%), latency %lld cycles (plan %lld: %+.1f%%)\n",
            (long long)net->interval, (long long)d->t_sesl,
            d->t_sesl ? 100.0 * ((double)net->interval / (double)d->t_sesl - 1) : 0, (long long)net->latency,
            (long long)d->lat_sesl, d->lat_sesl ? 100.0 * ((double)net->latency / (double)d->lat_sesl - 1) : 0);
    for (int i = 0; i < net->n_procs; i++)
        if (net->stall_in[i] + net->stall_out[i] > net->interval / 20)
            fprintf(f, "  %-40.40s stalled %lld cycles waiting for input, %lld for room\n", net->procs[i].name,
                    (long long)net->stall_in[i], (long long)net->stall_out[i]);
}
