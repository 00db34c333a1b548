/* hls_accel.c - the frame tables of OUT/accel (accel_model.c): from the
 * accelerator model (CgAccel), what the accelerator host runtime
 * (runtime/accel/rt_accel.c) does per frame.
 *
 * Why decided here: only the compiler knows at once the frame's steps
 * (cg_accel_build's schedule), where each tensor lives in the accelerator's
 * DRAM (the fm arena, its boundary area) and in the host program (model.c,
 * by tensor index), and which units make which tensors. From that it
 * derives the copies a frame needs and when:
 *  - a tensor the accelerator makes and a host layer reads is copied into
 *    the host program before its first host reader (the host program's
 *    memory plan keeps its buffer from its producer to its last reader);
 *  - a tensor the host makes and the accelerator reads is copied into DRAM
 *    before the SESL part (its input buffer) or the first SEML range that
 *    reads it;
 *  - the host tensors made before the SESL step and read after it are the
 *    carry, saved per frame when frames overlap (rt_accel.c).
 * The files around the tables are written by hls_accel_files.c.
 */
#include "hls_accel.h"

#include <stdlib.h>
#include <string.h>

#include "ir/escape.h"
#include "runtime/accel/o2h_accel_int.h"
#include "runtime/o2h_rt.h"
#include "templates/hls/common/o2h_desc.h"

static void *grow(void *p, int need, int *cap, size_t elem)
{
    if (need <= *cap)
        return p;
    *cap = *cap ? *cap * 2 : 32;
    if (*cap < need)
        *cap = need;
    p = realloc(p, (size_t)*cap * elem);
    if (!p)
        abort();
    return p;
}

/* t (through views) is made by an accelerator unit */
static bool acc_made(const CgAxTables *ax, int t)
{
    int l = ax->a->g->tensors[cg_accel_resolve(ax->a, t)].producer;
    return l >= 0 && ax->ub[l] >= 0;
}

/* a copy of host tensor `tensor` to or from the DRAM map of rt */
static int add_xfer(CgAxTables *ax, int tensor, int rt, int area)
{
    CgAccel *a = ax->a;
    int di = a->dram_of[rt];
    if (di < 0)
        return cg_accel_error(a, a->g->tensors[rt].producer, "tensor '%s' crosses between the host and the "
                              "accelerator but has no place in DRAM", a->g->tensors[rt].name);
    const CgDram *m = &a->dram[di];
    ax->x = grow(ax->x, ax->nx + 1, &ax->cap_x, sizeof *ax->x);
    ax->x[ax->nx] = (CgAxXfer){tensor, area == O2H_AREA_FM && m->boundary ? O2H_AREA_BND : area, m->off, m->h, m->w,
                               m->c};
    if (area == O2H_AREA_IN && m->off + m->bytes > ax->in_bytes)
        ax->in_bytes = (m->off + m->bytes + 63) / 64 * 64;
    return ax->nx++;
}

/* the tensors a layer reads (inputs, fused residual, PRelu slope) */
static int layer_reads(const IrGraph *g, int l, int *ts)
{
    const IrLayer *L = &g->layers[l];
    int n = 0;
    for (int k = 0; k < L->n_in; k++)
        ts[n++] = L->in[k];
    ts[n++] = L->residual;
    ts[n++] = L->act_slope;
    int m = 0;
    for (int k = 0; k < n; k++)
        if (ts[k] >= 0 && g->tensors[ts[k]].kind != IR_T_CONST)
            ts[m++] = ts[k];
    return m;
}

/* HOST: accelerator results the layer reads, at their first host reader */
static void xfers_host(CgAxTables *ax, int l, bool *to_host)
{
    int ts[IR_MAX_IO + 2];
    int n = layer_reads(ax->a->g, l, ts);
    for (int k = 0; k < n; k++) {
        int rt = cg_accel_resolve(ax->a, ts[k]);
        if (acc_made(ax, rt) && !to_host[rt]) {
            to_host[rt] = true;
            add_xfer(ax, ts[k], rt, O2H_AREA_FM);
        }
    }
}

/* SESL: the maps its readers stream from DRAM, into the frame's input buffer */
static void xfers_sesl(CgAxTables *ax)
{
    const PlanNet *net = &ax->a->net;
    for (int i = 0; ax->a->have_net && i < net->n_procs; i++)
        if (net->procs[i].kind == PLAN_P_READ) {
            int rt = cg_accel_resolve(ax->a, net->procs[i].tensor);
            add_xfer(ax, rt, rt, O2H_AREA_IN);
        }
}

/* SEML [first, last): host results its units read, once per frame */
static void xfers_seml(CgAxTables *ax, int first, int last, bool *to_fm)
{
    int ins[IR_MAX_IO], out;
    for (int i = first; i < last; i++) {
        int n = cg_unit_io(ax->a, ax->a->desc_unit[i], ins, &out);
        for (int k = 0; k < n; k++)
            if (!acc_made(ax, ins[k]) && !to_fm[ins[k]]) {
                to_fm[ins[k]] = true;
                add_xfer(ax, ins[k], ins[k], O2H_AREA_FM);
            }
    }
}

static void build_steps(CgAxTables *ax)
{
    CgAccel *a = ax->a;
    bool *to_host = calloc((size_t)a->g->n_tensors + 1, 1), *to_fm = calloc((size_t)a->g->n_tensors + 1, 1);
    ax->s = calloc((size_t)a->n_seg + 1, sizeof *ax->s);
    if (!to_host || !to_fm || !ax->s)
        abort();
    bool accel_before = false;   /* an accelerator step before the SESL part: no overlap */
    ax->n_pre = -1;
    for (int i = 0; i < a->n_seg; i++) {
        const CgSegment *sg = &a->seg[i];
        CgAxStep *s = &ax->s[ax->ns++];
        *s = (CgAxStep){(int)sg->kind, sg->kind == CG_STEP_HOST ? sg->layer : 0, sg->first, sg->last, ax->nx, 0};
        if (sg->kind == CG_STEP_HOST)
            xfers_host(ax, sg->layer, to_host);
        else if (sg->kind == CG_STEP_SESL)
            xfers_sesl(ax);
        else
            xfers_seml(ax, sg->first, sg->last, to_fm);
        s->nx = ax->nx - s->x0;
        if (sg->kind == CG_STEP_SESL && !accel_before)
            ax->n_pre = i;
        accel_before |= sg->kind != CG_STEP_HOST;
    }
    free(to_host);
    free(to_fm);
}

/* ------------------------------------------------------------- carry */

/* does any step after the SESL step, or a graph output, read rt? */
static bool read_after(const CgAxTables *ax, int rt)
{
    const IrGraph *g = ax->a->g;
    int ts[IR_MAX_IO + 2];
    for (int i = ax->n_pre + 1; i < ax->ns; i++) {
        const CgAxStep *s = &ax->s[i];
        for (int k = s->kind == O2H_STEP_HOST ? layer_reads(g, s->layer, ts) : 0; k-- > 0;)
            if (cg_accel_resolve(ax->a, ts[k]) == rt)
                return true;
        for (int k = s->x0; s->kind == O2H_STEP_SEML && k < s->x0 + s->nx; k++)
            if (ax->x[k].tensor == rt)
                return true;
    }
    for (int i = 0; i < g->n_outputs; i++)
        if (cg_accel_resolve(ax->a, g->outputs[i]) == rt)
            return true;
    return false;
}

static void build_carry(CgAxTables *ax)
{
    const IrGraph *g = ax->a->g;
    for (int i = 0; i < ax->n_pre; i++) {
        const IrLayer *L = &g->layers[ax->s[i].layer];
        for (int k = 0; k < L->n_out; k++)
            if (L->out[k] >= 0 && read_after(ax, L->out[k])) {
                ax->carry = grow(ax->carry, ax->n_carry + 1, &ax->cap_carry, sizeof *ax->carry);
                ax->carry[ax->n_carry++] = L->out[k];
            }
    }
}

/* ------------------------------------------------------------ build */

int cg_ax_build(CgAccel *a, CgAxTables *ax)
{
    memset(ax, 0, sizeof *ax);
    ax->a = a;
    ax->ub = cg_units_by_layer(a);
    int errors = a->errors;
    build_steps(ax);
    if (ax->n_pre >= 0)
        build_carry(ax);
    ax->out_xfer = malloc(sizeof(int) * ((size_t)a->g->n_outputs + 1));
    if (!ax->out_xfer)
        abort();
    for (int i = 0; i < a->g->n_outputs; i++) {
        int t = a->g->outputs[i], rt = cg_accel_resolve(a, t);
        ax->out_xfer[i] = acc_made(ax, rt) ? add_xfer(ax, rt, rt, O2H_AREA_FM) : -1;
    }
    return a->errors > errors ? -1 : 0;
}

void cg_ax_free(CgAxTables *ax)
{
    free(ax->ub);
    free(ax->x);
    free(ax->s);
    free(ax->carry);
    free(ax->out_xfer);
    memset(ax, 0, sizeof *ax);
}

/* ------------------------------------------------------------ write */

static void write_tables(FILE *f, const CgAxTables *ax)
{
    fprintf(f, "static const O2hAccelXfer xfers[] = {\n");
    for (int i = 0; i < ax->nx; i++) {
        const CgAxXfer *x = &ax->x[i];
        fprintf(f, "    {%d, %d, %lld, %lld, %lld, %lld},\n", x->tensor, x->area, (long long)x->off, (long long)x->h,
                (long long)x->w, (long long)x->c);
    }
    fprintf(f, "%s};\n\n/* {kind, host layer, first, last SEML descriptor, transfers} */\n"
               "static const O2hAccelStep steps[] = {\n", ax->nx ? "" : "    {0, 0, 0, 0, 0, 0},\n");
    for (int i = 0; i < ax->ns; i++) {
        const CgAxStep *s = &ax->s[i];
        fprintf(f, "    {%d, %d, %d, %d, %d, %d},", s->kind, s->layer, s->first, s->last, s->x0, s->nx);
        if (s->kind == O2H_STEP_HOST) {
            fprintf(f, " /* ");
            cg_hls_comment_text(f, ax->a->g->layers[s->layer].name);
            fprintf(f, " */");
        }
        fprintf(f, "\n");
    }
    fprintf(f, "%s};\n\n", ax->ns ? "" : "    {0, 0, 0, 0, 0, 0},\n");
}

static int64_t write_carry(FILE *f, const CgAxTables *ax)
{
    int64_t at = 0;
    fprintf(f, "static const O2hAccelCarry carry[] = {\n");
    for (int i = 0; i < ax->n_carry; i++) {
        int64_t n = (int64_t)ir_tensor_nbytes(&ax->a->g->tensors[ax->carry[i]]);
        fprintf(f, "    {%d, %lld, %lld},\n", ax->carry[i], (long long)n, (long long)at);
        at += (n + 63) / 64 * 64;
    }
    fprintf(f, "%s};\n\n", ax->n_carry ? "" : "    {0, 0, 0},\n");
    return at;
}

static void write_outputs(FILE *f, const CgAxTables *ax)
{
    const IrGraph *g = ax->a->g;
    fprintf(f, "static const O2hAccelOut outs[] = {\n");
    for (int i = 0; i < g->n_outputs; i++)
        fprintf(f, "    {%d, %d, %lld},\n", g->outputs[i], ax->out_xfer[i],
                (long long)ir_tensor_nbytes(&g->tensors[g->outputs[i]]));
    fprintf(f, "%s};\n\n", g->n_outputs ? "" : "    {0, -1, 0},\n");
}

/* per graph input: bytes and offset in the frame's staging buffer */
static int64_t write_inputs(FILE *f, const IrGraph *g)
{
    int64_t at = 0;
    fprintf(f, "static const int64_t input_bytes[] = {");
    for (int i = 0; i < g->n_inputs; i++)
        fprintf(f, "%s%zu", i ? ", " : "", ir_tensor_nbytes(&g->tensors[g->inputs[i]]));
    fprintf(f, "%s};\nstatic const int64_t input_at[] = {", g->n_inputs ? "" : "0");
    for (int i = 0; i < g->n_inputs; i++) {
        fprintf(f, "%s%lld", i ? ", " : "", (long long)at);
        at += ((int64_t)ir_tensor_nbytes(&g->tensors[g->inputs[i]]) + 63) / 64 * 64;
    }
    fprintf(f, "%s};\n\n", g->n_inputs ? "" : "0");
    return at;
}

static void write_buffers(FILE *f, const CgAccel *a, const CgAxTables *ax, int64_t carry, int64_t inputs)
{
    int64_t desc = (int64_t)(a->n_desc > 0 ? a->n_desc : 1) * O2H_DESC_WORDS;
    fprintf(f, "/* the accelerator's DRAM, in programs whose backends use static memory */\n"
               "#if defined(O2H_ACCEL_WITH_SIM) || defined(O2H_ACCEL_WITH_BAREMETAL)\n"
               "static MODEL_ALIGNED int8_t g_fm[%lld];\n", (long long)a->fm_bytes);
    if (ax->in_bytes > 0)
        fprintf(f, "static MODEL_ALIGNED int8_t g_in[2][%lld];\n", (long long)ax->in_bytes);
    fprintf(f, "static MODEL_ALIGNED int8_t g_wimg[%lld];\nstatic MODEL_ALIGNED int32_t g_desc[%lld];\n"
               "#define FM g_fm, {%s}, g_wimg, g_desc\n#else\n#define FM NULL, {NULL, NULL}, NULL, NULL\n#endif\n",
            (long long)(a->wimg_bytes > 0 ? a->wimg_bytes : 64), (long long)desc,
            ax->in_bytes > 0 ? "g_in[0], g_in[1]" : "NULL, NULL");
    fprintf(f, "/* per frame copy: carried host tensors, staged graph inputs */\n"
               "static MODEL_ALIGNED unsigned char g_carry[2][%lld], g_input[2][%lld];\n\n",
            (long long)(carry > 0 ? carry : 64), (long long)(inputs > 0 ? inputs : 64));
}

static void write_model(FILE *f, const CgAccel *a, const CgAxTables *ax)
{
    const char *dn = a->d->name;
    fprintf(f, "const O2hAccelModel o2h_accel_model = {\n    \"");
    esc_put(f, ESC_C_STRING, a->g->path);
    fprintf(f, "\", \"%s\",\n    %lld, %lld, %lld,\n", dn, (long long)a->fm_bytes, (long long)ax->in_bytes,
            (long long)a->bnd_stride);
    int64_t db = (int64_t)a->n_desc * O2H_DESC_WORDS * 4;
    fprintf(f, "    %lld, %lld, 0x%08xu, 0x%08xu, %d,\n", (long long)a->wimg_bytes, (long long)db,
            (unsigned)o2h_crc32(0, a->wimg, (size_t)a->wimg_bytes), (unsigned)o2h_crc32(0, a->desc, (size_t)db),
            a->n_desc);
    fprintf(f, "    steps, %d, %d, xfers, carry, %d, outs, %d, %d, input_bytes, input_at,\n", ax->ns, ax->n_pre,
            ax->n_carry, a->g->n_outputs, a->g->n_inputs);
    fprintf(f, "    FM, {g_carry[0], g_carry[1]}, {g_input[0], g_input[1]},\n"
               "    model_run_layer, model_tensor, %.6g, %lld,\n};\n", a->p->clock_mhz, (long long)a->d->period);
}

int cg_ax_write_model(CgAccel *a, const CgAxTables *ax, const char *dir)
{
    FILE *f = cg_hls_open(a, dir, "accel_model.c");
    if (!f)
        return -1;
    fprintf(f, "/* accel_model.c - one frame of ");
    cg_hls_comment_text(f, a->g->path);
    fprintf(f, " on its accelerator (%s design, split %d), for\n"
               " * the accelerator host runtime (runtime/rt_accel.c): the steps in order (host\n"
               " * layers, the SESL part, SEML descriptor ranges), the copies between the host\n"
               " * program (NCHW) and the accelerator's DRAM (NHWC) each step needs, and the\n"
               " * program's static buffers. Generated by onnx2hls. */\n"
               "#include <stddef.h>\n#include <stdint.h>\n\n#include \"model.h\"\n#include \"runtime/o2h_accel_int.h\"\n\n"
               "/* {host tensor, area (0 fm, 1 boundary, 2 SESL input), offset, h, w, c} */\n",
            a->d->name, a->d->split);
    write_tables(f, ax);
    int64_t carry = write_carry(f, ax);
    write_outputs(f, ax);
    int64_t inputs = write_inputs(f, a->g);
    write_buffers(f, a, ax, carry, inputs);
    write_model(f, a, ax);
    return cg_hls_close(a, f, dir, "accel_model.c");
}
