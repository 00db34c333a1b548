/* test_hls_specialize.c - the libclang template specializer
 * (codegen/hls_specialize.c) on the templates of tests/data/hls_spec/:
 * values replaced byte for byte and every other byte kept (a golden file
 * written by hand from the rules), renaming of every file-scope name kind
 * (static arrays, typedefs, tags, enum constants, pragmas' variable=, macro
 * bodies, the __SYNTHESIS__ branch) while locals, fields and common-header
 * names stay; each parameter mistake reported with template and engine; a
 * value that breaks the C caught by the re-parse; two instances of one
 * template compiled and linked into one program with the system compiler;
 * a 1 MB value; declarations under `#if` on a parameter renamed in the
 * branch the values select. */
#include "check.h"
#include "test_util.h"
#include "codegen/hls_specialize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DATA SOURCE_DIR "/tests/data/hls_spec"
#define WORK BINARY_DIR "/test_hls_specialize"

static const char *const incs[] = {DATA "/common"};

static int spit(const char *path, const char *s)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int rc = fputs(s, f) < 0;
    return fclose(f) || rc ? -1 : 0;
}

static CgHlsSpecRequest small_request(const CgHlsParam *p, int n, const char *prefix)
{
    CgHlsSpecRequest rq = {DATA "/small.c", incs, 1, NULL, 0, p, n, prefix, "stage 3 (Conv_12)", false};
    return rq;
}

static char *run(const CgHlsSpecRequest *rq, IrDiag *d)
{
    diag_init(d);
    char *out = cg_hls_specialize(rq, d);
    if (!out && d->n)
        diag_print(d, stderr);
    return out;
}

static void test_golden(void)
{
    const CgHlsParam p[] = {{"O2H_P_N", "8"},
                            {"O2H_P_ROM", "{10, 20, 30, 40, 50, 60, 70, 80}"},
                            {"O2H_P_SHIFT", "2"},
                            {"O2H_P_EMPTY", "7"}};
    CgHlsSpecRequest rq = small_request(p, 4, "e3");
    IrDiag d;
    char *out = run(&rq, &d);
    char *want = test_read_file(DATA "/small.e3.expected", NULL);
    CHECK(out && want);
    CHECK_EQ_INT(d.n_errors, 0);
    if (out && want && strcmp(out, want)) {
        CHECK_MSG(0, "output differs from small.e3.expected; got:\n%s", out);
    }
    free(out);
    free(want);
    diag_free(&d);
}

static void test_param_errors(void)
{
    const CgHlsParam p[] = {{"O2H_P_A", "5"}, {"O2H_P_F", "6"}, {"O2H_P_Z", "7"}};
    CgHlsSpecRequest rq = {DATA "/bad_params.c", NULL, 0, NULL, 0, p, 3, "e9", "stage 9 (Conv_9)", false};
    IrDiag d;
    diag_init(&d);
    char *out = cg_hls_specialize(&rq, &d);
    CHECK(out == NULL);
    CHECK_EQ_INT(d.n_errors, 4);
    CHECK(diag_contains(&d, "O2H_P_A is defined twice"));
    CHECK(diag_contains(&d, "O2H_P_F is a function-like macro"));
    CHECK(diag_contains(&d, "O2H_P_B of the template is not given"));
    CHECK(diag_contains(&d, "O2H_P_Z is not a parameter of the template"));
    CHECK(diag_contains(&d, "engine stage 9 (Conv_9)"));
    for (int i = 0; i < d.n; i++)
        CHECK(d.v[i].file && strstr(d.v[i].file, "bad_params.c"));
    diag_free(&d);
}

static void expect_error(const CgHlsSpecRequest *rq, const char *needle)
{
    IrDiag d;
    diag_init(&d);
    char *out = cg_hls_specialize(rq, &d);
    CHECK_MSG(out == NULL && diag_contains(&d, needle) && diag_contains(&d, "stage 3 (Conv_12)"),
              "expected an error with '%s'", needle);
    free(out);
    diag_free(&d);
}

static void test_reparse_errors(void)
{
    CgHlsParam p[] = {{"O2H_P_N", "4 +"}, {"O2H_P_ROM", "{1}"}, {"O2H_P_SHIFT", "1"}, {"O2H_P_EMPTY", ""}};
    CgHlsSpecRequest rq = small_request(p, 4, "e3");
    expect_error(&rq, "does not compile cleanly");
    p[0].value = "4";
    p[2].value = "40"; /* shift count >= width of int32: a warning, also refused */
    expect_error(&rq, "shift count");
    p[2].value = "1\n+ 1";
    expect_error(&rq, "O2H_P_SHIFT spans lines");
    p[2].value = "1";
    rq.prefix = "3e";
    expect_error(&rq, "not a C identifier");
    rq.prefix = "e3";
    rq.n_include_dirs = 0; /* spec_common.h not found */
    expect_error(&rq, "does not parse");
}

static char *instance(const char *prefix, const char *n, const char *rom, const char *shift)
{
    const CgHlsParam p[] = {{"O2H_P_N", n}, {"O2H_P_ROM", rom}, {"O2H_P_SHIFT", shift}, {"O2H_P_EMPTY", "0"}};
    CgHlsSpecRequest rq = small_request(p, 4, prefix);
    IrDiag d;
    char *out = run(&rq, &d);
    diag_free(&d);
    return out;
}

/* Two instances of one template in one program, built with cc. */
static void test_two_instances(void)
{
    char *a = instance("a", "4", "{1, 2, 3, 4}", "1");
    char *b = instance("b", "8", "{10, 20, 30, 40, 50, 60, 70, 80}", "0");
    CHECK(a && b);
    mkdir(WORK, 0777);
    CHECK(a && spit(WORK "/a.c", a) == 0);
    CHECK(b && spit(WORK "/b.c", b) == 0);
    free(a);
    free(b);
    const char *cmd = "cc -std=c11 -Wall -Wextra -Werror -Wno-unknown-pragmas -I" DATA "/common -o " WORK
                      "/two " WORK "/a.c " WORK "/b.c " DATA "/two_main.c && " WORK "/two > " WORK "/two.out";
    CHECK_EQ_INT(system(cmd), 0);
    char *got = test_read_file(WORK "/two.out", NULL);
    /* a: acc[i] = (2 rom[i] + N) >> SHIFT; lo = acc[0] + 1 + rom[0] + N + 2 + 10 * 3 */
    CHECK_MSG(got && !strcmp(got, "41 6 79 168 1\n"), "got %s", got ? got : "(nothing)");
    free(got);
}

/* A ROM value of about 1 MB lands whole, in its place. */
static void test_long_value(void)
{
    enum { N = 250000 };
    char *rom = malloc(5 * (size_t)N + 3), *w = rom;
    *w++ = '{';
    for (int i = 0; i < N; i++)
        w += sprintf(w, "%d, ", i % 100);
    strcpy(w, "}");
    char n[16];
    snprintf(n, sizeof n, "%d", N);
    char *out = instance("big", n, rom, "1");
    char *tmpl = test_read_file(DATA "/small.c", NULL);
    CHECK(out && tmpl && strlen(rom) > 900000);
    if (out && tmpl) {
        const char *at = strstr(out, "#define O2H_P_ROM ");
        CHECK(at && !strncmp(at + 18, rom, strlen(rom)) && at[18 + strlen(rom)] == '\n');
        CHECK(strstr(out, "static big_acc_t big_step(big_acc_t a, int i)") != NULL);
        CHECK(strlen(out) > strlen(tmpl) + strlen(rom) - 20);
    }
    free(out);
    free(tmpl);
    free(rom);
}

/* The branch the request's values select is renamed, though the default
 * values select the other one. */
static void test_param_if(void)
{
    const CgHlsParam p[] = {{"O2H_P_WIDE", "1"}};
    CgHlsSpecRequest rq = {DATA "/param_if.c", NULL, 0, NULL, 0, p, 1, "q", "stage 1 (Add_1)", false};
    IrDiag d;
    char *out = run(&rq, &d);
    CHECK(out != NULL);
    if (out) {
        CHECK(strstr(out, "int32_t q_param_if_run(const int8_t in[4], const int8_t extra[4])") != NULL);
        CHECK(strstr(out, "q_param_if_count += 2;") != NULL);
        CHECK(strstr(out, "return q_twice(in[0]) + extra[0];") != NULL);
        CHECK(strstr(out, "int32_t param_if_run(const int8_t in[4])\n") != NULL);  /* the branch left out */
    }
    free(out);
    diag_free(&d);
}

int main(void)
{
    test_golden();
    test_param_errors();
    test_reparse_errors();
    test_two_instances();
    test_long_value();
    test_param_if();
    return check_done();
}
