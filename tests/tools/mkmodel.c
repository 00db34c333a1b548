/* mkmodel.c - writes the synthetic ONNX models that the scale and hostile-
 * input tests need and that are too big or too odd to ship in samples/.
 *
 * Why a tool and not files: a 10,000-layer chain is megabytes of protobuf,
 * and a model whose names are attacks on the emitted C is best spelled out
 * next to the test that uses it. Built on the frontend tests' builder
 * (tests/unit/test_frontend_build.h), so every model is written by the same
 * protobuf-c code the tests already trust.
 *
 *   mkmodel chain N OUT.onnx        N 1x1 convs (8 channels, 4x4 maps)
 *   mkmodel adddag N OUT.onnx       x_i = Add(x_{i-1}, x_{i-2}), N Adds
 *   mkmodel resblocks N OUT.onnx    N residual blocks of 7 layers (conv, BN,
 *                                   Relu, conv, BN, Add, Relu): every fusion
 *   mkmodel names TEXT OUT.onnx [OP] conv + relu (or OP); every name and doc
 *                                   string starts with TEXT (\xHH escapes)
 *   mkmodel wide DIM OUT.onnx       Relu over a [1, DIM] float input
 *   mkmodel bindable OUT.onnx       Reshape whose shape is a graph input
 *   mkmodel act OP OUT.onnx         opset 18: conv 3x3, OP (fused into it),
 *                                   conv 1x1, OP beside an Add of its input
 *                                   (a unit of its own): an activation on
 *                                   every path of the planner and the engines
 *   mkmodel shufflenet tiny|full OUT.onnx
 *                                   ShuffleNetV2-like: stride-2 blocks of two
 *                                   branches, stride-1 blocks that split the
 *                                   channels (Split, or two Slices), Concat and
 *                                   the channel shuffle Reshape -> Transpose ->
 *                                   Reshape; tiny: 1x3x32x32, channels 16/32;
 *                                   full: ShuffleNetV2 x1.0 (1x3x224x224)
 *   mkmodel inception OUT.onnx      GoogLeNet/DenseNet-like, 1x3x16x16: a Split
 *                                   of unequal parts, a Slice of every third
 *                                   channel, Concat of two, Add; an inception
 *                                   block (four branches, Concat), a dense block
 *                                   (Concats of 2 and 3 maps), a Split and a
 *                                   Slice of every other channel, classifier
 */
#define MB_CAP 80000
#include "unit/test_frontend_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { CH = 8, HW = 4 };

static void chain(Mb *b, int n)
{
    char w[32], x[32], y[32], name[32];
    float wv[CH * CH];
    for (int i = 0; i < CH * CH; i++)
        wv[i] = (i % (CH + 1) == 0) ? 1.0f : 0.01f;
    mb_input(b, "x0", 1, 4, D(1, CH, HW, HW));
    for (int i = 0; i < n; i++) {
        snprintf(w, sizeof w, "w%d", i);
        snprintf(x, sizeof x, "x%d", i);
        snprintf(y, sizeof y, "x%d", i + 1);
        snprintf(name, sizeof name, "conv%d", i);
        mb_init_f(b, w, 4, D(CH, CH, 1, 1), wv);
        char ins[80];
        snprintf(ins, sizeof ins, "%s,%s", x, w);
        mb_node(b, "Conv", name, ins, y);
    }
    snprintf(y, sizeof y, "x%d", n);
    mb_output(b, y, 1, 4, D(1, CH, HW, HW));
}

static void adddag(Mb *b, int n)
{
    char ins[80], y[32], name[32];
    mb_input(b, "x0", 1, 4, D(1, CH, HW, HW));
    mb_node(b, "Relu", "relu", "x0", "x1");
    for (int i = 2; i < n + 2; i++) {
        snprintf(ins, sizeof ins, "x%d,x%d", i - 1, i - 2);
        snprintf(y, sizeof y, "x%d", i);
        snprintf(name, sizeof name, "add%d", i);
        mb_node(b, "Add", name, ins, y);
    }
    snprintf(y, sizeof y, "x%d", n + 1);
    mb_output(b, y, 1, 4, D(1, CH, HW, HW));
}

static void bn(Mb *b, const char *x, const char *y, const char *p)
{
    static const float one[CH] = {1, 1, 1, 1, 1, 1, 1, 1}, zero[CH] = {0};
    const char *sfx[4] = {"_s", "_b", "_m", "_v"};
    char ins[200];
    snprintf(ins, sizeof ins, "%s", x);
    for (int k = 0; k < 4; k++) {
        char n[64];
        snprintf(n, sizeof n, "%s%s", p, sfx[k]);
        mb_init_f(b, n, 1, D(CH), k == 0 || k == 3 ? one : zero);
        strcat(ins, ",");
        strcat(ins, n);
    }
    mb_node(b, "BatchNormalization", p, ins, y);
}

static void conv(Mb *b, const char *x, const char *y, const char *p)
{
    float wv[CH * CH * 9];
    for (int i = 0; i < CH * CH * 9; i++)
        wv[i] = (float)((i * 7) % 11 - 5) / 64.0f;
    char w[64], ins[160];
    snprintf(w, sizeof w, "%s_w", p);
    mb_init_f(b, w, 4, D(CH, CH, 3, 3), wv);
    snprintf(ins, sizeof ins, "%s,%s", x, w);
    Onnx__NodeProto *n = mb_node(b, "Conv", p, ins, y);
    mb_attr_ints(b, n, "pads", 4, D(1, 1, 1, 1));
}

static void resblocks(Mb *b, int n)
{
    char x[32], t[7][32], y[32];
    mb_input(b, "x0", 1, 4, D(1, CH, HW, HW));
    for (int i = 0; i < n; i++) {
        snprintf(x, sizeof x, "x%d", i);
        for (int k = 0; k < 6; k++)
            snprintf(t[k], sizeof t[k], "b%d_%d", i, k);
        snprintf(y, sizeof y, "x%d", i + 1);
        conv(b, x, t[0], t[0]);
        bn(b, t[0], t[1], t[1]);
        mb_node(b, "Relu", t[2], t[1], t[2]);
        conv(b, t[2], t[3], t[3]);
        bn(b, t[3], t[4], t[4]);
        char ins[80];
        snprintf(ins, sizeof ins, "%s,%s", t[4], x);
        mb_node(b, "Add", t[5], ins, t[5]);
        mb_node(b, "Relu", y, t[5], y);
    }
    snprintf(y, sizeof y, "x%d", n);
    mb_output(b, y, 1, 4, D(1, CH, HW, HW));
}

/* TEXT with \xHH escapes decoded (so a test can put any byte in a name). */
static char *unescape(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    for (; *s; s++) {
        unsigned v;
        if (s[0] == '\\' && s[1] == 'x' && sscanf(s + 2, "%2x", &v) == 1 && v) {
            *o++ = (char)v;
            s += 3;
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
    return out;
}

static const char *named(Mb *b, const char *text, const char *suffix)
{
    char *p = mb_alloc(b, strlen(text) + strlen(suffix) + 1);
    strcpy(p, text);
    strcat(p, suffix);
    return p;
}

/* A node whose input and output names may hold commas (mb_node splits
 * its lists on them). */
static Onnx__NodeProto *node2(Mb *b, const char *op, const char *name, const char *x, const char *w,
                              const char *y)
{
    Onnx__NodeProto *n = mb_node(b, op, name, "", "");
    n->input[n->n_input++] = (char *)x;
    if (w)
        n->input[n->n_input++] = (char *)w;
    n->output[n->n_output++] = (char *)y;
    return n;
}

static void names(Mb *b, const char *raw, const char *op)
{
    char *t = unescape(raw);
    b->graph.name = (char *)named(b, t, "graph");
    b->graph.doc_string = (char *)named(b, t, "graph doc");
    b->model.doc_string = (char *)named(b, t, "model doc");
    b->model.producer_name = (char *)named(b, t, "producer");
    const char *x = named(b, t, "in"), *w = named(b, t, "w"), *c = named(b, t, "conv_out"),
               *y = named(b, t, "out");
    float wv[CH * CH * 9];
    for (int i = 0; i < CH * CH * 9; i++)
        wv[i] = (float)((i * 7) % 11 - 5) / 16.0f;
    mb_input(b, x, 1, 4, D(1, CH, HW, HW));
    mb_init_f(b, w, 4, D(CH, CH, 3, 3), wv);
    Onnx__NodeProto *n = node2(b, "Conv", named(b, t, "conv"), x, w, c);
    n->doc_string = (char *)named(b, t, "conv doc");
    mb_attr_ints(b, n, "pads", 4, D(1, 1, 1, 1));
    n = node2(b, op, named(b, t, "relu"), c, NULL, y);
    n->doc_string = (char *)named(b, t, "relu doc");
    mb_output(b, y, 1, 4, D(1, CH, HW, HW));
    free(t);
}

static void wide(Mb *b, long long dim)
{
    mb_input(b, "x", 1, 2, D(1, dim));
    mb_node(b, "Relu", "relu", "x", "y");
    mb_output(b, "y", 1, 2, D(1, dim));
}

static void bindable(Mb *b)
{
    mb_input(b, "x", 1, 4, D(1, 2, 3, 4));
    mb_input(b, "shape", 7, 1, D(2));
    mb_node(b, "Reshape", "reshape", "x,shape", "y");
    mb_output(b, "y", 1, -1, NULL);
}

static void conv_w(Mb *b, const char *name, int k, int seed)
{
    float wv[CH * CH * 9];
    for (int i = 0; i < CH * CH * k * k; i++)
        wv[i] = (float)(((i + seed) * 7) % 11 - 5) / 16.0f;
    mb_init_f(b, name, 4, D(CH, CH, k, k), wv);
}

static void act(Mb *b, const char *op)
{
    enum { S = 16 };
    mb_input(b, "x", 1, 4, D(1, CH, S, S));
    conv_w(b, "w1", 3, 0);
    conv_w(b, "w2", 1, 3);
    mb_attr_ints(b, mb_node(b, "Conv", "conv1", "x,w1", "c1"), "pads", 4, D(1, 1, 1, 1));
    mb_node(b, op, "act1", "c1", "a1");
    mb_node(b, "Conv", "conv2", "a1,w2", "c2");
    mb_node(b, op, "act2", "c2", "a2");
    mb_node(b, "Add", "add", "a2,c2", "y");
    mb_output(b, "y", 1, 4, D(1, CH, S, S));
}

/* ------------------------------------------------ layout test networks */

/* Weights are seeded pseudo-random, He-uniform, so activations keep a
 * sane range through many layers (what quantization needs). */
typedef struct {
    Mb *b;
    uint32_t seed;
    int n;              /* names made so far */
} Net;

static float rnd(Net *t)
{
    t->seed = t->seed * 1664525u + 1013904223u;
    return (float)(t->seed >> 8) / 8388608.0f - 1.0f;   /* [-1, 1) */
}

static const char *fresh(Net *t, const char *what)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%s%d", what, t->n++);
    return mb_str(t->b, buf);
}

/* Conv k x k (pads k/2) with bias, groups g; Relu when relu */
static const char *conv_k(Net *t, const char *x, int cin, int cout, int k, int stride, int g, int relu)
{
    int64_t n = (int64_t)cout * (cin / g) * k * k;
    float *w = malloc(sizeof(float) * (size_t)n), bias[1024];
    float a = sqrtf(6.0f / (float)((cin / g) * k * k));
    for (int64_t i = 0; i < n; i++)
        w[i] = a * rnd(t);
    for (int i = 0; i < cout; i++)
        bias[i] = 0.05f * rnd(t);
    const char *wn = fresh(t, "w"), *bn = fresh(t, "b"), *y = fresh(t, relu ? "c" : "x");
    mb_init_f(t->b, wn, 4, D(cout, cin / g, k, k), w);
    mb_init_f(t->b, bn, 1, D(cout), bias);
    free(w);
    char ins[160];
    snprintf(ins, sizeof ins, "%s,%s,%s", x, wn, bn);
    Onnx__NodeProto *nd = mb_node(t->b, "Conv", fresh(t, "conv"), ins, y);
    mb_attr_ints(t->b, nd, "pads", 4, D(k / 2, k / 2, k / 2, k / 2));
    mb_attr_ints(t->b, nd, "strides", 2, D(stride, stride));
    mb_attr_i(t->b, nd, "group", g);
    if (!relu)
        return y;
    const char *r = fresh(t, "x");
    mb_node(t->b, "Relu", fresh(t, "relu"), y, r);
    return r;
}

static const char *node1(Net *t, const char *op, const char *ins)
{
    const char *y = fresh(t, "x");
    mb_node(t->b, op, fresh(t, op), ins, y);
    return y;
}

static const char *join(Net *t, const char *a, const char *b)
{
    char *s = mb_alloc(t->b, strlen(a) + strlen(b) + 2);
    sprintf(s, "%s,%s", a, b);
    (void)t;
    return s;
}

static const char *concat(Net *t, const char *ins)
{
    const char *y = fresh(t, "x");
    mb_attr_i(t->b, mb_node(t->b, "Concat", fresh(t, "concat"), ins, y), "axis", 1);
    return y;
}

static const char *maxpool(Net *t, const char *x, int k, int s, int pad)
{
    const char *y = fresh(t, "x");
    Onnx__NodeProto *nd = mb_node(t->b, "MaxPool", fresh(t, "pool"), x, y);
    mb_attr_ints(t->b, nd, "kernel_shape", 2, D(k, k));
    mb_attr_ints(t->b, nd, "strides", 2, D(s, s));
    mb_attr_ints(t->b, nd, "pads", 4, D(pad, pad, pad, pad));
    return y;
}

/* Slice of channels [from, to) by step */
static const char *chan_slice(Net *t, const char *x, int from, int to, int step)
{
    const char *st = fresh(t, "starts"), *en = fresh(t, "ends"), *ax = fresh(t, "axes"), *sp = fresh(t, "steps");
    mb_init_i64(t->b, st, 1, D(from));
    mb_init_i64(t->b, en, 1, D(to));
    mb_init_i64(t->b, ax, 1, D(1));
    mb_init_i64(t->b, sp, 1, D(step));
    char ins[200];
    snprintf(ins, sizeof ins, "%s,%s,%s,%s,%s", x, st, en, ax, sp);
    return node1(t, "Slice", ins);
}

/* Split along channels into parts a and b: "y0,y1" */
static const char *chan_split(Net *t, const char *x, int a, int b)
{
    const char *sz = fresh(t, "split"), *y0 = fresh(t, "x"), *y1 = fresh(t, "x");
    mb_init_i64(t->b, sz, 2, D(a, b));
    mb_attr_i(t->b, mb_node(t->b, "Split", fresh(t, "split"), join(t, x, sz), join(t, y0, y1)), "axis", 1);
    return join(t, y0, y1);
}

/* x [1, c, h, w] -> [1, 2, c/2, h, w] -> Transpose(0, 2, 1, 3, 4) -> [1, c, h, w] */
static const char *shuffle(Net *t, const char *x, int c, int h, int w)
{
    const char *s5 = fresh(t, "shape"), *s4 = fresh(t, "shape");
    mb_init_i64(t->b, s5, 5, D(1, 2, c / 2, h, w));
    mb_init_i64(t->b, s4, 4, D(1, c, h, w));
    const char *v = node1(t, "Reshape", join(t, x, s5)), *tr = fresh(t, "x");
    mb_attr_ints(t->b, mb_node(t->b, "Transpose", fresh(t, "transpose"), v, tr), "perm", 5, D(0, 2, 1, 3, 4));
    return node1(t, "Reshape", join(t, tr, s4));
}

/* pw -> dw 3x3 (stride) -> pw, Relu after the 1x1s */
static const char *branch(Net *t, const char *x, int cin, int c, int stride)
{
    const char *y = conv_k(t, x, cin, c, 1, 1, 1, 1);
    y = conv_k(t, y, c, c, 3, stride, c, 0);
    return conv_k(t, y, c, c, 1, 1, 1, 1);
}

static const char *classifier(Net *t, const char *x, int c, int classes)
{
    const char *f = node1(t, "Flatten", node1(t, "GlobalAveragePool", x));
    float *w = malloc(sizeof(float) * (size_t)(classes * c)), bias[1000];
    for (int i = 0; i < classes * c; i++)
        w[i] = sqrtf(3.0f / (float)c) * rnd(t);
    for (int i = 0; i < classes; i++)
        bias[i] = 0.01f * rnd(t);
    mb_init_f(t->b, "fc_w", 2, D(classes, c), w);
    mb_init_f(t->b, "fc_b", 1, D(classes), bias);
    free(w);
    char ins[120];
    snprintf(ins, sizeof ins, "%s,fc_w,fc_b", f);
    mb_attr_i(t->b, mb_node(t->b, "Gemm", "fc", ins, "y"), "transB", 1);
    return "y";
}

/* "a,b" -> a, b */
static void pair(Net *t, const char *p, const char **a, const char **b)
{
    const char *comma = strchr(p, ',');
    char *s = mb_alloc(t->b, (size_t)(comma - p) + 1);
    memcpy(s, p, (size_t)(comma - p));
    *a = s, *b = comma + 1;
}

/* One stride-1 block: split (Split node or two Slices), branch, Concat, shuffle */
static const char *unit1(Net *t, const char *x, int c, int h, int w, int use_split)
{
    const char *x1, *x2;
    if (use_split) {
        pair(t, chan_split(t, x, c / 2, c / 2), &x1, &x2);
    } else {
        x1 = chan_slice(t, x, 0, c / 2, 1);
        x2 = chan_slice(t, x, c / 2, c, 1);
    }
    return shuffle(t, concat(t, join(t, x1, branch(t, x2, c / 2, c / 2, 1))), c, h, w);
}

static void shufflenet(Mb *b, int full)
{
    Net t = {b, 12345u, 0};
    static const int tiny_c[] = {16, 32}, tiny_n[] = {2, 2}, full_c[] = {116, 232, 464}, full_n[] = {4, 8, 4};
    int hw = full ? 224 : 32, c0 = full ? 24 : 8, stages = full ? 3 : 2, last = full ? 1024 : 64;
    mb_input(b, "input", 1, 4, D(1, 3, hw, hw));
    const char *x = maxpool(&t, conv_k(&t, "input", 3, c0, 3, 2, 1, 1), 3, 2, 1);
    int cin = c0;
    hw /= 4;
    for (int s = 0; s < stages; s++) {
        int c = full ? full_c[s] : tiny_c[s];
        hw /= 2;
        const char *b1 = conv_k(&t, conv_k(&t, x, cin, cin, 3, 2, cin, 0), cin, c / 2, 1, 1, 1, 1);
        x = shuffle(&t, concat(&t, join(&t, b1, branch(&t, x, cin, c / 2, 2))), c, hw, hw);
        for (int i = 1; i < (full ? full_n[s] : tiny_n[s]); i++)
            x = unit1(&t, x, c, hw, hw, !full && s == 0);
        cin = c;
    }
    x = conv_k(&t, x, cin, last, 1, 1, 1, 1);
    classifier(&t, x, last, full ? 1000 : 10);
    mb_output(b, "y", 1, 2, D(1, full ? 1000 : 10));
}

static void inception(Mb *b)
{
    Net t = {b, 777u, 0};
    const char *s0, *s1;
    mb_input(b, "input", 1, 4, D(1, 3, 16, 16));
    const char *x = conv_k(&t, "input", 3, 16, 3, 1, 1, 1);
    pair(&t, chan_split(&t, x, 6, 10), &s0, &s1);
    const char *c = concat(&t, join(&t, s1, chan_slice(&t, x, 1, 16, 3)));           /* 10 + 5 */
    x = node1(&t, "Add", join(&t, c, conv_k(&t, s0, 6, 15, 1, 1, 1, 1)));              /* 15 */
    const char *b1 = conv_k(&t, x, 15, 8, 1, 1, 1, 1);
    const char *b2 = conv_k(&t, conv_k(&t, x, 15, 8, 1, 1, 1, 1), 8, 12, 3, 1, 1, 1);
    const char *b3 = conv_k(&t, conv_k(&t, x, 15, 4, 1, 1, 1, 1), 4, 6, 3, 1, 1, 1);
    const char *b4 = conv_k(&t, maxpool(&t, x, 3, 1, 1), 15, 6, 1, 1, 1, 1);
    x = maxpool(&t, concat(&t, join(&t, join(&t, b1, b2), join(&t, b3, b4))), 2, 2, 0);   /* 32 x 8 x 8 */
    const char *y1 = conv_k(&t, x, 32, 8, 3, 1, 1, 1);
    const char *c1 = concat(&t, join(&t, x, y1));                                    /* 40 */
    const char *y2 = conv_k(&t, c1, 40, 8, 3, 1, 1, 1);
    const char *c2 = concat(&t, join(&t, join(&t, x, y1), y2));                       /* 48 */
    pair(&t, chan_split(&t, c2, 16, 32), &s0, &s1);
    const char *sum = node1(&t, "Add", join(&t, s0, chan_slice(&t, c2, 4, 36, 2)));  /* 16 */
    const char *u = conv_k(&t, s1, 32, 16, 1, 1, 1, 1);
    x = conv_k(&t, concat(&t, join(&t, sum, u)), 32, 32, 1, 1, 1, 1);
    classifier(&t, x, 32, 10);
    mb_output(b, "y", 1, 2, D(1, 10));
}

static int usage(void)
{
    fprintf(stderr, "usage: mkmodel chain|adddag|resblocks N OUT.onnx | names TEXT OUT.onnx | wide DIM OUT.onnx"
                    " [OP] | bindable OUT.onnx | act OP OUT.onnx\n"
                    "       mkmodel shufflenet tiny|full OUT.onnx | inception OUT.onnx\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage();
    const char *kind = argv[1], *out = argv[!strcmp(kind, "names") && argc == 5 ? 3 : argc - 1];
    Mb *b = mb_new(!strcmp(kind, "act") ? 18 : 13);
    if (!strcmp(kind, "chain") && argc == 4)
        chain(b, atoi(argv[2]));
    else if (!strcmp(kind, "adddag") && argc == 4)
        adddag(b, atoi(argv[2]));
    else if (!strcmp(kind, "resblocks") && argc == 4)
        resblocks(b, atoi(argv[2]));
    else if (!strcmp(kind, "names") && (argc == 4 || argc == 5))
        names(b, argv[2], argc == 5 ? argv[4] : "Relu");
    else if (!strcmp(kind, "wide") && argc == 4)
        wide(b, atoll(argv[2]));
    else if (!strcmp(kind, "act") && argc == 4)
        act(b, argv[2]);
    else if (!strcmp(kind, "bindable") && argc == 3)
        bindable(b);
    else if (!strcmp(kind, "shufflenet") && argc == 4 && (!strcmp(argv[2], "tiny") || !strcmp(argv[2], "full")))
        shufflenet(b, !strcmp(argv[2], "full"));
    else if (!strcmp(kind, "inception") && argc == 3)
        inception(b);
    else {
        mb_free(b);
        return usage();
    }
    size_t len;
    uint8_t *buf = mb_pack(b, &len);
    write_bytes(out, buf, len);
    free(buf);
    mb_free(b);
    return 0;
}
