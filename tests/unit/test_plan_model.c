/* test_plan_model.c - the pieces the planner's search combines: the device
 * database and JSON device files, the cycle formulas of each engine kind,
 * the block RAM model, the layer-to-unit mapping (fusion, views, host
 * layers), the memory analysis and the roofline. */
#include "check.h"
#include "plan/plan_internal.h"
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
    CHECK(load_text("{\"base\":\"kv260\",\"clock_mhz\":250}", &dev, &d) == 0);
    CHECK(dev.dsp == 1248 && dev.uram == 64);
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
    IrDiag d2;
    diag_init(&d2);
    CHECK(plan_device_load("/nonexistent/dev.json", &dev, &d2) == -1);
    CHECK(diag_contains(&d2, "cannot read"));
    diag_free(&d2);
}

/* --------------------------------------------------------------- cost */

static PlanUnit unit_of(PlanKind k, PlanLoops l)
{
    PlanUnit u;
    memset(&u, 0, sizeof u);
    u.kind = k;
    u.loops = l;
    u.bits = 8;
    u.prec = IR_PREC_INT8;
    u.kh = u.kw = 3;
    u.cin = 32;
    u.win = 112;
    return u;
}

static void test_cycles(void)
{
    /* MobileNetV2 stem: 32 filters, 3x3x3 taps, 112x112 outputs */
    PlanUnit u = unit_of(PLAN_K_CONV, plan_loops_conv(32, 3, 3, 3, 112 * 112));
    CHECK_EQ_INT(u.loops.b, 27);
    PlanShape s = {4, 9, 1};
    CHECK_EQ_INT(plan_cost_conv(&u, s), 8 * 3 * 12544 + plan_cost_depth(PLAN_K_CONV, s));
    CHECK_EQ_INT(plan_cost_cycles(&u, s), plan_cost_conv(&u, s));
    PlanShape odd = {5, 10, 1}; /* padding: ceil(32/5)=7, ceil(27/10)=3 */
    CHECK_EQ_INT(plan_cost_conv(&u, odd), 7 * 3 * 12544 + plan_cost_depth(PLAN_K_CONV, odd));
    PlanUnit dw = unit_of(PLAN_K_DWCONV, plan_loops_dwconv(96, 3, 3, 56 * 56));
    PlanShape ds = {16, 9, 2};
    CHECK_EQ_INT(plan_cost_dwconv(&dw, ds), 6 * 1 * 1568 + plan_cost_depth(PLAN_K_DWCONV, ds));
    PlanUnit pw = unit_of(PLAN_K_PWCONV, plan_loops_pwconv(96, 16, 112 * 112));
    PlanShape ps = {32, 16, 1};
    CHECK_EQ_INT(plan_cost_pwconv(&pw, ps), 3 * 12544 + plan_cost_depth(PLAN_K_PWCONV, ps));
    PlanUnit fc = unit_of(PLAN_K_FC, plan_loops_fc(1000, 1280, 1));
    PlanShape fs = {8, 64, 1};
    CHECK_EQ_INT(plan_cost_fc(&fc, fs), 125 * 20 + plan_cost_depth(PLAN_K_FC, fs));
    PlanUnit gp = unit_of(PLAN_K_POOL, plan_loops_pool(1280, 49, 1));
    PlanShape gs = {16, 7, 1};
    CHECK_EQ_INT(plan_cost_pool(&gp, gs), 80 * 7 + plan_cost_depth(PLAN_K_POOL, gs));
    PlanUnit el = unit_of(PLAN_K_ELTWISE, plan_loops_eltwise(24, 3136));
    PlanShape es = {8, 1, 4};
    CHECK_EQ_INT(plan_cost_eltwise(&el, es), 3 * 784 + plan_cost_depth(PLAN_K_ELTWISE, es));
    /* full unroll reaches one output per cycle */
    PlanShape full = {32, 27, 1};
    CHECK(plan_cost_conv(&u, full) < 12544 + 20);
    CHECK(plan_cost_depth(PLAN_K_CONV, (PlanShape){1, 64, 1}) > plan_cost_depth(PLAN_K_CONV, (PlanShape){1, 1, 1}));
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
    PlanUnit u = unit_of(PLAN_K_PWCONV, plan_loops_pwconv(320, 960, 49));
    int narrow = plan_mem_sesl_weights(&u, (PlanShape){4, 4, 1}).bram;
    int wide = plan_mem_sesl_weights(&u, (PlanShape){64, 16, 1}).bram;
    CHECK(narrow > 0 && wide > narrow);
    CHECK(plan_mem_seml_wtile(PLAN_K_PWCONV, (PlanShape){16, 16, 1}, 960, 8).bits == 2 * 16 * 16 * 8 * 60);
    CHECK_EQ_INT(plan_mem_seml_wtile(PLAN_K_ELTWISE, (PlanShape){16, 1, 1}, 1, 8).bits, 0);
    const PlanDevice *z = plan_device_find("zcu102");
    CHECK_EQ_INT(plan_engine_dsp(z, PLAN_K_CONV, false, IR_PREC_INT8, 8, 64), 32);
    CHECK_EQ_INT(plan_engine_dsp(z, PLAN_K_POOL, false, IR_PREC_INT8, 8, 64), 0);
    CHECK_EQ_INT(plan_engine_dsp(z, PLAN_K_ELTWISE, true, IR_PREC_INT8, 8, 64), 32);
    CHECK(plan_engine_lut(PLAN_K_CONV, false, IR_PREC_FLOAT, 32, 16) >
          plan_engine_lut(PLAN_K_CONV, false, IR_PREC_INT8, 8, 16));
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
    CHECK(p.units[0].kh == 7 && p.units[0].stride == 2);
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

/* fusion follows single readers: the Add fuses into conv b (a is its residual),
 * Relu(a) stands alone (a has two readers) and the Mul fuses into that Relu
 * unit (conv b already has its second operand) */
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
    int tl = tg_layer(g, IR_OP_TRANSPOSE, &y, 1, t);
    (void)tl;
    tg_output(g, t);
    Plan p = plan_of(g, 64);
    CHECK_EQ_INT(p.n_units, 3);
    CHECK_EQ_INT(count_kind(&p, PLAN_K_ELTWISE), 1);
    CHECK_EQ_INT(p.units[1].n_fused, 1);              /* conv b + Add */
    CHECK_EQ_INT(p.units[2].n_fused, 1);              /* Relu + Mul */
    CHECK(p.units[1].extra_t >= 0 && p.units[2].extra_t >= 0);
    CHECK_EQ_INT(p.n_host, 1);                        /* Transpose */
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
    test_cycles();
    test_bram();
    test_units_resnet();
    test_units_mobilenet();
    test_units_effnet();
    test_units_standalone();
    test_units_qdq();
    test_memory();
    test_roofline();
    return check_done();
}
