/* nccl_join.h: NCCL Inspector records joined to the job's matched collective instances
 * (docs/nccl.md "The join"): each record to the instance of its rank, communicator and collective
 * kind whose place in sequence order its coll_sn gives, and what the joined records say per
 * process group (NCCL's busbw beside the trace's). Pure: no printing. */
#ifndef TC_NCCL_JOIN_H
#define TC_NCCL_JOIN_H
#include "model/job.h"
#include "model/nccl.h"
#include "analyze_options.h"

/* Joins r->log (read by parsers/nccl_inspector.h; r->present set, r->min_size the floor, 0 for the
 * default) to j's instances: fills r->groups (one per j->groups entry), r->c and the counts of
 * records it could not place, with notes. 0, or -1 out of memory. */
int tc_nccl_join(const tc_job *j, tc_nccl_result *r);

/* NCCL's account added to an analyzed job whose j->nccl.log was read (j->nccl.present): the join,
 * then the findings decided again (analyzer/findings.h), since the verdict's fabric reason and
 * actions read NCCL's evidence. Nothing when no logs were read. 0, or -1 out of memory. */
int tc_job_nccl_join(tc_job *j, const tc_analyze_options *opt);

/* (analyzer/nccl_prom_join.c, called by tc_nccl_join) The log's Prometheus rows joined to process
 * groups: r->prom_mix (each group's buckets, its ranks' rows merged), r->groups[].prom_rows,
 * r->prom_joined / prom_unplaced, with a note. r->groups allocated. 0, or -1 out of memory. */
int tc_nccl_prom_join(const tc_job *j, tc_nccl_result *r);

/* (analyzer/nccl_p2p_join.c, called by tc_nccl_join) The log's p2p_perf records joined to the
 * SendRecv kernels with peer args (docs/nccl.md "Point-to-point"): r->groups[].p2p and the P2P
 * busbw figures, r->p2p_unplaced / p2p_outside, with notes. file_rank[f]: the global rank of log
 * file f (-1 unknown). r->groups allocated. 0, or -1 out of memory. */
int tc_nccl_p2p_join(const tc_job *j, tc_nccl_result *r, const int64_t *file_rank);

/* The rank index of global rank g in j, SIZE_MAX none. */
size_t tc_nccl_rank_index(const tc_job *j, int64_t g);
/* The process group a communicator is, given the global rank of each of its ranks that has a log
 * (member[r], -1 none; n ranks): the one group of size n whose r-th member (ascending) is member[r]
 * for every known r, or without a member list when no listed group fits. SIZE_MAX none or several. */
size_t tc_nccl_group_of(const tc_job *j, const int64_t *member, int32_t n);
#endif
