/* fuzz_plan.c - the planner (plan/plan.c, plan_build) over whatever graph
 * the loader and the default passes make of the input bytes, as
 * `onnx2hls plan` runs it, with its printers, the HTML report and the SESL
 * dataflow simulation (`plan --simulate`).
 *
 * Why: the cost model divides, rounds and searches over layer geometry that
 * came from the file (a 1x1 map, a channel count of 10^9, a kernel larger
 * than its input, a graph with nothing to accelerate), and the budget
 * split, the memory analysis and the roofline all take it as given. The
 * board, precision and PE budget vary with a hash of the input: zcu102 int8
 * at its default budget, pynq-z2 float at 64 PEs, u250 int8 at 4096 PEs
 * with the throughput objective, or a forced split of 1. A refusal must say
 * why and name the file. */
#include "fuzz.h"

#include "passes/passes.h"
#include "plan/net.h"
#include "plan/plan.h"
#include "report/report.h"

static int one(const uint8_t *data, size_t size)
{
    IrDiag d;
    diag_init(&d);
    IrGraph *g = fz_load_input(data, size, &d);
    PassOptions po;
    passes_options_init(&po);
    if (!g || passes_run(g, &po, &d)) {
        ir_graph_free(g);
        diag_free(&d);
        return 0;
    }
    PlanOptions o;
    plan_options_default(&o);
    const char *board = "zcu102";
    o.prec = IR_PREC_INT8;
    o.bits = 8;
    switch (fz_hash(data, size) % 4) {
    case 1:
        board = "pynq-z2";
        o.prec = IR_PREC_FLOAT;
        o.bits = 32;
        o.pe_budget = 64;
        break;
    case 2:
        board = "u250";
        o.pe_budget = 4096;
        o.objective = PLAN_OBJ_THROUGHPUT;
        break;
    case 3:
        o.force_split = 1;
        break;
    default:
        break;
    }
    const PlanDevice *dev = plan_device_find(board);
    FZ_ASSERT(dev, "no board %s", board);
    Plan p;
    if (plan_build(g, dev, &o, &p, &d) == 0) {
        plan_print_text(&p, g, fz_null());
        plan_write_json(&p, g, fz_null());
        report_html(&p, g, fz_null());
        PlanNet net;
        IrDiag nd;
        diag_init(&nd);
        if (p.hybrid.split > 0 && plan_net_build(&p, g, &p.hybrid, &net, &nd) == 0) {
            plan_net_simulate(&net, 2);
            plan_net_print(&net, &p.hybrid, fz_null());
            plan_net_free(&net);
        }
        diag_free(&nd);
        plan_free(&p);
    } else {
        fz_check_refusal(&d, "plan_build");
    }
    ir_graph_free(g);
    diag_free(&d);
    return 0;
}

FUZZ_TARGET_ONNX(plan, NULL, one)
