/* cmd_inspect.c - `onnx2hls inspect MODEL`: load a model and print its
 * layers (table with per-layer MACs, params, reuse and bytes, plus totals)
 * or, with --json, the layer DAG for other tools. With pass options (--fuse,
 * --passes=, --prune, --dump-after=) the layers are shown after the passes,
 * with the layer count before and after. */
#include "cli.h"
#include "passes/passes.h"

#include <stdio.h>
#include <string.h>

static void inspect_usage(FILE *f)
{
    fprintf(f, "usage: onnx2hls inspect MODEL.onnx [--input-shape NAME=1,3,224,224]... [--json]\n"
               "                        [--precision float|int8|int16|dfxp8|dfxp12|dfxp14|dfxp16]\n"
               "  --input-shape  bind the dims of a graph input (needed when the model has dynamic dims)\n"
               "  --bind NAME=FILE  give graph input NAME a value (a .pb TensorProto or raw data):\n"
               "                 it becomes a constant\n"
               "  --json         print the layer DAG as JSON instead of a table\n"
               "  --precision    word size used for the IFM/OFM/weight byte columns (default float)\n"
               "pass options (the table then shows the graph after the passes):\n");
    cli_options_help(f, passes_options);
}

/* run the passes when asked, keeping the totals before them in *a.
 * 0 ok, -1 failed (reported on d). */
static int inspect_passes(IrGraph *g, PassOptions *po, PassTotals *a, IrDiag *d)
{
    passes_totals(g, a);
    if (!passes_options_given(po))
        return 0;
    po->verify_each = true;
    if (po->prune_ratio > 0 || po->prune_spec)
        po->log = stderr;
    return passes_run(g, po, d) ? -1 : 0;
}

/* "layers before/after" (stdout under the table, stderr next to JSON) */
static void inspect_before_after(const IrGraph *g, const PassTotals *a, int json)
{
    PassTotals b;
    passes_totals(g, &b);
    fprintf(json ? stderr : stdout, "layers before passes %d, after %d (MACs %lld -> %lld, params %lld -> %lld)\n",
            a->layers, b.layers, (long long)a->macs, (long long)b.macs, (long long)a->params, (long long)b.params);
}

int cmd_inspect(int argc, char **argv)
{
    FeOptions opt;
    memset(&opt, 0, sizeof opt);
    const char *model = NULL;
    int json = 0, bits = 32;
    IrPrecision prec = IR_PREC_FLOAT;
    PassOptions po;
    passes_options_init(&po);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int pr;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            inspect_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--input-shape")) {
            if (!(v = cli_value(argc, argv, &i)) || cli_add_input_shape(&opt, v))
                return 2;
        } else if (!strcmp(a, "--bind")) {
            if (!(v = cli_value(argc, argv, &i)) || cli_add_bind(&opt, v))
                return 2;
        } else if (!strcmp(a, "--precision")) {
            if (!(v = cli_value(argc, argv, &i)) || cli_parse_precision(v, &prec, &bits))
                return 2;
        } else if ((pr = cli_option(passes_options, &po, argc, argv, &i)) != 0) {
            if (pr < 0)
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
    PassTotals before;
    if (!g || d.n_errors || inspect_passes(g, &po, &before, &d)) {
        diag_print(&d, stderr);
        diag_free(&d);
        ir_graph_free(g);
        return 2;
    }
    diag_print(&d, stderr);
    for (int l = 0; l < g->n_layers; l++) {
        g->layers[l].prec = prec;
        g->layers[l].bits = bits;
    }
    if (json)
        ir_print_json(g, stdout);
    else
        ir_print_text(g, stdout);
    if (passes_options_given(&po))
        inspect_before_after(g, &before, json);
    ir_graph_free(g);
    diag_free(&d);
    return 0;
}
