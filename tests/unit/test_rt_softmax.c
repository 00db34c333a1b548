/* test_rt_softmax.c - Softmax and LogSoftmax over contiguous and strided
 * axes (including more inner positions than one stack chunk), with large
 * inputs that would overflow a naive exp. */
#include "test_rt_util.h"

static void run_softmax(int64_t outer, int64_t n, int64_t inner, int log_mode, float scale)
{
    size_t tot = (size_t)(outer * n * inner);
    float *x = rt_random(tot), *y = rt_alloc(tot);
    double *ref = malloc(tot * sizeof(double));
    for (size_t i = 0; i < tot; i++)
        x[i] *= scale;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            double m = -INFINITY, s = 0;
            for (int64_t j = 0; j < n; j++)
                m = fmax(m, x[(o * n + j) * inner + i]);
            for (int64_t j = 0; j < n; j++)
                s += exp(x[(o * n + j) * inner + i] - m);
            for (int64_t j = 0; j < n; j++) {
                double v = x[(o * n + j) * inner + i] - m;
                ref[(o * n + j) * inner + i] = log_mode ? v - log(s) : exp(v) / s;
            }
        }
    o2h_softmax_f32(outer, n, inner, log_mode, x, y);
    char what[96];
    snprintf(what, sizeof what, "softmax %lldx%lldx%lld log=%d scale=%g", (long long)outer,
             (long long)n, (long long)inner, log_mode, scale);
    rt_compare(what, y, ref, tot, 2e-6);
    free(x);
    free(y);
    free(ref);
}

int main(void)
{
    for (int lg = 0; lg < 2; lg++) {
        run_softmax(1, 1000, 1, lg, 10.0f);
        run_softmax(3, 17, 1, lg, 1.0f);
        run_softmax(2, 5, 7, lg, 3.0f);
        run_softmax(1, 3, 300, lg, 1.0f);
        run_softmax(2, 1, 4, lg, 1.0f);
        run_softmax(1, 10, 1, lg, 1000.0f);
        run_softmax(1, 4, 9, lg, 1000.0f);
    }
    return check_done();
}
