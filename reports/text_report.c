/* text_report.c: terminal summary (see text_report.h). */
#include "text_report.h"
#include "../analyzer/version.h"
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

static void row(const tw *t, const char *label, const char *device, const tc_breakdown *b, bool has_ratio,
                double ratio, bool has_step, int64_t step_ns) {
    char tr[16], wa[16], rt[16], st[16];
    fmt_pct_or_na(tr, sizeof tr, b->split_known, b->exposed_transfer_ns, b->window_ns);
    fmt_pct_or_na(wa, sizeof wa, b->split_known, b->exposed_wait_ns, b->window_ns);
    if (has_ratio) snprintf(rt, sizeof rt, "%.2f", ratio); else snprintf(rt, sizeof rt, "n/a");
    if (has_step) snprintf(st, sizeof st, "%.3f", ms(step_ns)); else snprintf(st, sizeof st, "n/a");
    fprintf(t->out, "%-6s %-17.17s %11.3f %7.1f%% %7.1f%% %8s %7s %7.1f%% %6.1f%% %6s %10s\n", label,
            device ? device : "?", ms(b->window_ns), pct(b->compute_ns, b->window_ns),
            pct(b->exposed_comm_ns, b->window_ns), tr, wa, pct(b->memory_exposed_ns, b->window_ns),
            pct(b->idle_ns, b->window_ns), rt, st);
}

void tc_text_report_write(FILE *out, const tc_job *j, bool color) {
    tw t = {out, color};
    const tc_summary *sm = &j->summary;
    size_t steps = 0;
    for (size_t r = 0; r < j->n_ranks; r++) if (j->ranks[r].n_steps > steps) steps = j->ranks[r].n_steps;
    const char *vc = sm->verdict == TC_VERDICT_COMPUTE ? GREEN : sm->verdict == TC_VERDICT_HOST ? YELLOW : RED;
    fprintf(out, "%sVerdict: %s%s\n", c_on(&t, vc), tc_verdict_name(sm->verdict), c_off(&t));
    for (size_t i = 0; i < sm->n_reasons; i++) fprintf(out, "  - %s\n", sm->reasons[i]);
    fprintf(out, "\n%stracecost %s: %zu rank%s, %zu step%s, summed GPU window %.3f ms%s\n", c_on(&t, BOLD), TC_VERSION,
            sm->ranks, sm->ranks == 1 ? "" : "s", steps, steps == 1 ? "" : "s", ms(sm->b.window_ns), c_off(&t));
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
    if (!sm->split_known && sm->ranks < 2)
        fprintf(out, "  %snote: wait and transfer need two or more ranks of the job to be split%s\n", c_on(&t, DIM), c_off(&t));

    fprintf(out, "\n%sPer rank%s (shares of each rank's window; exp = exposed, not hidden by compute)\n", c_on(&t, BOLD), c_off(&t));
    fprintf(out, "%-6s %-17s %11s %8s %8s %8s %7s %8s %7s %6s %10s\n", "rank", "device", "window ms", "compute",
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

    if (sm->has_straggler) {
        fprintf(out, "\n%sStraggler: rank %lld%s causes %.0f%% of the waiting, arrives last at %.0f%% of collectives,\n"
                "  makes the others wait %.3f ms per step; its compute %.3f ms/step vs median %.3f ms\n", c_on(&t, BOLD),
                (long long)sm->straggler.rank, c_off(&t), 100 * sm->straggler.caused_wait_share, 100 * sm->straggler.last_arrival_share, ms(sm->straggler.caused_wait_ns_per_step),
                ms(sm->straggler.compute_ns_per_step), ms(sm->straggler.median_compute_ns_per_step));
    }

    if (j->n_colls) {
        fprintf(out, "\n%sCollectives%s (matched across ranks; transfer = fastest rank's kernel; GB = 1e9 B)\n", c_on(&t, BOLD), c_off(&t));
        fprintf(out, "%-26s %-20s %5s %7s %12s %12s %12s %9s %9s\n", "collective", "group", "n", "count", "bytes",
                "transfer us", "wait us", "algbw", "busbw");
        size_t shown = 0;
        for (size_t i = 0; i < j->n_colls && shown < 20; i++, shown++) {
            const tc_collective_result *c = &j->colls[i];
            char bytes[24], alg[16], bus[16];
            if (c->bytes >= 0) snprintf(bytes, sizeof bytes, "%lld", (long long)c->bytes); else snprintf(bytes, sizeof bytes, "?");
            if (c->has_bw) { snprintf(alg, sizeof alg, "%.1f", c->algbw_GBps); snprintf(bus, sizeof bus, "%.1f", c->busbw_GBps); }
            else { snprintf(alg, sizeof alg, "n/a"); snprintf(bus, sizeof bus, "n/a"); }
            fprintf(out, "%-26.26s %-20.20s %5lld %7llu %12s %12.1f %12.1f %9s %9s\n", c->name, c->process_group,
                    (long long)c->group_size, (unsigned long long)c->count, bytes, (double)c->transfer_ns_median / 1e3,
                    (double)c->wait_ns_total / 1e3, alg, bus);
        }
        if (j->n_colls > shown) fprintf(out, "  ... %zu more rows in --json\n", j->n_colls - shown);
    }

    size_t nwarn = j->n_warnings;
    for (size_t i = 0; i < j->n_traces; i++) nwarn += j->traces[i].n_warnings;
    if (nwarn) {
        fprintf(out, "\n%sWarnings%s\n", c_on(&t, YELLOW), c_off(&t));
        for (size_t i = 0; i < j->n_traces; i++)
            for (size_t k = 0; k < j->traces[i].n_warnings; k++)
                fprintf(out, "  %s: %s\n", j->traces[i].path, j->traces[i].warnings[k]);
        for (size_t i = 0; i < j->n_warnings; i++) fprintf(out, "  %s\n", j->warnings[i]);
    }
}
