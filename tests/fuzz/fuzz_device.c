/* fuzz_device.c - the --device-file reader (plan/devices.c,
 * plan_device_load), and the planner on the device it reads.
 *
 * Why: a device file is JSON anyone writes by hand, and every number in it
 * (DSPs, BRAMs, clock, bandwidth, AXI ports) is a divisor or a bound
 * somewhere in the cost model and the budget search. So a device that
 * loads is used: the planner runs on samples/mobilenet_tiny.onnx (loaded
 * and passed through the default pipeline once) at the device's own budget
 * and prints its plan. Invariants: a refusal names the file; a device that
 * loads has no negative resource. */
#include "fuzz.h"

#include "frontend/frontend.h"
#include "passes/passes.h"
#include "plan/plan.h"

static IrGraph *graph;

static void free_graph(void)
{
    ir_graph_free(graph);
}

static int init(void)
{
    IrDiag d;
    diag_init(&d);
    PassOptions po;
    passes_options_init(&po);
    graph = fe_load_onnx(fz_sample("mobilenet_tiny.onnx"), NULL, &d);
    if (graph && passes_run(graph, &po, &d)) {
        ir_graph_free(graph);
        graph = NULL;
    }
    diag_print(&d, stderr);
    diag_free(&d);
    atexit(free_graph);
    return graph ? 0 : -1;
}

static int one(const uint8_t *data, size_t size)
{
    const char *path = fz_file("device.json", data, size);
    if (!path)
        return 0;
    IrDiag d;
    diag_init(&d);
    PlanDevice dev;
    if (plan_device_load(path, &dev, &d) == 0) {
        FZ_ASSERT(dev.dsp >= 0 && dev.bram18k >= 0 && dev.uram >= 0 && dev.lut >= 0 && dev.ff >= 0,
                  "a negative resource");
        PlanOptions o;
        plan_options_default(&o);
        o.prec = IR_PREC_INT8;
        o.bits = 8;
        Plan p;
        IrDiag pd;
        diag_init(&pd);
        if (plan_build(graph, &dev, &o, &p, &pd) == 0) {
            plan_print_text(&p, graph, fz_null());
            plan_write_json(&p, graph, fz_null());
            plan_free(&p);
        }
        diag_free(&pd);
    } else {
        fz_check_refusal(&d, "plan_device_load");
    }
    diag_free(&d);
    return 0;
}

FUZZ_TARGET(device, init, one)
