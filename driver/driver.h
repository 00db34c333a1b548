/* driver.h - the compile pipeline up to the emitters, in one call.
 *
 * Why a module of its own: `onnx2hls compile` and the conformance tests must
 * run exactly the same steps (frontend, pass pipeline, IR verifier) before
 * emitting, or the tests would vouch for a pipeline users never run. It sits
 * above the frontend and the passes and below every back end (host C, HLS,
 * reports), which all take the same lowered graph; the back ends themselves
 * never load a model.
 */
#ifndef ONNX2HLS_DRIVER_H
#define ONNX2HLS_DRIVER_H

#include "frontend/frontend.h"
#include "passes/passes.h"

/* Load path, run the passes selected by po (NULL: the default pipeline)
 * and verify the result. NULL after reporting on d. */
IrGraph *driver_lower_model(const char *path, const FeOptions *fe, const PassOptions *po, IrDiag *d);

#endif
