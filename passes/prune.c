/* prune.c - pass prune: structured output-channel pruning by L1 norm.
 *
 * Contract
 *   requires: shapes known; float weights; best after the fusions (BN folded,
 *             so a filter's L1 norm is the one that is really applied, and
 *             residual Adds sit in conv epilogues).
 *   provides: in every channel group (prune_groups.c) that no layer freezes,
 *             the channels with the smallest summed L1 norm over the group's
 *             sources (full convs, Gemm/MatMul with constant weights: the
 *             norm of each output filter / weight column) are removed
 *             physically: smaller weights, biases, BN parameters, slopes and
 *             tensors, depthwise group counts, FC input columns after a
 *             pool + flatten, Concat offsets. Graph inputs and outputs keep
 *             all their channels. A group removes round(ratio * C) of its C
 *             channels, keeping at least one; ratio is --prune RATIO, or per
 *             layer from a spec file, and a group takes the smallest ratio of
 *             its sources (so "keep everything" in one layer of a residual
 *             group wins).
 *             With --prune-calib FILE (PassOptions.prune_calib) channels are
 *             chosen by the reconstruction error they leave in their readers
 *             and every 1x1 / FC reader downstream is refit by least squares
 *             (prune_recover.c, docs/codesign.md); groups read by other
 *             layers keep the L1 ranking. A linear group (writers are convs
 *             without activation, readers 1x1 / FC) keeps k = C - cut
 *             channels that are the k directions its readers need most
 *             (its writers' weights are rewritten), not k of its channels.
 *   breaks:   the network's function (pruning is lossy unless the removed
 *             channels are dead): run it before quantization calibration and
 *             fine-tune or re-check accuracy afterwards.
 *
 * Spec file: lines "LAYER_NAME RATIO" (name of the layer or of any ONNX node
 * folded into it), "* RATIO" for every layer not listed, '#' comments.
 */
#include "prune_internal.h"
#include "ir/escape.h"
#include "ir/sidefile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------- spec */

typedef struct {
    char *name;
    double ratio;
    bool used;
} SpecLine;

typedef struct {
    SpecLine *v;
    int n;
    double dflt;     /* "*" or the uniform ratio */
} Spec;

/* "NAME RATIO" (NAME quoted when it holds blanks or '#': ir/sidefile.h) */
static int spec_line(Spec *s, const char *path, int lineno, char *line, IrDiag *d)
{
    char *f[2], *end = NULL;
    bool quoted[2];
    int k = sf_fields(line, f, quoted, 2);
    if (k == 0)
        return 0;
    double r = k == 2 ? strtod(f[1], &end) : -1;
    if (k != 2 || *end || !(r >= 0 && r < 1)) {
        diag_error(d, path, NULL, NULL, "line %d: expected 'LAYER_NAME RATIO' with RATIO in [0, 1)", lineno);
        return -1;
    }
    const char *name = f[0];
    if (!quoted[0] && !strcmp(name, "*")) {
        s->dflt = r;
        return 0;
    }
    SpecLine *v = realloc(s->v, sizeof *v * (size_t)(s->n + 1));
    if (!v)
        return -1;
    s->v = v;
    if (!(v[s->n].name = strdup(name)))
        return -1;
    v[s->n].ratio = r;
    v[s->n].used = false;
    s->n++;
    return 0;
}

static void spec_free(Spec *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->v[i].name);
    free(s->v);
}

static int spec_load(Spec *s, const char *path, IrDiag *d)
{
    char *text, *cur, *line;
    size_t len;
    if (sf_read(path, &SF_PRUNE_SPEC, &text, &len, d))
        return -1;
    int rc = 0;
    cur = text;
    for (int no = 1; rc == 0 && (line = sf_next_line(&cur)); no++)
        rc = spec_line(s, path, no, line, d);
    free(text);
    return rc;
}

/* name is one of the comma-separated items of list */
static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

static double layer_ratio(Spec *s, const IrLayer *L)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].name, L->name) || in_list(L->origin, s->v[i].name)) {
            s->v[i].used = true;
            return s->v[i].ratio;
        }
    return s->dflt;
}

/* ------------------------------------------------------------ scores */

/* add |w| of each output channel of source layer L to score[] */
static void add_scores(IrGraph *g, const IrLayer *L, double *score, int64_t C)
{
    const IrTensor *W = &g->tensors[L->in[1]];
    const float *w = pass_const_f32(g, L->in[1]);
    int64_t n = ir_tensor_numel(W);
    if (L->op == IR_OP_CONV) {
        int64_t per = n / C;
        for (int64_t i = 0; i < n; i++)
            score[i / per] += fabs(w[i]);
        return;
    }
    bool tb = L->op == IR_OP_GEMM && L->attr.gemm.trans_b;
    int64_t cols = W->dims[1];
    for (int64_t i = 0; i < n; i++)
        score[tb ? i / cols : i % cols] += fabs(w[i]);
}

typedef struct {
    double score;
    int64_t c;
} Ranked;

static int by_score(const void *a, const void *b)
{
    const Ranked *x = a, *y = b;
    if (x->score != y->score)
        return x->score < y->score ? -1 : 1;
    return x->c > y->c ? -1 : x->c < y->c; /* ties: later channels go first */
}

/* keep mask of C channels without the n_cut lowest scores; NULL on failure */
static bool *keep_best(const double *score, int64_t C, int64_t n_cut)
{
    Ranked *r = malloc(sizeof *r * (size_t)C);
    bool *keep = malloc(sizeof *keep * (size_t)C);
    if (!r || !keep) {
        free(r);
        free(keep);
        return NULL;
    }
    for (int64_t c = 0; c < C; c++) {
        r[c] = (Ranked){score[c], c};
        keep[c] = true;
    }
    qsort(r, (size_t)C, sizeof *r, by_score);
    for (int64_t i = 0; i < n_cut; i++)
        keep[r[i].c] = false;
    free(r);
    return keep;
}

/* --------------------------------------------------------- decisions */

/* ratio and scores of the group rooted at r, from its sources */
static double group_ratio(Pruner *P, Spec *s, int r, double *score, int64_t C)
{
    double ratio = 1.0;
    for (int l = 0; l < P->g->n_layers; l++) {
        const IrLayer *L = &P->g->layers[l];
        if (L->dead || !P->source[l] || prune_find(P, L->out[0]) != r)
            continue;
        double lr = layer_ratio(s, L);
        ratio = lr < ratio ? lr : ratio;
        add_scores(P->g, L, score, C);
    }
    return ratio >= 1.0 ? 0.0 : ratio;
}

/* how many channels group r loses (P->cut[r]) and their L1 scores */
static double *plan_group(Pruner *P, Spec *s, int r)
{
    int64_t C = prune_chan(P, r);
    P->n_keep[r] = C;
    if (C < 2)
        return NULL;
    double *score = calloc((size_t)C, sizeof *score);
    if (!score)
        return NULL;
    double ratio = group_ratio(P, s, r, score, C);
    int64_t cut = (int64_t)floor(ratio * (double)C + 0.5);
    P->cut[r] = cut > C - 1 ? C - 1 : cut;
    return score;
}

static int decide_group(Pruner *P, PruneRecover *R, int r, const double *score)
{
    int64_t C = prune_chan(P, r), cut = P->cut[r];
    if (cut <= 0)
        return 0;
    P->keep[r] = R ? prune_recover_select(R, r, C, cut) : NULL;
    if (!P->keep[r])
        P->keep[r] = keep_best(score, C, cut);
    if (P->keep[r])
        P->n_keep[r] = C - cut;
    return P->keep[r] != NULL;
}

/* a Concat's mask: its inputs' masks end to end (NULL if all kept) */
static void decide_concat(Pruner *P, int y)
{
    int r = prune_find(P, y);
    const IrLayer *L = &P->g->layers[P->concat_of[y]];
    int64_t C = prune_chan(P, y), o = 0, kept = 0;
    P->n_keep[r] = C;
    bool *keep = malloc(sizeof *keep * (size_t)(C > 0 ? C : 1));
    if (!keep)
        return;
    for (int i = 0; i < L->n_in; i++) {
        const bool *m = prune_mask(P, L->in[i]);
        int64_t ci = prune_chan(P, L->in[i]);
        for (int64_t c = 0; c < ci && o < C; c++, o++)
            keep[o] = m ? m[c] : true;
    }
    for (int64_t c = 0; c < C; c++)
        kept += keep[c];
    if (o != C || kept == C) {
        free(keep);
        return;
    }
    P->keep[r] = keep;
    P->n_keep[r] = kept;
}

static bool group_root(Pruner *P, int t)
{
    return prune_find(P, t) == t && !P->frozen[t] && P->has_source[t];
}

/* the cut of every group; with calibration inputs, the recovery's statistics
 * of their readers (*R, NULL without) */
static double **plan_all(Pruner *P, Spec *s, const PassOptions *opt, PruneRecover **R, IrDiag *d)
{
    double **scores = calloc((size_t)P->nt + 1, sizeof *scores);
    bool any = false;
    for (int t = 0; scores && t < P->nt; t++)
        if (group_root(P, t)) {
            scores[t] = plan_group(P, s, t);
            any |= P->cut[t] > 0;
        }
    *R = NULL;
    if (scores && any && opt->prune_calib)
        *R = prune_recover_begin(P, opt, d);
    return scores;
}

static int decide_all(Pruner *P, PruneRecover *R, double **scores)
{
    int groups = 0;
    for (int t = 0; t < P->nt; t++)
        if (group_root(P, t) && scores[t])
            groups += decide_group(P, R, t, scores[t]);
    for (int l = 0; l < P->g->n_layers; l++) {
        const IrLayer *L = &P->g->layers[l];
        if (L->dead || L->n_out < 1 || L->out[0] < 0 || P->concat_of[L->out[0]] != l)
            continue;
        if (!P->frozen[prune_find(P, L->out[0])])
            decide_concat(P, L->out[0]);
    }
    return groups;
}

/* ------------------------------------------------------------ report */

static double pct(int64_t before, int64_t after)
{
    return before > 0 ? 100.0 * (double)(before - after) / (double)before : 0.0;
}

static void report_layers(Pruner *P, FILE *f)
{
    for (int l = 0; l < P->g->n_layers; l++) {
        const IrLayer *L = &P->g->layers[l];
        if (L->dead || !P->source[l])
            continue;
        int r = prune_find(P, L->out[0]);
        if (!P->frozen[r] && P->keep[r])
        {
            char nb[160];
            fprintf(f, "prune: %-32s %lld -> %lld channels\n", esc_term_fit(nb, sizeof nb, L->name, 64, 0),
                    (long long)prune_chan(P, L->out[0]), (long long)P->n_keep[r]);
        }
    }
}

static void report(FILE *f, const PassTotals *a, const PassTotals *b, int groups)
{
    fprintf(f, "prune: %d channel groups cut; params %lld -> %lld (-%.1f%%), MACs %lld -> %lld (-%.1f%%)\n", groups,
            (long long)a->params, (long long)b->params, pct(a->params, b->params), (long long)a->macs,
            (long long)b->macs, pct(a->macs, b->macs));
}

/* ------------------------------------------------------------- entry */

static void warn_unused(const Spec *s, const char *path, IrDiag *d)
{
    for (int i = 0; i < s->n; i++)
        if (!s->v[i].used)
            diag_warn(d, path, s->v[i].name, NULL, "prune spec names no layer of the model");
}

int pass_prune(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    Spec s = {NULL, 0, opt->prune_ratio};
    if (opt->prune_spec && spec_load(&s, opt->prune_spec, d)) {
        spec_free(&s);
        return -1;
    }
    PassTotals before, after;
    passes_totals(g, &before);
    Pruner P;
    int groups = 0, rc = 0;
    if (prune_init(&P, g) == 0) {
        prune_groups_build(&P);
        PruneRecover *R = NULL;
        double **scores = plan_all(&P, &s, opt, &R, d);
        rc = scores && opt->prune_calib && !R && d->n_errors ? -1 : 0;
        if (rc == 0 && scores)
            groups = decide_all(&P, R, scores);
        if (rc == 0 && opt->log)
            report_layers(&P, opt->log);
        if (rc == 0 && R)
            rc = prune_recover_snapshot(R);
        if (rc == 0)
            prune_apply(&P);
        if (rc == 0 && R)
            rc = prune_recover_refit(R, d);
        prune_recover_end(R);
        for (int t = 0; scores && t < P.nt; t++)
            free(scores[t]);
        free(scores);
    }
    prune_free(&P);
    if (opt->prune_spec)
        warn_unused(&s, opt->prune_spec, d);
    spec_free(&s);
    if (rc)
        return -1;
    passes_totals(g, &after);
    if (opt->log)
        report(opt->log, &before, &after, groups);
    return groups;
}

/* ------------------------------------------------------- group listing */

static int list_group(Pruner *P, int r, PassPruneGroup *out)
{
    memset(out, 0, sizeof *out);
    out->channels = prune_chan(P, r);
    for (int l = 0; l < P->g->n_layers && out->n_src < PASS_PRUNE_MAX_SRC; l++) {
        const IrLayer *L = &P->g->layers[l];
        if (!L->dead && P->source[l] && prune_find(P, L->out[0]) == r)
            out->src[out->n_src++] = l;
    }
    return out->channels >= 2 && out->n_src > 0;
}

int pass_prune_groups(IrGraph *g, PassPruneGroup *out, int max)
{
    Pruner P;
    int n = 0;
    if (prune_init(&P, g) == 0) {
        prune_groups_build(&P);
        for (int t = 0; t < P.nt; t++)
            if (group_root(&P, t) && n < max)
                n += list_group(&P, t, &out[n]);
    }
    prune_free(&P);
    return n;
}
