/* hls_rom.c - the constants the engines hold: SESL ROM headers and SEML
 * weight-image records, all from the lowering's QuantLayer.
 *
 * Why a reorder of the weights: the engines reduce over a window stored
 * pixel by pixel with channels innermost (NHWC, the order feature maps
 * stream in), so a filter's terms are stored in (kh, kw, c) order, and an
 * FC over a map in (h, w, c) order, where ONNX stores (c, kh, kw) and
 * (c, h, w). Only the order changes: every value, folded bias, multiplier,
 * shift and table is the one the host program uses.
 *
 * Layouts (little-endian), matched by templates/hls/:
 *   SESL MAC ROM      weights [NF*NR][PA][PB], bias/mult/shift [NF][PA], table [256]
 *   SEML conv tile    [PA][B] weights, then per filter bias i32, mult i32, shift u8
 *   SEML dw record    [F][KH*KW] weights, then per channel bias, mult, shift
 *   SEML pool record  per tap count: mult i32, shift u8
 */
#include "hls_internal.h"
#include "ir/escape.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- weights */

int8_t *cg_weights_hwc(CgAccel *a, int layer, const QuantLayer *q, int64_t *f, int64_t *b)
{
    const int8_t *w = ir_tensor_data(a->g, q->w);
    int64_t cg, kk, n;
    if (q->kind == QK_CONV) {
        n = q->conv.F, cg = q->conv.C / q->conv.G, kk = (int64_t)q->conv.KH * q->conv.KW;
    } else {
        int64_t h, ww, c;
        cg_accel_dims(a, cg_accel_resolve(a, q->x), &h, &ww, &c);
        n = q->fc.N, cg = c, kk = h * ww;
        if (cg * kk != q->fc.K) {
            cg_accel_error(a, layer, "the FC input (%lld values) is not its map (%lld x %lld)", (long long)q->fc.K,
                           (long long)kk, (long long)cg);
            return NULL;
        }
    }
    int8_t *out = malloc((size_t)(n * cg * kk) + 1);
    if (!w || !out)
        abort();
    /* ONNX term (c, k) -> engine term (k, c), k the tap (conv) or pixel (FC) */
    for (int64_t i = 0; i < n; i++)
        for (int64_t c = 0; c < cg; c++)
            for (int64_t k = 0; k < kk; k++)
                out[(i * kk + k) * cg + c] = w[(i * cg + c) * kk + k];
    *f = n;
    *b = cg * kk;
    return out;
}

static int32_t rq_mult(const O2hRequant *rq, int64_t f)
{
    return rq->mult[rq->n == 1 ? 0 : f];
}

static int rq_shift(const O2hRequant *rq, int64_t f)
{
    return rq->shift[rq->n == 1 ? 0 : f];
}

static void put32(uint8_t *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    p[0] = (uint8_t)u, p[1] = (uint8_t)(u >> 8), p[2] = (uint8_t)(u >> 16), p[3] = (uint8_t)(u >> 24);
}

/* bias i32, mult i32, shift u8 of filter f */
static void put_params(uint8_t *p, const QuantLayer *q, int64_t f)
{
    put32(p, ((const int32_t *)q->bias)[f]);
    put32(p + 4, rq_mult(&q->rq, f));
    p[8] = (uint8_t)rq_shift(&q->rq, f);
}

/* ---------------------------------------------------------- weight image */

int64_t cg_wimg_add(CgAccel *a, const void *data, int64_t n)
{
    int64_t off = (a->wimg_bytes + 63) / 64 * 64;
    if (off + n > a->cap_wimg) {
        int64_t cap = a->cap_wimg ? a->cap_wimg : 4096;
        while (cap < off + n)
            cap *= 2;
        uint8_t *w = realloc(a->wimg, (size_t)cap);
        if (!w)
            abort();
        memset(w + a->cap_wimg, 0, (size_t)(cap - a->cap_wimg));
        a->wimg = w, a->cap_wimg = cap;
    }
    memcpy(a->wimg + off, data, (size_t)n);
    a->wimg_bytes = off + n;
    return off;
}

int64_t cg_wimg_conv_tiles(CgAccel *a, int layer, const QuantLayer *q, int pa, int64_t tile_bytes)
{
    int64_t f, b;
    int8_t *w = cg_weights_hwc(a, layer, q, &f, &b);
    if (!w)
        return -1;
    int64_t nt = (f + pa - 1) / pa;
    uint8_t *recs = calloc((size_t)(nt * tile_bytes), 1);   /* contiguous: tile t at t * tile_bytes */
    if (!recs)
        abort();
    for (int64_t i = 0; i < f; i++) {
        uint8_t *rec = recs + (i / pa) * tile_bytes;
        memcpy(rec + (i % pa) * b, w + i * b, (size_t)b);
        put_params(rec + pa * b + 9 * (i % pa), q, i);
    }
    int64_t off = cg_wimg_add(a, recs, nt * tile_bytes);
    free(recs);
    free(w);
    return off;
}

int64_t cg_wimg_dw_record(CgAccel *a, const QuantLayer *q)
{
    int64_t f = q->conv.F, kk = (int64_t)q->conv.KH * q->conv.KW, n = f * kk + 9 * f;
    uint8_t *rec = calloc((size_t)n, 1);
    const int8_t *w = ir_tensor_data(a->g, q->w);
    if (!rec || !w)
        abort();
    memcpy(rec, w, (size_t)(f * kk));
    for (int64_t i = 0; i < f; i++)
        put_params(rec + f * kk + 9 * i, q, i);
    int64_t off = cg_wimg_add(a, rec, n);
    free(rec);
    return off;
}

int64_t cg_wimg_pool_record(CgAccel *a, const QuantLayer *q)
{
    uint8_t rec[5 * 64];
    int n = q->rq.n > 64 ? 64 : q->rq.n;
    for (int i = 0; i < n; i++) {
        put32(rec + 5 * i, q->rq.mult[i]);
        rec[5 * i + 4] = q->rq.shift[i];
    }
    return cg_wimg_add(a, rec, 5 * n);
}

/* ------------------------------------------------------------ SESL ROMs */

/* A C initializer list, fully braced, into f */
static void braced(FILE *f, const int64_t *v, const int64_t *dims, int rank)
{
    int64_t inner = 1;
    for (int i = 1; i < rank; i++)
        inner *= dims[i];
    fputc('{', f);
    for (int64_t i = 0; i < dims[0]; i++) {
        if (i)
            fputs(i % 16 ? ", " : ", \\\n    ", f);   /* the list is a macro: continued lines */
        if (rank == 1)
            fprintf(f, "%lld", (long long)v[i]);
        else
            braced(f, v + i * inner, dims + 1, rank - 1);
    }
    fputc('}', f);
}

static void rom_define(FILE *f, const char *name, const int64_t *v, const int64_t *dims, int rank)
{
    fprintf(f, "#define %s ", name);
    braced(f, v, dims, rank);
    fputs("\n", f);
}

static FILE *rom_open(char **buf, size_t *len, const char *what)
{
    FILE *f = open_memstream(buf, len);
    if (!f)
        abort();
    fputs("/* ROM of ", f);
    esc_put(f, ESC_C_COMMENT, what);   /* a layer name: model text */
    fputs(" (generated by onnx2hls; values from the integer lowering, as the host program's) */\n", f);
    return f;
}

static void rom_lut(FILE *f, const QuantLayer *lut)
{
    int64_t v[256], dims[1] = {256};
    for (int i = 0; i < 256; i++)
        v[i] = lut ? lut->lut[i] : 0;
    rom_define(f, "O2H_ROM_LUT", v, dims, 1);
}

char *cg_rom_mac(CgAccel *a, int layer, const QuantLayer *main, const QuantLayer *lut, int pa, int pb,
                 int64_t *rom_bytes)
{
    int64_t f, b;
    int8_t *w = cg_weights_hwc(a, layer, main, &f, &b);
    if (!w)
        return NULL;
    int64_t nf = (f + pa - 1) / pa, nr = (b + pb - 1) / pb;
    int64_t *v = calloc((size_t)(nf * nr * pa * pb), sizeof *v), *pv = calloc((size_t)(nf * pa), sizeof *pv);
    if (!v || !pv)
        abort();
    for (int64_t i = 0; i < f; i++)       /* [tile f][tile r][a][j] */
        for (int64_t t = 0; t < b; t++)
            v[(((i / pa) * nr + t / pb) * pa + i % pa) * pb + t % pb] = w[i * b + t];
    char *buf = NULL;
    size_t len = 0;
    FILE *o = rom_open(&buf, &len, a->g->layers[layer].name);
    int64_t d3[3] = {nf * nr, pa, pb}, d2[2] = {nf, pa};
    rom_define(o, "O2H_ROM_WEIGHTS", v, d3, 3);
    for (int k = 0; k < 3; k++) {
        for (int64_t i = 0; i < nf * pa; i++)
            pv[i] = i >= f ? 0 : k == 0 ? ((const int32_t *)main->bias)[i] : k == 1 ? rq_mult(&main->rq, i)
                                                                                    : rq_shift(&main->rq, i);
        rom_define(o, k == 0 ? "O2H_ROM_BIAS" : k == 1 ? "O2H_ROM_MULT" : "O2H_ROM_SHIFT", pv, d2, 2);
    }
    rom_lut(o, lut);
    fclose(o);
    *rom_bytes = f * b + 9 * f + (lut ? 256 : 0);
    free(v);
    free(pv);
    free(w);
    return buf;
}

char *cg_rom_pool(CgAccel *a, const QuantLayer *q)
{
    bool avg = q->kind == QK_AVGPOOL || q->kind == QK_GLOBAL_AVGPOOL;
    int64_t n = q->kind == QK_MAXPOOL || q->kind == QK_AVGPOOL ? (int64_t)q->pool.KH * q->pool.KW : 1;
    int64_t *m = calloc((size_t)n, sizeof *m), *s = calloc((size_t)n, sizeof *s), dims[1] = {n};
    if (!m || !s)
        abort();
    for (int64_t i = 0; avg && i < n && i < q->rq.n; i++)
        m[i] = q->rq.mult[i], s[i] = q->rq.shift[i];
    char *buf = NULL;
    size_t len = 0;
    FILE *o = rom_open(&buf, &len, a->g->layers[a->g->tensors[q->y].producer].name);
    rom_define(o, "O2H_ROM_MULT", m, dims, 1);
    rom_define(o, "O2H_ROM_SHIFT", s, dims, 1);
    fclose(o);
    free(m);
    free(s);
    return buf;
}

char *cg_rom_elt(CgAccel *a, const QuantLayer *lut)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *o = rom_open(&buf, &len, lut ? a->g->layers[a->g->tensors[lut->y].producer].name : "an element-wise stage");
    rom_lut(o, lut && lut->kind == QK_LUT ? lut : NULL);
    fclose(o);
    return buf;
}
