/* fuzz_precision_spec.c - the --precision-spec reader
 * (passes/quant/quant_spec.c) and the mixed-precision quantization it
 * drives, on samples/mobilenet_tiny.onnx (or effnet_tiny, by a hash of the
 * input: squeeze-excite, SiLU and HardSwish tables).
 *
 * Why: the spec is hand-written text ("LAYER_NAME PRECISION" lines, quoted
 * names with C escapes, '#' comments), and the precisions it picks per layer
 * make mixes no test spells out (an int16 layer between dfxp12 ones, a float
 * island), each of which the quantizer must convert or leave in float. The
 * model is loaded per input (quantization rewrites it) and calibrated on one
 * pseudo-random input. Invariants: a spec that is accepted leaves a graph
 * that passes ir_verify; a refusal names the file. */
#include "fuzz.h"

#include "frontend/frontend.h"
#include "passes/passes.h"
#include "passes/quant/quant.h"

static int one(const uint8_t *data, size_t size)
{
    const char *path = fz_file("precision.spec", data, size);
    if (!path)
        return 0;
    IrDiag d;
    diag_init(&d);
    const char *model = fz_hash(data, size) % 4 == 3 ? "effnet_tiny.onnx" : "mobilenet_tiny.onnx";
    IrGraph *g = fe_load_onnx(fz_sample(model), NULL, &d);
    FZ_ASSERT(g, "cannot load %s", model);
    QuantOptions qo;
    pass_quant_options_init(&qo);
    qo.prec = (QuantPrec){IR_PREC_INT8, 8};
    qo.spec = path;
    qo.n_random = 1;
    PassOptions po;
    passes_options_init(&po);
    po.quant = &qo;
    if (passes_run(g, &po, &d) == 0)
        fz_check_graph(g, "passes with --precision-spec");
    else
        fz_check_refusal(&d, "passes with --precision-spec");
    ir_graph_free(g);
    diag_free(&d);
    return 0;
}

FUZZ_TARGET(precision_spec, NULL, one)
