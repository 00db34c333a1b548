/* devices.c - the FPGA boards the planner knows, and custom ones from JSON.
 *
 * Why a table of datasheet figures: every budget the planner divides (DSP
 * slices, 18 Kb block RAMs, 288 Kb UltraRAMs, LUTs, DRAM bandwidth) comes from
 * here, so a wrong number silently yields a design that does not fit. The
 * figures are the programmable-logic resources of the device on each board
 * (product tables of the Zynq-7000, Zynq UltraScale+, Kria, Alveo and Versal
 * families) and the peak bandwidth of the DRAM the fabric reaches on that
 * board (bus width x transfer rate). The clock is the one designs on the
 * board usually close timing at, overridable with --clock. The AXI ports
 * are the fabric's way to that DRAM: the HP ports of a Zynq (4 x 128 bit on
 * UltraScale+, 4 x 64 bit on Zynq-7000), the memory channels of an Alveo
 * card, the NoC ports of a Versal design; their efficiency is the share of
 * the ports' peak the DRAM controller sustains (sources in docs/plan.md).
 *
 * A custom device is a JSON object read with cJSON (Debian libcjson-dev);
 * the reader is strict: unknown keys, wrong types, duplicate keys and
 * non-positive budgets are errors that name the file.
 */
#include "plan.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ir/sidefile.h"

/* efficiency of 4 HP masters with sequential 16-beat bursts of reads and
 * writes (UG585, "DDR Efficiency"), taken for the Zynq UltraScale+ and
 * Versal boards too; Alveo U250: 52.2 GB/s measured of 76.8 on its four
 * 512-bit DDR ports (Vitis_Accel_Examples bandwidth test) */
#define EFF_SOC 0.87
#define EFF_U250 0.68

static const PlanDevice devices[] = {
    /* ZCU102: PS DDR4 64-bit at 2400 MT/s */
    {"zcu102", "Xilinx ZCU102", "XCZU9EG", PLAN_DSP48E2, 2520, 1824, 0, 274080, 548160, 19.2, 200, 4, 128, EFF_SOC},
    /* ZCU104: PS DDR4 64-bit at 2400 MT/s */
    {"zcu104", "Xilinx ZCU104", "XCZU7EV", PLAN_DSP48E2, 1728, 624, 96, 230400, 460800, 19.2, 200, 4, 128, EFF_SOC},
    /* Ultra96-V2: LPDDR4 32-bit at 2133 MT/s */
    {"ultra96v2", "Avnet Ultra96-V2", "XCZU3EG", PLAN_DSP48E2, 360, 432, 0, 70560, 141120, 8.5, 150, 4, 128, EFF_SOC},
    /* KV260: K26 SOM, DDR4 64-bit at 2400 MT/s */
    {"kv260", "Xilinx Kria KV260 (K26 SOM)", "XCK26", PLAN_DSP48E2, 1248, 288, 64, 117120, 234240, 19.2, 200, 4, 128,
     EFF_SOC},
    /* PYNQ-Z2: DDR3 16-bit at 1050 MT/s */
    {"pynq-z2", "TUL PYNQ-Z2", "XC7Z020", PLAN_DSP48E1, 220, 280, 0, 53200, 106400, 2.1, 100, 4, 64, EFF_SOC},
    /* ZC706: PS DDR3 32-bit at 1066 MT/s (the memory the HP ports reach) */
    {"zc706", "Xilinx ZC706", "XC7Z045", PLAN_DSP48E1, 900, 1090, 0, 218600, 437200, 4.2, 200, 4, 64, EFF_SOC},
    /* Alveo U250: four DDR4-2400 72-bit channels, one 512-bit port each */
    {"u250", "Xilinx Alveo U250", "XCU250", PLAN_DSP48E2, 12288, 5376, 1280, 1728000, 3456000, 77.0, 300, 4, 512,
     EFF_U250},
    /* VCK190: programmable logic of the VC1902, DDR4 DIMM 64-bit at 3200 MT/s, four 128-bit NoC ports */
    {"vck190", "Xilinx VCK190 (PL of VC1902)", "XCVC1902", PLAN_DSP58, 1968, 1934, 463, 899840, 1799680, 25.6, 300, 4,
     128, EFF_SOC},
};

int plan_device_count(void)
{
    return (int)(sizeof devices / sizeof devices[0]);
}

const PlanDevice *plan_device_at(int i)
{
    return i >= 0 && i < plan_device_count() ? &devices[i] : NULL;
}

/* "ZCU-102", "zcu102", "XCZU9EG" all name the same board */
static void squash(const char *s, char *out, size_t n)
{
    size_t j = 0;
    for (; *s && j + 1 < n; s++)
        if (*s != '-' && *s != '_' && *s != ' ')
            out[j++] = (char)tolower((unsigned char)*s);
    out[j] = 0;
}

const PlanDevice *plan_device_find(const char *name)
{
    if (!name)
        return NULL;
    char want[64], have[64];
    squash(name, want, sizeof want);
    for (int i = 0; i < plan_device_count(); i++) {
        squash(devices[i].name, have, sizeof have);
        if (!strcmp(want, have))
            return &devices[i];
        squash(devices[i].part, have, sizeof have);
        if (!strcmp(want, have))
            return &devices[i];
    }
    return NULL;
}

/* ------------------------------------------------------------- DSPs */

/* Multiply lanes one DSP slice provides at the given precision; a value below
 * one means several slices per lane (float on DSP48: fmul 3 + fadd 2). */
static double lanes_per_dsp(PlanDspKind k, IrPrecision prec, int bits)
{
    if (prec == IR_PREC_FLOAT)
        return k == PLAN_DSP58 ? 1.0 : 1.0 / 5.0;
    if (bits <= 8)
        return k == PLAN_DSP58 ? 3.0 : k == PLAN_DSP48E2 ? 2.0 : 1.0;
    return 1.0;
}

double plan_lanes_per_dsp(const PlanDevice *dev, IrPrecision prec, int bits)
{
    return lanes_per_dsp(dev->dsp_kind, prec, bits);
}

int plan_dsp_for_lanes(const PlanDevice *dev, IrPrecision prec, int bits, int64_t lanes)
{
    double per = lanes_per_dsp(dev->dsp_kind, prec, bits);
    return (int)ceil((double)lanes / per - 1e-9);
}

int plan_device_beat(const PlanDevice *dev)
{
    int b = dev->axi_bits / 8;
    return b > 0 ? b : 1;
}

double plan_device_bytes_per_cycle(const PlanDevice *dev, double clock_mhz, double dram_gbps)
{
    double dram = dram_gbps * 1e3 / clock_mhz;   /* GB/s over MHz: bytes per cycle */
    double ports = (double)dev->axi_ports * plan_device_beat(dev) * dev->axi_eff;
    return dram < ports ? dram : ports;
}

/* -------------------------------------------------------- JSON device */

typedef enum { F_STR, F_INT, F_NUM, F_DSPKIND } FieldType;

static const struct {
    const char *key;
    FieldType type;
    size_t off, size;
    bool positive;   /* must be > 0 (else >= 0) */
} fields[] = {
    {"name", F_STR, offsetof(PlanDevice, name), sizeof(((PlanDevice *)0)->name), false},
    {"board", F_STR, offsetof(PlanDevice, board), sizeof(((PlanDevice *)0)->board), false},
    {"part", F_STR, offsetof(PlanDevice, part), sizeof(((PlanDevice *)0)->part), false},
    {"dsp_kind", F_DSPKIND, offsetof(PlanDevice, dsp_kind), 0, false},
    {"dsp", F_INT, offsetof(PlanDevice, dsp), 0, true},
    {"bram18k", F_INT, offsetof(PlanDevice, bram18k), 0, true},
    {"uram", F_INT, offsetof(PlanDevice, uram), 0, false},
    {"lut", F_INT, offsetof(PlanDevice, lut), 0, true},
    {"ff", F_INT, offsetof(PlanDevice, ff), 0, true},
    {"dram_gbps", F_NUM, offsetof(PlanDevice, dram_gbps), 0, true},
    {"clock_mhz", F_NUM, offsetof(PlanDevice, clock_mhz), 0, true},
    {"axi_ports", F_INT, offsetof(PlanDevice, axi_ports), 0, true},
    {"axi_bits", F_INT, offsetof(PlanDevice, axi_bits), 0, true},
    {"axi_eff", F_NUM, offsetof(PlanDevice, axi_eff), 0, true},
};
#define N_FIELDS (sizeof fields / sizeof fields[0])

static int dsp_kind_parse(const char *s, PlanDspKind *k)
{
    static const char *names[] = {"DSP48E1", "DSP48E2", "DSP58"};
    for (int i = 0; i < 3; i++)
        if (!strcasecmp(s, names[i])) {
            *k = (PlanDspKind)i;
            return 0;
        }
    return -1;
}

static int set_field(PlanDevice *dev, int fi, const cJSON *v, const char *path, IrDiag *d)
{
    char *base = (char *)dev + fields[fi].off;
    const char *key = fields[fi].key;
    switch (fields[fi].type) {
    case F_STR:
    case F_DSPKIND:
        if (!cJSON_IsString(v) || !v->valuestring[0]) {
            diag_error(d, path, NULL, NULL, "device key \"%s\" must be a non-empty string", key);
            return -1;
        }
        if (fields[fi].type == F_DSPKIND) {
            if (dsp_kind_parse(v->valuestring, (PlanDspKind *)base)) {
                diag_error(d, path, NULL, NULL, "device key \"dsp_kind\": '%s' is not DSP48E1, DSP48E2 or DSP58",
                           v->valuestring);
                return -1;
            }
            return 0;
        }
        snprintf(base, fields[fi].size, "%s", v->valuestring);
        return 0;
    case F_INT:
    case F_NUM: {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
            diag_error(d, path, NULL, NULL, "device key \"%s\" must be a number", key);
            return -1;
        }
        double x = v->valuedouble;
        bool bad = fields[fi].positive ? !(x > 0) : !(x >= 0);
        if (fields[fi].type == F_INT && (x != floor(x) || x > 1e9))
            bad = true;
        if (!strcmp(key, "axi_eff") && x > 1) {
            diag_error(d, path, NULL, NULL, "device key \"axi_eff\": %g is not in (0, 1]", x);
            return -1;
        }
        if (!strcmp(key, "axi_bits") && (x < 8 || x > 4096 || (int)x % 8)) {
            diag_error(d, path, NULL, NULL, "device key \"axi_bits\": %g is not a multiple of 8 in [8, 4096]", x);
            return -1;
        }
        if (bad) {
            diag_error(d, path, NULL, NULL, "device key \"%s\": %g is not a %s%s", key, x,
                       fields[fi].positive ? "positive " : "non-negative ",
                       fields[fi].type == F_INT ? "integer below 1e9" : "number");
            return -1;
        }
        if (fields[fi].type == F_INT)
            *(int *)base = (int)x;
        else
            *(double *)base = x;
        return 0;
    }
    }
    return -1;
}

static int field_index(const char *key)
{
    for (size_t i = 0; i < N_FIELDS; i++)
        if (!strcmp(fields[i].key, key))
            return (int)i;
    return -1;
}

/* "base": a known device the file starts from; every other key overrides */
static int apply_base(const cJSON *root, PlanDevice *dev, const char *path, IrDiag *d)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "base");
    if (!b)
        return 0;
    const PlanDevice *known = cJSON_IsString(b) ? plan_device_find(b->valuestring) : NULL;
    if (!known) {
        diag_error(d, path, NULL, NULL, "device key \"base\" must name a known device (e.g. \"zcu102\")");
        return -1;
    }
    *dev = *known;
    return 0;
}

static int check_required(const unsigned *seen, bool based, const char *path, IrDiag *d)
{
    static const char *required[] = {"dsp", "bram18k", "lut", "dram_gbps", "clock_mhz"};
    if (based)
        return 0;
    int bad = 0;
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!seen[field_index(required[i])]) {
            diag_error(d, path, NULL, NULL, "device file lacks key \"%s\"", required[i]);
            bad = -1;
        }
    return bad;
}

static int device_from_json(const cJSON *root, PlanDevice *dev, const char *path, IrDiag *d)
{
    if (!cJSON_IsObject(root)) {
        diag_error(d, path, NULL, NULL, "device file must hold one JSON object");
        return -1;
    }
    memset(dev, 0, sizeof *dev);
    snprintf(dev->name, sizeof dev->name, "custom");
    dev->dsp_kind = PLAN_DSP48E2;
    dev->axi_ports = 4;
    dev->axi_bits = 128;
    dev->axi_eff = EFF_SOC;
    if (apply_base(root, dev, path, d))
        return -1;
    bool based = cJSON_GetObjectItemCaseSensitive(root, "base") != NULL;
    unsigned seen[N_FIELDS] = {0};
    int bad = 0;
    for (const cJSON *c = root->child; c; c = c->next) {
        if (!strcmp(c->string, "base"))
            continue;
        int fi = field_index(c->string);
        if (fi < 0) {
            diag_error(d, path, NULL, NULL, "unknown device key \"%s\"", c->string);
            bad = -1;
            continue;
        }
        if (seen[fi]++) {
            diag_error(d, path, NULL, NULL, "device key \"%s\" appears twice", c->string);
            bad = -1;
            continue;
        }
        if (set_field(dev, fi, c, path, d))
            bad = -1;
    }
    if (bad || check_required(seen, based, path, d))
        return -1;
    if (!seen[field_index("ff")] && !based)
        dev->ff = 2 * dev->lut;
    return 0;
}

int plan_device_load(const char *path, PlanDevice *dev, IrDiag *d)
{
    size_t len = 0;
    char *text;
    if (sf_read(path, &SF_DEVICE_FILE, &text, &len, d))
        return -1;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1); /* + the NUL sf_read adds */
    if (!root) {
        size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
        diag_error(d, path, NULL, NULL, "device file is not valid JSON (near byte %zu)", at);
        free(text);
        return -1;
    }
    int rc = device_from_json(root, dev, path, d);
    cJSON_Delete(root);
    free(text);
    return rc;
}
