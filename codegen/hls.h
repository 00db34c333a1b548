/* hls.h - the HLS C accelerator generator: integer IR + plan -> OUT/hls.
 *
 * cg_hls_emit writes DIR/ (docs/hls.md, section 6):
 *   common/     the integer contract, timing constants, descriptor fields,
 *               the engines' prototypes (o2h_accel.h)
 *   engines/    one specialized template per SESL process and per SEML
 *               engine, SESL ROM headers beside them
 *   top/        o2h_top.c: DATAFLOW over the SESL network, the SEML
 *               dispatcher, the AXI interfaces
 *   desc/       the SEML descriptor table and weight image (.bin and .h)
 *   tb/         the testbench and its golden vectors (the host int8
 *               arithmetic, from the compiler's evaluator), the plan's
 *               cycles per layer
 *   run_hls.tcl, hls_config.cfg, Makefile, README.md
 * and, when asked (accel_dir), the program that runs the model on this
 * accelerator with its host layers on the CPU (OUT/accel, docs/hls.md).
 *
 * Input: a graph after the quantize pass (every accelerated layer integer,
 * 8-bit), the plan built on that graph and the design to realize
 * (hybrid, SEML-only or SESL-only). Every engine instance is a template
 * from templates/hls/ specialized with libclang (codegen/hls_specialize.c);
 * no kernel code is printed from strings here. A layer or plan the engines
 * cannot realize is reported on the IrDiag with its ONNX node, and nothing
 * is written.
 */
#ifndef ONNX2HLS_CG_HLS_H
#define ONNX2HLS_CG_HLS_H

#include <stdbool.h>

#include "ir/ir.h"
#include "plan/plan.h"

typedef struct {
    const char *template_dir;   /* templates/hls; NULL: cg_find_data_file("templates/hls") */
    const char *runtime_dir;    /* for o2h_int_contract.h; NULL: cg_host_runtime_dir() */
    const float *tb_input;      /* the testbench's float input (graph input order, concatenated); NULL: */
    const char *tb_input_path;  /*   read from this file; both NULL: a fixed pseudo-random input */
    const char *part;           /* FPGA part for the project files; NULL: from the device */
    const char *accel_dir;      /* also write the model's program on its accelerator there
                                   (OUT/accel: frame tables, runtime, builds); NULL: not */
} CgHlsOptions;

typedef struct {
    int n_sesl_procs;           /* dataflow processes of the SESL part */
    int n_seml_layers;          /* descriptors */
    int n_engines;              /* engine files */
    int64_t fm_bytes;           /* DRAM feature-map arena */
    int64_t wimg_bytes;         /* SEML weight image */
    int64_t rom_bytes;          /* SESL weights held in ROM */
    int64_t files_bytes;        /* size of everything written */
} CgHlsReport;

/* Write the accelerator of design `which` ("hybrid", "seml" or "sesl") of
 * plan p for graph g into dir (created). 0 ok, -1 with errors on d. */
int cg_hls_emit(IrGraph *g, const Plan *p, const PlanDesign *design, const CgHlsOptions *o, const char *dir,
                CgHlsReport *rep, IrDiag *d);

#endif
