/* main.c - command-line driver of the compiled model on its accelerator
 * (copied by onnx2hls into OUT/accel): the host program's conventions
 * (OUT/host's model), with the accelerator runtime (runtime/o2h_accel.h)
 * running the accelerated layers.
 *
 * usage: accel [--backend sim|xrt|baremetal] [--xclbin FILE[:N]] [--weights FILE]
 *              [--wimg FILE] [--desc FILE] [--time N] [-o OUT]... IN...
 *   IN          one raw little-endian file per model input, in order (model.h);
 *               a file may hold several images (all inputs as many): they
 *               run as frames back to back, frame i+1 submitted before
 *               frame i is waited for
 *   -o OUT      one raw output file per model output, in order (each image's
 *               output in turn); without -o the first values of each output
 *               of the first image are printed
 *   --backend   the accelerator (default: the first one built in, see --help)
 *   --xclbin    xrt: the xclbin, optionally ":N" for device N
 *   --weights   the host program's weight blob (default ../host/weights.bin
 *               from the program's folder); --wimg, --desc the accelerator's
 *               weight image and descriptors (default ../hls/desc/o2h_*.bin)
 *   --time N    then run N more frames the same way (the images in turn) and
 *               print frames/s, per-frame host and accelerator time and, for
 *               sim, the counted cycles per frame
 * Exit status: 0 ok, 1 the accelerator or model failed, 2 bad usage or an
 * unreadable or mismatched file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "runtime/o2h_accel.h"

typedef struct {
    const char *backend, *xclbin, *weights, *wimg, *desc;
    const char *inputs[MODEL_NUM_INPUTS + 1], *outputs[MODEL_NUM_OUTPUTS + 1];
    int n_in, n_out, runs;
} Args;

/* Names come from the model file: control and non-ASCII bytes as \xHH. */
static void put_name(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c < 0x7f && c != '\\')
            fputc(c, f);
        else
            fprintf(f, "\\x%02x", c);
    }
}

static int usage(const char *prog)
{
    fprintf(stderr, "usage: %s [--backend B] [--xclbin FILE[:N]] [--weights FILE] [--wimg FILE] [--desc FILE]\n"
                    "          [--time N] [-o OUT]... IN...\n"
                    "  (%d input file(s), up to %d -o output file(s); backends built in: %s)\n",
            prog, MODEL_NUM_INPUTS, MODEL_NUM_OUTPUTS, o2h_accel_backends());
    return 2;
}

/* --time N: a whole count 0..1000000 */
static int parse_runs(const char *s, int *runs)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < 0 || v > 1000000)
        return -1;
    *runs = (int)v;
    return 0;
}

/* 0 parsed, 1 help, 2 usage error (printed) */
static int parse_args(int argc, char **argv, Args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **opt = !strcmp(s, "--backend") ? &a->backend : !strcmp(s, "--xclbin") ? &a->xclbin
                         : !strcmp(s, "--weights") ? &a->weights : !strcmp(s, "--wimg") ? &a->wimg
                         : !strcmp(s, "--desc") ? &a->desc : NULL;
        if (!strcmp(s, "--help") || !strcmp(s, "-h"))
            return 1;
        if (opt && v)
            *opt = argv[++i];
        else if (!strcmp(s, "--time") && v) {
            if (parse_runs(argv[++i], &a->runs)) {
                fprintf(stderr, "accel: --time needs a frame count from 0 to 1000000, not '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(s, "-o") && v && a->n_out < MODEL_NUM_OUTPUTS)
            a->outputs[a->n_out++] = argv[++i];
        else if (s[0] != '-' && a->n_in < MODEL_NUM_INPUTS)
            a->inputs[a->n_in++] = s;
        else
            return usage(argv[0]);
    }
    if (a->n_in != MODEL_NUM_INPUTS) {
        fprintf(stderr, "accel: expected %d input file(s), got %d\n", MODEL_NUM_INPUTS, a->n_in);
        return 2;
    }
    return 0;
}

/* a whole number of images of input t: the buffer, their count in *n */
static void *read_input(const char *path, const ModelTensorInfo *t, long *n)
{
    size_t want = t->elems * t->elem_size;
    FILE *f = fopen(path, "rb");
    long size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *buf = size > 0 && f && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)size) : NULL;
    int ok = buf && want > 0 && (size_t)size % want == 0 && fread(buf, 1, (size_t)size, f) == (size_t)size;
    if (f)
        fclose(f);
    if (!ok) {
        fprintf(stderr, "accel: %s: input '", path);
        put_name(stderr, t->name);
        fprintf(stderr, "' needs a whole number of images of %zu bytes (%zu elements)\n", want, t->elems);
        free(buf);
        return NULL;
    }
    *n = (long)((size_t)size / want);
    return buf;
}

static int write_output(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, n, f) == n;
    if (f && fclose(f))
        ok = 0;
    if (!ok)
        fprintf(stderr, "accel: cannot write %s\n", path);
    return ok ? 0 : -1;
}

static void print_output(const ModelTensorInfo *t, const void *p)
{
    put_name(stdout, t->name);
    putchar(':');
    for (size_t i = 0; i < t->elems && i < 10; i++) {
        if (t->dtype == 1)
            printf(" %g", ((const float *)p)[i]);
        else if (t->dtype == 3)
            printf(" %d", ((const int8_t *)p)[i]);
        else if (t->dtype == 7)
            printf(" %lld", (long long)((const int64_t *)p)[i]);
        else
            printf(" ?");
    }
    printf("%s\n", t->elems > 10 ? " ..." : "");
}

/* dir of the program + rel, for the default file locations */
static const char *beside(const char *prog, const char *rel, char *buf, size_t cap)
{
    const char *slash = strrchr(prog, '/');
    int dir = slash ? (int)(slash - prog) + 1 : 0;
    snprintf(buf, cap, "%.*s%s", dir, prog, rel);
    return buf;
}

static int init(const Args *a, const char *prog, O2hAccel **acc)
{
    char wb[4096], ib[4096], db[4096];
    const char *w = a->weights ? a->weights : beside(prog, "../host/weights.bin", wb, sizeof wb);
#if MODEL_EMBEDDED_WEIGHTS
    int st = model_init(NULL, 0);
#else
    int st = model_init_file(w);
#endif
    if (st != 0) {
        fprintf(stderr, "accel: %s: %s\n", w, model_status_str(st));
        return 2;
    }
    const char *be = a->backend ? a->backend : strtok(strcpy(ib, o2h_accel_backends()), " ");
    st = o2h_accel_open(acc, be ? be : "", a->xclbin);
    if (st != O2H_ACCEL_OK) {
        fprintf(stderr, "accel: backend '%s': %s (built in: %s)\n", be ? be : "", o2h_accel_status_str(st),
                o2h_accel_backends());
        return st == O2H_ACCEL_ERR_BACKEND || st == O2H_ACCEL_ERR_ARG ? 2 : 1;
    }
    const char *wi = a->wimg ? a->wimg : beside(prog, "../hls/desc/o2h_wimg.bin", ib, sizeof ib);
    const char *de = a->desc ? a->desc : beside(prog, "../hls/desc/o2h_desc.bin", db, sizeof db);
    st = o2h_accel_load_files(*acc, wi, de);
    if (st != O2H_ACCEL_OK) {
        fprintf(stderr, "accel: %s, %s: %s\n", wi, de, o2h_accel_status_str(st));
        return 2;
    }
    return 0;
}

/* image i of every input / output */
static void image(const void *const *all, const ModelTensorInfo *info, int n, long i, const void **one)
{
    for (int k = 0; k < n; k++)
        one[k] = (const char *)all[k] + (size_t)i * info[k].elems * info[k].elem_size;
}

/* images [0, n) (of inputs of `images` images: image i % images) back to
 * back, frame i+1 submitted before frame i is waited for; outputs of frame
 * i into image i of out when keep, else into image 0 */
static int frames(O2hAccel *acc, long n, long images, const void *const *in, void *const *out, int keep)
{
    const void *x[MODEL_NUM_INPUTS + 1];
    void *y[MODEL_NUM_OUTPUTS + 1];
    int st = O2H_ACCEL_OK;
    for (long i = 0; i <= n && st == O2H_ACCEL_OK; i++) {
        if (i < n) {
            image(in, model_inputs, MODEL_NUM_INPUTS, i % images, x);
            st = o2h_accel_submit(acc, x);
        }
        if (i > 0 && st == O2H_ACCEL_OK) {
            image((const void *const *)out, model_outputs, MODEL_NUM_OUTPUTS, keep ? i - 1 : 0, (const void **)y);
            st = o2h_accel_wait(acc, y);
        }
    }
    return st;
}

static void print_timings(O2hAccel *acc)
{
    O2hAccelTimings t;
    if (o2h_accel_timings(acc, &t) != O2H_ACCEL_OK)
        return;
    printf("accel: backend %s, %lld frames, %.2f frames/s, per frame: host %.3f ms, accelerator %.3f ms\n", t.backend,
           (long long)t.frames, t.frames_per_s, t.host_ms, t.accel_ms);
    if (t.cycles_period > 0)
        printf("accel: cycles per frame (C simulation): SESL %lld, SEML %lld, period %lld, latency %lld; "
               "%.1f frames/s at %.0f MHz (plan period %lld)\n",
               (long long)t.cycles_sesl, (long long)t.cycles_seml, (long long)t.cycles_period,
               (long long)t.cycles_latency, t.model_fps, t.clock_mhz, (long long)t.plan_period);
}

/* every image, outputs written or printed, then --time */
static int run(O2hAccel *acc, const Args *a, long images, const void *const *in, void *const *out)
{
    int st = frames(acc, images, images, in, out, 1);
    if (st != O2H_ACCEL_OK) {
        fprintf(stderr, "accel: frame failed: %s\n", o2h_accel_status_str(st));
        return 1;
    }
    for (int i = 0; i < MODEL_NUM_OUTPUTS; i++) {
        size_t n = model_outputs[i].elems * model_outputs[i].elem_size * (size_t)images;
        if (i < a->n_out && write_output(a->outputs[i], out[i], n))
            return 2;
        if (a->n_out == 0)
            print_output(&model_outputs[i], out[i]);
    }
    if (a->runs > 0) {
        o2h_accel_reset_timings(acc);
        if ((st = frames(acc, a->runs, images, in, out, 0)) != O2H_ACCEL_OK) {
            fprintf(stderr, "accel: timed frames failed: %s\n", o2h_accel_status_str(st));
            return 1;
        }
        print_timings(acc);
    }
    return 0;
}

int main(int argc, char **argv)
{
    Args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc == 1 ? (usage(argv[0]), 0) : rc;
    O2hAccel *acc = NULL;
    const void *in[MODEL_NUM_INPUTS + 1] = {0};
    void *out[MODEL_NUM_OUTPUTS + 1] = {0};
    long images = -1;
    rc = init(&a, argv[0], &acc);
    for (int i = 0; i < MODEL_NUM_INPUTS && rc == 0; i++) {
        long n = 0;
        if (!(in[i] = read_input(a.inputs[i], &model_inputs[i], &n)))
            rc = 2;
        else if (images >= 0 && n != images) {
            fprintf(stderr, "accel: %s holds %ld image(s), the first input %ld\n", a.inputs[i], n, images);
            rc = 2;
        }
        images = n;
    }
    for (int i = 0; i < MODEL_NUM_OUTPUTS && rc == 0; i++) {
        size_t n = model_outputs[i].elems * model_outputs[i].elem_size * (size_t)images;
        if (!(out[i] = calloc(n ? n : 1, 1)))
            rc = 1;
    }
    if (rc == 0)
        rc = run(acc, &a, images, in, out);
    o2h_accel_close(acc);
    for (int i = 0; i < MODEL_NUM_INPUTS; i++)
        free((void *)in[i]);
    for (int i = 0; i < MODEL_NUM_OUTPUTS; i++)
        free(out[i]);
    return rc;
}
