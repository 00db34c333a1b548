/* hls_accel.h - what the writers of OUT/accel share (internal): the frame
 * tables derived from the accelerator model (hls_accel.c) and the files
 * around them (hls_accel_files.c). */
#ifndef ONNX2HLS_CG_HLS_ACCEL_H
#define ONNX2HLS_CG_HLS_ACCEL_H

#include "hls_internal.h"

typedef struct {
    int tensor, area;    /* host tensor, O2H_AREA_* */
    int64_t off, h, w, c;
} CgAxXfer;

typedef struct {
    int kind, layer, first, last, x0, nx;   /* as O2hAccelStep */
} CgAxStep;

typedef struct {
    CgAccel *a;
    int *ub;             /* per IR layer: its plan unit, -1 */
    CgAxXfer *x;
    int nx, cap_x;
    CgAxStep *s;
    int ns;
    int n_pre;           /* host steps run before the SESL part starts; -1: no overlap */
    int *carry;          /* host tensors made before the SESL step and read after it */
    int n_carry, cap_carry;
    int *out_xfer;       /* per graph output: its transfer from DRAM, -1 from the host */
    int64_t in_bytes;    /* the SESL part's input buffer */
} CgAxTables;

/* hls_accel.c: derive the tables (0, or -1 with errors on a->diag), write
 * accel_model.c */
int cg_ax_build(CgAccel *a, CgAxTables *ax);
void cg_ax_free(CgAxTables *ax);
int cg_ax_write_model(CgAccel *a, const CgAxTables *ax, const char *dir);

/* Vitis HLS's driver type name for a top function: "X" + the name with its
 * first letter upper case and the rest lower case (o2h_top -> XO2h_top) */
void cg_ax_driver_name(const char *top, char *buf, size_t cap);

#endif
