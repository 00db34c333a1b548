/* rt_accel.c - the accelerator host runtime's frame loop (o2h_accel.h),
 * independent of the model and of the backend.
 *
 * A frame is the compiled model's steps in order (o2h_accel_int.h): host
 * layers run by the host program's own code, the SESL part, SEML descriptor
 * ranges. Tensors cross between the host program's arena (NCHW) and the
 * accelerator's DRAM (NHWC) at the step that needs them, so the host
 * program's memory plan holds: an accelerator result is written into the
 * host arena just before its first host reader, a host result into DRAM
 * just before the accelerator part that reads it.
 *
 * Overlap: when the frame opens with host steps and then the SESL part
 * (n_pre >= 0), submit runs those host steps and starts the SESL part in
 * the frame's copy k (frames alternate between the two copies of the SESL
 * input buffer and of the boundary area); wait runs the rest. So with
 * frame i+1 submitted before frame i is waited for, the SESL part of i+1
 * runs while the SEML part and host layers of i do. The host tensors of
 * frame i made before its SESL step and read after it (carry) are saved
 * by submit and restored by wait, since submit(i+1) reuses the host arena.
 */
#include "o2h_accel_int.h"

#include <stdio.h>
#include <string.h>

#include "o2h_rt.h"

struct O2hAccel {
    const O2hAccelModel *m;
    const O2hAccelBackend *be;
    O2hAccelBufs b;
    int loaded, status;
    int64_t submitted, completed;
    const void *in[2][64];          /* per copy: the staged graph inputs */
    double t_first, t_last, host_ms, accel_ms;
    int64_t frames, cyc_sesl[2], cyc_seml;   /* counted cycles: per copy, this frame's SEML */
    int64_t last_sesl, last_seml;             /* of the last completed frame */
    int pending, sesl_done[2];                /* backends without sesl_start: the SESL job
                                                 that rides with the next call, -1 none */
};

static O2hAccel g_acc;

static const O2hAccelBackend *const g_backends[] = {
#ifdef O2H_ACCEL_WITH_SIM
    &o2h_accel_sim,
#endif
#ifdef O2H_ACCEL_WITH_XRT
    &o2h_accel_xrt,
#endif
#ifdef O2H_ACCEL_WITH_BAREMETAL
    &o2h_accel_baremetal,
#endif
    NULL,
};

const char *o2h_accel_backends(void)
{
    static char list[64];
    list[0] = 0;
    for (int i = 0; g_backends[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " " : "", g_backends[i]->name);
    return list;
}

const char *o2h_accel_status_str(int status)
{
    static const char *const text[] = {
        "ok",
        "bad argument",
        "backend not available in this program",
        "cannot open the device, xclbin, kernel or driver",
        "cannot read a weight image or descriptor file",
        "weight image or descriptors not those of this model",
        "call out of order (not open or loaded, two frames in flight, or nothing to wait for)",
        "an accelerator call failed",
        "a host layer failed (host program not initialized)",
    };
    return status >= 0 && status < (int)(sizeof text / sizeof text[0]) ? text[status] : "unknown status";
}

static int fail(O2hAccel *a, int st)
{
    if (a)
        a->status = st;
    return st;
}

/* ------------------------------------------------------------ open */

static const O2hAccelBackend *find_backend(const char *name)
{
    for (int i = 0; g_backends[i]; i++)
        if (!strcmp(g_backends[i]->name, name))
            return g_backends[i];
    return NULL;
}

int o2h_accel_open(O2hAccel **acc, const char *backend, const char *arg)
{
    if (!acc || !backend)
        return O2H_ACCEL_ERR_ARG;
    *acc = NULL;
    if (g_acc.be)
        return O2H_ACCEL_ERR_STATE;   /* one accelerator per program */
    const O2hAccelBackend *be = find_backend(backend);
    if (!be)
        return O2H_ACCEL_ERR_BACKEND;
    memset(&g_acc, 0, sizeof g_acc);
    g_acc.m = &o2h_accel_model;
    if (g_acc.m->n_inputs > 64)
        return O2H_ACCEL_ERR_ARG;
    int st = be->open(g_acc.m, arg, &g_acc.b);
    if (st != O2H_ACCEL_OK)
        return st;
    g_acc.be = be;
    g_acc.pending = -1;
    *acc = &g_acc;
    return O2H_ACCEL_OK;
}

void o2h_accel_close(O2hAccel *a)
{
    if (!a || !a->be)
        return;
    a->be->close();
    memset(a, 0, sizeof *a);
}

int o2h_accel_status(const O2hAccel *a)
{
    return a ? a->status : O2H_ACCEL_ERR_ARG;
}

/* ------------------------------------------------------------ load */

int o2h_accel_load(O2hAccel *a, const void *wimg, size_t wimg_bytes, const void *desc, size_t desc_bytes)
{
    if (!a || !a->be || (!wimg && wimg_bytes) || (!desc && desc_bytes))
        return fail(a, a && !a->be ? O2H_ACCEL_ERR_STATE : O2H_ACCEL_ERR_ARG);
    const O2hAccelModel *m = a->m;
    a->loaded = 0;
    if ((int64_t)wimg_bytes != m->wimg_bytes || (int64_t)desc_bytes != m->desc_bytes ||
        o2h_crc32(0, wimg, wimg_bytes) != m->wimg_crc || o2h_crc32(0, desc, desc_bytes) != m->desc_crc)
        return fail(a, O2H_ACCEL_ERR_FORMAT);
    if (wimg_bytes)
        memcpy(a->b.wimg, wimg, wimg_bytes);
    if (desc_bytes)
        memcpy(a->b.desc, desc, desc_bytes);
    int st = a->be->load();
    if (st != O2H_ACCEL_OK)
        return fail(a, st);
    a->loaded = 1;
    return fail(a, O2H_ACCEL_OK);
}

/* the whole file into buf (exactly cap bytes expected; one more is read to
 * tell a longer file): its size in *n, or -1 */
static int read_file(const char *path, void *buf, int64_t cap, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    unsigned char extra;
    *n = cap > 0 ? fread(buf, 1, (size_t)cap, f) : 0;
    *n += fread(&extra, 1, 1, f);
    int bad = ferror(f);
    fclose(f);
    return bad ? -1 : 0;
}

/* Files are read straight into the accelerator's buffers, then checked. */
int o2h_accel_load_files(O2hAccel *a, const char *wimg_path, const char *desc_path)
{
    if (!a || !a->be || !wimg_path || !desc_path)
        return fail(a, a && !a->be ? O2H_ACCEL_ERR_STATE : O2H_ACCEL_ERR_ARG);
    size_t nw, nd;
    a->loaded = 0;
    if (read_file(wimg_path, a->b.wimg, a->m->wimg_bytes, &nw) || read_file(desc_path, a->b.desc, a->m->desc_bytes, &nd))
        return fail(a, O2H_ACCEL_ERR_IO);
    return o2h_accel_load(a, a->b.wimg, nw, a->b.desc, nd);
}

/* ------------------------------------------------------- transfers */

static int8_t *area_base(const O2hAccel *a, int area, int k)
{
    return area == O2H_AREA_IN ? a->b.in[k] : a->b.fm;
}

static int64_t area_off(const O2hAccel *a, const O2hAccelXfer *x, int k)
{
    return x->off + (x->area == O2H_AREA_BND && k ? a->m->bnd_stride : 0);
}

/* host NCHW -> accelerator NHWC, then visible to the device */
static int to_accel(O2hAccel *a, const O2hAccelXfer *x, int k)
{
    const int8_t *src = a->m->tensor(x->tensor, a->in[k]);
    int64_t off = area_off(a, x, k), hw = (int64_t)x->h * x->w;
    int8_t *dst = area_base(a, x->area, k) + off;
    if (!src)
        return O2H_ACCEL_ERR_HOST;
    for (int64_t c = 0; c < x->c; c++)
        for (int64_t p = 0; p < hw; p++)
            dst[p * x->c + c] = src[c * hw + p];
    return a->be->sync(x->area, k, off, hw * x->c, 1);
}

/* accelerator NHWC -> dst (NCHW): a host tensor or an output buffer */
static int from_accel(O2hAccel *a, const O2hAccelXfer *x, int k, int8_t *dst)
{
    int64_t off = area_off(a, x, k), hw = (int64_t)x->h * x->w;
    int st = a->be->sync(x->area, k, off, hw * x->c, 0);
    const int8_t *src = area_base(a, x->area, k) + off;
    if (st != O2H_ACCEL_OK)
        return st;
    if (!dst)
        return O2H_ACCEL_ERR_HOST;
    for (int64_t c = 0; c < x->c; c++)
        for (int64_t p = 0; p < hw; p++)
            dst[c * hw + p] = src[p * x->c + c];
    return O2H_ACCEL_OK;
}

static int step_xfers(O2hAccel *a, const O2hAccelStep *s, int k)
{
    for (int i = s->x0; i < s->x0 + s->nx; i++) {
        const O2hAccelXfer *x = &a->m->xfers[i];
        int st = s->kind == O2H_STEP_HOST ? from_accel(a, x, k, a->m->tensor(x->tensor, a->in[k])) : to_accel(a, x, k);
        if (st != O2H_ACCEL_OK)
            return st;
    }
    return O2H_ACCEL_OK;
}

/* carry tensors between the host arena and copy k's carry buffer */
static int carry(O2hAccel *a, int k, int save)
{
    for (int i = 0; i < a->m->n_carry; i++) {
        const O2hAccelCarry *c = &a->m->carry[i];
        unsigned char *t = a->m->tensor(c->tensor, a->in[k]), *s = a->m->carry_buf[k] + c->at;
        if (!t)
            return O2H_ACCEL_ERR_HOST;
        memcpy(save ? s : t, save ? t : s, (size_t)c->bytes);
    }
    return O2H_ACCEL_OK;
}

/* ------------------------------------------------ accelerator calls */

/* The SESL part into copy k. Backends without their own concurrency get
 * it run with the next call (the top runs its SESL and SEML parts
 * concurrently); a job still pending then runs alone first. */
static int sesl_start(O2hAccel *a, int k)
{
    int64_t cm;
    if (a->be->sesl_start)
        return a->be->sesl_start(k);
    int p = a->pending;
    a->pending = -1;
    if (p >= 0) {
        int st = a->be->call(p, p, 0, 0, &a->cyc_sesl[p], &cm);
        if (st != O2H_ACCEL_OK)
            return st;
        a->sesl_done[p] = 1;
    }
    a->pending = k;
    a->sesl_done[k] = 0;
    return O2H_ACCEL_OK;
}

/* wait for the SESL part in copy k; its cycles into cyc_sesl[k] */
static int sesl_wait(O2hAccel *a, int k)
{
    int64_t cm;
    if (a->be->sesl_wait)
        return a->be->sesl_wait(k, &a->cyc_sesl[k]);
    if (a->pending == k) {
        a->pending = -1;
        return a->be->call(k, k, 0, 0, &a->cyc_sesl[k], &cm);
    }
    return a->sesl_done[k] ? O2H_ACCEL_OK : O2H_ACCEL_ERR_STATE;
}

/* SEML descriptors [first, last) of the frame in copy pp (with the next
 * frame's SESL part when it is pending) */
static int seml(O2hAccel *a, int pp, int first, int last, int64_t *cycles)
{
    int64_t cs = 0;
    int sesl = a->be->sesl_start ? -1 : a->pending;
    a->pending = -1;
    int st = a->be->call(sesl, pp, first, last, &cs, cycles);
    if (sesl >= 0 && st == O2H_ACCEL_OK) {
        a->sesl_done[sesl] = 1;
        a->cyc_sesl[sesl] = cs;
    }
    return st;
}

/* ----------------------------------------------------------- steps */

/* one step of the frame in copy k; host and accelerator time accounted */
static int run_step(O2hAccel *a, const O2hAccelStep *s, int k)
{
    double t0 = o2h_now_ms();
    int st = step_xfers(a, s, k);
    double t1 = o2h_now_ms();
    int64_t cyc = 0;
    a->host_ms += t1 - t0;
    if (st != O2H_ACCEL_OK)
        return st;
    if (s->kind == O2H_STEP_HOST) {
        st = a->m->run_layer(s->layer, a->in[k]) == 0 ? O2H_ACCEL_OK : O2H_ACCEL_ERR_HOST;
        a->host_ms += o2h_now_ms() - t1;
        return st;
    }
    if (s->kind == O2H_STEP_SESL) {
        st = sesl_start(a, k);
        if (st == O2H_ACCEL_OK)
            st = sesl_wait(a, k);
    } else {
        st = seml(a, k, s->first, s->last, &cyc);
        a->cyc_seml += cyc;
    }
    a->accel_ms += o2h_now_ms() - t1;
    return st;
}

static int run_steps(O2hAccel *a, int from, int to, int k)
{
    for (int i = from; i < to; i++) {
        int st = run_step(a, &a->m->steps[i], k);
        if (st != O2H_ACCEL_OK)
            return st;
    }
    return O2H_ACCEL_OK;
}

/* submit's part of a frame in copy k: the host steps before the SESL
 * part, its inputs, then the SESL part started */
static int frame_begin(O2hAccel *a, int k)
{
    const O2hAccelModel *m = a->m;
    int st = run_steps(a, 0, m->n_pre, k);
    if (st == O2H_ACCEL_OK) {
        double t0 = o2h_now_ms();
        st = step_xfers(a, &m->steps[m->n_pre], k);
        if (st == O2H_ACCEL_OK)
            st = carry(a, k, 1);
        a->host_ms += o2h_now_ms() - t0;
    }
    return st == O2H_ACCEL_OK ? sesl_start(a, k) : st;
}

/* wait's part: the rest of the frame in copy k, then its outputs */
static int frame_end(O2hAccel *a, int k, void *const *outputs)
{
    const O2hAccelModel *m = a->m;
    int from = 0, st = O2H_ACCEL_OK;
    a->cyc_seml = 0;
    if (m->n_pre >= 0) {
        double t0 = o2h_now_ms();
        st = sesl_wait(a, k);
        a->accel_ms += o2h_now_ms() - t0;
        if (st == O2H_ACCEL_OK)
            st = carry(a, k, 0);
        from = m->n_pre + 1;
    }
    if (st == O2H_ACCEL_OK)
        st = run_steps(a, from, m->n_steps, k);
    for (int i = 0; i < m->n_outs && st == O2H_ACCEL_OK; i++) {
        const O2hAccelOut *o = &m->outs[i];
        const void *t = o->xfer < 0 ? m->tensor(o->tensor, a->in[k]) : NULL;
        if (o->xfer >= 0)
            st = from_accel(a, &m->xfers[o->xfer], k, outputs[i]);
        else if (t)
            memcpy(outputs[i], t, (size_t)o->bytes);
        else
            st = O2H_ACCEL_ERR_HOST;
    }
    return st;
}

int o2h_accel_submit(O2hAccel *a, const void *const *inputs)
{
    if (!a || !inputs)
        return fail(a, O2H_ACCEL_ERR_ARG);
    if (!a->be || !a->loaded || a->submitted - a->completed >= 2)
        return fail(a, O2H_ACCEL_ERR_STATE);
    const O2hAccelModel *m = a->m;
    int k = (int)(a->submitted & 1);
    for (int i = 0; i < m->n_inputs; i++) {
        if (!inputs[i])
            return fail(a, O2H_ACCEL_ERR_ARG);
        memcpy(m->input_buf[k] + m->input_at[i], inputs[i], (size_t)m->input_bytes[i]);
        a->in[k][i] = m->input_buf[k] + m->input_at[i];
    }
    if (a->frames == 0 && a->submitted == a->completed)
        a->t_first = o2h_now_ms();
    int st = m->n_pre >= 0 ? frame_begin(a, k) : O2H_ACCEL_OK;
    if (st != O2H_ACCEL_OK)
        return fail(a, st);
    a->submitted++;
    return fail(a, O2H_ACCEL_OK);
}

int o2h_accel_wait(O2hAccel *a, void *const *outputs)
{
    if (!a || !outputs)
        return fail(a, O2H_ACCEL_ERR_ARG);
    if (!a->be || a->submitted == a->completed)
        return fail(a, O2H_ACCEL_ERR_STATE);
    for (int i = 0; i < a->m->n_outs; i++)
        if (!outputs[i])
            return fail(a, O2H_ACCEL_ERR_ARG);
    int k = (int)(a->completed & 1);
    int st = frame_end(a, k, outputs);
    a->completed++;   /* a failed frame is over too: its copy is free again */
    if (st != O2H_ACCEL_OK)
        return fail(a, st);
    a->frames++;
    a->t_last = o2h_now_ms();
    a->last_sesl = a->cyc_sesl[k];
    a->last_seml = a->cyc_seml;
    return fail(a, O2H_ACCEL_OK);
}

/* --------------------------------------------------------- timings */

int o2h_accel_timings(const O2hAccel *a, O2hAccelTimings *t)
{
    if (!a || !t || !a->be)
        return a && t ? O2H_ACCEL_ERR_STATE : O2H_ACCEL_ERR_ARG;
    memset(t, 0, sizeof *t);
    double n = a->frames > 0 ? (double)a->frames : 1.0;
    t->backend = a->be->name;
    t->frames = a->frames;
    t->wall_ms = a->frames > 0 ? a->t_last - a->t_first : 0.0;
    t->frames_per_s = t->wall_ms > 0 ? (double)a->frames * 1e3 / t->wall_ms : 0.0;
    t->host_ms = a->host_ms / n;
    t->accel_ms = a->accel_ms / n;
    t->cycles_sesl = a->last_sesl;
    t->cycles_seml = a->last_seml;
    t->cycles_period = t->cycles_sesl > t->cycles_seml ? t->cycles_sesl : t->cycles_seml;
    t->cycles_latency = t->cycles_sesl + t->cycles_seml;
    t->clock_mhz = a->m->clock_mhz;
    t->model_fps = t->cycles_period > 0 ? t->clock_mhz * 1e6 / (double)t->cycles_period : 0.0;
    t->plan_period = a->m->plan_period;
    return O2H_ACCEL_OK;
}

void o2h_accel_reset_timings(O2hAccel *a)
{
    if (!a)
        return;
    a->frames = 0;
    a->host_ms = a->accel_ms = 0.0;
    a->t_first = a->t_last = o2h_now_ms();
}
