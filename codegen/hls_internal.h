/* hls_internal.h - what the HLS generator's files share (internal).
 *
 * The generator works in two steps. hls_prog.c turns (graph, plan, design)
 * into a CgAccel: every engine instance with its template and parameter
 * values, the SESL network with its FIFOs, the SEML descriptors, the DRAM
 * layout of feature maps and the weight image. The writers (hls_engines.c,
 * hls_top.c, hls_tb.c, hls_project.c) then only print that model, so what
 * is emitted and what the testbench checks come from one description.
 */
#ifndef ONNX2HLS_CG_HLS_INTERNAL_H
#define ONNX2HLS_CG_HLS_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "hls.h"
#include "passes/quant/quant.h"
#include "plan/loopnest.h"
#include "plan/net.h"

typedef enum {
    CG_TPL_WINDOW = 0,   /* templates/hls/sesl_window.c */
    CG_TPL_MAC,          /* sesl_mac.c */
    CG_TPL_POOL,         /* sesl_pool.c */
    CG_TPL_ELT,          /* sesl_eltwise.c */
    CG_TPL_STREAM,       /* sesl_stream.c (reader, writer, duplicator) */
    CG_TPL_SEML_CONV,    /* seml_conv.c */
    CG_TPL_SEML_DW,      /* seml_dw.c */
    CG_TPL_SEML_ELT,     /* seml_eltwise.c */
    CG_TPL_COUNT
} CgTemplate;

/* template file stem and its entry function (before the instance prefix) */
const char *cg_tpl_file(CgTemplate t);

typedef struct {
    char name[24];       /* O2H_P_<name> */
    char *value;         /* malloc'd */
} CgParam;

/* One engine instance: engines/<prefix>.c */
typedef struct {
    CgTemplate tpl;
    char prefix[24];     /* symbol prefix, e.g. "s3_mac", "e1_conv" */
    const char *entry;   /* function called by the top, e.g. "mac_run" */
    char *origin;        /* ONNX node(s) it implements (comment) */
    int proc;            /* SESL: process in the network; -1 */
    int engine;          /* SEML: plan engine index; -1 */
    int unit;            /* plan unit, -1 for movers */
    CgParam *params;
    int n_params, cap_params;
    char *rom;           /* SESL ROM header text, NULL if none */
    int args[2];         /* SESL: tensors of its stream inputs in argument order
                          * (MAC: input or -1 for a window, skip; ELT: a, b) */
    const char *counter; /* its cycle counter variable (before the prefix) */
} CgInst;

/* A feature map in DRAM (NHWC int8) */
typedef struct {
    int tensor;          /* IR tensor */
    int64_t off;         /* byte offset in the fm arena */
    int64_t bytes;
    int64_t h, w, c;
    bool boundary;       /* SESL -> SEML: two copies, pp selects */
    bool input;          /* written by the host before a frame */
    bool output;         /* read by the host after a frame */
} CgDram;

/* One step of a frame, in order: a host layer, the SESL part, or a range
 * of SEML descriptors (what a host runtime does per frame) */
typedef enum { CG_STEP_HOST = 0, CG_STEP_SESL, CG_STEP_SEML } CgStepKind;
typedef struct {
    CgStepKind kind;
    int layer;           /* HOST: the IR layer */
    int first, last;     /* SEML: descriptor range [first, last) */
} CgSegment;

typedef struct {
    IrGraph *g;
    const Plan *p;
    const PlanDesign *d;
    IrDiag *diag;
    QuantLayer *q;       /* per IR layer, valid where has_q */
    bool *has_q;
    PlanNet net;         /* SESL part */
    bool have_net;
    CgInst *inst;
    int n_inst, cap_inst;
    int *proc_inst;      /* per network process: its instance */
    int *engine_inst;    /* per plan engine (SEML): its instance, -1 */
    CgDram *dram;
    int n_dram, cap_dram;
    int *dram_of;        /* per IR tensor: index in dram[], -1 */
    int64_t fm_bytes;
    int64_t bnd_stride;  /* bytes between the two copies of the boundary area */
    int32_t *desc;       /* SEML descriptors, O2H_DESC_WORDS each */
    int *desc_unit;      /* per descriptor: plan unit */
    int n_desc, cap_desc;
    uint8_t *wimg;       /* SEML weight image */
    int64_t wimg_bytes, cap_wimg;
    CgSegment *seg;      /* the frame's steps */
    int n_seg, cap_seg;
    int beat;            /* bytes per AXI beat */
    int64_t rom_bytes;
    int errors;
} CgAccel;

/* hls_prog.c: build the model; 0 ok, -1 with errors on a->diag. It calls
 * hls_sesl.c for the SESL network's instances and hls_seml.c for the SEML
 * descriptors, weight image and engine instances. */
int cg_accel_sesl(CgAccel *a);
int cg_accel_seml(CgAccel *a);
int cg_accel_build(CgAccel *a, IrGraph *g, const Plan *p, const PlanDesign *d, IrDiag *diag);
void cg_accel_free(CgAccel *a);
/* per IR layer: the plan unit it belongs to, -1 (malloc'd) */
int *cg_units_by_layer(const CgAccel *a);
/* The accelerated tensor t resolves to (through views), and its NHWC dims. */
int cg_accel_resolve(const CgAccel *a, int t);
void cg_accel_dims(const CgAccel *a, int t, int64_t *h, int64_t *w, int64_t *c);
/* The accelerated tensors unit u reads from outside itself (ins, returns
 * how many) and the one it produces (*out), all resolved through views. */
int cg_unit_io(const CgAccel *a, int u, int *ins, int *out);
/* Geometry of a conv, an FC (a conv whose window is its whole input
 * map), a pool, and an element-wise map (1x1 window). */
PlanGeom cg_geom_conv(const O2hConv2d *c);
PlanGeom cg_geom_fc(const CgAccel *a, const QuantLayer *q);
PlanGeom cg_geom_pool(const O2hPool2d *p);
PlanGeom cg_geom_map(const CgAccel *a, int t);
/* Report a problem with unit u's layer (names its ONNX node). */
int cg_accel_error(CgAccel *a, int layer, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Instances and parameters */
CgInst *cg_inst_new(CgAccel *a, CgTemplate tpl, const char *prefix, int unit);
void cg_param_i(CgInst *in, const char *name, int64_t v);
void cg_param_s(CgInst *in, const char *name, const char *v);

/* hls_rom.c: ROM headers (SESL) and weight-image records (SEML) */
char *cg_rom_mac(CgAccel *a, int layer, const QuantLayer *main, const QuantLayer *lut, int pa, int pb,
                 int64_t *rom_bytes);
char *cg_rom_pool(CgAccel *a, const QuantLayer *q);
char *cg_rom_elt(CgAccel *a, const QuantLayer *lut);
/* append to the weight image (aligned to 64 bytes); returns the offset */
int64_t cg_wimg_add(CgAccel *a, const void *data, int64_t n);
int64_t cg_wimg_conv_tiles(CgAccel *a, int layer, const QuantLayer *q, int pa, int64_t tile_bytes);
int64_t cg_wimg_dw_record(CgAccel *a, const QuantLayer *q);
int64_t cg_wimg_pool_record(CgAccel *a, const QuantLayer *q);

/* Weights of conv/FC layer `layer` in the engines' order: [f][(kh, kw, c)]
 * (FC over a map: [n][(h, w, c)]); malloc'd, f * b bytes. */
int8_t *cg_weights_hwc(CgAccel *a, int layer, const QuantLayer *q, int64_t *f, int64_t *b);

/* Writers: 0 ok, -1 with errors on a->diag. */
int cg_hls_write_engines(CgAccel *a, const CgHlsOptions *o, const char *dir);
int cg_hls_write_top(CgAccel *a, const char *dir);
int cg_hls_write_desc(CgAccel *a, const char *dir);
int cg_hls_write_tb(CgAccel *a, const CgHlsOptions *o, const char *dir);
int cg_hls_write_project(CgAccel *a, const CgHlsOptions *o, const char *dir);
/* OUT/accel (hls_accel_files.c) */
int cg_hls_write_accel(CgAccel *a, const CgHlsOptions *o, const char *dir);

/* a name from the model inside a C comment (nothing can close it early) */
void cg_hls_comment_text(FILE *f, const char *s);

/* copy a shipped file into dir/rel */
int cg_hls_copy(CgAccel *a, const char *from, const char *dir, const char *rel);
/* fopen for writing with an error on the diag */
FILE *cg_hls_open(CgAccel *a, const char *dir, const char *rel);
int cg_hls_close(CgAccel *a, FILE *f, const char *dir, const char *rel);

#endif
