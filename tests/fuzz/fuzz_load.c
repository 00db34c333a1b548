/* fuzz_load.c - the model loader (frontend/fe_load.c, fe_load_onnx): any
 * bytes as an ONNX file.
 *
 * Why: the model is the one input every command takes, and it is decoded
 * by hand-written wire walking (fe_wire.c) before protobuf-c, then imported
 * with arithmetic on values straight from the file. Invariants: a graph
 * passes ir_verify; a refusal has an error naming the file. The text and
 * JSON printers (inspect) run over every graph that loads. */
#include "fuzz.h"

static int one(const uint8_t *data, size_t size)
{
    IrDiag d;
    diag_init(&d);
    IrGraph *g = fz_load_input(data, size, &d);
    if (g) {
        fz_check_graph(g, "fe_load_onnx");
        ir_print_text(g, fz_null());
        ir_print_json(g, fz_null());
    }
    ir_graph_free(g);
    diag_free(&d);
    return 0;
}

FUZZ_TARGET_ONNX(load, NULL, one)
