/* scale.c - a clean engine: pipelined loop over tiles of GOOD_LANES lanes. */
#include "good.h"

#ifndef __SYNTHESIS__
#include <stdio.h>
long good_scale_calls;
#endif

void good_scale(const int8_t in[GOOD_N], int8_t out[GOOD_N], int32_t shift)
{
    int8_t buf[GOOD_N];
#pragma HLS ARRAY_PARTITION variable=buf type=cyclic factor=GOOD_BANKS dim=1
    for (int i = 0; i < GOOD_N; i++)
        buf[i] = in[i];
    for (int t = 0; t < GOOD_N / GOOD_LANES; t++) {
#pragma HLS PIPELINE II=1
        for (int l = 0; l < GOOD_LANES; l++) {
#pragma HLS UNROLL
            int k = t * GOOD_LANES + l;
            out[k] = good_sat((int32_t)buf[k] << shift);
        }
    }
#ifndef __SYNTHESIS__
    if (++good_scale_calls == 1)
        printf("good_scale: first call\n");
#endif
}
