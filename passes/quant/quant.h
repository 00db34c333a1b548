/* quant.h - quantization: options, the integer arithmetic's constants, the
 * calibration, the lowering of quantized layers to integer kernel calls,
 * and an evaluator of the IR for calibration and checks.
 *
 * Why one header: the integer results are a contract between the host C
 * (codegen/host_quant.c), the HLS engines and the QDQ export, so every number
 * they use - multipliers and shifts, folded biases, clamp bounds, lookup
 * tables - is computed once, here (passes/quant/quant_lower.c), and each back end
 * only prints it. docs/numerics.md states the same rules in words.
 *
 * Flow: pass_quantize (passes/quant/quantize.c) decides each layer's precision,
 * splits fused epilogues that need an intermediate scale, calibrates the
 * activation ranges on float runs (passes/quant/calibrate.c), converts weights
 * and biases to integer constants, gives every integer tensor an IrQuant
 * and inserts QuantizeLinear / DequantizeLinear layers where float and
 * integer layers meet. pass_qdq_import (passes/quant/qdq_import.c) turns the
 * Q/DQ pairs of a model quantized by another tool into the same form.
 */
#ifndef ONNX2HLS_PASS_QUANT_H
#define ONNX2HLS_PASS_QUANT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/ir.h"
#include "ir/option.h"
#include "runtime/o2h_rt_int.h"

/* ------------------------------------------------------------ options */

typedef enum {
    QUANT_CALIB_MINMAX = 0,
    QUANT_CALIB_PERCENTILE,
    QUANT_CALIB_MSE,
} QuantCalibMethod;

typedef struct {
    IrPrecision prec;       /* IR_PREC_FLOAT: no quantization */
    int bits;               /* 8 int8, 16 int16, 8/12/14/16 dfxp; 32 float */
} QuantPrec;

typedef struct QuantOptions {
    QuantPrec prec;          /* --precision */
    const char *spec;        /* --precision-spec FILE: "LAYER_NAME PRECISION" lines */
    const char *calib;       /* --calib FILE: raw float32 inputs, N = size / input size */
    QuantCalibMethod method; /* --calib-method */
    double percentile;       /* for QUANT_CALIB_PERCENTILE, in (50, 100]; default 99.99 */
    int n_random;            /* pseudo-random inputs when no --calib (default 8) */
    uint32_t seed;           /* of those inputs */
    int max_calib;           /* use at most this many inputs of --calib (0 = all) */
    FILE *log;               /* a summary line per step; NULL = quiet */
} QuantOptions;

void pass_quant_options_init(QuantOptions *o);
/* true when the options ask for any quantization */
bool pass_quant_active(const QuantOptions *o);
/* "float", "int8", "int16", "dfxp8", "dfxp12", "dfxp14", "dfxp16";
 * 0 ok, -1 unknown. */
int pass_quant_parse_prec(const char *s, QuantPrec *p);
const char *pass_quant_prec_name(QuantPrec p);
/* --precision, --precision-spec, --calib, --calib-method
 * (minmax|percentile[:P]|mse), --calib-inputs N: a table the CLI drives
 * (ir/option.h) over a QuantOptions. */
extern const IrOption pass_quant_options[];

/* ------------------------------------------- the contract's constants */

/* M in [2^30, 2^31) and sh in [0, 63] with M * 2^-sh = r within a relative
 * 2^-31 (M = round_half_away(m * 2^31) for r = m * 2^e, m in [0.5, 1),
 * sh = 31 - e). r == 0 gives M = sh = 0; r < 2^-33 gives sh = 63 and
 * M = round(r * 2^63) < 2^30. Returns -1 (M = 2^31-1, sh = 0) when r is
 * negative, not finite or >= 2^31. */
int pass_quant_multiplier(double r, int32_t *m, int *sh);
/* Power-of-two factor 2^k as a pure shift: k <= 0: M = 1, sh = -k;
 * k > 0: M = 2^k, sh = 0. -1 when k is outside [-63, 30]. */
int pass_quant_shift_multiplier(int k, int32_t *m, int *sh);
/* MuPPET fractional bits of a b-bit word for the range [xmin, xmax]:
 * floor(log2(min((UB+0.5)/xmax, (LB-0.5)/xmin))), UB = 2^(b-1)-1,
 * LB = -2^(b-1); a side that is 0 does not constrain; an all-zero range
 * gives b-1. Clamped to [-32, 48]. */
int pass_quant_dfxp_frac_bits(double xmin, double xmax, int bits);
/* Asymmetric b-bit parameters for [lo, hi] (widened to hold 0):
 * scale = (hi-lo)/(2^b-1), zero = round(qmin - lo/scale) in [qmin, qmax];
 * an empty range gives scale 1, zero 0. */
void pass_quant_asym(double lo, double hi, int bits, float *scale, int32_t *zero);
/* Symmetric: scale = absmax / qmax (1 when absmax == 0). */
float pass_quant_sym_scale(double absmax, int qmax);
/* Storage range of a b-bit signed code. */
int32_t pass_quant_qmin(int bits);
int32_t pass_quant_qmax(int bits);
/* The float boundary's rounding: round half to even of x / scale in
 * float32, plus zero, clamped to [lo, hi] (ONNX QuantizeLinear). */
int32_t pass_quant_round(float x, float scale, int32_t zero, int32_t lo, int32_t hi);

/* An element-wise function f of one float: the unary op of layer L
 * (Relu ... Elu, Softplus, Exp, ...) followed by L's fused activation. */
typedef struct {
    IrOp op;                /* IR_OP_COUNT: identity */
    IrAct op_act;           /* the op's parameters (attr.act) */
    IrAct act;              /* fused epilogue */
} QuantFn;
bool pass_quant_fn_supported(IrOp op);
double pass_quant_fn_eval(const QuantFn *f, double x);
/* table[q + 128] = clamp(z_out + round_half_even(float(f(float(s_in * (q - z_in)))) / s_out)),
 * i.e. the float boundary applied to f of the dequantized code. */
void pass_quant_build_lut(const QuantFn *f, float s_in, int32_t z_in, float s_out, int32_t z_out,
                          int32_t lo, int32_t hi, int8_t table[256]);

/* ------------------------------------------------------ calibration */

/* Range statistics of one tensor over all calibration inputs. */
typedef struct {
    double min, max;
    int nbins;               /* histogram over [hmin, hmax] (0: none) */
    double hmin, hmax;
    double *hist;
    int64_t count;
} QuantStats;

/* The range [*lo, *hi] that a method keeps from st (minmax needs no
 * histogram; percentile and mse do). Always contains 0. */
void pass_calib_range(const QuantStats *st, QuantCalibMethod m, double percentile, int bits, bool sym,
                      double *lo, double *hi);
/* Expected squared quantization error of the histogram for the b-bit
 * asymmetric (or symmetric) grid over [lo, hi] (the mse method's cost). */
double pass_calib_mse_cost(const QuantStats *st, double lo, double hi, int bits, bool sym);
/* Fill st from n values (first pass: min/max; with a histogram: counts). */
void pass_calib_observe(QuantStats *st, const float *x, int64_t n);

/* Run the float graph g on the calibration inputs of o (or pseudo-random
 * ones, with a warning) and fill stats[t] for every tensor t with want[t].
 * 0 ok, -1 with errors on d. */
int pass_calibrate(IrGraph *g, const QuantOptions *o, const bool *want, QuantStats *stats, IrDiag *d);
void pass_calib_stats_free(QuantStats *stats, int n);
/* The inputs of a raw float32 file for g's one input (at most max of them,
 * 0 = all): a malloc'd array of *n inputs, or NULL after an error naming
 * the file on d. Shared by calibration and pruning recovery. */
float *pass_calib_read(const IrGraph *g, const char *path, int max, int *n, IrDiag *d);

/* ------------------------------------------------------ lowering */

typedef enum {
    QK_QUANTIZE = 0,        /* float -> codes (graph or float-region boundary) */
    QK_DEQUANTIZE,          /* codes -> float */
    QK_CONV,
    QK_FC,
    QK_MAXPOOL,
    QK_AVGPOOL,
    QK_GLOBAL_MAXPOOL,
    QK_GLOBAL_AVGPOOL,
    QK_ADD,                 /* also Sub (mb < 0) */
    QK_MUL,
    QK_LUT,                 /* table activation */
    QK_RESCALE,             /* element-wise requantization: Relu, Clip, Identity */
    QK_CONCAT,
    QK_VIEW,                /* Reshape / Flatten / Squeeze / ...: no data moves */
    QK_MOVE,                /* Split, Slice, Transpose, Gather of constant indices: codes
                             * copied as they are (every output keeps the input's scale and
                             * zero point), by the runtime's element-size kernels */
} QuantKind;

/* Everything one integer kernel call needs, as the numbers back ends print.
 * Arrays live on the graph's arena. Which members are valid, by kind:
 *   all:            kind, wide, x, y, lo, hi
 *   QUANTIZE/DEQUANTIZE: n, scale, zero
 *   CONV:           conv, w, bias, x_zero, rq
 *   FC:             fc, w, bias, rq (x_zero folded into bias)
 *   MAXPOOL:        pool;   GLOBAL_*POOL: nc, hw (+ x_zero, rq for avg)
 *   AVGPOOL:        pool, x_zero, rq (one multiplier per tap count)
 *   ADD/MUL:        x2, bc, elt
 *   LUT:            n, lut;   RESCALE: n, x_zero, rq;   VIEW, MOVE: n (input elements)
 *   CONCAT:         n_in, in[], dims_axis[], outer, inner, in_zero[], in_rq[]
 * rq arrays (mult/shift) hold n_rq entries; O2hRequant values point into them. */
typedef struct {
    QuantKind kind;
    bool wide;              /* int16 codes, int64 accumulators (_s16 kernels) */
    int x, x2, y;           /* IR tensors */
    int32_t lo, hi;         /* output clamp */
    int64_t n;
    float scale;
    int32_t zero;
    O2hConv2d conv;
    O2hFcQ fc;
    int w;                  /* IR tensor of the integer weights */
    void *bias;             /* int32_t (8-bit) or int64_t (wide) per output channel */
    int32_t x_zero;
    O2hRequant rq;
    O2hPool2d pool;
    int64_t nc, hw;
    O2hBroadcast bc;
    O2hEltQ elt;
    int8_t *lut;
    int n_in;
    int in[IR_MAX_IO];
    int64_t dims_axis[IR_MAX_IO], outer, inner;
    int32_t in_zero[IR_MAX_IO];
    O2hRequant in_rq[IR_MAX_IO];  /* mult == NULL: plain copy */
} QuantLayer;

/* Lower integer layer l (prec != FLOAT, or a Q/DQ boundary). 0 ok, -1 with
 * an error naming the node on d. */
int pass_quant_lower(IrGraph *g, int l, QuantLayer *q, IrDiag *d);
const char *pass_quant_kind_name(QuantKind k);
/* Layer l runs on the integer path (quantized precision or a boundary). */
bool pass_quant_is_int_layer(const IrGraph *g, int l);

/* ------------------------------------------------------ evaluation */

/* Observe each tensor's float value as it is computed (calibration). */
typedef void (*QuantObserve)(void *ctx, int t, const float *x, int64_t n);

/* Run g on float inputs (one array per graph input, in order) and write the
 * graph outputs (float, one array each, sized by the output tensors).
 * Float layers run on the float kernels, integer layers on the integer
 * kernels with the lowering's constants, exactly as the generated host C.
 * obs (may be NULL) sees every float tensor computed. 0 ok, -1 with an
 * error on d (an op the evaluator does not know). */
int pass_quant_eval(IrGraph *g, const float *const *inputs, float *const *outputs, QuantObserve obs,
                    void *ctx, IrDiag *d);
/* Run g as pass_quant_eval and show every integer tensor's codes (int8 or
 * int16, as its dtype, NCHW) to obs as soon as they are computed (the HLS
 * testbench's golden vectors). */
typedef void (*QuantObserveCodes)(void *ctx, int t, const void *codes, int64_t bytes);
int pass_quant_eval_all(IrGraph *g, const float *const *inputs, float *const *outputs, QuantObserveCodes obs,
                        void *ctx, IrDiag *d);
/* The integer codes of tensor t after the last pass_quant_eval_codes run
 * (tests): same as pass_quant_eval but also copies the codes of tensor t
 * (int8 or int16, as its dtype) into codes when codes != NULL. */
int pass_quant_eval_codes(IrGraph *g, const float *const *inputs, float *const *outputs, int t,
                          void *codes, IrDiag *d);

/* Run g (one input, one output) on n inputs, consecutive in x, into n
 * outputs, consecutive in y: the outputs of n pass_quant_eval calls, with
 * every layer lowered and every int8 conv's weights packed once, and the
 * inputs shared by `threads` workers (<= 0: one per core). 0 ok, -1 with
 * errors on d. */
int pass_quant_eval_batch(IrGraph *g, const float *x, int n, float *y, int threads, IrDiag *d);

/* ------------------------------------------------------ graph helpers */

/* Reorder g->layers topologically (after layers were appended), keeping
 * the existing order where it is already valid. 0 ok, -1 on a cycle. */
int pass_quant_toposort(IrGraph *g);
/* A fresh per-tensor IrQuant on the arena. */
IrQuant *pass_quant_new(IrGraph *g, float scale, int32_t zero, int bits, int frac_bits);

/* ------------------------------------------------------ the passes */

/* Declared here and in passes.h (the pipeline's table). */
int pass_quantize_graph(IrGraph *g, const QuantOptions *o, IrDiag *d);
int pass_qdq_import_graph(IrGraph *g, IrDiag *d);

#endif
