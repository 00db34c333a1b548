/* dataflow-bypass: a channel from one process to a later, non-adjacent one. */
static void split(const int *in, int x[4], int skip[4])
{
    for (int i = 0; i < 4; i++) {
        x[i] = in[i];
        skip[i] = in[i];
    }
}

static void twice(const int x[4], int y[4])
{
    for (int i = 0; i < 4; i++)
        y[i] = 2 * x[i];
}

static void add(const int y[4], const int skip[4], int *out)
{
    for (int i = 0; i < 4; i++)
        out[i] = y[i] + skip[i];
}

void bypass_top(const int *in, int *out)
{
#pragma HLS INTERFACE m_axi port=in depth=4
#pragma HLS INTERFACE m_axi port=out depth=4
#pragma HLS DATAFLOW
    int x[4], y[4], skip[4];
    split(in, x, skip);
    twice(x, y);
    add(y, skip, out); // LINT: dataflow-bypass
}
