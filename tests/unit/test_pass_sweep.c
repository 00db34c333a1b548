/* test_pass_sweep.c - every pass on every model of ONNX's own test suite
 * (Debian libonnx-testdata; skipped, exit 77, when absent).
 *
 * Why: the passes promise to leave whatever they do not understand alone
 * and never to break a graph. Hundreds of small, odd, single-op and
 * multi-op models are the cheapest way to hold them to it: for each model
 * the frontend loads, the whole pipeline (with pruning at 0.5) must run with
 * ir_verify after every pass, and where the reference evaluator covers all
 * ops, the fused graph must compute what the original did. */
#include "check.h"
#include "frontend/frontend.h"
#include "passes/passes.h"
#include "test_pass_eval.h"
#include "test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int n_loaded, n_compared;

static IrGraph *load(const char *path)
{
    FeOptions fo;
    memset(&fo, 0, sizeof fo);
    IrDiag d;
    diag_init(&d);
    IrGraph *g = fe_load_onnx(path, &fo, &d);
    diag_free(&d);
    return g;
}

static int run(IrGraph *g, const char *sel, double prune, const char *path)
{
    PassOptions o;
    passes_options_init(&o);
    o.passes = sel;
    o.prune_ratio = prune;
    o.verify_each = true;
    IrDiag d;
    diag_init(&d);
    int rc = passes_run(g, &o, &d);
    if (rc) {
        fprintf(stderr, "%s:\n", path);
        diag_print(&d, stderr);
    }
    diag_free(&d);
    return rc;
}

static bool float_inputs(const IrGraph *g)
{
    for (int i = 0; i < g->n_inputs; i++)
        if (g->tensors[g->inputs[i]].dtype != IR_DT_FLOAT)
            return false;
    return g->n_outputs > 0 && g->tensors[g->outputs[0]].dtype == IR_DT_FLOAT;
}

/* outputs before and after the default pipeline */
static void fuse_and_compare(const char *path)
{
    IrGraph *g = load(path);
    if (!g)
        return;
    n_loaded++;
    uint32_t seed = 1234;
    float *x[IR_MAX_IO] = {0};
    float *y0 = NULL, *y1 = NULL;
    int64_t n0 = 0, n1 = 0;
    bool eval = float_inputs(g);
    for (int i = 0; eval && i < g->n_inputs; i++)
        x[i] = ev_random_input(g, i, &seed);
    if (eval)
        y0 = ev_run(g, (const float *const *)x, &n0);
    CHECK_MSG(run(g, "default", 0, path) == 0, "%s: default pipeline", path);
    if (y0)
        y1 = ev_run(g, (const float *const *)x, &n1);
    if (y0 && y1) {
        n_compared++;
        CHECK_MSG(n0 == n1 && ev_rel_err(y0, y1, n0) <= 1e-4, "%s: fused output differs (%g)", path,
                  n0 == n1 ? ev_rel_err(y0, y1, n0) : -1.0);
    }
    CHECK_MSG(!y0 || y1, "%s: fused graph has ops the original did not", path);
    free(y0);
    free(y1);
    for (int i = 0; i < g->n_inputs; i++)
        free(x[i]);
    ir_graph_free(g);
}

static void prune_all(const char *path)
{
    IrGraph *g = load(path);
    if (!g)
        return;
    CHECK_MSG(run(g, "all", 0.5, path) == 0, "%s: all passes with pruning", path);
    ir_graph_free(g);
}

static void sweep(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s/model.onnx", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        fclose(f);
        fuse_and_compare(path);
        prune_all(path);
    }
    closedir(d);
}

int main(void)
{
    const char *sub[] = {"node", "pytorch-converted", "pytorch-operator", "simple", "real"};
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/node", test_data_root());
    struct stat st;
    if (stat(dir, &st) != 0)
        return test_skip("no ONNX backend test data (Debian package libonnx-testdata)");
    for (int i = 0; i < 5; i++) {
        snprintf(dir, sizeof dir, "%s/%s", test_data_root(), sub[i]);
        sweep(dir);
    }
    printf("%d models loaded, %d compared before/after fusion\n", n_loaded, n_compared);
    /* pinned (libonnx-testdata 1.12): fewer models loaded or compared means
     * the sweep silently tests less; raise the pins when support grows */
    CHECK_MSG(n_loaded >= 390, "%d models loaded, pinned at 390", n_loaded);
    CHECK_MSG(n_compared >= 158, "%d models compared, pinned at 158", n_compared);
    return check_done();
}
