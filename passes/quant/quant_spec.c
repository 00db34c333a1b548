/* quant_spec.c - per-layer precision: --precision for every layer, then
 * the lines of --precision-spec ("LAYER_NAME PRECISION", '*' for the
 * default, '#' comments) for mixed precision.
 *
 * Why by name: the user knows the ONNX node names (onnx2hls inspect lists
 * them); a layer matches a line when its name, or any ONNX node folded
 * into it (IrLayer.origin), is the line's name. A name that matches no
 * layer is a warning, not an error, so one spec can serve variants of a
 * model; a bad precision is an error naming the file and line. */
#include "quant_internal.h"
#include "ir/sidefile.h"

#include <stdlib.h>
#include <string.h>

static bool origin_has(const char *origin, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = origin; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

static void set_all(IrGraph *g, QuantPrec p)
{
    for (int l = 0; l < g->n_layers; l++) {
        g->layers[l].prec = p.prec;
        g->layers[l].bits = p.bits;
    }
}

static int set_named(IrGraph *g, const char *name, QuantPrec p)
{
    int hits = 0;
    for (int l = 0; l < g->n_layers; l++) {
        IrLayer *L = &g->layers[l];
        if (!L->dead && (!strcmp(L->name, name) || origin_has(L->origin, name))) {
            L->prec = p.prec;
            L->bits = p.bits;
            hits++;
        }
    }
    return hits;
}

/* "NAME PREC" (NAME quoted when it holds blanks or '#': ir/sidefile.h);
 * 0 ok, 1 blank/comment, -1 malformed; *star for a bare '*' */
static int split_line(char *s, char **name, char **prec, bool *star)
{
    char *f[2];
    bool quoted[2];
    int n = sf_fields(s, f, quoted, 2);
    if (n == 0)
        return 1;
    if (n != 2)
        return -1;
    *name = f[0];
    *prec = f[1];
    *star = !quoted[0] && !strcmp(f[0], "*");
    return 0;
}

/* '*' lines first (the default), named lines after, in file order */
static int read_spec(IrGraph *g, const char *path, int pass, IrDiag *d)
{
    char *text, *cur, *line;
    size_t len;
    if (sf_read(path, &SF_PRECISION_SPEC, &text, &len, d))
        return -1;
    int ln = 0, rc = 0;
    cur = text;
    while ((line = sf_next_line(&cur))) {
        ln++;
        char *name, *ps;
        QuantPrec p;
        bool star;
        int r = split_line(line, &name, &ps, &star);
        if (r == 1)
            continue;
        if (r < 0 || pass_quant_parse_prec(ps, &p)) {
            diag_error(d, path, NULL, NULL, "line %d: expected 'LAYER_NAME PRECISION' with PRECISION one of "
                                            "float, int8, int16, dfxp8, dfxp12, dfxp14, dfxp16", ln);
            rc = -1;
            continue;
        }
        if (pass == 0 && star)
            set_all(g, p);
        else if (pass == 1 && !star && set_named(g, name, p) == 0)
            diag_warn(d, path, NULL, NULL, "line %d: no layer named '%s'", ln, name);
    }
    free(text);
    return rc;
}

int quant_apply_spec(IrGraph *g, const QuantOptions *o, IrDiag *d)
{
    set_all(g, o->prec);
    if (!o->spec)
        return 0;
    if (read_spec(g, o->spec, 0, d))
        return -1;
    return read_spec(g, o->spec, 1, d);
}
