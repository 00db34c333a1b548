/* host_conv.c - Conv and ConvTranspose in the host C program (family conv:
 * frontend/import_conv.c, runtime/rt_conv.c).
 *
 * Why the descriptor: the runtime takes every 1-D and 2-D convolution as one
 * O2hConv2d (a 1-D one is a 2-D one of height 1), so this file's job is to
 * check the IR's shapes against the attributes and print that struct; the
 * kernel's weight is repacked once at init into its pool slot
 * (cg_kernel_weight). 3-D convolutions are rejected here.
 */
#include "host_emit.h"

static int conv_desc(CgHost *h, int l, bool transpose, O2hConv2d *p)
{
    const IrLayer *L = &h->g->layers[l];
    const IrConvAttr *a = &L->attr.conv;
    const IrTensor *X = TT(h, L->in[0]), *W = TT(h, L->in[1]), *Y = TT(h, L->out[0]);
    int nsp = X->rank - 2;
    if (nsp == 3) {
        cg_host_reject(h, l, "3-D %s is not supported (1-D and 2-D are)",
                       transpose ? "transposed convolution" : "convolution");
        return -1;
    }
    if (nsp < 1 || nsp > 2 || W->rank != X->rank || Y->rank != X->rank) {
        cg_host_reject(h, l, "convolution of a rank-%d input is not supported", X->rank);
        return -1;
    }
    int64_t v[18];
    int sp = nsp - 1; /* index of the W axis in attr arrays */
    int64_t g = a->group > 0 ? a->group : 1;
    v[0] = X->dims[0], v[1] = X->dims[1];
    v[2] = nsp == 2 ? X->dims[2] : 1, v[3] = X->dims[1 + nsp];
    v[4] = Y->dims[1], v[5] = nsp == 2 ? Y->dims[2] : 1, v[6] = Y->dims[1 + nsp];
    v[7] = nsp == 2 ? W->dims[2] : 1, v[8] = W->dims[1 + nsp];
    v[9] = nsp == 2 ? a->stride[0] : 1, v[10] = a->stride[sp];
    v[11] = nsp == 2 ? a->dilation[0] : 1, v[12] = a->dilation[sp];
    v[13] = nsp == 2 ? a->pad_begin[0] : 0, v[14] = a->pad_begin[sp];
    v[15] = nsp == 2 ? a->pad_end[0] : 0, v[16] = a->pad_end[sp];
    v[17] = g;
    for (int i = 9; i <= 12; i++)
        if (v[i] <= 0)
            v[i] = 1;
    for (int i = 0; i < 18; i++)
        if (!fits_int(v[i]) || v[i] < 0) {
            cg_host_reject(h, l, "convolution dimensions out of range");
            return -1;
        }
    bool wshape = transpose ? W->dims[0] == v[1] && W->dims[1] * g == v[4]
                            : W->dims[0] == v[4] && W->dims[1] * g == v[1];
    if (!wshape || v[1] % g || v[4] % g) {
        cg_host_reject(h, l, "weight '%s' does not match the input/output channels and group %lld",
                       W->name, (long long)g);
        return -1;
    }
    *p = (O2hConv2d){(int)v[0], (int)v[1], (int)v[2], (int)v[3], (int)v[4], (int)v[5], (int)v[6],
                     (int)v[7], (int)v[8], (int)v[9], (int)v[10], (int)v[11], (int)v[12],
                     (int)v[13], (int)v[14], (int)v[15], (int)v[16], (int)v[17]};
    return 0;
}

void cg_emit_conv_desc(CgHost *h, const char *name, const O2hConv2d *p)
{
    cg_emit(h, h->decl,
            "static const O2hConv2d %s = {.N = %d, .C = %d, .H = %d, .W = %d, .F = %d, .HO = %d, "
            ".WO = %d,\n    .KH = %d, .KW = %d, .SH = %d, .SW = %d, .DH = %d, .DW = %d, "
            ".PT = %d, .PL = %d, .PB = %d, .PR = %d, .G = %d%s};\n",
            name, p->N, p->C, p->H, p->W, p->F, p->HO, p->WO, p->KH, p->KW, p->SH, p->SW, p->DH,
            p->DW, p->PT, p->PL, p->PB, p->PR, p->G, "");
}

static int emit_conv(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), w = in_at(L, 1), b = in_at(L, 2), y = L->out[0];
    if (x < 0 || w < 0) {
        cg_host_reject(h, l, "missing input or weight");
        return -1;
    }
    O2hConv2d p;
    if (CG_NEED_FLOAT(h, l, x, w, b, y) || conv_desc(h, l, false, &p) || cg_check_post_shapes(h, l, y))
        return -1;
    if (b >= 0 && numel(h, b) != p.F) {
        cg_host_reject(h, l, "bias '%s' has %lld values for %d channels", TT(h, b)->name,
                       (long long)numel(h, b), p.F);
        return -1;
    }
    const char *id = layer_id(h, l);
    cg_emit_conv_desc(h, id, &p);
    const char *W = cg_kernel_weight(h, "conv2d", id, o2h_conv2d_packed_size(&p),
                                     o2h_conv2d_scratch_size(&p), w);
    CgPost post;
    const char *e = cg_kernel_epilogue(h, L, y, &post);
    return cg_host_call(h, l, &post, "    o2h_conv2d_f32(&%s, %s, %s, %s, %s, %s, g_scratch);\n", id,
                        cg_ptr(h, x), W, b >= 0 ? cg_ptr(h, b) : "NULL", e, cg_ptr(h, y));
}

static int emit_conv_transpose(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), w = in_at(L, 1), b = in_at(L, 2), y = L->out[0];
    if (x < 0 || w < 0) {
        cg_host_reject(h, l, "missing input or weight");
        return -1;
    }
    O2hConv2d p;
    if (CG_NEED_FLOAT(h, l, x, w, b, y) || conv_desc(h, l, true, &p) || cg_check_post_shapes(h, l, y))
        return -1;
    const char *id = layer_id(h, l);
    cg_emit_conv_desc(h, id, &p);
    return cg_host_call(h, l, NULL, "    o2h_conv_transpose2d_f32(&%s, %s, %s, %s, %s);\n", id,
                        cg_ptr(h, x), cg_ptr(h, w), b >= 0 ? cg_ptr(h, b) : "NULL", cg_ptr(h, y));
}

int cg_host_conv(CgHost *h, int l)
{
    return h->g->layers[l].op == IR_OP_CONV_TRANSPOSE ? emit_conv_transpose(h, l) : emit_conv(h, l);
}
