/* report.c - report.html: the plan of a model for a board, in one
 * self-contained page (inline CSS and SVG, no scripts, no network).
 *
 * Why: the text and JSON outputs of `onnx2hls plan` carry every number, but
 * judging a plan means seeing it: which layers got their own engine, where
 * the split fell, which stage sets the period, how close each budget is, which
 * layers are memory-bound, and what the on-chip memory allows. Sections:
 * summary, the three designs side by side, layers -> engines, stage times,
 * resources vs budget, roofline, memory analysis, layer table. Every figure
 * comes from the Plan (plan/plan.h); nothing is recomputed here.
 */
#include "report_internal.h"

#include <string.h>

/* ------------------------------------------------------------ helpers */

const char *report_si(double x, char *buf, size_t n)
{
    static const char *units[] = {"", " k", " M", " G", " T", " P"};
    int u = 0;
    double a = x < 0 ? -x : x;
    while (a >= 1000 && u < 5) {
        a /= 1000;
        x /= 1000;
        u++;
    }
    snprintf(buf, n, a >= 100 || (u == 0 && a == (long long)a) ? "%.0f%s" : "%.3g%s", x, units[u]);
    return buf;
}

const char *report_kind_color(PlanKind k)
{
    static const char *colors[PLAN_K_COUNT] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"};
    return (unsigned)k < PLAN_K_COUNT ? colors[k] : "#888";
}

const char *report_layer_name(const IrGraph *g, int layer)
{
    return layer >= 0 && layer < g->n_layers && g->layers[layer].name ? g->layers[layer].name : "?";
}

static const char *prec_name(const Plan *p)
{
    static char buf[16];
    switch (p->opt.prec) {
    case IR_PREC_FLOAT: return "float";
    case IR_PREC_INT8: return "int8";
    case IR_PREC_INT16: return "int16";
    default: snprintf(buf, sizeof buf, "dfxp%d", p->opt.bits); return buf;
    }
}

/* --------------------------------------------------------------- page */

static const char *css =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2330;background:#f6f7f9}"
    "main{max-width:960px;margin:0 auto;padding:16px 24px 48px}"
    "h1{font-size:22px;margin:12px 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d7dbe2;"
    "padding-bottom:4px}p.sub{color:#555;margin:0 0 12px}"
    ".cards{display:flex;gap:12px;flex-wrap:wrap}.card{background:#fff;border:1px solid #d7dbe2;border-radius:6px;"
    "padding:10px 14px;min-width:170px}.card b{display:block;font-size:20px}.card span{color:#555;font-size:12px}"
    ".card.best{border-color:#2b6cb0;box-shadow:0 0 0 2px #2b6cb033}"
    "table{border-collapse:collapse;background:#fff;font-size:12.5px;margin:4px 0}"
    "th,td{border:1px solid #d7dbe2;padding:3px 7px;text-align:right}th{background:#eef1f5}"
    "td.l,th.l{text-align:left}tr.sesl td{background:#eef5fc}.no{color:#b42318}"
    "svg{background:#fff;border:1px solid #d7dbe2;border-radius:4px;display:block;margin:6px 0}"
    "svg text{font:11px system-ui,sans-serif;fill:#1d2330}svg text.head{font-weight:600;font-size:12px}"
    "svg text.mono{font:10.5px ui-monospace,monospace}svg text.small{font-size:10.5px}"
    ".sesl{fill:#cfe2f7;stroke:#2b6cb0}.seml{fill:#fde5cc;stroke:#c05621}.hyb{fill:#2b6cb0}"
    ".host{fill:#bbb}.dram{fill:#e5e7eb;stroke:#9ca3af;stroke-dasharray:2 2}"
    ".link{fill:none;stroke:#9aa5b1;stroke-width:1;opacity:.8}.split{stroke:#c05621;stroke-width:2;"
    "stroke-dasharray:6 4}.period{stroke:#b42318;stroke-width:1.5;stroke-dasharray:4 3}"
    ".frame{fill:none;stroke:#9aa5b1}.grid{stroke:#e5e7eb}.roof{fill:none;stroke:#1d2330;stroke-width:2}"
    ".dot-sesl{stroke:#1d2330;stroke-width:1.5}.dot-seml{stroke:none}"
    "footer{color:#666;font-size:12px;margin-top:32px}";

static void page_head(const Plan *p, const IrGraph *g, FILE *f)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>onnx2hls plan: ");
    esc_put(f, ESC_HTML, g->path);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<h1>Hybrid accelerator plan</h1>\n"
               "<p class=\"sub\">",
            css);
    esc_put(f, ESC_HTML, g->path);
    fprintf(f, " on ");
    esc_put(f, ESC_HTML, p->dev.board);
    fprintf(f, " (");
    esc_put(f, ESC_HTML, p->dev.part);
    fprintf(f, "): %s, %d PEs, %.0f MHz, DRAM %.1f GB/s; %d accelerated units, %d host layers, %.1f M MACs "
               "per frame</p>\n",
            prec_name(p), p->pe_budget, p->clock_mhz, p->bandwidth_gbps, p->n_units, p->n_host,
            p->total_macs / 1e6);
}

static void card(FILE *f, const PlanDesign *d, const char *title, bool best)
{
    fprintf(f, "<div class=\"card%s\"><span>%s</span>", best ? " best" : "", title);
    if (d->fits)
        fprintf(f, "<b>%.1f frames/s</b><span>latency %.2f ms, split %d, PE use %.0f%%</span></div>\n", d->fps,
                d->latency_ms, d->split, 100 * d->pe_util);
    else {
        fprintf(f, "<b class=\"no\">does not fit</b><span>");
        esc_put(f, ESC_HTML, d->why);
        fprintf(f, "</span></div>\n");
    }
}

static void summary(const Plan *p, FILE *f)
{
    fprintf(f, "<div class=\"cards\">\n");
    card(f, &p->hybrid, "hybrid (best split)", true);
    card(f, &p->seml, "SEML-only (split 0)", false);
    card(f, &p->sesl, "SESL-only (every layer its own engine)", false);
    if (p->hybrid.fits && p->seml.fits && p->seml.fps > 0)
        fprintf(f, "<div class=\"card\"><span>hybrid vs SEML-only</span><b>%.2fx</b><span>throughput at the same "
                   "budget, %.2fx the latency</span></div>\n",
                p->hybrid.fps / p->seml.fps, p->hybrid.latency_ms / p->seml.latency_ms);
    fprintf(f, "</div>\n<p>objective: %s", plan_objective_name(p->opt.objective));
    if (p->note[0]) {
        fprintf(f, " &mdash; ");
        esc_put(f, ESC_HTML, p->note);
    }
    fprintf(f, "</p>\n");
}

static void pareto_table(const Plan *p, FILE *f)
{
    fprintf(f, "<h2>Throughput against latency</h2>\n<p>Every design the search found that no other beats on both "
               "(split = SESL units).</p>\n<table><tr><th>split</th><th>frames/s</th><th>latency (ms)</th></tr>\n");
    for (int i = 0; i < p->n_pareto; i++)
        fprintf(f, "<tr><td>%d</td><td>%.1f</td><td>%.3f</td></tr>\n", p->pareto[i].split, p->pareto[i].fps,
                p->pareto[i].latency_ms);
    fprintf(f, "</table>\n");
}

typedef void (*Cell)(FILE *f, const PlanDesign *d);

static void c_split(FILE *f, const PlanDesign *d) { fprintf(f, "%d", d->split); }
static void c_fps(FILE *f, const PlanDesign *d) { fprintf(f, "%.1f", d->fps); }
static void c_lat(FILE *f, const PlanDesign *d) { fprintf(f, "%.3f", d->latency_ms); }
static void c_period(FILE *f, const PlanDesign *d) { fprintf(f, "%lld", (long long)d->period); }
static void c_tsesl(FILE *f, const PlanDesign *d) { fprintf(f, "%lld", (long long)d->t_sesl); }
static void c_tseml(FILE *f, const PlanDesign *d) { fprintf(f, "%lld", (long long)d->t_seml); }
static void c_eng(FILE *f, const PlanDesign *d) { fprintf(f, "%d", d->n_engines); }
static void c_pes(FILE *f, const PlanDesign *d) { fprintf(f, "%d", d->pes); }
static void c_util(FILE *f, const PlanDesign *d) { fprintf(f, "%.1f%%", 100 * d->pe_util); }
static void c_dsp(FILE *f, const PlanDesign *d) { fprintf(f, "%d", d->dsp); }
static void c_bram(FILE *f, const PlanDesign *d) { fprintf(f, "%d", d->bram18k); }
static void c_uram(FILE *f, const PlanDesign *d) { fprintf(f, "%d", d->uram); }
static void c_lut(FILE *f, const PlanDesign *d) { fprintf(f, "%d", d->lut); }
static void c_dram(FILE *f, const PlanDesign *d) { fprintf(f, "%.2f", d->dram_bytes / 1e6); }
static void c_chip(FILE *f, const PlanDesign *d) { fprintf(f, "%.0f", d->onchip_bytes / 1024.0); }
static void c_bnd(FILE *f, const PlanDesign *d) { fprintf(f, "%.0f", d->boundary_bytes / 1024.0); }
static void c_fill(FILE *f, const PlanDesign *d) { fprintf(f, "%lld", (long long)d->lat_sesl); }

static void compare_table(const Plan *p, FILE *f)
{
    static const struct {
        const char *label;
        Cell fn;
    } rows[] = {
        {"split (SESL units)", c_split}, {"throughput (frames/s)", c_fps}, {"latency (ms)", c_lat},
        {"period (cycles)", c_period}, {"T_SESL (cycles)", c_tsesl}, {"T_SEML (cycles)", c_tseml},
        {"SESL fill + frame (cycles)", c_fill},
        {"engines", c_eng}, {"PEs used", c_pes}, {"PE utilization", c_util}, {"DSP", c_dsp},
        {"BRAM18K", c_bram}, {"URAM", c_uram}, {"LUT", c_lut}, {"DRAM MB/frame", c_dram},
        {"on-chip KiB", c_chip}, {"SESL&rarr;SEML KiB (DRAM ping-pong, one copy)", c_bnd},
    };
    const PlanDesign *ds[3] = {&p->hybrid, &p->seml, &p->sesl};
    fprintf(f, "<h2>The three designs under the same budget</h2>\n<table><tr><th class=\"l\"></th><th>hybrid</th>"
               "<th>SEML-only</th><th>SESL-only</th></tr>\n");
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        fprintf(f, "<tr><td class=\"l\">%s</td>", rows[r].label);
        for (int k = 0; k < 3; k++) {
            fprintf(f, "<td>");
            if (ds[k]->fits)
                rows[r].fn(f, ds[k]);
            else
                fprintf(f, "<span class=\"no\">&ndash;</span>");
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void explain(const Plan *p, FILE *f)
{
    fprintf(f, "<p>SESL stages (one dedicated engine per layer, weights on chip, line-buffered rows) run as a "
               "dataflow pipeline: their time per frame is the slowest process (window generator, compute loop, "
               "DRAM reader or writer). SEML layers run one after another on the reusable engines, in bands of "
               "output rows through double-buffered band buffers, with feature maps in DRAM and weight tiles "
               "streamed per band: their time is the sum of each layer's loop nest. A DRAM ping-pong buffer "
               "between the parts lets both work at once, so the period is max(T_SESL, T_SEML, DRAM time)");
    if (p->n_host)
        fprintf(f, " (and the host CPU's share, T_host, for the %d layers it runs)", p->n_host);
    fprintf(f, " and the latency is the SESL pipeline's fill and frame, then T_SEML%s.</p>\n",
            p->n_host ? ", then T_host" : "");
}

static void memory_section(const Plan *p, const IrGraph *g, FILE *f)
{
    const PlanMemory *m = &p->memory;
    char b[32];
    fprintf(f, "<h2>Memory analysis</h2>\n<p>On-chip bytes and DRAM traffic per frame under each buffering policy "
               "(filters: all / layer / tile of the engine's filter lanes; activations: whole layer / K-row tile; "
               "+pf: with prefetch double buffering). Budget: %sB on chip.</p>\n<table><tr><th class=\"l\">policy"
               "</th><th>on-chip KiB (largest layer)</th><th>DRAM MB/frame</th><th>fits</th></tr>\n",
            report_si((double)m->budget, b, sizeof b));
    for (int c = 0; c < PLAN_MEM_CONFIGS; c++)
        fprintf(f, "<tr><td class=\"l\">%s</td><td>%.0f</td><td>%.2f</td><td>%s</td></tr>\n",
                plan_mem_config_name(c), m->homo_onchip[c] / 1024.0, m->homo_dram[c] / 1e6,
                m->homo_onchip[c] <= m->budget ? "yes" : "<span class=\"no\">no</span>");
    fprintf(f, "<tr><td class=\"l\"><b>per-layer choice</b></td><td>%.0f</td><td>%.2f</td><td>%s</td></tr>\n"
               "</table>\n",
            m->hetero_onchip / 1024.0, m->hetero_dram / 1e6, m->hetero_onchip <= m->budget ? "yes" : "no");
    fprintf(f, "<table><tr><th class=\"l\">#</th><th class=\"l\">layer</th><th class=\"l\">chosen policy</th>"
               "<th>on-chip KiB</th><th>DRAM KiB</th><th>widest word that fits whole (bits)</th></tr>\n");
    for (int i = 0; i < p->n_units; i++) {
        const PlanMemLayer *L = &m->layers[i];
        fprintf(f, "<tr><td class=\"l\">%d</td><td class=\"l\">", i);
        esc_put(f, ESC_HTML, report_layer_name(g, p->units[i].layer));
        fprintf(f, "</td><td class=\"l\">%s%s</td><td>%.1f</td><td>%.1f</td><td>%d</td></tr>\n",
                plan_mem_config_name(L->chosen), L->chosen_fits ? "" : " <span class=\"no\">(over budget)</span>",
                L->onchip[L->chosen] / 1024.0, L->dram[L->chosen] / 1024.0, L->fit_bits);
    }
    fprintf(f, "</table>\n");
}

static void layer_row(const Plan *p, const IrGraph *g, int i, FILE *f)
{
    const PlanUnit *u = &p->units[i];
    const PlanUnitMap *m = p->hybrid.fits ? &p->hybrid.map[i] : NULL;
    fprintf(f, "<tr%s><td class=\"l\">%d</td><td class=\"l\">", m && m->sesl ? " class=\"sesl\"" : "", i);
    esc_put(f, ESC_HTML, report_layer_name(g, u->layer));
    for (int k = 0; k < u->n_fused; k++) {
        fprintf(f, k ? ", " : " <small>+ ");
        esc_put(f, ESC_HTML, ir_op_name(g->layers[u->fused[k]].op));
        if (k + 1 == u->n_fused)
            fprintf(f, "</small>");
    }
    fprintf(f, "</td><td class=\"l\">%s</td><td>%lld&times;%lld&times;%lld</td><td>%.2f</td>",
            plan_kind_name(u->kind), (long long)u->loops.a, (long long)u->loops.b, (long long)u->loops.p,
            u->macs / 1e6);
    if (m)
        fprintf(f, "<td>%s E%d</td><td>%lld</td><td>%.1f</td><td>%.3g</td>", m->sesl ? "SESL" : "SEML", m->engine,
                (long long)m->cycles, m->dram_bytes / 1024.0, p->roof[i].intensity);
    else
        fprintf(f, "<td colspan=\"4\"></td>");
    fprintf(f, "</tr>\n");
}

static void layer_table(const Plan *p, const IrGraph *g, FILE *f)
{
    fprintf(f, "<h2>Layers</h2>\n<table><tr><th class=\"l\">#</th><th class=\"l\">layer (+ fused)</th>"
               "<th class=\"l\">kind</th><th>loops A&times;B&times;P</th><th>M MACs</th><th>engine</th>"
               "<th>cycles</th><th>DRAM KiB</th><th>ops/byte</th></tr>\n");
    for (int i = 0; i < p->n_units; i++)
        layer_row(p, g, i, f);
    fprintf(f, "</table>\n");
    if (p->n_host) {
        fprintf(f, "<p>Run by the host CPU (inputs and outputs through DRAM): ");
        for (int i = 0; i < p->n_host; i++) {
            fprintf(f, i ? ", " : "");
            esc_put(f, ESC_HTML, report_layer_name(g, p->host_layers[i]));
        }
        fprintf(f, ".</p>\n");
    }
}

void report_html(const Plan *p, const IrGraph *g, FILE *f)
{
    page_head(p, g, f);
    summary(p, f);
    compare_table(p, f);
    pareto_table(p, f);
    explain(p, f);
    if (p->hybrid.fits) {
        fprintf(f, "<h2>Hybrid plan: layers &rarr; engines</h2>\n");
        report_svg_plan_map(p, g, &p->hybrid, f);
        fprintf(f, "<h2>Stage and layer times</h2>\n");
        report_svg_stage_times(p, g, &p->hybrid, f);
    }
    fprintf(f, "<h2>Resources against the budget</h2>\n<p>Budgets are %.0f%% of the device; DRAM is the "
               "bandwidth used at the design's frame rate.</p>\n",
            p->opt.resource_frac * 100);
    report_svg_resources(p, f);
    fprintf(f, "<h2>Roofline</h2>\n<p>Each layer's operations per byte when it streams its weights and maps "
               "from DRAM once, against the PE and bandwidth ceilings; dots are what the hybrid plan achieves. "
               "Layers left of the ridge are bandwidth-bound on a reusable engine; dedicated on-chip stages escape "
               "that roof.</p>\n");
    report_svg_roofline(p, g, f);
    memory_section(p, g, f);
    layer_table(p, g, f);
    fprintf(f, "<footer>onnx2hls plan");
    if (p->opt.timings)
        fprintf(f, " &middot; planner time %.1f ms", p->plan_ms);
    fprintf(f, "</footer>\n</main>\n</body>\n</html>\n");
}
