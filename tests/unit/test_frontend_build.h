/* test_frontend_build.h - build small ONNX models in memory for the
 * frontend tests, pack them to temp files and load them.
 *
 * Why: the tests need models exercising one feature each (a storage form,
 * an opset variant, a malformed field); writing them with the protobuf-c
 * API keeps every case readable in C next to its checks. Everything a
 * builder allocates is recorded and freed by mb_free(), so the tests run
 * clean under LeakSanitizer. Capacities are fixed and small on purpose. */
#ifndef TEST_FRONTEND_BUILD_H
#define TEST_FRONTEND_BUILD_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "onnx.pb-c.h"

#ifndef MB_CAP
#define MB_CAP 64
#endif

typedef struct {
    void **allocs;
    size_t n_allocs, cap_allocs;
    Onnx__ModelProto model;
    Onnx__GraphProto graph;
    Onnx__OperatorSetIdProto opset;
    Onnx__OperatorSetIdProto *opsets[4];
    Onnx__NodeProto *nodes[MB_CAP];
    Onnx__TensorProto *inits[MB_CAP];
    Onnx__ValueInfoProto *inputs[MB_CAP], *outputs[MB_CAP];
    char path[256];
} Mb;

static inline void *mb_alloc(Mb *b, size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (b->n_allocs == b->cap_allocs) {
        b->cap_allocs = b->cap_allocs ? 2 * b->cap_allocs : 256;
        b->allocs = realloc(b->allocs, b->cap_allocs * sizeof *b->allocs);
    }
    b->allocs[b->n_allocs++] = p;
    return p;
}

static inline char *mb_str(Mb *b, const char *s)
{
    char *p = mb_alloc(b, strlen(s) + 1);
    strcpy(p, s);
    return p;
}

static inline Mb *mb_new(int64_t opset)
{
    Mb *b = calloc(1, sizeof *b);
    onnx__model_proto__init(&b->model);
    onnx__graph_proto__init(&b->graph);
    onnx__operator_set_id_proto__init(&b->opset);
    b->opset.domain = mb_str(b, "");
    b->opset.has_version = 1;
    b->opset.version = opset;
    b->opsets[0] = &b->opset;
    b->model.n_opset_import = 1;
    b->model.opset_import = b->opsets;
    b->model.has_ir_version = 1;
    b->model.ir_version = 8;
    b->model.producer_name = mb_str(b, "frontend-test");
    b->model.graph = &b->graph;
    b->graph.name = mb_str(b, "g");
    b->graph.node = b->nodes;
    b->graph.initializer = b->inits;
    b->graph.input = b->inputs;
    b->graph.output = b->outputs;
    snprintf(b->path, sizeof b->path, "/tmp/o2h_fe_test_%d_XXXXXX", (int)getpid());
    int fd = mkstemp(b->path);
    if (fd >= 0)
        close(fd);
    return b;
}

static inline void mb_free(Mb *b)
{
    for (size_t i = 0; i < b->n_allocs; i++)
        free(b->allocs[i]);
    free(b->allocs);
    unlink(b->path);
    free(b);
}

/* ------------------------------------------------------------- values */

/* dims < 0 become dim_param "d<axis>" unless params names them. rank < 0:
 * no shape at all. */
static inline Onnx__ValueInfoProto *mb_value(Mb *b, const char *name, int dt, int rank,
                                      const int64_t *dims, const char *const *params)
{
    Onnx__ValueInfoProto *v = mb_alloc(b, sizeof *v);
    onnx__value_info_proto__init(v);
    v->name = mb_str(b, name);
    Onnx__TypeProto *tp = mb_alloc(b, sizeof *tp);
    onnx__type_proto__init(tp);
    Onnx__TypeProto__Tensor *tt = mb_alloc(b, sizeof *tt);
    onnx__type_proto__tensor__init(tt);
    tt->has_elem_type = 1;
    tt->elem_type = dt;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    v->type = tp;
    if (rank < 0)
        return v;
    Onnx__TensorShapeProto *sh = mb_alloc(b, sizeof *sh);
    onnx__tensor_shape_proto__init(sh);
    sh->n_dim = (size_t)rank;
    sh->dim = mb_alloc(b, sizeof(void *) * (size_t)(rank ? rank : 1));
    for (int k = 0; k < rank; k++) {
        Onnx__TensorShapeProto__Dimension *d = mb_alloc(b, sizeof *d);
        onnx__tensor_shape_proto__dimension__init(d);
        if (dims[k] >= 0) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = dims[k];
        } else {
            char buf[32];
            snprintf(buf, sizeof buf, "d%d", k);
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            d->dim_param = mb_str(b, params && params[k] ? params[k] : buf);
        }
        sh->dim[k] = d;
    }
    tt->shape = sh;
    return v;
}

static inline void mb_input(Mb *b, const char *name, int dt, int rank, const int64_t *dims)
{
    b->inputs[b->graph.n_input++] = mb_value(b, name, dt, rank, dims, NULL);
}

static inline void mb_output(Mb *b, const char *name, int dt, int rank, const int64_t *dims)
{
    b->outputs[b->graph.n_output++] = mb_value(b, name, dt, rank, dims, NULL);
}

/* A tensor with no data yet. */
static inline Onnx__TensorProto *mb_tensor(Mb *b, const char *name, int dt, int rank, const int64_t *dims)
{
    Onnx__TensorProto *t = mb_alloc(b, sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = name ? mb_str(b, name) : NULL;
    t->has_data_type = 1;
    t->data_type = dt;
    t->n_dims = (size_t)rank;
    t->dims = mb_alloc(b, sizeof(int64_t) * (size_t)(rank ? rank : 1));
    if (rank)
        memcpy(t->dims, dims, sizeof(int64_t) * (size_t)rank);
    return t;
}

static inline void mb_raw(Mb *b, Onnx__TensorProto *t, const void *data, size_t len)
{
    t->has_raw_data = 1;
    t->raw_data.len = len;
    t->raw_data.data = mb_alloc(b, len);
    memcpy(t->raw_data.data, data, len);
}

static inline Onnx__TensorProto *mb_init(Mb *b, Onnx__TensorProto *t)
{
    b->inits[b->graph.n_initializer++] = t;
    return t;
}

/* float initializer in raw_data */
static inline Onnx__TensorProto *mb_init_f(Mb *b, const char *name, int rank, const int64_t *dims,
                                    const float *v)
{
    Onnx__TensorProto *t = mb_tensor(b, name, 1, rank, dims);
    size_t n = 1;
    for (int k = 0; k < rank; k++)
        n *= (size_t)dims[k];
    if (v) {
        mb_raw(b, t, v, n * 4);
    } else {
        float *z = mb_alloc(b, n * 4);
        mb_raw(b, t, z, n * 4);
    }
    return mb_init(b, t);
}

/* int64 1-D initializer in raw_data */
static inline Onnx__TensorProto *mb_init_i64(Mb *b, const char *name, int n, const int64_t *v)
{
    int64_t d = n;
    Onnx__TensorProto *t = mb_tensor(b, name, 7, 1, &d);
    mb_raw(b, t, v, (size_t)n * 8);
    return mb_init(b, t);
}

/* -------------------------------------------------------------- nodes */

static inline void mb_split(Mb *b, const char *list, size_t *n, char ***out)
{
    *n = 0;
    *out = mb_alloc(b, sizeof(char *) * 32);
    if (!list || !*list)
        return;
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *s = mb_alloc(b, len + 1);
        memcpy(s, p, len);
        (*out)[(*n)++] = s;
        if (!e)
            break;
        p = e + 1;
    }
}

/* Inputs and outputs as comma-separated names; "" entries are omitted
 * optional values (",x" = first omitted). */
static inline Onnx__NodeProto *mb_node(Mb *b, const char *op, const char *name, const char *ins,
                                const char *outs)
{
    Onnx__NodeProto *n = mb_alloc(b, sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = mb_str(b, op);
    n->name = mb_str(b, name ? name : "");
    mb_split(b, ins, &n->n_input, &n->input);
    mb_split(b, outs, &n->n_output, &n->output);
    n->attribute = mb_alloc(b, sizeof(void *) * 16);
    b->nodes[b->graph.n_node++] = n;
    return n;
}

static inline Onnx__AttributeProto *mb_attr(Mb *b, Onnx__NodeProto *n, const char *name, int type)
{
    Onnx__AttributeProto *a = mb_alloc(b, sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = mb_str(b, name);
    a->has_type = 1;
    a->type = type;
    n->attribute[n->n_attribute++] = a;
    return a;
}

static inline void mb_attr_i(Mb *b, Onnx__NodeProto *n, const char *name, int64_t v)
{
    Onnx__AttributeProto *a = mb_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
}

static inline void mb_attr_f(Mb *b, Onnx__NodeProto *n, const char *name, float v)
{
    Onnx__AttributeProto *a = mb_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1;
    a->f = v;
}

static inline void mb_attr_s(Mb *b, Onnx__NodeProto *n, const char *name, const char *v)
{
    Onnx__AttributeProto *a = mb_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    a->has_s = 1;
    a->s.len = strlen(v);
    a->s.data = (uint8_t *)mb_str(b, v);
}

static inline void mb_attr_ints(Mb *b, Onnx__NodeProto *n, const char *name, int cnt, const int64_t *v)
{
    Onnx__AttributeProto *a = mb_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a->n_ints = (size_t)cnt;
    a->ints = mb_alloc(b, sizeof(int64_t) * (size_t)(cnt ? cnt : 1));
    memcpy(a->ints, v, sizeof(int64_t) * (size_t)cnt);
}

static inline void mb_attr_floats(Mb *b, Onnx__NodeProto *n, const char *name, int cnt, const float *v)
{
    Onnx__AttributeProto *a = mb_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
    a->n_floats = (size_t)cnt;
    a->floats = mb_alloc(b, sizeof(float) * (size_t)(cnt ? cnt : 1));
    memcpy(a->floats, v, sizeof(float) * (size_t)cnt);
}

static inline void mb_attr_t(Mb *b, Onnx__NodeProto *n, const char *name, Onnx__TensorProto *t)
{
    Onnx__AttributeProto *a = mb_attr(b, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
    a->t = t;
}

/* ------------------------------------------------------------ writing */

static inline uint8_t *mb_pack(Mb *b, size_t *len)
{
    *len = onnx__model_proto__get_packed_size(&b->model);
    uint8_t *buf = malloc(*len ? *len : 1);
    onnx__model_proto__pack(&b->model, buf);
    return buf;
}

static inline void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        if (n)
            fwrite(p, 1, n, f);
        fclose(f);
    }
}

static inline const char *mb_write(Mb *b)
{
    size_t len;
    uint8_t *buf = mb_pack(b, &len);
    write_bytes(b->path, buf, len);
    free(buf);
    return b->path;
}

/* Pack, load with opt (may be NULL) into d (initialized here). */
static inline IrGraph *mb_load(Mb *b, const FeOptions *opt, IrDiag *d)
{
    diag_init(d);
    return fe_load_onnx(mb_write(b), opt, d);
}

/* ------------------------------------------------------------ lookups */

static inline int count_layers(const IrGraph *g, IrOp op)
{
    int n = 0;
    for (int l = 0; l < g->n_layers; l++)
        n += g->layers[l].op == op;
    return n;
}

static inline const IrTensor *tensor_named(const IrGraph *g, const char *name)
{
    int t = ir_tensor_find(g, name);
    return t >= 0 ? &g->tensors[t] : NULL;
}

static inline int shape_eq(const IrTensor *t, int rank, const int64_t *dims)
{
    if (!t || t->rank != rank)
        return 0;
    for (int k = 0; k < rank; k++)
        if (t->dims[k] != dims[k])
            return 0;
    return 1;
}

#define D(...) ((const int64_t[]){__VA_ARGS__})
/* SHAPE(g, "name", rank, d0, d1, ...) for rank >= 1 */
#define SHAPE(g, name, rank, ...) shape_eq(tensor_named((g), (name)), (rank), D(__VA_ARGS__))

#endif
