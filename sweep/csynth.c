/* csynth.c - the figures of a Vitis HLS synthesis report (csynth.xml) for
 * the sweep table: estimated and target clock, latency and interval of the
 * top, and its DSP, BRAM, LUT, FF and URAM estimates.
 *
 * Why libxml2 and absolute paths: the report is XML whose top-level summary
 * sits at fixed places (profile/PerformanceEstimates/..., profile/AreaEstimates/
 * Resources/...), while the same element names recur further down for every
 * module and loop; an XPath anchored at the root reads the top's figures and
 * nothing else. The DSP count is <DSP> since Vitis 2020 and <DSP48E> in Vivado
 * HLS. A figure that is not a number ("undef" for a variable latency) stays
 * empty. The parser never reads the network or substitutes entities.
 */
#include "sweep.h"

#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    SweepCol col;
    const char *xpath;
} figures[] = {
    {SWEEP_COL_SYN_CLOCK, "/*/PerformanceEstimates/SummaryOfTimingAnalysis/EstimatedClockPeriod"},
    {SWEEP_COL_SYN_TARGET, "/*/UserAssignments/TargetClockPeriod"},
    {SWEEP_COL_SYN_LATENCY, "/*/PerformanceEstimates/SummaryOfOverallLatency/Worst-caseLatency"},
    {SWEEP_COL_SYN_INTERVAL, "/*/PerformanceEstimates/SummaryOfOverallLatency/Interval-max"},
    {SWEEP_COL_SYN_DSP, "/*/AreaEstimates/Resources/DSP | /*/AreaEstimates/Resources/DSP48E"},
    {SWEEP_COL_SYN_BRAM, "/*/AreaEstimates/Resources/BRAM_18K"},
    {SWEEP_COL_SYN_LUT, "/*/AreaEstimates/Resources/LUT"},
    {SWEEP_COL_SYN_FF, "/*/AreaEstimates/Resources/FF"},
    {SWEEP_COL_SYN_URAM, "/*/AreaEstimates/Resources/URAM"},
};

/* the number in the first node xpath selects, as table text; NULL if none */
static char *figure(xmlXPathContextPtr ctx, const char *xpath)
{
    xmlXPathObjectPtr r = xmlXPathEvalExpression((const xmlChar *)xpath, ctx);
    char *cell = NULL;
    if (r && r->nodesetval && r->nodesetval->nodeNr > 0) {
        xmlChar *text = xmlNodeGetContent(r->nodesetval->nodeTab[0]);
        char *end = NULL;
        double v = text ? strtod((const char *)text, &end) : NAN;
        while (end && (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r'))
            end++;
        if (text && end != (char *)text && end && !*end && isfinite(v))
            cell = sweep_num(v);
        xmlFree(text);
    }
    xmlXPathFreeObject(r);
    return cell;
}

static bool is_report(xmlXPathContextPtr ctx)
{
    xmlXPathObjectPtr r = xmlXPathEvalExpression((const xmlChar *)"/*/PerformanceEstimates | /*/AreaEstimates", ctx);
    bool ok = r && r->nodesetval && r->nodesetval->nodeNr > 0;
    xmlXPathFreeObject(r);
    return ok;
}

int sweep_read_csynth(const char *path, SweepRow *row)
{
    xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    xmlXPathContextPtr ctx = doc ? xmlXPathNewContext(doc) : NULL;
    int rc = 0;
    if (!ctx || !is_report(ctx)) {
        fprintf(stderr, "onnx2hls sweep: %s: %s\n", path,
                doc ? "not a Vitis HLS synthesis report (no PerformanceEstimates or AreaEstimates)"
                    : "cannot be read as XML");
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < sizeof figures / sizeof figures[0]; i++)
        row->cell[figures[i].col] = figure(ctx, figures[i].xpath);
    xmlXPathFreeContext(ctx);
    xmlFreeDoc(doc);
    return rc;
}
