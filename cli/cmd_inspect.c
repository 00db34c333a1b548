/* cmd_inspect.c - `onnx2hls inspect MODEL`: load a model and print its
 * layers (table with per-layer MACs, params, reuse and bytes, plus totals)
 * or, with --json, the layer DAG for other tools. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static void inspect_usage(FILE *f)
{
    fprintf(f, "usage: onnx2hls inspect MODEL.onnx [--input-shape NAME=1,3,224,224]... [--json]\n"
               "                        [--precision float|int8|int16|dfxp8|dfxp12|dfxp14|dfxp16]\n"
               "  --input-shape  bind the dims of a graph input (needed when the model has dynamic dims)\n"
               "  --json         print the layer DAG as JSON instead of a table\n"
               "  --precision    word size used for the IFM/OFM/weight byte columns (default float)\n");
}

int cmd_inspect(int argc, char **argv)
{
    FeOptions opt;
    memset(&opt, 0, sizeof opt);
    const char *model = NULL;
    int json = 0, bits = 32;
    IrPrecision prec = IR_PREC_FLOAT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            inspect_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--input-shape")) {
            if (!(v = cli_value(argc, argv, &i)) || cli_add_input_shape(&opt, v))
                return 2;
        } else if (!strcmp(a, "--precision")) {
            if (!(v = cli_value(argc, argv, &i)) || cli_parse_precision(v, &prec, &bits))
                return 2;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "onnx2hls inspect: unknown option '%s'\n", a);
            inspect_usage(stderr);
            return 2;
        } else if (model) {
            fprintf(stderr, "onnx2hls inspect: more than one model given\n");
            return 2;
        } else {
            model = a;
        }
    }
    if (!model) {
        inspect_usage(stderr);
        return 2;
    }
    IrDiag d;
    diag_init(&d);
    IrGraph *g = fe_load_onnx(model, &opt, &d);
    diag_print(&d, stderr);
    if (!g || d.n_errors) {
        diag_free(&d);
        ir_graph_free(g);
        return 2;
    }
    for (int l = 0; l < g->n_layers; l++) {
        g->layers[l].prec = prec;
        g->layers[l].bits = bits;
    }
    if (json)
        ir_print_json(g, stdout);
    else
        ir_print_text(g, stdout);
    ir_graph_free(g);
    diag_free(&d);
    return 0;
}
