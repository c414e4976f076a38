/* replay.h: the job's step graph and its replay (issue 29; docs/definitions.md "Replay", "Critical
 * path"). The graph: every rank's GPU ops in stream order, each op's launch call on its CPU thread
 * (plus the launch latency the trace shows), the host's own time between calls kept as measured,
 * synchronizing calls ending when the GPU work they wait for ends, cross-stream dependencies (event
 * record/wait calls, else inferred from timing), and each matched collective instance as one node
 * across its ranks (its transfer begins when the last rank's kernel has started). Re-timing the
 * unchanged graph reproduces the measured job (the identity); re-timing it with other transfer
 * times predicts the job on another fabric. Needs every rank's events (not an MPI skeleton). */
#ifndef TC_ANALYZER_REPLAY_H
#define TC_ANALYZER_REPLAY_H
#include "model/job.h"

/* After tc_job_finish's other steps: builds j's step graph (kept in j->graph with graph_free),
 * replays it unchanged (summary.replay: the identity, per-step measured and replayed times),
 * replays the reference "instant" (inter-node transfer taking no time: reference_step_ns), and
 * finds the critical path of every step (summary.critical_path, cp_steps). A job the graph cannot
 * be built for (no steps, skeleton traces) gets replay.has false and a note. threads: how many may
 * work on it (<= 0: every core); the results are the same with any. 0, or -1 out of memory. */
int tc_job_replay(tc_job *j, int threads);

/* Re-times j->graph with matched instance i (j->instances order) taking transfer_ns[i] ns of
 * transfer (transfer_ns NULL: every instance as measured); *step_ns gets the mean step (over ranks, of each rank's mean step) and per_step_ns (when
 * not NULL) summary.replay.n_steps entries, the mean over ranks of each step. 0, -1 out of memory,
 * 1 when j has no graph. Pure: j is not changed. */
int tc_replay_with(const tc_job *j, const int64_t *transfer_ns, int64_t *step_ns, int64_t *per_step_ns);
#endif
