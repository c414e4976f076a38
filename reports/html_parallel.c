/* html_parallel.c: the HTML report's sections of the parallelism beyond data parallel (issue 33;
 * see html_page.h): "All-to-all: bytes by rank pair" (per all-to-all group a heatmap of its
 * rank x rank pair_bytes, the hot rank marked, and the instances' imbalance in a compact table) and
 * "Pipeline stages and bubbles" (a bar per stage of its step windows split into forward, backward,
 * P2P transfer and bubble, the slowest stage marked, and the stage table). Render only: every
 * figure is the analyzer's (tc_job.a2a, tc_job.pipeline). */
#include "html_page.h"
#include "textfmt.h"
#include "base/numfmt.h"
#include <stdlib.h>

/* ------------------------------------------------------------------ all-to-all heatmap */
/* At most this many cells a side (wide, narrow drawing): a larger group's ranks are summed in
 * blocks of consecutive group positions, so the drawing's size is bounded whatever the group. */
#define A2A_CELLS_WIDE 64
#define A2A_CELLS_NARROW 32
#define A2A_TOP_INSTANCES 50 /* instance rows shown per group (the JSON and CSV have every one) */
#define A2A_HEATMAPS 8        /* groups drawn (a drawing is up to 64 x 64 cells: the page stays small) */

/* A cell's colour: white-blue to dark blue by share t of the largest cell (ColorBrewer Blues ends). */
static void heat_colour(char *buf, size_t n, double t) {
    if (t < 0) t = 0;
    if (t > 1) t = 1;
    int r = (int)(247 + (8 - 247) * t + 0.5), g = (int)(251 + (48 - 251) * t + 0.5), b = (int)(255 + (107 - 255) * t + 0.5);
    snprintf(buf, n, "#%02x%02x%02x", r, g, b);
}

/* "rank 3" or "ranks 0-3" for the group positions [a, b). */
static const char *ranks_label(char *buf, size_t n, const tc_a2a_group *gr, size_t a, size_t b) {
    if (b - a == 1) snprintf(buf, n, "rank %lld", (long long)gr->ranks[a]);
    else snprintf(buf, n, "ranks %lld-%lld", (long long)gr->ranks[a], (long long)gr->ranks[b - 1]);
    return buf;
}

/* The group position of its hot rank; n_ranks when none. */
static size_t hot_position(const tc_a2a_group *gr) {
    for (size_t m = 0; m < gr->n_ranks; m++)
        if (gr->ranks[m] == gr->hot_rank) return m;
    return gr->n_ranks;
}

/* One drawing of group g's heatmap: rows send, columns receive, `blk` positions a cell. */
static void heatmap_svg(hr *h, size_t g, const tc_a2a_group *gr, int narrow) {
    size_t n = gr->n_ranks, maxc = narrow ? A2A_CELLS_NARROW : A2A_CELLS_WIDE;
    size_t blk = (n + maxc - 1) / maxc, cells = (n + blk - 1) / blk;
    int64_t *sum = calloc(cells * cells, sizeof *sum);
    if (!sum) { h->oom = true; return; }
    int64_t max = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t k = 0; k < n; k++) sum[(r / blk) * cells + k / blk] += gr->pair_bytes[r * n + k];
    for (size_t c = 0; c < cells * cells; c++) if (sum[c] > max) max = sum[c];
    const int W = tc_html_chart_w(narrow), L = narrow ? 44 : 70, R = narrow ? 48 : 60, top = 34;
    double side = (double)(W - L - R), cap = narrow ? side : 480;
    if (side > cap) side = cap;
    if (side > 36.0 * (double)cells) side = 36.0 * (double)cells;
    double cw = side / (double)cells;
    int H = top + (int)(side + 0.5) + 44;
    char id[40], aria[160], tip[200], col[8], from[64], to[64], b[48];
    snprintf(id, sizeof id, "a2a-heatmap-%zu", g);
    snprintf(aria, sizeof aria, "heatmap of the bytes each rank sends to each rank, %zu ranks%s", n,
             blk > 1 ? ", in blocks of ranks" : "");
    tc_html_svg_open(h->out, id, narrow, H, aria);
    pf(h, "<text x=\"%d\" y=\"12\">to %s &#8594;</text><text x=\"%d\" y=\"28\" text-anchor=\"end\">from</text>\n", L,
       blk > 1 ? "ranks" : "rank", L - 4);
    size_t col_every = (size_t)(26.0 / cw) + 1, row_every = (size_t)(13.0 / cw) + 1;
    put(h, "<g shape-rendering=\"crispEdges\">\n"); /* no seams between cells */
    for (size_t c = 0; c < cells; c += col_every)
        pf(h, "<text x=\"%.1f\" y=\"28\" text-anchor=\"middle\">%lld</text>", L + cw * ((double)c + 0.5),
           (long long)gr->ranks[c * blk]);
    put(h, "\n");
    for (size_t r = 0; r < cells; r++) {
        size_t ra = r * blk, rb = ra + blk < n ? ra + blk : n;
        double y = top + cw * (double)r;
        if (r % row_every == 0)
            pf(h, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%lld</text>", L - 4, y + cw / 2,
               (long long)gr->ranks[ra]);
        for (size_t c = 0; c < cells; c++) {
            size_t ca = c * blk, cb = ca + blk < n ? ca + blk : n;
            int64_t v = sum[r * cells + c];
            heat_colour(col, sizeof col, max > 0 ? (double)v / (double)max : 0);
            tc_fmt_grouped(b, sizeof b, (double)v, 0);
            snprintf(tip, sizeof tip, "%s sends %s: %s B", ranks_label(from, sizeof from, gr, ra, rb),
                     ranks_label(to, sizeof to, gr, ca, cb), b);
            pf(h, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" data-tip=\"%s\"/>", L + cw * (double)c,
               y, cw, cw, col, tip);
        }
        put(h, "\n");
    }
    put(h, "</g>\n");
    size_t hp = hot_position(gr);
    if (hp < n) { /* the hot rank's row (its block's) outlined, and named after it */
        double y = top + cw * (double)(hp / blk);
        pf(h, "<rect x=\"%d\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#D55E00\" stroke-width=\"2\"/>"
              "<text x=\"%.1f\" y=\"%.1f\" dominant-baseline=\"middle\" font-weight=\"bold\">&#9664; hot</text>\n",
           L, y, side, cw, L + side + 4, y + cw / 2);
    }
    double ly = top + side + 14; /* the legend: five steps from none to the largest cell */
    for (int s = 0; s < 5; s++) {
        heat_colour(col, sizeof col, s / 4.0);
        pf(h, "<rect x=\"%d\" y=\"%.1f\" width=\"16\" height=\"12\" fill=\"%s\" stroke=\"#888\" stroke-width=\".5\"/>", L + 16 * s,
           ly, col);
    }
    tc_fmt_bytes(b, sizeof b, max);
    pf(h, "<text x=\"%d\" y=\"%.1f\">0 to %s a cell</text>\n</svg>\n", L + 86, ly + 10, b);
    free(sum);
}

/* The group's instances causing the most wait, at most A2A_TOP_INSTANCES, most first. */
static size_t top_instances(const tc_a2a_result *a, const tc_a2a_group *gr, size_t *top) {
    size_t k = 0;
    for (size_t i = gr->first; i < gr->first + gr->n; i++) {
        size_t at = k < A2A_TOP_INSTANCES ? k++ : A2A_TOP_INSTANCES;
        if (at == A2A_TOP_INSTANCES) { /* full: in place of the last when it causes more */
            if (a->instances[i].caused_wait_ns <= a->instances[top[k - 1]].caused_wait_ns) continue;
            at = k - 1;
        }
        while (at > 0 && a->instances[top[at - 1]].caused_wait_ns < a->instances[i].caused_wait_ns) { top[at] = top[at - 1]; at--; }
        top[at] = i;
    }
    return k;
}

static void instance_table(hr *h, size_t g, const tc_a2a_group *gr) {
    const tc_a2a_result *a = &h->j->a2a;
    size_t top[A2A_TOP_INSTANCES];
    size_t k = top_instances(a, gr, top);
    char b[48], e[40], r[40];
    if (gr->n > k)
        pf(h, "<p class=\"note\">The %zu of %zu instances causing the most wait; the JSON and all_to_all_instances.csv have "
              "every one.</p>\n", k, gr->n);
    pf(h, "<div class=\"scroll\"><table id=\"a2a-instances-%zu\" class=\"sortable\">\n<thead><tr><th class=\"n\">seq</th>"
          "<th class=\"n\">max /<br>mean</th><th class=\"n\">hot<br>rank</th><th class=\"n\">hot rank<br>sends</th>"
          "<th class=\"n\">caused<br>wait ms</th></tr></thead>\n<tbody>\n", g);
    for (size_t t = 0; t < k; t++) {
        const tc_a2a_instance *ai = &a->instances[top[t]];
        int64_t hb = a->bytes[ai->bytes_at + ai->hot], wait = (int64_t)(ai->caused_wait_ns + 0.5);
        if (ai->seq >= 0) pf(h, "<tr><td class=\"n\" data-v=\"%lld\">%lld</td>", (long long)ai->seq, (long long)ai->seq);
        else put(h, "<tr><td class=\"n\" data-v=\"NaN\">?</td>");
        pf(h, "<td class=\"n\" data-v=\"%.6f\">%.2f</td><td class=\"n\" data-v=\"%lld\">%lld</td>", ai->ratio, ai->ratio,
           (long long)gr->ranks[ai->hot], (long long)gr->ranks[ai->hot]);
        tc_fmt_grouped(b, sizeof b, (double)hb, 0);
        pf(h, "<td class=\"n\" data-v=\"%lld\" data-tip=\"%s B\">%s</td>", (long long)hb, b, tc_fmt_bytes(e, sizeof e, hb));
        pf(h, "<td class=\"n\" data-v=\"%lld\" data-tip=\"%s ms\">%s</td></tr>\n", (long long)wait,
           tc_html_ms_exact(r, sizeof r, wait), tc_html_ms_round(e, sizeof e, wait));
    }
    put(h, "</tbody></table></div>\n");
}

void tc_html_section_all_to_all(hr *h) {
    const tc_job *j = h->j;
    const tc_a2a_result *a = &j->a2a;
    bool deepep = j->summary.comm_kernels[TC_COMM_DEEPEP] > 0;
    if (!a->n_groups && !deepep) return;
    put(h, "<section id=\"all-to-all\">\n<h2>All-to-all: bytes by rank pair</h2>\n");
    if (deepep) put(h, "<p class=\"note\" id=\"a2a-deepep\">" TC_DEEPEP_UNSIZED_NOTE ".</p>\n");
    if (!a->n_groups) { put(h, "</section>\n"); return; }
    put(h, "<p class=\"note\">Per group, the bytes each rank sends to each rank, summed over its sized all-to-all "
           "instances: a row per sender, a column per receiver, darker = more bytes; hover a cell for its bytes. Wider "
           "than 64 ranks (32 on a narrow screen) the ranks are summed in blocks of consecutive ranks. The hot rank is "
           "the one whose instances cause the most wait: each instance's other ranks wait its transfer time x (1 - "
           "their bytes / the hot rank's bytes).</p>\n");
    for (size_t g = 0; g < a->n_groups; g++) {
        const tc_a2a_group *gr = &a->groups[g];
        char w[40], s[TC_PCT_LEN];
        put(h, "<h3>");
        esc(h, j->inst_groups[gr->inst_group].shown);
        pf(h, "</h3>\n<p class=\"figures\" id=\"a2a-figures-%zu\">%u ranks; %zu instance%s sized", g, gr->n_ranks, gr->n,
           gr->n == 1 ? "" : "s");
        if (gr->unsized) pf(h, " (%zu not)", gr->unsized);
        if (gr->n) pf(h, "; bytes sent max/mean up to %.2f", gr->max_ratio);
        if (gr->hot_rank >= 0)
            pf(h, "; hot rank %lld causes %s ms of the others' wait (%s of the group's all-to-all time)", (long long)gr->hot_rank,
               tc_html_ms_round(w, sizeof w, (int64_t)(gr->caused_wait_ns + 0.5)),
               TC_HTML_PCT1(s, gr->rank_time_ns > 0 ? gr->caused_wait_ns / gr->rank_time_ns : 0));
        else if (gr->n) put(h, "; no rank causes wait (the bytes are even)");
        put(h, ".</p>\n");
        if (gr->unsized && !gr->deepep)
            put(h, "<p class=\"note\">Instances without sizes (no In msg nelems or dtype on a rank) are left out of the "
                   "figures.</p>\n");
        if (!gr->n) continue;
        if (g >= A2A_HEATMAPS) {
            pf(h, "<p class=\"note\">Not drawn: the first %d groups are (its pair bytes are in the JSON and "
                  "all_to_all_pairs.csv).</p>\n", A2A_HEATMAPS);
            instance_table(h, g, gr);
            continue;
        }
        heatmap_svg(h, g, gr, 0);
        heatmap_svg(h, g, gr, 1);
        instance_table(h, g, gr);
    }
    put(h, "</section>\n");
}

/* ------------------------------------------------------------------ pipeline */
enum { PP_FORWARD, PP_BACKWARD, PP_TRANSFER, PP_BUBBLE, PP_N };
static const char *const pp_class[PP_N] = {"c-compute", "c-i2", "c-transfer", "c-idle"};
static const char *const pp_label[PP_N] = {"forward", "backward", "P2P transfer", "bubble (idle + P2P wait)"};

static void pp_parts(const tc_pp_figures *f, int64_t *ns) {
    ns[PP_FORWARD] = f->forward_ns;
    ns[PP_BACKWARD] = f->backward_ns;
    ns[PP_TRANSFER] = f->p2p_transfer_ns;
    ns[PP_BUBBLE] = f->bubble_ns;
}

/* "stage 2", or "p1 s2" when the job has several pipelines. */
static const char *stage_label(char *buf, size_t n, const tc_pipeline_result *p, const tc_pp_stage *s) {
    if (p->n_pipelines > 1) snprintf(buf, n, "p%u s%u", s->pipeline, s->stage);
    else snprintf(buf, n, "stage %u", s->stage);
    return buf;
}

static bool is_slowest(const tc_pipeline_result *p, const tc_pp_stage *s) {
    return p->slowest_rank >= 0 && s->rank == p->slowest_rank;
}

/* The stage bars' drawing, wide or narrow: each stage's summed step windows split into the parts. */
static void pipeline_svg(hr *h, int narrow) {
    const tc_pipeline_result *p = &h->j->pipeline;
    size_t n = p->n_stages_rows;
    int bh = n <= 16 ? 20 : n <= 64 ? 11 : n <= 256 ? 5 : 2, gap = bh >= 10 ? 4 : 1;
    int label_every = bh >= 10 ? 1 : bh >= 5 ? 8 : 32;
    const int W = tc_html_chart_w(narrow), L = narrow ? 66 : 80, R = narrow ? 84 : 90, top = 6;
    double PW = W - L - R;
    int H = top + (int)n * (bh + gap) + 26;
    char a[40], b[40], l[32], tip[320], ps[TC_PCT_LEN];
    tc_html_svg_open(h->out, "pipeline-bars", narrow, H, "stacked bar per pipeline stage: forward, backward, P2P transfer, bubble");
    tc_html_percent_grid(h, L, PW, top, H);
    for (size_t i = 0; i < n; i++) {
        const tc_pp_stage *s = &p->stages[i];
        int64_t ns[PP_N];
        pp_parts(&s->total, ns);
        int y = top + (int)i * (bh + gap), ty = y + bh - (bh >= 10 ? 5 : 0);
        double x = L;
        for (int k = 0; k < PP_N; k++) {
            if (ns[k] <= 0) continue;
            double sh = share(ns[k], s->total.window_ns), w = sh * PW;
            snprintf(tip, sizeof tip, "%s (rank %lld) - %s: %s ms = %s of its step windows %s ms",
                     stage_label(l, sizeof l, p, s), (long long)s->rank, pp_label[k], tc_html_ms_exact(a, sizeof a, ns[k]),
                     tc_html_pct(ps, sizeof ps, sh, 2), tc_html_ms_exact(b, sizeof b, s->total.window_ns));
            pf(h, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" class=\"%s\" data-tip=\"%s\"/>", x, y, w, bh, pp_class[k], tip);
            x += w;
        }
        if (i % (size_t)label_every == 0 || is_slowest(p, s))
            pf(h, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", L - 6, ty, stage_label(l, sizeof l, p, s));
        if (is_slowest(p, s)) pf(h, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">&#9664; slowest</text>", W - R + 6, ty);
        put(h, "\n");
    }
    pf(h, "<line class=\"ax\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</svg>\n", L, H - 22, W - R, H - 22);
}

/* A time cell: rounded ms, exact in its tooltip, sortable by ns. */
static void ms_cell(hr *h, int64_t ns) {
    char a[40], r[40];
    pf(h, "<td class=\"n\" data-v=\"%lld\" data-tip=\"%s ms\">%s</td>", (long long)ns, tc_html_ms_exact(a, sizeof a, ns),
       tc_html_ms_round(r, sizeof r, ns));
}

static void pipeline_table(hr *h) {
    const tc_pipeline_result *p = &h->j->pipeline;
    put(h, "<div class=\"scroll\"><table id=\"pipeline-stages\" class=\"sortable\">\n<thead><tr>");
    if (p->n_pipelines > 1) put(h, "<th class=\"n\">pipe-<br>line</th>");
    put(h, "<th class=\"n\">stage</th><th class=\"n\">rank</th><th class=\"n\">forward<br>ms</th><th class=\"n\">backward<br>ms"
           "</th><th class=\"n\">P2P wait<br>ms</th><th class=\"n\">P2P trans-<br>fer ms</th><th class=\"n\">bubble<br>ms</th>"
           "<th class=\"n\">bubble<br>%</th><th class=\"n\">charged<br>wait ms</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < p->n_stages_rows; i++) {
        const tc_pp_stage *s = &p->stages[i];
        const tc_pp_figures *f = &s->total;
        char ps[TC_PCT_LEN];
        put(h, "<tr>");
        if (p->n_pipelines > 1) pf(h, "<td class=\"n\">%u</td>", s->pipeline);
        pf(h, "<td class=\"n\">%u%s</td><td class=\"n\">%lld</td>", s->stage, is_slowest(p, s) ? " <b>slowest</b>" : "",
           (long long)s->rank);
        ms_cell(h, f->forward_ns);
        ms_cell(h, f->backward_ns);
        ms_cell(h, f->p2p_wait_ns);
        ms_cell(h, f->p2p_transfer_ns);
        ms_cell(h, f->bubble_ns);
        double sh = share(f->bubble_ns, f->window_ns);
        pf(h, "<td class=\"n\" data-v=\"%.6f\">%s</td>", sh, tc_html_pct_num(ps, sizeof ps, sh, 1));
        ms_cell(h, f->charged_wait_ns);
        put(h, "</tr>\n");
    }
    put(h, "</tbody></table></div>\n");
}

void tc_html_section_pipeline(hr *h) {
    const tc_pipeline_result *p = &h->j->pipeline;
    if (!p->present || !p->n_stages_rows) return;
    char ps[TC_PCT_LEN];
    put(h, "<section id=\"pipeline\">\n<h2>Pipeline stages and bubbles</h2>\n");
    pf(h, "<p class=\"figures\" id=\"pipeline-figures\">%u stage%s", p->n_stages, p->n_stages == 1 ? "" : "s");
    if (p->n_pipelines > 1) pf(h, " x %u pipelines", p->n_pipelines);
    pf(h, " (%s); the bubble is %s of the stages' step windows", p->source == TC_PP_FROM_OPTION ? "from --pp" : "from the P2P pattern",
       TC_HTML_PCT1(ps, p->bubble_share));
    if (p->slowest_stage >= 0) {
        const tc_pp_stage *slow = NULL;
        for (size_t i = 0; i < p->n_stages_rows && !slow; i++) if (is_slowest(p, &p->stages[i])) slow = &p->stages[i];
        char w[40];
        pf(h, "; the slowest stage is %lld (rank %lld)", (long long)p->slowest_stage, (long long)p->slowest_rank);
        if (slow) pf(h, ", charged %s ms of its peers' P2P wait", tc_html_ms_round(w, sizeof w, slow->total.charged_wait_ns));
    }
    pf(h, ". P2P transfers paired send to recv: %lld", (long long)p->pairs);
    if (p->unpaired) pf(h, "; %lld without their partner among the inputs", (long long)p->unpaired);
    if (p->no_peer_args) pf(h, "; %lld without peer args (matched across ranks by order)", (long long)p->no_peer_args);
    put(h, ".</p>\n<p class=\"note\">One bar per stage: its step windows (first GPU start to last GPU end of each step over "
           "every stage), summed over steps, split into forward and backward compute, P2P transfer (arrival to end of its "
           "send/recv kernels) and the bubble (the rest: idle and P2P wait, the head of a send/recv before its peer "
           "arrived). Each P2P wait is charged to the peer that arrived later; the stage charged most is the slowest.</p>\n");
    put(h, "<ul class=\"legend\">");
    for (int k = 0; k < PP_N; k++) pf(h, "<li><span class=\"sw %s\"></span>%s</li>", pp_class[k], pp_label[k]);
    put(h, "</ul>\n");
    pipeline_svg(h, 0);
    pipeline_svg(h, 1);
    pipeline_table(h);
    put(h, "</section>\n");
}
