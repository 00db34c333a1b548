/* report_svg.c - the report's charts as inline SVG: the plan drawn as layers
 * to engines, stage and layer times against the period, resources against
 * the budget, and the per-layer roofline.
 *
 * Why hand-written SVG: the report must open offline with no scripts or
 * libraries, and the charts are simple enough (bars, lines, dots) that a few
 * coordinates say it all. Hovering any mark shows its figures through the
 * SVG <title> element, which browsers display natively.
 */
#include "report_internal.h"

#include <math.h>
#include <string.h>

#define RH 16      /* row height of the per-layer charts */

static void svg_open(FILE *f, int w, int h, const char *label)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "role=\"img\" aria-label=\"",
            w, h, w, h);
    esc_put(f, ESC_HTML, label);
    fprintf(f, "\">\n");
}

static void text_at(FILE *f, double x, double y, const char *cls, const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"%s\">", x, y, cls);
    esc_put(f, ESC_HTML, s);
    fprintf(f, "</text>\n");
}

/* The name's tail when long (the tail of a path-like name says most); raw
 * model text, escaped where it is written. */
static void short_name(const char *s, char *out, size_t n)
{
    size_t len = strlen(s);
    if (len < n) {
        snprintf(out, n, "%s", s);
        return;
    }
    snprintf(out, n, "...%s", s + len - (n - 4)); /* the tail of a path-like name says most */
}

/* ---------------------------------------------------------- plan map */

static double seml_engine_y(const PlanDesign *d, int e, double top, double height)
{
    int first = d->split, n = d->n_engines - d->split;
    if (n <= 0)
        return top;
    return top + height * ((double)(e - first) + 0.5) / n;
}

static void map_unit_row(const Plan *p, const IrGraph *g, const PlanDesign *d, int i, double y, FILE *f)
{
    const PlanUnit *u = &p->units[i];
    char name[40], label[96];
    short_name(report_layer_name(g, u->layer), name, sizeof name);
    snprintf(label, sizeof label, "%2d %s", i, name);
    fprintf(f, "<rect x=\"8\" y=\"%.1f\" width=\"8\" height=\"%d\" fill=\"%s\"/>\n", y + 2, RH - 4,
            report_kind_color(u->kind));
    text_at(f, 20, y + RH - 4, "mono", label);
    if (!d->map)
        return;
    const PlanUnitMap *m = &d->map[i];
    const PlanEngine *en = &d->engines[m->engine];
    if (m->sesl) {
        fprintf(f, "<g><title>SESL engine %d: %s %dx%dx%d, %d PEs, %lld cycles/frame</title>", m->engine,
                plan_kind_name(en->kind), en->shape.pa, en->shape.pb, en->shape.pp, en->pes, (long long)m->cycles);
        fprintf(f, "<line x1=\"330\" y1=\"%.1f\" x2=\"380\" y2=\"%.1f\" class=\"link\"/>", y + RH / 2.0,
                y + RH / 2.0);
        fprintf(f, "<rect x=\"380\" y=\"%.1f\" width=\"170\" height=\"%d\" rx=\"3\" class=\"sesl\"/>", y + 1, RH - 2);
        char s[64];
        snprintf(s, sizeof s, "E%d %s %dx%dx%d", m->engine, plan_kind_name(en->kind), en->shape.pa, en->shape.pb,
                 en->shape.pp);
        text_at(f, 386, y + RH - 4, "small", s);
        fprintf(f, "</g>\n");
    }
}

static void map_seml_links(const Plan *p, const PlanDesign *d, double top, double h, FILE *f)
{
    for (int i = d->split; i < p->n_units; i++) {
        double y = top + (i - d->split) * RH + RH / 2.0;
        double ey = seml_engine_y(d, d->map[i].engine, top, h);
        fprintf(f, "<path d=\"M330 %.1f C 480 %.1f, 520 %.1f, 640 %.1f\" class=\"link\" stroke=\"%s\"/>\n", y, y,
                ey, ey, report_kind_color(p->units[i].kind));
    }
    for (int e = d->split; e < d->n_engines; e++) {
        const PlanEngine *en = &d->engines[e];
        double ey = seml_engine_y(d, e, top, h);
        char s[96];
        fprintf(f, "<g><title>SEML engine %d serves %d layers, busy %lld cycles/frame; maxima: A %lld, B %lld, "
                   "P %lld, K %lld</title>",
                e, en->n_layers, (long long)en->busy, (long long)en->max_a, (long long)en->max_b,
                (long long)en->max_p, (long long)en->max_k);
        fprintf(f, "<rect x=\"640\" y=\"%.1f\" width=\"240\" height=\"34\" rx=\"4\" class=\"seml\"/>", ey - 17);
        snprintf(s, sizeof s, "E%d %s %dx%dx%d = %d PEs", e, plan_kind_name(en->kind), en->shape.pa, en->shape.pb,
                 en->shape.pp, en->pes);
        text_at(f, 648, ey - 3, "small", s);
        snprintf(s, sizeof s, "%d layers, DSP %d, BRAM %d", en->n_layers, en->dsp, en->bram18k);
        text_at(f, 648, ey + 11, "small", s);
        fprintf(f, "</g>\n");
    }
}

/* SEML engine boxes need 40 px each, whatever the number of their layers */
static int seml_height(const Plan *p, const PlanDesign *d)
{
    int rows = (p->n_units - d->split) * RH, boxes = (d->n_engines - d->split) * 40;
    return rows > boxes ? rows : boxes;
}

void report_svg_plan_map(const Plan *p, const IrGraph *g, const PlanDesign *d, FILE *f)
{
    int top = 28, split_gap = d->split > 0 && d->split < p->n_units ? 24 : 0;
    int h = top + d->split * RH + split_gap + seml_height(p, d) + 10;
    svg_open(f, 900, h, "layers mapped to engines");
    text_at(f, 8, 16, "head", "layer");
    text_at(f, 380, 16, "head", "SESL: one engine per layer");
    text_at(f, 640, 16, "head", "SEML: reusable engines");
    for (int i = 0; i < d->split && i < p->n_units; i++)
        map_unit_row(p, g, d, i, top + i * RH, f);
    double seml_top = top + d->split * RH + split_gap;
    if (split_gap) {
        double y = top + d->split * RH + split_gap / 2.0;
        char s[128], kb[32];
        fprintf(f, "<line x1=\"8\" y1=\"%.1f\" x2=\"890\" y2=\"%.1f\" class=\"split\"/>\n", y, y);
        snprintf(s, sizeof s, "split %d: DRAM ping-pong of 2 x %sB", d->split,
                 report_si((double)d->boundary_bytes, kb, sizeof kb));
        text_at(f, 380, y - 3, "small", s);
    }
    for (int i = d->split; i < p->n_units; i++)
        map_unit_row(p, g, d, i, seml_top + (i - d->split) * RH, f);
    if (d->map && d->split < p->n_units)
        map_seml_links(p, d, seml_top, seml_height(p, d), f);
    fprintf(f, "</svg>\n");
}

/* ------------------------------------------------------- stage times */

static void part_bar(FILE *f, double y, const char *label, int64_t t, int64_t period, double w, const char *cls)
{
    char s[96], c[32];
    double len = period > 0 ? w * (double)t / (double)period : 0;
    fprintf(f, "<g><title>%s: %lld cycles per frame</title>", label, (long long)t);
    fprintf(f, "<rect x=\"150\" y=\"%.1f\" width=\"%.1f\" height=\"14\" class=\"%s\"/>", y, len, cls);
    snprintf(s, sizeof s, "%s", label);
    text_at(f, 8, y + 11, "small", s);
    snprintf(s, sizeof s, "%s cycles", report_si((double)t, c, sizeof c));
    text_at(f, 156 + len, y + 11, "small", s);
    fprintf(f, "</g>\n");
}

static void unit_bar(const Plan *p, const IrGraph *g, const PlanDesign *d, int i, double y, double w, FILE *f)
{
    const PlanUnitMap *m = &d->map[i];
    double scale = w / (double)(d->period > 0 ? d->period : 1);
    double lc = scale * (double)m->compute, lt = scale * (double)m->cycles;
    char name[40];
    short_name(report_layer_name(g, p->units[i].layer), name, sizeof name);
    fputs("<g><title>", f);
    esc_put(f, ESC_HTML, name);
    fprintf(f, " (%s, %s): %lld cycles, compute %lld, DRAM %lld</title>",
            plan_kind_name(p->units[i].kind), m->sesl ? "SESL stage" : "SEML layer", (long long)m->cycles,
            (long long)m->compute, (long long)m->mem);
    if (lt > lc)
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" class=\"dram\"/>", 150 + lc, y + 2,
                lt - lc, RH - 4);
    fprintf(f, "<rect x=\"150\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", y + 2, lc < 0.5 ? 0.5 : lc,
            RH - 4, report_kind_color(p->units[i].kind));
    char label[48];
    snprintf(label, sizeof label, "%2d %s", i, m->sesl ? "SESL" : "SEML");
    text_at(f, 8, y + RH - 4, "mono", label);
    fprintf(f, "</g>\n");
}

void report_svg_stage_times(const Plan *p, const IrGraph *g, const PlanDesign *d, FILE *f)
{
    double w = 620;
    int h = 90 + p->n_units * RH + 20;
    svg_open(f, 900, h, "stage and layer times against the period");
    part_bar(f, 8, "T_SESL (pipeline)", d->t_sesl, d->period, w, "sesl");
    part_bar(f, 28, "T_SEML (sum)", d->t_seml, d->period, w, "seml");
    if (d->t_host > 0)
        part_bar(f, 48, "T_host", d->t_host, d->period, w, "host");
    double x = 150 + w;
    fprintf(f, "<line x1=\"%.1f\" y1=\"4\" x2=\"%.1f\" y2=\"%d\" class=\"period\"/>\n", x, x, h - 4);
    text_at(f, x - 60, h - 6, "small", "period");
    text_at(f, 8, 82, "head", "per layer (share of the period; light = waiting for DRAM)");
    for (int i = 0; d->map && i < p->n_units; i++)
        unit_bar(p, g, d, i, 90 + i * RH, w, f);
    fprintf(f, "</svg>\n");
}

/* --------------------------------------------------------- resources */

typedef struct {
    const char *name;
    double budget;
    double used[3];
} ResRow;

static void res_rows(const Plan *p, ResRow *r, int *n)
{
    const PlanDesign *ds[3] = {&p->hybrid, &p->seml, &p->sesl};
    ResRow rows[6] = {{"PEs", p->pe_budget, {0}}, {"DSP", p->dsp_cap, {0}},   {"BRAM18K", p->bram_cap, {0}},
                      {"URAM", p->uram_cap, {0}}, {"LUT", p->lut_cap, {0}}, {"DRAM GB/s", p->bandwidth_gbps, {0}}};
    for (int k = 0; k < 3; k++) {
        const PlanDesign *d = ds[k];
        if (!d->fits)
            continue;
        rows[0].used[k] = d->pes;
        rows[1].used[k] = d->dsp;
        rows[2].used[k] = d->bram18k;
        rows[3].used[k] = d->uram;
        rows[4].used[k] = d->lut;
        rows[5].used[k] = (double)d->dram_bytes * d->fps / 1e9;
    }
    *n = 0;
    for (int i = 0; i < 6; i++)
        if (rows[i].budget > 0)
            r[(*n)++] = rows[i];
}

void report_svg_resources(const Plan *p, FILE *f)
{
    static const char *designs[3] = {"hybrid", "SEML-only", "SESL-only"};
    static const char *cls[3] = {"hyb", "seml", "sesl"};
    const PlanDesign *ds[3] = {&p->hybrid, &p->seml, &p->sesl};
    ResRow r[6];
    int n;
    res_rows(p, r, &n);
    double w = 520;
    int h = 20 + n * 64;
    svg_open(f, 900, h, "resources against the budget");
    for (int i = 0; i < n; i++) {
        double y = 10 + i * 64;
        text_at(f, 8, y + 12, "head", r[i].name);
        for (int k = 0; k < 3; k++) {
            double frac = r[i].used[k] / r[i].budget, yy = y + 18 + k * 14;
            char s[96], a[32], b[32];
            text_at(f, 20, yy + 10, "small", designs[k]);
            if (!ds[k]->fits) {
                text_at(f, 150, yy + 10, "small", "does not fit");
                continue;
            }
            fprintf(f, "<g><title>%s %s: %g of %g</title><rect x=\"150\" y=\"%.1f\" width=\"%.1f\" height=\"11\" "
                       "class=\"%s\"/></g>\n",
                    designs[k], r[i].name, r[i].used[k], r[i].budget, yy, w * (frac > 1.05 ? 1.05 : frac), cls[k]);
            snprintf(s, sizeof s, "%s / %s (%.0f%%)", report_si(r[i].used[k], a, sizeof a),
                     report_si(r[i].budget, b, sizeof b), 100 * frac);
            text_at(f, 160 + w * 1.05, yy + 10, "small", s);
        }
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"period\"/>\n", 150 + w, y + 16,
                150 + w, y + 60);
    }
    fprintf(f, "</svg>\n");
}

/* ---------------------------------------------------------- roofline */

typedef struct {
    double x0, x1, y0, y1;   /* decades */
    double left, top, w, h;
} Axes;

static double ax_x(const Axes *a, double v)
{
    return a->left + a->w * (log10(v) - a->x0) / (a->x1 - a->x0);
}

static double ax_y(const Axes *a, double v)
{
    return a->top + a->h * (1 - (log10(v) - a->y0) / (a->y1 - a->y0));
}

static void roof_range(const Plan *p, Axes *a)
{
    double imin = 1e300, imax = 0, pmin = p->peak_ops;
    for (int i = 0; i < p->n_units; i++) {
        const PlanRoof *r = &p->roof[i];
        if (r->intensity > 0) {
            imin = fmin(imin, r->intensity);
            imax = fmax(imax, r->intensity);
        }
        if (r->achieved > 0)
            pmin = fmin(pmin, r->achieved);
        if (r->attainable > 0)
            pmin = fmin(pmin, r->attainable);
    }
    double ridge = p->peak_ops / (p->bandwidth_gbps * 1e9);
    if (imax <= 0)
        imin = imax = ridge;
    a->x0 = floor(log10(fmin(imin, ridge))) - 0.2;
    a->x1 = ceil(log10(fmax(imax, ridge))) + 0.2;
    a->y0 = floor(log10(pmin > 0 ? pmin : 1)) - 0.2;
    a->y1 = log10(p->peak_ops) + 0.5;
}

static void roof_axes(FILE *f, const Axes *a)
{
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>\n", a->left, a->top,
            a->w, a->h);
    char s[32];
    for (int e = (int)ceil(a->x0); e <= (int)floor(a->x1); e++) {
        double x = ax_x(a, pow(10, e));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n", x, a->top, x,
                a->top + a->h);
        snprintf(s, sizeof s, "1e%d", e);
        text_at(f, x - 10, a->top + a->h + 14, "small", s);
    }
    for (int e = (int)ceil(a->y0); e <= (int)floor(a->y1); e++) {
        double y = ax_y(a, pow(10, e));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n", a->left, y,
                a->left + a->w, y);
        snprintf(s, sizeof s, "1e%d", e);
        text_at(f, a->left - 36, y + 4, "small", s);
    }
    text_at(f, a->left + a->w / 2 - 120, a->top + a->h + 32, "small", "operational intensity (ops per DRAM byte)");
    text_at(f, 4, a->top - 8, "small", "ops/s");
}

static void roof_lines(const Plan *p, FILE *f, const Axes *a)
{
    double bw = p->bandwidth_gbps * 1e9, ridge = p->peak_ops / bw;
    double xl = pow(10, a->x0), xr = pow(10, a->x1);
    double yl = xl * bw;
    fprintf(f, "<polyline points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" class=\"roof\"/>\n", ax_x(a, xl),
            ax_y(a, fmax(yl, pow(10, a->y0))), ax_x(a, ridge), ax_y(a, p->peak_ops), ax_x(a, xr),
            ax_y(a, p->peak_ops));
    char s[96], c[32];
    snprintf(s, sizeof s, "compute roof %sop/s (%d PEs)", report_si(p->peak_ops, c, sizeof c), p->pe_budget);
    text_at(f, ax_x(a, xr) - 230, ax_y(a, p->peak_ops) - 6, "small", s);
    snprintf(s, sizeof s, "DRAM %.1f GB/s", p->bandwidth_gbps);
    text_at(f, ax_x(a, xl) + 8, ax_y(a, fmax(yl, pow(10, a->y0))) - 8, "small", s);
}

void report_svg_roofline(const Plan *p, const IrGraph *g, FILE *f)
{
    Axes a = {0, 0, 0, 0, 60, 24, 600, 320};
    roof_range(p, &a);
    svg_open(f, 900, 390, "per-layer roofline");
    roof_axes(f, &a);
    roof_lines(p, f, &a);
    for (int i = 0; i < p->n_units; i++) {
        const PlanRoof *r = &p->roof[i];
        if (r->intensity <= 0)
            continue;
        double x = ax_x(&a, r->intensity);
        char name[40], c1[32], c2[32];
        short_name(report_layer_name(g, p->units[i].layer), name, sizeof name);
        fprintf(f, "<g><title>%d ", i);
        esc_put(f, ESC_HTML, name);
        fprintf(f, " (%s): intensity %.3g, attainable %sop/s, achieved %sop/s</title>",
                plan_kind_name(p->units[i].kind), r->intensity, report_si(r->attainable, c1, sizeof c1),
                report_si(r->achieved, c2, sizeof c2));
        if (r->achieved > 0)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" class=\"%s\"/>", x,
                    ax_y(&a, r->achieved), report_kind_color(p->units[i].kind),
                    p->hybrid.map && p->hybrid.map[i].sesl ? "dot-sesl" : "dot-seml");
        fprintf(f, "</g>\n");
    }
    static const char *legend[] = {"filled: achieved in the hybrid plan", "dark ring: SESL stage, none: SEML layer"};
    for (int k = 0; k < 2; k++)
        text_at(f, 680, 40 + 16 * k, "small", legend[k]);
    for (int k = 0; k < PLAN_K_COUNT; k++) {
        fprintf(f, "<circle cx=\"686\" cy=\"%d\" r=\"4\" fill=\"%s\"/>", 86 + 16 * k,
                report_kind_color((PlanKind)k));
        text_at(f, 696, 90 + 16 * k, "small", plan_kind_name((PlanKind)k));
    }
    fprintf(f, "</svg>\n");
}
