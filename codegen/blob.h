/* blob.h - the constant blob of a generated host program (weights.bin).
 *
 * Why a blob: weights are data, not code. Keeping them out of model.c keeps
 * the C small and fast to compile, lets one binary take retrained weights of
 * the same layout, and lets the loader prove it got the right file: the
 * header (documented in runtime/o2h_rt.h) carries a layout hash over the
 * constants' names, dtypes, shapes and offsets, which model.c also bakes
 * in, and a CRC32 of the payload. For targets without a file system the same
 * payload is emitted as a C array instead (cg_blob_write_c).
 *
 * Entries point at data they do not own (IR constants, or derived arrays
 * the caller allocated on the graph arena); each starts at a 64-byte aligned
 * offset from the payload start.
 */
#ifndef ONNX2HLS_CG_BLOB_H
#define ONNX2HLS_CG_BLOB_H

#include <stdio.h>

#include "ir/ir.h"

#define CG_BLOB_ALIGN 64

typedef struct {
    const char *name;
    IrDType dtype;
    int rank;
    int64_t dims[IR_MAX_RANK];
    const void *data;
    uint64_t size;       /* bytes */
    uint64_t offset;     /* from the payload start, multiple of CG_BLOB_ALIGN */
    int tensor;          /* source IR tensor, -1 for derived data */
} CgBlobEntry;

typedef struct {
    CgBlobEntry *v;
    int n, cap;
    uint64_t payload_size;   /* multiple of CG_BLOB_ALIGN */
    int *by_tensor;          /* IR tensor -> entry + 1 (0: none), grown on demand */
    int n_by_tensor;
} CgBlob;

void cg_blob_init(CgBlob *b);
void cg_blob_free(CgBlob *b);

/* Append data; returns the entry index. */
int cg_blob_add(CgBlob *b, const char *name, IrDType dt, int rank, const int64_t *dims,
                const void *data, uint64_t size);
/* Append constant tensor t once (later calls return the same entry), or -1
 * when t is not a constant. */
int cg_blob_add_tensor(CgBlob *b, IrGraph *g, int t);
/* Entry of tensor t, or -1. */
int cg_blob_find_tensor(const CgBlob *b, int t);

uint64_t cg_blob_layout_hash(const CgBlob *b);
uint32_t cg_blob_crc(const CgBlob *b);

/* The whole blob (header + payload) to a file; 0 ok, -1 with errno set. */
int cg_blob_write_file(const CgBlob *b, const char *path);
/* The whole blob into a malloc'd buffer; 0 ok, -1 out of memory. */
int cg_blob_to_mem(const CgBlob *b, unsigned char **buf, size_t *len);
/* The payload as a C definition `const uint32_t SYMBOL[]` (little-endian
 * words) with a comment naming each constant; 0 ok, -1 on write error. */
int cg_blob_write_c(const CgBlob *b, FILE *f, const char *symbol);

#endif
