/* qdq_import.c - pass qdq_import: the QuantizeLinear / DequantizeLinear
 * layers of a QDQ model (made by ONNX Runtime's quantizer, by `onnx2hls
 * compile --emit qdq`, ...) become IrTensor.quant of the tensors they
 * quantize, so the quantize pass keeps those scales instead of calibrating.
 *
 * Contract
 *   requires: the frontend's Q/DQ layers (quant on Q's output and on DQ's
 *             input); runs after the fusion passes, which therefore never
 *             fuse across a quantized tensor (Conv -> Q -> DQ -> Sigmoid
 *             keeps its intermediate scale).
 *   provides: - DequantizeLinear of a constant: conv / Gemm weights and
 *               biases read the integer constant itself (symmetric int8
 *               weights; uint8 codes are shifted to int8); any other use,
 *               and asymmetric weights, read a float constant holding the
 *               dequantized values;
 *             - x -> Q -> DQ -> x': every use of x' reads x, and x gets
 *               Q's parameters (uint8 ones as int8: zero - 128); when x'
 *               is a graph output the producer of x writes x' instead;
 *             - Mul(a, Sigmoid(a)) left between Q/DQ pairs is one SiLU
 *               layer (a no-op Clip with fused SiLU, as the quantize pass
 *               makes them);
 *             - Q/DQ layers with no remaining use are gone.
 *   breaks:   nothing; Q/DQ layers it does not understand stay (and are
 *             then reported by the code generators with their node).
 */
#include "passes/passes.h"
#include "quant_internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

static bool is_q(const IrLayer *L)
{
    return !L->dead && L->op == IR_OP_QUANTIZE_LINEAR;
}

static bool is_dq(const IrLayer *L)
{
    return !L->dead && L->op == IR_OP_DEQUANTIZE_LINEAR;
}

/* IrQuant as int8 codes: uint8 zero points move by -128 */
static IrQuant *as_signed(IrGraph *g, const IrQuant *q, IrDType dt)
{
    IrQuant *n = ir_alloc(g, sizeof *n);
    *n = *q;
    n->scale = ir_alloc(g, sizeof(float) * (size_t)q->n);
    n->zero = ir_alloc(g, sizeof(int32_t) * (size_t)q->n);
    for (int i = 0; i < q->n; i++) {
        n->scale[i] = q->scale[i];
        n->zero[i] = q->zero[i] - (dt == IR_DT_UINT8 ? 128 : dt == IR_DT_UINT16 ? 32768 : 0);
    }
    return n;
}

static bool zero_points_zero(const IrQuant *q)
{
    for (int i = 0; i < q->n; i++)
        if (q->zero[i] != 0)
            return false;
    return true;
}

/* ------------------------------------------------------- constants */

/* int8 copy of uint8 codes (q - 128), else t itself */
static int signed_codes(IrGraph *g, int t)
{
    const IrTensor *T = &g->tensors[t];
    if (T->dtype != IR_DT_UINT8)
        return t;
    int64_t n = ir_tensor_numel(T), dims[IR_MAX_RANK];
    int rank = T->rank;
    memcpy(dims, T->dims, sizeof dims);
    const uint8_t *src = ir_tensor_data(g, t);
    void *data;
    int s = ir_const_add(g, ir_sprintf(g, "%s.s8", g->tensors[t].name), IR_DT_INT8, rank, dims, &data);
    for (int64_t i = 0; i < n; i++)
        ((int8_t *)data)[i] = (int8_t)(src[i] - 128);
    g->tensors[s].quant = as_signed(g, g->tensors[t].quant, IR_DT_UINT8);
    return s;
}

static bool weight_slot(const IrLayer *L, int slot)
{
    return (L->op == IR_OP_CONV || L->op == IR_OP_GEMM) && (slot == 1 || slot == 2);
}

/* DQ of a constant: integer weights for conv/Gemm, float elsewhere */
static int import_const_dq(IrGraph *g, int l)
{
    int c = g->layers[l].in[0], y = g->layers[l].out[0];
    if (c < 0 || g->tensors[c].kind != IR_T_CONST || !g->tensors[c].quant)
        return 0;
    int ci = signed_codes(g, c);
    bool sym = zero_points_zero(g->tensors[ci].quant);
    int fcopy = -1;
    for (int k = 0; k < g->n_layers; k++) {
        IrLayer *C = &g->layers[k];
        if (C->dead)
            continue;
        for (int i = 0; i < C->n_in; i++) {
            if (C->in[i] != y)
                continue;
            if (weight_slot(C, i) && sym) {
                ir_set_use(g, k, &C->in[i], ci);
            } else {
                fcopy = fcopy < 0 ? quant_dequantized_const(g, c) : fcopy;
                ir_set_use(g, k, &C->in[i], fcopy);
            }
        }
        if (C->residual == y || C->act_slope == y) {
            fcopy = fcopy < 0 ? quant_dequantized_const(g, c) : fcopy;
            quant_replace_input(g, k, y, fcopy);
        }
    }
    if (ir_tensor_uses(g, y) > 0)
        return 0;
    g->layers[l].dead = true;
    return 1;
}

/* ------------------------------------------------------- activations */

/* x -> Q -> q -> DQ(l) -> x' */
static int import_pair(IrGraph *g, int l)
{
    int q = g->layers[l].in[0], xp = g->layers[l].out[0];
    int p = q >= 0 ? g->tensors[q].producer : -1;
    if (p < 0 || !is_q(&g->layers[p]) || !g->tensors[q].quant)
        return 0;
    int x = g->layers[p].in[0];
    if (g->tensors[q].quant->n != 1 || (g->tensors[x].is_output && g->tensors[xp].is_output))
        return 0;
    IrQuant *qq = as_signed(g, g->tensors[q].quant, g->tensors[q].dtype);
    int keep = x, drop = xp;
    if (g->tensors[xp].is_output) {
        int px = g->tensors[x].producer;
        if (px < 0)
            return 0;
        IrLayer *P = &g->layers[px];
        for (int k = 0; k < P->n_out; k++)
            if (P->out[k] == x)
                P->out[k] = xp;
        g->tensors[xp].producer = px;
        keep = xp;
        drop = x;
    }
    if (!g->tensors[keep].quant)
        g->tensors[keep].quant = qq;
    g->tensors[keep].dtype = IR_DT_FLOAT;
    for (int k = 0; k < g->n_layers; k++)
        if (!g->layers[k].dead && k != l)
            quant_replace_input(g, k, drop, keep);
    g->layers[l].dead = true;
    return 1;
}

static void drop_unused_q(IrGraph *g)
{
    for (int l = 0; l < g->n_layers; l++)
        if (is_q(&g->layers[l]) && ir_tensor_uses(g, g->layers[l].out[0]) == 0)
            g->layers[l].dead = true;
}

/* Mul(a, Sigmoid(a)) with the sigmoid used once -> SiLU carrier */
static int import_silu(IrGraph *g, int l)
{
    IrLayer *M = &g->layers[l];
    if (M->dead || M->op != IR_OP_MUL || M->n_in != 2 || M->act.kind != IR_ACT_NONE || M->residual >= 0)
        return 0;
    for (int k = 0; k < 2; k++) {
        int a = M->in[k], s = M->in[1 - k], p = s >= 0 ? g->tensors[s].producer : -1;
        if (p < 0 || g->layers[p].op != IR_OP_SIGMOID || g->layers[p].in[0] != a ||
            g->layers[p].act.kind != IR_ACT_NONE || ir_tensor_uses(g, s) != 1)
            continue;
        g->layers[p].dead = true;
        M->op = IR_OP_CLIP;
        M->n_in = 1;
        M->in[0] = a;
        M->in[1] = -1;
        M->attr.act = (IrAct){IR_ACT_CLIP, -FLT_MAX, FLT_MAX};
        M->act = (IrAct){IR_ACT_SILU, 0, 0};
        return 1;
    }
    return 0;
}

int pass_qdq_import_graph(IrGraph *g, IrDiag *d)
{
    (void)d;
    int n = 0, any = 0;
    for (int l = 0; l < g->n_layers; l++)
        any |= is_q(&g->layers[l]) || is_dq(&g->layers[l]);
    if (!any)
        return 0;
    for (int l = 0; l < g->n_layers; l++)
        if (is_dq(&g->layers[l]))
            n += import_const_dq(g, l);
    for (int l = 0; l < g->n_layers; l++)
        if (is_dq(&g->layers[l]))
            n += import_pair(g, l);
    drop_unused_q(g);
    for (int l = 0; l < g->n_layers; l++)
        n += import_silu(g, l);
    return n;
}

int pass_qdq_import(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    return pass_qdq_import_graph(g, d);
}
