/* test_hls_lint.c - the lint (codegen/hls_lint.h) in one process:
 *  - every negative case of tests/data/lint/bad/ (a file, or a folder for
 *    rules across files): the lines that must be reported carry
 *    `// LINT: rule[, rule...]`, and the findings must be exactly those
 *    (file, line, rule), no more, no fewer; `ARGS: --top NAME` names the top;
 *  - every rule of the table in docs/lint.md has a case, and every case's
 *    rule is in the table;
 *  - cg_hls_lint_dir(), as `compile --emit hls` calls it: a clean design (no
 *    finding, nothing on the diagnostics), a design with findings (each an
 *    error "file:line:col" / "rule: explanation"), bad input;
 *  - the specializer's output (tests/data/hls_spec/small.c as instance e3)
 *    lints clean, its renamed enum constant evaluated in `UNROLL factor=`.
 * The command line (output format, exit codes) is tests/scripts/test_lint.sh. */
#include "check.h"
#include "codegen/hls_lint.h"
#include "codegen/hls_specialize.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DATA SOURCE_DIR "/tests/data"
#define WORK BINARY_DIR "/test_hls_lint"

/* ------------------------------------------------------ negative cases */

typedef struct {
    char **v;
    int n;
} Lines;

static void lines_push(Lines *l, const char *file, unsigned line, const char *rule)
{
    const char *base = strrchr(file, '/');
    char buf[512];
    snprintf(buf, sizeof buf, "%s:%u:%s", base ? base + 1 : file, line, rule);
    l->v = realloc(l->v, (size_t)(l->n + 1) * sizeof *l->v);
    l->v[l->n++] = strdup(buf);
}

static void lines_free(Lines *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void lines_sort(Lines *l)
{
    if (l->n > 1)
        qsort(l->v, (size_t)l->n, sizeof *l->v, cmp_str);
}

/* markers of one file into want; its `ARGS: --top NAME` into top */
static void file_markers(const char *path, Lines *want, char *top, size_t top_size)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    unsigned n = 0;
    while (f && fgets(line, sizeof line, f)) {
        n++;
        const char *a = strstr(line, "ARGS: --top ");
        if (a)
            snprintf(top, top_size, "%.*s", (int)strcspn(a + 12, " *\t\r\n"), a + 12);
        char *m = strstr(line, "// LINT:");
        for (char *r = m ? strtok(m + 8, ", \t\r\n") : NULL; r; r = strtok(NULL, ", \t\r\n"))
            lines_push(want, path, n, r);
    }
    if (f)
        fclose(f);
}

static void case_markers(const char *path, Lines *want, char *top, size_t top_size)
{
    DIR *d = opendir(path);
    if (!d) {
        file_markers(path, want, top, top_size);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t k = strlen(e->d_name);
        char p[4096];
        if (snprintf(p, sizeof p, "%s/%s", path, e->d_name) < (int)sizeof p && k > 2 &&
            !strcmp(e->d_name + k - 2, ".c"))
            file_markers(p, want, top, top_size);
    }
    closedir(d);
}

static void run_case(const char *path, Lines *rules_seen)
{
    Lines want = {NULL, 0}, got = {NULL, 0};
    char top[64] = "";
    case_markers(path, &want, top, sizeof top);
    CgHlsLintOptions opt = {NULL, 0, NULL, 0, top[0] ? top : NULL};
    CgHlsLintResult r;
    IrDiag d;
    diag_init(&d);
    int n = cg_hls_lint(path, &opt, &r, &d);
    for (int i = 0; i < r.n; i++)
        lines_push(&got, r.v[i].file, r.v[i].line, r.v[i].rule);
    lines_sort(&want);
    lines_sort(&got);
    bool same = want.n == got.n && n == r.n && n > 0;
    for (int i = 0; same && i < want.n; i++)
        same = !strcmp(want.v[i], got.v[i]);
    CHECK_MSG(same, "case %s: %d finding(s), %d expected", path, n, want.n);
    if (!same) {
        cg_hls_lint_print(&r, stderr);
        diag_print(&d, stderr);
    }
    for (int i = 0; i < want.n; i++)
        lines_push(rules_seen, "", 0, strrchr(want.v[i], ':') + 1);
    cg_hls_lint_result_free(&r);
    diag_free(&d);
    lines_free(&want);
    lines_free(&got);
}

static bool has_rule(const Lines *l, const char *rule)
{
    char key[128];
    snprintf(key, sizeof key, ":0:%s", rule);
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], key))
            return true;
    return false;
}

/* the rules of the table in docs/lint.md: lines "| `rule` | ..." */
static void doc_rules(Lines *out)
{
    FILE *f = fopen(SOURCE_DIR "/docs/lint.md", "r");
    char line[4096], rule[128];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "| `%127[a-z-]` |", rule) == 1)
            lines_push(out, "", 0, rule);
    if (f)
        fclose(f);
}

static void test_negative_cases(void)
{
    Lines seen = {NULL, 0}, doc = {NULL, 0};
    DIR *d = opendir(DATA "/lint/bad");
    CHECK(d != NULL);
    struct dirent *e;
    int cases = 0;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", DATA "/lint/bad", e->d_name);
        run_case(p, &seen);
        cases++;
    }
    if (d)
        closedir(d);
    doc_rules(&doc);
    CHECK_MSG(doc.n >= 20, "%d rules in the table of docs/lint.md", doc.n);
    for (int i = 0; i < doc.n; i++)
        CHECK_MSG(has_rule(&seen, strrchr(doc.v[i], ':') + 1), "rule %s has no negative case", doc.v[i]);
    for (int i = 0; i < seen.n; i++)
        CHECK_MSG(has_rule(&doc, strrchr(seen.v[i], ':') + 1), "rule %s is not in docs/lint.md", seen.v[i]);
    printf("%d negative cases, %d documented rules\n", cases, doc.n);
    lines_free(&seen);
    lines_free(&doc);
}

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
    CgHlsSpecRequest rq = {DATA "/hls_spec/small.c", incs, 1, NULL, 0, p, 4, "e3", "stage 3", false};
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
    test_negative_cases();
    test_clean_dir();
    test_findings();
    test_bad_input();
    test_specialized_instance();
    return check_done();
}
