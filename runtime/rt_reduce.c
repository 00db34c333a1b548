/* rt_reduce.c - ReduceMean / ReduceMax / ReduceSum over one (collapsed) axis.
 *
 * Why it is written this way: the code generator collapses the reduced axes
 * into x viewed as [outer][n][inner]. With inner == 1 the reduction is over a
 * contiguous run (vector accumulators, see rt_pool.c); otherwise whole rows
 * of `inner` values are combined, which vectorizes along inner. */
#include "rt_internal.h"

#include <math.h>

static void o2h_reduce_rows(int op, int64_t n, int64_t inner, const float *x, float *y)
{
    for (int64_t i = 0; i < inner; i++)
        y[i] = op == 1 ? (n > 0 ? x[i] : -INFINITY) : 0.0f;
    for (int64_t j = op == 1 ? 1 : 0; j < n; j++) {
        const float *xr = x + j * inner;
        if (op == 1) {
            for (int64_t i = 0; i < inner; i++)
                y[i] = xr[i] > y[i] ? xr[i] : y[i];
        } else {
            for (int64_t i = 0; i < inner; i++)
                y[i] += xr[i];
        }
    }
    if (op == 0 && n > 0)
        for (int64_t i = 0; i < inner; i++)
            y[i] /= (float)n;
}

void o2h_reduce_f32(int op, int64_t outer, int64_t n, int64_t inner, const float *x, float *y)
{
    for (int64_t o = 0; o < outer; o++) {
        const float *xo = x + o * n * inner;
        float *yo = y + o * inner;
        if (inner == 1) {
            if (op == 1)
                yo[0] = o2h_max_n(xo, n);
            else
                yo[0] = o2h_sum_n(xo, n) / (op == 0 && n > 0 ? (float)n : 1.0f);
        } else {
            o2h_reduce_rows(op, n, inner, xo, yo);
        }
    }
}
