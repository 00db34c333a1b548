/* hls_lint_ast.c - the lint's pass over one translation unit's AST (see
 * hls_lint_int.h): the call, type and loop rules, and what the later checks
 * need - function summaries (callees, which pointer parameters are read or
 * written, parameters handed on to callees), the scopes and loops that
 * place pragmas, the variables pragmas may name, enum constants and macros
 * for pragma values, and the DATAFLOW regions.
 *
 * The walk keeps one piece of context: whether the expression being
 * descended is the target of an assignment (`p[i] = ...`, `*p += ...`,
 * `p[i]++`), so a reference to a pointer parameter counts as a write there
 * and as a read anywhere else. Operators come from the token stream: clang
 * 14's C API does not name the operator of a BinaryOperator. */
#include "hls_lint_int.h"

#include <stdlib.h>
#include <string.h>

static const char *const heap_fns[] = {"malloc", "calloc", "realloc", "free", "aligned_alloc",
                                       "posix_memalign", "memalign", "valloc", "alloca", NULL};
static const char *const io_fns[] = {
    "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsprintf", "vsnprintf", "puts",
    "fputs", "putchar", "fputc", "putc", "getchar", "getc", "fgetc", "fgets", "scanf", "fscanf", "sscanf",
    "fopen", "fclose", "fread", "fwrite", "fseek", "ftell", "rewind", "fflush", "remove", "rename",
    "tmpfile", "perror", "exit", "abort", "_Exit", "quick_exit", "atexit", "system", "getenv", "time",
    "clock", "clock_gettime", "open", "close", "read", "write", "sleep", "usleep", "signal", "raise",
    NULL};

typedef struct {
    Lint *L;
    LintFn *fn;                  /* function being walked */
    CXCursor fn_cur;
    unsigned char *is_ptr;       /* per parameter: pointer or array */
    LintFile *file;              /* file of its body */
    int scope;                   /* its LintScope in file */
} Walk;

typedef struct {
    CXCursor *v;
    int n;
} Kids;

static enum CXChildVisitResult kid_cb(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    Kids *k = d;
    LINT_PUSH(k->v, k->n, c);
    return CXChildVisit_Continue;
}

static Kids kids(CXCursor c)
{
    Kids k = {NULL, 0};
    clang_visitChildren(c, kid_cb, &k);
    return k;
}

static bool in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (!strcmp(*list, s))
            return true;
    return false;
}

static CXFile cursor_file(CXCursor c, unsigned *off)
{
    CXFile f = NULL;
    clang_getSpellingLocation(clang_getCursorLocation(c), &f, NULL, NULL, off);
    return f;
}

static unsigned ext_off(CXCursor c)
{
    return hc_offset(clang_getRangeStart(clang_getCursorExtent(c)));
}

static unsigned ext_end(CXCursor c)
{
    return hc_offset(clang_getRangeEnd(clang_getCursorExtent(c)));
}

/* ------------------------------------------------------------ tokens */

/* the token starting at or after the end of c, in c's file (0 if none) */
static bool tok_after(Lint *L, CXCursor c, const char *s)
{
    CXFile f = NULL;
    unsigned off = 0;
    clang_getSpellingLocation(clang_getRangeEnd(clang_getCursorExtent(c)), &f, NULL, NULL, &off);
    LintFile *lf = lint_file(L, f);
    return lf && hc_tok_is(&lf->tok, hc_tok_at(&lf->tok, off), s);
}

/* the first or last token of c's extent is s */
static bool tok_edge(Lint *L, CXCursor c, const char *s, bool last)
{
    CXFile f = NULL;
    unsigned a = 0, b = 0;
    CXSourceRange r = clang_getCursorExtent(c);
    clang_getSpellingLocation(clang_getRangeStart(r), &f, NULL, NULL, &a);
    b = hc_offset(clang_getRangeEnd(r));
    LintFile *lf = lint_file(L, f);
    if (!lf)
        return false;
    unsigned k = hc_tok_at(&lf->tok, last ? b : a);
    if (last && k > 0)
        k--;
    return hc_tok_is(&lf->tok, k, s);
}

/* -------------------------------------------------------------- types */

static bool type_has_fnptr(CXType t, int depth)
{
    t = clang_getCanonicalType(t);
    if (depth > 8)
        return false;
    if (t.kind == CXType_Pointer) {
        CXType p = clang_getCanonicalType(clang_getPointeeType(t));
        return p.kind == CXType_FunctionProto || p.kind == CXType_FunctionNoProto || type_has_fnptr(p, depth + 1);
    }
    if (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray || t.kind == CXType_VariableArray)
        return type_has_fnptr(clang_getArrayElementType(t), depth + 1);
    return false;
}

static bool type_has_vla(CXType t, int depth)
{
    t = clang_getCanonicalType(t);
    if (depth > 8)
        return false;
    if (t.kind == CXType_VariableArray)
        return true;
    if (t.kind == CXType_Pointer)
        return type_has_vla(clang_getPointeeType(t), depth + 1);
    if (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray)
        return type_has_vla(clang_getArrayElementType(t), depth + 1);
    return false;
}

int lint_type_dims(CXType t, long long *dims)
{
    int n = 0;
    t = clang_getCanonicalType(t);
    if (t.kind == CXType_Pointer) {
        dims[n++] = 0;
        t = clang_getCanonicalType(clang_getPointeeType(t));
    }
    while (n < LINT_MAX_DIMS && (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
                                 t.kind == CXType_VariableArray)) {
        dims[n++] = t.kind == CXType_ConstantArray ? clang_getArraySize(t) : 0;
        t = clang_getCanonicalType(clang_getArrayElementType(t));
    }
    return n;
}

/* A declaration's type: function pointers and variable-length arrays. */
static void check_decl_type(Lint *L, CXCursor c, CXType t)
{
    bool fp = type_has_fnptr(t, 0), vla = type_has_vla(t, 0);
    if (!fp && !vla)
        return;
    LintLoc at = lint_cursor_loc(c);
    char *name = hc_str(clang_getCursorSpelling(c));
    char *ts = hc_str(clang_getTypeSpelling(t));
    if (fp)
        lint_find(L, &at, "function-pointer", "'%s' has a function pointer type (%s): Vitis HLS synthesizes direct calls only", name, ts);
    if (vla)
        lint_find(L, &at, "vla", "'%s' is a variable-length array (%s): array sizes must be constants", name, ts);
    free(name);
    free(ts);
    lint_loc_free(&at);
}

static LintVar make_var(CXCursor c, bool param)
{
    LintVar v;
    memset(&v, 0, sizeof v);
    v.name = hc_str(clang_getCursorSpelling(c));
    v.n_dims = lint_type_dims(clang_getCursorType(c), v.dims);
    v.param = param;
    return v;
}

/* ------------------------------------------------- function summaries */

char *lint_fn_key(CXCursor fn)
{
    char *name = hc_str(clang_getCursorSpelling(fn));
    if (clang_getCursorLinkage(fn) != CXLinkage_Internal)
        return name;
    CXCursor def = clang_getCursorDefinition(fn);
    CXFile f = cursor_file(clang_Cursor_isNull(def) ? fn : def, NULL);
    char *file = f ? hc_str(clang_getFileName(f)) : lint_strdup("?");
    size_t n = strlen(file) + strlen(name) + 2;
    char *key = lint_realloc(NULL, n);
    snprintf(key, n, "%s#%s", file, name);
    free(file);
    free(name);
    return key;
}

/* access a callee that is not defined here does to argument i, from its prototype */
static bool is_array(CXType t)
{
    return t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray || t.kind == CXType_VariableArray;
}

static int proto_access(CXCursor fn, int i)
{
    CXType t = clang_getCanonicalType(clang_getArgType(clang_getCursorType(fn), (unsigned)i));
    if (t.kind != CXType_Pointer && !is_array(t))
        return ACC_READ;
    /* libclang reports `const int[4]` as a const array of int */
    bool c = is_array(t) && clang_isConstQualifiedType(t);
    t = clang_getCanonicalType(t.kind == CXType_Pointer ? clang_getPointeeType(t) : clang_getArrayElementType(t));
    while (is_array(t)) {
        c |= clang_isConstQualifiedType(t);
        t = clang_getCanonicalType(clang_getArrayElementType(t));
    }
    return c || clang_isConstQualifiedType(t) ? ACC_READ : ACC_WRITE;
}

/* the variable an argument or lvalue designates: through casts, parens,
 * `&`, and array indexing; a null cursor if none */
static CXCursor base_ref(Lint *L, CXCursor e)
{
    for (int guard = 0; guard < 16; guard++) {
        enum CXCursorKind k = clang_getCursorKind(e);
        if (k == CXCursor_DeclRefExpr)
            return clang_getCursorReferenced(e);
        bool through = k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr || k == CXCursor_CStyleCastExpr ||
                       k == CXCursor_ArraySubscriptExpr ||
                       (k == CXCursor_UnaryOperator && tok_edge(L, e, "&", false));
        if (!through)
            break;
        Kids c = kids(e);
        if (!c.n) {
            free(c.v);
            break;
        }
        e = k == CXCursor_CStyleCastExpr ? c.v[c.n - 1] : c.v[0];
        free(c.v);
    }
    return clang_getNullCursor();
}

static int param_index(const Walk *w, CXCursor ref)
{
    if (!w->fn || clang_Cursor_isNull(ref) || clang_getCursorKind(ref) != CXCursor_ParmDecl)
        return -1;
    for (int i = 0; i < w->fn->n_params; i++)
        if (clang_equalCursors(clang_Cursor_getArgument(w->fn_cur, (unsigned)i), ref))
            return i;
    return -1;
}

/* ------------------------------------------------------------- walk */

static void walk(Walk *w, CXCursor c, int lhs);

static void walk_kids(Walk *w, CXCursor c, int lhs)
{
    Kids k = kids(c);
    for (int i = 0; i < k.n; i++)
        walk(w, k.v[i], lhs);
    free(k.v);
}

static void on_ref(Walk *w, CXCursor c, int lhs)
{
    int i = param_index(w, clang_getCursorReferenced(c));
    if (i >= 0 && w->is_ptr[i])
        w->fn->acc[i] |= lhs ? lhs : ACC_READ;
}

static void on_call(Walk *w, CXCursor c)
{
    Lint *L = w->L;
    CXCursor ref = clang_getCursorReferenced(c);
    LintLoc at = lint_cursor_loc(c);
    if (clang_Cursor_isNull(ref) || clang_getCursorKind(ref) != CXCursor_FunctionDecl) {
        lint_find(L, &at, "function-pointer", "call through a function pointer: Vitis HLS synthesizes direct calls only");
        walk_kids(w, c, 0);
        lint_loc_free(&at);
        return;
    }
    char *name = hc_str(clang_getCursorSpelling(ref));
    if (in_list(heap_fns, name))
        lint_find(L, &at, "heap", "call to %s(): no dynamic memory in synthesized code (arrays of constant size)", name);
    if (in_list(io_fns, name))
        lint_find(L, &at, "io-call", "call to %s() in synthesized code: put it under #ifndef __SYNTHESIS__", name);
    char *key = lint_fn_key(ref);
    for (int i = 0, n = clang_Cursor_getNumArguments(c); i < n; i++) {
        CXCursor arg = clang_Cursor_getArgument(c, (unsigned)i);
        int p = param_index(w, base_ref(L, arg));
        if (p >= 0 && w->is_ptr[p]) {
            LintFwd f = {p, lint_strdup(key), i, proto_access(ref, i)};
            LINT_PUSH(w->fn->fwd, w->fn->n_fwd, f);
        } else {
            walk(w, arg, 0);
        }
    }
    if (w->fn) {
        LintEdge e = {key, at};
        LINT_PUSH(w->fn->calls, w->fn->n_calls, e);
    } else {
        free(key);
        lint_loc_free(&at);
    }
    free(name);
}

static void on_binary(Walk *w, CXCursor c, int lhs_mode)
{
    Kids k = kids(c);
    if (k.n == 2) {
        bool assign = lhs_mode || tok_after(w->L, k.v[0], "=");
        walk(w, k.v[0], assign ? (lhs_mode ? lhs_mode : ACC_WRITE) : 0);
        walk(w, k.v[1], 0);
    } else {
        for (int i = 0; i < k.n; i++)
            walk(w, k.v[i], 0);
    }
    free(k.v);
}

static void on_unary(Walk *w, CXCursor c, int lhs)
{
    bool incdec = tok_edge(w->L, c, "++", false) || tok_edge(w->L, c, "--", false) ||
                  tok_edge(w->L, c, "++", true) || tok_edge(w->L, c, "--", true);
    int mode = incdec ? ACC_READ | ACC_WRITE : tok_edge(w->L, c, "*", false) ? lhs : 0;
    walk_kids(w, c, mode);
}

static void on_subscript(Walk *w, CXCursor c, int lhs)
{
    Kids k = kids(c);
    for (int i = 0; i < k.n; i++)
        walk(w, k.v[i], i == 0 ? lhs : 0);
    free(k.v);
}

/* ---------------------------------------------------------- loops */

static bool eval_int(CXCursor c, long long *v)
{
    CXEvalResult r = clang_Cursor_Evaluate(c);
    if (!r)
        return false;
    bool ok = clang_EvalResult_getKind(r) == CXEval_Int;
    if (ok)
        *v = clang_EvalResult_getAsLongLong(r);
    clang_EvalResult_dispose(r);
    return ok;
}

/* The parts of a for statement: kids classified by the header's `;`s. */
typedef struct {
    CXCursor init, cond, inc;
    bool has_init, has_cond, has_inc;
} ForParts;

static bool for_parts(Lint *L, CXCursor c, const Kids *k, ForParts *fp)
{
    unsigned off;
    LintFile *f = lint_file(L, cursor_file(c, &off));
    if (!f)
        return false;
    const HcTokens *t = &f->tok;
    unsigned i = hc_tok_at(t, ext_off(c)), semi[2] = {0, 0}, ns = 0, depth = 1, rp = 0;
    if (!hc_tok_is(t, i, "for") || !hc_tok_is(t, i + 1, "("))
        return false;
    for (unsigned j = i + 2; j < t->n && !rp; j++) {
        if (hc_tok_is(t, j, "("))
            depth++;
        else if (hc_tok_is(t, j, ")") && !--depth)
            rp = t->off[j];
        else if (depth == 1 && hc_tok_is(t, j, ";") && ns < 2)
            semi[ns++] = t->off[j];
    }
    if (ns < 2 || !rp)
        return false;
    memset(fp, 0, sizeof *fp);
    for (int j = 0; j < k->n; j++) {
        unsigned o = ext_off(k->v[j]);
        if (o < semi[0])
            fp->init = k->v[j], fp->has_init = true;
        else if (o > semi[0] && o < semi[1])
            fp->cond = k->v[j], fp->has_cond = true;
        else if (o > semi[1] && o < rp)
            fp->inc = k->v[j], fp->has_inc = true;
    }
    return fp->has_init && fp->has_cond && fp->has_inc;
}

/* init: `int i = a` or `i = a`; the variable and a */
static bool for_init(Lint *L, CXCursor init, CXCursor *var, long long *a)
{
    Kids k = kids(init);
    bool ok = false;
    if (clang_getCursorKind(init) == CXCursor_DeclStmt && k.n == 1) {
        Kids v = kids(k.v[0]);
        *var = k.v[0];
        ok = v.n > 0 && eval_int(v.v[v.n - 1], a);
        free(v.v);
    } else if (clang_getCursorKind(init) == CXCursor_BinaryOperator && k.n == 2 && tok_after(L, k.v[0], "=")) {
        *var = base_ref(L, k.v[0]);
        ok = !clang_Cursor_isNull(*var) && eval_int(k.v[1], a);
    }
    free(k.v);
    return ok;
}

static bool is_var(Lint *L, CXCursor e, CXCursor var)
{
    CXCursor r = base_ref(L, e);
    return !clang_Cursor_isNull(r) && clang_equalCursors(r, var);
}

/* e is `i`, `i + c` or `i - c` with c constant: *off = 0, c or -c */
static bool var_plus(Lint *L, CXCursor e, CXCursor var, long long *off)
{
    *off = 0;
    if (is_var(L, e, var))
        return true;
    Kids k = kids(e);
    bool ok = clang_getCursorKind(e) == CXCursor_BinaryOperator && k.n == 2 && is_var(L, k.v[0], var) &&
              (tok_after(L, k.v[0], "+") || tok_after(L, k.v[0], "-")) && eval_int(k.v[1], off);
    if (ok && tok_after(L, k.v[0], "-"))
        *off = -*off;
    free(k.v);
    return ok;
}

/* cond: `i OP b` or `b OP i` (i may be `i + c`); OP as one of "<", "<=",
 * ">", ">=", "!=" (mirrored for `b OP i`), and b moved to i's side */
static bool for_cond(Lint *L, CXCursor cond, CXCursor var, char op[3], long long *b)
{
    static const char *const ops[] = {"<", "<=", ">", ">=", "!="}, *const mirror[] = {">", ">=", "<", "<=", "!="};
    Kids k = kids(cond);
    bool ok = false;
    long long off = 0;
    if (clang_getCursorKind(cond) == CXCursor_BinaryOperator && k.n == 2) {
        bool left = var_plus(L, k.v[0], var, &off);
        for (int i = 0; i < 5 && !ok; i++)
            if (tok_after(L, k.v[0], ops[i])) {
                strcpy(op, left ? ops[i] : mirror[i]);
                ok = left ? eval_int(k.v[1], b) : var_plus(L, k.v[1], var, &off) && eval_int(k.v[0], b);
            }
    }
    if (ok)
        *b -= off;
    free(k.v);
    return ok;
}

/* inc: `i++`, `++i`, `i--`, `--i`, `i += s`, `i -= s`; the step */
static bool for_inc(Lint *L, CXCursor inc, CXCursor var, long long *s)
{
    Kids k = kids(inc);
    bool ok = false;
    enum CXCursorKind kind = clang_getCursorKind(inc);
    if (kind == CXCursor_UnaryOperator && k.n == 1 && is_var(L, k.v[0], var)) {
        bool up = tok_edge(L, inc, "++", false) || tok_edge(L, inc, "++", true);
        bool down = tok_edge(L, inc, "--", false) || tok_edge(L, inc, "--", true);
        *s = up ? 1 : -1;
        ok = up || down;
    } else if (kind == CXCursor_CompoundAssignOperator && k.n == 2 && is_var(L, k.v[0], var) && eval_int(k.v[1], s)) {
        ok = tok_after(L, k.v[0], "+=") || (tok_after(L, k.v[0], "-=") && (*s = -*s, true));
    }
    free(k.v);
    return ok;
}

static long long ceil_div(long long a, long long b)
{
    return a <= 0 ? 0 : (a + b - 1) / b;
}

/* constant trip count of a for loop, -1 if its bounds are not constant */
static long long for_trip(Lint *L, CXCursor c, const Kids *k)
{
    ForParts fp;
    CXCursor var;
    long long a, b, s;
    char op[3];
    if (!for_parts(L, c, k, &fp) || !for_init(L, fp.init, &var, &a) || !for_cond(L, fp.cond, var, op, &b) ||
        !for_inc(L, fp.inc, var, &s) || s == 0)
        return -1;
    if (!strcmp(op, "<=") || !strcmp(op, ">="))
        b += s > 0 ? 1 : -1;
    if ((op[0] == '<' && s > 0) || (op[0] == '>' && s < 0))
        return s > 0 ? ceil_div(b - a, s) : ceil_div(a - b, -s);
    if (!strcmp(op, "!=") && (b - a) % s == 0 && (b - a) / s >= 0)
        return (b - a) / s;
    return -1;
}

static void walk_region_check(Walk *w, CXCursor body);

static void on_loop(Walk *w, CXCursor c)
{
    Kids k = kids(c);
    enum CXCursorKind kind = clang_getCursorKind(c);
    LintLoop lp;
    memset(&lp, 0, sizeof lp);
    CXCursor body = k.n ? k.v[kind == CXCursor_DoStmt ? 0 : k.n - 1] : c;
    lp.off = ext_off(c);
    lp.end = ext_end(c);
    lp.body_off = ext_off(body);
    lp.body_end = ext_end(body);
    lp.is_for = kind == CXCursor_ForStmt;
    lp.trip = lp.is_for ? for_trip(w->L, c, &k) : -1;
    lp.at = lint_cursor_loc(c);
    lp.fn = w->scope;
    LINT_PUSH(w->file->loops, w->file->n_loops, lp);
    if (clang_getCursorKind(body) == CXCursor_CompoundStmt)
        walk_region_check(w, body);
    for (int i = 0; i < k.n; i++)
        walk(w, k.v[i], 0);
    free(k.v);
}

static void on_local(Walk *w, CXCursor c)
{
    check_decl_type(w->L, c, clang_getCursorType(c));
    if (w->file && w->scope >= 0) {
        LintScope *s = &w->file->scopes[w->scope];
        LINT_PUSH(s->vars, s->n_vars, make_var(c, false));
    }
    walk_kids(w, c, 0);
}

static void add_enum(Lint *L, CXCursor c)
{
    LintEnum e = {hc_str(clang_getCursorSpelling(c)), clang_getEnumConstantDeclValue(c)};
    LINT_PUSH(L->enums, L->n_enums, e);
}

static void walk(Walk *w, CXCursor c, int lhs)
{
    switch (clang_getCursorKind(c)) {
    case CXCursor_CallExpr:
        on_call(w, c);
        return;
    case CXCursor_BinaryOperator:
        on_binary(w, c, 0);
        return;
    case CXCursor_CompoundAssignOperator:
        on_binary(w, c, ACC_READ | ACC_WRITE);
        return;
    case CXCursor_UnaryOperator:
        on_unary(w, c, lhs);
        return;
    case CXCursor_ArraySubscriptExpr:
        on_subscript(w, c, lhs);
        return;
    case CXCursor_MemberRefExpr:
    case CXCursor_ParenExpr:
    case CXCursor_UnexposedExpr:
        walk_kids(w, c, lhs);
        return;
    case CXCursor_DeclRefExpr:
        on_ref(w, c, lhs);
        return;
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
        on_loop(w, c);
        return;
    case CXCursor_VarDecl:
        on_local(w, c);
        return;
    case CXCursor_EnumConstantDecl:
        add_enum(w->L, c);
        return;
    case CXCursor_TypedefDecl:
    case CXCursor_FieldDecl:
        check_decl_type(w->L, c, clang_getCursorType(c));
        walk_kids(w, c, 0);
        return;
    default:
        walk_kids(w, c, 0);
    }
}

/* ------------------------------------------------------ DATAFLOW regions */

/* a DATAFLOW pragma directly in body (not inside one of its statements) */
static const HcPragma *dataflow_pragma(const LintFile *f, CXCursor body, const Kids *k)
{
    unsigned a = ext_off(body), b = ext_end(body);
    for (int i = 0; i < f->n_prag; i++) {
        const HcPragma *p = &f->prag[i];
        unsigned o = f->tok.off[p->hash];
        if (o < a || o >= b || p->dir >= p->end || !hc_tok_is_nocase(&f->tok, p->dir, "DATAFLOW"))
            continue;
        bool nested = false;
        for (int j = 0; j < k->n && !nested; j++)
            nested = o >= ext_off(k->v[j]) && o < ext_end(k->v[j]);
        if (!nested)
            return p;
    }
    return NULL;
}

static void region_call(Walk *w, LintRegion *r, CXCursor call, const CXCursor *vars)
{
    CXCursor ref = clang_getCursorReferenced(call);
    bool fn = !clang_Cursor_isNull(ref) && clang_getCursorKind(ref) == CXCursor_FunctionDecl;
    LintCall c;
    memset(&c, 0, sizeof c);
    c.callee = fn ? lint_fn_key(ref) : lint_strdup("?");
    c.at = lint_cursor_loc(call);
    for (int i = 0, n = clang_Cursor_getNumArguments(call); i < n; i++) {
        CXCursor v = base_ref(w->L, clang_Cursor_getArgument(call, (unsigned)i));
        LintArg a = {-1, fn ? proto_access(ref, i) : ACC_READ};
        for (int j = 0; j < r->n_chan && !clang_Cursor_isNull(v); j++)
            if (clang_equalCursors(vars[j], v))
                a.chan = j;
        LINT_PUSH(c.args, c.n_args, a);
    }
    LINT_PUSH(r->calls, r->n_calls, c);
}

static void region_decls(LintRegion *r, CXCursor stmt, CXCursor **vars)
{
    Kids k = kids(stmt);
    for (int i = 0; i < k.n; i++) {
        if (clang_getCursorKind(k.v[i]) != CXCursor_VarDecl)
            continue;
        int n = r->n_chan;
        LINT_PUSH(*vars, n, k.v[i]);
        LINT_PUSH(r->chan, r->n_chan, hc_str(clang_getCursorSpelling(k.v[i])));
        n = r->n_chan - 1;
        LINT_PUSH(r->chan_at, n, lint_cursor_loc(k.v[i]));
    }
    free(k.v);
}

/* `#pragma HLS STREAM variable=name depth=N` in the body: a FIFO channel */
static bool sized_fifo(const LintFile *f, CXCursor body, const char *name)
{
    unsigned a = ext_off(body), b = ext_end(body);
    size_t len = strlen(name);
    for (int i = 0; i < f->n_prag; i++) {
        const HcPragma *p = &f->prag[i];
        unsigned o = f->tok.off[p->hash];
        if (o < a || o >= b || p->dir >= p->end || !hc_tok_is_nocase(&f->tok, p->dir, "STREAM"))
            continue;
        bool named = false, depth = false;
        for (int j = 0; j < p->n_opt; j++) {
            const HcPragmaOpt *q = &p->opt[j];
            if (!q->n_val)
                continue;
            unsigned v = q->val;
            if (hc_tok_is_nocase(&f->tok, q->key, "variable"))
                named = f->tok.end[v] - f->tok.off[v] == len && !memcmp(f->tok.text + f->tok.off[v], name, len);
            depth |= hc_tok_is_nocase(&f->tok, q->key, "depth");
        }
        if (named && depth)
            return true;
    }
    return false;
}

/* The statements of a DATAFLOW region: declarations and calls only. */
static void on_region(Walk *w, CXCursor body, const Kids *k, const HcPragma *p)
{
    LintRegion r;
    memset(&r, 0, sizeof r);
    r.at = lint_tok_loc(w->file, p->hash);
    CXCursor *vars = NULL;
    for (int i = 0; i < k->n; i++) {
        enum CXCursorKind kind = clang_getCursorKind(k->v[i]);
        if (kind == CXCursor_DeclStmt) {
            region_decls(&r, k->v[i], &vars);
        } else if (kind == CXCursor_CallExpr) {
            region_call(w, &r, k->v[i], vars);
        } else if (kind != CXCursor_NullStmt) {
            LintLoc at = lint_cursor_loc(k->v[i]);
            char *ks = hc_str(clang_getCursorKindSpelling(kind));
            lint_find(w->L, &at, "dataflow-form",
                      "a DATAFLOW region holds only declarations and function calls (canonical form); this is a %s", ks);
            free(ks);
            lint_loc_free(&at);
        }
    }
    for (int i = 0; i < r.n_chan; i++) {
        int n = i;
        LINT_PUSH(r.chan_fifo, n, sized_fifo(w->file, body, r.chan[i]));
    }
    free(vars);
    LINT_PUSH(w->L->regions, w->L->n_regions, r);
}

static void walk_region_check(Walk *w, CXCursor body)
{
    if (!w->file)
        return;
    Kids k = kids(body);
    const HcPragma *p = dataflow_pragma(w->file, body, &k);
    if (p) {
        w->file->region_prag[p - w->file->prag] = 1;
        on_region(w, body, &k, p);
    }
    free(k.v);
}

/* ---------------------------------------------------------- functions */

static int ptr_levels(CXType t)
{
    int n = 0;
    for (int guard = 0; guard < 16; guard++) {
        t = clang_getCanonicalType(t);
        if (t.kind == CXType_Pointer)
            n++, t = clang_getPointeeType(t);
        else if (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray || t.kind == CXType_VariableArray)
            t = clang_getArrayElementType(t);
        else
            break;
    }
    return n;
}

typedef struct {
    bool is_enum, is_complex;
    int depth;
} TypeScan;

static void scan_type(CXType t, TypeScan *s);

static enum CXVisitorResult scan_field(CXCursor c, CXClientData d)
{
    scan_type(clang_getCursorType(c), d);
    return CXVisit_Continue;
}

/* enum or _Complex anywhere in t: pointees, elements, struct fields */
static void scan_type(CXType t, TypeScan *s)
{
    t = clang_getCanonicalType(t);
    if (s->depth > 8)
        return;
    s->depth++;
    if (t.kind == CXType_Enum)
        s->is_enum = true;
    else if (t.kind == CXType_Complex)
        s->is_complex = true;
    else if (t.kind == CXType_Pointer)
        scan_type(clang_getPointeeType(t), s);
    else if (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray || t.kind == CXType_VariableArray)
        scan_type(clang_getArrayElementType(t), s);
    else if (t.kind == CXType_Record)
        clang_Type_visitFields(t, scan_field, s);
    s->depth--;
}

static void iface_note(LintFn *fn, CXCursor at, const char *rule, const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
    LintNote note = {lint_cursor_loc(at), rule, lint_realloc(NULL, n)};
    snprintf(note.msg, n, fmt, a, b);
    LINT_PUSH(fn->iface, fn->n_iface, note);
}

/* what would be wrong with fn as the top: its return type and parameters */
static void iface_notes(LintFn *fn, CXCursor c)
{
    CXType rt = clang_getCanonicalType(clang_getCursorResultType(c));
    char *ts = hc_str(clang_getTypeSpelling(clang_getCursorResultType(c)));
    if (rt.kind != CXType_Void)
        iface_note(fn, c, "top-return", "the top function returns %s%s: it must return void (outputs are pointer arguments)", ts, "");
    free(ts);
    for (int i = 0, n = clang_Cursor_getNumArguments(c); i < n; i++) {
        CXCursor p = clang_Cursor_getArgument(c, (unsigned)i);
        CXType t = clang_getCursorType(p);
        char *name = hc_str(clang_getCursorSpelling(p)), *tn = hc_str(clang_getTypeSpelling(t));
        TypeScan s = {false, false, 0};
        scan_type(t, &s);
        if (ptr_levels(t) >= 2)
            iface_note(fn, p, "interface-pointer", "parameter '%s' of the top is a pointer to a pointer (%s)", name, tn);
        if (s.is_enum)
            iface_note(fn, p, "interface-type", "parameter '%s' of the top carries an enum (%s): use a fixed-width integer", name, tn);
        if (s.is_complex)
            iface_note(fn, p, "interface-type", "parameter '%s' of the top carries a _Complex (%s)", name, tn);
        free(name);
        free(tn);
    }
}

static void fn_params(Walk *w, LintScope *scope)
{
    LintFn *fn = w->fn;
    int n = clang_Cursor_getNumArguments(w->fn_cur);
    if (!fn->acc && n > 0) {
        fn->n_params = n;
        fn->acc = lint_realloc(NULL, (size_t)n);
        memset(fn->acc, 0, (size_t)n);
        fn->param_names = lint_realloc(NULL, (size_t)n * sizeof *fn->param_names);
        for (int i = 0; i < n; i++)
            fn->param_names[i] = hc_str(clang_getCursorSpelling(clang_Cursor_getArgument(w->fn_cur, (unsigned)i)));
    }
    w->is_ptr = lint_realloc(NULL, (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n && i < fn->n_params; i++) {
        CXCursor p = clang_Cursor_getArgument(w->fn_cur, (unsigned)i);
        enum CXTypeKind k = clang_getCanonicalType(clang_getCursorType(p)).kind;
        w->is_ptr[i] = k == CXType_Pointer || k == CXType_ConstantArray || k == CXType_IncompleteArray;
        if (!w->is_ptr[i])
            fn->acc[i] = ACC_READ;
        LINT_PUSH(scope->vars, scope->n_vars, make_var(p, true));
    }
}

static void lint_function(Lint *L, CXCursor c)
{
    unsigned off;
    LintFile *f = lint_file(L, cursor_file(c, &off));
    Kids k = kids(c);
    if (!f || !k.n || clang_getCursorKind(k.v[k.n - 1]) != CXCursor_CompoundStmt) {
        free(k.v);
        return;
    }
    CXCursor body = k.v[k.n - 1];
    free(k.v);
    char *key = lint_fn_key(c), *name = hc_str(clang_getCursorSpelling(c));
    Walk w = {L, lint_fn_get(L, key, name), c, NULL, f, f->n_scopes};
    free(key);
    free(name);
    if (!w.fn->at.file) {
        w.fn->at = lint_cursor_loc(c);
        iface_notes(w.fn, c);
    }
    LintScope s;
    memset(&s, 0, sizeof s);
    s.off = ext_off(body);
    s.end = ext_end(body);
    s.fn_key = lint_strdup(w.fn->key);
    Kids st = kids(body);
    for (int i = 0; i < st.n; i++) {
        LINT_PUSH(s.stmt, s.n_stmt, ext_off(st.v[i]));
        LINT_PUSH(s.stmt, s.n_stmt, ext_end(st.v[i]));
    }
    s.n_stmt /= 2;
    free(st.v);
    LINT_PUSH(f->scopes, f->n_scopes, s);
    fn_params(&w, &f->scopes[w.scope]);
    walk_region_check(&w, body);
    walk(&w, body, 0);
    free(w.is_ptr);
}

/* ---------------------------------------------------------- file scope */

static void add_macro(Lint *L, CXCursor c)
{
    unsigned off;
    CXFile f = cursor_file(c, &off);
    LintMacro m = {hc_str(clang_getCursorSpelling(c)), f, off, c};
    LINT_PUSH(L->macros, L->n_macros, m);
}

static enum CXChildVisitResult tag_cb(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    Lint *L = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_FieldDecl)
        check_decl_type(L, c, clang_getCursorType(c));
    else if (k == CXCursor_EnumConstantDecl)
        add_enum(L, c);
    if (k == CXCursor_StructDecl || k == CXCursor_UnionDecl || k == CXCursor_EnumDecl)
        clang_visitChildren(c, tag_cb, L);
    return CXChildVisit_Continue;
}

static void on_function_decl(Lint *L, CXCursor c)
{
    check_decl_type(L, c, clang_getCursorResultType(c));
    for (int i = 0, n = clang_Cursor_getNumArguments(c); i < n; i++) {
        CXCursor p = clang_Cursor_getArgument(c, (unsigned)i);
        check_decl_type(L, p, clang_getCursorType(p));
    }
    if (clang_isCursorDefinition(c))
        lint_function(L, c);
}

static enum CXChildVisitResult top_cb(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    Lint *L = d;
    if (clang_Location_isInSystemHeader(clang_getCursorLocation(c)))
        return CXChildVisit_Continue;
    switch (clang_getCursorKind(c)) {
    case CXCursor_FunctionDecl:
        on_function_decl(L, c);
        break;
    case CXCursor_VarDecl:
        check_decl_type(L, c, clang_getCursorType(c));
        LINT_PUSH(L->globals, L->n_globals, make_var(c, false));
        break;
    case CXCursor_TypedefDecl:
        check_decl_type(L, c, clang_getTypedefDeclUnderlyingType(c));
        break;
    case CXCursor_StructDecl:
    case CXCursor_UnionDecl:
    case CXCursor_EnumDecl:
        clang_visitChildren(c, tag_cb, L);
        break;
    case CXCursor_MacroDefinition:
        add_macro(L, c);
        break;
    default:
        break;
    }
    return CXChildVisit_Continue;
}

void lint_ast(Lint *L)
{
    clang_visitChildren(clang_getTranslationUnitCursor(L->tu), top_cb, L);
}
