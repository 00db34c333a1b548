/* cli.h - subcommands of the onnx2hls driver, one file each (cli/cmd_*.c).
 * Each takes argv with argv[0] = the command name and returns the exit code. */
#ifndef ONNX2HLS_CLI_H
#define ONNX2HLS_CLI_H

int cmd_inspect(int argc, char **argv);

#endif
