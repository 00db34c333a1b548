/* recursion across files: ping (here) and pong (pong.c) call each other. */
int pong(int n);

int ping(int n)
{
    return n > 0 ? pong(n - 1) : 0; // LINT: recursion
}

static int fact(int n)
{
    return n > 1 ? n * fact(n - 1) : 1; // LINT: recursion
}

void rec_top(int *out)
{
#pragma HLS INTERFACE m_axi port=out depth=1
    out[0] = ping(3) + fact(4);
}
