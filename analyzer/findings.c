/* findings.c: the straggler, the verdict with its reasons (the critical path's among them), the
 * actions, network efficiency and the timeline's ranks and step (see findings.h). Every rule that turns figures into a conclusion
 * lives here; the words for each code are in reports/findings_text.c. */
#include "findings.h"
#include "host_wait.h"
#include "base/util.h"
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The straggler is the rank whose late arrivals cause most of the others' waiting. It stands out
 * when it caused at least clamp(2/n, 0.5, 0.75) of all the wait in matched collectives (a fair
 * share is 1/n) and that wait, summed over the other ranks, is at least 1% of its window per step
 * (the rule reports/findings_text.c words: tc_straggler_rule_text). Returns its index in j->ranks,
 * SIZE_MAX when none stands out; *oom when the median could not be computed. */
static size_t decide_straggler(tc_job *j, bool *oom) {
    tc_summary *sm = &j->summary;
    size_t n = j->n_ranks;
    if (n < 2) return SIZE_MAX;
    int64_t total = 0, best = 0;
    size_t who = SIZE_MAX;
    for (size_t r = 0; r < n; r++) {
        total += j->ranks[r].caused_wait_ns;
        if (j->ranks[r].caused_wait_ns > best) { best = j->ranks[r].caused_wait_ns; who = r; }
    }
    if (who == SIZE_MAX || total <= 0) return SIZE_MAX;
    double need = TC_STRAGGLER_SHARE_PER_RANKS / (double)n;
    if (need < TC_STRAGGLER_SHARE_MIN) need = TC_STRAGGLER_SHARE_MIN;
    if (need > TC_STRAGGLER_SHARE_MAX) need = TC_STRAGGLER_SHARE_MAX;
    tc_rank_result *rr = &j->ranks[who];
    uint64_t steps = rr->steps_total ? rr->steps_total : 1;
    int64_t caused_per_step = rr->caused_wait_ns_per_step;
    int64_t window_per_step = rr->b.window_ns / (int64_t)steps;
    double caused_share = (double)best / (double)total;
    if (caused_share < need || caused_per_step * TC_STRAGGLER_WAIT_PER_WINDOW < window_per_step) return SIZE_MAX;
    double *comp = malloc(n * sizeof *comp);
    if (!comp) { *oom = true; return SIZE_MAX; }
    for (size_t r = 0; r < n; r++) {
        uint64_t st = j->ranks[r].steps_total ? j->ranks[r].steps_total : 1;
        comp[r] = (double)j->ranks[r].b.compute_ns / (double)st;
    }
    sm->has_straggler = true;
    sm->straggler.rank = rr->rank;
    sm->straggler.caused_wait_share = caused_share;
    sm->straggler.last_arrival_share = rr->last_arrival_share;
    sm->straggler.caused_wait_ns_per_step = caused_per_step;
    sm->straggler.waiting_ranks = n - 1;
    sm->straggler.wait_per_rank_ns_per_step = rr->caused_wait_per_rank_ns_per_step;
    sm->straggler.median_compute_ns_per_step = (int64_t)tc_median(comp, n);
    sm->straggler.compute_ns_per_step = rr->b.compute_ns / (int64_t)steps;
    free(comp);
    return who;
}

/* The window the verdict, the actions and the network efficiency judge (docs/definitions.md "Step
 * window"): the step window when the job has steps, else the GPU window. */
static tc_window_figures judged(const tc_summary *sm) {
    if (sm->step.has) return sm->step;
    tc_window_figures w = {.has = true, .b = sm->b, .compute = sm->share_compute, .exposed_comm = sm->share_exposed_comm,
                           .exposed_transfer = sm->share_exposed_transfer, .exposed_wait = sm->share_exposed_wait,
                           .memory_exposed = sm->share_memory_exposed, .memory_host_exposed = sm->share_memory_host_exposed,
                           .memory_device_exposed = sm->share_memory_device_exposed, .idle = sm->share_idle,
                           .causes = sm->idle};
    memcpy(w.cause_share, sm->idle_cause_share, sizeof w.cause_share);
    return w;
}

static void add_reason(tc_findings *f, tc_reason r) {
    assert(f->n_reasons < TC_MAX_REASONS);
    f->reasons[f->n_reasons++] = r;
}

static double share_of(int64_t part, int64_t whole) { return whole > 0 ? (double)part / (double)whole : 0; }

/* A rank's share of its own window lost to a class. */
static double rank_class_share(const tc_rank_result *rr, tc_loss_class c) {
    const tc_breakdown *b = rr->has_step_window ? &rr->step_b : &rr->b; /* the window the job is judged on */
    return c == TC_LOSS_COMM ? share_of(b->exposed_comm_ns, b->window_ns)
                             : share_of(b->idle_ns + b->memory_host_exposed_ns, b->window_ns);
}

/* The rank whose share of a loss class is furthest above the job's, when by more than the
 * threshold: a WORST_RANK reason (both classes looked at; the larger difference kept). */
static void worst_rank(tc_job *j, const tc_reason *base) {
    tc_reason best = *base;
    double gap = base->threshold;
    bool found = false;
    for (int c = TC_LOSS_COMM; c <= TC_LOSS_HOST; c++) {
        double mean = c == TC_LOSS_COMM ? base->comm : base->host;
        for (size_t r = 0; r < j->n_ranks; r++) {
            double s = rank_class_share(&j->ranks[r], (tc_loss_class)c);
            if (s - mean <= gap) continue;
            gap = s - mean;
            found = true;
            best.code = TC_REASON_WORST_RANK;
            best.loss = (tc_loss_class)c;
            best.rank = j->ranks[r].rank;
            best.rank_share = s;
        }
    }
    if (found) add_reason(&j->findings, best);
}

/* The row of process groups (tc_job.group_rows) with the most exposed transfer (exposed comm when
 * wait and transfer are not split), SIZE_MAX when no row has any. */
static size_t fabric_row(const tc_job *j) {
    size_t best = SIZE_MAX;
    int64_t most = 0;
    for (size_t k = 0; k < j->n_group_rows; k++) {
        const tc_group_figures *f = &j->group_rows[k].f;
        int64_t v = f->split_known ? f->sums.exposed_transfer_ns : f->sums.exposed_comm_ns;
        if (v > most) { most = v; best = k; }
    }
    return best;
}

/* NCCL's figures of row k's groups summed into e: the mix with the most joined plugin records (without
 * a plugin trace, joined Inspector v4.2+ records naming theirs), NCCL's
 * busbw over their joined Inspector records, the proxy shares weighted by proxy time, the most nodes. */
static void nccl_row_sums(const tc_job *j, size_t k, tc_nccl_evidence *e) {
    const tc_nccl_result *n = &j->nccl;
    int64_t mix[TC_NCCL_MAX_MIXES] = {0}, ins[TC_NCCL_MAX_MIXES] = {0}, ins_records = 0;
    double bus_bytes = 0, exec_us = 0, proxy_ns = 0, gpu = 0, peer = 0, net = 0;
    for (size_t g = 0; g < j->n_groups; g++) {
        const tc_nccl_group *ng = &n->groups[g];
        if (j->groups[g].row != k || !ng->has) continue;
        e->has = e->has || ng->c.joined > 0 || ng->plugin_joined > 0;
        for (size_t m = 0; m < n->log.n_mixes; m++) {
            mix[m] += ng->mix_records[m];
            e->plugin_records += ng->mix_records[m];
            ins[m] += ng->inspector_mix_records[m];
            ins_records += ng->inspector_mix_records[m];
        }
        bus_bytes += ng->bus_bytes;
        exec_us += ng->exec_us;
        if (ng->has_proxy && ng->proxy_ns > 0) {
            e->has_proxy = true;
            proxy_ns += ng->proxy_ns;
            gpu += ng->proxy_gpu_wait_share * ng->proxy_ns;
            peer += ng->proxy_peer_wait_share * ng->proxy_ns;
            net += ng->proxy_net_share * ng->proxy_ns;
        }
        if (j->groups[g].has_nodes && j->groups[g].nodes > e->nodes) e->nodes = j->groups[g].nodes;
    }
    if (!e->plugin_records && ins_records) { /* no plugin trace: the Inspector's own (v4.2+) choices */
        memcpy(mix, ins, sizeof mix);
        e->plugin_records = ins_records;
    }
    size_t best = SIZE_MAX;
    for (size_t m = 0; m < n->log.n_mixes; m++) if (mix[m] && (best == SIZE_MAX || mix[m] > mix[best])) best = m;
    if ((e->has_mix = best != SIZE_MAX)) {
        memcpy(e->algorithm, n->log.mixes[best].algorithm, sizeof e->algorithm);
        memcpy(e->protocol, n->log.mixes[best].protocol, sizeof e->protocol);
        e->channels = n->log.mixes[best].channels;
        e->mix_records = mix[best];
    }
    if ((e->has_busbw = exec_us > 0)) e->busbw_GBps = bus_bytes / exec_us / 1e3;
    if (e->has_proxy) {
        e->proxy_gpu_wait_share = gpu / proxy_ns;
        e->proxy_peer_wait_share = peer / proxy_ns;
        e->proxy_net_share = net / proxy_ns;
    }
}

/* Adds setting s = value (text) or, value NULL, = number, unless it is there already. */
static void nccl_try(tc_nccl_evidence *e, tc_nccl_setting s, uint32_t because, const char *value, long long number) {
    for (size_t i = 0; i < e->n_tries; i++) if (e->tries[i].setting == s) return;
    if (e->n_tries == TC_NCCL_MAX_TRIES) return;
    tc_nccl_try *t = &e->tries[e->n_tries++];
    t->setting = s;
    t->because = because;
    if (value) tc_format(t->value, sizeof t->value, "%s", value);
    else tc_format(t->value, sizeof t->value, "%lld", number);
}

/* NCCL's evidence about row k of the fabric reason r, and the settings to try (docs/nccl.md "The
 * verdict's NCCL settings"). The row's main message is the (collective, size) row of its groups
 * with the most bytes moved. Under TC_NCCL_TUNE_SHARE of the link's rating: few channels on a large
 * message (NCCL_MIN_NCHANNELS twice them, at least TC_NCCL_FEW_CHANNELS, at most 32; inter-node
 * also NCCL_NCHANNELS_PER_NET_PEER 4), LL on a large message (NCCL_PROTO Simple), Ring all-reduce
 * across many nodes (NCCL_ALGO Tree); inter-node with none of these, more queue pairs and channels
 * per peer (NCCL_IB_QPS_PER_CONNECTION, NCCL_NCHANNELS_PER_NET_PEER 4). Saturated: none. */
static void nccl_evidence(const tc_job *j, size_t k, const tc_reason *r, tc_nccl_evidence *e) {
    memset(e, 0, sizeof *e);
    e->channels = -1;
    e->message_bytes = -1;
    if (!j->nccl.present || !j->nccl.groups) return;
    nccl_row_sums(j, k, e);
    if (!e->has) return;
    const tc_group_figures *f = &j->group_rows[k].f;
    double most = -1;
    for (size_t c = 0; c < j->n_colls; c++) {
        const tc_collective_result *cr = &j->colls[c];
        if (cr->group >= j->n_groups || j->groups[cr->group].row != k || cr->bytes < 0) continue;
        double moved = (double)cr->count * (double)cr->bytes;
        if (moved > most) { most = moved; e->message_bytes = cr->bytes; e->coll = (int)tc_nccl_coll_of(cr->name); }
    }
    if ((e->has_trace_busbw = f->has_busbw)) e->trace_busbw_GBps = f->busbw_GBps;
    e->saturated = r->saturated;
    e->tune = f->has_share && f->share_of_rated < TC_NCCL_TUNE_SHARE;
    if (e->has_busbw && e->has_trace_busbw)
        e->evidence |= e->busbw_GBps < TC_NCCL_WAIT_RATIO * e->trace_busbw_GBps ? TC_NCCL_EV_WAIT_IN_TIMER : TC_NCCL_EV_TIMER_AGREES;
    if (e->has_proxy && e->proxy_peer_wait_share >= TC_NCCL_PEER_WAIT_SHARE) e->evidence |= TC_NCCL_EV_PEER_WAIT;
    bool large = e->message_bytes >= TC_NCCL_LARGE_MESSAGE, inter = f->scope == TC_SCOPE_INTER;
    if (e->has_mix && large && e->channels >= 0 && e->channels < TC_NCCL_FEW_CHANNELS) e->evidence |= TC_NCCL_EV_FEW_CHANNELS;
    if (e->has_mix && large && !strcasecmp(e->protocol, "LL")) e->evidence |= TC_NCCL_EV_LL_LARGE;
    if (e->has_mix && inter && e->coll == TC_NCCL_ALLREDUCE && e->nodes >= TC_NCCL_MANY_NODES && !strcasecmp(e->algorithm, "Ring"))
        e->evidence |= TC_NCCL_EV_RING_MANY_NODES;
    if (inter && e->has_mix && !(e->evidence & (TC_NCCL_EV_FEW_CHANNELS | TC_NCCL_EV_LL_LARGE | TC_NCCL_EV_RING_MANY_NODES)))
        e->evidence |= TC_NCCL_EV_CHOICES_FIT;
    if (!e->tune || e->saturated) return;
    if (e->evidence & TC_NCCL_EV_LL_LARGE) nccl_try(e, TC_NCCL_SET_PROTO, TC_NCCL_EV_LL_LARGE, "Simple", 0);
    if (e->evidence & TC_NCCL_EV_FEW_CHANNELS) {
        long long want = 2LL * e->channels < TC_NCCL_FEW_CHANNELS ? TC_NCCL_FEW_CHANNELS : 2LL * e->channels;
        nccl_try(e, TC_NCCL_SET_MIN_NCHANNELS, TC_NCCL_EV_FEW_CHANNELS, NULL, want > 32 ? 32 : want);
        if (inter) nccl_try(e, TC_NCCL_SET_NCHANNELS_PER_NET_PEER, TC_NCCL_EV_FEW_CHANNELS, NULL, 4);
    }
    if (e->evidence & TC_NCCL_EV_RING_MANY_NODES) nccl_try(e, TC_NCCL_SET_ALGO, TC_NCCL_EV_RING_MANY_NODES, "Tree", 0);
    if (e->evidence & TC_NCCL_EV_CHOICES_FIT) {
        nccl_try(e, TC_NCCL_SET_IB_QPS_PER_CONNECTION, TC_NCCL_EV_CHOICES_FIT, NULL, 4);
        nccl_try(e, TC_NCCL_SET_NCHANNELS_PER_NET_PEER, TC_NCCL_EV_CHOICES_FIT, NULL, 4);
    }
}

/* Network-bound: a FABRIC reason naming the row with the most exposed transfer, its share of GPU
 * time, and whether its bus bandwidth saturates its link (TC_FABRIC_SATURATED_SHARE). */
static void decide_fabric(tc_job *j, const tc_reason *base) {
    size_t k = fabric_row(j);
    if (j->summary.verdict != TC_VERDICT_NETWORK || k == SIZE_MAX) return;
    const tc_group_row *row = &j->group_rows[k];
    tc_reason r = *base;
    r.code = TC_REASON_FABRIC;
    r.row = k;
    r.row_share = row->f.split_known ? row->exposed_transfer_share : row->exposed_comm_share;
    r.saturated = row->f.has_share && row->f.share_of_rated >= TC_FABRIC_SATURATED_SHARE;
    r.above_rated = row->f.has_share && row->f.share_of_rated > TC_FABRIC_ABOVE_RATED_SHARE;
    nccl_evidence(j, k, &r, &r.nccl);
    add_reason(&j->findings, r);
}

/* A reason holding the job's shares (every reason starts from it) and the verdict threshold. */
static tc_reason shares_reason(const tc_summary *sm, double threshold) {
    tc_reason base;
    memset(&base, 0, sizeof base);
    base.threshold = threshold;
    base.split_known = sm->split_known;
    const tc_window_figures v = judged(sm);
    base.on_steps = v.on_steps;
    base.compute = v.compute;
    base.comm = v.exposed_comm;
    base.transfer = sm->split_known ? v.exposed_transfer : v.exposed_comm;
    base.wait = sm->split_known ? v.exposed_wait : 0;
    base.idle = v.idle;
    base.memory = v.memory_host_exposed; /* device copies are GPU work, as compute */
    base.device_memory = v.memory_device_exposed;
    base.host = v.idle + v.memory_host_exposed;
    return base;
}

/* The verdict: two loss classes, communication (exposed comm: transfer + wait) and host (idle +
 * exposed host copies; exposed device copies are GPU work, like compute). Compute-bound when both are below the threshold share; otherwise the larger
 * names it: host-bound when host is larger, else network-bound when transfer >= wait (always with
 * one rank: not split), straggler-bound when wait is larger. */
static void decide_verdict(tc_job *j, double threshold) {
    tc_summary *sm = &j->summary;
    tc_findings *f = &j->findings;
    tc_reason base = shares_reason(sm, threshold);
    double named;
    if (base.comm < threshold && base.host < threshold) { sm->verdict = TC_VERDICT_COMPUTE; named = 0; }
    else if (base.host > base.comm) { sm->verdict = TC_VERDICT_HOST; named = base.host; }
    else if (base.transfer >= base.wait) { sm->verdict = TC_VERDICT_NETWORK; named = base.transfer; }
    else { sm->verdict = TC_VERDICT_STRAGGLER; named = base.wait; }
    tc_reason r = base;
    r.code = sm->verdict == TC_VERDICT_NETWORK ? TC_REASON_NETWORK
             : sm->verdict == TC_VERDICT_STRAGGLER ? TC_REASON_STRAGGLER
             : sm->verdict == TC_VERDICT_HOST ? TC_REASON_HOST : TC_REASON_COMPUTE;
    add_reason(f, r);
    if (sm->verdict != TC_VERDICT_COMPUTE && named < 1) {
        r = base;
        r.code = TC_REASON_SPEEDUP;
        r.speedup = 1.0 / (1.0 - named);
        r.has_speedup_class = sm->split_known && sm->verdict != TC_VERDICT_HOST && base.comm < 1;
        r.speedup_class = r.has_speedup_class ? 1.0 / (1.0 - base.comm) : 0;
        add_reason(f, r);
    }
    decide_fabric(j, &base);
    if (sm->ranks) { r = base; r.code = TC_REASON_SHARES; add_reason(f, r); }
    worst_rank(j, &base);
    if (sm->has_straggler) {
        r = base;
        r.code = TC_REASON_STRAGGLER_RANK;
        r.rank = sm->straggler.rank;
        r.caused_wait_share = sm->straggler.caused_wait_share;
        r.last_arrival_share = sm->straggler.last_arrival_share;
        r.wait_ns_per_step = sm->straggler.caused_wait_ns_per_step;
        r.waiting_ranks = sm->straggler.waiting_ranks;
        r.wait_per_rank_ns_per_step = sm->straggler.wait_per_rank_ns_per_step;
        add_reason(f, r);
    }
}

/* Too little to judge: below both TC_JUDGE_MIN_EVENTS and TC_JUDGE_MIN_BUSY_NS. Then the verdict
 * is too-small with what was found against what is needed, the shares (the breakdown still holds),
 * and one action, to profile longer; nothing that names a loss or a speed-up. Returns whether. */
static bool decide_too_small(tc_job *j) {
    tc_summary *sm = &j->summary;
    int64_t busy = sm->b.window_ns - sm->b.idle_ns;
    if (sm->b.gpu_events >= TC_JUDGE_MIN_EVENTS || busy >= TC_JUDGE_MIN_BUSY_NS) return false;
    sm->verdict = TC_VERDICT_TOO_SMALL;
    tc_reason r = shares_reason(sm, 0);
    r.code = TC_REASON_TOO_SMALL;
    r.gpu_events = sm->b.gpu_events;
    r.gpu_busy_ns = busy;
    r.need_events = TC_JUDGE_MIN_EVENTS;
    r.need_busy_ns = TC_JUDGE_MIN_BUSY_NS;
    add_reason(&j->findings, r);
    if (sm->ranks) { r.code = TC_REASON_SHARES; add_reason(&j->findings, r); }
    return true;
}

static void add_basis(tc_summary *sm, tc_basis_reason b) {
    assert(sm->n_basis_reasons < TC_MAX_BASIS);
    sm->basis_reasons[sm->n_basis_reasons++] = b;
}

/* Whether the conclusions rest on partial data, and why: ranks of the job missing from the inputs
 * (its world size, else a process group's size), any unmatched collective instance (counted as
 * transfer), inputs cut short, exposed comm not split into wait and transfer (one rank,
 * or collectives not matched). Each of these but a cut input makes transfer an upper bound and wait
 * a lower bound. */
static void decide_basis(tc_job *j) {
    tc_summary *sm = &j->summary;
    sm->n_basis_reasons = 0;
    tc_basis_reason b;
    if (sm->world_size > (int64_t)j->n_ranks) {
        memset(&b, 0, sizeof b);
        b.code = TC_BASIS_WORLD_SIZE;
        b.count = (int64_t)j->n_ranks;
        b.of = sm->world_size;
        add_basis(sm, b);
    } else if (sm->partial_groups) {
        memset(&b, 0, sizeof b);
        b.code = TC_BASIS_GROUP_RANKS;
        b.count = (int64_t)sm->partial_groups;
        b.present = sm->partial_group_present;
        b.size = sm->partial_group_size;
        b.group = sm->partial_group;
        add_basis(sm, b);
    }
    int64_t unmatched = 0;
    for (size_t r = 0; r < j->n_ranks; r++) unmatched += j->ranks[r].unmatched_exposed_ns;
    if (sm->split_known && sm->unmatched_instances > 0) {
        memset(&b, 0, sizeof b);
        b.code = TC_BASIS_UNMATCHED;
        b.count = sm->unmatched_instances;
        b.of = sm->coll_instances;
        b.share = share_of(unmatched, sm->b.exposed_comm_ns);
        add_basis(sm, b);
    }
    bool bounds = sm->n_basis_reasons > 0;
    int64_t cut = 0;
    for (size_t i = 0; i < j->n_traces; i++) cut += j->traces[i].truncated;
    if (cut) {
        memset(&b, 0, sizeof b);
        b.code = TC_BASIS_SALVAGED;
        b.count = cut;
        b.of = (int64_t)j->n_traces;
        add_basis(sm, b);
    }
    if (!sm->split_known && sm->b.exposed_comm_ns > 0) {
        memset(&b, 0, sizeof b);
        b.code = TC_BASIS_NOT_SPLIT;
        b.count = (int64_t)j->n_ranks;
        add_basis(sm, b);
        bounds = true;
    }
    sm->partial = sm->n_basis_reasons > 0;
    sm->transfer_upper_bound = bounds;
}

/* The evidence behind a cause: its call or op names. */
static void cause_evidence(const tc_idle_evidence *e, int cause, const char **name, const char **where) {
    *name = *where = NULL;
    switch (cause) {
    case TC_IDLE_SYNC: *name = e->sync_call; *where = e->sync_op; break;
    case TC_IDLE_DATA_LOADING: *name = e->data_op; break;
    case TC_IDLE_MEMORY_MANAGEMENT: *name = e->memory_call; break;
    case TC_IDLE_CPU_OTHER: *name = e->other_op; break;
    default: break;
    }
}

/* A host-bound verdict names its dominant idle cause: a reason right after the verdict's own. */
static void host_cause_reason(tc_job *j) {
    tc_findings *f = &j->findings;
    const tc_summary *sm = &j->summary;
    const tc_window_figures v = judged(sm);
    int top = tc_idle_top_cause(&v.causes); /* -1: the causes were not measured */
    if (sm->verdict != TC_VERDICT_HOST || top < 0 || f->n_reasons == 0) return;
    tc_reason r = f->reasons[0];
    r.code = TC_REASON_HOST_CAUSE;
    r.cause = top;
    r.cause_share = v.cause_share[top];
    cause_evidence(&sm->evidence, top, &r.name, &r.where);
    if (top == TC_IDLE_SYNC && 2 * v.causes.copy_held_ns > v.causes.ns[TC_IDLE_SYNC]) {
        r.copy_holds = true; /* most of it was copy calls holding the host: name the copy */
        r.name = sm->evidence.copy_call;
        r.where = sm->evidence.copy_op;
    }
    if (v.b.window_ns > 0 && v.causes.after_sync_ns * 10 >= v.b.idle_ns) {
        r.after_sync_share = (double)v.causes.after_sync_ns / (double)v.b.window_ns;
        r.drain_call = sm->evidence.drain_call;
        r.drain_op = sm->evidence.drain_op;
    }
    assert(f->n_reasons < TC_MAX_REASONS);
    memmove(&f->reasons[2], &f->reasons[1], (f->n_reasons - 1) * sizeof *f->reasons);
    f->reasons[1] = r;
    f->n_reasons++;
}

static void add_action(tc_findings *f, tc_action_code code, double value) {
    assert(f->n_actions < TC_MAX_ACTIONS);
    tc_action *a = &f->actions[f->n_actions++];
    memset(a, 0, sizeof *a);
    a->code = code;
    a->value = value;
    a->row = SIZE_MAX;
}

/* Network-bound: what to check about the links. The fabric reason's row, when it has one: saturated
 * or below what its link is rated for (then tune first), or its bus bandwidth with the link unknown;
 * else the job's bus bandwidth, or measure it. */
static void fabric_action(tc_job *j) {
    const tc_summary *sm = &j->summary;
    tc_findings *f = &j->findings;
    const tc_reason *fr = NULL;
    for (size_t i = 0; i < f->n_reasons; i++) if (f->reasons[i].code == TC_REASON_FABRIC) fr = &f->reasons[i];
    const tc_group_figures *g = fr ? &j->group_rows[fr->row].f : NULL;
    if (g && g->has_share) add_action(f, fr->saturated ? TC_ACTION_FABRIC_SATURATED : TC_ACTION_FABRIC_TUNE, g->share_of_rated);
    else if (g && g->has_busbw) add_action(f, TC_ACTION_FABRIC_BUSBW, g->busbw_GBps);
    else if (sm->has_fabric_busbw) { add_action(f, TC_ACTION_FABRIC_BUSBW, sm->fabric_busbw_GBps); return; }
    else { add_action(f, TC_ACTION_MEASURE_FABRIC, 0); return; }
    f->actions[f->n_actions - 1].row = fr->row;
    f->actions[f->n_actions - 1].nccl = fr->nccl;
}

#define TC_HOST_ACTIONS 3 /* at most, from the idle causes */

/* What a host-bound job should do, from the evidence: one action per idle cause (and for exposed
 * host copies), in order of their share of the summed windows, those of at least 1% (the first
 * always), at most three; the generic three when no idle time has a measured cause. */
static void host_actions(tc_job *j) {
    const tc_summary *sm = &j->summary;
    tc_findings *f = &j->findings;
    static const tc_action_code for_cause[TC_IDLE_CAUSES] = {
        [TC_IDLE_GPU_SIDE] = TC_ACTION_GPU_SIDE, [TC_IDLE_SYNC] = TC_ACTION_AVOID_SYNCS,
        [TC_IDLE_DATA_LOADING] = TC_ACTION_FEED_GPUS, [TC_IDLE_MEMORY_MANAGEMENT] = TC_ACTION_ALLOCATOR,
        [TC_IDLE_MODULE_LOAD] = TC_ACTION_WARM_UP, [TC_IDLE_LAUNCH_OVERHEAD] = TC_ACTION_CUT_LAUNCHES,
        [TC_IDLE_CPU_OTHER] = TC_ACTION_HOST_WORK, [TC_IDLE_UNATTRIBUTED] = TC_ACTION_TRACE_LAUNCHES};
    const tc_window_figures v = judged(sm);
    if (tc_idle_top_cause(&v.causes) < 0) {
        add_action(f, TC_ACTION_FEED_GPUS, 0);
        add_action(f, TC_ACTION_CUT_LAUNCHES, 0);
        add_action(f, TC_ACTION_AVOID_SYNCS, 0);
        return;
    }
    enum { HOST_COPIES = TC_IDLE_CAUSES, HELD_BY_COPIES, CANDIDATES };
    bool used[CANDIDATES] = {false}; /* the causes, exposed host copies, sync held by copy calls */
    double after_sync = share_of(v.causes.after_sync_ns, v.b.window_ns);
    double held = share_of(v.causes.copy_held_ns, v.b.window_ns), sync_calls = v.cause_share[TC_IDLE_SYNC] - held;
    while (f->n_actions < TC_HOST_ACTIONS) {
        int best = -1;
        double best_share = 0;
        for (int k = 0; k < CANDIDATES; k++) { /* syncs rank by their time or the gaps begun in them */
            double sh = k == TC_IDLE_SYNC ? sync_calls : k < TC_IDLE_CAUSES ? v.cause_share[k]
                        : k == HOST_COPIES ? v.memory_host_exposed : held;
            if (k == TC_IDLE_SYNC && after_sync > sh) sh = after_sync;
            if (!used[k] && sh > best_share) { best = k; best_share = sh; }
        }
        if (best < 0 || (f->n_actions > 0 && best_share < 0.01)) break;
        used[best] = true;
        add_action(f, best < TC_IDLE_CAUSES ? for_cause[best] : best == HOST_COPIES ? TC_ACTION_OVERLAP_COPIES
                      : TC_ACTION_PIN_COPIES, 0);
        tc_action *a = &f->actions[f->n_actions - 1];
        a->share = best == TC_IDLE_SYNC ? sync_calls : best < TC_IDLE_CAUSES ? v.cause_share[best] : best_share;
        if (best < TC_IDLE_CAUSES) cause_evidence(&sm->evidence, best, &a->name, &a->where);
        if (best == HELD_BY_COPIES) { a->name = sm->evidence.copy_call; a->where = sm->evidence.copy_op; }
        if (best == TC_IDLE_SYNC) {
            a->after_sync_share = after_sync;
            if (after_sync > a->share) { a->name = sm->evidence.drain_call; a->where = sm->evidence.drain_op; }
        }
        if (best == TC_IDLE_LAUNCH_OVERHEAD) a->launch = sm->launch;
    }
}

/* Compute-bound, from the op evidence (docs/definitions.md "Actions from the ops"): the group that
 * loses most against its roofline, when that loss is at least TC_OP_ACTION_SHARE of the compute time,
 * with the advice of its family; then the larger of the launch-bound groups' GPU time and the top
 * fusion candidate's, when at least that share. At most two; returns how many were added. */
#define TC_OP_ACTION_SHARE 0.05
static size_t op_actions(tc_job *j) {
    const tc_op_result *o = &j->ops;
    tc_findings *f = &j->findings;
    if (!o->has || o->compute_ns <= 0) return 0;
    size_t top = SIZE_MAX, launch = SIZE_MAX, fusion = SIZE_MAX, n_launch = 0;
    int64_t launch_ns = 0;
    for (size_t g = 0; g < o->n_groups; g++) {
        const tc_op_group *gr = &o->groups[g];
        if (gr->has_roofline && gr->lost_ns > 0 && (top == SIZE_MAX || gr->lost_ns > o->groups[top].lost_ns)) top = g;
        if (!gr->launch_bound) continue;
        n_launch++;
        launch_ns += gr->gpu_ns;
        if (launch == SIZE_MAX || gr->gpu_ns > o->groups[launch].gpu_ns) launch = g;
    }
    for (size_t k = 0; k < o->n_fusions; k++)
        if (fusion == SIZE_MAX || o->fusions[k].gpu_ns > o->fusions[fusion].gpu_ns) fusion = k;
    size_t added = 0;
    double need = TC_OP_ACTION_SHARE * (double)o->compute_ns;
    if (top != SIZE_MAX && (double)o->groups[top].lost_ns >= need) {
        const tc_op_group *gr = &o->groups[top];
        tc_op_family fam = (tc_op_family)gr->family;
        add_action(f, fam == TC_OPF_NORM || fam == TC_OPF_SOFTMAX ? TC_ACTION_FUSE_NORM
                      : fam == TC_OPF_GEMM || fam == TC_OPF_BMM || fam == TC_OPF_CONV ? TC_ACTION_GEMM_SHAPES
                      : fam == TC_OPF_ATTENTION ? TC_ACTION_ATTENTION_KERNEL : TC_ACTION_FUSE_MEMORY_OPS,
                   gr->share_of_attainable);
        tc_action *a = &f->actions[f->n_actions - 1];
        a->op = top;
        a->share = share_of(gr->gpu_ns, o->compute_ns);
        a->lost_ns = gr->lost_ns;
        added++;
    }
    int64_t fusion_ns = fusion != SIZE_MAX ? o->fusions[fusion].gpu_ns : 0;
    if (launch != SIZE_MAX && launch_ns >= fusion_ns && (double)launch_ns >= need) {
        add_action(f, TC_ACTION_LAUNCH_BOUND_OPS, 0);
        tc_action *a = &f->actions[f->n_actions - 1];
        a->op = launch;
        a->count = n_launch;
        a->share = share_of(launch_ns, o->compute_ns);
        a->lost_ns = o->groups[launch].lost_ns;
        added++;
    } else if (fusion != SIZE_MAX && (double)fusion_ns >= need) {
        add_action(f, TC_ACTION_FUSE_SEQUENCE, 0);
        tc_action *a = &f->actions[f->n_actions - 1];
        a->op = fusion;
        a->share = share_of(fusion_ns, o->compute_ns);
        added++;
    }
    return added;
}

/* Two or three things the verdict suggests doing (compute-bound: the op actions, else the generic
 * kernel work; then the MFU gap). A straggler whose compute per step is more
 * than 5% above the median rank's has more GPU work (or a slower GPU); otherwise the delay is on
 * its host side. */
static void decide_actions(tc_job *j, size_t straggler) {
    const tc_summary *sm = &j->summary;
    tc_findings *f = &j->findings;
    switch (sm->verdict) {
    case TC_VERDICT_NETWORK:
        add_action(f, TC_ACTION_HIDE_COMM, 0);
        fabric_action(j);
        add_action(f, TC_ACTION_FEWER_BYTES, 0);
        break;
    case TC_VERDICT_STRAGGLER:
        if (sm->has_straggler) {
            const tc_straggler *s = &sm->straggler;
            add_action(f, TC_ACTION_LOOK_AT_STRAGGLER, 0);
            f->actions[f->n_actions - 1].input = j->ranks[straggler].input;
            add_action(f, s->compute_ns_per_step > s->median_compute_ns_per_step * 21 / 20 ? TC_ACTION_STRAGGLER_MORE_WORK
                                                                                        : TC_ACTION_STRAGGLER_HOST_SIDE, 0);
            f->actions[f->n_actions - 1].compute_ns_per_step = s->compute_ns_per_step;
            f->actions[f->n_actions - 1].median_compute_ns_per_step = s->median_compute_ns_per_step;
            for (size_t i = 0; i < f->n_actions; i++) f->actions[i].rank = s->rank;
        } else add_action(f, TC_ACTION_BALANCE_WORK, 0);
        add_action(f, TC_ACTION_COMPARE_RANKS, 0);
        break;
    case TC_VERDICT_HOST:
        host_actions(j);
        break;
    case TC_VERDICT_TOO_SMALL:
        add_action(f, TC_ACTION_PROFILE_LONGER, 0);
        break;
    case TC_VERDICT_COMPUTE:
        if (!op_actions(j)) add_action(f, TC_ACTION_KERNEL_WORK, 0); /* the op evidence replaces it */
        if (sm->has_mfu) add_action(f, TC_ACTION_MFU_GAP, sm->mfu);
        else if (!sm->mfu_over_peak) add_action(f, TC_ACTION_MEASURE_MFU, 0); /* else the MFU note says */
        break;
    default: break;
    }
}

static bool picked(const size_t *out, size_t n, size_t r) {
    for (size_t k = 0; k < n; k++) if (out[k] == r) return true;
    return false;
}

/* The timeline's ranks: the first rank, the straggler, the rank that waited most, the last rank,
 * then others in order, up to want; ascending. */
static int timeline_ranks(tc_job *j, size_t want) {
    tc_findings *f = &j->findings;
    const tc_summary *sm = &j->summary;
    if (!j->n_ranks) return 0;
    if (want > j->n_ranks) want = j->n_ranks;
    size_t *out = calloc(want ? want : 1, sizeof *out);
    if (!out) return -1;
    size_t cand[4], nc = 0, n = 0;
    cand[nc++] = 0;
    if (sm->has_straggler)
        for (size_t r = 0; r < j->n_ranks; r++) if (j->ranks[r].rank == sm->straggler.rank) cand[nc++] = r;
    size_t most = 0;
    for (size_t r = 1; r < j->n_ranks; r++)
        if (j->ranks[r].b.exposed_wait_ns > j->ranks[most].b.exposed_wait_ns) most = r;
    cand[nc++] = most;
    cand[nc++] = j->n_ranks - 1;
    for (size_t i = 0; i < nc && n < want; i++) if (!picked(out, n, cand[i])) out[n++] = cand[i];
    for (size_t r = 0; r < j->n_ranks && n < want; r++) if (!picked(out, n, r)) out[n++] = r;
    for (size_t a = 1; a < n; a++) /* insertion sort: few */
        for (size_t b = a; b > 0 && out[b - 1] > out[b]; b--) { size_t t = out[b]; out[b] = out[b - 1]; out[b - 1] = t; }
    f->timeline_ranks = out;
    f->n_timeline_ranks = n;
    return 0;
}

/* The representative step: the (lower) median-duration step of the first timeline rank that has
 * steps, when it holds GPU events; else the next timeline rank's. */
static int representative_step(tc_job *j) {
    tc_findings *f = &j->findings;
    for (size_t k = 0; k < f->n_timeline_ranks && !f->has_step; k++) {
        const tc_rank_result *rr = &j->ranks[f->timeline_ranks[k]];
        if (!rr->n_steps) continue;
        int64_t *times = malloc(rr->n_steps * sizeof *times);
        if (!times) return -1;
        for (size_t s = 0; s < rr->n_steps; s++) times[s] = rr->steps[s].step_time_ns;
        tc_sort_i64(times, rr->n_steps);
        int64_t med = times[(rr->n_steps - 1) / 2];
        free(times);
        for (size_t s = 0; s < rr->n_steps; s++)
            if (rr->steps[s].step_time_ns == med && rr->steps[s].b.gpu_events) {
                f->has_step = true;
                f->step_number = rr->steps[s].number;
                f->step_time_ns = med;
                f->step_rank = f->timeline_ranks[k];
                break;
            }
    }
    return 0;
}

/* The class with the most time on the path (the first of equals, in tc_cp_class order). */
static int cp_top_class(const tc_critical_path *p) {
    int best = 0;
    for (int k = 1; k < TC_CP_CLASSES; k++) if (p->class_ns[k] > p->class_ns[best]) best = k;
    return best;
}

/* A rank's compute per step (its GPU window's compute over its steps, as the straggler's figures). */
static int64_t compute_per_step(const tc_rank_result *rr) {
    return rr->b.compute_ns / (int64_t)(rr->steps_total ? rr->steps_total : 1);
}

/* The critical path's reason, right after the verdict's own (and the host cause): the class holding
 * most of the path over all steps (compute: the rank holding most of it, as a share of the path),
 * the ranks it runs through, and at most how much of the step a network moving bytes instantly
 * would save, 1 − T_ref/T (summary.replay's reference step when it is "instant"). Then, when the
 * path is at least TC_CP_FIX_SHARE one rank's compute and that rank computes more than 5% over the
 * median rank per step, the action to fix that rank: first when its compute over the median's is
 * at least the path's transfer per step (the bigger lever), else last when there is room. Nothing
 * without a critical path. */
#define TC_CP_FIX_SHARE 0.5
static int decide_critical_path(tc_job *j) {
    const tc_summary *sm = &j->summary;
    tc_findings *f = &j->findings;
    const tc_critical_path *p = &sm->critical_path;
    const tc_replay_summary *rp = &sm->replay;
    if (!sm->has_critical_path || !rp->has || p->step_ns <= 0 || sm->verdict == TC_VERDICT_TOO_SMALL || !f->n_reasons)
        return 0;
    tc_reason r = f->reasons[0];
    r.code = TC_REASON_CRITICAL_PATH;
    r.cp_class = cp_top_class(p);
    r.cp_ranks = p->n_by_rank;
    r.cp_bound = sm->transfer_upper_bound;
    r.cp_compute_share = share_of(p->class_ns[TC_CP_COMPUTE], p->step_ns);
    r.cp_share = share_of(p->class_ns[r.cp_class], p->step_ns);
    r.cp_inter_share = share_of(p->class_ns[TC_CP_TRANSFER_INTER], p->step_ns);
    size_t who = SIZE_MAX;
    for (size_t k = 0; k < p->n_by_rank; k++)
        if (who == SIZE_MAX || p->by_rank[k].compute_ns > p->by_rank[who].compute_ns) who = k;
    if (r.cp_class == TC_CP_COMPUTE && who != SIZE_MAX) {
        r.rank = p->by_rank[who].rank;
        r.cp_share = share_of(p->by_rank[who].compute_ns, p->step_ns);
    } else r.rank = -1;
    r.has_fabric_saving = rp->has_reference && !strcmp(rp->reference, "instant") && rp->replayed_step_ns > 0;
    if (r.has_fabric_saving) {
        double s = 1.0 - (double)rp->reference_step_ns / (double)rp->replayed_step_ns;
        r.fabric_saving = s > 0 ? s : 0;
    }
    size_t at = f->n_reasons > 1 && f->reasons[1].code == TC_REASON_HOST_CAUSE ? 2 : 1;
    assert(f->n_reasons < TC_MAX_REASONS);
    memmove(&f->reasons[at + 1], &f->reasons[at], (f->n_reasons - at) * sizeof *f->reasons);
    f->reasons[at] = r;
    f->n_reasons++;
    if (r.rank < 0 || j->n_ranks < 2 || r.cp_share < TC_CP_FIX_SHARE) return 0;
    const tc_rank_result *rr = NULL;
    double *comp = malloc(j->n_ranks * sizeof *comp);
    if (!comp) return -1;
    for (size_t k = 0; k < j->n_ranks; k++) {
        comp[k] = (double)compute_per_step(&j->ranks[k]);
        if (j->ranks[k].rank == r.rank) rr = &j->ranks[k];
    }
    int64_t median = (int64_t)tc_median(comp, j->n_ranks);
    free(comp);
    if (!rr || compute_per_step(rr) * 20 <= median * 21) return 0;
    int64_t steps = sm->n_cp_steps ? (int64_t)sm->n_cp_steps : 1;
    int64_t transfer = (p->class_ns[TC_CP_TRANSFER_INTRA] + p->class_ns[TC_CP_TRANSFER_INTER]) / steps;
    bool first = compute_per_step(rr) - median >= transfer; /* the rank is the bigger lever than the transfer */
    if (!first && f->n_actions == TC_MAX_ACTIONS) return 0;
    if (f->n_actions == TC_MAX_ACTIONS) f->n_actions--;
    size_t pos = first ? 0 : f->n_actions;
    memmove(&f->actions[pos + 1], &f->actions[pos], (f->n_actions - pos) * sizeof *f->actions);
    f->n_actions++;
    tc_action *a = &f->actions[pos];
    memset(a, 0, sizeof *a);
    a->code = TC_ACTION_FIX_PATH_RANK;
    a->row = SIZE_MAX;
    a->rank = r.rank;
    a->share = r.cp_share;
    a->value = r.cp_inter_share;
    a->first = first;
    a->compute_ns_per_step = compute_per_step(rr);
    a->median_compute_ns_per_step = median;
    a->has_fabric_saving = r.has_fabric_saving;
    a->fabric_saving = r.fabric_saving;
    a->cp_bound = r.cp_bound;
    return 0;
}

/* Network- or straggler-bound: the all-to-all group whose imbalance causes the largest share of its
 * ranks' all-to-all time, when that share is at least one half (docs/definitions.md "All-to-all
 * imbalance"): then the bytes' spread, not the bandwidth, is the loss. */
static void a2a_reason(tc_job *j) {
    tc_findings *f = &j->findings;
    if ((j->summary.verdict != TC_VERDICT_NETWORK && j->summary.verdict != TC_VERDICT_STRAGGLER) ||
        f->n_reasons >= TC_MAX_REASONS)
        return;
    size_t best = SIZE_MAX;
    double share = 0;
    for (size_t g = 0; g < j->a2a.n_groups; g++) {
        const tc_a2a_group *gr = &j->a2a.groups[g];
        double s = gr->rank_time_ns > 0 ? gr->caused_wait_ns / gr->rank_time_ns : 0;
        if (gr->hot_rank >= 0 && s >= 0.5 && s > share) { share = s; best = g; }
    }
    if (best == SIZE_MAX) return;
    tc_reason r;
    memset(&r, 0, sizeof r);
    r.code = TC_REASON_A2A_IMBALANCE;
    r.row = best;
    r.rank = j->a2a.groups[best].hot_rank;
    r.caused_wait_share = share;
    add_reason(f, r);
}

/* The pipeline bubble, when it is the largest loss: its share of the stages' step windows
 * (docs/definitions.md "Pipeline bubble") reaches the threshold and exceeds both loss classes'
 * shares of GPU time. */
static void pp_bubble_reason(tc_job *j, double threshold) {
    const tc_pipeline_result *p = &j->pipeline;
    tc_findings *f = &j->findings;
    if (!p->present || f->n_reasons >= TC_MAX_REASONS) return;
    tc_reason r = shares_reason(&j->summary, threshold);
    if (p->bubble_share < threshold || p->bubble_share < r.comm || p->bubble_share < r.host) return;
    r.code = TC_REASON_PP_BUBBLE;
    r.cause_share = p->bubble_share;
    add_reason(f, r);
}

int tc_job_findings(tc_job *j, const tc_analyze_options *opt) {
    tc_summary *sm = &j->summary;
    tc_findings *f = &j->findings;
    tc_findings_free(f);
    sm->has_straggler = false;
    memset(&sm->straggler, 0, sizeof sm->straggler);
    bool oom = false;
    size_t straggler = decide_straggler(j, &oom);
    if (oom) return -1;
    decide_basis(j);
    if (!decide_too_small(j)) {
        decide_verdict(j, opt->bound_threshold > 0 ? opt->bound_threshold : 0.15);
        host_cause_reason(j);
        a2a_reason(j);
        pp_bubble_reason(j, opt->bound_threshold > 0 ? opt->bound_threshold : 0.15);
    }
    decide_actions(j, straggler);
    if (decide_critical_path(j)) return -1;
    const tc_window_figures v = judged(sm);
    f->on_steps = v.on_steps;
    f->network_efficiency = 1.0 - (sm->split_known ? v.exposed_transfer : v.exposed_comm);
    f->effective_gpus = (double)sm->ranks * f->network_efficiency;
    if (timeline_ranks(j, opt->timeline_ranks ? opt->timeline_ranks : TC_TIMELINE_RANKS)) return -1;
    if (representative_step(j)) return -1;
    f->view_rank = 0;
    if (f->has_step) f->view_rank = f->step_rank;
    else
        for (size_t r = j->n_ranks; r-- > 0;) if (j->ranks[r].n_steps) f->view_rank = r;
    return 0;
}
