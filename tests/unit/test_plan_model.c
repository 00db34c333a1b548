/* test_plan_model.c - the pieces the planner's search combines: the device
 * database and JSON device files, the cycle formulas of each engine kind,
 * the block RAM model, the layer-to-unit mapping (fusion, views, host
 * layers), the memory analysis and the roofline. */
#include "check.h"
#include "plan/plan_internal.h"
#include "templates/hls/common/o2h_desc.h"
#include "test_plan_graphs.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ devices */

static void test_devices(void)
{
    static const char *names[] = {"zcu102", "zcu104", "ultra96v2", "kv260", "pynq-z2", "zc706", "u250", "vck190"};
    CHECK(plan_device_count() >= 8);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const PlanDevice *d = plan_device_find(names[i]);
        CHECK_MSG(d != NULL, "device %s missing", names[i]);
        if (d)
            CHECK(d->dsp > 0 && d->bram18k > 0 && d->lut > 0 && d->ff > d->lut && d->dram_gbps > 0 &&
                  d->clock_mhz > 0);
    }
    const PlanDevice *z = plan_device_find("ZCU-102");
    CHECK(z && !strcmp(z->part, "XCZU9EG"));
    CHECK(z && z->dsp == 2520 && z->bram18k == 1824 && z->uram == 0 && z->lut == 274080 && z->ff == 548160);
    const PlanDevice *z7 = plan_device_find("xczu7ev");
    CHECK(z7 && z7->dsp == 1728 && z7->bram18k == 624 && z7->uram == 96);
    CHECK(plan_device_find("zcu999") == NULL);
    CHECK(plan_device_find(NULL) == NULL);
    CHECK_NEAR(plan_lanes_per_dsp(z, IR_PREC_INT8, 8), 2.0, 0);
    CHECK_NEAR(plan_lanes_per_dsp(plan_device_find("pynq-z2"), IR_PREC_INT8, 8), 1.0, 0);
    CHECK_NEAR(plan_lanes_per_dsp(plan_device_find("vck190"), IR_PREC_INT8, 8), 3.0, 0);
    CHECK_EQ_INT(plan_dsp_for_lanes(z, IR_PREC_INT8, 8, 1024), 512);
    CHECK_EQ_INT(plan_dsp_for_lanes(z, IR_PREC_INT16, 16, 100), 100);
    CHECK_EQ_INT(plan_dsp_for_lanes(z, IR_PREC_FLOAT, 32, 10), 50);
    /* AXI: four 128-bit HP ports on ZCU102: 16-byte beats; the ports, not the DDR4, bound the bytes per cycle */
    CHECK(z && z->axi_ports == 4 && z->axi_bits == 128 && z->axi_eff > 0.5 && z->axi_eff <= 1);
    CHECK_EQ_INT(plan_device_beat(z), 16);
    CHECK_NEAR(plan_device_bytes_per_cycle(z, 167, 19.2), 4 * 16 * z->axi_eff, 1e-9);
    CHECK_NEAR(plan_device_bytes_per_cycle(z, 167, 2.0), 2.0e9 / 167e6, 1e-9);   /* a slow DRAM binds */
    CHECK_EQ_INT(plan_device_beat(plan_device_find("pynq-z2")), 8);
    CHECK_EQ_INT(plan_device_beat(plan_device_find("u250")), 64);
}

static int load_text(const char *text, PlanDevice *dev, IrDiag *d)
{
    char path[] = "/tmp/o2h_device_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -2;
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    int rc = plan_device_load(path, dev, d);
    unlink(path);
    return rc;
}

static void expect_bad(const char *text, const char *needle)
{
    IrDiag d;
    diag_init(&d);
    PlanDevice dev;
    CHECK_MSG(load_text(text, &dev, &d) == -1, "accepted: %s", text);
    CHECK_MSG(diag_contains(&d, needle), "no '%s' for: %s", needle, text);
    diag_free(&d);
}

static void test_device_file(void)
{
    IrDiag d;
    diag_init(&d);
    PlanDevice dev;
    CHECK(load_text("{\"name\":\"myboard\",\"dsp\":100,\"bram18k\":50,\"lut\":20000,"
                    "\"dram_gbps\":4.5,\"clock_mhz\":150,\"dsp_kind\":\"dsp48e1\"}",
                    &dev, &d) == 0);
    CHECK(!strcmp(dev.name, "myboard") && dev.dsp == 100 && dev.bram18k == 50 && dev.uram == 0);
    CHECK(dev.ff == 40000 && dev.dsp_kind == PLAN_DSP48E1);
    CHECK_NEAR(dev.dram_gbps, 4.5, 1e-12);
    CHECK(dev.axi_ports == 4 && dev.axi_bits == 128);   /* defaults */
    CHECK(load_text("{\"base\":\"kv260\",\"clock_mhz\":250,\"axi_ports\":2,\"axi_bits\":64,\"axi_eff\":0.7}", &dev,
                    &d) == 0);
    CHECK(dev.dsp == 1248 && dev.uram == 64 && dev.axi_ports == 2 && dev.axi_bits == 64);
    CHECK_NEAR(dev.axi_eff, 0.7, 1e-12);
    CHECK_NEAR(dev.clock_mhz, 250, 0);
    CHECK_EQ_INT(d.n_errors, 0);
    diag_free(&d);
    expect_bad("{\"dsp\":100,\"bram18k\":50,\"lut\":2000,\"dram_gbps\":1,\"clock_mhz\":100,\"dps\":1}",
               "unknown device key");
    expect_bad("{\"dsp\":100,\"dsp\":100,\"bram18k\":50,\"lut\":2000,\"dram_gbps\":1,\"clock_mhz\":100}",
               "appears twice");
    expect_bad("{\"dsp\":-1,\"bram18k\":50,\"lut\":2000,\"dram_gbps\":1,\"clock_mhz\":100}", "positive");
    expect_bad("{\"dsp\":1.5,\"bram18k\":50,\"lut\":2000,\"dram_gbps\":1,\"clock_mhz\":100}", "integer");
    expect_bad("{\"dsp\":\"many\",\"bram18k\":50,\"lut\":2000,\"dram_gbps\":1,\"clock_mhz\":100}", "number");
    expect_bad("{\"bram18k\":50,\"lut\":2000,\"dram_gbps\":1,\"clock_mhz\":100}", "lacks key \"dsp\"");
    expect_bad("{\"dsp\":100,", "not valid JSON");
    expect_bad("[1,2]", "one JSON object");
    expect_bad("{\"base\":\"nosuch\"}", "known device");
    expect_bad("{\"base\":\"zcu102\",\"dsp_kind\":\"DSP99\"}", "dsp_kind");
    expect_bad("{\"base\":\"zcu102\",\"axi_eff\":1.5}", "axi_eff");
    expect_bad("{\"base\":\"zcu102\",\"axi_bits\":100}", "axi_bits");
    expect_bad("{\"base\":\"zcu102\",\"axi_ports\":0}", "positive");
    IrDiag d2;
    diag_init(&d2);
    CHECK(plan_device_load("/nonexistent/dev.json", &dev, &d2) == -1);
    CHECK(diag_contains(&d2, "cannot open"));
    diag_free(&d2);
}

/* --------------------------------------------------------------- cost */

static void test_unroll_rule(void)
{
    CHECK(plan_unroll_legal(1, 7) && plan_unroll_legal(7, 7) && plan_unroll_legal(9, 27));
    CHECK(plan_unroll_legal(24, 1280) && plan_unroll_legal(40, 1280) && plan_unroll_legal(56, 960));
    CHECK(plan_unroll_legal(9, 9) && !plan_unroll_legal(9, 25));     /* 9 = 9*2^0: only as a divisor */
    CHECK(!plan_unroll_legal(11, 1280) && plan_unroll_legal(11, 1331 / 11 * 11));
    CHECK(!plan_unroll_legal(0, 8) && !plan_unroll_legal(-2, 8));
    CHECK(plan_unroll_m2k(448) && !plan_unroll_m2k(9) && !plan_unroll_m2k(36));
    int f[64];
    int n = plan_unroll_factors(27, 1000, f, 64);   /* 1 2 3 4 5 6 7 8 9 10 12 14 16 20 24 27 */
    CHECK_EQ_INT(n, 16);
    CHECK(f[0] == 1 && f[8] == 9 && f[n - 1] == 27);
}

/* a unit with a full geometry, as units.c makes it */
static PlanUnit geo_unit(PlanKind k, PlanSemlOp op, int64_t h, int64_t w, int64_t c, int64_t f, int64_t kk,
                         int64_t s, int64_t pad)
{
    PlanUnit u;
    memset(&u, 0, sizeof u);
    u.kind = k, u.op = op, u.bits = 8, u.prec = IR_PREC_INT8, u.batch = 1;
    PlanGeom *g = &u.geo;
    g->h = h, g->w = w, g->c = c, g->f = f, g->kh = g->kw = kk, g->sh = g->sw = s, g->dh = g->dw = 1, g->g = 1;
    g->pt = g->pl = g->pb = g->pr = pad;
    g->ho = (h + 2 * pad - kk) / s + 1, g->wo = (w + 2 * pad - kk) / s + 1;
    if (k == PLAN_K_DWCONV)
        g->g = c;
    if (k == PLAN_K_ELTWISE)
        g->ho = h, g->wo = w, g->f = c;
    u.windowed = kk > 1 || s > 1 || pad > 0;
    u.loops = plan_loops_of(g, k);
    return u;
}

static void test_sesl_cycles(void)
{
    /* MobileNetV2 stem: 224x224x3, 32 filters 3x3 s2 pad 1 -> 112x112 */
    PlanUnit u = geo_unit(PLAN_K_CONV, PLAN_SEML_CONV, 224, 224, 3, 32, 3, 2, 1);
    CHECK_EQ_INT(u.loops.b, 27);
    CHECK_EQ_INT(u.loops.p, 112 * 112);
    int64_t win = 226 * 226 + O2H_DEPTH_WINDOW + O2H_RESTART;
    CHECK_EQ_INT(plan_ln_sesl_window(&u.geo), win);
    PlanShape s = {4, 9, 1};
    int64_t mac = 12544 * 8 * 3 + O2H_DEPTH_MAC(9) + O2H_RESTART;
    CHECK_EQ_INT(plan_cost_sesl_mac(&u, s), mac);
    PlanShape full = {32, 27, 1};   /* compute at one pixel per cycle: the window generator binds */
    CHECK_EQ_INT(plan_cost_sesl(&u, full), win);
    /* pointwise: no window generator, pixels x filter tiles x reduction tiles */
    PlanUnit pw = geo_unit(PLAN_K_PWCONV, PLAN_SEML_CONV, 56, 56, 24, 144, 1, 1, 0);
    CHECK(!pw.windowed);
    CHECK_EQ_INT(plan_cost_sesl(&pw, (PlanShape){16, 8, 1}), 3136 * 9 * 3 + O2H_DEPTH_MAC(8) + O2H_RESTART);
    /* depthwise with a stride-2 window: the generator walks 114 x 114 */
    PlanUnit dw = geo_unit(PLAN_K_DWCONV, PLAN_SEML_DW, 112, 112, 96, 96, 3, 2, 1);
    CHECK_EQ_INT(dw.loops.b, 9);
    CHECK_EQ_INT(plan_cost_sesl(&dw, (PlanShape){96, 9, 1}), 114 * 114 + O2H_DEPTH_WINDOW + O2H_RESTART);
    /* element-wise and global pool */
    PlanUnit el = geo_unit(PLAN_K_ELTWISE, PLAN_SEML_ELT, 28, 28, 32, 32, 1, 1, 0);
    CHECK_EQ_INT(plan_cost_sesl(&el, (PlanShape){8, 1, 1}), 784 * 4 + O2H_DEPTH_ELT + O2H_RESTART);
    PlanUnit gp = geo_unit(PLAN_K_POOL, PLAN_SEML_GPOOL, 7, 7, 1280, 1280, 1, 1, 0);
    gp.windowed = false;
    CHECK_EQ_INT(plan_cost_sesl(&gp, (PlanShape){16, 1, 1}), plan_ln_sesl_pool(&gp.geo, true, 16, 1));
    /* batch: every image once more */
    pw.batch = 3;
    CHECK_EQ_INT(plan_cost_sesl(&pw, (PlanShape){16, 8, 1}), 3 * (3136 * 9 * 3 + O2H_DEPTH_MAC(8) + O2H_RESTART));
}

/* the SESL frontier: legal factors only, one pixel per cycle at best */
static void test_frontier(void)
{
    PlanUnit u = geo_unit(PLAN_K_PWCONV, PLAN_SEML_CONV, 28, 28, 32, 192, 1, 1, 0);
    u.macs = u.ops = 784 * 32 * 192;
    PlanFrontierScratch *sc = plan_frontier_scratch_new(8192);
    PlanFrontier f;
    plan_frontier_build(&u, plan_device_find("zcu102"), sc, &f);
    CHECK(f.n > 3);
    for (int i = 0; i < f.n; i++) {
        PlanShape s = f.pts[i].shape;
        CHECK(s.pp == 1 && plan_unroll_legal(s.pa, 192) && plan_unroll_legal(s.pb, 32));
        CHECK(f.pts[i].cycles >= 784);
        if (i)
            CHECK(f.pts[i].pes > f.pts[i - 1].pes && f.pts[i].cycles < f.pts[i - 1].cycles);
    }
    CHECK_EQ_INT(f.pts[f.n - 1].cycles, 784 + O2H_DEPTH_MAC(32) + O2H_RESTART);
    int k = plan_frontier_pick(&f, 784 * 12);
    CHECK(k >= 0 && f.pts[k].cycles <= 784 * 12 && (k == 0 || f.pts[k - 1].cycles > 784 * 12));
    plan_frontier_free(&f);
    plan_frontier_scratch_free(sc);
}

static void test_dsp(void)
{
    const PlanDevice *z = plan_device_find("zcu102"), *v = plan_device_find("vck190"), *e1 = plan_device_find("zc706");
    /* two int8 MACs per DSP48E2 only with a shared operand */
    CHECK_EQ_INT(plan_engine_dsp(z, PLAN_K_CONV, false, IR_PREC_INT8, 8, (PlanShape){4, 9, 1}), 18);
    CHECK_EQ_INT(plan_engine_dsp(z, PLAN_K_CONV, false, IR_PREC_INT8, 8, (PlanShape){1, 9, 1}), 9);
    CHECK_EQ_INT(plan_engine_dsp(z, PLAN_K_DWCONV, false, IR_PREC_INT8, 8, (PlanShape){4, 9, 1}), 36);
    CHECK_EQ_INT(plan_engine_dsp(z, PLAN_K_DWCONV, false, IR_PREC_INT8, 8, (PlanShape){4, 9, 2}), 36);
    CHECK_EQ_INT(plan_engine_dsp(z, PLAN_K_PWCONV, false, IR_PREC_INT8, 8, (PlanShape){3, 4, 1}), 8);
    /* DSP58: a 3-term dot product along the reduction */
    CHECK_EQ_INT(plan_engine_dsp(v, PLAN_K_CONV, false, IR_PREC_INT8, 8, (PlanShape){4, 9, 1}), 12);
    CHECK_EQ_INT(plan_engine_dsp(v, PLAN_K_CONV, false, IR_PREC_INT8, 8, (PlanShape){4, 2, 1}), 8);
    CHECK_EQ_INT(plan_engine_dsp(e1, PLAN_K_CONV, false, IR_PREC_INT8, 8, (PlanShape){4, 9, 1}), 36);
    CHECK_EQ_INT(plan_engine_dsp(z, PLAN_K_POOL, false, IR_PREC_INT8, 8, (PlanShape){8, 8, 1}), 0);
    CHECK_EQ_INT(plan_engine_dsp(z, PLAN_K_ELTWISE, true, IR_PREC_INT8, 8, (PlanShape){8, 1, 2}), 16);
    CHECK_EQ_INT(plan_engine_dsp(z, PLAN_K_CONV, false, IR_PREC_INT16, 16, (PlanShape){4, 4, 1}), 16);
    CHECK_EQ_INT(plan_engine_dsp(z, PLAN_K_CONV, false, IR_PREC_FLOAT, 32, (PlanShape){2, 1, 1}), 10);
}

static void test_bram(void)
{
    CHECK_EQ_INT(plan_bram18k(36, 512), 1);
    CHECK_EQ_INT(plan_bram18k(18, 1024), 1);
    CHECK_EQ_INT(plan_bram18k(9, 2048), 1);
    CHECK_EQ_INT(plan_bram18k(1, 16384), 1);
    CHECK_EQ_INT(plan_bram18k(72, 512), 2);
    CHECK_EQ_INT(plan_bram18k(8, 4096), 2);      /* 2Kx9 twice */
    CHECK_EQ_INT(plan_bram18k(256, 16), 8);      /* wide and shallow: width decides */
    CHECK_EQ_INT(plan_bram18k(0, 10), 0);
    CHECK_EQ_INT(plan_uram(72, 4096), 1);
    CHECK_EQ_INT(plan_uram(64, 5000), 2);
    PlanBuf small = plan_buf(4, 16, 64);        /* 1 Kb per bank: distributed RAM */
    CHECK(small.bram == 0 && small.lut > 0);
    PlanBuf big = plan_buf(4, 64, 4096);
    CHECK(big.bram == 4 * plan_bram18k(64, 4096) && big.uram == 4 && big.lut == 0);
    CHECK_EQ_INT(big.bits, 4 * 64 * 4096);
    /* more banks for more parallel reads cost more blocks for the same bits */
    PlanUnit u = geo_unit(PLAN_K_PWCONV, PLAN_SEML_CONV, 7, 7, 960, 320, 1, 1, 0);
    int narrow = plan_mem_sesl_weights(&u, (PlanShape){4, 4, 1}).bram;
    int wide = plan_mem_sesl_weights(&u, (PlanShape){64, 16, 1}).bram;
    CHECK(narrow > 0 && wide > narrow);
    /* the line buffer is sesl_window.c's lb[KSPAN_H][WP][C]: a whole pixel per word */
    PlanUnit dw = geo_unit(PLAN_K_DWCONV, PLAN_SEML_DW, 28, 28, 192, 192, 3, 1, 1);
    CHECK_EQ_INT(plan_mem_sesl_linebuf(&dw).bram, 3 * plan_bram18k(192 * 8, 30));
    CHECK_EQ_INT(plan_mem_sesl_linebuf(&u).bits, 0);
    /* SEML engines: bigger band buffers, more block RAM; a residual operand adds a buffer */
    PlanFamNeeds nd = {8, IR_PREC_INT8, false, false, false, false, false, false, 320, 960, 49, 1, 960, 49};
    PlanBuf b14 = plan_mem_seml_engine(PLAN_K_PWCONV, (PlanShape){16, 8, 2}, 14, 16, &nd);
    PlanBuf b16 = plan_mem_seml_engine(PLAN_K_PWCONV, (PlanShape){16, 8, 2}, 16, 16, &nd);
    CHECK(b14.bram > 0 && b16.bram > b14.bram);
    nd.add = true;
    CHECK(plan_mem_seml_engine(PLAN_K_PWCONV, (PlanShape){16, 8, 2}, 14, 16, &nd).bits > b14.bits);
    CHECK(plan_mem_seml_engine(PLAN_K_ELTWISE, (PlanShape){16, 1, 1}, 12, 16, &nd).bits > 0);
}

/* ------------------------------------------------ loop nest of a SEML layer */

static uint64_t rng = 88172645463325252ull;

static int64_t pick(int64_t lo, int64_t hi)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return lo + (int64_t)(rng % (uint64_t)(hi - lo + 1));
}

static PlanSemlLayer random_layer(void)
{
    PlanSemlLayer l;
    memset(&l, 0, sizeof l);
    l.op = (PlanSemlOp)pick(0, 4);
    PlanGeom *g = &l.g;
    g->h = pick(1, 60), g->w = pick(1, 40), g->c = pick(1, 200), g->g = 1;
    g->kh = pick(1, 5), g->kw = pick(1, 5), g->sh = pick(1, 3), g->sw = pick(1, 3), g->dh = g->dw = 1;
    g->pt = pick(0, g->kh / 2), g->pl = pick(0, g->kw / 2), g->pb = pick(0, g->kh / 2), g->pr = pick(0, g->kw / 2);
    if (g->h + g->pt + g->pb < g->kh)
        g->h = g->kh;
    if (g->w + g->pl + g->pr < g->kw)
        g->w = g->kw;
    g->ho = (g->h + g->pt + g->pb - g->kh) / g->sh + 1, g->wo = (g->w + g->pl + g->pr - g->kw) / g->sw + 1;
    g->f = l.op == PLAN_SEML_CONV ? pick(1, 300) : g->c;
    if (l.op == PLAN_SEML_GPOOL || l.op == PLAN_SEML_ELT) {
        g->kh = g->kw = g->sh = g->sw = 1, g->pt = g->pl = g->pb = g->pr = 0, g->ho = g->h, g->wo = g->w;
        if (l.op == PLAN_SEML_GPOOL)
            g->ho = g->wo = 1;
    }
    l.add = (l.op == PLAN_SEML_CONV || l.op == PLAN_SEML_DW) && pick(0, 1);
    l.lut = pick(0, 1), l.avg = l.op == PLAN_SEML_POOL || l.op == PLAN_SEML_GPOOL ? pick(0, 1) : 0;
    l.rq_n = l.avg ? g->kh * g->kw : 0;
    l.binary = l.op == PLAN_SEML_ELT && pick(0, 1), l.bvec = l.binary && pick(0, 1);
    l.in_dense = pick(0, 1), l.in2_dense = pick(0, 1), l.out_dense = pick(0, 1);
    return l;
}

/* plan_ln_seml_run costs equal bands once: it must give the band-by-band
 * loop's cycles for every geometry, engine and band size */
static void test_seml_run(void)
{
    for (int i = 0; i < 3000; i++) {
        PlanSemlLayer l = random_layer();
        PlanSemlEngine e = {(int)pick(1, 32), (int)pick(1, 16), (int)pick(1, 8), pick(64, 1 << 16), pick(64, 1 << 16),
                            (int)(4 << pick(0, 4))};
        int64_t most = plan_ln_band_rows(&l, &e);
        if (most <= 0)
            continue;
        int64_t rows = pick(1, most);
        PlanLnRun r = plan_ln_seml_run(&l, &e, rows);
        CHECK_MSG(r.cycles == plan_ln_seml_layer(&l, &e, rows), "op %d rows %lld: %lld vs %lld", (int)l.op,
                  (long long)rows, (long long)r.cycles, (long long)plan_ln_seml_layer(&l, &e, rows));
        int64_t out = l.op == PLAN_SEML_GPOOL ? l.g.c : l.op == PLAN_SEML_ELT ? l.g.h * l.g.w * l.g.c : l.g.ho * l.g.wo * l.g.f;
        CHECK(r.compute > 0 && r.move > 0 && r.compute + r.move <= 3 * r.cycles);
        CHECK(r.bytes >= O2H_DESC_WORDS * 4 + out);
    }
    /* one band: load, compute and store one after another; two bands overlap */
    PlanSemlLayer l = random_layer();
    l.op = PLAN_SEML_DW, l.g = (PlanGeom){14, 14, 384, 14, 14, 384, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 384};
    PlanSemlEngine e = {8, 9, 1, 1 << 17, 1 << 17, 16};
    CHECK_EQ_INT(plan_ln_band_rows(&l, &e), 14);
    CHECK(plan_ln_seml_layer(&l, &e, 7) < plan_ln_seml_layer(&l, &e, 14));
}

/* -------------------------------------------------------------- units */

static Plan plan_of(IrGraph *g, int pes)
{
    PlanOptions o;
    plan_options_default(&o);
    o.pe_budget = pes;
    IrDiag d;
    diag_init(&d);
    Plan p;
    int rc = plan_build(g, plan_device_find("zcu102"), &o, &p, &d);
    CHECK(rc == 0);
    if (rc)
        diag_print(&d, stderr);
    diag_free(&d);
    return p;
}

static int count_kind(const Plan *p, PlanKind k)
{
    int n = 0;
    for (int i = 0; i < p->n_units; i++)
        n += p->units[i].kind == k;
    return n;
}

static void test_units_resnet(void)
{
    IrGraph *g = tg_resnet(64);
    Plan p = plan_of(g, 256);
    /* 7 convs + 2 shortcut convs... : stem, 2 per block x3, 2 shortcuts = 9 conv units;
     * BN, Relu and the residual Add fuse into the convs; max pool, GAP, FC stay */
    CHECK_EQ_INT(count_kind(&p, PLAN_K_CONV) + count_kind(&p, PLAN_K_PWCONV), 9);
    CHECK_EQ_INT(count_kind(&p, PLAN_K_POOL), 2);
    CHECK_EQ_INT(count_kind(&p, PLAN_K_FC), 1);
    CHECK_EQ_INT(count_kind(&p, PLAN_K_ELTWISE), 0);
    CHECK_EQ_INT(p.n_host, 0);
    CHECK_EQ_INT(p.units[0].n_fused, 2);          /* BN + Relu */
    int residual = 0;
    for (int i = 0; i < p.n_units; i++)
        residual += p.units[i].extra_t >= 0;
    CHECK_EQ_INT(residual, 3);
    CHECK(p.units[0].geo.kh == 7 && p.units[0].geo.sh == 2 && p.units[0].geo.pt == 3 && p.units[0].windowed);
    CHECK(p.units[0].geo.h == 64 && p.units[0].geo.ho == 32 && p.units[0].geo.c == 3 && p.units[0].geo.f == 32);
    const PlanUnit *fc = &p.units[p.n_units - 1];
    CHECK(fc->kind == PLAN_K_FC && fc->geo.kh == fc->geo.h && fc->geo.kw == fc->geo.w && fc->loops.p == 1);
    CHECK(p.units[p.n_units - 1].in_dram == false && p.units[p.n_units - 1].out_dram == true);
    CHECK(p.units[0].in_dram == true);
    plan_free(&p);
    ir_graph_free(g);
}

static void test_units_mobilenet(void)
{
    IrGraph *g = tg_mobilenet(96, true);
    Plan p = plan_of(g, 256);
    CHECK_EQ_INT(count_kind(&p, PLAN_K_CONV), 1);
    CHECK_EQ_INT(count_kind(&p, PLAN_K_DWCONV), 8);
    CHECK_EQ_INT(count_kind(&p, PLAN_K_PWCONV), 16);
    CHECK_EQ_INT(p.n_host, 1);                    /* Softmax */
    CHECK(p.host_cycles > 0);
    CHECK(p.units[p.n_units - 1].out_dram);        /* the FC feeds the host */
    int64_t macs = 0;
    for (int l = 0; l < g->n_layers; l++) {
        IrLayerStats st;
        ir_layer_stats(g, l, &st);
        macs += st.macs;
    }
    CHECK_EQ_INT(p.total_macs, macs);
    CHECK_EQ_INT(p.units[0].loops.a, 32);
    CHECK_EQ_INT(p.units[0].loops.b, 27);
    CHECK_EQ_INT(p.units[0].loops.p, 48 * 48);
    CHECK_EQ_INT(p.units[0].w_bytes, 32 * 27 + 32);
    plan_free(&p);
    /* float precision: four bytes per value, more DSPs per PE */
    PlanOptions o;
    plan_options_default(&o);
    o.prec = IR_PREC_FLOAT;
    o.bits = 32;
    o.pe_budget = 256;
    IrDiag d;
    diag_init(&d);
    CHECK(plan_build(g, plan_device_find("zcu102"), &o, &p, &d) == 0);
    CHECK_EQ_INT(p.units[0].w_bytes, 4 * (32 * 27 + 32));
    if (p.hybrid.fits)
        CHECK(p.hybrid.dsp >= 4 * p.hybrid.pes / 2);
    plan_free(&p);
    diag_free(&d);
    ir_graph_free(g);
}

static void test_units_effnet(void)
{
    IrGraph *g = tg_effnet(64);
    Plan p = plan_of(g, 256);
    /* x*sigmoid(x) fuses; the SE channel scale (a broadcast Mul) stays element-wise */
    CHECK_EQ_INT(count_kind(&p, PLAN_K_ELTWISE), 3);
    for (int i = 0; i < p.n_units; i++)
        if (p.units[i].kind == PLAN_K_ELTWISE) {
            CHECK(p.units[i].mul);
            CHECK(p.units[i].extra_t >= 0 && p.units[i].extra_bytes < p.units[i].in_bytes);
        }
    CHECK_EQ_INT(p.units[0].n_fused, 2);          /* Sigmoid + Mul */
    CHECK_EQ_INT(count_kind(&p, PLAN_K_POOL), 4);
    plan_free(&p);
    ir_graph_free(g);
}

/* fusion follows single readers and the engines' epilogue: the Add fuses
 * into conv b (a is its residual); Relu(a) stands alone (a has two
 * readers); element-wise units absorb nothing, so the Mul is a unit too */
static void test_units_standalone(void)
{
    IrGraph *g = ir_graph_new("standalone");
    tg_counter = 0;
    int x = tg_input(g, 8, 16, 16);
    int a = tg_conv(g, x, 8, 3, 1, 1);
    int b = tg_conv(g, x, 8, 1, 1, 1);
    int s = tg_binary(g, IR_OP_ADD, a, b);
    int r = tg_unary(g, IR_OP_RELU, a);           /* second reader of a */
    int y = tg_binary(g, IR_OP_MUL, s, r);
    int t = tg_same(g, y);
    tg_layer(g, IR_OP_TRANSPOSE, &y, 1, t);
    tg_output(g, t);
    Plan p = plan_of(g, 64);
    CHECK_EQ_INT(p.n_units, 4);
    CHECK_EQ_INT(count_kind(&p, PLAN_K_ELTWISE), 2);
    CHECK_EQ_INT(p.units[1].n_fused, 1);              /* conv b + Add */
    CHECK(p.units[1].add && p.units[1].extra_t >= 0);
    CHECK(p.units[2].elt == PLAN_ELT_RESCALE && p.units[3].elt == PLAN_ELT_MUL && !p.units[3].bvec);
    CHECK_EQ_INT(p.n_host, 1);                        /* Transpose */
    CHECK_EQ_INT(p.max_split, p.n_units);             /* the host layer is last */
    plan_free(&p);
    ir_graph_free(g);
}

/* the epilogue chain in the engines' order: clamp, residual Add, clamp, table */
static void test_units_epilogue(void)
{
    IrGraph *g = ir_graph_new("epilogue");
    tg_counter = 0;
    int x = tg_input(g, 8, 16, 16);
    int y = tg_unary(g, IR_OP_RELU, tg_conv(g, x, 8, 3, 1, 1));
    y = tg_unary(g, IR_OP_TANH, tg_unary(g, IR_OP_CLIP, tg_binary(g, IR_OP_ADD, y, x)));
    int z = tg_unary(g, IR_OP_SIGMOID, y);            /* a second table: no room left */
    int m = tg_binary(g, IR_OP_MUL, tg_conv(g, z, 8, 1, 1, 1), z);   /* a Mul that is no gate */
    int pool = tg_unary(g, IR_OP_RELU, tg_maxpool(g, m, 3, 2));      /* pools absorb nothing */
    tg_output(g, pool);
    Plan p = plan_of(g, 64);
    CHECK_EQ_INT(p.units[0].n_fused, 4);              /* Relu, Add, Clip, Tanh */
    CHECK(p.units[0].add && p.units[0].lut);
    CHECK_EQ_INT(p.units[1].kind, PLAN_K_ELTWISE);    /* Sigmoid */
    CHECK(p.units[1].lut);
    CHECK(p.units[2].kind == PLAN_K_PWCONV && p.units[2].n_fused == 0);
    CHECK(p.units[3].kind == PLAN_K_ELTWISE && p.units[3].elt == PLAN_ELT_MUL);
    CHECK(p.units[4].kind == PLAN_K_POOL && p.units[4].n_fused == 0);
    CHECK(p.units[5].kind == PLAN_K_ELTWISE && p.units[5].elt == PLAN_ELT_RESCALE);
    CHECK_EQ_INT(p.n_units, 6);
    /* the pool's geometry: pads, and the window generator walks them */
    CHECK(p.units[4].windowed && p.units[4].geo.pt == 1 && p.units[4].geo.sh == 2 && p.units[4].geo.ho == 8);
    plan_free(&p);
    ir_graph_free(g);
}

/* a host layer ends the legal SESL prefix at the first unit depending on it */
static void test_units_host_split(void)
{
    IrGraph *g = ir_graph_new("host");
    tg_counter = 0;
    int x = tg_input(g, 8, 16, 16);
    int a = tg_conv(g, x, 8, 3, 1, 1);
    int b = tg_conv(g, a, 8, 3, 1, 1);
    int h = tg_unary(g, IR_OP_SOFTPLUS, b);       /* no engine: the host runs it */
    int c = tg_conv(g, tg_unary(g, IR_OP_RELU, h), 8, 3, 1, 1);
    int d = tg_conv(g, a, 8, 1, 1, 1);            /* independent of the host layer */
    tg_output(g, tg_binary(g, IR_OP_ADD, c, d));
    Plan p = plan_of(g, 256);
    CHECK_EQ_INT(p.n_host, 1);
    CHECK_EQ_INT(p.units[2].kind, PLAN_K_ELTWISE);   /* the Relu after the host layer */
    CHECK(p.units[2].after_host && p.units[3].after_host && !p.units[1].after_host);
    CHECK_EQ_INT(p.max_split, 2);
    CHECK(p.hybrid.split <= 2 && !p.sesl.fits);
    CHECK(p.host_cycles > 0 && p.hybrid.period >= p.host_cycles);
    plan_free(&p);
    ir_graph_free(g);
}

/* a channel Concat: one SEML copy per input; of three inputs, no SESL stage */
static void test_units_concat(void)
{
    for (int n = 2; n <= 3; n++) {
        IrGraph *g = ir_graph_new("concat");
        tg_counter = 0;
        int x = tg_input(g, 8, 16, 16), in[3];
        for (int i = 0; i < n; i++)
            in[i] = tg_conv(g, x, 4 + 4 * i, 1, 1, 1);
        int64_t od[4] = {1, n == 2 ? 12 : 24, 16, 16};
        int y = tg_tensor(g, 4, od);
        int l = tg_layer(g, IR_OP_CONCAT, in, n, y);
        g->layers[l].attr.axis.axis = 1;
        tg_output(g, y);
        Plan p = plan_of(g, 256);
        const PlanUnit *u = &p.units[n];
        CHECK(u->kind == PLAN_K_ELTWISE && u->elt == PLAN_ELT_CONCAT && u->sesl_ok == (n == 2));
        CHECK_EQ_INT(p.max_split, n == 2 ? n + 1 : n);
        PlanSemlLayer parts[4];
        CHECK_EQ_INT(plan_unit_seml_layers(&p, g, n, parts, 4), n);
        for (int i = 0; i < n; i++)
            CHECK(parts[i].op == PLAN_SEML_ELT && parts[i].g.c == 4 + 4 * i && !parts[i].out_dense && parts[i].in_dense);
        CHECK_EQ_INT(plan_unit_seml_layers(&p, g, n, parts, 1), n);   /* a short array: the count all the same */
        if (p.seml.fits)
            CHECK(p.seml.map[n].band_rows >= 1);
        plan_free(&p);
        ir_graph_free(g);
    }
}

/* after the quantize pass, a layer left in float moves data on the host */
static void test_units_int_graph(void)
{
    IrGraph *g = tg_resnet(32);
    for (int l = 0; l < g->n_layers; l++)
        if (g->layers[l].op == IR_OP_CONV || g->layers[l].op == IR_OP_GEMM) {
            g->layers[l].prec = IR_PREC_INT8;
            g->layers[l].bits = 8;
        }
    Plan p = plan_of(g, 256);
    CHECK(p.n_host > 0);                          /* BN, Relu, Add, pools left in float */
    for (int i = 0; i < p.n_units; i++)
        CHECK(p.units[i].prec == IR_PREC_INT8 && p.units[i].n_fused == 0);
    CHECK(p.max_split < p.n_units);
    plan_free(&p);
    ir_graph_free(g);
}

/* QDQ left in the graph: the weights come through DequantizeLinear of an int8
 * constant, the activations through Q/DQ pairs; all of them are views */
static void test_units_qdq(void)
{
    IrGraph *g = ir_graph_new("qdq");
    tg_counter = 0;
    int x = tg_input(g, 8, 16, 16);
    int q = tg_same(g, x);
    tg_layer(g, IR_OP_QUANTIZE_LINEAR, &x, 1, q);
    int xd = tg_same(g, q);
    tg_layer(g, IR_OP_DEQUANTIZE_LINEAR, &q, 1, xd);
    int64_t wd[4] = {16, 8, 3, 3};
    int wq = tg_const(g, 4, wd);
    int w = tg_tensor(g, 4, wd);
    tg_layer(g, IR_OP_DEQUANTIZE_LINEAR, &wq, 1, w);
    int64_t yd[4] = {1, 16, 16, 16};
    int y = tg_tensor(g, 4, yd);
    int in[2] = {xd, w};
    int l = tg_layer(g, IR_OP_CONV, in, 2, y);
    IrConvAttr *a = &g->layers[l].attr.conv;
    a->nsp = 2;
    a->group = 1;
    a->cls = IR_CONV_STANDARD;
    for (int i = 0; i < 2; i++) {
        a->kernel[i] = 3;
        a->stride[i] = a->dilation[i] = 1;
        a->pad_begin[i] = a->pad_end[i] = 1;
    }
    tg_output(g, y);
    Plan p = plan_of(g, 64);
    CHECK_EQ_INT(p.n_units, 1);
    CHECK_EQ_INT(p.n_host, 0);
    CHECK_EQ_INT(p.units[0].kind, PLAN_K_CONV);
    CHECK_EQ_INT(p.units[0].w_bytes, 16 * 8 * 9);
    CHECK(p.units[0].in_dram);
    plan_free(&p);
    ir_graph_free(g);
}

/* ------------------------------------------------- memory, roofline */

static void test_memory(void)
{
    IrGraph *g = tg_mobilenet(96, false);
    Plan p = plan_of(g, 256);
    const PlanMemory *m = &p.memory;
    CHECK(m->budget > 0);
    int64_t wall = 0;
    for (int i = 0; i < p.n_units; i++)
        wall += p.units[i].w_bytes;
    for (int c = 0; c < PLAN_MEM_CONFIGS; c++) {
        PlanMemConfig k = plan_mem_config(c);
        CHECK(strlen(plan_mem_config_name(c)) > 3);
        if (k.f == PLAN_F_ALL)
            CHECK(m->homo_onchip[c] >= wall);
        for (int i = 0; i < p.n_units; i++)
            CHECK(m->layers[i].onchip[c] <= m->homo_onchip[c]);
    }
    for (int i = 0; i < p.n_units; i++) {
        const PlanMemLayer *L = &m->layers[i];
        /* with prefetch: never less memory, same traffic */
        for (int c = 0; c < PLAN_MEM_CONFIGS; c += 2) {
            CHECK(L->onchip[c + 1] >= L->onchip[c]);
            CHECK_EQ_INT(L->dram[c + 1], L->dram[c]);
        }
        /* tiles need less memory than whole layers */
        CHECK(L->onchip[10] <= L->onchip[4]);     /* tile/tile vs layer/layer */
        if (L->chosen_fits)
            CHECK(L->onchip[L->chosen] <= m->budget);
        CHECK(L->fit_bits >= 0 && L->fit_bits <= 16);
    }
    CHECK(m->hetero_dram <= m->homo_dram[10]);
    plan_free(&p);
    /* a tiny budget: layers do not fit whole, narrower words would */
    PlanOptions o;
    plan_options_default(&o);
    o.mem_budget = 20000;
    IrDiag d;
    diag_init(&d);
    CHECK(plan_build(g, plan_device_find("zcu102"), &o, &p, &d) == 0);
    int narrow = 0;
    for (int i = 0; i < p.n_units; i++)
        narrow += p.memory.layers[i].fit_bits < 8;
    CHECK(narrow > 0);
    plan_free(&p);
    diag_free(&d);
    ir_graph_free(g);
}

static void test_roofline(void)
{
    IrGraph *g = tg_mobilenet(96, false);
    Plan p = plan_of(g, 256);
    CHECK_NEAR(p.peak_ops, 2.0 * 256 * p.clock_mhz * 1e6, 1);
    int fc = -1, stem = 0;
    for (int i = 0; i < p.n_units; i++) {
        const PlanRoof *r = &p.roof[i];
        CHECK(r->intensity > 0);
        CHECK(r->attainable <= p.peak_ops * (1 + 1e-9));
        if (p.hybrid.fits && p.units[i].macs > 0)
            CHECK(r->achieved > 0 && r->achieved <= p.peak_ops * (1 + 1e-9));
        if (p.units[i].kind == PLAN_K_FC)
            fc = i;
    }
    CHECK(fc >= 0 && p.roof[fc].intensity < p.roof[stem].intensity);
    plan_free(&p);
    ir_graph_free(g);
}

int main(void)
{
    test_devices();
    test_device_file();
    test_unroll_rule();
    test_sesl_cycles();
    test_frontier();
    test_dsp();
    test_bram();
    test_seml_run();
    test_units_resnet();
    test_units_mobilenet();
    test_units_effnet();
    test_units_standalone();
    test_units_epilogue();
    test_units_host_split();
    test_units_int_graph();
    test_units_concat();
    test_units_qdq();
    test_memory();
    test_roofline();
    return check_done();
}
