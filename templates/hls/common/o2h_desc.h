/* o2h_desc.h - the SEML descriptor: one record of int32 fields per layer,
 * read by the dispatcher and the reusable engines (templates/hls/seml_*.c),
 * written by the compiler (codegen/hls_desc.c) into OUT/hls/desc/.
 *
 * Why int32 fields by index: the descriptor table crosses the accelerator's
 * interface (it lives in DRAM next to the weight image), where Vitis takes
 * plain integer arrays and no enums or structs; one field list here keeps
 * the compiler and the engines in step. Offsets are bytes into the DRAM
 * buffer named by the field; feature maps are NHWC, a pixel's channels at
 * OFF + p * PSTRIDE + COFF.
 */
#ifndef O2H_DESC_H
#define O2H_DESC_H

/* int32 words per descriptor */
#define O2H_DESC_WORDS 64

#define O2H_D_ENGINE 0      /* engine index in the dispatcher */
#define O2H_D_OP 1          /* operation (O2H_OP_*) */
#define O2H_D_UNIT 2        /* the plan's unit index, for the cycle records */
/* geometry: input H x W x C, output HO x WO x F, window, groups (a channel
 * copy reads C channels of each input pixel, from IN_COFF, and writes F) */
#define O2H_D_H 3
#define O2H_D_W 4
#define O2H_D_C 5
#define O2H_D_HO 6
#define O2H_D_WO 7
#define O2H_D_F 8
#define O2H_D_KH 9
#define O2H_D_KW 10
#define O2H_D_SH 11
#define O2H_D_SW 12
#define O2H_D_DH 13
#define O2H_D_DW 14
#define O2H_D_PT 15
#define O2H_D_PL 16
#define O2H_D_PB 17
#define O2H_D_PR 18
#define O2H_D_G 19
/* band schedule: output rows per band, bands */
#define O2H_D_BAND_ROWS 20
#define O2H_D_NBANDS 21
/* operands in the feature-map buffer */
#define O2H_D_IN_OFF 22
#define O2H_D_IN_PSTRIDE 23
#define O2H_D_IN_COFF 24
#define O2H_D_IN2_OFF 25     /* second operand: residual / Add / Mul / Concat input */
#define O2H_D_IN2_PSTRIDE 26
#define O2H_D_IN2_COFF 27
#define O2H_D_IN2_C 28
#define O2H_D_OUT_OFF 29
#define O2H_D_OUT_PSTRIDE 30
#define O2H_D_OUT_COFF 31
/* constants in the weight image */
#define O2H_D_W_OFF 32       /* first weight tile record (conv) / layer record (dw) */
#define O2H_D_W_TILE 33      /* bytes per weight tile record */
#define O2H_D_LUT_OFF 34     /* 256-byte table, when O2H_D_LUT */
/* integer arithmetic (runtime/o2h_int_contract.h) */
#define O2H_D_XZERO 35
#define O2H_D_ZERO 36
#define O2H_D_LO 37
#define O2H_D_HI 38
#define O2H_D_MA 39          /* per-tensor multiplier(s) and shift(s): eltwise, rescale */
#define O2H_D_ZA 40
#define O2H_D_MB 41
#define O2H_D_ZB 42
#define O2H_D_SH_A 43
#define O2H_D_CSTEP 44       /* channel copy: input channels between those read, >= 1 */
#define O2H_D_COPYA 45
#define O2H_D_CGROUPS 46     /* channel copy: output channel o reads input channel IN_COFF +
                              * ((o % G) * (F / G) + o / G) * CSTEP (G = CGROUPS: a shuffle) */
#define O2H_D_BVEC 47        /* second operand is one per-channel vector */
#define O2H_D_INCLUDE_PAD 48 /* average pools: count_include_pad */
#define O2H_D_EPB 49         /* average pools: explicit bottom / right pads */
#define O2H_D_EPR 50
/* fused epilogue of a conv: residual Add, then table */
#define O2H_D_ADD 51
#define O2H_D_ADD_ZA 52
#define O2H_D_ADD_MA 53
#define O2H_D_ADD_ZB 54
#define O2H_D_ADD_MB 55
#define O2H_D_ADD_SH 56
#define O2H_D_ADD_ZERO 57
#define O2H_D_ADD_LO 58
#define O2H_D_ADD_HI 59
#define O2H_D_LUT 60
#define O2H_D_IN_BYTES 61    /* bytes of the input tensor (bounds of reads) */
#define O2H_D_RQ_N 62        /* requantization entries (avg pools: by tap count) */
/* operands in the SESL->SEML boundary area (bit 1: IN, 2: IN2): the
 * dispatcher adds the frame's ping-pong offset */
#define O2H_D_BND 63
#define O2H_D_COUNT 64

/* operations */
#define O2H_OP_CONV 1        /* seml_conv: standard, grouped, pointwise conv, FC */
#define O2H_OP_DWCONV 2      /* seml_dw */
#define O2H_OP_MAXPOOL 3
#define O2H_OP_AVGPOOL 4
#define O2H_OP_GMAXPOOL 5
#define O2H_OP_GAVGPOOL 6
#define O2H_OP_ADD 7         /* seml_eltwise */
#define O2H_OP_MUL 8
#define O2H_OP_LUT 9
#define O2H_OP_RESCALE 10
#define O2H_OP_COPY 11       /* channel copy (Concat part, Split part, Slice, shuffle), optional rescale */

#endif
