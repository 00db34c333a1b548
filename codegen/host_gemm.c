/* host_gemm.c - Gemm and MatMul in the host C program (family gemm:
 * frontend/import_gemm.c, runtime/rt_gemm.c).
 *
 * Why MatMul goes through Gemm when it can: a MatMul by a constant 2-D
 * matrix (a fully connected layer exported without Gemm) is a Gemm over the
 * flattened leading dims of A, whose weight is packed once at init; only a
 * product of two activations needs the batched broadcasting kernel.
 */
#include "host_emit.h"

static int emit_gemm_call(CgHost *h, int l, O2hGemm *p, int a, int b, int c, int y)
{
    const IrLayer *L = &h->g->layers[l];
    const char *id = layer_id(h, l);
    cg_emit(h, h->decl,
            "static const O2hGemm %s = {.M = %d, .N = %d, .K = %d, .trans_a = %d, .trans_b = %d, "
            ".alpha = %s, .beta = %s, .c_rows = %d, .c_cols = %d%s};\n",
            id, p->M, p->N, p->K, p->trans_a, p->trans_b, cg_float(h, p->alpha), cg_float(h, p->beta),
            p->c_rows, p->c_cols, "");
    const char *B = cg_kernel_weight(h, "gemm", id, o2h_gemm_packed_size(p), o2h_gemm_scratch_size(p), b);
    CgPost post;
    const char *e = cg_kernel_epilogue(h, L, y, &post);
    return cg_host_call(h, l, &post, "    o2h_gemm_f32(&%s, %s, %s, %s, %s, %s, g_scratch);\n", id,
                        cg_ptr(h, a), B, c >= 0 ? cg_ptr(h, c) : "NULL", e, cg_ptr(h, y));
}

static int emit_gemm(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    const IrGemmAttr *ga = &L->attr.gemm;
    int a = in_at(L, 0), b = in_at(L, 1), c = in_at(L, 2), y = L->out[0];
    if (a < 0 || b < 0) {
        cg_host_reject(h, l, "missing operand");
        return -1;
    }
    if (CG_NEED_FLOAT(h, l, a, b, c, y) || cg_check_post_shapes(h, l, y))
        return -1;
    const IrTensor *A = TT(h, a), *B = TT(h, b), *Y = TT(h, y);
    if (A->rank != 2 || B->rank != 2 || Y->rank != 2) {
        cg_host_reject(h, l, "Gemm needs 2-D operands");
        return -1;
    }
    O2hGemm p = {0};
    int64_t M = Y->dims[0], N = Y->dims[1], K = ga->trans_a ? A->dims[0] : A->dims[1];
    int64_t cr = 0, cc = 0;
    if (c >= 0) {
        const IrTensor *C = TT(h, c);
        cr = C->rank == 2 ? C->dims[0] : 1;
        cc = C->rank >= 1 ? C->dims[C->rank - 1] : 1;
        if (C->rank > 2 || (cr != 1 && cr != M) || (cc != 1 && cc != N)) {
            cg_host_reject(h, l, "bias '%s' does not broadcast to %lldx%lld", C->name, (long long)M,
                           (long long)N);
            return -1;
        }
    }
    if (!fits_int(M) || !fits_int(N) || !fits_int(K) ||
        (ga->trans_a ? A->dims[1] : A->dims[0]) != M || (ga->trans_b ? B->dims[1] : B->dims[0]) != K ||
        (ga->trans_b ? B->dims[0] : B->dims[1]) != N) {
        cg_host_reject(h, l, "operand shapes do not agree");
        return -1;
    }
    p = (O2hGemm){(int)M, (int)N, (int)K, ga->trans_a, ga->trans_b, ga->alpha, ga->beta, (int)cr, (int)cc};
    return emit_gemm_call(h, l, &p, a, b, c, y);
}

/* MatMul: a constant 2-D B makes it a Gemm over the flattened leading dims
 * of A (weights packed once); otherwise the batched broadcasting kernel. */
static int emit_matmul(CgHost *h, int l)
{
    const IrLayer *L = &h->g->layers[l];
    int a = in_at(L, 0), b = in_at(L, 1), y = L->out[0];
    if (a < 0 || b < 0) {
        cg_host_reject(h, l, "missing operand");
        return -1;
    }
    if (CG_NEED_FLOAT(h, l, a, b, y) || cg_check_post_shapes(h, l, y))
        return -1;
    const IrTensor *A = TT(h, a), *B = TT(h, b), *Y = TT(h, y);
    if (A->rank < 1 || B->rank < 1 || A->rank > O2H_MAX_RANK || B->rank > O2H_MAX_RANK) {
        cg_host_reject(h, l, "MatMul of scalars");
        return -1;
    }
    int64_t K = A->dims[A->rank - 1];
    int64_t Kb = B->rank == 1 ? B->dims[0] : B->dims[B->rank - 2];
    if (K != Kb) {
        cg_host_reject(h, l, "inner dimensions differ (%lld vs %lld)", (long long)K, (long long)Kb);
        return -1;
    }
    if (B->rank == 2 && cg_is_const(h, b)) {
        int64_t N = B->dims[1], M = K ? numel(h, a) / K : 0;
        if (!fits_int(M) || !fits_int(N) || !fits_int(K) || M * N != numel(h, y)) {
            cg_host_reject(h, l, "operand shapes out of range");
            return -1;
        }
        O2hGemm p = {(int)M, (int)N, (int)K, 0, 0, 1.0f, 1.0f, 0, 0};
        return emit_gemm_call(h, l, &p, a, b, -1, y);
    }
    /* promote 1-D operands, pad ranks with leading ones */
    int ra = A->rank < 2 ? 2 : A->rank, rb = B->rank < 2 ? 2 : B->rank;
    int r = ra > rb ? ra : rb;
    int64_t ad[O2H_MAX_RANK], bd[O2H_MAX_RANK], yd[O2H_MAX_RANK];
    for (int i = 0; i < r; i++)
        ad[i] = bd[i] = 1;
    if (A->rank == 1)
        ad[r - 1] = K;
    else
        for (int i = 0; i < A->rank; i++)
            ad[r - A->rank + i] = A->dims[i];
    if (B->rank == 1)
        bd[r - 2] = K;
    else
        for (int i = 0; i < B->rank; i++)
            bd[r - B->rank + i] = B->dims[i];
    for (int i = 0; i < r - 2; i++) {
        if (ad[i] != bd[i] && ad[i] != 1 && bd[i] != 1) {
            cg_host_reject(h, l, "batch dimensions do not broadcast");
            return -1;
        }
        yd[i] = ad[i] > bd[i] ? ad[i] : bd[i];
    }
    yd[r - 2] = ad[r - 2];
    yd[r - 1] = bd[r - 1];
    if (prod(yd, 0, r) != numel(h, y) || Y->rank > r) {
        cg_host_reject(h, l, "output shape does not match the operands");
        return -1;
    }
    const char *id = layer_id(h, l);
    cg_emit(h, h->decl, "static const O2hMatMul %s = {%d, %s, %s, %s};\n", id, r, cg_i64_list(h, ad, r),
            cg_i64_list(h, bd, r), cg_i64_list(h, yd, r));
    return cg_host_call(h, l, NULL, "    o2h_matmul_f32(&%s, %s, %s, %s);\n", id, cg_ptr(h, a), cg_ptr(h, b),
                        cg_ptr(h, y));
}

int cg_host_gemm(CgHost *h, int l)
{
    return h->g->layers[l].op == IR_OP_MATMUL ? emit_matmul(h, l) : emit_gemm(h, l);
}
