/* verify_hls.c - `onnx2hls verify OUT --hls [--input X.f32]...`: the
 * accelerator's C simulation against the host int8 program, bit for bit.
 *
 * Why against the program and not the compiler: the claim is that the HLS C
 * computes what the generated host program computes. So both are built by
 * their own Makefiles with the system compilers - OUT/hls twice, as C99
 * with gcc and as C++ with g++ (Vitis HLS compiles C++ semantics), both with
 * -Wall -Wextra -Werror - and for every input image the host program dumps
 * each integer tensor it computes (model --dump DIR), the testbench loads
 * those as its golden vectors and compares every tensor the accelerator
 * holds (each SESL channel, each DRAM tensor, the outputs) over two frames
 * (both halves of the ping-pong boundary). Exit 0 only when every image
 * matches in both builds; 1 on a difference or a failed run; 2 on bad input.
 */
#define _XOPEN_SOURCE 700
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir/sidefile.h"

#define LOGBUF 4600

static int make_targets(const char *dir, const char *log, char *const *targets)
{
    char *argv[8] = {"make", "-s", "-C", (char *)dir};
    int n = 4;
    for (int i = 0; targets[i] && n < 7; i++)
        argv[n++] = targets[i];
    argv[n] = NULL;
    int st = cli_run_cmd(argv, log, NULL);
    if (st != 0) {
        fprintf(stderr, "onnx2hls verify: building %s failed (make exit %d):\n", dir, st);
        cli_show_log(log);
    }
    return st ? -1 : 0;
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (long long)st.st_size : -1;
}

/* images per input file (each a regular file within the tensor-data cap);
 * -1 (message printed) when a file is refused or the files disagree */
static long long count_images(const CliVerifyHls *v, char **files, int n)
{
    long long images = -1;
    IrDiag d;
    diag_init(&d);
    for (int i = 0; i < n && d.n_errors == 0; i++) {
        uint64_t sz = 0;
        long long per = v->in_bytes[i];
        if (sf_check(files[i], &SF_TENSOR_DATA, &sz, &d))
            break;
        if (sz == 0 || per <= 0 || sz % (uint64_t)per || (images >= 0 && (long long)(sz / (uint64_t)per) != images))
            diag_error(&d, files[i], NULL, NULL, "%llu bytes is not a whole number of images of %lld bytes%s",
                       (unsigned long long)sz, per, images >= 0 ? " (or not as many as the other inputs)" : "");
        else
            images = (long long)(sz / (uint64_t)per);
    }
    diag_print(&d, stderr);
    if (d.n_errors)
        images = -1;
    diag_free(&d);
    return images;
}

/* image k of each file into tmp/in<i>.bin */
static int slice_inputs(const CliVerifyHls *v, char **files, long long k, char paths[][LOGBUF])
{
    char *buf = NULL;
    int rc = 0;
    for (int i = 0; i < v->n_model_in && rc == 0; i++) {
        long long per = v->in_bytes[i];
        char *nb = realloc(buf, (size_t)per + 1);
        FILE *f = fopen(files[i], "rb");
        snprintf(paths[i], LOGBUF, "%s/in%d.bin", v->tmp, i);
        FILE *o = fopen(paths[i], "wb");
        if (!nb || !f || !o || fseek(f, (long)(k * per), SEEK_SET) || fread(nb, 1, (size_t)per, f) != (size_t)per ||
            fwrite(nb, 1, (size_t)per, o) != (size_t)per)
            rc = -1;
        buf = nb ? nb : buf;
        if (f)
            fclose(f);
        if (o && fclose(o))
            rc = -1;
    }
    free(buf);
    if (rc)
        fprintf(stderr, "onnx2hls verify: cannot read image %lld of the inputs\n", k);
    return rc;
}

static int run_host(const CliVerifyHls *v, char paths[][LOGBUF], const char *gdir)
{
    char prog[LOGBUF], weights[LOGBUF], out[LOGBUF], log[LOGBUF];
    char *argv[48];
    int n = 0;
    snprintf(prog, sizeof prog, "%s/model", v->host_dir);
    snprintf(weights, sizeof weights, "%s/weights.bin", v->host_dir);
    snprintf(out, sizeof out, "%s/host.out", v->tmp);
    snprintf(log, sizeof log, "%s/host.log", v->tmp);
    argv[n++] = prog;
    if (!v->embedded) {
        argv[n++] = "--weights";
        argv[n++] = weights;
    }
    argv[n++] = "--dump";
    argv[n++] = (char *)gdir;
    argv[n++] = "-o";
    argv[n++] = out;
    for (int i = 0; i < v->n_model_in; i++)
        argv[n++] = paths[i];
    argv[n] = NULL;
    int st = cli_run_cmd(argv, log, NULL);
    if (st != 0) {
        fprintf(stderr, "onnx2hls verify: the host program failed (exit %d):\n", st);
        cli_show_log(log);
    }
    return st ? -1 : 0;
}

/* the testbench build `which` (csim / csim_cxx) against the dumped vectors: 0 equal, 1 not, -1 failed */
static int run_tb(const CliVerifyHls *v, const char *which, const char *gdir, const char *log)
{
    char prog[LOGBUF], hls[LOGBUF], cyc[LOGBUF];
    snprintf(prog, sizeof prog, "%s/hls/tb/%s", v->out, which);
    snprintf(hls, sizeof hls, "%s/hls", v->out);
    snprintf(cyc, sizeof cyc, "%s/%s.cycles.json", v->tmp, which);
    char *argv[] = {prog, hls, "--golden", (char *)gdir, "--cycles", cyc, NULL};
    int st = cli_run_cmd(argv, log, NULL);
    return st == 0 ? 0 : st == 1 ? 1 : -1;
}

static int check_image(const CliVerifyHls *v, char **files, long long k, int *bad)
{
    char paths[32][LOGBUF], gdir[LOGBUF], log[LOGBUF];
    snprintf(gdir, sizeof gdir, "%s/golden", v->tmp);
    if (mkdir(gdir, 0777) && errno != EEXIST)
        return -1;
    if (slice_inputs(v, files, k, paths) || run_host(v, paths, gdir))
        return -1;
    static const char *const builds[] = {"csim", "csim_cxx"};
    bool differs = false;
    for (int b = 0; b < 2; b++) {
        snprintf(log, sizeof log, "%s/%s.log", v->tmp, builds[b]);
        int r = run_tb(v, builds[b], gdir, log);
        if (r != 0 && (r < 0 || *bad < 3)) {
            fprintf(stderr, "onnx2hls verify: image %lld, %s build: %s\n", k, builds[b],
                    r < 0 ? "the testbench failed" : "differs from the host program");
            cli_show_log(log);
        }
        if (r < 0)
            return -1;
        differs |= r > 0;
    }
    *bad += differs;
    return 0;
}

int cli_verify_hls(const CliVerifyHls *v)
{
    char hls[LOGBUF], log[LOGBUF], dflt[LOGBUF + 16];
    snprintf(hls, sizeof hls, "%s/hls", v->out);
    snprintf(log, sizeof log, "%s/build.log", v->tmp);
    snprintf(dflt, sizeof dflt, "%s/tb/input.f32", hls);
    char *dfiles[1] = {dflt};
    char **files = v->n_in ? v->inputs : dfiles;
    if (!v->n_in && v->n_model_in != 1) {
        fprintf(stderr, "onnx2hls verify: the model has %d inputs: give each with --input\n", v->n_model_in);
        return 2;
    }
    if (v->n_in && v->n_in != v->n_model_in) {
        fprintf(stderr, "onnx2hls verify: the model has %d input(s), %d --input given\n", v->n_model_in, v->n_in);
        return 2;
    }
    if (file_size(dflt) < 0 && !v->n_in) {
        fprintf(stderr, "onnx2hls verify: %s holds no accelerator (no %s); compile with --emit hls\n", v->out, dflt);
        return 2;
    }
    long long images = count_images(v, files, v->n_model_in);
    if (images < 0)
        return 2;
    char *host_t[] = {NULL}, *hls_t[] = {"tb/csim", "tb/csim_cxx", NULL};
    if (make_targets(v->host_dir, log, host_t) || make_targets(hls, log, hls_t))
        return 2;
    int bad = 0;
    for (long long k = 0; k < images; k++)
        if (check_image(v, files, k, &bad))
            return 1;
    printf("hls: %lld of %lld image(s) bit-exact in the C (gcc) and C++ (g++) simulations\n", images - bad, images);
    return bad ? 1 : 0;
}
