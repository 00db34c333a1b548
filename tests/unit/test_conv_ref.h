/* test_conv_ref.h - the output-column range of one kernel tap, shared by
 * the float and integer conv references (test_rt_conv.c, test_rt_int.c):
 * they sum whole output rows tap by tap, and a tap that reads the padding
 * adds nothing (float pads are 0, integer pads hold the input zero point),
 * so each tap runs over the columns whose input lies inside the row. */
#ifndef TEST_CONV_REF_H
#define TEST_CONV_REF_H

#include "runtime/o2h_rt.h"

/* the first output column whose tap kw reads inside the row: iw = ow SW - PL + kw DW >= 0 */
static inline int ref_ow_first(const O2hConv2d *p, int kw)
{
    int off = kw * p->DW - p->PL;
    return off >= 0 ? 0 : (-off + p->SW - 1) / p->SW;
}

/* the last output column whose tap kw reads inside the row (iw < W); below the first when none does */
static inline int ref_ow_last(const O2hConv2d *p, int kw)
{
    int off = kw * p->DW - p->PL, last = p->W - 1 - off < 0 ? -1 : (p->W - 1 - off) / p->SW;
    return last < p->WO - 1 ? last : p->WO - 1;
}

#endif
