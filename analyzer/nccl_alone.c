/* nccl_alone.c: NCCL Inspector logs without a trace (nccl_alone.h). The Inspector records, sorted
 * by communicator (header.id, n_ranks), kind, coll_sn and rank, fall into communicators; within one,
 * a run of one (kind, coll_sn) is the same collective on its ranks (NCCL numbers a communicator's
 * collectives of a kind one by one on every rank). Bus bandwidth is summed, never averaged: Σ bytes x
 * bus factor / Σ exec over the GPU-timed records of every rank, per communicator and per row. A
 * sequence with the GPU-timed record of every rank charges the rank that alone has the shortest
 * exec time (it arrived last: the others' kernels ran while they waited for it) with the others'
 * extra time; the straggler is named by the rule of docs/definitions.md "Straggler", with the
 * communicator's exec time in place of a step window. A profiler plugin COLL record counts in the
 * algorithm/protocol/channels mix of the communicator whose header.id is its CommHash. */
#include "nccl_alone.h"
#include "collectives.h"
#include "groups.h"
#include "base/util.h"
#include "model/gpu_catalog.h"
#include "model/link_catalog.h"
#include <stdlib.h>
#include <string.h>

static int cmp_rec(const void *a, const void *b) {
    const tc_nccl_record *x = a, *y = b;
    if (x->comm_id != y->comm_id) return x->comm_id < y->comm_id ? -1 : 1;
    if (x->n_ranks != y->n_ranks) return x->n_ranks < y->n_ranks ? -1 : 1;
    if (x->coll != y->coll) return x->coll < y->coll ? -1 : 1;
    if (x->sn != y->sn) return x->sn < y->sn ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->file > y->file) - (x->file < y->file);
}

static bool gpu_timed(const tc_nccl_record *r) {
    return r->timing == TC_NCCL_TIMING_KERNEL_GPU || r->timing == TC_NCCL_TIMING_UNKNOWN;
}

static double factor_of(const tc_nccl_record *r) { return tc_busbw_factor(tc_nccl_coll_name((tc_nccl_coll)r->coll), r->n_ranks); }

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int cmp_row(const void *a, const void *b) {
    const tc_nccl_size_row *x = a, *y = b;
    if (x->coll != y->coll) return x->coll < y->coll ? -1 : 1;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The ranks with records (ascending, each with the file of its first record) and the distinct
 * hostnames of their logs. 0, or -1 out of memory. */
static int ranks_and_hosts(const tc_nccl_log *log, const tc_nccl_record *v, size_t n, tc_nccl_comm *c) {
    int64_t *keys = malloc(n * sizeof *keys);
    c->ranks = malloc(n * sizeof *c->ranks);
    c->hosts = malloc(n * sizeof *c->hosts);
    if (!keys || !c->ranks || !c->hosts) { free(keys); return -1; }
    for (size_t i = 0; i < n; i++) keys[i] = (int64_t)v[i].rank << 16 | v[i].file;
    tc_sort_i64(keys, n);
    for (size_t i = 0; i < n; i++)
        if (!c->n_seen || c->ranks[c->n_seen - 1].rank != (int32_t)(keys[i] >> 16))
            c->ranks[c->n_seen++] = (tc_nccl_comm_rank){(int32_t)(keys[i] >> 16), (uint16_t)(keys[i] & 0xffff), 0, 0};
    for (size_t i = 0; i < n; i++) keys[i] = v[i].file;
    tc_sort_i64(keys, n);
    for (size_t i = 0; i < n; i++) {
        const char *h = log->files[keys[i]].hostname;
        if (h && (i == 0 || keys[i] != keys[i - 1])) c->hosts[c->n_hosts++] = h;
    }
    tc_sort(c->hosts, c->n_hosts, sizeof *c->hosts, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < c->n_hosts; i++)
        if (!k || strcmp(c->hosts[k - 1], c->hosts[i]) != 0) c->hosts[k++] = c->hosts[i];
    c->n_hosts = k;
    free(keys);
    return 0;
}

static tc_nccl_comm_rank *rank_of(tc_nccl_comm *c, int32_t rank) {
    size_t lo = 0, hi = c->n_seen;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->ranks[mid].rank < rank) lo = mid + 1;
        else hi = mid;
    }
    return lo < c->n_seen && c->ranks[lo].rank == rank ? &c->ranks[lo] : NULL;
}

/* The scope (header.nnodes, else the logs' hostnames) and the rated link of c. */
static void scope_and_link(tc_nccl_comm *c, const tc_analyze_options *opt) {
    if (c->nnodes > 0) {
        c->scope_known = true;
        c->scope = c->nnodes > 1 ? TC_SCOPE_INTER : TC_SCOPE_INTRA;
        c->scope_from = TC_NCCL_SCOPE_FROM_NNODES;
    } else if (c->n_hosts >= 2 || (c->n_hosts == 1 && c->n_seen == (size_t)c->n_ranks)) {
        c->scope_known = true;
        c->scope = c->n_hosts >= 2 ? TC_SCOPE_INTER : TC_SCOPE_INTRA;
        c->scope_from = TC_NCCL_SCOPE_FROM_HOSTS;
    }
    memset(&c->link, 0, sizeof c->link);
    if (!c->scope_known) return;
    if (c->scope == TC_SCOPE_INTER) { tc_groups_fabric_link(opt, &c->link); return; }
    const tc_link_spec *s = tc_link_of_gpu(opt->gpu ? tc_gpu_find_by_id(opt->gpu) : NULL);
    if (s) tc_group_link_set(&c->link, s->id, s->name, s->rated_GBps);
}

/* The row of r in c (bin or exact size), added when new. NULL out of memory. */
static tc_nccl_size_row *row_of(tc_nccl_comm *c, const tc_nccl_record *r, size_t *cap) {
    int64_t lo = r->bytes, hi = r->bytes;
    if (!c->exact_sizes && r->bytes > 0) {
        lo = 1;
        while (lo <= r->bytes / 2) lo *= 2;
        hi = lo > INT64_MAX / 2 ? INT64_MAX : 2 * lo - 1;
    }
    for (size_t i = 0; i < c->n_rows; i++)
        if (c->rows[i].coll == r->coll && c->rows[i].lo == lo) return &c->rows[i];
    tc_nccl_size_row row = {.coll = r->coll, .lo = lo, .hi = hi};
    if (TC_PUSH(c->rows, c->n_rows, *cap, row)) return NULL;
    return &c->rows[c->n_rows - 1];
}

/* The GPU-timed records' sums: the communicator's and its rows'. 0, or -1 out of memory. */
static int bandwidth(tc_nccl_comm *c, const tc_nccl_record *v, size_t n) {
    int64_t *sizes = malloc((n ? n : 1) * sizeof *sizes);
    if (!sizes) return -1;
    size_t ns = 0, distinct = 0;
    for (size_t i = 0; i < n; i++)
        if (gpu_timed(&v[i])) sizes[ns++] = v[i].bytes;
    tc_sort_i64(sizes, ns);
    for (size_t i = 0; i < ns; i++) distinct += i == 0 || sizes[i] != sizes[i - 1];
    free(sizes);
    c->exact_sizes = distinct <= TC_NCCL_EXACT_SIZES;
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        const tc_nccl_record *r = &v[i];
        c->records++;
        if (r->mix != TC_NCCL_NO_MIX && r->mix < TC_NCCL_MAX_MIXES) c->inspector_mix_records[r->mix]++;
        if (!gpu_timed(r)) { c->cpu_timed++; continue; }
        c->gpu_records++;
        tc_nccl_size_row *row = row_of(c, r, &cap);
        if (!row) return -1;
        row->records++;
        double f = factor_of(r);
        if (!(f > 0)) continue; /* a kind without a bus factor: counted, in no bandwidth */
        row->bus_bytes += (double)r->bytes * f;
        row->exec_us += r->exec_us;
        c->bus_bytes += (double)r->bytes * f;
        c->exec_us += r->exec_us;
    }
    tc_sort(c->rows, c->n_rows, sizeof *c->rows, cmp_row);
    double rated = c->link.id ? c->link.rated_GBps : 0;
    for (size_t i = 0; i < c->n_rows; i++) {
        tc_nccl_size_row *row = &c->rows[i];
        row->has_busbw = row->exec_us > 0;
        row->busbw_GBps = row->has_busbw ? row->bus_bytes / row->exec_us / 1e3 : 0;
        row->has_share = row->has_busbw && rated > 0;
        row->share_of_rated = row->has_share ? row->busbw_GBps / rated : 0;
    }
    c->has_busbw = c->exec_us > 0;
    c->busbw_GBps = c->has_busbw ? c->bus_bytes / c->exec_us / 1e3 : 0;
    c->has_share = c->has_busbw && rated > 0;
    c->share_of_rated = c->has_share ? c->busbw_GBps / rated : 0;
    return 0;
}

/* One sequence v[0, n) (one kind and coll_sn, by rank): complete when it holds the GPU-timed
 * record of every rank once; decided when one of them alone has the shortest exec time, which is
 * charged the others' extra time. */
static void sequence(tc_nccl_comm *c, const tc_nccl_record *v, size_t n) {
    bool any_gpu = false, complete = n == (size_t)c->n_ranks;
    for (size_t i = 0; i < n; i++) {
        any_gpu |= gpu_timed(&v[i]);
        complete &= gpu_timed(&v[i]) && (i == 0 || v[i].rank != v[i - 1].rank);
    }
    c->sequences += any_gpu;
    if (!complete) return;
    c->complete++;
    size_t lo = 0;
    bool alone = true;
    for (size_t i = 1; i < n; i++) {
        if (v[i].exec_us < v[lo].exec_us) { lo = i; alone = true; }
        else if (v[i].exec_us == v[lo].exec_us) alone = false;
    }
    double charged = 0;
    for (size_t i = 0; i < n; i++) {
        c->complete_exec_us += v[i].exec_us;
        charged += v[i].exec_us - v[lo].exec_us;
    }
    if (!alone) return;
    c->decided++;
    c->charged_us += charged;
    tc_nccl_comm_rank *r = rank_of(c, v[lo].rank);
    r->last++;
    r->caused_wait_us += charged;
}

/* The straggler: the rank charged the most, named when it is charged at least clamp(2/n, 0.5,
 * 0.75) of the charged wait and that wait is at least 1% of the complete sequences' exec time. */
static void straggler(tc_nccl_comm *c) {
    if (!(c->charged_us > 0) || !c->n_seen) return;
    size_t top = 0;
    for (size_t i = 1; i < c->n_seen; i++)
        if (c->ranks[i].caused_wait_us > c->ranks[top].caused_wait_us) top = i;
    double need = 2.0 / (double)c->n_ranks;
    need = need < 0.5 ? 0.5 : need > 0.75 ? 0.75 : need;
    double w = c->ranks[top].caused_wait_us;
    if (w >= need * c->charged_us && w >= 0.01 * c->complete_exec_us) {
        c->has_straggler = true;
        c->straggler = top;
    }
}

static int comm_fill(const tc_nccl_log *log, const tc_nccl_record *v, size_t n, const tc_analyze_options *opt,
                     tc_nccl_comm *c) {
    memset(c, 0, sizeof *c);
    c->id = v[0].comm_id;
    c->n_ranks = v[0].n_ranks;
    for (size_t i = 0; i < n; i++)
        if (v[i].nnodes > c->nnodes) c->nnodes = v[i].nnodes;
    if (ranks_and_hosts(log, v, n, c)) return -1;
    scope_and_link(c, opt);
    if (bandwidth(c, v, n)) return -1;
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && v[b].coll == v[a].coll && v[b].sn == v[a].sn; b++) {}
        sequence(c, v + a, b - a);
    }
    straggler(c);
    return 0;
}

/* Each plugin COLL record counted in the mix of the communicator of its CommHash (the first of
 * that id), else unplaced. comms are sorted by id. */
static void plugin_mix(const tc_nccl_log *log, tc_nccl_alone *out) {
    for (size_t i = 0; i < log->n_records; i++) {
        const tc_nccl_record *r = &log->records[i];
        if (!r->plugin) continue;
        size_t lo = 0, hi = out->n_comms;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (out->comms[mid].id < r->comm_id) lo = mid + 1;
            else hi = mid;
        }
        if (lo == out->n_comms || out->comms[lo].id != r->comm_id) { out->plugin_unplaced++; continue; }
        out->comms[lo].plugin_records++;
        out->comms[lo].mix_records[r->mix]++;
    }
}

int tc_nccl_alone_analyze(const tc_nccl_log *log, const tc_analyze_options *opt, tc_nccl_alone *out) {
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < log->n_files; i++) {
        if (log->files[i].plugin) out->plugin_files++;
        else if (log->files[i].prom) out->prom_files++;
        else out->inspector_files++;
    }
    tc_nccl_record *v = malloc((log->n_records ? log->n_records : 1) * sizeof *v);
    if (!v) return -1;
    size_t n = 0;
    for (size_t i = 0; i < log->n_records; i++) {
        if (log->records[i].plugin) out->plugin_records++;
        else v[n++] = log->records[i];
    }
    out->records = (int64_t)n;
    out->prom_rows = log->n_proms;
    tc_sort(v, n, sizeof *v, cmp_rec);
    size_t cap = 0;
    int rc = 0;
    for (size_t a = 0, b; a < n && rc == 0; a = b) {
        for (b = a + 1; b < n && v[b].comm_id == v[a].comm_id && v[b].n_ranks == v[a].n_ranks; b++) {}
        tc_nccl_comm c;
        rc = comm_fill(log, v + a, b - a, opt, &c);
        if (rc == 0 && TC_PUSH(out->comms, out->n_comms, cap, c)) rc = -1;
        if (rc) tc_nccl_comm_free(&c);
    }
    free(v);
    if (rc) tc_nccl_alone_free(out);
    else plugin_mix(log, out);
    return rc;
}
