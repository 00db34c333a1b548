/* eval.c - measuring one co-design candidate: the model is compiled from
 * the candidate's spec files exactly as `compile --prune SPEC --prune-calib
 * CALIB --precision-spec SPEC --calib CALIB` does, then run by the integer
 * evaluator on validation images (top-1) and planned under the fixed
 * budget (frames/s, latency, BRAM).
 *
 * Why through spec files: the files the search finally writes are then the
 * very input of every measurement, so a design reproduced with `compile`
 * has the accuracy and speed the search reported.
 */
#include "codesign.h"
#include "ir/sidefile.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ specs */

int codesign_write_prune_spec(const Codesign *cs, const CodesignCand *c, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# per-layer pruning ratios (onnx2hls codesign); use with compile --prune FILE\n");
    for (int i = 0; i < cs->n_groups; i++) {
        if (c->ratio[i] <= 0)
            continue;
        const PassPruneGroup *G = &cs->groups[i];
        for (int k = 0; k < G->n_src; k++) {
            sf_put_spec_name(f, cs->base->layers[G->src[k]].name);
            fprintf(f, " %.4f\n", c->ratio[i]);
        }
    }
    fprintf(f, "* 0\n");
    return fclose(f);
}

int codesign_write_prec_spec(const Codesign *cs, const CodesignCand *c, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# per-layer precision (onnx2hls codesign); use with compile --precision-spec FILE\n");
    for (int l = 0; c->prec && l < cs->base->n_layers; l++)
        if (c->prec[l].prec != cs->opt.prec.prec || c->prec[l].bits != cs->opt.prec.bits) {
            sf_put_spec_name(f, cs->base->layers[l].name);
            fprintf(f, " %s\n", pass_quant_prec_name(c->prec[l]));
        }
    fprintf(f, "* %s\n", pass_quant_prec_name(cs->opt.prec));
    return fclose(f);
}

/* ------------------------------------------------------------ build */

static IrGraph *build(Codesign *cs, const CodesignCand *c, bool quantize, bool recover, IrDiag *d)
{
    char ps[4096], qs[4096];
    snprintf(ps, sizeof ps, "%s/.prune.spec", cs->opt.out_dir);
    snprintf(qs, sizeof qs, "%s/.precision.spec", cs->opt.out_dir);
    if (codesign_write_prune_spec(cs, c, ps) || (quantize && codesign_write_prec_spec(cs, c, qs))) {
        diag_error(d, cs->opt.out_dir, NULL, NULL, "cannot write the candidate's spec files");
        return NULL;
    }
    PassOptions po;
    passes_options_init(&po);
    po.prune_spec = ps;
    po.prune_calib = recover && !cs->opt.no_recover ? cs->opt.calib : NULL;
    po.prune_calib_max = cs->opt.calib_max;
    QuantOptions qo;
    pass_quant_options_init(&qo);
    qo.prec = cs->opt.prec;
    qo.spec = qs;
    qo.calib = cs->opt.calib;
    po.quant = quantize ? &qo : NULL;
    IrDiag quiet;
    diag_init(&quiet);  /* unused spec names and the like: the search's own files */
    IrGraph *g = fe_load_onnx(cs->opt.model, &cs->opt.fe, d);
    if (g && (passes_run(g, &po, &quiet) || ir_verify(g, &quiet))) {
        for (int i = 0; i < quiet.n; i++)
            if (quiet.v[i].level == DIAG_ERROR)
                diag_add(d, DIAG_ERROR, quiet.v[i].file, quiet.v[i].node, quiet.v[i].op, "%s", quiet.v[i].msg);
        ir_graph_free(g);
        g = NULL;
    }
    diag_free(&quiet);
    remove(ps);
    remove(qs);
    return g;
}

/* ------------------------------------------------------------ measures */

/* top-1 of the integer program on the first n validation images (the
 * batch evaluator: every core, the same outputs as one run per image) */
static int accuracy(Codesign *cs, IrGraph *g, int n, double *acc, IrDiag *d)
{
    float *y = malloc(sizeof *y * (size_t)(n * cs->out_size + 1));
    if (!y || pass_quant_eval_batch(g, cs->vx, n, y, cs->opt.threads, d)) {
        free(y);
        return -1;
    }
    int hit = 0;
    for (int i = 0; i < n; i++) {
        const float *yi = y + (int64_t)i * cs->out_size;
        int best = 0;
        for (int64_t k = 1; k < cs->out_size; k++)
            best = yi[k] > yi[best] ? (int)k : best;
        hit += best == cs->vy[i];
    }
    free(y);
    *acc = n > 0 ? 100.0 * hit / n : 0;
    return 0;
}

static double speed_of(const Codesign *cs, const PlanDesign *p)
{
    if (!p->fits)
        return 0;
    return cs->opt.objective == CODESIGN_LATENCY ? 1000.0 / p->latency_ms : p->fps;
}

static int plan_of(Codesign *cs, IrGraph *g, CodesignCand *c, IrDiag *d)
{
    Plan p;
    if (plan_build(g, &cs->opt.dev, &cs->opt.po, &p, d))
        return -1;
    c->fps = p.hybrid.fits ? p.hybrid.fps : 0;
    c->latency_ms = p.hybrid.latency_ms;
    c->bram18k = p.hybrid.bram18k;
    c->dsp = p.hybrid.dsp;
    c->speedup = speed_of(cs, &p.hybrid);
    plan_free(&p);
    return 0;
}

int codesign_eval(Codesign *cs, CodesignCand *c, int n, IrDiag *d)
{
    IrGraph *g = build(cs, c, true, true, d);
    if (!g)
        return -1;
    PassTotals t;
    passes_totals(g, &t);
    c->macs = t.macs;
    c->params = t.params;
    c->n_img = n;
    int rc = accuracy(cs, g, n, &c->acc, d);
    if (rc == 0)
        rc = plan_of(cs, g, c, d);
    if (rc == 0 && n == cs->n_val)
        c->acc_full = c->acc;
    ir_graph_free(g);
    return rc;
}

int codesign_quick_plan(Codesign *cs, const double *ratio, double *speed, IrDiag *d)
{
    CodesignCand c;
    memset(&c, 0, sizeof c);
    c.ratio = (double *)ratio;
    IrGraph *g = build(cs, &c, false, false, d);
    int rc = g ? plan_of(cs, g, &c, d) : -1;
    *speed = c.speedup;
    ir_graph_free(g);
    return rc;
}
