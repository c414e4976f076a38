/* coll_instances.h: the job's matched collective instances as results (analyzer/collectives.h
 * finds them): one record per instance, the comm kernel of each of its ranks, and the matching
 * group each belongs to. What the step graph and the replay (issue 29) and the per-group time
 * model build on; owned by tc_job, freed by tc_job_free. Unmatched comm kernels have no instance. */
#ifndef TC_COLL_INSTANCES_H
#define TC_COLL_INSTANCES_H
#include <stddef.h>
#include <stdint.h>
#include "process_groups.h"
#include "replay.h"

/* One rank's kernel of an instance. */
typedef struct {
    uint32_t rank;  /* index into tc_job.ranks */
    uint32_t event; /* index into that rank's trace gpu[] */
} tc_inst_member;

/* One matching group: a process group when the kernels name one, else a stream (kernels of one
 * stream and collective name match by order). */
typedef struct {
    char *shown;          /* as reports name it: "pg 0 (default_pg)", "stream 20" (owned) */
    size_t pg;            /* its process group in tc_job.groups, SIZE_MAX none */
    tc_group_scope scope; /* the process group's scope when known, else from the nodes of the ranks
                           * its instances hold (tc_node_of_rank); TC_SCOPE_UNKNOWN when a node is unknown */
    uint32_t ranks_with;  /* ranks among the inputs that have this group */
    int64_t group_size;   /* from the collective args, -1 unknown */
    tc_coll_model model;  /* its collective time model (analyzer/comm_model.h); fit NONE until fitted */
    /* the fabric what-if (analyzer/fabric_replay.h): set when the fabric changes this group */
    bool what_if;         /* an inter-node group (or of unknown scope on several nodes) with a model */
    tc_coll_model projected;      /* its model on the target fabric */
    int64_t transfer_ns;          /* Σ its instances' measured transfer */
    int64_t projected_transfer_ns;/* Σ their transfer on the target (tc_comm_model_project) */
} tc_inst_group;

/* One matched instance: every rank of its group that is among the inputs has it, once. */
typedef struct {
    uint32_t group;       /* index into tc_job.inst_groups */
    uint32_t first, n;    /* its kernels: tc_job.inst_members[first, first + n), by rank index */
    uint32_t name;        /* strtab id, in the first member's trace, of the collective's name (its
                           * args' "Collective name", else the kernel's name) */
    uint32_t pad;         /* explicit padding, 0 */
    int64_t bytes;        /* S per nccl-tests (tc_collective_bytes); -1 unknown */
    double bus_factor;    /* nccl-tests bus factor for its collective and group size; 0 unknown */
    int64_t group_size;   /* ranks in its group (args, else the group's, else n) */
    int64_t transfer_ns;  /* measured transfer: the minimum kernel duration over its ranks */
} tc_coll_instance;
#endif
