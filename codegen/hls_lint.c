/* hls_lint.c - the lint's driver (see hls_lint.h): which files, how each is
 * parsed, the per-file state, findings (sorted, each once), and the order:
 * every translation unit's AST and pragma rules, then the design rules. */
#include "hls_lint_int.h"

#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/escape.h"
#include "ir/sidefile.h"

void *lint_realloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        abort();
    return p;
}

char *lint_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(lint_realloc(NULL, n), s, n);
}

/* ----------------------------------------------------------- findings */

void lint_find(Lint *L, const LintLoc *at, const char *rule, const char *fmt, ...)
{
    va_list ap;
    char *msg;
    va_start(ap, fmt);
    if (vasprintf(&msg, fmt, ap) < 0)
        abort();
    va_end(ap);
    CgHlsFinding f = {lint_strdup(at->file ? at->file : "?"), at->line, at->col, rule, msg};
    LINT_PUSH(L->res->v, L->res->n, f);
}

LintLoc lint_loc(CXSourceLocation l)
{
    CXFile f;
    LintLoc r = {NULL, 0, 0};
    clang_getSpellingLocation(l, &f, &r.line, &r.col, NULL);
    r.file = f ? hc_str(clang_getFileName(f)) : lint_strdup("?");
    return r;
}

LintLoc lint_cursor_loc(CXCursor c)
{
    return lint_loc(clang_getCursorLocation(c));
}

LintLoc lint_tok_loc(const LintFile *f, unsigned tok)
{
    return lint_loc(clang_getTokenLocation(f->tok.tu, f->tok.tok[tok]));
}

void lint_loc_free(LintLoc *l)
{
    free(l->file);
    l->file = NULL;
}

static int cmp_finding(const void *a, const void *b)
{
    const CgHlsFinding *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    if (!c)
        c = x->line < y->line ? -1 : x->line > y->line;
    if (!c)
        c = x->col < y->col ? -1 : x->col > y->col;
    if (!c)
        c = strcmp(x->rule, y->rule);
    return c ? c : strcmp(x->msg, y->msg);
}

static void sort_findings(CgHlsLintResult *r)
{
    if (r->n > 1)
        qsort(r->v, (size_t)r->n, sizeof *r->v, cmp_finding);
    int n = 0;
    for (int i = 0; i < r->n; i++) {
        if (n && !cmp_finding(&r->v[n - 1], &r->v[i])) {
            free(r->v[i].file);
            free(r->v[i].msg);
        } else {
            r->v[n++] = r->v[i];
        }
    }
    r->n = n;
}

void cg_hls_lint_print(const CgHlsLintResult *r, FILE *f)
{
    for (int i = 0; i < r->n; i++) {   /* file names and messages quote the C file: terminal-escaped */
        esc_put(f, ESC_TERM, r->v[i].file);
        fprintf(f, ":%u:%u: %s: ", r->v[i].line, r->v[i].col, r->v[i].rule);
        esc_put(f, ESC_TERM, r->v[i].msg);
        fputc('\n', f);
    }
}

void cg_hls_lint_result_free(CgHlsLintResult *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->v[i].file);
        free(r->v[i].msg);
    }
    free(r->v);
    free(r->top);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------ per-file state */

LintFile *lint_file(Lint *L, CXFile file)
{
    if (!file)
        return NULL;
    for (int i = 0; i < L->n_files; i++)
        if (clang_File_isEqual(L->files[i]->file, file))
            return L->files[i]->name ? L->files[i] : NULL;
    LintFile *f = lint_realloc(NULL, sizeof *f);
    memset(f, 0, sizeof *f);
    f->file = file;
    if (!clang_Location_isInSystemHeader(clang_getLocationForOffset(L->tu, file, 0)) &&
        hc_tokens(L->tu, file, &f->tok) == 0) {
        f->name = hc_str(clang_getFileName(file));
        hc_pragmas(&f->tok, &f->prag, &f->n_prag);
        f->region_prag = lint_realloc(NULL, (size_t)f->n_prag);
        memset(f->region_prag, 0, (size_t)f->n_prag);
    }
    LINT_PUSH(L->files, L->n_files, f);
    return f->name ? f : NULL;
}

static void free_vars(LintVar *v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i].name);
    free(v);
}

static void free_file(LintFile *f)
{
    for (int i = 0; i < f->n_scopes; i++) {
        free(f->scopes[i].fn_key);
        free(f->scopes[i].stmt);
        free_vars(f->scopes[i].vars, f->scopes[i].n_vars);
    }
    for (int i = 0; i < f->n_loops; i++)
        lint_loc_free(&f->loops[i].at);
    free(f->scopes);
    free(f->loops);
    hc_pragmas_free(f->prag, f->n_prag);
    free(f->region_prag);
    if (f->name)
        hc_tokens_free(&f->tok);
    free(f->name);
    free(f);
}

static void free_tu_state(Lint *L)
{
    for (int i = 0; i < L->n_files; i++)
        free_file(L->files[i]);
    free(L->files);
    free_vars(L->globals, L->n_globals);
    for (int i = 0; i < L->n_macros; i++)
        free(L->macros[i].name);
    free(L->macros);
    for (int i = 0; i < L->n_enums; i++)
        free(L->enums[i].name);
    free(L->enums);
    L->files = NULL;
    L->globals = NULL;
    L->macros = NULL;
    L->enums = NULL;
    L->n_files = L->n_globals = L->n_macros = L->n_enums = 0;
}

LintFn *lint_fn_get(Lint *L, const char *key, const char *name)
{
    for (int i = 0; i < L->n_fns; i++)
        if (!strcmp(L->fns[i].key, key))
            return &L->fns[i];
    LintFn f;
    memset(&f, 0, sizeof f);
    f.key = lint_strdup(key);
    f.name = lint_strdup(name);
    LINT_PUSH(L->fns, L->n_fns, f);
    return &L->fns[L->n_fns - 1];
}

/* ------------------------------------------------------------- files */

typedef struct {
    char **v;
    int n;
} StrList;

static void list_push(StrList *l, const char *s)
{
    LINT_PUSH(l->v, l->n, lint_strdup(s));
}

static void list_free(StrList *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_strp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_dir(const char *p)
{
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static void join(char *out, size_t n, const char *dir, const char *name)
{
    snprintf(out, n, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", name);
}

/* every .c under dir, except in tb/ and hidden folders */
static void scan_dir(const char *dir, StrList *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char p[4096];
        size_t k = strlen(e->d_name);
        if (e->d_name[0] == '.')
            continue;
        join(p, sizeof p, dir, e->d_name);
        if (is_dir(p)) {
            if (strcmp(e->d_name, "tb"))
                scan_dir(p, out);
        } else if (k > 2 && !strcmp(e->d_name + k - 2, ".c")) {
            list_push(out, p);
        }
    }
    closedir(d);
}

/* syn.file= and syn.top= of dir/hls_config.cfg; 0 if there is none, -1
 * (on d) if it is refused */
static int read_cfg(const char *dir, StrList *files, char **top, IrDiag *d)
{
    char p[4096], *text, *cur, *line;
    size_t len;
    struct stat st;
    join(p, sizeof p, dir, "hls_config.cfg");
    if (lstat(p, &st))
        return 0;
    if (sf_read(p, &SF_HLS_CFG, &text, &len, d))
        return -1;
    for (cur = text; (line = sf_next_line(&cur));) {
        char *v = strchr(line, '=');
        if (!v)
            continue;
        *v++ = 0;
        while (*v == ' ')
            v++;
        char *k = line + strspn(line, " \t");
        k[strcspn(k, " \t")] = 0;
        if (!strcmp(k, "syn.file")) {
            join(p, sizeof p, dir, v);
            list_push(files, p);
        } else if (!strcmp(k, "syn.top") && !*top) {
            *top = lint_strdup(v);
        }
    }
    free(text);
    return 1;
}

/* the files to lint and the default include dir; -1 (d) if none */
static int collect(const char *path, StrList *files, StrList *incs, char **cfg_top, IrDiag *d)
{
    char p[4096];
    if (is_dir(path)) {
        int cfg = read_cfg(path, files, cfg_top, d);
        if (cfg < 0)
            return -1;
        if (!cfg)
            scan_dir(path, files);
        join(p, sizeof p, path, "common");
        if (is_dir(p))
            list_push(incs, p);
    } else {
        struct stat st;
        if (stat(path, &st)) {
            diag_error(d, path, NULL, NULL, "no such file or directory");
            return -1;
        }
        list_push(files, path);
        char dir[4096];
        const char *slash = strrchr(path, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
        static const char *const cands[] = {"common", "../common"};
        for (int i = 0; i < 2 && !incs->n; i++) {
            join(p, sizeof p, dir, cands[i]);
            if (is_dir(p))
                list_push(incs, p);
        }
    }
    if (!files->n) {
        diag_error(d, path, NULL, NULL, "no .c file to lint");
        return -1;
    }
    qsort(files->v, (size_t)files->n, sizeof *files->v, cmp_strp);
    return 0;
}

/* --------------------------------------------------------------- run */

/* One file's parse, made on a worker thread (parsing is most of the
 * lint's time, and files parse independently); the rules then walk the
 * parses one by one in file order on the calling thread, so the findings
 * and the design's tables are built as by a sequential run. */
typedef struct {
    const char *path;
    CXTranslationUnit tu;
    char *why;                   /* no translation unit, or its errors */
    IrDiag d;                    /* the file could not be read */
    bool done;
} LintParse;

typedef struct {
    LintParse *p;
    int n, next, walked;         /* next to parse; parses the walk has finished */
    const HcArgv *a;
    pthread_mutex_t lock;
    pthread_cond_t cond;
} LintPool;

#define LINT_AHEAD 8             /* parses kept ahead of the walk, at most */

/* The file is read here, bounded (ir/sidefile.h: a regular file, at most
 * 16 MiB, no NUL byte), and handed to libclang as its contents. */
static void parse_one(LintParse *p, CXIndex idx, const HcArgv *a)
{
    char *text;
    size_t len;
    if (sf_read(p->path, &SF_C_SOURCE, &text, &len, &p->d))
        return;
    p->tu = hc_parse(idx, p->path, a, text, len, true, &p->why);
    free(text);
    char *diags = p->tu ? hc_diagnostics(p->tu, CXDiagnostic_Error) : NULL;
    if (diags) {
        free(p->why);
        p->why = diags;
        hc_tu_free(p->tu);
        p->tu = NULL;
    }
}

static void *parse_worker(void *arg)
{
    LintPool *P = arg;
    CXIndex idx = hc_index();
    pthread_mutex_lock(&P->lock);
    for (;;) {
        while (P->next < P->n && P->next >= P->walked + LINT_AHEAD)
            pthread_cond_wait(&P->cond, &P->lock);
        if (P->next >= P->n)
            break;
        LintParse *p = &P->p[P->next++];
        pthread_mutex_unlock(&P->lock);
        parse_one(p, idx, P->a);
        pthread_mutex_lock(&P->lock);
        p->done = true;
        pthread_cond_broadcast(&P->cond);
    }
    pthread_mutex_unlock(&P->lock);
    /* the translation units live on after their index until the walk
     * disposes them; libclang asks that the index outlive them: kept
     * until the caller joins, after the walk (lint_files) */
    return idx;
}

/* the rules over one parsed file; its parse disposed */
static int walk_one(Lint *L, LintParse *p, IrDiag *d)
{
    diag_merge(d, &p->d);
    if (p->d.n_errors)
        return -1;
    if (!p->tu) {
        diag_error(d, p->path, NULL, NULL, "does not parse (as Vitis HLS sees it, with __SYNTHESIS__): %s",
                   p->why ? p->why : "?");
        return -1;
    }
    L->tu = p->tu;
    lint_ast(L);
    lint_pragmas(L);
    free_tu_state(L);
    hc_tu_free(L->tu);
    L->tu = NULL;
    return 0;
}

static void free_design(Lint *L)
{
    for (int i = 0; i < L->n_fns; i++) {
        LintFn *f = &L->fns[i];
        for (int j = 0; j < f->n_calls; j++) {
            free(f->calls[j].callee);
            lint_loc_free(&f->calls[j].at);
        }
        for (int j = 0; j < f->n_params; j++)
            free(f->param_names[j]);
        for (int j = 0; j < f->n_fwd; j++)
            free(f->fwd[j].callee);
        for (int j = 0; j < f->n_iface; j++) {
            lint_loc_free(&f->iface[j].at);
            free(f->iface[j].msg);
        }
        for (int j = 0; j < f->n_interface; j++)
            lint_loc_free(&f->interface_at[j]);
        lint_loc_free(&f->at);
        free(f->key), free(f->name), free(f->calls), free(f->param_names);
        free(f->acc), free(f->fwd), free(f->iface), free(f->interface_at);
    }
    free(L->fns);
    for (int i = 0; i < L->n_regions; i++) {
        LintRegion *r = &L->regions[i];
        for (int j = 0; j < r->n_chan; j++) {
            free(r->chan[j]);
            lint_loc_free(&r->chan_at[j]);
        }
        for (int j = 0; j < r->n_calls; j++) {
            free(r->calls[j].callee);
            free(r->calls[j].args);
            lint_loc_free(&r->calls[j].at);
        }
        lint_loc_free(&r->at);
        free(r->chan), free(r->chan_at), free(r->chan_fifo), free(r->calls);
    }
    free(L->regions);
}

static int start_workers(LintPool *P, pthread_t *th, int max)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = (int)(cores < 1 ? 1 : cores > max ? max : cores), started = 0;
    pthread_attr_t attr;         /* libclang parses on these threads: its usual 8 MiB stack */
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, (size_t)8 << 20);
    for (int t = 0; t < n && t < P->n; t++)
        started += pthread_create(&th[started], &attr, parse_worker, P) == 0;
    pthread_attr_destroy(&attr);
    return started;
}

static int lint_files(Lint *L, const StrList *files, const StrList *incs, IrDiag *d)
{
    HcArgv a;
    hc_argv_build(&a, (const char *const *)incs->v, incs->n, L->opt->defines, L->opt->n_defines, true);
    LintPool P = {lint_realloc(NULL, (size_t)files->n * sizeof *P.p), files->n, 0, 0, &a,
                  PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
    for (int i = 0; i < files->n; i++) {
        P.p[i] = (LintParse){files->v[i], NULL, NULL, {0}, false};
        diag_init(&P.p[i].d);
    }
    pthread_t th[8];
    int started = start_workers(&P, th, 8);
    int bad = 0;
    CXIndex own = started ? NULL : hc_index();   /* no thread: parse as we walk */
    for (int i = 0; i < files->n; i++) {
        pthread_mutex_lock(&P.lock);
        while (started && !P.p[i].done)
            pthread_cond_wait(&P.cond, &P.lock);
        pthread_mutex_unlock(&P.lock);
        if (!started)
            parse_one(&P.p[i], own, &a);
        bad |= walk_one(L, &P.p[i], d);
        pthread_mutex_lock(&P.lock);
        P.walked = i + 1;
        pthread_cond_broadcast(&P.cond);
        pthread_mutex_unlock(&P.lock);
    }
    for (int t = 0; t < started; t++) {
        void *idx = NULL;
        pthread_join(th[t], &idx);
        hc_index_free(idx);
    }
    hc_index_free(own);
    for (int i = 0; i < files->n; i++) {
        free(P.p[i].why);
        diag_free(&P.p[i].d);
    }
    free(P.p);
    hc_argv_free(&a);
    L->res->n_files = files->n;
    return bad;
}

int cg_hls_lint(const char *path, const CgHlsLintOptions *opt, CgHlsLintResult *r, IrDiag *d)
{
    static const CgHlsLintOptions none;
    Lint L;
    memset(&L, 0, sizeof L);
    memset(r, 0, sizeof *r);
    L.opt = opt ? opt : &none;
    L.res = r;
    L.path = path;
    StrList files = {0}, incs = {0};
    char *cfg_top = NULL, cfg_path[4096];
    for (int i = 0; i < L.opt->n_include_dirs; i++)
        list_push(&incs, L.opt->include_dirs[i]);
    int errors = d->n_errors, rc = -1;
    L.d = d;
    char *why = NULL;
    if (hc_load(&why)) {
        diag_error(d, path, NULL, NULL, "%s", why);
        free(why);
    } else if (!collect(path, &files, &incs, &cfg_top, d) && !lint_files(&L, &files, &incs, d)) {
        L.cfg_top = cfg_top;
        join(cfg_path, sizeof cfg_path, path, "hls_config.cfg");
        L.cfg_path = cfg_path;
        lint_design(&L);
        rc = d->n_errors > errors ? -1 : 0;
    }
    sort_findings(r);
    free_design(&L);
    free(cfg_top);
    list_free(&files);
    list_free(&incs);
    return rc < 0 ? -1 : r->n;
}

int cg_hls_lint_dir(const char *dir, const CgHlsLintOptions *opt, IrDiag *d)
{
    CgHlsLintResult r;
    int n = cg_hls_lint(dir, opt, &r, d);
    for (int i = 0; n > 0 && i < r.n; i++) {
        char at[4200];
        snprintf(at, sizeof at, "%s:%u:%u", r.v[i].file, r.v[i].line, r.v[i].col);
        diag_error(d, at, NULL, NULL, "%s: %s", r.v[i].rule, r.v[i].msg);
    }
    cg_hls_lint_result_free(&r);
    return n;
}
