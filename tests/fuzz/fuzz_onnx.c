/* fuzz_onnx.c - a structure-aware mutation of an ONNX model, for the
 * targets that take one (load, passes, plan): decode the bytes with the
 * frontend's protobuf-c bindings, change the graph, encode it again.
 *
 * Why: byte-level mutations of a protobuf mostly break its framing, so the
 * decoder refuses them and the importers, the passes and the planner behind
 * it see the seeds and little else. Edits made on the decoded message keep
 * it a model while changing what those stages read: an attribute set to an
 * edge value or given another type, a dim of a declared shape or of an
 * initializer (its data no longer matching), two node inputs or outputs
 * swapped (rewired graphs, cycles, dangling names), an op type replaced, a
 * node dropped, the opset changed, an initializer's data cut.
 *
 * Every write goes through an undo log and is reverted after packing, so the
 * message protobuf-c frees is the one it decoded (static strings and
 * shortened counts never reach its free). */
#include "fuzz.h"

#include <string.h>

#include "onnx.pb-c.h"

typedef struct {
    void *at;
    size_t n;
    uint8_t old[16];
} Undo;

typedef struct {
    uint64_t s;
    Undo log[64];
    int n_log;
} Mut;

static uint64_t rnd(Mut *m)
{
    m->s ^= m->s << 13;
    m->s ^= m->s >> 7;
    m->s ^= m->s << 17;
    return m->s;
}

static size_t pick(Mut *m, size_t n)
{
    return n ? (size_t)(rnd(m) % n) : 0;
}

/* *at = the n bytes at v, logged */
static void put(Mut *m, void *at, const void *v, size_t n)
{
    if (m->n_log == 64 || n > 16)
        return;
    Undo *u = &m->log[m->n_log++];
    u->at = at;
    u->n = n;
    memcpy(u->old, at, n);
    memcpy(at, v, n);
}

#define PUT(m, lv, val)                      \
    do {                                     \
        __typeof__(lv) v_ = (val);           \
        put((m), &(lv), &v_, sizeof v_);     \
    } while (0)

static void undo_all(Mut *m)
{
    while (m->n_log > 0) {
        Undo *u = &m->log[--m->n_log];
        memcpy(u->at, u->old, u->n);
    }
}

static const int64_t edge_ints[] = {0, 1, -1, 2, 3, -2, 7, 64, 1 << 20, -(1 << 20), INT32_MAX, INT32_MIN,
                                    INT64_MAX, INT64_MIN, (int64_t)1 << 40};
static const float edge_floats[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1e-30f, 1e30f, -1e30f, 6.0f,
                                    __builtin_inff(), -__builtin_inff(), __builtin_nanf("")};
static const char *const ops[] = {"Conv", "Relu", "Add", "Mul", "Gemm", "MatMul", "MaxPool", "AveragePool",
                                  "GlobalAveragePool", "BatchNormalization", "Concat", "Split", "Slice",
                                  "Reshape", "Transpose", "Flatten", "Clip", "Sigmoid", "Identity",
                                  "Pad", "Resize", "Gather", "Softmax", "ReduceMean", "Squeeze",
                                  "Unsqueeze", "Shape", "Constant", "QuantizeLinear", "DequantizeLinear",
                                  "ConvTranspose", "HardSwish", "Sub", "Div", "Expand", "Cast"};

static int64_t edge_int(Mut *m)
{
    return rnd(m) % 3 ? (int64_t)pick(m, 9) - 1 : edge_ints[pick(m, sizeof edge_ints / sizeof *edge_ints)];
}

static Onnx__TensorShapeProto *shape_of(Onnx__ValueInfoProto *vi)
{
    if (!vi || !vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type)
        return NULL;
    return vi->type->tensor_type->shape;
}

static Onnx__ValueInfoProto *any_value(Mut *m, Onnx__GraphProto *g)
{
    size_t n = g->n_input + g->n_output + g->n_value_info, k = pick(m, n);
    if (!n)
        return NULL;
    if (k < g->n_input)
        return g->input[k];
    k -= g->n_input;
    return k < g->n_output ? g->output[k] : g->value_info[k - g->n_output];
}

static void edit_attr(Mut *m, Onnx__GraphProto *g)
{
    if (!g->n_node)
        return;
    Onnx__NodeProto *n = g->node[pick(m, g->n_node)];
    if (!n->n_attribute)
        return;
    Onnx__AttributeProto *a = n->attribute[pick(m, n->n_attribute)];
    switch (rnd(m) % 6) {
    case 0:
        PUT(m, a->i, edge_int(m));
        PUT(m, a->has_i, 1);
        break;
    case 1:
        if (a->n_ints)
            PUT(m, a->ints[pick(m, a->n_ints)], edge_int(m));
        break;
    case 2:
        if (a->n_ints)
            PUT(m, a->n_ints, pick(m, a->n_ints));
        break;
    case 3:
        PUT(m, a->f, edge_floats[pick(m, sizeof edge_floats / sizeof *edge_floats)]);
        PUT(m, a->has_f, 1);
        if (a->n_floats)
            PUT(m, a->floats[pick(m, a->n_floats)], edge_floats[pick(m, sizeof edge_floats / sizeof *edge_floats)]);
        break;
    case 4: /* another type: the importer reads a field the attribute does not carry */
        PUT(m, a->type, (Onnx__AttributeProto__AttributeType)(1 + pick(m, 10)));
        break;
    default: /* another attribute's name */
        PUT(m, a->name, n->attribute[pick(m, n->n_attribute)]->name);
        break;
    }
}

static void edit_dim(Mut *m, Onnx__GraphProto *g)
{
    if (rnd(m) % 2 && g->n_initializer) {
        Onnx__TensorProto *t = g->initializer[pick(m, g->n_initializer)];
        if (t->n_dims && rnd(m) % 3)
            PUT(m, t->dims[pick(m, t->n_dims)], edge_int(m));
        else if (t->n_dims)
            PUT(m, t->n_dims, pick(m, t->n_dims));
        else if (t->has_raw_data && t->raw_data.len)
            PUT(m, t->raw_data.len, pick(m, t->raw_data.len));
        return;
    }
    Onnx__TensorShapeProto *sh = shape_of(any_value(m, g));
    if (!sh || !sh->n_dim)
        return;
    if (rnd(m) % 4 == 0) {
        PUT(m, sh->n_dim, pick(m, sh->n_dim));
        return;
    }
    Onnx__TensorShapeProto__Dimension *d = sh->dim[pick(m, sh->n_dim)];
    PUT(m, d->value_case, ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE);
    PUT(m, d->dim_value, edge_int(m));
}

/* one of the names a node reads or writes */
static char **any_name(Mut *m, Onnx__GraphProto *g)
{
    Onnx__NodeProto *n = g->node[pick(m, g->n_node)];
    size_t k = pick(m, n->n_input + n->n_output);
    if (!n->n_input && !n->n_output)
        return NULL;
    return k < n->n_input ? &n->input[k] : &n->output[k - n->n_input];
}

static void edit_graph(Mut *m, Onnx__ModelProto *mp, Onnx__GraphProto *g)
{
    switch (rnd(m) % 5) {
    case 0: { /* rewire: a name written over by another */
        if (!g->n_node)
            break;
        char **a = any_name(m, g), **b = any_name(m, g);
        if (a && b)
            PUT(m, *a, *b);
        break;
    }
    case 1:
        if (g->n_node)
            PUT(m, g->node[pick(m, g->n_node)]->op_type, (char *)ops[pick(m, sizeof ops / sizeof *ops)]);
        break;
    case 2: /* drop a node: the last one moved into its place */
        if (g->n_node > 1) {
            size_t k = pick(m, g->n_node);
            PUT(m, g->node[k], g->node[g->n_node - 1]);
            PUT(m, g->n_node, g->n_node - 1);
        }
        break;
    case 3: /* an input or output fewer */
        if (g->n_node) {
            Onnx__NodeProto *n = g->node[pick(m, g->n_node)];
            if (rnd(m) % 2 && n->n_input)
                PUT(m, n->n_input, n->n_input - 1);
            else if (n->n_output)
                PUT(m, n->n_output, n->n_output - 1);
        }
        break;
    default:
        for (size_t i = 0; i < mp->n_opset_import; i++)
            if (!mp->opset_import[i]->domain || !*mp->opset_import[i]->domain)
                PUT(m, mp->opset_import[i]->version, (int64_t)(5 + pick(m, 19)));
        break;
    }
}

size_t fz_onnx_mutate(uint8_t *data, size_t size, size_t max, uint64_t seed)
{
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, size, data);
    if (!mp)
        return 0;
    Mut m = {.s = seed * 0x9e3779b97f4a7c15ull + 1};
    size_t out = 0;
    if (mp->graph) {
        int edits = 1 + (int)pick(&m, 3);
        for (int e = 0; e < edits; e++) {
            switch (rnd(&m) % 3) {
            case 0:
                edit_attr(&m, mp->graph);
                break;
            case 1:
                edit_dim(&m, mp->graph);
                break;
            default:
                edit_graph(&m, mp, mp->graph);
                break;
            }
        }
        size_t n = onnx__model_proto__get_packed_size(mp);
        uint8_t *buf = n <= max && n > 0 ? malloc(n) : NULL;
        if (buf && onnx__model_proto__pack(mp, buf) == n) {
            memcpy(data, buf, n);
            out = n;
        }
        free(buf);
    }
    undo_all(&m);
    onnx__model_proto__free_unpacked(mp, NULL);
    return out;
}
