/* test_prune_recover.c - accuracy recovery of the prune pass
 * (passes/prune_recover.c) on the sample CNNs.
 *
 * Why these checks: recovery is only worth its run time if the pruned
 * network computes something closer to the unpruned one than plain L1
 * pruning does, on inputs it was not fitted on, and if it leaves exactly
 * the shapes L1 pruning leaves (the plan and the specs depend on them).
 * Inputs are pseudo-random (standard normal), so the test needs nothing
 * but the samples folder. A hand-built linear stream checks the projection
 * of linear groups exactly: its reader reads only two directions of four
 * channels, so two projected channels keep its outputs, which no choice of
 * two channels can.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "passes/passes.h"
#include "passes/quant/quant.h"
#include "test_pass_eval.h"

static float *normal_inputs(int64_t n, uint32_t seed)
{
    float *x = malloc(sizeof *x * (size_t)n);
    for (int64_t i = 0; x && i < n; i += 2) {
        seed = seed * 1664525u + 1013904223u;
        double u = ((seed >> 8) + 0.5) / 16777216.0;
        seed = seed * 1664525u + 1013904223u;
        double v = ((seed >> 8) + 0.5) / 16777216.0;
        x[i] = (float)(sqrt(-2 * log(u)) * cos(6.283185307 * v));
        if (i + 1 < n)
            x[i + 1] = (float)(sqrt(-2 * log(u)) * sin(6.283185307 * v));
    }
    return x;
}

/* the sample, through the default pipeline, pruned by ratio (0: not), with
 * recovery from calib when not NULL */
static IrGraph *lowered(const char *name, double ratio, const char *calib)
{
    char p[512];
    snprintf(p, sizeof p, "%s/samples/%s.onnx", SOURCE_DIR, name);
    IrDiag d;
    diag_init(&d);
    FeOptions fe = {0};
    IrGraph *g = fe_load_onnx(p, &fe, &d);
    PassOptions po;
    passes_options_init(&po);
    po.prune_ratio = ratio;
    po.prune_calib = calib;
    po.verify_each = true;
    if (g && passes_run(g, &po, &d)) {
        diag_print(&d, stderr);
        ir_graph_free(g);
        g = NULL;
    }
    diag_free(&d);
    return g;
}

/* outputs of g for n inputs (each `size` floats) */
static float *outputs(IrGraph *g, const float *x, int n, int64_t size, int64_t *ny)
{
    *ny = ir_tensor_numel(&g->tensors[g->outputs[0]]);
    float *y = malloc(sizeof *y * (size_t)(*ny * n));
    IrDiag d;
    diag_init(&d);
    for (int i = 0; y && i < n; i++) {
        const float *in[1] = {x + i * size};
        float *out[1] = {y + i * *ny};
        if (pass_quant_eval(g, in, out, NULL, NULL, &d)) {
            free(y);
            y = NULL;
        }
    }
    diag_free(&d);
    return y;
}

/* sum |a - b|^2 / sum |b|^2 */
static double rel_sq_err(const float *a, const float *b, int64_t n)
{
    double e = 0, s = 0;
    for (int64_t i = 0; i < n; i++) {
        e += (double)(a[i] - b[i]) * (a[i] - b[i]);
        s += (double)b[i] * b[i];
    }
    return s > 0 ? e / s : e;
}

/* the recovered error must be below `gain` times the L1 one */
static void check_sample(const char *name, double ratio, const char *calib, const float *x, int n, double gain)
{
    IrGraph *ref = lowered(name, 0, NULL), *l1 = lowered(name, ratio, NULL), *rec = lowered(name, ratio, calib);
    CHECK_MSG(ref && l1 && rec, "%s: pipeline failed", name);
    if (!ref || !l1 || !rec)
        goto done;
    PassTotals a, b;
    passes_totals(l1, &a);
    passes_totals(rec, &b);
    CHECK_MSG(a.macs == b.macs && a.macs > 0, "%s: MACs %lld (L1) vs %lld (recovered)", name, (long long)a.macs,
              (long long)b.macs);
    int64_t size = ir_tensor_numel(&ref->tensors[ref->inputs[0]]), ny;
    float *y0 = outputs(ref, x, n, size, &ny), *y1 = outputs(l1, x, n, size, &ny), *y2 = outputs(rec, x, n, size, &ny);
    CHECK(y0 && y1 && y2);
    if (y0 && y1 && y2) {
        double e1 = rel_sq_err(y1, y0, ny * n), e2 = rel_sq_err(y2, y0, ny * n);
        printf("%-16s ratio %.2f: relative squared error L1 %.4f, recovered %.4f\n", name, ratio, e1, e2);
        CHECK_MSG(e2 < gain * e1, "%s: recovery error %g is not below %g x L1's %g", name, e2, gain, e1);
    }
    free(y0), free(y1), free(y2);
done:
    ir_graph_free(ref), ir_graph_free(l1), ir_graph_free(rec);
}


/* input -> "writer" 1x1 conv, 4 channels, no activation (a linear group)
 * -> "reader" 1x1 conv, 6 outputs, weights U V of rank 2 -> ReLU */
static IrGraph *stream_net(void)
{
    uint32_t s = 5;
    IrGraph *g = ir_graph_new("stream");
    int64_t d[4] = {1, 4, 6, 6};
    int x = tb_input(g, "input", 4, d);
    int a = tb_conv(g, "writer", x, 4, 1, 1, 0, 1, 1, &s);
    int b = tb_conv(g, "reader", a, 6, 1, 1, 0, 1, 1, &s);
    float *w = ir_tensor_data(g, g->layers[g->tensors[b].producer].in[1]), u[6][2], v[2][4];
    for (int i = 0; i < 6; i++)
        u[i][0] = tb_uniform(&s), u[i][1] = tb_uniform(&s);
    for (int c = 0; c < 4; c++)
        v[0][c] = tb_uniform(&s), v[1][c] = tb_uniform(&s);
    for (int f = 0; f < 6; f++)
        for (int c = 0; c < 4; c++)
            w[f * 4 + c] = u[f][0] * v[0][c] + u[f][1] * v[1][c];
    int r = tb_unary(g, IR_OP_RELU, "relu", b, 0, 0);
    tb_output(g, r);
    return g;
}

static void check_projection(void)
{
    char calib[] = "/tmp/test_prune_proj_XXXXXX", spec[] = "/tmp/test_prune_proj_spec_XXXXXX";
    int fc = mkstemp(calib), fs = mkstemp(spec);
    float *cal = normal_inputs(64 * 144, 3), *val = normal_inputs(16 * 144, 17);
    CHECK(fc >= 0 && fs >= 0 && cal && val);
    CHECK(write(fc, cal, sizeof *cal * 64 * 144) == (ssize_t)(sizeof *cal * 64 * 144));
    CHECK(write(fs, "writer 0.5\n", 11) == 11);
    close(fc), close(fs);
    IrGraph *ref = stream_net(), *g = stream_net();
    PassOptions p0, po;
    passes_options_init(&p0);
    passes_options_init(&po);
    po.prune_spec = spec;
    po.prune_calib = calib;
    po.verify_each = true;
    IrDiag d;
    diag_init(&d);
    int rc = passes_run(ref, &p0, &d) || passes_run(g, &po, &d);
    if (rc)
        diag_print(&d, stderr);
    diag_free(&d);
    CHECK_EQ_INT(rc, 0);
    int w = -1;
    for (int l = 0; l < g->n_layers; l++)
        w = !g->layers[l].dead && !strcmp(g->layers[l].name, "writer") ? l : w;
    CHECK(w >= 0 && g->tensors[g->layers[w].out[0]].dims[1] == 2);
    int64_t ny;
    float *y0 = rc ? NULL : outputs(ref, val, 16, 144, &ny), *y1 = rc ? NULL : outputs(g, val, 16, 144, &ny);
    CHECK(y0 && y1);
    if (y0 && y1) {
        double e = rel_sq_err(y1, y0, ny * 16);
        printf("linear stream 4 -> 2 channels, reader of rank 2: relative squared error %.2e\n", e);
        CHECK_MSG(e < 1e-4, "projection error %g: the reader's two directions were not kept (a choice of two channels gives ~2e-2)", e);
    }
    free(y0), free(y1), free(cal), free(val);
    ir_graph_free(ref), ir_graph_free(g);
    unlink(calib), unlink(spec);
}

int main(void)
{
    char calib[] = "/tmp/test_prune_recover_XXXXXX";
    int fd = mkstemp(calib);
    CHECK(fd >= 0);
    if (fd < 0)
        return check_done();
    IrGraph *g = lowered("mobilenet_tiny", 0, NULL);
    int64_t size = g ? ir_tensor_numel(&g->tensors[g->inputs[0]]) : 0;
    ir_graph_free(g);
    float *cal = normal_inputs(64 * size, 7), *val = normal_inputs(16 * size, 99);
    CHECK(size > 0 && cal && val && write(fd, cal, sizeof *cal * (size_t)(64 * size)) == (ssize_t)(64 * size * 4));
    close(fd);
    /* 1x1 readers everywhere: channels chosen and readers refit */
    check_sample("mobilenet_tiny", 0.3, calib, val, 16, 0.2);
    check_sample("mobilenet_tiny", 0.5, calib, val, 16, 0.2);
    unlink(calib);
    free(cal), free(val);
    check_projection();
    return check_done();
}
