/* html_charts.c: the HTML report's bar and line charts (inline SVG, see html_page.h): the category
 * colours and their legend, the per-rank stacked bars, the straggler evidence with its
 * last-arrival chart, and the cumulative cost of owning against renting. */
#include "html_page.h"
#include "textfmt.h"
#include "findings_text.h"
#include <string.h>

/* The categories' CSS classes (colours in html_kit.c's css) and their labels in the per-rank bars. */
const char *const tc_html_cat_class[CAT_N] = {"c-compute", "c-transfer", "c-wait", "c-comm", "c-memory", "c-idle"};
static const char *const cat_label[CAT_N] = {"compute", "exposed transfer", "exposed wait",
                                             "exposed comm (not split)", "exposed memory", "idle"};

/* Grid lines at 0, 25, ..., 100 % (html_page.h). */
void tc_html_percent_grid(hr *h, int L, double PW, int top, int H) {
    for (int p = 0; p <= 100; p += 25) {
        double x = L + PW * p / 100.0;
        pf(h, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
              "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d%%</text>\n",
           x, top, x, H - 22, x, H - 8, p);
    }
}

/* Short money for axis labels: "$1.2M", "$350k". */
static const char *money_short(char *buf, size_t n, double v) {
    char f[TC_ATTR_LEN];
    if (v >= 1e9) snprintf(buf, n, "$%sB", TC_SIG4(f, v / 1e9)); /* 3 digits, as "$1.2M"; never an exponent */
    else if (v >= 1e6) snprintf(buf, n, "$%sM", tc_fmt_num(f, sizeof f, v / 1e6, tc_sig_decimals(v / 1e6, 3)));
    else if (v >= 1e3) snprintf(buf, n, "$%sk", tc_fmt_num(f, sizeof f, v / 1e3, tc_sig_decimals(v / 1e3, 3)));
    else snprintf(buf, n, "$%.0f", v);
    return buf;
}

/* ------------------------------------------------------------------ per-rank stacked bars */
typedef struct { int64_t ns[CAT_N]; } rank_split;

/* A rank's window split into the categories; the parts add up to window_ns. */
static rank_split split_of(const tc_breakdown *b) {
    rank_split s;
    memset(&s, 0, sizeof s);
    s.ns[CAT_COMPUTE] = b->compute_ns;
    if (b->split_known) {
        s.ns[CAT_TRANSFER] = b->exposed_transfer_ns;
        s.ns[CAT_WAIT] = b->exposed_wait_ns;
        int64_t rest = b->exposed_comm_ns - b->exposed_transfer_ns - b->exposed_wait_ns;
        s.ns[CAT_COMM] = rest > 0 ? rest : 0;
    } else s.ns[CAT_COMM] = b->exposed_comm_ns;
    s.ns[CAT_MEMORY] = b->memory_exposed_ns;
    s.ns[CAT_IDLE] = b->idle_ns;
    return s;
}

void tc_html_legend(hr *h, const int *cats, size_t n, const char *const *labels, const char *extra) {
    put(h, "<ul class=\"legend\">");
    for (size_t i = 0; i < n; i++)
        pf(h, "<li><span class=\"sw %s\"></span>%s</li>", tc_html_cat_class[cats[i]], labels[cats[i]]);
    if (extra) put(h, extra);
    put(h, "</ul>\n");
}

/* The per-rank bars' drawing, wide or narrow (see TC_HTML_CHART_W), of the categories cats[0..nc). */
static void rank_bars_svg(hr *h, const int *cats, size_t nc, int narrow) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    size_t n = j->n_ranks;
    char a[40], b[40], tip[512];
    int bh = n <= 16 ? 20 : n <= 64 ? 11 : n <= 256 ? 5 : 2;
    int gap = bh >= 10 ? 4 : 1;
    int label_every = bh >= 10 ? 1 : bh >= 5 ? 8 : 32;
    const int W = tc_html_chart_w(narrow), L = narrow ? 66 : 80, R = narrow ? 84 : 90, top = 6;
    double PW = W - L - R;
    int H = top + (int)n * (bh + gap) + 26;
    tc_html_svg_open(h->out, "rank-bars", narrow, H, "stacked bar per rank: compute, exposed transfer, exposed wait, memory, idle");
    tc_html_percent_grid(h, L, PW, top, H);
    for (size_t r = 0; r < n; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        rank_split s = split_of(&rr->b);
        int y = top + (int)r * (bh + gap);
        double x = L;
        for (size_t k = 0; k < nc; k++) {
            int cat = cats[k];
            double sh = share(s.ns[cat], rr->b.window_ns);
            double w = sh * PW;
            if (s.ns[cat] <= 0) continue;
            char ps[TC_PCT_LEN];
            snprintf(tip, sizeof tip, "rank %lld - %s: %s ms = %s of its window %s ms", (long long)rr->rank,
                     cat_label[cat], tc_html_ms_exact(a, sizeof a, s.ns[cat]), tc_html_pct(ps, sizeof ps, sh, 2),
                     tc_html_ms_exact(b, sizeof b, rr->b.window_ns));
            pf(h, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" class=\"%s\" data-tip=\"%s\"/>", x, y, w, bh,
               tc_html_cat_class[cat], tip);
            x += w;
        }
        if (r % (size_t)label_every == 0 || (sm->has_straggler && rr->rank == sm->straggler.rank))
            pf(h, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank %lld</text>", L - 6, y + bh - (bh >= 10 ? 5 : 0),
               (long long)rr->rank);
        if (sm->has_straggler && rr->rank == sm->straggler.rank)
            pf(h, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">&#9664; straggler</text>", W - R + 6, y + bh - (bh >= 10 ? 5 : 0));
        put(h, "\n");
    }
    pf(h, "<line class=\"ax\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", L, H - 22, W - R, H - 22);
    put(h, "</svg>\n");
}

/* One stacked bar per rank split into the categories, with its note and legend above it. */
void tc_html_rank_bars(hr *h) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    size_t n = j->n_ranks;
    bool any_rest = false;
    for (size_t r = 0; r < n; r++) {
        rank_split s = split_of(&j->ranks[r].b);
        if (j->ranks[r].b.split_known && s.ns[CAT_COMM] > 0) any_rest = true;
    }
    int cats[CAT_N];
    size_t nc = 0;
    cats[nc++] = CAT_COMPUTE;
    if (sm->split_known) { cats[nc++] = CAT_TRANSFER; cats[nc++] = CAT_WAIT; if (any_rest) cats[nc++] = CAT_COMM; }
    else cats[nc++] = CAT_COMM;
    cats[nc++] = CAT_MEMORY;
    cats[nc++] = CAT_IDLE;
    put(h, "<p class=\"note\">One bar per rank: its GPU window (first to last GPU event) split into compute, "
           "exposed collective time (transfer vs waiting for slower peers), exposed memory copies and idle. "
           "Hover a segment for exact values; the table below has every number.</p>\n");
    tc_html_legend(h, cats, nc, cat_label, NULL);
    rank_bars_svg(h, cats, nc, 0);
    rank_bars_svg(h, cats, nc, 1);
}

/* ------------------------------------------------------------------ straggler */
/* The last-arrival chart's drawing, wide or narrow (see TC_HTML_CHART_W). */
static void straggler_svg(hr *h, int narrow) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    size_t n = j->n_ranks;
    char a[40], tip[256];
    int bh = n <= 16 ? 16 : n <= 64 ? 9 : n <= 256 ? 4 : 2, gap = bh >= 9 ? 3 : 1;
    int label_every = bh >= 9 ? 1 : bh >= 4 ? 8 : 32;
    /* the fair-share label above the bars; the straggler's label after its bar, within R */
    const int W = tc_html_chart_w(narrow), L = narrow ? 66 : 80, R = narrow ? 104 : 110, top = 20;
    double PW = W - L - R;
    int H = top + (int)n * (bh + gap) + 26;
    tc_html_svg_open(h->out, "straggler-chart", narrow, H, "last-arrival share per rank");
    tc_html_percent_grid(h, L, PW, top, H);
    for (size_t r = 0; r < n; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        double s = rr->last_arrival_share;
        int y = top + (int)r * (bh + gap);
        bool is = sm->has_straggler && rr->rank == sm->straggler.rank;
        char ps[TC_PCT_LEN];
        snprintf(tip, sizeof tip, "rank %lld: last at %.2f of %llu collectives (%s); each other rank waited %s ms/step "
                 "for it%s", (long long)rr->rank, rr->last_arrival_credit, (unsigned long long)rr->matched_instances,
                 tc_html_pct(ps, sizeof ps, s, 2), tc_html_ms_exact(a, sizeof a, rr->caused_wait_per_rank_ns_per_step), is ? " - the straggler" : "");
        pf(h, "<rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" class=\"%s\" data-tip=\"%s\"/>", L, y, s * PW, bh,
           is ? "c-transfer" : "c-compute", tip);
        if (r % (size_t)label_every == 0 || is)
            pf(h, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank %lld</text>", L - 6, y + bh - (bh >= 9 ? 4 : 0), (long long)rr->rank);
        if (is) pf(h, "<text x=\"%.1f\" y=\"%d\" font-weight=\"bold\">straggler %s</text>", L + s * PW + 6,
                   y + bh - (bh >= 9 ? 4 : 0), tc_html_pct(ps, sizeof ps, s, 0));
        put(h, "\n");
    }
    double fx = L + PW / (double)n;
    bool start = fx < L + 50; /* centred, "fair share 0.8%" would reach over the first rank's label */
    char pfair[TC_PCT_LEN];
    pf(h, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" stroke-dasharray=\"4 3\"/>"
          "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">fair share %s</text>\n", fx, top - 2, fx, H - 22,
       start ? fx - 2 : fx, top - 6, start ? "start" : "middle", TC_HTML_PCT1(pfair, 1.0 / (double)n));
    pf(h, "<line class=\"ax\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</svg>\n", L, H - 22, W - R, H - 22);
}

void tc_html_section_straggler(hr *h) {
    const tc_job *j = h->j;
    const tc_summary *sm = &j->summary;
    char b[40], c[40];
    size_t n = j->n_ranks;
    uint64_t matched = 0;
    for (size_t r = 0; r < n; r++) matched += j->ranks[r].matched_instances;
    if (n < 2 || !matched) return; /* no arrival order: the section is left out */
    put(h, "<section id=\"straggler\">\n<h2>Straggler evidence</h2>\n");
    if (sm->has_straggler) {
        const tc_straggler *s = &sm->straggler;
        char wait[TC_FINDING_TEXT], ps[3][TC_PCT_LEN];
        pf(h, "<p id=\"straggler-finding\"><b>Rank %lld is the straggler.</b> It causes %s of the charged wait and "
              "arrives last at %s of the collectives it takes part in (a fair share is %s); ",
           (long long)s->rank, TC_HTML_PCT1(ps[0], s->caused_wait_share), TC_HTML_PCT1(ps[1], s->last_arrival_share),
           TC_HTML_PCT1(ps[2], 1.0 / (double)n));
        esc(h, tc_straggler_wait_text(wait, sizeof wait, s->waiting_ranks, s->wait_per_rank_ns_per_step,
                                      s->caused_wait_ns_per_step));
        pf(h, ". Its compute is %s ms per step against a median of %s ms over all ranks.</p>\n",
           tc_html_ms_round(b, sizeof b, s->compute_ns_per_step), tc_html_ms_round(c, sizeof c, s->median_compute_ns_per_step));
    } else
        put(h, "<p id=\"straggler-finding\">No rank stands out as the straggler.</p>\n");
    put(h, "<p class=\"note\" id=\"straggler-rule\">");
    esc(h, tc_straggler_rule_text());
    put(h, "</p>\n");
    put(h, "<p class=\"note\">Share of matched collectives each rank arrived at last (ties share the credit). The dashed "
           "line is a fair share, 1 / ranks.</p>\n");
    straggler_svg(h, 0);
    straggler_svg(h, 1);
    put(h, "<ul class=\"legend\"><li><span class=\"sw c-transfer\"></span>the straggler</li>"
           "<li><span class=\"sw c-compute\"></span>other ranks</li></ul>\n</section>\n");
}

/* ------------------------------------------------------------------ cost */
/* The cost chart's drawing, wide or narrow (see TC_HTML_CHART_W); the breakeven's label on the side
 * of its line where it fits. */
static void cost_svg(hr *h, const tc_cost_result *c, int narrow) {
    char a[48], b[48];
    size_t n = c->timeline_len;
    int M = c->timeline[n - 1].month;
    double maxv = 0;
    for (size_t i = 0; i < n; i++) {
        if (c->has_own && c->timeline[i].own > maxv) maxv = c->timeline[i].own;
        if (c->timeline[i].rent > maxv) maxv = c->timeline[i].rent;
    }
    if (!(maxv > 0)) maxv = 1;
    double ystep = tc_html_nice_step(maxv, 5);
    double ymax = ystep * (double)(long long)(maxv / ystep + 0.999999);
    const int W = tc_html_chart_w(narrow), H = narrow ? 260 : 340, L = narrow ? 52 : 80, R = narrow ? 40 : 80, T = 16, B = 40;
    double PW = W - L - R, PH = H - T - B;
#define XM(m) (L + PW * (double)(m) / (double)M)
#define YV(v) (T + PH - PH * (v) / ymax)
    char aria[80];
    snprintf(aria, sizeof aria, "cumulative cost of owning versus renting over %d months", M);
    tc_html_svg_open(h->out, "cost-chart", narrow, H, aria);
    for (double v = 0; v <= ymax * 1.000001; v += ystep)
        pf(h, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/><text x=\"%d\" y=\"%.1f\" "
              "text-anchor=\"end\">%s</text>\n", L, YV(v), W - R, YV(v), L - 6, YV(v) + 4, money_short(a, sizeof a, v));
    int mstep = M <= 12 ? 1 : M <= 48 ? 6 : M <= 120 ? 12 : 60;
    for (int m = 0; m <= M; m += mstep)
        pf(h, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%d\" "
              "text-anchor=\"middle\">%d</text>\n", XM(m), T, XM(m), T + PH, XM(m), H - 22, m);
    pf(h, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">months</text>\n", L + PW / 2, H - 6);
    pf(h, "<line class=\"ax\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", L, T + PH, W - R, T + PH);
    for (int side = 0; side < 2; side++) {
        if (side == 0 && !c->has_own) continue;
        pf(h, "<polyline fill=\"none\" class=\"%s\" stroke-width=\"2.5\"%s points=\"", side == 0 ? "c-own" : "c-rent",
           side == 0 ? "" : " stroke-dasharray=\"8 4\"");
        for (size_t i = 0; i < n; i++)
            pf(h, "%.1f,%.1f ", XM(c->timeline[i].month), YV(side == 0 ? c->timeline[i].own : c->timeline[i].rent));
        put(h, "\"/>\n");
        double endv = side == 0 ? c->timeline[n - 1].own : c->timeline[n - 1].rent;
        pf(h, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">%s</text>\n", (double)(W - R + 6), YV(endv) + 4,
           side == 0 ? "own" : "rent");
    }
    size_t every = n > 61 ? (n + 59) / 60 : 1;
    for (size_t i = 0; i < n; i += every) {
        const tc_cost_month *p = &c->timeline[i];
        char tip[200];
        if (c->has_own)
            snprintf(tip, sizeof tip, "month %d: own %s, rent %s", p->month, tc_html_money(a, sizeof a, p->own), tc_html_money(b, sizeof b, p->rent));
        else snprintf(tip, sizeof tip, "month %d: rent %s", p->month, tc_html_money(b, sizeof b, p->rent));
        if (c->has_own)
            pf(h, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#0072B2\" data-tip=\"%s\"/>", XM(p->month), YV(p->own), tip);
        pf(h, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"#D55E00\" data-tip=\"%s\"/>\n", XM(p->month) - 3,
           YV(p->rent) - 3, tip);
    }
    if (c->has_own && c->has_breakeven && c->breakeven_months <= (double)M) {
        double bm = c->breakeven_months, bv = c->own_capex + bm * c->own_opex_monthly;
        /* "breakeven 12.3 months", bold: at most 7 units a character */
        bool right = XM(bm) + 6 + 7.0 * (double)snprintf(b, sizeof b, "breakeven %.1f months", bm) <= W - R;
        pf(h, "<g id=\"breakeven%s\"><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-dasharray=\"3 3\"/>"
              "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\" "
              "data-tip=\"breakeven at %.4f months: both cost %s\"/>"
              "<text x=\"%.1f\" y=\"%d\" font-weight=\"bold\"%s>%s</text></g>\n", narrow ? "-narrow" : "",
           XM(bm), T, XM(bm), T + PH, XM(bm), YV(bv), bm, tc_html_money(a, sizeof a, bv), XM(bm) + (right ? 6 : -6), T + 12,
           right ? "" : " text-anchor=\"end\"", b);
    }
#undef XM
#undef YV
    put(h, "</svg>\n");
}

void tc_html_cost_chart(hr *h, const tc_cost_result *c) {
    if (c->timeline_len < 2) return;
    cost_svg(h, c, 0);
    cost_svg(h, c, 1);
    put(h, "<ul class=\"legend\">");
    if (c->has_own) put(h, "<li><span class=\"sw c-own\"></span>own (solid line, dots): purchase + fabric, then power and operations each month</li>");
    put(h, "<li><span class=\"sw c-rent\"></span>rent (dashed line, squares): GPU-hours x price</li>");
    if (c->has_own && c->has_breakeven) put(h, "<li>dashed vertical line: breakeven</li>");
    put(h, "</ul>\n");
}
