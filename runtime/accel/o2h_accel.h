/* o2h_accel.h - the accelerator host runtime: run a compiled model's frames
 * on its accelerator, with the layers placed on the CPU run in between by
 * the host program's own code (OUT/host/model.c).
 *
 * Why one small API over several backends: the same frame (host layers,
 * the SESL part, SEML descriptor ranges, in the order of o2h_steps) is
 * driven the same way whether the accelerator is the generated HLS C
 * simulated on this CPU (`sim`), an xclbin on an XRT device (`xrt`) or the
 * IP in a standalone Zynq design (`baremetal`); only how a call reaches the
 * accelerator and how buffers are made visible to it differs.
 *
 * Use (one accelerator per program, one calling thread; not reentrant):
 *   O2hAccel *acc;
 *   model_init_file("weights.bin");                  the host program's weights
 *   o2h_accel_open(&acc, "sim", NULL);               or "xrt", "file.xclbin"
 *   o2h_accel_load_files(acc, "o2h_wimg.bin", "o2h_desc.bin");
 *   o2h_accel_submit(acc, in);  ...  o2h_accel_wait(acc, out);
 * Inputs and outputs are the host program's (model.h: raw NCHW data in the
 * graph's dtypes). Up to two frames may be in flight: submit frame i+1 before
 * waiting for frame i, and the SESL part computes frame i+1 while the SEML
 * part and the host compute frame i (docs/hls.md). submit copies the inputs,
 * so the caller may reuse its buffers at once.
 *
 * No heap in the frame path: every buffer is static (sized by the compiled
 * model) or, for xrt, a buffer object allocated once by o2h_accel_open.
 * Every function returns an O2hAccelStatus; the last error is kept
 * (o2h_accel_status) until the next successful call.
 */
#ifndef O2H_ACCEL_API_H
#define O2H_ACCEL_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    O2H_ACCEL_OK = 0,
    O2H_ACCEL_ERR_ARG = 1,      /* NULL or out-of-range argument */
    O2H_ACCEL_ERR_BACKEND = 2,  /* unknown backend, or one not built into this program */
    O2H_ACCEL_ERR_DEVICE = 3,   /* the device, xclbin, kernel or driver could not be opened */
    O2H_ACCEL_ERR_IO = 4,       /* a weight image or descriptor file could not be read */
    O2H_ACCEL_ERR_FORMAT = 5,   /* weight image or descriptors not those of this model (size, CRC32) */
    O2H_ACCEL_ERR_STATE = 6,    /* call out of order: not open, not loaded, two frames in
                                   flight already, or nothing to wait for */
    O2H_ACCEL_ERR_RUN = 7,      /* an accelerator call failed (run state, thread) */
    O2H_ACCEL_ERR_HOST = 8,     /* a host layer failed (host program not initialized) */
} O2hAccelStatus;

typedef struct O2hAccel O2hAccel;

/* Timings since open (or o2h_accel_reset_timings). Wall times are measured
 * on this CPU; the cycles are the C simulation's counters of the last frame
 * (sim only; 0 on hardware backends, which have no counters). */
typedef struct {
    const char *backend;        /* "sim", "xrt", "baremetal" */
    int64_t frames;             /* frames completed */
    double wall_ms;             /* from the first submit to the last completed wait */
    double frames_per_s;        /* frames / wall: simulated frames per second for sim */
    double host_ms;             /* per frame: host layers and copies on the CPU */
    double accel_ms;            /* per frame: waiting for accelerator calls */
    int64_t cycles_sesl;        /* the SESL part (its slowest process) */
    int64_t cycles_seml;        /* the SEML part (every descriptor) */
    int64_t cycles_period;      /* max(SESL, SEML): the frame interval when frames overlap */
    int64_t cycles_latency;     /* SESL + SEML: one frame alone */
    double clock_mhz;           /* the plan's clock */
    double model_fps;           /* clock / period: modelled frames per second */
    int64_t plan_period;        /* the planner's period (cycles), for comparison */
} O2hAccelTimings;

/* Open backend "sim", "xrt" or "baremetal". arg: xrt: the xclbin file,
 * optionally followed by ":N" for device index N (default 0); sim and
 * baremetal: NULL. */
int o2h_accel_open(O2hAccel **acc, const char *backend, const char *arg);
/* The SEML weight image and descriptor table (OUT/hls/desc/o2h_wimg.bin,
 * o2h_desc.bin), from memory or from files; checked against the sizes and
 * CRC32s compiled into the program. */
int o2h_accel_load(O2hAccel *acc, const void *wimg, size_t wimg_bytes, const void *desc, size_t desc_bytes);
int o2h_accel_load_files(O2hAccel *acc, const char *wimg_path, const char *desc_path);
/* Start one frame: inputs[i] is graph input i (model_inputs[i]). */
int o2h_accel_submit(O2hAccel *acc, const void *const *inputs);
/* Finish the oldest frame in flight: outputs[i] receives graph output i. */
int o2h_accel_wait(O2hAccel *acc, void *const *outputs);
int o2h_accel_timings(const O2hAccel *acc, O2hAccelTimings *t);
void o2h_accel_reset_timings(O2hAccel *acc);
/* The last error (O2H_ACCEL_OK after a successful call) and its text. */
int o2h_accel_status(const O2hAccel *acc);
const char *o2h_accel_status_str(int status);
/* Which backends this program was built with, e.g. "sim" or "sim xrt". */
const char *o2h_accel_backends(void);
void o2h_accel_close(O2hAccel *acc);

#ifdef __cplusplus
}
#endif

#endif
