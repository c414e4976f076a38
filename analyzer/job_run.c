/* job_run.c: a run's summary from an analyzed job (see job_run.h), holding what the job's saved
 * `analyze --json` result would give parsers/result_json.h. */
#include "job_run.h"
#include "base/jsontext.h"
#include "base/util.h"
#include "base/version.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* v as a saved result holds it: written only when known and finite (else null), read back
 * rounded to the JSON text's digits. False (out untouched) when the result would hold null; like
 * the reader, a value that rounds to infinity is stored and reported unknown. */
static bool as_saved(bool has, double v, double *out) {
    if (!has || !isfinite(v)) return false;
    *out = tc_json_double_round(v);
    return isfinite(*out);
}

/* A figure of the summary: as_saved, or (exact) as analyzed. */
static bool figure(bool has, double v, double *out, bool exact) {
    if (!exact) return as_saved(has, v, out);
    if (!has || !isfinite(v)) return false;
    *out = v;
    return true;
}

/* The summary's figures: world size, step time, shares, MFU, fabric bandwidth, straggler. */
static void summary_figures(tc_run_summary *s, const tc_summary *sm, bool exact) {
    s->world_size = sm->ranks >= 1 && sm->ranks <= 1000000000 ? (int)sm->ranks : 1;
    if (sm->has_step_time) {
        s->step_time_us = tc_json_us_from_ns(sm->step_time_ns);
        s->has_step_time = s->step_time_us > 0;
    }
    figure(true, sm->share_compute, &s->share_compute, exact);
    figure(true, sm->share_exposed_comm, &s->share_exposed_comm, exact);
    figure(true, sm->share_memory_exposed, &s->share_memory, exact);
    figure(true, sm->share_memory_host_exposed, &s->share_memory_host, exact);
    figure(true, sm->share_idle, &s->share_idle, exact);
    s->split_known = figure(sm->split_known, sm->share_exposed_transfer, &s->share_exposed_transfer, exact) &&
                     figure(sm->split_known, sm->share_exposed_wait, &s->share_exposed_wait, exact);
    if (!s->split_known) { s->share_exposed_transfer = 0; s->share_exposed_wait = 0; }
    const tc_window_figures *st = &sm->step;
    s->has_step_shares = figure(st->has, st->compute, &s->step_share_compute, exact);
    if (s->has_step_shares) {
        figure(true, st->exposed_comm, &s->step_share_exposed_comm, exact);
        figure(true, st->memory_exposed, &s->step_share_memory, exact);
        figure(true, st->memory_host_exposed, &s->step_share_memory_host, exact);
        figure(true, st->idle, &s->step_share_idle, exact);
        figure(s->split_known, st->exposed_transfer, &s->step_share_exposed_transfer, exact);
        figure(s->split_known, st->exposed_wait, &s->step_share_exposed_wait, exact);
        s->step_window_us = tc_json_us_from_ns(st->b.window_ns);
    }
    s->has_mfu = figure(sm->has_mfu, sm->mfu, &s->mfu, exact);
    s->has_busbw = figure(sm->has_fabric_busbw, sm->fabric_busbw_GBps, &s->fabric_busbw_GBps, exact);
    s->has_straggler = sm->has_straggler;
    s->straggler_rank = sm->has_straggler ? (long long)sm->straggler.rank : -1;
}

/* The first rank's device and the mean FLOPs per step over the ranks that have them. */
static bool rank_figures(tc_run_summary *s, const tc_job *j) {
    double fsum = 0, d;
    size_t fn = 0;
    for (size_t r = 0; r < j->n_ranks; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        if (!s->device && rr->device && !(s->device = tc_json_text_dup(rr->device))) return false;
        if (as_saved(rr->has_mfu, rr->flops_per_step, &d) && d > 0) { fsum += d; fn++; }
    }
    if (fn) { s->has_flops = true; s->flops_per_step = fsum / (double)fn; }
    return true;
}

/* One row per collectives row of the job. Integers go through a double as a JSON reader's do. */
static bool coll_rows(tc_run_summary *s, const tc_job *j) {
    if (!j->n_colls) return true;
    s->colls = calloc(j->n_colls, sizeof *s->colls);
    if (!s->colls) return false;
    for (size_t i = 0; i < j->n_colls; i++) {
        const tc_collective_result *c = &j->colls[i];
        tc_cmp_coll *o = &s->colls[s->n_colls++];
        o->name = tc_json_text_dup(c->name ? c->name : "?");
        o->process_group = tc_json_text_dup(c->process_group);
        if (!o->name || (c->process_group && !o->process_group)) return false;
        o->bytes = c->bytes >= 0 ? (long long)(double)c->bytes : -1;
        o->count = (unsigned long long)(double)c->count;
        o->transfer_us_median = tc_json_us_from_ns(c->transfer_ns_median);
        o->has_busbw = as_saved(c->has_bw, c->busbw_GBps, &o->busbw_GBps);
    }
    return true;
}

/* Each rank's window and where it went, and the top compute kernels, as the JSON holds them. */
static bool rank_and_kernel_rows(tc_run_summary *s, const tc_job *j) {
    if (j->n_ranks && !(s->ranks = calloc(j->n_ranks, sizeof *s->ranks))) return false;
    for (size_t r = 0; r < j->n_ranks; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        tc_cmp_rank *o = &s->ranks[s->n_ranks++];
        o->rank = (long long)(double)rr->rank;
        o->window_us = tc_json_us_from_ns(rr->b.window_ns);
        o->compute_us = tc_json_us_from_ns(rr->b.compute_ns);
        o->exposed_comm_us = tc_json_us_from_ns(rr->b.exposed_comm_ns);
        o->memory_us = tc_json_us_from_ns(rr->b.memory_exposed_ns);
        o->idle_us = tc_json_us_from_ns(rr->b.idle_ns);
        o->has_step_time = rr->has_step_time;
        o->step_time_us = rr->has_step_time ? tc_json_us_from_ns(rr->step_time_ns) : 0;
        if (rr->n_steps > s->steps) s->steps = rr->n_steps;
    }
    if (j->n_top_kernels && !(s->kernels = calloc(j->n_top_kernels, sizeof *s->kernels))) return false;
    for (size_t i = 0; i < j->n_top_kernels; i++) {
        const tc_kernel_row *k = &j->top_kernels[i];
        tc_cmp_kernel *o = &s->kernels[s->n_kernels++];
        if (!(o->name = tc_json_text_dup(k->name ? k->name : "?"))) return false;
        o->time_us = tc_json_us_from_ns(k->time_ns);
        o->count = (unsigned long long)(double)k->count;
        o->has_share = as_saved(true, k->share_of_compute, &o->share_of_compute);
    }
    return true;
}

/* The basis, nodes, capture date and the groups between nodes, as the JSON's summary holds them. */
static void basis_figures(tc_run_summary *s, const tc_summary *sm, bool exact) {
    s->partial = sm->partial;
    s->n_basis = sm->partial && sm->n_basis_reasons <= TC_MAX_BASIS ? sm->n_basis_reasons : 0;
    for (size_t i = 0; i < s->n_basis; i++) { s->basis[i] = sm->basis_reasons[i]; s->basis[i].group = NULL; }
    s->transfer_upper_bound = sm->transfer_upper_bound;
    s->nodes = sm->nodes >= 1 && sm->nodes <= 1000000000 ? (int)sm->nodes : 0;
    s->nodes_assumed = sm->nodes_assumed;
    s->gpus_per_node = sm->node_rule != TC_NODES_ASSUMED && !sm->nodes_assumed && sm->gpus_per_node >= 1 && sm->gpus_per_node <= 1000000000
                           ? (int)sm->gpus_per_node : 0;
    s->has_capture_time = sm->has_capture_time;
    s->capture_unix_s = sm->capture_unix_s;
    s->window_us = tc_json_us_from_ns(sm->b.window_ns);
    s->groups_scoped = sm->has_scoped_groups;
    s->inter_groups = sm->inter_groups <= 1000000000 ? (int)sm->inter_groups : 1000000000;
    s->inter_exposed_transfer_us = sm->has_scoped_groups ? tc_json_us_from_ns(sm->inter_exposed_transfer_ns) : 0;
    s->has_inter_busbw = figure(sm->has_inter_busbw, sm->inter_busbw_GBps, &s->inter_busbw_GBps, exact);
    if (!figure(sm->has_fabric && sm->fabric.rated_GBps > 0, sm->fabric.rated_GBps, &s->fabric_rated_GBps, exact))
        s->fabric_rated_GBps = 0;
}

/* summary.replay's step times as the JSON holds them. False only out of memory. */
static bool replay_figures(tc_run_summary *s, const tc_replay_summary *r, bool exact) {
    if (!r->has) return true;
    s->has_replay = true;
    s->replay_measured_step_us = tc_json_us_from_ns(r->measured_step_ns);
    s->replay_replayed_step_us = tc_json_us_from_ns(r->replayed_step_ns);
    figure(true, r->identity_error, &s->replay_identity_error, exact);
    s->has_replay_reference = r->has_reference;
    if (r->has_reference) {
        s->replay_reference_step_us = tc_json_us_from_ns(r->reference_step_ns);
        if (!(s->replay_reference = tc_json_text_dup(r->reference))) return false;
    }
    s->has_replay_projected = r->has_projected;
    if (r->has_projected) s->replay_projected_step_us = tc_json_us_from_ns(r->projected_step_ns);
    if (r->has_projected) { /* the target, as the saved result's cost inputs hold it */
        s->projected_has_GBps = r->projected_has_GBps;
        s->projected_GBps = tc_json_double_round(r->projected_GBps);
        s->projected_has_latency = r->projected_has_latency;
        s->projected_latency_us = tc_json_double_round(r->projected_latency_us);
    }
    return true;
}

tc_status tc_run_summary_from_job(tc_run_summary *s, const tc_job *j, const char *label, tc_run_precision p,
                                  tc_error *e) {
    memset(s, 0, sizeof *s);
    const char *verdict = tc_verdict_name(j->summary.verdict);
    s->label = tc_strdup(label);
    s->tool_version = tc_strdup(TC_VERSION);
    s->verdict = tc_json_text_dup(verdict ? verdict : "unknown");
    summary_figures(s, &j->summary, p == TC_RUN_EXACT);
    if (!s->label || !s->tool_version || !s->verdict || !rank_figures(s, j) || !coll_rows(s, j) ||
        !rank_and_kernel_rows(s, j) || !replay_figures(s, &j->summary.replay, p == TC_RUN_EXACT)) {
        tc_run_summary_free(s);
        return tc_error_set(e, TC_ERR_NOMEM, "out of memory");
    }
    basis_figures(s, &j->summary, p == TC_RUN_EXACT);
    for (size_t i = 0; i < j->n_traces; i++)
        if (j->traces[i].world_size > s->world_size && j->traces[i].world_size <= 1000000000)
            s->world_size = (int)j->traces[i].world_size;
    return TC_OK;
}

void tc_run_summary_set_gpus_per_node(tc_run_summary *s, int64_t g) {
    if (g <= 0) return;
    s->gpus_per_node = g > INT32_MAX ? INT32_MAX : (int)g;
    int64_t nodes = ((int64_t)s->world_size + g - 1) / g;
    s->nodes = nodes > INT32_MAX ? INT32_MAX : (int)nodes;
    s->nodes_assumed = false;
}
