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

int cmd_ops(int argc, char **argv)
{
    int md = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--markdown")) {
            md = 1;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: onnx2hls ops [--markdown]\n"
                   "  lists the supported ONNX operators (default domain), the file stem of their\n"
                   "  importer (frontend/import_<family>.c) and host kernel (runtime/rt_<family>.c),\n"
                   "  and where they run (on the accelerator: as which kind of unit, ir/ops.def)\n");
            return 0;
        } else {
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
