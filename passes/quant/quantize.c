/* quantize.c - pass quantize: float layers -> integer layers (int8, int16,
 * dynamic fixed point), with float only where the graph meets the user.
 *
 * Contract
 *   requires: shapes known; the fusion passes have run (epilogues final);
 *             qdq_import has run (a QDQ model's scales sit in IrTensor.quant).
 *   provides: every layer has its precision (IrLayer.prec / bits): the one
 *             asked for (--precision, --precision-spec) when the layer has
 *             an integer form at that width, else float. Integer layers:
 *               - read and write int8 (8-bit words) or int16 codes, every
 *                 activation tensor with a per-tensor IrQuant (scale, zero
 *                 point; dfxp: frac_bits, zero 0);
 *               - conv / Gemm weights are integer constants with their
 *                 IrQuant (per output channel, or per tensor for dfxp) and
 *                 the bias an int32 (int64 for wide words) constant at the
 *                 accumulator's scale; Gemm is [N][K] (transB) with
 *                 alpha = beta = 1;
 *               - fused epilogues are only Relu / Clip (folded into the
 *                 clamp); a fused residual became an Add layer and any other
 *                 activation a table layer (op of the activation, or a
 *                 no-op Clip whose fused act is SiLU), each with its own
 *                 calibrated intermediate tensor;
 *               - pass-through layers (views, max pools) keep their input's
 *                 quantization.
 *             QuantizeLinear / DequantizeLinear layers (prec of their
 *             integer side, parameters in that tensor's IrQuant) sit where
 *             float and integer tensors meet, and between integer layers of
 *             different widths; graph inputs and outputs stay float and keep
 *             their names.
 *   breaks:   float semantics of the layers it converts (by design); a
 *             layer order that was topological stays so (new layers are
 *             placed by a topological sort).
 *
 * Scales come from calibration (passes/quant/calibrate.c) on the float graph
 * after the epilogues were split, so every intermediate tensor has a range;
 * tensors that already carry an IrQuant (QDQ import) keep it.
 */
#include "passes/passes.h"
#include "quant_internal.h"
#include "ir/escape.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int t, bits, q;          /* tensor, format, its converted copy */
    IrPrecision prec;
} Conv;

typedef struct {
    IrGraph *g;
    const QuantOptions *o;
    IrDiag *d;
    bool imported;
    QuantStats *stats;       /* per original tensor, NULL when none needed */
    int n_stats;
    int *origin;             /* [tensor] the original tensor whose values it holds */
    int n_origin;
    Conv *conv;              /* Q / DQ made so far (shared by consumers) */
    int n_conv, cap_conv;
    int n_int, n_boundary, n_split;
} Quantizer;

/* ------------------------------------------------------- decisions */

static bool is_view(IrOp op)
{
    return (ir_op_flags(op) & IR_F_NO_DATA) != 0;
}

/* data movements (Split, Slice, Transpose, a Gather of constant indices)
 * copy codes: exact at any scale, so they keep their input's */
static bool is_move(const IrGraph *g, const IrLayer *L)
{
    switch (L->op) {
    case IR_OP_SPLIT: case IR_OP_SLICE: case IR_OP_TRANSPOSE: return true;
    case IR_OP_GATHER: return L->n_in == 2 && L->in[1] >= 0 && g->tensors[L->in[1]].kind == IR_T_CONST;
    default: return false;
    }
}

static bool is_follower(const IrGraph *g, const IrLayer *L)
{
    return is_view(L->op) || L->op == IR_OP_MAXPOOL || L->op == IR_OP_GLOBAL_MAXPOOL || is_move(g, L);
}

static bool activation(const IrGraph *g, int t)
{
    return t >= 0 && g->tensors[t].kind != IR_T_CONST;
}

static bool float_or_quant(const Quantizer *z, int t)
{
    const IrTensor *T = &z->g->tensors[t];
    return T->dtype == IR_DT_FLOAT && ir_tensor_numel(T) >= 0;
}

static bool consts_ok(const IrGraph *g, const IrLayer *L, int from)
{
    for (int i = from; i < L->n_in; i++)
        if (L->in[i] >= 0 && g->tensors[L->in[i]].kind != IR_T_CONST)
            return false;
    return true;
}

static bool gemm_ok(const IrGraph *g, const IrLayer *L)
{
    if (L->n_in < 2 || L->attr.gemm.trans_a || g->tensors[L->in[0]].rank != 2 ||
        g->tensors[L->in[1]].rank != 2 || !consts_ok(g, L, 1))
        return false;
    int64_t N = g->tensors[L->out[0]].dims[1];
    if (L->n_in > 2 && L->in[2] >= 0) {
        const IrTensor *C = &g->tensors[L->in[2]];
        if (ir_tensor_numel(C) != N || (C->rank == 2 && C->dims[0] != 1) || C->rank > 2)
            return false;
    }
    return true;
}

/* the layer has an integer form at `bits` */
static bool capable(const Quantizer *z, int l, int bits)
{
    const IrGraph *g = z->g;
    const IrLayer *L = &g->layers[l];
    if (L->n_in < 1 || L->n_out < 1 || L->out[0] < 0 || !float_or_quant(z, L->out[0]))
        return false;
    for (int i = 1; i < L->n_out; i++)
        if (L->out[i] >= 0 && ir_tensor_uses(g, L->out[i]) > 0)
            return false;
    for (int i = 0; i < L->n_in; i++)
        if (activation(g, L->in[i]) && !float_or_quant(z, L->in[i]))
            return false;
    int rank = g->tensors[L->in[0]].rank;
    switch (L->op) {
    case IR_OP_CONV:
        return (rank == 3 || rank == 4) && consts_ok(g, L, 1) && L->n_in >= 2;
    case IR_OP_GEMM: return gemm_ok(g, L);
    case IR_OP_AVGPOOL: return rank == 3 || rank == 4;
    case IR_OP_GLOBAL_AVGPOOL: return rank >= 2;
    case IR_OP_REDUCE_MEAN: return ir_reduce_is_spatial_mean(g, L);
    case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL:
        return L->n_in == 2 && activation(g, L->in[0]) && activation(g, L->in[1]);
    case IR_OP_CONCAT:
        for (int i = 0; i < L->n_in; i++)
            if (!activation(g, L->in[i]))
                return false;
        return true;
    case IR_OP_RELU: case IR_OP_CLIP:
        return L->act.kind != IR_ACT_PRELU && (quant_act_foldable(L->act.kind) || bits == 8);
    default:
        return bits == 8 && quant_is_table_op(L);
    }
}

/* imported QDQ: the layer's activations all carry scales */
static bool covered(const IrGraph *g, const IrLayer *L)
{
    if (!g->tensors[L->out[0]].quant && !is_follower(g, L))
        return false;
    for (int i = 0; i < L->n_in; i++)
        if (activation(g, L->in[i]) && !g->tensors[L->in[i]].quant)
            return false;
    return true;
}

static void set_prec(IrLayer *L, IrPrecision p, int bits)
{
    L->prec = p;
    L->bits = bits;
}

static int decide(Quantizer *z)
{
    IrGraph *g = z->g;
    if (z->imported && !pass_quant_active(z->o)) {
        for (int l = 0; l < g->n_layers; l++)
            set_prec(&g->layers[l], IR_PREC_INT8, 8);
    } else if (quant_apply_spec(g, z->o, z->d)) {
        return -1;
    }
    for (int l = 0; l < g->n_layers; l++) {
        IrLayer *L = &g->layers[l];
        if (L->prec == IR_PREC_FLOAT || is_follower(g, L))
            continue;
        if (!capable(z, l, L->bits) || (z->imported && !covered(g, L)))
            set_prec(L, IR_PREC_FLOAT, 32);
    }
    for (int l = 0; l < g->n_layers; l++) {
        IrLayer *L = &g->layers[l];
        if (!is_follower(g, L))
            continue;
        int p = g->tensors[L->in[0]].producer;
        bool ok = p >= 0 && g->layers[p].prec != IR_PREC_FLOAT && L->residual < 0 &&
                  L->act.kind == IR_ACT_NONE && (L->n_out == 1 || L->op == IR_OP_SPLIT);
        for (int k = 0; k < L->n_out; k++)
            ok = ok && L->out[k] >= 0 && float_or_quant(z, L->out[k]);
        set_prec(L, ok ? g->layers[p].prec : IR_PREC_FLOAT, ok ? g->layers[p].bits : 32);
    }
    return 0;
}

/* ------------------------------------------------------- epilogue split */

/* L writes a new tensor; a new layer `op` reads it and writes L's output */
static int split_after(Quantizer *z, int l, IrOp op, const char *suffix)
{
    IrGraph *g = z->g;
    int y = g->layers[l].out[0];
    int t = quant_new_tensor_like(g, y, suffix, IR_DT_FLOAT);
    const char *name = ir_sprintf(g, "%s%s", g->layers[l].name, suffix);
    int n = quant_new_layer(g, op, name, t, y);
    IrLayer *L = &g->layers[l], *N = &g->layers[n];
    L->out[0] = t;
    g->tensors[t].producer = l;
    N->origin = L->origin;
    set_prec(N, L->prec, L->bits);
    z->n_split++;
    return n;
}

static void split_act(Quantizer *z, int l)
{
    IrLayer *L = &z->g->layers[l];
    IrAct a = L->act;
    int slope = L->act_slope;
    L->act = (IrAct){IR_ACT_NONE, 0, 0};
    L->act_slope = -1;
    int n = split_after(z, l, ir_act_op(a.kind), ".pre_act");
    IrLayer *N = &z->g->layers[n];
    if (a.kind == IR_ACT_SILU) {
        N->attr.act = (IrAct){IR_ACT_CLIP, -FLT_MAX, FLT_MAX};
        N->act = a;
    } else if (a.kind == IR_ACT_PRELU) {
        N->n_in = 2;
        N->in[1] = slope;
        set_prec(N, IR_PREC_FLOAT, 32);
    } else {
        N->attr.act = a;
    }
    if (N->prec != IR_PREC_FLOAT && !capable(z, n, N->bits))
        set_prec(N, IR_PREC_FLOAT, 32);
}

static void split_residual(Quantizer *z, int l)
{
    IrLayer *L = &z->g->layers[l];
    int r = L->residual;
    IrAct a = L->act;
    int slope = L->act_slope;
    L->residual = -1;
    L->act = (IrAct){IR_ACT_NONE, 0, 0};
    L->act_slope = -1;
    int n = split_after(z, l, IR_OP_ADD, ".pre_add");
    IrLayer *N = &z->g->layers[n];
    N->n_in = 2;
    N->in[1] = r;
    N->act = a;
    N->act_slope = slope;
    if (!quant_act_foldable(a.kind))
        split_act(z, n);
}

static void split_epilogues(Quantizer *z)
{
    int n = z->g->n_layers;
    for (int l = 0; l < n; l++) {
        IrLayer *L = &z->g->layers[l];
        if (L->dead || L->prec == IR_PREC_FLOAT)
            continue;
        if (pass_quant_fn_supported(L->op) && L->residual < 0)
            continue;  /* element-wise: one table computes op and activation */
        if (L->residual >= 0)
            split_residual(z, l);
        else if (!quant_act_foldable(L->act.kind))
            split_act(z, l);
    }
}

/* ------------------------------------------------------- calibration */

static bool int_layer(const IrGraph *g, int l)
{
    return g->layers[l].prec != IR_PREC_FLOAT;
}

static int calibrate(Quantizer *z)
{
    IrGraph *g = z->g;
    bool *want = calloc((size_t)g->n_tensors + 1, 1);
    int n_want = 0;
    if (!want)
        return -1;
    for (int l = 0; l < g->n_layers; l++) {
        const IrLayer *L = &g->layers[l];
        if (!int_layer(g, l))
            continue;
        for (int i = 0; i < L->n_in + L->n_out; i++) {
            int t = i < L->n_in ? L->in[i] : L->out[i - L->n_in];
            if (activation(g, t) && !g->tensors[t].quant && !want[t]) {
                want[t] = true;
                n_want++;
            }
        }
    }
    z->n_stats = g->n_tensors;
    z->stats = calloc((size_t)g->n_tensors + 1, sizeof *z->stats);
    int rc = z->stats ? 0 : -1;
    if (rc == 0 && n_want > 0)
        rc = pass_calibrate(g, z->o, want, z->stats, z->d);
    free(want);
    return rc;
}

/* ------------------------------------------------------- parameters */

static int origin_of(Quantizer *z, int t)
{
    while (t >= z->n_stats && t < z->n_origin && z->origin[t] >= 0)
        t = z->origin[t];
    return t;
}

static void set_origin(Quantizer *z, int t, int from)
{
    if (t >= z->n_origin) {
        int n = t + 64;
        int *o = realloc(z->origin, sizeof(int) * (size_t)n);
        if (!o)
            return;
        for (int i = z->n_origin; i < n; i++)
            o[i] = -1;
        z->origin = o;
        z->n_origin = n;
    }
    z->origin[t] = from;
}

/* the IrQuant of a `bits`-wide tensor holding the values of t */
static IrQuant *params(Quantizer *z, int t, IrPrecision prec, int bits)
{
    int o = origin_of(z, t);
    const IrQuant *have = z->g->tensors[o].quant;
    bool fmt_ok = have && have->n == 1 && have->bits == bits &&
                  (prec == IR_PREC_DFXP) == (have->frac_bits != INT32_MIN) &&
                  (prec != IR_PREC_INT16 || have->zero[0] == 0);
    if (fmt_ok)
        return pass_quant_new(z->g, have->scale[0], have->zero[0], bits, have->frac_bits);
    QuantStats empty = {0, 0, 0, 0, 0, NULL, 0};
    const QuantStats *st = z->stats && o < z->n_stats ? &z->stats[o] : &empty;
    double lo, hi;
    pass_calib_range(st, z->o->method, z->o->percentile, bits, prec != IR_PREC_INT8, &lo, &hi);
    if (prec == IR_PREC_DFXP) {
        int fb = pass_quant_dfxp_frac_bits(lo, hi, bits);
        return pass_quant_new(z->g, (float)ldexp(1.0, -fb), 0, bits, fb);
    }
    if (prec == IR_PREC_INT16) {
        double m = fabs(lo) > hi ? fabs(lo) : hi;
        return pass_quant_new(z->g, pass_quant_sym_scale(m, pass_quant_qmax(bits)), 0, bits, INT32_MIN);
    }
    float s;
    int32_t zero;
    pass_quant_asym(lo, hi, bits, &s, &zero);
    return pass_quant_new(z->g, s, zero, bits, INT32_MIN);
}

static void make_int(IrGraph *g, int t, IrQuant *q)
{
    g->tensors[t].quant = q;
    g->tensors[t].dtype = q->bits > 8 ? IR_DT_INT16 : IR_DT_INT8;
}

/* ------------------------------------------------------- boundaries */

static Conv *find_conv(Quantizer *z, int t, IrPrecision prec, int bits)
{
    for (int i = 0; i < z->n_conv; i++)
        if (z->conv[i].t == t && z->conv[i].prec == prec && z->conv[i].bits == bits)
            return &z->conv[i];
    return NULL;
}

static int add_conv(Quantizer *z, int t, IrPrecision prec, int bits, int q)
{
    if (z->n_conv == z->cap_conv) {
        int cap = z->cap_conv ? 2 * z->cap_conv : 32;
        Conv *c = realloc(z->conv, sizeof *c * (size_t)cap);
        if (!c)
            return -1;
        z->conv = c;
        z->cap_conv = cap;
    }
    z->conv[z->n_conv++] = (Conv){t, bits, q, prec};
    return q;
}

/* float copy of integer tensor t (DequantizeLinear), shared */
static int dequantized(Quantizer *z, int t)
{
    Conv *c = find_conv(z, t, IR_PREC_FLOAT, 32);
    if (c)
        return c->q;
    IrGraph *g = z->g;
    int f = quant_new_tensor_like(g, t, ".dq", IR_DT_FLOAT);
    int l = quant_new_layer(g, IR_OP_DEQUANTIZE_LINEAR, ir_sprintf(g, "%s.dq", g->tensors[t].name), t, f);
    const IrLayer *P = &g->layers[g->tensors[t].producer];
    set_prec(&g->layers[l], P->prec, P->bits);
    set_origin(z, f, t);
    z->n_boundary++;
    return add_conv(z, t, IR_PREC_FLOAT, 32, f);
}

/* integer copy of float tensor t in a format (QuantizeLinear), shared */
static int quantized(Quantizer *z, int t, IrPrecision prec, int bits)
{
    Conv *c = find_conv(z, t, prec, bits);
    if (c)
        return c->q;
    IrGraph *g = z->g;
    int q = quant_new_tensor_like(g, t, bits > 8 ? ".q16" : ".q", IR_DT_FLOAT);
    int l = quant_new_layer(g, IR_OP_QUANTIZE_LINEAR, ir_sprintf(g, "%s.q", g->tensors[t].name), t, q);
    set_prec(&g->layers[l], prec, bits);
    set_origin(z, q, t);
    make_int(g, q, params(z, q, prec, bits));
    z->n_boundary++;
    return add_conv(z, t, prec, bits, q);
}

static bool same_format(const IrLayer *a, const IrLayer *b)
{
    return a->prec == b->prec && a->bits == b->bits;
}

/* the tensor integer layer l reads in place of activation t */
static int int_input(Quantizer *z, int l, int t)
{
    IrGraph *g = z->g;
    const IrLayer *L = &g->layers[l];
    int p = g->tensors[t].producer;
    if (p >= 0 && int_layer(g, p) && same_format(&g->layers[p], L))
        return t;
    int f = p >= 0 && int_layer(g, p) ? dequantized(z, t) : t;
    return quantized(z, f, L->prec, L->bits);
}

/* graph outputs made by integer layers: the layer writes a new integer
 * tensor and a DequantizeLinear writes the output (keeping its name) */
static void outputs_to_float(Quantizer *z)
{
    IrGraph *g = z->g;
    for (int i = 0; i < g->n_outputs; i++) {
        int y = g->outputs[i], p = g->tensors[y].producer;
        if (p < 0 || !int_layer(g, p))
            continue;
        int t = quant_new_tensor_like(g, y, ".int", IR_DT_FLOAT);
        g->tensors[t].quant = g->tensors[y].quant;
        for (int l = 0; l < g->n_layers; l++)
            if (l != p && !g->layers[l].dead)
                quant_replace_input(g, l, y, t);
        IrLayer *P = &g->layers[p];
        for (int k = 0; k < P->n_out; k++)
            if (P->out[k] == y)
                P->out[k] = t;
        g->tensors[t].producer = p;
        set_origin(z, t, y);
        int d = quant_new_layer(g, IR_OP_DEQUANTIZE_LINEAR, ir_sprintf(g, "%s.dq", g->tensors[y].name), t, y);
        set_prec(&g->layers[d], P->prec, P->bits);
        add_conv(z, t, IR_PREC_FLOAT, 32, y);
        z->n_boundary++;
    }
}

static int convert_int_layer(Quantizer *z, int l)
{
    IrGraph *g = z->g;
    IrLayer *L = &g->layers[l];
    if (L->op == IR_OP_QUANTIZE_LINEAR || L->op == IR_OP_DEQUANTIZE_LINEAR)
        return 0;
    for (int i = 0; i < g->layers[l].n_in; i++)
        if (activation(g, g->layers[l].in[i])) {
            int q = int_input(z, l, g->layers[l].in[i]);   /* may add layers (moving g->layers) */
            ir_set_use(g, l, &g->layers[l].in[i], q);
        }
    L = &g->layers[l];
    const IrQuant *qx = g->tensors[L->in[0]].quant;
    if (is_follower(g, L))
        for (int k = 0; k < L->n_out; k++)
            make_int(g, L->out[k], pass_quant_new(g, qx->scale[0], qx->zero[0], L->bits, qx->frac_bits));
    else
        make_int(g, L->out[0], params(z, L->out[0], L->prec, L->bits));
    z->n_int++;
    if (L->op == IR_OP_CONV || L->op == IR_OP_GEMM)
        return quant_convert_weights(g, l, z->d);
    return 0;
}

/* float layers reading integer tensors get DequantizeLinear copies */
static void float_inputs(Quantizer *z, int n_layers)
{
    IrGraph *g = z->g;
    for (int l = 0; l < n_layers; l++) {
        IrLayer *L = &g->layers[l];
        if (L->dead || int_layer(g, l))
            continue;
        for (int k = 0; k < L->n_in + 2; k++) {
            int *slot = k < L->n_in ? &L->in[k] : k == L->n_in ? &L->residual : &L->act_slope;
            int t = *slot, p = t >= 0 ? g->tensors[t].producer : -1;
            if (p >= 0 && int_layer(g, p) && g->layers[p].op != IR_OP_DEQUANTIZE_LINEAR) {
                int f = dequantized(z, t);
                L = &g->layers[l];
                slot = k < L->n_in ? &L->in[k] : k == L->n_in ? &L->residual : &L->act_slope;
                *slot = f;
            }
        }
    }
}

/* float conv / Gemm layers holding integer weights (QDQ import) read
 * float copies of them */
static void float_weights(Quantizer *z)
{
    IrGraph *g = z->g;
    for (int l = 0; l < g->n_layers; l++) {
        if (g->layers[l].dead || int_layer(g, l))
            continue;
        for (int i = 1; i < g->layers[l].n_in; i++) {
            int t = g->layers[l].in[i];
            if (t < 0 || g->tensors[t].kind != IR_T_CONST || g->tensors[t].dtype == IR_DT_FLOAT ||
                !g->tensors[t].quant)
                continue;
            int q = quant_dequantized_const(g, t);
            ir_set_use(g, l, &g->layers[l].in[i], q);
        }
    }
}

static int convert(Quantizer *z)
{
    IrGraph *g = z->g;
    float_weights(z);
    outputs_to_float(z);
    int n = g->n_layers;
    for (int l = 0; l < n; l++)
        if (!g->layers[l].dead && int_layer(g, l) && convert_int_layer(z, l))
            return -1;
    float_inputs(z, n);
    return pass_quant_toposort(g);
}

/* ------------------------------------------------------- driver */

static bool has_imported_quant(const IrGraph *g)
{
    for (int t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].kind != IR_T_CONST && g->tensors[t].quant)
            return true;
    return false;
}

static void summary(const Quantizer *z)
{
    if (!z->o->log)
        return;
    int n_float = 0;
    for (int l = 0; l < z->g->n_layers; l++)
        n_float += !z->g->layers[l].dead && !int_layer(z->g, l);
    fprintf(z->o->log, "quantize: %d integer layers (%s), %d float, %d boundaries, %d epilogues split\n",
            z->n_int, pass_quant_prec_name(z->o->prec), n_float, z->n_boundary, z->n_split);
    const IrGraph *g = z->g;
    for (int i = 0; i < g->n_outputs; i++) {
        int p = g->tensors[g->outputs[i]].producer;
        if (p < 0 || g->layers[p].op != IR_OP_DEQUANTIZE_LINEAR)
            continue;
        const IrQuant *q = g->tensors[g->layers[p].in[0]].quant;
        fputs("quantize: output '", z->o->log);
        esc_put(z->o->log, ESC_TERM, g->tensors[g->outputs[i]].name);
        fprintf(z->o->log, "' = (q - %d) * %.9g (%d-bit codes)\n", q->zero[0], (double)q->scale[0], q->bits);
    }
}

int pass_quantize_graph(IrGraph *g, const QuantOptions *o, IrDiag *d)
{
    QuantOptions dflt;
    pass_quant_options_init(&dflt);
    Quantizer z;
    memset(&z, 0, sizeof z);
    z.g = g;
    z.o = o ? o : &dflt;
    z.d = d;
    z.imported = has_imported_quant(g);
    if (!pass_quant_active(z.o) && !z.imported)
        return 0;
    int rc = decide(&z);
    if (rc == 0) {
        split_epilogues(&z);
        rc = pass_quant_toposort(g);
    }
    if (rc == 0)
        rc = calibrate(&z);
    if (rc == 0)
        rc = convert(&z);
    if (rc == 0)
        summary(&z);
    pass_calib_stats_free(z.stats, z.n_stats);
    free(z.stats);
    free(z.origin);
    free(z.conv);
    return rc ? -1 : z.n_int + z.n_boundary;
}

int pass_quantize(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    return pass_quantize_graph(g, opt ? opt->quant : NULL, d);
}
