/* fe_node.c - the small vocabulary importers are written in: messages that
 * name the node, typed attribute getters, constant-input readers, broadcast
 * and axis helpers, element access by dtype.
 *
 * Why: every importer validates the same kinds of things; doing it here
 * keeps the importers short and the messages uniform ("node 'X' (Op): ..."),
 * and the getters report a wrongly typed attribute instead of guessing. */
#include "fe_internal.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* ------------------------------------------------------------ messages */

static void vreport(FeCtx *c, const FeNode *n, DiagLevel lvl, const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    diag_add(c->d, lvl, c->path, n ? n->name : NULL, n ? n->op_type : NULL, "%s", buf);
}

int fe_err(FeCtx *c, const FeNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(c, n, DIAG_ERROR, fmt, ap);
    va_end(ap);
    return -1;
}

void fe_warn(FeCtx *c, const FeNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(c, n, DIAG_WARNING, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------- attributes */

typedef Onnx__AttributeProto__AttributeType AttrType;

const Onnx__AttributeProto *fe_attr(const FeNode *n, const char *name)
{
    for (size_t i = 0; i < n->pb->n_attribute; i++) {
        const Onnx__AttributeProto *a = n->pb->attribute[i];
        if (a->name && strcmp(a->name, name) == 0)
            return a;
    }
    return NULL;
}

static const char *type_name(AttrType t)
{
    switch (t) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: return "float";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: return "int";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: return "string";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: return "tensor";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS: return "floats";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS: return "ints";
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS: return "strings";
    default: return "other";
    }
}

/* The attribute's type, inferring it from the filled field for old files
 * that leave `type` out. */
static AttrType attr_type(const Onnx__AttributeProto *a)
{
    if (a->has_type && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
        return a->type;
    if (a->has_f)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    if (a->has_i)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    if (a->has_s)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    if (a->t)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    if (a->n_floats)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
    if (a->n_ints)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

static const Onnx__AttributeProto *typed(FeCtx *c, const FeNode *n, const char *name, AttrType want)
{
    const Onnx__AttributeProto *a = fe_attr(n, name);
    if (!a)
        return NULL;
    AttrType t = attr_type(a);
    if (t != want) {
        fe_err(c, n, "attribute '%s' should be of type %s, found %s", name, type_name(want),
               type_name(t));
        return NULL;
    }
    return a;
}

int64_t fe_attr_int(FeCtx *c, const FeNode *n, const char *name, int64_t def)
{
    const Onnx__AttributeProto *a = typed(c, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    return a ? a->i : def;
}

float fe_attr_float(FeCtx *c, const FeNode *n, const char *name, float def)
{
    const Onnx__AttributeProto *a = typed(c, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    return a ? a->f : def;
}

const char *fe_attr_str(FeCtx *c, const FeNode *n, const char *name, const char *def)
{
    const Onnx__AttributeProto *a = typed(c, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    if (!a)
        return def;
    char *s = ir_alloc(c->g, a->s.len + 1);
    if (a->s.len)
        memcpy(s, a->s.data, a->s.len);
    return s;
}

int fe_attr_ints(FeCtx *c, const FeNode *n, const char *name, int64_t *out, int max, int *count)
{
    *count = 0;
    const Onnx__AttributeProto *a = fe_attr(n, name);
    if (!a)
        return 0;
    if (!typed(c, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS))
        return -1;
    if (a->n_ints > (size_t)max)
        return fe_err(c, n, "attribute '%s' has %zu values, at most %d expected", name, a->n_ints,
                      max);
    for (size_t i = 0; i < a->n_ints; i++)
        out[i] = a->ints[i];
    *count = (int)a->n_ints;
    return 1;
}

int fe_attr_floats(FeCtx *c, const FeNode *n, const char *name, float *out, int max, int *count)
{
    *count = 0;
    const Onnx__AttributeProto *a = fe_attr(n, name);
    if (!a)
        return 0;
    if (!typed(c, n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS))
        return -1;
    if (a->n_floats > (size_t)max)
        return fe_err(c, n, "attribute '%s' has %zu values, at most %d expected", name,
                      a->n_floats, max);
    for (size_t i = 0; i < a->n_floats; i++)
        out[i] = a->floats[i];
    *count = (int)a->n_floats;
    return 1;
}

/* -------------------------------------------------------------- inputs */

IrTensor *fe_in(FeCtx *c, const FeNode *n, int i)
{
    return fe_has_in(n, i) ? &c->g->tensors[n->in[i]] : NULL;
}

bool fe_is_const(FeCtx *c, int t)
{
    return t >= 0 && c->g->tensors[t].kind == IR_T_CONST;
}

IrTensor *fe_need_in(FeCtx *c, const FeNode *n, int i, const char *what)
{
    IrTensor *t = fe_in(c, n, i);
    if (!t)
        fe_err(c, n, "input %d (%s) is required", i, what);
    return t;
}

int fe_check_arity(FeCtx *c, const FeNode *n, int lo, int hi, int out_lo, int out_hi)
{
    if (n->n_in < lo || n->n_in > hi)
        return fe_err(c, n, "expects %d..%d inputs, has %d", lo, hi, n->n_in);
    if (n->n_out < out_lo || n->n_out > out_hi)
        return fe_err(c, n, "expects %d..%d outputs, has %d", out_lo, out_hi, n->n_out);
    return 0;
}

/* Constant input i as a flat array, or NULL (reported). */
static const void *const_data(FeCtx *c, const FeNode *n, int i, const char *what, int max,
                              int64_t *numel)
{
    IrTensor *t = fe_in(c, n, i);
    if (!t) {
        fe_err(c, n, "input %d (%s) is required", i, what);
        return NULL;
    }
    if (t->kind != IR_T_CONST) {
        fe_err(c, n, "input '%s' (%s) must be a constant known at compile time", t->name, what);
        return NULL;
    }
    int64_t ne = ir_tensor_numel(t);
    if (ne > max) {
        fe_err(c, n, "input '%s' (%s) has %lld values, at most %d expected", t->name, what,
               (long long)ne, max);
        return NULL;
    }
    *numel = ne;
    return ir_tensor_data(c->g, n->in[i]);
}

int fe_const_ints(FeCtx *c, const FeNode *n, int i, const char *what, int64_t *out, int max)
{
    int64_t ne;
    const void *p = const_data(c, n, i, what, max, &ne);
    if (!p)
        return -1;
    IrDType dt = c->g->tensors[n->in[i]].dtype;
    if (!fe_dtype_is_int(dt))
        return fe_err(c, n, "input '%s' (%s) must be an integer tensor, is %s",
                      c->g->tensors[n->in[i]].name, what, ir_dtype_name(dt));
    for (int64_t k = 0; k < ne; k++)
        out[k] = fe_elem_i(dt, p, k);
    return (int)ne;
}

int fe_const_floats(FeCtx *c, const FeNode *n, int i, const char *what, double *out, int max)
{
    int64_t ne;
    const void *p = const_data(c, n, i, what, max, &ne);
    if (!p)
        return -1;
    IrDType dt = c->g->tensors[n->in[i]].dtype;
    if (!fe_dtype_is_float(dt) && !fe_dtype_is_int(dt))
        return fe_err(c, n, "input '%s' (%s) must be numeric, is %s", c->g->tensors[n->in[i]].name,
                      what, ir_dtype_name(dt));
    for (int64_t k = 0; k < ne; k++)
        out[k] = fe_elem_f(dt, p, k);
    return (int)ne;
}

/* -------------------------------------------------------------- shapes */

int fe_auto_pad(FeCtx *c, const FeNode *n, FeAutoPad *ap)
{
    const char *s = fe_attr_str(c, n, "auto_pad", "NOTSET");
    if (!strcmp(s, "NOTSET") || !*s)
        *ap = FE_AP_NOTSET;
    else if (!strcmp(s, "SAME_UPPER"))
        *ap = FE_AP_SAME_UPPER;
    else if (!strcmp(s, "SAME_LOWER"))
        *ap = FE_AP_SAME_LOWER;
    else if (!strcmp(s, "VALID"))
        *ap = FE_AP_VALID;
    else
        return fe_err(c, n, "unknown auto_pad '%s'", s);
    return 0;
}

/* a list attribute of per_dim values per spatial dim; *cnt = 0 when absent */
static int window_list(FeCtx *c, const FeNode *n, const char *name, int sp, int per_dim, int64_t *v, int *cnt)
{
    if (fe_attr_ints(c, n, name, v, 2 * IR_MAX_SPATIAL, cnt) < 0)
        return -1;
    if (*cnt && *cnt != sp * per_dim)
        return fe_err(c, n, "%s has %d values for %d spatial dims", name, *cnt, sp);
    return 0;
}

int fe_window_attrs(FeCtx *c, const FeNode *n, int sp, int64_t *stride, int64_t *dilation,
                    int64_t *pad_begin, int64_t *pad_end)
{
    int64_t v[2 * IR_MAX_SPATIAL];
    int cnt;
    for (int k = 0; k < sp; k++) {
        stride[k] = dilation[k] = 1;
        pad_begin[k] = pad_end[k] = 0;
    }
    if (window_list(c, n, "strides", sp, 1, v, &cnt) < 0)
        return -1;
    for (int k = 0; k < cnt; k++)
        stride[k] = v[k];
    if (window_list(c, n, "dilations", sp, 1, v, &cnt) < 0)
        return -1;
    for (int k = 0; k < cnt; k++)
        dilation[k] = v[k];
    if (window_list(c, n, "pads", sp, 2, v, &cnt) < 0)
        return -1;
    for (int k = 0; k < cnt / 2; k++) {
        pad_begin[k] = v[k];
        pad_end[k] = v[k + sp];
    }
    for (int k = 0; k < sp; k++) {
        if (stride[k] < 1 || dilation[k] < 1)
            return fe_err(c, n, "strides and dilations must be positive");
        if (pad_begin[k] < 0 || pad_end[k] < 0)
            return fe_err(c, n, "pads must not be negative");
        if (stride[k] > FE_MAX_WINDOW || dilation[k] > FE_MAX_WINDOW || pad_begin[k] > FE_MAX_WINDOW ||
            pad_end[k] > FE_MAX_WINDOW)
            return fe_err(c, n, "strides, dilations or pads are absurdly large");
    }
    return 0;
}

void fe_set_out(FeNode *n, int i, IrDType dt, int rank, const int64_t *dims)
{
    IrTensor *o = &n->out[i];
    o->dtype = dt;
    o->rank = rank;
    for (int k = 0; k < rank; k++)
        o->dims[k] = dims[k];
}

void fe_out_like(FeNode *n, int i, const IrTensor *t)
{
    fe_set_out(n, i, t->dtype, t->rank, t->dims);
}

int fe_axis(FeCtx *c, const FeNode *n, int64_t axis, int rank, int64_t *out)
{
    if (axis < -rank || axis >= rank)
        return fe_err(c, n, "axis %lld out of range for rank %d", (long long)axis, rank);
    *out = axis < 0 ? axis + rank : axis;
    return 0;
}

int fe_broadcast(FeCtx *c, const FeNode *n, const IrTensor *a, const IrTensor *b, IrTensor *out)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    int64_t dims[IR_MAX_RANK];
    for (int k = 0; k < r; k++) {
        int ia = k - (r - a->rank), ib = k - (r - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return fe_err(c, n, "shapes of '%s' and '%s' do not broadcast (axis %d: %lld vs %lld)",
                          a->name, b->name, k, (long long)da, (long long)db);
        dims[k] = da == 1 ? db : da;
    }
    out->rank = r;
    memcpy(out->dims, dims, sizeof(int64_t) * (size_t)r);
    return 0;
}

/* -------------------------------------------------------- element access */

bool fe_dtype_is_float(IrDType dt)
{
    return dt == IR_DT_FLOAT || dt == IR_DT_DOUBLE || dt == IR_DT_FLOAT16 || dt == IR_DT_BFLOAT16;
}

bool fe_dtype_is_int(IrDType dt)
{
    switch (dt) {
    case IR_DT_UINT8: case IR_DT_INT8: case IR_DT_UINT16: case IR_DT_INT16:
    case IR_DT_INT32: case IR_DT_INT64: case IR_DT_BOOL: case IR_DT_UINT32: case IR_DT_UINT64:
        return true;
    default:
        return false;
    }
}

float fe_half_to_float(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;
    if (e == 0)
        v = ldexpf((float)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexpf((float)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

float fe_bf16_to_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint16_t fe_float_to_half(float f)
{
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    float a = fabsf(f);
    if (isnan(f))
        return 0x7e00;
    if (a >= 65520.0f)
        return sign | 0x7c00;
    if (a < ldexpf(1.0f, -24) * 0.5f)
        return sign;
    int e;
    frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int exp = e - 1 + 15;
    if (exp <= 0) /* subnormal: units of 2^-24 */
        return sign | (uint16_t)lrintf(ldexpf(a, 24));
    uint32_t m = (uint32_t)lrintf(ldexpf(a, 10 - (e - 1))); /* 1024..2048 */
    if (m == 2048) {
        m = 1024;
        exp++;
    }
    if (exp >= 31)
        return sign | 0x7c00;
    return sign | (uint16_t)(exp << 10) | (uint16_t)(m & 0x3ff);
}


double fe_elem_f(IrDType dt, const void *p, int64_t i)
{
    switch (dt) {
    case IR_DT_FLOAT: { float v; memcpy(&v, (const char *)p + 4 * i, 4); return v; }
    case IR_DT_DOUBLE: { double v; memcpy(&v, (const char *)p + 8 * i, 8); return v; }
    case IR_DT_FLOAT16: { uint16_t v; memcpy(&v, (const char *)p + 2 * i, 2); return fe_half_to_float(v); }
    case IR_DT_BFLOAT16: { uint16_t v; memcpy(&v, (const char *)p + 2 * i, 2); return fe_bf16_to_float(v); }
    case IR_DT_UINT64: { uint64_t v; memcpy(&v, (const char *)p + 8 * i, 8); return (double)v; }
    default: return (double)fe_elem_i(dt, p, i);
    }
}

int64_t fe_elem_i(IrDType dt, const void *p, int64_t i)
{
    const char *b = p;
    switch (dt) {
    case IR_DT_UINT8: case IR_DT_BOOL: return ((const uint8_t *)b)[i];
    case IR_DT_INT8: return ((const int8_t *)b)[i];
    case IR_DT_UINT16: { uint16_t v; memcpy(&v, b + 2 * i, 2); return v; }
    case IR_DT_INT16: { int16_t v; memcpy(&v, b + 2 * i, 2); return v; }
    case IR_DT_INT32: { int32_t v; memcpy(&v, b + 4 * i, 4); return v; }
    case IR_DT_UINT32: { uint32_t v; memcpy(&v, b + 4 * i, 4); return v; }
    case IR_DT_INT64: { int64_t v; memcpy(&v, b + 8 * i, 8); return v; }
    case IR_DT_UINT64: {
        uint64_t v;
        memcpy(&v, b + 8 * i, 8);
        return v > INT64_MAX ? INT64_MAX : (int64_t)v;
    }
    default: {
        double d = fe_elem_f(dt, p, i);
        if (!(d == d))
            return 0;
        if (d >= 9.2e18)
            return INT64_MAX;
        if (d <= -9.2e18)
            return INT64_MIN;
        return (int64_t)d;
    }
    }
}

void fe_store_f(IrDType dt, void *p, int64_t i, double v)
{
    char *b = p;
    switch (dt) {
    case IR_DT_FLOAT: { float f = (float)v; memcpy(b + 4 * i, &f, 4); return; }
    case IR_DT_DOUBLE: memcpy(b + 8 * i, &v, 8); return;
    case IR_DT_FLOAT16: { uint16_t h = fe_float_to_half((float)v); memcpy(b + 2 * i, &h, 2); return; }
    case IR_DT_BFLOAT16: {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        uint16_t h = (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
        memcpy(b + 2 * i, &h, 2);
        return;
    }
    case IR_DT_BOOL: b[i] = v != 0; return;
    default: {
        /* float -> int conversion truncates toward zero (Cast semantics);
         * out-of-range values saturate rather than invoke UB */
        int64_t x;
        if (!(v == v))
            x = 0;
        else if (v >= 9.2e18)
            x = INT64_MAX;
        else if (v <= -9.2e18)
            x = INT64_MIN;
        else
            x = (int64_t)v;
        fe_store_i(dt, p, i, x);
    }
    }
}

void fe_store_i(IrDType dt, void *p, int64_t i, int64_t v)
{
    char *b = p;
    switch (dt) {
    case IR_DT_UINT8: b[i] = (char)(uint8_t)v; return;
    case IR_DT_BOOL: b[i] = v != 0; return;
    case IR_DT_INT8: { int8_t x = (int8_t)(uint8_t)v; memcpy(b + i, &x, 1); return; }
    case IR_DT_UINT16: case IR_DT_INT16: { uint16_t x = (uint16_t)v; memcpy(b + 2 * i, &x, 2); return; }
    case IR_DT_INT32: case IR_DT_UINT32: { uint32_t x = (uint32_t)v; memcpy(b + 4 * i, &x, 4); return; }
    case IR_DT_INT64: case IR_DT_UINT64: memcpy(b + 8 * i, &v, 8); return;
    default: fe_store_f(dt, p, i, (double)v); return;
    }
}
