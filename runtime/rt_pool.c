/* rt_pool.c - max and average pooling (pads, dilations, ceil-mode outputs)
 * and the global pools.
 *
 * Why it is written this way: each output row is built tap by tap; for a
 * tap the output columns whose input lies inside the image form one range,
 * so the inner loops have no bounds tests, vectorize, and positions that
 * fall off the padded input (ceil mode) are simply not visited. Average pooling counts, as ONNX specifies, either the in-image
 * positions or, with count_include_pad, the positions inside the explicit
 * pads too but never those past them. Global pools reduce each plane with
 * several vector accumulators so the sum is not one long dependency chain. */
#include "rt_internal.h"

#include <math.h>

/* Window taps along one axis for output index o: valid taps [*k0, *k1) that
 * land in the image, and the count of taps inside image + explicit pads. */
static void o2h_pool_axis(int o, int S, int D, int K, int P0, int P1, int len, int *k0,
                          int *k1, int *padded)
{
    int start = o * S - P0, lo = K, hi = 0, cnt = 0;
    for (int k = 0; k < K; k++) {
        int i = start + k * D;
        if (i >= -P0 && i < len + P1)
            cnt++;
        if (i >= 0 && i < len) {
            if (k < lo)
                lo = k;
            hi = k + 1;
        }
    }
    *k0 = lo;
    *k1 = hi > lo ? hi : lo;
    *padded = cnt;
}

static int o2h_cdiv(int a, int b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

/* acc[ow] = max/sum(acc[ow], row[ow*S + off]) for ow in [lo, hi). */
static void o2h_pool_tap(int is_max, const float *row, int S, int off, int lo, int hi, float *acc)
{
    const float *r = row + off;
    if (is_max && S == 1) {
        for (int ow = lo; ow < hi; ow++)
            acc[ow] = r[ow] > acc[ow] ? r[ow] : acc[ow];
    } else if (is_max && S == 2) {
        for (int ow = lo; ow < hi; ow++)
            acc[ow] = r[2 * ow] > acc[ow] ? r[2 * ow] : acc[ow];
    } else if (is_max) {
        for (int ow = lo; ow < hi; ow++)
            acc[ow] = r[ow * S] > acc[ow] ? r[ow * S] : acc[ow];
    } else if (S == 1) {
        for (int ow = lo; ow < hi; ow++)
            acc[ow] += r[ow];
    } else {
        for (int ow = lo; ow < hi; ow++)
            acc[ow] += r[ow * S];
    }
}

/* Widest input row the stride-2 form splits on the stack. */
#define O2H_POOL_SPLIT_W 4096

/* The stride-2 form: each input row split once into its even and odd
 * columns, so every tap is a contiguous, vectorizable pass; the taps and
 * the per-element operations are the same as o2h_pool_tap's, in the same
 * order, so the results are too. */
static int o2h_pool_split_ok(const O2hPool2d *p) { return p->SW == 2 && p->DW == 1 && p->W <= O2H_POOL_SPLIT_W; }

static void o2h_pool_split_row(const float *row, int w, float *ev, float *od)
{
    int i = 0;
    for (; 2 * i + 1 < w; i++) {
        ev[i] = row[2 * i];
        od[i] = row[2 * i + 1];
    }
    if (2 * i < w)
        ev[i] = row[2 * i];
}

/* acc[ow] = max/sum(acc[ow], half[ow + q]) for ow in [lo, hi). */
static void o2h_pool_tap1(int is_max, const float *half, int q, int lo, int hi, float *acc)
{
    if (is_max) {
        for (int ow = lo; ow < hi; ow++)
            acc[ow] = half[ow + q] > acc[ow] ? half[ow + q] : acc[ow];
    } else {
        for (int ow = lo; ow < hi; ow++)
            acc[ow] += half[ow + q];
    }
}

/* The kw taps of one input row (its start at row) into the output row yr. */
static void o2h_pool_row_taps(const O2hPool2d *p, int is_max, const float *row, float *yr)
{
    float ev[O2H_POOL_SPLIT_W / 2], od[O2H_POOL_SPLIT_W / 2];
    int split = o2h_pool_split_ok(p);
    if (split)
        o2h_pool_split_row(row, p->W, ev, od);
    for (int kw = 0; kw < p->KW; kw++) {
        int off = kw * p->DW - p->PL;
        int lo = o2h_cdiv(-off, p->SW), hi = o2h_cdiv(p->W - off, p->SW);
        lo = lo < 0 ? 0 : lo;
        hi = hi > p->WO ? p->WO : hi;
        if (lo >= hi)
            continue;
        if (split)   /* column 2 * ow + off is half (off & 1) at ow + floor(off / 2) */
            o2h_pool_tap1(is_max, off & 1 ? od : ev, (off - (off & 1)) / 2, lo, hi, yr);
        else
            o2h_pool_tap(is_max, row, p->SW, off, lo, hi, yr);
    }
}

/* One plane, row by row: each (kh, kw) tap is a vectorizable pass over the
 * output columns where that tap lands inside the image. */
static void o2h_pool_plane(const O2hPool2d *p, int is_max, const float *x, float *y)
{
    for (int oh = 0; oh < p->HO; oh++) {
        int h0, h1, hc;
        float *yr = y + (size_t)oh * p->WO;
        o2h_pool_axis(oh, p->SH, p->DH, p->KH, p->PT, p->PB, p->H, &h0, &h1, &hc);
        for (int ow = 0; ow < p->WO; ow++)
            yr[ow] = is_max ? -INFINITY : 0.0f;
        for (int kh = h0; kh < h1; kh++)
            o2h_pool_row_taps(p, is_max, x + (size_t)(oh * p->SH - p->PT + kh * p->DH) * p->W, yr);
        if (is_max)
            continue;
        for (int ow = 0; ow < p->WO; ow++) {
            int w0, w1, wc;
            o2h_pool_axis(ow, p->SW, p->DW, p->KW, p->PL, p->PR, p->W, &w0, &w1, &wc);
            int cnt = p->count_include_pad ? hc * wc : (h1 - h0) * (w1 - w0);
            yr[ow] = cnt > 0 ? yr[ow] / (float)cnt : 0.0f;
        }
    }
}

static void o2h_pool(const O2hPool2d *p, int is_max, const float *x, float *y)
{
    size_t planes = (size_t)p->N * p->C, hw = (size_t)p->H * p->W, hwo = (size_t)p->HO * p->WO;
    for (size_t i = 0; i < planes; i++)
        o2h_pool_plane(p, is_max, x + i * hw, y + i * hwo);
}

void o2h_maxpool2d_f32(const O2hPool2d *p, const float *x, float *y) { o2h_pool(p, 1, x, y); }
void o2h_avgpool2d_f32(const O2hPool2d *p, const float *x, float *y) { o2h_pool(p, 0, x, y); }

#if O2H_VEC
static float o2h_plane_sum(const float *x, int64_t n)
{
    o2h_vf a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    int64_t i = 0;
    for (; i + 4 * O2H_VL <= n; i += 4 * O2H_VL) {
        a0 += o2h_vload(x + i);
        a1 += o2h_vload(x + i + O2H_VL);
        a2 += o2h_vload(x + i + 2 * O2H_VL);
        a3 += o2h_vload(x + i + 3 * O2H_VL);
    }
    for (; i + O2H_VL <= n; i += O2H_VL)
        a0 += o2h_vload(x + i);
    a0 = (a0 + a1) + (a2 + a3);
    float s = 0.0f;
    for (int l = 0; l < O2H_VL; l++)
        s += a0[l];
    for (; i < n; i++)
        s += x[i];
    return s;
}

static float o2h_plane_max(const float *x, int64_t n)
{
    o2h_vf a0 = o2h_vset1(-INFINITY), a1 = a0;
    int64_t i = 0;
    for (; i + 2 * O2H_VL <= n; i += 2 * O2H_VL) {
        a0 = o2h_vmax(a0, o2h_vload(x + i));
        a1 = o2h_vmax(a1, o2h_vload(x + i + O2H_VL));
    }
    a0 = o2h_vmax(a0, a1);
    float m = -INFINITY;
    for (int l = 0; l < O2H_VL; l++)
        m = a0[l] > m ? a0[l] : m;
    for (; i < n; i++)
        m = x[i] > m ? x[i] : m;
    return m;
}
#else
static float o2h_plane_sum(const float *x, int64_t n)
{
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += x[i];
        s1 += x[i + 1];
        s2 += x[i + 2];
        s3 += x[i + 3];
    }
    for (; i < n; i++)
        s0 += x[i];
    return (s0 + s1) + (s2 + s3);
}

static float o2h_plane_max(const float *x, int64_t n)
{
    float m = -INFINITY;
    for (int64_t i = 0; i < n; i++)
        m = x[i] > m ? x[i] : m;
    return m;
}
#endif

float o2h_sum_n(const float *x, int64_t n) { return o2h_plane_sum(x, n); }
float o2h_max_n(const float *x, int64_t n) { return o2h_plane_max(x, n); }

void o2h_global_avgpool_f32(int64_t nc, int64_t hw, const float *x, float *y)
{
    for (int64_t i = 0; i < nc; i++)
        y[i] = hw > 0 ? o2h_plane_sum(x + i * hw, hw) / (float)hw : 0.0f;
}

void o2h_global_maxpool_f32(int64_t nc, int64_t hw, const float *x, float *y)
{
    for (int64_t i = 0; i < nc; i++)
        y[i] = o2h_plane_max(x + i * hw, hw);
}
