/* host_int.h - the host C generator's integer path (codegen/host_int.c).
 *
 * Why a separate entry: quantized layers (IrLayer.prec != IR_PREC_FLOAT,
 * and the QuantizeLinear / DequantizeLinear boundaries the quantize pass
 * inserts) are emitted from the constants of pass_quant_lower
 * (passes/quant/quant.h) as calls into runtime/o2h_rt_int.h; the float emitter
 * (host_layers.c) hands such layers over through this one call, in both
 * of its phases. */
#ifndef ONNX2HLS_CG_HOST_INT_H
#define ONNX2HLS_CG_HOST_INT_H

#include "host_emit.h"

/* Emit integer layer l (phase 0: plan scratch and blob data; phase 1:
 * print). 0 ok, -1 after reporting on h->d. */
int cg_host_int_layer(CgHost *h, int l);

#endif
