/* cmd_plan.c - `onnx2hls plan MODEL`: load a model, run the hybrid partition
 * planner for a board, print the hybrid design next to the SEML-only and
 * SESL-only baselines (table or --json), optionally write the HTML report.
 *
 * Why a command of its own: choosing a board, a PE budget and a precision is
 * a design-space question users ask long before they generate code; this
 * answers it in milliseconds without emitting anything.
 */
#include "cli.h"
#include "codegen/report.h"
#include "plan/plan.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void plan_usage(FILE *f)
{
    fprintf(f,
            "usage: onnx2hls plan MODEL.onnx [--target BOARD | --device-file FILE.json] [--pe-budget N]\n"
            "                     [--clock MHZ] [--bandwidth GBPS] [--precision P] [--split N]\n"
            "                     [--resource-frac F] [--mem-budget KIB] [--input-shape NAME=1,3,224,224]...\n"
            "                     [--json] [--report FILE.html]\n"
            "  --target         board (default zcu102): ");
    for (int i = 0; i < plan_device_count(); i++)
        fprintf(f, "%s%s", i ? ", " : "", plan_device_at(i)->name);
    fprintf(f, "\n"
               "  --device-file    custom device as a JSON object (keys in docs/plan.md)\n"
               "  --pe-budget      PEs (MAC lanes) to divide; default: as many as the DSPs allow\n"
               "  --clock          accelerator clock in MHz; default: the board's usual clock\n"
               "  --bandwidth      DRAM bandwidth in GB/s; default: the board's\n"
               "  --precision      float|int8|int16|dfxp8|dfxp12|dfxp14|dfxp16 for layers the graph leaves\n"
               "                   in float (default int8); quantized layers keep their own\n"
               "  --split          force the hybrid's split (number of SESL units)\n"
               "  --resource-frac  share of DSP/BRAM/URAM/LUT the plan may use (default 0.9)\n"
               "  --mem-budget     on-chip KiB for the memory analysis (default: the device's)\n"
               "  --json           print the plan as JSON (what compile writes to plan.json)\n"
               "  --report         write a self-contained HTML report\n");
}

typedef struct {
    const char *model, *target, *device_file, *report;
    int json;
    PlanOptions po;
    FeOptions fe;
} PlanArgs;

static int parse_num(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) {
        fprintf(stderr, "onnx2hls plan: bad value '%s' for %s (expected a number in [%g, %g])\n", s, opt, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_int(const char *opt, const char *s, double lo, double hi, int *out)
{
    double v;
    if (parse_num(opt, s, lo, hi, &v))
        return -1;
    if (v != floor(v)) {
        fprintf(stderr, "onnx2hls plan: bad value '%s' for %s (expected an integer)\n", s, opt);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* one option at argv[*i]; 0 ok, 1 --help, -1 bad */
static int parse_opt(PlanArgs *a, int argc, char **argv, int *i)
{
    const char *o = argv[*i], *v;
    double x;
    if (!strcmp(o, "--help") || !strcmp(o, "-h"))
        return 1;
    if (!strcmp(o, "--json")) {
        a->json = 1;
        return 0;
    }
    static const char *with_value[] = {"--target", "--device-file", "--report", "--pe-budget", "--clock",
                                       "--bandwidth", "--split", "--resource-frac", "--mem-budget",
                                       "--precision", "--input-shape"};
    bool known = false;
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
        known |= !strcmp(o, with_value[k]);
    if (!known) {
        fprintf(stderr, "onnx2hls plan: unknown option '%s'\n", o);
        return -1;
    }
    if (!(v = cli_value(argc, argv, i)))
        return -1;
    if (!strcmp(o, "--target"))
        a->target = v;
    else if (!strcmp(o, "--device-file"))
        a->device_file = v;
    else if (!strcmp(o, "--report"))
        a->report = v;
    else if (!strcmp(o, "--pe-budget"))
        return parse_int(o, v, 1, 10000000, &a->po.pe_budget);
    else if (!strcmp(o, "--clock"))
        return parse_num(o, v, 1, 2000, &a->po.clock_mhz);
    else if (!strcmp(o, "--bandwidth"))
        return parse_num(o, v, 0.001, 10000, &a->po.bandwidth_gbps);
    else if (!strcmp(o, "--split"))
        return parse_int(o, v, 0, 1000000, &a->po.force_split);
    else if (!strcmp(o, "--resource-frac"))
        return parse_num(o, v, 0.01, 1, &a->po.resource_frac);
    else if (!strcmp(o, "--mem-budget")) {
        if (parse_num(o, v, 1, 1e9, &x))
            return -1;
        a->po.mem_budget = (int64_t)(x * 1024);
    } else if (!strcmp(o, "--precision"))
        return cli_parse_precision(v, &a->po.prec, &a->po.bits);
    else
        return cli_add_input_shape(&a->fe, v);
    return 0;
}

static int parse_args(PlanArgs *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    plan_options_default(&a->po);
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) {
            int rc = parse_opt(a, argc, argv, &i);
            if (rc)
                return rc;
        } else if (a->model) {
            fprintf(stderr, "onnx2hls plan: more than one model given\n");
            return -1;
        } else {
            a->model = argv[i];
        }
    }
    if (!a->model) {
        fprintf(stderr, "onnx2hls plan: no model given\n");
        return -1;
    }
    if (a->target && a->device_file) {
        fprintf(stderr, "onnx2hls plan: give --target or --device-file, not both\n");
        return -1;
    }
    return 0;
}

static int pick_device(const PlanArgs *a, PlanDevice *dev, IrDiag *d)
{
    if (a->device_file)
        return plan_device_load(a->device_file, dev, d);
    const char *name = a->target ? a->target : "zcu102";
    const PlanDevice *known = plan_device_find(name);
    if (!known) {
        fprintf(stderr, "onnx2hls plan: unknown target '%s' (known:", name);
        for (int i = 0; i < plan_device_count(); i++)
            fprintf(stderr, " %s", plan_device_at(i)->name);
        fprintf(stderr, "; or --device-file FILE.json)\n");
        return -1;
    }
    *dev = *known;
    return 0;
}

static int write_outputs(const PlanArgs *a, const Plan *p, const IrGraph *g)
{
    if (a->json)
        plan_write_json(p, g, stdout);
    else
        plan_print_text(p, g, stdout);
    if (!a->report)
        return 0;
    FILE *f = fopen(a->report, "w");
    if (!f) {
        fprintf(stderr, "onnx2hls plan: cannot write %s: %s\n", a->report, strerror(errno));
        return 2;
    }
    cg_report_html(p, g, f);
    if (fclose(f) != 0) {
        fprintf(stderr, "onnx2hls plan: error writing %s\n", a->report);
        return 2;
    }
    return 0;
}

int cmd_plan(int argc, char **argv)
{
    PlanArgs a;
    int rc = parse_args(&a, argc, argv);
    if (rc) {
        plan_usage(rc > 0 ? stdout : stderr);
        return rc > 0 ? 0 : 2;
    }
    IrDiag d;
    diag_init(&d);
    PlanDevice dev;
    if (pick_device(&a, &dev, &d)) {
        diag_print(&d, stderr);
        diag_free(&d);
        return 2;
    }
    IrGraph *g = fe_load_onnx(a.model, &a.fe, &d);
    Plan p;
    rc = 2;
    if (g && !d.n_errors && plan_build(g, &dev, &a.po, &p, &d) == 0) {
        rc = write_outputs(&a, &p, g);
        plan_free(&p);
    }
    diag_print(&d, stderr);
    diag_free(&d);
    ir_graph_free(g);
    return rc;
}
