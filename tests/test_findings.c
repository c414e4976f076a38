/* test_findings.c: the analyzer's findings (analyzer/findings.h), decided from results alone: the
 * straggler and the 5% rule of its action, the verdict's reasons with their numbers, the actions
 * of each verdict, the timeline's ranks (how many: tc_analyze_options.timeline_ranks) and the
 * representative step; and their words (reports/findings_text.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyzer/findings.h"
#include "reports/findings_text.h"

#define MS 1000000 /* ns */

/* n ranks with 10 ms windows and 6 ms compute per step (one step); rank `slow` (n when none)
 * arrives last at every collective, caused all the wait and computes slow_compute_ns. The job
 * waits 30% of its GPU time: straggler-bound. (The results tc_job_finish leaves, by hand.) */
static void make_job(tc_job *j, size_t n, size_t slow, int64_t slow_compute_ns) {
    tc_job_init(j);
    j->traces = calloc(n, sizeof *j->traces);
    j->ranks = calloc(n, sizeof *j->ranks);
    cr_assert(j->traces && j->ranks);
    for (size_t r = 0; r < n; r++) {
        char path[64];
        snprintf(path, sizeof path, "run/job/rank%zu.pt.trace.json", r);
        cr_assert_eq(tc_trace_init(&j->traces[j->n_traces++], path), 0);
        tc_rank_result *rr = &j->ranks[j->n_ranks++];
        rr->rank = (int64_t)r;
        rr->input = r;
        rr->steps_total = 1;
        rr->b.window_ns = 10 * MS;
        rr->b.compute_ns = r == slow ? slow_compute_ns : 6 * MS;
        rr->b.exposed_wait_ns = r == slow ? 0 : 3 * MS;
        rr->matched_instances = 10;
        rr->last_arrival_credit = r == slow ? 10 : 0;
        rr->last_arrival_share = r == slow ? 1 : 0;
        rr->caused_wait_ns = rr->caused_wait_ns_per_step = r == slow ? 9 * MS : 0;
    }
    tc_summary *sm = &j->summary;
    sm->ranks = n;
    sm->split_known = true;
    sm->share_compute = 0.6;
    sm->share_exposed_comm = 0.35;
    sm->share_exposed_wait = 0.3;
    sm->share_exposed_transfer = 0.05;
    sm->share_idle = 0.02;
    sm->share_memory_exposed = 0.01;
}

static const char *reason(const tc_job *j, size_t i, char *buf) {
    cr_assert_lt(i, j->findings.n_reasons);
    return tc_reason_text(buf, TC_FINDING_TEXT, &j->findings.reasons[i]);
}

static const char *action(const tc_job *j, size_t i, char *buf) {
    cr_assert_lt(i, j->findings.n_actions);
    return tc_action_text(buf, TC_FINDING_TEXT, &j->findings.actions[i], j);
}

Test(findings, straggler_reasons_and_actions_as_codes_and_numbers) {
    tc_job j;
    make_job(&j, 4, 2, 6 * MS * 106 / 100); /* 6% more compute than the median rank */
    tc_analyze_options opt = {.bound_threshold = 0.15};
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    const tc_findings *f = &j.findings;
    cr_assert_eq(j.summary.verdict, TC_VERDICT_STRAGGLER);
    cr_assert(j.summary.has_straggler);
    cr_assert_eq(j.summary.straggler.rank, 2);

    cr_assert_eq(f->n_reasons, 4);
    cr_assert_eq(f->reasons[0].code, TC_REASON_STRAGGLER);
    cr_assert_float_eq(f->reasons[0].straggler, 0.3, 1e-12);
    cr_assert_float_eq(f->reasons[0].threshold, 0.15, 1e-12);
    cr_assert_eq(f->reasons[1].code, TC_REASON_SPEEDUP);
    cr_assert_float_eq(f->reasons[1].speedup, 1 / 0.7, 1e-12);
    cr_assert_eq(f->reasons[2].code, TC_REASON_OTHER_LOSSES);
    cr_assert_eq(f->reasons[3].code, TC_REASON_STRAGGLER_RANK);
    cr_assert_eq(f->reasons[3].rank, 2);
    cr_assert_eq(f->reasons[3].wait_ns_per_step, 9 * MS);
    char buf[TC_FINDING_TEXT];
    cr_assert_str_eq(reason(&j, 0, buf), "exposed wait for slower ranks is 30.0% of GPU time (threshold 15%)");
    cr_assert_str_eq(reason(&j, 1, buf), "removing that time would make the job 1.43x faster");
    cr_assert_str_eq(reason(&j, 2, buf), "other losses: network 5.0%, stragglers 30.0%, host 3.0%");
    cr_assert_str_eq(reason(&j, 3, buf), "rank 2 causes 100% of the waiting (it arrives last at 100% of collectives): "
                                         "the others wait 9.000 ms per step for it");

    cr_assert_eq(f->n_actions, 3);
    cr_assert_eq(f->actions[0].code, TC_ACTION_LOOK_AT_STRAGGLER);
    cr_assert_eq(f->actions[0].rank, 2);
    cr_assert_eq(f->actions[0].input, 2);
    cr_assert_not_null(strstr(action(&j, 0, buf), "Look at rank 2 (trace rank2.pt.trace.json; "), "%s", buf);
    cr_assert_eq(f->actions[1].code, TC_ACTION_STRAGGLER_MORE_WORK);
    cr_assert_eq(f->actions[1].compute_ns_per_step, 6 * MS * 106 / 100);
    cr_assert_eq(f->actions[1].median_compute_ns_per_step, 6 * MS);
    cr_assert_str_eq(action(&j, 1, buf), "Its compute is 6.360 ms per step against a median of 6.000 ms: more GPU work "
                                         "or a slower GPU (uneven batches or sequence lengths, throttling).");
    cr_assert_eq(f->actions[2].code, TC_ACTION_COMPARE_RANKS);
    tc_job_free(&j);

    /* within 5% of the median: the delay is on its host side */
    make_job(&j, 4, 2, 6 * MS * 104 / 100);
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.findings.actions[1].code, TC_ACTION_STRAGGLER_HOST_SIDE);
    tc_job_free(&j);

    /* waits spread over the ranks: no straggler stands out */
    make_job(&j, 4, 4, 0);
    for (size_t r = 0; r < 4; r++) j.ranks[r].caused_wait_ns = j.ranks[r].caused_wait_ns_per_step = 2 * MS;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.summary.verdict, TC_VERDICT_STRAGGLER);
    cr_assert_not(j.summary.has_straggler);
    cr_assert_eq(j.findings.n_reasons, 3);
    cr_assert_eq(j.findings.n_actions, 2);
    cr_assert_eq(j.findings.actions[0].code, TC_ACTION_BALANCE_WORK);
    tc_job_free(&j);
}

Test(findings, each_verdict_has_its_actions_and_efficiency) {
    tc_job j;
    make_job(&j, 2, 2, 0);
    tc_summary *sm = &j.summary;
    sm->share_exposed_wait = 0.01;
    sm->share_exposed_transfer = 0.25;
    sm->has_fabric_busbw = true;
    sm->fabric_busbw_GBps = 42.5;
    tc_analyze_options opt = {.bound_threshold = 0.15};
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(sm->verdict, TC_VERDICT_NETWORK);
    cr_assert_float_eq(j.findings.network_efficiency, 0.75, 1e-12);
    cr_assert_float_eq(j.findings.effective_gpus, 1.5, 1e-12);
    cr_assert_eq(j.findings.n_actions, 3);
    cr_assert_eq(j.findings.actions[1].code, TC_ACTION_FABRIC_BUSBW);
    char buf[TC_FINDING_TEXT];
    cr_assert_not_null(strstr(action(&j, 1, buf), "collectives reach 42.5 GB/s bus bandwidth"), "%s", buf);
    tc_job_free(&j);

    make_job(&j, 2, 2, 0);
    j.summary.share_exposed_wait = j.summary.share_exposed_transfer = 0.01;
    j.summary.has_mfu = true;
    j.summary.mfu = 0.412;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.summary.verdict, TC_VERDICT_COMPUTE);
    cr_assert_eq(j.findings.n_reasons, 1);
    cr_assert_eq(j.findings.reasons[0].code, TC_REASON_COMPUTE);
    cr_assert_eq(j.findings.n_actions, 2);
    cr_assert_eq(j.findings.actions[1].code, TC_ACTION_MFU_GAP);
    cr_assert_str_eq(action(&j, 1, buf), "MFU is 41.2% of the GPU's peak: the gap to peak is what kernel work can win.");
    tc_job_free(&j);

    make_job(&j, 2, 2, 0);
    j.summary.share_exposed_wait = j.summary.share_exposed_transfer = 0.01;
    j.summary.share_idle = 0.4;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.summary.verdict, TC_VERDICT_HOST);
    cr_assert_eq(j.findings.n_actions, 3);
    cr_assert_eq(j.findings.actions[0].code, TC_ACTION_FEED_GPUS);
    cr_assert_str_eq(reason(&j, 0, buf), "GPUs idle or copying memory 41.0% of the time (idle 40.0% + exposed memory "
                                         "1.0%; threshold 15%)");
    tc_job_free(&j);
}

static void expect_ranks(const tc_job *j, const size_t *want, size_t n) {
    cr_assert_eq(j->findings.n_timeline_ranks, n);
    for (size_t k = 0; k < n; k++) cr_assert_eq(j->findings.timeline_ranks[k], want[k], "rank %zu", k);
}

Test(findings, timeline_ranks_first_straggler_most_waiting_last_then_in_order) {
    tc_job j;
    make_job(&j, 7, 5, 6 * MS);
    j.ranks[3].b.exposed_wait_ns = 5 * MS; /* waited most */
    tc_analyze_options opt = {.bound_threshold = 0.15};
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    expect_ranks(&j, (size_t[]){0, 3, 5, 6}, 4); /* default: 4 */
    opt.timeline_ranks = 2;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    expect_ranks(&j, (size_t[]){0, 5}, 2);
    opt.timeline_ranks = 5;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    expect_ranks(&j, (size_t[]){0, 1, 3, 5, 6}, 5);
    opt.timeline_ranks = 100;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    expect_ranks(&j, (size_t[]){0, 1, 2, 3, 4, 5, 6}, 7);
    cr_assert_not(j.findings.has_step, "no rank has steps");
    tc_job_free(&j);
}

Test(findings, representative_step_is_the_median_step_of_the_first_drawn_rank_with_steps) {
    tc_job j;
    make_job(&j, 2, 2, 0);
    tc_rank_result *rr = &j.ranks[1]; /* rank 0 has no steps */
    rr->steps = calloc(3, sizeof *rr->steps);
    cr_assert(rr->steps);
    rr->n_steps = 3;
    int64_t times[3] = {5 * MS, 1 * MS, 3 * MS};
    for (size_t s = 0; s < 3; s++) {
        rr->steps[s].number = 10 + (int64_t)s;
        rr->steps[s].step_time_ns = times[s];
        rr->steps[s].b.gpu_events = 4;
    }
    tc_analyze_options opt = {.bound_threshold = 0.15};
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert(j.findings.has_step);
    cr_assert_eq(j.findings.step_number, 12);
    cr_assert_eq(j.findings.step_time_ns, 3 * MS);
    cr_assert_eq(j.findings.step_rank, 1);
    /* a median step without GPU events is not drawn */
    rr->steps[2].b.gpu_events = 0;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_not(j.findings.has_step);
    tc_job_free(&j);
}
