/* xil_cache.h - the standalone BSP's data-cache range maintenance that the
 * baremetal backend uses (embeddedsw lib/bsp/standalone/src/arm/ARMv8/64bit/
 * xil_cache.h, MIT). Compile-checking only: see README.md. */
#ifndef O2H_SDK_XIL_CACHE_H
#define O2H_SDK_XIL_CACHE_H

#include "xil_types.h"

void Xil_DCacheInvalidateRange(INTPTR adr, INTPTR len);
void Xil_DCacheFlushRange(INTPTR adr, INTPTR len);

#endif
