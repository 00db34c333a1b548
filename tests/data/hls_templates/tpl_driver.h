/* tpl_driver.h - file helpers of the driver programs that
 * tests/unit/test_hls_templates.c generates around template instances.
 *
 * Why a header of its own: each generated driver only loads an instance's
 * inputs, calls it, and saves what it wrote with its cycle counters; the
 * test process holds the reference. Inputs and results are raw files in
 * the driver's working directory (int8 bytes; counters int64 after the
 * bytes). Any missing or short file ends the driver with exit code 3.
 */
#ifndef TPL_DRIVER_H
#define TPL_DRIVER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void tpl_load(const char *name, void *p, size_t n)
{
    FILE *f = fopen(name, "rb");
    if (!f || fread(p, 1, n, f) != n) {
        fprintf(stderr, "driver: cannot read %zu bytes of %s\n", n, name);
        exit(3);
    }
    fclose(f);
}

static void tpl_save(const char *name, const void *p, size_t n, const int64_t *cyc, int n_cyc)
{
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fwrite(cyc, sizeof *cyc, (size_t)n_cyc, f) != (size_t)n_cyc ||
        fclose(f)) {
        fprintf(stderr, "driver: cannot write %s\n", name);
        exit(3);
    }
}

#endif
