/* fe_io.c - the graph's boundary: initializers, graph inputs (with their
 * dynamic dims bound from --input-shape, or their values from --bind:
 * fe_bind.c) and graph outputs (checked against their declared types and
 * shapes).
 *
 * Why apart from fe_graph.c: these are the places where a user's options and
 * a file's declarations meet what the importers compute, and where most
 * "the model is wrong" and "you must tell me the shape" messages come from;
 * the node-by-node driver stays in fe_graph.c. */
#include "fe_internal.h"

#include <string.h>

/* ------------------------------------------------------- initializers */

static int find_raw_init(const FeCtx *c, int k, int *cursor)
{
    /* refs are in file order, so initializer refs come sorted by index */
    const FeRawRefs *r = c->raw;
    while (*cursor < r->n && (r->v[*cursor].init < 0 || r->v[*cursor].init < k))
        (*cursor)++;
    return *cursor < r->n && r->v[*cursor].init == k ? *cursor : -1;
}

void fe_import_initializers(FeCtx *c, const Onnx__GraphProto *gp)
{
    int cursor = 0;
    for (size_t k = 0; k < gp->n_initializer; k++) {
        const Onnx__TensorProto *tp = gp->initializer[k];
        if (!tp->name || !*tp->name) {
            fe_err(c, NULL, "initializer #%zu has no name", k);
            continue;
        }
        if (fe_map_get(&c->names, tp->name) >= 0) {
            fe_err(c, NULL, "initializer '%s' is defined twice", tp->name);
            continue;
        }
        int ri = find_raw_init(c, (int)k, &cursor);
        const uint8_t *raw = ri >= 0 ? c->map + c->raw->v[ri].off : NULL;
        size_t raw_len = ri >= 0 ? c->raw->v[ri].len : 0;
        fe_tensor_from_proto(c, NULL, tp, tp->name, raw, raw_len);
    }
    if (gp->n_sparse_initializer)
        fe_err(c, NULL, "the graph has %zu sparse initializers; sparse tensors are not supported",
               gp->n_sparse_initializer);
}

/* Index the raw refs of node attributes by node (they come in file order,
 * so the refs of one node are adjacent). */
void fe_index_node_raw(FeCtx *c, size_t n_node)
{
    c->node_raw = ir_alloc(c->g, (n_node + 1) * sizeof(int));
    for (size_t i = 0; i < n_node; i++)
        c->node_raw[i] = -1;
    for (int i = c->raw->n - 1; i >= 0; i--) {
        const FeRawRef *r = &c->raw->v[i];
        if (r->init < 0 && r->node >= 0 && (size_t)r->node < n_node)
            c->node_raw[r->node] = i;
    }
}

const FeRawRef *fe_node_raw(const FeCtx *c, int node, int attr)
{
    if (!c->node_raw || node < 0)
        return NULL;
    for (int i = c->node_raw[node]; i >= 0 && i < c->raw->n && c->raw->v[i].node == node &&
                                    c->raw->v[i].init < 0;
         i++)
        if (c->raw->v[i].attr == attr)
            return &c->raw->v[i];
    return NULL;
}

/* -------------------------------------------------------------- inputs */

static const FeInputShape *option_for(const FeCtx *c, const char *name, bool first)
{
    if (!c->opt)
        return NULL;
    for (int i = 0; i < c->opt->n_shapes; i++) {
        const FeInputShape *s = &c->opt->shapes[i];
        if ((s->name[0] && strcmp(s->name, name) == 0) || (!s->name[0] && first))
            return s;
    }
    return NULL;
}

/* Append " axis A ('param')" for each dim left dynamic to buf. */
static int list_dynamic(const Onnx__TensorShapeProto *sh, char *buf, size_t cap)
{
    int n = 0;
    size_t len = 0;
    for (size_t k = 0; k < sh->n_dim; k++) {
        const Onnx__TensorShapeProto__Dimension *d = sh->dim[k];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
            continue;
        const char *param = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                                    d->dim_param && *d->dim_param ? d->dim_param : "?";
        int w = snprintf(buf + len, len < cap ? cap - len : 0, "%saxis %zu ('%s')", n ? ", " : "",
                         k, param);
        if (w > 0)
            len += (size_t)w;
        n++;
    }
    return n;
}

int fe_input_dims(FeCtx *c, const Onnx__ValueInfoProto *vi, bool first, int *rank, int64_t *dims)
{
    const Onnx__TensorShapeProto *sh = vi->type->tensor_type->shape;
    const FeInputShape *os = option_for(c, vi->name, first);
    if (os) {
        if (sh && (int)sh->n_dim != os->rank)
            return fe_err(c, NULL, "--input-shape for '%s' has %d dims but the input has rank %zu",
                          vi->name, os->rank, sh->n_dim);
        for (int k = 0; sh && k < os->rank; k++) {
            const Onnx__TensorShapeProto__Dimension *d = sh->dim[k];
            if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                d->dim_value != os->dims[k])
                return fe_err(c, NULL,
                              "--input-shape for '%s' sets axis %d to %lld but the model fixes it to %lld",
                              vi->name, k, (long long)os->dims[k], (long long)d->dim_value);
        }
        *rank = os->rank;
        memcpy(dims, os->dims, sizeof(int64_t) * (size_t)os->rank);
        return 0;
    }
    if (!sh)
        return fe_err(c, NULL, "input '%s' has no shape; give it with --input-shape %s=D0,D1,...",
                      vi->name, vi->name);
    if (sh->n_dim > IR_MAX_RANK)
        return fe_err(c, NULL, "input '%s' has rank %zu; at most %d is supported", vi->name,
                      sh->n_dim, IR_MAX_RANK);
    char buf[512];
    if (list_dynamic(sh, buf, sizeof buf) > 0)
        return fe_err(c, NULL,
                      "input '%s' has unbound dynamic dims: %s; bind them with --input-shape %s=D0,D1,...",
                      vi->name, buf, vi->name);
    *rank = (int)sh->n_dim;
    for (int k = 0; k < *rank; k++)
        dims[k] = sh->dim[k]->dim_value;
    return 0;
}

static void import_input(FeCtx *c, const Onnx__ValueInfoProto *vi, bool first)
{
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) {
        fe_err(c, NULL, "input '%s' is not a tensor; only tensor inputs are supported", vi->name);
        fe_poison(c, vi->name);
        return;
    }
    IrDType dt = tp->tensor_type->has_elem_type ? (IrDType)tp->tensor_type->elem_type : IR_DT_UNDEF;
    int rank = 0;
    int64_t dims[IR_MAX_RANK];
    if (ir_dtype_size(dt) == 0) {
        fe_err(c, NULL, "input '%s' has unsupported element type %d", vi->name, (int)dt);
        fe_poison(c, vi->name);
        return;
    }
    if (fe_input_dims(c, vi, first, &rank, dims) < 0 ||
        fe_check_shape(c, NULL, vi->name, dt, rank, dims) < 0) {
        fe_poison(c, vi->name);
        return;
    }
    int t = fe_act_tensor(c, vi->name, dt, rank, dims);
    c->g->tensors[t].kind = IR_T_INPUT;
    if (c->g->n_inputs == IR_MAX_IO) {
        fe_err(c, NULL, "more than %d graph inputs", IR_MAX_IO);
        return;
    }
    c->g->inputs[c->g->n_inputs++] = t;
}

void fe_import_inputs(FeCtx *c, const Onnx__GraphProto *gp)
{
    bool first = true;
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        if (!vi->name || !*vi->name) {
            fe_err(c, NULL, "graph input #%zu has no name", i);
            continue;
        }
        int t = fe_map_get(&c->names, vi->name);
        if (t >= 0 && c->g->tensors[t].kind != IR_T_INPUT)
            continue; /* an initializer listed as input: a weight */
        if (t >= 0) {
            fe_err(c, NULL, "graph input '%s' is listed twice", vi->name);
            continue;
        }
        int bi;
        const FeBind *b = fe_bind_for(c, vi->name, &bi);
        if (b) {
            fe_bind_input(c, vi, b, first);
            c->bind_used[bi] = true;
        } else {
            import_input(c, vi, first);
        }
        first = false;
    }
    for (int i = 0; c->opt && i < c->opt->n_binds; i++)
        if (!c->bind_used[i])
            fe_err(c, NULL, "--bind names '%.*s', which is not a graph input", (int)c->opt->binds[i].name_len,
                   c->opt->binds[i].name);
    /* every --input-shape must name a real input */
    for (int i = 0; c->opt && i < c->opt->n_shapes; i++) {
        const char *nm = c->opt->shapes[i].name;
        int t = nm[0] ? fe_map_get(&c->names, nm) : 0;
        if (nm[0] && (t < 0 || c->g->tensors[t].kind == IR_T_CONST))
            fe_err(c, NULL, "--input-shape names '%s', which is not a graph input", nm);
    }
}

/* ------------------------------------------------------------- outputs */

static void check_declared(FeCtx *c, const Onnx__ValueInfoProto *vi, const IrTensor *t)
{
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
        return;
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    if (tt->has_elem_type && tt->elem_type != 0 && tt->elem_type != (int32_t)t->dtype)
        fe_err(c, NULL, "graph output '%s' is declared %s but computes %s", vi->name,
               ir_dtype_name((IrDType)tt->elem_type), ir_dtype_name(t->dtype));
    const Onnx__TensorShapeProto *sh = tt->shape;
    if (!sh)
        return;
    if ((int)sh->n_dim != t->rank) {
        fe_err(c, NULL, "graph output '%s' is declared with rank %zu but computes rank %d",
               vi->name, sh->n_dim, t->rank);
        return;
    }
    for (int k = 0; k < t->rank; k++) {
        const Onnx__TensorShapeProto__Dimension *d = sh->dim[k];
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
            d->dim_value != t->dims[k]) {
            fe_err(c, NULL, "graph output '%s' is declared with dim %lld on axis %d but computes %lld",
                   vi->name, (long long)d->dim_value, k, (long long)t->dims[k]);
            return;
        }
    }
}

void fe_import_outputs(FeCtx *c, const Onnx__GraphProto *gp)
{
    if (gp->n_output == 0)
        fe_err(c, NULL, "the graph has no outputs");
    for (size_t i = 0; i < gp->n_output; i++) {
        const Onnx__ValueInfoProto *vi = gp->output[i];
        int t = vi->name && *vi->name ? fe_map_get(&c->names, vi->name) : -1;
        if (t < 0) {
            fe_err(c, NULL, "graph output '%s' is not produced by any node", vi->name ? vi->name : "");
            continue;
        }
        IrTensor *T = &c->g->tensors[t];
        if (T->rank < 0)
            continue; /* its producer already failed */
        check_declared(c, vi, T);
        if (T->is_output)
            continue;
        T->is_output = true;
        if (c->g->n_outputs == IR_MAX_IO) {
            fe_err(c, NULL, "more than %d graph outputs", IR_MAX_IO);
            continue;
        }
        c->g->outputs[c->g->n_outputs++] = t;
    }
    if (gp->n_output && !c->g->n_outputs && !c->d->n_errors)
        fe_err(c, NULL, "none of the graph outputs could be imported");
}
