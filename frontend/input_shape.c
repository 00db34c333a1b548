/* input_shape.c - parsing of --input-shape NAME=d0,d1,... and --bind
 * NAME=FILE specs. Kept apart from the loader because the CLI and the tests
 * use it without a model. */
#include "frontend.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int fe_parse_input_shape(const char *spec, FeInputShape *s)
{
    memset(s, 0, sizeof *s);
    const char *eq = strchr(spec, '=');
    const char *p = spec;
    if (eq) {
        size_t n = (size_t)(eq - spec);
        if (n == 0 || n >= sizeof s->name)
            return -1;
        memcpy(s->name, spec, n);
        s->name[n] = 0;
        p = eq + 1;
    }
    for (;;) {
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || v <= 0 || v > (1LL << 40) || s->rank == IR_MAX_RANK)
            return -1;
        s->dims[s->rank++] = v;
        if (*end == 0)
            return 0;
        if (*end != ',' && *end != 'x')
            return -1;
        p = end + 1;
    }
}

int fe_parse_bind(const char *spec, FeBind *b)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        return -1;
    b->name = spec;
    b->name_len = (size_t)(eq - spec);
    b->path = eq + 1;
    return 0;
}
