/* text_report.c: terminal summary (see text_report.h). */
#include "text_report.h"
#include "findings_text.h"
#include "host_wait_report.h"
#include "mfu_report.h"
#include "base/version.h"
#include "termtext.h"
#include <string.h>

typedef struct {
    FILE *out;
    bool color;
} tw;

static const char *c_on(const tw *t, const char *code) { return t->color ? code : ""; }
static const char *c_off(const tw *t) { return t->color ? "\033[0m" : ""; }
#define BOLD "\033[1m"
#define RED "\033[1;31m"
#define YELLOW "\033[1;33m"
#define GREEN "\033[1;32m"
#define DIM "\033[2m"

static double pct(int64_t a, int64_t b) { return b > 0 ? 100.0 * (double)a / (double)b : 0; }
static double ms(int64_t ns) { return (double)ns / 1e6; }

static void fmt_pct_or_na(char *buf, size_t n, bool known, int64_t a, int64_t b) {
    if (known) snprintf(buf, n, "%.1f%%", pct(a, b));
    else snprintf(buf, n, "n/a");
}

/* Device name for a 14-column cell: the vendor prefix dropped, controls replaced. */
static const char *short_device(char *buf, size_t n, const char *device) {
    static const char *const prefixes[] = {"NVIDIA ", "Tesla ", "AMD ", NULL};
    if (!device) return "?";
    for (size_t i = 0; prefixes[i]; i++)
        if (!strncmp(device, prefixes[i], strlen(prefixes[i]))) { device += strlen(prefixes[i]); break; }
    return tc_term_clean(buf, n, device, 14);
}

/* One per-rank row; columns add up to 100 (see the header in tc_text_report_write). */
static void row(const tw *t, const char *label, const char *device, const tc_breakdown *b, bool has_ratio,
                double ratio, bool has_step, int64_t step_ns) {
    char tr[16], wa[16], rt[16], st[24], win[24], dev[64];
    fmt_pct_or_na(tr, sizeof tr, b->split_known, b->exposed_transfer_ns, b->window_ns);
    fmt_pct_or_na(wa, sizeof wa, b->split_known, b->exposed_wait_ns, b->window_ns);
    if (has_ratio) tc_term_fit(rt, sizeof rt, ratio, 2, 5); else snprintf(rt, sizeof rt, "n/a");
    if (has_step) tc_term_fit(st, sizeof st, ms(step_ns), 3, 10); else snprintf(st, sizeof st, "n/a");
    tc_term_fit(win, sizeof win, ms(b->window_ns), 3, 10);
    fprintf(t->out, "%-5.5s %-14s %10s %7.1f%% %7.1f%% %8s %7s %7.1f%% %6.1f%% %5s %10s\n", label,
            short_device(dev, sizeof dev, device), win, pct(b->compute_ns, b->window_ns),
            pct(b->exposed_comm_ns, b->window_ns), tr, wa, pct(b->memory_exposed_ns, b->window_ns),
            pct(b->idle_ns, b->window_ns), rt, st);
}

/* The Process groups section: one line per row of groups (tc_job.group_rows: one description, scope
 * and link), its exposed transfer share and its bus bandwidth against the link's rated figure, with
 * a bar of that share (10 columns = the rated figure). */
static void group_table(const tw *t, const tc_job *j) {
    const tc_summary *sm = &j->summary;
    if (!j->n_group_rows) return;
    fprintf(t->out, "\n%sProcess groups%s (one row per description, scope and link; busbw against the link's rated "
            "figure)\n", c_on(t, BOLD), c_off(t));
    fprintf(t->out, "%-18s %3s %-10s %-18s %8s %7s %7s %8s\n", "group", "n", "scope", "link",
            sm->split_known ? "exp xfer" : "exp comm", "busbw", "rated", "of rated");
    bool partial = false;
    for (size_t k = 0; k < j->n_group_rows; k++) {
        const tc_group_row *row = &j->group_rows[k];
        const tc_group_figures *f = &row->f;
        const tc_process_group *g = &j->groups[row->first];
        char label[80], group[96], link[96], bus[24], rated[24], share[16], bar[16];
        snprintf(label, sizeof label, "%s%.60s%s", g->desc ? "" : "pg ", g->desc ? g->desc : g->name,
                 f->partial ? " *" : "");
        tc_term_cell(group, sizeof group, label, -18);
        partial |= f->partial;
        tc_term_cell(link, sizeof link, f->link.id ? f->link.name : "?", -18);
        if (f->has_busbw) tc_term_fit(bus, sizeof bus, f->busbw_GBps, 1, 7); else snprintf(bus, sizeof bus, "-");
        if (f->link.id) tc_term_fit(rated, sizeof rated, f->link.rated_GBps, 1, 7); else snprintf(rated, sizeof rated, "-");
        snprintf(share, sizeof share, "-");
        bar[0] = '\0';
        if (f->has_share) {
            snprintf(share, sizeof share, "%.0f%%", 100 * f->share_of_rated);
            int fill = f->share_of_rated >= 1 ? 10 : (int)(10 * f->share_of_rated + 0.5);
            for (int i = 0; i < 10; i++) bar[i] = i < fill ? '#' : '.';
            bar[10] = '\0';
        }
        fprintf(t->out, "%s %3zu %-10s %s %7.1f%% %7s %7s %8s%s%s\n", group, row->groups, tc_scope_text(f->scope), link,
                100 * (f->split_known ? row->exposed_transfer_share : row->exposed_comm_share), bus, rated, share,
                bar[0] ? " " : "", bar);
    }
    if (partial)
        fprintf(t->out, "  %s* ranks missing from the inputs: exposed transfer an upper bound, busbw a lower bound%s\n",
                c_on(t, DIM), c_off(t));
    if (sm->groups_without_comm)
        fprintf(t->out, "  %s(%zu more process group%s without collective kernels in these traces)%s\n", c_on(t, DIM),
                sm->groups_without_comm, sm->groups_without_comm == 1 ? "" : "s", c_off(t));
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
        tc_term_wrap(t->out, item, 2, 5, TC_TERM_WIDTH);
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
    fputs(c_on(t, DIM), t->out);
    tc_term_wrap(t->out, line, 2, 8, TC_TERM_WIDTH);
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
    tc_term_wrap(t->out, line, 2, 4, TC_TERM_WIDTH);
    fputs(c_off(t), t->out);
}

void tc_text_report_write(FILE *out, const tc_job *j, bool color) {
    tw t = {out, color};
    const tc_summary *sm = &j->summary;
    size_t steps = 0;
    for (size_t r = 0; r < j->n_ranks; r++) if (j->ranks[r].n_steps > steps) steps = j->ranks[r].n_steps;
    const char *vc = sm->verdict == TC_VERDICT_COMPUTE ? GREEN : sm->verdict == TC_VERDICT_HOST ? YELLOW : RED;
    char basis[TC_FINDING_TEXT], said[TC_FINDING_TEXT + 24];
    fprintf(out, "%sVerdict: %s%s", c_on(&t, vc), tc_verdict_name(sm->verdict), c_off(&t));
    if (sm->partial) { /* on the verdict's line, wrapped after it */
        snprintf(said, sizeof said, "(on partial data: %s)", tc_basis_summary_text(basis, sizeof basis, sm));
        fputc(' ', out);
        tc_term_wrap_from(out, said, (int)strlen(tc_verdict_name(sm->verdict)) + 10, 2, TC_TERM_WIDTH);
    } else fprintf(out, "\n");
    for (size_t i = 0; i < j->findings.n_reasons; i++) {
        char reason[TC_FINDING_TEXT], item[TC_FINDING_TEXT + 8];
        snprintf(item, sizeof item, "- %s", tc_reason_text(reason, sizeof reason, &j->findings.reasons[i], j));
        tc_term_wrap(out, item, 2, 4, TC_TERM_WIDTH);
    }
    for (size_t i = 0; i < sm->n_basis_reasons; i++) {
        char reason[TC_FINDING_TEXT], item[TC_FINDING_TEXT + 24];
        snprintf(item, sizeof item, "- partial data: %s", tc_basis_reason_text(reason, sizeof reason, &sm->basis_reasons[i]));
        tc_term_wrap(out, item, 2, 4, TC_TERM_WIDTH);
    }
    fprintf(out, "\n%stracecost %s: %zu rank%s, %zu step%s, summed GPU window %.3f ms%s\n", c_on(&t, BOLD), TC_VERSION,
            sm->ranks, sm->ranks == 1 ? "" : "s", steps, steps == 1 ? "" : "s", ms(sm->b.window_ns), c_off(&t));
    windows_line(&t, j);
    fprintf(out, "  compute %.1f%% | exposed comm %.1f%%", 100 * sm->share_compute, 100 * sm->share_exposed_comm);
    if (sm->split_known)
        fprintf(out, " (transfer %.1f%%, wait %.1f%%)", 100 * sm->share_exposed_transfer, 100 * sm->share_exposed_wait);
    fprintf(out, " | memory %.1f%% | idle %.1f%%\n", 100 * sm->share_memory_exposed, 100 * sm->share_idle);
    fprintf(out, "  comm/compute ratio ");
    if (sm->has_ratio) fprintf(out, "%.3f", sm->comm_compute_ratio); else fprintf(out, "n/a (no compute)");
    fprintf(out, " | MFU ");
    if (sm->has_mfu) fprintf(out, "%.1f%%", 100 * sm->mfu); else fprintf(out, "n/a");
    fprintf(out, " | step time ");
    if (sm->has_step_time) fprintf(out, "%.3f ms", ms(sm->step_time_ns)); else fprintf(out, "n/a (no ProfilerStep)");
    if (sm->has_fabric_busbw) fprintf(out, " | fabric busbw %.1f GB/s", sm->fabric_busbw_GBps);
    fprintf(out, "\n");
    tc_mfu_text_summary(out, j, c_on(&t, DIM), c_off(&t));
    comm_libraries_note(&t, sm);
    if (!sm->split_known && sm->ranks < 2)
        fprintf(out, "  %snote: wait and transfer need two or more ranks of the job to be split%s\n", c_on(&t, DIM), c_off(&t));

    fprintf(out, "\n%sPer rank%s (shares of each rank's window; exp = exposed, not hidden by compute)\n", c_on(&t, BOLD), c_off(&t));
    fprintf(out, "%-5s %-14s %10s %8s %8s %8s %7s %8s %7s %5s %10s\n", "rank", "device", "window ms", "compute",
            "exp comm", "transfer", "wait", "memory", "idle", "c/c", "step ms");
    for (size_t r = 0; r < j->n_ranks; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        char label[24];
        snprintf(label, sizeof label, "%lld", (long long)rr->rank);
        row(&t, label, rr->device, &rr->b, rr->has_ratio, rr->comm_compute_ratio, rr->has_step_time, rr->step_time_ns);
    }
    if (j->n_ranks > 1) {
        tc_breakdown b = sm->b;
        b.split_known = sm->split_known;
        row(&t, "all", "", &b, sm->has_ratio, sm->comm_compute_ratio, sm->has_step_time, sm->step_time_ns);
    }
    tc_host_wait_text(out, j, c_on(&t, BOLD), c_off(&t), c_on(&t, DIM), c_off(&t));

    if (sm->has_straggler) {
        const tc_straggler *s = &sm->straggler;
        char wait[TC_FINDING_TEXT], line[TC_FINDING_TEXT + 200];
        fprintf(out, "\n%sStraggler: rank %lld%s\n", c_on(&t, BOLD), (long long)s->rank, c_off(&t));
        snprintf(line, sizeof line, "causes %.0f%% of the waiting, arrives last at %.0f%% of collectives; %s; its compute "
                 "%.3f ms per step vs the median rank's %.3f ms", 100 * s->caused_wait_share, 100 * s->last_arrival_share,
                 tc_straggler_wait_text(wait, sizeof wait, s->waiting_ranks, s->wait_per_rank_ns_per_step,
                                        s->caused_wait_ns_per_step),
                 ms(s->compute_ns_per_step), ms(s->median_compute_ns_per_step));
        tc_term_wrap(out, line, 2, 2, TC_TERM_WIDTH);
    }

    group_table(&t, j);

    if (j->n_colls) {
        fprintf(out, "\n%sCollectives%s (matched across ranks; transfer = fastest rank's kernel; GB = 1e9 B)\n", c_on(&t, BOLD), c_off(&t));
        fprintf(out, "%-21s %-14s %4s %7s %11s %11s %10s %7s %7s\n", "collective", "group", "n", "count", "bytes",
                "transfer us", "wait us", "algbw", "busbw");
        size_t shown = 0;
        for (size_t i = 0; i < j->n_colls && shown < 20; i++, shown++) {
            const tc_collective_result *c = &j->colls[i];
            char bytes[24], alg[24], bus[24], xfer[24], wait[24], name[96], group[64], n[24];
            if (c->bytes >= 0) snprintf(bytes, sizeof bytes, "%lld", (long long)c->bytes); else snprintf(bytes, sizeof bytes, "?");
            if (c->has_bw) { tc_term_fit(alg, sizeof alg, c->algbw_GBps, 1, 7); tc_term_fit(bus, sizeof bus, c->busbw_GBps, 1, 7); }
            else { snprintf(alg, sizeof alg, "n/a"); snprintf(bus, sizeof bus, "n/a"); }
            if (c->group_size >= 0) snprintf(n, sizeof n, "%lld", (long long)c->group_size); else snprintf(n, sizeof n, "?");
            tc_term_fit(xfer, sizeof xfer, (double)c->transfer_ns_median / 1e3, 1, 11);
            tc_term_fit(wait, sizeof wait, (double)c->wait_ns_total / 1e3, 1, 10);
            fprintf(out, "%-21s %-14s %4s %7llu %11s %11s %10s %7s %7s\n", tc_term_clean(name, sizeof name, c->name, 21),
                    tc_term_clean(group, sizeof group, c->process_group, 14), n, (unsigned long long)c->count, bytes,
                    xfer, wait, alg, bus);
        }
        if (j->n_colls > shown) fprintf(out, "  ... %zu more rows in --json\n", j->n_colls - shown);
    }

    tc_mfu_text_top_kernels(out, j, c_on(&t, BOLD), c_off(&t));

    size_t nwarn = j->n_warnings;
    for (size_t i = 0; i < j->n_traces; i++) nwarn += j->traces[i].n_warnings;
    if (nwarn) {
        fprintf(out, "\n%sWarnings%s\n", c_on(&t, YELLOW), c_off(&t));
        for (size_t i = 0; i < j->n_traces; i++)
            for (size_t k = 0; k < j->traces[i].n_warnings; k++)
            {
                char item[1200];
                snprintf(item, sizeof item, "%s: %s", j->traces[i].path, j->traces[i].warnings[k]);
                tc_term_wrap(out, item, 2, 4, TC_TERM_WIDTH);
            }
        for (size_t i = 0; i < j->n_warnings; i++) tc_term_wrap(out, j->warnings[i], 2, 4, TC_TERM_WIDTH);
    }
}

void tc_text_report_actions(FILE *out, const tc_job *j, bool color) {
    tw t = {out, color};
    actions(&t, j);
}
