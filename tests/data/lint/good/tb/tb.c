/* tb.c - C-simulation testbench of the clean design (not linted: tb/ is
 * not synthesized, and it uses malloc and printf freely). */
#include <stdio.h>
#include <stdlib.h>

#include "good.h"

int main(void)
{
    int8_t *src = malloc(GOOD_N);
    int32_t dst = 0, want = 0;
    for (int i = 0; i < GOOD_N; i++) {
        src[i] = (int8_t)(i * 9 - 60);
        want += good_sat(src[i] * 2);
    }
    good_top(src, &dst, 1, GOOD_N);
    free(src);
    printf("%s %d %d\n", dst == want ? "ok" : "MISMATCH", (int)dst, (int)want);
    return dst != want;
}
