/* fe_graph.c - GraphProto -> IrGraph: nodes in topological order through
 * their importers, between the boundary handled by fe_io.c (initializers,
 * inputs, outputs).
 *
 * Why one place: this is where names become indices and where the rules
 * that hold for every op live: an unsupported or broken node poisons its
 * outputs (so consumers are skipped rather than reported again) and import
 * goes on, so one run lists every problem; constant nodes are folded. */
#include "fe_internal.h"

#include <string.h>

/* The importer of each op, by its family in ops.def. */
static const FeImportFn importers[IR_OP_COUNT] = {
#define OP(id, name, family, flags, unit) [IR_OP_##id] = fe_import_##family,
#include "ir/ops.def"
#undef OP
};

int fe_poison(FeCtx *c, const char *name)
{
    if (!name || !*name || fe_map_get(&c->names, name) >= 0)
        return -1;
    int t = ir_tensor_add(c->g, name, IR_DT_UNDEF, 0, NULL);
    c->g->tensors[t].rank = -1;
    fe_map_put(&c->names, c->g->tensors[t].name, t);
    return t;
}

int fe_act_tensor(FeCtx *c, const char *name, IrDType dt, int rank, const int64_t *dims)
{
    int t = ir_tensor_add(c->g, name, dt, rank, dims);
    fe_map_put(&c->names, c->g->tensors[t].name, t);
    return t;
}

int fe_emit_layer(FeCtx *c, IrOp op, const char *name, const int *in, int n_in, const int *out,
                  int n_out, const IrAttr *attr)
{
    int l = ir_layer_add(c->g, op, name);
    IrLayer *L = &c->g->layers[l];
    L->n_in = n_in;
    L->n_out = n_out;
    for (int i = 0; i < n_in; i++)
        L->in[i] = in[i];
    for (int i = 0; i < n_out; i++) {
        L->out[i] = out[i];
        if (out[i] >= 0)
            c->g->tensors[out[i]].producer = l;
    }
    if (attr)
        L->attr = *attr;
    return l;
}

/* ---------------------------------------------------------- node order */

/* An input name that a node of the graph produces (not a graph input or
 * initializer): the producer's index, else -1. */
static int producer_of(FeCtx *c, const FeMap *prod, const char *name)
{
    if (!name[0] || fe_map_get(&c->names, name) >= 0)
        return -1;
    return fe_map_get(prod, name);
}

static bool in_file_order(FeCtx *c, const Onnx__GraphProto *gp, const FeMap *prod)
{
    for (size_t i = 0; i < gp->n_node; i++)
        for (size_t k = 0; k < gp->node[i]->n_input; k++)
            if (producer_of(c, prod, gp->node[i]->input[k]) >= (int)i)
                return false;
    return true;
}

static void report_cycle(FeCtx *c, const Onnx__GraphProto *gp, const char *placed_flag,
                         size_t n_left)
{
    char buf[512];
    size_t len = 0;
    int shown = 0;
    for (size_t i = 0; i < gp->n_node && shown < 8; i++) {
        if (placed_flag[i])
            continue;
        const Onnx__NodeProto *np = gp->node[i];
        int w = snprintf(buf + len, sizeof buf - len, "%s'%s' (%s)", shown ? ", " : "",
                         np->name && *np->name ? np->name : "?", np->op_type ? np->op_type : "?");
        if (w > 0 && (size_t)w < sizeof buf - len)
            len += (size_t)w;
        shown++;
    }
    fe_err(c, NULL, "the graph has a cycle: %zu nodes depend on their own outputs, among them %s",
           n_left, shown ? buf : "?");
}

/* Kahn's algorithm over producer -> consumer edges. Returns the count
 * placed in order[]; nodes on or behind a cycle are left out. */
static size_t kahn_sort(FeCtx *c, const Onnx__GraphProto *gp, const FeMap *prod, int *order,
                        char *placed)
{
    size_t nn = gp->n_node, n_placed = 0;
    int *indeg = ir_alloc(c->g, (nn + 1) * sizeof(int));
    /* consumers of each node, as (consumer) lists in CSR form */
    int *start = ir_alloc(c->g, (nn + 2) * sizeof(int));
    for (size_t i = 0; i < nn; i++)
        for (size_t k = 0; k < gp->node[i]->n_input; k++) {
            int p = producer_of(c, prod, gp->node[i]->input[k]);
            if (p >= 0) {
                indeg[i]++;
                start[p + 1]++;
            }
        }
    for (size_t i = 0; i < nn; i++)
        start[i + 1] += start[i];
    int *fill = ir_alloc(c->g, (nn + 1) * sizeof(int));
    int *cons = ir_alloc(c->g, ((size_t)start[nn] + 1) * sizeof(int));
    for (size_t i = 0; i < nn; i++)
        for (size_t k = 0; k < gp->node[i]->n_input; k++) {
            int p = producer_of(c, prod, gp->node[i]->input[k]);
            if (p >= 0)
                cons[start[p] + fill[p]++] = (int)i;
        }
    for (size_t i = 0; i < nn; i++)
        if (!indeg[i]) {
            order[n_placed++] = (int)i;
            placed[i] = 1;
        }
    for (size_t head = 0; head < n_placed; head++) {
        int p = order[head];
        for (int e = start[p]; e < start[p + 1]; e++)
            if (--indeg[cons[e]] == 0) {
                order[n_placed++] = cons[e];
                placed[cons[e]] = 1;
            }
    }
    return n_placed;
}

/* Indices of the nodes in an order where every value is produced before
 * use. ONNX requires the file order to be one; sort when it is not, and
 * report nodes caught in cycles. Returns the count placed in order[]. */
static size_t node_order(FeCtx *c, const Onnx__GraphProto *gp, int *order)
{
    size_t nn = gp->n_node;
    FeMap prod;
    fe_map_init(&prod, c->g, nn * 2);
    for (size_t i = nn; i-- > 0;) /* the first producer wins; duplicates are reported later */
        for (size_t o = 0; o < gp->node[i]->n_output; o++)
            if (gp->node[i]->output[o][0])
                fe_map_put(&prod, gp->node[i]->output[o], (int)i);
    if (in_file_order(c, gp, &prod)) {
        for (size_t i = 0; i < nn; i++)
            order[i] = (int)i;
        return nn;
    }
    char *placed = ir_alloc(c->g, nn + 1);
    size_t n_placed = kahn_sort(c, gp, &prod, order, placed);
    if (n_placed < nn)
        report_cycle(c, gp, placed, nn - n_placed);
    else
        fe_warn(c, NULL, "nodes are not in topological order (as ONNX requires); imported in sorted order");
    return n_placed;
}

/* --------------------------------------------------------------- nodes */

static bool default_domain(const char *d)
{
    return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

static void poison_outputs(FeCtx *c, const FeNode *n)
{
    for (int i = 0; i < n->n_out; i++)
        if (n->out_t[i] < 0)
            fe_poison(c, n->pb->output[i]);
}

/* Resolve input names. 1: all known; 0: some input is poisoned (skip
 * quietly); -1: an undefined name (reported). */
static int resolve_inputs(FeCtx *c, FeNode *n)
{
    int st = 1;
    for (int i = 0; i < n->n_in; i++) {
        const char *nm = n->pb->input[i];
        n->in[i] = -1;
        if (!nm[0])
            continue;
        int t = fe_map_get(&c->names, nm);
        if (t < 0) {
            fe_err(c, n, "input '%s' is not produced by any node, initializer or graph input", nm);
            st = -1;
            continue;
        }
        n->in[i] = t;
        if (c->g->tensors[t].rank < 0 && st > 0)
            st = 0;
    }
    return st;
}

static int check_outputs_unique(FeCtx *c, FeNode *n)
{
    for (int i = 0; i < n->n_out; i++) {
        const char *nm = n->pb->output[i];
        if (!nm[0])
            continue;
        if (fe_map_get(&c->names, nm) >= 0)
            return fe_err(c, n,
                          "output '%s' is already defined (by another node, an initializer or a graph input)",
                          nm);
        for (int k = 0; k < i; k++)
            if (strcmp(n->pb->output[k], nm) == 0)
                return fe_err(c, n, "output '%s' is listed twice", nm);
    }
    return 0;
}

/* Outputs still to be created must have a known, sane shape. */
static int check_out_shapes(FeCtx *c, FeNode *n)
{
    for (int i = 0; i < n->n_out; i++) {
        if (n->out_t[i] >= 0 || !n->pb->output[i][0])
            continue;
        if (ir_dtype_size(n->out[i].dtype) == 0)
            return fe_err(c, n, "output '%s': no data type inferred", n->pb->output[i]);
        if (fe_check_shape(c, n, n->pb->output[i], n->out[i].dtype, n->out[i].rank,
                           n->out[i].dims) < 0)
            return -1;
    }
    return 0;
}

static bool all_inputs_const(FeCtx *c, const FeNode *n)
{
    for (int i = 0; i < n->n_in; i++)
        if (n->in[i] >= 0 && !fe_is_const(c, n->in[i]))
            return false;
    return true;
}

static void make_layer(FeCtx *c, FeNode *n)
{
    int out[IR_MAX_IO], n_out = 0;
    for (int i = 0; i < n->n_out; i++) {
        out[i] = -1;
        const char *nm = n->pb->output[i];
        if (n->out_t[i] < 0 && nm[0]) { /* outputs bound by the importer are constants */
            IrTensor *o = &n->out[i];
            out[i] = fe_act_tensor(c, nm, o->dtype, o->rank, o->dims);
            c->g->tensors[out[i]].quant = o->quant;
        }
        if (out[i] >= 0)
            n_out = i + 1;
    }
    fe_emit_layer(c, n->op, n->name, n->in, n->n_keep, out, n_out, &n->attr);
}

static void bind_importer_outputs(FeCtx *c, FeNode *n)
{
    for (int i = 0; i < n->n_out; i++)
        if (n->out_t[i] >= 0 && n->pb->output[i][0] &&
            fe_map_get(&c->names, n->pb->output[i]) != n->out_t[i])
            fe_map_put(&c->names, n->pb->output[i], n->out_t[i]);
}

/* Run the importer, then fold or add the layer. */
static void convert_node(FeCtx *c, FeNode *n)
{
    int errors = c->d->n_errors;
    if (importers[n->op](c, n) < 0) {
        if (c->d->n_errors == errors) /* never fail silently */
            fe_err(c, n, "could not be imported");
        poison_outputs(c, n);
        return;
    }
    bind_importer_outputs(c, n);
    if (n->done)
        return;
    if (check_out_shapes(c, n) < 0) {
        poison_outputs(c, n);
        return;
    }
    bool pending = false;
    for (int i = 0; i < n->n_out; i++)
        pending |= n->out_t[i] < 0 && n->pb->output[i][0];
    if (!pending)
        return;
    if (!n->no_fold && all_inputs_const(c, n)) {
        int r = fe_fold(c, n);
        if (r != 0) {
            if (r < 0)
                poison_outputs(c, n);
            return;
        }
    }
    if (ir_op_flags(n->op) & IR_F_FOLD_ONLY) {
        fe_err(c, n, "could not be evaluated at compile time (its inputs are not all constant); "
               "this op is only supported as shape arithmetic");
        poison_outputs(c, n);
        return;
    }
    make_layer(c, n);
}

static void import_node(FeCtx *c, int idx, const Onnx__NodeProto *np)
{
    FeNode n;
    memset(&n, 0, sizeof n);
    n.pb = np;
    n.idx = idx;
    n.op_type = np->op_type ? np->op_type : "";
    n.name = np->name && *np->name ? np->name : ir_sprintf(c->g, "%s_%d", n.op_type, idx);
    n.opset = c->opset;
    n.op = ir_op_lookup(n.op_type);
    for (int i = 0; i < IR_MAX_IO; i++)
        n.out_t[i] = -1;
    if (np->n_input > IR_MAX_IO || np->n_output > IR_MAX_IO) {
        fe_err(c, &n, "has %zu inputs and %zu outputs; at most %d of each are supported",
               np->n_input, np->n_output, IR_MAX_IO);
        n.n_out = np->n_output > IR_MAX_IO ? IR_MAX_IO : (int)np->n_output;
        poison_outputs(c, &n);
        return;
    }
    n.n_in = (int)np->n_input;
    n.n_out = (int)np->n_output;
    n.n_keep = n.n_in;
    if (!default_domain(np->domain) || n.op == IR_OP_COUNT) {
        fe_err(c, &n, "unsupported operator '%s' (domain '%s', opset %lld)", n.op_type,
               default_domain(np->domain) ? "ai.onnx" : np->domain, (long long)c->opset);
        c->n_unsupported++;
        poison_outputs(c, &n);
        return;
    }
    bool named = false;
    for (int i = 0; i < n.n_out; i++)
        named |= np->output[i][0] != 0;
    if (!named && n.n_out > 0)
        return; /* every output omitted: nothing uses the node */
    if (check_outputs_unique(c, &n) < 0)
        return; /* the names stay bound to their first definition */
    int st = resolve_inputs(c, &n);
    if (st <= 0 || n.n_out == 0) {
        if (st > 0)
            fe_err(c, &n, "has no outputs");
        poison_outputs(c, &n);
        return;
    }
    convert_node(c, &n);
}

/* --------------------------------------------------------------- graph */

int fe_import_graph(FeCtx *c, const Onnx__GraphProto *gp)
{
    fe_map_init(&c->names, c->g, gp->n_initializer + gp->n_input + 2 * gp->n_node + 16);
    fe_import_initializers(c, gp);
    fe_index_node_raw(c, gp->n_node);
    fe_import_inputs(c, gp);
    int *order = ir_alloc(c->g, (gp->n_node + 1) * sizeof(int));
    size_t placed = node_order(c, gp, order);
    for (size_t i = 0; i < placed; i++)
        import_node(c, order[i], gp->node[order[i]]);
    fe_import_outputs(c, gp);
    if (c->n_unsupported)
        diag_add(c->d, DIAG_NOTE, c->path, NULL, NULL,
                 "%d node%s use%s operators onnx2hls does not support", c->n_unsupported,
                 c->n_unsupported == 1 ? "" : "s", c->n_unsupported == 1 ? "s" : "");
    fe_map_free(&c->names);
    return c->d->n_errors ? -1 : 0;
}
