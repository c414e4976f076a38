/* timeline_report.c: the job as one Chrome-trace JSON (see timeline_report.h). */
#include "timeline_report.h"
#include "jsonw.h"
#include "textfmt.h"
#include "base/util.h"
#include "base/version.h"
#include <stdlib.h>
#include <string.h>

#define STEP_TID 0 /* the ProfilerStep thread of every rank; streams are 1.. in label order */

/* One drawn rank: where its events go on the common clock and which of them are drawn. */
typedef struct {
    const tc_rank_result *rr;
    const tc_trace *t;
    int64_t shift;           /* trace ns + shift = ns on the reference rank's clock (epoch when known) */
    bool cut;                /* only events overlapping [from, to) (trace ns) */
    int64_t from, to;
    uint32_t *streams;       /* strtab ids of its streams, in label order (tid = index + 1) */
    size_t n_streams;
} tl_rank;

/* Numeric order of stream labels where they are numbers ("7" < "13"), text order otherwise. */
static int stream_order(const tc_trace *t, uint32_t a, uint32_t b) {
    const char *x = tc_trace_str(t, a), *y = tc_trace_str(t, b);
    char *ex, *ey;
    long long p = strtoll(x, &ex, 10), q = strtoll(y, &ey, 10);
    if (*x && *y && !*ex && !*ey) return p < q ? -1 : p > q;
    return strcmp(x, y);
}

/* The rank's streams (distinct strtab ids) sorted by label. -1 out of memory. */
static int rank_streams(tl_rank *r) {
    size_t cap = 0;
    for (size_t i = 0; i < r->t->n_gpu; i++) {
        uint32_t s = r->t->gpu[i].stream;
        size_t k = 0;
        while (k < r->n_streams && r->streams[k] != s) k++;
        if (k < r->n_streams) continue;
        if (TC_PUSH(r->streams, r->n_streams, cap, s)) return -1;
    }
    for (size_t a = 1; a < r->n_streams; a++) /* few streams: insertion sort */
        for (size_t b = a; b > 0 && stream_order(r->t, r->streams[b - 1], r->streams[b]) > 0; b--) {
            uint32_t x = r->streams[b];
            r->streams[b] = r->streams[b - 1];
            r->streams[b - 1] = x;
        }
    return 0;
}

static int64_t tid_of(const tl_rank *r, uint32_t stream) {
    for (size_t k = 0; k < r->n_streams; k++) if (r->streams[k] == stream) return (int64_t)k + 1;
    return 0;
}

/* With --steps A-B: the span of the steps' own GPU events and CPU spans (trace ns). */
static void step_cut(tl_rank *r, const tc_timeline_filter *f) {
    r->cut = f->has_steps;
    if (!r->cut) return;
    r->from = INT64_MAX;
    r->to = INT64_MIN;
    for (size_t s = 0; s < r->rr->n_steps; s++) {
        const tc_step_result *st = &r->rr->steps[s];
        if (st->number < f->first_step || st->number > f->last_step || !st->b.gpu_events) continue;
        if (st->b.first_ns < r->from) r->from = st->b.first_ns;
        if (st->b.last_ns > r->to) r->to = st->b.last_ns;
    }
    const tc_step_span *sp = r->t->n_cpu_steps ? r->t->cpu_steps : r->t->gpu_steps;
    size_t n = r->t->n_cpu_steps ? r->t->n_cpu_steps : r->t->n_gpu_steps;
    for (size_t i = 0; i < n; i++) {
        if (sp[i].number < f->first_step || sp[i].number > f->last_step) continue;
        if (sp[i].start_ns < r->from) r->from = sp[i].start_ns;
        if (sp[i].start_ns + sp[i].dur_ns > r->to) r->to = sp[i].start_ns + sp[i].dur_ns;
    }
}

static bool drawn(const tl_rank *r, int64_t start, int64_t dur) {
    return !r->cut || (start < r->to && start + dur > r->from) || (dur == 0 && start >= r->from && start <= r->to);
}

/* A complete event; name NULL writes none (the caller adds args after). Leaves the object open. */
static void x_event(jw *w, const char *name, const char *cat, int64_t pid, int64_t tid, int64_t ts_ns, int64_t dur_ns) {
    jw_object_begin(w);
    jw_key(w, "ph"); jw_string(w, "X");
    jw_key(w, "cat"); jw_string(w, cat);
    jw_key(w, "name"); jw_string(w, name);
    jw_key(w, "pid"); jw_int(w, pid);
    jw_key(w, "tid"); jw_int(w, tid);
    jw_key(w, "ts"); jw_ns_as_us(w, ts_ns);
    jw_key(w, "dur"); jw_ns_as_us(w, dur_ns);
}

/* A metadata event (process_name, thread_name, ..._sort_index, process_labels): args {key: value}. */
static void meta(jw *w, const char *what, int64_t pid, int64_t tid, const char *key, const char *text, int64_t num) {
    jw_object_begin(w);
    jw_key(w, "ph"); jw_string(w, "M");
    jw_key(w, "name"); jw_string(w, what);
    jw_key(w, "pid"); jw_int(w, pid);
    jw_key(w, "tid"); jw_int(w, tid);
    jw_key(w, "args");
    jw_object_begin(w);
    jw_key(w, key);
    if (text) jw_string(w, text); else jw_int(w, num);
    jw_object_end(w);
    jw_object_end(w);
}

/* The rank's process and thread names; the straggler's name and label say so. */
static void rank_meta(jw *w, const tc_job *j, const tl_rank *r) {
    const tc_summary *sm = &j->summary;
    bool straggler = sm->has_straggler && sm->straggler.rank == r->rr->rank;
    int64_t pid = r->rr->rank;
    char name[400], label[200], pw[2][TC_PCT_LEN];
    snprintf(name, sizeof name, "rank %lld%s (%.200s, node %lld)", (long long)pid, straggler ? ": STRAGGLER" : "",
             r->rr->device ? r->rr->device : "device unknown", (long long)r->rr->node);
    meta(w, "process_name", pid, 0, "name", name, 0);
    meta(w, "process_sort_index", pid, 0, "sort_index", NULL, pid);
    if (straggler) {
        snprintf(label, sizeof label, "straggler: causes %s of the waiting, arrives last at %s of collectives",
                 tc_fmt_pct(pw[0], sizeof pw[0], sm->straggler.caused_wait_share, 0),
                 tc_fmt_pct(pw[1], sizeof pw[1], sm->straggler.last_arrival_share, 0));
        meta(w, "process_labels", pid, 0, "labels", label, 0);
    }
    meta(w, "thread_name", pid, STEP_TID, "name", "ProfilerStep", 0);
    meta(w, "thread_sort_index", pid, STEP_TID, "sort_index", NULL, STEP_TID);
    for (size_t k = 0; k < r->n_streams; k++) {
        snprintf(name, sizeof name, "stream %.200s", tc_trace_str(r->t, r->streams[k]));
        meta(w, "thread_name", pid, (int64_t)k + 1, "name", name, 0);
        meta(w, "thread_sort_index", pid, (int64_t)k + 1, "sort_index", NULL, (int64_t)k + 1);
    }
}

static void rank_steps(jw *w, const tl_rank *r, int64_t origin) {
    const tc_step_span *sp = r->t->n_cpu_steps ? r->t->cpu_steps : r->t->gpu_steps;
    size_t n = r->t->n_cpu_steps ? r->t->n_cpu_steps : r->t->n_gpu_steps;
    char name[48];
    for (size_t i = 0; i < n; i++) {
        if (!drawn(r, sp[i].start_ns, sp[i].dur_ns)) continue;
        snprintf(name, sizeof name, "ProfilerStep#%lld", (long long)sp[i].number);
        x_event(w, name, r->t->n_cpu_steps ? "user_annotation" : "gpu_user_annotation", r->rr->rank, STEP_TID,
                sp[i].start_ns + r->shift - origin, sp[i].dur_ns);
        jw_object_end(w);
    }
}

/* A communication kernel's args: its collective, group and size when the trace gave them, and the
 * wait / transfer split. */
static void comm_args(jw *w, const tc_trace *t, const tc_gpu_event *e, bool split, int64_t wait) {
    jw_key(w, "args");
    jw_object_begin(w);
    if (e->coll != TC_NONE && e->coll < t->n_colls) {
        const tc_coll_args *c = &t->colls[e->coll];
        jw_key(w, "Collective name"); jw_string(w, c->coll_name != TC_NONE ? tc_trace_str(t, c->coll_name) : NULL);
        jw_key(w, "Process Group Name"); jw_string(w, c->pg_name != TC_NONE ? tc_trace_str(t, c->pg_name) : NULL);
        jw_key(w, "In msg nelems"); jw_int(w, c->in_nelems);
        jw_key(w, "dtype"); jw_string(w, c->dtype != TC_NONE ? tc_trace_str(t, c->dtype) : NULL);
    }
    jw_key(w, "wait_us"); if (split) jw_ns_as_us(w, wait); else jw_null(w);
    jw_key(w, "transfer_us"); if (split) jw_ns_as_us(w, e->dur_ns - wait); else jw_null(w);
    jw_object_end(w);
}

static void rank_gpu(jw *w, const tl_rank *r, int64_t origin) {
    static const char *const cats[] = {"kernel", "gpu_memcpy", "gpu_memset"};
    const tc_trace *t = r->t;
    for (size_t i = 0; i < t->n_gpu; i++) {
        const tc_gpu_event *e = &t->gpu[i];
        if (!drawn(r, e->start_ns, e->dur_ns)) continue;
        int64_t ts = e->start_ns + r->shift - origin, tid = tid_of(r, e->stream), pid = r->rr->rank;
        x_event(w, tc_trace_str(t, e->name), cats[e->kind < 3 ? e->kind : 0], pid, tid, ts, e->dur_ns);
        if (!e->is_comm) { jw_object_end(w); continue; }
        bool split = r->rr->wait_ns != NULL;
        int64_t wait = split ? r->rr->wait_ns[i] : 0;
        if (wait < 0) wait = 0;
        if (wait > e->dur_ns) wait = e->dur_ns;
        comm_args(w, t, e, split, wait);
        jw_object_end(w);
        if (!split) continue;
        if (wait > 0) { x_event(w, "wait", "comm_wait", pid, tid, ts, wait); jw_object_end(w); }
        if (e->dur_ns > wait) { x_event(w, "transfer", "comm_transfer", pid, tid, ts + wait, e->dur_ns - wait); jw_object_end(w); }
    }
}

/* otherData: what the file is and how its clock was made. */
static void other_data(jw *w, const tc_job *j, const tl_rank *r, size_t n, int64_t origin) {
    jw_key(w, "otherData");
    jw_object_begin(w);
    jw_key(w, "schema"); jw_string(w, "tracecost-timeline/1");
    jw_key(w, "tool_version"); jw_string(w, TC_VERSION);
    jw_key(w, "origin_unix_ns");
    bool epoch = n > 0;
    for (size_t k = 0; k < n; k++) epoch &= r[k].t->has_base;
    if (epoch) jw_int(w, origin); else jw_null(w);
    jw_key(w, "clock_offsets_us");
    jw_object_begin(w);
    for (size_t k = 0; k < n; k++) {
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)r[k].rr->rank);
        jw_key(w, key);
        if (r[k].rr->has_clock_offset) jw_ns_as_us(w, r[k].rr->clock_offset_ns); else jw_null(w);
    }
    jw_object_end(w);
    jw_key(w, "straggler_rank");
    if (j->summary.has_straggler) jw_int(w, j->summary.straggler.rank); else jw_null(w);
    jw_object_end(w);
}

int tc_timeline_write(FILE *out, const tc_job *j, const tc_timeline_filter *f) {
    tl_rank *r = calloc(j->n_ranks ? j->n_ranks : 1, sizeof *r);
    if (!r) return -1;
    size_t n = 0;
    int64_t origin = INT64_MAX;
    int rc = 0;
    for (size_t k = 0; k < j->n_ranks && rc == 0; k++) {
        if (f->ranks && !f->ranks[k]) continue;
        tl_rank *x = &r[n++];
        x->rr = &j->ranks[k];
        x->t = &j->traces[x->rr->input];
        x->shift = (x->t->has_base ? x->t->base_ns : 0) - (x->rr->has_clock_offset ? x->rr->clock_offset_ns : 0);
        step_cut(x, f);
        rc = rank_streams(x);
        for (size_t i = 0; i < x->t->n_gpu; i++) /* sorted by start: the first drawn one */
            if (drawn(x, x->t->gpu[i].start_ns, x->t->gpu[i].dur_ns)) {
                if (x->t->gpu[i].start_ns + x->shift < origin) origin = x->t->gpu[i].start_ns + x->shift;
                break;
            }
        const tc_step_span *sp = x->t->n_cpu_steps ? x->t->cpu_steps : x->t->gpu_steps;
        size_t ns = x->t->n_cpu_steps ? x->t->n_cpu_steps : x->t->n_gpu_steps;
        for (size_t i = 0; i < ns; i++)
            if (drawn(x, sp[i].start_ns, sp[i].dur_ns) && sp[i].start_ns + x->shift < origin) origin = sp[i].start_ns + x->shift;
    }
    if (origin == INT64_MAX) origin = 0;
    jw w;
    jw_init(&w, out, false);
    jw_object_begin(&w);
    jw_key(&w, "traceEvents");
    jw_array_begin(&w);
    for (size_t k = 0; k < n && rc == 0; k++) {
        jw_flush(&w); /* then the FILE's own write, in order */
        fputc('\n', out); /* one rank's block per line start: readable, still one JSON document */
        rank_meta(&w, j, &r[k]);
        rank_steps(&w, &r[k], origin);
        rank_gpu(&w, &r[k], origin);
    }
    jw_array_end(&w);
    jw_key(&w, "displayTimeUnit"); jw_string(&w, "ns");
    other_data(&w, j, r, n, origin);
    jw_object_end(&w);
    jw_flush(&w);
    fputc('\n', out);
    for (size_t k = 0; k < n; k++) free(r[k].streams);
    free(r);
    return jw_finish(&w) || rc ? -1 : 0;
}
