/* good.h - shared definitions of the clean design the lint tests accept. */
#ifndef GOOD_H
#define GOOD_H

#include <stdint.h>

#define GOOD_N 16
#define GOOD_LANES 4

enum { GOOD_BANKS = GOOD_LANES };

static inline int8_t good_sat(int32_t v)
{
    return (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
}

void good_scale(const int8_t in[GOOD_N], int8_t out[GOOD_N], int32_t shift);
void good_sum(const int8_t in[GOOD_N], int32_t out[1], int32_t n);
void good_top(const int8_t *src, int32_t *dst, int32_t shift, int32_t n);

#endif
