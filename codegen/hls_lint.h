/* hls_lint.h - `onnx2hls lint`: check that HLS C stays inside what Vitis HLS
 * synthesizes (AMD UG1399), with libclang.
 *
 * Why a lint of our own: synthesis cannot run on the machines that build
 * and test onnx2hls, and a C simulation passes on code that Vitis refuses
 * (malloc, recursion, a pragma key misspelt, an m_axi port without depth=)
 * or synthesizes badly (a DATAFLOW region that is not in canonical form).
 * These rules are checkable from the source, so the compiler checks every
 * accelerator it writes (`compile --emit hls` fails on a finding) and users
 * can check what they edit by hand.
 *
 * Each .c file is parsed once, as Vitis sees it: with -D__SYNTHESIS__, so
 * what sits under `#ifndef __SYNTHESIS__` (printf, file I/O, counters) is not
 * linted. Code in included non-system headers is linted too (each finding
 * once). AST rules come from libclang cursors; pragma rules from the token
 * stream (pragmas are not in the AST), placed by byte offset against the
 * extents of functions and loops. The rules, with their names as printed,
 * are listed in docs/lint.md; rules about the whole design (recursion
 * across files, the top's interface, dataflow channels) are checked after
 * all files are read.
 *
 * Files: FILE.c, or every .c under DIR except tb/ folders (the testbench is
 * not synthesized) - or, when DIR/hls_config.cfg exists, its syn.file=
 * entries. Include dirs: the options' -I, then DIR/common (for a FILE:
 * common/ next to it or next to its folder) when it exists.
 * The top: --top, else the one function carrying `#pragma HLS INTERFACE`,
 * else syn.top= of DIR/hls_config.cfg; without a top, the top's rules are
 * not checked.
 */
#ifndef ONNX2HLS_CG_HLS_LINT_H
#define ONNX2HLS_CG_HLS_LINT_H

#include "ir/diag.h"

#include <stdio.h>

typedef struct {
    const char *const *include_dirs;   /* -I */
    int n_include_dirs;
    const char *const *defines;        /* -D NAME[=VALUE] */
    int n_defines;
    const char *top;                   /* top function; NULL: found as above */
} CgHlsLintOptions;

typedef struct {
    char *file;
    unsigned line, col;
    const char *rule;                  /* static string, e.g. "interface-depth" */
    char *msg;
} CgHlsFinding;

typedef struct {
    CgHlsFinding *v;
    int n;
    int n_files;                       /* .c files linted */
    char *top;                         /* the top used, NULL if none */
} CgHlsLintResult;

/* Lint FILE.c or DIR into r (sorted by file, line, column; each finding
 * once). Returns the number of findings, or -1 on bad input (no such file,
 * no .c file, a file that does not parse, an unknown --top), with the
 * reasons on d. */
int cg_hls_lint(const char *path, const CgHlsLintOptions *opt, CgHlsLintResult *r, IrDiag *d);
void cg_hls_lint_result_free(CgHlsLintResult *r);
/* "file:line:col: rule: explanation" per finding */
void cg_hls_lint_print(const CgHlsLintResult *r, FILE *f);

/* For `compile --emit hls`: lint dir (default options plus opt, which may
 * be NULL) and record each finding on d as an error (file
 * "file:line:col", message "rule: explanation"). Returns the number of
 * findings, -1 on bad input. */
int cg_hls_lint_dir(const char *dir, const CgHlsLintOptions *opt, IrDiag *d);

#endif
