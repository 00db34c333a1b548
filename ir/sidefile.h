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
#include <stdio.h>

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

/* The fields of one line of a spec (precision and prune specs): separated
 * by blanks; a '#' outside quotes starts a comment. A field in double quotes is
 * a name with C escapes (\" \\ \? \ooo, \n \t), decoded in place, so a
 * layer name with blanks, '#' or any byte can be named; quoted[i] tells it
 * apart from a bare '*'. Up to max fields into f[]; the count, or -1 on an
 * unterminated quote, a bad escape, a NUL from an escape, or more fields. */
int sf_fields(char *line, char **f, bool *quoted, int max);
/* A layer name as a spec field that sf_fields gives back unchanged: bare
 * when it is printable ASCII without blanks, '#', '"', '\\' or '?' and is not
 * "*"; else quoted with ESC_C_STRING (ir/escape.h). */
void sf_put_spec_name(FILE *f, const char *name);

#endif
