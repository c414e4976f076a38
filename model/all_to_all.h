/* all_to_all.h: the all-to-all(v) imbalance of a job (issue 33 item 2) as results: per matched
 * all-to-all instance the bytes each rank sends, the max/mean ratio, the hot rank and the wait it
 * causes; per matching group the hot rank, its caused wait and the rank-pair byte matrix.
 * analyzer/all_to_all.h fills it; owned by tc_job (tc_a2a_free). Definitions: docs/definitions.md
 * "All-to-all imbalance". */
#ifndef TC_ALL_TO_ALL_H
#define TC_ALL_TO_ALL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One sized all-to-all instance. */
typedef struct {
    uint32_t instance;     /* index into tc_job.instances */
    uint32_t hot;          /* position of the hot rank among the group's ranks (the argmax) */
    int64_t seq;           /* its args' Seq (first rank's), -1 absent */
    double ratio;          /* max / mean of the bytes sent */
    double caused_wait_ns; /* Σ over the other ranks of transfer × (1 − bytes_r / bytes_max) */
    size_t bytes_at;       /* its bytes sent, one per rank of the group: tc_a2a_result.bytes[bytes_at, +n_ranks) */
} tc_a2a_instance;

/* One matching group with all-to-all instances. */
typedef struct {
    uint32_t inst_group;   /* index into tc_job.inst_groups */
    uint32_t n_ranks;      /* its ranks among the inputs (every instance has each once) */
    size_t first, n;       /* its sized instances: tc_a2a_result.instances[first, first + n) */
    size_t unsized;        /* its all-to-all instances without sizes (args, dtype): left out */
    bool deepep;           /* its kernels are DeepEP's dispatch/combine: counted, never sized (their
                            * kernels and ops carry no token counts or sizes; docs/definitions.md) */
    int64_t *ranks;        /* n_ranks rank numbers, in the group's order (owned) */
    int64_t hot_rank;      /* the rank whose instances cause the most wait; -1 when none causes any */
    double caused_wait_ns; /* Σ caused wait of the instances whose hot rank is hot_rank */
    double max_ratio;      /* the largest imbalance ratio of its instances */
    double rank_time_ns;   /* Σ over its sized instances of transfer × n_ranks: the all-to-all time of
                            * its ranks together, what caused_wait_ns is a share of */
    int64_t *pair_bytes;   /* n_ranks × n_ranks, row = sender, column = receiver, Σ over instances (owned) */
} tc_a2a_group;

typedef struct {
    tc_a2a_group *groups; size_t n_groups, cap_groups;
    tc_a2a_instance *instances; size_t n_instances, cap_instances;
    int64_t *bytes; size_t n_bytes, cap_bytes;
} tc_a2a_result;

void tc_a2a_free(tc_a2a_result *a);
#endif
