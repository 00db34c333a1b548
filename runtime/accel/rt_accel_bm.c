/* rt_accel_bm.c - the `baremetal` backend: the accelerator IP in a
 * standalone Zynq design, driven through the driver Vitis HLS generates for
 * an s_axilite top (X<Top>_Initialize, _Set_<arg>, _Start, _IsDone; the
 * names follow the top's: accel_top.h, written by onnx2hls) and the
 * standalone BSP's cache maintenance (xil_cache.h).
 *
 * Buffers are the program's static arrays (accel_model.c), 64-byte
 * aligned, passed to the IP by address: the CPU flushes what it wrote
 * before a call and invalidates what it reads after one. Calls poll
 * X<Top>_IsDone. The IP is found by O2H_BM_DEVICE_ID (the classic BSP's
 * device id, default 0: the first instance) or, in the system-device-tree
 * flow (SDT), by O2H_BM_BASEADDR, which must then be defined.
 *
 * Not run on hardware here (no board on the build machines): compiled
 * against the driver's and the BSP's declarations only.
 */
#include "o2h_accel_int.h"

#include <string.h>

#include "accel_top.h"

#include O2H_BM_DRIVER_H
#include "xil_cache.h"

#ifdef SDT
#ifndef O2H_BM_BASEADDR
#error "define O2H_BM_BASEADDR as the accelerator's base address (xparameters.h)"
#endif
#elif !defined(O2H_BM_DEVICE_ID)
#define O2H_BM_DEVICE_ID 0
#endif

static struct {
    O2H_BM_TYPE ip;
    O2hAccelBufs b;
} B;

static int bm_open(const O2hAccelModel *m, const char *arg, O2hAccelBufs *b)
{
    if (arg && *arg)
        return O2H_ACCEL_ERR_ARG;
    if (!m->fm || !m->wimg || !m->desc)
        return O2H_ACCEL_ERR_BACKEND;
#ifdef SDT
    int st = O2H_BM(Initialize)(&B.ip, O2H_BM_BASEADDR);
#else
    int st = O2H_BM(Initialize)(&B.ip, O2H_BM_DEVICE_ID);
#endif
    if (st != XST_SUCCESS)
        return O2H_ACCEL_ERR_DEVICE;
    B.b = (O2hAccelBufs){m->fm, {m->in_buf[0] ? m->in_buf[0] : m->fm, m->in_buf[1] ? m->in_buf[1] : m->fm},
                         m->wimg, m->desc};
    *b = B.b;
    return O2H_ACCEL_OK;
}

static void bm_close(void)
{
    memset(&B, 0, sizeof B);
}

/* cache lines are 64 bytes; buffers and tensors start on one */
static INTPTR line_down(const void *p)
{
    return (INTPTR)p & ~(INTPTR)63;
}

static INTPTR line_span(const void *p, int64_t n)
{
    INTPTR a = line_down(p), e = ((INTPTR)p + (INTPTR)n + 63) & ~(INTPTR)63;
    return e - a;
}

static int bm_load(void)
{
    Xil_DCacheFlushRange(line_down(B.b.wimg), line_span(B.b.wimg, o2h_accel_model.wimg_bytes));
    Xil_DCacheFlushRange(line_down(B.b.desc), line_span(B.b.desc, o2h_accel_model.desc_bytes));
    return O2H_ACCEL_OK;
}

static int bm_sync(int area, int k, int64_t off, int64_t n, int to_device)
{
    const int8_t *p = (area == O2H_AREA_IN ? B.b.in[k] : B.b.fm) + off;
    if (n <= 0)
        return O2H_ACCEL_OK;
    if (to_device)
        Xil_DCacheFlushRange(line_down(p), line_span(p, n));
    else
        Xil_DCacheInvalidateRange(line_down(p), line_span(p, n));
    return O2H_ACCEL_OK;
}

static u64 addr(const void *p)
{
    return (u64)(UINTPTR)p;
}

/* one call of the top, polled to its end; no cycle counters on hardware */
static int bm_call(int sesl, int pp, int first, int last, int64_t *cyc_sesl, int64_t *cyc_seml)
{
    O2H_BM(Set_fm_in)(&B.ip, addr(B.b.in[sesl >= 0 ? sesl : pp]));
    O2H_BM(Set_fm_bnd)(&B.ip, addr(B.b.fm));
    O2H_BM(Set_fm_r)(&B.ip, addr(B.b.fm));
    O2H_BM(Set_fm_w)(&B.ip, addr(B.b.fm));
    O2H_BM(Set_wimg)(&B.ip, addr(B.b.wimg));
    O2H_BM(Set_desc)(&B.ip, addr(B.b.desc));
    O2H_BM(Set_pp)(&B.ip, (u32)pp);
    O2H_BM(Set_run_sesl)(&B.ip, (u32)(sesl >= 0 ? 1 + sesl : 0));
    O2H_BM(Set_first)(&B.ip, (u32)first);
    O2H_BM(Set_last)(&B.ip, (u32)last);
    O2H_BM(Start)(&B.ip);
    while (!O2H_BM(IsDone)(&B.ip))
        ;
    *cyc_sesl = *cyc_seml = 0;
    return O2H_ACCEL_OK;
}

const O2hAccelBackend o2h_accel_baremetal = {
    "baremetal", bm_open, bm_load, bm_sync, bm_call, NULL, NULL, bm_close,
};
