/* test_conformance_run.c - ONNX's own backend tests, run through the whole
 * host path: `onnx2hls compile` -> generated C -> cc -> run -> compare.
 *
 * Why: the backend tests (Debian libonnx-testdata: node/, pytorch-converted/,
 * pytorch-operator/, simple/) are small models with inputs and expected outputs
 * written by ONNX itself, so they pin down the exact semantics of every op
 * attribute the compiler claims to support. Every test is tried: a model
 * the compiler rejects must be rejected at compile time (exit 2 from the
 * command; counted "unsupported"); a model it accepts must build, run and match
 * every output_*.pb (|out - ref| <= 1e-5 + 1e-3 |ref|, exact for integers).
 *
 * Bound inputs: many node tests pass a shape, axes, scales, bounds... as a
 * graph input that the op needs known at compile time. When a refusal names
 * such an input ("must be a constant known at compile time") and the data
 * set holds its value, the test is compiled again with --bind NAME=input_k.pb
 * (one program per data set then), as a user would; those passes are
 * pinned with the others.
 *
 * Speed: the compile pipeline runs in this process (driver_lower_model and
 * cg_host_emit, the same calls `onnx2hls compile` makes; the command's exit
 * codes are tested by the script tests), the runtime and a generic driver
 * (conformance_driver.c) are compiled once in the build folder, so each
 * test compiles only its generated model.c, at -O0 (with -std=c99 -pedantic
 * -Wall -Wextra -Werror: generated code must compile cleanly).
 * The .pb tensors are decoded with the protobuf-c bindings the frontend is
 * built with and written as the raw files the generated program reads.
 *
 * Environment: O2H_CONFORMANCE_FILTER=substring runs matching tests only,
 * O2H_CONFORMANCE_SUITE=node (or another folder) one suite only;
 * O2H_CONFORMANCE_CLI=1 compiles through the onnx2hls executable instead;
 * O2H_CONFORMANCE_VERBOSE=1 lists every test; O2H_CONFORMANCE_DATA overrides
 * /usr/share/libonnx-testdata/data. Without the data the test is skipped
 * (exit 77).
 *
 * Ops newer than that data (opset 18 and up) get tests in the same layout
 * from conformance_extra.h, run as the suite "extra".
 *
 * The pin: tests/unit/conformance_pass.txt lists every test that passes
 * today (those that pass only with bound inputs too). One of them failing
 * or turning unsupported fails this test, so a regression cannot hide
 * behind the totals; a test that newly passes is printed so it can be
 * added to the list.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codegen/host.h"
#include "driver/driver.h"
#include "onnx.pb-c.h"
#include "conformance_extra.h"
#include "test_util.h"

#define MAX_IO 32
#define PATHN 4096

/* snprintf that truncates silently: paths here are far below PATHN, and
 * a truncated one only makes a test fail with a message. */
static void fmt(char *buf, size_t n, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t n, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, n, f, ap);
    va_end(ap);
}

/* ------------------------------------------------------------ helpers */

/* Run argv with output to log; kill after timeout_s. Exit status,
 * 128+signal, or 127 when it could not start. */
static int run_cmd(char *const *argv, const char *log, int timeout_s)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 127;
    if (pid == 0) {
        FILE *f = fopen(log, "w");
        if (f) {
            dup2(fileno(f), 1);
            dup2(fileno(f), 2);
        }
        alarm((unsigned)timeout_s);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int rc = fwrite(p, 1, n, f) == n ? 0 : -1;
    return fclose(f) || rc ? -1 : 0;
}

static int rm_entry(const char *p, const struct stat *s, int fl, struct FTW *ftw)
{
    (void)s, (void)fl, (void)ftw;
    return remove(p);
}

static void rm_tree(const char *p)
{
    struct stat st;
    if (lstat(p, &st) == 0)
        nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* First line of a log, for the tallies. */
static void first_error(const char *log, char *out, size_t n)
{
    size_t len;
    char *s = test_read_file(log, &len);
    out[0] = 0;
    if (!s)
        return;
    char *line = s, *hit = strstr(s, "error") ? strstr(s, "error") : s;
    while (hit > s && hit[-1] != '\n')
        hit--;
    line = hit;
    char *nl = strchr(line, '\n');
    if (nl)
        *nl = 0;
    fmt(out, n, "%s", line);
    free(s);
}

/* ------------------------------------------------------ tensor files */

typedef struct {
    char name[256];
    int dtype;             /* ONNX DataType */
    int rank;
    long long dims[8];
    long long elems;
    size_t elem_size;
    unsigned char *data;   /* raw little-endian */
} Tensor;

static size_t dt_size(int dt)
{
    switch (dt) {
    case 1: case 6: case 12: return 4;
    case 2: case 3: case 9: return 1;
    case 4: case 5: case 10: case 16: return 2;
    case 7: case 11: case 13: return 8;
    default: return 0;
    }
}

/* Decode a TensorProto file into raw data; -1 if unreadable or a type the
 * host path has no raw form for. */
static int load_pb(const char *path, Tensor *t)
{
    size_t len;
    char *buf = test_read_file(path, &len);
    memset(t, 0, sizeof *t);
    if (!buf)
        return -1;
    Onnx__TensorProto *p = onnx__tensor_proto__unpack(NULL, len, (const uint8_t *)buf);
    free(buf);
    if (!p)
        return -1;
    int rc = 0;
    fmt(t->name, sizeof t->name, "%s", p->name ? p->name : "");
    t->dtype = p->data_type;
    t->elem_size = dt_size(t->dtype);
    t->rank = (int)p->n_dims;
    t->elems = 1;
    for (int i = 0; i < t->rank && i < 8; i++)
        t->elems *= t->dims[i] = p->dims[i];
    size_t nb = (size_t)t->elems * t->elem_size;
    t->data = calloc(nb + 1, 1);
    if (!t->elem_size || p->n_dims > 8 || !t->data) {
        rc = -1;
    } else if (p->has_raw_data) {
        rc = p->raw_data.len == nb ? 0 : -1;
        if (rc == 0 && nb)
            memcpy(t->data, p->raw_data.data, nb);
    } else if (t->elems == 0) {
        rc = 0;     /* an empty tensor: no payload to copy (and its arrays may be NULL) */
    } else if (p->n_float_data == (size_t)t->elems && t->dtype == 1) {
        memcpy(t->data, p->float_data, nb);
    } else if (p->n_double_data == (size_t)t->elems && t->dtype == 11) {
        memcpy(t->data, p->double_data, nb);
    } else if (p->n_int64_data == (size_t)t->elems && t->dtype == 7) {
        memcpy(t->data, p->int64_data, nb);
    } else if (p->n_uint64_data == (size_t)t->elems && (t->dtype == 13 || t->dtype == 12)) {
        for (long long i = 0; i < t->elems; i++) {
            uint64_t v = p->uint64_data[i];
            memcpy(t->data + i * t->elem_size, &v, t->elem_size);
        }
    } else if (p->n_int32_data == (size_t)t->elems) {
        for (long long i = 0; i < t->elems; i++) {
            int32_t v = p->int32_data[i];
            memcpy(t->data + i * t->elem_size, &v, t->elem_size);   /* little-endian narrowing */
        }
    } else {
        rc = -1;
    }
    onnx__tensor_proto__free_unpacked(p, NULL);
    return rc;
}

/* --------------------------------------------------------- model.json */

/* model.json through the reader verify uses (codegen/host_manifest.c) */
typedef CgManifest JModel;

static int read_json(const char *path, JModel *m)
{
    IrDiag d;
    diag_init(&d);
    int rc = cg_manifest_read(path, m, &d);
    diag_print(&d, stderr);
    diag_free(&d);
    return rc;
}

/* ------------------------------------------------------------ compare */

static bool close_f(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b))
        return a == b;
    return fabs(a - b) <= 1e-5 + 1e-3 * fabs(b);
}

/* 0 equal; otherwise a message in why. */
static int compare(const Tensor *ref, const unsigned char *y, size_t ny, char *why, size_t n)
{
    size_t nb = (size_t)ref->elems * ref->elem_size;
    if (ny != nb) {
        fmt(why, n, "output '%s': %zu bytes, expected %zu", ref->name, ny, nb);
        return -1;
    }
    for (long long i = 0; i < ref->elems; i++) {
        const unsigned char *a = y + i * ref->elem_size, *b = ref->data + i * ref->elem_size;
        bool ok;
        double va = 0, vb = 0;
        if (ref->dtype == 1) {
            float fa, fb;
            memcpy(&fa, a, 4);
            memcpy(&fb, b, 4);
            va = fa, vb = fb;
            ok = close_f(va, vb);
        } else if (ref->dtype == 11) {
            memcpy(&va, a, 8);
            memcpy(&vb, b, 8);
            ok = close_f(va, vb);
        } else {
            ok = memcmp(a, b, ref->elem_size) == 0;
        }
        if (!ok) {
            fmt(why, n, "output '%s'[%lld]: %.7g, expected %.7g", ref->name, i, va, vb);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------- runner */

typedef enum { T_PASS, T_FAIL, T_UNSUPPORTED, T_SKIP, T_AS_ORT } Outcome;

typedef struct {
    const char *onnx2hls, *work, *rtlib, *driver;
    int run, passed, failed, unsupported;
    int bound_passed;      /* passed with graph inputs bound (--bind) */
    int as_ort;            /* differ from ONNX's data as ONNX Runtime does (follow_ort) */
    int regressed, new_passes;
    bool verbose, cli;
    FILE *report;
    char *pinned;        /* conformance_pass.txt: "\nsuite/name\n" lines */
} Ctx;

/* The pin: suite/name is listed in conformance_pass.txt. */
static bool pinned_pass(const Ctx *c, const char *suite, const char *name)
{
    char key[PATHN];
    fmt(key, sizeof key, "\n%s/%s\n", suite, name);
    return strstr(c->pinned, key) != NULL;
}

/* A pinned test that no longer passes fails the run; a new pass is news. */
static void check_pin(Ctx *c, const char *suite, const char *name, Outcome o)
{
    bool pinned = pinned_pass(c, suite, name);
    if (pinned && o != T_PASS) {
        c->regressed++;
        printf("REGRESSION   %s/%s: listed in conformance_pass.txt but no longer passes\n", suite, name);
    } else if (!pinned && o == T_PASS) {
        c->new_passes++;
        printf("new pass     %s/%s: add it to tests/unit/conformance_pass.txt\n", suite, name);
    }
}

/* conformance_pass.txt with a newline in front, so every entry is "\n...\n" */
static char *load_pins(void)
{
    char path[PATHN];
    fmt(path, sizeof path, "%s/tests/unit/conformance_pass.txt", SOURCE_DIR);
    size_t n = 0;
    char *list = test_read_file(path, &n);
    char *s = list ? malloc(n + 3) : NULL;
    if (s)
        fmt(s, n + 3, "\n%s\n", list);
    free(list);
    return s;
}


/* Graph inputs given the data set's values with --bind: those an op needs
 * known at compile time (a shape, axes, scales...). */
typedef struct {
    char names[MAX_IO][256];
    int n;
} Binds;

static bool is_bound(const Binds *b, const char *name)
{
    for (int i = 0; b && i < b->n; i++)
        if (!strcmp(b->names[i], name))
            return true;
    return false;
}

/* The graph input a refusal says must be constant ("input 'NAME' (what)
 * must be a constant known at compile time") into name; "" if none. */
static void const_input_named(const char *why, char *name, size_t n)
{
    const char *must = strstr(why, "must be a constant known at compile time"), *q = NULL, *end;
    name[0] = 0;
    for (const char *s = why; must && (s = strstr(s, "input '")) && s < must; s++)
        q = s + 7;
    if (q && (end = strstr(q, "' (")) && end < must)
        fmt(name, n, "%.*s", (int)(end - q), q);
}

/* set/input_<k>.pb whose tensor is named name, into path; -1 if none */
static int input_file_for(const char *set, const char *name, char *path, size_t n)
{
    for (int k = 0; set && k < MAX_IO; k++) {
        fmt(path, n, "%s/input_%d.pb", set, k);
        if (access(path, R_OK) != 0)
            return -1;
        Tensor t;
        int rc = load_pb(path, &t);
        free(t.data);
        if (rc == 0 && !strcmp(t.name, name))
            return 0;
    }
    return -1;
}

static int find_index(const char *name, const char (*names)[256], int n, int fallback)
{
    for (int i = 0; i < n; i++)
        if (name[0] && !strcmp(names[i], name))
            return i;
    return fallback;
}

/* One test_data_set_*: write inputs, run, compare outputs. */
static int run_set(Ctx *c, const char *set, const char *host, const JModel *m, const Binds *b, char *why,
                   size_t wn)
{
    char names[MAX_IO][256], files[MAX_IO][PATHN], outs[MAX_IO][PATHN], path[PATHN], log[PATHN];
    char *argv[2 * MAX_IO + 8];
    int n = 0, rc = 0;
    for (int i = 0; i < m->n_in; i++)
        fmt(names[i], 256, "%s", m->in[i].name);
    char prog[PATHN], weights[PATHN];
    fmt(prog, sizeof prog, "%s/prog", c->work);
    fmt(weights, sizeof weights, "%s/weights.bin", host);
    argv[n++] = prog;
    argv[n++] = (char *)"--weights";
    argv[n++] = weights;
    for (int i = 0; i < m->n_out; i++) {
        fmt(outs[i], PATHN, "%s/out%d.bin", c->work, i);
        argv[n++] = (char *)"-o";
        argv[n++] = outs[i];
    }
    int n_given = 0;
    for (int k = 0; k < MAX_IO; k++) {
        Tensor t;
        fmt(path, sizeof path, "%s/input_%d.pb", set, k);
        if (access(path, R_OK) != 0)
            break;
        if (load_pb(path, &t)) {
            fmt(why, wn, "cannot decode %s", path);
            free(t.data);
            return -1;
        }
        int i = is_bound(b, t.name) ? m->n_in : find_index(t.name, (const char (*)[256])names, m->n_in, k);
        if (i < m->n_in) {
            fmt(files[i], PATHN, "%s/in%d.bin", c->work, i);
            if (m->in[i].elems != t.elems) {
                fmt(why, wn, "input '%s' has %lld values, the model wants %lld", t.name, t.elems,
                         (long long)m->in[i].elems);
                rc = -1;
            } else if (write_file(files[i], t.data, (size_t)t.elems * t.elem_size)) {
                rc = -1;
            }
            n_given++;
        }
        free(t.data);
        if (rc)
            return rc;
    }
    if (n_given != m->n_in) {
        fmt(why, wn, "%d input files for %d model inputs", n_given, m->n_in);
        return -1;
    }
    for (int i = 0; i < m->n_in; i++)
        argv[n++] = files[i];
    argv[n] = NULL;
    fmt(log, sizeof log, "%s/run.log", c->work);
    int st = run_cmd(argv, log, 60);
    if (st) {
        first_error(log, path, sizeof path);
        fmt(why, wn, "program failed (exit %d): %s", st, path);
        return -1;
    }
    for (int i = 0; i < m->n_out; i++)
        fmt(names[i], 256, "%s", m->out[i].name);
    for (int k = 0; k < m->n_out; k++) {
        Tensor ref;
        fmt(path, sizeof path, "%s/output_%d.pb", set, k);
        if (load_pb(path, &ref)) {
            fmt(why, wn, "cannot decode %s", path);
            free(ref.data);
            return -1;
        }
        int i = find_index(ref.name, (const char (*)[256])names, m->n_out, k);
        size_t ny = 0;
        unsigned char *y = (unsigned char *)test_read_file(outs[i], &ny);
        rc = !y ? -1 : compare(&ref, y, ny, why, wn);
        if (!y)
            fmt(why, wn, "no output file %s", outs[i]);
        free(y);
        free(ref.data);
        if (rc)
            return rc;
    }
    return 0;
}

static int build_prog(Ctx *c, const char *host, char *why, size_t wn)
{
    char model_c[PATHN + 64], inc[PATHN + 64], prog[PATHN + 64], log[PATHN + 64];
    fmt(model_c, sizeof model_c, "%s/model.c", host);
    fmt(inc, sizeof inc, "-I%s", host);
    fmt(prog, sizeof prog, "%s/prog", c->work);
    fmt(log, sizeof log, "%s/cc.log", c->work);
    /* warnings are errors: generated code must compile cleanly as C99 */
    char *argv[] = {"cc",    "-O0",   "-std=c99",    "-pedantic", "-Wall",           "-Wextra",
                    "-Werror", inc,   model_c,       (char *)c->driver, (char *)c->rtlib, "-lm",
                    "-o",    prog,    NULL};
    int st = run_cmd(argv, log, 120);
    if (st) {
        first_error(log, why, wn);
        return -1;
    }
    return 0;
}

/* the --bind options of b from set's files into fe (and argv from *n);
 * -1 (why set) when set has no file for one */
static int bind_options(const Binds *b, const char *set, FeOptions *fe, char **argv, int *n, char *why, size_t wn)
{
    static char paths[MAX_IO][PATHN], specs[MAX_IO][PATHN + 300];
    for (int i = 0; b && i < b->n; i++) {
        if (input_file_for(set, b->names[i], paths[i], PATHN)) {
            fmt(why, wn, "no input file for bound input '%s' in %s", b->names[i], set ? set : "-");
            return -1;
        }
        fe->binds[fe->n_binds++] = (FeBind){b->names[i], strlen(b->names[i]), paths[i]};
        fmt(specs[i], sizeof specs[i], "%s=%s", b->names[i], paths[i]);
        argv[(*n)++] = "--bind";
        argv[(*n)++] = specs[i];
    }
    return 0;
}

/* Compile model into out/host, b's inputs bound to set's values: 0 ok, 2
 * rejected (why set), other: failure. */
static int compile_model(Ctx *c, const char *model, const char *out, const Binds *b, const char *set, char *why,
                         size_t wn)
{
    char log[PATHN + 64], host[PATHN + 64];
    static FeOptions fe;
    char *argv[2 * MAX_IO + 8] = {(char *)c->onnx2hls, "compile", (char *)model, "-o", (char *)out, "--quiet"};
    int n = 6;
    memset(&fe, 0, sizeof fe);
    if (bind_options(b, set, &fe, argv, &n, why, wn))
        return 1;
    argv[n] = NULL;
    if (c->cli) {
        fmt(log, sizeof log, "%s/compile.log", c->work);
        int st = run_cmd(argv, log, 120);
        if (st)
            first_error(log, why, wn);
        return st;
    }
    IrDiag d;
    diag_init(&d);
    IrGraph *g = driver_lower_model(model, &fe, NULL, &d);
    mkdir(out, 0777);
    fmt(host, sizeof host, "%s/host", out);
    CgHostOptions o = {.model_path = model};
    int rc = g && cg_host_emit(g, &o, host, NULL, &d) == 0 ? 0 : 2;
    for (int i = 0; rc && i < d.n; i++)
        if (d.v[i].level == DIAG_ERROR) {
            fmt(why, wn, "node '%s' (%s): %s", d.v[i].node ? d.v[i].node : "-",
                     d.v[i].op ? d.v[i].op : "-", d.v[i].msg);
            break;
        }
    ir_graph_free(g);
    diag_free(&d);
    return rc;
}

/* Tests whose expected data (ONNX's reference implementation) differs from
 * what ONNX Runtime computes, where the compiler follows ONNX Runtime (the
 * reference of the numerics contract, docs/numerics.md; checked with
 * onnxruntime-node 1.30 on the same inputs): a mismatch here is counted
 * apart, not as a failure. */
static const char *const follow_ort[] = {
    /* align_corners with scales: ONNX's data divides by the fractional
     * resized length (0.6 * 4 = 2.4), ONNX Runtime by the output size (2) */
    "node/test_resize_downsample_scales_cubic_align_corners",
    "node/test_resize_downsample_scales_linear_align_corners",
};

static bool follows_ort(const char *suite, const char *name)
{
    char full[600];
    fmt(full, sizeof full, "%s/%s", suite, name);
    for (size_t i = 0; i < sizeof follow_ort / sizeof follow_ort[0]; i++)
        if (!strcmp(full, follow_ort[i]))
            return true;
    return false;
}


static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* dir's test_data_set_* folders, sorted, into sets (at most max); count */
static int list_sets(const char *dir, char sets[][PATHN + 300], int max)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char *names[64];
    int n = 0;
    while (d && (e = readdir(d)) && n < max && n < 64)
        if (!strncmp(e->d_name, "test_data_set_", 14))
            names[n++] = strdup(e->d_name);
    if (d)
        closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        fmt(sets[i], PATHN + 300, "%s/%s", dir, names[i]);
        free(names[i]);
    }
    return n;
}

/* Compile, binding one more graph input each time a refusal names one that
 * must be constant and set has its value: 0, 2 (rejected), other. */
static int compile_binding(Ctx *c, const char *model, const char *out, Binds *b, const char *set, char *why,
                           size_t wn)
{
    for (;;) {
        rm_tree(out);
        why[0] = 0;
        int st = compile_model(c, model, out, b, set, why, wn);
        char name[256], path[PATHN];
        const_input_named(why, name, sizeof name);
        if (st != 2 || !name[0] || is_bound(b, name) || b->n == MAX_IO || input_file_for(set, name, path, PATHN))
            return st;
        fmt(b->names[b->n++], 256, "%s", name);
    }
}

/* Compile with b bound to set's values, read model.json, build: 0 ok,
 * 2 rejected, -1 failed (why set). */
static int prepare(Ctx *c, const char *model, const char *out, Binds *b, const char *set, bool grow, JModel *m,
                   char *why, size_t wn)
{
    char host[PATHN + 64], json[PATHN + 256];
    fmt(host, sizeof host, "%s/host", out);
    if (!grow)
        rm_tree(out);
    int st = grow ? compile_binding(c, model, out, b, set, why, wn) : compile_model(c, model, out, b, set, why, wn);
    if (st == 2)
        return 2;
    if (st != 0) {
        fmt(why + strlen(why), wn - strlen(why), " [compile exit %d]", st);
        return -1;
    }
    fmt(json, sizeof json, "%s/model.json", host);
    cg_manifest_free(m);
    if (read_json(json, m)) {
        fmt(why, wn, "unreadable %s", json);
        return -1;
    }
    return build_prog(c, host, why, wn);
}

static Outcome run_test(Ctx *c, const char *dir, Binds *b, char *why, size_t wn)
{
    char model[PATHN + 64], out[PATHN + 64], host[PATHN + 128];
    static char sets[16][PATHN + 300];
    fmt(model, sizeof model, "%s/model.onnx", dir);
    if (access(model, R_OK) != 0)
        return T_SKIP;
    fmt(out, sizeof out, "%s/out", c->work);
    fmt(host, sizeof host, "%s/host", out);
    int n_sets = list_sets(dir, sets, 16);
    static JModel m;
    b->n = 0;
    int st = prepare(c, model, out, b, n_sets ? sets[0] : NULL, true, &m, why, wn);
    Outcome r = st == 2 ? T_UNSUPPORTED : st ? T_FAIL : n_sets ? T_PASS : T_SKIP;
    if (r == T_SKIP)
        fmt(why, wn, "no test_data_set_*");
    for (int i = 0; r == T_PASS && i < n_sets; i++)   /* bound values differ per set: each its own program */
        if ((i > 0 && b->n && prepare(c, model, out, b, sets[i], false, &m, why, wn)) ||
            run_set(c, sets[i], host, &m, b, why, wn))
            r = T_FAIL;
    cg_manifest_free(&m);
    return r;
}

/* every test under base/suite */
static void run_suite(Ctx *c, const char *base, const char *suite)
{
    char root[PATHN];
    fmt(root, sizeof root, "%s/%s", base, suite);
    DIR *d = opendir(root);
    if (!d)
        return;
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap)
            names = realloc(names, sizeof *names * (size_t)(cap = cap ? 2 * cap : 256));
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    const char *filter = getenv("O2H_CONFORMANCE_FILTER");
    for (int i = 0; i < n; i++) {
        char dir[PATHN + 300], why[1024] = "";
        if (filter && *filter && !strstr(names[i], filter)) {
            free(names[i]);
            continue;
        }
        fmt(dir, sizeof dir, "%s/%s", root, names[i]);
        static Binds b;
        Outcome o = run_test(c, dir, &b, why, sizeof why);
        for (int k = 0; o == T_PASS && k < b.n; k++)   /* the report says which inputs were bound */
            fmt(why + strlen(why), sizeof why - strlen(why), "%s%s", k ? ", " : "bound: ", b.names[k]);
        c->bound_passed += o == T_PASS && b.n > 0;
        if (o == T_FAIL && follows_ort(suite, names[i]))
            o = T_AS_ORT;
        const char *tag = o == T_PASS ? "pass" : o == T_FAIL ? "FAIL" : o == T_UNSUPPORTED ? "unsupported"
                        : o == T_AS_ORT ? "as-ort" : "skip";
        if (o == T_PASS || o == T_FAIL || o == T_AS_ORT)
            c->run++;
        c->as_ort += o == T_AS_ORT;
        c->passed += o == T_PASS;
        c->failed += o == T_FAIL;
        c->unsupported += o == T_UNSUPPORTED;
        if (o != T_SKIP)
            check_pin(c, suite, names[i], o);
        fprintf(c->report, "%-12s %s/%s%s%s\n", tag, suite, names[i], why[0] ? ": " : "", why);
        if (o == T_FAIL || c->verbose)
            printf("%-12s %s/%s%s%s\n", tag, suite, names[i], why[0] ? ": " : "", why);
        free(names[i]);
    }
    free(names);
}

/* The runtime, once, as a static library in the work folder. */
static int build_runtime(Ctx *c, char *lib, size_t n)
{
    char rtdir[PATHN], log[PATHN], obj[PATHN + 300], src[PATHN + 300];
    fmt(rtdir, sizeof rtdir, "%s/runtime", SOURCE_DIR);
    fmt(lib, n, "%s/libo2h_rt.a", c->work);
    fmt(log, sizeof log, "%s/rt.log", c->work);
    DIR *d = opendir(rtdir);
    if (!d)
        return -1;
    char *ar[300] = {"ar", "rcs", lib};
    int na = 3;
    static char objs[256][PATHN + 300];
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".c") || na >= 256)
            continue;
        fmt(src, sizeof src, "%s/%s", rtdir, e->d_name);
        fmt(obj, sizeof obj, "%s/%.*s.o", c->work, (int)(len - 2), e->d_name);
        char *argv[] = {"cc", "-O2", "-c", src, "-o", obj, NULL};
        rc = run_cmd(argv, log, 300);
        fmt(objs[na], sizeof objs[na], "%s", obj);
        ar[na] = objs[na];
        na++;
    }
    closedir(d);
    ar[na] = NULL;
    remove(lib);
    if (rc == 0)
        rc = run_cmd(ar, log, 60);
    return rc;
}

/* The generic driver, once: compiled against a model.h of a small model
 * (it only uses the declarations, which are the same for every model). */
static int build_driver(Ctx *c, char *obj, size_t n)
{
    char out[PATHN + 64], inc[PATHN + 128], src[PATHN], log[PATHN + 64], why[512];
    fmt(out, sizeof out, "%s/driver_model", c->work);
    fmt(src, sizeof src, "%s/samples/resnet_tiny.onnx", SOURCE_DIR);
    if (compile_model(c, src, out, NULL, NULL, why, sizeof why)) {
        printf("conformance: cannot compile %s for the driver: %s\n", src, why);
        return -1;
    }
    fmt(inc, sizeof inc, "-I%s/host", out);
    fmt(src, sizeof src, "%s/tests/unit/conformance_driver.c", SOURCE_DIR);
    fmt(obj, n, "%s/driver.o", c->work);
    fmt(log, sizeof log, "%s/driver.log", c->work);
    char *argv[] = {"cc", "-O1", "-c", inc, src, "-o", obj, NULL};
    return run_cmd(argv, log, 120);
}

int main(void)
{
    char root[PATHN];
    fmt(root, sizeof root, "%s/node", test_data_root());
    if (access(root, R_OK) != 0)
        return test_skip("no ONNX backend test data (Debian package libonnx-testdata)");
    static char work[PATHN], onnx2hls[PATHN], lib[PATHN], report[PATHN], driver[PATHN];
    fmt(work, sizeof work, "%s/conformance", BINARY_DIR);
    fmt(onnx2hls, sizeof onnx2hls, "%s/onnx2hls", BINARY_DIR);
    fmt(report, sizeof report, "%s/conformance/report.txt", BINARY_DIR);
    rm_tree(work);
    mkdir(work, 0777);
    Ctx c = {.onnx2hls = onnx2hls, .work = work, .rtlib = lib, .driver = driver, .pinned = load_pins()};
    if (!c.pinned) {
        printf("conformance: FAIL: cannot read tests/unit/conformance_pass.txt\n");
        return 1;
    }
    const char *v = getenv("O2H_CONFORMANCE_VERBOSE");
    c.verbose = v && *v == '1';
    v = getenv("O2H_CONFORMANCE_CLI");
    c.cli = v && *v == '1';
    if (build_runtime(&c, lib, sizeof lib) || build_driver(&c, driver, sizeof driver)) {
        printf("conformance: FAIL: cannot build the runtime or the driver (see %s/*.log)\n", work);
        return 1;
    }
    c.report = fopen(report, "w");
    if (!c.report)
        return 1;
    static const char *const suites[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};
    const char *only = getenv("O2H_CONFORMANCE_SUITE");
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
        if (!only || !*only || !strcmp(only, suites[i]))
            run_suite(&c, test_data_root(), suites[i]);
    char extra[PATHN + 16];
    fmt(extra, sizeof extra, "%s/extra", work);
    if (extra_write_suite(extra)) {
        printf("conformance: FAIL: cannot write the extra tests in %s\n", extra);
        c.failed++;
    } else if (!only || !*only || !strcmp(only, "extra")) {
        run_suite(&c, work, "extra");
    }
    fclose(c.report);
    printf("conformance: %d run, %d passed (%d with bound inputs), %d failed, %d as ONNX Runtime computes (not "
           "as ONNX's data), %d unsupported, %d pinned passes lost, %d new (report: %s)\n", c.run, c.passed,
           c.bound_passed, c.failed, c.as_ort, c.unsupported, c.regressed, c.new_passes, report);
    free(c.pinned);
    return c.failed || c.regressed || c.passed == 0 ? 1 : 0;
}
