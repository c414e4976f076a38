/* nccl_prom_join.c: the NCCL Inspector's Prometheus rows joined to process groups (nccl_join.h,
 * docs/nccl.md "Prometheus textfiles"). A row is one GPU's bucket of one communicator: its process
 * group is the one group of the row's size that holds the GPU's rank (the rank whose trace names
 * the row's node as its host and ran on its device) when that rank is known, whose name or
 * description is the row's comm_name when one matches, and that has a collective of the row's kind
 * with a message in the row's size range. The rows of a group are merged per bucket (kind, size
 * range, algorithm, protocol) across its ranks. */
#include "nccl_join.h"
#include "base/util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The rank index whose trace records host node and ran on device dev (one only), SIZE_MAX none. */
static size_t rank_of_gpu(const tc_job *j, const char *node, int32_t dev) {
    size_t found = SIZE_MAX, n = 0;
    for (size_t i = 0; node[0] && dev >= 0 && i < j->n_ranks; i++) {
        const tc_trace *t = &j->traces[j->ranks[i].input];
        if (t->host_name == TC_NONE || t->gpu_device != dev || strcmp(tc_trace_str(t, t->host_name), node) != 0) continue;
        found = i;
        n++;
    }
    return n == 1 ? found : SIZE_MAX;
}

static bool group_has_rank(const tc_process_group *pg, int64_t g) {
    for (size_t k = 0; pg->ranks && k < pg->n_ranks; k++)
        if (pg->ranks[k] == g) return true;
    return !pg->ranks; /* members unknown: it may */
}

/* Whether group pg has an instance of kind coll whose message is in [lo, hi). */
static bool group_has_size(const tc_job *j, size_t pg, uint8_t coll, int64_t lo, int64_t hi) {
    for (size_t i = 0; i < j->n_instances; i++) {
        const tc_coll_instance *in = &j->instances[i];
        if (j->inst_groups[in->group].pg != pg || in->bytes < lo || in->bytes >= hi) continue;
        const tc_trace *t = &j->traces[j->ranks[j->inst_members[in->first].rank].input];
        if (tc_nccl_coll_of(tc_trace_str(t, in->name)) == coll) return true;
    }
    return false;
}

/* The process group of row x (SIZE_MAX none or several): by_name, only the groups named comm_name. */
static size_t group_of_row(const tc_job *j, const tc_nccl_prom *x, size_t ri, bool by_name) {
    size_t found = SIZE_MAX, n = 0;
    for (size_t g = 0; g < j->n_groups; g++) {
        const tc_process_group *pg = &j->groups[g];
        if (pg->size != x->n_ranks) continue;
        if (ri != SIZE_MAX && !group_has_rank(pg, j->ranks[ri].rank)) continue;
        if (by_name && strcmp(pg->name, x->comm_name) != 0 && !(pg->desc && strcmp(pg->desc, x->comm_name) == 0)) continue;
        if (!group_has_size(j, g, x->coll, x->size_lo, x->size_hi)) continue;
        found = g;
        n++;
    }
    return n == 1 ? found : SIZE_MAX;
}

/* Adds row x to its group's bucket (a new one when none matches); nbus, nexec, logsum: per bucket,
 * the rows with a busbw, with an exec time, and the sum of their busbw's logs. 0, or -1 out of memory. */
static int merge(tc_nccl_result *r, size_t pg, const tc_nccl_prom *x, size_t *cap, double *logsum, int64_t *nbus,
                 int64_t *nexec) {
    size_t k = 0;
    for (; k < r->n_prom_mix; k++) {
        const tc_nccl_prom_mix *m = &r->prom_mix[k];
        if (m->pg == pg && m->coll == x->coll && m->size_lo == x->size_lo && !strcmp(m->algorithm, x->algorithm) &&
            !strcmp(m->protocol, x->protocol))
            break;
    }
    if (k == r->n_prom_mix) {
        tc_nccl_prom_mix m;
        memset(&m, 0, sizeof m);
        m.pg = pg;
        m.coll = x->coll;
        m.size_lo = x->size_lo;
        m.size_hi = x->size_hi;
        memcpy(m.algorithm, x->algorithm, sizeof m.algorithm);
        memcpy(m.protocol, x->protocol, sizeof m.protocol);
        if (TC_PUSH(r->prom_mix, r->n_prom_mix, *cap, m)) return -1;
    }
    tc_nccl_prom_mix *m = &r->prom_mix[k];
    m->ranks++;
    if (x->busbw_GBps > 0) { logsum[k] += log(x->busbw_GBps); nbus[k]++; }
    if (x->exec_us >= 0) { m->exec_us += x->exec_us; nexec[k]++; }
    return 0;
}

static int cmp_mix(const void *a, const void *b) {
    const tc_nccl_prom_mix *x = a, *y = b;
    if (x->pg != y->pg) return x->pg < y->pg ? -1 : 1;
    if (x->coll != y->coll) return x->coll < y->coll ? -1 : 1;
    if (x->size_lo != y->size_lo) return x->size_lo < y->size_lo ? -1 : 1;
    int c = strcmp(x->algorithm, y->algorithm);
    return c ? c : strcmp(x->protocol, y->protocol);
}

int tc_nccl_prom_join(const tc_job *j, tc_nccl_result *r) {
    const tc_nccl_log *l = &r->log;
    if (!l->n_proms) return 0;
    double *logsum = calloc(l->n_proms, sizeof *logsum);
    int64_t *nbus = calloc(l->n_proms, sizeof *nbus), *nexec = calloc(l->n_proms, sizeof *nexec);
    size_t cap = 0;
    int rc = logsum && nbus && nexec ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < l->n_proms; i++) {
        const tc_nccl_prom *x = &l->proms[i];
        size_t ri = rank_of_gpu(j, x->node, x->device);
        size_t pg = group_of_row(j, x, ri, true);
        if (pg == SIZE_MAX) pg = group_of_row(j, x, ri, false);
        if (pg == SIZE_MAX) { r->prom_unplaced++; continue; }
        r->prom_joined++;
        r->groups[pg].prom_rows++;
        r->groups[pg].has = true;
        rc = merge(r, pg, x, &cap, logsum, nbus, nexec);
    }
    for (size_t k = 0; rc == 0 && k < r->n_prom_mix; k++) {
        tc_nccl_prom_mix *m = &r->prom_mix[k];
        if ((m->has_busbw = nbus[k] > 0)) m->busbw_GBps = exp(logsum[k] / (double)nbus[k]);
        if ((m->has_exec = nexec[k] > 0)) m->exec_us /= (double)nexec[k];
    }
    free(logsum);
    free(nbus);
    free(nexec);
    if (rc == 0 && r->n_prom_mix) tc_sort(r->prom_mix, r->n_prom_mix, sizeof *r->prom_mix, cmp_mix);
    if (rc == 0 && r->prom_unplaced)
        rc = tc_nccl_note(r, "%lld Inspector Prometheus rows fit no process group, or several (a communicator size, "
                             "kind or message-size range no group has, or a GPU whose rank the traces do not settle)",
                          (long long)r->prom_unplaced);
    return rc;
}
