/* xrt/xrt_kernel.h - the declarations of XRT's kernel and run C API that
 * OUT/accel's xrt backend uses, copied from XRT src/runtime_src/core/include/
 * xrt/xrt_kernel.h and xrt/detail/ert.h (Apache-2.0). Compile-checking only. */
#ifndef O2H_SDK_XRT_KERNEL_H
#define O2H_SDK_XRT_KERNEL_H

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"

enum ert_cmd_state {
    ERT_CMD_STATE_NEW = 1,
    ERT_CMD_STATE_QUEUED = 2,
    ERT_CMD_STATE_RUNNING = 3,
    ERT_CMD_STATE_COMPLETED = 4,
    ERT_CMD_STATE_ERROR = 5,
    ERT_CMD_STATE_ABORT = 6,
    ERT_CMD_STATE_SUBMITTED = 7,
    ERT_CMD_STATE_TIMEOUT = 8,
    ERT_CMD_STATE_NORESPONSE = 9,
    ERT_CMD_STATE_SKERROR = 10,
    ERT_CMD_STATE_SKCRASHED = 11,
    ERT_CMD_STATE_MAX,
};

typedef void *xrtKernelHandle;
typedef void *xrtRunHandle;

xrtKernelHandle xrtPLKernelOpen(xrtDeviceHandle deviceHandle, const xuid_t xclbinId, const char *name);
int xrtKernelClose(xrtKernelHandle kernelHandle);
int xrtKernelArgGroupId(xrtKernelHandle kernelHandle, int argno);
xrtRunHandle xrtRunOpen(xrtKernelHandle kernelHandle);
int xrtRunSetArg(xrtRunHandle rhdl, int index, ...);
int xrtRunStart(xrtRunHandle rhdl);
enum ert_cmd_state xrtRunWait(xrtRunHandle rhdl);
int xrtRunClose(xrtRunHandle rhdl);

#endif
