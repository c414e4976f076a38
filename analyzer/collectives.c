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
#include "base/util.h"
#include <stdio.h>
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
    int64_t group_size, bytes;
    int64_t *transfers; size_t n_transfers, cap_transfers;
    int64_t wait_total;
} row_acc;

static row_acc *find_row(row_acc **rows, size_t *n, size_t *cap, const char *name, const char *group,
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
    nr.group_size = group_size;
    nr.bytes = bytes;
    if (!nr.name || !nr.group || TC_PUSH(*rows, *n, *cap, nr)) { free(nr.name); free(nr.group); free(nr.dtype); return NULL; }
    return &(*rows)[*n - 1];
}

int tc_collectives_match(tc_job *j) {
    int rc = -1;
    size_t nr = j->n_ranks;
    tc_strtab *groups = tc_strtab_new();
    group_info *ginfo = NULL; size_t n_ginfo = 0, cap_ginfo = 0;
    comm_rec *recs = NULL; size_t n_recs = 0, cap_recs = 0;
    row_acc *rows = NULL; size_t n_rows = 0, cap_rows = 0;
    int64_t **offset_samples = calloc(nr, sizeof *offset_samples);
    size_t *n_off = calloc(nr, sizeof *n_off), *cap_off = calloc(nr, sizeof *cap_off);
    double fabric_bytes = 0, fabric_ns = 0;
    if (!groups || !offset_samples || !n_off || !cap_off) goto done;

    /* 1. keys for every comm kernel of every rank */
    for (size_t r = 0; r < nr; r++) {
        tc_rank_result *rr = &j->ranks[r];
        tc_trace *t = &j->traces[rr->input];
        if (nr >= 2) {
            rr->wait_ns = tc_big_alloc(t->n_gpu, sizeof *rr->wait_ns, true);
            if (!rr->wait_ns) goto done;
        }
        size_t first_rec = n_recs;
        for (size_t e = 0; e < t->n_gpu; e++) {
            const tc_gpu_event *g = &t->gpu[e];
            if (!g->is_comm) continue;
            if (rr->wait_ns) rr->wait_ns[e] = -1; /* unmatched until an instance claims it */
            const tc_coll_args *c = g->coll != TC_NONE ? &t->colls[g->coll] : NULL;
            char label[400];
            bool by_seq = false;
            if (c && c->pg_name != TC_NONE) {
                const char *desc = c->pg_desc != TC_NONE ? tc_trace_str(t, c->pg_desc) : "";
                snprintf(label, sizeof label, "pg %s%s%s%s", tc_trace_str(t, c->pg_name), *desc ? " (" : "", desc, *desc ? ")" : "");
                by_seq = c->seq >= 0;
            } else {
                snprintf(label, sizeof label, "stream %s: %.300s", tc_trace_str(t, g->stream),
                         c ? tc_trace_str(t, c->coll_name) : tc_trace_str(t, g->name));
            }
            uint32_t gid = tc_strtab_intern(groups, label, strlen(label));
            if (gid == TC_NONE) goto done;
            if (gid >= n_ginfo) {
                group_info gi = {tc_strdup(label), by_seq, 0, -1};
                if (!gi.label || TC_PUSH(ginfo, n_ginfo, cap_ginfo, gi)) { free(gi.label); goto done; }
            }
            if (c && c->group_size > ginfo[gid].group_size) ginfo[gid].group_size = c->group_size;
            comm_rec rec = {gid, (uint32_t)r, (uint32_t)e, 0, by_seq ? c->seq : -1};
            if (TC_PUSH(recs, n_recs, cap_recs, rec)) goto done;
        }
        /* ordinals per group for this rank (events are sorted by start), and sub-keys for repeats */
        size_t nrank = n_recs - first_rec;
        int64_t *ord = calloc(n_ginfo ? n_ginfo : 1, sizeof *ord);
        if (!ord) goto done;
        for (size_t i = 0; i < nrank; i++) {
            comm_rec *rec = &recs[first_rec + i];
            if (rec->key < 0 || !ginfo[rec->group].by_seq) rec->key = ord[rec->group]++;
        }
        free(ord);
    }
    if (nr < 2 || n_recs == 0) { rc = 0; goto done; }

    tc_sort(recs, n_recs, sizeof *recs, cmp_rec);
    /* repeated (group, key) on one rank (coalesced kernels): number them so each pairs with its peer */
    for (size_t i = 1; i < n_recs; i++)
        if (recs[i].group == recs[i - 1].group && recs[i].key == recs[i - 1].key && recs[i].rank == recs[i - 1].rank)
            recs[i].sub = recs[i - 1].sub + 1;
    tc_sort(recs, n_recs, sizeof *recs, cmp_rec);

    /* 2. which ranks have each group; align ordinal groups to the reference rank */
    for (size_t a = 0; a < n_recs;) {
        size_t b = a;
        while (b < n_recs && recs[b].group == recs[a].group) b++;
        group_info *gi = &ginfo[recs[a].group];
        bool *has = calloc(nr, sizeof *has);
        size_t *cnt = calloc(nr, sizeof *cnt);
        if (!has || !cnt) { free(has); free(cnt); goto done; }
        for (size_t i = a; i < b; i++) { if (!has[recs[i].rank]) gi->ranks_with++; has[recs[i].rank] = true; cnt[recs[i].rank]++; }
        bool uneven = false;
        size_t ref = nr;
        for (size_t r = 0; r < nr; r++) if (has[r]) { if (ref == nr) ref = r; else if (cnt[r] != cnt[ref]) uneven = true; }
        if (!gi->by_seq && uneven && ref < nr) {
            /* per-rank ordinal lists in order */
            uint32_t **lists = calloc(nr, sizeof *lists);
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
                for (size_t i = a; i < b; i++) lists[recs[i].rank][fill[recs[i].rank]++] = recs[i].event;
                const tc_trace *tref = &j->traces[j->ranks[ref].input];
                for (size_t r = 0; r < nr; r++) {
                    if (!has[r] || r == ref) continue;
                    int s = best_shift(tref, lists[ref], cnt[ref], &j->traces[j->ranks[r].input], lists[r], cnt[r], scratch);
                    if (s != 0)
                        for (size_t i = a; i < b; i++) if (recs[i].rank == r) recs[i].key -= s;
                    tc_job_warn(j, "%s: rank %lld has %zu collective kernels, rank %lld has %zu; matched by order with a "
                                "shift of %d", gi->label, (long long)j->ranks[r].rank, cnt[r], (long long)j->ranks[ref].rank,
                                cnt[ref], s);
                }
            }
            for (size_t r = 0; lists && r < nr; r++) free(lists[r]);
            free(lists); free(fill); free(scratch);
            if (!ok) { free(has); free(cnt); goto done; }
        }
        free(has);
        free(cnt);
        a = b;
    }
    tc_sort(recs, n_recs, sizeof *recs, cmp_rec);

    /* 3. instances */
    for (size_t a = 0; a < n_recs;) {
        size_t b = a;
        while (b < n_recs && recs[b].group == recs[a].group && recs[b].key == recs[a].key && recs[b].sub == recs[a].sub) b++;
        group_info *gi = &ginfo[recs[a].group];
        size_t parts = b - a;
        bool dup = false;
        for (size_t i = a + 1; i < b; i++) if (recs[i].rank == recs[i - 1].rank) dup = true;
        if (parts < 2 || parts != gi->ranks_with || dup) {
            for (size_t i = a; i < b; i++) j->ranks[recs[i].rank].unmatched_comm++;
            a = b;
            continue;
        }
        int64_t transfer = INT64_MAX;
        size_t n_min = 0;
        for (size_t i = a; i < b; i++) {
            const tc_gpu_event *g = &j->traces[j->ranks[recs[i].rank].input].gpu[recs[i].event];
            if (g->dur_ns < transfer) { transfer = g->dur_ns; n_min = 1; } else if (g->dur_ns == transfer) n_min++;
        }
        int64_t wait_sum = 0;
        size_t only_last = SIZE_MAX;
        const tc_trace *t0 = &j->traces[j->ranks[recs[a].rank].input];
        const tc_gpu_event *g0 = &t0->gpu[recs[a].event];
        for (size_t i = a; i < b; i++) {
            tc_rank_result *rr = &j->ranks[recs[i].rank];
            const tc_trace *t = &j->traces[rr->input];
            const tc_gpu_event *g = &t->gpu[recs[i].event];
            int64_t w = g->dur_ns - transfer;
            rr->wait_ns[recs[i].event] = w;
            wait_sum += w;
            rr->matched_instances++;
            if (w == 0) { rr->last_arrival_credit += 1.0 / (double)n_min; if (n_min == 1) only_last = recs[i].rank; }
            if (recs[a].rank == 0 && recs[i].rank != 0) {
                int64_t d = abs_end(t, g) - abs_end(t0, g0);
                if (TC_PUSH(offset_samples[recs[i].rank], n_off[recs[i].rank], cap_off[recs[i].rank], d)) goto done;
            }
        }
        if (only_last != SIZE_MAX) j->ranks[only_last].caused_wait_ns += wait_sum;
        /* bandwidth row */
        const tc_coll_args *c = g0->coll != TC_NONE ? &t0->colls[g0->coll] : NULL;
        const char *cname = c ? tc_trace_str(t0, c->coll_name) : tc_trace_str(t0, g0->name);
        const char *dtype = (c && c->dtype != TC_NONE) ? tc_trace_str(t0, c->dtype) : NULL;
        int64_t gsize = (c && c->group_size > 0) ? c->group_size : gi->group_size > 0 ? gi->group_size : (int64_t)parts;
        int64_t bytes = c ? tc_collective_bytes(cname, dtype, c->in_nelems, c->out_nelems) : -1;
        row_acc *row = find_row(&rows, &n_rows, &cap_rows, cname, gi->label, dtype, gsize, bytes);
        if (!row || TC_PUSH(row->transfers, row->n_transfers, row->cap_transfers, transfer)) goto done;
        row->wait_total += wait_sum;
        double factor = tc_busbw_factor(cname, gsize);
        if (bytes >= ONE_MIB && factor > 0 && transfer > 0) {
            fabric_bytes += (double)bytes * factor;
            fabric_ns += (double)transfer;
        }
        a = b;
    }

    /* 4. how matching went, partial groups and clock offsets */
    {
        size_t by_stream = 0, ordinal = 0;
        for (size_t g = 0; g < n_ginfo; g++) {
            if (strncmp(ginfo[g].label, "stream ", 7) == 0) by_stream++;
            else if (!ginfo[g].by_seq) ordinal++;
        }
        if (by_stream)
            tc_job_warn(j, "%zu collective kernel streams carry no process-group arguments: their kernels were matched by "
                        "order per stream and kernel name (point-to-point SendRecv kernels pair with peers that may not be "
                        "among the inputs)", by_stream);
        if (ordinal)
            tc_job_warn(j, "%zu process groups have no Seq numbers: their collectives were matched by order", ordinal);
        int64_t world = -1;
        for (size_t r = 0; r < nr; r++)
            if (j->traces[j->ranks[r].input].world_size > world) world = j->traces[j->ranks[r].input].world_size;
        if (world > (int64_t)nr)
            tc_job_warn(j, "distributedInfo says world_size %lld but %zu ranks were given: waits and the straggler are judged "
                        "among the ranks present only", (long long)world, nr);
    }
    for (size_t g = 0; g < n_ginfo; g++)
        if (ginfo[g].group_size > 0 && (int64_t)ginfo[g].ranks_with < ginfo[g].group_size && ginfo[g].ranks_with >= 2)
            tc_job_warn(j, "%s: only %u of its %lld ranks are in the inputs; transfer = minimum over the ranks present "
                        "(an upper bound), waits are lower bounds", ginfo[g].label, ginfo[g].ranks_with,
                        (long long)ginfo[g].group_size);
    for (size_t r = 0; r < nr; r++) {
        if (r == 0) { j->ranks[r].has_clock_offset = true; j->ranks[r].clock_offset_ns = 0; continue; }
        if (n_off[r] == 0) continue;
        j->ranks[r].has_clock_offset = true;
        j->ranks[r].clock_offset_ns = median_i64(offset_samples[r], n_off[r]);
    }

    /* 5. rows */
    for (size_t i = 0; i < n_rows; i++) {
        row_acc *ra = &rows[i];
        tc_collective_result cr;
        memset(&cr, 0, sizeof cr);
        cr.name = ra->name; cr.process_group = ra->group; cr.dtype = ra->dtype;
        ra->name = ra->group = ra->dtype = NULL;
        cr.group_size = ra->group_size;
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
        if (TC_PUSH(j->colls, j->n_colls, j->cap_colls, cr)) { free(cr.name); free(cr.process_group); free(cr.dtype); goto done; }
    }
    if (fabric_ns > 0) {
        j->summary.has_fabric_busbw = true;
        j->summary.fabric_busbw_GBps = fabric_bytes / fabric_ns;
    }
    rc = 0;
done:
    for (size_t i = 0; i < n_rows; i++) { free(rows[i].name); free(rows[i].group); free(rows[i].dtype); free(rows[i].transfers); }
    free(rows);
    for (size_t g = 0; g < n_ginfo; g++) free(ginfo[g].label);
    free(ginfo);
    free(recs);
    if (offset_samples) for (size_t r = 0; r < nr; r++) free(offset_samples[r]);
    free(offset_samples); free(n_off); free(cap_off);
    tc_strtab_free(groups);
    return rc;
}
