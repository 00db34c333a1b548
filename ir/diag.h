/* diag.h - diagnostics collected on a context instead of exiting.
 *
 * Every phase reports problems here with the ONNX node they concern, and the
 * driver prints them all at the end and picks the exit code. This is what lets
 * one `onnx2hls inspect` run list every unsupported node of a model at once.
 *
 * Message form:  FILE: node 'NAME' (OpType): text      (node known)
 *                FILE: text                             (no node)
 */
#ifndef ONNX2HLS_DIAG_H
#define ONNX2HLS_DIAG_H

#include <stdio.h>

typedef enum { DIAG_NOTE = 0, DIAG_WARNING, DIAG_ERROR } DiagLevel;

typedef struct {
    DiagLevel level;
    char *file;     /* may be NULL */
    char *node;     /* ONNX node name, may be NULL */
    char *op;       /* op_type, may be NULL */
    char *msg;
} DiagEntry;

typedef struct {
    DiagEntry *v;
    int n, cap;
    int n_errors;
    int max_errors;  /* stop recording (but keep counting) past this; 0 = 1000 */
} IrDiag;

void diag_init(IrDiag *d);
void diag_free(IrDiag *d);
void diag_add(IrDiag *d, DiagLevel lvl, const char *file, const char *node, const char *op,
              const char *fmt, ...) __attribute__((format(printf, 6, 7)));
#define diag_error(d, file, node, op, ...) diag_add((d), DIAG_ERROR, (file), (node), (op), __VA_ARGS__)
#define diag_warn(d, file, node, op, ...) diag_add((d), DIAG_WARNING, (file), (node), (op), __VA_ARGS__)
void diag_print(const IrDiag *d, FILE *f);
/* append every entry of from to to, in order (per-thread diagnostics) */
void diag_merge(IrDiag *to, const IrDiag *from);
/* 1 if any entry's message contains needle (tests) */
int diag_contains(const IrDiag *d, const char *needle);

#endif
