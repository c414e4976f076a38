/* findings_text.c: the sentences of the verdict reasons and actions (see findings_text.h). */
#include "findings_text.h"
#include "textfmt.h"
#include "termtext.h"
#include "analyzer/nodes.h"
#include "base/status.h"
#include <string.h>

/* "12.3 ms" with 3 decimals below 10 s: ns as ms. */
static double ms(int64_t ns) { return (double)ns / 1e6; }

static const char *class_words(tc_loss_class c) {
    return c == TC_LOSS_COMM ? "exposed communication" : "idle and exposed host copies";
}

static const char *const cause_keys[TC_IDLE_CAUSES] = {
    "gpu_side", "sync", "data_loading", "memory_management", "module_load", "launch_overhead", "cpu_other",
    "unattributed"};
static const char *const cause_labels[TC_IDLE_CAUSES] = {
    "GPU side", "sync", "data loading", "memory management", "module load", "launch overhead", "CPU other",
    "unattributed"};

const char *tc_idle_cause_key(int cause) { return cause >= 0 && cause < TC_IDLE_CAUSES ? cause_keys[cause] : "?"; }
const char *tc_idle_cause_label(int cause) { return cause >= 0 && cause < TC_IDLE_CAUSES ? cause_labels[cause] : "?"; }

static const char *const class_keys[TC_STEP_NONE] = {"compute", "exposed_comm", "memory_exposed", "idle",
                                                     "outside_gpu_window"};
static const char *const class_labels[TC_STEP_NONE] = {"compute", "exposed comm", "exposed memory", "idle",
                                                       "time outside the GPU window"};

const char *tc_step_class_key(int cls) { return cls >= 0 && cls < TC_STEP_NONE ? class_keys[cls] : NULL; }
const char *tc_step_class_label(int cls) { return cls >= 0 && cls < TC_STEP_NONE ? class_labels[cls] : "none"; }

const char *tc_finding_name(char *buf, size_t n, const char *name) {
    tc_term_cell(buf, n, name, -60); /* cut with an ellipsis, padded: the padding goes */
    size_t len = strlen(buf);
    while (len > 0 && buf[len - 1] == ' ') buf[--len] = 0;
    return buf;
}

/* The window a reason's shares are of (docs/definitions.md "Step window"). */
static const char *of_time(const tc_reason *r) { return r->on_steps ? "step time" : "GPU time"; }

/* The host cause reason: "idle is 31.0% of GPU time, 24.0 points of it waiting on X (in Y)". */
static void host_cause_text(char *buf, size_t n, const tc_reason *r) {
    char name[256], where[256], what[600];
    const char *nm = r->name ? tc_finding_name(name, sizeof name, r->name) : NULL;
    switch (r->cause) {
    case TC_IDLE_SYNC:
        if (r->copy_holds)
            tc_format(what, sizeof what, "held by %s, a copy call holding the host (pageable memory)%s%s", nm ? nm : "copy calls",
                      r->where ? " called in " : "", r->where ? tc_finding_name(where, sizeof where, r->where) : "");
        else if (nm && r->where)
            tc_format(what, sizeof what, "waiting on %s (called in %s)", nm, tc_finding_name(where, sizeof where, r->where));
        else tc_format(what, sizeof what, "waiting on %s", nm ? nm : "synchronizing calls");
        break;
    case TC_IDLE_DATA_LOADING:
        tc_format(what, sizeof what, "waiting for the data loader%s%s%s", nm ? " (" : "", nm ? nm : "", nm ? ")" : "");
        break;
    case TC_IDLE_MEMORY_MANAGEMENT:
        tc_format(what, sizeof what, "waiting on the allocator%s%s%s", nm ? " (" : "", nm ? nm : "", nm ? ")" : "");
        break;
    case TC_IDLE_MODULE_LOAD: tc_format(what, sizeof what, "loading kernel modules on first launches"); break;
    case TC_IDLE_LAUNCH_OVERHEAD: tc_format(what, sizeof what, "waiting for the host to launch the next kernel"); break;
    case TC_IDLE_CPU_OTHER:
        tc_format(what, sizeof what, "waiting on other host work%s%s%s", nm ? " (most in " : "", nm ? nm : "", nm ? ")" : "");
        break;
    case TC_IDLE_GPU_SIDE: tc_format(what, sizeof what, "with the next work already queued (GPU side)"); break;
    default: tc_format(what, sizeof what, "before work whose launch the trace does not hold"); break;
    }
    char pi[TC_PCT_LEN], pp[TC_PCT_LEN];
    size_t len = (size_t)tc_format(buf, n, "idle is %s of %s, %s points of it %s", TC_PCT1(pi, r->idle), of_time(r),
                                   tc_fmt_pct_num(pp, sizeof pp, r->cause_share, 1), what);
    if (r->after_sync_share <= 0 || len >= n) return;
    const char *dc = r->drain_call ? tc_finding_name(name, sizeof name, r->drain_call) : "a synchronizing call";
    if (r->drain_call && r->drain_op)
        tc_format(buf + len, n - len, "; %s points began while the host waited in %s (called in %s)",
                  tc_fmt_pct_num(pp, sizeof pp, r->after_sync_share, 1), dc, tc_finding_name(where, sizeof where, r->drain_op));
    else tc_format(buf + len, n - len, "; %s points began while the host waited in %s",
                   tc_fmt_pct_num(pp, sizeof pp, r->after_sync_share, 1), dc);
}


/* ---- process groups ---------------------------------------------------------------------------- */

const char *tc_scope_text(tc_group_scope scope) {
    return scope == TC_SCOPE_INTRA ? "intra-node" : scope == TC_SCOPE_INTER ? "inter-node" : "scope unknown";
}

const char *tc_group_row_label(char *buf, size_t n, const tc_job *j, const tc_group_row *row) {
    const tc_process_group *g = &j->groups[row->first];
    char name[80], desc[80];
    tc_term_clean(name, sizeof name, g->name, 40);
    tc_term_clean(desc, sizeof desc, g->desc ? g->desc : "", 40);
    if (row->groups > 1) tc_format(buf, n, "the %zu %s process groups", row->groups, desc);
    else if (g->desc) tc_format(buf, n, "process group %s (%s)", name, desc);
    else tc_format(buf, n, "process group %s", name);
    return buf;
}

/* "inter-node over Ethernet 100 Gb/s" or "intra-node, link unknown" */
static const char *scope_link(char *buf, size_t n, const tc_group_figures *f) {
    if (f->link.id) tc_format(buf, n, "%s over %s", tc_scope_text(f->scope), f->link.name);
    else tc_format(buf, n, "%s, link unknown", tc_scope_text(f->scope));
    return buf;
}

/* What the fabric reason says of the row's bus bandwidth. */
static const char *fabric_bw_text(char *buf, size_t n, const tc_group_figures *f, bool many, const tc_reason *r) {
    const char *they = many ? "they reach" : "it reaches";
    char rated[TC_ATTR_LEN], pr[TC_PCT_LEN];
    if (!f->has_busbw)
        tc_format(buf, n, "%s bus bandwidth is not measured (no matched collective of 1 MiB or more)", many ? "their" : "its");
    else if (f->has_share)
        tc_format(buf, n, "%s %.1f GB/s bus bandwidth, %s of the link's rated %s GB/s: %s", they, f->busbw_GBps,
                  tc_fmt_pct(pr, sizeof pr, f->share_of_rated, 0), TC_SIG4(rated, f->link.rated_GBps),
                  r->above_rated ? "saturated, and more than the link is rated for (several NICs per GPU, in-network "
                                   "reduction, or another link than the one named?)"
                  : r->saturated ? "saturated" : "look at NCCL and NIC settings before buying");
    else if (f->scope == TC_SCOPE_INTER)
        tc_format(buf, n, "%s %.1f GB/s bus bandwidth; what the fabric between nodes is rated for is unknown (pass "
                  "--fabric ID or --nic-gbps X)", they, f->busbw_GBps);
    else if (f->scope == TC_SCOPE_INTRA)
        tc_format(buf, n, "%s %.1f GB/s bus bandwidth; the GPU's link is not in the catalog (pass --gpu NAME)", they,
                  f->busbw_GBps);
    else
        tc_format(buf, n, "%s %.1f GB/s bus bandwidth; the link is unknown (so are the ranks)", they, f->busbw_GBps);
    return buf;
}

static const char *const nccl_setting_names[TC_NCCL_SETTINGS] = {
    "NCCL_ALGO", "NCCL_PROTO", "NCCL_MIN_NCHANNELS", "NCCL_NCHANNELS_PER_NET_PEER", "NCCL_IB_QPS_PER_CONNECTION"};

const char *tc_nccl_setting_name(int s) { return s >= 0 && s < TC_NCCL_SETTINGS ? nccl_setting_names[s] : "?"; }

static const char *const nccl_ev_codes[TC_NCCL_EV_KINDS] = {
    "few_channels", "ll_on_large_messages", "ring_across_many_nodes", "nccl_timer_holds_wait", "nccl_timer_agrees",
    "proxy_waits_on_peer", "choices_fit_the_size"};

const char *tc_nccl_evidence_code(uint32_t bit) {
    for (int k = 0; k < TC_NCCL_EV_KINDS; k++) if (bit == 1u << k) return nccl_ev_codes[k];
    return "?";
}

/* "25.0 MiB", "64 KiB", "512 B" */
static const char *msg_size(char *buf, size_t n, int64_t b) {
    if (b >= 1 << 20) tc_format(buf, n, "%.1f MiB", (double)b / (1 << 20));
    else if (b >= 1 << 10) tc_format(buf, n, "%.0f KiB", (double)b / (1 << 10));
    else tc_format(buf, n, "%lld B", (long long)b);
    return buf;
}

/* "Ring/LL with 2 channels on 80% of its collectives (the main message: 25.0 MiB AllReduce, 4 nodes)" */
static const char *nccl_mix_text(char *buf, size_t n, const tc_nccl_evidence *e) {
    char ch[32] = "", pc[TC_PCT_LEN], sz[32], nodes[24] = "";
    if (e->channels >= 0) tc_format(ch, sizeof ch, " with %d channel%s", (int)e->channels, e->channels == 1 ? "" : "s");
    if (e->nodes > 1) tc_format(nodes, sizeof nodes, ", %lld nodes", (long long)e->nodes);
    size_t len = tc_format(buf, n, "%.15s/%.15s%s on %s of its collectives", e->algorithm[0] ? e->algorithm : "?",
                           e->protocol[0] ? e->protocol : "?", ch,
                           tc_fmt_pct(pc, sizeof pc, e->plugin_records ? (double)e->mix_records / (double)e->plugin_records : 0, 0));
    if (e->message_bytes >= 0 && len < n)
        tc_format(buf + len, n - len, " (the main message: %s %s%s)", msg_size(sz, sizeof sz, e->message_bytes),
                  tc_nccl_coll_name((tc_nccl_coll)e->coll), nodes);
    return buf;
}

/* The fabric reason's NCCL sentence: the mix, NCCL's busbw beside the trace's and what they say. */
static void nccl_reason_text(char *buf, size_t n, const tc_nccl_evidence *e) {
    size_t len = strlen(buf);
    char mix[200], pp[2][TC_PCT_LEN];
    if (!e->has || len >= n) return;
    if (e->has_mix) len += tc_format(buf + len, n - len, "; NCCL ran %s", nccl_mix_text(mix, sizeof mix, e));
    if (e->has_busbw && e->has_trace_busbw && len < n)
        len += tc_format(buf + len, n - len, "%s %.1f GB/s busbw against the trace's %.1f GB/s (%s)",
                         e->has_mix ? ", its own timer" : "; NCCL's own timer gives", e->busbw_GBps, e->trace_busbw_GBps,
                         e->evidence & TC_NCCL_EV_WAIT_IN_TIMER ? "NCCL's time holds waiting for late ranks, not only transfer"
                                                                : "they agree: the time is transfer, not waiting");
    if (e->evidence & TC_NCCL_EV_PEER_WAIT && len < n)
        tc_format(buf + len, n - len, "; its proxy waits on the peer %s of its time (the network %s): the fabric or the "
                  "far side more than NCCL's choices", tc_fmt_pct(pp[0], sizeof pp[0], e->proxy_peer_wait_share, 0),
                  tc_fmt_pct(pp[1], sizeof pp[1], e->proxy_net_share, 0));
}

/* What each setting answers, from the evidence it was chosen for. */
static const char *nccl_try_why(const tc_nccl_try *t) {
    switch (t->setting) {
    case TC_NCCL_SET_PROTO: return "LL sends half its bytes as flags, a protocol for small messages";
    case TC_NCCL_SET_MIN_NCHANNELS: return "few channels cannot fill the link on large messages";
    case TC_NCCL_SET_ALGO: return "a ring's latency grows with the nodes, a tree's with their logarithm";
    case TC_NCCL_SET_IB_QPS_PER_CONNECTION: return "more queue pairs spread the traffic over the fabric's paths";
    case TC_NCCL_SET_NCHANNELS_PER_NET_PEER:
        return t->because == TC_NCCL_EV_FEW_CHANNELS ? "more channels per network peer" : "more connections per peer";
    default: return "";
    }
}

/* "NCCL_PROTO=Simple (why), NCCL_MIN_NCHANNELS=8 (why)" */
static const char *nccl_tries_text(char *buf, size_t n, const tc_nccl_evidence *e) {
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < e->n_tries && len < n; i++)
        len += tc_format(buf + len, n - len, "%s%s=%s (%s)", i ? (i + 1 == e->n_tries ? " or " : ", ") : "",
                         tc_nccl_setting_name(e->tries[i].setting), e->tries[i].value, nccl_try_why(&e->tries[i]));
    return buf;
}

/* The FABRIC reason: the row's groups, scope, link and bus bandwidth against the link's rating. */
static const char *fabric_reason(char *buf, size_t n, const tc_reason *r, const tc_job *j) {
    const tc_group_row *row = &j->group_rows[r->row];
    char label[200], where[80], bw[300];
    bool many = row->groups > 1;
    char ps[TC_PCT_LEN];
    tc_format(buf, n, "%s, %s, %s the most exposed %s, %s of GPU time; %s",
              tc_group_row_label(label, sizeof label, j, row), scope_link(where, sizeof where, &row->f),
              many ? "carry" : "carries", row->f.split_known ? "transfer" : "communication", TC_PCT1(ps, r->row_share),
              fabric_bw_text(bw, sizeof bw, &row->f, many, r));
    if (row->f.partial && row->f.has_busbw) {
        size_t len = strlen(buf);
        tc_format(buf + len, n > len ? n - len : 0, " (ranks of %s are missing from the inputs: the bus bandwidth is "
                  "a lower bound)", many ? "these groups" : "this group");
    }
    nccl_reason_text(buf, n, &r->nccl);
    return buf;
}

static const char *const cp_labels[TC_CP_CLASSES] = {
    "compute", "intra-node transfer", "inter-node transfer", "launching", "synchronizing calls",
    "host work between calls", "memory copies", "idle"};

const char *tc_cp_class_label(int cls) { return cls >= 0 && cls < TC_CP_CLASSES ? cp_labels[cls] : "?"; }

/* The CRITICAL_PATH reason: "the critical path across ranks is 64.0% rank 5's compute (...): a
 * network that moves bytes instantly would save at most 2.5% of the step". */
static void critical_path_text(char *buf, size_t n, const tc_reason *r) {
    char what[200], saving[200] = "", pc[2][TC_PCT_LEN];
    TC_PCT1(pc[0], r->cp_share);
    TC_PCT1(pc[1], r->cp_compute_share);
    if (r->cp_class == TC_CP_COMPUTE && r->rank >= 0 && r->cp_compute_share - r->cp_share >= TC_SHOWN_SHARE)
        tc_format(what, sizeof what, "%s rank %lld's compute (%s compute in all)", pc[0], (long long)r->rank, pc[1]);
    else if (r->cp_class == TC_CP_COMPUTE && r->rank >= 0)
        tc_format(what, sizeof what, "%s rank %lld's compute", pc[0], (long long)r->rank);
    else tc_format(what, sizeof what, "%s %s (compute %s)", pc[0], tc_cp_class_label(r->cp_class), pc[1]);
    if (r->has_fabric_saving && r->fabric_saving < TC_SHOWN_SHARE && r->cp_inter_share <= 0)
        tc_format(saving, sizeof saving, ": no inter-node transfer is on it, so a faster fabric between nodes would save "
                  "nothing");
    else if (r->has_fabric_saving)
        tc_format(saving, sizeof saving, ": a network that moves bytes instantly would save at most %s of the step%s",
                  TC_PCT1(pc[0], r->fabric_saving), r->cp_bound ? " (on partial data)" : "");
    tc_format(buf, n, "the critical path across ranks (through %zu rank%s) is %s%s", r->cp_ranks, r->cp_ranks == 1 ? "" : "s",
              what, saving);
}

const char *tc_verdict_words(tc_verdict v) {
    return v == TC_VERDICT_TOO_SMALL ? "too small to judge" : tc_verdict_name(v);
}

const char *tc_reason_text(char *buf, size_t n, const tc_reason *r, const tc_job *j) {
    char pb[4][TC_PCT_LEN], th[TC_PCT_LEN]; /* the shares in their one form (tc_fmt_pct) */
    switch (r->code) {
    case TC_REASON_FABRIC:
        if (r->row < j->n_group_rows) return fabric_reason(buf, n, r, j);
        tc_format(buf, n, "?");
        break;
    case TC_REASON_NETWORK:
        if (r->split_known)
            tc_format(buf, n, "exposed communication is %s of %s (threshold %s), mostly moving bytes "
                      "(not hidden by compute): transfer %s, wait %s", TC_PCT1(pb[0], r->comm), of_time(r), tc_fmt_pct(th, sizeof th, r->threshold, 0),
                      TC_PCT1(pb[1], r->transfer), TC_PCT1(pb[2], r->wait));
        else
            tc_format(buf, n, "exposed communication is %s of %s (threshold %s; not split into wait "
                      "and transfer: one rank)", TC_PCT1(pb[0], r->comm), of_time(r), tc_fmt_pct(th, sizeof th, r->threshold, 0));
        break;
    case TC_REASON_STRAGGLER:
        tc_format(buf, n, "exposed communication is %s of %s (threshold %s), mostly waiting for slower "
                  "ranks: wait %s, transfer %s", TC_PCT1(pb[0], r->comm), of_time(r), tc_fmt_pct(th, sizeof th, r->threshold, 0), TC_PCT1(pb[1], r->wait),
                  TC_PCT1(pb[2], r->transfer));
        break;
    case TC_REASON_HOST:
        if (r->device_memory >= TC_SHOWN_SHARE)
            tc_format(buf, n, "GPUs idle or copying to or from the host %s of the time (idle %s + exposed host "
                      "copies %s; threshold %s; device copies, %s, are GPU work)", TC_PCT1(pb[0], r->host),
                      TC_PCT1(pb[1], r->idle), TC_PCT1(pb[2], r->memory), tc_fmt_pct(th, sizeof th, r->threshold, 0), TC_PCT1(pb[3], r->device_memory));
        else
            tc_format(buf, n, "GPUs idle or copying memory %s of the time (idle %s + exposed memory %s; "
                      "threshold %s)", TC_PCT1(pb[0], r->host), TC_PCT1(pb[1], r->idle), TC_PCT1(pb[2], r->memory), tc_fmt_pct(th, sizeof th, r->threshold, 0));
        break;
    case TC_REASON_COMPUTE:
        if (r->device_memory >= TC_SHOWN_SHARE)
            tc_format(buf, n, "no loss reaches %s of %s: exposed communication %s, idle + exposed host "
                      "copies %s (device copies, %s, are GPU work)", tc_fmt_pct(th, sizeof th, r->threshold, 0), of_time(r), TC_PCT1(pb[0], r->comm),
                      TC_PCT1(pb[1], r->host), TC_PCT1(pb[2], r->device_memory));
        else
            tc_format(buf, n, "no loss reaches %s of %s: exposed communication %s, idle + exposed memory "
                      "%s", tc_fmt_pct(th, sizeof th, r->threshold, 0), of_time(r), TC_PCT1(pb[0], r->comm), TC_PCT1(pb[1], r->host));
        break;
    case TC_REASON_SPEEDUP:
        if (r->has_speedup_class)
            tc_format(buf, n, "removing the %s would make the job %.2fx faster, all exposed communication %.2fx",
                      r->wait > r->transfer ? "waiting" : "exposed transfer", r->speedup, r->speedup_class);
        else tc_format(buf, n, "removing that time would make the job %.2fx faster", r->speedup);
        break;
    case TC_REASON_SHARES: {
        char mem[80];
        if (r->device_memory >= TC_SHOWN_SHARE)
            tc_format(mem, sizeof mem, "%s (host copies %s, device copies %s)",
                      TC_PCT1(pb[0], (r->memory + r->device_memory)), TC_PCT1(pb[1], r->memory), TC_PCT1(pb[2], r->device_memory));
        else tc_format(mem, sizeof mem, "%s", TC_PCT1(pb[0], r->memory));
        if (r->split_known)
            tc_format(buf, n, "shares of %s: compute %s, exposed transfer %s, exposed wait %s, "
                      "exposed memory %s, idle %s", of_time(r), TC_PCT1(pb[0], r->compute), TC_PCT1(pb[1], r->transfer), TC_PCT1(pb[2], r->wait), mem,
                      TC_PCT1(pb[3], r->idle));
        else
            tc_format(buf, n, "shares of %s: compute %s, exposed communication %s%s, exposed memory "
                      "%s, idle %s", of_time(r), TC_PCT1(pb[0], r->compute), TC_PCT1(pb[1], r->comm),
                      r->comm > 0 ? " (wait and transfer unknown with one rank)" : "", mem, TC_PCT1(pb[2], r->idle));
        break;
    }
    case TC_REASON_WORST_RANK:
        tc_format(buf, n, "rank %lld loses %s of its GPU time to %s, against %s over all ranks",
                  (long long)r->rank, TC_PCT1(pb[0], r->rank_share), class_words(r->loss),
                  TC_PCT1(pb[1], (r->loss == TC_LOSS_COMM ? r->comm : r->host)));
        break;
    case TC_REASON_STRAGGLER_RANK:
    {
        char wait[TC_FINDING_TEXT];
        tc_straggler_wait_text(wait, sizeof wait, r->waiting_ranks, r->wait_per_rank_ns_per_step, r->wait_ns_per_step);
        tc_format(buf, n, "rank %lld causes %s of the waiting (it arrives last at %s of collectives): %s",
                  (long long)r->rank, tc_fmt_pct(pb[0], sizeof pb[0], r->caused_wait_share, 0),
                  tc_fmt_pct(pb[1], sizeof pb[1], r->last_arrival_share, 0), wait);
        break;
    }
    case TC_REASON_HOST_CAUSE:
        host_cause_text(buf, n, r);
        break;
    case TC_REASON_CRITICAL_PATH:
        critical_path_text(buf, n, r);
        break;
    case TC_REASON_A2A_IMBALANCE:
        if (r->row < j->a2a.n_groups) {
            const tc_a2a_group *g = &j->a2a.groups[r->row];
            tc_format(buf, n, "all-to-all imbalance in %s: rank %lld sends up to %.2fx the mean bytes, and the "
                      "others' wait for it is %s of the group's all-to-all time: rebalance the routing "
                      "(experts, capacity factor), not the fabric", j->inst_groups[g->inst_group].shown,
                      (long long)r->rank, g->max_ratio, TC_PCT1(pb[0], r->caused_wait_share));
        } else tc_format(buf, n, "?");
        break;
    case TC_REASON_PP_BUBBLE:
        tc_format(buf, n, "pipeline bubble %s of GPU time: more microbatches or an interleaved schedule",
                  TC_PCT1(pb[0], r->cause_share));
        break;
    case TC_REASON_TOO_SMALL:
    {
        char busy[TC_ATTR_LEN], need[TC_ATTR_LEN];
        tc_format(buf, n, "%llu GPU event%s, %s ms of GPU time: at least %llu events or %s ms "
                  "are needed to judge", (unsigned long long)r->gpu_events, r->gpu_events == 1 ? "" : "s",
                  tc_fmt_num(busy, sizeof busy, ms(r->gpu_busy_ns), tc_sig_decimals(ms(r->gpu_busy_ns), 3)),
                  (unsigned long long)r->need_events,
                  tc_fmt_num(need, sizeof need, ms(r->need_busy_ns), tc_sig_decimals(ms(r->need_busy_ns), 3)));
        break;
    }
    default:
        tc_format(buf, n, "?");
    }
    return buf;
}

const char *tc_straggler_wait_text(char *buf, size_t n, size_t waiting_ranks, int64_t per_rank_ns, int64_t total_ns) {
    if (waiting_ranks == 1)
        tc_format(buf, n, "the other rank waits %.3f ms per step for it", ms(per_rank_ns));
    else
        tc_format(buf, n, "each of the other %zu ranks waits %.3f ms per step for it (%.3f GPU-ms in total)",
                  waiting_ranks, ms(per_rank_ns), ms(total_ns));
    return buf;
}

const char *tc_straggler_rule_text(void) {
    return "At each matched collective where one rank alone arrives last, the waits of the other ranks are "
           "charged to it. The straggler is the rank charged the most, named when it is charged at least "
           "clamp(2/n, 0.5, 0.75) of all charged wait (n ranks; a fair share is 1/n) and the wait it causes, "
           "summed over the other ranks, is at least 1% of its own window per step.";
}

/* ---- the basis ---------------------------------------------------------------------------- */

const char *tc_basis_reason_text(char *buf, size_t n, const tc_basis_reason *b) {
    char pu[TC_PCT_LEN];
    switch (b->code) {
    case TC_BASIS_WORLD_SIZE:
        tc_format(buf, n, "%lld of the job's %lld ranks %s given (its world size is from the traces): waits, "
                  "transfer and the straggler are judged among %s, so transfer is an upper bound and waits are lower "
                  "bounds, and the cost prices all %lld GPUs as if the others ran alike", (long long)b->count,
                  (long long)b->of, b->count == 1 ? "was" : "were", b->count == 1 ? "that rank" : "those ranks",
                  (long long)b->of);
        break;
    case TC_BASIS_GROUP_RANKS:
        tc_format(buf, n, "process group %s has %lld of its %lld ranks among the inputs%s: transfer is an upper "
                  "bound and waits are lower bounds", b->group ? b->group : "?", (long long)b->present,
                  (long long)b->size, b->count > 1 ? " (and other groups miss ranks too)" : "");
        break;
    case TC_BASIS_UNMATCHED:
        tc_format(buf, n, "%lld of %lld collective instances could not be matched across ranks (%s of exposed "
                  "communication): they count as transfer, so transfer is an upper bound and wait a lower bound",
                  (long long)b->count, (long long)b->of, TC_PCT1(pu, b->share));
        break;
    case TC_BASIS_SALVAGED:
        tc_format(buf, n, "%lld of %lld inputs %s cut short or damaged: %s figures cover the part that was read",
                  (long long)b->count, (long long)b->of, b->count == 1 ? "was" : "were", b->count == 1 ? "its" : "their");
        break;
    case TC_BASIS_NOT_SPLIT:
        if (b->count <= 1)
            tc_format(buf, n, "one rank: its exposed communication cannot be split into waiting for other ranks and "
                      "transfer, so it all counts as transfer (an upper bound)");
        else
            tc_format(buf, n, "the collectives of the %lld ranks could not be matched, so exposed communication is not "
                      "split into waiting for other ranks and transfer: it all counts as transfer (an upper bound)",
                      (long long)b->count);
        break;
    default:
        tc_format(buf, n, "?");
    }
    return buf;
}

const char *tc_basis_reason_code(const tc_basis_reason *b) {
    switch (b->code) {
    case TC_BASIS_WORLD_SIZE: return "world_size";
    case TC_BASIS_GROUP_RANKS: return "group_ranks";
    case TC_BASIS_UNMATCHED: return "unmatched_collectives";
    case TC_BASIS_SALVAGED: return "salvaged_inputs";
    case TC_BASIS_NOT_SPLIT: return b->count <= 1 ? "one_rank" : "not_split";
    }
    return "?";
}

const char *tc_basis_summary_text(char *buf, size_t n, const tc_summary *sm) {
    return tc_basis_list_text(buf, n, sm->basis_reasons, sm->n_basis_reasons);
}

const char *tc_basis_list_text(char *buf, size_t n, const tc_basis_reason *reasons, size_t nr) {
    size_t len = 0;
    char pu[TC_PCT_LEN];
    if (n) buf[0] = '\0';
    for (size_t i = 0; i < nr && len < n; i++) {
        const tc_basis_reason *b = &reasons[i];
        const char *sep = i ? "; " : "";
        switch (b->code) {
        case TC_BASIS_WORLD_SIZE:
            len += tc_format(buf + len, n - len, "%s%lld of %lld ranks", sep, (long long)b->count, (long long)b->of);
            break;
        case TC_BASIS_GROUP_RANKS:
            len += tc_format(buf + len, n - len, "%s%lld of %lld ranks of a process group", sep, (long long)b->present,
                             (long long)b->size);
            break;
        case TC_BASIS_UNMATCHED:
            len += tc_format(buf + len, n - len, "%s%lld of %lld collectives unmatched, %s of exposed communication",
                             sep, (long long)b->count, (long long)b->of, tc_fmt_pct(pu, sizeof pu, b->share, 0));
            break;
        case TC_BASIS_SALVAGED:
            len += tc_format(buf + len, n - len, "%s%lld of %lld inputs cut short", sep, (long long)b->count,
                             (long long)b->of);
            break;
        case TC_BASIS_NOT_SPLIT:
            len += tc_format(buf + len, n - len, "%s%s, wait and transfer not split", sep,
                             b->count <= 1 ? "one rank" : "collectives unmatched");
            break;
        }
    }
    return buf;
}

/* One clause of the nodes note for each bit of sm->node_notes, appended at buf + len. */
static size_t node_note_clauses(char *buf, size_t n, size_t len, const tc_summary *sm) {
    unsigned m = sm->node_notes;
    const char *sep = len ? "; " : "";
#define CLAUSE(...) (len += tc_format(buf + len, n > len ? n - len : 0, __VA_ARGS__), sep = "; ")
    if (m & TC_NODE_NOTE_HOSTS_PARTIAL)
        CLAUSE("%s%lld of %zu inputs record a host name, so the host names are not used", sep,
               (long long)sm->node_host_inputs, sm->ranks);
    if (m & TC_NODE_NOTE_HOSTS_SHARE) CLAUSE("%stwo ranks the traces put on one host use the same device", sep);
    if ((m & TC_NODE_NOTE_NAMES_DISAGREE) && sm->node_device_nodes > 0)
        CLAUSE("%sthe hosts in the file names (%lld) are not the nodes of the device indices (%lld): the file names "
               "are not used", sep, (long long)sm->node_name_hosts, (long long)sm->node_device_nodes);
    else if (m & TC_NODE_NOTE_NAMES_DISAGREE)
        CLAUSE("%sthe file names give %lld host%s, but two ranks of one host use the same device: the file names are "
               "not used", sep, (long long)sm->node_name_hosts, sm->node_name_hosts == 1 ? "" : "s");
    if (m & TC_NODE_NOTE_NAMES_UNCHECKED)
        CLAUSE("%sthe ranks' device indices are unknown, so the file names' hosts are not checked", sep);
    if (m & TC_NODE_NOTE_DEVICES_UNFIT) CLAUSE("%sthe device indices do not follow the ranks (rank r on device r mod G)", sep);
    if (m & TC_NODE_NOTE_DEVICES_UNKNOWN)
        CLAUSE("%sa rank's device index is unknown (its GPU events are not on one numbered device)", sep);
#undef CLAUSE
    return len;
}

const char *tc_nodes_note_text(char *buf, size_t n, const tc_summary *sm) {
    if (n) buf[0] = '\0';
    size_t len = node_note_clauses(buf, n, 0, sm);
    if (!sm->nodes_assumed) return buf;
    const char *sep = len ? "; " : "";
    if (sm->node_rule == TC_NODES_ASSUMED)
        tc_format(buf + len, n > len ? n - len : 0, "%s%lld GPUs per node assumed: %lld node%s; pass --gpus-per-node G "
                  "to say", sep, (long long)TC_NODES_ASSUMED_GPUS, (long long)sm->nodes, sm->nodes == 1 ? "" : "s");
    else
        tc_format(buf + len, n > len ? n - len : 0, "%s%lld GPUs per node assumed for the ranks not among the inputs: "
                  "%lld node%s; pass --gpus-per-node G to say", sep, (long long)TC_NODES_ASSUMED_GPUS,
                  (long long)sm->nodes, sm->nodes == 1 ? "" : "s");
    return buf;
}

const char *tc_node_rule_name(tc_node_rule rule) {
    switch (rule) {
    case TC_NODES_FLAG: return "flag";
    case TC_NODES_FILE_NAMES: return "file names";
    case TC_NODES_TRACE_HOSTS: return "trace hosts";
    case TC_NODES_DEVICES: return "device indices";
    case TC_NODES_ASSUMED: break;
    }
    return "assumed";
}

const char *tc_nodes_rule_text(char *buf, size_t n, const tc_summary *sm) {
    long long k = (long long)sm->nodes, g = (long long)sm->gpus_per_node;
    switch (sm->node_rule) {
    case TC_NODES_FLAG: tc_format(buf, n, "%lld, %lld GPU%s per node as --gpus-per-node says", k, g, g == 1 ? "" : "s"); break;
    case TC_NODES_TRACE_HOSTS: tc_format(buf, n, "%lld, by the host names the traces record", k); break;
    case TC_NODES_FILE_NAMES:
        tc_format(buf, n, "%lld, by the hosts in the file names%s", k,
                  sm->node_notes & TC_NODE_NOTE_NAMES_UNCHECKED ? "" : " (the device indices agree)");
        break;
    case TC_NODES_DEVICES:
        if (sm->node_period > 0)
            tc_format(buf, n, "%lld, by the ranks' device indices (%lld GPU%s per node)", k, g, g == 1 ? "" : "s");
        else tc_format(buf, n, "%lld, by the ranks' device indices", k);
        break;
    case TC_NODES_ASSUMED: tc_format(buf, n, "%lld, assumed (nothing in the traces says)", k); break;
    }
    return buf;
}

/* The actions that carry no number. */
static const char *action_fixed(tc_action_code code) {
    switch (code) {
    case TC_ACTION_HIDE_COMM:
        return "Hide communication behind compute: bigger DDP buckets (bucket_cap_mb), gradient accumulation (fewer "
               "all-reduces per sample), overlap with compute (FSDP forward/backward prefetch).";
    case TC_ACTION_MEASURE_FABRIC:
        return "Check the fabric: measure bus bandwidth with nccl-tests (all_reduce_perf) on the same nodes and "
               "compare with what the links should give.";
    case TC_ACTION_FEWER_BYTES:
        return "Send fewer bytes: bf16 gradients or compression hooks, a larger batch per GPU, or keep tensor "
               "parallelism within a node.";
    case TC_ACTION_BALANCE_WORK:
        return "No single rank arrives last: waits are spread, so balance the work per rank (sequence lengths, "
               "uneven batches, pipeline stages).";
    case TC_ACTION_COMPARE_RANKS:
        return "Compare per-rank compute in the table above; a rank whose host is busy (logging, checkpointing, "
               "evaluation on rank 0) delays every collective.";
    case TC_ACTION_FEED_GPUS:
        return "Feed the GPUs faster: more DataLoader workers (num_workers), pin_memory=True, prefetch_factor, "
               "non_blocking copies.";
    case TC_ACTION_CUT_LAUNCHES:
        return "Cut launch overhead: CUDA graphs (torch.compile mode=\"reduce-overhead\"), fused kernels, a larger "
               "batch per step.";
    case TC_ACTION_AVOID_SYNCS:
        return "Avoid host-device syncs in the step: .item(), .cpu(), printing losses, torch.cuda.synchronize().";
    case TC_ACTION_KERNEL_WORK:
        return "The GPUs are busy: speed-ups come from kernel-level work (Nsight Compute on the top kernels, fusion, "
               "torch.compile, bf16/fp8 math).";
    case TC_ACTION_PROFILE_LONGER:
        return "Profile more of the real workload (several steps of training or serving, past warm-up) before "
               "acting on these figures: too little GPU work is in the trace to name a bottleneck.";
    case TC_ACTION_MEASURE_MFU:
        return "Measure MFU (record shapes with record_shapes=True) to see how far kernels are from the GPU's peak.";
    default:
        return NULL;
    }
}

/* CUT_LAUNCHES with its launch figures. */
static void launch_rate_text(char *buf, size_t n, const tc_action *a) {
    const tc_launch_stats *l = &a->launch;
    char figures[400] = "", ps[TC_PCT_LEN];
    if (l->kernels && l->launch_calls)
        tc_format(figures, sizeof figures, ": %llu kernels, %s shorter than 10 µs; %llu launch calls take %.3f ms of "
                  "CPU against %.3f ms of GPU busy time%s", (unsigned long long)l->kernels,
                  tc_fmt_pct(ps, sizeof ps, (double)l->short_kernels / (double)l->kernels, 0), (unsigned long long)l->launch_calls,
                  (double)l->launch_cpu_ns / 1e6, (double)l->gpu_busy_ns / 1e6,
                  l->launch_bound ? " (launch-bound: the calls take more CPU time than the GPU is busy)" : "");
    char pct[TC_PCT_LEN];
    tc_format(buf, n, "Cut launch overhead, %s of GPU time%s: CUDA graphs (torch.compile mode=\"reduce-overhead\"), "
              "fused kernels, a larger batch per step.", TC_PCT1(pct, a->share), figures);
}

/* The host actions that answer an idle cause with its share and evidence (a->share > 0). */
static bool host_action_text(char *buf, size_t n, const tc_action *a) {
    char name[256], op[256], where[300];
    const char *nm = a->name ? tc_finding_name(name, sizeof name, a->name) : NULL;
    char pct[TC_PCT_LEN], ps[TC_PCT_LEN];
    TC_PCT1(pct, a->share);
    switch (a->code) {
    case TC_ACTION_AVOID_SYNCS: {
        if (nm && a->where) tc_format(where, sizeof where, " (called in %s)", tc_finding_name(op, sizeof op, a->where));
        else where[0] = 0;
        char drained[200] = "";
        if (a->after_sync_share > 0)
            tc_format(drained, sizeof drained, "; idle gaps worth %s of the time began while the host waited in a sync",
                      TC_PCT1(ps, a->after_sync_share));
        tc_format(buf, n, "Remove the host-device sync that drains the GPU: %s%s leaves it idle %s of the time%s. "
                  "Avoid .item(), .cpu(), printing tensors and torch.cuda.synchronize() inside the step, or issue the "
                  "next work first (non_blocking copies, CUDA events).", nm ? nm : "synchronizing calls", where, pct, drained);
        return true;
    }
    case TC_ACTION_FEED_GPUS:
        tc_format(buf, n, "Feed the GPUs faster: they wait for the data loader%s%s%s %s of the time. More DataLoader "
                  "workers (num_workers), pin_memory=True, prefetch_factor, persistent_workers=True.", nm ? " (" : "",
                  nm ? nm : "", nm ? ")" : "", pct);
        return true;
    case TC_ACTION_CUT_LAUNCHES: launch_rate_text(buf, n, a); return true;
    case TC_ACTION_ALLOCATOR:
        tc_format(buf, n, "Keep allocator calls out of the step: %s leaves the GPU idle %s of the time. Warm the caching "
                  "allocator up before profiling, avoid torch.cuda.empty_cache(), try "
                  "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.", nm ? nm : "cudaMalloc/cudaFree", pct);
        return true;
    case TC_ACTION_WARM_UP:
        tc_format(buf, n, "Lazy module loading on first launches leaves the GPU idle %s of the time: profile after "
                  "warm-up steps (schedule(wait=1, warmup=1, ...)) or load modules eagerly (CUDA_MODULE_LOADING=EAGER).", pct);
        return true;
    case TC_ACTION_HOST_WORK:
        tc_format(buf, n, "Take host work off the step's critical path: the GPU waits on other host work %s of the "
                  "time%s%s. A fused or foreach optimizer, less Python and logging per step, torch.compile.", pct,
                  nm ? ", most in " : "", nm ? nm : "");
        return true;
    case TC_ACTION_GPU_SIDE:
        tc_format(buf, n, "The next work was already queued for %s of the time the GPU sat idle: it waited on its own "
                  "dependencies (cross-stream event waits, another process on the GPU); look at the stream waits.", pct);
        return true;
    case TC_ACTION_TRACE_LAUNCHES:
        tc_format(buf, n, "The trace holds no launch call for work that ends %s of idle time: record CPU activity on "
                  "every thread (torch.profiler activities=[CPU, CUDA]) to see what the host was doing.", pct);
        return true;
    case TC_ACTION_PIN_COPIES:
        if (nm && a->where) tc_format(where, sizeof where, " (called in %s)", tc_finding_name(op, sizeof op, a->where));
        else where[0] = 0;
        tc_format(buf, n, "Copy from pinned memory: %s%s holds the host while the GPU sits idle %s of the time (copy calls "
                  "of 1 ms or more: the CPU stages a copy of pageable memory). Pin the host tensors (pin_memory=True, tensor.pin_memory()) and "
                  "copy with non_blocking=True, or keep the data on the GPU.", nm ? nm : "copy calls", where, pct);
        return true;
    case TC_ACTION_OVERLAP_COPIES:
        tc_format(buf, n, "Overlap memory copies with compute: exposed host copies take %s of the time. pin_memory=True with "
                  "non_blocking=True, prefetch the next batch on a side stream.", pct);
        return true;
    default: return false;
    }
}

/* The FABRIC_* actions about a row of process groups (a->row). */
static const char *fabric_action_text(char *buf, size_t n, const tc_action *a, const tc_job *j) {
    const tc_group_row *row = &j->group_rows[a->row];
    const tc_group_figures *f = &row->f;
    char label[200];
    tc_group_row_label(label, sizeof label, j, row);
    char first = label[0] == 't' ? 'T' : label[0] == 'p' ? 'P' : label[0]; /* the label starting a sentence */
    bool inter = f->scope == TC_SCOPE_INTER, many = row->groups > 1;
    const char *run = many ? "run their" : "runs its";
    char pv[TC_PCT_LEN];
    if (a->code == TC_ACTION_FABRIC_BUSBW)
        tc_format(buf, n, "Check the links of %s: %s %.1f GB/s bus bandwidth; %s, or measure with nccl-tests "
                  "all_reduce_perf on the same nodes.", label, many ? "they reach" : "it reaches", a->value,
                  inter ? "name the fabric between nodes with --fabric ID or --nic-gbps X to compare it with what it "
                          "is rated for (tracecost gpus lists the links)"
                        : "name the GPU with --gpu NAME to compare it with what its link is rated for");
    else if (a->code == TC_ACTION_FABRIC_TUNE && a->nccl.n_tries) {
        char mix[200], tries[700];
        tc_format(buf, n, "Tune NCCL before buying: %s %s %s of what %s %s is rated for, and NCCL ran %s. Try %s; "
                  "measure each with nccl-tests on the same nodes.", label, many ? "reach" : "reaches",
                  tc_fmt_pct(pv, sizeof pv, a->value, 0), many ? "their" : "its", f->link.name,
                  nccl_mix_text(mix, sizeof mix, &a->nccl), nccl_tries_text(tries, sizeof tries, &a->nccl));
    }
    else if (a->code == TC_ACTION_FABRIC_SATURATED && inter)
        tc_format(buf, n, "%c%s %s %s at %s of its rated bandwidth: a faster fabric is what shortens that "
                  "transfer; --fabric-target ID (or --fabric-target-GBps) prices it in the cost section's what-if.",
                  first, label + 1, run, f->link.name, tc_fmt_pct(pv, sizeof pv, a->value, 0));
    else if (a->code == TC_ACTION_FABRIC_SATURATED)
        tc_format(buf, n, "%c%s %s %s at %s of its rated bandwidth: it is the GPU's own link, so fewer "
                  "bytes, more overlap or a GPU with a faster link shorten it (a faster fabric between nodes would "
                  "not).", first, label + 1, run, f->link.name, tc_fmt_pct(pv, sizeof pv, a->value, 0));
    else
        tc_format(buf, n, "Tune before buying: %s %s %s of what %s %s is rated for; check NCCL's %s "
                  "(NCCL_DEBUG=INFO prints the transport it chose), and measure with nccl-tests all_reduce_perf on "
                  "the same nodes.", label, many ? "reach" : "reaches", tc_fmt_pct(pv, sizeof pv, a->value, 0), many ? "their" : "its",
                  f->link.name,
                  inter ? "network settings (NCCL_IB_HCA, NCCL_SOCKET_IFNAME, GPUDirect RDMA) and the NICs' link speed "
                          "and errors"
                        : "use of the link (peer-to-peer enabled, nvidia-smi topo -m) and the message sizes");
    size_t len = strlen(buf);
    char mix[200];
    if (a->code == TC_ACTION_FABRIC_SATURATED && a->nccl.has && len < n)
        tc_format(buf + len, n - len, " No NCCL setting will help: the link already carries what it is rated for%s%s.",
                  a->nccl.has_mix ? ", with NCCL's " : "", a->nccl.has_mix ? nccl_mix_text(mix, sizeof mix, &a->nccl) : "");
    return buf;
}

const char *tc_action_key(tc_action_code code) {
    static const char *const keys[TC_ACTION_CODES] = {
        [TC_ACTION_HIDE_COMM] = "hide_comm", [TC_ACTION_FABRIC_BUSBW] = "fabric_busbw",
        [TC_ACTION_MEASURE_FABRIC] = "measure_fabric", [TC_ACTION_FEWER_BYTES] = "fewer_bytes",
        [TC_ACTION_LOOK_AT_STRAGGLER] = "look_at_straggler", [TC_ACTION_STRAGGLER_MORE_WORK] = "straggler_more_work",
        [TC_ACTION_STRAGGLER_HOST_SIDE] = "straggler_host_side", [TC_ACTION_BALANCE_WORK] = "balance_work",
        [TC_ACTION_COMPARE_RANKS] = "compare_ranks", [TC_ACTION_FEED_GPUS] = "feed_gpus",
        [TC_ACTION_CUT_LAUNCHES] = "cut_launches", [TC_ACTION_AVOID_SYNCS] = "avoid_syncs",
        [TC_ACTION_KERNEL_WORK] = "kernel_work", [TC_ACTION_MFU_GAP] = "mfu_gap", [TC_ACTION_MEASURE_MFU] = "measure_mfu",
        [TC_ACTION_ALLOCATOR] = "allocator", [TC_ACTION_WARM_UP] = "warm_up", [TC_ACTION_HOST_WORK] = "host_work",
        [TC_ACTION_GPU_SIDE] = "gpu_side", [TC_ACTION_TRACE_LAUNCHES] = "trace_launches",
        [TC_ACTION_OVERLAP_COPIES] = "overlap_copies", [TC_ACTION_PIN_COPIES] = "pin_copies",
        [TC_ACTION_FABRIC_SATURATED] = "fabric_saturated", [TC_ACTION_FABRIC_TUNE] = "fabric_tune",
        [TC_ACTION_PROFILE_LONGER] = "profile_longer", [TC_ACTION_FIX_PATH_RANK] = "fix_path_rank",
        [TC_ACTION_FUSE_NORM] = "fuse_norm", [TC_ACTION_GEMM_SHAPES] = "gemm_shapes",
        [TC_ACTION_ATTENTION_KERNEL] = "attention_kernel", [TC_ACTION_FUSE_MEMORY_OPS] = "fuse_memory_ops",
        [TC_ACTION_LAUNCH_BOUND_OPS] = "launch_bound_ops", [TC_ACTION_FUSE_SEQUENCE] = "fuse_sequence"};
    return (unsigned)code < TC_ACTION_CODES && keys[code] ? keys[code] : "?";
}

const char *tc_op_class_name(const tc_op_group *g) { return g->compute_bound ? "compute-bound" : "memory-bound"; }

/* "aten::layer_norm [[8, 512, 4096], [4096]]": the op and its shapes, each cut for a sentence. */
static const char *op_label(char *buf, size_t n, const tc_op_group *g) {
    char op[256], shapes[200];
    tc_finding_name(op, sizeof op, g->op);
    if (g->shapes) {
        tc_term_cell(shapes, sizeof shapes, g->shapes, -48);
        size_t len = strlen(shapes);
        while (len > 0 && shapes[len - 1] == ' ') shapes[--len] = 0;
        tc_format(buf, n, "%s %s", op, shapes);
    } else tc_format(buf, n, "%s (shapes unknown)", op);
    return buf;
}

/* The op actions (tc_job.ops evidence, analyzer/findings.c op_actions). */
static const char *op_action_text(char *buf, size_t n, const tc_action *a, const tc_job *j) {
    char label[600], ps[2][TC_PCT_LEN];
    if (a->code == TC_ACTION_FUSE_SEQUENCE) {
        if (a->op >= j->ops.n_fusions) { tc_format(buf, n, "?"); return buf; }
        const tc_fusion_row *fr = &j->ops.fusions[a->op];
        char ks[4 * 120 + 1]; /* a sequence of kernel names: cut at 120 columns, not a name's 60 */
        tc_term_cell(ks, sizeof ks, fr->kernels, -120);
        for (size_t len = strlen(ks); len > 0 && ks[len - 1] == ' ';) ks[--len] = 0;
        tc_format(buf, n, "Fuse the kernel sequence %s (%u kernels back to back, %lld times, %s of compute time): "
                  "torch.compile or one custom (Triton) kernel runs it as one launch that reads its data once.", ks,
                  fr->length, (long long)fr->occurrences, tc_fmt_pct(ps[0], sizeof ps[0], a->share, 0));
        return buf;
    }
    if (a->op >= j->ops.n_groups) { tc_format(buf, n, "?"); return buf; }
    const tc_op_group *g = &j->ops.groups[a->op];
    op_label(label, sizeof label, g);
    if (a->code == TC_ACTION_LAUNCH_BOUND_OPS) {
        tc_format(buf, n, "%zu op group%s %s launch-bound (median kernel under 10 µs, 10 launches or more), %s of "
                  "compute time, most %s: CUDA graphs (torch.compile mode=\"reduce-overhead\") or fusion (torch.compile) "
                  "for these launch-bound chains.", a->count, a->count == 1 ? "" : "s", a->count == 1 ? "is" : "are",
                  tc_fmt_pct(ps[0], sizeof ps[0], a->share, 0), label);
        return buf;
    }
    const char *advice;
    switch (a->code) {
    case TC_ACTION_FUSE_NORM:
        advice = g->family == TC_OPF_SOFTMAX
                     ? "a fused softmax kernel (fused into the attention kernel, or torch.compile) reads its input once"
                     : "a fused norm kernel (a fused LayerNorm / RMSNorm such as Apex's or a Triton one, or torch.compile) "
                       "reads its input once";
        break;
    case TC_ACTION_GEMM_SHAPES:
        advice = "larger or fused GEMMs (batch the small ones, fuse projections such as Q, K and V into one) or better "
                 "tile shapes (dimensions multiples of 64, torch.compile mode=\"max-autotune\")";
        break;
    case TC_ACTION_ATTENTION_KERNEL:
        advice = "a flash or fused attention kernel (scaled_dot_product_attention with the flash or cuDNN backend, "
                 "FlashAttention)";
        break;
    default:
        advice = "fuse it with its neighbours (torch.compile, a fused optimizer, a Triton kernel) so its tensors are "
                 "read and written once";
        break;
    }
    tc_format(buf, n, "%s runs at %s of the %s roofline over %s of compute time (%.3f ms lost against it): %s.", label,
              tc_fmt_pct(ps[0], sizeof ps[0], a->value, 0), g->compute_bound ? "compute" : "memory",
              tc_fmt_pct(ps[1], sizeof ps[1], a->share, 0), ms(a->lost_ns), advice);
    return buf;
}

const char *tc_action_text(char *buf, size_t n, const tc_action *a, const tc_job *j) {
    if (a->code >= TC_ACTION_FUSE_NORM && a->code <= TC_ACTION_FUSE_SEQUENCE) return op_action_text(buf, n, a, j);
    if ((a->share > 0 || a->after_sync_share > 0) && host_action_text(buf, n, a)) return buf;
    const char *fixed = action_fixed(a->code);
    if (fixed) { tc_format(buf, n, "%s", fixed); return buf; }
    if ((a->code == TC_ACTION_FABRIC_BUSBW || a->code == TC_ACTION_FABRIC_SATURATED || a->code == TC_ACTION_FABRIC_TUNE) &&
        a->row < j->n_group_rows)
        return fabric_action_text(buf, n, a, j);
    switch (a->code) {
    case TC_ACTION_FABRIC_BUSBW:
        tc_format(buf, n, "Check the fabric: collectives reach %.1f GB/s bus bandwidth; compare with what the links "
                  "should give (nccl-tests all_reduce_perf on the same nodes).", a->value);
        break;
    case TC_ACTION_LOOK_AT_STRAGGLER: {
        const char *file = a->input < j->n_traces ? j->traces[a->input].path : "?";
        const char *base = strrchr(file, '/');
        char clean[256];
        tc_term_clean(clean, sizeof clean, base ? base + 1 : file, 80);
        tc_format(buf, n, "Look at rank %lld (trace %s; its host is the machine that wrote that file): its data loader, "
                  "CPU contention, GPU clocks and thermals (nvidia-smi -q), PCIe and NIC errors.", (long long)a->rank, clean);
        break;
    }
    case TC_ACTION_STRAGGLER_MORE_WORK:
    case TC_ACTION_STRAGGLER_HOST_SIDE:
        tc_format(buf, n, "Its compute is %.3f ms per step against a median of %.3f ms: %s",
                  (double)a->compute_ns_per_step / 1e6, (double)a->median_compute_ns_per_step / 1e6,
                  a->code == TC_ACTION_STRAGGLER_MORE_WORK
                      ? "more GPU work or a slower GPU (uneven batches or sequence lengths, throttling)."
                      : "the GPU work is the same, so the delay comes from its host side (input, CPU, launch).");
        break;
    case TC_ACTION_FIX_PATH_RANK: {
        char saving[160] = "", pf[2][TC_PCT_LEN];
        if (a->has_fabric_saving && a->fabric_saving < TC_SHOWN_SHARE && a->value <= 0)
            tc_format(saving, sizeof saving, "; a faster fabric would not shorten it (no inter-node transfer is on the path)");
        else if (a->has_fabric_saving)
            tc_format(saving, sizeof saving, "; a faster fabric would save at most %s of the step%s", TC_PCT1(pf[0], a->fabric_saving),
                      a->cp_bound ? " (on partial data)" : "");
        tc_format(buf, n, "Fix rank %lld%s: the critical path is %s its compute, %.3f ms per step against the "
                  "median rank's %.3f ms%s.", (long long)a->rank, a->first ? " first" : "", TC_PCT1(pf[1], a->share), (double)a->compute_ns_per_step / 1e6,
                  (double)a->median_compute_ns_per_step / 1e6, saving);
        break;
    }
    case TC_ACTION_MFU_GAP: {
        char pm[TC_PCT_LEN];
        tc_format(buf, n, "MFU is %s of the GPU's peak: the gap to peak is what kernel work can win.", TC_PCT1(pm, a->value));
        break;
    }
    default:
        tc_format(buf, n, "?");
    }
    return buf;
}
