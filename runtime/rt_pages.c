/* rt_pages.c - what the runtime asks the OS about memory: huge pages for
 * the generated program's large buffers (activation arena, weight pool,
 * weight file), and the size of the L2 cache the GEMM sizes its B layout by
 * (o2h_l2_bytes, see o2h_bpack_wanted in rt_gemm.c).
 *
 * Why: the kernels read NCHW planes row by row across channels, so a
 * pointwise conv's tile touches a new 4 KB page at every input row, and the
 * weight panels stream through megabytes. Linux's transparent huge pages
 * map 2 MB at a time, but with the common "madvise" setting only where a
 * program asks. Measured on a Zen 4 at x86-64-v3 (alternated runs of
 * --time 40, float, 30 MB of MnasNet's buffers in huge pages): MnasNet
 * 7.38-7.50 -> 7.33-7.39 ms; MobileNetV1 11.90-14.37 -> 11.69-11.89 (the
 * 13.1 and 14.4 ms readings were the old program's; 3 earlier rounds were
 * within noise). The advice is a hint: the results are the same with or without it, and
 * where there is no madvise (other systems, bare metal) nothing is done. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE
#endif
#include "o2h_rt.h"

#include <stdint.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

/* Size of a transparent huge page on x86-64 and on arm64 with 4 KB pages. */
#define O2H_HUGE_BYTES ((uintptr_t)2 << 20)

size_t o2h_huge_span(const void *p, size_t bytes, uintptr_t *lo)
{
    uintptr_t start = (uintptr_t)p, end = start + bytes;
    uintptr_t a = (start + O2H_HUGE_BYTES - 1) & ~(O2H_HUGE_BYTES - 1);
    uintptr_t e = end & ~(O2H_HUGE_BYTES - 1);
    *lo = a;
    if (!p || end <= start || e <= a)
        return 0;
    return (size_t)(e - a);
}

void o2h_advise_huge(void *p, size_t bytes)
{
    uintptr_t lo;
    size_t n = o2h_huge_span(p, bytes, &lo);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (n > 0)
        (void)madvise((void *)lo, n, MADV_HUGEPAGE);
#else
    (void)n;
#endif
}

long o2h_l2_bytes(void)
{
#if defined(__linux__) && defined(_SC_LEVEL2_CACHE_SIZE)
    long b = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return b > 0 ? b : 0;
#else
    return 0;
#endif
}
