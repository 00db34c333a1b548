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

typedef struct {
    const char *incs[LINT_MAX_OPTS], *defs[LINT_MAX_OPTS];
    CgHlsLintOptions opt;
} LintArgs;

static int add_to(const char *flag, const char **list, int *n, const char *v, IrDiag *d)
{
    if (*n >= LINT_MAX_OPTS) {
        diag_error(d, NULL, NULL, NULL, "too many %s options", flag);
        return -1;
    }
    list[(*n)++] = v;
    return 0;
}

static int set_include(void *o, const char *v, IrDiag *d)
{
    LintArgs *a = o;
    return add_to("-I", a->incs, &a->opt.n_include_dirs, v, d);
}

static int set_define(void *o, const char *v, IrDiag *d)
{
    LintArgs *a = o;
    return add_to("-D", a->defs, &a->opt.n_defines, v, d);
}

static int set_top(void *o, const char *v, IrDiag *d)
{
    (void)d;
    ((LintArgs *)o)->opt.top = v;
    return 0;
}

static const IrOption lint_options[] = {
    {"-I", "DIR", set_include, "include folder (default: DIR/common, or common/ next to FILE.c)"},
    {"-D", "NAME[=VALUE]", set_define, "define a macro (__SYNTHESIS__ is always defined: the code Vitis sees)"},
    {"--top", "NAME", set_top, "the top function (default: the one with #pragma HLS INTERFACE,\n"
                               "else syn.top= of DIR/hls_config.cfg)"},
    IR_OPTION_END,
};

static void lint_usage(FILE *f)
{
    fprintf(f, "usage: onnx2hls lint FILE.c|DIR [-I DIR]... [-D NAME[=VALUE]]... [--top NAME]\n"
               "  FILE.c|DIR       a C file, or a folder: every .c under it except tb/, or the\n"
               "                   syn.file= list of DIR/hls_config.cfg when there is one\n");
    cli_options_help(f, lint_options);
    fprintf(f, "Prints file:line:col: rule: explanation per finding (rules: docs/lint.md).\n"
               "Exit: 0 clean, 1 findings, 2 bad input.\n");
}

int cmd_lint(int argc, char **argv)
{
    LintArgs a;
    memset(&a, 0, sizeof a);
    a.opt.include_dirs = a.incs;
    a.opt.defines = a.defs;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        int r;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            lint_usage(stdout);
            return 0;
        } else if ((r = cli_option(lint_options, &a, argc, argv, &i)) != 0) {
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
    const CgHlsLintOptions opt = a.opt;
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
