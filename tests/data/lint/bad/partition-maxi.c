/* partition-maxi: no partitioning of an m_axi port. */
void maxi_top(int in[8], int *out)
{
#pragma HLS INTERFACE m_axi port=in depth=8
#pragma HLS INTERFACE m_axi port=out depth=8
#pragma HLS ARRAY_PARTITION variable=in complete // LINT: partition-maxi
    for (int i = 0; i < 8; i++)
        out[i] = in[i];
}
