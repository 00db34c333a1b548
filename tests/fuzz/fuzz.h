/* fuzz.h - what the fuzz targets share: the entry-point macro, files in a
 * private temporary folder, the samples, and the invariants a finding breaks.
 *
 * Why one harness for two drivers: each tests/fuzz/fuzz_<entry>.c is built
 * twice - with clang -fsanitize=fuzzer (libFuzzer drives it, coverage
 * guided, O2H_LIBFUZZER defined) and with the suite's gcc ASan build, where
 * fuzz_mutate.c links every target and feeds it seeded mutations of the seed
 * corpus. Both run the same code, so what libFuzzer finds reproduces in the
 * deterministic test, and neither drifts from the other.
 *
 * A target returns 0. What counts as a finding: a crash, a sanitizer report
 * (memory error, undefined behaviour, a leak), a time-out, or a broken
 * invariant checked with FZ_ASSERT (e.g. a refusal with no error naming the
 * file, a graph that fails ir_verify after the passes), which aborts. */
#ifndef ONNX2HLS_FUZZ_H
#define ONNX2HLS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "codegen/hls_lint.h"
#include "ir/diag.h"
#include "ir/ir.h"

typedef struct {
    const char *name;
    int (*init)(void);                            /* once; 0 ok, -1 cannot run here; may be NULL */
    int (*one)(const uint8_t *data, size_t size);  /* one input; returns 0 */
    /* a structure-aware mutation in place (at most max bytes); the new size,
     * 0 when it does not apply (the byte-level mutations then run); may be NULL */
    size_t (*mutate)(uint8_t *data, size_t size, size_t max, uint64_t seed);
} FuzzTarget;

/* fuzz_onnx.c: the input decoded as an ONNX model, its graph edited (attributes,
 * dims, wiring, op types, opset), encoded again; 0 when it does not decode */
size_t fz_onnx_mutate(uint8_t *data, size_t size, size_t max, uint64_t seed);

#ifdef O2H_LIBFUZZER
#define FUZZ_TARGET(nm, init_fn, one_fn)                                               \
    int LLVMFuzzerInitialize(int *argc, char ***argv);                                 \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                      \
    int LLVMFuzzerInitialize(int *argc, char ***argv)                                  \
    {                                                                                  \
        (void)argc;                                                                    \
        (void)argv;                                                                    \
        int (*i_)(void) = init_fn;                                                     \
        if (i_ && i_()) {                                                              \
            fprintf(stderr, "fuzz_" #nm ": cannot set up (see above)\n");              \
            exit(77);                                                                  \
        }                                                                              \
        return 0;                                                                      \
    }                                                                                  \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return one_fn(data, size); }
/* an ONNX model's target: every other mutation is fz_onnx_mutate's */
#define FUZZ_TARGET_ONNX(nm, init_fn, one_fn)                                          \
    FUZZ_TARGET(nm, init_fn, one_fn)                                                   \
    size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);                   \
    size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned seed); \
    size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned seed) \
    {                                                                                  \
        size_t n = seed % 2 ? fz_onnx_mutate(data, size, max, seed) : 0;               \
        return n ? n : LLVMFuzzerMutate(data, size, max);                              \
    }
#else
#define FUZZ_TARGET(nm, init_fn, one_fn) const FuzzTarget fuzz_target_##nm = {#nm, init_fn, one_fn, NULL};
#define FUZZ_TARGET_ONNX(nm, init_fn, one_fn) \
    const FuzzTarget fuzz_target_##nm = {#nm, init_fn, one_fn, fz_onnx_mutate};
#endif

/* A broken invariant: print it and abort (libFuzzer saves the input). */
#define FZ_ASSERT(cond, ...)                                                          \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: fuzz invariant broken: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            abort();                                                                  \
        }                                                                             \
    } while (0)

/* data written to NAME in this process's private temporary folder (made on
 * first use, removed at exit); returns its path (static storage per name,
 * at most 16 distinct names). NULL when it cannot be written. */
const char *fz_file(const char *name, const void *data, size_t size);
/* the folder itself */
const char *fz_dir(void);
/* samples/NAME of the source tree */
const char *fz_sample(const char *name);
/* a stream that discards what is written (printers under test) */
FILE *fz_null(void);
/* A failed call's diagnostics: at least one error, and every error names a
 * file; aborts otherwise. what names the call for the message. */
void fz_check_refusal(const IrDiag *d, const char *what);
/* A loaded or transformed graph passes ir_verify; aborts otherwise. */
void fz_check_graph(const IrGraph *g, const char *what);
/* A lint's outcome (cg_hls_lint returned n into r, d): a refusal is checked
 * as above, n is r's count of findings, each names a file, a rule and a
 * line, the report prints, and no libclang handle outlives the call. */
void fz_check_lint(int n, const CgHlsLintResult *r, const IrDiag *d, const char *what);
/* The input as a model file, loaded with fe_load_onnx into d; a refusal is
 * checked (fz_check_refusal). NULL when refused or not written. */
IrGraph *fz_load_input(const uint8_t *data, size_t size, IrDiag *d);
/* FNV-1a of the data, for choosing a variant deterministically per input */
uint32_t fz_hash(const uint8_t *data, size_t size);

#endif
