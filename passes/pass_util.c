/* pass_util.c - graph surgery helpers shared by the passes.
 *
 * Why: fusions differ in what they match, not in how they rewire. Keeping the
 * rewiring here (producer links, graph outputs that must keep their names,
 * origin lists) means a pass file reads as its pattern and its arithmetic. */
#include "pass_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- queries */

bool pass_tensor_ok(const IrGraph *g, int t)
{
    return t >= 0 && t < g->n_tensors;
}

bool pass_is_const(const IrGraph *g, int t)
{
    return pass_tensor_ok(g, t) && g->tensors[t].kind == IR_T_CONST;
}

bool pass_is_graph_output(const IrGraph *g, int t)
{
    if (!pass_tensor_ok(g, t))
        return false;
    if (g->tensors[t].is_output)
        return true;
    for (int i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == t)
            return true;
    return false;
}

const float *pass_const_f32(IrGraph *g, int t)
{
    if (!pass_is_const(g, t) || g->tensors[t].dtype != IR_DT_FLOAT || ir_tensor_numel(&g->tensors[t]) < 0)
        return NULL;
    return ir_tensor_data(g, t);
}

int pass_const_scalar(IrGraph *g, int t, float *v)
{
    const float *p = pass_const_f32(g, t);
    if (!p || ir_tensor_numel(&g->tensors[t]) != 1)
        return 0;
    *v = p[0];
    return 1;
}

int pass_sole_consumer(const IrGraph *g, int t)
{
    if (!pass_tensor_ok(g, t) || pass_is_graph_output(g, t))
        return -1;
    int l, uses;
    return ir_tensor_consumers(g, t, &l, 1, &uses) == 1 && uses == 1 ? l : -1;
}

int pass_consumers(const IrGraph *g, int t, int *out, int max)
{
    return ir_tensor_consumers(g, t, out, max, NULL);
}

int pass_producer(const IrGraph *g, int t)
{
    if (!pass_tensor_ok(g, t) || g->tensors[t].kind != IR_T_ACT)
        return -1;
    int p = g->tensors[t].producer;
    if (p < 0 || p >= g->n_layers || g->layers[p].dead)
        return -1;
    return p;
}

bool pass_no_epilogue(const IrLayer *L)
{
    return L->residual < 0 && L->act.kind == IR_ACT_NONE && L->act_slope < 0;
}

bool pass_same_shape(const IrGraph *g, int a, int b)
{
    if (!pass_tensor_ok(g, a) || !pass_tensor_ok(g, b))
        return false;
    const IrTensor *A = &g->tensors[a], *B = &g->tensors[b];
    if (A->rank < 0 || A->rank != B->rank)
        return false;
    for (int i = 0; i < A->rank; i++)
        if (A->dims[i] < 0 || A->dims[i] != B->dims[i])
            return false;
    return true;
}

int pass_live_layers(const IrGraph *g)
{
    int n = 0;
    for (int l = 0; l < g->n_layers; l++)
        n += !g->layers[l].dead;
    return n;
}

/* --------------------------------------------------------------- rewrites */

const char *pass_unique_name(IrGraph *g, const char *base, const char *suffix)
{
    const char *name = ir_sprintf(g, "%s%s", base, suffix);
    for (int k = 2; ir_tensor_find(g, name) >= 0; k++)
        name = ir_sprintf(g, "%s%s%d", base, suffix, k);
    return name;
}

int pass_new_const_f32(IrGraph *g, const char *base, const char *suffix, int rank, const int64_t *dims,
                       float **data)
{
    void *p = NULL;
    int t = ir_const_add(g, pass_unique_name(g, base, suffix), IR_DT_FLOAT, rank, dims, &p);
    *data = p;
    return t;
}

void pass_replace_uses(IrGraph *g, int from, int to)
{
    int n = ir_tensor_consumers(g, from, NULL, 0, NULL);
    int *ls = malloc(sizeof(int) * (size_t)(n + 1));
    if (!ls)
        abort();
    ir_tensor_consumers(g, from, ls, n, NULL);
    for (int k = 0; k < n; k++)
        pass_rewire(g, ls[k], from, to);
    free(ls);
}

void pass_rewire(IrGraph *g, int l, int from, int to)
{
    IrLayer *L = &g->layers[l];
    for (int i = 0; i < L->n_in; i++)
        if (L->in[i] == from)
            ir_set_use(g, l, &L->in[i], to);
    if (L->residual == from)
        ir_set_use(g, l, &L->residual, to);
    if (L->act_slope == from)
        ir_set_use(g, l, &L->act_slope, to);
}

void pass_set_output(IrGraph *g, int l, int k, int t)
{
    g->layers[l].out[k] = t;
    g->tensors[t].producer = l;
    g->tensors[t].kind = IR_T_ACT;
}

void pass_kill(IrGraph *g, int l)
{
    g->layers[l].dead = true;
}

void pass_merge_origin(IrGraph *g, int dst, int src)
{
    IrLayer *D = &g->layers[dst];
    const IrLayer *S = &g->layers[src];
    D->origin = ir_sprintf(g, "%s,%s", D->origin ? D->origin : D->name, S->origin ? S->origin : S->name);
}

bool pass_single_output(const IrGraph *g, int l)
{
    const IrLayer *L = &g->layers[l];
    if (L->n_out < 1 || !pass_tensor_ok(g, L->out[0]))
        return false;
    for (int k = 1; k < L->n_out; k++)
        if (L->out[k] >= 0 && ir_tensor_uses(g, L->out[k]) > 0)
            return false;
    return true;
}

/* out (a graph output) takes the place of in as the result of in's producer */
static int hand_output_to_producer(IrGraph *g, int l, int in, int out)
{
    int p = pass_producer(g, in);
    if (p < 0 || pass_is_graph_output(g, in) || pass_sole_consumer(g, in) != l)
        return 0;
    IrLayer *P = &g->layers[p];
    for (int k = 0; k < P->n_out; k++)
        if (P->out[k] == in) {
            pass_set_output(g, p, k, out);
            g->tensors[in].producer = -1;
            pass_kill(g, l);
            pass_merge_origin(g, p, l);
            return 1;
        }
    return 0;
}

int pass_bypass(IrGraph *g, int l)
{
    IrLayer *L = &g->layers[l];
    if (L->dead || L->n_in < 1 || !pass_single_output(g, l) || !pass_no_epilogue(L))
        return 0;
    int in = L->in[0], out = L->out[0];
    if (!pass_same_shape(g, in, out) || g->tensors[in].dtype != g->tensors[out].dtype)
        return 0;
    if (pass_is_graph_output(g, out))
        return hand_output_to_producer(g, l, in, out);
    pass_kill(g, l);
    pass_replace_uses(g, out, in);
    return 1;
}

/* ------------------------------------------------------------- batch norm */

int pass_bn_coeffs(IrGraph *g, const IrLayer *B, int64_t C, double *s, double *t)
{
    if (B->n_in != 5)
        return -1;
    const float *p[4];
    for (int i = 0; i < 4; i++) {
        p[i] = pass_const_f32(g, B->in[1 + i]);
        if (!p[i] || ir_tensor_numel(&g->tensors[B->in[1 + i]]) != C)
            return -1;
    }
    double eps = B->attr.norm.epsilon;
    for (int64_t c = 0; c < C; c++) {
        double var = p[3][c];
        if (!(var + eps > 0))
            return -1;
        s[c] = p[0][c] / sqrt(var + eps);
        t[c] = p[1][c] - p[2][c] * s[c];
    }
    return 0;
}
