/* test_rt_shape.c - Transpose (several permutations and element sizes),
 * Concat/Split round trip, Slice with positive and negative steps, Pad in
 * the three modes (including negative pads = crop), Gather with negative
 * indices, and Expand, against index arithmetic written out here. */
#include "test_rt_util.h"

static void unravel(int rank, const int64_t *dims, size_t flat, int64_t *idx)
{
    for (int d = rank - 1; d >= 0; d--) {
        idx[d] = (int64_t)(flat % (size_t)dims[d]);
        flat /= (size_t)dims[d];
    }
}

static size_t ravel(int rank, const int64_t *dims, const int64_t *idx)
{
    size_t f = 0;
    for (int d = 0; d < rank; d++)
        f = f * (size_t)dims[d] + (size_t)idx[d];
    return f;
}

static size_t count(int rank, const int64_t *dims)
{
    size_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= (size_t)dims[d];
    return n;
}

static void run_transpose(int rank, const int64_t *dims, const int *perm, size_t es)
{
    size_t n = count(rank, dims);
    unsigned char *x = malloc(n * es), *y = malloc(n * es);
    int64_t od[O2H_MAX_RANK], oi[O2H_MAX_RANK], ii[O2H_MAX_RANK];
    for (size_t i = 0; i < n * es; i++)
        x[i] = (unsigned char)rt_rand();
    for (int d = 0; d < rank; d++)
        od[d] = dims[perm[d]];
    o2h_transpose(es, rank, dims, perm, x, y);
    int bad = 0;
    for (size_t o = 0; o < n; o++) {
        unravel(rank, od, o, oi);
        for (int d = 0; d < rank; d++)
            ii[perm[d]] = oi[d];
        if (memcmp(y + o * es, x + ravel(rank, dims, ii) * es, es))
            bad++;
    }
    CHECK_MSG(bad == 0, "transpose rank %d es %zu: %d wrong", rank, es, bad);
    free(x);
    free(y);
}

static void test_transpose(void)
{
    int64_t d4[] = {2, 3, 4, 5};
    int p0[] = {0, 2, 3, 1}, p1[] = {3, 2, 1, 0}, p2[] = {0, 1, 2, 3}, p3[] = {1, 0, 3, 2};
    size_t es[] = {1, 2, 4, 8};
    for (int e = 0; e < 4; e++) {
        run_transpose(4, d4, p0, es[e]);
        run_transpose(4, d4, p1, es[e]);
        run_transpose(4, d4, p2, es[e]);
        run_transpose(4, d4, p3, es[e]);
    }
    int64_t d2[] = {7, 9};
    int q[] = {1, 0};
    run_transpose(2, d2, q, 4);
    int64_t d1[] = {11};
    int q1[] = {0};
    run_transpose(1, d1, q1, 4);
    int64_t d6[] = {2, 1, 3, 2, 1, 4};
    int q6[] = {5, 3, 1, 0, 4, 2};
    run_transpose(6, d6, q6, 4);
}

static void test_concat_split(void)
{
    int64_t outer = 3, inner = 5, da[3] = {2, 1, 4};
    float *xs[3], *ys[3];
    size_t tot = 0;
    for (int i = 0; i < 3; i++) {
        xs[i] = rt_random((size_t)(outer * da[i] * inner));
        ys[i] = rt_alloc((size_t)(outer * da[i] * inner));
        tot += (size_t)(outer * da[i] * inner);
    }
    float *y = rt_alloc(tot);
    o2h_concat(4, 3, (const void *const *)xs, da, outer, inner, y);
    int bad = 0;
    for (int64_t o = 0; o < outer; o++) {
        int64_t base = 0;
        for (int i = 0; i < 3; i++) {
            for (int64_t j = 0; j < da[i] * inner; j++)
                if (y[o * 7 * inner + base + j] != xs[i][o * da[i] * inner + j])
                    bad++;
            base += da[i] * inner;
        }
    }
    CHECK_EQ_INT(bad, 0);
    o2h_split(4, 3, (void *const *)ys, da, outer, inner, y);
    for (int i = 0; i < 3; i++)
        CHECK(memcmp(xs[i], ys[i], (size_t)(outer * da[i] * inner) * 4) == 0);
    for (int i = 0; i < 3; i++) {
        free(xs[i]);
        free(ys[i]);
    }
    free(y);
}

static void run_slice(int rank, const int64_t *in, const int64_t *st, const int64_t *sp,
                      const int64_t *out)
{
    size_t n = count(rank, in), no = count(rank, out);
    float *x = rt_random(n), *y = rt_alloc(no);
    int64_t oi[O2H_MAX_RANK], ii[O2H_MAX_RANK];
    o2h_slice(4, rank, in, out, st, sp, x, y);
    int bad = 0;
    for (size_t o = 0; o < no; o++) {
        unravel(rank, out, o, oi);
        for (int d = 0; d < rank; d++)
            ii[d] = st[d] + oi[d] * sp[d];
        if (y[o] != x[ravel(rank, in, ii)])
            bad++;
    }
    CHECK_MSG(bad == 0, "slice rank %d: %d wrong", rank, bad);
    free(x);
    free(y);
}

static void test_slice(void)
{
    int64_t in[] = {2, 6, 7, 9}, st[] = {0, 1, 6, 0}, sp[] = {1, 2, -1, 1}, out[] = {2, 3, 7, 9};
    run_slice(4, in, st, sp, out);
    int64_t st2[] = {1, 5, 0, 8}, sp2[] = {1, -2, 3, -3}, out2[] = {1, 3, 3, 3};
    run_slice(4, in, st2, sp2, out2);
    int64_t in1[] = {10}, s1[] = {2}, p1[] = {1}, o1[] = {5};
    run_slice(1, in1, s1, p1, o1);
}

static int64_t pad_src(int mode, int64_t o, int64_t b, int64_t n)
{
    int64_t i = o - b;
    if (i >= 0 && i < n)
        return i;
    if (mode == 0)
        return -1;
    if (mode == 2 || n == 1)
        return i < 0 ? 0 : n - 1;
    while (i < 0 || i >= n) /* reflect, one bounce at a time */
        i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

static void run_pad(int mode, int rank, const int64_t *in, const int64_t *begin,
                    const int64_t *end)
{
    int64_t out[O2H_MAX_RANK], oi[O2H_MAX_RANK], ii[O2H_MAX_RANK];
    for (int d = 0; d < rank; d++)
        out[d] = in[d] + begin[d] + end[d];
    size_t n = count(rank, in), no = count(rank, out);
    float *x = rt_random(n), *y = rt_alloc(no);
    o2h_pad_f32(mode, 2.5f, rank, in, begin, out, x, y);
    int bad = 0;
    for (size_t o = 0; o < no; o++) {
        unravel(rank, out, o, oi);
        int outside = 0;
        for (int d = 0; d < rank; d++) {
            ii[d] = pad_src(mode, oi[d], begin[d], in[d]);
            outside |= ii[d] < 0;
        }
        float want = outside ? 2.5f : x[ravel(rank, in, ii)];
        if (y[o] != want)
            bad++;
    }
    CHECK_MSG(bad == 0, "pad mode %d rank %d: %d wrong", mode, rank, bad);
    free(x);
    free(y);
}

static void test_pad(void)
{
    int64_t in[] = {1, 3, 5, 6}, b[] = {0, 1, 2, 3}, e[] = {0, 0, 1, 4};
    int64_t bn[] = {0, -1, 2, -2}, en[] = {1, 1, -1, 3};
    for (int m = 0; m < 3; m++) {
        run_pad(m, 4, in, b, e);
        run_pad(m, 4, in, bn, en);
    }
    int64_t in1[] = {4}, b1[] = {3}, e1[] = {3};
    for (int m = 0; m < 3; m++)
        run_pad(m, 1, in1, b1, e1);
}

static void test_gather(void)
{
    int64_t outer = 3, ad = 5, inner = 4, idx[] = {0, 4, -1, 2, -5, 3};
    float *x = rt_random((size_t)(outer * ad * inner)), *y = rt_alloc((size_t)(outer * 6 * inner));
    o2h_gather(4, outer, ad, inner, idx, 6, x, y);
    int bad = 0;
    for (int64_t o = 0; o < outer; o++)
        for (int j = 0; j < 6; j++) {
            int64_t i = idx[j] < 0 ? idx[j] + ad : idx[j];
            for (int64_t k = 0; k < inner; k++)
                if (y[(o * 6 + j) * inner + k] != x[(o * ad + i) * inner + k])
                    bad++;
        }
    CHECK_EQ_INT(bad, 0);
    int64_t ints[] = {10, 20, 30}, got[2], gi[] = {2, 0};
    o2h_gather(8, 1, 3, 1, gi, 2, ints, got);
    CHECK(got[0] == 30 && got[1] == 10);
    free(x);
    free(y);
}

static void test_expand(void)
{
    O2hBroadcast p;
    memset(&p, 0, sizeof p);
    int64_t xd[] = {3, 1, 5, 1}, yd[] = {3, 4, 5, 2};
    p.rank = 4;
    for (int d = 0; d < 4; d++) {
        p.a_dims[d] = xd[d];
        p.b_dims[d] = yd[d];
        p.y_dims[d] = yd[d];
    }
    size_t n = count(4, xd), no = count(4, yd);
    float *x = rt_random(n), *y = rt_alloc(no);
    int64_t oi[4], ii[4];
    o2h_expand(4, &p, x, y);
    int bad = 0;
    for (size_t o = 0; o < no; o++) {
        unravel(4, yd, o, oi);
        for (int d = 0; d < 4; d++)
            ii[d] = xd[d] == 1 ? 0 : oi[d];
        if (y[o] != x[ravel(4, xd, ii)])
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    free(x);
    free(y);
}

int main(void)
{
    test_transpose();
    test_concat_split();
    test_slice();
    test_pad();
    test_gather();
    test_expand();
    return check_done();
}
