/* o2h_rt.h - the runtime library linked into every generated host program.
 *
 * Why it exists: generated model.c is a straight list of calls into these
 * kernels with constant descriptors, so the generated code stays small and
 * readable and the kernels are written, tuned and unit-tested once.
 *
 * Rules (the runtime is copied verbatim into OUT/host/runtime/ and must build
 * there with any C99 compiler, for any target, with nothing but libm):
 *  - no malloc, no exit/abort, no printf in kernels: buffers, including
 *    scratch, come from the caller (the static memory plan); functions that
 *    can fail return an O2hStatus;
 *  - layouts are NCHW float32 (or int8/int32 for the integer path);
 *  - shapes come in descriptor structs filled by the code generator;
 *  - results must not depend on the target beyond float rounding of sums
 *    (the integer path is bit exact everywhere).
 */
#ifndef O2H_RT_H
#define O2H_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    O2H_OK = 0,
    O2H_ERR_IO = 1,         /* file could not be read */
    O2H_ERR_FORMAT = 2,     /* bad magic / truncated blob */
    O2H_ERR_VERSION = 3,    /* blob version not supported */
    O2H_ERR_LAYOUT = 4,     /* blob made for another model (layout hash) */
    O2H_ERR_CRC = 5,        /* blob corrupted (CRC32 mismatch) */
    O2H_ERR_ARG = 6,        /* bad argument (size mismatch, NULL) */
    O2H_ERR_NOMEM = 7,      /* out of memory (a heap-allocated arena or pool) */
} O2hStatus;

const char *o2h_status_str(O2hStatus s);

/* ------------------------------------------------------- activations */

/* One per line of ir/act.def, in that order (codegen/host_epilogue.c
 * checks each value against IrActKind at compile time). */
typedef enum {
    O2H_ACT_NONE = 0,
    O2H_ACT_RELU,
    O2H_ACT_CLIP,         /* alpha = min, beta = max */
    O2H_ACT_LEAKY_RELU,   /* alpha */
    O2H_ACT_PRELU,        /* per-channel slope array (O2hEpilogue.slope) */
    O2H_ACT_SIGMOID,
    O2H_ACT_HARD_SIGMOID, /* max(0, min(1, alpha*x + beta)) */
    O2H_ACT_HARD_SWISH,   /* x * max(0, min(1, x/6 + 0.5)) */
    O2H_ACT_SILU,         /* x * sigmoid(x) */
    O2H_ACT_TANH,
    O2H_ACT_ELU,          /* alpha */
    O2H_ACT_MISH,         /* x * tanh(softplus(x)) */
    O2H_ACT_COUNT         /* not a kind: the number of kinds */
} O2hActKind;

/* Epilogue applied to each output of conv/gemm/eltwise:
 *   y = act(acc + bias[c] + residual[i])   (bias and residual optional) */
typedef struct {
    O2hActKind act;
    float alpha, beta;
    const float *slope;     /* PRelu slopes, one per channel (or 1 broadcast: n_slope) */
    int n_slope;
    const float *residual;  /* same shape as the output, or NULL */
} O2hEpilogue;

/* Apply an activation in place to n values (channel c for PRelu). */
void o2h_act_f32(const O2hEpilogue *e, float *x, size_t n, int channel);

/* ------------------------------------------------------- convolution */

/* 2-D convolution (1-D convs are passed with H = KH = 1). Output channel f
 * in group g reads input channels [g*C/G, (g+1)*C/G). */
typedef struct {
    int N, C, H, W;         /* input */
    int F, HO, WO;          /* output channels and size */
    int KH, KW, SH, SW, DH, DW;
    int PT, PL, PB, PR;     /* pads top, left, bottom, right */
    int G;                  /* groups */
} O2hConv2d;

/* Weights may be repacked once at init into a kernel-friendly layout.
 * o2h_conv2d_packed_size: floats needed (0 = use ONNX layout [F][C/G][KH][KW] as is). */
size_t o2h_conv2d_packed_size(const O2hConv2d *p);
void o2h_conv2d_pack(const O2hConv2d *p, const float *w_onnx, float *w_packed);
/* Scratch floats the forward call needs (e.g. im2col panel).
 * Weights that are not constants (a graph input or computed tensor) are
 * packed at run time, before each call, into a buffer of packed_size floats. */
size_t o2h_conv2d_scratch_size(const O2hConv2d *p);
/* w: packed weights if packed_size > 0, else ONNX layout. bias may be NULL. */
void o2h_conv2d_f32(const O2hConv2d *p, const float *x, const float *w, const float *bias,
                    const O2hEpilogue *e, float *y, float *scratch);

/* ConvTranspose 2-D; w in ONNX layout [C][F/G][KH][KW]; OPH/OPW output_padding
 * already included in HO/WO. */
void o2h_conv_transpose2d_f32(const O2hConv2d *p, const float *x, const float *w,
                              const float *bias, float *y);

/* -------------------------------------------------------------- gemm */

/* Y[M][N] = alpha * op(A)[M][K] * op(B)[K][N] + beta * Cbias (broadcast to MxN
 * by the bias shape: c_rows x c_cols, each 1 or full), then epilogue. */
typedef struct {
    int M, N, K;
    int trans_a, trans_b;
    float alpha, beta;
    int c_rows, c_cols;     /* 0,0: no C */
} O2hGemm;

/* B is always passed packed when packed_size > 0 (currently always); a B that
 * is not a constant is packed at run time before each call. */
size_t o2h_gemm_packed_size(const O2hGemm *p);   /* 0: B used as is */
void o2h_gemm_pack_b(const O2hGemm *p, const float *b, float *b_packed);
size_t o2h_gemm_scratch_size(const O2hGemm *p);
void o2h_gemm_f32(const O2hGemm *p, const float *a, const float *b, const float *c,
                  const O2hEpilogue *e, float *y, float *scratch);

/* Batched MatMul with numpy broadcasting of the batch dims: shapes given as
 * rank-padded arrays (ranks >= 2), see o2h_matmul_f32 in rt_gemm.c. */
#define O2H_MAX_RANK 8
typedef struct {
    int rank;                       /* of the output */
    int64_t a_dims[O2H_MAX_RANK];   /* left-padded with 1 to rank */
    int64_t b_dims[O2H_MAX_RANK];
    int64_t y_dims[O2H_MAX_RANK];
} O2hMatMul;
void o2h_matmul_f32(const O2hMatMul *p, const float *a, const float *b, float *y);

/* -------------------------------------------------------------- pools */

typedef struct {
    int N, C, H, W, HO, WO;
    int KH, KW, SH, SW, DH, DW;
    int PT, PL, PB, PR;
    int count_include_pad;  /* average pool */
} O2hPool2d;

void o2h_maxpool2d_f32(const O2hPool2d *p, const float *x, float *y);
void o2h_avgpool2d_f32(const O2hPool2d *p, const float *x, float *y);
/* Global pools over H*W of each (n, c) plane: x is [NC][HW]. */
void o2h_global_avgpool_f32(int64_t nc, int64_t hw, const float *x, float *y);
void o2h_global_maxpool_f32(int64_t nc, int64_t hw, const float *x, float *y);

/* ---------------------------------------------------- element-wise ops */

/* Broadcasting shapes: all left-padded with 1 to the output rank. */
typedef struct {
    int rank;
    int64_t a_dims[O2H_MAX_RANK];
    int64_t b_dims[O2H_MAX_RANK];
    int64_t y_dims[O2H_MAX_RANK];
} O2hBroadcast;

typedef enum {
    O2H_BIN_ADD = 0, O2H_BIN_SUB, O2H_BIN_MUL, O2H_BIN_DIV, O2H_BIN_POW,
    O2H_BIN_MAX, O2H_BIN_MIN, O2H_BIN_PRELU,
} O2hBinOp;

void o2h_binary_f32(O2hBinOp op, const O2hBroadcast *p, const float *a, const float *b,
                    const O2hEpilogue *e, float *y);

typedef enum {
    O2H_UN_RELU = 0, O2H_UN_CLIP, O2H_UN_LEAKY_RELU, O2H_UN_SIGMOID, O2H_UN_HARD_SIGMOID,
    O2H_UN_HARD_SWISH, O2H_UN_TANH, O2H_UN_ELU, O2H_UN_SOFTPLUS, O2H_UN_EXP, O2H_UN_LOG,
    O2H_UN_SQRT, O2H_UN_NEG, O2H_UN_ABS, O2H_UN_RECIPROCAL, O2H_UN_FLOOR, O2H_UN_CEIL,
    O2H_UN_ERF, O2H_UN_MISH,
    O2H_UN_COUNT          /* not an op: the number of ops */
} O2hUnOp;

/* y may equal x (in place). alpha/beta as for the activations. */
void o2h_unary_f32(O2hUnOp op, float alpha, float beta, const float *x, float *y, size_t n);

/* Inference BatchNormalization on NCHW: y = (x - mean)/sqrt(var+eps)*scale + b. */
void o2h_batchnorm_f32(int64_t n, int64_t c, int64_t hw, const float *x, const float *scale,
                       const float *bias, const float *mean, const float *var, float eps,
                       float *y);

/* ------------------------------------------------------ data movement */

/* Copy of elem_size-byte elements; these work for any dtype. */
void o2h_transpose(size_t elem_size, int rank, const int64_t *in_dims, const int *perm,
                   const void *x, void *y);
/* Concat along axis: inputs viewed as [outer][dim_i * inner]. */
void o2h_concat(size_t elem_size, int n_in, const void *const *xs, const int64_t *dims_axis,
                int64_t outer, int64_t inner, void *y);
void o2h_split(size_t elem_size, int n_out, void *const *ys, const int64_t *dims_axis,
               int64_t outer, int64_t inner, const void *x);
/* Strided slice: per axis start and step over in_dims giving out_dims. */
void o2h_slice(size_t elem_size, int rank, const int64_t *in_dims, const int64_t *out_dims,
               const int64_t *starts, const int64_t *steps, const void *x, void *y);
/* Pad (float): mode 0 constant, 1 reflect, 2 edge; begin/end per axis (may be negative = crop). */
void o2h_pad_f32(int mode, float value, int rank, const int64_t *in_dims, const int64_t *begin,
                 const int64_t *out_dims, const float *x, float *y);
/* Gather along axis: x viewed [outer][axis_dim][inner], idx of n_idx entries. */
void o2h_gather(size_t elem_size, int64_t outer, int64_t axis_dim, int64_t inner,
                const int64_t *idx, int64_t n_idx, const void *x, void *y);
/* Broadcast x to y's shape (Expand). */
void o2h_expand(size_t elem_size, const O2hBroadcast *p, const void *x, void *y);

/* ------------------------------------------------- resize and softmax */

typedef struct {
    int rank;
    int64_t in_dims[O2H_MAX_RANK], out_dims[O2H_MAX_RANK];
    float scale[O2H_MAX_RANK];  /* out/in per axis, used by the coordinate transform */
    int mode;                   /* 0 nearest, 1 linear, 2 cubic */
    int coord;                  /* IrCoordMode order */
    int nearest;                /* IrNearestMode order */
    float cubic_a;
} O2hResize;
void o2h_resize_f32(const O2hResize *p, const float *x, float *y);

/* Softmax over the last of [outer][n][inner] axes collapsed: x viewed as
 * [outer][n][inner]; log = 1 for LogSoftmax. */
void o2h_softmax_f32(int64_t outer, int64_t n, int64_t inner, int log, const float *x, float *y);

/* Reduce x viewed [outer][n][inner] over n: op 0 mean, 1 max, 2 sum. */
void o2h_reduce_f32(int op, int64_t outer, int64_t n, int64_t inner, const float *x, float *y);

/* --------------------------------------------------- weight blob (file) */

/* Blob layout (little-endian):
 *   0  char[8]  magic "O2HBLOB\0"
 *   8  u32      version (O2H_BLOB_VERSION)
 *  12  u32      flags (0; anything else is refused as not a blob of this version)
 *  16  u64      layout hash: FNV-1a 64 over the model's constant layout
 *               (names, dtypes, shapes, offsets), also baked into model.c
 *  24  u64      payload size in bytes
 *  32  u32      CRC32 (IEEE 802.3, as zlib) of the payload
 *  36  u32      reserved (0, checked like flags)
 *  40  payload  constants, each 64-byte aligned relative to the payload start
 */
#define O2H_BLOB_MAGIC "O2HBLOB"
#define O2H_BLOB_VERSION 1u
#define O2H_BLOB_HEADER 40u

uint32_t o2h_crc32(uint32_t crc, const void *data, size_t n);
uint64_t o2h_fnv1a64(uint64_t h, const void *data, size_t n);
/* Check a blob in memory against the expected layout hash and payload size;
 * on O2H_OK *payload points into buf. */
O2hStatus o2h_blob_check(const void *buf, size_t len, uint64_t layout_hash,
                         uint64_t payload_size, const void **payload);

/* ------------------------------------------------------------- timing */
double o2h_now_ms(void);   /* wall clock */
double o2h_cpu_ms(void);   /* CPU time of the process */

/* ------------------------------------------------------------- memory */
/* Ask for transparent huge pages on the whole 2 MB pages inside
 * [p, p + bytes), before they are first written (Linux; a no-op elsewhere). */
void o2h_advise_huge(void *p, size_t bytes);
/* The whole 2 MB pages inside [p, p + bytes): bytes from *lo (0: none). */
size_t o2h_huge_span(const void *p, size_t bytes, uintptr_t *lo);
/* Bytes of L2 cache per core as the C library reports it (glibc reads it
 * from CPUID at start; 0: unknown). */
long o2h_l2_bytes(void);

#ifdef __cplusplus
}
#endif
#endif
