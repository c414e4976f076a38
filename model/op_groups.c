/* op_groups.c: the life of the op results (op_groups.h): freeing them, the family names. */
#include "op_groups.h"
#include <stdlib.h>
#include <string.h>

void tc_op_result_free(tc_op_result *r) {
    for (size_t i = 0; i < r->n_groups; i++) { free(r->groups[i].op); free(r->groups[i].shapes); free(r->groups[i].parent); }
    for (size_t i = 0; i < r->n_modules; i++) free(r->modules[i].path);
    for (size_t i = 0; i < r->n_fusions; i++) free(r->fusions[i].kernels);
    free(r->groups);
    free(r->modules);
    free(r->fusions);
    memset(r, 0, sizeof *r);
}

const char *tc_op_family_name(tc_op_family f) {
    static const char *const names[TC_OPF_COUNT] = {
        "other", "gemm", "bmm", "conv", "attention", "norm", "softmax", "elementwise", "embedding",
        "reduction", "copy"};
    return f >= 0 && f < TC_OPF_COUNT ? names[f] : "other";
}
