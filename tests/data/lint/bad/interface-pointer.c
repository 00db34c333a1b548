/* interface-pointer: a pointer to a pointer on the top's interface. */
void ipp_top(int **rows, int *out) // LINT: interface-pointer
{
#pragma HLS INTERFACE m_axi port=out depth=4
    out[0] = rows[0][0];
}

/* not the top: its pointer to a pointer is not an interface */
int ipp_helper(int **rows)
{
    return rows[0][0];
}
