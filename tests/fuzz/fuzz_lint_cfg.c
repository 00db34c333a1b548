/* fuzz_lint_cfg.c - the lint's reader of a folder's hls_config.cfg
 * (codegen/hls_lint.c: syn.file= and syn.top= of Vitis's unified flow):
 * the input bytes as the cfg of a folder holding the lint's clean test
 * design (tests/data/lint/good: top.c, engines/, common/, tb/, linked).
 *
 * Why: the cfg decides which files are linted and which function is the
 * top; a folder someone edited may list files that are missing, folders,
 * the testbench, one file many times, or name a top that does not exist.
 * Invariants: a refusal names a file; a run's findings name a file, a rule
 * and a line. */
#include "fuzz.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codegen/hls_lint.h"

static char dir[4200], cfg[4300];

static int init(void)
{
    static const char *const entries[] = {"top.c", "engines", "common", "tb"};
    snprintf(dir, sizeof dir, "%s/design", fz_dir());
    snprintf(cfg, sizeof cfg, "%s/hls_config.cfg", dir);
    if (mkdir(dir, 0700))
        return -1;
    for (int i = 0; i < 4; i++) {
        char from[4200], to[4400];
        snprintf(from, sizeof from, "%s/tests/data/lint/good/%s", SOURCE_DIR, entries[i]);
        snprintf(to, sizeof to, "%s/%s", dir, entries[i]);
        if (symlink(from, to))
            return -1;
    }
    return 0;
}

static int one(const uint8_t *data, size_t size)
{
    FILE *f = fopen(cfg, "wb");
    if (!f)
        return 0;
    size_t put = fwrite(data, 1, size, f);
    if (fclose(f) || put != size)
        return 0;
    CgHlsLintResult r;
    memset(&r, 0, sizeof r);
    IrDiag d;
    diag_init(&d);
    int n = cg_hls_lint(dir, NULL, &r, &d);
    fz_check_lint(n, &r, &d, "cg_hls_lint of a folder");
    cg_hls_lint_result_free(&r);
    diag_free(&d);
    return 0;
}

FUZZ_TARGET(lint_cfg, init, one)
