/* fuzz_bind.c - the --bind NAME=FILE reader (frontend/fe_bind.c): the input
 * bytes (after a first byte choosing the variant) as the value of a graph
 * input of a model made here (Reshape of x[1,2,3,4] float by shape[2]
 * int64, both graph inputs; what `mkmodel bindable` writes).
 *
 * Why: a ".pb" file is a serialized TensorProto decoded with the
 * frontend's bindings, whose dtype, dims and data (raw or typed fields,
 * maybe external) must agree with the input's declaration; raw data must be
 * exactly the declared size. Once bound, the value is a constant that the
 * importers and the constant folder use (Reshape's target shape; x itself
 * folds the whole graph). First byte: bit 0 raw instead of .pb, bit 1 binds
 * x instead of shape. Invariants: a graph that loads passes ir_verify; a
 * refusal names a file. */
#include "fuzz.h"

#include "frontend/frontend.h"
#include "unit/test_frontend_build.h"

static char model_path[4200];

static int init(void)
{
    Mb *b = mb_new(13);
    mb_input(b, "x", 1, 4, D(1, 2, 3, 4));
    mb_input(b, "shape", 7, 1, D(2));
    mb_node(b, "Reshape", "reshape", "x,shape", "y");
    mb_output(b, "y", 1, -1, NULL);
    size_t len;
    uint8_t *buf = mb_pack(b, &len);
    const char *p = fz_file("bindable.onnx", buf, len);
    free(buf);
    mb_free(b);
    if (!p)
        return -1;
    snprintf(model_path, sizeof model_path, "%s", p);
    return 0;
}

static int one(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    bool raw = data[0] & 1, x = data[0] & 2;
    const char *path = fz_file(raw ? "value.raw" : "value.pb", data + 1, size - 1);
    if (!path)
        return 0;
    FeOptions fe = {.n_binds = 1};
    fe.binds[0] = (FeBind){x ? "x" : "shape", x ? 1 : 5, path};
    IrDiag d;
    diag_init(&d);
    IrGraph *g = fe_load_onnx(model_path, &fe, &d);
    if (g)
        fz_check_graph(g, "fe_load_onnx with --bind");
    else
        fz_check_refusal(&d, "fe_load_onnx with --bind");
    ir_graph_free(g);
    diag_free(&d);
    return 0;
}

FUZZ_TARGET(bind, init, one)
