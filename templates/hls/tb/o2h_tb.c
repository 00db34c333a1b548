/* o2h_tb.c - C simulation testbench of a generated accelerator: runs
 * frames through o2h_top() exactly as the host would, and compares every
 * tensor the accelerator produces - each SESL channel, each tensor in the
 * DRAM arena, the outputs - with the golden vectors (the host int8
 * arithmetic, NCHW as the host program holds it: written by onnx2hls into
 * tb/golden/, or dumped by the host program for `onnx2hls verify --hls`),
 * byte for byte. Then it
 * writes cycles.json: per layer the plan's cycles beside the cycles the
 * engines counted by running their loops (o2h_timing.h).
 *
 *   tb [HLS_DIR] [--frames N] [--golden DIR] [--cycles FILE] [--quiet]
 *
 * Exit 0 when every compared byte is equal, 1 otherwise, 2 on missing files.
 * Copied as is into OUT/hls/tb/ (not specialized); tb_data.h beside it is
 * generated per accelerator.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "o2h_accel.h"

typedef struct {
    int id;                 /* IR tensor */
    const char *name;
    int64_t off;            /* in the DRAM arena, -1: only a SESL channel */
    int64_t h, w, c;        /* NHWC on the accelerator; golden files are NCHW, as the host holds them */
    int role;               /* TB_IN, TB_BND, TB_OUT bits */
} TbTensor;

typedef struct {
    const char *name;       /* ONNX node of the unit */
    int sesl;               /* 1: a SESL stage, 0: SEML layer(s) */
    int64_t plan;           /* the plan's cycles */
    int first, n;           /* SESL: its counters; SEML: its descriptors */
} TbUnit;

#define TB_IN 1             /* written by the host before a frame */
#define TB_BND 2            /* in the boundary area (two copies) */
#define TB_OUT 4            /* read by the host after a frame */

#include "tb_data.h"

static int8_t *golden[TB_N_TENSORS];
static int64_t mismatches, compared;
static int quiet;

static int8_t *load(const char *dir, const char *name, int64_t want)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    int8_t *buf = (int8_t *)malloc(want > 0 ? (size_t)want : 1);
    if (!f || !buf || (want > 0 && fread(buf, 1, (size_t)want, f) != (size_t)want)) {
        fprintf(stderr, "tb: cannot read %lld bytes of %s\n", (long long)want, path);
        exit(2);
    }
    fclose(f);
    return buf;
}

static int64_t tensor_bytes(const TbTensor *t)
{
    return t->h * t->w * t->c;
}

/* golden file (NCHW) -> NHWC */
static int8_t *load_golden(const char *dir, const TbTensor *t)
{
    char name[32];
    snprintf(name, sizeof name, "t%d.bin", t->id);
    int8_t *nchw = load(dir, name, tensor_bytes(t)), *nhwc = (int8_t *)malloc((size_t)tensor_bytes(t) + 1);
    if (!nhwc)
        exit(2);
    for (int64_t c = 0; c < t->c; c++)
        for (int64_t p = 0; p < t->h * t->w; p++)
            nhwc[p * t->c + c] = nchw[c * t->h * t->w + p];
    free(nchw);
    return nhwc;
}

static int tensor_index(int id)
{
    for (int i = 0; i < TB_N_TENSORS; i++)
        if (tb_tensors[i].id == id)
            return i;
    return -1;
}

static void compare(int i, const int8_t *got, const char *where)
{
    const TbTensor *t = &tb_tensors[i];
    int64_t bad = 0, first = -1;
    for (int64_t k = 0; k < tensor_bytes(t); k++)
        if (got[k] != golden[i][k] && bad++ == 0)
            first = k;
    compared += tensor_bytes(t);
    mismatches += bad;
    if (bad && !quiet)
        fprintf(stderr, "tb: %s '%s': %lld of %lld bytes differ (first at %lld: %d, expected %d)\n", where, t->name,
                (long long)bad, (long long)tensor_bytes(t), (long long)first, got[first], golden[i][first]);
}

#ifndef __SYNTHESIS__
void o2h_tap(int tensor, const int8_t *data, int64_t bytes)
{
    int i = tensor_index(tensor);
    if (i >= 0 && bytes == tensor_bytes(&tb_tensors[i]))
        compare(i, data, "SESL channel");
}
#endif

static void reset_counters(void)
{
    for (int i = 0; i < TB_N_COUNTERS; i++)
        *tb_counters[i] = 0;
}

static void frame(int8_t *fm, const int8_t *wimg, const int32_t *desc, int pp)
{
    for (int i = 0; i < TB_N_TENSORS; i++)
        if (tb_tensors[i].role & TB_IN)
            memcpy(fm + tb_tensors[i].off, golden[i], (size_t)tensor_bytes(&tb_tensors[i]));
    reset_counters();
    if (TB_HAS_SESL)
        o2h_top(fm, fm, fm, fm, wimg, desc, pp, 1 + pp, 0, 0);
    o2h_top(fm, fm, fm, fm, wimg, desc, pp, 0, 0, O2H_N_DESC);
    for (int i = 0; i < TB_N_TENSORS; i++) {
        const TbTensor *t = &tb_tensors[i];
        if (t->off >= 0 && !(t->role & TB_IN))
            compare(i, fm + t->off + ((t->role & TB_BND) && pp ? O2H_BND_STRIDE : 0), "DRAM tensor");
    }
}

/* counted cycles of unit u in the last frame */
static int64_t unit_cycles(const TbUnit *u)
{
    int64_t c = 0;
    for (int k = u->first; k < u->first + u->n; k++) {
        int64_t v = u->sesl ? *tb_counters[k] : o2h_seml_cycles[k];
        c = u->sesl ? (v > c ? v : c) : c + v;
    }
    return c;
}

static void json_name(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void write_cycles(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tb: cannot write %s\n", path);
        exit(2);
    }
    int64_t sesl = 0, seml = 0;
    for (int i = 0; i < TB_N_COUNTERS; i++)
        sesl = *tb_counters[i] > sesl ? *tb_counters[i] : sesl;
    for (int i = 0; i < O2H_N_DESC; i++)
        seml += o2h_seml_cycles[i];
    fprintf(f, "{\"design\": \"%s\", \"split\": %d,\n \"layers\": [\n", TB_DESIGN, TB_SPLIT);
    for (int i = 0; i < TB_N_UNITS; i++) {
        fprintf(f, "  {\"name\": ");
        json_name(f, tb_units[i].name);
        fprintf(f, ", \"part\": \"%s\", \"plan_cycles\": %lld, \"csim_cycles\": %lld}%s\n",
                tb_units[i].sesl ? "sesl" : "seml", (long long)tb_units[i].plan, (long long)unit_cycles(&tb_units[i]),
                i + 1 < TB_N_UNITS ? "," : "");
    }
    int64_t period = sesl > seml ? sesl : seml;
    fprintf(f, " ],\n \"sesl\": {\"plan\": %lld, \"csim\": %lld, \"dataflow_sim\": %lld},\n"
               " \"seml\": {\"plan\": %lld, \"csim\": %lld},\n"
               " \"period\": {\"plan\": %lld, \"csim\": %lld}}\n",
            (long long)TB_PLAN_T_SESL, (long long)sesl, (long long)TB_DATAFLOW_INTERVAL, (long long)TB_PLAN_T_SEML,
            (long long)seml, (long long)TB_PLAN_PERIOD, (long long)(TB_PLAN_T_HOST > period ? TB_PLAN_T_HOST : period));
    fclose(f);
}

int main(int argc, char **argv)
{
    const char *dir = ".", *gdir = NULL, *cycles = NULL;
    int frames = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--golden") && i + 1 < argc)
            gdir = argv[++i];
        else if (!strcmp(argv[i], "--cycles") && i + 1 < argc)
            cycles = argv[++i];
        else if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else
            dir = argv[i];
    }
    char gbuf[4096], cbuf[4096];
    if (!gdir)
        snprintf(gbuf, sizeof gbuf, "%s/tb/golden", dir), gdir = gbuf;
    if (!cycles)
        snprintf(cbuf, sizeof cbuf, "%s/cycles.json", dir), cycles = cbuf;
    int8_t *wimg = load(dir, "desc/o2h_wimg.bin", O2H_WIMG_USED);
    int32_t *desc = (int32_t *)load(dir, "desc/o2h_desc.bin", (int64_t)O2H_N_DESC * O2H_DESC_WORDS * 4);
    for (int i = 0; i < TB_N_TENSORS; i++)
        golden[i] = load_golden(gdir, &tb_tensors[i]);
    int8_t *fm = (int8_t *)calloc(O2H_FM_BYTES, 1);
    if (!fm)
        return 2;
    for (int k = 0; k < frames; k++)
        frame(fm, wimg, desc, k & 1);
    write_cycles(cycles);
    printf("csim: %s: %d frame(s), %lld bytes compared, %lld differ\n", mismatches ? "FAIL" : "PASS", frames,
           (long long)compared, (long long)mismatches);
    for (int i = 0; i < TB_N_TENSORS; i++)
        free(golden[i]);
    free(fm);
    free(desc);
    free(wimg);
    return mismatches ? 1 : 0;
}
