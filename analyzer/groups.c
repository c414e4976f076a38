/* groups.c: the job's process groups: the table joined from every input, each rank's figures per
 * group, the sums, links, bandwidths and folded rows (see groups.h). */
#include "groups.h"
#include "intervals.h"
#include "nodes.h"
#include "model/group_ranks.h"
#include "base/status.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

/* ---- the table: what every input says about each group ----------------------------------------- */

typedef struct {
    char *name, *desc;        /* owned until moved into the group */
    int64_t size;             /* first size given (> 0), -1 none */
    int64_t *ranks; size_t n_ranks; /* first parsable ranks list (owned until moved), NULL none */
    bool conflict;            /* a later input gave other ranks */
    size_t last_rank;         /* the last rank index that named it, + 1 */
    int64_t naming;           /* ranks that named it */
} cand;

typedef struct {
    tc_job *j;
    tc_strtab *ids;           /* group names -> index into c */
    cand *c; size_t n, cap;
} joiner;

static void cand_free(cand *c) { free(c->name); free(c->desc); free(c->ranks); }

/* What rank index r says about group `name`: its description, size and ranks text (each NULL / -1
 * when this source does not say). 0, or -1 out of memory. */
static int join_one(joiner *jn, size_t r, const char *name, const char *desc, int64_t size, const char *ranks) {
    uint32_t id = tc_strtab_intern(jn->ids, name, strlen(name));
    if (id == TC_NONE) return -1;
    if (id >= jn->n) {
        cand nc;
        memset(&nc, 0, sizeof nc);
        nc.size = -1;
        nc.name = tc_strdup(name);
        if (!nc.name || TC_PUSH(jn->c, jn->n, jn->cap, nc)) { free(nc.name); return -1; }
    }
    cand *c = &jn->c[id];
    if (c->last_rank != r + 1) { c->last_rank = r + 1; c->naming++; }
    if (!c->desc && desc && *desc && !(c->desc = tc_strdup(desc))) return -1;
    if (c->size <= 0 && size > 0) c->size = size;
    int64_t *v;
    size_t nv;
    if (!ranks || !tc_parse_group_ranks(ranks, &v, &nv)) return 0;
    if (!c->ranks) { c->ranks = v; c->n_ranks = nv; return 0; }
    if (nv != c->n_ranks || memcmp(v, c->ranks, nv * sizeof *v)) c->conflict = true;
    free(v);
    return 0;
}

/* Everything one rank's trace says: its pg_config, then its collectives' arguments (each distinct
 * (name, description, size, ranks) once). 0, or -1 out of memory. */
static int join_rank(joiner *jn, size_t r) {
    const tc_trace *t = &jn->j->traces[jn->j->ranks[r].input];
    for (size_t i = 0; i < t->n_pgs; i++) {
        const tc_pg_info *g = &t->pgs[i];
        const char *desc = g->desc != TC_NONE ? tc_trace_str(t, g->desc) : NULL;
        const char *ranks = g->ranks != TC_NONE ? tc_trace_str(t, g->ranks) : NULL;
        if (join_one(jn, r, tc_trace_str(t, g->name), desc, g->size, ranks)) return -1;
    }
    const tc_coll_args *prev = NULL; /* kernels of one group come in runs: skip repeats */
    for (size_t i = 0; i < t->n_colls; i++) {
        const tc_coll_args *c = &t->colls[i];
        if (c->pg_name == TC_NONE) continue;
        if (prev && prev->pg_name == c->pg_name && prev->pg_desc == c->pg_desc && prev->pg_ranks == c->pg_ranks &&
            prev->group_size == c->group_size)
            continue;
        prev = c;
        const char *desc = c->pg_desc != TC_NONE ? tc_trace_str(t, c->pg_desc) : NULL;
        const char *ranks = c->pg_ranks != TC_NONE ? tc_trace_str(t, c->pg_ranks) : NULL;
        if (join_one(jn, r, tc_trace_str(t, c->pg_name), desc, c->group_size, ranks)) return -1;
    }
    return 0;
}

static int cmp_group_name(const void *a, const void *b) {
    return strcmp(((const tc_process_group *)a)->name, ((const tc_process_group *)b)->name);
}

/* Ranks of g among the inputs (both lists ascending). */
static int64_t present(const tc_job *j, const tc_process_group *g) {
    int64_t n = 0;
    for (size_t a = 0, b = 0; a < g->n_ranks && b < j->n_ranks;) {
        if (g->ranks[a] < j->ranks[b].rank) a++;
        else if (g->ranks[a] > j->ranks[b].rank) b++;
        else { n++; a++; b++; }
    }
    return n;
}

/* g's nodes and scope from its ranks (tc_node_of_rank). 0, or -1 out of memory. */
static int place(const tc_job *j, tc_process_group *g) {
    g->has_nodes = false;
    g->f.scope = TC_SCOPE_UNKNOWN;
    if (!g->ranks) return 0;
    int64_t distinct;
    if (tc_scope_of_ranks(j, g->ranks, g->n_ranks, &g->f.scope, &g->has_nodes, &distinct)) return -1;
    g->nodes = g->has_nodes ? distinct : 0;
    return 0;
}

/* The candidates into j->groups, sorted by name, with their ranks (a group as large as the world
 * holds every rank), sizes, ranks present, nodes and scope. 0, or -1 out of memory. */
static int settle(joiner *jn) {
    tc_job *j = jn->j;
    j->groups = calloc(jn->n ? jn->n : 1, sizeof *j->groups);
    if (!j->groups) return -1;
    for (size_t i = 0; i < jn->n; i++) {
        cand *c = &jn->c[i];
        tc_process_group *g = &j->groups[j->n_groups++];
        g->name = c->name; g->desc = c->desc; g->ranks = c->ranks; g->n_ranks = c->n_ranks;
        c->name = c->desc = NULL;
        c->ranks = NULL;
        g->size = c->size;
        if (c->conflict)
            tc_job_warn(j, "process group %s: the inputs give it different ranks; the lowest rank's list is used", g->name);
        if (!g->ranks && g->size > 0 && g->size == j->summary.world_size) { /* the whole world: every rank */
            if (!(g->ranks = malloc((size_t)g->size * sizeof *g->ranks))) return -1;
            for (int64_t k = 0; k < g->size; k++) g->ranks[k] = k;
            g->n_ranks = (size_t)g->size;
        }
        if (g->ranks && g->size <= 0) g->size = (int64_t)g->n_ranks;
        g->ranks_present = g->ranks ? present(j, g) : c->naming;
        if (place(j, g)) return -1;
    }
    tc_sort(j->groups, j->n_groups, sizeof *j->groups, cmp_group_name);
    return 0;
}

int tc_job_groups(tc_job *j, const tc_analyze_options *opt) {
    tc_job_groups_free(j);
    if (tc_job_nodes(j, opt->gpus_per_node)) return -1;
    joiner jn = {.j = j, .ids = tc_strtab_new()};
    int rc = jn.ids ? 0 : -1;
    for (size_t r = 0; rc == 0 && r < j->n_ranks; r++) rc = join_rank(&jn, r);
    if (rc == 0) rc = settle(&jn);
    for (size_t i = 0; i < jn.n; i++) cand_free(&jn.c[i]);
    free(jn.c);
    tc_strtab_free(jn.ids);
    return rc;
}

size_t tc_job_group_find(const tc_job *j, const char *name) {
    size_t lo = 0, hi = j->n_groups;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(j->groups[mid].name, name);
        if (c == 0) return mid;
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    return SIZE_MAX;
}

/* ---- one rank's figures per group ------------------------------------------------------------- */

typedef struct { uint32_t group, event; } group_event;

static int cmp_group_event(const void *a, const void *b) {
    const group_event *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    return (x->event > y->event) - (x->event < y->event);
}

/* The comm kernels of t that name a group of j, as (group, event) pairs in group order. *out owned
 * by the caller. 0, or -1 out of memory. */
static int group_events(const tc_job *j, const tc_trace *t, group_event **out, size_t *n) {
    struct { uint32_t name; uint32_t group; } *seen = NULL; /* the trace's group names looked up */
    size_t n_seen = 0, cap_seen = 0, cap = 0;
    *out = NULL;
    *n = 0;
    for (size_t e = 0; e < t->n_gpu; e++) {
        const tc_gpu_event *g = &t->gpu[e];
        if (!g->is_comm || g->coll == TC_NONE || t->colls[g->coll].pg_name == TC_NONE) continue;
        uint32_t name = t->colls[g->coll].pg_name, group = TC_NONE;
        size_t k = 0;
        while (k < n_seen && seen[k].name != name) k++;
        if (k == n_seen) {
            size_t f = tc_job_group_find(j, tc_trace_str(t, name));
            group = f == SIZE_MAX ? TC_NONE : (uint32_t)f;
            if (tc_grow((void **)&seen, &cap_seen, n_seen + 1, sizeof *seen)) goto oom;
            seen[n_seen].name = name;
            seen[n_seen++].group = group;
        } else group = seen[k].group;
        if (group == TC_NONE) continue;
        group_event ge = {group, (uint32_t)e};
        if (TC_PUSH(*out, *n, cap, ge)) goto oom;
    }
    free(seen);
    tc_sort(*out, *n, sizeof **out, cmp_group_event);
    return 0;
oom:
    free(seen);
    free(*out);
    *out = NULL;
    return -1;
}

/* The interval sets of one rank's analysis per group: comp is built once, the others per group. */
typedef struct { tc_ivset comp, comm, heads, tails, busy, inter; } rank_sets;

/* Adds kernel e's whole span to comm and its wait head and transfer tail (wait from wait_ns, none
 * when NULL or unmatched) to heads and tails; the tail to inter too for an inter-node group. */
static int add_kernel(rank_sets *s, const tc_gpu_event *g, const int64_t *wait_ns, size_t e, bool inter) {
    int64_t start = g->start_ns, end = g->start_ns + g->dur_ns, w = wait_ns ? wait_ns[e] : 0;
    if (w < 0) w = 0;
    if (w > g->dur_ns) w = g->dur_ns;
    return tc_ivset_add(&s->comm, start, end) || tc_ivset_add(&s->heads, start, start + w) ||
           tc_ivset_add(&s->tails, start + w, end) || (inter && tc_ivset_add(&s->inter, start + w, end));
}

/* One group's figures from its kernels ge[a, b) into out. 0, or -1 out of memory. */
static int group_figures(const tc_job *j, const tc_trace *t, const tc_rank_result *rr, const group_event *ge,
                         size_t a, size_t b, rank_sets *s, tc_rank_group *out) {
    tc_ivset_clear(&s->comm);
    tc_ivset_clear(&s->heads);
    tc_ivset_clear(&s->tails);
    bool inter = j->groups[ge[a].group].f.scope == TC_SCOPE_INTER;
    for (size_t i = a; i < b; i++)
        if (add_kernel(s, &t->gpu[ge[i].event], rr->wait_ns, ge[i].event, inter)) return -1;
    tc_ivset_normalize(&s->comm);
    tc_ivset_normalize(&s->heads);
    tc_ivset_normalize(&s->tails);
    memset(out, 0, sizeof *out);
    out->group = ge[a].group;
    out->comm_ns = tc_ivset_length(&s->comm);
    out->exposed_comm_ns = tc_ivset_subtract_length(&s->comm, &s->comp);
    out->exposed_transfer_ns = tc_ivset_subtract_length(&s->tails, &s->comp);
    if (tc_ivset_union(&s->comp, &s->tails, &s->busy)) return -1;
    out->exposed_wait_ns = tc_ivset_subtract_length(&s->heads, &s->busy);
    return 0;
}

int tc_groups_rank(const tc_job *j, tc_rank_result *rr) {
    free(rr->groups);
    rr->groups = NULL;
    rr->n_groups = 0;
    rr->inter_exposed_transfer_ns = 0;
    const tc_trace *t = &j->traces[rr->input];
    group_event *ge;
    size_t n;
    if (!j->n_groups || group_events(j, t, &ge, &n)) return j->n_groups ? -1 : 0;
    if (!n) { free(ge); return 0; }
    rank_sets s;
    tc_ivset *all[] = {&s.comp, &s.comm, &s.heads, &s.tails, &s.busy, &s.inter};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) tc_ivset_init(all[i]);
    size_t groups = 1;
    for (size_t i = 1; i < n; i++) groups += ge[i].group != ge[i - 1].group;
    rr->groups = calloc(groups, sizeof *rr->groups);
    int rc = rr->groups ? 0 : -1;
    for (size_t e = 0; rc == 0 && e < t->n_gpu; e++) {
        const tc_gpu_event *g = &t->gpu[e];
        if (g->kind == TC_GPU_KERNEL && !g->is_comm) rc = tc_ivset_add(&s.comp, g->start_ns, g->start_ns + g->dur_ns);
    }
    tc_ivset_normalize(&s.comp);
    for (size_t a = 0, b; rc == 0 && a < n; a = b) {
        for (b = a; b < n && ge[b].group == ge[a].group;) b++;
        rc = group_figures(j, t, rr, ge, a, b, &s, &rr->groups[rr->n_groups++]);
    }
    if (rc == 0) {
        tc_ivset_normalize(&s.inter);
        rr->inter_exposed_transfer_ns = tc_ivset_subtract_length(&s.inter, &s.comp);
    }
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) tc_ivset_free(all[i]);
    free(ge);
    if (rc) { free(rr->groups); rr->groups = NULL; rr->n_groups = 0; }
    return rc;
}

/* ---- finish: sums, links, bandwidth, rows ------------------------------------------------------- */

/* busbw and its share of the link's rated figure, from the sums. */
static void derive(tc_group_figures *f) {
    f->has_busbw = f->sums.bus_ns > 0;
    f->busbw_GBps = f->has_busbw ? f->sums.bus_bytes / f->sums.bus_ns : 0; /* bytes/ns = GB/s */
    f->has_share = f->has_busbw && f->link.id && f->link.rated_GBps > 0;
    f->share_of_rated = f->has_share ? f->busbw_GBps / f->link.rated_GBps : 0;
}

void tc_group_link_set(tc_group_link *l, const char *id, const char *name, double rated) {
    memset(l, 0, sizeof *l);
    l->id = id;
    tc_format(l->name, sizeof l->name, "%s", name);
    l->rated_GBps = rated;
}

bool tc_groups_fabric_link(const tc_analyze_options *opt, tc_group_link *l) {
    if (opt->fabric) { tc_group_link_set(l, opt->fabric->id, opt->fabric->name, opt->fabric->rated_GBps); return true; }
    if (!(opt->nic_gbps > 0)) return false;
    char name[32];
    tc_format(name, sizeof name, "NIC %.6g Gb/s", opt->nic_gbps);
    tc_group_link_set(l, "nic", name, opt->nic_gbps / 8);
    return true;
}

/* The link inside a node of g: that of its first rank among the inputs (rank order) with a catalog
 * GPU, else of the job's first rank with one. */
static void intra_link(const tc_job *j, const tc_process_group *g, tc_group_link *l) {
    const tc_gpu_spec *gpu = NULL;
    for (size_t r = 0, a = 0; r < j->n_ranks && !gpu; r++) {
        while (a < g->n_ranks && g->ranks[a] < j->ranks[r].rank) a++;
        if (a < g->n_ranks && g->ranks[a] == j->ranks[r].rank) gpu = j->ranks[r].gpu;
    }
    for (size_t r = 0; r < j->n_ranks && !gpu; r++) gpu = j->ranks[r].gpu;
    const tc_link_spec *s = tc_link_of_gpu(gpu);
    if (s) tc_group_link_set(l, s->id, s->name, s->rated_GBps);
    else memset(l, 0, sizeof *l);
}

static bool same_row(const tc_process_group *a, const tc_process_group *b) {
    return a->desc && b->desc && strcmp(a->desc, b->desc) == 0 && a->f.scope == b->f.scope &&
           ((!a->f.link.id && !b->f.link.id) ||
            (a->f.link.id && b->f.link.id && strcmp(a->f.link.id, b->f.link.id) == 0));
}

/* The rows: groups with comm kernels, those of one description, scope and link folded, in the
 * order of their first group. 0, or -1 out of memory. */
static int fold_rows(tc_job *j) {
    j->group_rows = calloc(j->n_groups ? j->n_groups : 1, sizeof *j->group_rows);
    if (!j->group_rows) return -1;
    int64_t w = j->summary.b.window_ns;
    for (size_t i = 0; i < j->n_groups; i++) {
        tc_process_group *g = &j->groups[i];
        g->row = SIZE_MAX;
        if (g->f.sums.comm_ns <= 0) continue;
        size_t k = 0;
        while (k < j->n_group_rows && !same_row(&j->groups[j->group_rows[k].first], g)) k++;
        tc_group_row *row = &j->group_rows[k];
        g->row = k;
        if (k == j->n_group_rows) {
            j->n_group_rows++;
            row->first = i;
            row->f = g->f;
            memset(&row->f.sums, 0, sizeof row->f.sums);
        }
        row->groups++;
        row->f.partial |= g->f.partial;
        tc_group_sums *s = &row->f.sums;
        s->comm_ns += g->f.sums.comm_ns;
        s->exposed_comm_ns += g->f.sums.exposed_comm_ns;
        s->exposed_transfer_ns += g->f.sums.exposed_transfer_ns;
        s->exposed_wait_ns += g->f.sums.exposed_wait_ns;
        s->bus_bytes += g->f.sums.bus_bytes;
        s->bus_ns += g->f.sums.bus_ns;
    }
    for (size_t k = 0; k < j->n_group_rows; k++) {
        tc_group_row *row = &j->group_rows[k];
        derive(&row->f);
        row->exposed_comm_share = w > 0 ? (double)row->f.sums.exposed_comm_ns / (double)w : 0;
        row->exposed_transfer_share = w > 0 ? (double)row->f.sums.exposed_transfer_ns / (double)w : 0;
    }
    return 0;
}

int tc_groups_finish(tc_job *j, const tc_analyze_options *opt) {
    tc_summary *sm = &j->summary;
    sm->has_fabric = tc_groups_fabric_link(opt, &sm->fabric);
    for (size_t i = 0; i < j->n_groups; i++) { /* bus_bytes and bus_ns came from matching */
        tc_group_sums *s = &j->groups[i].f.sums;
        s->comm_ns = s->exposed_comm_ns = s->exposed_transfer_ns = s->exposed_wait_ns = 0;
    }
    sm->inter_exposed_transfer_ns = 0;
    for (size_t r = 0; r < j->n_ranks; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        sm->inter_exposed_transfer_ns += rr->inter_exposed_transfer_ns;
        for (size_t k = 0; k < rr->n_groups; k++) {
            const tc_rank_group *rg = &rr->groups[k];
            if (rg->group >= j->n_groups) continue;
            tc_group_sums *s = &j->groups[rg->group].f.sums;
            s->comm_ns += rg->comm_ns;
            s->exposed_comm_ns += rg->exposed_comm_ns;
            s->exposed_transfer_ns += rg->exposed_transfer_ns;
            s->exposed_wait_ns += rg->exposed_wait_ns;
        }
    }
    double bus_bytes = 0, bus_ns = 0;
    sm->has_scoped_groups = false;
    sm->inter_groups = sm->groups_without_comm = 0;
    for (size_t i = 0; i < j->n_groups; i++) {
        tc_process_group *g = &j->groups[i];
        g->f.split_known = sm->split_known;
        g->f.partial = g->size <= 0 || g->ranks_present < g->size;
        if (g->f.scope == TC_SCOPE_INTRA) intra_link(j, g, &g->f.link);
        else if (g->f.scope == TC_SCOPE_INTER && sm->has_fabric) g->f.link = sm->fabric;
        else memset(&g->f.link, 0, sizeof g->f.link);
        derive(&g->f);
        if (g->f.sums.comm_ns <= 0) { sm->groups_without_comm++; continue; }
        if (g->f.scope != TC_SCOPE_UNKNOWN) sm->has_scoped_groups = true;
        if (g->f.scope != TC_SCOPE_INTER) continue;
        sm->inter_groups++;
        bus_bytes += g->f.sums.bus_bytes;
        bus_ns += g->f.sums.bus_ns;
    }
    for (size_t i = 0; i < j->n_colls; i++) { /* each collective row against its group's link */
        tc_collective_result *c = &j->colls[i];
        const tc_group_link *l = c->group < j->n_groups ? &j->groups[c->group].f.link : NULL;
        c->has_share = c->has_bw && l && l->id && l->rated_GBps > 0;
        c->share_of_rated = c->has_share ? c->busbw_GBps / l->rated_GBps : 0;
    }
    sm->has_inter_busbw = bus_ns > 0;
    sm->inter_busbw_GBps = bus_ns > 0 ? bus_bytes / bus_ns : 0;
    free(j->group_rows);
    j->group_rows = NULL;
    j->n_group_rows = 0;
    return fold_rows(j);
}
