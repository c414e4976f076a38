/* replay.c: the class keys and the frees of the replay results (replay.h). */
#include "replay.h"
#include <stdlib.h>
#include <string.h>

const char *const tc_cp_class_key[TC_CP_CLASSES] = {
    "compute", "transfer_intra_node", "transfer_inter_node", "host_launch",
    "host_sync", "host_cpu", "memory", "idle",
};

void tc_replay_summary_free(tc_replay_summary *r) {
    free(r->note);
    free(r->step_number);
    free(r->step_measured_ns);
    free(r->step_replayed_ns);
    free(r->step_projected_ns);
    memset(r, 0, sizeof *r);
}

void tc_critical_path_free(tc_critical_path *p) {
    free(p->by_rank);
    free(p->segs);
    memset(p, 0, sizeof *p);
}
