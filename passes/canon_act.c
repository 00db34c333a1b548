/* canon_act.c - pass canon_act: recognize HardSwish and Mish spelled out in
 * basic ops and make each one layer.
 *
 * Contract
 *   requires: shapes known; no fused epilogues on the matched layers.
 *   provides: the last layer of each of these forms (constants are float
 *             scalars; operands of Add and Mul in either order) becomes
 *             HardSwish(x), reading x directly:
 *               x * HardSigmoid(x)            alpha = 1/6, beta = 0.5
 *               x * (Clip(x + 3, 0, 6) / 6)   also "* (1/6)" for "/ 6"
 *               (x * Clip(x + 3, 0, 6)) / 6   also "* (1/6)"
 *             or Mish(x), for the form PyTorch exports before opset 18:
 *               x * Tanh(Softplus(x))
 *   breaks:   nothing. Intermediate layers that nothing else reads are
 *             removed; the others stay (they still compute their values).
 *
 * Why a separate pass: fuse_act then only has to know the HardSwish and Mish
 * ops, and one whose producer cannot take an epilogue still becomes one
 * element-wise layer instead of three or four.
 */
#include "passes.h"
#include "pass_util.h"

#include <math.h>

static bool near(float v, double want)
{
    return fabs((double)v - want) <= 1e-6 * fabs(want) + 1e-7;
}

/* the producer of t if it is a live op-layer without epilogue, else NULL */
static const IrLayer *made_by(const IrGraph *g, int t, IrOp op)
{
    int p = pass_producer(g, t);
    if (p < 0 || g->layers[p].op != op || !pass_no_epilogue(&g->layers[p]))
        return NULL;
    return &g->layers[p];
}

/* binary layer L with a float scalar constant on one side: that value and the
 * other operand; -1 when not so */
static int scalar_operand(IrGraph *g, const IrLayer *L, float *v)
{
    if (!L || L->n_in != 2)
        return -1;
    if (pass_const_scalar(g, L->in[1], v))
        return L->in[0];
    if (L->op != IR_OP_DIV && pass_const_scalar(g, L->in[0], v))
        return L->in[1];
    return -1;
}

/* v == Clip(x + 3, 0, 6): x, else -1 */
static int match_relu6_plus3(IrGraph *g, int v)
{
    const IrLayer *C = made_by(g, v, IR_OP_CLIP);
    if (!C || C->n_in < 1 || C->attr.act.alpha != 0.0f || C->attr.act.beta != 6.0f)
        return -1;
    float k;
    int x = scalar_operand(g, made_by(g, C->in[0], IR_OP_ADD), &k);
    return x >= 0 && k == 3.0f ? x : -1;
}

/* t == u / 6 or u * (1/6): u, else -1 */
static int match_div6(IrGraph *g, int t)
{
    float k;
    int u = scalar_operand(g, made_by(g, t, IR_OP_DIV), &k);
    if (u >= 0 && k == 6.0f)
        return u;
    u = scalar_operand(g, made_by(g, t, IR_OP_MUL), &k);
    return u >= 0 && near(k, 1.0 / 6.0) ? u : -1;
}

/* u == HardSigmoid(x) with the HardSwish constants, or Clip(x+3,0,6)/6: x */
static int match_hsig(IrGraph *g, int u)
{
    const IrLayer *H = made_by(g, u, IR_OP_HARD_SIGMOID);
    if (H && H->n_in >= 1 && near(H->attr.act.alpha, 1.0 / 6.0) && near(H->attr.act.beta, 0.5))
        return H->in[0];
    int v = match_div6(g, u);
    return v >= 0 ? match_relu6_plus3(g, v) : -1;
}

/* x * hsig(x) for Mul layer M */
static int match_mul_form(IrGraph *g, const IrLayer *M)
{
    if (M->op != IR_OP_MUL || M->n_in != 2)
        return -1;
    for (int k = 0; k < 2; k++) {
        int x = M->in[k];
        if (x >= 0 && match_hsig(g, M->in[1 - k]) == x)
            return x;
    }
    return -1;
}

/* x * Tanh(Softplus(x)) for Mul layer M */
static int match_mish(IrGraph *g, const IrLayer *M)
{
    if (M->op != IR_OP_MUL || M->n_in != 2)
        return -1;
    for (int k = 0; k < 2; k++) {
        const IrLayer *T = made_by(g, M->in[1 - k], IR_OP_TANH);
        const IrLayer *S = T && T->n_in == 1 ? made_by(g, T->in[0], IR_OP_SOFTPLUS) : NULL;
        if (S && S->n_in == 1 && M->in[k] >= 0 && S->in[0] == M->in[k])
            return M->in[k];
    }
    return -1;
}

/* (x * relu6(x + 3)) / 6 ending at layer R */
static int match_div_form(IrGraph *g, int r)
{
    int m = match_div6(g, g->layers[r].out[0]);
    const IrLayer *M = m >= 0 ? made_by(g, m, IR_OP_MUL) : NULL;
    if (!M || M->n_in != 2)
        return -1;
    for (int k = 0; k < 2; k++)
        if (M->in[k] >= 0 && match_relu6_plus3(g, M->in[1 - k]) == M->in[k])
            return M->in[k];
    return -1;
}

#define MAX_PATTERN 8

/* the layers between x and R (the matched pattern), R first */
static int pattern_layers(IrGraph *g, int r, int x, int *set)
{
    int n = 1;
    set[0] = r;
    for (int i = 0; i < n; i++) {
        const IrLayer *L = &g->layers[set[i]];
        for (int k = 0; k < L->n_in; k++) {
            int p = L->in[k] == x ? -1 : pass_producer(g, L->in[k]);
            bool seen = false;
            for (int j = 0; j < n; j++)
                seen |= set[j] == p;
            if (p >= 0 && !seen && n < MAX_PATTERN)
                set[n++] = p;
        }
    }
    return n;
}

/* R's origin lists the pattern; pattern layers nothing reads any more die
 * now, so that fuse_act sees x with R as its only reader */
static void retire_pattern(IrGraph *g, const int *set, int n)
{
    for (int i = 1; i < n; i++)
        pass_merge_origin(g, set[0], set[i]);
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 1; i < n; i++) {
            const IrLayer *L = &g->layers[set[i]];
            if (!L->dead && ir_tensor_uses(g, L->out[0]) == 0) {
                pass_kill(g, set[i]);
                changed = true;
            }
        }
    }
}

static int rewrite(IrGraph *g, int r)
{
    IrLayer *R = &g->layers[r];
    if (R->n_in != 2 || !pass_no_epilogue(R) || !pass_single_output(g, r))
        return 0;
    IrOp op = IR_OP_HARD_SWISH;
    int x = match_mul_form(g, R);
    if (x < 0)
        x = match_div_form(g, r);
    if (x < 0 && (x = match_mish(g, R)) >= 0)
        op = IR_OP_MISH;
    if (x < 0 || !pass_same_shape(g, x, R->out[0]) || g->tensors[x].dtype != IR_DT_FLOAT)
        return 0;
    int set[MAX_PATTERN];
    int n = pattern_layers(g, r, x, set);
    R->op = op;
    ir_set_use(g, r, &R->in[0], x);
    R->in[1] = -1;
    R->n_in = 1;
    R->attr.act = (IrAct){.kind = ir_op_act(op)};
    retire_pattern(g, set, n);
    return 1;
}

int pass_canon_act(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    (void)d;
    int n = 0;
    for (int l = 0; l < g->n_layers; l++) {
        IrOp op = g->layers[l].op;
        if (!g->layers[l].dead && (op == IR_OP_MUL || op == IR_OP_DIV))
            n += rewrite(g, l);
    }
    return n;
}
