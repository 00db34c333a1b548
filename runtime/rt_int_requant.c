/* rt_int_requant.c - per-channel requantization constants and the
 * requantization of a row of int32 accumulators to int8 (the vector forms
 * are in rt_int_requant.h, which explains why they are exact).
 *
 * Why a file of its own: the panel product (rt_int_gemm.c) and the
 * depthwise and pooling kernels all end in this step, and the clamp bounds
 * that make the vector forms exact are derived here once. */
#include "rt_int_requant.h"

/* Bounds of acc outside which the output saturates: U with
 * rq(U) >= hi - zero + 1 and L with rq(L) <= lo - zero - 1 (so clamping acc
 * to [L, U] changes no output) and both results far inside int32. From
 * sh = 34 on every intermediate of the vector forms fits 32 bits for any
 * int32 acc (|acc * M| < 2^62), so no clamp is needed. */
void o2h_rqc_init(const O2hRequant *rq, int ch, O2hRqc *c)
{
    int i = rq->n > 1 ? ch : 0;
    c->m = rq->mult[i];
    c->sh = rq->shift[i];
    c->zero = rq->zero;
    c->lo = rq->lo;
    c->hi = rq->hi;
    c->lo_acc = INT32_MIN;
    c->hi_acc = INT32_MAX;
    c->clamp_out = !(c->lo == -128 && c->hi == 127);
    c->clamp_acc = c->m > 0 && c->sh < 34;
    c->pad[0] = c->pad[1] = 0;
    if (c->clamp_acc) {
        int64_t one = (int64_t)1 << c->sh;
        int64_t u = (int64_t)(c->hi - c->zero + 1) * one / c->m + 1;
        int64_t l = -((int64_t)(c->zero - c->lo + 1) * one / c->m + 1);
        c->hi_acc = u > INT32_MAX ? INT32_MAX : (int32_t)u;
        c->lo_acc = l < INT32_MIN ? INT32_MIN : (int32_t)l;
    }
}

/* Whole vectors of acc, O2H_RQ_NB at a time (AVX2 narrows four vectors
 * together), then one at a time; returns the count done. */
static int o2h_rq_vecs(const int32_t *acc, int n, const O2hRqc *c, int8_t *y)
{
    int j = 0;
#if defined(O2H_RQ_VL)
    enum { VL = O2H_RQ_VL, NB = O2H_RQ_NB };
    O2hRqv v;
    o2h_rqacc q[NB];
    o2h_rqv_init(c, &v);
    for (; j + NB * VL <= n; j += NB * VL) {
        for (int i = 0; i < NB; i++)
            q[i] = O2H_RQ_LOAD(acc + j + i * VL);
        o2h_rqv_store_nv(q, NB, &v, y + j);
    }
    for (; j + VL <= n; j += VL) {
        q[0] = O2H_RQ_LOAD(acc + j);
        o2h_rqv_store_nv(q, 1, &v, y + j);
    }
#else
    (void)acc, (void)n, (void)c, (void)y;
#endif
    return j;
}

void o2h_rq_row(const int32_t *acc, int n, const O2hRqc *c, int8_t *y)
{
    for (int j = o2h_rqv_ok(c) ? o2h_rq_vecs(acc, n, c, y) : 0; j < n; j++)
        y[j] = o2h_rq_one(acc[j], c);
}
