/* fe_load.c - fe_load_onnx(): map the file, decode it, check the model
 * header, import the graph, free the protobuf message.
 *
 * Why this way: the model file is mapped, not read, and the big weight
 * payloads are cut out of the message before protobuf-c decodes it
 * (fe_wire.c), so weights are never copied: IrTensor.src points into the
 * mapping, which the graph keeps (IrGraph.mapping) until ir_graph_free().
 * Loading a 50 MB model thus costs little more memory than its graph. */
#include "fe_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* raw_data payloads at least this big stay in the mapped file */
#define FE_MIN_MAPPED_RAW 64

#define FE_OPSET_MIN 7
/* opset 6 differs from 7 for our ops only in the legacy broadcast
 * attribute of the arithmetic ops, which import_binary.c handles */
#define FE_OPSET_LEGACY 6
#define FE_OPSET_MAX 21
#define FE_IR_MIN 3
#define FE_IR_MAX 10

typedef struct {
    void *map;
    size_t len;
} Mapping;

static int map_file(const char *path, IrDiag *d, Mapping *m)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY); /* a FIFO is refused, not waited on */
    if (fd < 0) {
        diag_error(d, path, NULL, NULL, "cannot open the model file: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        diag_error(d, path, NULL, NULL, "not a regular file");
        close(fd);
        return -1;
    }
    if (st.st_size == 0) {
        diag_error(d, path, NULL, NULL, "the model file is empty");
        close(fd);
        return -1;
    }
    m->len = (size_t)st.st_size;
    m->map = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m->map == MAP_FAILED) {
        diag_error(d, path, NULL, NULL, "cannot map the model file: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* Decode without the big raw_data payloads when the walker manages,
 * else decode the whole file. */
static Onnx__ModelProto *decode(const Mapping *m, FeRawRefs *refs)
{
    size_t clen = 0;
    uint8_t *compact = fe_wire_compact(m->map, m->len, FE_MIN_MAPPED_RAW, refs, &clen);
    Onnx__ModelProto *mp;
    if (compact) {
        mp = onnx__model_proto__unpack(NULL, clen, compact);
        free(compact);
        if (mp)
            return mp;
        refs->n = 0;
    }
    return onnx__model_proto__unpack(NULL, m->len, m->map);
}

static int64_t default_opset(const Onnx__ModelProto *mp, bool *found)
{
    *found = false;
    int64_t v = 0;
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = mp->opset_import[i];
        if (!o->domain || !*o->domain || strcmp(o->domain, "ai.onnx") == 0) {
            *found = true;
            v = o->has_version ? o->version : 0;
        }
    }
    return v;
}

/* ir_version, opset and graph presence. Fills g's header fields. */
static int check_model(const char *path, const Onnx__ModelProto *mp, IrGraph *g, IrDiag *d)
{
    int bad = 0;
    g->ir_version = mp->has_ir_version ? mp->ir_version : 0;
    if (g->ir_version < FE_IR_MIN) {
        diag_error(d, path, NULL, NULL, "ir_version %lld is not supported (%d..%d)",
                   (long long)g->ir_version, FE_IR_MIN, FE_IR_MAX);
        bad = 1;
    } else if (g->ir_version > FE_IR_MAX) {
        diag_warn(d, path, NULL, NULL,
                  "ir_version %lld is newer than the newest known (%d); importing anyway",
                  (long long)g->ir_version, FE_IR_MAX);
    }
    bool found;
    g->opset = default_opset(mp, &found);
    if (!found) {
        diag_error(d, path, NULL, NULL, "the model imports no opset of the default ONNX domain");
        bad = 1;
    } else if (g->opset == FE_OPSET_LEGACY) {
        diag_warn(d, path, NULL, NULL, "default-domain opset %lld is older than the supported %d..%d; "
                  "importing it with its legacy broadcasting rules", (long long)g->opset,
                  FE_OPSET_MIN, FE_OPSET_MAX);
    } else if (g->opset < FE_OPSET_MIN) {
        diag_error(d, path, NULL, NULL, "default-domain opset %lld is not supported (%d..%d); "
                   "convert the model to a newer opset", (long long)g->opset, FE_OPSET_MIN, FE_OPSET_MAX);
        bad = 1;
    } else if (g->opset > FE_OPSET_MAX) {
        diag_warn(d, path, NULL, NULL, "default-domain opset %lld is newer than the newest supported (%d); "
                  "importing with opset %d semantics", (long long)g->opset, FE_OPSET_MAX, FE_OPSET_MAX);
    }
    if (!mp->graph) {
        diag_error(d, path, NULL, NULL, "the model has no graph");
        bad = 1;
    }
    g->producer = mp->producer_name && *mp->producer_name
                      ? (mp->producer_version && *mp->producer_version
                             ? ir_sprintf(g, "%s %s", mp->producer_name, mp->producer_version)
                             : ir_strdup(g, mp->producer_name))
                      : ir_strdup(g, "");
    return bad ? -1 : 0;
}

static const char *dir_of(IrGraph *g, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ".";
    if (slash == path)
        return "/";
    char *d = ir_alloc(g, (size_t)(slash - path) + 1);
    memcpy(d, path, (size_t)(slash - path));
    return d;
}

IrGraph *fe_load_onnx(const char *path, const FeOptions *opt, IrDiag *d)
{
    Mapping m;
    int errors_before = d->n_errors;
    if (!path || map_file(path, d, &m) < 0)
        return NULL;
    IrGraph *g = ir_graph_new(path);
    g->mapping = m.map; /* unmapped by ir_graph_free() */
    g->mapping_len = m.len;
    FeRawRefs refs = {.g = g};
    Onnx__ModelProto *mp = decode(&m, &refs);
    if (!mp) {
        diag_error(d, path, NULL, NULL, "not a valid ONNX model: the protobuf does not decode "
                   "(truncated or corrupt file?)");
        ir_graph_free(g);
        return NULL;
    }
    if (check_model(path, mp, g, d) == 0) {
        FeCtx c = {.g = g, .d = d, .path = g->path, .dir = dir_of(g, path), .opt = opt,
                   .opset = g->opset > FE_OPSET_MAX ? FE_OPSET_MAX : g->opset,
                   .raw = &refs, .map = m.map};
        fe_import_graph(&c, mp->graph);
    }
    onnx__model_proto__free_unpacked(mp, NULL);
    if (d->n_errors > errors_before) {
        ir_graph_free(g);
        return NULL;
    }
    return g;
}
