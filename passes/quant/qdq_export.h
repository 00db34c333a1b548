/* qdq_export.h - the quantized graph as an ONNX QDQ model (opset 13).
 *
 * Why: a QDQ model runs the integer arithmetic in ONNX Runtime (which fuses
 * DequantizeLinear -> op -> QuantizeLinear into its integer kernels), so a
 * user can check onnx2hls' integer results against an independent engine,
 * and any QDQ-aware tool can take over the calibrated scales. Importing the
 * file again (passes/quant/qdq_import.c) gives back the same integer program. */
#ifndef ONNX2HLS_PASS_QDQ_EXPORT_H
#define ONNX2HLS_PASS_QDQ_EXPORT_H

#include "ir/ir.h"

/* Write g (after the quantize pass; float layers are exported as they are)
 * to path. 8-bit integer layers only (int16 QDQ needs opset 21). 0 ok, -1
 * with errors on d naming the layer that cannot be exported. */
int pass_qdq_export(IrGraph *g, const char *path, IrDiag *d);

/* Write the float graph g (after pruning, before quantization) as ONNX
 * opset 13: each layer's op keeps its ONNX node name and every tensor its
 * name, fused epilogues are written back as Add / activation nodes. For
 * fine-tuning a pruned model elsewhere and compiling it again (QDQ import
 * brings its quantization back). 0 ok, -1 with errors on d. */
int pass_onnx_export(IrGraph *g, const char *path, IrDiag *d);

#endif
