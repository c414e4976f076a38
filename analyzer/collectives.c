/* collectives.c: cross-rank collective matching (see collectives.h).
 *
 * Method. Every comm kernel gets a key: (process group, Seq) when the trace has them; otherwise
 * (process group, its ordinal among that group's kernels on the rank); otherwise (stream, name,
 * ordinal). A rank's kernels of an ordinal group pair in order with the reference rank's when they
 * agree in count and sizes, unless their end times say otherwise; else they are aligned by end times
 * (stage 2 below: the ends of one instance coincide within the job's measured end spread, so a right
 * alignment shows one clock offset). An instance is matched when every rank that has its group has it; the rest stay unmatched, are counted as transfer, and are
 * reported. For a matched instance, transfer = min duration; each rank's wait = duration − transfer. */
#include "collectives.h"
#include "groups.h"
#include "nodes.h"
#include "pipeline.h"
#include "base/status.h"
#include "base/util.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define ONE_MIB (1024 * 1024)

typedef struct {
    uint32_t group;   /* id in the job's group table */
    uint32_t rank;    /* index into j->ranks */
    uint32_t event;   /* GPU event index in that rank's trace */
    uint32_t sub;     /* k-th kernel with the same (group, key) on that rank */
    int64_t key;      /* Seq, or aligned ordinal */
} comm_rec;

typedef struct {
    char *label;      /* the matching key: "pg 0 (default_pg)" or "stream 20: <name>" */
    char *shown;      /* the group as reports show it: "pg 0 (default_pg)" or "stream 20" */
    bool by_seq;
    uint32_t ranks_with;   /* ranks that have this group */
    int64_t group_size;    /* from args, -1 unknown */
    size_t pg;             /* its process group in tc_job.groups (groups.h), SIZE_MAX none */
    int64_t end_tol;       /* ordinal groups: ends of one instance agree within this, ns (measure_spread) */
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

static int64_t median_i64(int64_t *v, size_t n) {
    if (n == 0) return 0;
    tc_sort_i64(v, n);
    return v[n / 2];
}

static int64_t abs_end(const tc_trace *t, const tc_gpu_event *e) {
    return (t->has_base ? t->base_ns : 0) + e->start_ns + e->dur_ns;
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
    for (size_t g = 0; g < m->n_ginfo; g++) { free(m->ginfo[g].label); free(m->ginfo[g].shown); }
    free(m->ginfo);
    free(m->recs);
    if (m->offset_samples) for (size_t r = 0; r < m->nr; r++) free(m->offset_samples[r]);
    free(m->offset_samples); free(m->n_off); free(m->cap_off);
    tc_strtab_free(m->groups);
}

/* A comm kernel's group label: its process group when the trace names it (*by_seq when it has a
 * Seq), else its stream and collective name (kernels of one stream match by name). shown gets the
 * group as every report names it: the process group, else "stream N" alone (the collective's name
 * has a column of its own). */
static void group_label(const tc_trace *t, const tc_gpu_event *g, const tc_coll_args *c, char *label, size_t size,
                        char *shown, size_t shown_size, bool *by_seq) {
    *by_seq = false;
    if (c && c->pg_name != TC_NONE) {
        const char *desc = c->pg_desc != TC_NONE ? tc_trace_str(t, c->pg_desc) : "";
        tc_format(label, size, "pg %s%s%s%s", tc_trace_str(t, c->pg_name), *desc ? " (" : "", desc, *desc ? ")" : "");
        tc_format(shown, shown_size, "%s", label);
        *by_seq = c->seq >= 0;
    } else {
        tc_format(label, size, "stream %s: %.300s", tc_trace_str(t, g->stream),
                  c ? tc_trace_str(t, c->coll_name) : tc_trace_str(t, g->name));
        tc_format(shown, shown_size, "stream %s", tc_trace_str(t, g->stream));
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
    /* the label's inputs of the last kernel and its group: a run of kernels of one group skips
     * the label's formatting and lookup (tens of thousands of comm kernels a rank) */
    bool have_last = false, last_named = false;
    uint32_t last_k1 = TC_NONE, last_k2 = TC_NONE, last_gid = TC_NONE;
    for (size_t e = 0; e < t->n_gpu; e++) {
        const tc_gpu_event *g = &t->gpu[e];
        if (!g->is_comm) continue;
        if (rr->wait_ns) rr->wait_ns[e] = -1; /* unmatched until an instance claims it */
        const tc_coll_args *c = g->coll != TC_NONE ? &t->colls[g->coll] : NULL;
        if (tc_p2p_has_peer(c)) continue; /* paired send to recv instead (pipeline.h) */
        bool named = c && c->pg_name != TC_NONE, by_seq = named && c->seq >= 0; /* as group_label says */
        uint32_t k1 = named ? c->pg_name : g->stream, k2 = named ? c->pg_desc : c ? c->coll_name : g->name;
        uint32_t gid = last_gid;
        if (!have_last || named != last_named || k1 != last_k1 || k2 != last_k2) {
            char label[400], shown[400];
            group_label(t, g, c, label, sizeof label, shown, sizeof shown, &by_seq);
            if ((gid = tc_strtab_intern(m->groups, label, strlen(label))) == TC_NONE) return -1;
            if (gid >= m->n_ginfo) {
                size_t pg = named ? tc_job_group_find(m->j, tc_trace_str(t, c->pg_name)) : SIZE_MAX;
                group_info gi = {tc_strdup(label), tc_strdup(shown), by_seq, 0, -1, pg, 0};
                if (!gi.label || !gi.shown || TC_PUSH(m->ginfo, m->n_ginfo, m->cap_ginfo, gi)) {
                    free(gi.label); free(gi.shown); return -1;
                }
            }
            have_last = true;
            last_named = named;
            last_k1 = k1;
            last_k2 = k2;
            last_gid = gid;
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

/* ---- Stage 2: aligning the ordinals of one group across ranks -------------------------------------
 * When a rank lacks kernels of an ordinal group that others have (a kernel lost by the profiler, a
 * rank whose trace stops early or starts late), order alone pairs the wrong kernels from the first
 * difference on. End times of one instance nearly coincide on every rank (everyone leaves a
 * collective together, within the job's end spread: measure_spread), so on their absolute clocks a
 * rank's ends are the reference rank's plus one clock offset. Each rank's kernels are aligned to the
 * reference rank's (and kept in order when they agree with it in count and sizes and no alignment
 * agrees on more pairs: align_ordinals):
 *  1. candidate offsets: where the end-time differences of kernels a few places apart in order bunch
 *     most, and each shift's median difference (offset_candidates);
 *  2. under each, both lists are walked pairing each kernel with the other rank's kernel whose end
 *     is nearest (a kernel nearer to another partner has none), following the offset halfway to each
 *     agreeing pair as clocks drift (walk_pairs); a pair agrees when the ends are within a quarter
 *     of the gap to the neighbouring kernels and the message sizes, when both are known, are equal;
 *  3. the true pairs' residual is the smallest median residual among the candidates that pair at
 *     least half as many as the best; the candidate with most pairs within 8 times that (at least
 *     the job's end tolerance) wins, the smaller offset among equals (align_by_ends). A whole step's misalignment can pair as
 *     many kernels as the truth, but never as closely; the hosts of one job keep their clocks close.
 * The alignment is used only with real agreement: two pairs or more, and half of the shorter list.
 * Otherwise (a single kernel, ends that do not coincide, as point-to-point kernels whose peers are
 * not among the inputs) the kernels are paired in order, unshifted. A warning says what was done
 * and which kernels have no partner; kernels without one stay unmatched. */

typedef struct {
    const tc_trace *t;
    const uint32_t *ev;       /* GPU event indices of the group's kernels, in ordinal order */
    size_t n;
} kernel_list;

static int64_t list_end(const kernel_list *l, size_t i) { return abs_end(l->t, &l->t->gpu[l->ev[i]]); }

/* Distance from kernel i's end to its nearest neighbour's in the list (INT64_MAX alone). */
static int64_t end_gap(const kernel_list *l, size_t i) {
    int64_t g = INT64_MAX, e = list_end(l, i);
    if (i > 0) g = llabs(e - list_end(l, i - 1));
    if (i + 1 < l->n && llabs(list_end(l, i + 1) - e) < g) g = llabs(list_end(l, i + 1) - e);
    return g;
}

/* Does pair (i, k) agree under offset o: sizes equal when both are known, and ends within a quarter
 * of the smaller gap to a neighbour; with tol >= 0 also within tol (align_by_ends). *res: the
 * residual, |end_b - o - end_a|. */
static bool pair_agrees(const kernel_list *a, size_t i, const kernel_list *b, size_t k, int64_t o, int64_t tol,
                        int64_t *res) {
    const tc_gpu_event *x = &a->t->gpu[a->ev[i]], *y = &b->t->gpu[b->ev[k]];
    *res = llabs(list_end(b, k) - o - list_end(a, i));
    if (x->coll != TC_NONE && y->coll != TC_NONE && a->t->colls[x->coll].in_nelems != b->t->colls[y->coll].in_nelems)
        return false;
    int64_t gap = end_gap(a, i), gb = end_gap(b, k);
    if (gb < gap) gap = gb;
    if (gap == INT64_MAX) return *res == 0;
    return *res <= gap / 4 && (tol < 0 || *res <= tol);
}

/* Walks both lists under offset o (followed as agreeing pairs come: clocks drift), pairing kernels
 * with the nearest end; pair[k] = the reference ordinal of b's k-th kernel, or -1. With tol >= 0
 * (pair_agrees) a pair that does not agree is left unpaired. The agreeing pairs' residuals go to
 * res (b->n entries) when it is not NULL. Returns the number of agreeing pairs. */
static size_t walk_pairs(const kernel_list *a, const kernel_list *b, int64_t o, long *pair, int64_t tol, int64_t *res) {
    size_t i = 0, k = 0, agree = 0;
    for (size_t q = 0; q < b->n; q++) pair[q] = -1;
    while (i < a->n && k < b->n) {
        int64_t x = list_end(b, k) - o, ai = list_end(a, i), r;
        if (x >= ai && i + 1 < a->n && list_end(a, i + 1) - x < x - ai) { i++; continue; } /* a's i has no partner */
        if (x < ai && k + 1 < b->n && list_end(b, k + 1) - o - ai < ai - x) { k++; continue; } /* b's k has none */
        if (pair_agrees(a, i, b, k, o, tol, &r)) {
            if (res) res[agree] = r;
            agree++;
            o += (list_end(b, k) - list_end(a, i) - o) / 2; /* follows drift, halves one end's noise */
            pair[k] = (long)i;
        } else if (tol < 0) pair[k] = (long)i;
        i++;
        k++;
    }
    return agree;
}

#define DENSE_CANDIDATES 8 /* clock offsets tried from where end-time differences bunch */

/* Adds o to the candidate offsets cand[0, *n) (at most max), unless one within w is there. */
static void add_candidate(int64_t *cand, size_t *n, size_t max, int64_t o, int64_t w) {
    for (size_t i = 0; i < *n; i++) if (llabs(cand[i] - o) <= w) return;
    if (*n < max) cand[(*n)++] = o;
}

/* Clock offsets worth trying for b against a, into cand (room for DENSE_CANDIDATES + 2 span + 1):
 * where the end-time differences of kernel pairs up to `span` apart in order bunch most (under the
 * right offset every true pair gives the same difference, wherever kernels are missing), most
 * bunched first, then the median of each shift's differences. Returns how many; 0 out of memory. */
static size_t offset_candidates(const kernel_list *a, const kernel_list *b, long span, int64_t *cand) {
    size_t m = 0, n = 0, max = DENSE_CANDIDATES + 2 * (size_t)span + 1;
    int64_t *d = malloc((a->n * (2 * (size_t)span + 1) + 1) * sizeof *d);
    int64_t *gaps = malloc((a->n + 1) * sizeof *gaps);
    if (!d || !gaps) { free(d); free(gaps); return 0; }
    for (size_t i = 0; i < a->n; i++) {
        gaps[i] = end_gap(a, i) == INT64_MAX ? 0 : end_gap(a, i);
        for (long sh = -span; sh <= span; sh++) {
            long k = (long)i + sh;
            if (k >= 0 && (size_t)k < b->n) d[m++] = list_end(b, (size_t)k) - list_end(a, i);
        }
    }
    int64_t w = median_i64(gaps, a->n) / 8; /* "the same difference": within an eighth of a typical gap */
    tc_sort_i64(d, m);
    size_t top_count[DENSE_CANDIDATES] = {0};
    int64_t top[DENSE_CANDIDATES];
    for (size_t i = 0, j = 0; i < m; i++) { /* windows [i, j) of differences within w */
        while (j < m && d[j] - d[i] <= w) j++;
        size_t c = j - i, slot = DENSE_CANDIDATES;
        int64_t mid = d[i + (j - i - 1) / 2];
        for (size_t q = 0; q < DENSE_CANDIDATES; q++)
            if (top_count[q] && llabs(top[q] - mid) <= w) { slot = c > top_count[q] ? q : DENSE_CANDIDATES + 1; break; }
        if (slot == DENSE_CANDIDATES) /* a new place: replaces the least bunched when it is more */
            for (size_t q = 0; q < DENSE_CANDIDATES; q++)
                if (c > top_count[q] && (slot == DENSE_CANDIDATES || top_count[q] < top_count[slot])) slot = q;
        if (slot < DENSE_CANDIDATES) { top_count[slot] = c; top[slot] = mid; }
    }
    for (size_t round = 0; round < DENSE_CANDIDATES; round++) { /* most bunched first */
        size_t bq = DENSE_CANDIDATES;
        for (size_t q = 0; q < DENSE_CANDIDATES; q++)
            if (top_count[q] && (bq == DENSE_CANDIDATES || top_count[q] > top_count[bq])) bq = q;
        if (bq == DENSE_CANDIDATES) break;
        add_candidate(cand, &n, max, top[bq], 0);
        top_count[bq] = 0;
    }
    for (long sh = -span; sh <= span; sh++) {
        size_t q = 0;
        for (size_t i = 0; i < a->n; i++) {
            long k = (long)i + sh;
            if (k >= 0 && (size_t)k < b->n) d[q++] = list_end(b, (size_t)k) - list_end(a, i);
        }
        if (q) add_candidate(cand, &n, max, median_i64(d, q), 0);
    }
    free(d);
    free(gaps);
    return n;
}

/* The best alignment of b to a into pair[] (b->n entries); *offset its clock offset. Every candidate
 * offset is walked loosely (pair_agrees without tol); the residual of true pairs is the smallest
 * median residual among the candidates pairing at least half as many as the best, and tol = 8
 * times that (at least floor_tol, the job's end tolerance): a whole step's misalignment can pair as many
 * kernels, but never that closely. The candidate under which most pairs agree within tol wins
 * (the smaller offset among equals: the hosts of one job keep their clocks close). Returns its
 * agreeing pairs, or 0 when none had real agreement (pair[] is then order). */
static size_t align_by_ends(const kernel_list *a, const kernel_list *b, long *pair, long *scratch, int64_t *offset,
                            int64_t floor_tol) {
    size_t diff = a->n > b->n ? a->n - b->n : b->n - a->n;
    long span = (long)(diff + 4 < 32 ? diff + 4 : 32);
    int64_t cand[DENSE_CANDIDATES + 2 * 32 + 1], med[DENSE_CANDIDATES + 2 * 32 + 1];
    size_t n_cand = offset_candidates(a, b, span, cand), loose[DENSE_CANDIDATES + 2 * 32 + 1], most = 0, best = 0;
    int64_t *res = malloc((b->n + 1) * sizeof *res), typical = INT64_MAX;
    for (size_t c = 0; res && c < n_cand; c++) {
        loose[c] = walk_pairs(a, b, cand[c], scratch, -1, res);
        med[c] = loose[c] ? median_i64(res, loose[c]) : INT64_MAX;
        if (loose[c] > most) most = loose[c];
    }
    for (size_t c = 0; c < n_cand; c++)
        if (res && loose[c] && 2 * loose[c] >= most && med[c] < typical) typical = med[c];
    int64_t tol = typical == INT64_MAX ? 0 : 8 * typical > floor_tol ? 8 * typical : floor_tol;
    for (size_t c = 0; res && c < n_cand; c++) {
        if (!loose[c]) continue;
        size_t agree = walk_pairs(a, b, cand[c], scratch, tol, NULL);
        if (agree > best || (agree == best && agree > 0 && llabs(cand[c]) < llabs(*offset))) {
            best = agree;
            *offset = cand[c];
            memcpy(pair, scratch, b->n * sizeof *pair);
        }
    }
    free(res);
    size_t shorter = a->n < b->n ? a->n : b->n;
    /* real agreement: two pairs or more (one pair always agrees with the offset it gives) and half
     * the shorter list */
    if (best >= 2 && 2 * best >= shorter) return best;
    for (size_t k = 0; k < b->n; k++) pair[k] = k < a->n ? (long)k : -1; /* no real agreement: in order */
    return 0;
}

/* Appends "#3, #7-#9" (1-based ordinals of the sorted list v) to buf, at most 6 runs. */
static void ordinal_runs(char *buf, size_t size, const long *v, size_t n) {
    size_t len = strlen(buf), runs = 0, i = 0;
    while (i < n && len < size) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1) j++;
        if (runs == 6) { tc_format(buf + len, size - len, " and %zu more", n - i); return; }
        if (j == i) tc_format(buf + len, size - len, "%s#%ld", runs ? ", " : "", v[i] + 1);
        else tc_format(buf + len, size - len, "%s#%ld-#%ld", runs ? ", " : "", v[i] + 1, v[j] + 1);
        len = strlen(buf);
        runs++;
        i = j + 1;
    }
}

/* The warning for one rank's alignment: what was done, and which kernels of either rank have no
 * partner. Silent when the rank's kernels simply pair in order with as many of the reference's. */
static void warn_alignment(matcher *m, const char *label, size_t r, size_t ref, const kernel_list *a, const kernel_list *b,
                           const long *pair, size_t agree, int64_t offset) {
    bool in_order = a->n == b->n;
    size_t nb_un = 0, na_un = 0;
    long *un_b = malloc((b->n + 1) * sizeof *un_b), *un_a = malloc((a->n + 1) * sizeof *un_a);
    bool *paired = calloc(a->n + 1, sizeof *paired);
    if (!un_b || !un_a || !paired) { free(un_b); free(un_a); free(paired); return; }
    for (size_t k = 0; k < b->n; k++) {
        if (pair[k] != (long)k) in_order = false;
        if (pair[k] < 0) un_b[nb_un++] = (long)k; else paired[pair[k]] = true;
    }
    for (size_t i = 0; i < a->n; i++) if (!paired[i]) un_a[na_un++] = (long)i;
    long long rr = (long long)m->j->ranks[r].rank, rf = (long long)m->j->ranks[ref].rank;
    char msg[900];
    if (agree)
        tc_format(msg, sizeof msg, "%s: rank %lld has %zu collective kernels, rank %lld has %zu: aligned by end times "
                  "(clock offset %+.3f ms), %zu pairs agree", label, rr, b->n, rf, a->n, (double)offset / 1e6, agree);
    else
        tc_format(msg, sizeof msg, "%s: rank %lld has %zu collective kernels, rank %lld has %zu: their end times agree "
                  "under no clock offset, so they were paired in order, unshifted", label, rr, b->n, rf, a->n);
    if (in_order && !na_un && !nb_un) { free(un_b); free(un_a); free(paired); return; }
    if (na_un) {
        tc_format(msg + strlen(msg), sizeof msg - strlen(msg), "; rank %lld's ", rf);
        ordinal_runs(msg, sizeof msg, un_a, na_un);
        tc_format(msg + strlen(msg), sizeof msg - strlen(msg), " %s no partner on rank %lld", na_un == 1 ? "has" : "have", rr);
    }
    if (nb_un) {
        tc_format(msg + strlen(msg), sizeof msg - strlen(msg), "; rank %lld's ", rr);
        ordinal_runs(msg, sizeof msg, un_b, nb_un);
        tc_format(msg + strlen(msg), sizeof msg - strlen(msg), " %s none on rank %lld", nb_un == 1 ? "has" : "have", rf);
    }
    tc_job_warn(m->j, "%s", msg);
    free(un_b); free(un_a); free(paired);
}

/* ---- Stage 2, in order first: the end spread of the job and the order rule -------------------------
 * Real ranks leave a collective a few µs apart, not at one instant, and µs timestamps round each end.
 * Ranks whose kernels of a group agree in count and sizes pair in order unless the ends say
 * otherwise: unless an alignment by ends agrees on more pairs than the order does. The tolerance of
 * "agree" comes from the spread the job shows (measure_spread), not a fixed figure. */

#define SPREAD_WINDOW 4        /* an in-order pair's clock offset: the median difference within 4 places */
#define SPREAD_QUANTILE 0.9    /* the job's end spread: this quantile of the in-order residuals */
#define SPREAD_FACTOR 4        /* ends of one instance agree within 4 spreads ... */
#define END_RESOLUTION_NS 2000 /* ... plus the rounding of two µs timestamps (Kineto's before PyTorch 2.4) */

/* Do a and b hold as many kernels, of the same message sizes in order where both are known? */
static bool same_in_order(const kernel_list *a, const kernel_list *b) {
    if (a->n != b->n) return false;
    for (size_t i = 0; i < a->n; i++) {
        const tc_gpu_event *x = &a->t->gpu[a->ev[i]], *y = &b->t->gpu[b->ev[i]];
        if (x->coll != TC_NONE && y->coll != TC_NONE && a->t->colls[x->coll].in_nelems != b->t->colls[y->coll].in_nelems)
            return false;
    }
    return true;
}

/* The residuals of a and b paired in order (same_in_order): res[k] = |d_k − the median of d over the
 * pairs within SPREAD_WINDOW places|, d_k = b's k-th end − a's k-th end on their absolute clocks (the
 * local median follows clocks that drift). */
static void inorder_residuals(const kernel_list *a, const kernel_list *b, int64_t *res) {
    int64_t win[2 * SPREAD_WINDOW + 1];
    for (size_t k = 0; k < a->n; k++) {
        size_t lo = k > SPREAD_WINDOW ? k - SPREAD_WINDOW : 0, hi = k + SPREAD_WINDOW < a->n ? k + SPREAD_WINDOW : a->n - 1;
        size_t q = 0;
        for (size_t i = lo; i <= hi; i++) win[q++] = list_end(b, i) - list_end(a, i);
        res[k] = llabs(list_end(b, k) - list_end(a, k) - median_i64(win, q));
    }
}

/* Per rank: its kernels of the group recs[a, b), in ordinal order (records of one rank are ordered by
 * key within the group block). NULL out of memory; free with free_lists. */
static uint32_t **group_lists(const matcher *m, size_t a, size_t b, const bool *has, const size_t *cnt) {
    uint32_t **lists = calloc(m->nr, sizeof *lists);
    size_t *fill = calloc(m->nr, sizeof *fill);
    bool ok = lists && fill;
    for (size_t r = 0; ok && r < m->nr; r++)
        if (has[r]) ok = (lists[r] = malloc((cnt[r] + 1) * sizeof **lists)) != NULL;
    for (size_t i = a; ok && i < b; i++) lists[m->recs[i].rank][fill[m->recs[i].rank]++] = m->recs[i].event;
    free(fill);
    if (ok) return lists;
    for (size_t r = 0; lists && r < m->nr; r++) free(lists[r]);
    free(lists);
    return NULL;
}

static void free_lists(uint32_t **lists, size_t nr) {
    for (size_t r = 0; lists && r < nr; r++) free(lists[r]);
    free(lists);
}

/* One ordinal group's in-order residuals into *v: each rank that has it against the previous rank
 * that has it, when the two agree in count and sizes. 0, or -1 out of memory. */
static int group_residuals(matcher *m, size_t a, size_t b, const bool *has, const size_t *cnt, int64_t **v, size_t *n,
                           size_t *cap) {
    uint32_t **lists = group_lists(m, a, b, has, cnt);
    if (!lists) return -1;
    int rc = 0;
    for (size_t r = 0, prev = m->nr; rc == 0 && r < m->nr; r++) {
        if (!has[r]) continue;
        kernel_list la = {prev < m->nr ? rank_trace(m, prev) : NULL, prev < m->nr ? lists[prev] : NULL,
                          prev < m->nr ? cnt[prev] : 0};
        kernel_list lb = {rank_trace(m, r), lists[r], cnt[r]};
        if (prev < m->nr && same_in_order(&la, &lb)) {
            int64_t *res = malloc((lb.n + 1) * sizeof *res);
            if (!res) { rc = -1; break; }
            inorder_residuals(&la, &lb, res);
            for (size_t k = 0; rc == 0 && k < lb.n; k++) rc = TC_PUSH(*v, *n, *cap, res[k]) ? -1 : 0;
            free(res);
        }
        prev = r;
    }
    free_lists(lists, m->nr);
    return rc;
}

/* Which ranks have the group recs[a, b) and how many of its kernels each holds (*ranks_with: how
 * many ranks); *ref: the first rank that has it (nr: none). */
static void group_counts(const matcher *m, size_t a, size_t b, bool *has, size_t *cnt, uint32_t *ranks_with, size_t *ref) {
    memset(has, 0, m->nr * sizeof *has);
    memset(cnt, 0, m->nr * sizeof *cnt);
    *ranks_with = 0;
    for (size_t i = a; i < b; i++) {
        if (!has[m->recs[i].rank]) (*ranks_with)++;
        has[m->recs[i].rank] = true;
        cnt[m->recs[i].rank]++;
    }
    *ref = m->nr;
    for (size_t r = 0; r < m->nr && *ref == m->nr; r++) if (has[r]) *ref = r;
}

static int64_t quantile_spread(int64_t *v, size_t n) {
    tc_sort_i64(v, n);
    return v[(size_t)((double)(n - 1) * SPREAD_QUANTILE)];
}

/* The end spread of each ordinal group and of the job, and each group's agreement tolerance
 * (group_info.end_tol). Every ordinal group's ranks that agree in count and sizes are paired in
 * order; a spread is the SPREAD_QUANTILE quantile of their residuals (inorder_residuals: how far an
 * end lies from where its rank's clock offset puts it), the group's own, or the job's (all groups'
 * residuals pooled) for a group without such pairs; ends agree within SPREAD_FACTOR spreads plus
 * END_RESOLUTION_NS. A group of its own spread keeps it: point-to-point kernels whose ends do not
 * coincide do not loosen the others. 0, or -1 out of memory. */
static int measure_spread(matcher *m, bool *has, size_t *cnt) {
    int64_t *v = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (size_t a = 0, b; rc == 0 && a < m->n_recs; a = b) {
        for (b = a; b < m->n_recs && m->recs[b].group == m->recs[a].group;) b++;
        if (m->ginfo[m->recs[a].group].by_seq) continue;
        uint32_t with;
        size_t ref;
        group_counts(m, a, b, has, cnt, &with, &ref);
        size_t n0 = n;
        if (with >= 2) rc = group_residuals(m, a, b, has, cnt, &v, &n, &cap);
        m->ginfo[m->recs[a].group].end_tol = n > n0 ? SPREAD_FACTOR * quantile_spread(v + n0, n - n0) + END_RESOLUTION_NS : -1;
    }
    int64_t spread = n ? quantile_spread(v, n) : 0;
    free(v);
    m->j->summary.has_end_spread = n > 0;
    m->j->summary.end_spread_ns = spread;
    for (size_t g = 0; g < m->n_ginfo; g++)
        if (m->ginfo[g].end_tol < 0) m->ginfo[g].end_tol = SPREAD_FACTOR * spread + END_RESOLUTION_NS;
    return rc;
}

/* Stage 2, one ordinal group recs[a, b): each rank's kernels are paired with the reference rank
 * `ref`'s: in order when the two agree in count and sizes and no alignment by ends (align_by_ends)
 * agrees on more pairs, else by that alignment; kernels are keyed by their partner's ordinal, and
 * those without one get keys the reference has not (unmatched). */
static int align_ordinals(matcher *m, size_t a, size_t b, const bool *has, const size_t *cnt, size_t ref) {
    size_t nr = m->nr, biggest = 0;
    for (size_t r = 0; r < nr; r++) if (has[r] && cnt[r] > biggest) biggest = cnt[r];
    uint32_t **lists = group_lists(m, a, b, has, cnt);
    long *pair = malloc((biggest + 1) * sizeof *pair), *scratch = malloc((biggest + 1) * sizeof *scratch);
    int64_t *res = malloc((biggest + 1) * sizeof *res);
    bool ok = lists && pair && scratch && res;
    if (ok) {
        const group_info *gi = &m->ginfo[m->recs[a].group];
        kernel_list la = {rank_trace(m, ref), lists[ref], cnt[ref]};
        for (size_t r = 0; r < nr; r++) {
            if (!has[r] || r == ref) continue;
            kernel_list lb = {rank_trace(m, r), lists[r], cnt[r]};
            int64_t offset = 0;
            size_t agree = align_by_ends(&la, &lb, pair, scratch, &offset, gi->end_tol);
            if (same_in_order(&la, &lb)) {
                size_t in_order = 0;
                inorder_residuals(&la, &lb, res);
                for (size_t k = 0; k < lb.n; k++) in_order += res[k] <= gi->end_tol;
                if (agree <= in_order) {
                    for (size_t k = 0; k < lb.n; k++) pair[k] = (long)k;
                    agree = in_order;
                }
            }
            /* a kernel without partner: a key past the reference's, by where it falls among them (the
             * ranks' kernels missing from the reference at one place are one instance, unmatched) */
            long prev = -1;
            int64_t run = 0, spare_base = (int64_t)cnt[ref], stride = (int64_t)biggest + 1;
            for (size_t i = a, k = 0; i < b; i++) {
                if (m->recs[i].rank != r) continue;
                if (pair[k] >= 0) { m->recs[i].key = prev = pair[k]; run = 0; }
                else m->recs[i].key = spare_base + (prev + 1) * stride + run++;
                k++;
            }
            warn_alignment(m, gi->label, r, ref, &la, &lb, pair, agree, offset);
        }
    }
    free_lists(lists, nr);
    free(pair); free(scratch); free(res);
    return ok ? 0 : -1;
}

/* Stage 2: which ranks have each group; the job's end spread; ordinal groups aligned to their first
 * rank; records sorted again by the aligned keys. */
static int align_groups(matcher *m) {
    size_t nr = m->nr;
    bool *has = malloc(nr * sizeof *has);
    size_t *cnt = malloc(nr * sizeof *cnt);
    int rc = has && cnt ? measure_spread(m, has, cnt) : -1;
    for (size_t a = 0, b; rc == 0 && a < m->n_recs; a = b) {
        for (b = a; b < m->n_recs && m->recs[b].group == m->recs[a].group;) b++;
        group_info *gi = &m->ginfo[m->recs[a].group];
        size_t ref;
        group_counts(m, a, b, has, cnt, &gi->ranks_with, &ref);
        /* every ordinal group, even counts too: one rank may lack the first kernel, another the last */
        if (!gi->by_seq && gi->ranks_with >= 2 && ref < nr) rc = align_ordinals(m, a, b, has, cnt, ref);
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
    row_acc *row = find_row(&m->rows, &m->n_rows, &m->cap_rows, cname, gi->shown, gi->pg, dtype, gsize, bytes);
    if (!row || TC_PUSH(row->transfers, row->n_transfers, row->cap_transfers, transfer)) return -1;
    row->wait_total += wait_sum;
    double factor = tc_busbw_factor(cname, gsize);
    tc_coll_instance in = {m->recs[a].group, (uint32_t)m->j->n_inst_members, (uint32_t)(b - a),
                           c ? c->coll_name : g0->name, 0, bytes, factor, gsize, transfer};
    if (TC_PUSH(m->j->instances, m->j->n_instances, m->j->cap_instances, in)) return -1;
    for (size_t i = a; i < b; i++) {
        tc_inst_member mb = {m->recs[i].rank, m->recs[i].event};
        if (TC_PUSH(m->j->inst_members, m->j->n_inst_members, m->j->cap_inst_members, mb)) return -1;
    }
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
        m->j->summary.coll_instances++;
        if (!instance_matched(m, a, b)) {
            for (size_t i = a; i < b; i++) m->j->ranks[m->recs[i].rank].unmatched_comm++;
            m->j->summary.unmatched_instances++;
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
            j->summary.partial_group = tc_strdup(gi->shown);
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

/* Stage 6, first: the matching groups into j->inst_groups (index = group id), each with its scope:
 * its process group's when known, else that of the ranks its instances hold (tc_scope_of_ranks). */
static int export_groups(matcher *m) {
    tc_job *j = m->j;
    j->inst_groups = calloc(m->n_ginfo ? m->n_ginfo : 1, sizeof *j->inst_groups);
    if (!j->inst_groups) return -1;
    j->n_inst_groups = j->cap_inst_groups = m->n_ginfo;
    uint32_t *seen = calloc(m->nr ? m->nr : 1, sizeof *seen); /* rank index -> last group id + 1 */
    int64_t *ranks = malloc((m->nr ? m->nr : 1) * sizeof *ranks);
    int rc = seen && ranks ? 0 : -1;
    size_t next = 0;
    for (size_t g = 0; g < m->n_ginfo && !rc; g++) {
        tc_inst_group *ig = &j->inst_groups[g];
        group_info *gi = &m->ginfo[g];
        ig->shown = gi->shown;
        gi->shown = NULL;
        ig->pg = gi->pg;
        ig->ranks_with = gi->ranks_with;
        ig->group_size = gi->group_size;
        size_t n = 0;
        for (; next < j->n_instances && j->instances[next].group == g; next++) { /* in group order (cmp_rec) */
            const tc_coll_instance *in = &j->instances[next];
            for (uint32_t k = 0; k < in->n; k++) {
                uint32_t r = j->inst_members[in->first + k].rank;
                if (seen[r] == g + 1) continue;
                seen[r] = (uint32_t)g + 1;
                ranks[n++] = j->ranks[r].rank;
            }
        }
        assert(next == j->n_instances || j->instances[next].group > g);
        rc = tc_scope_of_ranks(j, ranks, n, &ig->scope, NULL, NULL);
        if (!n) ig->scope = TC_SCOPE_UNKNOWN; /* no matched instance: nothing says where it runs */
        if (gi->pg != SIZE_MAX && j->groups[gi->pg].f.scope != TC_SCOPE_UNKNOWN) ig->scope = j->groups[gi->pg].f.scope;
    }
    free(seen);
    free(ranks);
    return rc;
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
        j->summary.has_coll_instances = true;
        number_repeats(&m);
        rc = align_groups(&m);
        if (rc == 0) rc = match_instances(&m);
        if (rc == 0) report_matching(&m);
        if (rc == 0) rc = emit_rows(&m);
        if (rc == 0) rc = export_groups(&m);
    }
    matcher_free(&m);
    return rc;
}
