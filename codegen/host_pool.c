/* host_pool.c - MaxPool, AveragePool and the global pools in the host C
 * program (family pool: frontend/import_pool.c, runtime/rt_pool.c).
 *
 * Why a descriptor like convolution's: windowed pools of 1-D and 2-D inputs
 * are one O2hPool2d (1-D as height 1), which the integer path prints too
 * (cg_emit_pool_desc); global pools are a plain reduction over H*W.
 */
#include "host_emit.h"

static int pool_desc(CgHost *h, int l, O2hPool2d *p)
{
    const IrLayer *L = &h->g->layers[l];
    const IrPoolAttr *a = &L->attr.pool;
    const IrTensor *X = TT(h, L->in[0]), *Y = TT(h, L->out[0]);
    int nsp = X->rank - 2;
    if (nsp == 3) {
        cg_host_reject(h, l, "3-D pooling is not supported (1-D and 2-D are)");
        return -1;
    }
    if (nsp < 1 || nsp > 2 || Y->rank != X->rank) {
        cg_host_reject(h, l, "pooling of a rank-%d input is not supported", X->rank);
        return -1;
    }
    int sp = nsp - 1;
    int64_t v[17] = {
        X->dims[0], X->dims[1], nsp == 2 ? X->dims[2] : 1, X->dims[1 + nsp],
        nsp == 2 ? Y->dims[2] : 1, Y->dims[1 + nsp],
        nsp == 2 ? a->kernel[0] : 1, a->kernel[sp],
        nsp == 2 ? a->stride[0] : 1, a->stride[sp],
        nsp == 2 ? a->dilation[0] : 1, a->dilation[sp],
        nsp == 2 ? a->pad_begin[0] : 0, a->pad_begin[sp],
        nsp == 2 ? a->pad_end[0] : 0, a->pad_end[sp],
        a->count_include_pad,
    };
    for (int i = 8; i <= 11; i++)
        if (v[i] <= 0)
            v[i] = 1;
    for (int i = 0; i < 17; i++)
        if (!fits_int(v[i]) || v[i] < 0 || (i >= 6 && i <= 7 && v[i] == 0)) {
            cg_host_reject(h, l, "pooling dimensions out of range");
            return -1;
        }
    *p = (O2hPool2d){(int)v[0], (int)v[1], (int)v[2], (int)v[3], (int)v[4], (int)v[5],
                     (int)v[6], (int)v[7], (int)v[8], (int)v[9], (int)v[10], (int)v[11],
                     (int)v[12], (int)v[13], (int)v[14], (int)v[15], (int)v[16]};
    return 0;
}

void cg_emit_pool_desc(CgHost *h, const char *name, const O2hPool2d *p)
{
    cg_emit(h, h->decl,
            "static const O2hPool2d %s = {.N = %d, .C = %d, .H = %d, .W = %d, .HO = %d, .WO = %d,\n"
            "    .KH = %d, .KW = %d, .SH = %d, .SW = %d, .DH = %d, .DW = %d, .PT = %d, .PL = %d, "
            ".PB = %d, .PR = %d, .count_include_pad = %d};\n",
            name, p->N, p->C, p->H, p->W, p->HO, p->WO, p->KH, p->KW, p->SH, p->SW, p->DH, p->DW, p->PT,
            p->PL, p->PB, p->PR, p->count_include_pad);
}

static int emit_global_pool(CgHost *h, int l, int x, int y)
{
    const IrLayer *L = &h->g->layers[l];
    const IrTensor *X = TT(h, x);
    if (X->rank < 2) {
        cg_host_reject(h, l, "global pooling of a rank-%d input", X->rank);
        return -1;
    }
    return cg_host_call(h, l, NULL, "    o2h_global_%spool_f32(%lld, %lld, %s, %s);\n",
                        L->op == IR_OP_GLOBAL_AVGPOOL ? "avg" : "max", (long long)(X->dims[0] * X->dims[1]),
                        (long long)prod(X->dims, 2, X->rank), cg_ptr(h, x), cg_ptr(h, y));
}

int cg_host_pool(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int x = in_at(L, 0), y = L->out[0];
    if (x < 0) {
        cg_host_reject(h, l, "missing input");
        return -1;
    }
    if (CG_NEED_FLOAT(h, l, x, y) || cg_extra_outputs_unused(h, l, 1, "indices") ||
        cg_check_post_shapes(h, l, y))
        return -1;
    if (L->op == IR_OP_GLOBAL_AVGPOOL || L->op == IR_OP_GLOBAL_MAXPOOL)
        return emit_global_pool(h, l, x, y);
    O2hPool2d p;
    if (pool_desc(h, l, &p))
        return -1;
    const char *id = layer_id(h, l);
    cg_emit_pool_desc(h, id, &p);
    return cg_host_call(h, l, NULL, "    o2h_%spool2d_f32(&%s, %s, %s);\n",
                        L->op == IR_OP_MAXPOOL ? "max" : "avg", id, cg_ptr(h, x), cg_ptr(h, y));
}
