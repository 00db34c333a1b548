/* dataflow-channel: one writer and one reader per channel. */
static void produce(const int *in, int ch[4])
{
    for (int i = 0; i < 4; i++)
        ch[i] = in[i];
}

static void bump(int ch[4])
{
    for (int i = 0; i < 4; i++)
        ch[i] += 1;
}

static void consume(const int ch[4], int *out)
{
    for (int i = 0; i < 4; i++)
        out[i] = ch[i];
}

void chan_top(const int *in, int *out)
{
#pragma HLS INTERFACE m_axi port=in depth=4
#pragma HLS INTERFACE m_axi port=out depth=4
#pragma HLS DATAFLOW
    int a[4], b[4]; // LINT: dataflow-channel, dataflow-channel
    produce(in, a);
    bump(a); // LINT: dataflow-channel
    consume(a, out);
    produce(in, b);
    produce(in, b);
    consume(b, out);
}
