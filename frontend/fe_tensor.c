/* fe_tensor.c - TensorProto -> constant IrTensor, in every storage form.
 *
 * Why here: ONNX stores tensor values in seven ways (raw_data, float_data,
 * int32_data for all small integer types and float16, int64_data,
 * double_data, uint64_data, external files), and real exporters use all of
 * them. Big raw_data payloads stay in the mapped model file (IrTensor.src,
 * zero copy, see fe_wire.c); every other form is converted into arena memory
 * (IrTensor.data). Sizes are checked against the shape before anything is
 * read, so a truncated or lying file is reported instead of overrun. */
#include "fe_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fe_check_shape(FeCtx *c, const FeNode *n, const char *tname, IrDType dt, int rank,
                   const int64_t *dims)
{
    if (rank < 0 || rank > IR_MAX_RANK)
        return fe_err(c, n, "tensor '%s' has rank %d; at most %d is supported", tname, rank,
                      IR_MAX_RANK);
    int64_t bytes = (int64_t)(ir_dtype_size(dt) ? ir_dtype_size(dt) : 1);
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0)
            return fe_err(c, n, "tensor '%s' has negative dimension %lld on axis %d", tname,
                          (long long)dims[i], i);
        if (dims[i] && bytes > FE_MAX_TENSOR_BYTES / dims[i])
            return fe_err(c, n, "tensor '%s' is absurdly large (more than %lld bytes)", tname,
                          (long long)FE_MAX_TENSOR_BYTES);
        bytes = dims[i] ? bytes * dims[i] : 0;
    }
    return 0;
}

const char *fe_gen_name(FeCtx *c, const char *base, const char *suffix)
{
    for (;;) {
        const char *s = ir_sprintf(c->g, "%s__%s%d", base, suffix, c->gen_id++);
        if (fe_map_get(&c->names, s) < 0)
            return s;
    }
}

int fe_const_new(FeCtx *c, const char *name, IrDType dt, int rank, const int64_t *dims, void **data)
{
    int t = ir_const_add(c->g, name, dt, rank, dims, data);
    fe_map_put(&c->names, c->g->tensors[t].name, t);
    return t;
}

/* ------------------------------------------------------- external data */

static const char *ext_value(const Onnx__TensorProto *tp, const char *key)
{
    for (size_t i = 0; i < tp->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = tp->external_data[i];
        if (e->key && strcmp(e->key, key) == 0)
            return e->value ? e->value : "";
    }
    return NULL;
}

static int parse_size(const char *s, int64_t *v)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (*end || errno || x < 0)
        return -1;
    *v = x;
    return 0;
}

/* True when location stays inside the model directory: relative, and its
 * resolved path (symlinks followed) lies under the resolved directory. */
static bool path_inside(const char *dir, const char *loc, char *resolved)
{
    if (!*loc || loc[0] == '/')
        return false;
    char full[PATH_MAX], rdir[PATH_MAX];
    if (snprintf(full, sizeof full, "%s/%s", dir, loc) >= (int)sizeof full)
        return false;
    if (!realpath(dir, rdir) || !realpath(full, resolved))
        return false;
    size_t n = strlen(rdir);
    if (strcmp(rdir, "/") == 0)
        return true;
    return strncmp(resolved, rdir, n) == 0 && resolved[n] == '/';
}

static int read_external(FeCtx *c, const FeNode *n, const Onnx__TensorProto *tp, IrTensor *t,
                         size_t nbytes)
{
    const char *loc = ext_value(tp, "location");
    int64_t off = 0, len = (int64_t)nbytes;
    char resolved[PATH_MAX];
    if (!loc)
        return fe_err(c, n, "tensor '%s': external data without a 'location'", t->name);
    if (!path_inside(c->dir, loc, resolved))
        return fe_err(c, n,
                      "tensor '%s': external data location '%s' is missing or escapes the model directory",
                      t->name, loc);
    if (ext_value(tp, "offset") && parse_size(ext_value(tp, "offset"), &off) < 0)
        return fe_err(c, n, "tensor '%s': bad external data offset", t->name);
    if (ext_value(tp, "length") && parse_size(ext_value(tp, "length"), &len) < 0)
        return fe_err(c, n, "tensor '%s': bad external data length", t->name);
    if ((size_t)len != nbytes)
        return fe_err(c, n, "tensor '%s': external data length %lld does not match its shape (%zu bytes)",
                      t->name, (long long)len, nbytes);
    int fd = open(resolved, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY); /* a FIFO: refused below */
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return fe_err(c, n, "tensor '%s': cannot open external data file '%s'", t->name, loc);
    }
    if (off > st.st_size || (int64_t)nbytes > st.st_size - off) {
        close(fd);
        return fe_err(c, n,
                      "tensor '%s': external data file '%s' is too short (%lld bytes at offset %lld needed)",
                      t->name, loc, (long long)nbytes, (long long)off);
    }
    t->data = ir_alloc(c->g, nbytes ? nbytes : 1);
    size_t got = 0;
    while (got < nbytes) {
        ssize_t r = pread(fd, (char *)t->data + got, nbytes - got, (off_t)(off + (int64_t)got));
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got != nbytes)
        return fe_err(c, n, "tensor '%s': reading external data file '%s' failed", t->name, loc);
    return 0;
}

/* ------------------------------------------------------- typed fields */

static int count_error(FeCtx *c, const FeNode *n, IrTensor *t, const char *field, size_t have,
                       int64_t want)
{
    return fe_err(c, n, "tensor '%s': %s holds %zu values but its shape needs %lld%s", t->name,
                  field, have, (long long)want,
                  (int64_t)have < want ? " (data shorter than its shape)" : "");
}

/* Convert the type-specific repeated field into t->data. */
static int read_typed(FeCtx *c, const FeNode *n, const Onnx__TensorProto *tp, IrTensor *t,
                      int64_t numel)
{
    IrDType dt = t->dtype;
    size_t have;
    const char *field;
    switch (dt) {
    case IR_DT_FLOAT: have = tp->n_float_data, field = "float_data"; break;
    case IR_DT_DOUBLE: have = tp->n_double_data, field = "double_data"; break;
    case IR_DT_INT64: have = tp->n_int64_data, field = "int64_data"; break;
    case IR_DT_UINT32: case IR_DT_UINT64: have = tp->n_uint64_data, field = "uint64_data"; break;
    default: have = tp->n_int32_data, field = "int32_data"; break;
    }
    /* check before allocating: the shape may claim far more than is there */
    if ((int64_t)have != numel)
        return count_error(c, n, t, field, have, numel);
    t->data = ir_alloc(c->g, (size_t)numel * ir_dtype_size(dt) + 1);
    if (numel == 0)
        return 0;
    switch (dt) {
    case IR_DT_FLOAT:
        memcpy(t->data, tp->float_data, (size_t)numel * 4);
        return 0;
    case IR_DT_DOUBLE:
        memcpy(t->data, tp->double_data, (size_t)numel * 8);
        return 0;
    case IR_DT_INT64:
        memcpy(t->data, tp->int64_data, (size_t)numel * 8);
        return 0;
    case IR_DT_UINT32:
    case IR_DT_UINT64:
        for (int64_t i = 0; i < numel; i++) {
            uint64_t v = tp->uint64_data[i];
            if (dt == IR_DT_UINT32) {
                uint32_t w = (uint32_t)v;
                memcpy((char *)t->data + 4 * i, &w, 4);
            } else {
                memcpy((char *)t->data + 8 * i, &v, 8);
            }
        }
        return 0;
    case IR_DT_INT32: case IR_DT_INT16: case IR_DT_INT8: case IR_DT_UINT16:
    case IR_DT_UINT8: case IR_DT_BOOL: case IR_DT_FLOAT16: case IR_DT_BFLOAT16:
        /* int32_data carries the value (or the 16-bit pattern) per element */
        for (int64_t i = 0; i < numel; i++)
            fe_store_i(dt == IR_DT_FLOAT16 || dt == IR_DT_BFLOAT16 ? IR_DT_UINT16 : dt, t->data, i,
                       tp->int32_data[i]);
        return 0;
    default:
        return fe_err(c, n, "tensor '%s': data type %s is not supported", t->name,
                      ir_dtype_name(dt));
    }
}

static bool has_typed_data(const Onnx__TensorProto *tp)
{
    return tp->n_float_data || tp->n_int32_data || tp->n_int64_data || tp->n_double_data ||
           tp->n_uint64_data || tp->n_string_data;
}

static int bad_raw(FeCtx *c, const FeNode *n, const IrTensor *t, size_t raw_len, size_t nbytes)
{
    return fe_err(c, n, "tensor '%s': raw_data has %zu bytes but its shape needs %zu%s", t->name,
                  raw_len, nbytes, raw_len < nbytes ? " (data shorter than its shape)" : "");
}

/* Point t at its values, or copy/convert them into the arena. */
static int fill_data(FeCtx *c, const FeNode *n, const Onnx__TensorProto *tp, IrTensor *t,
                     const uint8_t *raw, size_t raw_len)
{
    int64_t numel = ir_tensor_numel(t);
    size_t nbytes = (size_t)numel * ir_dtype_size(t->dtype);
    if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return read_external(c, n, tp, t, nbytes);
    if (raw) { /* left in the mapped file by fe_wire_compact() */
        if (raw_len != nbytes)
            return bad_raw(c, n, t, raw_len, nbytes);
        t->src = raw;
        return 0;
    }
    if (tp->has_raw_data) { /* the protobuf message dies before import ends: copy */
        if (tp->raw_data.len != nbytes)
            return bad_raw(c, n, t, tp->raw_data.len, nbytes);
        t->data = ir_alloc(c->g, nbytes + 1);
        if (nbytes)
            memcpy(t->data, tp->raw_data.data, nbytes);
        return 0;
    }
    if (!has_typed_data(tp)) {
        if (numel != 0)
            return fe_err(c, n, "tensor '%s' has no data (its shape needs %lld values)", t->name,
                          (long long)numel);
        t->data = ir_alloc(c->g, 1);
        return 0;
    }
    return read_typed(c, n, tp, t, numel);
}

static int check_proto(FeCtx *c, const FeNode *n, const Onnx__TensorProto *tp, const char *name)
{
    IrDType dt = tp->has_data_type ? (IrDType)tp->data_type : IR_DT_UNDEF;
    if (ir_dtype_size(dt) == 0)
        return fe_err(c, n, "tensor '%s' has unsupported data type %d (%s)", name, (int)dt,
                      dt == IR_DT_STRING ? "string" : ir_dtype_name(dt));
    if (tp->segment)
        return fe_err(c, n, "tensor '%s' is segmented; segmented tensors are not supported", name);
    if (tp->n_dims > IR_MAX_RANK)
        return fe_err(c, n, "tensor '%s' has rank %zu; at most %d is supported", name, tp->n_dims,
                      IR_MAX_RANK);
    return fe_check_shape(c, n, name, dt, (int)tp->n_dims, tp->dims);
}

int fe_tensor_from_proto(FeCtx *c, const FeNode *n, const Onnx__TensorProto *tp, const char *name,
                         const uint8_t *raw, size_t raw_len)
{
    if (check_proto(c, n, tp, name) < 0) {
        fe_poison(c, name);
        return -1;
    }
    IrDType dt = (IrDType)tp->data_type;
    int rank = (int)tp->n_dims;
    int t = ir_tensor_add(c->g, name, dt, rank, tp->dims);
    IrTensor *T = &c->g->tensors[t];
    T->kind = IR_T_CONST;
    fe_map_put(&c->names, T->name, t);
    if (fill_data(c, n, tp, T, raw, raw_len) < 0) {
        /* keep the name bound so consumers are skipped, not re-reported */
        T->kind = IR_T_ACT;
        T->rank = -1;
        T->src = NULL;
        T->data = NULL;
        return -1;
    }
    return t;
}
