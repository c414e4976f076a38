/* trace.h: the event model of one input (one rank): only what the analyses need, in compact
 * records, with names interned. Knows no JSON: the parser fills it through tc_trace_add_* calls.
 * Owns every array and string in it; tc_trace_free releases all. Times are integer nanoseconds on
 * the trace's own clock ("trace ns"); absolute ns = base_ns + trace ns when has_base.
 * The event store (the record arrays) is declared by trace_arrays.def, which also lists every field
 * of every record type and says which hold string ids and indexes; free, reserve, append and the
 * MPI encoding walk that list. A field added to a record type here without its entry there fails
 * to compile (trace.c checks that the listed fields fill the record; padding is explicit). */
#ifndef TC_TRACE_H
#define TC_TRACE_H
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "strtab.h"
#include "base/status.h"
#include "base/util.h"

typedef enum { TC_GPU_KERNEL = 0, TC_GPU_MEMCPY = 1, TC_GPU_MEMSET = 2 } tc_gpu_kind;

/* What a memcpy or memset moves between, from its name as Kineto and CUPTI write it ("Memcpy HtoD
 * (Pageable -> Device)", "Memcpy DtoD (Device -> Device)", "Memcpy PtoP ...", "Memset (Device)";
 * A, a CUDA array, counts as device memory). A copy whose name gives no direction is
 * TC_COPY_UNKNOWN. Host copies (the host's memory is one side) are HTOD, DTOH, HTOH and UNKNOWN
 * (as before the split: docs/definitions.md "Copies by kind"); device copies DTOD, PTOP, MEMSET. */
typedef enum {
    TC_COPY_NONE = 0, /* a kernel */
    TC_COPY_HTOD, TC_COPY_DTOH, TC_COPY_HTOH, TC_COPY_UNKNOWN, /* host copies */
    TC_COPY_DTOD, TC_COPY_PTOP, TC_COPY_MEMSET                 /* device copies */
} tc_copy_kind;

/* The copy kind of a GPU event of kind `kind` named name[0, len). */
tc_copy_kind tc_copy_kind_of(tc_gpu_kind kind, const char *name, size_t len);

/* Whether a copy of this kind involves the host's memory (see tc_copy_kind). */
static inline bool tc_copy_is_host(uint8_t copy) { return copy >= TC_COPY_HTOD && copy <= TC_COPY_UNKNOWN; }

/* Every time the event model holds (an event's start and end, baseTimeNanoseconds, and the base
 * plus a GPU event's end) lies strictly within +-2^62 ns (146 years): differences of two such
 * times fit an int64. The parser skips events past it as overflowing and ignores a base past it;
 * tc_trace_settle_times checks the base against the events. Sums are bounded by time_sum_ns. */
#define TC_TIME_LIMIT_NS ((int64_t)1 << 62)

#define TC_DEVICE_NONE (-1)    /* tc_trace.gpu_device: no GPU event on a numeric device */
#define TC_DEVICE_SEVERAL (-2) /* tc_trace.gpu_device: GPU events on more than one device */

typedef struct {
    int64_t start_ns;     /* trace ns */
    int64_t dur_ns;       /* ns, >= 0 */
    uint32_t name;        /* strtab id */
    uint32_t stream;      /* strtab id of the tid text (stream) */
    uint32_t correlation; /* CUPTI correlation id, TC_NONE when absent */
    uint32_t coll;        /* index into tc_trace.colls, TC_NONE when not a collective with args */
    int32_t device;       /* pid as device index, -1 when not numeric */
    uint8_t kind;         /* tc_gpu_kind */
    uint8_t is_comm;      /* its tc_comm_lib (comm_kernels.h): 0 = not communication, else what made
                           * it communication (a library of comm_kernels.def, its args, a user pattern) */
    uint8_t copy;         /* tc_copy_kind (TC_COPY_NONE for kernels) */
    uint8_t reserved;     /* explicit padding, 0 (trace_arrays.def) */
} tc_gpu_event;

/* A ProfilerStep#N span, CPU (user_annotation) or GPU (gpu_user_annotation). */
typedef struct {
    int64_t start_ns; /* trace ns */
    int64_t dur_ns;   /* ns */
    int64_t number;   /* N of ProfilerStep#N */
} tc_step_span;

/* A runtime or driver call (cuda_runtime, cuda_driver, old Runtime): the launch of the GPU work with
 * its correlation id (step assignment, launch statistics), or a call that launched nothing (a sync,
 * an allocation: idle causes, docs/definitions.md), with or without a correlation id. */
typedef struct {
    uint32_t correlation; /* TC_NONE when the call carried none (it sorts last) */
    uint32_t external_id; /* External id of the launching op, TC_NONE when absent */
    int64_t ts_ns;        /* trace ns of the call's start (CPU clock) */
    int64_t dur_ns;       /* ns */
    uint32_t name;        /* strtab id of the call's name (cudaLaunchKernel, ...) */
    uint32_t thread;      /* strtab id of its CPU thread (tc_trace_intern_thread) */
} tc_launch;

typedef enum { TC_HOST_CPU_OP = 0, TC_HOST_ANNOTATION = 1 } tc_host_kind;

/* A CPU op (cpu_op, old Operator) or user annotation span on a CPU thread, ProfilerStep spans
 * excepted (they are cpu_steps): what the host was inside when the GPU ran dry (idle causes). */
typedef struct {
    int64_t ts_ns;        /* trace ns (CPU clock) */
    int64_t dur_ns;       /* ns */
    uint32_t name;        /* strtab id of the op or annotation name */
    uint32_t thread;      /* strtab id of its CPU thread (tc_trace_intern_thread) */
    uint8_t kind;         /* tc_host_kind */
    uint8_t pad8;         /* explicit padding, 0 (trace_arrays.def) */
    uint16_t pad16;       /* explicit padding, 0 */
    uint32_t op_key;      /* a cpu_op that carried Input Dims: its index into tc_trace.op_keys (its
                           * name, shapes, dtype and cost); TC_NONE otherwise */
} tc_host_span;

/* One distinct (op name, Input Dims, dtype, cost of one call) of the trace's cpu_ops (issue 34); the
 * cost is model/ops.h tc_op_cost_of's, computed at parse time from the shapes, types and Concrete
 * Inputs: calls that differ only in their Concrete Inputs (a stride, the dims reduced, the dtype
 * converted to) or in types outside the catalog's dtypes get keys of their own when their costs
 * differ. An op group is (name, shapes, dtype): the sum of its calls' keys (tc_op_key_same). Repeated
 * keys are stored once per parsed piece (a parallel parse may hold a key once per piece). */
typedef struct {
    double flops;         /* FLOPs of one call; valid when has_flops */
    double bytes;         /* bytes moved by one call; valid when has_bytes */
    uint32_t name;        /* strtab id of the op name */
    uint32_t shapes;      /* strtab id of its Input Dims as text ("[[8, 512], [512], []]") */
    uint8_t family;       /* tc_op_family */
    uint8_t has_flops, has_bytes;
    int8_t dtype;         /* tc_dtype of the first tensor input (TC_DTYPE_UNKNOWN = -1) */
    uint32_t pad;         /* explicit padding, 0 (trace_arrays.def) */
} tc_op_key;

/* Whether a and b are one key: equal name, shapes, dtype and cost. */
static inline bool tc_op_key_same(const tc_op_key *a, const tc_op_key *b) {
    return a->name == b->name && a->shapes == b->shapes && a->dtype == b->dtype && a->family == b->family &&
           a->has_flops == b->has_flops && a->flops == b->flops && a->has_bytes == b->has_bytes && a->bytes == b->bytes;
}

/* An nn.Module python_function event ("nn.Module: <Class>_<instance>", with_modules / with_stack):
 * modules nest by time on their CPU thread, as PyTorch's Python id / Python parent id say. */
typedef struct {
    int64_t ts_ns;        /* trace ns (CPU clock) */
    int64_t dur_ns;       /* ns */
    uint32_t name;        /* strtab id of the instance name without "nn.Module: " ("Linear_0") */
    uint32_t thread;      /* strtab id of its CPU thread (tc_trace_intern_thread) */
} tc_module_span;

/* Collective arguments (PyTorch saveNcclMeta) carried by a kernel. Unknown ints are -1. */
typedef struct {
    uint32_t coll_name;  /* strtab id of "Collective name", e.g. allreduce */
    uint32_t dtype;      /* strtab id of dtype, e.g. BFloat16; TC_NONE unknown */
    uint32_t pg_name;    /* strtab id of "Process Group Name"; TC_NONE unknown */
    uint32_t pg_desc;    /* strtab id of "Process Group Description"; TC_NONE unknown */
    uint32_t pg_ranks;   /* strtab id of "Process Group Ranks" text; TC_NONE unknown */
    uint32_t in_splits;  /* strtab id of "In split size" text ("[3, 1, 4]": rows sent to each rank of
                          * the group, all-to-all(v)); TC_NONE absent or "[]". Interned: repeated
                          * lists are stored once */
    int64_t in_nelems;   /* elements */
    int64_t out_nelems;  /* elements */
    int64_t group_size;  /* ranks in the group */
    int64_t seq;         /* "Seq", -1 when absent (PyTorch writes 1 on every P2P op) */
    int64_t src_rank;    /* P2P recv: "Src Rank", the sender's global rank; -1 absent */
    int64_t dst_rank;    /* P2P send: "Dst Rank", the receiver's global rank; -1 absent */
} tc_coll_args;

/* The collective arguments a CPU op carried (PyTorch's record_param_comms), by its External id:
 * how a communication kernel without arguments of its own gets them (tc_trace_link_op_colls). */
typedef struct {
    uint32_t external_id; /* the op's External id */
    uint32_t coll;        /* index into tc_trace.colls */
} tc_op_coll;

/* A FLOP cpu_op (GEMM, convolution, attention; see flops.h) that carried shapes (record_shapes). */
typedef struct {
    int64_t ts_ns;        /* trace ns (CPU clock) */
    int64_t dur_ns;       /* ns */
    uint64_t tid;         /* hash of pid/tid text: ops nest only within one thread */
    double flops;         /* FLOPs from Input Dims at parse time; -1 unknown */
    double inner_flops;   /* FLOPs of the counted ops running inside this one (tc_flops_resolve_nesting) */
    uint32_t name;        /* strtab id of the op name */
    uint32_t external_id; /* External id, TC_NONE when absent */
    int8_t dtype;         /* tc_dtype of the first tensor input (TC_DTYPE_UNKNOWN = -1) */
    uint8_t op;           /* tc_flop_op */
    uint8_t counted;      /* 1 = its FLOPs count (innermost op with known FLOPs) */
    uint8_t covered;      /* 1 = another FLOP op runs inside it, or a counted op around it (an op with
                           * unknown FLOPs is reported as left out only when not covered) */
    uint32_t pad;         /* explicit padding, 0 (trace_arrays.def) */
} tc_cpu_op;

typedef struct {
    int64_t id;    /* device index */
    uint32_t name; /* strtab id */
    uint32_t pad;  /* explicit padding, 0 (trace_arrays.def) */
} tc_device;

/* A process group as distributedInfo.pg_config lists it (PyTorch lists only the rank's own groups). */
typedef struct {
    int64_t size;         /* pg_size, ranks; -1 unknown */
    uint32_t name;        /* strtab id of pg_name */
    uint32_t desc;        /* strtab id of pg_desc; TC_NONE absent */
    uint32_t ranks;       /* strtab id of its global ranks as text, "[0, 1, 2]" (an array written so, or
                           * the string as given); TC_NONE absent */
    uint32_t pad;         /* explicit padding, 0 (trace_arrays.def) */
} tc_pg_info;

typedef struct {
    /* identity */
    char *path;              /* input path as given ("-" for stdin) */
    uint64_t bytes;          /* bytes read from the file (compressed size for gzip) */
    uint64_t bytes_decoded;  /* JSON bytes parsed */
    tc_strtab *strings;

    /* metadata */
    int64_t base_ns;         /* baseTimeNanoseconds */
    bool has_base;
    int64_t rank;            /* distributedInfo.rank, -1 unknown */
    int64_t world_size;      /* distributedInfo.world_size, -1 unknown */
    uint32_t backend;        /* strtab id, TC_NONE unknown */
    uint32_t host_name;      /* strtab id of the host name the trace records (top-level "host_name" or
                              * "hostname", as Meta's Kineto writes), TC_NONE when it records none */
    bool record_shapes;      /* top-level record_shapes was true */
    /* noted at load (tc_trace_note_spans), so an MPI skeleton keeps them for all its events */
    bool has_gpu_span;       /* gpu_first_ns/gpu_last_ns set */
    int64_t gpu_first_ns, gpu_last_ns; /* trace ns: first GPU start, last GPU end */
    bool has_steps;          /* first_step/last_step set */
    int64_t first_step, last_step; /* lowest and highest N of its ProfilerStep#N spans (CPU or GPU) */
    int64_t gpu_device;      /* the device index (pid) of its GPU events when they are all on one numeric
                              * device; TC_DEVICE_NONE without GPU events or numeric pids, TC_DEVICE_SEVERAL */

    /* events: one row of trace_arrays.def each, `type *field; size_t count, cap;` (gpu, n_gpu,
     * cap_gpu; cpu_steps; gpu_steps; launches; colls; ops; devices; pgs; host) */
#define TC_TRACE_ARRAY(field, count, cap, type, reserve) type *field; size_t count, cap;
#include "trace_arrays.def"

    /* accounting */
    uint64_t events_total;   /* trace events seen (any phase) */
    uint64_t events_skipped; /* unusable events skipped */
    uint64_t ops_with_shapes;/* FLOP cpu_ops that carried Input Dims (kept in ops[]) */
    uint64_t ops_without_shapes; /* FLOP cpu_ops without Input Dims (not kept) */
    bool truncated;          /* input ended early or was damaged */
    uint64_t n_gpu_parsed;   /* GPU events of the input when gpu[] holds only its comm kernels (an MPI
                              * skeleton on process 0, docs/mpi.md); 0 otherwise: see tc_trace_gpu_events */
    char **warnings; size_t n_warnings, cap_warnings;
    uint64_t warnings_dropped; /* warnings beyond the cap, counted only */
    int64_t time_sum_ns;     /* the trace's time budget (tc_trace_settle_times): its GPU window plus the
                              * summed durations of its GPU events and step spans, ns; every sum an
                              * analysis makes of this trace's times is at most this. -1: it passes
                              * 2^63 ns (such times are not real). Kept by an MPI skeleton */

    /* launch lookup by correlation id (tc_trace_sort_launches): launch_slot[c - launch_slot_base]
     * is the first launch with id c, TC_NONE none; NULL when the ids are too sparse for a table */
    uint32_t *launch_slot; size_t launch_slot_n; uint32_t launch_slot_base;
    size_t launch_slot_for;  /* n_launches when the table was built: a table for other launches is not used */
} tc_trace;

int tc_trace_init(tc_trace *t, const char *path); /* 0, or -1 out of memory */
void tc_trace_free(tc_trace *t);
/* Frees the CPU-side records (ops, host, op_colls, op_keys, modules: counts 0 afterwards) once
 * their last readers are done: the analyses free them before the step graph (tc_job_finish), which
 * reads only the GPU events, runtime calls and step spans, as the reports do. On the bench traces
 * they are a third to a half of the records. tc_trace_free_ops frees the shaped CPU ops only (ops,
 * 56 bytes each), whose readers are all in a rank's phase: op nesting, top-kernel rows, MFU. */
void tc_trace_free_cpu_ops(tc_trace *t);
void tc_trace_free_ops(tc_trace *t);
/* Makes room, before parsing, for the records a trace of json_bytes usually holds (one GPU event,
 * FLOP op and launch per 512 bytes at most), so the arrays are not moved as they grow: on the VMs
 * we measured, every page a move relocates costs microseconds again at its next touch. Room is
 * address space until written; a trace that needs more grows as usual. Failure is ignored. */
void tc_trace_reserve(tc_trace *t, uint64_t json_bytes);
/* Appends src's events to dst: every array of the event store, string ids re-interned in dst's
 * table (in src's id order, so appending the pieces of a parse in order gives the ids a sequential
 * parse gives), indexes offset by the records dst already held; adds src's event counters and
 * warnings. dst's identity and metadata stay. *scratch (*scratch_cap entries) is a buffer kept
 * across calls, NULL/0 at first, freed with free(). 0, or -1 out of memory (dst then holds part of
 * src). */
int tc_trace_append(tc_trace *dst, const tc_trace *src, uint32_t **scratch, size_t *scratch_cap);
/* True when every string id and index in the event store is TC_NONE or in range (a trace read
 * from outside, e.g. an MPI message). */
bool tc_trace_refs_valid(const tc_trace *t);
/* Adds a warning, printf-style (tc_vformat, cut at 511 bytes), capped at 100 per input, the rest
 * counted; dropped out of memory. */
void tc_trace_warn(tc_trace *t, const char *fmt, ...) TC_FORMAT_LIKE(2, 3);
const char *tc_trace_str(const tc_trace *t, uint32_t id);
/* Sets the span fields: the GPU span from gpu[] (none when empty), the device of its GPU events
 * (gpu_device) and the step numbers of the ProfilerStep spans (none without a numbered one). */
void tc_trace_note_spans(tc_trace *t);
/* The GPU span on the epoch clock (ns since 1970): base + span when the trace has a base time,
 * else the span itself when it reads as epoch time (after 2001, as PyTorch <= 2.3 writes); false
 * when the trace has no span or no absolute time. */
bool tc_trace_epoch_span(const tc_trace *t, int64_t *start, int64_t *end);
/* The string id of a CPU thread: its event's pid text and tid text (each cut at 255 bytes) joined
 * by a 0x1f byte, interned in t's table; TC_NONE out of memory. Events of one thread get one id. */
uint32_t tc_trace_intern_thread(tc_trace *t, const char *pid, size_t pid_len, const char *tid, size_t tid_len);
/* After a parse: sets time_sum_ns, and drops the base (has_base false, with a warning) when the base
 * plus a GPU event's time reaches TC_TIME_LIMIT_NS. */
void tc_trace_settle_times(tc_trace *t);
/* Gives each communication kernel that carries no collective arguments those of the CPU op that
 * launched it (the op whose External id its launch call carries: record_param_comms), when that op
 * carried them; a kernel that only a user pattern made communication (TC_COMM_USER) is left as it
 * is. Called once a trace is parsed. 0, or -1 out of memory (nothing changed). */
int tc_trace_link_op_colls(tc_trace *t);
/* Keeps one of each equal key (tc_op_key_same) in op_keys, the first, in order, and points the host
 * spans at it: the pieces of a parallel parse each hold their own keys, so after their append the
 * trace is the one a sequential parse makes. Called once a trace is parsed. 0, or -1 out of memory
 * (nothing changed). */
int tc_trace_merge_op_keys(tc_trace *t);
/* GPU events the input holds: n_gpu_parsed when set, else n_gpu. */
uint64_t tc_trace_gpu_events(const tc_trace *t);
/* Device name for a device index, NULL when deviceProperties did not list it or gave no name
 * (an absent or empty "name"). */
const char *tc_trace_device_name(const tc_trace *t, int64_t device);

/* Sorts launches by (correlation, ts) and indexes them so tc_trace_find_launch can find them; a
 * no-op when both are done (the analyses call it before reading launches in parallel). */
void tc_trace_sort_launches(tc_trace *t);
/* The first launch with this correlation id (launches sorted), NULL when none. */
const tc_launch *tc_trace_find_launch(const tc_trace *t, uint32_t correlation);
#endif
