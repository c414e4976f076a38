/* nccl.h: NCCL's own account of a job's collectives (docs/nccl.md): the records of NCCL Inspector
 * JSON logs as parsers/nccl_inspector.h reads them, kept compactly (one fixed-size record per
 * collective per communicator per rank, strings once per file), and what analyzer/nccl_join.h
 * makes of them per process group and for the job. Owned by tc_job (tc_nccl_free). */
#ifndef TC_NCCL_H
#define TC_NCCL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/status.h"

/* The collectives an Inspector record names (coll_perf.coll). */
typedef enum {
    TC_NCCL_OTHER = 0, TC_NCCL_ALLREDUCE, TC_NCCL_ALLGATHER, TC_NCCL_REDUCESCATTER, TC_NCCL_BROADCAST,
    TC_NCCL_REDUCE, TC_NCCL_ALLTOALL, TC_NCCL_N_COLLS
} tc_nccl_coll;

/* coll_perf.coll_timing_source: kernel_gpu (GPU timer), kernel_cpu, collective_cpu; absent in
 * the oldest format (taken as unknown). */
typedef enum { TC_NCCL_TIMING_UNKNOWN = 0, TC_NCCL_TIMING_KERNEL_GPU, TC_NCCL_TIMING_KERNEL_CPU,
               TC_NCCL_TIMING_COLLECTIVE_CPU } tc_nccl_timing;

/* One Inspector record (56 bytes). */
typedef struct {
    uint64_t comm_id;     /* header.id (hex), 0 when absent */
    int64_t sn;           /* coll_perf.coll_sn: NCCL's sequence number of the communicator's
                           * collectives of this kind */
    int64_t bytes;        /* coll_perf.coll_msg_size_bytes */
    double exec_us;       /* coll_perf.coll_exec_time_us */
    int64_t dump_us;      /* metadata.dump_timestamp_us: when the record was written (µs since
                           * 1970, the host's clock), 0 absent; after its collective ended */
    int32_t rank;         /* header.rank: the rank within the communicator */
    int32_t n_ranks;      /* header.n_ranks */
    uint16_t nnodes;      /* header.nnodes, 0 absent */
    uint16_t file;        /* index into tc_nccl_log.files */
    uint8_t coll;         /* tc_nccl_coll */
    uint8_t timing;       /* tc_nccl_timing */
    uint8_t plugin;       /* 1: a COLL event of the example profiler plugin's trace (no exec time;
                           * dump_us is its "ts", µs on the plugin's own clock; n_ranks is filled by the join, bytes = Count x the
                           * datatype's size until then), 0: an Inspector record */
    uint8_t mix;          /* index into tc_nccl_log.mixes (algorithm, protocol, channels): plugin records;
                           * Inspector records of v4.2+ (coll_algo, coll_proto; the verbose form's
                           * channels), TC_NCCL_NO_MIX when the record names none */
} tc_nccl_record;
#define TC_NCCL_NO_MIX 255

/* One Inspector p2p_perf record (a Send or Recv of one rank of a communicator): its header as a
 * tc_nccl_record's, p2p_sn (NCCL's sequence number of the communicator's point-to-point operations
 * of this rank), p2p_peer (the peer's rank in the communicator), p2p_msg_size_bytes,
 * p2p_exec_time_us, p2p_timing_source. */
typedef struct {
    uint64_t comm_id;
    int64_t sn, bytes;
    double exec_us;
    int64_t dump_us;      /* metadata.dump_timestamp_us, 0 absent */
    int32_t rank, n_ranks, peer;
    uint16_t file;
    uint8_t send;         /* 1 "Send", 0 "Recv" */
    uint8_t timing;       /* tc_nccl_timing */
} tc_nccl_p2p;

/* One algorithm / protocol / channel count a plugin COLL event names (strings as NCCL writes
 * them: "Ring", "LL"; channels -1 absent). */
typedef struct { char algorithm[16]; char protocol[16]; int32_t channels; } tc_nccl_mix;
#define TC_NCCL_MAX_MIXES 64 /* distinct mixes kept; later ones are counted in the last */

/* One Inspector log file (one process). */
typedef struct {
    char *path;           /* owned */
    char *hostname;       /* metadata.hostname of its first record; NULL absent (owned) */
    int64_t pid;          /* metadata.pid, -1 absent */
    char version[16];     /* metadata.inspector_output_format_version ("v4.0"), "" absent */
    size_t records;       /* its records in tc_nccl_log.records */
    size_t skipped;       /* objects that could not be read (warnings) */
    bool plugin;          /* an example profiler plugin trace, not an Inspector log */
    bool lenient;         /* plugin: values that are not JSON (unquoted ncclBfloat16, 0x7f...) read */
    bool prom;            /* an Inspector Prometheus textfile (rows in tc_nccl_log.proms; records = its rows) */
    size_t prom_other;    /* its lines of other NCCL metrics read past (p2p buckets, per-device totals) */
    size_t dump_stats;    /* Inspector v4.2+: its dump_stats records (one per communicator and dump) */
    int64_t ring_dropped; /* their Σ coll_dropped_since_last_dump: records NCCL's ring buffer dropped */
} tc_nccl_file;

/* Where a proxy step's time went, by the example plugin's NET step-state events (docs/nccl.md
 * "Proxy steps"): GPU (SendGpuWait, RecvGpuWait), peer (SendPeerWait), network (SendWait,
 * RecvWait), other (RecvFlushWait; SendBufferWait and RecvBufferWait of versions before 2.27). */
typedef enum { TC_NCCL_PX_GPU = 0, TC_NCCL_PX_PEER, TC_NCCL_PX_NET, TC_NCCL_PX_OTHER, TC_NCCL_PX_N } tc_nccl_px;

/* The proxy steps of one plugin COLL record (the NET events nested in its COLL event). */
typedef struct {
    uint64_t comm_id;     /* the COLL event's CommHash */
    int64_t sn;           /* its SeqNum */
    double ns[TC_NCCL_PX_N]; /* time in each state class (ns; a state counts when its "b" and "e" were read) */
    int32_t steps;        /* steps whose last state (SendWait, RecvGpuWait) ended */
    uint16_t file;        /* index into tc_nccl_log.files */
    uint8_t coll;         /* tc_nccl_coll */
} tc_nccl_proxy;

/* One Prometheus textfile row of the Inspector (nccl_inspector_metrics_<GPU UUID>.prom): a bucket of
 * one GPU's collectives of one communicator name, size, kind, message-size range and algo_proto. */
typedef struct {
    char comm_name[64];   /* comm_name label ("unknown" as NCCL writes it when it has none) */
    char node[64];        /* node label (the host) */
    char algorithm[16], protocol[16]; /* algo_proto split at its last '_' ("RING", "LL128") */
    int64_t size_lo;      /* message_size's lower bound (bytes): "2-3MB" is [2 MiB, 3 MiB) */
    int64_t size_hi;      /* its upper bound (exclusive) */
    double busbw_GBps;    /* nccl_bus_bandwidth_gbs: NCCL's geometric mean of the bucket's busbw; -1 absent */
    double exec_us;       /* nccl_collective_exec_time_microseconds: their mean exec time; -1 absent */
    int32_t n_ranks, n_nodes;
    int32_t device;       /* the gpu label's CUDA device index ("GPU3"), -1 absent */
    uint16_t file;        /* index into tc_nccl_log.files */
    uint8_t coll;         /* tc_nccl_coll */
} tc_nccl_prom;

typedef struct {
    tc_nccl_file *files; size_t n_files, cap_files;
    tc_nccl_record *records; size_t n_records, cap_records;
    tc_nccl_mix mixes[TC_NCCL_MAX_MIXES]; size_t n_mixes;
    tc_nccl_proxy *proxies; size_t n_proxies, cap_proxies; /* per plugin COLL record with proxy steps */
    int64_t proxy_steps_p2p; /* proxy steps under P2P events or outside any COLL (not joined) */
    tc_nccl_prom *proms; size_t n_proms, cap_proms;       /* Prometheus rows */
    tc_nccl_p2p *p2ps; size_t n_p2ps, cap_p2ps;           /* Inspector p2p_perf records */
} tc_nccl_log;

/* Why a collective of the trace or a record has no partner (analyzer/nccl_join.h). */
typedef struct {
    int64_t joined;          /* records joined to the collective kernel they describe */
    int64_t below_min_size;  /* kernels without a record whose message is under the floor */
    int64_t dropped;         /* kernels of at least the floor without a record (ring buffer, window) */
    int64_t cpu_timed;       /* records of a kernel timed on the CPU (not joined: not GPU time) */
    int64_t size_mismatch;   /* records whose message size differs from the kernel's */
} tc_nccl_counts;

/* One process group's NCCL figures: counts summed over the group's ranks. */
typedef struct {
    bool has;                /* counted: it has an Inspector communicator, or kernels on ranks with logs */
    bool has_comm;           /* an Inspector communicator was found for the group */
    uint64_t comm_id;        /* header.id of that communicator (the first rank's); valid if has_comm */
    tc_nccl_counts c;
    double bus_bytes;        /* Σ joined records' bytes × bus factor */
    double exec_us;          /* Σ their coll_exec_time_us */
    bool has_busbw;
    double busbw_GBps;       /* bus_bytes / exec_us / 1e3 */
    bool has_plugin;         /* a plugin trace's communicator was found for the group */
    int64_t plugin_joined;   /* plugin COLL records joined to their kernel (summed over ranks) */
    int64_t plugin_dropped;  /* kernels of ranks with the group's plugin trace without a record */
    int64_t plugin_size_mismatch; /* plugin records of another message size (not joined) */
    int64_t mix_records[TC_NCCL_MAX_MIXES]; /* joined plugin records per tc_nccl_log.mixes entry */
    int64_t inspector_mix_records[TC_NCCL_MAX_MIXES]; /* joined Inspector records (v4.2+) per mixes entry */
    /* proxy time (the plugin trace's PROXY / NET step events of the group's communicator): where
     * the proxy's steps spent their time; shares of proxy_ns, valid when has_proxy */
    bool has_proxy;
    int64_t proxy_steps;     /* proxy step events read, summed over ranks */
    double proxy_ns;         /* their summed time */
    double proxy_gpu_wait_share, proxy_peer_wait_share, proxy_net_share;
    /* (nccl-in) the rest of proxy_ns: RecvFlushWait and the older versions' BufferWait states */
    double proxy_other_share;
    double proxy_class_ns[TC_NCCL_PX_N]; /* the sums the shares divide (ns), per tc_nccl_px */
    int64_t prom_rows;       /* Prometheus rows joined to the group (one per rank and bucket) */
    /* point-to-point (analyzer/nccl_p2p_join.c): Inspector p2p_perf records against the group's
     * SendRecv kernels with peer args, summed over ranks; peer_mismatch: a record of the other
     * direction or another peer at the kernel's place in sequence (not joined) */
    bool has_p2p;            /* a rank with an Inspector log has P2P kernels of the group, or records */
    bool has_p2p_comm;       /* p2p_perf records of a communicator found for the group */
    tc_nccl_counts p2p;
    int64_t p2p_peer_mismatch;
    double p2p_bytes;        /* Σ joined records' p2p_msg_size_bytes (bus factor 1) */
    double p2p_exec_us;      /* Σ their p2p_exec_time_us */
    double p2p_trace_ns;     /* Σ their kernels' transfer (duration − wait head), ns */
    bool p2p_trace_unsplit;  /* a joined record's kernel has no wait split (unpaired): no trace figure */
    bool has_p2p_busbw, has_trace_p2p_busbw;
    double p2p_busbw_GBps;   /* p2p_bytes / p2p_exec_us / 1e3 */
    double trace_p2p_busbw_GBps; /* p2p_bytes / p2p_trace_ns */
} tc_nccl_group;

/* One Prometheus bucket of a process group, its ranks' rows merged (analyzer/nccl_prom_join.c). */
typedef struct {
    size_t pg;               /* index into tc_job.groups */
    uint8_t coll;            /* tc_nccl_coll */
    int64_t size_lo, size_hi;/* message_size's range [lo, hi) bytes */
    char algorithm[16], protocol[16];
    int64_t ranks;           /* rows merged: one per GPU (rank) that wrote the bucket */
    bool has_busbw, has_exec;
    double busbw_GBps;       /* the geometric mean of the rows' nccl_bus_bandwidth_gbs (each rank weighs the same) */
    double exec_us;          /* the mean of the rows' nccl_collective_exec_time_microseconds */
} tc_nccl_prom_mix;

/* The job's NCCL result. */
typedef struct {
    bool present;            /* NCCL logs were given or found */
    tc_nccl_log log;
    tc_nccl_group *groups;   /* per tc_job.groups entry (n_groups), NULL when none */
    tc_nccl_counts c;        /* the job's sums */
    int64_t records_unplaced;/* records of a file or communicator no rank or group of the trace has */
    int64_t outside_trace;   /* records of a joined communicator outside the trace's collectives */
    int64_t plugin_unplaced; /* plugin COLL records of a file or communicator no rank or group has */
    int64_t plugin_outside;  /* plugin COLL records of a joined communicator outside the trace's collectives */
    tc_nccl_prom_mix *prom_mix; size_t n_prom_mix; /* by group, then as first read (owned) */
    int64_t prom_joined;     /* Prometheus rows joined to a process group */
    int64_t p2p_unplaced;    /* p2p_perf records of a file or communicator no rank or group has */
    int64_t p2p_outside;     /* p2p_perf records of a joined communicator outside the trace's P2P kernels */
    int64_t prom_unplaced;   /* Prometheus rows no process group (or several) fits */
    int64_t min_size;        /* the size floor assumed (NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES; --nccl-min-size) */
    bool min_size_given;     /* min_size was given (0 is a floor then); else the join takes the default */
    char **notes; size_t n_notes, cap_notes; /* owned */
} tc_nccl_result;

#define TC_NCCL_DEFAULT_MIN_SIZE 8192 /* NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES's default */

/* The collective an Inspector "coll" or a trace's collective name / kernel name names. */
tc_nccl_coll tc_nccl_coll_of(const char *name);
const char *tc_nccl_coll_name(tc_nccl_coll c); /* "AllReduce", ...; "other" */
void tc_nccl_log_free(tc_nccl_log *l);
void tc_nccl_free(tc_nccl_result *r);
/* Adds a note (printf format); 0, or -1 out of memory. */
int tc_nccl_note(tc_nccl_result *r, const char *fmt, ...) TC_FORMAT_LIKE(2, 3);
#endif
