/* sesl_window.c - SESL sliding-window generator: a feature map streamed in
 * raster order (one pixel, all channels, per word) in; for every output
 * pixel of a windowed layer, its KH x KW x C window out.
 *
 * Why a process of its own: the compute engine behind it (sesl_mac.c,
 * sesl_pool.c) spends ceil(A/pa)*ceil(B/pb) cycles per output pixel while
 * this one walks the padded input at one pixel per cycle; in a DATAFLOW
 * region both run at once and the stage takes the longer of the two
 * (docs/hls.md, section 4). It walks every position of the padded input
 * (pads read as O2H_P_PAD, the input's zero point, so a padded tap is an
 * exact real 0), keeps the last KSPAN_H rows in a line buffer banked by
 * row, shifts a KSPAN_H x KSPAN_W register window one column per cycle and
 * emits the window whenever its bottom-right corner sits on the stride
 * grid. Window layout: [kh][kw][c], the order of the compute engine's
 * reduction (weights are permuted to match at compile time).
 *
 * FC layers are convolutions whose window is the whole map (KH = H,
 * KW = W): one window, in (h, w, c) order.
 */
#include <stdint.h>

#include "o2h_timing.h"

/* ---- parameters (values set per instance by the specializer) ---- */
#define O2H_P_C 4       /* channels */
#define O2H_P_H 6       /* input rows */
#define O2H_P_W 6       /* input columns */
#define O2H_P_KH 3
#define O2H_P_KW 3
#define O2H_P_SH 1      /* strides */
#define O2H_P_SW 1
#define O2H_P_DH 1      /* dilations */
#define O2H_P_DW 1
#define O2H_P_PT 1      /* pads: top, left, bottom, right */
#define O2H_P_PL 1
#define O2H_P_PB 1
#define O2H_P_PR 1
#define O2H_P_PAD 0     /* code read at padded positions */
/* ---- end of parameters ---- */

#define KSPAN_H ((O2H_P_KH - 1) * O2H_P_DH + 1)
#define KSPAN_W ((O2H_P_KW - 1) * O2H_P_DW + 1)
#define HP (O2H_P_H + O2H_P_PT + O2H_P_PB)
#define WP (O2H_P_W + O2H_P_PL + O2H_P_PR)
#define HO ((HP - KSPAN_H) / O2H_P_SH + 1)
#define WO ((WP - KSPAN_W) / O2H_P_SW + 1)
#define WIN (O2H_P_KH * O2H_P_KW * O2H_P_C)

/* cycles counted in C simulation (o2h_timing.h) */
int64_t window_cycles;

static int inside(int hp, int wp)
{
    return hp >= O2H_P_PT && hp < O2H_P_PT + O2H_P_H && wp >= O2H_P_PL && wp < O2H_P_PL + O2H_P_W;
}

static int emits(int hp, int wp)
{
    return hp >= KSPAN_H - 1 && wp >= KSPAN_W - 1 && (hp - (KSPAN_H - 1)) % O2H_P_SH == 0 &&
           (wp - (KSPAN_W - 1)) % O2H_P_SW == 0 && (hp - (KSPAN_H - 1)) / O2H_P_SH < HO &&
           (wp - (KSPAN_W - 1)) / O2H_P_SW < WO;
}

void window_run(const int8_t in[O2H_P_H * O2H_P_W][O2H_P_C], int8_t out[HO * WO][WIN])
{
    static int8_t lb[KSPAN_H][WP][O2H_P_C];
#pragma HLS ARRAY_PARTITION variable=lb dim=1 complete
#pragma HLS ARRAY_RESHAPE variable=lb dim=3 complete
    int8_t reg[KSPAN_H][KSPAN_W][O2H_P_C];
#pragma HLS ARRAY_PARTITION variable=reg dim=0 complete
    int hp = 0, wp = 0, q = 0, p = 0;
    O2H_LOOP_ENTER(window_cycles, O2H_DEPTH_WINDOW);
    for (int it = 0; it < HP * WP; it++) {
#pragma HLS PIPELINE II=1
        O2H_LOOP_ITER(window_cycles);
        int8_t px[O2H_P_C];
        for (int c = 0; c < O2H_P_C; c++)
            px[c] = O2H_P_PAD;
        if (inside(hp, wp)) {
            for (int c = 0; c < O2H_P_C; c++)
                px[c] = in[p][c];
            p++;
        }
        for (int kh = 0; kh < KSPAN_H; kh++) {          /* shift in the new column */
            for (int kw = 0; kw + 1 < KSPAN_W; kw++)
                for (int c = 0; c < O2H_P_C; c++)
                    reg[kh][kw][c] = reg[kh][kw + 1][c];
            int row = hp - (KSPAN_H - 1) + kh;             /* padded row of this tap row */
            for (int c = 0; c < O2H_P_C; c++)
                reg[kh][KSPAN_W - 1][c] = kh == KSPAN_H - 1 ? px[c] : row >= 0 ? lb[row % KSPAN_H][wp][c] : O2H_P_PAD;
        }
        for (int c = 0; c < O2H_P_C; c++)
            lb[hp % KSPAN_H][wp][c] = px[c];
        if (emits(hp, wp)) {
            for (int kh = 0; kh < O2H_P_KH; kh++)
                for (int kw = 0; kw < O2H_P_KW; kw++)
                    for (int c = 0; c < O2H_P_C; c++)
                        out[q][(kh * O2H_P_KW + kw) * O2H_P_C + c] = reg[kh * O2H_P_DH][kw * O2H_P_DW][c];
            q++;
        }
        if (++wp == WP) {
            wp = 0;
            hp++;
        }
    }
}
