/* xil_types.h - the standalone BSP's integer types that the Vitis HLS
 * driver and OUT/accel's baremetal backend use (embeddedsw
 * lib/bsp/standalone/src/common/xil_types.h, MIT; 64-bit ARM). */
#ifndef O2H_SDK_XIL_TYPES_H
#define O2H_SDK_XIL_TYPES_H

#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef intptr_t INTPTR;
typedef uintptr_t UINTPTR;

#endif
