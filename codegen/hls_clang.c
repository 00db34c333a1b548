/* hls_clang.c - libclang plumbing shared by the HLS specializer and lint
 * (see hls_clang.h): command line, parsing, diagnostics, the token stream
 * of one file by byte offset, and `#pragma HLS` lines read from it. */
#include "hls_clang.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        abort();
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xrealloc(NULL, n);
    memcpy(p, s, n);
    return p;
}

static void argv_push(HcArgv *a, const char *pre, const char *s)
{
    size_t n = strlen(pre) + strlen(s) + 1;
    char *p = xrealloc(NULL, n);
    snprintf(p, n, "%s%s", pre, s);
    a->v = xrealloc(a->v, (size_t)(a->n + 1) * sizeof *a->v);
    a->v[a->n++] = p;
}

void hc_argv_build(HcArgv *a, const char *const *include_dirs, int n_include_dirs,
                   const char *const *defines, int n_defines, bool synthesis)
{
    /* -ffreestanding: <stdint.h> from the compiler's own header, not the C
     * library's chain of includes (which costs half of a small engine's parse) */
    /* --gcc-toolchain, --cuda-path: no search of the disk for GCC and CUDA
     * installations at every parse (~90 failed opens each; a C parse uses
     * neither: clang's own headers and the system's /usr/include) */
    static const char *base[] = {"-xc", "-std=c11", "-ffreestanding", "-Wall", "-Wextra", "-Wno-unknown-pragmas",
                                 "--gcc-toolchain=/dev/null", "--cuda-path=/dev/null"};
    memset(a, 0, sizeof *a);
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
        argv_push(a, "", base[i]);
    for (int i = 0; i < n_include_dirs; i++)
        argv_push(a, "-I", include_dirs[i]);
    for (int i = 0; i < n_defines; i++)
        argv_push(a, "-D", defines[i]);
    if (synthesis)
        argv_push(a, "-D", "__SYNTHESIS__");
}

void hc_argv_free(HcArgv *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    memset(a, 0, sizeof *a);
}

static atomic_int live;      /* indexes and translation units not disposed */

CXIndex hc_index(void)
{
    CXIndex idx = clang_createIndex(0, 0);
    if (idx)
        atomic_fetch_add(&live, 1);
    return idx;
}

void hc_index_free(CXIndex idx)
{
    if (idx) {
        clang_disposeIndex(idx);
        atomic_fetch_sub(&live, 1);
    }
}

void hc_tu_free(CXTranslationUnit tu)
{
    if (tu) {
        clang_disposeTranslationUnit(tu);
        atomic_fetch_sub(&live, 1);
    }
}

int hc_live(void)
{
    return atomic_load(&live);
}

CXTranslationUnit hc_parse(CXIndex idx, const char *path, const HcArgv *a, const char *text,
                           size_t len, bool detailed, char **why)
{
    unsigned flags = CXTranslationUnit_KeepGoing | (detailed ? CXTranslationUnit_DetailedPreprocessingRecord : 0);
    struct CXUnsavedFile uf = {path, text, (unsigned long)len};
    CXTranslationUnit tu = NULL;
    enum CXErrorCode e = clang_parseTranslationUnit2(
        idx, path, (const char *const *)a->v, a->n, text ? &uf : NULL, text ? 1 : 0,
        flags, &tu);
    if (e != CXError_Success || !tu) {
        char buf[160];
        snprintf(buf, sizeof buf, "libclang could not parse it (error %d; does the file exist?)", (int)e);
        *why = xstrdup(buf);
        return NULL;
    }
    atomic_fetch_add(&live, 1);
    return tu;
}

char *hc_str(CXString s)
{
    const char *c = clang_getCString(s);
    char *r = xstrdup(c ? c : "");
    clang_disposeString(s);
    return r;
}

char *hc_diagnostics(CXTranslationUnit tu, enum CXDiagnosticSeverity min)
{
    char *out = NULL;
    size_t len = 0;
    unsigned opts = CXDiagnostic_DisplaySourceLocation | CXDiagnostic_DisplayColumn;
    for (unsigned i = 0, n = clang_getNumDiagnostics(tu); i < n; i++) {
        CXDiagnostic dg = clang_getDiagnostic(tu, i);
        if (clang_getDiagnosticSeverity(dg) >= min) {
            char *s = hc_str(clang_formatDiagnostic(dg, opts));
            size_t k = strlen(s);
            out = xrealloc(out, len + k + 3);
            if (len) {
                memcpy(out + len, "; ", 2);
                len += 2;
            }
            memcpy(out + len, s, k + 1);
            len += k;
            free(s);
        }
        clang_disposeDiagnostic(dg);
    }
    return out;
}

unsigned hc_offset(CXSourceLocation l)
{
    unsigned off = 0;
    clang_getSpellingLocation(l, NULL, NULL, NULL, &off);
    return off;
}

void hc_line_col(CXSourceLocation l, unsigned *line, unsigned *col)
{
    clang_getSpellingLocation(l, NULL, line, col, NULL);
}

/* ------------------------------------------------------------ tokens */

static void skipped_ranges(HcTokens *t)
{
    CXSourceRangeList *sk = clang_getSkippedRanges(t->tu, t->file);
    if (!sk)
        return;
    t->skip = xrealloc(NULL, 2 * (size_t)sk->count * sizeof *t->skip);
    for (unsigned i = 0; i < sk->count; i++) {
        t->skip[2 * i] = hc_offset(clang_getRangeStart(sk->ranges[i]));
        t->skip[2 * i + 1] = hc_offset(clang_getRangeEnd(sk->ranges[i]));
    }
    t->n_skip = sk->count;
    clang_disposeSourceRangeList(sk);
}

int hc_tokens(CXTranslationUnit tu, CXFile file, HcTokens *t)
{
    memset(t, 0, sizeof *t);
    t->tu = tu;
    t->file = file;
    t->text = clang_getFileContents(tu, file, &t->len);
    if (!t->text)
        return -1;
    CXSourceRange all = clang_getRange(clang_getLocationForOffset(tu, file, 0),
                                       clang_getLocationForOffset(tu, file, (unsigned)t->len));
    clang_tokenize(tu, all, &t->raw, &t->n_raw);
    t->tok = xrealloc(NULL, (size_t)t->n_raw * sizeof *t->tok);
    t->off = xrealloc(NULL, (size_t)t->n_raw * sizeof *t->off);
    t->end = xrealloc(NULL, (size_t)t->n_raw * sizeof *t->end);
    for (unsigned i = 0; i < t->n_raw; i++) {
        if (clang_getTokenKind(t->raw[i]) == CXToken_Comment)
            continue;
        CXSourceRange r = clang_getTokenExtent(tu, t->raw[i]);
        t->tok[t->n] = t->raw[i];
        t->off[t->n] = hc_offset(clang_getRangeStart(r));
        t->end[t->n++] = hc_offset(clang_getRangeEnd(r));
    }
    skipped_ranges(t);
    return 0;
}

void hc_tokens_free(HcTokens *t)
{
    if (t->raw)
        clang_disposeTokens(t->tu, t->raw, t->n_raw);
    free(t->tok);
    free(t->off);
    free(t->end);
    free(t->skip);
    memset(t, 0, sizeof *t);
}

bool hc_tok_is(const HcTokens *t, unsigned i, const char *s)
{
    size_t k = strlen(s);
    return i < t->n && t->end[i] - t->off[i] == k && !memcmp(t->text + t->off[i], s, k);
}

bool hc_tok_is_nocase(const HcTokens *t, unsigned i, const char *s)
{
    size_t k = strlen(s);
    return i < t->n && t->end[i] - t->off[i] == k && !strncasecmp(t->text + t->off[i], s, k);
}

bool hc_tok_ident(const HcTokens *t, unsigned i)
{
    if (i >= t->n)
        return false;
    CXTokenKind k = clang_getTokenKind(t->tok[i]);
    return k == CXToken_Identifier || k == CXToken_Keyword;
}

char *hc_tok_dup(const HcTokens *t, unsigned i)
{
    size_t k = t->end[i] - t->off[i];
    char *s = xrealloc(NULL, k + 1);
    memcpy(s, t->text + t->off[i], k);
    s[k] = 0;
    return s;
}

bool hc_skipped(const HcTokens *t, unsigned off)
{
    for (unsigned i = 0; i < t->n_skip; i++)
        if (off >= t->skip[2 * i] && off < t->skip[2 * i + 1])
            return true;
    return false;
}

unsigned hc_tok_at(const HcTokens *t, unsigned off)
{
    unsigned lo = 0, hi = t->n;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (t->off[mid] < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ----------------------------------------------------------- pragmas */

/* Does a logical line end between bytes a and b (a newline not escaped by
 * a backslash, outside block comments)? */
static bool line_breaks(const char *s, unsigned a, unsigned b)
{
    for (unsigned i = a; i < b; i++) {
        if (s[i] == '/' && i + 1 < b && s[i + 1] == '*') {
            const char *e = strstr(s + i + 2, "*/");
            i = e ? (unsigned)(e - s) + 1 : b;
            continue;
        }
        if (s[i] != '\n')
            continue;
        unsigned j = i;
        while (j > a && (s[j - 1] == ' ' || s[j - 1] == '\t' || s[j - 1] == '\r'))
            j--;
        if (j == a || s[j - 1] != '\\')
            return true;
    }
    return false;
}

static bool same_line(const HcTokens *t, unsigned i)
{
    return i + 1 < t->n && !line_breaks(t->text, t->end[i], t->off[i + 1]);
}

static bool first_on_line(const HcTokens *t, unsigned i)
{
    return i == 0 || line_breaks(t->text, t->end[i - 1], t->off[i]);
}

/* Parse the options of one pragma from token k to end. */
static void pragma_options(const HcTokens *t, HcPragma *p, unsigned k)
{
    while (k < p->end) {
        HcPragmaOpt o = {k, 0, 0};
        if (hc_tok_is(t, k, "=") || !hc_tok_ident(t, k)) {
            p->malformed = true;
            k++;
            continue;
        }
        k++;
        if (k < p->end && hc_tok_is(t, k, "=")) {
            k++;
            if (k >= p->end) {
                p->malformed = true;
                break;
            }
            o.val = k++;
            o.n_val = 1;
            while (k < p->end && t->off[k] == t->end[k - 1])
                k++, o.n_val++;
        }
        p->opt = xrealloc(p->opt, (size_t)(p->n_opt + 1) * sizeof *p->opt);
        p->opt[p->n_opt++] = o;
    }
}

int hc_pragmas(const HcTokens *t, HcPragma **out, int *n)
{
    *out = NULL;
    *n = 0;
    for (unsigned i = 0; i + 2 < t->n; i++) {
        if (!hc_tok_is(t, i, "#") || !first_on_line(t, i) || !same_line(t, i) ||
            !hc_tok_is(t, i + 1, "pragma") || !same_line(t, i + 1) ||
            !hc_tok_is_nocase(t, i + 2, "HLS") || hc_skipped(t, t->off[i]))
            continue;
        HcPragma p;
        memset(&p, 0, sizeof p);
        p.hash = i;
        unsigned e = i + 2;
        while (same_line(t, e))
            e++;
        p.end = e + 1;
        p.dir = i + 3 < p.end ? i + 3 : p.end;
        if (p.dir < p.end)
            pragma_options(t, &p, p.dir + 1);
        *out = xrealloc(*out, (size_t)(*n + 1) * sizeof **out);
        (*out)[(*n)++] = p;
        i = e;
    }
    return 0;
}

void hc_pragmas_free(HcPragma *p, int n)
{
    for (int i = 0; i < n; i++)
        free(p[i].opt);
    free(p);
}
