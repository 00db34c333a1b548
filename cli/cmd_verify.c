/* cmd_verify.c - `onnx2hls verify OUT --input X.f32 [--reference Y.f32]`:
 * build the generated host program, run it, and compare its outputs with a
 * reference - given files, or ONNX Runtime run on the original model.
 *
 * Why it builds and runs for real: the claim to check is that the emitted
 * C, compiled by the user's compiler, computes what ONNX Runtime computes.
 * So the program is built with its own Makefile (system cc, the flags a
 * user gets) and run as a separate process; nothing of the compiler's
 * in-memory state takes part.
 *
 * Pass rule: max|out - ref| <= tol * max|ref| for each float output (exact
 * equality for integer outputs). Exit 0 pass, 1 mismatch or failed run,
 * 2 bad input (missing files, wrong sizes, no reference available).
 */
#define _XOPEN_SOURCE 700
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codegen/host.h"
#include "ir/escape.h"
#include "ir/sidefile.h"

#define MAX_IO CG_MANIFEST_MAX_IO

typedef CgManifestTensor VTensor;

typedef struct {
    char dir[4096];       /* the host program folder */
    CgManifest mf;        /* its model.json */
} VModel;

static void verify_usage(FILE *f)
{
    fprintf(f, "usage: onnx2hls verify OUT --input X.f32 [--input ...] [--reference Y.f32]... [--tol 1e-4]\n"
               "       onnx2hls verify OUT --hls [--input X.f32]...\n"
               "  OUT          a folder written by `onnx2hls compile` (OUT/host is built and run)\n"
               "  --input      raw little-endian data of each model input, in order\n"
               "  --reference  expected raw output(s), in order; without it the model is run\n"
               "               through ONNX Runtime (node + onnxruntime-node; set\n"
               "               ONNX2HLS_ORT_NODE_PATH to the node_modules holding it)\n"
               "  --tol T      pass when max|out-ref| <= T * max|ref| (default 1e-4)\n"
               "  --keep       keep the temporary folder with the outputs\n"
               "  --hls        check the accelerator instead: build OUT/hls's C simulation (gcc\n"
               "               C99 and g++), run the host int8 program on each input (every\n"
               "               image of a file holding several; default: the testbench's own\n"
               "               input, OUT/hls/tb/input.f32) and compare every tensor the\n"
               "               accelerator holds with the host program's, bit for bit\n"
               "Exit: 0 match, 1 mismatch or the program failed, 2 bad input.\n");
}

/* ------------------------------------------------------- model.json */

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int find_program(VModel *m, const char *out)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/host/model.json", out);
    if (file_exists(path)) {
        snprintf(m->dir, sizeof m->dir, "%s/host", out);
    } else {
        snprintf(path, sizeof path, "%s/model.json", out);
        if (!file_exists(path)) {
            fprintf(stderr, "onnx2hls verify: %s holds no compiled host program (no host/model.json); "
                            "run `onnx2hls compile MODEL -o %s` first\n", out, out);
            return -1;
        }
        snprintf(m->dir, sizeof m->dir, "%s", out);
    }
    IrDiag d;
    diag_init(&d);
    int rc = cg_manifest_read(path, &m->mf, &d);
    diag_print(&d, stderr);
    diag_free(&d);
    if (rc)
        return -1;
    return 0;
}

/* -------------------------------------------------------- processes */

/* Run argv with stdout and stderr sent to log (NULL: inherited). Returns
 * the exit status, 128+signal when killed, 127 when it could not start. */
int cli_run_cmd(char *const *argv, const char *log, const char *node_path)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return 127;
    if (pid == 0) {
        if (log) {
            FILE *f = fopen(log, "w");
            if (!f)
                _exit(127);
            dup2(fileno(f), 1);
            dup2(fileno(f), 2);
        }
        if (node_path)
            setenv("NODE_PATH", node_path, 1);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* A build or run log on stderr, line by line through the terminal escaping
 * (compiler messages quote source lines, and names are model text); at
 * most its last 64 KiB. */
void cli_show_log(const char *log)
{
    static const SfKind k = {"log", 64u << 20, false};
    char *text, *cur, *line;
    size_t len;
    IrDiag d;
    diag_init(&d);
    if (sf_read(log, &k, &text, &len, &d) == 0) {
        cur = len > (64u << 10) ? text + len - (64u << 10) : text;
        while ((line = sf_next_line(&cur))) {
            esc_put(stderr, ESC_TERM, line);
            fputc('\n', stderr);
        }
        free(text);
    }
    diag_free(&d);
}

/* Exactly want bytes of path (a regular file of that size), NULL with a
 * message naming what the file is for. */
static unsigned char *read_exact(const char *path, const char *what, const VTensor *t, size_t want)
{
    SfKind k = {what, SF_TENSOR_DATA.cap, false};
    IrDiag d;
    diag_init(&d);
    uint64_t size = 0;
    char *data = NULL;
    if (sf_check(path, &k, &size, &d))
        ;   /* the message is on d */
    else if (size == want)
        sf_read_head(path, &k, want, &data, &d);
    else
        diag_error(&d, path, NULL, NULL, "the %s is %llu bytes; output '%s' (%s, %lld values) is %zu", what,
                   (unsigned long long)size, t->name, t->dtype, (long long)t->elems, want);
    diag_print(&d, stderr);
    diag_free(&d);
    return (unsigned char *)data;
}

/* ------------------------------------------------------------ steps */

static int build_program(const VModel *m, const char *tmp)
{
    char log[4200];
    snprintf(log, sizeof log, "%s/build.log", tmp);
    char *argv[] = {"make", "-s", "-C", (char *)m->dir, NULL};
    int st = cli_run_cmd(argv, log, NULL);
    if (st != 0) {
        fprintf(stderr, "onnx2hls verify: building %s failed (make exit %d):\n", m->dir, st);
        cli_show_log(log);
        return -1;
    }
    return 0;
}

static int run_program(const VModel *m, const char *tmp, char **inputs)
{
    char prog[4200], weights[4200], log[4200];
    char outs[MAX_IO][4200];
    char *argv[2 * MAX_IO + 8];
    int n = 0;
    snprintf(prog, sizeof prog, "%s/model", m->dir);
    snprintf(weights, sizeof weights, "%s/weights.bin", m->dir);
    snprintf(log, sizeof log, "%s/run.log", tmp);
    argv[n++] = prog;
    if (!m->mf.embedded) {
        argv[n++] = "--weights";
        argv[n++] = weights;
    }
    for (int i = 0; i < m->mf.n_out; i++) {
        snprintf(outs[i], sizeof outs[i], "%s/out%d.bin", tmp, i);
        argv[n++] = "-o";
        argv[n++] = outs[i];
    }
    for (int i = 0; i < m->mf.n_in; i++)
        argv[n++] = inputs[i];
    argv[n] = NULL;
    int st = cli_run_cmd(argv, log, NULL);
    if (st != 0) {
        fprintf(stderr, "onnx2hls verify: %s failed (exit %d):\n", prog, st);
        cli_show_log(log);
        return -1;
    }
    return 0;
}

static bool has_ort(const char *dir)
{
    char p[4300];
    snprintf(p, sizeof p, "%s/onnxruntime-node", dir);
    return file_exists(p);
}

/* node_modules holding onnxruntime-node: $ONNX2HLS_ORT_NODE_PATH,
 * ./node_modules, then the source tree's node_modules. */
static const char *ort_node_path(void)
{
    static char buf[4200];
    const char *e = getenv("ONNX2HLS_ORT_NODE_PATH");
    if (e && *e)
        return has_ort(e) ? e : NULL;
    if (has_ort("node_modules") && realpath("node_modules", buf))
        return buf;
#ifdef ONNX2HLS_SOURCE_DIR
    snprintf(buf, sizeof buf, "%s/node_modules", ONNX2HLS_SOURCE_DIR);
    if (has_ort(buf))
        return buf;
#endif
    return NULL;
}

static void shape_arg(const VTensor *t, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "%s:", t->dtype);
    for (int d = 0; d < t->rank && k < n; d++)
        k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? "," : "", (long long)t->dims[d]);
}

/* Each file a regular file of exactly its tensor's size, before anything
 * is built (what: "input" or "reference"). */
static int check_sizes(const VTensor *ts, char **paths, int n, const char *what)
{
    int rc = 0;
    IrDiag d;
    diag_init(&d);
    for (int i = 0; i < n && rc == 0; i++) {
        const VTensor *t = &ts[i];
        uint64_t want = (uint64_t)t->elems * t->elem_size, size = 0;
        rc = sf_check(paths[i], &SF_TENSOR_DATA, &size, &d);
        if (rc == 0 && size != want) {
            diag_error(&d, paths[i], NULL, NULL, "%llu bytes, but %s '%s' (%s, %lld values) needs %llu",
                       (unsigned long long)size, what, t->name, t->dtype, (long long)t->elems,
                       (unsigned long long)want);
            rc = -1;
        }
    }
    diag_print(&d, stderr);
    diag_free(&d);
    return rc;
}

/* Reference outputs from ONNX Runtime into tmp/ref<i>.bin. */
static int run_ort(const VModel *m, const char *tmp, char **inputs, char refs[][4200])
{
    const char *np = ort_node_path();
    char *script = cg_find_data_file("tools/ort_ref.js");
    if (!np || !script) {
        fprintf(stderr, "onnx2hls verify: no --reference given and ONNX Runtime is not available: %s\n"
                        "  install it with `npm install --ignore-scripts onnxruntime-node@1.30.0` and set\n"
                        "  ONNX2HLS_ORT_NODE_PATH to that node_modules, or pass --reference FILE\n",
                !np ? "onnxruntime-node not found (ONNX2HLS_ORT_NODE_PATH, ./node_modules)"
                    : "tools/ort_ref.js not found (ONNX2HLS_DATA_DIR)");
        free(script);
        return -2;
    }
    char spec[2 * MAX_IO][300], log[4200];
    static char bound[MAX_IO][4200];
    char *argv[11 * MAX_IO + 8], *bpaths[MAX_IO];
    int n = 0;
    argv[n++] = "node";
    argv[n++] = script;
    argv[n++] = m->mf.model;
    for (int i = 0; i < m->mf.n_in; i++) {
        shape_arg(&m->mf.in[i], spec[i], sizeof spec[i]);
        argv[n++] = "--input";
        argv[n++] = (char *)m->mf.in[i].name;
        argv[n++] = spec[i];
        argv[n++] = inputs[i];
    }
    for (int i = 0; i < m->mf.n_bound; i++) {   /* the original model still takes them */
        const VTensor *t = &m->mf.bound[i];
        snprintf(bound[i], sizeof bound[i], "%s/%s", m->dir, t->file);
        bpaths[i] = bound[i];
        shape_arg(t, spec[MAX_IO + i], sizeof spec[MAX_IO + i]);
        argv[n++] = "--input";
        argv[n++] = t->name;
        argv[n++] = spec[MAX_IO + i];
        argv[n++] = bound[i];
    }
    if (check_sizes(m->mf.bound, bpaths, m->mf.n_bound, "bound input")) {
        free(script);
        return -1;
    }
    for (int i = 0; i < m->mf.n_out; i++) {
        snprintf(refs[i], 4200, "%s/ref%d.bin", tmp, i);
        argv[n++] = "--output";
        argv[n++] = (char *)m->mf.out[i].name;
        argv[n++] = refs[i];
    }
    argv[n] = NULL;
    snprintf(log, sizeof log, "%s/ort.log", tmp);
    int st = cli_run_cmd(argv, log, np);
    free(script);
    if (st != 0) {
        fprintf(stderr, "onnx2hls verify: ONNX Runtime failed on ");
        esc_put(stderr, ESC_TERM, m->mf.model);
        fprintf(stderr, " (exit %d):\n", st);
        cli_show_log(log);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------- compare */

typedef struct {
    double max_diff, max_ref;
    long long bad;        /* NaN mismatches or unequal integers */
} Diff;

static Diff compare(const VTensor *t, const unsigned char *y, const unsigned char *r)
{
    Diff d = {0, 0, 0};
    bool f32 = !strcmp(t->dtype, "float32"), f64 = !strcmp(t->dtype, "float64");
    for (long long i = 0; i < t->elems; i++) {
        if (!f32 && !f64) {
            d.bad += memcmp(y + i * t->elem_size, r + i * t->elem_size, t->elem_size) != 0;
            continue;
        }
        double a, b;
        if (f32) {
            float fa, fb;
            memcpy(&fa, y + i * 4, 4);
            memcpy(&fb, r + i * 4, 4);
            a = fa, b = fb;
        } else {
            memcpy(&a, y + i * 8, 8);
            memcpy(&b, r + i * 8, 8);
        }
        if (isnan(a) || isnan(b)) {
            d.bad += isnan(a) != isnan(b);
            continue;
        }
        if (isinf(a) || isinf(b)) {
            d.bad += a != b;
            continue;
        }
        if (fabs(a - b) > d.max_diff)
            d.max_diff = fabs(a - b);
        if (fabs(b) > d.max_ref)
            d.max_ref = fabs(b);
    }
    return d;
}

/* 0 match, 1 mismatch, 2 bad reference file. */
static int check_output(const VTensor *t, const char *out, const char *ref, double tol)
{
    size_t want = (size_t)t->elems * t->elem_size;
    unsigned char *r = read_exact(ref, "reference", t, want), *y = r ? read_exact(out, "program's output", t, want) : NULL;
    int rc = !r ? 2 : !y ? 1 : 0;
    if (rc == 0) {
        Diff d = compare(t, y, r);
        rc = d.bad || d.max_diff > tol * d.max_ref ? 1 : 0;
        printf("output '");
        esc_put(stdout, ESC_TERM, t->name);
        printf("' (%lld values): max abs error %.3g, max |ref| %.4g, relative %.3g (tol %g): %s\n",
               (long long)t->elems, d.max_diff, d.max_ref, d.max_ref > 0 ? d.max_diff / d.max_ref : d.max_diff,
               tol, rc ? "MISMATCH" : "ok");
        if (d.bad)
            printf("  %lld values differ in NaN/inf or (integer outputs) exactly\n", d.bad);
    }
    free(y);
    free(r);
    return rc;
}


/* ------------------------------------------------------------- main */

typedef struct {
    const char *out;
    char *inputs[MAX_IO], *refs[MAX_IO];
    int n_in, n_ref;
    double tol;
    bool keep, hls;
} VerifyArgs;

static int parse_args(int argc, char **argv, VerifyArgs *a)
{
    memset(a, 0, sizeof *a);
    a->tol = 1e-4;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v;
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            verify_usage(stdout);
            return 1;
        } else if (!strcmp(s, "--input") || !strcmp(s, "--reference")) {
            bool in = !strcmp(s, "--input");
            if (!(v = cli_value(argc, argv, &i)))
                return -1;
            if ((in ? a->n_in : a->n_ref) >= MAX_IO) {
                fprintf(stderr, "onnx2hls verify: too many %s options\n", s);
                return -1;
            }
            if (in)
                a->inputs[a->n_in++] = (char *)v;
            else
                a->refs[a->n_ref++] = (char *)v;
        } else if (!strcmp(s, "--tol")) {
            char *end;
            if (!(v = cli_value(argc, argv, &i)))
                return -1;
            a->tol = strtod(v, &end);
            if (*end || !(a->tol >= 0)) {
                fprintf(stderr, "onnx2hls verify: bad --tol '%s'\n", v);
                return -1;
            }
        } else if (!strcmp(s, "--keep")) {
            a->keep = true;
        } else if (!strcmp(s, "--hls")) {
            a->hls = true;
        } else if (s[0] == '-' && s[1]) {
            fprintf(stderr, "onnx2hls verify: unknown option '%s'\n", s);
            return -1;
        } else if (a->out) {
            fprintf(stderr, "onnx2hls verify: more than one folder given\n");
            return -1;
        } else {
            a->out = s;
        }
    }
    if (!a->out) {
        fprintf(stderr, "onnx2hls verify: no compiled folder given\n");
        return -1;
    }
    return 0;
}

static int verify_run(VerifyArgs *a, VModel *m, const char *tmp)
{
    if (a->n_in != m->mf.n_in) {
        fprintf(stderr, "onnx2hls verify: the model has %d input(s), %d --input given\n", m->mf.n_in, a->n_in);
        return 2;
    }
    if (a->n_ref > m->mf.n_out) {
        fprintf(stderr, "onnx2hls verify: %d --reference given, the model has %d output(s)\n", a->n_ref,
                m->mf.n_out);
        return 2;
    }
    if (check_sizes(m->mf.in, a->inputs, a->n_in, "input") || check_sizes(m->mf.out, a->refs, a->n_ref, "output"))
        return 2;
    static char refs[MAX_IO][4200];
    int n_cmp = a->n_ref;
    for (int i = 0; i < a->n_ref; i++)
        snprintf(refs[i], sizeof refs[i], "%s", a->refs[i]);
    if (build_program(m, tmp))
        return 2;
    if (run_program(m, tmp, a->inputs))
        return 1;
    if (n_cmp == 0) {
        int st = run_ort(m, tmp, a->inputs, refs);
        if (st)
            return 2;
        n_cmp = m->mf.n_out;
    }
    int rc = 0;
    for (int i = 0; i < n_cmp; i++) {
        char out[4200];
        snprintf(out, sizeof out, "%s/out%d.bin", tmp, i);
        int r = check_output(&m->mf.out[i], out, refs[i], a->tol);
        rc = r > rc ? r : rc;
    }
    return rc;
}

int cmd_verify(int argc, char **argv)
{
    VerifyArgs a;
    int pr = parse_args(argc, argv, &a);
    if (pr) {
        if (pr < 0)
            verify_usage(stderr);
        return pr > 0 ? 0 : 2;
    }
    static VModel m;
    memset(&m, 0, sizeof m);
    if (find_program(&m, a.out))
        return 2;
    char tmp[] = "/tmp/onnx2hls-verify-XXXXXX";
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "onnx2hls verify: cannot create a temporary folder: %s\n", strerror(errno));
        cg_manifest_free(&m.mf);
        return 2;
    }
    int rc;
    if (a.hls) {
        CliVerifyHls v = {a.out, m.dir, m.mf.embedded, m.mf.n_in, {0}, a.inputs, a.n_in, tmp};
        for (int i = 0; i < m.mf.n_in; i++)
            v.in_bytes[i] = m.mf.in[i].elems * (long long)m.mf.in[i].elem_size;
        rc = cli_verify_hls(&v);
    } else {
        rc = verify_run(&a, &m, tmp);
    }
    cg_manifest_free(&m.mf);
    if (a.keep)
        printf("outputs kept in %s\n", tmp);
    else
        cli_remove_tree(tmp);
    printf("verify: %s\n", rc == 0 ? "PASS" : rc == 1 ? "FAIL" : "ERROR");
    return rc;
}
