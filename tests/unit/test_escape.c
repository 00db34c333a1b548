/* test_escape.c - the escaping rules of ir/escape.h, language by language,
 * on the strings an attacker would put in a model: trigraphs, comment and
 * string terminators, markup, Tcl substitutions, newlines, terminal escape
 * sequences, bidirectional overrides and bytes that are not UTF-8. */
#include "check.h"
#include "ir/escape.h"

#include <stdlib.h>
#include <string.h>

static void expect(EscLang lang, const char *in, const char *want)
{
    char *got = esc_str(lang, in);
    CHECK_MSG(!strcmp(got, want), "lang %d: '%s' -> '%s', want '%s'", (int)lang, in, got, want);
    free(got);
}

static void test_c(void)
{
    expect(ESC_C_STRING, "plain_name.1", "plain_name.1");
    expect(ESC_C_STRING, "?\?/\", 1}; int evil;", "\\?\\?/\\\", 1}; int evil;");
    expect(ESC_C_STRING, "a\\b\n\x01\xff", "a\\\\b\\012\\001\\377");
    expect(ESC_C_STRING, "\xc3\xa9", "\\303\\251");   /* bytes, octal: no hex run-on */
    expect(ESC_C_COMMENT, "x */ int evil; /* y", "x * / int evil; / * y");
    expect(ESC_C_COMMENT, "a?\?/", "a? ?/");   /* the source spells ?? as ?\? */
    expect(ESC_C_COMMENT, "line\nbreak\\", "line\\x0abreak\\\\");
    expect(ESC_C_COMMENT, "**/", "** /");
    expect(ESC_C_IDENT, "conv_1/out", "conv__1_2Fout");
    expect(ESC_C_IDENT, "1x", "_31x");
    expect(ESC_C_IDENT, "", "");
    /* distinct names stay distinct */
    char *a = esc_str(ESC_C_IDENT, "a_2F"), *b = esc_str(ESC_C_IDENT, "a/");
    CHECK(strcmp(a, b) != 0);
    free(a), free(b);
}

static void test_json_html(void)
{
    expect(ESC_JSON, "a\"b\\c", "a\\\"b\\\\c");
    expect(ESC_JSON, "\n\x1b[31m\x7f", "\\u000a\\u001b[31m\\u007f");
    expect(ESC_JSON, "caf\xc3\xa9", "caf\xc3\xa9");          /* valid UTF-8 kept */
    expect(ESC_JSON, "bad\xff\xc3", "bad\\ufffd\\ufffd");   /* invalid bytes replaced */
    expect(ESC_JSON, "\xe2\x80\xa8", "\\u2028");
    expect(ESC_JSON, "\xe2\x80\xae\xc2\x85", "\\u202e\\u0085");   /* right-to-left override, C1 NEL */
    expect(ESC_JSON, "\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd"); /* a surrogate is not UTF-8 */
    expect(ESC_JSON, "\xc0\xaf", "\\ufffd\\ufffd");          /* overlong '/' */
    expect(ESC_HTML, "<script>alert('x')</script>&", "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;");
    expect(ESC_HTML, "\"onmouseover=", "&quot;onmouseover=");
    expect(ESC_HTML, "\x1b]0;t\x07\xff", "\\x1b]0;t\\x07\\xff");
}

static void test_tcl_cfg(void)
{
    expect(ESC_TCL, "[exec rm -rf ~]", "\\[exec rm -rf ~\\]");
    expect(ESC_TCL, "$env(HOME) {a} \"q\" ;x\\", "\\$env(HOME) \\{a\\} \\\"q\\\" \\;x\\\\");
    expect(ESC_TCL, "a\nb\xc3\xa9\xff", "a\\u000ab\\u00e9\\u00ff");
    expect(ESC_CFG, "top\n[hls]\nsyn.top=evil # x", "top__hls__syn.top_evil___x");
    expect(ESC_CFG, "conv_1/out-2.a", "conv_1/out-2.a");
}

/* shell words and CSV fields, for the sweep's scripts and table */
static void test_shell_csv(void)
{
    expect(ESC_SHELL, "it's $(rm -rf ~) `x` \\ \"q\"", "it'\\''s $(rm -rf ~) `x` \\ \"q\"");
    expect(ESC_SHELL, "a\nb\xff", "a\nb\xff");   /* literal inside single quotes */
    expect(ESC_SHELL, "''", "'\\'''\\''");
    expect(ESC_CSV, "a,\"b\"", "a,\"\"b\"\"");
    expect(ESC_CSV, "=HYPERLINK(\"x\")", "'=HYPERLINK(\"\"x\"\")");
    expect(ESC_CSV, "-2+3", "'-2+3");
    expect(ESC_CSV, "@SUM", "'@SUM");
    expect(ESC_CSV, "x=1", "x=1");
    expect(ESC_CSV, "line\r\nnext\xff caf\xc3\xa9", "line\\x0d\\x0anext\\xff caf\xc3\xa9");
}

static void test_term(void)
{
    expect(ESC_TERM, "node\x1b[2J", "node\\x1b[2J");
    expect(ESC_TERM, "tab\there\r\n", "tab\\x09here\\x0d\\x0a");
    expect(ESC_TERM, "r\xc3\xa9sum\xc3\xa9 \\", "r\xc3\xa9sum\xc3\xa9 \\\\");
    expect(ESC_TERM, "\xc2\x9b" "31m", "\\xc2\\x9b31m");          /* C1 CSI */
    expect(ESC_TERM, "a\xe2\x80\xae" "cba", "a\\xe2\\x80\\xaecba"); /* right-to-left override */
    expect(ESC_TERM, "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");       /* emoji kept */
    expect(ESC_TERM, "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");   /* beyond U+10FFFF */
    expect(ESC_TERM, NULL, "");
    CHECK(esc_is_plain(ESC_TERM, "conv_1"));
    CHECK(!esc_is_plain(ESC_TERM, "a\nb"));
}

static void test_buffers(void)
{
    char buf[8];
    CHECK(!strcmp(esc_buf(buf, sizeof buf, ESC_TERM, "abcdefghij"), "abcdefg"));
    /* cut between escapes, never inside one */
    CHECK(!strcmp(esc_buf(buf, 5, ESC_TERM, "ab\x1b"), "ab"));
    CHECK(!strcmp(esc_buf(buf, 1, ESC_TERM, "x"), ""));
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    esc_put(f, ESC_C_STRING, "a?b");
    fclose(f);
    CHECK(!strcmp(mem, "a\\?b"));
    free(mem);
}

int main(void)
{
    test_c();
    test_json_html();
    test_tcl_cfg();
    test_shell_csv();
    test_term();
    test_buffers();
    return check_done();
}
