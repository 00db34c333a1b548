/* prune_recover.c - accuracy recovery without training for the prune pass
 * (part 4): channels chosen by the error they leave, readers refit by
 * least squares on calibration activations.
 *
 * Why: an L1 norm of a filter ignores what happens to its channel later -
 * a depthwise conv or a BN scale after it can make a small filter matter a
 * lot and a large one not at all - and the readers of a pruned tensor keep
 * weights that were trained for inputs that are no longer there. Both are
 * repaired from data, with no gradient step, following the channel-pruning
 * method of He, Zhang and Sun (ICCV 2017): choose channels, then refit the
 * layer reading them by linear regression on sampled activations.
 *
 * Readers ("refittable" layers): 1x1 convs with one group and no padding,
 * and Gemm with constant weights (not transposed A). Their output before
 * the epilogue is linear in the input, y = W x + b, so with x~ = [x; 1]:
 *
 * 1. Statistics (original float graph): G = E[x~ x~^T] over up to
 *    SAMPLES output positions per calibration input, for every reader of a
 *    group that is being cut.
 * 2. Choice: greedy backward elimination on the exact least-squares error.
 *    Removing input feature c from a fit with coefficients B and
 *    H = G^-1 raises the reader's output error by sum_f B[f,c]^2 / H[c,c]
 *    (optimal brain surgeon on a linear layer); B and H are then updated.
 *    The error of each reader is divided by its output energy tr(W G W^T)
 *    and summed over the group's readers; the channel that costs least goes
 *    first. The activations x are the ones the network really computes,
 *    after depthwise convs, BN scales and activations, so their scale is
 *    part of the saliency.
 * 3. Refit (after the channels are removed): every refittable layer
 *    downstream of a cut is fitted to the original network's output,
 *    min E|W' x'~ - W x~|^2 with x' from the pruned network and x from the
 *    original one on the same input and position (He et al.'s
 *    reconstruction of the pruned network's inputs, which also absorbs the
 *    error of earlier cuts). The constant feature makes the new bias the
 *    bias correction: the mean shift the cut causes in the reader's
 *    output is removed as part of the same fit.
 * Normal equations are solved by LAPACK's Cholesky (dposv, dpotrf/dpotri)
 * with a ridge of 1e-4 of the mean diagonal (dead channels stay solvable).
 *
 * The original network is kept as a second view of the same graph: the
 * layer array and axis-1 sizes saved before prune_apply rewrite them (the
 * old constants stay in the graph until compaction), swapped in for the
 * original runs.
 */
#include "prune_internal.h"
#include "passes/quant/quant_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES 16          /* output positions per input and reader */
#define MAX_FEATURES 2048   /* larger readers are sliced, not refit */
#define RIDGE 1e-4

void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, double *b, const int *ldb,
            int *info);
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dpotri_(const char *uplo, const int *n, double *a, const int *lda, int *info);

typedef struct {
    int l;                 /* the reading layer */
    int x;                 /* its input tensor */
    bool conv;             /* 1x1 conv; else Gemm */
    int64_t F;             /* outputs (current view) */
    int64_t n;             /* features incl. the constant (current view) */
    int64_t n0;            /* features incl. the constant in the original view */
    double *G;             /* n x n second moments (1: original; 3: pruned) */
    double *Cx;            /* 3: n x n0 cross moments pruned x original */
    float *xo;             /* 2: per input, SAMPLES x n0 original features */
    double *xs;            /* SAMPLES x n features being observed */
    int ns;                /* samples of the current input */
    int64_t count;
    bool stats;            /* collecting in step 1 */
} Reader;

struct PruneRecover {
    Pruner *P;
    IrGraph *g;
    float *inputs;
    int n_inputs;
    int64_t in_size;
    Reader *rd;
    int n_rd;
    int *by_tensor;        /* first reader index per tensor, -1 */
    int *next;             /* next reader of the same tensor */
    int image;             /* index of the input being run */
    int phase;             /* 1 statistics, 2 original run, 3 pruned run */
    int active;            /* phase 3: the one reader observed */
    IrLayer *orig_layers;  /* the original view */
    int64_t *orig_dim1;
    int orig_nt;
    FILE *log;
};

/* ------------------------------------------------------------ readers */

static bool refittable(IrGraph *g, const IrLayer *L)
{
    if (L->dead || L->n_in < 2 || !pass_const_f32(g, L->in[1]) || !pass_tensor_ok(g, L->in[0]))
        return false;
    if (L->n_in >= 3 && L->in[2] >= 0 && !pass_const_f32(g, L->in[2]))
        return false;
    if (L->op == IR_OP_GEMM)
        return !L->attr.gemm.trans_a && L->attr.gemm.alpha != 0 && g->tensors[L->in[0]].rank == 2 &&
               g->tensors[L->in[1]].rank == 2 && g->tensors[L->in[0]].dims[0] == 1;
    if (L->op != IR_OP_CONV || L->attr.conv.group != 1 || L->attr.conv.nsp != 2)
        return false;
    const IrConvAttr *a = &L->attr.conv;
    const IrTensor *X = &g->tensors[L->in[0]];
    return a->kernel[0] == 1 && a->kernel[1] == 1 && !a->pad_begin[0] && !a->pad_begin[1] && !a->pad_end[0] &&
           !a->pad_end[1] && X->rank == 4 && X->dims[0] == 1;
}

/* features of reader r in the graph's current view, incl. the constant */
static int64_t features(const IrGraph *g, const Reader *r)
{
    const IrTensor *X = &g->tensors[r->x];
    return X->dims[1] + 1;
}

static int64_t outputs(const IrGraph *g, const Reader *r)
{
    return g->tensors[g->layers[r->l].out[0]].dims[1];
}

static int add_reader(PruneRecover *R, int l)
{
    IrGraph *g = R->g;
    const IrLayer *L = &g->layers[l];
    Reader *v = realloc(R->rd, sizeof *v * (size_t)(R->n_rd + 1));
    if (!v)
        return -1;
    R->rd = v;
    Reader *r = &v[R->n_rd];
    memset(r, 0, sizeof *r);
    r->l = l;
    r->x = L->in[0];
    r->conv = L->op == IR_OP_CONV;
    r->F = outputs(g, r);
    r->n = r->n0 = features(g, r);
    if (r->n > MAX_FEATURES)
        return 0;
    R->next[R->n_rd] = R->by_tensor[r->x];
    R->by_tensor[r->x] = R->n_rd++;
    return 0;
}

static Reader *reader_of(PruneRecover *R, int l)
{
    for (int i = 0; i < R->n_rd; i++)
        if (R->rd[i].l == l)
            return &R->rd[i];
    return NULL;
}

/* ------------------------------------------------------ observations */

static uint32_t mix(uint32_t a, uint32_t b)
{
    uint32_t h = a * 2654435761u ^ (b + 0x9e3779b9u + (a << 6) + (a >> 2));
    h ^= h >> 15;
    return h * 2246822519u;
}

/* sampled input offsets (of channel 0) for reader r on the current input */
static int positions(PruneRecover *R, const Reader *r, int64_t *off)
{
    if (!r->conv) {
        off[0] = 0;
        return 1;
    }
    const IrLayer *L = &R->g->layers[r->l];
    const IrTensor *X = &R->g->tensors[r->x], *Y = &R->g->tensors[L->out[0]];
    int64_t ho = Y->dims[2], wo = Y->dims[3], n = ho * wo, k = n < SAMPLES ? n : SAMPLES;
    for (int64_t i = 0; i < k; i++) {
        int64_t p = n <= SAMPLES ? i : (int64_t)(mix((uint32_t)R->image, (uint32_t)(r->l * 64 + i)) % (uint64_t)n);
        int64_t oy = p / wo, ox = p % wo;
        off[i] = oy * L->attr.conv.stride[0] * X->dims[3] + ox * L->attr.conv.stride[1];
    }
    return (int)k;
}

static void gather(PruneRecover *R, Reader *r, const float *x)
{
    int64_t off[SAMPLES];
    const IrTensor *X = &R->g->tensors[r->x];
    int64_t n = features(R->g, r), C = n - 1, plane = r->conv ? X->dims[2] * X->dims[3] : 1;
    r->ns = positions(R, r, off);
    for (int s = 0; s < r->ns; s++) {
        double *f = r->xs + s * n;
        for (int64_t c = 0; c < C; c++)
            f[c] = x[c * plane + off[s]];
        f[C] = 1.0;
    }
}

/* upper triangle of G += sum_s f f^T */
static void add_gram(double *G, const double *xs, int ns, int64_t n)
{
    for (int s = 0; s < ns; s++) {
        const double *f = xs + s * n;
        for (int64_t i = 0; i < n; i++) {
            if (f[i] == 0.0)
                continue;
            double *row = G + i * n;
            for (int64_t j = i; j < n; j++)
                row[j] += f[i] * f[j];
        }
    }
}

static void add_cross(double *Cx, const double *xn, const float *xo, int ns, int64_t n, int64_t n0)
{
    for (int s = 0; s < ns; s++)
        for (int64_t i = 0; i < n; i++) {
            double a = xn[s * n + i];
            if (a == 0.0)
                continue;
            for (int64_t j = 0; j < n0; j++)
                Cx[i * n0 + j] += a * xo[s * n0 + j];
        }
}

static void on_tensor(void *ctx, int t, const float *x, int64_t n)
{
    PruneRecover *R = ctx;
    (void)n;
    for (int i = t < R->orig_nt ? R->by_tensor[t] : -1; i >= 0; i = R->next[i]) {
        Reader *r = &R->rd[i];
        if ((R->phase == 1 && !r->stats) || (R->phase == 3 && i != R->active))
            continue;
        gather(R, r, x);
        float *xo = r->xo ? r->xo + (int64_t)R->image * SAMPLES * r->n0 : NULL;
        if (R->phase == 1) {
            add_gram(r->G, r->xs, r->ns, r->n);
            r->count += r->ns;
        } else if (R->phase == 2) {
            for (int64_t k = 0; k < r->ns * r->n0; k++)
                xo[k] = (float)r->xs[k];
        } else {
            add_gram(r->G, r->xs, r->ns, r->n);
            add_cross(r->Cx, r->xs, xo, r->ns, r->n, r->n0);
            r->count += r->ns;
        }
    }
}

static int run_inputs(PruneRecover *R, int phase, IrDiag *d);

/* --------------------------------------------------------- algebra */

/* Matrices are row-major with the upper triangle filled, which LAPACK
 * (column-major) reads as its lower triangle: hence "L" below. */
static void symmetrize(double *A, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < i; j++)
            A[i * n + j] = A[j * n + i];
}

static void ridge(double *A, int64_t n)
{
    double tr = 0;
    for (int64_t i = 0; i < n; i++)
        tr += A[i * n + i];
    double lam = RIDGE * (tr > 0 ? tr / (double)n : 1.0);
    for (int64_t i = 0; i < n; i++)
        A[i * n + i] += lam;
}

/* A (n x n, symmetric positive definite after the ridge) := A^-1 */
static int invert(double *A, int64_t n)
{
    int nn = (int)n, info = 0;
    ridge(A, n);
    dpotrf_("L", &nn, A, &nn, &info);
    if (info == 0)
        dpotri_("L", &nn, A, &nn, &info);
    symmetrize(A, n);
    return info == 0 ? 0 : -1;
}

/* ---------------------------------------------------- reader weights */

/* W~ = [W | b] of layer l in the graph's current view, F x n row-major */
static double *weights(IrGraph *g, const Reader *r, int64_t n)
{
    const IrLayer *L = &g->layers[r->l];
    int64_t F = outputs(g, r);
    double *W = calloc((size_t)(F * n), sizeof *W);
    if (!W)
        return NULL;
    const float *w = pass_const_f32(g, L->in[1]);
    const float *b = L->n_in >= 3 && L->in[2] >= 0 ? pass_const_f32(g, L->in[2]) : NULL;
    int64_t K = n - 1, nb = b ? ir_tensor_numel(&g->tensors[L->in[2]]) : 0;
    bool tb = !r->conv && L->attr.gemm.trans_b;
    double alpha = r->conv ? 1.0 : L->attr.gemm.alpha, beta = r->conv ? 1.0 : L->attr.gemm.beta;
    for (int64_t f = 0; f < F; f++) {
        for (int64_t k = 0; k < K; k++)
            W[f * n + k] = alpha * (r->conv || tb ? w[f * K + k] : w[k * F + f]);
        W[f * n + K] = b ? beta * b[nb == F ? f : 0] : 0.0;
    }
    return W;
}

/* ------------------------------------------------------------ choice */

typedef struct {
    Reader *r;
    double *H;             /* inverse second moments over the kept features */
    double *B;             /* F x n current fit */
    double energy;         /* tr(W G W^T) */
    bool *gone;
} Fit;

static double energy_of(const double *W, const double *G, int64_t F, int64_t n)
{
    double e = 0;
    for (int64_t f = 0; f < F; f++)
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++)
                e += W[f * n + i] * G[i * n + j] * W[f * n + j];
    return e > 1e-30 ? e : 1e-30;
}

static int fit_init(PruneRecover *R, Fit *fit, Reader *r)
{
    int64_t n = r->n;
    double *G = malloc(sizeof *G * (size_t)(n * n));
    fit->r = r;
    fit->B = weights(R->g, r, n);
    fit->H = G;
    fit->gone = calloc((size_t)n, 1);
    if (!G || !fit->B || !fit->gone)
        return -1;
    for (int64_t i = 0; i < n * n; i++)
        G[i] = r->G[i] / (double)(r->count > 0 ? r->count : 1);
    symmetrize(G, n);
    fit->energy = energy_of(fit->B, G, r->F, n);
    return invert(G, n);
}

static double removal_cost(const Fit *fit, int64_t c)
{
    const Reader *r = fit->r;
    double h = fit->H[c * r->n + c], e = 0;
    if (!(h > 0))
        return INFINITY;
    for (int64_t f = 0; f < r->F; f++)
        e += fit->B[f * r->n + c] * fit->B[f * r->n + c];
    return e / h / fit->energy;
}

/* optimal-brain-surgeon update of B and H without feature c */
static void remove_feature(Fit *fit, int64_t c)
{
    const Reader *r = fit->r;
    int64_t n = r->n;
    double *H = fit->H, h = H[c * n + c];
    for (int64_t f = 0; f < r->F; f++) {
        double k = fit->B[f * n + c] / h;
        for (int64_t j = 0; j < n; j++)
            fit->B[f * n + j] -= k * H[c * n + j];
    }
    double *hc = malloc(sizeof *hc * (size_t)n);
    if (!hc)
        return;
    memcpy(hc, H + c * n, sizeof *hc * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            H[i * n + j] -= hc[i] * hc[j] / h;
    free(hc);
    fit->gone[c] = true;
}

static void fit_free(Fit *fit)
{
    free(fit->H);
    free(fit->B);
    free(fit->gone);
}

/* the readers of group r: refittable layers reading one of its tensors;
 * -1 when some full conv / Gemm reading the group is not refittable */
static int group_readers(PruneRecover *R, int root, Reader **out, int max)
{
    Pruner *P = R->P;
    int k = 0;
    for (int l = 0; l < R->g->n_layers; l++) {
        const IrLayer *L = &R->g->layers[l];
        if (L->dead || !P->source[l] || prune_find(P, L->in[0]) != root || P->blk[L->in[0]] != 1)
            continue;
        Reader *r = reader_of(R, l);
        if (!r || !r->stats || k >= max)
            return -1;
        out[k++] = r;
    }
    return k;
}

static int64_t cheapest(Fit *fits, int nf, int64_t C)
{
    int64_t best = -1;
    double cost = INFINITY;
    for (int64_t c = 0; c < C; c++) {
        if (fits[0].gone[c])
            continue;
        double e = 0;
        for (int i = 0; i < nf; i++)
            e += removal_cost(&fits[i], c);
        if (best < 0 || e < cost)
            best = c, cost = e;
    }
    return best;
}

bool *prune_recover_select(PruneRecover *R, int root, int64_t C, int64_t cut)
{
    Reader *rs[IR_MAX_IO];
    int nr = R ? group_readers(R, root, rs, IR_MAX_IO) : -1;
    if (nr <= 0)
        return NULL;
    Fit fits[IR_MAX_IO];
    memset(fits, 0, sizeof fits);
    bool ok = true;
    for (int i = 0; i < nr; i++)
        ok = fit_init(R, &fits[i], rs[i]) == 0 && ok;
    bool *keep = ok ? malloc((size_t)C) : NULL;
    for (int64_t c = 0; keep && c < C; c++)
        keep[c] = true;
    for (int64_t k = 0; keep && k < cut; k++) {
        int64_t c = cheapest(fits, nr, C);
        if (c < 0)
            break;
        keep[c] = false;
        for (int i = 0; i < nr; i++)
            remove_feature(&fits[i], c);
    }
    for (int i = 0; i < nr; i++)
        fit_free(&fits[i]);
    return keep;
}

/* ------------------------------------------------------------- setup */

static int alloc_stats(Reader *r)
{
    r->G = calloc((size_t)(r->n * r->n), sizeof *r->G);
    r->xs = calloc((size_t)(SAMPLES * r->n), sizeof *r->xs);
    r->stats = r->G && r->xs;
    return r->stats ? 0 : -1;
}

/* tensors whose values change when the groups with cut > 0 lose channels */
static bool *affected(Pruner *P)
{
    IrGraph *g = P->g;
    bool *a = calloc((size_t)P->nt + 1, 1);
    for (int t = 0; a && t < P->nt; t++)
        a[t] = P->blk[t] > 0 && !P->frozen[prune_find(P, t)] && P->cut[prune_find(P, t)] > 0;
    for (int l = 0; a && l < g->n_layers; l++) {
        const IrLayer *L = &g->layers[l];
        bool any = false;
        for (int i = 0; i < L->n_in; i++)
            any |= L->in[i] >= 0 && a[L->in[i]];
        any |= L->residual >= 0 && a[L->residual];
        for (int o = 0; any && o < L->n_out; o++)
            if (L->out[o] >= 0)
                a[L->out[o]] = true;
    }
    return a;
}

static int find_readers(PruneRecover *R)
{
    bool *a = affected(R->P);
    if (!a)
        return -1;
    for (int l = 0; l < R->g->n_layers; l++) {
        const IrLayer *L = &R->g->layers[l];
        if (!refittable(R->g, L) || !a[L->in[0]])
            continue;
        int k = R->n_rd;
        if (add_reader(R, l))
            return free(a), -1;
        int root = prune_find(R->P, L->in[0]);
        bool cut_here = R->n_rd > k && R->P->blk[L->in[0]] == 1 && !R->P->frozen[root] && R->P->cut[root] > 0;
        if (cut_here && alloc_stats(&R->rd[k]))
            return free(a), -1;
    }
    free(a);
    return 0;
}

PruneRecover *prune_recover_begin(Pruner *P, const PassOptions *opt, IrDiag *d)
{
    PruneRecover *R = calloc(1, sizeof *R);
    if (!R)
        return NULL;
    R->P = P;
    R->g = P->g;
    R->log = opt->log;
    R->orig_nt = P->nt;
    R->by_tensor = malloc(sizeof(int) * ((size_t)P->nt + 1));
    R->next = malloc(sizeof(int) * ((size_t)P->g->n_layers + 1));
    R->inputs = pass_calib_read(P->g, opt->prune_calib, opt->prune_calib_max, &R->n_inputs, d);
    bool ok = R->by_tensor && R->next && R->inputs;
    for (int t = 0; ok && t < P->nt; t++)
        R->by_tensor[t] = -1;
    if (ok)
        R->in_size = ir_tensor_numel(&P->g->tensors[P->g->inputs[0]]);
    if (!ok || find_readers(R) || run_inputs(R, 1, d)) {
        prune_recover_end(R);
        return NULL;
    }
    return R;
}

void prune_recover_end(PruneRecover *R)
{
    if (!R)
        return;
    for (int i = 0; i < R->n_rd; i++) {
        free(R->rd[i].G);
        free(R->rd[i].Cx);
        free(R->rd[i].xo);
        free(R->rd[i].xs);
    }
    free(R->rd);
    free(R->by_tensor);
    free(R->next);
    free(R->inputs);
    free(R->orig_layers);
    free(R->orig_dim1);
    free(R);
}

/* ------------------------------------------------------------- views */

int prune_recover_snapshot(PruneRecover *R)
{
    IrGraph *g = R->g;
    R->orig_layers = malloc(sizeof *R->orig_layers * (size_t)(g->n_layers + 1));
    R->orig_dim1 = malloc(sizeof *R->orig_dim1 * (size_t)(R->orig_nt + 1));
    if (!R->orig_layers || !R->orig_dim1)
        return -1;
    memcpy(R->orig_layers, g->layers, sizeof *g->layers * (size_t)g->n_layers);
    for (int t = 0; t < R->orig_nt; t++)
        R->orig_dim1[t] = g->tensors[t].rank >= 2 ? g->tensors[t].dims[1] : 0;
    return 0;
}

/* exchange the graph's current layers and axis-1 sizes with the saved view */
static void swap_view(PruneRecover *R)
{
    IrGraph *g = R->g;
    for (int l = 0; l < g->n_layers; l++) {
        IrLayer tmp = g->layers[l];
        g->layers[l] = R->orig_layers[l];
        R->orig_layers[l] = tmp;
    }
    for (int t = 0; t < R->orig_nt; t++) {
        if (g->tensors[t].rank < 2)
            continue;
        int64_t tmp = g->tensors[t].dims[1];
        g->tensors[t].dims[1] = R->orig_dim1[t];
        R->orig_dim1[t] = tmp;
    }
}

/* layers after `last` are switched off for a run that only needs the
 * tensors up to it; the missing graph outputs are then no error */
static int run_one(PruneRecover *R, const float *in, int last, IrDiag *d)
{
    IrGraph *g = R->g;
    if (last < 0)
        return quant_eval(g, &in, NULL, on_tensor, R, true, -1, NULL, d);
    bool *was = malloc((size_t)g->n_layers + 1);
    if (!was)
        return -1;
    for (int l = 0; l < g->n_layers; l++) {
        was[l] = g->layers[l].dead;
        g->layers[l].dead |= l > last;
    }
    IrDiag scratch;
    diag_init(&scratch);
    quant_eval(g, &in, NULL, on_tensor, R, true, -1, NULL, &scratch);
    int rc = scratch.n_errors && strstr(scratch.v[scratch.n - 1].msg, "graph output") == NULL ? -1 : 0;
    if (rc)
        diag_add(d, DIAG_ERROR, scratch.v[0].file, scratch.v[0].node, scratch.v[0].op, "%s", scratch.v[0].msg);
    diag_free(&scratch);
    for (int l = 0; l < g->n_layers; l++)
        g->layers[l].dead = was[l];
    free(was);
    return rc;
}

/* phase 1: statistics on the unpruned graph; 2: the original view's
 * features cached; 3: the pruned graph's moments for reader R->active */
static int run_inputs(PruneRecover *R, int phase, IrDiag *d)
{
    R->phase = phase;
    if (phase == 2)
        swap_view(R);
    int rc = 0, last = phase == 3 ? R->rd[R->active].l : -1;
    for (R->image = 0; rc == 0 && R->image < R->n_inputs; R->image++)
        rc = run_one(R, R->inputs + R->image * R->in_size, last, d);
    if (phase == 2)
        swap_view(R);
    return rc;
}

/* ------------------------------------------------------------- refit */

static int refit_alloc(PruneRecover *R, Reader *r)
{
    r->n = features(R->g, r);
    r->F = outputs(R->g, r);
    free(r->G);
    free(r->xs);
    r->G = calloc((size_t)(r->n * r->n), sizeof *r->G);
    r->Cx = calloc((size_t)(r->n * r->n0), sizeof *r->Cx);
    r->xo = calloc((size_t)(SAMPLES * r->n0 * R->n_inputs), sizeof *r->xo);
    r->xs = calloc((size_t)(SAMPLES * (r->n > r->n0 ? r->n : r->n0)), sizeof *r->xs);
    r->count = 0;
    return r->G && r->Cx && r->xo && r->xs ? 0 : -1;
}

/* write W~' (F x n row-major) into new constants of reader r's layer */
static void store(PruneRecover *R, const Reader *r, const double *W)
{
    IrGraph *g = R->g;
    IrLayer *L = &g->layers[r->l];
    int64_t K = r->n - 1, F = r->F;
    const IrTensor *Wt = &g->tensors[L->in[1]];
    int64_t wd[IR_MAX_RANK];
    memcpy(wd, Wt->dims, sizeof wd);
    bool tb = !r->conv && L->attr.gemm.trans_b;
    double alpha = r->conv ? 1.0 : L->attr.gemm.alpha;
    float *w, *b;
    int tw = pass_new_const_f32(g, Wt->name, "_refit", Wt->rank, wd, &w);
    int tbias = pass_new_const_f32(g, g->layers[r->l].name, "_bias_refit", 1, &F, &b);
    L = &g->layers[r->l];
    for (int64_t f = 0; f < F; f++) {
        for (int64_t k = 0; k < K; k++)
            w[r->conv || tb ? f * K + k : k * F + f] = (float)(W[f * r->n + k] / alpha);
        b[f] = (float)W[f * r->n + K];
    }
    L->in[1] = tw;
    L->in[2] = tbias;
    if (L->n_in < 3)
        L->n_in = 3;
    if (!r->conv)
        L->attr.gemm.beta = 1.0f;
}

/* the original output row of each current one (the layer's own output
 * channels may have been cut too) */
static int64_t *row_map(PruneRecover *R, const Reader *r)
{
    int y = R->g->layers[r->l].out[0];
    const bool *m = prune_mask(R->P, y);
    int64_t blk = R->P->blk[y] > 0 ? R->P->blk[y] : 1, F0 = y < R->orig_nt ? R->orig_dim1[y] : r->F;
    int64_t *map = malloc(sizeof *map * (size_t)(r->F + 1));
    int64_t k = 0;
    for (int64_t f = 0; map && f < F0 && k < r->F; f++)
        if (!m || m[f / blk])
            map[k++] = f;
    if (map && k != r->F)
        return free(map), NULL;
    return map;
}

/* solve G W~'^T = Cx W~0^T for reader r and store the result */
static int solve(PruneRecover *R, Reader *r, const double *W0)
{
    int64_t n = r->n, n0 = r->n0, F = r->F;
    double *rhs = calloc((size_t)(n * F), sizeof *rhs);
    int64_t *map = row_map(R, r);
    if (!rhs || !map)
        return free(rhs), free(map), -1;
    for (int64_t f = 0; f < F; f++)
        for (int64_t i = 0; i < n; i++) {
            double s = 0;
            for (int64_t j = 0; j < n0; j++)
                s += r->Cx[i * n0 + j] * W0[map[f] * n0 + j];
            rhs[f * n + i] = s;
        }
    free(map);
    symmetrize(r->G, n);
    ridge(r->G, n);
    int nn = (int)n, nf = (int)F, info = 0;
    dposv_("L", &nn, &nf, r->G, &nn, rhs, &nn, &info);
    if (info == 0)
        store(R, r, rhs);  /* rhs column f = row f of W~' */
    free(rhs);
    return info == 0 ? 0 : -1;
}

/* reader i, fitted on the pruned graph as it is after the refits before it */
static int refit_one(PruneRecover *R, int i, IrDiag *d)
{
    Reader *r = &R->rd[i];
    R->active = i;
    if (run_inputs(R, 3, d))
        return -1;
    swap_view(R);
    double *W0 = weights(R->g, r, r->n0);
    swap_view(R);
    int ok = W0 && r->count > 0 && solve(R, r, W0) == 0;
    free(W0);
    free(r->xo);
    r->xo = NULL;
    return ok;
}

int prune_recover_refit(PruneRecover *R, IrDiag *d)
{
    for (int i = 0; i < R->n_rd; i++)
        if (refit_alloc(R, &R->rd[i]))
            return -1;
    if (run_inputs(R, 2, d))
        return -1;
    int done = 0;
    for (int i = 0; i < R->n_rd; i++) {
        int k = refit_one(R, i, d);
        if (k < 0)
            return -1;
        done += k;
    }
    if (R->log)
        fprintf(R->log, "prune: %d layer%s refit by least squares on %d calibration input%s\n", done,
                done == 1 ? "" : "s", R->n_inputs, R->n_inputs == 1 ? "" : "s");
    return 0;
}
