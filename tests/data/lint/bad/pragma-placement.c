/* pragma-placement: pragmas where their directive does not apply. */
#pragma HLS INLINE // LINT: pragma-placement

static void work(int *x)
{
#pragma HLS UNROLL factor=2 // LINT: pragma-placement
#pragma HLS LOOP_TRIPCOUNT max=4 // LINT: pragma-placement
    for (int i = 0; i < 4; i++) {
#pragma HLS PIPELINE II=1
        x[i] += 1;
    }
    if (x[0]) {
#pragma HLS PIPELINE II=1 // LINT: pragma-placement
#pragma HLS DATAFLOW // LINT: pragma-placement
        x[0] = 0;
    }
}

void place_top(int *x)
{
#pragma HLS PIPELINE II=1
    for (int i = 0; i < 2; i++) {
#pragma HLS INTERFACE m_axi port=x depth=4 // LINT: pragma-placement
        work(x);
    }
}
