/* sidefile.h - every file onnx2hls reads besides the model itself (device
 * files, precision and prune specs, calibration sets, bound inputs,
 * verify's model.json, references and inputs) goes through here.
 *
 * Why: such a file is named on the command line and may be anything: a
 * FIFO that never ends, /dev/zero, a 10 GB file where 200 bytes were
 * meant, a binary where text was meant. Each kind has a size cap fitting
 * what it holds; only regular files are read (opened without blocking, so
 * a FIFO is refused rather than waited on); a text kind refuses NUL bytes.
 * Every refusal is an error naming the file, and nothing is read past the
 * cap.
 */
#ifndef ONNX2HLS_SIDEFILE_H
#define ONNX2HLS_SIDEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

typedef struct {
    const char *what;    /* "device file", "precision spec", ... for messages */
    uint64_t cap;        /* largest accepted size, bytes */
    bool text;           /* NUL bytes refused */
} SfKind;

extern const SfKind SF_DEVICE_FILE;      /* --device-file JSON, 1 MiB */
extern const SfKind SF_PRECISION_SPEC;   /* --precision-spec text, 16 MiB */
extern const SfKind SF_PRUNE_SPEC;       /* --prune FILE text, 16 MiB */
extern const SfKind SF_CALIB;            /* --calib raw float32, 2 GiB */
extern const SfKind SF_BIND;             /* --bind NAME=FILE, raw or TensorProto, 256 MiB */
extern const SfKind SF_MODEL_JSON;       /* verify's OUT/host/model.json, 64 MiB */
extern const SfKind SF_TENSOR_DATA;      /* verify --input / --reference, checked against the exact size */
extern const SfKind SF_TB_INPUT;         /* compile --tb-input float32, 4 GiB */
extern const SfKind SF_C_SOURCE;         /* a C file given to `lint`, 16 MiB text */
extern const SfKind SF_HLS_CFG;          /* hls_config.cfg of a folder given to `lint`, 1 MiB text */

/* The whole file into a malloc'd buffer with a NUL after it (*len
 * excludes it). 0 ok; -1 with an error on d naming path and the reason
 * (missing, not a regular file, over the cap, NUL byte in a text kind). */
int sf_read(const char *path, const SfKind *k, char **data, size_t *len, IrDiag *d);
/* Its first `want` bytes only (the file must hold them; the checks of
 * sf_read otherwise), into a malloc'd buffer. */
int sf_read_head(const char *path, const SfKind *k, size_t want, char **data, IrDiag *d);
/* Only the checks, for a file someone else will read: it opens, is
 * regular, and holds at most the kind's cap (*size, may be NULL). */
int sf_check(const char *path, const SfKind *k, uint64_t *size, IrDiag *d);
/* The next line of a text buffer read by sf_read: cut in place at '\n'
 * (a trailing '\r' dropped), *cursor advanced; NULL at the end. */
char *sf_next_line(char **cursor);

#endif
