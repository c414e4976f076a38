/* test_findings.c: the analyzer's findings (analyzer/findings.h), decided from results alone: the
 * straggler and the 5% rule of its action, the verdict's reasons with their numbers, the actions
 * of each verdict, the timeline's ranks (how many: tc_analyze_options.timeline_ranks) and the
 * representative step; the basis (partial data and why); and their words (reports/findings_text.h),
 * the straggler rule's among them, which the docs and the man page must hold verbatim. */
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
        rr->caused_wait_per_rank_ns_per_step = n > 1 ? rr->caused_wait_ns_per_step / (int64_t)(n - 1) : 0;
    }
    tc_summary *sm = &j->summary;
    sm->ranks = n;
    sm->b.gpu_events = 1000 * n; /* enough to judge (TC_JUDGE_MIN_EVENTS) */
    sm->split_known = true;
    sm->share_compute = 0.6;
    sm->share_exposed_comm = 0.35;
    sm->share_exposed_wait = 0.3;
    sm->share_exposed_transfer = 0.05;
    sm->share_idle = 0.02;
    sm->share_memory_exposed = sm->share_memory_host_exposed = 0.01; /* host copies only */
}

static const char *reason(const tc_job *j, size_t i, char *buf) {
    cr_assert_lt(i, j->findings.n_reasons);
    return tc_reason_text(buf, TC_FINDING_TEXT, &j->findings.reasons[i], j);
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
    cr_assert_float_eq(f->reasons[0].wait, 0.3, 1e-12);
    cr_assert_float_eq(f->reasons[0].comm, 0.35, 1e-12);
    cr_assert_float_eq(f->reasons[0].threshold, 0.15, 1e-12);
    cr_assert_eq(f->reasons[1].code, TC_REASON_SPEEDUP);
    cr_assert_float_eq(f->reasons[1].speedup, 1 / 0.7, 1e-12);
    cr_assert(f->reasons[1].has_speedup_class);
    cr_assert_float_eq(f->reasons[1].speedup_class, 1 / 0.65, 1e-12);
    cr_assert_eq(f->reasons[2].code, TC_REASON_SHARES);
    cr_assert_eq(f->reasons[3].code, TC_REASON_STRAGGLER_RANK);
    cr_assert_eq(f->reasons[3].rank, 2);
    cr_assert_eq(f->reasons[3].wait_ns_per_step, 9 * MS);
    cr_assert_eq(f->reasons[3].waiting_ranks, 3);
    cr_assert_eq(f->reasons[3].wait_per_rank_ns_per_step, 3 * MS);
    cr_assert_eq(j.summary.straggler.waiting_ranks, 3);
    cr_assert_eq(j.summary.straggler.wait_per_rank_ns_per_step, 3 * MS);
    cr_assert_eq(j.summary.straggler.caused_wait_ns_per_step, 9 * MS, "the sum keeps its value");
    char buf[TC_FINDING_TEXT];
    cr_assert_str_eq(reason(&j, 0, buf), "exposed communication is 35.0% of GPU time (threshold 15%), mostly waiting "
                                         "for slower ranks: wait 30.0%, transfer 5.0%");
    cr_assert_str_eq(reason(&j, 1, buf), "removing the waiting would make the job 1.43x faster, all exposed "
                                         "communication 1.54x");
    cr_assert_str_eq(reason(&j, 2, buf), "shares of GPU time: compute 60.0%, exposed transfer 5.0%, exposed wait "
                                         "30.0%, exposed memory 1.0%, idle 2.0%");
    cr_assert_str_eq(reason(&j, 3, buf), "rank 2 causes 100% of the waiting (it arrives last at 100% of collectives): "
                                         "each of the other 3 ranks waits 3.000 ms per step for it (9.000 GPU-ms in "
                                         "total)");

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
    j.summary.share_exposed_comm = 0.02;
    j.summary.has_mfu = true;
    j.summary.mfu = 0.412;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.summary.verdict, TC_VERDICT_COMPUTE);
    cr_assert_eq(j.findings.n_reasons, 2);
    cr_assert_eq(j.findings.reasons[0].code, TC_REASON_COMPUTE);
    cr_assert_eq(j.findings.reasons[1].code, TC_REASON_SHARES);
    cr_assert_str_eq(reason(&j, 0, buf), "no loss reaches 15% of GPU time: exposed communication 2.0%, idle + exposed "
                                         "memory 3.0%");
    cr_assert_eq(j.findings.n_actions, 2);
    cr_assert_eq(j.findings.actions[1].code, TC_ACTION_MFU_GAP);
    cr_assert_str_eq(action(&j, 1, buf), "MFU is 41.2% of the GPU's peak: the gap to peak is what kernel work can win.");
    tc_job_free(&j);

    make_job(&j, 2, 2, 0);
    j.summary.share_exposed_wait = j.summary.share_exposed_transfer = 0.01;
    j.summary.share_exposed_comm = 0.02;
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

/* Issue 18's job: 4 ranks, a straggler, a slow fabric. Exposed comm 25.8% (transfer 12.0%, wait
 * 13.8%) is a quarter of GPU time though neither part reaches 15%: the communication class names
 * the verdict, and wait > transfer makes it straggler-bound. */
Test(findings, verdict_by_loss_class_then_transfer_against_wait) {
    tc_job j;
    make_job(&j, 4, 2, 6 * MS);
    tc_summary *sm = &j.summary;
    sm->share_compute = 0.672;
    sm->share_exposed_comm = 0.258;
    sm->share_exposed_transfer = 0.120;
    sm->share_exposed_wait = 0.138;
    sm->share_memory_exposed = sm->share_memory_host_exposed = 0.009;
    sm->share_idle = 0.061;
    tc_analyze_options opt = {.bound_threshold = 0.15};
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(sm->verdict, TC_VERDICT_STRAGGLER);
    /* transfer >= wait: network-bound, with the speed-ups of transfer and of all exposed comm */
    sm->share_exposed_transfer = 0.138;
    sm->share_exposed_wait = 0.120;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(sm->verdict, TC_VERDICT_NETWORK);
    char buf[TC_FINDING_TEXT];
    cr_assert_str_eq(reason(&j, 1, buf), "removing the exposed transfer would make the job 1.16x faster, all exposed "
                                         "communication 1.35x");
    /* the host class larger than communication: host-bound */
    sm->share_idle = 0.30;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(sm->verdict, TC_VERDICT_HOST);
    /* both classes under the threshold: compute-bound */
    opt.bound_threshold = 0.35;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(sm->verdict, TC_VERDICT_COMPUTE);
    tc_job_free(&j);

    /* one rank: exposed comm is not split, so it is network-bound */
    make_job(&j, 1, 1, 0);
    j.summary.split_known = false;
    j.summary.share_exposed_transfer = j.summary.share_exposed_wait = 0;
    opt.bound_threshold = 0.15;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.summary.verdict, TC_VERDICT_NETWORK);
    cr_assert_str_eq(reason(&j, 0, buf), "exposed communication is 35.0% of GPU time (threshold 15%; not split into "
                                         "wait and transfer: one rank)");
    cr_assert_str_eq(reason(&j, 1, buf), "removing that time would make the job 1.54x faster");
    tc_job_free(&j);
}

/* A rank whose loss share is over the job's by more than the threshold is named, even when the
 * job as a whole is compute-bound. */
Test(findings, worst_rank_named_when_it_differs_by_more_than_the_threshold) {
    tc_job j;
    make_job(&j, 4, 4, 0);
    tc_summary *sm = &j.summary;
    sm->share_exposed_comm = 0.10;
    sm->share_exposed_transfer = 0.08;
    sm->share_exposed_wait = 0.02;
    for (size_t r = 0; r < 4; r++) {
        j.ranks[r].caused_wait_ns = j.ranks[r].caused_wait_ns_per_step = 0;
        j.ranks[r].b.exposed_comm_ns = r == 1 ? 4 * MS : MS / 2; /* rank 1: 40% of its 10 ms window */
    }
    tc_analyze_options opt = {.bound_threshold = 0.15};
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(sm->verdict, TC_VERDICT_COMPUTE);
    const tc_findings *f = &j.findings;
    cr_assert_eq(f->n_reasons, 3);
    cr_assert_eq(f->reasons[2].code, TC_REASON_WORST_RANK);
    cr_assert_eq(f->reasons[2].rank, 1);
    char buf[TC_FINDING_TEXT];
    cr_assert_str_eq(reason(&j, 2, buf), "rank 1 loses 40.0% of its GPU time to exposed communication, against 10.0% "
                                         "over all ranks");
    /* within the threshold of the job's share: not named */
    j.ranks[1].b.exposed_comm_ns = 2 * MS;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.findings.n_reasons, 2);
    tc_job_free(&j);
}

/* The basis: each reason for partial data, and which ones make transfer an upper bound. */
Test(findings, basis_partial_reasons_and_bounds) {
    tc_job j;
    make_job(&j, 4, 2, 6 * MS);
    tc_analyze_options opt = {.bound_threshold = 0.15};
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_not(j.summary.partial);
    cr_assert_not(j.summary.transfer_upper_bound);
    cr_assert_eq(j.summary.n_basis_reasons, 0);

    j.summary.world_size = 128; /* 4 of 128 ranks */
    j.summary.b.exposed_comm_ns = 10 * MS;
    j.ranks[0].unmatched_exposed_ns = MS; /* 10% of exposed comm unmatched */
    j.summary.unmatched_instances = 2;   /* 2 of 40 instances */
    j.summary.coll_instances = 40;
    j.traces[3].truncated = true;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    const tc_summary *sm = &j.summary;
    cr_assert(sm->partial);
    cr_assert(sm->transfer_upper_bound);
    cr_assert_eq(sm->n_basis_reasons, 3);
    cr_assert_eq(sm->basis_reasons[0].code, TC_BASIS_WORLD_SIZE);
    cr_assert_eq(sm->basis_reasons[1].code, TC_BASIS_UNMATCHED);
    cr_assert_float_eq(sm->basis_reasons[1].share, 0.1, 1e-12);
    cr_assert_eq(sm->basis_reasons[1].count, 2);
    cr_assert_eq(sm->basis_reasons[1].of, 40);
    cr_assert_eq(sm->basis_reasons[2].code, TC_BASIS_SALVAGED);
    char buf[TC_FINDING_TEXT];
    cr_assert_str_eq(tc_basis_summary_text(buf, sizeof buf, sm),
                     "4 of 128 ranks; 2 of 40 collectives unmatched, 10% of exposed communication; 1 of 4 inputs cut short");

    /* one unmatched instance of hidden time is said too (issue 28: no 5% threshold) */
    j.summary.world_size = 4;
    j.traces[3].truncated = false;
    j.ranks[0].unmatched_exposed_ns = 0;
    j.summary.unmatched_instances = 1;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert(sm->partial);
    cr_assert(sm->transfer_upper_bound);
    cr_assert_eq(sm->n_basis_reasons, 1);
    cr_assert_eq(sm->basis_reasons[0].code, TC_BASIS_UNMATCHED);
    cr_assert_str_eq(tc_basis_summary_text(buf, sizeof buf, sm), "1 of 40 collectives unmatched, 0% of exposed communication");
    j.traces[3].truncated = true;
    cr_assert_str_eq(tc_basis_reason_code(&sm->basis_reasons[2]), "salvaged_inputs");

    /* a cut input alone: partial, but transfer is no bound */
    j.summary.world_size = 4;
    j.summary.unmatched_instances = 0;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert(sm->partial);
    cr_assert_not(sm->transfer_upper_bound);
    cr_assert_eq(sm->n_basis_reasons, 1);
    tc_job_free(&j);

    /* one rank with exposed communication: not split */
    make_job(&j, 1, 1, 0);
    j.summary.split_known = false;
    j.summary.b.exposed_comm_ns = MS;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert(j.summary.partial);
    cr_assert(j.summary.transfer_upper_bound);
    cr_assert_eq(j.summary.basis_reasons[0].code, TC_BASIS_NOT_SPLIT);
    cr_assert_str_eq(tc_basis_reason_code(&j.summary.basis_reasons[0]), "one_rank");
    cr_assert_str_eq(tc_basis_summary_text(buf, sizeof buf, &j.summary), "one rank, wait and transfer not split");
    tc_job_free(&j);

    /* two ranks whose collectives were not matched: not split either */
    make_job(&j, 2, 2, 0);
    j.summary.split_known = false;
    j.summary.b.exposed_comm_ns = MS;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert(j.summary.transfer_upper_bound);
    cr_assert_str_eq(tc_basis_reason_code(&j.summary.basis_reasons[0]), "not_split");
    cr_assert_str_eq(tc_basis_summary_text(buf, sizeof buf, &j.summary), "collectives unmatched, wait and transfer not split");
    tc_job_free(&j);
}

/* Every run of blanks and newlines becomes one space (the documents wrap the sentence). */
static void squeeze_spaces(char *s) {
    char *o = s;
    bool sp = false;
    for (char *p = s; *p; p++) {
        bool w = *p == ' ' || *p == '\n' || *p == '\t';
        if (w && sp) continue;
        *o++ = w ? ' ' : *p;
        sp = w;
    }
    *o = '\0';
}

/* The straggler rule is worded once (tc_straggler_rule_text, which the HTML prints), and
 * docs/definitions.md and the man page hold that very sentence. */
Test(findings, straggler_rule_worded_once_in_docs_man_page_and_html) {
    char *want = strdup(tc_straggler_rule_text());
    squeeze_spaces(want);
    const char *files[] = {"docs/definitions.md", "docs/tracecost.1"};
    for (size_t i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "rb");
        cr_assert_not_null(f, "%s", files[i]);
        static char text[1 << 20];
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = '\0';
        squeeze_spaces(text);
        cr_expect_not_null(strstr(text, want), "%s does not hold the straggler rule as the code words it:\n%s",
                           files[i], want);
    }
    free(want);
}

/* Too little to judge: below 100 GPU events and below 10 ms of GPU time (window − idle, summed over
 * ranks) the verdict is too-small, with what was found and what is needed, the shares, one action
 * and no speed-up; either figure reached is enough to judge (the boundaries included). */
Test(findings, too_small_below_both_figures) {
    static const struct { uint64_t events; int64_t busy_ns; bool small; } cases[] = {
        {4, 1600 * 1000, true}, {99, 10 * MS - 1, true}, {100, 1 * MS, false}, {3, 10 * MS, false}, {0, 0, true},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        tc_job j;
        make_job(&j, 2, 1, 6 * MS);
        j.summary.b.gpu_events = cases[k].events;
        j.summary.b.window_ns = 20 * MS;
        j.summary.b.idle_ns = 20 * MS - cases[k].busy_ns;
        tc_analyze_options opt = {.bound_threshold = 0.15};
        cr_assert_eq(tc_job_findings(&j, &opt), 0);
        const tc_findings *f = &j.findings;
        if (!cases[k].small) {
            cr_assert_eq(j.summary.verdict, TC_VERDICT_STRAGGLER, "case %zu: judged", k);
            tc_job_free(&j);
            continue;
        }
        cr_assert_eq(j.summary.verdict, TC_VERDICT_TOO_SMALL, "case %zu", k);
        cr_assert_str_eq(tc_verdict_name(j.summary.verdict), "too-small");
        cr_assert_eq(f->n_reasons, 2);
        cr_assert_eq(f->reasons[0].code, TC_REASON_TOO_SMALL);
        cr_assert_eq(f->reasons[0].gpu_events, cases[k].events);
        cr_assert_eq(f->reasons[0].gpu_busy_ns, cases[k].busy_ns);
        cr_assert_eq(f->reasons[1].code, TC_REASON_SHARES);
        cr_assert_eq(f->n_actions, 1);
        cr_assert_eq(f->actions[0].code, TC_ACTION_PROFILE_LONGER);
        char buf[TC_FINDING_TEXT];
        if (k == 0)
            cr_assert_str_eq(reason(&j, 0, buf), "4 GPU events, 1.6 ms of GPU time: at least 100 events or 10 ms are "
                                                 "needed to judge");
        tc_job_free(&j);
    }
}
