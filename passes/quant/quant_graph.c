/* quant_graph.c - graph surgery the quantization passes share: topological
 * reordering after layers were appended, new tensors and layers for the
 * split epilogues and the float/integer boundaries, IrQuant helpers.
 *
 * Why: ir_layer_add appends at the end, but every phase after the passes
 * walks layers in array order; the quantize pass inserts boundary and
 * activation layers in the middle of the graph, so it appends them and
 * restores a topological order once, here. */
#include "quant_internal.h"
#include "passes/pass_util.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- toposort */

static int layer_input(const IrLayer *L, int k)
{
    if (k < L->n_in)
        return L->in[k];
    if (k == L->n_in)
        return L->residual;
    return L->act_slope;
}

/* all producers of l's inputs are placed */
static bool ready(const IrGraph *g, int l, const char *placed)
{
    const IrLayer *L = &g->layers[l];
    for (int k = 0; k < L->n_in + 2; k++) {
        int t = layer_input(L, k);
        if (t < 0)
            continue;
        int p = g->tensors[t].producer;
        if (p >= 0 && p != l && !g->layers[p].dead && !placed[p])
            return false;
    }
    return true;
}

int pass_quant_toposort(IrGraph *g)
{
    int n = g->n_layers;
    if (n == 0)
        return 0;
    char *placed = calloc((size_t)n + 1, 1);
    int *order = malloc(sizeof(int) * ((size_t)n + 1));
    int *newidx = malloc(sizeof(int) * ((size_t)n + 1));
    IrLayer *copy = malloc(sizeof(IrLayer) * ((size_t)n + 1));
    if (!placed || !order || !newidx || !copy) {
        free(placed), free(order), free(newidx), free(copy);
        return -1;
    }
    int m = 0, rc = 0;
    while (m < n) {
        int pick = -1;
        for (int l = 0; l < n && pick < 0; l++)
            if (!placed[l] && ready(g, l, placed))
                pick = l;
        if (pick < 0) {
            rc = -1;
            break;
        }
        placed[pick] = 1;
        order[m++] = pick;
    }
    if (rc == 0) {
        memcpy(copy, g->layers, sizeof(IrLayer) * (size_t)n);
        for (int i = 0; i < n; i++) {
            g->layers[i] = copy[order[i]];
            newidx[order[i]] = i;
        }
        for (int t = 0; t < g->n_tensors; t++)
            if (g->tensors[t].producer >= 0 && g->tensors[t].producer < n)
                g->tensors[t].producer = newidx[g->tensors[t].producer];
        ir_uses_drop(g);   /* layer indices changed */
    }
    free(placed), free(order), free(newidx), free(copy);
    return rc;
}

/* ------------------------------------------------------- quant */

IrQuant *pass_quant_new(IrGraph *g, float scale, int32_t zero, int bits, int frac_bits)
{
    IrQuant *q = ir_alloc(g, sizeof *q);
    q->axis = -1;
    q->n = 1;
    q->scale = ir_alloc(g, sizeof(float));
    q->zero = ir_alloc(g, sizeof(int32_t));
    q->scale[0] = scale;
    q->zero[0] = zero;
    q->bits = bits;
    q->frac_bits = frac_bits;
    return q;
}

bool quant_same_params(const IrQuant *a, const IrQuant *b)
{
    return a && b && a->n == 1 && b->n == 1 && a->scale[0] == b->scale[0] && a->zero[0] == b->zero[0] &&
           a->bits == b->bits;
}

/* ------------------------------------------------------- surgery */

int quant_new_tensor_like(IrGraph *g, int like, const char *suffix, IrDType dt)
{
    const IrTensor *T = &g->tensors[like];
    char *name = ir_sprintf(g, "%s%s", T->name, suffix);
    for (int k = 2; ir_tensor_find(g, name) >= 0; k++)
        name = ir_sprintf(g, "%s%s%d", T->name, suffix, k);
    int64_t dims[IR_MAX_RANK];
    int rank = T->rank;
    memcpy(dims, T->dims, sizeof dims);
    return ir_tensor_add(g, name, dt, rank, dims);
}

int quant_new_layer(IrGraph *g, IrOp op, const char *name, int x, int y)
{
    char *nm = (char *)name;
    for (int k = 2;; k++) {
        bool clash = false;
        for (int l = 0; l < g->n_layers && !clash; l++)
            clash = !strcmp(g->layers[l].name, nm);
        if (!clash)
            break;
        nm = ir_sprintf(g, "%s_%d", name, k);
    }
    int l = ir_layer_add(g, op, nm);
    IrLayer *L = &g->layers[l];
    L->n_in = 1;
    L->in[0] = x;
    L->n_out = 1;
    L->out[0] = y;
    g->tensors[y].producer = l;
    return l;
}

void quant_replace_input(IrGraph *g, int l, int from, int to)
{
    pass_rewire(g, l, from, to);
}

bool quant_layer_reads(const IrLayer *L, int t)
{
    for (int i = 0; i < L->n_in; i++)
        if (L->in[i] == t)
            return true;
    return L->residual == t || L->act_slope == t;
}

int quant_graph_output_index(const IrGraph *g, int t)
{
    for (int i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == t)
            return i;
    return -1;
}

/* ------------------------------------------------------- constants */

static double code_at(const IrTensor *T, const void *p, int64_t i)
{
    switch (T->dtype) {
    case IR_DT_INT8: return ((const int8_t *)p)[i];
    case IR_DT_UINT8: return ((const uint8_t *)p)[i];
    case IR_DT_INT16: return ((const int16_t *)p)[i];
    case IR_DT_UINT16: return ((const uint16_t *)p)[i];
    case IR_DT_INT64: return (double)((const int64_t *)p)[i];
    default: return ((const int32_t *)p)[i];
    }
}

int quant_dequantized_const(IrGraph *g, int t)
{
    const IrTensor *T = &g->tensors[t];
    const IrQuant *q = T->quant;
    int64_t n = ir_tensor_numel(T), dims[IR_MAX_RANK], inner = 1;
    int rank = T->rank;
    memcpy(dims, T->dims, sizeof dims);
    for (int i = q->axis + 1; q->n > 1 && i < rank; i++)
        inner *= dims[i];
    const void *src = ir_tensor_data(g, t);
    void *data;
    int f = ir_const_add(g, ir_sprintf(g, "%s.f32", T->name), IR_DT_FLOAT, rank, dims, &data);
    T = &g->tensors[t];
    for (int64_t i = 0; i < n; i++) {
        int c = q->n > 1 ? (int)((i / inner) % q->n) : 0;
        ((float *)data)[i] = (float)((code_at(T, src, i) - q->zero[c]) * q->scale[c]);
    }
    return f;
}
