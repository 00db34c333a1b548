/* function-pointer: pointer types and calls through them. */
typedef int (*op_fn)(int); // LINT: function-pointer

static int twice(int x)
{
    return 2 * x;
}

void fp_top(int *out)
{
#pragma HLS INTERFACE m_axi port=out depth=1
    int (*f)(int) = twice; // LINT: function-pointer
    out[0] = f(3); // LINT: function-pointer
    out[0] += twice(1);
}
