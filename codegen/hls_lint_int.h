/* hls_lint_int.h - what the lint's parts share (see hls_lint.h).
 *
 * hls_lint.c       driver: files, parsing, findings, the order of checks
 * hls_lint_ast.c   one translation unit's AST: call, type and loop rules,
 *                  function summaries, scopes, DATAFLOW regions
 * hls_lint_pragma.c  `#pragma HLS` vocabulary, values (macros and enum
 *                  constants evaluated), placement, names, INTERFACE, factors
 * hls_lint_flow.c  the whole design: recursion, the top and its interface,
 *                  parameter access through calls, DATAFLOW channels
 */
#ifndef ONNX2HLS_CG_HLS_LINT_INT_H
#define ONNX2HLS_CG_HLS_LINT_INT_H

#include "hls_clang.h"
#include "hls_lint.h"

#include <stdint.h>

#define LINT_MAX_DIMS 8

/* access of a pointer/array parameter or a channel */
enum { ACC_READ = 1, ACC_WRITE = 2 };

typedef struct {
    char *file;
    unsigned line, col;
} LintLoc;

/* A candidate finding kept until the design is known (interface rules). */
typedef struct {
    LintLoc at;
    const char *rule;
    char *msg;
} LintNote;

/* A parameter handed on to a callee: access(param) |= access(callee, arg). */
typedef struct {
    int param;
    char *callee;                /* function key */
    int arg;
    int fallback;                /* access if the callee is not defined here (from its prototype) */
} LintFwd;

typedef struct {
    char *callee;                /* function key */
    LintLoc at;
} LintEdge;

/* One function defined in the linted code. Key: its name, or "file#name"
 * for internal linkage. */
typedef struct {
    char *key, *name;
    LintLoc at;
    LintEdge *calls;             /* every call in its body */
    int n_calls;
    int n_params;
    char **param_names;
    unsigned char *acc;          /* per parameter, ACC_* (direct uses) */
    LintFwd *fwd;
    int n_fwd;
    LintNote *iface;             /* interface findings, reported if this is the top */
    int n_iface;
    LintLoc *interface_at;       /* its `#pragma HLS INTERFACE` lines */
    int n_interface;
} LintFn;

/* One argument of a call in a DATAFLOW region. */
typedef struct {
    int chan;                    /* channel index, -1 if not a channel */
    int fallback;                /* access from the callee's prototype */
} LintArg;

typedef struct {
    char *callee;
    LintLoc at;
    LintArg *args;
    int n_args;
} LintCall;

typedef struct {
    LintLoc at;                  /* the DATAFLOW pragma */
    char **chan;                 /* local variables declared in the region */
    LintLoc *chan_at;
    bool *chan_fifo;             /* declared a FIFO of a given depth (STREAM variable= depth=) */
    int n_chan;
    LintCall *calls;
    int n_calls;
} LintRegion;

/* A loop of one file: extents of the loop and of its body; trip count or -1. */
typedef struct {
    unsigned off, end, body_off, body_end;
    long long trip;
    bool is_for;
    LintLoc at;
    int fn;                      /* index into the file's scopes of the function, -1 */
} LintLoop;

/* A variable visible to pragmas: name, array dims (0 = unknown). */
typedef struct {
    char *name;
    int n_dims;
    long long dims[LINT_MAX_DIMS];
    bool param;
} LintVar;

/* A function body of one file, with its parameters and locals. */
typedef struct {
    unsigned off, end;           /* body extent */
    unsigned *stmt;              /* extents of the body's statements: pairs [stmt[2i], stmt[2i+1]) */
    int n_stmt;
    char *fn_key;
    LintVar *vars;
    int n_vars;
} LintScope;

/* A macro definition seen in the translation unit (for pragma values). */
typedef struct {
    char *name;
    CXFile file;
    unsigned off;                /* offset of the name in its file */
    CXCursor cur;
} LintMacro;

typedef struct {
    char *name;
    long long value;
} LintEnum;

/* One non-system file of the translation unit being linted. */
typedef struct {
    CXFile file;
    char *name;
    HcTokens tok;
    HcPragma *prag;
    int n_prag;
    unsigned char *region_prag;  /* per pragma: 1 if it opens a DATAFLOW region */
    LintLoop *loops;
    int n_loops;
    LintScope *scopes;
    int n_scopes;
} LintFile;

/* The lint of the whole design. */
typedef struct {
    const CgHlsLintOptions *opt;
    CgHlsLintResult *res;
    IrDiag *d;                   /* bad input found by the design rules (an unknown --top) */
    const char *path;            /* the FILE.c or DIR linted: what design errors name */
    const char *cfg_top;         /* syn.top= of hls_config.cfg */
    const char *cfg_path;        /* that hls_config.cfg, when it names the top */
    LintFn *fns;
    int n_fns;
    LintRegion *regions;
    int n_regions;
    /* current translation unit */
    CXTranslationUnit tu;
    LintFile **files;            /* stable addresses: a walk holds one while others are added */
    int n_files;
    LintVar *globals;
    int n_globals;
    LintMacro *macros;
    int n_macros;
    LintEnum *enums;
    int n_enums;
} Lint;

/* hls_lint.c */
void *lint_realloc(void *p, size_t n);
char *lint_strdup(const char *s);
void lint_find(Lint *L, const LintLoc *at, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
LintLoc lint_loc(CXSourceLocation l);
LintLoc lint_cursor_loc(CXCursor c);
LintLoc lint_tok_loc(const LintFile *f, unsigned tok);
void lint_loc_free(LintLoc *l);
LintFile *lint_file(Lint *L, CXFile file);   /* NULL for system headers */
LintFn *lint_fn_get(Lint *L, const char *key, const char *name);

#define LINT_PUSH(arr, n, x)                                              \
    do {                                                                  \
        (arr) = lint_realloc((arr), ((size_t)(n) + 1) * sizeof *(arr));   \
        (arr)[(n)++] = (x);                                               \
    } while (0)

/* hls_lint_ast.c */
void lint_ast(Lint *L);
char *lint_fn_key(CXCursor fn);
int lint_type_dims(CXType t, long long *dims);

/* hls_lint_pragma.c */
void lint_pragmas(Lint *L);
/* value of an integer expression in tokens [a, b) of f (macros and enum
 * constants expanded); false if not a constant */
bool lint_eval(Lint *L, const LintFile *f, unsigned a, unsigned b, long long *v);

/* hls_lint_flow.c */
void lint_design(Lint *L);

#endif
