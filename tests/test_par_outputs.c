/* test_par_outputs.c: the CSV and HTML of issue 33's results, rendered from hand-filled results
 * (tc_job.pipeline, tc_job.a2a) so every figure is known: the pipeline's stage and step CSV rows
 * and its HTML section (stage table, a bar per stage split into forward / backward / transfer /
 * bubble, the slowest marked); the all-to-all heatmap (a cell per rank pair with its bytes, the
 * colour scale, the hot rank marked, blocks of ranks past 64 / 32 ranks), its instance table and
 * CSV, and the CSV of a planted MoE job held to its plant; DeepEP's all-to-all counted but not sized, in every report of a planted DeepEP job. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "testutil.h"
#include "par_fill.h"
#include "model/job.h"
#include "reports/csv_report.h"
#include "reports/html_report.h"

static char *html_of(const tc_job *j) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(tc_html_report_write(f, j), 0);
    fclose(f);
    return buf;
}

static char *csv_of(const tc_job *j, tc_csv_table t) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(tc_csv_write(f, j, t), 0);
    fclose(f);
    return buf;
}

static size_t count(const char *hay, const char *needle) {
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* The text between `from` (included) and the next `to` in s, as a new string. */
static char *cut(const char *s, const char *from, const char *to) {
    const char *a = strstr(s, from);
    cr_assert_not_null(a, "no %s", from);
    const char *b = strstr(a, to);
    cr_assert_not_null(b, "no %s after %s", to, from);
    return strndup(a, (size_t)(b - a));
}

/* ------------------------------------------------------------------ pipeline */
Test(par_outputs, pipeline_csv_rows_per_stage_and_step) {
    tc_job j;
    tc_job_init(&j);
    tu_fill_pipeline(&j);
    char *st = csv_of(&j, TC_CSV_PP_STAGES), *sp = csv_of(&j, TC_CSV_PP_STEPS);
    cr_expect_str_eq(st, "pipeline,stage,rank,window_us,forward_us,backward_us,bubble_us,p2p_wait_us,p2p_transfer_us,"
                         "charged_wait_us,bubble_share,slowest\r\n"
                         "0,0,0,20000,4000,6000,8000,1000,2000,0,0.4,false\r\n"
                         "0,1,1,20000,6000,8000,4000,1000,2000,500,0.2,false\r\n"
                         "0,2,2,20000,8000,10000,0,1000,2000,1000,0,true\r\n");
    cr_expect_str_eq(sp, "pipeline,stage,rank,step,window_us,forward_us,backward_us,bubble_us,p2p_wait_us,p2p_transfer_us,"
                         "charged_wait_us\r\n"
                         "0,0,0,5,10000,2000,3000,4000,500,1000,0\r\n0,0,0,6,10000,2000,3000,4000,500,1000,0\r\n"
                         "0,1,1,5,10000,3000,4000,2000,500,1000,250\r\n0,1,1,6,10000,3000,4000,2000,500,1000,250\r\n"
                         "0,2,2,5,10000,4000,5000,0,500,1000,500\r\n0,2,2,6,10000,4000,5000,0,500,1000,500\r\n");
    free(st);
    free(sp);
    tc_job_free(&j);
    tc_job_init(&j); /* no pipeline: the header rows alone */
    st = csv_of(&j, TC_CSV_PP_STAGES);
    cr_expect_eq(count(st, "\r\n"), 1, "%s", st);
    free(st);
    tc_job_free(&j);
}

Test(par_outputs, pipeline_html_section) {
    tc_job j;
    tc_job_init(&j);
    char *none = html_of(&j);
    cr_expect_null(strstr(none, "id=\"pipeline\""), "no pipeline: no section");
    free(none);
    tu_fill_pipeline(&j);
    char *html = html_of(&j);
    char *sec = cut(html, "<section id=\"pipeline\">", "</section>");
    cr_expect_not_null(strstr(sec, "3 stages (from the P2P pattern); the bubble is 30.0% of the stages' step windows; "
                                   "the slowest stage is 2 (rank 2), charged 1.000 ms of its peers' P2P wait."), "%s", sec);
    /* two drawings of three bars; stage 2 has no bubble (no segment of 0) */
    cr_expect_eq(count(sec, "<svg id=\"pipeline-bars"), 2);
    cr_expect_eq(count(sec, "class=\"c-compute\" data-tip"), 6);
    cr_expect_eq(count(sec, "class=\"c-i2\" data-tip"), 6);
    cr_expect_eq(count(sec, "class=\"c-transfer\" data-tip"), 6);
    cr_expect_eq(count(sec, "class=\"c-idle\" data-tip"), 4);
    cr_expect_eq(count(sec, "&#9664; slowest</text>"), 2);
    cr_expect_not_null(strstr(sec, "data-tip=\"stage 0 (rank 0) - bubble (idle + P2P wait): 8.000000 ms = 40.00% of its step "
                                   "windows 20.000000 ms\""), "%s", sec);
    /* the stage table: a row per stage, the slowest named, every time exact in its tooltip */
    cr_expect_eq(count(sec, "<tr><td class=\"n\">"), 3);
    cr_expect_not_null(strstr(sec, "<td class=\"n\">2 <b>slowest</b></td><td class=\"n\">2</td>"));
    cr_expect_not_null(strstr(sec, "<td class=\"n\" data-v=\"8000000\" data-tip=\"8.000000 ms\">8.000</td>"));
    cr_expect_null(strstr(sec, "pipe-<br>line"), "one pipeline: no pipeline column");
    free(sec);
    free(html);
    tc_job_free(&j);
}

/* ------------------------------------------------------------------ all-to-all */
Test(par_outputs, a2a_heatmap_and_table) {
    tc_job j;
    tc_job_init(&j);
    tu_fill_a2a(&j, 3, 1);
    char *html = html_of(&j);
    char *sec = cut(html, "<section id=\"all-to-all\">", "</section>");
    cr_expect_not_null(strstr(sec, "<h3>pg 3 (ep)</h3>"));
    cr_expect_not_null(strstr(sec, "3 ranks; 2 instances sized (1 not); bytes sent max/mean up to 2.00; hot rank 11 causes "
                                   "4.500 ms of the others' wait (50.0% of the group's all-to-all time)."), "%s", sec);
    char *wide = cut(sec, "<svg id=\"a2a-heatmap-0\"", "</svg>"), *narrow = cut(sec, "<svg id=\"a2a-heatmap-0-narrow\"", "</svg>");
    for (int d = 0; d < 2; d++) {
        const char *s = d ? narrow : wide;
        cr_expect_eq(count(s, "data-tip=\""), 9, "a cell per rank pair: %s", s);
        /* the largest cell (rank 11 to rank 12: 10 x 103) is the darkest, the hot row outlined and named */
        cr_expect_not_null(strstr(s, "fill=\"#08306b\" data-tip=\"rank 11 sends rank 12: 1,030 B\""), "%s", s);
        cr_expect_not_null(strstr(s, "data-tip=\"rank 10 sends rank 10: 1 B\""));
        cr_expect_eq(count(s, "stroke=\"#D55E00\""), 1);
        cr_expect_eq(count(s, "&#9664; hot</text>"), 1);
        cr_expect_not_null(strstr(s, ">0 to 1.0 kB a cell</text>"), "%s", s);
    }
    free(wide);
    free(narrow);
    /* the instances, most wait first */
    char *tab = cut(sec, "<table id=\"a2a-instances-0\"", "</table>");
    cr_expect_eq(count(tab, "<tr><td"), 2);
    const char *i8 = strstr(tab, "data-v=\"8\">8</td>"), *i7 = strstr(tab, "data-v=\"7\">7</td>");
    cr_expect(i8 && i7 && i8 < i7, "seq 8 (3 ms caused) before seq 7: %s", tab);
    cr_expect_not_null(strstr(tab, "<td class=\"n\" data-v=\"4000\" data-tip=\"4,000 B\">4.0 kB</td>"
                                   "<td class=\"n\" data-v=\"3000000\" data-tip=\"3.000000 ms\">3.000</td>"), "%s", tab);
    free(tab);
    free(sec);
    free(html);
    tc_job_free(&j);
}

Test(par_outputs, a2a_heatmap_blocks_of_ranks_past_64_and_32) {
    tc_job j;
    tc_job_init(&j);
    tu_fill_a2a(&j, 70, 69);
    char *html = html_of(&j);
    /* 70 ranks: wide in blocks of 2 (35 x 35 cells), narrow of 3 (24 x 24), each block's bytes summed */
    char *wide = cut(html, "<svg id=\"a2a-heatmap-0\"", "</svg>"), *narrow = cut(html, "<svg id=\"a2a-heatmap-0-narrow\"", "</svg>");
    cr_expect_eq(count(wide, "data-tip=\""), 35 * 35);
    cr_expect_eq(count(narrow, "data-tip=\""), 24 * 24);
    /* ranks 10-11 to 10-11: 1 + 2 + 101 + 102 */
    cr_expect_not_null(strstr(wide, "data-tip=\"ranks 10-11 sends ranks 10-11: 206 B\""));
    /* the last block of the narrow one holds one rank, 79 */
    cr_expect_not_null(strstr(narrow, "data-tip=\"rank 79 sends rank 79: "), "%s", narrow);
    cr_expect_eq(count(narrow, "&#9664; hot</text>"), 1);
    free(wide);
    free(narrow);
    free(html);
    tc_job_free(&j);
}

Test(par_outputs, a2a_csv) {
    tc_job j;
    tc_job_init(&j);
    tu_fill_a2a(&j, 3, 1);
    char *g = csv_of(&j, TC_CSV_A2A), *in = csv_of(&j, TC_CSV_A2A_INSTANCES), *pr = csv_of(&j, TC_CSV_A2A_PAIRS);
    cr_expect_str_eq(g, "process_group,ranks,instances,unsized_instances,deepep_unsized,max_imbalance_ratio,hot_rank,"
                        "caused_wait_us,all_to_all_rank_time_us\r\n"
                        "pg 3 (ep),10 11 12,2,1,false,2,11,4500,9000\r\n");
    cr_expect_str_eq(in, "process_group,seq,imbalance_ratio,hot_rank,hot_rank_bytes,caused_wait_us,bytes_sent\r\n"
                         "pg 3 (ep),7,2,11,4000,1500,1000 4000 1000\r\n"
                         "pg 3 (ep),8,2,11,4000,3000,1000 4000 1000\r\n");
    cr_expect_eq(count(pr, "\r\n"), 1 + 9);
    cr_expect_not_null(strstr(pr, "process_group,sender,receiver,bytes\r\npg 3 (ep),10,10,1\r\npg 3 (ep),10,11,2\r\n"));
    cr_expect_not_null(strstr(pr, "pg 3 (ep),11,12,1030\r\n"));
    free(g);
    free(in);
    free(pr);
    tc_job_free(&j);
}

/* A planted DeepEP job (tracegen --comm-lib deepep: dispatch / combine kernels, no args): its
 * all-to-all instances are counted in all_to_all[] with the note, and every report says that
 * they are not sized. */
Test(par_outputs, deepep_counted_not_sized, .timeout = 120) {
    char *d = tu_tmpdir(), *out = NULL;
    tu_gen_job(d, "ep", "--ranks 4 --steps 3 --comm-lib deepep --clock-offset-us 300 --end-spread-us 3 --time-format epoch "
                        "--file-names handler --seed 8");
    cr_assert_eq(tu_sh(&out, "%s analyze --no-cost --json %s/ep.json --html %s/ep.html %s/ep", tu_bin(), d, d, d), 0, "%s", out);
    tu_unwrap(out);
    cr_expect_not_null(strstr(out, "all-to-all stream"), "%s", out);
    cr_expect_not_null(strstr(out, "DeepEP dispatch/combine instances counted, not sized"), "%s", out);
    cr_expect_not_null(strstr(out, "DeepEP's dispatch and combine kernels are all-to-all: counted, not sized"), "%s", out);
    free(out);
    char p[600];
    snprintf(p, sizeof p, "%s/ep.json", d);
    char *json = tu_read_file(p, NULL);
    const char *a = strstr(json, "\"all_to_all\":");
    cr_assert_not_null(a, "no all_to_all[] in the JSON");
    cr_expect_not_null(strstr(a, "\"unsized_instances\": 6,"), "%.600s", a);
    cr_expect_not_null(strstr(a, "\"note\": \"DeepEP's dispatch and combine kernels are all-to-all: counted, not sized"),
                       "%.600s", a);
    cr_expect_not_null(strstr(a, "\"instances\": [],"), "%.600s", a);
    cr_expect_not_null(strstr(a, "\"hot_rank\": null,"), "%.600s", a);
    free(json);
    snprintf(p, sizeof p, "%s/ep.html", d);
    char *html = tu_read_file(p, NULL);
    cr_expect_not_null(strstr(html, "<p class=\"note\" id=\"a2a-deepep\">DeepEP's dispatch and combine kernels are all-to-all"));
    cr_expect_null(strstr(html, "a2a-heatmap"), "nothing sized, nothing drawn");
    free(html);
    tu_sh(NULL, "rm -rf %s", d);
    free(d);
}

/* The all-to-all CSV of a planted MoE job (hot rank 5 sends 4x, with the mess of real jobs) equals
 * the plant: the group's hot rank and caused wait, every instance's ratio and bytes, every pair. */
Test(par_outputs, a2a_csv_equals_the_plant, .timeout = 120) {
    char *d = tu_tmpdir(), *out = NULL, p[600];
    tu_gen_job(d, "moe", "--ranks 6 --steps 2 --a2a-hot-rank 5 --a2a-factor 4 --clock-offset-us 900 --end-spread-us 3 "
                         "--time-format epoch --file-names handler --seed 17");
    cr_assert_eq(tu_sh(&out, "%s analyze -q --no-cost --csv %s/csv %s/moe", tu_bin(), d, d), 0, "%s", out);
    free(out);
    snprintf(p, sizeof p, "%s/moe/expected.json", d);
    yajl_val doc = tu_json_file(p), want = tu_get(doc, "all_to_all", NULL);
    char line[256];
    snprintf(line, sizeof line, "%s/csv/all_to_all.csv", d);
    char *g = tu_read_file(line, NULL);
    snprintf(line, sizeof line, "pg 0 (default_pg),0 1 2 3 4 5,%g,0,false,%.10g,5,", tu_num(tu_get(want, "instances", NULL)),
             tu_num(tu_get(want, "imbalance_ratio", NULL)));
    cr_expect_not_null(strstr(g, line), "%s in %s", line, g);
    double w = tu_num(tu_get(want, "caused_wait_us", NULL)), got = strtod(strstr(g, line) ? strstr(g, line) + strlen(line) : "0", NULL);
    cr_expect(fabs(got - w) <= 1e-6 * w, "caused wait %.6f, planted %.6f", got, w);
    free(g);
    snprintf(line, sizeof line, "%s/csv/all_to_all_instances.csv", d);
    char *in = tu_read_file(line, NULL);
    yajl_val bs = tu_get(want, "bytes_sent", NULL);
    char bytes[200] = "";
    for (size_t r = 0; r < bs->u.array.len; r++)
        snprintf(bytes + strlen(bytes), sizeof bytes - strlen(bytes), "%s%lld", r ? " " : "", YAJL_GET_INTEGER(bs->u.array.values[r]));
    cr_expect_eq(count(in, "\r\n"), 1 + (size_t)tu_num(tu_get(want, "instances", NULL)));
    cr_expect_eq(count(in, bytes), (size_t)tu_num(tu_get(want, "instances", NULL)), "%s in %s", bytes, in);
    free(in);
    snprintf(line, sizeof line, "%s/csv/all_to_all_pairs.csv", d);
    char *pr = tu_read_file(line, NULL);
    yajl_val pb = tu_get(want, "pair_bytes", NULL);
    for (size_t r = 0; r < pb->u.array.len; r++)
        for (size_t k = 0; k < pb->u.array.len; k++) {
            snprintf(line, sizeof line, "\npg 0 (default_pg),%zu,%zu,%lld\r", r, k,
                     YAJL_GET_INTEGER(pb->u.array.values[r]->u.array.values[k]));
            cr_expect_not_null(strstr(pr, line), "pair %zu -> %zu", r, k);
        }
    free(pr);
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", d);
    free(d);
}

/* The raw text of a JSON number (as the JSON writes it: the CSV writes the same). */
static const char *num_text(yajl_val v) {
    cr_assert(v && YAJL_IS_NUMBER(v), "not a number");
    return v->u.number.r;
}

/* pipeline_stages.csv and pipeline_steps.csv of a planted pipeline job (tracegen --pp 4 over 8
 * ranks: two pipelines, a slow stage, clock offsets, end spread, µs timestamps, handler names)
 * equal the JSON's pipeline of the same run, row for row and figure for figure, and the slowest
 * stage is the plant's. */
Test(par_outputs, pipeline_csv_equals_the_json, .timeout = 120) {
    char *d = tu_tmpdir(), *out = NULL, p[600];
    tu_gen_job(d, "pp", "--pp 4 --ranks 8 --steps 2 --microbatches 4 --pp-slow-stage 2 --busbw-GBps 400 --end-spread-us 5 "
                        "--clock-offset-us 3000 --time-format epoch --file-names handler --seed 43");
    cr_assert_eq(tu_sh(&out, "%s analyze -q --no-cost --json %s/pp.json --csv %s/csv %s/pp", tu_bin(), d, d, d), 0, "%s", out);
    free(out);
    snprintf(p, sizeof p, "%s/pp.json", d);
    yajl_val got = tu_json_file(p), pp = tu_get(got, "pipeline", NULL);
    cr_assert(pp && YAJL_IS_OBJECT(pp), "no pipeline in the JSON");
    snprintf(p, sizeof p, "%s/pp/expected.json", d);
    yajl_val doc = tu_json_file(p), want = tu_get(doc, "pipeline", NULL);
    cr_expect_eq(tu_num(tu_get(pp, "slowest_stage", NULL)), tu_num(tu_get(want, "slowest_stage", NULL)));
    snprintf(p, sizeof p, "%s/csv/pipeline_stages.csv", d);
    char *st = tu_read_file(p, NULL);
    snprintf(p, sizeof p, "%s/csv/pipeline_steps.csv", d);
    char *sp = tu_read_file(p, NULL);
    static const char *const keys[] = {"window_us", "forward_us", "backward_us", "bubble_us", "p2p_wait_us", "p2p_transfer_us",
                                       "charged_wait_us"};
    yajl_val stages = tu_get(pp, "stages", NULL);
    cr_assert(YAJL_IS_ARRAY(stages) && stages->u.array.len == 8, "8 stages");
    size_t rows = 0;
    for (size_t i = 0; i < stages->u.array.len; i++) {
        yajl_val s = stages->u.array.values[i];
        char row[400], head[64];
        int rank = (int)tu_num(tu_get(s, "rank", NULL));
        snprintf(head, sizeof head, "\n%d,%d,%d,", (int)tu_num(tu_get(s, "pipeline", NULL)), (int)tu_num(tu_get(s, "stage", NULL)), rank);
        snprintf(row, sizeof row, "%s", head);
        for (size_t k = 0; k < 7; k++) snprintf(row + strlen(row), sizeof row - strlen(row), "%s,", num_text(tu_get(s, keys[k], NULL)));
        const char *at = strstr(st, row); /* then bubble_share (bubble / window) and slowest */
        cr_expect_not_null(at, "stage row %s not in %s", row, st);
        if (at) {
            const char *share = at + strlen(row), *flag = strchr(share, ',');
            double b = tu_num(tu_get(s, "bubble_us", NULL)), w = tu_num(tu_get(s, "window_us", NULL));
            cr_expect(fabs(strtod(share, NULL) - b / w) < 1e-9, "bubble_share of rank %d", rank);
            cr_expect(flag && !strncmp(flag, rank == (int)tu_num(tu_get(pp, "slowest_rank", NULL)) ? ",true\r" : ",false\r",
                                       rank == (int)tu_num(tu_get(pp, "slowest_rank", NULL)) ? 6 : 7), "slowest of rank %d", rank);
        }
        yajl_val steps = tu_get(s, "steps", NULL);
        for (size_t k = 0; k < steps->u.array.len; k++, rows++) {
            yajl_val f = steps->u.array.values[k];
            snprintf(row, sizeof row, "%s%s,", head, num_text(tu_get(f, "step", NULL)));
            for (size_t c = 0; c < 7; c++) snprintf(row + strlen(row), sizeof row - strlen(row), "%s%s", c ? "," : "", num_text(tu_get(f, keys[c], NULL)));
            strcat(row, "\r");
            cr_expect_not_null(strstr(sp, row), "step row %s not in %s", row, sp);
        }
    }
    cr_expect_eq(count(st, "\r\n"), 1 + 8);
    cr_expect_eq(count(sp, "\r\n"), 1 + rows);
    cr_expect_eq(count(st, ",true\r\n"), 1, "one slowest stage");
    free(st);
    free(sp);
    yajl_tree_free(got);
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", d);
    free(d);
}
