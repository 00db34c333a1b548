/* param_if.c - a template for the specializer's tests whose declarations
 * depend on a parameter: the names to prefix are those the instance
 * compiles, whichever branch its values select. */
#include <stdint.h>

#define O2H_P_WIDE 0

int32_t param_if_count;

static int32_t twice(int32_t x)
{
    return 2 * x;
}

#if O2H_P_WIDE
int32_t param_if_run(const int8_t in[4], const int8_t extra[4])
{
    param_if_count += 2;
    return twice(in[0]) + extra[0];
}
#else
int32_t param_if_run(const int8_t in[4])
{
    param_if_count += 1;
    return twice(in[0]);
}
#endif
