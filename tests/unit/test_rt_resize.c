/* test_rt_resize.c - Resize against the values of the ONNX operator
 * documentation examples (nearest, linear, cubic with their coordinate
 * modes) and against a per-pixel bilinear reference written out here for
 * 4-D inputs with odd scales, downsampling and a resized batch axis. */
#include "test_rt_util.h"

static O2hResize mk(int rank, const int64_t *in, const int64_t *out, int mode, int coord,
                    int nearest)
{
    O2hResize p;
    memset(&p, 0, sizeof p);
    p.rank = rank;
    for (int d = 0; d < rank; d++) {
        p.in_dims[d] = in[d];
        p.out_dims[d] = out[d];
        p.scale[d] = (float)out[d] / (float)in[d];
    }
    p.mode = mode;
    p.coord = coord;
    p.nearest = nearest;
    p.cubic_a = -0.75f;
    return p;
}

static void test_doc_examples(void)
{
    float x22[] = {1, 2, 3, 4}, y[64];
    int64_t in[] = {1, 1, 2, 2};
    /* resize_upsample_scales_nearest: scales [1,1,2,3], half_pixel, round_prefer_floor */
    {
        int64_t out[] = {1, 1, 4, 6};
        O2hResize p = mk(4, in, out, 0, 0, 0);
        float want[] = {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4};
        o2h_resize_f32(&p, x22, y);
        rt_compare_f("nearest upsample", y, want, 24, 0);
    }
    /* resize_upsample_scales_linear: half_pixel */
    {
        int64_t out[] = {1, 1, 4, 4};
        O2hResize p = mk(4, in, out, 1, 0, 0);
        float want[] = {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f,
                        2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4};
        o2h_resize_f32(&p, x22, y);
        rt_compare_f("linear half_pixel", y, want, 16, 1e-6);
        /* resize_upsample_scales_linear_align_corners */
        p.coord = 2;
        float want2[] = {1, 1.33333333f, 1.66666667f, 2, 1.66666667f, 2, 2.33333333f, 2.66666667f,
                         2.33333333f, 2.66666667f, 3, 3.33333333f, 3, 3.33333333f, 3.66666667f, 4};
        o2h_resize_f32(&p, x22, y);
        rt_compare_f("linear align_corners", y, want2, 16, 1e-6);
    }
    /* resize_downsample_scales_nearest: [[1,2,3,4],[5,6,7,8]] scales 0.6 -> [[1, 3]] */
    {
        float x24[] = {1, 2, 3, 4, 5, 6, 7, 8};
        int64_t i2[] = {1, 1, 2, 4}, o2[] = {1, 1, 1, 2};
        O2hResize p = mk(4, i2, o2, 0, 0, 0);
        p.scale[2] = 0.6f;
        p.scale[3] = 0.6f;
        float want[] = {1, 3};
        o2h_resize_f32(&p, x24, y);
        rt_compare_f("nearest downsample", y, want, 2, 0);
        /* resize_downsample_scales_linear: -> [[2.6666665, 4.3333331]] */
        p.mode = 1;
        float want2[] = {2.6666665f, 4.3333331f};
        o2h_resize_f32(&p, x24, y);
        rt_compare_f("linear downsample", y, want2, 2, 1e-6);
    }
    /* resize_upsample_scales_cubic: 4x4 of 1..16, scales 2, half_pixel, A=-0.75 */
    {
        float x44[16];
        for (int i = 0; i < 16; i++)
            x44[i] = (float)(i + 1);
        int64_t i4[] = {1, 1, 4, 4}, o8[] = {1, 1, 8, 8};
        O2hResize p = mk(4, i4, o8, 2, 0, 0);
        float want[] = {0.47265625f, 0.76953125f, 1.24609375f, 1.875f,
                        2.28125f, 2.91015625f, 3.38671875f, 3.68359375f};
        o2h_resize_f32(&p, x44, y);
        rt_compare_f("cubic row 0", y, want, 8, 1e-5);
        /* resize_upsample_scales_cubic_asymmetric, first row */
        p.coord = 1;
        float want2[] = {1.0f, 1.40625f, 2.0f, 2.5f, 3.0f, 3.59375f, 4.0f, 4.09375f};
        o2h_resize_f32(&p, x44, y);
        rt_compare_f("cubic asymmetric row 0", y, want2, 8, 1e-5);
    }
}

/* Bilinear with per-axis coordinate transform, written per pixel. */
static double ref_coord(int coord, int o, int in, int out, double s)
{
    switch (coord) {
    case 0: return (o + 0.5) / s - 0.5;
    case 1: return o / s;
    case 2: return out > 1 ? o * (double)(in - 1) / (out - 1) : 0.0;
    case 3: return out > 1 ? (o + 0.5) / s - 0.5 : 0.0;
    }
    return 0;
}

static int ref_clampi(int i, int n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }

static void run_bilinear(int N, int C, int H, int W, int HO, int WO, int coord)
{
    int64_t in[] = {N, C, H, W}, out[] = {N, C, HO, WO};
    O2hResize p = mk(4, in, out, 1, coord, 0);
    size_t nx = (size_t)N * C * H * W, ny = (size_t)N * C * HO * WO;
    float *x = rt_random(nx), *y = rt_alloc(ny);
    double *ref = malloc(ny * sizeof(double));
    for (int pl = 0; pl < N * C; pl++)
        for (int oh = 0; oh < HO; oh++)
            for (int ow = 0; ow < WO; ow++) {
                double fy = ref_coord(coord, oh, H, HO, (double)HO / H);
                double fx = ref_coord(coord, ow, W, WO, (double)WO / W);
                fy = fy < 0 ? 0 : fy > H - 1 ? H - 1 : fy;
                fx = fx < 0 ? 0 : fx > W - 1 ? W - 1 : fx;
                int y0 = (int)floor(fy), x0 = (int)floor(fx);
                int y1 = ref_clampi(y0 + 1, H), x1 = ref_clampi(x0 + 1, W);
                double wy = fy - y0, wx = fx - x0;
                const float *xp = x + (size_t)pl * H * W;
                ref[((size_t)pl * HO + oh) * WO + ow] =
                    (1 - wy) * ((1 - wx) * xp[y0 * W + x0] + wx * xp[y0 * W + x1]) +
                    wy * ((1 - wx) * xp[y1 * W + x0] + wx * xp[y1 * W + x1]);
            }
    o2h_resize_f32(&p, x, y);
    char what[96];
    snprintf(what, sizeof what, "bilinear %dx%d->%dx%d coord %d", H, W, HO, WO, coord);
    rt_compare(what, y, ref, ny, 1e-5);
    free(x);
    free(y);
    free(ref);
}

/* Nearest with every rounding mode against floor/ceil written out. */
static void run_nearest(int H, int W, int HO, int WO, int coord, int nearest)
{
    int64_t in[] = {1, 2, H, W}, out[] = {1, 2, HO, WO};
    O2hResize p = mk(4, in, out, 0, coord, nearest);
    size_t nx = (size_t)2 * H * W, ny = (size_t)2 * HO * WO;
    float *x = rt_random(nx), *y = rt_alloc(ny);
    double *ref = malloc(ny * sizeof(double));
    for (int pl = 0; pl < 2; pl++)
        for (int oh = 0; oh < HO; oh++)
            for (int ow = 0; ow < WO; ow++) {
                double c[2] = {ref_coord(coord, oh, H, HO, (double)HO / H),
                               ref_coord(coord, ow, W, WO, (double)WO / W)};
                int ix[2];
                for (int k = 0; k < 2; k++) {
                    double f = floor(c[k]), fr = c[k] - f;
                    double r = nearest == 0 ? (fr <= 0.5 ? f : f + 1)
                             : nearest == 1 ? (fr < 0.5 ? f : f + 1)
                             : nearest == 2 ? f : ceil(c[k]);
                    ix[k] = ref_clampi((int)r, k == 0 ? H : W);
                }
                ref[((size_t)pl * HO + oh) * WO + ow] = x[((size_t)pl * H + ix[0]) * W + ix[1]];
            }
    o2h_resize_f32(&p, x, y);
    char what[96];
    snprintf(what, sizeof what, "nearest %dx%d->%dx%d coord %d mode %d", H, W, HO, WO, coord,
             nearest);
    rt_compare(what, y, ref, ny, 0);
    free(x);
    free(y);
    free(ref);
}

static void test_generic(void)
{
    for (int coord = 0; coord < 4; coord++) {
        run_bilinear(1, 3, 5, 7, 10, 14, coord);
        run_bilinear(2, 2, 8, 8, 3, 5, coord);
        run_bilinear(1, 1, 4, 6, 11, 1, coord);
        for (int nm = 0; nm < 4; nm++) {
            run_nearest(4, 6, 8, 12, coord, nm);
            run_nearest(9, 7, 4, 3, coord, nm);
            run_nearest(3, 3, 7, 5, coord, nm);
        }
    }
    /* a resized batch axis combined with H: 3-D linear */
    int64_t in[] = {2, 1, 3, 4}, out[] = {4, 1, 6, 4};
    O2hResize p = mk(4, in, out, 1, 1, 0);
    float x[24], y[96];
    for (int i = 0; i < 24; i++)
        x[i] = (float)i;
    o2h_resize_f32(&p, x, y);
    /* asymmetric linear on a linear ramp reproduces the ramp, clamped */
    int bad = 0;
    for (int n = 0; n < 4; n++)
        for (int h = 0; h < 6; h++)
            for (int w = 0; w < 4; w++) {
                double fn = n / 2.0 > 1 ? 1 : n / 2.0, fh = h / 2.0 > 2 ? 2 : h / 2.0;
                double want = fn * 12 + fh * 4 + w;
                if (fabs(y[(n * 6 + h) * 4 + w] - want) > 1e-5)
                    bad++;
            }
    CHECK_EQ_INT(bad, 0);
}

int main(void)
{
    test_doc_examples();
    test_generic();
    return check_done();
}
