/* escape.c - the escaping rules of escape.h, one function per language.
 *
 * The input is walked one unit at a time: a whole valid UTF-8 sequence, or a
 * single byte when the bytes there are not valid UTF-8. Each language turns
 * a unit into at most 16 output bytes, and a sink collects them (a FILE, a
 * growing string, or a fixed buffer cut only between units).
 */
#include "escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ UTF-8 */

/* Length of the valid UTF-8 sequence at s (1..4) with its code point, or 0
 * when s does not start one (stray continuation, overlong form, surrogate,
 * beyond U+10FFFF, cut short). */
static int utf8_unit(const unsigned char *s, uint32_t *cp)
{
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    int n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0)
        return 0;
    uint32_t c = n == 1 ? s[0] : s[0] & (0x7f >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3f);
    }
    if (c < min[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return n;
}

/* Code points a terminal or a browser acts on instead of showing: C0, DEL,
 * C1 and the bidirectional overrides and isolates (they reorder the text
 * around them, so a name could make a message read differently). */
static bool is_control(uint32_t c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
           c == 0x200e || c == 0x200f || c == 0x061c;
}

/* ----------------------------------------------------------- sinks */

typedef struct {
    FILE *f;
    char *buf;
    size_t len, cap;
    bool fixed, full;
} Sink;

static void sink_put(Sink *k, const char *p, size_t n)
{
    if (k->f) {
        fwrite(p, 1, n, k->f);
        return;
    }
    if (k->full)
        return;
    if (k->len + n + 1 > k->cap) {
        if (k->fixed) {
            k->full = true;   /* cut between units, never inside an escape */
            return;
        }
        while (k->len + n + 1 > k->cap)
            k->cap = k->cap ? 2 * k->cap : 64;
        char *b = realloc(k->buf, k->cap);
        if (!b) {
            fprintf(stderr, "onnx2hls: out of memory\n");
            abort();
        }
        k->buf = b;
    }
    memcpy(k->buf + k->len, p, n);
    k->len += n;
    k->buf[k->len] = 0;
}

/* ------------------------------------------------------ languages */

/* Each writes the escape of the unit at s (n bytes: a valid sequence of
 * code point c, or n == 0: the single invalid byte s[0]) into out and
 * returns its length. */

static int c_string(const unsigned char *s, int n, uint32_t c, char *out)
{
    (void)n, (void)c;
    unsigned b = s[0];   /* byte-wise: C strings hold bytes */
    if (b == '"' || b == '\\' || b == '?')
        return sprintf(out, "\\%c", b);
    if (b >= 0x20 && b < 0x7f)
        return out[0] = (char)b, 1;
    return sprintf(out, "\\%03o", b);
}

static int c_comment(const unsigned char *s, int n, uint32_t c, char *out)
{
    (void)n, (void)c;
    unsigned b = s[0];
    if ((b == '*' && s[1] == '/') || (b == '/' && s[1] == '*') || (b == '?' && s[1] == '?'))
        return sprintf(out, "%c ", b);   /* "* /", "/ *", "? ?": nothing closes, opens or forms a trigraph */
    if (b == '\\')
        return sprintf(out, "\\\\");
    if (b >= 0x20 && b < 0x7f)
        return out[0] = (char)b, 1;
    return sprintf(out, "\\x%02x", b);
}

static int c_ident(const unsigned char *s, int n, uint32_t c, char *out)
{
    (void)n, (void)c;
    unsigned b = s[0];
    if (b == '_')
        return sprintf(out, "__");
    if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9'))
        return out[0] = (char)b, 1;
    return sprintf(out, "_%02X", b);
}

static int json(const unsigned char *s, int n, uint32_t c, char *out)
{
    if (n == 0)
        return sprintf(out, "\\ufffd");
    if (c == '"' || c == '\\')
        return sprintf(out, "\\%c", (char)c);
    if (is_control(c) || c == 0x2028 || c == 0x2029)   /* lossless, and nothing acts on a viewer */
        return sprintf(out, "\\u%04x", (unsigned)c);
    memcpy(out, s, (size_t)n);
    return n;
}

static int bytes_hex(const unsigned char *s, int n, char *out)
{
    int k = 0;
    for (int i = 0; i < (n ? n : 1); i++)
        k += sprintf(out + k, "\\x%02x", s[i]);
    return k;
}

static int html(const unsigned char *s, int n, uint32_t c, char *out)
{
    static const char *const ent[][2] = {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"},
                                         {"'", "&#39;"}};
    if (n == 0 || is_control(c))
        return bytes_hex(s, n, out);
    for (size_t i = 0; i < sizeof ent / sizeof ent[0]; i++)
        if (c == (unsigned char)ent[i][0][0])
            return sprintf(out, "%s", ent[i][1]);
    memcpy(out, s, (size_t)n);
    return n;
}

static int tcl(const unsigned char *s, int n, uint32_t c, char *out)
{
    if (n == 0)
        return sprintf(out, "\\u%04x", s[0]);
    if (c && strchr("\\\"$[]{};", (int)c))
        return sprintf(out, "\\%c", (char)c);
    if (c >= 0x20 && c < 0x7f)
        return out[0] = (char)c, 1;
    return sprintf(out, "\\u%04x", c <= 0xffff ? (unsigned)c : 0xfffdu);
}

static int cfg(const unsigned char *s, int n, uint32_t c, char *out)
{
    (void)n, (void)c;
    unsigned b = s[0];
    bool ok = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || (b && strchr("_.,:/+@-", (int)b));
    out[0] = ok ? (char)b : '_';
    return 1;
}

static int term(const unsigned char *s, int n, uint32_t c, char *out)
{
    if (n == 0 || is_control(c))
        return bytes_hex(s, n, out);
    if (c == '\\')
        return sprintf(out, "\\\\");
    memcpy(out, s, (size_t)n);
    return n;
}

static int shell(const unsigned char *s, int n, uint32_t c, char *out)
{
    (void)n, (void)c;
    if (s[0] == '\'')
        return sprintf(out, "'\\''");
    return out[0] = (char)s[0], 1;
}

static int csv(const unsigned char *s, int n, uint32_t c, char *out)
{
    if (n == 0 || is_control(c))
        return bytes_hex(s, n, out);
    if (c == '"')
        return sprintf(out, "\"\"");
    memcpy(out, s, (size_t)n);
    return n;
}

/* Byte-wise languages step one byte at a time even through valid UTF-8. */
static const struct {
    int (*fn)(const unsigned char *, int, uint32_t, char *);
    bool bytes;
} langs[] = {
    [ESC_C_STRING] = {c_string, true}, [ESC_C_COMMENT] = {c_comment, true}, [ESC_C_IDENT] = {c_ident, true},
    [ESC_JSON] = {json, false},        [ESC_HTML] = {html, false},          [ESC_TCL] = {tcl, false},
    [ESC_CFG] = {cfg, true},           [ESC_TERM] = {term, false},          [ESC_SHELL] = {shell, true},
    [ESC_CSV] = {csv, false},
};

static void run(Sink *k, EscLang lang, const char *text)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    char out[40];
    if (lang == ESC_C_IDENT && *s >= '0' && *s <= '9') {
        sink_put(k, out, (size_t)sprintf(out, "_%02X", *s));   /* no identifier starts with a digit */
        s++;
    }
    if (lang == ESC_CSV && *s && strchr("=+-@", *s))
        sink_put(k, "'", 1);   /* a formula to a spreadsheet: shown as text */
    while (*s) {
        uint32_t c = 0;
        int n = utf8_unit(s, &c);
        if (langs[lang].bytes) {
            c = s[0];
            n = 1;
        }
        int m = langs[lang].fn(s, n, c, out);
        sink_put(k, out, (size_t)m);
        s += n ? n : 1;
    }
}

/* ------------------------------------------------------------- API */

void esc_put(FILE *f, EscLang lang, const char *s)
{
    Sink k = {.f = f};
    run(&k, lang, s);
}

char *esc_str(EscLang lang, const char *s)
{
    Sink k = {0};
    sink_put(&k, "", 0);
    run(&k, lang, s);
    return k.buf;
}

const char *esc_buf(char *buf, size_t n, EscLang lang, const char *s)
{
    Sink k = {.buf = buf, .cap = n, .fixed = true};
    buf[0] = 0;
    run(&k, lang, s);
    return buf;
}

const char *esc_term_fit(char *buf, size_t n, const char *s, size_t width, int tail)
{
    esc_buf(buf, n, ESC_TERM, s);
    size_t len = strlen(buf);
    if (len <= width)
        return buf;
    if (!tail) {
        while (width > 0 && (buf[width] & 0xc0) == 0x80)
            width--;
        buf[width] = 0;
        return buf;
    }
    const char *p = buf + len - width;
    while ((*p & 0xc0) == 0x80)
        p++;
    return p;
}

int esc_is_plain(EscLang lang, const char *s)
{
    char *e = esc_str(lang, s);
    int same = !strcmp(e, s ? s : "");
    free(e);
    return same;
}
