/* calibrate.c - activation ranges from float runs of the model: min/max,
 * percentile and MSE-optimal clipping.
 *
 * Why these three: min/max keeps every value representable but lets one
 * outlier stretch the grid; percentile (e.g. 99.99%) drops the extreme tail;
 * MSE picks the clipping range that minimizes the expected squared error
 * of quantizing the observed distribution (rounding noise step^2/12 inside
 * the range, clipping error outside), which balances the two. Histograms
 * need the range first, so percentile and MSE run the inputs twice (min/max,
 * then 2048-bin histograms), which costs time but no memory per input.
 *
 * Inputs come from --calib (raw float32, as many inputs as the file holds)
 * or, without it, from a fixed pseudo-random generator (with a warning:
 * ranges of random data rarely match real data). */
#include "quant_internal.h"
#include "ir/sidefile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CALIB_BINS 2048
#define MSE_STEPS 128

/* ------------------------------------------------------- statistics */

void pass_calib_observe(QuantStats *st, const float *x, int64_t n)
{
    if (st->nbins == 0) {
        for (int64_t i = 0; i < n; i++) {
            double v = x[i];
            if (!isfinite(v))
                continue;
            st->min = v < st->min ? v : st->min;
            st->max = v > st->max ? v : st->max;
            st->count++;
        }
        return;
    }
    double w = (st->hmax - st->hmin) / st->nbins;
    for (int64_t i = 0; i < n; i++) {
        double v = x[i];
        if (!isfinite(v))
            continue;
        int64_t b = (int64_t)((v - st->hmin) / w);
        b = b < 0 ? 0 : b >= st->nbins ? st->nbins - 1 : b;
        st->hist[b] += 1.0;
    }
}

static double bin_center(const QuantStats *st, int b)
{
    return st->hmin + (b + 0.5) * (st->hmax - st->hmin) / st->nbins;
}

double pass_calib_mse_cost(const QuantStats *st, double lo, double hi, int bits, bool sym)
{
    double qmax = pass_quant_qmax(bits), s;
    if (sym) {
        double m = fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi);
        s = m / qmax;
        lo = -m;
        hi = m;
    } else {
        s = (hi - lo) / (2.0 * qmax + 1.0);
    }
    double cost = 0;
    for (int b = 0; b < st->nbins; b++) {
        if (st->hist[b] == 0)
            continue;
        double c = bin_center(st, b), e;
        if (c < lo)
            e = (c - lo) * (c - lo);
        else if (c > hi)
            e = (c - hi) * (c - hi);
        else
            e = s * s / 12.0;
        cost += e * st->hist[b];
    }
    return cost;
}

/* value below which a fraction q of the histogram's mass lies */
static double quantile(const QuantStats *st, double q)
{
    double total = 0;
    for (int b = 0; b < st->nbins; b++)
        total += st->hist[b];
    double target = q * total, acc = 0, w = (st->hmax - st->hmin) / st->nbins;
    for (int b = 0; b < st->nbins; b++) {
        if (acc + st->hist[b] >= target && st->hist[b] > 0)
            return st->hmin + (b + (target - acc) / st->hist[b]) * w;
        acc += st->hist[b];
    }
    return st->hmax;
}

void pass_calib_range(const QuantStats *st, QuantCalibMethod m, double percentile, int bits, bool sym,
                      double *lo, double *hi)
{
    *lo = st->count ? st->min : 0;
    *hi = st->count ? st->max : 0;
    if (st->count && st->nbins > 0 && m == QUANT_CALIB_PERCENTILE) {
        double p = percentile / 100.0;
        *lo = st->min < 0 ? quantile(st, 1.0 - p) : st->min;
        *hi = st->max > 0 ? quantile(st, p) : st->max;
    } else if (st->count && st->nbins > 0 && m == QUANT_CALIB_MSE) {
        double best = INFINITY, a_best = 1.0;
        double l0 = st->min < 0 ? st->min : 0, h0 = st->max > 0 ? st->max : 0;
        for (int i = MSE_STEPS; i >= 1; i--) {
            double a = (double)i / MSE_STEPS;
            double c = pass_calib_mse_cost(st, a * l0, a * h0, bits, sym);
            if (c < best) {
                best = c;
                a_best = a;
            }
        }
        *lo = a_best * l0;
        *hi = a_best * h0;
    }
    *lo = *lo < 0 ? *lo : 0;
    *hi = *hi > 0 ? *hi : 0;
}

void pass_calib_stats_free(QuantStats *stats, int n)
{
    for (int i = 0; stats && i < n; i++)
        free(stats[i].hist);
}

/* ------------------------------------------------------- inputs */

typedef struct {
    int n;               /* inputs */
    int64_t size;        /* floats per input */
    float *data;         /* n * size */
} CalibSet;

float *pass_calib_read(const IrGraph *g, const char *path, int max, int *n_out, IrDiag *d)
{
    int64_t size = g->n_inputs == 1 ? ir_tensor_numel(&g->tensors[g->inputs[0]]) : -1;
    if (size <= 0) {
        diag_error(d, g->path, NULL, NULL, "calibration inputs need a model with one input of static shape");
        return NULL;
    }
    uint64_t bytes = 0;
    if (sf_check(path, &SF_CALIB, &bytes, d))
        return NULL;
    if (size > (int64_t)(SF_CALIB.cap / 4)) {
        diag_error(d, path, NULL, NULL, "one input of '%s' (%lld float32) is larger than calibration data may be",
                   g->tensors[g->inputs[0]].name, (long long)size);
        return NULL;
    }
    int64_t per = size * 4;
    if (bytes == 0 || bytes % (uint64_t)per) {
        diag_error(d, path, NULL, NULL,
                   "size %llu bytes is not a positive multiple of one input of '%s' (%lld float32 = %lld bytes)",
                   (unsigned long long)bytes, g->tensors[g->inputs[0]].name, (long long)size, (long long)per);
        return NULL;
    }
    int64_t n = (int64_t)(bytes / (uint64_t)per);
    if (max > 0 && n > max)
        n = max;
    char *data;
    if (sf_read_head(path, &SF_CALIB, (size_t)(n * per), &data, d))
        return NULL;
    *n_out = (int)n;
    return (float *)data;
}

static int read_calib(const IrGraph *g, const QuantOptions *o, int64_t size, CalibSet *cs, IrDiag *d)
{
    cs->data = pass_calib_read(g, o->calib, o->max_calib, &cs->n, d);
    cs->size = size;
    return cs->data ? 0 : -1;
}

static double lcg_unit(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return ((*s >> 8) + 0.5) / (double)(1u << 24);  /* (0, 1) */
}

/* standard normal values (Box-Muller on a 32-bit LCG): the same inputs on
 * every machine, spread like normalized image data (most within +-3) */
static void random_calib(const QuantOptions *o, int64_t size, CalibSet *cs, IrDiag *d, const char *path)
{
    cs->n = o->n_random > 0 ? o->n_random : 8;
    if ((uint64_t)cs->n * (uint64_t)size * 4 > SF_CALIB.cap)   /* as many as calibration data may hold */
        cs->n = (int)(SF_CALIB.cap / ((uint64_t)size * 4));
    cs->size = size;
    cs->data = malloc((size_t)(cs->n * size) * 4);
    uint32_t s = o->seed ? o->seed : 1;
    for (int64_t i = 0; cs->data && i < cs->n * size; i++) {
        double u = lcg_unit(&s), v = lcg_unit(&s);
        cs->data[i] = (float)(sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
    }
    diag_warn(d, path, NULL, NULL,
              "no --calib given: calibrating on %d pseudo-random inputs; activation ranges of real data "
              "will differ (give --calib FILE for accuracy)", cs->n);
}

/* ------------------------------------------------------- runs */

typedef struct {
    const bool *want;
    QuantStats *stats;
} Observer;

static void on_tensor(void *ctx, int t, const float *x, int64_t n)
{
    Observer *ob = ctx;
    if (ob->want[t])
        pass_calib_observe(&ob->stats[t], x, n);
}

static int run_set(IrGraph *g, const CalibSet *cs, Observer *ob, IrDiag *d)
{
    for (int i = 0; i < cs->n; i++) {
        const float *in = cs->data + (int64_t)i * cs->size;
        if (quant_eval(g, &in, NULL, on_tensor, ob, true, -1, NULL, d))
            return -1;
    }
    return 0;
}

static void start_histograms(IrGraph *g, const bool *want, QuantStats *stats)
{
    for (int t = 0; t < g->n_tensors; t++) {
        QuantStats *st = &stats[t];
        if (!want[t] || !st->count)
            continue;
        st->hmin = st->min;
        st->hmax = st->max > st->min ? st->max : st->min + 1e-6;
        st->nbins = CALIB_BINS;
        st->hist = calloc(CALIB_BINS, sizeof(double));
        if (!st->hist)
            st->nbins = 0;
    }
}

int pass_calibrate(IrGraph *g, const QuantOptions *o, const bool *want, QuantStats *stats, IrDiag *d)
{
    if (g->n_inputs != 1) {
        diag_error(d, g->path, NULL, NULL, "calibration needs a model with one input (this one has %d)",
                   g->n_inputs);
        return -1;
    }
    int64_t size = ir_tensor_numel(&g->tensors[g->inputs[0]]);
    if (size <= 0) {
        diag_error(d, g->path, NULL, NULL, "input '%s' has no static shape; give --input-shape",
                   g->tensors[g->inputs[0]].name);
        return -1;
    }
    if ((uint64_t)size * 4 > SF_CALIB.cap) {
        diag_error(d, g->path, NULL, NULL, "input '%s' holds %lld float32 values, more than the %llu MiB calibration "
                   "may take in one input: this model cannot be quantized here", g->tensors[g->inputs[0]].name,
                   (long long)size, (unsigned long long)(SF_CALIB.cap >> 20));
        return -1;
    }
    CalibSet cs = {0, 0, NULL};
    if (o->calib ? read_calib(g, o, size, &cs, d) : (random_calib(o, size, &cs, d, g->path), 0)) {
        free(cs.data);
        return -1;
    }
    for (int t = 0; t < g->n_tensors; t++)
        stats[t] = (QuantStats){INFINITY, -INFINITY, 0, 0, 0, NULL, 0};
    Observer ob = {want, stats};
    if (!cs.data) {
        diag_error(d, g->path, NULL, NULL, "out of memory for %d calibration inputs of %lld float32 values",
                   cs.n, (long long)size);
        return -1;
    }
    int rc = run_set(g, &cs, &ob, d);
    if (rc == 0 && o->method != QUANT_CALIB_MINMAX) {
        start_histograms(g, want, stats);
        rc = run_set(g, &cs, &ob, d);
    }
    if (rc == 0 && o->log)
        fprintf(o->log, "quantize: calibrated on %d input%s (%s), method %s\n", cs.n, cs.n == 1 ? "" : "s",
                o->calib ? o->calib : "pseudo-random",
                o->method == QUANT_CALIB_MINMAX ? "minmax" : o->method == QUANT_CALIB_MSE ? "mse" : "percentile");
    free(cs.data);
    return rc;
}
