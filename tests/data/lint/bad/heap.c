/* heap: dynamic memory in synthesized code. */
#include <stdlib.h>

void heap_top(int *out, int n)
{
#pragma HLS INTERFACE m_axi port=out depth=16
    int *tmp = malloc(16 * sizeof *tmp); // LINT: heap
    for (int i = 0; i < 16; i++)
        tmp[i] = n + i;
    for (int i = 0; i < 16; i++)
        out[i] = tmp[i];
    free(tmp); // LINT: heap
#ifndef __SYNTHESIS__
    char *log = calloc(4, 1); /* C simulation only: not linted */
    free(log);
#endif
}
