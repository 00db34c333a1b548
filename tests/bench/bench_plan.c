/* bench_plan.c - times the planner alone (model loading excluded) on one
 * model at several PE budgets and prints one line per budget:
 *   MODEL PES hybrid_fps seml_fps sesl_fps|- split util_hybrid util_seml util_sesl wall_ms cpu_ms
 * Why a program of its own: the planner must stay fast enough to run inside
 * every `compile` (<= 100 ms on EfficientNet-B0), so its time is measured
 * without the frontend's. Built and run by tests/bench/bench_plan.sh. */
#include "frontend/frontend.h"
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_plan MODEL.onnx TARGET CLOCK_MHZ PES...\n");
        return 2;
    }
    IrDiag d;
    diag_init(&d);
    FeOptions fe;
    memset(&fe, 0, sizeof fe);
    IrGraph *g = fe_load_onnx(argv[1], &fe, &d);
    const PlanDevice *dev = plan_device_find(argv[2]);
    if (!g || !dev) {
        diag_print(&d, stderr);
        fprintf(stderr, "bench_plan: cannot load %s or unknown target %s\n", argv[1], argv[2]);
        return 2;
    }
    int rc = 0;
    for (int i = 4; i < argc; i++) {
        PlanOptions o;
        plan_options_default(&o);
        o.clock_mhz = atof(argv[3]);
        o.pe_budget = atoi(argv[i]);
        Plan p;
        if (plan_build(g, dev, &o, &p, &d)) {
            diag_print(&d, stderr);
            rc = 2;
            break;
        }
        printf("%s %d %.1f %.1f ", argv[1], o.pe_budget, p.hybrid.fps, p.seml.fps);
        if (p.sesl.fits)
            printf("%.1f", p.sesl.fps);
        else
            printf("-");
        printf(" %d %.3f %.3f %.3f %.1f %.1f\n", p.hybrid.split, p.hybrid.pe_util, p.seml.pe_util,
               p.sesl.fits ? p.sesl.pe_util : 0.0, p.plan_ms, p.plan_cpu_ms);
        plan_free(&p);
    }
    ir_graph_free(g);
    diag_free(&d);
    return rc;
}
