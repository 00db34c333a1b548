/* xrt/xrt_bo.h - the declarations of XRT's buffer-object C API that
 * OUT/accel's xrt backend uses, copied from XRT src/runtime_src/core/include/
 * xrt/xrt_bo.h and xrt/deprecated/xrt.h (Apache-2.0). Compile-checking only. */
#ifndef O2H_SDK_XRT_BO_H
#define O2H_SDK_XRT_BO_H

#include <stddef.h>
#include <stdint.h>

#include "xrt/xrt_device.h"

typedef void *xrtBufferHandle;
typedef uint64_t xrtBufferFlags;
typedef uint32_t xrtMemoryGroup;

enum xclBOSyncDirection {
    XCL_BO_SYNC_BO_TO_DEVICE = 0,
    XCL_BO_SYNC_BO_FROM_DEVICE,
    XCL_BO_SYNC_BO_GMIO_TO_AIE,
    XCL_BO_SYNC_BO_AIE_TO_GMIO,
};

xrtBufferHandle xrtBOAlloc(xrtDeviceHandle dhdl, size_t size, xrtBufferFlags flags, xrtMemoryGroup grp);
int xrtBOFree(xrtBufferHandle bhdl);
int xrtBOSync(xrtBufferHandle bhdl, enum xclBOSyncDirection dir, size_t size, size_t offset);
void *xrtBOMap(xrtBufferHandle bhdl);

#endif
