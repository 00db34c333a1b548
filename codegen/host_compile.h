/* host_compile.h - the compile pipeline up to the emitters, in one call.
 *
 * Why here: `onnx2hls compile` and the conformance test must run exactly
 * the same steps (frontend, pass pipeline, IR verifier) before emitting, or
 * the test would vouch for a pipeline users never run. Commands emitting
 * other outputs (HLS, reports) take the same lowered graph.
 */
#ifndef ONNX2HLS_CG_HOST_COMPILE_H
#define ONNX2HLS_CG_HOST_COMPILE_H

#include "frontend/frontend.h"
#include "passes/passes.h"

/* Load path, run the passes selected by po (NULL: the default pipeline)
 * and verify the result. NULL after reporting on d. */
IrGraph *cg_lower_model(const char *path, const FeOptions *fe, const PassOptions *po, IrDiag *d);

#endif
