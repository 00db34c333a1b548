/* conformance_driver.c - a generic command-line driver for generated models,
 * compiled once by test_conformance_run.c and linked with each test's
 * model.c (the generated main.c is specialized by model.h macros, so using
 * it would mean one more compile per test; the samples' end-to-end tests
 * exercise it instead).
 *
 * usage: driver --weights FILE [-o OUT]... IN...   (raw little-endian files,
 * in model input/output order). Exit 0 ok, 1 run failed, 2 bad files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static void *load(const char *path, size_t want)
{
    FILE *f = fopen(path, "rb");
    char *buf = malloc(want + 1);
    size_t got = f && buf ? fread(buf, 1, want + 1, f) : 0;
    if (f)
        fclose(f);
    if (got != want) {
        fprintf(stderr, "driver: %s: %zu bytes, expected %zu\n", path, got, want);
        free(buf);
        return NULL;
    }
    return buf;
}

int main(int argc, char **argv)
{
    const char *weights = NULL, *outs[64];
    const void *in[64];
    void *out[64];
    int n_in = 0, n_out = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--weights") && i + 1 < argc) {
            weights = argv[++i];
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc && n_out < 64) {
            outs[n_out++] = argv[++i];
        } else if (n_in < model_num_inputs && n_in < 64) {
            const ModelTensorInfo *t = &model_inputs[n_in];
            if (!(in[n_in] = load(argv[i], t->elems * t->elem_size)))
                return 2;
            n_in++;
        } else {
            fprintf(stderr, "driver: unexpected argument %s\n", argv[i]);
            return 2;
        }
    }
    if (!weights || n_in != model_num_inputs || n_out != model_num_outputs || n_out > 64) {
        fprintf(stderr, "driver: needs --weights, %d inputs and %d -o outputs\n", model_num_inputs,
                model_num_outputs);
        return 2;
    }
    int st = model_init_file(weights);
    if (st) {
        fprintf(stderr, "driver: %s: %s\n", weights, model_status_str(st));
        return 2;
    }
    for (int i = 0; i < n_out; i++)
        out[i] = calloc(model_outputs[i].elems * model_outputs[i].elem_size + 1, 1);
    if ((st = model_run(in, out))) {
        fprintf(stderr, "driver: run failed: %s\n", model_status_str(st));
        return 1;
    }
    for (int i = 0; i < n_out; i++) {
        FILE *f = fopen(outs[i], "wb");
        size_t n = model_outputs[i].elems * model_outputs[i].elem_size;
        if (!f || fwrite(out[i], 1, n, f) != n || fclose(f)) {
            fprintf(stderr, "driver: cannot write %s\n", outs[i]);
            return 2;
        }
    }
    return 0;
}
