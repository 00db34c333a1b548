/* interface-bundle: ports of one m_axi bundle with different options. */
void bundle_top(const int *a, const int *b, int *c)
{
#pragma HLS INTERFACE m_axi port=a offset=slave bundle=gmem depth=4 latency=16
#pragma HLS INTERFACE m_axi port=b offset=slave bundle=gmem depth=4 latency=32 // LINT: interface-bundle
#pragma HLS INTERFACE m_axi port=c offset=slave bundle=out depth=4 latency=32
    for (int i = 0; i < 4; i++)
        c[i] = a[i] + b[i];
}
