/* test_rt_pool.c - max and average pooling with pads, strides, dilations,
 * ceil-mode output sizes (windows running past the padded input) and both
 * count_include_pad settings; global pools over small and large planes. */
#include "test_rt_util.h"

static int out_size(int n, int k, int s, int d, int p0, int p1, int ceil_mode)
{
    int span = n + p0 + p1 - ((k - 1) * d + 1);
    int o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (o - 1) * s >= n + p0)
        o--;
    return o;
}

static void ref_pool(const O2hPool2d *p, int is_max, const float *x, double *y)
{
    for (int pl = 0; pl < p->N * p->C; pl++)
        for (int oh = 0; oh < p->HO; oh++)
            for (int ow = 0; ow < p->WO; ow++) {
                double acc = is_max ? -INFINITY : 0.0;
                int cnt = 0, cntpad = 0;
                for (int kh = 0; kh < p->KH; kh++)
                    for (int kw = 0; kw < p->KW; kw++) {
                        int ih = oh * p->SH - p->PT + kh * p->DH;
                        int iw = ow * p->SW - p->PL + kw * p->DW;
                        if (ih >= -p->PT && ih < p->H + p->PB && iw >= -p->PL && iw < p->W + p->PR)
                            cntpad++;
                        if (ih < 0 || ih >= p->H || iw < 0 || iw >= p->W)
                            continue;
                        double v = x[((size_t)pl * p->H + ih) * p->W + iw];
                        cnt++;
                        if (is_max)
                            acc = v > acc ? v : acc;
                        else
                            acc += v;
                    }
                if (!is_max) {
                    int c = p->count_include_pad ? cntpad : cnt;
                    acc = c ? acc / c : 0.0;
                }
                y[((size_t)pl * p->HO + oh) * p->WO + ow] = acc;
            }
}

static void run_pool(int N, int C, int H, int W, int KH, int KW, int SH, int SW, int DH, int DW,
                     int PT, int PL, int PB, int PR, int ceil_mode)
{
    O2hPool2d p = {N, C, H, W, 0, 0, KH, KW, SH, SW, DH, DW, PT, PL, PB, PR, 0};
    p.HO = out_size(H, KH, SH, DH, PT, PB, ceil_mode);
    p.WO = out_size(W, KW, SW, DW, PL, PR, ceil_mode);
    size_t nx = (size_t)N * C * H * W, ny = (size_t)N * C * p.HO * p.WO;
    float *x = rt_random(nx), *y = rt_alloc(ny);
    double *ref = (double *)malloc(ny * sizeof(double));
    char what[160];
    snprintf(what, sizeof what, "pool %dx%d k%dx%d s%d,%d d%d,%d p%d,%d,%d,%d ceil=%d", H, W, KH,
             KW, SH, SW, DH, DW, PT, PL, PB, PR, ceil_mode);
    o2h_maxpool2d_f32(&p, x, y);
    ref_pool(&p, 1, x, ref);
    rt_compare(what, y, ref, ny, 1e-6);
    for (int cip = 0; cip < 2; cip++) {
        p.count_include_pad = cip;
        o2h_avgpool2d_f32(&p, x, y);
        ref_pool(&p, 0, x, ref);
        rt_compare(what, y, ref, ny, 1e-6);
    }
    free(x); free(y); free(ref);
}

static void test_pools(void)
{
    run_pool(1, 3, 8, 8, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0);
    run_pool(2, 2, 9, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0);
    run_pool(1, 4, 112, 112, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0);   /* ResNet stem pool */
    run_pool(1, 2, 10, 10, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1);     /* ceil mode */
    run_pool(1, 2, 11, 7, 3, 2, 2, 3, 1, 1, 1, 0, 1, 0, 1);
    run_pool(1, 2, 6, 6, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1);
    run_pool(1, 2, 12, 12, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 0);     /* dilation */
    run_pool(1, 1, 13, 13, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1);
    run_pool(1, 2, 5, 5, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 0);
    run_pool(1, 2, 7, 7, 7, 7, 1, 1, 1, 1, 0, 0, 0, 0, 0);       /* global-like */
    run_pool(1, 2, 5, 8, 2, 4, 2, 3, 1, 1, 0, 1, 1, 2, 1);       /* asymmetric pads */
    run_pool(1, 3, 1, 20, 1, 3, 1, 2, 1, 1, 0, 1, 0, 1, 1);      /* 1-D */
}

static void test_global(void)
{
    int64_t hws[] = {1, 7, 49, 64, 65, 3137};
    for (size_t i = 0; i < sizeof hws / sizeof hws[0]; i++) {
        int64_t nc = 5, hw = hws[i];
        float *x = rt_random((size_t)(nc * hw)), *y = rt_alloc((size_t)nc);
        double ref[5];
        for (int64_t c = 0; c < nc; c++) {
            double s = 0;
            for (int64_t j = 0; j < hw; j++)
                s += x[c * hw + j];
            ref[c] = s / (double)hw;
        }
        o2h_global_avgpool_f32(nc, hw, x, y);
        rt_compare("global avg", y, ref, (size_t)nc, 1e-6);
        for (int64_t c = 0; c < nc; c++) {
            double m = -INFINITY;
            for (int64_t j = 0; j < hw; j++)
                m = x[c * hw + j] > m ? x[c * hw + j] : m;
            ref[c] = m;
        }
        o2h_global_maxpool_f32(nc, hw, x, y);
        rt_compare("global max", y, ref, (size_t)nc, 0.0);
        free(x);
        free(y);
    }
}

int main(void)
{
    test_pools();
    test_global();
    return check_done();
}
