/* nodes.h: the node (machine) of each rank and the nodes of the whole job, from evidence, in this
 * order (issue 28, docs/definitions.md "Nodes"): --gpus-per-node G puts rank r on node r / G; else
 * the host names the traces record (every input's top-level host_name); else the ranks' device
 * indices (a rank's device is its local index: rank r on device r mod G, G settled by the indices);
 * the host in the file names (tensorboard_trace_handler's HOST_PID.<digits>.pt.trace.json,
 * tracecost record's HOST_PID.rank<R>.pt.trace.json) counts only where the device indices agree,
 * and is then the rule; when nothing holds, rank r is on node r / 8, assumed. What the evidence
 * lacked or where it disagreed goes in tc_summary.node_notes. Fills tc_rank_result.node and the
 * tc_summary node fields; reads the inputs' paths, ranks, host names and devices only (an MPI
 * skeleton carries them), so an MPI run gets the same result. */
#ifndef TC_NODES_H
#define TC_NODES_H
#include <stdbool.h>
#include <stddef.h>
#include "model/job.h"

#define TC_NODES_ASSUMED_GPUS 8 /* GPUs per node assumed when nothing says */

/* The HOST part of a file name as tensorboard_trace_handler (HOST_PID.<digits>.pt.trace.json) or
 * tracecost record (HOST_PID[-K].rank<R>.pt.trace.json) names it, each optionally .gz: HOST not
 * empty, PID, K, R and <digits> decimal. True with the host at path[*off .. *off + *len); false
 * otherwise. */
bool tc_file_name_host(const char *path, size_t *off, size_t *len);

/* Puts every rank of j on a node by the rules above (gpus_per_node: --gpus-per-node, 0 = not
 * given) and fills j->summary's world_size, node_rule, gpus_per_node, nodes, nodes_assumed,
 * node_period and the node notes. Ranks must be sorted (tc_job_prepare). 0, or -1 out of memory. */
int tc_job_nodes(tc_job *j, int64_t gpus_per_node);

/* The node of global rank `rank` after tc_job_nodes: rank / G when the rule gives every rank's
 * (node_period), else only a rank among the inputs; never an assumed one (the figures that need
 * nodes leave it out). False when unknown. */
bool tc_node_of_rank(const tc_job *j, int64_t rank, int64_t *node);

/* Where global ranks ranks[0, n) run (tc_node_of_rank): INTER when they are on two or more nodes
 * (certain even with some nodes unknown), INTRA when every node is known and they share one, else
 * UNKNOWN. *all_known and *distinct (the distinct nodes among the known ones) when not NULL.
 * 0, or -1 out of memory. */
int tc_scope_of_ranks(const tc_job *j, const int64_t *ranks, size_t n, tc_group_scope *scope, bool *all_known,
                      int64_t *distinct);
#endif
