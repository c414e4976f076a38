/* compare.c: the comparison of `tracecost compare` (see compare.h): a run's cost, and the
 * comparison of two runs in steps (figures, costs, workload check, the cheaper side and why). */
#include "compare.h"
#include "job_cost.h"
#include "base/jsontext.h"
#include "base/util.h"
#include "base/version.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the cost of a run ------------------------------------------------------------------- */

/* Its verdict is too-small (a saved result's verdict is the string its JSON gave). */
static bool is_too_small(const tc_run_summary *s) {
    return tc_verdict_of_name(s->verdict) == TC_VERDICT_TOO_SMALL;
}

tc_status tc_run_cost(tc_cmp_cost *out, const tc_run_summary *s, tc_cost_inputs *in, bool flags_given,
                      tc_error *e) {
    memset(out, 0, sizeof *out);
    if (is_too_small(s)) {
        out->too_small = true;
        tc_format(out->why_not, sizeof out->why_not, "the run is too small to judge (see its verdict), so it is not priced");
        return TC_OK;
    }
    out->cost = malloc(sizeof *out->cost);
    if (!out->cost) return tc_error_set(e, TC_ERR_NOMEM, "out of memory");
    tc_error why;
    tc_error_clear(&why);
    tc_status st = tc_run_price(s, in, out->cost, &why);
    if (st == TC_OK) {
        out->has_cost = true;
        return TC_OK;
    }
    free(out->cost);
    out->cost = NULL;
    if (st != TC_ERR_INPUT) return tc_error_set(e, st, "%s: %s", s->label, why.msg);
    tc_format(out->why_not, sizeof out->why_not, "%s", why.msg);
    if (flags_given) return tc_error_set(e, TC_ERR_USAGE, "%s: %s", s->label, out->why_not);
    return TC_OK;
}

void tc_cmp_cost_free(tc_cmp_cost *c) {
    free(c->cost);
    memset(c, 0, sizeof *c);
}

/* ---- the comparison ---------------------------------------------------------------------- */

static tc_cmp_pair pair(bool ha, double a, bool hb, double b) {
    tc_cmp_pair p;
    memset(&p, 0, sizeof p);
    /* no figure, difference or ratio is inf or NaN (a saved result is checked, but a ratio of two
     * figures in range can still pass any double): a side that is not finite is unknown */
    p.has_a = ha && isfinite(a); p.a = p.has_a ? a : 0;
    p.has_b = hb && isfinite(b); p.b = p.has_b ? b : 0;
    p.has_diff = p.has_a && p.has_b && isfinite(b - a);
    p.diff = p.has_diff ? b - a : 0;
    p.has_ratio = p.has_diff && a != 0 && isfinite(b / a);
    p.ratio = p.has_ratio ? b / a : 0;
    return p;
}

static void add_diff(tc_comparison *c, tc_cmp_diff_kind kind, const tc_cmp_coll *coll) {
    if (c->n_differences >= TC_CMP_MAX_DIFFS) return;
    c->differences[c->n_differences].kind = kind;
    c->differences[c->n_differences++].coll = coll;
}

/* Step times, throughput, MFU, the shares of GPU time and the fabric bandwidth, side by side. */
static void compare_figures(tc_comparison *c) {
    const tc_run_summary *a = c->a, *b = c->b;
    c->gpus = pair(true, a->world_size, true, b->world_size);
    c->step_time_us = pair(a->has_step_time, a->step_time_us, b->has_step_time, b->step_time_us);
    double sa = a->step_time_us / 1e6, sb = b->step_time_us / 1e6; /* step seconds */
    c->steps_per_s = pair(a->has_step_time, 1 / sa, b->has_step_time, 1 / sb);
    c->gpu_s_per_step = pair(a->has_step_time, a->world_size * sa, b->has_step_time, b->world_size * sb);
    c->tflops_per_gpu = pair(a->has_step_time && a->has_flops, a->flops_per_step / sa / 1e12,
                             b->has_step_time && b->has_flops, b->flops_per_step / sb / 1e12);
    c->mfu = pair(a->has_mfu, a->mfu, b->has_mfu, b->mfu);
    c->share_compute = pair(true, a->share_compute, true, b->share_compute);
    c->share_exposed_comm = pair(true, a->share_exposed_comm, true, b->share_exposed_comm);
    c->share_exposed_transfer = pair(a->split_known, a->share_exposed_transfer, b->split_known, b->share_exposed_transfer);
    c->share_exposed_wait = pair(a->split_known, a->share_exposed_wait, b->split_known, b->share_exposed_wait);
    c->share_memory = pair(true, a->share_memory, true, b->share_memory);
    c->share_idle = pair(true, a->share_idle, true, b->share_idle);
    c->busbw_GBps = pair(a->has_busbw, a->fabric_busbw_GBps, b->has_busbw, b->fabric_busbw_GBps);
    c->model_pflop_per_step = pair(a->has_flops, a->flops_per_step * a->world_size / 1e15, b->has_flops,
                                   b->flops_per_step * b->world_size / 1e15);
    c->tokens_per_step = pair(a->has_tokens, a->tokens_per_step, b->has_tokens, b->tokens_per_step);
    c->samples_per_step = pair(a->has_samples, a->samples_per_step, b->has_samples, b->samples_per_step);
}

/* x / w per side where both are known and w > 0. */
static tc_cmp_pair per_work(const tc_cmp_pair *x, const tc_cmp_pair *w, double scale) {
    bool ha = x->has_a && w->has_a && w->a > 0, hb = x->has_b && w->has_b && w->b > 0;
    return pair(ha, ha ? x->a / (w->a / scale) : 0, hb, hb ? x->b / (w->b / scale) : 0);
}

/* Prices, cost per step and per effective GPU-hour, and the monthly difference at volume W (the
 * steps A runs in a month at its utilization unless given). */
static void compare_costs(tc_comparison *c, double work_steps_per_month) {
    const tc_run_summary *a = c->a, *b = c->b;
    const tc_cost_result *ra = c->cost_a->has_cost ? c->cost_a->cost : NULL;
    const tc_cost_result *rb = c->cost_b->has_cost ? c->cost_b->cost : NULL;
    double sa = a->step_time_us / 1e6, sb = b->step_time_us / 1e6;
    double pa = ra ? ra->used.price_per_gpu_hour.value : 0, pb = rb ? rb->used.price_per_gpu_hour.value : 0;
    double na = ra ? ra->used.gpus.value : a->world_size, nb = rb ? rb->used.gpus.value : b->world_size;
    bool ha = ra != NULL, hb = rb != NULL;
    c->price_per_gpu_hour = pair(ha, pa, hb, pb);
    c->cost_per_step = pair(ha && a->has_step_time, pa * na * sa / 3600, hb && b->has_step_time, pb * nb * sb / 3600);
    c->cost_per_effective_gpu_hour = pair(ha, ha ? ra->effective_price_per_gpu_hour : 0,
                                          hb, hb ? rb->effective_price_per_gpu_hour : 0);
    c->cost_per_pflop = per_work(&c->cost_per_step, &c->model_pflop_per_step, 1);
    c->cost_per_mtokens = per_work(&c->cost_per_step, &c->tokens_per_step, 1e6);
    c->cost_per_ksamples = per_work(&c->cost_per_step, &c->samples_per_step, 1e3);
    if (work_steps_per_month > 0) {
        c->work_steps_per_month = work_steps_per_month;
        c->work_from_flag = true;
    } else if (a->has_step_time) {
        double u = ra ? ra->used.utilization.value : 1.0;
        c->work_steps_per_month = TC_COST_HOURS_PER_MONTH * 3600.0 * u / sa;
    }
}

/* The unit of work: tokens, then samples, when given for both; a step when the runs are the same
 * workload; a PFLOP of model FLOPs when both know them; else none. Fills the per-unit pairs and
 * the monthly difference (B doing the work A does in W steps). */
static void choose_unit(tc_comparison *c) {
    const tc_cmp_pair one = pair(true, 1, true, 1);
    const tc_cmp_pair *w = NULL;
    double scale = 1;
    if (c->tokens_per_step.has_diff) { c->unit = TC_CMP_UNIT_MTOKENS; w = &c->tokens_per_step; scale = 1e6; }
    else if (c->samples_per_step.has_diff) { c->unit = TC_CMP_UNIT_KSAMPLES; w = &c->samples_per_step; scale = 1e3; }
    else if (c->same_workload) { c->unit = TC_CMP_UNIT_STEP; w = &one; }
    else if (c->model_pflop_per_step.has_diff && c->model_pflop_per_step.a > 0 && c->model_pflop_per_step.b > 0) {
        c->unit = TC_CMP_UNIT_PFLOP;
        w = &c->model_pflop_per_step;
    } else { c->unit = TC_CMP_UNIT_NONE; return; }
    c->work_per_step = pair(true, w->a / scale, true, w->b / scale);
    if (c->unit != TC_CMP_UNIT_STEP && w->a > 0 && w->b > 0) {
        c->has_work_ratio = true;
        c->work_ratio = fmax(w->a, w->b) / fmin(w->a, w->b);
        c->work_apart = c->work_ratio > TC_CMP_WORK_APART;
    }
    c->gpu_s_per_unit = per_work(&c->gpu_s_per_step, &c->work_per_step, 1);
    c->cost_per_unit = per_work(&c->cost_per_step, &c->work_per_step, 1);
    c->has_monthly_diff = c->cost_per_unit.has_diff && c->work_steps_per_month > 0;
    c->monthly_diff = c->has_monthly_diff ? c->work_steps_per_month * c->work_per_step.a * c->cost_per_unit.diff : 0;
}

static bool same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* The unused row of b->colls that x matches: same name and bytes, the same process group
 * preferred; b->n_colls when none does. */
static size_t find_match(const tc_run_summary *b, const bool *used, const tc_cmp_coll *x) {
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; k < b->n_colls; k++) {
            const tc_cmp_coll *y = &b->colls[k];
            if (used[k] || strcmp(x->name, y->name) || x->bytes != y->bytes) continue;
            if (pass == 0 && !same_str(x->process_group, y->process_group)) continue;
            return k;
        }
    return b->n_colls;
}

/* One collectives row: x of A against y of B, either NULL when the row is on one side only. */
static void coll_row(tc_comparison *c, const tc_cmp_coll *x, const tc_cmp_coll *y) {
    tc_cmp_coll_row *r = &c->colls[c->n_colls++];
    r->a = x;
    r->b = y;
    r->transfer_us = pair(x != NULL, x ? x->transfer_us_median : 0, y != NULL, y ? y->transfer_us_median : 0);
    r->busbw_GBps = pair(x && x->has_busbw, x ? x->busbw_GBps : 0, y && y->has_busbw, y ? y->busbw_GBps : 0);
    if (!y) { r->change = TC_CMP_ONLY_IN_A; add_diff(c, TC_CMP_DIFF_COLL_ONLY_IN_A, x); return; }
    if (!x) { r->change = TC_CMP_ONLY_IN_B; add_diff(c, TC_CMP_DIFF_COLL_ONLY_IN_B, y); return; }
    double t = r->transfer_us.has_ratio ? r->transfer_us.ratio : 1;
    r->change = t > 1 + TC_CMP_COLL_TOLERANCE ? TC_CMP_SLOWER : t < 1 - TC_CMP_COLL_TOLERANCE ? TC_CMP_FASTER : TC_CMP_SAME;
}

/* Matches A's collectives with B's (A's order, then B's unmatched rows). */
static tc_status match_colls(tc_comparison *c) {
    const tc_run_summary *a = c->a, *b = c->b;
    if (!a->n_colls && !b->n_colls) return TC_OK;
    c->colls = calloc(a->n_colls + b->n_colls, sizeof *c->colls);
    bool *used = calloc(b->n_colls + 1, sizeof *used);
    if (!c->colls || !used) { free(used); return TC_ERR_NOMEM; }
    for (size_t i = 0; i < a->n_colls; i++) {
        size_t k = find_match(b, used, &a->colls[i]);
        if (k < b->n_colls) used[k] = true;
        coll_row(c, &a->colls[i], k < b->n_colls ? &b->colls[k] : NULL);
    }
    for (size_t k = 0; k < b->n_colls; k++)
        if (!used[k]) coll_row(c, NULL, &b->colls[k]);
    free(used);
    return TC_OK;
}

/* ---- per rank and per kernel ---- */

static tc_cmp_change change_of(const tc_cmp_pair *p) {
    if (!p->has_a) return TC_CMP_ONLY_IN_B;
    if (!p->has_b) return TC_CMP_ONLY_IN_A;
    double t = p->has_ratio ? p->ratio : 1;
    return t > 1 + TC_CMP_COLL_TOLERANCE ? TC_CMP_SLOWER : t < 1 - TC_CMP_COLL_TOLERANCE ? TC_CMP_FASTER : TC_CMP_SAME;
}

static double part(double x, double window) { return window > 0 ? x / window : 0; }

/* The ranks of both runs by rank number: A's in order, then B's that A lacks. */
static tc_status match_ranks(tc_comparison *c) {
    const tc_run_summary *a = c->a, *b = c->b;
    if (!a->n_ranks && !b->n_ranks) return TC_OK;
    if (!(c->ranks = calloc(a->n_ranks + b->n_ranks, sizeof *c->ranks))) return TC_ERR_NOMEM;
    for (size_t side = 0; side < 2; side++)
        for (size_t i = 0; i < (side ? b->n_ranks : a->n_ranks); i++) {
            const tc_cmp_rank *x = side ? &b->ranks[i] : &a->ranks[i], *y = NULL;
            const tc_run_summary *other = side ? a : b;
            for (size_t k = 0; k < other->n_ranks && !y; k++) if (other->ranks[k].rank == x->rank) y = &other->ranks[k];
            if (side && y) continue; /* matched from A's side already */
            const tc_cmp_rank *ra = side ? y : x, *rb = side ? x : y;
            tc_cmp_rank_row *r = &c->ranks[c->n_ranks++];
            r->rank = x->rank;
            r->a = ra;
            r->b = rb;
#define RANK_SHARE(f) pair(ra != NULL, ra ? part(ra->f, ra->window_us) : 0, rb != NULL, rb ? part(rb->f, rb->window_us) : 0)
            r->share_compute = RANK_SHARE(compute_us);
            r->share_exposed_comm = RANK_SHARE(exposed_comm_us);
            r->share_idle = RANK_SHARE(idle_us);
#undef RANK_SHARE
            r->step_time_us = pair(ra && ra->has_step_time, ra ? ra->step_time_us : 0, rb && rb->has_step_time,
                                   rb ? rb->step_time_us : 0);
            r->change = !ra ? TC_CMP_ONLY_IN_B : !rb ? TC_CMP_ONLY_IN_A /* a rank of both runs, with or without a step time */
                      : r->step_time_us.has_a && r->step_time_us.has_b ? change_of(&r->step_time_us) : TC_CMP_NO_STEP_TIME;
        }
    return TC_OK;
}

/* A kernel's time per GPU per step of its run (summed time / (steps x ranks)); false without steps. */
static bool per_gpu_step(const tc_run_summary *s, const tc_cmp_kernel *k, double *out) {
    if (!k || !s->steps || !s->n_ranks) return false;
    *out = k->time_us / ((double)s->steps * (double)s->n_ranks);
    return true;
}

/* The top compute kernels of both runs by name: A's in order, then B's that A lacks. */
static tc_status match_kernels(tc_comparison *c) {
    const tc_run_summary *a = c->a, *b = c->b;
    if (!a->n_kernels && !b->n_kernels) return TC_OK;
    if (!(c->kernels = calloc(a->n_kernels + b->n_kernels, sizeof *c->kernels))) return TC_ERR_NOMEM;
    for (size_t side = 0; side < 2; side++)
        for (size_t i = 0; i < (side ? b->n_kernels : a->n_kernels); i++) {
            const tc_cmp_kernel *x = side ? &b->kernels[i] : &a->kernels[i], *y = NULL;
            const tc_run_summary *other = side ? a : b;
            for (size_t k = 0; k < other->n_kernels && !y; k++) if (!strcmp(other->kernels[k].name, x->name)) y = &other->kernels[k];
            if (side && y) continue;
            const tc_cmp_kernel *ka = side ? y : x, *kb = side ? x : y;
            tc_cmp_kernel_row *r = &c->kernels[c->n_kernels++];
            r->a = ka;
            r->b = kb;
            r->share_of_compute = pair(ka && ka->has_share, ka ? ka->share_of_compute : 0, kb && kb->has_share,
                                       kb ? kb->share_of_compute : 0);
            double ta = 0, tb = 0;
            bool ha = per_gpu_step(a, ka, &ta), hb = per_gpu_step(b, kb, &tb);
            r->time_us_per_gpu_step = pair(ha, ta, hb, tb);
            r->change = ka && kb ? (ha && hb ? change_of(&r->time_us_per_gpu_step) : TC_CMP_SAME)
                                 : ka ? TC_CMP_ONLY_IN_A : TC_CMP_ONLY_IN_B;
        }
    return TC_OK;
}

/* The workload check: job sizes, FLOPs per step and the collectives (matched here). */
static tc_status check_workload(tc_comparison *c) {
    const tc_run_summary *a = c->a, *b = c->b;
    if (a->world_size != b->world_size) add_diff(c, TC_CMP_DIFF_GPUS, NULL);
    if (a->has_flops && b->has_flops) {
        double hi = fmax(a->flops_per_step, b->flops_per_step);
        if (hi > 0 && fabs(a->flops_per_step - b->flops_per_step) / hi > TC_CMP_FLOPS_TOLERANCE)
            add_diff(c, TC_CMP_DIFF_FLOPS, NULL);
    }
    if (match_colls(c)) return TC_ERR_NOMEM;
    c->same_workload = c->n_differences == 0;
    return TC_OK;
}

/* The GPU-time category with the largest saving (GPU-seconds per unit of work) on the cheaper side x
 * ('A' or 'B'); -1 when none saves anything. cats: the categories' shares on A and B. */
static int largest_saving(const tc_comparison *c, const double cats[][2], int n, char x) {
    double best = 0;
    int bi = -1;
    for (int k = 0; k < n; k++) {
        double ta = cats[k][0] * c->gpu_s_per_unit.a, tb = cats[k][1] * c->gpu_s_per_unit.b;
        double saving = x == 'B' ? ta - tb : tb - ta;
        if (saving > best) { best = saving; bi = k; }
    }
    return bi;
}

/* What drives the cheaper side's lead: the price ratio, the GPU count, or the GPU-time category
 * with the largest saving. Sets reason, reason_x and reason_y. */
static void find_reason(tc_comparison *c) {
    char x = c->cheaper;
    const tc_run_summary *a = c->a, *b = c->b, *cx = x == 'A' ? a : b, *cy = x == 'A' ? b : a;
    double pa = c->price_per_gpu_hour.a, pb = c->price_per_gpu_hour.b;
    double price_r = c->by_cost && pa > 0 && pb > 0 ? fabs(log(pb / pa)) : 0;
    double time_r = fabs(log(c->gpu_s_per_unit.b / c->gpu_s_per_unit.a));
    if (price_r > time_r) {
        c->reason = TC_CMP_REASON_GPU_PRICE;
        c->reason_x = x == 'A' ? pa : pb;
        c->reason_y = x == 'A' ? pb : pa;
        return;
    }
    bool split = a->split_known && b->split_known;
    const tc_cmp_reason keys[5] = {split ? TC_CMP_REASON_EXPOSED_TRANSFER : TC_CMP_REASON_EXPOSED_COMM,
                                   TC_CMP_REASON_EXPOSED_WAIT, TC_CMP_REASON_MEMORY, TC_CMP_REASON_IDLE,
                                   TC_CMP_REASON_COMPUTE_TIME};
    const double cats[5][2] = {
        {split ? a->share_exposed_transfer : a->share_exposed_comm, split ? b->share_exposed_transfer : b->share_exposed_comm},
        {a->share_exposed_wait, b->share_exposed_wait},
        {a->share_memory, b->share_memory},
        {a->share_idle, b->share_idle},
        {a->share_compute, b->share_compute},
    };
    int bi = largest_saving(c, cats, 5, x);
    double nx = cx->world_size, ny = cy->world_size;
    double ux = x == 'A' ? c->gpu_s_per_unit.a : c->gpu_s_per_unit.b, uy = x == 'A' ? c->gpu_s_per_unit.b : c->gpu_s_per_unit.a;
    if (c->unit == TC_CMP_UNIT_STEP && nx != ny && fabs(log(nx / ny)) >= time_r * 0.5 && (bi < 0 || bi == 4)) {
        c->reason = TC_CMP_REASON_GPU_COUNT;
        c->reason_x = nx;
        c->reason_y = ny;
    } else if (bi == 4 && c->unit == TC_CMP_UNIT_STEP) {
        c->reason = TC_CMP_REASON_COMPUTE_TIME;
        c->reason_x = cx->share_compute * cx->step_time_us / 1e3;
        c->reason_y = cy->share_compute * cy->step_time_us / 1e3;
    } else if (bi == 4 && c->unit == TC_CMP_UNIT_PFLOP) {
        c->reason = TC_CMP_REASON_TFLOPS;
        c->reason_x = x == 'A' ? c->tflops_per_gpu.a : c->tflops_per_gpu.b;
        c->reason_y = x == 'A' ? c->tflops_per_gpu.b : c->tflops_per_gpu.a;
    } else if (bi == 4) {
        c->reason = TC_CMP_REASON_COMPUTE_PER_UNIT;
        c->reason_x = cx->share_compute * ux;
        c->reason_y = cy->share_compute * uy;
    } else if (bi >= 0) {
        c->reason = keys[bi];
        c->reason_x = cats[bi][x == 'A' ? 0 : 1];
        c->reason_y = cats[bi][x == 'A' ? 1 : 0];
    } else {
        c->reason = TC_CMP_REASON_STEP_TIME;
        c->reason_x = cx->step_time_us / 1e3;
        c->reason_y = cy->step_time_us / 1e3;
    }
}

/* The cheaper side, per unit of work: by cost when both prices are known, else by GPU-seconds. */
static void decide_cheaper(tc_comparison *c) {
    c->cheaper = '?';
    double xa = 0, xb = 0;
    c->missing_step_time = !c->a->has_step_time || !c->b->has_step_time;
    c->too_small_a = is_too_small(c->a);
    c->too_small_b = is_too_small(c->b);
    if (c->unit == TC_CMP_UNIT_NONE || c->too_small_a || c->too_small_b) return;
    if (c->cost_per_unit.has_diff) { c->by_cost = true; xa = c->cost_per_unit.a; xb = c->cost_per_unit.b; }
    else if (c->gpu_s_per_unit.has_diff) { xa = c->gpu_s_per_unit.a; xb = c->gpu_s_per_unit.b; }
    if (xa <= 0 || xb <= 0) return;
    double hi = fmax(xa, xb), lo = fmin(xa, xb);
    c->cheaper_pct = (hi - lo) / hi * 100;
    c->cheaper_ratio = hi / lo;
    if (c->cheaper_pct < TC_CMP_SAME_COST_PCT) { c->cheaper = '='; return; }
    c->cheaper = xb < xa ? 'B' : 'A';
    find_reason(c);
}

tc_status tc_compare(tc_comparison *c, const tc_run_summary *a, const tc_cmp_cost *cost_a,
                     const tc_run_summary *b, const tc_cmp_cost *cost_b, double work_steps_per_month) {
    memset(c, 0, sizeof *c);
    c->a = a;
    c->b = b;
    c->cost_a = cost_a;
    c->cost_b = cost_b;
    compare_figures(c);
    compare_costs(c, work_steps_per_month);
    if (check_workload(c) || match_ranks(c) || match_kernels(c)) return TC_ERR_NOMEM;
    choose_unit(c);
    decide_cheaper(c);
    return TC_OK;
}

void tc_comparison_free(tc_comparison *c) {
    free(c->ranks);
    free(c->kernels);
    c->ranks = NULL;
    c->kernels = NULL;
    c->n_ranks = c->n_kernels = 0;
    free(c->colls);
    c->colls = NULL;
    c->n_colls = 0;
}
