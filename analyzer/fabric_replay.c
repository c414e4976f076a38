/* fabric_replay.c: the fabric what-if by replay (see fabric_replay.h): the changed groups' models,
 * each instance's projected transfer, and the replays of the step graph on the target and on the
 * instant reference. */
#include "fabric_replay.h"
#include "comm_model.h"
#include "replay.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

bool tc_fabric_changes_group(const tc_job *j, const tc_inst_group *g) {
    if (g->model.fit == TC_FIT_NONE) return false;
    if (g->scope == TC_SCOPE_INTER) return true;
    return g->scope == TC_SCOPE_UNKNOWN && j->summary.nodes > 1;
}

double tc_fabric_rated_GBps(const tc_job *j, const tc_cost_inputs *in) {
    const tc_summary *sm = &j->summary;
    if (sm->has_fabric && sm->fabric.rated_GBps > 0) return sm->fabric.rated_GBps;
    if (in->fabric_GBps.set && in->fabric_GBps.source > TC_COST_SRC_TRACE) return in->fabric_GBps.value;
    if (sm->has_inter_busbw && sm->inter_busbw_GBps > 0) return sm->inter_busbw_GBps;
    return sm->has_fabric_busbw && sm->fabric_busbw_GBps > 0 ? sm->fabric_busbw_GBps : 0;
}

/* The target's name for the reference: the --fabric-target id, else "B' GB/s", with the latency. */
static void target_name(char *buf, size_t n, const tc_cost_inputs *in) {
    const tc_cost_value *b = &in->fabric_target_GBps, *a = &in->fabric_target_latency_us;
    char bw[40] = "";
    if (b->set && in->fabric_target_id && strstr(b->origin, "(--fabric-target ")) tc_format(bw, sizeof bw, "%s", in->fabric_target_id);
    else if (b->set) tc_format(bw, sizeof bw, "%.6g GB/s", b->value);
    if (a->set) tc_format(buf, n, "%s%s%.6g µs per collective", bw, *bw ? ", " : "", a->value);
    else tc_format(buf, n, "%s", bw);
}

/* The instant reference, when the replay set none: the changed groups' instances take no time. */
static int instant_reference(tc_job *j, int64_t *t) {
    tc_replay_summary *rp = &j->summary.replay;
    for (size_t i = 0; i < j->n_instances; i++) {
        const tc_coll_instance *in = &j->instances[i];
        bool changed = in->group < j->n_inst_groups && tc_fabric_changes_group(j, &j->inst_groups[in->group]);
        t[i] = changed ? 0 : in->transfer_ns;
    }
    int64_t step = 0;
    int rc = tc_replay_with(j, t, &step, NULL);
    if (rc < 0) return -1;
    if (rc > 0) return 0;
    rp->has_reference = true;
    rp->reference_step_ns = step;
    tc_format(rp->reference, sizeof rp->reference, "instant");
    return 0;
}

/* Each changed group's model on the target (beta' = B'·beta / B_rated, alpha' = A'). False when
 * no group changes, or B' is given without a B_rated to set it against. */
static bool target_models(tc_job *j, const tc_cost_inputs *in) {
    const bool bw = in->fabric_target_GBps.set, lat = in->fabric_target_latency_us.set;
    const double rated = tc_fabric_rated_GBps(j, in);
    if (bw && !(rated > 0)) return false;
    bool any = false;
    for (size_t g = 0; g < j->n_inst_groups; g++) {
        tc_inst_group *ig = &j->inst_groups[g];
        ig->what_if = tc_fabric_changes_group(j, ig);
        ig->transfer_ns = ig->projected_transfer_ns = 0;
        if (!ig->what_if) continue;
        any = true;
        ig->projected = ig->model;
        if (bw) ig->projected.beta_GBps = in->fabric_target_GBps.value * ig->model.beta_GBps / rated;
        if (lat) ig->projected.alpha_us = in->fabric_target_latency_us.value;
    }
    return any;
}

int tc_fabric_replay(tc_job *j, const tc_cost_inputs *in) {
    tc_replay_summary *rp = &j->summary.replay;
    if (!rp->has || !j->graph || j->n_instances == 0) return 0;
    int64_t *t = malloc(j->n_instances * sizeof *t);
    if (!t) return -1;
    int rc = rp->has_reference ? 0 : instant_reference(j, t);
    const bool target = in->fabric_target_GBps.set || in->fabric_target_latency_us.set;
    if (rc == 0 && target && target_models(j, in)) {
        for (size_t i = 0; i < j->n_instances; i++) {
            const tc_coll_instance *ci = &j->instances[i];
            tc_inst_group *ig = ci->group < j->n_inst_groups ? &j->inst_groups[ci->group] : NULL;
            t[i] = ig && ig->what_if ? tc_comm_model_project(ci, &ig->model, &ig->projected) : ci->transfer_ns;
            if (ig && ig->what_if) { ig->transfer_ns += ci->transfer_ns; ig->projected_transfer_ns += t[i]; }
        }
        int64_t step = 0, *per = rp->n_steps ? calloc(rp->n_steps, sizeof *per) : NULL;
        int r = rp->n_steps && !per ? -1 : tc_replay_with(j, t, &step, per);
        if (r == 0) {
            free(rp->step_projected_ns);
            rp->step_projected_ns = per;
            per = NULL;
            rp->has_projected = true;
            rp->projected_step_ns = step;
            rp->projected_has_GBps = in->fabric_target_GBps.set;
            rp->projected_GBps = in->fabric_target_GBps.value;
            rp->projected_has_latency = in->fabric_target_latency_us.set;
            rp->projected_latency_us = in->fabric_target_latency_us.value;
            rp->has_reference = true; /* the reference is the target when one is given */
            rp->reference_step_ns = step;
            target_name(rp->reference, sizeof rp->reference, in);
        }
        free(per);
        rc = r < 0 ? -1 : 0;
    }
    free(t);
    return rc;
}
