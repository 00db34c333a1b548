/* test_quant_e2e.c - quantization end to end on the bundled sample models.
 *
 * For each sample (samples/NAME.onnx with its input and ONNX Runtime float
 * output), compiled with --precision int8 and calibrated on its input:
 *   1. the integer program's output is within a few output LSBs of the
 *      float reference: max |y_int8 - y_ref| <= 4 * s_out (measured: 1-2);
 *   2. QDQ export -> import (the default pipeline on the exported file)
 *      gives the same integer program: identical outputs, bit for bit;
 *   3. the generated host C (built with the target's vector paths) gives
 *      the evaluator's output bit for bit (skipped without a C compiler).
 * dfxp16 and int16 are checked the same way on one model (bound 0.01 of the
 * output range; 16-bit words are far finer than 8-bit ones). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "codegen/host.h"
#include "driver/driver.h"
#include "passes/quant/qdq_export.h"
#include "passes/quant/quant.h"
#include "test_util.h"

#define SAMPLES SOURCE_DIR "/samples/"

static IrGraph *lower(const char *model, const char *prec, const char *calib, IrDiag *d)
{
    QuantOptions o;
    pass_quant_options_init(&o);
    PassOptions po;
    passes_options_init(&po);
    if (prec) {
        pass_quant_parse_prec(prec, &o.prec);
        o.calib = calib;
        po.quant = &o;
    }
    FeOptions fe;
    memset(&fe, 0, sizeof fe);
    return driver_lower_model(model, &fe, &po, d);
}

/* scale of the integer tensor dequantized into graph output 0 */
static float output_scale(const IrGraph *g)
{
    int p = g->tensors[g->outputs[0]].producer;
    if (p < 0 || g->layers[p].op != IR_OP_DEQUANTIZE_LINEAR)
        return 0;
    return g->tensors[g->layers[p].in[0]].quant->scale[0];
}

static int have_cc(void)
{
    static int have = -1;
    if (have < 0)
        have = system("cc --version > /dev/null 2>&1") == 0;
    return have;
}

/* emit, build and run the host program; its output into y */
static int run_host(IrGraph *g, const char *name, const char *in, float *y, size_t n)
{
    char dir[512], cmd[4096], out[600];
    snprintf(dir, sizeof dir, "%s/test_quant_e2e_%s", BINARY_DIR, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd))
        return -1;
    IrDiag d;
    diag_init(&d);
    CgHostOptions ho = {.model_path = "sample"};
    int rc = cg_host_emit(g, &ho, dir, NULL, &d);
    diag_print(&d, stderr);
    diag_free(&d);
    if (rc)
        return -1;
    snprintf(out, sizeof out, "%s/out.f32", dir);
    snprintf(cmd, sizeof cmd, "make -s -C '%s' > '%s/build.log' 2>&1 && '%s/model' --weights '%s/weights.bin' -o '%s' '%s'"
             " > /dev/null", dir, dir, dir, dir, out, in);
    if (system(cmd))
        return -1;
    size_t m;
    float *v = test_read_f32(out, &m);
    rc = v && m == n ? 0 : -1;
    if (!rc)
        memcpy(y, v, n * 4);
    free(v);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    rc |= system(cmd) != 0;
    return rc;
}

static void check_sample(const char *name, const char *prec, double bound_lsb, double bound_rel)
{
    char model[512], in[512], ref[512], qdq[512];
    snprintf(model, sizeof model, SAMPLES "%s.onnx", name);
    snprintf(in, sizeof in, SAMPLES "%s.in.f32", name);
    snprintf(ref, sizeof ref, SAMPLES "%s.ref.f32", name);
    snprintf(qdq, sizeof qdq, "%s/test_quant_e2e_%s_%s.qdq.onnx", BINARY_DIR, name, prec);
    IrDiag d;
    diag_init(&d);
    size_t nx, nr;
    float *x = test_read_f32(in, &nx), *yr = test_read_f32(ref, &nr);
    IrGraph *g = lower(model, prec, in, &d);
    CHECK_MSG(g && x && yr, "%s: load/quantize failed", name);
    if (!g || !x || !yr) {
        diag_print(&d, stderr);
        diag_free(&d);
        ir_graph_free(g);
        free(x), free(yr);
        return;
    }
    float *y = calloc(nr, 4), *y2 = calloc(nr, 4), *yh = calloc(nr, 4);
    const float *ins = x;
    CHECK(pass_quant_eval(g, &ins, &y, NULL, NULL, &d) == 0);
    double err = 0, mx = 0, s = output_scale(g);
    for (size_t i = 0; i < nr; i++) {
        err = fabs(y[i] - yr[i]) > err ? fabs(y[i] - yr[i]) : err;
        mx = fabs(yr[i]) > mx ? fabs(yr[i]) : mx;
    }
    printf("%-18s %-6s max |q - ref| = %.5f = %.2f output LSB (scale %.6f), %.4f of max |ref|\n", name, prec, err,
           s > 0 ? err / s : -1, s, err / mx);
    CHECK_MSG(s > 0, "%s: output not dequantized from an integer tensor", name);
    if (bound_lsb > 0)
        CHECK_MSG(err <= bound_lsb * s, "%s: %.2f LSB > %.1f", name, err / s, bound_lsb);
    if (bound_rel > 0)
        CHECK_MSG(err <= bound_rel * mx, "%s %s: relative error %.5f", name, prec, err / mx);

    /* QDQ export -> import: the same integer program (8-bit only) */
    if (!strcmp(prec, "int8") || !strcmp(prec, "dfxp8")) {
        CHECK(pass_qdq_export(g, qdq, &d) == 0);
        IrGraph *g2 = lower(qdq, NULL, NULL, &d);
        CHECK_MSG(g2 != NULL, "%s: re-import failed", name);
        if (g2) {
            CHECK(pass_quant_eval(g2, &ins, &y2, NULL, NULL, &d) == 0);
            CHECK_MSG(!memcmp(y, y2, nr * 4), "%s: QDQ round trip changed the integer output", name);
            int n1 = 0, n2 = 0;
            for (int l = 0; l < g->n_layers; l++)
                n1 += g->layers[l].prec != IR_PREC_FLOAT;
            for (int l = 0; l < g2->n_layers; l++)
                n2 += g2->layers[l].prec != IR_PREC_FLOAT;
            CHECK_MSG(n1 == n2, "%s: %d integer layers, %d after the round trip", name, n1, n2);
        }
        ir_graph_free(g2);
        remove(qdq);
    }
    /* generated host C == evaluator, bit for bit */
    if (have_cc()) {
        char tag[128];
        snprintf(tag, sizeof tag, "%s_%s", name, prec);
        CHECK_MSG(run_host(g, tag, in, yh, nr) == 0, "%s: host program failed", name);
        CHECK_MSG(!memcmp(y, yh, nr * 4), "%s %s: host C output differs from the evaluator", name, prec);
    }
    if (d.n_errors)
        diag_print(&d, stderr);
    diag_free(&d);
    ir_graph_free(g);
    free(x), free(yr), free(y), free(y2), free(yh);
}

int main(void)
{
    check_sample("mobilenet_tiny", "int8", 4, 0);
    check_sample("mobilenet_tiny_bn", "int8", 4, 0);
    check_sample("resnet_tiny", "int8", 4, 0);
    check_sample("effnet_tiny", "int8", 4, 0);
    check_sample("mobilenet_tiny", "dfxp8", 0, 0.05);
    check_sample("mobilenet_tiny", "dfxp16", 0, 0.01);
    check_sample("effnet_tiny", "int16", 0, 0.01);
    if (!have_cc())
        printf("no C compiler: generated host programs not built\n");
    return check_done();
}
