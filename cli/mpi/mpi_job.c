/* mpi_job.c: the MPI load-and-analyze step (see mpi_job.h, docs/mpi.md). Only `make mpi` compiles
 * this file. Messages are tc_buf byte strings (mpi_pack.h) sent in pieces of at most 1 GiB.
 * Process 0 holds only skeleton traces (comm kernels) for matching plus every rank's results; each
 * process runs the per-rank phase of the files it parsed (analyze_phases.h). */
#include "mpi_job.h"
#include "analyzer/analyze.h"
#include "analyzer/analyze_phases.h"
#include "analyzer/collectives.h"
#include "analyzer/pipeline.h"
#include "analyzer/groups.h"
#include "cli/exitcodes.h"
#include "cli/diag.h"
#include "cli/load_job.h"
#include "mpi_pack.h"
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PIECE ((size_t)1 << 30)
enum { TAG_SIZE = 1, TAG_DATA = 2 };

static void send_buf(const tc_buf *b, int dest) {
    uint64_t n = b->n;
    MPI_Send(&n, 1, MPI_UINT64_T, dest, TAG_SIZE, MPI_COMM_WORLD);
    for (size_t off = 0; off < b->n; off += PIECE) {
        size_t len = b->n - off < PIECE ? b->n - off : PIECE;
        MPI_Send(b->p + off, (int)len, MPI_BYTE, dest, TAG_DATA, MPI_COMM_WORLD);
    }
}

/* Receives into an empty b; false when out of memory (the message is then drained). */
static bool recv_buf(tc_buf *b, int src) {
    uint64_t n;
    MPI_Recv(&n, 1, MPI_UINT64_T, src, TAG_SIZE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    memset(b, 0, sizeof *b);
    b->p = malloc(n ? n : 1);
    unsigned char *sink = b->p ? NULL : malloc(n < PIECE ? (n ? n : 1) : PIECE);
    if (!b->p && !sink) MPI_Abort(MPI_COMM_WORLD, TC_EXIT_NOTHING); /* cannot even drain it */
    for (size_t off = 0; off < n; off += PIECE) {
        size_t len = n - off < PIECE ? n - off : PIECE;
        MPI_Recv(b->p ? b->p + off : sink, (int)len, MPI_BYTE, src, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    free(sink);
    if (!b->p) { b->bad = true; return false; }
    b->n = b->cap = n;
    return true;
}

/* Broadcasts process 0's b to every process (the others' b starts empty). */
static bool bcast_buf(tc_buf *b, int me) {
    uint64_t n = b->n;
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (me != 0) {
        memset(b, 0, sizeof *b);
        b->p = malloc(n ? n : 1);
        if (!b->p) MPI_Abort(MPI_COMM_WORLD, TC_EXIT_NOTHING); /* a file list: tiny */
        b->n = b->cap = n;
    }
    for (size_t off = 0; off < n; off += PIECE) {
        size_t len = n - off < PIECE ? n - off : PIECE;
        MPI_Bcast(b->p + off, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
    return true;
}

static uint64_t file_size(const char *path) {
    struct stat st;
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || st.st_size < 0) return 0;
    return (uint64_t)st.st_size;
}

/* Message A, one process's parse results: per file its index, status, message and (when usable)
 * the skeleton of its sorted trace. lj holds the usable traces, lidx[k] = local file k's index in lj. */
static void pack_results(tc_buf *b, const size_t *index, const tc_loaded_files *lf, const tc_job *lj, const size_t *lidx) {
    tc_buf_u64(b, lf->n);
    for (size_t k = 0; k < lf->n; k++) {
        tc_buf_u64(b, index[k]);
        tc_buf_u64(b, (uint64_t)lf->status[k]);
        tc_buf_str(b, lf->msg[k]);
        if (lf->status[k] == TC_LOAD_OK || lf->status[k] == TC_LOAD_DAMAGED) tc_skeleton_pack(b, &lj->traces[lidx[k]]);
    }
}

/* Unpacks one process's results into the job-wide arrays (all[i] for file index i). */
static int unpack_results(tc_buf *b, tc_loaded_files *all, bool *have) {
    uint64_t k = tc_buf_get_u64(b);
    if (k == UINT64_MAX) return -1;
    for (uint64_t q = 0; q < k && !b->bad; q++) {
        uint64_t i = tc_buf_get_u64(b);
        uint64_t st = tc_buf_get_u64(b);
        char *msg = tc_buf_get_str(b);
        if (b->bad || i >= all->n || have[i]) { free(msg); return -1; }
        snprintf(all->msg[i], sizeof all->msg[i], "%s", msg ? msg : "");
        free(msg);
        all->status[i] = (tc_load_status)st;
        if (st == TC_LOAD_OK || st == TC_LOAD_DAMAGED) {
            if (tc_skeleton_unpack(b, &all->traces[i])) return -1;
        }
        have[i] = true;
    }
    return b->bad ? -1 : 0;
}

/* Message B (process 0 -> owner): the user FLOPs, the process groups' names and scopes (what the
 * per-rank phase reads of them: groups.h), and, per kept trace the owner parsed, its file index,
 * rank, matching statistics and the wait of each comm kernel (sorted order; -1 unmatched). */
static void pack_matching(tc_buf *b, const tc_job *j, const size_t *file_of, const int *owner, int p, double user) {
    size_t cnt = 0;
    for (size_t r = 0; r < j->n_ranks; r++) cnt += owner[file_of[j->ranks[r].input]] == p;
    tc_buf_f64(b, user);
    tc_buf_u64(b, j->n_groups);
    for (size_t g = 0; g < j->n_groups; g++) {
        tc_buf_str(b, j->groups[g].name);
        tc_buf_u64(b, (uint64_t)j->groups[g].f.scope);
    }
    tc_buf_u64(b, cnt);
    for (size_t r = 0; r < j->n_ranks; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        if (owner[file_of[rr->input]] != p) continue;
        tc_buf_u64(b, file_of[rr->input]);
        tc_buf_i64(b, rr->rank);
        tc_buf_u64(b, rr->matched_instances);
        tc_buf_f64(b, rr->last_arrival_credit);
        tc_buf_i64(b, rr->caused_wait_ns);
        tc_buf_u64(b, rr->unmatched_comm);
        tc_buf_u64(b, rr->has_clock_offset);
        tc_buf_i64(b, rr->clock_offset_ns);
        tc_buf_u64(b, rr->wait_ns != NULL);
        const tc_trace *t = &j->traces[rr->input];
        tc_buf_u64(b, t->n_gpu);
        if (rr->wait_ns) tc_buf_put(b, rr->wait_ns, t->n_gpu * sizeof *rr->wait_ns);
    }
}

/* Index in lj->ranks of the rank parsed from job file fi (lfile: job file of each local input),
 * lj->n_ranks when this process has none. */
static size_t rank_of_file(const tc_job *lj, const size_t *lfile, uint64_t fi) {
    size_t r = lj->n_ranks;
    for (size_t k = 0; k < lj->n_ranks; k++) if (lfile[lj->ranks[k].input] == fi) r = k;
    return r;
}

/* The owner's side: applies message B to its local job lj (lfile[i] = file index of lj trace i),
 * runs the per-rank phase of each listed rank and writes message C: per rank its file index and its
 * results. Each trace is then freed unless keep_events (--html: process 0 may ask for it, message E).
 * 0, or -1. */

/* The process groups of message B into lj->groups (names and scopes only, in process 0's order). */
static int unpack_groups(tc_job *lj, tc_buf *in) {
    tc_job_groups_free(lj);
    uint64_t n = tc_buf_get_u64(in);
    if (in->bad || n > (in->n - in->off) / 16) return -1;
    lj->groups = calloc(n ? n : 1, sizeof *lj->groups);
    if (!lj->groups) return -1;
    for (uint64_t g = 0; g < n; g++) {
        tc_process_group *pg = &lj->groups[lj->n_groups];
        pg->name = tc_buf_get_str(in);
        uint64_t scope = tc_buf_get_u64(in);
        if (!pg->name || in->bad || scope > TC_SCOPE_INTER) { free(pg->name); pg->name = NULL; return -1; }
        pg->f.scope = (tc_group_scope)scope;
        lj->n_groups++;
    }
    return 0;
}

static int owner_phase(tc_job *lj, const size_t *lfile, tc_buf *in, const tc_analyze_options *aopt, bool keep_events,
                       tc_buf *out) {
    double user = tc_buf_get_f64(in);
    if (unpack_groups(lj, in)) return -1;
    uint64_t cnt = tc_buf_get_u64(in);
    if (in->bad) return -1;
    tc_buf_u64(out, cnt);
    for (uint64_t q = 0; q < cnt; q++) {
        uint64_t fi = tc_buf_get_u64(in);
        size_t r = rank_of_file(lj, lfile, fi);
        if (in->bad || r == lj->n_ranks) return -1;
        tc_rank_result *rr = &lj->ranks[r];
        tc_trace *t = &lj->traces[rr->input];
        rr->rank = t->rank = tc_buf_get_i64(in);
        rr->matched_instances = tc_buf_get_u64(in);
        rr->last_arrival_credit = tc_buf_get_f64(in);
        rr->caused_wait_ns = tc_buf_get_i64(in);
        rr->unmatched_comm = tc_buf_get_u64(in);
        rr->has_clock_offset = tc_buf_get_u64(in) != 0;
        rr->clock_offset_ns = tc_buf_get_i64(in);
        bool has_wait = tc_buf_get_u64(in) != 0;
        uint64_t n_comm = tc_buf_get_u64(in);
        if (in->bad) return -1;
        if (has_wait) {
            rr->wait_ns = calloc(t->n_gpu ? t->n_gpu : 1, sizeof *rr->wait_ns);
            if (!rr->wait_ns) return -1;
            uint64_t k = 0;
            for (size_t e = 0; e < t->n_gpu; e++) {
                if (!t->gpu[e].is_comm) continue;
                if (k++ >= n_comm) return -1;
                rr->wait_ns[e] = tc_buf_get_i64(in);
            }
            if (k != n_comm || in->bad) return -1;
        }
        tc_rank_extra x;
        memset(&x, 0, sizeof x);
        int rc = tc_job_rank_phase(lj, r, aopt, user, &x);
        if (!rc) {
            tc_buf_u64(out, fi);
            tc_rank_result_pack(out, rr, &x, t);
            if (!keep_events) { /* its results are in out: the events are not needed any more */
                tc_trace_free(t);
                free(rr->wait_ns);
                rr->wait_ns = NULL;
                rr->device = NULL;
            }
        }
        tc_rank_extra_free(&x);
        if (rc || out->bad) return -1;
    }
    return 0;
}

/* Process 0's side of message C: fills j->ranks[rank_of[k]] and x for each listed trace k. */
static int unpack_rank_results(tc_buf *in, tc_job *j, const size_t *kept_of_file, size_t n_files, const size_t *rank_of,
                               tc_rank_extra *x) {
    uint64_t cnt = tc_buf_get_u64(in);
    if (in->bad || cnt == UINT64_MAX) return -1;
    for (uint64_t q = 0; q < cnt; q++) {
        uint64_t fi = tc_buf_get_u64(in);
        if (in->bad || fi >= n_files || kept_of_file[fi] == SIZE_MAX) return -1;
        size_t k = kept_of_file[fi], r = rank_of[k];
        tc_rank_result *rr = &j->ranks[r];
        int64_t rank = rr->rank;
        if (tc_rank_result_unpack(in, rr, &x[r], &j->traces[k]) || rr->rank != rank) return -1;
    }
    return in->bad ? -1 : 0;
}

/* Message D (process 0 -> owner p, --html only): the file indices of the timeline's ranks that p
 * parsed (UINT64_MAX: none, the analysis failed). */
static void pack_request(tc_buf *b, const tc_job *j, const size_t *pick, size_t npick, const size_t *file_of,
                         const int *owner, int p, bool fine) {
    size_t cnt = 0;
    for (size_t q = 0; q < npick; q++) cnt += owner[file_of[j->ranks[pick[q]].input]] == p;
    tc_buf_u64(b, fine ? cnt : UINT64_MAX);
    for (size_t q = 0; fine && q < npick; q++)
        if (owner[file_of[j->ranks[pick[q]].input]] == p) tc_buf_u64(b, file_of[j->ranks[pick[q]].input]);
}

/* The owner's answer, message E: per requested file its index, its whole trace and wait_ns. 0, or -1. */
static int serve_request(const tc_job *lj, const size_t *lfile, tc_buf *in, tc_buf *out) {
    uint64_t cnt = tc_buf_get_u64(in);
    if (in->bad) return -1;
    if (cnt == UINT64_MAX) { tc_buf_u64(out, 0); return 0; }
    tc_buf_u64(out, cnt);
    for (uint64_t q = 0; q < cnt; q++) {
        uint64_t fi = tc_buf_get_u64(in);
        size_t r = rank_of_file(lj, lfile, fi);
        if (in->bad || r == lj->n_ranks) return -1;
        const tc_rank_result *rr = &lj->ranks[r];
        const tc_trace *t = &lj->traces[rr->input];
        tc_buf_u64(out, fi);
        tc_trace_pack(out, t);
        tc_buf_u64(out, rr->wait_ns != NULL);
        if (rr->wait_ns) tc_buf_put(out, rr->wait_ns, t->n_gpu * sizeof *rr->wait_ns);
        if (out->bad) return -1;
    }
    return 0;
}

/* Replaces the skeleton j->traces[k] of ranks[r] with full (taken over) and its waits (taken). 0, or -1. */
static int attach_one(tc_job *j, size_t k, size_t r, tc_trace *full, int64_t *wait) {
    tc_rank_result *rr = &j->ranks[r];
    int rc = tc_rank_result_rehome(rr, full); /* its names move to full's strings before the skeleton goes */
    /* the job's own results (the summary's evidence, the findings) keep pointing into the
     * skeleton's strings: those stay until the job goes */
    tc_strtab *old = j->traces[k].strings;
    if (TC_PUSH(j->kept_strings, j->n_kept_strings, j->cap_kept_strings, old)) return -1;
    j->traces[k].strings = NULL;
    tc_trace_free(&j->traces[k]);
    j->traces[k] = *full;
    memset(full, 0, sizeof *full);
    free(rr->wait_ns);
    rr->wait_ns = wait;
    return rc;
}

/* Process 0's own share (--html): frees its traces the timeline does not draw and moves the drawn
 * ones (with their waits) from lj into j, in place of their skeletons. 0, or -1. */
static int take_own(tc_job *lj, const size_t *lfile, tc_job *j, const size_t *pick, size_t npick, const size_t *file_of,
                    const size_t *kept_of_file, const size_t *rank_of) {
    for (size_t q = 0; q < lj->n_ranks; q++) {
        tc_rank_result *lr = &lj->ranks[q];
        size_t fi = lfile[lr->input], k = kept_of_file[fi];
        bool drawn = false;
        for (size_t p = 0; p < npick; p++) drawn |= file_of[j->ranks[pick[p]].input] == fi;
        int64_t *wait = lr->wait_ns;
        lr->wait_ns = NULL;
        lr->device = NULL;
        if (!drawn || k == SIZE_MAX) { free(wait); tc_trace_free(&lj->traces[lr->input]); continue; }
        if (attach_one(j, k, rank_of[k], &lj->traces[lr->input], wait)) return -1;
    }
    return 0;
}

/* Process 0's side of message E: each listed trace replaces its skeleton in j, with its wait_ns. */
static int attach_traces(tc_buf *in, tc_job *j, const size_t *kept_of_file, size_t n_files, const size_t *rank_of) {
    uint64_t cnt = tc_buf_get_u64(in);
    if (in->bad || cnt == UINT64_MAX) return -1;
    for (uint64_t q = 0; q < cnt; q++) {
        uint64_t fi = tc_buf_get_u64(in);
        if (in->bad || fi >= n_files || kept_of_file[fi] == SIZE_MAX) return -1;
        size_t k = kept_of_file[fi], r = rank_of[k];
        tc_trace full;
        if (tc_trace_unpack(in, &full)) return -1;
        int64_t *wait = NULL;
        if (tc_buf_get_u64(in)) {
            wait = malloc((full.n_gpu ? full.n_gpu : 1) * sizeof *wait);
            if (!wait || !tc_buf_get(in, wait, full.n_gpu * sizeof *wait)) { free(wait); tc_trace_free(&full); return -1; }
        }
        if (attach_one(j, k, r, &full, wait)) return -1;
    }
    return in->bad ? -1 : 0;
}

/* One process's state through the steps of tc_mpi_load_analyze. */
typedef struct {
    int me, procs;            /* this process, number of processes */
    size_t n;                 /* files of the job (process 0's expansion of the operands) */
    char **paths;             /* per file: its path */
    bool *from_folder;        /* per file: found in a folder operand */
    int *owner;               /* per file: the process that parses it */
    size_t *mine; char **my_paths; size_t n_mine; /* this process's files: job index and path */
    tc_job lj;                /* this process's usable traces, sorted (tc_job_prepare) */
    size_t *lidx;             /* local file k: its index in lj.traces */
    size_t *lfile;            /* lj.traces[i]: its job file */
    size_t *file_of;          /* process 0: job trace k -> job file */
    size_t *kept_of_file;     /* process 0: job file -> job trace, SIZE_MAX when not kept */
    size_t *rank_of;          /* process 0: job trace k -> index in j->ranks */
} mpi_state;

static void state_free(mpi_state *m) {
    tc_job_free(&m->lj);
    free(m->lidx); free(m->lfile); free(m->file_of); free(m->kept_of_file); free(m->rank_of);
    for (size_t i = 0; m->paths && i < m->n; i++) free(m->paths[i]);
    free(m->paths); free(m->from_folder); free(m->owner); free(m->mine); free(m->my_paths);
}

/* Process 0's part of step 1: prints what the expansion of the operands (in) says and writes the
 * file list (per file: path, from a folder, owner) into list, balanced by size. 1, or 0 (message
 * printed). */
static int assign_files(const tc_cli_inputs *in, int procs, tc_buf *list) {
    if (tc_cli_inputs_report(in, stderr, "tracecost") == TC_EXIT_NOTHING) return 0; /* its other codes: tc_mpi_load_analyze */
    const tc_input_list *inputs = &in->list;
    int ok = 1;
    uint64_t *sizes = calloc(inputs->n ? inputs->n : 1, sizeof *sizes);
    bool *is_stdin = calloc(inputs->n ? inputs->n : 1, sizeof *is_stdin);
    int *owner = calloc(inputs->n ? inputs->n : 1, sizeof *owner);
    if (!sizes || !is_stdin || !owner) ok = 0;
    for (size_t i = 0; ok && i < inputs->n; i++) {
        sizes[i] = file_size(inputs->paths[i]);
        is_stdin[i] = strcmp(inputs->paths[i], "-") == 0;
    }
    if (ok && tc_mpi_assign(sizes, is_stdin, inputs->n, procs, owner)) ok = 0;
    if (ok) {
        tc_buf_u64(list, inputs->n);
        for (size_t i = 0; i < inputs->n; i++) {
            tc_buf_str(list, inputs->paths[i]);
            tc_buf_u64(list, inputs->from_folder ? inputs->from_folder[i] : 0);
            tc_buf_u64(list, (uint64_t)owner[i]);
        }
        if (list->bad) ok = 0;
    }
    if (!ok) fprintf(stderr, "tracecost: out of memory\n");
    free(sizes); free(is_stdin); free(owner);
    return ok;
}

/* Step 1: process 0 assigns the files of its expansion of the operands (in); every process gets
 * the list (m->n, paths, from_folder, owner and its own files). 0, or -1 on every process when
 * process 0 failed (message printed). */
static int share_files(mpi_state *m, const tc_cli_inputs *in) {
    int ok = 1;
    tc_buf list;
    memset(&list, 0, sizeof list);
    if (m->me == 0) ok = assign_files(in, m->procs, &list);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) { tc_buf_free(&list); return -1; }
    bcast_buf(&list, m->me);
    size_t n = m->n = (size_t)tc_buf_get_u64(&list);
    m->paths = calloc(n ? n : 1, sizeof *m->paths);
    m->from_folder = calloc(n ? n : 1, sizeof *m->from_folder);
    m->owner = calloc(n ? n : 1, sizeof *m->owner);
    m->mine = calloc(n ? n : 1, sizeof *m->mine);
    m->my_paths = calloc(n ? n : 1, sizeof *m->my_paths);
    if (!m->paths || !m->from_folder || !m->owner || !m->mine || !m->my_paths) MPI_Abort(MPI_COMM_WORLD, TC_EXIT_NOTHING);
    for (size_t i = 0; i < n; i++) {
        m->paths[i] = tc_buf_get_str(&list);
        m->from_folder[i] = tc_buf_get_u64(&list) != 0;
        m->owner[i] = (int)tc_buf_get_u64(&list);
        if (m->owner[i] == m->me) { m->mine[m->n_mine] = i; m->my_paths[m->n_mine++] = m->paths[i]; }
    }
    tc_buf_free(&list);
    return 0;
}

/* Steps 2 and 3: this process parses its share (-j threads; no progress line under MPI), keeps
 * the usable traces sorted in m->lj and writes message A (its results with the skeletons) into
 * out (UINT64_MAX alone when it failed). */
static void parse_share(mpi_state *m, const tc_load_options *lbase, tc_buf *out) {
    tc_assemble_options aopt = {.jobs = lbase->jobs, .comm = lbase->comm}; /* no progress callback */
    tc_loaded_files lf;
    tc_notes notes;
    memset(&notes, 0, sizeof notes);
    int parsed = tc_job_parse_files(m->my_paths, m->n_mine, &aopt, &lf, &notes) == TC_ASSEMBLY_OK;
    tc_print_notes(stderr, &notes);
    tc_notes_free(&notes);
    m->lidx = calloc(lf.n ? lf.n : 1, sizeof *m->lidx);
    m->lfile = calloc(lf.n ? lf.n : 1, sizeof *m->lfile);
    m->lj.traces = calloc(lf.n ? lf.n : 1, sizeof *m->lj.traces);
    if (!m->lidx || !m->lfile || !m->lj.traces) parsed = 0;
    for (size_t k = 0; parsed && k < lf.n; k++) {
        if (lf.status[k] != TC_LOAD_OK && lf.status[k] != TC_LOAD_DAMAGED) continue;
        m->lidx[k] = m->lj.n_traces;
        m->lfile[m->lj.n_traces] = m->mine[k];
        m->lj.traces[m->lj.n_traces++] = lf.traces[k];
        memset(&lf.traces[k], 0, sizeof lf.traces[k]);
    }
    if (parsed && tc_job_prepare(&m->lj, true)) parsed = 0;
    if (parsed) pack_results(out, m->mine, &lf, &m->lj, m->lidx);
    if (!parsed || out->bad) { tc_buf_free(out); tc_buf_u64(out, UINT64_MAX); }
    for (size_t k = 0; k < lf.n; k++) tc_trace_free(&lf.traces[k]);
    free(lf.traces); free(lf.status); free(lf.msg);
}

/* Process 0, after tc_job_assemble_parsed: sorts j's ranks, matches collectives and indexes the kept
 * traces by job file (file_of, kept_of_file, rank_of). True, or false out of memory. */
static bool index_job(mpi_state *m, tc_job *j, const char **pathp, const tc_analyze_options *aopt) {
    size_t n = m->n;
    m->file_of = calloc(j->n_traces ? j->n_traces : 1, sizeof *m->file_of);
    m->kept_of_file = malloc((n ? n : 1) * sizeof *m->kept_of_file);
    m->rank_of = calloc(j->n_traces ? j->n_traces : 1, sizeof *m->rank_of);
    if (!m->file_of || !m->kept_of_file || !m->rank_of || tc_job_prepare(j, false) || tc_job_groups(j, aopt) ||
        tc_collectives_match(j) || tc_p2p_pair(j))
        return false;
    for (size_t i = 0; i < n; i++) m->kept_of_file[i] = SIZE_MAX;
    for (size_t k = 0; k < j->n_traces; k++)
        for (size_t i = 0; i < n; i++)
            if (pathp[i] == j->traces[k].path) { m->file_of[k] = i; m->kept_of_file[i] = k; }
    for (size_t r = 0; r < j->n_ranks; r++) m->rank_of[j->ranks[r].input] = r;
    return true;
}

/* Step 4 on process 0: gathers every process's message A (its own in own), reports the files'
 * problems, assigns ranks and matches collectives in j. Returns the exit code so far; *go when
 * the analysis goes on. */
static int gather_and_match(mpi_state *m, tc_buf *own, const tc_load_options *lbase, const tc_analyze_options *aopt,
                            tc_job *j, int *go) {
    size_t n = m->n;
    tc_loaded_files all;
    memset(&all, 0, sizeof all);
    all.n = n;
    all.traces = calloc(n ? n : 1, sizeof *all.traces);
    all.status = calloc(n ? n : 1, sizeof *all.status);
    all.msg = calloc(n ? n : 1, sizeof *all.msg);
    bool *have = calloc(n ? n : 1, sizeof *have);
    bool fine = all.traces && all.status && all.msg && have;
    own->off = 0;
    if (fine && unpack_results(own, &all, have)) {
        fprintf(stderr, "tracecost: process 0: out of memory\n");
        fine = false;
    }
    for (int p = 1; p < m->procs; p++) {
        tc_buf in;
        if (!recv_buf(&in, p)) { fine = false; continue; }
        if (fine && unpack_results(&in, &all, have)) {
            fprintf(stderr, "tracecost: process %d: out of memory or a damaged message\n", p);
            fine = false;
        }
        tc_buf_free(&in);
    }
    for (size_t i = 0; fine && i < n; i++) fine = have[i];
    free(have);
    const char **pathp = calloc(n ? n : 1, sizeof *pathp);
    if (!pathp) fine = false;
    for (size_t i = 0; fine && i < n; i++) pathp[i] = all.traces[i].path;
    int rc = TC_EXIT_NOTHING;
    if (fine) {
        tc_notes notes;
        memset(&notes, 0, sizeof notes);
        tc_assemble_options a = {.jobs = lbase->jobs, .window = lbase->window};
        rc = tc_assembly_exit(tc_job_assemble_parsed(j, m->paths, m->from_folder, &all, &a, &notes));
        tc_print_notes(lbase->err ? lbase->err : stderr, &notes);
        tc_notes_free(&notes);
        if (rc == TC_EXIT_OK || rc == TC_EXIT_DAMAGED) {
            *go = index_job(m, j, pathp, aopt);
            if (!*go) { fprintf(stderr, "tracecost: out of memory during analysis\n"); rc = TC_EXIT_NOTHING; }
        }
    } else {
        fprintf(stderr, "tracecost: out of memory while gathering the parsed traces\n");
        for (size_t i = 0; all.traces && i < n; i++) tc_trace_free(&all.traces[i]);
        free(all.traces); free(all.status); free(all.msg);
    }
    free(pathp);
    return rc;
}

/* Steps 5 and 6 on a process other than 0: the per-rank phase of its traces (message B in, C
 * out) and, with --html, the whole traces process 0 asks for (message D in, E out). */
static void serve_root(mpi_state *m, const tc_analyze_options *aopt, bool need_events) {
    tc_buf bin, cout;
    memset(&bin, 0, sizeof bin);
    memset(&cout, 0, sizeof cout);
    if (!recv_buf(&bin, 0)) bin.bad = true;
    if (bin.bad || owner_phase(&m->lj, m->lfile, &bin, aopt, need_events, &cout) || cout.bad) {
        tc_buf_free(&cout);
        tc_buf_u64(&cout, UINT64_MAX);
    }
    send_buf(&cout, 0);
    tc_buf_free(&bin);
    tc_buf_free(&cout);
    if (!need_events) return;
    if (!recv_buf(&bin, 0)) bin.bad = true;
    if (bin.bad || serve_request(&m->lj, m->lfile, &bin, &cout) || cout.bad) {
        tc_buf_free(&cout);
        tc_buf_u64(&cout, UINT64_MAX);
    }
    send_buf(&cout, 0);
    tc_buf_free(&bin);
    tc_buf_free(&cout);
}

/* Step 5 on process 0: sends each process the matching of its ranks (message B), runs the
 * per-rank phase of its own share, gathers every rank's results (message C) into j and x and
 * finishes the analysis (findings included). Returns fine, false on any failure. */
static bool root_rank_phase(mpi_state *m, const tc_analyze_options *aopt, bool need_events, tc_job *j, tc_rank_extra *x,
                            bool fine) {
    double user = tc_job_user_flops(j, aopt);
    for (int p = 1; p < m->procs; p++) {
        tc_buf b;
        memset(&b, 0, sizeof b);
        pack_matching(&b, j, m->file_of, m->owner, p, user);
        if (b.bad) { tc_buf_free(&b); tc_buf_f64(&b, 0); tc_buf_u64(&b, UINT64_MAX); }
        send_buf(&b, p);
        tc_buf_free(&b);
    }
    tc_buf bin, cout;
    memset(&bin, 0, sizeof bin);
    memset(&cout, 0, sizeof cout);
    pack_matching(&bin, j, m->file_of, m->owner, 0, user);
    if (bin.bad || owner_phase(&m->lj, m->lfile, &bin, aopt, need_events, &cout) || cout.bad) fine = false;
    if (fine && unpack_rank_results(&cout, j, m->kept_of_file, m->n, m->rank_of, x)) fine = false;
    for (int p = 1; p < m->procs; p++) {
        tc_buf in;
        if (!recv_buf(&in, p)) { fine = false; continue; }
        if (fine && unpack_rank_results(&in, j, m->kept_of_file, m->n, m->rank_of, x)) {
            fprintf(stderr, "tracecost: process %d: out of memory or a damaged message\n", p);
            fine = false;
        }
        tc_buf_free(&in);
    }
    tc_buf_free(&bin);
    tc_buf_free(&cout);
    if (fine && tc_job_finish(j, aopt, x)) fine = false;
    return fine;
}

/* Step 6 on process 0 (--html): the whole traces of the timeline's ranks, which the analyzer chose
 * (j->findings.timeline_ranks), from the processes that parsed them (messages D and E); its own
 * share is moved from m->lj. Every process gets its request, an empty one when !fine. Returns
 * fine, false on any failure. */
static bool fetch_timeline_traces(mpi_state *m, tc_job *j, bool fine) {
    const size_t *pick = j->findings.timeline_ranks;
    size_t npick = fine ? j->findings.n_timeline_ranks : 0;
    for (int p = 0; p < m->procs; p++) {
        tc_buf req, ans;
        memset(&req, 0, sizeof req);
        memset(&ans, 0, sizeof ans);
        pack_request(&req, j, pick, npick, m->file_of, m->owner, p, fine);
        if (req.bad) { tc_buf_free(&req); tc_buf_u64(&req, UINT64_MAX); fine = false; }
        if (p == 0) { /* its own share: moved, not copied */
            if (fine && take_own(&m->lj, m->lfile, j, pick, npick, m->file_of, m->kept_of_file, m->rank_of)) fine = false;
            tc_buf_free(&req);
            continue;
        }
        send_buf(&req, p);
        if (!recv_buf(&ans, p)) fine = false;
        if (fine && attach_traces(&ans, j, m->kept_of_file, m->n, m->rank_of)) {
            fprintf(stderr, "tracecost: process %d: out of memory or a damaged message\n", p);
            fine = false;
        }
        tc_buf_free(&req);
        tc_buf_free(&ans);
    }
    return fine;
}

int tc_mpi_load_analyze(void *vctx, const tc_cli_inputs *in, const tc_load_options *lbase,
                        const tc_analyze_options *aopt, bool need_events, tc_job *j, bool *report) {
    const tc_mpi_ctx *ctx = vctx;
    mpi_state m;
    memset(&m, 0, sizeof m);
    m.me = ctx->rank;
    m.procs = ctx->size;
    tc_job_init(&m.lj);
    *report = false;
    int rc = TC_EXIT_OK, go = 0;
    if (share_files(&m, in)) rc = TC_EXIT_NOTHING; /* 1. the file list */
    else {
        tc_buf out; /* 2, 3. each process parses its share; 4. process 0 gathers and matches */
        memset(&out, 0, sizeof out);
        parse_share(&m, lbase, &out);
        if (m.me != 0) send_buf(&out, 0);
        else rc = gather_and_match(&m, &out, lbase, aopt, j, &go);
        if (rc == TC_EXIT_OK && in->list.n_unusable) rc = TC_EXIT_DAMAGED; /* a folder entry left out */
        tc_buf_free(&out);
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (go && m.me != 0) serve_root(&m, aopt, need_events); /* 5, 6 */
    else if (go) {
        tc_rank_extra *x = calloc(j->n_ranks ? j->n_ranks : 1, sizeof *x);
        bool fine = root_rank_phase(&m, aopt, need_events, j, x, x != NULL);
        if (need_events) fine = fetch_timeline_traces(&m, j, fine);
        if (fine) *report = true;
        else { fprintf(stderr, "tracecost: out of memory during analysis\n"); rc = TC_EXIT_NOTHING; }
        for (size_t r = 0; x && r < j->n_ranks; r++) tc_rank_extra_free(&x[r]);
        free(x);
    }
    state_free(&m);
    return rc;
}
