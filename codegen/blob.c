/* blob.c - building and writing the constant blob (see blob.h).
 *
 * The payload is written by streaming the entries with zero padding between
 * them, so a 45 MB model is never copied into one buffer; the CRC32 and the
 * layout hash come from the runtime's own functions (o2h_crc32,
 * o2h_fnv1a64) so the writer and the generated loader cannot disagree.
 */
#include "blob.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir/escape.h"
#include "runtime/o2h_rt.h"

static const unsigned char zeros[CG_BLOB_ALIGN];

void cg_blob_init(CgBlob *b)
{
    memset(b, 0, sizeof *b);
}

void cg_blob_free(CgBlob *b)
{
    free(b->v);
    free(b->by_tensor);
    memset(b, 0, sizeof *b);
}

static uint64_t align_up(uint64_t n)
{
    return (n + CG_BLOB_ALIGN - 1) / CG_BLOB_ALIGN * CG_BLOB_ALIGN;
}

int cg_blob_add(CgBlob *b, const char *name, IrDType dt, int rank, const int64_t *dims,
                const void *data, uint64_t size)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 64;
        CgBlobEntry *v = realloc(b->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        b->v = v;
        b->cap = cap;
    }
    CgBlobEntry *e = &b->v[b->n];
    memset(e, 0, sizeof *e);
    e->name = name;
    e->dtype = dt;
    e->rank = rank < 0 ? 0 : rank > IR_MAX_RANK ? IR_MAX_RANK : rank;
    for (int i = 0; i < e->rank; i++)
        e->dims[i] = dims[i];
    e->data = data;
    e->size = size;
    e->offset = b->payload_size;
    e->tensor = -1;
    b->payload_size = align_up(e->offset + size);
    return b->n++;
}

int cg_blob_find_tensor(const CgBlob *b, int t)
{
    return t >= 0 && t < b->n_by_tensor ? b->by_tensor[t] - 1 : -1;
}

/* Record entry e as tensor t's, so lookups stay O(1) on graphs with
 * thousands of constants. */
static int index_tensor(CgBlob *b, int t, int e)
{
    if (t >= b->n_by_tensor) {
        int n = t + 1 > 2 * b->n_by_tensor ? t + 1 : 2 * b->n_by_tensor;
        int *v = realloc(b->by_tensor, sizeof(int) * (size_t)n);
        if (!v)
            return -1;
        memset(v + b->n_by_tensor, 0, sizeof(int) * (size_t)(n - b->n_by_tensor));
        b->by_tensor = v;
        b->n_by_tensor = n;
    }
    b->by_tensor[t] = e + 1;
    b->v[e].tensor = t;
    return e;
}

int cg_blob_add_tensor(CgBlob *b, IrGraph *g, int t)
{
    if (t < 0 || t >= g->n_tensors || g->tensors[t].kind != IR_T_CONST)
        return -1;
    int e = cg_blob_find_tensor(b, t);
    if (e >= 0)
        return e;
    const IrTensor *T = &g->tensors[t];
    /* the bytes as they are in the mapped model when not materialized:
     * writing needs no alignment, and copying 45 MB of weights first
     * would double the compile time of a large model */
    const void *data = T->data ? T->data : T->src ? (const void *)T->src : ir_tensor_data(g, t);
    e = cg_blob_add(b, T->name, T->dtype, T->rank, T->dims, data, ir_tensor_nbytes(T));
    return e >= 0 ? index_tensor(b, t, e) : -1;
}

static uint64_t hash_u64(uint64_t h, uint64_t v)
{
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (unsigned char)(v >> (8 * i));
    return o2h_fnv1a64(h, le, 8);
}

uint64_t cg_blob_layout_hash(const CgBlob *b)
{
    uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a 64 offset basis */
    h = hash_u64(h, (uint64_t)b->n);
    for (int i = 0; i < b->n; i++) {
        const CgBlobEntry *e = &b->v[i];
        h = o2h_fnv1a64(h, e->name, strlen(e->name) + 1);
        h = hash_u64(h, (uint64_t)e->dtype);
        h = hash_u64(h, (uint64_t)e->rank);
        for (int d = 0; d < e->rank; d++)
            h = hash_u64(h, (uint64_t)e->dims[d]);
        h = hash_u64(h, e->offset);
        h = hash_u64(h, e->size);
    }
    return h;
}

/* Call fn on the payload in order: data and zero padding. */
static int walk_payload(const CgBlob *b, int (*fn)(void *ctx, const void *p, size_t n), void *ctx)
{
    uint64_t pos = 0;
    for (int i = 0; i <= b->n; i++) {
        uint64_t next = i < b->n ? b->v[i].offset : b->payload_size;
        while (pos < next) {
            size_t k = next - pos > sizeof zeros ? sizeof zeros : (size_t)(next - pos);
            if (fn(ctx, zeros, k))
                return -1;
            pos += k;
        }
        if (i < b->n && b->v[i].size) {
            if (fn(ctx, b->v[i].data, (size_t)b->v[i].size))
                return -1;
            pos += b->v[i].size;
        }
    }
    return 0;
}

static int crc_step(void *ctx, const void *p, size_t n)
{
    uint32_t *crc = ctx;
    *crc = o2h_crc32(*crc, p, n);
    return 0;
}

uint32_t cg_blob_crc(const CgBlob *b)
{
    uint32_t crc = 0;
    walk_payload(b, crc_step, &crc);
    return crc;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void make_header(const CgBlob *b, unsigned char h[O2H_BLOB_HEADER])
{
    memset(h, 0, O2H_BLOB_HEADER);
    memcpy(h, O2H_BLOB_MAGIC, sizeof O2H_BLOB_MAGIC);
    put_le(h + 8, O2H_BLOB_VERSION, 4);
    put_le(h + 12, 0, 4);
    put_le(h + 16, cg_blob_layout_hash(b), 8);
    put_le(h + 24, b->payload_size, 8);
    put_le(h + 32, cg_blob_crc(b), 4);
}

static int file_step(void *ctx, const void *p, size_t n)
{
    return fwrite(p, 1, n, (FILE *)ctx) == n ? 0 : -1;
}

int cg_blob_write_file(const CgBlob *b, const char *path)
{
    unsigned char h[O2H_BLOB_HEADER];
    make_header(b, h);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int rc = fwrite(h, 1, sizeof h, f) == sizeof h ? 0 : -1;
    if (rc == 0)
        rc = walk_payload(b, file_step, f);
    if (fclose(f) != 0)
        rc = -1;
    if (rc && !errno)
        errno = EIO;
    return rc;
}

typedef struct {
    unsigned char *p;
} MemCursor;

static int mem_step(void *ctx, const void *p, size_t n)
{
    MemCursor *c = ctx;
    memcpy(c->p, p, n);
    c->p += n;
    return 0;
}

int cg_blob_to_mem(const CgBlob *b, unsigned char **buf, size_t *len)
{
    *len = O2H_BLOB_HEADER + (size_t)b->payload_size;
    *buf = malloc(*len);
    if (!*buf)
        return -1;
    make_header(b, *buf);
    MemCursor c = {*buf + O2H_BLOB_HEADER};
    return walk_payload(b, mem_step, &c);
}

/* ------------------------------------------------------------ C array */

typedef struct {
    FILE *f;
    unsigned char word[4];
    int fill;            /* bytes in word */
    uint64_t words;      /* written so far */
    char line[128];
    int len;
} CWriter;

static int c_flush_line(CWriter *w)
{
    if (w->len == 0)
        return 0;
    w->line[w->len++] = '\n';
    int rc = fwrite(w->line, 1, (size_t)w->len, w->f) == (size_t)w->len ? 0 : -1;
    w->len = 0;
    return rc;
}

static int c_word(CWriter *w)
{
    static const char hex[] = "0123456789abcdef";
    uint32_t v = (uint32_t)w->word[0] | (uint32_t)w->word[1] << 8 | (uint32_t)w->word[2] << 16 |
                 (uint32_t)w->word[3] << 24;
    char *p = w->line + w->len;
    *p++ = ' ';
    *p++ = '0';
    *p++ = 'x';
    for (int i = 7; i >= 0; i--)
        *p++ = hex[(v >> (4 * i)) & 15];
    *p++ = ',';
    w->len = (int)(p - w->line);
    w->fill = 0;
    if (++w->words % 8 == 0)
        return c_flush_line(w);
    return 0;
}

static int c_step(void *ctx, const void *p, size_t n)
{
    CWriter *w = ctx;
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        w->word[w->fill++] = s[i];
        if (w->fill == 4 && c_word(w))
            return -1;
    }
    return 0;
}

int cg_blob_write_c(const CgBlob *b, FILE *f, const char *symbol)
{
    uint64_t nwords = b->payload_size / 4;
    fprintf(f, "/* %llu bytes of constants; entries (name: byte offset, bytes):\n",
            (unsigned long long)b->payload_size);
    for (int i = 0; i < b->n; i++) {
        fputs(" *   ", f);
        esc_put(f, ESC_C_COMMENT, b->v[i].name);
        fprintf(f, ": %llu, %llu\n", (unsigned long long)b->v[i].offset,
                (unsigned long long)b->v[i].size);
    }
    fprintf(f, " */\nMODEL_ALIGNED const uint32_t %s[%llu] = {\n", symbol,
            (unsigned long long)(nwords ? nwords : 1));
    CWriter w = {.f = f};
    int rc = nwords ? walk_payload(b, c_step, &w) : 0;
    if (rc == 0 && nwords == 0)
        fputs(" 0,\n", f);
    if (rc == 0)
        rc = c_flush_line(&w);
    fputs("};\n", f);
    return rc || ferror(f) ? -1 : 0;
}
