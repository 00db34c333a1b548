/* escape.h - text that came from a model file, made safe for the language
 * of the output it lands in. Every emitter and every printer goes through
 * here; none writes a model-derived string (tensor, node, graph names, doc
 * strings, producer, file paths) with a bare %s.
 *
 * Why one module: a name is attacker-controlled bytes. A tensor named
 * `??/", 1}; int evil;` ends a C string early when trigraphs are on (ISO
 * modes), a star and a slash end a comment, `"` ends a JSON string, `<` opens an HTML
 * tag, `[` runs a Tcl command, a newline starts a new cfg key, ESC drives
 * the user's terminal. The rules for each language live in escape.c, once.
 *
 * The languages (esc_* writes the escaped text without any delimiters; the
 * caller writes the quotes or the comment markers):
 *   ESC_C_STRING   inside "..." of C/C++: \" \\ \? (no trigraph can form),
 *                  every byte outside printable ASCII as 3-digit octal.
 *   ESC_C_COMMENT  inside a C block comment: printable ASCII only, "*" + "/"
 *                  and "/" + "*" broken, "??" broken, other bytes as \xHH.
 *                  Never in a // comment (a trailing backslash splices lines).
 *   ESC_C_IDENT    a C identifier: [A-Za-z0-9] kept, '_' doubled, any other
 *                  byte as _XX (hex); a leading digit or an empty name gets a
 *                  "n_" prefix. Injective, so distinct names stay distinct;
 *                  still prefix it (e.g. "t_") so it cannot hit a keyword or
 *                  a name of your own.
 *   ESC_JSON       inside "..." of JSON: \" \\ \uXXXX for control characters
 *                  (C0, DEL, C1, bidirectional overrides and isolates),
 *                  U+2028/2029, and U+FFFD for bytes that are not UTF-8.
 *   ESC_HTML       HTML text or a quoted attribute value: & < > " ' as
 *                  entities, control characters and bad UTF-8 as \xHH text.
 *   ESC_TCL        inside "..." of Tcl: \ " $ [ ] { } ; escaped with a
 *                  backslash, control characters and non-ASCII as \uXXXX
 *                  (so nothing is substituted or run). Also safe in a Tcl
 *                  # comment line.
 *   ESC_CFG        a value of an INI-style cfg (hls_config.cfg): bytes
 *                  outside [A-Za-z0-9_.,:/+@-] become '_' (lossy: display
 *                  only; put generated names in keys that matter).
 *   ESC_TERM       a terminal or log line (diagnostics, text reports):
 *                  control characters, DEL, C1 controls and bad UTF-8 as
 *                  \xHH, backslash as \\; valid UTF-8 text kept.
 *   ESC_SHELL      inside '...' of a POSIX shell script: ' becomes '\''
 *                  (close, an escaped quote, reopen); every other byte is
 *                  literal there, newlines included, so nothing expands.
 *   ESC_CSV        inside "..." of a CSV field (RFC 4180): " doubled,
 *                  control characters and bad UTF-8 as \xHH (a record stays
 *                  on one line), and a field that starts with = + - @ gets a
 *                  leading ' so a spreadsheet shows it instead of running it.
 */
#ifndef ONNX2HLS_ESCAPE_H
#define ONNX2HLS_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
    ESC_C_STRING,
    ESC_C_COMMENT,
    ESC_C_IDENT,
    ESC_JSON,
    ESC_HTML,
    ESC_TCL,
    ESC_CFG,
    ESC_TERM,
    ESC_SHELL,
    ESC_CSV,
} EscLang;

/* s (NULL reads as "") escaped for lang, written to f. */
void esc_put(FILE *f, EscLang lang, const char *s);
/* The same as a malloc'd string the caller frees (aborts when out of memory). */
char *esc_str(EscLang lang, const char *s);
/* The same into buf of n bytes (n > 0), cut at a whole escape when it does
 * not fit; returns buf, so it can be an argument of printf. */
const char *esc_buf(char *buf, size_t n, EscLang lang, const char *s);
/* ESC_TERM text of s for a table column: at most width bytes of it, its
 * head (tail = 0) or its tail, cut at a character boundary; into buf. */
const char *esc_term_fit(char *buf, size_t n, const char *s, size_t width, int tail);
/* 1 when esc_str(lang, s) would equal s. */
int esc_is_plain(EscLang lang, const char *s);

#endif
