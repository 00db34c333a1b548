/* hls_lint_pragma.c - the lint's `#pragma HLS` rules (see hls_lint_int.h).
 *
 * The vocabulary is UG1399's pragma reference (Vitis HLS 2022.2-2025.2):
 * each directive with its options, the kind of value each takes, the bare
 * words it accepts (older spellings such as `INTERFACE m_axi port=x` or
 * `ARRAY_PARTITION cyclic`), the options it requires and where it may
 * stand. Values may use macros and enum constants: they are expanded with
 * the definitions libclang recorded and evaluated as integer constant
 * expressions. A pragma is placed by its byte offset against the function
 * bodies and loop bodies the AST pass recorded; its names are looked up in
 * the enclosing function, then at file scope. */
#include "hls_lint_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef enum { K_INT, K_NAME, K_ENUM, K_BOOL, K_ANY } KeyKind;

typedef struct {
    const char *key;
    KeyKind kind;
    const char *values;          /* K_ENUM: "a|b|c" */
} KeySpec;

typedef enum {
    W_FN,                        /* anywhere in a function body */
    W_LOOP,                      /* in a loop body */
    W_PIPE,                      /* in a loop body, or at a function body's top level */
    W_TOP,                       /* at a function body's top level, outside loops */
    W_REGION,                    /* directly in a function or loop body (a DATAFLOW region) */
} Where;

typedef struct {
    const char *name;
    const KeySpec *keys;
    const char *bare;            /* bare words accepted besides K_BOOL keys, "a|b" */
    const char *required;        /* "variable" etc., "" if none */
    Where where;
} DirSpec;

#define MODES "ap_none|ap_stable|ap_vld|ap_ack|ap_hs|ap_ovld|ap_memory|bram|ap_fifo|axis|m_axi|s_axilite|" \
              "ap_ctrl_chain|ap_ctrl_hs|ap_ctrl_none"
#define END {NULL, K_ANY, NULL}

static const KeySpec k_pipeline[] = {{"II", K_INT, NULL}, {"off", K_BOOL, NULL}, {"rewind", K_BOOL, NULL},
                                     {"style", K_ENUM, "stp|frp|flp"}, {"enable_flush", K_BOOL, NULL}, END};
static const KeySpec k_unroll[] = {{"factor", K_INT, NULL}, {"off", K_BOOL, NULL}, {"skip_exit_check", K_BOOL, NULL}, END};
static const KeySpec k_partition[] = {{"variable", K_NAME, NULL}, {"type", K_ENUM, "cyclic|block|complete"},
                                      {"factor", K_INT, NULL}, {"dim", K_INT, NULL}, {"off", K_BOOL, NULL}, END};
static const KeySpec k_reshape[] = {{"variable", K_NAME, NULL}, {"type", K_ENUM, "cyclic|block|complete|object"},
                                    {"factor", K_INT, NULL}, {"dim", K_INT, NULL}, {"off", K_BOOL, NULL}, END};
static const KeySpec k_stream[] = {{"variable", K_NAME, NULL}, {"depth", K_INT, NULL},
                                   {"type", K_ENUM, "fifo|pipo|shared|unsync"}, {"off", K_BOOL, NULL}, END};
static const KeySpec k_interface[] = {
    {"mode", K_ENUM, MODES}, {"port", K_NAME, NULL}, {"bundle", K_ANY, NULL}, {"depth", K_INT, NULL},
    {"offset", K_ENUM, "off|direct|slave"}, {"latency", K_INT, NULL}, {"max_read_burst_length", K_INT, NULL},
    {"max_write_burst_length", K_INT, NULL}, {"num_read_outstanding", K_INT, NULL},
    {"num_write_outstanding", K_INT, NULL}, {"max_widen_bitwidth", K_INT, NULL}, {"channel", K_INT, NULL},
    {"clock", K_ANY, NULL}, {"name", K_ANY, NULL}, {"register", K_BOOL, NULL},
    {"register_mode", K_ENUM, "both|forward|reverse|off"}, {"storage_type", K_ANY, NULL},
    {"storage_impl", K_ANY, NULL}, {"direct_io", K_BOOL, NULL}, {"interrupt", K_INT, NULL}, END};
static const KeySpec k_dataflow[] = {{"disable_start_propagation", K_BOOL, NULL}, END};
static const KeySpec k_inline[] = {{"off", K_BOOL, NULL}, {"recursive", K_BOOL, NULL}, END};
static const KeySpec k_tripcount[] = {{"min", K_INT, NULL}, {"max", K_INT, NULL}, {"avg", K_INT, NULL}, END};
static const KeySpec k_bind_storage[] = {
    {"variable", K_NAME, NULL},
    {"type", K_ENUM, "fifo|ram_1p|ram_1wnr|ram_2p|ram_s2p|ram_t2p|rom_1p|rom_2p|rom_np"},
    {"impl", K_ENUM, "auto|bram|bram_ecc|lutram|uram|uram_ecc|srl|memory"}, {"latency", K_INT, NULL}, END};
static const KeySpec k_bind_op[] = {{"variable", K_NAME, NULL}, {"op", K_ANY, NULL}, {"impl", K_ANY, NULL},
                                    {"latency", K_INT, NULL}, END};
static const KeySpec k_off[] = {{"off", K_BOOL, NULL}, END};
static const KeySpec k_merge[] = {{"force", K_BOOL, NULL}, END};
static const KeySpec k_dependence[] = {
    {"variable", K_NAME, NULL}, {"class", K_ENUM, "array|pointer"}, {"type", K_ENUM, "inter|intra"},
    {"direction", K_ENUM, "raw|war|waw"}, {"distance", K_INT, NULL}, {"dependent", K_BOOL, NULL}, END};
static const KeySpec k_latency[] = {{"min", K_INT, NULL}, {"max", K_INT, NULL}, END};
static const KeySpec k_allocation[] = {{"instances", K_ANY, NULL}, {"limit", K_INT, NULL},
                                       {"type", K_ENUM, "function|operation"}, END};
static const KeySpec k_variable[] = {{"variable", K_NAME, NULL}, END};
static const KeySpec k_occurrence[] = {{"cycle", K_INT, NULL}, {"off", K_BOOL, NULL}, END};
static const KeySpec k_protocol[] = {{"mode", K_ENUM, "fixed|floating"}, END};
static const KeySpec k_reset[] = {{"variable", K_NAME, NULL}, {"off", K_BOOL, NULL}, END};
static const KeySpec k_aggregate[] = {{"variable", K_NAME, NULL}, {"compact", K_ENUM, "bit|byte|none|auto"}, END};
static const KeySpec k_top[] = {{"name", K_ANY, NULL}, END};
static const KeySpec k_alias[] = {{"ports", K_ANY, NULL}, {"distance", K_INT, NULL}, {"offset", K_ANY, NULL}, END};
static const KeySpec k_cache[] = {{"port", K_NAME, NULL}, {"lines", K_INT, NULL}, {"depth", K_INT, NULL},
                                  {"ports", K_INT, NULL}, {"l2_lines", K_INT, NULL}, END};
static const KeySpec k_performance[] = {{"target_ti", K_ANY, NULL}, {"target_tl", K_ANY, NULL},
                                        {"unit", K_ENUM, "sec|cycle"}, END};
static const KeySpec k_stencil[] = {{"variable", K_NAME, NULL}, {"off", K_BOOL, NULL}, END};

static const DirSpec dirs[] = {
    {"PIPELINE", k_pipeline, "", "", W_PIPE},
    {"UNROLL", k_unroll, "", "", W_LOOP},
    {"ARRAY_PARTITION", k_partition, "cyclic|block|complete", "variable", W_FN},
    {"ARRAY_RESHAPE", k_reshape, "cyclic|block|complete|object", "variable", W_FN},
    {"STREAM", k_stream, "", "variable", W_FN},
    {"INTERFACE", k_interface, MODES, "", W_TOP},
    {"DATAFLOW", k_dataflow, "", "", W_REGION},
    {"INLINE", k_inline, "", "", W_FN},
    {"LOOP_TRIPCOUNT", k_tripcount, "", "max", W_LOOP},
    {"BIND_STORAGE", k_bind_storage, "", "variable|type", W_FN},
    {"BIND_OP", k_bind_op, "", "variable|op", W_FN},
    {"LOOP_FLATTEN", k_off, "", "", W_LOOP},
    {"LOOP_MERGE", k_merge, "", "", W_FN},
    {"DEPENDENCE", k_dependence, "array|pointer|inter|intra|raw|war|waw|true|false", "", W_FN},
    {"LATENCY", k_latency, "", "", W_FN},
    {"ALLOCATION", k_allocation, "function|operation", "", W_FN},
    {"EXPRESSION_BALANCE", k_off, "", "", W_FN},
    {"FUNCTION_INSTANTIATE", k_variable, "", "variable", W_FN},
    {"OCCURRENCE", k_occurrence, "", "", W_FN},
    {"PROTOCOL", k_protocol, "fixed|floating", "", W_FN},
    {"RESET", k_reset, "", "variable", W_FN},
    {"STABLE", k_variable, "", "variable", W_FN},
    {"AGGREGATE", k_aggregate, "", "variable", W_FN},
    {"DISAGGREGATE", k_variable, "", "variable", W_FN},
    {"TOP", k_top, "", "", W_FN},
    {"ALIAS", k_alias, "", "ports", W_FN},
    {"CACHE", k_cache, "", "port", W_FN},
    {"PERFORMANCE", k_performance, "", "", W_FN},
    {"ARRAY_STENCIL", k_stencil, "", "variable", W_FN},
};

/* ------------------------------------------------------------ helpers */

/* s is one of the '|'-separated words of list (ASCII case ignored) */
static bool in_words(const char *list, const char *s, size_t n)
{
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, "|");
        if (k == n && !strncasecmp(p, s, n))
            return true;
        p += k + (p[k] == '|');
    }
    return false;
}

static const DirSpec *dir_spec(const HcTokens *t, unsigned tok)
{
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (hc_tok_is_nocase(t, tok, dirs[i].name))
            return &dirs[i];
    return NULL;
}

static const KeySpec *key_spec(const DirSpec *d, const HcTokens *t, unsigned tok)
{
    for (const KeySpec *k = d->keys; k->key; k++)
        if (hc_tok_is_nocase(t, tok, k->key))
            return k;
    return NULL;
}

/* the option of p named key, NULL if absent */
static const HcPragmaOpt *opt_get(const LintFile *f, const HcPragma *p, const char *key)
{
    for (int i = 0; i < p->n_opt; i++)
        if (p->opt[i].n_val && hc_tok_is_nocase(&f->tok, p->opt[i].key, key))
            return &p->opt[i];
    return NULL;
}

/* a bare word of p that is in list, NULL if none */
static const HcPragmaOpt *bare_get(const LintFile *f, const HcPragma *p, const char *list)
{
    for (int i = 0; i < p->n_opt; i++) {
        unsigned k = p->opt[i].key;
        if (!p->opt[i].n_val && in_words(list, f->tok.text + f->tok.off[k], f->tok.end[k] - f->tok.off[k]))
            return &p->opt[i];
    }
    return NULL;
}

/* the value's text, malloc'd */
static char *val_text(const LintFile *f, const HcPragmaOpt *o)
{
    unsigned a = f->tok.off[o->val], b = f->tok.end[o->val + o->n_val - 1];
    char *s = lint_realloc(NULL, b - a + 1);
    memcpy(s, f->tok.text + a, b - a);
    s[b - a] = 0;
    return s;
}

static char *tok_text(const LintFile *f, unsigned k)
{
    return hc_tok_dup(&f->tok, k);
}

/* --------------------------------------------- macro expansion, values */

typedef struct {
    char **v;
    int n;
} Toks;

static void toks_push(Toks *t, char *s)
{
    LINT_PUSH(t->v, t->n, s);
}

static void toks_free(Toks *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    t->v = NULL;
    t->n = 0;
}

/* the definition of name in effect at offset off of file f: the last one
 * before it in f, else the last one from another file */
static const LintMacro *find_macro(const Lint *L, const char *name, const LintFile *f, unsigned off)
{
    const LintMacro *best = NULL;
    for (int i = 0; i < L->n_macros; i++) {
        const LintMacro *m = &L->macros[i];
        bool same = f && clang_File_isEqual(m->file, f->file);
        if (!strcmp(m->name, name) && (!same || m->off < off))
            best = m;
    }
    return best;
}

static bool find_enum(const Lint *L, const char *name, long long *v)
{
    for (int i = L->n_enums - 1; i >= 0; i--)
        if (!strcmp(L->enums[i].name, name)) {
            *v = L->enums[i].value;
            return true;
        }
    return false;
}

static bool expand(Lint *L, const LintFile *f, unsigned a, unsigned b, Toks *out, int depth);

static bool expand_macro(Lint *L, const LintMacro *m, Toks *out, int depth)
{
    LintFile *mf = lint_file(L, m->file);
    if (!mf || clang_Cursor_isMacroFunctionLike(m->cur) || depth > 16)
        return false;
    unsigned k0 = hc_tok_at(&mf->tok, m->off);
    unsigned end = hc_offset(clang_getRangeEnd(clang_getCursorExtent(m->cur)));
    return expand(L, mf, k0 + 1, hc_tok_at(&mf->tok, end), out, depth + 1);
}

/* tokens [a, b) of f with object-like macros and enum constants replaced */
static bool expand(Lint *L, const LintFile *f, unsigned a, unsigned b, Toks *out, int depth)
{
    for (unsigned k = a; k < b; k++) {
        char *s = tok_text(f, k);
        long long ev;
        const LintMacro *m = hc_tok_ident(&f->tok, k) ? find_macro(L, s, f, f->tok.off[k]) : NULL;
        if (m) {
            free(s);
            if (!expand_macro(L, m, out, depth))
                return false;
        } else if (hc_tok_ident(&f->tok, k) && find_enum(L, s, &ev)) {
            char buf[32];
            snprintf(buf, sizeof buf, "%lld", ev);
            free(s);
            toks_push(out, lint_strdup(buf));
        } else {
            toks_push(out, s);
        }
    }
    return true;
}

/* integer constant expressions over expanded tokens */
typedef struct {
    const Toks *t;
    int i;
} Ev;

static const char *ev_peek(const Ev *e)
{
    return e->i < e->t->n ? e->t->v[e->i] : "";
}

static bool ev_expr(Ev *e, long long *v);

static bool ev_number(const char *s, long long *v)
{
    char *end;
    if (!isdigit((unsigned char)s[0]))
        return false;
    *v = strtoll(s, &end, 0);
    while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
        end++;
    return *end == 0;
}

static bool ev_unary(Ev *e, long long *v)
{
    const char *s = ev_peek(e);
    e->i++;
    if (!strcmp(s, "(")) {
        bool ok = ev_expr(e, v) && !strcmp(ev_peek(e), ")");
        e->i++;
        return ok;
    }
    if (!strcmp(s, "-") || !strcmp(s, "+") || !strcmp(s, "~") || !strcmp(s, "!")) {
        if (!ev_unary(e, v))
            return false;
        *v = s[0] == '-' ? -*v : s[0] == '~' ? ~*v : s[0] == '!' ? !*v : *v;
        return true;
    }
    return ev_number(s, v);
}

static int ev_prec(const char *op)
{
    static const char *const ops[][4] = {{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="},
                                         {"<", ">", "<=", ">="}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
    for (int p = 0; p < 10; p++)
        for (int j = 0; j < 4 && ops[p][j]; j++)
            if (!strcmp(op, ops[p][j]))
                return p + 1;
    return 0;
}

static bool ev_apply(const char *op, long long a, long long b, long long *v)
{
    if ((op[0] == '/' || op[0] == '%') && b == 0)
        return false;
    if ((!strcmp(op, "<<") || !strcmp(op, ">>")) && (b < 0 || b > 62))
        return false;
    switch (op[0]) {
    case '|': *v = op[1] ? (a || b) : (a | b); return true;
    case '&': *v = op[1] ? (a && b) : (a & b); return true;
    case '^': *v = a ^ b; return true;
    case '=': *v = a == b; return true;
    case '!': *v = a != b; return true;
    case '<': *v = op[1] == '<' ? a << b : op[1] ? a <= b : a < b; return true;
    case '>': *v = op[1] == '>' ? a >> b : op[1] ? a >= b : a > b; return true;
    case '+': *v = a + b; return true;
    case '-': *v = a - b; return true;
    case '*': *v = a * b; return true;
    case '/': *v = a / b; return true;
    default: *v = a % b; return true;
    }
}

static bool ev_binary(Ev *e, int min_prec, long long *v)
{
    if (!ev_unary(e, v))
        return false;
    for (;;) {
        const char *op = ev_peek(e);
        int p = ev_prec(op);
        if (!p || p < min_prec)
            return true;
        e->i++;
        long long r;
        if (!ev_binary(e, p + 1, &r) || !ev_apply(op, *v, r, v))
            return false;
    }
}

static bool ev_expr(Ev *e, long long *v)
{
    if (!ev_binary(e, 1, v))
        return false;
    if (strcmp(ev_peek(e), "?"))
        return true;
    e->i++;
    long long a, b;
    if (!ev_expr(e, &a) || strcmp(ev_peek(e), ":"))
        return false;
    e->i++;
    if (!ev_expr(e, &b))
        return false;
    *v = *v ? a : b;
    return true;
}

bool lint_eval(Lint *L, const LintFile *f, unsigned a, unsigned b, long long *v)
{
    Toks t = {NULL, 0};
    bool ok = expand(L, f, a, b, &t, 0) && t.n > 0;
    Ev e = {&t, 0};
    ok = ok && ev_expr(&e, v) && e.i == t.n;
    toks_free(&t);
    return ok;
}

/* the value of an enumerated option after expansion: one word, else NULL */
static char *word_value(Lint *L, const LintFile *f, const HcPragmaOpt *o)
{
    Toks t = {NULL, 0};
    char *w = NULL;
    if (expand(L, f, o->val, o->val + o->n_val, &t, 0) && t.n == 1) {
        w = t.v[0];
        t.n = 0;
    }
    toks_free(&t);
    return w;
}

/* ------------------------------------------------------------ one pragma */

typedef struct {
    Lint *L;
    LintFile *f;
    const HcPragma *p;
    const DirSpec *d;
    int scope;                   /* enclosing function body, -1 */
    int loop;                    /* innermost enclosing loop body, -1 */
    LintLoc at;
} Prag;

static void prag_find(Prag *P, const char *rule, const char *fmt, const char *a, const char *b)
{
    lint_find(P->L, &P->at, rule, fmt, a, b);
}

static int find_scope(const LintFile *f, unsigned o)
{
    for (int i = 0; i < f->n_scopes; i++)
        if (o >= f->scopes[i].off && o < f->scopes[i].end)
            return i;
    return -1;
}

static int find_loop(const LintFile *f, unsigned o)
{
    int best = -1;
    for (int i = 0; i < f->n_loops; i++)
        if (o >= f->loops[i].body_off && o < f->loops[i].body_end &&
            (best < 0 || f->loops[i].body_off > f->loops[best].body_off))
            best = i;
    return best;
}

static bool top_level(const LintScope *s, unsigned o)
{
    for (int i = 0; i < s->n_stmt; i++)
        if (o >= s->stmt[2 * i] && o < s->stmt[2 * i + 1])
            return false;
    return true;
}

static void check_value(Prag *P, const HcPragmaOpt *o, const KeySpec *k)
{
    char *key = tok_text(P->f, o->key), *v = o->n_val ? val_text(P->f, o) : NULL, *w = NULL;
    long long n;
    if (k->kind == K_INT && (!lint_eval(P->L, P->f, o->val, o->val + o->n_val, &n) || n < 0))
        prag_find(P, "pragma-value", "%s=%s is not a non-negative integer constant", key, v);
    else if (k->kind == K_ENUM && (!(w = word_value(P->L, P->f, o)) || !in_words(k->values, w, strlen(w))))
        lint_find(P->L, &P->at, "pragma-syntax", "%s=%s: expected one of %s", key, v, k->values);
    else if (k->kind == K_BOOL && (!(w = word_value(P->L, P->f, o)) || !in_words("true|false|1|0", w, strlen(w))))
        prag_find(P, "pragma-syntax", "%s=%s: expected true or false", key, v);
    else if (k->kind == K_NAME && !hc_tok_ident(&P->f->tok, o->val))
        prag_find(P, "pragma-syntax", "%s=%s: expected a name", key, v);
    free(key);
    free(v);
    free(w);
}

static void check_option(Prag *P, const HcPragmaOpt *o)
{
    const KeySpec *k = key_spec(P->d, &P->f->tok, o->key);
    const HcTokens *t = &P->f->tok;
    char *key = tok_text(P->f, o->key);
    if (!o->n_val && !(k && k->kind == K_BOOL) && !in_words(P->d->bare, t->text + t->off[o->key], strlen(key)))
        prag_find(P, "pragma-syntax", "unknown word '%s' in #pragma HLS %s", key, P->d->name);
    else if (o->n_val && !k)
        prag_find(P, "pragma-syntax", "unknown option '%s=' of #pragma HLS %s", key, P->d->name);
    else if (o->n_val)
        check_value(P, o, k);
    free(key);
}

static void check_required(Prag *P)
{
    for (const char *r = P->d->required; *r;) {
        size_t n = strcspn(r, "|");
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)n, r);
        if (!opt_get(P->f, P->p, key))
            prag_find(P, "pragma-syntax", "#pragma HLS %s needs %s=", P->d->name, key);
        r += n + (r[n] == '|');
    }
}

/* directive, options and values; false if the directive is unknown */
static bool check_syntax(Prag *P)
{
    const HcTokens *t = &P->f->tok;
    if (P->p->dir >= P->p->end) {
        prag_find(P, "pragma-syntax", "#pragma HLS without a directive%s%s", "", "");
        return false;
    }
    P->d = dir_spec(t, P->p->dir);
    if (!P->d) {
        char *s = tok_text(P->f, P->p->dir);
        prag_find(P, "pragma-syntax", "unknown directive '%s' in #pragma HLS%s", s, "");
        free(s);
        return false;
    }
    if (P->p->malformed)
        prag_find(P, "pragma-syntax", "#pragma HLS %s: an option is not key or key=value%s", P->d->name, "");
    for (int i = 0; i < P->p->n_opt; i++)
        check_option(P, &P->p->opt[i]);
    check_required(P);
    return true;
}

static void check_placement(Prag *P)
{
    const char *name = P->d->name;
    unsigned o = P->f->tok.off[P->p->hash];
    const LintScope *s = P->scope >= 0 ? &P->f->scopes[P->scope] : NULL;
    if (!s) {
        prag_find(P, "pragma-placement", "#pragma HLS %s outside a function body%s", name, "");
        return;
    }
    bool loop = P->loop >= 0, top = top_level(s, o);
    if (P->d->where == W_LOOP && !loop)
        prag_find(P, "pragma-placement", "#pragma HLS %s must be inside a loop body%s", name, "");
    else if (P->d->where == W_PIPE && !loop && !top)
        prag_find(P, "pragma-placement", "#pragma HLS %s must be inside a loop body or at the top of a function body%s", name, "");
    else if (P->d->where == W_TOP && (loop || !top))
        prag_find(P, "pragma-placement", "#pragma HLS %s must be at the top level of the function body%s", name, "");
    else if (P->d->where == W_REGION && !P->f->region_prag[P->p - P->f->prag])
        prag_find(P, "pragma-placement", "#pragma HLS %s must be directly in a function body or a loop body%s", name, "");
}

/* a variable named by a pragma: the enclosing function's, else file scope */
static const LintVar *lookup(const Prag *P, const char *name)
{
    if (P->scope >= 0) {
        const LintScope *s = &P->f->scopes[P->scope];
        for (int i = s->n_vars - 1; i >= 0; i--)
            if (!strcmp(s->vars[i].name, name))
                return &s->vars[i];
    }
    for (int i = 0; i < P->L->n_globals; i++)
        if (!strcmp(P->L->globals[i].name, name))
            return &P->L->globals[i];
    return NULL;
}

static void check_names(Prag *P)
{
    for (int i = 0; i < P->p->n_opt; i++) {
        const HcPragmaOpt *o = &P->p->opt[i];
        const KeySpec *k = o->n_val ? key_spec(P->d, &P->f->tok, o->key) : NULL;
        if (!k || k->kind != K_NAME || !hc_tok_ident(&P->f->tok, o->val))
            continue;
        char *key = tok_text(P->f, o->key), *name = tok_text(P->f, o->val);
        const LintVar *v = lookup(P, name);
        bool port = !strcasecmp(key, "port");
        if (port && !strcmp(name, "return"))
            ;
        else if (!v)
            prag_find(P, "pragma-name", "%s=%s names no variable in scope", key, name);
        else if (port && !v->param)
            prag_find(P, "pragma-name", "port=%s is not a parameter of the enclosing function%s", name, "");
        free(key);
        free(name);
    }
}

/* -------------------------------------------------------- factors */

static bool opt_int(Prag *P, const char *key, long long *v)
{
    const HcPragmaOpt *o = opt_get(P->f, P->p, key);
    return o && lint_eval(P->L, P->f, o->val, o->val + o->n_val, v);
}

static void check_unroll(Prag *P)
{
    if (P->loop < 0 || bare_get(P->f, P->p, "off") || opt_get(P->f, P->p, "off"))
        return;
    const LintLoop *lp = &P->f->loops[P->loop];
    long long f;
    char a[64], b[96];
    bool has = opt_int(P, "factor", &f);
    if (!has && !opt_get(P->f, P->p, "factor") && lp->trip < 0) {
        snprintf(a, sizeof a, "%u", lp->at.line);
        prag_find(P, "unroll-factor", "full UNROLL of the loop at line %s, whose trip count is not a constant%s", a, "");
    } else if (has && f > 0 && lp->trip >= 0 && lp->trip % f) {
        snprintf(a, sizeof a, "%lld", f);
        snprintf(b, sizeof b, "%lld of the loop at line %u", lp->trip, lp->at.line);
        prag_find(P, "unroll-factor", "factor=%s does not divide the trip count %s", a, b);
    }
}

static void check_partition(Prag *P)
{
    const HcPragmaOpt *v = opt_get(P->f, P->p, "variable"), *t = opt_get(P->f, P->p, "type");
    char *type = t ? word_value(P->L, P->f, t) : NULL, *name = v ? tok_text(P->f, v->val) : NULL;
    const HcPragmaOpt *bare = bare_get(P->f, P->p, "cyclic|block");
    const LintVar *var = name ? lookup(P, name) : NULL;
    long long f = 0, dim = 1;
    bool split = (type && in_words("cyclic|block", type, strlen(type))) || (!t && bare);
    if (var && opt_int(P, "dim", &dim) && dim > var->n_dims && var->n_dims > 0) {
        char a[96];
        snprintf(a, sizeof a, "dim=%lld but %s has %d dimension(s)", dim, name, var->n_dims);
        prag_find(P, "partition-factor", "%s%s", a, "");
    } else if (var && split && opt_int(P, "factor", &f) && f > 0) {
        for (int d = 0; d < var->n_dims; d++) {
            if ((dim && d != dim - 1) || var->dims[d] <= 0 || var->dims[d] % f == 0)
                continue;
            char a[64], b[160];
            snprintf(a, sizeof a, "%lld", f);
            snprintf(b, sizeof b, "dimension %d of %s (%lld elements)", d + 1, name, var->dims[d]);
            prag_find(P, "partition-factor", "factor=%s does not divide %s", a, b);
        }
    }
    free(type);
    free(name);
}

/* ------------------------------------------------------ INTERFACE */

typedef struct {
    int scope;
    const HcPragma *p;
    char *mode, *port, *bundle, *opts;
    LintLoc at;
} Iface;

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the options that must agree within a bundle, as sorted "key=value" */
static char *iface_opts(const LintFile *f, const HcPragma *p)
{
    char *items[64];
    int n = 0;
    size_t len = 1;
    for (int i = 0; i < p->n_opt && n < 64; i++) {
        const HcPragmaOpt *o = &p->opt[i];
        char *key = tok_text(f, o->key);
        for (char *c = key; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        if (!strcmp(key, "port") || !strcmp(key, "bundle") || !strcmp(key, "mode") || in_words(MODES, key, strlen(key))) {
            free(key);
            continue;
        }
        char *v = o->n_val ? val_text(f, o) : lint_strdup("");
        size_t k = strlen(key) + strlen(v) + 2;
        items[n] = lint_realloc(NULL, k);
        snprintf(items[n], k, "%s%s%s", key, o->n_val ? "=" : "", v);
        len += k;
        n++;
        free(key);
        free(v);
    }
    qsort(items, (size_t)n, sizeof *items, cmp_cstr);
    char *s = lint_realloc(NULL, len);
    s[0] = 0;
    for (int i = 0; i < n; i++) {
        strcat(s, i ? " " : "");
        strcat(s, items[i]);
        free(items[i]);
    }
    return s;
}

static Iface make_iface(Lint *L, LintFile *f, const HcPragma *p, int scope)
{
    Iface x = {scope, p, NULL, NULL, NULL, NULL, lint_tok_loc(f, p->hash)};
    const HcPragmaOpt *m = opt_get(f, p, "mode"), *port = opt_get(f, p, "port"), *b = opt_get(f, p, "bundle");
    const HcPragmaOpt *bm = bare_get(f, p, MODES);
    x.mode = m ? word_value(L, f, m) : bm ? tok_text(f, bm->key) : NULL;
    x.port = port ? val_text(f, port) : lint_strdup("");
    x.bundle = b ? val_text(f, b) : lint_strdup("gmem");
    x.opts = iface_opts(f, p);
    return x;
}

static void iface_free(Iface *v, int n)
{
    for (int i = 0; i < n; i++) {
        free(v[i].mode), free(v[i].port), free(v[i].bundle), free(v[i].opts);
        lint_loc_free(&v[i].at);
    }
    free(v);
}

static bool is_maxi(const Iface *x)
{
    return x->mode && !strcasecmp(x->mode, "m_axi");
}

static void note_interface(Lint *L, const LintFile *f, const Iface *x)
{
    const char *key = f->scopes[x->scope].fn_key;
    for (int i = 0; i < L->n_fns; i++)
        if (!strcmp(L->fns[i].key, key)) {
            LintLoc at = {lint_strdup(x->at.file), x->at.line, x->at.col};
            LINT_PUSH(L->fns[i].interface_at, L->fns[i].n_interface, at);
        }
}

static void check_interfaces(Lint *L, const LintFile *f, const Iface *v, int n)
{
    for (int i = 0; i < n; i++) {
        note_interface(L, f, &v[i]);
        if (!v[i].mode)
            lint_find(L, &v[i].at, "pragma-syntax", "#pragma HLS INTERFACE without a mode");
        if (!is_maxi(&v[i]))
            continue;
        if (!strstr(v[i].opts, "depth="))
            lint_find(L, &v[i].at, "interface-depth",
                      "m_axi port %s has no depth= (C/RTL co-simulation needs the number of elements behind it)", v[i].port);
        for (int j = 0; j < i; j++)
            if (v[j].scope == v[i].scope && is_maxi(&v[j]) && !strcmp(v[j].bundle, v[i].bundle) &&
                strcmp(v[j].opts, v[i].opts)) {
                lint_find(L, &v[i].at, "interface-bundle",
                          "port %s of m_axi bundle %s has options '%s' but port %s (line %u) has '%s': ports of one bundle need identical options",
                          v[i].port, v[i].bundle, v[i].opts, v[j].port, v[j].at.line, v[j].opts);
                break;
            }
    }
}

/* ARRAY_PARTITION / ARRAY_RESHAPE of an m_axi port (Vitis refuses them) */
static void check_partition_maxi(Prag *P, const Iface *v, int n)
{
    const HcPragmaOpt *o = opt_get(P->f, P->p, "variable");
    if (!o)
        return;
    char *name = tok_text(P->f, o->val);
    for (int i = 0; i < n; i++)
        if (v[i].scope == P->scope && is_maxi(&v[i]) && !strcmp(v[i].port, name)) {
            prag_find(P, "partition-maxi", "#pragma HLS %s of %s, an m_axi port: partition a local copy instead", P->d->name, name);
            break;
        }
    free(name);
}

/* ------------------------------------------------------------ driver */

static Prag prag_at(Lint *L, LintFile *f, int i)
{
    unsigned o = f->tok.off[f->prag[i].hash];
    Prag P = {L, f, &f->prag[i], NULL, find_scope(f, o), find_loop(f, o), lint_tok_loc(f, f->prag[i].hash)};
    return P;
}

static void check_pragma(Prag *P, const Iface *ifs, int n_ifs, unsigned char *has_tc)
{
    if (!check_syntax(P))
        return;
    check_placement(P);
    check_names(P);
    const char *d = P->d->name;
    if (!strcmp(d, "UNROLL"))
        check_unroll(P);
    else if (!strcmp(d, "ARRAY_PARTITION") || !strcmp(d, "ARRAY_RESHAPE")) {
        check_partition(P);
        check_partition_maxi(P, ifs, n_ifs);
    } else if (!strcmp(d, "LOOP_TRIPCOUNT") && P->loop >= 0)
        has_tc[P->loop] = 1;
}

static void check_tripcounts(Lint *L, const LintFile *f, const unsigned char *has_tc)
{
    for (int i = 0; i < f->n_loops; i++)
        if (f->loops[i].trip < 0 && !has_tc[i])
            lint_find(L, &f->loops[i].at, "tripcount",
                      "loop with a variable trip count: add #pragma HLS LOOP_TRIPCOUNT max= in its body");
}

static void lint_file_pragmas(Lint *L, LintFile *f)
{
    Iface *ifs = NULL;
    int n_ifs = 0;
    for (int i = 0; i < f->n_prag; i++) {
        const HcPragma *p = &f->prag[i];
        int scope = find_scope(f, f->tok.off[p->hash]);
        if (p->dir < p->end && hc_tok_is_nocase(&f->tok, p->dir, "INTERFACE") && scope >= 0)
            LINT_PUSH(ifs, n_ifs, make_iface(L, f, p, scope));
    }
    unsigned char *has_tc = lint_realloc(NULL, (size_t)f->n_loops + 1);
    memset(has_tc, 0, (size_t)f->n_loops + 1);
    for (int i = 0; i < f->n_prag; i++) {
        Prag P = prag_at(L, f, i);
        check_pragma(&P, ifs, n_ifs, has_tc);
        lint_loc_free(&P.at);
    }
    check_interfaces(L, f, ifs, n_ifs);
    check_tripcounts(L, f, has_tc);
    free(has_tc);
    iface_free(ifs, n_ifs);
}

void lint_pragmas(Lint *L)
{
    for (int i = 0; i < L->n_files; i++)
        if (L->files[i]->name)
            lint_file_pragmas(L, L->files[i]);
}
