/* compare_html.c: the HTML page of `tracecost compare` (see compare_report.h): the conclusion, the
 * two sides, bars of where each side's GPU time went, the metric table, the collectives, the ranks
 * and kernels, and the cost; the words and rows come from compare_words.h, the same as the text's. */
#include "compare_report.h"
#include "compare_words.h"
#include "cost_report.h"
#include "findings_text.h"
#include "html_kit.h"
#include "textfmt.h"
#include "base/version.h"
#include <string.h>

/* ---- HTML -------------------------------------------------------------------------------- */

/* Every string that may come from a trace or a saved result (labels, device, verdict, collective
 * names, groups, notes) goes through html_report's one escaper. NULL writes nothing. */
static void html_esc(FILE *out, const char *s) {
    if (s) tc_html_escape(out, s, strlen(s), 0);
}

/* The page up to the table: style, the workload warning, the conclusion and the two sides. */
static void html_head(FILE *out, const tc_comparison *c) {
    char d[DIFF_TEXT], concl[CONCLUSION_TEXT];
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>tracecost compare: ", out);
    html_esc(out, c->a->label);
    fputs(" vs ", out);
    html_esc(out, c->b->label);
    fputs("</title>\n<style>\n"
          "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1000px;color:#222;padding:1em}\n"
          "p,li,h1,h2,.warn{overflow-wrap:anywhere}td,th{white-space:nowrap}td.name,td.muted{white-space:normal}\n"
          "h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.8em;border-bottom:1px solid #ddd}\n"
          "section{overflow-x:auto}.scroll{overflow-x:auto}svg.chart{font-size:11px}" TC_HTML_CHART_CSS "\n"
          "table{border-collapse:collapse;width:100%}th,td{padding:.25em .6em;border-bottom:1px solid #eee;text-align:right}\n"
          "th:first-child,td:first-child{text-align:left}th{background:#f5f5f5}th[colspan]{text-align:center}td.name{text-align:left;word-break:break-all;"
          "font-family:ui-monospace,monospace;font-size:12px}\n"
          ".warn{background:#fde8e8;border:2px solid #c0392b;color:#7b1d12;padding:.7em 1em;font-weight:bold}\n"
          ".concl{background:#eef6ee;border-left:4px solid #2e7d32;padding:.7em 1em}\n"
          ".better{color:#1b6e20;font-weight:600}.worse{color:#b02a1c;font-weight:600}.muted{color:#666;font-size:.9em}\n"
          ".legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:13px}\n"
          ".sw{display:inline-block;width:12px;height:12px;border:1px solid #333;vertical-align:middle;margin-right:4px}\n"
          ".c-compute{fill:#0072B2;background:#0072B2}.c-transfer{fill:#D55E00;background:#D55E00}"
          ".c-wait{fill:#E69F00;background:#E69F00}.c-comm{fill:#CC79A7;background:#CC79A7}"
          ".c-memory{fill:#009E73;background:#009E73}.c-idle{fill:#DDDDDD;background:#DDDDDD}\n"
          "</style></head><body>\n<h1>tracecost compare</h1>\n", out);
    if (!c->same_workload) {
        char title[DIFF_TEXT];
        fputs("<div class=\"warn\" id=\"mismatch\">NOT THE SAME WORKLOAD: ", out);
        html_esc(out, tc_compare_mismatch_title(title, sizeof title, c));
        fputs("<ul>", out);
        for (size_t i = 0; i < c->n_differences; i++) {
            fputs("<li>", out);
            html_esc(out, tc_compare_diff_text(d, sizeof d, c, &c->differences[i]));
            fputs("</li>", out);
        }
        fputs("</ul></div>\n", out);
    }
    fputs("<p class=\"concl\" id=\"conclusion\">", out);
    html_esc(out, tc_compare_conclusion_text(concl, sizeof concl, c));
    fputs("</p>\n<p>", out);
    for (int k = 0; k < 2; k++) {
        const tc_run_summary *s = k ? c->b : c->a;
        fprintf(out, "%s%c: <b>", k ? "<br>" : "", k ? 'B' : 'A');
        html_esc(out, s->label);
        fprintf(out, "</b> (%s) ", tc_compare_side_kind(s));
        html_esc(out, s->device);
        if (s->partial) {
            fputs(" <span class=\"worse\">on partial data: ", out);
            char basis[TC_FINDING_TEXT];
            html_esc(out, tc_basis_list_text(basis, sizeof basis, s->basis, s->n_basis));
            fputs("</span>", out);
        }
    }
    fputs("</p>\n", out);
}

static const char *const bar_cls[] = {"c-compute", "c-transfer", "c-wait", "c-comm", "c-memory", "c-idle"};
static const char *const bar_label[] = {"compute", "exposed transfer", "exposed wait", "exposed comm (not split)",
                                        "exposed memory", "idle"};

/* The bars' drawing, wide or narrow (see TC_HTML_CHART_W). */
static void bars_svg(FILE *out, const tc_comparison *c, int narrow) {
    const int W = tc_html_chart_w(narrow), L = narrow ? 24 : 40, R = narrow ? 10 : 20, bh = 26, top = 8;
    double PW = W - L - R;
    tc_html_svg_open(out, "compare-bars", narrow, top + 2 * (bh + 10) + 20, "A and B: shares of GPU time");
    for (int side = 0; side < 2; side++) {
        const tc_run_summary *s = side ? c->b : c->a;
        double v[6] = {s->share_compute, s->split_known ? s->share_exposed_transfer : 0,
                       s->split_known ? s->share_exposed_wait : 0, s->split_known ? 0 : s->share_exposed_comm,
                       s->share_memory, s->share_idle};
        int y = top + side * (bh + 10);
        double x = L;
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-weight=\"bold\">%c</text>", L - 8, y + bh - 8,
                side ? 'B' : 'A');
        for (int k = 0; k < 6; k++) {
            char p2[TC_PCT_LEN];
            if (v[k] <= 0) continue;
            fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" class=\"%s\"><title>%c: %s %s</title></rect>",
                    x, y, v[k] * PW, bh, bar_cls[k], side ? 'B' : 'A', bar_label[k], tc_html_pct(p2, sizeof p2, v[k], 2));
            if (v[k] * PW >= 44)
                fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">%s</text>",
                        x + v[k] * PW / 2, y + bh - 9, k == 5 ? "#222" : "#fff", TC_HTML_PCT1(p2, v[k]));
            x += v[k] * PW;
        }
        fputs("\n", out);
    }
    fputs("</svg>\n", out);
}

/* The breakdown of each run as one stacked bar (A above B), the shares of its summed GPU windows. */
static void html_bars(FILE *out, const tc_comparison *c) {
    fputs("<section id=\"breakdown\"><h2>Where the GPU time went</h2>\n<ul class=\"legend\">", out);
    for (int k = 0; k < 6; k++) fprintf(out, "<li><span class=\"sw %s\"></span>%s</li>", bar_cls[k], bar_label[k]);
    fputs("</ul>\n", out);
    bars_svg(out, c, 0);
    bars_svg(out, c, 1);
    fputs("</section>\n", out);
}

/* A share pair as "A%", "B%", "+x.x pt" cells; the difference coloured when `better` says which
 * way is better (+1 more, -1 less, 0 neither). */
static void share_cells(FILE *out, const tc_cmp_pair *p, int better) {
    char v[TC_PCT_LEN];
    if (p->has_a) fprintf(out, "<td>%s</td>", tc_html_pct_num(v, sizeof v, p->a, 1)); else fputs("<td>-</td>", out);
    if (p->has_b) fprintf(out, "<td>%s</td>", tc_html_pct_num(v, sizeof v, p->b, 1)); else fputs("<td>-</td>", out);
    if (!p->has_diff) { fputs("<td>-</td>", out); return; }
    double pt = 100 * p->diff;
    int way = pt >= 0.05 ? better : pt <= -0.05 ? -better : 0;
    fprintf(out, "<td class=\"%s\">%s</td>", way > 0 ? "better" : way < 0 ? "worse" : "", tc_html_pct_pt(v, sizeof v, p->diff, 1));
}

/* A time pair (µs) as A and B cells (divided by `scale`, `decimals` shown), B / A, and the change
 * in words: faster in green, slower in red. */
static void time_cells(FILE *out, const tc_cmp_pair *p, double scale, int decimals, tc_cmp_change ch) {
    char rt[24];
    if (p->has_a) fprintf(out, "<td>%.*f</td>", decimals, p->a / scale); else fputs("<td>-</td>", out);
    if (p->has_b) fprintf(out, "<td>%.*f</td>", decimals, p->b / scale); else fputs("<td>-</td>", out);
    tc_compare_fmt_ratio(rt, sizeof rt, p);
    const char *cls = ch == TC_CMP_FASTER ? "better" : ch == TC_CMP_SLOWER ? "worse" : "";
    fprintf(out, "<td>%s</td><td class=\"%s\">%s</td>", rt, cls, tc_compare_change_name(ch));
}

/* Each rank of either run: its shares and step time, A against B. */
static void html_ranks(FILE *out, const tc_comparison *c) {
    if (!c->n_ranks) return;
    fputs("<section id=\"rank-diffs\"><h2>Per rank</h2>\n<p class=\"muted\">Shares of each rank's own GPU window in A and "
          "B, matched by rank number; the difference in percentage points is green where B is better (more compute, "
          "less exposed communication or idle), red where it is worse. Step time: the rank's mean; slower or faster "
          "beyond 2%.</p>\n<div class=\"scroll\"><table id=\"rank-diff-table\"><thead><tr><th rowspan=\"2\">rank</th>"
          "<th colspan=\"3\">compute %</th><th colspan=\"3\">exposed comm %</th><th colspan=\"3\">idle %</th>"
          "<th colspan=\"4\">step time ms</th></tr><tr><th>A</th><th>B</th><th>B &minus; A</th><th>A</th><th>B</th>"
          "<th>B &minus; A</th><th>A</th><th>B</th><th>B &minus; A</th><th>A</th><th>B</th><th>B / A</th><th>change</th>"
          "</tr></thead><tbody>\n", out);
    for (size_t i = 0; i < c->n_ranks; i++) {
        const tc_cmp_rank_row *r = &c->ranks[i];
        fprintf(out, "<tr><td>%lld</td>", r->rank);
        share_cells(out, &r->share_compute, +1);
        share_cells(out, &r->share_exposed_comm, -1);
        share_cells(out, &r->share_idle, -1);
        time_cells(out, &r->step_time_us, 1e3, 3, r->change);
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table></div></section>\n", out);
}

/* Each top compute kernel of either run: its share of compute and time per GPU per step. */
static void html_kernels(FILE *out, const tc_comparison *c) {
    if (!c->n_kernels) return;
    fputs("<section id=\"kernel-diffs\"><h2>Top compute kernels</h2>\n<p class=\"muted\">The top compute kernels of A and "
          "B matched by name: share of each run's compute-kernel time, and time per GPU per step (summed time / steps / "
          "ranks); faster (green) or slower (red) beyond 2%.</p>\n<div class=\"scroll\"><table id=\"kernel-diff-table\">"
          "<thead><tr><th rowspan=\"2\">kernel</th><th colspan=\"3\">share of compute %</th><th colspan=\"4\">"
          "&micro;s per GPU per step</th></tr><tr><th>A</th><th>B</th><th>B &minus; A</th><th>A</th><th>B</th>"
          "<th>B / A</th><th>change</th></tr></thead><tbody>\n", out);
    for (size_t i = 0; i < c->n_kernels; i++) {
        const tc_cmp_kernel_row *r = &c->kernels[i];
        fputs("<tr><td class=\"name\">", out);
        html_esc(out, (r->a ? r->a : r->b)->name);
        fputs("</td>", out);
        share_cells(out, &r->share_of_compute, 0);
        time_cells(out, &r->time_us_per_gpu_step, 1, 1, r->change);
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table></div></section>\n", out);
}

/* The side-by-side table: metric rows, straggler and verdict. */
static void html_metrics(FILE *out, const tc_comparison *c) {
    fputs("<section id=\"metrics\"><h2>Side by side</h2>\n<div class=\"scroll\"><table><tr><th>metric</th><th>A</th><th>B</th>"
          "<th>B &minus; A</th><th>B / A</th><th>how</th></tr>\n", out);
    row_text t;
    for (size_t i = 0; i < tc_compare_n_metrics; i++) {
        if (!tc_compare_format_row(c, i, &t)) continue;
        fprintf(out, "<tr><td>%s</td><td>", tc_compare_metrics[i].label);
        html_esc(out, t.a);
        fputs("</td><td>", out);
        html_esc(out, t.b);
        fputs("</td><td>", out);
        html_esc(out, t.diff);
        fprintf(out, "</td><td>%s</td><td class=\"muted\">%s</td></tr>\n", t.ratio, tc_compare_metrics[i].how);
    }
    fputs("<tr><td>straggler</td><td>", out);
    if (c->a->has_straggler) fprintf(out, "rank %lld", c->a->straggler_rank); else fputs("none", out);
    fputs("</td><td>", out);
    if (c->b->has_straggler) fprintf(out, "rank %lld", c->b->straggler_rank); else fputs("none", out);
    fputs("</td><td></td><td></td><td></td></tr>\n<tr><td>verdict</td><td>", out);
    html_esc(out, c->a->verdict);
    fputs("</td><td>", out);
    html_esc(out, c->b->verdict);
    fputs("</td><td></td><td></td><td></td></tr>\n</table></div></section>\n", out);
}

/* The collectives table (nothing when neither side has collectives). */
static void html_colls(FILE *out, const tc_comparison *c) {
    if (!c->n_colls) return;
    fputs("<section id=\"collectives\"><h2>Collectives</h2>\n<p class=\"muted\">Matched by name and bytes (the same process "
          "group preferred); transfer = median of the fastest rank's kernel, busbw per nccl-tests.</p>\n"
          "<div class=\"scroll\"><table><tr><th>collective</th><th>bytes</th><th>A transfer &micro;s</th><th>B transfer &micro;s</th>"
          "<th>B / A</th><th>A busbw GB/s</th><th>B busbw GB/s</th><th>change</th><th>group</th></tr>\n", out);
    for (size_t i = 0; i < c->n_colls; i++) {
        const tc_cmp_coll_row *r = &c->colls[i];
        const tc_cmp_coll *x = r->a ? r->a : r->b;
        char rt[24];
        tc_compare_fmt_ratio(rt, sizeof rt, &r->transfer_us);
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
        const char *cls = r->change == TC_CMP_FASTER ? "better" : r->change == TC_CMP_SLOWER ? "worse" : "";
        char g[1024];
        tc_compare_group_of(g, sizeof g, r);
        fprintf(out, "</td><td class=\"%s\">%s</td><td>", cls, tc_compare_change_name(r->change));
        html_esc(out, g);
        fputs("</td></tr>\n", out);
    }
    fputs("</table></div></section>\n", out);
}

/* Cost per unit of work and the page's end. */
static void html_cost(FILE *out, const tc_comparison *c) {
    char note[COST_NOTE_TEXT];
    fputs("<h2>Cost per unit of work</h2>\n<p>", out);
    if (!c->cost_a->has_cost) { fputs("A: ", out); html_esc(out, tc_compare_cost_note(note, sizeof note, c->cost_a)); fputs("<br>", out); }
    if (!c->cost_b->has_cost) { fputs("B: ", out); html_esc(out, tc_compare_cost_note(note, sizeof note, c->cost_b)); fputs("<br>", out); }
    char line[512];
    html_esc(out, tc_compare_monthly_text(line, sizeof line, c));
    if (c->has_monthly_diff) fputs(": W &times; work of A&#39;s step &times; (cost per unit B &minus; cost per unit A).", out);
    else fputs(".", out);
    fprintf(out, "</p>\n<p class=\"muted\">tracecost %s. Cost per step = P &times; N &times; step time / 3600 s; "
            "cost per effective GPU-hour = P / e with e = 1 &minus; exposed transfer share. Shares are of the "
            "summed GPU windows.</p>\n</body></html>\n", TC_VERSION);
}

int tc_compare_html_write(FILE *out, const tc_comparison *c) {
    html_head(out, c);
    html_bars(out, c);
    html_metrics(out, c);
    html_ranks(out, c);
    html_kernels(out, c);
    html_colls(out, c);
    html_cost(out, c);
    return ferror(out) ? -1 : 0;
}
