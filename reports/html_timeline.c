/* html_timeline.c: the HTML report's timeline of one representative step (see html_page.h): one
 * lane per CUDA stream of each drawn rank, clocks aligned by the estimated offsets, events
 * narrower than a pixel merged so the output stays bounded, the step's critical path across ranks
 * in a lane under each rank it runs through (summary.cp_steps), with its note and footnotes. */
#include "html_page.h"
#include "findings_text.h"
#include "replay_report.h"
#include "textfmt.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

/* the timeline chart: width, left label column, right margin, lane height and gap, gap between
 * ranks, top margin (px) */
enum { TL_W = TC_HTML_CHART_W, TL_L = 170, TL_R = 30, TL_LH = 14, TL_LG = 3, TL_RG = 10, TL_TOP = 22, TL_PLH = 10 };
#define TC_TIMELINE_MAX_DRAWN 64  /* drawn ranks whose path lane the path's passes can join */
#define TL_PW ((double)(TL_W - TL_L - TL_R)) /* plot width, px */
#define TL_MAX_LANES_PER_RANK 8   /* streams per rank drawn (the busiest) */
#define TL_MAX_RECTS 4000         /* rectangles over all lanes; above it, merge wider */
#define TL_NAME_BYTES 160         /* kernel-name bytes in a timeline tooltip */

static const char *const tl_label[CAT_N] = {"compute kernel", "collective: transfer part", "collective: wait part",
                                            "collective (wait/transfer not split)", "memcpy/memset", "idle"};

typedef struct {
    double x0, x1;          /* px within the plot */
    int64_t t0, t1;         /* ns on the reference clock, relative to the axis start */
    int64_t ns[CAT_N];      /* busy ns per category merged into this rectangle */
    uint32_t count;         /* segments merged */
    uint32_t ev;            /* event index of the first segment (for its name) */
    uint8_t first_cat;      /* category of the first segment */
    int64_t ev_dur_ns;      /* that event's full duration (ns) */
} tl_rect;

typedef struct {
    size_t rank;            /* index into j->ranks */
    uint32_t stream;        /* strtab id of the stream */
    int64_t busy_ns;        /* summed segment ns in the window */
    tl_rect *r; size_t n, cap;
} tl_lane;

typedef struct {
    size_t rank;            /* index into j->ranks */
    bool has_window;
    int64_t first, last;    /* step GPU window, trace ns */
    int64_t shift;          /* trace ns -> reference-clock ns */
    size_t lanes_total;     /* streams seen */
} tl_rank;

typedef struct {
    tl_lane *lanes; size_t n, cap;
} tl_lanes;

static void lanes_free(tl_lanes *ls) {
    for (size_t i = 0; i < ls->n; i++) free(ls->lanes[i].r);
    free(ls->lanes);
    ls->lanes = NULL; ls->n = ls->cap = 0;
}

/* Adds one segment [t0,t1) of category cat (ns relative to the axis) to a lane, merging it with
 * the previous rectangle when the gap is under px_merge and either is narrower than px_merge. */
static int lane_add(tl_lane *ln, double px_per_ns, double px_merge, int64_t t0, int64_t t1, int cat, uint32_t ev,
                    int64_t ev_dur) {
    double x0 = (double)t0 * px_per_ns, x1 = (double)t1 * px_per_ns;
    if (ln->n) {
        tl_rect *p = &ln->r[ln->n - 1];
        if (x0 - p->x1 < px_merge && (p->x1 - p->x0 < px_merge || x1 - x0 < px_merge)) {
            if (x1 > p->x1) { p->x1 = x1; p->t1 = t1; }
            p->ns[cat] += t1 - t0;
            p->count++;
            ln->busy_ns += t1 - t0;
            return 0;
        }
    }
    tl_rect r;
    memset(&r, 0, sizeof r);
    r.x0 = x0; r.x1 = x1; r.t0 = t0; r.t1 = t1;
    r.ns[cat] = t1 - t0;
    r.count = 1; r.ev = ev; r.first_cat = (uint8_t)cat; r.ev_dur_ns = ev_dur;
    ln->busy_ns += t1 - t0;
    return TC_PUSH(ln->r, ln->n, ln->cap, r);
}

/* The lane of (rank, stream), made when new; lane_of[stream id] is its index in ls (UINT32_MAX:
 * none yet), a table per rank, so a trace with 100 000 streams costs one lookup per event. */
static tl_lane *lane_for(tl_lanes *ls, uint32_t *lane_of, size_t rank, uint32_t stream) {
    if (lane_of[stream] != UINT32_MAX) return &ls->lanes[lane_of[stream]];
    tl_lane ln;
    memset(&ln, 0, sizeof ln);
    ln.rank = rank; ln.stream = stream;
    if (TC_PUSH(ls->lanes, ls->n, ls->cap, ln)) return NULL;
    lane_of[stream] = (uint32_t)(ls->n - 1);
    return &ls->lanes[ls->n - 1];
}

/* One rank's lanes (build_lanes): its GPU events in the window, each added to its stream's lane. */
static int lanes_of_rank(const tl_rank *tk, const tc_trace *t, const tc_rank_result *rr, int64_t axis0,
                         double px_per_ns, double px_merge, tl_lanes *ls, uint32_t *lane_of) {
    for (size_t i = 0; i < t->n_gpu; i++) {
        const tc_gpu_event *e = &t->gpu[i];
        int64_t s = e->start_ns, end = e->start_ns + e->dur_ns;
        if (s >= tk->last) break; /* sorted by start */
        if (end <= tk->first) continue;
        tl_lane *ln = lane_for(ls, lane_of, tk->rank, e->stream);
        if (!ln) return -1;
        int64_t cs = s < tk->first ? tk->first : s, ce = end > tk->last ? tk->last : end;
        int64_t a0 = cs + tk->shift - axis0, a1 = ce + tk->shift - axis0;
        int rc = 0;
        if (e->is_comm) {
            if (rr->wait_ns) {
                int64_t w = rr->wait_ns[i];
                if (w < 0) w = 0;
                if (w > e->dur_ns) w = e->dur_ns;
                int64_t split = s + w + tk->shift - axis0;
                if (split < a0) split = a0;
                if (split > a1) split = a1;
                if (split > a0) rc |= lane_add(ln, px_per_ns, px_merge, a0, split, CAT_WAIT, (uint32_t)i, e->dur_ns);
                if (a1 > split) rc |= lane_add(ln, px_per_ns, px_merge, split, a1, CAT_TRANSFER, (uint32_t)i, e->dur_ns);
            } else rc = lane_add(ln, px_per_ns, px_merge, a0, a1, CAT_COMM, (uint32_t)i, e->dur_ns);
        } else if (e->kind == TC_GPU_MEMCPY || e->kind == TC_GPU_MEMSET)
            rc = lane_add(ln, px_per_ns, px_merge, a0, a1, CAT_MEMORY, (uint32_t)i, e->dur_ns);
        else rc = lane_add(ln, px_per_ns, px_merge, a0, a1, CAT_COMPUTE, (uint32_t)i, e->dur_ns);
        if (rc) return -1;
    }
    return 0;
}

/* Builds every lane of the chosen ranks with merge threshold px_merge. 0, or -1 out of memory. */
static int build_lanes(const tc_job *j, const tl_rank *tr, size_t ntr, int64_t axis0, double px_per_ns,
                       double px_merge, tl_lanes *ls) {
    for (size_t k = 0; k < ntr; k++) {
        if (!tr[k].has_window) continue;
        const tc_rank_result *rr = &j->ranks[tr[k].rank];
        const tc_trace *t = &j->traces[rr->input];
        size_t n_streams = tc_strtab_count(t->strings);
        uint32_t *lane_of = malloc((n_streams ? n_streams : 1) * sizeof *lane_of);
        if (!lane_of) return -1;
        for (size_t i = 0; i < n_streams; i++) lane_of[i] = UINT32_MAX;
        int rc = lanes_of_rank(&tr[k], t, rr, axis0, px_per_ns, px_merge, ls, lane_of);
        free(lane_of);
        if (rc) return -1;
    }
    return 0;
}

/* Numeric order of stream labels where they are numbers ("7" < "13"), text order otherwise. */
static int stream_cmp(const char *a, const char *b) {
    char *ea, *eb;
    long long x = strtoll(a, &ea, 10), y = strtoll(b, &eb, 10);
    if (*a && *b && !*ea && !*eb) return x < y ? -1 : x > y;
    return strcmp(a, b);
}

static void tl_tip(hr *h, const tc_job *j, const tl_lane *ln, const tl_rect *r) {
    const tc_rank_result *rr = &j->ranks[ln->rank];
    const tc_trace *t = &j->traces[rr->input];
    char a[40], b[40], c[40];
    put(h, " data-tip=\"");
    if (r->count == 1) {
        const tc_gpu_event *e = &t->gpu[r->ev];
        esc_max(h, tc_trace_str(t, e->name), TL_NAME_BYTES);
        pf(h, "\n%s - rank %lld, stream ", tl_label[r->first_cat], (long long)rr->rank);
        esc_max(h, tc_trace_str(t, ln->stream), 40);
        pf(h, "\nstart +%s ms, this part %s ms", tc_html_ms_exact(a, sizeof a, r->t0), tc_html_ms_exact(b, sizeof b, r->t1 - r->t0));
        if (r->first_cat == CAT_WAIT || r->first_cat == CAT_TRANSFER || r->t1 - r->t0 != r->ev_dur_ns)
            pf(h, " of the event's %s ms", tc_html_ms_exact(c, sizeof c, r->ev_dur_ns));
    } else {
        pf(h, "%u events narrower than a pixel, merged - rank %lld, stream ", r->count, (long long)rr->rank);
        esc_max(h, tc_trace_str(t, ln->stream), 40);
        pf(h, "\nfrom +%s to +%s ms; busy:", tc_html_ms_exact(a, sizeof a, r->t0), tc_html_ms_exact(b, sizeof b, r->t1));
        for (int k = 0; k < CAT_N; k++)
            if (r->ns[k]) pf(h, " %s %s ms;", tl_label[k], tc_html_ms_exact(a, sizeof a, r->ns[k]));
    }
    put(h, "\"");
}

static int rect_cat(const tl_rect *r) {
    int best = r->first_cat;
    for (int k = 0; k < CAT_N; k++) if (r->ns[k] > r->ns[best]) best = k;
    return best;
}

/* Each drawn rank's window on the reference clock: its GPU events of the representative step
 * (tc_findings), or its whole GPU window when there is none; [*axis0, *axis1) spans them all.
 * False when there is nothing to draw. */
static bool timeline_windows(const tc_job *j, tl_rank *tr, size_t ntr, int64_t *axis0, int64_t *axis1) {
    const tc_findings *f = &j->findings;
    *axis0 = INT64_MAX;
    *axis1 = INT64_MIN;
    for (size_t k = 0; k < ntr; k++) {
        const tc_rank_result *rr = &j->ranks[f->timeline_ranks[k]];
        const tc_trace *t = &j->traces[rr->input];
        tr[k].rank = f->timeline_ranks[k];
        tr[k].shift = (t->has_base ? t->base_ns : 0) - (rr->has_clock_offset ? rr->clock_offset_ns : 0);
        const tc_breakdown *b = NULL;
        if (f->has_step) {
            for (size_t s = 0; s < rr->n_steps; s++)
                if (rr->steps[s].number == f->step_number && rr->steps[s].b.gpu_events) b = &rr->steps[s].b;
        } else if (rr->b.gpu_events) b = &rr->b;
        if (!b || b->last_ns <= b->first_ns) continue;
        tr[k].has_window = true;
        tr[k].first = b->first_ns;
        tr[k].last = b->last_ns;
        if (b->first_ns + tr[k].shift < *axis0) *axis0 = b->first_ns + tr[k].shift;
        if (b->last_ns + tr[k].shift > *axis1) *axis1 = b->last_ns + tr[k].shift;
    }
    return *axis0 < *axis1;
}

/* Busiest first; among lanes as busy, the one made first (so the lanes kept are those the old
 * one-at-a-time removal of the least busy, last made, kept). */
static int cmp_lane_busy(const void *a, const void *b) {
    const tl_lane *const *x = a, *const *y = b;
    if ((*x)->busy_ns != (*y)->busy_ns) return (*x)->busy_ns > (*y)->busy_ns ? -1 : 1;
    return (*x > *y) - (*x < *y);
}

/* Drops the least busy lanes of each rank beyond TL_MAX_LANES_PER_RANK (tr[k].lanes_total counts
 * them all), keeping the order of the others: a sort per rank, not a pass per lane dropped (a
 * trace may have 100 000 streams). 0, or -1 out of memory. */
static int keep_busiest_lanes(tl_lanes *ls, tl_rank *tr, size_t ntr) {
    tl_lane **by_busy = malloc((ls->n ? ls->n : 1) * sizeof *by_busy);
    bool *drop = calloc(ls->n ? ls->n : 1, sizeof *drop);
    if (!by_busy || !drop) { free(by_busy); free(drop); return -1; }
    for (size_t k = 0; k < ntr; k++) {
        size_t cnt = 0;
        for (size_t i = 0; i < ls->n; i++) if (ls->lanes[i].rank == tr[k].rank) by_busy[cnt++] = &ls->lanes[i];
        tr[k].lanes_total = cnt;
        if (cnt <= TL_MAX_LANES_PER_RANK) continue;
        tc_sort(by_busy, cnt, sizeof *by_busy, cmp_lane_busy);
        for (size_t i = TL_MAX_LANES_PER_RANK; i < cnt; i++) drop[by_busy[i] - ls->lanes] = true;
    }
    size_t kept = 0;
    for (size_t i = 0; i < ls->n; i++) {
        if (drop[i]) { free(ls->lanes[i].r); continue; }
        ls->lanes[kept++] = ls->lanes[i];
    }
    ls->n = kept;
    free(by_busy);
    free(drop);
    return 0;
}

/* The lanes of the drawn ranks, merging events narrower than *px_merge pixels, doubled (up to 64)
 * until at most TL_MAX_RECTS rectangles remain; ordered by rank, then stream label. 0, or -1 out
 * of memory. */
static int timeline_lanes(const tc_job *j, tl_rank *tr, size_t ntr, int64_t axis0, double px_per_ns, tl_lanes *ls,
                          double *px_merge) {
    for (;;) {
        if (build_lanes(j, tr, ntr, axis0, px_per_ns, *px_merge, ls)) return -1;
        if (keep_busiest_lanes(ls, tr, ntr)) return -1;
        size_t total = 0;
        for (size_t i = 0; i < ls->n; i++) total += ls->lanes[i].n;
        if (total <= TL_MAX_RECTS || *px_merge >= 64) break;
        lanes_free(ls);
        *px_merge *= 2;
    }
    for (size_t a = 1; a < ls->n; a++)
        for (size_t b = a; b > 0; b--) {
            tl_lane *p = &ls->lanes[b - 1], *q = &ls->lanes[b];
            const tc_trace *tp = &j->traces[j->ranks[p->rank].input], *tq = &j->traces[j->ranks[q->rank].input];
            bool swap = p->rank > q->rank ||
                        (p->rank == q->rank && stream_cmp(tc_trace_str(tp, p->stream), tc_trace_str(tq, q->stream)) > 0);
            if (!swap) break;
            tl_lane t = *p; *p = *q; *q = t;
        }
    return 0;
}

static const tc_critical_path *drawn_path(const tc_job *j);

/* The paragraph above the chart: which step, the clock offsets, the merging; and the legend. */
static void timeline_note(hr *h, const tl_rank *tr, size_t ntr, double px_merge) {
    const tc_job *j = h->j;
    const tc_findings *f = &j->findings;
    char a[40];
    put(h, "<p class=\"note\">");
    if (f->has_step)
        pf(h, "ProfilerStep#%lld: the step of median duration (%s ms) of rank %lld. ", (long long)f->step_number,
           tc_html_ms_round(a, sizeof a, f->step_time_ns), (long long)j->ranks[f->step_rank].rank);
    else put(h, "No ProfilerStep spans: the whole GPU window is drawn. ");
    put(h, "One lane per CUDA stream; each rank's window is its GPU events of that step. Clocks are aligned to the "
           "reference rank by the estimated offsets (");
    for (size_t k = 0; k < ntr; k++) {
        const tc_rank_result *rr = &j->ranks[tr[k].rank];
        if (rr->has_clock_offset) pf(h, "%srank %lld %s%s &micro;s", k ? ", " : "", (long long)rr->rank,
                                     rr->clock_offset_ns >= 0 ? "+" : "", tc_html_us_exact(a, sizeof a, rr->clock_offset_ns));
        else pf(h, "%srank %lld unknown, not shifted", k ? ", " : "", (long long)rr->rank);
    }
    pf(h, "). Empty lane background is idle time. Events narrower than %.0f pixel%s are merged into one block "
          "(hover for what it holds); the tables keep exact values.</p>\n", px_merge, px_merge == 1 ? "" : "s");
    int tl_cats[] = {CAT_COMPUTE, CAT_TRANSFER, CAT_WAIT, CAT_COMM, CAT_MEMORY};
    tc_html_legend(h, tl_cats, 5, tl_label,
                   drawn_path(j) ? "<li><span class=\"sw\" style=\"background:#fafafa\"></span>idle (empty lane)</li>"
                                   "<li><span class=\"sw c-i3\"></span>host (critical path)</li><li>critical path: "
                                   "outlined, in a lane under each rank it runs through; black lines where it passes "
                                   "from one rank to another</li>"
                                 : "<li><span class=\"sw\" style=\"background:#fafafa\"></span>idle (empty lane)</li>");
}

/* One lane: its label, its background and its rectangles, at height y. */
static void timeline_lane(hr *h, const tl_lane *ln, int y, int64_t span) {
    const tc_job *j = h->j;
    const tc_rank_result *rr = &j->ranks[ln->rank];
    const tc_trace *t = &j->traces[rr->input];
    char a[40], b[40];
    pf(h, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank %lld &middot; stream ", TL_L - 6, y + TL_LH - 3, (long long)rr->rank);
    esc_max(h, tc_trace_str(t, ln->stream), 24);
    pf(h, "</text><rect class=\"c-lane\" x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%d\" data-tip=\"rank %lld, stream ", TL_L, y,
       TL_PW, TL_LH, (long long)rr->rank);
    esc_max(h, tc_trace_str(t, ln->stream), 40);
    pf(h, ": busy %s ms of %s ms drawn; the rest is idle\"/>\n", tc_html_ms_exact(a, sizeof a, ln->busy_ns), tc_html_ms_exact(b, sizeof b, span));
    for (size_t k = 0; k < ln->n; k++) {
        const tl_rect *r = &ln->r[k];
        double w = r->x1 - r->x0;
        if (w < 0.6) w = 0.6;
        pf(h, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" class=\"%s\"", TL_L + r->x0, y, w, TL_LH,
           tc_html_cat_class[rect_cat(r)]);
        tl_tip(h, j, ln, r);
        put(h, "/>\n");
    }
}

/* The critical path of the drawn step (summary.cp_steps, with its stretches), NULL when none. */
static const tc_critical_path *drawn_path(const tc_job *j) {
    if (!j->findings.has_step || !j->summary.has_critical_path) return NULL;
    const tc_critical_path *p = tc_replay_step_path(&j->summary, j->findings.step_number);
    return p && p->n_segs ? p : NULL;
}

static bool rank_on_path(const tc_critical_path *p, size_t rank) {
    for (size_t i = 0; p && i < p->n_segs; i++) if (p->segs[i].rank == rank) return true;
    return false;
}

/* The lane class of a path stretch's kind (tc_cp_class). */
static const char *path_class(int kind) {
    switch (kind) {
    case TC_CP_COMPUTE: return tc_html_cat_class[CAT_COMPUTE];
    case TC_CP_TRANSFER_INTRA: case TC_CP_TRANSFER_INTER: return tc_html_cat_class[CAT_TRANSFER];
    case TC_CP_MEMORY: return tc_html_cat_class[CAT_MEMORY];
    case TC_CP_IDLE: return tc_html_cat_class[CAT_IDLE];
    default: return "c-i3"; /* the host: launch, sync, its own work */
    }
}

/* A stretch on the axis: [*a0, *a1) ns from the axis start, clipped to [0, span]; false when
 * nothing of it is drawn. */
static bool seg_on_axis(const tc_cp_segment *g, const tl_rank *tk, int64_t axis0, int64_t span, int64_t *a0, int64_t *a1) {
    *a0 = g->start_ns + tk->shift - axis0;
    *a1 = g->end_ns + tk->shift - axis0;
    if (*a0 < 0) *a0 = 0;
    if (*a1 > span) *a1 = span;
    return *a1 > *a0;
}

/* One rank's path lane at height y: its stretches, those narrower than a pixel merged. */
static void path_lane(hr *h, const tc_critical_path *p, const tl_rank *tk, int y, int64_t axis0, int64_t span,
                      double px_per_ns) {
    const tc_rank_result *rr = &h->j->ranks[tk->rank];
    char a[40], b[40];
    pf(h, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank %lld &middot; critical path</text>\n", TL_L - 6,
       y + TL_PLH - 1, (long long)rr->rank);
    size_t i = 0;
    while (i < p->n_segs) {
        int64_t s0, s1, e0, e1;
        if (p->segs[i].rank != tk->rank || !seg_on_axis(&p->segs[i], tk, axis0, span, &s0, &s1)) { i++; continue; }
        size_t count = 1;
        int64_t kind_ns[TC_CP_CLASSES] = {0};
        int kind = p->segs[i].kind < TC_CP_CLASSES ? p->segs[i].kind : TC_CP_IDLE;
        kind_ns[kind] += s1 - s0;
        for (i++; i < p->n_segs && p->segs[i].rank == tk->rank; i++) { /* merge what is under a pixel */
            if (!seg_on_axis(&p->segs[i], tk, axis0, span, &e0, &e1)) continue;
            if ((double)(e0 - s1) * px_per_ns >= 1 || ((double)(s1 - s0) * px_per_ns >= 1 && (double)(e1 - e0) * px_per_ns >= 1))
                break;
            s1 = e1 > s1 ? e1 : s1;
            kind_ns[p->segs[i].kind < TC_CP_CLASSES ? p->segs[i].kind : TC_CP_IDLE] += e1 - e0;
            count++;
        }
        for (int k = 0; k < TC_CP_CLASSES; k++) if (kind_ns[k] > kind_ns[kind]) kind = k; /* the most time shows */
        double x = TL_L + (double)s0 * px_per_ns, w = (double)(s1 - s0) * px_per_ns;
        pf(h, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" class=\"%s\" stroke=\"#000\" "
              "stroke-width=\"0.5\" data-tip=\"", x, y, w < 0.6 ? 0.6 : w, TL_PLH, path_class(kind));
        if (count == 1) pf(h, "critical path: %s", tc_cp_class_label(kind));
        else pf(h, "critical path: %zu stretches narrower than a pixel, merged, most of it %s", count, tc_cp_class_label(kind));
        pf(h, " - rank %lld\nfrom +%s ms, %s ms\"/>\n", (long long)rr->rank, tc_html_ms_exact(a, sizeof a, s0),
           tc_html_ms_exact(b, sizeof b, s1 - s0));
    }
}

/* Where the path passes from one drawn rank to another: a line between their path lanes (one per
 * pixel and pair of lanes, so a path that passes back and forth stays a bounded drawing). */
static void path_jumps(hr *h, const tc_critical_path *p, const tl_rank *tr, size_t ntr, const int *path_y, int64_t axis0,
                       int64_t span, double px_per_ns) {
    size_t prev = SIZE_MAX;
    double last_x = -10;
    int last_ya = -1, last_yb = -1;
    for (size_t i = 0; i < p->n_segs; i++) {
        if (prev != SIZE_MAX && p->segs[i].rank != p->segs[prev].rank) {
            size_t ka = ntr, kb = ntr;
            for (size_t k = 0; k < ntr; k++) {
                if (tr[k].rank == p->segs[prev].rank && path_y[k] >= 0) ka = k;
                if (tr[k].rank == p->segs[i].rank && path_y[k] >= 0) kb = k;
            }
            int64_t a0, a1, b0, b1;
            if (ka < ntr && kb < ntr && seg_on_axis(&p->segs[prev], &tr[ka], axis0, span, &a0, &a1) &&
                seg_on_axis(&p->segs[i], &tr[kb], axis0, span, &b0, &b1)) {
                double x = TL_L + (double)a1 * px_per_ns;
                bool same = x - last_x < 1 && x - last_x > -1 && path_y[ka] == last_ya && path_y[kb] == last_yb;
                if (!same)
                    pf(h, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" stroke-width=\"1\"/>\n", x,
                       path_y[ka] + TL_PLH / 2, TL_L + (double)b0 * px_per_ns, path_y[kb] + TL_PLH / 2);
                last_x = x;
                last_ya = path_y[ka];
                last_yb = path_y[kb];
            }
        }
        prev = i;
    }
}

/* The chart: a ms grid, then the lanes grouped by rank, each rank on the step's critical path with
 * a path lane under its streams, and the path's passes between ranks. */
static void timeline_svg(hr *h, const tl_lanes *ls, const tl_rank *tr, size_t ntr, int64_t axis0, int64_t span,
                         double px_per_ns) {
    const tc_critical_path *path = drawn_path(h->j);
    size_t ranks_drawn = 0, path_lanes = 0;
    for (size_t k = 0; k < ntr; k++) {
        ranks_drawn += tr[k].has_window;
        path_lanes += tr[k].has_window && rank_on_path(path, tr[k].rank);
    }
    int H = TL_TOP + (int)ls->n * (TL_LH + TL_LG) + (int)path_lanes * (TL_PLH + TL_LG) + (int)ranks_drawn * TL_RG + 30;
    pf(h, "<svg id=\"timeline-chart\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
          "aria-label=\"timeline of one step, one lane per stream\">\n", TL_W, H, TL_W, H);
    double step_ms = tc_html_nice_step((double)span / 1e6, 8);
    char tick[TC_ATTR_LEN];
    for (double t = 0; t <= (double)span / 1e6 + 1e-9; t += step_ms) {
        double x = TL_L + t * 1e6 * px_per_ns;
        pf(h, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/><text x=\"%.1f\" y=\"%d\" "
              "text-anchor=\"middle\">%s ms</text>\n", x, TL_TOP - 4, x, H - 26, x, H - 10,
           tc_fmt_num(tick, sizeof tick, t, tc_sig_decimals(t, 6)));
    }
    int y = TL_TOP, path_y[TC_TIMELINE_MAX_DRAWN];
    for (size_t k = 0; k < TC_TIMELINE_MAX_DRAWN; k++) path_y[k] = -1;
    size_t prev_rank = SIZE_MAX;
    for (size_t i = 0; i < ls->n; i++) {
        const tl_lane *ln = &ls->lanes[i];
        if (ln->rank != prev_rank) { if (prev_rank != SIZE_MAX) y += TL_RG; prev_rank = ln->rank; }
        timeline_lane(h, ln, y, span);
        y += TL_LH + TL_LG;
        if (i + 1 < ls->n && ls->lanes[i + 1].rank == ln->rank) continue;
        for (size_t k = 0; path && k < ntr && k < TC_TIMELINE_MAX_DRAWN; k++) /* the rank's last lane: its path */
            if (tr[k].rank == ln->rank && rank_on_path(path, ln->rank)) {
                path_y[k] = y;
                path_lane(h, path, &tr[k], y, axis0, span, px_per_ns);
                y += TL_PLH + TL_LG;
            }
    }
    if (path) path_jumps(h, path, tr, ntr < TC_TIMELINE_MAX_DRAWN ? ntr : TC_TIMELINE_MAX_DRAWN, path_y, axis0, span, px_per_ns);
    put(h, "</svg>\n");
}

/* Notes under the chart: ranks without events in the step, lanes left out, ranks not drawn. */
static void timeline_footnotes(hr *h, const tl_rank *tr, size_t ntr) {
    const tc_job *j = h->j;
    for (size_t k = 0; k < ntr; k++) {
        const tc_rank_result *rr = &j->ranks[tr[k].rank];
        if (!tr[k].has_window)
            pf(h, "<p class=\"note\">rank %lld: no GPU events in this step.</p>\n", (long long)rr->rank);
        else if (tr[k].lanes_total > TL_MAX_LANES_PER_RANK)
            pf(h, "<p class=\"note\">rank %lld: the %d busiest of its %zu streams are drawn.</p>\n", (long long)rr->rank,
               TL_MAX_LANES_PER_RANK, tr[k].lanes_total);
    }
    if (j->n_ranks > ntr)
        pf(h, "<p class=\"note\">%zu of %zu ranks drawn (the first, the straggler, the one that waited most, the last); "
              "every rank is in the table above.</p>\n", ntr, j->n_ranks);
}

/* The representative step of the timeline's ranks (tc_findings: both chosen by the analyzer). Only
 * these ranks' events are read (an MPI process 0 holds no others: docs/mpi.md). */
void tc_html_section_timeline(hr *h) {
    const tc_job *j = h->j;
    put(h, "<section id=\"timeline\">\n<h2>Timeline of one representative step</h2>\n");
    if (!j->n_ranks) { put(h, "<p class=\"note\">No rank had GPU activity.</p>\n</section>\n"); return; }
    size_t ntr = j->findings.n_timeline_ranks;
    tl_rank *tr = calloc(ntr ? ntr : 1, sizeof *tr);
    tl_lanes ls = {NULL, 0, 0};
    int64_t axis0, axis1;
    double px_merge = 1.0;
    if (!tr) h->oom = true;
    else if (!timeline_windows(j, tr, ntr, &axis0, &axis1)) put(h, "<p class=\"note\">No GPU events to draw.</p>\n");
    else {
        int64_t span = axis1 - axis0;
        double px_per_ns = TL_PW / (double)span;
        if (timeline_lanes(j, tr, ntr, axis0, px_per_ns, &ls, &px_merge)) h->oom = true;
        else {
            timeline_note(h, tr, ntr, px_merge);
            timeline_svg(h, &ls, tr, ntr, axis0, span, px_per_ns);
            timeline_footnotes(h, tr, ntr);
        }
    }
    lanes_free(&ls);
    free(tr);
    put(h, "</section>\n");
}
