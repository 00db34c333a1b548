/* test_rt_util.h - helpers shared by the runtime kernel tests: a seeded
 * random generator, exact-size heap buffers (so the sanitizer catches any
 * write past what a kernel was promised), reference activations in double,
 * and an array comparison that reports the first mismatch. */
#ifndef TEST_RT_UTIL_H
#define TEST_RT_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime/o2h_rt.h"

static uint64_t rt_rng_state = 0x9E3779B97F4A7C15ull;

static inline uint32_t rt_rand(void)
{
    rt_rng_state ^= rt_rng_state << 13;
    rt_rng_state ^= rt_rng_state >> 7;
    rt_rng_state ^= rt_rng_state << 17;
    return (uint32_t)(rt_rng_state >> 16);
}

/* uniform in [-1, 1) */
static inline float rt_frand(void) { return (float)(rt_rand() % 2000001u) / 1000000.0f - 1.0f; }

static inline float *rt_alloc(size_t n)
{
    float *p = (float *)malloc((n ? n : 1) * sizeof(float));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static inline float *rt_random(size_t n)
{
    float *p = rt_alloc(n);
    for (size_t i = 0; i < n; i++)
        p[i] = rt_frand();
    return p;
}

static inline double rt_ref_act(int act, double alpha, double beta, double slope, double x)
{
    switch (act) {
    case O2H_ACT_NONE: return x;
    case O2H_ACT_RELU: return x > 0 ? x : 0;
    case O2H_ACT_CLIP: return x < alpha ? alpha : x > beta ? beta : x;
    case O2H_ACT_LEAKY_RELU: return x < 0 ? alpha * x : x;
    case O2H_ACT_PRELU: return x < 0 ? slope * x : x;
    case O2H_ACT_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case O2H_ACT_HARD_SIGMOID: {
        double v = alpha * x + beta;
        return v < 0 ? 0 : v > 1 ? 1 : v;
    }
    case O2H_ACT_HARD_SWISH: {
        double v = x / 6.0 + 0.5;
        return x * (v < 0 ? 0 : v > 1 ? 1 : v);
    }
    case O2H_ACT_SILU: return x / (1.0 + exp(-x));
    case O2H_ACT_TANH: return tanh(x);
    case O2H_ACT_ELU: return x < 0 ? alpha * (exp(x) - 1.0) : x;
    case O2H_ACT_MISH: return x * tanh(x > 30 ? x : log1p(exp(x)));
    }
    return x;
}

/* Compare got against ref with tolerance tol * max(1, max |ref|); one
 * CHECK per array. */
static inline int rt_compare(const char *what, const float *got, const double *ref, size_t n,
                             double tol)
{
    double mx = 1.0;
    for (size_t i = 0; i < n; i++)
        if (fabs(ref[i]) > mx)
            mx = fabs(ref[i]);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - ref[i]);
        if (!(d <= tol * mx)) {
            if (!bad)
                first = i;
            bad++;
        }
    }
    CHECK_MSG(bad == 0, "%s: %zu of %zu differ, first at %zu: got %.9g want %.9g", what, bad, n,
              first, bad ? (double)got[first] : 0.0, bad ? ref[first] : 0.0);
    return bad == 0;
}

static inline int rt_compare_f(const char *what, const float *got, const float *ref, size_t n,
                               double tol)
{
    double *r = (double *)malloc((n ? n : 1) * sizeof(double));
    for (size_t i = 0; i < n; i++)
        r[i] = ref[i];
    int ok = rt_compare(what, got, r, n, tol);
    free(r);
    return ok;
}

#endif
