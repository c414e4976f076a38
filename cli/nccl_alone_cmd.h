/* nccl_alone_cmd.h: `tracecost analyze` on NCCL logs without a trace (docs/nccl.md "Logs alone"):
 * the logs read, analyzed (analyzer/nccl_alone.h) and reported (reports/nccl_alone_report.h). */
#ifndef TC_NCCL_ALONE_CMD_H
#define TC_NCCL_ALONE_CMD_H
#include <stdbool.h>
#include <stddef.h>
#include "analyzer/analyze_options.h"

typedef struct {
    char *const *nccl; size_t n_nccl;  /* --nccl DIR|FILE: each must be (or hold) NCCL files */
    char *const *logs; size_t n_logs;  /* the operands' NCCL files (by content; others passed over) */
    const tc_analyze_options *aopt;    /* gpu, fabric, nic_gbps: the rated links */
    const char *json_path;             /* --json, NULL none, "-" stdout */
    bool quiet;
} tc_nccl_alone_args;

/* Reads, analyzes and reports; messages on stderr. The exit code: TC_EXIT_OK, TC_EXIT_DAMAGED (a
 * log or record could not be read; the rest is reported), TC_EXIT_NOTHING (no Inspector record at
 * all, or out of memory), TC_EXIT_OUTPUT (--json not written). */
int tc_nccl_alone_run(const tc_nccl_alone_args *a);
#endif
