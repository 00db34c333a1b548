/* host_layer.c - one layer of the host C program: the checks every layer
 * passes, then the emitter of its op family.
 *
 * Each family's emitter (codegen/host_<family>.c, next to the family's
 * importer frontend/import_<family>.c and kernel runtime/rt_<family>.c)
 * turns one IR layer into constant descriptors and runtime calls
 * (runtime/o2h_rt.h), in both phases described in host_emit.h; the table
 * below is expanded from the family column of ir/ops.def, so an op gets its
 * emitter by being listed there. This is also where the host path says no:
 * anything it cannot run exactly (3-D convolutions, dynamic shapes, training
 * outputs ...) is rejected with the ONNX node named, so `compile` fails
 * before writing anything rather than producing a program that computes
 * garbage. Quantized layers go to the integer path (host_quant.c).
 */
#include "host_emit.h"

#include <string.h>

/* ------------------------------------------------ checks the emitters share */

bool cg_same_shape(CgHost *h, int a, int b)
{
    const IrTensor *A = TT(h, a), *B = TT(h, b);
    if (A->rank != B->rank)
        return false;
    for (int i = 0; i < A->rank; i++)
        if (A->dims[i] != B->dims[i])
            return false;
    return true;
}

/* True when t's data is a constant, looking through views of constants. */
bool cg_is_const(CgHost *h, int t)
{
    while (t >= 0) {
        const IrTensor *T = TT(h, t);
        if (T->kind == IR_T_CONST)
            return true;
        if (T->producer < 0)
            return false;
        const IrLayer *P = &h->g->layers[T->producer];
        if (!(ir_op_flags(P->op) & IR_F_NO_DATA))
            return false;
        t = in_at(P, 0);
    }
    return false;
}

/* Every listed tensor (-1 = absent, skipped) must be float32. */
int cg_need_float(CgHost *h, int l, const int *ts, int n)
{
    for (int i = 0; i < n; i++) {
        if (ts[i] < 0)
            continue;
        IrDType dt = TT(h, ts[i])->dtype;
        if (dt != IR_DT_FLOAT) {
            cg_host_reject(h, l, "tensor '%s' is %s; the host path computes this op in float32 only",
                           TT(h, ts[i])->name, ir_dtype_name(dt));
            return -1;
        }
    }
    return 0;
}
/* An unused extra output (training statistics, pool indices) is fine; a
 * used one cannot be produced. */
int cg_extra_outputs_unused(CgHost *h, int l, int from, const char *what)
{
    const IrLayer *L = &h->g->layers[l];
    for (int i = from; i < L->n_out; i++)
        if (L->out[i] >= 0 && ir_tensor_uses(h->g, L->out[i]) > 0) {
            cg_host_reject(h, l, "output '%s' (%s) is not supported", TT(h, L->out[i])->name, what);
            return -1;
        }
    return 0;
}

int cg_same_dtype(CgHost *h, int l, int a, int y)
{
    if (TT(h, a)->dtype != TT(h, y)->dtype) {
        cg_host_reject(h, l, "'%s' is %s but the output is %s", TT(h, a)->name,
                       ir_dtype_name(TT(h, a)->dtype), ir_dtype_name(TT(h, y)->dtype));
        return -1;
    }
    if (!cg_ctype(TT(h, y)->dtype)) {
        cg_host_reject(h, l, "dtype %s is not supported by the host path", ir_dtype_name(TT(h, y)->dtype));
        return -1;
    }
    return 0;
}

/* Size queries for model_prepare and the pool estimate of this compiler's
 * runtime build. Each conv/gemm weight gets a slot in the pool: a constant
 * one is repacked there once at init, a run-time one before every call. */
const char *cg_kernel_weight(CgHost *h, const char *kind, const char *id, size_t packed, size_t scratch, int w)
{
    const char *pack_fn = !strcmp(kind, "conv2d") ? "pack_conv" : "pack_gemm";
    if (scratch > (size_t)h->scratch_est)
        h->scratch_est = (int64_t)scratch;
    cg_emit(h, h->init, "    scratch_need(o2h_%s_scratch_size(&%s));\n", kind, id);
    int k = cg_kslot(h);
    if (h->phase == 0)
        h->pool_est += ((int64_t)packed + 15) / 16 * 16;
    cg_emit(h, h->init, "    g_kw_size[%d] = o2h_%s_packed_size(&%s);\n", k, kind, id);
    if (!cg_is_const(h, w))
        return ir_sprintf(h->g, "%s(&%s, %s, %d)", pack_fn, id, cg_ptr(h, w), k);
    cg_emit(h, h->pack, "    g_kw[%d] = %s(&%s, %s, %d);\n", k, pack_fn, id, cg_ptr(h, w), k);
    return ir_sprintf(h->g, "g_kw[%d]", k);
}

/* ------------------------------------------------------------ dispatch */

typedef int (*LayerEmitter)(CgHost *h, int l);

static const LayerEmitter emitters[IR_OP_COUNT] = {
#define OP(id, name, family, flags, unit) [IR_OP_##id] = cg_host_##family,
#include "ir/ops.def"
#undef OP
};

static int check_epilogue(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    if (!cg_act_valid(L->act.kind)) {
        cg_host_reject(h, l, "unknown fused activation %d", (int)L->act.kind);
        return -1;
    }
    if (L->act.kind == IR_ACT_PRELU && L->act_slope < 0) {
        cg_host_reject(h, l, "fused PRelu without a slope tensor");
        return -1;
    }
    int y = L->n_out > 0 ? L->out[0] : -1;
    return CG_NEED_FLOAT(h, l, L->residual, L->act_slope, L->residual >= 0 || L->act.kind ? y : -1);
}

/* A comment line naming the layer and the ONNX nodes it implements. */
static void emit_header(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    cg_emit(h, h->run, "\n    /* L%d %s: ONNX %s", l, ir_op_name(L->op), cg_comment(h, L->origin ? L->origin : L->name));
    if (L->residual >= 0 || L->act.kind != IR_ACT_NONE)
        cg_emit(h, h->run, " (fused:%s%s)", L->residual >= 0 ? " residual add" : "",
                L->act.kind != IR_ACT_NONE ? " activation" : "");
    cg_emit(h, h->run, " */\n");
}

/* Every tensor the layer touches has a static shape (the emitters index
 * dims by rank and size buffers by element count). */
static int check_shapes(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int ts[2 * IR_MAX_IO + 2], n = 0;
    for (int i = 0; i < L->n_in && i < IR_MAX_IO; i++)
        ts[n++] = L->in[i];
    for (int i = 0; i < L->n_out && i < IR_MAX_IO; i++)
        ts[n++] = L->out[i];
    ts[n++] = L->residual;
    ts[n++] = L->act_slope;
    for (int i = 0; i < n; i++) {
        if (ts[i] < 0)
            continue;
        if (ts[i] >= h->g->n_tensors) {
            cg_host_reject(h, l, "tensor index %d out of range", ts[i]);
            return -1;
        }
        const IrTensor *T = TT(h, ts[i]);
        int64_t ne = ir_tensor_numel(T);
        if (T->rank < 0 || T->rank > IR_MAX_RANK || ne < 0 || ne == INT64_MAX) {
            cg_host_reject(h, l, "tensor '%s' has no static shape; give --input-shape", T->name);
            return -1;
        }
    }
    return 0;
}

static bool outputs_empty(CgHost *h, const IrLayer *L)
{
    for (int i = 0; i < L->n_out; i++)
        if (L->out[i] >= 0 && numel(h, L->out[i]) != 0)
            return false;
    return L->n_out > 0;
}

int cg_host_layer(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    if (L->dead)
        return 0;
    h->cur_layer = l;
    h->scratch_cursor = 0;
    unsigned flags = ir_op_flags(L->op);
    if ((unsigned)L->op >= IR_OP_COUNT) {
        cg_host_reject(h, l, "unknown operator");
        return -1;
    }
    if (flags & IR_F_FOLD_ONLY) {
        cg_host_reject(h, l, "%s must be folded to a constant at compile time, but its inputs are "
                             "only known at run time", ir_op_name(L->op));
        return -1;
    }
    if (L->prec != IR_PREC_FLOAT) /* quantized layers and boundaries: the integer path */
        return cg_host_int_layer(h, l);
    if (L->n_out < 1 || L->out[0] < 0) {
        cg_host_reject(h, l, "layer has no output");
        return -1;
    }
    if (check_shapes(h, l) || check_epilogue(h, l))
        return -1;
    emit_header(h, l);
    if (outputs_empty(h, L) && !(flags & IR_F_NO_DATA)) {
        cg_emit(h, h->run, "    /* empty output: nothing to compute */\n");
        return 0;
    }
    return emitters[L->op](h, l);
}

