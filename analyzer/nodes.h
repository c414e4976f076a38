/* nodes.h: the node (machine) of each rank and the nodes of the whole job, by one rule (issue 19,
 * docs/definitions.md "Nodes"): --gpus-per-node G puts rank r on node r / G; else, when every
 * input's file name has the shape tensorboard_trace_handler writes (HOST_PID.<digits>.pt.trace.json,
 * optionally .gz), ranks on the same HOST share a node; else rank r is on node r / 8 and the job
 * notes that 8 GPUs per node were assumed. Fills tc_rank_result.node and the tc_summary node
 * fields; reads the inputs' paths and ranks only, so an MPI run (where process 0 holds every
 * input's path) gets the same result. */
#ifndef TC_NODES_H
#define TC_NODES_H
#include <stdbool.h>
#include <stddef.h>
#include "model/job.h"

#define TC_NODES_ASSUMED_GPUS 8 /* GPUs per node assumed when nothing says */

/* The HOST part of a tensorboard_trace_handler file name: the base name of path must be
 * HOST_PID.<digits>.pt.trace.json or the same with .gz, HOST not empty, PID and <digits> decimal.
 * True with the host at path[*off .. *off + *len); false otherwise. */
bool tc_handler_file_host(const char *path, size_t *off, size_t *len);

/* Puts every rank of j on a node by the rule above (gpus_per_node: --gpus-per-node, 0 = not given)
 * and fills j->summary's world_size, node_rule, gpus_per_node, nodes and nodes_assumed. Ranks must
 * be sorted (tc_job_prepare). 0, or -1 out of memory. */
int tc_job_nodes(tc_job *j, int64_t gpus_per_node);

/* The node of global rank `rank` by the same rule, after tc_job_nodes: rank / G under
 * --gpus-per-node and when 8 GPUs per node are assumed, any rank; by file names, only a rank among
 * the inputs (its file's host). False when unknown. */
bool tc_node_of_rank(const tc_job *j, int64_t rank, int64_t *node);
#endif
