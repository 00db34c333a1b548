/* codesign.c - the search: sensitivity of every prune group, a greedy
 * walk that at each step measures the few cuts with the best planned
 * speed gained per predicted accuracy point lost and takes the best
 * measured one, the Pareto front, the choice, a polish at the accuracy
 * limit, and per-layer precision.
 *
 * Why greedy, ranked by a sensitivity table and decided by measurement
 * (NetAdapt-like, but without training): the planner answers in
 * milliseconds while a measured accuracy costs a compile with recovery
 * plus a run over the validation images, so the walk asks the planner
 * about every possible next cut (whole channels: only cuts the engines
 * turn into fewer cycles gain) and the accuracy table (one measurement per
 * group and ratio) for its predicted cost, then measures only the best few.
 * The prediction, made of groups pruned alone, ranks well but misjudges
 * how cuts combine; measuring on every validation image decides. The
 * planner's speed is not additive over layers (the hybrid's period is set
 * by its slowest part, the balanced objective switches designs, PEs come
 * in integer shapes), which is why every step is re-planned instead of
 * summing per-layer gains.
 */
#include "codesign.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/sidefile.h"
#include "runtime/o2h_rt.h"

void codesign_options_init(CodesignOptions *o)
{
    memset(o, 0, sizeof *o);
    plan_options_default(&o->po);
    o->prec = (QuantPrec){IR_PREC_INT8, 8};
    o->max_drop = -1;
    o->front_speedup = 2.0;
    o->ratios[0] = 0.25, o->ratios[1] = 0.5, o->ratios[2] = 0.75;
    o->n_ratios = 3;
    o->step = 0.125;
    o->max_ratio = 0.75;
    o->search_images = 0;
    o->probes = 3;
}

/* ------------------------------------------------------------ setup */

/* a validation file, bounded like every side file (ir/sidefile.h) */
static void *read_all(const char *path, long *bytes, IrDiag *d)
{
    char *p;
    size_t len;
    if (sf_read(path, &SF_CALIB, &p, &len, d))
        return NULL;
    if (len == 0) {
        diag_error(d, path, NULL, NULL, "the file is empty");
        free(p);
        return NULL;
    }
    *bytes = (long)len;
    return p;
}

static int load_val(Codesign *cs, IrDiag *d)
{
    long bx = 0, by = 0;
    cs->vx = read_all(cs->opt.val_x, &bx, d);
    cs->vy = read_all(cs->opt.val_y, &by, d);
    if (!cs->vx || !cs->vy)
        return -1;
    int64_t per = cs->in_size * 4;
    if (bx % per || bx / per != by / 4 || by % 4) {
        diag_error(d, cs->opt.val_x, NULL, NULL,
                   "%ld bytes do not hold one float32 input of %lld values per label of %s (%ld labels)", bx,
                   (long long)cs->in_size, cs->opt.val_y, by / 4);
        return -1;
    }
    cs->n_val = (int)(bx / per);
    for (int i = 0; i < cs->n_val; i++)
        if (cs->vy[i] < 0 || cs->vy[i] >= cs->out_size) {
            diag_error(d, cs->opt.val_y, NULL, NULL, "label %d of image %d is outside [0, %lld)", cs->vy[i], i,
                       (long long)cs->out_size);
            return -1;
        }
    return 0;
}

static int load_base(Codesign *cs, IrDiag *d)
{
    PassOptions po;
    passes_options_init(&po);
    cs->base = fe_load_onnx(cs->opt.model, &cs->opt.fe, d);
    if (!cs->base || passes_run(cs->base, &po, d))
        return -1;
    IrGraph *g = cs->base;
    if (g->n_inputs != 1 || g->n_outputs != 1) {
        diag_error(d, g->path, NULL, NULL, "codesign needs one input and one output (a classifier)");
        return -1;
    }
    cs->in_size = ir_tensor_numel(&g->tensors[g->inputs[0]]);
    cs->out_size = ir_tensor_numel(&g->tensors[g->outputs[0]]);
    cs->groups = calloc((size_t)g->n_tensors + 1, sizeof *cs->groups);
    cs->n_groups = cs->groups ? pass_prune_groups(g, cs->groups, g->n_tensors) : 0;
    cs->group_name = calloc((size_t)cs->n_groups + 1, sizeof *cs->group_name);
    for (int i = 0; cs->group_name && i < cs->n_groups; i++)
        cs->group_name[i] = g->layers[cs->groups[i].src[0]].name;
    return cs->groups && cs->group_name && cs->in_size > 0 && cs->out_size > 0 ? 0 : -1;
}

/* ------------------------------------------------------- candidates */

static CodesignCand *new_cand(Codesign *cs, const char *kind, const double *ratio, const QuantPrec *prec)
{
    if (cs->n_c == cs->cap_c) {
        int cap = cs->cap_c ? 2 * cs->cap_c : 64;
        CodesignCand *v = realloc(cs->c, sizeof *v * (size_t)cap);
        if (!v)
            return NULL;
        cs->c = v;
        cs->cap_c = cap;
    }
    CodesignCand *c = &cs->c[cs->n_c];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->acc_full = -1;
    c->note_group = -1;
    c->ratio = calloc((size_t)cs->n_groups + 1, sizeof *c->ratio);
    if (!c->ratio)
        return NULL;
    if (ratio)
        memcpy(c->ratio, ratio, sizeof *c->ratio * (size_t)cs->n_groups);
    if (prec) {
        c->prec = malloc(sizeof *c->prec * (size_t)cs->base->n_layers);
        if (!c->prec)
            return NULL;
        memcpy(c->prec, prec, sizeof *c->prec * (size_t)cs->base->n_layers);
    }
    cs->n_c++;
    return c;
}

static void progress(const Codesign *cs, const CodesignCand *c)
{
    if (!cs->opt.progress)
        return;
    double cut = 0;
    int k = 0;
    for (int i = 0; i < cs->n_groups; i++)
        if (c->ratio[i] > 0)
            cut += c->ratio[i], k++;
    fprintf(cs->opt.progress,
            "codesign: [%6.1f s] #%-3d %-11s acc %6.2f%% (%d img) speedup %5.3fx (%.1f fps, %.3f ms) MACs %lld, "
            "%d group%s cut (mean %.2f)\n",
            (o2h_now_ms() - cs->t_start) / 1000.0, cs->n_c - 1, c->kind, c->acc, c->n_img, c->speedup, c->fps,
            c->latency_ms, (long long)c->macs, k, k == 1 ? "" : "s", k ? cut / k : 0.0);
    fflush(cs->opt.progress);
}

/* evaluate c on n images; speedup relative to the baseline (c[0]) */
static int measure(Codesign *cs, int ci, int n, IrDiag *d)
{
    CodesignCand *c = &cs->c[ci];
    if (codesign_eval(cs, c, n, d))
        return -1;
    if (ci == 0)
        cs->base_speed = c->speedup;  /* codesign_eval leaves the raw speed there */
    c->speedup = cs->base_speed > 0 ? c->speedup / cs->base_speed : 0;
    progress(cs, c);
    return 0;
}

static int search_n(const Codesign *cs)
{
    int n = cs->opt.search_images;
    return n > 0 && n < cs->n_val ? n : cs->n_val;
}

/* --------------------------------------------------------- sensitivity */

static int sensitivity(Codesign *cs, IrDiag *d)
{
    double *r = calloc((size_t)cs->n_groups + 1, sizeof *r);
    int rc = r ? 0 : -1;
    int n = cs->opt.sensitivity ? cs->n_val : search_n(cs);
    for (int g = 0; rc == 0 && g < cs->n_groups; g++)
        for (int k = 0; rc == 0 && k < cs->opt.n_ratios; k++) {
            r[g] = cs->opt.ratios[k];
            CodesignCand *c = new_cand(cs, "sensitivity", r, NULL);
            if (!c)
                rc = -1;
            else {
                c->note_group = g;
                c->note_ratio = r[g];
                rc = measure(cs, cs->n_c - 1, n, d);
            }
            r[g] = 0;
        }
    free(r);
    return rc;
}

/* accuracy points predicted lost by cutting group g by ratio x (linear
 * between the measured ratios, 0 at 0, extrapolated flat past the last) */
static double predicted_drop(const Codesign *cs, int g, double x)
{
    double px = 0, py = 0, base = cs->c[0].acc;
    for (int i = 0; i < cs->n_c; i++) {
        const CodesignCand *c = &cs->c[i];
        if (c->note_group != g)
            continue;
        double y = base - c->acc > 0 ? base - c->acc : 0;
        if (c->note_ratio >= x)
            return c->note_ratio > px ? py + (y - py) * (x - px) / (c->note_ratio - px) : y;
        px = c->note_ratio, py = y;
    }
    return py + (x - px) * 10.0;  /* beyond what was measured: expensive */
}

/* --------------------------------------------------------------- walk */

/* A possible next cut: group g to ratio, the planner's speed then and the
 * planned log-speedup per accuracy point predicted lost. */
typedef struct {
    int g;
    double ratio, speed, score;
} Move;

static double move_score(double gain, double cost)
{
    return gain / ((cost > 0 ? cost : 0) + 0.05);
}

/* Group g's best next cut by whole channels, the one with the best planned
 * gain per predicted point lost: every channel (every few in a large
 * group) up to step*C more, then every step*C up to max_ratio, so a cut
 * the engines' shapes do not turn into fewer cycles is never taken and a
 * deeper one that changes the design (the hybrid's split, an engine's
 * shape) is seen. */
static int group_move(Codesign *cs, const double *cur, int g, double speed_now, double *r, Move *m, IrDiag *d)
{
    int64_t C = cs->groups[g].channels, now = llround(cur[g] * (double)C);
    int64_t most = (int64_t)floor(cs->opt.max_ratio * (double)C + 1e-9), span = llround(cs->opt.step * (double)C);
    span = span > 0 ? span : 1;
    *m = (Move){g, 0, 0, -INFINITY};
    memcpy(r, cur, sizeof *r * (size_t)cs->n_groups);
    for (int64_t k = now + 1; k <= most && k < C; k += k < now + span ? (span + 7) / 8 : span) {
        r[g] = (double)k / (double)C;
        double sp, gain;
        if (codesign_quick_plan(cs, r, &sp, d))
            return -1;
        gain = log(sp / speed_now);
        double score = move_score(gain, predicted_drop(cs, g, r[g]) - predicted_drop(cs, g, cur[g]));
        if (gain > 1e-9 && score > m->score)
            *m = (Move){g, r[g], sp, score};
    }
    return 0;
}

static int by_score(const void *a, const void *b)
{
    const Move *x = a, *y = b;
    return (x->score < y->score) - (x->score > y->score);
}

/* every group's best next cut, best first; the number with a gain */
static int moves(Codesign *cs, const double *cur, double speed_now, Move *mv, IrDiag *d)
{
    double *r = malloc(sizeof *r * (size_t)(cs->n_groups + 1));
    if (!r)
        return -1;
    int n = 0;
    for (int g = 0; g < cs->n_groups; g++) {
        if (group_move(cs, cur, g, speed_now, r, &mv[n], d))
            return free(r), -1;
        n += mv[n].score > -INFINITY;
    }
    free(r);
    qsort(mv, (size_t)n, sizeof *mv, by_score);
    return n;
}

/* Measure the best `probes` moves and take the one with the best measured
 * speedup gained per point lost (a loss under one image counts as one
 * image): the prediction ranks, the measurement decides. The index of the
 * taken candidate, its move in *which; -1 on error. */
static int take_step(Codesign *cs, const double *cur, const Move *mv, int n, int at, int *which, IrDiag *d)
{
    const CodesignCand *now = &cs->c[at];
    double acc_now = now->acc, sp_now = now->speedup, floor_pts = 100.0 / search_n(cs), best_score = -INFINITY;
    int best = -1;
    double *r = malloc(sizeof *r * (size_t)(cs->n_groups + 1));
    for (int i = 0; r && i < n && i < cs->opt.probes; i++) {
        memcpy(r, cur, sizeof *r * (size_t)cs->n_groups);
        r[mv[i].g] = mv[i].ratio;
        CodesignCand *c = new_cand(cs, "probe", r, NULL);
        if (!c || measure(cs, cs->n_c - 1, search_n(cs), d))
            return free(r), -1;
        c = &cs->c[cs->n_c - 1];
        double loss = acc_now - c->acc, score = log(c->speedup / sp_now) / (loss > floor_pts ? loss : floor_pts);
        if (score > best_score)
            best_score = score, best = cs->n_c - 1, *which = i;
    }
    free(r);
    if (best >= 0)
        cs->c[best].kind = "search";
    return best;
}

static int walk(Codesign *cs, IrDiag *d)
{
    double *cur = calloc((size_t)cs->n_groups + 1, sizeof *cur), speed = 0;
    Move *mv = malloc(sizeof *mv * (size_t)(cs->n_groups + 1));
    if (!cur || !mv || codesign_quick_plan(cs, cur, &speed, d))
        return free(cur), free(mv), -1;
    double stop_drop = cs->opt.max_drop > 0 ? 3 * cs->opt.max_drop + 2 : 5;
    double goal = cs->opt.front_speedup > cs->opt.target_speedup ? cs->opt.front_speedup : cs->opt.target_speedup;
    int at = 0, rc = 0;
    for (;;) {
        int n = moves(cs, cur, speed, mv, d), k = 0;
        if (n <= 0 || (at = take_step(cs, cur, mv, n, at, &k, d)) < 0) {
            rc = n < 0 || at < 0 ? -1 : 0;
            break;
        }
        cur[mv[k].g] = mv[k].ratio;
        speed = mv[k].speed;
        if (cs->c[at].speedup >= goal || cs->c[0].acc - cs->c[at].acc > stop_drop)
            break;
    }
    free(cur);
    free(mv);
    return rc;
}

/* --------------------------------------------------------------- front */

static bool dominated(const Codesign *cs, int i, bool full)
{
    const CodesignCand *a = &cs->c[i];
    double aa = full ? a->acc_full : a->acc;
    for (int j = 0; j < cs->n_c; j++) {
        const CodesignCand *b = &cs->c[j];
        double ba = full ? b->acc_full : b->acc;
        if (j == i || strcmp(b->kind, "sensitivity") == 0 || (full && b->acc_full < 0))
            continue;
        if (ba >= aa && b->speedup >= a->speedup && (ba > aa || b->speedup > a->speedup))
            return true;
    }
    return false;
}

/* the walk's non-dominated designs, re-measured on every validation image */
static int front(Codesign *cs, IrDiag *d)
{
    int n = cs->n_c;
    for (int i = 0; i < n; i++) {
        CodesignCand *c = &cs->c[i];
        if (strcmp(c->kind, "sensitivity") == 0 || dominated(cs, i, false) || c->acc_full >= 0)
            continue;
        double a = c->acc;
        int ni = c->n_img;
        if (codesign_eval(cs, c, cs->n_val, d))
            return -1;
        c->speedup = c->speedup / cs->base_speed;
        c->acc_full = c->acc;
        c->acc = a, c->n_img = ni;
        if (cs->opt.progress)
            fprintf(cs->opt.progress, "codesign: [%6.1f s] #%-3d on the front: %.2f%% on all %d images, %.3fx\n",
                    (o2h_now_ms() - cs->t_start) / 1000.0, i, c->acc_full, cs->n_val, c->speedup);
    }
    for (int i = 0; i < cs->n_c; i++)
        cs->c[i].front = cs->c[i].acc_full >= 0 && strcmp(cs->c[i].kind, "sensitivity") && !dominated(cs, i, true);
    return 0;
}

static int choose(const Codesign *cs)
{
    int best = 0;
    double base = cs->c[0].acc_full;
    for (int i = 1; i < cs->n_c; i++) {
        const CodesignCand *c = &cs->c[i], *b = &cs->c[best];
        if (!c->front)
            continue;
        if (cs->opt.target_speedup > 0) {
            bool ok = c->speedup >= cs->opt.target_speedup, bok = b->speedup >= cs->opt.target_speedup;
            if ((ok && !bok) || (ok == bok && (ok ? c->acc_full > b->acc_full : c->speedup > b->speedup)))
                best = i;
        } else if (base - c->acc_full <= cs->opt.max_drop && c->speedup > b->speedup) {
            best = i;
        }
    }
    return best;
}

/* ------------------------------------------------------------- polish */

/* one round: every group's best next cut from design `at`, measured on
 * all images; the fastest within the accuracy limit, or -1 (-2 on error) */
static int polish_round(Codesign *cs, int at, Move *mv, double *r, IrDiag *d)
{
    double speed, base = cs->c[0].acc_full;
    memcpy(r, cs->c[at].ratio, sizeof *r * (size_t)cs->n_groups);
    int n = codesign_quick_plan(cs, r, &speed, d) ? -1 : moves(cs, r, speed, mv, d), best = -1;
    for (int i = 0; i < n; i++) {
        memcpy(r, cs->c[at].ratio, sizeof *r * (size_t)cs->n_groups);
        r[mv[i].g] = mv[i].ratio;
        if (!new_cand(cs, "polish", r, NULL) || measure(cs, cs->n_c - 1, cs->n_val, d))
            return -2;
        const CodesignCand *c = &cs->c[cs->n_c - 1];
        if (base - c->acc_full <= cs->opt.max_drop && c->speedup > cs->c[best >= 0 ? best : at].speedup)
            best = cs->n_c - 1;
    }
    return n < 0 ? -2 : best;
}

/* Under --max-accuracy-drop P, from the chosen design: every group's best
 * next cut measured, the fastest still within P taken, until none is. The
 * walk measured only the best predicted cuts of each step; at the limit
 * every group is worth one measurement. */
static int polish(Codesign *cs, IrDiag *d)
{
    if (cs->opt.max_drop < 0 || cs->opt.target_speedup > 0 || cs->chosen <= 0)
        return 0;
    Move *mv = malloc(sizeof *mv * (size_t)(cs->n_groups + 1));
    double *r = malloc(sizeof *r * (size_t)(cs->n_groups + 1));
    int at = mv && r ? cs->chosen : -2;
    while (at >= 0) {
        int next = polish_round(cs, at, mv, r, d);
        if (next < 0) {
            at = next == -2 ? -2 : at;
            break;
        }
        at = next;
    }
    free(mv);
    free(r);
    return at < 0 ? -1 : 0;
}

/* ----------------------------------------------------------- precision */

static bool quantizable(const IrLayer *L)
{
    return L->op == IR_OP_CONV || L->op == IR_OP_GEMM || L->op == IR_OP_MATMUL;
}

/* per layer, a wider (or other) format where it gains accuracy at no loss
 * of planned speed; greedy over layers in order, each kept only if better */
static int precision(Codesign *cs, IrDiag *d)
{
    int nl = cs->base->n_layers;
    QuantPrec *p = malloc(sizeof *p * (size_t)(nl + 1));
    if (!p)
        return -1;
    for (int l = 0; l < nl; l++)
        p[l] = cs->opt.prec;
    int cur = cs->chosen;
    for (int l = 0; l < nl; l++) {
        if (!quantizable(&cs->base->layers[l]))
            continue;
        for (int k = 0; k < cs->opt.n_alts; k++) {
            QuantPrec keep = p[l];
            p[l] = cs->opt.alts[k];
            CodesignCand *c = new_cand(cs, "precision", cs->c[cur].ratio, p);
            if (!c || measure(cs, cs->n_c - 1, cs->n_val, d))
                return free(p), -1;
            c->acc_full = c->acc;
            const CodesignCand *b = &cs->c[cur];
            double bacc = b->acc_full >= 0 ? b->acc_full : b->acc;
            if (c->acc_full > bacc && c->speedup >= b->speedup * 0.999)
                cur = cs->n_c - 1;
            else
                p[l] = keep;
        }
    }
    cs->chosen = cur;
    free(p);
    return 0;
}

/* ------------------------------------------------------------- driver */

static int baseline(Codesign *cs, double ratio, const char *kind, IrDiag *d)
{
    double *r = calloc((size_t)cs->n_groups + 1, sizeof *r);
    for (int g = 0; r && g < cs->n_groups; g++)
        r[g] = ratio;
    CodesignCand *c = r ? new_cand(cs, kind, r, NULL) : NULL;
    free(r);
    if (!c)
        return -1;
    int rc = measure(cs, cs->n_c - 1, cs->opt.sensitivity || ratio > 0 ? cs->n_val : search_n(cs), d);
    if (rc == 0 && (ratio > 0 || cs->opt.sensitivity || cs->n_val == search_n(cs)))
        c->acc_full = c->acc;
    return rc;
}

static int outputs(Codesign *cs, IrDiag *d)
{
    char p[4096];
    const CodesignCand *c = &cs->c[cs->chosen >= 0 ? cs->chosen : 0];
    int rc = 0;
    if (!cs->opt.sensitivity && cs->opt.uniform <= 0) {
        snprintf(p, sizeof p, "%s/prune.spec", cs->opt.out_dir);
        rc |= codesign_write_prune_spec(cs, c, p);
        snprintf(p, sizeof p, "%s/precision.spec", cs->opt.out_dir);
        rc |= codesign_write_prec_spec(cs, c, p);
    }
    snprintf(p, sizeof p, "%s/codesign.json", cs->opt.out_dir);
    rc |= codesign_write_json(cs, p);
    snprintf(p, sizeof p, "%s/codesign.html", cs->opt.out_dir);
    rc |= codesign_write_html(cs, p);
    if (rc)
        diag_error(d, cs->opt.out_dir, NULL, NULL, "cannot write the co-design outputs");
    return rc ? -1 : 0;
}

static int search(Codesign *cs, IrDiag *d)
{
    if (cs->opt.uniform > 0)
        return baseline(cs, cs->opt.uniform, "uniform", d);
    if (sensitivity(cs, d))
        return -1;
    if (cs->opt.sensitivity)
        return 0;
    if (walk(cs, d))
        return -1;
    if (cs->c[0].acc_full < 0) {
        CodesignCand *b = &cs->c[0];
        double sp = b->speedup;
        if (codesign_eval(cs, b, cs->n_val, d))
            return -1;
        b->acc_full = b->acc;
        b->speedup = sp;
    }
    if (front(cs, d))
        return -1;
    cs->chosen = choose(cs);
    if (polish(cs, d) || front(cs, d))
        return -1;
    cs->chosen = choose(cs);
    return cs->opt.n_alts > 0 ? precision(cs, d) : 0;
}

int codesign_run(Codesign *cs, const CodesignOptions *o, IrDiag *d)
{
    memset(cs, 0, sizeof *cs);
    cs->opt = *o;
    cs->chosen = -1;
    cs->t_start = o2h_now_ms();
    cs->cpu_start = clock();
    if (load_base(cs, d) || load_val(cs, d))
        return -1;
    if (cs->opt.progress)
        fprintf(cs->opt.progress, "codesign: %s, %d prune groups, %d validation images (%d while searching)\n",
                cs->opt.model, cs->n_groups, cs->n_val, search_n(cs));
    if (baseline(cs, 0, "baseline", d) || search(cs, d))
        return -1;
    return outputs(cs, d);
}

void codesign_free(Codesign *cs)
{
    for (int i = 0; i < cs->n_c; i++) {
        free(cs->c[i].ratio);
        free(cs->c[i].prec);
    }
    free(cs->c);
    free(cs->groups);
    free(cs->group_name);
    free(cs->vx);
    free(cs->vy);
    ir_graph_free(cs->base);
}
