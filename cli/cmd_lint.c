/* cmd_lint.c - `onnx2hls lint FILE.c|DIR`: check HLS C against the rules
 * Vitis HLS synthesis needs (codegen/hls_lint.h, docs/lint.md).
 *
 * Prints one line per finding, `file:line:col: rule: explanation`, on
 * stdout. Exit: 0 clean, 1 findings, 2 bad input (no such file, a file
 * that does not parse, an unknown --top) or usage. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/hls_lint.h"

#define LINT_MAX_OPTS 64

static void lint_usage(FILE *f)
{
    fprintf(f, "usage: onnx2hls lint FILE.c|DIR [-I DIR]... [-D NAME[=VALUE]]... [--top NAME]\n"
               "  FILE.c|DIR  a C file, or a folder: every .c under it except tb/, or the\n"
               "               syn.file= list of DIR/hls_config.cfg when there is one\n"
               "  -I DIR      include folder (default: DIR/common, or common/ next to FILE.c)\n"
               "  -D NAME     define a macro (__SYNTHESIS__ is always defined: the code Vitis sees)\n"
               "  --top NAME  the top function (default: the one with #pragma HLS INTERFACE,\n"
               "               else syn.top= of DIR/hls_config.cfg)\n"
               "Prints file:line:col: rule: explanation per finding (rules: docs/lint.md).\n"
               "Exit: 0 clean, 1 findings, 2 bad input.\n");
}

/* -I DIR / -IDIR (likewise -D); 1 consumed, 0 not this option, -1 missing value */
static int dir_option(const char *flag, int argc, char **argv, int *i, const char **list, int *n)
{
    size_t k = strlen(flag);
    if (strncmp(argv[*i], flag, k))
        return 0;
    const char *v = argv[*i][k] ? argv[*i] + k : cli_value(argc, argv, i);
    if (!v)
        return -1;
    if (*n >= LINT_MAX_OPTS) {
        fprintf(stderr, "onnx2hls lint: too many %s options\n", flag);
        return -1;
    }
    list[(*n)++] = v;
    return 1;
}

int cmd_lint(int argc, char **argv)
{
    const char *incs[LINT_MAX_OPTS], *defs[LINT_MAX_OPTS], *path = NULL;
    CgHlsLintOptions opt = {incs, 0, defs, 0, NULL};
    for (int i = 1; i < argc; i++) {
        int r;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            lint_usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--top")) {
            if (!(opt.top = cli_value(argc, argv, &i)))
                return 2;
        } else if ((r = dir_option("-I", argc, argv, &i, incs, &opt.n_include_dirs)) ||
                   (r = dir_option("-D", argc, argv, &i, defs, &opt.n_defines))) {
            if (r < 0)
                return 2;
        } else if (argv[i][0] == '-' || path) {
            fprintf(stderr, "onnx2hls lint: unexpected argument '%s'\n", argv[i]);
            lint_usage(stderr);
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        lint_usage(stderr);
        return 2;
    }
    IrDiag d;
    diag_init(&d);
    CgHlsLintResult r;
    int n = cg_hls_lint(path, &opt, &r, &d);
    diag_print(&d, stderr);
    if (n >= 0)
        cg_hls_lint_print(&r, stdout);
    if (n > 0)
        fprintf(stderr, "onnx2hls lint: %d finding(s) in %d file(s)%s%s\n", n, r.n_files, r.top ? ", top " : "",
                r.top ? r.top : "");
    cg_hls_lint_result_free(&r);
    diag_free(&d);
    return n < 0 ? 2 : n > 0 ? 1 : 0;
}
