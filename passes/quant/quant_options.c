/* quant_options.c - the command-line spellings of the quantization options
 * (--precision, --calib, --calib-method, --precision-spec, --calib-inputs).
 *
 * Why apart from passes/options.c: those options belong to the quantize
 * pass alone, and `compile` (and tests) reach them through one call,
 * pass_quant_parse_option, the same way they reach the other pass options. */
#include "passes/passes.h"
#include "quant.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pass_quant_options_init(QuantOptions *o)
{
    memset(o, 0, sizeof *o);
    o->prec.prec = IR_PREC_FLOAT;
    o->prec.bits = 32;
    o->method = QUANT_CALIB_MINMAX;
    o->percentile = 99.99;
    o->n_random = 8;
    o->seed = 1;
}

bool pass_quant_active(const QuantOptions *o)
{
    return o && (o->prec.prec != IR_PREC_FLOAT || o->spec);
}

static const struct {
    const char *name;
    IrPrecision prec;
    int bits;
} precs[] = {
    {"float", IR_PREC_FLOAT, 32}, {"int8", IR_PREC_INT8, 8},   {"int16", IR_PREC_INT16, 16},
    {"dfxp8", IR_PREC_DFXP, 8},   {"dfxp12", IR_PREC_DFXP, 12}, {"dfxp14", IR_PREC_DFXP, 14},
    {"dfxp16", IR_PREC_DFXP, 16},
};

int pass_quant_parse_prec(const char *s, QuantPrec *p)
{
    for (size_t i = 0; i < sizeof precs / sizeof precs[0]; i++)
        if (!strcmp(s, precs[i].name)) {
            p->prec = precs[i].prec;
            p->bits = precs[i].bits;
            return 0;
        }
    return -1;
}

const char *pass_quant_prec_name(QuantPrec p)
{
    for (size_t i = 0; i < sizeof precs / sizeof precs[0]; i++)
        if (precs[i].prec == p.prec && (p.prec == IR_PREC_FLOAT || precs[i].bits == p.bits))
            return precs[i].name;
    return "?";
}

static int set_method(QuantOptions *o, const char *cmd, const char *v)
{
    if (!strcmp(v, "minmax"))
        return o->method = QUANT_CALIB_MINMAX, 1;
    if (!strcmp(v, "mse"))
        return o->method = QUANT_CALIB_MSE, 1;
    if (!strncmp(v, "percentile", 10) && (!v[10] || v[10] == ':')) {
        o->method = QUANT_CALIB_PERCENTILE;
        if (!v[10])
            return 1;
        char *end;
        errno = 0;
        double p = strtod(v + 11, &end);
        if (!*end && !errno && p > 50 && p <= 100) {
            o->percentile = p;
            return 1;
        }
    }
    fprintf(stderr, "onnx2hls %s: --calib-method '%s': expected minmax, percentile[:P] (50 < P <= 100) or mse\n",
            cmd, v);
    return -1;
}

int pass_quant_parse_option(QuantOptions *o, int argc, char **argv, int *i)
{
    const char *cmd = argv[0], *v;
    int bad = 0;
    if ((v = passes_option_value(argc, argv, i, "--precision-spec", &bad))) {
        if (passes_check_file(cmd, "--precision-spec", v, &SF_PRECISION_SPEC))
            return -1;
        o->spec = v;
        return 1;
    }
    if (!bad && (v = passes_option_value(argc, argv, i, "--precision", &bad))) {
        if (pass_quant_parse_prec(v, &o->prec)) {
            fprintf(stderr, "onnx2hls %s: --precision '%s': expected float, int8, int16, dfxp8, dfxp12, "
                            "dfxp14 or dfxp16\n", cmd, v);
            return -1;
        }
        return 1;
    }
    if (!bad && (v = passes_option_value(argc, argv, i, "--calib-method", &bad)))
        return set_method(o, cmd, v);
    if (!bad && (v = passes_option_value(argc, argv, i, "--calib-inputs", &bad))) {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end || n < 1 || n > 1000000) {
            fprintf(stderr, "onnx2hls %s: --calib-inputs '%s': expected a count >= 1\n", cmd, v);
            return -1;
        }
        o->max_calib = (int)n;
        o->n_random = (int)n;
        return 1;
    }
    if (!bad && (v = passes_option_value(argc, argv, i, "--calib", &bad))) {
        if (passes_check_file(cmd, "--calib", v, &SF_CALIB))
            return -1;
        o->calib = v;
        return 1;
    }
    return bad ? -1 : 0;
}

void pass_quant_usage(FILE *f)
{
    fprintf(f, "  --precision P    float (default), int8, int16, dfxp8, dfxp12, dfxp14, dfxp16:\n"
               "                   integer layers and host C (docs/numerics.md)\n"
               "  --precision-spec FILE  per-layer precision: lines 'LAYER_NAME PRECISION'\n"
               "                   ('*' for every other layer; '#' comments)\n"
               "  --calib FILE     raw float32 calibration inputs (N = file size / input size)\n"
               "  --calib-method M minmax (default), percentile[:P] (P default 99.99) or mse\n"
               "  --calib-inputs N use at most N calibration inputs (without --calib: N\n"
               "                   pseudo-random inputs, default 8)\n");
}
