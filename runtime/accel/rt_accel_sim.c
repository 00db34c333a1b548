/* rt_accel_sim.c - the `sim` backend: the generated HLS C (OUT/hls, linked
 * in as a library) run on this CPU as the accelerator.
 *
 * Why two threads: on the board the SESL part and the SEML part are two
 * concurrent processes of the top's DATAFLOW region, joined only by the
 * ping-pong boundary area; here the SESL part runs in its own thread (one
 * job per frame, in submission order) and the SEML part in the caller's,
 * so frames overlap the same way: the SESL part of frame i+1 writes
 * boundary copy (i+1)&1 while the SEML part of frame i reads copy i&1. The
 * two parts share no engine, counter or buffer region, so they need no
 * lock beyond the job handoff.
 *
 * Cycles are the C simulation's own counters (o2h_timing.h): the SESL part
 * takes as long as its slowest process (the counters are reset before each
 * run), the SEML part the sum over the descriptors it ran.
 */
#define _POSIX_C_SOURCE 200809L
#include "o2h_accel_int.h"

#include <pthread.h>
#include <string.h>

enum { JOB_IDLE = 0, JOB_QUEUED, JOB_DONE };

static struct {
    const O2hAccelModel *m;
    O2hAccelBufs b;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int job[2], next, quit, running;
    int64_t cycles[2];
} S = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void reset_sesl_counters(void)
{
    const O2hAccelSimHooks *h = &o2h_accel_sim_hooks;
    for (int i = 0; i < h->n_sesl_counters; i++)
        *h->sesl_counters[i] = 0;
}

/* the SESL part takes as long as its slowest process */
static int64_t sesl_cycles(void)
{
    const O2hAccelSimHooks *h = &o2h_accel_sim_hooks;
    int64_t cyc = 0;
    for (int i = 0; i < h->n_sesl_counters; i++)
        cyc = *h->sesl_counters[i] > cyc ? *h->sesl_counters[i] : cyc;
    return cyc;
}

/* one call of the top in the calling thread */
static int sim_call(int sesl, int pp, int first, int last, int64_t *cyc_sesl, int64_t *cyc_seml)
{
    const O2hAccelSimHooks *h = &o2h_accel_sim_hooks;
    if (sesl >= 0)
        reset_sesl_counters();
    h->top(S.b.in[sesl >= 0 ? sesl : pp], S.b.fm, S.b.fm, S.b.fm, S.b.wimg, S.b.desc, pp, sesl >= 0 ? 1 + sesl : 0,
           first, last);
    *cyc_sesl = sesl >= 0 ? sesl_cycles() : 0;
    *cyc_seml = 0;
    for (int i = first; i < last; i++)
        *cyc_seml += h->seml_cycles[i];
    return O2H_ACCEL_OK;
}

/* the SESL thread: copies alternate, so jobs run in submission order */
static void *sesl_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&S.mu);
    for (;;) {
        while (!S.quit && S.job[S.next] != JOB_QUEUED)
            pthread_cond_wait(&S.cv, &S.mu);
        if (S.quit)
            break;
        int k = S.next;
        pthread_mutex_unlock(&S.mu);
        int64_t cyc, none;
        sim_call(k, k, 0, 0, &cyc, &none);
        pthread_mutex_lock(&S.mu);
        S.cycles[k] = cyc;
        S.job[k] = JOB_DONE;
        S.next ^= 1;
        pthread_cond_broadcast(&S.cv);
    }
    pthread_mutex_unlock(&S.mu);
    return NULL;
}

static int sim_open(const O2hAccelModel *m, const char *arg, O2hAccelBufs *b)
{
    if (arg && *arg)
        return O2H_ACCEL_ERR_ARG;
    if (!m->fm || !m->wimg || !m->desc)
        return O2H_ACCEL_ERR_BACKEND;
    memset(S.job, 0, sizeof S.job);
    S.m = m;
    S.next = S.quit = 0;
    S.b = (O2hAccelBufs){m->fm, {m->in_buf[0] ? m->in_buf[0] : m->fm, m->in_buf[1] ? m->in_buf[1] : m->fm},
                         m->wimg, m->desc};
    memset(m->fm, 0, (size_t)m->fm_bytes);
    if (pthread_create(&S.thread, NULL, sesl_thread, NULL) != 0)
        return O2H_ACCEL_ERR_RUN;
    S.running = 1;
    *b = S.b;
    return O2H_ACCEL_OK;
}

static void sim_close(void)
{
    if (!S.running)
        return;
    pthread_mutex_lock(&S.mu);
    S.quit = 1;
    pthread_cond_broadcast(&S.cv);
    pthread_mutex_unlock(&S.mu);
    pthread_join(S.thread, NULL);
    S.running = 0;
}

/* the CPU and the simulated accelerator share memory */
static int sim_load(void)
{
    return O2H_ACCEL_OK;
}

static int sim_sync(int area, int k, int64_t off, int64_t n, int to_device)
{
    (void)area, (void)k, (void)off, (void)n, (void)to_device;
    return O2H_ACCEL_OK;
}

static int sim_sesl_start(int k)
{
    pthread_mutex_lock(&S.mu);
    int st = S.job[k] == JOB_IDLE ? O2H_ACCEL_OK : O2H_ACCEL_ERR_STATE;
    if (st == O2H_ACCEL_OK) {
        S.job[k] = JOB_QUEUED;
        pthread_cond_broadcast(&S.cv);
    }
    pthread_mutex_unlock(&S.mu);
    return st;
}

static int sim_sesl_wait(int k, int64_t *cycles)
{
    pthread_mutex_lock(&S.mu);
    int st = S.job[k] == JOB_IDLE ? O2H_ACCEL_ERR_STATE : O2H_ACCEL_OK;
    while (st == O2H_ACCEL_OK && S.job[k] != JOB_DONE)
        pthread_cond_wait(&S.cv, &S.mu);
    if (st == O2H_ACCEL_OK) {
        *cycles = S.cycles[k];
        S.job[k] = JOB_IDLE;
    }
    pthread_mutex_unlock(&S.mu);
    return st;
}

const O2hAccelBackend o2h_accel_sim = {
    "sim", sim_open, sim_load, sim_sync, sim_call, sim_sesl_start, sim_sesl_wait, sim_close,
};
