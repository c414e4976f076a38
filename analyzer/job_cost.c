/* job_cost.c: pricing a run and a job (see job_cost.h). */
#include "job_cost.h"
#include "fabric_replay.h"
#include "job_run.h"
#include "base/util.h"
#include <string.h>

/* The cost inputs a saved result carried, with rank "config" so this run's flags win. */
static tc_status apply_saved_inputs(const tc_run_summary *s, tc_cost_inputs *in, tc_error *e) {
    static const char origin[] = "saved result (flag/config at analyze time)";
    char why[TC_COST_WHY_LEN];
    for (size_t i = 0; i < s->n_saved_cost; i++) {
        const tc_saved_cost_input *v = &s->saved_cost[i];
        int bad = v->input ? tc_cost_set_value(in, v->input, v->value, TC_COST_SRC_CONFIG, origin, why, sizeof why)
                           : tc_cost_set_gpu(in, v->gpu, TC_COST_SRC_CONFIG, origin, why, sizeof why);
        if (bad < 0) return tc_error_set(e, TC_ERR_USAGE, "saved cost input: %s", why);
    }
    return TC_OK;
}

tc_status tc_run_price(const tc_run_summary *s, tc_cost_inputs *in, tc_cost_result *r, tc_error *e) {
    if (apply_saved_inputs(s, in, e) != TC_OK) return e->code;
    tc_cost_apply_catalog(in, s->device ? tc_gpu_find_by_device_name(s->device) : NULL);
    tc_cost_trace_facts f = tc_cost_facts_from_run(s);
    char why[TC_COST_WHY_LEN];
    if (tc_cost_compute(in, &f, r, why, sizeof why) == 0) return TC_OK;
    return tc_error_set(e, TC_ERR_INPUT, "%s", why);
}

/* The replayed what-if's detail for the reports: the projected steps and the changed groups. */
static void what_if_detail(const tc_job *j, tc_cost_what_if *w) {
    const tc_replay_summary *rp = &j->summary.replay;
    for (size_t i = 0; rp->step_projected_ns && i < rp->n_steps && w->n_steps < TC_COST_WHAT_IF_STEPS; i++) {
        w->step_number[w->n_steps] = rp->step_number[i];
        w->step_projected_us[w->n_steps++] = (double)rp->step_projected_ns[i] / 1e3;
    }
    for (size_t g = 0; g < j->n_inst_groups && w->n_groups < TC_COST_WHAT_IF_GROUPS; g++) {
        const tc_inst_group *ig = &j->inst_groups[g];
        if (!ig->what_if) continue;
        tc_cost_what_if_group *o = &w->groups[w->n_groups++];
        tc_format(o->name, sizeof o->name, "%s", ig->shown ? ig->shown : "?");
        o->alpha_us = ig->model.alpha_us;
        o->beta_GBps = ig->model.beta_GBps;
        o->projected_alpha_us = ig->projected.alpha_us;
        o->projected_beta_GBps = ig->projected.beta_GBps;
        o->transfer_us = (double)ig->transfer_ns / 1e3;
        o->projected_transfer_us = (double)ig->projected_transfer_ns / 1e3;
    }
}

tc_status tc_job_price(tc_job *j, const tc_cost_inputs *in, bool flags_given, tc_error *e) {
    tc_job_cost *c = &j->cost;
    memset(c, 0, sizeof *c);
    if (!in) {
        c->missing = TC_COST_LEFT_OUT;
        return TC_OK;
    }
    if (j->summary.verdict == TC_VERDICT_TOO_SMALL) { /* no money on almost nothing, whatever the flags */
        c->missing = TC_COST_TOO_SMALL;
        return TC_OK;
    }
    if (tc_fabric_replay(j, in) != 0) return tc_error_set(e, TC_ERR_NOMEM, "out of memory");
    tc_run_summary s;
    if (tc_run_summary_from_job(&s, j, "", TC_RUN_EXACT, e) != TC_OK) return e->code;
    tc_cost_inputs u = *in;
    tc_status st = tc_run_price(&s, &u, &c->result, e);
    tc_run_summary_free(&s);
    if (st == TC_OK) {
        c->computed = true;
        if (c->result.has_what_if && c->result.what_if.method == TC_WHAT_IF_REPLAY) what_if_detail(j, &c->result.what_if);
        return TC_OK;
    }
    if (st != TC_ERR_INPUT) return st;
    if (flags_given) return e->code = TC_ERR_USAGE; /* the reason stays in e */
    c->missing = TC_COST_NO_MODEL;
    tc_format(c->why, sizeof c->why, "%s", e->msg);
    tc_error_clear(e);
    return TC_OK;
}
