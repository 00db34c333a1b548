/* test_rt_conv.c - every conv path (pointwise GEMM, im2col GEMM, direct
 * GEMM over phase planes, depthwise with and
 * without multiplier, the large-filter depthwise loop, few-channel
 * stride 2)
 * and ConvTranspose against direct reference loops in double, with each
 * epilogue kind. */
#include "test_rt_util.h"
#include "test_conv_ref.h"

typedef struct {
    int N, C, H, W, F, KH, KW, SH, SW, DH, DW, PT, PL, PB, PR, G;
} ConvCase;

static O2hConv2d mk(const ConvCase *c)
{
    O2hConv2d p;
    memset(&p, 0, sizeof p);
    p.N = c->N; p.C = c->C; p.H = c->H; p.W = c->W; p.F = c->F;
    p.KH = c->KH; p.KW = c->KW; p.SH = c->SH; p.SW = c->SW; p.DH = c->DH; p.DW = c->DW;
    p.PT = c->PT; p.PL = c->PL; p.PB = c->PB; p.PR = c->PR; p.G = c->G;
    p.HO = (c->H + c->PT + c->PB - c->DH * (c->KH - 1) - 1) / c->SH + 1;
    p.WO = (c->W + c->PL + c->PR - c->DW * (c->KW - 1) - 1) / c->SW + 1;
    return p;
}

/* y[n][f] += the plane of x[n][c] under tap (kh, kw) of weight wv: taps in the pads add nothing */
static void ref_tap(const O2hConv2d *p, const float *xc, double wv, int kh, int kw, double *y)
{
    int ow0 = ref_ow_first(p, kw), ow1 = ref_ow_last(p, kw);
    for (int oh = 0; oh < p->HO; oh++) {
        int ih = oh * p->SH - p->PT + kh * p->DH;
        if (ih < 0 || ih >= p->H)
            continue;
        ptrdiff_t at = (ptrdiff_t)ih * p->W + kw * p->DW - p->PL;   /* x index of ow = 0 */
        for (int ow = ow0; ow <= ow1; ow++)
            y[(size_t)oh * p->WO + ow] += (double)xc[at + (ptrdiff_t)ow * p->SW] * wv;
    }
}

static void ref_conv(const O2hConv2d *p, const float *x, const float *w, const float *b,
                     const O2hEpilogue *e, double *y)
{
    int cg = p->C / p->G, fg = p->F / p->G;
    size_t plane = (size_t)p->HO * p->WO;
    for (int n = 0; n < p->N; n++)
        for (int f = 0; f < p->F; f++) {
            double *yf = y + ((size_t)n * p->F + f) * plane;
            for (size_t i = 0; i < plane; i++)
                yf[i] = b ? b[f] : 0.0;
            for (int c = 0; c < cg; c++)
                for (int kh = 0; kh < p->KH; kh++)
                    for (int kw = 0; kw < p->KW; kw++)
                        ref_tap(p, x + ((size_t)n * p->C + f / fg * cg + c) * p->H * p->W,
                                w[(((size_t)f * cg + c) * p->KH + kh) * p->KW + kw], kh, kw, yf);
            for (size_t i = 0; e && i < plane; i++) {
                size_t o = ((size_t)n * p->F + f) * plane + i;
                double s = yf[i] + (e->residual ? e->residual[o] : 0.0);
                double sl = e->slope ? e->slope[e->n_slope > 1 ? f : 0] : 0.0;
                yf[i] = rt_ref_act(e->act, e->alpha, e->beta, sl, s);
            }
        }
}

/* Run one conv case with activation `act` (and residual when res != 0). */
static void run_conv(const char *name, const ConvCase *c, int act, int res, int use_bias)
{
    O2hConv2d p = mk(c);
    size_t nx = (size_t)p.N * p.C * p.H * p.W, ny = (size_t)p.N * p.F * p.HO * p.WO;
    size_t nw = (size_t)p.F * (p.C / p.G) * p.KH * p.KW;
    float *x = rt_random(nx), *w = rt_random(nw), *b = rt_random((size_t)p.F);
    float *r = rt_random(ny), *sl = rt_random((size_t)p.F), *y = rt_alloc(ny);
    double *ref = (double *)malloc(ny * sizeof(double));
    O2hEpilogue e = {(O2hActKind)act, 0.1f, 0.6f, sl, p.F, res ? r : NULL};
    if (act == O2H_ACT_CLIP) {
        e.alpha = -0.5f;
        e.beta = 0.5f;
    }
    size_t psz = o2h_conv2d_packed_size(&p), ssz = o2h_conv2d_scratch_size(&p);
    float *wp = NULL, *scr = rt_alloc(ssz);
    const float *wuse = w;
    if (psz > 0) {
        wp = rt_alloc(psz);
        o2h_conv2d_pack(&p, w, wp);
        wuse = wp;
    }
    for (size_t i = 0; i < ny; i++)
        y[i] = NAN;
    o2h_conv2d_f32(&p, x, wuse, use_bias ? b : NULL, &e, y, scr);
    ref_conv(&p, x, w, use_bias ? b : NULL, &e, ref);
    char what[160];
    snprintf(what, sizeof what, "%s act=%d res=%d bias=%d", name, act, res, use_bias);
    rt_compare(what, y, ref, ny, 2e-5);
    free(x); free(w); free(b); free(r); free(sl); free(y); free(ref); free(wp); free(scr);
}

static void run_all_epilogues(const char *name, const ConvCase *c)
{
    static const int acts[] = {O2H_ACT_NONE, O2H_ACT_RELU, O2H_ACT_CLIP, O2H_ACT_PRELU,
                               O2H_ACT_SILU, O2H_ACT_HARD_SWISH, O2H_ACT_SIGMOID, O2H_ACT_MISH};
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
        run_conv(name, c, acts[i], (int)(i % 2), 1);
    run_conv(name, c, O2H_ACT_RELU, 1, 0);
}

/* every activation kind, with and without residual */
static void run_every_act(const char *name, const ConvCase *c, int use_bias)
{
    for (int act = 0; act < O2H_ACT_COUNT; act++)
        for (int res = 0; res < 2; res++)
            run_conv(name, c, act, res, use_bias);
}

static void test_pointwise(void)
{
    /* N  C  H  W   F  KH KW SH SW DH DW PT PL PB PR G */
    ConvCase cs[] = {
        {1, 32, 16, 16, 16, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 16, 7, 7, 96, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {2, 5, 13, 11, 17, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 300, 5, 10, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* K > KC, ragged */
        {1, 7, 1, 1, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},     /* HW = 1 */
        {1, 8, 4, 12, 12, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4},   /* grouped 1x1 */
        {1, 1, 9, 9, 4, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 24, 3, 33, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   /* single filter */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("pointwise", &cs[i]);
}

static void test_im2col(void)
{
    ConvCase cs[] = {
        {1, 3, 17, 19, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},   /* stem 3x3 s2 */
        {1, 16, 9, 9, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {2, 4, 10, 7, 6, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},    /* dilation 2 */
        {1, 3, 20, 20, 5, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},   /* 7x7 s2 p3 */
        {1, 6, 8, 8, 6, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1},     /* 1x1 s2 */
        {1, 6, 8, 9, 4, 2, 3, 1, 2, 1, 1, 0, 2, 1, 0, 1},     /* asymmetric */
        {1, 8, 6, 6, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},     /* grouped */
        {1, 12, 5, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},
        {1, 64, 6, 6, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   /* K = 576 */
        {1, 3, 1, 40, 4, 1, 5, 1, 3, 1, 1, 0, 2, 0, 2, 1},    /* 1-D */
        {1, 2, 5, 5, 3, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1},     /* no pads */
        {1, 1, 4, 4, 1, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1},     /* window larger than input */
        {1, 4, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {1, 1, 8, 8, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},     /* G = C = 1 */
        {1, 4, 3, 3, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},     /* 1x1 with pads */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("im2col", &cs[i]);
    /* many output columns: several im2col blocks */
    ConvCase big = {1, 8, 60, 70, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    run_conv("im2col-blocks", &big, O2H_ACT_RELU, 1, 1);
    run_conv("im2col-blocks", &big, O2H_ACT_NONE, 0, 0);
}

static void test_direct(void)
{
    ConvCase cs[] = {
        {1, 16, 12, 12, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {2, 24, 22, 21, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},   /* stride 2 */
        {1, 16, 14, 14, 8, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},   /* dilation */
        {1, 17, 24, 13, 5, 3, 2, 2, 1, 1, 1, 0, 1, 2, 0, 1},   /* asymmetric */
        {1, 32, 11, 11, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},  /* groups, 16 per group */
        {1, 300, 11, 11, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  /* two K blocks per tap */
        {1, 16, 23, 23, 8, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 1},
        {1, 16, 28, 28, 4, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},
        {1, 16, 33, 33, 4, 3, 3, 3, 3, 1, 1, 0, 0, 0, 0, 1},   /* stride 3, no pads */
        {1, 16, 1, 300, 6, 1, 5, 1, 2, 1, 1, 0, 2, 0, 2, 1},   /* 1-D */
        {1, 64, 30, 30, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  /* several column blocks */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("direct", &cs[i]);
}

/* 3x3 stride-1 pad-1 convs on maps of at least 196 pixels (or with many
 * channels): the
 * Winograd F(2x2, 3x3) path (tile rows of 7 and 19 tiles: vector tails;
 * K over two blocks; several blocks of tile rows; batch 2). */
static void test_winograd(void)
{
    ConvCase cs[] = {
        {1, 16, 14, 14, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {2, 40, 16, 38, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {1, 300, 14, 14, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        {1, 16, 15, 17, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   /* odd: half-used tiles */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("winograd", &cs[i]);
    ConvCase small = {1, 256, 7, 7, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};   /* 7x7, many channels */
    run_conv("winograd-7x7", &small, O2H_ACT_RELU, 1, 1);
    run_conv("winograd-7x7", &small, O2H_ACT_SILU, 0, 0);
    ConvCase blocks = {1, 64, 40, 40, 35, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    run_conv("winograd-blocks", &blocks, O2H_ACT_RELU, 1, 1);
    run_conv("winograd-blocks", &blocks, O2H_ACT_NONE, 0, 0);
}

/* Few output pixels: ragged column tails of the GEMM. */
static void test_fewpix(void)
{
    ConvCase cs[] = {
        {1, 40, 7, 7, 50, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   /* pointwise 7x7 */
        {1, 40, 7, 7, 125, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* tail groups of 8, 4, 2, 1 panels */
        {1, 16, 7, 7, 1100, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, /* the 1-column rest joins its column block */
        {2, 300, 5, 5, 33, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* K blocks, ragged F */
        {1, 20, 1, 1, 97, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   /* one pixel (SE conv) */
        {1, 32, 7, 7, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},   /* 3x3 on 7x7 */
        {1, 24, 14, 14, 30, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}, /* stride 2 to 7x7 */
        {1, 64, 8, 8, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},   /* groups */
        {1, 6, 9, 9, 30, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 1},    /* few channels */
        {1, 16, 3, 5, 25, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   /* 15 pixels */
        {1, 16, 5, 10, 19, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* tails of 1..4 columns */
        {1, 16, 3, 17, 19, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 16, 4, 13, 19, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 16, 2, 25, 19, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 512, 7, 7, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  /* K blocks + 1-column tail */
        /* column tails of 2..4 columns by groups of row panels (and a
         * ragged last panel); the last one takes both loop orders */
        {1, 16, 3, 17, 70, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 300, 2, 25, 64, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 300, 4, 73, 40, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("fewpix", &cs[i]);
}

/* Pointwise convs that AVX2 builds run on B copied into contiguous tiles
 * per K block (128 or more channels, maps under 16x16, and larger maps
 * where L2 is 512 KB or less; see o2h_bpack_wanted): a ragged last tile
 * zero-padded in the copy, K blocks, two column blocks with a column tail
 * left in place, batch and groups. Other builds and machines take the
 * in-place paths on the same cases. */
static void test_bpack(void)
{
    ConvCase cs[] = {
        {1, 40, 11, 11, 130, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* 121 = 7 tiles + 9 */
        {1, 300, 9, 9, 130, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   /* K blocks, 81 = 80 + 1 */
        {2, 24, 6, 6, 200, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},    /* 36 = 32 + 4 */
        {1, 32, 7, 7, 256, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2},    /* groups of 128 */
        {1, 24, 17, 17, 144, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* large: 289 = 288 + 1 */
        {1, 40, 18, 18, 256, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* blocks of 256, then 68 */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("bpack", &cs[i]);
    /* 520 channels: column blocks of 112, the second 84 columns; at 11x11
     * the 9 columns left join the first block (121 columns copied) */
    ConvCase blocks[] = {
        {1, 64, 14, 14, 520, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
        {1, 64, 11, 11, 520, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        run_conv("bpack-blocks", &blocks[i], O2H_ACT_RELU, 1, 1);
        run_conv("bpack-blocks", &blocks[i], O2H_ACT_PRELU, 0, 0);
    }
}

/* Column tails of 1..4 columns summed by groups of up to 16 row panels
 * (two panels a vector with AVX-512): 31 full panels and a ragged one
 * (groups of 16, 8, 4, 2, 1), odd K, K blocks, and both loop orders. */
static void test_tail_groups(void)
{
    ConvCase cs[] = {
        {1, 40, 7, 7, 250, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   /* 49: 1-column tail */
        {1, 37, 5, 10, 250, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* 50: 2 columns, odd K */
        {1, 16, 3, 17, 250, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* 51: 3 columns */
        {1, 64, 4, 13, 250, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* 52: 4 columns */
        {1, 300, 7, 7, 136, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  /* K blocks, 1 column */
        {1, 64, 14, 14, 136, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, /* 196: 4 columns */
        {1, 300, 17, 17, 136, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}, /* 289, columns outside */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("tail-groups", &cs[i]);
}

static void test_depthwise(void)
{
    ConvCase cs[] = {
        {1, 8, 12, 12, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},
        {1, 8, 13, 13, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 8},
        {1, 8, 12, 12, 8, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 8},   /* TF-style same pads */
        {2, 5, 17, 35, 5, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 5},
        {1, 5, 17, 18, 5, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 5},
        {1, 4, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},     /* multiplier 2 */
        {1, 3, 10, 10, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3},   /* multiplier 3 */
        {1, 4, 11, 11, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 4},   /* dilation */
        {1, 4, 11, 13, 4, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 4},   /* stride 3 */
        {1, 4, 7, 7, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},
        {1, 4, 1, 1, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},     /* 1x1 plane */
        {1, 4, 5, 40, 4, 1, 7, 1, 1, 1, 1, 0, 3, 0, 3, 4},    /* 1-D */
        {1, 3, 12, 12, 3, 9, 9, 1, 1, 1, 1, 4, 4, 4, 4, 3},   /* 81 taps: direct loop */
        {1, 4, 6, 6, 4, 2, 3, 1, 2, 1, 1, 1, 0, 0, 2, 4},     /* asymmetric */
        {1, 16, 28, 28, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16},
        /* rows of several vectors (whole-vector fills and stores, the last
         * rows of a plane through the tail path) */
        {1, 6, 45, 45, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 6},    /* stride 2, odd width */
        {1, 6, 40, 56, 6, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 6},
        {1, 6, 14, 14, 6, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 6},    /* TF pads to 7x7 */
        {1, 6, 7, 33, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 6},
        {2, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},
        {1, 2, 20, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},     /* narrow rows, multiplier 2 */
        {1, 4, 9, 31, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4},     /* stride 2: 16 even, 15 odd columns */
        {1, 4, 9, 15, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4},     /* 8 and 7 */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        O2hConv2d p = mk(&cs[i]);
        CHECK_EQ_INT(o2h_conv2d_packed_size(&p), 0);
        run_all_epilogues("depthwise", &cs[i]);
    }
}

/* Small maps (at most 784 input pixels), 3x3/5x5, stride 1/2, multiplier 1:
 * the channels-in-lanes kernel (where the rows-in-registers one does not
 * take them: 14x14 stride 1 goes there with AVX-512), with channel counts
 * that leave a partial
 * group of lanes at every vector width (4, 8, 16) and pixel counts that
 * leave a partial transpose block. */
static void test_depthwise_lanes(void)
{
    ConvCase cs[] = {
        {1, 37, 14, 14, 37, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 37},
        {1, 21, 14, 14, 21, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 21},  /* TF pads to 7x7 */
        {1, 19, 14, 14, 19, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 19},
        {1, 23, 14, 14, 23, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 23},
        {1, 40, 7, 7, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 40},
        {1, 13, 7, 7, 13, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 13},
        {1, 9, 7, 7, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 9},
        {1, 5, 7, 7, 5, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 5},
        {1, 3, 7, 7, 3, 5, 5, 2, 2, 1, 1, 1, 1, 2, 2, 3},       /* TF pads, k5 s2 */
        {2, 33, 10, 10, 33, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 33},  /* no pads, batch 2 */
        {1, 17, 13, 15, 17, 3, 3, 2, 2, 1, 1, 1, 0, 1, 2, 17},  /* asymmetric pads */
        {1, 3, 5, 5, 3, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0, 3},       /* one output pixel */
        {1, 11, 14, 14, 11, 5, 5, 1, 1, 1, 1, 3, 3, 3, 3, 11},  /* pads wider than needed */
        {1, 16, 14, 14, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16},  /* whole groups */
        {1, 64, 1, 1, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 64},    /* 1x1 plane */
        {1, 37, 28, 28, 37, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 37},  /* 28x28 */
        {1, 19, 28, 28, 19, 5, 5, 2, 2, 1, 1, 1, 1, 2, 2, 19},  /* 28x28 k5 s2, TF pads */
        {1, 18, 20, 25, 18, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 18},  /* 20x25 */
        {1, 12, 16, 16, 12, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 12},  /* last row, column unread */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("depthwise-lanes", &cs[i]);
    run_every_act("depthwise-lanes-act", &cs[0], 1);
    run_every_act("depthwise-lanes-act", &cs[3], 1);
}

/* Maps whose rows fit one vector with outputs over half of it: the
 * rows-in-registers kernel (AVX-512: W <= 16 < 2*WO; AVX: W <= 8 < 2*WO),
 * with both left pads it takes, stride 2 made wide by its pads, rows of
 * exactly one vector, tall and flat maps, batches (the last plane goes
 * through scratch); the other widths run the same cases on other paths. */
static void test_depthwise_rows(void)
{
    ConvCase cs[] = {
        {2, 19, 16, 16, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 19},  /* W = 16 */
        {1, 21, 12, 9, 21, 3, 3, 1, 1, 1, 1, 0, 0, 2, 2, 21},    /* left pad 0 */
        {1, 13, 7, 7, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 13},     /* AVX 7x7 */
        {3, 11, 6, 8, 11, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 11},     /* W = 8, k5 */
        {1, 9, 15, 13, 9, 5, 5, 1, 1, 1, 1, 1, 1, 3, 3, 9},      /* k5 left pad 1 */
        {1, 7, 16, 16, 7, 3, 3, 2, 2, 1, 1, 1, 1, 2, 2, 7},      /* s2, WO = 9 */
        {1, 7, 8, 8, 7, 3, 3, 2, 2, 1, 1, 1, 1, 2, 2, 7},        /* s2, WO = 5 */
        {2, 5, 16, 16, 5, 5, 5, 2, 2, 1, 1, 2, 2, 3, 3, 5},      /* k5 s2 */
        {1, 8, 16, 10, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},      /* tall */
        {1, 6, 3, 15, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 6},       /* flat */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("depthwise-rows", &cs[i]);
    run_every_act("depthwise-rows-act", &cs[0], 1);
    run_every_act("depthwise-rows-act", &cs[3], 1);
    run_every_act("depthwise-rows-act", &cs[7], 1);
}

/* 3x3 stride 1 on rows wider than a vector: the rows-as-vectors kernel
 * (AVX-512: W > 16, two output rows at a time, rows of two vectors apart;
 * AVX: W > 8, taps as loads masked at the row's ends, rows of up to two vectors two at
 * a time), rows of whole and partial vectors and of less than one, one output row,
 * odd and even row counts, left
 * pad 0 and 1, top pads 0 to 2, right pads wider than needed, batches (the
 * last plane goes through scratch). */
static void test_depthwise_vrows(void)
{
    ConvCase cs[] = {
        {2, 7, 20, 37, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 7},
        {1, 5, 9, 32, 5, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 5},      /* no pads, W = 32 */
        {1, 6, 17, 17, 6, 3, 3, 1, 1, 1, 1, 0, 0, 2, 2, 6},     /* left pad 0 */
        {1, 4, 11, 48, 4, 3, 3, 1, 1, 1, 1, 2, 1, 0, 3, 4},     /* top pad 2, WO = 49 */
        {3, 3, 3, 9, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},       /* AVX: W = 9 */
        {1, 9, 14, 14, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 9},     /* AVX 14x14 */
        {1, 2, 56, 56, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},
        {1, 3, 6, 17, 3, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 3},      /* W = 17, WO = 15 */
        {2, 3, 7, 33, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},      /* odd HO, WO = 33 */
        {2, 5, 28, 28, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5},     /* rows of two vectors */
        {1, 3, 9, 32, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},      /* W = WO = 32 */
        {1, 3, 8, 31, 3, 3, 3, 1, 1, 1, 1, 2, 0, 0, 2, 3},      /* W = 31, top pad 2 */
        {2, 3, 5, 9, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 3},       /* AVX: WO = 8, one vector */
        {2, 3, 6, 10, 3, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 3},      /* AVX: WO = 8, left pad 0 */
        {1, 3, 5, 9, 3, 3, 3, 1, 1, 1, 1, 1, 0, 1, 1, 3},       /* AVX: WO = 8 from 9, TF pads */
        {1, 4, 7, 16, 4, 3, 3, 1, 1, 1, 1, 0, 0, 1, 1, 4},      /* AVX: WO = 15, TF pads */
        {2, 3, 5, 24, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},      /* AVX: three vectors */
        {3, 4, 13, 14, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},     /* AVX: row pairs, odd HO, runs */
        {2, 3, 1, 12, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},      /* one output row */
        {1, 2, 4, 16, 2, 3, 3, 1, 1, 1, 1, 2, 0, 0, 2, 2},      /* AVX: pairs, left pad 0, top 2 */
        {2, 1, 6, 11, 1, 3, 3, 1, 1, 1, 1, 0, 1, 2, 1, 1},      /* one channel: runs of 1 and 0 */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("depthwise-vrows", &cs[i]);
    run_every_act("depthwise-vrows-act", &cs[0], 1);
    run_every_act("depthwise-vrows-act", &cs[3], 1);
    run_every_act("depthwise-vrows-act", &cs[9], 0);
    run_every_act("depthwise-vrows-act", &cs[17], 1);
}

/* 3x3 stride 2 on inputs wider than 16 with outputs over half a vector:
 * the stride-2 rows-as-vectors kernel (AVX: inputs wider than 8, taps
 * from pairs of loads, masked at the row's ends); odd and even widths (the last odd
 * column read past a vector pair), left pad 0 (TF) and 1, top pads 0 to 2,
 * rows of one and two output vectors (16 and 32 wide) and wider, batches. */
static void test_depthwise_vrows_s2(void)
{
    ConvCase cs[] = {
        {2, 5, 28, 28, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5},
        {1, 6, 28, 28, 6, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 6},     /* TF pads */
        {1, 3, 13, 37, 3, 3, 3, 2, 2, 1, 1, 2, 1, 0, 1, 3},     /* odd width, top pad 2 */
        {1, 4, 9, 56, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4},
        {3, 2, 17, 17, 2, 3, 3, 2, 2, 1, 1, 1, 0, 1, 2, 2},     /* AVX, WO = 9 */
        {1, 2, 112, 112, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},
        {1, 3, 10, 32, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3},     /* WO = 16 from 32 */
        {2, 3, 9, 33, 3, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 3},      /* WO = 16 from 33 */
        {1, 3, 7, 64, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3},      /* WO = 32 from 64 */
        {1, 3, 7, 65, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3},      /* WO = 33 */
        {1, 3, 7, 66, 3, 3, 3, 2, 2, 1, 1, 1, 0, 1, 0, 3},      /* WO = 32 from 66 */
        {2, 3, 14, 14, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3},     /* AVX: one vector, 14 -> 7 */
        {1, 3, 14, 14, 3, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 3},     /* 14 -> 7, TF pads */
        {2, 2, 9, 9, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},       /* AVX: W = 9 */
        {1, 2, 7, 10, 2, 3, 3, 2, 2, 1, 1, 1, 0, 0, 1, 2},      /* W = 10, left pad 0 */
        {1, 3, 11, 41, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3},     /* AVX: three vectors */
        {1, 3, 7, 25, 3, 3, 3, 2, 2, 1, 1, 1, 0, 1, 2, 3},      /* 2*WO = W + 1, left pad 0 */
        {1, 3, 7, 27, 3, 3, 3, 2, 2, 1, 1, 1, 0, 1, 2, 3},
        /* AVX, outputs over two vectors (split rows): rows split in whole
         * blocks only (W = 48, TF pads), a masked tail of 2 columns (W =
         * 50), odd widths with left pad 0 and 2*WO = W + 1, top pad 2, odd
         * heights, batches, a tall plane wrapping the ring many times */
        {2, 3, 11, 48, 3, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 3},     /* WO = 24 */
        {1, 4, 10, 50, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4},     /* WO = 25 */
        {2, 3, 9, 35, 3, 3, 3, 2, 2, 1, 1, 2, 0, 0, 2, 3},      /* WO = 18 */
        {1, 2, 41, 33, 2, 3, 3, 2, 2, 1, 1, 1, 1, 2, 1, 2},     /* WO = 17 */
        {1, 2, 7, 80, 2, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, 2},      /* WO = 40, 3 rows */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("depthwise-vrows-s2", &cs[i]);
    run_every_act("depthwise-vrows-s2-act", &cs[0], 1);
    run_every_act("depthwise-vrows-s2-act", &cs[2], 1);
    run_every_act("depthwise-vrows-s2-act", &cs[6], 0);
    run_every_act("depthwise-vrows-s2-act", &cs[19], 1);
}

/* 5x5 stride 2 with outputs over two vectors (AVX: the split rows,
 * o2h_dwe5_ok): left pads 2 and 1 (TF), top pads 0 to 4, even and odd
 * widths, rows of 3 to 9 output vectors (one, two and three chunks of up
 * to four), tall planes wrapping the ring, batches; and the neighbours
 * that stay with other forms (outputs of 16 and 7). */
static void test_depthwise_split5(void)
{
    ConvCase cs[] = {
        {1, 3, 56, 56, 3, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 3},     /* 56 -> 28 */
        {2, 2, 12, 56, 2, 5, 5, 2, 2, 1, 1, 1, 1, 2, 2, 2},     /* TF pads */
        {1, 3, 9, 35, 3, 5, 5, 2, 2, 1, 1, 0, 2, 4, 4, 3},      /* WO = 19 (past the row), top pad 0 */
        {1, 2, 11, 35, 2, 5, 5, 2, 2, 1, 1, 4, 1, 0, 1, 2},     /* WO = 17, top pad 4 */
        {1, 2, 7, 80, 2, 5, 5, 2, 2, 1, 1, 3, 2, 1, 2, 2},      /* WO = 40: chunks of 4 and 1 */
        {1, 2, 5, 129, 2, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 2},     /* WO = 65: 4, 4, 1 */
        {1, 2, 6, 98, 2, 5, 5, 2, 2, 1, 1, 2, 1, 2, 2, 2},      /* WO = 49, left pad 1 */
        {1, 2, 45, 40, 2, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 2},     /* tall: the ring wraps */
        {1, 3, 32, 32, 3, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 3},     /* WO = 16 */
        {1, 3, 14, 14, 3, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 3},     /* 14 -> 7 */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("depthwise-split5", &cs[i]);
    run_every_act("depthwise-split5-act", &cs[0], 1);
    run_every_act("depthwise-split5-act", &cs[3], 0);
}

/* Outputs at most half a vector wide (5 to 8 columns) on inputs up to 16
 * wide: with AVX-512 the two-channels-a-vector kernel, elsewhere the same
 * cases on the other paths. Odd channel counts and single planes (the
 * last plane of a pair alone), batches (pairs across images), rows of 16
 * and WO = 8 at stride 2 (19 padded rows), WO = 5, no pads, TF and
 * asymmetric pads, pads wider than the filter needs, k3/k5, s1/s2. */
static void test_depthwise_pairs(void)
{
    ConvCase cs[] = {
        {1, 13, 7, 7, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 13},
        {2, 9, 7, 7, 9, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 9},      /* batch 2, odd C */
        {1, 21, 14, 14, 21, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 21},  /* TF pads */
        {1, 8, 16, 16, 8, 5, 5, 2, 2, 1, 1, 2, 2, 1, 1, 8},     /* W = 16, WO = 8 */
        {1, 5, 10, 9, 5, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 5},      /* no pads, HO = 8 */
        {3, 3, 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3},       /* WO = 5, batch 3 */
        {1, 7, 9, 15, 7, 5, 5, 2, 2, 1, 1, 3, 1, 2, 3, 7},      /* asymmetric, top pad 3 */
        {1, 4, 6, 8, 4, 5, 5, 1, 1, 1, 1, 4, 4, 0, 0, 4},       /* pads of 4 */
        {1, 1, 7, 7, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},       /* one plane */
        {1, 6, 14, 14, 6, 5, 5, 2, 2, 1, 1, 1, 1, 2, 2, 6},     /* k5 s2 TF pads */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("depthwise-pairs", &cs[i]);
    run_every_act("depthwise-pairs-act", &cs[1], 1);
    run_every_act("depthwise-pairs-act", &cs[2], 1);
    run_every_act("depthwise-pairs-act", &cs[6], 0);
}

/* Few input channels, stride 2 (o2h_conv_smallc with vectors of 8 floats
 * and more, im2col otherwise): partial filter blocks,
 * row tails shorter than a vector and than a register tile, pads, taps'
 * reach past the row, dilation, input rows no output reaches, batches,
 * every activation. */
static void test_smallc(void)
{
    ConvCase cs[] = {
        {1, 3, 40, 40, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},    /* stem, WO = 20 */
        {2, 3, 112, 112, 13, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 1},  /* TF pads, F % MR */
        {1, 1, 9, 37, 8, 3, 3, 2, 2, 1, 1, 2, 1, 0, 1, 1},      /* odd width, top pad 2 */
        {3, 2, 11, 33, 9, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 1},     /* 5x5, WO = 17 */
        {1, 2, 10, 70, 17, 2, 3, 2, 2, 1, 1, 0, 2, 1, 0, 1},    /* 2x3, asymmetric */
        {1, 3, 12, 50, 8, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1},     /* dilation 2 */
        {1, 3, 4, 224, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},    /* WO = 112 */
        {2, 3, 9, 34, 8, 1, 3, 2, 2, 1, 1, 0, 1, 0, 1, 1},      /* 1x3: rows skipped */
        {2, 3, 13, 41, 10, 3, 3, 2, 2, 3, 1, 3, 3, 3, 3, 1},    /* row dilation 3, pads 3 */
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        run_all_epilogues("smallc", &cs[i]);
    run_every_act("smallc-act", &cs[0], 1);
    run_every_act("smallc-act", &cs[3], 0);
}

static void ref_convt(const O2hConv2d *p, const float *x, const float *w, const float *b,
                      double *y)
{
    int cg = p->C / p->G, fg = p->F / p->G;
    size_t ny = (size_t)p->N * p->F * p->HO * p->WO;
    for (size_t i = 0; i < ny; i++)
        y[i] = b ? b[(i / ((size_t)p->HO * p->WO)) % p->F] : 0.0;
    for (int n = 0; n < p->N; n++)
        for (int c = 0; c < p->C; c++)
            for (int ih = 0; ih < p->H; ih++)
                for (int iw = 0; iw < p->W; iw++)
                    for (int fl = 0; fl < fg; fl++)
                        for (int kh = 0; kh < p->KH; kh++)
                            for (int kw = 0; kw < p->KW; kw++) {
                                int f = c / cg * fg + fl;
                                int oh = ih * p->SH - p->PT + kh * p->DH;
                                int ow = iw * p->SW - p->PL + kw * p->DW;
                                if (oh < 0 || oh >= p->HO || ow < 0 || ow >= p->WO)
                                    continue;
                                y[(((size_t)n * p->F + f) * p->HO + oh) * p->WO + ow] +=
                                    (double)x[(((size_t)n * p->C + c) * p->H + ih) * p->W + iw] *
                                    w[(((size_t)c * fg + fl) * p->KH + kh) * p->KW + kw];
                            }
}

static void test_transpose(void)
{
    struct {
        ConvCase c;
        int oph, opw;
    } cs[] = {
        {{1, 4, 5, 5, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}, 1, 1},
        {{2, 4, 4, 6, 6, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 2}, 0, 0},
        {{1, 3, 3, 3, 2, 3, 3, 1, 1, 2, 2, 0, 0, 0, 0, 1}, 0, 0},
        {{1, 2, 4, 3, 2, 2, 2, 3, 2, 1, 1, 0, 1, 0, 1, 1}, 2, 0},
        {{1, 6, 4, 4, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 6}, 1, 1},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        const ConvCase *c = &cs[i].c;
        O2hConv2d p = mk(c);
        p.HO = (c->H - 1) * c->SH - c->PT - c->PB + c->DH * (c->KH - 1) + 1 + cs[i].oph;
        p.WO = (c->W - 1) * c->SW - c->PL - c->PR + c->DW * (c->KW - 1) + 1 + cs[i].opw;
        size_t nx = (size_t)p.N * p.C * p.H * p.W, ny = (size_t)p.N * p.F * p.HO * p.WO;
        size_t nw = (size_t)p.C * (p.F / p.G) * p.KH * p.KW;
        float *x = rt_random(nx), *w = rt_random(nw), *b = rt_random((size_t)p.F);
        float *y = rt_alloc(ny);
        double *ref = (double *)malloc(ny * sizeof(double));
        for (int use_b = 0; use_b < 2; use_b++) {
            o2h_conv_transpose2d_f32(&p, x, w, use_b ? b : NULL, y);
            ref_convt(&p, x, w, use_b ? b : NULL, ref);
            rt_compare("conv_transpose", y, ref, ny, 1e-5);
        }
        free(x); free(w); free(b); free(y); free(ref);
    }
}

int main(void)
{
    test_pointwise();
    test_im2col();
    test_direct();
    test_winograd();
    test_fewpix();
    test_bpack();
    test_tail_groups();
    test_depthwise();
    test_depthwise_lanes();
    test_depthwise_rows();
    test_depthwise_vrows();
    test_depthwise_split5();
    test_depthwise_vrows_s2();
    test_depthwise_pairs();
    test_smallc();
    test_transpose();
    return check_done();
}
