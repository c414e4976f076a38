/* test_conclusions.c: build/tracecost end to end on what a purchase meeting reads (issue 18): the
 * verdict by loss class on a planted straggler job, the straggler's wait per waiting rank, the
 * basis of every conclusion on partial data (2 of 128 ranks) and the money bounds it labels, the
 * cost defaults (no fabric on one node, fabric per node, the age of catalog prices, the headline's
 * extrapolation), --no-cost, and the node of each rank (--gpus-per-node, handler file names; the
 * other evidence: test_nodes.c). Compare per unit of work is in test_compare.c. */
#include "testutil.h"
#include <math.h>

static const char *jstr(yajl_val v) {
    cr_assert(v && YAJL_IS_STRING(v), "expected a string");
    return v->u.string;
}

/* Generates a job into DIR/NAME with tracegen flags. */
static void gen(const char *dir, const char *name, const char *flags) {
    char *out = NULL;
    int rc = tu_sh(&out, "%s -o %s/%s %s", tu_gen(), dir, name, flags);
    cr_assert_eq(rc, 0, "tracegen %s: %s", flags, out);
    free(out);
}

/* The text with every line break and the indentation after it turned into one space, so wrapped
 * sentences can be searched whole. In place; returns s. */
static char *unwrap(char *s) {
    char *o = s;
    for (char *p = s; *p; p++) {
        if (*p == '\n') {
            while (p[1] == ' ') p++;
            *o++ = ' ';
        } else *o++ = *p;
    }
    *o = '\0';
    return s;
}

/* analyze ARGS with --json DIR/NAME.json (and the terminal output, unwrapped, in *text when text is
 * not NULL). */
static yajl_val analyze(const char *dir, const char *name, const char *args, char **text) {
    char json[600];
    snprintf(json, sizeof json, "%s/%s.json", dir, name);
    char *out = NULL;
    int rc = tu_sh(&out, "SOURCE_DATE_EPOCH=1764547200 %s analyze --json %s %s 2>/dev/null", tu_bin(), json, args);
    cr_assert_eq(rc, 0, "analyze %s: exit %d\n%s", args, rc, out);
    if (text) *text = unwrap(out); else free(out);
    return tu_json_file(json);
}

/* Issue 18's job: 4 ranks, rank 2 a straggler, a 20 GB/s fabric. Exposed comm is a quarter of GPU
 * time (transfer 12.1%, wait 13.7%), neither part reaching 15%: the old rule said compute-bound. */
Test(conclusions, straggler_job_on_a_slow_fabric_is_straggler_bound, .timeout = 60) {
    char *dir = tu_tmpdir(), *text = NULL;
    gen(dir, "job", "--ranks 4 --straggler 2 --busbw-GBps 20 --steps 3 --idle-us 3000");
    char args[700];
    snprintf(args, sizeof args, "%s/job", dir);
    yajl_val doc = analyze(dir, "job", args, &text);
    yajl_val sh = tu_get(doc, "summary", "shares", NULL);
    double comm = tu_num(tu_get(sh, "exposed_comm", NULL)), tr = tu_num(tu_get(sh, "exposed_transfer", NULL)),
           wa = tu_num(tu_get(sh, "exposed_wait", NULL));
    cr_assert(comm > 0.25 && tr < 0.15 && wa < 0.15 && wa > tr, "the planted shares: comm %.3f transfer %.3f wait %.3f",
              comm, tr, wa);
    cr_assert_str_eq(jstr(tu_get(doc, "summary", "verdict", NULL)), "straggler-bound");
    cr_assert(!strncmp(text, "Verdict: straggler-bound - ", 27), "%.200s", text);
    /* the verdict's shares are of the step window: the first step's data-loader gap is idle there */
    cr_assert(strstr(text, "mostly waiting for slower ranks: wait 13.3%, transfer 11.7%"), "%s", text);
    cr_assert(strstr(text, "shares of step time: compute 65.2%, exposed transfer 11.7%, exposed wait 13.3%"), "%s", text);
    cr_assert_str_eq(jstr(tu_get(doc, "summary", "basis", NULL)), "complete");
    yajl_tree_free(doc);
    free(text);
    /* the generator's defaults for the same job say the same */
    gen(dir, "dflt", "--ranks 4 --straggler 2 --busbw-GBps 20");
    snprintf(args, sizeof args, "%s/dflt", dir);
    doc = analyze(dir, "dflt", args, NULL);
    cr_assert_str_eq(jstr(tu_get(doc, "summary", "verdict", NULL)), "straggler-bound");
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* 8 ranks, one straggler: the headline figure is per waiting rank and never more than a step; the
 * old key keeps the sum, which the new key repeats in GPU-µs. */
Test(conclusions, straggler_wait_is_per_waiting_rank_and_within_a_step, .timeout = 60) {
    char *dir = tu_tmpdir(), *text = NULL;
    gen(dir, "job", "--ranks 8 --straggler 3 --busbw-GBps 20 --seed 2");
    char args[700];
    snprintf(args, sizeof args, "--html %s/r.html %s/job", dir, dir);
    yajl_val doc = analyze(dir, "job", args, &text);
    yajl_val s = tu_get(doc, "summary", "straggler", NULL);
    cr_assert(s && YAJL_IS_OBJECT(s), "a straggler is named");
    double per = tu_num(tu_get(s, "wait_per_rank_us_per_step", NULL));
    double sum = tu_num(tu_get(s, "caused_wait_gpu_us_per_step", NULL));
    double old = tu_num(tu_get(s, "caused_wait_us_per_step", NULL));
    double step = tu_num(tu_get(doc, "summary", "step_time_us", NULL));
    cr_assert_eq(tu_num(tu_get(s, "waiting_ranks", NULL)), 7);
    cr_assert_eq(old, sum, "the old key keeps its value: the sum");
    cr_assert(fabs(per * 7 - sum) <= 0.007, "per rank %.3f x 7 != sum %.3f", per, sum);
    cr_assert(per > 0 && per <= step, "wait per waiting rank %.3f us exceeds the step %.3f us", per, step);
    cr_assert(sum > step, "the planted sum is over a step (that is why it must not be the headline)");
    char want[200];
    snprintf(want, sizeof want, "each of the other 7 ranks waits %.3f ms per step for it (%.3f GPU-ms in total)",
             per / 1e3, sum / 1e3);
    cr_assert(strstr(text, want), "the reason and the straggler section say: %s\n%s", want, text);
    char html_path[700];
    snprintf(html_path, sizeof html_path, "%s/r.html", dir);
    char *html = tu_read_file(html_path, NULL);
    cr_assert(strstr(html, want), "the HTML says: %s", want);
    cr_assert(strstr(html, "others wait<br>ms/step"), "the per-rank column is per waiting rank");
    free(html);
    yajl_tree_free(doc);
    free(text);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* 2 ranks of a 128-rank job: partial in the verdict line and in the cost headline, and the money
 * labelled as the bound it is. */
Test(conclusions, two_of_128_ranks_say_partial_in_verdict_and_cost, .timeout = 60) {
    char *dir = tu_tmpdir(), *text = NULL;
    yajl_val doc = analyze(dir, "pair", "--gpu a100-sxm samples/hta-pair", &text);
    cr_assert(!strncmp(text, "Verdict: host-bound (on partial data: 2 of 128 ranks) - ", 56), "%.200s", text);
    cr_assert(strstr(text, " on partial data: 2 of 128 ranks; host idle and memory copies cost $"), "%s", text);
    cr_assert(strstr(text, "the inter-node network at most $"), "%s", text);
    cr_assert(strstr(text, "waiting for a straggler at least $"), "%s", text);
    cr_assert(strstr(text, "your 128 GPUs do the work of at least "), "%s", text);
    cr_assert(strstr(text, "if this job ran all month as profiled"), "%s", text);
    yajl_val sm = tu_get(doc, "summary", NULL);
    cr_assert_str_eq(jstr(tu_get(sm, "basis", NULL)), "partial");
    cr_assert_str_eq(jstr(tu_get(sm, "basis_summary", NULL)), "2 of 128 ranks");
    cr_assert(YAJL_IS_TRUE(tu_get(sm, "transfer_upper_bound", NULL)));
    cr_assert_str_eq(jstr(tu_get(sm, "basis_reasons", "#0", "code", NULL)), "world_size");
    cr_assert_eq(tu_num(tu_get(sm, "world_size", NULL)), 128);
    yajl_val cost = tu_get(doc, "cost", NULL);
    cr_assert_str_eq(jstr(tu_get(cost, "basis", NULL)), "partial");
    cr_assert_str_eq(jstr(tu_get(cost, "network_efficiency_bound", NULL)), "lower bound");
    cr_assert_str_eq(jstr(tu_get(cost, "straggler_loss_bound", NULL)), "lower bound");
    cr_assert_eq(tu_num(tu_get(cost, "inputs", "gpus", "value", NULL)), 128);
    /* the capture date (epoch µs timestamps, no baseTimeNanoseconds) ages the catalog's 2020 purchase price */
    cr_assert_str_eq(jstr(tu_get(sm, "captured_at", NULL)), "2023-04-28T23:51:38Z");
    cr_assert_str_eq(jstr(tu_get(cost, "inputs", "price_as_of", "source", NULL)), "trace capture date");
    cr_assert(strstr(text, "the catalog purchase price of a100-sxm is dated 2020-05: 35 months"), "%s", text);
    yajl_tree_free(doc);
    free(text);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* Lines of text (split at '\n') that contain key: how many, and how many of those contain mark. */
static void count_lines(const char *text, const char *key, const char *mark, int *with_key, int *with_mark) {
    *with_key = *with_mark = 0;
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        if (strstr(line, key)) { ++*with_key; if (strstr(line, mark)) ++*with_mark; }
        p = e ? e + 1 : NULL;
    }
}

/* Issue 31 item 3: on partial data every price per effective GPU-hour (P / e, rent, own) divides by
 * a lower bound on e, so every line of the text cost section and every row of the HTML cost table
 * that shows one says "<=", not only the first; with e_r given, the rent figure is exact. */
Test(conclusions, partial_data_bounds_every_price_per_effective_gpu_hour, .timeout = 60) {
    char *dir = tu_tmpdir(), *text = NULL, *page = NULL;
    int rc = tu_sh(&text, "SOURCE_DATE_EPOCH=1764547200 %s analyze --html %s/p.html --gpu a100-sxm samples/hta-pair "
                   "2>/dev/null", tu_bin(), dir);
    cr_assert_eq(rc, 0, "%s", text);
    int keyed, marked;
    count_lines(text, "per effective GPU-hour", "<= $", &keyed, &marked);
    cr_assert_eq(keyed, 2, "rent and own rows\n%s", text);
    cr_assert_eq(marked, keyed, "a per-effective-GPU-hour line without its bound\n%s", text);
    count_lines(text, "effective price per GPU-hour", "<= $", &keyed, &marked);
    cr_assert_eq(keyed, 1, "%s", text);
    cr_assert_eq(marked, 1, "%s", text);
    cr_assert_eq(tu_sh(&page, "cat %s/p.html", dir), 0);
    count_lines(page, "per effective GPU-hour</td>", "&lt;= $", &keyed, &marked);
    cr_assert_eq(keyed, 2, "rent and own rows of the cost table");
    cr_assert_eq(marked, keyed, "a cost-table row without its bound");
    count_lines(page, "<tr><td>effective price</td>", "&lt;= $", &keyed, &marked);
    cr_assert_eq(keyed, 1);
    cr_assert_eq(marked, 1);
    free(text);
    free(page);
    /* an efficiency for the rented fabric given on its own: the rent figure no longer rests on e */
    rc = tu_sh(&text, "SOURCE_DATE_EPOCH=1764547200 %s analyze --gpu a100-sxm --rent-network-efficiency 0.9 "
               "samples/hta-pair 2>/dev/null", tu_bin());
    cr_assert_eq(rc, 0, "%s", text);
    count_lines(text, "rent per effective GPU-hour", "<=", &keyed, &marked);
    cr_assert_eq(keyed, 1, "%s", text);
    cr_assert_eq(marked, 0, "%s", text);
    count_lines(text, "own per effective GPU-hour", "<= $", &keyed, &marked);
    cr_assert_eq(marked, 1, "%s", text);
    free(text);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* One GPU spans one node: no fabric. Eight GPUs of a 16-GPU job on two hosts: two nodes' fabric. */
Test(conclusions, fabric_is_counted_per_node_past_one_node, .timeout = 60) {
    char *dir = tu_tmpdir(), *text = NULL;
    gen(dir, "one", "--ranks 1 --steps 3");
    char args[700];
    snprintf(args, sizeof args, "%s/one", dir);
    yajl_val doc = analyze(dir, "one", args, &text);
    yajl_val cost = tu_get(doc, "cost", NULL);
    cr_assert_eq(tu_num(tu_get(cost, "inputs", "fabric_cost", "value", NULL)), 0, "a 1-GPU trace has no fabric cost");
    cr_assert_str_eq(jstr(tu_get(cost, "inputs", "fabric_cost", "source", NULL)), "default (one node: no fabric)");
    cr_assert_eq(tu_num(tu_get(cost, "fabric_nodes", NULL)), 1);
    double capex = tu_num(tu_get(cost, "own_capex", NULL)), c = tu_num(tu_get(cost, "inputs", "purchase_per_gpu", "value", NULL));
    cr_assert_eq(capex, c, "capital = one GPU, no fabric");
    yajl_tree_free(doc);
    free(text);
    /* 4 ranks on devices 0-3: one node by the device indices, no fabric, nothing assumed */
    gen(dir, "four", "--ranks 4 --steps 2");
    snprintf(args, sizeof args, "%s/four", dir);
    doc = analyze(dir, "four", args, &text);
    cr_assert_eq(tu_num(tu_get(doc, "cost", "inputs", "fabric_cost", "value", NULL)), 0);
    cr_assert_str_eq(jstr(tu_get(doc, "summary", "node_rule", NULL)), "device indices");
    cr_assert(YAJL_IS_NULL(tu_get(doc, "summary", "nodes_note", NULL)));
    cr_assert(!strstr(text, "GPUs per node assumed"), "%s", text);
    yajl_tree_free(doc);
    free(text);
    /* --gpus-per-node 2: two nodes, $30,000 of fabric, no note */
    snprintf(args, sizeof args, "--gpus-per-node 2 %s/four", dir);
    doc = analyze(dir, "four2", args, &text);
    cr_assert_eq(tu_num(tu_get(doc, "summary", "nodes", NULL)), 2);
    cr_assert_eq(tu_num(tu_get(doc, "ranks", "#3", "node", NULL)), 1);
    cr_assert_eq(tu_num(tu_get(doc, "cost", "inputs", "fabric_cost", "value", NULL)), 30000);
    cr_assert(YAJL_IS_NULL(tu_get(doc, "summary", "nodes_note", NULL)));
    cr_assert(!strstr(text, "GPUs per node assumed"), "%s", text);
    yajl_tree_free(doc);
    free(text);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* tensorboard_trace_handler names give the hosts: 4 ranks on 2 hosts are 2 nodes. */
Test(conclusions, handler_file_names_give_the_nodes, .timeout = 60) {
    char *dir = tu_tmpdir();
    gen(dir, "h", "--ranks 4 --steps 2 --gpus-per-node 2 --file-names handler");
    char args[700];
    snprintf(args, sizeof args, "%s/h", dir);
    yajl_val doc = analyze(dir, "h", args, NULL);
    yajl_val sm = tu_get(doc, "summary", NULL);
    cr_assert_str_eq(jstr(tu_get(sm, "node_rule", NULL)), "file names");
    cr_assert_eq(tu_num(tu_get(sm, "nodes", NULL)), 2);
    cr_assert_eq(tu_num(tu_get(sm, "gpus_per_node", NULL)), 2);
    cr_assert(YAJL_IS_NULL(tu_get(sm, "nodes_note", NULL)));
    for (int r = 0; r < 4; r++) {
        char idx[16];
        snprintf(idx, sizeof idx, "#%d", r);
        cr_assert_eq(tu_num(tu_get(doc, "ranks", idx, "node", NULL)), r / 2, "rank %d", r);
    }
    cr_assert_eq(tu_num(tu_get(doc, "cost", "inputs", "fabric_cost", "value", NULL)), 30000);
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* --no-cost: no cost section in the terminal or the HTML, cost null in the JSON with the reason. */
Test(conclusions, no_cost_leaves_the_cost_section_out, .timeout = 60) {
    char *dir = tu_tmpdir(), *text = NULL;
    char args[700];
    snprintf(args, sizeof args, "--no-cost --html %s/r.html samples/", dir);
    yajl_val doc = analyze(dir, "nc", args, &text);
    cr_assert(YAJL_IS_NULL(tu_get(doc, "cost", NULL)));
    cr_assert_str_eq(jstr(tu_get(doc, "cost_notes", "#0", NULL)), "no cost section: --no-cost was given");
    cr_assert(!strstr(text, "your 4 GPUs") && !strstr(text, "Cost:") && !strstr(text, "rent or own"), "%s", text);
    cr_assert(strstr(text, " Actions 1. "), "the summary still ends with the actions: %s", text);
    char p[700];
    snprintf(p, sizeof p, "%s/r.html", dir);
    char *html = tu_read_file(p, NULL);
    cr_assert(!strstr(html, "<section id=\"cost\">"), "no cost section in the HTML");
    free(html);
    yajl_tree_free(doc);
    free(text);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* A catalog price older than 18 months gets a note with its age, against today when the trace has
 * no date (SOURCE_DATE_EPOCH = 2025-12-01): the V100's 2017 purchase price. */
Test(conclusions, old_catalog_prices_say_their_age) {
    char *out = NULL;
    int rc = tu_sh(&out, "SOURCE_DATE_EPOCH=1764547200 %s cost --gpu v100-sxm2 --gpus 8 --network-efficiency 0.8 --json -",
                   tu_bin());
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "the catalog purchase price of v100-sxm2 is dated 2017-05: 103 months (8.6 years) before "
                          "2025-12-01 (SOURCE_DATE_EPOCH); pass your own quote"), "%s", out);
    cr_assert(strstr(out, "\"value\": \"2025-12-01\""), "price_as_of echoed: %s", out);
    cr_assert(!strstr(out, "catalog rent of v100-sxm2"), "a 2026-05 rent is not old: %s", out);
    free(out);
    /* an 8-GPU calculator job is one node: no fabric */
    rc = tu_sh(&out, "SOURCE_DATE_EPOCH=1764547200 %s cost --gpu h100-sxm --gpus 8 --network-efficiency 0.8", tu_bin());
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "default (one node: no fabric)"), "%s", out);
    cr_assert(strstr(unwrap(out), "fabric: 8 GPUs per node assumed, so 8 GPUs span 1 node and need no fabric; pass "
                                  "--fabric-cost"), "%s", out);
    free(out);
    rc = tu_sh(&out, "SOURCE_DATE_EPOCH=1764547200 %s cost --gpu h100-sxm --gpus 64 --network-efficiency 0.8", tu_bin());
    cr_assert(strstr(out, "default ($15,000 x 8 nodes)"), "%s", out);
    free(out);
}
