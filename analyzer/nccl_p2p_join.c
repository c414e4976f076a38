/* nccl_p2p_join.c: the join of NCCL Inspector p2p_perf records to the trace's point-to-point
 * kernels (nccl_join.h tc_nccl_p2p_join; docs/nccl.md "Point-to-point").
 *
 * A log file's rank is the one the collective join settled (its trace's pid, or its communicators);
 * a communicator of n ranks is the process group tc_nccl_group_of finds from its ranks' files. The
 * rank's P2P kernels of that group (SendRecv kernels with "Dst Rank" / "Src Rank", the group's
 * Process Group Name) in trace order are its point-to-point operations on the communicator, which
 * p2p_sn counts one by one: the k-th kernel is the record of sn0 + k, sn0 the offset under which
 * the most records agree with their kernel in direction, peer (the peer's place in the group's
 * ascending ranks is p2p_peer) and size, and were written after the kernel ended where both clocks
 * are known (the mean lag breaks ties). So within one (rank, peer, direction) records and kernels
 * go in the same order. A kernel without its record is below the size floor or dropped; a record
 * of the other direction or peer, of another size, or CPU-timed is not joined. NCCL's P2P busbw:
 * Σ bytes / Σ p2p_exec_time_us over the joined records (bus factor 1); the trace's beside it: the
 * same bytes over their kernels' transfer (duration − wait head). */
#include "nccl_join.h"
#include "collectives.h"
#include "pipeline.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

/* One P2P kernel of a rank in a group. */
typedef struct {
    int32_t peer;     /* the peer's place in the group's ranks */
    uint8_t send;
    int64_t bytes;    /* In msg nelems × the dtype's size; -1 unknown */
    int64_t end_ns;   /* its end on the epoch clock, -1 unknown */
    int64_t xfer_ns;  /* duration − wait head; -1 not split (unpaired) */
} p2p_kernel;

static int cmp_p2p(const void *a, const void *b) {
    const tc_nccl_p2p *x = a, *y = b;
    if (x->comm_id != y->comm_id) return x->comm_id < y->comm_id ? -1 : 1;
    if (x->n_ranks != y->n_ranks) return x->n_ranks < y->n_ranks ? -1 : 1;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    return (x->sn > y->sn) - (x->sn < y->sn);
}

static int32_t place_in(const tc_process_group *pg, int64_t g) {
    for (size_t k = 0; k < pg->n_ranks; k++)
        if (pg->ranks[k] == g) return (int32_t)k;
    return -1;
}

/* Rank index ri's P2P kernels with peer args of group pg, in trace order, into *out (*n; free it).
 * 0, or -1 out of memory. */
static int kernels_of(const tc_job *j, size_t ri, size_t pg, p2p_kernel **out, size_t *n) {
    const tc_rank_result *rr = &j->ranks[ri];
    const tc_trace *t = &j->traces[rr->input];
    const tc_process_group *g = &j->groups[pg];
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    uint32_t name_ok = TC_NONE, name_no = TC_NONE; /* the last pg_name ids seen to match / not */
    for (size_t e = 0; e < t->n_gpu; e++) {
        const tc_gpu_event *ev = &t->gpu[e];
        if (!ev->is_comm || ev->kind != TC_GPU_KERNEL || ev->coll == TC_NONE) continue;
        const tc_coll_args *c = &t->colls[ev->coll];
        if (!tc_p2p_has_peer(c) || c->pg_name == TC_NONE || c->pg_name == name_no) continue;
        if (c->pg_name != name_ok) {
            if (strcmp(tc_trace_str(t, c->pg_name), g->name) != 0) { name_no = c->pg_name; continue; }
            name_ok = c->pg_name;
        }
        bool send = c->dst_rank >= 0;
        int32_t peer = place_in(g, send ? c->dst_rank : c->src_rank);
        int eb = c->dtype != TC_NONE ? tc_dtype_bytes(tc_trace_str(t, c->dtype)) : 0;
        int64_t end = (t->has_base ? t->base_ns : 0) + ev->start_ns + ev->dur_ns;
        p2p_kernel k = {peer, send, eb > 0 && c->in_nelems >= 0 ? c->in_nelems * eb : -1,
                        t->has_base || end >= 978307200000000000LL ? end : -1, /* epoch time: after 2001 */
                        rr->wait_ns && rr->wait_ns[e] >= 0 ? ev->dur_ns - rr->wait_ns[e] : -1};
        if (TC_PUSH(*out, *n, cap, k)) { free(*out); *out = NULL; return -1; }
    }
    return 0;
}

static const tc_nccl_p2p *p2p_by_sn(const tc_nccl_p2p *rec, size_t n, int64_t sn) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rec[mid].sn < sn) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && rec[lo].sn == sn ? &rec[lo] : NULL;
}

#define P2P_LAG_SLACK_NS 100000 /* a record's dump time may read this much before its kernel's end (clocks) */

static bool agrees(const p2p_kernel *k, const tc_nccl_p2p *x) {
    return x->send == k->send && x->peer == k->peer && x->bytes == k->bytes;
}

static bool below_floor(const p2p_kernel *k, int64_t min_size) { return k->bytes >= 0 && k->bytes < min_size; }

/* The records of rec[0, nr) that agree with their kernel under offset base (*lag: their mean
 * dump-to-end lag, ns, where both clocks are known; a record written before its kernel ended does
 * not agree). */
static size_t offset_score(const p2p_kernel *k, size_t nk, const tc_nccl_p2p *rec, size_t nr, int64_t base, double *lag) {
    size_t score = 0, timed = 0;
    *lag = 0;
    for (size_t i = 0; i < nk; i++) {
        const tc_nccl_p2p *x = p2p_by_sn(rec, nr, base + (int64_t)i);
        if (!x || !agrees(&k[i], x)) continue;
        if (x->dump_us > 0 && k[i].end_ns >= 0) {
            if (x->dump_us * 1000 < k[i].end_ns - P2P_LAG_SLACK_NS) continue;
            *lag += (double)(x->dump_us * 1000 - k[i].end_ns);
            timed++;
        }
        score++;
    }
    if (timed) *lag /= (double)timed;
    return score;
}

/* sn0 (the module comment): candidates put each of the first 64 records on any of the first 4
 * kernels of at least the floor (the record of the first may be the one dropped); the most records
 * agreeing wins, and of those the soonest written. False when no record agrees with any kernel. */
static bool p2p_offset(const p2p_kernel *k, size_t nk, const tc_nccl_p2p *rec, size_t nr, int64_t min_size, int64_t *sn0) {
    size_t first = 0, best = 0;
    while (first < nk && below_floor(&k[first], min_size)) first++;
    double best_lag = 0;
    for (size_t c = 0; c < nr && c < 64; c++)
        for (size_t kk = first; kk < nk && kk < first + 4; kk++) {
            if (!agrees(&k[kk], &rec[c])) continue;
            int64_t base = rec[c].sn - (int64_t)kk;
            double lag;
            size_t score = offset_score(k, nk, rec, nr, base, &lag);
            if (score > best || (score == best && score && lag < best_lag)) { best = score; best_lag = lag; *sn0 = base; }
        }
    return best > 0;
}

/* One (file, communicator) run rec[0, nr) against rank index ri's kernels of group pg. 0, or -1 out of memory. */
static int join_p2p_run(const tc_job *j, tc_nccl_result *r, size_t pg, size_t ri, const tc_nccl_p2p *rec, size_t nr) {
    tc_nccl_group *g = &r->groups[pg];
    p2p_kernel *k;
    size_t nk;
    if (kernels_of(j, ri, pg, &k, &nk)) return -1;
    int64_t sn0 = 0;
    if (!p2p_offset(k, nk, rec, nr, r->min_size, &sn0)) { r->p2p_outside += (int64_t)nr; nk = 0; }
    size_t inside = 0;
    for (size_t i = 0; i < nk; i++) {
        const tc_nccl_p2p *x = p2p_by_sn(rec, nr, sn0 + (int64_t)i);
        inside += x != NULL;
        if (!x) { if (below_floor(&k[i], r->min_size)) g->p2p.below_min_size++; else g->p2p.dropped++; }
        else if (x->send != k[i].send || x->peer != k[i].peer) g->p2p_peer_mismatch++;
        else if (x->bytes != k[i].bytes) g->p2p.size_mismatch++;
        else if (x->timing == TC_NCCL_TIMING_KERNEL_CPU || x->timing == TC_NCCL_TIMING_COLLECTIVE_CPU) g->p2p.cpu_timed++;
        else {
            g->p2p.joined++;
            g->p2p_bytes += (double)x->bytes;
            g->p2p_exec_us += x->exec_us;
            if (k[i].xfer_ns >= 0) g->p2p_trace_ns += (double)k[i].xfer_ns;
            else g->p2p_trace_unsplit = true; /* no trace figure for the group */
        }
    }
    if (nk) r->p2p_outside += (int64_t)(nr - inside);
    free(k);
    return 0;
}

/* The kernels of rank index ri in group pg when its log has no p2p_perf record of the group: each
 * below the floor or dropped. 0, or -1 out of memory. */
static int count_unrecorded(const tc_job *j, tc_nccl_result *r, size_t ri, size_t pg) {
    p2p_kernel *k;
    size_t nk;
    if (kernels_of(j, ri, pg, &k, &nk)) return -1;
    tc_nccl_group *g = &r->groups[pg];
    if (nk) g->has_p2p = g->has = true;
    for (size_t i = 0; i < nk; i++) {
        if (below_floor(&k[i], r->min_size)) g->p2p.below_min_size++;
        else g->p2p.dropped++;
    }
    free(k);
    return 0;
}

/* The runs of one communicator rec[0, n) (sorted by file, sn); done[ri * n_groups + pg] marks the
 * (rank, group) pairs joined. 0, or -1 out of memory. */
static int join_p2p_comm(const tc_job *j, tc_nccl_result *r, const tc_nccl_p2p *rec, size_t n, const int64_t *file_rank,
                         bool *done) {
    int32_t nr = rec[0].n_ranks;
    int64_t *member = malloc((size_t)nr * sizeof *member);
    if (!member) return -1;
    for (int32_t q = 0; q < nr; q++) member[q] = -1;
    for (size_t i = 0; i < n; i++)
        if (file_rank[rec[i].file] >= 0) member[rec[i].rank] = file_rank[rec[i].file];
    size_t pg = tc_nccl_group_of(j, member, nr);
    free(member);
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && rec[b].file == rec[a].file; b++) {}
        size_t ri = tc_nccl_rank_index(j, file_rank[rec[a].file]);
        if (pg == SIZE_MAX || ri == SIZE_MAX || !j->groups[pg].ranks) { r->p2p_unplaced += (int64_t)(b - a); continue; }
        r->groups[pg].has_p2p = r->groups[pg].has_p2p_comm = r->groups[pg].has = true;
        done[ri * j->n_groups + pg] = true;
        if (join_p2p_run(j, r, pg, ri, rec + a, b - a)) return -1;
    }
    return 0;
}

/* The groups' P2P busbw figures, and the notes. */
static int p2p_finish(const tc_job *j, tc_nccl_result *r) {
    for (size_t i = 0; i < j->n_groups; i++) {
        tc_nccl_group *g = &r->groups[i];
        if ((g->has_p2p_busbw = g->p2p_exec_us > 0)) g->p2p_busbw_GBps = g->p2p_bytes / g->p2p_exec_us / 1e3;
        if ((g->has_trace_p2p_busbw = g->p2p_trace_ns > 0 && !g->p2p_trace_unsplit)) g->trace_p2p_busbw_GBps = g->p2p_bytes / g->p2p_trace_ns;
    }
    int rc = 0;
    if (r->p2p_unplaced)
        rc |= tc_nccl_note(r, "%lld Inspector p2p_perf records are of a process or communicator the traces do not have",
                           (long long)r->p2p_unplaced);
    if (r->p2p_outside)
        rc |= tc_nccl_note(r, "%lld Inspector p2p_perf records are of point-to-point operations outside the traced window",
                           (long long)r->p2p_outside);
    return rc;
}

int tc_nccl_p2p_join(const tc_job *j, tc_nccl_result *r, const int64_t *file_rank) {
    size_t n = r->log.n_p2ps;
    tc_nccl_p2p *rec = malloc((n ? n : 1) * sizeof *rec);
    bool *done = calloc(j->n_ranks * j->n_groups + 1, sizeof *done);
    bool *logged = calloc(j->n_ranks ? j->n_ranks : 1, sizeof *logged);
    int rc = rec && done && logged ? 0 : -1;
    if (rc == 0 && n) {
        memcpy(rec, r->log.p2ps, n * sizeof *rec);
        tc_sort(rec, n, sizeof *rec, cmp_p2p);
    }
    for (size_t a = 0, b; rc == 0 && a < n; a = b) {
        for (b = a + 1; b < n && rec[b].comm_id == rec[a].comm_id && rec[b].n_ranks == rec[a].n_ranks; b++) {}
        rc = join_p2p_comm(j, r, rec + a, b - a, file_rank, done);
    }
    for (size_t f = 0; rc == 0 && f < r->log.n_files; f++) {
        size_t ri = tc_nccl_rank_index(j, file_rank[f]);
        if (ri != SIZE_MAX && !r->log.files[f].plugin && !r->log.files[f].prom) logged[ri] = true;
    }
    for (size_t ri = 0; rc == 0 && ri < j->n_ranks; ri++)
        for (size_t pg = 0; logged[ri] && rc == 0 && pg < j->n_groups; pg++)
            if (!done[ri * j->n_groups + pg] && j->groups[pg].ranks) rc = count_unrecorded(j, r, ri, pg);
    free(rec);
    free(done);
    free(logged);
    return rc ? -1 : p2p_finish(j, r);
}
