/* fuzz_mutate.c - test_fuzz_mutate: every fuzz target of tests/fuzz, built
 * with the suite's compiler and sanitizers (no libFuzzer), fed its seed
 * corpus, the committed regression inputs, and mutations of every seed made
 * from fixed seeds.
 *
 * Why beside libFuzzer: the coverage-guided runs need clang and find
 * different things on every run; this test needs neither and is the same
 * on every run, so a regression in any entry point fails CI the same way
 * each time. A finding of either is kept as a regression input in
 * tests/fuzz/regress/<target>/ (replayed here first).
 *
 *   test_fuzz_mutate CORPUS_DIR [TARGET...]        seeds, regressions, mutations
 *   test_fuzz_mutate --replay TARGET FILE...        those inputs only
 *
 * CORPUS_DIR/<target>/ holds the seeds (tests/fuzz/make_corpus.sh writes
 * them). Mutations: O2H_FUZZ_MUTATIONS per seed (default 8), each seed
 * s = 1..N stacking 1-4 edits chosen by a xorshift generator seeded from s
 * and the seed's name: bit flips, bytes set to boundary values, 2/4/8-byte
 * boundary integers, cut, duplicated or deleted ranges, and inserted
 * tokens that text formats give meaning to (numbers at the edges, quotes,
 * escapes, brackets, '#', '*', keys of the JSON files); for a model, every
 * other mutation is instead structural (fuzz_onnx.c). Inputs above 1 MiB
 * are cut there. On a crash or a sanitizer report the case is printed and
 * its input saved as BINARY_DIR/fuzz/mutate-crash-<target>.bin. */
#include "fuzz.h"

#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define HAVE_DEATH_CALLBACK 1
#endif

#define X(n) extern const FuzzTarget fuzz_target_##n;
#include "fuzz_targets.def"
#undef X

static const FuzzTarget *const targets[] = {
#define X(n) &fuzz_target_##n,
#include "fuzz_targets.def"
#undef X
};
#define N_TARGETS ((int)(sizeof targets / sizeof targets[0]))

#define FZ_MAX_INPUT (1u << 20)

/* ------------------------------------------------------ current case */

static struct {
    const char *target;
    char what[600];
    const uint8_t *data;
    size_t size;
} cur;

static void save_case(void)
{
    if (!cur.target)
        return;
    char p[700];
    snprintf(p, sizeof p, "%s/fuzz/mutate-crash-%s.bin", BINARY_DIR, cur.target);
    FILE *f = fopen(p, "wb");
    if (f) {
        if (cur.size)
            fwrite(cur.data, 1, cur.size, f);
        fclose(f);
    }
    fprintf(stderr, "\ntest_fuzz_mutate: the failing case: target %s, %s (%zu bytes), saved as %s\n"
                    "  replay: test_fuzz_mutate --replay %s %s\n",
            cur.target, cur.what, cur.size, p, cur.target, p);
}

static void on_abort(int sig)
{
    save_case();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void run(const FuzzTarget *t, const uint8_t *data, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void run(const FuzzTarget *t, const uint8_t *data, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cur.what, sizeof cur.what, fmt, ap);
    va_end(ap);
    cur.target = t->name;
    cur.data = data;
    cur.size = size;
    t->one(data, size);
    cur.target = NULL;
}

/* ------------------------------------------------------- mutations */

static uint64_t rng;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const char *const tokens[] = {
    "0", "-1", "1", "2", "255", "256", "65536", "2147483647", "-2147483648", "4294967296",
    "9223372036854775807", "-9223372036854775808", "18446744073709551616", "1e308", "-1e308", "1e-320",
    "nan", "inf", "-0", "0.5", "0.999999", "1.0", "\"", "\\", "\\x", "\\777", "#", "*", "{", "}", "[", "]",
    ",", ":", "null", "true", "=", "\n", "\r\n", " ", "\t", "\"\"", "\"base\":", "\"dsp\":", "\"shape\":",
    "\"dims\":", "\"inputs\":", "syn.file=", "syn.top=", "#pragma HLS ", "DATAFLOW", "PIPELINE II=",
    "UNROLL factor=", "INTERFACE m_axi port=", "ARRAY_PARTITION variable=", "depth=", "int8", "int16",
    "dfxp12", "float", "void f(void){f();}", "/*", "*/", "//", "#define ", "#include \"", "\xff", "\x80",
};

static const uint64_t ints[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
                                0xffffffff, 0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                0xffffffffffffffffull, 64, 40, 3};

/* one edit of buf (size *n, capacity cap) */
static void edit(uint8_t *buf, size_t *n, size_t cap)
{
    size_t sz = *n;
    size_t at = sz ? next() % sz : 0;
    switch (next() % 9) {
    case 0: /* flip a bit */
        if (sz)
            buf[at] ^= (uint8_t)(1u << next() % 8);
        break;
    case 1: /* a boundary byte */
        if (sz)
            buf[at] = (uint8_t)ints[next() % (sizeof ints / sizeof ints[0])];
        break;
    case 2: { /* a boundary integer, 2, 4 or 8 bytes little-endian */
        int w = 2 << next() % 3;
        uint64_t v = ints[next() % (sizeof ints / sizeof ints[0])];
        for (int k = 0; k < w && at + (size_t)k < sz; k++)
            buf[at + (size_t)k] = (uint8_t)(v >> 8 * k);
        break;
    }
    case 3: /* cut */
        *n = at;
        break;
    case 4: { /* delete a range */
        size_t len = sz ? 1 + next() % (sz - at < 64 ? sz - at : 64) : 0;
        memmove(buf + at, buf + at + len, sz - at - len);
        *n = sz - len;
        break;
    }
    case 5: { /* duplicate a range */
        size_t len = sz ? 1 + next() % (sz - at < 64 ? sz - at : 64) : 0;
        if (sz + len > cap)
            break;
        memmove(buf + at + len, buf + at, sz - at);
        *n = sz + len;
        break;
    }
    case 6: { /* a range overwritten with bytes from elsewhere */
        if (sz < 2)
            break;
        size_t from = next() % sz, len = 1 + next() % 16;
        for (size_t k = 0; k < len && at + k < sz && from + k < sz; k++)
            buf[at + k] = buf[from + k];
        break;
    }
    default: { /* a token inserted (7) or written over (8) */
        const char *t = tokens[next() % (sizeof tokens / sizeof tokens[0])];
        size_t len = strlen(t);
        if (rng % 2 && sz + len <= cap) {
            memmove(buf + at + len, buf + at, sz - at);
            *n = sz + len;
        } else if (at + len > sz) {
            break;
        }
        memcpy(buf + at, t, len);
        break;
    }
    }
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* ----------------------------------------------------------- files */

static uint8_t *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = malloc(FZ_MAX_INPUT + 1);
    *n = buf ? fread(buf, 1, FZ_MAX_INPUT, f) : 0;
    fclose(f);
    return buf;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* regular files of dir, sorted; count in *n (0 when dir is missing) */
static char **list_dir(const char *dir, int *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **v = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        char p[4200];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(p, &st) || !S_ISREG(st.st_mode))
            continue;
        char **nv = realloc(v, sizeof *v * (size_t)(*n + 1));
        if (!nv)
            break;
        v = nv;
        v[(*n)++] = strdup(p);
    }
    closedir(d);
    qsort(v, (size_t)*n, sizeof *v, cmp_str);
    return v;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static const FuzzTarget *find(const char *name)
{
    for (int i = 0; i < N_TARGETS; i++)
        if (!strcmp(targets[i]->name, name))
            return targets[i];
    return NULL;
}

/* ------------------------------------------------------------ main */

/* seeds, regressions and mutations of one target; the number of runs */
static long one_target(const FuzzTarget *t, const char *corpus, int mutations)
{
    char dir[4200];
    long runs = 0;
    int n_reg, n_seed;
    snprintf(dir, sizeof dir, "%s/tests/fuzz/regress/%s", SOURCE_DIR, t->name);
    char **reg = list_dir(dir, &n_reg);
    snprintf(dir, sizeof dir, "%s/%s", corpus, t->name);
    char **seeds = list_dir(dir, &n_seed);
    uint8_t *buf = malloc(FZ_MAX_INPUT + 64);
    for (int i = 0; i < n_reg; i++) {
        size_t n;
        uint8_t *data = read_all(reg[i], &n);
        if (data)
            run(t, data, n, "regression input %s", reg[i]);
        free(data);
        runs++;
    }
    for (int i = 0; i < n_seed; i++) {
        size_t n;
        uint8_t *data = read_all(seeds[i], &n);
        if (!data)
            continue;
        run(t, data, n, "seed %s", seeds[i]);
        runs++;
        const char *base = strrchr(seeds[i], '/') + 1;
        for (int s = 1; s <= mutations; s++) {
            rng = name_hash(base) ^ (uint64_t)s * 0x9e3779b97f4a7c15ull;
            if (!rng)
                rng = 1;
            size_t m = n;
            memcpy(buf, data, n);
            size_t sm = t->mutate && s % 2 ? t->mutate(buf, m, FZ_MAX_INPUT, rng) : 0;
            if (sm) {
                m = sm;
            } else {
                int edits = 1 + (int)(next() % 4);
                for (int k = 0; k < edits; k++)
                    edit(buf, &m, FZ_MAX_INPUT);
            }
            run(t, buf, m, "seed %s, mutation %d", seeds[i], s);
            runs++;
        }
        free(data);
    }
    free(buf);
    free_list(reg, n_reg);
    free_list(seeds, n_seed);
    return n_seed ? runs : -1;
}

int main(int argc, char **argv)
{
    signal(SIGABRT, on_abort);
    signal(SIGSEGV, on_abort);
#ifdef HAVE_DEATH_CALLBACK
    __sanitizer_set_death_callback(save_case);
#endif
    if (argc >= 4 && !strcmp(argv[1], "--replay")) {
        const FuzzTarget *t = find(argv[2]);
        if (!t || (t->init && t->init())) {
            fprintf(stderr, "test_fuzz_mutate: no target %s (or it cannot set up)\n", argv[2]);
            return 2;
        }
        for (int i = 3; i < argc; i++) {
            size_t n;
            uint8_t *data = read_all(argv[i], &n);
            if (!data) {
                fprintf(stderr, "test_fuzz_mutate: cannot read %s\n", argv[i]);
                return 2;
            }
            run(t, data, n, "input %s", argv[i]);
            free(data);
        }
        printf("%d input(s) of %s ran clean\n", argc - 3, t->name);
        return 0;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: test_fuzz_mutate CORPUS_DIR [TARGET...] | --replay TARGET FILE...\n");
        return 2;
    }
    const char *env = getenv("O2H_FUZZ_MUTATIONS");
    int mutations = env && atoi(env) >= 0 ? atoi(env) : 8;
    int missing = 0;
    for (int i = 0; i < N_TARGETS; i++) {
        const FuzzTarget *t = targets[i];
        bool want = argc == 2;
        for (int k = 2; k < argc; k++)
            want |= !strcmp(argv[k], t->name);
        if (!want)
            continue;
        if (t->init && t->init()) {
            fprintf(stderr, "test_fuzz_mutate: %s cannot set up\n", t->name);
            return 1;
        }
        long runs = one_target(t, argv[1], mutations);
        if (runs < 0) {
            fprintf(stderr, "test_fuzz_mutate: no seeds for %s in %s\n", t->name, argv[1]);
            missing++;
            continue;
        }
        printf("%-15s %6ld inputs ran clean (%d mutations per seed)\n", t->name, runs, mutations);
        fflush(stdout);
    }
    return missing ? 1 : 0;
}
