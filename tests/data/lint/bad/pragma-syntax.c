/* pragma-syntax: directives, options and values outside the vocabulary. */
void syn_top(int *out)
{
#pragma HLS INTERFACE m_axi port=out depth=8
    int buf[8];
#pragma HLS PIPELIN II=1 // LINT: pragma-syntax
#pragma HLS ARRAY_PARTITION variable=buf type=diagonal factor=2 // LINT: pragma-syntax
#pragma HLS ARRAY_PARTITION variable=buf cyclic fator=2 // LINT: pragma-syntax
#pragma HLS STREAM depth=4 // LINT: pragma-syntax
#pragma HLS INLINE always // LINT: pragma-syntax
#pragma HLS BIND_STORAGE variable=buf type=ram_2p impl=flipflops // LINT: pragma-syntax
    for (int i = 0; i < 8; i++) {
#pragma HLS PIPELINE II=1 rewind=maybe // LINT: pragma-syntax
        buf[i] = i;
    }
    for (int i = 0; i < 8; i++)
        out[i] = buf[i];
}
