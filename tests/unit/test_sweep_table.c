/* test_sweep_table.c - the sweep table's numbers and synthesis reports: every
 * figure written as text reads back as the same double (so sweep.csv says
 * exactly what plan.json says), and csynth.xml figures are the top's, in
 * both report layouts, with a cut or foreign file refused. */
#include "check.h"
#include "sweep/sweep.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

static void expect_num(double x, const char *want)
{
    char *s = sweep_num(x);
    CHECK_MSG(strtod(s, NULL) == x, "%.17g -> '%s' does not read back", x, s);
    if (want)
        CHECK_MSG(!strcmp(s, want), "%.17g -> '%s', want '%s'", x, s, want);
    free(s);
}

static void test_numbers(void)
{
    expect_num(7130, "7130");
    expect_num(1080596, "1080596");
    expect_num(97040.3, "97040.3");
    expect_num(0.1, "0.1");
    expect_num(0.02233, "0.02233");
    expect_num(1.0 / 3, NULL);
    expect_num(-0.0, "0");
    expect_num(9007199254740993.0, NULL);   /* above 2^53: %g, still exact */
    expect_num(1e300, "1e+300");
    expect_num(DBL_MIN, NULL);
    expect_num(123456789.125, "123456789.125");
}

static void expect_cell(const SweepRow *r, SweepCol c, const char *want)
{
    const char *got = r->cell[c];
    CHECK_MSG(want ? got && !strcmp(got, want) : !got, "%s: '%s', want '%s'", sweep_columns[c].name,
              got ? got : "(none)", want ? want : "(none)");
}

static void free_row(SweepRow *r)
{
    for (int c = 0; c < SWEEP_NCOLS; c++)
        free(r->cell[c]);
    memset(r, 0, sizeof *r);
}

static void test_csynth(void)
{
    SweepRow r = {0};
    CHECK(sweep_read_csynth(SOURCE_DIR "/tests/data/sweep/csynth_vitis.xml", &r) == 0);
    expect_cell(&r, SWEEP_COL_SYN_CLOCK, "4.373");
    expect_cell(&r, SWEEP_COL_SYN_TARGET, "5");
    expect_cell(&r, SWEEP_COL_SYN_LATENCY, "4502");   /* the top's, not a loop's */
    expect_cell(&r, SWEEP_COL_SYN_INTERVAL, "1290");
    expect_cell(&r, SWEEP_COL_SYN_DSP, "338");        /* not a module's */
    expect_cell(&r, SWEEP_COL_SYN_LUT, "47001");
    expect_cell(&r, SWEEP_COL_SYN_URAM, "0");
    free_row(&r);
    CHECK(sweep_read_csynth(SOURCE_DIR "/tests/data/sweep/csynth_vivado.xml", &r) == 0);
    expect_cell(&r, SWEEP_COL_SYN_DSP, "155");        /* <DSP48E> */
    expect_cell(&r, SWEEP_COL_SYN_LATENCY, NULL);     /* "undef" */
    expect_cell(&r, SWEEP_COL_SYN_URAM, NULL);
    expect_cell(&r, SWEEP_COL_SYN_FF, "40000");
    free_row(&r);
    fprintf(stderr, "(two messages expected:)\n");
    CHECK(sweep_read_csynth(SOURCE_DIR "/tests/data/sweep/csynth_broken.xml", &r) == -1);
    CHECK(sweep_read_csynth(SOURCE_DIR "/tests/data/sweep/README.md", &r) == -1);
    free_row(&r);
}

int main(void)
{
    test_numbers();
    test_csynth();
    return check_done();
}
