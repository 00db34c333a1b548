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
 *    group that is being cut; the same run keeps every reader's sampled
 *    features x for step 3.
 * 2. Choice: greedy backward elimination on the exact least-squares error.
 *    Removing input feature c from a fit with coefficients B and
 *    H = G^-1 raises the reader's output error by sum_f B[f,c]^2 / H[c,c]
 *    (optimal brain surgeon on a linear layer); B and H are then updated.
 *    The error of each reader is divided by its output energy tr(W G W^T)
 *    and summed over the group's readers; the channel that costs least goes
 *    first. The activations x are the ones the network really computes,
 *    after depthwise convs, BN scales and activations, so their scale is
 *    part of the saliency.
 *    Linear groups (every writer a full conv without activation, such as
 *    MobileNetV2's projection convs and the residual stream they add to;
 *    every reader refittable) are not cut by channel but projected: any
 *    basis of such a group computes the same thing, so the writers become
 *    W' = P W, b' = P b with P (k x C) the k directions the readers need
 *    most - the leading generalized eigenvectors of (S M S, S), S the
 *    group's centered covariance, M = sum of W_r^T W_r over its readers,
 *    each normalized by its output variance. For one reader this is the
 *    least error any k linear features of the group leave after the refit
 *    (channel selection only searches the k-subsets of the identity).
 * 3. Refit (after the channels are removed): every refittable layer
 *    downstream of a cut is fitted to the original network's output,
 *    min E|W' x'~ - W x~|^2 with x' from the pruned network and x from the
 *    original one on the same input and position (He et al.'s
 *    reconstruction of the pruned network's inputs, which also absorbs the
 *    error of earlier cuts). The constant feature makes the new bias the
 *    bias correction: the mean shift the cut causes in the reader's
 *    output is removed as part of the same fit. A writer of a projected
 *    group that is itself refit is fitted to P times its original output.
 *    The pruned runs of the readers, in layer order, resume where the
 *    previous refit changed the graph (each input keeps the tensors read
 *    across that layer), so together they cost one run per input rather
 *    than one per reader.
 * Normal equations are solved by LAPACK's Cholesky (dposv, dpotrf/dpotri),
 * the projection's eigenproblem by dsygv, with a ridge of 1e-4 of the mean
 * diagonal (dead channels stay solvable).
 *
 * The original network is kept as a second view of the same graph: the
 * layer array and axis-1 sizes saved before prune_apply rewrite them (the
 * old constants stay in the graph until compaction), swapped in to read
 * the original weights.
 */
#include "prune_internal.h"
#include "passes/quant/quant_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES 16          /* output positions per input and reader */
#define MAX_FEATURES 2048   /* larger readers are sliced, not refit */
#define RIDGE 1e-4
#define RESUME_BYTES ((int64_t)512 << 20)  /* phase 2 keeps at most this many bytes of tensors */

void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, double *b, const int *ldb,
            int *info);
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dpotri_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *b,
            const int *ldb, double *w, double *work, const int *lwork, int *info);

typedef struct {
    int l;                 /* the reading layer */
    int x;                 /* its input tensor */
    bool conv;             /* 1x1 conv; else Gemm */
    int64_t F;             /* outputs (current view) */
    int64_t n;             /* features incl. the constant (current view) */
    int64_t n0;            /* features incl. the constant in the original view */
    double *G;             /* n x n second moments (1: original; 3: pruned) */
    double *Cx;            /* 3: n x n0 cross moments pruned x original */
    float *xo;             /* 1: per input, n0 x SAMPLES original features */
    float *xs;             /* n x SAMPLES features being observed (feature-major) */
    int ns;                /* samples of the current input */
    int64_t count;
    bool stats;            /* collecting in step 1 */
} Reader;

/* a linear group's new channels: s' = P s, P k x C */
typedef struct {
    int root;
    int64_t C, k;
    double *P;
} Proj;

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
    int phase;             /* 1 original run (statistics, features), 2 pruned run */
    int active;            /* phase 2: the one reader observed */
    QuantRunBufs *bufs;    /* phase 2, per input: the tensors the next span reads */
    bool resume;           /* phase 2 spans resume where the last refit changed the graph */
    int from;              /* first layer of the next phase-2 span */
    IrLayer *orig_layers;  /* the original view */
    int64_t *orig_dim1;
    int orig_nt;
    Proj *proj;            /* linear groups given a new basis */
    int n_proj;
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

/* r->xs[c * SAMPLES + s]: feature c at sample s (0 past r->ns), so the
 * moments below are dot products of whole rows */
static void gather(PruneRecover *R, Reader *r, const float *x)
{
    int64_t off[SAMPLES];
    const IrTensor *X = &R->g->tensors[r->x];
    int64_t n = features(R->g, r), C = n - 1, plane = r->conv ? X->dims[2] * X->dims[3] : 1;
    r->ns = positions(R, r, off);
    for (int64_t c = 0; c <= C; c++) {
        float *f = r->xs + c * SAMPLES;
        for (int s = 0; s < SAMPLES; s++)
            f[s] = s >= r->ns ? 0.0f : c == C ? 1.0f : x[c * plane + off[s]];
    }
}

/* one input's share of a moment: a float dot product over its samples
 * (accumulated in double across inputs) */
static double dot(const float *a, const float *b)
{
    float acc = 0;
    for (int s = 0; s < SAMPLES; s++)
        acc += a[s] * b[s];
    return acc;
}

/* upper triangle of G += sum_s f_s f_s^T */
static void add_gram(double *G, const float *xs, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i; j < n; j++)
            G[i * n + j] += dot(xs + i * SAMPLES, xs + j * SAMPLES);
}

/* Cx += sum_s xn_s xo_s^T (n x n0) */
static void add_cross(double *Cx, const float *xn, const float *xo, int64_t n, int64_t n0)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n0; j++)
            Cx[i * n0 + j] += dot(xn + i * SAMPLES, xo + j * SAMPLES);
}

static void on_tensor(void *ctx, int t, const float *x, int64_t n)
{
    PruneRecover *R = ctx;
    (void)n;
    for (int i = t < R->orig_nt ? R->by_tensor[t] : -1; i >= 0; i = R->next[i]) {
        Reader *r = &R->rd[i];
        if (R->phase == 2 && i != R->active)
            continue;
        gather(R, r, x);
        float *xo = r->xo + (int64_t)R->image * SAMPLES * r->n0;
        if (R->phase == 1) {
            memcpy(xo, r->xs, sizeof *xo * SAMPLES * (size_t)r->n0);
            if (r->stats)
                add_gram(r->G, r->xs, r->n);
        } else {
            add_gram(r->G, r->xs, r->n);
            add_cross(r->Cx, r->xs, xo, r->n, r->n0);
        }
        r->count += r->ns;
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

/* -------------------------------------------------------- projection */

static bool in_group(Pruner *P, int t, int root)
{
    return t >= 0 && t < P->nt && P->g->tensors[t].kind != IR_T_CONST && P->blk[t] > 0 && prune_find(P, t) == root;
}

/* A linear group: every tensor of it is written by a full conv with no
 * activation (its residual, if any, from the group too) and read only as
 * the input of a refittable reader with statistics or as such a residual;
 * no graph input or output is in it. The group's values are then linear
 * in what its writers read, so any basis of its channels can replace the
 * channels themselves: s' = P s with writers W' = P W, b' = P b. */
static bool linear_group(PruneRecover *R, int root)
{
    Pruner *P = R->P;
    IrGraph *g = R->g;
    for (int i = 0; i < g->n_inputs; i++)
        if (in_group(P, g->inputs[i], root))
            return false;
    for (int i = 0; i < g->n_outputs; i++)
        if (in_group(P, g->outputs[i], root))
            return false;
    for (int t = 0; t < P->nt; t++)
        if (in_group(P, t, root) && P->blk[t] != 1)
            return false;
    for (int l = 0; l < g->n_layers; l++) {
        const IrLayer *L = &g->layers[l];
        if (L->dead)
            continue;
        bool writes = false;
        for (int o = 0; o < L->n_out; o++)
            if (in_group(P, L->out[o], root)) {
                if (o != 0)
                    return false;
                writes = true;
            }
        if (writes && (!P->source[l] || !prune_conv_full(g, L) || L->act.kind != IR_ACT_NONE ||
                       (L->residual >= 0 && !in_group(P, L->residual, root))))
            return false;
        for (int i = 0; i < L->n_in; i++) {
            const Reader *r = in_group(P, L->in[i], root) ? reader_of(R, l) : NULL;
            if (in_group(P, L->in[i], root) && (i != 0 || !r || !r->stats))
                return false;
        }
        if ((!writes && in_group(P, L->residual, root)) || in_group(P, L->act_slope, root))
            return false;
    }
    return true;
}

/* centered second moments of reader r's features (without the constant),
 * C x C, from its statistics */
static double *covariance(const Reader *r)
{
    int64_t n = r->n, C = n - 1;
    double *S = malloc(sizeof *S * (size_t)(C * C + 1)), k = (double)(r->count > 0 ? r->count : 1);
    for (int64_t i = 0; S && i < C; i++)
        for (int64_t j = 0; j < C; j++) {
            int64_t a = i < j ? i : j, b = i < j ? j : i;
            S[i * C + j] = r->G[a * n + b] / k - (r->G[i * n + C] / k) * (r->G[j * n + C] / k);
        }
    return S;
}

/* out = X Y, all three C x C row-major */
static void sq_mul(int64_t C, const double *X, const double *Y, double *out)
{
    for (int64_t a = 0; a < C; a++)
        for (int64_t b = 0; b < C; b++) {
            double v = 0;
            for (int64_t x = 0; x < C; x++)
                v += X[a * C + x] * Y[x * C + b];
            out[a * C + b] = v;
        }
}

/* one reader's terms: A += S T S / e, B += S, with S the group's
 * covariance as the reader sees it, T = W^T W (without the bias column)
 * and e = tr(W S W^T); T and U are C x C scratch. false on failure. */
static bool add_reader_terms(PruneRecover *R, const Reader *r, int64_t C, double *A, double *B, double *T, double *U)
{
    double *S = r->n == C + 1 ? covariance(r) : NULL, *W = S ? weights(R->g, r, r->n) : NULL;
    bool ok = S && W;
    int64_t n = r->n, F = r->F;
    double e = 0;
    for (int64_t a = 0; ok && a < C; a++)
        for (int64_t b = 0; b < C; b++) {
            double m = 0;
            for (int64_t f = 0; f < F; f++)
                m += W[f * n + a] * W[f * n + b];
            T[a * C + b] = m;
            e += m * S[a * C + b];
        }
    e = e > 1e-30 ? e : 1e-30;
    if (ok) {
        sq_mul(C, S, T, U);
        sq_mul(C, U, S, T);
        for (int64_t i = 0; i < C * C; i++) {
            A[i] += T[i] / e;
            B[i] += S[i];
        }
    }
    free(S);
    free(W);
    return ok;
}

/* The k directions of the group's C channels that its readers need most.
 * For one reader with output weights W and centered covariance S, keeping
 * s' = P s and refitting the reader leaves the error tr(W S W^T) -
 * tr(W S P^T (P S P^T)^-1 P S W^T); the best P are the k leading
 * generalized eigenvectors of (S W^T W S, S). For several readers the
 * terms are summed, each normalized by its output variance tr(W S W^T)
 * (exact when they share S). P S P^T = I: the new channels are uncorrelated
 * with equal variance. NULL on failure (the caller then selects channels). */
static double *projection(PruneRecover *R, Reader **rs, int nr, int64_t C, int64_t k)
{
    double *A = calloc((size_t)(C * C), sizeof *A), *B = calloc((size_t)(C * C), sizeof *B);
    double *T = malloc(sizeof *T * (size_t)(C * C)), *U = malloc(sizeof *U * (size_t)(C * C));
    double *w = malloc(sizeof *w * (size_t)C), *Pm = NULL;
    bool ok = A && B && T && U && w;
    for (int i = 0; ok && i < nr; i++)
        ok = add_reader_terms(R, rs[i], C, A, B, T, U);
    int n = (int)C, one = 1, info = -1, lwork = -1;
    double q = 0;
    if (ok) {
        ridge(B, C);
        dsygv_(&one, "V", "L", &n, A, &n, B, &n, w, &q, &lwork, &info);
    }
    lwork = info == 0 ? (int)q : 0;
    double *work = lwork > 0 ? malloc(sizeof *work * (size_t)lwork) : NULL;
    if (work)
        dsygv_(&one, "V", "L", &n, A, &n, B, &n, w, work, &lwork, &info);
    /* eigenvalues ascending; eigenvector i is row i (LAPACK's column i) */
    if (work && info == 0 && (Pm = malloc(sizeof *Pm * (size_t)(k * C))))
        for (int64_t i = 0; i < k; i++)
            memcpy(Pm + i * C, A + (C - 1 - i) * C, sizeof *Pm * (size_t)C);
    free(work), free(A), free(B), free(T), free(U), free(w);
    return Pm;
}

static const Proj *proj_of(const PruneRecover *R, int t)
{
    if (t < 0 || t >= R->P->nt || R->P->blk[t] <= 0)
        return NULL;
    int root = prune_find(R->P, t);
    for (int i = 0; i < R->n_proj; i++)
        if (R->proj[i].root == root)
            return &R->proj[i];
    return NULL;
}

/* group root as a linear group projected onto k directions: the kept
 * mask (the first k channels: which ones does not matter, the writers are
 * rewritten) or NULL when the group is not linear */
static bool *project_group(PruneRecover *R, int root, Reader **rs, int nr, int64_t C, int64_t cut)
{
    if (!linear_group(R, root))
        return NULL;
    Proj *v = realloc(R->proj, sizeof *v * (size_t)(R->n_proj + 1));
    if (!v)
        return NULL;
    R->proj = v;
    Proj *p = &v[R->n_proj];
    *p = (Proj){root, C, C - cut, projection(R, rs, nr, C, C - cut)};
    bool *keep = p->P ? malloc((size_t)C) : NULL;
    if (!keep)
        return free(p->P), NULL;
    for (int64_t c = 0; c < C; c++)
        keep[c] = c < p->k;
    R->n_proj++;
    return keep;
}

bool *prune_recover_select(PruneRecover *R, int root, int64_t C, int64_t cut)
{
    Reader *rs[IR_MAX_IO];
    int nr = R ? group_readers(R, root, rs, IR_MAX_IO) : -1;
    if (nr <= 0)
        return NULL;
    bool *projected = project_group(R, root, rs, nr, C, cut);
    if (projected)
        return projected;
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
    r->stats = r->G != NULL;
    return r->stats ? 0 : -1;
}

/* every reader: its original features (phase 1) */
static int alloc_features(PruneRecover *R, Reader *r)
{
    r->xs = calloc((size_t)(SAMPLES * r->n0), sizeof *r->xs);
    r->xo = calloc((size_t)(SAMPLES * r->n0 * R->n_inputs), sizeof *r->xo);
    return r->xs && r->xo ? 0 : -1;
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
        if ((R->n_rd > k && alloc_features(R, &R->rd[k])) || (cut_here && alloc_stats(&R->rd[k])))
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
    for (int i = 0; R->bufs && i < R->n_inputs; i++)
        quant_run_bufs_free(&R->bufs[i]);
    free(R->bufs);
    free(R->rd);
    free(R->by_tensor);
    free(R->next);
    free(R->inputs);
    free(R->orig_layers);
    free(R->orig_dim1);
    for (int i = 0; i < R->n_proj; i++)
        free(R->proj[i].P);
    free(R->proj);
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

/* Phase 2 for the active reader: every input's pruned run from R->from up
 * to the reader's layer. With resume, each input keeps the tensors the
 * next span reads - the layers before the reader just refit compute the
 * same values again - so the refits together cost one run per input. */
static int run_spans(PruneRecover *R, IrDiag *d)
{
    int last = R->rd[R->active].l, rc = 0;
    for (R->image = 0; rc == 0 && R->image < R->n_inputs; R->image++) {
        QuantRunBufs *b = &R->bufs[R->image];
        rc = quant_eval_span(R->g, b, R->inputs + R->image * R->in_size, R->from, last - 1, on_tensor, R, d);
        quant_bufs_keep_live(R->g, b, R->resume ? last : R->g->n_layers);
    }
    R->from = R->resume ? last : 0;
    return rc;
}

/* phase 1: the unpruned graph's statistics and every reader's features;
 * 2: the pruned graph's moments for reader R->active */
static int run_inputs(PruneRecover *R, int phase, IrDiag *d)
{
    R->phase = phase;
    if (phase == 2)
        return run_spans(R, d);
    int rc = 0;
    for (R->image = 0; rc == 0 && R->image < R->n_inputs; R->image++) {
        const float *in = R->inputs + R->image * R->in_size;
        rc = quant_eval(R->g, &in, NULL, on_tensor, R, true, -1, NULL, d);
    }
    return rc;
}

/* ------------------------------------------------------------- refit */

static int refit_alloc(PruneRecover *R, Reader *r)
{
    r->n = features(R->g, r);
    r->F = outputs(R->g, r);
    free(r->G);
    r->G = calloc((size_t)(r->n * r->n), sizeof *r->G);
    r->Cx = calloc((size_t)(r->n * r->n0), sizeof *r->Cx);
    r->count = 0;
    return r->G && r->Cx ? 0 : -1;
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
    double *rhs = calloc((size_t)(n * F), sizeof *rhs), *Wp = NULL;
    const Proj *p = proj_of(R, R->g->layers[r->l].out[0]);
    int64_t *map = p ? NULL : row_map(R, r);
    if (p && p->k == F && (Wp = calloc((size_t)(F * n0), sizeof *Wp)))
        for (int64_t f = 0; f < F; f++)  /* the target rows: P times the original ones */
            for (int64_t c = 0; c < p->C; c++)
                for (int64_t j = 0; j < n0; j++)
                    Wp[f * n0 + j] += p->P[f * p->C + c] * W0[c * n0 + j];
    if (!rhs || (!map && !Wp))
        return free(rhs), free(map), free(Wp), -1;
    for (int64_t f = 0; f < F; f++) {
        const double *w0 = Wp ? Wp + f * n0 : W0 + map[f] * n0;
        for (int64_t i = 0; i < n; i++) {
            double s = 0;
            for (int64_t j = 0; j < n0; j++)
                s += r->Cx[i * n0 + j] * w0[j];
            rhs[f * n + i] = s;
        }
    }
    free(map);
    free(Wp);
    symmetrize(r->G, n);
    ridge(r->G, n);
    int nn = (int)n, nf = (int)F, info = 0;
    dposv_("L", &nn, &nf, r->G, &nn, rhs, &nn, &info);
    if (info == 0)
        store(R, r, rhs);  /* rhs column f = row f of W~' */
    free(rhs);
    return info == 0 ? 0 : -1;
}

/* the writers of projected groups: W' = P W, b' = P b over the original
 * rows, with the input columns the graph keeps now */
static int project_writer(PruneRecover *R, const Proj *p, int l)
{
    IrGraph *g = R->g;
    swap_view(R);
    const IrLayer *L0 = &g->layers[l];
    const float *w0 = pass_const_f32(g, L0->in[1]);
    const float *b0 = L0->n_in >= 3 && L0->in[2] >= 0 ? pass_const_f32(g, L0->in[2]) : NULL;
    const IrTensor *T0 = &g->tensors[L0->in[1]];
    int64_t cin0 = T0->rank >= 2 ? T0->dims[1] : 0, F0 = T0->dims[0], sp = F0 > 0 ? ir_tensor_numel(T0) / F0 : 0;
    sp = cin0 > 0 ? sp / cin0 : 0;
    swap_view(R);
    IrLayer *L = &g->layers[l];
    const IrTensor *Wt = &g->tensors[L->in[1]];
    const bool *m = prune_mask(R->P, L->in[0]);
    int64_t cin = Wt->dims[1], k = p->k, kept = 0;
    int64_t *col = malloc(sizeof *col * (size_t)(cin + 1));
    for (int64_t i = 0; col && i < cin0; i++)
        if (!m || m[i])
            col[kept < cin ? kept : cin] = i, kept++;
    if (!w0 || !col || F0 != p->C || kept != cin || Wt->dims[0] != k || sp <= 0)
        return free(col), -1;
    int64_t wd[IR_MAX_RANK];
    memcpy(wd, Wt->dims, sizeof wd);
    float *w, *b;
    int tw = pass_new_const_f32(g, Wt->name, "_proj", Wt->rank, wd, &w);
    int tb = pass_new_const_f32(g, g->layers[l].name, "_bias_proj", 1, &k, &b);
    if (tw < 0 || tb < 0)
        return free(col), -1;
    for (int64_t f = 0; f < k; f++) {
        const double *pr = p->P + f * p->C;
        for (int64_t i = 0; i < cin; i++)
            for (int64_t s = 0; s < sp; s++) {
                double v = 0;
                for (int64_t c = 0; c < p->C; c++)
                    v += pr[c] * w0[(c * cin0 + col[i]) * sp + s];
                w[(f * cin + i) * sp + s] = (float)v;
            }
        double v = 0;
        for (int64_t c = 0; b0 && c < p->C; c++)
            v += pr[c] * b0[c];
        b[f] = (float)v;
    }
    free(col);
    L = &g->layers[l];
    L->in[1] = tw;
    L->in[2] = tb;
    if (L->n_in < 3)
        L->n_in = 3;
    return 0;
}

static int project_writers(PruneRecover *R)
{
    for (int l = 0; l < R->g->n_layers; l++) {
        const IrLayer *L = &R->g->layers[l];
        const Proj *p = L->dead || !R->P->source[l] ? NULL : proj_of(R, L->out[0]);
        if (p && project_writer(R, p, l))
            return -1;
    }
    return 0;
}

/* reader i, fitted on the pruned graph as it is after the refits before it */
static int refit_one(PruneRecover *R, int i, IrDiag *d)
{
    Reader *r = &R->rd[i];
    R->active = i;
    if (run_inputs(R, 2, d))
        return -1;
    swap_view(R);
    double *W0 = weights(R->g, r, r->n0);
    swap_view(R);
    int ok = W0 && r->count > 0 && solve(R, r, W0) == 0;
    free(W0);
    free(r->xo);
    r->xo = NULL;
    if (!ok && proj_of(R, r->x)) {  /* its sliced weights would read the new basis as channels */
        diag_error(d, R->g->path, R->g->layers[r->l].name, NULL,
                   "prune: cannot refit this reader of a projected channel group");
        return -1;
    }
    return ok;
}

/* whether every input can keep the tensors read across each reader's
 * layer (phase 2 then resumes instead of running from the start) */
static bool can_resume(PruneRecover *R)
{
    IrGraph *g = R->g;
    char *keep = malloc((size_t)g->n_tensors + 1);
    int64_t most = 0;
    for (int i = 0; keep && i < R->n_rd; i++) {
        int64_t bytes = 0;
        quant_live_in(g, R->rd[i].l, keep);
        for (int t = 0; t < g->n_tensors; t++)
            if (keep[t] && g->tensors[t].kind != IR_T_CONST)
                bytes += (int64_t)ir_tensor_nbytes(&g->tensors[t]);
        most = bytes > most ? bytes : most;
    }
    free(keep);
    return keep && most * R->n_inputs <= RESUME_BYTES;
}

int prune_recover_refit(PruneRecover *R, IrDiag *d)
{
    for (int i = 0; i < R->n_rd; i++)
        if (refit_alloc(R, &R->rd[i]))
            return -1;
    R->bufs = calloc((size_t)R->n_inputs + 1, sizeof *R->bufs);
    if (!R->bufs)
        return -1;
    R->resume = can_resume(R);
    if (project_writers(R)) {
        diag_error(d, R->g->path, NULL, NULL, "prune: cannot rewrite the writers of a projected channel group");
        return -1;
    }
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
