/* test_rt_gemm.c - Gemm (every transA/transB, alpha/beta, C broadcast shape,
 * fused epilogue, M = 1 and ragged tiles, K across several blocks) and
 * batched MatMul with broadcasting, against reference loops in double. */
#include "test_rt_util.h"

static void ref_gemm(const O2hGemm *p, const float *a, const float *b, const float *c,
                     const O2hEpilogue *e, double *y)
{
    for (int i = 0; i < p->M; i++)
        for (int j = 0; j < p->N; j++) {
            double s = 0.0;
            for (int k = 0; k < p->K; k++) {
                double av = p->trans_a ? a[(size_t)k * p->M + i] : a[(size_t)i * p->K + k];
                double bv = p->trans_b ? b[(size_t)j * p->K + k] : b[(size_t)k * p->N + j];
                s += av * bv;
            }
            s *= p->alpha;
            if (c && p->c_rows > 0)
                s += p->beta * c[(size_t)(p->c_rows == 1 ? 0 : i) * p->c_cols +
                                 (p->c_cols == 1 ? 0 : j)];
            if (e && e->residual)
                s += e->residual[(size_t)i * p->N + j];
            if (e) {
                double sl = e->slope ? e->slope[e->n_slope > 1 ? j : 0] : 0.0;
                s = rt_ref_act(e->act, e->alpha, e->beta, sl, s);
            }
            y[(size_t)i * p->N + j] = s;
        }
}

static void run_gemm(int M, int N, int K, int ta, int tb, float alpha, float beta, int cr,
                     int cc, int act, int res)
{
    O2hGemm p = {M, N, K, ta, tb, alpha, beta, cr, cc};
    size_t ny = (size_t)M * N;
    float *a = rt_random((size_t)M * K), *b = rt_random((size_t)K * N);
    float *c = cr ? rt_random((size_t)cr * cc) : NULL;
    float *r = rt_random(ny), *sl = rt_random((size_t)N), *y = rt_alloc(ny);
    float *bp = rt_alloc(o2h_gemm_packed_size(&p));
    float *scr = rt_alloc(o2h_gemm_scratch_size(&p));
    double *ref = (double *)malloc(ny * sizeof(double));
    O2hEpilogue e = {(O2hActKind)act, 0.1f, 0.2f, sl, N, res ? r : NULL};
    if (act == O2H_ACT_CLIP) {
        e.alpha = -0.3f;
        e.beta = 0.4f;
    }
    o2h_gemm_pack_b(&p, b, bp);
    o2h_gemm_f32(&p, a, bp, c, &e, y, scr);
    ref_gemm(&p, a, b, c, &e, ref);
    char what[200];
    snprintf(what, sizeof what, "gemm M=%d N=%d K=%d ta=%d tb=%d al=%g be=%g c=%dx%d act=%d res=%d",
             M, N, K, ta, tb, alpha, beta, cr, cc, act, res);
    rt_compare(what, y, ref, ny, 2e-5);
    free(a); free(b); free(c); free(r); free(sl); free(y); free(bp); free(scr); free(ref);
}

static void test_gemm(void)
{
    /* M = 1: groups of panels summed side by side, a ragged last panel in
     * a group (61 and 190 columns: four panels at 16 and 48 wide) or alone */
    int sizes[][3] = {{1, 1000, 300}, {1, 10, 7}, {1, 1000, 1281}, {1, 33, 1}, {1, 61, 600},
                      {1, 190, 520}, {5, 17, 9}, {8, 48, 128}, {13, 50, 129},
                      {2, 3, 1}, {33, 97, 260}, {16, 16, 16}, {9, 1, 5}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int M = sizes[s][0], N = sizes[s][1], K = sizes[s][2];
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                run_gemm(M, N, K, ta, tb, 1.0f, 1.0f, 0, 0, O2H_ACT_NONE, 0);
                run_gemm(M, N, K, ta, tb, 1.0f, 1.0f, 1, N, O2H_ACT_RELU, 0);
            }
        run_gemm(M, N, K, 0, 1, 0.5f, 2.0f, 1, N, O2H_ACT_NONE, 0);
        run_gemm(M, N, K, 0, 1, 1.0f, 1.0f, M, N, O2H_ACT_NONE, 0);
        run_gemm(M, N, K, 0, 1, 1.0f, 1.0f, M, N, O2H_ACT_RELU, 1);
        run_gemm(M, N, K, 0, 1, 1.0f, 1.0f, M, 1, O2H_ACT_CLIP, 0);
        run_gemm(M, N, K, 0, 1, 1.0f, 0.7f, M, 1, O2H_ACT_NONE, 1);
        run_gemm(M, N, K, 1, 0, 1.0f, 1.0f, 1, 1, O2H_ACT_SIGMOID, 0);
        run_gemm(M, N, K, 0, 0, 1.5f, 0.0f, 1, N, O2H_ACT_PRELU, 1);
        run_gemm(M, N, K, 0, 1, 1.0f, 1.0f, 1, N, O2H_ACT_PRELU, 0);
        run_gemm(M, N, K, 0, 0, -2.0f, 1.0f, 1, N, O2H_ACT_SILU, 0);
        run_gemm(M, N, K, 0, 1, 1.0f, 1.0f, 1, N, O2H_ACT_MISH, 1);  /* applied after the tile store */
    }
    /* K = 0: C and epilogue only */
    run_gemm(3, 5, 0, 0, 1, 1.0f, 1.0f, 1, 5, O2H_ACT_RELU, 1);
}

static void run_matmul(int rank, const int64_t *ad, const int64_t *bd)
{
    O2hMatMul p;
    memset(&p, 0, sizeof p);
    p.rank = rank;
    size_t na = 1, nb = 1, ny = 1;
    for (int d = 0; d < rank; d++) {
        p.a_dims[d] = ad[d];
        p.b_dims[d] = bd[d];
        p.y_dims[d] = d < rank - 2 ? (ad[d] > bd[d] ? ad[d] : bd[d])
                                   : (d == rank - 2 ? ad[d] : bd[d]);
        na *= (size_t)ad[d];
        nb *= (size_t)bd[d];
        ny *= (size_t)p.y_dims[d];
    }
    int M = (int)ad[rank - 2], K = (int)ad[rank - 1], N = (int)bd[rank - 1];
    float *a = rt_random(na), *b = rt_random(nb), *y = rt_alloc(ny);
    double *ref = (double *)malloc(ny * sizeof(double));
    size_t batches = ny / ((size_t)M * N);
    for (size_t bi = 0; bi < batches; bi++) {
        /* decompose bi over the batch dims */
        size_t rem = bi, aoff = 0, boff = 0, ast = 1, bst = 1;
        for (int d = rank - 3; d >= 0; d--) {
            size_t idx = rem % (size_t)p.y_dims[d];
            rem /= (size_t)p.y_dims[d];
            if (ad[d] != 1)
                aoff += idx * ast;
            if (bd[d] != 1)
                boff += idx * bst;
            ast *= (size_t)ad[d];
            bst *= (size_t)bd[d];
        }
        const float *ab = a + aoff * M * K, *bb = b + boff * K * N;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double s = 0;
                for (int k = 0; k < K; k++)
                    s += (double)ab[i * K + k] * bb[k * N + j];
                ref[bi * M * N + (size_t)i * N + j] = s;
            }
    }
    o2h_matmul_f32(&p, a, b, y);
    rt_compare("matmul", y, ref, ny, 2e-5);
    free(a); free(b); free(y); free(ref);
}

static void test_matmul(void)
{
    int64_t a1[] = {5, 7}, b1[] = {7, 9};
    run_matmul(2, a1, b1);
    int64_t a2[] = {2, 3, 4, 20}, b2[] = {1, 3, 20, 50};
    run_matmul(4, a2, b2);
    int64_t a3[] = {1, 1, 4, 130}, b3[] = {2, 2, 130, 33};
    run_matmul(4, a3, b3);
    int64_t a4[] = {3, 1, 17}, b4[] = {3, 17, 1};
    run_matmul(3, a4, b4);
    int64_t a5[] = {2, 1, 6, 5}, b5[] = {1, 4, 5, 49};
    run_matmul(4, a5, b5);
}

int main(void)
{
    test_gemm();
    test_matmul();
    return check_done();
}
