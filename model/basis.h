/* basis.h: why a job's conclusions rest on partial data, as codes and the numbers behind them
 * (tc_summary.basis_reasons, decided in analyzer/findings.c; carried by the cost facts and result
 * and by a compared run). reports/findings_text.h words them. Plain values, no functions. */
#ifndef TC_BASIS_H
#define TC_BASIS_H
#include <stdint.h>

/* Why a conclusion rests on partial data (tc_summary.basis_reasons, decided in findings.c). */
typedef enum {
    TC_BASIS_WORLD_SIZE,  /* the traces' world size (of) is larger than the ranks given (count) */
    TC_BASIS_GROUP_RANKS, /* groups (count) miss ranks; the first, group, has present of its size ranks */
    TC_BASIS_UNMATCHED,   /* count of the of collective instances are unmatched; their exposed time
                           * is share of exposed comm */
    TC_BASIS_SALVAGED,    /* count of the of inputs were cut short or damaged: read in part */
    TC_BASIS_NOT_SPLIT    /* exposed comm but no wait/transfer split: one rank, or (count) ranks whose
                           * collectives were not matched */
} tc_basis_code;

#define TC_MAX_BASIS 5

typedef struct {
    tc_basis_code code;
    int64_t count, of;        /* WORLD_SIZE: ranks, world size; GROUP_RANKS: groups missing ranks;
                               * UNMATCHED: instances unmatched, instances; SALVAGED: inputs cut
                               * short, inputs; NOT_SPLIT: ranks */
    int64_t present, size;    /* GROUP_RANKS: the first such group's ranks among the inputs, its size */
    const char *group;        /* GROUP_RANKS: that group's label (tc_summary.partial_group); NULL in
                               * the copies that outlive the job (cost facts and result, a run summary) */
    double share;             /* UNMATCHED: unmatched exposed time / exposed comm */
} tc_basis_reason;
#endif
