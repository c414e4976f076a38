/* nodes.c: the node of each rank and the job's node count, from the evidence the inputs hold (see
 * nodes.h). */
#include "nodes.h"
#include "base/util.h"
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

/* PID or PID-K: decimal, with an optional -K (tracecost record's later windows). */
static bool pid_part(const char *s, size_t n) {
    const char *dash = memchr(s, '-', n);
    if (!dash) return all_digits(s, n);
    size_t a = (size_t)(dash - s);
    return all_digits(s, a) && all_digits(dash + 1, n - a - 1);
}

bool tc_file_name_host(const char *path, size_t *off, size_t *len) {
    if (!path) return false;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(base), rest;
    if (!ends_with(base, n, ".pt.trace.json", &rest) && !ends_with(base, n, ".pt.trace.json.gz", &rest)) return false;
    size_t dot = rest; /* .<digits> (the handler's time) or .rank<R> (record's rank) */
    while (dot > 0 && base[dot - 1] != '.') dot--;
    if (dot == 0) return false;
    const char *tail = base + dot;
    size_t tn = rest - dot;
    if (!all_digits(tail, tn) && !(tn > 4 && !memcmp(tail, "rank", 4) && all_digits(tail + 4, tn - 4))) return false;
    rest = dot - 1;
    size_t us = rest; /* HOST_PID[-K] */
    while (us > 0 && base[us - 1] != '_') us--;
    if (us < 2 || !pid_part(base + us, rest - us)) return false;
    *off = (size_t)(base - path);
    *len = us - 1;
    return true;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static const tc_trace *rank_trace(const tc_job *j, size_t r) { return &j->traces[j->ranks[r].input]; }

/* The host of ranks[r]: the one its trace records (trace = true) or its file name's. */
static bool rank_host(const tc_job *j, size_t r, bool trace, const char **host, size_t *len) {
    const tc_trace *t = rank_trace(j, r);
    if (trace) {
        if (t->host_name == TC_NONE) return false;
        *host = tc_trace_str(t, t->host_name);
        *len = strlen(*host);
        return true;
    }
    size_t off;
    if (!tc_file_name_host(t->path, &off, len)) return false;
    *host = t->path + off;
    return true;
}

/* The ranks by host into node[] (numbered in order of first appearance among the sorted ranks).
 * Returns the number of hosts, 0 when a rank has none (node[] then unset); *most: the most ranks
 * on one host. count: scratch of n_ranks entries. */
static int64_t by_host(const tc_job *j, bool trace, int64_t *node, int64_t *count, int64_t *most) {
    size_t n = j->n_ranks, len, qlen;
    const char *h, *qh;
    int64_t hosts = 0;
    for (size_t r = 0; r < n; r++) if (!rank_host(j, r, trace, &h, &len)) return 0;
    for (size_t r = 0; r < n; r++) {
        rank_host(j, r, trace, &h, &len);
        size_t q = 0;
        for (; q < r; q++)
            if (rank_host(j, q, trace, &qh, &qlen) && qlen == len && !memcmp(qh, h, len)) break;
        node[r] = q < r ? node[q] : hosts++;
        count[r] = 0;
    }
    for (size_t r = 0; r < n; r++) count[node[r]]++;
    *most = 0;
    for (int64_t k = 0; k < hosts; k++) if (count[k] > *most) *most = count[k];
    return hosts;
}

/* What the ranks' device indices say: rank r on local device r mod G, the local index counted from
 * 0 (or, when that does not fit, from the lowest index seen: ROCm numbers GPUs by HSA agent, from
 * 2). Every G that fits divides D = gcd(r - local) and exceeds the highest local index. */
typedef struct {
    bool known;   /* every rank's GPU events are on one numeric device */
    bool fits;    /* some G fits */
    bool settled; /* only one G fits, or every rank of the world is among the inputs */
    int64_t g;    /* D: the largest G that fits (0: every rank on the device of its number: one node) */
    int64_t g0;   /* the highest local index + 1 */
} dev_fit;

static int64_t gcd(int64_t a, int64_t b) {
    while (b) { int64_t t = a % b; a = b; b = t; }
    return a;
}

static bool fit_from(const tc_job *j, int64_t base, dev_fit *f) {
    int64_t d = 0, g0 = 1;
    for (size_t r = 0; r < j->n_ranks; r++) {
        int64_t local = rank_trace(j, r)->gpu_device - base, rank = j->ranks[r].rank;
        if (local < 0 || rank < local) return false;
        if (local + 1 > g0) g0 = local + 1;
        d = gcd(d, rank - local);
    }
    if (d && d < g0) return false;
    f->fits = true;
    f->g = d;
    f->g0 = g0;
    return true;
}

/* True when no divisor of d lies in [g0, d): d is the only G that fits. */
static bool only_fit(int64_t d, int64_t g0) {
    for (int64_t i = 1; i <= d / i; i++) {
        if (d % i) continue;
        if ((i >= g0 && i < d) || (d / i >= g0 && d / i < d)) return false;
    }
    return true;
}

static dev_fit device_fit(const tc_job *j, int64_t world) {
    dev_fit f = {.known = j->n_ranks > 0};
    int64_t low = -1;
    for (size_t r = 0; r < j->n_ranks; r++) {
        int64_t d = rank_trace(j, r)->gpu_device;
        if (d < 0) f.known = false;
        else if (low < 0 || d < low) low = d;
    }
    if (!f.known) return f;
    if (!fit_from(j, 0, &f) && low > 0) fit_from(j, low, &f);
    f.settled = f.fits && (world == (int64_t)j->n_ranks || (f.g > 0 && only_fit(f.g, f.g0)));
    return f;
}

/* The node the device indices give rank `rank`. */
static int64_t device_node(const dev_fit *f, int64_t rank) { return f->g > 0 ? rank / f->g : 0; }

/* True when the hosts in node[] fit the device indices: no host holds two ranks on one device,
 * and, when the indices settle G, ranks share a host exactly when they share a device node. */
static bool hosts_agree(const tc_job *j, const int64_t *node, const dev_fit *f) {
    for (size_t r = 0; r < j->n_ranks; r++)
        for (size_t q = 0; q < r; q++) {
            bool same = node[r] == node[q];
            if (same && rank_trace(j, r)->gpu_device == rank_trace(j, q)->gpu_device) return false;
            if (f->settled && same != (device_node(f, j->ranks[r].rank) == device_node(f, j->ranks[q].rank)))
                return false;
        }
    return true;
}

/* Rank r on node r / g: --gpus-per-node (every rank's node known) or assumed (none is). */
static void by_period(tc_job *j, int64_t g, tc_node_rule rule) {
    tc_summary *sm = &j->summary;
    int64_t top = 0;
    for (size_t r = 0; r < j->n_ranks; r++) {
        j->ranks[r].node = j->ranks[r].rank / g;
        if (j->ranks[r].node + 1 > top) top = j->ranks[r].node + 1;
    }
    sm->node_rule = rule;
    sm->gpus_per_node = g;
    sm->nodes = ceil_div(sm->world_size, g);
    if (top > sm->nodes) sm->nodes = top;
    if (rule == TC_NODES_FLAG) sm->node_period = g;
    else sm->nodes_assumed = sm->world_size > 1;
}

/* The ranks on the hosts of node[]; ranks not among the inputs: 8 a node assumed, and at least the
 * hosts seen. */
static void by_hosts(tc_job *j, const int64_t *node, int64_t hosts, int64_t most, tc_node_rule rule) {
    tc_summary *sm = &j->summary;
    for (size_t r = 0; r < j->n_ranks; r++) j->ranks[r].node = node[r];
    sm->node_rule = rule;
    sm->gpus_per_node = most;
    sm->nodes = hosts;
    if (sm->world_size > (int64_t)j->n_ranks) {
        sm->nodes_assumed = true;
        if (ceil_div(sm->world_size, TC_NODES_ASSUMED_GPUS) > hosts) sm->nodes = ceil_div(sm->world_size, TC_NODES_ASSUMED_GPUS);
    }
}

/* The largest deviceProperties list of the inputs: the GPUs a node shows its processes. */
static int64_t listed_devices(const tc_job *j) {
    int64_t most = 0;
    for (size_t i = 0; i < j->n_traces; i++) if ((int64_t)j->traces[i].n_devices > most) most = (int64_t)j->traces[i].n_devices;
    return most;
}

/* The ranks by their device indices. Settled: G nodes (one node of the world, at least as large as
 * the devices listed, when every rank is on the device of its number); else 8 a node assumed for
 * the ranks not among the inputs. */
static void by_devices(tc_job *j, const dev_fit *f) {
    tc_summary *sm = &j->summary;
    int64_t seen = 0;
    for (size_t r = 0; r < j->n_ranks; r++) {
        j->ranks[r].node = device_node(f, j->ranks[r].rank);
        seen += r == 0 || j->ranks[r].node != j->ranks[r - 1].node;
    }
    sm->node_rule = TC_NODES_DEVICES;
    if (f->settled) {
        int64_t g = f->g;
        if (!g) {
            g = sm->world_size > f->g0 ? sm->world_size : f->g0;
            if (listed_devices(j) > g) g = listed_devices(j);
        }
        sm->gpus_per_node = sm->node_period = g;
        sm->nodes = ceil_div(sm->world_size, g);
        return;
    }
    sm->gpus_per_node = TC_NODES_ASSUMED_GPUS;
    sm->nodes = ceil_div(sm->world_size, TC_NODES_ASSUMED_GPUS);
    if (seen > sm->nodes) sm->nodes = seen;
    sm->nodes_assumed = true;
}

/* No flag: the trace hosts, else the file names where the device indices agree, else the device
 * indices, else assumed. node, hosts, count: scratch of n_ranks entries each. */
static void from_evidence(tc_job *j, int64_t *node, int64_t *hosts, int64_t *count) {
    tc_summary *sm = &j->summary;
    dev_fit f = device_fit(j, sm->world_size);
    for (size_t r = 0; f.fits && r < j->n_ranks; r++)
        sm->node_device_nodes += r == 0 || device_node(&f, j->ranks[r].rank) != device_node(&f, j->ranks[r - 1].rank);
    for (size_t i = 0; i < j->n_traces; i++) sm->node_host_inputs += j->traces[i].host_name != TC_NONE;
    int64_t most_h = 0, most_n = 0;
    int64_t n_hosts = by_host(j, true, hosts, count, &most_h);
    int64_t n_names = by_host(j, false, node, count, &most_n);
    sm->node_name_hosts = n_names;
    if (n_hosts > 0) {
        dev_fit loose = f; /* a recorded host outweighs the device layout: only a shared device is noted */
        loose.settled = false;
        if (f.known && !hosts_agree(j, hosts, &loose)) sm->node_notes |= TC_NODE_NOTE_HOSTS_SHARE;
        by_hosts(j, hosts, n_hosts, most_h, TC_NODES_TRACE_HOSTS);
        return;
    }
    if (sm->node_host_inputs > 0) sm->node_notes |= TC_NODE_NOTE_HOSTS_PARTIAL;
    bool names = n_names > 0 && (!f.known || hosts_agree(j, node, &f));
    if (n_names > 0 && !names) sm->node_notes |= TC_NODE_NOTE_NAMES_DISAGREE;
    if (names) {
        if (!f.known) sm->node_notes |= TC_NODE_NOTE_NAMES_UNCHECKED;
        by_hosts(j, node, n_names, most_n, TC_NODES_FILE_NAMES);
    } else if (f.fits) {
        by_devices(j, &f);
    } else {
        sm->node_notes |= f.known ? TC_NODE_NOTE_DEVICES_UNFIT : TC_NODE_NOTE_DEVICES_UNKNOWN;
        by_period(j, TC_NODES_ASSUMED_GPUS, TC_NODES_ASSUMED);
    }
}

int tc_job_nodes(tc_job *j, int64_t gpus_per_node) {
    tc_summary *sm = &j->summary;
    int64_t world = (int64_t)j->n_ranks;
    for (size_t i = 0; i < j->n_traces; i++) if (j->traces[i].world_size > world) world = j->traces[i].world_size;
    sm->world_size = world;
    sm->nodes_assumed = false;
    sm->node_period = 0;
    sm->node_notes = 0;
    sm->node_name_hosts = sm->node_device_nodes = sm->node_host_inputs = 0;
    if (gpus_per_node > 0) {
        by_period(j, gpus_per_node, TC_NODES_FLAG);
        return 0;
    }
    size_t n = j->n_ranks ? j->n_ranks : 1;
    int64_t *scratch = malloc(3 * n * sizeof *scratch);
    if (!scratch) return -1;
    from_evidence(j, scratch, scratch + n, scratch + 2 * n);
    free(scratch);
    return 0;
}

bool tc_node_of_rank(const tc_job *j, int64_t rank, int64_t *node) {
    if (rank < 0) return false;
    if (j->summary.node_period > 0) {
        *node = rank / j->summary.node_period;
        return true;
    }
    if (j->summary.node_rule == TC_NODES_ASSUMED) return false; /* left out, never guessed */
    size_t lo = 0, hi = j->n_ranks; /* ranks are sorted */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (j->ranks[mid].rank < rank) lo = mid + 1; else hi = mid;
    }
    if (lo == j->n_ranks || j->ranks[lo].rank != rank) return false;
    *node = j->ranks[lo].node;
    return true;
}

int tc_scope_of_ranks(const tc_job *j, const int64_t *ranks, size_t n, tc_group_scope *scope, bool *all_known,
                      int64_t *distinct) {
    int64_t *nodes = malloc((n ? n : 1) * sizeof *nodes);
    if (!nodes) return -1;
    size_t known = 0;
    for (size_t i = 0; i < n; i++) known += tc_node_of_rank(j, ranks[i], &nodes[known]);
    tc_sort_i64(nodes, known);
    int64_t d = known ? 1 : 0;
    for (size_t i = 1; i < known; i++) d += nodes[i] != nodes[i - 1];
    free(nodes);
    *scope = d >= 2 ? TC_SCOPE_INTER : known == n ? TC_SCOPE_INTRA : TC_SCOPE_UNKNOWN;
    if (all_known) *all_known = known == n;
    if (distinct) *distinct = d;
    return 0;
}
