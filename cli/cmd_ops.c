/* cmd_ops.c - `onnx2hls ops [--markdown]`: the supported operators, straight
 * from ir/ops.def, so the README's table is generated from the code (see
 * scripts/update_readme_ops.sh and tests/scripts/test_readme_ops.sh). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const char *runs_on(IrOp op)
{
    static char buf[64];
    unsigned flags = ir_op_flags(op);
    if (flags & IR_F_FOLD_ONLY)
        return "folded at compile time";
    if (flags & IR_F_NO_DATA)
        return "host (view, no copy)";
    if (ir_op_unit(op) == IR_U_NONE)
        return "host";
    snprintf(buf, sizeof buf, "host, accelerator (%s)", ir_unit_name(ir_op_unit(op)));
    return buf;
}

static int set_markdown(void *o, const char *v, IrDiag *d)
{
    (void)v, (void)d;
    *(int *)o = 1;
    return 0;
}

static const IrOption ops_options[] = {
    {"--markdown", NULL, set_markdown, "print a Markdown table (the README's)"},
    IR_OPTION_END,
};

static void ops_usage(FILE *f)
{
    fprintf(f, "usage: onnx2hls ops [--markdown]\n"
               "  lists the supported ONNX operators (default domain), the file stem of their\n"
               "  importer (frontend/import_<family>.c) and host kernel (runtime/rt_<family>.c),\n"
               "  and where they run (on the accelerator: as which kind of unit, ir/ops.def)\n");
    cli_options_help(f, ops_options);
}

int cmd_ops(int argc, char **argv)
{
    int md = 0;
    for (int i = 1; i < argc; i++) {
        int r;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            ops_usage(stdout);
            return 0;
        } else if ((r = cli_option(ops_options, &md, argc, argv, &i)) <= 0) {
            if (r == 0)
                fprintf(stderr, "onnx2hls ops: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (md)
        printf("| ONNX op | family | runs on |\n|---|---|---|\n");
    for (int i = 0; i < IR_OP_COUNT; i++) {
        if (md)
            printf("| %s | %s | %s |\n", ir_op_name((IrOp)i), ir_op_family((IrOp)i), runs_on((IrOp)i));
        else
            printf("%-20s %-8s %s\n", ir_op_name((IrOp)i), ir_op_family((IrOp)i), runs_on((IrOp)i));
    }
    return 0;
}
