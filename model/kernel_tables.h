/* kernel_tables.h: the job's tables of GPU work by name: the top compute kernels (analyzer/mfu.c),
 * every GPU event name's aggregate (analyzer/kernel_aggs.h) and the collectives by process group,
 * name and message size (analyzer/collectives.c). */
#ifndef TC_KERNEL_TABLES_H
#define TC_KERNEL_TABLES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One row of the top-kernels table (mfu.c): compute kernels by summed time over all ranks. */
typedef struct {
    char *name;                   /* kernel name */
    int64_t time_ns;              /* summed duration over ranks, ns */
    uint64_t count;               /* launches over ranks */
    double share_of_compute;      /* time_ns / summed duration of all compute kernels */
    bool has_tflops;
    double achieved_tflops;       /* FLOPs of its ops (by External id) / its time with known FLOPs, TFLOP/s */
} tc_kernel_row;

/* GPU events of one (exact name, kind) over all ranks: the HTML kernels table (kernel_aggs.c). */
typedef struct {
    char *name; size_t len;       /* the name's bytes (NUL-terminated copy) */
    uint8_t kind;                 /* 0 compute, 1 collective, 2 memcpy, 3 memset */
    uint32_t ranks;               /* ranks it ran on */
    uint64_t count;               /* launches */
    int64_t total_ns;             /* summed duration, ns */
    int64_t max_ns;               /* longest launch, ns (0 when none is longer) */
} tc_kernel_agg;

/* One (process group, collective, message size) row. */
typedef struct {
    char *name;             /* collective name (allreduce, ...) or kernel name when no args */
    char *process_group;    /* group name, or a description of how it was grouped */
    char *dtype;            /* NULL unknown */
    int64_t group_size;     /* ranks; -1 unknown */
    uint64_t count;         /* matched instances */
    int64_t bytes;          /* S per nccl-tests; -1 unknown */
    int64_t transfer_ns_median;
    int64_t wait_ns_total;  /* summed over ranks and instances */
    double algbw_GBps, busbw_GBps; /* valid if has_bw */
    bool has_bw;
    size_t group;           /* index into tc_job.groups of its process group; SIZE_MAX none */
    bool has_share;
    double share_of_rated;  /* busbw / the rated figure of its group's link (groups.h); valid if has_share */
} tc_collective_result;
#endif
