/* top.c - the top of the clean design: m_axi in and out, s_axilite
 * control, a DATAFLOW chain read -> scale -> sum in canonical form. */
#include "good.h"

static void read_in(const int8_t *src, int8_t a[GOOD_N])
{
    for (int i = 0; i < GOOD_N; i++) {
#pragma HLS PIPELINE II=1
        a[i] = src[i];
    }
}

static void write_out(const int32_t s[1], int32_t *dst)
{
    dst[0] = s[0];
}

void good_top(const int8_t *src, int32_t *dst, int32_t shift, int32_t n)
{
#pragma HLS INTERFACE m_axi port=src offset=slave bundle=gmem0 depth=16 max_widen_bitwidth=64
#pragma HLS INTERFACE mode=m_axi port=dst offset=slave bundle=gmem1 depth=1
#pragma HLS INTERFACE s_axilite port=shift
#pragma HLS INTERFACE s_axilite port=n
#pragma HLS INTERFACE s_axilite port=return
#pragma HLS DATAFLOW
    int8_t a[GOOD_N], b[GOOD_N];
    int32_t s[1];
#pragma HLS STREAM variable=a depth=2 type=fifo
#pragma HLS STREAM variable=b depth=2 type=fifo
    read_in(src, a);
    good_scale(a, b, shift);
    good_sum(b, s, n);
    write_out(s, dst);
}
