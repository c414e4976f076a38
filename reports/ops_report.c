/* ops_report.c: the terminal's op groups and modules (see ops_report.h). */
#include "ops_report.h"
#include "findings_text.h"
#include "termtext.h"
#include "textfmt.h"
#include <string.h>

#define OP_ROWS 10
#define MODULE_ROWS 8
#define SHAPES_W 18            /* at 80 columns; half of any width beyond goes to the shapes */
#define SHAPES_MAX 60
#define OPS_FIXED 35           /* the columns besides the op's name and shapes, with their spaces */
#define MODULES_FIXED 33

static double share_of(int64_t a, int64_t b) { return b > 0 ? (double)a / (double)b : 0; }

/* The class cell: "memory", "compute" or "-" without a roofline; "*" when launch-bound. */
static const char *class_cell(char *buf, size_t n, const tc_op_group *g) {
    snprintf(buf, n, "%s%s", !g->has_roofline ? "-" : g->compute_bound ? "compute" : "memory", g->launch_bound ? "*" : "");
    return buf;
}

/* The groups shown whose GPU time differs on one rank (by more than 10% from the ranks' median). */
static void differing(FILE *out, const tc_op_result *o, size_t shown, int width) {
    char line[1600];
    size_t len = 0, n = 0;
    for (size_t i = 0; i < shown && len + 200 < sizeof line; i++) {
        const tc_op_group *g = &o->groups[i];
        if (g->differing_rank < 0) continue;
        char name[4 * 40 + 1];
        tc_term_cell(name, sizeof name, g->op, -40);
        for (size_t k = strlen(name); k > 0 && name[k - 1] == ' ';) name[--k] = 0;
        len += (size_t)snprintf(line + len, sizeof line - len, "%s%s rank %lld", n++ ? ", " : "", name,
                                (long long)g->differing_rank);
    }
    if (!n) return;
    char text[1800];
    snprintf(text, sizeof text, "differs on one rank (GPU time over 10%% off the ranks' median): %s", line);
    tc_term_wrap(out, text, 2, 4, width);
}

static void op_groups(FILE *out, const tc_op_result *o, const char *bold_on, const char *bold_off, int width) {
    int sw = SHAPES_W + (width > 80 ? (width - 80) / 2 : 0);
    if (sw > SHAPES_MAX) sw = SHAPES_MAX;
    int ow = width - OPS_FIXED - sw;
    if (ow < 12) ow = 12;
    size_t shown = o->n_groups < OP_ROWS ? o->n_groups : OP_ROWS;
    const char *names[OP_ROWS];
    for (size_t i = 0; i < shown; i++) names[i] = o->groups[i].op;
    fprintf(out, "\n%sTop op groups%s (by time lost against the roofline, all ranks)\n", bold_on, bold_off);
    fprintf(out, "%-*s %-*s %6s %-8s %6s %10s\n", ow, "op", sw, "shapes", "share", "class", "% att", "lost");
    fprintf(out, "%-*s %-*s %6s %-8s %6s %10s\n", ow, "", sw, "", "% comp", "", "roof", "ms");
    for (size_t i = 0; i < shown; i++) {
        const tc_op_group *g = &o->groups[i];
        char name[4 * 120 + 1], shapes[4 * SHAPES_MAX + 1], sc[TC_PCT_LEN], cls[16], att[TC_PCT_LEN], lost[24];
        tc_term_name_cell(name, sizeof name, g->op, names, shown, -ow);
        tc_term_cell(shapes, sizeof shapes, g->shapes ? g->shapes : "unknown", -sw);
        if (g->has_roofline) tc_fmt_pct_num(att, sizeof att, g->share_of_attainable, 1); else snprintf(att, sizeof att, "-");
        if (g->has_roofline) tc_term_fit(lost, sizeof lost, (double)g->lost_ns / 1e6, 3, 10); else snprintf(lost, sizeof lost, "-");
        fprintf(out, "%s %s %6s %-8s %6s %10s\n", name, shapes, tc_fmt_pct_num(sc, sizeof sc, share_of(g->gpu_ns, o->compute_ns), 1),
                class_cell(cls, sizeof cls, g), att, lost);
    }
    if (o->n_groups > shown) fprintf(out, "  ... %zu more groups in --json and --csv (ops.csv)\n", o->n_groups - shown);
    differing(out, o, shown, width);
    char note[600], p[2][TC_PCT_LEN];
    snprintf(note, sizeof note, "%% comp = the group's GPU time over the summed compute-kernel time (ops hold %s of it, "
             "ops without shapes %s); %% att = its achieved rate over the roof at its arithmetic intensity (memory or "
             "compute, the GPU's peak for its dtype); lost = GPU time x (1 - %% att); * = launch-bound (median kernel "
             "under 10 µs, 10 or more)", tc_fmt_pct(p[0], sizeof p[0], share_of(o->attributed_ns, o->compute_ns), 1),
             tc_fmt_pct(p[1], sizeof p[1], share_of(o->unknown_shapes_ns, o->compute_ns), 1));
    tc_term_wrap(out, note, 2, 4, width);
}

static void modules(FILE *out, const tc_op_result *o, const char *bold_on, const char *bold_off, int width) {
    int pw = width - MODULES_FIXED;
    if (pw < 16) pw = 16;
    size_t shown = o->n_modules < MODULE_ROWS ? o->n_modules : MODULE_ROWS;
    const char *src = o->module_source == TC_MODULES_USER_ANNOTATION ? "user annotation" : "nn.Module instance";
    fprintf(out, "\n%sTop modules%s (%s paths, all ranks)\n", bold_on, bold_off, src);
    fprintf(out, "%-*s %10s %10s %9s\n", pw, "module", "self", "total", "total");
    fprintf(out, "%-*s %10s %10s %9s\n", pw, "", "ms", "ms", "% comp");
    for (size_t i = 0; i < shown; i++) {
        const tc_module_row *m = &o->modules[i];
        char path[4 * 120 + 1], s[24], t[24], sc[TC_PCT_LEN];
        tc_term_cell(path, sizeof path, m->path ? m->path : "(outside every module)", -pw);
        fprintf(out, "%s %10s %10s %9s\n", path, tc_term_fit(s, sizeof s, (double)m->self_ns / 1e6, 3, 10),
                tc_term_fit(t, sizeof t, (double)m->total_ns / 1e6, 3, 10),
                tc_fmt_pct_num(sc, sizeof sc, share_of(m->total_ns, o->compute_ns), 1));
    }
    if (o->n_modules > shown) fprintf(out, "  ... %zu more modules in --json and --csv (modules.csv)\n", o->n_modules - shown);
    tc_term_wrap(out, "self = GPU time of kernels whose innermost module is this one; total = at any depth inside it", 2, 4,
                 width);
}

void tc_ops_text(FILE *out, const tc_job *j, const char *bold_on, const char *bold_off, int width) {
    const tc_op_result *o = &j->ops;
    if (!o->has) return;
    if (o->n_groups) op_groups(out, o, bold_on, bold_off, width);
    if (o->has_modules && o->n_modules) modules(out, o, bold_on, bold_off, width);
}
