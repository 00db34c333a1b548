/* quant_math.c - the numbers of the integer contract: fixed-point
 * multipliers, dynamic fixed point fractional bits, asymmetric and
 * symmetric scales, the float boundary's rounding and lookup tables.
 *
 * Why in one file: each of these is a formula docs/numerics.md states; the
 * HLS engines and the host C only ever see their results, so getting one
 * wrong would be wrong everywhere at once - and is tested here once
 * (tests/unit/test_quant_math.c). Everything is computed in double from
 * the float32 scales stored in the IR, so the results do not depend on the
 * order in which layers are processed. */
#include "quant.h"

#include <float.h>
#include <math.h>

/* ------------------------------------------------------- multipliers */

int pass_quant_multiplier(double r, int32_t *m, int *sh)
{
    if (!(r >= 0) || !isfinite(r) || r >= 2147483648.0) {
        *m = INT32_MAX;
        *sh = 0;
        return -1;
    }
    if (r == 0) {
        *m = 0;
        *sh = 0;
        return 0;
    }
    int e;
    double f = frexp(r, &e);                /* r = f * 2^e, f in [0.5, 1) */
    int64_t M = llround(ldexp(f, 31));      /* [2^30, 2^31] */
    if (M == ((int64_t)1 << 31)) {
        M = (int64_t)1 << 30;
        e++;
    }
    int s = 31 - e;
    if (s > O2H_RQ_MAX_SHIFT) {
        M = llround(ldexp(r, O2H_RQ_MAX_SHIFT));
        s = O2H_RQ_MAX_SHIFT;
    }
    if (s < 0) {
        *m = INT32_MAX;
        *sh = 0;
        return -1;
    }
    *m = (int32_t)M;
    *sh = s;
    return 0;
}

int pass_quant_shift_multiplier(int k, int32_t *m, int *sh)
{
    if (k < -O2H_RQ_MAX_SHIFT || k > 30) {
        *m = k > 0 ? INT32_MAX : 0;
        *sh = 0;
        return -1;
    }
    *m = k > 0 ? (int32_t)1 << k : 1;
    *sh = k > 0 ? 0 : -k;
    return 0;
}

/* ------------------------------------------------------- scales */

int32_t pass_quant_qmin(int bits)
{
    return -((int32_t)1 << (bits - 1));
}

int32_t pass_quant_qmax(int bits)
{
    return ((int32_t)1 << (bits - 1)) - 1;
}

/* floor(log2(v)) for v > 0, exactly */
static int floor_log2(double v)
{
    int e;
    frexp(v, &e);
    return e - 1;
}

int pass_quant_dfxp_frac_bits(double xmin, double xmax, int bits)
{
    double ub = pass_quant_qmax(bits), lb = pass_quant_qmin(bits);
    double best = INFINITY;
    if (xmax > 0)
        best = (ub + 0.5) / xmax;
    if (xmin < 0 && (lb - 0.5) / xmin < best)
        best = (lb - 0.5) / xmin;
    if (!isfinite(best))
        return bits - 1;
    int s = floor_log2(best);
    return s < -32 ? -32 : s > 48 ? 48 : s;
}

void pass_quant_asym(double lo, double hi, int bits, float *scale, int32_t *zero)
{
    int32_t qmin = pass_quant_qmin(bits), qmax = pass_quant_qmax(bits);
    lo = lo < 0 ? lo : 0;
    hi = hi > 0 ? hi : 0;
    if (!(hi - lo > 1e-30) || !isfinite(hi - lo)) {
        *scale = 1.0f;
        *zero = 0;
        return;
    }
    float s = (float)((hi - lo) / ((double)qmax - qmin));
    if (!(s >= FLT_MIN))
        s = FLT_MIN;
    double z = llround((double)qmin - lo / s);
    *scale = s;
    *zero = z < qmin ? qmin : z > qmax ? qmax : (int32_t)z;
}

float pass_quant_sym_scale(double absmax, int qmax)
{
    if (!(absmax > 0) || !isfinite(absmax))
        return 1.0f;
    float s = (float)(absmax / qmax);
    return s >= FLT_MIN ? s : FLT_MIN;
}

static float round_even(float v)
{
    float r = floorf(v), d = v - r;
    if (d > 0.5f || (d == 0.5f && fmodf(r, 2.0f) != 0.0f))
        r += 1.0f;
    return r;
}

int32_t pass_quant_round(float x, float scale, int32_t zero, int32_t lo, int32_t hi)
{
    float v = x / scale;
    if (v != v)
        return zero < lo ? lo : zero > hi ? hi : zero;
    double r = (double)round_even(v) + zero;
    return r < lo ? lo : r > hi ? hi : (int32_t)r;
}

/* ------------------------------------------------------- functions */

static double softplus(double x)
{
    return x > 30 ? x : log1p(exp(x));
}

static double sigmoid(double x)
{
    return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

static double act_eval(const IrAct *a, double x)
{
    switch (a->kind) {
    case IR_ACT_RELU: return x > 0 ? x : 0;
    case IR_ACT_CLIP: return x < a->alpha ? a->alpha : x > a->beta ? a->beta : x;
    case IR_ACT_LEAKY_RELU: return x >= 0 ? x : a->alpha * x;
    case IR_ACT_SIGMOID: return sigmoid(x);
    case IR_ACT_HARD_SIGMOID: {
        double v = a->alpha * x + a->beta;
        return v < 0 ? 0 : v > 1 ? 1 : v;
    }
    case IR_ACT_HARD_SWISH: {
        double v = x / 6.0 + 0.5;
        return x * (v < 0 ? 0 : v > 1 ? 1 : v);
    }
    case IR_ACT_SILU: return x * sigmoid(x);
    case IR_ACT_TANH: return tanh(x);
    case IR_ACT_ELU: return x >= 0 ? x : a->alpha * (exp(x) - 1.0);
    case IR_ACT_MISH: return x * tanh(softplus(x));
    default: return x;
    }
}


static double neg(double x)
{
    return -x;
}

/* The element-wise functions of one input that are not activations
 * (those go through act_eval with the op's act from ops.def) and that a
 * 256-entry table can compute: defined for every int8 input. */
static double (*const unary_fns[IR_OP_COUNT])(double) = {
    [IR_OP_SOFTPLUS] = softplus, [IR_OP_EXP] = exp, [IR_OP_NEG] = neg, [IR_OP_ABS] = fabs, [IR_OP_ERF] = erf,
};

bool pass_quant_fn_supported(IrOp op)
{
    return (unsigned)op < IR_OP_COUNT && (ir_op_act(op) != IR_ACT_NONE || unary_fns[op]);
}

static double op_eval(IrOp op, const IrAct *a, double x)
{
    if ((unsigned)op >= IR_OP_COUNT)
        return x;
    if (ir_op_act(op) != IR_ACT_NONE) {
        IrAct k = *a;
        k.kind = ir_op_act(op);
        return act_eval(&k, x);
    }
    return unary_fns[op] ? unary_fns[op](x) : x;
}

double pass_quant_fn_eval(const QuantFn *f, double x)
{
    return act_eval(&f->act, op_eval(f->op, &f->op_act, x));
}

void pass_quant_build_lut(const QuantFn *f, float s_in, int32_t z_in, float s_out, int32_t z_out,
                          int32_t lo, int32_t hi, int8_t table[256])
{
    for (int q = -128; q <= 127; q++) {
        float x = (float)(q - z_in) * s_in;
        float y = (float)pass_quant_fn_eval(f, (double)x);
        table[q + 128] = (int8_t)pass_quant_round(y, s_out, z_out, lo, hi);
    }
}
