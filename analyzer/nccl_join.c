/* nccl_join.c: the join of NCCL Inspector records and profiler plugin COLL records to collective
 * instances (nccl_join.h).
 *
 * A process's log holds its records of every communicator it is in. Its global rank is the one
 * rank that each of its (communicator size, header.rank) pairs allows (file_ranks); a communicator
 * of n ranks where it is rank r is the process group of size n whose r-th member (ascending
 * global ranks, as torch.distributed numbers them) it is. Within one (rank, communicator,
 * collective kind), coll_sn counts the collectives one by one (NCCL's per-kind sequence number),
 * so the k-th instance of that kind in the trace is the record of sn0 + k: sn0 is the offset that
 * matches the most message sizes. An instance without its record is below the size floor or
 * dropped; a record that is CPU-timed or of another size is not joined. Plugin records take the
 * same path (join_plugin_run): no floor, their times on the plugin's own clock, the
 * algorithm/protocol/channels of each joined one counted per group. */
#include "nccl_join.h"
#include "findings.h"
#include "base/util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_rec(const void *a, const void *b) {
    const tc_nccl_record *x = a, *y = b;
    if (x->comm_id != y->comm_id) return x->comm_id < y->comm_id ? -1 : 1;
    if (x->n_ranks != y->n_ranks) return x->n_ranks < y->n_ranks ? -1 : 1;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->coll != y->coll) return x->coll < y->coll ? -1 : 1;
    return (x->sn > y->sn) - (x->sn < y->sn);
}

size_t tc_nccl_rank_index(const tc_job *j, int64_t g) {
    for (size_t i = 0; g >= 0 && i < j->n_ranks; i++)
        if (j->ranks[i].rank == g) return i;
    return SIZE_MAX;
}

size_t tc_nccl_group_of(const tc_job *j, const int64_t *member, int32_t n) {
    size_t found = SIZE_MAX, n_found = 0, unlisted = SIZE_MAX, n_unlisted = 0;
    for (size_t i = 0; i < j->n_groups; i++) {
        const tc_process_group *pg = &j->groups[i];
        if (pg->size != n) continue;
        if (!pg->ranks) { unlisted = i; n_unlisted++; continue; }
        bool fits = pg->n_ranks == (size_t)n;
        for (int32_t r = 0; r < n && fits; r++) fits = member[r] < 0 || pg->ranks[r] == member[r];
        if (fits) { found = i; n_found++; }
    }
    if (n_found) return n_found == 1 ? found : SIZE_MAX;
    return n_unlisted == 1 ? unlisted : SIZE_MAX;
}

/* The figure NCCL holds to the size floor and writes as coll_msg_size_bytes: count x the datatype's
 * size, NCCL's count being per rank for AllGather and ReduceScatter (the Inspector's writer,
 * plugins/profiler/inspector/inspector_plugin.cc; its busbw takes S = that x n_ranks), S for the others. */
static int64_t floor_part(const tc_coll_instance *in, uint8_t coll) {
    bool per_rank = coll == TC_NCCL_ALLGATHER || coll == TC_NCCL_REDUCESCATTER;
    return per_rank && in->bytes >= 0 && in->group_size > 0 ? in->bytes / in->group_size : in->bytes;
}

static bool below_floor(const tc_coll_instance *in, uint8_t coll, int64_t min_size) {
    int64_t b = floor_part(in, coll);
    return b >= 0 && b < min_size;
}

/* Every (process group, rank index, kind, instance) of the job's matched instances, sorted, so the
 * instances of one rank in one group of one kind are a range, in matching order. */
typedef struct { uint64_t pg; uint32_t ri; uint32_t coll; size_t inst; } slot;
typedef struct {
    slot *v; size_t n;
    size_t *out;            /* room for the instances of one range */
    uint8_t *mark;          /* per slot, on a range's first: 1 an Inspector run of its kind joined; on a
                             * (group, rank) block's first: 2 the rank has Inspector records of the group */
} inst_index;

static int cmp_slot(const void *a, const void *b) {
    const slot *x = a, *y = b;
    if (x->pg != y->pg) return x->pg < y->pg ? -1 : 1;
    if (x->ri != y->ri) return x->ri < y->ri ? -1 : 1;
    if (x->coll != y->coll) return x->coll < y->coll ? -1 : 1;
    return (x->inst > y->inst) - (x->inst < y->inst);
}

/* 0, or -1 out of memory (ix freed by index_free either way). */
static int index_build(const tc_job *j, inst_index *ix) {
    ix->v = malloc((j->n_inst_members ? j->n_inst_members : 1) * sizeof *ix->v);
    ix->out = malloc((j->n_instances ? j->n_instances : 1) * sizeof *ix->out);
    ix->mark = calloc(j->n_inst_members ? j->n_inst_members : 1, 1);
    ix->n = 0;
    if (!ix->v || !ix->out || !ix->mark) return -1;
    for (size_t i = 0; i < j->n_instances; i++) {
        const tc_coll_instance *in = &j->instances[i];
        size_t pg = j->inst_groups[in->group].pg;
        if (pg == SIZE_MAX) continue;
        const tc_inst_member *m = &j->inst_members[in->first];
        const tc_trace *t = &j->traces[j->ranks[m[0].rank].input];
        uint32_t coll = (uint32_t)tc_nccl_coll_of(tc_trace_str(t, in->name));
        for (uint32_t k = 0; k < in->n; k++) ix->v[ix->n++] = (slot){pg, m[k].rank, coll, i};
    }
    tc_sort(ix->v, ix->n, sizeof *ix->v, cmp_slot);
    return 0;
}

static void index_free(inst_index *ix) { free(ix->v); free(ix->out); free(ix->mark); }

/* The first slot of group pg, rank index ri and kind coll or after. */
static size_t slot_at(const inst_index *ix, size_t pg, size_t ri, uint32_t coll) {
    slot key = {pg, (uint32_t)ri, coll, 0};
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_slot(&ix->v[mid], &key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The instances of group pg and kind coll that rank index ri has, in matching order, into ix->out. */
static size_t instances_of(inst_index *ix, size_t pg, uint8_t coll, size_t ri) {
    size_t lo = slot_at(ix, pg, ri, coll), n = 0;
    for (; lo < ix->n && ix->v[lo].pg == pg && ix->v[lo].ri == ri && ix->v[lo].coll == coll; lo++) ix->out[n++] = ix->v[lo].inst;
    return n;
}

/* Marks (group pg, rank index ri) as having Inspector records, and its range of kind coll as joined. */
static void mark_run(inst_index *ix, size_t pg, size_t ri, uint8_t coll) {
    size_t b = slot_at(ix, pg, ri, 0), k = slot_at(ix, pg, ri, coll);
    if (b < ix->n && ix->v[b].pg == pg && ix->v[b].ri == ri) ix->mark[b] |= 2;
    if (k < ix->n && ix->v[k].pg == pg && ix->v[k].ri == ri && ix->v[k].coll == coll) ix->mark[k] |= 1;
}

/* The kernels of a kind of which a rank with Inspector records of the group has none at all (every
 * one under the floor, or dropped) are counted below the floor or dropped, not lost. */
static void count_unrecorded_kinds(const tc_job *j, tc_nccl_result *r, const inst_index *ix) {
    bool logged = false;
    for (size_t i = 0, e; i < ix->n; i = e) {
        const slot *s = &ix->v[i];
        if (i == 0 || s->pg != ix->v[i - 1].pg || s->ri != ix->v[i - 1].ri) logged = ix->mark[i] & 2;
        for (e = i + 1; e < ix->n && ix->v[e].pg == s->pg && ix->v[e].ri == s->ri && ix->v[e].coll == s->coll; e++) {}
        if (!logged || (ix->mark[i] & 1)) continue;
        for (size_t k = i; k < e; k++) {
            tc_nccl_group *g = &r->groups[s->pg];
            if (below_floor(&j->instances[ix->v[k].inst], (uint8_t)s->coll, r->min_size)) g->c.below_min_size++;
            else g->c.dropped++;
        }
    }
}

/* The record of sequence number sn among rec[0, n) (sorted by sn), NULL none. */
static const tc_nccl_record *by_sn(const tc_nccl_record *rec, size_t n, int64_t sn) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rec[mid].sn < sn) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && rec[lo].sn == sn ? &rec[lo] : NULL;
}

/* The end (or with `start` the start) of rank index ri's kernel of instance in on the epoch clock,
 * ns; -1 unknown. */
static int64_t kernel_end(const tc_job *j, const tc_coll_instance *in, size_t ri, bool start) {
    const tc_inst_member *m = &j->inst_members[in->first];
    for (uint32_t k = 0; k < in->n; k++) {
        if (m[k].rank != ri) continue;
        const tc_trace *t = &j->traces[j->ranks[ri].input];
        const tc_gpu_event *e = &t->gpu[m[k].event];
        int64_t end = (t->has_base ? t->base_ns : 0) + e->start_ns + (start ? 0 : e->dur_ns);
        return t->has_base || end >= 978307200000000000LL ? end : -1; /* epoch time: after 2001 */
    }
    return -1;
}

#define LAG_SLACK_NS 100000 /* a record's dump time may read this much before its kernel's end (clocks) */
#define STEADY_NS 500000    /* plugin: a match's record-to-kernel-start gap within this of the median gap */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Plugin records at sn base + k for instance k: the matches (same size) whose gap from the
 * record's time to the kernel's start is within STEADY_NS of their median gap (the two clocks'
 * offset, unknown but constant); every size match when no time is known. *spread: their mean
 * distance from the median (ns). gap has room for 2 ni. */
static size_t steady_matches(const tc_job *j, const size_t *inst, size_t ni, size_t ri, const tc_nccl_record *rec,
                             size_t nr, int64_t base, double *gap, double *spread) {
    size_t n = 0, sized = 0, steady = 0;
    for (size_t k = 0; k < ni; k++) {
        const tc_coll_instance *in = &j->instances[inst[k]];
        const tc_nccl_record *x = by_sn(rec, nr, base + (int64_t)k);
        if (!x || x->bytes != in->bytes) continue;
        sized++;
        int64_t start = x->dump_us > 0 ? kernel_end(j, in, ri, true) : -1;
        if (start >= 0) gap[n++] = (double)(x->dump_us * 1000 - start);
    }
    *spread = 0;
    if (n == 0) return sized;
    double *sorted = gap + ni;
    memcpy(sorted, gap, n * sizeof *gap);
    tc_sort(sorted, n, sizeof *sorted, cmp_double);
    double med = sorted[n / 2];
    for (size_t k = 0; k < n; k++)
        if (gap[k] >= med - STEADY_NS && gap[k] <= med + STEADY_NS) { steady++; *spread += fabs(gap[k] - med); }
    if (steady) *spread /= (double)steady;
    return steady + (sized - n);
}

/* sn0: the offset that matches the most sizes, trying the records of the first instance's size of
 * at least the floor (at most 32; plugin: at most 64, putting them on any of the first 4 instances). Where both clocks are known a match also needs the record
 * written after its kernel ended, and of the offsets within a few matches of the best, the one whose
 * records were written soonest after their kernels wins (collectives of one size repeat, so sizes
 * alone allow shifted offsets). With `relative` (plugin records: dump_us is the COLL event's start
 * on the plugin's own clock, whose offset to the trace's is unknown but constant; room for 2 ni
 * doubles) an offset scores its steady matches (steady_matches); of the best, the steadiest wins,
 * and of those the latest (the plugin writes every collective since the communicator began, so
 * records from before the window are the common surplus: few instances with one lost tie). False when none matches. */
static bool best_offset(const tc_job *j, const size_t *inst, size_t ni, size_t ri, const tc_nccl_record *rec,
                        size_t nr, int64_t min_size, double *relative, int64_t *sn0) {
    size_t first = 0;
    while (first < ni && below_floor(&j->instances[inst[first]], rec[0].coll, min_size)) first++;
    if (first == ni) return false;
    enum { MAXC = 64 };
    int64_t base[MAXC];
    size_t score[MAXC], best = 0, nc = 0;
    double lag[MAXC];
    /* candidates: a record of the first instance's size at that instance (plugin: any of the
     * first 4, whose record may be the one lost) */
    for (size_t c = 0, kk = first; c < nr && nc < MAXC; kk = kk + 1 < first + (relative ? 4 : 1) && kk + 1 < ni ? kk + 1 : (c++, first)) {
        if (rec[c].bytes != j->instances[inst[kk]].bytes || (!relative && nc == 32)) continue;
        base[nc] = rec[c].sn - (int64_t)kk;
        bool seen = false;
        for (size_t q = 0; q < nc && !seen; q++) seen = base[q] == base[nc];
        if (seen) continue;
        score[nc] = 0;
        double sum = 0;
        size_t timed = 0;
        for (size_t k = 0; k < ni; k++) {
            const tc_coll_instance *in = &j->instances[inst[k]];
            const tc_nccl_record *x = by_sn(rec, nr, base[nc] + (int64_t)k);
            if (!x || x->bytes != in->bytes) continue;
            int64_t end = x->dump_us > 0 && !relative ? kernel_end(j, in, ri, false) : -1;
            if (end >= 0 && !relative && x->dump_us * 1000 < end - LAG_SLACK_NS) continue;
            if (end >= 0) { sum += (double)(x->dump_us * 1000 - end); timed++; }
            score[nc]++;
        }
        double mean = timed ? sum / (double)timed : 0;
        lag[nc] = relative ? 0 : mean;
        if (relative) score[nc] = steady_matches(j, inst, ni, ri, rec, nr, base[nc], relative, &lag[nc]);
        if (score[nc] > best) best = score[nc];
        nc++;
    }
    if (!best) return false;
    size_t near = relative ? best : best > 2 + ni / 50 ? best - 2 - ni / 50 : 1, pick = SIZE_MAX;
    for (size_t c = 0; c < nc; c++)
        if (score[c] >= near && (pick == SIZE_MAX || lag[c] < lag[pick] || (relative && lag[c] == lag[pick] && base[c] > base[pick])))
            pick = c;
    *sn0 = base[pick];
    return true;
}

static int cmp_proxy(const void *a, const void *b) {
    const tc_nccl_proxy *x = a, *y = b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->comm_id != y->comm_id) return x->comm_id < y->comm_id ? -1 : 1;
    if (x->coll != y->coll) return x->coll < y->coll ? -1 : 1;
    return (x->sn > y->sn) - (x->sn < y->sn);
}

/* A joined plugin record's proxy steps (log->proxies sorted by cmp_proxy) added to its group. */
static void add_proxy(const tc_nccl_log *log, const tc_nccl_record *x, tc_nccl_group *g) {
    tc_nccl_proxy key = {.comm_id = x->comm_id, .sn = x->sn, .file = x->file, .coll = x->coll};
    size_t lo = 0, hi = log->n_proxies;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_proxy(&log->proxies[mid], &key) < 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo == log->n_proxies || cmp_proxy(&log->proxies[lo], &key) != 0) return;
    const tc_nccl_proxy *px = &log->proxies[lo];
    g->proxy_steps += px->steps;
    for (int k = 0; k < TC_NCCL_PX_N; k++) { g->proxy_class_ns[k] += px->ns[k]; g->proxy_ns += px->ns[k]; }
}

/* Joins one (rank, communicator, kind) run of plugin COLL records rec[0, nr) to its group's
 * instances as join_run does, with no size floor (the plugin writes every collective; those it
 * lost are `dropped`), its event times on its own clock (best_offset's `relative`). 0, or -1 out
 * of memory. */
static int join_plugin_run(const tc_job *j, tc_nccl_result *r, size_t pg, size_t ri, const tc_nccl_record *rec,
                            size_t nr, size_t ni, const size_t *inst) {
    tc_nccl_group *g = &r->groups[pg];
    int64_t sn0 = 0;
    double *gap = malloc((2 * ni + 1) * sizeof *gap);
    if (!gap) return -1;
    bool found = best_offset(j, inst, ni, ri, rec, nr, 0, gap, &sn0);
    free(gap);
    if (!found) { r->plugin_outside += (int64_t)nr; return 0; }
    size_t inside = 0;
    for (size_t k = 0; k < ni; k++) {
        const tc_nccl_record *x = by_sn(rec, nr, sn0 + (int64_t)k);
        inside += x != NULL;
        if (!x) g->plugin_dropped++;
        else if (x->bytes != j->instances[inst[k]].bytes) g->plugin_size_mismatch++;
        else { g->plugin_joined++; g->mix_records[x->mix]++; add_proxy(&r->log, x, g); }
    }
    r->plugin_outside += (int64_t)(nr - inside);
    return 0;
}

/* Joins one (rank, communicator, kind) run rec[0, nr) to its group's instances. 0, or -1 out of memory. */
static int join_run(const tc_job *j, tc_nccl_result *r, size_t pg, size_t ri, const tc_nccl_record *rec, size_t nr,
                     inst_index *ix) {
    tc_nccl_group *g = &r->groups[pg];
    size_t ni = instances_of(ix, pg, rec[0].coll, ri);
    const size_t *inst = ix->out;
    if (rec[0].plugin) return join_plugin_run(j, r, pg, ri, rec, nr, ni, inst);
    mark_run(ix, pg, ri, rec[0].coll);
    int64_t sn0 = 0;
    if (!best_offset(j, inst, ni, ri, rec, nr, r->min_size, NULL, &sn0)) { r->outside_trace += (int64_t)nr; ni = 0; }
    size_t inside = 0;
    for (size_t k = 0; k < ni; k++) {
        const tc_coll_instance *in = &j->instances[inst[k]];
        const tc_nccl_record *x = by_sn(rec, nr, sn0 + (int64_t)k);
        inside += x != NULL;
        if (!x) { if (below_floor(in, rec[0].coll, r->min_size)) g->c.below_min_size++; else g->c.dropped++; }
        else if (x->bytes != in->bytes) g->c.size_mismatch++;
        else if (x->timing == TC_NCCL_TIMING_KERNEL_CPU || x->timing == TC_NCCL_TIMING_COLLECTIVE_CPU) g->c.cpu_timed++;
        else {
            g->c.joined++;
            if (x->mix != TC_NCCL_NO_MIX) g->inspector_mix_records[x->mix]++;
            if (in->bus_factor > 0) { g->bus_bytes += (double)x->bytes * in->bus_factor; g->exec_us += x->exec_us; }
        }
    }
    if (ni) r->outside_trace += (int64_t)(nr - inside);
    return 0;
}

static void add_counts(tc_nccl_counts *to, const tc_nccl_counts *c) {
    to->joined += c->joined;
    to->below_min_size += c->below_min_size;
    to->dropped += c->dropped;
    to->cpu_timed += c->cpu_timed;
    to->size_mismatch += c->size_mismatch;
}

/* Joins one communicator's records rec[0, n) (sorted: by file, kind, sn), file_rank[f] the global
 * rank of file f (-1 unknown). 0, or -1 out of memory. */
static int join_comm(const tc_job *j, tc_nccl_result *r, const tc_nccl_record *rec, size_t n, const int64_t *file_rank,
                     inst_index *ix) {
    int32_t nr = rec[0].n_ranks;
    int64_t *member = malloc((size_t)nr * sizeof *member);
    if (!member) return -1;
    for (int32_t k = 0; k < nr; k++) member[k] = -1;
    for (size_t i = 0; i < n; i++)
        if (file_rank[rec[i].file] >= 0) member[rec[i].rank] = file_rank[rec[i].file];
    size_t pg = tc_nccl_group_of(j, member, nr);
    free(member);
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && rec[b].file == rec[a].file; b++) {}
        size_t ri = tc_nccl_rank_index(j, file_rank[rec[a].file]);
        if (pg == SIZE_MAX || ri == SIZE_MAX) { *(rec[a].plugin ? &r->plugin_unplaced : &r->records_unplaced) += (int64_t)(b - a); continue; }
        tc_nccl_group *g = &r->groups[pg];
        if (!g->has_comm && !g->has_plugin) g->comm_id = rec[a].comm_id;
        g->has = true;
        if (rec[a].plugin) g->has_plugin = true;
        else if (!g->has_comm) { g->has_comm = true; g->comm_id = rec[a].comm_id; }
        for (size_t c = a, d; c < b; c = d) {
            for (d = c + 1; d < b && rec[d].coll == rec[c].coll; d++) {}
            if (join_run(j, r, pg, ri, rec + c, d - c, ix)) return -1;
        }
    }
    return 0;
}

/* The process id of a trace: the pid of its first runtime call's thread ("pid\x1ftid"), -1 none. */
static int64_t trace_pid(const tc_trace *t) {
    for (size_t i = 0; i < t->n_launches; i++) {
        if (t->launches[i].thread == TC_NONE) continue;
        const char *s = tc_trace_str(t, t->launches[i].thread);
        int64_t v = 0;
        size_t k = 0;
        for (; s[k] >= '0' && s[k] <= '9' && k < 18; k++) v = v * 10 + (s[k] - '0');
        return k && s[k] == 0x1f ? v : -1;
    }
    return -1;
}

/* The rank index whose trace's process id is pid (one only), SIZE_MAX none. */
static size_t rank_of_pid(const tc_job *j, int64_t pid) {
    size_t found = SIZE_MAX, n = 0;
    for (size_t i = 0; pid >= 0 && i < j->n_ranks; i++)
        if (trace_pid(&j->traces[j->ranks[i].input]) == pid) { found = i; n++; }
    return n == 1 ? found : SIZE_MAX;
}

/* Each file's global rank (file_rank[f], -1 unknown): the rank whose trace has the file's pid (its
 * runtime calls' process); else the one rank of the job that is, in every
 * communicator of n ranks where the file's process is rank r, the r-th member of a process group of
 * n ranks (the communicator of all ranks alone settles it; TP and DP ranks together too). rec is
 * sorted (by communicator, then file). 0, or -1 out of memory. */
static int file_ranks(const tc_job *j, const tc_nccl_record *rec, size_t n, const tc_nccl_file *files, size_t n_files,
                      int64_t *file_rank) {
    int64_t top = 0; /* the largest global rank */
    for (size_t i = 0; i < j->n_ranks; i++) if (j->ranks[i].rank > top) top = j->ranks[i].rank;
    for (size_t g = 0; g < j->n_groups; g++)
        for (size_t k = 0; k < j->groups[g].n_ranks; k++) if (j->groups[g].ranks[k] > top) top = j->groups[g].ranks[k];
    size_t nr = (size_t)top + 1;
    if (n_files * nr > ((size_t)1 << 24)) { /* too many to weigh (128 MiB): by pid alone */
        for (size_t f = 0; f < n_files; f++) {
            size_t by_pid = rank_of_pid(j, files[f].pid);
            file_rank[f] = by_pid != SIZE_MAX ? j->ranks[by_pid].rank : -1;
        }
        return 0;
    }
    int64_t *count = calloc(n_files * nr, sizeof *count); /* per file and global rank: constraints it meets */
    int64_t *need = calloc(n_files ? n_files : 1, sizeof *need);
    size_t *stamp = calloc(nr, sizeof *stamp);
    if (!count || !need || !stamp) { free(count); free(need); free(stamp); return -1; }
    size_t t = 0; /* one stamp per distinct (communicator, file, rank) */
    for (size_t i = 0; i < n; i++) {
        if (i && rec[i].comm_id == rec[i - 1].comm_id && rec[i].n_ranks == rec[i - 1].n_ranks &&
            rec[i].file == rec[i - 1].file && rec[i].rank == rec[i - 1].rank)
            continue;
        t++;
        bool listed = false;
        for (size_t g = 0; g < j->n_groups; g++) {
            const tc_process_group *pg = &j->groups[g];
            if (!pg->ranks || pg->size != rec[i].n_ranks || pg->n_ranks != (size_t)rec[i].n_ranks) continue;
            int64_t gr = pg->ranks[rec[i].rank];
            listed = true;
            if (gr < 0 || stamp[gr] == t) continue;
            stamp[gr] = t;
            count[rec[i].file * nr + (size_t)gr]++;
        }
        need[rec[i].file] += listed;
    }
    for (size_t f = 0; f < n_files; f++) {
        size_t by_pid = rank_of_pid(j, files[f].pid);
        if ((file_rank[f] = by_pid != SIZE_MAX ? j->ranks[by_pid].rank : -1) >= 0) continue;
        size_t fits = 0;
        for (size_t g = 0; need[f] && g < nr; g++)
            if (count[f * nr + g] == need[f] && tc_nccl_rank_index(j, (int64_t)g) != SIZE_MAX) { file_rank[f] = (int64_t)g; fits++; }
        if (fits != 1) file_rank[f] = -1;
    }
    free(count);
    free(need);
    free(stamp);
    return 0;
}

/* The groups without an Inspector communicator: each kernel of a rank that has a log is below the
 * floor (NCCL wrote no record of the group at all) or dropped. 0, or -1 out of memory. */
static int count_unlogged(const tc_job *j, tc_nccl_result *r, const int64_t *file_rank) {
    bool *logged = calloc(j->n_ranks ? j->n_ranks : 1, sizeof *logged);
    if (!logged) return -1;
    for (size_t f = 0; f < r->log.n_files; f++) {
        size_t ri = tc_nccl_rank_index(j, file_rank[f]);
        if (ri != SIZE_MAX && !r->log.files[f].plugin && !r->log.files[f].prom) logged[ri] = true;
    }
    for (size_t i = 0; i < j->n_instances; i++) {
        const tc_coll_instance *in = &j->instances[i];
        size_t pg = j->inst_groups[in->group].pg;
        if (pg == SIZE_MAX || r->groups[pg].has_comm) continue;
        tc_nccl_group *g = &r->groups[pg];
        const tc_trace *t = &j->traces[j->ranks[j->inst_members[in->first].rank].input];
        uint8_t coll = (uint8_t)tc_nccl_coll_of(tc_trace_str(t, in->name));
        for (uint32_t k = 0; k < in->n; k++) {
            if (!logged[j->inst_members[in->first + k].rank]) continue;
            g->has = true;
            if (below_floor(in, coll, r->min_size)) g->c.below_min_size++;
            else g->c.dropped++;
        }
    }
    free(logged);
    return 0;
}

/* Whether every rank's trace and the events of every instance are in memory (not so in the MPI
 * build's root, which holds skeletons). */
static bool traces_held(const tc_job *j) {
    for (size_t i = 0; i < j->n_ranks; i++)
        if (j->ranks[i].input >= j->n_traces || !j->traces[j->ranks[i].input].n_gpu) return false;
    for (size_t i = 0; i < j->n_inst_members; i++) {
        const tc_inst_member *m = &j->inst_members[i];
        if (m->rank >= j->n_ranks || m->event >= j->traces[j->ranks[m->rank].input].n_gpu) return false;
    }
    return true;
}

/* The plugin's COLL records get their communicator's size (that of the Inspector records of the same
 * id, else one more than the highest Rank of its plugin records: a file per rank); every record its
 * message size S per nccl-tests (NCCL's count, and so the Inspector's coll_msg_size_bytes and the
 * plugin's Count, is per rank for AllGather and ReduceScatter: S is n_ranks times it). rec sorted by
 * communicator; sorted again after. */
static void plugin_sizes(tc_nccl_record *rec, size_t n) {
    bool any = false;
    for (size_t a = 0, b; a < n; a = b) {
        int32_t size = 0, top = -1;
        for (b = a; b < n && rec[b].comm_id == rec[a].comm_id; b++) {
            if (!rec[b].plugin && !size) size = rec[b].n_ranks;
            if (rec[b].plugin && rec[b].rank > top) top = rec[b].rank;
        }
        if (!size) size = top + 1;
        for (size_t k = a; k < b; k++) {
            bool per_rank = rec[k].coll == TC_NCCL_ALLGATHER || rec[k].coll == TC_NCCL_REDUCESCATTER;
            if (!rec[k].plugin) { if (per_rank) rec[k].bytes *= rec[k].n_ranks; continue; }
            any = true;
            rec[k].n_ranks = size;
            if (per_rank) rec[k].bytes *= size;
        }
    }
    if (any) tc_sort(rec, n, sizeof *rec, cmp_rec);
}

int tc_nccl_join(const tc_job *j, tc_nccl_result *r) {
    if (!r->min_size_given) r->min_size = TC_NCCL_DEFAULT_MIN_SIZE;
    if (!traces_held(j)) {
        r->groups = calloc(j->n_groups ? j->n_groups : 1, sizeof *r->groups);
        return r->groups ? tc_nccl_note(r, "not joined: the join needs every rank's trace in this process (the MPI "
                                           "build keeps them on their own ranks)") : -1;
    }
    size_t n = r->log.n_records;
    tc_nccl_record *rec = malloc((n ? n : 1) * sizeof *rec);
    inst_index ix;
    r->groups = calloc(j->n_groups ? j->n_groups : 1, sizeof *r->groups);
    int built = index_build(j, &ix);
    if (!rec || built || !r->groups) { free(rec); index_free(&ix); return -1; }
    if (n) memcpy(rec, r->log.records, n * sizeof *rec);
    tc_sort(rec, n, sizeof *rec, cmp_rec);
    plugin_sizes(rec, n);
    if (r->log.n_proxies) tc_sort(r->log.proxies, r->log.n_proxies, sizeof *r->log.proxies, cmp_proxy);
    int64_t *file_rank = malloc((r->log.n_files ? r->log.n_files : 1) * sizeof *file_rank);
    int rc = file_rank ? file_ranks(j, rec, n, r->log.files, r->log.n_files, file_rank) : -1;
    for (size_t a = 0, b; rc == 0 && a < n; a = b) {
        for (b = a + 1; b < n && rec[b].comm_id == rec[a].comm_id && rec[b].n_ranks == rec[a].n_ranks; b++) {}
        rc = join_comm(j, r, rec + a, b - a, file_rank, &ix);
    }
    if (rc == 0) count_unrecorded_kinds(j, r, &ix);
    if (rc == 0) rc = count_unlogged(j, r, file_rank);
    if (rc == 0) rc = tc_nccl_prom_join(j, r);
    if (rc == 0) rc = tc_nccl_p2p_join(j, r, file_rank);
    free(file_rank);
    free(rec);
    index_free(&ix);
    if (rc) return -1;
    size_t without = 0, inspector_files = 0;
    for (size_t f = 0; f < r->log.n_files; f++) {
        inspector_files += !r->log.files[f].plugin && !r->log.files[f].prom;
        if (r->log.files[f].lenient)
            rc |= tc_nccl_note(r, "%s: not valid JSON (unquoted values): read leniently", r->log.files[f].path);
    }
    for (size_t i = 0; i < j->n_groups; i++) {
        tc_nccl_group *g = &r->groups[i];
        add_counts(&r->c, &g->c);
        without += !g->has_comm && !g->has_p2p_comm && j->groups[i].row != SIZE_MAX;
        if ((g->has_busbw = g->exec_us > 0)) g->busbw_GBps = g->bus_bytes / g->exec_us / 1e3;
        if ((g->has_proxy = g->proxy_ns > 0)) {
            g->proxy_gpu_wait_share = g->proxy_class_ns[TC_NCCL_PX_GPU] / g->proxy_ns;
            g->proxy_peer_wait_share = g->proxy_class_ns[TC_NCCL_PX_PEER] / g->proxy_ns;
            g->proxy_net_share = g->proxy_class_ns[TC_NCCL_PX_NET] / g->proxy_ns;
            g->proxy_other_share = g->proxy_class_ns[TC_NCCL_PX_OTHER] / g->proxy_ns;
        }
    }
    if (r->log.proxy_steps_p2p)
        rc |= tc_nccl_note(r, "%lld profiler plugin proxy steps are of point-to-point operations or of no COLL event: "
                              "not in the groups' proxy shares", (long long)r->log.proxy_steps_p2p);
    if (r->records_unplaced)
        rc |= tc_nccl_note(r, "%lld Inspector records are of a process or communicator the traces do not have "
                              "(a rank without a trace, a process whose pid and communicators do not settle its rank, or a "
                              "communicator no process group fits)",
                           (long long)r->records_unplaced);
    if (r->plugin_unplaced)
        rc |= tc_nccl_note(r, "%lld profiler plugin COLL records are of a process or communicator the traces do not have",
                           (long long)r->plugin_unplaced);
    if (r->plugin_outside)
        rc |= tc_nccl_note(r, "%lld profiler plugin COLL records are of collectives outside the traced window",
                           (long long)r->plugin_outside);
    if (without && inspector_files) rc |= tc_nccl_note(r, "%zu process groups with collectives have no Inspector record (all their kernels under the size floor, or dropped)", without);
    if (r->outside_trace)
        rc |= tc_nccl_note(r, "%lld Inspector records are of collectives outside the traced window", (long long)r->outside_trace);
    return rc ? -1 : 0;
}

int tc_job_nccl_join(tc_job *j, const tc_analyze_options *opt) {
    if (!j->nccl.present) return 0;
    return tc_nccl_join(j, &j->nccl) || tc_job_findings(j, opt) ? -1 : 0;
}
