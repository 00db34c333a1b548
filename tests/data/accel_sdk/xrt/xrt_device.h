/* xrt/xrt_device.h - the declarations of XRT's device C API that OUT/accel's
 * xrt backend uses, copied from XRT src/runtime_src/core/include/xrt/
 * xrt_device.h (Apache-2.0). Compile-checking only: see ../README.md. */
#ifndef O2H_SDK_XRT_DEVICE_H
#define O2H_SDK_XRT_DEVICE_H

typedef unsigned char uuid_t[16];   /* <uuid/uuid.h> */
typedef uuid_t xuid_t;              /* xrt/xrt_uuid.h */

typedef void *xrtDeviceHandle;

xrtDeviceHandle xrtDeviceOpen(unsigned int index);
int xrtDeviceClose(xrtDeviceHandle dhdl);
int xrtDeviceLoadXclbinFile(xrtDeviceHandle dhdl, const char *xclbin_fnm);
int xrtDeviceGetXclbinUUID(xrtDeviceHandle dhdl, xuid_t out);

#endif
