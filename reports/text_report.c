/* text_report.c: terminal summary (see text_report.h). */
#include "nccl_report.h"
#include "pipeline_report.h"
#include "text_report.h"
#include "findings_text.h"
#include "host_wait_report.h"
#include "mfu_report.h"
#include "ops_report.h"
#include "replay_report.h"
#include "base/version.h"
#include "termtext.h"
#include "textfmt.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
    FILE *out;
    bool color;
    int width;  /* columns every line fits in (tc_term_opts) */
} tw;

static const char *c_on(const tw *t, const char *code) { return t->color ? code : ""; }
static const char *c_off(const tw *t) { return t->color ? "\033[0m" : ""; }
#define BOLD "\033[1m"
#define RED "\033[1;31m"
#define YELLOW "\033[1;33m"
#define GREEN "\033[1;32m"
#define DIM "\033[2m"

static double ms(int64_t ns) { return (double)ns / 1e6; }

static void fmt_pct_or_na(char *buf, size_t n, bool known, int64_t a, int64_t b) {
    if (known) tc_fmt_pct(buf, n, b > 0 ? (double)a / (double)b : 0, 1);
    else snprintf(buf, n, "n/a");
}

/* "H100 80GB HBM3" for every rank, or "H100 80GB HBM3 x4, A100-SXM4-80GB x4" (first seen first):
 * the vendor prefix dropped. Empty when no rank names its device. */
static const char *short_device(const char *device) {
    static const char *const prefixes[] = {"NVIDIA ", "Tesla ", "AMD ", NULL};
    for (size_t i = 0; prefixes[i]; i++)
        if (!strncmp(device, prefixes[i], strlen(prefixes[i]))) return device + strlen(prefixes[i]);
    return device;
}

static void devices_text(char *buf, size_t n, const tc_job *j) {
    size_t len = 0;
    buf[0] = 0;
    for (size_t r = 0; r < j->n_ranks && len + 80 < n; r++) {
        const char *d = j->ranks[r].device;
        bool seen = !d;
        for (size_t q = 0; q < r && !seen; q++) seen = j->ranks[q].device && !strcmp(j->ranks[q].device, d);
        if (seen) continue;
        size_t count = 0;
        for (size_t q = r; q < j->n_ranks; q++) count += j->ranks[q].device && !strcmp(j->ranks[q].device, d);
        char clean[64];
        tc_term_clean(clean, sizeof clean, short_device(d), 40);
        len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", clean);
        if (count < j->n_ranks) len += (size_t)snprintf(buf + len, n - len, " x%zu", count);
    }
}

/* The per-rank table: columns for 80 (see the header in per_rank_table). */
#define RANK_ROW "%-4s %8s %7s %8s %8s %7s %7s %7s %6s %9s\n"

/* One per-rank row (the "all" row: the summary's breakdown). */
static void row(const tw *t, const char *label, const tc_breakdown *b, bool has_ratio, double ratio, bool has_step,
                int64_t step_ns) {
    char tr[16], wa[16], rt[16], st[24], win[24], co[16], ex[16], me[16], id[16];
    fmt_pct_or_na(tr, sizeof tr, b->split_known, b->exposed_transfer_ns, b->window_ns);
    fmt_pct_or_na(wa, sizeof wa, b->split_known, b->exposed_wait_ns, b->window_ns);
    fmt_pct_or_na(co, sizeof co, true, b->compute_ns, b->window_ns);
    fmt_pct_or_na(ex, sizeof ex, true, b->exposed_comm_ns, b->window_ns);
    fmt_pct_or_na(me, sizeof me, true, b->memory_exposed_ns, b->window_ns);
    fmt_pct_or_na(id, sizeof id, true, b->idle_ns, b->window_ns);
    if (has_ratio) tc_term_fit(rt, sizeof rt, ratio, 2, 6); else snprintf(rt, sizeof rt, "n/a");
    if (has_step) tc_term_fit(st, sizeof st, ms(step_ns), 3, 9); else snprintf(st, sizeof st, "n/a");
    tc_term_fit(win, sizeof win, ms(b->window_ns), 3, 8);
    fprintf(t->out, RANK_ROW, label, win, co, ex, tr, wa, me, id, rt, st);
}

static void per_rank_table(const tw *t, const tc_job *j) {
    const tc_summary *sm = &j->summary;
    fprintf(t->out, "\n%sPer rank%s (%% of each rank's GPU window; all = the ranks together)\n", c_on(t, BOLD), c_off(t));
    fprintf(t->out, RANK_ROW, "rank", "window", "compute", "exp comm", "transfer", "wait", "memory", "idle", "c/c", "step");
    fprintf(t->out, RANK_ROW, "", "ms", "%", "%", "%", "%", "%", "%", "ratio", "ms, mean");
    for (size_t r = 0; r < j->n_ranks; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        char label[24];
        snprintf(label, sizeof label, "%lld", (long long)rr->rank);
        row(t, label, &rr->b, rr->has_ratio, rr->comm_compute_ratio, rr->has_step_time, rr->step_time_ns);
    }
    if (j->n_ranks > 1) {
        tc_breakdown b = sm->b;
        b.split_known = sm->split_known;
        row(t, "all", &b, sm->has_ratio, sm->comm_compute_ratio, sm->has_step_time, sm->step_time_ns);
    }
    const char *legend[] = {"legend: exp = exposed (not hidden behind compute)", "transfer + wait = exp comm",
                            "c/c = all communication-kernel time / compute time",
                            "all: windows summed, step time the ranks' mean",
                            "MFU, HFU = model and hardware FLOPs utilization",
                            "algbw, busbw = algorithm and bus bandwidth (nccl-tests)", "med = median", "GB = 1e9 B",
                            "µs = microseconds"};
    size_t n = sizeof legend / sizeof legend[0];
    if (j->n_ranks < 2) { memmove(&legend[3], &legend[4], (n - 4) * sizeof *legend); n--; }
    fputs(c_on(t, DIM), t->out);
    tc_term_join(t->out, legend, n, "; ", 2, 4, t->width);
    fputs(c_off(t), t->out);
}

/* Row k's n: the ranks of each of its groups (its size, else its ranks among the inputs), "G x R"
 * when G groups are folded into it, "?" for R when they differ or none is known. Returns buf. */
static const char *group_row_ranks(char *buf, size_t n, const tc_job *j, size_t k) {
    int64_t ranks = -1;
    bool same = true;
    for (size_t i = j->group_rows[k].first; i < j->n_groups; i++) {
        if (j->groups[i].row != k) continue;
        int64_t r = j->groups[i].size >= 0 ? j->groups[i].size : j->groups[i].ranks_present;
        if (ranks >= 0 && r != ranks) same = false;
        if (ranks < 0) ranks = r;
    }
    char r[24];
    if (same && ranks > 0) snprintf(r, sizeof r, "%lld", (long long)ranks); else snprintf(r, sizeof r, "?");
    if (j->group_rows[k].groups > 1) snprintf(buf, n, "%zux%s", j->group_rows[k].groups, r);
    else snprintf(buf, n, "%s", r);
    return buf;
}

/* The Process groups section: one line per row of groups (tc_job.group_rows: one description, scope
 * and link), its ranks, its exposed transfer share and its bus bandwidth against the link's rated
 * figure, with a bar of that share (10 columns = the rated figure). The group column takes what the
 * others leave of the width. */
#define GROUP_FIXED 66 /* columns besides the group's name and n */
#define GROUP_N_MAX 9  /* the n column at most ("16x128") */
/* The all-to-all imbalance per group (issue 33), when the job has all-to-all instances. */
static void a2a_lines(const tw *t, const tc_job *j) {
    for (size_t g = 0; g < j->a2a.n_groups; g++) {
        const tc_a2a_group *gr = &j->a2a.groups[g];
        char line[800], hot[400] = "no rank causes wait";
        if (gr->hot_rank >= 0)
            snprintf(hot, sizeof hot, "hot rank %lld causes %.3f ms of the others' wait", (long long)gr->hot_rank,
                     gr->caused_wait_ns / 1e6);
        if (gr->deepep && !gr->n)
            snprintf(line, sizeof line, "all-to-all %.100s: %zu DeepEP dispatch/combine instance%s counted, not sized",
                     j->inst_groups[gr->inst_group].shown, gr->unsized, gr->unsized == 1 ? "" : "s");
        else
            snprintf(line, sizeof line, "all-to-all %.100s: %zu instance%s sized (%zu not), bytes sent max/mean up to %.2f; %s",
                     j->inst_groups[gr->inst_group].shown, gr->n, gr->n == 1 ? "" : "s", gr->unsized, gr->max_ratio, hot);
        tc_term_wrap(t->out, line, 2, 4, t->width);
    }
}

static void group_table(const tw *t, const tc_job *j) {
    const tc_summary *sm = &j->summary;
    if (!j->n_group_rows) { a2a_lines(t, j); return; } /* DeepEP's all-to-all runs outside process groups */
    int nw = 3; /* as wide as its widest "GxR", 3 at least */
    for (size_t k = 0; k < j->n_group_rows; k++) {
        char ranks[48];
        int c = (int)strlen(group_row_ranks(ranks, sizeof ranks, j, k));
        if (c > nw) nw = c < GROUP_N_MAX ? c : GROUP_N_MAX;
    }
    int gw = t->width - GROUP_FIXED - nw;
    fprintf(t->out, "\n%sProcess groups%s ", c_on(t, BOLD), c_off(t));
    tc_term_wrap_from(t->out, "(a row per description, scope and link; busbw against the link's rated figure)", 15, 2,
                      t->width);
    fprintf(t->out, "%-*s %*s %-5s %-18s %8s %6s %6s %5s\n", gw, "group", nw, "n", "scope", "link",
            sm->split_known ? "exp xfer" : "exp comm", "busbw", "rated", "used");
    fprintf(t->out, "%-*s %*s %-5s %-18s %8s %6s %6s %5s\n", gw, "", nw, "", "", "", "% GPU", "GB/s", "GB/s", "%");
    const char **labels = calloc(j->n_group_rows, sizeof *labels);
    char (*text)[96] = calloc(j->n_group_rows, sizeof *text);
    bool partial = false;
    for (size_t k = 0; labels && text && k < j->n_group_rows; k++) {
        const tc_group_row *row = &j->group_rows[k];
        const tc_process_group *g = &j->groups[row->first];
        snprintf(text[k], sizeof text[k], "%s%.60s%s", g->desc ? "" : "pg ", g->desc ? g->desc : g->name,
                 row->f.partial ? " *" : "");
        labels[k] = text[k];
    }
    for (size_t k = 0; labels && text && k < j->n_group_rows; k++) {
        const tc_group_row *row = &j->group_rows[k];
        const tc_group_figures *f = &row->f;
        char group[4 * 64 + 1], link[4 * 18 + 1], bus[24], rated[24], share[16], bar[16], ranks[48], nc[4 * GROUP_N_MAX + 1];
        tc_term_name_cell(group, sizeof group, labels[k], labels, j->n_group_rows, -gw);
        group_row_ranks(ranks, sizeof ranks, j, k);
        partial |= f->partial;
        tc_term_cell(link, sizeof link, f->link.id ? f->link.name : "?", -18);
        if (f->has_busbw) tc_term_fit(bus, sizeof bus, f->busbw_GBps, 1, 6); else snprintf(bus, sizeof bus, "-");
        if (f->link.id) tc_term_fit(rated, sizeof rated, f->link.rated_GBps, 1, 6); else snprintf(rated, sizeof rated, "-");
        snprintf(share, sizeof share, "-");
        bar[0] = '\0';
        if (f->has_share) {
            tc_fmt_pct(share, sizeof share, f->share_of_rated, 0);
            int fill = f->share_of_rated >= 1 ? 10 : (int)(10 * f->share_of_rated + 0.5);
            for (int i = 0; i < 10; i++) bar[i] = i < fill ? '#' : '.';
            bar[10] = '\0';
        }
        char ex[TC_PCT_LEN];
        fprintf(t->out, "%s %s %-5s %s %8s %6s %6s %5s%s%s\n", group, tc_term_cell(nc, sizeof nc, ranks, nw),
                f->scope == TC_SCOPE_INTRA ? "intra" : f->scope == TC_SCOPE_INTER ? "inter" : "?", link,
                TC_PCT1(ex, f->split_known ? row->exposed_transfer_share : row->exposed_comm_share), bus, rated, share,
                bar[0] ? " " : "", bar);
    }
    free(labels);
    free(text);
    fputs(c_on(t, DIM), t->out);
    tc_term_wrap(t->out, "n = ranks in each group (GxR: G groups of R ranks folded into the row); scope: intra = inside "
                 "a node, inter = between nodes; used = busbw / rated (# = 10%)", 2, 4, t->width);
    if (partial)
        tc_term_wrap(t->out, "* ranks missing from the inputs: exposed transfer an upper bound, busbw a lower bound", 2, 4,
                     t->width);
    if (sm->groups_without_comm) {
        char line[160];
        snprintf(line, sizeof line, "(%zu more process group%s without collective kernels in these traces)",
                 sm->groups_without_comm, sm->groups_without_comm == 1 ? "" : "s");
        tc_term_wrap(t->out, line, 2, 4, t->width);
    }
    tc_nccl_text_lines(t->out, j, t->width);
    fputs(c_off(t), t->out);
    a2a_lines(t, j);
}

/* The Actions section: what the verdict suggests doing (tc_findings.actions), wrapped to the width. */
static void actions(const tw *t, const tc_job *j) {
    const tc_findings *f = &j->findings;
    if (!f->n_actions) return;
    fprintf(t->out, "\n%sActions%s\n", c_on(t, BOLD), c_off(t));
    for (size_t i = 0; i < f->n_actions; i++) {
        char a[700], item[740];
        tc_action_text(a, sizeof a, &f->actions[i], j);
        snprintf(item, sizeof item, "%zu. %.700s", i + 1, a);
        tc_term_wrap(t->out, item, 2, 5, t->width);
    }
}

/* A note naming where the communication came from, when some of it is not NCCL's or RCCL's (those
 * kernels were compute before the catalog knew them: docs/definitions.md). */
static void comm_libraries_note(const tw *t, const tc_summary *sm) {
    bool other = false;
    for (uint8_t lib = 1; lib < TC_COMM_LIB_COUNT; lib++)
        other |= sm->comm_kernels[lib] && lib != TC_COMM_NCCL && lib != TC_COMM_RCCL && lib != TC_COMM_ARGS;
    if (!other) return;
    char line[1200];
    size_t n = (size_t)snprintf(line, sizeof line, "note: communication kernels by library:");
    const char *sep = " ";
    for (uint8_t lib = 1; lib < TC_COMM_LIB_COUNT && n < sizeof line; lib++) {
        if (!sm->comm_kernels[lib]) continue;
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s %llu (%.3f ms)", sep, tc_comm_lib_name(lib),
                              (unsigned long long)sm->comm_kernels[lib], ms(sm->comm_kernel_ns[lib]));
        sep = ", ";
    }
    if (sm->comm_kernels[TC_COMM_DEEPEP] && n < sizeof line) snprintf(line + n, sizeof line - n, "; " TC_DEEPEP_UNSIZED_NOTE);
    fputs(c_on(t, DIM), t->out);
    tc_term_wrap(t->out, line, 2, 8, t->width);
    fputs(c_off(t), t->out);
}

/* The profiler windows the inputs hold, when more than one, and which this summary is. */
static void windows_line(const tw *t, const tc_job *j) {
    if (j->n_windows < 2) return;
    char line[1600];
    size_t n = (size_t)snprintf(line, sizeof line, "profiler windows: %zu in the inputs, oldest first:", j->n_windows);
    for (size_t w = 0; w < j->n_windows && n < sizeof line; w++) {
        const tc_window_info *wi = &j->windows[w];
        if (wi->has_steps)
            n += (size_t)snprintf(line + n, sizeof line - n, "%s %zu (steps %lld-%lld, %zu files)", w ? ";" : "", w + 1,
                                  (long long)wi->first_step, (long long)wi->last_step, wi->files);
        else n += (size_t)snprintf(line + n, sizeof line - n, "%s %zu (%zu files)", w ? ";" : "", w + 1, wi->files);
    }
    if (n < sizeof line)
        snprintf(line + n, sizeof line - n, ". This is window %zu%s", j->window,
                 j->window == j->n_windows ? " (the most recent; --window K or --window all for the others)" : "");
    fputs(c_on(t, DIM), t->out);
    tc_term_wrap(t->out, line, 2, 4, t->width);
    fputs(c_off(t), t->out);
}

/* The Collectives section: the first 20 rows. The group column is as wide as its widest label
 * (short: "pg 0 (default_pg)", "stream 84"), the name gets what the figures leave; a name longer
 * than its column goes on a line of its own, whole up to the width, with the row's figures on the
 * next line. */
#define COLL_FIXED 55 /* columns besides the collective's and the group's names */
#define COLL_ROWS 20
#define COLL_GROUP_MAX 20 /* the group column at most */
static void collectives_table(const tw *t, const tc_job *j) {
    if (!j->n_colls) return;
    size_t shown = j->n_colls < COLL_ROWS ? j->n_colls : COLL_ROWS;
    const char *cn[COLL_ROWS], *gn[COLL_ROWS];
    char cell[4 * 1024 + 1];
    int names = t->width - COLL_FIXED - 1, gw = 5; /* "group" */
    for (size_t i = 0; i < shown; i++) {
        cn[i] = j->colls[i].name; gn[i] = j->colls[i].process_group;
        int c = (int)tc_term_cols(tc_term_clean(cell, sizeof cell, gn[i], 0));
        if (c > gw) gw = c;
    }
    if (gw > COLL_GROUP_MAX) gw = COLL_GROUP_MAX;
    if (gw > names - 10) gw = names - 10; /* "collective": longer names go on a line of their own */
    int nw = names - gw;
    fprintf(t->out, "\n%sCollectives%s (matched across ranks; transfer = the fastest rank's kernel)\n", c_on(t, BOLD),
            c_off(t));
    fprintf(t->out, "%-*s %-*s %3s %6s %8s %9s %10s %6s %6s\n", nw, "collective", gw, "group", "n", "count", "size",
            "transfer", "wait", "algbw", "busbw");
    char med[40], sum[40]; /* "µs" is 3 bytes for 2 columns: padded by columns */
    fprintf(t->out, "%-*s %-*s %3s %6s %8s %s %s %6s %6s\n", nw, "", gw, "", "", "", "each",
            tc_term_cell(med, sizeof med, "µs, med", 9), tc_term_cell(sum, sizeof sum, "µs, sum", 10), "GB/s", "GB/s");
    for (size_t i = 0; i < shown; i++) {
        const tc_collective_result *c = &j->colls[i];
        char size[24], alg[24], bus[24], xfer[24], wait[24], name[4 * 1024 + 1], group[4 * 64 + 1], n[24], count[24];
        if (c->has_bw) { tc_term_fit(alg, sizeof alg, c->algbw_GBps, 1, 6); tc_term_fit(bus, sizeof bus, c->busbw_GBps, 1, 6); }
        else { snprintf(alg, sizeof alg, "n/a"); snprintf(bus, sizeof bus, "n/a"); }
        if (c->group_size >= 0) snprintf(n, sizeof n, "%lld", (long long)c->group_size); else snprintf(n, sizeof n, "?");
        snprintf(count, sizeof count, "%llu", (unsigned long long)c->count);
        tc_term_fit(xfer, sizeof xfer, (double)c->transfer_ns_median / 1e3, 1, 9);
        tc_term_fit(wait, sizeof wait, (double)c->wait_ns_total / 1e3, 1, 10);
        tc_term_name_row(t->out, name, sizeof name, c->name, cn, shown, nw, t->width); /* its own line when too long */
        fprintf(t->out, "%s %s %3s %6s %8s %9s %10s %6s %6s\n", name,
                tc_term_name_cell(group, sizeof group, c->process_group, gn, shown, -gw), n, count,
                tc_fmt_bytes(size, sizeof size, c->bytes), xfer, wait, alg, bus);
    }
    if (j->n_colls > shown) fprintf(t->out, "  ... %zu more rows in --json and --csv\n", j->n_colls - shown);
    fputs(c_on(t, DIM), t->out);
    tc_term_wrap(t->out, "n = ranks in the group; count = matched instances; size = bytes each rank sends (nccl-tests' "
                 "S); transfer = the median instance; wait = summed over ranks and instances", 2, 4, t->width);
    fputs(c_off(t), t->out);
}

/* The verdict, its reasons and the partial-data reasons. */
static void verdict_lines(const tw *t, const tc_job *j) {
    const tc_summary *sm = &j->summary;
    FILE *out = t->out;
    const char *vc = sm->verdict == TC_VERDICT_COMPUTE ? GREEN : sm->verdict == TC_VERDICT_HOST ? YELLOW
                     : sm->verdict == TC_VERDICT_TOO_SMALL ? BOLD : RED; /* too small: no alarm */
    char basis[TC_FINDING_TEXT], said[TC_FINDING_TEXT + 24];
    fprintf(out, "%sVerdict: %s%s", c_on(t, vc), tc_verdict_words(sm->verdict), c_off(t));
    if (sm->partial) { /* on the verdict's line, wrapped after it */
        snprintf(said, sizeof said, "(on partial data: %s)", tc_basis_summary_text(basis, sizeof basis, sm));
        fputc(' ', out);
        tc_term_wrap_from(out, said, (int)strlen(tc_verdict_words(sm->verdict)) + 10, 2, t->width);
    } else fprintf(out, "\n");
    for (size_t i = 0; i < j->findings.n_reasons; i++) {
        char reason[TC_FINDING_TEXT], item[TC_FINDING_TEXT + 8];
        snprintf(item, sizeof item, "- %s", tc_reason_text(reason, sizeof reason, &j->findings.reasons[i], j));
        tc_term_wrap(out, item, 2, 4, t->width);
    }
    for (size_t i = 0; i < sm->n_basis_reasons; i++) {
        char reason[TC_FINDING_TEXT], item[TC_FINDING_TEXT + 24];
        snprintf(item, sizeof item, "- partial data: %s", tc_basis_reason_text(reason, sizeof reason, &sm->basis_reasons[i]));
        tc_term_wrap(out, item, 2, 4, t->width);
    }
}

/* Which window the verdict and the money judge: the step window's figures when the job has steps,
 * else a note that they are the GPU window's (docs/definitions.md "Step window"). */
static void step_window_lines(const tw *t, const tc_summary *sm) {
    FILE *out = t->out;
    char line[400];
    if (!sm->step.has) {
        fputs(c_on(t, DIM), out);
        tc_term_wrap(out, "no ProfilerStep: the verdict and the money use the GPU window", 2, 4, t->width);
        fputs(c_off(t), out);
        return;
    }
    const tc_window_figures *w = &sm->step;
    snprintf(line, sizeof line, "step window %.3f ms (%s; the verdict and the money use it):", ms(w->b.window_ns),
             sm->ranks == 1 ? "the rank's ProfilerStep spans with its GPU window"
                            : "the ranks' ProfilerStep spans with their GPU windows, summed");
    tc_term_wrap(out, line, 2, 4, t->width);
    char it[4][160];
    const char *items[4];
    char p[TC_PCT_LEN];
    snprintf(it[0], sizeof it[0], "compute %s", TC_PCT1(p, w->compute));
    snprintf(it[1], sizeof it[0], "exposed comm %s", TC_PCT1(p, w->exposed_comm));
    snprintf(it[2], sizeof it[0], "memory %s", TC_PCT1(p, w->memory_exposed));
    snprintf(it[3], sizeof it[0], "idle %s (%.3f ms before the first GPU event, %.3f ms after the last)",
             TC_PCT1(p, w->idle), ms(w->before_first_kernel_ns), ms(w->after_last_kernel_ns));
    for (size_t i = 0; i < 4; i++) items[i] = it[i];
    tc_term_join(out, items, 4, " | ", 4, 4, t->width);
}

/* How the nodes were decided, and what the evidence lacked or where it disagreed. */
static void nodes_lines(const tw *t, const tc_summary *sm) {
    char rule[200], note[TC_FINDING_TEXT], line[TC_FINDING_TEXT + 220];
    snprintf(line, sizeof line, "nodes: %s", tc_nodes_rule_text(rule, sizeof rule, sm));
    tc_term_wrap(t->out, line, 2, 4, t->width);
    if (!tc_nodes_note_text(note, sizeof note, sm)[0]) return;
    snprintf(line, sizeof line, "note: %s", note);
    fputs(c_on(t, DIM), t->out);
    tc_term_wrap(t->out, line, 2, 8, t->width);
    fputs(c_off(t), t->out);
}

/* The job's figures under the verdict: size and devices, the shares, ratio, step time, bandwidth. */
static void totals(const tw *t, const tc_job *j) {
    const tc_summary *sm = &j->summary;
    FILE *out = t->out;
    size_t steps = 0;
    for (size_t r = 0; r < j->n_ranks; r++) if (j->ranks[r].n_steps > steps) steps = j->ranks[r].n_steps;
    char line[1200], devices[600];
    devices_text(devices, sizeof devices, j);
    snprintf(line, sizeof line, "tracecost %s: %zu rank%s%s%s, %zu step%s; GPU time %.3f ms (%s)", TC_VERSION, sm->ranks,
             sm->ranks == 1 ? "" : "s", devices[0] ? " on " : "", devices, steps, steps == 1 ? "" : "s",
             ms(sm->b.window_ns), sm->ranks == 1 ? "the rank's GPU window" : "the ranks' GPU windows summed");
    fprintf(out, "\n%s", c_on(t, BOLD));
    tc_term_wrap(out, line, 0, 2, t->width);
    fputs(c_off(t), out);
    nodes_lines(t, sm);
    windows_line(t, j);
    char it[6][160];
    const char *items[6];
    size_t n = 0;
    char p[3][TC_PCT_LEN];
    snprintf(it[n++], sizeof it[0], "compute %s", TC_PCT1(p[0], sm->share_compute));
    if (sm->split_known)
        snprintf(it[n++], sizeof it[0], "exposed comm %s (transfer %s, wait %s)", TC_PCT1(p[0], sm->share_exposed_comm),
                 TC_PCT1(p[1], sm->share_exposed_transfer), TC_PCT1(p[2], sm->share_exposed_wait));
    else snprintf(it[n++], sizeof it[0], "exposed comm %s", TC_PCT1(p[0], sm->share_exposed_comm));
    if (sm->share_memory_device_exposed >= TC_SHOWN_SHARE)
        snprintf(it[n++], sizeof it[0], "memory %s (host %s, device %s)", TC_PCT1(p[0], sm->share_memory_exposed),
                 TC_PCT1(p[1], sm->share_memory_host_exposed), TC_PCT1(p[2], sm->share_memory_device_exposed));
    else snprintf(it[n++], sizeof it[0], "memory %s", TC_PCT1(p[0], sm->share_memory_exposed));
    snprintf(it[n++], sizeof it[0], "idle %s", TC_PCT1(p[0], sm->share_idle));
    for (size_t i = 0; i < n; i++) items[i] = it[i];
    tc_term_join(out, items, n, " | ", 2, 4, t->width);
    step_window_lines(t, sm);
    n = 0;
    if (sm->has_ratio) snprintf(it[n++], sizeof it[0], "comm/compute ratio %.3f", sm->comm_compute_ratio);
    else snprintf(it[n++], sizeof it[0], "comm/compute ratio n/a (no compute)");
    if (sm->has_step_time) snprintf(it[n++], sizeof it[0], "step time %.3f ms (mean)", ms(sm->step_time_ns));
    else snprintf(it[n++], sizeof it[0], "step time n/a (no ProfilerStep)");
    if (sm->has_fabric_busbw) snprintf(it[n++], sizeof it[0], "fabric busbw %.1f GB/s", sm->fabric_busbw_GBps);
    for (size_t i = 0; i < n; i++) items[i] = it[i];
    tc_term_join(out, items, n, " | ", 2, 4, t->width);
    tc_mfu_text_summary(out, j, c_on(t, DIM), c_off(t), t->width);
    comm_libraries_note(t, sm);
    if (!sm->split_known && sm->ranks < 2) {
        fputs(c_on(t, DIM), out);
        tc_term_wrap(out, "note: wait and transfer need two or more ranks of the job to be split", 2, 8, t->width);
        fputs(c_off(t), out);
    }
}

void tc_text_report_write(FILE *out, const tc_job *j, const tc_term_opts *o) {
    tw t = {out, o->color, o->width};
    const tc_summary *sm = &j->summary;
    verdict_lines(&t, j);
    totals(&t, j);
    per_rank_table(&t, j);
    tc_host_wait_text(out, j, c_on(&t, BOLD), c_off(&t), c_on(&t, DIM), c_off(&t), t.width);
    tc_replay_text(out, j, c_on(&t, BOLD), c_off(&t), c_on(&t, DIM), c_off(&t), t.width);
    if (sm->has_straggler) {
        const tc_straggler *s = &sm->straggler;
        char wait[TC_FINDING_TEXT], line[TC_FINDING_TEXT + 200], pw[2][TC_PCT_LEN];
        fprintf(out, "\n%sStraggler: rank %lld%s\n", c_on(&t, BOLD), (long long)s->rank, c_off(&t));
        snprintf(line, sizeof line, "causes %s of the waiting, arrives last at %s of collectives; %s; its compute "
                 "%.3f ms per step vs the median rank's %.3f ms", tc_fmt_pct(pw[0], sizeof pw[0], s->caused_wait_share, 0),
                 tc_fmt_pct(pw[1], sizeof pw[1], s->last_arrival_share, 0),
                 tc_straggler_wait_text(wait, sizeof wait, s->waiting_ranks, s->wait_per_rank_ns_per_step,
                                        s->caused_wait_ns_per_step),
                 ms(s->compute_ns_per_step), ms(s->median_compute_ns_per_step));
        tc_term_wrap(out, line, 2, 2, t.width);
    }
    group_table(&t, j);
    tc_pipeline_text(out, j, c_on(&t, BOLD), c_off(&t), c_on(&t, DIM), c_off(&t), t.width);
    collectives_table(&t, j);
    tc_mfu_text_top_kernels(out, j, c_on(&t, BOLD), c_off(&t), t.width);
    tc_ops_text(out, j, c_on(&t, BOLD), c_off(&t), t.width);
    size_t nwarn = j->n_warnings;
    for (size_t i = 0; i < j->n_traces; i++) nwarn += j->traces[i].n_warnings;
    if (nwarn) {
        fprintf(out, "\n%sWarnings%s\n", c_on(&t, YELLOW), c_off(&t));
        for (size_t i = 0; i < j->n_traces; i++)
            for (size_t k = 0; k < j->traces[i].n_warnings; k++) {
                char item[1200];
                snprintf(item, sizeof item, "%s: %s", j->traces[i].path, j->traces[i].warnings[k]);
                tc_term_wrap(out, item, 2, 4, t.width);
            }
        for (size_t i = 0; i < j->n_warnings; i++) tc_term_wrap(out, j->warnings[i], 2, 4, t.width);
    }
}

void tc_text_report_actions(FILE *out, const tc_job *j, const tc_term_opts *o) {
    tw t = {out, o->color, o->width};
    actions(&t, j);
}
