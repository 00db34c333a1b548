/* test_rt_unary.c - every unary op and every activation kind (including
 * per-channel PRelu, in-place use and odd lengths that exercise vector
 * tails) against libm in double; the vector exp/sigmoid over a wide range. */
#include "test_rt_util.h"

static double ref_unary(O2hUnOp op, double a, double b, double x)
{
    switch (op) {
    case O2H_UN_RELU: return rt_ref_act(O2H_ACT_RELU, a, b, 0, x);
    case O2H_UN_CLIP: return rt_ref_act(O2H_ACT_CLIP, a, b, 0, x);
    case O2H_UN_LEAKY_RELU: return rt_ref_act(O2H_ACT_LEAKY_RELU, a, b, 0, x);
    case O2H_UN_SIGMOID: return rt_ref_act(O2H_ACT_SIGMOID, a, b, 0, x);
    case O2H_UN_HARD_SIGMOID: return rt_ref_act(O2H_ACT_HARD_SIGMOID, a, b, 0, x);
    case O2H_UN_HARD_SWISH: return rt_ref_act(O2H_ACT_HARD_SWISH, a, b, 0, x);
    case O2H_UN_TANH: return tanh(x);
    case O2H_UN_ELU: return rt_ref_act(O2H_ACT_ELU, a, b, 0, x);
    case O2H_UN_SOFTPLUS: return log1p(exp(x));
    case O2H_UN_EXP: return exp(x);
    case O2H_UN_LOG: return log(x);
    case O2H_UN_SQRT: return sqrt(x);
    case O2H_UN_NEG: return -x;
    case O2H_UN_ABS: return fabs(x);
    case O2H_UN_RECIPROCAL: return 1.0 / x;
    case O2H_UN_FLOOR: return floor(x);
    case O2H_UN_CEIL: return ceil(x);
    case O2H_UN_ERF: return erf(x);
    case O2H_UN_MISH: return rt_ref_act(O2H_ACT_MISH, a, b, 0, x);
    case O2H_UN_COUNT: break;
    }
    return x;
}

static void test_unary_ops(void)
{
    size_t lens[] = {1, 3, 16, 37, 1000};
    for (int op = O2H_UN_RELU; op < O2H_UN_COUNT; op++)
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            size_t n = lens[li];
            float *x = rt_alloc(n), *y = rt_alloc(n);
            double *ref = (double *)malloc(n * sizeof(double));
            float a = op == O2H_UN_CLIP ? -1.0f : op == O2H_UN_HARD_SIGMOID ? 0.2f : 0.3f;
            float b = op == O2H_UN_CLIP ? 2.0f : 0.5f;
            for (size_t i = 0; i < n; i++) {
                x[i] = rt_frand() * 6.0f;
                if (op == O2H_UN_LOG || op == O2H_UN_SQRT)
                    x[i] = fabsf(x[i]) + 0.01f;
                if (op == O2H_UN_RECIPROCAL && fabsf(x[i]) < 0.1f)
                    x[i] = 0.5f;
                ref[i] = ref_unary((O2hUnOp)op, a, b, x[i]);
            }
            char what[64];
            snprintf(what, sizeof what, "unary op %d n=%zu", op, n);
            o2h_unary_f32((O2hUnOp)op, a, b, x, y, n);
            rt_compare(what, y, ref, n, 2e-6);
            o2h_unary_f32((O2hUnOp)op, a, b, x, x, n); /* in place */
            rt_compare(what, x, ref, n, 2e-6);
            free(x); free(y); free(ref);
        }
}

static void test_acts(void)
{
    size_t n = 203;
    float slope[4] = {0.1f, -0.2f, 0.3f, 0.25f};
    for (int act = O2H_ACT_NONE; act < O2H_ACT_COUNT; act++)
        for (int ch = 0; ch < 4; ch++) {
            O2hEpilogue e = {(O2hActKind)act, 0.2f, 0.6f, slope, ch == 3 ? 1 : 4, NULL};
            if (act == O2H_ACT_CLIP) {
                e.alpha = 0.0f;
                e.beta = 6.0f;
            }
            float *x = rt_alloc(n);
            double *ref = (double *)malloc(n * sizeof(double));
            for (size_t i = 0; i < n; i++) {
                x[i] = rt_frand() * 10.0f;
                ref[i] = rt_ref_act(act, e.alpha, e.beta, slope[e.n_slope > 1 ? ch : 0], x[i]);
            }
            char what[64];
            snprintf(what, sizeof what, "act %d channel %d", act, ch);
            o2h_act_f32(&e, x, n, ch);
            rt_compare(what, x, ref, n, 2e-6);
            free(x);
            free(ref);
        }
}

/* The polynomial exp behind Sigmoid/SiLU: relative error over a wide range. */
static void test_vector_exp(void)
{
    size_t n = 20001;
    float *x = rt_alloc(n), *y = rt_alloc(n);
    double worst = 0;
    for (size_t i = 0; i < n; i++)
        x[i] = -80.0f + 160.0f * (float)i / (float)(n - 1);
    o2h_unary_f32(O2H_UN_SIGMOID, 0, 0, x, y, n);
    for (size_t i = 0; i < n; i++) {
        double r = 1.0 / (1.0 + exp(-(double)x[i]));
        double rel = fabs(y[i] - r) / r;
        worst = rel > worst ? rel : worst;
    }
    CHECK_MSG(worst < 1e-6, "sigmoid worst relative error %g", worst);
    O2hEpilogue e = {O2H_ACT_SILU, 0, 0, NULL, 0, NULL};
    for (size_t i = 0; i < n; i++)
        y[i] = x[i];
    o2h_act_f32(&e, y, n, 0);
    worst = 0;
    for (size_t i = 0; i < n; i++) {
        double r = x[i] / (1.0 + exp(-(double)x[i]));
        double err = fabs(y[i] - r) / (fabs(r) > 1e-30 ? fabs(r) : 1e-30);
        worst = err > worst ? err : worst;
    }
    CHECK_MSG(worst < 1e-6, "silu worst relative error %g", worst);
    /* extremes stay finite and saturate */
    float big[4] = {-1000.0f, 1000.0f, -88.5f, 89.0f}, out[4];
    o2h_unary_f32(O2H_UN_SIGMOID, 0, 0, big, out, 4);
    CHECK(out[0] >= 0.0f && out[0] < 1e-30f);
    CHECK(out[1] == 1.0f);
    CHECK(out[2] >= 0.0f && out[2] < 1e-30f);
    CHECK(out[3] == 1.0f);
    free(x);
    free(y);
}

int main(void)
{
    test_unary_ops();
    test_acts();
    test_vector_exp();
    return check_done();
}
