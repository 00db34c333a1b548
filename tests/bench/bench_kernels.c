/* bench_kernels.c - throughput of the runtime's conv and gemm kernels on the
 * layer shapes of MobileNetV1, MobileNetV2, ResNet-18 and EfficientNet-B0 (not a ctest).
 *
 * Why it exists: the host program's speed is set by a handful of kernel
 * paths (pointwise GEMM, im2col GEMM, depthwise rows, fully connected), and
 * tuning them needs per-shape GFLOP/s plus the summed time of a whole
 * network's convs, measured the way the generated program calls them (packed
 * weights, caller scratch, fused epilogue). Each shape reports the best of
 * several timed batches, since the machine may be shared.
 *
 * Build and run (same flags as a generated host program):
 *   cc -O3 -march=native -Iruntime tests/bench/bench_kernels.c runtime/rt_*.c -lm -o bench
 *   ./bench [filter]      (filter: substring of the shape names to run) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "o2h_rt.h"
#include "o2h_rt_int.h"

typedef struct {
    double ms;      /* best time per call */
    double gflops;
} BenchResult;

static float *bench_buf(size_t n)
{
    float *p = (float *)malloc((n ? n : 1) * sizeof(float));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++)
        p[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
    return p;
}

static O2hConv2d bench_conv_desc(int C, int H, int W, int F, int K, int S, int G)
{
    O2hConv2d p;
    memset(&p, 0, sizeof p);
    p.N = 1; p.C = C; p.H = H; p.W = W; p.F = F;
    p.KH = p.KW = K; p.SH = p.SW = S; p.DH = p.DW = 1;
    p.PT = p.PL = p.PB = p.PR = K / 2;
    p.G = G;
    p.HO = (H + 2 * (K / 2) - K) / S + 1;
    p.WO = (W + 2 * (K / 2) - K) / S + 1;
    return p;
}

/* Time one conv (relu6 epilogue, bias) and return the best ms per call. */
static BenchResult bench_conv(const O2hConv2d *p)
{
    size_t nx = (size_t)p->N * p->C * p->H * p->W, ny = (size_t)p->N * p->F * p->HO * p->WO;
    size_t nw = (size_t)p->F * (p->C / p->G) * p->KH * p->KW;
    float *x = bench_buf(nx), *w = bench_buf(nw), *b = bench_buf((size_t)p->F);
    float *y = bench_buf(ny);
    size_t ps = o2h_conv2d_packed_size(p);
    float *wp = ps ? bench_buf(ps) : NULL;
    float *scr = bench_buf(o2h_conv2d_scratch_size(p));
    O2hEpilogue e = {O2H_ACT_CLIP, 0.0f, 6.0f, NULL, 0, NULL};
    if (wp)
        o2h_conv2d_pack(p, w, wp);
    double macs = (double)ny * (p->C / p->G) * p->KH * p->KW;
    double best = 1e30;
    int reps = (int)(2e7 / (macs + 1e4)) + 1;
    o2h_conv2d_f32(p, x, wp ? wp : w, b, &e, y, scr);
    for (int round = 0; round < 7; round++) {
        double t0 = o2h_now_ms();
        for (int r = 0; r < reps; r++)
            o2h_conv2d_f32(p, x, wp ? wp : w, b, &e, y, scr);
        double t = (o2h_now_ms() - t0) / reps;
        best = t < best ? t : best;
    }
    free(x); free(w); free(b); free(y); free(wp); free(scr);
    BenchResult r = {best, 2.0 * macs / (best * 1e6)};
    return r;
}

/* The same conv in int8 (packed weights, per-channel requantization). */
static BenchResult bench_conv_s8(const O2hConv2d *p)
{
    size_t nx = (size_t)p->N * p->C * p->H * p->W, ny = (size_t)p->N * p->F * p->HO * p->WO;
    size_t nw = (size_t)p->F * (p->C / p->G) * p->KH * p->KW;
    int8_t *x = malloc(nx), *w = malloc(nw), *y = malloc(ny);
    int32_t *b = malloc((size_t)p->F * 4), *m = malloc((size_t)p->F * 4);
    uint8_t *sh = malloc((size_t)p->F);
    void *wp = malloc(o2h_conv2d_s8_packed_size(p)), *scr = malloc(o2h_conv2d_s8_packed_scratch(p) + 64);
    for (size_t i = 0; i < nx; i++)
        x[i] = (int8_t)((i * 2654435761u) >> 24);
    for (size_t i = 0; i < nw; i++)
        w[i] = (int8_t)(((i * 40503u) >> 8) % 255 - 127);
    for (int f = 0; f < p->F; f++)
        b[f] = f * 37 - 1000, m[f] = 1234567890, sh[f] = 40;
    O2hRequant rq = {p->F, m, sh, -3, -128, 127};
    o2h_conv2d_s8_pack(p, w, b, wp);
    double macs = (double)ny * (p->C / p->G) * p->KH * p->KW, best = 1e30;
    int reps = (int)(2e7 / (macs + 1e4)) + 1;
    for (int round = 0; round < 7; round++) {
        double t0 = o2h_now_ms();
        for (int r = 0; r < reps; r++)
            o2h_conv2d_s8_packed(p, 5, &rq, x, wp, y, scr);
        double t = (o2h_now_ms() - t0) / reps;
        best = t < best ? t : best;
    }
    free(x); free(w); free(y); free(b); free(m); free(sh); free(wp); free(scr);
    BenchResult r = {best, 2.0 * macs / (best * 1e6)};
    return r;
}

static BenchResult bench_fc(int K, int N)
{
    O2hGemm p = {1, N, K, 0, 1, 1.0f, 1.0f, 1, N};
    float *a = bench_buf((size_t)K), *b = bench_buf((size_t)K * N), *c = bench_buf((size_t)N);
    float *y = bench_buf((size_t)N), *bp = bench_buf(o2h_gemm_packed_size(&p));
    float *scr = bench_buf(o2h_gemm_scratch_size(&p));
    o2h_gemm_pack_b(&p, b, bp);
    double best = 1e30;
    for (int round = 0; round < 7; round++) {
        double t0 = o2h_now_ms();
        for (int r = 0; r < 20; r++)
            o2h_gemm_f32(&p, a, bp, c, NULL, y, scr);
        double t = (o2h_now_ms() - t0) / 20;
        best = t < best ? t : best;
    }
    free(a); free(b); free(c); free(y); free(bp); free(scr);
    BenchResult r = {best, 2.0 * K * N / (best * 1e6)};
    return r;
}

/* Element-wise kernels a network runs between its convs, per element. */
static void bench_eltwise(void)
{
    size_t n = 96 * 112 * 112;
    float *x = bench_buf(n), *y = bench_buf(n), *s = bench_buf(96);
    O2hEpilogue silu = {O2H_ACT_SILU, 0, 0, NULL, 0, NULL};
    O2hEpilogue relu6 = {O2H_ACT_CLIP, 0.0f, 6.0f, NULL, 0, NULL};
    O2hBroadcast bc;
    memset(&bc, 0, sizeof bc);
    bc.rank = 4;
    int64_t yd[4] = {1, 96, 112, 112}, sd[4] = {1, 96, 1, 1};
    memcpy(bc.a_dims, yd, sizeof yd);
    memcpy(bc.b_dims, sd, sizeof sd);
    memcpy(bc.y_dims, yd, sizeof yd);
    O2hPool2d mp = {1, 64, 112, 112, 56, 56, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0};
    O2hResize rs;
    memset(&rs, 0, sizeof rs);
    rs.rank = 4;
    int64_t ri[4] = {1, 24, 56, 56}, ro[4] = {1, 24, 112, 112};
    for (int d = 0; d < 4; d++) {
        rs.in_dims[d] = ri[d];
        rs.out_dims[d] = ro[d];
        rs.scale[d] = (float)ro[d] / (float)ri[d];
    }
    for (int k = 0; k < 9; k++) {
        double best = 1e30;
        for (int round = 0; round < 7; round++) {
            double t0 = o2h_now_ms();
            switch (k) {
            case 0: o2h_act_f32(&silu, y, n, 0); break;
            case 1: o2h_unary_f32(O2H_UN_SIGMOID, 0, 0, x, y, n); break;
            case 2: o2h_act_f32(&relu6, y, n, 0); break;
            case 3: o2h_binary_f32(O2H_BIN_MUL, &bc, x, s, NULL, y); break;
            case 4: o2h_global_avgpool_f32(96, 112 * 112, x, s); break;
            case 5: o2h_maxpool2d_f32(&mp, x, y); break;
            case 6: rs.mode = 0; o2h_resize_f32(&rs, x, y); break;
            case 7: rs.mode = 1; o2h_resize_f32(&rs, x, y); break;
            case 8: bc.b_dims[1] = 96; bc.b_dims[2] = bc.b_dims[3] = 112;
                    o2h_binary_f32(O2H_BIN_ADD, &bc, x, x, &relu6, y); break;
            }
            double t = o2h_now_ms() - t0;
            best = t < best ? t : best;
            memcpy(y, x, n * sizeof *y);
        }
        static const char *names[] = {"silu (act)", "sigmoid (unary)", "relu6 (act)",
                                      "mul per-channel", "global avgpool",
                                      "maxpool 3x3 s2 64x112x112 (per input)",
                                      "resize nearest x2 24x56x56 (per output)",
                                      "resize linear x2 24x56x56 (per output)",
                                      "add same shape + relu6"};
        size_t cnt = k == 5 ? (size_t)64 * 112 * 112 : k == 6 || k == 7 ? (size_t)24 * 112 * 112 : n;
        printf("  %-44s %8.4f ms %7.3f ns/elem\n", names[k], best, best * 1e6 / (double)cnt);
    }
    free(x); free(y); free(s);
}

/* ------------------------------------------------------------ networks */

typedef struct {
    const char *net;
    double f_ms[3], q_ms[3];   /* float and int8 time: pointwise, depthwise, other */
    const char *filter;
} NetSum;

static void net_layer(NetSum *s, int C, int H, int F, int K, int S, int G)
{
    char name[96];
    const char *kind = G > 1 && G == C ? "dw" : K == 1 && S == 1 ? "pw" : "conv";
    snprintf(name, sizeof name, "%s %s %dx%d %d->%d k%d s%d", s->net, kind, H, H, C, F, K, S);
    if (s->filter && !strstr(name, s->filter))
        return;
    O2hConv2d p = bench_conv_desc(C, H, H, F, K, S, G);
    BenchResult r = bench_conv(&p), q = bench_conv_s8(&p);
    int i = kind[0] == 'p' ? 0 : kind[0] == 'd' ? 1 : 2;
    s->f_ms[i] += r.ms;
    s->q_ms[i] += q.ms;
    printf("  %-40s %8.4f ms %6.1f GFLOP/s | int8 %8.4f ms %6.1f GOP/s  %5.2fx\n", name, r.ms, r.gflops, q.ms,
           q.gflops, q.ms / r.ms);
}

static void net_report(const NetSum *s)
{
    double f = s->f_ms[0] + s->f_ms[1] + s->f_ms[2], q = s->q_ms[0] + s->q_ms[1] + s->q_ms[2];
    printf("%s convs float: total %.3f ms (pointwise %.3f, depthwise %.3f, other %.3f)\n", s->net, f, s->f_ms[0],
           s->f_ms[1], s->f_ms[2]);
    printf("%s convs int8:  total %.3f ms (pointwise %.3f, depthwise %.3f, other %.3f), int8/float %.2f\n", s->net,
           q, s->q_ms[0], s->q_ms[1], s->q_ms[2], f > 0 ? q / f : 0.0);
}

static void bench_mobilenetv2(const char *filter)
{
    NetSum s = {"mbv2", {0}, {0}, filter};
    static const int cfg[][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                 {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    int c = 32, h = 112;
    net_layer(&s, 3, 224, 32, 3, 2, 1);
    for (int i = 0; i < 7; i++)
        for (int n = 0; n < cfg[i][2]; n++) {
            int st = n == 0 ? cfg[i][3] : 1, hid = c * cfg[i][0];
            if (cfg[i][0] != 1)
                net_layer(&s, c, h, hid, 1, 1, 1);
            net_layer(&s, hid, h, hid, 3, st, hid);
            h = (h + 2 - 3) / st + 1;
            net_layer(&s, hid, h, cfg[i][1], 1, 1, 1);
            c = cfg[i][1];
        }
    net_layer(&s, 320, 7, 1280, 1, 1, 1);
    net_report(&s);
}

static void bench_mobilenetv1(const char *filter)
{
    NetSum s = {"mbv1", {0}, {0}, filter};
    /* output channels and stride of each depthwise-separable block */
    static const int cfg[][2] = {{64, 1}, {128, 2}, {128, 1}, {256, 2}, {256, 1}, {512, 2}, {512, 1},
                                 {512, 1}, {512, 1}, {512, 1}, {512, 1}, {1024, 2}, {1024, 1}};
    int c = 32, h = 112;
    net_layer(&s, 3, 224, 32, 3, 2, 1);
    for (int i = 0; i < 13; i++) {
        net_layer(&s, c, h, c, 3, cfg[i][1], c);
        h = (h + 2 - 3) / cfg[i][1] + 1;
        net_layer(&s, c, h, cfg[i][0], 1, 1, 1);
        c = cfg[i][0];
    }
    net_report(&s);
}

static void bench_resnet18(const char *filter)
{
    NetSum s = {"r18", {0}, {0}, filter};
    net_layer(&s, 3, 224, 64, 7, 2, 1);
    int c = 64, h = 56;
    static const int widths[] = {64, 128, 256, 512};
    for (int stage = 0; stage < 4; stage++)
        for (int blk = 0; blk < 2; blk++) {
            int f = widths[stage], st = stage > 0 && blk == 0 ? 2 : 1;
            net_layer(&s, c, h, f, 3, st, 1);
            int ho = (h + 2 - 3) / st + 1;
            net_layer(&s, f, ho, f, 3, 1, 1);
            if (st == 2)
                net_layer(&s, c, h, f, 1, 2, 1);
            c = f;
            h = ho;
        }
    net_report(&s);
}

static void bench_efficientnet_b0(const char *filter)
{
    NetSum s = {"effb0", {0}, {0}, filter};
    /* expand ratio, kernel, stride, out channels, repeats */
    static const int cfg[][5] = {{1, 3, 1, 16, 1}, {6, 3, 2, 24, 2}, {6, 5, 2, 40, 2},
                                 {6, 3, 2, 80, 3}, {6, 5, 1, 112, 3}, {6, 5, 2, 192, 4},
                                 {6, 3, 1, 320, 1}};
    int c = 32, h = 112;
    net_layer(&s, 3, 224, 32, 3, 2, 1);
    for (int i = 0; i < 7; i++)
        for (int n = 0; n < cfg[i][4]; n++) {
            int st = n == 0 ? cfg[i][2] : 1, hid = c * cfg[i][0], k = cfg[i][1];
            if (cfg[i][0] != 1)
                net_layer(&s, c, h, hid, 1, 1, 1);
            net_layer(&s, hid, h, hid, k, st, hid);
            h = (h + 2 * (k / 2) - k) / st + 1;
            net_layer(&s, hid, h, cfg[i][3], 1, 1, 1);
            c = cfg[i][3];
        }
    net_layer(&s, 320, 7, 1280, 1, 1, 1);
    net_report(&s);
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    if (!filter || strstr("fc", filter)) {
        BenchResult r = bench_fc(1280, 1000);
        printf("  fc 1280->1000 (M=1)                          %8.4f ms %7.1f GFLOP/s\n", r.ms,
               r.gflops);
        r = bench_fc(512, 1000);
        printf("  fc 512->1000 (M=1)                           %8.4f ms %7.1f GFLOP/s\n", r.ms,
               r.gflops);
    }
    if (!filter || strstr("eltwise", filter))
        bench_eltwise();
    bench_mobilenetv1(filter);
    bench_mobilenetv2(filter);
    bench_resnet18(filter);
    bench_efficientnet_b0(filter);
    return 0;
}
