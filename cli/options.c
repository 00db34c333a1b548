/* options.c - argv against the modules' option tables (ir/option.h): the
 * one place that matches an option's name, takes its value, reports a bad
 * one and prints the rows as --help.
 *
 * Why here: only the CLI reads argv. The passes, the quantizer and the
 * planner describe their options as rows; every command that takes them
 * calls cli_option for each argument, so the spellings ("--name V",
 * "--name=V", "-nV" for a short one), the "needs a value" message and the help layout are the same
 * for every option of every command. */
#include "cli.h"
#include "ir/escape.h"

#include <stdbool.h>
#include <string.h>

/* the setter's reasons: after the command's name, or, for a side file
 * that was refused, the option's name and then the file's diagnostics */
static void print_reasons(const char *cmd, const char *name, const IrDiag *d)
{
    if (d->n > 0 && d->v[0].file)
        fprintf(stderr, "onnx2hls %s: %s:\n", cmd, name);
    for (int k = 0; k < d->n; k++) {
        IrDiag one = {(DiagEntry *)&d->v[k], 1, 1, d->v[k].level == DIAG_ERROR, 0};
        if (one.v->file) {
            diag_print(&one, stderr);
            continue;
        }
        fprintf(stderr, "onnx2hls %s: ", cmd);
        esc_put(stderr, ESC_TERM, one.v->msg);
        fputc('\n', stderr);
    }
}

/* a short option ("-I") takes its value attached ("-IDIR") as well */
static bool is_short(const IrOption *o)
{
    return o->name[0] == '-' && o->name[1] != '-';
}

/* the row of t that argv[*i] names ("--name", "--name=V" or "-nV" for a
 * row with a value), or NULL */
static const IrOption *find(const IrOption *t, const char *a)
{
    for (; t->name; t++) {
        size_t n = strlen(t->name);
        if (!strncmp(a, t->name, n) && (!a[n] || (t->arg && (is_short(t) || a[n] == '='))))
            return t;
    }
    return NULL;
}

int cli_option(const IrOption *t, void *opts, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = NULL;
    const IrOption *o = find(t, a);
    if (!o)
        return 0;
    if (o->arg) {
        size_t n = strlen(o->name);
        if (a[n])
            v = a + n + !is_short(o);
        else if (*i + 1 < argc)
            v = argv[++*i];
        else {
            fprintf(stderr, "onnx2hls %s: option %s needs a value\n", argv[0], o->name);
            return -1;
        }
    }
    IrDiag d;
    diag_init(&d);
    int rc = o->set(opts, v, &d);
    if (rc)
        print_reasons(argv[0], o->name, &d);
    diag_free(&d);
    return rc ? -1 : 1;
}

void cli_options_help(FILE *f, const IrOption *t)
{
    for (; t->name; t++) {
        if (!t->help)
            continue;
        char head[64];
        snprintf(head, sizeof head, "%s%s%s", t->name, t->arg ? " " : "", t->arg ? t->arg : "");
        fprintf(f, strlen(head) > 16 ? "  %s  " : "  %-16s ", head);
        for (const char *h = t->help; *h;) {
            const char *nl = strchr(h, '\n');
            int len = nl ? (int)(nl - h) : (int)strlen(h);
            fprintf(f, "%.*s\n", len, h);
            h += len + (nl != NULL);
            if (*h)
                fprintf(f, "%19s", "");
        }
    }
}

int cli_check_file(const char *cmd, const char *flag, const char *path, const SfKind *k)
{
    IrDiag d;
    diag_init(&d);
    int rc = sf_check(path, k, NULL, &d);
    if (rc)
        print_reasons(cmd, flag, &d);
    diag_free(&d);
    return rc;
}
