/* html_ops.c: the HTML report's section on where the compute time goes (tc_job.ops, issue 34; see
 * html_page.h): the roofline chart (each op group a dot by arithmetic intensity and achieved FLOP/s,
 * both on log axes, under the memory and compute roofs of the job's GPU; dot area by GPU time, every
 * figure in its tooltip), the top op groups and the module table. Left out without op evidence. */
#include "html_page.h"
#include "findings_text.h"
#include "textfmt.h"
#include "model/roofline.h"
#include <math.h>

#define TMP ((char[TC_ATTR_LEN]){0})
#define AV(v) tc_fmt_attr(TMP, TC_ATTR_LEN, (v), 9)
#define OP_TABLE_ROWS 20
#define CHART_DOTS 200 /* the groups drawn, by lost time (the JSON and ops.csv hold them all) */

/* The roofs the chart draws: the job's GPU (its first rank's with one), its memory bandwidth and the
 * peak of the dtype holding most of the groups' GPU time. */
typedef struct {
    const tc_gpu_spec *gpu;
    tc_dtype dtype;
    double peak, bw;           /* FLOP/s, byte/s */
} roofs;

static bool chart_roofs(const tc_job *j, roofs *r) {
    r->gpu = NULL;
    for (size_t k = 0; k < j->n_ranks && !r->gpu; k++) r->gpu = j->ranks[k].gpu;
    if (!r->gpu || !(r->gpu->mem_bandwidth_GBps > 0)) return false;
    int64_t by[TC_DTYPE_COUNT] = {0};
    for (size_t g = 0; g < j->ops.n_groups; g++) {
        const tc_op_group *o = &j->ops.groups[g];
        if (o->dtype >= 0 && o->dtype < TC_DTYPE_COUNT) by[o->dtype] += o->gpu_ns;
    }
    r->dtype = TC_DTYPE_BF16;
    for (int d = 0; d < TC_DTYPE_COUNT; d++) if (by[d] > by[r->dtype]) r->dtype = (tc_dtype)d;
    tc_roofline roof; /* the groups' own rule (model/roofline.h): the dtype's peak after the catalog's fallback */
    tc_roofline_of(r->gpu, r->dtype, true, 1, true, 1, 1, &roof);
    r->peak = roof.peak_flops;
    r->bw = roof.bandwidth;
    return roof.has && r->peak > 0 && r->bw > 0;
}

static bool drawable(const tc_op_group *g) {
    return g->has_flops && g->has_bytes && g->intensity > 0 && g->achieved_flops > 0 && isfinite(g->intensity) &&
           isfinite(g->achieved_flops);
}

/* A decade's label in plain form: 10^k as "1,000" or "0.01" (k >= -6). */
static const char *decade(char *buf, size_t n, int k) { return tc_fmt_num(buf, n, pow(10, k), k < 0 ? -k : 0); }

/* A rate's decade with an SI prefix, 10^k FLOP/s for 0 <= k < 21: "1", "10 k", "100 G", "1 T". */
static const char *rate_decade(char *buf, size_t n, int k) {
    static const char *const prefix[] = {"", " k", " M", " G", " T", " P", " E"};
    static const char *const mant[] = {"1", "10", "100"};
    snprintf(buf, n, "%s%s", mant[k % 3], prefix[k / 3]);
    return buf;
}

/* The chart's axes in decades: x of FLOP per byte, y of FLOP/s. */
typedef struct { int x0, x1, y0, y1; } span;

static span chart_span(const tc_op_result *o, const roofs *r, size_t n) {
    double xmin = r->peak / r->bw, xmax = xmin, ymin = r->peak, ymax = r->peak;
    for (size_t g = 0; g < n; g++) {
        const tc_op_group *p = &o->groups[g];
        if (!drawable(p)) continue;
        if (p->intensity < xmin) xmin = p->intensity;
        if (p->intensity > xmax) xmax = p->intensity;
        if (p->achieved_flops < ymin) ymin = p->achieved_flops;
    }
    span s = {(int)floor(log10(xmin)), (int)ceil(log10(xmax)), (int)floor(log10(ymin)), (int)ceil(log10(ymax * 1.5))};
    if (s.x1 - s.x0 < 2) { s.x0--; s.x1++; }
    if (s.y1 - s.y0 < 2) s.y0 = s.y1 - 2;
    if (s.x0 < -6) s.x0 = -6; /* dots further left or lower sit on the edge */
    if (s.y0 < 0) s.y0 = 0;
    if (s.y1 > 20) s.y1 = 20;
    if (s.y1 <= s.y0) s.y1 = s.y0 + 2;
    if (s.x1 <= s.x0) s.x1 = s.x0 + 2;
    return s;
}

/* One dot: its tooltip with the op, shapes, dtype and every figure. */
static void dot(hr *h, const tc_op_group *g, double x, double y, double rad, int64_t compute_ns) {
    char a[TC_ATTR_LEN], b[TC_ATTR_LEN], c[40], pa[TC_PCT_LEN], pc[TC_PCT_LEN];
    pf(h, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" class=\"%s\" fill-opacity=\"0.7\" stroke=\"#333\" "
          "stroke-width=\"0.5\" data-tip=\"", x, y, rad, !g->has_roofline ? "c-idle" : g->compute_bound ? "c-compute" : "c-transfer");
    esc_max(h, g->op, 120);
    put(h, " ");
    esc_max(h, g->shapes ? g->shapes : "(shapes unknown)", 160);
    pf(h, " %s: %s FLOP/byte, %s TFLOP/s, %s TB/s; ", tc_dtype_name(g->dtype), TC_SIG4(a, g->intensity),
       TC_SIG4(b, g->achieved_flops / 1e12), TC_SIG4(c, g->achieved_bytes / 1e12));
    if (g->has_roofline)
        pf(h, "%s, %s of attainable; ", tc_op_class_name(g), tc_html_pct(pa, sizeof pa, g->share_of_attainable, 1));
    pf(h, "%s ms GPU time (%s of compute)", tc_html_ms_round(a, sizeof a, g->gpu_ns),
       tc_html_pct(pc, sizeof pc, share(g->gpu_ns, compute_ns), 1));
    if (g->has_roofline) pf(h, ", %s ms lost", tc_html_ms_round(b, sizeof b, g->lost_ns));
    put(h, "\"/>\n");
}

/* The roofline's drawing, wide or narrow (see TC_HTML_CHART_W). */
static void roofline_svg(hr *h, const roofs *r, int narrow) {
    const tc_op_result *o = &h->j->ops;
    size_t n = o->n_groups < CHART_DOTS ? o->n_groups : CHART_DOTS;
    span s = chart_span(o, r, n);
    const int W = tc_html_chart_w(narrow), H = narrow ? 300 : 380, L = narrow ? 56 : 72, R = narrow ? 10 : 24, T = 28,
              B = 42;
    double PW = W - L - R, PH = H - T - B;
#define XL(lx) (L + PW * ((lx) - s.x0) / (double)(s.x1 - s.x0))
#define YL(ly) (T + PH - PH * ((ly) - s.y0) / (double)(s.y1 - s.y0))
    tc_html_svg_open(h->out, "roofline", narrow, H, "roofline: each op group by arithmetic intensity and achieved FLOP/s "
                     "under the memory and compute roofs");
    char a[TC_ATTR_LEN], b[TC_ATTR_LEN];
    int xevery = (s.x1 - s.x0) > (narrow ? 5 : 10) ? 2 : 1, yevery = (s.y1 - s.y0) > (narrow ? 6 : 9) ? 2 : 1;
    for (int k = s.x0; k <= s.x1; k++) {
        pf(h, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/>", XL(k), T, XL(k), T + PH);
        if ((k - s.x0) % xevery == 0)
            pf(h, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>", XL(k), T + PH + 16,
               k == s.x1 ? "end" : "middle", decade(a, sizeof a, k)); /* the last one inside the chart */
        put(h, "\n");
    }
    for (int k = s.y0; k <= s.y1; k++) {
        pf(h, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", L, YL(k), W - R, YL(k));
        if ((k - s.y0) % yevery == 0)
            pf(h, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", L - 5, YL(k) + 4, rate_decade(a, sizeof a, k));
        put(h, "\n");
    }
    pf(h, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">arithmetic intensity, FLOP per byte (log)</text>\n", L + PW / 2, H - 6);
    pf(h, "<text x=\"%d\" y=\"14\">achieved FLOP/s (log)</text>\n", L - 5 - (narrow ? 30 : 40));
    /* the roofs: bandwidth x intensity up to the ridge, then the peak */
    double lb = log10(r->bw), lp = log10(r->peak), ridge = lp - lb;
    double sx = s.x0, sy = lb + s.x0;
    if (sy < s.y0) { sy = s.y0; sx = s.y0 - lb; }
    pf(h, "<path id=\"roofs%s\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\" d=\"M%.1f %.1f L%.1f %.1f L%.1f %.1f\" "
          "data-tip=\"the roofs of %s: memory %s GB/s, compute %s TFLOP/s (%s); ridge at %s FLOP/byte\"/>\n",
       narrow ? "-narrow" : "", XL(sx), YL(sy), XL(ridge), YL(lp), XL(s.x1), YL(lp), r->gpu->name, TC_SIG4(a, r->gpu->mem_bandwidth_GBps),
       TC_SIG4(b, r->peak / 1e12), tc_dtype_name(r->dtype), TC_SIG4((char[TC_ATTR_LEN]){0}, r->peak / r->bw));
    pf(h, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s TFLOP/s %s</text>\n", (double)(W - R - 4), YL(lp) - 6,
       TC_SIG4(a, r->peak / 1e12), tc_dtype_name(r->dtype));
    double rad0 = narrow ? 2.5 : 3, radk = narrow ? 9 : 14;
    for (size_t g = n; g-- > 0;) { /* the biggest losses drawn last, on top */
        const tc_op_group *p = &o->groups[g];
        if (!drawable(p)) continue;
        double ly = log10(p->achieved_flops), lx = log10(p->intensity);
        if (ly < s.y0) ly = s.y0;
        if (lx < s.x0) lx = s.x0;
        dot(h, p, XL(lx), YL(ly), rad0 + radk * sqrt(share(p->gpu_ns, o->compute_ns)), o->compute_ns);
    }
    pf(h, "<line class=\"ax\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n</svg>\n", L, T + PH, W - R, T + PH);
#undef XL
#undef YL
}

static void roofline(hr *h) {
    const tc_job *j = h->j;
    roofs r;
    size_t drawn = 0;
    for (size_t g = 0; g < j->ops.n_groups && g < CHART_DOTS; g++) drawn += drawable(&j->ops.groups[g]);
    if (!chart_roofs(j, &r)) {
        put(h, "<p class=\"note\" id=\"roofline-note\">No roofline chart: the GPU, or its peak or memory bandwidth, is not "
               "in the catalog (pass --gpu NAME).</p>\n");
        return;
    }
    if (!drawn) {
        put(h, "<p class=\"note\" id=\"roofline-note\">No roofline chart: no op group has both FLOPs and bytes from its "
               "shapes (record_shapes=True gives them).</p>\n");
        return;
    }
    char a[TC_ATTR_LEN], b[TC_ATTR_LEN];
    pf(h, "<p class=\"note\">Each op group is a dot at its arithmetic intensity (FLOPs over bytes moved) and its achieved "
          "FLOP/s, both on log scales, under the roofs of the %s: memory bandwidth (%s GB/s, the slope) and the %s peak "
          "(%s TFLOP/s, the flat line). A dot's area grows with its GPU time; its tooltip has every figure. Each group is "
          "held to its own dtype's peak in the table and the JSON.</p>\n",
       r.gpu->name, TC_SIG4(a, r.gpu->mem_bandwidth_GBps), tc_dtype_name(r.dtype), TC_SIG4(b, r.peak / 1e12));
    roofline_svg(h, &r, 0);
    roofline_svg(h, &r, 1);
    put(h, "<ul class=\"legend\"><li><span class=\"sw c-transfer\"></span>memory-bound</li><li><span class=\"sw "
           "c-compute\"></span>compute-bound</li><li><span class=\"sw c-idle\"></span>no roof (dtype peak unknown)</li></ul>\n");
}

static void op_table(hr *h) {
    const tc_op_result *o = &h->j->ops;
    size_t shown = o->n_groups < OP_TABLE_ROWS ? o->n_groups : OP_TABLE_ROWS;
    pf(h, "<p class=\"note\">The top %zu of %zu (op, shapes, dtype) groups by time lost against their roofline (GPU time "
          "&times; (1 &minus; share of attainable)), as in the terminal; every group is in the JSON's ops[] and "
          "<code>--csv</code>'s ops.csv. * = launch-bound (median kernel under 10 &micro;s, 10 kernels or more); rank differs = the rank whose GPU "
          "time in the group is furthest from the ranks' median, when by more than 10%% of it.</p>\n",
       shown, o->n_groups);
    put(h, "<div class=\"scroll\"><table id=\"op-table\" class=\"sortable\">\n<thead><tr><th>op</th><th>shapes</th>"
           "<th class=\"n\">GPU time<br>ms</th><th class=\"n\">share<br>% comp</th><th>class</th>"
           "<th class=\"n\">% of<br>attainable</th><th class=\"n\">lost<br>ms</th><th class=\"n\">rank<br>differs</th>"
           "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < shown; i++) {
        const tc_op_group *g = &o->groups[i];
        char a[40], b[40], pc[TC_PCT_LEN], pa[TC_PCT_LEN];
        put(h, "<tr><td class=\"name\">");
        esc_max(h, g->op, 200);
        put(h, "</td><td class=\"name\">");
        esc_max(h, g->shapes ? g->shapes : "unknown", 120);
        pf(h, "</td><td class=\"n\" data-v=\"%lld\" data-tip=\"%s ms\">%s</td>", (long long)g->gpu_ns,
           tc_html_ms_exact(a, sizeof a, g->gpu_ns), tc_html_ms_round(b, sizeof b, g->gpu_ns));
        pf(h, "<td class=\"n\" data-v=\"%s\">%s</td><td>%s%s</td>", AV(share(g->gpu_ns, o->compute_ns)),
           tc_html_pct_num(pc, sizeof pc, share(g->gpu_ns, o->compute_ns), 1),
           g->has_roofline ? (g->compute_bound ? "compute" : "memory") : "-", g->launch_bound ? "*" : "");
        if (g->has_roofline)
            pf(h, "<td class=\"n\" data-v=\"%s\">%s</td><td class=\"n\" data-v=\"%lld\" data-tip=\"%s ms\">%s</td>",
               AV(g->share_of_attainable), tc_html_pct_num(pa, sizeof pa, g->share_of_attainable, 1), (long long)g->lost_ns,
               tc_html_ms_exact(a, sizeof a, g->lost_ns), tc_html_ms_round(b, sizeof b, g->lost_ns));
        else put(h, "<td class=\"n\" data-v=\"NaN\">-</td><td class=\"n\" data-v=\"NaN\">-</td>");
        if (g->differing_rank >= 0) pf(h, "<td class=\"n\" data-v=\"%lld\">%lld</td></tr>\n", (long long)g->differing_rank,
                                       (long long)g->differing_rank);
        else put(h, "<td class=\"n\" data-v=\"NaN\">-</td></tr>\n");
    }
    put(h, "</tbody></table></div>\n");
}

static void module_table(hr *h) {
    const tc_op_result *o = &h->j->ops;
    put(h, o->module_source == TC_MODULES_USER_ANNOTATION
               ? "<h3>Modules</h3>\n<p class=\"note\">GPU time by user annotation path (record_function ranges; "
                 "the traces have no nn.Module events; all ranks): self = kernels whose "
               : "<h3>Modules</h3>\n<p class=\"note\">GPU time by nn.Module instance path (all ranks): self = kernels whose ");
    put(h, "innermost module is this one, total = at any depth inside it; share = total over the compute time. Every "
           "row is in the JSON's modules[] and <code>--csv</code>'s modules.csv.</p>\n");
    put(h, "<div class=\"scroll\"><table id=\"module-table\" class=\"sortable\">\n<thead><tr><th>module</th>"
           "<th class=\"n\">self<br>ms</th><th class=\"n\">total<br>ms</th><th class=\"n\">share<br>% comp</th></tr></thead>\n"
           "<tbody>\n");
    for (size_t i = 0; i < o->n_modules; i++) {
        const tc_module_row *m = &o->modules[i];
        char a[40], b[40], pc[TC_PCT_LEN];
        put(h, "<tr><td class=\"name\">");
        if (m->path) esc_max(h, m->path, 400); else put(h, "(outside every module)");
        pf(h, "</td><td class=\"n\" data-v=\"%lld\" data-tip=\"%s ms\">%s</td>", (long long)m->self_ns,
           tc_html_ms_exact(a, sizeof a, m->self_ns), tc_html_ms_round(b, sizeof b, m->self_ns));
        pf(h, "<td class=\"n\" data-v=\"%lld\" data-tip=\"%s ms\">%s</td>", (long long)m->total_ns,
           tc_html_ms_exact(a, sizeof a, m->total_ns), tc_html_ms_round(b, sizeof b, m->total_ns));
        pf(h, "<td class=\"n\" data-v=\"%s\">%s</td></tr>\n", AV(share(m->total_ns, o->compute_ns)),
           tc_html_pct_num(pc, sizeof pc, share(m->total_ns, o->compute_ns), 1));
    }
    put(h, "</tbody></table></div>\n");
}

void tc_html_section_ops(hr *h) {
    const tc_op_result *o = &h->j->ops;
    if (!o->has || (!o->n_groups && !o->n_modules)) return;
    put(h, "<section id=\"ops\">\n<h2>Ops against the roofline</h2>\n");
    if (o->n_groups) {
        roofline(h);
        op_table(h);
    }
    if (o->has_modules && o->n_modules) module_table(h);
    put(h, "</section>\n");
}
