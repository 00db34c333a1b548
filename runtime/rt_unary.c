/* rt_unary.c - element-wise unary ops and the activations fused into the
 * epilogues of conv, gemm and binary ops.
 *
 * Why it is written this way: activations run over every output of most
 * layers, so each kind is its own tight loop the compiler vectorizes. The
 * sigmoid family (Sigmoid, SiLU; all of EfficientNet's activations) would be
 * dominated by scalar libm expf calls, so exp is computed here with a
 * Cody-Waite range reduction and a degree-7 polynomial on whole vectors
 * (about 2 ulp, plain arithmetic, no -ffast-math needed). The rarely used
 * math ops (Exp, Log, Erf, Tanh, Mish, ...) call libm for exactness. */
#include "rt_internal.h"

#include <math.h>

#if O2H_VEC
/* Apply f (a vector function) to n values; the tail goes through a padded
 * vector so every value sees the same arithmetic. */
#define O2H_MAP_VEC(x, y, n, F)                          \
    do {                                                 \
        size_t i_ = 0;                                   \
        for (; i_ + O2H_VL <= (n); i_ += O2H_VL)         \
            o2h_vstore((y) + i_, F(o2h_vload((x) + i_))); \
        if (i_ < (n)) {                                  \
            float t_[O2H_VL] = {0};                      \
            memcpy(t_, (x) + i_, ((n) - i_) * 4);        \
            o2h_vstore(t_, F(o2h_vload(t_)));            \
            memcpy((y) + i_, t_, ((n) - i_) * 4);        \
        }                                                \
    } while (0)

void o2h_exp_n(const float *x, float *y, size_t n) { O2H_MAP_VEC(x, y, n, o2h_vexp); }
void o2h_sigmoid_n(const float *x, float *y, size_t n) { O2H_MAP_VEC(x, y, n, o2h_vsigmoid); }
static void o2h_silu_n(float *x, size_t n) { O2H_MAP_VEC(x, x, n, o2h_vsilu); }

#else

/* exp on one float, same arithmetic as the vector version. */
static float o2h_exp1(float x)
{
    x = x > O2H_EXP_HI ? O2H_EXP_HI : x;
    x = x < O2H_EXP_LO ? O2H_EXP_LO : x;
    float n = (x * O2H_LOG2E + O2H_ROUND_MAGIC) - O2H_ROUND_MAGIC;
    float r = (x - n * O2H_LN2_HI) - n * O2H_LN2_LO;
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int32_t bits = ((int32_t)n + 127) * (1 << 23);
    float s;
    memcpy(&s, &bits, sizeof s);
    return p * s;
}

void o2h_exp_n(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = o2h_exp1(x[i]);
}
void o2h_sigmoid_n(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = 1.0f / (1.0f + o2h_exp1(-x[i]));
}
static void o2h_silu_n(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] / (1.0f + o2h_exp1(-x[i]));
}

#endif

/* --------------------------------------------------- activation kernels */

static void o2h_relu_n(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

static void o2h_clip_n(float *x, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i] < lo ? lo : x[i];
        x[i] = v > hi ? hi : v;
    }
}

static void o2h_leaky_n(float *x, size_t n, float a)
{
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] < 0.0f ? a * x[i] : x[i];
}

static void o2h_hsigmoid_n(float *x, size_t n, float a, float b)
{
    for (size_t i = 0; i < n; i++) {
        float v = a * x[i] + b;
        v = v < 0.0f ? 0.0f : v;
        x[i] = v > 1.0f ? 1.0f : v;
    }
}

static void o2h_hswish_n(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i] * (1.0f / 6.0f) + 0.5f;
        v = v < 0.0f ? 0.0f : v;
        v = v > 1.0f ? 1.0f : v;
        x[i] = x[i] * v;
    }
}

static void o2h_elu_n(float *x, size_t n, float a)
{
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] < 0.0f ? a * expm1f(x[i]) : x[i];
}

static void o2h_tanh_n(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = tanhf(x[i]);
}

/* softplus(x) = log(1 + e^x) without overflow for large x */
static float o2h_softplus1(float x)
{
    return x > 0.0f ? x + log1pf(expf(-x)) : log1pf(expf(x));
}

/* Mish (YOLOv4 and its descendants): x * tanh(softplus(x)) */
static float o2h_mish1(float x)
{
    return x * tanhf(o2h_softplus1(x));
}

static void o2h_mish_n(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = o2h_mish1(x[i]);
}

/* In-place activation of the kinds that do not depend on the channel.
 * Returns 0 for PRelu, which needs a slope. */
static int o2h_act_plain(const O2hEpilogue *e, float *x, size_t n)
{
    switch (e->act) {
    case O2H_ACT_NONE: return 1;
    case O2H_ACT_RELU: o2h_relu_n(x, n); return 1;
    case O2H_ACT_CLIP: o2h_clip_n(x, n, e->alpha, e->beta); return 1;
    case O2H_ACT_LEAKY_RELU: o2h_leaky_n(x, n, e->alpha); return 1;
    case O2H_ACT_SIGMOID: o2h_sigmoid_n(x, x, n); return 1;
    case O2H_ACT_HARD_SIGMOID: o2h_hsigmoid_n(x, n, e->alpha, e->beta); return 1;
    case O2H_ACT_HARD_SWISH: o2h_hswish_n(x, n); return 1;
    case O2H_ACT_SILU: o2h_silu_n(x, n); return 1;
    case O2H_ACT_TANH: o2h_tanh_n(x, n); return 1;
    case O2H_ACT_ELU: o2h_elu_n(x, n, e->alpha); return 1;
    case O2H_ACT_MISH: o2h_mish_n(x, n); return 1;
    case O2H_ACT_PRELU: return 0;
    case O2H_ACT_COUNT: break;
    }
    return 1;
}

void o2h_act_row(const O2hEpilogue *e, float *x, size_t n, int channel)
{
    if (!e || o2h_act_plain(e, x, n))
        return;
    float s = e->slope ? e->slope[e->n_slope > 1 ? channel : 0] : 0.0f;
    o2h_leaky_n(x, n, s);
}

void o2h_act_by_col(const O2hEpilogue *e, float *x, size_t n, int c0)
{
    if (!e || o2h_act_plain(e, x, n))
        return;
    if (!e->slope)
        return;
    if (e->n_slope <= 1) {
        o2h_leaky_n(x, n, e->slope[0]);
        return;
    }
    const float *s = e->slope + c0;
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] < 0.0f ? s[i] * x[i] : x[i];
}

void o2h_act_f32(const O2hEpilogue *e, float *x, size_t n, int channel)
{
    o2h_act_row(e, x, n, channel);
}

/* ------------------------------------------------------------ unary ops */

/* The libm-backed ops, one value at a time. */
static float o2h_unary_math(O2hUnOp op, float x)
{
    switch (op) {
    case O2H_UN_SOFTPLUS: return o2h_softplus1(x);
    case O2H_UN_EXP: return expf(x);
    case O2H_UN_LOG: return logf(x);
    case O2H_UN_SQRT: return sqrtf(x);
    case O2H_UN_NEG: return -x;
    case O2H_UN_ABS: return fabsf(x);
    case O2H_UN_RECIPROCAL: return 1.0f / x;
    case O2H_UN_FLOOR: return floorf(x);
    case O2H_UN_CEIL: return ceilf(x);
    case O2H_UN_ERF: return erff(x);
    case O2H_UN_MISH: return o2h_mish1(x);
    default: return x;
    }
}

void o2h_unary_f32(O2hUnOp op, float alpha, float beta, const float *x, float *y, size_t n)
{
    if (op == O2H_UN_SIGMOID) {
        o2h_sigmoid_n(x, y, n);
        return;
    }
    if (op <= O2H_UN_ELU) {
        if (y != x)
            memmove(y, x, n * sizeof *y);
        switch (op) {
        case O2H_UN_RELU: o2h_relu_n(y, n); return;
        case O2H_UN_CLIP: o2h_clip_n(y, n, alpha, beta); return;
        case O2H_UN_LEAKY_RELU: o2h_leaky_n(y, n, alpha); return;
        case O2H_UN_HARD_SIGMOID: o2h_hsigmoid_n(y, n, alpha, beta); return;
        case O2H_UN_HARD_SWISH: o2h_hswish_n(y, n); return;
        case O2H_UN_TANH: o2h_tanh_n(y, n); return;
        case O2H_UN_ELU: o2h_elu_n(y, n, alpha); return;
        default: break;
        }
    }
    for (size_t i = 0; i < n; i++)
        y[i] = o2h_unary_math(op, x[i]);
}
