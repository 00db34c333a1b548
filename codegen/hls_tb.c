/* hls_tb.c - writes tb/: the testbench (templates/hls/tb/o2h_tb.c, copied),
 * its tables (tb_data.h) and its golden vectors.
 *
 * Why golden vectors from the compiler's evaluator: pass_quant_eval runs
 * the integer program on the runtime's own kernels with the lowering's own
 * constants, which the test suite proves equal to the generated host
 * program bit for bit; it gives every tensor of one input in one run,
 * stored NCHW as the host holds them (the testbench reorders). `onnx2hls
 * verify OUT --hls` dumps them from the built host program itself for the
 * user's inputs.
 *
 * The testbench input: --tb-input (CgHlsOptions), else a fixed pseudo-
 * random standard-normal input (the calibration generator's kind), so the
 * output folder is the same for the same model and options.
 */
#include "hls_internal.h"

#include "ir/escape.h"
#include "ir/sidefile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    CgAccel *a;
    const char *dir;
    bool *want;          /* per tensor */
    int written;
} Golden;

static void observe(void *ctx, int t, const void *codes, int64_t bytes)
{
    Golden *gd = ctx;
    CgAccel *a = gd->a;
    if (!gd->want[t])
        return;
    char rel[64];
    snprintf(rel, sizeof rel, "tb/golden/t%d.bin", t);
    FILE *f = cg_hls_open(a, gd->dir, rel);
    if (f) {
        fwrite(codes, 1, (size_t)bytes, f);
        if (cg_hls_close(a, f, gd->dir, rel) == 0)
            gd->written++;
    }
    gd->want[t] = false;
}

/* standard normal values from a 32-bit LCG (Box-Muller), seed 1 */
static void pseudo_random(float *x, int64_t n)
{
    uint32_t s = 1;
    for (int64_t i = 0; i < n; i += 2) {
        s = s * 1664525u + 1013904223u;
        double u1 = ((s >> 8) + 1.0) / 16777217.0;
        s = s * 1664525u + 1013904223u;
        double u2 = (s >> 8) / 16777216.0, r = sqrt(-2.0 * log(u1));
        x[i] = (float)(r * cos(6.283185307179586 * u2));
        if (i + 1 < n)
            x[i + 1] = (float)(r * sin(6.283185307179586 * u2));
    }
}

/* the first total floats of --tb-input (a regular file within its cap,
 * holding at least one image: a file of several gives the first) */
static float *tb_read(CgAccel *a, const char *path, int64_t total)
{
    uint64_t size = 0, want = sizeof(float) * (uint64_t)total;
    char *data = NULL;
    if (sf_check(path, &SF_TB_INPUT, &size, a->diag))
        return NULL;
    if (size < want)
        diag_error(a->diag, path, NULL, NULL, "the testbench input is %llu bytes; one image is %lld float32 (%llu bytes)",
                   (unsigned long long)size, (long long)total, (unsigned long long)want);
    else
        sf_read_head(path, &SF_TB_INPUT, (size_t)want, &data, a->diag);
    return (float *)data;
}

static float *tb_input(CgAccel *a, const CgHlsOptions *o, int64_t total)
{
    if (o->tb_input_path && !o->tb_input)
        return tb_read(a, o->tb_input_path, total);
    float *x = malloc(sizeof(float) * (size_t)(total > 0 ? total : 1));
    if (!x)
        abort();
    if (o->tb_input)
        memcpy(x, o->tb_input, sizeof(float) * (size_t)total);
    else
        pseudo_random(x, total);
    return x;
}

static int write_golden(CgAccel *a, const CgHlsOptions *o, const char *dir, bool *want, int n_want)
{
    IrGraph *g = a->g;
    int64_t total = 0;
    for (int i = 0; i < g->n_inputs; i++)
        total += ir_tensor_numel(&g->tensors[g->inputs[i]]);
    float *x = tb_input(a, o, total);
    if (!x)
        return -1;
    const float *ins[IR_MAX_IO];
    for (int i = 0, off = 0; i < g->n_inputs; off += (int)ir_tensor_numel(&g->tensors[g->inputs[i]]), i++)
        ins[i] = x + off;
    Golden gd = {a, dir, want, 0};
    int rc = pass_quant_eval_all(g, ins, NULL, observe, &gd, a->diag);
    FILE *f = rc == 0 ? cg_hls_open(a, dir, "tb/input.f32") : NULL;   /* verify --hls reruns the host on it */
    if (f) {
        fwrite(x, sizeof(float), (size_t)total, f);
        rc = cg_hls_close(a, f, dir, "tb/input.f32");
    } else if (rc == 0) {
        rc = -1;
    }
    free(x);
    if (rc == 0 && gd.written != n_want)
        return cg_accel_error(a, -1, "the evaluator gave %d of the %d tensors the testbench checks", gd.written, n_want);
    return rc;
}

/* ------------------------------------------------------------ tb_data.h */

static void c_string(FILE *f, const char *s)
{
    fputc('"', f);
    esc_put(f, ESC_C_STRING, s);
    fputc('"', f);
}

static void tensors_table(FILE *f, const CgAccel *a, const bool *in_tb)
{
    int n = 0;
    fprintf(f, "static const TbTensor tb_tensors[] = {\n");
    for (int t = 0; t < a->g->n_tensors; t++) {
        if (!in_tb[t])
            continue;
        int di = a->dram_of[t];
        const CgDram *m = di >= 0 ? &a->dram[di] : NULL;
        int64_t h, w, c;
        cg_accel_dims(a, t, &h, &w, &c);
        fprintf(f, "    {%d, ", t);
        c_string(f, a->g->tensors[t].name);
        fprintf(f, ", %lld, %lld, %lld, %lld, %d},\n", (long long)(m ? m->off : -1), (long long)h, (long long)w, (long long)c,
                m ? (m->input ? 1 : 0) | (m->boundary ? 2 : 0) | (m->output ? 4 : 0) : 0);
        n++;
    }
    fprintf(f, "};\n#define TB_N_TENSORS %d\n\n", n);
}

/* per unit: its counters (SESL) or descriptors (SEML) and the plan's cycles */
static void units_table(FILE *f, const CgAccel *a)
{
    const Plan *p = a->p;
    fprintf(f, "static int64_t *const tb_counters[] = {\n");
    int n = 0;
    int *first = calloc((size_t)p->n_units + 1, sizeof(int)), *cnt = calloc((size_t)p->n_units + 1, sizeof(int));
    if (!first || !cnt)
        abort();
    for (int u = 0; u < p->n_units; u++) {
        first[u] = n;
        for (int i = 0; i < a->n_inst; i++)
            if (a->inst[i].proc >= 0 && a->inst[i].unit == u)
                fprintf(f, "    &%s_%s,\n", a->inst[i].prefix, a->inst[i].counter), n++, cnt[u]++;
    }
    for (int i = 0; i < a->n_inst; i++)    /* movers and duplicators count for the period */
        if (a->inst[i].proc >= 0 && a->inst[i].unit < 0)
            fprintf(f, "    &%s_%s,\n", a->inst[i].prefix, a->inst[i].counter), n++;
    fprintf(f, "%s};\n#define TB_N_COUNTERS %d\n\nstatic const TbUnit tb_units[] = {\n", n ? "" : "    0,\n", n);
    for (int u = 0; u < p->n_units; u++) {
        int d0 = -1, nd = 0;
        for (int i = 0; i < a->n_desc; i++)
            if (a->desc_unit[i] == u)
                d0 = d0 < 0 ? i : d0, nd++;
        const IrLayer *L = &a->g->layers[p->units[u].layer];
        fprintf(f, "    {");
        c_string(f, L->name);
        fprintf(f, ", %d, %lld, %d, %d},\n", u < a->d->split, (long long)a->d->map[u].cycles,
                u < a->d->split ? first[u] : d0, u < a->d->split ? cnt[u] : nd);
    }
    fprintf(f, "};\n#define TB_N_UNITS %d\n\n", p->n_units);
    free(first);
    free(cnt);
}

static int write_data(CgAccel *a, const char *dir, const bool *in_tb)
{
    FILE *f = cg_hls_open(a, dir, "tb/tb_data.h");
    if (!f)
        return -1;
    fprintf(f, "/* tb_data.h - what the testbench checks in this accelerator (tb/o2h_tb.c).\n"
               " * Generated by onnx2hls. */\n\n");
    tensors_table(f, a, in_tb);
    units_table(f, a);
    fprintf(f, "#define TB_DESIGN \"%s\"\n#define TB_SPLIT %d\n#define TB_HAS_SESL %d\n", a->d->name, a->d->split,
            a->have_net);
    fprintf(f, "#define O2H_WIMG_USED %lld\n", (long long)a->wimg_bytes);
    fprintf(f, "#define TB_PLAN_PERIOD %lld\n#define TB_PLAN_T_SESL %lld\n#define TB_PLAN_T_SEML %lld\n"
               "#define TB_PLAN_T_HOST %lld\n#define TB_DATAFLOW_INTERVAL %lld\n",
            (long long)a->d->period, (long long)a->d->t_sesl, (long long)a->d->t_seml, (long long)a->d->t_host,
            (long long)(a->have_net ? a->net.interval : 0));
    return cg_hls_close(a, f, dir, "tb/tb_data.h");
}

/* every tensor the accelerator holds: in DRAM or in a SESL channel */
static int tensors_checked(const CgAccel *a, bool *in_tb)
{
    int n = 0;
    for (int i = 0; i < a->n_dram; i++)
        in_tb[a->dram[i].tensor] = true;
    for (int c = 0; a->have_net && c < a->net.n_chans; c++)
        if (a->net.chans[c].tensor >= 0)
            in_tb[cg_accel_resolve(a, a->net.chans[c].tensor)] = true;
    for (int t = 0; t < a->g->n_tensors; t++)
        n += in_tb[t];
    return n;
}

int cg_hls_write_tb(CgAccel *a, const CgHlsOptions *o, const char *dir)
{
    bool *in_tb = calloc((size_t)a->g->n_tensors + 1, sizeof(bool));
    bool *want = calloc((size_t)a->g->n_tensors + 1, sizeof(bool));
    if (!in_tb || !want)
        abort();
    int n = tensors_checked(a, in_tb);
    memcpy(want, in_tb, sizeof(bool) * (size_t)a->g->n_tensors);
    char from[4096];
    snprintf(from, sizeof from, "%s/tb/o2h_tb.c", o->template_dir);
    int rc = write_golden(a, o, dir, want, n) || write_data(a, dir, in_tb) ||
             cg_hls_copy(a, from, dir, "tb/o2h_tb.c") ? -1 : 0;
    free(in_tb);
    free(want);
    return rc;
}
