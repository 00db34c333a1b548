/* lower.c - load, lower and check a model for the back ends (see driver.h). */
#include "driver.h"

IrGraph *driver_lower_model(const char *path, const FeOptions *fe, const PassOptions *po, IrDiag *d)
{
    PassOptions dflt;
    if (!po) {
        passes_options_init(&dflt);
        po = &dflt;
    }
    IrGraph *g = fe_load_onnx(path, fe, d);
    if (!g || d->n_errors || passes_run(g, po, d) || ir_verify(g, d) || d->n_errors) {
        ir_graph_free(g);
        return NULL;
    }
    return g;
}
