/* diag.c - the diagnostics list (see diag.h). Allocation failures here are
 * fatal by design: a compiler that cannot record an error cannot go on. */
#include "diag.h"
#include "escape.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (!p)
        abort();
    memcpy(p, s, n);
    return p;
}

void diag_init(IrDiag *d)
{
    memset(d, 0, sizeof *d);
}

void diag_free(IrDiag *d)
{
    for (int i = 0; i < d->n; i++) {
        free(d->v[i].file);
        free(d->v[i].node);
        free(d->v[i].op);
        free(d->v[i].msg);
    }
    free(d->v);
    memset(d, 0, sizeof *d);
}

void diag_add(IrDiag *d, DiagLevel lvl, const char *file, const char *node, const char *op,
              const char *fmt, ...)
{
    if (lvl == DIAG_ERROR)
        d->n_errors++;
    int max = d->max_errors > 0 ? d->max_errors : 1000;
    if (d->n >= max)
        return;
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 16;
        d->v = realloc(d->v, (size_t)d->cap * sizeof *d->v);
        if (!d->v)
            abort();
    }
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *msg = malloc((size_t)(len < 0 ? 0 : len) + 1);
    if (!msg)
        abort();
    va_start(ap, fmt);
    vsnprintf(msg, (size_t)(len < 0 ? 0 : len) + 1, fmt, ap);
    va_end(ap);
    DiagEntry *e = &d->v[d->n++];
    e->level = lvl;
    e->file = dup_or_null(file);
    e->node = dup_or_null(node);
    e->op = dup_or_null(op);
    e->msg = msg;
}

/* Every part is model or user text (file paths, node names, messages that
 * quote names): escaped for the terminal, so a name cannot move the cursor,
 * recolour the screen or fake a line of its own. */
void diag_print(const IrDiag *d, FILE *f)
{
    static const char *lv[] = {"note", "warning", "error"};
    for (int i = 0; i < d->n; i++) {
        const DiagEntry *e = &d->v[i];
        if (e->file) {
            esc_put(f, ESC_TERM, e->file);
            fputs(": ", f);
        }
        fprintf(f, "%s: ", lv[e->level]);
        if (e->node) {
            fputs("node '", f);
            esc_put(f, ESC_TERM, e->node);
            fputs(e->op ? "' (" : "'", f);
        }
        if (e->op) {
            esc_put(f, ESC_TERM, e->op);
            fputs(e->node ? ")" : "", f);
        }
        fputs(e->node || e->op ? ": " : "", f);
        esc_put(f, ESC_TERM, e->msg);
        fputc('\n', f);
    }
    int max = d->max_errors > 0 ? d->max_errors : 1000;
    if (d->n >= max)
        fprintf(f, "(%d errors in all; only the first %d shown)\n", d->n_errors, max);
}

int diag_contains(const IrDiag *d, const char *needle)
{
    for (int i = 0; i < d->n; i++)
        if (strstr(d->v[i].msg, needle) || (d->v[i].node && strstr(d->v[i].node, needle)))
            return 1;
    return 0;
}

void diag_merge(IrDiag *to, const IrDiag *from)
{
    for (int i = 0; i < from->n; i++) {
        const DiagEntry *e = &from->v[i];
        diag_add(to, e->level, e->file, e->node, e->op, "%s", e->msg);
    }
}
