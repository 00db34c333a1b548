/* frontend.h - ONNX model file -> IR.
 *
 * The frontend maps the file, decodes it with protobuf-c (bindings generated
 * at build time from Debian's onnx.proto), converts every node through the
 * importer of its op (frontend/import_<family>.c, keyed by ir/ops.def),
 * infers shapes, folds constant subgraphs (shape arithmetic of real exports)
 * and frees the protobuf message before returning: later phases only see IR.
 *
 * Every problem goes to the IrDiag with the file and node name; the loader
 * keeps going after an unsupported node so that one run lists all of them.
 *
 * Layers come out the same whatever opset a node came from: inputs that only
 * carry parameters (shapes, axes, pads, scales, clip bounds...) are resolved
 * into IrLayer.attr or the output shape and dropped from in[].
 * frontend/README.md lists, per op, the inputs kept and the attr filled.
 */
#ifndef ONNX2HLS_FRONTEND_H
#define ONNX2HLS_FRONTEND_H

#include "ir/ir.h"

typedef struct {
    char name[128];              /* graph input name; empty = the first input */
    int rank;
    int64_t dims[IR_MAX_RANK];
} FeInputShape;

typedef struct {
    FeInputShape shapes[IR_MAX_IO]; /* from --input-shape, may be empty */
    int n_shapes;
} FeOptions;

/* Parse "name=1,3,224,224" or "1,3,224,224" into s. 0 ok, -1 malformed. */
int fe_parse_input_shape(const char *spec, FeInputShape *s);

/* Load and import a model. Returns NULL when any error was reported on d;
 * warnings alone do not fail. */
IrGraph *fe_load_onnx(const char *path, const FeOptions *opt, IrDiag *d);

#endif
