/* hls_top.c - writes common/o2h_accel.h (the engines' prototypes, the
 * accelerator's sizes) and top/o2h_top.c (the top function).
 *
 * Why the top is printed and the engines are not: the top holds no
 * arithmetic, only the plan's wiring - one channel per FIFO of the SESL
 * network with the depth the dataflow simulation found, the calls in
 * dataflow order, the SEML dispatcher's switch over engines, and the AXI
 * interfaces. Everything it calls is a specialized template.
 *
 * Top interface (one frame per call; docs/hls.md):
 *   fm_in, fm_bnd, fm_r, fm_w   the DRAM feature-map arena (the host passes
 *                               the same buffer to all four ports: the SESL
 *                               reader, the SESL writer, the SEML reads and
 *                               writes each get their own AXI port)
 *   wimg, desc                  the SEML weight image and descriptor table
 *   pp                          which copy of the boundary area the SEML part
 *                               reads
 *   run_sesl                    0: no SESL part; 1 + k: run the SESL part
 *                               into copy k (so one call can run the SESL part
 *                               of frame i+1 beside the SEML part of frame i)
 *   first, last                 run SEML descriptors [first, last) (host
 *                               layers run in between calls)
 */
#include "hls_internal.h"

#include <stdlib.h>
#include <string.h>

#include "templates/hls/common/o2h_desc.h"
#include "templates/hls/common/o2h_timing.h"

static int64_t param(const CgInst *in, const char *name)
{
    for (int i = 0; i < in->n_params; i++)
        if (!strcmp(in->params[i].name, name))
            return strtoll(in->params[i].value + (in->params[i].value[0] == '('), NULL, 10);
    return 0;
}

/* ---------------------------------------------------------- prototypes */

/* the entry function's parameter list, dims as the specialized template has them */
static void proto_args(FILE *f, const CgInst *in)
{
    int64_t p = param(in, "P"), c = param(in, "C");
    switch (in->tpl) {
    case CG_TPL_WINDOW: {
        int64_t kh = param(in, "KH"), kw = param(in, "KW");
        int64_t hp = param(in, "H") + param(in, "PT") + param(in, "PB"), wp = param(in, "W") + param(in, "PL") + param(in, "PR");
        int64_t ho = (hp - ((kh - 1) * param(in, "DH") + 1)) / param(in, "SH") + 1;
        int64_t wo = (wp - ((kw - 1) * param(in, "DW") + 1)) / param(in, "SW") + 1;
        fprintf(f, "const int8_t in[%lld][%lld], int8_t out[%lld][%lld]", (long long)(param(in, "H") * param(in, "W")),
                (long long)c, (long long)(ho * wo), (long long)(kh * kw * c));
        break;
    }
    case CG_TPL_MAC: {
        int64_t xw = param(in, "KK") * c, fo = param(in, "F");
        fprintf(f, "const int8_t in[%lld][%lld], int8_t out[%lld][%lld]", (long long)p, (long long)xw, (long long)p,
                (long long)fo);
        if (param(in, "ADD"))
            fprintf(f, ", const int8_t skip[%lld][%lld]", (long long)p, (long long)fo);
        break;
    }
    case CG_TPL_POOL: {
        bool global = param(in, "MODE") >= 2;
        int64_t pin = global ? param(in, "H") * param(in, "W") : param(in, "HO") * param(in, "WO");
        int64_t xw = global ? c : param(in, "KH") * param(in, "KW") * c;
        fprintf(f, "const int8_t in[%lld][%lld], int8_t out[%lld][%lld]", (long long)pin, (long long)xw,
                (long long)(global ? 1 : pin), (long long)c);
        break;
    }
    case CG_TPL_ELT: {
        int64_t mode = param(in, "MODE"), cb = param(in, "CB");
        bool binary = mode == 0 || mode == 1 || mode == 4;
        int64_t ca = mode == 4 ? c - cb : mode == 5 ? param(in, "CIN") : c;
        fprintf(f, "const int8_t in_a[%lld][%lld], ", (long long)p, (long long)ca);
        if (binary)
            fprintf(f, "const int8_t in_b[%lld][%lld], ", (long long)(param(in, "BVEC") ? 1 : p), (long long)cb);
        fprintf(f, "int8_t out[%lld][%lld]", (long long)p, (long long)c);
        break;
    }
    case CG_TPL_STREAM:
        if (!strcmp(in->entry, "stream_read"))
            fprintf(f, "const int8_t *mem, int32_t off, int8_t out[%lld][%lld]", (long long)p, (long long)c);
        else if (!strcmp(in->entry, "stream_write"))
            fprintf(f, "const int8_t in[%lld][%lld], int8_t *mem, int32_t off", (long long)p, (long long)c);
        else
            fprintf(f, "const int8_t in[%lld][%lld], int8_t out0[%lld][%lld], int8_t out1[%lld][%lld]", (long long)p,
                    (long long)c, (long long)p, (long long)c, (long long)p, (long long)c);
        break;
    default:
        fprintf(f, "const int32_t d[O2H_DESC_WORDS], const int8_t *wimg, const int8_t *fm_r, int8_t *fm_w");
    }
}

int cg_hls_write_accel_h(CgAccel *a, const char *dir)
{
    FILE *f = cg_hls_open(a, dir, "common/o2h_accel.h");
    if (!f)
        return -1;
    fprintf(f, "/* o2h_accel.h - the accelerator of ");
    cg_hls_comment_text(f, a->g->path);
    fprintf(f, ": sizes of its DRAM buffers and\n"
               " * the prototypes of its engines (engines/). Generated by onnx2hls. */\n"
               "#ifndef O2H_ACCEL_H\n#define O2H_ACCEL_H\n\n#include <stdint.h>\n\n#include \"o2h_desc.h\"\n\n");
    fprintf(f, "#define O2H_FM_BYTES %lld      /* feature-map arena (NHWC int8) */\n", (long long)a->fm_bytes);
    fprintf(f, "#define O2H_BND_STRIDE %lld    /* bytes between the two copies of the boundary area */\n",
            (long long)a->bnd_stride);
    fprintf(f, "#define O2H_WIMG_BYTES %lld    /* SEML weight image */\n", (long long)(a->wimg_bytes > 0 ? a->wimg_bytes : 64));
    fprintf(f, "#define O2H_N_DESC %d           /* SEML descriptors */\n\n", a->n_desc);
    for (int i = 0; i < a->n_inst; i++) {
        const CgInst *in = &a->inst[i];
        fprintf(f, "void %s_%s(", in->prefix, in->entry ? in->entry : "stream_dup");
        proto_args(f, in);
        fprintf(f, ");\n");
    }
    fprintf(f, "\nvoid o2h_top(const int8_t *fm_in, int8_t *fm_bnd, const int8_t *fm_r, int8_t *fm_w, const int8_t *wimg,\n"
               "             const int32_t *desc, int32_t pp, int32_t run_sesl, int32_t first, int32_t last);\n\n");
    fprintf(f, "#ifndef __SYNTHESIS__\n/* A frame's steps in order (host runtimes; OUT/accel/accel_model.c adds\n"
               " * the copies each step needs): {0, host layer's index in the host\n"
               " * program's graph, 0} | {1 (the SESL part), 0, 0} | {2, first, last SEML\n"
               " * descriptor}. o2h_top: run_sesl 0 runs no SESL part, 1 + k runs it into\n"
               " * boundary copy k; the SEML part reads copy pp. */\n"
               "#define O2H_N_STEPS %d\nstatic const int32_t o2h_steps[%d][3] = {\n", a->n_seg, a->n_seg > 0 ? a->n_seg : 1);
    for (int i = 0; i < a->n_seg; i++) {
        const CgSegment *sg = &a->seg[i];
        fprintf(f, "    {%d, %d, %d},", (int)sg->kind, sg->kind == CG_STEP_HOST ? sg->layer : sg->first, sg->last);
        if (sg->kind == CG_STEP_HOST) {
            fprintf(f, " /* ");
            cg_hls_comment_text(f, a->g->layers[sg->layer].name);
            fprintf(f, " */");
        }
        fprintf(f, "\n");
    }
    fprintf(f, "%s};\n\n/* C simulation: cycle counters of every engine (o2h_timing.h) */\n", a->n_seg ? "" : "    {0, 0, 0}\n");
    for (int i = 0; i < a->n_inst; i++)
        fprintf(f, "extern int64_t %s_%s;\n", a->inst[i].prefix, a->inst[i].counter);
    fprintf(f, "/* per SEML descriptor: counted cycles of its last run */\nextern int64_t o2h_seml_cycles[%d];\n",
            a->n_desc > 0 ? a->n_desc : 1);
    fprintf(f, "/* the SESL part shows each channel's contents after a frame (tb/) */\n"
               "void o2h_tap(int tensor, const int8_t *data, int64_t bytes);\n#endif\n\n#endif\n");
    return cg_hls_close(a, f, dir, "common/o2h_accel.h");
}

/* ----------------------------------------------------------------- SESL */

static void sesl_channels(FILE *f, const CgAccel *a)
{
    for (int c = 0; c < a->net.n_chans; c++) {
        const PlanChan *ch = &a->net.chans[c];
        fprintf(f, "    O2H_CHANNEL int8_t c%d[%lld][%lld];\n", c, (long long)ch->tokens, (long long)ch->width);
        fprintf(f, "#pragma HLS STREAM variable=c%d depth=%lld\n", c, (long long)(ch->depth > 1 ? ch->depth : 2));
        fprintf(f, "#pragma HLS ARRAY_RESHAPE variable=c%d dim=2 complete\n", c);
    }
}

/* the channel of process pr carrying tensor t (-1: the window stream) */
static int in_chan(const CgAccel *a, const PlanProc *pr, int t)
{
    for (int k = 0; k < pr->n_in; k++) {
        int ct = a->net.chans[pr->in[k]].tensor;
        if ((t < 0 && ct < 0) || (t >= 0 && ct >= 0 && cg_accel_resolve(a, ct) == t))
            return pr->in[k];
    }
    return pr->n_in > 0 ? pr->in[0] : -1;
}

static int64_t dram_off(const CgAccel *a, int t)
{
    int i = a->dram_of[cg_accel_resolve(a, t)];
    return i >= 0 ? a->dram[i].off : 0;
}

static void sesl_call(FILE *f, const CgAccel *a, int i)
{
    const PlanProc *pr = &a->net.procs[i];
    const CgInst *in = &a->inst[a->proc_inst[i]];
    fprintf(f, "    /* ");
    cg_hls_comment_text(f, in->origin);
    fprintf(f, " */\n    %s_%s(", in->prefix, in->entry);
    switch (pr->kind) {
    case PLAN_P_READ:
        fprintf(f, "fm_in, %lld, c%d);\n", (long long)dram_off(a, pr->tensor), pr->out[0]);
        return;
    case PLAN_P_WRITE:
        fprintf(f, "c%d, fm_bnd, %lld + pp_off);\n", pr->in[0], (long long)dram_off(a, pr->tensor));
        return;
    case PLAN_P_DUP:
        fprintf(f, "c%d, c%d, c%d);\n", pr->in[0], pr->out[0], pr->out[1]);
        return;
    case PLAN_P_MAC:    /* mac_run(in, out[, skip]) */
        fprintf(f, "c%d, c%d", in_chan(a, pr, in->args[0]), pr->out[0]);
        if (in->args[1] >= 0)
            fprintf(f, ", c%d", in_chan(a, pr, in->args[1]));
        fprintf(f, ");\n");
        return;
    default:            /* window_run / pool_run (in, out), eltwise_run (a[, b], out) */
        fprintf(f, "c%d", in_chan(a, pr, in->args[0]));
        if (in->args[1] >= 0)
            fprintf(f, ", c%d", in_chan(a, pr, in->args[1]));
        fprintf(f, ", c%d);\n", pr->out[0]);
    }
}

static void sesl_taps(FILE *f, const CgAccel *a)
{
    fprintf(f, "#ifndef __SYNTHESIS__\n");
    for (int c = 0; c < a->net.n_chans; c++) {
        const PlanChan *ch = &a->net.chans[c];
        bool first = ch->tensor >= 0;
        for (int k = 0; k < c && first; k++)
            first = a->net.chans[k].tensor != ch->tensor;
        if (first)
            fprintf(f, "    o2h_tap(%d, &c%d[0][0], (int64_t)sizeof c%d);\n", cg_accel_resolve(a, ch->tensor), c, c);
    }
    fprintf(f, "#endif\n");
}

static void write_sesl(FILE *f, const CgAccel *a)
{
    fprintf(f, "/* The SESL part: one process per engine, FIFOs sized by the dataflow\n"
               " * simulation (plan/dfsim.c): SESL period %lld cycles simulated over %d frames. */\n"
               "static void o2h_sesl(const int8_t *fm_in, int8_t *fm_bnd, int32_t pp_off)\n{\n#pragma HLS DATAFLOW\n",
            (long long)a->net.interval, a->net.frames);
    sesl_channels(f, a);
    for (int i = 0; i < a->net.n_procs; i++)
        sesl_call(f, a, i);
    sesl_taps(f, a);
    fprintf(f, "}\n\n/* run_sesl: 0 none, 1 + k into boundary copy k */\n"
               "static void o2h_sesl_task(const int8_t *fm_in, int8_t *fm_bnd, int32_t run_sesl)\n{\n"
               "    if (run_sesl)\n        o2h_sesl(fm_in, fm_bnd, run_sesl == 2 ? O2H_BND_STRIDE : 0);\n}\n\n");
}

/* ----------------------------------------------------------------- SEML */

static void write_seml(FILE *f, const CgAccel *a)
{
    fprintf(f, "#ifndef __SYNTHESIS__\nint64_t o2h_seml_cycles[%d];\n#endif\n\n", a->n_desc > 0 ? a->n_desc : 1);
    fprintf(f, "/* The SEML part: descriptors [first, last), each run on its engine. */\n"
               "static void o2h_seml(const int32_t *desc, const int8_t *wimg, const int8_t *fm_r, int8_t *fm_w,\n"
               "                     int32_t pp, int32_t first, int32_t last)\n{\n"
               "    int32_t pp_off = pp ? O2H_BND_STRIDE : 0;\n"
               "    (void)wimg, (void)fm_r, (void)fm_w;   /* a design without SEML engines */\n"
               "    for (int i = first; i < last; i++) {\n"
               "#pragma HLS LOOP_TRIPCOUNT max=%d\n"
               "        int32_t d[O2H_DESC_WORDS];\n"
               "        int64_t cyc = 0;\n"
               "        O2H_LOOP_ENTER(cyc, O2H_DEPTH_BURST);\n"
               "        for (int k = 0; k < O2H_DESC_WORDS; k += %d) {\n"
               "#pragma HLS PIPELINE II=1\n"
               "            O2H_LOOP_ITER(cyc);\n"
               "            for (int j = 0; j < %d; j++)\n"
               "                d[k + j] = desc[i * O2H_DESC_WORDS + k + j];\n"
               "        }\n"
               "        if (d[O2H_D_BND] & 1)\n            d[O2H_D_IN_OFF] += pp_off;\n"
               "        if (d[O2H_D_BND] & 2)\n            d[O2H_D_IN2_OFF] += pp_off;\n"
               "        switch (d[O2H_D_ENGINE]) {\n",
            a->n_desc > 0 ? a->n_desc : 1, a->beat / 4, a->beat / 4);
    for (int i = 0; i < a->n_inst; i++) {
        const CgInst *in = &a->inst[i];
        if (in->engine < 0)
            continue;
        fprintf(f, "        case %d:\n            %s_%s(d, wimg, fm_r, fm_w);\n"
                   "#ifndef __SYNTHESIS__\n            cyc += %s_%s;\n#endif\n            break;\n",
                in->engine, in->prefix, in->entry, in->prefix, in->counter);
    }
    fprintf(f, "        default:\n            break;\n        }\n"
               "#ifndef __SYNTHESIS__\n        o2h_seml_cycles[i] = cyc;\n#else\n        (void)cyc;\n#endif\n    }\n}\n\n");
}

static void interface(FILE *f, const char *port, const char *bundle, int64_t depth)
{
    fprintf(f, "#pragma HLS INTERFACE m_axi port=%s offset=slave bundle=%s depth=%lld max_widen_bitwidth=%d\n", port,
            bundle, (long long)(depth > 0 ? depth : 1), 8 * 16);
}

int cg_hls_write_top(CgAccel *a, const char *dir)
{
    if (cg_hls_write_accel_h(a, dir))
        return -1;
    FILE *f = cg_hls_open(a, dir, "top/o2h_top.c");
    if (!f)
        return -1;
    fprintf(f, "/* o2h_top.c - accelerator top of ");
    cg_hls_comment_text(f, a->g->path);
    fprintf(f, " (%s design, split %d): the SESL\n"
               " * dataflow part and the SEML dispatcher, joined by the ping-pong\n"
               " * boundary area in DRAM. Generated by onnx2hls; see docs/hls.md. */\n"
               "#include <stdint.h>\n\n#include \"o2h_accel.h\"\n#include \"o2h_timing.h\"\n\n"
               "/* channels are FIFOs in synthesis; whole arrays in C simulation */\n"
               "#ifndef __SYNTHESIS__\n#define O2H_CHANNEL static\n#else\n#define O2H_CHANNEL\n#endif\n\n",
            a->d->name, a->d->split);
    if (a->have_net)
        write_sesl(f, a);
    write_seml(f, a);
    fprintf(f, "void o2h_top(const int8_t *fm_in, int8_t *fm_bnd, const int8_t *fm_r, int8_t *fm_w, const int8_t *wimg,\n"
               "             const int32_t *desc, int32_t pp, int32_t run_sesl, int32_t first, int32_t last)\n{\n");
    interface(f, "fm_in", "gmem_in", a->fm_bytes);
    interface(f, "fm_bnd", "gmem_bnd", a->fm_bytes);
    interface(f, "fm_r", "gmem_r", a->fm_bytes);
    interface(f, "fm_w", "gmem_w", a->fm_bytes);
    interface(f, "wimg", "gmem_wimg", a->wimg_bytes > 0 ? a->wimg_bytes : 64);
    interface(f, "desc", "gmem_desc", (int64_t)(a->n_desc > 0 ? a->n_desc : 1) * O2H_DESC_WORDS);
    static const char *scalars[] = {"fm_in", "fm_bnd", "fm_r", "fm_w", "wimg", "desc", "pp", "run_sesl", "first", "last", "return"};
    for (int i = 0; i < 11; i++)
        fprintf(f, "#pragma HLS INTERFACE s_axilite port=%s bundle=control\n", scalars[i]);
    if (a->have_net)
        fprintf(f, "#pragma HLS DATAFLOW\n    o2h_sesl_task(fm_in, fm_bnd, run_sesl);\n");
    else
        fprintf(f, "    (void)fm_in, (void)fm_bnd, (void)run_sesl;\n");
    fprintf(f, "    o2h_seml(desc, wimg, fm_r, fm_w, pp, first, last);\n}\n");
    return cg_hls_close(a, f, dir, "top/o2h_top.c");
}
