/* test_cli_options.c - the CLI's driver of option tables (cli/options.c):
 * the spellings of a value ("--name V", "--name=V", "-nV"), a name that is
 * the prefix of another's, a flag given a value, a missing value, a setter
 * that refuses, and --help printed from the rows; then the modules' own
 * tables (passes, quantization) are well formed and do not clash. */
#include "check.h"
#include "cli/cli.h"
#include "passes/passes.h"
#include "passes/quant/quant.h"
#include "test_util.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *long_v, *longer_v, *short_v;
    int flag;
} Opts;

static int set_long(void *o, const char *v, IrDiag *d)
{
    if (!strcmp(v, "bad")) {
        diag_error(d, NULL, NULL, NULL, "--long: 'bad' is refused");
        return -1;
    }
    ((Opts *)o)->long_v = v;
    return 0;
}

static int set_longer(void *o, const char *v, IrDiag *d)
{
    (void)d;
    ((Opts *)o)->longer_v = v;
    return 0;
}

static int set_short(void *o, const char *v, IrDiag *d)
{
    (void)d;
    ((Opts *)o)->short_v = v;
    return 0;
}

static int set_flag(void *o, const char *v, IrDiag *d)
{
    (void)d;
    ((Opts *)o)->flag += v == NULL;
    return 0;
}

static const IrOption table[] = {
    {"--long", "V", set_long, "a value\nover two lines"},
    {"--long-er", "W", set_longer, "the name starts with another's"},
    {"-S", "X", set_short, "a short one"},
    {"--flag", NULL, set_flag, "no value"},
    {"--alias", NULL, set_flag, NULL},
    IR_OPTION_END,
};

/* cli_option on argv {"cmd", args...}: its result, *next = the index it left */
static int run(Opts *o, int n, char **args, int *next)
{
    char *argv[8] = {"cmd"};
    for (int k = 0; k < n; k++)
        argv[k + 1] = args[k];
    int i = 1, r = cli_option(table, o, n + 1, argv, &i);
    *next = i;
    return r;
}

static void test_spellings(void)
{
    Opts o = {0};
    int i;
    CHECK_EQ_INT(run(&o, 1, (char *[]){"--long=a"}, &i), 1);
    CHECK(!strcmp(o.long_v, "a") && i == 1);
    CHECK_EQ_INT(run(&o, 2, (char *[]){"--long", "b"}, &i), 1);
    CHECK(!strcmp(o.long_v, "b") && i == 2);
    CHECK_EQ_INT(run(&o, 2, (char *[]){"--long-er", "c"}, &i), 1);   /* not --long with "-er" */
    CHECK(!strcmp(o.longer_v, "c") && !strcmp(o.long_v, "b"));
    CHECK_EQ_INT(run(&o, 1, (char *[]){"--longest"}, &i), 0);
    CHECK_EQ_INT(run(&o, 1, (char *[]){"-Sd"}, &i), 1);
    CHECK(!strcmp(o.short_v, "d") && i == 1);
    CHECK_EQ_INT(run(&o, 2, (char *[]){"-S", "e"}, &i), 1);
    CHECK(!strcmp(o.short_v, "e") && i == 2);
    CHECK_EQ_INT(run(&o, 1, (char *[]){"--flag"}, &i), 1);
    CHECK_EQ_INT(run(&o, 1, (char *[]){"--alias"}, &i), 1);
    CHECK_EQ_INT(o.flag, 2);
    CHECK_EQ_INT(run(&o, 1, (char *[]){"--flag=1"}, &i), 0);         /* a flag takes no value */
    CHECK_EQ_INT(run(&o, 1, (char *[]){"other"}, &i), 0);
}

static void test_refusals(void)
{
    Opts o = {0};
    int i;
    CHECK_EQ_INT(run(&o, 1, (char *[]){"--long"}, &i), -1);          /* needs a value */
    CHECK_EQ_INT(run(&o, 1, (char *[]){"-S"}, &i), -1);
    CHECK_EQ_INT(run(&o, 1, (char *[]){"--long=bad"}, &i), -1);      /* the setter refuses */
    CHECK(o.long_v == NULL);
}

static void test_help(void)
{
    FILE *f = tmpfile();
    cli_options_help(f, table);
    char *h = test_read_stream(f, NULL);
    fclose(f);
    CHECK(h && strstr(h, "  --long V         a value\n                   over two lines\n"));
    CHECK(h && strstr(h, "  --long-er W      the name starts") && strstr(h, "  -S X             a short one\n"));
    CHECK(h && strstr(h, "  --flag           no value\n") && !strstr(h, "--alias"));
    free(h);
}

/* every row has a name, a setter and (but an alias) its help; no name twice
 * among the tables one command drives together */
static void test_module_tables(void)
{
    const IrOption *tabs[] = {passes_options, pass_quant_options};
    const char *seen[64];
    int n = 0;
    for (int k = 0; k < 2; k++)
        for (const IrOption *o = tabs[k]; o->name; o++) {
            CHECK_MSG(o->name[0] == '-' && o->set, "%s", o->name);
            for (int j = 0; j < n; j++)
                CHECK_MSG(strcmp(seen[j], o->name), "%s twice", o->name);
            if (n < 64)
                seen[n++] = o->name;
        }
    CHECK(n >= 12);
    PassOptions po;
    passes_options_init(&po);
    char *argv[] = {"compile", "--no-fuse"};
    int i = 1;
    CHECK_EQ_INT(cli_option(passes_options, &po, 2, argv, &i), 1);
    CHECK(!strcmp(po.passes, "none"));
    QuantOptions qo;
    pass_quant_options_init(&qo);
    char *argv2[] = {"compile", "--precision=dfxp12", "--calib-method", "percentile:99.9"};
    i = 1;
    CHECK_EQ_INT(cli_option(pass_quant_options, &qo, 4, argv2, &i), 1);
    i = 2;
    CHECK_EQ_INT(cli_option(pass_quant_options, &qo, 4, argv2, &i), 1);
    CHECK(qo.prec.prec == IR_PREC_DFXP && qo.prec.bits == 12 && qo.method == QUANT_CALIB_PERCENTILE && i == 3);
    CHECK_NEAR(qo.percentile, 99.9, 1e-9);
    char *argv3[] = {"compile", "--calib", "/nonexistent/calib.f32"};
    i = 1;
    CHECK_EQ_INT(cli_option(pass_quant_options, &qo, 3, argv3, &i), -1);   /* a side file that is not there */
    CHECK(qo.calib == NULL);
}

int main(void)
{
    test_spellings();
    test_refusals();
    test_help();
    test_module_tables();
    return check_done();
}
