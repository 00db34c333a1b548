/* partition-factor: partition factors divide the dimension they split. */
void part_top(int *out)
{
#pragma HLS INTERFACE m_axi port=out depth=8
    int a[8][6];
#pragma HLS ARRAY_PARTITION variable=a type=cyclic factor=3 dim=1 // LINT: partition-factor
#pragma HLS ARRAY_PARTITION variable=a type=block factor=3 dim=2
#pragma HLS ARRAY_RESHAPE variable=a cyclic factor=4 dim=0 // LINT: partition-factor
#pragma HLS ARRAY_PARTITION variable=a complete dim=3 // LINT: partition-factor
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 6; j++)
            a[i][j] = i + j;
    for (int i = 0; i < 8; i++)
        out[i] = a[i][0];
}
