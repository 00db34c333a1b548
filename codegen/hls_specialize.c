/* hls_specialize.c - HLS template specializer on libclang (see
 * hls_specialize.h for the rules). The template is parsed in each view (C
 * simulation, synthesis) for its O2H_P_ definitions; the request's values
 * are put in, and that text is parsed again in each view for the byte
 * offsets of the identifiers to prefix (so code under `#if` on a parameter
 * is seen as the instance compiles it). The two views' offsets are merged,
 * the renames applied in one pass, and the result re-parsed in memory.
 *
 * The definitions depend only on the template's text and the parse's
 * arguments, not on the request: they are kept per (text, arguments) for
 * the life of the process, so a model's many instances of one template
 * parse it as written once (two of each instance's five parses). */
#include "hls_specialize.h"

#include "hls_clang.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        abort();
    return p;
}

#define PUSH(arr, n, x)                                          \
    do {                                                         \
        (arr) = xrealloc((arr), ((size_t)(n) + 1) * sizeof *(arr)); \
        (arr)[(n)++] = (x);                                      \
    } while (0)

/* One `#define O2H_P_*` of the template: name and value byte ranges. */
typedef struct {
    char *name;
    unsigned name_off, name_end, val_off, val_end;
    bool fnlike;
} ParamDef;

/* A file-scope entity of the translation unit, keyed by USR. */
typedef struct {
    char *usr, *name;
    bool in_main, foreign;       /* declared in the template's file / in another file */
    bool fn, has_body;           /* a function; defined in the template's file */
    bool var, non_extern;        /* a variable; declared there without `extern` */
} Entity;

/* Parameters and locals of one function defined in the template's file. */
typedef struct {
    unsigned body_off, body_end;
    char **names;
    int n_names;
} FnScope;

typedef struct {
    const CgHlsSpecRequest *rq;
    IrDiag *d;
    ParamDef *defs;
    int n_defs;
    unsigned *ren;               /* byte offsets of identifiers to prefix */
    int n_ren;
    /* per view */
    CXFile main;
    Entity *ent;
    int n_ent;
    char **names;                /* names of the renamed entities, sorted (point into ent) */
    int n_names;
    FnScope *fns;
    int n_fns;
} Spec;

static const char *engine_name(const Spec *s)
{
    return s->rq->engine ? s->rq->engine : "?";
}

/* An error naming the template (as the file) and the engine. */
#define SPEC_ERR(s, fmt, ...) \
    diag_error((s)->d, (s)->rq->template_path, NULL, NULL, "engine %s: " fmt, engine_name(s), __VA_ARGS__)

static bool in_main(const Spec *s, CXCursor c)
{
    CXFile f;
    clang_getSpellingLocation(clang_getCursorLocation(c), &f, NULL, NULL, NULL);
    return f && clang_File_isEqual(f, s->main);
}

/* ------------------------------------------------------ parameters */

static unsigned extent_end(CXCursor c)
{
    return hc_offset(clang_getRangeEnd(clang_getCursorExtent(c)));
}

/* Record `#define O2H_P_*` c (once per offset: both views see most). */
static void add_param_def(Spec *s, CXCursor c, const HcTokens *t)
{
    unsigned off = hc_offset(clang_getCursorLocation(c));
    for (int i = 0; i < s->n_defs; i++)
        if (s->defs[i].name_off == off)
            return;
    ParamDef p = {hc_str(clang_getCursorSpelling(c)), off, 0, 0, extent_end(c), false};
    unsigned k = hc_tok_at(t, off);
    p.name_end = t->end[k];
    p.fnlike = clang_Cursor_isMacroFunctionLike(c);
    k++;
    p.val_off = k < t->n && t->off[k] < p.val_end ? t->off[k] : p.name_end;
    if (p.val_off == p.name_end)
        p.val_end = p.name_end;
    PUSH(s->defs, s->n_defs, p);
}

/* ---------------------------------------------------------- entities */

static bool renamable_kind(enum CXCursorKind k)
{
    return k == CXCursor_FunctionDecl || k == CXCursor_VarDecl || k == CXCursor_TypedefDecl ||
           k == CXCursor_StructDecl || k == CXCursor_UnionDecl || k == CXCursor_EnumDecl ||
           k == CXCursor_EnumConstantDecl;
}

static bool is_identifier(const char *s)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

static bool entity_renamed(const Entity *e)
{
    if (!e->in_main || e->foreign)
        return false;
    if (e->fn)
        return e->has_body;
    return !e->var || e->non_extern;
}

/* Record one declaration; merge_entities() merges an entity's declarations. */
static void note_entity(Spec *s, CXCursor c)
{
    char *name = hc_str(clang_getCursorSpelling(c));
    char *usr = hc_str(clang_getCursorUSR(c));
    if (!is_identifier(name) || !*usr) {
        free(name);
        free(usr);
        return;
    }
    enum CXCursorKind k = clang_getCursorKind(c);
    bool m = in_main(s, c);
    Entity e = {usr, name, m, !m, k == CXCursor_FunctionDecl,
                m && k == CXCursor_FunctionDecl && clang_isCursorDefinition(c), k == CXCursor_VarDecl,
                m && k == CXCursor_VarDecl && clang_Cursor_getStorageClass(c) != CX_SC_Extern};
    PUSH(s->ent, s->n_ent, e);
}

static enum CXChildVisitResult visit_tag_members(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    Spec *s = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_StructDecl || k == CXCursor_UnionDecl || k == CXCursor_EnumDecl ||
        k == CXCursor_EnumConstantDecl) {
        note_entity(s, c);
        clang_visitChildren(c, visit_tag_members, s);
    }
    return CXChildVisit_Continue;
}

static int cmp_entity(const void *a, const void *b)
{
    return strcmp(((const Entity *)a)->usr, ((const Entity *)b)->usr);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void merge_into(Entity *p, Entity *e)
{
    p->in_main |= e->in_main;
    p->foreign |= e->foreign;
    p->fn |= e->fn;
    p->has_body |= e->has_body;
    p->var |= e->var;
    p->non_extern |= e->non_extern;
    free(e->usr);
    free(e->name);
}

/* Sort by USR, merge the declarations of each entity, and list the
 * renamed names (sorted) for the text rules. */
static void merge_entities(Spec *s)
{
    if (s->n_ent > 1)
        qsort(s->ent, (size_t)s->n_ent, sizeof *s->ent, cmp_entity);
    int n = 0;
    for (int i = 0; i < s->n_ent; i++) {
        if (n && !strcmp(s->ent[n - 1].usr, s->ent[i].usr))
            merge_into(&s->ent[n - 1], &s->ent[i]);
        else
            s->ent[n++] = s->ent[i];
    }
    s->n_ent = n;
    for (int i = 0; i < n; i++)
        if (entity_renamed(&s->ent[i]))
            PUSH(s->names, s->n_names, s->ent[i].name);
    if (s->n_names > 1)
        qsort(s->names, (size_t)s->n_names, sizeof *s->names, cmp_str);
}

static const Entity *renamed_by_usr(const Spec *s, const char *usr)
{
    Entity key;
    memset(&key, 0, sizeof key);
    key.usr = (char *)usr;
    const Entity *e = s->n_ent ? bsearch(&key, s->ent, (size_t)s->n_ent, sizeof *s->ent, cmp_entity) : NULL;
    return e && entity_renamed(e) ? e : NULL;
}

static bool renamed_name(const Spec *s, const char *name, size_t len)
{
    char buf[256];
    if (len >= sizeof buf)
        return false;
    memcpy(buf, name, len);
    buf[len] = 0;
    char *key = buf;
    return s->n_names && bsearch(&key, s->names, (size_t)s->n_names, sizeof *s->names, cmp_str) != NULL;
}

/* ------------------------------------------------ function scopes */

static enum CXChildVisitResult visit_locals(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    FnScope *f = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_ParmDecl || k == CXCursor_VarDecl)
        PUSH(f->names, f->n_names, hc_str(clang_getCursorSpelling(c)));
    return CXChildVisit_Recurse;
}

static void add_fn_scope(Spec *s, CXCursor c)
{
    FnScope f;
    memset(&f, 0, sizeof f);
    CXSourceRange r = clang_getCursorExtent(c);
    f.body_off = hc_offset(clang_getRangeStart(r));
    f.body_end = hc_offset(clang_getRangeEnd(r));
    clang_visitChildren(c, visit_locals, &f);
    PUSH(s->fns, s->n_fns, f);
}

static bool is_local(const Spec *s, unsigned off, const char *name, size_t len)
{
    for (int i = 0; i < s->n_fns; i++) {
        const FnScope *f = &s->fns[i];
        if (off < f->body_off || off >= f->body_end)
            continue;
        for (int j = 0; j < f->n_names; j++)
            if (strlen(f->names[j]) == len && !memcmp(f->names[j], name, len))
                return true;
    }
    return false;
}

/* Top-level cursors: O2H_P_ definitions, entities, function scopes. */
typedef struct {
    Spec *s;
    const HcTokens *t;
} TopCtx;

static enum CXChildVisitResult visit_top(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    TopCtx *x = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_MacroDefinition && in_main(x->s, c)) {
        char *name = hc_str(clang_getCursorSpelling(c));
        if (!strncmp(name, "O2H_P_", 6))
            add_param_def(x->s, c, x->t);
        free(name);
    } else if (renamable_kind(k)) {
        note_entity(x->s, c);
        if (k == CXCursor_StructDecl || k == CXCursor_UnionDecl || k == CXCursor_EnumDecl)
            clang_visitChildren(c, visit_tag_members, x->s);
        if (k == CXCursor_FunctionDecl && clang_isCursorDefinition(c) && in_main(x->s, c))
            add_fn_scope(x->s, c);
    }
    return CXChildVisit_Continue;
}

/* ---------------------------------------------------------- renames */

static void add_rename(Spec *s, unsigned off)
{
    PUSH(s->ren, s->n_ren, off);
}

/* Identifier tokens the AST resolves to a renamed entity. */
static void rename_ast_refs(Spec *s, const HcTokens *t, const CXCursor *cur)
{
    for (unsigned i = 0; i < t->n; i++) {
        if (clang_getTokenKind(t->tok[i]) != CXToken_Identifier || hc_skipped(t, t->off[i]))
            continue;
        CXCursor r = clang_getCursorReferenced(cur[i]);
        if (clang_Cursor_isNull(r) || !renamable_kind(clang_getCursorKind(r)))
            continue;
        char *usr = hc_str(clang_getCursorUSR(r));
        const Entity *e = renamed_by_usr(s, usr);
        free(usr);
        size_t len = t->end[i] - t->off[i];
        if (e && strlen(e->name) == len && !memcmp(e->name, t->text + t->off[i], len))
            add_rename(s, t->off[i]);
    }
}

static bool is_macro_param(const HcTokens *t, unsigned name_tok, unsigned body, unsigned i)
{
    for (unsigned k = name_tok + 1; k < body; k++)
        if (hc_tok_ident(t, k) && t->end[k] - t->off[k] == t->end[i] - t->off[i] &&
            !memcmp(t->text + t->off[k], t->text + t->off[i], t->end[i] - t->off[i]))
            return true;
    return false;
}

/* The body of one `#define` in the template's file: tokens [name_tok, end). */
static void rename_macro_body(Spec *s, const HcTokens *t, unsigned name_tok, unsigned end)
{
    unsigned body = name_tok + 1;
    if (body < end && hc_tok_is(t, body, "(") && t->off[body] == t->end[name_tok]) {
        while (body < end && !hc_tok_is(t, body, ")"))
            body++;
        body++;
    }
    for (unsigned i = body; i < end; i++) {
        if (clang_getTokenKind(t->tok[i]) != CXToken_Identifier ||
            !renamed_name(s, t->text + t->off[i], t->end[i] - t->off[i]) ||
            is_macro_param(t, name_tok, body, i))
            continue;
        if (i > body && (hc_tok_is(t, i - 1, ".") || hc_tok_is(t, i - 1, "->") || hc_tok_is(t, i - 1, "##")))
            continue;
        if (i + 1 < end && hc_tok_is(t, i + 1, "##"))
            continue;
        add_rename(s, t->off[i]);
    }
}

static enum CXChildVisitResult visit_macros(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    TopCtx *x = data;
    if (clang_getCursorKind(c) != CXCursor_MacroDefinition || !in_main(x->s, c))
        return CXChildVisit_Continue;
    char *name = hc_str(clang_getCursorSpelling(c));
    if (strncmp(name, "O2H_P_", 6)) {
        unsigned k = hc_tok_at(x->t, hc_offset(clang_getCursorLocation(c)));
        rename_macro_body(x->s, x->t, k, hc_tok_at(x->t, extent_end(c)));
    }
    free(name);
    return CXChildVisit_Continue;
}

/* Identifiers in `#pragma HLS` option values naming renamed symbols. */
static void rename_pragmas(Spec *s, const HcTokens *t)
{
    HcPragma *p;
    int n;
    hc_pragmas(t, &p, &n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < p[i].n_opt; j++)
            for (unsigned k = p[i].opt[j].val; k < p[i].opt[j].val + p[i].opt[j].n_val; k++) {
                const char *name = t->text + t->off[k];
                size_t len = t->end[k] - t->off[k];
                if (!hc_tok_ident(t, k) || !renamed_name(s, name, len) || is_local(s, t->off[k], name, len))
                    continue;
                if (k > p[i].opt[j].val && (hc_tok_is(t, k - 1, ".") || hc_tok_is(t, k - 1, "->")))
                    continue;
                add_rename(s, t->off[k]);
            }
    hc_pragmas_free(p, n);
}

/* ------------------------------------------------------------ views */

static void view_reset(Spec *s)
{
    for (int i = 0; i < s->n_ent; i++) {
        free(s->ent[i].usr);
        free(s->ent[i].name);
    }
    for (int i = 0; i < s->n_fns; i++) {
        for (int j = 0; j < s->fns[i].n_names; j++)
            free(s->fns[i].names[j]);
        free(s->fns[i].names);
    }
    free(s->ent);
    free(s->fns);
    free(s->names);
    s->ent = NULL;
    s->fns = NULL;
    s->names = NULL;
    s->n_ent = s->n_fns = s->n_names = 0;
}

/* O2H_P_ definitions, and with `renames` the identifiers to prefix */
static void scan_view(Spec *s, CXTranslationUnit tu, bool renames)
{
    HcTokens t;
    s->main = clang_getFile(tu, s->rq->template_path);
    if (hc_tokens(tu, s->main, &t))
        return;
    TopCtx x = {s, &t};
    CXCursor root = clang_getTranslationUnitCursor(tu);
    clang_visitChildren(root, visit_top, &x);
    if (!renames) {
        hc_tokens_free(&t);
        view_reset(s);
        return;
    }
    merge_entities(s);
    /* annotate the token run as clang_tokenize gave it (libclang expects
     * it whole), then keep the cursors of the tokens hc_tokens kept */
    CXCursor *raw = xrealloc(NULL, ((size_t)t.n_raw + 1) * sizeof *raw);
    CXCursor *cur = xrealloc(NULL, ((size_t)t.n + 1) * sizeof *cur);
    clang_annotateTokens(tu, t.raw, t.n_raw, raw);
    for (unsigned i = 0, k = 0; i < t.n_raw && k < t.n; i++)
        if (clang_getTokenKind(t.raw[i]) != CXToken_Comment)
            cur[k++] = raw[i];
    rename_ast_refs(s, &t, cur);
    free(raw);
    free(cur);
    clang_visitChildren(root, visit_macros, &x);
    rename_pragmas(s, &t);
    hc_tokens_free(&t);
    view_reset(s);
}

/* Parse one view and scan it: the template as written (text NULL: its
 * parameters), or with the request's values in (the renames). -1 (error
 * recorded) if it does not parse. */
static int parse_view(Spec *s, CXIndex idx, const char *text, size_t len, bool synthesis)
{
    HcArgv a;
    hc_argv_build(&a, s->rq->include_dirs, s->rq->n_include_dirs, s->rq->defines, s->rq->n_defines, synthesis);
    char *why = NULL;
    CXTranslationUnit tu = hc_parse(idx, s->rq->template_path, &a, text, len, true, &why);
    hc_argv_free(&a);
    char *diags = tu ? hc_diagnostics(tu, CXDiagnostic_Error) : NULL;
    if (!tu || diags) {
        if (text)
            SPEC_ERR(s, "the specialized %s does not compile cleanly%s: %s", s->rq->prefix,
                     synthesis ? " with __SYNTHESIS__" : "", diags ? diags : why);
        else
            SPEC_ERR(s, "the template does not parse%s: %s", synthesis ? " with __SYNTHESIS__" : "",
                     diags ? diags : why);
        free(why);
        free(diags);
        if (tu)
            hc_tu_free(tu);
        return -1;
    }
    scan_view(s, tu, text != NULL);
    hc_tu_free(tu);
    return 0;
}

/* ------------------------------------------------- parameter checks */

static const CgHlsParam *request_param(const Spec *s, const char *name)
{
    for (int i = 0; i < s->rq->n_params; i++)
        if (!strcmp(s->rq->params[i].name, name))
            return &s->rq->params[i];
    return NULL;
}

static bool value_spans_lines(const char *v)
{
    for (const char *p = strchr(v, '\n'); p; p = strchr(p + 1, '\n')) {
        const char *q = p;
        while (q > v && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\r'))
            q--;
        if (q == v || q[-1] != '\\')
            return true;
    }
    return false;
}

static void check_template_params(Spec *s)
{
    for (int i = 0; i < s->n_defs; i++) {
        const ParamDef *p = &s->defs[i];
        bool first = true;
        for (int j = 0; j < i; j++)
            first &= strcmp(s->defs[j].name, p->name) != 0;
        if (!first)
            SPEC_ERR(s, "parameter %s is defined twice in the template", p->name);
        else if (p->fnlike)
            SPEC_ERR(s, "parameter %s is a function-like macro (parameters are plain values)", p->name);
        else if (!request_param(s, p->name))
            SPEC_ERR(s, "parameter %s of the template is not given", p->name);
    }
}

static void check_request_params(Spec *s)
{
    for (int i = 0; i < s->rq->n_params; i++) {
        const CgHlsParam *q = &s->rq->params[i];
        bool defined = false;
        for (int j = 0; j < s->n_defs; j++)
            defined |= !strcmp(s->defs[j].name, q->name);
        bool first = true;
        for (int j = 0; j < i; j++)
            first &= strcmp(s->rq->params[j].name, q->name) != 0;
        if (!first)
            SPEC_ERR(s, "parameter %s is given twice", q->name);
        else if (!defined)
            SPEC_ERR(s, "parameter %s is not a parameter of the template (no #define %s in it)", q->name, q->name);
        else if (!q->value || value_spans_lines(q->value))
            SPEC_ERR(s, "the value of %s %s", q->name, q->value ? "spans lines (a newline without '\\')" : "is missing");
    }
}

/* ------------------------------------------------------------ edits */

typedef struct {
    unsigned off, del;
    const char *ins;
    size_t ins_len;
    bool space;                  /* insert one ' ' before ins (value of an empty #define) */
} Edit;

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

static int cmp_edit(const void *a, const void *b)
{
    return cmp_unsigned(&((const Edit *)a)->off, &((const Edit *)b)->off);
}

static bool in_value(const Spec *s, unsigned off)
{
    for (int i = 0; i < s->n_defs; i++)
        if (off >= s->defs[i].val_off && off < s->defs[i].val_end)
            return true;
    return false;
}

/* Value replacements, sorted by offset. */
static Edit *value_edits(const Spec *s, int *n)
{
    Edit *e = NULL;
    *n = 0;
    for (int i = 0; i < s->n_defs; i++) {
        const ParamDef *p = &s->defs[i];
        const char *v = request_param(s, p->name)->value;
        Edit x = {p->val_off, p->val_end - p->val_off, v, strlen(v), p->val_off == p->name_end};
        PUSH(e, *n, x);
    }
    if (*n > 1)
        qsort(e, (size_t)*n, sizeof *e, cmp_edit);
    return e;
}

/* Renames outside the (already replaced) values, sorted by offset. */
static Edit *rename_edits(const Spec *s, const char *pfx, int *n)
{
    Edit *e = NULL;
    *n = 0;
    if (s->n_ren > 1)
        qsort(s->ren, (size_t)s->n_ren, sizeof *s->ren, cmp_unsigned);
    for (int i = 0; i < s->n_ren; i++)
        if ((i == 0 || s->ren[i] != s->ren[i - 1]) && !in_value(s, s->ren[i])) {
            Edit x = {s->ren[i], 0, pfx, strlen(pfx), false};
            PUSH(e, *n, x);
        }
    if (*n > 1)
        qsort(e, (size_t)*n, sizeof *e, cmp_edit);
    return e;
}

/* Apply sorted, non-overlapping edits to text in one forward pass. */
static char *apply_edits(const char *text, size_t len, const Edit *e, int n, size_t *out_len)
{
    size_t size = len + 1;
    for (int i = 0; i < n; i++)
        size += e[i].ins_len + e[i].space;
    char *out = xrealloc(NULL, size), *w = out;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        memcpy(w, text + at, e[i].off - at);
        w += e[i].off - at;
        if (e[i].space)
            *w++ = ' ';
        memcpy(w, e[i].ins, e[i].ins_len);
        w += e[i].ins_len;
        at = e[i].off + e[i].del;
    }
    memcpy(w, text + at, len - at);
    w += len - at;
    *w = 0;
    *out_len = (size_t)(w - out);
    return out;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0, k;
    do {
        if (n + 65536 > cap)
            buf = xrealloc(buf, cap = 2 * cap + 65536);
        k = fread(buf + n, 1, cap - n, f);
        n += k;
    } while (k > 0);
    fclose(f);
    *len = n;
    return buf;
}

/* -------------------------------------------------------- re-parse */

static int reparse_view(Spec *s, CXIndex idx, const char *text, size_t len, bool synthesis)
{
    HcArgv a;
    hc_argv_build(&a, s->rq->include_dirs, s->rq->n_include_dirs, s->rq->defines, s->rq->n_defines, synthesis);
    char *why = NULL;
    CXTranslationUnit tu = hc_parse(idx, s->rq->template_path, &a, text, len, false, &why);
    hc_argv_free(&a);
    char *diags = tu ? hc_diagnostics(tu, CXDiagnostic_Warning) : NULL;
    int rc = (!tu || diags) ? -1 : 0;
    if (rc)
        SPEC_ERR(s, "the specialized %s does not compile cleanly%s: %s", s->rq->prefix,
                 synthesis ? " with __SYNTHESIS__" : "", diags ? diags : why);
    free(why);
    free(diags);
    hc_tu_free(tu);
    return rc;
}

/* ------------------------------------------------------------- main */

static void spec_free(Spec *s)
{
    for (int i = 0; i < s->n_defs; i++)
        free(s->defs[i].name);
    free(s->defs);
    free(s->ren);
    view_reset(s);
}

/* the template with the request's values in place of the defaults */
static char *put_values(Spec *s, size_t *out_len)
{
    size_t len;
    char *text = read_file(s->rq->template_path, &len);
    if (!text) {
        SPEC_ERR(s, "cannot read the template %s", s->rq->template_path);
        return NULL;
    }
    int n;
    Edit *e = value_edits(s, &n);
    char *out = apply_edits(text, len, e, n, out_len);
    free(e);
    free(text);
    return out;
}

/* ----------------------------------------- template definitions cache */

typedef struct DefCache {
    uint64_t key;
    ParamDef *defs;
    int n_defs;
    struct DefCache *next;
} DefCache;

static DefCache *def_cache;
static pthread_mutex_t def_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* the template's text and every argument its parse takes (0 if unreadable) */
static uint64_t def_key(const Spec *s)
{
    size_t len;
    char *text = read_file(s->rq->template_path, &len);
    if (!text)
        return 0;
    uint64_t h = fnv(14695981039346656037ull, text, len);
    free(text);
    h = fnv(h, s->rq->template_path, strlen(s->rq->template_path) + 1);
    for (int i = 0; i < s->rq->n_include_dirs; i++)
        h = fnv(h, s->rq->include_dirs[i], strlen(s->rq->include_dirs[i]) + 1);
    h = fnv(h, "|", 1);
    for (int i = 0; i < s->rq->n_defines; i++)
        h = fnv(h, s->rq->defines[i], strlen(s->rq->defines[i]) + 1);
    return h ? h : 1;
}

static ParamDef *copy_defs(const ParamDef *d, int n)
{
    ParamDef *c = xrealloc(NULL, (size_t)n * sizeof *c);
    for (int i = 0; i < n; i++) {
        c[i] = d[i];
        c[i].name = strdup(d[i].name);
        if (!c[i].name)
            abort();
    }
    return c;
}

static bool defs_cached(Spec *s, uint64_t key)
{
    pthread_mutex_lock(&def_cache_lock);
    const DefCache *c = def_cache;
    while (c && c->key != key)
        c = c->next;
    if (c) {
        s->defs = copy_defs(c->defs, c->n_defs);
        s->n_defs = c->n_defs;
    }
    pthread_mutex_unlock(&def_cache_lock);
    return c != NULL;
}

static void defs_keep(const Spec *s, uint64_t key)
{
    DefCache *c = xrealloc(NULL, sizeof *c);
    c->key = key;
    c->defs = copy_defs(s->defs, s->n_defs);
    c->n_defs = s->n_defs;
    pthread_mutex_lock(&def_cache_lock);
    c->next = def_cache;
    def_cache = c;
    pthread_mutex_unlock(&def_cache_lock);
}

/* the template's O2H_P_ definitions, parsed in both views or kept */
static int template_defs(Spec *s, CXIndex idx)
{
    uint64_t key = def_key(s);
    if (key && defs_cached(s, key))
        return 0;
    if (parse_view(s, idx, NULL, 0, false) || parse_view(s, idx, NULL, 0, true))
        return -1;
    if (key)
        defs_keep(s, key);
    return 0;
}

static char *specialize(Spec *s, CXIndex idx)
{
    if (template_defs(s, idx))
        return NULL;
    check_template_params(s);
    check_request_params(s);
    size_t len, out_len;
    char *text = s->d->n_errors ? NULL : put_values(s, &len);
    if (!text)
        return NULL;
    for (int i = 0; i < s->n_defs; i++)    /* the renames come from the instance's own text */
        free(s->defs[i].name);
    s->n_defs = 0;
    if (parse_view(s, idx, text, len, false) || parse_view(s, idx, text, len, true)) {
        free(text);
        return NULL;
    }
    char pfx[256];
    snprintf(pfx, sizeof pfx, "%s_", s->rq->prefix);
    int n;
    Edit *e = rename_edits(s, pfx, &n);
    char *out = apply_edits(text, len, e, n, &out_len);
    free(e);
    free(text);
    if (reparse_view(s, idx, out, out_len, false) |
        (!s->rq->csim_check_only && reparse_view(s, idx, out, out_len, true))) {
        free(out);
        return NULL;
    }
    return out;
}

char *cg_hls_specialize(const CgHlsSpecRequest *rq, IrDiag *d)
{
    Spec s;
    memset(&s, 0, sizeof s);
    s.rq = rq;
    s.d = d;
    int errors = d->n_errors;
    d->n_errors = 0;
    char *out = NULL, *why = NULL;
    if (!rq->prefix || !is_identifier(rq->prefix) || strlen(rq->prefix) > 200) {
        SPEC_ERR(&s, "symbol prefix '%s' is not a C identifier", rq->prefix ? rq->prefix : "(null)");
    } else if (hc_load(&why)) {
        SPEC_ERR(&s, "%s", why);
        free(why);
    } else {
        CXIndex idx = hc_index();
        out = specialize(&s, idx);
        hc_index_free(idx);
    }
    d->n_errors += errors;
    spec_free(&s);
    return out;
}
