/* plan_args.c - the plan options shared by `plan` and `compile` (board or
 * device file, PE budget, clock, bandwidth, split, resource share, memory
 * budget), so both commands accept and check them the same way. */
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

void cli_plan_usage(FILE *f)
{
    fprintf(f, "  --target         board (default zcu102): ");
    for (int i = 0; i < plan_device_count(); i++)
        fprintf(f, "%s%s", i ? ", " : "", plan_device_at(i)->name);
    fprintf(f, "\n"
               "  --device-file    custom device as a JSON object (keys in docs/plan.md)\n"
               "  --pe-budget      PEs (MAC lanes) to divide; default: as many as the DSPs allow\n"
               "  --clock          accelerator clock in MHz; default: the board's usual clock\n"
               "  --bandwidth      DRAM bandwidth in GB/s; default: the board's\n"
               "  --split          force the hybrid's split (number of SESL units)\n"
               "  --objective      throughput, latency or balanced (default: the best throughput\n"
               "                   whose latency is no worse than SEML-only's)\n"
               "  --resource-frac  share of DSP/BRAM/URAM/LUT the plan may use (default 0.9)\n"
               "  --mem-budget     on-chip KiB for the memory analysis (default: the device's)\n"
               "  --timings        record the planner's run time in the outputs (without it, the\n"
               "                   same inputs give the same bytes)\n");
}

static int parse_num(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) {
        fprintf(stderr, "onnx2hls %s: bad value '%s' for %s (expected a number in [%g, %g])\n", cmd, s, opt,
                lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_int(const char *cmd, const char *opt, const char *s, double lo, double hi, int *out)
{
    double v;
    if (parse_num(cmd, opt, s, lo, hi, &v))
        return -1;
    if (v != floor(v)) {
        fprintf(stderr, "onnx2hls %s: bad value '%s' for %s (expected an integer)\n", cmd, s, opt);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int cli_plan_parse_option(CliPlanArgs *a, int argc, char **argv, int *i)
{
    static const char *names[] = {"--target", "--device-file", "--pe-budget", "--clock",
                                  "--bandwidth", "--split", "--resource-frac", "--mem-budget", "--objective"};
    const char *o = argv[*i], *cmd = argv[0], *v;
    if (!strcmp(o, "--timings")) {
        a->po.timings = true;
        return 1;
    }
    bool known = false;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        known |= !strcmp(o, names[k]);
    if (!known)
        return 0;
    if (!(v = cli_value(argc, argv, i)))
        return -1;
    double x;
    int rc = 0;
    if (!strcmp(o, "--target"))
        a->target = v;
    else if (!strcmp(o, "--device-file"))
        a->device_file = v;
    else if (!strcmp(o, "--pe-budget"))
        rc = parse_int(cmd, o, v, 1, 10000000, &a->po.pe_budget);
    else if (!strcmp(o, "--clock"))
        rc = parse_num(cmd, o, v, 1, 2000, &a->po.clock_mhz);
    else if (!strcmp(o, "--bandwidth"))
        rc = parse_num(cmd, o, v, 0.001, 10000, &a->po.bandwidth_gbps);
    else if (!strcmp(o, "--split"))
        rc = parse_int(cmd, o, v, 0, 1000000, &a->po.force_split);
    else if (!strcmp(o, "--objective")) {
        rc = plan_objective_parse(v, &a->po.objective);
        if (rc)
            fprintf(stderr, "onnx2hls %s: bad value '%s' for --objective (throughput, latency or balanced)\n", cmd, v);
    } else if (!strcmp(o, "--resource-frac"))
        rc = parse_num(cmd, o, v, 0.01, 1, &a->po.resource_frac);
    else if ((rc = parse_num(cmd, o, v, 1, 1e9, &x)) == 0) /* --mem-budget */
        a->po.mem_budget = (int64_t)(x * 1024);
    if (rc == 0 && a->target && a->device_file) {
        fprintf(stderr, "onnx2hls %s: give --target or --device-file, not both\n", cmd);
        rc = -1;
    }
    return rc ? -1 : 1;
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
