/* interface-depth: every m_axi port needs depth=. */
void depth_top(const int *in, int *out)
{
#pragma HLS INTERFACE m_axi port=in offset=slave bundle=gmem0 // LINT: interface-depth
#pragma HLS INTERFACE mode=m_axi port=out offset=slave bundle=gmem1 depth=4
#pragma HLS INTERFACE s_axilite port=return
    for (int i = 0; i < 4; i++)
        out[i] = in[i];
}
