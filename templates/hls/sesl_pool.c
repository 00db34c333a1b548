/* sesl_pool.c - SESL pooling engine: max and average pools over windows
 * (behind sesl_window.c), and the global pools over a whole map.
 *
 * Why these rules: they are the host runtime's (runtime/rt_int_pool.c),
 * bit for bit. Taps off the image never count: a max pool takes the
 * largest in-image code (starting from the layer's lower bound), an average
 * pool sums (x - x_zero) over in-image taps and requantizes with the
 * multiplier of its tap count (1/count folded in at compile time; with
 * count_include_pad the count also includes taps on explicit pads). Which
 * taps are in the image follows from the output position, so the window
 * generator's pad values never matter here.
 *
 * Windowed: one pipelined loop over (pixel, channel tile, tap tile), PA
 * channels x PB taps per cycle. Global: one loop over (pixel, channel tile)
 * accumulating PA channels per cycle, then one loop writing the results.
 */
#include <stdint.h>

#include "o2h_int_contract.h"
#include "o2h_timing.h"

/* ---- parameters (values set per instance by the specializer) ---- */
#define O2H_P_MODE 1        /* 0 max, 1 average, 2 global max, 3 global average */
#define O2H_P_C 4           /* channels */
#define O2H_P_H 6           /* input map */
#define O2H_P_W 6
#define O2H_P_HO 6          /* output map (windowed) */
#define O2H_P_WO 6
#define O2H_P_KH 3
#define O2H_P_KW 3
#define O2H_P_SH 1
#define O2H_P_SW 1
#define O2H_P_DH 1
#define O2H_P_DW 1
#define O2H_P_PT 1          /* explicit pads */
#define O2H_P_PL 1
#define O2H_P_PB 1
#define O2H_P_PR 1
#define O2H_P_INCLUDE_PAD 0 /* count_include_pad */
#define O2H_P_PA 2          /* unroll: channels */
#define O2H_P_PBT 3         /* unroll: taps */
#define O2H_P_XZERO 0       /* input zero point */
#define O2H_P_ZERO 0        /* output zero point and clamp */
#define O2H_P_LO (-128)
#define O2H_P_HI 127
#define O2H_P_ROM "sesl_pool.rom.h"
/* ---- end of parameters ---- */

#define GLOBAL (O2H_P_MODE >= 2)
#define IS_MAX (O2H_P_MODE == 0 || O2H_P_MODE == 2)
#define KK (GLOBAL ? 1 : O2H_P_KH * O2H_P_KW)
#define P_IN (O2H_P_H * O2H_P_W)
#define P_OUT (GLOBAL ? 1 : O2H_P_HO * O2H_P_WO)
#define XW (KK * O2H_P_C)
#define NC ((O2H_P_C + O2H_P_PA - 1) / O2H_P_PA)
#define NR ((KK + O2H_P_PBT - 1) / O2H_P_PBT)

#include O2H_P_ROM

/* requantization per tap count 1..KK (windowed average), or of the sum
 * over the whole map (global average: entry 0) */
static const int32_t mult_rom[KK] = O2H_ROM_MULT;
static const int8_t shift_rom[KK] = O2H_ROM_SHIFT;

/* cycles counted in C simulation (o2h_timing.h) */
int64_t pool_cycles;

#if !GLOBAL
/* along one axis: is tap k of output o in the image, and in image + pads */
static int tap_in(int o, int k, int s, int d, int p0, int len)
{
    int i = o * s - p0 + k * d;
    return i >= 0 && i < len;
}

static int tap_padded(int o, int k, int s, int d, int p0, int p1, int len)
{
    int i = o * s - p0 + k * d;
    return i >= -p0 && i < len + p1;
}

/* taps of output pixel p that count for the average */
static int tap_count(int p)
{
    int oh = p / O2H_P_WO, ow = p % O2H_P_WO, nh = 0, nw = 0, ph = 0, pw = 0;
    for (int k = 0; k < O2H_P_KH; k++) {
        nh += tap_in(oh, k, O2H_P_SH, O2H_P_DH, O2H_P_PT, O2H_P_H);
        ph += tap_padded(oh, k, O2H_P_SH, O2H_P_DH, O2H_P_PT, O2H_P_PB, O2H_P_H);
    }
    for (int k = 0; k < O2H_P_KW; k++) {
        nw += tap_in(ow, k, O2H_P_SW, O2H_P_DW, O2H_P_PL, O2H_P_W);
        pw += tap_padded(ow, k, O2H_P_SW, O2H_P_DW, O2H_P_PL, O2H_P_PR, O2H_P_W);
    }
    return O2H_P_INCLUDE_PAD ? ph * pw : nh * nw;
}

static int tap_valid(int p, int t)
{
    int oh = p / O2H_P_WO, ow = p % O2H_P_WO;
    return t < KK && tap_in(oh, t / O2H_P_KW, O2H_P_SH, O2H_P_DH, O2H_P_PT, O2H_P_H) &&
           tap_in(ow, t % O2H_P_KW, O2H_P_SW, O2H_P_DW, O2H_P_PL, O2H_P_W);
}

static int8_t avg_out(int64_t acc, int cnt)
{
    if (cnt <= 0 || cnt > KK)
        return (int8_t)o2h_clamp32(O2H_P_ZERO, O2H_P_LO, O2H_P_HI);
    return (int8_t)o2h_q_requant64(acc, mult_rom[cnt - 1], shift_rom[cnt - 1], O2H_P_ZERO, O2H_P_LO, O2H_P_HI);
}

static void pool_windowed(const int8_t in[P_OUT][XW], int8_t out[P_OUT][O2H_P_C])
{
    int8_t x[XW], y[O2H_P_C];
#pragma HLS ARRAY_PARTITION variable=x complete
#pragma HLS ARRAY_PARTITION variable=y complete
    int32_t acc[O2H_P_PA];
#pragma HLS ARRAY_PARTITION variable=acc complete
    int p = 0, c = 0, r = 0;
    O2H_LOOP_ENTER(pool_cycles, O2H_DEPTH_POOL(O2H_P_PBT));
    for (int it = 0; it < P_OUT * NC * NR; it++) {
#pragma HLS PIPELINE II=1
        O2H_LOOP_ITER(pool_cycles);
        if (c == 0 && r == 0)
            for (int i = 0; i < XW; i++)
                x[i] = in[p][i];
        for (int a = 0; a < O2H_P_PA; a++) {
#pragma HLS UNROLL
            int ch = c * O2H_P_PA + a;
            int32_t v = r > 0 ? acc[a] : IS_MAX ? O2H_P_LO : 0;
            for (int j = 0; j < O2H_P_PBT; j++) {
#pragma HLS UNROLL
                int t = r * O2H_P_PBT + j;
                if (ch < O2H_P_C && tap_valid(p, t)) {
                    int32_t q = x[t * O2H_P_C + ch];
                    v = IS_MAX ? (q > v ? q : v) : v + q - O2H_P_XZERO;
                }
            }
            acc[a] = v;
            if (r == NR - 1 && ch < O2H_P_C)
                y[ch] = IS_MAX ? (int8_t)v : avg_out(v, tap_count(p));
        }
        if (r == NR - 1 && c == NC - 1)
            for (int i = 0; i < O2H_P_C; i++)
                out[p][i] = y[i];
        if (++r == NR) {
            r = 0;
            if (++c == NC) {
                c = 0;
                p++;
            }
        }
    }
}

#else
static void pool_global(const int8_t in[P_IN][O2H_P_C], int8_t out[1][O2H_P_C])
{
    int32_t acc[NC * O2H_P_PA];   /* padded to whole channel tiles: PA banks of one depth */
#pragma HLS ARRAY_PARTITION variable=acc cyclic factor=O2H_P_PA
    for (int i = 0; i < NC * O2H_P_PA; i++)
        acc[i] = IS_MAX ? -128 : 0;
    int p = 0, c = 0;
    O2H_LOOP_ENTER(pool_cycles, O2H_DEPTH_POOL(1));
    for (int it = 0; it < P_IN * NC; it++) {
#pragma HLS PIPELINE II=1
        O2H_LOOP_ITER(pool_cycles);
        for (int a = 0; a < O2H_P_PA; a++) {
#pragma HLS UNROLL
            int ch = c * O2H_P_PA + a;
            if (ch < O2H_P_C) {
                int32_t q = in[p][ch];
                acc[ch] = IS_MAX ? (q > acc[ch] ? q : acc[ch]) : acc[ch] + q;
            }
        }
        if (++c == NC) {
            c = 0;
            p++;
        }
    }
    O2H_LOOP_ENTER(pool_cycles, O2H_DEPTH_ELT);
    for (int ct = 0; ct < NC; ct++) {
#pragma HLS PIPELINE II=1
        O2H_LOOP_ITER(pool_cycles);
        for (int a = 0; a < O2H_P_PA; a++) {
#pragma HLS UNROLL
            int ch = ct * O2H_P_PA + a;
            if (ch < O2H_P_C)
                out[0][ch] = IS_MAX ? (int8_t)acc[ch]
                                    : (int8_t)o2h_q_requant((int64_t)acc[ch] - (int64_t)P_IN * O2H_P_XZERO,
                                                            mult_rom[0], shift_rom[0], O2H_P_ZERO, O2H_P_LO,
                                                            O2H_P_HI);
        }
    }
}

#endif

/* in: windows (windowed modes) or the map's pixels (global modes) */
void pool_run(const int8_t in[GLOBAL ? P_IN : P_OUT][GLOBAL ? O2H_P_C : XW], int8_t out[P_OUT][O2H_P_C])
{
#if GLOBAL
    pool_global(in, out);
#else
    pool_windowed(in, out);
#endif
}
