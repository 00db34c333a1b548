/* fe_bind.c - graph inputs given a value on the command line (--bind
 * NAME=FILE): each becomes a constant before any node is imported.
 *
 * Why: an op such as Reshape, Expand, Tile, Slice, Resize or Clip needs its
 * shape, repeats, starts, scales or bounds known at compile time, and some
 * exporters (and many of ONNX's own node tests) pass them as graph inputs.
 * Bound, they are constants like initializers, so the importers resolve
 * them and the folder evaluates shape subgraphs built on them; the program
 * no longer takes them as inputs.
 *
 * The file is read bounded (ir/sidefile.h, SF_BIND). A ".pb" file is a
 * serialized TensorProto, decoded with the frontend's bindings; its dtype
 * and dims must agree with the input's declaration where that fixes them,
 * and its data must be in the file (no external data). Any other file is
 * raw little-endian data of the declared dtype and shape (dynamic dims from
 * --input-shape), of exactly that size. Every refusal names the file. */
#include "fe_internal.h"
#include "ir/sidefile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* an error naming the bound file; -1 */
static int bind_err(FeCtx *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bind_err(FeCtx *c, const char *path, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(c->d, path, NULL, NULL, "%s", msg);
    return -1;
}

const FeBind *fe_bind_for(const FeCtx *c, const char *name, int *index)
{
    size_t n = strlen(name);
    for (int i = 0; c->opt && i < c->opt->n_binds; i++) {
        const FeBind *b = &c->opt->binds[i];
        if (b->name_len == n && !memcmp(b->name, name, n)) {
            *index = i;
            return b;
        }
    }
    return NULL;
}

static bool is_pb(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && !strcmp(path + n - 3, ".pb");
}

/* the TensorProto's dtype and dims against the input's declaration */
static int check_decl(FeCtx *c, const char *path, const Onnx__ValueInfoProto *vi, IrDType dt,
                      const Onnx__TensorProto *tp)
{
    const Onnx__TensorShapeProto *sh = vi->type->tensor_type->shape;
    if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return bind_err(c, path, "a bound tensor must hold its data (this one is external)");
    if (!tp->has_data_type || (IrDType)tp->data_type != dt)
        return bind_err(c, path, "a tensor of %s, but input '%s' is declared %s",
                          ir_dtype_name((IrDType)tp->data_type), vi->name, ir_dtype_name(dt));
    if (sh && sh->n_dim != tp->n_dims)
        return bind_err(c, path, "a tensor of rank %zu, but input '%s' has rank %zu", tp->n_dims,
                          vi->name, sh->n_dim);
    for (size_t k = 0; sh && k < sh->n_dim; k++)
        if (sh->dim[k]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
            sh->dim[k]->dim_value != tp->dims[k])
            return bind_err(c, path, "dim %zu is %lld, but input '%s' fixes it to %lld", k,
                              (long long)tp->dims[k], vi->name, (long long)sh->dim[k]->dim_value);
    return 0;
}

static int bind_pb(FeCtx *c, const char *path, const Onnx__ValueInfoProto *vi, IrDType dt, const char *data,
                   size_t len)
{
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, (const uint8_t *)data);
    if (!tp)
        return bind_err(c, path, "not a serialized TensorProto (a .pb file bound to '%s')",
                          vi->name);
    int rc = check_decl(c, path, vi, dt, tp);
    if (rc == 0 && fe_tensor_from_proto(c, NULL, tp, vi->name, NULL, 0) < 0)
        rc = -1;
    onnx__tensor_proto__free_unpacked(tp, NULL);
    return rc;
}

static int bind_raw(FeCtx *c, const char *path, const Onnx__ValueInfoProto *vi, IrDType dt, bool first,
                    const char *data, size_t len)
{
    int rank = 0;
    int64_t dims[IR_MAX_RANK];
    if (fe_input_dims(c, vi, first, &rank, dims) < 0 || fe_check_shape(c, NULL, vi->name, dt, rank, dims) < 0)
        return -1;
    int64_t numel = 1;
    for (int k = 0; k < rank; k++)
        numel *= dims[k];   /* fe_check_shape bounded it */
    uint64_t want = (uint64_t)numel * ir_dtype_size(dt);
    if (len != want)
        return bind_err(c, path, "%zu bytes, but input '%s' (%s, %lld values) needs %llu", len,
                          vi->name, ir_dtype_name(dt), (long long)numel,
                          (unsigned long long)want);
    void *p;
    fe_const_new(c, vi->name, dt, rank, dims, &p);
    if (len)
        memcpy(p, data, len);
    return 0;
}

/* the value of bound constant t, kept for reference runs (IrBound) */
static void record(FeCtx *c, int t)
{
    IrGraph *g = c->g;
    const IrTensor *T = &g->tensors[t];
    size_t n = (size_t)ir_tensor_numel(T) * ir_dtype_size(T->dtype);
    void *copy = ir_alloc(g, n + 1);
    if (n)
        memcpy(copy, ir_tensor_data(g, t), n);
    IrBound *bd = &g->bound[g->n_bound++];   /* at most one per graph input, IR_MAX_IO of them */
    *bd = (IrBound){T->name, T->dtype, T->rank, {0}, copy};
    memcpy(bd->dims, T->dims, sizeof(int64_t) * (size_t)T->rank);
}

void fe_bind_input(FeCtx *c, const Onnx__ValueInfoProto *vi, const FeBind *b, bool first)
{
    const Onnx__TypeProto *tp = vi->type;
    IrDType dt = tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type &&
                         tp->tensor_type->has_elem_type ? (IrDType)tp->tensor_type->elem_type : IR_DT_UNDEF;
    char *data = NULL;
    size_t len = 0;
    int rc = -1;
    if (ir_dtype_size(dt) == 0)
        fe_err(c, NULL, "input '%s' (bound by --bind) is not a tensor of a supported type", vi->name);
    else if (sf_read(b->path, &SF_BIND, &data, &len, c->d) == 0)
        rc = is_pb(b->path) ? bind_pb(c, b->path, vi, dt, data, len) : bind_raw(c, b->path, vi, dt, first, data, len);
    free(data);
    int t = rc ? -1 : fe_map_get(&c->names, vi->name);
    if (t >= 0 && c->g->n_bound < IR_MAX_IO)
        record(c, t);
    else if (rc)
        fe_poison(c, vi->name);
}
