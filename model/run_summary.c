/* run_summary.c: releasing a run summary (see run_summary.h). */
#include "run_summary.h"
#include <stdlib.h>
#include <string.h>

void tc_run_summary_free(tc_run_summary *s) {
    free(s->label);
    free(s->tool_version);
    free(s->device);
    free(s->verdict);
    free(s->replay_reference);
    for (size_t i = 0; i < s->n_colls; i++) { free(s->colls[i].name); free(s->colls[i].process_group); }
    free(s->colls);
    free(s->ranks);
    for (size_t i = 0; i < s->n_kernels; i++) free(s->kernels[i].name);
    free(s->kernels);
    for (size_t i = 0; i < s->n_saved_cost; i++) free(s->saved_cost[i].gpu);
    free(s->saved_cost);
    memset(s, 0, sizeof *s);
}
