/* quant_batch.c - the evaluator on many inputs: pass_quant_eval_batch.
 *
 * Why: a search that measures accuracy (codesign) runs one graph on
 * thousands of validation images, and pass_quant_eval prepares every
 * layer again for each of them - the lowering (constants on the graph's
 * arena, so memory grows per run), the packing of int8 conv weights, every
 * tensor's buffer. Here the graph is prepared once (QuantProgram), then
 * workers on their own threads run disjoint images with buffers they keep,
 * reading the program only. The kernels and constants are those of
 * pass_quant_eval, so the outputs are the same bit for bit. */
#include "quant_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 16

/* ------------------------------------------------------------ program */

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

static int prepare_layer(QuantProgram *p, int l, IrDiag *d)
{
    QuantLayer *q = &p->low[l];
    if (pass_quant_lower(p->g, l, q, d))
        return -1;
    if (q->kind != QK_CONV)
        return 0;
    if (q->wide) {
        p->scratch = max_size(p->scratch, o2h_conv2d_s16_scratch(&q->conv) + 128);
        return 0;
    }
    size_t bytes = (o2h_conv2d_s8_packed_size(&q->conv) + 63) & ~(size_t)63;
    p->packed[l] = aligned_alloc(64, bytes ? bytes : 64);
    if (!p->packed[l])
        return quant_error(d, p->g, l, "out of memory");
    o2h_conv2d_s8_pack(&q->conv, ir_tensor_data(p->g, q->w), q->bias, p->packed[l]);
    p->scratch = max_size(p->scratch, o2h_conv2d_s8_packed_scratch(&q->conv) + 128);
    return 0;
}

static void program_free(QuantProgram *p)
{
    for (int l = 0; p->packed && l < p->g->n_layers; l++)
        free(p->packed[l]);
    free(p->packed);
    free(p->low);
}

/* Lowered layers, packed weights and every constant's data materialized
 * here, on the calling thread (ir_tensor_data allocates on first use). */
static int program_init(QuantProgram *p, IrGraph *g, IrDiag *d)
{
    memset(p, 0, sizeof *p);
    p->g = g;
    p->scratch = 64;
    p->low = calloc((size_t)g->n_layers + 1, sizeof *p->low);
    p->packed = calloc((size_t)g->n_layers + 1, sizeof *p->packed);
    if (!p->low || !p->packed)
        return diag_error(d, g->path, NULL, NULL, "out of memory"), -1;
    for (int t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].kind == IR_T_CONST)
            ir_tensor_data(g, t);
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead && pass_quant_is_int_layer(g, l) && prepare_layer(p, l, d))
            return -1;
    return 0;
}

/* ------------------------------------------------------------ workers */

typedef struct {
    const QuantProgram *p;
    const float *x;
    float *y;
    int64_t in_size, out_size;
    int first, n, step;      /* images first, first + step, ... below n */
    IrDiag d;
    int rc;
} Worker;

static void *work(void *arg)
{
    Worker *w = arg;
    QuantRunBufs b = {NULL, NULL, NULL, 0};
    for (int i = w->first; w->rc == 0 && i < w->n; i += w->step)
        w->rc = quant_run_program(w->p, &b, w->x + i * w->in_size, w->y + i * w->out_size, &w->d);
    quant_run_bufs_free(&b);
    return NULL;
}

static int thread_count(int threads, int n)
{
    if (threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (int)cores : 1;
    }
    threads = threads < MAX_THREADS ? threads : MAX_THREADS;
    return threads < n ? threads : n > 0 ? n : 1;
}

static int run_workers(const QuantProgram *p, const float *x, int n, float *y, int threads, IrDiag *d)
{
    Worker w[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    IrGraph *g = p->g;
    int k = thread_count(threads, n), rc = 0;
    for (int i = 0; i < k; i++) {
        w[i] = (Worker){p, x, y, ir_tensor_numel(&g->tensors[g->inputs[0]]),
                        ir_tensor_numel(&g->tensors[g->outputs[0]]), i, n, k, {0}, 0};
        diag_init(&w[i].d);
    }
    bool *started = calloc((size_t)k, sizeof *started);
    for (int i = 1; started && i < k; i++)
        started[i] = pthread_create(&th[i], NULL, work, &w[i]) == 0;
    work(&w[0]);
    for (int i = 1; i < k; i++) {
        if (started && started[i])
            pthread_join(th[i], NULL);
        else
            work(&w[i]);     /* no thread: its share on this one */
    }
    for (int i = 0; i < k; i++) {
        rc |= w[i].rc;
        diag_merge(d, &w[i].d);
        diag_free(&w[i].d);
    }
    free(started);
    return rc ? -1 : 0;
}

int pass_quant_eval_batch(IrGraph *g, const float *x, int n, float *y, int threads, IrDiag *d)
{
    if (g->n_inputs != 1 || g->n_outputs != 1) {
        diag_error(d, g->path, NULL, NULL, "a batch run needs one graph input and one output");
        return -1;
    }
    QuantProgram p;
    int rc = program_init(&p, g, d);
    if (rc == 0)
        rc = run_workers(&p, x, n, y, threads, d);
    program_free(&p);
    return rc;
}
