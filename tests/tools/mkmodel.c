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
 */
#define MB_CAP 80000
#include "unit/test_frontend_build.h"

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

static int usage(void)
{
    fprintf(stderr, "usage: mkmodel chain|adddag|resblocks N OUT.onnx | names TEXT OUT.onnx | wide DIM OUT.onnx"
                    " [OP] | bindable OUT.onnx | act OP OUT.onnx\n");
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
