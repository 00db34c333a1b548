/* small.c - a template for the specializer's tests: every kind of name a
 * template declares at file scope, used from code, macros and pragmas. */
#include <stdint.h>

#include "spec_common.h"

#define O2H_P_N 4
#define O2H_P_ROM {1, 2, 3, 4}
#define O2H_P_SHIFT \
    1
#define O2H_P_EMPTY
#define TWICE(x) ((x) + (x))
#define ROM_AT(i) rom[(i)]

typedef int32_t acc_t;
typedef struct pair { acc_t lo, hi; } pair_t;
enum lane { LANE_A = O2H_P_N, LANE_B };
struct outer { struct inner { int v; } in; enum kind { K_ONE = 1 } k; int rom; };

static const int8_t rom[O2H_P_N] = O2H_P_ROM;
static acc_t acc[O2H_P_N];
extern int external_counter;
int small_extern_fn(int x);

static acc_t step(acc_t a, int i)
{
    return a + TWICE(ROM_AT(i)) + LANE_B - K_ONE;
}

acc_t small_run(pair_t *p)
{
#pragma HLS ARRAY_PARTITION variable=acc type=complete
#pragma HLS BIND_STORAGE variable=rom type=rom_1p impl=lutram
    struct outer o = {{1}, K_ONE, 0};
    int lane = LANE_A;
    for (int i = 0; i < O2H_P_N; i++) {
#pragma HLS UNROLL factor=LANE_A
        acc[i] = step(acc[i], i) >> O2H_P_SHIFT;
    }
    o.rom = rom[0];
    p->lo = acc[0] + o.in.v + o.rom + lane + o2h_common_twice(1) + small_extern_fn(external_counter);
    p->hi = acc[O2H_P_N - 1];
#ifndef __SYNTHESIS__
    p->hi += 0;
#else
    p->hi += acc[1];
#endif
    return p->lo;
}

void small_local(int8_t out[2])
{
    int8_t rom[2] = {0, 1}; /* a local array named like the ROM */
#pragma HLS ARRAY_PARTITION variable=rom type=complete
    out[0] = rom[0];
    out[1] = rom[1];
}
