/* rt_int_gemm.c - the int8 panel product behind every int8 conv and FC,
 *     acc[f][p] = bias[f] + sum_k w[f][k] * x[k][p],
 * and the requantization of its rows to int8 (docs/numerics.md section 3).
 *
 * Why this shape: the sums are exact integers, so the only freedom is
 * speed, and the instruction that multiplies int8 fastest differs per ISA
 * (rt_int_internal.h picks one at build time). Weights are packed once into
 * MR-channel panels grouped by the instruction's G values of k; pixels are
 * packed per block of NV*VL into the same G-interleaved form (x + 128 as
 * unsigned bytes for VNNI, int16 for pair products), so the micro-kernel
 * streams both operands sequentially and keeps an MR x NV tile of int32
 * accumulators in registers for the whole reduction. A last block of a
 * few pixels (a 7x7 map is 24 + 24 + 1) would waste most lanes of such a
 * tile, so where O2H_I8_COLS is set it goes with channels in the lanes
 * instead, reading the same packed weights two k-steps of a panel at a
 * time.
 *
 * VNNI multiplies unsigned by signed bytes: it sums (x + 128) * w and the
 * packed bias is corrected by -128 * sum(w[f]). Partial sums may wrap
 * modulo 2^32, the final one cannot (the compiler proves |acc| < 2^31), so
 * the result is the same integer. The pair-product and Arm kinds never
 * leave int32 on the way. */
#include "rt_int_requant.h"


void o2h_i8_requant_row(const int32_t *acc, int n, const O2hRequant *rq, int ch, int8_t *y)
{
    O2hRqc c;
    o2h_rqc_init(rq, ch, &c);
    o2h_rq_row(acc, n, &c, y);
}

/* ------------------------------------------------ packed weights */

/* Packed: ceil(F/MR) panels of [K/G][MR][G] elements (ES bytes, zero for
 * k >= K and for rows >= F), then int32 biases for ceil(F/MR)*MR rows. */
static size_t o2h_i8_wbytes(int F, int K, int mr, int g, int es)
{
    size_t fp = (size_t)(F + mr - 1) / mr * mr, kp = (size_t)(K + g - 1) / g * g;
    return (fp * kp * es + 63) & ~(size_t)63;
}

size_t o2h_i8_packed_bytes(int F, int K)
{
    size_t fp = (size_t)(F + O2H_I8_MR - 1) / O2H_I8_MR * O2H_I8_MR;
    return o2h_i8_wbytes(F, K, O2H_I8_MR, O2H_I8_G, O2H_I8_ES) + fp * 4;
}

size_t o2h_i8_packed_bytes_max(int F, int K)
{
    size_t fp = (size_t)(F + O2H_I8_MR_MAX - 1) / O2H_I8_MR_MAX * O2H_I8_MR_MAX;
    return o2h_i8_wbytes(F, K, O2H_I8_MR_MAX, O2H_I8_G_MAX, 2) + fp * 4;
}

/* Row f of the weights into its panel: G values of k per step, MR rows
 * apart (the panels were zeroed); returns sum(w[f]) for the VNNI bias correction. */
static int64_t o2h_i8_pack_row(const int8_t *wf, int K, unsigned char *dst)
{
    enum { G = O2H_I8_G, ES = O2H_I8_ES, STEP = O2H_I8_MR * O2H_I8_G * O2H_I8_ES };
    int64_t sum = 0;
    for (int k = 0; k < K; k++) {
        sum += wf[k];
        unsigned char *d = dst + (size_t)(k / G) * STEP + (size_t)(k % G) * ES;
        if (ES == 1)
            *d = (unsigned char)wf[k];
        else
            memcpy(d, &(int16_t){wf[k]}, 2);
    }
    return sum;
}

void o2h_i8_pack(int F, int K, const int8_t *w, const int32_t *bias, void *packed)
{
    enum { MR = O2H_I8_MR, G = O2H_I8_G, ES = O2H_I8_ES };
    unsigned char *out = packed;
    int kg = (K + G - 1) / G, fp = (F + MR - 1) / MR * MR;
    size_t wb = o2h_i8_wbytes(F, K, MR, G, ES);
    int32_t *b = (int32_t *)(void *)(out + wb);
    memset(out, 0, wb);
    for (int f = 0; f < fp; f++) {
        unsigned char *dst = out + ((size_t)(f / MR) * kg * MR + (size_t)(f % MR)) * G * ES;
        int64_t sum = f < F ? o2h_i8_pack_row(w + (int64_t)f * K, K, dst) : 0;
        b[f] = f < F ? (int32_t)((int64_t)bias[f] - (O2H_I8_FLIP ? 128 * sum : 0)) : 0;
    }
}

/* ------------------------------------------------ pixel blocks */

/* bytes of one channel's vector constants (O2hRqv) in any build */
#define O2H_RQV_BYTES_MAX 512

size_t o2h_i8_gemm_scratch(int F, int K)
{
    return (size_t)F * (sizeof(O2hRqc) + O2H_RQV_BYTES_MAX) + 128 + ((size_t)K + O2H_I8_G_MAX) * O2H_I8_BLOCK_MAX +
           64;
}

#if O2H_I8 != O2H_I8_PLAIN
/* Vector packing of the full chunks of one k-group, reading exactly the
 * np pixels of each row; returns the first column left to the element
 * loop. Chunks divide the tile width, so only a ragged last tile has one. */
#if O2H_I8 == O2H_I8_VNNI512 || O2H_I8 == O2H_I8_VNNI256
/* 16 (then 8) pixels x 4 rows -> [pixel][4] bytes of x + 128 */
static int o2h_i8_pack_vec(const int8_t *const *r, int np, unsigned char *o)
{
    const __m128i flip = _mm_set1_epi8((char)0x80);
    int j = 0;
    for (; j + 16 <= np; j += 16) {
        __m128i v[4];
        for (int i = 0; i < 4; i++)
            v[i] = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(r[i] + j)), flip);
        __m128i t0 = _mm_unpacklo_epi8(v[0], v[1]), t1 = _mm_unpackhi_epi8(v[0], v[1]);
        __m128i t2 = _mm_unpacklo_epi8(v[2], v[3]), t3 = _mm_unpackhi_epi8(v[2], v[3]);
        __m128i *d = (__m128i *)(void *)(o + (size_t)j * 4);
        _mm_storeu_si128(d, _mm_unpacklo_epi16(t0, t2));
        _mm_storeu_si128(d + 1, _mm_unpackhi_epi16(t0, t2));
        _mm_storeu_si128(d + 2, _mm_unpacklo_epi16(t1, t3));
        _mm_storeu_si128(d + 3, _mm_unpackhi_epi16(t1, t3));
    }
    for (; j + 8 <= np; j += 8) {
        __m128i v[4];
        for (int i = 0; i < 4; i++)
            v[i] = _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(const void *)(r[i] + j)), flip);
        __m128i t0 = _mm_unpacklo_epi8(v[0], v[1]), t2 = _mm_unpacklo_epi8(v[2], v[3]);
        __m128i *d = (__m128i *)(void *)(o + (size_t)j * 4);
        _mm_storeu_si128(d, _mm_unpacklo_epi16(t0, t2));
        _mm_storeu_si128(d + 1, _mm_unpackhi_epi16(t0, t2));
    }
    return j;
}
#elif O2H_I8 == O2H_I8_MADD512 || O2H_I8 == O2H_I8_MADD256
/* 16 (then 8) pixels x 2 rows -> [pixel][2] int16: the two rows' bytes
 * interleaved within 128 bits, then widened, so no lane-crossing
 * permute (4 shuffles per 16 pixels instead of 6) */
static int o2h_i8_pack_vec(const int8_t *const *r, int np, unsigned char *o)
{
    int j = 0;
    for (; j + 16 <= np; j += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(r[0] + j));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(r[1] + j));
        unsigned char *d = o + (size_t)j * 4;
        _mm256_storeu_si256((__m256i *)(void *)d, _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(a, b)));
        _mm256_storeu_si256((__m256i *)(void *)(d + 32), _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(a, b)));
    }
    for (; j + 8 <= np; j += 8) {
        __m128i p = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)(r[0] + j)),
                                      _mm_loadl_epi64((const __m128i *)(const void *)(r[1] + j)));
        _mm256_storeu_si256((__m256i *)(void *)(o + (size_t)j * 4), _mm256_cvtepi8_epi16(p));
    }
    return j;
}
#elif O2H_I8 == O2H_I8_SDOT
/* 16 (then 4) pixels x 4 rows -> [pixel][4] bytes */
static int o2h_i8_pack_vec(const int8_t *const *r, int np, unsigned char *o)
{
    static const uint8_t tr[16] = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
    int j = 0;
    for (; j + 16 <= np; j += 16) {
        int8x16x4_t v = {{vld1q_s8(r[0] + j), vld1q_s8(r[1] + j), vld1q_s8(r[2] + j), vld1q_s8(r[3] + j)}};
        vst4q_s8((int8_t *)(void *)(o + (size_t)j * 4), v);
    }
    uint8x16_t idx = vld1q_u8(tr);
    for (; j + 4 <= np; j += 4) {
        uint32_t w[4];
        for (int i = 0; i < 4; i++)
            memcpy(&w[i], r[i] + j, 4);
        vst1q_u8(o + (size_t)j * 4, vqtbl1q_u8(vreinterpretq_u8_u32(vld1q_u32(w)), idx));
    }
    return j;
}
#elif O2H_I8 == O2H_I8_SMLAL
/* 8 (then 4) pixels of one row -> int16 */
static int o2h_i8_pack_vec(const int8_t *const *r, int np, unsigned char *o)
{
    int j = 0;
    for (; j + 8 <= np; j += 8)
        vst1q_s16((int16_t *)(void *)(o + (size_t)j * 2), vmovl_s8(vld1_s8(r[0] + j)));
    for (; j + 4 <= np; j += 4) {
        int32_t w;
        memcpy(&w, r[0] + j, 4);
        vst1_s16((int16_t *)(void *)(o + (size_t)j * 2), vget_low_s16(vmovl_s8(vreinterpret_s8_s32(vdup_n_s32(w)))));
    }
    return j;
}
#endif

/* dst[j][g] = rows[g][j] for j < n, g < G, as the kind packs x (ES-byte
 * elements; x + 128 as unsigned bytes for VNNI). */
static void o2h_i8_interleave(const int8_t *const *rows, int n, unsigned char *dst)
{
    for (int j = o2h_i8_pack_vec(rows, n, dst); j < n; j++)
        for (int gi = 0; gi < O2H_I8_G; gi++) {
            int v = rows[gi][j];
            size_t at = (size_t)j * O2H_I8_G + (size_t)gi;
            if (O2H_I8_ES == 1)
                dst[at] = (unsigned char)(v ^ O2H_I8_FLIP);
            else
                memcpy(dst + 2 * at, &(int16_t){(int16_t)v}, 2);
        }
}

#if O2H_I8 == O2H_I8_MADD256
/* The pairs of rows below K of a full block (24 pixels: 16 + 8 per pair)
 * without the tail checks of o2h_i8_interleave; returns the pairs done. */
static int o2h_i8_pack_full(const int8_t *x, int64_t ldx, int K, unsigned char *o)
{
    int kq = 0;
    for (; 2 * kq + 1 < K; kq++, x += 2 * ldx, o += 3 * O2H_I8_STEP) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)x);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(x + ldx));
        __m128i c = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(const void *)(x + 16)),
                                      _mm_loadl_epi64((const __m128i *)(const void *)(x + ldx + 16)));
        _mm256_storeu_si256((__m256i *)(void *)o, _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(a, b)));
        _mm256_storeu_si256((__m256i *)(void *)(o + 32), _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(a, b)));
        _mm256_storeu_si256((__m256i *)(void *)(o + 64), _mm256_cvtepi8_epi16(c));
    }
    return kq;
}
#endif

/* blk = [K/G][nbw][G] packed elements of x[k][j], k < K, j < np (zero
 * beyond: rows past K read a zero row; nbw - np <= VL). */
static void o2h_i8_pack_block(const int8_t *x, int64_t ldx, int K, int np, int nbw, unsigned char *blk)
{
    static const int8_t zero_row[O2H_I8_TW];
    const size_t step = (size_t)nbw * O2H_I8_G * O2H_I8_ES;
    int kg = (K + O2H_I8_G - 1) / O2H_I8_G, kq = 0;
#if O2H_I8 == O2H_I8_MADD256
    if (np == O2H_I8_TW)
        kq = o2h_i8_pack_full(x, ldx, K, blk);
#endif
    for (; kq < kg; kq++) {
        const int8_t *r[O2H_I8_G];
        for (int gi = 0; gi < O2H_I8_G; gi++) {
            int k = kq * O2H_I8_G + gi;
            r[gi] = k < K ? x + (int64_t)k * ldx : zero_row;
        }
        unsigned char *o = blk + (size_t)kq * step;
        o2h_i8_interleave(r, np, o);
        memset(o + (size_t)np * O2H_I8_G * O2H_I8_ES, 0, step - (size_t)np * O2H_I8_G * O2H_I8_ES);
    }
}
#endif

/* ------------------------------------------------ micro-kernels */

#if O2H_I8 != O2H_I8_PLAIN

/* AVX2 kinds keep hi32 channel constants as O2hRqh scalars (built per
 * call for every channel, so the smaller the better), the rest as
 * O2hRqc + O2hRqv. */
#if O2H_RQ_VL == 8
#define O2H_I8_RQH 1
#else
#define O2H_I8_RQH 0
#endif

/* Where a tile's outputs go: rows of y (ldy apart), np valid pixels, the
 * channel constants of its rows (rqc[r]), rows valid. */
typedef struct {
    int8_t *y;
    int64_t ldy;
    int np, rows;
    const O2hRqc *rqc;
    const O2hRqv *rqv;       /* the same constants in vectors (where rqv_ok) */
#if O2H_I8_RQH
    const O2hRqh *rqh;       /* instead of rqc and rqv where every channel is hi32, else NULL */
#endif
    int rq_step;             /* 1 per channel, 0 per tensor */
} O2hI8Out;

_Static_assert(sizeof(O2hRqv) <= O2H_RQV_BYTES_MAX, "O2H_RQV_BYTES_MAX too small");

/* Row r of a finished tile: requantized in registers where the vector
 * form applies, stored straight to y when the tile is full. */
O2H_I_INLINE void o2h_i8_row_out(int nv, o2h_iacc *acc, const O2hRqc *c, const O2hRqv *v, int8_t *y, int np)
{
    int8_t buf[O2H_I8_TW];
    int8_t *d = np == nv * O2H_I8_VL ? y : buf;
    if (o2h_rqv_ok(c)) {
#if O2H_RQ_VL == 8   /* AVX2: the call's constants; wider kinds measured faster with their own */
        o2h_rqv_store_nvs(acc, nv, v, d);
#else
        O2hRqv own;
        o2h_rqv_init(c, &own);
        o2h_rqv_store_nv(acc, nv, &own, d);
        (void)v;
#endif
    } else {
        int32_t t[O2H_I8_TW];
        O2H_I_UNROLL for (int i = 0; i < nv; i++) O2H_ISTORE(t + i * O2H_I8_VL, acc[i]);
        o2h_rq_row(t, np, c, d);
    }
    if (d != y)
        memcpy(y, buf, (size_t)np);
}

#if O2H_I8_RQH
/* o2h_i8_row_out by the hi32 constants h */
O2H_I_INLINE void o2h_i8_row_outh(int nv, o2h_iacc *acc, const O2hRqh *h, int8_t *y, int np)
{
    int8_t buf[O2H_I8_TW];
    int8_t *d = np == nv * O2H_I8_VL ? y : buf;
    o2h_rqh_store_nv(acc, nv, h, d);
    if (d != y)
        memcpy(y, buf, (size_t)np);
}
#endif

/* One tile: MR channels x nv vectors of pixels, the accumulators in
 * registers for all kg steps, then requantized and stored. */
O2H_I_INLINE void o2h_i8_tile(int nv, int kg, const unsigned char *restrict b, const unsigned char *restrict w,
                              const int32_t *bias, const O2hI8Out *o)
{
    o2h_iacc acc[O2H_I8_MR][O2H_I8_NV];
    const size_t bs = (size_t)nv * O2H_I8_STEP;
    O2H_I_UNROLL for (int r = 0; r < O2H_I8_MR; r++)
        O2H_I_UNROLL for (int v = 0; v < nv; v++) acc[r][v] = O2H_ISET1(bias[r]);
    for (int k = 0; k < kg; k++) {
        o2h_ix x[O2H_I8_NV];
        O2H_I_UNROLL for (int v = 0; v < nv; v++)
        {
            x[v] = O2H_IXLOAD(b + v * O2H_I8_STEP);
            if (v < O2H_I8_XPIN)
                O2H_IPIN(x[v]);
        }
        O2H_I_UNROLL for (int r = 0; r < O2H_I8_MR; r++)
        {
            o2h_iw wv = O2H_IWLOAD(w + r * O2H_I8_G * O2H_I8_ES);
            O2H_I_UNROLL for (int v = 0; v < nv; v++) acc[r][v] = O2H_IDOT(acc[r][v], x[v], wv);
        }
        b += bs;
        w += O2H_I8_MR * O2H_I8_G * O2H_I8_ES;
    }
#if O2H_I8_RQH
    if (nv == 3 && o->rqh && o->rows == 4 && o->np == 24) {
        o2h_rqh_store43(acc, o->rqh, o->rq_step, o->y, o->ldy);
        return;
    }
#endif
    O2H_I_UNROLL for (int r = 0; r < O2H_I8_MR; r++) if (r < o->rows) {
#if O2H_I8_RQH
        if (o->rqh) {
            o2h_i8_row_outh(nv, acc[r], o->rqh + r * o->rq_step, o->y + r * o->ldy, o->np);
            continue;
        }
#endif
        o2h_i8_row_out(nv, acc[r], o->rqc + r * o->rq_step, o->rqv + r * o->rq_step, o->y + r * o->ldy, o->np);
    }
}

/* What every tile of one call shares: the packed weights and biases, the
 * pixel block, the channel constants, k-steps, per-channel or not. */
typedef struct {
    const unsigned char *wp;
    const int32_t *bias;
    const unsigned char *blk;
    const O2hRqc *rqc;
    const O2hRqv *rqv;
#if O2H_I8_RQH
    const O2hRqh *rqh;
#endif
    int kg, per_ch;
#if O2H_I8_COLS
    const int32_t *rql;      /* with rqh and a last block of channel vectors: M, c, s of channel f at f, fp + f, 2 fp + f */
    int fp;
#endif
} O2hI8Run;

static void o2h_i8_tile_nv(int nv, int kg, const unsigned char *b, const unsigned char *w, const int32_t *bias,
                           const O2hI8Out *o)
{
#if O2H_I8_NV >= 3
    if (nv == 3) {
        o2h_i8_tile(3, kg, b, w, bias, o);
        return;
    }
#endif
    if (nv == 2)
        o2h_i8_tile(2, kg, b, w, bias, o);
    else
        o2h_i8_tile(1, kg, b, w, bias, o);
}

/* Where the tile of the panel of MR channels from f0 over np pixels at p0 puts its outputs. */
O2H_I_INLINE O2hI8Out o2h_i8_out(const O2hI8Gemm *g, const O2hI8Run *u, int f0, int p0, int np)
{
    enum { MR = O2H_I8_MR };
    int sel = u->per_ch ? f0 : 0;
    O2hI8Out o = {g->y + (int64_t)f0 * g->ldy + p0, g->ldy, np, g->F - f0 < MR ? g->F - f0 : MR, u->rqc + sel,
                  u->rqv + sel,
#if O2H_I8_RQH
                  u->rqh ? u->rqh + sel : NULL,
#endif
                  u->per_ch};
    return o;
}

/* One panel of MR channels from f0 over the block at p0 (np pixels, nv vectors). */
static void o2h_i8_panel(const O2hI8Gemm *g, const O2hI8Run *u, int f0, int p0, int np, int nv)
{
    O2hI8Out o = o2h_i8_out(g, u, f0, p0, np);
    o2h_i8_tile_nv(nv, u->kg, u->blk, u->wp + (size_t)f0 * u->kg * O2H_I8_G * O2H_I8_ES, u->bias + f0, &o);
}

#if O2H_I8 == O2H_I8_MADD256
/* All panels over a full block at p0, the tile inlined in the loop. */
static void o2h_i8_block_full(const O2hI8Gemm *g, const O2hI8Run *u, int p0)
{
    enum { MR = O2H_I8_MR };
    const size_t ps = (size_t)u->kg * MR * O2H_I8_G * O2H_I8_ES;
    const unsigned char *w = u->wp;
    for (int f0 = 0; f0 < g->F; f0 += MR, w += ps) {
        O2hI8Out o = o2h_i8_out(g, u, f0, p0, O2H_I8_TW);
        o2h_i8_tile(O2H_I8_NV, u->kg, u->blk, w, u->bias + f0, &o);
    }
}
#endif

#if O2H_I8_COLS
/* Channels in lanes for a last block of t <= O2H_I8_COLS pixels: one
 * 256-bit load of a 4-channel panel holds k-steps 2h and 2h + 1 (lanes 0
 * and 1), so it meets xb, each pixel's two k-pairs broadcast over the
 * lanes (o2h_i8_cols_x); no lane computes a missing pixel. The lanes are
 * summed at the end: n panels (ps bytes apart) x t pixels of sums go to
 * out[t][16]. An odd last k-step reads 128 bits and meets zeros above. */
O2H_I_INLINE void o2h_i8_cols_tile(int t, int n, int kg, const unsigned char *restrict xb,
                                   const unsigned char *restrict w, size_t ps, const int32_t *bias, int32_t *out)
{
    const size_t xs = (size_t)(kg + 1) / 2 * 32;
    __m256i acc[4][O2H_I8_COLS], wv[4];
    O2H_I_UNROLL for (int c = 0; c < n; c++) O2H_I_UNROLL for (int j = 0; j < t; j++)
        acc[c][j] = _mm256_setzero_si256();
    for (int h = 0; h < kg; h += 2) {
        O2H_I_UNROLL for (int c = 0; c < n; c++)
            wv[c] = h + 1 < kg ? _mm256_loadu_si256((const __m256i *)(const void *)(w + c * ps + h * 16))
                               : _mm256_zextsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(w + c * ps + h * 16)));
        O2H_I_UNROLL for (int j = 0; j < t; j++)
        {
            __m256i x = _mm256_load_si256((const __m256i *)(const void *)(xb + j * xs + h * 16));
            O2H_I_UNROLL for (int c = 0; c < n; c++) acc[c][j] = O2H_IDOT(acc[c][j], x, wv[c]);
        }
    }
    O2H_I_UNROLL for (int c = 0; c < n; c++) O2H_I_UNROLL for (int j = 0; j < t; j++)
    {
        __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc[c][j]), _mm256_extracti128_si256(acc[c][j], 1));
        s = _mm_add_epi32(s, _mm_loadu_si128((const __m128i *)(const void *)(bias + 4 * c)));
        _mm_storeu_si128((__m128i *)(void *)(out + 16 * j + 4 * c), s);
    }
}

/* the int16 pair x[k][j], x[k + 1][j] as one word (zeros from row K on) */
O2H_I_INLINE int32_t o2h_i8_xpair(const int8_t *x, int64_t ldx, int K, int k)
{
    uint32_t lo = k < K ? (uint16_t)x[k * ldx] : 0, hi = k + 1 < K ? (uint16_t)x[(k + 1) * ldx] : 0;
    return (int32_t)(lo | hi << 16);
}

/* xb[j][h] for o2h_i8_cols_tile: pixel j's k-pairs 2h and 2h + 1 (k = 4h
 * and 4h + 2 on) over four lanes each, j < t, from x directly (rows ldx
 * apart): 32 bytes, 32-aligned. */
static void o2h_i8_cols_x(const int8_t *x, int64_t ldx, int K, int t, unsigned char *xb)
{
    for (int j = 0; j < t; j++)
        for (int k = 0; k < K; k += 4, xb += 32) {
            int32_t lo = o2h_i8_xpair(x + j, ldx, K, k), hi = o2h_i8_xpair(x + j, ldx, K, k + 2);
            _mm256_store_si256((__m256i *)(void *)xb, _mm256_setr_epi32(lo, lo, lo, lo, hi, hi, hi, hi));
        }
}

/* out[j][r] of channels f0 + r, r < rows, to y at pixel p0 + j, j < t */
static void o2h_i8_cols_out(const O2hI8Gemm *g, const O2hI8Run *u, const int32_t *out, int f0, int rows, int p0, int t)
{
    for (int r = 0; r < rows; r++) {
        int8_t *y = g->y + (int64_t)(f0 + r) * g->ldy + p0;
        int sel = u->per_ch ? f0 + r : 0;
        for (int j = 0; j < t; j++)
            y[j] = u->rqh ? o2h_rqh_one(out[16 * j + r], u->rqh + sel) : o2h_rq_one(out[16 * j + r], u->rqc + sel);
    }
}

/* o2h_i8_cols_out of nch (8 or 16) channels by lanes (u->rql): eight
 * channels x four pixels (pixel 0 again past t) per pack, the bytes put
 * in [channel][pixel] order by one shuffle, then t bytes per row. */
static void o2h_i8_cols_outl(const O2hI8Gemm *g, const O2hI8Run *u, const int32_t *out, int f0, int nch, int rows,
                             int p0, int t)
{
    const __m256i tr = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9,
                                        13, 2, 6, 10, 14, 3, 7, 11, 15);
    const O2hRqh *h = u->rqh;
    _Alignas(32) int8_t b[16][4];
    for (int c = 0; c < nch; c += 8) {
        const int32_t *l = u->rql + f0 + c;
        __m256i m = _mm256_loadu_si256((const __m256i *)(const void *)l), q[4];
        __m256i rnd = _mm256_loadu_si256((const __m256i *)(const void *)(l + u->fp));
        __m256i s = _mm256_loadu_si256((const __m256i *)(const void *)(l + 2 * u->fp));
        for (int j = 0; j < 4; j++)
            q[j] = o2h_rq32l(_mm256_loadu_si256((const __m256i *)(const void *)(out + 16 * (j < t ? j : 0) + c)), m,
                             _mm256_srli_epi64(m, 32), rnd, s);
        __m256i y = _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
        y = _mm256_shuffle_epi8(y, tr);
        if (h->clamp)
            y = _mm256_min_epi8(_mm256_max_epi8(y, _mm256_set1_epi32(h->lo4)), _mm256_set1_epi32(h->hi4));
        _mm256_store_si256((__m256i *)(void *)b[c], y);
    }
    for (int r = 0; r < rows; r++) {
        int8_t *y = g->y + (int64_t)(f0 + r) * g->ldy + p0;
        if (t == 4)
            memcpy(y, b[r], 4);
        else
            for (int j = 0; j < t; j++)
                y[j] = b[r][j];
    }
}

/* u->rql for channels f < fp from the hi32 constants h (per tensor: h[0]
 * for all) at l, 3 fp int32 */
static const int32_t *o2h_i8_rql(const O2hRqh *h, int per_ch, int F, int fp, int32_t *l)
{
    for (int f = 0; f < fp; f++) {
        const O2hRqh *c = h + (per_ch ? (f < F ? f : 0) : 0);
        l[f] = c->m, l[fp + f] = c->rnd, l[2 * fp + f] = c->s;
    }
    return l;
}

/* The last block (np <= O2H_I8_COLS pixels at p0, xb of its pixels made):
 * 16 (3-4 pixels: 8) channels at a time by channel vectors, requantized
 * by lanes where every channel is hi32 (u->rql), else per element; the last panels as tiles, packing the block at blk (= u->blk)
 * for them only if there are any. */
static void o2h_i8_cols(const O2hI8Gemm *g, const O2hI8Run *u, int p0, int np, const unsigned char *xb,
                        unsigned char *blk)
{
    const size_t ps = (size_t)u->kg * O2H_I8_MR * O2H_I8_G * O2H_I8_ES;
    int fp = (g->F + O2H_I8_MR - 1) / O2H_I8_MR * O2H_I8_MR, f0 = 0, n = np <= 2 ? 4 : 2;
    for (; f0 + 4 * n <= fp; f0 += 4 * n) {
        int32_t out[O2H_I8_COLS * 16];
        const unsigned char *w = u->wp + (size_t)f0 / O2H_I8_MR * ps;
        switch (np) {
        case 1: o2h_i8_cols_tile(1, 4, u->kg, xb, w, ps, u->bias + f0, out); break;
        case 2: o2h_i8_cols_tile(2, 4, u->kg, xb, w, ps, u->bias + f0, out); break;
        case 3: o2h_i8_cols_tile(3, 2, u->kg, xb, w, ps, u->bias + f0, out); break;
        default: o2h_i8_cols_tile(4, 2, u->kg, xb, w, ps, u->bias + f0, out); break;
        }
        int rows = g->F - f0 < 4 * n ? g->F - f0 : 4 * n;
        if (u->rql)
            o2h_i8_cols_outl(g, u, out, f0, 4 * n, rows, p0, np);
        else
            o2h_i8_cols_out(g, u, out, f0, rows, p0, np);
    }
    if (f0 < g->F)
        o2h_i8_pack_block(g->x + p0, g->ldx, g->K, np, O2H_I8_VL, blk);
    for (; f0 < g->F; f0 += O2H_I8_MR)
        o2h_i8_panel(g, u, f0, p0, np, 1);
}
#endif

#if O2H_I8_RQH
/* h[f] for the n channels from ch0 where every one is hi32 (then h, else NULL) */
static const O2hRqh *o2h_i8_rqh(const O2hRequant *rq, int ch0, int n, O2hRqh *h)
{
    for (int f = 0; f < n; f++)
        if (!o2h_rqh_init(rq, ch0 + f, &h[f]))
            return NULL;
    return h;
}
#endif

void o2h_i8_gemm(const O2hI8Gemm *g)
{
    enum { MR = O2H_I8_MR, G = O2H_I8_G, ES = O2H_I8_ES };
    const unsigned char *wp = g->wp;
    const int32_t *bias = (const int32_t *)(const void *)(wp + o2h_i8_wbytes(g->F, g->K, MR, G, ES));
    int kg = (g->K + G - 1) / G, per_ch = g->rq->n > 1;
    O2hRqc *rqc = o2h_i_align64(g->blk);
    O2hRqv *rqv = o2h_i_align64(rqc + g->F);
    unsigned char *blk = o2h_i_align64(rqv + g->F);
#if O2H_I8_RQH
    _Static_assert(sizeof(O2hRqh) <= sizeof(O2hRqc), "O2hRqh in the place of O2hRqc");
#if O2H_I8_COLS
    _Static_assert(sizeof(O2hRqv) >= 48, "rql (12 (F + 3) bytes) in the place of O2hRqv");
#endif
    const O2hRqh *rqh = o2h_i8_rqh(g->rq, g->ch0, per_ch ? g->F : 1, (O2hRqh *)(void *)rqc);
#if O2H_I8_COLS
    int fp = (g->F + MR - 1) / MR * MR, tail = g->P % O2H_I8_TW;   /* rql only where a pass of 16 (8) channels fits */
    int lanes = rqh && tail && tail <= O2H_I8_COLS && fp >= (tail <= 2 ? 16 : 8);
    const int32_t *rql = lanes ? o2h_i8_rql(rqh, per_ch, g->F, fp, (int32_t *)(void *)rqv) : NULL;
    const O2hI8Run u = {wp, bias, blk, rqc, rqv, rqh, kg, per_ch, rql, fp};
#else
    const O2hI8Run u = {wp, bias, blk, rqc, rqv, rqh, kg, per_ch};
#endif
    if (!rqh)
#else
    const O2hI8Run u = {wp, bias, blk, rqc, rqv, kg, per_ch};
#endif
        /* the vector constants once per call, not once per tile row */
        for (int f = 0; f < (per_ch ? g->F : 1); f++) {
            o2h_rqc_init(g->rq, g->ch0 + f, &rqc[f]);
            if (o2h_rqv_ok(&rqc[f]))
                o2h_rqv_init(&rqc[f], &rqv[f]);
        }
    for (int p0 = 0; p0 < g->P; p0 += O2H_I8_TW) {
        int np = g->P - p0 < O2H_I8_TW ? g->P - p0 : O2H_I8_TW;
        int nv = (np + O2H_I8_VL - 1) / O2H_I8_VL;
#if O2H_I8_COLS
        if (np <= O2H_I8_COLS) {
            unsigned char *xb = blk + (size_t)kg * O2H_I8_STEP;
            o2h_i8_cols_x(g->x + p0, g->ldx, g->K, np, xb);
            o2h_i8_cols(g, &u, p0, np, xb, blk);
            continue;
        }
#endif
        o2h_i8_pack_block(g->x + p0, g->ldx, g->K, np, nv * O2H_I8_VL, blk);
#if O2H_I8 == O2H_I8_MADD256
        if (np == O2H_I8_TW) {
            o2h_i8_block_full(g, &u, p0);
            continue;
        }
#endif
        for (int f0 = 0; f0 < g->F; f0 += MR)
            o2h_i8_panel(g, &u, f0, p0, np, nv);
    }
}

#else /* plain C */

/* The same sums over tiles of up to 256 pixels, accumulators in memory,
 * x read in place (the packed "panels" are the weight rows as given). */
#define O2H_I8_PT 256

static void o2h_i8_rows(const O2hI8Gemm *g, const int8_t *w, const int32_t *bias, int f, int rows, int p0,
                        int np)
{
    int32_t acc[4][O2H_I8_PT];
    for (int r = 0; r < rows; r++)
        for (int i = 0; i < np; i++)
            acc[r][i] = bias[f + r];
    for (int k = 0; k < g->K; k++) {
        const int8_t *c = g->x + k * g->ldx + p0;
        for (int r = 0; r < rows; r++) {
            int16_t b = w[((int64_t)(f / 4) * g->K + k) * 4 + r];   /* [F/4][K][4] panels */
            for (int i = 0; i < np; i++)
                acc[r][i] += (int16_t)(b * (int16_t)c[i]);
        }
    }
    for (int r = 0; r < rows; r++)
        o2h_i8_requant_row(acc[r], np, g->rq, g->ch0 + f + r, g->y + (int64_t)(f + r) * g->ldy + p0);
}

void o2h_i8_gemm(const O2hI8Gemm *g)
{
    const int8_t *w = g->wp;
    const int32_t *bias = (const int32_t *)(const void *)((const unsigned char *)g->wp +
                                                          o2h_i8_wbytes(g->F, g->K, O2H_I8_MR, 1, 1));
    for (int p0 = 0; p0 < g->P; p0 += O2H_I8_PT) {
        int np = g->P - p0 < O2H_I8_PT ? g->P - p0 : O2H_I8_PT;
        for (int f = 0; f < g->F; f += 4)
            o2h_i8_rows(g, w, bias, f, g->F - f < 4 ? g->F - f : 4, p0, np);
    }
}
#endif
