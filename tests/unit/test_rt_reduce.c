/* test_rt_reduce.c - ReduceMean/Max/Sum over contiguous (inner == 1) and
 * strided axes, with lengths around the vector widths. */
#include "test_rt_util.h"

static void run_reduce(int op, int64_t outer, int64_t n, int64_t inner)
{
    size_t tot = (size_t)(outer * n * inner), no = (size_t)(outer * inner);
    float *x = rt_random(tot), *y = rt_alloc(no);
    double *ref = malloc(no * sizeof(double));
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            double acc = op == 1 ? -INFINITY : 0;
            for (int64_t j = 0; j < n; j++) {
                double v = x[(o * n + j) * inner + i];
                acc = op == 1 ? fmax(acc, v) : acc + v;
            }
            ref[o * inner + i] = op == 0 ? acc / n : acc;
        }
    o2h_reduce_f32(op, outer, n, inner, x, y);
    char what[96];
    snprintf(what, sizeof what, "reduce op %d %lldx%lldx%lld", op, (long long)outer,
             (long long)n, (long long)inner);
    rt_compare(what, y, ref, no, 1e-6);
    free(x);
    free(y);
    free(ref);
}

int main(void)
{
    for (int op = 0; op < 3; op++) {
        run_reduce(op, 1, 1, 1);
        run_reduce(op, 3, 7, 1);
        run_reduce(op, 2, 100, 1);
        run_reduce(op, 2, 49, 5);
        run_reduce(op, 1, 3, 65);
        run_reduce(op, 4, 1, 9);
    }
    return check_done();
}
