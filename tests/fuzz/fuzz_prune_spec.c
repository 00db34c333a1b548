/* fuzz_prune_spec.c - the --prune FILE reader (passes/prune.c) and the
 * structured pruning it drives, on samples/mobilenet_tiny.onnx or
 * resnet_tiny.onnx (residual groups), chosen by a hash of the input.
 *
 * Why: the spec is hand-written text ("LAYER_NAME RATIO" lines, '*' for the
 * default, quoted names), and the ratios it gives per layer cut channel
 * groups that several layers share (residual Adds, depthwise convs,
 * Concats); a ratio close to 1 leaves one channel. The model is loaded per
 * input (pruning rewrites it). Invariants: an accepted spec leaves a graph
 * that passes ir_verify; a refusal names the file. */
#include "fuzz.h"

#include "frontend/frontend.h"
#include "passes/passes.h"

static int one(const uint8_t *data, size_t size)
{
    const char *path = fz_file("prune.spec", data, size);
    if (!path)
        return 0;
    IrDiag d;
    diag_init(&d);
    const char *model = fz_hash(data, size) % 2 ? "resnet_tiny.onnx" : "mobilenet_tiny.onnx";
    IrGraph *g = fe_load_onnx(fz_sample(model), NULL, &d);
    FZ_ASSERT(g, "cannot load %s", model);
    PassOptions po;
    passes_options_init(&po);
    po.prune_spec = path;
    if (passes_run(g, &po, &d) == 0)
        fz_check_graph(g, "passes with --prune FILE");
    else
        fz_check_refusal(&d, "passes with --prune FILE");
    ir_graph_free(g);
    diag_free(&d);
    return 0;
}

FUZZ_TARGET(prune_spec, NULL, one)
