/* test_pass_pipeline.c - the pass runner and its options: the table, the
 * selection (--passes), --dump-after, the verification after each pass that
 * names the pass that broke the graph, the log, and the command-line
 * parsing shared by compile and inspect. */
#include "check.h"
#include "cli/cli.h"
#include "passes/passes.h"
#include "test_pass_eval.h"
#include "test_util.h"

#include <stdio.h>
#include <string.h>

/* conv -> BN -> Relu: three layers the default pipeline makes one */
static IrGraph *small_graph(void)
{
    uint32_t s = 5;
    IrGraph *g = ir_graph_new("small.onnx");
    int64_t d[4] = {1, 2, 4, 4};
    int x = tb_input(g, "input", 4, d);
    int c = tb_conv(g, "conv", x, 3, 3, 1, 1, 1, 0, &s);
    tb_output(g, tb_unary(g, IR_OP_RELU, "relu", tb_bn(g, "bn", c, &s), 0, 0));
    return g;
}

static int run_sel(IrGraph *g, const char *sel, IrDiag *d)
{
    PassOptions o;
    passes_options_init(&o);
    o.passes = sel;
    o.verify_each = true;
    return passes_run(g, &o, d);
}

static void test_table(void)
{
    int n;
    const PassInfo *t = passes_table(&n);
    CHECK(n >= 10);
    for (int i = 0; i < n; i++) {
        CHECK(t[i].name && t[i].fn && t[i].contract && strlen(t[i].contract) > 10);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(t[i].name, t[j].name));
    }
    /* order that matters: BN folding before activations, residual before act */
    int bn = -1, act = -1, res = -1, prune = -1;
    for (int i = 0; i < n; i++) {
        if (!strcmp(t[i].name, "fold_bn")) bn = i;
        if (!strcmp(t[i].name, "fuse_act")) act = i;
        if (!strcmp(t[i].name, "fuse_residual")) res = i;
        if (!strcmp(t[i].name, "prune")) prune = i;
    }
    CHECK(bn >= 0 && bn < res && res < act && act < prune);
    CHECK(!(t[prune].flags & PASS_DEFAULT));
}

static void test_selection(void)
{
    IrDiag d;
    diag_init(&d);
    IrGraph *g = small_graph();
    CHECK_EQ_INT(run_sel(g, "none", &d), 0);
    CHECK_EQ_INT(g->n_layers, 3);
    CHECK_EQ_INT(run_sel(g, "fold_bn", &d), 0);
    CHECK_EQ_INT(g->n_layers, 2);
    CHECK_EQ_INT(g->layers[0].act.kind, IR_ACT_NONE);
    CHECK_EQ_INT(run_sel(g, "fuse_act,dce", &d), 0);
    CHECK_EQ_INT(g->n_layers, 1);
    CHECK_EQ_INT(d.n_errors, 0);
    CHECK_EQ_INT(run_sel(g, "fold_bn,nosuch", &d), -1);
    CHECK(diag_contains(&d, "unknown pass 'nosuch'"));
    ir_graph_free(g);
    g = small_graph();
    CHECK_EQ_INT(run_sel(g, NULL, &d), 0);
    CHECK_EQ_INT(g->n_layers, 1);
    ir_graph_free(g);
    g = small_graph();
    CHECK_EQ_INT(run_sel(g, "all", &d), 0);
    CHECK_EQ_INT(g->n_layers, 1);
    ir_graph_free(g);
    char err[160];
    CHECK_EQ_INT(passes_check_selection("default,prune,dce", err, sizeof err), 0);
    CHECK_EQ_INT(passes_check_selection("fuse", err, sizeof err), -1);
    CHECK(strstr(err, "fuse"));
    diag_free(&d);
}

/* a pass that breaks the graph is named by the verification */
static int broken_pass(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    (void)d;
    g->layers[0].in[0] = g->layers[g->n_layers - 1].out[0]; /* reads a later tensor */
    return 1;
}

static int failing_pass(IrGraph *g, const PassOptions *opt, IrDiag *d)
{
    (void)opt;
    diag_error(d, g->path, NULL, NULL, "cannot do this");
    return -1;
}

static void test_verify_each(void)
{
    PassInfo list[2] = {{"fold_bn", pass_fold_bn, PASS_DEFAULT, "ok"}, {"breaker", broken_pass, 0, "breaks"}};
    PassOptions o;
    passes_options_init(&o);
    o.verify_each = true;
    IrDiag d;
    diag_init(&d);
    IrGraph *g = small_graph();
    CHECK_EQ_INT(passes_run_list(g, list, 2, &o, &d), -1);
    CHECK(diag_contains(&d, "pass 'breaker' left an invalid graph"));
    CHECK(!diag_contains(&d, "pass 'fold_bn'"));
    ir_graph_free(g);
    diag_free(&d);
    diag_init(&d);
    g = small_graph();
    PassInfo fail = {"failer", failing_pass, 0, "fails"};
    CHECK_EQ_INT(passes_run_list(g, &fail, 1, &o, &d), -1);
    CHECK(diag_contains(&d, "pass 'failer' failed"));
    ir_graph_free(g);
    diag_free(&d);
}

static void test_dump_and_log(void)
{
    FILE *dump = tmpfile(), *log = tmpfile();
    PassOptions o;
    passes_options_init(&o);
    o.dump_after = "fold_bn,fuse_act";
    o.dump = dump;
    o.log = log;
    IrDiag d;
    diag_init(&d);
    IrGraph *g = small_graph();
    CHECK_EQ_INT(passes_run(g, &o, &d), 0);
    char *a = test_read_stream(dump, NULL), *b = test_read_stream(log, NULL);
    CHECK(strstr(a, "### IR after pass fold_bn") && strstr(a, "### IR after pass fuse_act"));
    CHECK(!strstr(a, "after pass fold_pad"));
    CHECK(strstr(a, "Conv+relu"));
    CHECK(strstr(b, "pass fold_bn") && strstr(b, "layers 3 -> 2"));
    free(a);
    free(b);
    ir_graph_free(g);
    /* JSON dumps */
    rewind(dump);
    o.dump_after = "all";
    o.dump_json = true;
    o.log = NULL;
    g = small_graph();
    CHECK_EQ_INT(passes_run(g, &o, &d), 0);
    a = test_read_stream(dump, NULL);
    CHECK(!strncmp(a, "{\"model\":", 9) && strstr(a, "\"totals\""));
    free(a);
    ir_graph_free(g);
    o.dump_after = "fold_bn,bogus";
    g = small_graph();
    CHECK_EQ_INT(passes_run(g, &o, &d), -1);
    CHECK(diag_contains(&d, "--dump-after: unknown pass 'bogus'"));
    ir_graph_free(g);
    diag_free(&d);
    fclose(dump);
    fclose(log);
}

/* ------------------------------------------------------------- CLI */

static int parse(PassOptions *o, int argc, char **argv, int *consumed)
{
    int i = 1, r = cli_option(passes_options, o, argc, argv, &i);
    *consumed = i;
    return r;
}

static void test_cli(void)
{
    PassOptions o;
    int i;
    passes_options_init(&o);
    CHECK(!passes_options_given(&o));
    char *a1[] = {"compile", "--passes=fold_bn,fuse_act"};
    CHECK_EQ_INT(parse(&o, 2, a1, &i), 1);
    CHECK(!strcmp(o.passes, "fold_bn,fuse_act") && i == 1);
    CHECK(passes_options_given(&o));
    char *a2[] = {"compile", "--passes", "none"};
    CHECK_EQ_INT(parse(&o, 3, a2, &i), 1);
    CHECK(!strcmp(o.passes, "none") && i == 2);
    char *a3[] = {"compile", "--passes=fold_bn,oops"};
    CHECK_EQ_INT(parse(&o, 2, a3, &i), -1);
    char *a4[] = {"compile", "--passes"};
    CHECK_EQ_INT(parse(&o, 2, a4, &i), -1);
    char *a5[] = {"inspect", "--fuse"};
    CHECK_EQ_INT(parse(&o, 2, a5, &i), 1);
    CHECK(!strcmp(o.passes, "default"));
    char *a6[] = {"inspect", "--no-fuse"};
    CHECK_EQ_INT(parse(&o, 2, a6, &i), 1);
    CHECK(!strcmp(o.passes, "none"));
    char *a7[] = {"inspect", "--dump-after=fuse_act:json"};
    CHECK_EQ_INT(parse(&o, 2, a7, &i), 1);
    CHECK(!strcmp(o.dump_after, "fuse_act") && o.dump_json);
    CHECK(!strcmp(a7[1], "--dump-after=fuse_act:json"));
    char *a8[] = {"inspect", "--dump-after", "all"};
    CHECK_EQ_INT(parse(&o, 3, a8, &i), 1);
    CHECK(!strcmp(o.dump_after, "all") && !o.dump_json);
    char *a9[] = {"compile", "--prune", "0.3"};
    CHECK_EQ_INT(parse(&o, 3, a9, &i), 1);
    CHECK_NEAR(o.prune_ratio, 0.3, 1e-12);
    CHECK(o.prune_spec == NULL);
    char *a10[] = {"compile", "--prune=1.5"};
    CHECK_EQ_INT(parse(&o, 2, a10, &i), -1);
    char *a11[] = {"compile", "--prune", "/nonexistent/spec.txt"};
    CHECK_EQ_INT(parse(&o, 3, a11, &i), -1);
    char spec[512];
    snprintf(spec, sizeof spec, "%s/test_pass_pipeline.spec", BINARY_DIR);
    FILE *f = fopen(spec, "w");
    fputs("conv 0.5\n", f);
    fclose(f);
    char *a12[] = {"compile", "--prune", spec};
    CHECK_EQ_INT(parse(&o, 3, a12, &i), 1);
    CHECK(o.prune_spec && !strcmp(o.prune_spec, spec) && o.prune_ratio == 0);
    remove(spec);
    char *a13[] = {"compile", "--verify-passes"};
    CHECK_EQ_INT(parse(&o, 2, a13, &i), 1);
    CHECK(o.verify_each);
    char *a14[] = {"compile", "--pruned", "x"};
    CHECK_EQ_INT(parse(&o, 3, a14, &i), 0);
    char *a15[] = {"compile", "-o"};
    CHECK_EQ_INT(parse(&o, 2, a15, &i), 0);
    FILE *h = tmpfile();
    cli_options_help(h, passes_options);
    char *u = test_read_stream(h, NULL);
    CHECK(strstr(u, "--passes") && strstr(u, "--prune") && strstr(u, "--dump-after"));
    free(u);
    fclose(h);
}

/* prune options switch the prune pass on in the default selection */
static void test_prune_selected(void)
{
    IrGraph *g = small_graph();
    PassOptions o;
    passes_options_init(&o);
    o.prune_ratio = 0.4;
    o.verify_each = true;
    IrDiag d;
    diag_init(&d);
    /* the conv output is the graph output: nothing may be pruned */
    CHECK_EQ_INT(passes_run(g, &o, &d), 0);
    CHECK_EQ_INT(g->tensors[g->outputs[0]].dims[1], 3);
    ir_graph_free(g);
    diag_free(&d);
}

int main(void)
{
    test_table();
    test_selection();
    test_verify_each();
    test_dump_and_log();
    test_cli();
    test_prune_selected();
    return check_done();
}
