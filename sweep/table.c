/* table.c - the collected sweep as sweep.csv (one row per point, the
 * columns of sweep.h) and sweep.html (the same table and a chart of
 * frames/s against the PE budget, one line per board and precision).
 *
 * Why both: the CSV is for scripts and spreadsheets, the page for a person
 * choosing a point. Each is written whole to a temporary name and renamed,
 * so a reader never sees half a table. Text cells (names from the model's
 * device file, the model's path) go through ir/escape.h: ESC_CSV in the
 * CSV, ESC_HTML in the page; numbers are the collector's own text.
 */
#define _XOPEN_SOURCE 700
#include "sweep.h"

#include "ir/escape.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* -------------------------------------------------------------- CSV */

static void write_csv(const SweepTable *t, FILE *f)
{
    for (int c = 0; c < SWEEP_NCOLS; c++)
        fprintf(f, "%s%s", c ? "," : "", sweep_columns[c].name);
    fputc('\n', f);
    for (int i = 0; i < t->n_rows; i++) {
        for (int c = 0; c < SWEEP_NCOLS; c++) {
            const char *v = t->rows[i].cell[c];
            if (c)
                fputc(',', f);
            if (v && sweep_columns[c].kind == SWEEP_TEXT) {
                fputc('"', f);
                esc_put(f, ESC_CSV, v);
                fputc('"', f);
            } else if (v) {
                fputs(v, f);
            }
        }
        fputc('\n', f);
    }
}

/* ------------------------------------------------------------- chart */

#define CHART_W 720
#define CHART_H 300
#define CHART_L 70
#define CHART_B 40

static double cell_num(const SweepRow *r, SweepCol c)
{
    return r->cell[c] ? strtod(r->cell[c], NULL) : -1;
}

/* the distinct PE budgets, ascending; their count */
static int budgets(const SweepTable *t, double *b)
{
    int n = 0;
    for (int i = 0; i < t->n_rows; i++) {
        double v = cell_num(&t->rows[i], SWEEP_COL_PE_BUDGET);
        int k = 0;
        while (k < n && b[k] < v)
            k++;
        if (k < n && b[k] == v)
            continue;
        memmove(b + k + 1, b + k, (size_t)(n - k) * sizeof *b);
        b[k] = v;
        n++;
    }
    return n;
}

static bool same_series(const SweepRow *a, const SweepRow *b)
{
    const char *ta = a->cell[SWEEP_COL_TARGET], *tb = b->cell[SWEEP_COL_TARGET];
    const char *pa = a->cell[SWEEP_COL_PRECISION], *pb = b->cell[SWEEP_COL_PRECISION];
    return ta && tb && pa && pb && !strcmp(ta, tb) && !strcmp(pa, pb);
}

static double x_of(const double *b, int nb, double v)
{
    int k = 0;
    while (k < nb - 1 && b[k] != v)
        k++;
    return CHART_L + (nb > 1 ? k * (CHART_W - CHART_L - 40.0) / (nb - 1) : (CHART_W - CHART_L) / 2.0);
}

static double y_of(double fps, double ymax)
{
    return CHART_H - CHART_B - fps / ymax * (CHART_H - CHART_B - 30);
}

/* one line of the series that row `first` starts (rows of that board and precision) */
static void chart_series(const SweepTable *t, int first, const double *b, int nb, double ymax, int color, FILE *f)
{
    static const char *colors[] = {"#2b6cb0", "#c05621", "#2f855a", "#b42318", "#6b46c1", "#4a5568"};
    const char *col = colors[color % 6];
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
    for (int i = first; i < t->n_rows; i++)
        if (same_series(&t->rows[first], &t->rows[i]))
            fprintf(f, "%.1f,%.1f ", x_of(b, nb, cell_num(&t->rows[i], SWEEP_COL_PE_BUDGET)),
                    y_of(cell_num(&t->rows[i], SWEEP_COL_FPS), ymax));
    fprintf(f, "\"/>\n");
    for (int i = first; i < t->n_rows; i++)
        if (same_series(&t->rows[first], &t->rows[i]))
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n",
                    x_of(b, nb, cell_num(&t->rows[i], SWEEP_COL_PE_BUDGET)),
                    y_of(cell_num(&t->rows[i], SWEEP_COL_FPS), ymax), col);
    fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\">", CHART_W - 160, 16 + 14 * color, col);
    esc_put(f, ESC_HTML, t->rows[first].cell[SWEEP_COL_TARGET]);
    fputc(' ', f);
    esc_put(f, ESC_HTML, t->rows[first].cell[SWEEP_COL_PRECISION]);
    fprintf(f, "</text>\n");
}

static void chart_axes(const double *b, int nb, double ymax, FILE *f)
{
    fprintf(f, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
               "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#9aa5b1\"/>\n"
               "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e7eb\"/>\n"
               "<text x=\"8\" y=\"14\">frames/s</text>\n"
               "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n"
               "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n",
            CHART_W, CHART_H, CHART_W, CHART_H, CHART_L, CHART_H - CHART_B, CHART_W - 10, CHART_H - CHART_B,
            CHART_L, y_of(ymax, ymax), CHART_W - 10, y_of(ymax, ymax), CHART_L - 6, y_of(ymax, ymax) + 4, ymax >= 100 ? 0 : 3, ymax,
            CHART_L - 6, CHART_H - CHART_B + 4);
    for (int k = 0; k < nb; k++)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>\n", x_of(b, nb, b[k]),
                CHART_H - CHART_B + 16, b[k]);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">PE budget</text>\n", CHART_W - 10, CHART_H - 6);
}

static void write_chart(const SweepTable *t, FILE *f)
{
    double *b = malloc((size_t)t->n_rows * sizeof *b), ymax = 0;
    if (!b)
        return;
    int nb = budgets(t, b), n_series = 0;
    for (int i = 0; i < t->n_rows; i++)
        ymax = cell_num(&t->rows[i], SWEEP_COL_FPS) > ymax ? cell_num(&t->rows[i], SWEEP_COL_FPS) : ymax;
    ymax = ymax > 0 ? ymax : 1;
    chart_axes(b, nb, ymax, f);
    for (int i = 0; i < t->n_rows; i++) {
        bool seen = false;
        for (int k = 0; k < i && !seen; k++)
            seen = same_series(&t->rows[k], &t->rows[i]);
        if (!seen)
            chart_series(t, i, b, nb, ymax, n_series++, f);
    }
    fprintf(f, "</svg>\n");
    free(b);
}

/* ------------------------------------------------------------- page */

static const char *css =
    "body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}"
    "main{margin:0 auto;padding:16px 24px 48px;max-width:1400px}h1{font-size:22px;margin:12px 0 4px}"
    "h2{font-size:17px;margin:24px 0 8px}p.sub{color:#555;margin:0 0 12px}"
    "table{border-collapse:collapse;background:#fff;font-size:12.5px}"
    "th,td{border:1px solid #d7dbe2;padding:3px 7px;text-align:right}th{background:#eef1f5}"
    "td.t{text-align:left;white-space:nowrap}td.fail,td.error{color:#b42318;font-weight:600}"
    "svg{background:#fff;border:1px solid #d7dbe2;border-radius:4px;display:block}"
    "svg text{font:11px system-ui,sans-serif;fill:#1d2330}";

/* a column some point has a value in (the page leaves out steps that never ran) */
static bool column_used(const SweepTable *t, int c)
{
    for (int i = 0; i < t->n_rows; i++)
        if (t->rows[i].cell[c])
            return true;
    return false;
}

static void write_rows(const SweepTable *t, FILE *f)
{
    bool used[SWEEP_NCOLS];
    fprintf(f, "<table>\n<tr>");
    for (int c = 0; c < SWEEP_NCOLS; c++)
        if ((used[c] = column_used(t, c)))
            fprintf(f, "<th>%s</th>", sweep_columns[c].label);
    fprintf(f, "</tr>\n");
    for (int i = 0; i < t->n_rows; i++) {
        fprintf(f, "<tr>");
        for (int c = 0; c < SWEEP_NCOLS; c++) {
            if (!used[c])
                continue;
            const char *v = t->rows[i].cell[c];
            bool text = sweep_columns[c].kind == SWEEP_TEXT;
            bool bad = c == SWEEP_COL_CSIM && v && strcmp(v, "pass");
            fprintf(f, "<td%s>", bad ? " class=\"t fail\"" : text ? " class=\"t\"" : "");
            esc_put(f, ESC_HTML, v ? v : "");
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void write_html(const SweepTable *t, FILE *f)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Sweep of ");
    esc_put(f, ESC_HTML, t->model);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<h1>Sweep of <code>", css);
    esc_put(f, ESC_HTML, t->model);
    fprintf(f, "</code></h1>\n<p class=\"sub\">%d points; %d with a C simulation, %d with a Vitis HLS synthesis "
               "report. Plan figures are the planner's cost model; csim cycles are counted by the C simulation; "
               "synth figures are Vitis HLS estimates (csynth.xml).</p>\n<h2>Throughput</h2>\n",
            t->n_rows, t->n_csim, t->n_synth);
    write_chart(t, f);
    fprintf(f, "<h2>Points</h2>\n");
    write_rows(t, f);
    fprintf(f, "<footer><p class=\"sub\">Generated by onnx2hls sweep --collect; the same rows as sweep.csv.</p>"
               "</footer>\n</main>\n</body>\n</html>\n");
}

/* ------------------------------------------------------------ files */

/* dir/name written to tmp (name.tmp-PID); 0 ok, -1 (message printed, tmp removed) */
static int write_tmp(const SweepTable *t, const char *dir, const char *name, void (*fn)(const SweepTable *, FILE *),
                     char *tmp, size_t n)
{
    snprintf(tmp, n, "%s/%s.tmp-%ld", dir, name, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "onnx2hls sweep: cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    fn(t, f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "onnx2hls sweep: error while writing %s\n", tmp);
        remove(tmp);
        return -1;
    }
    return 0;
}

int sweep_write_table(const SweepTable *t, const char *dir)
{
    static const char *names[2] = {"sweep.csv", "sweep.html"};
    void (*fns[2])(const SweepTable *, FILE *) = {write_csv, write_html};
    char tmp[2][PATH_MAX + 64], path[PATH_MAX + 32];
    int made = 0, rc = 0;
    for (; made < 2 && rc == 0; made++)
        rc = write_tmp(t, dir, names[made], fns[made], tmp[made], sizeof tmp[made]);
    made -= rc != 0;   /* the failed one removed its own */
    for (int k = 0; k < made && rc == 0; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        if (rename(tmp[k], path) != 0) {
            fprintf(stderr, "onnx2hls sweep: cannot write %s: %s\n", path, strerror(errno));
            rc = -1;
        }
    }
    for (int k = 0; k < made && rc; k++)
        remove(tmp[k]);
    return rc;
}
