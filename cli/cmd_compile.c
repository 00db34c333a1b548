/* cmd_compile.c - `onnx2hls compile MODEL -o OUT`: load, run the passes,
 * and emit the requested outputs (today: the host C program, OUT/host).
 *
 * Why the temporary folder: a compile that fails half-way (an unsupported
 * node found by the emitter, a full disk) must not leave a half-written OUT
 * that a later build or verify would trust. Everything is written into a
 * sibling folder OUT.tmp-PID and moved into place by rename() only when
 * complete; an existing OUT keeps its other contents (e.g. hls/) and gets
 * its host/ replaced.
 */
#define _XOPEN_SOURCE 700
#include "cli.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codegen/hls.h"
#include "codegen/host.h"
#include "report/report.h"
#include "driver/driver.h"
#include "passes/quant/qdq_export.h"
#include "passes/quant/quant.h"
#include "runtime/o2h_rt.h"

static void compile_usage(FILE *f)
{
    fprintf(f, "usage: onnx2hls compile MODEL.onnx -o OUT [--emit host,report,hls,accel,qdq,onnx] [--plan hybrid|seml|sesl] [--input-shape NAME=1,3,224,224]...\n"
               "                        [--tb-input X.f32] [--embed-weights] [--heap-arena] [--quiet] [plan options] [pass options]\n"
               "  -o OUT           output folder; the host program goes to OUT/host\n"
               "  --emit LIST      what to generate, comma separated (default host,report, and\n"
               "                   hls with an integer --precision):\n"
               "                   host (OUT/host), report (OUT/plan.json and OUT/report.html:\n"
               "                   the hybrid plan for --target), hls (OUT/hls: the accelerator's\n"
               "                   HLS C, testbench and Vitis HLS project; integer precisions),\n"
               "                   accel (OUT/accel, with host and hls: the program that runs the\n"
               "                   model on the accelerator, backends sim, xrt, baremetal),\n"
               "                   qdq (OUT/model.qdq.onnx), onnx (OUT/model.onnx: the pruned\n"
               "                   float model, same names)\n"
               "  --plan DESIGN    the design OUT/hls implements: hybrid (default, the planner's\n"
               "                   choice for --objective), seml (reusable engines only) or sesl\n"
               "                   (one engine per layer, where it fits)\n"
               "  --tb-input FILE  the input the testbench's golden vectors are computed on\n"
               "                   (raw float32, its first image; default: a fixed pseudo-random\n"
               "                   input)\n"
               "  --input-shape    bind the dims of a graph input (needed for dynamic dims)\n"
               "  --bind NAME=FILE give graph input NAME a value (a .pb TensorProto, or raw data of\n"
               "                   its declared type and shape): it becomes a constant, for ops that\n"
               "                   need a shape, axes, scales... known at compile time\n"
               "  --embed-weights  weights as const C arrays (weights.c) instead of weights.bin,\n"
               "                   for targets without a file system\n"
               "  --heap-arena     the activation arena, kernel pool and weight buffer taken with\n"
               "                   malloc once in model_init instead of static storage (needed\n"
               "                   when they pass the 1 GiB a static program may hold)\n"
               "  --quiet          no summary on stdout\n");
    fprintf(f, "plan options (for --emit report and hls):\n");
    cli_plan_usage(f);
    cli_options_help(f, passes_options);
    cli_options_help(f, pass_quant_options);
}

/* ------------------------------------------------------ file helpers */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int cli_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

int cli_make_parents(const char *path, CliMade *m)
{
    m->n = 0;
    if (snprintf(m->path, sizeof m->path, "%s", path) >= (int)sizeof m->path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = m->path + 1; *p; p++) {
        if (*p != '/' || p[-1] == '/')
            continue;
        *p = 0;
        int r = mkdir(m->path, 0777);
        *p = '/';
        if (r && errno != EEXIST)
            return -1;
        if (r == 0 && m->n < 64)
            m->end[m->n++] = (size_t)(p - m->path);
    }
    return 0;
}

void cli_unmake_parents(CliMade *m)
{
    for (int i = m->n - 1; i >= 0; i--) {
        m->path[m->end[i]] = 0;
        rmdir(m->path);
    }
    m->n = 0;
}

/* Move tmp/NAME to out/NAME, replacing an older one. */
static int install_part(const char *tmp, const char *out, const char *name)
{
    char from[2 * PATH_MAX + 16], to[2 * PATH_MAX + 16], old[2 * PATH_MAX + 16];
    snprintf(from, sizeof from, "%s/%s", tmp, name);
    snprintf(to, sizeof to, "%s/%s", out, name);
    snprintf(old, sizeof old, "%s/%s.old", tmp, name);
    if (exists(to) && rename(to, old) != 0)
        return -1;
    return rename(from, to);
}

/* Put the finished tmp folder in place as out. */
static int install(const char *tmp, const char *out, const char *const *parts, int n)
{
    if (!exists(out))
        return rename(tmp, out);
    if (!is_dir(out)) {
        errno = ENOTDIR;
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (install_part(tmp, out, parts[i]))
            return -1;
    return cli_remove_tree(tmp);
}

/* ----------------------------------------------------------- options */

typedef struct {
    const char *model, *out;
    bool host, quiet, embed, heap_arena;
    FeOptions fe;
    PassOptions passes;
    bool qdq;                /* --emit qdq */
    bool accel;              /* --emit accel: the program on the accelerator (with host and hls) */
    int hls;                 /* --emit hls: 1 asked, 2 on by default (integer), 0 undecided, -1 off */
    const char *design;      /* --plan hybrid|seml|sesl */
    const char *tb_input;    /* --tb-input FILE */
    bool onnx;               /* --emit onnx: the pruned float model */
    bool report;             /* --emit report: plan.json and report.html */
    bool report_asked;       /* named in --emit or plan options given: a plan failure is an error */
    CliPlanArgs plan;        /* --target, --pe-budget, ... */
    QuantOptions quant;      /* --precision, --calib, ... */
} CompileArgs;

static int parse_emit(CompileArgs *a, const char *list)
{
    a->host = a->report = false;
    a->hls = -1;
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 4 && !strncmp(p, "host", 4)) {
            a->host = true;
        } else if (n == 3 && !strncmp(p, "qdq", 3)) {
            a->qdq = true;
        } else if (n == 3 && !strncmp(p, "hls", 3)) {
            a->hls = 1;
        } else if (n == 5 && !strncmp(p, "accel", 5)) {
            a->accel = a->host = true;
            a->hls = 1;
        } else if (n == 4 && !strncmp(p, "onnx", 4)) {
            a->onnx = true;
        } else if (n == 6 && !strncmp(p, "report", 6)) {
            a->report = a->report_asked = true;
        } else if (n) {
            fprintf(stderr, "onnx2hls compile: --emit '%.*s' is not available (this build emits: host, report, hls, accel, qdq, onnx)\n",
                    (int)n, p);
            return -1;
        }
        p = e ? e + 1 : p + n;
    }
    if (!a->host && !a->qdq && !a->report && a->hls <= 0 && !a->onnx) {
        fprintf(stderr, "onnx2hls compile: --emit names nothing to generate\n");
        return -1;
    }
    return 0;
}

static void args_init(CompileArgs *a)
{
    memset(a, 0, sizeof *a);
    a->host = a->report = true;
    cli_plan_args_init(&a->plan);
    passes_options_init(&a->passes);
    pass_quant_options_init(&a->quant);
}

static int parse_design(CompileArgs *a, int argc, char **argv, int *i)
{
    if (!(a->design = cli_value(argc, argv, i)))
        return -1;
    if (strcmp(a->design, "hybrid") && strcmp(a->design, "seml") && strcmp(a->design, "sesl")) {
        fprintf(stderr, "onnx2hls %s: --plan '%s' is not hybrid, seml or sesl\n", argv[0], a->design);
        return -1;
    }
    return 1;
}

/* The option at argv[*i]: 2 --help, 1 consumed (advancing *i past its
 * value), 0 not an option of compile (a model, or unknown), -1 bad value
 * (message printed). */
static int parse_option(CompileArgs *a, int argc, char **argv, int *i)
{
    const char *s = argv[*i], *v;
    int r;
    if (!strcmp(s, "--help") || !strcmp(s, "-h"))
        return 2;
    if (!strcmp(s, "-o") || !strcmp(s, "--output"))
        return (a->out = cli_value(argc, argv, i)) ? 1 : -1;
    if (!strcmp(s, "--emit"))
        return (v = cli_value(argc, argv, i)) && !parse_emit(a, v) ? 1 : -1;
    if (!strncmp(s, "--emit=", 7))
        return parse_emit(a, s + 7) ? -1 : 1;
    if (!strcmp(s, "--input-shape"))
        return (v = cli_value(argc, argv, i)) && !cli_add_input_shape(&a->fe, v) ? 1 : -1;
    if (!strcmp(s, "--bind"))
        return (v = cli_value(argc, argv, i)) && !cli_add_bind(&a->fe, v) ? 1 : -1;
    if (!strcmp(s, "--plan"))
        return parse_design(a, argc, argv, i);
    if (!strcmp(s, "--tb-input"))
        return (a->tb_input = cli_value(argc, argv, i)) &&
                       !cli_check_file(argv[0], "--tb-input", a->tb_input, &SF_TB_INPUT) ? 1 : -1;
    if (!strcmp(s, "--embed-weights"))
        return a->embed = true, 1;
    if (!strcmp(s, "--heap-arena"))
        return a->heap_arena = true, 1;
    if (!strcmp(s, "--quiet") || !strcmp(s, "-q"))
        return a->quiet = true, 1;
    if ((r = cli_plan_parse_option(&a->plan, argc, argv, i)) != 0) {
        a->report_asked = true; /* plan options given: the plan is wanted */
        return r;
    }
    if ((r = cli_option(passes_options, &a->passes, argc, argv, i)) != 0)
        return r;
    return cli_option(pass_quant_options, &a->quant, argc, argv, i);
}

int cli_compile_option(int argc, char **argv, int *i)
{
    CompileArgs a;
    args_init(&a);
    int r = parse_option(&a, argc, argv, i);
    return r == 2 ? 0 : r;
}

/* 1: help printed; 0: parsed; -1: usage error (message printed). */
static int parse_args(int argc, char **argv, CompileArgs *a)
{
    args_init(a);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int r = parse_option(a, argc, argv, &i);
        if (r == 2) {
            compile_usage(stdout);
            return 1;
        } else if (r < 0) {
            return -1;
        } else if (r > 0) {
            continue;
        } else if (s[0] == '-' && s[1]) {
            fprintf(stderr, "onnx2hls compile: unknown option '%s'\n", s);
            return -1;
        } else if (a->model) {
            fprintf(stderr, "onnx2hls compile: more than one model given ('%s', '%s')\n", a->model, s);
            return -1;
        } else {
            a->model = s;
        }
    }
    if (!a->model || !a->out) {
        fprintf(stderr, "onnx2hls compile: %s\n", !a->model ? "no model given" : "no output folder (-o OUT)");
        return -1;
    }
    a->quant.log = a->quiet ? NULL : stdout;
    a->passes.quant = pass_quant_active(&a->quant) ? &a->quant : NULL;
    if (a->hls == 0)    /* by default the accelerator comes with an integer precision */
        a->hls = a->quant.prec.prec != IR_PREC_FLOAT ? 2 : -1;
    if (!a->design)
        a->design = "hybrid";
    return 0;
}

/* ------------------------------------------------------------- steps */

static void summary(const CompileArgs *a, const CgHostReport *r, double ms)
{
    printf("onnx2hls: wrote %s/host (%d runtime calls, %d views aliased, %d layers in place)\n", a->out,
           r->n_calls, r->n_alias, r->n_inplace);
    printf("  peak activation memory: %lld bytes (arena; lower bound %lld)\n", (long long)r->arena_bytes,
           (long long)r->live_bytes);
    printf("  weights: %lld bytes (%s); repacked weights + kernel scratch: %lld bytes\n",
           (long long)r->weight_bytes, a->embed ? "weights.c" : "weights.bin", (long long)r->pool_bytes);
    printf("  compile time: %.3f s\n", ms / 1000.0);
}

/* OUT/plan.json and OUT/report.html: the hybrid plan of the compiled graph */
static int write_report(const CompileArgs *a, const IrGraph *g, const char *tmp, IrDiag *d)
{
    PlanDevice dev;
    Plan p;
    if (cli_plan_device(&a->plan, "compile", &dev, d) || plan_build(g, &dev, &a->plan.po, &p, d))
        return -1;
    char path[PATH_MAX + 32];
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        snprintf(path, sizeof path, "%s/%s", tmp, k ? "report.html" : "plan.json");
        FILE *f = fopen(path, "w");
        if (!f) {
            diag_error(d, path, NULL, NULL, "cannot write: %s", strerror(errno));
            rc = -1;
            break;
        }
        if (k)
            report_html(&p, g, f);
        else
            plan_write_json(&p, g, f);
        if (fclose(f) != 0) {
            diag_error(d, path, NULL, NULL, "error while writing");
            rc = -1;
        }
    }
    plan_free(&p);
    return rc;
}

/* The report is on by default; when it was not asked for by name, a model
 * the planner cannot plan still compiles, with a warning instead. */
static int emit_report(CompileArgs *a, const IrGraph *g, const char *tmp, IrDiag *d)
{
    IrDiag pd;
    diag_init(&pd);
    int rc = write_report(a, g, tmp, &pd);
    for (int i = 0; i < pd.n; i++) {
        const DiagEntry *e = &pd.v[i];
        DiagLevel lvl = e->level == DIAG_ERROR && !a->report_asked ? DIAG_WARNING : e->level;
        diag_add(d, lvl, e->file, e->node, e->op, "%s%s", rc && !a->report_asked ? "no plan.json/report.html: " : "",
                 e->msg);
    }
    diag_free(&pd);
    if (rc && !a->report_asked) {
        a->report = false;
        return 0;
    }
    return rc;
}

/* OUT/hls: the accelerator of the chosen design */
static int write_hls(CompileArgs *a, IrGraph *g, const char *tmp, IrDiag *d)
{
    PlanDevice dev;
    Plan p;
    if (cli_plan_device(&a->plan, "compile", &dev, d) || plan_build(g, &dev, &a->plan.po, &p, d))
        return -1;
    const PlanDesign *design = !strcmp(a->design, "seml") ? &p.seml : !strcmp(a->design, "sesl") ? &p.sesl
                                                                                                : &p.hybrid;
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/hls", tmp);
    char adir[PATH_MAX + 32];
    snprintf(adir, sizeof adir, "%s/accel", tmp);
    CgHlsOptions ho = {NULL, NULL, NULL, a->tb_input, NULL, a->accel ? adir : NULL};
    CgHlsReport hr;
    int rc = cg_hls_emit(g, &p, design, &ho, dir, &hr, d);
    if (rc == 0 && !a->quiet && a->accel)
        printf("onnx2hls: wrote %s/accel (the model on its accelerator: make; ./accel --help)\n", a->out);
    if (rc == 0 && !a->quiet)
        printf("onnx2hls: wrote %s/hls (%s design, split %d: %d SESL processes, %d SEML layers, %d engine files;\n"
               "  DRAM arena %lld bytes, weight image %lld bytes, SESL ROM %lld bytes)\n",
               a->out, design->name, design->split, hr.n_sesl_procs, hr.n_seml_layers, hr.n_engines,
               (long long)hr.fm_bytes, (long long)hr.wimg_bytes, (long long)hr.rom_bytes);
    plan_free(&p);
    return rc;
}

/* Messages about files under the temporary folder name them where they will
 * be (OUT/...), or where they would have been. */
static void diag_rename_dir(IrDiag *d, int from, const char *tmp, const char *out)
{
    size_t n = strlen(tmp);
    for (int i = from; i < d->n; i++) {
        char *f = d->v[i].file;
        if (!f || strncmp(f, tmp, n) || (f[n] && f[n] != '/'))
            continue;
        char *r = malloc(strlen(out) + strlen(f + n) + 1);
        if (!r)
            abort();
        strcpy(r, out);
        strcat(r, f + n);
        free(f);
        d->v[i].file = r;
    }
}

/* The accelerator comes by default with an integer precision; when it was not
 * asked for by name, a model the engines cannot run (16-bit layers, say)
 * still compiles, with one warning naming the first layer instead. */
static int emit_hls(CompileArgs *a, IrGraph *g, const char *tmp, IrDiag *d)
{
    if (a->hls == 1) {
        int from = d->n, rc = write_hls(a, g, tmp, d);
        diag_rename_dir(d, from, tmp, a->out);
        return rc;
    }
    IrDiag hd;
    diag_init(&hd);
    int rc = write_hls(a, g, tmp, &hd);
    diag_rename_dir(&hd, 0, tmp, a->out);
    const DiagEntry *e = NULL;
    for (int i = 0; i < hd.n && !e; i++)
        e = hd.v[i].level == DIAG_ERROR ? &hd.v[i] : NULL;
    if (rc && e)
        diag_add(d, DIAG_WARNING, e->file, e->node, e->op,
                 "no OUT/hls (%d error%s; --emit hls lists them): %s", hd.n_errors, hd.n_errors == 1 ? "" : "s",
                 e->msg);
    diag_free(&hd);
    if (rc)
        a->hls = -1;
    return rc && !e ? rc : 0;
}

/* OUT/model.onnx: the graph after the passes but before quantization */
static int emit_onnx(CompileArgs *a, const char *tmp, IrDiag *d)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/model.onnx", tmp);
    PassOptions po = a->passes;
    po.quant = NULL;
    po.log = NULL;
    IrGraph *g = driver_lower_model(a->model, &a->fe, &po, d);
    int rc = g ? pass_onnx_export(g, path, d) : -1;
    ir_graph_free(g);
    return rc;
}

static int emit_all(CompileArgs *a, IrGraph *g, const char *tmp, CgHostReport *rep, IrDiag *d)
{
    char path[PATH_MAX], host[PATH_MAX + 32];
    const char *abs = realpath(a->model, path) ? path : a->model;
    snprintf(host, sizeof host, "%s/model.qdq.onnx", tmp);
    if (a->qdq && pass_qdq_export(g, host, d))
        return -1;
    if (a->onnx && emit_onnx(a, tmp, d))
        return -1;
    snprintf(host, sizeof host, "%s/host", tmp);
    CgHostOptions ho = {.model_path = abs, .embed_weights = a->embed, .heap_arena = a->heap_arena};
    if (a->host && cg_host_emit(g, &ho, host, rep, d))
        return -1;
    if (a->hls > 0 && emit_hls(a, g, tmp, d))
        return -1;
    return a->report ? emit_report(a, g, tmp, d) : 0;
}

int cmd_compile(int argc, char **argv)
{
    CompileArgs a;
    int pr = parse_args(argc, argv, &a);
    if (pr) {
        if (pr < 0)
            compile_usage(stderr);
        return pr > 0 ? 0 : 2;
    }
    double t0 = o2h_now_ms();
    if (!a.out[0] || strlen(a.out) + 32 >= PATH_MAX) {
        fprintf(stderr, "onnx2hls compile: -o needs a folder name %s\n",
                a.out[0] ? "shorter than PATH_MAX" : "(it was given an empty string)");
        return 2;
    }
    if (exists(a.out) && !is_dir(a.out)) {
        fprintf(stderr, "onnx2hls compile: %s exists and is not a folder\n", a.out);
        return 2;
    }
    IrDiag d;
    diag_init(&d);
    IrGraph *g = driver_lower_model(a.model, &a.fe, &a.passes, &d);
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", a.out, (long)getpid());
    CgHostReport rep = {0};
    int rc = g ? 0 : 2;
    bool made_tmp = false;
    static CliMade made;
    if (rc == 0 && (cli_make_parents(tmp, &made) || mkdir(tmp, 0777))) {
        fprintf(stderr, "onnx2hls compile: cannot create %s: %s\n", tmp, strerror(errno));
        cli_unmake_parents(&made);
        rc = 2;
    }
    made_tmp = rc == 0;
    if (rc == 0 && emit_all(&a, g, tmp, &rep, &d))
        rc = 2;
    const char *parts[7];
    int n_parts = 0;
    if (a.report) {
        parts[n_parts++] = "plan.json";
        parts[n_parts++] = "report.html";
    }
    if (a.host)
        parts[n_parts++] = "host";
    if (a.hls > 0)
        parts[n_parts++] = "hls";
    if (a.accel && a.hls > 0)
        parts[n_parts++] = "accel";
    if (a.qdq)
        parts[n_parts++] = "model.qdq.onnx";
    if (a.onnx)
        parts[n_parts++] = "model.onnx";
    if (rc == 0 && install(tmp, a.out, parts, n_parts)) {
        fprintf(stderr, "onnx2hls compile: cannot move the result to %s: %s\n", a.out, strerror(errno));
        rc = 2;
    }
    if (rc && made_tmp) {
        cli_remove_tree(tmp);
        cli_unmake_parents(&made);
    }
    diag_print(&d, stderr);
    if (rc == 0 && !a.quiet && a.qdq)
        printf("onnx2hls: wrote %s/model.qdq.onnx (QDQ, opset 13)\n", a.out);
    if (rc == 0 && !a.quiet && a.onnx)
        printf("onnx2hls: wrote %s/model.onnx (float, opset 13)\n", a.out);
    if (rc == 0 && !a.quiet && a.report)
        printf("onnx2hls: wrote %s/plan.json and %s/report.html (%s)\n", a.out, a.out,
               a.plan.device_file ? a.plan.device_file : a.plan.target ? a.plan.target : "zcu102");
    if (rc == 0 && !a.quiet && a.host)
        summary(&a, &rep, o2h_now_ms() - t0);
    ir_graph_free(g);
    diag_free(&d);
    return rc;
}
