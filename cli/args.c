/* args.c - option parsing shared by the subcommands (--input-shape,
 * --precision), so every command accepts the same spellings and gives the
 * same messages. */
#include "cli.h"

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

static const struct {
    const char *name;
    IrPrecision prec;
    int bits;
} precisions[] = {
    {"float", IR_PREC_FLOAT, 32}, {"int8", IR_PREC_INT8, 8},     {"int16", IR_PREC_INT16, 16},
    {"dfxp8", IR_PREC_DFXP, 8},   {"dfxp12", IR_PREC_DFXP, 12}, {"dfxp14", IR_PREC_DFXP, 14},
    {"dfxp16", IR_PREC_DFXP, 16},
};

int cli_parse_precision(const char *s, IrPrecision *prec, int *bits)
{
    for (size_t i = 0; i < sizeof precisions / sizeof precisions[0]; i++)
        if (!strcmp(s, precisions[i].name)) {
            *prec = precisions[i].prec;
            *bits = precisions[i].bits;
            return 0;
        }
    fprintf(stderr, "onnx2hls: unknown precision '%s' (float, int8, int16, dfxp8, dfxp12, dfxp14, dfxp16)\n", s);
    return -1;
}

const char *cli_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "onnx2hls %s: option %s needs a value\n", argv[0], argv[*i]);
        return NULL;
    }
    return argv[++*i];
}
