/* rt_softmax.c - Softmax and LogSoftmax over one (collapsed) axis.
 *
 * Why it is written this way: numerically stable form (subtract the max
 * before exponentiating; LogSoftmax as x - max - log(sum)). The common case,
 * a contiguous axis (inner == 1, e.g. class scores), uses the vector exp.
 * A strided axis is processed in chunks of inner positions whose running
 * max and sum live in small stack arrays, since kernels get no heap. */
#include "rt_internal.h"

#include <math.h>

#define O2H_SOFTMAX_CHUNK 256

static void o2h_softmax_row(int64_t n, int log_mode, const float *x, float *y)
{
    float m = o2h_max_n(x, n);
    for (int64_t j = 0; j < n; j++)
        y[j] = x[j] - m;
    if (log_mode) {
        float s = 0.0f;
        for (int64_t j = 0; j < n; j++)
            s += expf(y[j]);
        float ls = logf(s);
        for (int64_t j = 0; j < n; j++)
            y[j] -= ls;
        return;
    }
    o2h_exp_n(y, y, (size_t)n);
    float inv = 1.0f / o2h_sum_n(y, n);
    for (int64_t j = 0; j < n; j++)
        y[j] *= inv;
}

/* positions [i0, i0+len) of the inner axis, x and y at the block start */
static void o2h_softmax_cols(int64_t n, int64_t inner, int len, int log_mode, const float *x,
                             float *y)
{
    float m[O2H_SOFTMAX_CHUNK], s[O2H_SOFTMAX_CHUNK];
    for (int i = 0; i < len; i++) {
        m[i] = -INFINITY;
        s[i] = 0.0f;
    }
    for (int64_t j = 0; j < n; j++)
        for (int i = 0; i < len; i++)
            m[i] = x[j * inner + i] > m[i] ? x[j * inner + i] : m[i];
    for (int64_t j = 0; j < n; j++)
        for (int i = 0; i < len; i++) {
            float v = x[j * inner + i] - m[i];
            float ev = expf(v);
            s[i] += ev;
            y[j * inner + i] = log_mode ? v : ev;
        }
    for (int i = 0; i < len; i++)
        s[i] = log_mode ? logf(s[i]) : 1.0f / s[i];
    for (int64_t j = 0; j < n; j++)
        for (int i = 0; i < len; i++) {
            if (log_mode)
                y[j * inner + i] -= s[i];
            else
                y[j * inner + i] *= s[i];
        }
}

void o2h_softmax_f32(int64_t outer, int64_t n, int64_t inner, int log, const float *x, float *y)
{
    if (n <= 0)
        return;
    for (int64_t o = 0; o < outer; o++) {
        const float *xo = x + o * n * inner;
        float *yo = y + o * n * inner;
        if (inner == 1) {
            o2h_softmax_row(n, log, xo, yo);
            continue;
        }
        for (int64_t i0 = 0; i0 < inner; i0 += O2H_SOFTMAX_CHUNK) {
            int len = (int)(inner - i0 < O2H_SOFTMAX_CHUNK ? inner - i0 : O2H_SOFTMAX_CHUNK);
            o2h_softmax_cols(n, inner, len, log, xo + i0, yo + i0);
        }
    }
}
