/* nccl.c: the names of NCCL's collectives and the freeing of the job's NCCL result (nccl.h). */
#include "nccl.h"
#include "base/util.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const coll_names[TC_NCCL_N_COLLS] = {
    [TC_NCCL_OTHER] = "other", [TC_NCCL_ALLREDUCE] = "AllReduce", [TC_NCCL_ALLGATHER] = "AllGather",
    [TC_NCCL_REDUCESCATTER] = "ReduceScatter", [TC_NCCL_BROADCAST] = "Broadcast", [TC_NCCL_REDUCE] = "Reduce",
    [TC_NCCL_ALLTOALL] = "AllToAll"};

const char *tc_nccl_coll_name(tc_nccl_coll c) { return c < TC_NCCL_N_COLLS ? coll_names[c] : "other"; }

tc_nccl_coll tc_nccl_coll_of(const char *name) {
    char k[96];
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof k; p++)
        if (isalnum((unsigned char)*p)) k[n++] = (char)tolower((unsigned char)*p);
    k[n] = '\0';
    /* the longer names first: "allreduce" and "reducescatter" hold "reduce" */
    if (strstr(k, "reducescatter")) return TC_NCCL_REDUCESCATTER;
    if (strstr(k, "allreduce")) return TC_NCCL_ALLREDUCE;
    if (strstr(k, "allgather")) return TC_NCCL_ALLGATHER;
    if (strstr(k, "alltoall")) return TC_NCCL_ALLTOALL;
    if (strstr(k, "broadcast")) return TC_NCCL_BROADCAST;
    if (strstr(k, "reduce")) return TC_NCCL_REDUCE;
    return TC_NCCL_OTHER;
}

void tc_nccl_log_free(tc_nccl_log *l) {
    for (size_t i = 0; i < l->n_files; i++) { free(l->files[i].path); free(l->files[i].hostname); }
    free(l->files);
    free(l->records);
    free(l->proxies);
    free(l->proms);
    free(l->p2ps);
    memset(l, 0, sizeof *l);
}

void tc_nccl_free(tc_nccl_result *r) {
    tc_nccl_log_free(&r->log);
    free(r->groups);
    free(r->prom_mix);
    for (size_t i = 0; i < r->n_notes; i++) free(r->notes[i]);
    free(r->notes);
    memset(r, 0, sizeof *r);
}

int tc_nccl_note(tc_nccl_result *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *d = tc_vformat_alloc(fmt, ap);
    va_end(ap);
    if (!d || TC_PUSH(r->notes, r->n_notes, r->cap_notes, d)) { free(d); return -1; }
    return 0;
}
