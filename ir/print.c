/* print.c - the IR as a readable table (`inspect`, --dump-after) and as JSON
 * (`inspect --json`: the layer DAG for other tools).
 *
 * The JSON schema, one object per model:
 *   { "model", "ir_version", "opset", "producer",
 *     "inputs"/"outputs": [{"name","dtype","shape"}],
 *     "layers": [{"index","name","origin","op","kind","precision","bits",
 *                 "attributes":{...}, "input":[tensor...], "output":[tensor...],
 *                 "prev":[layer names], "next":[layer names],
 *                 "macs","params","weight_reuse","input_reuse",
 *                 "ifm_bytes","ofm_bytes","weight_bytes",
 *                 "act", "residual"}],
 *     "totals": {...} }
 * tensor = {"name","dtype","shape","const"}; shapes use -1 for unknown dims.
 * Bytes are at the layer's precision (IrLayer.bits). */
#include "ir.h"
#include "escape.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- helpers */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    esc_put(f, ESC_JSON, s);
    fputc('"', f);
}

static void json_dims(FILE *f, const int64_t *d, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%" PRId64, i ? "," : "", d[i]);
    fputc(']', f);
}

static void json_shape(FILE *f, const IrTensor *t)
{
    if (t->rank < 0)
        fputs("null", f);
    else
        json_dims(f, t->dims, t->rank);
}

static const char *shape_str(const IrTensor *t, char *buf, size_t n)
{
    if (t->rank < 0)
        return snprintf(buf, n, "?"), buf;
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < t->rank && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%" PRId64, i ? "x" : "", t->dims[i]);
    if (t->rank == 0)
        snprintf(buf, n, "scalar");
    return buf;
}

static const char *prec_name(IrPrecision p)
{
    switch (p) {
    case IR_PREC_FLOAT: return "float";
    case IR_PREC_INT8: return "int8";
    case IR_PREC_INT16: return "int16";
    case IR_PREC_DFXP: return "dfxp";
    }
    return "?";
}

static int64_t layer_bytes(const IrLayer *L, int64_t elems)
{
    int bits = L->bits > 0 ? L->bits : 32;
    return (elems * bits + 7) / 8;
}

/* first input that is not a constant: the layer's feature map */
static int main_input(const IrGraph *g, const IrLayer *L)
{
    for (int i = 0; i < L->n_in; i++)
        if (L->in[i] >= 0 && g->tensors[L->in[i]].kind != IR_T_CONST)
            return L->in[i];
    return L->n_in > 0 ? L->in[0] : -1;
}

/* ---------------------------------------------------------- attributes */

static void json_spatial(FILE *f, const char *key, const int64_t *v, int n, int *first)
{
    fprintf(f, "%s\"%s\":", *first ? "" : ",", key);
    json_dims(f, v, n);
    *first = 0;
}

static void json_attrs(FILE *f, const IrGraph *g, const IrLayer *L)
{
    int first = 1;
    fputc('{', f);
    switch (L->op) {
    case IR_OP_CONV: case IR_OP_CONV_TRANSPOSE: {
        const IrConvAttr *a = &L->attr.conv;
        json_spatial(f, "kernel", a->kernel, a->nsp, &first);
        json_spatial(f, "strides", a->stride, a->nsp, &first);
        json_spatial(f, "dilations", a->dilation, a->nsp, &first);
        json_spatial(f, "pads_begin", a->pad_begin, a->nsp, &first);
        json_spatial(f, "pads_end", a->pad_end, a->nsp, &first);
        if (L->op == IR_OP_CONV_TRANSPOSE)
            json_spatial(f, "output_padding", a->out_pad, a->nsp, &first);
        fprintf(f, ",\"group\":%" PRId64 ",\"class\":\"%s\"", a->group, ir_layer_kind_name(g, (int)(L - g->layers)));
        break;
    }
    case IR_OP_MAXPOOL: case IR_OP_AVGPOOL: {
        const IrPoolAttr *a = &L->attr.pool;
        json_spatial(f, "kernel", a->kernel, a->nsp, &first);
        json_spatial(f, "strides", a->stride, a->nsp, &first);
        json_spatial(f, "dilations", a->dilation, a->nsp, &first);
        json_spatial(f, "pads_begin", a->pad_begin, a->nsp, &first);
        json_spatial(f, "pads_end", a->pad_end, a->nsp, &first);
        fprintf(f, ",\"ceil_mode\":%d,\"count_include_pad\":%d", a->ceil_mode, a->count_include_pad);
        break;
    }
    case IR_OP_GEMM:
        fprintf(f, "\"transA\":%d,\"transB\":%d,\"alpha\":%g,\"beta\":%g", L->attr.gemm.trans_a,
                L->attr.gemm.trans_b, L->attr.gemm.alpha, L->attr.gemm.beta);
        break;
    case IR_OP_CONCAT: case IR_OP_SOFTMAX: case IR_OP_LOG_SOFTMAX: case IR_OP_FLATTEN:
    case IR_OP_GATHER: case IR_OP_QUANTIZE_LINEAR: case IR_OP_DEQUANTIZE_LINEAR:
        fprintf(f, "\"axis\":%" PRId64, L->attr.axis.axis);
        break;
    case IR_OP_SPLIT:
        fprintf(f, "\"axis\":%" PRId64 ",\"split\":", L->attr.axis.axis);
        json_dims(f, L->attr.axis.split, L->attr.axis.n_split);
        break;
    case IR_OP_TRANSPOSE:
        fputs("\"perm\":", f);
        json_dims(f, L->attr.axes.perm, L->attr.axes.n);
        break;
    case IR_OP_SQUEEZE: case IR_OP_UNSQUEEZE: case IR_OP_REDUCE_MEAN: case IR_OP_REDUCE_MAX:
    case IR_OP_REDUCE_SUM:
        fputs("\"axes\":", f);
        json_dims(f, L->attr.axes.perm, L->attr.axes.n);
        fprintf(f, ",\"keepdims\":%d", L->attr.axes.keepdims);
        break;
    case IR_OP_SLICE: {
        const IrSliceAttr *a = &L->attr.slice;
        json_spatial(f, "axes", a->axes, a->n, &first);
        json_spatial(f, "starts", a->starts, a->n, &first);
        json_spatial(f, "ends", a->ends, a->n, &first);
        json_spatial(f, "steps", a->steps, a->n, &first);
        break;
    }
    case IR_OP_PAD: {
        int r = main_input(g, L) >= 0 ? g->tensors[main_input(g, L)].rank : 0;
        static const char *modes[] = {"constant", "reflect", "edge"};
        fprintf(f, "\"mode\":\"%s\",\"value\":%g", modes[L->attr.pad.mode], L->attr.pad.value);
        first = 0;
        json_spatial(f, "pads_begin", L->attr.pad.begin, r < 0 ? 0 : r, &first);
        json_spatial(f, "pads_end", L->attr.pad.end, r < 0 ? 0 : r, &first);
        break;
    }
    case IR_OP_RESIZE: case IR_OP_UPSAMPLE: {
        static const char *modes[] = {"nearest", "linear", "cubic"};
        fprintf(f, "\"mode\":\"%s\",\"coordinate_transformation_mode\":%d,\"nearest_mode\":%d",
                modes[L->attr.resize.mode], L->attr.resize.coord, L->attr.resize.nearest);
        break;
    }
    case IR_OP_BATCHNORM:
        fprintf(f, "\"epsilon\":%g", L->attr.norm.epsilon);
        break;
    case IR_OP_CAST:
        fprintf(f, "\"to\":\"%s\"", ir_dtype_name(L->attr.cast.to));
        break;
    case IR_OP_CLIP: case IR_OP_LEAKY_RELU: case IR_OP_HARD_SIGMOID: case IR_OP_ELU:
        fprintf(f, "\"alpha\":%g,\"beta\":%g", L->attr.act.alpha, L->attr.act.beta);
        break;
    default:
        break;
    }
    fputc('}', f);
}

/* ---------------------------------------------------------------- JSON */

static void json_tensor(FILE *f, const IrGraph *g, int t)
{
    if (t < 0) {
        fputs("null", f);
        return;
    }
    const IrTensor *T = &g->tensors[t];
    fputs("{\"name\":", f);
    json_str(f, T->name);
    fprintf(f, ",\"dtype\":\"%s\",\"shape\":", ir_dtype_name(T->dtype));
    json_shape(f, T);
    fprintf(f, ",\"const\":%s}", T->kind == IR_T_CONST ? "true" : "false");
}

static int uses_tensor(const IrLayer *L, int t)
{
    for (int i = 0; i < L->n_in; i++)
        if (L->in[i] == t)
            return 1;
    return L->residual == t || L->act_slope == t;
}

/* names of live layers consuming any output of layer l */
static void json_next(FILE *f, const IrGraph *g, int l)
{
    const IrLayer *L = &g->layers[l];
    int first = 1;
    fputc('[', f);
    for (int m = l + 1; m < g->n_layers; m++) {
        if (g->layers[m].dead)
            continue;
        for (int o = 0; o < L->n_out; o++)
            if (L->out[o] >= 0 && uses_tensor(&g->layers[m], L->out[o])) {
                fputs(first ? "" : ",", f);
                json_str(f, g->layers[m].name);
                first = 0;
                break;
            }
    }
    fputc(']', f);
}

static void json_prev(FILE *f, const IrGraph *g, const IrLayer *L)
{
    int first = 1;
    fputc('[', f);
    int refs[IR_MAX_IO + 2], n = 0;
    for (int i = 0; i < L->n_in; i++)
        refs[n++] = L->in[i];
    refs[n++] = L->residual;
    refs[n++] = L->act_slope;
    for (int i = 0; i < n; i++) {
        if (refs[i] < 0 || g->tensors[refs[i]].producer < 0)
            continue;
        fputs(first ? "" : ",", f);
        json_str(f, g->layers[g->tensors[refs[i]].producer].name);
        first = 0;
    }
    fputc(']', f);
}

typedef struct {
    int layers, conv, conv_std, conv_dw, conv_pw, conv_grp, deconv, fc, bn, pool, act, eltwise, layout, other;
    int64_t macs, params;
} Totals;

static void count_layer(const IrGraph *g, int l, Totals *t)
{
    IrLayerStats st;
    ir_layer_stats(g, l, &st);
    t->layers++;
    t->macs += st.macs;
    t->params += st.params;
    const char *k = ir_layer_kind_name(g, l);
    if (!strcmp(k, "conv")) t->conv++, t->conv_std++;
    else if (!strcmp(k, "dwconv")) t->conv++, t->conv_dw++;
    else if (!strcmp(k, "pwconv")) t->conv++, t->conv_pw++;
    else if (!strcmp(k, "gconv")) t->conv++, t->conv_grp++;
    else if (!strcmp(k, "deconv")) t->deconv++;
    else if (!strcmp(k, "fc")) t->fc++;
    else if (!strcmp(k, "bn")) t->bn++;
    else if (!strcmp(k, "pool") || !strcmp(k, "gpool")) t->pool++;
    else if (!strcmp(k, "act")) t->act++;
    else if (!strcmp(k, "eltwise")) t->eltwise++;
    else if (!strcmp(k, "layout")) t->layout++;
    else t->other++;
}

static void totals(const IrGraph *g, Totals *t)
{
    memset(t, 0, sizeof *t);
    for (int l = 0; l < g->n_layers; l++)
        if (!g->layers[l].dead)
            count_layer(g, l, t);
}

static void json_io(FILE *f, const IrGraph *g, const int *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        const IrTensor *T = &g->tensors[v[i]];
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        json_str(f, T->name);
        fprintf(f, ",\"dtype\":\"%s\",\"shape\":", ir_dtype_name(T->dtype));
        json_shape(f, T);
        fputc('}', f);
    }
    fputc(']', f);
}

static void json_layer(FILE *f, const IrGraph *g, int l)
{
    const IrLayer *L = &g->layers[l];
    IrLayerStats st;
    ir_layer_stats(g, l, &st);
    fprintf(f, "{\"index\":%d,\"name\":", l);
    json_str(f, L->name);
    fputs(",\"origin\":", f);
    json_str(f, L->origin);
    fprintf(f, ",\"op\":\"%s\",\"kind\":\"%s\",\"precision\":\"%s\",\"bits\":%d,\"attributes\":",
            ir_op_name(L->op), ir_layer_kind_name(g, l), prec_name(L->prec), L->bits);
    json_attrs(f, g, L);
    fputs(",\"input\":[", f);
    for (int i = 0; i < L->n_in; i++) {
        fputs(i ? "," : "", f);
        json_tensor(f, g, L->in[i]);
    }
    fputs("],\"output\":[", f);
    for (int i = 0; i < L->n_out; i++) {
        fputs(i ? "," : "", f);
        json_tensor(f, g, L->out[i]);
    }
    fputs("],\"prev\":", f);
    json_prev(f, g, L);
    fputs(",\"next\":", f);
    json_next(f, g, l);
    fprintf(f, ",\"macs\":%" PRId64 ",\"params\":%" PRId64 ",\"weight_reuse\":%" PRId64
               ",\"input_reuse\":%" PRId64 ",\"ifm_bytes\":%" PRId64 ",\"ofm_bytes\":%" PRId64
               ",\"weight_bytes\":%" PRId64 ",\"act\":{\"kind\":\"%s\",\"alpha\":%g,\"beta\":%g},\"residual\":",
            st.macs, st.params, st.weight_reuse, st.input_reuse, layer_bytes(L, st.ifm_elems),
            layer_bytes(L, st.ofm_elems), layer_bytes(L, st.weight_elems), ir_act_name(L->act.kind),
            L->act.alpha, L->act.beta);
    if (L->residual >= 0)
        json_str(f, g->tensors[L->residual].name);
    else
        fputs("null", f);
    fputc('}', f);
}

void ir_print_json(const IrGraph *g, FILE *f)
{
    fputs("{\"model\":", f);
    json_str(f, g->path);
    fprintf(f, ",\"ir_version\":%" PRId64 ",\"opset\":%" PRId64 ",\"producer\":", g->ir_version, g->opset);
    json_str(f, g->producer);
    fputs(",\"inputs\":", f);
    json_io(f, g, g->inputs, g->n_inputs);
    fputs(",\"outputs\":", f);
    json_io(f, g, g->outputs, g->n_outputs);
    fputs(",\"layers\":[\n", f);
    int first = 1;
    for (int l = 0; l < g->n_layers; l++) {
        if (g->layers[l].dead)
            continue;
        fputs(first ? "" : ",\n", f);
        json_layer(f, g, l);
        first = 0;
    }
    Totals t;
    totals(g, &t);
    fprintf(f, "\n],\"totals\":{\"layers\":%d,\"conv\":%d,\"conv_standard\":%d,\"conv_depthwise\":%d,"
               "\"conv_pointwise\":%d,\"conv_grouped\":%d,\"deconv\":%d,\"fc\":%d,\"batchnorm\":%d,"
               "\"pool\":%d,\"activation\":%d,\"eltwise\":%d,\"layout\":%d,\"other\":%d,"
               "\"macs\":%" PRId64 ",\"params\":%" PRId64 "}}\n",
            t.layers, t.conv, t.conv_std, t.conv_dw, t.conv_pw, t.conv_grp, t.deconv, t.fc, t.bn,
            t.pool, t.act, t.eltwise, t.layout, t.other, t.macs, t.params);
}

/* ---------------------------------------------------------------- text */

static void text_geometry(const IrLayer *L, char *buf, size_t n)
{
    buf[0] = 0;
    if (L->op == IR_OP_CONV || L->op == IR_OP_CONV_TRANSPOSE) {
        const IrConvAttr *a = &L->attr.conv;
        snprintf(buf, n, "k%" PRId64 "x%" PRId64 " s%" PRId64 "%s", a->kernel[0],
                 a->nsp > 1 ? a->kernel[1] : 1, a->stride[0], a->group > 1 ? " g" : "");
        if (a->group > 1)
            snprintf(buf + strlen(buf), n - strlen(buf), "%" PRId64, a->group);
    } else if (L->op == IR_OP_MAXPOOL || L->op == IR_OP_AVGPOOL) {
        const IrPoolAttr *a = &L->attr.pool;
        snprintf(buf, n, "k%" PRId64 "x%" PRId64 " s%" PRId64, a->kernel[0], a->nsp > 1 ? a->kernel[1] : 1,
                 a->stride[0]);
    }
}

static void human(int64_t v, char *buf, size_t n)
{
    if (v >= 10000000000LL)
        snprintf(buf, n, "%.1fG", (double)v / 1e9);
    else if (v >= 10000000)
        snprintf(buf, n, "%.1fM", (double)v / 1e6);
    else if (v >= 100000)
        snprintf(buf, n, "%.1fk", (double)v / 1e3);
    else
        snprintf(buf, n, "%" PRId64, v);
}

void ir_print_text(const IrGraph *g, FILE *f)
{
    char *path = esc_str(ESC_TERM, g->path), *prod = esc_str(ESC_TERM, g->producer ? g->producer : "?");
    fprintf(f, "model %s  (ir_version %" PRId64 ", opset %" PRId64 ", producer %s)\n", path, g->ir_version,
            g->opset, prod);
    free(path), free(prod);
    char s1[96], s2[96], s3[48], s4[24], s5[24], s6[24], s7[24], s8[24], s9[24], nb[160];
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < (k ? g->n_outputs : g->n_inputs); i++) {
            const IrTensor *T = &g->tensors[k ? g->outputs[i] : g->inputs[i]];
            fprintf(f, "%s ", k ? "output" : "input ");
            esc_put(f, ESC_TERM, T->name);
            fprintf(f, " %s [%s]\n", ir_dtype_name(T->dtype), shape_str(T, s1, sizeof s1));
        }
    fprintf(f, "\n%4s  %-28s %-18s %-7s %-16s %-16s %-12s %8s %8s %7s %8s %8s %8s\n", "#", "layer", "op",
            "kind", "input", "output", "geometry", "params", "MACs", "w-reuse", "IFM B", "OFM B", "W B");
    for (int l = 0; l < g->n_layers; l++) {
        const IrLayer *L = &g->layers[l];
        if (L->dead)
            continue;
        IrLayerStats st;
        ir_layer_stats(g, l, &st);
        int x = main_input(g, L);
        char opbuf[64];
        snprintf(opbuf, sizeof opbuf, "%s%s%s%s", ir_op_name(L->op), L->residual >= 0 ? "+add" : "",
                 L->act.kind ? "+" : "", L->act.kind ? ir_act_name(L->act.kind) : "");
        text_geometry(L, s3, sizeof s3);
        human(st.params, s4, sizeof s4);
        human(st.macs, s5, sizeof s5);
        human(st.weight_reuse, s6, sizeof s6);
        human(layer_bytes(L, st.ifm_elems), s7, sizeof s7);
        human(layer_bytes(L, st.ofm_elems), s8, sizeof s8);
        human(layer_bytes(L, st.weight_elems), s9, sizeof s9);
        fprintf(f, "%4d  %-28s %-18s %-7s %-16s %-16s %-12s %8s %8s %7s %8s %8s %8s\n", l,
                esc_term_fit(nb, sizeof nb, L->name, 28, 1), opbuf, ir_layer_kind_name(g, l),
                x >= 0 ? shape_str(&g->tensors[x], s1, sizeof s1) : "-",
                L->n_out > 0 && L->out[0] >= 0 ? shape_str(&g->tensors[L->out[0]], s2, sizeof s2) : "-", s3,
                s4, s5, s6, s7, s8, s9);
    }
    Totals t;
    totals(g, &t);
    fprintf(f, "\nlayers %d: conv %d (standard %d, depthwise %d, pointwise %d, grouped %d), fc %d",
            t.layers, t.conv, t.conv_std, t.conv_dw, t.conv_pw, t.conv_grp, t.fc);
    if (t.deconv) fprintf(f, ", deconv %d", t.deconv);
    if (t.bn) fprintf(f, ", batchnorm %d", t.bn);
    if (t.pool) fprintf(f, ", pool %d", t.pool);
    if (t.act) fprintf(f, ", activation %d", t.act);
    if (t.eltwise) fprintf(f, ", eltwise %d", t.eltwise);
    if (t.layout) fprintf(f, ", layout %d", t.layout);
    if (t.other) fprintf(f, ", other %d", t.other);
    fprintf(f, "\nMACs %" PRId64 "  params %" PRId64 "\n", t.macs, t.params);
}
