/* job.c: the life of a tc_job (see job.h): init, free (the traces and every result array), the
 * job-level warnings, the verdict's names. No I/O: warnings are composed with base/status.h. */
#include "job.h"
#include "base/util.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void tc_job_init(tc_job *j) { memset(j, 0, sizeof *j); }

void tc_job_free(tc_job *j) {
    for (size_t i = 0; i < j->n_traces; i++) tc_trace_free(&j->traces[i]);
    free(j->traces);
    for (size_t i = 0; i < j->n_ranks; i++) { free(j->ranks[i].steps); free(j->ranks[i].wait_ns); free(j->ranks[i].groups); }
    free(j->ranks);
    for (size_t i = 0; i < j->n_colls; i++) { free(j->colls[i].name); free(j->colls[i].process_group); free(j->colls[i].dtype); }
    free(j->colls);
    for (size_t i = 0; i < j->n_inst_groups; i++) free(j->inst_groups[i].shown);
    free(j->inst_groups);
    free(j->instances);
    free(j->inst_members);
    free(j->summary.mfu_note);
    free(j->summary.partial_group);
    tc_replay_summary_free(&j->summary.replay);
    tc_critical_path_free(&j->summary.critical_path);
    for (size_t i = 0; i < j->summary.n_cp_steps; i++) tc_critical_path_free(&j->summary.cp_steps[i]);
    free(j->summary.cp_steps);
    if (j->graph && j->graph_free) j->graph_free(j->graph);
    tc_job_groups_free(j);
    tc_findings_free(&j->findings);
    for (size_t i = 0; i < j->n_top_kernels; i++) free(j->top_kernels[i].name);
    free(j->top_kernels);
    for (size_t i = 0; !j->kernel_agg_names_borrowed && i < j->n_kernel_aggs; i++) free(j->kernel_aggs[i].name);
    free(j->kernel_aggs);
    for (size_t i = 0; i < j->n_warnings; i++) free(j->warnings[i]);
    free(j->warnings);
    for (size_t i = 0; i < j->n_kept_strings; i++) tc_strtab_free(j->kept_strings[i]);
    free(j->kept_strings);
    free(j->windows);
    tc_nccl_free(&j->nccl);
    tc_a2a_free(&j->a2a);
    tc_pipeline_free(&j->pipeline);
    tc_op_result_free(&j->ops);
    memset(j, 0, sizeof *j);
}

void tc_job_warn(tc_job *j, const char *fmt, ...) {
    char buf[1024]; /* a warning is cut at 1023 bytes */
    va_list ap;
    va_start(ap, fmt);
    tc_vformat(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = tc_strdup(buf);
    if (!s || TC_PUSH(j->warnings, j->n_warnings, j->cap_warnings, s)) free(s);
}

const char *tc_verdict_name(tc_verdict v) {
    switch (v) {
    case TC_VERDICT_COMPUTE: return "compute-bound";
    case TC_VERDICT_NETWORK: return "network-bound";
    case TC_VERDICT_STRAGGLER: return "straggler-bound";
    case TC_VERDICT_HOST: return "host-bound";
    case TC_VERDICT_TOO_SMALL: return "too-small";
    default: return "none";
    }
}

tc_verdict tc_verdict_of_name(const char *name) {
    static const tc_verdict all[] = {TC_VERDICT_COMPUTE, TC_VERDICT_NETWORK, TC_VERDICT_STRAGGLER, TC_VERDICT_HOST,
                                     TC_VERDICT_TOO_SMALL};
    for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(name, tc_verdict_name(all[i])) == 0) return all[i];
    return TC_VERDICT_NONE;
}

void tc_job_groups_free(tc_job *j) {
    for (size_t i = 0; i < j->n_groups; i++) { free(j->groups[i].name); free(j->groups[i].desc); free(j->groups[i].ranks); }
    free(j->groups);
    free(j->group_rows);
    j->groups = NULL;
    j->group_rows = NULL;
    j->n_groups = j->n_group_rows = 0;
}

void tc_findings_free(tc_findings *f) {
    free(f->timeline_ranks);
    memset(f, 0, sizeof *f);
}
