/* unroll-factor: factors divide constant trip counts; no full unroll of a
 * variable loop. */
void unroll_top(int *out, int n)
{
#pragma HLS INTERFACE m_axi port=out depth=8
    for (int i = 0; i < 8; i++) {
#pragma HLS UNROLL factor=3 // LINT: unroll-factor
        out[i] = i;
    }
    for (int i = 0; i < 8; i++) {
#pragma HLS UNROLL factor=4
        out[i] += i;
    }
    for (int i = 0; i < n; i++) {
#pragma HLS LOOP_TRIPCOUNT max=8
#pragma HLS UNROLL // LINT: unroll-factor
        out[i] += 1;
    }
}
