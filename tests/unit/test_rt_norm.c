/* test_rt_norm.c - inference BatchNormalization against the textbook
 * formula, batch > 1, including an empty plane. */
#include "test_rt_util.h"

static void run_bn(int64_t n, int64_t c, int64_t hw)
{
    size_t total = (size_t)(n * c * hw);
    float *x = rt_random(total), *y = rt_alloc(total);
    float *sc = rt_random((size_t)c), *b = rt_random((size_t)c), *m = rt_random((size_t)c);
    float *v = rt_random((size_t)c);
    double *ref = (double *)malloc((total ? total : 1) * sizeof(double));
    float eps = 1e-3f;
    for (int64_t i = 0; i < c; i++)
        v[i] = fabsf(v[i]) + 0.01f;
    for (size_t i = 0; i < total; i++) {
        size_t ch = (i / (size_t)hw) % (size_t)c;
        ref[i] = ((double)x[i] - m[ch]) / sqrt((double)v[ch] + eps) * sc[ch] + b[ch];
    }
    o2h_batchnorm_f32(n, c, hw, x, sc, b, m, v, eps, y);
    rt_compare("batchnorm", y, ref, total, 1e-5);
    free(x); free(y); free(sc); free(b); free(m); free(v); free(ref);
}

int main(void)
{
    run_bn(1, 3, 17);
    run_bn(2, 5, 49);
    run_bn(1, 4, 0);
    run_bn(3, 1, 1);
    return check_done();
}
