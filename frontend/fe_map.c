/* fe_map.c - string -> int hash map for tensor names during import.
 *
 * Why: import resolves thousands of ONNX names to more than tensors (node
 * outputs to the nodes producing them, too), and a scan would make it
 * quadratic. Open addressing
 * with FNV-1a; keys are borrowed (arena or protobuf strings that outlive the
 * map). The arrays come from the graph's arena, so running out of memory is
 * handled in one place (ir_alloc) and nothing needs freeing on error paths;
 * the doubling leaves at most one map's worth of dead slots behind. */
#include "fe_internal.h"

#include <string.h>

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

void fe_map_init(FeMap *m, IrGraph *g, size_t expected)
{
    size_t cap = 64;
    while (cap < expected * 2)
        cap *= 2;
    m->g = g;
    m->cap = cap;
    m->n = 0;
    m->keys = ir_alloc(g, cap * sizeof *m->keys);
    m->vals = ir_alloc(g, cap * sizeof *m->vals);
}

void fe_map_free(FeMap *m)
{
    memset(m, 0, sizeof *m); /* the arrays belong to the graph's arena */
}

static size_t slot_of(const FeMap *m, const char *key)
{
    size_t i = (size_t)hash_str(key) & (m->cap - 1);
    while (m->keys[i] && strcmp(m->keys[i], key) != 0)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void grow(FeMap *m)
{
    FeMap old = *m;
    fe_map_init(m, old.g, old.cap);
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i])
            fe_map_put(m, old.keys[i], old.vals[i]);
}

void fe_map_put(FeMap *m, const char *key, int val)
{
    if ((m->n + 1) * 2 > m->cap)
        grow(m);
    size_t i = slot_of(m, key);
    if (!m->keys[i]) {
        m->keys[i] = key;
        m->n++;
    }
    m->vals[i] = val;
}

int fe_map_get(const FeMap *m, const char *key)
{
    if (!m->cap)
        return -1;
    size_t i = slot_of(m, key);
    return m->keys[i] ? m->vals[i] : -1;
}
