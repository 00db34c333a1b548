/* rt_binary.c - element-wise binary ops with numpy broadcasting and a fused
 * epilogue (residual add, activation).
 *
 * Why it is written this way: broadcasting is reduced to a short list of
 * axes by dropping size-1 output axes and merging neighbours that broadcast
 * the same way, so the usual cases become one flat loop (same shape,
 * scalar operand) or rows against one value (per-channel [N,C,H,W] op
 * [1,C,1,1]). The innermost run is then a tight loop per op and stride
 * pattern that the compiler vectorizes; the epilogue is applied to each run
 * while it is still in cache. */
#include "rt_internal.h"

#include <math.h>

typedef struct {
    int rank;
    int64_t dims[O2H_MAX_RANK];
    ptrdiff_t sa[O2H_MAX_RANK], sb[O2H_MAX_RANK];
} O2hBcastPlan;

static void o2h_bcast_plan(const O2hBroadcast *p, O2hBcastPlan *q)
{
    int fa[O2H_MAX_RANK], fb[O2H_MAX_RANK];
    q->rank = 0;
    for (int d = 0; d < p->rank; d++) {
        if (p->y_dims[d] == 1)
            continue;
        int ba = p->a_dims[d] == 1, bb = p->b_dims[d] == 1, r = q->rank;
        if (r > 0 && fa[r - 1] == ba && fb[r - 1] == bb) {
            q->dims[r - 1] *= p->y_dims[d];
            continue;
        }
        fa[r] = ba;
        fb[r] = bb;
        q->dims[r] = p->y_dims[d];
        q->rank++;
    }
    if (q->rank == 0) {
        q->rank = 1;
        q->dims[0] = 1;
        fa[0] = fb[0] = 0;
    }
    ptrdiff_t a = 1, b = 1;
    for (int d = q->rank - 1; d >= 0; d--) {
        q->sa[d] = fa[d] ? 0 : a;
        q->sb[d] = fb[d] ? 0 : b;
        if (!fa[d])
            a *= (ptrdiff_t)q->dims[d];
        if (!fb[d])
            b *= (ptrdiff_t)q->dims[d];
    }
}

static inline float o2h_pow(float a, float b) { return powf(a, b); }

#define O2H_BIN_LOOPS(NAME, EXPR)                                                          \
    static void NAME(const float *a, ptrdiff_t sa, const float *b, ptrdiff_t sb, float *y, \
                     size_t n)                                                              \
    {                                                                                      \
        if (sa && sb) {                                                                    \
            for (size_t i = 0; i < n; i++) {                                               \
                float x = a[i], z = b[i];                                                  \
                y[i] = EXPR;                                                               \
            }                                                                              \
        } else if (sa) {                                                                   \
            float z = b[0];                                                                \
            for (size_t i = 0; i < n; i++) {                                               \
                float x = a[i];                                                            \
                y[i] = EXPR;                                                               \
            }                                                                              \
        } else if (sb) {                                                                   \
            float x = a[0];                                                                \
            for (size_t i = 0; i < n; i++) {                                               \
                float z = b[i];                                                            \
                y[i] = EXPR;                                                               \
            }                                                                              \
        } else {                                                                           \
            float x = a[0], z = b[0], v = EXPR;                                            \
            for (size_t i = 0; i < n; i++)                                                 \
                y[i] = v;                                                                  \
        }                                                                                  \
    }

O2H_BIN_LOOPS(o2h_bin_add, x + z)
O2H_BIN_LOOPS(o2h_bin_sub, x - z)
O2H_BIN_LOOPS(o2h_bin_mul, x * z)
O2H_BIN_LOOPS(o2h_bin_div, x / z)
O2H_BIN_LOOPS(o2h_bin_pow, o2h_pow(x, z))
O2H_BIN_LOOPS(o2h_bin_max, x > z ? x : z)
O2H_BIN_LOOPS(o2h_bin_min, x < z ? x : z)
O2H_BIN_LOOPS(o2h_bin_prelu, x < 0.0f ? x * z : x)

typedef void (*O2hBinFn)(const float *, ptrdiff_t, const float *, ptrdiff_t, float *, size_t);

static O2hBinFn o2h_bin_fn(O2hBinOp op)
{
    switch (op) {
    case O2H_BIN_ADD: return o2h_bin_add;
    case O2H_BIN_SUB: return o2h_bin_sub;
    case O2H_BIN_MUL: return o2h_bin_mul;
    case O2H_BIN_DIV: return o2h_bin_div;
    case O2H_BIN_POW: return o2h_bin_pow;
    case O2H_BIN_MAX: return o2h_bin_max;
    case O2H_BIN_MIN: return o2h_bin_min;
    case O2H_BIN_PRELU: return o2h_bin_prelu;
    }
    return o2h_bin_add;
}

/* Channel layout of the output for the per-channel PRelu epilogue. */
typedef struct {
    size_t inner;   /* elements per channel step */
    size_t nch;     /* channels */
} O2hChanInfo;

static O2hChanInfo o2h_chan_info(const O2hBroadcast *p)
{
    O2hChanInfo c = {1, 1};
    int axis = p->rank >= 2 ? 1 : 0;
    if (p->rank <= 0)
        return c;
    c.nch = (size_t)p->y_dims[axis];
    for (int d = axis + 1; d < p->rank; d++)
        c.inner *= (size_t)p->y_dims[d];
    return c;
}

/* Residual and activation on y[start, start+n). */
static void o2h_bin_epilogue(const O2hEpilogue *e, O2hChanInfo ci, size_t start, float *y,
                             size_t n)
{
    if (e->residual) {
        const float *r = e->residual + start;
        for (size_t i = 0; i < n; i++)
            y[i] += r[i];
    }
    if (e->act == O2H_ACT_NONE)
        return;
    if (e->act != O2H_ACT_PRELU || e->n_slope <= 1) {
        o2h_act_row(e, y, n, 0);
        return;
    }
    size_t i = 0;
    while (i < n) {
        size_t g = start + i;
        size_t len = ci.inner - g % ci.inner;
        if (len > n - i)
            len = n - i;
        o2h_act_row(e, y + i, len, (int)((g / ci.inner) % ci.nch));
        i += len;
    }
}

void o2h_binary_f32(O2hBinOp op, const O2hBroadcast *p, const float *a, const float *b,
                    const O2hEpilogue *e, float *y)
{
    O2hBcastPlan q;
    O2hBinFn fn = o2h_bin_fn(op);
    int64_t idx[O2H_MAX_RANK] = {0};
    O2hChanInfo ci = o2h_chan_info(p);
    int epi = e && (e->residual || e->act != O2H_ACT_NONE);
    o2h_bcast_plan(p, &q);
    for (int d = 0; d < p->rank; d++)
        if (p->y_dims[d] <= 0)
            return;
    int r = q.rank;
    size_t run = (size_t)q.dims[r - 1], pos = 0;
    ptrdiff_t oa = 0, ob = 0;
    for (;;) {
        fn(a + oa, q.sa[r - 1], b + ob, q.sb[r - 1], y + pos, run);
        if (epi)
            o2h_bin_epilogue(e, ci, pos, y + pos, run);
        pos += run;
        int d = r - 2;
        for (; d >= 0; d--) {
            oa += q.sa[d];
            ob += q.sb[d];
            if (++idx[d] < q.dims[d])
                break;
            oa -= q.sa[d] * (ptrdiff_t)q.dims[d];
            ob -= q.sb[d] * (ptrdiff_t)q.dims[d];
            idx[d] = 0;
        }
        if (d < 0)
            return;
    }
}
