/* test_comm_model.c: the per-group collective time model (issue 29 item 3, analyzer/comm_model.h) on
 * planted instances: least squares over sizes recovers a planted alpha and beta; one size takes beta
 * from the link rating (the GPU's inside a node, the fabric between nodes) and alpha the rest; the
 * degenerate fits fall back (negative alpha, a slope of zero, a rating below what was moved, no
 * rating); the projection to a changed model; and process_groups[].model in the JSON of a
 * generated two-node job. */
#include "testutil.h"
#include "analyzer/comm_model.h"
#include "model/link_catalog.h"
#include <math.h>

#define MAX_INST 64

/* A job with one matching group (no process group) of scope sc and the planted instances: bytes[k]
 * with bus factor f, transfer[k] ns. */
static void plant(tc_job *j, tc_group_scope sc, const int64_t *bytes, const int64_t *transfer, size_t n, double f) {
    tc_job_init(j);
    j->inst_groups = calloc(1, sizeof *j->inst_groups);
    j->instances = calloc(MAX_INST, sizeof *j->instances);
    cr_assert(j->inst_groups && j->instances && n <= MAX_INST);
    j->n_inst_groups = j->cap_inst_groups = 1;
    j->inst_groups[0].pg = SIZE_MAX;
    j->inst_groups[0].scope = sc;
    for (size_t k = 0; k < n; k++) {
        tc_coll_instance *in = &j->instances[k];
        in->group = 0;
        in->bytes = bytes[k];
        in->bus_factor = f;
        in->transfer_ns = transfer[k];
    }
    j->n_instances = j->cap_instances = n;
}

static void set_fabric(tc_job *j, const char *id) {
    const tc_link_spec *l = tc_link_find(id);
    cr_assert(l);
    j->summary.has_fabric = true;
    j->summary.fabric.id = l->id;
    j->summary.fabric.rated_GBps = l->rated_GBps;
}

/* transfer = alpha + S·f/beta, ns (S·f bytes / GB/s = ns), rounded to the ns as a trace holds it. */
static int64_t planted(double alpha_us, double beta_GBps, int64_t bytes, double f) {
    return (int64_t)llround(alpha_us * 1e3 + (double)bytes * f / beta_GBps);
}

Test(comm_model, sizes_recover_alpha_and_beta) {
    static const int64_t sizes[] = {1 << 20, 4 << 20, 16 << 20, 64 << 20, 1 << 20, 16 << 20};
    int64_t t[6];
    for (size_t k = 0; k < 6; k++) t[k] = planted(35, 21.5, sizes[k], 1.75);
    tc_job j;
    plant(&j, TC_SCOPE_INTER, sizes, t, 6, 1.75);
    set_fabric(&j, "eth-100g"); /* a rating is there, but two sizes win */
    cr_assert_eq(tc_comm_model_fit(&j), 0);
    const tc_coll_model *m = &j.inst_groups[0].model;
    cr_expect_eq(m->fit, TC_FIT_SIZES);
    cr_expect_eq(m->instances, 6);
    cr_expect(fabs(m->alpha_us - 35) < 0.01, "alpha %.6f, planted 35", m->alpha_us);
    cr_expect(fabs(m->beta_GBps - 21.5) < 1e-4, "beta %.6f, planted 21.5", m->beta_GBps);
    tc_job_free(&j);
}

Test(comm_model, one_size_takes_the_rating) {
    static const int64_t sizes[] = {25 << 20, 25 << 20, 25 << 20};
    const int64_t t[] = {planted(60, 12.5, sizes[0], 2 * 7.0 / 8), planted(64, 12.5, sizes[0], 2 * 7.0 / 8),
                         planted(56, 12.5, sizes[0], 2 * 7.0 / 8)};
    tc_job j;
    plant(&j, TC_SCOPE_INTER, sizes, t, 3, 2 * 7.0 / 8);
    set_fabric(&j, "eth-100g");
    cr_assert_eq(tc_comm_model_fit(&j), 0);
    const tc_coll_model *m = &j.inst_groups[0].model;
    cr_expect_eq(m->fit, TC_FIT_RATED);
    cr_expect_eq(m->beta_GBps, 12.5);
    cr_expect(fabs(m->alpha_us - 60) < 0.01, "alpha %.6f, planted mean 60", m->alpha_us);
    tc_job_free(&j);
    /* inside a node: the GPU's link (an H100's NVLink 4, 450 GB/s) */
    static const int64_t small[] = {8 << 20, 8 << 20};
    const int64_t ts[] = {planted(20, 450, small[0], 1.5), planted(20, 450, small[0], 1.5)};
    plant(&j, TC_SCOPE_INTRA, small, ts, 2, 1.5);
    j.ranks = calloc(1, sizeof *j.ranks);
    j.n_ranks = 1;
    j.ranks[0].gpu = tc_gpu_find_by_id("h100-sxm");
    cr_assert(j.ranks[0].gpu);
    cr_assert_eq(tc_comm_model_fit(&j), 0);
    m = &j.inst_groups[0].model;
    cr_expect_eq(m->fit, TC_FIT_RATED);
    cr_expect_eq(m->beta_GBps, 450);
    cr_expect(fabs(m->alpha_us - 20) < 0.01);
    tc_job_free(&j);
}

Test(comm_model, degenerate_fits_fall_back) {
    /* bigger messages faster (a slope below zero): not a link; the rating then */
    static const int64_t sizes[] = {1 << 20, 64 << 20};
    const int64_t down[] = {4000000, 3000000};
    tc_job j;
    plant(&j, TC_SCOPE_INTER, sizes, down, 2, 1);
    set_fabric(&j, "eth-100g");
    cr_assert_eq(tc_comm_model_fit(&j), 0);
    cr_expect_eq(j.inst_groups[0].model.fit, TC_FIT_RATED);
    cr_expect(j.inst_groups[0].model.alpha_us >= 0);
    tc_job_free(&j);
    /* a negative intercept (the small message far faster than the line through the big ones) and a
     * rating below what the group moved (12.5 rated, 50 moved): alpha 0 and the measured beta */
    const int64_t neg[] = {planted(0, 50, sizes[0], 1) / 4, planted(0, 50, sizes[1], 1)};
    plant(&j, TC_SCOPE_INTER, sizes, neg, 2, 1);
    set_fabric(&j, "eth-100g");
    cr_assert_eq(tc_comm_model_fit(&j), 0);
    const tc_coll_model *m = &j.inst_groups[0].model;
    cr_expect_eq(m->fit, TC_FIT_MEASURED);
    cr_expect_eq(m->alpha_us, 0);
    double want = (double)(sizes[0] + sizes[1]) / (double)(neg[0] + neg[1]);
    cr_expect(fabs(m->beta_GBps - want) < 1e-9 * want, "beta %.9f, the measured %.9f", m->beta_GBps, want);
    tc_job_free(&j);
    /* one size and no rating (no --fabric between nodes): the measured beta */
    static const int64_t one[] = {25 << 20};
    const int64_t t1[] = {planted(0, 20, one[0], 1)};
    plant(&j, TC_SCOPE_INTER, one, t1, 1, 1);
    cr_assert_eq(tc_comm_model_fit(&j), 0);
    cr_expect_eq(j.inst_groups[0].model.fit, TC_FIT_MEASURED);
    cr_expect(fabs(j.inst_groups[0].model.beta_GBps - 20) < 1e-6);
    tc_job_free(&j);
    /* no instance of known bytes: no model */
    static const int64_t unknown[] = {-1};
    plant(&j, TC_SCOPE_INTER, unknown, t1, 1, 1);
    cr_assert_eq(tc_comm_model_fit(&j), 0);
    cr_expect_eq(j.inst_groups[0].model.fit, TC_FIT_NONE);
    tc_job_free(&j);
}

Test(comm_model, project_changes_alpha_and_beta) {
    tc_coll_instance in = {.bytes = 25 << 20, .bus_factor = 1.75, .transfer_ns = 0};
    const tc_coll_model was = {TC_FIT_RATED, 60, 12.5, 3}, now = {TC_FIT_RATED, 10, 50, 3};
    in.transfer_ns = planted(60, 12.5, in.bytes, in.bus_factor);
    int64_t want = planted(10, 50, in.bytes, in.bus_factor);
    cr_expect(llabs(tc_comm_model_project(&in, &was, &now) - want) <= 1, "%lld, want %lld",
              (long long)tc_comm_model_project(&in, &was, &now), (long long)want);
    cr_expect_eq(tc_comm_model_project(&in, &was, &was), in.transfer_ns, "an unchanged model keeps the measured");
    /* a downgrade lengthens it; a latency cut below the measured ends at 0, never below */
    cr_expect_gt(tc_comm_model_project(&in, &now, &was), in.transfer_ns);
    const tc_coll_model huge = {TC_FIT_RATED, 1e6, 12.5, 3};
    cr_expect_eq(tc_comm_model_project(&in, &huge, &was), 0);
    /* unknown bytes: the alpha difference only */
    tc_coll_instance nb = {.bytes = -1, .bus_factor = 0, .transfer_ns = 100000};
    cr_expect_eq(tc_comm_model_project(&nb, &was, &now), 100000 - 50000);
}

/* process_groups[].model of a two-node TP + DP job: the DP groups on eth-100g at 12.5 GB/s (one
 * bucket size: rated, alpha 0 as planted), TP on NVLink 4; null without a matched instance. */
Test(comm_model, json_model_per_group, .timeout = 120) {
    char *dir = tu_tmpdir();
    tu_gen_job(dir, "job", "--ranks 8 --tp 4 --gpus-per-node 4 --dp-busbw-GBps 12.5");
    char json[600];
    snprintf(json, sizeof json, "%s/job.json", dir);
    cr_assert_eq(tu_sh(NULL, "%s analyze --gpus-per-node 4 --fabric eth-100g --json %s %s/job/", tu_bin(), json, dir), 0);
    yajl_val doc = tu_json_file(json);
    yajl_val groups = tu_get(doc, "process_groups", NULL);
    cr_assert(groups && YAJL_IS_ARRAY(groups));
    size_t dp = 0, tp = 0;
    for (size_t i = 0; i < groups->u.array.len; i++) {
        yajl_val g = groups->u.array.values[i], m = tu_get(g, "model", NULL);
        const char *desc = tu_str(tu_get(g, "desc", NULL));
        if (desc && !strcmp(desc, "DP")) {
            cr_assert(m && YAJL_IS_OBJECT(m));
            cr_expect_str_eq(tu_str(tu_get(m, "fit", NULL)), "rated");
            cr_expect_eq(tu_num(tu_get(m, "beta_GBps", NULL)), 12.5);
            cr_expect(fabs(tu_num(tu_get(m, "alpha_us", NULL))) < 0.01, "alpha %g, planted 0",
                      tu_num(tu_get(m, "alpha_us", NULL)));
            dp++;
        } else if (desc && !strcmp(desc, "TP")) {
            cr_assert(m && YAJL_IS_OBJECT(m));
            cr_expect_eq(tu_num(tu_get(m, "beta_GBps", NULL)), 450);
            tp++;
        }
    }
    cr_expect_eq(dp, 4);
    cr_expect_eq(tp, 2);
    yajl_tree_free(doc);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}
