/* vla: arrays whose size is not a constant. */
void vla_top(int *out, int n)
{
#pragma HLS INTERFACE m_axi port=out depth=8
    int buf[n]; // LINT: vla
    for (int i = 0; i < 8; i++) {
        buf[i % n] = i;
        out[i] = buf[i % n];
    }
}
