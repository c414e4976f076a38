/* nccl_alone.h: what NCCL Inspector logs say without a PyTorch trace (docs/nccl.md "Logs alone"):
 * per communicator its ranks, nodes and hosts, NCCL's bus bandwidth per collective and message size
 * against the rated link, and the rank NCCL's GPU timings show arriving last. Filled by
 * analyzer/nccl_alone.h from a tc_nccl_log (model/nccl.h), rendered by reports/nccl_alone_report.h;
 * owned by the caller (tc_nccl_alone_free). */
#ifndef TC_NCCL_ALONE_H
#define TC_NCCL_ALONE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nccl.h"
#include "process_groups.h"

#define TC_NCCL_EXACT_SIZES 8 /* a communicator with at most this many distinct sizes gets exact-size rows */

/* One row of the bandwidth table: one collective kind and one message size (or size bin). */
typedef struct {
    uint8_t coll;            /* tc_nccl_coll */
    int64_t lo, hi;          /* bytes: lo == hi one exact size, else the bin [lo, hi] = [2^k, 2^(k+1) - 1] */
    int64_t records;         /* GPU-timed records of every rank */
    double bus_bytes;        /* Σ bytes x bus factor */
    double exec_us;          /* Σ coll_exec_time_us */
    bool has_busbw;
    double busbw_GBps;       /* bus_bytes / exec_us / 1e3 */
    bool has_share;
    double share_of_rated;   /* busbw_GBps / the link's rated GB/s */
} tc_nccl_size_row;

/* One rank of a communicator as its records show it. */
typedef struct {
    int32_t rank;            /* header.rank */
    uint16_t file;           /* the log of its first record (tc_nccl_log.files): hostname, pid */
    int64_t last;            /* decided sequences where it alone had the shortest exec time */
    double caused_wait_us;   /* Σ over those: Σ over the other ranks of (their exec - its exec) */
} tc_nccl_comm_rank;

/* How a communicator's scope (inside a node or across nodes) was chosen. */
typedef enum {
    TC_NCCL_SCOPE_FROM_NONE = 0, /* unknown: no nnodes, and its logs do not say */
    TC_NCCL_SCOPE_FROM_NNODES,   /* header.nnodes */
    TC_NCCL_SCOPE_FROM_HOSTS     /* the hostnames of its logs: two or more, or one with every rank's log */
} tc_nccl_scope_from;

/* One communicator: the records of one (header.id, n_ranks). */
typedef struct {
    uint64_t id;             /* header.id */
    int32_t n_ranks;         /* header.n_ranks */
    int32_t nnodes;          /* header.nnodes, 0 absent */
    tc_nccl_comm_rank *ranks; size_t n_seen; /* the ranks with records, ascending (owned) */
    const char **hosts; size_t n_hosts; /* distinct hostnames of its logs, by name (into the log; owned array) */
    int64_t records;         /* its Inspector records, of every rank */
    int64_t cpu_timed;       /* of them timed on the CPU (kernel_cpu, collective_cpu): in no figure below */
    int64_t gpu_records;     /* the others (kernel_gpu, or no timing source: taken as GPU time) */
    double bus_bytes, exec_us; /* their sums, as the rows' */
    bool has_busbw;
    double busbw_GBps;       /* bus_bytes / exec_us / 1e3 over every rank's GPU-timed records */
    bool scope_known;
    tc_group_scope scope;    /* TC_SCOPE_INTRA or TC_SCOPE_INTER, valid if scope_known */
    tc_nccl_scope_from scope_from;
    tc_group_link link;      /* the rated link (id NULL: unknown) */
    bool has_share;
    double share_of_rated;
    bool exact_sizes;        /* rows of exact sizes (few distinct), else power-of-two bins */
    tc_nccl_size_row *rows; size_t n_rows; /* by kind, then size (owned) */
    /* sequences: one (kind, coll_sn), the same collective on every rank */
    int64_t sequences;       /* with a GPU-timed record */
    int64_t complete;        /* of them with the GPU-timed record of every rank, once each */
    int64_t decided;         /* of those, one rank alone with the shortest exec time */
    double charged_us;       /* Σ caused_wait_us of every rank */
    double complete_exec_us; /* Σ exec of every record of the complete sequences */
    bool has_straggler;
    size_t straggler;        /* index into ranks, valid if has_straggler */
    /* the profiler plugin's COLL records of this id (CommHash = header.id), of every rank */
    int64_t plugin_records;
    int64_t mix_records[TC_NCCL_MAX_MIXES]; /* of them per tc_nccl_log.mixes entry */
    /* its Inspector records that name their algorithm and protocol (format v4.2+), per mixes entry */
    int64_t inspector_mix_records[TC_NCCL_MAX_MIXES];
} tc_nccl_comm;

/* The job as its NCCL logs alone show it. */
typedef struct {
    tc_nccl_comm *comms; size_t n_comms; /* by id, then n_ranks (owned) */
    int64_t records;         /* Inspector records read */
    int64_t plugin_records;  /* profiler plugin COLL records read */
    int64_t plugin_unplaced; /* of them of an id no Inspector communicator has (in no figure) */
    size_t inspector_files, plugin_files;
    size_t prom_files, prom_rows; /* Inspector Prometheus textfiles and rows read (in no figure: means per bucket) */
} tc_nccl_alone;

/* Frees what c / a holds (not the log they point into); a is zeroed. */
void tc_nccl_comm_free(tc_nccl_comm *c);
void tc_nccl_alone_free(tc_nccl_alone *a);
#endif
