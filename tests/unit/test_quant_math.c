/* test_quant_math.c - the numbers of the integer contract: multipliers from
 * float scales, dynamic fixed point fractional bits, asymmetric and
 * symmetric parameters, the boundary rounding, lookup tables, and the
 * three calibration methods on distributions whose answer is known. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "passes/quant/quant.h"
#include "runtime/o2h_rt_int.h"

static uint64_t rng = 88172645463325252ull;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void test_multiplier(void)
{
    int32_t m;
    int sh, bad = 0, worst_bad = 0;
    CHECK_EQ_INT(pass_quant_multiplier(1.0, &m, &sh), 0);
    CHECK_EQ_INT(m, 1 << 30);
    CHECK_EQ_INT(sh, 30);
    CHECK_EQ_INT(pass_quant_multiplier(0.0, &m, &sh), 0);
    CHECK(m == 0 && sh == 0);
    CHECK_EQ_INT(pass_quant_multiplier(-1.0, &m, &sh), -1);
    CHECK_EQ_INT(pass_quant_multiplier(NAN, &m, &sh), -1);
    CHECK_EQ_INT(pass_quant_multiplier(3e9, &m, &sh), -1);
    /* just below 1: the mantissa rounds up to 2^31 and renormalizes */
    CHECK_EQ_INT(pass_quant_multiplier(1.0 - 1e-12, &m, &sh), 0);
    CHECK(m == 1 << 30 && sh == 30);
    /* tiny factors: shift 63, smaller multiplier */
    CHECK_EQ_INT(pass_quant_multiplier(ldexp(1.0, -40), &m, &sh), 0);
    CHECK(sh == 63 && m == 1 << 23);
    double worst = 0;
    for (int i = 0; i < 200000; i++) {
        double r = ldexp(0.5 + 0.5 * urand(), (int)(urand() * 62) - 32);  /* 2^-33 .. 2^30 */
        if (pass_quant_multiplier(r, &m, &sh)) {
            bad++;
            continue;
        }
        double got = ldexp((double)m, -sh), rel = fabs(got - r) / r;
        worst = rel > worst ? rel : worst;
        if (m < (1 << 30) || sh < 0 || sh > 63 || rel >= ldexp(1.0, -30))
            worst_bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(worst_bad, 0);
    CHECK_MSG(worst <= ldexp(1.0, -31), "worst relative error %g", worst);
    CHECK_EQ_INT(pass_quant_shift_multiplier(-7, &m, &sh), 0);
    CHECK(m == 1 && sh == 7);
    CHECK_EQ_INT(pass_quant_shift_multiplier(3, &m, &sh), 0);
    CHECK(m == 8 && sh == 0);
    CHECK_EQ_INT(pass_quant_shift_multiplier(40, &m, &sh), -1);
}

static void test_dfxp(void)
{
    CHECK_EQ_INT(pass_quant_dfxp_frac_bits(-1.0, 1.0, 8), 6);    /* 1 * 2^7 = 128 > 127 */
    CHECK_EQ_INT(pass_quant_dfxp_frac_bits(-1.0, 0.99, 8), 7);   /* -128 and 126.7 fit */
    CHECK_EQ_INT(pass_quant_dfxp_frac_bits(0.0, 3.0, 16), 13);   /* 3 * 8192 = 24576 */
    CHECK_EQ_INT(pass_quant_dfxp_frac_bits(-4.0, 0.0, 16), 13);  /* -4 * 8192 = -32768 */
    CHECK_EQ_INT(pass_quant_dfxp_frac_bits(-0.01, 0.02, 12), 16);
    CHECK_EQ_INT(pass_quant_dfxp_frac_bits(0.0, 0.0, 8), 7);
    CHECK_EQ_INT(pass_quant_dfxp_frac_bits(0.0, 1000.0, 8), -3);  /* 1000 / 8 = 125 */
    /* the formula: the largest s with both ends representable after rounding */
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        int bits = (int[]){8, 12, 14, 16}[i % 4];
        double mx = ldexp(urand() + 1e-3, (int)(urand() * 20) - 10), mn = -mx * 2 * urand();
        int s = pass_quant_dfxp_frac_bits(mn, mx, bits);
        double ub = pass_quant_qmax(bits), lb = pass_quant_qmin(bits);
        bool fits = floor(mx * ldexp(1.0, s) + 0.5) <= ub && floor(mn * ldexp(1.0, s) + 0.5) >= lb;
        bool next = floor(mx * ldexp(1.0, s + 1) + 0.5) <= ub && floor(mn * ldexp(1.0, s + 1) + 0.5) >= lb;
        bad += !fits || next;
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_scales(void)
{
    float s;
    int32_t z;
    pass_quant_asym(-1.0, 3.0, 8, &s, &z);
    CHECK_NEAR(s, 4.0 / 255, 1e-9);
    CHECK_EQ_INT(z, -64);
    CHECK_EQ_INT(pass_quant_round(0.0f, s, z, -128, 127), z);  /* 0 exact */
    CHECK_EQ_INT(pass_quant_round(-1.0f, s, z, -128, 127), -128);
    CHECK_EQ_INT(pass_quant_round(3.0f, s, z, -128, 127), 127);
    pass_quant_asym(2.0, 5.0, 8, &s, &z);  /* widened to hold 0 */
    CHECK_EQ_INT(z, -128);
    CHECK_NEAR(s, 5.0 / 255, 1e-9);
    pass_quant_asym(-6.0, -2.0, 8, &s, &z);
    CHECK_EQ_INT(z, 127);
    pass_quant_asym(0.0, 0.0, 8, &s, &z);
    CHECK(s == 1.0f && z == 0);
    CHECK_NEAR(pass_quant_sym_scale(2.54, 127), 0.02, 1e-9);
    CHECK(pass_quant_sym_scale(0.0, 127) == 1.0f);
    CHECK_EQ_INT(pass_quant_qmin(12), -2048);
    CHECK_EQ_INT(pass_quant_qmax(14), 8191);
    /* round half to even, saturation, NaN */
    CHECK_EQ_INT(pass_quant_round(2.5f, 1.0f, 0, -128, 127), 2);
    CHECK_EQ_INT(pass_quant_round(3.5f, 1.0f, 0, -128, 127), 4);
    CHECK_EQ_INT(pass_quant_round(-2.5f, 1.0f, 0, -128, 127), -2);
    CHECK_EQ_INT(pass_quant_round(1e9f, 1.0f, 0, -128, 127), 127);
    CHECK_EQ_INT(pass_quant_round(NAN, 1.0f, 5, -128, 127), 5);
}

/* the compile-time rounding (clamp bounds, tables) and the runtime's
 * boundary quantization are the same function */
static void test_round_matches_runtime(void)
{
    enum { N = 20000 };
    static float x[N];
    static int8_t q8[N];
    static int16_t q16[N];
    int bad = 0;
    for (int rep = 0; rep < 8; rep++) {
        float s = (float)ldexp(0.5 + urand(), (int)(urand() * 20) - 12);
        int32_t z = (int32_t)(urand() * 200) - 100;
        for (int i = 0; i < N; i++) {
            double m = urand() * 300 - 150;
            x[i] = (float)((i % 3 ? floor(m) + 0.5 : m) * s);  /* many exact ties */
        }
        x[0] = NAN, x[1] = INFINITY, x[2] = -INFINITY;
        o2h_quantize_f32_s8(x, q8, N, s, z, -128, 127);
        o2h_quantize_f32_s16(x, q16, N, s, z, -2048, 2047);
        for (int i = 0; i < N; i++) {
            bad += q8[i] != pass_quant_round(x[i], s, z, -128, 127);
            bad += q16[i] != pass_quant_round(x[i], s, z, -2048, 2047);
        }
    }
    CHECK_EQ_INT(bad, 0);
}

/* every op the planner gives the accelerator's table (unit TABLE in
 * ir/ops.def) has the float function its int8 table is built from */
static void test_table_units(void)
{
    for (int i = 0; i < IR_OP_COUNT; i++)
        if (ir_op_unit((IrOp)i) == IR_U_TABLE)
            CHECK_MSG(pass_quant_fn_supported((IrOp)i), "%s: a table unit without its function", ir_op_name((IrOp)i));
}

static void test_lut(void)
{
    int8_t t[256];
    QuantFn id = {IR_OP_COUNT, {IR_ACT_NONE, 0, 0}, {IR_ACT_NONE, 0, 0}};
    pass_quant_build_lut(&id, 0.1f, 3, 0.1f, 3, -128, 127, t);
    int bad = 0;
    for (int q = -128; q < 128; q++)
        bad += t[q + 128] != q;
    CHECK_EQ_INT(bad, 0);
    QuantFn relu = {IR_OP_RELU, {IR_ACT_RELU, 0, 0}, {IR_ACT_NONE, 0, 0}};
    pass_quant_build_lut(&relu, 0.05f, -10, 0.05f, -10, -128, 127, t);
    bad = 0;
    for (int q = -128; q < 128; q++)
        bad += t[q + 128] != (q > -10 ? q : -10);
    CHECK_EQ_INT(bad, 0);
    /* sigmoid: exactly the rounding of the float function, and monotone */
    QuantFn sig = {IR_OP_SIGMOID, {IR_ACT_SIGMOID, 0, 0}, {IR_ACT_NONE, 0, 0}};
    pass_quant_build_lut(&sig, 16.0f / 255, 0, 1.0f / 255, -128, -128, 127, t);
    bad = 0;
    for (int q = -128; q < 128; q++) {
        float x = (float)q * (16.0f / 255);
        float y = (float)(1.0 / (1.0 + exp(-(double)x)));
        bad += t[q + 128] != pass_quant_round(y, 1.0f / 255, -128, -128, 127);
        bad += q > -128 && t[q + 128] < t[q + 127];
    }
    CHECK_EQ_INT(bad, 0);
    /* SiLU as a fused act on an identity op */
    QuantFn silu = {IR_OP_COUNT, {IR_ACT_NONE, 0, 0}, {IR_ACT_SILU, 0, 0}};
    CHECK_NEAR(pass_quant_fn_eval(&silu, 2.0), 2.0 / (1.0 + exp(-2.0)), 1e-12);
    QuantFn hs = {IR_OP_HARD_SWISH, {IR_ACT_HARD_SWISH, 0, 0}, {IR_ACT_NONE, 0, 0}};
    CHECK_NEAR(pass_quant_fn_eval(&hs, 1.0), 1.0 * (1.0 / 6 + 0.5), 1e-12);
    CHECK_NEAR(pass_quant_fn_eval(&hs, -4.0), 0.0, 0);
    QuantFn elu = {IR_OP_ELU, {IR_ACT_ELU, 0.5f, 0}, {IR_ACT_NONE, 0, 0}};
    CHECK_NEAR(pass_quant_fn_eval(&elu, -1.0), 0.5 * (exp(-1.0) - 1), 1e-7);
}

/* ------------------------------------------------------- calibration */

static void fill(QuantStats *st, const float *x, int64_t n, bool hist)
{
    memset(st, 0, sizeof *st);
    st->min = INFINITY;
    st->max = -INFINITY;
    pass_calib_observe(st, x, n);
    if (!hist)
        return;
    st->nbins = 2048;
    st->hmin = st->min;
    st->hmax = st->max;
    st->hist = calloc(2048, sizeof(double));
    pass_calib_observe(st, x, n);
}

static void test_calibration(void)
{
    enum { N = 400000 };
    float *x = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i += 2) {  /* Box-Muller: N(0, 1) */
        double u = urand() + 1e-300, v = urand();
        x[i] = (float)(sqrt(-2 * log(u)) * cos(2 * M_PI * v));
        x[i + 1] = (float)(sqrt(-2 * log(u)) * sin(2 * M_PI * v));
    }
    QuantStats st;
    double lo, hi;
    fill(&st, x, N, true);
    pass_calib_range(&st, QUANT_CALIB_MINMAX, 0, 8, false, &lo, &hi);
    CHECK(lo == st.min && hi == st.max && hi > 4.0);
    pass_calib_range(&st, QUANT_CALIB_PERCENTILE, 99.9, 8, false, &lo, &hi);
    CHECK_NEAR(hi, 3.090, 0.06);   /* z(0.999) */
    CHECK_NEAR(lo, -3.090, 0.06);
    pass_calib_range(&st, QUANT_CALIB_PERCENTILE, 99.0, 8, false, &lo, &hi);
    CHECK_NEAR(hi, 2.326, 0.04);   /* z(0.99) */
    pass_calib_range(&st, QUANT_CALIB_MSE, 0, 8, false, &lo, &hi);
    double c_mse = pass_calib_mse_cost(&st, lo, hi, 8, false);
    double c_max = pass_calib_mse_cost(&st, st.min, st.max, 8, false);
    CHECK_MSG(hi < st.max && hi > 2.5 && c_mse <= c_max, "mse range [%g, %g], cost %g vs %g", lo, hi, c_mse, c_max);
    double lo4, hi4;
    pass_calib_range(&st, QUANT_CALIB_MSE, 0, 4, false, &lo4, &hi4);
    CHECK_MSG(hi4 < hi, "fewer bits clip harder: %g vs %g", hi4, hi);
    free(st.hist);

    /* uniform [0, 1] with one outlier at 100 (a post-Relu tensor) */
    for (int i = 0; i < N; i++)
        x[i] = (float)urand();
    x[N / 2] = 100.0f;
    fill(&st, x, N, true);
    pass_calib_range(&st, QUANT_CALIB_MINMAX, 0, 8, false, &lo, &hi);
    CHECK(lo == 0 && hi == 100.0);
    pass_calib_range(&st, QUANT_CALIB_PERCENTILE, 99.99, 8, false, &lo, &hi);
    CHECK_MSG(lo == 0 && hi > 0.95 && hi < 1.1, "percentile hi %g", hi);
    /* MSE weighs the one clipped outlier against the rounding noise of all
     * the others: the optimum is inside (1, 100), here about 66 */
    pass_calib_range(&st, QUANT_CALIB_MSE, 0, 8, false, &lo, &hi);
    double c = pass_calib_mse_cost(&st, lo, hi, 8, false);
    CHECK_MSG(lo == 0 && hi > 1.0 && hi < 100.0 && c <= pass_calib_mse_cost(&st, 0, 100, 8, false) &&
                  c <= pass_calib_mse_cost(&st, 0, 1.0, 8, false),
              "mse hi %g", hi);
    free(st.hist);

    /* all positive, no histogram: minmax widened to hold 0 */
    float pos[3] = {2.0f, 3.0f, 5.0f};
    fill(&st, pos, 3, false);
    pass_calib_range(&st, QUANT_CALIB_MINMAX, 0, 8, false, &lo, &hi);
    CHECK(lo == 0 && hi == 5.0);
    free(x);
}

int main(void)
{
    test_multiplier();
    test_dfxp();
    test_scales();
    test_round_matches_runtime();
    test_lut();
    test_table_units();
    test_calibration();
    return check_done();
}
