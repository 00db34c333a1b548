/* ir.c - graph storage: arena, op table, tensors, layers, compaction.
 *
 * The arena is a list of large chunks; nothing in the IR is freed one by one,
 * the whole graph goes at once. Running out of memory is the one condition
 * that aborts (there is no sensible recovery inside a compiler), and it is
 * reported with a message first. */
#include "ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* --------------------------------------------------------------- arena */

typedef struct Chunk {
    struct Chunk *next;
    size_t used, size;
    _Alignas(64) unsigned char mem[];
} Chunk;

struct IrArena {
    Chunk *head;
};

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "onnx2hls: out of memory (%zu bytes)\n", n);
        abort();
    }
    return p;
}

void *ir_alloc(IrGraph *g, size_t n)
{
    IrArena *a = g->arena;
    n = (n + 63) & ~(size_t)63;
    if (!a->head || a->head->size - a->head->used < n) {
        size_t sz = n > (1u << 20) ? n : (1u << 20);
        /* malloc only promises 16-byte alignment; mem[] must start on 64 */
        Chunk *c = aligned_alloc(64, (sizeof(Chunk) + sz + 63) & ~(size_t)63);
        if (!c)
            xmalloc(SIZE_MAX); /* reports and aborts */
        c->used = 0;
        c->size = sz;
        /* a big one-off block goes behind the current chunk so the rest of
         * the current chunk stays usable */
        if (a->head && n > (1u << 19)) {
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
        c->used = n;
        memset(c->mem, 0, n);
        return c->mem;
    }
    void *p = a->head->mem + a->head->used;
    a->head->used += n;
    memset(p, 0, n);
    return p;
}

char *ir_strdup(IrGraph *g, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = ir_alloc(g, n);
    memcpy(p, s, n);
    return p;
}

char *ir_sprintf(IrGraph *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = ir_alloc(g, (size_t)(len < 0 ? 0 : len) + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)(len < 0 ? 0 : len) + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* ------------------------------------------------------------ op table */

static const struct {
    const char *name, *family;
    unsigned flags;
    IrUnit unit;
} op_table[IR_OP_COUNT] = {
#define OP(id, name, family, flags, unit) [IR_OP_##id] = {name, #family, flags, IR_U_##unit},
#include "ops.def"
#undef OP
};

const char *ir_op_name(IrOp op)
{
    return (unsigned)op < IR_OP_COUNT ? op_table[op].name : "?";
}

const char *ir_op_family(IrOp op)
{
    return (unsigned)op < IR_OP_COUNT ? op_table[op].family : "?";
}

unsigned ir_op_flags(IrOp op)
{
    return (unsigned)op < IR_OP_COUNT ? op_table[op].flags : 0;
}

IrUnit ir_op_unit(IrOp op)
{
    return (unsigned)op < IR_OP_COUNT ? op_table[op].unit : IR_U_NONE;
}

static const char *const unit_names[] = {
    [IR_U_NONE] = "none",       [IR_U_CONV] = "conv",         [IR_U_FC] = "fc",
    [IR_U_MAXPOOL] = "maxpool", [IR_U_AVGPOOL] = "avgpool",   [IR_U_GMAXPOOL] = "global maxpool",
    [IR_U_GAVGPOOL] = "global avgpool",                       [IR_U_ADD] = "add",
    [IR_U_MUL] = "mul",         [IR_U_PRELU] = "prelu",       [IR_U_BN] = "batchnorm",
    [IR_U_CONCAT] = "concat",   [IR_U_TABLE] = "table",       [IR_U_CLAMP] = "clamp",
    [IR_U_MOVE] = "channel move",
};
_Static_assert(sizeof unit_names / sizeof unit_names[0] == IR_U_COUNT, "a unit without its name");

const char *ir_unit_name(IrUnit u)
{
    return (unsigned)u < IR_U_COUNT ? unit_names[u] : "?";
}

IrOp ir_op_lookup(const char *s)
{
    for (int i = 0; i < IR_OP_COUNT; i++)
        if (strcmp(op_table[i].name, s) == 0)
            return (IrOp)i;
    return IR_OP_COUNT;
}

static const IrActKind op_act[IR_OP_COUNT] = {
#define OP(id, name, family, flags, unit)
#define UNARY(id, name, flags, act, unit) [IR_OP_##id] = IR_ACT_##act,
#include "ops.def"
#undef UNARY
#undef OP
};

IrActKind ir_op_act(IrOp op)
{
    return (unsigned)op < IR_OP_COUNT ? op_act[op] : IR_ACT_NONE;
}

static const struct {
    const char *name;
    IrOp op;
} act_table[IR_ACT_COUNT] = {
#define ACT(id, name, op) [IR_ACT_##id] = {name, IR_OP_##op},
#include "act.def"
#undef ACT
};

IrOp ir_act_op(IrActKind k)
{
    return (unsigned)k < IR_ACT_COUNT ? act_table[k].op : IR_OP_COUNT;
}

const char *ir_act_name(IrActKind k)
{
    return (unsigned)k < IR_ACT_COUNT ? act_table[k].name : "?";
}

/* ---------------------------------------------------------- data types */

size_t ir_dtype_size(IrDType dt)
{
    switch (dt) {
    case IR_DT_FLOAT: case IR_DT_INT32: case IR_DT_UINT32: return 4;
    case IR_DT_UINT8: case IR_DT_INT8: case IR_DT_BOOL: return 1;
    case IR_DT_UINT16: case IR_DT_INT16: case IR_DT_FLOAT16: case IR_DT_BFLOAT16: return 2;
    case IR_DT_INT64: case IR_DT_DOUBLE: case IR_DT_UINT64: return 8;
    default: return 0;
    }
}

const char *ir_dtype_name(IrDType dt)
{
    switch (dt) {
    case IR_DT_FLOAT: return "float32";
    case IR_DT_UINT8: return "uint8";
    case IR_DT_INT8: return "int8";
    case IR_DT_UINT16: return "uint16";
    case IR_DT_INT16: return "int16";
    case IR_DT_INT32: return "int32";
    case IR_DT_INT64: return "int64";
    case IR_DT_STRING: return "string";
    case IR_DT_BOOL: return "bool";
    case IR_DT_FLOAT16: return "float16";
    case IR_DT_DOUBLE: return "float64";
    case IR_DT_UINT32: return "uint32";
    case IR_DT_UINT64: return "uint64";
    case IR_DT_BFLOAT16: return "bfloat16";
    default: return "undefined";
    }
}

/* ------------------------------------------------------------- tensors */

int64_t ir_tensor_numel(const IrTensor *t)
{
    if (t->rank < 0)
        return -1;
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++) {
        if (t->dims[i] < 0)
            return -1;
        if (t->dims[i] != 0 && n > INT64_MAX / t->dims[i])
            return INT64_MAX;
        n *= t->dims[i];
    }
    return n;
}

size_t ir_tensor_nbytes(const IrTensor *t)
{
    int64_t n = ir_tensor_numel(t);
    return n < 0 ? 0 : (size_t)n * ir_dtype_size(t->dtype);
}

/* ------------------------------------------------------ name index */

/* Tensor names hashed to indices (open addressing, slot = index + 1, 0
 * free), built on the first ir_tensor_find and kept by ir_tensor_add; a
 * compaction or a dropped tensor frees it and the next lookup rebuilds it.
 * Passes look names up for every constant they make, so a linear scan
 * would make a deep graph quadratic. */
struct IrNameIndex {
    int *slot;
    size_t cap;     /* power of two, at least 2x the tensors */
};

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static void index_put(IrNameIndex *x, const IrGraph *g, int t)
{
    size_t i = name_hash(g->tensors[t].name) & (x->cap - 1);
    while (x->slot[i] && strcmp(g->tensors[x->slot[i] - 1].name, g->tensors[t].name))
        i = (i + 1) & (x->cap - 1);
    x->slot[i] = t + 1;   /* a later tensor of the same name wins, as the scan did */
}

static void index_drop(IrGraph *g)
{
    if (g->names) {
        free(g->names->slot);
        free(g->names);
        g->names = NULL;
    }
}

static void index_build(IrGraph *g)
{
    size_t cap = 64;
    while (cap < 2 * (size_t)g->n_tensors + 2)
        cap *= 2;
    g->names = xmalloc(sizeof *g->names);
    g->names->cap = cap;
    g->names->slot = calloc(cap, sizeof(int));
    if (!g->names->slot)
        xmalloc(SIZE_MAX);
    for (int t = 0; t < g->n_tensors; t++)
        index_put(g->names, g, t);
}

/* after ir_tensor_add: keep the index, or drop it when it is full */
static void index_added(IrGraph *g, int t)
{
    if (!g->names)
        return;
    if (2 * (size_t)g->n_tensors + 2 > g->names->cap)
        index_drop(g);
    else
        index_put(g->names, g, t);
}

IrGraph *ir_graph_new(const char *path)
{
    IrGraph *g = xmalloc(sizeof *g);
    memset(g, 0, sizeof *g);
    g->arena = xmalloc(sizeof *g->arena);
    g->arena->head = NULL;
    g->path = ir_strdup(g, path ? path : "<memory>");
    return g;
}

void ir_graph_free(IrGraph *g)
{
    if (!g)
        return;
    for (Chunk *c = g->arena->head; c;) {
        Chunk *n = c->next;
        free(c);
        c = n;
    }
    free(g->arena);
    index_drop(g);
    ir_uses_drop(g);
    free(g->tensors);
    free(g->layers);
    if (g->mapping)
        munmap(g->mapping, g->mapping_len);
    free(g);
}

int ir_tensor_add(IrGraph *g, const char *name, IrDType dt, int rank, const int64_t *dims)
{
    if (g->n_tensors == g->cap_tensors) {
        g->cap_tensors = g->cap_tensors ? 2 * g->cap_tensors : 64;
        g->tensors = realloc(g->tensors, (size_t)g->cap_tensors * sizeof *g->tensors);
        if (!g->tensors)
            xmalloc(SIZE_MAX); /* reports and aborts */
    }
    IrTensor *t = &g->tensors[g->n_tensors];
    memset(t, 0, sizeof *t);
    t->name = ir_strdup(g, name);
    t->dtype = dt;
    t->rank = rank;
    for (int i = 0; i < rank && i < IR_MAX_RANK; i++)
        t->dims[i] = dims ? dims[i] : -1;
    t->producer = -1;
    t->kind = IR_T_ACT;
    g->n_tensors++;
    index_added(g, g->n_tensors - 1);
    return g->n_tensors - 1;
}

int ir_tensor_find(const IrGraph *cg, const char *name)
{
    IrGraph *g = (IrGraph *)cg;   /* the index is a cache, not part of the graph's value */
    if (!g->names)
        index_build(g);
    const IrNameIndex *x = g->names;
    for (size_t i = name_hash(name) & (x->cap - 1); x->slot[i]; i = (i + 1) & (x->cap - 1))
        if (!strcmp(g->tensors[x->slot[i] - 1].name, name))
            return x->slot[i] - 1;
    return -1;
}

void ir_tensor_drop_last(IrGraph *g)
{
    if (g->n_tensors > 0) {
        g->n_tensors--;
        index_drop(g);
    }
}

int ir_const_add(IrGraph *g, const char *name, IrDType dt, int rank, const int64_t *dims, void **data_out)
{
    int t = ir_tensor_add(g, name, dt, rank, dims);
    IrTensor *T = &g->tensors[t];
    T->kind = IR_T_CONST;
    size_t nb = ir_tensor_nbytes(T);
    T->data = ir_alloc(g, nb ? nb : 1);
    if (data_out)
        *data_out = T->data;
    return t;
}

void *ir_tensor_data(IrGraph *g, int t)
{
    if (t < 0 || t >= g->n_tensors)
        return NULL;
    IrTensor *T = &g->tensors[t];
    if (T->kind != IR_T_CONST)
        return NULL;
    if (!T->data) {
        size_t nb = ir_tensor_nbytes(T);
        T->data = ir_alloc(g, nb ? nb : 1);
        if (T->src && nb)
            memcpy(T->data, T->src, nb);
    }
    return T->data;
}

/* -------------------------------------------------------------- layers */

int ir_layer_add(IrGraph *g, IrOp op, const char *name)
{
    if (g->n_layers == g->cap_layers) {
        g->cap_layers = g->cap_layers ? 2 * g->cap_layers : 64;
        g->layers = realloc(g->layers, (size_t)g->cap_layers * sizeof *g->layers);
        if (!g->layers)
            xmalloc(SIZE_MAX);
    }
    int idx = g->n_layers++;
    IrLayer *L = &g->layers[idx];
    memset(L, 0, sizeof *L);
    L->op = op;
    L->name = (name && *name) ? ir_strdup(g, name) : ir_sprintf(g, "%s_%d", ir_op_name(op), idx);
    L->origin = L->name;
    L->residual = -1;
    L->act_slope = -1;
    L->prec = IR_PREC_FLOAT;
    L->bits = 32;
    for (int i = 0; i < IR_MAX_IO; i++)
        L->in[i] = L->out[i] = -1;
    return idx;
}

static int remap(const int *map, int t)
{
    return t < 0 ? t : map[t];
}

void ir_graph_compact(IrGraph *g)
{
    /* live layers */
    int nl = 0;
    int *lmap = xmalloc(sizeof(int) * (size_t)(g->n_layers + 1));
    for (int l = 0; l < g->n_layers; l++) {
        if (g->layers[l].dead) {
            lmap[l] = -1;
            continue;
        }
        lmap[l] = nl;
        g->layers[nl++] = g->layers[l];
    }
    g->n_layers = nl;
    /* referenced tensors */
    char *used = calloc((size_t)g->n_tensors + 1, 1);
    int *tmap = xmalloc(sizeof(int) * (size_t)(g->n_tensors + 1));
    if (!used)
        xmalloc(SIZE_MAX);
    for (int i = 0; i < g->n_inputs; i++)
        used[g->inputs[i]] = 1;
    for (int i = 0; i < g->n_outputs; i++)
        used[g->outputs[i]] = 1;
    for (int l = 0; l < nl; l++) {
        IrLayer *L = &g->layers[l];
        for (int i = 0; i < L->n_in; i++)
            if (L->in[i] >= 0)
                used[L->in[i]] = 1;
        for (int i = 0; i < L->n_out; i++)
            if (L->out[i] >= 0)
                used[L->out[i]] = 1;
        if (L->residual >= 0)
            used[L->residual] = 1;
        if (L->act_slope >= 0)
            used[L->act_slope] = 1;
    }
    int nt = 0;
    for (int t = 0; t < g->n_tensors; t++) {
        if (!used[t]) {
            tmap[t] = -1;
            continue;
        }
        tmap[t] = nt;
        g->tensors[nt++] = g->tensors[t];
    }
    g->n_tensors = nt;
    index_drop(g);
    ir_uses_drop(g);
    for (int t = 0; t < nt; t++)
        if (g->tensors[t].producer >= 0)
            g->tensors[t].producer = lmap[g->tensors[t].producer];
    for (int l = 0; l < nl; l++) {
        IrLayer *L = &g->layers[l];
        for (int i = 0; i < L->n_in; i++)
            L->in[i] = remap(tmap, L->in[i]);
        for (int i = 0; i < L->n_out; i++)
            L->out[i] = remap(tmap, L->out[i]);
        L->residual = remap(tmap, L->residual);
        L->act_slope = remap(tmap, L->act_slope);
    }
    for (int i = 0; i < g->n_inputs; i++)
        g->inputs[i] = tmap[g->inputs[i]];
    for (int i = 0; i < g->n_outputs; i++)
        g->outputs[i] = tmap[g->outputs[i]];
    free(used);
    free(tmap);
    free(lmap);
}
