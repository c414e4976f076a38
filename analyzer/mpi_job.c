/* mpi_job.c: the MPI load-and-analyze step (see mpi_job.h, docs/mpi.md). Only `make mpi` compiles
 * this file. Messages are tc_buf byte strings (mpi_pack.h) sent in pieces of at most 1 GiB. */
#include "mpi_job.h"
#include "exitcodes.h"
#include "inputs.h"
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

/* One process's parse results: per file its index, status, message and (when usable) trace. */
static void pack_results(tc_buf *b, const size_t *index, const tc_loaded_files *lf) {
    tc_buf_u64(b, lf->n);
    for (size_t k = 0; k < lf->n; k++) {
        tc_buf_u64(b, index[k]);
        tc_buf_u64(b, (uint64_t)lf->status[k]);
        tc_buf_str(b, lf->msg[k]);
        if (lf->status[k] == TC_LOAD_OK || lf->status[k] == TC_LOAD_DAMAGED) tc_trace_pack(b, &lf->traces[k]);
    }
}

/* Unpacks one process's results into the job-wide arrays (all[i] for file index i). */
static int unpack_results(tc_buf *b, tc_loaded_files *all, bool *have) {
    uint64_t k = tc_buf_get_u64(b);
    for (uint64_t q = 0; q < k && !b->bad; q++) {
        uint64_t i = tc_buf_get_u64(b);
        uint64_t st = tc_buf_get_u64(b);
        char *msg = tc_buf_get_str(b);
        if (b->bad || i >= all->n || have[i]) { free(msg); return -1; }
        snprintf(all->msg[i], sizeof all->msg[i], "%s", msg ? msg : "");
        free(msg);
        all->status[i] = (tc_load_status)st;
        if (st == TC_LOAD_OK || st == TC_LOAD_DAMAGED) {
            if (tc_trace_unpack(b, &all->traces[i])) return -1;
        }
        have[i] = true;
    }
    return b->bad ? -1 : 0;
}

int tc_mpi_load_analyze(void *vctx, char **operands, size_t n_operands, const tc_load_options *lbase,
                        const tc_analyze_options *aopt, bool need_events, tc_job *j, bool *report) {
    const tc_mpi_ctx *ctx = vctx;
    int me = ctx->rank, procs = ctx->size;
    (void)need_events;
    *report = false;

    /* 1. process 0 expands the operands and assigns the files; everyone gets the list */
    tc_input_list inputs;
    memset(&inputs, 0, sizeof inputs);
    int ok = 1;
    tc_buf list;
    memset(&list, 0, sizeof list);
    if (me == 0) {
        char err[1200];
        if (tc_inputs_expand(operands, n_operands, &inputs, err, sizeof err)) {
            fprintf(stderr, "tracecost: %s\n", err);
            ok = 0;
        } else {
            uint64_t *sizes = calloc(inputs.n ? inputs.n : 1, sizeof *sizes);
            bool *is_stdin = calloc(inputs.n ? inputs.n : 1, sizeof *is_stdin);
            int *owner = calloc(inputs.n ? inputs.n : 1, sizeof *owner);
            if (!sizes || !is_stdin || !owner) ok = 0;
            for (size_t i = 0; ok && i < inputs.n; i++) {
                sizes[i] = file_size(inputs.paths[i]);
                is_stdin[i] = strcmp(inputs.paths[i], "-") == 0;
            }
            if (ok && tc_mpi_assign(sizes, is_stdin, inputs.n, procs, owner)) ok = 0;
            if (ok) {
                tc_buf_u64(&list, inputs.n);
                for (size_t i = 0; i < inputs.n; i++) {
                    tc_buf_str(&list, inputs.paths[i]);
                    tc_buf_u64(&list, inputs.from_folder ? inputs.from_folder[i] : 0);
                    tc_buf_u64(&list, (uint64_t)owner[i]);
                }
                if (list.bad) ok = 0;
            }
            if (!ok) fprintf(stderr, "tracecost: out of memory\n");
            free(sizes); free(is_stdin); free(owner);
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) { tc_input_list_free(&inputs); tc_buf_free(&list); return TC_EXIT_NOTHING; }
    bcast_buf(&list, me);
    size_t n = (size_t)tc_buf_get_u64(&list);
    char **paths = calloc(n ? n : 1, sizeof *paths);
    bool *from_folder = calloc(n ? n : 1, sizeof *from_folder);
    int *owner = calloc(n ? n : 1, sizeof *owner);
    size_t *mine = calloc(n ? n : 1, sizeof *mine);
    char **my_paths = calloc(n ? n : 1, sizeof *my_paths);
    if (!paths || !from_folder || !owner || !mine || !my_paths) MPI_Abort(MPI_COMM_WORLD, TC_EXIT_NOTHING);
    size_t n_mine = 0;
    for (size_t i = 0; i < n; i++) {
        paths[i] = tc_buf_get_str(&list);
        from_folder[i] = tc_buf_get_u64(&list) != 0;
        owner[i] = (int)tc_buf_get_u64(&list);
        if (owner[i] == me) { mine[n_mine] = i; my_paths[n_mine++] = paths[i]; }
    }
    tc_buf_free(&list);

    /* 2. every process parses its share (-j threads each); no progress line under MPI */
    tc_load_options lopt = *lbase;
    lopt.progress = false;
    lopt.from_folder = NULL;
    tc_loaded_files lf;
    memset(&lf, 0, sizeof lf);
    int parsed = tc_job_parse_files(my_paths, n_mine, &lopt, &lf) == 0;

    /* 3. the parse results go to process 0 */
    int rc = TC_EXIT_OK;
    if (me != 0) {
        tc_buf out;
        memset(&out, 0, sizeof out);
        if (parsed) pack_results(&out, mine, &lf);
        if (!parsed || out.bad) { tc_buf_free(&out); tc_buf_u64(&out, UINT64_MAX); }
        send_buf(&out, 0);
        tc_buf_free(&out);
        for (size_t k = 0; k < lf.n; k++) tc_trace_free(&lf.traces[k]);
        free(lf.traces); free(lf.status); free(lf.msg);
    } else {
        tc_loaded_files all;
        all.n = n;
        all.traces = calloc(n ? n : 1, sizeof *all.traces);
        all.status = calloc(n ? n : 1, sizeof *all.status);
        all.msg = calloc(n ? n : 1, sizeof *all.msg);
        bool *have = calloc(n ? n : 1, sizeof *have);
        bool fine = parsed && all.traces && all.status && all.msg && have;
        for (size_t k = 0; fine && k < lf.n; k++) {
            size_t i = mine[k];
            all.traces[i] = lf.traces[k];
            memset(&lf.traces[k], 0, sizeof lf.traces[k]);
            all.status[i] = lf.status[k];
            memcpy(all.msg[i], lf.msg[k], sizeof all.msg[i]);
            have[i] = true;
        }
        for (int p = 1; p < procs; p++) {
            tc_buf in;
            if (!recv_buf(&in, p)) { fine = false; continue; }
            if (fine && unpack_results(&in, &all, have)) {
                fprintf(stderr, "tracecost: process %d: out of memory or a damaged message\n", p);
                fine = false;
            }
            tc_buf_free(&in);
        }
        for (size_t i = 0; fine && i < n; i++) fine = have[i];
        if (fine) {
            rc = tc_job_load_collect(j, paths, &all, &(tc_load_options){lopt.jobs, false, lopt.err, from_folder});
            if (rc == TC_EXIT_OK || rc == TC_EXIT_DAMAGED) {
                if (tc_job_analyze(j, aopt)) {
                    fprintf(stderr, "tracecost: out of memory during analysis\n");
                    rc = TC_EXIT_NOTHING;
                } else *report = true;
            }
        } else {
            fprintf(stderr, "tracecost: out of memory while gathering the parsed traces\n");
            rc = TC_EXIT_NOTHING;
            for (size_t i = 0; all.traces && i < n; i++) tc_trace_free(&all.traces[i]);
            free(all.traces); free(all.status); free(all.msg);
        }
        for (size_t k = 0; k < lf.n; k++) tc_trace_free(&lf.traces[k]);
        free(lf.traces); free(lf.status); free(lf.msg);
        free(have);
    }
    for (size_t i = 0; i < n; i++) free(paths[i]);
    free(paths); free(from_folder); free(owner); free(mine); free(my_paths);
    tc_input_list_free(&inputs);
    return rc;
}
