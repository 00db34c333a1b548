/* rt_shape.c - data movement: Transpose, Concat, Split, Slice, Pad, Gather,
 * Expand. They work on elements of any size (float, int8, int32, int64).
 *
 * Why it is written this way: all of them except Pad are "copy with
 * per-axis input strides" (a permutation, a step, or 0 for broadcast), so a
 * single odometer walks the output and moves whole runs of the innermost
 * axis: memcpy when the run is contiguous, a fill when it is broadcast, and a
 * typed strided loop otherwise. Pad maps every output index back through its
 * mode (constant, reflect, edge) axis by axis. */
#include "rt_internal.h"

/* Copy one run of n elements with input stride s (elements). */
static void o2h_run_copy(size_t es, const char *x, ptrdiff_t s, size_t n, char *y)
{
    if (s == 1) {
        memcpy(y, x, n * es);
        return;
    }
    if (s == 0) {
        for (size_t i = 0; i < n; i++)
            memcpy(y + i * es, x, es);
        return;
    }
    switch (es) {
    case 4: {
        uint32_t v;
        for (size_t i = 0; i < n; i++) {
            memcpy(&v, x + (ptrdiff_t)i * s * 4, 4);
            memcpy(y + i * 4, &v, 4);
        }
        return;
    }
    case 8: {
        uint64_t v;
        for (size_t i = 0; i < n; i++) {
            memcpy(&v, x + (ptrdiff_t)i * s * 8, 8);
            memcpy(y + i * 8, &v, 8);
        }
        return;
    }
    default:
        for (size_t i = 0; i < n; i++)
            memcpy(y + i * es, x + (ptrdiff_t)i * s * (ptrdiff_t)es, es);
        return;
    }
}

/* y (contiguous, out_dims) [i...] = x[sum_d i_d * strides[d]], x at offset 0. */
static void o2h_strided_copy(size_t es, int rank, const int64_t *out_dims,
                             const ptrdiff_t *strides, const void *xv, void *yv)
{
    const char *x = (const char *)xv;
    char *y = (char *)yv;
    int64_t idx[O2H_MAX_RANK] = {0};
    if (rank <= 0) {
        memcpy(y, x, es);
        return;
    }
    for (int d = 0; d < rank; d++)
        if (out_dims[d] <= 0)
            return;
    size_t run = (size_t)out_dims[rank - 1];
    ptrdiff_t off = 0;
    for (;;) {
        o2h_run_copy(es, x + off * (ptrdiff_t)es, strides[rank - 1], run, y);
        y += run * es;
        int d = rank - 2;
        for (; d >= 0; d--) {
            off += strides[d];
            if (++idx[d] < out_dims[d])
                break;
            off -= strides[d] * out_dims[d];
            idx[d] = 0;
        }
        if (d < 0)
            return;
    }
}

static void o2h_contig_strides(int rank, const int64_t *dims, ptrdiff_t *st)
{
    ptrdiff_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        st[d] = s;
        s *= (ptrdiff_t)dims[d];
    }
}

void o2h_transpose(size_t elem_size, int rank, const int64_t *in_dims, const int *perm,
                   const void *x, void *y)
{
    ptrdiff_t in_st[O2H_MAX_RANK], st[O2H_MAX_RANK];
    int64_t od[O2H_MAX_RANK];
    o2h_contig_strides(rank, in_dims, in_st);
    for (int d = 0; d < rank; d++) {
        od[d] = in_dims[perm[d]];
        st[d] = in_st[perm[d]];
    }
    o2h_strided_copy(elem_size, rank, od, st, x, y);
}

void o2h_concat(size_t elem_size, int n_in, const void *const *xs, const int64_t *dims_axis,
                int64_t outer, int64_t inner, void *y)
{
    char *yp = (char *)y;
    for (int64_t o = 0; o < outer; o++)
        for (int i = 0; i < n_in; i++) {
            size_t bytes = (size_t)(dims_axis[i] * inner) * elem_size;
            memcpy(yp, (const char *)xs[i] + (size_t)o * bytes, bytes);
            yp += bytes;
        }
}

void o2h_split(size_t elem_size, int n_out, void *const *ys, const int64_t *dims_axis,
               int64_t outer, int64_t inner, const void *x)
{
    const char *xp = (const char *)x;
    for (int64_t o = 0; o < outer; o++)
        for (int i = 0; i < n_out; i++) {
            size_t bytes = (size_t)(dims_axis[i] * inner) * elem_size;
            memcpy((char *)ys[i] + (size_t)o * bytes, xp, bytes);
            xp += bytes;
        }
}

void o2h_slice(size_t elem_size, int rank, const int64_t *in_dims, const int64_t *out_dims,
               const int64_t *starts, const int64_t *steps, const void *x, void *y)
{
    ptrdiff_t in_st[O2H_MAX_RANK], st[O2H_MAX_RANK], off = 0;
    o2h_contig_strides(rank, in_dims, in_st);
    for (int d = 0; d < rank; d++) {
        st[d] = in_st[d] * (ptrdiff_t)steps[d];
        off += in_st[d] * (ptrdiff_t)starts[d];
    }
    o2h_strided_copy(elem_size, rank, out_dims, st, (const char *)x + off * (ptrdiff_t)elem_size,
                     y);
}

/* Input index for output index o on an axis of length n; -1: constant. */
static int64_t o2h_pad_src(int mode, int64_t o, int64_t begin, int64_t n)
{
    int64_t i = o - begin;
    if (i >= 0 && i < n)
        return i;
    if (mode == 0 || n <= 0)
        return -1;
    if (mode == 2)
        return i < 0 ? 0 : n - 1;
    if (n == 1)
        return 0;
    int64_t period = 2 * (n - 1);
    i %= period;
    if (i < 0)
        i += period;
    return i < n ? i : period - i;
}

/* Pads one row of the innermost axis. */
static void o2h_pad_row(int mode, float value, int64_t n, int64_t begin, int64_t on,
                        const float *x, float *y)
{
    int64_t lo = begin > 0 ? begin : 0;
    int64_t hi = begin + n < on ? begin + n : on;
    for (int64_t o = 0; o < on && o < lo; o++) {
        int64_t i = o2h_pad_src(mode, o, begin, n);
        y[o] = i < 0 ? value : x[i];
    }
    if (hi > lo)
        memcpy(y + lo, x + (lo - begin), (size_t)(hi - lo) * sizeof(float));
    for (int64_t o = hi > lo ? hi : lo; o < on; o++) {
        int64_t i = o2h_pad_src(mode, o, begin, n);
        y[o] = i < 0 ? value : x[i];
    }
}

void o2h_pad_f32(int mode, float value, int rank, const int64_t *in_dims, const int64_t *begin,
                 const int64_t *out_dims, const float *x, float *y)
{
    ptrdiff_t in_st[O2H_MAX_RANK];
    int64_t idx[O2H_MAX_RANK] = {0};
    if (rank <= 0) {
        y[0] = x[0];
        return;
    }
    for (int d = 0; d < rank; d++)
        if (out_dims[d] <= 0)
            return;
    o2h_contig_strides(rank, in_dims, in_st);
    int64_t on = out_dims[rank - 1];
    for (;;) {
        ptrdiff_t off = 0;
        int outside = 0;
        for (int d = 0; d < rank - 1; d++) {
            int64_t i = o2h_pad_src(mode, idx[d], begin[d], in_dims[d]);
            if (i < 0)
                outside = 1;
            else
                off += (ptrdiff_t)i * in_st[d];
        }
        if (outside || in_dims[rank - 1] <= 0) {
            for (int64_t o = 0; o < on; o++)
                y[o] = value;
        } else {
            o2h_pad_row(mode, value, in_dims[rank - 1], begin[rank - 1], on, x + off, y);
        }
        y += on;
        int d = rank - 2;
        for (; d >= 0; d--) {
            if (++idx[d] < out_dims[d])
                break;
            idx[d] = 0;
        }
        if (d < 0)
            return;
    }
}

void o2h_gather(size_t elem_size, int64_t outer, int64_t axis_dim, int64_t inner,
                const int64_t *idx, int64_t n_idx, const void *x, void *y)
{
    size_t run = (size_t)inner * elem_size;
    char *yp = (char *)y;
    for (int64_t o = 0; o < outer; o++) {
        const char *xo = (const char *)x + (size_t)(o * axis_dim) * run;
        for (int64_t j = 0; j < n_idx; j++, yp += run) {
            int64_t i = idx[j] < 0 ? idx[j] + axis_dim : idx[j];
            if (i < 0 || i >= axis_dim)
                memset(yp, 0, run);
            else
                memcpy(yp, xo + (size_t)i * run, run);
        }
    }
}

void o2h_expand(size_t elem_size, const O2hBroadcast *p, const void *x, void *y)
{
    ptrdiff_t st[O2H_MAX_RANK], s = 1;
    for (int d = p->rank - 1; d >= 0; d--) {
        st[d] = p->a_dims[d] == 1 ? 0 : s;
        s *= (ptrdiff_t)p->a_dims[d];
    }
    o2h_strided_copy(elem_size, p->rank, p->y_dims, st, x, y);
}
