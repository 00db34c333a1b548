/* cli.h - subcommands of the onnx2hls driver, one file each (cli/cmd_*.c),
 * the option helpers they share (cli/args.c) and the driver of the option
 * tables (cli/options.c, ir/option.h): the only code that reads argv. Each
 * command takes argv with argv[0] = the command name and returns the exit
 * code: 0 ok, 1 verification failed or lint findings, 2 bad input or usage. */
#ifndef ONNX2HLS_CLI_H
#define ONNX2HLS_CLI_H

#include "frontend/frontend.h"
#include "ir/option.h"
#include "ir/sidefile.h"
#include "plan/plan.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

int cmd_inspect(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_codesign(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

/* --input-shape NAME=d0,d1,... appended to opt; -1 (message printed) if bad */
int cli_add_input_shape(FeOptions *opt, const char *spec);
/* --bind NAME=FILE appended to opt; -1 (message printed) if bad */
int cli_add_bind(FeOptions *opt, const char *spec);
/* float|int8|int16|dfxp8|dfxp12|dfxp14|dfxp16; -1 (message printed) if unknown */
int cli_parse_precision(const char *s, IrPrecision *prec, int *bits);
/* the value after option argv[*i], advancing *i; NULL (message printed) if missing */
const char *cli_value(int argc, char **argv, int *i);

/* A module's option table (ir/option.h) against argv[*i] (cli/options.c):
 * 1 consumed (*i past a separate value), 0 not an option of t, -1 bad
 * (message printed, naming the command argv[0]). */
int cli_option(const IrOption *t, void *opts, int argc, char **argv, int *i);
/* t's rows as --help lines */
void cli_options_help(FILE *f, const IrOption *t);
/* The file an option names opens, is a regular file and fits its kind's
 * cap (ir/sidefile.h); 0, or -1 with the message printed for `onnx2hls
 * CMD FLAG`. */
int cli_check_file(const char *cmd, const char *flag, const char *path, const SfKind *k);
/* Run argv with stdout and stderr to log (NULL: inherited); the exit
 * status, 128+signal, or 127 when it could not start (cli/cmd_verify.c). */
int cli_run_cmd(char *const *argv, const char *log, const char *node_path);
void cli_show_log(const char *log);

/* `verify OUT --hls` (cli/verify_hls.c) */
typedef struct {
    const char *out;          /* the compiled folder (OUT/hls, OUT/host) */
    const char *host_dir;     /* OUT/host */
    bool embedded;            /* weights compiled in */
    int n_model_in;
    long long in_bytes[32];   /* per model input, one image */
    char **inputs;            /* --input files (each may hold several images), or none */
    int n_in;
    const char *tmp;          /* a scratch folder */
} CliVerifyHls;
int cli_verify_hls(const CliVerifyHls *v);

/* A compile option at argv[*i], checked by compile's own parser (for
 * commands that pass options through to compile): 1 consumed (advancing *i
 * past its value), 0 not an option of compile, -1 bad (message printed). */
int cli_compile_option(int argc, char **argv, int *i);

/* rm -rf path (cli/cmd_compile.c); 0 ok or absent */
int cli_remove_tree(const char *path);
/* The folders made above an output folder (it may be given as a/b/c), so
 * that a failed command takes them away again (cli/cmd_compile.c). */
typedef struct {
    char path[PATH_MAX];
    size_t end[64];          /* lengths of the prefixes created, outermost first */
    int n;
} CliMade;
/* mkdir -p of the folders above path, recording those it created; 0 ok, -1 (errno) */
int cli_make_parents(const char *path, CliMade *m);
/* rmdir of what cli_make_parents created, innermost first (only if empty) */
void cli_unmake_parents(CliMade *m);

/* Plan options shared by `plan` and `compile` (cli/plan_args.c). */
typedef struct {
    const char *target, *device_file;
    PlanOptions po;
} CliPlanArgs;
void cli_plan_args_init(CliPlanArgs *a);
void cli_plan_usage(FILE *f);
/* a plan option at argv[*i]: 1 consumed, 0 not a plan option, -1 bad (message printed) */
int cli_plan_parse_option(CliPlanArgs *a, int argc, char **argv, int *i);
/* the device named by --target/--device-file (default zcu102); -1 (message printed) if unknown */
int cli_plan_device(const CliPlanArgs *a, const char *cmd, PlanDevice *dev, IrDiag *d);

#endif
