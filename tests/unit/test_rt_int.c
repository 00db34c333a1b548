/* test_rt_int.c - the integer kernels against straightforward references.
 *
 * Why: the integer arithmetic is a contract (docs/numerics.md) that the HLS
 * engines must reproduce bit for bit, so every kernel is checked here for
 * exact equality with a naive loop written from the contract's formulas,
 * over shapes that reach every code path (pads, strides, dilations, groups,
 * depthwise, pointwise, tails of the 4-channel and pixel tiles), and the
 * requantization primitive over its edge cases with a 128-bit reference. */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime/o2h_rt_int.h"
#include "runtime/rt_int_internal.h"
#include "test_conv_ref.h"

/* ------------------------------------------------ references */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int32_t rnd_in(int32_t lo, int32_t hi)
{
    return (int32_t)(lo + (int64_t)(rnd() % (uint64_t)((int64_t)hi - lo + 1)));
}

/* floor((v*m + 2^(sh-1)) / 2^sh) in 128-bit arithmetic (>> of a negative
 * value is an arithmetic shift, floor, in gcc and clang) */
static __int128 ref_rq(int64_t v, int32_t m, int sh)
{
    __int128 p = (__int128)v * m;
    return sh == 0 ? p : (p + ((__int128)1 << (sh - 1))) >> sh;
}

static int32_t ref_out(int64_t acc, int32_t m, int sh, int32_t z, int32_t lo, int32_t hi)
{
    __int128 r = ref_rq(acc, m, sh) + z;
    return r < lo ? lo : r > hi ? hi : (int32_t)r;
}

/* ------------------------------------------------ requantization */

static void test_rq_edges(void)
{
    /* ties round up (toward +inf), negative values included */
    CHECK_EQ_INT(o2h_rq32(5, 1, 1), 3);    /*  2.5 ->  3 */
    CHECK_EQ_INT(o2h_rq32(-5, 1, 1), -2);  /* -2.5 -> -2 */
    CHECK_EQ_INT(o2h_rq32(-7, 1, 1), -3);  /* -3.5 -> -3 */
    CHECK_EQ_INT(o2h_rq32(-6, 1, 1), -3);
    CHECK_EQ_INT(o2h_rq32(3, 1, 2), 1);    /*  0.75 -> 1 */
    CHECK_EQ_INT(o2h_rq32(-3, 1, 2), -1);  /* -0.75 -> -1 */
    CHECK_EQ_INT(o2h_rq32(-2, 1, 2), 0);   /* -0.5 -> 0 */
    CHECK_EQ_INT(o2h_rq32(-1, 1, 2), 0);   /* -0.25 -> 0 */
    CHECK_EQ_INT(o2h_rq32(7, 3, 0), 21);
    CHECK_EQ_INT(o2h_rq32(1, 1 << 30, 31), 1);   /* 0.5 -> 1 */
    CHECK_EQ_INT(o2h_rq32(-1, 1 << 30, 31), 0);  /* -0.5 -> 0 */
    CHECK_EQ_INT(o2h_rq32(INT32_MAX, INT32_MAX, 63), 0);
    CHECK_EQ_INT(o2h_rq32(INT32_MIN, INT32_MAX, 62), -1);  /* -0.99.. -> -1 */
    CHECK_EQ_INT(o2h_rq64(INT64_MAX, INT32_MAX, 63), (int64_t)ref_rq(INT64_MAX, INT32_MAX, 63));
    CHECK_EQ_INT(o2h_rq64(INT64_MIN, INT32_MAX, 63), (int64_t)ref_rq(INT64_MIN, INT32_MAX, 63));
    CHECK_EQ_INT(o2h_rq64(-5, 1, 1), -2);
    /* saturation */
    CHECK_EQ_INT(o2h_clamp32(-1000 + o2h_rq32(1, 1, 0), -128, 127), -128);
    CHECK_EQ_INT(o2h_clamp32(1000, -128, 127), 127);
    CHECK_EQ_INT(o2h_clamp32(o2h_rq64(INT64_MAX, INT32_MAX, 0), -128, 127), 127);
    CHECK_EQ_INT(o2h_clamp32(o2h_rq64(INT64_MIN, INT32_MAX, 0), -128, 127), -128);
    /* floor shift of negatives */
    CHECK_EQ_INT(o2h_floor_shift(-1, 5), -1);
    CHECK_EQ_INT(o2h_floor_shift(-32, 5), -1);
    CHECK_EQ_INT(o2h_floor_shift(-33, 5), -2);
    CHECK_EQ_INT(o2h_floor_shift(INT64_MIN, 63), -1);
}

static void test_rq_random(void)
{
    int bad32 = 0, bad64 = 0;
    for (int sh = 0; sh <= O2H_RQ_MAX_SHIFT; sh++)
        for (int i = 0; i < 4000; i++) {
            int32_t m = (int32_t)(rnd() & 0x7fffffff);
            if (i % 7 == 0)
                m = 1 << (rnd() % 31);
            int64_t v32 = (int64_t)(int32_t)rnd();
            if (i % 5 == 0)
                v32 = (i & 1) ? INT32_MIN : INT32_MAX;
            /* exact ties: v*m = (2k+1) * 2^(sh-1) */
            if (i % 11 == 0 && sh > 0 && sh < 32) {
                m = 1 << (sh - 1);
                v32 = (int64_t)(rnd_in(-1000, 1000) * 2 + 1);
            }
            if (sh > 0 && v32 * m < ((int64_t)1 << 62) && (__int128)o2h_rq32(v32, m, sh) != ref_rq(v32, m, sh))
                bad32++;
            if (sh == 0 && (__int128)o2h_rq32(v32, m, 0) != ref_rq(v32, m, 0))
                bad32++;
            int64_t v64 = (int64_t)rnd();
            if (i % 3 == 0)
                v64 >>= rnd() % 60;
            __int128 r = ref_rq(v64, m, sh), cap = (__int128)1 << 62;
            __int128 want = r > cap ? cap : r < -cap ? -cap : r;
            if ((__int128)o2h_rq64(v64, m, sh) != want)
                bad64++;
            if ((__int128)o2h_rq64(v32, m, sh) != ref_rq(v32, m, sh))
                bad64++;
        }
    CHECK_EQ_INT(bad32, 0);
    CHECK_EQ_INT(bad64, 0);
}

/* ------------------------------------------------ float boundaries */

static void test_boundaries(void)
{
    float x[] = {0.0f, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 1000.0f, -1000.0f, 0.49999997f, NAN, INFINITY};
    int8_t q[12];
    o2h_quantize_f32_s8(x, q, 12, 1.0f, 0, -128, 127);
    int8_t want[] = {0, 0, 2, 2, 0, -2, -2, 127, -128, 0, 0, 127};
    for (int i = 0; i < 12; i++)
        CHECK_EQ_INT(q[i], want[i]);
    o2h_quantize_f32_s8(x, q, 3, 0.5f, -128, -128, 127);
    CHECK_EQ_INT(q[0], -128);
    CHECK_EQ_INT(q[1], -127);
    CHECK_EQ_INT(q[2], -125);
    int16_t q16[3];
    float xs[3] = {3.0f, -5000.0f, 5000.0f};
    o2h_quantize_f32_s16(xs, q16, 3, 0.25f, 0, -2048, 2047);
    CHECK_EQ_INT(q16[0], 12);
    CHECK_EQ_INT(q16[1], -2048);
    CHECK_EQ_INT(q16[2], 2047);
    int8_t d8[3] = {-128, 0, 127};
    float y[3];
    o2h_dequantize_s8_f32(d8, y, 3, 0.5f, -128);
    CHECK(y[0] == 0.0f && y[1] == 64.0f && y[2] == 127.5f);
    o2h_dequantize_s16_f32(q16, y, 3, 0.25f, 0);
    CHECK(y[0] == 3.0f && y[1] == -512.0f);
}

/* ------------------------------------------------ element-wise */

static void test_eltwise(void)
{
    int8_t a[60], b[60], y[60];
    int16_t a16[60], b16[60], y16[60];
    for (int i = 0; i < 60; i++) {
        a[i] = (int8_t)rnd_in(-128, 127);
        b[i] = (int8_t)rnd_in(-128, 127);
        a16[i] = (int16_t)rnd_in(-32768, 32767);
        b16[i] = (int16_t)rnd_in(-32768, 32767);
    }
    /* a [3,4,5] (+) b [3,1,5] */
    O2hBroadcast bc = {3, {3, 4, 5}, {3, 1, 5}, {3, 4, 5}};
    O2hEltQ q = {5, -7, 1200000000, -700000000, 33, -3, -100, 120};
    o2h_add_s8(&bc, &q, a, b, y);
    int bad = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 5; k++) {
                int ia = (i * 4 + j) * 5 + k, ib = i * 5 + k;
                __int128 s = (__int128)(a[ia] - 5) * 1200000000 + (__int128)(b[ib] + 7) * -700000000;
                __int128 r = ref_rq((int64_t)s, 1, 33) - 3;
                int32_t want = r < -100 ? -100 : r > 120 ? 120 : (int32_t)r;
                bad += y[ia] != want;
            }
    CHECK_EQ_INT(bad, 0);
    O2hEltQ qm = {3, -2, 1500000000, 0, 40, 1, -128, 127};
    o2h_mul_s8(&bc, &qm, a, b, y);
    bad = 0;
    for (int i = 0; i < 60; i++) {
        int ib = (i / 20) * 5 + i % 5;
        bad += y[i] != ref_out((int64_t)(a[i] - 3) * (b[ib] + 2), 1500000000, 40, 1, -128, 127);
    }
    CHECK_EQ_INT(bad, 0);
    /* same shapes, wide */
    O2hBroadcast same = {1, {60}, {60}, {60}};
    O2hEltQ q16 = {10, -20, 1 << 30, 1 << 29, 31, 4, -2048, 2047};
    o2h_add_s16(&same, &q16, a16, b16, y16);
    bad = 0;
    for (int i = 0; i < 60; i++) {
        __int128 s = (__int128)(a16[i] - 10) * (1 << 30) + (__int128)(b16[i] + 20) * (1 << 29);
        __int128 r = ref_rq((int64_t)s, 1, 31) + 4;
        bad += y16[i] != (r < -2048 ? -2048 : r > 2047 ? 2047 : (int32_t)r);
    }
    CHECK_EQ_INT(bad, 0);
    O2hEltQ qm16 = {0, 0, 1 << 30, 0, 45, 0, -32768, 32767};
    o2h_mul_s16(&same, &qm16, a16, b16, y16);
    bad = 0;
    for (int i = 0; i < 60; i++)
        bad += y16[i] != ref_out((int64_t)a16[i] * b16[i], 1 << 30, 45, 0, -32768, 32767);
    CHECK_EQ_INT(bad, 0);

    /* rescale, lut, concat */
    int32_t m = 1717986918;
    uint8_t sh = 32;
    O2hRequant rq = {1, &m, &sh, -10, -50, 127};
    o2h_rescale_s8(a, y, 60, 7, &rq);
    bad = 0;
    for (int i = 0; i < 60; i++)
        bad += y[i] != ref_out(a[i] - 7, m, 32, -10, -50, 127);
    CHECK_EQ_INT(bad, 0);
    o2h_rescale_s16(a16, y16, 60, 0, &rq);
    bad = 0;
    for (int i = 0; i < 60; i++)
        bad += y16[i] != ref_out(a16[i], m, 32, -10, -50, 127);
    CHECK_EQ_INT(bad, 0);
    int8_t table[256];
    for (int i = 0; i < 256; i++)
        table[i] = (int8_t)(127 - i);
    o2h_lut_s8(a, y, 60, table);
    bad = 0;
    for (int i = 0; i < 60; i++)
        bad += y[i] != (int8_t)(127 - (a[i] + 128));
    CHECK_EQ_INT(bad, 0);
    /* lut over every code, vector body and tail */
    int8_t lx[300], ly[300];
    for (int i = 0; i < 300; i++)
        lx[i] = (int8_t)(i * 37 + 11);
    for (int i = 0; i < 256; i++)
        table[i] = (int8_t)(i * 91 + 5);
    o2h_lut_s8(lx, ly, 300, table);
    bad = 0;
    for (int i = 0; i < 300; i++)
        bad += ly[i] != table[lx[i] + 128];
    CHECK_EQ_INT(bad, 0);
    /* channel broadcast both ways: [2,3,70] * [2,3,1] and [2,3,1] * [2,3,70] */
    {
        int8_t big[420], ch[6], out[420];
        for (int i = 0; i < 420; i++)
            big[i] = (int8_t)rnd_in(-128, 127);
        for (int i = 0; i < 6; i++)
            ch[i] = (int8_t)rnd_in(-128, 127);
        O2hBroadcast cb = {3, {2, 3, 70}, {2, 3, 1}, {2, 3, 70}};
        O2hBroadcast bc2 = {3, {2, 3, 1}, {2, 3, 70}, {2, 3, 70}};
        o2h_mul_s8(&cb, &qm, big, ch, out);
        bad = 0;
        for (int i = 0; i < 420; i++)
            bad += out[i] != ref_out((int64_t)(big[i] - 3) * (ch[i / 70] + 2), 1500000000, 40, 1, -128, 127);
        CHECK_EQ_INT(bad, 0);
        o2h_mul_s8(&bc2, &qm, ch, big, out);
        bad = 0;
        for (int i = 0; i < 420; i++)
            bad += out[i] != ref_out((int64_t)(ch[i / 70] - 3) * (big[i] + 2), 1500000000, 40, 1, -128, 127);
        CHECK_EQ_INT(bad, 0);
        o2h_add_s8(&cb, &q, big, ch, out);
        bad = 0;
        for (int i = 0; i < 420; i++) {
            __int128 s2 = (__int128)(big[i] - 5) * 1200000000 + (__int128)(ch[i / 70] + 7) * -700000000;
            __int128 r = ref_rq((int64_t)s2, 1, 33) - 3;
            bad += out[i] != (r < -100 ? -100 : r > 120 ? 120 : (int32_t)r);
        }
        CHECK_EQ_INT(bad, 0);
    }
    /* concat of [2][3][5] and [2][2][5] along axis 1: the second rescaled */
    const int8_t *xs[2] = {a, b};
    int64_t dims[2] = {3, 2};
    int32_t zs[2] = {0, 7};
    O2hRequant rqs[2] = {{1, NULL, NULL, 0, -128, 127}, rq};
    o2h_concat_s8(2, xs, dims, 2, 5, zs, rqs, y);
    bad = 0;
    for (int o = 0; o < 2; o++) {
        for (int i = 0; i < 15; i++)
            bad += y[o * 25 + i] != a[o * 15 + i];
        for (int i = 0; i < 10; i++)
            bad += y[o * 25 + 15 + i] != ref_out(b[o * 10 + i] - 7, m, 32, -10, -50, 127);
    }
    CHECK_EQ_INT(bad, 0);
    const int16_t *xs16[2] = {a16, b16};
    o2h_concat_s16(2, xs16, dims, 2, 5, zs, rqs, y16);
    bad = 0;
    for (int o = 0; o < 2; o++) {
        for (int i = 0; i < 15; i++)
            bad += y16[o * 25 + i] != a16[o * 15 + i];
        for (int i = 0; i < 10; i++)
            bad += y16[o * 25 + 15 + i] != ref_out(b16[o * 10 + i] - 7, m, 32, -10, -50, 127);
    }
    CHECK_EQ_INT(bad, 0);
}

/* ------------------------------------------------ convolution */

/* sum over taps of (x - zx) w for every output [n][f][oh][ow], in a fresh
 * array: taps in the pads read zx and add nothing, so they are skipped */
static int64_t *ref_conv_sums(const O2hConv2d *p, int32_t zx, const int32_t *x, const int32_t *w)
{
    int cg = p->C / p->G, fg = p->F / p->G;
    int64_t *acc = calloc((size_t)p->N * p->F * p->HO * p->WO, sizeof *acc);
    for (int n = 0; n < p->N; n++)
        for (int f = 0; f < p->F; f++)
            for (int c = 0; c < cg; c++)
                for (int kh = 0; kh < p->KH; kh++)
                    for (int kw = 0; kw < p->KW; kw++) {
                        int64_t wv = w[((f * cg + c) * p->KH + kh) * p->KW + kw];
                        int ow0 = ref_ow_first(p, kw), ow1 = ref_ow_last(p, kw);
                        const int32_t *xc = x + ((int64_t)n * p->C + f / fg * cg + c) * p->H * p->W;
                        for (int oh = 0; oh < p->HO; oh++) {
                            int ih = oh * p->SH - p->PT + kh * p->DH;
                            if (ih < 0 || ih >= p->H)
                                continue;
                            int64_t *a = acc + (((int64_t)n * p->F + f) * p->HO + oh) * p->WO;
                            int64_t at = (int64_t)ih * p->W + kw * p->DW - p->PL;   /* x index of ow = 0 */
                            for (int ow = ow0; ow <= ow1; ow++)
                                a[ow] += (xc[at + (int64_t)ow * p->SW] - zx) * wv;
                        }
                    }
    return acc;
}

/* Fill of conv_case's operands: random, or extremes (int8 inputs, weights
 * and zero points only -128 and 127 in random mixes; all -128, the largest
 * positive sums; inputs -128 against weights 127, the largest negative),
 * and the output clamp of a ReLU (lo = zero) or the int8 range. */
enum { FILL_RANDOM, FILL_EXTREME, FILL_MAX, FILL_MIN };
static int conv_fill = FILL_RANDOM, conv_relu;

static int32_t fill_val(int32_t lo, int32_t hi, int32_t want)
{
    switch (conv_fill) {
    case FILL_EXTREME: return rnd() & 1 ? 127 : -128;
    case FILL_MAX: return -128;
    case FILL_MIN: return want;
    default: return rnd_in(lo, hi);
    }
}

static void conv_case(int N, int C, int H, int W, int F, int K, int S, int D, int P, int G, int wide)
{
    O2hConv2d p = {.N = N, .C = C, .H = H, .W = W, .F = F, .KH = K, .KW = K, .SH = S, .SW = S,
                   .DH = D, .DW = D, .PT = P, .PL = P, .PB = P, .PR = P, .G = G};
    p.HO = (H + 2 * P - D * (K - 1) - 1) / S + 1;
    p.WO = (W + 2 * P - D * (K - 1) - 1) / S + 1;
    size_t nx = (size_t)N * C * H * W, nw = (size_t)F * (C / G) * K * K, ny = (size_t)N * F * p.HO * p.WO;
    int32_t *xi = malloc(nx * 4), *wi = malloc(nw * 4), *bq = malloc((size_t)F * 4);
    int32_t *mult = malloc((size_t)F * 4);
    uint8_t *shift = malloc((size_t)F);
    int32_t lo = wide ? -2048 : -128, hi = wide ? 2047 : 127, zx = wide ? 0 : rnd_in(-20, 20);
    int32_t xr = wide ? 2048 : 128;
    for (size_t i = 0; i < nx; i++)
        xi[i] = wide ? rnd_in(-xr, xr - 1) : fill_val(-xr, xr - 1, -128);
    for (size_t i = 0; i < nw; i++)
        wi[i] = wide ? rnd_in(-2047, 2047) : fill_val(-127, 127, 127);
    if (!wide && conv_fill != FILL_RANDOM)
        zx = conv_fill == FILL_EXTREME ? (rnd() & 1 ? 127 : -128) : conv_fill == FILL_MAX ? 127 : -128;
    for (int f = 0; f < F; f++) {
        bq[f] = rnd_in(-5000, 5000);
        mult[f] = (int32_t)((1u << 30) + (rnd() % (1u << 30)));
        shift[f] = (uint8_t)(wide ? 42 + f % 3 : 38 + f % 3);
    }
    int per_tensor = F % 2;   /* odd channel counts exercise one multiplier for all */
    O2hRequant rq = {per_tensor ? 1 : F, mult, shift, wide ? 3 : -5, conv_relu ? (wide ? 3 : -5) : lo + 10, hi};
    if (!wide && conv_fill != FILL_RANDOM)   /* sums up to 9 C 2^15: shifts that keep outputs in range */
        for (int f = 0; f < F; f++)
            shift[f] = (uint8_t)(46 + f % 3);
    int bad = 0;
    int64_t *sums = ref_conv_sums(&p, zx, xi, wi);
    if (!wide) {
        int8_t *x = malloc(nx), *w = malloc(nw), *y = malloc(ny);
        int32_t *bias = calloc((size_t)F, 4);
        for (size_t i = 0; i < nx; i++)
            x[i] = (int8_t)xi[i];
        for (size_t i = 0; i < nw; i++)
            w[i] = (int8_t)wi[i];
        for (int f = 0; f < F; f++) {
            int64_t sw = 0;
            for (size_t k = 0; k < nw / F; k++)
                sw += wi[f * (nw / F) + k];
            bias[f] = (int32_t)(bq[f] - zx * sw);
        }
        void *scratch = malloc(o2h_conv2d_s8_scratch(&p) + 64);
        o2h_conv2d_s8(&p, zx, &rq, x, w, bias, y, scratch);
        for (int n = 0; n < N; n++)
            for (int f = 0; f < F; f++)
                for (int oh = 0; oh < p.HO; oh++)
                    for (int ow = 0; ow < p.WO; ow++) {
                        int64_t acc = bq[f] + sums[(((int64_t)n * p.F + f) * p.HO + oh) * p.WO + ow];
                        int r = per_tensor ? 0 : f;
                        int32_t want = ref_out(acc, mult[r], shift[r], rq.zero, rq.lo, rq.hi);
                        bad += y[(((int64_t)n * F + f) * p.HO + oh) * p.WO + ow] != want;
                    }
        /* weights packed once (as at init) give the same bytes */
        int8_t *y2 = malloc(ny);
        void *packed = malloc(o2h_conv2d_s8_packed_size(&p)), *scr2 = malloc(o2h_conv2d_s8_packed_scratch(&p));
        o2h_conv2d_s8_pack(&p, w, bias, packed);
        o2h_conv2d_s8_packed(&p, zx, &rq, x, packed, y2, scr2);
        bad += memcmp(y, y2, ny) != 0;
        free(x), free(w), free(y), free(y2), free(bias), free(scratch), free(packed), free(scr2);
    } else {
        int16_t *x = malloc(nx * 2), *w = malloc(nw * 2), *y = malloc(ny * 2);
        int64_t *bias = calloc((size_t)F, 8);
        for (size_t i = 0; i < nx; i++)
            x[i] = (int16_t)xi[i];
        for (size_t i = 0; i < nw; i++)
            w[i] = (int16_t)wi[i];
        for (int f = 0; f < F; f++)
            bias[f] = bq[f];
        o2h_conv2d_s16(&p, zx, &rq, x, w, bias, y, NULL);
        for (int n = 0; n < N; n++)
            for (int f = 0; f < F; f++)
                for (int oh = 0; oh < p.HO; oh++)
                    for (int ow = 0; ow < p.WO; ow++) {
                        int64_t acc = bq[f] + sums[(((int64_t)n * p.F + f) * p.HO + oh) * p.WO + ow];
                        int r = per_tensor ? 0 : f;
                        int32_t want = ref_out(acc, mult[r], shift[r], rq.zero, rq.lo, rq.hi);
                        bad += y[(((int64_t)n * F + f) * p.HO + oh) * p.WO + ow] != want;
                    }
        free(x), free(w), free(y), free(bias);
    }
    CHECK_MSG(bad == 0, "conv N%d C%d %dx%d F%d K%d S%d D%d P%d G%d wide%d: %d wrong", N, C, H, W, F, K, S,
              D, P, G, wide, bad);
    free(sums), free(xi), free(wi), free(bq), free(mult), free(shift);
}

/* Mul of 8-bit codes over the shapes of its row forms: the squeeze-excite
 * scale [N,C,1,1] on [N,C,H,W] (both operand orders), same shapes, a
 * middle-axis broadcast, planes crossing the 256-product blocks and ending
 * in partial vectors; shifts below and above the vector forms' ranges,
 * output clamps, M = 0, M < 0 and zero points off the int8 range (the
 * scalar rule). */
static int mul8_bad(const O2hBroadcast *bc, const O2hEltQ *q, const int8_t *a, const int8_t *b)
{
    static int8_t y[2 * 5 * 17 * 19];
    int64_t n = 1, ys[4], as[4], bs[4], sa = 1, sb = 1;
    for (int i = bc->rank - 1; i >= 0; i--) {
        ys[i] = n;
        as[i] = bc->a_dims[i] == 1 ? 0 : sa;
        bs[i] = bc->b_dims[i] == 1 ? 0 : sb;
        n *= bc->y_dims[i];
        sa *= bc->a_dims[i];
        sb *= bc->b_dims[i];
    }
    o2h_mul_s8(bc, q, a, b, y);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t ia = 0, ib = 0;
        for (int d = 0; d < bc->rank; d++) {
            int64_t k = i / ys[d] % bc->y_dims[d];
            ia += k * as[d];
            ib += k * bs[d];
        }
        bad += y[i] != ref_out((int64_t)(a[ia] - q->a_zero) * (b[ib] - q->b_zero), q->ma, q->shift, q->zero,
                               q->lo, q->hi);
    }
    return bad;
}

static void test_mul_rows(void)
{
    static int8_t big[2 * 5 * 17 * 19], big2[2 * 5 * 17 * 19], ch[10];
    for (int i = 0; i < 2 * 5 * 17 * 19; i++) {
        big[i] = (int8_t)rnd_in(-128, 127);
        big2[i] = (int8_t)rnd_in(-128, 127);
    }
    for (int i = 0; i < 10; i++)
        ch[i] = (int8_t)rnd_in(-128, 127);
    ch[3] = -128;
    big[7] = 127;
    const O2hBroadcast shapes[4][2] = {
        {{4, {2, 5, 17, 19}, {2, 5, 1, 1}, {2, 5, 17, 19}}, {4, {2, 5, 1, 1}, {2, 5, 17, 19}, {2, 5, 17, 19}}},
        {{4, {2, 5, 17, 19}, {2, 5, 17, 19}, {2, 5, 17, 19}}, {2, {10, 323}, {10, 323}, {10, 323}}},
        {{4, {2, 5, 17, 19}, {1, 5, 1, 1}, {2, 5, 17, 19}}, {3, {2, 5, 323}, {1, 5, 323}, {2, 5, 323}}},
        {{4, {1, 5, 1, 3}, {1, 5, 1, 3}, {1, 5, 1, 3}}, {4, {1, 1, 1, 3}, {1, 1, 1, 1}, {1, 1, 1, 3}}},
    };
    const O2hEltQ qs[] = {
        {-27, -128, 1125953236, 0, 38, -29, -128, 127}, /* EfficientNet-B0's first */
        {3, -2, 1500000000, 0, 40, 1, -128, 127},
        {0, 5, 1073741824, 0, 2, 0, -128, 127},         /* sh 2: scalar on AVX2 */
        {-1, 7, 2000000000, 0, 20, 3, -128, 127},       /* saturates often */
        {10, -3, 1800000000, 0, 45, -5, -60, 90},       /* sh >= 34, output clamp */
        {1, 1, 1000, 0, 0, 0, -128, 127},               /* sh 0 */
        {4, 4, 0, 0, 31, 9, -128, 127},                 /* M = 0 */
        {2, -3, -1500000000, 0, 40, 1, -128, 127},      /* M < 0: scalar rule */
        {200, -3, 1500000000, 0, 48, 1, -128, 127},     /* zero point off int8 */
    };
    for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++)
        for (int s = 0; s < 4; s++) {
            CHECK_EQ_INT(mul8_bad(&shapes[s][0], &qs[k], big, s == 0 || s == 2 ? ch : big2), 0);
            CHECK_EQ_INT(mul8_bad(&shapes[s][1], &qs[k], s == 0 ? ch : big2, big), 0);
        }
}

static void test_conv(void)
{
    for (int wide = 0; wide < 2; wide++) {
        conv_case(1, 3, 9, 11, 7, 3, 2, 1, 1, 1, wide);    /* stem-like, F tail */
        conv_case(2, 8, 6, 6, 12, 1, 1, 1, 0, 1, wide);    /* pointwise, batch 2 */
        conv_case(1, 8, 7, 7, 8, 3, 1, 1, 1, 8, wide);     /* depthwise */
        conv_case(1, 6, 9, 8, 6, 3, 2, 1, 1, 6, wide);     /* depthwise stride 2 */
        conv_case(1, 4, 10, 10, 4, 5, 1, 2, 3, 4, wide);   /* depthwise dilated */
        conv_case(1, 6, 8, 8, 9, 3, 1, 1, 1, 3, wide);     /* grouped */
        conv_case(1, 4, 5, 5, 4, 1, 2, 1, 0, 1, wide);     /* 1x1 stride 2 */
        conv_case(1, 2, 20, 21, 5, 3, 1, 2, 2, 1, wide);   /* dilated, > 256 pixels */
        conv_case(1, 4, 6, 6, 8, 3, 1, 1, 1, 4, wide);     /* depthwise multiplier 2 */
        conv_case(2, 3, 40, 37, 3, 3, 1, 1, 1, 3, wide);   /* depthwise over several row bands */
        conv_case(1, 2, 30, 33, 2, 7, 3, 1, 3, 2, wide);   /* depthwise 7x7 stride 3 */
        conv_case(1, 3, 120, 100, 3, 3, 1, 1, 1, 3, wide); /* depthwise, large planes in chunks of 2 */
        conv_case(1, 5, 23, 21, 5, 5, 2, 1, 2, 5, wide);   /* depthwise 5x5 stride 2, one multiplier */
        conv_case(1, 6, 28, 28, 6, 5, 1, 1, 2, 6, wide);   /* depthwise 5x5, rows of 28 in flat vectors */
        conv_case(1, 4, 14, 14, 4, 5, 2, 1, 2, 4, wide);   /* depthwise 5x5 stride 2 on 14x14 */
        conv_case(1, 40, 9, 7, 19, 1, 1, 1, 0, 1, wide);   /* pointwise: ragged pixel and channel tiles */
        conv_case(1, 13, 12, 12, 24, 3, 1, 1, 1, 1, wide); /* K = 117 (not a multiple of 4) */
    }
}

/* First convs on few channels (C = 1..4), whose strided im2col splits each
 * padded input row into phase rows: 3x3 and 7x7, strides 1 to 4, every pad
 * up to the kernel size, odd and tiny planes (outputs of one pixel),
 * batch 2, per-tensor (odd F) and per-channel multipliers, every fill and
 * the ReLU clamp; rows too wide for the phase buffers and dilated taps. */
static void test_conv_few_ch(void)
{
    static const int hw[][2] = {{1, 1}, {2, 3}, {5, 4}, {7, 9}, {13, 11}, {16, 33}};
    for (int fill = FILL_RANDOM; fill <= FILL_MIN; fill++)
        for (int relu = 0; relu < 2; relu++) {
            conv_fill = fill;
            conv_relu = relu;
            for (int C = 1; C <= 4; C++)
                for (int K = 3; K <= 7; K += 4)
                    for (int S = 1; S <= 2 + (K == 7) * 2; S++)
                        for (int P = 0; P < K; P += 1 + (K == 7))
                            for (int i = 0; i < 6; i++) {
                                int H = hw[i][0], W = hw[i][1];
                                if (H + 2 * P < K || W + 2 * P < K)
                                    continue;
                                conv_case(1 + (i + C) % 2, C, H, W, 7 + (C + P + S) % 4, K, S, 1, P, 1, 0);
                            }
        }
    conv_fill = FILL_RANDOM;
    conv_relu = 0;
    conv_case(1, 3, 5, 1100, 8, 3, 2, 1, 1, 1, 0);   /* row beyond the phase buffers */
    conv_case(1, 2, 3, 1019, 9, 7, 2, 1, 3, 1, 0);   /* the widest row inside */
    conv_case(2, 3, 17, 19, 6, 3, 2, 2, 2, 1, 0);    /* dilated, stride 2 */
    conv_case(1, 4, 12, 23, 5, 5, 3, 3, 4, 1, 0);    /* dilated, stride 3 */
    conv_case(1, 3, 224, 224, 32, 3, 2, 1, 1, 1, 0); /* the stem itself */
}

/* 3x3 stride-1 convs that the pair-product kinds run by integer Winograd:
 * the same integers as the reference, on odd planes (last tile row and
 * column half outside), odd channel counts (a pair with one channel), per
 * tensor (odd F) and per channel multipliers, ReLU clamps, several blocks
 * of tile rows, batches, and extreme operands where the transformed sums
 * wrap modulo 2^32 on the way (C = 512) but the result does not. */
int o2h_i8w_use(const O2hConv2d *p);   /* internal: counts the cases it takes */

static int wino_taken(int C, int H, int W, int F)
{
    O2hConv2d p = {.N = 1, .C = C, .H = H, .W = W, .F = F, .KH = 3, .KW = 3, .SH = 1, .SW = 1, .DH = 1,
                   .DW = 1, .PT = 1, .PL = 1, .PB = 1, .PR = 1, .G = 1, .HO = H, .WO = W};
    return o2h_i8w_use(&p);
}

/* Runs each of the n shapes (N, C, H, W, F) as a 3x3 stride-1 pad-1 conv
 * with every fill and with and without ReLU (the largest with random
 * fills only); returns how many cases Winograd took, *ran how many ran. */
static int wino_cases(const int (*shapes)[5], int n, int *ran)
{
    int taken = 0;
    *ran = 0;
    for (int fill = FILL_RANDOM; fill <= FILL_MIN; fill++)
        for (int relu = 0; relu < 2; relu++)
            for (int i = 0; i < n; i++) {
                const int *s = shapes[i];
                if (fill != FILL_RANDOM && (double)s[0] * s[1] * s[2] * s[3] * s[4] > 4e6)
                    continue;   /* the large ones once per clamp */
                conv_fill = fill;
                conv_relu = relu;
                conv_case(s[0], s[1], s[2], s[3], s[4], 3, 1, 1, 1, 1, 0);
                taken += wino_taken(s[1], s[2], s[3], s[4]);
                (*ran)++;
            }
    conv_fill = FILL_RANDOM;
    conv_relu = 0;
    return taken;
}

static void test_conv_wino(void)
{
    static const int shapes[][5] = {
        {1, 16, 20, 20, 16},  {1, 17, 21, 23, 19}, {2, 32, 25, 17, 24},  {1, 64, 56, 56, 64}, {1, 24, 28, 28, 33},
        {1, 48, 16, 40, 8 + 9}, {1, 512, 20, 21, 16}, {1, 96, 27, 29, 24}, {1, 21, 1, 401, 20}, {1, 18, 401, 1, 18},
    };
    int ran, taken = wino_cases(shapes, (int)(sizeof shapes / sizeof shapes[0]), &ran);
    printf("int8 3x3 convs by Winograd: %d cases\n", taken);
}

/* 3x3 stride-1 convs on planes below 400 pixels, which the pair-product
 * kinds run by Winograd with filters in the vector lanes: ResNet-18's
 * 14x14 and 7x7 layers, odd planes (2x3 to 19x21, half-outside tiles),
 * channels not a multiple of 2 or 8, filters not a multiple of a block of
 * 16, batch 2, and C = 512 with extreme operands (sums wrap on the way). */
static void test_conv_wino_small(void)
{
    static const int shapes[][5] = {
        {1, 256, 14, 14, 256}, {1, 512, 7, 7, 512}, {1, 16, 5, 5, 16},  {1, 17, 5, 5, 19},  {2, 33, 9, 9, 40},
        {1, 24, 13, 13, 17},   {1, 19, 14, 14, 23}, {2, 40, 7, 9, 24},  {1, 64, 11, 6, 8 + 9}, {1, 512, 7, 7, 24},
        {2, 21, 13, 15, 33},   {1, 35, 19, 21, 16}, {1, 16, 2, 3, 16},  {1, 20, 3, 3, 18},  {1, 18, 1, 30, 17},
    };
    int want, taken = wino_cases(shapes, (int)(sizeof shapes / sizeof shapes[0]), &want);
#if defined(__AVX2__) && !defined(O2H_NO_VEC) && !defined(__AVXVNNI__) && \
    !(defined(__AVX512VNNI__) && defined(__AVX512BW__))   /* the pair-product kinds */
    CHECK_MSG(taken == want, "small-plane Winograd took %d of %d cases", taken, want);
#endif
    printf("int8 3x3 convs on small planes by Winograd: %d cases\n", taken);
}

/* Adds of equal shapes (the vector form and its tails): lengths around
 * its 32 elements, extreme and random codes, MobileNetV2's residual add,
 * multipliers of both signs, output clamps, zero points at the edge of the
 * form and past it, multipliers whose 16-bit halves sit at the int16
 * limits, and shifts and multipliers outside the form (scalar rule). */
static void test_add_same(void)
{
    enum { N = 1000 };
    static int8_t a[N], b[N], y[N];
    const O2hEltQ qs[] = {
        {6, 1, 1149708040, 1533141247, 31, 17, -128, 127},      /* MobileNetV2 */
        {5, -7, 1200000000, -700000000, 33, -3, -100, 120},
        {-128, 127, -2147483647, 2147483647, 40, 0, -128, 127},
        {255, -255, 1500000000, 1500000000, 41, -128, -128, 127},
        {256, 0, 1500000000, 1500000000, 41, 3, -128, 127},      /* zero point past the form */
        {0, 0, 1000, 2000, 0, 0, -128, 127},                     /* sh 0 */
        {1, 2, 2147483647, 2147483647, 20, 0, -128, 127},        /* sums past int32 */
        {-9, 4, 2147483647, -2147483647, 1, 0, -128, 127},       /* results past int32 */
        {1, 2, 1073741824, 1073741824, 62, 100, -20, 30},
        {0, 0, 1073741824, 1073741824, 30, 0, 0, 127},
        {3, -2, 2147450879, -2147450880, 16, 5, -128, 127},      /* shift and mh at the form's edges */
        {-128, 127, 2147450880, 123456789, 17, -128, -128, 127}, /* mh 2^15: past the form */
        {127, -128, 1500000000, 1600000000, 45, 1, -128, 127},   /* C near 2^30 */
        {0, 0, 1073741824, 1073741824, 47, 1, -128, 127},        /* C past 2^30 */
        {-70000, 3, 1000000000, 1000000000, 40, 0, -128, 127},   /* zero point past 2^16 */
        {2, 3, 65535, -65536, 16, 0, -128, 127},                 /* ml -1, mh -1 */
    };
    const int ns[] = {1, 31, 32, 33, 95, N};
    for (int fill = 0; fill < 3; fill++) {
        for (int i = 0; i < N; i++) {
            a[i] = (int8_t)(fill == 0 ? rnd_in(-128, 127) : fill == 1 ? (rnd() & 1 ? 127 : -128) : -128);
            b[i] = (int8_t)(fill == 0 ? rnd_in(-128, 127) : fill == 1 ? (rnd() & 1 ? 127 : -128) : 127);
        }
        for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++)
            for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
                const O2hEltQ *q = &qs[k];
                O2hBroadcast bc = {2, {1, ns[j]}, {1, ns[j]}, {1, ns[j]}};
                o2h_add_s8(&bc, q, a, b, y);
                int bad = 0;
                for (int i = 0; i < ns[j]; i++) {
                    int64_t s2 = (int64_t)(a[i] - q->a_zero) * q->ma + (int64_t)(b[i] - q->b_zero) * q->mb;
                    bad += y[i] != ref_out(s2, 1, q->shift, q->zero, q->lo, q->hi);
                }
                CHECK_MSG(bad == 0, "add q%d n%d fill%d: %d wrong", (int)k, ns[j], fill, bad);
            }
    }
}

/* 3x3 depthwise convs (the float-exact form and its requantization in
 * pieces): strides 1 and 2, pads 0 to 2, odd and tiny planes, rows longer
 * than a piece (2100), large planes, batch 2; every fill (extreme inputs
 * and zero points) with and without a Relu. */
static void test_conv_dw3(void)
{
    static const int shapes[][6] = {
        {1, 3, 7, 7, 1, 1},     {1, 2, 9, 8, 2, 1},   {1, 3, 17, 19, 2, 0}, {1, 2, 5, 33, 1, 0},
        {1, 2, 6, 7, 1, 2},     {1, 2, 11, 13, 2, 2}, {1, 3, 113, 115, 2, 1}, {1, 2, 4, 2100, 1, 1},
        {2, 3, 40, 37, 1, 1},   {1, 2, 1, 1, 1, 1},   {1, 2, 2, 3, 2, 1},   {1, 4, 56, 56, 1, 1},
    };
    for (int fill = FILL_RANDOM; fill <= FILL_MIN; fill++)
        for (int relu = 0; relu < 2; relu++)
            for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
                const int *s = shapes[i];
                conv_fill = fill;
                conv_relu = relu;
                conv_case(s[0], s[1], s[2], s[3], s[1], 3, s[4], 1, s[5], s[1], 0);
            }
    conv_fill = FILL_RANDOM;
    conv_relu = 0;
}

/* 3x3 depthwise over every shift (sh < 3 takes the scalar rule), large
 * biases and multipliers, with pads of 0 to 2 on each side (asymmetric as
 * in "same" padding): stride 2 on planes over 28x28 (the flat phase-plane
 * form at AVX2, rows of 1 to 9 vectors of 16 columns, a batch) and
 * stride 1 (the float kernels' sums requantized in registers, plane
 * sizes around the vectors of 8 and 32). */
static void dw_shift_case(int N, int H, int W, int S, int pt, int pl, int pb, int pr)
{
    enum { C = 64 };
    O2hConv2d p = {.N = N, .C = C, .H = H, .W = W, .F = C, .KH = 3, .KW = 3, .SH = S, .SW = S, .DH = 1, .DW = 1,
                   .PT = pt, .PL = pl, .PB = pb, .PR = pr, .G = C};
    p.HO = (H + pt + pb - 3) / S + 1;
    p.WO = (W + pl + pr - 3) / S + 1;
    size_t nx = (size_t)N * C * H * W, ny = (size_t)N * C * p.HO * p.WO;
    int32_t *xi = malloc(nx * 4), wi[C * 9], bias[C], mult[C], zx = rnd_in(-128, 127);
    int8_t *x = malloc(nx), w[C * 9], *y = malloc(ny);
    uint8_t shift[C];
    for (size_t i = 0; i < nx; i++)
        x[i] = (int8_t)(xi[i] = rnd_in(-128, 127));
    for (int i = 0; i < C * 9; i++)
        w[i] = (int8_t)(wi[i] = rnd_in(-127, 127));
    for (int f = 0; f < C; f++) {
        bias[f] = f % 3 ? rnd_in(-(1 << 30), 1 << 30) : rnd_in(-100000, 100000);
        shift[f] = (uint8_t)f;
        mult[f] = f < 3 ? rnd_in(0, 3) : (int32_t)(rnd() & 0x7fffffff);
    }
    O2hRequant rq = {C, mult, shift, -9, -128, 127};
    void *scratch = malloc(o2h_conv2d_s8_scratch(&p));
    o2h_conv2d_s8(&p, zx, &rq, x, w, bias, y, scratch);
    int bad = 0;
    int64_t *sums = ref_conv_sums(&p, zx, xi, wi);
    for (int n = 0; n < N; n++)
        for (int f = 0; f < C; f++)
            for (int oh = 0; oh < p.HO; oh++)
                for (int ow = 0; ow < p.WO; ow++) {
                    int64_t sw = 0;   /* pads read x_zero: bias + sum x w = bias + zx sw + sum (x - zx) w */
                    for (int t = 0; t < 9; t++)
                        sw += wi[f * 9 + t];
                    int64_t acc = bias[f] + zx * sw + sums[(((int64_t)n * p.F + f) * p.HO + oh) * p.WO + ow];
                    bad += y[(((int64_t)n * C + f) * p.HO + oh) * p.WO + ow] !=
                           ref_out(acc, mult[f], shift[f], rq.zero, rq.lo, rq.hi);
                }
    CHECK_MSG(bad == 0, "dw shifts %dx%dx%d s%d pads %d %d %d %d: %d wrong", N, H, W, S, pt, pl, pb, pr, bad);
    free(sums), free(xi), free(x), free(y), free(scratch);
}

static void test_dw_shifts(void)
{
    static const int cases[][8] = {
        {1, 30, 29, 2, 0, 0, 1, 1}, {1, 29, 31, 2, 1, 1, 1, 1}, {1, 31, 30, 2, 2, 2, 2, 2},
        {1, 8, 130, 2, 1, 0, 0, 2}, {2, 33, 33, 2, 1, 2, 0, 1}, {1, 112, 112, 2, 0, 1, 1, 0},
        {1, 29, 31, 2, 2, 2, 2, 2},
        {1, 7, 7, 1, 1, 1, 1, 1},   {1, 9, 5, 1, 0, 2, 1, 0},   {2, 11, 13, 1, 2, 0, 1, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int *c = cases[i];
        dw_shift_case(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
    }
}

/* 3x3 depthwise of stride 1 and 2 on the int16 pair form's shapes (AVX2:
 * stride 2 on planes over 28x28, stride 1 over 32x32): every width 1..40
 * (tall planes, so widths off the vectors of 8 and 16 and the 16-column
 * fill vectors), widths either side of the most vectors a row the
 * plane-wide fill takes, planes of 1 to 3 rows, every pad 0 to 2 on each side,
 * batch 2, per-channel and per-tensor requantization, shifts below 3 (the
 * scalar rule), a Relu or clip, and fills: random, random extremes, and
 * the largest |x - x_zero| = 255 against |w| = 128 of both signs (x_zero
 * at both ends of int8). Packed once, as at init. */
enum { DWP_RANDOM, DWP_EXTREME, DWP_POS, DWP_NEG };

static int32_t dwp_val(int fill, int32_t lo, int32_t hi, int32_t fixed)
{
    if (fill == DWP_RANDOM)
        return rnd_in(lo, hi);
    if (fill == DWP_EXTREME)
        return rnd() & 1 ? hi : lo;
    return fixed;
}

static void dw_pair_case(int N, int C, int H, int W, int S, const int *pad, int fill, int clip, int per_tensor)
{
    O2hConv2d p = {.N = N, .C = C, .H = H, .W = W, .F = C, .KH = 3, .KW = 3, .SH = S, .SW = S, .DH = 1, .DW = 1,
                   .PT = pad[0], .PL = pad[1], .PB = pad[2], .PR = pad[3], .G = C};
    p.HO = (H + pad[0] + pad[2] - 3) / S + 1;
    p.WO = (W + pad[1] + pad[3] - 3) / S + 1;
    if (p.HO <= 0 || p.WO <= 0)
        return;
    size_t nx = (size_t)N * C * H * W, ny = (size_t)N * C * p.HO * p.WO;
    int32_t zx = dwp_val(fill, -128, 127, fill == DWP_POS ? -128 : 127);
    int32_t *xi = malloc(nx * 4), *wi = malloc((size_t)C * 36), *bias = malloc((size_t)C * 4);
    int32_t *mult = malloc((size_t)C * 4);
    int8_t *x = malloc(nx), *w = malloc((size_t)C * 9), *y = malloc(ny);
    uint8_t *shift = malloc((size_t)C);
    for (size_t i = 0; i < nx; i++)
        x[i] = (int8_t)(xi[i] = dwp_val(fill, -128, 127, fill == DWP_POS ? 127 : -128));
    for (int i = 0; i < C * 9; i++)
        w[i] = (int8_t)(wi[i] = dwp_val(fill, -128, 127, -128));
    for (int f = 0; f < C; f++) {
        bias[f] = rnd_in(-300000, 300000);
        shift[f] = (uint8_t)(f % 5 == 4 ? f % 3 : 30 + f % 12);
        mult[f] = f % 5 == 4 ? rnd_in(0, 3) : (int32_t)((1u << 30) + (rnd() % (1u << 30)));
    }
    int32_t zy = rnd_in(-20, 20);
    O2hRequant rq = {per_tensor ? 1 : C, mult, shift, zy, clip ? zy : -128, clip ? zy + 60 : 127};
    void *packed = malloc(o2h_conv2d_s8_packed_size(&p)), *scratch = malloc(o2h_conv2d_s8_packed_scratch(&p));
    o2h_conv2d_s8_pack(&p, w, bias, packed);
    o2h_conv2d_s8_packed(&p, zx, &rq, x, packed, y, scratch);
    int bad = 0;
    int64_t *sums = ref_conv_sums(&p, zx, xi, wi);
    for (int n = 0; n < N; n++)
        for (int f = 0; f < C; f++) {
            int r = per_tensor ? 0 : f;
            int64_t sw = 0;   /* pads read x_zero: bias + sum x w = bias + zx sw + sum (x - zx) w */
            for (int t = 0; t < 9; t++)
                sw += wi[f * 9 + t];
            for (int oh = 0; oh < p.HO; oh++)
                for (int ow = 0; ow < p.WO; ow++) {
                    int64_t acc = bias[f] + zx * sw + sums[(((int64_t)n * p.F + f) * p.HO + oh) * p.WO + ow];
                    bad += y[(((int64_t)n * C + f) * p.HO + oh) * p.WO + ow] !=
                           ref_out(acc, mult[r], shift[r], rq.zero, rq.lo, rq.hi);
                }
        }
    CHECK_MSG(bad == 0, "dw pairs %dx%dx%dx%d s%d pads %d %d %d %d fill %d clip %d pt %d: %d wrong", N, C, H, W, S,
              pad[0], pad[1], pad[2], pad[3], fill, clip, per_tensor, bad);
    free(sums), free(xi), free(wi), free(bias), free(mult), free(x), free(w), free(y), free(shift);
    free(packed), free(scratch);
}

/* every combination of pads 0 to 2 on the four sides (top, left, bottom, right) */
static void pad_combos(int pads[81][4])
{
    for (int i = 0; i < 81; i++)
        for (int s = 0, v = i; s < 4; s++, v /= 3)
            pads[i][s] = v % 3;
}

static void test_dw_pairs(void)
{
    static const int tiny[][4] = {{1, 3137}, {2, 3200}, {3, 1601}, {1, 4000}, {2, 1571}, {3, 1050}, {1, 1025}, {2, 513}};
    int pads[81][4];
    pad_combos(pads);
    for (int W = 1; W <= 40; W++)
        for (int S = 1; S <= 2; S++) {
            int H = (S == 1 ? 1024 : 784) / W + 1 + W % 3, c = W * 2 + S;
            dw_pair_case(W % 7 == 0 ? 2 : 1, 5 + W % 2, H, W, S, pads[(W * 13 + S * 7) % 81], c % 4, c % 3 == 0,
                         W % 2);
        }
    for (int i = 0; i < 81; i++)   /* every pad combination */
        dw_pair_case(1, 3, 60 + i % 5, 57 + i % 9, 1 + i % 2, pads[i], i % 4, i % 5 == 0, i % 2);
    for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; i++)
        for (int S = 1; S <= 2; S++)
            dw_pair_case(1 + (int)i % 2, 3, tiny[i][0], tiny[i][1], S, pads[(i * 17 + (size_t)S) % 81], (int)i % 4,
                         (int)i % 2, S == 2);
    for (int W = 125; W <= 258; W += W == 129 ? 124 : 1)   /* rows either side of the plane-wide fill's 16 vectors */
        for (int S = 1; S <= 2; S++)
            dw_pair_case(1, 2, 1025 / W + 2 + W % 3, W, S, pads[(W * 5 + S) % 81], W % 4, W % 2, S == 1);
    for (int fill = DWP_RANDOM; fill <= DWP_NEG; fill++)
        for (int S = 1; S <= 2; S++) {
            static const int one[4] = {1, 1, 1, 1}, same[4] = {0, 0, 1, 1};
            dw_pair_case(2, 4, 112, 112, S, S == 1 ? one : same, fill, fill % 2, fill / 2);
        }
}

/* The row fill of the int16 pair form (AVX2: stride 2 on planes over
 * 28x28, stride 1 over 32x32), whose vectors of 16 columns over a pad
 * load with bounds checks and mask the pad lanes while the others load
 * straight: every row width 1 to 52 (no, one and several straight vectors,
 * the first one at each left pad) under every left and right pad 0 to 2,
 * top and bottom pads 0 to 2 in turn, both strides, batch 2 on every
 * fifth, fills up to |x - x_zero| = 255 against |w| = 128. */
static void test_dw_pair_rows(void)
{
    for (int S = 1; S <= 2; S++)
        for (int W = 1; W <= 52; W++)
            for (int pl = 0; pl <= 2; pl++)
                for (int pr = 0; pr <= 2; pr++) {
                    int c = W * 9 + pl * 3 + pr, pad[4] = {c % 3, pl, (c / 3) % 3, pr};
                    int H = (S == 1 ? 1024 : 784) / W + 1 + c % 3;
                    dw_pair_case(c % 5 == 0 ? 2 : 1, 1 + c % 3, H, W, S, pad, c % 4, c % 7 == 0, c % 2);
                }
}

/* 3x3 depthwise of stride 1 and 2 on the channels-in-lanes form's shapes
 * (AVX2: stride 1 on planes over 14x14 up to 32x32, stride 2 up to
 * 28x28): channels 1 to 19 (groups of 8 and their tails), every width 1
 * to 16 at both strides, planes of 1 to 3 rows at stride 2, every pad 0
 * to 2 on each side, batch 2, fills up to |x - x_zero| = 255 against
 * |w| = 128, per-channel and per-tensor requantization; then every shift
 * 0 to 63 per lane (groups with a shift below 3 take the scalar rule,
 * groups all over 32 the high-half rule, the others the even/odd one). */
static void test_dw_lanes(void)
{
    int pads[81][4];
    pad_combos(pads);
    for (int W = 1; W <= 16; W++)
        for (int S = 1; S <= 2; S++) {
            int H = S == 1 ? 197 / W + 1 + W % 4 : 1 + (W * 5) % 23, c = W * 3 + S;
            dw_pair_case(W % 5 == 0 ? 2 : 1, 1 + (W * 7 + S) % 19, H, W, S, pads[(W * 11 + S * 5) % 81], c % 4,
                         c % 3 == 0, W % 3 == 0);
        }
    for (int i = 0; i < 81; i++)
        for (int S = 1; S <= 2; S++)
            dw_pair_case(1 + i % 2, 8 + i % 11, S == 1 ? 15 + i % 7 : 3 + i % 9, S == 1 ? 14 + i % 5 : 2 + i % 13, S,
                         pads[i], i % 4, i % 5 == 0, i % 3 == 0);
    for (int fill = DWP_RANDOM; fill <= DWP_NEG; fill++)
        for (int S = 1; S <= 2; S++) {
            static const int one[4] = {1, 1, 1, 1}, same[4] = {0, 0, 1, 1};
            dw_pair_case(2, 13, S == 1 ? 28 : 14, S == 1 ? 28 : 14, S, S == 1 ? one : same, fill, fill % 2, fill / 2);
        }
    static const int shifts[][8] = {
        {1, 15, 14, 1, 1, 1, 1, 1}, {2, 20, 11, 1, 0, 2, 1, 0}, {1, 31, 33, 1, 1, 1, 1, 1},
        {1, 7, 7, 2, 1, 1, 1, 1},   {2, 14, 14, 2, 0, 0, 1, 1}, {1, 28, 28, 2, 2, 1, 0, 2},
    };
    for (size_t i = 0; i < sizeof shifts / sizeof shifts[0]; i++) {
        const int *c = shifts[i];
        dw_shift_case(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
    }
}

/* 3x3 depthwise of stride 1 on small planes (AVX2: the channels-in-lanes
 * form's int16 pair block, which takes every stride 1 plane up to 14x14):
 * every width and height 1 to 16, channels 1 to 19 (groups of 8 and
 * their tails), every pad 0 to 2 on each side on 7x7 to 14x14 planes,
 * batch 2, fills up to |x - x_zero| = 255 against |w| = 128 of both
 * signs, per-channel and per-tensor requantization, a Relu or clip; then
 * every shift 0 to 63 on 7x7, 14x14 and odd planes. */
static void test_dw_lanes_s1(void)
{
    int pads[81][4];
    pad_combos(pads);
    for (int W = 1; W <= 16; W++)
        for (int H = 1; H <= 16; H++) {
            int c = W * 5 + H;
            dw_pair_case(c % 7 == 0 ? 2 : 1, 1 + (W * 3 + H * 7) % 19, H, W, 1, pads[(W * 11 + H * 5) % 81], c % 4,
                         c % 3 == 0, c % 5 == 0);
        }
    for (int i = 0; i < 81; i++)
        dw_pair_case(1 + i % 2, 1 + i % 19, 7 + i % 8, 7 + (i * 3) % 8, 1, pads[i], i % 4, i % 5 == 0, i % 3 == 0);
    for (int fill = DWP_RANDOM; fill <= DWP_NEG; fill++)
        for (int s = 7; s <= 14; s += 7) {
            static const int one[4] = {1, 1, 1, 1};
            dw_pair_case(2, 13 + s, s, s, 1, one, fill, fill % 2, fill / 2);
        }
    static const int shifts[][8] = {
        {1, 7, 7, 1, 1, 1, 1, 1}, {2, 14, 14, 1, 1, 1, 1, 1}, {1, 5, 11, 1, 0, 2, 2, 0}, {1, 16, 3, 1, 2, 0, 1, 2},
    };
    for (size_t i = 0; i < sizeof shifts / sizeof shifts[0]; i++) {
        const int *c = shifts[i];
        dw_shift_case(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
    }
}

/* The channels-in-lanes form's constants loaded as whole vectors (AVX2:
 * groups of 8 channels whose shifts all lie in [34, 62]): shifts drawn
 * from [34, 62] (some groups also 33 or 63, the per-lane path), output
 * zero points at both ends and between, so that the high-half rule's
 * rounding constant is in range for some groups and not for others (the
 * even/odd rule), multipliers up to 2^31 - 1, channels 1 to 19, per-tensor
 * and per-channel, both blocks (int16 pairs: stride 1 up to 14x14;
 * floats: 28x28, stride 2), batch 2, a Relu or clip. */
static void dw_hi_case(int N, int C, int H, int W, int S, int zy, int edge, int per_tensor, int clip)
{
    O2hConv2d p = {.N = N, .C = C, .H = H, .W = W, .F = C, .KH = 3, .KW = 3, .SH = S, .SW = S, .DH = 1, .DW = 1,
                   .PT = 1, .PL = 1, .PB = 1, .PR = 1, .G = C};
    p.HO = (H - 1) / S + 1;
    p.WO = (W - 1) / S + 1;
    size_t nx = (size_t)N * C * H * W, ny = (size_t)N * C * p.HO * p.WO;
    int32_t zx = rnd_in(-128, 127), *xi = malloc(nx * 4), *wi = malloc((size_t)C * 36);
    int32_t *bias = malloc((size_t)C * 4), *mult = malloc((size_t)C * 4);
    int8_t *x = malloc(nx), *w = malloc((size_t)C * 9), *y = malloc(ny);
    uint8_t *shift = malloc((size_t)C);
    for (size_t i = 0; i < nx; i++)
        x[i] = (int8_t)(xi[i] = rnd_in(-128, 127));
    for (int i = 0; i < C * 9; i++)
        w[i] = (int8_t)(wi[i] = rnd() & 1 ? rnd_in(-128, 127) : -128);
    for (int f = 0; f < C; f++) {
        bias[f] = rnd_in(-(1 << 24), 1 << 24);
        shift[f] = (uint8_t)(edge && f % 8 == 3 ? (f & 8 ? 63 : 33) : rnd_in(34, 62));
        mult[f] = f % 4 == 1 ? 2147483647 : (int32_t)(rnd() & 0x7fffffff);
    }
    O2hRequant rq = {per_tensor ? 1 : C, mult, shift, zy, clip ? zy : -128, clip ? (zy + 90 < 127 ? zy + 90 : 127) : 127};
    void *packed = malloc(o2h_conv2d_s8_packed_size(&p)), *scratch = malloc(o2h_conv2d_s8_packed_scratch(&p));
    o2h_conv2d_s8_pack(&p, w, bias, packed);
    o2h_conv2d_s8_packed(&p, zx, &rq, x, packed, y, scratch);
    int bad = 0;
    int64_t *sums = ref_conv_sums(&p, zx, xi, wi);
    for (int n = 0; n < N; n++)
        for (int f = 0; f < C; f++) {
            int r = per_tensor ? 0 : f;
            int64_t sw = 0;
            for (int t = 0; t < 9; t++)
                sw += wi[f * 9 + t];
            for (int oh = 0; oh < p.HO; oh++)
                for (int ow = 0; ow < p.WO; ow++) {
                    int64_t acc = bias[f] + zx * sw + sums[(((int64_t)n * p.F + f) * p.HO + oh) * p.WO + ow];
                    bad += y[(((int64_t)n * C + f) * p.HO + oh) * p.WO + ow] !=
                           ref_out(acc, mult[r], shift[r], rq.zero, rq.lo, rq.hi);
                }
        }
    CHECK_MSG(bad == 0, "dw hi %dx%dx%dx%d s%d zy %d edge %d pt %d clip %d: %d wrong", N, C, H, W, S, zy, edge,
              per_tensor, clip, bad);
    free(sums), free(xi), free(wi), free(bias), free(mult), free(x), free(w), free(y), free(shift);
    free(packed), free(scratch);
}

static void test_dw_lanes_hi(void)
{
    static const int zys[] = {-128, -100, -20, 0, 30, 127};
    static const int planes[][3] = {{7, 7, 1}, {14, 14, 1}, {5, 11, 1}, {28, 28, 1}, {14, 14, 2}, {28, 28, 2}};
    for (size_t i = 0; i < sizeof planes / sizeof planes[0]; i++)
        for (size_t z = 0; z < sizeof zys / sizeof zys[0]; z++) {
            int c = (int)(i * 6 + z);
            dw_hi_case(c % 5 == 0 ? 2 : 1, 1 + (c * 7) % 19, planes[i][0], planes[i][1], planes[i][2], zys[z], c % 3 == 0,
                       c % 4 == 0, c % 2);
        }
}

/* requantization of whole rows (the vector paths) over every shift, large
 * accumulators and multipliers, zero points and output clamps (a Relu's
 * lo = zero included): a 1x1 conv of one input channel */
static void requant_rows_case(int32_t zero, int32_t lo, int32_t hi)
{
    enum { F = 256, H = 5, W = 9 };
    O2hConv2d p = {.N = 1, .C = 1, .H = H, .W = W, .F = F, .HO = H, .WO = W, .KH = 1, .KW = 1, .SH = 1,
                   .SW = 1, .DH = 1, .DW = 1, .G = 1};
    int8_t x[H * W], w[F], y[F * H * W];
    int32_t bias[F], mult[F];
    uint8_t shift[F];
    for (int i = 0; i < H * W; i++)
        x[i] = (int8_t)rnd_in(-128, 127);
    for (int f = 0; f < F; f++) {
        w[f] = (int8_t)rnd_in(-127, 127);
        bias[f] = f % 3 ? rnd_in(-(1 << 30), 1 << 30) : rnd_in(-100000, 100000);
        shift[f] = (uint8_t)(f % 64);
        mult[f] = shift[f] == 0 ? rnd_in(0, 3) : (int32_t)(rnd() & 0x7fffffff);
        if (f % 5 == 0)
            mult[f] = INT32_MAX;
        if (f % 7 == 0)
            mult[f] = (int32_t)((1u << 30) + rnd() % (1u << 30));
    }
    O2hRequant rq = {F, mult, shift, zero, lo, hi};
    void *scratch = malloc(o2h_conv2d_s8_scratch(&p));
    o2h_conv2d_s8(&p, 0, &rq, x, w, bias, y, scratch);
    free(scratch);
    int bad = 0;
    for (int f = 0; f < F; f++)
        for (int i = 0; i < H * W; i++)
            bad += y[f * H * W + i] != ref_out((int64_t)bias[f] + x[i] * w[f], mult[f], shift[f], zero, lo, hi);
    CHECK_MSG(bad == 0, "requant rows zero %d [%d, %d]: %d wrong", zero, lo, hi, bad);
}

static void test_requant_rows(void)
{
    requant_rows_case(-7, -128, 127);
    requant_rows_case(-128, -128, 127);
    requant_rows_case(127, -128, 127);
    requant_rows_case(-20, -20, 127);   /* Relu */
    requant_rows_case(3, -5, 90);       /* Clip */
}

/* Rows of accumulators through the row requantization (whole groups of
 * four vectors, single vectors, a scalar tail), against the 128-bit
 * reference: every acc from below the lowest to above the highest
 * unsaturated output (so every rounding step and both saturations), plus
 * the int32 extremes and random values, for every shift 1..63, multipliers
 * over [0, 2^31) (the contract's range), zero points in and off the int8 range,
 * int8 and clamped outputs; the last cases sit on both sides of the bound
 * on 2^(sh-33) + zero 2^(sh-32) that picks the high-half form. */
static int rq_sweep(int32_t m, int sh, int32_t zero, int32_t lo, int32_t hi, int64_t from, int64_t to)
{
    enum { N = 4099 };
    static int32_t acc[N];
    static int8_t y[N];
    static const int32_t ext[] = {INT32_MIN, INT32_MIN + 1, -(1 << 30), -1, 0, 1, 1 << 30, INT32_MAX - 1, INT32_MAX};
    uint8_t s8 = (uint8_t)sh;
    O2hRequant rq = {1, &m, &s8, zero, lo, hi};
    int bad = 0;
    from = from < INT32_MIN ? INT32_MIN : from;
    to = to > INT32_MAX ? INT32_MAX : to;
    for (int64_t a0 = from; a0 <= to + N; a0 += N - 9) {
        int n = 0;
        for (; n < 9; n++)
            acc[n] = ext[n];
        for (; n < N && (a0 + n - 9 <= to || n < N - (int)(a0 % 37)); n++)
            acc[n] = a0 + n - 9 <= to ? (int32_t)(a0 + n - 9) : (int32_t)rnd();
        o2h_i8_requant_row(acc, n, &rq, 0, y);
        for (int i = 0; i < n; i++)
            bad += y[i] != ref_out(acc[i], m, sh, zero, lo, hi);
    }
    return bad;
}

/* acc range of the unsaturated outputs, widened by 3 steps each side */
static void rq_sweep_case(int32_t m, int sh, int32_t zero, int32_t lo, int32_t hi)
{
    double step = m == 0 ? 1.0 : ldexp(1.0, sh) / fabs((double)m);
    double span = fmin(((double)hi - lo + 6) * step, 3e6);
    double mid = fmax(fmin(-((double)zero - (lo + hi) / 2.0) * step, 3e9), -3e9);
    int bad = rq_sweep(m, sh, zero, lo, hi, (int64_t)(mid - span / 2), (int64_t)(mid + span / 2));
    CHECK_MSG(bad == 0, "rq sweep m %d sh %d zero %d [%d, %d]: %d wrong", m, sh, zero, lo, hi, bad);
}

static void test_rq_sweep(void)
{
    static const int32_t ms[] = {0, 1, 3, 1000, 1 << 30, (1 << 30) + 1, INT32_MAX - 1, INT32_MAX};
    static const int32_t zs[] = {-128, 0, 5, 127, -100000, 1 << 20};
    for (int sh = 1; sh <= 63; sh++) {
        rq_sweep_case((int32_t)((1u << 30) + rnd() % (1u << 30)), sh, rnd_in(-128, 127), -128, 127);
        rq_sweep_case(ms[sh % 8], sh, zs[sh % 6], -128, 127);
        rq_sweep_case((int32_t)(rnd() % (1u << 31)), sh, rnd_in(-128, 127), -20, 90);
    }
    for (int sh = 33; sh <= 48; sh++)
        for (int i = 0; i < 8; i++) {
            int32_t z = rnd_in(-128, 127);
            rq_sweep_case((int32_t)((1u << 30) + rnd() % (1u << 30)), sh, z, i & 1 ? z : -128, 127);
        }
    /* 2^(sh-33) + zero 2^(sh-32) at and past [-2^30, 2^30) */
    static const int edge[][2] = {{62, 0}, {62, 1}, {62, -1}, {62, -2}, {61, 1}, {61, 2}, {61, -2}, {61, -3},
                                  {60, 0}, {60, 3}, {60, 4}, {60, -4}, {60, -5}, {33, 127}, {33, -128}};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        for (int j = 0; j < 8; j++)
            rq_sweep_case(ms[j], edge[i][0], edge[i][1], -128, 127);
}

/* The bias in [lo_b, hi_b] one below target's rounding step: rq(bias) +
 * zero < target <= rq(bias + 1) + zero, unless a bound stops the search
 * (the outputs at the int32 ends). */
static int32_t bias_below_step(int32_t target, int32_t m, int sh, int32_t zero, int32_t lo_b, int32_t hi_b)
{
    double b = ((double)target - zero - 0.5) * (ldexp(1.0, sh) / m);
    int64_t bi = b > hi_b ? hi_b : b < lo_b ? lo_b : (int64_t)b;
    while (bi > lo_b && ref_rq(bi, m, sh) + zero >= target)
        bi--;
    while (bi < hi_b && ref_rq(bi + 1, m, sh) + zero < target)
        bi++;
    return (int32_t)bi;
}

/* The K = 1 panel product y = rq(bias[f] + w[f] x[p]) with weights 1:
 * the count of outputs that differ from the reference rule. */
static int pw_k1_bad(int F, int P, const int32_t *m, const uint8_t *sh, int per_ch, int32_t zero, int32_t lo,
                     int32_t hi, const int8_t *w, const int32_t *bias, const int8_t *x, int8_t *y)
{
    O2hRequant rq = {per_ch ? F : 1, m, sh, zero, lo, hi};
    void *wp = malloc(o2h_i8_packed_bytes(F, 1)), *blk = malloc(o2h_i8_gemm_scratch(F, 1) + 64);
    o2h_i8_pack(F, 1, w, bias, wp);
    O2hI8Gemm g = {F, 1, P, wp, x, P, &rq, 0, y, P, o2h_i_align64(blk)};
    o2h_i8_gemm(&g);
    int bad = 0;
    for (int f = 0; f < F; f++)
        for (int p = 0; p < P; p++) {
            int r = per_ch ? f : 0;
            bad += y[f * P + p] != ref_out((int64_t)bias[f] + x[p], m[r], sh[r], zero, lo, hi);
        }
    free(wp), free(blk);
    return bad;
}

/* The panel product's requantization in registers (on AVX2 the high-half
 * form merged by one shuffle, bytes put back in order after narrowing):
 * K = 1 with weight 1, so acc = bias[f] + x[p] and x runs over -128..127
 * in pixel order, each channel's bias on a rounding step of its own
 * output (or at the int32 ends), so both sides of the step and a run of
 * neighbours land in every lane of the tiles; pixel counts that end in
 * tiles of 24, 16 and 8 pixels and in the 1..4 pixel channel-vector
 * block, F = 1..9 (ragged panels), per channel (shifts mixed around 33,
 * where the form changes) and per tensor, zero points at both sides of
 * the high-half bound, int8, clamped and ReLU outputs. */
static int pw_rq_run(int F, int P, const int32_t *m, const uint8_t *sh, int per_ch, int32_t zero, int32_t lo,
                     int32_t hi, const int32_t *target)
{
    int8_t w[9], x[300], y[9 * 300];
    int32_t bias[9];
    for (int p = 0; p < P; p++)
        x[p] = (int8_t)(p % 256 - 128);
    for (int f = 0; f < F; f++) {
        int r = per_ch ? f : 0;   /* acc = bias + 1 is the first with output >= target */
        bias[f] = bias_below_step(target[f], m[r], sh[r], zero, INT32_MIN + 128, INT32_MAX - 127);
        w[f] = 1;
    }
    int bad = pw_k1_bad(F, P, m, sh, per_ch, zero, lo, hi, w, bias, x, y);
    return bad;
}

static void pw_rq_case(int F, int sh0, int32_t zero, int32_t lo, int32_t hi)
{
    static const int Ps[] = {264, 256, 249, 248, 245, 244, 242, 241, 23, 17, 9, 3};
    static const int32_t ms[] = {1 << 30, (1 << 30) + 1, INT32_MAX - 1, INT32_MAX};
    int32_t m[9], target[9];
    uint8_t sh[9];
    for (int f = 0; f < F; f++) {
        m[f] = f < 4 ? ms[(f + sh0) % 4] : (int32_t)((1u << 30) + rnd() % (1u << 30));
        sh[f] = (uint8_t)(sh0 == 33 ? 32 + f % 3 : sh0);   /* 32: the general form */
        target[f] = f == 7 ? INT32_MIN : f == 8 ? INT32_MAX : rnd_in(lo - 1, hi + 1);   /* biases at the int32 ends */
    }
    for (int per_ch = 0; per_ch < 2; per_ch++)
        for (size_t i = 0; i < sizeof Ps / sizeof Ps[0]; i++) {
            int bad = pw_rq_run(F, Ps[i], m, sh, per_ch, zero, lo, hi, target);
            CHECK_MSG(bad == 0, "pw rq F%d P%d sh %d zero %d [%d, %d] per_ch %d: %d wrong", F, Ps[i], sh0, zero,
                      lo, hi, per_ch, bad);
        }
}

static void test_pw_requant(void)
{
    for (int sh = 30; sh <= 62; sh++) {
        int32_t z = rnd_in(-128, 127);
        pw_rq_case(1 + sh % 9, sh, z, -128, 127);
        pw_rq_case(9 - sh % 9, sh, z, -20, 90);
        pw_rq_case(4 + sh % 6, sh, z, z, 127);
    }
    /* 2^(sh-33) + zero 2^(sh-32) at and past [-2^30, 2^30) */
    static const int edge[][2] = {{62, 0}, {62, 1}, {62, -1}, {62, -2}, {61, 2}, {61, -3}, {60, 3}, {60, 4},
                                  {60, -4}, {60, -5}, {33, 127}, {33, -128}};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        pw_rq_case(9, edge[i][0], edge[i][1], -128, 127);
}

/* The panel product with the call's constants as hi32 scalars (AVX2):
 * K = 1, weight 1, each channel's bias one below a rounding step of its
 * own output (or at an int32 end) and x in -2..3, so both sides of every
 * step land in every lane; F of 16 to 40 (channel vectors of the last
 * block of 1..4 pixels, ragged panels), pixel counts around the tile and
 * block ends, one shift for all channels or random shifts 33..62 per
 * channel, one channel at 32 (the vector constants for all), per tensor,
 * zero points at the high-half bound, int8, clamped and ReLU outputs. */
static int pw_rqh_run(int F, int P, const int32_t *m, const uint8_t *sh, int per_ch, int32_t zero, int32_t lo,
                      int32_t hi)
{
    int8_t w[40], x[50], *y = malloc((size_t)F * P);
    int32_t bias[40];
    for (int p = 0; p < P; p++)
        x[p] = (int8_t)((p + (int)(rnd() % 6)) % 6 - 2);
    for (int f = 0; f < F; f++) {
        int r = per_ch ? f : 0;
        int32_t target = f % 11 == 7 ? INT32_MIN : f % 11 == 8 ? INT32_MAX : rnd_in(lo - 1, hi + 1);
        bias[f] = bias_below_step(target, m[r], sh[r], zero, INT32_MIN + 2, INT32_MAX - 3);
        w[f] = 1;
    }
    int bad = pw_k1_bad(F, P, m, sh, per_ch, zero, lo, hi, w, bias, x, y);
    free(y);
    return bad;
}

static void pw_rqh_case(int sh0, int32_t zero, int32_t lo, int32_t hi)
{
    static const int Ps[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 23, 24, 25, 28, 47, 48, 49};
    static const int Fs[] = {16, 17, 20, 31, 32, 33, 40};
    static const int32_t ms[] = {0, 1, 1 << 30, (1 << 30) + 1, INT32_MAX - 1, INT32_MAX};
    int32_t m[40];
    uint8_t sh[40];
    for (size_t i = 0; i < sizeof Ps / sizeof Ps[0]; i++)
        for (int mode = 0; mode < 3; mode++) {
            int F = Fs[(i + mode) % 7];
            for (int f = 0; f < F; f++) {
                m[f] = f < 6 ? ms[(f + i) % 6] : (int32_t)((1u << 30) + rnd() % (1u << 30));
                sh[f] = (uint8_t)(sh0 ? sh0 : 33 + (int)(rnd() % 30));
            }
            if (mode == 2)
                sh[rnd() % F] = 32;
            for (int per_ch = 0; per_ch < 2; per_ch++) {
                int bad = pw_rqh_run(F, Ps[i], m, sh, per_ch, zero, lo, hi);
                CHECK_MSG(bad == 0, "pw rqh F%d P%d sh %d zero %d [%d, %d] per_ch %d mode %d: %d wrong", F, Ps[i],
                          sh0, zero, lo, hi, per_ch, mode, bad);
            }
        }
}

/* one(sh0, zero, lo, hi) for every shift 33..62 with a random zero point
 * and int8, clamped and ReLU outputs, then n_mixed times with shifts mixed
 * per channel (sh0 = 0) and int8 or clamped outputs */
static void pw_shift_sweep(void (*one)(int, int32_t, int32_t, int32_t), int n_mixed)
{
    for (int sh = 33; sh <= 62; sh++) {
        int32_t z = rnd_in(-128, 127);
        one(sh, z, -128, 127);
        one(sh, z, -20, 90);
        one(sh, z, z, 127);
    }
    for (int i = 0; i < n_mixed; i++)
        one(0, rnd_in(-128, 127), i % 2 ? -128 : -7, i % 2 ? 127 : 100);
}

static void test_pw_rqh(void)
{
    pw_shift_sweep(pw_rqh_case, 8);
    static const int edge[][2] = {{62, 0}, {62, 1}, {62, -1}, {62, -2}, {61, 2}, {61, -3}, {60, 3}, {60, 4},
                                  {60, -4}, {60, -5}, {33, 127}, {33, -128}};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        pw_rqh_case(edge[i][0], edge[i][1], -128, 127);
}

/* The K = 1 panel product with weight 1 and x in -2..3 over F <= 40
 * channels and P <= 100 pixels, each channel's bias one below a rounding
 * step of its own output (or at an int32 end for channels 5 and 6), its
 * own multiplier (INT32_MAX, 2^30 or random) and shift (sh0, or 33..62
 * at random where sh0 = 0), per tensor and per channel, so a byte from a
 * neighbouring row or lane, or one channel's constants on another, shows:
 * the count of wrong outputs. */
static int pw_edge_run(int F, int P, int sh0, int32_t zero, int32_t lo, int32_t hi)
{
    int32_t m[40], bias[40];
    uint8_t sh[40];
    int8_t w[40], x[100], y[40 * 100];
    int bad = 0;
    for (int p = 0; p < P; p++)
        x[p] = (int8_t)((p + (int)(rnd() % 6)) % 6 - 2);
    for (int f = 0; f < F; f++) {
        m[f] = f == 1 ? INT32_MAX : f == 2 ? 1 << 30 : (int32_t)((1u << 30) + rnd() % (1u << 30));
        sh[f] = (uint8_t)(sh0 ? sh0 : 33 + (int)(rnd() % 30));
        w[f] = 1;
    }
    for (int per_ch = 0; per_ch < 2; per_ch++) {
        for (int f = 0; f < F; f++) {
            int r = per_ch ? f : 0;
            int32_t target = f == 5 ? INT32_MIN : f == 6 ? INT32_MAX : rnd_in(lo - 1, hi + 1);
            bias[f] = bias_below_step(target, m[r], sh[r], zero, INT32_MIN + 2, INT32_MAX - 3);
        }
        bad += pw_k1_bad(F, P, m, sh, per_ch, zero, lo, hi, w, bias, x, y);
    }
    return bad;
}

/* Full tiles of four channels x 24 pixels requantized across rows
 * (AVX2: rows 0 | 1, 1 | 2 and 2 | 3 share a narrowing, so each row's
 * bytes land at three different offsets of the packs and stores): F of
 * 4 to 22 (whole panels, and a ragged last one taking the row-by-row
 * form), pixel counts of 1..4 full tiles and around them, every shift
 * 33..62 and mixed shifts, int8, clamped and ReLU outputs. */
static void pw_tile43_case(int sh0, int32_t zero, int32_t lo, int32_t hi)
{
    static const int Ps[] = {24, 48, 72, 96, 49, 71, 100};
    static const int Fs[] = {4, 8, 12, 16, 22};
    for (size_t i = 0; i < sizeof Ps / sizeof Ps[0]; i++) {
        int bad = pw_edge_run(Fs[i % 5], Ps[i], sh0, zero, lo, hi);
        CHECK_MSG(bad == 0, "pw tile43 F%d P%d sh %d zero %d [%d, %d]: %d wrong", Fs[i % 5], Ps[i], sh0, zero, lo,
                  hi, bad);
    }
}

static void test_pw_tile43(void)
{
    pw_shift_sweep(pw_tile43_case, 6);
    /* short reductions through the same tiles: K 1..40 on 1..3 full blocks and a tail */
    static const int hw[][2] = {{1, 24}, {2, 24}, {3, 24}, {7, 7}, {4, 13}};
    for (int K = 1; K <= 40; K++)
        conv_case(1, K, hw[K % 5][0], hw[K % 5][1], 4 * (1 + K % 6), 1, 1, 1, 0, 1, 0);
}

/* The last block of 1..4 pixels requantized by lanes (AVX2: eight
 * channels' constants per vector, eight channels x four pixels per pack,
 * bytes transposed to [channel][pixel]): pixel counts 1..4 alone and
 * after one to four full tiles, F of 8 to 40 (passes of 16 or 8 channels,
 * a last pass with rows past F, ragged panels after them), every shift
 * 33..62 and mixed shifts, int8, clamped and ReLU outputs. */
static void pw_lanes_case(int sh0, int32_t zero, int32_t lo, int32_t hi)
{
    static const int Ps[] = {1, 2, 3, 4, 25, 26, 27, 28, 49, 52, 97, 100};
    static const int Fs[] = {8, 12, 16, 18, 20, 24, 36, 40};
    for (size_t i = 0; i < sizeof Ps / sizeof Ps[0]; i++) {
        int F = Fs[(i + (size_t)sh0) % 8];
        int bad = pw_edge_run(F, Ps[i], sh0, zero, lo, hi);
        CHECK_MSG(bad == 0, "pw lanes F%d P%d sh %d zero %d [%d, %d]: %d wrong", F, Ps[i], sh0, zero, lo, hi, bad);
    }
}

static void test_pw_cols_lanes(void)
{
    pw_shift_sweep(pw_lanes_case, 8);
}

/* The last pixel block of 1..4 pixels with channels in lanes (AVX2): two
 * k-steps per 256-bit product, so every reduction length 1..40 (an odd
 * last k-step meets zeros), alone (planes of 1..4 pixels) and after full
 * blocks (25..28, 7x7, 14x14), 16 to 40 channels (passes of 16 or 8 and
 * ragged panels after them), per tensor (odd F) and per channel, batch 2,
 * extreme fills. */
static void test_pw_cols(void)
{
    static const int hw[][2] = {{1, 1}, {1, 2}, {1, 3}, {2, 2}, {1, 25}, {2, 13}, {3, 9}, {4, 7}, {7, 7}, {14, 14}};
    static const int Fs[] = {16, 17, 20, 24, 31, 32, 40};
    for (int K = 1; K <= 40; K++)
        for (int i = 0; i < 10; i += 1 + K % 3)
            conv_case(1 + (K + i) % 2, K, hw[i][0], hw[i][1], Fs[(K + i) % 7], 1, 1, 1, 0, 1, 0);
    for (conv_fill = FILL_EXTREME; conv_fill <= FILL_MIN; conv_fill++) {
        conv_case(1, 35, 1, 1, 32, 1, 1, 1, 0, 1, 0);
        conv_case(1, 34, 1, 4, 24, 1, 1, 1, 0, 1, 0);
        conv_case(1, 33, 7, 7, 17, 1, 1, 1, 0, 1, 0);
    }
    conv_fill = FILL_RANDOM;
}

/* Pointwise convs on small planes: every pixel count 1..70 (so last pixel
 * blocks of every size, those of 1..4 pixels by channel vectors on AVX2),
 * channel counts below, at and past 16 and not multiples of 4, odd K, per
 * tensor (odd F) and per channel multipliers, extreme operands, a ReLU. */
static void test_pw_small(void)
{
    static const int Fs[] = {1, 5, 16, 19, 36, 40, 51};
    for (int P = 1; P <= 70; P++)
        conv_case(1, 1 + P * 7 % 45, 1, P, Fs[P % 7], 1, 1, 1, 0, 1, 0);
    for (conv_fill = FILL_EXTREME; conv_fill <= FILL_MIN; conv_fill++) {
        conv_case(1, 33, 7, 7, 40, 1, 1, 1, 0, 1, 0);
        conv_case(1, 64, 14, 14, 21, 1, 1, 1, 0, 1, 0);
    }
    conv_fill = FILL_RANDOM;
    conv_relu = 1;
    conv_case(1, 96, 7, 7, 32, 1, 1, 1, 0, 1, 0);
    conv_case(2, 17, 5, 5, 19, 1, 1, 1, 0, 1, 0);
    conv_relu = 0;
}

/* Pointwise products whose pixel blocks are full (24 pixels on AVX2, packed
 * two rows of k at a time without tail checks): K 1..34 (pairs and a lone
 * last row), planes of 1..3 full blocks with and without a ragged tail,
 * ragged panels, per-tensor and per-channel, groups (rows of x one group
 * apart), batch 2, extreme fills; strided 3x3 convs whose im2col matrix
 * goes the same way. */
static void test_pw_full_blocks(void)
{
    static const int hw[][2] = {{1, 24}, {2, 24}, {1, 48}, {7, 7}, {3, 25}, {1, 72}, {2, 37}};
    for (int K = 1; K <= 34; K++)
        conv_case(1 + K % 2, K, hw[K % 7][0], hw[K % 7][1], 1 + K * 5 % 23, 1, 1, 1, 0, 1, 0);
    conv_case(1, 12, 4, 12, 10, 1, 1, 1, 0, 2, 0);
    conv_case(2, 27, 3, 16, 18, 1, 1, 1, 0, 3, 0);
    for (conv_fill = FILL_EXTREME; conv_fill <= FILL_MIN; conv_fill++) {
        conv_case(1, 27, 2, 24, 32, 1, 1, 1, 0, 1, 0);
        conv_case(1, 32, 1, 48, 17, 1, 1, 1, 0, 1, 0);
    }
    conv_fill = FILL_RANDOM;
    conv_case(1, 3, 17, 23, 32, 3, 2, 1, 1, 1, 0);
    conv_case(2, 3, 16, 16, 16, 3, 2, 1, 1, 1, 0);
}

/* float -> int8 over whole vectors and tails: ties at every half step of
 * the int8 range (both parities, both signs), random values, NaN, +-inf,
 * -0, huge and tiny values, zero points at and inside the int8 ends, a
 * ReLU clamp; against round-half-even by rintf in the default mode. */
static void quantize_case(float scale, int32_t zero, int32_t lo, int32_t hi)
{
    enum { N = 667 };
    float x[N];
    int8_t y[N];
    static const float special[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f, 1e30f, -1e30f, 1e-40f, -1e-40f};
    for (int i = 0; i < N; i++) {
        if (i < 9)
            x[i] = special[i];
        else if (i < 9 + 540)
            x[i] = ((float)(i - 9) * 0.5f - 135.0f) * scale;   /* exact multiples of scale / 2 */
        else
            x[i] = (float)rnd_in(-300000, 300000) / 1000.0f * scale;
    }
    o2h_quantize_f32_s8(x, y, N, scale, zero, lo, hi);
    int bad = 0;
    for (int n = 1; n <= N; n += 37) {   /* lengths with every tail */
        int8_t y2[N];
        o2h_quantize_f32_s8(x, y2, (size_t)n, scale, zero, lo, hi);
        bad += memcmp(y, y2, (size_t)n) != 0;
    }
    float top = (float)(hi - zero) + 1.0f, bot = (float)(lo - zero) - 1.0f;
    for (int i = 0; i < N; i++) {
        volatile float v = x[i] / scale;
        float c = v != v ? 0.0f : v < bot ? bot : v > top ? top : v;
        int32_t r = (int32_t)rintf(c) + zero;
        bad += y[i] != (r < lo ? lo : r > hi ? hi : r);
    }
    CHECK_MSG(bad == 0, "quantize scale %g zero %d [%d, %d]: %d wrong", scale, zero, lo, hi, bad);
}

/* the rounding is half to even whatever rounding mode the FPU is left in */
static void quantize_modes(void)
{
    enum { N = 203 };
    static const int modes[] = {FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
    float x[N];
    int8_t want[N], got[N];
    for (int i = 0; i < N; i++)
        x[i] = ((float)i * 0.5f - 50.25f) * 0.75f;   /* ties and quarter steps, both signs */
    o2h_quantize_f32_s8(x, want, N, 0.375f, 2, -128, 127);
    for (int m = 0; m < 3; m++) {
        CHECK(fesetround(modes[m]) == 0);
        o2h_quantize_f32_s8(x, got, N, 0.375f, 2, -128, 127);
        fesetround(FE_TONEAREST);
        CHECK_MSG(memcmp(want, got, N) == 0, "quantize under rounding mode %d differs", m);
    }
}

static void test_quantize_vec(void)
{
    quantize_case(1.0f, 0, -128, 127);
    quantize_case(0.5f, -128, -128, 127);
    quantize_case(0.0187f, -3, -128, 127);
    quantize_case(0.1f, 127, -128, 127);
    quantize_case(3.0f, 7, 7, 127);      /* ReLU */
    quantize_case(0.25f, 1, -100, 90);
    quantize_modes();
}

/* ------------------------------------------------ fc and pools */

static void test_fc(void)
{
    enum { M = 3, N = 9, K = 37 };
    int8_t x[M * K], w[N * K], y[M * N];
    int16_t x16[M * K], w16[N * K], y16[M * N];
    int32_t bias[N], mult[N];
    int64_t bias16[N];
    uint8_t shift[N];
    for (int i = 0; i < M * K; i++)
        x16[i] = (int16_t)rnd_in(-32768, 32767), x[i] = (int8_t)rnd_in(-128, 127);
    for (int i = 0; i < N * K; i++)
        w16[i] = (int16_t)rnd_in(-32767, 32767), w[i] = (int8_t)rnd_in(-127, 127);
    for (int n = 0; n < N; n++) {
        bias[n] = rnd_in(-10000, 10000);
        bias16[n] = (int64_t)bias[n] * (1 << 20);
        mult[n] = rnd_in(1 << 30, INT32_MAX);
        shift[n] = (uint8_t)(n % 2 ? 40 : 55);
    }
    O2hRequant rq = {N, mult, shift, 2, -128, 127};
    O2hFcQ p = {M, N, K};
    o2h_fc_s8(&p, &rq, x, w, bias, y);
    O2hRequant rq16 = {N, mult, shift, 2, -32768, 32767};
    o2h_fc_s16(&p, &rq16, x16, w16, bias16, y16);
    int bad = 0, bad16 = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            int64_t acc = bias[n], acc16 = bias16[n];
            for (int k = 0; k < K; k++) {
                acc += x[m * K + k] * w[n * K + k];
                acc16 += (int64_t)x16[m * K + k] * w16[n * K + k];
            }
            bad += y[m * N + n] != ref_out(acc, mult[n], shift[n], 2, -128, 127);
            bad16 += y16[m * N + n] != ref_out(acc16, mult[n], shift[n], 2, -32768, 32767);
        }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(bad16, 0);
}

/* int8 FC over sizes around the 4-row and 16-k vector steps (K < 16, K not
 * a multiple of 16, N not a multiple of 4), per tensor and per channel,
 * extreme operands (all -128: the largest sums), an output clamp. */
static void fc_case(int M, int N, int K, int per_ch, int extreme)
{
    int8_t *x = malloc((size_t)M * K), *w = malloc((size_t)N * K), *y = malloc((size_t)M * N);
    int32_t *bias = malloc((size_t)N * 4), *mult = malloc((size_t)N * 4);
    uint8_t *shift = malloc((size_t)N);
    for (int i = 0; i < M * K; i++)
        x[i] = (int8_t)(extreme ? -128 : rnd_in(-128, 127));
    for (int i = 0; i < N * K; i++)
        w[i] = (int8_t)(extreme ? (i % 3 ? -128 : 127) : rnd_in(-128, 127));
    for (int n = 0; n < N; n++) {
        bias[n] = rnd_in(-100000, 100000);
        mult[n] = rnd_in(1 << 30, INT32_MAX);
        shift[n] = (uint8_t)(38 + n % 7);
    }
    O2hRequant rq = {per_ch ? N : 1, mult, shift, -3, per_ch ? -128 : -3, per_ch ? 127 : 100};
    O2hFcQ p = {M, N, K};
    o2h_fc_s8(&p, &rq, x, w, bias, y);
    int bad = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            int64_t acc = bias[n];
            for (int k = 0; k < K; k++)
                acc += x[m * K + k] * w[n * K + k];
            int r = per_ch ? n : 0;
            bad += y[m * N + n] != ref_out(acc, mult[r], shift[r], rq.zero, rq.lo, rq.hi);
        }
    CHECK_MSG(bad == 0, "fc s8 M%d N%d K%d per_ch %d extreme %d: %d wrong", M, N, K, per_ch, extreme, bad);
    free(x), free(w), free(y), free(bias), free(mult), free(shift);
}

static void test_fc_sizes(void)
{
    static const int sizes[][3] = {{1, 1, 1}, {1, 3, 15}, {1, 4, 16}, {2, 5, 17}, {1, 7, 33},
                                   {3, 13, 100}, {1, 1000, 1280}, {1, 10, 1283}};
    for (int i = 0; i < 8; i++)
        for (int v = 0; v < 4; v++)
            fc_case(sizes[i][0], sizes[i][1], sizes[i][2], v & 1, v >> 1);
}

/* W up to 117: rows wide enough for the vector forms and their tails */
static void pool_case(int K, int S, int P, int include_pad, int H, int W)
{
    enum { C = 3, MAXHW = 9 * 117 };
    O2hPool2d p = {.N = 1, .C = C, .H = H, .W = W, .KH = K, .KW = K, .SH = S, .SW = S, .DH = 1, .DW = 1,
                   .PT = P, .PL = P, .PB = P, .PR = P, .count_include_pad = include_pad};
    p.HO = (H + 2 * P - K) / S + 1;
    p.WO = (W + 2 * P - K) / S + 1;
    int8_t x[C * MAXHW], y[C * MAXHW];
    int16_t x16[C * MAXHW], y16[C * MAXHW];
    for (int i = 0; i < C * H * W; i++)
        x[i] = (int8_t)rnd_in(-128, 127), x16[i] = (int16_t)rnd_in(-30000, 30000);
    int32_t mult[64];
    uint8_t shift[64];
    for (int c = 1; c <= K * K; c++) {
        mult[c - 1] = (1 << 30) + c * 12345;
        shift[c - 1] = 31;
    }
    int32_t zx = -9;
    O2hRequant rq = {K * K, mult, shift, 4, -128, 127};
    O2hRequant rq16 = {K * K, mult, shift, 4, -32768, 32767};
    o2h_maxpool2d_s8(&p, x, y, -128);
    o2h_maxpool2d_s16(&p, x16, y16, -32768);
    int bad = 0;
    for (int c = 0; c < C; c++)
        for (int oh = 0; oh < p.HO; oh++)
            for (int ow = 0; ow < p.WO; ow++) {
                int32_t mx = -128, mx16 = -32768;
                for (int kh = 0; kh < K; kh++)
                    for (int kw = 0; kw < K; kw++) {
                        int ih = oh * S - P + kh, iw = ow * S - P + kw;
                        if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                            continue;
                        int i = (c * H + ih) * W + iw;
                        mx = x[i] > mx ? x[i] : mx;
                        mx16 = x16[i] > mx16 ? x16[i] : mx16;
                    }
                int o = (c * p.HO + oh) * p.WO + ow;
                bad += y[o] != mx || y16[o] != mx16;
            }
    CHECK_MSG(bad == 0, "maxpool K%d S%d P%d: %d wrong", K, S, P, bad);
    o2h_avgpool2d_s8(&p, zx, &rq, x, y);
    o2h_avgpool2d_s16(&p, 0, &rq16, x16, y16);
    bad = 0;
    for (int c = 0; c < C; c++)
        for (int oh = 0; oh < p.HO; oh++)
            for (int ow = 0; ow < p.WO; ow++) {
                int64_t acc = 0, acc16 = 0;
                int cnt = 0, cntp = 0;
                for (int kh = 0; kh < K; kh++)
                    for (int kw = 0; kw < K; kw++) {
                        int ih = oh * S - P + kh, iw = ow * S - P + kw;
                        cntp++;
                        if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                            continue;
                        int i = (c * H + ih) * W + iw;
                        acc += x[i] - zx;
                        acc16 += x16[i];
                        cnt++;
                    }
                int n = include_pad ? cntp : cnt;
                int o = (c * p.HO + oh) * p.WO + ow;
                bad += y[o] != ref_out(acc, mult[n - 1], 31, 4, -128, 127);
                bad += y16[o] != ref_out(acc16, mult[n - 1], 31, 4, -32768, 32767);
            }
    CHECK_MSG(bad == 0, "avgpool K%d S%d P%d inc%d: %d wrong", K, S, P, include_pad, bad);
}

static void test_pools(void)
{
    pool_case(2, 2, 0, 0, 7, 8);
    pool_case(3, 2, 1, 0, 7, 8);
    pool_case(3, 1, 1, 1, 7, 8);
    pool_case(3, 3, 1, 0, 7, 8);
    for (int w = 111; w <= 117; w++) /* ResNet's 3x3 s2 max pool on rows past one vector */
        for (int pd = 0; pd <= 1; pd++)
            pool_case(3, 2, pd, 0, 9, w);
    /* global */
    enum { NC = 5, HW = 49 };
    int8_t x[NC * HW], y[NC];
    int16_t x16[NC * HW], y16[NC];
    for (int i = 0; i < NC * HW; i++)
        x[i] = (int8_t)rnd_in(-128, 127), x16[i] = (int16_t)rnd_in(-32768, 32767);
    int32_t m = 1402438300;
    uint8_t sh = 36;
    O2hRequant rq = {1, &m, &sh, -3, -128, 127};
    O2hRequant rq16 = {1, &m, &sh, -3, -32768, 32767};
    o2h_global_avgpool_s8(NC, HW, 11, &rq, x, y);
    o2h_global_avgpool_s16(NC, HW, 11, &rq16, x16, y16);
    int bad = 0;
    for (int c = 0; c < NC; c++) {
        int64_t s = 0, s16 = 0;
        for (int i = 0; i < HW; i++)
            s += x[c * HW + i] - 11, s16 += x16[c * HW + i] - 11;
        bad += y[c] != ref_out(s, m, 36, -3, -128, 127);
        bad += y16[c] != ref_out(s16, m, 36, -3, -32768, 32767);
    }
    CHECK_EQ_INT(bad, 0);
    o2h_global_maxpool_s8(NC, HW, x, y);
    o2h_global_maxpool_s16(NC, HW, x16, y16);
    bad = 0;
    for (int c = 0; c < NC; c++) {
        int32_t mx = -128, mx16 = -32768;
        for (int i = 0; i < HW; i++) {
            mx = x[c * HW + i] > mx ? x[c * HW + i] : mx;
            mx16 = x16[c * HW + i] > mx16 ? x16[c * HW + i] : mx16;
        }
        bad += y[c] != mx || y16[c] != mx16;
    }
    CHECK_EQ_INT(bad, 0);
}

int main(void)
{
    test_rq_edges();
    test_rq_random();
    test_boundaries();
    test_eltwise();
    test_mul_rows();
    test_conv();
    test_conv_few_ch();
    test_conv_dw3();
    test_dw_shifts();
    test_dw_pairs();
    test_dw_pair_rows();
    test_dw_lanes();
    test_dw_lanes_s1();
    test_dw_lanes_hi();
    test_add_same();
    test_conv_wino();
    test_conv_wino_small();
    test_requant_rows();
    test_rq_sweep();
    test_pw_small();
    test_pw_requant();
    test_pw_rqh();
    test_pw_cols();
    test_pw_tile43();
    test_pw_cols_lanes();
    test_pw_full_blocks();
    test_fc();
    test_fc_sizes();
    test_quantize_vec();
    test_pools();
    return check_done();
}
