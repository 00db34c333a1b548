/* rt_gemm.c - matrix products: the blocked GEMM core shared with the conv
 * kernels, the Gemm op (transA/transB/alpha/beta, C broadcast) and batched
 * MatMul with numpy broadcasting.
 *
 * Why this shape: almost all CNN time is in GEMMs (pointwise convs directly,
 * standard convs after im2col, fully connected layers). The core computes a
 * register tile of MR rows x NV vectors with broadcast-FMA, loops over
 * columns in blocks that keep C in L2 and over K in blocks of KC so the B
 * tile stays in L1 while the A panels stream from L2, and applies the epilogue (scale, bias, residual, activation) while the
 * tile is still in registers, so no extra pass over the output is needed.
 * B is read in place when its rows are contiguous; only a ragged last
 * column tile is copied into a zero-padded buffer on the stack. AVX2 builds
 * are the exception where the caller gives a buffer (o2h_gemm_bpack_size):
 * their 16-column tile reads one cache line per B row, at the stride of a
 * feature map, and each K block of B is copied there into contiguous
 * tiles first (see o2h_bpack_wanted). */
#include "rt_internal.h"

#include <math.h>

#ifndef O2H_KC
#define O2H_KC 256
#endif
/* K steps ahead at which the A panel is prefetched: 2 KB of panel (85
 * steps of 6 rows, 64 of 8). At 32 steps (0.75-1 KB) the prefetches came
 * too late for the panels of 512- and 1024-row weights streaming from L3. */
#ifndef O2H_PREFETCH_K
#define O2H_PREFETCH_K (512 / O2H_MR)
#endif

typedef struct {
    const float *p;
    ptrdiff_t rs, ks;   /* element (m,k) at p[m*rs + k*ks] when not packed */
    int packed;         /* ceil(M/MR) panels of [K][MR] */
} O2hMatA;

typedef struct {
    const float *p;
    ptrdiff_t ld;       /* element (k,n) at p[k*ld + n] when not packed */
    int packed;         /* ceil(N/NR) panels of [K][NR] */
    int seglen;         /* > 0: rows come in segments of seglen rows, segment s */
    const size_t *seg;  /*      starting at p + seg[s] (row stride ld within) */
} O2hMatB;

/* One K block of a tile: the state the tile store needs. */
typedef struct {
    float *c;
    ptrdiff_t ldc;
    int i0, j0, mr, nr;   /* tile origin in C and its valid size */
    int first, last;      /* first / last K block */
} O2hTilePos;

static int o2h_mini(int a, int b) { return a < b ? a : b; }

size_t o2h_gemm_panels_size(int M, int K)
{
    return (size_t)((M + O2H_MR - 1) / O2H_MR) * O2H_MR * (size_t)K;
}

/* End of the K block starting at pc: KC rows, not crossing a segment of
 * seglen rows (0: no segments). Packing and the GEMM loops share it. */
static int o2h_kblock_stop(int seglen, int K, int pc)
{
    int end = pc + O2H_KC < K ? pc + O2H_KC : K;
    if (seglen > 0) {
        int seg_end = (pc / seglen + 1) * seglen;
        end = end < seg_end ? end : seg_end;
    }
    return end;
}

size_t o2h_gemm_panel_index(int M, int K, int m, int k)
{
    int pc = k / O2H_KC * O2H_KC, kc = K - pc < O2H_KC ? K - pc : O2H_KC;
    size_t mpad = (size_t)((M + O2H_MR - 1) / O2H_MR) * O2H_MR;
    return (size_t)pc * mpad + (size_t)(m / O2H_MR * O2H_MR) * kc + (size_t)(k - pc) * O2H_MR +
           (size_t)(m % O2H_MR);
}

/* Packed A is K-block major: block [pc, pe) holds, at pc*Mpad, the panels
 * of all rows one after the other, each [pe-pc][MR]. A GEMM pass over one K
 * block then reads A strictly sequentially. */
void o2h_gemm_pack_a_panels(int M, int K, const float *a, ptrdiff_t rs, ptrdiff_t ks, int taps,
                            float *ap)
{
    int cg = K / (taps > 0 ? taps : 1), seglen = taps > 1 ? cg : 0;
    size_t mpad = (size_t)((M + O2H_MR - 1) / O2H_MR) * O2H_MR;
    for (int pc = 0; pc < K;) {
        int pe = o2h_kblock_stop(seglen, K, pc), kc = pe - pc;
        for (int i0 = 0; i0 < M; i0 += O2H_MR) {
            float *pp = ap + (size_t)pc * mpad + (size_t)i0 * kc;
            for (int k = pc; k < pe; k++) {
                int src = taps > 1 ? (k % cg) * taps + k / cg : k;
                for (int r = 0; r < O2H_MR; r++)
                    pp[(size_t)(k - pc) * O2H_MR + r] =
                        i0 + r < M ? a[(ptrdiff_t)(i0 + r) * rs + (ptrdiff_t)src * ks] : 0.0f;
            }
        }
        pc = pe;
    }
}

/* Row r of a ragged tile's first K block: scale, row bias, then column
 * bias and residual, each in a loop of its own when present. A loop that
 * chose per value between cb[j] and 0 (cb may be NULL) is if-converted by
 * the vectorizer into masked loads from near address 0, and a masked load
 * whose masked-off lanes touch an unmapped page takes a microcode assist
 * (hundreds of cycles) every time: on AVX2 the column tails of 14x14 and
 * 7x7 maps spent 70% of their time there. */
static void o2h_tile_first_row(const float *tr, int r, const O2hTilePos *tp,
                               const O2hTileEpi *ep, float *ur)
{
    int i = tp->i0 + r, nr = tp->nr;
    float rb = ep->row_bias ? ep->row_bias[i] : 0.0f;
    for (int j = 0; j < nr; j++)
        ur[j] = ep->scale * tr[j] + rb;
    if (ep->col_bias)
        for (int j = 0; j < nr; j++)
            ur[j] += ep->col_bias[tp->j0 + j];
    if (ep->res) {
        const float *rs = ep->res + (ptrdiff_t)i * ep->ldr + tp->j0;
        for (int j = 0; j < nr; j++)
            ur[j] += rs[j];
    }
}

/* Scalar epilogue for ragged tiles: t holds the raw accumulators. The
 * values are gathered densely in u so the activation is one call per tile
 * (a one-column tile of an SE block's 1x1 conv would otherwise pay a call
 * per value); only PRelu goes row by row for its channel. */
static void o2h_tile_store_scalar(const float *t, const O2hTilePos *tp, const O2hTileEpi *ep)
{
    float u[O2H_MR * O2H_NR];
    int mr = tp->mr, nr = tp->nr;
    for (int r = 0; r < mr; r++) {
        const float *cr = tp->c + (ptrdiff_t)(tp->i0 + r) * tp->ldc + tp->j0;
        const float *tr = t + (size_t)r * O2H_NR;
        float *ur = u + (size_t)r * nr;
        if (tp->first) {
            o2h_tile_first_row(tr, r, tp, ep, ur);
            continue;
        }
        for (int j = 0; j < nr; j++)
            ur[j] = cr[j] + ep->scale * tr[j];
    }
    const O2hEpilogue *e = tp->last ? ep->act : NULL;
    if (e && e->act == O2H_ACT_PRELU) {
        for (int r = 0; r < mr; r++) {
            if (ep->act_by_col)
                o2h_act_by_col(e, u + (size_t)r * nr, (size_t)nr, tp->j0);
            else
                o2h_act_row(e, u + (size_t)r * nr, (size_t)nr, ep->chan0 + tp->i0 + r);
        }
    } else if (e && e->act != O2H_ACT_NONE) {
        o2h_act_row(e, u, (size_t)mr * nr, 0);
    }
    for (int r = 0; r < mr; r++)
        o2h_copy_short(tp->c + (ptrdiff_t)(tp->i0 + r) * tp->ldc + tp->j0, u + (size_t)r * nr, nr);
}

#if O2H_VEC

#if defined(__clang__)
#define O2H_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && defined(__OPTIMIZE__)   /* gcc warns of the pragma at -O0 */
#define O2H_UNROLL _Pragma("GCC unroll 16")
#else
#define O2H_UNROLL
#endif

/* acc[r][v] = sum over k < kc of a[k][r] * b[k][v*VL..] */
O2H_INLINE void o2h_ukernel(int mrv, int nvv, int kc, const float *restrict a,
                            const float *restrict b, ptrdiff_t ldb,
                            o2h_vf acc[O2H_MR][O2H_NV])
{
    O2H_UNROLL for (int r = 0; r < mrv; r++)
        O2H_UNROLL for (int v = 0; v < nvv; v++) acc[r][v] = (o2h_vf){0};
    for (int k = 0; k < kc; k++) {
        o2h_vf bv[O2H_NV];
        /* A panels stream from memory when the weights do not fit the cache */
        __builtin_prefetch(a + O2H_MR * O2H_PREFETCH_K);
        O2H_UNROLL for (int v = 0; v < nvv; v++) bv[v] = o2h_vload(b + v * O2H_VL);
        O2H_UNROLL for (int r = 0; r < mrv; r++)
        {
            o2h_vf av = o2h_vset1(a[r]);
            O2H_UNROLL for (int v = 0; v < nvv; v++) acc[r][v] += av * bv[v];
        }
        a += O2H_MR;
        b += ldb;
    }
}

/* The in-register activations over a whole tile, the kind switched on once
 * per tile rather than once per vector. */
O2H_INLINE void o2h_tile_act(int mrv, int nvv, o2h_vf acc[O2H_MR][O2H_NV], const O2hEpilogue *e)
{
    o2h_vf zero = {0};
    switch (e->act) {
    case O2H_ACT_RELU:
        O2H_UNROLL for (int r = 0; r < mrv; r++)
            O2H_UNROLL for (int v = 0; v < nvv; v++) acc[r][v] = o2h_vmax(acc[r][v], zero);
        return;
    case O2H_ACT_CLIP: {
        o2h_vf lo = o2h_vset1(e->alpha), hi = o2h_vset1(e->beta);
        O2H_UNROLL for (int r = 0; r < mrv; r++)
            O2H_UNROLL for (int v = 0; v < nvv; v++)
                acc[r][v] = o2h_vmin(o2h_vmax(acc[r][v], lo), hi);
        return;
    }
    default:
        O2H_UNROLL for (int r = 0; r < mrv; r++)
            O2H_UNROLL for (int v = 0; v < nvv; v++) acc[r][v] = o2h_vact(e, acc[r][v]);
        return;
    }
}

/* Scale, biases and residual (first K block) or the partial sum in C
 * (later K blocks) added to the accumulators, each test once per tile. */
O2H_INLINE void o2h_tile_combine(int mrv, int nvv, o2h_vf acc[O2H_MR][O2H_NV],
                                 const O2hTilePos *tp, const O2hTileEpi *ep)
{
    const float *c0 = tp->c + (ptrdiff_t)tp->i0 * tp->ldc + tp->j0;
    if (ep->scale != 1.0f) {
        o2h_vf sc = o2h_vset1(ep->scale);
        O2H_UNROLL for (int r = 0; r < mrv; r++)
            O2H_UNROLL for (int v = 0; v < nvv; v++) acc[r][v] *= sc;
    }
    if (!tp->first) {
        O2H_UNROLL for (int r = 0; r < mrv; r++)
            O2H_UNROLL for (int v = 0; v < nvv; v++)
                acc[r][v] += o2h_vload(c0 + r * tp->ldc + v * O2H_VL);
        return;
    }
    if (ep->row_bias)
        O2H_UNROLL for (int r = 0; r < mrv; r++)
        {
            o2h_vf rb = o2h_vset1(ep->row_bias[tp->i0 + r]);
            O2H_UNROLL for (int v = 0; v < nvv; v++) acc[r][v] += rb;
        }
    if (ep->col_bias)
        O2H_UNROLL for (int r = 0; r < mrv; r++)
            O2H_UNROLL for (int v = 0; v < nvv; v++)
                acc[r][v] += o2h_vload(ep->col_bias + tp->j0 + v * O2H_VL);
    if (ep->res) {
        const float *rs = ep->res + (ptrdiff_t)tp->i0 * ep->ldr + tp->j0;
        O2H_UNROLL for (int r = 0; r < mrv; r++)
            O2H_UNROLL for (int v = 0; v < nvv; v++)
                acc[r][v] += o2h_vload(rs + r * ep->ldr + v * O2H_VL);
    }
}

/* Store a full tile (all mrv rows and nvv vectors valid) with the epilogue
 * while it is still in registers. */
O2H_INLINE void o2h_tile_store_vec(int mrv, int nvv, o2h_vf acc[O2H_MR][O2H_NV],
                                   const O2hTilePos *tp, const O2hTileEpi *ep)
{
    const O2hEpilogue *e = tp->last ? ep->act : NULL;
    O2hActKind act = e ? e->act : O2H_ACT_NONE;
    int inl = act == O2H_ACT_NONE || o2h_vact_ok(act);
    float *c0 = tp->c + (ptrdiff_t)tp->i0 * tp->ldc + tp->j0;
    o2h_tile_combine(mrv, nvv, acc, tp, ep);
    if (act != O2H_ACT_NONE && inl)
        o2h_tile_act(mrv, nvv, acc, e);
    O2H_UNROLL for (int r = 0; r < mrv; r++)
        O2H_UNROLL for (int v = 0; v < nvv; v++)
            o2h_vstore(c0 + r * tp->ldc + v * O2H_VL, acc[r][v]);
    for (int r = 0; !inl && r < mrv; r++) {
        float *cr = c0 + r * tp->ldc;
        if (ep->act_by_col)
            o2h_act_by_col(e, cr, (size_t)nvv * O2H_VL, tp->j0);
        else
            o2h_act_row(e, cr, (size_t)nvv * O2H_VL, ep->chan0 + tp->i0 + r);
    }
}

/* A ragged tile: the accumulators go through memory to the scalar store
 * (kept apart so the full tiles' accumulators never leave registers). */
static void o2h_tile_run_edge(int mrv, int nvv, int kc, const float *a, const float *b,
                              ptrdiff_t ldb, const O2hTilePos *tp, const O2hTileEpi *ep)
{
    o2h_vf acc[O2H_MR][O2H_NV];
    float t[O2H_MR * O2H_NR];
    o2h_ukernel(mrv, nvv, kc, a, b, ldb, acc);
    for (int r = 0; r < mrv; r++)
        for (int v = 0; v < nvv; v++)
            o2h_vstore(t + r * O2H_NR + v * O2H_VL, acc[r][v]);
    o2h_tile_store_scalar(t, tp, ep);
}

O2H_INLINE void o2h_tile_run(int mrv, int nvv, int kc, const float *a, const float *b,
                             ptrdiff_t ldb, const O2hTilePos *tp, const O2hTileEpi *ep)
{
    if (tp->mr != mrv || tp->nr != nvv * O2H_VL) {
        o2h_tile_run_edge(mrv, nvv, kc, a, b, ldb, tp, ep);
        return;
    }
    o2h_vf acc[O2H_MR][O2H_NV];
    o2h_ukernel(mrv, nvv, kc, a, b, ldb, acc);
    o2h_tile_store_vec(mrv, nvv, acc, tp, ep);
}

#define O2H_TILE_NV(MRV, NVV)                                   \
    do {                                                        \
        if (nv == (NVV)) {                                      \
            o2h_tile_run((MRV), (NVV), kc, a, b, ldb, tp, ep);  \
            return;                                             \
        }                                                       \
    } while (0)

#if O2H_NV == 3
#define O2H_TILE_MR(MRV)          \
    do {                          \
        O2H_TILE_NV((MRV), 3);    \
        O2H_TILE_NV((MRV), 2);    \
        O2H_TILE_NV((MRV), 1);    \
    } while (0)
#else
#define O2H_TILE_MR(MRV)          \
    do {                          \
        O2H_TILE_NV((MRV), 2);    \
        O2H_TILE_NV((MRV), 1);    \
    } while (0)
#endif

/* Pick the compiled variant covering tp->mr rows and nv vectors. */
static void o2h_tile(int nv, int kc, const float *a, const float *b, ptrdiff_t ldb,
                     const O2hTilePos *tp, const O2hTileEpi *ep)
{
    if (tp->mr > 4)
        O2H_TILE_MR(O2H_MR);
    else if (tp->mr > 2)
        O2H_TILE_MR(4);
    else if (tp->mr == 2)
        O2H_TILE_MR(2);
    else
        O2H_TILE_MR(1);
}

/* Ragged column tails of at most 4 columns (a 7x7 map has 49 = 48 + 1):
 * a full-width tile would spend a whole vector per row on one column, so
 * the tail vectorizes along the MR rows of the packed A panel instead, one
 * accumulator per column. */
#if O2H_MR == 8 || O2H_MR == 6 || O2H_MR == 4
#define O2H_TAIL_COLS 4
/* Two 8-row panels side by side fill a 16-float vector (AVX-512): the
 * grouped tail then runs at the full vector width (see o2h_pairs_run). */
#if O2H_VL == 16 && O2H_MR == 8
#define O2H_TAIL_PAIRS 1
#else
#define O2H_TAIL_PAIRS 0
#endif
/* Most row panels summed at once by the grouped tail (o2h_tile_cols_group). */
#define O2H_TAIL_PANELS (O2H_TAIL_PAIRS ? 16 : 8)
/* Lanes of a panel row: MR, or 8 for AVX2's 6 rows. */
#define O2H_TAIL_LANES (O2H_MR == 6 ? 8 : O2H_MR)
typedef float o2h_vm __attribute__((vector_size(O2H_TAIL_LANES * 4)));

/* Row k of a panel. Six rows fill eight lanes by reading on into row k+1
 * (those lanes' sums are never stored), except on the last row, which
 * nothing may follow. */
O2H_INLINE o2h_vm o2h_panel_row(const float *a, int k, int last)
{
    o2h_vm v = {0};
    memcpy(&v, a + (size_t)k * O2H_MR,
           O2H_TAIL_LANES == O2H_MR || !last ? sizeof v : O2H_MR * sizeof(float));
    return v;
}

/* c[q][j] += panel q's row k (panels ast floats apart) times b[k][j]. */
O2H_INLINE void o2h_cols_step(int np, int nc, int k, int last, const float *restrict a,
                              size_t ast, const float *restrict b, ptrdiff_t ldb,
                              o2h_vm c[O2H_TAIL_PANELS][O2H_TAIL_COLS])
{
    float bk[O2H_TAIL_COLS];
    for (int j = 0; j < nc; j++)
        bk[j] = b[(ptrdiff_t)k * ldb + j];
    for (int q = 0; q < np; q++) {
        o2h_vm av = o2h_panel_row(a + q * ast, k, last);
        for (int j = 0; j < nc; j++)
            c[q][j] += av * bk[j];
    }
}

/* Tail tile (tp->i0, tp->j0) and the next np - 1 row panels (all full
 * when np > 1): one accumulator per (panel, column), enough independent
 * FMA chains to hide their latency where one panel alone has nc. */
O2H_INLINE void o2h_cols_run(int np, int nc, int kc, const float *restrict a, size_t ast,
                             const float *restrict b, ptrdiff_t ldb, const O2hTilePos *tp,
                             const O2hTileEpi *ep)
{
    o2h_vm acc[O2H_TAIL_PANELS][O2H_TAIL_COLS];
    float t[O2H_MR * O2H_NR];
    for (int q = 0; q < np; q++)
        for (int j = 0; j < nc; j++)
            acc[q][j] = (o2h_vm){0};
    for (int k = 0; k < kc - 1; k++)
        o2h_cols_step(np, nc, k, 0, a, ast, b, ldb, acc);
    o2h_cols_step(np, nc, kc - 1, 1, a, ast, b, ldb, acc);
    for (int q = 0; q < np; q++) {
        O2hTilePos tq = *tp;
        tq.i0 = tp->i0 + q * O2H_MR;
        for (int j = 0; j < nc; j++)
            for (int r = 0; r < O2H_MR; r++)
                t[r * O2H_NR + j] = acc[q][j][r];
        o2h_tile_store_scalar(t, &tq, ep);
    }
}

#if O2H_TAIL_PAIRS
typedef float o2h_vw __attribute__((vector_size(64)));

/* Row k of panel q (lanes 0-7) beside row k of panel q + 1, ast floats on
 * (lanes 8-15). */
O2H_INLINE o2h_vw o2h_pair_row(const float *a, size_t ast, int k)
{
    o2h_vm lo, hi;
    memcpy(&lo, a + (size_t)k * O2H_MR, sizeof lo);
    memcpy(&hi, a + ast + (size_t)k * O2H_MR, sizeof hi);
    return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

/* o2h_cols_run for an even np >= 2 with panels in pairs: each lane's sum
 * is the same chain of multiply-adds in k order as in o2h_cols_run, at
 * twice the lanes per instruction. */
O2H_INLINE void o2h_pairs_run(int np, int nc, int kc, const float *restrict a, size_t ast,
                              const float *restrict b, ptrdiff_t ldb, const O2hTilePos *tp,
                              const O2hTileEpi *ep)
{
    o2h_vw acc[O2H_TAIL_PANELS / 2][O2H_TAIL_COLS];
    float t[O2H_MR * O2H_NR];
    O2H_UNROLL for (int h = 0; h < np / 2; h++)
        O2H_UNROLL for (int j = 0; j < nc; j++) acc[h][j] = (o2h_vw){0};
    for (int k = 0; k < kc; k++) {
        float bk[O2H_TAIL_COLS];
        O2H_UNROLL for (int j = 0; j < nc; j++) bk[j] = b[(ptrdiff_t)k * ldb + j];
        O2H_UNROLL for (int h = 0; h < np / 2; h++)
        {
            o2h_vw av = o2h_pair_row(a + 2 * h * ast, ast, k);
            O2H_UNROLL for (int j = 0; j < nc; j++) acc[h][j] += av * bk[j];
        }
    }
    for (int q = 0; q < np; q++) {
        O2hTilePos tq = *tp;
        tq.i0 = tp->i0 + q * O2H_MR;
        for (int j = 0; j < nc; j++)
            for (int r = 0; r < O2H_MR; r++)
                t[r * O2H_NR + j] = acc[q / 2][j][q % 2 * O2H_MR + r];
        o2h_tile_store_scalar(t, &tq, ep);
    }
}
#define O2H_TAIL_RUN o2h_pairs_run
#else
#define O2H_TAIL_RUN o2h_cols_run
#endif

#define O2H_COLS_RUN(RUN, NP)                                    \
    do {                                                         \
        switch (tp->nr) {                                        \
        case 1: RUN((NP), 1, kc, a, ast, b, ldb, tp, ep); return; \
        case 2: RUN((NP), 2, kc, a, ast, b, ldb, tp, ep); return; \
        case 3: RUN((NP), 3, kc, a, ast, b, ldb, tp, ep); return; \
        default: RUN((NP), 4, kc, a, ast, b, ldb, tp, ep); return; \
        }                                                        \
    } while (0)

/* Tail tile (tp->i0, tp->j0) and the next np - 1 row panels (np of
 * o2h_tail_group; all full when np > 1). */
static void o2h_tile_cols_group(int np, int kc, const float *a, size_t ast, const float *b,
                                ptrdiff_t ldb, const O2hTilePos *tp, const O2hTileEpi *ep)
{
    if (O2H_TAIL_PAIRS && np == 16) {
        O2H_TAIL_RUN(16, 1, kc, a, ast, b, ldb, tp, ep);
        return;
    }
    if (np == 8 && !O2H_TAIL_PAIRS) {
        o2h_cols_run(8, 1, kc, a, ast, b, ldb, tp, ep);
        return;
    }
    if (np == 8)
        O2H_COLS_RUN(O2H_TAIL_RUN, 8);
    /* pairs only with four or more accumulators: fewer wait on the FMA
     * latency (one column of 4 panels: 2 chains instead of 4) */
    if (np == 4 && tp->nr > 1)
        O2H_COLS_RUN(O2H_TAIL_RUN, 4);
    if (np == 4)
        O2H_COLS_RUN(o2h_cols_run, 4);
    if (np == 2)
        O2H_COLS_RUN(o2h_cols_run, 2);
    O2H_COLS_RUN(o2h_cols_run, 1);
}

/* Row panels the grouped tail of nc columns sums at once, at most left:
 * eight or more accumulators (two FMA pipes of four cycles' latency), a
 * 1-column tail 8 panels. AVX2's 16 registers hold 4 panels of 2 columns
 * and 2 of 3 or 4. In pairs (AVX-512) a vector holds two panels: 16 for
 * one column, 8 for more. */
static int o2h_tail_group(int nc, int left)
{
    int g = O2H_TAIL_PAIRS ? (nc == 1 ? 16 : 8) : nc == 1 ? 8 : O2H_MR == 6 && nc > 2 ? 2 : 4;
    while (g > left)
        g /= 2;
    return g;
}
#endif

#else /* plain C fallback */

static void o2h_tile(int nv, int kc, const float *a, const float *b, ptrdiff_t ldb,
                     const O2hTilePos *tp, const O2hTileEpi *ep)
{
    float t[O2H_MR * O2H_NR];
    int nc = nv * O2H_VL;
    for (int i = 0; i < O2H_MR * O2H_NR; i++)
        t[i] = 0.0f;
    for (int k = 0; k < kc; k++) {
        for (int r = 0; r < tp->mr; r++) {
            float av = a[(size_t)k * O2H_MR + r];
            for (int j = 0; j < nc; j++)
                t[r * O2H_NR + j] += av * b[(ptrdiff_t)k * ldb + j];
        }
    }
    o2h_tile_store_scalar(t, tp, ep);
}

#endif

#ifndef O2H_TAIL_COLS /* no grouped column tail: the tails run as ragged tiles */
#define O2H_TAIL_COLS 0
#define O2H_TAIL_PANELS 1
static void o2h_tile_cols_group(int np, int kc, const float *a, size_t ast, const float *b,
                                ptrdiff_t ldb, const O2hTilePos *tp, const O2hTileEpi *ep)
{
    (void)np; (void)kc; (void)a; (void)ast; (void)b; (void)ldb; (void)tp; (void)ep;
}
static int o2h_tail_group(int nc, int left)
{
    (void)nc; (void)left;
    return 1;
}
#endif

/* Copy a ragged B tile (kc rows, nr columns) into a zero-padded buffer. */
static void o2h_copy_b_edge(int kc, int nr, int width, const float *b, ptrdiff_t ldb,
                            float *dst)
{
    for (int k = 0; k < kc; k++) {
        const float *s = b + (ptrdiff_t)k * ldb;
        float *d = dst + (size_t)k * width;
        int j = 0;
        for (; j < nr; j++)
            d[j] = s[j];
        for (; j < width; j++)
            d[j] = 0.0f;
    }
}

/* K == 0: an empty sum, so C is the epilogue of zero. */
static void o2h_gemm_empty(int M, int N, float *c, ptrdiff_t ldc, const O2hTileEpi *ep)
{
    float t[O2H_MR * O2H_NR] = {0};
    for (int i0 = 0; i0 < M; i0 += O2H_MR)
        for (int j0 = 0; j0 < N; j0 += O2H_NR) {
            O2hTilePos tp = {c, ldc, i0, j0, o2h_mini(O2H_MR, M - i0), o2h_mini(O2H_NR, N - j0),
                             1, 1};
            o2h_tile_store_scalar(t, &tp, ep);
        }
}

/* Columns per outer block: the C block (M x NC) stays in L2 across the
 * K blocks. */
static int o2h_gemm_nc(int M)
{
    int nc = 65536 / (M > 0 ? M : 1) / O2H_NR * O2H_NR;
    return nc < O2H_NR ? O2H_NR : nc;
}

static int o2h_kblock_end(const O2hMatB *B, int K, int pc)
{
    return o2h_kblock_stop(B->seglen, K, pc);
}

/* Address of B row pc, column j0 (unpacked B). */
static const float *o2h_b_row(const O2hMatB *B, int pc, int j0)
{
    if (B->seglen > 0)
        return B->p + B->seg[pc / B->seglen] + (ptrdiff_t)(pc % B->seglen) * B->ld + j0;
    return B->p + (ptrdiff_t)pc * B->ld + j0;
}

/* One K block [pc, pe) of one column block [jc, jend): what every tile of
 * it needs. The last column tile is copied to a zero-padded buffer once
 * per block when its width is ragged (and not a short column tail). */
typedef struct {
    const O2hMatA *A;
    const O2hMatB *B;
    int M, K, pc, pe, jc, jend;
    int jlast;              /* first column of the last tile */
    const float *blast;     /* its copied B tile, or NULL */
    ptrdiff_t ldlast;
    const float *bp;        /* columns [jc, jbp) packed: tiles of [kc][NR], or NULL */
    int jbp;
    float *c;
    ptrdiff_t ldc;
    const O2hTileEpi *ep;
} O2hKBlock;

static int o2h_is_tail_cols(const O2hMatB *B, int nr)
{
    return !B->packed && nr <= O2H_TAIL_COLS && nr < O2H_VL;
}

/* Whether an AVX2 build copies B's K blocks into contiguous tiles: a
 * 6x16 tile reads one 64-byte line per B row, and read in place those
 * lines lie a feature map apart. Measured on Zen 4 (1 MB of L2 per core;
 * x86-64-v3, one thread, each pointwise conv of MobileNetV1/V2 and MnasNet
 * in its program, input fresh from the layer before): copied, 7x7 maps ran
 * 3-14% faster (128 or more output channels) and 14x14 maps 1-4% faster
 * with 384 or more; 14x14 maps with 64-96 channels ran 4-21% slower, and
 * 28x28 to 112x112 maps, whose rows are long enough for the prefetcher,
 * 0-12% slower (K = 8 17% slower even in cold caches). On Zen 3 (512 KB of
 * L2, where a 256 KB C block and a B block of up to 256 KB fill it) the
 * large maps with 128 or more output channels ran 2-9% faster copied
 * (MobileNetV1 64->128 @56x56 to 256->256 @28x28, MobileNetV2 24->144
 * @56x56, EfficientNet-B0 40->240 @28x28; the same alternated in one
 * process), while 40-72 channels ran 0-8% slower; so large maps are copied
 * where L2 is 512 KB or less. AVX-512's 48-column tiles read three lines per
 * row and ran 0-15% slower copied, so other builds read B in place. */
static int o2h_bpack_wanted(int M, int K, ptrdiff_t ldb)
{
#if O2H_VEC && O2H_VL == 8
    if (M < 128 || K < 16)
        return 0;
    if (ldb < 256)
        return 1;
    long l2 = o2h_l2_bytes();
    return l2 > 0 && l2 <= 512 * 1024;
#else
    (void)M, (void)K, (void)ldb;
    return 0;
#endif
}

size_t o2h_gemm_bpack_size(int M, int N, int K, ptrdiff_t ldb)
{
    if (!o2h_bpack_wanted(M, K, ldb) || N <= 0)
        return 0;
    int ncb = o2h_gemm_nc(M), cols = N < ncb + O2H_NR - 1 ? N : ncb + O2H_NR - 1;
    return (size_t)(K < O2H_KC ? K : O2H_KC) * (size_t)((cols + O2H_NR - 1) / O2H_NR * O2H_NR);
}

/* Copy the K block's columns [jc, jbp) of B (all but a short column tail)
 * into bp as tiles of [kc][NR], the last one zero-padded. */
static void o2h_kblock_pack(O2hKBlock *kb, float *bp)
{
    int kc = kb->pe - kb->pc, jt = kb->jend;
    if (o2h_is_tail_cols(kb->B, kb->jend - kb->jlast))
        jt = kb->jlast;
    float *d = bp;
    for (int j0 = kb->jc; j0 < jt; j0 += O2H_NR) {
        int nr = o2h_mini(O2H_NR, jt - j0);
        for (int k = 0; k < kc; k++, d += O2H_NR) {
            const float *s = o2h_b_row(kb->B, kb->pc + k, j0);
            if (nr == O2H_NR) {
                memcpy(d, s, O2H_NR * sizeof *d);
                continue;
            }
            for (int j = 0; j < O2H_NR; j++)
                d[j] = j < nr ? s[j] : 0.0f;
        }
    }
    kb->bp = bp;
    kb->jbp = jt;
}

static void o2h_kblock_init(O2hKBlock *kb, float *bedge, float *bpack)
{
    int nr = kb->jend - kb->jlast, kc = kb->pe - kb->pc;
    kb->blast = NULL;
    if (bpack)
        o2h_kblock_pack(kb, bpack);
    if (kb->B->packed || kb->jbp > kb->jlast || o2h_is_tail_cols(kb->B, nr) || nr % O2H_VL == 0)
        return;
    int width = (nr + O2H_VL - 1) / O2H_VL * O2H_VL;
    o2h_copy_b_edge(kc, nr, width, o2h_b_row(kb->B, kb->pc, kb->jlast), kb->B->ld, bedge);
    kb->blast = bedge;
    kb->ldlast = width;
}

/* Tile (i0, j0) of the K block with A panel a. */
static void o2h_kblock_tile(const O2hKBlock *kb, const float *a, int i0, int j0)
{
    const O2hMatB *B = kb->B;
    int nr = o2h_mini(O2H_NR, kb->jend - j0), kc = kb->pe - kb->pc;
    O2hTilePos tp = {kb->c, kb->ldc, i0, j0, o2h_mini(O2H_MR, kb->M - i0), nr, kb->pc == 0,
                     kb->pe == kb->K};
    const float *b;
    ptrdiff_t ldb = B->ld;
    if (B->packed) {
        b = B->p + (size_t)(j0 / O2H_NR) * kb->K * O2H_NR + (size_t)kb->pc * O2H_NR;
        ldb = O2H_NR;
    } else if (j0 < kb->jbp) {
        b = kb->bp + (size_t)((j0 - kb->jc) / O2H_NR) * kc * O2H_NR;
        ldb = O2H_NR;
    } else if (j0 == kb->jlast && kb->blast) {
        b = kb->blast;
        ldb = kb->ldlast;
    } else {
        b = o2h_b_row(B, kb->pc, j0);
        if (o2h_is_tail_cols(B, nr)) {
            o2h_tile_cols_group(1, kc, a, 0, b, ldb, &tp, kb->ep);
            return;
        }
    }
    o2h_tile((nr + O2H_VL - 1) / O2H_VL, kc, a, b, ldb, &tp, kb->ep);
}

/* The A panel for rows [i0, i0+MR) and K rows [pc, pc+kc). */
static const float *o2h_a_panel(const O2hMatA *A, int M, int i0, int pc, int kc,
                                float *apan)
{
    if (A->packed)
        return A->p + (size_t)pc * (size_t)((M + O2H_MR - 1) / O2H_MR * O2H_MR) +
               (size_t)i0 * kc;
    for (int r = 0; r < O2H_MR; r++) {
        if (i0 + r >= M) {
            for (int k = 0; k < kc; k++)
                apan[k * O2H_MR + r] = 0.0f;
            continue;
        }
        const float *src = A->p + (ptrdiff_t)(i0 + r) * A->rs + (ptrdiff_t)pc * A->ks;
        for (int k = 0; k < kc; k++)
            apan[k * O2H_MR + r] = src[(ptrdiff_t)k * A->ks];
    }
    return apan;
}

/* The short column tail of the np full row panels from row i0 (packed A),
 * summed together. */
static void o2h_kblock_tail(const O2hKBlock *kb, int i0, int np)
{
    int kc = kb->pe - kb->pc;
    O2hTilePos tp = {kb->c, kb->ldc, i0, kb->jlast, O2H_MR, kb->jend - kb->jlast, kb->pc == 0,
                     kb->pe == kb->K};
    o2h_tile_cols_group(np, kc, o2h_a_panel(kb->A, kb->M, i0, kb->pc, kc, NULL),
                        (size_t)O2H_MR * kc, o2h_b_row(kb->B, kb->pc, kb->jlast), kb->B->ld, &tp,
                        kb->ep);
}

/* Row panels outer, each panel's A in L1 over its column tiles. With a
 * grouped tail (full panels [0, mgrp)), each group's tiles go first and
 * then its tail, while the group's A is still in L1 or L2: after the
 * whole K block it would stream again from L3 or memory (a 1024-row block
 * is 1 MB), which set the pace of a 1-column tail. */
static void o2h_kblock_rows(const O2hKBlock *kb, int mgrp, float *apan)
{
    int kc = kb->pe - kb->pc;
    for (int i0 = 0, np; i0 < kb->M; i0 += np * O2H_MR) {
        int grp = i0 < mgrp, jstop = grp ? kb->jlast : kb->jend;
        np = grp ? o2h_tail_group(kb->jend - kb->jlast, (mgrp - i0) / O2H_MR) : 1;
        for (int q = 0; q < np; q++) {
            int iq = i0 + q * O2H_MR;
            const float *a = o2h_a_panel(kb->A, kb->M, iq, kb->pc, kc, apan);
            for (int j0 = kb->jc; j0 < jstop; j0 += O2H_NR)
                o2h_kblock_tile(kb, a, iq, j0);
        }
        if (grp)
            o2h_kblock_tail(kb, i0, np);
    }
}

/* Floats of one K block of B kept in L2 while the row panels take turns:
 * below this the A panel is the inner reuse (rows outside, each panel read
 * once per K block), above it the B tile is (columns outside). */
#define O2H_B_BLOCK_L2 65536

/* Loop nest: column blocks of NC (C block in L2) > K blocks of KC > then
 * either column tiles of NR (B tile in L1) > row panels of MR, or, when the
 * B block is small or A must be packed on the fly, the other way round. */
static void o2h_gemm_blocked(int M, int N, int K, const O2hMatA *A, const O2hMatB *B,
                             float *c, ptrdiff_t ldc, const O2hTileEpi *ep, float *bpack)
{
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0) {
        o2h_gemm_empty(M, N, c, ldc, ep);
        return;
    }
    float apan[O2H_KC * O2H_MR];
    float bedge[O2H_KC * O2H_NR];
    int ncb = o2h_gemm_nc(M);
    for (int jc = 0, jend; jc < N; jc = jend) {
        /* fewer columns than a tile left over join this block: a block of
         * their own would stream all of A again for them */
        jend = N - (jc + ncb) < O2H_NR ? N : jc + ncb;
        for (int pc = 0; pc < K;) {
            int pe = o2h_kblock_end(B, K, pc), kc = pe - pc;
            O2hKBlock kb = {A, B, M, K, pc, pe, jc, jend, jc + (jend - jc - 1) / O2H_NR * O2H_NR,
                            NULL, 0, NULL, jc, c, ldc, ep};
            int rows = !A->packed || (size_t)kc * (size_t)(jend - jc) <= O2H_B_BLOCK_L2;
            o2h_kblock_init(&kb, bedge, rows ? bpack : NULL);
            /* a short column tail of packed A: its full row panels [0, mgrp)
             * go by groups of panels */
            int mgrp = 0;
            if (A->packed && O2H_TAIL_PANELS > 1 && o2h_is_tail_cols(B, jend - kb.jlast))
                mgrp = M / O2H_MR * O2H_MR;
            if (rows) {
                o2h_kblock_rows(&kb, mgrp, apan);
            } else {
                for (int j0 = jc; j0 < jend; j0 += O2H_NR)
                    for (int i0 = j0 == kb.jlast ? mgrp : 0; i0 < M; i0 += O2H_MR)
                        o2h_kblock_tile(&kb, o2h_a_panel(A, M, i0, pc, kc, apan), i0, j0);
                for (int i0 = 0, np; i0 < mgrp; i0 += np * O2H_MR) {
                    np = o2h_tail_group(jend - kb.jlast, (mgrp - i0) / O2H_MR);
                    o2h_kblock_tail(&kb, i0, np);
                }
            }
            pc = pe;
        }
    }
}

void o2h_gemm_core(int M, int N, int K, const float *ap, const float *b, ptrdiff_t ldb,
                   float *c, ptrdiff_t ldc, const O2hTileEpi *ep, float *bpack)
{
    O2hMatA A = {ap, 0, 0, 1};
    O2hMatB B = {b, ldb, 0, 0, NULL};
    if (!o2h_bpack_wanted(M, K, ldb))
        bpack = NULL;
    o2h_gemm_blocked(M, N, K, &A, &B, c, ldc, ep, bpack);
}

void o2h_gemm_core_seg(int M, int N, int nseg, int seglen, const float *ap, const float *b,
                       const size_t *seg, ptrdiff_t ldb, float *c, ptrdiff_t ldc,
                       const O2hTileEpi *ep)
{
    O2hMatA A = {ap, 0, 0, 1};
    O2hMatB B = {b, ldb, 0, seglen, seg};
    o2h_gemm_blocked(M, N, nseg * seglen, &A, &B, c, ldc, ep, NULL);
}

/* ---------------------------------------------------------------- Gemm op */

size_t o2h_gemm_packed_size(const O2hGemm *p)
{
    return (size_t)((p->N + O2H_NR - 1) / O2H_NR) * O2H_NR * (size_t)p->K;
}

void o2h_gemm_pack_b(const O2hGemm *p, const float *b, float *b_packed)
{
    int N = p->N, K = p->K;
    for (int j0 = 0; j0 < N; j0 += O2H_NR) {
        float *pp = b_packed + (size_t)j0 * K;
        for (int k = 0; k < K; k++)
            for (int j = 0; j < O2H_NR; j++) {
                int n = j0 + j;
                float v = 0.0f;
                if (n < N)
                    v = p->trans_b ? b[(size_t)n * K + k] : b[(size_t)k * N + n];
                pp[(size_t)k * O2H_NR + j] = v;
            }
    }
}

size_t o2h_gemm_scratch_size(const O2hGemm *p)
{
    (void)p;
    return 0;
}

/* Add beta*C broadcast from c_rows x c_cols to M x N. */
static void o2h_gemm_add_c(const O2hGemm *p, const float *c, float *y)
{
    for (int i = 0; i < p->M; i++)
        for (int j = 0; j < p->N; j++) {
            int ci = p->c_rows == 1 ? 0 : i, cj = p->c_cols == 1 ? 0 : j;
            y[(size_t)i * p->N + j] += p->beta * c[(size_t)ci * p->c_cols + cj];
        }
}

/* Map beta*C onto the tile epilogue (row bias, column bias or a full
 * matrix); returns 1 when it does not fit and C is added in a second pass. */
static int o2h_gemm_map_c(const O2hGemm *p, const float *c, O2hTileEpi *ep)
{
    int M = p->M, N = p->N;
    if (!c || p->c_rows <= 0 || p->c_cols <= 0 || p->beta == 0.0f)
        return 0;
    if (p->beta != 1.0f)
        return 1;
    if (p->c_rows == M && p->c_cols == N && !ep->res) {
        ep->res = c;
        ep->ldr = N;
        return 0;
    }
    if (p->c_rows == 1 && p->c_cols == N) {
        ep->col_bias = c;
        return 0;
    }
    if (p->c_rows == M && p->c_cols == 1) {
        ep->row_bias = c;
        return 0;
    }
    return 1;
}

#if O2H_VEC
/* K rows of a B panel prefetched ahead in the one-row product. */
#ifndef O2H_GEMV_AHEAD
#define O2H_GEMV_AHEAD 16
#endif
/* Panels summed side by side by the one-row product: np * NV running sums,
 * enough independent FMA chains to hide their latency where one panel has
 * only NV (the product's pace was the chain, not the stream of B). */
#define O2H_GEMV_PANELS 4

/* s[q] += the sum of rows [k0, k1) of panel q (panels pst floats apart)
 * times a, in k order, prefetching ahead. One running sum per vector, as
 * in the tiles: the same order of additions as a blocked GEMM (ONNX
 * Runtime's too), whatever np is. */
O2H_INLINE void o2h_gemv_block(int np, int k0, int k1, const float *restrict a,
                               const float *restrict bp, size_t pst,
                               o2h_vf s[O2H_GEMV_PANELS][O2H_NV])
{
    o2h_vf c[O2H_GEMV_PANELS][O2H_NV];
    O2H_UNROLL for (int q = 0; q < np; q++)
        O2H_UNROLL for (int v = 0; v < O2H_NV; v++) c[q][v] = (o2h_vf){0};
    for (int k = k0; k < k1; k++) {
        o2h_vf x = o2h_vset1(a[k]);
        O2H_UNROLL for (int q = 0; q < np; q++)
        {
            const float *r = bp + q * pst + (size_t)k * O2H_NR;
            for (int u = 0; u < O2H_NR; u += 16)
                __builtin_prefetch(r + O2H_GEMV_AHEAD * O2H_NR + u);
            O2H_UNROLL for (int v = 0; v < O2H_NV; v++) c[q][v] += x * o2h_vload(r + v * O2H_VL);
        }
    }
    O2H_UNROLL for (int q = 0; q < np; q++)
        O2H_UNROLL for (int v = 0; v < O2H_NV; v++) s[q][v] += c[q][v];
}

/* t[q*NR + 0..NR) = sum over k of a[k] * panel q [k][0..NR) for np
 * consecutive packed panels: each panel read as one stream, summed in
 * blocks of KC as the tiles are (a single running sum over a long K would
 * round more). */
O2H_INLINE void o2h_gemv_panels(int np, int K, const float *restrict a,
                                const float *restrict bp, float *t)
{
    o2h_vf s[O2H_GEMV_PANELS][O2H_NV];
    size_t pst = (size_t)K * O2H_NR;
    O2H_UNROLL for (int q = 0; q < np; q++)
        O2H_UNROLL for (int v = 0; v < O2H_NV; v++) s[q][v] = (o2h_vf){0};
    for (int k0 = 0; k0 < K; k0 += O2H_KC)
        o2h_gemv_block(np, k0, o2h_mini(K, k0 + O2H_KC), a, bp, pst, s);
    O2H_UNROLL for (int q = 0; q < np; q++)
        O2H_UNROLL for (int v = 0; v < O2H_NV; v++) o2h_vstore(t + q * O2H_NR + v * O2H_VL, s[q][v]);
}

/* A Gemm of one row (a fully connected layer at batch 1) is bound by
 * reading B: each packed panel in one pass over all of K, no K blocks
 * whose partial sums go through C, O2H_GEMV_PANELS panels at a time (the
 * rest one by one), then the epilogue on the row. */
static void o2h_gemv(int N, int K, const float *a, const float *bp, float *y, const O2hTileEpi *ep)
{
    float t[O2H_GEMV_PANELS * O2H_NR];
    int npan = (N + O2H_NR - 1) / O2H_NR;
    for (int p0 = 0, np; p0 < npan; p0 += np) {
        np = npan - p0 >= O2H_GEMV_PANELS ? O2H_GEMV_PANELS : 1;
        if (np == O2H_GEMV_PANELS)
            o2h_gemv_panels(O2H_GEMV_PANELS, K, a, bp + (size_t)p0 * O2H_NR * K, t);
        else
            o2h_gemv_panels(1, K, a, bp + (size_t)p0 * O2H_NR * K, t);
        for (int q = 0; q < np; q++) {
            int j0 = (p0 + q) * O2H_NR;
            O2hTilePos tp = {y, N, 0, j0, 1, o2h_mini(O2H_NR, N - j0), 1, 1};
            o2h_tile_store_scalar(t + q * O2H_NR, &tp, ep);
        }
    }
}
#endif

void o2h_gemm_f32(const O2hGemm *p, const float *a, const float *b, const float *c,
                  const O2hEpilogue *e, float *y, float *scratch)
{
    int M = p->M, N = p->N, K = p->K;
    O2hMatA A = {a, p->trans_a ? 1 : K, p->trans_a ? M : 1, 0};
    O2hMatB B = {b, N, 1, 0, NULL};
    O2hTileEpi ep = {p->alpha, NULL, NULL, NULL, 0, e, 0, 1};
    (void)scratch;
    if (e && e->residual) {
        ep.res = e->residual;
        ep.ldr = N;
    }
    int slow = o2h_gemm_map_c(p, c, &ep);
    if (slow)
        ep.act = NULL;
#if O2H_VEC
    if (M == 1 && K > 0)
        o2h_gemv(N, K, a, b, y, &ep);
    else
#endif
        o2h_gemm_blocked(M, N, K, &A, &B, y, N, &ep, NULL);
    if (slow) {
        o2h_gemm_add_c(p, c, y);
        for (int i = 0; e && i < M; i++)
            o2h_act_by_col(e, y + (size_t)i * N, (size_t)N, 0);
    }
}

/* -------------------------------------------------------------- MatMul op */

/* Offset of batch index `bi` (over the output's batch dims) into an operand
 * whose batch dims may be 1 (broadcast). */
static size_t o2h_bcast_offset(const O2hMatMul *p, const int64_t *dims, int64_t bi)
{
    size_t off = 0, stride = 1;
    for (int d = p->rank - 3; d >= 0; d--) {
        int64_t yd = p->y_dims[d];
        int64_t idx = bi % yd;
        bi /= yd;
        if (dims[d] != 1)
            off += (size_t)idx * stride;
        stride *= (size_t)dims[d];
    }
    return off;
}

void o2h_matmul_f32(const O2hMatMul *p, const float *a, const float *b, float *y)
{
    int r = p->rank;
    int M = (int)p->y_dims[r - 2], N = (int)p->y_dims[r - 1], K = (int)p->a_dims[r - 1];
    int64_t batches = 1;
    O2hTileEpi ep = {1.0f, NULL, NULL, NULL, 0, NULL, 0, 0};
    for (int d = 0; d < r - 2; d++)
        batches *= p->y_dims[d];
    for (int64_t bi = 0; bi < batches; bi++) {
        const float *ab = a + o2h_bcast_offset(p, p->a_dims, bi) * (size_t)M * K;
        const float *bb = b + o2h_bcast_offset(p, p->b_dims, bi) * (size_t)K * N;
        float *yb = y + (size_t)bi * M * N;
        O2hMatA A = {ab, K, 1, 0};
        O2hMatB B = {bb, N, 0, 0, NULL};
        o2h_gemm_blocked(M, N, K, &A, &B, yb, N, &ep, NULL);
    }
}
