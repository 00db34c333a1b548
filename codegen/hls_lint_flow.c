/* hls_lint_flow.c - the lint's rules about the whole design, checked after
 * every file is read (see hls_lint_int.h): recursion (call-graph cycles
 * across files), the top function (its interface, and INTERFACE pragmas
 * nowhere else), and the channels of each DATAFLOW region.
 *
 * A channel is a local variable declared in the region and passed to its
 * calls. Whether a call writes or reads it comes from the callee's
 * parameter: what the callee's body does with it (assigned through = write,
 * anything else = read, handed to another callee = what that one does,
 * solved to a fixed point over all functions), or, for a callee defined
 * nowhere in the linted code, its prototype (pointer to const = read,
 * other pointers = write, by value = read). Canonical form (UG1399, UG1448
 * 200-989): one writer and one reader per channel, the writer called before
 * the reader, and the reader the very next process after the writer - unless
 * the channel is a FIFO of a given depth (STREAM variable= depth=): a
 * ping-pong buffer that skips processes is a bypass, a sized FIFO is the
 * pass-through channel a skipped path needs (a residual branch, a fan-out;
 * its depth must cover the other path's delay, which is what onnx2hls's
 * dataflow simulation sizes). */
#include "hls_lint_int.h"

#include <stdlib.h>
#include <string.h>

static int fn_index(const Lint *L, const char *key)
{
    for (int i = 0; i < L->n_fns; i++)
        if (!strcmp(L->fns[i].key, key))
            return i;
    return -1;
}

/* --------------------------------------------------------- recursion */

typedef struct {
    const Lint *L;
    int *index, *low, *stack, *on, *comp;
    int n_stack, counter, n_comp;
} Scc;

static void scc_visit(Scc *s, int v)
{
    s->index[v] = s->low[v] = s->counter++;
    s->stack[s->n_stack++] = v;
    s->on[v] = 1;
    const LintFn *f = &s->L->fns[v];
    for (int e = 0; e < f->n_calls; e++) {
        int w = fn_index(s->L, f->calls[e].callee);
        if (w < 0)
            continue;
        if (s->index[w] < 0) {
            scc_visit(s, w);
            s->low[v] = s->low[v] < s->low[w] ? s->low[v] : s->low[w];
        } else if (s->on[w] && s->index[w] < s->low[v]) {
            s->low[v] = s->index[w];
        }
    }
    if (s->low[v] != s->index[v])
        return;
    int w;
    do {
        w = s->stack[--s->n_stack];
        s->on[w] = 0;
        s->comp[w] = s->n_comp;
    } while (w != v);
    s->n_comp++;
}

/* a call of f into component c (the edge that closes the cycle), -1 if none */
static int edge_into(const Lint *L, const LintFn *f, const int *comp, int c)
{
    for (int e = 0; e < f->n_calls; e++) {
        int w = fn_index(L, f->calls[e].callee);
        if (w >= 0 && comp[w] == c)
            return e;
    }
    return -1;
}

static void report_cycle(Lint *L, const int *comp, int c)
{
    char names[1024] = "";
    int first = -1, size = 0;
    for (int i = 0; i < L->n_fns; i++)
        if (comp[i] == c) {
            size++;
            if (first < 0)
                first = i;
            size_t k = strlen(names);
            snprintf(names + k, sizeof names - k, "%s%s", k ? ", " : "", L->fns[i].name);
        }
    const LintFn *f = &L->fns[first];
    int e = edge_into(L, f, comp, c);
    if (e < 0 || (size == 1 && fn_index(L, f->calls[e].callee) != first))
        return;
    lint_find(L, &f->calls[e].at, "recursion",
              size == 1 ? "%s calls itself: Vitis HLS does not synthesize recursion" :
                          "call cycle between %s: Vitis HLS does not synthesize recursion",
              names);
}

static void check_recursion(Lint *L)
{
    int n = L->n_fns;
    Scc s = {L, NULL, NULL, NULL, NULL, NULL, 0, 0, 0};
    int *mem = lint_realloc(NULL, 5 * (size_t)(n ? n : 1) * sizeof *mem);
    s.index = mem, s.low = mem + n, s.stack = mem + 2 * n, s.on = mem + 3 * n, s.comp = mem + 4 * n;
    for (int i = 0; i < n; i++)
        s.index[i] = -1, s.on[i] = 0;
    for (int i = 0; i < n; i++)
        if (s.index[i] < 0)
            scc_visit(&s, i);
    for (int c = 0; c < s.n_comp; c++)
        report_cycle(L, s.comp, c);
    free(mem);
}

/* --------------------------------------------------------------- top */

static int find_named(const Lint *L, const char *name)
{
    for (int i = 0; i < L->n_fns; i++)
        if (!strcmp(L->fns[i].name, name))
            return i;
    return -1;
}

/* the top: --top, else the function with INTERFACE pragmas, else syn.top;
 * -1 if none, -2 on bad input (reported) */
static int choose_top(Lint *L)
{
    const char *name = L->opt->top;
    if (!name) {
        int top = -1;
        for (int i = 0; i < L->n_fns; i++) {
            if (!L->fns[i].n_interface)
                continue;
            if (top >= 0) {
                diag_error(L->d, L->path, NULL, NULL,
                           "both %s and %s carry #pragma HLS INTERFACE: name the top with --top",
                           L->fns[top].name, L->fns[i].name);
                return -2;
            }
            top = i;
        }
        if (top >= 0)
            return top;
        name = L->cfg_top;
    }
    if (!name)
        return -1;
    int i = find_named(L, name);
    if (i < 0)   /* named by the cfg's syn.top, or by --top for the files of path */
        diag_error(L->d, L->opt->top ? L->path : L->cfg_path, NULL, NULL,
                   "top function %s is not defined in the linted files%s", name,
                   L->opt->top ? " (--top)" : " (syn.top)");
    return i < 0 ? -2 : i;
}

static void check_top(Lint *L, int top)
{
    for (int i = 0; i < L->n_fns; i++) {
        const LintFn *f = &L->fns[i];
        for (int j = 0; j < f->n_interface && i != top; j++)
            lint_find(L, &f->interface_at[j], "interface-top",
                      "#pragma HLS INTERFACE in %s, which is not the top%s%s: INTERFACE belongs on the top only",
                      f->name, top >= 0 ? " " : "", top >= 0 ? L->fns[top].name : "");
    }
    if (top < 0)
        return;
    const LintFn *t = &L->fns[top];
    for (int j = 0; j < t->n_iface; j++)
        lint_find(L, &t->iface[j].at, t->iface[j].rule, "%s", t->iface[j].msg);
}

/* ------------------------------------------------ parameter access */

static int fwd_access(const Lint *L, const LintFwd *f)
{
    int c = fn_index(L, f->callee);
    if (c < 0 || f->arg >= L->fns[c].n_params)
        return f->fallback;
    return L->fns[c].acc[f->arg];
}

/* access(f, k) |= access(callee, arg) for each forwarded parameter, to a fixed point */
static void solve_access(Lint *L)
{
    bool changed = true;
    for (int round = 0; changed && round < 64; round++) {
        changed = false;
        for (int i = 0; i < L->n_fns; i++) {
            LintFn *f = &L->fns[i];
            for (int j = 0; j < f->n_fwd; j++) {
                int p = f->fwd[j].param, a = fwd_access(L, &f->fwd[j]);
                if (p < f->n_params && (f->acc[p] | a) != f->acc[p]) {
                    f->acc[p] |= (unsigned char)a;
                    changed = true;
                }
            }
        }
    }
}

/* -------------------------------------------------------- DATAFLOW */

/* access of call c to channel k: the OR over the arguments naming it */
static int call_access(const Lint *L, const LintCall *c, int k)
{
    int fn = fn_index(L, c->callee), acc = 0;
    for (int j = 0; j < c->n_args; j++) {
        if (c->args[j].chan != k)
            continue;
        bool known = fn >= 0 && j < L->fns[fn].n_params;
        acc |= known ? L->fns[fn].acc[j] : c->args[j].fallback;
    }
    return acc;
}

static const char *callee_name(const LintCall *c)
{
    const char *h = strrchr(c->callee, '#');
    return h ? h + 1 : c->callee;
}

static void check_channel(Lint *L, const LintRegion *r, int k)
{
    int writer = -1, reader = -1, n_w = 0, n_r = 0;
    const char *ch = r->chan[k];
    for (int i = 0; i < r->n_calls; i++) {
        int a = call_access(L, &r->calls[i], k);
        if ((a & ACC_READ) && (a & ACC_WRITE))
            lint_find(L, &r->calls[i].at, "dataflow-channel",
                      "%s both reads and writes channel %s: a process either produces or consumes a channel",
                      callee_name(&r->calls[i]), ch);
        if (a & ACC_WRITE)
            n_w++, writer = writer < 0 ? i : writer;
        if (a & ACC_READ)
            n_r++, reader = reader < 0 ? i : reader;
    }
    if (!n_w && !n_r)
        return;
    if (n_w != 1 || n_r != 1)
        lint_find(L, &r->chan_at[k], "dataflow-channel",
                  "channel %s has %d writer(s) and %d reader(s) in the DATAFLOW region: exactly one of each", ch, n_w, n_r);
    if (n_w != 1 || n_r != 1 || writer == reader)
        return;
    if (reader < writer)
        lint_find(L, &r->calls[reader].at, "dataflow-order", "%s reads channel %s before %s (line %u) writes it",
                  callee_name(&r->calls[reader]), ch, callee_name(&r->calls[writer]), r->calls[writer].at.line);
    else if (reader > writer + 1 && !r->chan_fifo[k])
        lint_find(L, &r->calls[reader].at, "dataflow-bypass",
                  "channel %s goes from %s (line %u) to %s past %d process(es) between them: make it a FIFO with a "
                  "depth that covers the path it skips (STREAM variable= depth=), or pass it through them",
                  ch, callee_name(&r->calls[writer]), r->calls[writer].at.line, callee_name(&r->calls[reader]),
                  reader - writer - 1);
}

static void check_regions(Lint *L)
{
    for (int i = 0; i < L->n_regions; i++)
        for (int k = 0; k < L->regions[i].n_chan; k++)
            check_channel(L, &L->regions[i], k);
}

void lint_design(Lint *L)
{
    check_recursion(L);
    int top = choose_top(L);
    if (top == -2)
        return;
    if (top >= 0)
        L->res->top = lint_strdup(L->fns[top].name);
    check_top(L, top);
    solve_access(L);
    check_regions(L);
}
