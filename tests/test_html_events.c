/* test_html_events.c: the HTML report reads GPU events only of the ranks its timeline draws
 * (the analyzer's tc_findings.timeline_ranks), so an MPI process 0 can hold the other ranks as skeletons: removing
 * every other rank's events and waits leaves the report byte-identical (but for the CSP nonce). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/job.h"
#include "analyzer/analyze.h"
#include "reports/html_report.h"

/* 7 ranks, 2 streams each, compute kernels and a collective per step window */
static void build_job(tc_job *j) {
    tc_job_init(j);
    size_t ranks = 7;
    j->traces = calloc(ranks, sizeof *j->traces);
    cr_assert(j->traces);
    for (size_t r = 0; r < ranks; r++) {
        tc_trace *t = &j->traces[j->n_traces++];
        char name[64];
        snprintf(name, sizeof name, "rank%zu.json", r);
        cr_assert_eq(tc_trace_init(t, name), 0);
        t->rank = (int64_t)r;
        for (int e = 0; e < 40; e++) {
            tc_gpu_event g;
            memset(&g, 0, sizeof g);
            bool comm = e % 4 == 3;
            snprintf(name, sizeof name, comm ? "ncclKernel_AllReduce" : "gemm_%d_r%zu", e % 3, r % 2);
            g.start_ns = 1000 + (int64_t)e * 5000 + (comm ? (int64_t)r * 300 : 0);
            g.dur_ns = comm ? 2000 + (int64_t)r * 100 : 1500 + e * 10;
            g.name = tc_strtab_intern(t->strings, name, strlen(name));
            snprintf(name, sizeof name, "%d", comm ? 13 : 7);
            g.stream = tc_strtab_intern(t->strings, name, strlen(name));
            g.correlation = TC_NONE;
            g.coll = TC_NONE;
            g.kind = TC_GPU_KERNEL;
            g.is_comm = comm;
            cr_assert_eq(TC_PUSH(t->gpu, t->n_gpu, t->cap_gpu, g), 0);
        }
    }
    tc_analyze_options opt = {.bound_threshold = 0.15, .jobs = 1};
    cr_assert_eq(tc_job_analyze(j, &opt), 0);
}

static char *render(const tc_job *j) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    cr_assert(f);
    cr_assert_eq(tc_html_report_write(f, j), 0);
    cr_assert_eq(fclose(f), 0);
    for (char *p = strstr(buf, "nonce"); p; p = strstr(p + 5, "nonce")) /* blank the random nonce */
        for (char *q = p + 5; *q && (*q == '-' || *q == '=' || *q == '"' || (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f')); q++)
            *q = 'x';
    return buf;
}

Test(html_events, only_the_timeline_ranks_events_are_read) {
    tc_job j;
    build_job(&j);
    char *before = render(&j);
    const size_t *pick = j.findings.timeline_ranks;
    size_t np = j.findings.n_timeline_ranks;
    cr_assert(np >= 1 && np < j.n_ranks, "the test needs ranks that are not drawn (%zu of %zu)", np, j.n_ranks);
    for (size_t r = 0; r < j.n_ranks; r++) {
        bool picked = false;
        for (size_t k = 0; k < np; k++) picked |= pick[k] == r;
        if (picked) continue;
        tc_trace *t = &j.traces[j.ranks[r].input];
        t->n_gpu_parsed = t->n_gpu; /* a skeleton: the count stays known, the events are gone */
        free(t->gpu);
        t->gpu = NULL;
        t->n_gpu = t->cap_gpu = 0;
        free(j.ranks[r].wait_ns);
        j.ranks[r].wait_ns = NULL;
    }
    char *after = render(&j);
    cr_assert(strstr(before, "ncclKernel_AllReduce") && strstr(before, "gemm_0_r1"));
    cr_assert_str_eq(before, after);
    free(before);
    free(after);
    tc_job_free(&j);
}
