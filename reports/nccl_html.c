/* nccl_html.c: the HTML report's section "NCCL's own account" (html_page.h): per process group with
 * NCCL records (process_groups[].nccl), the records joined and why the others were not, NCCL's busbw
 * beside the trace's, and the algorithm/protocol/channels mix of its plugin records; the job's notes.
 * Left out without NCCL logs. */
#include "html_page.h"
#include "textfmt.h"
#include <inttypes.h>

/* "Ring/Simple 16 ch: 145, Ring/Simple 8 ch: 24" */
static void mix_cell(hr *h, const tc_nccl_log *l, const tc_nccl_group *g) {
    put(h, "<td class=\"name\">");
    const char *sep = "";
    for (size_t m = 0; m < l->n_mixes; m++) {
        if (!g->mix_records[m]) continue;
        const tc_nccl_mix *x = &l->mixes[m];
        put(h, sep);
        esc(h, x->algorithm[0] ? x->algorithm : "?");
        put(h, "/");
        esc(h, x->protocol[0] ? x->protocol : "?");
        if (x->channels >= 0) pf(h, " %d ch", (int)x->channels);
        pf(h, ": %" PRId64, g->mix_records[m]);
        sep = "<br>";
    }
    if (!*sep) put(h, g->has_plugin ? "none joined" : "n/a");
    put(h, "</td>");
}

static void busbw_cell(hr *h, bool has, double v) {
    if (has) pf(h, "<td class=\"n\" data-v=\"%.9g\">%.1f</td>", v, v);
    else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");
}

void tc_html_section_nccl(hr *h) {
    const tc_job *j = h->j;
    const tc_nccl_result *r = &j->nccl;
    if (!r->present || !r->groups) return;
    put(h, "<section id=\"nccl\">\n<h2>NCCL's own account</h2>\n");
    pf(h, "<p class=\"note\">NCCL's Inspector records and profiler plugin COLL records joined to the collectives they "
          "describe (docs/nccl.md), counted per rank and summed over each group's ranks. Unjoined: under the size floor "
          "(%" PRId64 " bytes, NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES), dropped (the ring buffer or event pool), timed on "
          "the CPU. NCCL busbw = &Sigma; bytes x the nccl-tests factor / &Sigma; NCCL's exec time over the joined "
          "records; trace busbw: the process group's, from the kernels. GB = 1e9 bytes.</p>\n", r->min_size);
    put(h, "<div class=\"scroll\"><table id=\"nccl-table\" class=\"sortable\">\n<thead><tr><th>group</th>"
           "<th class=\"n\">joined</th><th class=\"n\">below<br>floor</th><th class=\"n\">dropped</th><th class=\"n\">"
           "CPU-<br>timed</th><th class=\"n\">NCCL busbw<br>GB/s</th><th class=\"n\">trace busbw<br>GB/s</th>"
           "<th class=\"n\">plugin<br>joined</th><th>algorithm/protocol channels: records</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < j->n_groups; i++) {
        const tc_nccl_group *g = &r->groups[i];
        const tc_process_group *pg = &j->groups[i];
        if (!g->has) continue;
        put(h, "<tr><td class=\"name\">");
        esc_max(h, pg->name, 64);
        if (pg->desc) { put(h, " ("); esc_max(h, pg->desc, 64); put(h, ")"); }
        pf(h, "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64
              "</td><td class=\"n\">%" PRId64 "</td>", g->c.joined, g->c.below_min_size, g->c.dropped, g->c.cpu_timed);
        busbw_cell(h, g->has_busbw, g->busbw_GBps);
        busbw_cell(h, pg->f.has_busbw, pg->f.busbw_GBps);
        if (g->has_plugin) pf(h, "<td class=\"n\">%" PRId64 "</td>", g->plugin_joined);
        else put(h, "<td class=\"n\" data-v=\"NaN\">n/a</td>");
        mix_cell(h, &r->log, g);
        put(h, "</tr>\n");
    }
    put(h, "</tbody></table></div>\n");
    if (r->n_notes) {
        put(h, "<ul class=\"note\">\n");
        for (size_t i = 0; i < r->n_notes; i++) { put(h, "<li>"); esc(h, r->notes[i]); put(h, "</li>\n"); }
        put(h, "</ul>\n");
    }
    put(h, "</section>\n");
}
