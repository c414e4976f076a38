/* test_messages.c: inputs and messages a new user meets (issue 21): --recursive reads per-node
 * subfolders, and a folder holding only subfolders with traces says so; a CPU-only trace gets the
 * ProfilerActivity.CUDA hint; an unknown --gpu gets the ids it may mean; `cost` names every missing
 * required flag at once; counts take K/M/B/T suffixes (--params 7B). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/opts.h"
#include "testutil.h"

static void expect_has(const char *text, const char *want) {
    cr_expect_not_null(strstr(text, want), "missing \"%s\" in:\n%s", want, text);
}

Test(messages, recursive_reads_subfolders_and_a_folder_of_subfolders_says_so, .timeout = 60) {
    char *d = tu_tmpdir(), *out = NULL;
    cr_assert_eq(tu_sh(NULL, "mkdir -p %s/job/node0 %s/job/node1 %s/job/.hidden && cp samples/rank0.* samples/rank1.* "
                             "%s/job/node0/ && cp samples/rank2.* samples/rank3.* %s/job/node1/ && "
                             "cp samples/rank0.* %s/job/.hidden/ && ln -s %s/job %s/job/node1/loop",
                       d, d, d, d, d, d, d, d), 0);
    cr_expect_eq(tu_sh(&out, "%s analyze %s/job", tu_bin(), d), 2);
    expect_has(out, "/job: folder holds no traces (*.json, *.json.gz), but its subfolders hold 4: pass --recursive to "
                    "read them");
    free(out);
    /* -r: the four ranks of both nodes, not the hidden folder, not through the link back */
    cr_expect_eq(tu_sh(&out, "%s analyze -q -r --json %s/out.json %s/job", tu_bin(), d, d), 0, "%s", out);
    free(out);
    char p[600];
    snprintf(p, sizeof p, "%s/out.json", d);
    yajl_val v = tu_json_file(p);
    cr_expect_eq(tu_get(v, "inputs", NULL)->u.array.len, 4);
    cr_expect_str_eq(YAJL_GET_STRING(tu_get(v, "inputs", "#3", "path", NULL)) + strlen(d), "/job/node1/rank3.pt.trace.json.gz");
    yajl_tree_free(v);
    /* compare takes it too */
    cr_expect_eq(tu_sh(&out, "%s compare -q --recursive %s/job %s/job", tu_bin(), d, d), 0, "%s", out);
    free(out);
    tu_sh(NULL, "rm -rf %s", d);
    free(d);
}

Test(messages, unknown_gpu_ids_get_suggestions) {
    char *out = NULL;
    cr_expect_eq(tu_sh(&out, "%s analyze --gpu h100 samples/", tu_bin()), 1);
    expect_has(out, "--gpu: unknown GPU 'h100'; did you mean h100-pcie or h100-sxm? (tracecost gpus lists them all)");
    free(out);
    cr_expect_eq(tu_sh(&out, "%s cost --gpu MI3 --gpus 8 --network-efficiency 0.6", tu_bin()), 1);
    expect_has(out, "did you mean mi300x, mi325x or mi355x?");
    free(out);
    cr_expect_eq(tu_sh(&out, "%s cost --gpu tpu --gpus 8 --network-efficiency 0.6", tu_bin()), 1);
    expect_has(out, "unknown GPU 'tpu'; known: h100-pcie, h100-sxm,");
    free(out);
}

Test(messages, cost_names_every_missing_flag_at_once) {
    char *out = NULL;
    cr_expect_eq(tu_sh(&out, "%s cost", tu_bin()), 1);
    expect_has(out, "tracecost cost: --gpus, --network-efficiency and --price-per-gpu-hour are required without a "
                    "trace. --gpus: the number of GPUs to price. --network-efficiency: ");
    free(out);
    cr_expect_eq(tu_sh(&out, "%s cost --gpus 8", tu_bin()), 1);
    expect_has(out, "--network-efficiency and --price-per-gpu-hour are required without a trace.");
    free(out);
}

Test(messages, counts_take_suffixes) {
    double x = 0;
    cr_expect(tc_parse_count("7B", &x) && x == 7e9);
    cr_expect(tc_parse_count("32k", &x) && x == 32000);
    cr_expect(tc_parse_count("1.5M", &x) && x == 1.5e6);
    cr_expect(tc_parse_count("2T", &x) && x == 2e12);
    cr_expect(tc_parse_count("1e15", &x) && x == 1e15);
    cr_expect(!tc_parse_count("7X", &x));
    cr_expect(!tc_parse_count("7BB", &x));
    cr_expect(!tc_parse_count("B", &x));
    cr_expect(!tc_parse_count("0x10", &x) && !tc_parse_count("1K ", &x) && !tc_parse_count("50%", &x));
    double dv;
    cr_expect(!tc_parse_double("0x10", &dv) && !tc_parse_double("0x1p4", &dv) && !tc_parse_double("1e-320", &dv));
    cr_expect(!tc_parse_double("400 ", &dv) && !tc_parse_double(" 400", &dv) && !tc_parse_double("1K", &dv));
    cr_expect(tc_parse_double("4e2", &dv) && dv == 400 && tc_parse_double("1_000.5", &dv) && dv == 1000.5);
    long l;
    cr_expect(!tc_parse_long("1.0", &l) && !tc_parse_long("1e3", &l) && !tc_parse_long("0x10", &l));
    cr_expect(tc_parse_long("1,024", &l) && l == 1024 && tc_parse_long("-3", &l) && l == -3);
    char *d = tu_tmpdir(), *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s analyze -q --params 7B --tokens-per-step 32K --json %s/a.json samples/ && "
                             "%s analyze -q --params 7e9 --tokens-per-step 32000 --json %s/b.json samples/ && "
                             "cmp %s/a.json %s/b.json", tu_bin(), d, tu_bin(), d, d, d), 0, "%s", out);
    free(out);
    cr_expect_eq(tu_sh(&out, "%s analyze --params 7X --tokens-per-step 1 samples/", tu_bin()), 1);
    expect_has(out, "--params needs a positive number (e.g. 1.2e15, 7B, 32K), not '7X'");
    free(out);
    cr_expect_eq(tu_sh(&out, "%s compare -q --tokens-per-step 32K samples/ samples/", tu_bin()), 0, "%s", out);
    free(out);
    tu_sh(NULL, "rm -rf %s", d);
    free(d);
}
