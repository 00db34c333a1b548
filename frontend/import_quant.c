/* import_quant.c - QuantizeLinear and DequantizeLinear (QDQ models).
 *
 * Why: QDQ pairs carry the scales another tool chose; keeping them lets the
 * quantize pass reuse them instead of calibrating again. The quantized side
 * of each pair (Q's output, DQ's input) gets IrTensor.quant when the scale
 * and zero point are constants. The nodes stay layers and are never folded,
 * so DequantizeLinear over int8 weights keeps its scales. */
#include "fe_internal.h"

#include <string.h>

static IrQuant *make_quant(FeCtx *c, const FeNode *n, int64_t axis, IrDType qdt)
{
    IrTensor *s = fe_in(c, n, 1), *z = fe_in(c, n, 2);
    if (!s || s->kind != IR_T_CONST || (z && z->kind != IR_T_CONST))
        return NULL;
    int64_t cnt = ir_tensor_numel(s);
    if (cnt < 1 || cnt > (1 << 20))
        return NULL;
    IrQuant *q = ir_alloc(c->g, sizeof *q);
    q->axis = s->rank == 0 || cnt == 1 ? -1 : (int)axis;
    q->n = (int)cnt;
    q->scale = ir_alloc(c->g, sizeof(float) * (size_t)cnt);
    q->zero = ir_alloc(c->g, sizeof(int32_t) * (size_t)cnt);
    const void *sp = ir_tensor_data(c->g, n->in[1]);
    const void *zp = z ? ir_tensor_data(c->g, n->in[2]) : NULL;
    for (int64_t i = 0; i < cnt; i++) {
        q->scale[i] = (float)fe_elem_f(s->dtype, sp, i);
        q->zero[i] = zp ? (int32_t)fe_elem_i(z->dtype, zp, i) : 0;
    }
    q->bits = (int)ir_dtype_size(qdt) * 8;
    q->frac_bits = INT32_MIN;
    return q;
}

static bool quant_type(IrDType dt)
{
    return dt == IR_DT_INT8 || dt == IR_DT_UINT8 || dt == IR_DT_INT16 || dt == IR_DT_UINT16 ||
           dt == IR_DT_INT32;
}

FE_IMPORTER(fe_import_quant)
{
    bool q = n->op == IR_OP_QUANTIZE_LINEAR;
    if (fe_check_arity(c, n, 2, 3, 1, 1) < 0)
        return -1;
    IrTensor *x = fe_need_in(c, n, 0, "x"), *s = fe_need_in(c, n, 1, "scale"), *z = fe_in(c, n, 2);
    if (!x || !s)
        return -1;
    if (fe_attr_int(c, n, "block_size", 0) != 0)
        return fe_err(c, n, "blocked quantization (block_size) is not supported");
    int64_t axis = fe_attr_int(c, n, "axis", 1), sn = ir_tensor_numel(s);
    bool per_axis = s->rank == 1 && sn != 1;
    /* the axis only matters (and must be valid) for per-axis scales */
    if (per_axis && fe_axis(c, n, axis, x->rank, &axis) < 0)
        return -1;
    if (!per_axis)
        axis = axis < 0 && x->rank > 0 ? axis + x->rank : axis;
    if (s->rank > 1 || (per_axis && sn != x->dims[axis]))
        return fe_err(c, n, "scale '%s' must be a scalar or hold one value per channel of axis %lld",
                      s->name, (long long)axis);
    if (z && (z->rank != s->rank || ir_tensor_numel(z) != sn))
        return fe_err(c, n, "zero point '%s' must have the shape of the scale", z->name);
    if (!fe_dtype_is_float(s->dtype))
        return fe_err(c, n, "scale '%s' must be floating point", s->name);
    IrDType qdt = q ? (z ? z->dtype : IR_DT_UINT8) : x->dtype;
    if (q && fe_attr(n, "output_dtype") && !z)
        qdt = (IrDType)fe_attr_int(c, n, "output_dtype", IR_DT_UINT8);
    if (!quant_type(qdt))
        return fe_err(c, n, "quantized type %s is not supported", ir_dtype_name(qdt));
    if (q && !fe_dtype_is_float(x->dtype) && x->dtype != IR_DT_INT32)
        return fe_err(c, n, "input '%s' must be floating point", x->name);
    n->attr.axis.axis = axis;
    IrQuant *qp = make_quant(c, n, axis, qdt);
    fe_set_out(n, 0, q ? qdt : s->dtype, x->rank, x->dims);
    if (q)
        n->out[0].quant = qp;
    else if (!x->quant)
        x->quant = qp;
    n->no_fold = true;
    return 0;
}
