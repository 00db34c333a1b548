/* test_rt_binary.c - every binary op over the broadcasting patterns the
 * kernel special-cases (same shape, scalar on either side, per channel,
 * both sides broadcast, middle axes) plus odd ranks, the fused epilogue
 * (residual, activation, per-channel PRelu) and in-place use. */
#include "test_rt_util.h"

static double ref_op(O2hBinOp op, double a, double b)
{
    switch (op) {
    case O2H_BIN_ADD: return a + b;
    case O2H_BIN_SUB: return a - b;
    case O2H_BIN_MUL: return a * b;
    case O2H_BIN_DIV: return a / b;
    case O2H_BIN_POW: return pow(a, b);
    case O2H_BIN_MAX: return a > b ? a : b;
    case O2H_BIN_MIN: return a < b ? a : b;
    case O2H_BIN_PRELU: return a < 0 ? a * b : a;
    }
    return 0;
}

static size_t bcast_index(int rank, const int64_t *dims, const int64_t *ydims, size_t flat)
{
    size_t off = 0, st = 1;
    for (int d = rank - 1; d >= 0; d--) {
        size_t i = flat % (size_t)ydims[d];
        flat /= (size_t)ydims[d];
        if (dims[d] != 1)
            off += i * st;
        st *= (size_t)dims[d];
    }
    return off;
}

static void run_binary(int rank, const int64_t *ad, const int64_t *bd, int act, int res,
                       int inplace)
{
    O2hBroadcast p;
    memset(&p, 0, sizeof p);
    p.rank = rank;
    size_t na = 1, nb = 1, ny = 1;
    for (int d = 0; d < rank; d++) {
        p.a_dims[d] = ad[d];
        p.b_dims[d] = bd[d];
        p.y_dims[d] = ad[d] > bd[d] ? ad[d] : bd[d];
        na *= (size_t)ad[d];
        nb *= (size_t)bd[d];
        ny *= (size_t)p.y_dims[d];
    }
    int nch = rank >= 2 ? (int)p.y_dims[1] : (int)p.y_dims[0];
    size_t inner = 1;
    for (int d = rank >= 2 ? 2 : 1; d < rank; d++)
        inner *= (size_t)p.y_dims[d];
    float *slope = rt_random((size_t)nch), *r = rt_random(ny);
    for (int op = O2H_BIN_ADD; op <= O2H_BIN_PRELU; op++) {
        float *a = rt_random(na), *b = rt_random(nb), *y = rt_alloc(ny);
        double *ref = (double *)malloc(ny * sizeof(double));
        if (op == O2H_BIN_POW)
            for (size_t i = 0; i < na; i++)
                a[i] = fabsf(a[i]) + 0.1f;
        if (op == O2H_BIN_DIV)
            for (size_t i = 0; i < nb; i++)
                b[i] = b[i] < 0 ? b[i] - 0.5f : b[i] + 0.5f;
        O2hEpilogue e = {(O2hActKind)act, 0.1f, 0.5f, slope, nch, res ? r : NULL};
        for (size_t i = 0; i < ny; i++) {
            double v = ref_op((O2hBinOp)op, a[bcast_index(rank, ad, p.y_dims, i)],
                              b[bcast_index(rank, bd, p.y_dims, i)]);
            if (res)
                v += r[i];
            ref[i] = rt_ref_act(act, e.alpha, e.beta, slope[(i / inner) % (size_t)nch], v);
        }
        float *out = inplace && na == ny ? a : y;
        o2h_binary_f32((O2hBinOp)op, &p, a, b, &e, out);
        char what[96];
        snprintf(what, sizeof what, "binary op %d rank %d act %d res %d inplace %d", op, rank, act,
                 res, inplace);
        rt_compare(what, out, ref, ny, 2e-6);
        free(a); free(b); free(y); free(ref);
    }
    free(slope);
    free(r);
}

static void run_all(int rank, const int64_t *ad, const int64_t *bd)
{
    run_binary(rank, ad, bd, O2H_ACT_NONE, 0, 0);
    run_binary(rank, ad, bd, O2H_ACT_RELU, 1, 0);
    run_binary(rank, ad, bd, O2H_ACT_PRELU, 0, 0);
    run_binary(rank, ad, bd, O2H_ACT_PRELU, 1, 1);
    run_binary(rank, ad, bd, O2H_ACT_SIGMOID, 0, 1);
}

int main(void)
{
    int64_t s1[] = {2, 3, 5, 7};
    int64_t one[] = {1, 1, 1, 1};
    int64_t ch[] = {1, 3, 1, 1};
    int64_t nhw[] = {2, 1, 5, 7};
    int64_t mid[] = {2, 1, 5, 1};
    int64_t last[] = {1, 1, 1, 7};
    run_all(4, s1, s1);     /* same shape */
    run_all(4, s1, one);    /* scalar b */
    run_all(4, one, s1);    /* scalar a */
    run_all(4, s1, ch);     /* per channel */
    run_all(4, ch, s1);
    run_all(4, nhw, ch);    /* both broadcast */
    run_all(4, s1, mid);
    run_all(4, s1, last);
    run_all(4, last, mid);
    int64_t r1a[] = {37}, r1b[] = {1};
    run_all(1, r1a, r1b);
    run_all(1, r1a, r1a);
    int64_t r2a[] = {4, 33}, r2b[] = {1, 33};
    run_all(2, r2a, r2b);
    int64_t r3a[] = {3, 1, 17}, r3b[] = {1, 4, 1};
    run_all(3, r3a, r3b);
    int64_t r5a[] = {2, 2, 3, 1, 5}, r5b[] = {2, 1, 3, 4, 5};
    run_all(5, r5a, r5b);
    int64_t r0[] = {1, 1};
    run_all(2, r0, r0);
    return check_done();
}
