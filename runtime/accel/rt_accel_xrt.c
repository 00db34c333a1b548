/* rt_accel_xrt.c - the `xrt` backend: the accelerator as an xclbin on a
 * device driven by XRT's C API (xrt/xrt_device.h, xrt_kernel.h, xrt_bo.h;
 * link with -lxrt_coreutil).
 *
 * Buffers: one buffer object per top-level memory argument - the feature-
 * map arena (passed to fm_bnd, fm_r and fm_w, so link those bundles to one
 * memory bank), the SESL input buffer of each copy (fm_in), the weight
 * image and the descriptors - each allocated in its argument's bank,
 * mapped once, and synced by range around the calls.
 *
 * Overlap: the SESL part and the SEML part are concurrent processes of the
 * top's DATAFLOW region, so one call runs the SESL part of frame i+1
 * (run_sesl = 1 + its copy) with a SEML range of frame i (pp = i's copy);
 * the runtime (rt_accel.c) pairs them.
 *
 * Not run on hardware here (no device on the build machines): compiled
 * against XRT's declarations only.
 */
#include "o2h_accel_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_kernel.h>

/* argument indices of o2h_top */
enum { ARG_FM_IN = 0, ARG_FM_BND, ARG_FM_R, ARG_FM_W, ARG_WIMG, ARG_DESC, ARG_PP, ARG_RUN_SESL, ARG_FIRST, ARG_LAST };
enum { BO_FM = 0, BO_IN0, BO_IN1, BO_WIMG, BO_DESC, BO_COUNT };

static struct {
    xrtDeviceHandle dev;
    xrtKernelHandle kernel;
    xrtRunHandle run;
    xrtBufferHandle bo[BO_COUNT];
    size_t size[BO_COUNT];
} X;

static void xrt_close(void)
{
    if (X.run)
        xrtRunClose(X.run);
    for (int i = 0; i < BO_COUNT; i++)
        if (X.bo[i])
            xrtBOFree(X.bo[i]);
    if (X.kernel)
        xrtKernelClose(X.kernel);
    if (X.dev)
        xrtDeviceClose(X.dev);
    memset(&X, 0, sizeof X);
}

/* "file.xclbin" or "file.xclbin:N" */
static int parse_arg(const char *arg, char *path, size_t cap, unsigned *index)
{
    const char *colon = strrchr(arg, ':');
    char *end = NULL;
    *index = 0;
    if (colon && colon[1]) {
        unsigned long v = strtoul(colon + 1, &end, 10);
        if (!*end && v < 256) {
            *index = (unsigned)v;
            return snprintf(path, cap, "%.*s", (int)(colon - arg), arg) < (int)cap ? 0 : -1;
        }
    }
    return snprintf(path, cap, "%s", arg) < (int)cap ? 0 : -1;
}

static int alloc_bo(int i, int64_t bytes, int arg, int8_t **host)
{
    int grp = xrtKernelArgGroupId(X.kernel, arg);
    X.size[i] = (size_t)(bytes > 64 ? bytes : 64);
    X.bo[i] = grp >= 0 ? xrtBOAlloc(X.dev, X.size[i], 0, (xrtMemoryGroup)grp) : NULL;
    *host = X.bo[i] ? xrtBOMap(X.bo[i]) : NULL;
    return *host ? O2H_ACCEL_OK : O2H_ACCEL_ERR_DEVICE;
}

static int open_device(const char *arg)
{
    char path[4096];
    unsigned index;
    xuid_t uuid;
    if (!arg || parse_arg(arg, path, sizeof path, &index))
        return O2H_ACCEL_ERR_ARG;
    X.dev = xrtDeviceOpen(index);
    if (!X.dev || xrtDeviceLoadXclbinFile(X.dev, path) != 0 || xrtDeviceGetXclbinUUID(X.dev, uuid) != 0)
        return O2H_ACCEL_ERR_DEVICE;
    X.kernel = xrtPLKernelOpen(X.dev, uuid, O2H_TOP_NAME);
    X.run = X.kernel ? xrtRunOpen(X.kernel) : NULL;
    return X.run ? O2H_ACCEL_OK : O2H_ACCEL_ERR_DEVICE;
}

static int xrt_open(const O2hAccelModel *m, const char *arg, O2hAccelBufs *b)
{
    memset(&X, 0, sizeof X);
    int st = open_device(arg);
    int8_t *wimg = NULL, *desc = NULL;
    if (st == O2H_ACCEL_OK)
        st = alloc_bo(BO_FM, m->fm_bytes, ARG_FM_R, &b->fm);
    for (int k = 0; k < 2 && st == O2H_ACCEL_OK; k++)
        st = alloc_bo(BO_IN0 + k, m->in_bytes, ARG_FM_IN, &b->in[k]);
    if (st == O2H_ACCEL_OK)
        st = alloc_bo(BO_WIMG, m->wimg_bytes, ARG_WIMG, &wimg);
    if (st == O2H_ACCEL_OK)
        st = alloc_bo(BO_DESC, m->desc_bytes, ARG_DESC, &desc);
    if (st != O2H_ACCEL_OK) {
        xrt_close();
        return st;
    }
    b->wimg = wimg;
    b->desc = (int32_t *)(void *)desc;
    return O2H_ACCEL_OK;
}

static int xrt_load(void)
{
    for (int i = BO_WIMG; i <= BO_DESC; i++)
        if (xrtBOSync(X.bo[i], XCL_BO_SYNC_BO_TO_DEVICE, X.size[i], 0) != 0)
            return O2H_ACCEL_ERR_RUN;
    return O2H_ACCEL_OK;
}

static int xrt_sync(int area, int k, int64_t off, int64_t n, int to_device)
{
    int i = area == O2H_AREA_IN ? BO_IN0 + k : BO_FM;
    enum xclBOSyncDirection dir = to_device ? XCL_BO_SYNC_BO_TO_DEVICE : XCL_BO_SYNC_BO_FROM_DEVICE;
    return n <= 0 || xrtBOSync(X.bo[i], dir, (size_t)n, (size_t)off) == 0 ? O2H_ACCEL_OK : O2H_ACCEL_ERR_RUN;
}

/* one call of the top: SESL part into copy sesl (-1: none), SEML
 * descriptors [first, last) on copy pp; no cycle counters on hardware */
static int xrt_call(int sesl, int pp, int first, int last, int64_t *cyc_sesl, int64_t *cyc_seml)
{
    int in = sesl >= 0 ? sesl : pp;
    int bad = xrtRunSetArg(X.run, ARG_FM_IN, X.bo[BO_IN0 + in]) | xrtRunSetArg(X.run, ARG_FM_BND, X.bo[BO_FM]) |
              xrtRunSetArg(X.run, ARG_FM_R, X.bo[BO_FM]) | xrtRunSetArg(X.run, ARG_FM_W, X.bo[BO_FM]) |
              xrtRunSetArg(X.run, ARG_WIMG, X.bo[BO_WIMG]) | xrtRunSetArg(X.run, ARG_DESC, X.bo[BO_DESC]) |
              xrtRunSetArg(X.run, ARG_PP, pp) | xrtRunSetArg(X.run, ARG_RUN_SESL, sesl >= 0 ? 1 + sesl : 0) |
              xrtRunSetArg(X.run, ARG_FIRST, first) | xrtRunSetArg(X.run, ARG_LAST, last);
    *cyc_sesl = *cyc_seml = 0;
    if (bad || xrtRunStart(X.run) != 0 || xrtRunWait(X.run) != ERT_CMD_STATE_COMPLETED)
        return O2H_ACCEL_ERR_RUN;
    return O2H_ACCEL_OK;
}

const O2hAccelBackend o2h_accel_xrt = {
    "xrt", xrt_open, xrt_load, xrt_sync, xrt_call, NULL, NULL, xrt_close,
};
