/* cmd_sweep.c - `onnx2hls sweep MODEL --pe-budget 256,512 [--target B,...]
 * [--precision P,...] [compile options] -o DIR`: one point per board,
 * precision and budget, each what `onnx2hls compile --emit report,hls`
 * writes (DIR/points/NAME), with the Makefile and Slurm job array that run
 * their C simulations and syntheses (sweep/files.c); and `onnx2hls sweep
 * --collect DIR`: every point in DIR/sweep.csv and DIR/sweep.html.
 *
 * Why each point is a call of the compile command itself: a point must be
 * exactly what a user compiling that configuration gets, and the plan step
 * of the Makefile reruns the same command line (sweep.sh), so there is one
 * code path and one set of option checks. Options the sweep does not own
 * are checked by compile's own parser before anything is written and passed
 * through unchanged. Everything goes to DIR.tmp-PID, renamed to DIR only
 * when every point compiled; an existing non-empty DIR is refused (it may
 * hold hours of synthesis).
 */
#define _XOPEN_SOURCE 700
#include "cli.h"

#include "ir/escape.h"
#include "sweep/sweep.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LIST 64
#define MAX_POINTS 1000   /* Slurm's default MaxArraySize is 1001 */

static void sweep_usage(FILE *f)
{
    fprintf(f, "usage: onnx2hls sweep MODEL.onnx --pe-budget N,... [--target BOARD,... | --device-file DEV.json]\n"
               "                      [--precision P,...] [--plan hybrid|seml|sesl] [compile options] -o DIR\n"
               "       onnx2hls sweep --collect DIR\n"
               "  --pe-budget LIST  PE budgets, comma separated (each a point)\n"
               "  --target LIST     boards, comma separated (default zcu102)\n"
               "  --precision LIST  integer precisions, comma separated (default int8)\n"
               "  --plan DESIGN     the design each point's hls/ holds (default hybrid)\n"
               "  -o DIR            a new folder: points/TARGET-PRECISION-peN/ (plan.json, report.html,\n"
               "                    hls/), Makefile (make -j N: plan, csim, csynth where Vitis is),\n"
               "                    sweep.sbatch (cd DIR && sbatch sweep.sbatch), sweep.sh, sweep.json\n"
               "  --collect DIR     gather DIR's points into DIR/sweep.csv and DIR/sweep.html\n"
               "  --quiet           no summary on stdout\n"
               "Other options (--calib, --clock, --bandwidth, --objective, --input-shape, pass options...)\n"
               "go to every point's compile unchanged: see onnx2hls compile --help.\n");
}

typedef struct {
    const char *model, *out, *collect, *design, *device_file;
    bool quiet;
    const char *targets[MAX_LIST], *precs[MAX_LIST];
    int budgets[MAX_LIST];
    int n_targets, n_precs, n_budgets;
    char **pass;       /* argv words passed through to compile */
    int n_pass;
} SweepArgs;

/* ---------------------------------------------------------------- lists */

/* the comma-separated items of list, each checked by add(); -1 (message printed) */
static int split_list(const char *opt, const char *list, SweepArgs *a, int (*add)(SweepArgs *, const char *))
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf) {
        fprintf(stderr, "onnx2hls sweep: %s: the list is too long\n", opt);
        return -1;
    }
    for (char *p = buf, *e; p; p = e ? e + 1 : NULL) {
        e = strchr(p, ',');
        if (e)
            *e = 0;
        if (!*p) {
            fprintf(stderr, "onnx2hls sweep: %s '%s': an empty item\n", opt, list);
            return -1;
        }
        if (add(a, p))
            return -1;
    }
    return 0;
}

static int add_budget(SweepArgs *a, const char *s)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > 10000000) {
        fprintf(stderr, "onnx2hls sweep: bad --pe-budget item '%s' (an integer in [1, 10000000])\n", s);
        return -1;
    }
    for (int i = 0; i < a->n_budgets; i++)
        if (a->budgets[i] == v) {
            fprintf(stderr, "onnx2hls sweep: --pe-budget %ld given twice\n", v);
            return -1;
        }
    if (a->n_budgets == MAX_LIST) {
        fprintf(stderr, "onnx2hls sweep: more than %d PE budgets\n", MAX_LIST);
        return -1;
    }
    a->budgets[a->n_budgets++] = (int)v;
    return 0;
}

/* a name once in list (n entries, at most MAX_LIST) */
static int add_name(const char *opt, const char **list, int *n, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(list[i], name)) {
            fprintf(stderr, "onnx2hls sweep: %s %s given twice\n", opt, name);
            return -1;
        }
    if (*n == MAX_LIST) {
        fprintf(stderr, "onnx2hls sweep: more than %d items in %s\n", MAX_LIST, opt);
        return -1;
    }
    list[(*n)++] = name;
    return 0;
}

static int add_target(SweepArgs *a, const char *s)
{
    const PlanDevice *d = plan_device_find(s);
    if (!d) {
        fprintf(stderr, "onnx2hls sweep: unknown target '%s' (known:", s);
        for (int i = 0; i < plan_device_count(); i++)
            fprintf(stderr, " %s", plan_device_at(i)->name);
        fprintf(stderr, "; or --device-file FILE.json)\n");
        return -1;
    }
    return add_name("--target", a->targets, &a->n_targets, d->name);
}

static int add_prec(SweepArgs *a, const char *s)
{
    static const char *names[] = {"float", "int8", "int16", "dfxp8", "dfxp12", "dfxp14", "dfxp16"};
    IrPrecision prec;
    int bits;
    if (cli_parse_precision(s, &prec, &bits))
        return -1;
    if (prec == IR_PREC_FLOAT) {
        fprintf(stderr, "onnx2hls sweep: --precision float has no accelerator (its engines are integer: int8, dfxp8)\n");
        return -1;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i]))
            return add_name("--precision", a->precs, &a->n_precs, names[i]);
    return -1;
}

/* -------------------------------------------------------------- options */

/* argv[start..*i] (an option and its value) passed through to compile */
static void pass_through(SweepArgs *a, char **argv, int start, int end)
{
    for (int k = start; k <= end; k++)
        a->pass[a->n_pass++] = argv[k];
}

/* sweep's own options at argv[*i]: 2 help, 1 consumed, 0 not ours, -1 bad */
static int own_option(SweepArgs *a, int argc, char **argv, int *i)
{
    const char *s = argv[*i], *v;
    if (!strcmp(s, "--help") || !strcmp(s, "-h"))
        return 2;
    if (!strcmp(s, "--quiet") || !strcmp(s, "-q"))
        return a->quiet = true, 1;
    if (!strcmp(s, "-o") || !strcmp(s, "--output"))
        return (a->out = cli_value(argc, argv, i)) ? 1 : -1;
    if (!strcmp(s, "--collect"))
        return (a->collect = cli_value(argc, argv, i)) ? 1 : -1;
    if (!strcmp(s, "--pe-budget"))
        return (v = cli_value(argc, argv, i)) && !split_list(s, v, a, add_budget) ? 1 : -1;
    if (!strcmp(s, "--target"))
        return (v = cli_value(argc, argv, i)) && !split_list(s, v, a, add_target) ? 1 : -1;
    if (!strcmp(s, "--precision"))
        return (v = cli_value(argc, argv, i)) && !split_list(s, v, a, add_prec) ? 1 : -1;
    if (!strncmp(s, "--emit", 6)) {
        fprintf(stderr, "onnx2hls sweep: every point is compiled with --emit report,hls; --emit is not a sweep option\n");
        return -1;
    }
    if (!strcmp(s, "--device-file") && *i + 1 < argc)
        a->device_file = argv[*i + 1];   /* and on to compile */
    if (!strcmp(s, "--plan") && *i + 1 < argc)
        a->design = argv[*i + 1];        /* checked by compile's parser */
    return 0;
}

/* 1 help printed, 0 parsed, -1 usage error (message printed) */
static int parse_args(int argc, char **argv, SweepArgs *a)
{
    memset(a, 0, sizeof *a);
    a->pass = calloc((size_t)argc + 1, sizeof *a->pass);
    if (!a->pass)
        return -1;
    for (int i = 1; i < argc; i++) {
        int start = i, r = own_option(a, argc, argv, &i);
        if (r == 0 && argv[i][0] == '-' && argv[i][1]) {
            r = cli_compile_option(argc, argv, &i);
            if (r == 0)
                fprintf(stderr, "onnx2hls sweep: unknown option '%s'\n", argv[i]);
            if (r > 0)
                pass_through(a, argv, start, i);
            r = r ? r : -1;
        } else if (r == 0 && a->model) {
            fprintf(stderr, "onnx2hls sweep: more than one model given ('%s', '%s')\n", a->model, argv[i]);
            r = -1;
        } else if (r == 0) {
            a->model = argv[i];
        }
        if (r == 2)
            sweep_usage(stdout);
        if (r == 2 || r < 0)
            return r == 2 ? 1 : -1;
    }
    return 0;
}

static int check_args(SweepArgs *a)
{
    if (a->collect) {
        if (a->model || a->out || a->n_budgets || a->n_targets || a->n_precs || a->n_pass) {
            fprintf(stderr, "onnx2hls sweep: --collect DIR takes no other option\n");
            return -1;
        }
        return 0;
    }
    const char *missing = !a->model ? "no model given" : !a->out ? "no output folder (-o DIR)"
                        : !a->n_budgets ? "no --pe-budget list (e.g. --pe-budget 256,512,1024)" : NULL;
    if (missing) {
        fprintf(stderr, "onnx2hls sweep: %s\n", missing);
        return -1;
    }
    if (a->device_file && a->n_targets) {
        fprintf(stderr, "onnx2hls sweep: give --target or --device-file, not both\n");
        return -1;
    }
    if (!a->n_targets && !a->device_file)
        a->targets[a->n_targets++] = "zcu102";
    if (!a->n_precs)
        a->precs[a->n_precs++] = "int8";
    if (!a->design)
        a->design = "hybrid";
    return 0;
}

/* --------------------------------------------------------------- points */

typedef struct {
    SweepSpec spec;
    char budget_text[MAX_LIST][16];
    char dev_name[40];             /* the device file's device, as a point-name part */
    char cwd[PATH_MAX], self[PATH_MAX], model_abs[PATH_MAX];
} Sweep;

static void point_argv(const SweepArgs *a, Sweep *w, SweepPoint *p, const char *target, int b)
{
    char **v = p->argv;
    int n = 0;
    v[n++] = "compile";
    v[n++] = (char *)a->model;
    v[n++] = "--emit";
    v[n++] = "report,hls";
    v[n++] = "--quiet";
    v[n++] = "--plan";
    v[n++] = (char *)a->design;
    if (target) {
        v[n++] = "--target";
        v[n++] = (char *)target;
    }
    v[n++] = "--precision";
    v[n++] = (char *)p->precision;
    v[n++] = "--pe-budget";
    v[n++] = w->budget_text[b];
    for (int k = 0; k < a->n_pass; k++)
        v[n++] = a->pass[k];
    p->argc = n;
}

static int make_points(const SweepArgs *a, Sweep *w)
{
    int nt = a->device_file ? 1 : a->n_targets, n = nt * a->n_precs * a->n_budgets;
    if (n > MAX_POINTS) {
        fprintf(stderr, "onnx2hls sweep: %d points; at most %d in one sweep\n", n, MAX_POINTS);
        return -1;
    }
    w->spec.points = calloc((size_t)n, sizeof *w->spec.points);
    if (!w->spec.points)
        return -1;
    for (int t = 0; t < nt; t++)
        for (int q = 0; q < a->n_precs; q++)
            for (int b = 0; b < a->n_budgets; b++) {
                SweepPoint *p = &w->spec.points[w->spec.n_points++];
                const char *target = a->device_file ? NULL : a->targets[t];
                snprintf(p->target, sizeof p->target, "%s", target ? target : w->dev_name);
                p->precision = a->precs[q];
                p->pe_budget = a->budgets[b];
                snprintf(w->budget_text[b], sizeof w->budget_text[b], "%d", a->budgets[b]);
                snprintf(p->name, sizeof p->name, "%s-%s-pe%d", p->target, p->precision, p->pe_budget);
                if (!(p->argv = calloc((size_t)a->n_pass + 16, sizeof *p->argv)))
                    return -1;
                point_argv(a, w, p, target, b);
            }
    return 0;
}

/* the device file's device name, made a point-name part ([A-Za-z0-9_]) */
static int device_name(const SweepArgs *a, Sweep *w)
{
    PlanDevice dev;
    IrDiag d;
    diag_init(&d);
    int rc = plan_device_load(a->device_file, &dev, &d);
    diag_print(&d, stderr);
    diag_free(&d);
    if (rc == 0)
        esc_buf(w->dev_name, sizeof w->dev_name, ESC_C_IDENT, dev.name[0] ? dev.name : "device");
    return rc;
}

static int locate(const SweepArgs *a, Sweep *w)
{
    ssize_t n = readlink("/proc/self/exe", w->self, sizeof w->self - 1);
    if (n <= 0 || !getcwd(w->cwd, sizeof w->cwd)) {
        fprintf(stderr, "onnx2hls sweep: cannot find this program or the current folder: %s\n", strerror(errno));
        return -1;
    }
    w->self[n] = 0;
    if (!realpath(a->model, w->model_abs)) {
        fprintf(stderr, "onnx2hls sweep: cannot read %s: %s\n", a->model, strerror(errno));
        return -1;
    }
    SweepSpec *s = &w->spec;
    s->model = a->model;
    s->design = a->design;
    s->pass = a->pass;
    s->n_pass = a->n_pass;
    s->cwd = w->cwd;
    s->self = w->self;
    s->model_abs = w->model_abs;
    return a->device_file ? device_name(a, w) : 0;
}

static void free_points(Sweep *w)
{
    for (int i = 0; i < w->spec.n_points; i++)
        free(w->spec.points[i].argv);
    free(w->spec.points);
}

/* ------------------------------------------------------------- the run */

static int compile_points(const SweepArgs *a, Sweep *w, const char *tmp)
{
    char out[PATH_MAX + 128];
    for (int i = 0; i < w->spec.n_points; i++) {
        SweepPoint *p = &w->spec.points[i];
        snprintf(out, sizeof out, "%s/points/%s", tmp, p->name);
        p->argv[p->argc] = "-o";
        p->argv[p->argc + 1] = out;
        int rc = cmd_compile(p->argc + 2, p->argv);
        p->argv[p->argc] = p->argv[p->argc + 1] = NULL;
        if (rc != 0) {
            fprintf(stderr, "onnx2hls sweep: point %s did not compile (the messages above); nothing written\n",
                    p->name);
            return -1;
        }
        if (!a->quiet)
            printf("  %s\n", p->name);
    }
    return 0;
}

/* an existing DIR is taken only when it is an empty folder (removed, then replaced) */
static int check_out(const char *out)
{
    struct stat st;
    if (lstat(out, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (S_ISDIR(st.st_mode) && rmdir(out) == 0)
        return 0;
    fprintf(stderr, "onnx2hls sweep: %s exists%s: remove it or give another -o (a sweep's results are never "
                    "overwritten)\n", out, S_ISDIR(st.st_mode) ? " and is not empty" : "");
    return -1;
}

static int generate(const SweepArgs *a, Sweep *w)
{
    char tmp[PATH_MAX], pts[PATH_MAX + 16];
    static CliMade made;
    if (locate(a, w) || make_points(a, w) || check_out(a->out))
        return -1;
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", a->out, (long)getpid());
    snprintf(pts, sizeof pts, "%s/points", tmp);
    if (cli_make_parents(tmp, &made) || mkdir(tmp, 0777) || mkdir(pts, 0777)) {
        fprintf(stderr, "onnx2hls sweep: cannot create %s: %s\n", pts, strerror(errno));
        cli_remove_tree(tmp);
        cli_unmake_parents(&made);
        return -1;
    }
    /* the scripts before the points: make sees every plan.json newer than what it depends on */
    int rc = sweep_write_files(&w->spec, tmp) || compile_points(a, w, tmp) ? -1 : 0;
    if (rc == 0 && rename(tmp, a->out) != 0) {
        fprintf(stderr, "onnx2hls sweep: cannot move the result to %s: %s\n", a->out, strerror(errno));
        rc = -1;
    }
    if (rc) {
        cli_remove_tree(tmp);
        cli_unmake_parents(&made);
    }
    return rc;
}

static int collect(const SweepArgs *a)
{
    SweepTable t;
    if (sweep_collect(a->collect, &t))
        return 2;
    int rc = sweep_write_table(&t, a->collect) ? 2 : 0;
    if (rc == 0 && !a->quiet)
        printf("onnx2hls: wrote %s/sweep.csv and %s/sweep.html (%d points, %d with a C simulation, %d with a "
               "synthesis report)\n", a->collect, a->collect, t.n_rows, t.n_csim, t.n_synth);
    sweep_table_free(&t);
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    SweepArgs a;
    int pr = parse_args(argc, argv, &a);
    if (pr == 0 && check_args(&a))
        pr = -1;
    if (pr) {
        if (pr < 0)
            sweep_usage(stderr);
        free(a.pass);
        return pr > 0 ? 0 : 2;
    }
    if (a.collect) {
        free(a.pass);
        return collect(&a);
    }
    Sweep *w = calloc(1, sizeof *w);
    int rc = w && generate(&a, w) == 0 ? 0 : 2;
    if (rc == 0 && !a.quiet)
        printf("onnx2hls: wrote %s: %d points (each plan.json, report.html, hls/), Makefile, sweep.sbatch\n"
               "  run:  make -C %s -j N   or   cd %s && sbatch sweep.sbatch\n"
               "  then: onnx2hls sweep --collect %s\n",
               a.out, w->spec.n_points, a.out, a.out, a.out);
    if (w)
        free_points(w);
    free(w);
    free(a.pass);
    return rc;
}
