/* check.h - the test suite's assertion macros.
 *
 * CHECK records a failure and goes on, so one run shows every broken case;
 * check_done() prints the tally and gives the process exit code. */
#ifndef ONNX2HLS_CHECK_H
#define ONNX2HLS_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failed, check_total;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        check_total++;                                                               \
        if (!(cond)) {                                                               \
            check_failed++;                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_MSG(cond, ...)                                                         \
    do {                                                                             \
        check_total++;                                                               \
        if (!(cond)) {                                                               \
            check_failed++;                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
        }                                                                            \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                  \
    do {                                                                                    \
        long long _a = (long long)(a), _b = (long long)(b);                                 \
        check_total++;                                                                      \
        if (_a != _b) {                                                                     \
            check_failed++;                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n", __FILE__,    \
                    __LINE__, #a, #b, _a, _b);                                              \
        }                                                                                   \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                               \
    do {                                                                                    \
        double _a = (double)(a), _b = (double)(b);                                          \
        check_total++;                                                                      \
        if (!(fabs(_a - _b) <= (tol))) {                                                    \
            check_failed++;                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s ~ %s (%g vs %g)\n", __FILE__,         \
                    __LINE__, #a, #b, _a, _b);                                              \
        }                                                                                   \
    } while (0)

static inline int check_done(void)
{
    printf("%d checks, %d failed\n", check_total, check_failed);
    return check_failed ? 1 : 0;
}

#endif
