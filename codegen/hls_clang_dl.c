/* hls_clang_dl.c - loads libclang on first use (see hls_clang_api.h): the
 * library CMake found at build time, else the usual sonames. */
#define HC_NO_REDIRECT
#include "hls_clang_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ONNX2HLS_LIBCLANG
#define ONNX2HLS_LIBCLANG "libclang.so"
#endif

HcApi hc_api;

static char *reason(const char *what, const char *detail)
{
    size_t n = strlen(what) + strlen(detail) + 64;
    char *s = malloc(n);
    if (!s)
        abort();
    snprintf(s, n, "%s%s (install libclang: Debian libclang-dev)", what, detail);
    return s;
}

static void *open_libclang(void)
{
    static const char *const names[] = {ONNX2HLS_LIBCLANG, "libclang.so", "libclang.so.1", "libclang-16.so.1",
                                        "libclang-15.so.1", "libclang-14.so.1", "libclang-14.so.13"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}

int hc_load(char **why)
{
    static int state;            /* 0 not tried, 1 loaded, -1 failed */
    static char missing[128];
    if (state == 0) {
        /* libclang runs each parse on a thread of its own (for an 8 MiB
         * stack) unless told not to: a thread, its stack mapped and
         * unmapped, per parse, and a model parses its engines ~100 times.
         * Our callers give it that stack themselves (cg_hls_write_engines),
         * so parses run on the calling thread. Set before any thread of
         * ours starts; a value from the user's environment is kept. */
        setenv("LIBCLANG_NOTHREADS", "1", 0);
        void *h = open_libclang();
        state = h ? 1 : -1;
#define HC_SYM(f)                                                        \
    if (state > 0) {                                                     \
        void *p = dlsym(h, #f);                                          \
        if (p)                                                           \
            memcpy(&hc_api.f, &p, sizeof p);                             \
        else                                                             \
            state = -1, snprintf(missing, sizeof missing, "%s", #f);     \
    }
        HC_FUNCS(HC_SYM)
#undef HC_SYM
    }
    if (state < 0 && why)
        *why = reason(missing[0] ? "libclang lacks " : "cannot load libclang", missing[0] ? missing : "");
    return state > 0 ? 0 : -1;
}
