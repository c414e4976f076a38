/* step_graph.h: the job's step graph (docs/definitions.md "Replay"), private to the replay
 * (step_graph_job.c builds it, each rank's part in step_graph_rank.c, the ranks at once; replay.c
 * re-times it, critical_path.c walks it). One node per GPU op, per
 * runtime call, per step boundary, per matched collective instance and per rank's arrival at one;
 * each node's start is the latest of its start edges (a predecessor's start or end plus a lag), its
 * end the latest of start + dur and its end edges. Edges are kept by target (CSR), the nodes in one
 * topological order. Times are the node's rank's trace ns (an instance's: the aligned clock, rank
 * 0's absolute ns minus rank 0's base); aligned = own + shift[rank]. Memory is linear in events. */
#ifndef TC_STEP_GRAPH_H
#define TC_STEP_GRAPH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/pool.h"
#include "model/job.h"
#include "model/replay.h"

/* What a node is (its own time's class on the critical path follows from it). */
typedef enum {
    TC_SG_OP = 0,    /* a GPU op (ref: gpu event index), an unmatched collective kernel among them */
    TC_SG_MEMBER,    /* a matched collective's kernel on one rank: ends when its instance does (ref: gpu event) */
    TC_SG_ARRIVAL,   /* that kernel's start, 0 long: what its instance waits for (ref: gpu event) */
    TC_SG_INSTANCE,  /* a matched collective instance: its transfer (ref: j->instances index) */
    TC_SG_CALL,      /* a runtime call on a CPU thread (ref: launch index) */
    TC_SG_SYNC,      /* a synchronizing call: ends when the GPU work it waited for ends, plus its return */
    TC_SG_BEGIN,     /* a blocking copy call's start, 0 long: what its own copy is launched from */
    TC_SG_MARK       /* a step boundary, 0 long (ref: index into steps[], the start or end by `flags`) */
} tc_sg_kind;

enum {
    TC_SG_FIXED = 1,    /* node flag: kept at its measured time (no launch, or in a cycle) */
    TC_SG_STEP_END = 2, /* node flag of a TC_SG_MARK: the step's end (else its start) */
    TC_SG_LAUNCHES = 4  /* node flag of a TC_SG_CALL: a launch call (kernel, graph, async copy or memset) */
};

enum {
    TC_SG_FROM_END = 1, /* edge flag: anchored at the predecessor's end (else its start) */
    TC_SG_TO_END = 2    /* edge flag: constrains the node's end (else its start) */
};

typedef struct {
    uint32_t from;      /* predecessor node */
    uint8_t flags;      /* TC_SG_FROM_END, TC_SG_TO_END */
    uint8_t cls;        /* tc_cp_class of the lag's time on the critical path */
    uint16_t pad;
    int64_t lag;        /* ns added to the anchor */
} tc_sg_edge;

/* One step of one rank: its boundary nodes and its measured time. */
typedef struct {
    uint32_t rank;      /* index into j->ranks */
    uint32_t slot;      /* index into the job's step list (tc_replay_summary.step_number order) */
    uint32_t start_node, end_node;
    int64_t measured_ns;/* the rank's tc_step_result.step_time_ns */
} tc_sg_step;

struct tc_step_graph {
    size_t n;                    /* nodes */
    int64_t *start0;             /* measured start of each node */
    int64_t *dur;                /* nominal duration (instances: the measured transfer) */
    uint32_t *rank;              /* index into j->ranks; TC_NONE for an instance */
    uint32_t *ref;               /* see tc_sg_kind */
    uint8_t *kind, *flags;
    uint32_t *first;             /* edges of node v: edges[first[v], first[v + 1]) */
    tc_sg_edge *edges; size_t n_edges;
    uint32_t *order;             /* every node once, each after its predecessors */
    int64_t *shift;              /* per rank: aligned = own + shift */
    uint32_t *inst_node;         /* node of each of j->instances */
    size_t n_instances;
    tc_sg_step *steps; size_t n_steps;   /* by rank, each rank's in its tc_rank_result.steps order */
    size_t *rank_steps;          /* steps of rank r: steps[rank_steps[r], rank_steps[r + 1]) */
    size_t n_slots;              /* distinct steps of the job */
    int64_t *slot_number;        /* N of each slot (n_slots) */
    /* what it holds (tc_replay_summary's counts) */
    uint64_t ops, ops_unplaced, ops_unmatched, event_deps, inferred_deps, sync_calls, cycle_breaks;
    uint64_t step_tails;         /* steps ended at their last GPU op (it ran past the CPU span) */
    uint64_t poll_waits;         /* runs of query calls tied to the GPU op they waited for */
};
typedef struct tc_step_graph tc_step_graph;

/* Builds j's graph: every rank's trace is whole (not an MPI skeleton), its GPU events sorted by
 * start (tc_job_prepare), launches sorted (tc_trace_sort_launches), collectives matched and ranks
 * analyzed (rr->steps). The ranks are built as runs of pool (NULL: one after the other, here); the
 * graph is the same either way. *out NULL when no rank has steps. 0, or -1 out of memory. */
int tc_step_graph_build(tc_job *j, tc_pool *pool, tc_step_graph **out);
void tc_step_graph_free(tc_step_graph *g);

/* Re-times g: instance i takes transfer_ns[i] (NULL: as measured); start[] and end[] (g->n each)
 * get every node's times on its own clock. */
void tc_step_graph_retime(const tc_step_graph *g, const int64_t *transfer_ns, int64_t *start, int64_t *end);
#endif
