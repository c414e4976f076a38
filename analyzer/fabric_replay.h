/* fabric_replay.h: the fabric what-if by replay (issue 29 item 4; docs/cost-model.md "What-if: another
 * fabric"): the inter-node groups' collective time models (comm_model.h) moved to the target fabric,
 * beta' = B'·(beta / B_rated) (the same share of the rated link) and alpha' = A' when given, each
 * matched instance's transfer projected on them, and the step graph re-timed with those transfers
 * (replay.h tc_replay_with). Intra-node groups never change. Also the "instant" reference (the
 * inter-node transfers taking no time) when the replay left none. */
#ifndef TC_FABRIC_REPLAY_H
#define TC_FABRIC_REPLAY_H
#include "model/cost_result.h"
#include "model/job.h"

/* True when matching group g changes with the fabric between nodes: inter-node, or of unknown
 * scope in a job on several nodes; and it has a model. */
bool tc_fabric_changes_group(const tc_job *j, const tc_inst_group *g);

/* B_rated of the what-if: the --fabric (or --nic-gbps) rating when named, else --fabric-GBps when
 * given (flag or config), else the inter-node groups' measured bus bandwidth; 0 when none. */
double tc_fabric_rated_GBps(const tc_job *j, const tc_cost_inputs *in);

/* With j's step graph kept (summary.replay.has): the instant reference when none is set, and, when
 * `in` gives a target (fabric_target_GBps and/or fabric_target_latency_us), the projected replay
 * into summary.replay (has_projected, projected_step_ns, step_projected_ns, the target; the
 * reference becomes the target: reference_step_ns, reference "ib-ndr" / "50 GB/s") and each changed
 * group's projected model and transfer (tc_inst_group.what_if ...). A job without a graph, or
 * without a group the fabric changes, is left as it is. 0, or -1 out of memory. */
int tc_fabric_replay(tc_job *j, const tc_cost_inputs *in);
#endif
