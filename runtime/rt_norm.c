/* rt_norm.c - inference BatchNormalization (for graphs where it could not be
 * folded into a preceding conv).
 *
 * Why it is written this way: the per-channel affine factors are computed
 * once per channel, then each plane is a single multiply-add loop the
 * compiler vectorizes. */
#include "rt_internal.h"

#include <math.h>

void o2h_batchnorm_f32(int64_t n, int64_t c, int64_t hw, const float *x, const float *scale,
                       const float *bias, const float *mean, const float *var, float eps,
                       float *y)
{
    for (int64_t ch = 0; ch < c; ch++) {
        float s = scale[ch] / sqrtf(var[ch] + eps);
        float t = bias[ch] - mean[ch] * s;
        for (int64_t b = 0; b < n; b++) {
            const float *xp = x + (b * c + ch) * hw;
            float *yp = y + (b * c + ch) * hw;
            for (int64_t i = 0; i < hw; i++)
                yp[i] = xp[i] * s + t;
        }
    }
}
