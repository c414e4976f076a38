/* collectives.c: cross-rank collective matching (see collectives.h).
 *
 * Method. Every comm kernel gets a key: (process group, Seq) when the trace has them; otherwise
 * (process group, its ordinal among that group's kernels on the rank); otherwise (stream, name,
 * ordinal). Ordinal keys of a rank are aligned to the reference rank by the shift (|s| <= 4) under
 * which matched message sizes agree and the end-time differences are most constant (true end times
 * coincide, so a right alignment shows one constant clock offset). An instance is matched when
 * every rank that has its group has it; the rest stay unmatched, are counted as transfer, and are
 * reported. For a matched instance, transfer = min duration; each rank's wait = duration − transfer. */
#include "collectives.h"
#include "groups.h"
#include "base/status.h"
#include "base/util.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHIFT 4
#define ONE_MIB (1024 * 1024)

typedef struct {
    uint32_t group;   /* id in the job's group table */
    uint32_t rank;    /* index into j->ranks */
    uint32_t event;   /* GPU event index in that rank's trace */
    uint32_t sub;     /* k-th kernel with the same (group, key) on that rank */
    int64_t key;      /* Seq, or aligned ordinal */
} comm_rec;

typedef struct {
    char *label;      /* "pg 0 (default_pg)" or "stream 20, <name>" */
    bool by_seq;
    uint32_t ranks_with;   /* ranks that have this group */
    int64_t group_size;    /* from args, -1 unknown */
    size_t pg;             /* its process group in tc_job.groups (groups.h), SIZE_MAX none */
} group_info;

int tc_dtype_bytes(const char *d) {
    if (!d) return 0;
    static const struct { const char *name; int bytes; } table[] = {
        {"Float", 4}, {"float", 4}, {"Float32", 4}, {"BFloat16", 2}, {"Half", 2}, {"Float16", 2},
        {"Double", 8}, {"Long", 8}, {"Int", 4}, {"Short", 2}, {"Char", 1}, {"Byte", 1}, {"Bool", 1},
        {"ComplexFloat", 8}, {"ComplexDouble", 16}, {"UInt32", 4}, {"UInt64", 8}, {"UInt16", 2},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (strcmp(d, table[i].name) == 0) return table[i].bytes;
    if (strncmp(d, "Float8", 6) == 0) return 1;
    return 0;
}

typedef enum { C_OTHER, C_ALLREDUCE, C_ALLGATHER, C_REDUCE_SCATTER, C_ALLTOALL, C_BROADCAST, C_REDUCE, C_P2P } coll_type;

static coll_type coll_type_of(const char *name) {
    char low[96];
    size_t n = 0;
    for (const char *s = name; *s && n < sizeof low - 1; s++)
        if (*s != '_') low[n++] = (char)((*s >= 'A' && *s <= 'Z') ? *s - 'A' + 'a' : *s);
    low[n] = 0;
    if (strstr(low, "allreduce")) return C_ALLREDUCE;
    if (strstr(low, "allgather")) return C_ALLGATHER;
    if (strstr(low, "reducescatter")) return C_REDUCE_SCATTER;
    if (strstr(low, "alltoall")) return C_ALLTOALL;
    if (strstr(low, "broadcast")) return C_BROADCAST;
    if (strstr(low, "sendrecv") || strstr(low, "send") || strstr(low, "recv")) return C_P2P;
    if (strstr(low, "reduce")) return C_REDUCE;
    return C_OTHER;
}

double tc_busbw_factor(const char *coll_name, int64_t n) {
    if (n < 1) return 0;
    switch (coll_type_of(coll_name)) {
    case C_ALLREDUCE: return 2.0 * (double)(n - 1) / (double)n;
    case C_ALLGATHER: case C_REDUCE_SCATTER: case C_ALLTOALL: return (double)(n - 1) / (double)n;
    case C_BROADCAST: case C_REDUCE: case C_P2P: return 1.0;
    default: return 0;
    }
}

int64_t tc_collective_bytes(const char *coll_name, const char *dtype, int64_t in_nelems, int64_t out_nelems) {
    int size = tc_dtype_bytes(dtype);
    if (size == 0) return -1;
    int64_t nelems = coll_type_of(coll_name) == C_ALLGATHER ? out_nelems : in_nelems;
    if (nelems < 0 || nelems > INT64_MAX / size) return -1;
    return nelems * size;
}

static int cmp_rec(const void *a, const void *b) {
    const comm_rec *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->sub != y->sub) return x->sub < y->sub ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->event > y->event) - (x->event < y->event);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t median_i64(int64_t *v, size_t n) {
    if (n == 0) return 0;
    tc_sort(v, n, sizeof *v, cmp_i64);
    return v[n / 2];
}

static int64_t abs_end(const tc_trace *t, const tc_gpu_event *e) {
    return (t->has_base ? t->base_ns : 0) + e->start_ns + e->dur_ns;
}

/* Shift s so that ordinal i of the reference pairs with ordinal i+s of the rank: most agreeing
 * message sizes first, then the most constant end-time difference (smallest median deviation). */
static int best_shift(const tc_trace *tr, const uint32_t *ref, size_t nref, const tc_trace *tk,
                      const uint32_t *other, size_t nother, int64_t *scratch) {
    int best = 0;
    long best_agree = -1;
    int64_t best_mad = INT64_MAX;
    for (int s = -MAX_SHIFT; s <= MAX_SHIFT; s++) {
        size_t m = 0;
        long agree = 0;
        for (size_t i = 0; i < nref; i++) {
            long k = (long)i + s;
            if (k < 0 || (size_t)k >= nother) continue;
            const tc_gpu_event *a = &tr->gpu[ref[i]], *b = &tk->gpu[other[k]];
            scratch[m++] = abs_end(tk, b) - abs_end(tr, a);
            if (a->coll != TC_NONE && b->coll != TC_NONE &&
                tr->colls[a->coll].in_nelems == tk->colls[b->coll].in_nelems)
                agree++;
        }
        if (m == 0) continue;
        int64_t med = median_i64(scratch, m);
        for (size_t i = 0; i < m; i++) scratch[i] = scratch[i] > med ? scratch[i] - med : med - scratch[i];
        int64_t mad = median_i64(scratch, m);
        /* ties go to the smaller shift */
        if (agree > best_agree || (agree == best_agree && (mad < best_mad || (mad == best_mad && abs(s) < abs(best))))) {
            best = s; best_agree = agree; best_mad = mad;
        }
    }
    return best;
}

typedef struct {
    char *name, *group, *dtype;
    size_t pg;              /* index into tc_job.groups, SIZE_MAX none */
    int64_t group_size, bytes;
    int64_t *transfers; size_t n_transfers, cap_transfers;
    int64_t wait_total;
} row_acc;

static row_acc *find_row(row_acc **rows, size_t *n, size_t *cap, const char *name, const char *group, size_t pg,
                         const char *dtype, int64_t group_size, int64_t bytes) {
    for (size_t i = 0; i < *n; i++) {
        row_acc *r = &(*rows)[i];
        if (r->bytes == bytes && r->group_size == group_size && strcmp(r->name, name) == 0 &&
            strcmp(r->group, group) == 0 && ((!r->dtype && !dtype) || (r->dtype && dtype && strcmp(r->dtype, dtype) == 0)))
            return r;
    }
    row_acc nr;
    memset(&nr, 0, sizeof nr);
    nr.name = tc_strdup(name);
    nr.group = tc_strdup(group);
    nr.dtype = tc_strdup(dtype);
    nr.pg = pg;
    nr.group_size = group_size;
    nr.bytes = bytes;
    if (!nr.name || !nr.group || TC_PUSH(*rows, *n, *cap, nr)) { free(nr.name); free(nr.group); free(nr.dtype); return NULL; }
    return &(*rows)[*n - 1];
}

/* ---- the matcher: one job's comm kernels through the stages below, in order ------------------ */

typedef struct {
    tc_job *j;
    size_t nr;                 /* ranks */
    tc_strtab *groups;         /* group labels -> group ids */
    group_info *ginfo; size_t n_ginfo, cap_ginfo;
    comm_rec *recs; size_t n_recs, cap_recs;
    row_acc *rows; size_t n_rows, cap_rows;
    int64_t **offset_samples;  /* per rank: its end-time differences to rank 0, ns */
    size_t *n_off, *cap_off;
    double fabric_bytes, fabric_ns; /* bytes × bus factor and ns of the big transfers */
} matcher;

static const tc_trace *rank_trace(const matcher *m, size_t r) { return &m->j->traces[m->j->ranks[r].input]; }

static void matcher_free(matcher *m) {
    for (size_t i = 0; i < m->n_rows; i++) {
        free(m->rows[i].name); free(m->rows[i].group); free(m->rows[i].dtype); free(m->rows[i].transfers);
    }
    free(m->rows);
    for (size_t g = 0; g < m->n_ginfo; g++) free(m->ginfo[g].label);
    free(m->ginfo);
    free(m->recs);
    if (m->offset_samples) for (size_t r = 0; r < m->nr; r++) free(m->offset_samples[r]);
    free(m->offset_samples); free(m->n_off); free(m->cap_off);
    tc_strtab_free(m->groups);
}

/* A comm kernel's group label: its process group when the trace names it (*by_seq when it has a
 * Seq), else its stream and collective name. */
static void group_label(const tc_trace *t, const tc_gpu_event *g, const tc_coll_args *c, char *label, size_t size,
                        bool *by_seq) {
    *by_seq = false;
    if (c && c->pg_name != TC_NONE) {
        const char *desc = c->pg_desc != TC_NONE ? tc_trace_str(t, c->pg_desc) : "";
        tc_format(label, size, "pg %s%s%s%s", tc_trace_str(t, c->pg_name), *desc ? " (" : "", desc, *desc ? ")" : "");
        *by_seq = c->seq >= 0;
    } else {
        tc_format(label, size, "stream %s: %.300s", tc_trace_str(t, g->stream),
                  c ? tc_trace_str(t, c->coll_name) : tc_trace_str(t, g->name));
    }
}

/* Stage 1, one rank: a record per comm kernel with its group and key (Seq, or its ordinal among
 * the group's kernels on this rank: events are sorted by start); wait heads start unmatched. */
static int rank_keys(matcher *m, size_t r) {
    tc_rank_result *rr = &m->j->ranks[r];
    tc_trace *t = &m->j->traces[rr->input];
    if (m->nr >= 2) {
        rr->wait_ns = tc_big_alloc(t->n_gpu, sizeof *rr->wait_ns, true);
        if (!rr->wait_ns) return -1;
    }
    size_t first_rec = m->n_recs;
    for (size_t e = 0; e < t->n_gpu; e++) {
        const tc_gpu_event *g = &t->gpu[e];
        if (!g->is_comm) continue;
        if (rr->wait_ns) rr->wait_ns[e] = -1; /* unmatched until an instance claims it */
        const tc_coll_args *c = g->coll != TC_NONE ? &t->colls[g->coll] : NULL;
        char label[400];
        bool by_seq;
        group_label(t, g, c, label, sizeof label, &by_seq);
        uint32_t gid = tc_strtab_intern(m->groups, label, strlen(label));
        if (gid == TC_NONE) return -1;
        if (gid >= m->n_ginfo) {
            size_t pg = c && c->pg_name != TC_NONE ? tc_job_group_find(m->j, tc_trace_str(t, c->pg_name)) : SIZE_MAX;
            group_info gi = {tc_strdup(label), by_seq, 0, -1, pg};
            if (!gi.label || TC_PUSH(m->ginfo, m->n_ginfo, m->cap_ginfo, gi)) { free(gi.label); return -1; }
        }
        assert(gid < m->n_ginfo); /* ids are handed out in order */
        if (c && c->group_size > m->ginfo[gid].group_size) m->ginfo[gid].group_size = c->group_size;
        comm_rec rec = {gid, (uint32_t)r, (uint32_t)e, 0, by_seq ? c->seq : -1};
        if (TC_PUSH(m->recs, m->n_recs, m->cap_recs, rec)) return -1;
    }
    int64_t *ord = calloc(m->n_ginfo ? m->n_ginfo : 1, sizeof *ord);
    if (!ord) return -1;
    for (size_t i = first_rec; i < m->n_recs; i++) {
        comm_rec *rec = &m->recs[i];
        if (rec->key < 0 || !m->ginfo[rec->group].by_seq) rec->key = ord[rec->group]++;
    }
    free(ord);
    return 0;
}

/* Stage 1, then: records sorted, repeated (group, key) on one rank (coalesced kernels) numbered so
 * that each pairs with its peer. */
static void number_repeats(matcher *m) {
    tc_sort(m->recs, m->n_recs, sizeof *m->recs, cmp_rec);
    for (size_t i = 1; i < m->n_recs; i++)
        if (m->recs[i].group == m->recs[i - 1].group && m->recs[i].key == m->recs[i - 1].key &&
            m->recs[i].rank == m->recs[i - 1].rank)
            m->recs[i].sub = m->recs[i - 1].sub + 1;
    tc_sort(m->recs, m->n_recs, sizeof *m->recs, cmp_rec);
}

/* Stage 2, one ordinal group recs[a, b) whose ranks have different counts: each rank's keys are
 * shifted to pair with the reference rank `ref` (best_shift), with a warning per rank. */
static int align_ordinals(matcher *m, size_t a, size_t b, const bool *has, const size_t *cnt, size_t ref) {
    size_t nr = m->nr;
    uint32_t **lists = calloc(nr, sizeof *lists); /* per rank: its events of the group, in key order */
    size_t *fill = calloc(nr, sizeof *fill);
    int64_t *scratch = malloc((b - a) * sizeof *scratch + 1);
    bool ok = lists && fill && scratch;
    for (size_t r = 0; ok && r < nr; r++)
        if (has[r]) {
            lists[r] = malloc(cnt[r] * sizeof **lists);
            ok = lists[r] != NULL;
        }
    if (ok) {
        /* records of one rank are ordered by key (= ordinal) within the group block */
        for (size_t i = a; i < b; i++) lists[m->recs[i].rank][fill[m->recs[i].rank]++] = m->recs[i].event;
        const group_info *gi = &m->ginfo[m->recs[a].group];
        for (size_t r = 0; r < nr; r++) {
            if (!has[r] || r == ref) continue;
            int s = best_shift(rank_trace(m, ref), lists[ref], cnt[ref], rank_trace(m, r), lists[r], cnt[r], scratch);
            if (s != 0)
                for (size_t i = a; i < b; i++) if (m->recs[i].rank == r) m->recs[i].key -= s;
            tc_job_warn(m->j, "%s: rank %lld has %zu collective kernels, rank %lld has %zu; matched by order with a "
                        "shift of %d", gi->label, (long long)m->j->ranks[r].rank, cnt[r], (long long)m->j->ranks[ref].rank,
                        cnt[ref], s);
        }
    }
    for (size_t r = 0; lists && r < nr; r++) free(lists[r]);
    free(lists); free(fill); free(scratch);
    return ok ? 0 : -1;
}

/* Stage 2: which ranks have each group; ordinal groups aligned to their first rank; records
 * sorted again by the aligned keys. */
static int align_groups(matcher *m) {
    size_t nr = m->nr;
    bool *has = malloc(nr * sizeof *has);
    size_t *cnt = malloc(nr * sizeof *cnt);
    int rc = has && cnt ? 0 : -1;
    for (size_t a = 0, b; rc == 0 && a < m->n_recs; a = b) {
        for (b = a; b < m->n_recs && m->recs[b].group == m->recs[a].group;) b++;
        group_info *gi = &m->ginfo[m->recs[a].group];
        memset(has, 0, nr * sizeof *has);
        memset(cnt, 0, nr * sizeof *cnt);
        for (size_t i = a; i < b; i++) {
            if (!has[m->recs[i].rank]) gi->ranks_with++;
            has[m->recs[i].rank] = true;
            cnt[m->recs[i].rank]++;
        }
        bool uneven = false;
        size_t ref = nr;
        for (size_t r = 0; r < nr; r++) if (has[r]) { if (ref == nr) ref = r; else if (cnt[r] != cnt[ref]) uneven = true; }
        if (!gi->by_seq && uneven && ref < nr) rc = align_ordinals(m, a, b, has, cnt, ref);
    }
    free(has);
    free(cnt);
    tc_sort(m->recs, m->n_recs, sizeof *m->recs, cmp_rec);
    return rc;
}

static const tc_gpu_event *rec_event(const matcher *m, const comm_rec *rec) {
    return &rank_trace(m, rec->rank)->gpu[rec->event];
}

/* Stage 3: an instance recs[a, b) is matched when every rank that has its group has it, once. */
static bool instance_matched(const matcher *m, size_t a, size_t b) {
    for (size_t i = a + 1; i < b; i++) if (m->recs[i].rank == m->recs[i - 1].rank) return false;
    return b - a >= 2 && b - a == m->ginfo[m->recs[a].group].ranks_with;
}

/* Stage 4, split: transfer = the instance's minimum duration (*n_min kernels have it); each
 * rank's wait head = its duration − transfer. The last arrivals (wait 0) share a credit of 1, and
 * when only one arrived last, the others' waits are its caused wait. Clock offset samples against
 * rank 0. *wait_sum: the instance's summed wait. 0, or -1 out of memory. */
static int split_instance(matcher *m, size_t a, size_t b, int64_t *transfer_out, int64_t *wait_sum_out) {
    int64_t transfer = INT64_MAX;
    size_t n_min = 0;
    for (size_t i = a; i < b; i++) {
        const tc_gpu_event *g = rec_event(m, &m->recs[i]);
        if (g->dur_ns < transfer) { transfer = g->dur_ns; n_min = 1; } else if (g->dur_ns == transfer) n_min++;
    }
    assert(n_min >= 1);
    int64_t wait_sum = 0;
    size_t only_last = SIZE_MAX;
    const tc_trace *t0 = rank_trace(m, m->recs[a].rank);
    const tc_gpu_event *g0 = rec_event(m, &m->recs[a]);
    for (size_t i = a; i < b; i++) {
        const comm_rec *rec = &m->recs[i];
        tc_rank_result *rr = &m->j->ranks[rec->rank];
        const tc_gpu_event *g = rec_event(m, rec);
        int64_t w = g->dur_ns - transfer;
        assert(w >= 0);
        rr->wait_ns[rec->event] = w;
        wait_sum += w;
        rr->matched_instances++;
        if (w == 0) { rr->last_arrival_credit += 1.0 / (double)n_min; if (n_min == 1) only_last = rec->rank; }
        if (m->recs[a].rank == 0 && rec->rank != 0) {
            int64_t d = abs_end(rank_trace(m, rec->rank), g) - abs_end(t0, g0);
            if (TC_PUSH(m->offset_samples[rec->rank], m->n_off[rec->rank], m->cap_off[rec->rank], d)) return -1;
        }
    }
    if (only_last != SIZE_MAX) m->j->ranks[only_last].caused_wait_ns += wait_sum;
    *transfer_out = transfer;
    *wait_sum_out = wait_sum;
    return 0;
}

/* Stage 5, one matched instance: its transfer and waits go to the row of its collective (name,
 * group, dtype, size, bytes); big transfers count toward the fabric's bus bandwidth and their
 * process group's. */
static int add_to_row(matcher *m, size_t a, size_t b, int64_t transfer, int64_t wait_sum) {
    const group_info *gi = &m->ginfo[m->recs[a].group];
    const tc_trace *t0 = rank_trace(m, m->recs[a].rank);
    const tc_gpu_event *g0 = rec_event(m, &m->recs[a]);
    const tc_coll_args *c = g0->coll != TC_NONE ? &t0->colls[g0->coll] : NULL;
    const char *cname = c ? tc_trace_str(t0, c->coll_name) : tc_trace_str(t0, g0->name);
    const char *dtype = (c && c->dtype != TC_NONE) ? tc_trace_str(t0, c->dtype) : NULL;
    int64_t gsize = (c && c->group_size > 0) ? c->group_size : gi->group_size > 0 ? gi->group_size : (int64_t)(b - a);
    int64_t bytes = c ? tc_collective_bytes(cname, dtype, c->in_nelems, c->out_nelems) : -1;
    row_acc *row = find_row(&m->rows, &m->n_rows, &m->cap_rows, cname, gi->label, gi->pg, dtype, gsize, bytes);
    if (!row || TC_PUSH(row->transfers, row->n_transfers, row->cap_transfers, transfer)) return -1;
    row->wait_total += wait_sum;
    double factor = tc_busbw_factor(cname, gsize);
    if (bytes >= ONE_MIB && factor > 0 && transfer > 0) {
        m->fabric_bytes += (double)bytes * factor;
        m->fabric_ns += (double)transfer;
        if (gi->pg != SIZE_MAX) {
            m->j->groups[gi->pg].f.sums.bus_bytes += (double)bytes * factor;
            m->j->groups[gi->pg].f.sums.bus_ns += (double)transfer;
        }
    }
    return 0;
}

/* Stages 3 to 5 over every instance (records with the same group, key and sub): unmatched ones
 * are counted per rank, matched ones split and added to their row. */
static int match_instances(matcher *m) {
    for (size_t a = 0, b; a < m->n_recs; a = b) {
        const comm_rec *r0 = &m->recs[a];
        for (b = a; b < m->n_recs && m->recs[b].group == r0->group && m->recs[b].key == r0->key && m->recs[b].sub == r0->sub;)
            b++;
        if (!instance_matched(m, a, b)) {
            for (size_t i = a; i < b; i++) m->j->ranks[m->recs[i].rank].unmatched_comm++;
            continue;
        }
        int64_t transfer, wait_sum;
        if (split_instance(m, a, b, &transfer, &wait_sum) || add_to_row(m, a, b, transfer, wait_sum)) return -1;
    }
    return 0;
}

/* How matching went (groups matched by stream or by order, a world larger than the inputs, partial
 * groups), and each rank's clock offset: the median of its samples (rank 0: 0). */
static void report_matching(matcher *m) {
    tc_job *j = m->j;
    size_t nr = m->nr, by_stream = 0, ordinal = 0;
    for (size_t g = 0; g < m->n_ginfo; g++) {
        if (strncmp(m->ginfo[g].label, "stream ", 7) == 0) by_stream++;
        else if (!m->ginfo[g].by_seq) ordinal++;
    }
    if (by_stream)
        tc_job_warn(j, "%zu collective kernel streams carry no process-group arguments: their kernels were matched by "
                    "order per stream and kernel name (point-to-point SendRecv kernels pair with peers that may not be "
                    "among the inputs)", by_stream);
    if (ordinal) tc_job_warn(j, "%zu process groups have no Seq numbers: their collectives were matched by order", ordinal);
    int64_t world = -1;
    for (size_t r = 0; r < nr; r++)
        if (rank_trace(m, r)->world_size > world) world = rank_trace(m, r)->world_size;
    if (world > (int64_t)nr)
        tc_job_warn(j, "distributedInfo says world_size %lld but %zu ranks were given: waits and the straggler are judged "
                    "among the ranks present only", (long long)world, nr);
    for (size_t g = 0; g < m->n_ginfo; g++) {
        const group_info *gi = &m->ginfo[g];
        if (!(gi->group_size > 0 && (int64_t)gi->ranks_with < gi->group_size && gi->ranks_with >= 2)) continue;
        tc_job_warn(j, "%s: only %u of its %lld ranks are in the inputs; transfer = minimum over the ranks present "
                    "(an upper bound), waits are lower bounds", gi->label, gi->ranks_with, (long long)gi->group_size);
        if (!j->summary.partial_groups++) { /* the basis of the findings names the first */
            j->summary.partial_group = tc_strdup(gi->label);
            j->summary.partial_group_present = gi->ranks_with;
            j->summary.partial_group_size = gi->group_size;
        }
    }
    for (size_t r = 0; r < nr; r++) {
        if (r == 0) { j->ranks[r].has_clock_offset = true; j->ranks[r].clock_offset_ns = 0; continue; }
        if (m->n_off[r] == 0) continue;
        j->ranks[r].has_clock_offset = true;
        j->ranks[r].clock_offset_ns = median_i64(m->offset_samples[r], m->n_off[r]);
    }
}

/* Stage 6: the per-collective rows (median transfer, bandwidths) into j->colls, and the fabric's
 * bus bandwidth. The rows' strings move to the job. */
static int emit_rows(matcher *m) {
    tc_job *j = m->j;
    for (size_t i = 0; i < m->n_rows; i++) {
        row_acc *ra = &m->rows[i];
        tc_collective_result cr;
        memset(&cr, 0, sizeof cr);
        cr.name = ra->name; cr.process_group = ra->group; cr.dtype = ra->dtype;
        ra->name = ra->group = ra->dtype = NULL;
        cr.group_size = ra->group_size;
        cr.group = ra->pg;
        cr.count = ra->n_transfers;
        cr.bytes = ra->bytes;
        cr.transfer_ns_median = median_i64(ra->transfers, ra->n_transfers);
        cr.wait_ns_total = ra->wait_total;
        double factor = tc_busbw_factor(cr.name, cr.group_size);
        if (cr.bytes > 0 && cr.transfer_ns_median > 0) {
            cr.has_bw = true;
            cr.algbw_GBps = (double)cr.bytes / (double)cr.transfer_ns_median; /* bytes/ns == GB/s */
            cr.busbw_GBps = cr.algbw_GBps * factor;
        }
        if (TC_PUSH(j->colls, j->n_colls, j->cap_colls, cr)) { free(cr.name); free(cr.process_group); free(cr.dtype); return -1; }
    }
    if (m->fabric_ns > 0) {
        j->summary.has_fabric_busbw = true;
        j->summary.fabric_busbw_GBps = m->fabric_bytes / m->fabric_ns;
    }
    return 0;
}

int tc_collectives_match(tc_job *j) {
    matcher m = {.j = j, .nr = j->n_ranks};
    m.groups = tc_strtab_new();
    m.offset_samples = calloc(m.nr ? m.nr : 1, sizeof *m.offset_samples);
    m.n_off = calloc(m.nr ? m.nr : 1, sizeof *m.n_off);
    m.cap_off = calloc(m.nr ? m.nr : 1, sizeof *m.cap_off);
    int rc = m.groups && m.offset_samples && m.n_off && m.cap_off ? 0 : -1;
    for (size_t r = 0; rc == 0 && r < m.nr; r++) rc = rank_keys(&m, r);
    if (rc == 0 && m.nr >= 2 && m.n_recs > 0) {
        number_repeats(&m);
        rc = align_groups(&m);
        if (rc == 0) rc = match_instances(&m);
        if (rc == 0) report_matching(&m);
        if (rc == 0) rc = emit_rows(&m);
    }
    matcher_free(&m);
    return rc;
}
