/* fuzz_passes.c - the pass pipeline (passes/pipeline.c, passes_run) over
 * whatever graph the loader makes of the input bytes.
 *
 * Why: the passes rewrite graphs they did not build - every fusion pattern
 * matches on shapes, attributes and constants that came from the file, and
 * the contract (passes.h) says an odd graph is a missed optimization, never
 * an error or a crash. The pipeline runs in one of four variants chosen by a
 * hash of the input (so an input always replays the same way): the default
 * pipeline; every pass with ir_verify after each; the default plus pruning
 * (ratio 0.5, by L1); the default plus int8 quantization, calibrated on two
 * pseudo-random inputs (skipped when the graph's tensors hold more than
 * FZ_QUANT_MAX_ELEMS elements, so one input is not one second of
 * evaluation). Invariant: a pipeline that succeeds leaves a graph that
 * passes ir_verify; one that fails says why. */
#include "fuzz.h"

#include "passes/passes.h"
#include "passes/quant/quant.h"

#define FZ_QUANT_MAX_ELEMS (1 << 20)

static int64_t graph_elems(const IrGraph *g)
{
    int64_t n = 0;
    for (int t = 0; t < g->n_tensors; t++) {
        int64_t k = ir_tensor_numel(&g->tensors[t]);
        if (k < 0 || k > FZ_QUANT_MAX_ELEMS)
            return INT64_MAX;
        n += k;
    }
    return n;
}

static int one(const uint8_t *data, size_t size)
{
    IrDiag d;
    diag_init(&d);
    IrGraph *g = fz_load_input(data, size, &d);
    if (g) {
        PassOptions po;
        passes_options_init(&po);
        QuantOptions qo;
        pass_quant_options_init(&qo);
        const char *what = "passes (default)";
        switch (fz_hash(data, size) % 4) {
        case 1:
            po.passes = "all";
            po.verify_each = true;
            what = "passes (all, verified after each)";
            break;
        case 2:
            po.prune_ratio = 0.5;
            what = "passes (default, --prune 0.5)";
            break;
        case 3:
            if (graph_elems(g) > FZ_QUANT_MAX_ELEMS)
                break;
            qo.prec = (QuantPrec){IR_PREC_INT8, 8};
            qo.n_random = 2;
            po.quant = &qo;
            what = "passes (default, --precision int8)";
            break;
        default:
            break;
        }
        if (passes_run(g, &po, &d) == 0)
            fz_check_graph(g, what);
        else
            fz_check_refusal(&d, what);
    }
    ir_graph_free(g);
    diag_free(&d);
    return 0;
}

FUZZ_TARGET_ONNX(passes, NULL, one)
