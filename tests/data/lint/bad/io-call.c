/* io-call: I/O and system calls outside #ifndef __SYNTHESIS__. */
#include <stdio.h>
#include <stdlib.h>

void io_top(int *out)
{
#pragma HLS INTERFACE m_axi port=out depth=1
    out[0] = 1;
    printf("done\n"); // LINT: io-call
#ifndef __SYNTHESIS__
    printf("C simulation only\n");
    FILE *f = fopen("/dev/null", "w");
    if (f)
        fclose(f);
#endif
    if (out[0] < 0)
        exit(1); // LINT: io-call
}
