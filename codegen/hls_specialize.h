/* hls_specialize.h - turn an HLS engine template into one specialized,
 * uniquely prefixed instance, with libclang.
 *
 * Why libclang and not text substitution: a template (templates/hls/<engine>.c)
 * is valid C that compiles alone with default parameter values, so it can be
 * unit-tested as is. Specializing it must change only the parameter values
 * and the names that would clash between instances, and nothing else: every
 * other byte (comments, layout, pragmas) stays as written. libclang's
 * detailed preprocessing record gives each `#define` as a cursor whose
 * extent starts at the macro name, and its AST tells declarations and
 * references apart from locals, fields and macro text, so each edit is made
 * at a known byte offset.
 *
 * What it does, for a template file T, parameters P and prefix X:
 *  1. Parses T twice with clang (-xc -std=c11 -Wall -Wextra
 *     -Wno-unknown-pragmas, the request's -I and -D): as C simulation and
 *     with __SYNTHESIS__ defined, so code on either side of
 *     `#ifndef __SYNTHESIS__` is seen. A template that does not parse is an
 *     error.
 *  2. Parameters: every `#define O2H_P_<NAME> value` in T's own file (not in
 *     included headers). The value (the replacement list, after the name; to
 *     the end of the definition, continuation lines included) is replaced by
 *     the request's value, byte for byte; an empty definition gets " value".
 *     Errors, all reported in one run: a template parameter the request does
 *     not give, a request parameter the template does not define, a
 *     parameter defined twice (also in two `#if` branches), a function-like
 *     O2H_P_ macro, a value with an unescaped newline.
 *  3. Renaming: every identifier declared at file scope in T's own file -
 *     functions defined there, variables not declared `extern`, typedef
 *     names, struct/union/enum tags (also nested in structs) and enum
 *     constants - gets `X_` in front, at its declarations and at every
 *     reference the AST resolves to it. Names that also have a declaration in
 *     an included file (o2h_* of the common headers, libc) are never
 *     renamed; nor are prototypes of functions defined elsewhere.
 *     Macro bodies are text, not AST: inside a `#define` of T (other than
 *     O2H_P_*), a token spelled like a renamed symbol is renamed, unless it
 *     is a parameter of that macro, follows `.` or `->` (a field), or touches
 *     `##`. In `#pragma HLS` lines, an identifier in an option value
 *     (`variable=rom`, `port=`, `factor=N_ENUM`) naming a renamed symbol is
 *     renamed unless the enclosing function declares a parameter or local of
 *     that name. O2H_P_ values are replaced whole: the request's values are
 *     inserted verbatim and are never renamed (a value that names a template
 *     symbol must spell it with the prefix). The names are found in T with
 *     the request's values in place (parsed again, both views), so code
 *     under `#if` on a parameter is renamed as the instance compiles it;
 *     code in `#if` branches that neither view of the instance compiles
 *     (`#if 0`, the branch its values leave out) is left as is.
 *  4. All edits are applied by byte offset in one forward pass over the
 *     template into a new buffer (linear in the output size, so a ROM
 *     initializer of a million numbers costs a memcpy).
 *  5. The result is parsed again in memory (CXUnsavedFile, same path, same
 *     flags, both views - or the C-simulation view only, when the caller
 *     lints the synthesis view itself) and must give no diagnostic of
 *     severity warning or above; else the diagnostics are the error.
 * Every error is an IrDiag entry: "<template>: error: engine <engine>: ...".
 */
#ifndef ONNX2HLS_CG_HLS_SPECIALIZE_H
#define ONNX2HLS_CG_HLS_SPECIALIZE_H

#include <stdbool.h>

#include "ir/diag.h"

typedef struct {
    const char *name;   /* the full macro name, e.g. "O2H_P_PA" */
    const char *value;  /* replacement list, inserted verbatim (may be long) */
} CgHlsParam;

typedef struct {
    const char *template_path;         /* e.g. templates/hls/sesl_mac.c */
    const char *const *include_dirs;   /* -I dirs for parsing (runtime/, templates/hls/common, ...) */
    int n_include_dirs;
    const char *const *defines;        /* extra -D NAME[=V] for parsing (never __SYNTHESIS__: both views are parsed) */
    int n_defines;
    const CgHlsParam *params;
    int n_params;
    const char *prefix;                /* symbol prefix of this instance, a C identifier, e.g. "e3" */
    const char *engine;                /* instance name for messages, e.g. "stage 3 (Conv_12)" */
    bool csim_check_only;              /* re-parse the result as C simulation only: the caller lints
                                        * it with __SYNTHESIS__ (onnx2hls lint parses that view) */
} CgHlsSpecRequest;

/* The specialized source text (malloc'd, NUL-terminated), or NULL with every
 * error recorded on d. */
char *cg_hls_specialize(const CgHlsSpecRequest *rq, IrDiag *d);

#endif
