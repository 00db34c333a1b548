/* hls_engines.c - writes engines/<prefix>.c for every engine instance:
 * its template specialized with libclang (codegen/hls_specialize.c), under
 * a comment naming the ONNX node(s) it implements, and its ROM header.
 *
 * Why through the specializer: the template is the engine, tested on its
 * own; an instance differs from it only in its O2H_P_* values and in the
 * prefix of its file-scope names, and the specializer proves the result
 * parses clean. Nothing here knows the engines' code. Instances are
 * independent, so they are specialized on every core (a libclang parse is
 * milliseconds, and a network has dozens of engines).
 */
#include "hls_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hls_clang.h"
#include "hls_specialize.h"

static char *specialize(const CgInst *in, const char *tdir, const char *dir, IrDiag *d)
{
    char path[4096], common[4096], engines[4096], what[128];
    snprintf(path, sizeof path, "%s/%s.c", tdir, cg_tpl_file(in->tpl));
    snprintf(common, sizeof common, "%s/common", dir);
    snprintf(engines, sizeof engines, "%s/engines", dir);
    snprintf(what, sizeof what, "%s (%s)", in->prefix, in->origin ? in->origin : "");
    const char *inc[2] = {common, engines};
    CgHlsParam *ps = calloc((size_t)in->n_params + 1, sizeof *ps);
    char (*names)[32] = calloc((size_t)in->n_params + 1, sizeof *names);
    if (!ps || !names)
        abort();
    for (int i = 0; i < in->n_params; i++) {
        snprintf(names[i], sizeof names[i], "O2H_P_%s", in->params[i].name);
        ps[i] = (CgHlsParam){names[i], in->params[i].value};
    }
    CgHlsSpecRequest rq = {path, inc, 2, NULL, 0, ps, in->n_params, in->prefix, what, true};
    char *text = cg_hls_specialize(&rq, d);
    free(ps);
    free(names);
    return text;
}

/* The instance's ROM header. While the engine is specialized it holds
 * only zero initializers (the specializer checks the code, and clang needs
 * about a microsecond per literal of a large ROM); the data is written
 * after, and the lint of the finished folder parses it. */
static int write_rom(CgAccel *a, CgInst *in, const char *dir, bool data)
{
    char rel[64], val[80];
    snprintf(rel, sizeof rel, "engines/%s.rom.h", in->prefix);
    FILE *f = cg_hls_open(a, dir, rel);
    if (!f)
        return -1;
    if (data) {
        fputs(in->rom, f);
    } else {
        for (const char *m = strstr(in->rom, "#define "); m; m = strstr(m + 1, "#define ")) {
            const char *sp = strchr(m + 8, ' ');
            if (sp)
                fprintf(f, "%.*s {0}\n", (int)(sp - m), m);
        }
        snprintf(val, sizeof val, "\"%s.rom.h\"", in->prefix);
        cg_param_s(in, "ROM", val);
    }
    return cg_hls_close(a, f, dir, rel);
}

/* the engine file: a comment naming the nodes, then the specialized template */
static int write_engine(CgAccel *a, const CgInst *in, const char *text, const char *dir)
{
    char rel[64];
    snprintf(rel, sizeof rel, "engines/%s.c", in->prefix);
    FILE *f = cg_hls_open(a, dir, rel);
    if (!f)
        return -1;
    fprintf(f, "/* engine %s: templates/hls/%s.c specialized by onnx2hls for\n", in->prefix, cg_tpl_file(in->tpl));
    fprintf(f, " *   ");
    cg_hls_comment_text(f, in->origin);
    fprintf(f, "\n * Every function below implements these ONNX node(s). */\n");
    fputs(text, f);
    return cg_hls_close(a, f, dir, rel);
}

/* one instance: zero ROM, specialized engine, real ROM */
static int write_instance(CgAccel *a, CgInst *in, const char *tdir, const char *dir, IrDiag *d)
{
    if (in->rom && write_rom(a, in, dir, false))
        return -1;
    char *text = specialize(in, tdir, dir, d);
    if (!text)
        return -1;
    int rc = write_engine(a, in, text, dir) || (in->rom && write_rom(a, in, dir, true)) ? -1 : 0;
    free(text);
    return rc;
}

typedef struct {
    CgAccel *a;
    const char *tdir, *dir;
    pthread_mutex_t lock;
    int next, failed;
    IrDiag *diags;           /* per instance: its messages, merged in order after */
} Work;

static void *worker(void *arg)
{
    Work *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        int i = w->failed ? w->a->n_inst : w->next++;
        pthread_mutex_unlock(&w->lock);
        if (i >= w->a->n_inst)
            return NULL;
        if (write_instance(w->a, &w->a->inst[i], w->tdir, w->dir, &w->diags[i])) {
            pthread_mutex_lock(&w->lock);
            w->failed = 1;
            pthread_mutex_unlock(&w->lock);
        }
    }
}

int cg_hls_write_engines(CgAccel *a, const CgHlsOptions *o, const char *dir)
{
    char *why = NULL;
    if (hc_load(&why)) {      /* once, before the threads */
        diag_error(a->diag, NULL, NULL, NULL, "accelerator: %s", why);
        free(why);
        return -1;
    }
    Work w = {a, o->template_dir, dir, PTHREAD_MUTEX_INITIALIZER, 0, 0, calloc((size_t)a->n_inst + 1, sizeof(IrDiag))};
    if (!w.diags)
        abort();
    for (int i = 0; i < a->n_inst; i++)
        diag_init(&w.diags[i]);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = (int)(cores < 1 ? 1 : cores > 8 ? 8 : cores), started = 0;
    pthread_t th[8];
    pthread_attr_t attr;       /* libclang parses on these threads: its usual 8 MiB stack */
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, (size_t)8 << 20);
    for (int t = 0; t < n; t++)
        started += pthread_create(&th[started], &attr, worker, &w) == 0;
    pthread_attr_destroy(&attr);
    if (started == 0)
        worker(&w);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    for (int i = 0; i < a->n_inst; i++) {
        diag_merge(a->diag, &w.diags[i]);
        diag_free(&w.diags[i]);
    }
    free(w.diags);
    a->errors += w.failed;
    return w.failed ? -1 : 0;
}
