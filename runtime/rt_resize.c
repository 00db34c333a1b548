/* rt_resize.c - Resize / Upsample: nearest (four rounding modes), N-d linear
 * and cubic interpolation over every axis whose size changes, with all the
 * ONNX coordinate transformation modes.
 *
 * Why it is written this way: each output index maps, per axis, to at most
 * four (input index, weight) taps that depend on that axis alone. The kernel
 * walks the output with an odometer, keeps the taps of the outer axes, and
 * for each innermost row sums the product of the per-axis taps, so any
 * number of resized axes works without scratch memory. Axes whose size does
 * not change take the identity tap. tf_crop_and_resize uses the full-image
 * region of interest (start 0, end 1); the descriptor carries no roi. */
#include "rt_internal.h"

#include <math.h>

typedef struct {
    int n;              /* taps: 1 (nearest / identity), 2 (linear), 4 (cubic) */
    int64_t idx[4];
    float w[4];
} O2hTaps;

/* Source coordinate of output index o along an axis (IrCoordMode order). */
static float o2h_src_coord(int coord, int64_t o, int64_t in, int64_t out, float scale)
{
    float x = (float)o;
    switch (coord) {
    case 0: /* half_pixel */
        return (x + 0.5f) / scale - 0.5f;
    case 1: /* asymmetric */
        return x / scale;
    case 2: /* align_corners */
    case 4: /* tf_crop_and_resize, roi = [0, 1] */
        return out > 1 ? x * (float)(in - 1) / (float)(out - 1) : (coord == 4 ? 0.5f * (float)(in - 1) : 0.0f);
    case 3: /* pytorch_half_pixel */
        return out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case 5: { /* half_pixel_symmetric */
        float ow = scale * (float)in;
        float adj = (float)out / ow;
        float center = (float)in / 2.0f;
        float off = center * (1.0f - adj);
        return off + (x + 0.5f) / scale - 0.5f;
    }
    }
    return x / scale;
}

static int64_t o2h_clamp64(int64_t i, int64_t n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }

static int64_t o2h_nearest(int mode, float x)
{
    float f = floorf(x);
    switch (mode) {
    case 0: /* round_prefer_floor */
        return (int64_t)(x - f == 0.5f ? f : floorf(x + 0.5f));
    case 1: /* round_prefer_ceil */
        return (int64_t)(x - f == 0.5f ? f + 1.0f : floorf(x + 0.5f));
    case 2:
        return (int64_t)f;
    default:
        return (int64_t)ceilf(x);
    }
}

static void o2h_cubic_w(float t, float A, float *w)
{
    float t1 = t + 1.0f, t2 = 1.0f - t, t3 = 2.0f - t;
    w[0] = ((A * t1 - 5.0f * A) * t1 + 8.0f * A) * t1 - 4.0f * A;
    w[1] = ((A + 2.0f) * t - (A + 3.0f)) * t * t + 1.0f;
    w[2] = ((A + 2.0f) * t2 - (A + 3.0f)) * t2 * t2 + 1.0f;
    w[3] = ((A * t3 - 5.0f * A) * t3 + 8.0f * A) * t3 - 4.0f * A;
}

static O2hTaps o2h_axis_taps(const O2hResize *p, int d, int64_t o)
{
    O2hTaps t;
    int64_t in = p->in_dims[d], out = p->out_dims[d];
    float scale = p->scale[d] > 0.0f ? p->scale[d] : (float)out / (float)in;
    t.n = 1;
    t.w[0] = 1.0f;
    if (in == out && scale == 1.0f) {
        t.idx[0] = o;
        return t;
    }
    float x = o2h_src_coord(p->coord, o, in, out, scale);
    if (p->mode == 0) {
        t.idx[0] = o2h_clamp64(o2h_nearest(p->nearest, x), in);
        return t;
    }
    if (p->mode == 1) {
        x = x < 0.0f ? 0.0f : x > (float)(in - 1) ? (float)(in - 1) : x;
        int64_t x0 = (int64_t)floorf(x);
        t.n = 2;
        t.idx[0] = x0;
        t.idx[1] = o2h_clamp64(x0 + 1, in);
        t.w[1] = x - (float)x0;
        t.w[0] = 1.0f - t.w[1];
        return t;
    }
    float f = floorf(x);
    int64_t x0 = (int64_t)f;
    t.n = 4;
    o2h_cubic_w(x - f, p->cubic_a, t.w);
    for (int k = 0; k < 4; k++)
        t.idx[k] = o2h_clamp64(x0 - 1 + k, in);
    return t;
}

/* Sum over the taps of axes [d, rank) for the output index in oi, input
 * offset `off` accumulated from the outer axes. */
static float o2h_resize_point(const O2hResize *p, const O2hTaps *taps, const ptrdiff_t *st, int d,
                              ptrdiff_t off, const float *x)
{
    if (d == p->rank)
        return x[off];
    const O2hTaps *t = &taps[d];
    if (t->n == 1)
        return o2h_resize_point(p, taps, st, d + 1, off + (ptrdiff_t)t->idx[0] * st[d], x);
    float s = 0.0f;
    for (int k = 0; k < t->n; k++)
        s += t->w[k] * o2h_resize_point(p, taps, st, d + 1, off + (ptrdiff_t)t->idx[k] * st[d], x);
    return s;
}

/* Fast path: only the last two axes resized, nearest or linear, output
 * width small enough for a stack table of column taps. Each plane is
 * produced row by row: the row taps are computed once per row, the column
 * taps once per call. Same coordinates as the generic path. */
#define O2H_RESIZE_MAX_W 1024

static int o2h_resize_2d(const O2hResize *p, const float *x, float *y)
{
    int r = p->rank;
    if (r < 2 || p->mode > 1 || p->out_dims[r - 1] > O2H_RESIZE_MAX_W)
        return 0;
    size_t planes = 1;
    for (int d = 0; d < r - 2; d++) {
        if (p->in_dims[d] != p->out_dims[d] || (p->scale[d] > 0.0f && p->scale[d] != 1.0f))
            return 0;
        planes *= (size_t)p->out_dims[d];
    }
    int H = (int)p->in_dims[r - 2], W = (int)p->in_dims[r - 1];
    int HO = (int)p->out_dims[r - 2], WO = (int)p->out_dims[r - 1];
    int32_t c0[O2H_RESIZE_MAX_W], c1[O2H_RESIZE_MAX_W];
    float cw[O2H_RESIZE_MAX_W];
    for (int ow = 0; ow < WO; ow++) {
        O2hTaps t = o2h_axis_taps(p, r - 1, ow);
        c0[ow] = (int32_t)t.idx[0];
        c1[ow] = (int32_t)t.idx[t.n - 1];
        cw[ow] = t.n == 2 ? t.w[1] : 0.0f;
    }
    for (size_t pl = 0; pl < planes; pl++) {
        const float *xp = x + pl * (size_t)H * W;
        for (int oh = 0; oh < HO; oh++) {
            O2hTaps t = o2h_axis_taps(p, r - 2, oh);
            const float *r0 = xp + (size_t)t.idx[0] * W;
            float *yr = y + (pl * (size_t)HO + oh) * WO;
            if (p->mode == 0) {
                for (int ow = 0; ow < WO; ow++)
                    yr[ow] = r0[c0[ow]];
                continue;
            }
            const float *r1 = xp + (size_t)t.idx[t.n - 1] * W;
            float w0 = t.w[0], w1 = t.n == 2 ? t.w[1] : 0.0f;
            for (int ow = 0; ow < WO; ow++) {
                float a = r0[c0[ow]] * (1.0f - cw[ow]) + r0[c1[ow]] * cw[ow];
                float b = r1[c0[ow]] * (1.0f - cw[ow]) + r1[c1[ow]] * cw[ow];
                yr[ow] = w0 * a + w1 * b;
            }
        }
    }
    return 1;
}

void o2h_resize_f32(const O2hResize *p, const float *x, float *y)
{
    if (o2h_resize_2d(p, x, y))
        return;

    int r = p->rank;
    int64_t idx[O2H_MAX_RANK] = {0};
    ptrdiff_t st[O2H_MAX_RANK], s = 1;
    O2hTaps taps[O2H_MAX_RANK];
    if (r <= 0) {
        y[0] = x[0];
        return;
    }
    for (int d = r - 1; d >= 0; d--) {
        st[d] = s;
        s *= (ptrdiff_t)p->in_dims[d];
        if (p->out_dims[d] <= 0 || p->in_dims[d] <= 0)
            return;
    }
    for (int d = 0; d < r - 1; d++)
        taps[d] = o2h_axis_taps(p, d, 0);
    int64_t on = p->out_dims[r - 1];
    for (;;) {
        for (int64_t o = 0; o < on; o++) {
            taps[r - 1] = o2h_axis_taps(p, r - 1, o);
            *y++ = o2h_resize_point(p, taps, st, 0, 0, x);
        }
        int d = r - 2;
        for (; d >= 0; d--) {
            if (++idx[d] < p->out_dims[d]) {
                taps[d] = o2h_axis_taps(p, d, idx[d]);
                break;
            }
            idx[d] = 0;
            taps[d] = o2h_axis_taps(p, d, 0);
        }
        if (d < 0)
            return;
    }
}
