/* cost.c: the cost model (see cost.h; formulas in docs/cost-model.md). Inputs carry their
 * provenance and are set by rank; tc_cost_compute runs in steps: trace facts, range checks,
 * required values, derived defaults, the rent side, the own side and its timeline, the fabric
 * what-if, and a last guard that nothing is NaN or infinite. What each input is (name, range)
 * comes from model/cost_inputs.def; parsing text and writing results are the cli's and reports'. */
#include "cost.h"
#include "base/status.h"
#include "base/util.h"
#include <math.h>
#include <string.h>

/* Where each row of cost_inputs.def lives in tc_cost_inputs. */
static const size_t input_offset[TC_COST_INPUT_COUNT] = {
#define TC_COST_INPUT(field, name, kind, unit, letter, help) offsetof(tc_cost_inputs, field),
#include "model/cost_inputs.def"
#undef TC_COST_INPUT
};

tc_cost_value *tc_cost_inputs_value(tc_cost_inputs *in, tc_cost_input_id id) {
    if ((unsigned)id >= TC_COST_INPUT_COUNT) return NULL;
    return (tc_cost_value *)((char *)in + input_offset[id]);
}

const tc_cost_value *tc_cost_inputs_cvalue(const tc_cost_inputs *in, tc_cost_input_id id) {
    if ((unsigned)id >= TC_COST_INPUT_COUNT) return NULL;
    return (const tc_cost_value *)((const char *)in + input_offset[id]);
}

const char *tc_cost_source_str(tc_cost_source src) {
    switch (src) {
    case TC_COST_SRC_DEFAULT: return "default";
    case TC_COST_SRC_CATALOG: return "catalog";
    case TC_COST_SRC_TRACE: return "trace";
    case TC_COST_SRC_CONFIG: return "config";
    case TC_COST_SRC_FLAG: return "flag";
    case TC_COST_SRC_UNSET: break;
    }
    return "unset";
}

const char *tc_cost_bound_str(tc_cost_bound b) {
    return b == TC_COST_LOWER ? "lower bound" : b == TC_COST_UPPER ? "upper bound" : "exact";
}

/* Sets v to x with rank src and an origin, unless something of higher rank already set it. */
static void put_value(tc_cost_value *v, double x, tc_cost_source src, const char *origin) {
    if (v->set && v->source > src) return;
    v->value = x;
    v->set = true;
    v->source = src;
    tc_format(v->origin, sizeof v->origin, "%s", origin);
}

void tc_cost_inputs_defaults(tc_cost_inputs *in) {
    memset(in, 0, sizeof *in);
    for (int id = 0; id < TC_COST_INPUT_COUNT; id++)
        tc_format(tc_cost_inputs_value(in, (tc_cost_input_id)id)->origin, TC_COST_ORIGIN_LEN, "unset");
    tc_format(in->gpu_origin, sizeof in->gpu_origin, "unset");
    put_value(&in->months, TC_COST_DEFAULT_MONTHS, TC_COST_SRC_DEFAULT, "default");
    put_value(&in->utilization, TC_COST_DEFAULT_UTILIZATION, TC_COST_SRC_DEFAULT, "default");
    put_value(&in->power_kw_per_gpu, TC_COST_DEFAULT_POWER_KW, TC_COST_SRC_DEFAULT,
              "default (8-GPU server draws about 10 kW)");
    put_value(&in->electricity_per_kwh, TC_COST_DEFAULT_ELECTRICITY, TC_COST_SRC_DEFAULT,
              "default (assumed)");
    put_value(&in->pue, TC_COST_DEFAULT_PUE, TC_COST_SRC_DEFAULT, "default (assumed)");
    put_value(&in->ops_per_month, TC_COST_DEFAULT_OPS, TC_COST_SRC_DEFAULT, "default (not counted)");
}

/* ------------------------------------------------------------------------------------------ */
/* Setting inputs                                                                               */

int tc_cost_set_value(tc_cost_inputs *in, const tc_cost_input_desc *d, double v, tc_cost_source src,
                      const char *origin, char *err, size_t errlen) {
    char why[200];
    if (!tc_cost_input_check(d, v, why, sizeof why)) {
        tc_format(err, errlen, "--%s %s", d->name, why);
        return -1;
    }
    put_value(tc_cost_inputs_value(in, d->id), v, src, origin ? origin : tc_cost_source_str(src));
    return 0;
}

int tc_cost_set_gpu(tc_cost_inputs *in, const char *id_or_name, tc_cost_source src, const char *origin,
                    char *err, size_t errlen) {
    const tc_gpu_spec *g = id_or_name ? tc_gpu_find_by_id(id_or_name) : NULL;
    if (!g) {
        char why[600];
        tc_gpu_unknown_text(why, sizeof why, id_or_name);
        tc_format(err, errlen, "--gpu: %s", why);
        return -1;
    }
    if (in->gpu && in->gpu_source > src) return 0;
    in->gpu = g;
    in->gpu_source = src;
    tc_format(in->gpu_origin, sizeof in->gpu_origin, "%s", origin ? origin : tc_cost_source_str(src));
    return 0;
}

void tc_cost_apply_catalog(tc_cost_inputs *in, const tc_gpu_spec *detected) {
    if (detected && !(in->gpu && in->gpu_source > TC_COST_SRC_TRACE)) {
        in->gpu = detected;
        in->gpu_source = TC_COST_SRC_TRACE;
        tc_format(in->gpu_origin, sizeof in->gpu_origin, "trace (device name)");
    }
    const tc_gpu_spec *g = in->gpu;
    if (!g) return;
    char origin[TC_COST_ORIGIN_LEN];
    tc_format(origin, sizeof origin, "catalog:%s (price dated %s)", g->id, g->rent_date);
    put_value(&in->price_per_gpu_hour, g->rent_usd_per_hour, TC_COST_SRC_CATALOG, origin);
    tc_format(origin, sizeof origin, "catalog:%s (price dated %s)", g->id, g->purchase_date);
    put_value(&in->purchase_per_gpu, g->purchase_usd, TC_COST_SRC_CATALOG, origin);
    tc_format(origin, sizeof origin, "catalog:%s (%.0f W TDP x %.3f)", g->id, g->tdp_W,
              TC_COST_SERVER_POWER_FACTOR);
    put_value(&in->power_kw_per_gpu, g->tdp_W / 1000.0 * TC_COST_SERVER_POWER_FACTOR,
              TC_COST_SRC_CATALOG, origin);
}

tc_cost_trace_facts tc_cost_facts_from_run(const tc_run_summary *s) {
    tc_cost_trace_facts f;
    memset(&f, 0, sizeof f);
    f.world_size = s->world_size;
    f.transfer_split_known = s->split_known;
    /* the step window's shares when the run has steps (docs/definitions.md "Step window") */
    bool st = s->has_step_shares;
    double comm = st ? s->step_share_exposed_comm : s->share_exposed_comm;
    f.exposed_transfer_share = s->split_known ? (st ? s->step_share_exposed_transfer : s->share_exposed_transfer) : comm;
    f.exposed_wait_share = s->split_known ? (st ? s->step_share_exposed_wait : s->share_exposed_wait) : 0;
    /* host copies are a host loss; device copies (D2D, peer, memset) are GPU work, as compute */
    f.memory_share = st ? s->step_share_memory_host : s->share_memory_host;
    f.idle_share = (st ? s->step_share_idle : s->share_idle) + f.memory_share;
    f.verdict = tc_verdict_of_name(s->verdict);
    f.step_time_us = s->has_step_time && s->step_time_us > 0 ? s->step_time_us : 0;
    f.fabric_busbw_GBps = s->has_busbw && s->fabric_busbw_GBps > 0 ? s->fabric_busbw_GBps : 0;
    f.nodes = s->nodes;
    f.gpus_per_node = s->gpus_per_node;
    f.nodes_assumed = s->nodes_assumed;
    f.partial = s->partial;
    f.n_basis = s->partial && s->n_basis <= TC_MAX_BASIS ? s->n_basis : 0;
    for (size_t i = 0; i < f.n_basis; i++) { f.basis[i] = s->basis[i]; f.basis[i].group = NULL; }
    f.transfer_upper_bound = s->transfer_upper_bound;
    f.has_capture_time = s->has_capture_time;
    f.capture_unix_s = s->capture_unix_s;
    f.groups_scoped = s->groups_scoped;
    f.inter_groups = s->inter_groups;
    double window_us = st && s->step_window_us > 0 ? s->step_window_us : s->window_us;
    f.inter_transfer_share = s->groups_scoped && window_us > 0 ? s->inter_exposed_transfer_us / window_us : 0;
    f.inter_busbw_GBps = s->has_inter_busbw && s->inter_busbw_GBps > 0 ? s->inter_busbw_GBps : 0;
    f.has_replay = s->has_replay && s->replay_replayed_step_us > 0;
    f.replay_step_us = f.has_replay ? s->replay_replayed_step_us : 0;
    f.has_reference = f.has_replay && s->has_replay_reference && s->replay_reference && s->replay_reference_step_us > 0;
    f.reference_step_us = f.has_reference ? s->replay_reference_step_us : 0;
    tc_format(f.reference, sizeof f.reference, "%s", f.has_reference ? s->replay_reference : "");
    f.has_projected = f.has_replay && s->has_replay_projected && s->replay_projected_step_us > 0;
    f.projected_step_us = f.has_projected ? s->replay_projected_step_us : 0;
    f.fabric_rated_GBps = s->fabric_rated_GBps > 0 && isfinite(s->fabric_rated_GBps) ? s->fabric_rated_GBps : 0;
    f.projected_has_GBps = s->projected_has_GBps;
    f.projected_GBps = s->projected_GBps;
    f.projected_has_latency = s->projected_has_latency;
    f.projected_latency_us = s->projected_latency_us;
    return f;
}

/* ------------------------------------------------------------------------------------------ */
/* The model, step by step                                                                      */

/* What a trace adds beyond the inputs: shares no flag sets, and the job's nodes. */
typedef struct measured {
    double step_us;    /* mean step time, µs; 0 = unknown */
    double idle_share; /* share 0..1 idle plus exposed host memory copies */
    double wait_share; /* share 0..1 waiting for other ranks inside collectives */
    double memory_share; /* share 0..1: the exposed memory copies' part of idle_share */
    int world;         /* GPUs of the traced job; 0 = no trace */
    int nodes;         /* nodes they span; 0 = unknown */
    double gpus_per_node; /* GPUs per node for another N; 0 = TC_COST_GPUS_PER_NODE */
    bool nodes_assumed;   /* the node count assumed 8 GPUs per node */
} measured;

static void add_note(tc_cost_result *r, const char *text) {
    if (r->n_notes >= TC_COST_MAX_NOTES) return;
    tc_format(r->notes[r->n_notes], sizeof r->notes[0], "%s", text);
    r->n_notes++;
}

/* Checks a trace share: finite and within [0, 1]. */
static bool share_ok(double s) { return isfinite(s) && s >= 0 && s <= 1; }

/* Step 1: the trace's facts, at rank "trace" (N, e and B), and the shares kept in m. */
static int apply_facts(tc_cost_result *r, const tc_cost_trace_facts *facts, measured *m, char *err,
                       size_t errlen) {
    tc_cost_inputs *u = &r->used;
    if (!share_ok(facts->exposed_transfer_share) || !share_ok(facts->exposed_wait_share) ||
        !share_ok(facts->idle_share) || !share_ok(facts->memory_share) ||
        facts->memory_share > facts->idle_share + 1e-9 ||
        facts->exposed_transfer_share + facts->exposed_wait_share > 1 + 1e-9) {
        tc_format(err, errlen,
                  "trace shares out of range (transfer %.6g, wait %.6g, idle %.6g): each must be "
                  "in [0, 1] and transfer + wait at most 1",
                  facts->exposed_transfer_share, facts->exposed_wait_share, facts->idle_share);
        return -1;
    }
    if (facts->world_size > 0)
        put_value(&u->gpus, facts->world_size, TC_COST_SRC_TRACE, "trace (world size)");
    double s = facts->exposed_transfer_share;
    if (facts->transfer_split_known) {
        put_value(&u->network_efficiency, 1 - s, TC_COST_SRC_TRACE,
                  "trace (1 - exposed transfer share)");
        m->wait_share = facts->exposed_wait_share;
        r->has_straggler_loss = true;
    } else {
        s += facts->exposed_wait_share;
        put_value(&u->network_efficiency, 1 - s, TC_COST_SRC_TRACE,
                  "trace (1 rank: 1 - exposed comm share)");
        if (u->network_efficiency.source == TC_COST_SRC_TRACE)
            add_note(r, "one rank: exposed transfer and waiting on other ranks cannot be "
                        "separated, so e = 1 - exposed communication share and the straggler "
                        "loss is unknown");
    }
    if (u->network_efficiency.source == TC_COST_SRC_TRACE && u->network_efficiency.value <= 0) {
        tc_format(err, errlen,
                  "the trace spends all its time in exposed communication (network efficiency "
                  "0): there is no useful work to price; pass --network-efficiency to override");
        return -1;
    }
    m->idle_share = facts->idle_share;
    m->memory_share = facts->memory_share < facts->idle_share ? facts->memory_share : facts->idle_share;
    r->has_idle_loss = true;
    m->world = facts->world_size > 0 ? facts->world_size : 0;
    m->nodes = facts->nodes > 0 ? facts->nodes : 0;
    m->gpus_per_node = facts->gpus_per_node > 0 && isfinite(facts->gpus_per_node) ? facts->gpus_per_node : 0;
    m->nodes_assumed = facts->nodes_assumed;
    r->partial = facts->partial;
    r->n_basis = facts->partial && facts->n_basis <= TC_MAX_BASIS ? facts->n_basis : 0;
    for (size_t i = 0; i < r->n_basis; i++) { r->basis[i] = facts->basis[i]; r->basis[i].group = NULL; }
    if (facts->transfer_upper_bound && u->network_efficiency.source == TC_COST_SRC_TRACE)
        r->efficiency_bound = TC_COST_LOWER;
    if (facts->transfer_upper_bound && r->has_straggler_loss) r->straggler_loss_bound = TC_COST_LOWER;
    if (facts->groups_scoped) { /* the fabric between nodes: what the inter-node groups measured */
        if (facts->inter_busbw_GBps > 0 && isfinite(facts->inter_busbw_GBps))
            put_value(&u->fabric_GBps, facts->inter_busbw_GBps, TC_COST_SRC_TRACE,
                      "trace (inter-node groups' bus bandwidth)");
    } else if (facts->fabric_busbw_GBps > 0 && isfinite(facts->fabric_busbw_GBps))
        put_value(&u->fabric_GBps, facts->fabric_busbw_GBps, TC_COST_SRC_TRACE,
                  "trace (measured bus bandwidth)");
    if (facts->step_time_us > 0 && isfinite(facts->step_time_us)) m->step_us = facts->step_time_us;
    /* the effective figures against the replayed reference, unless e was given or the transfer is an
     * upper bound (one rank, missing ranks, unmatched collectives: the replay keeps what it could not
     * match as measured, so T_ref/T would be too high; N·e is then the lower bound it says it is) */
    if (facts->has_reference && facts->has_replay && isfinite(facts->reference_step_us / facts->replay_step_us) &&
        u->network_efficiency.source == TC_COST_SRC_TRACE && !facts->transfer_upper_bound) {
        r->has_reference = true;
        r->reference_efficiency = facts->reference_step_us / facts->replay_step_us;
        tc_format(r->reference, sizeof r->reference, "%s", facts->reference);
    }
    return 0;
}

/* e_eff: what the effective figures divide by: T_ref/T against a replayed reference, else e. */
static double effective_efficiency(const tc_cost_result *r) {
    return r->has_reference && r->reference_efficiency > 0 ? r->reference_efficiency : r->used.network_efficiency.value;
}

/* Step 2: every value that is set must be in range, wherever it came from. */
static int check_ranges(const tc_cost_inputs *u, char *err, size_t errlen) {
    for (int id = 0; id < TC_COST_INPUT_COUNT; id++) {
        const tc_cost_input_desc *d = tc_cost_input((tc_cost_input_id)id);
        const tc_cost_value *v = tc_cost_inputs_cvalue(u, (tc_cost_input_id)id);
        char why[200];
        if (!v->set) continue;
        if (isfinite(v->value) && tc_cost_input_check(d, v->value, why, sizeof why)) continue;
        if (!isfinite(v->value)) tc_format(why, sizeof why, "must be a finite number");
        if (v->source == TC_COST_SRC_FLAG) tc_format(err, errlen, "--%s %s", d->name, why);
        else tc_format(err, errlen, "--%s (from %s) %s", d->name, v->origin, why);
        return -1;
    }
    return 0;
}

/* Step 3: the values the model cannot do without, every missing one named in one message: one
 * alone as "--gpus is required without a trace: ...", several as "--gpus and --pue are required
 * without a trace. --gpus: ... --pue: ...". */
static int check_required(const tc_cost_inputs *u, char *err, size_t errlen) {
    static const char *const alone[] = {
        "--gpus is required without a trace: the number of GPUs to price",
        ("--network-efficiency is required without a trace: the share of time the GPUs are not waiting on exposed "
         "transfers (0.6 = 40% lost); tracecost analyze measures it from a trace"),
        ("--price-per-gpu-hour is required (rent in $ per GPU-hour), or pass --gpu NAME for the catalog's dated "
         "default (tracecost gpus lists them)"),
    };
    static const char *const what[] = {
        "the number of GPUs to price.",
        ("the share of time the GPUs are not waiting on exposed transfers (0.6 = 40% lost; tracecost analyze "
         "measures it from a trace)."),
        "rent in $ per GPU-hour (or --gpu NAME for the catalog's dated default: tracecost gpus lists them).",
    };
    static const char *const flag[] = {"--gpus", "--network-efficiency", "--price-per-gpu-hour"};
    bool missing[3] = {!u->gpus.set, !u->network_efficiency.set, !u->price_per_gpu_hour.set};
    size_t n = (size_t)missing[0] + missing[1] + missing[2], o = 0, k = 0;
    if (n == 0) return 0;
    if (n == 1) {
        tc_format(err, errlen, "%s", alone[missing[0] ? 0 : missing[1] ? 1 : 2]);
        return -1;
    }
    for (int i = 0; i < 3; i++)
        if (missing[i]) o += tc_format(err + o, errlen > o ? errlen - o : 0, "%s%s", k++ == 0 ? "" : k == n ? " and " : ", ", flag[i]);
    o += tc_format(err + o, errlen > o ? errlen - o : 0, " are required without a trace.");
    for (int i = 0; i < 3; i++)
        if (missing[i]) o += tc_format(err + o, errlen > o ? errlen - o : 0, " %s: %s", flag[i], what[i]);
    return -1;
}

/* Step 4: defaults derived from other values (e_r = e; F from the nodes the N GPUs span: the traced
 * job's nodes when N is its world size, else N / GPUs per node rounded up; no fabric on one node). */
static void derive_defaults(tc_cost_result *r, const measured *m) {
    tc_cost_inputs *u = &r->used;
    if (r->has_reference) {
        char origin[TC_COST_ORIGIN_LEN];
        tc_format(origin, sizeof origin, "default (= T_ref / T, %s)", !strcmp(r->reference, "instant") ? "the instant reference" : r->reference);
        put_value(&u->rent_network_efficiency, effective_efficiency(r), TC_COST_SRC_DEFAULT, origin);
    } else
        put_value(&u->rent_network_efficiency, u->network_efficiency.value, TC_COST_SRC_DEFAULT,
                  "default (= network-efficiency)");
    double N = u->gpus.value, gpn = m->gpus_per_node > 0 ? m->gpus_per_node : TC_COST_GPUS_PER_NODE;
    bool traced = m->nodes > 0 && N == m->world;
    int nodes = traced ? m->nodes : (int)ceil(N / gpn);
    r->fabric_nodes = nodes;
    char origin[TC_COST_ORIGIN_LEN];
    if (nodes <= 1) tc_format(origin, sizeof origin, "default (one node: no fabric)");
    else tc_format(origin, sizeof origin, "default ($15,000 x %d nodes)", nodes);
    put_value(&u->fabric_cost, nodes > 1 ? nodes * TC_COST_FABRIC_PER_NODE : 0, TC_COST_SRC_DEFAULT, origin);
    if (u->fabric_cost.source != TC_COST_SRC_DEFAULT || !u->purchase_per_gpu.set) return; /* F not used */
    bool assumed = traced ? m->nodes_assumed : m->gpus_per_node <= 0;
    if (!assumed) return;
    char note[200];
    tc_format(note, sizeof note, "fabric: %d GPUs per node assumed, so %.0f GPUs span %d node%s%s; %s",
              TC_COST_GPUS_PER_NODE, N, nodes, nodes == 1 ? "" : "s", nodes <= 1 ? " and need no fabric" : "",
              m->world ? "pass --gpus-per-node G or --fabric-cost" : "pass --fabric-cost");
    add_note(r, note);
}

/* Months since year 0 of a "YYYY-MM" date; -1 when it is not one. */
static int64_t month_index(const char *ym) {
    if (!ym || strlen(ym) != 7 || ym[4] != '-') return -1;
    int64_t y = 0, mo = 0;
    for (int i = 0; i < 7; i++) {
        if (i == 4) continue;
        if (ym[i] < '0' || ym[i] > '9') return -1;
        if (i < 4) y = y * 10 + (ym[i] - '0'); else mo = mo * 10 + (ym[i] - '0');
    }
    if (mo < 1 || mo > 12) return -1;
    return y * 12 + mo - 1;
}

/* A note for a catalog price older than TC_COST_PRICE_AGE_MONTHS at the as-of date (asof: its
 * month index, day: its "YYYY-MM-DD"). */
static void price_age_note(tc_cost_result *r, const char *what, const tc_cost_value *v, const char *date, int64_t asof,
                           const char *day) {
    int64_t when = month_index(date);
    if (v->source != TC_COST_SRC_CATALOG || when < 0 || asof - when <= TC_COST_PRICE_AGE_MONTHS) return;
    char note[200];
    tc_format(note, sizeof note, "the catalog %s of %s is dated %s: %lld months (%.1f years) before %s (%s); "
              "pass your own quote", what, r->used.gpu->id, date, (long long)(asof - when),
              (double)(asof - when) / 12.0, day, r->price_as_of_source);
    add_note(r, note);
}

/* Step 4b: the age of the catalog prices used, against the trace's capture date, else today. */
static void age_prices(tc_cost_result *r, const tc_cost_trace_facts *facts) {
    const tc_cost_inputs *u = &r->used;
    if (facts && facts->has_capture_time) {
        r->price_as_of_unix_s = facts->capture_unix_s;
        r->price_as_of_source = "trace capture date";
    } else if (u->has_today) {
        r->price_as_of_unix_s = u->today_unix_s;
        r->price_as_of_source = u->today_from_env ? "SOURCE_DATE_EPOCH" : "today";
    } else return;
    r->has_price_as_of = true;
    if (!u->gpu) return;
    int64_t t = r->price_as_of_unix_s, y;
    int mo, d;
    tc_civil_from_days(t / 86400 - (t % 86400 < 0), &y, &mo, &d);
    char day[32];
    tc_format(day, sizeof day, "%04lld-%02d-%02d", (long long)y, mo, d);
    price_age_note(r, "rent", &u->price_per_gpu_hour, u->gpu->rent_date, y * 12 + mo - 1, day);
    price_age_note(r, "purchase price", &u->purchase_per_gpu, u->gpu->purchase_date, y * 12 + mo - 1, day);
}

/* Step 5: what the network costs and the rent side. */
static void compute_rent(tc_cost_result *r, const measured *m) {
    const tc_cost_inputs *u = &r->used;
    const double N = u->gpus.value, P = u->price_per_gpu_hour.value;
    const double e = effective_efficiency(r);
    r->rent_monthly = N * P * TC_COST_HOURS_PER_MONTH * u->utilization.value;
    r->effective_gpus = N * e;
    r->effective_price_per_gpu_hour = P / e;
    if (r->has_idle_loss) r->idle_loss_per_month = r->rent_monthly * m->idle_share;
    if (r->has_straggler_loss) r->straggler_loss_per_month = r->rent_monthly * m->wait_share;
    r->tco_rent = (int)u->months.value * r->rent_monthly;
    r->rent_cost_per_effective_gpu_hour = P / u->rent_network_efficiency.value;
    /* Every price per effective GPU-hour divides by e (or by e_r left at e): a lower bound on e
     * makes each an upper bound; an e_r given on its own is exact. */
    const tc_cost_bound up = r->efficiency_bound == TC_COST_LOWER ? TC_COST_UPPER : TC_COST_EXACT;
    r->effective_price_bound = up;
    r->rent_price_bound = u->rent_network_efficiency.source == TC_COST_SRC_DEFAULT ? up : TC_COST_EXACT;
    r->own_price_bound = up;
}

/* Why the traced job's inter-node network share is what it is (docs/cost-model.md). */
static tc_cost_inter_rule inter_rule(const tc_cost_trace_facts *f) {
    if (f->world_size == 1) return TC_COST_INTER_ONE_GPU;
    if (f->nodes == 1) return TC_COST_INTER_ONE_NODE;
    if (f->groups_scoped) return f->inter_groups > 0 ? TC_COST_INTER_MEASURED : TC_COST_INTER_GROUPS_IN_NODE;
    return TC_COST_INTER_SCOPE_UNKNOWN;
}

static tc_cost_lead lead_of(tc_verdict v) {
    switch (v) {
    case TC_VERDICT_NETWORK: return TC_COST_LEAD_TRANSFER;
    case TC_VERDICT_STRAGGLER: return TC_COST_LEAD_STRAGGLER;
    case TC_VERDICT_HOST: return TC_COST_LEAD_HOST;
    default: return TC_COST_LEAD_TOTAL;
    }
}

static tc_cost_loss loss(bool known, double share, tc_cost_bound bound) {
    tc_cost_loss l = {known, known && share > 0 ? share : 0, 0, bound};
    return l;
}

/* Step 5b: every class of loss, its share of GPU time x N·P·H·u. The exposed transfer s = 1 - e
 * splits into the inter-node network's part (the inter-node groups' share of the trace's, kept in
 * proportion when e was given) and the rest, intra-node; the verdict names the headline's lead. */
static void compute_losses(tc_cost_result *r, const tc_cost_trace_facts *f, const measured *m) {
    const double s = 1 - r->used.network_efficiency.value;
    const tc_cost_bound up = r->efficiency_bound == TC_COST_LOWER ? TC_COST_UPPER : TC_COST_EXACT;
    tc_cost_loss *L = r->loss;
    if (!f) { /* calculator: all of 1 - e is the network's, as given; nothing else is known */
        r->inter_rule = TC_COST_INTER_GIVEN;
        L[TC_COST_LOSS_INTER_NODE] = loss(true, s, TC_COST_EXACT);
    } else {
        r->inter_rule = inter_rule(f);
        r->inter_nodes_assumed = r->inter_rule == TC_COST_INTER_ONE_NODE && f->nodes_assumed;
        double traced = f->exposed_transfer_share + (f->transfer_split_known ? 0 : f->exposed_wait_share), x = 0;
        if (r->inter_rule == TC_COST_INTER_MEASURED && traced > 0)
            x = s * (f->inter_transfer_share < traced ? f->inter_transfer_share : traced) / traced;
        bool unknown = r->inter_rule == TC_COST_INTER_SCOPE_UNKNOWN;
        if (unknown) x = s;
        bool none = r->inter_rule != TC_COST_INTER_MEASURED && !unknown; /* no network between nodes: 0, exact */
        L[TC_COST_LOSS_INTER_NODE] = loss(true, x, unknown ? TC_COST_UPPER : none ? TC_COST_EXACT : up);
        L[TC_COST_LOSS_INTRA_NODE] = loss(!unknown, s - x, up); /* unknown: inside the inter-node figure */
        L[TC_COST_LOSS_STRAGGLER] = loss(r->has_straggler_loss, m->wait_share, r->straggler_loss_bound);
        L[TC_COST_LOSS_IDLE] = loss(true, m->idle_share - m->memory_share, TC_COST_EXACT);
        L[TC_COST_LOSS_MEMORY] = loss(true, m->memory_share, TC_COST_EXACT);
        r->lead = lead_of(f->verdict);
    }
    r->total_loss_per_month = 0;
    for (int c = 0; c < TC_COST_LOSS_COUNT; c++) {
        L[c].per_month = L[c].known ? r->rent_monthly * L[c].share : 0;
        r->total_loss_per_month += L[c].per_month;
    }
    r->network_loss_per_month = L[TC_COST_LOSS_INTER_NODE].per_month;
}

/* Step 6: the own side (when a purchase price is known) and the cumulative timeline of both. */
static void compute_own(tc_cost_result *r) {
    const tc_cost_inputs *u = &r->used;
    const double N = u->gpus.value, H = TC_COST_HOURS_PER_MONTH, util = u->utilization.value;
    const int M = (int)u->months.value;
    if (u->purchase_per_gpu.set) {
        const double C = u->purchase_per_gpu.value, F = u->fabric_cost.value;
        const double W = u->power_kw_per_gpu.value, E = u->electricity_per_kwh.value;
        const double pue = u->pue.value, O = u->ops_per_month.value;
        r->has_own = true;
        r->own_capex = N * C + F;
        r->own_opex_monthly = N * W * H * util * pue * E + O;
        r->tco_own = r->own_capex + M * r->own_opex_monthly;
        r->own_cost_per_effective_gpu_hour =
            r->tco_own / (N * H * util * M * effective_efficiency(r));
        if (r->rent_monthly > r->own_opex_monthly) {
            r->has_breakeven = true;
            r->breakeven_months = r->own_capex / (r->rent_monthly - r->own_opex_monthly);
        }
        if (u->ops_per_month.source == TC_COST_SRC_DEFAULT && u->ops_per_month.value == 0)
            add_note(r, "staff, colocation and support are not counted in owning (pass "
                        "--ops-per-month)");
    } else {
        add_note(r, "no purchase price: the own side is skipped (pass --purchase-per-gpu, or "
                    "--gpu NAME for a catalog default)");
    }
    r->timeline_len = (size_t)M + 1;
    for (int mo = 0; mo <= M; mo++) {
        r->timeline[mo].month = mo;
        r->timeline[mo].own = r->has_own ? r->own_capex + mo * r->own_opex_monthly : 0;
        r->timeline[mo].rent = mo * r->rent_monthly;
    }
}

/* The payback of the what-if's value recovered, when X is given. */
static void what_if_payback(tc_cost_what_if *w, const tc_cost_inputs *u) {
    if (!u->fabric_upgrade_cost.set) return;
    w->has_upgrade_cost = true;
    w->upgrade_cost = u->fabric_upgrade_cost.value;
    if (w->monthly_value_recovered > 0) {
        w->has_payback = true;
        w->payback_months = w->upgrade_cost / w->monthly_value_recovered;
    }
}

/* True when the run was projected (replayed) for the target the inputs name: B' and A' the same. */
static bool projected_for(const tc_cost_inputs *u, const tc_cost_trace_facts *f) {
    const tc_cost_value *b = &u->fabric_target_GBps, *a = &u->fabric_target_latency_us;
    if (!f->has_projected || b->set != f->projected_has_GBps || a->set != f->projected_has_latency) return false;
    if (b->set && fabs(b->value - f->projected_GBps) > 1e-9 * b->value) return false;
    return !a->set || fabs(a->value - f->projected_latency_us) <= 1e-9 * (a->value > 1 ? a->value : 1);
}

/* Step 7a: the what-if by replay: T' the step graph re-timed on the target, T the unchanged graph
 * re-timed; value recovered N·P·H·u·(1 − T'/T). */
static void replay_what_if(tc_cost_result *r, const tc_cost_trace_facts *f) {
    const tc_cost_inputs *u = &r->used;
    tc_cost_what_if *w = &r->what_if;
    r->has_what_if = true;
    w->method = TC_WHAT_IF_REPLAY;
    /* B: B_rated, what the groups' beta was set against (analyzer/fabric_replay.h tc_fabric_rated_GBps) */
    w->fabric_GBps = f->fabric_rated_GBps > 0 ? f->fabric_rated_GBps : u->fabric_GBps.set ? u->fabric_GBps.value : 0;
    w->target_GBps = u->fabric_target_GBps.set ? u->fabric_target_GBps.value : 0;
    w->has_target_latency = u->fabric_target_latency_us.set;
    w->target_latency_us = u->fabric_target_latency_us.value;
    w->inter_node_only = true;
    w->has_step_time = true;
    w->projected_step_time_us = f->projected_step_us;
    w->step_ratio = f->projected_step_us / f->replay_step_us;
    w->projected_effective_gpus = u->gpus.value * (r->has_reference ? f->reference_step_us : f->replay_step_us *
                                                   u->network_efficiency.value) / f->projected_step_us;
    w->monthly_value_recovered = r->rent_monthly * (1 - w->step_ratio);
    w->value_bound = f->transfer_upper_bound ? TC_COST_LOWER : TC_COST_EXACT;
    what_if_payback(w, u);
}

/* Step 7: the fabric what-if. By replay when the run was replayed on the inputs' target; else
 * scaled: only exposed transfer time changes, scaled by B / B'; from a trace whose process groups
 * have known scopes, only the inter-node groups' (none, or one node: no what-if). */
static void compute_what_if(tc_cost_result *r, const tc_cost_trace_facts *facts, const measured *m) {
    const tc_cost_inputs *u = &r->used;
    const bool target = u->fabric_target_GBps.set || u->fabric_target_latency_us.set;
    bool inter_only = facts && facts->groups_scoped;
    if (target && facts && (facts->world_size == 1 || facts->nodes == 1)) {
        add_note(r, "what-if skipped: the job runs on one node, so a fabric between nodes changes no time");
        return;
    }
    if (inter_only && facts->inter_groups <= 0 && target) {
        add_note(r, "what-if skipped: every process group of the trace runs within one node, so a faster "
                    "fabric between nodes changes no time");
        return;
    }
    if (facts && target && projected_for(u, facts)) {
        replay_what_if(r, facts);
        return;
    }
    if (u->fabric_target_latency_us.set && !u->fabric_target_GBps.set) {
        add_note(r, "what-if skipped: --fabric-target-latency-us needs the replay of the job's step graph (a trace "
                    "with steps, analyzed by the single-process build)");
        return;
    }
    if (!(u->fabric_GBps.set && u->fabric_target_GBps.set)) {
        if (u->fabric_target_GBps.set)
            add_note(r, inter_only ? "what-if skipped: it needs the inter-node groups' measured bus bandwidth "
                                     "(a matched collective of 1 MiB or more), or --fabric-GBps"
                                   : "what-if skipped: it needs the measured fabric bandwidth (from a trace, or "
                                     "--fabric-GBps)");
        else if (u->fabric_upgrade_cost.set)
            add_note(r, "what-if skipped: --fabric-upgrade-cost needs --fabric-target-GBps");
        return;
    }
    tc_cost_what_if *w = &r->what_if;
    const double e = u->network_efficiency.value;
    const double B = u->fabric_GBps.value, Bt = u->fabric_target_GBps.value;
    const double s = 1 - e;                  /* exposed transfer share of the measured step */
    double x = s;                            /* the part that scales: all of it, or the inter-node groups' */
    if (inter_only) x = facts->inter_transfer_share < s ? facts->inter_transfer_share : s;
    const double x_new = x * B / Bt;         /* that time at B', as a share of the old step */
    const double step_ratio = 1 - x + x_new; /* > 0 since 1 - x >= 1 - s = e > 0 */
    const double e_new = (1 - s) / step_ratio;
    r->has_what_if = true;
    w->method = TC_WHAT_IF_SCALED;
    w->fabric_GBps = B;
    w->target_GBps = Bt;
    w->inter_node_only = inter_only;
    w->has_shares = true;
    w->scaled_transfer_share = x;
    w->projected_exposed_transfer_share = (s - x + x_new) / step_ratio;
    if (m->step_us > 0) {
        w->has_step_time = true;
        w->projected_step_time_us = m->step_us * step_ratio;
    }
    w->step_ratio = step_ratio;
    w->projected_effective_gpus = u->gpus.value * e_new;
    w->monthly_value_recovered = r->rent_monthly * (1 - step_ratio);
    what_if_payback(w, u);
    if (facts && !facts->transfer_split_known)
        add_note(r, "what-if: the exposed share scaled by B/B' is 1 - e, so it includes any "
                    "waiting on other ranks, which a faster fabric does not remove");
    if (facts && facts->has_projected)
        add_note(r, "what-if scaled, not replayed: the saved replay was projected for another target (analyze "
                    "the traces with this one to replay it)");
}

/* Step 8: true when every double the result exposes is finite (no NaN/inf escapes). */
static bool result_finite(const tc_cost_result *r) {
    const double v[] = {r->effective_gpus, r->effective_price_per_gpu_hour,
                        r->network_loss_per_month, r->idle_loss_per_month,
                        r->straggler_loss_per_month, r->rent_monthly, r->tco_rent,
                        r->rent_cost_per_effective_gpu_hour, r->own_capex, r->own_opex_monthly,
                        r->tco_own, r->own_cost_per_effective_gpu_hour, r->breakeven_months,
                        r->what_if.projected_exposed_transfer_share,
                        r->what_if.projected_step_time_us, r->what_if.projected_effective_gpus,
                        r->what_if.monthly_value_recovered, r->what_if.payback_months, r->what_if.step_ratio,
                        r->reference_efficiency,
                        r->total_loss_per_month};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!isfinite(v[i])) return false;
    for (size_t i = 0; i < r->timeline_len; i++)
        if (!isfinite(r->timeline[i].own) || !isfinite(r->timeline[i].rent)) return false;
    return true;
}

int tc_cost_compute(const tc_cost_inputs *in, const tc_cost_trace_facts *facts, tc_cost_result *r,
                    char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    r->used = *in;
    measured m;
    memset(&m, 0, sizeof m);
    if ((facts && apply_facts(r, facts, &m, err, errlen) != 0) ||
        check_ranges(&r->used, err, errlen) != 0 || check_required(&r->used, err, errlen) != 0) {
        memset(r, 0, sizeof *r);
        return -1;
    }
    derive_defaults(r, &m);
    age_prices(r, facts);
    compute_rent(r, &m);
    compute_losses(r, facts, &m);
    compute_own(r);
    compute_what_if(r, facts, &m);
    if (!result_finite(r)) {
        tc_format(err, errlen, "the inputs are too large to compute with (a result is not finite)");
        memset(r, 0, sizeof *r);
        return -1;
    }
    return 0;
}
