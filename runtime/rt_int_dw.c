/* rt_int_dw.c - int8 depthwise convolution (groups = channels = filters).
 *
 * Why not the panel product: a depthwise filter reduces over its own KHxKW
 * taps only, so its products need another layout to use wide multiplies.
 * Four forms, all exact:
 *  - AVX-512 VBMI + VNNI, filters wider than 3: one vpermb turns 64 bytes
 *    of a padded input row into 16 lanes of 4 consecutive taps (stride and
 *    dilation are in the byte indices), so a 5x5 filter is 5 x 2 loads,
 *    vpermb and vpdpbusd per 16 outputs, requantized in registers;
 *  - AVX2, 3x3 of stride 2 on planes over 28x28 and of stride 1 over
 *    32x32: int16 (x - x_zero) planes of horizontal tap pairs, one
 *    vpmaddwd for two taps of 8 outputs (o2h_dwi_*);
 *  - AVX2, 3x3 of stride 2 on smaller planes and of stride 1 on planes
 *    up to 32x32: channels in lanes, 8 per vector, on a padded block of
 *    int16 tap pairs and vpmaddwd (stride 1) or of float x and FMAs
 *    (stride 2), per-lane requantization (o2h_dwl_*);
 *  - everywhere else, the taps run through the float depthwise kernel
 *    (rt_conv.c) on (x - x_zero): every product and every partial sum is an
 *    integer below 2^24 in magnitude (at most 64 taps of 255 * 127), which
 *    float32 holds exactly, so the float FMA loops give the exact integer
 *    sum in whatever order; the sum is then converted back, the bias added
 *    in int32 and the row requantized.
 * Pads read x_zero (docs/numerics.md 4.1): with x - x_zero the float
 * kernel's zero pads are exactly that, and the bias gets x_zero * sum(w)
 * back since the compiler folded -x_zero * sum(w) into it. */
#include "rt_internal.h"
#include "rt_int_requant.h"

#if O2H_I8 == O2H_I8_VNNI512 && defined(__AVX512VBMI__)
#define O2H_DW_VBMI 1
#define O2H_DW_TABLE_VECS 64   /* most vectors in one period of the flat output order */
#define O2H_DW_TAPS 128        /* (kernel row, quad of taps) pairs: KH*ceil(KW/4) <= 64 taps */
#endif

#if defined(O2H_DW_VBMI)
static int o2h_dw_span_ok(const O2hConv2d *p, int span)
{
    return span + (p->KW < 4 ? p->KW - 1 : 3) * p->DW <= 63;
}

/* input offset (padded plane, tap 0) of flat output i */
static int o2h_dw_off(const O2hConv2d *p, int wp, int i)
{
    return i / p->WO * p->SH * wp + i % p->WO * p->SW;
}

/* Vectors per period of the flat output order: 16 * T outputs are R whole
 * rows, so vector k = q * T + t starts q * R rows below vector t. */
static int o2h_dw_period(const O2hConv2d *p, int *rows)
{
    int g = 16;
    while (p->WO % g)
        g /= 2;
    *rows = 16 / g;
    return p->WO / g;
}

/* 3 columns fill 3 of a quad's 4 byte lanes, and there the float kernels
 * (row vectors and shuffles) measured 4-14% faster in MobileNetV2 and
 * MnasNet; wider filters (5x5: two quads a row) are faster here. */
static int o2h_dw_vbmi_mode(const O2hConv2d *p)
{
    if (p->KW <= 3)
        return 0;
    int wp = p->W + p->PL + p->PR, R, T = o2h_dw_period(p, &R), ok = T <= O2H_DW_TABLE_VECS;
    for (int t = 0; t < T && ok; t++)
        ok = o2h_dw_span_ok(p, o2h_dw_off(p, wp, 16 * t + 15) - o2h_dw_off(p, wp, 16 * t));
    if (ok)
        return 1;
    return o2h_dw_span_ok(p, 15 * p->SW) ? 2 : 0;
}

#else
static int o2h_dw_vbmi_mode(const O2hConv2d *p)
{
    (void)p;
    return 0;
}
#endif

/* float-exact form: float planes per chunk of channels (aimed at L2) */
#define O2H_DW_CHUNK_FLOATS 32768

static int o2h_dw_lanes(const O2hConv2d *p);
static int o2h_dwl_pairs(const O2hConv2d *p);

/* Packed: VBMI weights [C][KH][ceil(KW/4)][4] bytes, int16 weight pairs
 * [ceil(C/8)][6][8] (channels in lanes, lanes past C 0; in the space of
 * [C][9] floats) or float weights [C][KH*KW]; then int32 bias[C] and
 * (the other forms) int32 sum(w)[C]. */
static size_t o2h_dw_wbytes(const O2hConv2d *p)
{
    size_t per = o2h_dw_vbmi_mode(p) ? (size_t)p->KH * ((p->KW + 3) / 4) * 4 : (size_t)p->KH * p->KW * 4;
    size_t c = o2h_dw_lanes(p) ? ((size_t)p->C + 7) & ~(size_t)7 : (size_t)p->C;
    return (c * per + 63) & ~(size_t)63;
}

size_t o2h_dw_s8_packed_bytes(const O2hConv2d *p)
{
    return o2h_dw_wbytes(p) + (size_t)p->C * 8;
}

/* The largest packed form over instruction sets. */
size_t o2h_dw_s8_packed_bytes_max(const O2hConv2d *p)
{
    return (((((size_t)p->C + 7) & ~(size_t)7) * p->KH * p->KW * 4 + 63) & ~(size_t)63) + (size_t)p->C * 8;
}

void o2h_dw_s8_pack(const O2hConv2d *p, const int8_t *w, const int32_t *bias, void *packed)
{
    int vbmi = o2h_dw_vbmi_mode(p) != 0, kk = p->KH * p->KW, nq = (p->KW + 3) / 4;
    int lanes = o2h_dw_lanes(p) ? 2 - o2h_dwl_pairs(p) : 0;   /* 1: int16 pairs, 2: floats */
    unsigned char *wb = packed;
    float *wf = packed;
    uint32_t *wp = packed;
    int32_t *b = (int32_t *)(void *)(wb + o2h_dw_wbytes(p)), *sum = b + p->C;
    memset(packed, 0, o2h_dw_wbytes(p));
    for (int c = 0; c < p->C; c++) {
        const int8_t *wc = w + (int64_t)c * kk;
        int64_t s = 0;
        for (int t = 0; t < kk; t++)
            s += wc[t];
        for (int t = 0; t < (vbmi ? p->KH * nq * 4 : kk); t++) {
            int kh = t / (nq * 4), kw = t % (nq * 4);
            if (vbmi)
                wb[(size_t)c * p->KH * nq * 4 + t] = (unsigned char)(kw < p->KW ? wc[kh * p->KW + kw] : 0);
            else if (lanes != 1)
                wf[lanes ? (size_t)c / 8 * 8 * kk + (size_t)t * 8 + c % 8 : (size_t)c * kk + t] = (float)wc[t];
        }
        for (int t = 0; lanes == 1 && t < 6; t++)   /* (w0, w1), (w2, 0) of each kernel row */
            wp[(size_t)c / 8 * 48 + (size_t)t * 8 + c % 8] =
                (uint16_t)wc[t / 2 * 3 + t % 2 * 2] | (t % 2 ? 0u : (uint32_t)(uint16_t)wc[t / 2 * 3 + 1] << 16);
        b[c] = (int32_t)((int64_t)bias[c] - (vbmi ? 128 * s : 0));
        sum[c] = (int32_t)s;
    }
}

/* channels per chunk of the float form: at least 2, since the float
 * kernel takes groups == channels == 1 for an ordinary conv */
static int o2h_dw_chunk(const O2hConv2d *p)
{
    int64_t per = (int64_t)p->H * p->W + (int64_t)p->HO * p->WO;
    int64_t n = O2H_DW_CHUNK_FLOATS / (per > 0 ? per : 1);
    return n < 2 ? 2 : n > p->C ? p->C : (int)n;
}

static O2hConv2d o2h_dw_chunk_desc(const O2hConv2d *p, int n)
{
    O2hConv2d q = *p;
    q.N = 1;
    q.C = q.F = q.G = n;
    return q;
}


/* AVX2 3x3, stride 1 or 2: exact int16 products, no floats. The input
 * plane becomes int16 x - x_zero (pads 0) in planes of dwords, each a
 * pair of horizontally adjacent taps, so one vpmaddwd gives two taps of 8
 * outputs and the third tap is a pair weighted (w, 0):
 *  - stride 1: one pair plane, dword c of a row = (x[c], x[c + 1]) built
 *    by one byte unpack of the row and its shift; taps 0,1 at c = ow and
 *    tap 2 at c = ow + 2;
 *  - stride 2: the padded rows themselves as int16, even rows in one
 *    plane and odd rows in another; dword c = (x[2c], x[2c + 1]) holds
 *    taps 0,1 of output c and dword c + 1 tap 2.
 * Rows are L dwords apart and outputs follow the flat [HO][L] order, so
 * output j is the sum of 6 products at j + off[t] over the whole plane,
 * with no per-row set-up (the columns past WO are computed and dropped).
 * |x - x_zero| <= 255 and |w| <= 128 keep every pair sum and the 9-tap
 * sum far inside int32; the bias is added in int32 and the sums are
 * requantized in registers, 32 at a time. */
#if defined(O2H_RQ_VL) && O2H_RQ_VL == 8 && O2H_VL == 8
#define O2H_DWI 1
#endif

/* Input planes above which the form is faster than the others: at
 * x86-64-v3, stride 2 112x112 0.78x the time of the float kernel, 56x56
 * 0.84x, 28x28 1.08x (MobileNetV2); stride 1, against the channels-in-
 * lanes form (144 channels, one call, since the plane-wide row fill):
 * 56x56 0.86x, 36x36 0.92x, 32x32 0.99x, 28x28 1.07x. */
#define O2H_DWI_MIN_PIX_S1 1024
#define O2H_DWI_MIN_PIX_S2 784

static int o2h_dwi_ok(const O2hConv2d *p)
{
    return p->KH == 3 && p->KW == 3 && p->SH == p->SW && (p->SH == 1 || p->SH == 2) && p->DH == 1 &&
           p->DW == 1 && p->PT >= 0 && p->PL >= 0 && p->PB >= 0 && p->PR >= 0 && p->HO > 0 && p->WO > 0 &&
           p->WO < 8192 &&   /* int16 column indices */
           (int64_t)p->H * p->W > (p->SH == 1 ? O2H_DWI_MIN_PIX_S1 : O2H_DWI_MIN_PIX_S2);
}

/* dwords per row */
static int o2h_dwi_len(const O2hConv2d *p)
{
    return p->WO + 3 - p->SW;
}

/* dwords per plane: HO + 2 rows, the last block's overrun and slack */
static size_t o2h_dwi_plane(const O2hConv2d *p)
{
    return ((size_t)(p->HO + 2) * o2h_dwi_len(p) + 48 + 15) & ~(size_t)15;
}

static size_t o2h_dwi_bytes(const O2hConv2d *p)
{
    return ((size_t)p->HO * o2h_dwi_len(p) + 32 + 63) & ~(size_t)63;
}

/* two sets of (stride) planes and two byte planes */
static size_t o2h_dwi_scratch(const O2hConv2d *p)
{
    return 2 * ((size_t)p->SH * o2h_dwi_plane(p) * 4 + o2h_dwi_bytes(p)) + 64;
}

#if defined(O2H_DWI)
/* Output rows from yb (L apart) to y: whole 8- to 32-byte copies that run
 * into the next rows or plane (written after), exact where they would run
 * past the end of the tensor (last: this is its last plane). */
static void o2h_dw_rows_out(const O2hConv2d *p, int L, const int8_t *yb, int last, int8_t *y)
{
    int step = p->WO <= 8 ? 8 : p->WO <= 16 ? 16 : 32, span = (p->WO + step - 1) / step * step;
    for (int oh = 0; oh < p->HO; oh++) {
        const int8_t *s = yb + (size_t)oh * L;
        int8_t *d = y + (size_t)oh * p->WO;
        if (last && oh * p->WO + span > p->HO * p->WO)
            memcpy(d, s, (size_t)p->WO);
        else if (step == 8)
            memcpy(d, s, 8);
        else if (step == 16)
            _mm_storeu_si128((__m128i *)(void *)d, _mm_loadu_si128((const __m128i *)(const void *)s));
        else
            for (int k = 0; k < p->WO; k += 32)
                _mm256_storeu_si256((__m256i *)(void *)(d + k), _mm256_loadu_si256((const __m256i *)(const void *)(s + k)));
    }
}

typedef struct {
    const int8_t *x;    /* the whole input tensor, len bytes (loads stay inside) */
    int64_t len;
    int L, n;           /* dwords per row, flat outputs HO * L */
    size_t ph;          /* dwords per plane */
    __m256i z16;        /* x_zero in every int16 lane */
    __m256i col[2];     /* input column - PL of each int16 lane (c = 0) */
    __m256i wm1;        /* W - 1 in every int16 lane */
    int64_t off[6];     /* dword offsets of the 6 pairs */
} O2hDwi;

/* 16 bytes of x from index i at the tensor's ends: bytes outside it read
 * as 0 (they land in pads, masked after) */
static __attribute__((noinline)) __m128i o2h_dwi_load_edge(const O2hDwi *f, int64_t i)
{
    int8_t t[16];
    for (int k = 0; k < 16; k++)
        t[k] = i + k >= 0 && i + k < f->len ? f->x[i + k] : 0;
    return _mm_loadu_si128((const __m128i *)(const void *)t);
}

O2H_I_INLINE __m128i o2h_dwi_load(const O2hDwi *f, int64_t i)
{
    if (i >= 0 && i + 16 <= f->len)
        return _mm_loadu_si128((const __m128i *)(const void *)(f->x + i));
    return o2h_dwi_load_edge(f, i);
}

/* all ones in the lanes whose input column (col + c) is inside the row */
O2H_I_INLINE __m256i o2h_dwi_in(const O2hDwi *f, __m256i col, int c)
{
    __m256i u = _mm256_add_epi16(col, _mm256_set1_epi16((short)c));
    return _mm256_cmpeq_epi16(_mm256_min_epu16(u, f->wm1), u);
}

/* v - x_zero, lanes whose input column (col + c) is outside the row 0 */
O2H_I_INLINE __m256i o2h_dwi_edge(const O2hDwi *f, __m256i v, __m256i col, int c)
{
    return _mm256_and_si256(_mm256_sub_epi16(v, f->z16), o2h_dwi_in(f, col, c));
}

/* Input row xi (tensor index of its column 0) as padded row v of the
 * planes at buf: whole vectors of 16 columns, running past the row into
 * the next one (written after); vectors over the pads (the last one
 * included) load with bounds checks and mask the pad lanes to 0. */
static void o2h_dwi_row(const O2hConv2d *p, const O2hDwi *f, int64_t xi, int v, int32_t *buf)
{
    if (p->SW == 1) {
        int32_t *d = buf + (size_t)v * f->L;
        for (int c = 0; c < f->L; c += 16) {
            int64_t i = xi + c - p->PL;
            __m256i lo, hi;
            if (c >= p->PL && c - p->PL + 17 <= p->W) {
                __m128i b0 = _mm_loadu_si128((const __m128i *)(const void *)(f->x + i));
                __m128i b1 = _mm_loadu_si128((const __m128i *)(const void *)(f->x + i + 1));
                lo = _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_unpacklo_epi8(b0, b1)), f->z16);
                hi = _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_unpackhi_epi8(b0, b1)), f->z16);
            } else {
                __m128i b0 = o2h_dwi_load(f, i), b1 = o2h_dwi_load(f, i + 1);
                lo = o2h_dwi_edge(f, _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(b0, b1)), f->col[0], c);
                hi = o2h_dwi_edge(f, _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(b0, b1)), f->col[1], c);
            }
            _mm256_storeu_si256((__m256i *)(void *)(d + c), lo);
            _mm256_storeu_si256((__m256i *)(void *)(d + c + 8), hi);
        }
        return;
    }
    int16_t *d = (int16_t *)(buf + (size_t)(v & 1) * f->ph + (size_t)(v >> 1) * f->L);
    for (int c = 0; c < 2 * f->L; c += 16) {
        int64_t i = xi + c - p->PL;
        __m256i r;
        if (c >= p->PL && c - p->PL + 16 <= p->W)
            r = _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(f->x + i))),
                                 f->z16);
        else
            r = o2h_dwi_edge(f, _mm256_cvtepi8_epi16(o2h_dwi_load(f, i)), f->col[0], c);
        _mm256_storeu_si256((__m256i *)(void *)(d + c), r);
    }
}

/* Most vectors a row of the plane-wide fill (o2h_dwi_fill) */
#define O2H_DWI_FILL_VECS 16

/* Row v of a plane whose vectors (nv of them, 16 int16 each) all load
 * inside the tensor from x (the row's column -PL): straight loads, each
 * vector ANDed with its pad mask m[k]. */
O2H_I_INLINE void o2h_dwi_row_in(int s1, int nv, const int8_t *x, const __m256i *m, __m256i z, int16_t *d)
{
    if (s1) {
        for (int k = 0; k < nv; k += 2) {
            __m128i b0 = _mm_loadu_si128((const __m128i *)(const void *)(x + 8 * k));
            __m128i b1 = _mm_loadu_si128((const __m128i *)(const void *)(x + 8 * k + 1));
            __m256i lo = _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_unpacklo_epi8(b0, b1)), z);
            __m256i hi = _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_unpackhi_epi8(b0, b1)), z);
            _mm256_storeu_si256((__m256i *)(void *)(d + 16 * k), _mm256_and_si256(lo, m[k]));
            _mm256_storeu_si256((__m256i *)(void *)(d + 16 * k + 16), _mm256_and_si256(hi, m[k + 1]));
        }
        return;
    }
    for (int k = 0; k < nv; k++) {
        __m256i r = _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(x + 16 * k))), z);
        _mm256_storeu_si256((__m256i *)(void *)(d + 16 * k), _mm256_and_si256(r, m[k]));
    }
}

/* The input rows of plane xi (tensor index) into buf; pad rows stay 0 as
 * zeroed at the start of the call (the rows' overrun into them is masked
 * pad lanes, 0 too). Rows of up to O2H_DWI_FILL_VECS vectors take one
 * loop for the plane with the pad masks built once, except where a load
 * would leave the tensor (its first and last rows): per row, the set-up
 * of o2h_dwi_row had cost more than its 8 vectors (MobileNetV2, 112x112
 * stride 2: the fill took 0.12 of the layer's 0.19 ms). */
static void o2h_dwi_fill(const O2hConv2d *p, const O2hDwi *f, int64_t xi, int32_t *buf)
{
    int end = p->H + p->PT < (p->HO - 1) * p->SH + 3 ? p->H + p->PT : (p->HO - 1) * p->SH + 3;
    int s1 = p->SW == 1, nv = s1 ? (f->L + 15) / 16 * 2 : (2 * f->L + 15) / 16;
    int64_t span = s1 ? 8 * (nv - 2) + 17 : 16 * nv;   /* bytes a row's loads read from its column -PL */
    __m256i m[O2H_DWI_FILL_VECS];
    for (int k = 0; k < nv && nv <= O2H_DWI_FILL_VECS; k++)
        m[k] = o2h_dwi_in(f, f->col[s1 ? k & 1 : 0], s1 ? 8 * (k & ~1) : 16 * k);
    for (int v = p->PT; v < end; v++) {
        int64_t i = xi + (int64_t)(v - p->PT) * p->W - p->PL;
        if (nv > O2H_DWI_FILL_VECS || i < 0 || i + span > f->len) {
            o2h_dwi_row(p, f, i + p->PL, v, buf);
            continue;
        }
        int32_t *d = s1 ? buf + (size_t)v * f->L : buf + (size_t)(v & 1) * f->ph + (size_t)(v >> 1) * f->L;
        o2h_dwi_row_in(s1, nv, f->x + i, m, f->z16, (int16_t *)(void *)d);
    }
}

/* 8 sums of flat outputs at buf (two chains) plus the bias */
O2H_I_INLINE __m256i o2h_dwi_sum(const int32_t *buf, const int64_t *off, const __m256i *w, __m256i bias)
{
    __m256i a = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(buf + off[0])), w[0]);
    __m256i b = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(buf + off[1])), w[1]);
    O2H_I_UNROLL for (int t = 2; t < 6; t++)
    {
        __m256i m = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(buf + off[t])), w[t]);
        if (t & 1)
            b = _mm256_add_epi32(b, m);
        else
            a = _mm256_add_epi32(a, m);
    }
    return _mm256_add_epi32(_mm256_add_epi32(a, b), bias);
}

/* int16 pair (lo, hi) in every dword */
static __m256i o2h_dwi_pair(float lo, float hi)
{
    return _mm256_set1_epi32((int32_t)((uint32_t)(uint16_t)(int16_t)lo | (uint32_t)(uint16_t)(int16_t)hi << 16));
}

/* All flat outputs of a plane to bytes at yb, 32 at a time (the last
 * block runs past n into slack). */
static void o2h_dwi_plane_run(const O2hDwi *f, const int32_t *buf, const float *wc, int32_t b, const O2hRqc *c,
                              int8_t *yb)
{
    __m256i w[6], bv = _mm256_set1_epi32(b), q[4];
    for (int kh = 0; kh < 3; kh++) {
        w[2 * kh] = o2h_dwi_pair(wc[3 * kh], wc[3 * kh + 1]);
        w[2 * kh + 1] = o2h_dwi_pair(wc[3 * kh + 2], 0.0f);
    }
    if (!o2h_rqv_ok(c)) {
        int32_t acc[32];
        for (int j = 0; j < f->n; j += 32) {
            for (int u = 0; u < 4; u++)
                _mm256_storeu_si256((__m256i *)(void *)(acc + 8 * u), o2h_dwi_sum(buf + j + 8 * u, f->off, w, bv));
            o2h_rq_row(acc, 32, c, yb + j);
        }
        return;
    }
    O2hRqv rv;
    o2h_rqv_init(c, &rv);
    for (int j = 0; j < f->n; j += 32) {
        O2H_I_UNROLL for (int u = 0; u < 4; u++) q[u] = o2h_dwi_sum(buf + j + 8 * u, f->off, w, bv);
        _mm256_storeu_si256((__m256i *)(void *)(yb + j), o2h_rqv_pack4(q, &rv));
    }
}

static O2hDwi o2h_dwi_desc(const O2hConv2d *p, int32_t x_zero, const int8_t *x)
{
    O2hDwi f = {x, (int64_t)p->N * p->C * p->H * p->W, o2h_dwi_len(p), 0, o2h_dwi_plane(p),
                _mm256_set1_epi16((short)x_zero), {_mm256_setzero_si256(), _mm256_setzero_si256()},
                _mm256_set1_epi16((short)(p->W - 1)), {0}};
    int16_t col[32];
    for (int k = 0; k < 16; k++) {   /* stride 1: pairs (k, k + 1), k < 16; stride 2: k */
        col[k] = (int16_t)(p->SW == 1 ? k / 2 + k % 2 - p->PL : k - p->PL);
        col[16 + k] = (int16_t)(col[k] + 8);
    }
    f.col[0] = _mm256_loadu_si256((const __m256i *)(const void *)col);
    f.col[1] = _mm256_loadu_si256((const __m256i *)(const void *)(col + 16));
    f.n = p->HO * f.L;
    for (int kh = 0; kh < 3; kh++) {
        int64_t r = p->SH == 1 ? (int64_t)kh * f.L : (int64_t)(kh & 1) * (int64_t)f.ph + (kh >> 1) * f.L;
        f.off[2 * kh] = r;
        f.off[2 * kh + 1] = r + 3 - p->SW;
    }
    return f;
}

/* Two plane sets and two byte planes take turns: plane i + 1 is filled
 * before plane i is computed, and plane i - 1's bytes copied out after,
 * so no load waits on the just-issued stores it overlaps. */
static void o2h_dwi_run(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                        const void *packed, int8_t *y, void *scratch)
{
    size_t np = (size_t)p->SH * o2h_dwi_plane(p), nb = o2h_dwi_bytes(p);
    int32_t *buf[2] = {o2h_i_align64(scratch), (int32_t *)o2h_i_align64(scratch) + np};
    int8_t *yb[2] = {(int8_t *)(buf[1] + np), (int8_t *)(buf[1] + np) + nb};
    O2hDwi f = o2h_dwi_desc(p, x_zero, x);
    const float *wf = packed;
    const int32_t *bias = (const int32_t *)(const void *)((const char *)packed + o2h_dw_wbytes(p));
    const int32_t *sum = bias + p->C;
    int64_t hw = (int64_t)p->H * p->W, hwo = (int64_t)p->HO * p->WO, planes = (int64_t)p->N * p->C;
    memset(buf[0], 0, 2 * np * sizeof *buf[0]);
    o2h_dwi_fill(p, &f, 0, buf[0]);
    for (int64_t i = 0; i < planes; i++) {
        int ch = (int)(i % p->C);
        int32_t b = (int32_t)((uint32_t)bias[ch] + (uint32_t)x_zero * (uint32_t)sum[ch]);
        O2hRqc rc;
        o2h_rqc_init(rq, ch, &rc);
        if (i + 1 < planes)
            o2h_dwi_fill(p, &f, (i + 1) * hw, buf[(i + 1) & 1]);
        o2h_dwi_plane_run(&f, buf[i & 1], wf + (size_t)ch * 9, b, &rc, yb[i & 1]);
        if (i > 0)
            o2h_dw_rows_out(p, f.L, yb[(i - 1) & 1], 0, y + (i - 1) * hwo);
    }
    o2h_dw_rows_out(p, f.L, yb[(planes - 1) & 1], 1, y + (planes - 1) * hwo);
}
#endif

/* AVX2 3x3, stride 1 or 2, on the planes the pair form leaves (up to
 * 32x32 and 28x28): channels in lanes. Such planes are short rows (7 to
 * 32 outputs) in vectors of pixels, so per plane set-up and partial
 * vectors cost more than the taps; with 8 channels per vector every lane is used whatever
 * the width. Per group of 8 channels:
 *  - the planes become one padded block [HB][WB][8], 8 rows of 8 bytes
 *    at a time turned by one 8x8 byte transpose:
 *     - stride 1 up to 14x14: int16 pairs (x[c] - x_zero, x[c + 1] - x_zero) per
 *       block column c (pads 0), so one vpmaddwd by the weight pairs
 *       (w0, w1) gives two taps and one by (w2, 0) the third: 6 per 8
 *       channels of a pixel (packed [C/8][6][8] int16 pairs), exact
 *       int32 sums; the bias gets x_zero * sum(w) back as in the pair
 *       form;
 *     - larger planes and stride 2: float x (pads x_zero), 9 float
 *       FMAs per pixel by weights packed [C/8][9][8] floats, exact since
 *       |sum x w| <= 9 * 128 * 128 < 2^24, and the packed bias as it is
 *       (it holds -x_zero * sum(w)). There the pair block measured
 *       1.1x the time (stride 1, 28x28 and 56x56) and 1.1-1.3x (stride
 *       2, where only every other pair column is read);
 *  - the int32 sums plus bias are requantized in registers with
 *    per-lane constants (o2h_dwl_rq: the even/odd product rule of
 *    o2h_rqv32u with variable shifts), 4 pixels to 32 bytes [pixel][8];
 *  - those bytes go back to the 8 planes by the same transpose.
 * Rows are computed 4 pixels at a time; pixels past a row read the next
 * row or the block's slack and their bytes are overwritten by the next
 * row or land in slack.
 * Taken on every plane it gets: stride 2 28x28 and 14x14 0.67x the time
 * of the float kernel; stride 1 28x28 0.83x with the float block, 14x14 0.97x and 7x7 0.74x with the int16 pairs (where the
 * float block had measured 1.00x and 1.04x). */
static int o2h_dwl_ok(const O2hConv2d *p)
{
    return p->KH == 3 && p->KW == 3 && p->SH == p->SW && (p->SH == 1 || p->SH == 2) && p->DH == 1 &&
           p->DW == 1 && p->PT >= 0 && p->PL >= 0 && p->PB >= 0 && p->PR >= 0 && p->HO > 0 && p->WO > 0 &&
           !o2h_dwi_ok(p);
}

/* Stride 1 input planes up to which the channels-in-lanes form sums
 * int16 pairs (MobileNetV2 int8 at x86-64-v3, per layer in the program:
 * 7x7 0.74x the time of the float block, 14x14 0.90-0.97x, but 28x28 and
 * 56x56 1.1x). */
#define O2H_DWL_PAIR_MAX_PIX 196

static int o2h_dwl_pairs(const O2hConv2d *p)
{
    return p->SH == 1 && (int64_t)p->H * p->W <= O2H_DWL_PAIR_MAX_PIX;
}

/* whether this build packs for and runs the channels-in-lanes form */
static int o2h_dw_lanes(const O2hConv2d *p)
{
#if defined(O2H_DWI)
    return o2h_dwl_ok(p);
#else
    (void)p;
    return 0;
#endif
}

/* block columns and rows: the padded input the outputs read */
static int o2h_dwl_wb(const O2hConv2d *p)
{
    return (p->WO - 1) * p->SW + 3;
}

static size_t o2h_dwl_block(const O2hConv2d *p)
{
    return (size_t)((p->HO - 1) * p->SH + 3) * o2h_dwl_wb(p) + 8;   /* + slack of the last row's quads */
}

static size_t o2h_dwl_scratch(const O2hConv2d *p)
{
    return o2h_dwl_block(p) * 32 + ((size_t)p->HO * p->WO + 4) * 8 + 128;
}

#if defined(O2H_DWI)
/* Per group constants: weights, bias and requantization per lane. */
typedef struct {
    __m256 wf[9];       /* stride 2: float weights */
    __m256i w[6];       /* stride 1: int16 weight pairs */
    __m256i bias, lo_acc, hi_acc, m_e, m_o, c_e, c_o, s1, zero2, lo8, hi8;   /* s1, zero2: s, c of hi32 */
    int vec, hi32;      /* every lane takes the vector rule, its high-half form */
    O2hRqc rc[8];
} O2hDwlc;

/* rows a[k] (low 8 bytes) -> columns: v[i] holds column 2i (low half)
 * and 2i + 1 (high half) */
O2H_I_INLINE void o2h_t8x8(const __m128i *a, __m128i *v)
{
    __m128i t0 = _mm_unpacklo_epi8(a[0], a[1]), t1 = _mm_unpacklo_epi8(a[2], a[3]);
    __m128i t2 = _mm_unpacklo_epi8(a[4], a[5]), t3 = _mm_unpacklo_epi8(a[6], a[7]);
    __m128i u0 = _mm_unpacklo_epi16(t0, t1), u1 = _mm_unpackhi_epi16(t0, t1);
    __m128i u2 = _mm_unpacklo_epi16(t2, t3), u3 = _mm_unpackhi_epi16(t2, t3);
    v[0] = _mm_unpacklo_epi32(u0, u2);
    v[1] = _mm_unpackhi_epi32(u0, u2);
    v[2] = _mm_unpacklo_epi32(u1, u3);
    v[3] = _mm_unpackhi_epi32(u1, u3);
}

/* 8 bytes from index i of each of the planes k < nc (hw apart; planes
 * past nc and bytes past the tensor's end read as 0) into t[8][8] */
static __attribute__((noinline)) void o2h_dwl_load_edge(const int8_t *x, int64_t i, int64_t hw, int nc,
                                                         int64_t len, int8_t *t)
{
    for (int k = 0; k < 64; k++) {
        int64_t at = i + k / 8 * hw + k % 8;
        t[k] = k / 8 < nc && at < len ? x[at] : 0;
    }
}

/* 8 bytes from index i of each of the nc planes (hw apart), transposed:
 * v[k] holds the 8 channels of pixels 2k (low half) and 2k + 1 */
O2H_I_INLINE void o2h_dwl_cols(const int8_t *x, int64_t len, int64_t i, int64_t hw, int nc, __m128i *v)
{
    __m128i a[8];
    int8_t t[64];
    const int8_t *s = x + i;
    if (nc < 8 || i + 7 * hw + 8 > len) {
        o2h_dwl_load_edge(x, i, hw, nc, len, t);
        s = t, hw = 8;
    }
    O2H_I_UNROLL for (int k = 0; k < 8; k++) a[k] = _mm_loadl_epi64((const __m128i *)(const void *)(s + k * hw));
    o2h_t8x8(a, v);
}

/* Input rows and columns of the planes that land in the block (wb
 * columns wide): those the outputs read, past the top and left pads. */
static void o2h_dwl_extent(const O2hConv2d *p, int wb, int *hn, int *wn)
{
    int hb = (p->HO - 1) * p->SH + 3;
    *hn = p->H < hb - p->PT ? p->H : hb - p->PT;
    *wn = p->W < wb - p->PL ? p->W : wb - p->PL;
}

/* The 8 channels of pixel j (0..7) of o2h_dwl_cols' output, in the low half */
O2H_I_INLINE __m128i o2h_dwl_pix(const __m128i *v, int j)
{
    return j & 1 ? _mm_unpackhi_epi64(v[j >> 1], v[j >> 1]) : v[j >> 1];
}

/* One pixel's 8 channels (int16 x - x_zero) as the pair (prev, cur) at d */
O2H_I_INLINE void o2h_dwl_pair(__m128i prev, __m128i cur, int16_t *d)
{
    _mm256_store_si256((__m256i *)(void *)d,
                       _mm256_set_m128i(_mm_unpackhi_epi16(prev, cur), _mm_unpacklo_epi16(prev, cur)));
}

/* The nc planes from tensor index xi into the block (stride 1): 8 rows
 * of 8 bytes (one per channel) transposed, as int16 x - x_zero; block
 * column c gets the pairs (x[c], x[c + 1]), so the columns left of and at
 * a row's interior are written (the others stay 0). */
static void o2h_dwl_fill(const O2hConv2d *p, const int8_t *x, int64_t len, int64_t xi, int nc, __m128i z,
                         int16_t *blk)
{
    int wb = o2h_dwl_wb(p), hn, wn;
    int64_t hw = (int64_t)p->H * p->W;
    o2h_dwl_extent(p, wb, &hn, &wn);
    for (int ih = 0; ih < hn; ih++) {
        int16_t *d = blk + ((size_t)(p->PT + ih) * wb + p->PL) * 16;
        int64_t i0 = xi + (int64_t)ih * p->W;
        __m128i prev = _mm_setzero_si128();
        for (int iw = 0; iw < wn; iw += 8) {
            __m128i v[4];
            o2h_dwl_cols(x, len, i0 + iw, hw, nc, v);
            int m = wn - iw;
            O2H_I_UNROLL for (int j = 0; j < 8; j++)
            {
                __m128i c = o2h_dwl_pix(v, j);
                c = _mm_sub_epi16(_mm_cvtepi8_epi16(c), z);
                if (j < m && iw + j + p->PL > 0)
                    o2h_dwl_pair(prev, c, d + (ptrdiff_t)(iw + j - 1) * 16);
                if (j < m)
                    prev = c;
            }
        }
        o2h_dwl_pair(prev, _mm_setzero_si128(), d + (size_t)(wn - 1) * 16);
    }
}

/* The nc planes from tensor index xi into the block's interior: 8 rows
 * of 8 bytes (one per channel), transposed, as floats
 * (the planes without int16 pairs). */
static void o2h_dwl_fillf(const O2hConv2d *p, const int8_t *x, int64_t len, int64_t xi, int nc, float *blk)
{
    int wb = o2h_dwl_wb(p), hn, wn;
    int64_t hw = (int64_t)p->H * p->W;
    o2h_dwl_extent(p, wb, &hn, &wn);
    for (int ih = 0; ih < hn; ih++) {
        float *d = blk + ((size_t)(p->PT + ih) * wb + p->PL) * 8;
        int64_t i0 = xi + (int64_t)ih * p->W;
        for (int iw = 0; iw < wn; iw += 8) {
            __m128i v[4];
            o2h_dwl_cols(x, len, i0 + iw, hw, nc, v);
            int m = wn - iw;
            float *dd = d + (size_t)iw * 8;
            O2H_I_UNROLL for (int j = 0; j < 8; j++)
            {
                __m128i c = o2h_dwl_pix(v, j);
                if (j < m)
                    _mm256_storeu_ps(dd + j * 8, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(c)));
            }
        }
    }
}

/* Bytes [pixel][8] back to the nc planes at y (hwo bytes apart). */
static void o2h_dwl_out(const int8_t *ob, int64_t hwo, int nc, int8_t *y)
{
    int64_t j = 0;
    for (; j + 8 <= hwo; j += 8) {
        __m128i a[8], v[4];
        for (int k = 0; k < 8; k++)
            a[k] = _mm_loadl_epi64((const __m128i *)(const void *)(ob + (j + k) * 8));
        o2h_t8x8(a, v);
        for (int c = 0; c < nc; c++) {
            __m128i r = c & 1 ? _mm_unpackhi_epi64(v[c >> 1], v[c >> 1]) : v[c >> 1];
            _mm_storel_epi64((__m128i *)(void *)(y + c * hwo + j), r);
        }
    }
    for (; j < hwo; j++)
        for (int c = 0; c < nc; c++)
            y[c * hwo + j] = ob[j * 8 + c];
}

/* o2h_dwl_consts when every lane has sh in [34, 62], as int8 layers
 * usually do: then M needs no acc clamp, b = 31, s = sh - 32 in both
 * rules, and the high-half rule's rounding constant is
 * (1 + 2 zero) << (sh - 33), in range for every lane when for the largest
 * sh (its size grows with sh). Whole groups of per-channel constants
 * load as vectors; no O2hRqc is needed (k->vec is 1). Returns 0, having
 * set nothing, for other groups. */
static int o2h_dwl_consts_hi(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int32_t *bias,
                             const int32_t *sum, int c0, int nc, O2hDwlc *k)
{
    int32_t m[8], sh[8], b[8], s[8], smin = 63, smax = 0, neg = 0;
    for (int l = 0; l < 8; l++) {
        int ch = c0 + (l < nc ? l : 0), i = rq->n > 1 ? ch : 0;
        m[l] = rq->mult[i], sh[l] = rq->shift[i], b[l] = bias[ch], s[l] = sum[ch];
        smin = sh[l] < smin ? sh[l] : smin;
        smax = sh[l] > smax ? sh[l] : smax;
        neg |= m[l] < 0;
    }
    if (smin < 34 || smax > 62 || neg)
        return 0;
    int64_t r = (int64_t)(1 + 2 * rq->zero) * ((int64_t)1 << (smax - 33));
    __m256i shv = _mm256_loadu_si256((const __m256i *)(const void *)sh), z2 = _mm256_set1_epi32(1 + 2 * rq->zero);
    __m256i bv = _mm256_loadu_si256((const __m256i *)(const void *)b);
    if (o2h_dwl_pairs(p))
        bv = _mm256_add_epi32(bv, _mm256_mullo_epi32(_mm256_set1_epi32(x_zero),
                                                     _mm256_loadu_si256((const __m256i *)(const void *)s)));
    k->vec = 1;
    k->hi32 = r >= -((int64_t)1 << 30) && r < ((int64_t)1 << 30);
    k->bias = bv;
    k->lo_acc = _mm256_set1_epi32(INT32_MIN);
    k->hi_acc = _mm256_set1_epi32(INT32_MAX);
    k->m_e = _mm256_loadu_si256((const __m256i *)(const void *)m);
    k->m_o = _mm256_srli_epi64(k->m_e, 32);
    k->c_e = _mm256_set1_epi64x(31);
    k->c_o = _mm256_set1_epi64x(1);
    k->s1 = _mm256_sub_epi32(shv, _mm256_set1_epi32(32));
    k->zero2 = k->hi32 ? _mm256_sllv_epi32(z2, _mm256_sub_epi32(shv, _mm256_set1_epi32(33))) : z2;
    k->lo8 = _mm256_set1_epi8((char)rq->lo);
    k->hi8 = _mm256_set1_epi8((char)rq->hi);
    return 1;
}

/* The weights of channels [c0, c0 + 8) */
static void o2h_dwl_weights(const O2hConv2d *p, const void *packed, int c0, O2hDwlc *k)
{
    const int32_t *wp = packed;
    for (int t = 0; t < 6 && o2h_dwl_pairs(p); t++)
        k->w[t] = _mm256_loadu_si256((const __m256i *)(const void *)(wp + (size_t)c0 * 6 + 8 * t));
    for (int t = 0; t < 9 && !o2h_dwl_pairs(p); t++)
        k->wf[t] = _mm256_loadu_ps((const float *)wp + (size_t)c0 * 9 + 8 * t);
}

/* Constants of channels [c0, c0 + nc); lanes past nc copy lane 0 and
 * have weight 0. */
static void o2h_dwl_consts(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const void *packed, int c0,
                           int nc, O2hDwlc *k)
{
    const int32_t *bias = (const int32_t *)(const void *)((const char *)packed + o2h_dw_wbytes(p));
    const int32_t *sum = bias + p->C;
    o2h_dwl_weights(p, packed, c0, k);
    if (o2h_dwl_consts_hi(p, x_zero, rq, bias, sum, c0, nc, k))
        return;
    int32_t b[8], la[8], ha[8], m[8], ce[8], s1[16], z2[16];   /* s1, z2: even/odd form, then high-half */
    int8_t lo[32], hi[32];
    k->vec = k->hi32 = 1;
    for (int l = 0; l < 8; l++) {
        int ch = c0 + (l < nc ? l : 0);
        O2hRqc *c = &k->rc[l];
        o2h_rqc_init(rq, ch, c);
        b[l] = o2h_dwl_pairs(p) ? (int32_t)((uint32_t)bias[ch] + (uint32_t)x_zero * (uint32_t)sum[ch]) : bias[ch];
        k->vec &= o2h_rqv_ok(c) && c->m >= 0;
        int64_t r = 0;
        int h32 = o2h_rqv_hi32_ok(c, &r), bs = c->sh - 1 < 31 ? c->sh - 1 : 31;
        k->hi32 &= h32;
        la[l] = c->lo_acc, ha[l] = c->hi_acc, m[l] = c->m;
        ce[l] = l & 1 ? 32 - bs : bs;   /* 64-bit lane l / 2: even lane's b, odd lane's 32 - b */
        s1[l] = c->sh - bs - 1, s1[8 + l] = c->sh - 32;
        z2[l] = 1 + 2 * c->zero, z2[8 + l] = (int32_t)r;
        for (int r = 0; r < 4; r++)
            lo[8 * r + l] = (int8_t)c->lo, hi[8 * r + l] = (int8_t)c->hi;
    }
    k->bias = _mm256_loadu_si256((const __m256i *)(const void *)b);
    k->lo_acc = _mm256_loadu_si256((const __m256i *)(const void *)la);
    k->hi_acc = _mm256_loadu_si256((const __m256i *)(const void *)ha);
    k->m_e = _mm256_loadu_si256((const __m256i *)(const void *)m);
    k->m_o = _mm256_srli_epi64(k->m_e, 32);
    __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)ce);
    k->c_e = _mm256_and_si256(c, _mm256_set1_epi64x(0xFFFFFFFF));
    k->c_o = _mm256_srli_epi64(c, 32);
    k->s1 = _mm256_loadu_si256((const __m256i *)(const void *)(s1 + 8 * k->hi32));
    k->zero2 = _mm256_loadu_si256((const __m256i *)(const void *)(z2 + 8 * k->hi32));
    k->lo8 = _mm256_loadu_si256((const __m256i *)(const void *)lo);
    k->hi8 = _mm256_loadu_si256((const __m256i *)(const void *)hi);
}

/* o2h_rqv32u with per-lane constants: h = floor(acc * M / 2^b) from the
 * even/odd products, then ((h >> (s - 1)) + 1 + 2 zero) >> 1 */
O2H_I_INLINE __m256i o2h_dwl_rq(__m256i a, const O2hDwlc *k)
{
    a = _mm256_min_epi32(_mm256_max_epi32(a, k->lo_acc), k->hi_acc);
    __m256i e = _mm256_srlv_epi64(_mm256_mul_epi32(a, k->m_e), k->c_e);
    __m256i o = _mm256_sllv_epi64(_mm256_mul_epi32(_mm256_srli_epi64(a, 32), k->m_o), k->c_o);
    __m256i h = _mm256_blend_epi32(e, o, 0xAA);
    return _mm256_srai_epi32(_mm256_add_epi32(_mm256_srav_epi32(h, k->s1), k->zero2), 1);
}

/* o2h_rqv32h with per-lane constants (every lane sh >= 33): the high
 * halves of the products, then (h + c) >> (sh - 32) */
O2H_I_INLINE __m256i o2h_dwl_rqh(__m256i a, const O2hDwlc *k)
{
    __m256i e = _mm256_srli_epi64(_mm256_mul_epi32(a, k->m_e), 32);
    __m256i o = _mm256_mul_epi32(_mm256_srli_epi64(a, 32), k->m_o);
    return _mm256_srav_epi32(_mm256_add_epi32(_mm256_blend_epi32(e, o, 0xAA), k->zero2), k->s1);
}

/* 4 pixels of sums (int32, bias added) -> 32 bytes [pixel][8] at o */
O2H_I_INLINE void o2h_dwl_store4(const __m256i *q, const O2hDwlc *k, int8_t *o)
{
    if (k->vec) {
        __m256i y = k->hi32 ? o2h_narrow4(o2h_dwl_rqh(q[0], k), o2h_dwl_rqh(q[1], k), o2h_dwl_rqh(q[2], k),
                                          o2h_dwl_rqh(q[3], k))
                            : o2h_narrow4(o2h_dwl_rq(q[0], k), o2h_dwl_rq(q[1], k), o2h_dwl_rq(q[2], k),
                                          o2h_dwl_rq(q[3], k));
        y = _mm256_min_epi8(_mm256_max_epi8(y, k->lo8), k->hi8);
        _mm256_storeu_si256((__m256i *)(void *)o, y);
        return;
    }
    int32_t t[32];
    for (int u = 0; u < 4; u++)
        _mm256_storeu_si256((__m256i *)(void *)(t + 8 * u), q[u]);
    for (int i = 0; i < 32; i++)
        o[i] = o2h_rq_one(t[i], &k->rc[i % 8]);
}

/* 4 pixels' sums at r (stride 1, kernel rows wb apart):
 * per kernel row the pairs of taps 0, 1 and of tap 2 (weighted (w2, 0)),
 * summed in two chains, plus the bias */
O2H_I_INLINE void o2h_dwl_sum4(const int16_t *r, size_t wb, const O2hDwlc *k, __m256i *q)
{
    __m256i a[4], b[4];
    O2H_I_UNROLL for (int u = 0; u < 4; u++)
    {
        a[u] = k->bias;
        b[u] = _mm256_setzero_si256();
    }
    O2H_I_UNROLL for (int t = 0; t < 6; t++)
    {
        const int16_t *s = r + (t / 2) * wb + (size_t)(t % 2) * 32;
        O2H_I_UNROLL for (int u = 0; u < 4; u++)
        {
            __m256i m = _mm256_madd_epi16(_mm256_load_si256((const __m256i *)(const void *)(s + u * 16)), k->w[t]);
            if (t & 1)
                b[u] = _mm256_add_epi32(b[u], m);
            else
                a[u] = _mm256_add_epi32(a[u], m);
        }
    }
    O2H_I_UNROLL for (int u = 0; u < 4; u++) q[u] = _mm256_add_epi32(a[u], b[u]);
}

/* All output rows of the pair block (stride 1) to bytes [pixel][8] at ob. */
static void o2h_dwl_rows(const O2hConv2d *p, const int16_t *blk, const O2hDwlc *k, int8_t *ob)
{
    size_t wb = (size_t)o2h_dwl_wb(p) * 16;
    for (int oh = 0; oh < p->HO; oh++) {
        const int16_t *r = blk + (size_t)oh * wb;
        int8_t *o = ob + (size_t)oh * p->WO * 8;
        for (int ow = 0; ow < p->WO; ow += 4) {
            __m256i q[4];
            o2h_dwl_sum4(r + (size_t)ow * 16, wb, k, q);
            o2h_dwl_store4(q, k, o + (size_t)ow * 8);
        }
    }
}

/* All output rows of the float block (stride S) to bytes [pixel][8] at ob. */
O2H_I_INLINE void o2h_dwl_rowsf(const O2hConv2d *p, int S, const float *blk, const O2hDwlc *k, int8_t *ob)
{
    size_t wb = (size_t)o2h_dwl_wb(p) * 8;
    for (int oh = 0; oh < p->HO; oh++) {
        const float *r = blk + (size_t)oh * S * wb;
        int8_t *o = ob + (size_t)oh * p->WO * 8;
        for (int ow = 0; ow < p->WO; ow += 4) {
            __m256 acc[4];
            __m256i q[4];
            O2H_I_UNROLL for (int u = 0; u < 4; u++) acc[u] = _mm256_setzero_ps();
            O2H_I_UNROLL for (int t = 0; t < 9; t++)
            {
                const float *s = r + (t / 3) * wb + (size_t)(ow * S + t % 3) * 8;
                O2H_I_UNROLL for (int u = 0; u < 4; u++) acc[u] =
                    _mm256_fmadd_ps(_mm256_loadu_ps(s + u * S * 8), k->wf[t], acc[u]);
            }
            O2H_I_UNROLL for (int u = 0; u < 4; u++) q[u] = _mm256_add_epi32(_mm256_cvttps_epi32(acc[u]), k->bias);
            o2h_dwl_store4(q, k, o + (size_t)ow * 8);
        }
    }
}

static void o2h_dwl_run(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                        const void *packed, int8_t *y, void *scratch)
{
    float *blk = o2h_i_align64(scratch);
    int8_t *ob = o2h_i_align64(blk + o2h_dwl_block(p) * 8);
    int64_t hw = (int64_t)p->H * p->W, hwo = (int64_t)p->HO * p->WO, len = (int64_t)p->N * p->C * hw;
    O2hDwlc k;
    __m256 zv = _mm256_set1_ps(o2h_dwl_pairs(p) ? 0.0f : (float)x_zero);   /* pads: int16 0, float x_zero */
    __m128i z = _mm_set1_epi16((short)x_zero);
    for (size_t i = 0; i < o2h_dwl_block(p); i++)
        _mm256_storeu_ps(blk + 8 * i, zv);
    for (int n = 0; n < p->N; n++)
        for (int c0 = 0; c0 < p->C; c0 += 8) {
            int nc = p->C - c0 < 8 ? p->C - c0 : 8;
            int64_t plane = (int64_t)n * p->C + c0;
            o2h_dwl_consts(p, x_zero, rq, packed, c0, nc, &k);
            if (o2h_dwl_pairs(p)) {
                o2h_dwl_fill(p, x, len, plane * hw, nc, z, (int16_t *)(void *)blk);
                o2h_dwl_rows(p, (const int16_t *)(const void *)blk, &k, ob);
                o2h_dwl_out(ob, hwo, nc, y + plane * hwo);
                continue;
            }
            o2h_dwl_fillf(p, x, len, plane * hw, nc, blk);
            if (p->SH == 1)
                o2h_dwl_rowsf(p, 1, blk, &k, ob);
            else
                o2h_dwl_rowsf(p, 2, blk, &k, ob);
            o2h_dwl_out(ob, hwo, nc, y + plane * hwo);
        }
}
#endif

/* Scratch: the largest of the forms' needs, for any build. */
size_t o2h_dw_s8_scratch(const O2hConv2d *p)
{
    int n = o2h_dw_chunk(p);
    O2hConv2d q = o2h_dw_chunk_desc(p, n);
    size_t f = ((size_t)n * ((size_t)p->H * p->W + (size_t)p->HO * p->WO) + 32) * 4 +
               o2h_conv2d_dw_scratch_bound(&q) * 4 + 192;
    size_t v = 160 * 64 + (size_t)(p->H + p->PT + p->PB) * (p->W + p->PL + p->PR) +
               (size_t)16 * p->SH * (p->W + p->PL + p->PR) + 512;
    size_t i = o2h_dwi_ok(p) ? o2h_dwi_scratch(p) : o2h_dwl_ok(p) ? o2h_dwl_scratch(p) : 0;
    f = f > v ? f : v;
    return f > i ? f : i;
}

/* y[i] = requant((int32)s[i] + b), i < n, in pieces whose int32 sums stay
 * in L1 between the conversion and the requantization (a whole plane of
 * them, 50 KB at 112x112, would not). */
#define O2H_DW_PIECE 512

static void o2h_dw_requant_rows(const float *s, int32_t b, size_t n, const O2hRqc *c, int8_t *y)
{
    int32_t acc[O2H_DW_PIECE];
    for (size_t i0 = 0; i0 < n; i0 += O2H_DW_PIECE) {
        int m = n - i0 < O2H_DW_PIECE ? (int)(n - i0) : O2H_DW_PIECE;
        for (int i = 0; i < m; i++)
            acc[i] = (int32_t)((uint32_t)(int32_t)s[i0 + i] + (uint32_t)b);
        o2h_rq_row(acc, m, c, y + i0);
    }
}

#if defined(O2H_DWI)
/* AVX2: the float sums converted and requantized in registers, 32 at a
 * time (no int32 copy through memory), the last n % 8 one at a time. */
static void o2h_dw_requant(const float *s, int32_t b, size_t n, const O2hRqc *c, int8_t *y)
{
    if (!o2h_rqv_ok(c)) {
        o2h_dw_requant_rows(s, b, n, c, y);
        return;
    }
    O2hRqv rv;
    __m256i bv = _mm256_set1_epi32(b), q[4];
    size_t i = 0;
    o2h_rqv_init(c, &rv);
    for (; i + 32 <= n; i += 32) {
        O2H_I_UNROLL for (int u = 0; u < 4; u++) q[u] =
            _mm256_add_epi32(_mm256_cvttps_epi32(_mm256_loadu_ps(s + i + 8 * u)), bv);
        _mm256_storeu_si256((__m256i *)(void *)(y + i), o2h_rqv_pack4(q, &rv));
    }
    for (; i + 8 <= n; i += 8) {
        q[0] = _mm256_add_epi32(_mm256_cvttps_epi32(_mm256_loadu_ps(s + i)), bv);
        o2h_rqv_store_nv(q, 1, &rv, y + i);
    }
    for (; i < n; i++)
        y[i] = o2h_rq_one((int32_t)((uint32_t)(int32_t)s[i] + (uint32_t)b), c);
}
#else
#define o2h_dw_requant o2h_dw_requant_rows
#endif

/* Channels [c0, c0 + n) of image nn through the float depthwise kernel. */
static void o2h_dw_exact_chunk(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                               const void *packed, int c0, int n, int8_t *y, float *xf)
{
    O2hConv2d q = o2h_dw_chunk_desc(p, n);
    size_t hw = (size_t)p->H * p->W, hwo = (size_t)p->HO * p->WO;
    float *yf = o2h_i_align64(xf + (size_t)n * hw);
    float *fs = o2h_i_align64(yf + (size_t)n * hwo);
    const int32_t *bias = (const int32_t *)(const void *)((const char *)packed + o2h_dw_wbytes(p));
    const int32_t *sum = bias + p->C;
    for (size_t i = 0; i < (size_t)n * hw; i++)
        xf[i] = (float)(x[i] - x_zero);
    o2h_conv2d_f32(&q, xf, (const float *)packed + (size_t)c0 * p->KH * p->KW, NULL, NULL, yf, fs);
    for (int c = 0; c < n; c++) {
        int32_t b = (int32_t)((uint32_t)bias[c0 + c] + (uint32_t)x_zero * (uint32_t)sum[c0 + c]);
        O2hRqc rc;
        o2h_rqc_init(rq, c0 + c, &rc);
        o2h_dw_requant(yf + (size_t)c * hwo, b, hwo, &rc, y + (size_t)c * hwo);
    }
}

static void o2h_dw_exact(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                         const void *packed, int8_t *y, void *scratch)
{
    int chunk = o2h_dw_chunk(p);
    size_t hw = (size_t)p->H * p->W, hwo = (size_t)p->HO * p->WO;
    for (int nn = 0; nn < p->N; nn++)
        for (int c0 = 0; c0 < p->C; c0 += chunk) {
            int n = p->C - c0 < chunk ? p->C - c0 : chunk;
            if (n == 1)   /* a last single channel: redo its neighbour with it */
                c0--, n = 2;
            size_t at = (size_t)nn * p->C + (size_t)c0;
            o2h_dw_exact_chunk(p, x_zero, rq, x + at * hw, packed, c0, n, y + at * hwo, o2h_i_align64(scratch));
        }
}

#if defined(O2H_DW_VBMI)
/* AVX-512 VBMI + VNNI: no interleaved copies at all. One vpermb turns 64
 * bytes of a padded input row into 16 lanes of 4 consecutive taps (stride
 * and dilation are in the byte indices), so a 3x3 filter is 3 loads, 3
 * vpermb and 3 vpdpbusd per 16 outputs. The outputs of a vector either
 * follow the flat [HO][WO] order (small planes: a table gives each vector
 * its first input offset and byte indices) or one output row (vectors
 * restart at each row, the last one stored masked). */
typedef struct {
    int wp;          /* padded row length (plane row stride) */
    int mode;        /* 1 flat with tables, 2 per row */
    int nvec;        /* vectors of outputs (mode 1) or per row (mode 2) */
    int period, prow; /* mode 1: vectors per period, offset between periods */
} O2hDwV;

/* byte indices of 16 lanes x 4 taps: lane j at rel[j], taps DW apart */
static __m512i o2h_dw_idx(const O2hConv2d *p, const int *rel)
{
    uint8_t b[64];
    for (int j = 0; j < 16; j++)
        for (int t = 0; t < 4; t++)
            b[4 * j + t] = (uint8_t)((rel[j] + t * p->DW) & 63);
    return _mm512_loadu_si512(b);
}

/* Tables of mode 1: per vector of a period its first offset and indices;
 * mode 2: the indices of a full vector and of a row's last one. */
static void o2h_dw_tables(const O2hConv2d *p, const O2hDwV *v, int32_t *base, __m512i *idx)
{
    int rel[16];
    if (v->mode == 1) {
        for (int k = 0; k < v->period; k++) {
            base[k] = o2h_dw_off(p, v->wp, 16 * k);
            for (int j = 0; j < 16; j++)
                rel[j] = o2h_dw_off(p, v->wp, 16 * k + j) - base[k];
            idx[k] = o2h_dw_idx(p, rel);
        }
        return;
    }
    int tail = p->WO - (v->nvec - 1) * 16;
    for (int j = 0; j < 16; j++)
        rel[j] = j * p->SW;
    idx[0] = o2h_dw_idx(p, rel);
    for (int j = 0; j < 16; j++)
        rel[j] = (j < tail ? j : tail - 1) * p->SW;
    idx[1] = o2h_dw_idx(p, rel);
}

/* bytes after the padded plane that the lanes of a last, partial vector
 * may read: one period of rows (up to 16) and a vector */
static size_t o2h_dw_vslack(const O2hConv2d *p)
{
    return (size_t)16 * p->SH * (p->W + p->PL + p->PR) + 128;
}

/* padded plane [HP][wp] of x + 128 (pads: x_zero + 128), then slack.
 * Rows are copied top to bottom in whole vectors whose bytes past the row
 * are the pad value (merge-masked loads), so each store also writes the
 * right pad and the next row's left pad; memsets cover the rest. */
static void o2h_dw_fill_flip(const O2hConv2d *p, int wp, const int8_t *x, int8_t zero, int8_t *pad)
{
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    const int8_t zf = (int8_t)(zero ^ 0x80);
    const __m512i zv = _mm512_set1_epi8(zf);
    size_t n = (size_t)(p->H + p->PT + p->PB) * wp, top = (size_t)p->PT * wp + p->PL;
    memset(pad, zf, top);
    for (int h = 0; h < p->H; h++) {
        const int8_t *src = x + (int64_t)h * p->W;
        int8_t *dst = pad + top + (int64_t)h * wp;
        for (int j = 0; j < p->W; j += 64) {
            __mmask64 m = p->W - j >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (p->W - j)) - 1);
            __m512i v = _mm512_xor_si512(_mm512_mask_loadu_epi8(zv, m, src + j), flip);
            _mm512_storeu_si512(dst + j, p->W - j >= 64 ? v : _mm512_mask_mov_epi8(zv, m, v));
        }
        if (p->W % 64 == 0)   /* no partial vector wrote this row's right pad */
            memset(dst + p->W, zf, (size_t)(wp - p->W));
    }
    size_t done = top + (size_t)p->H * wp;
    memset(pad + done, zf, n + o2h_dw_vslack(p) - done);
}

/* acc of nv vectors of outputs: vector k reads the plane at base[k] +
 * toff[t] with indices idx[k], for the nt (kernel row, quad of taps) */
O2H_I_INLINE void o2h_dw_vsteps(int nv, int nt, const int8_t *pad, const int32_t *base, const __m512i *idx,
                                const int64_t *toff, const int32_t *w, int32_t bias, __m512i *acc)
{
    O2H_I_UNROLL for (int k = 0; k < nv; k++) acc[k] = _mm512_set1_epi32(bias);
    for (int t = 0; t < nt; t++) {
        __m512i wv = _mm512_set1_epi32(w[t]);
        const int8_t *src = pad + toff[t];
        O2H_I_UNROLL for (int k = 0; k < nv; k++)
        {
            __m512i xv = _mm512_permutexvar_epi8(idx[k], _mm512_loadu_si512(src + base[k]));
            acc[k] = o2h_dpbusd512(acc[k], xv, wv);
        }
    }
}

O2H_I_INLINE void o2h_dw_vstore(__m512i acc, const O2hRqc *c, const O2hRqv *rv, int n, int8_t *y)
{
    __mmask16 m = n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1);
    if (o2h_rqv_ok(c)) {
        _mm_mask_storeu_epi8(y, m, o2h_rqv(acc, rv));
        return;
    }
    int32_t t[16];
    int8_t b[16];
    _mm512_storeu_si512(t, acc);
    o2h_rq_row(t, 16, c, b);
    memcpy(y, b, (size_t)(n < 16 ? n : 16));
}

/* nk (1..4) vectors of outputs */
static void o2h_dw_vgroup(int nk, int nt, const int8_t *pad, const int32_t *base, const __m512i *idx,
                          const int64_t *toff, const int32_t *w, int32_t bias, const O2hRqc *c, const O2hRqv *rv,
                          const int *cnt, int8_t *const *y)
{
    __m512i acc[4];
    switch (nk) {
    case 4: o2h_dw_vsteps(4, nt, pad, base, idx, toff, w, bias, acc); break;
    case 3: o2h_dw_vsteps(3, nt, pad, base, idx, toff, w, bias, acc); break;
    case 2: o2h_dw_vsteps(2, nt, pad, base, idx, toff, w, bias, acc); break;
    default: o2h_dw_vsteps(1, nt, pad, base, idx, toff, w, bias, acc); break;
    }
    for (int u = 0; u < nk; u++)
        o2h_dw_vstore(acc[u], c, rv, cnt[u], y[u]);
}

/* One channel: flat vectors four at a time (mode 1) or each row's vectors */
static void o2h_dw_vplane(const O2hConv2d *p, const O2hDwV *v, const int8_t *pad, const int32_t *base,
                          const __m512i *idx, const int64_t *toff, const int32_t *w, int32_t bias, const O2hRqc *c,
                          int8_t *y)
{
    O2hRqv rv;
    int nt = p->KH * ((p->KW + 3) / 4), cnt[4];
    int8_t *yk[4];
    o2h_rqv_init(c, &rv);
    if (v->mode == 1) {
        int P = p->HO * p->WO, t = 0, q0 = 0;   /* vector k = period index * T + t */
        for (int k = 0; k < v->nvec; k += 4) {
            int nk = v->nvec - k < 4 ? v->nvec - k : 4;
            int32_t b4[4];
            __m512i i4[4];
            for (int u = 0; u < nk; u++) {
                b4[u] = q0 + base[t];
                i4[u] = idx[t];
                cnt[u] = P - 16 * (k + u), yk[u] = y + 16 * (k + u);
                if (++t == v->period)
                    t = 0, q0 += v->prow;
            }
            o2h_dw_vgroup(nk, nt, pad, b4, i4, toff, w, bias, c, &rv, cnt, yk);
        }
        return;
    }
    for (int oh = 0; oh < p->HO; oh++)
        for (int k = 0; k < v->nvec; k += 4) {
            int nk = v->nvec - k < 4 ? v->nvec - k : 4;
            int32_t b4[4];
            __m512i i4[4];
            for (int u = 0; u < nk; u++) {
                b4[u] = oh * p->SH * v->wp + (k + u) * 16 * p->SW;
                i4[u] = idx[k + u == v->nvec - 1];
                cnt[u] = p->WO - (k + u) * 16;
                yk[u] = y + (int64_t)oh * p->WO + (k + u) * 16;
            }
            o2h_dw_vgroup(nk, nt, pad, b4, i4, toff, w, bias, c, &rv, cnt, yk);
        }
}

static void o2h_dw_vbmi(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x,
                        const void *packed, int8_t *y, void *scratch)
{
    O2hDwV v = {p->W + p->PL + p->PR, o2h_dw_vbmi_mode(p), 0, 0, 0};
    int rows;
    v.period = o2h_dw_period(p, &rows);
    v.prow = rows * p->SH * v.wp;
    v.nvec = v.mode == 1 ? (p->HO * p->WO + 15) / 16 : (p->WO + 15) / 16;
    __m512i *idx = o2h_i_align64(scratch);
    int32_t *base = (int32_t *)(idx + O2H_DW_TABLE_VECS);
    O2hRqc *c = o2h_i_align64(base + O2H_DW_TABLE_VECS);
    int8_t *pad = o2h_i_align64(c + 1);
    const int32_t *w = packed;
    const int32_t *bias = (const int32_t *)(const void *)((const char *)packed + o2h_dw_wbytes(p));
    size_t wc = (size_t)p->KH * ((p->KW + 3) / 4);   /* words per channel */
    int64_t hw = (int64_t)p->H * p->W, hwo = (int64_t)p->HO * p->WO;
    int64_t toff[O2H_DW_TAPS];
    for (int kh = 0, t = 0; kh < p->KH; kh++)
        for (int q = 0; q < (p->KW + 3) / 4; q++)
            toff[t++] = (int64_t)kh * p->DH * v.wp + 4 * q * p->DW;
    o2h_dw_tables(p, &v, base, idx);
    for (int n = 0; n < p->N; n++)
        for (int ch = 0; ch < p->C; ch++) {
            int64_t plane = (int64_t)n * p->C + ch;
            o2h_rqc_init(rq, ch, c);
            o2h_dw_fill_flip(p, v.wp, x + plane * hw, (int8_t)x_zero, pad);
            o2h_dw_vplane(p, &v, pad, base, idx, toff, w + ch * wc, bias[ch], c, y + plane * hwo);
        }
}
#endif

void o2h_dw_s8_run(const O2hConv2d *p, int32_t x_zero, const O2hRequant *rq, const int8_t *x, const void *packed,
                   int8_t *y, void *scratch)
{
#if defined(O2H_DW_VBMI)
    if (o2h_dw_vbmi_mode(p)) {
        o2h_dw_vbmi(p, x_zero, rq, x, packed, y, scratch);
        return;
    }
#endif
#if defined(O2H_DWI)
    if (o2h_dwi_ok(p)) {
        o2h_dwi_run(p, x_zero, rq, x, packed, y, scratch);
        return;
    }
    if (o2h_dwl_ok(p)) {
        o2h_dwl_run(p, x_zero, rq, x, packed, y, scratch);
        return;
    }
#endif
    o2h_dw_exact(p, x_zero, rq, x, packed, y, scratch);
}
