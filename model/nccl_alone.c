/* nccl_alone.c: freeing the result of NCCL logs analyzed alone (nccl_alone.h). */
#include "nccl_alone.h"
#include <stdlib.h>
#include <string.h>

void tc_nccl_comm_free(tc_nccl_comm *c) {
    free(c->ranks);
    free(c->hosts);
    free(c->rows);
}

void tc_nccl_alone_free(tc_nccl_alone *a) {
    for (size_t i = 0; i < a->n_comms; i++) tc_nccl_comm_free(&a->comms[i]);
    free(a->comms);
    memset(a, 0, sizeof *a);
}
