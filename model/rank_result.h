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
#include "rank_result_decl.h"
#include "rank_result.def"
#endif
