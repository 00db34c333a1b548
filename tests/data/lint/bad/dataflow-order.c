/* dataflow-order: the producer is called before the consumer. */
void order_produce(const int *in, int ch[4]);
void order_consume(const int ch[4], int *out);

void order_top(const int *in, int *out)
{
#pragma HLS INTERFACE m_axi port=in depth=4
#pragma HLS INTERFACE m_axi port=out depth=4
#pragma HLS DATAFLOW
    int ch[4];
    order_consume(ch, out); // LINT: dataflow-order
    order_produce(in, ch);
}
