/* dataflow-form: a DATAFLOW region holds declarations and calls only. */
static void produce(const int *in, int ch[4])
{
    for (int i = 0; i < 4; i++)
        ch[i] = in[i];
}

static void consume(const int ch[4], int *out)
{
    for (int i = 0; i < 4; i++)
        out[i] = ch[i];
}

void form_top(const int *in, int *out)
{
#pragma HLS INTERFACE m_axi port=in depth=4
#pragma HLS INTERFACE m_axi port=out depth=4
#pragma HLS DATAFLOW
    int ch[4];
    produce(in, ch);
    for (int i = 0; i < 4; i++) // LINT: dataflow-form
        ch[i] += 1;
    out[0] = 0; // LINT: dataflow-form
    consume(ch, out);
}
