/* host_quant.c - the integer path of the host C program: one call into
 * runtime/o2h_rt_int.h per quantized layer of any family, with the
 * lowering's constants, and the QuantizeLinear / DequantizeLinear
 * boundaries (family quant: frontend/import_quant.c, passes/quant/).
 *
 * Why it only prints: every number of the integer contract (multipliers,
 * shifts, folded biases, clamp bounds, tables) comes from pass_quant_lower,
 * the same function the compiler's evaluator and the HLS engines use, so
 * the generated program computes what the tests computed, bit for bit.
 *
 * Layout: weights are the IR's integer constants (in the blob like any
 * constant); the per-layer derived arrays (bias, mult, shift, tables) are
 * packed into one blob entry per layer ("<layer>.int"), each array 8-byte
 * aligned inside it. Descriptors whose members are all constants are
 * static; O2hRequant values, which point into the blob, are built in a
 * block around the call. */
#include "host_emit.h"

#include <stdlib.h>
#include <string.h>

#include "passes/quant/quant.h"

/* ------------------------------------------------------- packed arrays */

typedef struct {
    unsigned char *buf;
    size_t len, cap;
} Pack;

static size_t pack_add(Pack *p, const void *data, size_t n)
{
    size_t at = (p->len + 7) & ~(size_t)7;
    if (at + n > p->cap) {
        size_t cap = (at + n) * 2 + 64;
        unsigned char *b = realloc(p->buf, cap);
        if (!b)
            return (size_t)-1;
        p->buf = b;
        p->cap = cap;
    }
    memset(p->buf + p->len, 0, at - p->len);
    memcpy(p->buf + at, data, n);
    p->len = at + n;
    return at;
}

typedef struct {
    CgHost *h;
    int l;
    QuantLayer q;
    Pack pack;
    const char *id;
    const char *s8;          /* "s8" or "s16" */
    const char *ct;          /* "int8_t" or "int16_t" */
} Emit;

/* C expression of array `off` of the layer's blob entry */
static const char *aux(Emit *e, size_t off, const char *ctype)
{
    CgHost *h = e->h;
    if (h->phase == 0 || h->aux_entry[e->l] < 0)
        return "NULL";
    return ir_sprintf(h->g, "((const %s *)CST(%llu))", ctype,
                      (unsigned long long)(h->blob.v[h->aux_entry[e->l]].offset + off));
}

/* register the pack as the layer's blob entry (phase 0) */
static int pack_commit(Emit *e)
{
    CgHost *h = e->h;
    if (h->phase != 0 || e->pack.len == 0)
        return 0;
    int64_t n = (int64_t)e->pack.len;
    void *data = ir_alloc(h->g, e->pack.len);
    memcpy(data, e->pack.buf, e->pack.len);
    h->aux_entry[e->l] = cg_blob_add(&h->blob, ir_sprintf(h->g, "%s.int", h->g->layers[e->l].name), IR_DT_UINT8,
                                     1, &n, data, e->pack.len);
    return h->aux_entry[e->l] < 0 ? -1 : 0;
}

/* "{n, mult, shift, zero, lo, hi}" with the arrays in the pack */
static const char *requant(Emit *e, const O2hRequant *rq)
{
    if (!rq->mult)
        return ir_sprintf(e->h->g, "{1, NULL, NULL, %d, %d, %d}", rq->zero, rq->lo, rq->hi);
    size_t m = pack_add(&e->pack, rq->mult, sizeof(int32_t) * (size_t)rq->n);
    size_t s = pack_add(&e->pack, rq->shift, (size_t)rq->n);
    return ir_sprintf(e->h->g, "{%d, %s, %s, %d, %d, %d}", rq->n, aux(e, m, "int32_t"), aux(e, s, "uint8_t"),
                      rq->zero, rq->lo, rq->hi);
}

/* ------------------------------------------------------- per kind */

static size_t bias_bytes(const QuantLayer *q, int64_t n)
{
    return (size_t)n * (q->wide ? 8 : 4);
}

/* An 8-bit conv with constant weights: the weights and biases packed once
 * at init (model_prepare) into the pool slot of the layer, in the form this
 * build's int8 kernels take (o2h_conv2d_s8_pack), so a run no longer repacks
 * them; the slot is sized by the runtime the program is built with, and the
 * pool estimate takes the bound over instruction sets. */
static const char *conv_s8_weight(Emit *e, const char *bias)
{
    CgHost *h = e->h;
    int k = cg_kslot(h);
    if (h->phase == 0)
        h->pool_est += ((int64_t)(o2h_conv2d_s8_packed_size_max(&e->q.conv) + 3) / 4 + 15) / 16 * 16;
    cg_emit(h, h->init, "    g_kw_size[%d] = (o2h_conv2d_s8_packed_size(&%s) + 3) / 4;\n", k, e->id);
    cg_emit(h, h->pack, "    g_kw[%d] = pack_conv_s8(&%s, %s, %s, %d);\n", k, e->id, cg_ptr(h, e->q.w), bias, k);
    return ir_sprintf(h->g, "g_kw[%d]", k);
}

static void emit_conv(Emit *e, const char *X, const char *Y)
{
    CgHost *h = e->h;
    const QuantLayer *q = &e->q;
    cg_emit_conv_desc(h, e->id, &q->conv);
    size_t b = pack_add(&e->pack, q->bias, bias_bytes(q, q->conv.F));
    const char *rq = requant(e, &q->rq);
    const char *B = aux(e, b, q->wide ? "int64_t" : "int32_t");
    if (!q->wide && cg_is_const(h, q->w)) {
        size_t sc = o2h_conv2d_s8_packed_scratch(&q->conv);
        const char *S = cg_scratch(h, (int64_t)sc);
        const char *W = conv_s8_weight(e, B);
        cg_emit(h, h->init, "    if (o2h_conv2d_s8_packed_scratch(&%s) > %zu)\n        return O2H_ERR_ARG;\n", e->id, sc);
        cg_emit(h, h->run, "    {\n        const O2hRequant rq = %s;\n", rq);
        cg_emit(h, h->run, "        o2h_conv2d_s8_packed(&%s, %d, &rq, %s, %s, %s, %s);\n    }\n", e->id, q->x_zero, X, W,
                Y, S);
        return;
    }
    size_t sc = q->wide ? o2h_conv2d_s16_scratch(&q->conv) : o2h_conv2d_s8_scratch(&q->conv);
    const char *S = cg_scratch(h, (int64_t)sc);
    cg_emit(h, h->init, "    if (o2h_conv2d_%s_scratch(&%s) > %zu)\n        return O2H_ERR_ARG;\n", e->s8, e->id, sc);
    cg_emit(h, h->run, "    {\n        const O2hRequant rq = %s;\n", rq);
    cg_emit(h, h->run, "        o2h_conv2d_%s(&%s, %d, &rq, %s, %s, %s, %s, %s);\n    }\n", e->s8, e->id, q->x_zero, X,
            cg_ptr(h, q->w), B, Y, S);
}

static void emit_fc(Emit *e, const char *X, const char *Y)
{
    CgHost *h = e->h;
    const QuantLayer *q = &e->q;
    cg_emit(h, h->decl, "static const O2hFcQ %s = {%d, %d, %d};\n", e->id, q->fc.M, q->fc.N, q->fc.K);
    size_t b = pack_add(&e->pack, q->bias, bias_bytes(q, q->fc.N));
    const char *rq = requant(e, &q->rq);
    cg_emit(h, h->run, "    {\n        const O2hRequant rq = %s;\n", rq);
    cg_emit(h, h->run, "        o2h_fc_%s(&%s, &rq, %s, %s, %s, %s);\n    }\n", e->s8, e->id, X, cg_ptr(h, q->w),
            aux(e, b, q->wide ? "int64_t" : "int32_t"), Y);
}

static void emit_maxpool(Emit *e, const char *X, const char *Y)
{
    cg_emit_pool_desc(e->h, e->id, &e->q.pool);
    cg_emit(e->h, e->h->run, "    o2h_maxpool2d_%s(&%s, %s, %s, %d);\n", e->s8, e->id, X, Y, e->q.lo);
}

static void emit_global_maxpool(Emit *e, const char *X, const char *Y)
{
    cg_emit(e->h, e->h->run, "    o2h_global_maxpool_%s(%lld, %lld, %s, %s);\n", e->s8, (long long)e->q.nc,
            (long long)e->q.hw, X, Y);
}

static void emit_avgpool(Emit *e, const char *X, const char *Y)
{
    CgHost *h = e->h;
    cg_emit_pool_desc(h, e->id, &e->q.pool);
    cg_emit(h, h->run, "    {\n        const O2hRequant rq = %s;\n", requant(e, &e->q.rq));
    cg_emit(h, h->run, "        o2h_avgpool2d_%s(&%s, %d, &rq, %s, %s);\n    }\n", e->s8, e->id, e->q.x_zero, X, Y);
}

static void emit_global_avgpool(Emit *e, const char *X, const char *Y)
{
    CgHost *h = e->h;
    cg_emit(h, h->run, "    {\n        const O2hRequant rq = %s;\n", requant(e, &e->q.rq));
    cg_emit(h, h->run, "        o2h_global_avgpool_%s(%lld, %lld, %d, &rq, %s, %s);\n    }\n", e->s8,
            (long long)e->q.nc, (long long)e->q.hw, e->q.x_zero, X, Y);
}

/* Add (and Sub) and Mul of two integer tensors, broadcast */
static void emit_binary(Emit *e, const char *X, const char *Y)
{
    CgHost *h = e->h;
    const QuantLayer *q = &e->q;
    const O2hBroadcast *b = &q->bc;
    const O2hEltQ *t = &q->elt;
    cg_emit(h, h->decl, "static const O2hBroadcast %s_bc = {%d, %s, %s, %s};\n", e->id, b->rank,
            cg_i64_list(h, b->a_dims, b->rank), cg_i64_list(h, b->b_dims, b->rank), cg_i64_list(h, b->y_dims, b->rank));
    cg_emit(h, h->decl, "static const O2hEltQ %s_q = {%d, %d, %d, %d, %d, %d, %d, %d};\n", e->id, t->a_zero,
            t->b_zero, t->ma, t->mb, t->shift, t->zero, t->lo, t->hi);
    cg_emit(h, h->run, "    o2h_%s_%s(&%s_bc, &%s_q, %s, %s, %s);\n", q->kind == QK_ADD ? "add" : "mul", e->s8, e->id,
            e->id, X, cg_ptr(h, q->x2), Y);
}

static void emit_concat(Emit *e, const char *X, const char *Y)
{
    CgHost *h = e->h;
    const QuantLayer *q = &e->q;
    const char *rqs[IR_MAX_IO], *xs[IR_MAX_IO];
    (void)X;
    for (int i = 0; i < q->n_in; i++) {
        rqs[i] = requant(e, &q->in_rq[i]);
        xs[i] = cg_ptr(h, q->in[i]);
    }
    int64_t zeros[IR_MAX_IO];
    for (int i = 0; i < q->n_in; i++)
        zeros[i] = q->in_zero[i];
    cg_emit(h, h->decl, "static const int64_t %s_dims[%d] = %s;\nstatic const int32_t %s_zero[%d] = %s;\n", e->id,
            q->n_in, cg_i64_list(h, q->dims_axis, q->n_in), e->id, q->n_in, cg_i64_list(h, zeros, q->n_in));
    cg_emit(h, h->run, "    {\n        const %s *xs[%d] = {", e->ct, q->n_in);
    for (int i = 0; i < q->n_in; i++)
        cg_emit(h, h->run, "%s%s", i ? ", " : "", xs[i]);
    cg_emit(h, h->run, "};\n        const O2hRequant rq[%d] = {", q->n_in);
    for (int i = 0; i < q->n_in; i++)
        cg_emit(h, h->run, "%s%s", i ? ", " : "", rqs[i]);
    cg_emit(h, h->run, "};\n        o2h_concat_%s(%d, xs, %s_dims, %lld, %lld, %s_zero, rq, %s);\n    }\n", e->s8,
            q->n_in, e->id, (long long)q->outer, (long long)q->inner, e->id, Y);
}

static void emit_quantize(Emit *e, const char *X, const char *Y)
{
    const QuantLayer *q = &e->q;
    cg_emit(e->h, e->h->run, "    o2h_quantize_f32_%s(%s, %s, %lld, %s, %d, %d, %d);\n", e->s8, X, Y,
            (long long)q->n, cg_float(e->h, q->scale), q->zero, q->lo, q->hi);
}

static void emit_dequantize(Emit *e, const char *X, const char *Y)
{
    const QuantLayer *q = &e->q;
    cg_emit(e->h, e->h->run, "    o2h_dequantize_%s_f32(%s, %s, %lld, %s, %d);\n", e->s8, X, Y,
            (long long)q->n, cg_float(e->h, q->scale), q->zero);
}

/* a table activation: 256 entries indexed by the input code */
static void emit_lut(Emit *e, const char *X, const char *Y)
{
    size_t t = pack_add(&e->pack, e->q.lut, 256);
    e->h->inplace[e->l] = 0;
    cg_emit(e->h, e->h->run, "    o2h_lut_s8(%s, %s, %lld, %s);\n", X, Y, (long long)e->q.n, aux(e, t, "int8_t"));
}

/* element-wise requantization (Relu, Clip, Identity between scales) */
static void emit_rescale(Emit *e, const char *X, const char *Y)
{
    CgHost *h = e->h;
    h->inplace[e->l] = 0;
    cg_emit(h, h->run, "    {\n        const O2hRequant rq = %s;\n", requant(e, &e->q.rq));
    cg_emit(h, h->run, "        o2h_rescale_%s(%s, %s, %lld, %d, &rq);\n    }\n", e->s8, X, Y, (long long)e->q.n,
            e->q.x_zero);
}

static void emit_view(Emit *e, const char *X, const char *Y)
{
    (void)X, (void)Y;
    cg_emit(e->h, e->h->run, "    /* view: %s is %s */\n", cg_comment(e->h, e->h->g->tensors[e->q.y].name),
            cg_comment(e->h, e->h->g->tensors[e->q.x].name));
}

/* Split, Slice, Transpose, Gather of codes: the shape family's emitter, whose
 * copies are typed by element size only (the codes keep their scale) */
static void emit_move(Emit *e, const char *X, const char *Y)
{
    (void)X, (void)Y;
    cg_host_shape(e->h, e->l);   /* counts its call */
}

typedef void (*IntEmitter)(Emit *e, const char *X, const char *Y);

static const IntEmitter int_emitters[] = {
    [QK_QUANTIZE] = emit_quantize, [QK_DEQUANTIZE] = emit_dequantize, [QK_CONV] = emit_conv,
    [QK_FC] = emit_fc, [QK_MAXPOOL] = emit_maxpool, [QK_AVGPOOL] = emit_avgpool,
    [QK_GLOBAL_MAXPOOL] = emit_global_maxpool, [QK_GLOBAL_AVGPOOL] = emit_global_avgpool,
    [QK_ADD] = emit_binary, [QK_MUL] = emit_binary, [QK_LUT] = emit_lut, [QK_RESCALE] = emit_rescale,
    [QK_CONCAT] = emit_concat, [QK_VIEW] = emit_view, [QK_MOVE] = emit_move,
};

/* ------------------------------------------------------- entry */

/* s with every '*' that starts a comment end replaced, for C comments */
static void emit_comment(CgHost *h, int l, const QuantLayer *q)
{
    const IrLayer *L = &h->g->layers[l];
    const IrTensor *Y = &h->g->tensors[q->y];
    const IrQuant *yq = Y->quant ? Y->quant : h->g->tensors[q->x].quant;
    cg_emit(h, h->run, "\n    /* %s '%s' (ONNX: %s): %s, %s", ir_op_name(L->op), cg_comment(h, L->name),
            cg_comment(h, L->origin),
            pass_quant_kind_name(q->kind), q->wide ? "16-bit codes" : "8-bit codes");
    if (yq)
        cg_emit(h, h->run, ", out scale %s zero %d", cg_float(h, yq->scale[0]), yq->zero[0]);
    cg_emit(h, h->run, " */\n");
}

static bool first_int_layer(const IrGraph *g, int l)
{
    for (int k = 0; k < l; k++)
        if (!g->layers[k].dead && g->layers[k].prec != IR_PREC_FLOAT)
            return false;
    return true;
}

int cg_host_int_layer(CgHost *h, int l)
{
    Emit e;
    memset(&e, 0, sizeof e);
    e.h = h;
    e.l = l;
    if (pass_quant_lower(h->g, l, &e.q, h->d)) {
        h->errors++;
        return -1;
    }
    if (first_int_layer(h->g, l))
        cg_emit(h, h->decl, "#include \"runtime/o2h_rt_int.h\"  /* integer layers */\n");
    e.id = ir_sprintf(h->g, "L%d", l);
    e.s8 = e.q.wide ? "s16" : "s8";
    e.ct = e.q.wide ? "int16_t" : "int8_t";
    emit_comment(h, l, &e.q);
    const char *X = cg_ptr(h, e.q.x), *Y = cg_ptr(h, e.q.y);
    if ((unsigned)e.q.kind >= sizeof int_emitters / sizeof int_emitters[0] || !int_emitters[e.q.kind]) {
        cg_host_reject(h, l, "no integer kernel for this layer");
        return -1;
    }
    int_emitters[e.q.kind](&e, X, Y);
    if (e.q.kind != QK_VIEW && e.q.kind != QK_MOVE)
        h->n_calls++;
    int rc = pack_commit(&e);
    free(e.pack.buf);
    if (rc) {
        cg_host_reject(h, l, "out of memory");
        return -1;
    }
    return 0;
}

/* QuantizeLinear / DequantizeLinear left in a float graph (a QDQ model
 * compiled without its integer layers) */
int cg_host_quant(CgHost *h, int l)
{
    cg_host_reject(h, l, "%s is not supported by the float host path yet", ir_op_name(h->g->layers[l].op));
    return -1;
}
