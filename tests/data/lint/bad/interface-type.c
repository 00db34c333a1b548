/* interface-type: enums and _Complex on the top's interface (also inside a
 * struct behind a pointer). */
#include <stdint.h>

enum mode { MODE_A, MODE_B };
typedef struct {
    int32_t n;
    enum mode m;
} Desc;

void ity_top(enum mode m, const Desc *d, _Complex float z, int32_t *out) // LINT: interface-type, interface-type, interface-type
{
#pragma HLS INTERFACE m_axi port=d depth=1
#pragma HLS INTERFACE m_axi port=out depth=1
    out[0] = (int32_t)m + d->n + (int32_t)__real__ z;
}
