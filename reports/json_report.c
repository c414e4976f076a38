/* json_report.c: tracecost/1 JSON writer (see json_report.h). */
#include "pipeline_report.h"
#include "nccl_report.h"
#include "json_report.h"
#include "actions_json.h"
#include "cost_report.h"
#include "findings_text.h"
#include "host_wait_report.h"
#include "mfu_report.h"
#include "ops_json.h"
#include "replay_report.h"
#include "textfmt.h"
#include "base/pool.h"
#include "base/version.h"
#include <string.h>

static void breakdown_fields(jw *w, const tc_breakdown *b, bool split) {
    jw_key(w, "window_us"); jw_ns_as_us(w, b->window_ns);
    jw_key(w, "compute_us"); jw_ns_as_us(w, b->compute_ns);
    jw_key(w, "comm_us"); jw_ns_as_us(w, b->comm_ns);
    jw_key(w, "overlapped_comm_us"); jw_ns_as_us(w, b->overlapped_comm_ns);
    jw_key(w, "exposed_comm_us"); jw_ns_as_us(w, b->exposed_comm_ns);
    jw_key(w, "memory_exposed_us"); jw_ns_as_us(w, b->memory_exposed_ns);
    jw_key(w, "memory_host_exposed_us"); jw_ns_as_us(w, b->memory_host_exposed_ns);
    jw_key(w, "memory_device_exposed_us"); jw_ns_as_us(w, b->memory_device_exposed_ns);
    jw_key(w, "idle_us"); jw_ns_as_us(w, b->idle_ns);
    jw_key(w, "exposed_wait_us"); if (split) jw_ns_as_us(w, b->exposed_wait_ns); else jw_null(w);
    jw_key(w, "exposed_transfer_us"); if (split) jw_ns_as_us(w, b->exposed_transfer_ns); else jw_null(w);
}

static void opt_double(jw *w, const char *key, bool has, double v) {
    jw_key(w, key);
    if (has) jw_double(w, v); else jw_null(w);
}

/* Keys step_window_us and step_shares (the keys of shares; null without steps): docs/definitions.md
 * "Step window". */
static void step_window(jw *w, bool has, int64_t window_ns, const tc_shares *s, bool split) {
    jw_key(w, "step_window_us"); if (has) jw_ns_as_us(w, window_ns); else jw_null(w);
    jw_key(w, "step_shares");
    if (!has) { jw_null(w); return; }
    jw_object_begin(w);
    jw_key(w, "compute"); jw_double(w, s->compute);
    jw_key(w, "exposed_comm"); jw_double(w, s->exposed_comm);
    opt_double(w, "exposed_transfer", split, s->exposed_transfer);
    opt_double(w, "exposed_wait", split, s->exposed_wait);
    jw_key(w, "memory_exposed"); jw_double(w, s->memory_exposed);
    jw_key(w, "memory_host_exposed"); jw_double(w, s->memory_host_exposed);
    jw_key(w, "memory_device_exposed"); jw_double(w, s->memory_device_exposed);
    jw_key(w, "idle"); jw_double(w, s->idle);
    jw_object_end(w);
}

/* Key inputs: each trace's file, rank, sizes, counts and warnings. */
static void inputs(jw *w, const tc_job *j) {
    jw_key(w, "inputs");
    jw_array_begin(w);
    for (size_t i = 0; i < j->n_traces; i++) {
        const tc_trace *t = &j->traces[i];
        jw_object_begin(w);
        jw_key(w, "path"); jw_string(w, t->path);
        jw_key(w, "rank"); jw_int(w, t->rank);
        jw_key(w, "bytes"); jw_uint(w, t->bytes);
        jw_key(w, "events"); jw_uint(w, t->events_total);
        jw_key(w, "gpu_events"); jw_uint(w, tc_trace_gpu_events(t));
        jw_key(w, "skipped_events"); jw_uint(w, t->events_skipped);
        jw_key(w, "truncated"); jw_bool(w, t->truncated);
        jw_key(w, "warnings");
        jw_array_begin(w);
        for (size_t k = 0; k < t->n_warnings; k++) jw_string(w, t->warnings[k]);
        if (t->warnings_dropped) {
            char buf[96];
            snprintf(buf, sizeof buf, "%llu more warnings not listed", (unsigned long long)t->warnings_dropped);
            jw_string(w, buf);
        }
        jw_array_end(w);
        jw_object_end(w);
    }
    jw_array_end(w);
}

/* One steps[] object. */
static void step(jw *w, const tc_step_result *st) {
    char name[48];
    snprintf(name, sizeof name, "ProfilerStep#%lld", (long long)st->number);
    jw_object_begin(w);
    jw_key(w, "name"); jw_string(w, name);
    breakdown_fields(w, &st->b, st->b.split_known);
    opt_double(w, "comm_compute_ratio", st->has_ratio, st->comm_compute_ratio);
    opt_double(w, "mfu", st->has_mfu, st->mfu);
    tc_mfu_json_step(w, st);
    jw_key(w, "step_time_us"); jw_ns_as_us(w, st->step_time_ns);
    jw_key(w, "gpu_events"); jw_uint(w, st->b.gpu_events);
    tc_host_wait_json_step(w, st);
    jw_object_end(w);
}

static void step_element(jw *w, const void *rr, size_t s) { step(w, &((const tc_rank_result *)rr)->steps[s]); }

/* One ranks[] object: the rank's breakdown, figures and steps. */
static void rank_element(jw *w, const void *job, size_t r) {
    const tc_rank_result *rr = &((const tc_job *)job)->ranks[r];
    jw_object_begin(w);
    jw_key(w, "rank"); jw_int(w, rr->rank);
    jw_key(w, "device"); jw_string(w, rr->device);
    breakdown_fields(w, &rr->b, rr->b.split_known);
    step_window(w, rr->has_step_window, rr->step_b.window_ns, &rr->step_shares, rr->b.split_known);
    tc_host_wait_json_step_causes(w, rr->has_step_window, &rr->step_idle, rr->before_first_kernel_ns,
                                  rr->after_last_kernel_ns);
    opt_double(w, "comm_compute_ratio", rr->has_ratio, rr->comm_compute_ratio);
    opt_double(w, "mfu", rr->has_mfu, rr->mfu);
    tc_mfu_json_rank(w, rr);
    jw_key(w, "step_time_us"); if (rr->has_step_time) jw_ns_as_us(w, rr->step_time_ns); else jw_null(w);
    jw_key(w, "clock_offset_us"); if (rr->has_clock_offset) jw_ns_as_us(w, rr->clock_offset_ns); else jw_null(w);
    jw_key(w, "node"); jw_int(w, rr->node);
    tc_host_wait_json_rank(w, rr);
    jw_key(w, "steps");
    jw_array_begin(w);
    jw_elements(w, rr->n_steps, step_element, rr);
    jw_array_end(w);
    jw_object_end(w);
}

/* Key ranks: each rank's breakdown, figures and steps. */
static void ranks(jw *w, const tc_job *j) {
    jw_key(w, "ranks");
    jw_array_begin(w);
    jw_elements(w, j->n_ranks, rank_element, j);
    jw_array_end(w);
}

/* Key straggler: the straggler's figures, or null. */
static void straggler(jw *w, const tc_summary *sm) {
    jw_key(w, "straggler");
    if (!sm->has_straggler) { jw_null(w); return; }
    jw_object_begin(w);
    jw_key(w, "rank"); jw_int(w, sm->straggler.rank);
    jw_key(w, "last_arrival_share"); jw_double(w, sm->straggler.last_arrival_share);
    jw_key(w, "caused_wait_share"); jw_double(w, sm->straggler.caused_wait_share);
    jw_key(w, "caused_wait_us_per_step"); jw_ns_as_us(w, sm->straggler.caused_wait_ns_per_step);
    jw_key(w, "caused_wait_gpu_us_per_step"); jw_ns_as_us(w, sm->straggler.caused_wait_ns_per_step);
    jw_key(w, "waiting_ranks"); jw_uint(w, sm->straggler.waiting_ranks);
    jw_key(w, "wait_per_rank_us_per_step"); jw_ns_as_us(w, sm->straggler.wait_per_rank_ns_per_step);
    jw_key(w, "compute_us_per_step"); jw_ns_as_us(w, sm->straggler.compute_ns_per_step);
    jw_key(w, "median_compute_us_per_step"); jw_ns_as_us(w, sm->straggler.median_compute_ns_per_step);
    jw_object_end(w);
}

/* Keys collective_instances, unmatched_collectives, collective_end_spread_us: how cross-rank
 * matching went (null where it did not run or measure). */
static void matching(jw *w, const tc_summary *sm) {
    jw_key(w, "collective_instances"); if (sm->has_coll_instances) jw_int(w, sm->coll_instances); else jw_null(w);
    jw_key(w, "unmatched_collectives"); if (sm->has_coll_instances) jw_int(w, sm->unmatched_instances); else jw_null(w);
    jw_key(w, "collective_end_spread_us"); if (sm->has_end_spread) jw_ns_as_us(w, sm->end_spread_ns); else jw_null(w);
}

/* Keys basis, basis_summary, basis_reasons: whether the conclusions rest on partial data, and why. */
static void basis(jw *w, const tc_summary *sm) {
    char text[TC_FINDING_TEXT];
    jw_key(w, "basis"); jw_string(w, sm->partial ? "partial" : "complete");
    jw_key(w, "basis_summary"); jw_string(w, sm->partial ? tc_basis_summary_text(text, sizeof text, sm) : NULL);
    jw_key(w, "transfer_upper_bound"); jw_bool(w, sm->transfer_upper_bound);
    jw_key(w, "basis_reasons");
    jw_array_begin(w);
    for (size_t i = 0; i < sm->n_basis_reasons; i++) {
        jw_object_begin(w);
        jw_key(w, "code"); jw_string(w, tc_basis_reason_code(&sm->basis_reasons[i]));
        jw_key(w, "text"); jw_string(w, tc_basis_reason_text(text, sizeof text, &sm->basis_reasons[i]));
        jw_object_end(w);
    }
    jw_array_end(w);
}

/* Keys world_size, nodes, node_rule, gpus_per_node, nodes_assumed, nodes_note, captured_at. */
static void nodes(jw *w, const tc_summary *sm) {
    char text[TC_FINDING_TEXT];
    jw_key(w, "world_size"); jw_int(w, sm->world_size);
    jw_key(w, "nodes"); jw_int(w, sm->nodes);
    jw_key(w, "node_rule"); jw_string(w, tc_node_rule_name(sm->node_rule));
    jw_key(w, "gpus_per_node"); jw_int(w, sm->gpus_per_node);
    jw_key(w, "nodes_assumed"); jw_bool(w, sm->nodes_assumed);
    tc_nodes_note_text(text, sizeof text, sm);
    jw_key(w, "nodes_note"); jw_string(w, text[0] ? text : NULL);
    jw_key(w, "captured_at");
    if (sm->has_capture_time) jw_string(w, tc_utc_text(text, sizeof text, sm->capture_unix_s));
    else jw_null(w);
}

/* Keys fabric_link, fabric_rated_busbw_GBps, inter_node_busbw_GBps, inter_node_exposed_transfer_us:
 * the fabric between nodes as --fabric / --nic-gbps name it, and what its process groups measured. */
static void fabric(jw *w, const tc_summary *sm) {
    jw_key(w, "fabric_link"); jw_string(w, sm->has_fabric ? sm->fabric.id : NULL);
    opt_double(w, "fabric_rated_busbw_GBps", sm->has_fabric, sm->fabric.rated_GBps);
    opt_double(w, "inter_node_busbw_GBps", sm->has_inter_busbw, sm->inter_busbw_GBps);
    jw_key(w, "inter_node_exposed_transfer_us");
    if (sm->has_scoped_groups) jw_ns_as_us(w, sm->inter_exposed_transfer_ns); else jw_null(w);
}

/* Key summary: the job's sums, shares, figures, verdict with its reasons (findings_text.h) and
 * straggler. */
static void summary(jw *w, const tc_job *j) {
    const tc_summary *sm = &j->summary;
    jw_key(w, "summary");
    jw_object_begin(w);
    jw_key(w, "ranks"); jw_uint(w, sm->ranks);
    breakdown_fields(w, &sm->b, sm->split_known);
    jw_key(w, "shares");
    jw_object_begin(w);
    jw_key(w, "compute"); jw_double(w, sm->share_compute);
    jw_key(w, "exposed_comm"); jw_double(w, sm->share_exposed_comm);
    opt_double(w, "exposed_transfer", sm->split_known, sm->share_exposed_transfer);
    opt_double(w, "exposed_wait", sm->split_known, sm->share_exposed_wait);
    jw_key(w, "memory_exposed"); jw_double(w, sm->share_memory_exposed);
    jw_key(w, "memory_host_exposed"); jw_double(w, sm->share_memory_host_exposed);
    jw_key(w, "memory_device_exposed"); jw_double(w, sm->share_memory_device_exposed);
    jw_key(w, "idle"); jw_double(w, sm->share_idle);
    jw_object_end(w);
    const tc_shares ss = {sm->step.compute, sm->step.exposed_comm, sm->step.exposed_transfer, sm->step.exposed_wait,
                          sm->step.memory_exposed, sm->step.idle, sm->step.memory_host_exposed,
                          sm->step.memory_device_exposed};
    step_window(w, sm->step.has, sm->step.b.window_ns, &ss, sm->split_known);
    tc_host_wait_json_step_causes(w, sm->step.has, &sm->step.causes, sm->step.before_first_kernel_ns,
                                  sm->step.after_last_kernel_ns);
    jw_key(w, "verdict_window"); jw_string(w, j->findings.on_steps ? "step" : "gpu");
    opt_double(w, "comm_compute_ratio", sm->has_ratio, sm->comm_compute_ratio);
    opt_double(w, "mfu", sm->has_mfu, sm->mfu);
    tc_mfu_json_summary(w, sm);
    jw_key(w, "step_time_us"); if (sm->has_step_time) jw_ns_as_us(w, sm->step_time_ns); else jw_null(w);
    jw_key(w, "verdict"); jw_string(w, tc_verdict_name(sm->verdict));
    jw_key(w, "verdict_reasons");
    jw_array_begin(w);
    for (size_t i = 0; i < j->findings.n_reasons; i++) {
        char reason[TC_FINDING_TEXT];
        jw_string(w, tc_reason_text(reason, sizeof reason, &j->findings.reasons[i], j));
    }
    jw_array_end(w);
    tc_actions_json(w, j);
    jw_key(w, "straggler_rank"); if (sm->has_straggler) jw_int(w, sm->straggler.rank); else jw_null(w);
    straggler(w, sm);
    opt_double(w, "fabric_busbw_GBps", sm->has_fabric_busbw, sm->fabric_busbw_GBps);
    fabric(w, sm);
    basis(w, sm);
    matching(w, sm);
    nodes(w, sm);
    jw_key(w, "comm_libraries");
    jw_array_begin(w);
    for (uint8_t lib = 1; lib < TC_COMM_LIB_COUNT; lib++) {
        if (!sm->comm_kernels[lib]) continue;
        jw_object_begin(w);
        jw_key(w, "library"); jw_string(w, tc_comm_lib_name(lib));
        jw_key(w, "kernels"); jw_uint(w, sm->comm_kernels[lib]);
        jw_key(w, "time_us"); jw_ns_as_us(w, sm->comm_kernel_ns[lib]);
        jw_object_end(w);
    }
    jw_array_end(w);
    tc_host_wait_json_summary(w, sm);
    tc_replay_json_summary(w, j);
    tc_nccl_json_summary(w, j);
    jw_object_end(w);
}

/* Key profiler_windows: null when the inputs hold one window; else which one this is and every
 * window's files, ranks, steps and start (from the oldest's). */
static void profiler_windows(jw *w, const tc_job *j) {
    jw_key(w, "profiler_windows");
    if (j->n_windows < 2) { jw_null(w); return; }
    jw_object_begin(w);
    jw_key(w, "analyzed"); jw_uint(w, j->window);
    jw_key(w, "count"); jw_uint(w, j->n_windows);
    jw_key(w, "list");
    jw_array_begin(w);
    for (size_t k = 0; k < j->n_windows; k++) {
        const tc_window_info *wi = &j->windows[k];
        jw_object_begin(w);
        jw_key(w, "index"); jw_uint(w, k + 1);
        jw_key(w, "files"); jw_uint(w, wi->files);
        jw_key(w, "ranks"); jw_uint(w, wi->ranks);
        jw_key(w, "first_step"); if (wi->has_steps) jw_int(w, wi->first_step); else jw_null(w);
        jw_key(w, "last_step"); if (wi->has_steps) jw_int(w, wi->last_step); else jw_null(w);
        jw_key(w, "start_offset_us");
        if (wi->has_start && j->windows[0].has_start) jw_ns_as_us(w, wi->start_ns - j->windows[0].start_ns);
        else jw_null(w);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_object_end(w);
}

/* Key collectives: one object per (process group, collective, message size) row. */
static void collectives(jw *w, const tc_job *j) {
    jw_key(w, "collectives");
    jw_array_begin(w);
    for (size_t i = 0; i < j->n_colls; i++) {
        const tc_collective_result *c = &j->colls[i];
        jw_object_begin(w);
        jw_key(w, "name"); jw_string(w, c->name);
        jw_key(w, "process_group"); jw_string(w, c->process_group);
        jw_key(w, "group_size"); if (c->group_size > 0) jw_int(w, c->group_size); else jw_null(w);
        jw_key(w, "dtype"); jw_string(w, c->dtype);
        jw_key(w, "count"); jw_uint(w, c->count);
        jw_key(w, "bytes"); if (c->bytes >= 0) jw_int(w, c->bytes); else jw_null(w);
        jw_key(w, "transfer_us_median"); jw_ns_as_us(w, c->transfer_ns_median);
        jw_key(w, "wait_us_total"); jw_ns_as_us(w, c->wait_ns_total);
        opt_double(w, "algbw_GBps", c->has_bw, c->algbw_GBps);
        opt_double(w, "busbw_GBps", c->has_bw, c->busbw_GBps);
        jw_object_end(w);
    }
    jw_array_end(w);
}

/* Key what_if of process group pg: its matching group's collectives on the fabric what-if's target
 * (analyzer/fabric_replay.h), null when the what-if did not change it. */
static void group_what_if(jw *w, const tc_job *j, size_t pg) {
    jw_key(w, "what_if");
    const tc_inst_group *g = NULL;
    for (size_t k = 0; k < j->n_inst_groups && !g; k++)
        if (j->inst_groups[k].pg == pg && j->inst_groups[k].what_if && j->summary.replay.has_projected) g = &j->inst_groups[k];
    if (!g) { jw_null(w); return; }
    jw_object_begin(w);
    jw_key(w, "alpha_us"); jw_double(w, g->projected.alpha_us);
    jw_key(w, "beta_GBps"); jw_double(w, g->projected.beta_GBps);
    jw_key(w, "transfer_us"); jw_ns_as_us(w, g->transfer_ns);
    jw_key(w, "projected_transfer_us"); jw_ns_as_us(w, g->projected_transfer_ns);
    jw_object_end(w);
}

/* Key process_groups: one object per process group of the job, by name (analyzer/groups.h). */
static void process_groups(jw *w, const tc_job *j) {
    static const char *const scopes[] = {NULL, "intra-node", "inter-node"};
    jw_key(w, "process_groups");
    jw_array_begin(w);
    for (size_t i = 0; i < j->n_groups; i++) {
        const tc_process_group *g = &j->groups[i];
        const tc_group_figures *f = &g->f;
        jw_object_begin(w);
        jw_key(w, "name"); jw_string(w, g->name);
        jw_key(w, "desc"); jw_string(w, g->desc);
        jw_key(w, "ranks");
        if (!g->ranks) jw_null(w);
        else {
            jw_array_begin(w);
            for (size_t k = 0; k < g->n_ranks; k++) jw_int(w, g->ranks[k]);
            jw_array_end(w);
        }
        jw_key(w, "size"); if (g->size > 0) jw_int(w, g->size); else jw_null(w);
        jw_key(w, "ranks_present"); jw_int(w, g->ranks_present);
        jw_key(w, "partial"); jw_bool(w, g->f.partial);
        jw_key(w, "nodes"); if (g->has_nodes) jw_int(w, g->nodes); else jw_null(w);
        jw_key(w, "scope"); jw_string(w, scopes[f->scope]);
        jw_key(w, "comm_us"); jw_ns_as_us(w, f->sums.comm_ns);
        jw_key(w, "exposed_comm_us"); jw_ns_as_us(w, f->sums.exposed_comm_ns);
        jw_key(w, "exposed_transfer_us");
        if (f->split_known) jw_ns_as_us(w, f->sums.exposed_transfer_ns); else jw_null(w);
        jw_key(w, "exposed_wait_us");
        if (f->split_known) jw_ns_as_us(w, f->sums.exposed_wait_ns); else jw_null(w);
        opt_double(w, "busbw_GBps", f->has_busbw, f->busbw_GBps);
        jw_key(w, "link"); jw_string(w, f->link.id);
        jw_key(w, "link_name"); jw_string(w, f->link.id ? f->link.name : NULL);
        opt_double(w, "rated_busbw_GBps", f->link.id != NULL, f->link.rated_GBps);
        opt_double(w, "busbw_share_of_rated", f->has_share, f->share_of_rated);
        tc_replay_json_group_model(w, j, i);
        group_what_if(w, j, i);
        tc_nccl_json_group(w, j, i);
        jw_object_end(w);
    }
    jw_array_end(w);
}

/* Key all_to_all (issue 33), only when the job has all-to-all instances: per group every sized
 * instance's ratio, hot rank and bytes sent, the group's hot rank, caused wait and pair matrix. */
static void all_to_all(jw *w, const tc_job *j) {
    const tc_a2a_result *a = &j->a2a;
    if (!a->n_groups) return;
    jw_key(w, "all_to_all");
    jw_array_begin(w);
    for (size_t g = 0; g < a->n_groups; g++) {
        const tc_a2a_group *gr = &a->groups[g];
        size_t n = gr->n_ranks;
        jw_object_begin(w);
        jw_key(w, "process_group"); jw_string(w, j->inst_groups[gr->inst_group].shown);
        jw_key(w, "ranks"); jw_array_begin(w);
        for (size_t m = 0; m < n; m++) jw_int(w, gr->ranks[m]);
        jw_array_end(w);
        jw_key(w, "unsized_instances"); jw_uint(w, gr->unsized);
        jw_key(w, "note"); /* why instances are unsized when the trace cannot size them */
        if (gr->deepep) jw_string(w, TC_DEEPEP_UNSIZED_NOTE);
        else jw_null(w);
        jw_key(w, "instances"); jw_array_begin(w);
        for (size_t i = gr->first; i < gr->first + gr->n; i++) {
            const tc_a2a_instance *ai = &a->instances[i];
            jw_object_begin(w);
            jw_key(w, "seq"); if (ai->seq >= 0) jw_int(w, ai->seq); else jw_null(w);
            jw_key(w, "imbalance_ratio"); jw_double(w, ai->ratio);
            jw_key(w, "hot_rank"); jw_int(w, gr->ranks[ai->hot]);
            jw_key(w, "caused_wait_us"); jw_double(w, ai->caused_wait_ns / 1e3);
            jw_key(w, "bytes_sent"); jw_array_begin(w);
            for (size_t m = 0; m < n; m++) jw_int(w, a->bytes[ai->bytes_at + m]);
            jw_array_end(w);
            jw_object_end(w);
        }
        jw_array_end(w);
        jw_key(w, "hot_rank"); if (gr->hot_rank >= 0) jw_int(w, gr->hot_rank); else jw_null(w);
        jw_key(w, "caused_wait_us"); jw_double(w, gr->caused_wait_ns / 1e3);
        jw_key(w, "pair_bytes"); jw_array_begin(w);
        for (size_t r = 0; r < n; r++) {
            jw_array_begin(w);
            for (size_t k = 0; k < n; k++) jw_int(w, gr->pair_bytes[r * n + k]);
            jw_array_end(w);
        }
        jw_array_end(w);
        jw_object_end(w);
    }
    jw_array_end(w);
}

int tc_json_report_write(FILE *out, const tc_job *j, int threads) {
    jw w;
    jw_init(&w, out, true);
    tc_pool *pool = threads > 1 ? tc_pool_new(threads - 1) : NULL; /* none: every array in order, here */
    jw_set_pool(&w, pool);
    jw_object_begin(&w);
    jw_key(&w, "schema"); jw_string(&w, TC_SCHEMA);
    jw_key(&w, "tool_version"); jw_string(&w, TC_VERSION);
    profiler_windows(&w, j);
    inputs(&w, j);
    ranks(&w, j);
    summary(&w, j);
    collectives(&w, j);
    process_groups(&w, j);
    all_to_all(&w, j);
    tc_pipeline_json(&w, j);
    tc_mfu_json_top_kernels(&w, j);
    tc_ops_json(&w, j);

    jw_key(&w, "warnings");
    jw_array_begin(&w);
    for (size_t i = 0; i < j->n_warnings; i++) jw_string(&w, j->warnings[i]);
    jw_array_end(&w);

    tc_job_cost_json(&w, &j->cost);
    jw_object_end(&w);
    int rc = jw_finish(&w);
    tc_pool_free(pool);
    return rc;
}
