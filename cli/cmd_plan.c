/* cmd_plan.c - `onnx2hls plan MODEL`: load a model, run the hybrid partition
 * planner for a board, print the hybrid design next to the SEML-only and
 * SESL-only baselines (table or --json), optionally write the HTML report.
 *
 * Why a command of its own: choosing a board, a PE budget and a precision is
 * a design-space question users ask long before they generate code; this
 * answers it in milliseconds without emitting anything. It plans the graph
 * compile plans: the model after the default passes (the fusions the
 * planner also sees, and the channel shuffle as one Gather of channels).
 */
#include "cli.h"
#include "passes/passes.h"
#include "report/report.h"
#include "plan/net.h"
#include "plan/plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void plan_usage(FILE *f)
{
    fprintf(f, "usage: onnx2hls plan MODEL.onnx [--target BOARD | --device-file FILE.json] [--pe-budget N]\n"
               "                     [--clock MHZ] [--bandwidth GBPS] [--precision P] [--split N]\n"
               "                     [--resource-frac F] [--mem-budget KIB] [--input-shape NAME=1,3,224,224]...\n"
               "                     [--bind NAME=FILE]...\n"
               "                     [--json] [--report FILE.html] [--simulate]\n");
    cli_plan_usage(f);
    fprintf(f, "  --precision      float|int8|int16|dfxp8|dfxp12|dfxp14|dfxp16 for layers the graph leaves\n"
               "                   in float (default int8); quantized layers keep their own\n"
               "  --json           print the plan as JSON (what compile writes to plan.json)\n"
               "  --report         write a self-contained HTML report\n"
               "  --simulate       simulate the hybrid's SESL part (3 frames): FIFO depths, frame\n"
               "                   interval and latency against the plan (text output)\n");
}

typedef struct {
    const char *model, *report;
    int json, simulate;
    CliPlanArgs plan;
    FeOptions fe;
} PlanArgs;

/* one option at argv[*i]; 0 ok, 1 --help, -1 bad */
static int parse_opt(PlanArgs *a, int argc, char **argv, int *i)
{
    const char *o = argv[*i], *v;
    int r;
    if (!strcmp(o, "--help") || !strcmp(o, "-h"))
        return 1;
    if (!strcmp(o, "--json") || !strcmp(o, "--simulate")) {
        *(o[2] == 'j' ? &a->json : &a->simulate) = 1;
        return 0;
    }
    if ((r = cli_plan_parse_option(&a->plan, argc, argv, i)) != 0)
        return r < 0 ? -1 : 0;
    if (strcmp(o, "--report") && strcmp(o, "--precision") && strcmp(o, "--input-shape") && strcmp(o, "--bind")) {
        fprintf(stderr, "onnx2hls plan: unknown option '%s'\n", o);
        return -1;
    }
    if (!(v = cli_value(argc, argv, i)))
        return -1;
    if (!strcmp(o, "--report")) {
        a->report = v;
        return 0;
    }
    if (!strcmp(o, "--precision"))
        return cli_parse_precision(v, &a->plan.po.prec, &a->plan.po.bits);
    return !strcmp(o, "--bind") ? cli_add_bind(&a->fe, v) : cli_add_input_shape(&a->fe, v);
}

static int parse_args(PlanArgs *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    cli_plan_args_init(&a->plan);
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
    return 0;
}

/* the hybrid's SESL part as a dataflow network, simulated */
static int simulate(const Plan *p, const IrGraph *g)
{
    IrDiag d;
    diag_init(&d);
    PlanNet net;
    int rc = 0;
    if (p->hybrid.split == 0)
        printf("SESL dataflow simulation: the hybrid has no SESL part\n");
    else if (plan_net_build(p, g, &p->hybrid, &net, &d) == 0) {
        plan_net_simulate(&net, 3);
        plan_net_print(&net, &p->hybrid, stdout);
        plan_net_free(&net);
    } else {
        diag_print(&d, stderr);
        rc = 2;
    }
    diag_free(&d);
    return rc;
}

static int write_outputs(const PlanArgs *a, const Plan *p, const IrGraph *g)
{
    if (a->json)
        plan_write_json(p, g, stdout);
    else
        plan_print_text(p, g, stdout);
    if (a->simulate && !a->json && simulate(p, g))
        return 2;
    if (!a->report)
        return 0;
    FILE *f = fopen(a->report, "w");
    if (!f) {
        fprintf(stderr, "onnx2hls plan: cannot write %s: %s\n", a->report, strerror(errno));
        return 2;
    }
    report_html(p, g, f);
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
    if (cli_plan_device(&a.plan, "plan", &dev, &d)) {
        diag_print(&d, stderr);
        diag_free(&d);
        return 2;
    }
    IrGraph *g = fe_load_onnx(a.model, &a.fe, &d);
    PassOptions po;   /* the graph compile plans: after the default passes */
    passes_options_init(&po);
    Plan p;
    rc = 2;
    if (g && !d.n_errors && passes_run(g, &po, &d) == 0 && plan_build(g, &dev, &a.plan.po, &p, &d) == 0) {
        rc = write_outputs(&a, &p, g);
        plan_free(&p);
    }
    diag_print(&d, stderr);
    diag_free(&d);
    ir_graph_free(g);
    return rc;
}
