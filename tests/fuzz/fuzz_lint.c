/* fuzz_lint.c - the HLS lint (codegen/hls_lint*.c, cg_hls_lint, what
 * `onnx2hls lint FILE.c` and every `compile --emit hls` run): the input
 * bytes as one C file.
 *
 * Why: the lint walks libclang's cursors and token stream of code that
 * users edit by hand, and places pragmas by byte offsets against function
 * and loop extents, matches DATAFLOW channels between calls, follows
 * recursion across the call graph and reads pragma options and factors as
 * numbers - all on whatever parses. The file sits in a private folder
 * whose common/ is tests/data/lint/good/common; templates/hls/common and
 * $O2H_FUZZ_LINT_INCLUDE (set by run_fuzz.sh to a generated accelerator's
 * common/) are include dirs, so the seeds (the lint's test files, the HLS
 * templates, an accelerator a compile wrote) parse. Coverage is of the
 * lint's own code: libclang is a system library, not instrumented.
 * Invariants: a file the lint refuses gets an error naming it; findings
 * name a file, a rule and a line. */
#include "fuzz.h"

#include <string.h>
#include <unistd.h>

#include "codegen/hls_lint.h"

static const char *incs[2];
static int n_incs;

static int init(void)
{
    char link[4200];
    snprintf(link, sizeof link, "%s/common", fz_dir());
    if (symlink(SOURCE_DIR "/tests/data/lint/good/common", link)) {
        perror("fuzz_lint: symlink");
        return -1;
    }
    incs[n_incs++] = SOURCE_DIR "/templates/hls/common";
    const char *extra = getenv("O2H_FUZZ_LINT_INCLUDE");
    if (extra && *extra)
        incs[n_incs++] = extra;
    return 0;
}

static int one(const uint8_t *data, size_t size)
{
    const char *path = fz_file("lint.c", data, size);
    if (!path)
        return 0;
    CgHlsLintOptions o = {.include_dirs = incs, .n_include_dirs = n_incs};
    CgHlsLintResult r;
    memset(&r, 0, sizeof r);
    IrDiag d;
    diag_init(&d);
    int n = cg_hls_lint(path, &o, &r, &d);
    fz_check_lint(n, &r, &d, "cg_hls_lint");
    cg_hls_lint_result_free(&r);
    diag_free(&d);
    return 0;
}

FUZZ_TARGET(lint, init, one)
