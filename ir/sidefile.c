/* sidefile.c - bounded reading of the files named on the command line
 * (see sidefile.h). One open (non-blocking, close-on-exec), one fstat,
 * reads up to cap + 1 bytes (a file may grow between fstat and read), then
 * the kind's checks. */
#include "sidefile.h"

#include "escape.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MiB (1024ull * 1024ull)

const SfKind SF_DEVICE_FILE = {"device file", 1 * MiB, true};
const SfKind SF_PRECISION_SPEC = {"precision spec", 16 * MiB, true};
const SfKind SF_PRUNE_SPEC = {"prune spec", 16 * MiB, true};
const SfKind SF_CALIB = {"calibration data", 2048 * MiB, false};
const SfKind SF_BIND = {"bound input", 256 * MiB, false};
const SfKind SF_MODEL_JSON = {"model.json", 64 * MiB, true};
const SfKind SF_TENSOR_DATA = {"tensor data", 4096 * MiB, false};
const SfKind SF_TB_INPUT = {"testbench input", 4096 * MiB, false};
const SfKind SF_C_SOURCE = {"C source file", 16 * MiB, true};
const SfKind SF_HLS_CFG = {"hls_config.cfg", 1 * MiB, true};

static const char *human(uint64_t n, char *buf, size_t len)
{
    if (n >= MiB && n % MiB == 0)
        snprintf(buf, len, "%llu MiB", (unsigned long long)(n / MiB));
    else
        snprintf(buf, len, "%llu bytes", (unsigned long long)n);
    return buf;
}

/* open and check; the descriptor, or -1 with a message */
static int open_regular(const char *path, const SfKind *k, struct stat *st, IrDiag *d)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        diag_error(d, path, NULL, NULL, "cannot open the %s: %s", k->what, strerror(errno));
        return -1;
    }
    char b1[32], b2[32];
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        diag_error(d, path, NULL, NULL, "the %s is not a regular file", k->what);
    } else if ((uint64_t)st->st_size > k->cap) {
        diag_error(d, path, NULL, NULL, "the %s is %s, more than the %s a %s may hold", k->what,
                   human((uint64_t)st->st_size, b1, sizeof b1), human(k->cap, b2, sizeof b2), k->what);
    } else {
        return fd;
    }
    close(fd);
    return -1;
}

int sf_check(const char *path, const SfKind *k, uint64_t *size, IrDiag *d)
{
    struct stat st;
    int fd = open_regular(path, k, &st, d);
    if (fd < 0)
        return -1;
    close(fd);
    if (size)
        *size = (uint64_t)st.st_size;
    return 0;
}

/* up to want bytes from fd; returns the count, -1 on a read error */
static int64_t read_upto(int fd, char *buf, uint64_t want)
{
    uint64_t got = 0;
    while (got < want) {
        ssize_t r = read(fd, buf + got, want - got > (1u << 30) ? (1u << 30) : want - got);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (uint64_t)r;
    }
    return (int64_t)got;
}

int sf_read(const char *path, const SfKind *k, char **data, size_t *len, IrDiag *d)
{
    struct stat st;
    *data = NULL;
    *len = 0;
    int fd = open_regular(path, k, &st, d);
    if (fd < 0)
        return -1;
    uint64_t size = (uint64_t)st.st_size;
    char *buf = malloc(size + 2);
    int64_t got = buf ? read_upto(fd, buf, size + 1) : -1;
    int err = errno;
    close(fd);
    char b1[32];
    if (!buf || got < 0) {
        diag_error(d, path, NULL, NULL, "cannot read the %s: %s", k->what, buf ? strerror(err) : "out of memory");
    } else if ((uint64_t)got > size) {
        diag_error(d, path, NULL, NULL, "the %s grew while it was read (over %s)", k->what,
                   human(size, b1, sizeof b1));
    } else if (k->text && memchr(buf, 0, (size_t)got)) {
        diag_error(d, path, NULL, NULL, "the %s holds a NUL byte (at offset %zu): not a text file", k->what,
                   (size_t)((char *)memchr(buf, 0, (size_t)got) - buf));
    } else {
        buf[got] = 0;
        *data = buf;
        *len = (size_t)got;
        return 0;
    }
    free(buf);
    return -1;
}

int sf_read_head(const char *path, const SfKind *k, size_t want, char **data, IrDiag *d)
{
    struct stat st;
    *data = NULL;
    int fd = open_regular(path, k, &st, d);
    if (fd < 0)
        return -1;
    char *buf = malloc(want + 1);
    int64_t got = buf ? read_upto(fd, buf, want) : -1;
    close(fd);
    if (got != (int64_t)want) {
        diag_error(d, path, NULL, NULL, "cannot read %zu bytes of the %s", want, k->what);
        free(buf);
        return -1;
    }
    if (k->text && memchr(buf, 0, want)) {
        diag_error(d, path, NULL, NULL, "the %s holds a NUL byte: not a text file", k->what);
        free(buf);
        return -1;
    }
    buf[want] = 0;
    *data = buf;
    return 0;
}

char *sf_next_line(char **cursor)
{
    char *s = *cursor;
    if (!s || !*s)
        return NULL;
    char *nl = strchr(s, '\n');
    if (nl) {
        *nl = 0;
        *cursor = nl + 1;
    } else {
        *cursor = s + strlen(s);
    }
    size_t n = strlen(s);
    if (n && s[n - 1] == '\r')
        s[n - 1] = 0;
    return s;
}

/* one escape of a quoted field at *p (after the backslash): the byte, or
 * -1; *p advanced past it */
static int unescape(char **p)
{
    char c = *(*p)++;
    if (c == '"' || c == '\\' || c == '?')
        return c;
    if (c == 'n' || c == 't')
        return c == 'n' ? '\n' : '\t';
    if (c < '0' || c > '7')
        return -1;
    int v = c - '0';
    for (int k = 0; k < 2 && **p >= '0' && **p <= '7'; k++)
        v = v * 8 + *(*p)++ - '0';
    return v > 0 && v < 256 ? v : -1;
}

/* the quoted field at s (on the '"'), decoded in place from s; the
 * position after the closing quote, NULL when malformed */
static char *quoted_field(char *s)
{
    char *r = s + 1, *w = s;
    while (*r && *r != '"') {
        int c = *r == '\\' ? (r++, unescape(&r)) : *r++;
        if (c < 0)
            return NULL;
        *w++ = (char)c;
    }
    if (*r != '"' || (r[1] && r[1] != ' ' && r[1] != '\t'))
        return NULL;
    *w = 0;
    return r + 1;
}

int sf_fields(char *line, char **f, bool *quoted, int max)
{
    int n = 0;
    for (char *s = line;;) {
        s += strspn(s, " \t");
        if (!*s || *s == '#')
            return n;
        if (n == max)
            return -1;
        f[n] = s;
        quoted[n] = *s == '"';
        if (quoted[n]) {
            if (!(s = quoted_field(s)))
                return -1;
        } else {
            s += strcspn(s, " \t#");
            if (*s == '#') {   /* "name 0.5# note" */
                *s = 0;
                return n + 1;
            }
        }
        n++;
        if (*s)
            *s++ = 0;
    }
}

void sf_put_spec_name(FILE *f, const char *name)
{
    bool bare = name[0] && strcmp(name, "*") && esc_is_plain(ESC_C_STRING, name) && !strpbrk(name, " #");
    if (bare) {
        fputs(name, f);
        return;
    }
    fputc('"', f);
    esc_put(f, ESC_C_STRING, name);
    fputc('"', f);
}
