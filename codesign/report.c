/* report.c - the co-design's record: codesign.json (every evaluated
 * candidate) and codesign.html (the Pareto front of speedup against
 * accuracy and, when measured, the sensitivity of each prune group, as
 * inline SVG; tables of the same figures).
 *
 * Why these two: the JSON is for scripts (the benchmark reads it), the page
 * is for a person choosing a design; like the plan report it opens offline,
 * with no scripts and no external resources.
 */
#include "codesign.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "ir/escape.h"
#include "runtime/o2h_rt.h"

/* ------------------------------------------------------------- JSON */

static cJSON *cand_json(const Codesign *cs, const CodesignCand *c, int i)
{
    cJSON *o = cJSON_CreateObject(), *r = cJSON_CreateObject(), *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", i);
    cJSON_AddStringToObject(o, "kind", c->kind);
    for (int g = 0; g < cs->n_groups; g++)
        if (c->ratio[g] > 0)
            cJSON_AddNumberToObject(r, cs->group_name[g], c->ratio[g]);
    cJSON_AddItemToObject(o, "ratios", r);
    for (int l = 0; c->prec && l < cs->base->n_layers; l++)
        if (c->prec[l].prec != cs->opt.prec.prec || c->prec[l].bits != cs->opt.prec.bits)
            cJSON_AddStringToObject(p, cs->base->layers[l].name, pass_quant_prec_name(c->prec[l]));
    cJSON_AddStringToObject(p, "*", pass_quant_prec_name(cs->opt.prec));
    cJSON_AddItemToObject(o, "precisions", p);
    cJSON_AddNumberToObject(o, "macs", (double)c->macs);
    cJSON_AddNumberToObject(o, "params", (double)c->params);
    cJSON_AddNumberToObject(o, "fps", c->fps);
    cJSON_AddNumberToObject(o, "latency_ms", c->latency_ms);
    cJSON_AddNumberToObject(o, "speedup", c->speedup);
    cJSON_AddNumberToObject(o, "bram18k", c->bram18k);
    cJSON_AddNumberToObject(o, "dsp", c->dsp);
    cJSON_AddNumberToObject(o, "accuracy", c->acc);
    cJSON_AddNumberToObject(o, "images", c->n_img);
    if (c->acc_full >= 0)
        cJSON_AddNumberToObject(o, "accuracy_all", c->acc_full);
    else
        cJSON_AddNullToObject(o, "accuracy_all");
    cJSON_AddBoolToObject(o, "front", c->front);
    if (c->note_group >= 0) {
        cJSON_AddStringToObject(o, "group", cs->group_name[c->note_group]);
        cJSON_AddNumberToObject(o, "ratio", c->note_ratio);
    }
    return o;
}

static cJSON *options_json(const Codesign *cs)
{
    const CodesignOptions *o = &cs->opt;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "model", o->model);
    cJSON_AddStringToObject(j, "target", o->dev.name);
    cJSON_AddNumberToObject(j, "pe_budget", o->po.pe_budget);
    cJSON_AddStringToObject(j, "precision", pass_quant_prec_name(o->prec));
    cJSON_AddStringToObject(j, "objective", o->objective == CODESIGN_LATENCY ? "latency" : "fps");
    cJSON_AddNumberToObject(j, "target_speedup", o->target_speedup);
    cJSON_AddNumberToObject(j, "max_accuracy_drop", o->max_drop);
    cJSON_AddBoolToObject(j, "recovery", !o->no_recover);
    cJSON_AddNumberToObject(j, "validation_images", cs->n_val);
    return j;
}

int codesign_write_json(const Codesign *cs, const char *path)
{
    cJSON *root = cJSON_CreateObject(), *cands = cJSON_CreateArray(), *groups = cJSON_CreateArray();
    cJSON_AddItemToObject(root, "options", options_json(cs));
    for (int g = 0; g < cs->n_groups; g++) {
        cJSON *o = cJSON_CreateObject(), *src = cJSON_CreateArray();
        cJSON_AddStringToObject(o, "name", cs->group_name[g]);
        cJSON_AddNumberToObject(o, "channels", (double)cs->groups[g].channels);
        for (int k = 0; k < cs->groups[g].n_src; k++)
            cJSON_AddItemToArray(src, cJSON_CreateString(cs->base->layers[cs->groups[g].src[k]].name));
        cJSON_AddItemToObject(o, "sources", src);
        cJSON_AddItemToArray(groups, o);
    }
    cJSON_AddItemToObject(root, "groups", groups);
    for (int i = 0; i < cs->n_c; i++)
        cJSON_AddItemToArray(cands, cand_json(cs, &cs->c[i], i));
    cJSON_AddItemToObject(root, "candidates", cands);
    cJSON_AddNumberToObject(root, "chosen", cs->chosen);
    cJSON_AddNumberToObject(root, "seconds", (o2h_now_ms() - cs->t_start) / 1000.0);
    cJSON_AddNumberToObject(root, "cpu_seconds", (double)(clock() - cs->cpu_start) / CLOCKS_PER_SEC);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    FILE *f = text ? fopen(path, "w") : NULL;
    int rc = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF ? 0 : -1;
    if (f && fclose(f))
        rc = -1;
    cJSON_free(text);
    return rc;
}

/* ------------------------------------------------------------- HTML */

typedef struct {
    double x0, x1, y0, y1;   /* data ranges */
    int w, h, ml, mb;        /* size and margins */
} Axes;

static double px(const Axes *a, double x)
{
    return a->ml + (x - a->x0) / (a->x1 - a->x0) * (a->w - a->ml - 10);
}

static double py(const Axes *a, double y)
{
    return a->h - a->mb - (y - a->y0) / (a->y1 - a->y0) * (a->h - a->mb - 10);
}

static void axes(FILE *f, const Axes *a, const char *xl, const char *yl)
{
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"ax\"/>\n", a->ml, py(a, a->y0),
            a->w - 10, py(a, a->y0));
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"10\" class=\"ax\"/>\n", a->ml, py(a, a->y0), a->ml);
    for (int k = 0; k <= 4; k++) {
        double x = a->x0 + (a->x1 - a->x0) * k / 4, y = a->y0 + (a->y1 - a->y0) * k / 4;
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"tk\">%.2f</text>\n", px(a, x), a->h - a->mb + 14, x);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"tk\" text-anchor=\"end\">%.1f</text>\n", a->ml - 4, py(a, y) + 4,
                y);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"lb\">%s</text>\n", a->w / 2, a->h - 4, xl);
    fprintf(f, "<text x=\"12\" y=\"%d\" class=\"lb\" transform=\"rotate(-90 12 %d)\">%s</text>\n", a->h / 2, a->h / 2,
            yl);
}

static double shown_acc(const CodesignCand *c)
{
    return c->acc_full >= 0 ? c->acc_full : c->acc;
}

static void front_svg(const Codesign *cs, FILE *f)
{
    Axes a = {1, 1.1, 1e9, -1e9, 720, 380, 56, 36};
    for (int i = 0; i < cs->n_c; i++) {
        const CodesignCand *c = &cs->c[i];
        if (!strcmp(c->kind, "sensitivity"))
            continue;
        a.x0 = fmin(a.x0, c->speedup), a.x1 = fmax(a.x1, c->speedup);
        a.y0 = fmin(a.y0, shown_acc(c)), a.y1 = fmax(a.y1, shown_acc(c));
    }
    a.x0 = fmin(a.x0, 1.0) - 0.02, a.x1 += 0.05, a.y0 -= 1, a.y1 += 1;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" "
               "aria-label=\"Pareto front\">\n", a.w, a.h);
    axes(f, &a, "speedup over the unpruned design (planner)", "top-1 accuracy % (integer evaluator)");
    fprintf(f, "<polyline class=\"fr\" points=\"");
    double last = -1;
    for (int k = 0; k < cs->n_c; k++) {  /* front in speedup order */
        int best = -1;
        for (int i = 0; i < cs->n_c; i++)
            if (cs->c[i].front && cs->c[i].speedup > last && (best < 0 || cs->c[i].speedup < cs->c[best].speedup))
                best = i;
        if (best < 0)
            break;
        fprintf(f, "%.1f,%.1f ", px(&a, cs->c[best].speedup), py(&a, shown_acc(&cs->c[best])));
        last = cs->c[best].speedup;
    }
    fprintf(f, "\"/>\n");
    for (int i = 0; i < cs->n_c; i++) {
        const CodesignCand *c = &cs->c[i];
        if (!strcmp(c->kind, "sensitivity"))
            continue;
        const char *cls = i == cs->chosen ? "ch" : c->front ? "fp" : "pt";
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" class=\"%s\"><title>#%d %s: %.2f%% (%d img), %.3fx, "
                   "%.1f fps, MACs %lld</title></circle>\n",
                px(&a, c->speedup), py(&a, shown_acc(c)), i == cs->chosen ? 6 : 4, cls, i, c->kind, shown_acc(c),
                c->acc_full >= 0 ? cs->n_val : c->n_img, c->speedup, c->fps, (long long)c->macs);
    }
    fprintf(f, "</svg>\n");
}

static void sens_svg(const Codesign *cs, FILE *f)
{
    Axes a = {0, cs->opt.ratios[cs->opt.n_ratios - 1], 1e9, -1e9, 720, 380, 56, 36};
    for (int i = 0; i < cs->n_c; i++)
        if (cs->c[i].note_group >= 0 || i == 0)
            a.y0 = fmin(a.y0, cs->c[i].acc), a.y1 = fmax(a.y1, cs->c[i].acc);
    a.y0 -= 1, a.y1 += 1;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" "
               "aria-label=\"Sensitivity\">\n", a.w, a.h);
    axes(f, &a, "pruning ratio of one group (the rest unpruned)", "top-1 accuracy %");
    for (int g = 0; g < cs->n_groups; g++) {
        fprintf(f, "<polyline class=\"s%d\" points=\"%.1f,%.1f ", g % 8, px(&a, 0), py(&a, cs->c[0].acc));
        for (int i = 0; i < cs->n_c; i++)
            if (cs->c[i].note_group == g)
                fprintf(f, "%.1f,%.1f ", px(&a, cs->c[i].note_ratio), py(&a, cs->c[i].acc));
        fprintf(f, "\"><title>");
        esc_put(f, ESC_HTML, cs->group_name[g]);
        fprintf(f, "</title></polyline>\n");
    }
    fprintf(f, "</svg>\n");
}

static void sens_table(const Codesign *cs, FILE *f)
{
    fprintf(f, "<table><tr><th>group (first source layer)</th><th>channels</th>");
    for (int k = 0; k < cs->opt.n_ratios; k++)
        fprintf(f, "<th>%.2f</th>", cs->opt.ratios[k]);
    fprintf(f, "</tr>\n");
    for (int g = 0; g < cs->n_groups; g++) {
        fprintf(f, "<tr><td>");
        esc_put(f, ESC_HTML, cs->group_name[g]);
        fprintf(f, "</td><td>%lld</td>", (long long)cs->groups[g].channels);
        for (int i = 0; i < cs->n_c; i++)
            if (cs->c[i].note_group == g)
                fprintf(f, "<td>%.2f%% / %.3fx</td>", cs->c[i].acc, cs->c[i].speedup);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void cand_table(const Codesign *cs, FILE *f)
{
    fprintf(f, "<table><tr><th>#</th><th>kind</th><th>accuracy</th><th>all images</th><th>speedup</th>"
               "<th>frames/s</th><th>latency ms</th><th>MACs</th><th>params</th><th>BRAM18K</th><th>front</th></tr>\n");
    for (int i = 0; i < cs->n_c; i++) {
        const CodesignCand *c = &cs->c[i];
        if (!strcmp(c->kind, "sensitivity"))
            continue;
        fprintf(f, "<tr%s><td>%d</td><td>%s</td><td>%.2f%% (%d)</td>", i == cs->chosen ? " class=\"chosen\"" : "",
                i, c->kind, c->acc, c->n_img);
        if (c->acc_full >= 0)
            fprintf(f, "<td>%.2f%%</td>", c->acc_full);
        else
            fprintf(f, "<td>-</td>");
        fprintf(f, "<td>%.3fx</td><td>%.1f</td><td>%.4f</td><td>%lld</td><td>%lld</td><td>%d</td><td>%s</td></tr>\n",
                c->speedup, c->fps, c->latency_ms, (long long)c->macs, (long long)c->params, c->bram18k,
                c->front ? "yes" : "");
    }
    fprintf(f, "</table>\n");
}

static const char *CSS =
    "body{font:14px sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 20px}"
    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f0f0f0}"
    "tr.chosen td{background:#fff3c4}.ax{stroke:#444}.tk{font-size:11px;text-anchor:middle}.lb{font-size:12px;"
    "text-anchor:middle}.pt{fill:#9aa}.fp{fill:#1f77b4}.ch{fill:#d62728}.fr{fill:none;stroke:#1f77b4;"
    "stroke-width:1.5}.s0,.s1,.s2,.s3,.s4,.s5,.s6,.s7{fill:none;stroke-width:1.5}.s0{stroke:#1f77b4}"
    ".s1{stroke:#ff7f0e}.s2{stroke:#2ca02c}.s3{stroke:#d62728}.s4{stroke:#9467bd}.s5{stroke:#8c564b}"
    ".s6{stroke:#e377c2}.s7{stroke:#7f7f7f}";

int codesign_write_html(const Codesign *cs, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    const CodesignOptions *o = &cs->opt;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>onnx2hls codesign</title>"
               "<style>%s</style></head><body>\n<h1>Co-design of ", CSS);
    esc_put(f, ESC_HTML, o->model);
    fprintf(f, "</h1>\n<p>");
    esc_put(f, ESC_HTML, o->dev.name);
    fprintf(f, ", %d PEs, %s, objective %s; accuracy from the integer evaluator on %d validation "
               "images, speed from the planner (modelled, not measured on hardware).</p>\n",
            o->po.pe_budget, pass_quant_prec_name(o->prec),
            o->objective == CODESIGN_LATENCY ? "latency" : "frames/s", cs->n_val);
    bool sens = false;
    for (int i = 0; i < cs->n_c; i++)
        sens |= cs->c[i].note_group >= 0;
    if (!o->sensitivity) {
        fprintf(f, "<h2>Pareto front: speedup vs accuracy</h2>\n");
        front_svg(cs, f);
        fprintf(f, "<h2>Candidates</h2>\n");
        cand_table(cs, f);
    }
    if (sens) {
        fprintf(f, "<h2>Sensitivity: accuracy per group and ratio</h2>\n");
        sens_svg(cs, f);
        sens_table(cs, f);
    }
    fprintf(f, "</body></html>\n");
    return fclose(f);
}
