/* fuzz_calib.c - the --calib reader (passes/quant/calibrate.c) and the
 * calibration it feeds: the input bytes as raw float32 images for
 * samples/mobilenet_tiny.onnx (1x3x32x32), quantized to int8 with the
 * min/max, percentile or MSE method (by a hash of the input).
 *
 * Why: calibration data is whatever the user saved, and its values (NaN,
 * infinities, denormals, all zeros, one huge outlier) go straight into
 * histograms, ranges and the scales of every layer. Most inputs are cut or
 * repeated to exactly one image so they reach calibration; one in eight is
 * written as is, to exercise the size checks. Invariants: a quantized graph
 * passes ir_verify; a refusal names the file. */
#include "fuzz.h"

#include <string.h>

#include "frontend/frontend.h"
#include "passes/passes.h"
#include "passes/quant/quant.h"

#define IMAGE_BYTES (3 * 32 * 32 * 4)

static int one(const uint8_t *data, size_t size)
{
    uint32_t h = fz_hash(data, size);
    const char *path;
    if (h % 8 == 0 || size == 0) {
        path = fz_file("calib.f32", data, size);
    } else {
        uint8_t *img = malloc(IMAGE_BYTES);
        if (!img)
            return 0;
        for (size_t i = 0; i < IMAGE_BYTES; i += size)
            memcpy(img + i, data, IMAGE_BYTES - i < size ? IMAGE_BYTES - i : size);
        path = fz_file("calib.f32", img, IMAGE_BYTES);
        free(img);
    }
    if (!path)
        return 0;
    IrDiag d;
    diag_init(&d);
    IrGraph *g = fe_load_onnx(fz_sample("mobilenet_tiny.onnx"), NULL, &d);
    FZ_ASSERT(g, "cannot load mobilenet_tiny.onnx");
    QuantOptions qo;
    pass_quant_options_init(&qo);
    qo.prec = (QuantPrec){IR_PREC_INT8, 8};
    qo.calib = path;
    qo.method = (QuantCalibMethod)(h / 8 % 3);
    PassOptions po;
    passes_options_init(&po);
    po.quant = &qo;
    if (passes_run(g, &po, &d) == 0)
        fz_check_graph(g, "passes with --calib");
    else
        fz_check_refusal(&d, "passes with --calib");
    ir_graph_free(g);
    diag_free(&d);
    return 0;
}

FUZZ_TARGET(calib, NULL, one)
