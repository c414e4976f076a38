/* test_cost.c: the cost model against hand-computed scenarios (issue 5), the what-if, trace
 * facts, precedence of flag > config > trace > catalog > default, the inputs' table
 * (model/cost_inputs.def) and the options built from it, refusal of bad values through
 * `tracecost cost` (the built binary), and the JSON the calculator writes (parsed back with yajl). */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <criterion/criterion.h>
#include "testutil.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>
#include "analyzer/cost.h"
#include "cli/cost_options.h"
#include "model/cost_inputs.h"
#include "reports/cost_report.h"
#include "reports/cost_report.h"
#include "reports/textfmt.h"

/* ---- helpers ------------------------------------------------------------------------------ */

/* Sets flags on in; fails the test on any refusal. */
static void flags(tc_cost_inputs *in, const char *const *kv) {
    char err[400];
    for (size_t i = 0; kv[i]; i += 2) {
        int rc = tc_cost_parse_option(in, kv[i], kv[i + 1], err, sizeof err);
        cr_assert_eq(rc, 0, "--%s %s refused: %s", kv[i], kv[i + 1], rc < 0 ? err : "unknown");
    }
}

/* Runs `tracecost cost ARGS...` (NULL-terminated; no argument holds a single quote), capturing
 * stdout and stderr apart. */
typedef struct run_out {
    int rc;     /* exit code */
    char *out;  /* stdout text, malloc'd */
    char *err;  /* stderr text, malloc'd */
} run_out;

static run_out run_cost(const char *const *args) {
    char out_path[] = "/tmp/tc-cost-out-XXXXXX", err_path[] = "/tmp/tc-cost-err-XXXXXX";
    int fo = mkstemp(out_path), fe = mkstemp(err_path);
    cr_assert(fo >= 0 && fe >= 0);
    close(fo);
    close(fe);
    char cmd[4096];
    size_t n = (size_t)snprintf(cmd, sizeof cmd, "'%s' cost", tu_bin());
    for (size_t i = 0; args[i] && n < sizeof cmd; i++) {
        cr_assert(strchr(args[i], '\'') == NULL);
        n += (size_t)snprintf(cmd + n, sizeof cmd - n, " '%s'", args[i]);
    }
    cr_assert(n < sizeof cmd);
    snprintf(cmd + n, sizeof cmd - n, " >'%s' 2>'%s' </dev/null", out_path, err_path);
    run_out r;
    r.rc = tu_sh(NULL, "%s", cmd);
    r.out = tu_read_file(out_path, NULL);
    r.err = tu_read_file(err_path, NULL);
    unlink(out_path);
    unlink(err_path);
    return r;
}

static void run_free(run_out *r) {
    free(r->out);
    free(r->err);
}

/* Writes text to a new temporary file; returns its path (static buffer per call site). */
static void temp_file(char *path, size_t n, const char *text) {
    snprintf(path, n, "/tmp/tracecost_test_XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

#define NEAR(actual, expected, tol) cr_expect(fabs((actual) - (expected)) <= (tol), \
    "%s = %.10g, expected %.10g", #actual, (double)(actual), (double)(expected))

/* ---- hand-computed scenarios ---------------------------------------------------------------- */

/* Issue 5: 8 GPUs at e = 0.6 and P = $2:
 *   effective_gpus = N·e = 8 × 0.6 = 4.8
 *   effective_price = P / e = 2 / 0.6 = $3.333...
 *   network_loss = N·P·H·u·(1 − e) = 8 × 2 × 730 × 1 × 0.4 = $4,672 a month */
Test(cost, eight_gpus_at_sixty_percent) {
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    flags(&in, (const char *const[]){"gpus", "8", "network-efficiency", "0.6",
                                     "price-per-gpu-hour", "2", NULL});
    tc_cost_result r;
    char err[400];
    cr_assert_eq(tc_cost_compute(&in, NULL, &r, err, sizeof err), 0, "%s", err);
    NEAR(r.effective_gpus, 4.8, 1e-12);
    NEAR(r.effective_price_per_gpu_hour, 2.0 / 0.6, 1e-12);
    NEAR(r.network_loss_per_month, 4672.0, 1e-9);
    NEAR(r.rent_monthly, 11680.0, 1e-9);               /* 8 × 2 × 730 */
    NEAR(r.tco_rent, 36 * 11680.0, 1e-6);              /* default M = 36 */
    NEAR(r.rent_cost_per_effective_gpu_hour, 2.0 / 0.6, 1e-12); /* e_r defaults to e */
    cr_expect(!r.has_own && !r.has_breakeven && !r.has_what_if);
    cr_expect(!r.has_idle_loss && !r.has_straggler_loss); /* calculator mode: unknown */
    cr_expect_eq(r.timeline_len, 37);
    char head[512];
    tc_cost_headline(head, sizeof head, &r);
    cr_expect_str_eq(head, "your 8 GPUs do the work of 4.8 against an infinitely fast network; at $2.00/GPU-hour, if they ran all month at this "
                           "efficiency, the network would cost you $4,672 a month.");
}

/* Buy vs rent, every formula by hand. N=64, P=2.5, C=30000, F=960000, W=1.25, E=0.12, pue=1.3,
 * O=20000, u=0.9, M=36, e=0.7, e_r=0.9; H = 730.
 *   rent_monthly = N·P·H·u = 64 × 2.5 × 730 × 0.9 = 105,120
 *   effective_gpus = 64 × 0.7 = 44.8; effective_price = 2.5 / 0.7 = 3.5714286
 *   network_loss = 105,120 × 0.3 = 31,536
 *   own_capex = N·C + F = 1,920,000 + 960,000 = 2,880,000
 *   own_opex = N·W·H·u·pue·E + O = 64 × 1.25 × 730 × 0.9 × 1.3 × 0.12 + 20,000
 *            = 80 × 730 = 58,400; × 0.9 = 52,560; × 1.3 = 68,328; × 0.12 = 8,199.36; + 20,000
 *            = 28,199.36
 *   breakeven = 2,880,000 / (105,120 − 28,199.36) = 2,880,000 / 76,920.64 = 37.44119...
 *   tco_own = 2,880,000 + 36 × 28,199.36 = 2,880,000 + 1,015,176.96 = 3,895,176.96
 *   tco_rent = 36 × 105,120 = 3,784,320
 *   own per effective GPU-hour = 3,895,176.96 / (64 × 730 × 0.9 × 36 × 0.7)
 *            = 3,895,176.96 / 1,059,609.6 = 3.676049...
 *   rent per effective GPU-hour = P / e_r = 2.5 / 0.9 = 2.777...
 *   timeline[m] = {m, 2,880,000 + m × 28,199.36, m × 105,120}, m = 0..36 */
Test(cost, buy_versus_rent_every_formula) {
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    flags(&in, (const char *const[]){
        "gpus", "64", "price-per-gpu-hour", "2.5", "purchase-per-gpu", "30000",
        "fabric-cost", "960000", "power-kw-per-gpu", "1.25", "electricity-per-kwh", "0.12",
        "pue", "1.3", "ops-per-month", "20000", "utilization", "0.9", "months", "36",
        "network-efficiency", "0.7", "rent-network-efficiency", "0.9", NULL});
    tc_cost_result r;
    char err[400];
    cr_assert_eq(tc_cost_compute(&in, NULL, &r, err, sizeof err), 0, "%s", err);
    NEAR(r.rent_monthly, 105120.0, 1e-6);
    NEAR(r.effective_gpus, 44.8, 1e-9);
    NEAR(r.effective_price_per_gpu_hour, 2.5 / 0.7, 1e-12);
    NEAR(r.network_loss_per_month, 31536.0, 1e-6);
    cr_assert(r.has_own);
    NEAR(r.own_capex, 2880000.0, 1e-6);
    NEAR(r.own_opex_monthly, 28199.36, 1e-6);
    cr_assert(r.has_breakeven);
    NEAR(r.breakeven_months, 2880000.0 / 76920.64, 1e-9);
    NEAR(r.breakeven_months, 37.44119, 1e-4);
    NEAR(r.tco_own, 3895176.96, 1e-4);
    NEAR(r.tco_rent, 3784320.0, 1e-4);
    NEAR(r.own_cost_per_effective_gpu_hour, 3895176.96 / 1059609.6, 1e-9);
    NEAR(r.own_cost_per_effective_gpu_hour, 3.676049, 1e-5);
    NEAR(r.rent_cost_per_effective_gpu_hour, 2.5 / 0.9, 1e-12);
    cr_assert_eq(r.timeline_len, 37);
    cr_expect_eq(r.timeline[0].month, 0);
    NEAR(r.timeline[0].own, 2880000.0, 1e-6);
    NEAR(r.timeline[0].rent, 0.0, 0);
    cr_expect_eq(r.timeline[36].month, 36);
    NEAR(r.timeline[36].own, 3895176.96, 1e-4);
    NEAR(r.timeline[36].rent, 3784320.0, 1e-4);
    NEAR(r.timeline[10].own, 2880000.0 + 10 * 28199.36, 1e-4);
    char head[600];
    tc_cost_headline(head, sizeof head, &r);
    cr_expect(strstr(head, "your 64 GPUs do the work of 44.8 against an infinitely fast network; at $2.50/GPU-hour, if they ran 90% of the month "
                           "at this efficiency, the network would cost you $31,536 a month; owning pays back "
                           "in 37.4 months against renting; over 36 months owning costs $3,895,177 and "
                           "renting $3,784,320.") != NULL,
              "%s", head);
}

Test(cost, renting_never_dearer_gives_null_breakeven) {
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    /* rent 1 × 0.10 × 730 = $73/month; opex 1 × 1.25 × 730 × 1.3 × 0.10 = $118.6/month > rent */
    flags(&in, (const char *const[]){"gpus", "1", "price-per-gpu-hour", "0.10", "purchase-per-gpu",
                                     "1000", "network-efficiency", "1", NULL});
    tc_cost_result r;
    char err[400];
    cr_assert_eq(tc_cost_compute(&in, NULL, &r, err, sizeof err), 0, "%s", err);
    cr_expect(r.has_own);
    cr_expect(!r.has_breakeven);
    NEAR(r.own_opex_monthly, 1.25 * 730 * 1.3 * 0.10, 1e-9);
    char head[600];
    tc_cost_headline(head, sizeof head, &r);
    cr_expect(strstr(head, "your 1 GPU does the work of 1 against an infinitely fast network;") != NULL, "%s", head);
    cr_expect(strstr(head, "owning never pays back") != NULL, "%s", head);
}

/* ---- what-if ---------------------------------------------------------------------------------- */

/* N=8, P=2, e=0.6 (s = 0.4), B=100 → B'=200, X = $10,000, step 1,000 µs:
 *   transfer time halves: s' = 0.4 × 100/200 = 0.2 of the old step
 *   step ratio = 1 − 0.4 + 0.2 = 0.8 → projected step 800 µs
 *   e' = compute / new step = 0.6 / 0.8 = 0.75 → 8 × 0.75 = 6 effective GPUs
 *   projected exposed share = 0.2 / 0.8 = 0.25
 *   value = N·P·H·u·(1 − T'/T) = 11,680 × (1 − 0.8) = $2,336 a month: the GPU-hours the shorter step
 *   saves (issue 29; it was N·P·H·u·(e' − e) = $1,752); payback = 10,000 / 2,336 */
Test(cost, fabric_what_if) {
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    flags(&in, (const char *const[]){"price-per-gpu-hour", "2", "fabric-target-GBps", "200",
                                     "fabric-upgrade-cost", "10000", NULL});
    tc_cost_trace_facts f = {.world_size = 8, .exposed_transfer_share = 0.4,
                             .exposed_wait_share = 0, .idle_share = 0, .step_time_us = 1000,
                             .fabric_busbw_GBps = 100, .transfer_split_known = true};
    tc_cost_result r;
    char err[400];
    cr_assert_eq(tc_cost_compute(&in, &f, &r, err, sizeof err), 0, "%s", err);
    cr_assert(r.has_what_if);
    NEAR(r.what_if.fabric_GBps, 100, 0);
    NEAR(r.what_if.target_GBps, 200, 0);
    NEAR(r.what_if.projected_exposed_transfer_share, 0.25, 1e-12);
    cr_expect(r.what_if.has_step_time);
    NEAR(r.what_if.projected_step_time_us, 800, 1e-9);
    NEAR(r.what_if.projected_effective_gpus, 6.0, 1e-12);
    NEAR(r.what_if.monthly_value_recovered, 2336.0, 1e-9);
    cr_expect_eq(r.what_if.method, TC_WHAT_IF_SCALED, "no replay in the facts: scaled");
    NEAR(r.what_if.step_ratio, 0.8, 1e-12);
    cr_expect(r.what_if.has_payback);
    NEAR(r.what_if.payback_months, 10000.0 / 2336.0, 1e-12);
    cr_expect_str_eq(r.used.fabric_GBps.origin, "trace (measured bus bandwidth)");
}

/* On partial data (transfer an upper bound, e a lower bound) the scaled what-if's shares are upper
 * bounds: both carry "<=" on their line, in the form of every share. */
Test(cost, scaled_what_if_shares_carry_their_bound_on_partial_data) {
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    flags(&in, (const char *const[]){"price-per-gpu-hour", "2", "fabric-target-GBps", "200", NULL});
    tc_cost_trace_facts f = {.world_size = 8, .exposed_transfer_share = 0.4, .step_time_us = 1000,
                             .fabric_busbw_GBps = 100, .transfer_split_known = true,
                             .transfer_upper_bound = true};
    tc_cost_result r;
    char err[400];
    cr_assert_eq(tc_cost_compute(&in, &f, &r, err, sizeof err), 0, "%s", err);
    cr_assert(r.has_what_if && r.what_if.method == TC_WHAT_IF_SCALED);
    cr_assert_eq(r.efficiency_bound, TC_COST_LOWER);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    cr_assert(out);
    tc_term_opts to = {.color = false, .width = 120};
    tc_cost_result_print(out, &r, &to);
    fclose(out);
    cr_expect(strstr(buf, "<= 40.0% -> <= 25.0%"), "%s", buf);
    free(buf);
}

Test(cost, what_if_downgrade_has_no_payback_and_calculator_needs_fabric_gbps) {
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    flags(&in, (const char *const[]){"gpus", "8", "price-per-gpu-hour", "2", "network-efficiency",
                                     "0.6", "fabric-target-GBps", "50", NULL});
    tc_cost_result r;
    char err[400];
    cr_assert_eq(tc_cost_compute(&in, NULL, &r, err, sizeof err), 0, "%s", err);
    cr_expect(!r.has_what_if); /* no measured B in calculator mode without --fabric-GBps */
    bool noted = false;
    for (size_t i = 0; i < r.n_notes; i++) noted |= strstr(r.notes[i], "--fabric-GBps") != NULL;
    cr_expect(noted);

    flags(&in, (const char *const[]){"fabric-GBps", "100", "fabric-upgrade-cost", "5000", NULL});
    cr_assert_eq(tc_cost_compute(&in, NULL, &r, err, sizeof err), 0, "%s", err);
    cr_assert(r.has_what_if);
    cr_expect(!r.what_if.has_step_time);
    cr_expect(r.what_if.monthly_value_recovered < 0);
    cr_expect(r.what_if.has_upgrade_cost && !r.what_if.has_payback);
}

/* ---- trace facts -------------------------------------------------------------------------------- */

/* A network-bound job (16 ranks, 37% exposed transfer): effective_gpus = N·(1 − s) within 1%. */
Test(cost, effective_gpus_from_a_network_bound_trace) {
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    tc_cost_apply_catalog(&in, tc_gpu_find_by_device_name("NVIDIA H100 80GB HBM3"));
    tc_cost_trace_facts f = {.world_size = 16, .exposed_transfer_share = 0.37,
                             .exposed_wait_share = 0.05, .idle_share = 0.08,
                             .step_time_us = 250000, .fabric_busbw_GBps = 0,
                             .transfer_split_known = true};
    tc_cost_result r;
    char err[400];
    cr_assert_eq(tc_cost_compute(&in, &f, &r, err, sizeof err), 0, "%s", err);
    double expected = 16 * (1 - 0.37);
    cr_expect(fabs(r.effective_gpus - expected) <= 0.01 * expected, "%g vs %g", r.effective_gpus,
              expected);
    NEAR(r.used.gpus.value, 16, 0);
    cr_expect_str_eq(r.used.gpus.origin, "trace (world size)");
    cr_expect_eq(r.used.network_efficiency.source, TC_COST_SRC_TRACE);
    cr_expect(r.has_idle_loss && r.has_straggler_loss);
    const double rent = 16 * 2.95 * 730; /* catalog H100 SXM price, u = 1 */
    NEAR(r.rent_monthly, rent, 1e-6);
    NEAR(r.idle_loss_per_month, rent * 0.08, 1e-6);
    NEAR(r.straggler_loss_per_month, rent * 0.05, 1e-6);
    NEAR(r.network_loss_per_month, rent * 0.37, 1e-6);
    cr_expect(r.has_own); /* catalog purchase price */
    cr_expect(!r.has_what_if);
    cr_expect_str_eq(r.used.gpu->id, "h100-sxm");
    cr_expect_str_eq(r.used.gpu_origin, "trace (device name)");
}

Test(cost, single_rank_uses_whole_exposed_comm_and_says_so) {
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    flags(&in, (const char *const[]){"price-per-gpu-hour", "2", NULL});
    tc_cost_trace_facts f = {.world_size = 1, .exposed_transfer_share = 0.3,
                             .exposed_wait_share = 0.1, .idle_share = 0.05,
                             .transfer_split_known = false};
    tc_cost_result r;
    char err[400];
    cr_assert_eq(tc_cost_compute(&in, &f, &r, err, sizeof err), 0, "%s", err);
    NEAR(r.used.network_efficiency.value, 0.6, 1e-12);
    cr_expect(strstr(r.used.network_efficiency.origin, "1 rank") != NULL);
    cr_expect(!r.has_straggler_loss);
    cr_expect(r.n_notes >= 1);
}

Test(cost, flag_beats_trace_and_bad_trace_facts_are_refused) {
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    flags(&in, (const char *const[]){"price-per-gpu-hour", "2", "network-efficiency", "0.9",
                                     "gpus", "32", NULL});
    tc_cost_trace_facts f = {.world_size = 8, .exposed_transfer_share = 0.5,
                             .transfer_split_known = true};
    tc_cost_result r;
    char err[400];
    cr_assert_eq(tc_cost_compute(&in, &f, &r, err, sizeof err), 0, "%s", err);
    NEAR(r.used.network_efficiency.value, 0.9, 0);
    NEAR(r.used.gpus.value, 32, 0);
    cr_expect_str_eq(r.used.gpus.origin, "flag");

    tc_cost_inputs in2;
    tc_cost_inputs_defaults(&in2);
    flags(&in2, (const char *const[]){"price-per-gpu-hour", "2", NULL});
    f.exposed_transfer_share = 1.0; /* nothing useful left: e = 0 */
    cr_expect_eq(tc_cost_compute(&in2, &f, &r, err, sizeof err), -1);
    cr_expect(strstr(err, "--network-efficiency") != NULL, "%s", err);
    f.exposed_transfer_share = NAN;
    cr_expect_eq(tc_cost_compute(&in2, &f, &r, err, sizeof err), -1);
    f.exposed_transfer_share = 0.7;
    f.exposed_wait_share = 0.5; /* sums past 1 */
    cr_expect_eq(tc_cost_compute(&in2, &f, &r, err, sizeof err), -1);
    cr_expect_eq(r.effective_gpus, 0); /* result cleared on error */
}

/* ---- precedence and config files ----------------------------------------------------------------- */

Test(cost, config_file_and_precedence) {
    char path[64];
    temp_file(path, sizeof path,
              "# cluster.conf\n"
              "gpus = 4\n"
              "pue = 1.5   # our facility\n"
              "\n"
              "price-per-gpu-hour = $3\n"
              "--network-efficiency = 50%\n"
              "purchase-per-gpu = 25,000\n"
              "gpu = \"NVIDIA H100 SXM 80GB\"\n");
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    char err[400];
    /* A flag given before the config still wins over it... */
    flags(&in, (const char *const[]){"gpus", "8", NULL});
    cr_assert_eq(tc_cost_load_config(&in, path, err, sizeof err), 0, "%s", err);
    /* ...and one given after it too. */
    flags(&in, (const char *const[]){"purchase-per-gpu", "20000", NULL});
    tc_cost_apply_catalog(&in, tc_gpu_find_by_id("a100-sxm")); /* detected, but config says H100 */

    NEAR(in.gpus.value, 8, 0);
    cr_expect_str_eq(in.gpus.origin, "flag");
    NEAR(in.pue.value, 1.5, 0);
    char want[128];
    snprintf(want, sizeof want, "config:%s:3", path);
    cr_expect_str_eq(in.pue.origin, want);
    NEAR(in.price_per_gpu_hour.value, 3, 0);            /* config beats catalog */
    cr_expect_eq(in.price_per_gpu_hour.source, TC_COST_SRC_CONFIG);
    NEAR(in.network_efficiency.value, 0.5, 1e-12);
    NEAR(in.purchase_per_gpu.value, 20000, 0);          /* flag after config */
    cr_expect_str_eq(in.gpu->id, "h100-sxm");           /* config --gpu beats detection */
    NEAR(in.power_kw_per_gpu.value, 1.25, 1e-12);       /* catalog (700 W × 10/5.6) beats default */
    cr_expect_eq(in.power_kw_per_gpu.source, TC_COST_SRC_CATALOG);
    NEAR(in.months.value, 36, 0);
    cr_expect_eq(in.months.source, TC_COST_SRC_DEFAULT);

    /* Trace sits between config and catalog: trace world size loses to the flag. */
    tc_cost_trace_facts f = {.world_size = 16, .exposed_transfer_share = 0.2,
                             .transfer_split_known = true};
    tc_cost_result r;
    cr_assert_eq(tc_cost_compute(&in, &f, &r, err, sizeof err), 0, "%s", err);
    NEAR(r.used.gpus.value, 8, 0);
    NEAR(r.used.network_efficiency.value, 0.5, 1e-12); /* config beats trace */
    unlink(path);
}

Test(cost, config_errors_name_file_and_line) {
    char path[64], err[400];
    tc_cost_inputs in;

    temp_file(path, sizeof path, "gpus = 8\npeu = 1.2\n");
    tc_cost_inputs_defaults(&in);
    cr_expect_eq(tc_cost_load_config(&in, path, err, sizeof err), -1);
    char want[200];
    snprintf(want, sizeof want, "%s:2: unknown key 'peu' (did you mean 'pue'?)", path);
    cr_expect_str_eq(err, want);
    unlink(path);

    temp_file(path, sizeof path, "# x\n\nnetwork-efficiency = 1.2\n");
    tc_cost_inputs_defaults(&in);
    cr_expect_eq(tc_cost_load_config(&in, path, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s:3: --network-efficiency must be in (0, 1], a share of time (0.6 = 60%%); got 1.2",
             path);
    cr_expect_str_eq(err, want);
    unlink(path);

    temp_file(path, sizeof path, "gpus 8\n");
    tc_cost_inputs_defaults(&in);
    cr_expect_eq(tc_cost_load_config(&in, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:1: expected 'key = value', got 'gpus 8'", path);
    cr_expect_str_eq(err, want);
    unlink(path);

    temp_file(path, sizeof path, "config = other.conf\n");
    tc_cost_inputs_defaults(&in);
    cr_expect_eq(tc_cost_load_config(&in, path, err, sizeof err), -1);
    cr_expect(strstr(err, ":1: a config file cannot load another") != NULL, "%s", err);
    unlink(path);

    tc_cost_inputs_defaults(&in);
    cr_expect_eq(tc_cost_load_config(&in, "/nonexistent/cost.conf", err, sizeof err), -1);
    cr_expect(strstr(err, "cannot read config '/nonexistent/cost.conf'") != NULL, "%s", err);
}

/* ---- parsing ---------------------------------------------------------------------------------- */

Test(cost, number_spellings) {
    static const struct { const char *name, *text; int rc; double v; } cases[] = {
        {"price-per-gpu-hour", "$2.50", 0, 2.5},     {"fabric-cost", "960,000", 0, 960000},
        {"fabric-cost", "960_000", 0, 960000},       {"fabric-cost", "1,234,567.5", 0, 1234567.5},
        {"network-efficiency", "60%", 0, 0.6},       {"network-efficiency", " 0.6 ", -1, 0}, 
        {"fabric-cost", "1e6", 0, 1e6},              {"gpus", "8", 0, 8},
        {"price-per-gpu-hour", "60%", -1, 0},        {"fabric-cost", "1,5", -1, 0},
        {"fabric-cost", "12,34", -1, 0},             {"fabric-cost", "0x10", -1, 0},
        {"fabric-cost", "", -1, 0},                  {"fabric-cost", "inf", -1, 0},
        {"fabric-cost", "nan", -1, 0},               {"fabric-cost", "1e999", -1, 0},
        {"fabric-cost", "-$5", -1, 0},               {"fabric-cost", "5 5", -1, 0},
        {"gpus", "8.0", -1, 0},                       {"gpus", "8.5", -1, 0},
        {"months", "601", -1, 0},                    {"months", "600", 0, 600},
        {"pue", "1", 0, 1},                          {"utilization", "100%", 0, 1},
        {"rent-network-efficiency", "0", -1, 0},     {"fabric-target-GBps", "0", -1, 0},
        {"power-kw-per-gpu", "-1", -1, 0},           {"ops-per-month", "0", 0, 0},
        /* issue 30 item 9: each flag only its own forms, never hex, spaces or subnormals */
        {"gpus", "1e1", -1, 0},                      {"gpus", "$8", -1, 0},
        {"pue", "130%", -1, 0},                      {"fabric-cost", "2K", -1, 0},
        {"fabric-cost", "400 ", -1, 0},              {"fabric-cost", "1e-320", -1, 0},
        {"fabric-cost", "0x1p4", -1, 0},             {"months", "36", 0, 36},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_cost_inputs in;
        tc_cost_inputs_defaults(&in);
        char err[400] = "";
        int rc = tc_cost_parse_option(&in, cases[i].name, cases[i].text, err, sizeof err);
        cr_expect_eq(rc, cases[i].rc, "--%s '%s': rc %d (%s)", cases[i].name, cases[i].text, rc, err);
        if (rc != 0) cr_expect(strstr(err, cases[i].name) != NULL, "message '%s' lacks the flag", err);
    }
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    char err[400];
    cr_expect_eq(tc_cost_parse_option(&in, "fabric-cost", "1,234,567.5", err, sizeof err), 0);
    NEAR(in.fabric_cost.value, 1234567.5, 0);
    cr_expect_eq(tc_cost_parse_option(&in, "FABRIC-TARGET-gbps", "400", err, sizeof err), 0);
    NEAR(in.fabric_target_GBps.value, 400, 0);
    cr_expect_eq(tc_cost_parse_option(&in, "json", "x", err, sizeof err), 1);
    cr_expect_eq(tc_cost_parse_option(&in, "nonsense", "1", err, sizeof err), 1);
    cr_expect_eq(tc_cost_parse_option(&in, "gpu", "tpu", err, sizeof err), -1);
    cr_expect(strstr(err, "h100-sxm") != NULL, "%s", err);
}

Test(cost, option_names_and_suggestions) {
    const char *const *names = tc_cost_option_names();
    static const char *const want[] = {
        "gpus", "price-per-gpu-hour", "purchase-per-gpu", "fabric-cost", "power-kw-per-gpu",
        "electricity-per-kwh", "pue", "ops-per-month", "months", "utilization",
        "network-efficiency", "rent-network-efficiency", "fabric-target-GBps",
        "fabric-upgrade-cost", "fabric-GBps", "gpu", "config"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        bool found = false;
        for (const char *const *p = names; *p; p++) found |= strcmp(*p, want[i]) == 0;
        cr_expect(found, "%s not in tc_cost_option_names()", want[i]);
    }
    cr_expect_str_eq(tc_cost_suggest_option("pu"), "pue");
    cr_expect_str_eq(tc_cost_suggest_option("peu"), "pue");
    cr_expect_str_eq(tc_cost_suggest_option("--gpsu"), "gpus");
    cr_expect_str_eq(tc_cost_suggest_option("price"), "price-per-gpu-hour");
    cr_expect_str_eq(tc_cost_suggest_option("network-eficiency"), "network-efficiency");
    cr_expect_str_eq(tc_cost_suggest_option("jsn"), "json");
    cr_expect_null(tc_cost_suggest_option("xyzzy-frobnicate"));
}

Test(cost, money_formatting) {
    char b[64];
    tc_fmt_money(b, sizeof b, 4672, 0);
    cr_expect_str_eq(b, "$4,672");
    tc_fmt_money(b, sizeof b, 10.0 / 3, 2);
    cr_expect_str_eq(b, "$3.33");
    tc_fmt_money(b, sizeof b, -1234.5, 0);
    cr_expect_str_eq(b, "-$1,235");
    tc_fmt_money(b, sizeof b, -0.004, 2);
    cr_expect_str_eq(b, "$0.00");
    tc_fmt_money(b, sizeof b, 1234567.891, 2);
    cr_expect_str_eq(b, "$1,234,567.89");
    tc_fmt_money(b, sizeof b, 999.999, 2);
    cr_expect_str_eq(b, "$1,000.00");
    tc_fmt_money(b, sizeof b, NAN, 2);
    cr_expect_str_eq(b, "-");
    tc_fmt_money(b, 4, 4672, 0);
    cr_expect_str_eq(b, "$4,");
}

/* ---- the calculator subcommand -------------------------------------------------------------- */

Test(cost_main, refuses_bad_values_with_a_message_and_exit_1) {
    static const struct { const char *flag, *value, *says; } cases[] = {
        {"--gpus", "-8", "--gpus must be a whole number of GPUs, at least 1; got -8"},
        {"--gpus", "0", "--gpus must be a whole number of GPUs, at least 1; got 0"},
        {"--network-efficiency", "0", "--network-efficiency must be in (0, 1]"},
        {"--network-efficiency", "1.2", "--network-efficiency must be in (0, 1]"},
        {"--price-per-gpu-hour", "-2", "--price-per-gpu-hour must be greater than 0; got -2"},
        {"--utilization", "1.5", "--utilization must be in (0, 1]"},
        {"--months", "0", "--months must be a whole number of months from 1 to 600; got 0"},
        {"--pue", "0.8", "--pue must be at least 1"},
        {"--fabric-cost", "-1", "--fabric-cost must not be negative; got -1"},
        {"--rent-network-efficiency", "2", "--rent-network-efficiency must be in (0, 1]"},
        {"--gpus", "many", "--gpus: 'many' is not a number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[] = {"--gpus", "8", "--network-efficiency", "0.6", "--price-per-gpu-hour",
                              "2", cases[i].flag, cases[i].value, NULL};
        run_out r = run_cost(args);
        cr_expect_eq(r.rc, 1, "%s %s: exit %d", cases[i].flag, cases[i].value, r.rc);
        cr_expect(strstr(r.err, cases[i].says) != NULL, "%s %s: stderr '%s'", cases[i].flag,
                  cases[i].value, r.err);
        cr_expect(strncmp(r.err, "tracecost cost: ", 16) == 0, "%s", r.err);
        cr_expect_str_eq(r.out, "");
        run_free(&r);
    }
}

Test(cost_main, efficiency_of_one_is_fine_and_equals_form_works) {
    const char *args[] = {"--gpus=8", "--network-efficiency=1", "--price-per-gpu-hour=2", NULL};
    run_out r = run_cost(args);
    cr_expect_eq(r.rc, 0, "%s", r.err);
    cr_expect(strstr(r.out, "your 8 GPUs do the work of 8 against an infinitely fast network;") != NULL, "%s", r.out);
    cr_expect_str_eq(r.err, "");
    run_free(&r);
}

Test(cost_main, requires_network_efficiency_gpus_and_price) {
    const char *no_e[] = {"--gpus", "8", "--price-per-gpu-hour", "2", NULL};
    run_out r = run_cost(no_e);
    cr_expect_eq(r.rc, 1);
    cr_expect(strstr(r.err, "--network-efficiency is required") != NULL, "%s", r.err);
    run_free(&r);
    const char *no_n[] = {"--network-efficiency", "0.6", "--price-per-gpu-hour", "2", NULL};
    r = run_cost(no_n);
    cr_expect_eq(r.rc, 1);
    cr_expect(strstr(r.err, "--gpus is required") != NULL, "%s", r.err);
    run_free(&r);
    const char *no_p[] = {"--gpus", "8", "--network-efficiency", "0.6", NULL};
    r = run_cost(no_p);
    cr_expect_eq(r.rc, 1);
    cr_expect(strstr(r.err, "--price-per-gpu-hour is required") != NULL, "%s", r.err);
    run_free(&r);
    const char *with_gpu[] = {"--gpus", "8", "--network-efficiency", "0.6", "--gpu", "b200", NULL};
    r = run_cost(with_gpu);
    cr_expect_eq(r.rc, 0, "%s", r.err);
    cr_expect(strstr(r.out, "catalog:b200 (price dated") != NULL, "%s", r.out);
    run_free(&r);
}

Test(cost_main, unknown_options_and_arguments) {
    static const struct { const char *arg, *says; } cases[] = {
        {"--peu", "tracecost cost: unknown option --peu (did you mean --pue?)\n"},
        {"--pu=1.2", "tracecost cost: unknown option --pu (did you mean --pue?)\n"},
        {"--utilisation", "tracecost cost: unknown option --utilisation (did you mean "
                          "--utilization?)\n"},
        {"--zzzzzzzzzzzz", "tracecost cost: unknown option --zzzzzzzzzzzz (tracecost cost --help "
                           "lists them)\n"},
        {"trace.json", "tracecost cost: unexpected argument 'trace.json' (the calculator takes "
                       "only options; see tracecost cost --help)\n"},
        {"--months", "tracecost cost: --months needs a value\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *args[] = {"--gpus", "8", "--network-efficiency", "0.6",
                              "--price-per-gpu-hour", "2", cases[i].arg, NULL};
        run_out r = run_cost(args);
        cr_expect_eq(r.rc, 1, "%s", cases[i].arg);
        cr_expect_str_eq(r.err, cases[i].says);
        run_free(&r);
    }
}

Test(cost_main, help_goes_to_stdout_with_examples) {
    const char *args[] = {"--help", NULL};
    run_out r = run_cost(args);
    cr_expect_eq(r.rc, 0);
    cr_expect(strstr(r.out, "usage: tracecost cost") != NULL);
    cr_expect(strstr(r.out, "examples:") != NULL);
    cr_expect(strstr(r.out, "--fabric-upgrade-cost") != NULL);
    cr_expect_str_eq(r.err, "");
    for (char *line = r.out; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        cr_expect(len <= 100, "help line of %zu columns", len);
        line += len + (nl ? 1 : 0);
    }
    run_free(&r);
}

Test(cost_main, table_fits_100_columns) {
    const char *args[] = {"--gpu", "h100-sxm", "--gpus", "1024", "--network-efficiency", "0.61",
                          "--utilization", "0.85", "--ops-per-month", "250000", "--fabric-GBps",
                          "48.5", "--fabric-target-GBps", "400", "--fabric-upgrade-cost",
                          "12,500,000", "--config", "/dev/null", NULL};
    run_out r = run_cost(args);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    for (char *line = r.out; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char save = line[len];
        line[len] = '\0';
        cr_expect(tc_fmt_width(line) <= 100, "%zu columns: %s", tc_fmt_width(line), line);
        line[len] = save;
        line += len + (nl ? 1 : 0);
    }
    cr_expect(strstr(r.out, "fabric what-if: 48.5 -> 400 GB/s") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "\033[") == NULL); /* no color when not a terminal */
    run_free(&r);
}

/* Looks up key in a yajl object; NULL when absent. */
static yajl_val obj_get(yajl_val obj, const char *key) {
    if (!YAJL_IS_OBJECT(obj)) return NULL;
    for (size_t i = 0; i < obj->u.object.len; i++)
        if (strcmp(obj->u.object.keys[i], key) == 0) return obj->u.object.values[i];
    return NULL;
}

Test(cost_main, json_output_parses_and_has_every_key) {
    char path[64];
    temp_file(path, sizeof path, "");
    const char *args[] = {"--gpus", "64", "--price-per-gpu-hour", "2.5", "--purchase-per-gpu",
                          "30000", "--fabric-cost", "960000", "--power-kw-per-gpu", "1.25",
                          "--electricity-per-kwh", "0.12", "--pue", "1.3", "--ops-per-month",
                          "20000", "--utilization", "0.9", "--months", "36",
                          "--network-efficiency", "0.7", "--rent-network-efficiency", "0.9",
                          "--fabric-GBps", "50", "--fabric-target-GBps", "100",
                          "--fabric-upgrade-cost", "100000", "--json", path, NULL};
    run_out r = run_cost(args);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_expect(strstr(r.out, "37.4 months") != NULL, "%s", r.out);
    run_free(&r);

    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    char *text = tu_read_stream(f);
    fclose(f);
    unlink(path);
    char errbuf[256];
    yajl_val root = yajl_tree_parse(text, errbuf, sizeof errbuf);
    cr_assert_not_null(root, "invalid JSON: %s", errbuf);
    yajl_val cost = obj_get(root, "cost");
    cr_assert(YAJL_IS_OBJECT(cost));
    static const char *const keys[] = {
        "effective_gpus", "effective_price_per_gpu_hour", "network_loss_per_month",
        "idle_loss_per_month", "straggler_loss_per_month", "intra_node_comm_loss_per_month", "loss_per_month",
        "loss_shares", "loss_bounds", "loss_lead", "inter_node_network_reason", "rent_monthly", "own_capex",
        "own_opex_monthly", "breakeven_months", "tco_own", "tco_rent",
        "own_cost_per_effective_gpu_hour", "rent_cost_per_effective_gpu_hour", "fabric_nodes", "basis",
        "basis_summary", "network_efficiency_bound", "straggler_loss_bound", "timeline", "what_if", "inputs",
        "effective_reference"};
    cr_expect_eq(cost->u.object.len, sizeof keys / sizeof keys[0], "cost has %zu keys",
                 cost->u.object.len);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        cr_expect_not_null(obj_get(cost, keys[i]), "cost.%s missing", keys[i]);
    cr_expect(YAJL_IS_NULL(obj_get(cost, "idle_loss_per_month")));
    cr_expect(YAJL_IS_NULL(obj_get(cost, "straggler_loss_per_month")));
    /* calculator: all of 1 - e is the network's, as given; the other classes need a trace */
    cr_expect(YAJL_IS_NULL(obj_get(cost, "intra_node_comm_loss_per_month")));
    cr_expect(YAJL_IS_NULL(obj_get(cost, "loss_lead")));
    NEAR(YAJL_GET_DOUBLE(obj_get(obj_get(cost, "loss_per_month"), "inter_node_network")), 105120 * 0.3, 1e-6);
    NEAR(YAJL_GET_DOUBLE(obj_get(obj_get(cost, "loss_per_month"), "total")), 105120 * 0.3, 1e-6);
    NEAR(YAJL_GET_DOUBLE(obj_get(cost, "rent_monthly")), 105120, 1e-6);
    NEAR(YAJL_GET_DOUBLE(obj_get(cost, "breakeven_months")), 2880000.0 / 76920.64, 1e-6);
    NEAR(YAJL_GET_DOUBLE(obj_get(cost, "tco_own")), 3895176.96, 1e-3);

    yajl_val tl = obj_get(cost, "timeline");
    cr_assert(YAJL_IS_ARRAY(tl));
    cr_expect_eq(tl->u.array.len, 37);
    yajl_val last = tl->u.array.values[36];
    NEAR(YAJL_GET_DOUBLE(obj_get(last, "month")), 36, 0);
    NEAR(YAJL_GET_DOUBLE(obj_get(last, "own")), 3895176.96, 1e-3);
    NEAR(YAJL_GET_DOUBLE(obj_get(last, "rent")), 3784320, 1e-3);

    yajl_val wi = obj_get(cost, "what_if");
    cr_assert(YAJL_IS_OBJECT(wi));
    static const char *const wkeys[] = {"method", "fabric_GBps", "target_GBps", "target_latency_us", "inter_node_only",
                                        "scaled_transfer_share", "projected_exposed_transfer_share",
                                        "projected_step_ratio", "projected_step_time_us", "projected_effective_gpus",
                                        "monthly_value_recovered", "value_bound", "upgrade_cost",
                                        "payback_months"};
    cr_expect_eq(wi->u.object.len, sizeof wkeys / sizeof wkeys[0]);
    for (size_t i = 0; i < sizeof wkeys / sizeof wkeys[0]; i++)
        cr_expect_not_null(obj_get(wi, wkeys[i]), "what_if.%s missing", wkeys[i]);
    cr_expect(YAJL_IS_NULL(obj_get(wi, "projected_step_time_us"))); /* no trace */
    /* s = 0.3, s' = 0.15: T'/T = 0.85; value = 105,120 × (1 − 0.85), the GPU-hours the shorter step saves */
    cr_expect_str_eq(YAJL_GET_STRING(obj_get(wi, "method")), "scaled");
    NEAR(YAJL_GET_DOUBLE(obj_get(wi, "monthly_value_recovered")), 105120 * 0.15, 1e-4);
    NEAR(YAJL_GET_DOUBLE(obj_get(wi, "payback_months")), 100000 / (105120 * 0.15), 1e-6);

    yajl_val inputs = obj_get(cost, "inputs");
    cr_assert(YAJL_IS_OBJECT(inputs));
    static const char *const ikeys[] = {
        "gpus", "price_per_gpu_hour", "purchase_per_gpu", "fabric_cost", "power_kw_per_gpu",
        "electricity_per_kwh", "pue", "ops_per_month", "months", "utilization",
        "network_efficiency", "rent_network_efficiency", "fabric_GBps", "fabric_target_GBps",
        "fabric_target_latency_us", "fabric_upgrade_cost", "gpu", "price_as_of", "hours_per_month"};
    cr_expect_eq(inputs->u.object.len, sizeof ikeys / sizeof ikeys[0]);
    for (size_t i = 0; i < sizeof ikeys / sizeof ikeys[0]; i++) {
        yajl_val in = obj_get(inputs, ikeys[i]);
        cr_expect_not_null(in, "inputs.%s missing", ikeys[i]);
        if (!in) continue;
        cr_expect_not_null(obj_get(in, "value"), "inputs.%s.value", ikeys[i]);
        cr_expect(YAJL_IS_STRING(obj_get(in, "source")), "inputs.%s.source", ikeys[i]);
    }
    cr_expect_str_eq(YAJL_GET_STRING(obj_get(obj_get(inputs, "pue"), "source")), "flag");
    NEAR(YAJL_GET_DOUBLE(obj_get(obj_get(inputs, "hours_per_month"), "value")), 730, 0);
    cr_expect(YAJL_IS_ARRAY(obj_get(root, "notes")));
    yajl_tree_free(root);
    free(text);
}

Test(cost_main, json_to_stdout_replaces_the_table_and_nulls_unknowns) {
    const char *args[] = {"--gpus", "8", "--network-efficiency", "0.6", "--price-per-gpu-hour",
                          "2", "--json", "-", NULL};
    run_out r = run_cost(args);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    char errbuf[256];
    yajl_val root = yajl_tree_parse(r.out, errbuf, sizeof errbuf);
    cr_assert_not_null(root, "stdout is not only JSON: %s", errbuf);
    yajl_val cost = obj_get(root, "cost");
    NEAR(YAJL_GET_DOUBLE(obj_get(cost, "effective_gpus")), 4.8, 1e-9);
    NEAR(YAJL_GET_DOUBLE(obj_get(cost, "network_loss_per_month")), 4672, 1e-9);
    cr_expect(YAJL_IS_NULL(obj_get(cost, "own_capex")));
    cr_expect(YAJL_IS_NULL(obj_get(cost, "breakeven_months")));
    cr_expect(YAJL_IS_NULL(obj_get(cost, "what_if")));
    yajl_val tl0 = obj_get(cost, "timeline")->u.array.values[0];
    cr_expect(YAJL_IS_NULL(obj_get(tl0, "own")));
    cr_expect(strstr(r.out, "NaN") == NULL && strstr(r.out, "inf") == NULL);
    yajl_tree_free(root);
    run_free(&r);
}

Test(cost_main, unwritable_json_path_exits_4) {
    const char *args[] = {"--gpus", "8", "--network-efficiency", "0.6", "--price-per-gpu-hour",
                          "2", "--json", "/nonexistent/dir/cost.json", NULL};
    run_out r = run_cost(args);
    cr_expect_eq(r.rc, 4);
    cr_expect_str_eq(r.err, "tracecost cost: /nonexistent/dir/cost.json: cannot write: No such file or "
                             "directory\n");
    run_free(&r);
}

Test(cost_main, config_flag_with_flags_winning) {
    char path[64];
    temp_file(path, sizeof path, "gpus = 4\nprice-per-gpu-hour = 3\nnetwork-efficiency = 0.5\n");
    const char *args[] = {"--gpus", "8", "--config", path, "--json", "-", NULL};
    run_out r = run_cost(args);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    yajl_val root = yajl_tree_parse(r.out, NULL, 0);
    cr_assert_not_null(root);
    yajl_val inputs = obj_get(obj_get(root, "cost"), "inputs");
    NEAR(YAJL_GET_DOUBLE(obj_get(obj_get(inputs, "gpus"), "value")), 8, 0);
    NEAR(YAJL_GET_DOUBLE(obj_get(obj_get(inputs, "price_per_gpu_hour"), "value")), 3, 0);
    const char *src = YAJL_GET_STRING(obj_get(obj_get(inputs, "price_per_gpu_hour"), "source"));
    cr_expect(strncmp(src, "config:", 7) == 0, "%s", src);
    /* 8 × 3 × 730 × 0.5 */
    NEAR(YAJL_GET_DOUBLE(obj_get(obj_get(root, "cost"), "network_loss_per_month")), 8760, 1e-9);
    yajl_tree_free(root);
    run_free(&r);
    unlink(path);
}

/* No NaN or infinity can escape: extreme but valid inputs still give finite JSON numbers. */
Test(cost, extreme_inputs_stay_finite) {
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    flags(&in, (const char *const[]){"gpus", "10000000", "price-per-gpu-hour", "1000000",
                                     "purchase-per-gpu", "1e13", "months", "600",
                                     "network-efficiency", "1e-300", "fabric-GBps", "1e-300",
                                     "fabric-target-GBps", "1e7", "fabric-upgrade-cost", "0", NULL});
    tc_cost_result r;
    char err[400];
    int rc = tc_cost_compute(&in, NULL, &r, err, sizeof err);
    if (rc != 0) {
        cr_expect(strstr(err, "too large") != NULL, "%s", err);
        return;
    }
    FILE *f = tmpfile();
    jw w;
    jw_init(&w, f, false);
    tc_cost_result_json(&w, &r);
    cr_expect_eq(jw_finish(&w), 0);
    char *text = tu_read_stream(f);
    fclose(f);
    yajl_val root = yajl_tree_parse(text, NULL, 0);
    cr_expect_not_null(root);
    yajl_tree_free(root);
    free(text);
}

/* ---- the inputs' table and the setters -------------------------------------------------------- */

/* Every row of cost_inputs.def reaches its own field, its name is a flag, and its texts fit the
 * --help and inputs-table columns; the option names are exactly the rows plus gpu and config. */
Test(cost_inputs, table_rows_fields_and_option_names) {
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    const char *const *names = tc_cost_option_names();
    for (int id = 0; id < TC_COST_INPUT_COUNT; id++) {
        const tc_cost_input_desc *d = tc_cost_input((tc_cost_input_id)id);
        cr_assert_not_null(d);
        cr_expect_eq((int)d->id, id);
        cr_expect(strlen(d->help) <= 58, "--%s help of %zu characters", d->name, strlen(d->help));
        cr_expect(strlen(d->unit) <= 10, "--%s unit '%s'", d->name, d->unit);
        cr_expect_eq(tc_cost_input_find(d->name), d);
        cr_expect_str_eq(names[id], d->name);
        for (int j = 0; j < id; j++) {
            cr_expect_neq(tc_cost_inputs_value(&in, (tc_cost_input_id)id),
                          tc_cost_inputs_value(&in, (tc_cost_input_id)j), "%s", d->name);
            cr_expect_str_neq(d->name, tc_cost_input((tc_cost_input_id)j)->name);
        }
    }
    cr_expect_str_eq(names[TC_COST_INPUT_COUNT], "gpu");
    cr_expect_str_eq(names[TC_COST_INPUT_COUNT + 1], "config");
    cr_expect_str_eq(names[TC_COST_INPUT_COUNT + 2], "fabric-target");
    cr_expect_null(names[TC_COST_INPUT_COUNT + 3]);
    cr_expect_null(tc_cost_input(TC_COST_INPUT_COUNT));
    cr_expect_null(tc_cost_inputs_value(&in, TC_COST_INPUT_COUNT));
    cr_expect_eq(tc_cost_inputs_value(&in, TC_COST_INPUT_pue), &in.pue);
    cr_expect_eq(tc_cost_inputs_cvalue(&in, TC_COST_INPUT_fabric_GBps), &in.fabric_GBps);
    cr_expect_eq(tc_cost_input_find("Fabric-gbps"), tc_cost_input(TC_COST_INPUT_fabric_GBps));
    cr_expect_str_eq(tc_cost_input(TC_COST_INPUT_price_per_gpu_hour)->key, "price_per_gpu_hour");
    cr_expect_null(tc_cost_input_find("gpu"));
    cr_expect_null(tc_cost_input_find(NULL));
    cr_expect(tc_cost_is_option("CONFIG") && tc_cost_is_option("months") && !tc_cost_is_option("json"));
}

Test(cost_inputs, range_checks_by_kind) {
    char why[200];
    const tc_cost_input_desc *months = tc_cost_input(TC_COST_INPUT_months);
    cr_expect(tc_cost_input_check(months, TC_COST_MAX_MONTHS, why, sizeof why));
    cr_expect(!tc_cost_input_check(months, TC_COST_MAX_MONTHS + 1, why, sizeof why));
    cr_expect_str_eq(why, "must be a whole number of months from 1 to 600; got 601");
    cr_expect(!tc_cost_input_check(months, 1.5, why, sizeof why));
    const tc_cost_input_desc *share = tc_cost_input(TC_COST_INPUT_utilization);
    cr_expect(tc_cost_input_check(share, 1, why, sizeof why));
    cr_expect(!tc_cost_input_check(share, NAN, why, sizeof why));
    cr_expect(!tc_cost_input_check(tc_cost_input(TC_COST_INPUT_power_kw_per_gpu), 1001, why, sizeof why));
    cr_expect_str_eq(why, "must be at most 1,000 kW per GPU; got 1001");
    cr_expect(!tc_cost_input_check(tc_cost_input(TC_COST_INPUT_gpus), 2e7, why, 8));
    cr_expect_str_eq(why, "must be"); /* cut to the buffer, still terminated */
}

/* The model's setters: range checked, precedence kept, the GPU named by id or display name. */
Test(cost_inputs, setters_check_ranges_and_keep_precedence) {
    tc_cost_inputs in;
    tc_cost_inputs_defaults(&in);
    char err[400] = "";
    const tc_cost_input_desc *pue = tc_cost_input(TC_COST_INPUT_pue);
    cr_expect_eq(tc_cost_set_value(&in, pue, 0.5, TC_COST_SRC_FLAG, NULL, err, sizeof err), -1);
    cr_expect_str_eq(err, "--pue must be at least 1 (1.0 = no cooling or power-conversion overhead); "
                          "got 0.5");
    NEAR(in.pue.value, TC_COST_DEFAULT_PUE, 0); /* unchanged */
    cr_expect_eq(tc_cost_set_value(&in, pue, 1.4, TC_COST_SRC_FLAG, NULL, err, sizeof err), 0);
    cr_expect_str_eq(in.pue.origin, "flag");
    cr_expect_eq(tc_cost_set_value(&in, pue, 1.6, TC_COST_SRC_CONFIG, "config:x:1", err, sizeof err), 0);
    NEAR(in.pue.value, 1.4, 0); /* the flag wins */
    cr_expect_eq(in.pue.source, TC_COST_SRC_FLAG);

    cr_expect_eq(tc_cost_set_gpu(&in, "NVIDIA H100 SXM 80GB", TC_COST_SRC_CONFIG, "config:x:2", err,
                                 sizeof err), 0);
    cr_expect_str_eq(in.gpu->id, "h100-sxm");
    cr_expect_eq(tc_cost_set_gpu(&in, "b200", TC_COST_SRC_TRACE, NULL, err, sizeof err), 0);
    cr_expect_str_eq(in.gpu->id, "h100-sxm"); /* config beats trace */
    cr_expect_str_eq(in.gpu_origin, "config:x:2");
    cr_expect_eq(tc_cost_set_gpu(&in, "tpu-v5", TC_COST_SRC_FLAG, NULL, err, sizeof err), -1);
    cr_expect(strncmp(err, "--gpu: unknown GPU 'tpu-v5'; known: h100-pcie, h100-sxm", 55) == 0, "%s", err);
    cr_expect_str_eq(in.gpu->id, "h100-sxm");
}

/* A failed write is exit 4 with the output named, for the table and for JSON on stdout. */
Test(cost_main, full_disk_exits_4) {
    char *out = NULL;
    int rc = tu_sh(&out, "'%s' cost --gpus 8 --network-efficiency 0.6 --price-per-gpu-hour 2 >/dev/full",
                   tu_bin());
    cr_expect_eq(rc, 4, "%s", out);
    cr_expect(strstr(out, "tracecost cost: standard output: write failed") != NULL, "%s", out);
    free(out);
    rc = tu_sh(&out, "'%s' cost --gpus 8 --network-efficiency 0.6 --price-per-gpu-hour 2 --json - "
                     ">/dev/full", tu_bin());
    cr_expect_eq(rc, 4, "%s", out);
    cr_expect(strstr(out, "tracecost cost: standard output: write failed") != NULL, "%s", out);
    free(out);
    rc = tu_sh(&out, "'%s' cost --help >/dev/full", tu_bin());
    cr_expect_eq(rc, 4, "%s", out);
    free(out);
}

/* Issue 31 item 5: a job's missing cost says the model's reason, its hint once, and names the price
 * only when the price is what is missing (an efficiency of 0 is not a missing price). */
Test(cost, missing_text_names_only_its_own_hint) {
    tc_job_cost c;
    memset(&c, 0, sizeof c);
    c.missing = TC_COST_NO_MODEL;
    char buf[TC_COST_NOTE_TEXT];
    snprintf(c.why, sizeof c.why, "the trace spends all its time in exposed communication (network efficiency 0): there "
             "is no useful work to price; pass --network-efficiency to override");
    tc_cost_missing_text(buf, sizeof buf, &c);
    cr_expect(strstr(buf, "network efficiency 0"), "%s", buf);
    cr_expect_null(strstr(buf, "--price-per-gpu-hour"), "an efficiency of 0 read as a missing price: %s", buf);
    snprintf(c.why, sizeof c.why, "--price-per-gpu-hour is required (rent in $ per GPU-hour), or pass --gpu NAME for "
             "the catalog's dated default (tracecost gpus lists them)");
    tc_cost_missing_text(buf, sizeof buf, &c);
    const char *first = strstr(buf, "--gpu NAME");
    cr_assert_not_null(first, "%s", buf);
    cr_expect_null(strstr(first + 1, "--gpu NAME"), "the hint said twice: %s", buf);
    cr_expect_null(strstr(strstr(buf, "--price-per-gpu-hour") + 1, "--price-per-gpu-hour"), "%s", buf);
}
