/* fuzz_util.c - the harness helpers of fuzz.h: a private temporary folder for
 * entry points that take a path, the samples, the shared invariants.
 *
 * Why files and not buffers: the model loader maps its file, and the side
 * files go through ir/sidefile.c's bounded reader (regular file, cap, NUL
 * check), which is part of what is under test. A folder of its own per
 * process keeps a model's external-data references and a cfg's syn.file=
 * entries inside it, and two fuzzers running at once apart. */
#include "fuzz.h"

#include "codegen/hls_clang.h"
#include "frontend/frontend.h"

#include <ftw.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

static char tmp_dir[64];

/* LeakSanitizer: what C++ code allocated is libclang's (the lint and the
 * specializer parse through it; our code is C and never calls operator
 * new). libclang keeps caches per thread and leaks on inputs it recovers
 * from; its library has no frame pointers, so such a report cannot name
 * the caller. Those reports are left out; the handles we own are checked
 * by counting instead (fz_check_lint). Our own allocations stay checked. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libstdc++.so\nleak:libLLVM\nleak:libclang\n";
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void remove_dir(void)
{
    nftw(tmp_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fz_dir(void)
{
    if (!tmp_dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmp_dir, sizeof tmp_dir, "%s/o2h-fuzz.XXXXXX", base && strlen(base) < 40 ? base : "/tmp");
        if (!mkdtemp(tmp_dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(remove_dir);
    }
    return tmp_dir;
}

const char *fz_file(const char *name, const void *data, size_t size)
{
    static struct {
        char name[64];
        char path[160];
    } files[16];
    int i = 0;
    while (i < 16 && files[i].name[0] && strcmp(files[i].name, name))
        i++;
    if (i == 16 || strlen(name) >= sizeof files[i].name)
        abort();
    if (!files[i].name[0]) {
        snprintf(files[i].name, sizeof files[i].name, "%s", name);
        snprintf(files[i].path, sizeof files[i].path, "%s/%s", fz_dir(), name);
    }
    FILE *f = fopen(files[i].path, "wb");
    if (!f)
        return NULL;
    bool ok = fwrite(data, 1, size, f) == size;
    if (fclose(f) || !ok)
        return NULL;
    return files[i].path;
}

const char *fz_sample(const char *name)
{
    static char path[8][4200];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, sizeof path[0], "%s/samples/%s", SOURCE_DIR, name);
    return p;
}

FILE *fz_null(void)
{
    static FILE *f;
    if (!f && !(f = fopen("/dev/null", "w")))
        abort();
    return f;
}

void fz_check_refusal(const IrDiag *d, const char *what)
{
    FZ_ASSERT(d->n_errors > 0, "%s failed without an error", what);
    for (int i = 0; i < d->n; i++)
        FZ_ASSERT(d->v[i].level != DIAG_ERROR || (d->v[i].file && d->v[i].file[0]),
                  "%s: an error names no file: %s", what, d->v[i].msg);
}

void fz_check_graph(const IrGraph *g, const char *what)
{
    IrDiag vd;
    diag_init(&vd);
    int rc = ir_verify(g, &vd);
    if (rc)
        diag_print(&vd, stderr);
    diag_free(&vd);
    FZ_ASSERT(rc == 0, "%s: the graph fails ir_verify", what);
}

void fz_check_lint(int n, const CgHlsLintResult *r, const IrDiag *d, const char *what)
{
    if (n < 0) {
        fz_check_refusal(d, what);
    } else {
        FZ_ASSERT(n == r->n, "%s: %d findings returned, %d recorded", what, n, r->n);
        for (int i = 0; i < r->n; i++)
            FZ_ASSERT(r->v[i].file && r->v[i].rule && r->v[i].msg && r->v[i].line > 0,
                      "%s: finding %d incomplete", what, i);
        cg_hls_lint_print(r, fz_null());
    }
    FZ_ASSERT(hc_live() == 0, "%s: %d libclang handles not disposed", what, hc_live());
}

uint32_t fz_hash(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    return h;
}

IrGraph *fz_load_input(const uint8_t *data, size_t size, IrDiag *d)
{
    const char *path = fz_file("model.onnx", data, size);
    if (!path)
        return NULL;
    IrGraph *g = fe_load_onnx(path, NULL, d);
    if (!g)
        fz_check_refusal(d, "fe_load_onnx");
    return g;
}
