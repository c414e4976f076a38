/* groups.h: the job's process groups (issue 19; docs/definitions.md "Process groups"): which
 * groups the job has, joined from what every input says (distributedInfo.pg_config, which lists only
 * a rank's own groups, and the collectives' Process Group Name / Description / Ranks / Group size),
 * where their ranks run (nodes, intra- or inter-node), the link they ride and what it is rated to
 * carry, their exposed communication split per group, their bus bandwidth, and the rows the reports
 * draw (groups of one description, scope and link folded). Three phases, in the order
 * tc_job_analyze runs them:
 *   tc_job_groups      after tc_job_prepare, before matching: nodes (tc_job_nodes), the group table
 *                      sorted by name, each group's ranks, nodes and scope;
 *   tc_groups_rank     in the per-rank phase: one rank's figures per group (needs its compute
 *                      kernels, so it runs where the trace is, like the breakdown);
 *   tc_groups_finish   in finish (after MFU, which picks each rank's catalog GPU): the sums, links,
 *                      bandwidths, rows and the summary's fabric figures.
 * Matching (collectives.h) adds each matched instance's bytes and transfer to its group. */
#ifndef TC_GROUPS_H
#define TC_GROUPS_H
#include <stddef.h>
#include "analyze_options.h"
#include "model/job.h"

/* Fills j->groups and the nodes of the ranks. j's ranks are prepared (sorted). Inputs that
 * disagree on a group's ranks get a job warning (the first input in rank order is kept). 0, or -1
 * out of memory. */
int tc_job_groups(tc_job *j, const tc_analyze_options *opt);

/* Index in j->groups of the group named name (byte order search), SIZE_MAX when none. */
size_t tc_job_group_find(const tc_job *j, const char *name);

/* The per-group figures of ranks[r] (rr->groups) and its inter-node exposed transfer. Reads the
 * rank's trace, its wait heads (rr->wait_ns, NULL: no split, tails are whole kernels) and only the
 * names and scopes of j->groups. 0, or -1 out of memory. */
int tc_groups_rank(const tc_job *j, tc_rank_result *rr);

/* Sums the ranks' figures into j->groups, picks each group's link (intra-node: the link of its
 * first present rank's catalog GPU; inter-node: opt->fabric or opt->nic_gbps), derives bus
 * bandwidth and share of rated (of each group and each collective row), folds j->group_rows and
 * fills the summary's fabric fields. 0, or -1 out of memory. */
int tc_groups_finish(tc_job *j, const tc_analyze_options *opt);

/* l set to the link id (static), name and rated GB/s. */
void tc_group_link_set(tc_group_link *l, const char *id, const char *name, double rated);
/* The fabric between nodes the options name into l: --fabric ID, else --nic-gbps X (a "nic" link of
 * X / 8 GB/s). false (l untouched) when neither is given. */
bool tc_groups_fabric_link(const tc_analyze_options *opt, tc_group_link *l);

#endif
