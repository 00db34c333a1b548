/* quant_options.c - the quantization options and their table (ir/option.h):
 * --precision, --precision-spec, --calib, --calib-method, --calib-inputs.
 *
 * Why apart from passes/options.c: those options belong to the quantize
 * pass alone; the CLI drives this table the same way it drives the other
 * pass options', and prints `compile --help` from it. Nothing here reads
 * argv. */
#include "ir/sidefile.h"
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

static int set_method(void *opts, const char *v, IrDiag *d)
{
    QuantOptions *o = opts;
    if (!strcmp(v, "minmax"))
        return o->method = QUANT_CALIB_MINMAX, 0;
    if (!strcmp(v, "mse"))
        return o->method = QUANT_CALIB_MSE, 0;
    if (!strncmp(v, "percentile", 10) && (!v[10] || v[10] == ':')) {
        o->method = QUANT_CALIB_PERCENTILE;
        if (!v[10])
            return 0;
        char *end;
        errno = 0;
        double p = strtod(v + 11, &end);
        if (!*end && !errno && p > 50 && p <= 100) {
            o->percentile = p;
            return 0;
        }
    }
    diag_error(d, NULL, NULL, NULL, "--calib-method '%s': expected minmax, percentile[:P] (50 < P <= 100) or mse", v);
    return -1;
}

static int set_spec(void *opts, const char *v, IrDiag *d)
{
    if (sf_check(v, &SF_PRECISION_SPEC, NULL, d))
        return -1;
    ((QuantOptions *)opts)->spec = v;
    return 0;
}

static int set_prec(void *opts, const char *v, IrDiag *d)
{
    if (pass_quant_parse_prec(v, &((QuantOptions *)opts)->prec) == 0)
        return 0;
    diag_error(d, NULL, NULL, NULL, "--precision '%s': expected float, int8, int16, dfxp8, dfxp12, dfxp14 or dfxp16", v);
    return -1;
}

static int set_inputs(void *opts, const char *v, IrDiag *d)
{
    QuantOptions *o = opts;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < 1 || n > 1000000) {
        diag_error(d, NULL, NULL, NULL, "--calib-inputs '%s': expected a count >= 1", v);
        return -1;
    }
    o->max_calib = (int)n;
    o->n_random = (int)n;
    return 0;
}

static int set_calib(void *opts, const char *v, IrDiag *d)
{
    if (sf_check(v, &SF_CALIB, NULL, d))
        return -1;
    ((QuantOptions *)opts)->calib = v;
    return 0;
}

const IrOption pass_quant_options[] = {
    {"--precision", "P", set_prec, "float (default), int8, int16, dfxp8, dfxp12, dfxp14, dfxp16:\n"
                                   "integer layers and host C (docs/numerics.md)"},
    {"--precision-spec", "FILE", set_spec, "per-layer precision: lines 'LAYER_NAME PRECISION'\n"
                                           "('*' for every other layer; '#' comments)"},
    {"--calib", "FILE", set_calib, "raw float32 calibration inputs (N = file size / input size)"},
    {"--calib-method", "M", set_method, "minmax (default), percentile[:P] (P default 99.99) or mse"},
    {"--calib-inputs", "N", set_inputs, "use at most N calibration inputs (without --calib: N\n"
                                        "pseudo-random inputs, default 8)"},
    IR_OPTION_END,
};
