/* host_manifest.c - reading back OUT/host/model.json (written by
 * cg_host_write_json in host_files.c) for `onnx2hls verify`.
 *
 * Why a strict reader next to the writer: verify sizes buffers, checks the
 * user's input files and builds command lines from this file, and the file
 * sits in a folder anyone may have edited. So it is parsed as JSON (cJSON,
 * not line matching), every dim must be a whole number >= 0, a rank above
 * 8 is refused (not cut), sizes are multiplied with overflow checks against
 * a cap, and names have no length limit. Every refusal names the file.
 */
#include "host.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/sidefile.h"

static size_t dtype_size(const char *dt)
{
    static const struct {
        const char *name;
        size_t size;
    } t[] = {{"float32", 4}, {"float64", 8}, {"int8", 1},  {"uint8", 1},  {"int16", 2},  {"uint16", 2},
             {"int32", 4},   {"uint32", 4},  {"int64", 8}, {"uint64", 8}, {"bool", 1}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(dt, t[i].name))
            return t[i].size;
    return 0;
}

static char *dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (!p)
        abort();
    return memcpy(p, s, n);
}

/* dims of one tensor: whole numbers >= 0, at most CG_MANIFEST_MAX_RANK,
 * their product times the element size within CG_MANIFEST_MAX_BYTES */
static int read_shape(const cJSON *sh, CgManifestTensor *t, const char *path, IrDiag *d)
{
    int n = cJSON_GetArraySize(sh);
    if (!cJSON_IsArray(sh) || n > CG_MANIFEST_MAX_RANK) {
        diag_error(d, path, NULL, NULL, "tensor '%s': %s", t->name,
                   cJSON_IsArray(sh) ? "rank above 8" : "\"shape\" is not an array");
        return -1;
    }
    uint64_t elems = 1, cap = CG_MANIFEST_MAX_BYTES / t->elem_size;
    for (int k = 0; k < n; k++) {
        const cJSON *v = cJSON_GetArrayItem(sh, k);
        double x = cJSON_IsNumber(v) ? v->valuedouble : -1;
        if (!(x >= 0 && x <= (double)cap && x == floor(x))) {
            diag_error(d, path, NULL, NULL, "tensor '%s': dim %d is not a whole number in [0, %llu]", t->name, k,
                       (unsigned long long)cap);
            return -1;
        }
        t->dims[k] = (int64_t)x;
        if (t->dims[k] && elems > cap / (uint64_t)t->dims[k]) {
            diag_error(d, path, NULL, NULL, "tensor '%s': more than %llu bytes", t->name,
                       (unsigned long long)CG_MANIFEST_MAX_BYTES);
            return -1;
        }
        elems *= (uint64_t)t->dims[k];
    }
    t->rank = n;
    t->elems = (int64_t)elems;
    return 0;
}

static int read_tensor(const cJSON *o, CgManifestTensor *t, const char *path, IrDiag *d)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(o, "dtype");
    if (!cJSON_IsString(name) || !cJSON_IsString(dt)) {
        diag_error(d, path, NULL, NULL, "a tensor without a \"name\" and \"dtype\" string");
        return -1;
    }
    t->name = dup(name->valuestring);
    t->elem_size = dtype_size(dt->valuestring);
    if (!t->elem_size || strlen(dt->valuestring) >= sizeof t->dtype) {
        diag_error(d, path, NULL, NULL, "tensor '%s': unknown dtype '%s'", t->name, dt->valuestring);
        return -1;
    }
    strcpy(t->dtype, dt->valuestring);
    return read_shape(cJSON_GetObjectItemCaseSensitive(o, "shape"), t, path, d);
}

/* a bound value's file: "bound<i>.bin" exactly (nothing outside the folder) */
static int read_file_name(const cJSON *o, CgManifestTensor *t, int i, const char *path, IrDiag *d)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "file");
    snprintf(t->file, sizeof t->file, "bound%d.bin", i);
    if (!cJSON_IsString(f) || strcmp(f->valuestring, t->file)) {
        diag_error(d, path, NULL, NULL, "bound input '%s': \"file\" is not \"%s\"", t->name, t->file);
        return -1;
    }
    return 0;
}

static int read_list(const cJSON *root, const char *key, CgManifestTensor *v, int *n, const char *path,
                     IrDiag *d)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    bool bound = !strcmp(key, "bound");
    if (bound && !a)
        return 0;   /* optional: only a compile with --bind writes it */
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > CG_MANIFEST_MAX_IO) {
        diag_error(d, path, NULL, NULL, "\"%s\" is not an array of at most %d tensors", key, CG_MANIFEST_MAX_IO);
        return -1;
    }
    for (const cJSON *o = a->child; o; o = o->next) {
        CgManifestTensor *t = &v[(*n)++];
        if (read_tensor(o, t, path, d) || (bound && read_file_name(o, t, *n - 1, path, d)))
            return -1;
    }
    return 0;
}

static int read_root(const cJSON *root, CgManifest *m, const char *path, IrDiag *d)
{
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(root, "weights");
    if (!cJSON_IsObject(root) || !cJSON_IsString(model) || !model->valuestring[0]) {
        diag_error(d, path, NULL, NULL, "not a model.json written by onnx2hls compile (no \"model\")");
        return -1;
    }
    m->model = dup(model->valuestring);
    if (!cJSON_IsString(w) || (strcmp(w->valuestring, "weights.bin") && strcmp(w->valuestring, "weights.c"))) {
        diag_error(d, path, NULL, NULL, "\"weights\" is neither \"weights.bin\" nor \"weights.c\"");
        return -1;
    }
    m->embedded = !strcmp(w->valuestring, "weights.c");
    if (read_list(root, "inputs", m->in, &m->n_in, path, d) || read_list(root, "outputs", m->out, &m->n_out, path, d) ||
        read_list(root, "bound", m->bound, &m->n_bound, path, d))
        return -1;
    if (m->n_out == 0) {
        diag_error(d, path, NULL, NULL, "the model has no outputs");
        return -1;
    }
    return 0;
}

int cg_manifest_parse(const char *text, size_t len, const char *path, CgManifest *m, IrDiag *d)
{
    memset(m, 0, sizeof *m);
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        diag_error(d, path, NULL, NULL, "not valid JSON");
        return -1;
    }
    int rc = read_root(root, m, path, d);
    cJSON_Delete(root);
    if (rc)
        cg_manifest_free(m);
    return rc;
}

int cg_manifest_read(const char *path, CgManifest *m, IrDiag *d)
{
    char *text;
    size_t len;
    memset(m, 0, sizeof *m);
    if (sf_read(path, &SF_MODEL_JSON, &text, &len, d))
        return -1;
    int rc = cg_manifest_parse(text, len, path, m, d);
    free(text);
    return rc;
}

void cg_manifest_free(CgManifest *m)
{
    free(m->model);
    for (int i = 0; i < CG_MANIFEST_MAX_IO; i++) {
        free(m->in[i].name);
        free(m->out[i].name);
        free(m->bound[i].name);
    }
    memset(m, 0, sizeof *m);
}
