/* actions_json.c: summary.actions[] (see actions_json.h): code, text and each code's evidence. */
#include "actions_json.h"
#include "findings_text.h"
#include "nccl_report.h"
#include <stdint.h>

static void opt_double(jw *w, const char *key, bool has, double v) {
    jw_key(w, key);
    if (has) jw_double(w, v); else jw_null(w);
}

static void opt_string(jw *w, const char *key, const char *s) { jw_key(w, key); jw_string(w, s); }

/* The row of process groups a FABRIC_* action is about: its first group's name, the groups in it,
 * its link; nulls without a row. */
static void fabric_row(jw *w, const tc_action *a, const tc_job *j) {
    const tc_group_row *row = a->row < j->n_group_rows ? &j->group_rows[a->row] : NULL;
    opt_string(w, "process_group", row ? j->groups[row->first].name : NULL);
    jw_key(w, "process_groups"); if (row) jw_uint(w, row->groups); else jw_null(w);
    opt_string(w, "link", row ? row->f.link.id : NULL);
}

/* The host actions' evidence: the share they answer (null: the generic advice), the call or op. */
static void host_evidence(jw *w, const tc_action *a) {
    opt_double(w, "share", a->share > 0, a->share);
    opt_string(w, "name", a->name);
    opt_string(w, "where", a->where);
    if (a->code == TC_ACTION_AVOID_SYNCS) opt_double(w, "after_sync_share", a->after_sync_share > 0, a->after_sync_share);
    if (a->code != TC_ACTION_CUT_LAUNCHES) return;
    const tc_launch_stats *l = &a->launch;
    bool has = a->share > 0 && l->kernels && l->launch_calls;
    jw_key(w, "kernels"); if (has) jw_uint(w, l->kernels); else jw_null(w);
    jw_key(w, "short_kernels"); if (has) jw_uint(w, l->short_kernels); else jw_null(w);
    jw_key(w, "launch_calls"); if (has) jw_uint(w, l->launch_calls); else jw_null(w);
    jw_key(w, "launch_cpu_us"); if (has) jw_ns_as_us(w, l->launch_cpu_ns); else jw_null(w);
    jw_key(w, "gpu_busy_us"); if (has) jw_ns_as_us(w, l->gpu_busy_ns); else jw_null(w);
    jw_key(w, "launch_bound"); if (has) jw_bool(w, l->launch_bound); else jw_null(w);
}

/* The op actions' evidence: the op group (or the fusion candidate) and its figures. */
static void op_evidence(jw *w, const tc_action *a, const tc_job *j) {
    if (a->code == TC_ACTION_FUSE_SEQUENCE) {
        const tc_fusion_row *f = a->op < j->ops.n_fusions ? &j->ops.fusions[a->op] : NULL;
        opt_string(w, "kernels", f ? f->kernels : NULL);
        jw_key(w, "length"); if (f) jw_uint(w, f->length); else jw_null(w);
        jw_key(w, "occurrences"); if (f) jw_int(w, f->occurrences); else jw_null(w);
        jw_key(w, "gpu_time_us"); if (f) jw_ns_as_us(w, f->gpu_ns); else jw_null(w);
        jw_key(w, "share_of_compute"); jw_double(w, a->share);
        return;
    }
    const tc_op_group *g = a->op < j->ops.n_groups ? &j->ops.groups[a->op] : NULL;
    opt_string(w, "op", g ? g->op : NULL);
    opt_string(w, "shapes", g ? g->shapes : NULL);
    opt_string(w, "family", g ? tc_op_family_name((tc_op_family)g->family) : NULL);
    jw_key(w, "share_of_compute"); jw_double(w, a->share);
    if (a->code == TC_ACTION_LAUNCH_BOUND_OPS) {
        jw_key(w, "groups"); jw_uint(w, a->count);
        return;
    }
    opt_string(w, "class", g ? tc_op_class_name(g) : NULL);
    jw_key(w, "share_of_attainable"); jw_double(w, a->value);
    jw_key(w, "lost_us"); jw_ns_as_us(w, a->lost_ns);
}

/* What each code carries besides code and text (docs/json-schema.md). */
/* The fabric actions' NCCL evidence (tc_nccl_evidence, as summary.nccl.fabric words it): the
 * settings to try, each with what it answers, and whether no setting will help; nothing without
 * NCCL records for the row. */
static void nccl_evidence(jw *w, const tc_action *a) {
    const tc_nccl_evidence *e = &a->nccl;
    if (!e->has) return;
    tc_nccl_json_evidence(w, "nccl_evidence", "nccl_settings", e);
    jw_key(w, "no_setting_helps"); jw_bool(w, e->saturated);
}

static void evidence(jw *w, const tc_action *a, const tc_job *j) {
    switch (a->code) {
    case TC_ACTION_FABRIC_BUSBW: jw_key(w, "busbw_GBps"); jw_double(w, a->value); fabric_row(w, a, j); break;
    case TC_ACTION_FABRIC_SATURATED:
    case TC_ACTION_FABRIC_TUNE:
        jw_key(w, "busbw_share_of_rated"); jw_double(w, a->value); fabric_row(w, a, j);
        nccl_evidence(w, a);
        break;
    case TC_ACTION_MFU_GAP: jw_key(w, "mfu"); jw_double(w, a->value); break;
    case TC_ACTION_LOOK_AT_STRAGGLER:
        jw_key(w, "rank"); jw_int(w, a->rank);
        opt_string(w, "trace", a->input < j->n_traces ? j->traces[a->input].path : NULL);
        break;
    case TC_ACTION_STRAGGLER_MORE_WORK:
    case TC_ACTION_STRAGGLER_HOST_SIDE:
    case TC_ACTION_FIX_PATH_RANK:
        jw_key(w, "rank"); jw_int(w, a->rank);
        jw_key(w, "compute_us_per_step"); jw_ns_as_us(w, a->compute_ns_per_step);
        jw_key(w, "median_compute_us_per_step"); jw_ns_as_us(w, a->median_compute_ns_per_step);
        if (a->code != TC_ACTION_FIX_PATH_RANK) break;
        jw_key(w, "path_share"); jw_double(w, a->share);
        jw_key(w, "inter_node_transfer_share"); jw_double(w, a->value);
        jw_key(w, "first"); jw_bool(w, a->first);
        opt_double(w, "fabric_saving", a->has_fabric_saving, a->fabric_saving);
        jw_key(w, "on_partial_data"); jw_bool(w, a->cp_bound);
        break;
    case TC_ACTION_FEED_GPUS: case TC_ACTION_CUT_LAUNCHES: case TC_ACTION_AVOID_SYNCS: case TC_ACTION_ALLOCATOR:
    case TC_ACTION_WARM_UP: case TC_ACTION_HOST_WORK: case TC_ACTION_GPU_SIDE: case TC_ACTION_TRACE_LAUNCHES:
    case TC_ACTION_OVERLAP_COPIES: case TC_ACTION_PIN_COPIES:
        host_evidence(w, a);
        break;
    case TC_ACTION_FUSE_NORM: case TC_ACTION_GEMM_SHAPES: case TC_ACTION_ATTENTION_KERNEL:
    case TC_ACTION_FUSE_MEMORY_OPS: case TC_ACTION_LAUNCH_BOUND_OPS: case TC_ACTION_FUSE_SEQUENCE:
        op_evidence(w, a, j);
        break;
    default: break; /* the fixed advice: no figures */
    }
}

void tc_actions_json(jw *w, const tc_job *j) {
    const tc_findings *f = &j->findings;
    jw_key(w, "actions");
    jw_array_begin(w);
    for (size_t i = 0; i < f->n_actions; i++) {
        const tc_action *a = &f->actions[i];
        char text[TC_FINDING_TEXT];
        jw_object_begin(w);
        jw_key(w, "code"); jw_string(w, tc_action_key(a->code));
        jw_key(w, "text"); jw_string(w, tc_action_text(text, sizeof text, a, j));
        evidence(w, a, j);
        jw_object_end(w);
    }
    jw_array_end(w);
}
