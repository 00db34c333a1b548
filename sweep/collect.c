/* collect.c - `onnx2hls sweep --collect DIR`: one row per point of the
 * manifest (sweep.json), from the files the point's steps left: plan.json
 * (the planner's figures of the design the point built), hls/csim.log and
 * hls/cycles.json (the C simulation's verdict and counted cycles), and
 * hls/o2h_prj/sol/syn/report/csynth.xml where Vitis HLS ran (sweep/csynth.c).
 *
 * Why figures are carried as text: the table must say exactly what each
 * point's plan.json says, so a number is read as the double JSON gives and
 * written back as the shortest text that reads back as that double - the
 * CSV then holds no rounding of its own, and two collections of the same
 * points give the same bytes. A step that did not run leaves its cells
 * empty; a file that is there but unreadable stops the collection with its
 * name (a half-written table would be trusted).
 */
#include "sweep.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const SweepColumn sweep_columns[SWEEP_NCOLS] = {
#define SWEEP_COL_INFO(id, name, label, kind) {name, label, kind},
    SWEEP_COLUMNS(SWEEP_COL_INFO)
#undef SWEEP_COL_INFO
};

char *sweep_num(double x)
{
    char buf[40];
    if (x == 0)
        x = 0;   /* no "-0" */
    if (x == floor(x) && fabs(x) < 9007199254740992.0) {   /* whole numbers in full, below 2^53 */
        snprintf(buf, sizeof buf, "%.0f", x);
        return strdup(buf);
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return strdup(buf);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* the whole file as a string; NULL (message printed) if unreadable */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
        buf[n] = 0;
    else {
        fprintf(stderr, "onnx2hls sweep: cannot read %s: %s\n", path, f ? "read error" : strerror(errno));
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    return buf;
}

static cJSON *read_json(const char *path)
{
    char *text = slurp(path);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    if (text && !j)
        fprintf(stderr, "onnx2hls sweep: %s: not valid JSON\n", path);
    free(text);
    return j;
}

static char *text_cell(const cJSON *j)
{
    return cJSON_IsString(j) ? strdup(j->valuestring) : NULL;
}

static char *num_cell(const cJSON *j)
{
    return cJSON_IsNumber(j) && isfinite(j->valuedouble) ? sweep_num(j->valuedouble) : NULL;
}

/* ------------------------------------------------------------ plan.json */

static int from_plan(const char *path, const char *design, SweepRow *r)
{
    cJSON *j = read_json(path);
    if (!j)
        return -1;
    const cJSON *opt = cJSON_GetObjectItemCaseSensitive(j, "options");
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(j, "device");
    const cJSON *des = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "designs"), design);
    int rc = 0;
    if (!cJSON_IsObject(opt) || !cJSON_IsObject(dev) || !cJSON_IsObject(des)) {
        fprintf(stderr, "onnx2hls sweep: %s: not a plan (no options, device or designs.%s)\n", path, design);
        rc = -1;
    } else {
        r->cell[SWEEP_COL_TARGET] = text_cell(cJSON_GetObjectItemCaseSensitive(dev, "name"));
        r->cell[SWEEP_COL_PRECISION] = text_cell(cJSON_GetObjectItemCaseSensitive(opt, "precision"));
        r->cell[SWEEP_COL_PE_BUDGET] = num_cell(cJSON_GetObjectItemCaseSensitive(opt, "pe_budget"));
        r->cell[SWEEP_COL_DESIGN] = strdup(design);
        for (int c = SWEEP_COL_SPLIT; c <= SWEEP_COL_ONCHIP_BYTES; c++)
            r->cell[c] = num_cell(cJSON_GetObjectItemCaseSensitive(des, sweep_columns[c].name));
    }
    cJSON_Delete(j);
    return rc;
}

/* ------------------------------------------------------ the C simulation */

/* pass / fail from the testbench's verdict line, error when the log has none */
static const char *csim_status(const char *log)
{
    for (const char *p = log; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (!strncmp(p, "csim: PASS", 10))
            return "pass";
        if (!strncmp(p, "csim: FAIL", 10))
            return "fail";
    }
    return "error";
}

static int from_cycles(const char *path, SweepRow *r)
{
    cJSON *j = read_json(path);
    if (!j)
        return -1;
    const cJSON *per = cJSON_GetObjectItemCaseSensitive(j, "period");
    const cJSON *csim = cJSON_GetObjectItemCaseSensitive(per, "csim");
    const cJSON *plan = cJSON_GetObjectItemCaseSensitive(per, "plan");
    int rc = 0;
    if (!cJSON_IsNumber(csim) || !cJSON_IsNumber(plan)) {
        fprintf(stderr, "onnx2hls sweep: %s: no period.csim and period.plan\n", path);
        rc = -1;
    } else {
        r->cell[SWEEP_COL_CSIM_PERIOD] = num_cell(csim);
        char buf[32];
        if (plan->valuedouble > 0) {
            snprintf(buf, sizeof buf, "%.4f", csim->valuedouble / plan->valuedouble);
            r->cell[SWEEP_COL_CSIM_RATIO] = strdup(buf);
        }
    }
    cJSON_Delete(j);
    return rc;
}

static int from_csim(const char *hls, SweepRow *r)
{
    char path[PATH_MAX + 256];
    snprintf(path, sizeof path, "%s/" SWEEP_CSIM_LOG, hls);
    if (!exists(path))
        return 0;
    char *log = slurp(path);
    if (!log)
        return -1;
    const char *st = csim_status(log);
    free(log);
    r->cell[SWEEP_COL_CSIM] = strdup(st);
    snprintf(path, sizeof path, "%s/cycles.json", hls);
    return strcmp(st, "error") && exists(path) ? from_cycles(path, r) : 0;
}

/* ------------------------------------------------------------ the points */

/* a point name as the sweep makes them: a folder name, never a path */
static bool good_name(const char *s)
{
    if (!s || !*s || *s == '.' || strlen(s) >= 80)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr("_.-", *s)))
            return false;
    return true;
}

static int collect_point(const char *dir, const char *name, const char *design, SweepRow *r)
{
    char path[PATH_MAX + 256], hls[PATH_MAX + 96];
    r->cell[SWEEP_COL_POINT] = strdup(name);
    snprintf(path, sizeof path, "%s/points/%s/plan.json", dir, name);
    snprintf(hls, sizeof hls, "%s/points/%s/hls", dir, name);
    if (from_plan(path, design, r) || from_csim(hls, r))
        return -1;
    snprintf(path, sizeof path, "%s/" SWEEP_CSYNTH_XML, hls);
    return exists(path) ? sweep_read_csynth(path, r) : 0;
}

static int collect_points(const char *dir, const char *mpath, const cJSON *m, SweepTable *t)
{
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(m, "points");
    const cJSON *design = cJSON_GetObjectItemCaseSensitive(m, "design");
    int n = cJSON_GetArraySize(pts);
    if (!cJSON_IsArray(pts) || n == 0 || !cJSON_IsString(design)) {
        fprintf(stderr, "onnx2hls sweep: %s: not a sweep manifest (no points or design)\n", mpath);
        return -1;
    }
    t->rows = calloc((size_t)n, sizeof *t->rows);
    if (!t->rows)
        return -1;
    const cJSON *p;
    cJSON_ArrayForEach(p, pts) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "name"));
        if (!good_name(name)) {
            fprintf(stderr, "onnx2hls sweep: %s: point %d has no name of [A-Za-z0-9_.-]\n", mpath, t->n_rows);
            return -1;
        }
        SweepRow *r = &t->rows[t->n_rows++];
        if (collect_point(dir, name, design->valuestring, r))
            return -1;
        t->n_csim += r->cell[SWEEP_COL_CSIM] != NULL;
        t->n_synth += r->cell[SWEEP_COL_SYN_LATENCY] || r->cell[SWEEP_COL_SYN_LUT];
    }
    return 0;
}

int sweep_collect(const char *dir, SweepTable *t)
{
    memset(t, 0, sizeof *t);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/sweep.json", dir);
    if (!exists(path)) {
        fprintf(stderr, "onnx2hls sweep: %s is not a sweep folder (no sweep.json; onnx2hls sweep -o DIR makes one)\n",
                dir);
        return -1;
    }
    cJSON *m = read_json(path);
    if (!m)
        return -1;
    t->model = text_cell(cJSON_GetObjectItemCaseSensitive(m, "model"));
    int rc = collect_points(dir, path, m, t);
    cJSON_Delete(m);
    if (rc)
        sweep_table_free(t);
    return rc;
}

void sweep_table_free(SweepTable *t)
{
    for (int i = 0; i < t->n_rows; i++)
        for (int c = 0; c < SWEEP_NCOLS; c++)
            free(t->rows[i].cell[c]);
    free(t->rows);
    free(t->model);
    memset(t, 0, sizeof *t);
}
