/* args.c - option parsing shared by the subcommands (--input-shape,
 * --bind, --precision), so every command accepts the same spellings and gives the
 * same messages. */
#include "cli.h"
#include "passes/quant/quant.h"

#include <stdio.h>
#include <string.h>

int cli_add_input_shape(FeOptions *opt, const char *spec)
{
    if (opt->n_shapes >= IR_MAX_IO) {
        fprintf(stderr, "onnx2hls: too many --input-shape options\n");
        return -1;
    }
    if (fe_parse_input_shape(spec, &opt->shapes[opt->n_shapes]) != 0) {
        fprintf(stderr, "onnx2hls: bad --input-shape '%s' (expected NAME=1,3,224,224 with positive dims)\n",
                spec);
        return -1;
    }
    opt->n_shapes++;
    return 0;
}

int cli_add_bind(FeOptions *opt, const char *spec)
{
    if (opt->n_binds >= IR_MAX_IO) {
        fprintf(stderr, "onnx2hls: too many --bind options\n");
        return -1;
    }
    if (fe_parse_bind(spec, &opt->binds[opt->n_binds]) != 0) {
        fprintf(stderr, "onnx2hls: bad --bind '%s' (expected NAME=FILE: a .pb TensorProto or raw data)\n", spec);
        return -1;
    }
    opt->n_binds++;
    return 0;
}

int cli_parse_precision(const char *s, IrPrecision *prec, int *bits)
{
    QuantPrec p;
    if (pass_quant_parse_prec(s, &p)) {
        fprintf(stderr, "onnx2hls: unknown precision '%s' (float, int8, int16, dfxp8, dfxp12, dfxp14, dfxp16)\n", s);
        return -1;
    }
    *prec = p.prec;
    *bits = p.bits;
    return 0;
}

const char *cli_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "onnx2hls %s: option %s needs a value\n", argv[0], argv[*i]);
        return NULL;
    }
    return argv[++*i];
}
