/* cost.c - cycles and resources of each engine kind, from the loops of the
 * templates (plan/loopnest.c) and the arrays they declare.
 *
 * Why here and not in the search: every figure the search combines is one
 * small named function, so "what does a SESL depthwise stage cost" has one
 * answer, plan_cost_sesl_mac, and it is the loop nest of sesl_window.c and
 * sesl_mac.c as they run: the window generator walks the padded input at
 * one pixel per cycle while the compute loop runs pixels x ceil(A/pa) x
 * ceil(B/pb) iterations; in a DATAFLOW region both run at once, so the
 * stage takes the longer (docs/hls.md, section 4). A SESL stream moves one
 * pixel per cycle, so SESL shapes have no pixel lanes (pp = 1).
 *
 * Unroll factors (plan_unroll_legal) follow one rule for both parts: what
 * HLS builds at II=1 with matching array partitions. DSP slices count two
 * int8 MACs per DSP48E2 only where two MACs share an operand, and three on
 * a DSP58 only in its 3-term dot product. Block RAM is counted from the
 * shapes of the templates' arrays (banks x width x depth, as partitioning
 * makes them).
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

/* ------------------------------------------------------- unroll rule */

bool plan_unroll_m2k(int64_t f)
{
    if (f < 1)
        return false;
    while (f % 2 == 0)
        f /= 2;
    return f == 1 || f == 3 || f == 5 || f == 7;
}

/* A divisor leaves no padded tail; an m*2^k factor with m in {1,3,5,7} is
 * what a reusable engine needs for layers of different trip counts (CNN
 * channel counts are mostly multiples of 8, 12, 20 or 28). Either way the
 * arrays the lanes read are padded to a multiple of f and partitioned
 * cyclically by f, so every lane reads its own bank every cycle at II=1. */
bool plan_unroll_legal(int64_t f, int64_t trip)
{
    if (f < 1)
        return false;
    return (trip > 0 && trip % f == 0) || plan_unroll_m2k(f);
}

/* legal factors of a loop of `trip` iterations up to min(trip, limit), ascending */
int plan_unroll_factors(int64_t trip, int64_t limit, int *out, int cap)
{
    int n = 0;
    if (trip < 1)
        trip = 1;
    for (int64_t f = 1; f <= trip && f <= limit && n < cap; f++)
        if (plan_unroll_legal(f, trip))
            out[n++] = (int)f;
    return n;
}

/* ------------------------------------------------------- loop nests */

PlanLoops plan_loops_of(const PlanGeom *g, PlanKind k)
{
    int64_t grp = g->g > 0 ? g->g : 1, kk = g->kh * g->kw;
    switch (k) {
    case PLAN_K_CONV: case PLAN_K_PWCONV: case PLAN_K_FC:
        return (PlanLoops){g->f, g->c / grp * kk, g->ho * g->wo};
    case PLAN_K_DWCONV:
        return (PlanLoops){g->f, kk, g->ho * g->wo};
    case PLAN_K_POOL:
        return (PlanLoops){g->c, kk, g->ho * g->wo};
    default:   /* element-wise: over output channels (a channel move reads others) */
        return (PlanLoops){g->f, 1, g->h * g->w};
    }
}

/* ----------------------------------------------------- SESL cycles */

static int64_t max2(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t times_batch(const PlanUnit *u, int64_t cyc)
{
    int64_t n = u->batch > 1 ? u->batch : 1;
    return cyc > INT64_MAX / 4 / n ? INT64_MAX / 4 : cyc * n;
}

/* sesl_window.c in front of a windowed layer, else nothing */
static int64_t window_cycles(const PlanUnit *u)
{
    return u->windowed ? plan_ln_sesl_window(&u->geo) : 0;
}

/* conv, depthwise, pointwise, FC: sesl_window.c || sesl_mac.c */
int64_t plan_cost_sesl_mac(const PlanUnit *u, PlanShape s)
{
    int64_t mac = plan_ln_sesl_mac(u->loops.p, u->loops.a, u->loops.b, s.pa, s.pb);
    return times_batch(u, max2(window_cycles(u), mac));
}

/* pools: sesl_window.c || sesl_pool.c (windowed), or sesl_pool.c alone (global) */
int64_t plan_cost_sesl_pool(const PlanUnit *u, PlanShape s)
{
    bool global = u->op == PLAN_SEML_GPOOL;
    return times_batch(u, max2(window_cycles(u), plan_ln_sesl_pool(&u->geo, global, s.pa, s.pb)));
}

/* element-wise: sesl_eltwise.c, pixels x ceil(F/pa) (F output channels) */
int64_t plan_cost_sesl_eltwise(const PlanUnit *u, PlanShape s)
{
    return times_batch(u, plan_ln_sesl_eltwise(u->geo.h * u->geo.w, u->geo.f, s.pa));
}

int64_t plan_cost_sesl(const PlanUnit *u, PlanShape s)
{
    switch (u->kind) {
    case PLAN_K_POOL: return plan_cost_sesl_pool(u, s);
    case PLAN_K_ELTWISE: return plan_cost_sesl_eltwise(u, s);
    default: return plan_cost_sesl_mac(u, s);
    }
}

/* cycles from a SESL stage's first input word to its first output word
 * beyond waiting for input: one output pixel's iterations and the depths */
int64_t plan_cost_sesl_pixel(const PlanUnit *u, PlanShape s)
{
    int64_t win = u->windowed ? O2H_DEPTH_WINDOW + O2H_RESTART : 0;
    switch (u->kind) {
    case PLAN_K_POOL:
        if (u->op == PLAN_SEML_GPOOL)   /* pixels are summed as they come; then the results loop */
            return O2H_DEPTH_POOL(1) + O2H_RESTART + plan_cdiv(u->geo.c, s.pa) + O2H_DEPTH_ELT;
        return win + plan_cdiv(u->loops.a, s.pa) * plan_cdiv(u->loops.b, s.pb) + O2H_DEPTH_POOL(s.pb);
    case PLAN_K_ELTWISE:
        return plan_cdiv(u->loops.a, s.pa) + O2H_DEPTH_ELT;
    default:
        return win + plan_cdiv(u->loops.a, s.pa) * plan_cdiv(u->loops.b, s.pb) + O2H_DEPTH_MAC(s.pb);
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

PlanBuf plan_buf_add(PlanBuf a, PlanBuf b)
{
    int64_t br = (int64_t)a.bram + b.bram, ur = (int64_t)a.uram + b.uram, lu = (int64_t)a.lut + b.lut;
    return (PlanBuf){a.bits + b.bits, br > INT_MAX ? INT_MAX : (int)br, ur > INT_MAX ? INT_MAX : (int)ur,
                     lu > INT_MAX ? INT_MAX : (int)lu};
}

bool plan_kind_has_weights(PlanKind k)
{
    return k == PLAN_K_CONV || k == PLAN_K_DWCONV || k == PLAN_K_PWCONV || k == PLAN_K_FC;
}

/* sesl_mac.c w_rom[NF*NR][PA][PB]: PA banks of PB words, NF*NR deep */
PlanBuf plan_mem_sesl_weights(const PlanUnit *u, PlanShape s)
{
    if (!plan_kind_has_weights(u->kind))
        return (PlanBuf){0, 0, 0, 0};
    int64_t depth = plan_cdiv(u->loops.a, s.pa) * plan_cdiv(u->loops.b, s.pb);
    return plan_buf(s.pa, (int64_t)s.pb * u->bits, depth);
}

/* sesl_window.c lb[KSPAN_H][WP][C]: one bank per row of the window span,
 * a whole pixel (C values) per word, the padded row deep */
PlanBuf plan_mem_sesl_linebuf(const PlanUnit *u)
{
    if (!u->windowed)
        return (PlanBuf){0, 0, 0, 0};
    const PlanGeom *g = &u->geo;
    int64_t span = (g->kh - 1) * g->dh + 1, wp = g->w + g->pl + g->pr;
    return plan_buf(span, g->c * u->bits, wp);
}

/* Shallow FIFOs are shift registers (SRL32: one LUT per bit lane per 32
 * words), deeper ones block RAM, as Vitis HLS implements STREAM channels. */
#define SRL_MAX_DEPTH 32

/* a FIFO of `depth` words of `bytes` each (STREAM: one word per access) */
PlanBuf plan_mem_fifo(int64_t depth, int64_t bytes)
{
    if (depth <= 0 || bytes <= 0)
        return (PlanBuf){0, 0, 0, 0};
    if (depth > SRL_MAX_DEPTH)
        return plan_buf(1, 8 * bytes, depth);
    int64_t luts = 8 * bytes * plan_cdiv(depth, SRL_MAX_DEPTH);
    return (PlanBuf){8 * bytes * depth, 0, 0, luts > INT_MAX ? INT_MAX : (int)luts};
}

/* The FIFO between a window generator and its compute process: windows
 * come in bursts (a row of windows whose last rows are bottom padding is
 * emitted without waiting for input; a strided row of windows arrives
 * faster than the compute takes them) that the FIFO absorbs, or the
 * generator and everything before it stall (plan/dfsim.c measures it). */
int64_t plan_window_fifo_depth(const PlanUnit *u)
{
    const PlanGeom *g = &u->geo;
    if (!u->windowed || g->ho * g->wo <= 1)
        return u->windowed ? 2 : 0;
    int64_t burst = 0;
    for (int64_t r = g->ho - 1; r >= 0 && r * g->sh + (g->kh - 1) * g->dh >= g->pt + g->h; r--)
        burst++;
    int64_t acc = g->wo - g->w / (g->sh * g->sw);
    int64_t d = burst * g->wo > acc ? burst * g->wo : acc;
    return (d > 0 ? d : 0) + 2;
}

/* ----------------------------------------------------- DSP and LUT */

static int64_t dsp_int8(PlanDspKind dk, PlanShape s, bool shared_input)
{
    int64_t lanes = (int64_t)s.pa * s.pb * s.pp, best = lanes;
    if (dk == PLAN_DSP58)                 /* 3-term int8 dot product over the reduction */
        return s.pb >= 3 ? (int64_t)s.pa * s.pp * plan_cdiv(s.pb, 3) : lanes;
    if (dk != PLAN_DSP48E2)
        return lanes;
    if (shared_input && s.pa >= 2)        /* two filters read the same input value */
        best = (int64_t)s.pb * s.pp * plan_cdiv(s.pa, 2);
    if (s.pp >= 2) {                      /* two pixels use the same weight */
        int64_t n = (int64_t)s.pa * s.pb * plan_cdiv(s.pp, 2);
        if (n < best)
            best = n;
    }
    return best;
}

/* DSP slices of an engine of kind k with shape s: MAC lanes, packed where
 * two MACs share an operand (int8 on DSP48E2/DSP58); element-wise engines
 * that multiply take one slice per lane; pools and adders none. */
int plan_engine_dsp(const PlanDevice *dev, PlanKind k, bool mul, IrPrecision prec, int bits, PlanShape s)
{
    int64_t lanes = (int64_t)s.pa * s.pb * s.pp, n;
    if (k == PLAN_K_ELTWISE && mul)   /* two different operands per lane: nothing shared */
        n = prec == IR_PREC_FLOAT ? plan_dsp_for_lanes(dev, prec, bits, lanes) : lanes;
    else if (!plan_kind_has_weights(k))
        return 0;
    else if (prec != IR_PREC_FLOAT && bits <= 8)
        n = dsp_int8(dev->dsp_kind, s, k != PLAN_K_DWCONV);
    else
        n = plan_dsp_for_lanes(dev, prec, bits, lanes);
    return n > INT_MAX ? INT_MAX : (int)n;
}

static int lut_per_lane(PlanKind k, IrPrecision prec, int bits)
{
    if (plan_kind_has_weights(k)) {
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
