/* main.c - the onnx2hls command-line driver: parses the subcommand and hands
 * over to cli/cmd_<name>.c. Exit codes: 0 ok, 1 verification failed or lint
 * findings, 2 bad input or usage. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"inspect", cmd_inspect, "print the layers of a model (table or --json)"},
    {"ops", cmd_ops, "list the supported ONNX operators (--markdown for a table)"},
    {"plan", cmd_plan, "hybrid SESL/SEML plan for a board vs the SEML-only and SESL-only baselines"},
    {"compile", cmd_compile, "generate the host C program of a model (OUT/host)"},
    {"verify", cmd_verify, "build and run OUT/host, compare with a reference or ONNX Runtime"},
    {"codesign", cmd_codesign, "per-layer pruning and precision searched against the plan and the accuracy"},
    {"lint", cmd_lint, "check HLS C against what Vitis HLS synthesizes (FILE.c or DIR)"},
    {"sweep", cmd_sweep, "one point per board, precision and PE budget, run by make -j or Slurm; --collect"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: onnx2hls COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n`onnx2hls COMMAND --help` for a command's options; --version for the version.\n"
               "Exit codes: 0 ok, 1 verification failed or lint findings, 2 bad input or usage.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("onnx2hls %s\n", ONNX2HLS_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "onnx2hls: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
