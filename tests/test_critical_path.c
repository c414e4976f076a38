/* test_critical_path.c: what users see of the replay and the critical path (issue 29 items 2 and
 * 6): the verdict's critical-path reason and its "fix rank R first" action (analyzer/findings.c),
 * and summary.replay, summary.critical_path and critical_path_steps in the JSON, the "What limits
 * the step" section of the terminal and HTML reports and the path on the HTML timeline
 * (reports/replay_report.c, html_timeline.c), from replay results planted by hand on a generated
 * job (the replay itself is tested where it is computed). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>
#include "analyzer/analyze.h"
#include "analyzer/findings.h"
#include "analyzer/job_run.h"
#include "parsers/assemble.h"
#include "parsers/result_json.h"
#include "reports/findings_text.h"
#include "reports/html_report.h"
#include "reports/json_report.h"
#include "reports/text_report.h"
#include "testutil.h"

#define MS 1000000 /* ns */
#define STRAGGLER 2

static tc_analyze_options opts(void) { return (tc_analyze_options){.bound_threshold = 0.15, .jobs = 1}; }

/* A generated 4-rank job, rank STRAGGLER slow, loaded and analyzed through the library. */
static void load_job(tc_job *j, const char *dir) {
    tu_gen_job(dir, "job", "--ranks 4 --steps 3 --straggler 2 --straggler-delay-us 4000 --seed 7");
    char *paths[4];
    for (int r = 0; r < 4; r++) {
        paths[r] = malloc(600);
        cr_assert(paths[r]);
        snprintf(paths[r], 600, "%s/job/rank%d.pt.trace.json", dir, r);
    }
    tc_job_init(j);
    tc_assemble_options lo = {.jobs = 1};
    tc_notes notes = {0};
    cr_assert_eq(tc_job_assemble(j, paths, NULL, 4, &lo, &notes), TC_ASSEMBLY_OK);
    tc_notes_free(&notes);
    tc_analyze_options ao = opts();
    cr_assert_eq(tc_job_analyze(j, &ao), 0);
    for (int r = 0; r < 4; r++) free(paths[r]);
}

static void drop_replay(tc_summary *sm) {
    tc_replay_summary_free(&sm->replay);
    tc_critical_path_free(&sm->critical_path);
    for (size_t i = 0; i < sm->n_cp_steps; i++) tc_critical_path_free(&sm->cp_steps[i]);
    free(sm->cp_steps);
    sm->cp_steps = NULL;
    sm->n_cp_steps = 0;
    sm->has_critical_path = false;
}

static size_t rank_index(const tc_job *j, int64_t rank) {
    for (size_t r = 0; r < j->n_ranks; r++) if (j->ranks[r].rank == rank) return r;
    cr_assert_fail("no rank %lld", (long long)rank);
    return 0;
}

/* One step's path of `step_ns`: 64% rank STRAGGLER's compute, 20% inter-node transfer, the rest
 * launching, host work and idle; through ranks STRAGGLER and 0. */
static void plant_step(tc_critical_path *p, int64_t number, int64_t step_ns) {
    memset(p, 0, sizeof *p);
    p->number = number;
    p->step_ns = step_ns;
    p->class_ns[TC_CP_COMPUTE] = step_ns * 64 / 100;
    p->class_ns[TC_CP_TRANSFER_INTER] = step_ns * 20 / 100;
    p->class_ns[TC_CP_HOST_LAUNCH] = step_ns * 6 / 100;
    p->class_ns[TC_CP_HOST_CPU] = step_ns * 5 / 100;
    p->class_ns[TC_CP_IDLE] = step_ns - p->class_ns[0] - p->class_ns[TC_CP_TRANSFER_INTER] - p->class_ns[TC_CP_HOST_LAUNCH] -
                              p->class_ns[TC_CP_HOST_CPU];
    p->by_rank = calloc(2, sizeof *p->by_rank);
    cr_assert(p->by_rank);
    p->n_by_rank = 2;
    p->by_rank[0] = (tc_cp_rank){STRAGGLER, step_ns * 75 / 100, p->class_ns[TC_CP_COMPUTE]};
    p->by_rank[1] = (tc_cp_rank){0, step_ns - step_ns * 75 / 100, 0};
    static const char *const names[] = {"ampere_bf16_gemm_128x128", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL",
                                        "cudaLaunchKernel", "evil<script>alert(1)</script>\033[2J"};
    static const uint8_t kinds[] = {TC_CP_COMPUTE, TC_CP_TRANSFER_INTER, TC_CP_HOST_LAUNCH, TC_CP_HOST_CPU};
    for (size_t i = 0; i < 4; i++) {
        p->top[i].name = names[i]; /* borrowed, as the analysis's names are */
        p->top[i].kind = kinds[i];
        p->top[i].rank = i == 1 ? 0 : STRAGGLER;
        p->top[i].ns = p->class_ns[kinds[i]];
    }
    p->n_top = 4;
}

/* The path's stretches for the drawn step: rank STRAGGLER's first 60% of its step window
 * (compute), then a launch and rank 0's last 40% (transfer). */
static void plant_segments(const tc_job *j, tc_critical_path *p) {
    size_t a = rank_index(j, STRAGGLER), b = rank_index(j, 0);
    const tc_breakdown *ba = NULL, *bb = NULL;
    for (size_t s = 0; s < j->ranks[a].n_steps; s++) if (j->ranks[a].steps[s].number == p->number) ba = &j->ranks[a].steps[s].b;
    for (size_t s = 0; s < j->ranks[b].n_steps; s++) if (j->ranks[b].steps[s].number == p->number) bb = &j->ranks[b].steps[s].b;
    cr_assert(ba && bb);
    p->segs = calloc(3, sizeof *p->segs);
    cr_assert(p->segs);
    int64_t wa = ba->last_ns - ba->first_ns, wb = bb->last_ns - bb->first_ns;
    p->segs[0] = (tc_cp_segment){(uint32_t)a, TC_CP_COMPUTE, ba->first_ns, ba->first_ns + wa * 6 / 10};
    p->segs[1] = (tc_cp_segment){(uint32_t)b, TC_CP_HOST_LAUNCH, bb->first_ns + wb * 6 / 10, bb->first_ns + wb * 6 / 10 + 2000};
    p->segs[2] = (tc_cp_segment){(uint32_t)b, TC_CP_TRANSFER_INTER, bb->first_ns + wb * 6 / 10 + 2000, bb->last_ns};
    p->n_segs = 3;
}

/* summary.replay and the critical paths as analyzer/replay.c leaves them: a 10.03 ms replayed step
 * (0.3% off the measured 10 ms), the instant reference 2.5% shorter, one path per step of rank 0;
 * then the findings again, as tc_job_finish decides them after the replay. */
static void plant_replay(tc_job *j, bool with_reference) {
    tc_summary *sm = &j->summary;
    drop_replay(sm);
    tc_replay_summary *r = &sm->replay;
    const tc_rank_result *r0 = &j->ranks[0];
    size_t n = r0->n_steps;
    cr_assert_gt(n, 0);
    r->has = true;
    r->ops = 12345;
    r->ops_unplaced = 7;
    r->event_deps = 96;
    r->inferred_deps = 12;
    r->sync_calls = 3;
    r->measured_step_ns = 10 * MS;
    r->replayed_step_ns = 10030000;
    r->identity_error = 0.003;
    r->has_reference = with_reference;
    snprintf(r->reference, sizeof r->reference, "instant");
    r->reference_step_ns = 10030000 - 250750; /* 2.5% */
    r->n_steps = n;
    r->step_number = calloc(n, sizeof *r->step_number);
    r->step_measured_ns = calloc(n, sizeof *r->step_measured_ns);
    r->step_replayed_ns = calloc(n, sizeof *r->step_replayed_ns);
    sm->cp_steps = calloc(n, sizeof *sm->cp_steps);
    cr_assert(r->step_number && r->step_measured_ns && r->step_replayed_ns && sm->cp_steps);
    for (size_t s = 0; s < n; s++) {
        r->step_number[s] = r0->steps[s].number;
        r->step_measured_ns[s] = 10 * MS;
        r->step_replayed_ns[s] = 10030000;
        plant_step(&sm->cp_steps[s], r0->steps[s].number, 10030000);
    }
    sm->n_cp_steps = n;
    plant_step(&sm->critical_path, -1, 10030000 * (int64_t)n);
    sm->has_critical_path = true;
    tc_analyze_options ao = opts();
    cr_assert_eq(tc_job_findings(j, &ao), 0);
    cr_assert(j->findings.has_step);
    for (size_t s = 0; s < n; s++)
        if (sm->cp_steps[s].number == j->findings.step_number) plant_segments(j, &sm->cp_steps[s]);
}

static char *render(const tc_job *j, int kind) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f);
    tc_term_opts to = {.color = false, .width = 80};
    if (kind == 0) tc_text_report_write(f, j, &to);
    else if (kind == 1) cr_assert_eq(tc_json_report_write(f, j, 1), 0);
    else cr_assert_eq(tc_html_report_write(f, j), 0);
    cr_assert_eq(fclose(f), 0);
    const char *keep = getenv("TC_CP_KEEP"); /* a folder to keep the planted reports in, to look at */
    if (keep && *keep) {
        char path[600];
        snprintf(path, sizeof path, "%s/planted.%s", keep, kind == 0 ? "txt" : kind == 1 ? "json" : "html");
        FILE *k = fopen(path, "w");
        if (k) { fputs(buf, k); fclose(k); }
    }
    return buf;
}

static bool has_reason(const tc_job *j, const char *words, char *out) {
    for (size_t i = 0; i < j->findings.n_reasons; i++) {
        tc_reason_text(out, TC_FINDING_TEXT, &j->findings.reasons[i], j);
        if (strstr(out, words)) return true;
    }
    return false;
}

/* the verdict names the path: 64% the straggler's compute, a faster fabric saves at most 2.5%,
 * and the first action is to fix that rank */
Test(critical_path, verdict_reason_and_action) {
    char *dir = tu_tmpdir(), text[TC_FINDING_TEXT];
    tc_job j;
    load_job(&j, dir);
    if (!j.summary.replay.has) cr_assert(!has_reason(&j, "critical path", text), "a path reason without a replay: %s", text);
    else cr_assert(has_reason(&j, "rank 2's compute", text), "the replayed path misses the straggler: %s", text);
    plant_replay(&j, true);
    cr_assert(has_reason(&j, "the critical path across ranks (through 2 ranks) is 64.0% rank 2's compute: a network "
                             "that moves bytes instantly would save at most 2.5% of the step", text), "%s", text);
    cr_assert_eq(j.findings.reasons[1].code, TC_REASON_CRITICAL_PATH, "right after the verdict's own reason");
    cr_assert_eq(j.findings.actions[0].code, TC_ACTION_FIX_PATH_RANK);
    tc_action_text(text, sizeof text, &j.findings.actions[0], &j);
    cr_expect(!strncmp(text, "Fix rank 2 first: the critical path is 64.0% its compute, ", 58), "%s", text);
    cr_expect(strstr(text, "a faster fabric would save at most 2.5% of the step."), "%s", text);
    cr_expect_leq(j.findings.n_actions, TC_MAX_ACTIONS);
    /* ranks missing (world size 8, 4 traces): the saving is on partial data, the reason and the action both say so */
    int64_t world = j.summary.world_size;
    j.summary.world_size = (int64_t)j.n_ranks + 4;
    plant_replay(&j, true);
    cr_assert(j.summary.transfer_upper_bound);
    cr_assert(has_reason(&j, "at most 2.5% of the step (on partial data)", text), "%s", text);
    cr_assert_eq(j.findings.actions[0].code, TC_ACTION_FIX_PATH_RANK);
    tc_action_text(text, sizeof text, &j.findings.actions[0], &j);
    cr_expect(strstr(text, "a faster fabric would save at most 2.5% of the step (on partial data)."), "%s", text);
    j.summary.world_size = world;
    /* without the instant reference: no saving claimed */
    plant_replay(&j, false);
    cr_assert(has_reason(&j, "critical path", text));
    cr_expect_null(strstr(text, "save"), "%s", text);
    /* a path mostly through a rank computing like the median: no rank to fix */
    for (size_t k = 0; k < j.summary.critical_path.n_by_rank; k++) j.summary.critical_path.by_rank[k].rank = 0;
    tc_analyze_options ao = opts();
    cr_assert_eq(tc_job_findings(&j, &ao), 0);
    for (size_t i = 0; i < j.findings.n_actions; i++) cr_expect_neq(j.findings.actions[i].code, TC_ACTION_FIX_PATH_RANK);
    tc_job_free(&j);
    free(dir);
}

/* summary.replay, critical_path and critical_path_steps: the keys, shares adding up to 1 with the
 * eight class keys, per-step means in the sum over steps, no NaN */
Test(critical_path, json_keys) {
    char *dir = tu_tmpdir();
    tc_job j;
    load_job(&j, dir);
    char *before = render(&j, 1);
    yajl_val d0 = yajl_tree_parse(before, NULL, 0);
    cr_assert(d0);
    yajl_val r0 = tu_get(d0, "summary", "replay", NULL);
    cr_assert(r0 && YAJL_IS_OBJECT(r0));
    if (!j.summary.replay.has) { /* the replay not run: available false, null figures and a note */
        cr_expect(YAJL_IS_FALSE(tu_get(r0, "available", NULL)));
        cr_expect(YAJL_IS_NULL(tu_get(r0, "replayed_step_us", NULL)));
        cr_expect_not_null(tu_str(tu_get(r0, "note", NULL)));
        cr_expect(YAJL_IS_NULL(tu_get(d0, "summary", "critical_path", NULL)));
    }
    yajl_tree_free(d0);
    free(before);
    plant_replay(&j, true);
    char *json = render(&j, 1);
    cr_expect_null(strstr(json, "NaN"));
    yajl_val d = yajl_tree_parse(json, NULL, 0);
    cr_assert(d, "not JSON");
    yajl_val r = tu_get(d, "summary", "replay", NULL);
    cr_expect(YAJL_IS_TRUE(tu_get(r, "available", NULL)));
    cr_expect_float_eq(tu_num(tu_get(r, "replayed_step_us", NULL)), 10030.0, 1e-9);
    cr_expect_float_eq(tu_num(tu_get(r, "measured_step_us", NULL)), 10000.0, 1e-9);
    cr_expect_float_eq(tu_num(tu_get(r, "identity_error", NULL)), 0.003, 1e-12);
    cr_expect_str_eq(tu_str(tu_get(r, "reference", NULL)), "instant");
    cr_expect_float_eq(tu_num(tu_get(r, "reference_step_us", NULL)), 9779.25, 1e-9);
    cr_expect(YAJL_IS_NULL(tu_get(r, "projected_step_us", NULL)));
    cr_expect_eq(tu_num(tu_get(r, "ops_unplaced", NULL)), 7);
    yajl_val steps = tu_get(r, "steps", NULL);
    cr_assert(YAJL_IS_ARRAY(steps));
    cr_expect_eq(steps->u.array.len, j.ranks[0].n_steps);
    yajl_val cp = tu_get(d, "summary", "critical_path", NULL);
    cr_assert(cp && YAJL_IS_OBJECT(cp));
    cr_expect_float_eq(tu_num(tu_get(cp, "step_us", NULL)), 10030.0, 1e-9, "per step");
    cr_expect_eq(tu_num(tu_get(cp, "steps", NULL)), (double)j.ranks[0].n_steps);
    yajl_val sh = tu_get(cp, "shares", NULL);
    cr_assert(YAJL_IS_OBJECT(sh));
    cr_expect_eq(sh->u.object.len, TC_CP_CLASSES);
    double sum = 0;
    for (size_t k = 0; k < TC_CP_CLASSES; k++) {
        cr_expect_str_eq(sh->u.object.keys[k], tc_cp_class_key[k]);
        sum += tu_num(sh->u.object.values[k]);
    }
    cr_expect_float_eq(sum, 1.0, 1e-9);
    cr_expect_float_eq(tu_num(tu_get(sh, "compute", NULL)), 0.64, 1e-6);
    yajl_val br = tu_get(cp, "by_rank", NULL);
    cr_assert(YAJL_IS_ARRAY(br) && br->u.array.len == 2);
    cr_expect_eq(tu_num(tu_get(br->u.array.values[0], "rank", NULL)), STRAGGLER);
    cr_expect_float_eq(tu_num(tu_get(br->u.array.values[0], "compute_us", NULL)), 6419.2, 1e-6);
    yajl_val top = tu_get(cp, "top", NULL);
    cr_assert(YAJL_IS_ARRAY(top) && top->u.array.len == 4);
    cr_expect_str_eq(tu_str(tu_get(top->u.array.values[1], "kind", NULL)), "transfer_inter_node");
    yajl_val per = tu_get(d, "summary", "critical_path_steps", NULL);
    cr_assert(YAJL_IS_ARRAY(per) && per->u.array.len == j.ranks[0].n_steps);
    cr_expect_eq(tu_num(tu_get(per->u.array.values[0], "step", NULL)), (double)j.ranks[0].steps[0].number);
    yajl_tree_free(d);
    /* compare reads the replay's step times back from the saved result as from the job */
    tc_run_summary saved, from_job;
    tc_error e;
    cr_assert_eq(tc_result_json_parse(&saved, json, "planted", &e), TC_OK, "%s", e.msg);
    cr_assert_eq(tc_run_summary_from_job(&from_job, &j, "planted", TC_RUN_AS_SAVED, &e), TC_OK);
    cr_expect(saved.has_replay && from_job.has_replay);
    cr_expect_eq(saved.replay_replayed_step_us, 10030.0);
    cr_expect_eq(saved.replay_measured_step_us, from_job.replay_measured_step_us);
    cr_expect_eq(saved.replay_replayed_step_us, from_job.replay_replayed_step_us);
    cr_expect_eq(saved.replay_identity_error, from_job.replay_identity_error);
    cr_expect(saved.has_replay_reference && from_job.has_replay_reference);
    cr_expect_str_eq(saved.replay_reference, "instant");
    cr_expect_str_eq(from_job.replay_reference, "instant");
    cr_expect_eq(saved.replay_reference_step_us, from_job.replay_reference_step_us);
    cr_expect(!saved.has_replay_projected && !from_job.has_replay_projected);
    tc_run_summary_free(&saved);
    tc_run_summary_free(&from_job);
    free(json);
    tc_job_free(&j);
    free(dir);
}

/* the terminal's "What limits the step": the identity, the shares, the ranks, the stretches (names
 * cleaned), the reference and the graph's counts, in 80 columns; "not available" without a replay */
Test(critical_path, text_section) {
    char *dir = tu_tmpdir();
    tc_job j;
    load_job(&j, dir);
    drop_replay(&j.summary);
    j.summary.replay.note = strdup("the replay needs the single-process build");
    char *none = render(&j, 0);
    cr_expect_not_null(strstr(none, "What limits the step: not available (the replay needs the single-process build)"),
                       "%s", none);
    free(none);
    plant_replay(&j, true);
    char *out = render(&j, 0);
    const char *sec = strstr(out, "What limits the step (the critical path across ranks, 3 steps)");
    cr_assert_not_null(sec, "%s", out);
    cr_expect_not_null(strstr(sec, "the replay reproduces the measured step within 0.3%"), "%s", sec);
    cr_expect_not_null(strstr(sec, "the path, 10.030 ms per step: compute 64.0% | inter-node transfer 20.0%"), "%s", sec);
    cr_expect_not_null(strstr(sec, "rank 2 7.523 ms (75.0%; compute 6.419 ms)"), "%s", sec);
    cr_expect_not_null(strstr(sec, "ampere_bf16_gemm_128x128"), "%s", sec);
    cr_expect_not_null(strstr(sec, "a network that moves bytes instantly: 9.779 ms per step, at most 2.5% shorter"), "%s", sec);
    cr_expect_not_null(strstr(sec, "12,345 GPU ops, 7 of them kept at their measured time"), "%s", sec);
    cr_expect_null(strstr(out, "\033"), "control characters from a name reached the terminal");
    cr_expect_null(strstr(sec, "<="), "a bound mark on complete data");
    tu_expect_width(out, 80);
    free(out);
    tc_job_free(&j);
    free(dir);
}

/* the HTML section and the path on the timeline: a lane under each rank the drawn step's path runs
 * through, a line where it passes between them; names escaped */
Test(critical_path, html_section_and_timeline) {
    char *dir = tu_tmpdir();
    tc_job j;
    load_job(&j, dir);
    plant_replay(&j, true);
    char *html = render(&j, 2);
    const char *sec = strstr(html, "<section id=\"critical-path\">");
    cr_assert_not_null(sec);
    const char *tl = strstr(html, "<section id=\"timeline\">");
    cr_assert(tl && tl < sec, "the section follows the timeline it points to");
    cr_expect_not_null(strstr(sec, "The replay reproduces the measured step within 0.3%"));
    cr_expect_not_null(strstr(sec, "<table id=\"cp-shares\">"));
    cr_expect_not_null(strstr(sec, "evil&lt;script&gt;alert(1)&lt;/script&gt;"));
    cr_expect_null(strstr(html, "<script>alert(1)"));
    cr_expect_not_null(strstr(tl, "rank 2 &middot; critical path</text>"));
    cr_expect_not_null(strstr(tl, "rank 0 &middot; critical path</text>"));
    cr_expect_not_null(strstr(tl, "critical path: compute - rank 2"));
    cr_expect(strstr(tl, "<line x1=") && strstr(tl, "stroke=\"#000\" stroke-width=\"1\"/>"), "the pass between ranks");
    free(html);
    tc_job_free(&j);
    free(dir);
}

/* the replayed path's stretches (tc_cp_segment, for the timeline) cover each step's path exactly, in
 * time order, and the HTML timeline draws them */
Test(critical_path, replayed_segments_cover_the_path) {
    char *dir = tu_tmpdir();
    tc_job j;
    load_job(&j, dir);
    const tc_summary *sm = &j.summary;
    if (!sm->replay.has) cr_skip_test("no replay in this build");
    cr_assert(sm->has_critical_path && sm->n_cp_steps > 0);
    for (size_t s = 0; s < sm->n_cp_steps; s++) {
        const tc_critical_path *p = &sm->cp_steps[s];
        cr_assert_gt(p->n_segs, 0, "step %lld has no stretches", (long long)p->number);
        int64_t sum = 0;
        for (size_t i = 0; i < p->n_segs; i++) {
            cr_expect_lt(p->segs[i].rank, j.n_ranks);
            cr_expect_gt(p->segs[i].end_ns, p->segs[i].start_ns);
            sum += p->segs[i].end_ns - p->segs[i].start_ns;
        }
        cr_expect_eq(sum, p->step_ns, "step %lld: stretches %lld ns, path %lld ns", (long long)p->number, (long long)sum,
                     (long long)p->step_ns);
    }
    char *html = render(&j, 2);
    const char *tl = strstr(html, "<section id=\"timeline\">");
    cr_assert(tl);
    cr_expect_not_null(strstr(tl, "rank 2 &middot; critical path</text>"), "the straggler's path lane");
    free(html);
    tc_job_free(&j);
    free(dir);
}

/* --no-replay: no step graph, the note says why, the verdict has no critical-path reason */
Test(critical_path, no_replay_option) {
    char *dir = tu_tmpdir(), *out = NULL;
    tu_gen_job(dir, "job", "--ranks 2 --steps 2 --seed 3");
    cr_assert_eq(tu_sh(&out, "%s analyze -q --no-replay --json %s/r.json %s/job", tu_bin(), dir, dir), 0, "%s", out);
    free(out);
    char path[600];
    snprintf(path, sizeof path, "%s/r.json", dir);
    yajl_val d = tu_json_file(path);
    cr_assert(d);
    cr_expect(YAJL_IS_FALSE(tu_get(d, "summary", "replay", "available", NULL)));
    cr_expect_str_eq(tu_str(tu_get(d, "summary", "replay", "note", NULL)), "--no-replay was given");
    cr_expect(YAJL_IS_NULL(tu_get(d, "summary", "critical_path", NULL)));
    yajl_val reasons = tu_get(d, "summary", "verdict_reasons", NULL);
    for (size_t i = 0; reasons && i < reasons->u.array.len; i++)
        cr_expect_null(strstr(tu_str(reasons->u.array.values[i]), "critical path"));
    yajl_tree_free(d);
    free(dir);
}
