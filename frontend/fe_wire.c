/* fe_wire.c - a protobuf wire-format walker that lifts big raw_data payloads
 * out of a ModelProto before protobuf-c decodes it.
 *
 * Why: protobuf-c copies every bytes field while unpacking, so decoding a
 * 50 MB model straight from the file would hold the weights twice (the file
 * and the copies). Instead we copy the message without the TensorProto
 * raw_data fields under graph(7).initializer(5) and
 * graph(7).node(1).attribute(5).t(5), re-encoding the enclosing length
 * prefixes, and remember where each payload sits in the mapped file; the
 * importer then points IrTensor.src there. Only the walked path is parsed;
 * everything else is copied through byte for byte. Anything the walker does
 * not expect (groups, a repeated singular message) makes it give up, and the
 * caller decodes the original bytes instead: correctness never depends on
 * the walker, only memory does. */
#include "fe_internal.h"

#include <stdlib.h>
#include <string.h>

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/* What kind of message is being walked. */
typedef enum { K_MODEL, K_GRAPH, K_NODE, K_ATTR, K_TENSOR } Kind;

typedef struct {
    const uint8_t *base; /* start of the original buffer: offsets are relative to it */
    uint8_t *out;
    size_t len;          /* bytes written */
    size_t min_raw;
    FeRawRefs *refs;
    int init, node, attr; /* indices of the enclosing messages */
} Walker;

static int read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t r = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*p >= end)
            return -1;
        uint8_t b = *(*p)++;
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return -1;
}

static int put_varint(uint8_t *dst, uint64_t v)
{
    int n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        dst[n++] = b | (v ? 0x80 : 0);
    } while (v);
    return n;
}

static void emit(Walker *w, const uint8_t *p, size_t n)
{
    memcpy(w->out + w->len, p, n);
    w->len += n;
}

static void add_ref(Walker *w, size_t off, size_t len)
{
    FeRawRefs *r = w->refs;
    if (r->n == r->cap) { /* arena-backed: the old array is simply left behind */
        int cap = r->cap ? 2 * r->cap : 64;
        FeRawRef *v = ir_alloc(r->g, (size_t)cap * sizeof *v);
        if (r->n)
            memcpy(v, r->v, (size_t)r->n * sizeof *v);
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = (FeRawRef){w->init, w->node, w->attr, off, len};
}

static int walk(Walker *w, Kind k, const uint8_t *p, const uint8_t *end);

/* The child message kind of field `field` inside a `k`, or -1: copy as is. */
static int child_kind(Kind k, uint64_t field)
{
    switch (k) {
    case K_MODEL: return field == 7 ? K_GRAPH : -1;
    case K_GRAPH: return field == 5 ? K_TENSOR : field == 1 ? K_NODE : -1;
    case K_NODE: return field == 5 ? K_ATTR : -1;
    case K_ATTR: return field == 5 ? K_TENSOR : -1;
    default: return -1;
    }
}

/* Walk a length-delimited child and write it with its new length prefix. */
static int walk_child(Walker *w, Kind ck, const uint8_t *p, size_t n)
{
    size_t mark = w->len;
    w->len += 10; /* room for the largest length varint */
    size_t start = w->len;
    if (walk(w, ck, p, p + n) < 0)
        return -1;
    size_t clen = w->len - start;
    uint8_t pre[10];
    int vl = put_varint(pre, clen);
    memmove(w->out + mark + vl, w->out + start, clen);
    memcpy(w->out + mark, pre, (size_t)vl);
    w->len = mark + (size_t)vl + clen;
    return 0;
}

/* Set the indices of the child about to be walked. Indices count in file
 * order, and protobuf-c keeps repeated fields in that order, so they match
 * the decoded arrays. A singular message field seen twice would be merged by
 * the decoder: give up then. */
static int enter(Walker *w, Kind k, Kind ck, int *count)
{
    switch (k) {
    case K_MODEL:
    case K_ATTR:
        return (*count)++ ? -1 : 0;
    case K_GRAPH:
        if (ck == K_TENSOR) {
            w->init = count[0]++;
            w->node = -1;
        } else {
            w->node = count[1]++;
            w->init = -1;
        }
        w->attr = -1;
        return 0;
    case K_NODE:
        w->attr = count[0]++;
        return 0;
    default:
        return -1;
    }
}

/* Skip one field's value; returns its length for WT_LEN in *len. */
static int skip_value(uint64_t wt, const uint8_t **p, const uint8_t *end, uint64_t *len)
{
    uint64_t v;
    switch (wt) {
    case WT_VARINT:
        return read_varint(p, end, &v);
    case WT_I64:
        if (end - *p < 8)
            return -1;
        *p += 8;
        return 0;
    case WT_I32:
        if (end - *p < 4)
            return -1;
        *p += 4;
        return 0;
    case WT_LEN:
        if (read_varint(p, end, len) < 0 || *len > (uint64_t)(end - *p))
            return -1;
        return 0;
    default:
        return -1; /* groups and reserved wire types */
    }
}

static int walk(Walker *w, Kind k, const uint8_t *p, const uint8_t *end)
{
    int count[2] = {0, 0}, seen_raw = 0;
    int save_init = w->init, save_node = w->node, save_attr = w->attr;
    while (p < end) {
        const uint8_t *field_start = p;
        uint64_t tag, len = 0;
        if (read_varint(&p, end, &tag) < 0 || (tag >> 3) == 0)
            return -1;
        const uint8_t *tag_end = p;
        uint64_t field = tag >> 3, wt = tag & 7;
        if (skip_value(wt, &p, end, &len) < 0)
            return -1;
        if (wt != WT_LEN) {
            emit(w, field_start, (size_t)(p - field_start));
            continue;
        }
        int ck = child_kind(k, field);
        if (ck >= 0) {
            if (enter(w, k, (Kind)ck, count) < 0)
                return -1;
            emit(w, field_start, (size_t)(tag_end - field_start));
            if (walk_child(w, (Kind)ck, p, (size_t)len) < 0)
                return -1;
            w->init = save_init;
            w->node = save_node;
            w->attr = save_attr;
        } else if (k == K_TENSOR && field == 9) {
            if (seen_raw++)
                return -1;
            if (len >= w->min_raw)
                add_ref(w, (size_t)(p - w->base), (size_t)len);
            else
                emit(w, field_start, (size_t)(p + len - field_start));
        } else {
            emit(w, field_start, (size_t)(p + len - field_start));
        }
        p += len;
    }
    return 0;
}

uint8_t *fe_wire_compact(const uint8_t *buf, size_t len, size_t min_raw, FeRawRefs *refs,
                         size_t *out_len)
{
    /* The copy never grows: fields are only dropped and every re-encoded
     * length is no larger than before; the slack covers the 10-byte room
     * reserved per nesting level while a child is being written. */
    Walker w = {.base = buf, .min_raw = min_raw, .refs = refs, .init = -1, .node = -1, .attr = -1};
    w.out = malloc(len + 64);
    if (!w.out)
        return NULL;
    if (walk(&w, K_MODEL, buf, buf + len) < 0) {
        free(w.out);
        refs->n = 0;
        return NULL;
    }
    *out_len = w.len;
    return w.out;
}
