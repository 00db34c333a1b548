/* report_internal.h - helpers shared by the HTML report's page (report.c)
 * and its inline SVG charts (report_svg.c). */
#ifndef ONNX2HLS_REPORT_INTERNAL_H
#define ONNX2HLS_REPORT_INTERNAL_H

#include "report.h"
#include "ir/escape.h"

/* 1234567 -> "1.23 M" (k, M, G, T) */
const char *report_si(double x, char *buf, size_t n);
const char *report_kind_color(PlanKind k);
const char *report_layer_name(const IrGraph *g, int layer);

/* Charts, each a complete <svg> element. */
void report_svg_plan_map(const Plan *p, const IrGraph *g, const PlanDesign *d, FILE *f);
void report_svg_stage_times(const Plan *p, const IrGraph *g, const PlanDesign *d, FILE *f);
void report_svg_resources(const Plan *p, FILE *f);
void report_svg_roofline(const Plan *p, const IrGraph *g, FILE *f);

#endif
