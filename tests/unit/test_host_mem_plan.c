/* test_host_mem_plan.c - the static memory plan of generated host code
 * (codegen/mem_plan.c): lifetimes, reuse, aliases of views, in-place layers,
 * scratch, and the invariant that no two live buffers overlap, on chains,
 * diamonds and random DAGs. */
#include "check.h"
#include "codegen/mem_plan.h"

#include <stdlib.h>

/* A float tensor of n elements ([1, n]). */
static int act(IrGraph *g, const char *name, int64_t n)
{
    int64_t d[2] = {1, n};
    return ir_tensor_add(g, name, IR_DT_FLOAT, 2, d);
}

static int input(IrGraph *g, const char *name, int64_t n)
{
    int t = act(g, name, n);
    g->tensors[t].kind = IR_T_INPUT;
    g->inputs[g->n_inputs++] = t;
    return t;
}

static void output(IrGraph *g, int t)
{
    g->tensors[t].is_output = true;
    g->outputs[g->n_outputs++] = t;
}

static int layer(IrGraph *g, IrOp op, int a, int b, int y)
{
    int l = ir_layer_add(g, op, NULL);
    IrLayer *L = &g->layers[l];
    L->in[L->n_in++] = a;
    if (b >= 0)
        L->in[L->n_in++] = b;
    L->out[L->n_out++] = y;
    g->tensors[y].producer = l;
    return l;
}

static const CgBuffer *buf(const CgMemPlan *p, int t)
{
    return cg_mem_buffer(p, t);
}

/* x -> relu a -> relu b -> relu c (output); 1 KB each. */
static void test_chain(void)
{
    IrGraph *g = ir_graph_new("chain");
    int x = input(g, "x", 256), a = act(g, "a", 256), b = act(g, "b", 256), c = act(g, "c", 256);
    layer(g, IR_OP_RELU, x, -1, a);
    layer(g, IR_OP_RELU, a, -1, b);
    layer(g, IR_OP_RELU, b, -1, c);
    output(g, c);
    IrDiag d;
    diag_init(&d);
    CgMemPlan p;
    CHECK_EQ_INT(cg_mem_plan(g, NULL, &p, &d), 0);
    CHECK_EQ_INT(cg_mem_plan_check(&p), 0);
    CHECK_EQ_INT(buf(&p, x)->store, CG_STORE_INPUT);
    CHECK_EQ_INT(buf(&p, a)->store, CG_STORE_ARENA);
    CHECK_EQ_INT(buf(&p, a)->first, 0);
    CHECK_EQ_INT(buf(&p, a)->last, 1);
    CHECK_EQ_INT(buf(&p, c)->last, 3);            /* outputs live to the end */
    CHECK_EQ_INT(p.arena_bytes, 2048);            /* two live at once, a and c share */
    CHECK_EQ_INT(p.live_bytes, 2048);
    CHECK_EQ_INT(buf(&p, a)->offset, buf(&p, c)->offset);
    CHECK(buf(&p, a)->offset != buf(&p, b)->offset);
    CHECK_EQ_INT(p.n_inplace, 0);
    cg_mem_plan_free(&p);

    /* the same chain run in place: one buffer for a, b and c */
    int inplace[3] = {0, 0, 0};
    CgMemRequest req = {NULL, inplace};
    CHECK_EQ_INT(cg_mem_plan(g, &req, &p, &d), 0);
    CHECK_EQ_INT(cg_mem_plan_check(&p), 0);
    CHECK_EQ_INT(p.n_inplace, 2);                 /* never over the caller's input x */
    CHECK_EQ_INT(p.arena_bytes, 1024);
    CHECK(buf(&p, a) == buf(&p, b) && buf(&p, b) == buf(&p, c));
    cg_mem_plan_free(&p);
    CHECK_EQ_INT(d.n_errors, 0);
    diag_free(&d);
    ir_graph_free(g);
}

/* x -> a, x -> b, c = a + b: all three meet at the Add. */
static void test_diamond(void)
{
    IrGraph *g = ir_graph_new("diamond");
    int x = input(g, "x", 256), a = act(g, "a", 256), b = act(g, "b", 512), c = act(g, "c", 256);
    int e = act(g, "e", 256);
    layer(g, IR_OP_RELU, x, -1, a);
    layer(g, IR_OP_SIGMOID, x, -1, b);
    layer(g, IR_OP_ADD, a, b, c);
    layer(g, IR_OP_RELU, c, -1, e);
    output(g, e);
    IrDiag d;
    diag_init(&d);
    CgMemPlan p;
    CHECK_EQ_INT(cg_mem_plan(g, NULL, &p, &d), 0);
    CHECK_EQ_INT(cg_mem_plan_check(&p), 0);
    CHECK_EQ_INT(p.live_bytes, 1024 + 2048 + 1024);   /* a, b, c at step 2 */
    CHECK_EQ_INT(p.arena_bytes, 4096);
    /* e reuses memory of a or b, which are dead by step 3 */
    CHECK(buf(&p, e)->offset + buf(&p, e)->size <= p.arena_bytes);
    CHECK(buf(&p, e)->offset != buf(&p, c)->offset);
    cg_mem_plan_free(&p);

    /* in place on the Add: c may take a's buffer (same size, dies there),
     * but not b's (bigger) */
    int inplace[4] = {-1, -1, 0, 0};
    CgMemRequest req = {NULL, inplace};
    CHECK_EQ_INT(cg_mem_plan(g, &req, &p, &d), 0);
    CHECK_EQ_INT(cg_mem_plan_check(&p), 0);
    CHECK(buf(&p, c) == buf(&p, a));
    CHECK(buf(&p, e) == buf(&p, c));
    CHECK_EQ_INT(p.arena_bytes, 3072);
    cg_mem_plan_free(&p);
    diag_free(&d);
    ir_graph_free(g);
}

/* A view aliases its input; the input then lives as long as the view. */
static void test_views(void)
{
    IrGraph *g = ir_graph_new("views");
    int x = input(g, "x", 64), a = act(g, "a", 64), r = act(g, "r", 64), y = act(g, "y", 64);
    int z = act(g, "z", 64), xv = act(g, "xv", 64);
    layer(g, IR_OP_RELU, x, -1, a);
    layer(g, IR_OP_RESHAPE, a, -1, r);
    layer(g, IR_OP_RELU, x, -1, y);
    layer(g, IR_OP_ADD, r, y, z);
    layer(g, IR_OP_FLATTEN, x, -1, xv);   /* a view of the caller's input */
    output(g, z);
    output(g, xv);
    IrDiag d;
    diag_init(&d);
    CgMemPlan p;
    CHECK_EQ_INT(cg_mem_plan(g, NULL, &p, &d), 0);
    CHECK_EQ_INT(cg_mem_plan_check(&p), 0);
    CHECK(buf(&p, r) == buf(&p, a));
    CHECK_EQ_INT(buf(&p, a)->last, 3);
    CHECK_EQ_INT(buf(&p, xv)->store, CG_STORE_INPUT);
    CHECK_EQ_INT(p.n_alias, 2);
    CHECK(buf(&p, y)->offset != buf(&p, a)->offset);   /* both live at step 3 */
    /* an in-place request over the aliased input is refused while the view
     * still needs it: Add writes z; a/r die there, so it is allowed */
    cg_mem_plan_free(&p);
    int inplace[5] = {-1, -1, -1, 0, -1};
    CgMemRequest req = {NULL, inplace};
    CHECK_EQ_INT(cg_mem_plan(g, &req, &p, &d), 0);
    CHECK(buf(&p, z) == buf(&p, a));
    CHECK_EQ_INT(cg_mem_plan_check(&p), 0);
    cg_mem_plan_free(&p);
    diag_free(&d);
    ir_graph_free(g);
}

/* Scratch lives during its layer only, beside the layer's operands. */
static void test_scratch(void)
{
    IrGraph *g = ir_graph_new("scratch");
    int x = input(g, "x", 256), a = act(g, "a", 256), b = act(g, "b", 256), c = act(g, "c", 256);
    layer(g, IR_OP_RELU, x, -1, a);
    layer(g, IR_OP_RELU, a, -1, b);
    layer(g, IR_OP_RELU, b, -1, c);
    output(g, c);
    int64_t scratch[3] = {0, 100, 0};
    CgMemRequest req = {scratch, NULL};
    IrDiag d;
    diag_init(&d);
    CgMemPlan p;
    CHECK_EQ_INT(cg_mem_plan(g, &req, &p, &d), 0);
    CHECK_EQ_INT(cg_mem_plan_check(&p), 0);
    CHECK(p.scratch_buf[0] < 0 && p.scratch_buf[2] < 0);
    const CgBuffer *s = &p.bufs[p.scratch_buf[1]];
    CHECK_EQ_INT(s->size, 128);                   /* rounded to the alignment */
    CHECK_EQ_INT(s->first, 1);
    CHECK_EQ_INT(s->last, 1);
    CHECK_EQ_INT(p.arena_bytes, 2048 + 128);
    cg_mem_plan_free(&p);
    diag_free(&d);
    ir_graph_free(g);
}

static void test_unknown_shape(void)
{
    IrGraph *g = ir_graph_new("bad.onnx");
    int x = input(g, "x", 16);
    int y = ir_tensor_add(g, "y", IR_DT_FLOAT, -1, NULL);
    layer(g, IR_OP_RELU, x, -1, y);
    output(g, y);
    IrDiag d;
    diag_init(&d);
    CgMemPlan p;
    CHECK_EQ_INT(cg_mem_plan(g, NULL, &p, &d), -1);
    CHECK(diag_contains(&d, "no static shape"));
    diag_free(&d);
    ir_graph_free(g);
}

/* Random DAGs: the plan must always hold and never beat the lower bound. */
static void test_random(void)
{
    srand(12345);
    for (int round = 0; round < 200; round++) {
        IrGraph *g = ir_graph_new("random");
        int n = 3 + rand() % 40, t[64];
        t[0] = input(g, "x", 1 + rand() % 300);
        int inplace[64];
        int64_t scratch[64];
        for (int i = 1; i <= n; i++) {
            char name[16];
            snprintf(name, sizeof name, "t%d", i);
            int a = t[rand() % i], b = t[rand() % i];
            int64_t len = rand() % 4 ? g->tensors[a].dims[1] : 1 + rand() % 300;
            t[i] = act(g, name, len);
            IrOp op = rand() % 5 == 0 ? IR_OP_RESHAPE : rand() % 2 ? IR_OP_ADD : IR_OP_RELU;
            layer(g, op, a, op == IR_OP_ADD ? b : -1, t[i]);
            inplace[i - 1] = rand() % 2 ? 0 : -1;
            scratch[i - 1] = rand() % 3 == 0 ? rand() % 2000 : 0;
        }
        output(g, t[n]);
        if (rand() % 2)
            output(g, t[1 + rand() % n]);
        CgMemRequest req = {scratch, inplace};
        IrDiag d;
        diag_init(&d);
        CgMemPlan p;
        CHECK_EQ_INT(cg_mem_plan(g, &req, &p, &d), 0);
        CHECK_EQ_INT(cg_mem_plan_check(&p), 0);
        CHECK(p.arena_bytes >= p.live_bytes);
        cg_mem_plan_free(&p);
        diag_free(&d);
        ir_graph_free(g);
    }
}

int main(void)
{
    test_chain();
    test_diamond();
    test_views();
    test_scratch();
    test_unknown_shape();
    test_random();
    return check_done();
}
