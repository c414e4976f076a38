/* comm_model.c: each matching group's collective time model, transfer = alpha + bytes·f/beta (see
 * comm_model.h; docs/definitions.md "Collective time model"). The fit works on x = bytes·f (bytes)
 * and y = the instance's measured transfer (µs) over the group's instances of known bytes:
 *   sizes: two or more distinct x: least squares y = alpha + x/beta; taken when both come out
 *          positive (a negative alpha or a slope of zero or less is not a link: fall back);
 *   rated: beta = the group's link rating (intra-node: the GPU's link; inter-node: --fabric /
 *          --nic-gbps), alpha = the mean of y − x/beta, taken when that is not negative (else the
 *          rating is below what the group moved: fall back);
 *   measured: alpha = 0, beta = Σx / Σy, the group's own bus bandwidth (no rating, or both above
 *          failed).
 * And the transfer an instance takes when its group's model changes (the fabric what-if). */
#include "comm_model.h"
#include "model/link_catalog.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The link rating of matching group ig, GB/s; 0 when unknown: its process group's link (groups.c
 * set it: the GPU's link inside a node, the named fabric between nodes), else by its scope. */
static double group_rating(const tc_job *j, const tc_inst_group *ig, const tc_gpu_spec *gpu) {
    if (ig->pg < j->n_groups) {
        const tc_group_link *l = &j->groups[ig->pg].f.link;
        if (l->id && l->rated_GBps > 0 && j->groups[ig->pg].f.scope == ig->scope) return l->rated_GBps;
    }
    if (ig->scope == TC_SCOPE_INTER) return j->summary.has_fabric ? j->summary.fabric.rated_GBps : 0;
    if (ig->scope == TC_SCOPE_INTRA) {
        const tc_link_spec *s = tc_link_of_gpu(gpu);
        return s ? s->rated_GBps : 0;
    }
    return 0;
}

/* Sums of one group's points. */
typedef struct {
    size_t n;
    double sx, sy, sxx, sxy;
    double x0;          /* the first x seen */
    bool distinct;      /* some x differs from x0 by more than a byte */
} fit_sums;

static void add_point(fit_sums *s, double x, double y) {
    if (s->n == 0) s->x0 = x;
    else if (fabs(x - s->x0) > 1) s->distinct = true;
    s->n++;
    s->sx += x;
    s->sy += y;
    s->sxx += x * x;
    s->sxy += x * y;
}

/* An alpha within rounding of zero (the sums' floating-point noise) is zero. */
static double tidy_alpha(double a) { return a < 1e-6 ? 0 : a; }

/* The model from a group's sums and link rating (GB/s, 0 unknown), as the header comment says. */
static tc_coll_model fit_one(const fit_sums *s, double rated_GBps) {
    tc_coll_model m = {TC_FIT_NONE, 0, 0, s->n};
    if (s->n == 0 || !(s->sx > 0) || !(s->sy > 0)) return m;
    const double n = (double)s->n;
    if (s->distinct) {
        double d = n * s->sxx - s->sx * s->sx;
        double slope = d > 0 ? (n * s->sxy - s->sx * s->sy) / d : 0; /* µs per byte */
        double alpha = (s->sy - slope * s->sx) / n;
        if (slope > 0 && alpha >= -1e-6 && isfinite(slope) && isfinite(alpha)) {
            m.fit = TC_FIT_SIZES;
            m.alpha_us = tidy_alpha(alpha);
            m.beta_GBps = 1e-3 / slope; /* 1 GB/s = 1e3 bytes per µs */
            return m;
        }
    }
    if (rated_GBps > 0) {
        double alpha = (s->sy - s->sx * 1e-3 / rated_GBps) / n;
        if (alpha >= -1e-6) {
            m.fit = TC_FIT_RATED;
            m.alpha_us = tidy_alpha(alpha);
            m.beta_GBps = rated_GBps;
            return m;
        }
    }
    m.fit = TC_FIT_MEASURED;
    m.alpha_us = 0;
    m.beta_GBps = s->sx * 1e-3 / s->sy;
    return m;
}

int tc_comm_model_fit(tc_job *j) {
    if (j->n_inst_groups == 0) return 0;
    fit_sums *sums = calloc(j->n_inst_groups, sizeof *sums);
    if (!sums) return -1;
    for (size_t i = 0; i < j->n_instances; i++) {
        const tc_coll_instance *in = &j->instances[i];
        if (in->group >= j->n_inst_groups || in->bytes <= 0 || !(in->bus_factor > 0) || in->transfer_ns <= 0) continue;
        add_point(&sums[in->group], (double)in->bytes * in->bus_factor, (double)in->transfer_ns / 1e3);
    }
    const tc_gpu_spec *gpu = NULL; /* the job's first rank with a catalog GPU: the link inside a node */
    for (size_t r = 0; r < j->n_ranks && !gpu; r++) gpu = j->ranks[r].gpu;
    for (size_t g = 0; g < j->n_inst_groups; g++) {
        tc_inst_group *ig = &j->inst_groups[g];
        ig->model = fit_one(&sums[g], group_rating(j, ig, gpu));
    }
    free(sums);
    return 0;
}

int64_t tc_comm_model_project(const tc_coll_instance *in, const tc_coll_model *was, const tc_coll_model *now) {
    double t = (double)in->transfer_ns;
    if (was->fit != TC_FIT_NONE && now->fit != TC_FIT_NONE) {
        t += (now->alpha_us - was->alpha_us) * 1e3;
        if (in->bytes > 0 && in->bus_factor > 0 && was->beta_GBps > 0 && now->beta_GBps > 0)
            t += (double)in->bytes * in->bus_factor * (1 / now->beta_GBps - 1 / was->beta_GBps); /* B / (GB/s) = ns */
    }
    if (!(t > 0)) return 0;
    return (int64_t)llround(t);
}
