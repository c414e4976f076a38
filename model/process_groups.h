/* process_groups.h: the job's process groups as results (analyzer/groups.h computes them;
 * docs/definitions.md "Process groups"): each group's scope, link and figures, the folded rows of
 * the group tables, and one rank's share of a group. */
#ifndef TC_PROCESS_GROUPS_H
#define TC_PROCESS_GROUPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a process group's ranks run. */
typedef enum {
    TC_SCOPE_UNKNOWN = 0, /* its ranks, or the nodes of some of them, are unknown */
    TC_SCOPE_INTRA,       /* all on one node */
    TC_SCOPE_INTER        /* on two or more nodes */
} tc_group_scope;

/* The link a process group's collectives run over, and what it is rated to carry. */
typedef struct {
    const char *id;           /* links.def id, or "nic" for --nic-gbps (static); NULL: unknown */
    char name[32];            /* display name ("NVLink 4", "NIC 100 Gb/s"); "" when unknown */
    double rated_GBps;        /* per GPU, one direction, GB/s (GB = 1e9 B); valid when id */
} tc_group_link;

/* Sums over a process group's ranks among the inputs (or over the groups of one table row). */
typedef struct {
    int64_t comm_ns;             /* Σ ranks |∪ its comm kernels| */
    int64_t exposed_comm_ns;     /* Σ ranks |∪ its comm kernels − ∪ compute| */
    int64_t exposed_transfer_ns; /* Σ ranks |∪ its transfer tails − ∪ compute| */
    int64_t exposed_wait_ns;     /* Σ ranks |∪ its wait heads − ∪ compute − ∪ its transfer tails| */
    double bus_bytes;            /* Σ S × bus factor over its matched instances of ≥ 1 MiB, bytes */
    double bus_ns;               /* Σ those instances' transfer, ns */
} tc_group_sums;

/* A process group's (or a row's) figures beside its sums. */
typedef struct {
    tc_group_scope scope;
    tc_group_link link;       /* intra-node: the GPU's own link; inter-node: --fabric / --nic-gbps */
    bool split_known;         /* wait and transfer are split (two or more ranks in the job) */
    bool partial;             /* ranks of the group (of a group of the row) are missing from the inputs, or
                               * its size is unknown: exposed transfer an upper bound, wait and busbw
                               * lower bounds */
    tc_group_sums sums;
    bool has_busbw;
    double busbw_GBps;        /* bus_bytes / bus_ns (bytes/ns = GB/s); valid if has_busbw */
    bool has_share;
    double share_of_rated;    /* busbw / link.rated_GBps; valid if has_share */
} tc_group_figures;

/* One process group of the job, joined from every input's pg_config and collective arguments. */
typedef struct {
    char *name;               /* Process Group Name (owned) */
    char *desc;               /* pg_desc / Process Group Description; NULL when no input gives it (owned) */
    int64_t *ranks;           /* its global ranks, ascending (owned); NULL: unknown */
    size_t n_ranks;           /* entries of ranks */
    int64_t size;             /* ranks in the group; -1 unknown */
    int64_t ranks_present;    /* its ranks among the inputs (ranks unknown: the inputs naming it) */
    bool has_nodes;
    int64_t nodes;            /* distinct nodes of its ranks; valid if has_nodes */
    tc_group_figures f;
    size_t row;               /* its row in tc_job.group_rows; SIZE_MAX: none (no comm kernel) */
} tc_process_group;

/* One row of the group tables and of the verdict's fabric reason: the groups of one description,
 * scope and link folded (a group without a description is a row of its own). */
typedef struct {
    size_t first;             /* index into tc_job.groups of its first group (name order) */
    size_t groups;            /* groups folded into it */
    tc_group_figures f;       /* the sums of its groups; busbw from the summed bytes and time */
    double exposed_comm_share;     /* sums.exposed_comm_ns / the summed windows of all ranks */
    double exposed_transfer_share; /* sums.exposed_transfer_ns / the same; valid if f.split_known */
} tc_group_row;

/* One rank's share of a process group (summed into tc_process_group at finish). */
typedef struct {
    uint64_t group;           /* index into tc_job.groups */
    int64_t comm_ns, exposed_comm_ns, exposed_transfer_ns, exposed_wait_ns; /* as tc_group_sums, this rank */
} tc_rank_group;
#endif
