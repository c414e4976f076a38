/* all_to_all.c: the all-to-all(v) imbalance (all_to_all.h): per matched all-to-all instance the
 * bytes each rank sends ("In msg nelems" × the dtype's size), the rows it sends to each peer ("In
 * split size", else even), the max/mean ratio, the hot rank and the wait it causes; per group the
 * hot rank, its caused wait and the rank-pair matrix. DeepEP's dispatch and combine kernels are
 * all-to-all too, but neither they nor their ops carry token counts or sizes (DeepSeek-V3's own
 * trace, docs/definitions.md): their instances are counted, unsized. Pure: reads j->instances,
 * fills j->a2a. */
#include "all_to_all.h"
#include "collectives.h"
#include "base/util.h"
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* True when the kernel is DeepEP's (by the catalog) dispatch or combine, the all-to-all of its
 * tokens ("deep_ep::internode::dispatch<...>", "dpsk::ep::intranode::combine(...)"); its notify,
 * layout and barrier kernels are not. */
static bool is_deepep_a2a(const tc_gpu_event *g, const char *name) {
    static const char *const fns[] = {"::dispatch<", "::dispatch(", "::combine<", "::combine("};
    if (g->is_comm != TC_COMM_DEEPEP || !name) return false;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (strstr(name, fns[i])) return true;
    return false;
}

/* 1 when instance `in` is an all-to-all by its collective name ("all_to_all", "alltoall_base",
 * "AllToAllV"), 2 when its kernel is DeepEP's dispatch or combine, else 0. */
static int a2a_kind(const tc_job *j, const tc_coll_instance *in) {
    const tc_inst_member *mb = &j->inst_members[in->first];
    const tc_trace *t = &j->traces[j->ranks[mb->rank].input];
    const char *name = tc_trace_str(t, in->name);
    char low[64];
    size_t n = 0;
    for (const char *s = name; s && *s && n < sizeof low - 1; s++)
        if (*s != '_') low[n++] = (char)tolower((unsigned char)*s);
    low[n] = 0;
    if (strstr(low, "alltoall")) return 1;
    return is_deepep_a2a(&t->gpu[mb->event], name) ? 2 : 0;
}

/* The rows of "In split size" text "[3, 1, 4]" into split[0, n): true when it holds exactly n
 * non-negative whole numbers with a positive sum. */
static bool parse_splits(const char *s, size_t n, int64_t *split) {
    if (!s || *s != '[') return false;
    s++;
    size_t k = 0;
    int64_t sum = 0;
    for (;;) {
        while (*s == ' ') s++;
        if (*s == ']') break;
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s || v < 0 || k == n || v > INT64_MAX / 4 - sum) return false;
        split[k++] = v;
        sum += v;
        s = end;
        while (*s == ' ') s++;
        if (*s == ',') s++; else if (*s != ']') return false;
    }
    return k == n && sum > 0;
}

/* The bytes member m of instance `in` sends: its In msg nelems × dtype size; -1 unknown. */
static int64_t member_bytes(const tc_job *j, const tc_inst_member *mb, const tc_trace **t_out,
                            const tc_coll_args **c_out) {
    const tc_trace *t = &j->traces[j->ranks[mb->rank].input];
    const tc_gpu_event *g = &t->gpu[mb->event];
    if (g->coll == TC_NONE) return -1;
    const tc_coll_args *c = &t->colls[g->coll];
    int eb = c->dtype != TC_NONE ? tc_dtype_bytes(tc_trace_str(t, c->dtype)) : 0;
    *t_out = t;
    *c_out = c;
    if (eb <= 0 || c->in_nelems < 0 || c->in_nelems > INT64_MAX / 16) return -1;
    return c->in_nelems * eb;
}

/* One instance into a->instances and its group's pair matrix; *skip when it has no sizes. */
static int add_instance(tc_job *j, size_t i, tc_a2a_group *gr, int64_t *split, bool *skip) {
    const tc_coll_instance *in = &j->instances[i];
    tc_a2a_result *a = &j->a2a;
    size_t n = gr->n_ranks, at = a->n_bytes;
    int64_t max = 0, seq = -1;
    double sum = 0;
    uint32_t hot = 0;
    *skip = true;
    for (size_t m = 0; m < n; m++) {
        const tc_trace *t = NULL;
        const tc_coll_args *c = NULL;
        int64_t b = member_bytes(j, &j->inst_members[in->first + m], &t, &c);
        if (b < 0) { a->n_bytes = at; return 0; }
        if (m == 0) seq = c->seq;
        if (TC_PUSH(a->bytes, a->n_bytes, a->cap_bytes, b)) return -1;
        if (b > max) { max = b; hot = (uint32_t)m; }
        sum += (double)b;
        bool uneven = c->in_splits != TC_NONE && parse_splits(tc_trace_str(t, c->in_splits), n, split);
        int64_t total = 0;
        for (size_t k = 0; uneven && k < n; k++) total += split[k];
        for (size_t k = 0; k < n; k++) /* row m: what rank m sends to rank k */
            gr->pair_bytes[m * n + k] += uneven ? (int64_t)((double)b * (double)split[k] / (double)total)
                                                : b / (int64_t)n;
    }
    if (max == 0) { a->n_bytes = at; return 0; }
    double wait = 0;
    for (size_t m = 0; m < n; m++)
        if (m != hot) wait += (double)in->transfer_ns * (1.0 - (double)a->bytes[at + m] / (double)max);
    tc_a2a_instance ai = {(uint32_t)i, hot, seq, (double)max / (sum / (double)n), wait, at};
    if (TC_PUSH(a->instances, a->n_instances, a->cap_instances, ai)) return -1;
    *skip = false;
    return 0;
}

/* Group g's all-to-all instances; the group is kept when it has any. */
static int add_group(tc_job *j, uint32_t g, uint32_t n_ranks, size_t from) {
    tc_a2a_result *a = &j->a2a;
    tc_a2a_group gr = {.inst_group = g, .n_ranks = n_ranks, .first = a->n_instances, .hot_rank = -1};
    gr.ranks = malloc(n_ranks * sizeof *gr.ranks);
    gr.pair_bytes = calloc((size_t)n_ranks * n_ranks, sizeof *gr.pair_bytes);
    int64_t *split = malloc(n_ranks * sizeof *split);
    double *caused = calloc(n_ranks, sizeof *caused);
    int rc = (!gr.ranks || !gr.pair_bytes || !split || !caused) ? -1 : 0;
    for (size_t i = from; rc == 0 && i < j->n_instances; i++) {
        const tc_coll_instance *in = &j->instances[i];
        int kind = in->group == g && in->n == n_ranks ? a2a_kind(j, in) : 0;
        if (!kind) continue;
        if (kind == 2) gr.deepep = true; /* no args: add_instance finds no sizes */
        if (gr.n + gr.unsized == 0) /* the first: the group's ranks */
            for (size_t m = 0; m < n_ranks; m++) gr.ranks[m] = j->ranks[j->inst_members[in->first + m].rank].rank;
        bool skip;
        rc = add_instance(j, i, &gr, split, &skip);
        if (rc) break;
        if (skip) { gr.unsized++; continue; }
        const tc_a2a_instance *ai = &a->instances[a->n_instances - 1];
        caused[ai->hot] += ai->caused_wait_ns;
        if (ai->ratio > gr.max_ratio) gr.max_ratio = ai->ratio;
        gr.rank_time_ns += (double)j->instances[i].transfer_ns * n_ranks;
        gr.n++;
    }
    for (size_t m = 0; rc == 0 && m < n_ranks; m++)
        if (caused[m] > 0 && caused[m] > gr.caused_wait_ns) { gr.caused_wait_ns = caused[m]; gr.hot_rank = gr.ranks[m]; }
    free(split);
    free(caused);
    if (rc == 0 && gr.n + gr.unsized > 0 && TC_PUSH(a->groups, a->n_groups, a->cap_groups, gr) == 0) return 0;
    free(gr.ranks);
    free(gr.pair_bytes);
    return rc == 0 && gr.n + gr.unsized == 0 ? 0 : -1;
}

int tc_all_to_all(tc_job *j) {
    tc_a2a_free(&j->a2a);
    if (!j->n_inst_groups) return 0;
    size_t *first = malloc(j->n_inst_groups * sizeof *first); /* each group's first all-to-all instance */
    if (!first) return -1;
    for (size_t g = 0; g < j->n_inst_groups; g++) first[g] = SIZE_MAX;
    for (size_t i = 0; i < j->n_instances; i++) {
        const tc_coll_instance *in = &j->instances[i];
        if (first[in->group] == SIZE_MAX && a2a_kind(j, in)) first[in->group] = i;
    }
    int rc = 0;
    for (uint32_t g = 0; rc == 0 && g < j->n_inst_groups; g++)
        if (first[g] != SIZE_MAX) rc = add_group(j, g, j->instances[first[g]].n, first[g]);
    free(first);
    return rc;
}
