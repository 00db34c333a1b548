/* cost.c - cycles and resources of each engine kind.
 *
 * Why one model for all kinds: every engine onnx2hls emits is a loop nest
 * pipelined at II=1 with three loops, A outputs in parallel, B reduction
 * terms per output and P output pixels (plan.h, PlanLoops). Each kind only
 * says what A, B and P are (plan_loops_*); an engine unrolls pa x pb x pp of
 * them, so it needs ceil(A/pa)*ceil(B/pb)*ceil(P/pp) cycles plus its pipeline
 * depth. This is the figure the emitted HLS loops must reproduce in C
 * simulation, so it stays this plain.
 *
 * Resources: DSP slices from the MAC lanes (two int8 MACs per DSP48E2);
 * block RAM from the buffers' shapes: array partitioning gives each bank its
 * own memories, so wide, shallow banks cost far more 18 Kb blocks than their
 * bits suggest; small banks become distributed (LUT) RAM. LUTs are a rough
 * per-lane figure plus control per engine.
 */
#include "plan_internal.h"

#include <limits.h>

int64_t plan_cdiv(int64_t a, int64_t b)
{
    if (b <= 0)
        return a > 0 ? INT64_MAX : 0;
    return a <= 0 ? 0 : (a + b - 1) / b;
}

int plan_ilog2_ceil(int64_t x)
{
    int l = 0;
    while (((int64_t)1 << l) < x && l < 62)
        l++;
    return l;
}

int plan_value_bytes(int bits)
{
    return bits <= 0 ? 4 : (bits + 7) / 8;
}

/* ------------------------------------------------------- loop nests */

/* Standard (or grouped) conv: F filters in parallel, C/group*Kh*Kw terms. */
PlanLoops plan_loops_conv(int64_t f, int64_t c_per_group, int64_t kh, int64_t kw, int64_t pixels)
{
    return (PlanLoops){f, c_per_group * kh * kw, pixels};
}

/* Depthwise conv: channels in parallel, the Kh*Kw taps are the reduction. */
PlanLoops plan_loops_dwconv(int64_t channels, int64_t kh, int64_t kw, int64_t pixels)
{
    return (PlanLoops){channels, kh * kw, pixels};
}

/* Pointwise (1x1) conv: F filters in parallel, C input channels. */
PlanLoops plan_loops_pwconv(int64_t f, int64_t c, int64_t pixels)
{
    return (PlanLoops){f, c, pixels};
}

/* Fully connected: output features in parallel, input features, batch rows. */
PlanLoops plan_loops_fc(int64_t out_features, int64_t in_features, int64_t rows)
{
    return (PlanLoops){out_features, in_features, rows};
}

/* Pooling: channels in parallel, the window (whole map for global pooling). */
PlanLoops plan_loops_pool(int64_t channels, int64_t window, int64_t pixels)
{
    return (PlanLoops){channels, window, pixels};
}

/* Element-wise: channels in parallel over every pixel, nothing to reduce. */
PlanLoops plan_loops_eltwise(int64_t channels, int64_t pixels)
{
    return (PlanLoops){channels, 1, pixels};
}

/* ------------------------------------------------------------ cycles */

int64_t plan_cost_depth(PlanKind k, PlanShape s)
{
    switch (k) {
    case PLAN_K_CONV: case PLAN_K_DWCONV: case PLAN_K_PWCONV: case PLAN_K_FC:
        return 7 + plan_ilog2_ceil(s.pb);   /* read, multiply, adder tree, accumulate, write */
    case PLAN_K_POOL:
        return 4 + plan_ilog2_ceil(s.pb);
    default:
        return 4;
    }
}

static int64_t nest_cycles(const PlanUnit *u, PlanShape s)
{
    int64_t n = plan_cdiv(u->loops.a, s.pa);
    int64_t m = plan_cdiv(u->loops.b, s.pb);
    int64_t q = plan_cdiv(u->loops.p, s.pp);
    if (n > 0 && m > INT64_MAX / n)
        return INT64_MAX / 4;
    n *= m;
    if (n > 0 && q > INT64_MAX / 4 / n)
        return INT64_MAX / 4;
    return n * q + plan_cost_depth(u->kind, s);
}

/* Standard conv: pa filters x pb of the C*K*K terms x pp pixels per cycle. */
int64_t plan_cost_conv(const PlanUnit *u, PlanShape s)
{
    return nest_cycles(u, s);
}

/* Depthwise conv: pa channels x pb of the K*K taps x pp pixels per cycle. */
int64_t plan_cost_dwconv(const PlanUnit *u, PlanShape s)
{
    return nest_cycles(u, s);
}

/* Pointwise conv: pa filters x pb input channels x pp pixels per cycle. */
int64_t plan_cost_pwconv(const PlanUnit *u, PlanShape s)
{
    return nest_cycles(u, s);
}

/* FC: pa outputs x pb inputs per cycle (pp rows of a batch). */
int64_t plan_cost_fc(const PlanUnit *u, PlanShape s)
{
    return nest_cycles(u, s);
}

/* Pooling: pa channels x pb window taps x pp pixels per cycle. */
int64_t plan_cost_pool(const PlanUnit *u, PlanShape s)
{
    return nest_cycles(u, s);
}

/* Element-wise: pa channels x pp pixels per cycle. */
int64_t plan_cost_eltwise(const PlanUnit *u, PlanShape s)
{
    return nest_cycles(u, s);
}

int64_t plan_cost_cycles(const PlanUnit *u, PlanShape s)
{
    switch (u->kind) {
    case PLAN_K_CONV: return plan_cost_conv(u, s);
    case PLAN_K_DWCONV: return plan_cost_dwconv(u, s);
    case PLAN_K_PWCONV: return plan_cost_pwconv(u, s);
    case PLAN_K_FC: return plan_cost_fc(u, s);
    case PLAN_K_POOL: return plan_cost_pool(u, s);
    default: return plan_cost_eltwise(u, s);
    }
}

/* ------------------------------------------------------- memories */

/* 18 Kb block RAM in simple dual-port mode: 16Kx1 ... 512x36 */
int plan_bram18k(int64_t width_bits, int64_t depth)
{
    static const int64_t cfg[][2] = {{16384, 1}, {8192, 2}, {4096, 4}, {2048, 9}, {1024, 18}, {512, 36}};
    if (width_bits <= 0 || depth <= 0)
        return 0;
    int64_t best = INT64_MAX;
    for (int i = 0; i < 6; i++) {
        int64_t n = plan_cdiv(width_bits, cfg[i][1]) * plan_cdiv(depth, cfg[i][0]);
        if (n < best)
            best = n;
    }
    return best > INT_MAX ? INT_MAX : (int)best;
}

/* 288 Kb UltraRAM: fixed 4K x 72 */
int plan_uram(int64_t width_bits, int64_t depth)
{
    if (width_bits <= 0 || depth <= 0)
        return 0;
    int64_t n = plan_cdiv(width_bits, 72) * plan_cdiv(depth, 4096);
    return n > INT_MAX ? INT_MAX : (int)n;
}

/* Banks of at most this many bits go to distributed RAM (LUTs). */
#define LUTRAM_MAX_BITS 2048

PlanBuf plan_buf(int64_t banks, int64_t width_bits, int64_t depth)
{
    PlanBuf b = {0, 0, 0, 0};
    if (banks <= 0 || width_bits <= 0 || depth <= 0)
        return b;
    b.bits = banks * width_bits * depth;
    if (width_bits * depth <= LUTRAM_MAX_BITS) {
        int64_t luts = banks * plan_cdiv(depth, 64) * width_bits;
        b.lut = luts > INT_MAX ? INT_MAX : (int)luts;
        return b;
    }
    int64_t br = banks * plan_bram18k(width_bits, depth);
    int64_t ur = banks * plan_uram(width_bits, depth);
    b.bram = br > INT_MAX ? INT_MAX : (int)br;
    b.uram = ur > INT_MAX ? INT_MAX : (int)ur;
    return b;
}

static bool has_weights(PlanKind k)
{
    return k == PLAN_K_CONV || k == PLAN_K_DWCONV || k == PLAN_K_PWCONV || k == PLAN_K_FC;
}

/* SESL weights live on chip: pa banks (one per filter lane), each pb words
 * wide so a cycle reads pa*pb weights; pixel lanes share them. */
PlanBuf plan_mem_sesl_weights(const PlanUnit *u, PlanShape s)
{
    if (has_weights(u->kind)) {
        int64_t depth = plan_cdiv(u->loops.a, s.pa) * plan_cdiv(u->loops.b, s.pb);
        return plan_buf(s.pa, (int64_t)s.pb * u->bits, depth);
    }
    if (u->w_bytes > 0) /* BN scale/shift, PRelu slopes: per-channel constants */
        return plan_buf(s.pa, 2 * (int64_t)u->bits, plan_cdiv(u->loops.a, s.pa));
    return (PlanBuf){0, 0, 0, 0};
}

/* Line buffer of a windowed stage: K-1 rows plus one window of the input,
 * banked by row so the window's rows are read in the same cycle. */
static PlanBuf window_linebuf(const PlanUnit *u, PlanShape s)
{
    int64_t values = (u->kh - 1) * u->win * u->cin + u->kw * u->cin;
    int64_t lanes = u->kind == PLAN_K_CONV ? plan_cdiv(s.pb, u->kh * u->kw) : s.pa;
    if (lanes > u->cin)
        lanes = u->cin;
    if (lanes < 1)
        lanes = 1;
    int64_t width = lanes * s.pp * u->bits;
    return plan_buf(u->kh, width, plan_cdiv(values, u->kh * lanes * s.pp));
}

PlanBuf plan_mem_sesl_linebuf(const PlanUnit *u, PlanShape s)
{
    bool windowed = (u->kind == PLAN_K_CONV || u->kind == PLAN_K_DWCONV || u->kind == PLAN_K_POOL) && u->kh > 1;
    if (windowed && u->loops.p > 1)
        return window_linebuf(u, s);
    if (u->kind == PLAN_K_POOL) /* global pooling: one accumulator per channel */
        return plan_buf(s.pa, 32, plan_cdiv(u->cin, s.pa));
    if (u->kind == PLAN_K_PWCONV || u->kind == PLAN_K_FC) /* one input pixel, reused by every filter tile */
        return plan_buf(1, (int64_t)s.pb * s.pp * u->bits, plan_cdiv(u->loops.b, s.pb));
    return (PlanBuf){0, 0, 0, 0};
}

/* SEML weight tile: pa filters x the largest reduction served, twice (the
 * next tile loads from DRAM while this one computes). */
PlanBuf plan_mem_seml_wtile(PlanKind k, PlanShape s, int64_t max_b, int bits)
{
    if (!has_weights(k))
        return (PlanBuf){0, 0, 0, 0};
    return plan_buf(s.pa, (int64_t)s.pb * bits, 2 * plan_cdiv(max_b, s.pb));
}

/* ----------------------------------------------------- DSP and LUT */

int plan_engine_dsp(const PlanDevice *dev, PlanKind k, bool mul, IrPrecision prec, int bits, int pes)
{
    if (has_weights(k) || (k == PLAN_K_ELTWISE && mul))
        return plan_dsp_for_lanes(dev, prec, bits, pes);
    return 0;
}

static int lut_per_lane(PlanKind k, IrPrecision prec, int bits)
{
    if (has_weights(k)) {
        if (prec == IR_PREC_FLOAT)
            return 300;          /* fp adders/multipliers: DSP plus LUT glue */
        return bits <= 8 ? 24 : bits <= 16 ? 40 : 64;  /* accumulators, operand packing */
    }
    return prec == IR_PREC_FLOAT ? 150 : 2 * bits;   /* compare / add lanes */
}

int plan_engine_lut(PlanKind k, bool sesl, IrPrecision prec, int bits, int pes)
{
    int control = sesl ? 600 : 2500; /* SEML: descriptors, address generators, DMA */
    int64_t n = (int64_t)pes * lut_per_lane(k, prec, bits) + control;
    return n > INT_MAX ? INT_MAX : (int)n;
}
