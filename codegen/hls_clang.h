/* hls_clang.h - libclang plumbing shared by the HLS template specializer
 * (hls_specialize.c) and the HLS lint (hls_lint*.c).
 *
 * Why one module: both parse HLS C the same way (C11, include dirs, the
 * csim view or the synthesis view with __SYNTHESIS__ defined), both read
 * the token stream of a file by byte offset, and both need the
 * `#pragma HLS` lines, which libclang keeps out of the AST: a pragma is
 * only a run of tokens. Here they are parsed once into directive + options
 * with token indices, so the specializer can rename `variable=` names and
 * the lint can check keys and values, each by byte offset.
 */
#ifndef ONNX2HLS_CG_HLS_CLANG_H
#define ONNX2HLS_CG_HLS_CLANG_H

#include "hls_clang_api.h"
#include <stdbool.h>
#include <stddef.h>

/* The clang command line: -xc -std=c11 -ffreestanding -Wall -Wextra -Wno-unknown-pragmas,
 * -I per include dir, -D per define, and -D__SYNTHESIS__ for the synthesis
 * view (the code Vitis HLS compiles; without it, the C-simulation view). */
typedef struct {
    char **v;
    int n;
} HcArgv;

void hc_argv_build(HcArgv *a, const char *const *include_dirs, int n_include_dirs,
                   const char *const *defines, int n_defines, bool synthesis);
void hc_argv_free(HcArgv *a);

/* Parse path (from disk, or from text/len when text is not NULL: the
 * in-memory contents of that path), with the detailed preprocessing record
 * (macro definitions and expansions as cursors) when detailed is set. NULL
 * on failure, with a malloc'd reason in *why. */
CXTranslationUnit hc_parse(CXIndex idx, const char *path, const HcArgv *a, const char *text,
                           size_t len, bool detailed, char **why);

/* Indexes and translation units are made and disposed through these (and
 * hc_parse), which count the handles alive: hc_live() is that count. Why:
 * libclang's memory is C++ inside a library without frame pointers, so a
 * leak checker cannot tell a handle we forgot from libclang's own caches;
 * the fuzz targets check instead that every input leaves no handle alive. */
CXIndex hc_index(void);
void hc_index_free(CXIndex idx);
void hc_tu_free(CXTranslationUnit tu);
int hc_live(void);

/* Every diagnostic of severity >= min, formatted (file:line:col: level:
 * text) and joined by "; ", malloc'd; NULL when there is none. */
char *hc_diagnostics(CXTranslationUnit tu, enum CXDiagnosticSeverity min);

/* A clang string as a malloc'd C string (disposes s). */
char *hc_str(CXString s);

/* Byte offset and line:col of a location in its spelling file. */
unsigned hc_offset(CXSourceLocation l);
void hc_line_col(CXSourceLocation l, unsigned *line, unsigned *col);

/* All tokens of one file of a translation unit but comments, with their
 * byte extents and the file's bytes (owned by the translation unit). */
typedef struct {
    CXTranslationUnit tu;
    CXFile file;
    const char *text;
    size_t len;
    CXToken *raw;            /* as clang_tokenize gave them (comments included) */
    unsigned n_raw;
    CXToken *tok;            /* without comments */
    unsigned n;
    unsigned *off, *end;     /* [off[i], end[i]) bytes of token i */
    unsigned *skip;          /* preprocessor-skipped ranges: pairs [skip[2k], skip[2k+1]) */
    unsigned n_skip;
} HcTokens;

int hc_tokens(CXTranslationUnit tu, CXFile file, HcTokens *t);
void hc_tokens_free(HcTokens *t);
/* token i spelled exactly s */
bool hc_tok_is(const HcTokens *t, unsigned i, const char *s);
/* same, ignoring ASCII case */
bool hc_tok_is_nocase(const HcTokens *t, unsigned i, const char *s);
bool hc_tok_ident(const HcTokens *t, unsigned i);
/* spelling of token i, malloc'd */
char *hc_tok_dup(const HcTokens *t, unsigned i);
/* 1 if byte offset off lies in a range the preprocessor skipped */
bool hc_skipped(const HcTokens *t, unsigned off);
/* index of the first token starting at or after off (n if none) */
unsigned hc_tok_at(const HcTokens *t, unsigned off);

/* One `#pragma HLS` line. Options are `key`, or `key=value` where the value
 * is the first token after '=' and the tokens that touch it without white
 * space (`a.b`, `2*N`, `(N)`). Token indices into HcTokens. */
typedef struct {
    unsigned key;            /* token index of the key */
    unsigned val, n_val;     /* value tokens [val, val + n_val); n_val = 0 for a bare word */
} HcPragmaOpt;

typedef struct {
    unsigned hash;           /* token index of '#' */
    unsigned dir;            /* token index of the directive (PIPELINE, ...); == end if missing */
    unsigned end;            /* one past the last token of the line */
    HcPragmaOpt *opt;
    int n_opt;
    bool malformed;          /* '=' without a key or without a value */
} HcPragma;

/* The `#pragma HLS` lines of t outside skipped ranges, in order. */
int hc_pragmas(const HcTokens *t, HcPragma **out, int *n);
void hc_pragmas_free(HcPragma *p, int n);

#endif
