/* o2h_accel_int.h - what the accelerator host runtime's files share with
 * each other and with the generated OUT/accel/accel_model.c (internal).
 *
 * Why tables: the compiler knows, per model, which layers run on the CPU,
 * which tensors cross between the host program's memory (NCHW, model.c's
 * arena) and the accelerator's DRAM (NHWC, the feature-map arena), and
 * when. It writes that down as the O2hAccelModel below, so the runtime
 * (rt_accel.c) is one model-independent loop over steps, and the backends
 * (rt_accel_sim.c, rt_accel_xrt.c, rt_accel_bm.c) only move buffers and
 * start calls of the top function.
 */
#ifndef O2H_ACCEL_INT_H
#define O2H_ACCEL_INT_H

#include "o2h_accel.h"

/* step kinds, as in o2h_steps of OUT/hls/common/o2h_accel.h */
enum { O2H_STEP_HOST = 0, O2H_STEP_SESL = 1, O2H_STEP_SEML = 2 };

/* where a tensor lives on the accelerator's side */
enum {
    O2H_AREA_FM = 0,    /* the feature-map arena, at off */
    O2H_AREA_BND = 1,   /* its boundary area: off + the frame's copy * bnd_stride */
    O2H_AREA_IN = 2,    /* the SESL part's input buffer of the frame's copy, at off */
};

/* One copy between a host-program tensor (NCHW [c][h*w], model_tensor())
 * and the accelerator's DRAM (NHWC [h*w][c]). */
typedef struct {
    int32_t tensor;     /* the host program's tensor index */
    int32_t area;       /* O2H_AREA_* */
    int64_t off;        /* bytes into the area */
    int32_t h, w, c;
} O2hAccelXfer;

/* One step of a frame. Its transfers [x0, x0 + nx) run first: HOST steps
 * copy accelerator results the layer reads (first reader only); SESL and
 * SEML steps copy the host tensors the accelerator part reads. */
typedef struct {
    int32_t kind;       /* O2H_STEP_* */
    int32_t layer;      /* HOST: the host program's layer (model_run_layer) */
    int32_t first, last;/* SEML: descriptors [first, last) */
    int32_t x0, nx;
} O2hAccelStep;

/* A host tensor made before the SESL step and read after it: saved per
 * frame, since the next frame's first steps reuse the host arena. */
typedef struct {
    int32_t tensor;
    int64_t bytes, at;  /* at: offset in the frame's carry buffer */
} O2hAccelCarry;

/* Graph output i: from the host tensor, or through transfer xfer (>= 0)
 * straight from the accelerator's DRAM. */
typedef struct {
    int32_t tensor, xfer;
    int64_t bytes;
} O2hAccelOut;

typedef struct {
    const char *model, *design;
    int64_t fm_bytes, in_bytes, bnd_stride;
    int64_t wimg_bytes, desc_bytes;     /* exact sizes of o2h_wimg.bin, o2h_desc.bin */
    uint32_t wimg_crc, desc_crc;        /* their CRC32 (o2h_crc32) */
    int32_t n_desc;
    const O2hAccelStep *steps;
    int32_t n_steps;
    int32_t n_pre;                      /* >= 0: steps [0, n_pre) are host steps run by submit, and
                                           step n_pre (the SESL part) is started there; -1: the
                                           frame runs in order in wait */
    const O2hAccelXfer *xfers;
    const O2hAccelCarry *carry;
    int32_t n_carry;
    const O2hAccelOut *outs;
    int32_t n_outs, n_inputs;
    const int64_t *input_bytes, *input_at;  /* per graph input: size, offset in input_buf */
    /* static storage of the program (fm..desc are NULL in builds without sim or baremetal) */
    int8_t *fm, *in_buf[2], *wimg;
    int32_t *desc;
    unsigned char *carry_buf[2], *input_buf[2];
    /* the host program (model.h) */
    int (*run_layer)(int layer, const void *const *inputs);
    void *(*tensor)(int tensor, const void *const *inputs);
    double clock_mhz;
    int64_t plan_period;
} O2hAccelModel;

/* accel_model.c */
extern const O2hAccelModel o2h_accel_model;

/* Host views of the accelerator's buffers, from the backend's open. */
typedef struct {
    int8_t *fm, *in[2], *wimg;
    int32_t *desc;
} O2hAccelBufs;

/* A backend: one per file, all state static (one accelerator per program).
 * Each function returns an O2hAccelStatus. */
typedef struct {
    const char *name;
    int (*open)(const O2hAccelModel *m, const char *arg, O2hAccelBufs *b);
    /* the weight image and descriptors are in b->wimg, b->desc: make them
     * visible to the accelerator */
    int (*load)(void);
    /* make bytes [off, off + n) of area (copy k) visible: to the device
     * after the CPU wrote them, or to the CPU before it reads them */
    int (*sync)(int area, int k, int64_t off, int64_t n, int to_device);
    /* one call of the top, synchronous: the SESL part into copy sesl (-1:
     * none) and SEML descriptors [first, last) on copy pp; the counted
     * cycles of each part where the backend has counters (else 0) */
    int (*call)(int sesl, int pp, int first, int last, int64_t *cyc_sesl, int64_t *cyc_seml);
    /* optional (NULL: the runtime runs the SESL part of the next frame with
     * the next call instead): start the SESL part into copy k concurrently
     * with later calls, and wait for it */
    int (*sesl_start)(int k);
    int (*sesl_wait)(int k, int64_t *cycles);
    void (*close)(void);
} O2hAccelBackend;

#ifdef O2H_ACCEL_WITH_SIM
extern const O2hAccelBackend o2h_accel_sim;
/* What the sim backend needs of the generated HLS C (accel_sim.c): the top
 * function, the cycle counters of the SESL processes (reset before each
 * run) and the per-descriptor cycles of the SEML part. */
typedef struct {
    void (*top)(const int8_t *fm_in, int8_t *fm_bnd, const int8_t *fm_r, int8_t *fm_w, const int8_t *wimg,
                const int32_t *desc, int32_t pp, int32_t run_sesl, int32_t first, int32_t last);
    int64_t *const *sesl_counters;
    int32_t n_sesl_counters;
    const int64_t *seml_cycles;
} O2hAccelSimHooks;
extern const O2hAccelSimHooks o2h_accel_sim_hooks;
#endif
#ifdef O2H_ACCEL_WITH_XRT
extern const O2hAccelBackend o2h_accel_xrt;
#endif
#ifdef O2H_ACCEL_WITH_BAREMETAL
extern const O2hAccelBackend o2h_accel_baremetal;
#endif

/* The top function's interface (OUT/hls/top/o2h_top.c, docs/hls.md):
 * run_sesl 0 runs no SESL part, 1 + k runs it into boundary copy k; the
 * SEML part runs descriptors [first, last) on boundary copy pp. */
#define O2H_TOP_NAME "o2h_top"

#endif
