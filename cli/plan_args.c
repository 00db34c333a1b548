/* plan_args.c - the plan options shared by `plan`, `compile` and
 * `codesign` (board or device file, PE budget, clock, bandwidth, split,
 * objective, resource share, memory budget, timings), one option table
 * (ir/option.h) so the commands accept, check and document them the same
 * way. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_plan_args_init(CliPlanArgs *a)
{
    memset(a, 0, sizeof *a);
    plan_options_default(&a->po);
}

static int parse_num(IrDiag *d, const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) {
        diag_error(d, NULL, NULL, NULL, "bad value '%s' for %s (expected a number in [%g, %g])", s, opt, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_int(IrDiag *d, const char *opt, const char *s, double lo, double hi, int *out)
{
    double v;
    if (parse_num(d, opt, s, lo, hi, &v))
        return -1;
    if (v != floor(v)) {
        diag_error(d, NULL, NULL, NULL, "bad value '%s' for %s (expected an integer)", s, opt);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int set_target(void *o, const char *v, IrDiag *d)
{
    (void)d;
    ((CliPlanArgs *)o)->target = v;
    return 0;
}

static int set_device_file(void *o, const char *v, IrDiag *d)
{
    (void)d;
    ((CliPlanArgs *)o)->device_file = v;
    return 0;
}

static int set_pe_budget(void *o, const char *v, IrDiag *d)
{
    return parse_int(d, "--pe-budget", v, 1, 10000000, &((CliPlanArgs *)o)->po.pe_budget);
}

static int set_clock(void *o, const char *v, IrDiag *d)
{
    return parse_num(d, "--clock", v, 1, 2000, &((CliPlanArgs *)o)->po.clock_mhz);
}

static int set_bandwidth(void *o, const char *v, IrDiag *d)
{
    return parse_num(d, "--bandwidth", v, 0.001, 10000, &((CliPlanArgs *)o)->po.bandwidth_gbps);
}

static int set_split(void *o, const char *v, IrDiag *d)
{
    return parse_int(d, "--split", v, 0, 1000000, &((CliPlanArgs *)o)->po.force_split);
}

static int set_objective(void *o, const char *v, IrDiag *d)
{
    if (plan_objective_parse(v, &((CliPlanArgs *)o)->po.objective) == 0)
        return 0;
    diag_error(d, NULL, NULL, NULL, "bad value '%s' for --objective (throughput, latency or balanced)", v);
    return -1;
}

static int set_resource_frac(void *o, const char *v, IrDiag *d)
{
    return parse_num(d, "--resource-frac", v, 0.01, 1, &((CliPlanArgs *)o)->po.resource_frac);
}

static int set_mem_budget(void *o, const char *v, IrDiag *d)
{
    double x;
    if (parse_num(d, "--mem-budget", v, 1, 1e9, &x))
        return -1;
    ((CliPlanArgs *)o)->po.mem_budget = (int64_t)(x * 1024);
    return 0;
}

static int set_timings(void *o, const char *v, IrDiag *d)
{
    (void)v, (void)d;
    ((CliPlanArgs *)o)->po.timings = true;
    return 0;
}

static const IrOption plan_options[] = {
    {"--target", "BOARD", set_target, "board (default zcu102; the boards are listed below)"},
    {"--device-file", "FILE", set_device_file, "custom device as a JSON object (keys in docs/plan.md)"},
    {"--pe-budget", "N", set_pe_budget, "PEs (MAC lanes) to divide; default: as many as the DSPs allow"},
    {"--clock", "MHZ", set_clock, "accelerator clock in MHz; default: the board's usual clock"},
    {"--bandwidth", "GBPS", set_bandwidth, "DRAM bandwidth in GB/s; default: the board's"},
    {"--split", "N", set_split, "force the hybrid's split (number of SESL units)"},
    {"--objective", "O", set_objective, "throughput, latency or balanced (default: the best throughput\n"
                                        "whose latency is no worse than SEML-only's)"},
    {"--resource-frac", "F", set_resource_frac, "share of DSP/BRAM/URAM/LUT the plan may use (default 0.9)"},
    {"--mem-budget", "KIB", set_mem_budget, "on-chip KiB for the memory analysis (default: the device's)"},
    {"--timings", NULL, set_timings, "record the planner's run time in the outputs (without it, the\n"
                                     "same inputs give the same bytes)"},
    IR_OPTION_END,
};

void cli_plan_usage(FILE *f)
{
    cli_options_help(f, plan_options);
    fprintf(f, "  boards: ");
    for (int i = 0; i < plan_device_count(); i++)
        fprintf(f, "%s%s", i ? ", " : "", plan_device_at(i)->name);
    fprintf(f, "\n");
}

int cli_plan_parse_option(CliPlanArgs *a, int argc, char **argv, int *i)
{
    int rc = cli_option(plan_options, a, argc, argv, i);
    if (rc > 0 && a->target && a->device_file) {
        fprintf(stderr, "onnx2hls %s: give --target or --device-file, not both\n", argv[0]);
        rc = -1;
    }
    return rc;
}

int cli_plan_device(const CliPlanArgs *a, const char *cmd, PlanDevice *dev, IrDiag *d)
{
    if (a->device_file)
        return plan_device_load(a->device_file, dev, d);
    const char *name = a->target ? a->target : "zcu102";
    const PlanDevice *known = plan_device_find(name);
    if (!known) {
        fprintf(stderr, "onnx2hls %s: unknown target '%s' (known:", cmd, name);
        for (int i = 0; i < plan_device_count(); i++)
            fprintf(stderr, " %s", plan_device_at(i)->name);
        fprintf(stderr, "; or --device-file FILE.json)\n");
        return -1;
    }
    *dev = *known;
    return 0;
}
