/* replay_report.c: summary.replay, the critical paths and the process groups' collective time
 * models in the JSON, the "What limits the step" section of the terminal and HTML reports (see
 * replay_report.h). Only renders what analyzer/replay.c computed and analyzer/findings.c decided. */
#include "replay_report.h"
#include "findings_text.h"
#include "html_kit.h"
#include "termtext.h"
#include "textfmt.h"
#include "base/status.h"
#include <string.h>

#define CP_RANKS_SHOWN 4   /* ranks named on the path's line */
#define CP_TOP_SHOWN 5     /* top stretches in the terminal */

static double ms(int64_t ns) { return (double)ns / 1e6; }

/* The steps the sum over steps covers (its per-step figures divide by it). */
static int64_t path_steps(const tc_summary *sm) { return sm->n_cp_steps ? (int64_t)sm->n_cp_steps : 1; }

/* The path's classes summed: the denominator of its shares (the step, by construction). */
static int64_t class_total(const tc_critical_path *p) {
    int64_t t = 0;
    for (int k = 0; k < TC_CP_CLASSES; k++) t += p->class_ns[k];
    return t;
}

static double class_share(const tc_critical_path *p, int k) {
    int64_t t = class_total(p);
    return t > 0 ? (double)p->class_ns[k] / (double)t : 0;
}

const tc_critical_path *tc_replay_step_path(const tc_summary *sm, int64_t number) {
    for (size_t i = 0; i < sm->n_cp_steps; i++) if (sm->cp_steps[i].number == number) return &sm->cp_steps[i];
    return NULL;
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void ns_or_null(jw *w, const char *key, bool has, int64_t ns) {
    jw_key(w, key);
    if (has) jw_ns_as_us(w, ns); else jw_null(w);
}

/* One critical-path object; `per` divides its times (the steps, for the sum over steps: per-step
 * means). */
static void cp_object(jw *w, const tc_critical_path *p, int64_t per) {
    jw_object_begin(w);
    jw_key(w, "step"); if (p->number >= 0) jw_int(w, p->number); else jw_null(w);
    if (p->number < 0) { jw_key(w, "steps"); jw_int(w, per); jw_key(w, "total_us"); jw_ns_as_us(w, p->step_ns); }
    jw_key(w, "step_us"); jw_ns_as_us(w, p->step_ns / per);
    jw_key(w, "shares");
    if (class_total(p) <= 0) jw_null(w);
    else {
        jw_object_begin(w);
        for (int k = 0; k < TC_CP_CLASSES; k++) { jw_key(w, tc_cp_class_key[k]); jw_double(w, class_share(p, k)); }
        jw_object_end(w);
    }
    jw_key(w, "by_rank");
    jw_array_begin(w);
    for (size_t i = 0; i < p->n_by_rank; i++) {
        jw_object_begin(w);
        jw_key(w, "rank"); jw_int(w, p->by_rank[i].rank);
        jw_key(w, "us"); jw_ns_as_us(w, p->by_rank[i].ns / per);
        jw_key(w, "compute_us"); jw_ns_as_us(w, p->by_rank[i].compute_ns / per);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_key(w, "top");
    jw_array_begin(w);
    for (size_t i = 0; i < p->n_top; i++) {
        const tc_cp_top *t = &p->top[i];
        jw_object_begin(w);
        jw_key(w, "name"); jw_string(w, t->name);
        jw_key(w, "kind"); jw_string(w, t->kind < TC_CP_CLASSES ? tc_cp_class_key[t->kind] : NULL);
        jw_key(w, "rank"); jw_int(w, t->rank);
        jw_key(w, "us"); jw_ns_as_us(w, t->ns / per);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_object_end(w);
}

/* One replay.steps[] object. */
static void replay_step(jw *w, const void *replay, size_t i) {
    const tc_replay_summary *r = replay;
    jw_object_begin(w);
    jw_key(w, "step"); jw_int(w, r->step_number[i]);
    jw_key(w, "measured_step_us"); jw_ns_as_us(w, r->step_measured_ns[i]);
    jw_key(w, "replayed_step_us"); jw_ns_as_us(w, r->step_replayed_ns[i]);
    ns_or_null(w, "projected_step_us", r->has_projected && r->step_projected_ns, r->step_projected_ns ? r->step_projected_ns[i] : 0);
    jw_object_end(w);
}

static void replay_object(jw *w, const tc_replay_summary *r) {
    jw_object_begin(w);
    jw_key(w, "available"); jw_bool(w, r->has);
    jw_key(w, "note"); jw_string(w, r->note ? r->note : r->has ? NULL : "no replay of the step graph");
    jw_key(w, "ops"); if (r->has) jw_uint(w, r->ops); else jw_null(w);
    jw_key(w, "ops_unplaced"); if (r->has) jw_uint(w, r->ops_unplaced); else jw_null(w);
    jw_key(w, "event_deps"); if (r->has) jw_uint(w, r->event_deps); else jw_null(w);
    jw_key(w, "inferred_deps"); if (r->has) jw_uint(w, r->inferred_deps); else jw_null(w);
    jw_key(w, "sync_calls"); if (r->has) jw_uint(w, r->sync_calls); else jw_null(w);
    jw_key(w, "poll_waits"); if (r->has) jw_uint(w, r->poll_waits); else jw_null(w);
    jw_key(w, "step_tails"); if (r->has) jw_uint(w, r->step_tails); else jw_null(w);
    ns_or_null(w, "measured_step_us", r->has, r->measured_step_ns);
    ns_or_null(w, "replayed_step_us", r->has, r->replayed_step_ns);
    jw_key(w, "identity_error"); if (r->has) jw_double(w, r->identity_error); else jw_null(w);
    jw_key(w, "reference"); jw_string(w, r->has && r->has_reference ? r->reference : NULL);
    ns_or_null(w, "reference_step_us", r->has && r->has_reference, r->reference_step_ns);
    ns_or_null(w, "projected_step_us", r->has && r->has_projected, r->projected_step_ns);
    jw_key(w, "steps");
    jw_array_begin(w);
    jw_elements(w, r->has ? r->n_steps : 0, replay_step, r);
    jw_array_end(w);
    jw_object_end(w);
}

static void cp_step_element(jw *w, const void *sm, size_t i) { cp_object(w, &((const tc_summary *)sm)->cp_steps[i], 1); }

void tc_replay_json_summary(jw *w, const tc_job *j) {
    const tc_summary *sm = &j->summary;
    jw_key(w, "replay");
    replay_object(w, &sm->replay);
    jw_key(w, "critical_path");
    if (sm->has_critical_path) cp_object(w, &sm->critical_path, path_steps(sm)); else jw_null(w);
    jw_key(w, "critical_path_steps");
    jw_array_begin(w);
    jw_elements(w, sm->has_critical_path ? sm->n_cp_steps : 0, cp_step_element, sm);
    jw_array_end(w);
}

void tc_replay_json_group_model(jw *w, const tc_job *j, size_t g) {
    static const char *const fits[] = {NULL, "sizes", "rated", "measured"};
    const tc_coll_model *m = NULL;
    for (size_t k = 0; k < j->n_inst_groups && !m; k++)
        if (j->inst_groups[k].pg == g && j->inst_groups[k].model.fit != TC_FIT_NONE) m = &j->inst_groups[k].model;
    jw_key(w, "model");
    if (!m) { jw_null(w); return; }
    jw_object_begin(w);
    jw_key(w, "alpha_us"); jw_double(w, m->alpha_us);
    jw_key(w, "beta_GBps"); jw_double(w, m->beta_GBps);
    jw_key(w, "fit"); jw_string(w, m->fit <= TC_FIT_MEASURED ? fits[m->fit] : NULL);
    jw_key(w, "instances"); jw_uint(w, m->instances);
    jw_object_end(w);
}

/* ---- words shared by the terminal and the HTML ---------------------------------------------- */

/* "the replay reproduces the measured step within 0.3% (replayed 120.456 ms, measured 120.123 ms
 * per step, mean over ranks; the worst rank and step)". */
static const char *identity_text(char *buf, size_t n, const tc_replay_summary *r) {
    char a[64], b[64], e[64];
    tc_fmt_num(a, sizeof a, ms(r->replayed_step_ns), 3);
    tc_fmt_num(b, sizeof b, ms(r->measured_step_ns), 3);
    if (r->identity_error <= 0)
        tc_format(buf, n, "the replay reproduces the measured step exactly (%s ms per step, mean over ranks)", a);
    else if (r->identity_error <= 0.01)
        tc_format(buf, n, "the replay reproduces the measured step within %s on every rank and step (replayed %s ms, "
                  "measured %s ms per step, mean over ranks)",
                  r->identity_error < 0.0001 ? "0.01%" : tc_fmt_pct(e, sizeof e, r->identity_error, r->identity_error < 0.001 ? 2 : 1),
                  a, b);
    else
        tc_format(buf, n, "the replay differs from the measured step by up to %s (replayed %s ms, measured %s ms per "
                  "step): the graph misses some dependency, so read the path with care", TC_PCT1(e, r->identity_error), a, b);
    if (r->step_tails) { /* why it differs from the spans' step time */
        size_t len = strlen(buf);
        tc_format(buf + len, n - len, "; %s %s at %s last GPU op, past %s ProfilerStep span",
                  tc_fmt_num(e, sizeof e, (double)r->step_tails, 0), r->step_tails == 1 ? "step ends" : "steps end",
                  r->step_tails == 1 ? "its" : "their", r->step_tails == 1 ? "its" : "their");
    }
    return buf;
}

/* "9.779 ms per step, at most 2.5% shorter" (at most: against the instant reference). */
static const char *step_against(char *buf, size_t n, int64_t step_ns, int64_t replayed_ns, bool at_most) {
    char a[64], s[64];
    double saving = 1.0 - (double)step_ns / (double)replayed_ns;
    tc_format(buf, n, "%s ms per step, %s%s %s", tc_fmt_num(a, sizeof a, ms(step_ns), 3), at_most ? "at most " : "",
              TC_PCT1(s, saving < 0 ? -saving : saving), saving < 0 ? "longer" : "shorter");
    return buf;
}

/* Whether the reference is the what-if's own target (the projected step is the reference's). */
static bool reference_is_target(const tc_replay_summary *r) {
    return r->has_reference && r->has_projected && strcmp(r->reference, "instant") && r->projected_step_ns == r->reference_step_ns;
}

/* What the reference replay says: "a network that moves bytes instantly: 110.123 ms per step, at
 * most 8.5% shorter" ("no shorter" when no inter-node transfer is on the path p), or "on ib-ndr,
 * the what-if's fabric (...)". Empty without one. */
static const char *reference_text(char *buf, size_t n, const tc_replay_summary *r, const tc_critical_path *p, bool bound) {
    char a[64], v[160], name[80];
    if (n) buf[0] = 0;
    if (!r->has_reference || r->replayed_step_ns <= 0) return buf;
    bool instant = !strcmp(r->reference, "instant");
    double saving = 1.0 - (double)r->reference_step_ns / (double)r->replayed_step_ns;
    tc_term_clean(name, sizeof name, r->reference, 60);
    step_against(v, sizeof v, r->reference_step_ns, r->replayed_step_ns, instant);
    if (instant && saving < TC_SHOWN_SHARE && !p->class_ns[TC_CP_TRANSFER_INTER])
        tc_format(buf, n, "a network that moves bytes instantly: %s ms per step, no shorter (no inter-node transfer is on "
                  "the path)", tc_fmt_num(a, sizeof a, ms(r->reference_step_ns), 3));
    else if (instant)
        tc_format(buf, n, "a network that moves bytes instantly: %s%s", v, bound ? " (on partial data: an upper bound)" : "");
    else
        tc_format(buf, n, "on %s%s: %s", name, reference_is_target(r) ? ", the what-if's fabric (the cost section prices it)" : "",
                  v);
    return buf;
}

/* The what-if's replayed step, when the reference line does not already say it. Empty otherwise. */
static const char *projected_text(char *buf, size_t n, const tc_replay_summary *r) {
    char v[160];
    if (n) buf[0] = 0;
    if (!r->has_projected || reference_is_target(r) || r->replayed_step_ns <= 0) return buf;
    tc_format(buf, n, "on the what-if's fabric (the cost section prices it): %s",
              step_against(v, sizeof v, r->projected_step_ns, r->replayed_step_ns, false));
    return buf;
}

/* What the graph could not place and what it holds. */
static const char *graph_text(char *buf, size_t n, const tc_replay_summary *r) {
    char a[40], b[40], c[40], d[40], e[40];
    tc_format(buf, n, "the graph: %s GPU ops, %s of them kept at their measured time and place (no launch found, or "
              "an unmatched collective); %s cross-stream dependencies from event calls, %s inferred from timing; %s "
              "synchronizing calls tied to the GPU work they wait for",
              tc_fmt_num(a, sizeof a, (double)r->ops, 0), tc_fmt_num(b, sizeof b, (double)r->ops_unplaced, 0),
              tc_fmt_num(c, sizeof c, (double)r->event_deps, 0), tc_fmt_num(d, sizeof d, (double)r->inferred_deps, 0),
              tc_fmt_num(e, sizeof e, (double)r->sync_calls, 0));
    if (r->poll_waits) {
        size_t len = strlen(buf);
        tc_format(buf + len, n - len, ", and %s polling %s (cudaEventQuery, cudaStreamQuery) to the op %s for",
                  tc_fmt_num(a, sizeof a, (double)r->poll_waits, 0), r->poll_waits == 1 ? "run" : "runs",
                  r->poll_waits == 1 ? "it waited" : "they waited");
    }
    return buf;
}

/* The path's classes of 0.05% or more, most first: "compute 64.0% | inter-node transfer <=20.1%"
 * (the bound mark on transfer with partial data), the first after `head`. */
static size_t shares_items(char (*it)[96], const tc_critical_path *p, bool bound, const char *head) {
    bool used[TC_CP_CLASSES] = {false};
    size_t n = 0;
    for (;;) {
        int best = -1;
        for (int k = 0; k < TC_CP_CLASSES; k++)
            if (!used[k] && (best < 0 || p->class_ns[k] > p->class_ns[best])) best = k;
        if (best < 0 || class_share(p, best) < TC_SHOWN_SHARE) break;
        used[best] = true;
        char v[32];
        bool mark = bound && (best == TC_CP_TRANSFER_INTRA || best == TC_CP_TRANSFER_INTER);
        tc_format(it[n], 96, "%s%s %s%s", n ? "" : head, tc_cp_class_label(best), mark ? "<=" : "",
                  TC_PCT1(v, class_share(p, best)));
        n++;
    }
    return n;
}

/* ---- terminal ------------------------------------------------------------------------------- */

static void text_ranks(FILE *out, const tc_critical_path *p, int64_t per, int width) {
    char line[800];
    size_t len = (size_t)tc_format(line, sizeof line, "ranks it runs through, per step:");
    int64_t total = class_total(p);
    for (size_t i = 0; i < p->n_by_rank && i < CP_RANKS_SHOWN && len < sizeof line; i++) {
        char a[40], b[TC_PCT_LEN], c[64];
        const tc_cp_rank *r = &p->by_rank[i];
        if (r->compute_ns / per > 0) tc_format(c, sizeof c, "; compute %s ms", tc_fmt_num(a, sizeof a, ms(r->compute_ns / per), 3));
        else c[0] = 0;
        len += (size_t)tc_format(line + len, sizeof line - len, "%s rank %lld %s ms (%s%s)", i ? "," : "",
                                 (long long)r->rank, tc_fmt_num(a, sizeof a, ms(r->ns / per), 3),
                                 TC_PCT1(b, total > 0 ? (double)r->ns / (double)total : 0), c);
    }
    if (p->n_by_rank > CP_RANKS_SHOWN && len < sizeof line)
        tc_format(line + len, sizeof line - len, ", and %zu more", p->n_by_rank - CP_RANKS_SHOWN);
    tc_term_wrap(out, line, 2, 4, width);
}

/* The top stretches: rank, kind, ms per step and the name in what the width leaves. */
#define TOP_FIXED 43 /* "  " + rank 6 + kind 23 + ms 9 + 3 spaces */
static void text_top(FILE *out, const tc_critical_path *p, int64_t per, int width) {
    if (!p->n_top) return;
    int nw = width - TOP_FIXED;
    fprintf(out, "  %6s %-23s %9s %s\n", "rank", "the path's top stretches", "ms/step", "name");
    for (size_t i = 0; i < p->n_top && i < CP_TOP_SHOWN; i++) {
        const tc_cp_top *t = &p->top[i];
        char v[40], name[4 * 256 + 1], cell[64];
        tc_term_cell(name, sizeof name, t->name ? t->name : "?", -nw);
        size_t end = strlen(name);
        while (end && name[end - 1] == ' ') name[--end] = 0;
        tc_term_cell(cell, sizeof cell, tc_cp_class_label(t->kind), -23);
        fprintf(out, "  %6lld %s %9s %s\n", (long long)t->rank, cell, tc_term_fit(v, sizeof v, ms(t->ns / per), 3, 9), name);
    }
}

void tc_replay_text(FILE *out, const tc_job *j, const char *bold_on, const char *bold_off, const char *dim_on,
                    const char *dim_off, int width) {
    const tc_summary *sm = &j->summary;
    const tc_replay_summary *r = &sm->replay;
    char line[TC_FINDING_TEXT];
    if (!j->n_ranks) return;
    if (!r->has || !sm->has_critical_path) {
        fprintf(out, "\n%sWhat limits the step%s: ", bold_on, bold_off);
        tc_format(line, sizeof line, "not available (%s)", r->note ? r->note : "no replay of the step graph");
        tc_term_wrap_from(out, line, 22, 2, width);
        return;
    }
    const tc_critical_path *p = &sm->critical_path;
    int64_t per = path_steps(sm);
    fprintf(out, "\n%sWhat limits the step%s ", bold_on, bold_off);
    tc_format(line, sizeof line, "(the critical path across ranks, %lld step%s)", (long long)per, per == 1 ? "" : "s");
    tc_term_wrap_from(out, line, 21, 2, width);
    tc_term_wrap(out, identity_text(line, sizeof line, r), 2, 4, width);
    char it[TC_CP_CLASSES][96], head[64], v[40];
    const char *items[TC_CP_CLASSES];
    tc_format(head, sizeof head, "the path, %s ms per step: ", tc_fmt_num(v, sizeof v, ms(p->step_ns / per), 3));
    size_t n = shares_items(it, p, sm->transfer_upper_bound, head);
    for (size_t i = 0; i < n; i++) items[i] = it[i];
    tc_term_join(out, items, n, " | ", 2, 4, width);
    text_ranks(out, p, per, width);
    text_top(out, p, per, width);
    if (reference_text(line, sizeof line, r, p, sm->transfer_upper_bound)[0]) tc_term_wrap(out, line, 2, 4, width);
    if (projected_text(line, sizeof line, r)[0]) tc_term_wrap(out, line, 2, 4, width);
    fputs(dim_on, out);
    tc_term_wrap(out, graph_text(line, sizeof line, r), 2, 4, width);
    if (sm->transfer_upper_bound)
        tc_term_wrap(out, "<= : an upper bound on partial data (ranks missing or collectives unmatched: their waiting "
                     "counts as transfer)", 2, 4, width);
    if (r->note) {
        char note[TC_FINDING_TEXT];
        tc_format(note, sizeof note, "note: %s", r->note);
        tc_term_wrap(out, note, 2, 8, width);
    }
    fputs(dim_off, out);
}

/* ---- HTML ----------------------------------------------------------------------------------- */

static void esc(FILE *out, const char *s) { if (s) tc_html_escape(out, s, strlen(s), 0); }

static void html_tables(FILE *out, const tc_critical_path *p, int64_t per, bool bound) {
    char a[40], b[40], c[40];
    int64_t total = class_total(p);
    fputs("<table id=\"cp-shares\"><thead><tr><th>on the path</th><th class=\"n\">share</th><th class=\"n\">ms per step"
          "</th></tr></thead><tbody>\n", out);
    for (int k = 0; k < TC_CP_CLASSES; k++) {
        if (!p->class_ns[k]) continue;
        bool mark = bound && (k == TC_CP_TRANSFER_INTRA || k == TC_CP_TRANSFER_INTER);
        fprintf(out, "<tr><td>%s</td><td class=\"n\">%s%s</td><td class=\"n\" data-tip=\"%s ms\">%s</td></tr>\n",
                tc_cp_class_label(k), mark ? "&lt;= " : "", TC_HTML_PCT1(a, class_share(p, k)),
                tc_html_ms_exact(b, sizeof b, p->class_ns[k] / per), tc_fmt_num(c, sizeof c, ms(p->class_ns[k] / per), 3));
    }
    fputs("</tbody></table>\n<table id=\"cp-ranks\"><thead><tr><th>rank</th><th class=\"n\">ms per step</th>"
          "<th class=\"n\">share</th><th class=\"n\">compute ms</th></tr></thead><tbody>\n", out);
    for (size_t i = 0; i < p->n_by_rank; i++) {
        const tc_cp_rank *r = &p->by_rank[i];
        fprintf(out, "<tr><td>%lld</td><td class=\"n\">%s</td>", (long long)r->rank, tc_fmt_num(a, sizeof a, ms(r->ns / per), 3));
        fprintf(out, "<td class=\"n\">%s</td>", TC_HTML_PCT1(a, total > 0 ? (double)r->ns / (double)total : 0));
        fprintf(out, "<td class=\"n\">%s</td></tr>\n", tc_fmt_num(b, sizeof b, ms(r->compute_ns / per), 3));
    }
    fputs("</tbody></table>\n", out);
    if (!p->n_top) return;
    fputs("<table id=\"cp-top\"><thead><tr><th>stretch</th><th>kind</th><th class=\"n\">rank</th><th class=\"n\">ms per "
          "step</th></tr></thead><tbody>\n", out);
    for (size_t i = 0; i < p->n_top; i++) {
        const tc_cp_top *t = &p->top[i];
        fputs("<tr><td class=\"name\">", out);
        if (t->name) tc_html_escape(out, t->name, strlen(t->name), 120);
        fprintf(out, "</td><td>%s</td><td class=\"n\">%lld</td><td class=\"n\">%s</td></tr>\n", tc_cp_class_label(t->kind),
                (long long)t->rank, tc_fmt_num(a, sizeof a, ms(t->ns / per), 3));
    }
    fputs("</tbody></table>\n", out);
}

void tc_replay_html(FILE *out, const tc_job *j) {
    const tc_summary *sm = &j->summary;
    const tc_replay_summary *r = &sm->replay;
    char line[TC_FINDING_TEXT];
    fputs("<section id=\"critical-path\">\n<h2>What limits the step</h2>\n", out);
    if (!r->has || !sm->has_critical_path) {
        fputs("<p class=\"note\" id=\"cp-none\">Not available: ", out);
        esc(out, r->note ? r->note : "no replay of the step graph");
        fputs(".</p>\n</section>\n", out);
        return;
    }
    const tc_critical_path *p = &sm->critical_path;
    int64_t per = path_steps(sm);
    fprintf(out, "<p class=\"note\">The critical path across ranks: the longest chain of GPU ops, launch and "
                 "synchronizing calls, host work and collectives through the replayed step graph, from each step's "
                 "first event on any rank to its last; its length is the step. Over %lld step%s, per step:</p>\n",
            (long long)per, per == 1 ? "" : "s");
    fputs("<p class=\"figures\" id=\"cp-identity\">", out);
    identity_text(line, sizeof line, r);
    line[0] = (char)(line[0] - 'a' + 'A');
    esc(out, line);
    fputs(".</p>\n", out);
    if (reference_text(line, sizeof line, r, p, sm->transfer_upper_bound)[0]) {
        fputs("<p class=\"figures\" id=\"cp-reference\">", out);
        line[0] = (char)(line[0] >= 'a' && line[0] <= 'z' ? line[0] - 'a' + 'A' : line[0]);
        esc(out, line);
        fputs(".</p>\n", out);
    }
    if (projected_text(line, sizeof line, r)[0]) {
        fputs("<p class=\"figures\" id=\"cp-projected\">O", out);
        esc(out, line + 1);
        fputs(".</p>\n", out);
    }
    html_tables(out, p, per, sm->transfer_upper_bound);
    fputs("<p class=\"note\" id=\"cp-graph\">", out);
    graph_text(line, sizeof line, r);
    line[0] = 'T';
    esc(out, line);
    fputs(sm->transfer_upper_bound ? ". &lt;= marks an upper bound on partial data." : ".", out);
    if (r->note) { fputs(" ", out); esc(out, r->note); fputs(".", out); }
    fputs(" The timeline above draws the path of its step.</p>\n</section>\n", out);
}
