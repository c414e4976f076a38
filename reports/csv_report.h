/* csv_report.h: an analyzed job's tables as CSV (RFC 4180: comma-separated, CRLF line ends, a
 * field quoted when it holds a comma, quote, CR, LF or edge space, quotes doubled) for
 * spreadsheets and data frames: ranks.csv, steps.csv, collectives.csv, process_groups.csv,
 * kernels.csv, idle_causes.csv, nccl.csv, the all-to-all tables (all_to_all.csv, all_to_all_instances.csv,
 * all_to_all_pairs.csv), the pipeline's (pipeline_stages.csv, pipeline_steps.csv), ops.csv and modules.csv,
 * every column named in its header row with its unit
 * (docs/csv.md). Values are the JSON's: times exact decimal µs, shares and rates as the JSON writes
 * doubles, unknown values empty. Text is UTF-8 (invalid bytes as U+FFFD); a text cell starting
 * with = + - @ or a tab gets a leading ' so no spreadsheet runs it as a formula. Read-only on the
 * job; write errors show in the return value and ferror(out). */
#ifndef TC_CSV_REPORT_H
#define TC_CSV_REPORT_H
#include <stdio.h>
#include "model/job.h"

typedef enum {
    TC_CSV_RANKS,        /* ranks.csv: a row per rank */
    TC_CSV_STEPS,        /* steps.csv: a row per rank and step */
    TC_CSV_COLLECTIVES,  /* collectives.csv: a row per (process group, collective, message size) */
    TC_CSV_GROUPS,       /* process_groups.csv: a row per process group */
    TC_CSV_KERNELS,      /* kernels.csv: a row per GPU event name and kind, all ranks */
    TC_CSV_IDLE,         /* idle_causes.csv: a row per rank and idle cause */
    TC_CSV_NCCL,         /* nccl.csv: a row per process group with NCCL records and mix row */
    TC_CSV_A2A,          /* all_to_all.csv: a row per all-to-all group */
    TC_CSV_A2A_INSTANCES, /* all_to_all_instances.csv: a row per sized all-to-all instance */
    TC_CSV_A2A_PAIRS,    /* all_to_all_pairs.csv: a row per all-to-all group, sender and receiver */
    TC_CSV_PP_STAGES,    /* pipeline_stages.csv: a row per pipeline stage (its steps summed) */
    TC_CSV_PP_STEPS,     /* pipeline_steps.csv: a row per pipeline stage and step */
    TC_CSV_OPS,          /* ops.csv: a row per (op, shapes, dtype) group, all ranks (tc_job.ops) */
    TC_CSV_MODULES,      /* modules.csv: a row per nn.Module instance path (and outside every module) */
    TC_CSV_TABLES
} tc_csv_table;

/* Every table's file name in tc_csv_table order, NULL-terminated: "ranks.csv", ... */
extern const char *const tc_csv_files[TC_CSV_TABLES + 1];

/* Writes table t of j to out: its header row, then a row per item (none for an empty table).
 * Returns 0, or -1 when a write failed. */
int tc_csv_write(FILE *out, const tc_job *j, tc_csv_table t);
#endif
