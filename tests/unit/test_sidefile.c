/* test_sidefile.c - ir/sidefile.h: the bounded reader refuses what is not
 * a regular file, what passes the kind's cap and NUL bytes in text, and
 * reads exactly what it should; the spec-line fields give back every layer
 * name that sf_put_spec_name writes, whatever bytes it holds.
 *
 * Why a unit test next to the script (test_hostile_files.sh): the script
 * runs the commands on /dev/zero and FIFOs; here the edge cases of the
 * reader itself (empty file, a file exactly at the cap, one byte over, a
 * short head) and a seeded round trip of names through the spec format. */
#include "check.h"
#include "ir/sidefile.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WORK BINARY_DIR "/test_sidefile.tmp"

static const char *put(const char *name, const void *data, size_t n)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", WORK, name);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
    return path;
}

static bool has(const IrDiag *d, const char *s)
{
    for (int i = 0; i < d->n; i++)
        if (strstr(d->v[i].msg, s))
            return true;
    return false;
}

/* sf_read of path with kind k: its return code, and a message holding want */
static int read_expect(const char *path, const SfKind *k, const char *want, size_t want_len)
{
    IrDiag d;
    diag_init(&d);
    char *data = NULL;
    size_t len = 99;
    int rc = sf_read(path, k, &data, &len, &d);
    if (rc == 0) {
        CHECK_EQ_INT(len, want_len);
        CHECK(data && data[len] == 0);
    } else {
        CHECK(data == NULL && len == 0);
        CHECK_MSG(has(&d, want), "%s: no '%s'", path, want);
        CHECK(d.n_errors == 1 && !strcmp(d.v[0].file, path));
    }
    free(data);
    diag_free(&d);
    return rc;
}

static void test_read(void)
{
    static const SfKind small = {"small file", 16, true}, bin = {"blob", 16, false};
    CHECK_EQ_INT(read_expect(put("empty", "", 0), &small, NULL, 0), 0);
    CHECK_EQ_INT(read_expect(put("cap", "0123456789abcdef", 16), &small, NULL, 16), 0);
    CHECK_EQ_INT(read_expect(put("over", "0123456789abcdefg", 17), &small, "17 bytes, more than the 16 bytes", 0), -1);
    CHECK_EQ_INT(read_expect(put("nul", "ab\0cd", 5), &small, "holds a NUL byte (at offset 2)", 0), -1);
    CHECK_EQ_INT(read_expect(put("nulbin", "ab\0cd", 5), &bin, NULL, 5), 0);
    CHECK_EQ_INT(read_expect("/dev/zero", &bin, "the blob is not a regular file", 0), -1);
    CHECK_EQ_INT(read_expect(WORK, &bin, "the blob is not a regular file", 0), -1);
    CHECK_EQ_INT(read_expect(WORK "/missing", &bin, "cannot open the blob", 0), -1);
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/fifo", WORK);
    if (mkfifo(fifo, 0600) == 0)   /* opened without blocking, then refused */
        CHECK_EQ_INT(read_expect(fifo, &bin, "the blob is not a regular file", 0), -1);
}

static void test_head_check(void)
{
    IrDiag d;
    diag_init(&d);
    char *data = NULL;
    const char *p = put("head", "0123456789", 10);
    CHECK_EQ_INT(sf_read_head(p, &SF_CALIB, 4, &data, &d), 0);
    CHECK(data && !memcmp(data, "0123", 4) && data[4] == 0);
    free(data);
    CHECK_EQ_INT(sf_read_head(p, &SF_CALIB, 11, &data, &d), -1);
    CHECK(data == NULL && has(&d, "cannot read 11 bytes of the calibration data"));
    uint64_t size = 0;
    CHECK_EQ_INT(sf_check(p, &SF_DEVICE_FILE, &size, &d), 0);
    CHECK_EQ_INT(size, 10);
    diag_free(&d);
}

static void test_lines(void)
{
    char text[] = "a b\r\n\n# c\nlast";
    char *cur = text, *l;
    const char *want[] = {"a b", "", "# c", "last"};
    int n = 0;
    while ((l = sf_next_line(&cur)) && n < 4)
        CHECK_MSG(!strcmp(l, want[n++]), "line %d: '%s'", n, l);
    CHECK_EQ_INT(n, 4);
    CHECK(sf_next_line(&cur) == NULL);
}

/* fields of line; their count, and each field against want (NULL-ended) */
static void fields(const char *line, int count, const char *const *want, const bool *quoted)
{
    char buf[256], *f[4];
    bool q[4];
    snprintf(buf, sizeof buf, "%s", line);
    int n = sf_fields(buf, f, q, 4);
    CHECK_MSG(n == count, "'%s': %d fields, want %d", line, n, count);
    for (int i = 0; i < n && i < count; i++) {
        CHECK_MSG(!strcmp(f[i], want[i]), "'%s': field %d '%s', want '%s'", line, i, f[i], want[i]);
        CHECK(q[i] == quoted[i]);
    }
}

static void test_fields(void)
{
    fields("", 0, NULL, NULL);
    fields("   # only a comment", 0, NULL, NULL);
    fields("conv_1 0.5", 2, (const char *[]){"conv_1", "0.5"}, (bool[]){0, 0});
    fields("\tconv_1   int8  # note", 2, (const char *[]){"conv_1", "int8"}, (bool[]){0, 0});
    fields("conv_1 0.5# note", 2, (const char *[]){"conv_1", "0.5"}, (bool[]){0, 0});
    fields("* 0", 2, (const char *[]){"*", "0"}, (bool[]){0, 0});
    fields("\"*\" 0", 2, (const char *[]){"*", "0"}, (bool[]){1, 0});
    fields("\"a b#c\\\"\\\\\\?\\033\\n\" 0.25", 2, (const char *[]){"a b#c\"\\?\033\n", "0.25"}, (bool[]){1, 0});
    fields("\"\" x", 2, (const char *[]){"", "x"}, (bool[]){1, 0});
    fields("\"open 0.5", -1, NULL, NULL);          /* no closing quote */
    fields("\"a\"b 0.5", -1, NULL, NULL);          /* text glued to the quote */
    fields("\"a\\q\" 0.5", -1, NULL, NULL);        /* unknown escape */
    fields("\"a\\0\" 0.5", -1, NULL, NULL);        /* a NUL would cut the name */
    fields("\"a\\777\" 0.5", -1, NULL, NULL);      /* not a byte */
    fields("a b c d e", -1, NULL, NULL);           /* more fields than asked for */
}

/* names of random bytes (and the hard ones) written, read back unchanged */
static void test_round_trip(void)
{
    const char *hard[] = {"*", "#", "\"", "a b", "a\tb", "?\?/", "x\\", "\xff\xfe", "-", "0.5", "\x1b[31m"};
    unsigned s = 12345;
    for (int i = 0; i < 2000; i++) {
        char name[40];
        if (i < (int)(sizeof hard / sizeof hard[0])) {
            snprintf(name, sizeof name, "%s", hard[i]);
        } else {
            int n = 1 + (int)((s = s * 1103515245u + 12345u) >> 16) % 30;
            for (int k = 0; k < n; k++)
                name[k] = (char)(1 + ((s = s * 1103515245u + 12345u) >> 16) % 255);
            name[n] = 0;
        }
        char *line = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&line, &len);
        sf_put_spec_name(f, name);
        fputs(" 0.5\n", f);
        fclose(f);
        line[strcspn(line, "\n")] = 0;   /* as sf_next_line gives it */
        char *fl[2];
        bool q[2];
        int n = sf_fields(line, fl, q, 2);
        CHECK_MSG(n == 2 && !strcmp(fl[0], name) && !strcmp(fl[1], "0.5"), "name %d does not come back", i);
        CHECK(strcmp(name, "*") || q[0]);   /* a layer named '*' is not the default */
        free(line);
    }
}

int main(void)
{
    mkdir(WORK, 0777);
    test_read();
    test_head_check();
    test_lines();
    test_fields();
    test_round_trip();
    if (system("rm -rf '" WORK "'") != 0)
        fprintf(stderr, "cannot remove %s\n", WORK);
    return check_done();
}
