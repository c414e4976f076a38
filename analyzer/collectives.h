/* collectives.h: cross-rank matching of collective instances, and what it yields: each comm
 * kernel's wait head (wait = own duration − the instance's minimum duration over its ranks, which
 * needs no clock agreement), clock offsets, the straggler, per-collective bandwidth rows, and the
 * fabric bus bandwidth. Works on a job whose traces are loaded and whose GPU events are sorted. */
#ifndef TC_COLLECTIVES_H
#define TC_COLLECTIVES_H
#include "model/job.h"

/* Fills ranks[].wait_ns (when two or more ranks share collectives), ranks[].clock_offset_ns,
 * j->colls, summary fabric bandwidth and straggler evidence, each process group's bytes and transfer
 * (j->groups from tc_job_groups, which runs first), and job warnings. 0, or -1 OOM. */
int tc_collectives_match(tc_job *j);

/* nccl-tests bus-bandwidth factor for a collective name and group size n (docs/definitions.md). */
double tc_busbw_factor(const char *coll_name, int64_t n);
/* Bytes per element of a PyTorch dtype name (Float 4, BFloat16 2, ...); 0 unknown. */
int tc_dtype_bytes(const char *dtype);
/* S per nccl-tests from the collective args; -1 when unknown. */
int64_t tc_collective_bytes(const char *coll_name, const char *dtype, int64_t in_nelems, int64_t out_nelems);
#endif
