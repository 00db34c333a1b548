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
 * output range; 16-bit words are far finer than 8-bit ones).
 * A built model with the layout and resampling ops of ShuffleNetV2 and of
 * text detectors (Split, channel shuffle, Slice, Pad, Resize,
 * ConvTranspose, Sum of three, Gather) checks that calibration runs them
 * (the evaluator's float layers), that the int8 program keeps them float
 * between Q/DQ, and that host C equals the evaluator in float (within
 * rounding) and in int8 (bit for bit). */
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
#include "unit/test_frontend_build.h"

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

/* ------------------------------------------------ layout and resampling */

static void weights(Mb *b, const char *name, int rank, const int64_t *dims, uint32_t *seed, float amp)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    float *v = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) {
        *seed = *seed * 1664525u + 1013904223u;
        v[i] = amp * ((float)(*seed >> 8) / 8388608.0f - 1.0f);
    }
    mb_init_f(b, name, rank, dims, v);
    free(v);
}

static void conv(Mb *b, const char *name, const char *ins, const char *out, int64_t pad, int64_t stride,
                 int64_t group)
{
    Onnx__NodeProto *n = mb_node(b, "Conv", name, ins, out);
    mb_attr_ints(b, n, "pads", 4, D(pad, pad, pad, pad));
    mb_attr_ints(b, n, "strides", 2, D(stride, stride));
    mb_attr_i(b, n, "group", group);
}

/* x [1,3,16,16] -> conv, Split into two halves, one through 1x1 and
 * depthwise convs, Concat, channel shuffle (Reshape, Transpose, Reshape),
 * Slice 6 channels, Pad, stride-2 conv; Resize x2 and ConvTranspose x2 of
 * it summed with the Concat, Gather of 4 channels, 1x1 conv, Sigmoid. */
static Mb *layout_model(void)
{
    Mb *b = mb_new(13);
    uint32_t seed = 5;
    mb_input(b, "x", 1, 4, D(1, 3, 16, 16));
    weights(b, "w1", 4, D(8, 3, 3, 3), &seed, 0.4f), weights(b, "b1", 1, D(8), &seed, 0.1f);
    weights(b, "w2", 4, D(4, 4, 1, 1), &seed, 0.5f), weights(b, "b2", 1, D(4), &seed, 0.1f);
    weights(b, "w3", 4, D(4, 1, 3, 3), &seed, 0.4f), weights(b, "b3", 1, D(4), &seed, 0.1f);
    weights(b, "w4", 4, D(8, 6, 3, 3), &seed, 0.2f), weights(b, "b4", 1, D(8), &seed, 0.1f);
    weights(b, "w5", 4, D(8, 8, 2, 2), &seed, 0.3f), weights(b, "b5", 1, D(8), &seed, 0.1f);
    weights(b, "w6", 4, D(1, 4, 1, 1), &seed, 0.5f), weights(b, "b6", 1, D(1), &seed, 0.1f);
    mb_init_i64(b, "halves", 2, D(4, 4));
    mb_init_i64(b, "grouped", 5, D(1, 2, 4, 16, 16));
    mb_init_i64(b, "flat", 4, D(1, 8, 16, 16));
    mb_init_i64(b, "s0", 1, D(0)), mb_init_i64(b, "s1", 1, D(6)), mb_init_i64(b, "ax", 1, D(1));
    mb_init_i64(b, "pads", 8, D(0, 0, 1, 1, 0, 0, 1, 1));
    mb_init_i64(b, "pick", 4, D(0, 2, 4, 6));
    mb_init_f(b, "scales", 1, D(4), (const float[]){1, 1, 2, 2});
    conv(b, "conv1", "x,w1,b1", "c1", 1, 1, 1);
    mb_node(b, "Relu", "relu1", "c1", "r1");
    mb_attr_i(b, mb_node(b, "Split", "split", "r1,halves", "ha,hb"), "axis", 1);
    conv(b, "pw", "hb,w2,b2", "p", 0, 1, 1);
    mb_node(b, "Relu", "relu2", "p", "pr");
    conv(b, "dw", "pr,w3,b3", "d", 1, 1, 4);
    mb_attr_i(b, mb_node(b, "Concat", "cat", "ha,d", "cat"), "axis", 1);
    mb_node(b, "Reshape", "grp", "cat,grouped", "g5");
    mb_attr_ints(b, mb_node(b, "Transpose", "shuffle", "g5", "t5"), "perm", 5, D(0, 2, 1, 3, 4));
    mb_node(b, "Reshape", "ungrp", "t5,flat", "sh");
    mb_node(b, "Slice", "slice", "sh,s0,s1,ax", "sl");
    mb_node(b, "Pad", "pad", "sl,pads", "pd");
    conv(b, "down", "pd,w4,b4", "c2", 0, 2, 1);
    mb_node(b, "Relu", "relu3", "c2", "r2");
    mb_node(b, "Resize", "up", "r2,,scales", "up");
    mb_attr_ints(b, mb_node(b, "ConvTranspose", "deconv", "r2,w5,b5", "ct"), "strides", 2, D(2, 2));
    mb_node(b, "Sum", "sum", "up,ct,cat", "sum");
    mb_attr_i(b, mb_node(b, "Gather", "pick", "sum,pick", "gt"), "axis", 1);
    conv(b, "head", "gt,w6,b6", "c3", 0, 1, 1);
    mb_node(b, "Sigmoid", "prob", "c3", "y");
    mb_output(b, "y", 1, 4, D(1, 1, 16, 16));
    return b;
}

static void test_layout_ops(void)
{
    Mb *b = layout_model();
    const char *model = mb_write(b);
    char in[512];
    snprintf(in, sizeof in, "%s/test_quant_e2e_layout.in.f32", BINARY_DIR);
    enum { NX = 3 * 16 * 16, NY = 16 * 16 };
    float x[NX], yf[NY], yq[NY], yh[NY];
    uint32_t seed = 77;
    for (int i = 0; i < NX; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
    write_bytes(in, x, sizeof x);
    IrDiag d;
    diag_init(&d);
    IrGraph *gf = lower(model, NULL, NULL, &d), *gq = lower(model, "int8", in, &d);
    CHECK_MSG(gf && gq, "layout model: load or int8 calibration failed");
    const float *ins = x;
    float *of = yf, *oq = yq;
    if (gf && gq && pass_quant_eval(gf, &ins, &of, NULL, NULL, &d) == 0 &&
        pass_quant_eval(gq, &ins, &oq, NULL, NULL, &d) == 0) {
        int n_float = 0, n_move = 0;   /* Pad, Resize, ConvTranspose, Sum stay float; moves are exact */
        for (int l = 0; l < gq->n_layers; l++) {
            IrOp op = gq->layers[l].op;
            bool fl = gq->layers[l].prec == IR_PREC_FLOAT;
            n_float += fl && op != IR_OP_QUANTIZE_LINEAR && op != IR_OP_DEQUANTIZE_LINEAR;
            n_move += !fl && (op == IR_OP_SPLIT || op == IR_OP_SLICE || op == IR_OP_GATHER);
        }
        double err = 0, s = output_scale(gq);
        for (int i = 0; i < NY; i++)
            err = fabs(yq[i] - yf[i]) > err ? fabs(yq[i] - yf[i]) : err;
        printf("layout model: %d float layers in the int8 program, max |q - float| = %.2f output LSB\n", n_float,
               s > 0 ? err / s : -1);
        CHECK_MSG(n_float == 4, "layout model: %d float layers between Q/DQ, want 4", n_float);
        CHECK_MSG(n_move >= 3, "layout model: %d integer channel moves, want Split, Slice, Gather", n_move);
        CHECK_MSG(s > 0 && err <= 4 * s, "layout model: int8 %.2f LSB from float", s > 0 ? err / s : -1);
        if (have_cc()) {
            CHECK_MSG(run_host(gf, "layout_float", in, yh, NY) == 0, "layout model: float host program failed");
            double e = 0, m = 0;
            for (int i = 0; i < NY; i++)
                e = fmax(e, fabs(yh[i] - yf[i])), m = fmax(m, fabs(yf[i]));
            CHECK_MSG(e <= 1e-5 * m, "layout model: float host C differs from the evaluator by %g", e / m);
            CHECK_MSG(run_host(gq, "layout_int8", in, yh, NY) == 0, "layout model: int8 host program failed");
            CHECK_MSG(!memcmp(yh, yq, sizeof yq), "layout model: int8 host C output differs from the evaluator");
        }
    } else {
        CHECK_MSG(0, "layout model: evaluation failed");
    }
    diag_print(&d, stderr);
    diag_free(&d);
    ir_graph_free(gf);
    ir_graph_free(gq);
    remove(in);
    remove(model);
    mb_free(b);
}

int main(void)
{
    test_layout_ops();
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
