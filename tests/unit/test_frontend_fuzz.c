/* test_frontend_fuzz.c - every op of ops.def with hostile attributes and
 * parameter inputs: extreme integers, wrong counts, wrong types, odd ranks.
 *
 * Why: importers do arithmetic on values taken straight from the file
 * (strides, pads, split sizes, slice bounds, shapes...). Under the
 * sanitizers any overflow or out-of-bounds access aborts the test, so this
 * shakes out the paths the hand-written cases do not reach. Each load must
 * return a graph, or NULL with at least one error. Deterministic (fixed
 * seed) so a failure reproduces. Byte-level mutations of real models (and of
 * every other input: side files, model.json, the lint's C) are
 * tests/fuzz/fuzz_mutate.c's, over the same targets libFuzzer runs. */
#include "check.h"
#include "test_frontend_build.h"

static uint64_t state = 0x243f6a8885a308d3ull;

static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static int64_t wild_int(void)
{
    static const int64_t pool[] = {0, 1, -1, 2, 3, -2, 7, 1 << 20, -(1 << 20), INT32_MAX,
                                   INT32_MIN, INT64_MAX, INT64_MIN, INT64_MAX - 1,
                                   INT64_MIN + 1, (int64_t)1 << 40, 4, 5, 6};
    return pool[next() % (sizeof pool / sizeof pool[0])];
}

static float wild_float(void)
{
    static const float pool[] = {0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 1e30f, -1e30f, 1e-30f, 3.0f};
    uint64_t r = next() % 12;
    if (r == 9)
        return NAN;
    if (r == 10)
        return INFINITY;
    if (r == 11)
        return -INFINITY;
    return pool[r];
}

static const char *const int_attrs[] = {"axis", "group", "keepdims", "ceil_mode", "transA",
                                        "transB", "to", "allowzero", "num_outputs", "start",
                                        "end", "count_include_pad", "training_mode", "spatial",
                                        "noop_with_empty_axes", "broadcast", "storage_order",
                                        "block_size", "output_dtype", "exclude_outside"};
static const char *const ints_attrs[] = {"axes", "perm", "kernel_shape", "strides", "pads",
                                         "dilations", "split", "starts", "ends",
                                         "output_padding", "output_shape"};
static const char *const float_attrs[] = {"alpha", "beta", "epsilon", "min", "max", "value",
                                          "ratio", "cubic_coeff_a"};
static const char *const str_attrs[][2] = {
    {"auto_pad", "SAME_UPPER"}, {"auto_pad", "VALID"}, {"auto_pad", "SAME_LOWER"},
    {"auto_pad", "bogus"}, {"mode", "linear"}, {"mode", "reflect"}, {"mode", "cubic"},
    {"mode", "edge"}, {"coordinate_transformation_mode", "align_corners"},
    {"nearest_mode", "ceil"}, {"keep_aspect_ratio_policy", "not_smaller"},
};

static void add_random_attrs(Mb *b, Onnx__NodeProto *n)
{
    int count = (int)(next() % 5);
    for (int i = 0; i < count && n->n_attribute < 12; i++) {
        switch (next() % 5) {
        case 0:
            mb_attr_i(b, n, int_attrs[next() % (sizeof int_attrs / sizeof *int_attrs)], wild_int());
            break;
        case 1: {
            int64_t v[8];
            int cnt = (int)(next() % 9);
            for (int k = 0; k < cnt; k++)
                v[k] = next() % 3 ? (int64_t)(next() % 5) - 1 : wild_int();
            mb_attr_ints(b, n, ints_attrs[next() % (sizeof ints_attrs / sizeof *ints_attrs)], cnt, v);
            break;
        }
        case 2:
            mb_attr_f(b, n, float_attrs[next() % (sizeof float_attrs / sizeof *float_attrs)],
                      wild_float());
            break;
        case 3: {
            size_t k = next() % (sizeof str_attrs / sizeof *str_attrs);
            mb_attr_s(b, n, str_attrs[k][0], str_attrs[k][1]);
            break;
        }
        default: { /* an attribute of the wrong type */
            mb_attr_s(b, n, int_attrs[next() % (sizeof int_attrs / sizeof *int_attrs)], "x");
            break;
        }
        }
    }
}

/* A constant parameter input: int64 or float, random length and values. */
static void add_param(Mb *b, const char *name)
{
    int cnt = (int)(next() % 9);
    if (next() % 3 == 0) {
        float v[8];
        for (int k = 0; k < cnt; k++)
            v[k] = next() % 2 ? wild_float() : (float)(next() % 4);
        int64_t d = cnt;
        Onnx__TensorProto *t = mb_tensor(b, name, 1, next() % 4 ? 1 : 0, &d);
        if (t->n_dims == 0) {
            cnt = 1;
            v[0] = wild_float();
        }
        mb_raw(b, t, v, (size_t)cnt * 4);
        mb_init(b, t);
        return;
    }
    int64_t v[8];
    for (int k = 0; k < cnt; k++)
        v[k] = next() % 3 ? (int64_t)(next() % 6) - 1 : wild_int();
    mb_init_i64(b, name, cnt, v);
}

static void one_case(IrOp op)
{
    Mb *b = mb_new(6 + (int64_t)(next() % 17)); /* opsets 6..22 */
    int rank = (int)(next() % 6);
    int64_t dims[5];
    for (int k = 0; k < rank; k++)
        dims[k] = (int64_t)(next() % 4) + (next() % 8 == 0 ? 0 : 1);
    mb_input(b, "x", 1, rank, dims);
    float w[4 * 4 * 3 * 3] = {0};
    int wr = (int)(next() % 5);
    int64_t wd[4] = {(int64_t)(next() % 4) + 1, (int64_t)(next() % 4) + 1, (int64_t)(next() % 3) + 1,
                     (int64_t)(next() % 3) + 1};
    mb_init_f(b, "w", wr, wd, w);
    int n_in = (int)(next() % 6);
    char ins[128] = "x";
    for (int i = 1; i < n_in; i++) {
        char nm[16];
        int kind = (int)(next() % 4);
        if (kind == 0) {
            strcat(ins, ",w");
            continue;
        }
        if (kind == 1) {
            strcat(ins, ",");
            continue;
        }
        snprintf(nm, sizeof nm, "p%d", i);
        add_param(b, nm);
        strcat(ins, ",");
        strcat(ins, nm);
    }
    const char *outs = next() % 4 ? "y" : "y,y2,y3";
    Onnx__NodeProto *n = mb_node(b, ir_op_name(op), "fuzz", ins, outs);
    add_random_attrs(b, n);
    if (op == IR_OP_CONSTANT && next() % 2) {
        n->n_input = 0;
        mb_attr_ints(b, n, "value_ints", 2, D(1, 2));
    }
    mb_output(b, "y", 1, -1, NULL);
    IrDiag d;
    IrGraph *g = mb_load(b, NULL, &d);
    CHECK_MSG(g != NULL || d.n_errors > 0, "%s: NULL without an error", ir_op_name(op));
    if (g) {
        IrDiag vd;
        diag_init(&vd);
        CHECK_MSG(ir_verify(g, &vd) == 0, "%s: loaded graph fails ir_verify", ir_op_name(op));
        if (vd.n_errors)
            diag_print(&vd, stderr);
        diag_free(&vd);
    }
    ir_graph_free(g);
    diag_free(&d);
    mb_free(b);
}

int main(void)
{
    int rounds = 40;
    for (int r = 0; r < rounds; r++)
        for (int op = 0; op < IR_OP_COUNT; op++)
            one_case((IrOp)op);
    printf("%d hostile models loaded without a crash\n", rounds * IR_OP_COUNT);
    return check_done();
}
