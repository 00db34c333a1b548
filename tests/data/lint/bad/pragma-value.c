/* pragma-value: integer options whose value is not a constant. */
enum { LANES = 4 };
#define DEPTH (2 * LANES)

void val_top(int *out, int n)
{
#pragma HLS INTERFACE m_axi port=out depth=DEPTH
    int buf[8];
#pragma HLS ARRAY_PARTITION variable=buf type=cyclic factor=LANES
    for (int i = 0; i < 8; i++) {
#pragma HLS UNROLL factor=n // LINT: pragma-value
        buf[i] = i;
    }
    for (int i = 0; i < 8; i++) {
#pragma HLS PIPELINE II=fast // LINT: pragma-value
        out[i] = buf[i];
    }
}
