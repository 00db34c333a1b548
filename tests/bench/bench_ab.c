/* bench_ab.c - two builds of one model's host program in one process, timed
 * call by call in alternation (not a ctest; built and run by bench_ab.sh).
 *
 * Why it exists: on a shared machine the same binary reads 25-40% slower
 * for minutes at a time, so two programs run one after the other, even
 * alternated run by run, differ by more than most kernel changes are
 * worth. Here builds A and B (their model.h symbols renamed a_* and b_* by
 * bench_ab.sh) share the process, and every timed call of one is next to a
 * call of the other (which goes first alternates), so a slow spell slows
 * both: the median of the per-pair ratios A/B is stable to about 1% for
 * whole models and 3% for single layers where separate runs are not.
 *
 * Modes (argv[5]):
 *   model    whole inferences, A and B in turn;
 *   layers   each layer alone, repeated (its input stays hot in cache);
 *   program  whole inferences timed layer by layer (each layer's input
 *            fresh from the layer before, as in the program).
 * usage: bench_ab WEIGHTS_A WEIGHTS_B INPUT|- ROUNDS MODE */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *name;
    int dtype;
    size_t elem_size;
    int rank;
    int64_t dims[8];
    size_t elems;
} AbTensor;

typedef struct {
    const char *op, *kind, *shape, *origin;
    long long macs;
    int has_code;
} AbLayer;

#define AB_DECL(P)                                                                       \
    int P##_model_init_file(const char *path);                                           \
    int P##_model_run(const void *const *inputs, void *const *outputs);                  \
    int P##_model_run_layer(int layer, const void *const *inputs);                       \
    extern const AbTensor P##_model_inputs[], P##_model_outputs[];                       \
    extern const AbLayer P##_model_layers[];
AB_DECL(a)
AB_DECL(b)

#ifndef AB_LAYERS
#define AB_LAYERS 0   /* layers of both builds (0: they differ, whole models only) */
#endif

typedef struct {
    const void *in[1];
    void *out_a[1], *out_b[1];
    size_t out_bytes;
} AbIo;

static double ab_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int ab_cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Median of v[0..n) (sorts v). */
static double ab_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, ab_cmp);
    return v[n / 2];
}

static void *ab_alloc(size_t n)
{
    void *p = calloc(n ? n : 1, 1);
    if (!p) {
        fprintf(stderr, "bench_ab: out of memory\n");
        exit(2);
    }
    return p;
}

/* The input from a file, or (path "-") the same pseudo-random floats for both. */
static void *ab_input(const char *path)
{
    const AbTensor *t = &a_model_inputs[0];
    size_t n = t->elems * t->elem_size;
    unsigned char *p = ab_alloc(n);
    if (strcmp(path, "-") == 0) {
        for (size_t i = 0; t->elem_size == 4 && i < t->elems; i++)
            ((float *)p)[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
        return p;
    }
    FILE *f = fopen(path, "rb");
    if (!f || fread(p, 1, n, f) != n) {
        fprintf(stderr, "bench_ab: %s: expected %zu bytes of input\n", path, n);
        exit(2);
    }
    fclose(f);
    return p;
}

/* One call of A and one of B, in the order r picks; their times in ms. */
static void ab_pair(int r, int layer, const AbIo *io, double *ta, double *tb)
{
    for (int h = 0; h < 2; h++) {
        int b = (r + h) & 1;
        double t0 = ab_now_ms();
        if (layer >= 0)
            b ? b_model_run_layer(layer, io->in) : a_model_run_layer(layer, io->in);
        else
            b ? b_model_run(io->in, io->out_b) : a_model_run(io->in, io->out_a);
        *(b ? tb : ta) = ab_now_ms() - t0;
    }
}

/* Medians of A, B and of the pair ratios over n pairs (sorts the arrays). */
static void ab_report(const char *what, double *ta, double *tb, double *rr, int n, double *sa,
                      double *sb)
{
    for (int i = 0; i < n; i++)
        rr[i] = tb[i] > 0 ? ta[i] / tb[i] : 1.0;
    double ma = ab_median(ta, n), mb = ab_median(tb, n), r = ab_median(rr, n);
    printf("%s A %.4f B %.4f A/B %.3f\n", what, ma, mb, r);
    *sa += ma;
    *sb += mb;
}

static void ab_model(const AbIo *io, int rounds, double *ta, double *tb, double *rr)
{
    double sa = 0, sb = 0;
    for (int r = 0; r < rounds; r++)
        ab_pair(r, -1, io, &ta[r], &tb[r]);
    ab_report("model ms:", ta, tb, rr, rounds, &sa, &sb);
}

static void ab_layer_line(int l, char *buf, size_t n)
{
    snprintf(buf, n, "%3d %-7s %-36s", l, a_model_layers[l].kind, a_model_layers[l].shape);
}

/* Each layer alone, A and B in turn. */
static void ab_layers(const AbIo *io, int rounds, double *ta, double *tb, double *rr)
{
    double sa = 0, sb = 0;
    char line[128];
    for (int l = 0; l < AB_LAYERS; l++) {
        if (!a_model_layers[l].has_code)
            continue;
        for (int r = 0; r < rounds; r++)
            ab_pair(r, l, io, &ta[r], &tb[r]);
        ab_layer_line(l, line, sizeof line);
        ab_report(line, ta, tb, rr, rounds, &sa, &sb);
    }
    printf("sum of layer medians A %.3f B %.3f A/B %.3f\n", sa, sb, sa / sb);
}

/* Whole inferences layer by layer: A's and B's in turn. */
static void ab_program(const AbIo *io, int rounds, double *rr)
{
    double *la = ab_alloc(sizeof(double) * (size_t)AB_LAYERS * rounds);
    double *lb = ab_alloc(sizeof(double) * (size_t)AB_LAYERS * rounds);
    for (int r = 0; r < rounds; r++)
        for (int h = 0; h < 2; h++) {
            int b = (r + h) & 1;
            for (int l = 0; l < AB_LAYERS; l++) {
                double t0 = ab_now_ms();
                b ? b_model_run_layer(l, io->in) : a_model_run_layer(l, io->in);
                (b ? lb : la)[(size_t)l * rounds + r] = ab_now_ms() - t0;
            }
        }
    double sa = 0, sb = 0;
    char line[128];
    for (int l = 0; l < AB_LAYERS; l++) {
        if (!a_model_layers[l].has_code)
            continue;
        ab_layer_line(l, line, sizeof line);
        ab_report(line, la + (size_t)l * rounds, lb + (size_t)l * rounds, rr, rounds, &sa, &sb);
    }
    printf("sum of layer medians A %.3f B %.3f A/B %.3f\n", sa, sb, sa / sb);
    free(la);
    free(lb);
}

int main(int argc, char **argv)
{
    if (argc != 6 || atoi(argv[4]) < 1) {
        fprintf(stderr, "usage: bench_ab WEIGHTS_A WEIGHTS_B INPUT|- ROUNDS model|layers|program\n");
        return 2;
    }
    if (a_model_init_file(argv[1]) != 0 || b_model_init_file(argv[2]) != 0) {
        fprintf(stderr, "bench_ab: cannot load %s or %s\n", argv[1], argv[2]);
        return 2;
    }
    int rounds = atoi(argv[4]);
    AbIo io = {{ab_input(argv[3])}, {NULL}, {NULL}, a_model_outputs[0].elems * a_model_outputs[0].elem_size};
    io.out_a[0] = ab_alloc(io.out_bytes);
    io.out_b[0] = ab_alloc(io.out_bytes);
    double *ta = ab_alloc(sizeof(double) * rounds), *tb = ab_alloc(sizeof(double) * rounds);
    double *rr = ab_alloc(sizeof(double) * rounds);
    a_model_run(io.in, io.out_a);
    b_model_run(io.in, io.out_b);
    printf("outputs %s\n", memcmp(io.out_a[0], io.out_b[0], io.out_bytes) ? "differ" : "identical");
    if (strcmp(argv[5], "model") == 0)
        ab_model(&io, rounds, ta, tb, rr);
    else if (AB_LAYERS == 0)
        printf("the builds' layers differ: whole models only\n");
    else if (strcmp(argv[5], "layers") == 0)
        ab_layers(&io, rounds, ta, tb, rr);
    else
        ab_program(&io, rounds, rr);
    return 0;
}
