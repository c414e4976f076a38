/* rank_result.h: one rank's results (tc_rank_result, in tc_job.ranks): its breakdown, steps,
 * matching and straggler figures, MFU, idle causes and per-group shares. Declared from
 * model/rank_result.def, which says what each field holds (so the MPI encoding, cli/mpi/mpi_pack.c,
 * walks every one). */
#ifndef TC_RANK_RESULT_H
#define TC_RANK_RESULT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "breakdown.h"
#include "gpu_catalog.h"
#include "idle_causes.h"
#include "process_groups.h"
#include "step_results.h"

#define TC_RR_RANK(type, fields) typedef struct { fields } type;
#define TC_RR_VALUE(type, f) type f;
#define TC_RR_STRING(f) const char *f;
#define TC_RR_ARRAY(type, f, n) type *f; size_t n;
#define TC_RR_GPU(f) const tc_gpu_spec *f;
#define TC_RR_STRUCT(type, f) type f;
#define TC_RR_STRUCTS(type, f, n) type f[n];
#define TC_RR_KEPT(type, f) type f;
#include "rank_result.def"
#endif
