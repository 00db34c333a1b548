/* host.c - the host C generator's driver: checks, memory plan, model.c/.h.
 *
 * cg_host_emit runs the layer emitters (host_layer.c, host_<family>.c) once to learn what
 * every layer needs, plans memory (mem_plan.c), lays out the constant blob
 * (blob.c), then runs the emitters again to print model.c, and finally
 * writes the other files (host_files.c). Any rejected layer stops it before
 * a single file is written, so a failed compile leaves nothing behind.
 */
#include "host_emit.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir/escape.h"
#include "runtime/o2h_rt.h"

/* -------------------------------------------------- emitter utilities */

void cg_host_reject(CgHost *h, int l, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const IrLayer *L = &h->g->layers[l];
    diag_error(h->d, h->g->path, L->name, ir_op_name(L->op), "%s", msg);
    h->errors++;
}

void cg_emit(CgHost *h, FILE *f, const char *fmt, ...)
{
    if (h->phase == 0 || !f)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
}

const char *cg_ptr(CgHost *h, int t)
{
    if (t < 0)
        return "NULL";
    if (h->phase == 0) {
        h->read[t] = 1;
        return "0";
    }
    const CgBuffer *b = cg_mem_buffer(&h->plan, t);
    if (!b)
        return "NULL";
    switch (b->store) {
    case CG_STORE_ARENA:
        return ir_sprintf(h->g, "ACT(%lld)", (long long)b->offset);
    case CG_STORE_INPUT:
        return ir_sprintf(h->g, "in[%d]", b->ref);
    case CG_STORE_CONST: {
        int e = cg_blob_find_tensor(&h->blob, b->ref);
        return e < 0 ? "NULL" : ir_sprintf(h->g, "CST(%llu)", (unsigned long long)h->blob.v[e].offset);
    }
    default:
        return "NULL";
    }
}

static int64_t align64(int64_t n)
{
    return (n + 63) / 64 * 64;
}

const char *cg_scratch(CgHost *h, int64_t bytes)
{
    if (bytes <= 0)
        return "NULL";
    int l = h->cur_layer;
    int64_t at = h->scratch_cursor;
    h->scratch_cursor += align64(bytes);
    if (h->phase == 0) {
        h->scratch[l] = h->scratch_cursor;
        return "0";
    }
    const CgBuffer *b = &h->plan.bufs[h->plan.scratch_buf[l]];
    return ir_sprintf(h->g, "ACT(%lld)", (long long)(b->offset + at));
}

int cg_kslot(CgHost *h)
{
    int l = h->cur_layer;
    if (h->kslot[l] < 0)
        h->kslot[l] = h->n_kslots++;
    return h->kslot[l];
}

const char *cg_float(CgHost *h, float v)
{
    if (isnan(v))
        return "NAN";
    if (isinf(v))
        return v > 0 ? "INFINITY" : "(-INFINITY)";
    char buf[64];
    snprintf(buf, sizeof buf, "%.9g", (double)v);
    if (!strpbrk(buf, ".en"))
        strcat(buf, ".0");
    return ir_sprintf(h->g, "%sf", buf);
}

const char *cg_comment(CgHost *h, const char *s)
{
    if (h->phase == 0)
        return "";
    char *e = esc_str(ESC_C_COMMENT, s);
    const char *r = ir_strdup(h->g, e);
    free(e);
    return r;
}

const char *cg_i64_list(CgHost *h, const int64_t *v, int n)
{
    size_t cap = (size_t)n * 24 + 4, len = 0;
    char *s = ir_alloc(h->g, cap);
    s[len++] = '{';
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (n == 0)
        s[len++] = '0';
    s[len++] = '}';
    s[len] = 0;
    return s;
}

static const struct {
    IrDType dt;
    const char *ctype, *tag;
} ctypes[] = {
    {IR_DT_FLOAT, "float", "f32"},    {IR_DT_DOUBLE, "double", "f64"},
    {IR_DT_INT8, "int8_t", "i8"},     {IR_DT_UINT8, "uint8_t", "u8"},
    {IR_DT_INT16, "int16_t", "i16"},  {IR_DT_UINT16, "uint16_t", "u16"},
    {IR_DT_INT32, "int32_t", "i32"},  {IR_DT_UINT32, "uint32_t", "u32"},
    {IR_DT_INT64, "int64_t", "i64"},  {IR_DT_UINT64, "uint64_t", "u64"},
    {IR_DT_BOOL, "uint8_t", "bool"},
};

const char *cg_ctype(IrDType dt)
{
    for (size_t i = 0; i < sizeof ctypes / sizeof ctypes[0]; i++)
        if (ctypes[i].dt == dt)
            return ctypes[i].ctype;
    return NULL;
}

const char *cg_dtype_tag(IrDType dt)
{
    for (size_t i = 0; i < sizeof ctypes / sizeof ctypes[0]; i++)
        if (ctypes[i].dt == dt)
            return ctypes[i].tag;
    return "x";
}

/* ------------------------------------------------------------ phases */

static void host_free(CgHost *h)
{
    free(h->scratch);
    free(h->inplace);
    free(h->kslot);
    free(h->aux_entry);
    free(h->read);
    free(h->has_code);
    cg_mem_plan_free(&h->plan);
    cg_blob_free(&h->blob);
}

static int host_init(CgHost *h, IrGraph *g, const CgHostOptions *o, IrDiag *d)
{
    memset(h, 0, sizeof *h);
    h->g = g;
    h->d = d;
    h->opt = o;
    size_t nl = (size_t)g->n_layers + 1, nt = (size_t)g->n_tensors + 1;
    h->scratch = calloc(nl, sizeof *h->scratch);
    h->inplace = malloc(nl * sizeof *h->inplace);
    h->kslot = malloc(nl * sizeof *h->kslot);
    h->aux_entry = malloc(nl * sizeof *h->aux_entry);
    h->read = calloc(nt, 1);
    h->has_code = calloc(nl, 1);
    cg_blob_init(&h->blob);
    if (!h->scratch || !h->inplace || !h->kslot || !h->aux_entry || !h->read || !h->has_code) {
        diag_error(d, g->path, NULL, NULL, "out of memory");
        host_free(h);
        return -1;
    }
    for (int l = 0; l < g->n_layers; l++)
        h->inplace[l] = h->kslot[l] = h->aux_entry[l] = -1;
    return 0;
}

static int check_io(CgHost *h)
{
    IrGraph *g = h->g;
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        int n = k ? g->n_outputs : g->n_inputs;
        for (int i = 0; i < n; i++) {
            const IrTensor *T = &g->tensors[k ? g->outputs[i] : g->inputs[i]];
            if (!cg_ctype(T->dtype)) {
                diag_error(h->d, g->path, NULL, NULL, "graph %s '%s' has dtype %s, not supported by the host path",
                           k ? "output" : "input", T->name, ir_dtype_name(T->dtype));
                bad = 1;
            } else if (ir_tensor_numel(T) < 0) {
                diag_error(h->d, g->path, NULL, NULL, "graph %s '%s' has no static shape; give --input-shape",
                           k ? "output" : "input", T->name);
                bad = 1;
            }
        }
    }
    if (g->n_outputs == 0) {
        diag_error(h->d, g->path, NULL, NULL, "the graph has no outputs");
        bad = 1;
    }
    return bad ? -1 : 0;
}

/* Phase 0 over every layer; errors are collected, not fatal, so one run
 * reports every unsupported node. */
static int plan_phase(CgHost *h)
{
    h->phase = 0;
    int rc = check_io(h);
    for (int l = 0; l < h->g->n_layers; l++)
        if (cg_host_layer(h, l))
            rc = -1;
    for (int i = 0; i < h->g->n_outputs; i++)
        cg_ptr(h, h->g->outputs[i]);
    return rc || h->errors ? -1 : 0;
}

/* Constants go into the blob in tensor order, after the derived entries
 * made in phase 0; only those the program reads. */
static int layout_blob(CgHost *h)
{
    for (int t = 0; t < h->g->n_tensors; t++) {
        if (!h->read[t])
            continue;
        const CgBuffer *b = cg_mem_buffer(&h->plan, t);
        if (b && b->store == CG_STORE_CONST && cg_blob_add_tensor(&h->blob, h->g, b->ref) < 0) {
            diag_error(h->d, h->g->path, NULL, NULL, "cannot place constant '%s'", h->g->tensors[b->ref].name);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ model.c */

/* A C string literal of model text: escape.h's rules (octal for every
 * byte outside printable ASCII, \? so no trigraph can form). */
static void put_c_string(FILE *f, const char *s)
{
    fputc('"', f);
    esc_put(f, ESC_C_STRING, s);
    fputc('"', f);
}

static void write_tensor_table(CgHost *h, FILE *f, const char *name, const int *ts, int n)
{
    fprintf(f, "const ModelTensorInfo %s[%d] = {\n", name, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) {
        const IrTensor *T = &h->g->tensors[ts[i]];
        fputs("    {", f);
        put_c_string(f, T->name);
        fprintf(f, ", %d, %zu, %d, %s, %lld},\n", (int)T->dtype, ir_dtype_size(T->dtype), T->rank,
                cg_i64_list(h, T->dims, T->rank), (long long)ir_tensor_numel(T));
    }
    if (n == 0)
        fputs("    {\"\", 0, 0, 0, {0}, 0},\n", f);
    fputs("};\n\n", f);
}

/* "CxHxW" of tensor t's dims after the batch, into b */
static void dims_text(const IrGraph *g, int t, char *b, size_t n)
{
    const IrTensor *T = t >= 0 ? &g->tensors[t] : NULL;
    size_t k = 0;
    b[0] = 0;
    for (int i = T && T->rank > 1 ? 1 : 0; T && i < T->rank && k < n; i++)
        k += (size_t)snprintf(b + k, n - k, "%s%lld", k ? "x" : "", (long long)T->dims[i]);
}

/* A layer's shape as a profile shows it: "32x112x112->32x112x112 k3x3 s1" */
static void layer_shape(const IrGraph *g, const IrLayer *L, char *b, size_t n)
{
    char in[64], out[64];
    dims_text(g, L->n_in > 0 ? L->in[0] : -1, in, sizeof in);
    dims_text(g, L->n_out > 0 ? L->out[0] : -1, out, sizeof out);
    int k = snprintf(b, n, "%s->%s", in, out);
    const IrConvAttr *c = &L->attr.conv;
    if ((L->op == IR_OP_CONV || L->op == IR_OP_CONV_TRANSPOSE) && c->nsp == 2 && k > 0 && (size_t)k < n)
        snprintf(b + k, n - (size_t)k, " k%lldx%lld s%lld", (long long)c->kernel[0], (long long)c->kernel[1],
                 (long long)c->stride[0]);
}

/* model_layers[]: what each layer is, for the program's --profile */
static void write_layer_table(CgHost *h, FILE *f)
{
    const IrGraph *g = h->g;
    fprintf(f, "const ModelLayerInfo model_layers[%d] = {\n", g->n_layers > 0 ? g->n_layers : 1);
    for (int l = 0; l < g->n_layers; l++) {
        const IrLayer *L = &g->layers[l];
        IrLayerStats st;
        char shape[160];
        ir_layer_stats(g, l, &st);
        layer_shape(g, L, shape, sizeof shape);
        fprintf(f, "    {\"%s\", \"%s\", \"%s\", ", ir_op_name(L->op), ir_layer_kind_name(g, l), shape);
        put_c_string(f, L->origin ? L->origin : (L->name ? L->name : ""));
        fprintf(f, ", %lldll, %d},\n", (long long)st.macs, h->has_code[l]);
    }
    if (g->n_layers == 0)
        fputs("    {\"\", \"\", \"\", \"\", 0, 0},\n", f);
    fputs("};\n\n", f);
}

static void write_casts(CgHost *h, FILE *f)
{
    for (unsigned from = 0; from < 32; from++)
        for (unsigned to = 0; to < 32; to++) {
            if (!(h->cast_used[from] & (1u << to)))
                continue;
            const char *ft = cg_ctype((IrDType)from), *tt = cg_ctype((IrDType)to);
            fprintf(f, "static void cast_%s_%s(const void *x, void *y, size_t n)\n{\n"
                       "    const %s *s = x;\n    %s *d = y;\n    for (size_t i = 0; i < n; i++)\n",
                    cg_dtype_tag((IrDType)from), cg_dtype_tag((IrDType)to), ft, tt);
            if (to == IR_DT_BOOL)
                fputs("        d[i] = s[i] != 0;\n}\n\n", f);
            else
                fprintf(f, "        d[i] = (%s)s[i];\n}\n\n", tt);
        }
}

/* The pool: repacked weights then kernel scratch, sized at init by the
 * runtime this file is built with (tile sizes follow the target's vectors). */
static const char scratch_need_code[] =
    "static void scratch_need(size_t n)\n{\n"
    "    if (n > g_scratch_floats)\n        g_scratch_floats = n;\n}\n\n";

static const char pool_code[] =
    "/* Lay out the repacked weights and the scratch in the static pool, or,\n"
    " * when this build's kernels need more than the compiler planned (wider\n"
    " * vector tiles), in one allocation made here, never while running. */\n"
    "static int pool_place(void)\n{\n"
    "    size_t off = 0;\n"
    "    for (int k = 0; k < MODEL_NUM_KW; k++) {\n"
    "        g_kw_at[k] = off;\n"
    "        off += (g_kw_size[k] + 15) / 16 * 16;\n    }\n"
    "    g_pool_floats = off + g_scratch_floats;\n"
    "#if MODEL_POOL_FLOATS > 0\n"
    "    if (g_pool_floats <= MODEL_POOL_FLOATS) {\n"
    "        g_pool = g_pool_static;\n"
    "    } else\n"
    "#endif\n"
    "    {\n"
    "#ifdef MODEL_NO_MALLOC\n"
    "        return O2H_ERR_ARG;\n"
    "#else\n"
    "        static float *heap;\n"
    "        free(heap);\n"
    "        heap = malloc(g_pool_floats * sizeof(float));\n"
    "        if (!heap)\n            return O2H_ERR_NOMEM;\n"
    "        g_pool = heap;\n"
    "#endif\n    }\n"
    "    g_scratch = g_pool + off;\n"
    "    o2h_advise_huge(g_pool, g_pool_floats * sizeof(float));\n"
    "    return O2H_OK;\n}\n\n"
    "size_t model_pool_floats(void)\n{\n    return g_pool_floats;\n}\n\n";

/* Weights as the kernel takes them: repacked into slot k of the pool when
 * the runtime repacks this layer's weights, else as they are. */
static const char pack_conv_code[] =
    "static const float *pack_conv(const O2hConv2d *p, const float *w, int k)\n{\n"
    "    if (!g_kw_size[k])\n        return w;\n"
    "    o2h_conv2d_pack(p, w, g_pool + g_kw_at[k]);\n"
    "    return g_pool + g_kw_at[k];\n}\n\n";

static const char pack_conv_s8_code[] =
    "static const float *pack_conv_s8(const O2hConv2d *p, const int8_t *w, const int32_t *b, int k)\n{\n"
    "    o2h_conv2d_s8_pack(p, w, b, g_pool + g_kw_at[k]);\n"
    "    return g_pool + g_kw_at[k];\n}\n\n";

static const char pack_gemm_code[] =
    "static const float *pack_gemm(const O2hGemm *p, const float *b, int k)\n{\n"
    "    if (!g_kw_size[k])\n        return b;\n"
    "    o2h_gemm_pack_b(p, b, g_pool + g_kw_at[k]);\n"
    "    return g_pool + g_kw_at[k];\n}\n\n";

/* --heap-arena: 64-byte aligned blocks taken once, by model_init */
static const char heap_code[] =
    "#ifdef MODEL_NO_MALLOC\n"
    "#error \"this model was compiled with --heap-arena: its arena is allocated in model_init\"\n"
    "#endif\n"
    "static unsigned char *heap_block(size_t n)\n{\n"
    "    unsigned char *p = malloc(n + 64);\n"
    "    return p ? p + (64 - (uintptr_t)p % 64) : NULL;   /* never freed: one model per program */\n}\n\n";

static const char arena_place_code[] =
    "static int arena_place(void)\n{\n"
    "    if (!g_arena && !(g_arena = heap_block(MODEL_ARENA_BYTES)))\n"
    "        return O2H_ERR_NOMEM;\n"
    "    o2h_advise_huge(g_arena, MODEL_ARENA_BYTES);\n"
    "    return O2H_OK;\n}\n\n";

static void write_init(CgHost *h, FILE *f, const char *init_body, const char *pack_body)
{
    bool heap = h->opt->heap_arena, arena = heap && h->plan.arena_bytes > 0;
    if (heap)
        fputs(heap_code, f);
    if (arena)
        fputs(arena_place_code, f);
    const char *first = arena ? "    if (arena_place() != O2H_OK)\n        return O2H_ERR_NOMEM;\n" : "";
    if (!heap && h->plan.arena_bytes > 0)
        first = "    o2h_advise_huge(g_arena, sizeof g_arena);\n";
    if (h->n_kslots == 0) {   /* no conv/gemm: no pool */
        fprintf(f, "size_t model_pool_floats(void)\n{\n    return 0;\n}\n\n"
                   "static int model_prepare(void)\n{\n%s    return O2H_OK;\n}\n\n", first);
    } else {
        if (strstr(init_body, "scratch_need("))   /* not in an int8 program's pool */
            fputs(scratch_need_code, f);
        fputs(pool_code, f);
        if (strstr(init_body, "o2h_conv2d_packed_size("))
            fputs(pack_conv_code, f);
        if (strstr(init_body, "o2h_gemm_packed_size("))
            fputs(pack_gemm_code, f);
        if (strstr(init_body, "o2h_conv2d_s8_packed_size("))
            fputs(pack_conv_s8_code, f);
        fprintf(f, "/* Kernel sizes as the runtime built with this file computes them, then\n"
                   " * the weights repacked once into the pool. */\n"
                   "static int model_prepare(void)\n{\n%s"
                   "    g_scratch_floats = 0;\n%s"
                   "    int st = pool_place();\n    if (st != O2H_OK)\n        return st;\n%s"
                   "    return O2H_OK;\n}\n\n", first, init_body, pack_body);
    }
    if (h->opt->embed_weights) {
        fputs("int model_init(const void *blob, size_t len)\n{\n"
              "    (void)blob;\n    (void)len;\n"
              "    g_w = (const unsigned char *)model_weights;\n"
              "    int st = model_prepare();\n    g_ready = st == O2H_OK;\n    return st;\n}\n\n", f);
        return;
    }
    fputs("int model_init(const void *blob, size_t len)\n{\n"
          "    const void *payload = NULL;\n"
          "    g_ready = 0;\n"
          "    O2hStatus st = o2h_blob_check(blob, len, MODEL_LAYOUT_HASH, MODEL_WEIGHTS_BYTES, &payload);\n"
          "    if (st != O2H_OK)\n        return st;\n"
          "    g_w = payload;\n"
          "    st = model_prepare();\n    g_ready = st == O2H_OK;\n    return st;\n}\n\n"
          "/* The file is read into a buffer placed so that the payload starts\n"
          " * 64-byte aligned (the header is 40 bytes). */\n", f);
    fputs(heap ? "static unsigned char *g_file;   /* 24 + MODEL_BLOB_BYTES, taken by model_init_file */\n\n"
               : "static MODEL_ALIGNED unsigned char g_file[24 + MODEL_BLOB_BYTES];\n\n", f);
    fputs("int model_init_file(const char *path)\n{\n", f);
    if (heap)
        fputs("    if (!g_file && !(g_file = heap_block(24 + MODEL_BLOB_BYTES)))\n        return O2H_ERR_NOMEM;\n", f);
    fputs("    o2h_advise_huge(g_file, 24 + MODEL_BLOB_BYTES);\n"
          "    FILE *f = fopen(path, \"rb\");\n"
          "    if (!f)\n        return O2H_ERR_IO;\n"
          "    g_ready = 0;\n"
          "    size_t n = fread(g_file + 24, 1, MODEL_BLOB_BYTES, f);\n"
          "    int longer = fgetc(f) != EOF, err = ferror(f);\n"
          "    fclose(f);\n"
          "    if (err)\n        return O2H_ERR_IO;\n"
          "    int st = model_init(g_file + 24, n);\n"
          "    if (st == O2H_OK && longer) {\n        g_ready = 0;\n        return O2H_ERR_FORMAT;\n    }\n"
          "    return st;\n}\n\n", f);
}

/* run: model_run_layer, model_tensor and model_run (emit_phase) */
static void write_run(FILE *f, const char *run)
{
    fputs(run, f);
    fputs("const char *model_status_str(int status)\n{\n"
          "    return o2h_status_str((O2hStatus)status);\n}\n", f);
}

static int write_model_c(CgHost *h, const char *path, const char *decl, const char *init,
                         const char *pack, const char *run)
{
    IrGraph *g = h->g;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "/* model.c - %s compiled by onnx2hls: one runtime call per layer.\n"
               " *\n * Generated code; regenerate with `onnx2hls compile` rather than editing.\n"
               " * Each call is preceded by a comment naming the ONNX node(s) it implements.\n"
               " * Activations live in g_arena at offsets fixed by the compiler's memory\n"
               " * plan; constants are read from the weight blob at their offsets (CST),\n"
               " * conv/gemm weights repacked for the kernels once in model_init (g_kw).\n */\n",
            g->path);
    fprintf(f, "#include \"model.h\"\n\n#include <math.h>\n#include <stdint.h>\n%s"
               "#include <stdlib.h>\n#include <string.h>\n\n#include \"runtime/o2h_rt.h\"\n\n",
            h->opt->embed_weights ? "" : "#include <stdio.h>\n");   /* stdio: model_init_file */
    fprintf(f, "#define MODEL_LAYOUT_HASH 0x%016llxull\n\n",
            (unsigned long long)cg_blob_layout_hash(&h->blob));
    if (h->opt->embed_weights)
        fprintf(f, "extern const uint32_t model_weights[];   /* weights.c */\n\n");
    if (strstr(run, "ACT(") && h->opt->heap_arena)
        fputs("static unsigned char *g_arena;   /* activations, planned offsets; MODEL_ARENA_BYTES from model_init */\n"
              "#define ACT(off) ((void *)(g_arena + (off)))\n", f);
    else if (strstr(run, "ACT("))
        fprintf(f, "static MODEL_ALIGNED unsigned char g_arena[%lld];  /* activations, planned offsets */\n"
                   "#define ACT(off) ((void *)(g_arena + (off)))\n",
                (long long)(h->plan.arena_bytes > 0 ? h->plan.arena_bytes : 1));
    if (h->n_kslots > 0) {
        fprintf(f, "\n#define MODEL_NUM_KW %d   /* conv/gemm weights the runtime may repack */\n"
                   "#ifndef MODEL_POOL_FLOATS\n#define MODEL_POOL_FLOATS %lld\n#endif\n",
                h->n_kslots,
                h->opt->heap_arena ? 0LL : (long long)(h->pool_est + h->scratch_est > 0 ? h->pool_est + h->scratch_est : 1));
        fputs("#if MODEL_POOL_FLOATS > 0\nstatic MODEL_ALIGNED float g_pool_static[MODEL_POOL_FLOATS];\n#endif\n"
              "static float *g_pool;          /* repacked weights, then kernel scratch */\n"
              "static float *g_scratch;\n"
              "static size_t g_kw_size[MODEL_NUM_KW], g_kw_at[MODEL_NUM_KW];\n"
              "static size_t g_scratch_floats, g_pool_floats;\n", f);
        if (*pack)
            fputs("static const float *g_kw[MODEL_NUM_KW];   /* weights as the kernels take them */\n", f);
    }
    fputs("static const unsigned char *g_w;   /* blob payload */\n"
          "static int g_ready;\n\n", f);
    fputs("#define CST(off) ((const void *)(g_w + (off)))\n\n", f);
    if (strstr(run, "MODEL_TAP("))
        fputs("/* the integer results of each layer go to the tap when one is set */\n"
              "static ModelTap g_tap;\nstatic void *g_tap_ctx;\n\n"
              "void model_set_tap(ModelTap fn, void *ctx)\n{\n    g_tap = fn;\n    g_tap_ctx = ctx;\n}\n\n"
              "#define MODEL_TAP(t, p, n) do { if (g_tap) g_tap(g_tap_ctx, t, p, n); } while (0)\n\n", f);
    else
        fputs("void model_set_tap(ModelTap fn, void *ctx)\n{\n    (void)fn, (void)ctx;\n}\n\n", f);
    if (strstr(run, "&E_NONE"))
        fputs("static const O2hEpilogue E_NONE = {O2H_ACT_NONE, 0.0f, 0.0f, NULL, 0, NULL};\n\n", f);
    write_tensor_table(h, f, "model_inputs", g->inputs, g->n_inputs);
    write_tensor_table(h, f, "model_outputs", g->outputs, g->n_outputs);
    fputs("const int model_num_inputs = MODEL_NUM_INPUTS, model_num_outputs = MODEL_NUM_OUTPUTS;\n\n", f);
    write_layer_table(h, f);
    fputs("/* layer descriptors */\n", f);
    fputs(decl, f);
    fputs("\n", f);
    write_casts(h, f);
    write_init(h, f, init, pack);
    write_run(f, run);
    int rc = ferror(f) ? -1 : 0;
    if (fclose(f))
        rc = -1;
    return rc;
}

/* ------------------------------------------------------------ model.h */

static int write_model_h(CgHost *h, const char *path)
{
    IrGraph *g = h->g;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("/* model.h - API of the model compiled by onnx2hls from ", f);
    esc_put(f, ESC_C_COMMENT, g->path);
    fputs(".\n *\n"
          " * Use:\n", f);
    if (h->opt->embed_weights)
        fputs(" *   model_init(NULL, 0);                    weights are compiled in (weights.c)\n", f);
    else
        fputs(" *   model_init_file(\"weights.bin\");         or model_init(blob, len) on a blob\n"
              " *                                           in memory, kept alive while running\n", f);
    fputs(" *   const void *in[MODEL_NUM_INPUTS] = {x};  raw NCHW data, see model_inputs[]\n"
          " *   void *out[MODEL_NUM_OUTPUTS] = {y};\n"
          " *   model_run(in, out);\n"
          " * Functions return 0 (O2H_OK) or an O2hStatus code of runtime/o2h_rt.h:\n"
          " * 1 file not readable, 2 not a weight blob / truncated, 3 blob version,\n"
          " * 4 blob made for another model, 5 blob corrupted (CRC32), 6 bad argument\n"
          " * (including model_run before a successful model_init). A rejected blob is\n"
          " * never used. State is static: one model instance per program, not\n"
          " * reentrant. model_run allocates nothing.\n */\n"
          "#ifndef MODEL_H\n#define MODEL_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n", f);
    fputs("#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L\n"
          "#define MODEL_ALIGNED _Alignas(64)\n#else\n#define MODEL_ALIGNED\n#endif\n\n", f);
    fprintf(f, "#define MODEL_NUM_INPUTS %d\n#define MODEL_NUM_OUTPUTS %d\n", g->n_inputs, g->n_outputs);
    fprintf(f, "#define MODEL_NUM_LAYERS %d   /* layers of the compiler's graph (model_run_layer) */\n", g->n_layers);
    fprintf(f, "/* Peak activation memory: the static arena holding every activation and\n"
               " * kernel scratch buffer, reused across layers by the compiler's plan\n"
               " * (lower bound, most bytes live at one step: %lld). */\n"
               "#define MODEL_ARENA_BYTES %lld\n",
            (long long)h->plan.live_bytes, (long long)h->plan.arena_bytes);
    fprintf(f, "/* Repacked conv/gemm weights and kernel scratch share one pool placed in\n"
               " * model_init. Its static size, MODEL_POOL_FLOATS (%lld floats here), is\n"
               " * what the runtime's plain-C build needs; builds whose kernels use wider\n"
               " * vector tiles (AVX, NEON) may need more and then take it with one\n"
               " * malloc in model_init (model_pool_floats() tells how much). Compile\n"
               " * model.c with -DMODEL_NO_MALLOC to forbid that (model_init then fails\n"
               " * with 6) and -DMODEL_POOL_FLOATS=N to enlarge the static pool. */\n",
            (long long)(h->pool_est + h->scratch_est));
    fprintf(f, "#define MODEL_WEIGHTS_BYTES %lluull  /* constant payload */\n",
            (unsigned long long)h->blob.payload_size);
    fprintf(f, "#define MODEL_BLOB_BYTES %lluull     /* weights.bin: 40-byte header + payload */\n",
            (unsigned long long)(h->blob.payload_size + O2H_BLOB_HEADER));
    fprintf(f, "#define MODEL_EMBEDDED_WEIGHTS %d\n\n", h->opt->embed_weights ? 1 : 0);
    fputs("typedef struct {\n"
          "    const char *name;     /* ONNX value name */\n"
          "    int dtype;            /* ONNX TensorProto.DataType: 1 float32, 6 int32, 7 int64, 9 bool ... */\n"
          "    size_t elem_size;     /* bytes per element */\n"
          "    int rank;\n"
          "    int64_t dims[8];\n"
          "    size_t elems;         /* elements (product of dims) */\n"
          "} ModelTensorInfo;\n\n"
          "extern const ModelTensorInfo model_inputs[];\n"
          "extern const int model_num_inputs, model_num_outputs;  /* the counts above, as data */\n"
          "extern const ModelTensorInfo model_outputs[];\n\n"
          "typedef struct {\n"
          "    const char *op;       /* the layer's op (`onnx2hls ops`) */\n"
          "    const char *kind;     /* its kind as `onnx2hls inspect` names it: pwconv, dwconv ... */\n"
          "    const char *shape;    /* input -> output dims after the batch, conv kernel and stride */\n"
          "    const char *origin;   /* every ONNX node folded into it, comma separated */\n"
          "    long long macs;       /* multiply-accumulates per inference (0: not a MAC op) */\n"
          "    int has_code;         /* 0: the layer is folded away, model_run_layer does nothing */\n"
          "} ModelLayerInfo;\n\n"
          "extern const ModelLayerInfo model_layers[];   /* MODEL_NUM_LAYERS entries */\n\n", f);
    for (int k = 0; k < 2; k++) {
        int n = k ? g->n_outputs : g->n_inputs;
        for (int i = 0; i < n; i++) {
            const IrTensor *T = &g->tensors[k ? g->outputs[i] : g->inputs[i]];
            fprintf(f, "/* %s %d: ", k ? "output" : "input", i);
            esc_put(f, ESC_C_COMMENT, T->name);
            fprintf(f, " %s %s */\n", ir_dtype_name(T->dtype), cg_i64_list(h, T->dims, T->rank));
        }
    }
    fputs("\nint model_init(const void *blob, size_t len);\n", f);
    if (!h->opt->embed_weights)
        fputs("int model_init_file(const char *path);\n", f);
    fputs("int model_run(const void *const *inputs, void *const *outputs);\n"
          "/* Show each integer layer result to fn during model_run: fn(ctx, t, data,\n"
          " * bytes) with t the tensor's index in the compiler's graph and the codes\n"
          " * NCHW (onnx2hls verify --hls compares the accelerator with them). NULL: off. */\n"
          "typedef void (*ModelTap)(void *ctx, int tensor, const void *data, size_t bytes);\n"
          "void model_set_tap(ModelTap fn, void *ctx);\n"
          "/* For a program that runs some layers elsewhere (OUT/accel: the\n"
          " * accelerator's host runtime): run layer 0..MODEL_NUM_LAYERS-1 of the\n"
          " * compiler's graph alone (model_run runs them all in order; a layer with\n"
          " * no code does nothing), and the address of tensor t's data in this\n"
          " * program's memory (NULL for a constant or a tensor it does not hold). */\n"
          "int model_run_layer(int layer, const void *const *inputs);\n"
          "void *model_tensor(int tensor, const void *const *inputs);\n"
          "const char *model_status_str(int status);\n"
          "size_t model_pool_floats(void);   /* pool floats this build needs (after init) */\n\n#endif\n", f);
    int rc = ferror(f) ? -1 : 0;
    if (fclose(f))
        rc = -1;
    return rc;
}

/* ------------------------------------------------------------ driver */

/* Integer results are shown to the tap (model_set_tap), so that `onnx2hls
 * verify --hls` can compare every tensor the accelerator holds with this
 * program's own. One test per layer when no tap is set. */
static void emit_taps(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    if (L->dead || (ir_op_flags(L->op) & IR_F_FOLD_ONLY))
        return;
    for (int i = 0; i < L->n_out; i++) {
        int t = L->out[i];
        IrDType dt = t >= 0 ? h->g->tensors[t].dtype : IR_DT_UNDEF;
        if (dt == IR_DT_INT8 || dt == IR_DT_INT16)
            cg_emit(h, h->run, "    MODEL_TAP(%d, %s, %zu);\n", t, cg_ptr(h, t), ir_tensor_nbytes(&h->g->tensors[t]));
    }
}

/* a layer's code as one case of model_run_layer's switch */
static void put_case(FILE *f, int l, const char *body)
{
    fprintf(f, "    case %d: {\n", l);
    for (const char *p = body + (body[0] == '\n'); *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) + 1 : strlen(p);
        fprintf(f, "%s%.*s", n > 1 ? "    " : "", (int)n, p);
        p += n;
    }
    fputs("        break;\n    }\n", f);
}

/* Each layer's code, one case per layer, into run (phase 1). */
static int emit_layers(CgHost *h, FILE *run)
{
    int rc = 0;
    for (int l = 0; l < h->g->n_layers; l++) {
        char *body = NULL;
        size_t n = 0;
        if (!(h->run = open_memstream(&body, &n)))
            return -1;
        if (cg_host_layer(h, l))
            rc = -1;
        else
            emit_taps(h, l);
        fclose(h->run);
        h->has_code[l] = n > 0;
        if (n)
            put_case(run, l, body);
        free(body);
    }
    h->run = NULL;
    return rc;
}

/* model_tensor: where each tensor the program holds in the arena or
 * reads from the caller lives (the accelerator runtime's transfers) */
static void emit_tensor_table(CgHost *h, FILE *run)
{
    fputs("void *model_tensor(int tensor, const void *const *in)\n{\n"
          "    (void)in;\n    switch (tensor) {\n", run);
    for (int t = 0; t < h->g->n_tensors; t++) {
        const CgBuffer *b = cg_mem_buffer(&h->plan, t);
        if (b && (b->store == CG_STORE_ARENA || b->store == CG_STORE_INPUT))
            fprintf(run, "    case %d:\n        return (void *)%s;\n", t, cg_ptr(h, t));
    }
    fputs("    default:\n        return NULL;\n    }\n}\n\n", run);
}

static void emit_model_run(CgHost *h, FILE *run)
{
    const IrGraph *g = h->g;
    fputs("int model_run(const void *const *in, void *const *out)\n{\n"
          "    if (!g_ready || !in || !out)\n        return O2H_ERR_ARG;\n", run);
    fprintf(run, "    for (int i = 0; i < %d; i++)\n        if (!in[i])\n            return O2H_ERR_ARG;\n"
                 "    for (int i = 0; i < %d; i++)\n        if (!out[i])\n            return O2H_ERR_ARG;\n"
                 "    for (int l = 0; l < MODEL_NUM_LAYERS; l++)\n        model_run_layer(l, in);\n"
                 "\n    /* outputs */\n",
            g->n_inputs, g->n_outputs);
    for (int i = 0; i < g->n_outputs; i++) {
        int t = g->outputs[i];
        fprintf(run, "    memcpy(out[%d], %s, %zu);\n", i, cg_ptr(h, t), ir_tensor_nbytes(&g->tensors[t]));
    }
    fputs("    return O2H_OK;\n}\n\n", run);
}

/* model_run_layer (one case per layer that has code), model_tensor, model_run */
static int emit_phase(CgHost *h, char **decl, char **init, char **pack, char **run)
{
    size_t n1, n2, n3, n4;
    h->decl = open_memstream(decl, &n1);
    h->init = open_memstream(init, &n2);
    h->pack = open_memstream(pack, &n3);
    FILE *f = open_memstream(run, &n4);
    if (!h->decl || !h->init || !h->pack || !f)
        return -1;
    h->phase = 1;
    h->n_calls = 0;
    fputs("int model_run_layer(int layer, const void *const *in)\n{\n"
          "    if (!g_ready || !in || layer < 0 || layer >= MODEL_NUM_LAYERS)\n        return O2H_ERR_ARG;\n"
          "    switch (layer) {\n", f);
    int rc = emit_layers(h, f);
    fputs("    default:\n        break;\n    }\n    return O2H_OK;\n}\n\n", f);
    emit_tensor_table(h, f);
    emit_model_run(h, f);
    fclose(h->decl);
    fclose(h->init);
    fclose(h->pack);
    fclose(f);
    h->decl = h->init = h->pack = NULL;
    return rc;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static int write_weights(CgHost *h, const char *dir)
{
    char *path = join(dir, h->opt->embed_weights ? "weights.c" : "weights.bin");
    if (!path)
        return -1;
    int rc;
    if (h->opt->embed_weights) {
        FILE *f = fopen(path, "w");
        rc = f ? 0 : -1;
        if (f) {
            fputs("/* weights.c - the constant payload of the model compiled in, for targets\n"
                  " * without a file system (onnx2hls compile --embed-weights). Little-endian\n"
                  " * 32-bit words; each constant starts 64-byte aligned. Generated. */\n"
                  "#include <stdint.h>\n\n#include \"model.h\"\n\n", f);
            rc = cg_blob_write_c(&h->blob, f, "model_weights");
            if (fclose(f))
                rc = -1;
        }
    } else {
        rc = cg_blob_write_file(&h->blob, path);
    }
    free(path);
    return rc;
}

static int write_all(CgHost *h, const char *dir, const char *decl, const char *init, const char *pack,
                     const char *run)
{
    char *mc = join(dir, "model.c"), *mh = join(dir, "model.h");
    int rc = mc && mh ? 0 : -1;
    if (rc == 0)
        rc = write_model_h(h, mh);
    if (rc == 0)
        rc = write_model_c(h, mc, decl, init, pack, run);
    if (rc == 0)
        rc = write_weights(h, dir);
    if (rc == 0)
        rc = cg_host_write_main(h, dir);
    if (rc == 0)
        rc = cg_host_write_build(h, dir);
    if (rc == 0)
        rc = cg_host_write_json(h, dir);
    free(mc);
    free(mh);
    return rc;
}

static const char *gib(uint64_t n, char *buf, size_t len)
{
    snprintf(buf, len, "%llu bytes (%.2f GiB)", (unsigned long long)n, (double)n / (double)(1ull << 30));
    return buf;
}

/* What the program will hold can be built and run on the target: static
 * storage within CG_STATIC_MAX (embedded weights always, the arena, pool
 * and blob buffer unless --heap-arena), heap blocks within CG_HEAP_MAX. */
static int check_storage(CgHost *h)
{
    uint64_t arena = (uint64_t)h->plan.arena_bytes, pool = (uint64_t)(h->pool_est + h->scratch_est) * 4;
    uint64_t file = h->opt->embed_weights ? 0 : h->blob.payload_size + 64, w = h->opt->embed_weights ? h->blob.payload_size : 0;
    bool heap = h->opt->heap_arena;
    uint64_t stat = w + (heap ? 0 : arena + pool + file), big = arena > pool ? arena : pool;
    char b[6][64];
    if (stat > CG_STATIC_MAX) {
        diag_error(h->d, h->g->path, NULL, NULL,
                   "the program would hold %s in static storage (activation arena %s, kernel pool %s, weight "
                   "buffer %s, embedded weights %s), over the %s a program built in the default (small) code "
                   "model can hold; %s",
                   gib(stat, b[0], 64), gib(heap ? 0 : arena, b[1], 64), gib(heap ? 0 : pool, b[2], 64),
                   gib(heap ? 0 : file, b[3], 64), gib(w, b[4], 64), gib(CG_STATIC_MAX, b[5], 64),
                   w > CG_STATIC_MAX ? "embedded weights cannot leave it: drop --embed-weights (weights.bin)"
                                     : "compile with --heap-arena to allocate them in model_init");
        return -1;
    }
    if (heap && (big > CG_HEAP_MAX || file > CG_HEAP_MAX)) {
        diag_error(h->d, h->g->path, NULL, NULL, "a heap block of %s is more than the %s a program may ask for",
                   gib(big > file ? big : file, b[0], 64), gib(CG_HEAP_MAX, b[1], 64));
        return -1;
    }
    return 0;
}

static int plan_memory(CgHost *h)
{
    CgMemRequest req = {h->scratch, h->inplace};
    return cg_mem_plan(h->g, &req, &h->plan, h->d);
}

int cg_host_check(IrGraph *g, IrDiag *d)
{
    CgHostOptions o = {0};
    CgHost h;
    if (host_init(&h, g, &o, d))
        return -1;
    int rc = plan_phase(&h);
    host_free(&h);
    return rc;
}

int cg_host_emit(IrGraph *g, const CgHostOptions *o, const char *dir, CgHostReport *rep, IrDiag *d)
{
    CgHost h;
    if (host_init(&h, g, o, d))
        return -1;
    const char *rt = o->runtime_dir ? o->runtime_dir : cg_host_runtime_dir();
    int rc = plan_phase(&h);
    if (rc == 0 && !rt) {
        diag_error(d, g->path, NULL, NULL, "runtime sources not found: set ONNX2HLS_RUNTIME_DIR "
                                           "to the folder holding o2h_rt.h");
        rc = -1;
    }
    if (rc == 0)
        rc = plan_memory(&h);
    if (rc == 0)
        rc = layout_blob(&h);
    if (rc == 0)
        rc = check_storage(&h);
    char *decl = NULL, *init = NULL, *pack = NULL, *run = NULL;
    if (rc == 0 && emit_phase(&h, &decl, &init, &pack, &run)) {
        diag_error(d, g->path, NULL, NULL, "internal error while emitting code");
        rc = -1;
    }
    if (rc == 0 && mkdir(dir, 0777) && errno != EEXIST) {
        diag_error(d, g->path, NULL, NULL, "cannot create %s: %s", dir, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && (write_all(&h, dir, decl, init, pack, run) || cg_host_copy_runtime(rt, dir))) {
        diag_error(d, g->path, NULL, NULL, "cannot write %s: %s", dir, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rep) {
        rep->arena_bytes = h.plan.arena_bytes;
        rep->live_bytes = h.plan.live_bytes;
        rep->weight_bytes = (int64_t)h.blob.payload_size;
        rep->pool_bytes = (h.pool_est + h.scratch_est) * 4;
        rep->n_calls = h.n_calls;
        rep->n_alias = h.plan.n_alias;
        rep->n_inplace = h.plan.n_inplace;
    }
    free(decl);
    free(init);
    free(pack);
    free(run);
    host_free(&h);
    return rc;
}
