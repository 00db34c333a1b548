/* mem_plan.c - lifetimes, aliases and arena offsets for generated host code.
 *
 * Three steps:
 *  1. group tensors that share storage: a view's output joins its input's
 *     group; an in-place layer's output joins the input group when that
 *     group dies at this layer (union-find over tensor indices);
 *  2. one buffer per group, living from the first definition to the last
 *     use of any member (graph outputs live to the end: they are copied
 *     out after the last layer), plus one buffer per layer scratch;
 *  3. arena offsets: buffers are placed one by one, each into the smallest
 *     gap left between the already placed buffers whose lifetimes overlap
 *     its own (best fit), or above them all; the order is tried biggest
 *     first, earliest first, by size x lifetime and by lifetime, and the
 *     smallest arena kept.
 * Greedy with best fit is the usual heuristic for this interval-packing
 * problem (NP-hard in general); the lower bound (bytes live at the busiest
 * step) is reported next to the result so a bad packing would show.
 */
#include "mem_plan.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int *parent;
    int *first, *last;   /* per root: group lifetime */
} Groups;

static int grp_find(Groups *G, int t)
{
    while (G->parent[t] != t) {
        G->parent[t] = G->parent[G->parent[t]];
        t = G->parent[t];
    }
    return t;
}

/* Merge b's group into a's (a's root stays the root, so the group keeps
 * the storage kind of its oldest member). */
static void grp_union(Groups *G, int a, int b)
{
    int ra = grp_find(G, a), rb = grp_find(G, b);
    if (ra == rb)
        return;
    G->parent[rb] = ra;
    if (G->first[rb] < G->first[ra])
        G->first[ra] = G->first[rb];
    if (G->last[rb] > G->last[ra])
        G->last[ra] = G->last[rb];
}

static int64_t round_up(int64_t n)
{
    return (n + CG_MEM_ALIGN - 1) / CG_MEM_ALIGN * CG_MEM_ALIGN;
}

static void note_use(int *last, int t, int step)
{
    if (t >= 0 && last[t] < step)
        last[t] = step;
}

/* First definition and last use of every tensor; -1 for tensors no live
 * layer touches and no output needs. */
static void lifetimes(const IrGraph *g, int *first, int *last)
{
    for (int t = 0; t < g->n_tensors; t++)
        first[t] = last[t] = -1;
    for (int l = 0; l < g->n_layers; l++) {
        const IrLayer *L = &g->layers[l];
        if (L->dead)
            continue;
        for (int i = 0; i < L->n_in; i++)
            note_use(last, L->in[i], l);
        note_use(last, L->residual, l);
        note_use(last, L->act_slope, l);
        for (int i = 0; i < L->n_out; i++)
            if (L->out[i] >= 0 && first[L->out[i]] < 0)
                first[L->out[i]] = l;
    }
    for (int i = 0; i < g->n_outputs; i++)
        note_use(last, g->outputs[i], g->n_layers);
    for (int t = 0; t < g->n_tensors; t++) {
        if (g->tensors[t].kind != IR_T_ACT) {
            if (last[t] >= 0)
                first[t] = 0;
            continue;
        }
        if (first[t] >= 0 && last[t] < first[t])
            last[t] = first[t];   /* written, never read: lives one step */
    }
}

static bool layer_reads_group(const IrGraph *g, Groups *G, const IrLayer *L, int skip_slot, int root)
{
    for (int i = 0; i < L->n_in; i++)
        if (i != skip_slot && L->in[i] >= 0 && grp_find(G, L->in[i]) == root)
            return true;
    if (L->residual >= 0 && grp_find(G, L->residual) == root)
        return true;
    if (L->act_slope >= 0 && grp_find(G, L->act_slope) == root)
        return true;
    (void)g;
    return false;
}

/* May out[0] of layer l take over the buffer of its input slot k? */
static bool can_reuse(const IrGraph *g, Groups *G, int l, int k)
{
    const IrLayer *L = &g->layers[l];
    if (k < 0 || k >= L->n_in || L->n_out < 1 || L->in[k] < 0 || L->out[0] < 0)
        return false;
    int in = L->in[k], out = L->out[0];
    int root = grp_find(G, in);
    if (g->tensors[root].kind != IR_T_ACT)
        return false;   /* caller's input or constant: read-only */
    if (G->last[root] != l)
        return false;   /* someone reads the input later */
    if (ir_tensor_nbytes(&g->tensors[in]) != ir_tensor_nbytes(&g->tensors[out]))
        return false;
    if (grp_find(G, out) != out)
        return false;
    return !layer_reads_group(g, G, L, k, root);
}

static void group_tensors(const IrGraph *g, const CgMemRequest *req, Groups *G, CgMemPlan *p)
{
    for (int l = 0; l < g->n_layers; l++) {
        const IrLayer *L = &g->layers[l];
        if (L->dead || L->n_in < 1 || L->n_out < 1 || L->in[0] < 0 || L->out[0] < 0)
            continue;
        if (ir_op_flags(L->op) & IR_F_NO_DATA) {
            if (ir_tensor_nbytes(&g->tensors[L->in[0]]) == ir_tensor_nbytes(&g->tensors[L->out[0]])) {
                grp_union(G, L->in[0], L->out[0]);
                p->n_alias++;
            }
            continue;
        }
        int k = req && req->inplace_input ? req->inplace_input[l] : -1;
        if (k >= 0 && can_reuse(g, G, l, k)) {
            grp_union(G, L->in[k], L->out[0]);
            p->n_inplace++;
        }
    }
}

static int add_buffer(CgMemPlan *p, CgStorage st, int ref, int64_t size, int first, int last)
{
    CgBuffer *b = &p->bufs[p->n_bufs];
    b->store = st;
    b->ref = ref;
    b->size = st == CG_STORE_ARENA ? round_up(size) : size;
    b->first = first;
    b->last = last;
    b->offset = 0;
    return p->n_bufs++;
}

static int input_index(const IrGraph *g, int t)
{
    for (int i = 0; i < g->n_inputs; i++)
        if (g->inputs[i] == t)
            return i;
    return -1;
}

static void make_buffers(const IrGraph *g, const CgMemRequest *req, Groups *G, CgMemPlan *p)
{
    int *root_buf = malloc(sizeof(int) * (size_t)(g->n_tensors + 1));
    for (int t = 0; t < g->n_tensors; t++)
        root_buf[t] = -1;
    for (int t = 0; t < g->n_tensors; t++) {
        int r = grp_find(G, t);
        if (G->first[r] < 0 && G->last[r] < 0)
            continue;
        if (root_buf[r] < 0) {
            const IrTensor *T = &g->tensors[r];
            int64_t size = (int64_t)ir_tensor_nbytes(T);
            if (T->kind == IR_T_INPUT)
                root_buf[r] = add_buffer(p, CG_STORE_INPUT, input_index(g, r), size, 0, g->n_layers);
            else if (T->kind == IR_T_CONST)
                root_buf[r] = add_buffer(p, CG_STORE_CONST, r, size, 0, g->n_layers);
            else
                root_buf[r] = add_buffer(p, CG_STORE_ARENA, -1, size, G->first[r], G->last[r]);
        }
        p->tensor_buf[t] = root_buf[r];
    }
    for (int l = 0; l < g->n_layers; l++) {
        int64_t s = req && req->scratch_bytes ? req->scratch_bytes[l] : 0;
        if (s > 0 && !g->layers[l].dead)
            p->scratch_buf[l] = add_buffer(p, CG_STORE_ARENA, -1, s, l, l);
    }
    free(root_buf);
}

static bool lifetimes_overlap(const CgBuffer *a, const CgBuffer *b)
{
    return a->first <= b->last && b->first <= a->last;
}

static const CgBuffer *sort_bufs;

static int cmp_by_size(const void *pa, const void *pb)
{
    const CgBuffer *a = &sort_bufs[*(const int *)pa], *b = &sort_bufs[*(const int *)pb];
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    if (a->first != b->first)
        return a->first < b->first ? -1 : 1;
    return *(const int *)pa - *(const int *)pb;
}

static int cmp_by_offset(const void *pa, const void *pb)
{
    const CgBuffer *a = &sort_bufs[*(const int *)pa], *b = &sort_bufs[*(const int *)pb];
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return 0;
}

/* Placed buffers by time: bucket k lists those alive at some step in
 * [k*BUCKET_STEPS, (k+1)*BUCKET_STEPS). A placement looks only at the
 * buckets its own lifetime covers, so packing a deep graph costs about
 * layers x width, not buffers squared. */
#define BUCKET_STEPS 32

typedef struct {
    int **v;          /* per bucket: buffer indices */
    int *n, *cap;
    int n_buckets;
    int *seen;        /* per buffer: stamp of the last query that took it */
    int stamp;
} Placed;

static int bucket_of(const Placed *P, int step)
{
    int k = step < 0 ? 0 : step / BUCKET_STEPS;
    return k < P->n_buckets ? k : P->n_buckets - 1;
}

static void placed_add(Placed *P, const CgBuffer *bufs, int i)
{
    for (int k = bucket_of(P, bufs[i].first); k <= bucket_of(P, bufs[i].last); k++) {
        if (P->n[k] == P->cap[k]) {
            P->cap[k] = P->cap[k] ? 2 * P->cap[k] : 8;
            P->v[k] = realloc(P->v[k], sizeof(int) * (size_t)P->cap[k]);
            if (!P->v[k])
                abort();
        }
        P->v[k][P->n[k]++] = i;
    }
}

/* The placed buffers alive together with b, into tmp; returns the count. */
static int placed_overlapping(Placed *P, const CgBuffer *bufs, const CgBuffer *b, int *tmp)
{
    int n = 0;
    P->stamp++;
    for (int k = bucket_of(P, b->first); k <= bucket_of(P, b->last); k++)
        for (int j = 0; j < P->n[k]; j++) {
            int o = P->v[k][j];
            if (P->seen[o] == P->stamp || bufs[o].size <= 0 || !lifetimes_overlap(b, &bufs[o]))
                continue;
            P->seen[o] = P->stamp;
            tmp[n++] = o;
        }
    return n;
}

/* Offset for buffer i given the placed buffers: the smallest gap that
 * fits among those alive at the same time, else above all of them. */
static int64_t best_fit(CgMemPlan *p, int i, Placed *P, int *tmp)
{
    const CgBuffer *b = &p->bufs[i];
    int n = placed_overlapping(P, p->bufs, b, tmp);
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_by_offset);
    int64_t cur = 0, best = -1, best_gap = INT64_MAX;
    for (int j = 0; j < n; j++) {
        const CgBuffer *o = &p->bufs[tmp[j]];
        int64_t gap = o->offset - cur;
        if (gap >= b->size && gap < best_gap) {
            best = cur;
            best_gap = gap;
        }
        if (o->offset + o->size > cur)
            cur = o->offset + o->size;
    }
    return best >= 0 ? best : cur;
}

static int64_t span(const CgBuffer *b)
{
    return (int64_t)(b->last - b->first + 1);
}

static int cmp_by_first(const void *pa, const void *pb)
{
    const CgBuffer *a = &sort_bufs[*(const int *)pa], *b = &sort_bufs[*(const int *)pb];
    if (a->first != b->first)
        return a->first < b->first ? -1 : 1;
    return cmp_by_size(pa, pb);
}

static int cmp_by_area(const void *pa, const void *pb)
{
    const CgBuffer *a = &sort_bufs[*(const int *)pa], *b = &sort_bufs[*(const int *)pb];
    int64_t x = a->size * span(a), y = b->size * span(b);
    if (x != y)
        return x > y ? -1 : 1;
    return cmp_by_size(pa, pb);
}

static int cmp_by_span(const void *pa, const void *pb)
{
    const CgBuffer *a = &sort_bufs[*(const int *)pa], *b = &sort_bufs[*(const int *)pb];
    if (span(a) != span(b))
        return span(a) > span(b) ? -1 : 1;
    return cmp_by_size(pa, pb);
}

/* Place the buffers of order[] in that order; returns the arena size. */
static int64_t place_in_order(CgMemPlan *p, const int *order, int n, int *tmp)
{
    Placed P = {0};
    P.n_buckets = p->n_layers / BUCKET_STEPS + 1;
    P.v = calloc((size_t)P.n_buckets, sizeof *P.v);
    P.n = calloc((size_t)P.n_buckets, sizeof *P.n);
    P.cap = calloc((size_t)P.n_buckets, sizeof *P.cap);
    P.seen = calloc((size_t)p->n_bufs + 1, sizeof *P.seen);
    if (!P.v || !P.n || !P.cap || !P.seen)
        abort();
    int64_t top = 0;
    for (int k = 0; k < n; k++) {
        CgBuffer *b = &p->bufs[order[k]];
        b->offset = b->size > 0 ? best_fit(p, order[k], &P, tmp) : 0;
        if (b->offset + b->size > top)
            top = b->offset + b->size;
        placed_add(&P, p->bufs, order[k]);
    }
    for (int k = 0; k < P.n_buckets; k++)
        free(P.v[k]);
    free(P.v), free(P.n), free(P.cap), free(P.seen);
    return top;
}

/* Greedy placement under a few orders (biggest first, earliest first,
 * largest size x lifetime, longest lived); the smallest arena wins. Each
 * is a known good heuristic on some graphs and none on all of them. */
static void pack_arena(CgMemPlan *p)
{
    static int (*const orders[])(const void *, const void *) = {cmp_by_size, cmp_by_first, cmp_by_area,
                                                                cmp_by_span};
    size_t cap = (size_t)p->n_bufs + 1;
    int *order = malloc(sizeof(int) * cap), *tmp = malloc(sizeof(int) * cap);
    int64_t *best = malloc(sizeof(int64_t) * cap);
    int n = 0;
    for (int i = 0; i < p->n_bufs; i++)
        if (p->bufs[i].store == CG_STORE_ARENA)
            order[n++] = i;
    sort_bufs = p->bufs;
    p->arena_bytes = -1;
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
        qsort(order, (size_t)n, sizeof *order, orders[o]);
        int64_t top = place_in_order(p, order, n, tmp);
        if (p->arena_bytes < 0 || top < p->arena_bytes) {
            p->arena_bytes = top;
            for (int k = 0; k < n; k++)
                best[order[k]] = p->bufs[order[k]].offset;
        }
    }
    for (int k = 0; k < n; k++)
        p->bufs[order[k]].offset = best[order[k]];
    if (p->arena_bytes < 0)
        p->arena_bytes = 0;
    free(order);
    free(tmp);
    free(best);
}

/* Most arena bytes live at one step: a sweep over lifetime ends. */
static void live_bound(CgMemPlan *p)
{
    int64_t *delta = calloc((size_t)p->n_layers + 2, sizeof *delta);
    if (!delta)
        abort();
    for (int i = 0; i < p->n_bufs; i++) {
        const CgBuffer *b = &p->bufs[i];
        int first = b->first < 0 ? 0 : b->first, last = b->last > p->n_layers ? p->n_layers : b->last;
        if (b->store != CG_STORE_ARENA || first > last)
            continue;
        delta[first] += b->size;
        delta[last + 1] -= b->size;
    }
    int64_t live = 0;
    for (int s = 0; s <= p->n_layers; s++) {
        live += delta[s];
        if (live > p->live_bytes)
            p->live_bytes = live;
    }
    free(delta);
}
static int check_shapes(const IrGraph *g, const int *first, const int *last, IrDiag *d)
{
    int bad = 0;
    for (int t = 0; t < g->n_tensors; t++) {
        if (first[t] < 0 && last[t] < 0)
            continue;
        const IrTensor *T = &g->tensors[t];
        if (ir_tensor_numel(T) < 0 || ir_tensor_numel(T) == INT64_MAX || ir_dtype_size(T->dtype) == 0) {
            const char *node = T->producer >= 0 ? g->layers[T->producer].name : NULL;
            diag_error(d, g->path, node, node ? ir_op_name(g->layers[T->producer].op) : NULL,
                       "tensor '%s' has no static shape or size; give --input-shape", T->name);
            bad = 1;
        }
        if (T->kind == IR_T_ACT && T->producer < 0 && input_index(g, t) < 0) {
            diag_error(d, g->path, NULL, NULL, "tensor '%s' is used but never computed", T->name);
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

int cg_mem_plan(const IrGraph *g, const CgMemRequest *req, CgMemPlan *p, IrDiag *d)
{
    memset(p, 0, sizeof *p);
    int nt = g->n_tensors, nl = g->n_layers;
    p->n_tensors = nt;
    p->n_layers = nl;
    p->tensor_buf = malloc(sizeof(int) * (size_t)(nt + 1));
    p->scratch_buf = malloc(sizeof(int) * (size_t)(nl + 1));
    p->bufs = calloc((size_t)(nt + nl + 1), sizeof *p->bufs);
    Groups G;
    G.parent = malloc(sizeof(int) * (size_t)(nt + 1));
    G.first = malloc(sizeof(int) * (size_t)(nt + 1));
    G.last = malloc(sizeof(int) * (size_t)(nt + 1));
    if (!p->tensor_buf || !p->scratch_buf || !p->bufs || !G.parent || !G.first || !G.last) {
        diag_error(d, g->path, NULL, NULL, "out of memory planning buffers");
        free(G.parent), free(G.first), free(G.last);
        cg_mem_plan_free(p);
        return -1;
    }
    for (int t = 0; t < nt; t++) {
        G.parent[t] = t;
        p->tensor_buf[t] = -1;
    }
    for (int l = 0; l < nl; l++)
        p->scratch_buf[l] = -1;
    lifetimes(g, G.first, G.last);
    int rc = check_shapes(g, G.first, G.last, d);
    if (rc == 0) {
        group_tensors(g, req, &G, p);
        make_buffers(g, req, &G, p);
        pack_arena(p);
        live_bound(p);
    }
    free(G.parent);
    free(G.first);
    free(G.last);
    if (rc)
        cg_mem_plan_free(p);
    return rc;
}

void cg_mem_plan_free(CgMemPlan *p)
{
    free(p->tensor_buf);
    free(p->scratch_buf);
    free(p->bufs);
    memset(p, 0, sizeof *p);
}

const CgBuffer *cg_mem_buffer(const CgMemPlan *p, int t)
{
    if (t < 0 || t >= p->n_tensors || p->tensor_buf[t] < 0)
        return NULL;
    return &p->bufs[p->tensor_buf[t]];
}

int cg_mem_plan_check(const CgMemPlan *p)
{
    for (int i = 0; i < p->n_bufs; i++) {
        const CgBuffer *a = &p->bufs[i];
        if (a->store != CG_STORE_ARENA || a->size == 0)
            continue;
        if (a->offset < 0 || a->offset % CG_MEM_ALIGN || a->offset + a->size > p->arena_bytes)
            return -1;
        for (int j = i + 1; j < p->n_bufs; j++) {
            const CgBuffer *b = &p->bufs[j];
            if (b->store != CG_STORE_ARENA || b->size == 0 || !lifetimes_overlap(a, b))
                continue;
            if (a->offset < b->offset + b->size && b->offset < a->offset + a->size)
                return -1;
        }
    }
    return 0;
}
