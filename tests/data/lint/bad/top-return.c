/* top-return: the top returns a value. */
int ret_top(const int *in) // LINT: top-return
{
#pragma HLS INTERFACE m_axi port=in depth=4
    return in[0];
}
