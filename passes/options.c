/* options.c - the pass options as a table (ir/option.h): --passes, --fuse,
 * --no-fuse, --dump-after, --prune, --prune-calib, --verify-passes.
 *
 * Why a table: `compile` and `inspect` both take these options; the CLI
 * drives this one table for both (cli/options.c), and their --help is
 * printed from the same rows. Nothing here reads argv. */
#include "passes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* a ratio in [0,1): 1 and *r; 0 when s is not a number at all */
static int parse_ratio(const char *s, double *r)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno)
        return 0;
    *r = v;
    return 1;
}

static int set_prune(void *o, const char *v, IrDiag *d)
{
    PassOptions *opt = o;
    double r;
    if (parse_ratio(v, &r)) {
        if (!(r >= 0 && r < 1)) {
            diag_error(d, NULL, NULL, NULL, "--prune ratio %s not in [0, 1)", v);
            return -1;
        }
        opt->prune_ratio = r;
        opt->prune_spec = NULL;
        return 0;
    }
    if (sf_check(v, &SF_PRUNE_SPEC, NULL, d)) {
        diag_add(d, DIAG_NOTE, NULL, NULL, NULL, "--prune takes a ratio in [0, 1) or a spec file");
        return -1;
    }
    opt->prune_spec = v;
    opt->prune_ratio = 0;
    return 0;
}

static int set_selection(const char *flag, const char *v, const char **dst, IrDiag *d)
{
    char err[160];
    if (passes_check_selection(v, err, sizeof err)) {
        diag_error(d, NULL, NULL, NULL, "%s: %s", flag, err);
        return -1;
    }
    *dst = v;
    return 0;
}

static int set_passes(void *o, const char *v, IrDiag *d)
{
    return set_selection("--passes", v, &((PassOptions *)o)->passes, d);
}

/* --dump-after=LIST[:json]: the list without the suffix is kept in a static
 * copy (argv strings stay untouched; a process parses one command line) */
static int set_dump(void *o, const char *v, IrDiag *d)
{
    PassOptions *opt = o;
    static char list[512];
    size_t n = strlen(v);
    if (n >= sizeof list) {
        diag_error(d, NULL, NULL, NULL, "--dump-after: value too long");
        return -1;
    }
    memcpy(list, v, n + 1);
    char *colon = strrchr(list, ':');
    opt->dump_json = false;
    if (colon && (!strcmp(colon, ":json") || !strcmp(colon, ":text"))) {
        opt->dump_json = colon[1] == 'j';
        *colon = 0;
    }
    return set_selection("--dump-after", list, &opt->dump_after, d);
}

static int set_prune_calib(void *o, const char *v, IrDiag *d)
{
    if (sf_check(v, &SF_CALIB, NULL, d))
        return -1;
    ((PassOptions *)o)->prune_calib = v;
    return 0;
}

static int set_fuse(void *o, const char *v, IrDiag *d)
{
    (void)v, (void)d;
    ((PassOptions *)o)->passes = "default";
    return 0;
}

static int set_no_fuse(void *o, const char *v, IrDiag *d)
{
    (void)v, (void)d;
    ((PassOptions *)o)->passes = "none";
    return 0;
}

static int set_verify(void *o, const char *v, IrDiag *d)
{
    (void)v, (void)d;
    ((PassOptions *)o)->verify_each = true;
    return 0;
}

const IrOption passes_options[] = {
    {"--passes", "LIST", set_passes, "passes to run, comma separated, in pipeline order: pass names,\n"
                                     "'default', 'all' or 'none' (see docs/passes.md)"},
    {"--fuse", NULL, set_fuse, "run the default pipeline (fusions); --no-fuse runs no pass"},
    {"--no-fuse", NULL, set_no_fuse, NULL},
    {"--dump-after", "P[,P][:json]", set_dump, "print the IR after pass P ('all': after each) on stderr"},
    {"--prune", "SPEC", set_prune, "structured channel pruning: a ratio in [0,1) for every layer,\n"
                                   "or a file of 'LAYER_NAME RATIO' lines ('*' = every other layer)"},
    {"--prune-calib", "FILE", set_prune_calib, "raw float32 inputs for accuracy recovery: channels chosen by\n"
                                               "the error they leave, readers refit by least squares\n"
                                               "(docs/codesign.md); without it, L1 ranking and no refit"},
    {"--verify-passes", NULL, set_verify, "check the IR after every pass"},
    IR_OPTION_END,
};

int passes_options_given(const PassOptions *opt)
{
    return opt->passes || opt->dump_after || opt->prune_ratio > 0 || opt->prune_spec || opt->verify_each;
}
