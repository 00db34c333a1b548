/* test_util.h - what the unit tests share besides assertions (check.h):
 * whole files in, the ONNX test data root, and the skip convention.
 *
 * Why one header: reading a file whole, finding libonnx-testdata and saying
 * "skipped" were written once per test, each a little differently (one
 * returned 0 when the data was missing, so a skip looked like a pass). A
 * test that cannot run exits TEST_SKIP, which tests/CMakeLists.txt declares
 * as every test's SKIP_RETURN_CODE, so ctest reports it as skipped. */
#ifndef ONNX2HLS_TEST_UTIL_H
#define ONNX2HLS_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_SKIP 77

/* The rest of stream f from its start, NUL-terminated (len without the
 * NUL; may be NULL). NULL when it cannot be read. */
static inline char *test_read_stream(FILE *f, size_t *len)
{
    if (fseek(f, 0, SEEK_END))
        return NULL;
    long n = ftell(f);
    rewind(f);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) {
        buf[n] = 0;
        if (len)
            *len = (size_t)n;
    }
    return buf;
}

/* Whole file at path, NUL-terminated; NULL when unreadable. */
static inline char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = test_read_stream(f, len);
    fclose(f);
    return buf;
}

/* A raw float32 file; *n values. */
static inline float *test_read_f32(const char *path, size_t *n)
{
    size_t len = 0;
    float *v = (float *)test_read_file(path, &len);
    *n = len / sizeof(float);
    return v;
}

/* Root of the ONNX backend test data (Debian libonnx-testdata), or
 * $O2H_CONFORMANCE_DATA when set. */
static inline const char *test_data_root(void)
{
    const char *e = getenv("O2H_CONFORMANCE_DATA");
    return e && *e ? e : "/usr/share/libonnx-testdata/data";
}

/* Print why and give the skip exit code: `return test_skip("...");` */
static inline int test_skip(const char *why)
{
    printf("skipped: %s\n", why);
    return TEST_SKIP;
}

#endif
