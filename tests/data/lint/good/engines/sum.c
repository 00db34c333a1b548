/* sum.c - a clean engine with a loop of variable trip count. */
#include "good.h"

static int32_t add(int32_t a, int32_t b)
{
#pragma HLS INLINE
    return a + b;
}

void good_sum(const int8_t in[GOOD_N], int32_t out[1], int32_t n)
{
    int32_t acc = 0;
    for (int32_t i = 0; i < n && i < GOOD_N; i++) {
#pragma HLS LOOP_TRIPCOUNT min=1 max=GOOD_N
#pragma HLS PIPELINE II=1
        acc = add(acc, in[i]);
    }
    out[0] = acc;
}
