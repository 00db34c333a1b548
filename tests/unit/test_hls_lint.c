/* test_hls_lint.c - the lint's library entry points (codegen/hls_lint.h),
 * as `compile --emit hls` uses them: cg_hls_lint_dir() on a clean design
 * (no finding, nothing on the diagnostics), on a design with findings (each
 * an error "file:line:col" / "rule: explanation"), and on bad input; and
 * the specializer's output (tests/data/hls_spec/small.c as instance e3)
 * linting clean, its renamed enum constant evaluated in `UNROLL factor=`.
 * The rules themselves are tested one by one by tests/scripts/test_lint.sh. */
#include "check.h"
#include "codegen/hls_lint.h"
#include "codegen/hls_specialize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DATA SOURCE_DIR "/tests/data"
#define WORK BINARY_DIR "/test_hls_lint"

static void test_clean_dir(void)
{
    IrDiag d;
    diag_init(&d);
    const char *const incs[] = {DATA "/lint/good/common"};
    CgHlsLintOptions opt = {incs, 1, NULL, 0, NULL};
    CHECK_EQ_INT(cg_hls_lint_dir(DATA "/lint/good", &opt, &d), 0);
    CHECK_EQ_INT(d.n, 0);
    diag_free(&d);
}

static void test_findings(void)
{
    IrDiag d;
    diag_init(&d);
    CHECK_EQ_INT(cg_hls_lint_dir(DATA "/lint/bad/recursion", NULL, &d), 2);
    CHECK_EQ_INT(d.n_errors, 2);
    CHECK(diag_contains(&d, "recursion: call cycle between ping, pong"));
    CHECK(diag_contains(&d, "recursion: fact calls itself"));
    for (int i = 0; i < d.n; i++)
        CHECK(d.v[i].file && strstr(d.v[i].file, "ping.c:"));
    diag_free(&d);
}

static void test_bad_input(void)
{
    IrDiag d;
    diag_init(&d);
    CHECK_EQ_INT(cg_hls_lint_dir(DATA "/lint/no_such_dir", NULL, &d), -1);
    CHECK(d.n_errors > 0);
    diag_free(&d);
    diag_init(&d);
    CgHlsLintOptions opt = {NULL, 0, NULL, 0, "missing_top"};
    CHECK_EQ_INT(cg_hls_lint_dir(DATA "/lint/bad/recursion", &opt, &d), -1);
    CHECK(diag_contains(&d, "missing_top"));
    diag_free(&d);
}

static void test_specialized_instance(void)
{
    const char *const incs[] = {DATA "/hls_spec/common"};
    const CgHlsParam p[] = {{"O2H_P_N", "6"}, {"O2H_P_ROM", "{1, 2, 3, 4, 5, 6}"}, {"O2H_P_SHIFT", "1"},
                            {"O2H_P_EMPTY", "0"}};
    CgHlsSpecRequest rq = {DATA "/hls_spec/small.c", incs, 1, NULL, 0, p, 4, "e3", "stage 3"};
    IrDiag d;
    diag_init(&d);
    char *src = cg_hls_specialize(&rq, &d);
    CHECK(src != NULL);
    mkdir(WORK, 0777);
    FILE *f = fopen(WORK "/e3.c", "w");
    CHECK(f && src && fputs(src, f) >= 0);
    if (f)
        fclose(f);
    free(src);
    CgHlsLintOptions opt = {incs, 1, NULL, 0, NULL};
    CgHlsLintResult r;
    CHECK_EQ_INT(cg_hls_lint(WORK "/e3.c", &opt, &r, &d), 0);
    cg_hls_lint_print(&r, stderr);
    CHECK_EQ_INT(r.n_files, 1);
    cg_hls_lint_result_free(&r);
    diag_print(&d, stderr);
    CHECK_EQ_INT(d.n_errors, 0);
    diag_free(&d);
}

int main(void)
{
    test_clean_dir();
    test_findings();
    test_bad_input();
    test_specialized_instance();
    return check_done();
}
