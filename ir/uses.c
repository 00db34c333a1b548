/* uses.c - who reads a tensor: the consumer index behind ir_tensor_uses,
 * ir_tensor_consumers and ir_set_use.
 *
 * Why an index: passes ask "is this layer the only reader of x?" for nearly
 * every layer they look at, and a scan of the graph per question made a
 * 10,000-layer network cost 10^8 steps. The index is a cache on the graph:
 * per tensor, the layers that read it (in[], residual, act_slope), built on
 * the first question and dropped by ir_graph_compact.
 *
 * Staying true while passes rewrite: a listed layer that no longer reads
 * the tensor (or died) is filtered out when asked; layers and tensors made
 * after the index was built are covered by scanning just them (and the
 * index is rebuilt once they are many). What the index cannot see is an
 * older layer pointed at an older tensor: such rewires go through
 * ir_set_use. Debug builds (the sanitizer CI) check every answer against a
 * full scan, so a pass that rewires behind the index's back fails there.
 */
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct IrUseIndex {
    int n_layers, n_tensors;   /* graph size when built */
    int **list, *len, *cap;    /* per tensor: layers that read it (maybe stale) */
    int *stamp, cur;           /* per layer: dedup mark of the current query */
};

static void oom(void)
{
    fprintf(stderr, "onnx2hls: out of memory\n");
    abort();
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        oom();
    return p;
}

static int layer_reads(const IrLayer *L, int t)
{
    int n = 0;
    for (int i = 0; i < L->n_in; i++)
        n += L->in[i] == t;
    return n + (L->residual == t) + (L->act_slope == t);
}

static void count_layer_uses(const IrLayer *L, int *uses, int delta)
{
    for (int i = 0; i < L->n_in; i++)
        if (L->in[i] >= 0)
            uses[L->in[i]] += delta;
    if (L->residual >= 0)
        uses[L->residual] += delta;
    if (L->act_slope >= 0)
        uses[L->act_slope] += delta;
}

int *ir_use_counts(const IrGraph *g)
{
    int *uses = xcalloc((size_t)g->n_tensors + 1, sizeof(int));
    for (int t = 0; t < g->n_tensors; t++)
        uses[t] = g->tensors[t].is_output ? 1 : 0;
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead)
            count_layer_uses(&g->layers[l], uses, 1);
    return uses;
}

void ir_use_counts_drop(const IrGraph *g, int l, int *uses)
{
    count_layer_uses(&g->layers[l], uses, -1);
}

void ir_uses_drop(IrGraph *g)
{
    IrUseIndex *x = g->uses;
    if (!x)
        return;
    for (int t = 0; t < x->n_tensors; t++)
        free(x->list[t]);
    free(x->list), free(x->len), free(x->cap), free(x->stamp);
    free(x);
    g->uses = NULL;
}

static void append(IrUseIndex *x, int t, int l)
{
    if (t < 0 || t >= x->n_tensors || (x->len[t] && x->list[t][x->len[t] - 1] == l))
        return;
    if (x->len[t] == x->cap[t]) {
        x->cap[t] = x->cap[t] ? 2 * x->cap[t] : 2;
        x->list[t] = realloc(x->list[t], sizeof(int) * (size_t)x->cap[t]);
        if (!x->list[t])
            oom();
    }
    x->list[t][x->len[t]++] = l;
}

static void build(IrGraph *g)
{
    IrUseIndex *x = xcalloc(1, sizeof *x);
    x->n_layers = g->n_layers;
    x->n_tensors = g->n_tensors;
    x->list = xcalloc((size_t)x->n_tensors, sizeof *x->list);
    x->len = xcalloc((size_t)x->n_tensors, sizeof *x->len);
    x->cap = xcalloc((size_t)x->n_tensors, sizeof *x->cap);
    x->stamp = xcalloc((size_t)x->n_layers, sizeof *x->stamp);
    for (int l = 0; l < g->n_layers; l++) {
        const IrLayer *L = &g->layers[l];
        if (L->dead)
            continue;
        for (int i = 0; i < L->n_in; i++)
            append(x, L->in[i], l);
        append(x, L->residual, l);
        append(x, L->act_slope, l);
    }
    g->uses = x;
}

/* The index, (re)built when missing or when the layers and tensors added
 * since outnumber an eighth of the graph. */
static IrUseIndex *index_of(const IrGraph *cg)
{
    IrGraph *g = (IrGraph *)cg;   /* a cache, not part of the graph's value */
    IrUseIndex *x = g->uses;
    int fresh = x ? (g->n_layers - x->n_layers) + (g->n_tensors - x->n_tensors) : 0;
    if (x && (fresh < 0 || fresh > 64 + (x->n_layers + x->n_tensors) / 8))
        ir_uses_drop(g), x = NULL;
    if (!x)
        build(g), x = g->uses;
    return x;
}

/* Consumers of t among layers [from, to) by scanning. */
static int scan(const IrGraph *g, int t, int from, int to, int *out, int n, int *uses)
{
    for (int l = from; l < to; l++) {
        const IrLayer *L = &g->layers[l];
        int u = L->dead ? 0 : layer_reads(L, t);
        if (u) {
            out[n++] = l;
            *uses += u;
        }
    }
    return n;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* All live readers of t, ascending, into a malloc'd *out; returns the
 * count, *uses the number of reads (a layer may read t twice). */
static int readers(const IrGraph *g, int t, int **out, int *uses)
{
    IrUseIndex *x = index_of(g);
    bool fresh = t >= x->n_tensors;
    int cap = (fresh ? x->n_layers : x->len[t]) + (g->n_layers - x->n_layers);
    int n = 0, *v = xcalloc((size_t)cap + 1, sizeof *v);
    *uses = 0;
    if (fresh) {
        n = scan(g, t, 0, x->n_layers, v, n, uses);
    } else {
        x->cur++;
        for (int k = 0; k < x->len[t]; k++) {
            int l = x->list[t][k];
            if (l >= x->n_layers || x->stamp[l] == x->cur)
                continue;
            x->stamp[l] = x->cur;
            n = scan(g, t, l, l + 1, v, n, uses);
        }
        qsort(v, (size_t)n, sizeof *v, cmp_int);
    }
    n = scan(g, t, x->n_layers, g->n_layers, v, n, uses);
    *out = v;
    return n;
}

#ifndef NDEBUG
/* The answer a full scan gives; a mismatch is a rewire that bypassed
 * ir_set_use, a bug in the pass that made it. */
static void check(const IrGraph *g, int t, const int *v, int n, int uses)
{
    int *w = xcalloc((size_t)g->n_layers + 1, sizeof *w), u = 0;
    int m = scan(g, t, 0, g->n_layers, w, 0, &u);
    if (m != n || u != uses || (n && memcmp(v, w, sizeof(int) * (size_t)n))) {
        fprintf(stderr, "onnx2hls: internal error: consumer index of tensor '%s' is stale "
                        "(a pass rewired a layer without ir_set_use)\n", g->tensors[t].name);
        abort();
    }
    free(w);
}
#else
static void check(const IrGraph *g, int t, const int *v, int n, int uses)
{
    (void)g, (void)t, (void)v, (void)n, (void)uses;
}
#endif

int ir_tensor_uses(const IrGraph *g, int t)
{
    if (t < 0 || t >= g->n_tensors)
        return 0;
    int *v, uses, n = readers(g, t, &v, &uses);
    check(g, t, v, n, uses);
    free(v);
    return uses + (g->tensors[t].is_output ? 1 : 0);
}

int ir_tensor_consumers(const IrGraph *g, int t, int *out, int max, int *uses)
{
    if (uses)
        *uses = 0;
    if (t < 0 || t >= g->n_tensors)
        return 0;
    int *v, u, n = readers(g, t, &v, &u);
    check(g, t, v, n, u);
    for (int i = 0; i < n && i < max; i++)
        out[i] = v[i];
    free(v);
    if (uses)
        *uses = u;
    return n;
}

void ir_set_use(IrGraph *g, int l, int *slot, int t)
{
    *slot = t;
    if (g->uses && l < g->uses->n_layers)
        append(g->uses, t, l);
}
