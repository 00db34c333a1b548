/* test_hls_templates.c - every HLS engine template (templates/hls/) run
 * against the runtime's int8 kernels bit for bit, and its cycle counters
 * against the planner's loop-nest model (plan/loopnest.c).
 *
 * Why: the templates are the hardware. The host int8 program is what every
 * accelerator must reproduce, and the planner's cycles are only true if
 * plan/loopnest.c counts the loops the templates run. For each template:
 *  - it compiles alone with its default parameters (cc -std=c99 and c++),
 *    and runs with them (the file as it is, its own ROM header);
 *  - cg_hls_specialize instantiates it for many seeded random parameter
 *    sets (conv classes, unroll factors that do and do not divide their
 *    loops, pads, strides, dilations, ceil-mode pools, fused epilogues;
 *    SEML engines with several band sizes, filter tiles, pixel lanes); each
 *    instance, its ROM header and a driver main() are written to
 *    BINARY_DIR/test_hls_templates/<template>/, built with the system C
 *    compiler (ASan+UBSan when it has them) and run; every output byte is
 *    compared with the runtime kernel on the same data (the accelerator is
 *    NHWC, the runtime NCHW) and every counter with its plan_ln_* function;
 *  - the integer contract (runtime/o2h_int_contract.h, the one header of
 *    the runtime and the engines) is swept against exact 128-bit formulas.
 * Exit 77 only when there is no C compiler.
 */
#include "check.h"
#include "test_util.h"
#include "codegen/hls_specialize.h"
#include "ir/ir.h"
#include "plan/loopnest.h"
#include "runtime/o2h_rt.h"
#include "runtime/o2h_rt_int.h"
#include "templates/hls/common/o2h_desc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#define TPL SOURCE_DIR "/templates/hls"
#define WORK BINARY_DIR "/test_hls_templates"
#define CFLAGS "-std=c99 -Wall -Wextra -Werror -Wno-unknown-pragmas"
#define INCS "-I" TPL "/common -I" TPL " -I" SOURCE_DIR "/runtime"

/* ================================================================ basics */

static uint64_t rng = 0x6A09E667F3BCC909ull;

static uint64_t rnd64(void)   /* splitmix64: seeded, the same on every run */
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int rnd(int lo, int hi)   /* uniform in [lo, hi] */
{
    return lo + (int)(rnd64() % (uint64_t)((int64_t)hi - lo + 1));
}

static int one_in(int n)
{
    return rnd64() % (uint64_t)n == 0;
}

static void rnd_bytes(int8_t *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        p[i] = (int8_t)rnd(-128, 127);
}

static void *xcalloc(int64_t n)
{
    void *p = calloc((size_t)(n > 0 ? n : 1), 1);
    if (!p)
        abort();
    return p;
}

static int cdiv(int a, int b)
{
    return (a + b - 1) / b;
}

static int imax(int a, int b)
{
    return a > b ? a : b;
}

/* An unroll factor for a loop of n iterations (docs/hls.md, section 3): a
 * divisor of n, or m * 2^k with m in {1, 3, 5, 7}, the tail then padded. */
static int unroll(int n)
{
    static const int m[] = {1, 3, 5, 7};
    int f;
    if (one_in(2)) {
        do
            f = rnd(1, n);
        while (n % f);
        return f;
    }
    do
        f = m[rnd(0, 3)] << rnd(0, 4);
    while (f > n + 2);
    return f;
}

/* A multiplier in [2^30, 2^31) and a shift for a factor of about 1/mag
 * (docs/numerics.md, section 3); now and then a shift far off, so that
 * outputs saturate. */
static void rq_pick(int32_t *m, uint8_t *sh, double mag)
{
    int e = 0;
    while (mag >= 2 && e < 30)
        mag /= 2, e++;
    *m = (int32_t)((1u << 30) + (uint32_t)(rnd64() % (1u << 30)));
    *sh = (uint8_t)(one_in(10) ? rnd(24, 48) : 30 + e + rnd(-1, 1));
}

/* an output zero point and clamp: full range, a folded Relu or a Clip */
static void out_range(int32_t *zero, int32_t *lo, int32_t *hi)
{
    *zero = rnd(-128, 127), *lo = -128, *hi = 127;
    int k = rnd(0, 2);
    if (k == 1)
        *lo = *zero;
    if (k == 2)
        *lo = rnd(-128, *zero), *hi = rnd(*zero, 127);
}

/* Add/Sub of two codes: the larger multiplier in [2^30, 2^31), the other
 * at most as large (negative for Sub), shift about 31 (numerics.md 4.5) */
static void add_pick(O2hEltQ *e, int sub)
{
    int32_t big = (int32_t)((1u << 30) + (uint32_t)(rnd64() % (1u << 30)));
    int32_t other = (int32_t)(rnd64() % (uint64_t)big) * (sub ? -1 : 1);
    e->a_zero = rnd(-128, 127), e->b_zero = rnd(-128, 127);
    e->ma = one_in(2) ? big : other, e->mb = e->ma == big ? other : big;
    if (sub && e->mb > 0)
        e->mb = -e->mb;
    e->shift = rnd(29, 33);
    out_range(&e->zero, &e->lo, &e->hi);
}

/* [n][p][c] (NHWC) <-> [n][c][p] (NCHW) */
static void to_nchw(const int8_t *x, int8_t *y, int n, int p, int c)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p; k++)
            for (int j = 0; j < c; j++)
                y[((int64_t)i * c + j) * p + k] = x[((int64_t)i * p + k) * c + j];
}

static void to_nhwc(const int8_t *x, int8_t *y, int n, int p, int c)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p; k++)
            for (int j = 0; j < c; j++)
                y[((int64_t)i * p + k) * c + j] = x[((int64_t)i * c + j) * p + k];
}

/* ================================================================ files */

static void spit(const char *dir, const char *name, const void *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    int ok = f && (n == 0 || fwrite(p, 1, n, f) == n);
    ok = f && !fclose(f) && ok;
    CHECK_MSG(ok, "cannot write %s", path);
}

/* the value of `#define O2H_P_<name>` in a template (defaults) */
static int tpl_param(const char *text, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "#define O2H_P_%s ", name);
    const char *at = strstr(text, key);
    CHECK_MSG(at != NULL, "no parameter %s", name);
    if (!at)
        return 0;
    at += strlen(key);
    while (*at == ' ' || *at == '(')
        at++;
    return (int)strtol(at, NULL, 10);
}

/* the integers of `#define <macro> {...}` in a template's ROM header, in order */
static int rom_ints(const char *text, const char *macro, int32_t *v, int max)
{
    char key[64];
    snprintf(key, sizeof key, "#define %s ", macro);
    const char *at = strstr(text, key);
    int n = 0;
    CHECK_MSG(at != NULL, "no %s in a default ROM", macro);
    for (at = at ? at + strlen(key) : ""; *at && !(*at == '\n' && at[-1] != '\\'); at++) {
        if ((*at == '-' && at[1] >= '0' && at[1] <= '9') || (*at >= '0' && *at <= '9')) {
            char *end;
            long x = strtol(at, &end, 10);
            if (n < max)
                v[n] = (int32_t)x;
            n++;
            at = end - 1;
        }
    }
    return n;
}

/* `#define NAME {...}`: a fully braced initializer of dims[0..rank), as
 * the HLS emitter prints them (16 values a line, lines continued) */
static void rom_list(FILE *f, const int32_t *v, const int *dims, int rank)
{
    int64_t inner = 1;
    for (int i = 1; i < rank; i++)
        inner *= dims[i];
    fputc('{', f);
    for (int i = 0; i < dims[0]; i++) {
        if (i)
            fputs(i % 16 ? ", " : ", \\\n    ", f);
        if (rank == 1)
            fprintf(f, "%d", (int)v[i]);
        else
            rom_list(f, v + i * inner, dims + 1, rank - 1);
    }
    fputc('}', f);
}

static void rom_def(FILE *f, const char *name, const int32_t *v, const int *dims, int rank)
{
    fprintf(f, "#define %s ", name);
    rom_list(f, v, dims, rank);
    fputc('\n', f);
}

static void rom_def8(FILE *f, const char *name, const int8_t *v, int n)
{
    int32_t *w = xcalloc(4 * (int64_t)n);
    for (int i = 0; i < n; i++)
        w[i] = v ? v[i] : 0;
    rom_def(f, name, w, &n, 1);
    free(w);
}

/* ================================================================ programs
 *
 * One program per template: its instances (one or two per run), a driver
 * main() that runs them one after the other on their input files and
 * saves what they wrote (bytes, then int64 counters) as <run>.out, and
 * what the test expects of each run. The specialized instances build as
 * one translation unit, unity.c, each included and its macros undefined
 * after it (the specializer has compiled each alone already, and one
 * compiler run for all keeps the test fast); a template used as it is
 * stays a file of its own, and so does a SEML instance (the inline bodies
 * of o2h_seml.h take the includer's beat, as each Vitis compile unit does). */

typedef struct {
    char name[16];          /* <name>.* files; the instances' symbol prefix */
    char what[240];         /* the configuration, for messages */
    int8_t *want;
    int64_t n;
    int64_t *cyc;           /* expected counters */
    char (*cyc_what)[256];
    int n_cyc;
    int64_t *part_end;      /* SEML arena: where each layer's output ends, for messages */
    char (*part_what)[256];
    int n_parts;
    int dead;               /* an instance did not specialize (reported): not run */
} Run;

typedef struct {
    const char *tpl;
    char dir[600];
    FILE *drv, *unity;
    char *srcs;             /* source files, space separated */
    Run *runs;
    int n_runs, n_inst;
} Prog;

static const char *const templates[] = {"sesl_window", "sesl_mac",  "sesl_pool", "sesl_eltwise",
                                        "sesl_stream", "seml_conv", "seml_dw",   "seml_eltwise"};
static int runs_of[8];                  /* instances run, per template (as it is included) */
static clock_t spec_clock;              /* CPU time in the specializer */

static void count_run(const char *tpl)
{
    for (int i = 0; i < 8; i++)
        runs_of[i] += !strcmp(templates[i], tpl);
}
static const char *san_flags = "";   /* sanitizers for the instances, when cc has them */

static void drv(Prog *pg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(pg->drv, fmt, ap);
    va_end(ap);
}

static Prog *prog_begin(const char *tpl)
{
    Prog *pg = xcalloc(sizeof *pg);
    pg->tpl = tpl;
    snprintf(pg->dir, sizeof pg->dir, WORK "/%s", tpl);
    mkdir(pg->dir, 0777);
    char path[700];
    snprintf(path, sizeof path, "%s/driver.c", pg->dir);
    pg->drv = fopen(path, "w");
    if (!pg->drv)
        abort();
    snprintf(path, sizeof path, "%s/unity.c", pg->dir);
    pg->unity = fopen(path, "w");
    if (!pg->unity)
        abort();
    fprintf(pg->unity, "/* unity.c - generated by test_hls_templates: the specialized instances */\n");
    pg->srcs = xcalloc(16);
    strcpy(pg->srcs, " unity.c");
    drv(pg, "/* driver.c - generated by test_hls_templates: each run_*() loads an instance's inputs,\n"
            " * runs it and saves its outputs and cycle counters */\n"
            "#include <stdint.h>\n#include <string.h>\n\n#include \"o2h_desc.h\"\n"
            "#include \"" SOURCE_DIR "/tests/data/hls_templates/tpl_driver.h\"\n");
    return pg;
}

static void prog_source(Prog *pg, const char *file)
{
    size_t n = strlen(pg->srcs);
    pg->srcs = realloc(pg->srcs, n + strlen(file) + 2);
    if (!pg->srcs)
        abort();
    sprintf(pg->srcs + n, " %s", file);
    pg->n_inst++;
}

/* a new run; its name is also the symbol prefix of its main instance */
static Run *prog_run(Prog *pg, const char *fmt, ...)
{
    pg->runs = realloc(pg->runs, sizeof(Run) * (size_t)(pg->n_runs + 1));
    if (!pg->runs)
        abort();
    Run *r = &pg->runs[pg->n_runs];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "r%d", pg->n_runs++);
    int n = snprintf(r->what, sizeof r->what, "%s %s: ", pg->tpl, r->name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->what + n, sizeof r->what - (size_t)n, fmt, ap);
    va_end(ap);
    return r;
}

static void run_counter(Run *r, const char *what, int64_t want)
{
    r->cyc = realloc(r->cyc, sizeof *r->cyc * (size_t)(r->n_cyc + 1));
    r->cyc_what = realloc(r->cyc_what, sizeof *r->cyc_what * (size_t)(r->n_cyc + 1));
    if (!r->cyc || !r->cyc_what)
        abort();
    r->cyc[r->n_cyc] = want;
    snprintf(r->cyc_what[r->n_cyc++], sizeof *r->cyc_what, "%s", what);
}

/* Parameter lists for the specializer */
typedef struct {
    CgHlsParam v[40];
    char name[40][32];
    char val[40][64];
    int n;
} Params;

static void par_s(Params *ps, const char *name, const char *v)
{
    if (ps->n == 40)
        abort();
    snprintf(ps->name[ps->n], sizeof ps->name[0], "O2H_P_%s", name);
    snprintf(ps->val[ps->n], sizeof ps->val[0], "%s", v);
    ps->v[ps->n].name = ps->name[ps->n];
    ps->v[ps->n].value = ps->val[ps->n];
    ps->n++;
}

static void par(Params *ps, const char *name, long long v)
{
    char s[32];
    snprintf(s, sizeof s, v < 0 ? "(%lld)" : "%lld", v);
    par_s(ps, name, s);
}

/* The instance <prefix>_<tpl>.c of template tpl with parameters ps. */
static int instance(Prog *pg, const char *tpl, const char *prefix, const Params *ps)
{
    char path[600], file[64];
    snprintf(path, sizeof path, TPL "/%s.c", tpl);
    const char *incs[] = {pg->dir, TPL "/common", TPL, SOURCE_DIR "/runtime"};
    CgHlsSpecRequest rq = {path, incs, 4, NULL, 0, ps->v, ps->n, prefix, prefix, false};
    IrDiag d;
    diag_init(&d);
    clock_t t0 = clock();
    char *s = cg_hls_specialize(&rq, &d);
    spec_clock += clock() - t0;
    CHECK_MSG(s != NULL, "%s: instance %s does not specialize", tpl, prefix);
    if (!s)
        diag_print(&d, stderr);
    diag_free(&d);
    if (!s)
        return -1;
    snprintf(file, sizeof file, "%s_%s.c", prefix, tpl);
    spit(pg->dir, file, s, strlen(s));
    if (!strncmp(tpl, "seml_", 5)) {   /* o2h_seml.h's bodies read the includer's O2H_SEML_BEAT: one unit each */
        prog_source(pg, file);
        free(s);
        count_run(tpl);
        return 0;
    }
    fprintf(pg->unity, "#include \"%s\"\n", file);
    for (const char *at = s; (at = strstr(at, "#define ")) != NULL; at++) {
        at += 8;
        fprintf(pg->unity, "#undef %.*s\n", (int)strspn(at, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789"), at);
    }
    fprintf(pg->unity, "#undef O2H_ROM_WEIGHTS\n#undef O2H_ROM_BIAS\n#undef O2H_ROM_MULT\n#undef O2H_ROM_SHIFT\n"
                       "#undef O2H_ROM_LUT\n");
    free(s);
    pg->n_inst++;
    count_run(tpl);
    return 0;
}

/* The template as it is (default parameters, its own ROM header), its
 * external names given the prefix by macros so that it links beside
 * instances. */
static void as_is(Prog *pg, const char *tpl, const char *prefix, const char *const *ext)
{
    char file[64];
    snprintf(file, sizeof file, "%s_%s.c", prefix, tpl);
    char path[700];
    snprintf(path, sizeof path, "%s/%s", pg->dir, file);
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fprintf(f, "/* the template %s.c unchanged; external names prefixed for linking */\n", tpl);
    for (; *ext; ext++)
        fprintf(f, "#define %s %s_%s\n", *ext, prefix, *ext);
    fprintf(f, "#include \"%s.c\"\n", tpl);
    fclose(f);
    prog_source(pg, file);
    count_run(tpl);
}

static char *template_text(const char *file)
{
    char path[600];
    snprintf(path, sizeof path, TPL "/%s", file);
    char *s = test_read_file(path, NULL);
    if (!s) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    return s;
}

static void print_log(const char *dir, const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t n;
    char *s = test_read_file(path, &n);
    if (s)
        fprintf(stderr, "---- %s ----\n%.*s\n", path, (int)(n > 6000 ? 6000 : n), s);
    free(s);
}

static void compare_run(const Prog *pg, const Run *r)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s.out", pg->dir, r->name);
    size_t len;
    int8_t *got = (int8_t *)test_read_file(path, &len);
    CHECK_MSG(got && len == (size_t)r->n + 8 * (size_t)r->n_cyc, "%s: no result (%s)", r->what, path);
    if (!got || len != (size_t)r->n + 8 * (size_t)r->n_cyc) {
        free(got);
        return;
    }
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < r->n; i++)
        if (got[i] != r->want[i] && bad++ == 0)
            first = i;
    const char *part = "";
    for (int k = 0; first >= 0 && k < r->n_parts; k++)
        if (first < r->part_end[k]) {
            part = r->part_what[k];
            break;
        }
    CHECK_MSG(bad == 0, "%s: %lld of %lld bytes differ, first at %lld (%d, expected %d) %s", r->what, (long long)bad,
              (long long)r->n, (long long)first, first >= 0 ? got[first] : 0, first >= 0 ? r->want[first] : 0, part);
    for (int k = 0; k < r->n_cyc; k++) {
        int64_t c;
        memcpy(&c, got + r->n + 8 * k, 8);
        CHECK_MSG(c == r->cyc[k], "%s: %s counted %lld cycles, the loop-nest model says %lld", r->what,
                  r->cyc_what[k], (long long)c, (long long)r->cyc[k]);
    }
    free(got);
}

/* Building and running a program overlaps with writing the next one: at
 * most one is in flight (a shared 2-core machine). */
static Prog *pending;
static FILE *pending_sh;

static void prog_finish(Prog *pg, FILE *sh)
{
    char stage[64] = "";
    if (!fgets(stage, sizeof stage, sh))
        stage[0] = 0;
    int rc = pclose(sh);
    int ok = rc == 0 && stage[0] == 0;
    CHECK_MSG(ok, "%s: the instances %s", pg->tpl, strncmp(stage, "build", 5) ? "did not run" : "do not build");
    if (!ok)
        print_log(pg->dir, strncmp(stage, "build", 5) ? "run.log" : "build.log");
    FILE *list = fopen(WORK "/runs.txt", "a");   /* every configuration, for the reader */
    int counters = 0;
    for (int i = 0; i < pg->n_runs; i++) {
        Run *r = &pg->runs[i];
        counters += r->n_cyc;
        if (ok && !r->dead)
            compare_run(pg, r);
        if (list)
            fprintf(list, "%s\n", r->what);
        free(r->want);
        free(r->cyc);
        free(r->cyc_what);
        free(r->part_end);
        free(r->part_what);
    }
    if (list)
        fclose(list);
    printf("%-13s %3d runs, %3d instances, %3d cycle counters\n", pg->tpl, pg->n_runs, pg->n_inst, counters);
    free(pg->runs);
    free(pg->srcs);
    free(pg);
}

static void prog_wait(void)
{
    if (pending)
        prog_finish(pending, pending_sh);
    pending = NULL;
}

/* main(); then, in the background, build with cc and run; the previous
 * program's results are compared meanwhile. */
static void prog_end(Prog *pg)
{
    drv(pg, "\nint main(void)\n{\n");
    for (int i = 0; i < pg->n_runs; i++)
        if (!pg->runs[i].dead)
            drv(pg, "    run_%s();\n", pg->runs[i].name);
    drv(pg, "    return 0;\n}\n");
    fclose(pg->drv);
    fclose(pg->unity);
    size_t n = strlen(pg->srcs) + 2048;
    char *cmd = xcalloc((int64_t)n);
    snprintf(cmd, n,
             "cd '%s' && rm -f *.out && if cc " CFLAGS " -O0 %s -I. " INCS " -o prog driver.c%s > build.log 2>&1; "
             "then ./prog > run.log 2>&1 || echo run; else echo build; fi",
             pg->dir, san_flags, pg->srcs);
    prog_wait();
    fflush(stdout);
    pending_sh = popen(cmd, "r");
    if (!pending_sh)
        abort();
    pending = pg;
    free(cmd);
}

/* ================================================================ contract
 *
 * runtime/o2h_int_contract.h against the rules of docs/numerics.md written
 * as exact rational arithmetic: floor((num + 2^(sh-1)) / 2^sh) by 128-bit
 * division (not by shifts), then the clamp. */

typedef __int128 i128;

static i128 ref_round(i128 num, int sh)
{
    if (sh == 0)
        return num;
    i128 d = (i128)1 << sh, n = num + ((i128)1 << (sh - 1));
    i128 q = n / d;
    return n % d != 0 && n < 0 ? q - 1 : q;
}

static int32_t ref_clamp(i128 v, int32_t lo, int32_t hi)
{
    return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

static int tie(i128 num, int sh)   /* num / 2^sh lies exactly halfway */
{
    return sh > 0 && ((num % ((i128)1 << sh)) + ((i128)1 << sh)) % ((i128)1 << sh) == (i128)1 << (sh - 1);
}

typedef struct {
    int32_t za, ma, zb, mb;
    int sh;
    int32_t zero, lo, hi;
} Rule;

/* parameter sets: realistic ones, then the edges of the contract's ranges */
static Rule rule_pick(int k, int mul)
{
    Rule r = {0, 1 << 30, 0, 1 << 30, 31, 0, -128, 127};
    if (k == 0)
        return r;
    r.za = rnd(-128, 127), r.zb = rnd(-128, 127), r.zero = rnd(-128, 127);
    out_range(&r.zero, &r.lo, &r.hi);
    r.ma = (int32_t)((1u << 30) + (uint32_t)(rnd64() % (1u << 30)));
    r.mb = (int32_t)(rnd64() % (uint64_t)r.ma) * (one_in(3) ? -1 : 1);
    r.sh = mul ? rnd(36, 44) : rnd(29, 33);
    switch (k) {
    case 1: r.ma = INT32_MAX, r.mb = -INT32_MAX, r.sh = 63; break;
    case 2: r.ma = rnd(1, 3), r.mb = rnd(-3, 3), r.sh = 0; break;
    case 3: r.sh = 1, r.ma = rnd(1, 5), r.mb = rnd(-5, 5); break;
    case 4: r.za = -128, r.zb = 127, r.zero = -128; break;
    case 5: r.za = 127, r.zb = -128, r.zero = 127, r.lo = r.hi = 127; break;
    case 6: r.ma = 0, r.mb = INT32_MAX, r.sh = 62; break;
    case 7: r.ma = 3 << 29, r.mb = -(1 << 29), r.sh = mul ? 14 : 30; break;
    default: break;
    }
    return r;
}

/* Add/Sub and Mul: all 256 x 256 code pairs for each parameter set */
static void test_contract_pairs(void)
{
    int64_t bad_add = 0, bad_mul = 0, ties = 0, n = 0;
    for (int k = 0; k < 12; k++) {
        Rule a = rule_pick(k, 0), m = rule_pick(k, 1);
        for (int x = -128; x < 128; x++)
            for (int y = -128; y < 128; y++) {
                i128 s = (i128)(x - a.za) * a.ma + (i128)(y - a.zb) * a.mb;
                ties += tie(s, a.sh);
                bad_add += o2h_q_add(x, a.za, a.ma, y, a.zb, a.mb, a.sh, a.zero, a.lo, a.hi) !=
                           ref_clamp(a.zero + ref_round(s, a.sh), a.lo, a.hi);
                i128 p = (i128)(x - m.za) * (y - m.zb) * m.ma;
                ties += tie(p, m.sh);
                bad_mul += o2h_q_mul8(x, m.za, y, m.zb, m.ma, m.sh, m.zero, m.lo, m.hi) !=
                           ref_clamp(m.zero + ref_round(p, m.sh), m.lo, m.hi);
                n++;
            }
    }
    CHECK_MSG(bad_add == 0, "o2h_q_add: %lld of %lld pairs differ from the exact rule", (long long)bad_add, (long long)n);
    CHECK_MSG(bad_mul == 0, "o2h_q_mul8: %lld of %lld pairs differ from the exact rule", (long long)bad_mul,
              (long long)n);
    CHECK_MSG(ties > 1000, "the pair sweep met only %lld rounding ties", (long long)ties);
    printf("contract: add, mul8 over %lld code pairs each (%lld rounding ties)\n", (long long)n, (long long)ties);
}

/* Rescale: every code, for many multipliers, shifts and zero points */
static void test_contract_rescale(void)
{
    int64_t bad = 0;
    for (int k = 0; k < 400; k++) {
        Rule r = rule_pick(k % 9, 0);
        if (k >= 9)
            r.sh = rnd(0, 63), r.ma = (int32_t)(rnd64() % (1u << 31));
        for (int x = -128; x < 128; x++)
            bad += o2h_q_rescale(x, r.za, r.ma, r.sh, r.zero, r.lo, r.hi) !=
                   ref_clamp(r.zero + ref_round((i128)(x - r.za) * r.ma, r.sh), r.lo, r.hi);
    }
    CHECK_MSG(bad == 0, "o2h_q_rescale: %lld results differ from the exact rule", (long long)bad);
}

static int64_t requant_bad(int64_t acc, const Rule *r, int64_t *ties)
{
    i128 p = (i128)acc * r->ma;
    *ties += tie(p, r->sh);
    return o2h_q_requant(acc, r->ma, r->sh, r->zero, r->lo, r->hi) != ref_clamp(r->zero + ref_round(p, r->sh), r->lo, r->hi);
}

/* Requantize: a dense range of accumulators, the rounding ties (acc * M an
 * odd multiple of 2^(sh-1)) and their neighbours, the saturation edges, and
 * the int32 extremes, for multipliers and shifts across [0, 2^31) x [0, 63] */
static void test_contract_requant(void)
{
    int64_t bad = 0, ties = 0, n = 0;
    for (int k = 0; k < 64; k++) {
        Rule r = rule_pick(k % 9, 0);
        r.ma = k < 8 ? r.ma : (int32_t)((1u << 30) + (uint32_t)(rnd64() % (1u << 30))) >> rnd(0, 3);
        r.sh = k < 8 ? r.sh : k < 40 ? rnd(28, 44) : rnd(0, 63);
        int span = k < 4 ? 1 << 18 : 1 << 12;
        for (int64_t a = -span; a <= span; a++, n++)
            bad += requant_bad(a, &r, &ties);
        int j = 0;                       /* ties: M = u * 2^j, u odd */
        while (r.ma && !((r.ma >> j) & 1))
            j++;
        for (int t = -63; r.ma && r.sh > j && r.sh - 1 - j < 31 && t <= 63; t += 2) {
            int64_t a = t * ((int64_t)1 << (r.sh - 1 - j));
            for (int d = -1; a > INT32_MIN && a < INT32_MAX && d <= 1; d++, n++)
                bad += requant_bad(a + d, &r, &ties);
        }
        for (int e = 0; e < 2; e++) {    /* where zero + rq reaches lo, hi */
            int32_t edge = e ? r.hi : r.lo;
            if (r.ma == 0)
                break;
            i128 a0 = (i128)(edge - r.zero) * ((i128)1 << r.sh) / r.ma;
            i128 w = 3 * (((i128)1 << r.sh) / r.ma + 1);
            w = w > 10000 ? 10000 : w;
            for (i128 a = a0 - w; a <= a0 + w; a++)
                if (a >= INT32_MIN && a <= INT32_MAX)
                    bad += requant_bad((int64_t)a, &r, &ties), n++;
        }
        const int64_t ext[] = {INT32_MIN, INT32_MIN + 1, -1, 0, 1, INT32_MAX - 1, INT32_MAX};
        for (int i = 0; i < 7; i++, n++)
            bad += requant_bad(ext[i], &r, &ties);
    }
    CHECK_MSG(bad == 0, "o2h_q_requant: %lld of %lld accumulators differ from the exact rule", (long long)bad,
              (long long)n);
    CHECK_MSG(ties > 10000, "the requantization sweep met only %lld ties", (long long)ties);
    printf("contract: requant over %lld accumulators (%lld rounding ties)\n", (long long)n, (long long)ties);
}

/* the 64-bit path (average pools): any int64, results saturating at +-2^62 */
static void test_contract_rq64(void)
{
    int64_t bad = 0;
    for (int k = 0; k < 200000; k++) {
        int64_t v = (int64_t)rnd64() >> rnd(0, 63);
        int32_t m = (int32_t)(rnd64() % (1u << 31));
        int sh = rnd(0, 63), zero = rnd(-128, 127);
        i128 want = ref_round((i128)v * m, sh), cap = (i128)1 << 62;
        want = want > cap ? cap : want < -cap ? -cap : want;
        bad += o2h_rq64(v, m, sh) != (int64_t)want;
        bad += o2h_q_requant64(v, m, sh, zero, -128, 127) != ref_clamp(zero + want, -128, 127);
    }
    CHECK_MSG(bad == 0, "o2h_rq64 / o2h_q_requant64: %lld results differ from the exact rule", (long long)bad);
}

/* ================================================================ alone
 *
 * Each template compiles alone with its default parameters, as C99 and as
 * C++ (what Vitis HLS and the C simulation take). */

static void test_alone(void)
{
    char cmd[4096];
    for (int lang = 0; lang < 2; lang++) {
        int n = snprintf(cmd, sizeof cmd, "mkdir -p " WORK "/alone%d && cd " WORK "/alone%d && %s " INCS " -c", lang,
                         lang, lang ? "c++ -x c++ -Wall -Wextra -Werror -Wno-unknown-pragmas" : "cc " CFLAGS);
        for (int i = 0; i < 8; i++)
            n += snprintf(cmd + n, sizeof cmd - (size_t)n, " " TPL "/%s.c", templates[i]);
        snprintf(cmd + n, sizeof cmd - (size_t)n, " > build.log 2>&1");
        int rc = system(cmd);
        CHECK_MSG(rc == 0, "the templates do not compile alone as %s", lang ? "C++" : "C99");
        if (rc)
            print_log(lang ? WORK "/alone1" : WORK "/alone0", "build.log");
    }
}

/* ================================================================ conv, FC */

typedef struct {
    O2hConv2d p;              /* N: 1 frame, or the rows of an FC, or windows fed directly */
    int fc;                   /* a Gemm over the flattened map: reference o2h_fc_s8 */
    int8_t *w;                /* ONNX layout [F][C/G][KH][KW] (FC: [F][C*H*W], the same order) */
    int32_t *bias, *mult;     /* folded bias b' (numerics.md 4.1), multiplier per filter */
    uint8_t *shift;
    int32_t xzero, zero, lo, hi;
    int add, add_first;       /* fused residual Add; add_first: the conv output is its first input */
    O2hEltQ addq;
    int lut;
    int8_t table[256];
} ConvQ;

static int conv_out(int in, int k, int s, int d, int p0, int p1)
{
    return (in + p0 + p1 - ((k - 1) * d + 1)) / s + 1;
}

static int conv_b(const ConvQ *q)   /* reduction length */
{
    return q->p.C / q->p.G * q->p.KH * q->p.KW;
}

static void conv_alloc(ConvQ *q)
{
    O2hConv2d *p = &q->p;
    p->HO = conv_out(p->H, p->KH, p->SH, p->DH, p->PT, p->PB);
    p->WO = conv_out(p->W, p->KW, p->SW, p->DW, p->PL, p->PR);
    q->w = xcalloc((int64_t)p->F * conv_b(q));
    q->bias = xcalloc(4 * (int64_t)p->F);
    q->mult = xcalloc(4 * (int64_t)p->F);
    q->shift = xcalloc(p->F);
}

static void conv_free(ConvQ *q)
{
    free(q->w);
    free(q->bias);
    free(q->mult);
    free(q->shift);
}

/* random constants for the geometry in q->p, within the contract's ranges */
static void conv_consts(ConvQ *q, int add, int lut)
{
    conv_alloc(q);
    int b = conv_b(q), dense = rnd(1, 4);
    for (int64_t i = 0; i < (int64_t)q->p.F * b; i++)
        q->w[i] = (int8_t)(rnd(0, 3) < dense ? rnd(-127, 127) : 0);
    q->xzero = rnd(-128, 127);
    out_range(&q->zero, &q->lo, &q->hi);
    for (int f = 0; f < q->p.F; f++) {
        q->bias[f] = rnd(-(1 << 16), 1 << 16);   /* |b'| + 128 * sum|w| < 2^31 */
        rq_pick(&q->mult[f], &q->shift[f], 135.0 * sqrt((double)b));
    }
    q->add = add, q->add_first = one_in(2), q->lut = lut;
    add_pick(&q->addq, one_in(4));
    if (q->add_first)
        q->addq.a_zero = q->zero;
    else
        q->addq.b_zero = q->zero;
    rnd_bytes(q->table, 256);
}

/* the host's int8 program for the layer: conv or FC, the Add, the table
 * (runtime kernels on NCHW; x, skip, y NHWC) */
static void conv_ref(const ConvQ *q, const int8_t *x, const int8_t *skip, int8_t *y)
{
    const O2hConv2d *p = &q->p;
    int hw = p->H * p->W, hwo = p->HO * p->WO;
    int64_t nx = (int64_t)p->N * hw * p->C, ny = (int64_t)p->N * hwo * p->F;
    int8_t *xn = xcalloc(nx), *yn = xcalloc(ny), *sn = xcalloc(ny), *t = xcalloc(ny);
    to_nchw(x, xn, p->N, hw, p->C);
    O2hRequant rq = {p->F, q->mult, q->shift, q->zero, q->lo, q->hi};
    if (q->fc) {
        O2hFcQ fp = {p->N, p->F, p->C * hw};
        o2h_fc_s8(&fp, &rq, xn, q->w, q->bias, yn);
    } else {
        void *scratch = xcalloc((int64_t)o2h_conv2d_s8_scratch(p));
        o2h_conv2d_s8(p, q->xzero, &rq, xn, q->w, q->bias, yn, scratch);
        free(scratch);
    }
    if (q->add) {
        to_nchw(skip, sn, p->N, hwo, p->F);
        O2hBroadcast bc = {1, {ny}, {ny}, {ny}};
        o2h_add_s8(&bc, &q->addq, q->add_first ? yn : sn, q->add_first ? sn : yn, t);
        memcpy(yn, t, (size_t)ny);
    }
    if (q->lut)
        o2h_lut_s8(yn, yn, (size_t)ny, q->table);
    to_nhwc(yn, y, p->N, hwo, p->F);
    free(xn);
    free(yn);
    free(sn);
    free(t);
}

/* weight of filter f, term t in the engines' order (kh, kw, c) */
static int8_t conv_w_hwc(const ConvQ *q, int f, int t)
{
    int cg = q->p.C / q->p.G, kk = q->p.KH * q->p.KW;
    return q->w[((int64_t)f * cg + t % cg) * kk + t / cg];
}

/* the epilogue's Add as the engine takes it: its own code first */
static void add_fields(const ConvQ *q, int32_t v[8])
{
    const O2hEltQ *e = &q->addq;
    int first = q->add_first;
    int32_t a[8] = {first ? e->a_zero : e->b_zero, first ? e->ma : e->mb, first ? e->b_zero : e->a_zero,
                    first ? e->mb : e->ma, e->shift, e->zero, e->lo, e->hi};
    int32_t none[8] = {0, 0, 0, 0, 0, 0, -128, 127};
    memcpy(v, q->add ? a : none, sizeof a);
}

static PlanGeom conv_geom(const O2hConv2d *p)
{
    return (PlanGeom){p->H, p->W, p->C, p->HO, p->WO, p->F, p->KH, p->KW, p->SH,
                      p->SW, p->DH, p->DW, p->PT, p->PL, p->PB, p->PR, p->G};
}

static void conv_what(char *s, size_t n, const ConvQ *q)
{
    const O2hConv2d *p = &q->p;
    snprintf(s, n, "N%d C%d %dx%d F%d G%d K%dx%d S%dx%d D%dx%d pads %d,%d,%d,%d%s%s%s", p->N, p->C, p->H, p->W, p->F,
             p->G, p->KH, p->KW, p->SH, p->SW, p->DH, p->DW, p->PT, p->PL, p->PB, p->PR, q->fc ? " fc" : "",
             q->add ? q->add_first ? " +add" : " +add(skip first)" : "", q->lut ? " +table" : "");
}

/* kernel, stride, dilation, pads (mostly below the window's extent; now
 * and then beyond it, so that whole output rows read only padding), an
 * input the window fits */
static void rnd_window(O2hConv2d *p, int kmax, int smax, int dmax)
{
    p->KH = rnd(1, kmax), p->KW = rnd(1, kmax), p->SH = rnd(1, smax), p->SW = rnd(1, smax);
    p->DH = rnd(1, dmax), p->DW = rnd(1, dmax);
    int eh = (p->KH - 1) * p->DH + 1, ew = (p->KW - 1) * p->DW + 1, big = one_in(6) ? 3 : 0;
    p->PT = rnd(0, eh - 1 + big), p->PB = rnd(0, eh - 1 + big), p->PL = rnd(0, ew - 1 + big), p->PR = rnd(0, ew - 1 + big);
    p->H = rnd(imax(1, eh - p->PT - p->PB), eh + 5);
    p->W = rnd(imax(1, ew - p->PL - p->PR), ew + 5);
}

static void window_params(Params *ps, const PlanGeom *g, int pad)
{
    const char *names[] = {"C", "H", "W", "KH", "KW", "SH", "SW", "DH", "DW", "PT", "PL", "PB", "PR"};
    const int64_t v[] = {g->c, g->h, g->w, g->kh, g->kw, g->sh, g->sw, g->dh, g->dw, g->pt, g->pl, g->pb, g->pr};
    for (int i = 0; i < 13; i++)
        par(ps, names[i], v[i]);
    par(ps, "PAD", pad);
}

static const char *const window_ext[] = {"window_run", "window_cycles", NULL};

/* ================================================================ SESL conv/FC: sesl_window + sesl_mac */

typedef struct {
    const char *what;
    ConvQ q;
    int window;                   /* through sesl_window (else pixels or windows go straight in) */
    int pa, pb;
    int window_as_is, mac_as_is;  /* that instance is the template unchanged */
} MacCase;

/* the engine's view: FC over a map reduces over its whole window */
static void mac_dims(const MacCase *c, int *mc, int *mkk, int *P)
{
    const O2hConv2d *p = &c->q.p;
    int fc_map = c->q.fc && c->window;
    *mc = fc_map ? p->C * p->H * p->W : p->C;
    *mkk = fc_map ? 1 : p->KH * p->KW;
    *P = p->N * p->HO * p->WO;
}

/* ROM header: weights [NF*NR][PA][PB] zero-padded, bias/mult/shift [NF][PA], table */
static void mac_rom(Prog *pg, const char *name, const ConvQ *q, int pa, int pb)
{
    int f = q->p.F, b = conv_b(q), nf = cdiv(f, pa), nr = cdiv(b, pb);
    int32_t *w = xcalloc(4 * (int64_t)nf * nr * pa * pb), *v = xcalloc(4 * (int64_t)nf * pa);
    for (int i = 0; i < f; i++)
        for (int t = 0; t < b; t++)
            w[(((int64_t)(i / pa) * nr + t / pb) * pa + i % pa) * pb + t % pb] = conv_w_hwc(q, i, t);
    char path[700];
    snprintf(path, sizeof path, "%s/%s.rom.h", pg->dir, name);
    FILE *o = fopen(path, "w");
    if (!o)
        abort();
    fprintf(o, "/* ROM of run %s (test_hls_templates) */\n", name);
    rom_def(o, "O2H_ROM_WEIGHTS", w, (const int[]){nf * nr, pa, pb}, 3);
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < nf * pa; i++)
            v[i] = i >= f ? 0 : k == 0 ? q->bias[i] : k == 1 ? q->mult[i] : q->shift[i];
        rom_def(o, k == 0 ? "O2H_ROM_BIAS" : k == 1 ? "O2H_ROM_MULT" : "O2H_ROM_SHIFT", v, (const int[]){nf, pa}, 2);
    }
    rom_def8(o, "O2H_ROM_LUT", q->lut ? q->table : NULL, 256);
    fclose(o);
    free(w);
    free(v);
}

static void mac_params(Params *ps, const MacCase *c, const char *rom)
{
    const ConvQ *q = &c->q;
    int mc, mkk, P;
    mac_dims(c, &mc, &mkk, &P);
    const char *names[] = {"C", "F", "G", "KK", "P", "PA", "PB", "ZERO", "LO", "HI", "ADD", "LUT"};
    const int64_t v[] = {mc, q->p.F, q->p.G, mkk, P, c->pa, c->pb, q->zero, q->lo, q->hi, q->add, q->lut};
    for (int i = 0; i < 12; i++)
        par(ps, names[i], v[i]);
    const char *an[] = {"ADD_ZA", "ADD_MA", "ADD_ZB", "ADD_MB", "ADD_SH", "ADD_ZERO", "ADD_LO", "ADD_HI"};
    int32_t av[8];
    add_fields(q, av);
    for (int i = 0; i < 8; i++)
        par(ps, an[i], av[i]);
    par_s(ps, "ROM", rom);
    const char *impl[] = {"bram", "uram", "lutram"};
    par_s(ps, "ROM_IMPL", impl[rnd(0, 2)]);
}

static void mac_driver(Prog *pg, const char *r, const MacCase *c)
{
    const O2hConv2d *p = &c->q.p;
    int mc, mkk, P, F = p->F, add = c->q.add;
    mac_dims(c, &mc, &mkk, &P);
    int xw = mc * mkk;
    drv(pg, "\nvoid %s_mac_run(const int8_t in[%d][%d], int8_t out[%d][%d]", r, P, xw, P, F);
    if (add)
        drv(pg, ", const int8_t skip[%d][%d]", P, F);
    drv(pg, ");\nextern int64_t %s_mac_cycles;\n", r);
    if (c->window)
        drv(pg, "void %sw_window_run(const int8_t in[%d][%d], int8_t out[%d][%d]);\nextern int64_t %sw_window_cycles;\n",
            r, p->H * p->W, p->C, P, xw, r);
    drv(pg, "static void run_%s(void)\n{\n    static int8_t win[%d][%d], y[%d][%d];\n", r, P, xw, P, F);
    if (c->window)
        drv(pg, "    static int8_t x[%d][%d];\n    tpl_load(\"%s.x\", x, sizeof x);\n"
                "    %sw_window_run((const int8_t (*)[%d])x, win);\n",
            p->H * p->W, p->C, r, r, p->C);
    else
        drv(pg, "    tpl_load(\"%s.x\", win, sizeof win);\n", r);
    if (add)
        drv(pg, "    static int8_t s[%d][%d];\n    tpl_load(\"%s.s\", s, sizeof s);\n"
                "    %s_mac_run((const int8_t (*)[%d])win, y, (const int8_t (*)[%d])s);\n",
            P, F, r, r, xw, F);
    else
        drv(pg, "    %s_mac_run((const int8_t (*)[%d])win, y);\n", r, xw);
    if (c->window)
        drv(pg, "    int64_t cyc[] = {%sw_window_cycles, %s_mac_cycles};\n", r, r);
    else
        drv(pg, "    int64_t cyc[] = {%s_mac_cycles};\n", r);
    drv(pg, "    tpl_save(\"%s.out\", y, sizeof y, cyc, %d);\n}\n", r, c->window ? 2 : 1);
}

/* random input (and skip) files, the runtime's result as the expectation */
static void mac_data(Prog *pg, Run *r, const ConvQ *q, int P)
{
    const O2hConv2d *p = &q->p;
    int64_t nx = (int64_t)p->N * p->H * p->W * p->C, ny = (int64_t)P * p->F;
    int8_t *x = xcalloc(nx), *s = xcalloc(ny);
    rnd_bytes(x, nx);
    rnd_bytes(s, ny);
    r->want = xcalloc(ny);
    r->n = ny;
    conv_ref(q, x, s, r->want);
    char file[64];
    snprintf(file, sizeof file, "%s.x", r->name);
    spit(pg->dir, file, x, (size_t)nx);
    snprintf(file, sizeof file, "%s.s", r->name);
    spit(pg->dir, file, s, (size_t)ny);
    free(x);
    free(s);
}

static void mac_case(Prog *pg, const MacCase *c)
{
    const ConvQ *q = &c->q;
    const O2hConv2d *p = &q->p;
    char geo[200], wpfx[24], rom[48];
    conv_what(geo, sizeof geo, q);
    Run *r = prog_run(pg, "%s: %s, pa %d pb %d%s%s", c->what, geo, c->pa, c->pb,
                      c->window_as_is ? ", sesl_window as is" : "", c->mac_as_is ? ", sesl_mac as is" : "");
    int mc, mkk, P, fail = 0;
    mac_dims(c, &mc, &mkk, &P);
    mac_data(pg, r, q, P);
    PlanGeom g = conv_geom(p);
    snprintf(wpfx, sizeof wpfx, "%sw", r->name);
    if (c->window) {
        Params ps = {0};
        window_params(&ps, &g, q->xzero);
        if (c->window_as_is)
            as_is(pg, "sesl_window", wpfx, window_ext);
        else
            fail |= instance(pg, "sesl_window", wpfx, &ps);
        run_counter(r, "window_cycles", plan_ln_sesl_window(&g));
    }
    if (c->mac_as_is) {
        as_is(pg, "sesl_mac", r->name, (const char *const[]){"mac_run", "mac_cycles", NULL});
    } else {
        Params ps = {0};
        snprintf(rom, sizeof rom, "\"%s.rom.h\"", r->name);
        mac_rom(pg, r->name, q, c->pa, c->pb);
        mac_params(&ps, c, rom);
        fail |= instance(pg, "sesl_mac", r->name, &ps);
    }
    run_counter(r, "mac_cycles", plan_ln_sesl_mac(P, p->F, conv_b(q), c->pa, c->pb));
    if (fail)
        r->dead = 1;    /* reported by instance() */
    else
        mac_driver(pg, r->name, c);
}

enum { MC_CONV, MC_DILATED, MC_GROUPED, MC_DW, MC_DW_MULT, MC_PW, MC_PW_STRIDED, MC_FC_MAP, MC_FC_ROWS, MC_N };

static const struct {
    const char *what;
    int n;
} mac_classes[MC_N] = {
    {"conv", 6},      {"dilated conv", 3}, {"grouped conv", 3},  {"depthwise", 3}, {"depthwise x2/x3", 3},
    {"pointwise", 3}, {"strided 1x1", 2},  {"FC over a map", 3}, {"FC rows", 2},
};

static void mac_random(MacCase *c, int cls)
{
    memset(c, 0, sizeof *c);
    c->what = mac_classes[cls].what;
    O2hConv2d *p = &c->q.p;
    p->N = p->G = 1;
    p->KH = p->KW = p->SH = p->SW = p->DH = p->DW = 1;
    c->window = 1;
    switch (cls) {
    case MC_CONV: rnd_window(p, 4, 3, 1), p->C = rnd(1, 8), p->F = rnd(1, 12); break;
    case MC_DILATED: rnd_window(p, 3, 2, 3), p->C = rnd(1, 6), p->F = rnd(1, 8); break;
    case MC_GROUPED:
        rnd_window(p, 3, 2, 2), p->G = rnd(2, 4);
        p->C = p->G * rnd(1, 3), p->F = p->G * rnd(1, 3);
        break;
    case MC_DW: rnd_window(p, 5, 2, 2), p->C = p->G = p->F = rnd(2, 12); break;
    case MC_DW_MULT: rnd_window(p, 3, 2, 1), p->C = p->G = rnd(1, 6), p->F = p->C * rnd(2, 3); break;
    case MC_PW: p->H = rnd(1, 6), p->W = rnd(1, 6), p->C = rnd(1, 24), p->F = rnd(1, 16), c->window = 0; break;
    case MC_PW_STRIDED: p->SH = rnd(1, 3), p->SW = rnd(2, 3), p->H = rnd(1, 8), p->W = rnd(1, 8), p->C = rnd(1, 8), p->F = rnd(1, 8); break;
    case MC_FC_MAP:
        c->q.fc = 1, p->H = p->KH = rnd(1, 4), p->W = p->KW = rnd(1, 4);
        p->C = rnd(1, 6), p->F = rnd(1, 12);
        break;
    default:   /* FC rows: a batch of vectors, no window */
        c->q.fc = 1, c->window = 0, p->N = rnd(1, 6), p->H = p->W = 1, p->C = rnd(1, 48), p->F = rnd(1, 16);
        break;
    }
    conv_consts(&c->q, one_in(3), one_in(3));
    c->pa = unroll(p->F);
    c->pb = unroll(conv_b(&c->q));
}

/* sesl_window as it is, with a specialized sesl_mac behind it */
static void mac_default_window(MacCase *c)
{
    char *t = template_text("sesl_window.c");
    memset(c, 0, sizeof *c);
    c->what = "default window";
    O2hConv2d *p = &c->q.p;
    const char *names[] = {"C", "H", "W", "KH", "KW", "SH", "SW", "DH", "DW", "PT", "PL", "PB", "PR"};
    int *f[] = {&p->C, &p->H, &p->W, &p->KH, &p->KW, &p->SH, &p->SW, &p->DH, &p->DW, &p->PT, &p->PL, &p->PB, &p->PR};
    for (int i = 0; i < 13; i++)
        *f[i] = tpl_param(t, names[i]);
    p->N = p->G = 1, p->F = rnd(1, 8);
    conv_consts(&c->q, 1, 1);
    c->q.xzero = tpl_param(t, "PAD");
    c->window = c->window_as_is = 1;
    c->pa = unroll(p->F), c->pb = unroll(conv_b(&c->q));
    free(t);
}

/* sesl_mac as it is (its ROM): P windows fed directly, each a KK x 1 x C
 * map, so the reference is a conv over a batch of P such maps */
static void mac_default_mac(MacCase *c)
{
    char *t = template_text("sesl_mac.c"), *rom = template_text("sesl_mac.rom.h");
    memset(c, 0, sizeof *c);
    c->what = "default mac";
    c->mac_as_is = 1;
    ConvQ *q = &c->q;
    O2hConv2d *p = &q->p;
    p->C = tpl_param(t, "C"), p->F = tpl_param(t, "F"), p->G = tpl_param(t, "G");
    p->N = tpl_param(t, "P"), p->H = p->KH = tpl_param(t, "KK"), p->W = p->KW = 1;
    p->SH = p->SW = p->DH = p->DW = 1;
    c->pa = tpl_param(t, "PA"), c->pb = tpl_param(t, "PB");
    q->zero = tpl_param(t, "ZERO"), q->lo = tpl_param(t, "LO"), q->hi = tpl_param(t, "HI");
    q->add = tpl_param(t, "ADD"), q->lut = tpl_param(t, "LUT"), q->add_first = 1;
    q->addq = (O2hEltQ){tpl_param(t, "ADD_ZA"), tpl_param(t, "ADD_ZB"), tpl_param(t, "ADD_MA"), tpl_param(t, "ADD_MB"),
                        tpl_param(t, "ADD_SH"), tpl_param(t, "ADD_ZERO"), tpl_param(t, "ADD_LO"), tpl_param(t, "ADD_HI")};
    conv_alloc(q);
    int b = conv_b(q), nf = cdiv(p->F, c->pa), nr = cdiv(b, c->pb), n = nf * nr * c->pa * c->pb;
    int32_t *w = xcalloc(4 * (int64_t)n), v[3][256], lut[256];
    CHECK_EQ_INT(rom_ints(rom, "O2H_ROM_WEIGHTS", w, n), n);
    const char *vn[] = {"O2H_ROM_BIAS", "O2H_ROM_MULT", "O2H_ROM_SHIFT"};
    for (int k = 0; k < 3; k++)
        CHECK_EQ_INT(rom_ints(rom, vn[k], v[k], 256), nf * c->pa);
    CHECK_EQ_INT(rom_ints(rom, "O2H_ROM_LUT", lut, 256), 256);
    int cg = p->C / p->G, kk = p->KH * p->KW;
    for (int f = 0; f < p->F; f++) {
        for (int tt = 0; tt < b; tt++)
            q->w[((int64_t)f * cg + tt % cg) * kk + tt / cg] =
                (int8_t)w[(((f / c->pa) * nr + tt / c->pb) * c->pa + f % c->pa) * c->pb + tt % c->pb];
        q->bias[f] = v[0][f], q->mult[f] = v[1][f], q->shift[f] = (uint8_t)v[2][f];
    }
    for (int i = 0; i < 256; i++)
        q->table[i] = (int8_t)lut[i];
    free(w);
    free(t);
    free(rom);
}

static void test_sesl_mac(void)
{
    Prog *pg = prog_begin("sesl_mac");
    MacCase c;
    mac_default_window(&c);
    mac_case(pg, &c);
    conv_free(&c.q);
    mac_default_mac(&c);
    mac_case(pg, &c);
    conv_free(&c.q);
    for (int cls = 0; cls < MC_N; cls++)
        for (int i = 0; i < mac_classes[cls].n; i++) {
            mac_random(&c, cls);
            mac_case(pg, &c);
            conv_free(&c.q);
        }
    prog_end(pg);
}

/* ================================================================ pools */

enum { POOL_MAX, POOL_AVG, POOL_GMAX, POOL_GAVG };

typedef struct {
    int mode;
    O2hPool2d p;              /* N = 1, explicit pads; HO, WO as the frontend computes them */
    int ceil;                 /* ceil_mode */
    int32_t xzero, zero, lo, hi;
    int n_rq;                 /* average: one multiplier per tap count 1..KH*KW (global: one) */
    int32_t mult[64];
    uint8_t shift[64];
} PoolQ;

static int pool_is_global(const PoolQ *q)
{
    return q->mode >= POOL_GMAX;
}

static int pool_kk(const PoolQ *q)
{
    return pool_is_global(q) ? 1 : q->p.KH * q->p.KW;
}

/* output size on one axis, ONNX with ceil_mode as frontend/import_pool.c:
 * with ceil_mode the last window may not start in the end padding alone */
static int pool_out(int in, int k, int s, int d, int p0, int p1, int ceil)
{
    int span = in + p0 + p1 - ((k - 1) * d + 1);
    int o = (ceil ? (span + s - 1) / s : span / s) + 1;
    return ceil && (o - 1) * s >= in + p0 ? o - 1 : o;
}

/* random constants; the output size from the geometry in q->p */
static void pool_consts(PoolQ *q)
{
    O2hPool2d *p = &q->p;
    if (pool_is_global(q)) {
        p->HO = p->WO = 1;
    } else {
        p->HO = pool_out(p->H, p->KH, p->SH, p->DH, p->PT, p->PB, q->ceil);
        p->WO = pool_out(p->W, p->KW, p->SW, p->DW, p->PL, p->PR, q->ceil);
    }
    q->xzero = rnd(-128, 127);
    out_range(&q->zero, &q->lo, &q->hi);
    q->n_rq = pool_kk(q);
    for (int i = 0; i < q->n_rq; i++)
        rq_pick(&q->mult[i], &q->shift[i], pool_is_global(q) ? p->H * p->W : i + 1);
}

/* the host's pool (runtime kernels on NCHW; x, y NHWC) */
static void pool_ref(const PoolQ *q, const int8_t *x, int8_t *y)
{
    const O2hPool2d *p = &q->p;
    int hw = p->H * p->W, hwo = pool_is_global(q) ? 1 : p->HO * p->WO;
    int8_t *xn = xcalloc((int64_t)hw * p->C), *yn = xcalloc((int64_t)hwo * p->C);
    to_nchw(x, xn, 1, hw, p->C);
    O2hRequant rq = {q->n_rq, q->mult, q->shift, q->zero, q->lo, q->hi};
    if (q->mode == POOL_MAX)
        o2h_maxpool2d_s8(p, xn, yn, q->lo);
    else if (q->mode == POOL_AVG)
        o2h_avgpool2d_s8(p, q->xzero, &rq, xn, yn);
    else if (q->mode == POOL_GMAX)
        o2h_global_maxpool_s8(p->C, hw, xn, yn);
    else
        o2h_global_avgpool_s8(p->C, hw, q->xzero, &rq, xn, yn);
    to_nhwc(yn, y, 1, hwo, p->C);
    free(xn);
    free(yn);
}

static PlanGeom pool_geom(const PoolQ *q)
{
    const O2hPool2d *p = &q->p;
    if (pool_is_global(q))
        return (PlanGeom){p->H, p->W, p->C, 1, 1, p->C, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1};
    return (PlanGeom){p->H, p->W, p->C, p->HO, p->WO, p->C, p->KH, p->KW, p->SH,
                      p->SW, p->DH, p->DW, p->PT, p->PL, p->PB, p->PR, p->C};
}

/* the window generator's geometry: bottom/right pads grown so that every
 * output window fits (ceil mode), as the HLS emitter does */
static PlanGeom pool_window_geom(const PoolQ *q)
{
    PlanGeom g = pool_geom(q);
    int64_t need_h = (g.ho - 1) * g.sh + (g.kh - 1) * g.dh + 1 - g.h - g.pt;
    int64_t need_w = (g.wo - 1) * g.sw + (g.kw - 1) * g.dw + 1 - g.w - g.pl;
    g.pb = need_h > g.pb ? need_h : g.pb;
    g.pr = need_w > g.pr ? need_w : g.pr;
    return g;
}

static void pool_what(char *s, size_t n, const PoolQ *q)
{
    static const char *mode[] = {"max", "avg", "global max", "global avg"};
    const O2hPool2d *p = &q->p;
    snprintf(s, n, "%s C%d %dx%d -> %dx%d K%dx%d S%dx%d D%dx%d pads %d,%d,%d,%d%s%s", mode[q->mode], p->C, p->H, p->W,
             p->HO, p->WO, p->KH, p->KW, p->SH, p->SW, p->DH, p->DW, p->PT, p->PL, p->PB, p->PR,
             q->ceil ? " ceil" : "", p->count_include_pad ? " count_include_pad" : "");
}

/* ================================================================ SESL pools: sesl_window + sesl_pool */

typedef struct {
    const char *what;
    PoolQ q;
    int pa, pbt, pad;         /* unroll; the window's pad code (pools ignore it) */
    int pool_as_is, window_as_is;
} PoolCase;

static void pool_params(Params *ps, const PoolCase *c, const char *rom)
{
    const PoolQ *q = &c->q;
    const O2hPool2d *p = &q->p;
    const char *names[] = {"MODE", "C",  "H",  "W",  "HO", "WO", "KH", "KW",          "SH", "SW",  "DH",    "DW",
                           "PT",   "PL", "PB", "PR", "PA", "PBT", "INCLUDE_PAD", "XZERO", "ZERO", "LO", "HI"};
    const int64_t v[] = {q->mode, p->C,  p->H,  p->W,  p->HO, p->WO, p->KH,  p->KW,
                         p->SH,   p->SW, p->DH, p->DW, p->PT, p->PL, p->PB,  p->PR,
                         c->pa,   c->pbt, p->count_include_pad, q->xzero, q->zero, q->lo, q->hi};
    for (int i = 0; i < 23; i++)
        par(ps, names[i], v[i]);
    par_s(ps, "ROM", rom);
}

static void pool_rom(Prog *pg, const char *name, const PoolQ *q)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s.rom.h", pg->dir, name);
    FILE *o = fopen(path, "w");
    if (!o)
        abort();
    int n = pool_kk(q);
    int32_t m[64] = {0}, sh[64] = {0};
    for (int i = 0; i < n && (q->mode == POOL_AVG || q->mode == POOL_GAVG); i++)
        m[i] = q->mult[i], sh[i] = q->shift[i];
    fprintf(o, "/* ROM of run %s (test_hls_templates) */\n", name);
    rom_def(o, "O2H_ROM_MULT", m, &n, 1);
    rom_def(o, "O2H_ROM_SHIFT", sh, &n, 1);
    fclose(o);
}

static void pool_driver(Prog *pg, const char *r, const PoolCase *c)
{
    const O2hPool2d *p = &c->q.p;
    int global = pool_is_global(&c->q), hw = p->H * p->W, P = global ? 1 : p->HO * p->WO;
    int xw = pool_kk(&c->q) * p->C;
    drv(pg, "\nvoid %s_pool_run(const int8_t in[%d][%d], int8_t out[%d][%d]);\nextern int64_t %s_pool_cycles;\n", r,
        global ? hw : P, global ? p->C : xw, P, p->C, r);
    drv(pg, "static void run_%s(void)\n{\n    static int8_t x[%d][%d], y[%d][%d];\n    tpl_load(\"%s.x\", x, sizeof x);\n",
        r, hw, p->C, P, p->C, r);
    if (global) {
        drv(pg, "    %s_pool_run((const int8_t (*)[%d])x, y);\n    int64_t cyc[] = {%s_pool_cycles};\n", r, p->C, r);
    } else {
        drv(pg, "void %sw_window_run(const int8_t in[%d][%d], int8_t out[%d][%d]);\n", r, hw, p->C, P, xw);
        drv(pg, "    extern int64_t %sw_window_cycles;\n    static int8_t win[%d][%d];\n", r, P, xw);
        drv(pg, "    %sw_window_run((const int8_t (*)[%d])x, win);\n    %s_pool_run((const int8_t (*)[%d])win, y);\n",
            r, p->C, r, xw);
        drv(pg, "    int64_t cyc[] = {%sw_window_cycles, %s_pool_cycles};\n", r, r);
    }
    drv(pg, "    tpl_save(\"%s.out\", y, sizeof y, cyc, %d);\n}\n", r, global ? 1 : 2);
}

static void pool_case(Prog *pg, const PoolCase *c)
{
    const PoolQ *q = &c->q;
    char geo[200], grown[64] = "", file[64], wpfx[24], rom[48];
    pool_what(geo, sizeof geo, q);
    PlanGeom wg = pool_window_geom(q), g = pool_geom(q);
    if (!pool_is_global(q) && (wg.pb > q->p.PB || wg.pr > q->p.PR))
        snprintf(grown, sizeof grown, ", window pads %lld,%lld", (long long)wg.pb, (long long)wg.pr);
    Run *r = prog_run(pg, "%s: %s%s, pa %d pb %d%s%s", c->what, geo, grown, c->pa, c->pbt,
                      c->window_as_is ? ", sesl_window as is" : "", c->pool_as_is ? ", sesl_pool as is" : "");
    int hw = q->p.H * q->p.W, global = pool_is_global(q);
    int64_t ny = (int64_t)(global ? 1 : q->p.HO * q->p.WO) * q->p.C;
    int8_t *x = xcalloc((int64_t)hw * q->p.C);
    rnd_bytes(x, (int64_t)hw * q->p.C);
    r->want = xcalloc(ny);
    r->n = ny;
    pool_ref(q, x, r->want);
    snprintf(file, sizeof file, "%s.x", r->name);
    spit(pg->dir, file, x, (size_t)hw * (size_t)q->p.C);
    free(x);
    int fail = 0;
    if (!global) {
        snprintf(wpfx, sizeof wpfx, "%sw", r->name);
        Params ps = {0};
        window_params(&ps, &wg, c->pad);
        if (c->window_as_is)
            as_is(pg, "sesl_window", wpfx, window_ext);
        else
            fail |= instance(pg, "sesl_window", wpfx, &ps);
        run_counter(r, "window_cycles", plan_ln_sesl_window(&wg));
    }
    if (c->pool_as_is) {
        as_is(pg, "sesl_pool", r->name, (const char *const[]){"pool_run", "pool_cycles", NULL});
    } else {
        Params ps = {0};
        snprintf(rom, sizeof rom, "\"%s.rom.h\"", r->name);
        pool_rom(pg, r->name, q);
        pool_params(&ps, c, rom);
        fail |= instance(pg, "sesl_pool", r->name, &ps);
    }
    run_counter(r, "pool_cycles", plan_ln_sesl_pool(&g, global, c->pa, c->pbt));
    r->dead = fail;
    if (!fail)
        pool_driver(pg, r->name, c);
}

static const struct {
    const char *what;
    int mode, ceil, include_pad, n;
} pool_classes[] = {
    {"max", POOL_MAX, 0, 0, 3},          {"max, ceil mode", POOL_MAX, 1, 0, 3},
    {"avg", POOL_AVG, 0, 0, 3},          {"avg, count_include_pad", POOL_AVG, 0, 1, 3},
    {"avg, ceil mode", POOL_AVG, 1, 0, 3}, {"avg, ceil mode, count_include_pad", POOL_AVG, 1, 1, 3},
    {"global max", POOL_GMAX, 0, 0, 2},  {"global avg", POOL_GAVG, 0, 0, 3},
};

static void pool_random(PoolCase *c, int cls)
{
    memset(c, 0, sizeof *c);
    c->what = pool_classes[cls].what;
    PoolQ *q = &c->q;
    O2hPool2d *p = &q->p;
    q->mode = pool_classes[cls].mode, q->ceil = pool_classes[cls].ceil;
    p->N = 1, p->C = rnd(1, 10), p->count_include_pad = pool_classes[cls].include_pad;
    if (pool_is_global(q)) {
        p->H = rnd(1, 7), p->W = rnd(1, 7), p->C = rnd(1, 20);
        p->KH = p->KW = p->SH = p->SW = p->DH = p->DW = 1;
    } else {
        O2hConv2d w = {0};
        rnd_window(&w, 4, 3, one_in(3) ? 2 : 1);
        p->H = w.H, p->W = w.W, p->KH = w.KH, p->KW = w.KW, p->SH = w.SH, p->SW = w.SW, p->DH = w.DH, p->DW = w.DW;
        p->PT = w.PT, p->PL = w.PL, p->PB = w.PB, p->PR = w.PR;
        if (q->ceil) {   /* windows and strides that leave a partial last window, mostly */
            p->KH = rnd(2, 4), p->KW = rnd(2, 4), p->SH = rnd(2, p->KH), p->SW = rnd(2, p->KW), p->DH = p->DW = 1;
            p->H = rnd(p->KH, p->KH + 7), p->W = rnd(p->KW, p->KW + 7);
            p->PT = rnd(0, 1), p->PL = rnd(0, 1), p->PB = rnd(0, 1), p->PR = rnd(0, 1);
        }
    }
    pool_consts(q);
    c->pa = unroll(p->C), c->pbt = unroll(pool_kk(q)), c->pad = rnd(-128, 127);
}

/* sesl_window and sesl_pool as they are: their defaults describe one
 * layer (the window is specialized if they ever stop agreeing) */
static void pool_default(PoolCase *c)
{
    char *t = template_text("sesl_pool.c"), *rom = template_text("sesl_pool.rom.h");
    char *tw = template_text("sesl_window.c");
    memset(c, 0, sizeof *c);
    c->what = "defaults";
    c->pool_as_is = 1;
    PoolQ *q = &c->q;
    O2hPool2d *p = &q->p;
    const char *names[] = {"C", "H", "W", "KH", "KW", "SH", "SW", "DH", "DW", "PT", "PL", "PB", "PR"};
    int *f[] = {&p->C, &p->H, &p->W, &p->KH, &p->KW, &p->SH, &p->SW, &p->DH, &p->DW, &p->PT, &p->PL, &p->PB, &p->PR};
    int same = 1;
    for (int i = 0; i < 13; i++)
        *f[i] = tpl_param(t, names[i]), same &= *f[i] == tpl_param(tw, names[i]);
    p->N = 1, q->mode = tpl_param(t, "MODE"), p->count_include_pad = tpl_param(t, "INCLUDE_PAD");
    p->HO = tpl_param(t, "HO"), p->WO = tpl_param(t, "WO");
    c->pa = tpl_param(t, "PA"), c->pbt = tpl_param(t, "PBT"), c->pad = tpl_param(tw, "PAD");
    q->xzero = tpl_param(t, "XZERO"), q->zero = tpl_param(t, "ZERO"), q->lo = tpl_param(t, "LO"), q->hi = tpl_param(t, "HI");
    q->n_rq = pool_kk(q);
    int32_t m[64], sh[64];
    CHECK_EQ_INT(rom_ints(rom, "O2H_ROM_MULT", m, 64), q->n_rq);
    CHECK_EQ_INT(rom_ints(rom, "O2H_ROM_SHIFT", sh, 64), q->n_rq);
    for (int i = 0; i < q->n_rq && i < 64; i++)
        q->mult[i] = m[i], q->shift[i] = (uint8_t)sh[i];
    PlanGeom wg = pool_window_geom(q);
    c->window_as_is = same && wg.pb == p->PB && wg.pr == p->PR;
    free(t);
    free(tw);
    free(rom);
}

static void test_sesl_pool(void)
{
    Prog *pg = prog_begin("sesl_pool");
    PoolCase c;
    pool_default(&c);
    pool_case(pg, &c);
    for (size_t cls = 0; cls < sizeof pool_classes / sizeof *pool_classes; cls++)
        for (int i = 0; i < pool_classes[cls].n; i++) {
            pool_random(&c, (int)cls);
            pool_case(pg, &c);
        }
    prog_end(pg);
}

/* ================================================================ element-wise */

enum { ELT_ADD, ELT_MUL, ELT_LUT, ELT_RESCALE, ELT_CONCAT, ELT_MOVE };   /* sesl_eltwise's O2H_P_MODE */

typedef struct {
    int op;
    int h, w, c;              /* output map (concat: all channels) */
    IrChanMove mv;            /* move: output channel o reads input channel coff + (shuffle of o) * step */
    int bvec;                 /* mul: the second input is one per-channel vector */
    O2hEltQ e;                /* add, mul; the output zero point and clamp of every op */
    int n_in, ch[3], copy[3]; /* concat inputs (rescale: input 0): channels, copied as they are */
    int32_t zx[3], m[3];      /* else rescaled: zero point, multiplier, shift */
    uint8_t sh[3];
    int8_t table[256];
} EltQ;

static int elt_binary(const EltQ *q)
{
    return q->op == ELT_ADD || q->op == ELT_MUL || q->op == ELT_CONCAT;
}

/* bytes of input i (NHWC) */
static int64_t elt_in_bytes(const EltQ *q, int i)
{
    int64_t hw = (int64_t)q->h * q->w;
    if (q->op == ELT_CONCAT)
        return hw * q->ch[i];
    if (q->op == ELT_MOVE)
        return hw * q->mv.c_in;
    return i == 1 && q->bvec ? q->c : hw * q->c;
}

/* random constants for op, map and inputs as set in q */
static void elt_consts(EltQ *q, int sub)
{
    add_pick(&q->e, sub);
    if (q->op == ELT_MUL) {   /* (a - za)(b - zb) up to 2^16: a factor of about 1/100 */
        uint8_t sh;
        rq_pick(&q->e.ma, &sh, 40 + rnd(0, 200));
        q->e.mb = 0, q->e.shift = sh;
    }
    for (int i = 0; i < 3; i++) {
        uint8_t sh;
        q->zx[i] = rnd(-128, 127), q->copy[i] = one_in(2);
        rq_pick(&q->m[i], &sh, rnd(1, 3));
        q->sh[i] = sh;
    }
    rnd_bytes(q->table, 256);
}

/* a channel move on the host: a Slice of channels (o2h_slice) or, for a
 * shuffle, a Gather of them (o2h_gather), on NCHW codes */
static void move_ref(const EltQ *q, const int8_t *x, int8_t *y)
{
    const IrChanMove *m = &q->mv;
    int64_t hw = (int64_t)q->h * q->w, idx[64];
    if (m->groups == 1) {
        const int64_t in[3] = {1, m->c_in, hw}, out[3] = {1, m->count, hw}, st[3] = {0, m->coff, 0},
                      sp[3] = {1, m->step, 1};
        o2h_slice(1, 3, in, out, st, sp, x, y);
        return;
    }
    for (int64_t o = 0; o < m->count; o++)
        idx[o] = o % m->groups * (m->count / m->groups) + o / m->groups;
    o2h_gather(1, 1, m->c_in, hw, idx, m->count, x, y);
}

/* the host's element-wise layer (runtime kernels; NCHW where it matters) */
static void elt_ref(const EltQ *q, int8_t *const *in, int8_t *y)
{
    int hw = q->h * q->w, c = q->c;
    int64_t n = (int64_t)hw * c;
    int8_t *xs[3] = {NULL, NULL, NULL}, *yn = xcalloc(n);
    O2hRequant rq[3];
    for (int i = 0; i < 3; i++)
        rq[i] = (O2hRequant){1, q->copy[i] && q->op == ELT_CONCAT ? NULL : &q->m[i], &q->sh[i], q->e.zero, q->e.lo, q->e.hi};
    switch (q->op) {
    case ELT_ADD:
    case ELT_MUL: {
        O2hBroadcast bc = {2, {c, hw}, {c, q->bvec ? 1 : hw}, {c, hw}};
        xs[0] = xcalloc(n), xs[1] = xcalloc(n);
        to_nchw(in[0], xs[0], 1, hw, c);
        to_nchw(in[1], xs[1], 1, q->bvec ? 1 : hw, c);
        (q->op == ELT_ADD ? o2h_add_s8 : o2h_mul_s8)(&bc, &q->e, xs[0], xs[1], yn);
        break;
    }
    case ELT_LUT:
        xs[0] = xcalloc(n);
        to_nchw(in[0], xs[0], 1, hw, c);
        o2h_lut_s8(xs[0], yn, (size_t)n, q->table);
        break;
    case ELT_RESCALE:
        xs[0] = xcalloc(n);
        to_nchw(in[0], xs[0], 1, hw, c);
        o2h_rescale_s8(xs[0], yn, (size_t)n, q->zx[0], &rq[0]);
        break;
    case ELT_MOVE:
        xs[0] = xcalloc(elt_in_bytes(q, 0));
        to_nchw(in[0], xs[0], 1, hw, (int)q->mv.c_in);
        move_ref(q, xs[0], yn);
        break;
    default: {
        int64_t dims[3];
        for (int i = 0; i < q->n_in; i++) {
            xs[i] = xcalloc(elt_in_bytes(q, i));
            to_nchw(in[i], xs[i], 1, hw, q->ch[i]);
            dims[i] = q->ch[i];
        }
        o2h_concat_s8(q->n_in, (const int8_t *const *)xs, dims, 1, hw, q->zx, rq, yn);
        break;
    }
    }
    to_nhwc(yn, y, 1, hw, c);
    for (int i = 0; i < 3; i++)
        free(xs[i]);
    free(yn);
}

static void elt_what(char *s, size_t n, const EltQ *q)
{
    static const char *op[] = {"add", "mul", "table", "rescale", "concat", "move"};
    int k = snprintf(s, n, "%s %dx%dx%d", op[q->op], q->h, q->w, q->c);
    if (q->op == ELT_MOVE)
        k += snprintf(s + k, n - (size_t)k, " of %lld channels from %lld by %lld, %lld groups", (long long)q->mv.c_in,
                      (long long)q->mv.coff, (long long)q->mv.step, (long long)q->mv.groups);
    if (q->op == ELT_ADD && q->e.mb < 0)
        k += snprintf(s + k, n - (size_t)k, " (sub)");
    if (q->bvec)
        k += snprintf(s + k, n - (size_t)k, " by a channel vector");
    for (int i = 0; q->op == ELT_CONCAT && i < q->n_in; i++)
        k += snprintf(s + k, n - (size_t)k, " %s%d", q->copy[i] ? "copy" : "rescale", q->ch[i]);
}

/* ================================================================ SESL element-wise: sesl_eltwise */

typedef struct {
    const char *what;
    EltQ q;
    int pa, as_is;
} EltCase;

static void elt_params(Params *ps, const EltCase *c, const char *rom)
{
    const EltQ *q = &c->q;
    const O2hEltQ *e = &q->e;
    int concat = q->op == ELT_CONCAT, rs = q->op == ELT_RESCALE;
    int64_t za = concat || rs ? q->zx[0] : q->op == ELT_LUT ? 0 : e->a_zero;
    int64_t ma = concat || rs ? q->m[0] : q->op == ELT_LUT ? 0 : e->ma;
    int64_t sh = concat || rs ? q->sh[0] : q->op == ELT_LUT ? 0 : e->shift;
    const char *names[] = {"MODE", "P", "C", "CB", "BVEC", "PA", "ZA", "MA", "ZB", "MB", "SH", "SHB",
                           "COPYA", "COPYB", "ZERO", "LO", "HI"};
    const int64_t v[] = {q->op, q->h * q->w, q->c, concat ? q->ch[1] : q->c, q->bvec, c->pa, za, ma,
                         concat ? q->zx[1] : q->op == ELT_ADD || q->op == ELT_MUL ? e->b_zero : 0,
                         concat ? q->m[1] : q->op == ELT_ADD ? e->mb : 0, sh, concat ? q->sh[1] : 0,
                         concat && q->copy[0], concat && q->copy[1], e->zero, e->lo, e->hi};
    for (int i = 0; i < 17; i++)
        par(ps, names[i], v[i]);
    const char *mnames[] = {"CIN", "COFF", "CSTEP", "CGROUPS"};
    const int64_t mv[] = {q->mv.c_in, q->mv.coff, q->mv.step, q->mv.groups};
    for (int i = 0; i < 4; i++)
        par(ps, mnames[i], mv[i]);
    par_s(ps, "ROM", rom);
}

static void elt_driver(Prog *pg, const char *r, const EltCase *c)
{
    const EltQ *q = &c->q;
    int P = q->h * q->w, bin = elt_binary(q);
    int ca = q->op == ELT_CONCAT ? q->ch[0] : q->op == ELT_MOVE ? (int)q->mv.c_in : q->c;
    int cb = q->op == ELT_CONCAT ? q->ch[1] : q->c, pb = q->bvec ? 1 : P;
    if (bin)
        drv(pg, "\nvoid %s_eltwise_run(const int8_t in_a[%d][%d], const int8_t in_b[%d][%d], int8_t out[%d][%d]);\n", r,
            P, ca, pb, cb, P, q->c);
    else
        drv(pg, "\nvoid %s_eltwise_run(const int8_t in_a[%d][%d], int8_t out[%d][%d]);\n", r, P, ca, P, q->c);
    drv(pg, "extern int64_t %s_eltwise_cycles;\nstatic void run_%s(void)\n{\n", r, r);
    drv(pg, "    static int8_t a[%d][%d], y[%d][%d];\n    tpl_load(\"%s.a\", a, sizeof a);\n", P, ca, P, q->c, r);
    if (bin)
        drv(pg, "    static int8_t b[%d][%d];\n    tpl_load(\"%s.b\", b, sizeof b);\n"
                "    %s_eltwise_run((const int8_t (*)[%d])a, (const int8_t (*)[%d])b, y);\n", pb, cb, r, r, ca, cb);
    else
        drv(pg, "    %s_eltwise_run((const int8_t (*)[%d])a, y);\n", r, ca);
    drv(pg, "    int64_t cyc[] = {%s_eltwise_cycles};\n    tpl_save(\"%s.out\", y, sizeof y, cyc, 1);\n}\n", r, r);
}

static void elt_case(Prog *pg, const EltCase *c)
{
    const EltQ *q = &c->q;
    char geo[200], file[64], rom[48];
    elt_what(geo, sizeof geo, q);
    Run *r = prog_run(pg, "%s: %s, pa %d%s", c->what, geo, c->pa, c->as_is ? ", as is" : "");
    int8_t *in[3] = {NULL, NULL, NULL};
    for (int i = 0; i < (q->op == ELT_CONCAT ? q->n_in : elt_binary(q) ? 2 : 1); i++) {
        in[i] = xcalloc(elt_in_bytes(q, i));
        rnd_bytes(in[i], elt_in_bytes(q, i));
        snprintf(file, sizeof file, "%s.%c", r->name, 'a' + i);
        spit(pg->dir, file, in[i], (size_t)elt_in_bytes(q, i));
    }
    r->n = (int64_t)q->h * q->w * q->c;
    r->want = xcalloc(r->n);
    elt_ref(q, in, r->want);
    for (int i = 0; i < 3; i++)
        free(in[i]);
    int fail = 0;
    if (c->as_is) {
        as_is(pg, "sesl_eltwise", r->name, (const char *const[]){"eltwise_run", "eltwise_cycles", NULL});
    } else {
        char path[700];
        snprintf(path, sizeof path, "%s/%s.rom.h", pg->dir, r->name);
        FILE *o = fopen(path, "w");
        if (!o)
            abort();
        rom_def8(o, "O2H_ROM_LUT", q->op == ELT_LUT ? q->table : NULL, 256);
        fclose(o);
        Params ps = {0};
        snprintf(rom, sizeof rom, "\"%s.rom.h\"", r->name);
        elt_params(&ps, c, rom);
        fail = instance(pg, "sesl_eltwise", r->name, &ps);
    }
    run_counter(r, "eltwise_cycles", plan_ln_sesl_eltwise((int64_t)q->h * q->w, q->c, c->pa));
    r->dead = fail;
    if (!fail)
        elt_driver(pg, r->name, c);
}

static const struct {
    const char *what;
    int op, sub, bvec, n;
} elt_classes[] = {
    {"add", ELT_ADD, 0, 0, 3},  {"sub", ELT_ADD, 1, 0, 2},         {"mul", ELT_MUL, 0, 0, 3},
    {"squeeze-excite scale", ELT_MUL, 0, 1, 3}, {"table", ELT_LUT, 0, 0, 2}, {"rescale", ELT_RESCALE, 0, 0, 3},
    {"concat", ELT_CONCAT, 0, 0, 4}, {"channel slice", ELT_MOVE, 0, 0, 5}, {"channel shuffle", ELT_MOVE, 1, 0, 4},
};

/* a channel move: a slice (every step-th channel from coff) or a shuffle;
 * steps and groups 1..3 and 2..4 in turn, so every run has each */
static void move_random(EltQ *q, int shuffle)
{
    static int turn;
    IrChanMove *m = &q->mv;
    turn++;
    if (shuffle) {
        int64_t g = 2 + turn % 3, k = rnd(1, 6);
        *m = (IrChanMove){g * k + rnd(0, 3), g * k, 0, 1, g};
    } else {
        int64_t n = rnd(1, 12), step = 1 + turn % 3, coff = rnd(0, 5);
        *m = (IrChanMove){coff + (n - 1) * step + 1 + rnd(0, 4), n, coff, step, 1};
    }
    q->c = (int)m->count;
}

static void elt_random(EltCase *c, int cls)
{
    memset(c, 0, sizeof *c);
    c->what = elt_classes[cls].what;
    EltQ *q = &c->q;
    q->op = elt_classes[cls].op, q->bvec = elt_classes[cls].bvec;
    q->h = rnd(1, 6), q->w = rnd(1, 6), q->c = rnd(1, 24);
    if (q->op == ELT_CONCAT) {
        q->n_in = 2, q->ch[0] = rnd(1, 12), q->ch[1] = rnd(1, 12);
        q->c = q->ch[0] + q->ch[1];
    }
    q->mv = (IrChanMove){q->c, q->c, 0, 1, 1};
    if (q->op == ELT_MOVE)
        move_random(q, elt_classes[cls].sub);
    elt_consts(q, elt_classes[cls].sub);
    c->pa = unroll(q->c);
}

/* sesl_eltwise as it is: its defaults and ROM */
static void elt_default(EltCase *c)
{
    char *t = template_text("sesl_eltwise.c"), *rom = template_text("sesl_eltwise.rom.h");
    memset(c, 0, sizeof *c);
    c->what = "defaults";
    c->as_is = 1;
    EltQ *q = &c->q;
    q->op = tpl_param(t, "MODE"), q->h = tpl_param(t, "P"), q->w = 1, q->c = tpl_param(t, "C");
    q->bvec = tpl_param(t, "BVEC"), c->pa = tpl_param(t, "PA");
    q->e = (O2hEltQ){tpl_param(t, "ZA"), tpl_param(t, "ZB"), tpl_param(t, "MA"), tpl_param(t, "MB"),
                     tpl_param(t, "SH"), tpl_param(t, "ZERO"), tpl_param(t, "LO"), tpl_param(t, "HI")};
    q->n_in = 2, q->ch[1] = tpl_param(t, "CB"), q->ch[0] = q->c - q->ch[1];
    q->zx[0] = q->e.a_zero, q->m[0] = q->e.ma, q->sh[0] = (uint8_t)q->e.shift;
    q->zx[1] = q->e.b_zero, q->m[1] = q->e.mb, q->sh[1] = (uint8_t)tpl_param(t, "SHB");
    q->copy[0] = tpl_param(t, "COPYA"), q->copy[1] = tpl_param(t, "COPYB");
    q->mv = (IrChanMove){tpl_param(t, "CIN"), q->c, tpl_param(t, "COFF"), tpl_param(t, "CSTEP"), tpl_param(t, "CGROUPS")};
    int32_t lut[256];
    CHECK_EQ_INT(rom_ints(rom, "O2H_ROM_LUT", lut, 256), 256);
    for (int i = 0; i < 256; i++)
        q->table[i] = (int8_t)lut[i];
    free(t);
    free(rom);
}

static void test_sesl_eltwise(void)
{
    Prog *pg = prog_begin("sesl_eltwise");
    EltCase c;
    elt_default(&c);
    elt_case(pg, &c);
    for (size_t cls = 0; cls < sizeof elt_classes / sizeof *elt_classes; cls++)
        for (int i = 0; i < elt_classes[cls].n; i++) {
            elt_random(&c, (int)cls);
            elt_case(pg, &c);
        }
    prog_end(pg);
}

/* ================================================================ SESL stream movers: sesl_stream */

static void stream_driver(Prog *pg, const char *n, int p, int c, int off, int off2, int n1, int n2)
{
    drv(pg, "\nvoid %s_stream_read(const int8_t *mem, int32_t off, int8_t out[%d][%d]);\n", n, p, c);
    drv(pg, "void %s_stream_write(const int8_t in[%d][%d], int8_t *mem, int32_t off);\n", n, p, c);
    drv(pg, "void %s_stream_dup(const int8_t in[%d][%d], int8_t out0[%d][%d], int8_t out1[%d][%d]);\n", n, p, c, p, c,
        p, c);
    drv(pg, "extern int64_t %s_stream_cycles;\nstatic void run_%s(void)\n{\n", n, n);
    drv(pg, "    static int8_t m[%d], s[%d][%d], y[%d], s1[%d][%d];\n    tpl_load(\"%s.m\", m, sizeof m);\n", n1, p, c,
        p * c + n2, p, c, n);
    drv(pg, "    int64_t cyc[3];\n    %s_stream_read(m, %d, s);\n    cyc[0] = %s_stream_cycles;\n", n, off, n);
    drv(pg, "    %s_stream_dup((const int8_t (*)[%d])s, (int8_t (*)[%d])y, s1);\n", n, c, c);
    drv(pg, "    cyc[1] = %s_stream_cycles - cyc[0];\n", n);
    drv(pg, "    %s_stream_write((const int8_t (*)[%d])s1, y + %d, %d);\n", n, c, p * c, off2);
    drv(pg, "    cyc[2] = %s_stream_cycles - cyc[0] - cyc[1];\n", n);
    drv(pg, "    tpl_save(\"%s.out\", y, sizeof y, cyc, 3);\n}\n", n);
}

/* reader -> duplicator -> writer, one copy of the stream saved as it is */
static void stream_case(Prog *pg, int p, int c, int beat, int keep)
{
    Run *r = prog_run(pg, "%d pixels x %d channels, beat %d%s", p, c, beat, keep ? ", as is" : "");
    int off = rnd(0, 100), off2 = rnd(0, 100), n1 = off + p * c + rnd(0, 20), n2 = off2 + p * c + rnd(0, 20);
    int8_t *mem = xcalloc(n1);
    rnd_bytes(mem, n1);
    char file[64];
    snprintf(file, sizeof file, "%s.m", r->name);
    spit(pg->dir, file, mem, (size_t)n1);
    r->n = (int64_t)p * c + n2;
    r->want = xcalloc(r->n);
    memcpy(r->want, mem + off, (size_t)p * (size_t)c);               /* the duplicator's first copy */
    memcpy(r->want + p * c + off2, mem + off, (size_t)p * (size_t)c);  /* the second, written back */
    free(mem);
    int fail = 0;
    if (keep) {
        as_is(pg, "sesl_stream", r->name,
              (const char *const[]){"stream_read", "stream_write", "stream_dup", "stream_cycles", NULL});
    } else {
        Params ps = {0};
        par(&ps, "P", p), par(&ps, "C", c), par(&ps, "BEAT", beat);
        fail = instance(pg, "sesl_stream", r->name, &ps);
    }
    run_counter(r, "stream_cycles of the reader", plan_ln_sesl_mover(p, c, beat));
    run_counter(r, "stream_cycles of the duplicator", plan_ln_sesl_dup(p));
    run_counter(r, "stream_cycles of the writer", plan_ln_sesl_mover(p, c, beat));
    r->dead = fail;
    if (!fail)
        stream_driver(pg, r->name, p, c, off, off2, n1, n2);
}

static void test_sesl_stream(void)
{
    Prog *pg = prog_begin("sesl_stream");
    char *t = template_text("sesl_stream.c");
    stream_case(pg, tpl_param(t, "P"), tpl_param(t, "C"), tpl_param(t, "BEAT"), 1);
    free(t);
    static const int beats[] = {1, 4, 8, 16, 32, 64};
    for (int i = 0; i < 6; i++)
        stream_case(pg, rnd(1, 40), rnd(1, 80), beats[i], 0);
    prog_end(pg);
}

/* ================================================================ SEML: arena, weight image, descriptors
 *
 * A SEML run is one engine instance and the descriptors the driver hands
 * it in turn, all on one feature-map arena (fm_r = fm_w, as the top passes
 * DRAM) and one weight image. Each layer runs with several band sizes
 * (the most rows that fit the engine's buffers, one row, one in between),
 * each into its own output region; the whole arena after the run must
 * equal the arena as loaded with every output region holding the runtime's
 * result (so a stray write anywhere shows). The planner's own cost of a
 * layer (plan_ln_seml_run, equal bands costed once) must give the same
 * cycles as the band-by-band model the counters are checked against. */

typedef struct {
    PlanSemlEngine e;
    int8_t *fm, *want;
    int64_t n_fm;
    uint8_t *wimg;
    int64_t n_wimg;
    int32_t *desc;              /* [n_desc][O2H_DESC_WORDS] */
    int n_desc;
    int64_t max_bands, max_tiles, max_k;   /* LOOP_TRIPCOUNT maxima over the descriptors */
    Run *r;
} Seml;

static void seml_part(Seml *s, const char *what)
{
    Run *r = s->r;
    r->part_end = realloc(r->part_end, sizeof *r->part_end * (size_t)(r->n_parts + 1));
    r->part_what = realloc(r->part_what, sizeof *r->part_what * (size_t)(r->n_parts + 1));
    if (!r->part_end || !r->part_what)
        abort();
    r->part_end[r->n_parts] = s->n_fm;
    snprintf(r->part_what[r->n_parts++], sizeof *r->part_what, "in %s", what);
}

/* n more bytes of arena, random (the same in fm and want); their offset */
static int64_t seml_alloc(Seml *s, int64_t n, const char *what)
{
    int64_t off = s->n_fm + rnd(0, 9);
    s->fm = realloc(s->fm, (size_t)(off + n));
    s->want = realloc(s->want, (size_t)(off + n));
    if (!s->fm || !s->want)
        abort();
    rnd_bytes(s->fm + s->n_fm, off + n - s->n_fm);
    memcpy(s->want + s->n_fm, s->fm + s->n_fm, (size_t)(off + n - s->n_fm));
    s->n_fm = off + n;
    seml_part(s, what);
    return off;
}

/* a map of `pixels` x c codes in the arena, channels [coff, coff + c) of
 * pixels `stride` bytes wide (the rest: other channels); its offset */
static int64_t seml_map(Seml *s, const int8_t *x, int64_t pixels, int c, int stride, int coff, const char *what)
{
    int64_t off = seml_alloc(s, pixels * stride, what);
    for (int64_t p = 0; p < pixels; p++) {
        memcpy(s->fm + off + p * stride + coff, x + p * c, (size_t)c);
        memcpy(s->want + off + p * stride + coff, x + p * c, (size_t)c);
    }
    return off;
}

/* an output region: random until the engine writes y into its channels */
static int64_t seml_result(Seml *s, const int8_t *y, int64_t pixels, int c, int stride, int coff, const char *what)
{
    int64_t off = seml_alloc(s, pixels * stride, what);
    for (int64_t p = 0; p < pixels; p++)
        memcpy(s->want + off + p * stride + coff, y + p * c, (size_t)c);
    return off;
}

/* bytes into the weight image at a 64-byte boundary (as the compiler) */
static int64_t seml_wimg(Seml *s, const void *data, int64_t n)
{
    int64_t off = (s->n_wimg + 63) / 64 * 64;
    s->wimg = realloc(s->wimg, (size_t)(off + n));
    if (!s->wimg)
        abort();
    memset(s->wimg + s->n_wimg, 0, (size_t)(off - s->n_wimg));
    memcpy(s->wimg + off, data, (size_t)n);
    s->n_wimg = off + n;
    return off;
}

static void put32(uint8_t *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    p[0] = (uint8_t)u, p[1] = (uint8_t)(u >> 8), p[2] = (uint8_t)(u >> 16), p[3] = (uint8_t)(u >> 24);
}

static void put_geom(int32_t *d, const PlanGeom *g)
{
    const int64_t v[17] = {g->h, g->w, g->c, g->ho, g->wo, g->f, g->kh, g->kw, g->sh,
                           g->sw, g->dh, g->dw, g->pt, g->pl, g->pb, g->pr, g->g};
    for (int i = 0; i < 17; i++)
        d[O2H_D_H + i] = (int32_t)v[i];
}

/* a new descriptor for layer l in rows-row bands; the engine's counter
 * must give the loop-nest model's cycles less the dispatcher's fetch */
static int32_t *seml_desc(Seml *s, const PlanSemlLayer *l, int64_t rows, const char *what)
{
    s->desc = realloc(s->desc, sizeof *s->desc * O2H_DESC_WORDS * (size_t)(s->n_desc + 1));
    if (!s->desc)
        abort();
    int32_t *d = s->desc + (size_t)s->n_desc * O2H_DESC_WORDS;
    memset(d, 0, sizeof *d * O2H_DESC_WORDS);
    d[O2H_D_UNIT] = s->n_desc++;
    int64_t last = l->op == PLAN_SEML_ELT || l->op == PLAN_SEML_GPOOL ? l->g.h : l->g.ho;
    d[O2H_D_BAND_ROWS] = (int32_t)rows;
    d[O2H_D_NBANDS] = (int32_t)((last + rows - 1) / rows);
    put_geom(d, &l->g);
    s->max_bands = imax(s->max_bands, d[O2H_D_NBANDS]);
    s->max_tiles = imax(s->max_tiles, cdiv(l->g.f, s->e.pa));
    s->max_k = imax(s->max_k, imax(l->g.kh, l->g.kw));
    char name[256];
    snprintf(name, sizeof name, "descriptor %d (%.180s, %lld-row bands)", s->n_desc - 1, what, (long long)rows);
    int64_t cyc = plan_ln_seml_layer(l, &s->e, rows);
    run_counter(s->r, name, cyc - plan_ln_desc_fetch(s->e.beat));
    CHECK_MSG(plan_ln_seml_run(l, &s->e, rows).cycles == cyc, "%s %s: the planner's band-run cost %lld != %lld",
              s->r->what, name, (long long)plan_ln_seml_run(l, &s->e, rows).cycles, (long long)cyc);
    return d;
}

/* band sizes to run a layer with; 0 when not one row fits */
static int band_sizes(const PlanSemlLayer *l, const PlanSemlEngine *e, int64_t rows[3])
{
    int64_t most = plan_ln_band_rows(l, e);
    int n = 0;
    if (most > 0)
        rows[n++] = most;
    if (most > 1)
        rows[n++] = 1;
    if (most > 2)
        rows[n++] = rnd(2, (int)most - 1);
    return n;
}

/* the engine's parameters, the driver, the files; then the run is set */
static void seml_finish(Prog *pg, Seml *s, const char *entry, const Params *ps, int keep)
{
    Run *r = s->r;
    const char *n = r->name;
    int fail = 0;
    if (keep) {
        char cyc[64];
        snprintf(cyc, sizeof cyc, "%s_cycles", entry);
        as_is(pg, pg->tpl, n, (const char *const[]){entry, cyc, NULL});
    } else {
        fail = instance(pg, pg->tpl, n, ps);
    }
    r->want = s->want;
    r->n = s->n_fm;
    r->dead = fail;
    char file[64];
    snprintf(file, sizeof file, "%s.fm", n);
    spit(pg->dir, file, s->fm, (size_t)s->n_fm);
    snprintf(file, sizeof file, "%s.wimg", n);
    spit(pg->dir, file, s->wimg, (size_t)s->n_wimg);
    snprintf(file, sizeof file, "%s.desc", n);
    spit(pg->dir, file, s->desc, sizeof *s->desc * O2H_DESC_WORDS * (size_t)s->n_desc);
    if (!fail) {
        drv(pg, "\nvoid %s_%s(const int32_t d[O2H_DESC_WORDS], const int8_t *wimg, const int8_t *fm_r, int8_t *fm_w);\n",
            n, entry);
        drv(pg, "extern int64_t %s_%s_cycles;\nstatic void run_%s(void)\n{\n", n, entry, n);
        drv(pg, "    static int32_t d[%d][O2H_DESC_WORDS];\n    static int8_t w[%lld], fm[%lld];\n", s->n_desc,
            (long long)(s->n_wimg > 0 ? s->n_wimg : 1), (long long)s->n_fm);
        drv(pg, "    static int64_t cyc[%d];\n    tpl_load(\"%s.desc\", d, sizeof d);\n", s->n_desc, n);
        drv(pg, "    tpl_load(\"%s.wimg\", w, %lld);\n    tpl_load(\"%s.fm\", fm, sizeof fm);\n", n, (long long)s->n_wimg, n);
        drv(pg, "    for (int i = 0; i < %d; i++) {\n        %s_%s(d[i], w, fm, fm);\n        cyc[i] = %s_%s_cycles;\n    }\n",
            s->n_desc, n, entry, n, entry);
        drv(pg, "    tpl_save(\"%s.out\", fm, sizeof fm, cyc, %d);\n}\n", n, s->n_desc);
    }
    free(s->fm);
    free(s->wimg);
    free(s->desc);
}

/* a random engine shape and buffers */
static PlanSemlEngine seml_engine(void)
{
    static const int beats[] = {4, 8, 16, 32};
    PlanSemlEngine e = {rnd(1, 8), rnd(1, 12), rnd(1, 4), rnd(256, 2048), rnd(128, 1024), beats[rnd(0, 3)]};
    return e;
}

static void engine_what(char *s, size_t n, const PlanSemlEngine *e, int keep)
{
    snprintf(s, n, "pa %d pb %d pp %d, buffers %lld/%lld, beat %d%s", e->pa, e->pb, e->pp, (long long)e->ibuf,
             (long long)e->obuf, e->beat, keep ? ", as is" : "");
}

/* the conv epilogue's fields (o2h_seml.h) */
static void seml_epilogue(int32_t *d, const ConvQ *q, int64_t skip_off, int64_t lut_off)
{
    int32_t v[8];
    add_fields(q, v);
    d[O2H_D_ADD] = q->add, d[O2H_D_LUT] = q->lut;
    for (int k = 0; k < 8; k++)
        d[O2H_D_ADD_ZA + k] = v[k];
    if (q->add)
        d[O2H_D_IN2_OFF] = (int32_t)skip_off, d[O2H_D_IN2_PSTRIDE] = d[O2H_D_IN2_C] = q->p.F;
    if (q->lut)
        d[O2H_D_LUT_OFF] = (int32_t)lut_off;
}

/* ---------------------------------------------------------------- seml_conv */

/* one conv / FC layer: input, skip, tile records, then a descriptor per band size */
static int seml_conv_layer(Seml *s, const ConvQ *q, int *max_b)
{
    const O2hConv2d *p = &q->p;
    PlanSemlLayer l = {.op = PLAN_SEML_CONV, .g = conv_geom(p), .add = q->add, .lut = q->lut};
    int64_t rows[3];
    int nb = band_sizes(&l, &s->e, rows);
    if (nb == 0)
        return -1;
    char what[200];
    conv_what(what, sizeof what, q);
    int hw = p->H * p->W, hwo = p->HO * p->WO, b = conv_b(q), pa = s->e.pa, nt = cdiv(p->F, pa);
    int8_t *x = xcalloc((int64_t)hw * p->C), *sk = xcalloc((int64_t)hwo * p->F), *y = xcalloc((int64_t)hwo * p->F);
    rnd_bytes(x, (int64_t)hw * p->C);
    rnd_bytes(sk, (int64_t)hwo * p->F);
    conv_ref(q, x, sk, y);
    int64_t in = seml_map(s, x, hw, p->C, p->C, 0, what), skip = q->add ? seml_map(s, sk, hwo, p->F, p->F, 0, what) : 0;
    int64_t tile = plan_ln_tile_bytes(&l, &s->e);
    uint8_t *rec = xcalloc(nt * tile);
    for (int f = 0; f < p->F; f++) {
        uint8_t *t = rec + (f / pa) * tile;
        for (int k = 0; k < b; k++)
            t[(f % pa) * b + k] = (uint8_t)conv_w_hwc(q, f, k);
        put32(t + pa * b + 9 * (f % pa), q->bias[f]);
        put32(t + pa * b + 9 * (f % pa) + 4, q->mult[f]);
        t[pa * b + 9 * (f % pa) + 8] = q->shift[f];
    }
    int64_t w_off = seml_wimg(s, rec, nt * tile), lut_off = q->lut ? seml_wimg(s, q->table, 256) : 0;
    for (int i = 0; i < nb; i++) {
        int64_t out = seml_result(s, y, hwo, p->F, p->F, 0, what);
        int32_t *d = seml_desc(s, &l, rows[i], what);
        d[O2H_D_OP] = O2H_OP_CONV, d[O2H_D_XZERO] = q->xzero;
        d[O2H_D_ZERO] = q->zero, d[O2H_D_LO] = q->lo, d[O2H_D_HI] = q->hi;
        d[O2H_D_IN_OFF] = (int32_t)in, d[O2H_D_IN_PSTRIDE] = p->C, d[O2H_D_IN_BYTES] = hw * p->C;
        d[O2H_D_OUT_OFF] = (int32_t)out, d[O2H_D_OUT_PSTRIDE] = p->F;
        d[O2H_D_W_OFF] = (int32_t)w_off, d[O2H_D_W_TILE] = (int32_t)tile;
        seml_epilogue(d, q, skip, lut_off);
    }
    *max_b = imax(*max_b, b);
    free(x);
    free(sk);
    free(y);
    free(rec);
    return 0;
}

/* a conv layer for the conv engine: standard, grouped, pointwise, strided, dilated, FC */
static void seml_conv_random(ConvQ *q)
{
    memset(q, 0, sizeof *q);
    O2hConv2d *p = &q->p;
    p->N = p->G = 1;
    p->KH = p->KW = p->SH = p->SW = p->DH = p->DW = 1;
    switch (rnd(0, 4)) {
    case 0: rnd_window(p, 4, 2, 1), p->C = rnd(1, 8), p->F = rnd(1, 16); break;
    case 1: rnd_window(p, 3, 2, 2), p->G = rnd(2, 3), p->C = p->G * rnd(1, 3), p->F = p->G * rnd(1, 4); break;
    case 2: p->H = rnd(1, 7), p->W = rnd(1, 7), p->C = rnd(1, 16), p->F = rnd(1, 20); break;
    case 3: rnd_window(p, 3, 3, 3), p->C = rnd(1, 6), p->F = rnd(1, 10); break;
    default:
        q->fc = 1, p->H = p->KH = rnd(1, 3), p->W = p->KW = rnd(1, 3), p->C = rnd(1, 8), p->F = rnd(1, 12);
        break;
    }
    conv_consts(q, one_in(3), one_in(3));
}

static void seml_conv_run(Prog *pg, int keep)
{
    Seml s = {0};
    int max_b = 0, max_it = 1;
    if (keep) {
        char *t = template_text("seml_conv.c");
        s.e = (PlanSemlEngine){tpl_param(t, "PA"), tpl_param(t, "PB"), tpl_param(t, "PP"), tpl_param(t, "IBUF"),
                               tpl_param(t, "OBUF"), tpl_param(t, "BEAT")};
        max_b = tpl_param(t, "MAX_B");
        free(t);
    } else {
        s.e = seml_engine();
    }
    char what[120];
    engine_what(what, sizeof what, &s.e, keep);
    s.r = prog_run(pg, "%s", what);
    for (int n = 0, tries = 0; n < 5 && tries < 200; tries++) {
        ConvQ q;
        seml_conv_random(&q);
        int b = 0;
        if ((!keep || conv_b(&q) <= max_b) && seml_conv_layer(&s, &q, &b) == 0) {
            n++;
            max_b = keep ? max_b : imax(max_b, b);
            max_it = imax(max_it, cdiv(q.p.HO * q.p.WO, s.e.pp) * cdiv(b, s.e.pb));
        }
        conv_free(&q);
    }
    Params ps = {0};
    const char *names[] = {"PA", "PB", "PP", "MAX_B", "IBUF", "OBUF", "BEAT", "MAX_IT", "MAX_BANDS", "MAX_TILES"};
    const int64_t v[] = {s.e.pa, s.e.pb, s.e.pp, max_b, s.e.ibuf, s.e.obuf, s.e.beat, max_it,
                         imax(s.max_bands, 1), imax(s.max_tiles, 1)};
    for (int i = 0; i < 10; i++)
        par(&ps, names[i], v[i]);
    seml_finish(pg, &s, "conv_layer", &ps, keep);
}

static void test_seml_conv(void)
{
    Prog *pg = prog_begin("seml_conv");
    seml_conv_run(pg, 1);
    for (int i = 0; i < 4; i++)
        seml_conv_run(pg, 0);
    prog_end(pg);
}

/* ---------------------------------------------------------------- seml_dw */

typedef struct {
    int max_c, max_kk, max_it;
} DwUse;

/* a depthwise conv (channel multiplier 1..3, fused epilogue) */
static int seml_dw_conv(Seml *s, const ConvQ *q, DwUse *u)
{
    const O2hConv2d *p = &q->p;
    PlanSemlLayer l = {.op = PLAN_SEML_DW, .g = conv_geom(p), .add = q->add, .lut = q->lut};
    int64_t rows[3];
    int nb = band_sizes(&l, &s->e, rows), kk = p->KH * p->KW;
    if (nb == 0 || p->F > u->max_c || kk > u->max_kk)
        return -1;
    char what[200];
    conv_what(what, sizeof what, q);
    int hw = p->H * p->W, hwo = p->HO * p->WO;
    int8_t *x = xcalloc((int64_t)hw * p->C), *sk = xcalloc((int64_t)hwo * p->F), *y = xcalloc((int64_t)hwo * p->F);
    rnd_bytes(x, (int64_t)hw * p->C);
    rnd_bytes(sk, (int64_t)hwo * p->F);
    conv_ref(q, x, sk, y);
    int64_t in = seml_map(s, x, hw, p->C, p->C, 0, what), skip = q->add ? seml_map(s, sk, hwo, p->F, p->F, 0, what) : 0;
    uint8_t *rec = xcalloc((int64_t)p->F * kk + 9 * p->F);     /* [F][KK] weights, then bias, mult, shift */
    memcpy(rec, q->w, (size_t)p->F * (size_t)kk);
    for (int f = 0; f < p->F; f++) {
        put32(rec + p->F * kk + 9 * f, q->bias[f]);
        put32(rec + p->F * kk + 9 * f + 4, q->mult[f]);
        rec[p->F * kk + 9 * f + 8] = q->shift[f];
    }
    int64_t w_off = seml_wimg(s, rec, (int64_t)p->F * kk + 9 * p->F), lut_off = q->lut ? seml_wimg(s, q->table, 256) : 0;
    for (int i = 0; i < nb; i++) {
        int64_t out = seml_result(s, y, hwo, p->F, p->F, 0, what);
        int32_t *d = seml_desc(s, &l, rows[i], what);
        d[O2H_D_OP] = O2H_OP_DWCONV, d[O2H_D_XZERO] = q->xzero;
        d[O2H_D_ZERO] = q->zero, d[O2H_D_LO] = q->lo, d[O2H_D_HI] = q->hi;
        d[O2H_D_IN_OFF] = (int32_t)in, d[O2H_D_IN_PSTRIDE] = p->C, d[O2H_D_IN_BYTES] = hw * p->C;
        d[O2H_D_OUT_OFF] = (int32_t)out, d[O2H_D_OUT_PSTRIDE] = p->F, d[O2H_D_W_OFF] = (int32_t)w_off;
        seml_epilogue(d, q, skip, lut_off);
        u->max_it = imax(u->max_it, cdiv((int)rows[i] * p->WO, s->e.pp) * cdiv(p->F, s->e.pa) * cdiv(kk, s->e.pb));
    }
    free(x);
    free(sk);
    free(y);
    free(rec);
    return 0;
}

/* a windowed or global pool */
static int seml_dw_pool(Seml *s, const PoolQ *q, DwUse *u)
{
    const O2hPool2d *p = &q->p;
    int global = pool_is_global(q), avg = q->mode == POOL_AVG || q->mode == POOL_GAVG, kk = pool_kk(q);
    PlanSemlLayer l = {.op = global ? PLAN_SEML_GPOOL : PLAN_SEML_POOL, .g = pool_geom(q), .avg = avg,
                       .rq_n = avg ? q->n_rq : 0};
    int64_t rows[3];
    int nb = band_sizes(&l, &s->e, rows);
    if (nb == 0 || p->C > u->max_c || kk > u->max_kk)
        return -1;
    char what[200];
    pool_what(what, sizeof what, q);
    int hw = p->H * p->W, hwo = global ? 1 : p->HO * p->WO;
    int8_t *x = xcalloc((int64_t)hw * p->C), *y = xcalloc((int64_t)hwo * p->C);
    rnd_bytes(x, (int64_t)hw * p->C);
    pool_ref(q, x, y);
    int64_t in = seml_map(s, x, hw, p->C, p->C, 0, what), w_off = 0;
    if (avg) {    /* per tap count: mult, shift */
        uint8_t rec[5 * 64];
        for (int i = 0; i < q->n_rq; i++)
            put32(rec + 5 * i, q->mult[i]), rec[5 * i + 4] = q->shift[i];
        w_off = seml_wimg(s, rec, 5 * q->n_rq);
    }
    for (int i = 0; i < nb; i++) {
        int64_t out = seml_result(s, y, hwo, p->C, p->C, 0, what);
        int32_t *d = seml_desc(s, &l, rows[i], what);
        static const int ops[] = {O2H_OP_MAXPOOL, O2H_OP_AVGPOOL, O2H_OP_GMAXPOOL, O2H_OP_GAVGPOOL};
        d[O2H_D_OP] = ops[q->mode], d[O2H_D_XZERO] = q->xzero;
        d[O2H_D_ZERO] = q->mode == POOL_MAX ? 0 : q->zero, d[O2H_D_LO] = q->lo;
        d[O2H_D_HI] = q->mode == POOL_MAX ? 127 : q->hi;
        d[O2H_D_INCLUDE_PAD] = p->count_include_pad, d[O2H_D_EPB] = p->PB, d[O2H_D_EPR] = p->PR;
        d[O2H_D_RQ_N] = avg ? q->n_rq : 0, d[O2H_D_W_OFF] = (int32_t)w_off;
        d[O2H_D_IN_OFF] = (int32_t)in, d[O2H_D_IN_PSTRIDE] = p->C, d[O2H_D_IN_BYTES] = hw * p->C;
        d[O2H_D_OUT_OFF] = (int32_t)out, d[O2H_D_OUT_PSTRIDE] = p->C;
        int npix = global ? (int)rows[i] * p->W : (int)rows[i] * p->WO;
        u->max_it = imax(u->max_it, cdiv(npix, s->e.pp) * cdiv(p->C, s->e.pa) * cdiv(kk, s->e.pb));
    }
    free(x);
    free(y);
    return 0;
}

static int seml_dw_random(Seml *s, DwUse *u)
{
    int k = rnd(0, 5), rc;
    if (k < 2) {   /* depthwise conv, channel multiplier 1..3 */
        ConvQ q;
        memset(&q, 0, sizeof q);
        O2hConv2d *p = &q.p;
        rnd_window(p, k ? 5 : 3, 2, 2);
        p->N = 1, p->C = p->G = rnd(1, 12), p->F = p->C * (one_in(3) ? rnd(2, 3) : 1);
        conv_consts(&q, one_in(3), one_in(3));
        rc = seml_dw_conv(s, &q, u);
        conv_free(&q);
        return rc;
    }
    PoolCase c;
    static const int classes[] = {1, 3, 5, 6, 7};   /* max ceil, avg include_pad, avg ceil include_pad, global max, global avg */
    pool_random(&c, one_in(2) ? classes[rnd(0, 4)] : rnd(0, 7));
    return seml_dw_pool(s, &c.q, u);
}

static void seml_dw_run(Prog *pg, int keep)
{
    Seml s = {0};
    DwUse u = {0, 0, 1};
    if (keep) {
        char *t = template_text("seml_dw.c");
        s.e = (PlanSemlEngine){tpl_param(t, "PA"), tpl_param(t, "PB"), tpl_param(t, "PP"), tpl_param(t, "IBUF"),
                               tpl_param(t, "OBUF"), tpl_param(t, "BEAT")};
        u.max_c = tpl_param(t, "MAX_C"), u.max_kk = tpl_param(t, "MAX_KK");
        free(t);
    } else {
        s.e = seml_engine();
        u.max_c = rnd(12, 40), u.max_kk = rnd(16, 25);
    }
    char what[120];
    engine_what(what, sizeof what, &s.e, keep);
    s.r = prog_run(pg, "%s, max_c %d max_kk %d", what, u.max_c, u.max_kk);
    for (int n = 0, tries = 0; n < 6 && tries < 200; tries++)
        n += seml_dw_random(&s, &u) == 0;
    Params ps = {0};
    const char *names[] = {"PA", "PB", "PP", "MAX_C", "MAX_KK", "IBUF", "OBUF", "BEAT", "MAX_IT", "MAX_K", "MAX_BANDS"};
    const int64_t v[] = {s.e.pa, s.e.pb, s.e.pp, u.max_c, u.max_kk, s.e.ibuf, s.e.obuf, s.e.beat, u.max_it,
                         imax(s.max_k, 1), imax(s.max_bands, 1)};
    for (int i = 0; i < 11; i++)
        par(&ps, names[i], v[i]);
    seml_finish(pg, &s, "dw_layer", &ps, keep);
}

static void test_seml_dw(void)
{
    Prog *pg = prog_begin("seml_dw");
    seml_dw_run(pg, 1);
    for (int i = 0; i < 4; i++)
        seml_dw_run(pg, 0);
    prog_end(pg);
}

/* ---------------------------------------------------------------- seml_eltwise */

/* an operand's place: pixels `stride` bytes wide, its channels at coff
 * (a channel slice of a wider map now and then) */
static void operand_place(int c, int *stride, int *coff)
{
    *stride = c + (one_in(3) ? rnd(1, 6) : 0);
    *coff = rnd(0, *stride - c);
}

static void elt_fields(int32_t *d, const EltQ *q, int part)
{
    const O2hEltQ *e = &q->e;
    static const int ops[] = {O2H_OP_ADD, O2H_OP_MUL, O2H_OP_LUT, O2H_OP_RESCALE, O2H_OP_COPY, O2H_OP_COPY};
    d[O2H_D_OP] = ops[q->op];
    d[O2H_D_ZERO] = e->zero, d[O2H_D_LO] = e->lo, d[O2H_D_HI] = e->hi;
    if (q->op == ELT_ADD || q->op == ELT_MUL) {
        d[O2H_D_ZA] = e->a_zero, d[O2H_D_MA] = e->ma, d[O2H_D_ZB] = e->b_zero, d[O2H_D_SH_A] = e->shift;
        d[O2H_D_MB] = q->op == ELT_ADD ? e->mb : 0, d[O2H_D_BVEC] = q->bvec;
    } else if (q->op == ELT_MOVE) {
        d[O2H_D_COPYA] = 1, d[O2H_D_CSTEP] = (int32_t)q->mv.step, d[O2H_D_CGROUPS] = (int32_t)q->mv.groups;
    } else if (q->op != ELT_LUT) {
        d[O2H_D_ZA] = q->zx[part], d[O2H_D_MA] = q->m[part], d[O2H_D_SH_A] = q->sh[part];
        d[O2H_D_COPYA] = q->op == ELT_CONCAT && q->copy[part];
    }
}

/* where an operand lies in the arena */
typedef struct {
    int64_t off;
    int stride, coff;
} Place;

/* the descriptor of part i of layer q (a Concat's input i), output at out */
static void elt_desc(Seml *s, const EltQ *q, PlanSemlLayer *l, int64_t rows, int i, const Place *in,
                     const Place *out, int64_t lut_off, const char *what)
{
    int c = (int)l->g.c, hw = q->h * q->w;
    l->in_dense = in[i].stride == c;
    l->in2_dense = l->binary && !q->bvec ? in[1].stride == c : true;
    l->out_dense = out->stride == (int)l->g.f;
    int32_t *d = seml_desc(s, l, rows, what);
    elt_fields(d, q, i);
    d[O2H_D_IN_OFF] = (int32_t)in[i].off, d[O2H_D_IN_PSTRIDE] = in[i].stride;
    d[O2H_D_IN_COFF] = in[i].coff + (q->op == ELT_MOVE ? (int)q->mv.coff : 0);
    d[O2H_D_IN_BYTES] = hw * in[i].stride;
    if (l->binary) {
        d[O2H_D_IN2_OFF] = (int32_t)in[1].off, d[O2H_D_IN2_PSTRIDE] = in[1].stride, d[O2H_D_IN2_COFF] = in[1].coff;
        d[O2H_D_IN2_C] = c;
    }
    d[O2H_D_LUT_OFF] = (int32_t)lut_off;
    d[O2H_D_OUT_OFF] = (int32_t)out->off, d[O2H_D_OUT_PSTRIDE] = out->stride, d[O2H_D_OUT_COFF] = out->coff;
}

/* one element-wise layer; a Concat (or a channel Slice: a one-input
 * Concat of a slice) is one COPY descriptor per input, a channel move
 * (every step-th channel, or a shuffle) one COPY of the channels it spans */
static int seml_elt_layer(Seml *s, const EltQ *q, int max_c, int *max_it)
{
    int hw = q->h * q->w, parts = q->op == ELT_CONCAT ? q->n_in : 1, nin = parts > 1 ? parts : elt_binary(q) ? 2 : 1;
    int64_t rows[3][3];
    int nb[3];
    PlanSemlLayer l[3];
    for (int i = 0; i < parts; i++) {
        int c = q->op == ELT_CONCAT ? q->ch[i] : q->c;
        const IrChanMove *m = &q->mv;
        int span = q->op != ELT_MOVE ? c : m->groups > 1 ? c : (int)((m->count - 1) * m->step + 1);
        l[i] = (PlanSemlLayer){.op = PLAN_SEML_ELT, .g = {q->h, q->w, span, q->h, q->w, c, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
                               .lut = q->op == ELT_LUT, .binary = q->op == ELT_ADD || q->op == ELT_MUL, .bvec = q->bvec};
        nb[i] = band_sizes(&l[i], &s->e, rows[i]);
        if (nb[i] == 0 || c > max_c)
            return -1;
    }
    char what[200];
    elt_what(what, sizeof what, q);
    int8_t *in[3] = {NULL, NULL, NULL}, *y = xcalloc((int64_t)hw * q->c);
    Place at[3], out;
    for (int i = 0; i < nin; i++) {
        int c = q->op == ELT_CONCAT ? q->ch[i] : q->op == ELT_MOVE ? (int)q->mv.c_in : q->c;
        in[i] = xcalloc(elt_in_bytes(q, i));
        rnd_bytes(in[i], elt_in_bytes(q, i));
        operand_place(c, &at[i].stride, &at[i].coff);
        at[i].off = seml_map(s, in[i], i == 1 && q->bvec ? 1 : hw, c, at[i].stride, at[i].coff, what);
    }
    elt_ref(q, in, y);
    int64_t lut_off = q->op == ELT_LUT ? seml_wimg(s, q->table, 256) : 0;
    for (int v = 0; v < nb[0]; v++) {
        int ocoff;
        operand_place(q->c, &out.stride, &ocoff);
        out.off = seml_result(s, y, hw, q->c, out.stride, ocoff, what);
        for (int i = 0, cbase = 0; i < parts; i++) {
            int64_t r = rows[i][v < nb[i] ? v : 0];
            out.coff = ocoff + cbase;
            elt_desc(s, q, &l[i], r, i, at, &out, lut_off, what);
            cbase += (int)l[i].g.f;
            *max_it = imax(*max_it, cdiv((int)r * q->w, s->e.pp) * cdiv((int)l[i].g.f, s->e.pa));
        }
    }
    for (int i = 0; i < 3; i++)
        free(in[i]);
    free(y);
    return 0;
}

static void seml_elt_random(EltQ *q)
{
    static const int ops[] = {ELT_ADD, ELT_ADD, ELT_MUL, ELT_MUL, ELT_LUT, ELT_RESCALE, ELT_CONCAT, ELT_CONCAT,
                              ELT_MOVE, ELT_MOVE};
    memset(q, 0, sizeof *q);
    q->op = ops[rnd(0, 9)];
    q->h = rnd(1, 7), q->w = rnd(1, 7), q->c = rnd(1, 20);
    q->bvec = q->op == ELT_MUL && one_in(2);
    if (q->op == ELT_CONCAT) {   /* a Concat of 2..3 inputs, or a Slice (one input, a channel window) */
        q->n_in = rnd(1, 3), q->c = 0;
        for (int i = 0; i < q->n_in; i++)
            q->ch[i] = rnd(1, 10), q->c += q->ch[i];
    }
    if (q->op == ELT_MOVE)
        move_random(q, one_in(2));
    elt_consts(q, one_in(3));
}

static void seml_elt_run(Prog *pg, int keep)
{
    Seml s = {0};
    int max_c, max_it = 1;
    if (keep) {
        char *t = template_text("seml_eltwise.c");
        int buf = tpl_param(t, "BUF");
        s.e = (PlanSemlEngine){tpl_param(t, "PA"), 1, tpl_param(t, "PP"), buf, buf, tpl_param(t, "BEAT")};
        max_c = tpl_param(t, "MAX_C");
        free(t);
    } else {
        s.e = seml_engine();
        s.e.pa = unroll(rnd(1, 20)), s.e.pb = 1, s.e.ibuf = s.e.obuf = rnd(128, 1024), max_c = rnd(20, 40);
    }
    char what[120];
    engine_what(what, sizeof what, &s.e, keep);
    s.r = prog_run(pg, "%s, max_c %d", what, max_c);
    for (int n = 0, tries = 0; n < 8 && tries < 200; tries++) {
        EltQ q;
        seml_elt_random(&q);
        n += seml_elt_layer(&s, &q, max_c, &max_it) == 0;
    }
    Params ps = {0};
    const char *names[] = {"PA", "PP", "MAX_C", "BUF", "BEAT", "MAX_IT", "MAX_BANDS"};
    const int64_t v[] = {s.e.pa, s.e.pp, max_c, s.e.ibuf, s.e.beat, max_it, imax(s.max_bands, 1)};
    for (int i = 0; i < 7; i++)
        par(&ps, names[i], v[i]);
    seml_finish(pg, &s, "eltwise_layer", &ps, keep);
}

static void test_seml_eltwise(void)
{
    Prog *pg = prog_begin("seml_eltwise");
    seml_elt_run(pg, 1);
    for (int i = 0; i < 4; i++)
        seml_elt_run(pg, 0);
    prog_end(pg);
}

int main(void)
{
    if (system("cc --version > /dev/null 2>&1") != 0)
        return test_skip("no C compiler (cc)");
    mkdir(WORK, 0777);
    remove(WORK "/runs.txt");
    if (system("echo 'int main(void){return 0;}' | cc -fsanitize=address,undefined -x c - -o " WORK
               "/san > /dev/null 2>&1") == 0)
        san_flags = "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer";
    else
        printf("cc has no ASan/UBSan: instances run without sanitizers\n");
    clock_t t0 = clock();
    test_contract_pairs();
    test_contract_rescale();
    test_contract_requant();
    test_contract_rq64();
    printf("contract sweep: %.2f s CPU\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
    test_alone();
    test_sesl_mac();
    test_sesl_pool();
    test_sesl_eltwise();
    test_sesl_stream();
    test_seml_conv();
    test_seml_dw();
    test_seml_eltwise();
    prog_wait();
    printf("instances run per template:");
    for (int i = 0; i < 8; i++)
        printf(" %s %d%s", templates[i], runs_of[i], i < 7 ? "," : "\n");
    struct tms tm;
    times(&tm);
    double hz = (double)sysconf(_SC_CLK_TCK);
    printf("CPU: %.1f s in this process (specializer %.1f s), %.1f s in cc and the instances\n",
           (double)(tm.tms_utime + tm.tms_stime) / hz, (double)spec_clock / CLOCKS_PER_SEC,
           (double)(tm.tms_cutime + tm.tms_cstime) / hz);
    return check_done();
}
