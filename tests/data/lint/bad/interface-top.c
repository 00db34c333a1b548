/* interface-top: INTERFACE pragmas outside the top (top named by --top).
 * ARGS: --top top_fn */
static void helper(int *x)
{
#pragma HLS INTERFACE m_axi port=x depth=4 // LINT: interface-top
    x[0] = 1;
}

void top_fn(int *x)
{
    helper(x);
}
