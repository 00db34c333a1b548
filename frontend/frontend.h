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

/* --bind NAME=FILE: a graph input given a value, so it becomes a constant
 * (an op that needs a shape, axes, scales... known at compile time then
 * has it, and shape subgraphs fold). FILE is a serialized TensorProto when
 * its name ends in ".pb" (dtype and dims checked against the input's
 * declaration), else raw little-endian data of the declared dtype and
 * shape (dynamic dims from --input-shape). Read bounded (ir/sidefile.h). */
typedef struct {
    const char *name;            /* into the option's text: name_len bytes */
    size_t name_len;
    const char *path;
} FeBind;

typedef struct {
    FeInputShape shapes[IR_MAX_IO]; /* from --input-shape, may be empty */
    int n_shapes;
    FeBind binds[IR_MAX_IO];        /* from --bind, may be empty */
    int n_binds;
} FeOptions;

/* Parse "name=1,3,224,224" or "1,3,224,224" into s. 0 ok, -1 malformed. */
int fe_parse_input_shape(const char *spec, FeInputShape *s);
/* Parse "NAME=FILE" (split at the first '=') into b, pointing into spec.
 * 0 ok, -1 malformed (no '=', empty name or file). */
int fe_parse_bind(const char *spec, FeBind *b);

/* Load and import a model. Returns NULL when any error was reported on d;
 * warnings alone do not fail. */
IrGraph *fe_load_onnx(const char *path, const FeOptions *opt, IrDiag *d);

#endif
