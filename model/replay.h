/* replay.h: the results of replaying the job's step graph (analyzer/replay.h builds the graph and
 * re-times it; docs/definitions.md "Replay" and "Critical path"): the identity check, the
 * reference and projected step times the money uses, the per-group collective time model, and the
 * critical path of every step across ranks. Owned by tc_summary / tc_job; freed by tc_job_free. */
#ifndef TC_REPLAY_H
#define TC_REPLAY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a stretch of the critical path is (the shares of tc_critical_path). */
typedef enum {
    TC_CP_COMPUTE = 0,         /* a compute kernel */
    TC_CP_TRANSFER_INTRA,      /* a collective's transfer in a group within one node */
    TC_CP_TRANSFER_INTER,      /* a collective's transfer in a group across nodes (or of unknown scope) */
    TC_CP_HOST_LAUNCH,         /* a launch call, and the launch latency before its op */
    TC_CP_HOST_SYNC,           /* a synchronizing call's own time (its return) */
    TC_CP_HOST_CPU,            /* the host's own time between calls */
    TC_CP_MEMORY,              /* a memcpy or memset */
    TC_CP_IDLE,                /* time no event of the graph explains (gaps kept as measured) */
    TC_CP_CLASSES
} tc_cp_class;

/* JSON key of each class ("compute", "transfer_intra_node", ...), in tc_cp_class order. */
extern const char *const tc_cp_class_key[TC_CP_CLASSES];

typedef struct {
    int64_t rank;              /* global rank */
    int64_t ns;                /* path time on that rank */
    int64_t compute_ns;        /* of which compute */
} tc_cp_rank;

typedef struct {
    const char *name;          /* the op's or call's name: borrowed, a string of the job's traces
                                * or a constant, alive as long as the job */
    uint8_t kind;              /* tc_cp_class */
    int64_t rank;              /* global rank */
    int64_t ns;                /* summed path time of this name, kind and rank */
} tc_cp_top;

#define TC_CP_TOP 10

/* One stretch of a step's path, for drawing it on the timeline (reports/html_timeline.c): an op, a
 * call or a gap the path runs through, in time order. */
typedef struct {
    uint32_t rank;             /* index into tc_job.ranks */
    uint8_t kind;              /* tc_cp_class */
    int64_t start_ns, end_ns;  /* on that rank's trace clock, as its gpu[] events' start_ns (the
                                * replayed times of the unchanged graph: the measured ones) */
} tc_cp_segment;

/* The critical path of one step (or summed over all steps): the longest path through the
 * replayed graph from the step's first event on any rank to its last; its length is the step. */
typedef struct {
    int64_t number;            /* N of ProfilerStep#N; -1 for the sum over steps */
    int64_t step_ns;           /* the path's length = the replayed step time (summed over steps for -1) */
    int64_t class_ns[TC_CP_CLASSES]; /* adds up to step_ns */
    tc_cp_rank *by_rank; size_t n_by_rank;   /* ranks the path runs through, most time first (owned) */
    tc_cp_top top[TC_CP_TOP]; size_t n_top;  /* the stretches with most time, most first */
    tc_cp_segment *segs; size_t n_segs;      /* the path's stretches in time order (owned; per step
                                              * only, NULL for the sum over steps; may be NULL) */
} tc_critical_path;

/* One matching group's collective time model: transfer = alpha + bytes * bus_factor / beta. */
typedef enum {
    TC_FIT_NONE = 0,           /* no model */
    TC_FIT_SIZES,              /* least squares over two or more message sizes */
    TC_FIT_RATED,              /* beta the group's link rating, alpha the rest */
    TC_FIT_MEASURED            /* alpha 0, beta the group's own bus bandwidth: no rating, or the fits
                                * above came out negative (analyzer/comm_model.c) */
} tc_fit_kind;
typedef struct {
    tc_fit_kind fit;           /* NONE: no model (no instance with known bytes) */
    double alpha_us;           /* per-collective latency, µs */
    double beta_GBps;          /* bus bandwidth, GB/s (GB = 1e9 B) */
    size_t instances;          /* matched instances the fit used */
} tc_coll_model;

typedef struct {
    bool has;                  /* the graph was built and replayed (else note says why) */
    char *note;                /* why there is no replay, or what it left out (owned); NULL none */
    /* what the graph holds */
    uint64_t ops;              /* GPU ops placed in the graph */
    uint64_t ops_unplaced;     /* ops it kept at their measured time and position (no launch found) */
    uint64_t ops_unmatched;    /* of ops, collective kernels left unmatched across ranks: placed on their
                                * stream and launch, with their measured duration (no transfer to re-time) */
    uint64_t event_deps;       /* cross-stream dependencies from event record / wait calls */
    uint64_t inferred_deps;    /* cross-stream dependencies inferred from timing */
    uint64_t sync_calls;       /* synchronizing calls tied to the GPU work they wait for */
    uint64_t poll_waits;       /* runs of query calls (cudaEventQuery, ...) tied to the GPU op they polled for */
    uint64_t step_tails;       /* steps ended at their last GPU op, which ran past the CPU span */
    /* step times, mean over ranks of each rank's mean step time, ns */
    int64_t measured_step_ns;  /* as measured (the same steps the replay covers) */
    int64_t replayed_step_ns;  /* the unchanged graph re-timed: equals measured when the graph is right */
    double identity_error;     /* max over ranks and steps of |replayed − measured| / measured */
    bool has_reference;
    int64_t reference_step_ns; /* the graph re-timed on the reference (the fabric target when given,
                                * else inter-node transfer taking no time) */
    char reference[64];        /* "ib-ndr", "50 GB/s", or "instant" (a network that moves bytes instantly) */
    bool has_projected;
    int64_t projected_step_ns; /* the graph re-timed with the what-if's fabric target */
    /* the target it was projected for (analyzer/fabric_replay.h): B' and A', each when given */
    bool projected_has_GBps, projected_has_latency;
    double projected_GBps;     /* --fabric-target(-GBps) B', GB/s */
    double projected_latency_us; /* --fabric-target-latency-us A', µs */
    /* per step (ProfilerStep#N present on the ranks), in step order (owned arrays of n_steps) */
    size_t n_steps;
    int64_t *step_number;
    int64_t *step_measured_ns, *step_replayed_ns;  /* mean over ranks */
    int64_t *step_projected_ns;                    /* NULL unless has_projected */
} tc_replay_summary;

/* Frees what a tc_replay_summary / tc_critical_path owns and zeroes it. */
void tc_replay_summary_free(tc_replay_summary *r);
void tc_critical_path_free(tc_critical_path *p);
#endif
