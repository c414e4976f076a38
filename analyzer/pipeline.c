/* pipeline.c: point-to-point pairing and the pipeline bubble (pipeline.h, docs/definitions.md
 * "Pipeline bubble").
 *
 * Pairing: a P2P kernel with peer args is a send (Dst Rank: the receiver's global rank) or a recv
 * (Src Rank: the sender's). Sends and recvs are keyed (process group, sender, receiver, In msg
 * nelems) and the k-th send of a key pairs with its k-th recv, in start order: PyTorch writes Seq 1
 * on every P2P op, so the order within the pair is what pairs them. When a key's counts differ (a
 * kernel lost) its kernels are aligned by their ends instead (align_key). On the aligned clock (base + trace ns − the rank's clock offset; a rank the collectives
 * gave no offset gets one from its transfers, whose two kernels end together) the later start of
 * the two is the arrival; the earlier kernel waits from its start to the arrival.
 *
 * Stages: the ranks linked by transfers form chains (each rank linked to at most two others, no
 * cycle, every chain as long); a chain is one pipeline, oriented so that its earliest transfer runs
 * from a lower stage to a higher one. Or --pp N: stage = rank / (world / N), pipeline = rank mod
 * (world / N) (Megatron-LM's rank order, pipeline outermost).
 *
 * Figures per stage and ProfilerStep: the step window is the pipeline's (first GPU start to last GPU
 * end of that step over its stages, aligned); forward = |∪ compute kernels not launched under an
 * autograd::engine::evaluate_function: ...Backward... op|, backward = |∪ those launched under one|
 * less what forward covers; P2P wait = Σ arrival − own start, P2P transfer = Σ own end − arrival
 * over the stage's paired kernels of the step; bubble = window − forward − backward − P2P transfer
 * (0 at least). Each wait is charged to the stage whose kernel arrived later. */
#include "pipeline.h"
#include "intervals.h"
#include "steps.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

bool tc_p2p_has_peer(const tc_coll_args *c) { return c && (c->src_rank >= 0 || c->dst_rank >= 0); }

/* ---- pairing ----------------------------------------------------------------------------------- */

typedef struct {
    const char *pg;         /* process group name, "" none */
    int64_t src, dst;       /* global ranks of sender and receiver */
    int64_t nelems;         /* In msg nelems, -1 unknown */
    uint32_t rank, event;   /* index into j->ranks, GPU event */
} p2p_rec;

static int cmp_key(const p2p_rec *x, const p2p_rec *y) {
    int c = strcmp(x->pg, y->pg);
    if (c) return c;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
    return (x->nelems > y->nelems) - (x->nelems < y->nelems);
}

static int cmp_rec(const void *a, const void *b) {
    const p2p_rec *x = a, *y = b;
    int c = cmp_key(x, y);
    if (c) return c;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->event > y->event) - (x->event < y->event);
}

static const tc_trace *rank_trace(const tc_job *j, uint32_t r) { return &j->traces[j->ranks[r].input]; }

/* A time of rank r's trace on the aligned clock. */
static int64_t aligned_ns(const tc_job *j, uint32_t r, int64_t trace_ns) {
    const tc_rank_result *rr = &j->ranks[r];
    const tc_trace *t = rank_trace(j, r);
    return (t->has_base ? t->base_ns : 0) + trace_ns - (rr->has_clock_offset ? rr->clock_offset_ns : 0);
}

/* Kernel (r, e) of a transfer arriving at `arrival`: its wait (arrival − start, within its
 * duration) and transfer (the rest). */
static void kernel_split(const tc_job *j, uint32_t r, uint32_t e, int64_t arrival, int64_t *wait, int64_t *xfer) {
    const tc_gpu_event *g = &rank_trace(j, r)->gpu[e];
    int64_t w = arrival - aligned_ns(j, r, g->start_ns);
    if (w < 0) w = 0;
    if (w > g->dur_ns) w = g->dur_ns;
    *wait = w;
    *xfer = g->dur_ns - w;
}

static int add_transfer(tc_job *j, const p2p_rec *s, const p2p_rec *r) {
    tc_pp_transfer t = {s->rank, s->event, r->rank, r->event, 0};
    tc_pipeline_result *p = &j->pipeline;
    if (TC_PUSH(p->transfers, p->n_transfers, p->cap_transfers, t)) return -1;
    p->pairs++;
    return 0;
}

/* A kernel's end on its rank's own clock (base + trace ns), unaligned. */
static int64_t raw_end(const tc_job *j, uint32_t r, uint32_t e) {
    const tc_trace *t = rank_trace(j, r);
    return (t->has_base ? t->base_ns : 0) + t->gpu[e].start_ns + t->gpu[e].dur_ns;
}

/* A clock offset sample of a rank: its end − the peer's end + the peer's offset. */
typedef struct { uint32_t rank; int64_t v, peer_off; } off_sample;

static int cmp_sample(const void *a, const void *b) {
    const off_sample *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

/* Clock offsets of the ranks the collectives gave none, from their transfers: the two kernels of a
 * transfer end together (as a collective's), so a rank's offset is the median over its transfers
 * with ranks of known offset of its end − the peer's end + the peer's offset; rounds repeat along
 * the chain. A chain of ranks none of which has an offset known takes its first rank (the lowest
 * index in j->ranks of its first unaligned transfer) as its reference, 0. An offset within
 * half the samples' range of the median sample's peer's is no offset the ends can tell (ranks leave
 * a transfer up to the end spread apart): that peer's is taken. */
static int p2p_offsets(tc_job *j) {
    const tc_pipeline_result *p = &j->pipeline;
    off_sample *v = malloc((p->n_transfers ? p->n_transfers : 1) * sizeof *v);
    if (!v) return -1;
    for (size_t k = 1; k > 0;) {
        k = 0;
        for (size_t i = 0; i < p->n_transfers; i++) {
            const tc_pp_transfer *t = &p->transfers[i];
            const tc_rank_result *rs = &j->ranks[t->send_rank], *rr = &j->ranks[t->recv_rank];
            if (rs->has_clock_offset == rr->has_clock_offset) continue; /* one side known, one not */
            int64_t d = raw_end(j, t->send_rank, t->send_event) - raw_end(j, t->recv_rank, t->recv_event);
            v[k++] = rs->has_clock_offset ? (off_sample){t->recv_rank, rs->clock_offset_ns - d, rs->clock_offset_ns}
                                          : (off_sample){t->send_rank, rr->clock_offset_ns + d, rr->clock_offset_ns};
        }
        if (!k) { /* a chain without a known offset: its first rank is its reference */
            for (size_t i = 0; i < p->n_transfers && !k; i++) {
                const tc_pp_transfer *t = &p->transfers[i];
                if (j->ranks[t->send_rank].has_clock_offset || j->ranks[t->recv_rank].has_clock_offset) continue;
                uint32_t first = t->send_rank < t->recv_rank ? t->send_rank : t->recv_rank;
                j->ranks[first].has_clock_offset = true;
                j->ranks[first].clock_offset_ns = 0;
                k = 1; /* go on: another round from it */
            }
            continue;
        }
        tc_sort(v, k, sizeof *v, cmp_sample);
        for (size_t a = 0, b; a < k; a = b) {
            for (b = a; b < k && v[b].rank == v[a].rank;) b++;
            const off_sample *mid = &v[a + (b - a) / 2];
            bool noise = llabs(mid->v - mid->peer_off) <= (v[b - 1].v - v[a].v) / 2;
            j->ranks[v[a].rank].has_clock_offset = true;
            j->ranks[v[a].rank].clock_offset_ns = noise ? mid->peer_off : mid->v;
        }
    }
    free(v);
    return 0;
}

/* Each transfer's arrival on the aligned clock, and its kernels' wait heads. */
static void arrivals(tc_job *j) {
    for (size_t i = 0; i < j->pipeline.n_transfers; i++) {
        tc_pp_transfer *t = &j->pipeline.transfers[i];
        int64_t as = aligned_ns(j, t->send_rank, rank_trace(j, t->send_rank)->gpu[t->send_event].start_ns);
        int64_t ar = aligned_ns(j, t->recv_rank, rank_trace(j, t->recv_rank)->gpu[t->recv_event].start_ns);
        t->arrival_ns = as > ar ? as : ar;
        const uint32_t rk[2] = {t->send_rank, t->recv_rank}, ev[2] = {t->send_event, t->recv_event};
        for (int k = 0; k < 2; k++) {
            int64_t w, x;
            kernel_split(j, rk[k], ev[k], t->arrival_ns, &w, &x);
            if (j->ranks[rk[k]].wait_ns) j->ranks[rk[k]].wait_ns[ev[k]] = w;
        }
    }
}

/* Whether a comm kernel without peer args is point-to-point: its collective is send or recv, or
 * (no args) its name says SendRecv. */
static bool is_p2p_without_peer(const tc_trace *t, const tc_gpu_event *g, const tc_coll_args *c) {
    if (c) {
        const char *n = tc_trace_str(t, c->coll_name);
        return strcmp(n, "send") == 0 || strcmp(n, "recv") == 0;
    }
    return strstr(tc_trace_str(t, g->name), "SendRecv") != NULL;
}

/* The P2P kernels with peer args of every rank into sends and recvs. */
static int collect(tc_job *j, p2p_rec **s, size_t *ns, p2p_rec **rv, size_t *nr) {
    size_t cs = 0, cr = 0;
    for (uint32_t r = 0; r < j->n_ranks; r++) {
        const tc_trace *t = rank_trace(j, r);
        for (size_t e = 0; e < t->n_gpu; e++) {
            const tc_gpu_event *g = &t->gpu[e];
            if (!g->is_comm || g->kind != TC_GPU_KERNEL) continue;
            const tc_coll_args *c = g->coll != TC_NONE ? &t->colls[g->coll] : NULL;
            if (!tc_p2p_has_peer(c)) {
                if (is_p2p_without_peer(t, g, c)) j->pipeline.no_peer_args++;
                continue;
            }
            bool send = c->dst_rank >= 0;
            int64_t me = j->ranks[r].rank;
            p2p_rec x = {c->pg_name != TC_NONE ? tc_trace_str(t, c->pg_name) : "", send ? me : c->src_rank,
                         send ? c->dst_rank : me, c->in_nelems, r, (uint32_t)e};
            if (send ? TC_PUSH(*s, *ns, cs, x) : TC_PUSH(*rv, *nr, cr, x)) return -1;
        }
    }
    return 0;
}

static void unpaired(tc_job *j, const p2p_rec *x) {
    j->pipeline.unpaired++;
    j->ranks[x->rank].unmatched_comm++;
}

/* ---- one pair's kernels when some are lost: aligned by their ends -------------------------------- */

static int64_t rec_end(const tc_job *j, const p2p_rec *x) { return raw_end(j, x->rank, x->event); }

/* Sends s[0, ns) and recvs r[0, nr) of one key, each in order, under clock offset o (a recv's end −
 * its send's): walked in order, a send and a recv pair when their ends agree within tol, else the
 * one that ends first has no partner. pair[i]: the recv of send i, -1 none. Returns the pairs. */
static size_t walk_ends(const tc_job *j, const p2p_rec *s, size_t ns, const p2p_rec *r, size_t nr, int64_t o,
                        int64_t tol, long *pair) {
    size_t i = 0, k = 0, agree = 0;
    for (size_t q = 0; q < ns; q++) pair[q] = -1;
    while (i < ns && k < nr) {
        int64_t d = rec_end(j, &r[k]) - o - rec_end(j, &s[i]);
        if (llabs(d) <= tol) { pair[i++] = (long)k++; agree++; }
        else if (d < 0) k++;
        else i++;
    }
    return agree;
}

/* The smallest gap between consecutive ends of a list (INT64_MAX with one kernel). */
static int64_t min_gap(const tc_job *j, const p2p_rec *v, size_t n) {
    int64_t g = INT64_MAX;
    for (size_t i = 1; i < n; i++) {
        int64_t d = llabs(rec_end(j, &v[i]) - rec_end(j, &v[i - 1]));
        if (d < g) g = d;
    }
    return g;
}

/* Sends and recvs of one key whose counts differ (a kernel lost): the two kernels of a transfer end
 * together, so under the right clock offset the ends agree wherever kernels are missing. The
 * candidate offsets are the medians of the end differences with the lists shifted by −2..2; ends
 * agree within a quarter of the smallest gap between consecutive ends; the candidate pairing most
 * wins (the smaller offset among equals). */
static int align_key(tc_job *j, const p2p_rec *s, size_t ns, const p2p_rec *r, size_t nr) {
    long *pair = malloc((ns ? ns : 1) * sizeof *pair), *best = malloc((ns ? ns : 1) * sizeof *best);
    int64_t *d = malloc((ns ? ns : 1) * sizeof *d);
    int rc = pair && best && d ? 0 : -1;
    int64_t gs = min_gap(j, s, ns), gr = min_gap(j, r, nr), tol = (gs < gr ? gs : gr) / 4, best_o = 0;
    if (tol == INT64_MAX / 4) tol = INT64_MAX; /* one kernel each side: any offset pairs them */
    size_t most = 0;
    for (int sh = -2; rc == 0 && sh <= 2; sh++) {
        size_t q = 0;
        for (size_t i = 0; i < ns; i++)
            if ((long)i + sh >= 0 && (size_t)((long)i + sh) < nr) d[q++] = rec_end(j, &r[(long)i + sh]) - rec_end(j, &s[i]);
        if (!q) continue;
        tc_sort_i64(d, q);
        int64_t o = d[q / 2];
        size_t n = walk_ends(j, s, ns, r, nr, o, tol, pair);
        if (n > most || (n == most && n > 0 && llabs(o) < llabs(best_o))) {
            most = n;
            best_o = o;
            memcpy(best, pair, ns * sizeof *pair);
        }
    }
    bool *used = rc == 0 ? calloc(nr ? nr : 1, sizeof *used) : NULL;
    if (rc == 0 && !used) rc = -1;
    for (size_t i = 0; rc == 0 && i < ns; i++) {
        if (most && best[i] >= 0) { used[best[i]] = true; rc = add_transfer(j, &s[i], &r[best[i]]); }
        else unpaired(j, &s[i]);
    }
    for (size_t k = 0; rc == 0 && k < nr; k++) if (!used[k]) unpaired(j, &r[k]);
    free(pair); free(best); free(d); free(used);
    return rc;
}

/* One key's sends and recvs: in order when their counts agree, else aligned by their ends. */
static int pair_key(tc_job *j, const p2p_rec *s, size_t ns, const p2p_rec *r, size_t nr) {
    if (ns != nr) return align_key(j, s, ns, r, nr);
    int rc = 0;
    for (size_t i = 0; i < ns && !rc; i++) rc = add_transfer(j, &s[i], &r[i]);
    return rc;
}

int tc_p2p_pair(tc_job *j) {
    tc_pipeline_free(&j->pipeline);
    j->pipeline.slowest_stage = j->pipeline.slowest_rank = -1; /* none until tc_pipeline finds them */
    p2p_rec *s = NULL, *rv = NULL;
    size_t ns = 0, nr = 0;
    int rc = collect(j, &s, &ns, &rv, &nr);
    if (rc == 0) {
        tc_sort(s, ns, sizeof *s, cmp_rec);
        tc_sort(rv, nr, sizeof *rv, cmp_rec);
    }
    for (size_t a = 0, b = 0; rc == 0 && (a < ns || b < nr);) {
        int c = a == ns ? 1 : b == nr ? -1 : cmp_key(&s[a], &rv[b]);
        if (c < 0) { unpaired(j, &s[a++]); continue; }
        if (c > 0) { unpaired(j, &rv[b++]); continue; }
        size_t a2 = a, b2 = b;
        while (a2 < ns && cmp_key(&s[a2], &s[a]) == 0) a2++;
        while (b2 < nr && cmp_key(&rv[b2], &rv[b]) == 0) b2++;
        rc = pair_key(j, s + a, a2 - a, rv + b, b2 - b);
        a = a2;
        b = b2;
    }
    free(s);
    free(rv);
    if (rc == 0) rc = p2p_offsets(j);
    if (rc == 0) arrivals(j);
    return rc;
}

/* ---- stages ------------------------------------------------------------------------------------ */

/* The stage layout: slot[pipeline * n_stages + stage] = rank index, UINT32_MAX when not an input. */
typedef struct {
    uint32_t *slot;
    uint32_t n_pipelines, n_stages;
} layout;

/* Links a and b in the neighbour table (at most two each); false when that breaks a chain. */
static bool link_ranks(uint32_t (*nb)[2], uint8_t *deg, uint32_t a, uint32_t b) {
    if (a == b) return false;
    for (int k = 0; k < deg[a]; k++) if (nb[a][k] == b) return true;
    if (deg[a] == 2 || deg[b] == 2) return false;
    nb[a][deg[a]++] = b;
    nb[b][deg[b]++] = a;
    return true;
}

/* Walks the chain from endpoint r into path[]; its length. */
static uint32_t walk_chain(uint32_t (*nb)[2], const uint8_t *deg, uint32_t r, bool *seen, uint32_t *path) {
    uint32_t n = 0, prev = UINT32_MAX, cur = r;
    for (;;) {
        seen[cur] = true;
        path[n++] = cur;
        uint32_t next = UINT32_MAX;
        for (int k = 0; k < deg[cur]; k++) if (nb[cur][k] != prev) next = nb[cur][k];
        if (next == UINT32_MAX || seen[next]) return n;
        prev = cur;
        cur = next;
    }
}

/* Chains whose earliest transfer runs against the path's order are reversed; pipelines ordered by
 * the global rank of their first stage. */
static void orient_chains(const tc_job *j, layout *l, const uint32_t *pos) {
    uint32_t S = l->n_stages;
    for (uint32_t p = 0; p < l->n_pipelines; p++) {
        uint32_t *path = &l->slot[(size_t)p * S];
        int64_t first = INT64_MAX;
        bool reverse = false;
        for (size_t i = 0; i < j->pipeline.n_transfers; i++) {
            const tc_pp_transfer *t = &j->pipeline.transfers[i];
            if (pos[t->send_rank] / S != p || t->arrival_ns >= first) continue;
            first = t->arrival_ns;
            reverse = pos[t->send_rank] % S > pos[t->recv_rank] % S;
        }
        for (uint32_t a = 0; reverse && a < S / 2; a++) {
            uint32_t x = path[a];
            path[a] = path[S - 1 - a];
            path[S - 1 - a] = x;
        }
    }
    for (uint32_t p = 1; p < l->n_pipelines; p++) /* insertion sort by the first stage's rank */
        for (uint32_t q = p; q > 0 && j->ranks[l->slot[(size_t)q * S]].rank < j->ranks[l->slot[(size_t)(q - 1) * S]].rank; q--)
            for (uint32_t k = 0; k < S; k++) {
                uint32_t x = l->slot[(size_t)q * S + k];
                l->slot[(size_t)q * S + k] = l->slot[(size_t)(q - 1) * S + k];
                l->slot[(size_t)(q - 1) * S + k] = x;
            }
}

/* Stages from the transfers' pattern; l->n_pipelines 0 when they form no pipeline. */
static int layout_from_pattern(const tc_job *j, layout *l) {
    size_t n = j->n_ranks;
    uint32_t (*nb)[2] = malloc((n ? n : 1) * sizeof *nb);
    uint8_t *deg = calloc(n ? n : 1, 1);
    bool *seen = calloc(n ? n : 1, sizeof *seen);
    uint32_t *pos = malloc((n ? n : 1) * sizeof *pos);
    l->slot = malloc((n ? n : 1) * sizeof *l->slot);
    if (!nb || !deg || !seen || !pos || !l->slot) { free(nb); free(deg); free(seen); free(pos); return -1; }
    bool ok = j->pipeline.n_transfers > 0;
    for (size_t i = 0; ok && i < j->pipeline.n_transfers; i++)
        ok = link_ranks(nb, deg, j->pipeline.transfers[i].send_rank, j->pipeline.transfers[i].recv_rank);
    size_t used = 0;
    for (uint32_t r = 0; ok && r < n; r++) {
        if (deg[r] != 1 || seen[r]) continue;
        uint32_t len = walk_chain(nb, deg, r, seen, &l->slot[used]);
        if (l->n_stages && len != l->n_stages) ok = false;
        l->n_stages = len;
        for (uint32_t k = 0; k < len; k++) pos[l->slot[used + k]] = (uint32_t)used + k;
        used += len;
        l->n_pipelines++;
    }
    for (uint32_t r = 0; ok && r < n; r++) if (deg[r] && !seen[r]) ok = false; /* a cycle */
    if (ok) orient_chains(j, l, pos);
    else l->n_pipelines = l->n_stages = 0;
    free(nb); free(deg); free(seen); free(pos);
    return 0;
}

/* --pp N: stage = rank / (world / N), pipeline = rank mod (world / N). */
static int layout_from_option(const tc_job *j, int pp, layout *l) {
    int64_t world = 0;
    for (size_t r = 0; r < j->n_ranks; r++) {
        if (j->ranks[r].rank + 1 > world) world = j->ranks[r].rank + 1;
        if (rank_trace(j, (uint32_t)r)->world_size > world) world = rank_trace(j, (uint32_t)r)->world_size;
    }
    if (pp < 1 || world % pp != 0 || world / pp > UINT32_MAX) return 0;
    l->n_stages = (uint32_t)pp;
    l->n_pipelines = (uint32_t)(world / pp);
    size_t slots = (size_t)l->n_stages * l->n_pipelines;
    l->slot = malloc(slots * sizeof *l->slot);
    if (!l->slot) return -1;
    for (size_t i = 0; i < slots; i++) l->slot[i] = UINT32_MAX;
    for (uint32_t r = 0; r < j->n_ranks; r++) {
        int64_t g = j->ranks[r].rank;
        if (g < 0) continue;
        l->slot[(size_t)(g % l->n_pipelines) * l->n_stages + (size_t)(g / l->n_pipelines)] = r;
    }
    return 0;
}

/* ---- figures ----------------------------------------------------------------------------------- */

/* A backward autograd op's span on a CPU thread; maxend: the latest end of its thread's spans up to it. */
typedef struct { uint32_t thread; int64_t start, end, maxend; } bspan;

static int cmp_bspan(const void *a, const void *b) {
    const bspan *x = a, *y = b;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

#define AUTOGRAD_PREFIX "autograd::engine::evaluate_function: "

static int backward_spans(const tc_trace *t, bspan **out, size_t *n) {
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < t->n_host; i++) {
        const tc_host_span *h = &t->host[i];
        const char *name = tc_trace_str(t, h->name);
        if (strncmp(name, AUTOGRAD_PREFIX, sizeof AUTOGRAD_PREFIX - 1) != 0 || !strstr(name, "Backward")) continue;
        bspan b = {h->thread, h->ts_ns, h->ts_ns + h->dur_ns, 0};
        if (TC_PUSH(*out, *n, cap, b)) return -1;
    }
    tc_sort(*out, *n, sizeof **out, cmp_bspan);
    for (size_t i = 0; i < *n; i++) {
        bspan *b = &(*out)[i];
        b->maxend = i > 0 && (*out)[i - 1].thread == b->thread && (*out)[i - 1].maxend > b->end ? (*out)[i - 1].maxend : b->end;
    }
    return 0;
}

/* Whether kernel g was launched under a backward autograd op: its launch call (by correlation)
 * starts inside one of those spans on its thread. */
static bool launched_backward(const tc_trace *t, const bspan *b, size_t n, const tc_gpu_event *g) {
    if (!n || g->correlation == TC_NONE) return false;
    const tc_launch *l = tc_trace_find_launch(t, g->correlation);
    if (!l) return false;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b[mid].thread < l->thread || (b[mid].thread == l->thread && b[mid].start <= l->ts_ns)) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 && b[lo - 1].thread == l->thread && b[lo - 1].maxend >= l->ts_ns;
}

/* Per GPU event of one rank: its P2P wait and transfer (-1: not a paired kernel) and the wait of
 * its partner charged to it. */
typedef struct { int64_t wait, xfer, charged; } p2p_of;

/* One stage's step: its aligned first start and last end, and its figures but window and bubble. */
typedef struct { int64_t first, last; tc_pp_figures f; } stage_step;

typedef struct {
    tc_ivset fwd, bwd;
    bspan *bs; size_t n_bs;
    p2p_of *p2p;
} stage_scratch;

/* The figures of one step of rank r (events ev[0, n), or all when ev is NULL). */
static int step_figures(tc_job *j, uint32_t r, stage_scratch *x, const uint32_t *ev, size_t n, stage_step *out) {
    const tc_trace *t = rank_trace(j, r);
    tc_ivset_clear(&x->fwd);
    tc_ivset_clear(&x->bwd);
    out->first = INT64_MAX;
    out->last = INT64_MIN;
    int rc = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        uint32_t e = ev ? ev[k] : (uint32_t)k;
        const tc_gpu_event *g = &t->gpu[e];
        int64_t s = aligned_ns(j, r, g->start_ns), end = s + g->dur_ns;
        if (s < out->first) out->first = s;
        if (end > out->last) out->last = end;
        if (x->p2p[e].wait >= 0) {
            out->f.p2p_wait_ns += x->p2p[e].wait;
            out->f.p2p_transfer_ns += x->p2p[e].xfer;
        }
        out->f.charged_wait_ns += x->p2p[e].charged;
        if (g->kind != TC_GPU_KERNEL || g->is_comm) continue;
        rc = tc_ivset_add(launched_backward(t, x->bs, x->n_bs, g) ? &x->bwd : &x->fwd, s, end);
    }
    tc_ivset_normalize(&x->fwd);
    tc_ivset_normalize(&x->bwd);
    out->f.forward_ns = tc_ivset_length(&x->fwd);
    out->f.backward_ns = tc_ivset_subtract_length(&x->bwd, &x->fwd);
    return rc;
}

/* Each rank's P2P kernels' waits, transfers and charged waits into p2p (rank index -> array). */
static void fill_p2p(const tc_job *j, p2p_of **p2p) {
    for (size_t i = 0; i < j->pipeline.n_transfers; i++) {
        const tc_pp_transfer *t = &j->pipeline.transfers[i];
        int64_t ws, xs, wr, xr;
        kernel_split(j, t->send_rank, t->send_event, t->arrival_ns, &ws, &xs);
        kernel_split(j, t->recv_rank, t->recv_event, t->arrival_ns, &wr, &xr);
        if (p2p[t->send_rank]) p2p[t->send_rank][t->send_event] = (p2p_of){ws, xs, p2p[t->send_rank][t->send_event].charged};
        if (p2p[t->recv_rank]) p2p[t->recv_rank][t->recv_event] = (p2p_of){wr, xr, p2p[t->recv_rank][t->recv_event].charged};
        /* the earlier kernel's wait goes to the one that arrived later (its wait is 0) */
        if (ws > 0 && p2p[t->recv_rank]) p2p[t->recv_rank][t->recv_event].charged += ws;
        if (wr > 0 && p2p[t->send_rank]) p2p[t->send_rank][t->send_event].charged += wr;
    }
}

/* One stage's steps (its ProfilerSteps, or one step -1 of all its events) into *out. */
static int stage_steps(tc_job *j, uint32_t r, stage_scratch *x, stage_step **out, size_t *n_out) {
    tc_trace *t = &j->traces[j->ranks[r].input];
    tc_step_map m;
    if (tc_steps_assign(t, &m)) return -1;
    size_t n = m.n_steps ? m.n_steps : 1;
    *out = calloc(n, sizeof **out);
    int rc = *out ? 0 : -1;
    for (size_t s = 0; s < n && !rc; s++) {
        (*out)[s].f.step = m.n_steps ? m.steps[s].number : -1;
        rc = step_figures(j, r, x, m.n_steps ? m.steps[s].events : NULL, m.n_steps ? m.steps[s].n_events : t->n_gpu,
                          &(*out)[s]);
    }
    *n_out = n;
    tc_step_map_free(&m);
    return rc;
}

static void add_figures(tc_pp_figures *sum, const tc_pp_figures *f) {
    sum->window_ns += f->window_ns;
    sum->forward_ns += f->forward_ns;
    sum->backward_ns += f->backward_ns;
    sum->bubble_ns += f->bubble_ns;
    sum->p2p_wait_ns += f->p2p_wait_ns;
    sum->p2p_transfer_ns += f->p2p_transfer_ns;
    sum->charged_wait_ns += f->charged_wait_ns;
}

/* Pipeline p: each stage's steps, the step windows over its stages, the rows into j->pipeline. */
static int pipeline_rows(tc_job *j, const layout *l, uint32_t p, p2p_of **p2p) {
    uint32_t S = l->n_stages;
    stage_step **st = calloc(S, sizeof *st);
    size_t *ns = calloc(S, sizeof *ns);
    stage_scratch x;
    memset(&x, 0, sizeof x);
    tc_ivset_init(&x.fwd);
    tc_ivset_init(&x.bwd);
    int rc = st && ns ? 0 : -1;
    for (uint32_t s = 0; s < S && !rc; s++) {
        uint32_t r = l->slot[(size_t)p * S + s];
        if (r == UINT32_MAX) continue;
        x.p2p = p2p[r];
        free(x.bs);
        rc = backward_spans(rank_trace(j, r), &x.bs, &x.n_bs);
        if (!rc) rc = stage_steps(j, r, &x, &st[s], &ns[s]);
    }
    tc_pipeline_result *pr = &j->pipeline;
    for (uint32_t s = 0; s < S && !rc; s++) {
        uint32_t r = l->slot[(size_t)p * S + s];
        if (r == UINT32_MAX) continue;
        tc_pp_stage row = {p, s, j->ranks[r].rank, {-1, 0, 0, 0, 0, 0, 0, 0}, pr->n_steps, ns[s]};
        for (size_t k = 0; k < ns[s] && !rc; k++) {
            stage_step *me = &st[s][k];
            int64_t first = me->first, last = me->last; /* the step's window over the stages */
            for (uint32_t o = 0; o < S; o++)
                for (size_t q = 0; st[o] && q < ns[o]; q++)
                    if (st[o][q].f.step == me->f.step) {
                        if (st[o][q].first < first) first = st[o][q].first;
                        if (st[o][q].last > last) last = st[o][q].last;
                    }
            me->f.window_ns = last > first ? last - first : 0;
            int64_t b = me->f.window_ns - me->f.forward_ns - me->f.backward_ns - me->f.p2p_transfer_ns;
            me->f.bubble_ns = b > 0 ? b : 0;
            add_figures(&row.total, &me->f);
            rc = TC_PUSH(pr->steps, pr->n_steps, pr->cap_steps, me->f);
        }
        if (!rc) rc = TC_PUSH(pr->stages, pr->n_stages_rows, pr->cap_stages, row);
    }
    for (uint32_t s = 0; st && s < S; s++) free(st[s]);
    free(st);
    free(ns);
    free(x.bs);
    tc_ivset_free(&x.fwd);
    tc_ivset_free(&x.bwd);
    return rc;
}

/* The slowest stage (charged most, summed over pipelines), its rank, and the job's sums. */
static int finish(tc_pipeline_result *p) {
    int64_t *per = calloc(p->n_stages ? p->n_stages : 1, sizeof *per);
    if (!per) return -1;
    for (size_t i = 0; i < p->n_stages_rows; i++) {
        const tc_pp_stage *s = &p->stages[i];
        per[s->stage] += s->total.charged_wait_ns;
        p->p2p_wait_ns += s->total.p2p_wait_ns;
        p->bubble_ns += s->total.bubble_ns;
        p->window_ns += s->total.window_ns;
    }
    p->slowest_stage = p->slowest_rank = -1;
    int64_t best = 0, best_rank = -1;
    for (uint32_t s = 0; s < p->n_stages; s++)
        if (per[s] > best) { best = per[s]; p->slowest_stage = s; }
    best = -1;
    for (size_t i = 0; p->slowest_stage >= 0 && i < p->n_stages_rows; i++) {
        const tc_pp_stage *s = &p->stages[i];
        if (s->stage == (uint32_t)p->slowest_stage && s->total.charged_wait_ns > best) {
            best = s->total.charged_wait_ns;
            best_rank = s->rank;
        }
    }
    p->slowest_rank = best_rank;
    p->bubble_share = p->window_ns > 0 ? (double)p->bubble_ns / (double)p->window_ns : 0;
    free(per);
    return 0;
}

/* An MPI skeleton holds only its comm kernels: no compute to split. */
static bool has_skeleton(const tc_job *j) {
    for (size_t i = 0; i < j->n_traces; i++) if (j->traces[i].n_gpu_parsed) return true;
    return false;
}

int tc_pipeline(tc_job *j, int pp) {
    tc_pipeline_result *p = &j->pipeline;
    p->present = false;
    p->slowest_stage = p->slowest_rank = -1;
    if ((!p->n_transfers && pp <= 0) || has_skeleton(j)) return 0;
    layout l = {NULL, 0, 0};
    int rc = pp > 0 ? layout_from_option(j, pp, &l) : layout_from_pattern(j, &l);
    if (rc || l.n_pipelines == 0 || l.n_stages < 2) { free(l.slot); return rc; }
    p2p_of **p2p = calloc(j->n_ranks ? j->n_ranks : 1, sizeof *p2p);
    rc = p2p ? 0 : -1;
    for (size_t i = 0; !rc && i < (size_t)l.n_pipelines * l.n_stages; i++) {
        uint32_t r = l.slot[i];
        if (r == UINT32_MAX) continue;
        size_t n = rank_trace(j, r)->n_gpu;
        p2p[r] = malloc((n ? n : 1) * sizeof **p2p);
        if (!p2p[r]) { rc = -1; break; }
        for (size_t e = 0; e < n; e++) p2p[r][e] = (p2p_of){-1, 0, 0};
    }
    if (!rc) fill_p2p(j, p2p);
    p->n_stages = l.n_stages;
    p->n_pipelines = l.n_pipelines;
    p->source = pp > 0 ? TC_PP_FROM_OPTION : TC_PP_FROM_PATTERN;
    for (uint32_t q = 0; !rc && q < l.n_pipelines; q++) rc = pipeline_rows(j, &l, q, p2p);
    if (!rc) rc = finish(p);
    p->present = rc == 0 && p->n_stages_rows > 0;
    for (size_t r = 0; p2p && r < j->n_ranks; r++) free(p2p[r]);
    free(p2p);
    free(l.slot);
    return rc;
}
