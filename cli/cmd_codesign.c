/* cmd_codesign.c - `onnx2hls codesign MODEL --val X --val-labels Y -o DIR`:
 * per-layer pruning ratios and precisions searched against the plan's cost
 * model and the integer evaluator's accuracy (codesign/codesign.h).
 *
 * Why a command of its own: the search compiles and runs the model dozens
 * of times; its result is two spec files that `compile` reads, so the
 * chosen design is then compiled like any other. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codesign/codesign.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: onnx2hls codesign MODEL.onnx --val X.f32 --val-labels Y.i32 -o DIR\n"
            "                         (--target-speedup S | --max-accuracy-drop P | --sensitivity)\n"
            "                         [--calib FILE] [plan options] [options]\n"
            "  --val FILE          validation inputs, raw float32 (N x the model's input)\n"
            "  --val-labels FILE   their labels, raw int32 (N)\n"
            "  --calib FILE        calibration inputs for recovery and quantization (default: --val)\n"
            "  -o DIR              writes prune.spec, precision.spec, codesign.json, codesign.html\n"
            "  --target-speedup S  the most accurate design at least S times as fast as the unpruned one\n"
            "  --max-accuracy-drop P  the fastest design losing at most P accuracy points\n"
            "  --sensitivity       only the accuracy of each prune group pruned alone, per ratio\n"
            "  --ratios LIST       sensitivity ratios (default 0.25,0.5,0.75)\n"
            "  --objective fps|latency  speed measure (default fps: the hybrid's frames/s)\n"
            "  --precision P       base precision of every layer (default int8)\n"
            "  --precisions LIST   other per-layer precisions to try (e.g. int16,dfxp16)\n"
            "  --front-speedup S   search the front up to this speedup (default 2)\n"
            "  --step R            ratio added per search step (default 0.125); --max-ratio R (0.75)\n"
            "  --search-images N   validation images per search step (default all; the front is\n"
            "                      re-measured on all)\n"
            "  --probes N          best predicted cuts measured per search step (default 3)\n"
            "  --calib-inputs N    calibration inputs used (default all)\n"
            "  --threads N         evaluator threads over the validation images (default: one per core)\n"
            "  --uniform R         measure uniform pruning by R only (with --no-recover: plain L1)\n"
            "  --no-recover        L1 ranking, no least-squares refit\n"
            "  --input-shape NAME=DIMS  bind a dynamic input\n"
            "  --bind NAME=FILE  give a graph input a value (it becomes a constant)\n"
            "  --quiet             no progress on stderr\n"
            "plan options (the fixed budget):\n");
    cli_plan_usage(f);
}

static int num(const char *s, double lo, double hi, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (errno || end == s || *end || !(*v >= lo && *v <= hi)) {
        fprintf(stderr, "onnx2hls codesign: bad value '%s' (expected a number in [%g, %g])\n", s, lo, hi);
        return -1;
    }
    return 0;
}

static int ratios(CodesignOptions *o, const char *s)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    o->n_ratios = 0;
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        if (o->n_ratios == CODESIGN_MAX_RATIOS || num(t, 0.01, 0.99, &o->ratios[o->n_ratios]))
            return -1;
        if (o->n_ratios && o->ratios[o->n_ratios] <= o->ratios[o->n_ratios - 1]) {
            fprintf(stderr, "onnx2hls codesign: --ratios must increase\n");
            return -1;
        }
        o->n_ratios++;
    }
    return o->n_ratios ? 0 : -1;
}

static int precisions(CodesignOptions *o, const char *s)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        if (o->n_alts == CODESIGN_MAX_PRECS || pass_quant_parse_prec(t, &o->alts[o->n_alts]) ||
            o->alts[o->n_alts].prec == IR_PREC_FLOAT) {
            fprintf(stderr, "onnx2hls codesign: --precisions: '%s' is not int8, int16, dfxp8..16\n", t);
            return -1;
        }
        o->n_alts++;
    }
    return 0;
}

typedef struct {
    CodesignOptions o;
    CliPlanArgs plan;
    bool quiet, goal;
} Args;

/* an option with a value at argv[*i]; 1 consumed, 0 not one of these, -1 bad */
static int value_option(Args *a, int argc, char **argv, int *i)
{
    static const char *names[] = {"--val", "--val-labels", "--calib", "-o", "--target-speedup",
                                  "--max-accuracy-drop", "--ratios", "--objective", "--precision",
                                  "--precisions", "--front-speedup", "--step", "--max-ratio",
                                  "--search-images", "--calib-inputs", "--uniform", "--threads", "--probes",
                                  "--input-shape", "--bind"};
    const char *o = argv[*i], *v;
    size_t k = 0;
    while (k < sizeof names / sizeof names[0] && strcmp(o, names[k]))
        k++;
    if (k == sizeof names / sizeof names[0])
        return 0;
    if (!(v = cli_value(argc, argv, i)))
        return -1;
    CodesignOptions *c = &a->o;
    double x;
    switch (k) {
    case 0: c->val_x = v; return 1;
    case 1: c->val_y = v; return 1;
    case 2: c->calib = v; return 1;
    case 3: c->out_dir = v; return 1;
    case 4: a->goal = true; return num(v, 1, 100, &c->target_speedup) ? -1 : 1;
    case 5: a->goal = true; return num(v, 0, 100, &c->max_drop) ? -1 : 1;
    case 6: return ratios(c, v) ? -1 : 1;
    case 7:
        if (strcmp(v, "fps") && strcmp(v, "latency"))
            return fprintf(stderr, "onnx2hls codesign: --objective fps or latency\n"), -1;
        c->objective = v[0] == 'l' ? CODESIGN_LATENCY : CODESIGN_FPS;
        return 1;
    case 8:
        if (pass_quant_parse_prec(v, &c->prec) || c->prec.prec == IR_PREC_FLOAT)
            return fprintf(stderr, "onnx2hls codesign: --precision '%s': an integer format\n", v), -1;
        return 1;
    case 9: return precisions(c, v) ? -1 : 1;
    case 10: return num(v, 1, 100, &c->front_speedup) ? -1 : 1;
    case 11: return num(v, 0.01, 0.5, &c->step) ? -1 : 1;
    case 12: return num(v, 0.05, 0.95, &c->max_ratio) ? -1 : 1;
    case 13: return num(v, 1, 1e7, &x) ? -1 : (c->search_images = (int)x, 1);
    case 14: return num(v, 1, 1e7, &x) ? -1 : (c->calib_max = (int)x, 1);
    case 15: a->goal = true; return num(v, 0.01, 0.95, &c->uniform) ? -1 : 1;
    case 16: return num(v, 1, 64, &x) ? -1 : (c->threads = (int)x, 1);
    case 17: return num(v, 1, 64, &x) ? -1 : (c->probes = (int)x, 1);
    case 18: return cli_add_input_shape(&c->fe, v) ? -1 : 1;
    default: return cli_add_bind(&c->fe, v) ? -1 : 1;
    }
}

/* 1 help, 0 ok, -1 usage error */
static int parse(Args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    codesign_options_init(&a->o);
    cli_plan_args_init(&a->plan);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int r;
        if (!strcmp(s, "--help") || !strcmp(s, "-h"))
            return usage(stdout), 1;
        if (!strcmp(s, "--sensitivity"))
            a->o.sensitivity = a->goal = true;
        else if (!strcmp(s, "--no-recover"))
            a->o.no_recover = true;
        else if (!strcmp(s, "--quiet") || !strcmp(s, "-q"))
            a->quiet = true;
        else if ((r = value_option(a, argc, argv, &i)) != 0 || (r = cli_plan_parse_option(&a->plan, argc, argv, &i)))
            if (r < 0)
                return -1;
            else
                continue;
        else if (s[0] == '-' && s[1])
            return fprintf(stderr, "onnx2hls codesign: unknown option '%s'\n", s), -1;
        else if (a->o.model)
            return fprintf(stderr, "onnx2hls codesign: more than one model given\n"), -1;
        else
            a->o.model = s;
    }
    const char *miss = !a->o.model ? "no model given" : !a->o.val_x ? "no --val" : !a->o.val_y ? "no --val-labels"
                       : !a->o.out_dir ? "no output folder (-o DIR)"
                       : !a->goal ? "give --target-speedup, --max-accuracy-drop or --sensitivity" : NULL;
    if (miss)
        return fprintf(stderr, "onnx2hls codesign: %s\n", miss), -1;
    if (!a->o.calib)
        a->o.calib = a->o.val_x;
    a->o.po = a->plan.po;
    if (a->o.max_drop < 0 && a->o.target_speedup <= 0)
        a->o.max_drop = 1.0;
    return 0;
}

int cmd_codesign(int argc, char **argv)
{
    Args a;
    int pr = parse(&a, argc, argv);
    if (pr)
        return pr > 0 ? 0 : (usage(stderr), 2);
    IrDiag d;
    diag_init(&d);
    if (cli_plan_device(&a.plan, "codesign", &a.o.dev, &d)) {
        diag_print(&d, stderr);
        diag_free(&d);
        return 2;
    }
    if (mkdir(a.o.out_dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "onnx2hls codesign: cannot create %s: %s\n", a.o.out_dir, strerror(errno));
        diag_free(&d);
        return 2;
    }
    a.o.progress = a.quiet ? NULL : stderr;
    Codesign cs;
    int rc = codesign_run(&cs, &a.o, &d) ? 2 : 0;
    diag_print(&d, stderr);
    if (rc == 0 && cs.chosen >= 0) {
        const CodesignCand *c = &cs.c[cs.chosen];
        printf("onnx2hls codesign: chose #%d: %.2f%% on %d validation images (unpruned %.2f%%), %.3fx %s "
               "(%.1f frames/s, %.3f ms), MACs %lld -> %lld\n",
               cs.chosen, c->acc_full, cs.n_val, cs.c[0].acc_full, c->speedup,
               a.o.objective == CODESIGN_LATENCY ? "latency" : "throughput", c->fps, c->latency_ms,
               (long long)cs.c[0].macs, (long long)c->macs);
        printf("  reproduce: onnx2hls compile %s -o OUT --prune %s/prune.spec --prune-calib %s "
               "--precision-spec %s/precision.spec --calib %s\n",
               a.o.model, a.o.out_dir, a.o.calib, a.o.out_dir, a.o.calib);
    }
    if (rc == 0)
        printf("onnx2hls codesign: wrote %s/codesign.json and %s/codesign.html\n", a.o.out_dir, a.o.out_dir);
    codesign_free(&cs);
    diag_free(&d);
    return rc;
}
