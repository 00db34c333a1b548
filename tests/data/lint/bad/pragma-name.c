/* pragma-name: variable= and port= must name something in scope. */
static int table[4] = {1, 2, 3, 4};

void name_top(int *out, int k)
{
#pragma HLS INTERFACE m_axi port=out depth=4
#pragma HLS INTERFACE s_axilite port=k
#pragma HLS INTERFACE s_axilite port=return
#pragma HLS INTERFACE s_axilite port=kk // LINT: pragma-name
    int buf[4];
#pragma HLS ARRAY_PARTITION variable=buf complete
#pragma HLS ARRAY_PARTITION variable=table complete
#pragma HLS ARRAY_PARTITION variable=bufs complete // LINT: pragma-name
#pragma HLS INTERFACE s_axilite port=buf // LINT: pragma-name
    for (int i = 0; i < 4; i++) {
#pragma HLS UNROLL
        buf[i] = table[i] + k;
        out[i] = buf[i];
    }
}
