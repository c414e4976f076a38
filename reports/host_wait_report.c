/* host_wait_report.c: the idle causes, host ops, launch statistics and per-step view in JSON,
 * terminal and HTML (see host_wait_report.h). */
#include "host_wait_report.h"
#include "textfmt.h"
#include "findings_text.h"
#include "html_kit.h"
#include "termtext.h"
#include "analyzer/host_wait.h"
#include <string.h>

/* ---- JSON ------------------------------------------------------------------------------------ */

/* The keys CAUSE_us of every idle cause, in cause order. */
static void cause_keys(jw *w, const tc_idle_causes *k) {
    for (int c = 0; c < TC_IDLE_CAUSES; c++) {
        char name[48]; /* "<cause>_us", without snprintf: a report writes it per step and cause */
        const char *key = tc_idle_cause_key(c);
        size_t len = strlen(key);
        if (len > sizeof name - 4) len = sizeof name - 4;
        memcpy(name, key, len);
        memcpy(name + len, "_us", 4);
        jw_key(w, name);
        jw_ns_as_us(w, k->ns[c]);
    }
}

static void causes_object(jw *w, const char *key, const tc_idle_causes *k) {
    jw_key(w, key);
    jw_object_begin(w);
    cause_keys(w, k);
    jw_object_end(w);
    jw_key(w, "idle_after_sync_us");
    jw_ns_as_us(w, k->after_sync_ns);
    jw_key(w, "idle_sync_copy_us");
    jw_ns_as_us(w, k->copy_held_ns);
}

void tc_host_wait_json_step_causes(jw *w, bool has, const tc_idle_causes *k, int64_t before_ns, int64_t after_ns) {
    jw_key(w, "step_idle_causes");
    if (!has) { jw_null(w); return; }
    jw_object_begin(w);
    cause_keys(w, k);
    jw_key(w, "idle_after_sync_us"); jw_ns_as_us(w, k->after_sync_ns);
    jw_key(w, "before_first_kernel_us"); jw_ns_as_us(w, before_ns);
    jw_key(w, "after_last_kernel_us"); jw_ns_as_us(w, after_ns);
    jw_object_end(w);
}

void tc_host_wait_json_step(jw *w, const tc_step_result *st) {
    causes_object(w, "idle_causes", &st->idle);
    jw_key(w, "step_window_us"); jw_ns_as_us(w, st->step_b.window_ns);
    jw_key(w, "step_idle_us"); jw_ns_as_us(w, st->step_b.idle_ns);
    tc_host_wait_json_step_causes(w, true, &st->step_idle, st->before_first_kernel_ns, st->after_last_kernel_ns);
}

/* Key launch_stats; per_rank adds the delay percentiles. */
static void launch_object(jw *w, const tc_launch_stats *l, bool per_rank) {
    jw_key(w, "launch_stats");
    jw_object_begin(w);
    jw_key(w, "kernels"); jw_uint(w, l->kernels);
    jw_key(w, "launched"); jw_uint(w, l->launched);
    jw_key(w, "short_kernels"); jw_uint(w, l->short_kernels);
    jw_key(w, "short_kernel_share");
    if (l->kernels) jw_double(w, (double)l->short_kernels / (double)l->kernels); else jw_null(w);
    if (per_rank) {
        jw_key(w, "delay_kernels"); jw_uint(w, l->delay_kernels);
        jw_key(w, "delay_median_us"); if (l->delay_kernels) jw_ns_as_us(w, l->delay_median_ns); else jw_null(w);
        jw_key(w, "delay_p95_us"); if (l->delay_kernels) jw_ns_as_us(w, l->delay_p95_ns); else jw_null(w);
    }
    jw_key(w, "launch_calls"); jw_uint(w, l->launch_calls);
    jw_key(w, "launch_cpu_us"); jw_ns_as_us(w, l->launch_cpu_ns);
    jw_key(w, "gpu_busy_us"); jw_ns_as_us(w, l->gpu_busy_ns);
    jw_key(w, "launch_bound"); if (l->launch_calls) jw_bool(w, l->launch_bound); else jw_null(w);
    jw_key(w, "graph_launches"); jw_uint(w, l->graph_launches);
    jw_key(w, "graph_kernels"); jw_uint(w, l->graph_kernels);
    jw_key(w, "kernels_per_graph_launch");
    if (l->graph_launches) {
        jw_object_begin(w);
        jw_key(w, "mean"); jw_double(w, l->graph_kpl_mean);
        jw_key(w, "min"); jw_uint(w, l->graph_kpl_min);
        jw_key(w, "max"); jw_uint(w, l->graph_kpl_max);
        jw_object_end(w);
    } else {
        jw_null(w);
    }
    jw_object_end(w);
}

static void opt_us(jw *w, const char *key, bool has, int64_t ns) {
    jw_key(w, key);
    if (has) jw_ns_as_us(w, ns); else jw_null(w);
}

void tc_host_wait_json_rank(jw *w, const tc_rank_result *rr) {
    causes_object(w, "idle_causes", &rr->idle);
    jw_key(w, "idle_host_ops");
    jw_array_begin(w);
    for (size_t i = 0; i < rr->n_host_ops; i++) {
        const tc_host_op *h = &rr->host_ops[i];
        jw_object_begin(w);
        jw_key(w, "name"); jw_string(w, h->name);
        jw_key(w, "cause"); jw_string(w, tc_idle_cause_key(h->cause));
        jw_key(w, "us"); jw_ns_as_us(w, h->ns);
        jw_object_end(w);
    }
    jw_array_end(w);
    launch_object(w, &rr->launch, true);
    const tc_step_stats *ss = &rr->step_stats;
    opt_us(w, "step_time_min_us", rr->n_steps > 0, ss->min_ns);
    opt_us(w, "step_time_median_us", rr->n_steps > 0, ss->median_ns);
    opt_us(w, "step_time_max_us", rr->n_steps > 0, ss->max_ns);
    jw_key(w, "slowest_steps");
    jw_array_begin(w);
    for (size_t i = 0; i < ss->n_slowest; i++) {
        const tc_slow_step *s = &ss->slowest[i];
        jw_object_begin(w);
        jw_key(w, "step_number"); jw_int(w, s->number);
        jw_key(w, "step_time_us"); jw_ns_as_us(w, s->step_time_ns);
        jw_key(w, "over_median_us"); jw_ns_as_us(w, s->over_median_ns);
        jw_key(w, "grew"); jw_string(w, tc_step_class_key(s->grew));
        opt_us(w, "grew_us", s->grew != TC_STEP_NONE, s->grew_ns);
        bool cause = s->idle_cause < TC_IDLE_CAUSES;
        jw_key(w, "idle_cause"); if (cause) jw_string(w, tc_idle_cause_key(s->idle_cause)); else jw_null(w);
        opt_us(w, "idle_cause_grew_us", cause, s->idle_cause_grew_ns);
        jw_object_end(w);
    }
    jw_array_end(w);
}

void tc_host_wait_json_summary(jw *w, const tc_summary *sm) {
    causes_object(w, "idle_causes", &sm->idle);
    jw_key(w, "idle_cause_shares");
    jw_object_begin(w);
    for (int c = 0; c < TC_IDLE_CAUSES; c++) {
        jw_key(w, tc_idle_cause_key(c));
        jw_double(w, sm->idle_cause_share[c]);
    }
    jw_object_end(w);
    launch_object(w, &sm->launch, false);
}

/* ---- terminal -------------------------------------------------------------------------------- */

static double ms(int64_t ns) { return (double)ns / 1e6; }
/* a of b as a share in its one form (tc_fmt_pct, one decimal: "12.3%", "<0.1%"; pct_text_d and
 * pct_html_d with d decimals). Returns buf. */
static double frac(int64_t a, int64_t b) { return b > 0 ? (double)a / (double)b : 0; }
static const char *pct_text_d(char *buf, size_t n, int64_t a, int64_t b, int d) { return tc_fmt_pct(buf, n, frac(a, b), d); }
static const char *pct_html_d(char *buf, size_t n, int64_t a, int64_t b, int d) { return tc_html_pct(buf, n, frac(a, b), d); }
static const char *pct_text(char *buf, size_t n, int64_t a, int64_t b) { return pct_text_d(buf, n, a, b, 1); }
static const char *pct_html(char *buf, size_t n, int64_t a, int64_t b) { return pct_html_d(buf, n, a, b, 1); }

/* The causes of at least 0.05% of `whole`, largest first, as items "sync 24.0%", then how many
 * smaller ones have time ("3 more under 0.1%"). Returns the number of items. */
static size_t causes_items(char (*items)[64], const tc_idle_causes *k, int64_t whole) {
    bool done[TC_IDLE_CAUSES] = {false};
    size_t n = 0, small = 0;
    for (;;) {
        int best = -1;
        for (int c = 0; c < TC_IDLE_CAUSES; c++)
            if (!done[c] && k->ns[c] > 0 && (best < 0 || k->ns[c] > k->ns[best])) best = c;
        if (best < 0) break;
        done[best] = true;
        if (frac(k->ns[best], whole) < 0.0005) { small++; continue; }
        char p[TC_PCT_LEN];
        snprintf(items[n++], 64, "%s %s", tc_idle_cause_label(best), pct_text(p, sizeof p, k->ns[best], whole));
    }
    if (small) snprintf(items[n++], 64, "%zu more under 0.1%%", small);
    return n;
}

/* Where the host was and the launch figures of the view rank. */
static void host_lines(FILE *out, const tc_job *j, const tc_rank_result *rr, const char *dim_on, const char *dim_off,
                       int width) {
    char line[1200], name[256], who[48] = "";
    if (j->n_ranks > 1) snprintf(who, sizeof who, " (rank %lld)", (long long)rr->rank);
    if (rr->n_host_ops) {
        size_t len = (size_t)snprintf(line, sizeof line, "where the host was%s: ", who);
        /* up to three, those of at least a tenth of the first */
        for (size_t i = 0; i < rr->n_host_ops && i < 3 && len < sizeof line - 400; i++) {
            const tc_host_op *h = &rr->host_ops[i];
            if (i && h->ns * 10 < rr->host_ops[0].ns) break;
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s (%s) %.3f ms", i ? ", " : "",
                                    h->name ? tc_term_clean(name, sizeof name, h->name, 64) : "(no CPU op)",
                                    tc_idle_cause_label(h->cause), ms(h->ns));
        }
        tc_term_wrap(out, line, 2, 4, width);
    }
    if (!rr->has_host_events) {
        fputs(dim_on, out);
        tc_term_wrap(out, "note: the trace holds no runtime calls: every idle gap is unattributed", 2, 4, width);
        fputs(dim_off, out);
    }
    const tc_launch_stats *l = &rr->launch;
    if (!l->kernels) return;
    char ps[TC_PCT_LEN];
    int len = snprintf(line, sizeof line, "launches%s: %llu kernel%s, %s under 10 µs", who, (unsigned long long)l->kernels,
                       l->kernels == 1 ? "" : "s", pct_text_d(ps, sizeof ps, (int64_t)l->short_kernels, (int64_t)l->kernels, 0));
    if (l->delay_kernels)
        len += snprintf(line + len, sizeof line - (size_t)len, "; launch delay median %.1f µs, p95 %.1f µs",
                        (double)l->delay_median_ns / 1e3, (double)l->delay_p95_ns / 1e3);
    if (l->launch_calls)
        len += snprintf(line + len, sizeof line - (size_t)len, "; launch calls %.3f ms of CPU vs GPU busy %.3f ms%s",
                        ms(l->launch_cpu_ns), ms(l->gpu_busy_ns), l->launch_bound ? " (launch-bound)" : "");
    if (l->graph_launches)
        snprintf(line + len, sizeof line - (size_t)len, "; %llu CUDA-graph launches ran %llu kernels (%.1f per launch, %llu-%llu)",
                 (unsigned long long)l->graph_launches, (unsigned long long)l->graph_kernels, l->graph_kpl_mean,
                 (unsigned long long)l->graph_kpl_min, (unsigned long long)l->graph_kpl_max);
    tc_term_wrap(out, line, 2, 4, width);
}

#define STEP_ROW "%-8s %10s %8s %8s %8s %8s  %s\n" /* 57 columns and the top idle cause */

static void step_row(FILE *out, const tc_step_result *st) {
    const tc_breakdown *b = &st->step_b; /* the step's span (docs/definitions.md "Step window") */
    int top = tc_idle_top_cause(&st->step_idle);
    char cause[64] = "-", t[24], num[24], c[TC_PCT_LEN], e[TC_PCT_LEN], m[TC_PCT_LEN], i[TC_PCT_LEN];
    if (top >= 0) snprintf(cause, sizeof cause, "%s %s", tc_idle_cause_label(top), pct_text(c, sizeof c, st->step_idle.ns[top], b->window_ns));
    tc_term_fit(t, sizeof t, ms(st->step_time_ns), 3, 10);
    snprintf(num, sizeof num, "%lld", (long long)st->number);
    pct_text(c, sizeof c, b->compute_ns, b->window_ns);
    pct_text(e, sizeof e, b->exposed_comm_ns, b->window_ns);
    pct_text(m, sizeof m, b->memory_exposed_ns, b->window_ns);
    pct_text(i, sizeof i, b->idle_ns, b->window_ns);
    fprintf(out, STEP_ROW, num, t, c, e, m, i, cause);
}

#define STEP_ROWS 12 /* more steps than this are folded: the first and last STEP_ROWS / 2 shown */

static void steps_section(FILE *out, const tc_rank_result *rr, const char *bold_on, const char *bold_off, int width) {
    const tc_step_stats *ss = &rr->step_stats;
    char title[300];
    snprintf(title, sizeof title, "(rank %lld: %zu step%s; time min %.3f / median %.3f / max %.3f ms; %% of each step's "
             "span: its ProfilerStep span with its GPU work)", (long long)rr->rank,
             rr->n_steps, rr->n_steps == 1 ? "" : "s", ms(ss->min_ns), ms(ss->median_ns), ms(ss->max_ns));
    fprintf(out, "\n%sSteps%s ", bold_on, bold_off);
    tc_term_wrap_from(out, title, 6, 2, width);
    fprintf(out, STEP_ROW, "step", "time", "compute", "exp comm", "memory", "idle", "top idle cause");
    fprintf(out, "%-8s %10s %8s %8s %8s %8s\n", "", "ms", "%", "%", "%", "%");
    size_t n = rr->n_steps, half = STEP_ROWS / 2;
    for (size_t s = 0; s < n; s++) {
        if (n > STEP_ROWS && s == half) fprintf(out, "  ... %zu steps folded (every step in --json and --csv)\n", n - 2 * half);
        if (n > STEP_ROWS && s >= half && s < n - half) continue;
        step_row(out, &rr->steps[s]);
    }
    for (size_t i = 0; i < ss->n_slowest; i++) {
        const tc_slow_step *s = &ss->slowest[i];
        char line[400];
        int len = snprintf(line, sizeof line, "slow: step %lld, %.3f ms (+%.3f ms over the median)", (long long)s->number,
                           ms(s->step_time_ns), ms(s->over_median_ns));
        if (s->grew != TC_STEP_NONE)
            len += snprintf(line + len, sizeof line - (size_t)len, ": %s grew %.3f ms", tc_step_class_label(s->grew),
                            ms(s->grew_ns));
        if (s->idle_cause < TC_IDLE_CAUSES)
            snprintf(line + len, sizeof line - (size_t)len, " (%s +%.3f ms)", tc_idle_cause_label(s->idle_cause),
                     ms(s->idle_cause_grew_ns));
        tc_term_wrap(out, line, 2, 4, width);
    }
}

/* The part of sync held by copy calls of 1 ms or more, with the call and its op. */
static void copy_line(FILE *out, const tc_summary *sm, const tc_idle_causes *k, const tc_breakdown *b, const char *of,
                      int width) {
    char line[700], call[256], op[256], pc[TC_PCT_LEN];
    const tc_idle_evidence *e = &sm->evidence;
    snprintf(line, sizeof line, "sync %s of %s is copy calls holding the host (1 ms or more: pageable memory)%s%s%s%s%s",
             pct_text(pc, sizeof pc, k->copy_held_ns, b->window_ns), of, e->copy_call ? ", most in " : "",
             e->copy_call ? tc_finding_name(call, sizeof call, e->copy_call) : "", e->copy_op ? " (called in " : "",
             e->copy_op ? tc_finding_name(op, sizeof op, e->copy_op) : "", e->copy_op ? ")" : "");
    tc_term_wrap(out, line, 2, 4, width);
}

void tc_host_wait_text(FILE *out, const tc_job *j, const char *bold_on, const char *bold_off, const char *dim_on,
                       const char *dim_off, int width) {
    const tc_summary *sm = &j->summary;
    if (!j->n_ranks) return;
    const tc_rank_result *rr = &j->ranks[j->findings.view_rank];
    /* the window the verdict judges (docs/definitions.md "Step window") */
    const bool st = sm->step.has;
    const tc_breakdown *b = st ? &sm->step.b : &sm->b;
    const tc_idle_causes *k = st ? &sm->step.causes : &sm->idle;
    const char *of = st ? "step time" : "GPU time";
    if (b->idle_ns > 0 || rr->launch.kernels) {
        char title[200], pi[TC_PCT_LEN];
        snprintf(title, sizeof title, "(idle %s of %s; each cause as %% of the summed %s windows)",
                 TC_PCT1(pi, st ? sm->step.idle : sm->share_idle), of, st ? "step" : "GPU");
        fprintf(out, "\n%sWhy the GPU waits%s ", bold_on, bold_off);
        tc_term_wrap_from(out, title, 18, 2, width);
        if (b->idle_ns > 0) {
            char items[TC_IDLE_CAUSES + 1][64];
            const char *p[TC_IDLE_CAUSES + 1];
            size_t n = causes_items(items, k, b->window_ns);
            for (size_t i = 0; i < n; i++) p[i] = items[i];
            tc_term_join(out, p, n, " | ", 2, 4, width);
            if (k->after_sync_ns > 0) {
                char line[200], pa[TC_PCT_LEN];
                snprintf(line, sizeof line, "%s of %s is gaps that began while the host waited in a sync call",
                         pct_text(pa, sizeof pa, k->after_sync_ns, b->window_ns), of);
                tc_term_wrap(out, line, 2, 4, width);
            }
            if (frac(k->copy_held_ns, b->window_ns) >= TC_SHOWN_SHARE) copy_line(out, sm, k, b, of, width);
        }
        host_lines(out, j, rr, dim_on, dim_off, width);
    }
    if (rr->n_steps) steps_section(out, rr, bold_on, bold_off, width);
}

/* ---- HTML ------------------------------------------------------------------------------------ */

#define HTML_STEPS 500 /* steps drawn and listed; the rest are in the JSON */

/* Chart classes: the breakdown's busy classes, then each idle cause (styles in html_kit.c's css:
 * c-compute, c-comm, c-memory, c-i0 ... c-i7). */
enum { BAR_COMPUTE, BAR_COMM, BAR_MEMORY, BAR_IDLE0, BAR_N = BAR_IDLE0 + TC_IDLE_CAUSES };

static void esc(FILE *out, const char *s) { if (s) tc_html_escape(out, s, strlen(s), 0); }

static const char *bar_class(int k, char *buf, size_t n) {
    static const char *const busy[] = {"c-compute", "c-comm", "c-memory"};
    if (k < BAR_IDLE0) return busy[k];
    snprintf(buf, n, "c-i%d", k - BAR_IDLE0);
    return buf;
}

static const char *bar_label(int k) {
    static const char *const busy[] = {"compute", "exposed comm", "exposed memory"};
    return k < BAR_IDLE0 ? busy[k] : tc_idle_cause_label(k - BAR_IDLE0);
}

static int64_t bar_ns(const tc_step_result *st, int k) {
    switch (k) {
    case BAR_COMPUTE: return st->step_b.compute_ns;
    case BAR_COMM: return st->step_b.exposed_comm_ns;
    case BAR_MEMORY: return st->step_b.memory_exposed_ns;
    default: return st->step_idle.ns[k - BAR_IDLE0];
    }
}

/* The job's idle causes: a table of every cause. */
static void html_causes(FILE *out, const tc_summary *sm) {
    char cls[16];
    const bool st = sm->step.has; /* the window the verdict judges */
    const tc_breakdown *b = st ? &sm->step.b : &sm->b;
    const tc_idle_causes *k = st ? &sm->step.causes : &sm->idle;
    const char *of = st ? "step time" : "GPU time";
    fprintf(out, "<table id=\"idle-cause-table\">\n<thead><tr><th>idle cause</th><th class=\"n\">ms</th>"
                 "<th class=\"n\">share of %s</th><th class=\"n\">share of idle</th></tr></thead>\n<tbody>\n", of);
    for (int c = 0; c < TC_IDLE_CAUSES; c++) {
        int64_t ns = k->ns[c];
        char pw[TC_PCT_LEN], pi[TC_PCT_LEN];
        fprintf(out, "<tr data-cause=\"%s\"><td><span class=\"sw %s\"></span> %s</td><td class=\"n\" "
                     "data-tip=\"%.6f ms\">%.3f</td><td class=\"n\">%s</td><td class=\"n\">%s</td></tr>\n",
                tc_idle_cause_key(c), bar_class(BAR_IDLE0 + c, cls, sizeof cls), tc_idle_cause_label(c), ms(ns), ms(ns),
                pct_html(pw, sizeof pw, ns, b->window_ns), pct_html(pi, sizeof pi, ns, b->idle_ns));
    }
    fprintf(out, "</tbody></table>\n");
    char pn[TC_PCT_LEN];
    if (k->after_sync_ns > 0)
        fprintf(out, "<p class=\"note\">%s of %s is gaps that began while the host waited in a synchronizing "
                     "call.</p>\n", pct_html_d(pn, sizeof pn, k->after_sync_ns, b->window_ns, 2), of);
    if (k->copy_held_ns > 0) {
        fprintf(out, "<p class=\"note\">Of sync, %s of %s is copy calls holding the host (1 ms or more: pageable memory)",
                pct_html_d(pn, sizeof pn, k->copy_held_ns, b->window_ns, 2), of);
        if (sm->evidence.copy_call) { fputs(", most in ", out); esc(out, sm->evidence.copy_call); }
        if (sm->evidence.copy_op) { fputs(" (called in ", out); esc(out, sm->evidence.copy_op); fputs(")", out); }
        fputs(".</p>\n", out);
    }
}

/* Where the host was and the launch figures of the view rank. */
static void html_host(FILE *out, const tc_rank_result *rr) {
    if (rr->n_host_ops) {
        fprintf(out, "<h3>Where the host was (rank %lld)</h3>\n<p class=\"note\">For each idle gap whose host side "
                     "the launching thread spent on the CPU: the outermost CPU op or annotation covering most of it, "
                     "with the gap's host time by cause.</p>\n<table id=\"host-op-table\">\n<thead><tr><th>CPU op or annotation</th>"
                     "<th>cause</th><th class=\"n\">ms</th></tr></thead>\n<tbody>\n", (long long)rr->rank);
        for (size_t i = 0; i < rr->n_host_ops; i++) {
            const tc_host_op *h = &rr->host_ops[i];
            fprintf(out, "<tr><td class=\"name\">");
            if (h->name) esc(out, h->name); else fputs("(inside no CPU op)", out);
            fprintf(out, "</td><td>%s</td><td class=\"n\" data-tip=\"%.6f ms\">%.3f</td></tr>\n", tc_idle_cause_label(h->cause),
                    ms(h->ns), ms(h->ns));
        }
        fprintf(out, "</tbody></table>\n");
    }
    const tc_launch_stats *l = &rr->launch;
    char ps[TC_PCT_LEN];
    fprintf(out, "<p id=\"launch-stats\">Launches (rank %lld): %llu kernels, %llu with their launch call in the trace, "
                 "%s shorter than 10 &micro;s", (long long)rr->rank, (unsigned long long)l->kernels,
            (unsigned long long)l->launched, pct_html(ps, sizeof ps, (int64_t)l->short_kernels, (int64_t)l->kernels));
    if (l->delay_kernels)
        fprintf(out, "; launch delay (GPU start &minus; launch call start) median %.3f &micro;s, p95 %.3f &micro;s",
                (double)l->delay_median_ns / 1e3, (double)l->delay_p95_ns / 1e3);
    if (l->launch_calls)
        fprintf(out, "; %llu launch calls took %.3f ms of CPU against %.3f ms of GPU busy time%s",
                (unsigned long long)l->launch_calls, ms(l->launch_cpu_ns), ms(l->gpu_busy_ns),
                l->launch_bound ? " (<b>launch-bound</b>)" : "");
    if (l->graph_launches)
        fprintf(out, "; %llu CUDA-graph launches ran %llu kernels (%.1f per launch, %llu&ndash;%llu)",
                (unsigned long long)l->graph_launches, (unsigned long long)l->graph_kernels, l->graph_kpl_mean,
                (unsigned long long)l->graph_kpl_min, (unsigned long long)l->graph_kpl_max);
    fprintf(out, ".%s</p>\n", rr->has_host_events ? "" : " The trace holds no runtime calls: every idle gap is unattributed.");
}

/* The per-step bars' drawing, wide or narrow (see TC_HTML_CHART_W). */
static void html_step_svg(FILE *out, const tc_rank_result *rr, int narrow) {
    size_t n = rr->n_steps < HTML_STEPS ? rr->n_steps : HTML_STEPS;
    int64_t top = 1;
    for (size_t s = 0; s < n; s++) if (rr->steps[s].step_b.window_ns > top) top = rr->steps[s].step_b.window_ns;
    const int W = tc_html_chart_w(narrow), L = narrow ? 60 : 80, R = narrow ? 12 : 30, T = 8, H = narrow ? 180 : 220, B = 24;
    double PW = W - L - R, bw = PW / (double)n > 60 ? 60 : PW / (double)n, gap = bw > 6 ? 2 : 0;
    char cls[16], a[40], topms[TC_ATTR_LEN], pt[TC_PCT_LEN];
    tc_html_svg_open(out, "step-bars", narrow, T + H + B, "stacked bar per step: compute, exposed comm, exposed memory, idle by cause");
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" data-tip=\"%.6f ms\">%s ms</text><text x=\"%d\" y=\"%d\" "
                 "text-anchor=\"end\">0</text>\n", L - 6, T + 10, ms(top), TC_SIG4(topms, ms(top)), L - 6, T + H);
    for (size_t s = 0; s < n; s++) {
        const tc_step_result *st = &rr->steps[s];
        double x = L + (double)s * bw, y = T + H;
        for (int k = 0; k < BAR_N; k++) {
            int64_t ns = bar_ns(st, k);
            if (ns <= 0) continue;
            double h = (double)H * (double)ns / (double)top;
            y -= h;
            snprintf(a, sizeof a, "%.6f", ms(ns));
            fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" class=\"%s\" data-tip=\"step %lld - "
                         "%s: %s ms = %s of its span\"/>", x, y, bw - gap > 0.5 ? bw - gap : 0.5, h,
                    bar_class(k, cls, sizeof cls), (long long)st->number, bar_label(k), a,
                    pct_html_d(pt, sizeof pt, ns, st->step_b.window_ns, 2));
        }
        fputs("\n", out);
    }
    fprintf(out, "<line class=\"ax\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", L, T + H, W - R, T + H);
    fprintf(out, "<text x=\"%d\" y=\"%d\">ProfilerStep#%lld", L, T + H + 16, (long long)rr->steps[0].number);
    if (n > 1) fprintf(out, " to #%lld, left to right", (long long)rr->steps[n - 1].number);
    fputs("</text>\n</svg>\n", out);
}

/* One stacked bar per step (its span split into the busy classes and the idle causes). */
static void html_step_chart(FILE *out, const tc_rank_result *rr) {
    char cls[16];
    fputs("<ul class=\"legend\">", out);
    for (int k = 0; k < BAR_N; k++)
        fprintf(out, "<li><span class=\"sw %s\"></span>%s</li>", bar_class(k, cls, sizeof cls), bar_label(k));
    fputs("</ul>\n", out);
    html_step_svg(out, rr, 0);
    html_step_svg(out, rr, 1);
}

static void html_step_table(FILE *out, const tc_rank_result *rr) {
    size_t n = rr->n_steps < HTML_STEPS ? rr->n_steps : HTML_STEPS;
    fputs("<div class=\"scroll\"><table id=\"step-table\" class=\"sortable\">\n<thead><tr><th class=\"n\">step</th>"
          "<th class=\"n\">step<br>ms</th><th class=\"n\">span<br>ms</th><th class=\"n\">compute</th><th class=\"n\">"
          "exp.<br>comm</th><th class=\"n\">exp.<br>memory</th><th class=\"n\">idle</th><th>top idle cause</th>"
          "</tr></thead>\n<tbody>\n", out);
    for (size_t s = 0; s < n; s++) {
        const tc_step_result *st = &rr->steps[s];
        const tc_breakdown *b = &st->step_b;
        int top = tc_idle_top_cause(&st->step_idle);
        fprintf(out, "<tr><td class=\"n\" data-v=\"%lld\">%lld</td><td class=\"n\" data-v=\"%lld\" data-tip=\"%.6f ms\">"
                     "%.3f</td><td class=\"n\" data-v=\"%lld\" data-tip=\"%.6f ms\">%.3f</td>", (long long)st->number,
                (long long)st->number, (long long)st->step_time_ns, ms(st->step_time_ns), ms(st->step_time_ns),
                (long long)b->window_ns, ms(b->window_ns), ms(b->window_ns));
        int64_t parts[4] = {b->compute_ns, b->exposed_comm_ns, b->memory_exposed_ns, b->idle_ns};
        char p[TC_PCT_LEN], p4[TC_PCT_LEN];
        for (int k = 0; k < 4; k++)
            fprintf(out, "<td class=\"n\" data-v=\"%.6f\" data-tip=\"%.6f ms = %s\">%s</td>",
                    frac(parts[k], b->window_ns), ms(parts[k]), pct_html_d(p4, sizeof p4, parts[k], b->window_ns, 4),
                    pct_html(p, sizeof p, parts[k], b->window_ns));
        if (top >= 0)
            fprintf(out, "<td>%s %s</td></tr>\n", tc_idle_cause_label(top),
                    pct_html_d(p, sizeof p, st->step_idle.ns[top], b->window_ns, 2));
        else fputs("<td>-</td></tr>\n", out);
    }
    fputs("</tbody></table></div>\n", out);
    if (rr->n_steps > n)
        fprintf(out, "<p class=\"note\">The first %zu of %zu steps are drawn and listed; every step is in the JSON.</p>\n",
                n, rr->n_steps);
}

static void html_slowest(FILE *out, const tc_rank_result *rr) {
    const tc_step_stats *ss = &rr->step_stats;
    fprintf(out, "<p id=\"step-times\">Step time over %zu step%s: min <span data-tip=\"%.6f ms\">%.3f ms</span>, median "
                 "<span data-tip=\"%.6f ms\">%.3f ms</span>, max <span data-tip=\"%.6f ms\">%.3f ms</span>.</p>\n",
            rr->n_steps, rr->n_steps == 1 ? "" : "s", ms(ss->min_ns), ms(ss->min_ns), ms(ss->median_ns), ms(ss->median_ns), ms(ss->max_ns), ms(ss->max_ns));
    if (!ss->n_slowest) return;
    fputs("<ul id=\"slowest-steps\">\n", out);
    for (size_t i = 0; i < ss->n_slowest; i++) {
        const tc_slow_step *s = &ss->slowest[i];
        fprintf(out, "<li>ProfilerStep#%lld: %.3f ms, %.3f ms over the median", (long long)s->number, ms(s->step_time_ns),
                ms(s->over_median_ns));
        if (s->grew != TC_STEP_NONE) fprintf(out, "; %s grew %.3f ms", tc_step_class_label(s->grew), ms(s->grew_ns));
        if (s->idle_cause < TC_IDLE_CAUSES)
            fprintf(out, " (%s +%.3f ms)", tc_idle_cause_label(s->idle_cause), ms(s->idle_cause_grew_ns));
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
}

void tc_host_wait_html(FILE *out, const tc_job *j) {
    fputs("<section id=\"steps\">\n<h2>Why the GPU waits, step by step</h2>\n", out);
    if (!j->n_ranks) { fputs("<p class=\"note\">No rank had GPU activity.</p>\n</section>\n", out); return; }
    const tc_summary *sm = &j->summary;
    const tc_rank_result *rr = &j->ranks[j->findings.view_rank];
    char pi[TC_PCT_LEN];
    fprintf(out, "<p class=\"note\">Each idle gap (no kernel, copy or set on any stream) goes to what the CPU thread "
                 "that launched the work ending the gap was doing, instant by instant: a DataLoader op (data loading), "
                 "a synchronizing call (sync), an allocator call (memory management), a launch call of 1 ms or more "
                 "(module load), a launch call or the op that launched the work (launch overhead), anything else "
                 "(CPU other); GPU side when the work was already handed over, unattributed when the trace holds no "
                 "launch for it. Idle is %s of the summed %s.</p>\n",
            tc_html_pct(pi, sizeof pi, sm->step.has ? sm->step.idle : sm->share_idle, 2),
            sm->step.has ? "step windows (the ProfilerStep spans with their GPU windows: the lead before the first GPU "
                           "event is one more gap, the tail after the last is CPU other)" : "GPU time");
    html_causes(out, sm);
    html_host(out, rr);
    if (rr->n_steps) {
        fprintf(out, "<h3>Per step (rank %lld)</h3>\n<p class=\"note\">One bar per step: its span (its ProfilerStep span, "
                     "stretched to hold its own GPU events) split into compute, exposed comm, exposed memory and idle by cause. Hover a "
                     "segment for its exact value.</p>\n", (long long)rr->rank);
        html_slowest(out, rr);
        html_step_chart(out, rr);
        html_step_table(out, rr);
    } else fputs("<p class=\"note\">No ProfilerStep spans in the traces: no per-step view.</p>\n", out);
    fputs("</section>\n", out);
}
