/* roofline.c - per-layer operational intensity against the device's compute
 * and bandwidth ceilings.
 *
 * Why: it shows at a glance which layers could never reach the PEs' peak when
 * their weights and maps come from DRAM (low intensity: FC layers, pointwise
 * convs on small maps) and so belong on a reusable engine that streams
 * weights, and which are compute-bound (early convs with high weight reuse),
 * where a dedicated pipelined engine pays. Intensity counts two operations per
 * MAC (or one per element operation) over the bytes a layer moves when it
 * reads its weights and input and writes its output once.
 */
#include "plan_internal.h"

#include <stdlib.h>

void plan_roofline(Plan *p)
{
    p->roof = calloc((size_t)p->n_units + 1, sizeof *p->roof);
    if (!p->roof)
        abort();
    double bw = p->bandwidth_gbps * 1e9, f = p->clock_mhz * 1e6;
    for (int i = 0; i < p->n_units; i++) {
        const PlanUnit *u = &p->units[i];
        double ops = u->macs > 0 ? 2.0 * (double)u->macs : (double)u->ops;
        double bytes = (double)(u->w_bytes + u->in_bytes + u->extra_bytes + u->out_bytes);
        PlanRoof *r = &p->roof[i];
        r->intensity = bytes > 0 ? ops / bytes : 0;
        double roof = r->intensity * bw;
        r->attainable = roof < p->peak_ops ? roof : p->peak_ops;
        const PlanDesign *d = &p->hybrid;
        if (d->fits && d->map && d->map[i].cycles > 0)
            r->achieved = ops / ((double)d->map[i].cycles / f);
    }
}
