/* test_ops_out.c: the outputs of issue 34 from a hand-filled tc_op_result (tc_job.ops as
 * analyzer/op_groups.c leaves it): a compute-bound job's actions from the op evidence
 * (analyzer/findings.c op_actions: the group losing most against its roofline with its family's
 * advice, then the launch-bound groups or the top fusion candidate, each from 5% of compute time;
 * the generic actions without the evidence), summary.actions[] as data, the terminal's top list of
 * op groups and modules, ops.csv and modules.csv, and the HTML roofline chart and module table. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <yajl/yajl_tree.h>
#include "analyzer/findings.h"
#include "reports/actions_json.h"
#include "reports/csv_report.h"
#include "reports/findings_text.h"
#include "reports/html_report.h"
#include "reports/ops_report.h"
#include "reports/termtext.h"
#include "testutil.h"

#include "ops_fixture.h"

static const char *action(const tc_job *j, size_t i, char *buf) {
    cr_assert_lt(i, j->findings.n_actions);
    return tc_action_text(buf, TC_FINDING_TEXT, &j->findings.actions[i], j);
}

static const tc_analyze_options opt = {0};

Test(ops_actions, the_op_evidence_leads_a_compute_bound_job) {
    tc_job j;
    char buf[TC_FINDING_TEXT];
    make_job(&j);
    fill_ops(&j.ops);
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.summary.verdict, TC_VERDICT_COMPUTE);
    cr_assert_eq(j.findings.n_actions, 3);
    cr_assert_eq(j.findings.actions[0].code, TC_ACTION_FUSE_NORM);
    cr_assert_eq(j.findings.actions[0].op, 0);
    cr_assert_eq(j.findings.actions[0].lost_ns, 12420000);
    cr_assert_str_eq(action(&j, 0, buf),
                     "aten::layer_norm [[8, 512, 4096], [4096], [4096]] runs at 31% of the memory roofline over 18% of "
                     "compute time (12.420 ms lost against it): a fused norm kernel (a fused LayerNorm / RMSNorm such as "
                     "Apex's or a Triton one, or torch.compile) reads its input once.");
    cr_assert_eq(j.findings.actions[1].code, TC_ACTION_LAUNCH_BOUND_OPS);
    cr_assert_eq(j.findings.actions[1].count, 1);
    cr_assert_str_eq(action(&j, 1, buf),
                     "1 op group is launch-bound (median kernel under 10 µs, 10 launches or more), 8% of compute time, "
                     "most aten::add [[256], [256]]: CUDA graphs (torch.compile mode=\"reduce-overhead\") or fusion "
                     "(torch.compile) for these launch-bound chains.");
    cr_assert_eq(j.findings.actions[2].code, TC_ACTION_MFU_GAP); /* the generic kernel-work action is replaced */
    tc_job_free(&j);
}

Test(ops_actions, advice_by_family_and_the_fusion_candidate) {
    static const struct { tc_op_family fam; tc_action_code code; const char *tail; } cases[] = {
        {TC_OPF_SOFTMAX, TC_ACTION_FUSE_NORM, "a fused softmax kernel"},
        {TC_OPF_GEMM, TC_ACTION_GEMM_SHAPES, "larger or fused GEMMs"},
        {TC_OPF_BMM, TC_ACTION_GEMM_SHAPES, "larger or fused GEMMs"},
        {TC_OPF_CONV, TC_ACTION_GEMM_SHAPES, "larger or fused GEMMs"},
        {TC_OPF_ATTENTION, TC_ACTION_ATTENTION_KERNEL, "a flash or fused attention kernel"},
        {TC_OPF_ELEMENTWISE, TC_ACTION_FUSE_MEMORY_OPS, "fuse it with its neighbours"},
        {TC_OPF_COPY, TC_ACTION_FUSE_MEMORY_OPS, "fuse it with its neighbours"},
    };
    char buf[TC_FINDING_TEXT];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tc_job j;
        make_job(&j);
        fill_ops(&j.ops);
        j.ops.groups[0].family = (uint8_t)cases[c].fam;
        j.ops.groups[2].launch_bound = false; /* then the fusion candidate, 5 ms = 5%: given */
        cr_assert_eq(tc_job_findings(&j, &opt), 0);
        cr_assert_eq(j.findings.n_actions, 3);
        cr_expect_eq(j.findings.actions[0].code, cases[c].code, "family %d", cases[c].fam);
        cr_expect(strstr(action(&j, 0, buf), cases[c].tail), "%s", buf);
        cr_assert_eq(j.findings.actions[1].code, TC_ACTION_FUSE_SEQUENCE);
        cr_expect_str_eq(action(&j, 1, buf),
                         "Fuse the kernel sequence vectorized_elementwise_kernel > reduce_kernel > elementwise_kernel "
                         "(3 kernels back to back, 500 times, 5% of compute time): torch.compile or one custom (Triton) "
                         "kernel runs it as one launch that reads its data once.");
        tc_job_free(&j);
    }
}

Test(ops_actions, without_enough_evidence_the_generic_actions_stay) {
    tc_job j;
    make_job(&j); /* no ops at all */
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.findings.n_actions, 2);
    cr_assert_eq(j.findings.actions[0].code, TC_ACTION_KERNEL_WORK);
    tc_job_free(&j);
    make_job(&j); /* every loss under 5% of compute time: 4.99 ms of 100 */
    fill_ops(&j.ops);
    for (size_t g = 0; g < j.ops.n_groups; g++) { j.ops.groups[g].lost_ns = 4990000; j.ops.groups[g].launch_bound = false; }
    j.ops.fusions[0].gpu_ns = 4990000;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.findings.n_actions, 2);
    cr_assert_eq(j.findings.actions[0].code, TC_ACTION_KERNEL_WORK);
    cr_assert_eq(j.findings.actions[1].code, TC_ACTION_MFU_GAP);
    tc_job_free(&j);
    make_job(&j); /* another verdict: the op evidence does not speak */
    fill_ops(&j.ops);
    j.summary.share_idle = 0.4;
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    cr_assert_eq(j.summary.verdict, TC_VERDICT_HOST);
    for (size_t i = 0; i < j.findings.n_actions; i++) cr_expect_lt(j.findings.actions[i].code, TC_ACTION_FUSE_NORM);
    tc_job_free(&j);
}

/* summary.actions[] of the job, parsed. */
static yajl_val actions_json(const tc_job *j) {
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    cr_assert(f);
    jw w;
    jw_init(&w, f, false);
    jw_object_begin(&w);
    tc_actions_json(&w, j);
    jw_object_end(&w);
    cr_assert_eq(jw_finish(&w), 0);
    fclose(f);
    char err[256];
    yajl_val v = yajl_tree_parse(mem, err, sizeof err);
    cr_assert_not_null(v, "%s: %s", err, mem);
    free(mem);
    const char *path[] = {"actions", NULL};
    yajl_val a = yajl_tree_get(v, path, yajl_t_array);
    cr_assert_not_null(a);
    return v;
}

static yajl_val field(yajl_val obj, const char *key) {
    const char *path[] = {key, NULL};
    return yajl_tree_get(obj, path, yajl_t_any);
}

Test(ops_actions, summary_actions_as_data) {
    tc_job j;
    char buf[TC_FINDING_TEXT];
    make_job(&j);
    fill_ops(&j.ops);
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    yajl_val root = actions_json(&j);
    yajl_val arr = field(root, "actions");
    cr_assert_eq(arr->u.array.len, 3);
    yajl_val a0 = arr->u.array.values[0], a1 = arr->u.array.values[1], a2 = arr->u.array.values[2];
    cr_expect_str_eq(YAJL_GET_STRING(field(a0, "code")), "fuse_norm");
    cr_expect_str_eq(YAJL_GET_STRING(field(a0, "text")), action(&j, 0, buf));
    cr_expect_str_eq(YAJL_GET_STRING(field(a0, "op")), "aten::layer_norm");
    cr_expect_str_eq(YAJL_GET_STRING(field(a0, "shapes")), "[[8, 512, 4096], [4096], [4096]]");
    cr_expect_str_eq(YAJL_GET_STRING(field(a0, "family")), "norm");
    cr_expect_str_eq(YAJL_GET_STRING(field(a0, "class")), "memory-bound");
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(a0, "share_of_attainable")), 0.31, 1e-9);
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(a0, "share_of_compute")), 0.18, 1e-9);
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(a0, "lost_us")), 12420, 1e-9);
    cr_expect_str_eq(YAJL_GET_STRING(field(a1, "code")), "launch_bound_ops");
    cr_expect_eq(YAJL_GET_INTEGER(field(a1, "groups")), 1);
    cr_expect_str_eq(YAJL_GET_STRING(field(a1, "op")), "aten::add");
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(a1, "share_of_compute")), 0.08, 1e-9);
    cr_expect_str_eq(YAJL_GET_STRING(field(a2, "code")), "mfu_gap");
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(a2, "mfu")), 0.412, 1e-9);
    yajl_tree_free(root);
    tc_job_free(&j);
}

Test(ops_actions, every_code_has_its_own_key) {
    for (int a = 0; a < TC_ACTION_CODES; a++) {
        const char *k = tc_action_key((tc_action_code)a);
        cr_expect_str_neq(k, "?", "code %d", a);
        for (const char *p = k; *p; p++) cr_expect(*p == '_' || (*p >= 'a' && *p <= 'z'), "%s", k);
        for (int b = 0; b < a; b++) cr_expect_str_neq(k, tc_action_key((tc_action_code)b));
    }
    cr_expect_str_eq(tc_action_key((tc_action_code)TC_ACTION_CODES), "?");
}

/* What fn wrote to a scratch stream. Caller frees. */
#define CAPTURE(var, stmt) do { FILE *f_ = tmpfile(); cr_assert(f_); FILE *out = f_; stmt; var = tu_read_stream(f_); fclose(f_); } while (0)

Test(ops_text, the_top_groups_and_modules_fit_80_columns) {
    tc_job j;
    make_job(&j);
    fill_ops(&j.ops);
    char *text;
    CAPTURE(text, tc_ops_text(out, &j, "", "", 80));
    cr_expect(strstr(text, "Top op groups (by time lost against the roofline, all ranks)\n"), "%s", text);
    cr_expect(strstr(text, "aten::layer_norm            [[8, 512, 4096], …   18.0 memory     31.0     12.420\n"), "%s", text);
    cr_expect(strstr(text, "aten::mm                    [[4096, 4096], [4…   60.0 compute    90.0      6.000\n"), "%s", text);
    cr_expect(strstr(text, "aten::add                   [[256], [256]]        8.0 memory*    20.0      6.400\n"), "%s", text);
    cr_expect(strstr(text, "aten::custom_thing          unknown               4.0 -             -          -\n"), "%s", text);
    cr_expect(strstr(text, "90.0% of it, ops without shapes 4.0%"), "%s", text);
    cr_expect(strstr(text, "  differs on one rank (GPU time over 10% off the ranks' median): aten::mm rank 3\n"), "%s", text);
    cr_expect(strstr(text, "Model_0/DecoderLayer_0/LayerNorm_0                  18.000     18.000      18.0\n"), "%s", text);
    cr_expect(strstr(text, "(outside every module)                              14.000     14.000      14.0\n"), "%s", text);
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)len, line);
        cr_expect_leq(tc_term_cols(buf), 80, "%s", buf);
        line += len + (end != NULL);
    }
    free(text);
    j.ops.has = false; /* no op evidence: nothing */
    CAPTURE(text, tc_ops_text(out, &j, "", "", 80));
    cr_expect_str_eq(text, "");
    free(text);
    tc_job_free(&j);
}

Test(ops_csv, every_group_and_module_with_every_field) {
    tc_job j;
    make_job(&j);
    fill_ops(&j.ops);
    char *ops, *mods;
    CAPTURE(ops, cr_assert_eq(tc_csv_write(out, &j, TC_CSV_OPS), 0));
    CAPTURE(mods, cr_assert_eq(tc_csv_write(out, &j, TC_CSV_MODULES), 0));
    cr_expect(!strncmp(ops, "op,shapes,dtype,family,count,kernels,gpu_time_us,median_kernel_us,flops,bytes,intensity,"
                       "achieved_tflops,achieved_tbps,class,attainable_tflops,attainable_tbps,share_of_attainable,lost_us,"
                       "launch_bound,differing_rank\r\n", 214), "%s", ops);
    cr_expect(strstr(ops, "\r\naten::mm,\"[[4096, 4096], [4096, 4096]]\",bf16,gemm,100,100,60000,600,"), "%s", ops);
    cr_expect(strstr(ops, ",compute-bound,989,,0.9,6000,false,3\r\n"), "%s", ops);
    cr_expect(strstr(ops, "\r\naten::custom_thing,,bf16,other,100,100,4000,40,,,,,,,,,,,false,\r\n"), "%s", ops);
    size_t rows = 0;
    for (const char *p = ops; (p = strstr(p, "\r\n")); p += 2) rows++;
    cr_expect_eq(rows, 5); /* the header and the four groups */
    cr_expect_str_eq(mods, "path,self_us,total_us\r\nModel_0,10000,86000\r\nModel_0/DecoderLayer_0/LayerNorm_0,18000,18000\r\n"
                           ",14000,14000\r\n");
    free(ops);
    free(mods);
    tc_job_free(&j);
}

Test(ops_html, the_roofline_and_the_module_table) {
    tc_job j;
    make_job(&j);
    fill_ops(&j.ops);
    j.ranks[0].gpu = tc_gpu_find_by_id("h100-sxm");
    cr_assert_not_null(j.ranks[0].gpu);
    cr_assert_eq(tc_job_findings(&j, &opt), 0);
    char *html;
    CAPTURE(html, cr_assert_eq(tc_html_report_write(out, &j), 0));
    cr_expect(strstr(html, "<section id=\"ops\">"), "no ops section");
    cr_expect(strstr(html, "<svg id=\"roofline\" class=\"chart wide\" viewBox=\"0 0 940 380\""));
    cr_expect(strstr(html, "<svg id=\"roofline-narrow\" class=\"chart narrow\" viewBox=\"0 0 400 300\""));
    size_t dots = 0;
    for (const char *p = html; (p = strstr(p, "<circle ")); p++) dots += strstr(p, "fill-opacity=\"0.7\"") != NULL && strstr(p, "fill-opacity=\"0.7\"") < strchr(p, '>');
    cr_expect_eq(dots, 6, "three groups with FLOPs and bytes, twice"); /* the op without shapes has no dot */
    cr_expect(strstr(html, "aten::layer_norm [[8, 512, 4096], [4096], [4096]] bf16: "), "the dot's tooltip");
    char *tip = strstr(html, "aten::layer_norm [[8, 512, 4096], [4096], [4096]] bf16: ");
    cr_expect(tip && strstr(tip, "memory-bound, 31.0% of attainable; 18.00 ms GPU time (18.0% of compute), 12.42 ms lost"),
              "%.400s", tip ? tip : "");
    cr_expect(strstr(html, "<table id=\"op-table\""));
    cr_expect(strstr(html, "<td class=\"n\" data-v=\"3\">3</td></tr>"), "aten::mm differs on rank 3");
    cr_expect(strstr(html, "<table id=\"module-table\""));
    cr_expect(strstr(html, "<td class=\"name\">Model_0/DecoderLayer_0/LayerNorm_0</td>"));
    cr_expect(strstr(html, "<td class=\"name\">(outside every module)</td>"));
    free(html);
    j.ops.has = false;
    CAPTURE(html, cr_assert_eq(tc_html_report_write(out, &j), 0));
    cr_expect_null(strstr(html, "id=\"ops\""));
    free(html);
    tc_job_free(&j);
}

/* The cells of one CSV line (RFC 4180 quotes; a leading ' of a formula-looking cell kept), at most max. */
static size_t csv_cells(const char *line, char cells[][512], size_t max) {
    size_t n = 0;
    const char *p = line;
    while (n < max) {
        size_t k = 0;
        bool quoted = *p == '"';
        if (quoted) p++;
        while (*p && (quoted || (*p != ',' && *p != '\r'))) {
            if (quoted && *p == '"') {
                if (p[1] == '"') p++;
                else { p++; quoted = false; continue; }
            }
            if (k + 1 < 512) cells[n][k++] = *p;
            p++;
        }
        cells[n++][k] = 0;
        if (*p != ',') break;
        p++;
    }
    return n;
}

/* ops.csv and modules.csv of a real trace (the bundled H100 Qwen trace) hold every group and module
 * of the JSON's ops[] and modules[], in its order, with the same values. */
Test(ops_csv, a_real_trace_matches_its_json, .timeout = 120) {
    char *d = tu_tmpdir(), *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s analyze -q --json %s/q.json --csv %s/csv tests/data/ref/h100_qwen1.5_0.5b.json.gz", tu_bin(),
                       d, d), 0, "%s", out);
    free(out);
    char p[600], err[256];
    snprintf(p, sizeof p, "%s/q.json", d);
    char *json = tu_read_file(p, NULL);
    yajl_val root = yajl_tree_parse(json, err, sizeof err);
    cr_assert_not_null(root, "%s", err);
    static const char *const tables[2] = {"ops", "modules"};
    for (int t = 0; t < 2; t++) {
        yajl_val arr = field(root, tables[t]);
        cr_assert(YAJL_IS_ARRAY(arr));
        cr_assert_gt(arr->u.array.len, 10, "the trace has many %s", tables[t]);
        snprintf(p, sizeof p, "%s/csv/%s.csv", d, tables[t]);
        char *csv = tu_read_file(p, NULL);
        char (*head)[512] = calloc(32, 512), (*cells)[512] = calloc(32, 512);
        char *line = csv, *next = strstr(line, "\r\n");
        cr_assert(next && head && cells);
        size_t nh = csv_cells(line, head, 32), row = 0;
        for (line = next + 2; *line; line = next + 2, row++) {
            next = strstr(line, "\r\n");
            cr_assert(next);
            cr_assert_lt(row, arr->u.array.len, "%s.csv has more rows than the JSON", tables[t]);
            cr_assert_eq(csv_cells(line, cells, 32), nh);
            yajl_val obj = arr->u.array.values[row];
            for (size_t c = 0; c < nh; c++) {
                yajl_val v = field(obj, head[c]);
                cr_assert_not_null(v, "%s.csv column %s is not a key of the JSON", tables[t], head[c]);
                if (YAJL_IS_NULL(v)) cr_expect_str_eq(cells[c], "", "%s row %zu %s", tables[t], row, head[c]);
                else if (YAJL_IS_STRING(v)) cr_expect_str_eq(cells[c], YAJL_GET_STRING(v), "%s row %zu %s", tables[t], row, head[c]);
                else if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v)) cr_expect_str_eq(cells[c], YAJL_IS_TRUE(v) ? "true" : "false");
                else cr_expect_float_eq(strtod(cells[c], NULL), YAJL_GET_DOUBLE(v), 1e-9 * (1 + fabs(YAJL_GET_DOUBLE(v))),
                                        "%s row %zu %s: %s", tables[t], row, head[c], cells[c]);
            }
        }
        cr_expect_eq(row, arr->u.array.len, "%s.csv: every row of the JSON", tables[t]);
        free(head);
        free(cells);
        free(csv);
    }
    yajl_tree_free(root);
    free(json);
    tu_sh(NULL, "rm -rf %s", d);
    free(d);
}

/* A planted compute-bound job, two ranks ("rank 0 (copy).json", host time before the first kernel, µs
 * timestamps): per rank 200 iterations of a layer norm (200 µs kernels, far under its memory roof)
 * then a 4096³ GEMM (300 µs), back to back. Its first action names the planted memory-bound norm,
 * with the JSON group's figures; the GEMM, losing less, is not the first. */
static void plant_compute_bound(const char *dir, int rank) {
    char path[600];
    snprintf(path, sizeof path, "%s/rank %d (copy).json", dir, rank);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 2}, \"traceEvents\": [\n", rank);
    static const char *const names[2] = {"aten::native_layer_norm", "aten::mm"};
    static const char *const dims[2] = {"[[8, 512, 4096], [], [4096], [4096], []]", "[[4096, 4096], [4096, 4096]]"};
    static const char *const types[2] = {"[\"c10::BFloat16\", \"\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
                                         "[\"c10::BFloat16\", \"c10::BFloat16\"]"};
    static const long dur[2] = {200, 300};
    for (long i = 0; i < 200; i++)
        for (int k = 0; k < 2; k++) {
            long ts = 100 + i * 500 + k * 200, corr = 1 + i * 2 + k; /* the host runs ahead of the GPU */
            fprintf(f, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %ld, "
                    "\"dur\": 20, \"args\": {\"External id\": %ld, \"Input Dims\": %s, \"Input type\": %s}},\n",
                    names[k], ts, corr, dims[k], types[k]);
            fprintf(f, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
                    "\"ts\": %ld, \"dur\": 4, \"args\": {\"correlation\": %ld}},\n", ts + 5, corr);
            fprintf(f, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %ld, "
                    "\"dur\": %ld, \"args\": {\"correlation\": %ld, \"stream\": 7}},\n", k ? "gemm_kernel" : "ln_kernel",
                    5000 + i * 500 + k * 200, dur[k], corr);
        }
    fprintf(f, "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 106000, \"s\": \"t\"}\n]}\n");
    fclose(f);
}

/* A string value, "" when it is none. */
static const char *str_of(yajl_val v) { return YAJL_IS_STRING(v) && v->u.string ? v->u.string : ""; }

Test(ops_actions, a_planted_compute_bound_job_names_its_memory_bound_op, .timeout = 120) {
    char *d = tu_tmpdir(), *out = NULL;
    for (int r = 0; r < 2; r++) plant_compute_bound(d, r);
    cr_assert_eq(tu_sh(&out, "%s analyze -q --gpu h100-sxm --json '%s/out.json' '%s/rank 0 (copy).json' '%s/rank 1 (copy).json'",
                       tu_bin(), d, d, d), 0, "%s", out);
    free(out);
    char p[600], err[256];
    snprintf(p, sizeof p, "%s/out.json", d);
    char *json = tu_read_file(p, NULL);
    yajl_val root = yajl_tree_parse(json, err, sizeof err);
    cr_assert_not_null(root, "%s", err);
    const char *vpath[] = {"summary", "verdict", NULL}, *apath[] = {"summary", "actions", NULL};
    cr_assert_str_eq(YAJL_GET_STRING(yajl_tree_get(root, vpath, yajl_t_string)), "compute-bound");
    yajl_val acts = yajl_tree_get(root, apath, yajl_t_array), ops = field(root, "ops");
    cr_assert(acts && acts->u.array.len >= 1 && ops && ops->u.array.len == 2);
    yajl_val a = acts->u.array.values[0], ln = NULL;
    for (size_t g = 0; g < 2; g++)
        if (!strcmp(str_of(field(ops->u.array.values[g], "op")), "aten::native_layer_norm")) ln = ops->u.array.values[g];
    cr_assert_not_null(ln);
    cr_expect_str_eq(str_of(field(a, "code")), "fuse_norm");
    cr_expect_str_eq(str_of(field(a, "op")), "aten::native_layer_norm");
    cr_expect_str_eq(str_of(field(a, "class")), "memory-bound");
    cr_expect_str_eq(str_of(field(ln, "class")), "memory-bound");
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(ln, "gpu_time_us")), 2 * 200 * 200, 1e-9, "the plant's norm time");
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(a, "share_of_compute")), 0.4, 1e-12, "200 of every 500 µs");
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(a, "share_of_attainable")), YAJL_GET_DOUBLE(field(ln, "share_of_attainable")), 1e-12);
    cr_expect_float_eq(YAJL_GET_DOUBLE(field(a, "lost_us")), YAJL_GET_DOUBLE(field(ln, "lost_us")), 1e-9);
    cr_expect(strstr(str_of(field(a, "text")), "aten::native_layer_norm [[8, 512, 4096], [], [4096], [4096], []] runs "
                                                         "at ") != NULL, "%s", str_of(field(a, "text")));
    cr_expect(strstr(str_of(field(a, "text")), "of the memory roofline over 40% of compute time"), "%s",
              str_of(field(a, "text")));
    yajl_tree_free(root);
    free(json);
    tu_sh(NULL, "rm -rf %s", d);
    free(d);
}
