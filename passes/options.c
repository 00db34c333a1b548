/* options.c - the command-line spellings of the pass options, shared by
 * `compile` and `inspect` so both accept the same flags and print the same
 * messages (--passes, --fuse, --no-fuse, --dump-after, --prune, --prune-calib,
 * --verify-passes). */
#include "passes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *passes_option_value(int argc, char **argv, int *i, const char *name, int *bad)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n))
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n])
        return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "onnx2hls %s: option %s needs a value\n", argv[0], name);
        *bad = 1;
        return NULL;
    }
    return argv[++*i];
}

int passes_check_file(const char *cmd, const char *flag, const char *path, const SfKind *k)
{
    IrDiag d;
    diag_init(&d);
    int rc = sf_check(path, k, NULL, &d);
    if (rc) {
        fprintf(stderr, "onnx2hls %s: %s:\n", cmd, flag);
        diag_print(&d, stderr);
    }
    diag_free(&d);
    return rc;
}

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

static int set_prune(PassOptions *opt, const char *cmd, const char *v)
{
    double r;
    if (parse_ratio(v, &r)) {
        if (!(r >= 0 && r < 1)) {
            fprintf(stderr, "onnx2hls %s: --prune ratio %s not in [0, 1)\n", cmd, v);
            return -1;
        }
        opt->prune_ratio = r;
        opt->prune_spec = NULL;
        return 1;
    }
    if (passes_check_file(cmd, "--prune (neither a ratio in [0, 1) nor a spec file)", v, &SF_PRUNE_SPEC))
        return -1;
    opt->prune_spec = v;
    opt->prune_ratio = 0;
    return 1;
}

static int set_selection(PassOptions *opt, const char *cmd, const char *flag, const char *v, const char **dst)
{
    char err[160];
    if (passes_check_selection(v, err, sizeof err)) {
        fprintf(stderr, "onnx2hls %s: %s: %s\n", cmd, flag, err);
        return -1;
    }
    *dst = v;
    (void)opt;
    return 1;
}

/* --dump-after=LIST[:json]: the list without the suffix is kept in a static
 * copy (argv strings stay untouched; a process parses one command line) */
static int set_dump(PassOptions *opt, const char *cmd, const char *v)
{
    static char list[512];
    size_t n = strlen(v);
    if (n >= sizeof list) {
        fprintf(stderr, "onnx2hls %s: --dump-after: value too long\n", cmd);
        return -1;
    }
    memcpy(list, v, n + 1);
    char *colon = strrchr(list, ':');
    opt->dump_json = false;
    if (colon && (!strcmp(colon, ":json") || !strcmp(colon, ":text"))) {
        opt->dump_json = colon[1] == 'j';
        *colon = 0;
    }
    return set_selection(opt, cmd, "--dump-after", list, &opt->dump_after);
}

int passes_parse_option(PassOptions *opt, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *cmd = argv[0];
    const char *v;
    int bad = 0;
    if (!strcmp(a, "--fuse"))
        return opt->passes = "default", 1;
    if (!strcmp(a, "--no-fuse"))
        return opt->passes = "none", 1;
    if (!strcmp(a, "--verify-passes"))
        return opt->verify_each = true, 1;
    if ((v = passes_option_value(argc, argv, i, "--passes", &bad)))
        return set_selection(opt, cmd, "--passes", v, &opt->passes);
    if (!bad && (v = passes_option_value(argc, argv, i, "--dump-after", &bad)))
        return set_dump(opt, cmd, v);
    if ((v = passes_option_value(argc, argv, i, "--prune-calib", &bad))) {
        if (passes_check_file(cmd, "--prune-calib", v, &SF_CALIB))
            return -1;
        opt->prune_calib = v;
        return 1;
    }
    if (!bad && (v = passes_option_value(argc, argv, i, "--prune", &bad)))
        return set_prune(opt, cmd, v);
    return bad ? -1 : 0;
}

int passes_options_given(const PassOptions *opt)
{
    return opt->passes || opt->dump_after || opt->prune_ratio > 0 || opt->prune_spec || opt->verify_each;
}

void passes_usage(FILE *f)
{
    fprintf(f, "  --passes=LIST    passes to run, comma separated, in pipeline order: pass names,\n"
               "                   'default', 'all' or 'none' (see docs/passes.md)\n"
               "  --fuse           run the default pipeline (fusions); --no-fuse runs no pass\n"
               "  --dump-after=P[,P][:json]  print the IR after pass P ('all': after each) on stderr\n"
               "  --prune SPEC     structured channel pruning: a ratio in [0,1) for every layer,\n"
               "                   or a file of 'LAYER_NAME RATIO' lines ('*' = every other layer)\n"
               "  --prune-calib FILE  raw float32 inputs for accuracy recovery: channels chosen by\n"
               "                   the error they leave, readers refit by least squares\n"
               "                   (docs/codesign.md); without it, L1 ranking and no refit\n"
               "  --verify-passes  check the IR after every pass\n");
}
