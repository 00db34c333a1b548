/* import_shape_const.c - the compile-time members of the shape family:
 * Constant, Shape, ConstantOfShape, Range (IR_F_FOLD_ONLY in ops.def).
 *
 * Why apart from import_shape.c: these never become layers. Each importer
 * creates its output as a constant tensor directly (FeNode.out_t) or
 * reports why it cannot (a Range over run-time values, a sparse Constant). */
#include "fe_internal.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------ Constant */

static int const_list(FeCtx *c, FeNode *n, const Onnx__AttributeProto *a, bool is_float, bool scalar)
{
    size_t cnt = scalar ? 1 : is_float ? a->n_floats : a->n_ints;
    int64_t dim = (int64_t)cnt;
    void *data;
    IrDType dt = is_float ? IR_DT_FLOAT : IR_DT_INT64;
    int t = fe_const_new(c, n->pb->output[0], dt, scalar ? 0 : 1, &dim, &data);
    for (size_t i = 0; i < cnt; i++) {
        if (is_float)
            fe_store_f(dt, data, (int64_t)i, scalar ? a->f : a->floats[i]);
        else
            fe_store_i(dt, data, (int64_t)i, scalar ? a->i : a->ints[i]);
    }
    n->out_t[0] = t;
    return 0;
}

FE_IMPORTER(fe_import_constant)
{
    if (fe_check_arity(c, n, 0, 0, 1, 1) < 0)
        return -1;
    if (n->pb->n_attribute != 1)
        return fe_err(c, n, "must have exactly one value attribute, has %zu attributes",
                      n->pb->n_attribute);
    const Onnx__AttributeProto *a = n->pb->attribute[0];
    const char *an = a->name ? a->name : "";
    if (!strcmp(an, "value")) {
        if (!a->t)
            return fe_err(c, n, "attribute 'value' holds no tensor");
        const FeRawRef *r = fe_node_raw(c, n->idx, 0);
        int t = fe_tensor_from_proto(c, n, a->t, n->pb->output[0], r ? c->map + r->off : NULL,
                                     r ? r->len : 0);
        if (t < 0)
            return -1;
        n->out_t[0] = t;
        return 0;
    }
    if (!strcmp(an, "value_float"))
        return const_list(c, n, a, true, true);
    if (!strcmp(an, "value_floats"))
        return const_list(c, n, a, true, false);
    if (!strcmp(an, "value_int"))
        return const_list(c, n, a, false, true);
    if (!strcmp(an, "value_ints"))
        return const_list(c, n, a, false, false);
    if (!strcmp(an, "sparse_value"))
        return fe_err(c, n, "sparse constants (sparse_value) are not supported");
    if (!strcmp(an, "value_string") || !strcmp(an, "value_strings"))
        return fe_err(c, n, "string constants are not supported");
    return fe_err(c, n, "unknown value attribute '%s'", an);
}

/* --------------------------------------------------------------- Shape */

FE_IMPORTER(fe_import_shape_of)
{
    if (fe_check_arity(c, n, 1, 1, 1, 1) < 0)
        return -1;
    IrTensor *x = fe_need_in(c, n, 0, "data");
    if (!x)
        return -1;
    int64_t r = x->rank, start = fe_attr_int(c, n, "start", 0), end = fe_attr_int(c, n, "end", r);
    if (start < 0)
        start += r;
    if (end < 0)
        end += r;
    start = start < 0 ? 0 : start > r ? r : start;
    end = end < 0 ? 0 : end > r ? r : end;
    int64_t len = end > start ? end - start : 0;
    void *data;
    int t = fe_const_new(c, n->pb->output[0], IR_DT_INT64, 1, &len, &data);
    for (int64_t i = 0; i < len; i++)
        fe_store_i(IR_DT_INT64, data, i, x->dims[start + i]);
    n->out_t[0] = t;
    return 0;
}

/* ----------------------------------------------------- ConstantOfShape */

FE_IMPORTER(fe_import_constant_of_shape)
{
    if (fe_check_arity(c, n, 1, 1, 1, 1) < 0)
        return -1;
    int64_t dims[IR_MAX_RANK];
    int r = fe_const_ints(c, n, 0, "shape", dims, IR_MAX_RANK);
    if (r < 0)
        return -1;
    IrDType dt = IR_DT_FLOAT;
    double fv = 0;
    int64_t iv = 0;
    const Onnx__AttributeProto *a = fe_attr(n, "value");
    if (a) {
        const Onnx__TensorProto *tp = a->t;
        if (!tp)
            return fe_err(c, n, "attribute 'value' must be a one-element tensor");
        int ai = 0;
        while (n->pb->attribute[ai] != a)
            ai++;
        const FeRawRef *raw = fe_node_raw(c, n->idx, ai);
        /* decode through a scratch constant: handles every storage form */
        int t = fe_tensor_from_proto(c, n, tp, fe_gen_name(c, n->name, "value"),
                                     raw ? c->map + raw->off : NULL, raw ? raw->len : 0);
        if (t < 0)
            return -1;
        if (ir_tensor_numel(&c->g->tensors[t]) != 1)
            return fe_err(c, n, "attribute 'value' must hold exactly one element");
        dt = c->g->tensors[t].dtype;
        const void *p = ir_tensor_data(c->g, t);
        fv = fe_elem_f(dt, p, 0);
        iv = fe_elem_i(dt, p, 0);
    }
    if (fe_check_shape(c, n, n->pb->output[0], dt, r, dims) < 0)
        return -1;
    IrTensor probe = {.dtype = dt, .rank = r};
    memcpy(probe.dims, dims, sizeof(int64_t) * (size_t)r);
    if ((int64_t)ir_tensor_nbytes(&probe) > FE_CONST_MAX_BYTES)
        return fe_err(c, n, "the constant would take %zu bytes; too large to create at compile time",
                      ir_tensor_nbytes(&probe));
    void *data;
    int t = fe_const_new(c, n->pb->output[0], dt, r, dims, &data);
    int64_t ne = ir_tensor_numel(&probe);
    for (int64_t i = 0; i < ne; i++) {
        if (fe_dtype_is_float(dt))
            fe_store_f(dt, data, i, fv);
        else
            fe_store_i(dt, data, i, iv);
    }
    n->out_t[0] = t;
    return 0;
}

/* --------------------------------------------------------------- Range */

FE_IMPORTER(fe_import_range)
{
    if (fe_check_arity(c, n, 3, 3, 1, 1) < 0)
        return -1;
    IrTensor *s = fe_need_in(c, n, 0, "start");
    if (!s)
        return -1;
    IrDType dt = s->dtype;
    for (int i = 0; i < 3; i++) {
        IrTensor *t = fe_need_in(c, n, i, "start/limit/delta");
        if (!t)
            return -1;
        if (t->dtype != dt || ir_tensor_numel(t) != 1)
            return fe_err(c, n, "start, limit and delta must be scalars of one type");
    }
    double v[3];
    int64_t iv[3];
    for (int i = 0; i < 3; i++)
        if (fe_const_floats(c, n, i, "start/limit/delta", &v[i], 1) != 1 ||
            (!fe_dtype_is_float(dt) && fe_const_ints(c, n, i, "start/limit/delta", &iv[i], 1) != 1))
            return -1;
    if (v[2] == 0)
        return fe_err(c, n, "delta must not be 0");
    double cnt = ceil((v[1] - v[0]) / v[2]);
    if (!fe_dtype_is_float(dt)) { /* exact integer count */
        int64_t span, d = iv[2];
        if (__builtin_sub_overflow(iv[1], iv[0], &span) || (span == INT64_MIN && d == -1))
            return fe_err(c, n, "the range overflows");
        cnt = (double)(span / d + ((span % d) != 0 && ((span > 0) == (d > 0))));
    }
    if (!(cnt > 0))
        cnt = 0;
    if (cnt * (double)ir_dtype_size(dt) > (double)FE_CONST_MAX_BYTES)
        return fe_err(c, n, "the range has %.0f elements; too large to create at compile time", cnt);
    int64_t len = (int64_t)cnt;
    void *data;
    int t = fe_const_new(c, n->pb->output[0], dt, 1, &len, &data);
    for (int64_t i = 0; i < len; i++) {
        if (fe_dtype_is_float(dt))
            fe_store_f(dt, data, i, v[0] + (double)i * v[2]);
        else
            fe_store_i(dt, data, i, iv[0] + i * iv[2]);
    }
    n->out_t[0] = t;
    return 0;
}
