/* option.h - a module's command-line options as a table the CLI drives.
 *
 * Why a table: the passes, the quantizer and the planner each own options,
 * but only cli/ reads argv. A module lists its options here (name, the
 * value's placeholder or none for a flag, a setter, the help text); the CLI
 * (cli/options.c) matches the name, takes the value ("--name=V" or
 * "--name V"), calls the setter and prints the command's --help from the
 * same rows, so an option cannot be accepted without being documented or
 * documented with a spelling that is not accepted.
 *
 * A setter checks and stores one value; on a bad value it returns -1 with
 * the reasons on d (an entry without a file is printed after the command's
 * name, one with a file - a side file that cannot be read - as the file's
 * diagnostic). */
#ifndef ONNX2HLS_OPTION_H
#define ONNX2HLS_OPTION_H

#include "diag.h"

typedef struct {
    const char *name;   /* "--prune" */
    const char *arg;    /* the value's placeholder in --help ("SPEC"); NULL: a flag, no value */
    int (*set)(void *opts, const char *value, IrDiag *d);   /* value NULL for a flag; 0 or -1 */
    const char *help;   /* '\n' between lines; NULL: not listed (an alias named in another row's help) */
} IrOption;

/* A table ends with a row whose name is NULL. */
#define IR_OPTION_END {NULL, NULL, NULL, NULL}

#endif
