/* nodes.c: the node of each rank and the job's node count (see nodes.h). */
#include "nodes.h"
#include <stdlib.h>
#include <string.h>

static bool all_digits(const char *s, size_t n) {
    if (!n) return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

static bool ends_with(const char *s, size_t n, const char *suffix, size_t *rest) {
    size_t k = strlen(suffix);
    if (n < k || memcmp(s + n - k, suffix, k)) return false;
    *rest = n - k;
    return true;
}

bool tc_handler_file_host(const char *path, size_t *off, size_t *len) {
    if (!path) return false;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(base), rest;
    if (!ends_with(base, n, ".pt.trace.json", &rest) && !ends_with(base, n, ".pt.trace.json.gz", &rest)) return false;
    size_t dot = rest; /* HOST_PID.<digits> */
    while (dot > 0 && base[dot - 1] != '.') dot--;
    if (dot == 0 || !all_digits(base + dot, rest - dot)) return false;
    size_t us = dot - 1; /* HOST_PID */
    while (us > 0 && base[us - 1] != '_') us--;
    if (us < 2 || !all_digits(base + us, dot - 1 - us)) return false;
    *off = (size_t)(base - path);
    *len = us - 1;
    return true;
}

/* Ranks on one node by the number: r / g. */
static void by_number(tc_job *j, int64_t g) {
    for (size_t r = 0; r < j->n_ranks; r++) j->ranks[r].node = j->ranks[r].rank / g;
}

/* The host of ranks[r]'s file (false when its name is not a handler name). */
static bool rank_host(const tc_job *j, size_t r, const char **host, size_t *len) {
    const char *path = j->traces[j->ranks[r].input].path;
    size_t off;
    if (!tc_handler_file_host(path, &off, len)) return false;
    *host = path + off;
    return true;
}

/* Ranks on one node by their file's host, numbered in order of first appearance among the sorted
 * ranks. Returns the number of hosts (0 when an input's name is not a handler name, then nothing
 * is set), or -1 out of memory. *most: the most ranks on one host. */
static int64_t by_host(tc_job *j, int64_t *most) {
    size_t n = j->n_ranks, len, qlen;
    const char *h, *qh;
    for (size_t r = 0; r < n; r++) if (!rank_host(j, r, &h, &len)) return 0;
    int64_t *count = calloc(n ? n : 1, sizeof *count), hosts = 0;
    if (!count) return -1;
    for (size_t r = 0; r < n; r++) {
        rank_host(j, r, &h, &len);
        size_t q = 0;
        for (; q < r; q++)
            if (rank_host(j, q, &qh, &qlen) && qlen == len && !memcmp(qh, h, len)) break;
        j->ranks[r].node = q < r ? j->ranks[q].node : hosts++;
        count[j->ranks[r].node]++;
    }
    *most = 0;
    for (int64_t k = 0; k < hosts; k++) if (count[k] > *most) *most = count[k];
    free(count);
    return hosts;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int tc_job_nodes(tc_job *j, int64_t gpus_per_node) {
    tc_summary *sm = &j->summary;
    int64_t world = (int64_t)j->n_ranks, top = 0;
    for (size_t i = 0; i < j->n_traces; i++) if (j->traces[i].world_size > world) world = j->traces[i].world_size;
    sm->world_size = world;
    sm->nodes_assumed = false;
    int64_t hosts = 0, most = 0;
    if (gpus_per_node > 0) {
        sm->node_rule = TC_NODES_FLAG;
        sm->gpus_per_node = gpus_per_node;
    } else if ((hosts = by_host(j, &most)) < 0) return -1;
    else if (hosts > 0) {
        sm->node_rule = TC_NODES_HOSTS;
        sm->gpus_per_node = most;
        /* ranks not among the inputs: 8 a node assumed, and at least the hosts seen */
        sm->nodes = hosts;
        if (world > (int64_t)j->n_ranks) {
            sm->nodes_assumed = true;
            if (ceil_div(world, TC_NODES_ASSUMED_GPUS) > hosts) sm->nodes = ceil_div(world, TC_NODES_ASSUMED_GPUS);
        }
        return 0;
    } else {
        sm->node_rule = TC_NODES_ASSUMED;
        sm->gpus_per_node = TC_NODES_ASSUMED_GPUS;
        sm->nodes_assumed = world > 1;
    }
    by_number(j, sm->gpus_per_node);
    for (size_t r = 0; r < j->n_ranks; r++) if (j->ranks[r].node + 1 > top) top = j->ranks[r].node + 1;
    sm->nodes = ceil_div(world, sm->gpus_per_node);
    if (top > sm->nodes) sm->nodes = top;
    return 0;
}

bool tc_node_of_rank(const tc_job *j, int64_t rank, int64_t *node) {
    if (rank < 0) return false;
    if (j->summary.node_rule != TC_NODES_HOSTS) {
        *node = rank / j->summary.gpus_per_node;
        return true;
    }
    size_t lo = 0, hi = j->n_ranks; /* ranks are sorted */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (j->ranks[mid].rank < rank) lo = mid + 1; else hi = mid;
    }
    if (lo == j->n_ranks || j->ranks[lo].rank != rank) return false;
    *node = j->ranks[lo].node;
    return true;
}
