/* compare_report.c: text, JSON and HTML writers of `tracecost compare` (see compare_report.h).
 * One metric table drives all three so they always show the same rows. */
#include "compare_report.h"
#include "cost_report.h"
#include "jsonw.h"
#include "html_report.h"
#include "termtext.h"
#include "textfmt.h"
#include "base/version.h"
#include <math.h>
#include <string.h>

typedef enum { F_MS, F_SHARE, F_GBPS, F_MONEY, F_RATE, F_NUM, F_TFLOPS } fmt_kind;

typedef struct {
    const char *key;     /* JSON key under "metrics" */
    const char *label;   /* text/HTML label */
    fmt_kind kind;
    size_t off;          /* offsetof the tc_cmp_pair in tc_comparison */
    const char *how;     /* how it is computed, for the HTML definitions */
} metric;

#define M(k, l, f, field, how) {k, l, f, offsetof(tc_comparison, field), how}
static const metric metrics[] = {
    M("gpus", "GPUs", F_NUM, gpus, "world size (ranks, or distributedInfo.world_size)"),
    M("step_time_us", "step time", F_MS, step_time_us, "mean ProfilerStep time over ranks"),
    M("steps_per_s", "steps/s", F_RATE, steps_per_s, "1 / step time (every GPU does one step per step time)"),
    M("gpu_s_per_step", "GPU-seconds per step", F_RATE, gpu_s_per_step, "GPUs x step time in s"),
    M("tflops_per_gpu", "TFLOP/s per GPU", F_TFLOPS, tflops_per_gpu, "FLOPs per step per GPU / step time / 1e12"),
    M("mfu", "MFU", F_SHARE, mfu, "model FLOPs utilization (analyze)"),
    M("share_compute", "compute", F_SHARE, share_compute, "share of the summed GPU windows"),
    M("share_exposed_transfer", "exposed transfer", F_SHARE, share_exposed_transfer, "collectives moving bytes, not hidden by compute"),
    M("share_exposed_wait", "exposed wait", F_SHARE, share_exposed_wait, "collectives waiting for peers"),
    M("share_exposed_comm", "exposed comm (total)", F_SHARE, share_exposed_comm, "transfer + wait"),
    M("share_memory", "exposed memory", F_SHARE, share_memory, "memory copies not hidden by compute"),
    M("share_idle", "idle", F_SHARE, share_idle, "no GPU activity"),
    M("fabric_busbw_GBps", "fabric busbw", F_GBPS, busbw_GBps, "measured bus bandwidth, GB = 1e9 B"),
    M("price_per_gpu_hour", "price per GPU-hour", F_MONEY, price_per_gpu_hour, "P used by each side's cost model"),
    M("cost_per_step", "cost per step", F_MONEY, cost_per_step, "P x N x step s / 3600"),
    M("cost_per_effective_gpu_hour", "cost per effective GPU-hour", F_MONEY, cost_per_effective_gpu_hour, "P / e, e = 1 - exposed transfer share"),
};
#undef M
#define N_METRICS (sizeof metrics / sizeof metrics[0])

static const tc_cmp_pair *pair_of(const tc_comparison *c, const metric *m) {
    return (const tc_cmp_pair *)((const char *)c + m->off);
}

static void fmt_val(char *buf, size_t n, fmt_kind k, bool has, double v) {
    if (!has) { snprintf(buf, n, "n/a"); return; }
    switch (k) {
    case F_MS: snprintf(buf, n, "%.3f ms", v / 1e3); break;
    case F_SHARE: snprintf(buf, n, "%.1f%%", v * 100); break;
    case F_GBPS: snprintf(buf, n, "%.1f GB/s", v); break;
    case F_MONEY: tc_cmp_fmt_money(buf, n, v); break;
    case F_RATE: snprintf(buf, n, "%.4g", v); break;
    case F_TFLOPS: snprintf(buf, n, "%.1f", v); break;
    case F_NUM: snprintf(buf, n, "%.0f", v); break;
    }
}

static void fmt_diff(char *buf, size_t n, fmt_kind k, const tc_cmp_pair *p) {
    if (!p->has_diff) { snprintf(buf, n, "-"); return; }
    char v[48];
    if (k == F_SHARE) snprintf(v, sizeof v, "%+.1f pt", p->diff * 100);
    else if (k == F_MONEY) { tc_cmp_fmt_money(v + 1, sizeof v - 1, fabs(p->diff)); v[0] = p->diff < 0 ? '-' : '+'; }
    else if (k == F_MS) snprintf(v, sizeof v, "%+.3f ms", p->diff / 1e3);
    else if (k == F_GBPS) snprintf(v, sizeof v, "%+.1f GB/s", p->diff);
    else snprintf(v, sizeof v, "%+.4g", p->diff);
    snprintf(buf, n, "%s", v);
}

static void fmt_ratio(char *buf, size_t n, const tc_cmp_pair *p) {
    if (p->has_ratio) snprintf(buf, n, "%.3fx", p->ratio); else snprintf(buf, n, "-");
}

/* One metric's row as text: A, B, B - A and B / A; false when neither side has it (no row). */
typedef struct { char a[48], b[48], diff[48], ratio[24]; } row_text;
static bool format_row(const tc_comparison *c, size_t i, row_text *t) {
    const tc_cmp_pair *p = pair_of(c, &metrics[i]);
    if (!p->has_a && !p->has_b) return false;
    fmt_val(t->a, sizeof t->a, metrics[i].kind, p->has_a, p->a);
    fmt_val(t->b, sizeof t->b, metrics[i].kind, p->has_b, p->b);
    fmt_diff(t->diff, sizeof t->diff, metrics[i].kind, p);
    fmt_ratio(t->ratio, sizeof t->ratio, p);
    return true;
}

static const char *side_kind(const tc_run_summary *s) { return s->from_json ? "saved result" : "traces"; }

/* ---- text -------------------------------------------------------------------------------- */

/* "A: samples/ (traces), NVIDIA H100 80GB HBM3", wrapped: the label is a path and the device a
 * trace string, so both go through the cleaner. */
static void text_side(FILE *out, char which, const tc_run_summary *s) {
    char line[2048];
    snprintf(line, sizeof line, "%c: %s (%s)%s%s", which, s->label ? s->label : "?", side_kind(s),
             s->device ? ", " : "", s->device ? s->device : "");
    tc_term_wrap(out, line, 0, 3, TC_TERM_WIDTH);
}

/* A collective's size for the text table: its bytes, or "?" when the trace gave none. */
static const char *bytes_cell(char *buf, size_t n, long long bytes) {
    if (bytes < 0) snprintf(buf, n, "?"); else snprintf(buf, n, "%lld", bytes);
    return buf;
}

/* Layout of the terminal output (every line fits TC_TERM_WIDTH columns): the metric table is
 * 28 + 3 x 17 + 10 = 89 columns, the collectives table 18 + 13 + 11 + 2 x 10 + 8 + 2 x 8 + 11 = 97. */
#define COLL_NAME_COLS 18
#define COLL_GROUP_COLS 12

/* The process group(s) of a collectives row: one side's, or "A's / B's" when matched across
 * different groups. */
static void group_of(char *buf, size_t n, const tc_cmp_coll_row *r) {
    const char *ga = r->a ? r->a->process_group : NULL, *gb = r->b ? r->b->process_group : NULL;
    if (r->a && r->b && !(ga && gb && !strcmp(ga, gb)) && (ga || gb))
        snprintf(buf, n, "%s / %s", ga ? ga : "-", gb ? gb : "-");
    else snprintf(buf, n, "%s", ga ? ga : gb ? gb : "-");
}

void tc_compare_text_write(FILE *out, const tc_comparison *c, bool color) {
    const char *B0 = color ? "\033[1m" : "", *B1 = color ? "\033[0m" : "";
    if (!c->same_workload) {
        fprintf(out, "%sNOT THE SAME WORKLOAD:%s per-step figures compare different work\n", B0, B1);
        for (size_t i = 0; i < c->n_differences; i++) {
            fputs("  - ", out);
            tc_term_wrap_from(out, c->differences[i], 4, 4, TC_TERM_WIDTH);
        }
        fprintf(out, "\n");
    }
    fprintf(out, "%sConclusion:%s ", B0, B1);
    tc_term_wrap_from(out, c->conclusion, 12, 2, TC_TERM_WIDTH);
    fputc('\n', out);
    text_side(out, 'A', c->a);
    text_side(out, 'B', c->b);
    fputc('\n', out);
    fprintf(out, "%-28s %16s %16s %16s %9s\n", "", "A", "B", "B - A", "B / A");
    row_text t;
    for (size_t i = 0; i < N_METRICS; i++)
        if (format_row(c, i, &t)) fprintf(out, "%-28s %16s %16s %16s %9s\n", metrics[i].label, t.a, t.b, t.diff, t.ratio);
    char sa[32], sb[32];
    if (c->a->has_straggler) snprintf(sa, sizeof sa, "rank %lld", c->a->straggler_rank); else snprintf(sa, sizeof sa, "none");
    if (c->b->has_straggler) snprintf(sb, sizeof sb, "rank %lld", c->b->straggler_rank); else snprintf(sb, sizeof sb, "none");
    fprintf(out, "%-28s %16s %16s\n", "straggler", sa, sb);
    /* a saved result's verdict is whatever its JSON said: a cell, cleaned and cut */
    char vda[4 * 16 + 1], vdb[4 * 16 + 1];
    fprintf(out, "%-28s %s %s\n", "verdict", tc_term_cell(vda, sizeof vda, c->a->verdict, 16),
            tc_term_cell(vdb, sizeof vdb, c->b->verdict, 16));

    if (c->n_colls) {
        fprintf(out, "\nCollectives (matched by name and bytes; transfer = median of the fastest rank's kernel)\n");
        fprintf(out, "%-*s %-*s %10s %9s %9s %7s %7s %7s  %s\n", COLL_NAME_COLS, "collective", COLL_GROUP_COLS, "group",
                "bytes", "A xfer us", "B xfer us", "B / A", "A busbw", "B busbw", "change");
        for (size_t i = 0; i < c->n_colls; i++) {
            const tc_cmp_coll_row *r = &c->colls[i];
            const tc_cmp_coll *x = r->a ? r->a : r->b;
            char name[4 * COLL_NAME_COLS + 1], grp[4 * COLL_GROUP_COLS + 1], g[1024], by[24];
            char ta[24] = "-", tb[24] = "-", rt[24] = "-", ba[24] = "-", bb[24] = "-";
            if (r->a) tc_term_fit(ta, sizeof ta, r->a->transfer_us_median, 1, 9);
            if (r->b) tc_term_fit(tb, sizeof tb, r->b->transfer_us_median, 1, 9);
            if (r->transfer_us.has_ratio) {
                tc_term_fit(rt, sizeof rt - 1, r->transfer_us.ratio, 3, 6);
                strcat(rt, "x");
            }
            if (r->busbw_GBps.has_a) tc_term_fit(ba, sizeof ba, r->busbw_GBps.a, 1, 7);
            if (r->busbw_GBps.has_b) tc_term_fit(bb, sizeof bb, r->busbw_GBps.b, 1, 7);
            group_of(g, sizeof g, r);
            fprintf(out, "%s %s %10s %9s %9s %7s %7s %7s  %s\n", tc_term_cell(name, sizeof name, x->name, -COLL_NAME_COLS),
                    tc_term_cell(grp, sizeof grp, g, -COLL_GROUP_COLS), bytes_cell(by, sizeof by, x->bytes), ta, tb, rt,
                    ba, bb, r->change);
        }
    }

    fprintf(out, "\nCost per unit of work (each side with its own prices)\n");
    if (!c->a->has_cost) { fputs("  A: ", out); tc_term_wrap_from(out, c->a->cost_note, 5, 5, TC_TERM_WIDTH); }
    if (!c->b->has_cost) { fputs("  B: ", out); tc_term_wrap_from(out, c->b->cost_note, 5, 5, TC_TERM_WIDTH); }
    char w[48], m[48], line[512];
    tc_fmt_grouped(w, sizeof w, c->work_steps_per_month, 0);
    if (c->has_monthly_diff) {
        tc_cmp_fmt_money(m, sizeof m, fabs(c->monthly_diff));
        snprintf(line, sizeof line, "at %s steps a month (%s), B costs %s a month %s than A", w,
                 c->work_from_flag ? "--work-steps-per-month" : "A's month at its utilization", m,
                 c->monthly_diff < 0 ? "less" : "more");
        tc_term_wrap(out, line, 2, 4, TC_TERM_WIDTH);
    } else fprintf(out, "  monthly difference: n/a (cost per step unknown on a side)\n");
}

/* ---- JSON -------------------------------------------------------------------------------- */

static void json_pair(jw *w, const tc_cmp_pair *p) {
    jw_object_begin(w);
    jw_key(w, "a"); if (p->has_a) jw_double(w, p->a); else jw_null(w);
    jw_key(w, "b"); if (p->has_b) jw_double(w, p->b); else jw_null(w);
    jw_key(w, "diff"); if (p->has_diff) jw_double(w, p->diff); else jw_null(w);
    jw_key(w, "ratio"); if (p->has_ratio) jw_double(w, p->ratio); else jw_null(w);
    jw_object_end(w);
}

static void json_side(jw *w, const tc_run_summary *s) {
    jw_object_begin(w);
    jw_key(w, "label"); jw_string(w, s->label);
    jw_key(w, "source"); jw_string(w, side_kind(s));
    jw_key(w, "tool_version"); jw_string(w, s->tool_version);
    jw_key(w, "device"); jw_string(w, s->device);
    jw_key(w, "gpus"); jw_int(w, s->world_size);
    jw_key(w, "verdict"); jw_string(w, s->verdict);
    jw_key(w, "straggler_rank"); if (s->has_straggler) jw_int(w, s->straggler_rank); else jw_null(w);
    jw_key(w, "flops_per_step"); if (s->has_flops) jw_double(w, s->flops_per_step); else jw_null(w);
    jw_key(w, "cost");
    if (s->has_cost) tc_cost_result_json(w, s->cost); else jw_null(w);
    jw_key(w, "cost_note"); if (s->has_cost) jw_null(w); else jw_string(w, s->cost_note);
    jw_object_end(w);
}

int tc_compare_json_write(FILE *out, const tc_comparison *c) {
    jw w;
    jw_init(&w, out, true);
    jw_object_begin(&w);
    jw_key(&w, "schema"); jw_string(&w, TC_COMPARE_SCHEMA);
    jw_key(&w, "tool_version"); jw_string(&w, TC_VERSION);
    jw_key(&w, "same_workload"); jw_bool(&w, c->same_workload);
    jw_key(&w, "workload_differences");
    jw_array_begin(&w);
    for (size_t i = 0; i < c->n_differences; i++) jw_string(&w, c->differences[i]);
    jw_array_end(&w);
    jw_key(&w, "conclusion"); jw_string(&w, c->conclusion);
    jw_key(&w, "cheaper");
    if (c->cheaper == 'A') jw_string(&w, "A");
    else if (c->cheaper == 'B') jw_string(&w, "B");
    else if (c->cheaper == '=') jw_string(&w, "same");
    else jw_null(&w);
    jw_key(&w, "cheaper_by"); jw_string(&w, c->cheaper == '?' ? NULL : c->by_cost ? "cost_per_step" : "gpu_seconds_per_step");
    jw_key(&w, "cheaper_pct"); if (c->cheaper == '?') jw_null(&w); else jw_double(&w, c->cheaper_pct);
    jw_key(&w, "reason"); jw_string(&w, c->reason_key[0] ? c->reason_key : NULL);
    jw_key(&w, "a"); json_side(&w, c->a);
    jw_key(&w, "b"); json_side(&w, c->b);
    jw_key(&w, "metrics");
    jw_object_begin(&w);
    for (size_t i = 0; i < N_METRICS; i++) { jw_key(&w, metrics[i].key); json_pair(&w, pair_of(c, &metrics[i])); }
    jw_key(&w, "straggler_rank");
    jw_object_begin(&w);
    jw_key(&w, "a"); if (c->a->has_straggler) jw_int(&w, c->a->straggler_rank); else jw_null(&w);
    jw_key(&w, "b"); if (c->b->has_straggler) jw_int(&w, c->b->straggler_rank); else jw_null(&w);
    jw_object_end(&w);
    jw_key(&w, "verdict");
    jw_object_begin(&w);
    jw_key(&w, "a"); jw_string(&w, c->a->verdict);
    jw_key(&w, "b"); jw_string(&w, c->b->verdict);
    jw_object_end(&w);
    jw_object_end(&w);
    jw_key(&w, "work_steps_per_month"); if (c->work_steps_per_month > 0) jw_double(&w, c->work_steps_per_month); else jw_null(&w);
    jw_key(&w, "work_steps_per_month_source"); jw_string(&w, c->work_from_flag ? "flag" : "default: A's month at its utilization");
    jw_key(&w, "monthly_difference"); if (c->has_monthly_diff) jw_double(&w, c->monthly_diff); else jw_null(&w);
    jw_key(&w, "collectives");
    jw_array_begin(&w);
    for (size_t i = 0; i < c->n_colls; i++) {
        const tc_cmp_coll_row *r = &c->colls[i];
        const tc_cmp_coll *x = r->a ? r->a : r->b;
        jw_object_begin(&w);
        jw_key(&w, "name"); jw_string(&w, x->name);
        jw_key(&w, "bytes"); if (x->bytes >= 0) jw_int(&w, x->bytes); else jw_null(&w);
        jw_key(&w, "process_group_a"); jw_string(&w, r->a ? r->a->process_group : NULL);
        jw_key(&w, "process_group_b"); jw_string(&w, r->b ? r->b->process_group : NULL);
        jw_key(&w, "transfer_us_median"); json_pair(&w, &r->transfer_us);
        jw_key(&w, "busbw_GBps"); json_pair(&w, &r->busbw_GBps);
        jw_key(&w, "change"); jw_string(&w, r->change);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    jw_object_end(&w);
    return jw_finish(&w);
}

/* ---- HTML -------------------------------------------------------------------------------- */

/* Every string that may come from a trace or a saved result (labels, device, verdict, collective
 * names, groups, notes) goes through html_report's one escaper. NULL writes nothing. */
static void html_esc(FILE *out, const char *s) {
    if (s) tc_html_escape(out, s, strlen(s), 0);
}

int tc_compare_html_write(FILE *out, const tc_comparison *c) {
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<title>tracecost compare</title>\n<style>\n"
          "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1000px;color:#222;padding:0 1em}\n"
          "h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.8em;border-bottom:1px solid #ddd}\n"
          "table{border-collapse:collapse;width:100%}th,td{padding:.25em .6em;border-bottom:1px solid #eee;text-align:right}\n"
          "th:first-child,td:first-child{text-align:left}th{background:#f5f5f5}\n"
          ".warn{background:#fde8e8;border:2px solid #c0392b;color:#7b1d12;padding:.7em 1em;font-weight:bold}\n"
          ".concl{background:#eef6ee;border-left:4px solid #2e7d32;padding:.7em 1em}\n"
          ".better{color:#2e7d32}.worse{color:#c0392b}.muted{color:#777;font-size:.9em}\n"
          "</style></head><body>\n<h1>tracecost compare</h1>\n", out);
    if (!c->same_workload) {
        fputs("<div class=\"warn\">NOT THE SAME WORKLOAD: per-step figures compare different work<ul>", out);
        for (size_t i = 0; i < c->n_differences; i++) { fputs("<li>", out); html_esc(out, c->differences[i]); fputs("</li>", out); }
        fputs("</ul></div>\n", out);
    }
    fputs("<p class=\"concl\">", out);
    html_esc(out, c->conclusion);
    fputs("</p>\n<p>A: <b>", out);
    html_esc(out, c->a->label);
    fprintf(out, "</b> (%s) ", side_kind(c->a));
    html_esc(out, c->a->device);
    fputs("<br>B: <b>", out);
    html_esc(out, c->b->label);
    fprintf(out, "</b> (%s) ", side_kind(c->b));
    html_esc(out, c->b->device);
    fputs("</p>\n<h2>Side by side</h2>\n<table><tr><th>metric</th><th>A</th><th>B</th><th>B &minus; A</th><th>B / A</th><th>how</th></tr>\n", out);
    row_text t;
    for (size_t i = 0; i < N_METRICS; i++) {
        if (!format_row(c, i, &t)) continue;
        fprintf(out, "<tr><td>%s</td><td>", metrics[i].label);
        html_esc(out, t.a);
        fputs("</td><td>", out);
        html_esc(out, t.b);
        fputs("</td><td>", out);
        html_esc(out, t.diff);
        fprintf(out, "</td><td>%s</td><td class=\"muted\">%s</td></tr>\n", t.ratio, metrics[i].how);
    }
    fputs("<tr><td>straggler</td><td>", out);
    if (c->a->has_straggler) fprintf(out, "rank %lld", c->a->straggler_rank); else fputs("none", out);
    fputs("</td><td>", out);
    if (c->b->has_straggler) fprintf(out, "rank %lld", c->b->straggler_rank); else fputs("none", out);
    fputs("</td><td></td><td></td><td></td></tr>\n<tr><td>verdict</td><td>", out);
    html_esc(out, c->a->verdict);
    fputs("</td><td>", out);
    html_esc(out, c->b->verdict);
    fputs("</td><td></td><td></td><td></td></tr>\n</table>\n", out);
    if (c->n_colls) {
        fputs("<h2>Collectives</h2>\n<p class=\"muted\">Matched by name and bytes (the same process group preferred); "
              "transfer = median of the fastest rank's kernel, busbw per nccl-tests.</p>\n"
              "<table><tr><th>collective</th><th>bytes</th><th>A transfer &micro;s</th><th>B transfer &micro;s</th>"
              "<th>B / A</th><th>A busbw GB/s</th><th>B busbw GB/s</th><th>change</th><th>group</th></tr>\n", out);
        for (size_t i = 0; i < c->n_colls; i++) {
            const tc_cmp_coll_row *r = &c->colls[i];
            const tc_cmp_coll *x = r->a ? r->a : r->b;
            char rt[24];
            fmt_ratio(rt, sizeof rt, &r->transfer_us);
            fputs("<tr><td>", out);
            html_esc(out, x->name);
            if (x->bytes >= 0) fprintf(out, "</td><td>%lld</td><td>", x->bytes); else fputs("</td><td>unknown</td><td>", out);
            if (r->a) fprintf(out, "%.1f", r->a->transfer_us_median); else fputs("-", out);
            fputs("</td><td>", out);
            if (r->b) fprintf(out, "%.1f", r->b->transfer_us_median); else fputs("-", out);
            fprintf(out, "</td><td>%s</td><td>", rt);
            if (r->busbw_GBps.has_a) fprintf(out, "%.1f", r->busbw_GBps.a); else fputs("-", out);
            fputs("</td><td>", out);
            if (r->busbw_GBps.has_b) fprintf(out, "%.1f", r->busbw_GBps.b); else fputs("-", out);
            const char *cls = !strcmp(r->change, "faster") ? "better" : !strcmp(r->change, "slower") ? "worse" : "";
            char g[1024];
            group_of(g, sizeof g, r);
            fprintf(out, "</td><td class=\"%s\">%s</td><td>", cls, r->change);
            html_esc(out, g);
            fputs("</td></tr>\n", out);
        }
        fputs("</table>\n", out);
    }
    fputs("<h2>Cost per unit of work</h2>\n<p>", out);
    if (!c->a->has_cost) { fputs("A: ", out); html_esc(out, c->a->cost_note); fputs("<br>", out); }
    if (!c->b->has_cost) { fputs("B: ", out); html_esc(out, c->b->cost_note); fputs("<br>", out); }
    char w[48], m[48];
    tc_fmt_grouped(w, sizeof w, c->work_steps_per_month, 0);
    if (c->has_monthly_diff) {
        tc_cmp_fmt_money(m, sizeof m, fabs(c->monthly_diff));
        fprintf(out, "At %s steps a month (%s), B costs %s a month %s than A: W &times; (cost per step B &minus; cost per step A).",
                w, c->work_from_flag ? "--work-steps-per-month" : "A's month at its utilization", m,
                c->monthly_diff < 0 ? "less" : "more");
    } else fputs("Monthly difference: n/a (cost per step unknown on a side).", out);
    fprintf(out, "</p>\n<p class=\"muted\">tracecost %s. Cost per step = P &times; N &times; step time / 3600 s; "
            "cost per effective GPU-hour = P / e with e = 1 &minus; exposed transfer share. Shares are of the "
            "summed GPU windows.</p>\n</body></html>\n", TC_VERSION);
    return ferror(out) ? -1 : 0;
}
