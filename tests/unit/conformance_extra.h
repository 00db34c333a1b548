/* conformance_extra.h - backend tests for ops newer than the Debian ONNX
 * test data, written in the same layout (NAME/model.onnx,
 * NAME/test_data_set_0/{input,output}_0.pb) so test_conformance_run runs
 * them like the others, as the suite "extra".
 *
 * Why generated: libonnx-testdata 1.12 stops at opset 17, so an op added
 * since (Mish is opset 18) has no test there. The cases follow ONNX's own
 * backend tests for the op (inputs, and references computed in double by
 * the op's definition, as ONNX computes them with numpy); the models are
 * built with the frontend tests' builder when the test starts, so the
 * repository holds no binary blobs. */
#ifndef ONNX2HLS_CONFORMANCE_EXTRA_H
#define ONNX2HLS_CONFORMANCE_EXTRA_H

#include <math.h>
#include <stdio.h>
#include <sys/stat.h>

#include "test_frontend_build.h"

#define EXTRA_N 1000

/* one float tensor as a TensorProto file */
static inline int extra_write_tensor(const char *path, const char *name, const float *v, int64_t n)
{
    Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
    t.name = (char *)name;
    t.has_data_type = 1;
    t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    t.n_dims = 1;
    t.dims = &n;
    t.has_raw_data = 1;
    t.raw_data.data = (uint8_t *)v;
    t.raw_data.len = (size_t)n * sizeof(float);
    size_t len = onnx__tensor_proto__get_packed_size(&t);
    uint8_t *buf = malloc(len);
    onnx__tensor_proto__pack(&t, buf);
    FILE *f = fopen(path, "wb");
    int rc = f && fwrite(buf, 1, len, f) == len ? 0 : -1;
    if (f && fclose(f))
        rc = -1;
    free(buf);
    return rc;
}

/* DIR/NAME with the model of b and the pair x -> y */
static inline int extra_write_case(const char *dir, const char *name, Mb *b, const float *x, const float *y,
                                   int64_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/model.onnx", dir, name);
    size_t len;
    uint8_t *model = mb_pack(b, &len);
    write_bytes(path, model, len);
    free(model);
    snprintf(path, sizeof path, "%s/%s/test_data_set_0", dir, name);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/test_data_set_0/input_0.pb", dir, name);
    int rc = extra_write_tensor(path, "x", x, n);
    snprintf(path, sizeof path, "%s/%s/test_data_set_0/output_0.pb", dir, name);
    return rc | extra_write_tensor(path, "y", y, n);
}

/* ONNX's test_mish: x = linspace(-10, 10), y = x * tanh(softplus(x)); and
 * test_mish_expanded, the same function as Softplus, Tanh and Mul nodes
 * (the form PyTorch exports before opset 18, which canon_act recognizes). */
static inline int extra_mish(const char *dir)
{
    static float x[EXTRA_N], y[EXTRA_N];
    for (int i = 0; i < EXTRA_N; i++) {
        double v = -10.0 + 20.0 * i / (EXTRA_N - 1);
        x[i] = (float)v;
        y[i] = (float)(v * tanh(log1p(exp(v))));
    }
    int64_t dims[1] = {EXTRA_N};
    int rc = 0;
    for (int expanded = 0; expanded < 2; expanded++) {
        Mb *b = mb_new(expanded ? 13 : 18);
        mb_input(b, "x", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, dims);
        mb_output(b, "y", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, dims);
        if (expanded) {
            mb_node(b, "Softplus", "sp", "x", "s");
            mb_node(b, "Tanh", "th", "s", "t");
            mb_node(b, "Mul", "mul", "x,t", "y");
        } else {
            mb_node(b, "Mish", "mish", "x", "y");
        }
        rc |= extra_write_case(dir, expanded ? "test_mish_expanded" : "test_mish", b, x, y, EXTRA_N);
        mb_free(b);
    }
    return rc;
}

/* Write every extra case under dir; 0 ok. */
static inline int extra_write_suite(const char *dir)
{
    mkdir(dir, 0777);
    return extra_mish(dir);
}

#endif
