/* report.h - the plan as a self-contained HTML page (report/report.c).
 *
 * Why HTML with inline SVG: a user judging a plan wants to see it, layers to
 * engines, stage times, resources against the budget, the roofline and the
 * memory table, on any machine, offline; one file with no scripts or network
 * fetches opens anywhere and can be attached to a bug report.
 */
#ifndef ONNX2HLS_REPORT_H
#define ONNX2HLS_REPORT_H

#include <stdio.h>

#include "ir/ir.h"
#include "plan/plan.h"

/* Write the report of plan p for graph g to f. */
void report_html(const Plan *p, const IrGraph *g, FILE *f);

#endif
