/* hls_emit.c - cg_hls_emit: build the accelerator model, then write
 * OUT/hls file by file (layout in codegen/hls.h and docs/hls.md).
 *
 * Why this order: the shared headers are copied first because the
 * specializer parses each engine against them; the engines next, since a
 * template that rejects its parameters is the likeliest failure; the top,
 * descriptors, testbench and project files last. A failure anywhere leaves
 * the caller's temporary folder to be removed (cli/cmd_compile.c), so no
 * half-written OUT/hls is ever installed. The finished folder must pass
 * `onnx2hls lint` (codegen/hls_lint.h), or the compile fails.
 */
#include "hls_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hls_lint.h"
#include "host.h"

FILE *cg_hls_open(CgAccel *a, const char *dir, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "wb");
    if (!f) {
        diag_error(a->diag, path, NULL, NULL, "cannot write: %s", strerror(errno));
        a->errors++;
    }
    return f;
}

int cg_hls_close(CgAccel *a, FILE *f, const char *dir, const char *rel)
{
    if (fclose(f) == 0)
        return 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    diag_error(a->diag, path, NULL, NULL, "error while writing");
    a->errors++;
    return -1;
}

static int make_dirs(CgAccel *a, const char *dir)
{
    static const char *sub[] = {"", "/common", "/engines", "/top", "/desc", "/tb", "/tb/golden"};
    char path[4096];
    for (int i = 0; i < 7; i++) {
        snprintf(path, sizeof path, "%s%s", dir, sub[i]);
        if (mkdir(path, 0777) && errno != EEXIST) {
            diag_error(a->diag, path, NULL, NULL, "cannot create: %s", strerror(errno));
            return -1;
        }
    }
    return 0;
}

int cg_hls_copy(CgAccel *a, const char *from, const char *dir, const char *rel)
{
    FILE *in = fopen(from, "rb");
    if (!in) {
        diag_error(a->diag, from, NULL, NULL, "cannot read: %s", strerror(errno));
        return -1;
    }
    FILE *out = cg_hls_open(a, dir, rel);
    if (!out) {
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    fclose(in);
    return cg_hls_close(a, out, dir, rel);
}

/* the contract, timing and descriptor headers, from their one source */
static int copy_common(CgAccel *a, const CgHlsOptions *o, const char *dir)
{
    char from[4096];
    snprintf(from, sizeof from, "%s/o2h_int_contract.h", o->runtime_dir);
    if (cg_hls_copy(a, from, dir, "common/o2h_int_contract.h"))
        return -1;
    static const char *hdr[] = {"o2h_timing.h", "o2h_desc.h", "o2h_seml.h"};
    for (int i = 0; i < 3; i++) {
        char rel[64];
        snprintf(from, sizeof from, "%s/common/%s", o->template_dir, hdr[i]);
        snprintf(rel, sizeof rel, "common/%s", hdr[i]);
        if (cg_hls_copy(a, from, dir, rel))
            return -1;
    }
    return 0;
}

/* fill in the folders the options leave to defaults */
static int resolve_dirs(CgHlsOptions *o, IrDiag *d)
{
    static char tdir[4096];
    if (!o->runtime_dir)
        o->runtime_dir = cg_host_runtime_dir();
    if (!o->template_dir) {
        char *t = cg_find_data_file("templates/hls/common/o2h_timing.h");
        if (t) {
            size_t n = strlen(t) - strlen("/common/o2h_timing.h");
            snprintf(tdir, sizeof tdir, "%.*s", (int)n, t);
            free(t);
            o->template_dir = tdir;
        }
    }
    if (!o->runtime_dir || !o->template_dir) {
        diag_error(d, NULL, NULL, NULL, "the %s are not found (set ONNX2HLS_DATA_DIR)",
                   !o->runtime_dir ? "runtime sources" : "HLS templates");
        return -1;
    }
    return 0;
}

int cg_hls_emit(IrGraph *g, const Plan *p, const PlanDesign *design, const CgHlsOptions *opt, const char *dir,
                CgHlsReport *rep, IrDiag *d)
{
    CgHlsOptions o = *opt;
    if (resolve_dirs(&o, d))
        return -1;
    if (!design->fits) {
        diag_error(d, g->path, NULL, NULL, "accelerator: the %s design does not fit (%s)", design->name, design->why);
        return -1;
    }
    CgAccel a;
    int rc = cg_accel_build(&a, g, p, design, d);
    if (rc == 0)
        rc = make_dirs(&a, dir) || copy_common(&a, &o, dir) || cg_hls_write_engines(&a, &o, dir) ||
             cg_hls_write_top(&a, dir) || cg_hls_write_desc(&a, dir) || cg_hls_write_tb(&a, &o, dir) ||
             cg_hls_write_project(&a, &o, dir) || (o.accel_dir && cg_hls_write_accel(&a, &o, o.accel_dir)) ? -1 : 0;
    if (rc == 0 && cg_hls_lint_dir(dir, NULL, d) != 0) {   /* what we write must be synthesizable */
        diag_error(d, dir, NULL, NULL, "accelerator: the generated HLS C breaks the lint's rules (above)");
        rc = -1;
    }
    if (rc == 0 && rep) {
        memset(rep, 0, sizeof *rep);
        rep->n_sesl_procs = a.have_net ? a.net.n_procs : 0;
        rep->n_seml_layers = a.n_desc;
        rep->n_engines = a.n_inst;
        rep->fm_bytes = a.fm_bytes;
        rep->wimg_bytes = a.wimg_bytes;
        rep->rom_bytes = a.rom_bytes;
    }
    cg_accel_free(&a);
    return rc;
}
