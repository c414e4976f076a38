/* step_graph_rank.h: one rank's part of the step graph (step_graph_rank.c: its host and GPU blocks;
 * the instance nodes), private to step_graph_job.c (the job: node numbering, slots, members, the
 * ranks' builds on the pool, the order). A rank's builder writes only its own nodes
 * (numbered ahead), its own steps' fields, its own members' entries and its own window of the edge
 * array, so the ranks can be built at once. */
#ifndef TC_STEP_GRAPH_RANK_H
#define TC_STEP_GRAPH_RANK_H
#include "step_graph.h"
#include "steps.h"

typedef struct { int64_t end; int32_t device; uint32_t stream; uint32_t event; uint32_t pad; } tc_sg_end_rec;

/* What one rank's build counts (summed into tc_step_graph's counts in rank order). */
typedef struct {
    uint64_t ops, ops_unplaced, ops_unmatched, event_deps, inferred_deps, sync_calls, step_tails, poll_waits;
} tc_sg_counts;

typedef struct {
    /* the job's, shared: read only while the ranks build, except each rank's own entries */
    tc_job *j;
    tc_step_graph *g;
    int64_t *inst_start;      /* measured aligned start of each instance */
    uint32_t *mem_inst;       /* instance of each member */
    uint32_t *arrival;        /* arrival node of each member */
    size_t *rank_members;     /* members of rank r: by_rank[rank_members[r], rank_members[r + 1]) */
    uint32_t *by_rank;        /* member indices grouped by rank */
    uint32_t *member_pred;    /* per member: the stream predecessor of its kernel (its rank writes it) */
    /* this builder's own */
    uint32_t next;            /* the next node id to write */
    size_t n_edges, edge_end; /* its window of g->edges: the next edge to write, and the window's end */
    tc_sg_counts c;
    /* the rank being built */
    size_t r;
    tc_trace *t;
    uint32_t gpu_base;
    uint32_t *launch_node;    /* per launch: the node its GPU work is launched from */
    uint32_t *member_of;      /* per GPU event: its member index, TC_NONE */
    uint32_t *event_dep;      /* per GPU event: the op its stream waits for by an event (TC_NONE) */
    tc_sg_end_rec *ends; size_t n_ends; /* the rank's GPU events by (device, end) */
    tc_sg_end_rec *calls; size_t n_calls; /* the rank's calls by end (device 0, stream: thread, event: node),
                                           * when it has several threads; else none */
    int64_t launch_latency;   /* the rank's typical launch latency: op start − launch end */
    /* set by tc_sg_build_rank: the edges it wrote, as two runs of its window (the host block's
     * [window's start, host_end), the GPU block's and arrivals' [gpu_from, n_edges)) */
    size_t host_end, gpu_from;
} tc_sg_builder;

/* Rank b->r's nodes from b->next (host block, GPU block, arrivals), with b's shared fields set, its
 * node ids and edge window given; map: the rank's steps (tc_steps_spans), first its first
 * tc_sg_step, gpu_first its first GPU node. The host block and the GPU block are built at once
 * when pool is not NULL (the GPU block a task of the pool, taken back and built here when no
 * thread is free), else one after the other: the same edges either way. The caller must be
 * allowed to wait on pool (the owner, or a run of tc_pool_for_nesting). 0, or -1 out of memory. */
int tc_sg_build_rank(tc_sg_builder *b, const tc_step_map *map, size_t first, size_t gpu_first, tc_pool *pool);
/* The instance nodes from b->next: each starts when its last rank's kernel has started (aligned
 * clocks). 0, or -1 when the edge window is short (not expected: the windows are bounds). */
int tc_sg_instance_nodes(tc_sg_builder *b);
#endif
