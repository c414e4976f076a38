/* job_rules.h: the pure decisions of job assembly (assemble.h), no I/O: each loaded trace's rank,
 * whether the traces can be the ranks of one job, and their profiler windows. */
#ifndef TC_JOB_RULES_H
#define TC_JOB_RULES_H
#include <stddef.h>
#include <stdint.h>
#include "model/trace.h"

/* Rank number in a file name: "rank3", "rank-3", "rank_3" (case-insensitive; every digit, up to
 * int64's range); -1 when absent. */
int64_t tc_rank_from_name(const char *path);

/* Assigns ranks to traces lacking distributedInfo.rank: the file name's rank, else the input
 * position. Two inputs may end with the same rank: tc_job_windows decides what that means. */
void tc_job_assign_ranks(tc_trace *traces, size_t n);

/* Whether the traces can be the ranks of one job: every distributedInfo.world_size given is the
 * same, and a process group (pg_config) listed by several inputs has the same members in each.
 * Returns 0, or -1 with a message naming two files that disagree and their values. */
int tc_job_check_one(const tc_trace *traces, size_t n, char *err, size_t errlen);

/* Groups ranked traces into profiler windows (a file per rank per window, as
 * tensorboard_trace_handler writes with schedule(repeat=N)): when no rank has two inputs, all are
 * one window; else inputs are taken by their first GPU start on the epoch clock (input order when
 * a trace has none) and an input joins the window being built unless its rank is in it already or
 * it starts after that window's earliest end; then a new window begins. window_of[i] = the 0-based
 * window of input i, oldest first. Returns the number of windows, or -1 with a message naming both
 * files when two inputs of one rank overlap in time (the same rank given twice) or one of them has
 * no epoch time to order them by. */
long tc_job_windows(const tc_trace *traces, size_t n, size_t *window_of, char *err, size_t errlen);
#endif
