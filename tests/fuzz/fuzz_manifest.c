/* fuzz_manifest.c - verify's reader of OUT/host/model.json
 * (codegen/host_manifest.c, cg_manifest_read): any bytes as the file.
 *
 * Why: verify sizes its buffers, checks the user's input files and builds
 * command lines from this file, and it sits in a folder anyone may have
 * edited. Invariants: a manifest read back has sane tensors (rank within
 * bounds, element counts equal to the product of the dims, names present);
 * a refusal names the file; nothing leaks either way. */
#include "fuzz.h"

#include "codegen/host.h"

static void check_tensors(const CgManifestTensor *t, int n, const char *what)
{
    FZ_ASSERT(n >= 0 && n <= CG_MANIFEST_MAX_IO, "%d %s", n, what);
    for (int i = 0; i < n; i++) {
        FZ_ASSERT(t[i].name, "%s %d has no name", what, i);
        FZ_ASSERT(t[i].rank >= 0 && t[i].rank <= CG_MANIFEST_MAX_RANK, "%s %d: rank %d", what, i, t[i].rank);
        int64_t e = 1;
        for (int k = 0; k < t[i].rank; k++) {
            FZ_ASSERT(t[i].dims[k] >= 0, "%s %d: dim %d < 0", what, i, k);
            e *= t[i].dims[k];
        }
        FZ_ASSERT(e == t[i].elems, "%s %d: %lld elements for dims of product %lld", what, i,
                  (long long)t[i].elems, (long long)e);
        FZ_ASSERT(t[i].elem_size > 0 && (uint64_t)t[i].elems * t[i].elem_size <= CG_MANIFEST_MAX_BYTES,
                  "%s %d: size over the cap", what, i);
    }
}

static int one(const uint8_t *data, size_t size)
{
    const char *path = fz_file("model.json", data, size);
    if (!path)
        return 0;
    IrDiag d;
    diag_init(&d);
    CgManifest m;
    if (cg_manifest_read(path, &m, &d) == 0) {
        check_tensors(m.in, m.n_in, "input");
        check_tensors(m.out, m.n_out, "output");
        check_tensors(m.bound, m.n_bound, "bound input");
        cg_manifest_free(&m);
    } else {
        fz_check_refusal(&d, "cg_manifest_read");
    }
    diag_free(&d);
    return 0;
}

FUZZ_TARGET(manifest, NULL, one)
