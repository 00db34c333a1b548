/* tripcount: loops with variable bounds carry LOOP_TRIPCOUNT. */
#define N 16

void trip_top(int *out, int n)
{
#pragma HLS INTERFACE m_axi port=out depth=16
    for (int i = 0; i < n; i++) // LINT: tripcount
        out[i] = i;
    for (int i = 0; i < n; i++) {
#pragma HLS LOOP_TRIPCOUNT min=1 max=16
        out[i] += 1;
    }
    for (int i = N - 1; i >= 0; i -= 2)
        out[i] += 2;
    for (int i = 0; i + 1 < N; i++)
        out[i] += out[i + 1];
    int k = 0;
    while (k < n) // LINT: tripcount
        out[k++] = 0;
}
