/* sesl_mac.c - SESL compute engine of one convolution or FC layer
 * (standard, grouped, depthwise or pointwise), with its fused epilogue.
 *
 * Why one template for every conv class: each is the same loop nest,
 * A outputs (filters) x B reduction terms x P output pixels (docs/hls.md),
 * and differs only in which input value a (filter, term) pair reads. The
 * input word of an output pixel is its window in [kh][kw][c] order (from
 * sesl_window.c; for a 1x1, stride-1 layer the input pixel itself), the
 * weights are stored in the same order, and the term t of filter f reads
 *     x[(t / CG) * C + (f / FG) * CG + t % CG],   CG = C/G, FG = F/G,
 * which is the window itself for G = 1 and the filter's own channel for a
 * depthwise layer. The loop over (pixel, filter tile, reduction tile) is
 * flattened by hand into one pipelined loop (II=1): a new input word is
 * read at the first iteration of a pixel, PA x PB multiply-accumulates run
 * every cycle (UNROLL over the PE shape), and at the last reduction tile the
 * PA results pass through the epilogue.
 *
 * Epilogue (runtime/o2h_int_contract.h, the host's arithmetic exactly):
 *   y = clamp(z + rq(acc, M[f], sh[f]), lo, hi)          conv/FC requantization
 *   y = add(y, skip[f])                                     residual Add (O2H_P_ADD)
 *   y = table[y]                                            activation table (O2H_P_LUT)
 * acc starts from the folded bias b'[f] = b_q[f] - z_x * sum(w[f]).
 *
 * ROMs: weights [NF*NR][PA][PB] (zero-padded tiles, PA banks of PB words as
 * the planner counts them), per-filter bias, multiplier, shift, and the
 * table, all from the instance's ROM header (O2H_P_ROM).
 */
#include <stdint.h>

#include "o2h_int_contract.h"
#include "o2h_timing.h"

/* ---- parameters (values set per instance by the specializer) ---- */
#define O2H_P_C 4           /* input channels (FC: H*W*C of its input) */
#define O2H_P_F 6           /* output channels */
#define O2H_P_G 1           /* groups */
#define O2H_P_KK 9          /* kernel taps KH*KW (1 for pointwise and FC) */
#define O2H_P_P 4           /* output pixels */
#define O2H_P_PA 2          /* unroll: filters */
#define O2H_P_PB 9          /* unroll: reduction terms */
#define O2H_P_ZERO 0        /* output zero point and clamp */
#define O2H_P_LO (-128)
#define O2H_P_HI 127
#define O2H_P_ADD 0         /* 1: residual Add of the skip stream */
#define O2H_P_ADD_ZA 0      /* Add: this layer's code, zero point and multiplier */
#define O2H_P_ADD_MA 1073741824
#define O2H_P_ADD_ZB 0      /* Add: skip code */
#define O2H_P_ADD_MB 1073741824
#define O2H_P_ADD_SH 31
#define O2H_P_ADD_ZERO 0
#define O2H_P_ADD_LO (-128)
#define O2H_P_ADD_HI 127
#define O2H_P_LUT 0         /* 1: activation table after the Add */
#define O2H_P_ROM "sesl_mac.rom.h"
#define O2H_P_ROM_IMPL bram /* where the weight ROM lives: bram, uram, lutram */
/* ---- end of parameters ---- */

#define CG (O2H_P_C / O2H_P_G)
#define FG (O2H_P_F / O2H_P_G)
#define B (CG * O2H_P_KK)
#define NF ((O2H_P_F + O2H_P_PA - 1) / O2H_P_PA)
#define NR ((B + O2H_P_PB - 1) / O2H_P_PB)
#define XW (O2H_P_KK * O2H_P_C)
#define SKIP_F (O2H_P_ADD ? O2H_P_F : 1)

#include O2H_P_ROM

static const int8_t w_rom[NF * NR][O2H_P_PA][O2H_P_PB] = O2H_ROM_WEIGHTS;
static const int32_t bias_rom[NF][O2H_P_PA] = O2H_ROM_BIAS;
static const int32_t mult_rom[NF][O2H_P_PA] = O2H_ROM_MULT;
static const int8_t shift_rom[NF][O2H_P_PA] = O2H_ROM_SHIFT;
static const int8_t lut_rom[256] = O2H_ROM_LUT;

/* cycles counted in C simulation (o2h_timing.h) */
int64_t mac_cycles;

/* input value of term t for output channel f (0 for padded lanes) */
static int32_t term(const int8_t x[XW], int f, int t)
{
    if (t >= B || f >= O2H_P_F)
        return 0;
    return x[(t / CG) * O2H_P_C + (f / FG) * CG + t % CG];
}

static int8_t epilogue(int32_t acc, int f, int8_t skip)
{
    int32_t y = o2h_q_requant(acc, mult_rom[f / O2H_P_PA][f % O2H_P_PA], shift_rom[f / O2H_P_PA][f % O2H_P_PA],
                              O2H_P_ZERO, O2H_P_LO, O2H_P_HI);
    if (O2H_P_ADD)
        y = o2h_q_add(y, O2H_P_ADD_ZA, O2H_P_ADD_MA, skip, O2H_P_ADD_ZB, O2H_P_ADD_MB, O2H_P_ADD_SH,
                      O2H_P_ADD_ZERO, O2H_P_ADD_LO, O2H_P_ADD_HI);
    if (O2H_P_LUT)
        y = o2h_q_lut(y, lut_rom);
    return (int8_t)y;
}

#if O2H_P_ADD
void mac_run(const int8_t in[O2H_P_P][XW], int8_t out[O2H_P_P][O2H_P_F], const int8_t skip[O2H_P_P][O2H_P_F])
#else
void mac_run(const int8_t in[O2H_P_P][XW], int8_t out[O2H_P_P][O2H_P_F])
#endif
{
#pragma HLS ARRAY_PARTITION variable=w_rom dim=2 complete
#pragma HLS ARRAY_RESHAPE variable=w_rom dim=3 complete
#pragma HLS BIND_STORAGE variable=w_rom type=rom_1p impl=O2H_P_ROM_IMPL
#pragma HLS ARRAY_PARTITION variable=bias_rom dim=2 complete
#pragma HLS ARRAY_PARTITION variable=mult_rom dim=2 complete
#pragma HLS ARRAY_PARTITION variable=shift_rom dim=2 complete
    int8_t x[XW], s[SKIP_F] = {0}, y[O2H_P_F];
#pragma HLS ARRAY_PARTITION variable=x complete
#pragma HLS ARRAY_PARTITION variable=s complete
#pragma HLS ARRAY_PARTITION variable=y complete
    int32_t acc[O2H_P_PA];
#pragma HLS ARRAY_PARTITION variable=acc complete
    int p = 0, f = 0, r = 0;
    O2H_LOOP_ENTER(mac_cycles, O2H_DEPTH_MAC(O2H_P_PB));
    for (int it = 0; it < O2H_P_P * NF * NR; it++) {
#pragma HLS PIPELINE II=1
        O2H_LOOP_ITER(mac_cycles);
        if (f == 0 && r == 0) {
            for (int i = 0; i < XW; i++)
                x[i] = in[p][i];
#if O2H_P_ADD
            for (int i = 0; i < SKIP_F; i++)
                s[i] = skip[p][i];
#endif
        }
        for (int a = 0; a < O2H_P_PA; a++) {
#pragma HLS UNROLL
            int32_t sum = r == 0 ? bias_rom[f][a] : acc[a];
            for (int j = 0; j < O2H_P_PB; j++) {
#pragma HLS UNROLL
                sum += w_rom[f * NR + r][a][j] * term(x, f * O2H_P_PA + a, r * O2H_P_PB + j);
            }
            acc[a] = sum;
        }
        if (r == NR - 1) {
            for (int a = 0; a < O2H_P_PA; a++) {
#pragma HLS UNROLL
                int ch = f * O2H_P_PA + a;
                if (ch < O2H_P_F)
                    y[ch] = epilogue(acc[a], ch, s[O2H_P_ADD ? ch : 0]);
            }
            if (f == NF - 1)
                for (int i = 0; i < O2H_P_F; i++)
                    out[p][i] = y[i];
        }
        if (++r == NR) {
            r = 0;
            if (++f == NF) {
                f = 0;
                p++;
            }
        }
    }
}
