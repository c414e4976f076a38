/* html_tables.c: the HTML report's tables (see html_page.h): per rank, process groups and their
 * links, collectives and bus bandwidth, top compute kernels, the inputs and their warnings. Numbers
 * are rounded for reading, each exact in its tooltip and sortable by its data-v. */
#include "html_page.h"
#include "findings_text.h"
#include "textfmt.h"

/* A sort key in plain decimal (tc_fmt_attr), in a buffer that lives to the end of the statement's
 * block (a compound literal): several in one call are distinct. */
#define TMP ((char[TC_ATTR_LEN]){0})
#define AV(v) tc_fmt_attr(TMP, TC_ATTR_LEN, (v), 9)
#include <string.h>

/* A table cell of ns: rounded ms, the exact ms in its tooltip, the ns to sort by. */
static void ms_cell(hr *h, int64_t ns) {
    char a[40], b[40];
    pf(h, "<td class=\"n\" data-v=\"%lld\" data-tip=\"%s ms\">%s</td>", (long long)ns, tc_html_ms_exact(a, sizeof a, ns),
       tc_html_ms_round(b, sizeof b, ns));
}

/* A table cell of ns as µs rounded to 0.1, the exact µs in its tooltip. */
static void us_cell(hr *h, int64_t ns) {
    char a[40];
    pf(h, "<td class=\"n\" data-v=\"%lld\" data-tip=\"%s &micro;s\">%.1f</td>", (long long)ns, tc_html_us_exact(a, sizeof a, ns),
       (double)ns / 1e3);
}

/* Whether every rank names the same device (the table then leaves its column out). */
static bool one_device(const tc_job *j) {
    for (size_t r = 1; r < j->n_ranks; r++) {
        const char *x = j->ranks[0].device, *y = j->ranks[r].device;
        if ((x == NULL) != (y == NULL) || (x && strcmp(x, y))) return false;
    }
    return true;
}

/* The per-rank table: numbers rounded for reading, each exact in its tooltip. */
void tc_html_rank_table(hr *h) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    size_t n = j->n_ranks;
    bool dev = !one_device(j);
    char a[40], b[40], c[40], p4[TC_PCT_LEN];
    put(h, "<h3>Per rank</h3>\n<p class=\"note\">Shares of the rank's own GPU window");
    if (!dev && j->ranks[0].device) { put(h, "; every rank on "); esc(h, j->ranks[0].device); }
    put(h, ". Hover a number for its exact value; click a column to sort.</p>\n"
           "<div class=\"scroll\"><table id=\"rank-table\" class=\"sortable\">\n<thead><tr><th class=\"n\">rank</th>");
    if (dev) put(h, "<th>device</th>");
    put(h, "<th class=\"n\">window<br>ms</th><th class=\"n\">compute<br>%</th>"
           "<th class=\"n\">exp. transfer<br>%</th><th class=\"n\">exp. wait<br>%</th><th class=\"n\">exp. comm<br>%</th>"
           "<th class=\"n\">exp. memory<br>%</th><th class=\"n\">idle<br>%</th><th class=\"n\">comm/<br>compute</th>"
           "<th class=\"n\">step<br>ms, mean</th><th class=\"n\">clock offset<br>&micro;s</th><th class=\"n\">last arrival<br>%</th>"
           "<th class=\"n\">others wait<br>ms/step</th></tr></thead>\n<tbody>\n");
    for (size_t r = 0; r < n; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        const tc_breakdown *bd = &rr->b;
        pf(h, "<tr><td class=\"n\" data-v=\"%lld\">%lld%s</td>", (long long)rr->rank, (long long)rr->rank,
           sm->has_straggler && rr->rank == sm->straggler.rank ? " <span class=\"tag\">straggler</span>" : "");
        if (dev) { put(h, "<td class=\"dev\">"); esc(h, rr->device ? rr->device : "?"); put(h, "</td>"); }
        ms_cell(h, bd->window_ns);
#define PCELL(ns, known)                                                                                            \
    do {                                                                                                            \
        if (known) pf(h, "<td class=\"n\" data-v=\"%.6f\" data-tip=\"%s ms = %s\">%s</td>", share(ns, bd->window_ns),     \
                      tc_html_ms_exact(b, sizeof b, ns), tc_html_pct(p4, sizeof p4, share(ns, bd->window_ns), 4),     \
                      tc_html_pct_num(c, sizeof c, share(ns, bd->window_ns), 1));                                   \
        else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");                                                     \
    } while (0)
        PCELL(bd->compute_ns, true);
        PCELL(bd->exposed_transfer_ns, bd->split_known);
        PCELL(bd->exposed_wait_ns, bd->split_known);
        PCELL(bd->exposed_comm_ns, true);
        PCELL(bd->memory_exposed_ns, true);
        PCELL(bd->idle_ns, true);
#undef PCELL
        if (rr->has_ratio)
            pf(h, "<td class=\"n\" data-v=\"%s\" data-tip=\"%.6f\">%.2f</td>", AV(rr->comm_compute_ratio), rr->comm_compute_ratio,
               rr->comm_compute_ratio);
        else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");
        if (rr->has_step_time) ms_cell(h, rr->step_time_ns); else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");
        if (rr->has_clock_offset) us_cell(h, rr->clock_offset_ns); else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");
        if (rr->matched_instances) {
            double sh = rr->last_arrival_share;
            pf(h, "<td class=\"n\" data-v=\"%.6f\" data-tip=\"%.2f of %llu matched collectives\">%s</td>", sh,
               rr->last_arrival_credit, (unsigned long long)rr->matched_instances, tc_html_pct_num(p4, sizeof p4, sh, 1));
            int64_t cw = rr->caused_wait_per_rank_ns_per_step;
            pf(h, "<td class=\"n\" data-v=\"%lld\" data-tip=\"%s ms per step for each other rank; %s GPU-ms per step in "
                  "total over the other ranks\">%s</td>", (long long)cw, tc_html_ms_exact(a, sizeof a, cw),
               tc_html_ms_exact(b, sizeof b, rr->caused_wait_ns_per_step), tc_html_ms_round(c, sizeof c, cw));
        } else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td><td class=\"n\" data-v=\"NaN\">n/a</td>");
        put(h, "</tr>\n");
    }
    put(h, "</tbody></table></div>\n");
}

/* ------------------------------------------------------------------ process groups */
/* A cell with a bar of busbw against the rated figure of its link (the bar's full width), or why
 * there is none (no busbw, or the link unknown). */
static void rated_bar_cell(hr *h, bool has_busbw, bool has_share, double share_of_rated) {
    if (!has_share) {
        pf(h, "<td data-v=\"NaN\">%s</td>", !has_busbw ? "n/a" : "n/a: link unknown");
        return;
    }
    double w = share_of_rated >= 1 ? 100 : 100 * share_of_rated; /* a CSS length, not a figure */
    char pr[TC_PCT_LEN];
    pf(h, "<td data-v=\"%s\"><span class=\"barbox\"><span class=\"bar\" style=\"width:%.1f%%\"></span></span>"
          "%s of rated</td>", AV(share_of_rated), w, tc_html_pct(pr, sizeof pr, share_of_rated, 0));
}

/* The names of row k's groups, "1, 2" (at most 8, then how many in all). */
static void row_names(hr *h, size_t k) {
    const tc_job *j = h->j;
    size_t shown = 0;
    for (size_t i = j->group_rows[k].first; i < j->n_groups; i++) {
        if (j->groups[i].row != k) continue;
        if (shown == 8) { pf(h, ", &hellip; (%zu in all)", j->group_rows[k].groups); break; }
        if (shown++) put(h, ", ");
        esc_max(h, j->groups[i].name, 64);
    }
}

void tc_html_section_groups(hr *h) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    if (!j->n_group_rows) {
        if (sm->b.comm_ns > 0) /* said where it matters, beside the collectives */
            put(h, "<section id=\"groups\">\n<h2>Process groups and their links</h2>\n<p class=\"note\">No collective "
                   "kernel names a process group (the traces carry no Process Group Name), so the links cannot be told "
                   "apart.</p>\n</section>\n");
        return; /* no collective kernel: the section is left out */
    }
    put(h, "<section id=\"groups\">\n<h2>Process groups and their links</h2>\n");
    put(h, "<p class=\"note\">One row per description, scope and link (groups folded, their figures summed over the "
           "groups and their ranks among the inputs). Exposed shares are of the GPU time summed over all ranks; groups "
           "whose kernels run at the same time each count that time. busbw = bytes x the nccl-tests factor / transfer "
           "over the groups' matched collectives of 1 MiB or more; the bar is that against the link's rated bandwidth "
           "per GPU in one direction (intra-node: the GPU's own link from the catalog; inter-node: --fabric or "
           "--nic-gbps, one NIC per GPU). GB = 1e9 bytes.");
    if (sm->groups_without_comm) pf(h, " %zu more process groups have no collective kernel in these traces.", sm->groups_without_comm);
    put(h, "</p>\n<div class=\"scroll\"><table id=\"group-table\" class=\"sortable\">\n<thead><tr><th>description"
           "</th><th>groups</th><th>scope</th><th>link</th><th class=\"n\">exposed transfer</th><th class=\"n\">"
           "exposed wait</th><th class=\"n\">exposed comm</th><th class=\"n\">busbw GB/s</th><th class=\"n\">rated "
           "GB/s</th><th>busbw vs rated</th></tr></thead>\n<tbody>\n");
    for (size_t k = 0; k < j->n_group_rows; k++) {
        const tc_group_row *row = &j->group_rows[k];
        const tc_group_figures *f = &row->f;
        const tc_process_group *g = &j->groups[row->first];
        put(h, "<tr><td class=\"name\">");
        esc_max(h, g->desc ? g->desc : "(none)", 96);
        if (f->partial) put(h, " <span class=\"note\">(ranks missing: transfer an upper bound, busbw a lower bound)</span>");
        put(h, "</td><td>");
        row_names(h, k);
        pf(h, "</td><td>%s</td><td>", tc_scope_text(f->scope));
        esc(h, f->link.id ? f->link.name : "unknown");
        int64_t w = sm->b.window_ns;
        char p1[TC_PCT_LEN], p2[TC_PCT_LEN];
        if (f->split_known)
            pf(h, "</td><td class=\"n\" data-v=\"%s\">%s</td><td class=\"n\" data-v=\"%s\">%s</td>",
               AV(row->exposed_transfer_share), tc_html_pct(p1, sizeof p1, row->exposed_transfer_share, 2),
               AV(share(f->sums.exposed_wait_ns, w)), tc_html_pct(p2, sizeof p2, share(f->sums.exposed_wait_ns, w), 2));
        else put(h, "</td><td class=\"n\" data-v=\"NaN\">n/a</td><td class=\"n\" data-v=\"NaN\">n/a</td>");
        pf(h, "<td class=\"n\" data-v=\"%s\">%s</td>", AV(row->exposed_comm_share),
           tc_html_pct(p1, sizeof p1, row->exposed_comm_share, 2));
        if (f->has_busbw) pf(h, "<td class=\"n\" data-v=\"%s\">%.3f</td>", AV(f->busbw_GBps), f->busbw_GBps);
        else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");
        if (f->link.id) pf(h, "<td class=\"n\" data-v=\"%s\">%s</td>", AV(f->link.rated_GBps),
                              tc_fmt_num(TMP, TC_ATTR_LEN, f->link.rated_GBps, tc_sig_decimals(f->link.rated_GBps, 4)));
        else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");
        rated_bar_cell(h, f->has_busbw, f->has_share, f->share_of_rated);
        put(h, "</tr>\n");
    }
    put(h, "</tbody></table></div>\n</section>\n");
}

/* ------------------------------------------------------------------ collectives */
/* Where the communication came from, when some of it is not NCCL's or RCCL's (as the terminal). */
static void comm_libraries(hr *h) {
    const tc_summary *sm = &h->j->summary;
    bool other = false;
    for (uint8_t lib = 1; lib < TC_COMM_LIB_COUNT; lib++)
        other |= sm->comm_kernels[lib] && lib != TC_COMM_NCCL && lib != TC_COMM_RCCL && lib != TC_COMM_ARGS;
    if (!other) return;
    put(h, "<p class=\"note\" id=\"comm-libraries\">Communication kernels by library (docs/definitions.md lists the "
           "kernels recognised):");
    const char *sep = " ";
    for (uint8_t lib = 1; lib < TC_COMM_LIB_COUNT; lib++) {
        if (!sm->comm_kernels[lib]) continue;
        put(h, sep);
        esc(h, tc_comm_lib_name(lib));
        pf(h, " %llu (%.3f ms)", (unsigned long long)sm->comm_kernels[lib], (double)sm->comm_kernel_ns[lib] / 1e6);
        sep = ", ";
    }
    put(h, ".</p>\n");
}

/* Collectives: the terminal's table (its columns, every row), with the bar against the rated
 * figure; left out when nothing was matched across ranks. */
void tc_html_section_collectives(hr *h) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    char a[40];
    if (!j->n_colls) return;
    put(h, "<section id=\"collectives\">\n<h2>Communication: collectives and bus bandwidth</h2>\n");
    comm_libraries(h);
    put(h, "<p class=\"note\">One row per (process group, collective, message size), as in the terminal. Transfer = "
           "the median instance of the fastest rank's kernel (the others waited for it); wait = summed over ranks and "
           "instances. algbw = bytes / transfer; busbw = algbw x the nccl-tests factor (allreduce 2(n-1)/n, "
           "allgather and reduce-scatter (n-1)/n, others 1); GB = 1e9 bytes. The bar shows each row's busbw against "
           "the rated bandwidth of its process group's link. ");
    if (sm->has_fabric_busbw)
        pf(h, "Over every process group together the collectives of 1 MiB or more reach %.1f GB/s (bytes-weighted; a "
              "blend of the links).", sm->fabric_busbw_GBps);
    else put(h, "No collective of 1 MiB or more with sizes was matched.");
    put(h, "</p>\n<div class=\"scroll\"><table id=\"coll-table\" class=\"sortable\">\n<thead><tr><th>collective</th>"
           "<th>group</th><th class=\"n\">n<br>ranks</th><th class=\"n\">count</th><th class=\"n\">size<br>each</th>"
           "<th class=\"n\">transfer<br>&micro;s, med</th><th class=\"n\">wait<br>&micro;s, sum</th><th class=\"n\">algbw"
           "<br>GB/s</th><th class=\"n\">busbw<br>GB/s</th><th>busbw vs rated</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < j->n_colls; i++) {
        const tc_collective_result *c = &j->colls[i];
        put(h, "<tr><td class=\"name\" data-tip=\"dtype ");
        esc(h, c->dtype ? c->dtype : "unknown");
        put(h, "\">");
        esc(h, c->name);
        put(h, "</td><td>"); esc(h, c->process_group);
        if (c->group_size > 0) pf(h, "</td><td class=\"n\" data-v=\"%lld\">%lld</td>", (long long)c->group_size, (long long)c->group_size);
        else put(h, "</td><td class=\"n\" data-v=\"NaN\">?</td>");
        pf(h, "<td class=\"n\" data-v=\"%llu\">%llu</td>", (unsigned long long)c->count, (unsigned long long)c->count);
        if (c->bytes >= 0)
            pf(h, "<td class=\"n\" data-v=\"%lld\" data-tip=\"%lld bytes\">%s</td>", (long long)c->bytes, (long long)c->bytes,
               tc_fmt_bytes(a, sizeof a, c->bytes));
        else put(h, "<td class=\"n\" data-v=\"NaN\">?</td>");
        us_cell(h, c->transfer_ns_median);
        us_cell(h, c->wait_ns_total);
        if (c->has_bw) {
            pf(h, "<td class=\"n\" data-v=\"%s\" data-tip=\"%.6f GB/s\">%.1f</td><td class=\"n\" data-v=\"%s\" "
                  "data-tip=\"%.6f GB/s\">%.1f</td>", AV(c->algbw_GBps), c->algbw_GBps, c->algbw_GBps, AV(c->busbw_GBps),
               c->busbw_GBps, c->busbw_GBps);
            rated_bar_cell(h, true, c->has_share, c->share_of_rated);
        } else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td><td class=\"n\" data-v=\"NaN\">n/a</td><td data-v=\"NaN\">n/a</td>");
        put(h, "</tr>\n");
    }
    put(h, "</tbody></table></div>\n</section>\n");
}

/* ------------------------------------------------------------------ top kernels */
/* The terminal's top compute kernels (tc_job.top_kernels: compute kernels over all ranks, share of
 * the summed compute-kernel time, achieved TFLOP/s where FLOPs are known); every GPU event name is in
 * --csv's kernels.csv. Left out when there is no compute kernel. */
void tc_html_section_kernels(hr *h) {
    const tc_job *j = h->j;
    if (!j->n_top_kernels) return;
    put(h, "<section id=\"kernels\">\n<h2>Top compute kernels</h2>\n");
    pf(h, "<p class=\"note\">Compute kernels over all ranks by summed time, as in the terminal (the top %zu). Share = of "
          "the summed compute-kernel time; achieved TFLOP/s = the FLOPs of the kernel's ops / its time, where the trace "
          "recorded shapes. Communication kernels are in the collectives table; every GPU event (kernels, copies, "
          "sets) is in <code>--csv</code>'s kernels.csv.</p>\n", j->n_top_kernels);
    put(h, "<div class=\"scroll\"><table id=\"kernel-table\" class=\"sortable\">\n<thead><tr><th class=\"n\">#</th>"
           "<th>kernel</th><th class=\"n\">time<br>ms, sum</th><th class=\"n\">count<br>launches</th>"
           "<th class=\"n\">share<br>% comp</th><th class=\"n\">TFLOP/s<br>achieved</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < j->n_top_kernels; i++) {
        const tc_kernel_row *k = &j->top_kernels[i];
        pf(h, "<tr><td class=\"n\" data-v=\"%zu\">%zu</td><td class=\"name\">", i + 1, i + 1);
        esc(h, k->name);
        put(h, "</td>");
        ms_cell(h, k->time_ns);
        char pc[TC_PCT_LEN], p4[TC_PCT_LEN];
        pf(h, "<td class=\"n\" data-v=\"%llu\">%llu</td><td class=\"n\" data-v=\"%s\" data-tip=\"%s\">%s</td>",
           (unsigned long long)k->count, (unsigned long long)k->count, AV(k->share_of_compute),
           tc_html_pct(p4, sizeof p4, k->share_of_compute, 4),
           tc_html_pct_num(pc, sizeof pc, k->share_of_compute, 1));
        if (k->has_tflops)
            pf(h, "<td class=\"n\" data-v=\"%s\" data-tip=\"%.6f TFLOP/s\">%.1f</td></tr>\n", AV(k->achieved_tflops),
               k->achieved_tflops, k->achieved_tflops);
        else put(h, "<td class=\"n\" data-v=\"NaN\">-</td></tr>\n");
    }
    put(h, "</tbody></table></div>\n</section>\n");
}

/* ------------------------------------------------------------------ inputs */
void tc_html_section_inputs(hr *h) {
    const tc_job *j = h->j;
    put(h, "<section id=\"inputs\">\n<h2>Inputs and warnings</h2>\n<div class=\"scroll\"><table id=\"input-table\" "
           "class=\"sortable\">\n<thead><tr><th>file</th><th class=\"n\">rank</th><th class=\"n\">bytes read</th>"
           "<th class=\"n\">events</th><th class=\"n\">GPU events</th><th class=\"n\">skipped</th><th>state</th>"
           "</tr></thead>\n<tbody>\n");
    size_t nwarn = j->n_warnings;
    for (size_t i = 0; i < j->n_traces; i++) {
        const tc_trace *t = &j->traces[i];
        nwarn += t->n_warnings;
        put(h, "<tr><td class=\"name\">");
        esc(h, t->path);
        pf(h, "</td><td class=\"n\" data-v=\"%lld\">%lld</td><td class=\"n\" data-v=\"%llu\">%llu</td>"
              "<td class=\"n\" data-v=\"%llu\">%llu</td><td class=\"n\" data-v=\"%llu\">%llu</td>"
              "<td class=\"n\" data-v=\"%llu\">%llu</td><td>%s%s</td></tr>\n",
           (long long)t->rank, (long long)t->rank, (unsigned long long)t->bytes, (unsigned long long)t->bytes,
           (unsigned long long)t->events_total, (unsigned long long)t->events_total, (unsigned long long)tc_trace_gpu_events(t),
           (unsigned long long)tc_trace_gpu_events(t),
           (unsigned long long)t->events_skipped, (unsigned long long)t->events_skipped,
           t->truncated ? "<span class=\"warn\">damaged or truncated</span>" : "complete",
           t->n_warnings ? " <span class=\"warn\">(warnings)</span>" : "");
    }
    put(h, "</tbody></table></div>\n");
    if (!nwarn) put(h, "<p class=\"note\" id=\"warnings\">No warnings.</p>\n");
    else {
        pf(h, "<h3 class=\"warn\">Warnings (%zu)</h3>\n<ul id=\"warnings\">\n", nwarn);
        for (size_t i = 0; i < j->n_traces; i++) {
            const tc_trace *t = &j->traces[i];
            for (size_t k = 0; k < t->n_warnings; k++) {
                put(h, "<li><span class=\"name\">"); esc(h, t->path); put(h, "</span>: "); esc(h, t->warnings[k]); put(h, "</li>\n");
            }
            if (t->warnings_dropped) {
                put(h, "<li>"); esc(h, t->path);
                pf(h, ": %llu more warnings not listed</li>\n", (unsigned long long)t->warnings_dropped);
            }
        }
        for (size_t i = 0; i < j->n_warnings; i++) { put(h, "<li>"); esc(h, j->warnings[i]); put(h, "</li>\n"); }
        put(h, "</ul>\n");
    }
    put(h, "</section>\n");
}
