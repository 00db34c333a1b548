/* test_host_emit.c - the host C emitter on hand-built IR graphs: the files
 * it writes, the calls and comments in model.c, a real build with the
 * generated Makefile, outputs checked against a naive reference computed
 * here (conv with fused residual + ReLU, max pool, a view, Gemm with fused
 * sigmoid, softmax; two inputs, two outputs), --embed-weights, refusal of
 * damaged or foreign weight blobs, and rejection of what the host path
 * cannot run (all reported at once, nothing written). */
#include "check.h"
#include "codegen/host.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WORK BINARY_DIR "/test_host_emit"

/* ------------------------------------------------------------ graphs */

static int tensor(IrGraph *g, const char *name, int rank, const int64_t *dims)
{
    return ir_tensor_add(g, name, IR_DT_FLOAT, rank, dims);
}

static int cst(IrGraph *g, const char *name, int rank, const int64_t *dims, float seed)
{
    float *p;
    int t = ir_const_add(g, name, IR_DT_FLOAT, rank, dims, (void **)&p);
    int64_t n = ir_tensor_numel(&g->tensors[t]);
    for (int64_t i = 0; i < n; i++)
        p[i] = sinf(seed + 0.7f * (float)i) * 0.5f;
    return t;
}

static int lay(IrGraph *g, IrOp op, const char *name, int n_in, const int *in, int y)
{
    int l = ir_layer_add(g, op, name);
    IrLayer *L = &g->layers[l];
    for (int i = 0; i < n_in; i++)
        L->in[L->n_in++] = in[i];
    L->out[L->n_out++] = y;
    g->tensors[y].producer = l;
    return l;
}

static void mark_io(IrGraph *g, int t, bool out)
{
    if (out) {
        g->tensors[t].is_output = true;
        g->outputs[g->n_outputs++] = t;
    } else {
        g->tensors[t].kind = IR_T_INPUT;
        g->inputs[g->n_inputs++] = t;
    }
}

typedef struct {
    IrGraph *g;
    int x, r, w, b, c, p, f, wg, cg, y, s;
} Net;

/* x[1,2,5,5] -conv(pad 1)+r, relu-> c[1,3,5,5] -maxpool 2x2-> p[1,3,2,2]
 * -reshape-> f[1,12] -gemm(trans_b)+sigmoid-> y[1,4] -softmax-> s */
static Net make_net(const char *path)
{
    Net n;
    IrGraph *g = n.g = ir_graph_new(path);
    g->opset = 13;
    n.x = tensor(g, "x", 4, (int64_t[]){1, 2, 5, 5});
    n.r = tensor(g, "r", 4, (int64_t[]){1, 3, 5, 5});
    mark_io(g, n.x, false);
    mark_io(g, n.r, false);
    n.w = cst(g, "conv.weight", 4, (int64_t[]){3, 2, 3, 3}, 0.1f);
    n.b = cst(g, "conv.bias", 1, (int64_t[]){3}, 1.3f);
    n.c = tensor(g, "c", 4, (int64_t[]){1, 3, 5, 5});
    int l = lay(g, IR_OP_CONV, "conv_node", 3, (int[]){n.x, n.w, n.b}, n.c);
    IrConvAttr *ca = &g->layers[l].attr.conv;
    ca->nsp = 2;
    for (int i = 0; i < 2; i++) {
        ca->kernel[i] = 3;
        ca->stride[i] = ca->dilation[i] = 1;
        ca->pad_begin[i] = ca->pad_end[i] = 1;
    }
    ca->group = 1;
    g->layers[l].residual = n.r;
    g->layers[l].act.kind = IR_ACT_RELU;
    g->layers[l].origin = "conv_node,add_node,relu_node";
    n.p = tensor(g, "p", 4, (int64_t[]){1, 3, 2, 2});
    l = lay(g, IR_OP_MAXPOOL, "pool_node", 1, &n.c, n.p);
    IrPoolAttr *pa = &g->layers[l].attr.pool;
    pa->nsp = 2;
    for (int i = 0; i < 2; i++) {
        pa->kernel[i] = pa->stride[i] = 2;
        pa->dilation[i] = 1;
    }
    n.f = tensor(g, "f", 2, (int64_t[]){1, 12});
    lay(g, IR_OP_RESHAPE, "reshape_node", 1, &n.p, n.f);
    n.wg = cst(g, "fc.weight", 2, (int64_t[]){4, 12}, 2.1f);
    n.cg = cst(g, "fc.bias", 1, (int64_t[]){4}, 0.4f);
    n.y = tensor(g, "y", 2, (int64_t[]){1, 4});
    l = lay(g, IR_OP_GEMM, "fc_node", 3, (int[]){n.f, n.wg, n.cg}, n.y);
    g->layers[l].attr.gemm = (IrGemmAttr){false, true, 1.0f, 1.0f};
    g->layers[l].act.kind = IR_ACT_SIGMOID;
    n.s = tensor(g, "s", 2, (int64_t[]){1, 4});
    l = lay(g, IR_OP_SOFTMAX, "softmax_node", 1, &n.y, n.s);
    g->layers[l].attr.axis.axis = -1;
    mark_io(g, n.s, true);
    mark_io(g, n.c, true);
    return n;
}

/* The same network computed naively. */
static void reference(Net *n, const float *x, const float *r, float *s, float *c)
{
    IrGraph *g = n->g;
    const float *W = ir_tensor_data(g, n->w), *B = ir_tensor_data(g, n->b);
    const float *Wg = ir_tensor_data(g, n->wg), *Cg = ir_tensor_data(g, n->cg);
    for (int f = 0; f < 3; f++)
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++) {
                float acc = B[f];
                for (int ch = 0; ch < 2; ch++)
                    for (int kh = 0; kh < 3; kh++)
                        for (int kw = 0; kw < 3; kw++) {
                            int ii = i + kh - 1, jj = j + kw - 1;
                            if (ii >= 0 && ii < 5 && jj >= 0 && jj < 5)
                                acc += x[(ch * 5 + ii) * 5 + jj] * W[((f * 2 + ch) * 3 + kh) * 3 + kw];
                        }
                acc += r[(f * 5 + i) * 5 + j];
                c[(f * 5 + i) * 5 + j] = acc > 0 ? acc : 0;
            }
    float p[12], y[4], sum = 0;
    for (int f = 0; f < 3; f++)
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                float m = -INFINITY;
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++)
                        m = fmaxf(m, c[(f * 5 + 2 * i + a) * 5 + 2 * j + b]);
                p[(f * 2 + i) * 2 + j] = m;
            }
    for (int k = 0; k < 4; k++) {
        float acc = Cg[k];
        for (int i = 0; i < 12; i++)
            acc += p[i] * Wg[k * 12 + i];
        y[k] = 1.0f / (1.0f + expf(-acc));
    }
    float mx = fmaxf(fmaxf(y[0], y[1]), fmaxf(y[2], y[3]));
    for (int k = 0; k < 4; k++)
        sum += s[k] = expf(y[k] - mx);
    for (int k = 0; k < 4; k++)
        s[k] /= sum;
}

/* ----------------------------------------------------------- helpers */

static void spit(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(p, 1, n, f) == n);
    if (f)
        fclose(f);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int sh(const char *fmt, const char *a, const char *b)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    return system(cmd);
}

static int emit(Net *n, const char *dir, bool embed, CgHostReport *rep)
{
    IrDiag d;
    diag_init(&d);
    sh("rm -rf '%s'%s", dir, "");
    CgHostOptions o = {.model_path = "/models/net.onnx", .embed_weights = embed};
    int rc = cg_host_emit(n->g, &o, dir, rep, &d);
    diag_print(&d, stderr);
    diag_free(&d);
    return rc;
}

/* Build dir with its Makefile and run it on the test inputs; 0 if the
 * outputs match the reference. */
static int build_and_check(const char *dir, const float *s_ref, const float *c_ref)
{
    char cmd[1024];
    if (sh("make -s -C '%s' CFLAGS=-O1 > '%s/build.log' 2>&1", dir, dir) != 0) {
        fprintf(stderr, "build of %s failed\n", dir);
        return -1;
    }
    snprintf(cmd, sizeof cmd, "cd '%s' && ./model -o s.f32 -o c.f32 " WORK "/x.f32 " WORK "/r.f32", dir);
    if (system(cmd) != 0)
        return -1;
    char path[512];
    size_t ns, nc;
    snprintf(path, sizeof path, "%s/s.f32", dir);
    float *s = (float *)test_read_file(path, &ns);
    snprintf(path, sizeof path, "%s/c.f32", dir);
    float *c = (float *)test_read_file(path, &nc);
    int bad = !s || !c || ns != 16 || nc != 75 * 4;
    for (int i = 0; !bad && i < 4; i++)
        bad |= fabsf(s[i] - s_ref[i]) > 1e-5f;
    for (int i = 0; !bad && i < 75; i++)
        bad |= fabsf(c[i] - c_ref[i]) > 1e-4f * (1 + fabsf(c_ref[i]));
    free(s);
    free(c);
    return bad ? -1 : 0;
}

/* ------------------------------------------------------------- tests */

static float xin[50], rin[75], s_ref[4], c_ref[75];

static void test_program(void)
{
    Net n = make_net("net.onnx");
    for (int i = 0; i < 50; i++)
        xin[i] = cosf(0.37f * (float)i);
    for (int i = 0; i < 75; i++)
        rin[i] = 0.2f * sinf(1.1f * (float)i);
    spit(WORK "/x.f32", xin, sizeof xin);
    spit(WORK "/r.f32", rin, sizeof rin);
    reference(&n, xin, rin, s_ref, c_ref);

    const char *dir = WORK "/host";
    CgHostReport rep;
    CHECK_EQ_INT(emit(&n, dir, false, &rep), 0);
    const char *files[] = {"model.h", "model.c", "main.c", "Makefile", "CMakeLists.txt", "weights.bin",
                           "model.json", "isa_dispatch.c", "runtime/o2h_rt.h", "runtime/rt_conv.c"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        CHECK_MSG(exists(p), "%s missing", p);
    }
    CHECK(!exists(WORK "/host/weights.c"));
    CHECK(rep.arena_bytes > 0 && rep.arena_bytes >= rep.live_bytes);
    CHECK_EQ_INT(rep.n_alias, 1);
    char *mc = test_read_file(WORK "/host/model.c", NULL), *mh = test_read_file(WORK "/host/model.h", NULL);
    char *js = test_read_file(WORK "/host/model.json", NULL);
    CHECK(mc && strstr(mc, "/* L0 Conv: ONNX conv_node,add_node,relu_node (fused: residual add activation) */"));
    CHECK(mc && strstr(mc, "static const O2hConv2d L0 = {.N = 1, .C = 2, .H = 5, .W = 5, .F = 3"));
    CHECK(mc && strstr(mc, "o2h_conv2d_f32(&L0, in[0], g_kw[0], CST("));
    CHECK(mc && strstr(mc, "{O2H_ACT_RELU, 0.0f, 0.0f, NULL, 0, in[1]}"));
    CHECK(mc && strstr(mc, "o2h_maxpool2d_f32(&L1"));
    CHECK(mc && strstr(mc, "/* view: f is p */"));
    CHECK(mc && strstr(mc, "O2H_ACT_SIGMOID"));
    CHECK(mc && strstr(mc, "o2h_softmax_f32(1, 4, 1, 0"));
    CHECK(mc && strstr(mc, "g_kw[0] = pack_conv(&L0, CST("));
    CHECK(mh && strstr(mh, "#define MODEL_NUM_INPUTS 2"));
    CHECK(mh && strstr(mh, "#define MODEL_NUM_OUTPUTS 2"));
    CHECK(mh && strstr(mh, "#define MODEL_ARENA_BYTES "));
    CHECK(mh && strstr(mh, "int model_init_file(const char *path);"));
    CHECK(js && strstr(js, "\"model\": \"/models/net.onnx\""));
    CHECK(js && strstr(js, "{\"name\": \"r\", \"dtype\": \"float32\", \"shape\": [1, 3, 5, 5]}"));
    free(mc);
    free(mh);
    free(js);
    CHECK_EQ_INT(build_and_check(dir, s_ref, c_ref), 0);

    /* a damaged blob is refused and never run */
    size_t len;
    unsigned char *blob = (unsigned char *)test_read_file(WORK "/host/weights.bin", &len);
    CHECK(blob && len > 100);
    if (blob && len > 100) {
        blob[len - 20] ^= 1;
        spit(WORK "/bad.bin", blob, len);
        CHECK(sh("'%s/model' --weights " WORK "/bad.bin " WORK "/x.f32 " WORK "/r.f32 2> " WORK
                 "/bad.log%s", dir, "") != 0);
        char *log = test_read_file(WORK "/bad.log", NULL);
        CHECK_MSG(log && strstr(log, "CRC32"), "%s", log ? log : "(no log)");
        free(log);
        spit(WORK "/short.bin", blob, len / 2);
        CHECK(sh("'%s/model' --weights " WORK "/short.bin " WORK "/x.f32 " WORK "/r.f32 2> " WORK
                 "/bad.log%s", dir, "") != 0);
    }
    free(blob);

    /* a blob of another model (other shapes) is refused by its layout hash */
    Net m = make_net("other.onnx");
    m.g->tensors[m.cg].dims[0] = 4;
    m.g->tensors[m.wg].name = "fc.weight.other";
    CHECK_EQ_INT(emit(&m, WORK "/other", false, NULL), 0);
    CHECK(sh("'%s/model' --weights " WORK "/other/weights.bin " WORK "/x.f32 " WORK "/r.f32 2> " WORK
             "/bad.log%s", dir, "") != 0);
    char *log = test_read_file(WORK "/bad.log", NULL);
    CHECK_MSG(log && strstr(log, "another model"), "%s", log ? log : "(no log)");
    free(log);
    ir_graph_free(m.g);

    /* weights compiled in */
    CHECK_EQ_INT(emit(&n, WORK "/embed", true, NULL), 0);
    CHECK(exists(WORK "/embed/weights.c") && !exists(WORK "/embed/weights.bin"));
    CHECK_EQ_INT(build_and_check(WORK "/embed", s_ref, c_ref), 0);
    ir_graph_free(n.g);
}

/* Unsupported layers: every one reported with its node, nothing written. */
static void test_rejections(void)
{
    IrGraph *g = ir_graph_new("bad.onnx");
    int x = tensor(g, "x", 5, (int64_t[]){1, 1, 3, 3, 3});
    mark_io(g, x, false);
    int w = cst(g, "w", 5, (int64_t[]){1, 1, 1, 1, 1}, 0);
    int y = tensor(g, "y", 5, (int64_t[]){1, 1, 3, 3, 3});
    int l = lay(g, IR_OP_CONV, "conv3d", 2, (int[]){x, w}, y);
    g->layers[l].attr.conv.group = 1;
    int q = tensor(g, "q", 5, (int64_t[]){1, 1, 3, 3, 3});
    lay(g, IR_OP_QUANTIZE_LINEAR, "quant", 1, &y, q);
    int s = ir_tensor_add(g, "s", IR_DT_INT64, 1, (int64_t[]){5});
    lay(g, IR_OP_SHAPE, "shape", 1, &q, s);
    int i = ir_tensor_add(g, "i", IR_DT_INT64, 1, (int64_t[]){5});
    lay(g, IR_OP_RELU, "int_relu", 1, &s, i);
    mark_io(g, i, true);
    IrDiag d;
    diag_init(&d);
    CgHostOptions o = {0};
    sh("rm -rf '%s'%s", WORK "/rejected", "");
    CHECK_EQ_INT(cg_host_emit(g, &o, WORK "/rejected", NULL, &d), -1);
    CHECK_EQ_INT(d.n_errors, 4);
    CHECK(diag_contains(&d, "3-D convolution is not supported"));
    CHECK(diag_contains(&d, "QuantizeLinear is not supported"));
    CHECK(diag_contains(&d, "must be folded"));
    CHECK(diag_contains(&d, "is int64; the host path computes this op in float32 only"));
    bool named = false;
    for (int k = 0; k < d.n; k++)
        named |= d.v[k].node && !strcmp(d.v[k].node, "conv3d") && d.v[k].file && !strcmp(d.v[k].file, "bad.onnx");
    CHECK(named);
    CHECK(!exists(WORK "/rejected"));
    CHECK_EQ_INT(cg_host_check(g, &d), -1);
    diag_free(&d);
    ir_graph_free(g);
}

/* A layer with an unknown shape is refused, not indexed blindly. */
static void test_unknown_shape(void)
{
    IrGraph *g = ir_graph_new("dyn.onnx");
    int x = tensor(g, "x", 2, (int64_t[]){1, 4});
    mark_io(g, x, false);
    int y = ir_tensor_add(g, "y", IR_DT_FLOAT, -1, NULL);
    lay(g, IR_OP_TRANSPOSE, "t", 1, &x, y);
    int z = tensor(g, "z", 2, (int64_t[]){1, -1});
    lay(g, IR_OP_RELU, "r", 1, &y, z);
    mark_io(g, z, true);
    IrDiag d;
    diag_init(&d);
    CHECK_EQ_INT(cg_host_check(g, &d), -1);
    CHECK(d.n_errors >= 2);   /* both layers touching y, and the output z */
    CHECK(diag_contains(&d, "tensor 'y' has no static shape"));
    diag_free(&d);
    ir_graph_free(g);
}

/* Data movement on int64 tensors and a 1-D convolution mapped to 2-D. */
static void test_misc_ops(void)
{
    IrGraph *g = ir_graph_new("misc.onnx");
    g->opset = 13;
    int x = tensor(g, "x", 3, (int64_t[]){1, 2, 8});
    mark_io(g, x, false);
    int w = cst(g, "w", 3, (int64_t[]){4, 2, 3}, 0.5f);
    float *wv = ir_tensor_data(g, w);
    for (int i = 0; i < 24; i++)
        wv[i] = (float)(i % 3 - 1) * 0.5f;   /* sums exact in float: no rounding at the cast */
    int c = tensor(g, "c", 3, (int64_t[]){1, 4, 8});
    int l = lay(g, IR_OP_CONV, "conv1d", 2, (int[]){x, w}, c);
    IrConvAttr *ca = &g->layers[l].attr.conv;
    ca->nsp = 1, ca->kernel[0] = 3, ca->stride[0] = ca->dilation[0] = 1;
    ca->pad_begin[0] = ca->pad_end[0] = 1, ca->group = 1;
    int ci = ir_tensor_add(g, "ci", IR_DT_INT64, 3, (int64_t[]){1, 4, 8});
    l = lay(g, IR_OP_CAST, "cast", 1, &c, ci);
    g->layers[l].attr.cast.to = IR_DT_INT64;
    int64_t *iv;
    int idx = ir_const_add(g, "idx", IR_DT_INT64, 1, (int64_t[]){2}, (void **)&iv);
    iv[0] = -1, iv[1] = 0;
    int gi = ir_tensor_add(g, "gi", IR_DT_INT64, 3, (int64_t[]){1, 2, 8});
    l = lay(g, IR_OP_GATHER, "gather", 2, (int[]){ci, idx}, gi);
    g->layers[l].attr.axis.axis = 1;
    int tr = ir_tensor_add(g, "tr", IR_DT_INT64, 3, (int64_t[]){8, 2, 1});
    l = lay(g, IR_OP_TRANSPOSE, "transpose", 1, &gi, tr);
    g->layers[l].attr.axes.n = 3;
    g->layers[l].attr.axes.perm[0] = 2, g->layers[l].attr.axes.perm[1] = 1, g->layers[l].attr.axes.perm[2] = 0;
    mark_io(g, tr, true);
    IrDiag d;
    diag_init(&d);
    CgHostOptions o = {0};
    sh("rm -rf '%s'%s", WORK "/misc", "");
    CHECK_EQ_INT(cg_host_emit(g, &o, WORK "/misc", NULL, &d), 0);
    diag_print(&d, stderr);
    char *mc = test_read_file(WORK "/misc/model.c", NULL);
    CHECK(mc && strstr(mc, ".N = 1, .C = 2, .H = 1, .W = 8, .F = 4, .HO = 1, .WO = 8"));
    CHECK(mc && strstr(mc, "cast_f32_i64("));
    CHECK(mc && strstr(mc, "o2h_gather(8, 1, 4, 8, CST("));
    CHECK(mc && strstr(mc, "o2h_transpose(8, 3, L3_dims, L3_perm"));
    free(mc);
    /* run it: out[t][k][0] = (int64)conv[0][k == 0 ? 3 : 0][t] */
    float xv[16];
    for (int i = 0; i < 16; i++)
        xv[i] = (float)(i % 5) * 3.0f - 6.0f;
    spit(WORK "/misc/x.f32", xv, sizeof xv);
    CHECK_EQ_INT(sh("make -s -C '%s' CFLAGS=-O1 > /dev/null 2>&1 && cd '%s' && ./model -o y.bin x.f32", WORK "/misc",
                    WORK "/misc"), 0);
    int64_t *y = (int64_t *)test_read_file(WORK "/misc/y.bin", NULL);
    const float *W = ir_tensor_data(g, w);
    for (int t = 0; y && t < 8; t++)
        for (int k = 0; k < 2; k++) {
            int f = k == 0 ? 3 : 0;
            float acc = 0;
            for (int ch = 0; ch < 2; ch++)
                for (int kk = 0; kk < 3; kk++) {
                    int tt = t + kk - 1;
                    if (tt >= 0 && tt < 8)
                        acc += xv[ch * 8 + tt] * W[(f * 2 + ch) * 3 + kk];
                }
            CHECK_EQ_INT(y[t * 2 + k], (int64_t)acc);
        }
    free(y);
    diag_free(&d);
    ir_graph_free(g);
}

int main(void)
{
    mkdir(WORK, 0777);
    test_program();
    test_rejections();
    test_unknown_shape();
    test_misc_ops();
    return check_done();
}
