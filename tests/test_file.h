/* test_file.h - whole-file reads for the tests.
 *
 * Why a header: several tests compare files a program wrote (generated
 * code, driver results) with what they expect; one reader keeps them
 * alike. */
#ifndef ONNX2HLS_TEST_FILE_H
#define ONNX2HLS_TEST_FILE_H

#include <stdio.h>
#include <stdlib.h>

/* The bytes of path, NUL-terminated (malloc'd), their count in *len
 * (may be NULL); NULL if the file cannot be read whole. */
static inline char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *s = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (s = malloc((size_t)n + 1)) != NULL &&
        fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    if (s) {
        s[n] = 0;
        if (len)
            *len = (size_t)n;
    }
    return s;
}

#endif
