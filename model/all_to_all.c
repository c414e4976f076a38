/* all_to_all.c: the life of the all-to-all results (all_to_all.h): freeing them. */
#include "all_to_all.h"
#include <stdlib.h>
#include <string.h>

void tc_a2a_free(tc_a2a_result *a) {
    for (size_t i = 0; i < a->n_groups; i++) { free(a->groups[i].ranks); free(a->groups[i].pair_bytes); }
    free(a->groups);
    free(a->instances);
    free(a->bytes);
    memset(a, 0, sizeof *a);
}
