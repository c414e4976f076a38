/* test_assemble.c: job assembly as a library step (parsers/inputs.h, parsers/assemble.h): a folder
 * of small traces made here gives back, as data and in order, every note the command prints (a
 * folder entry that is not a regular file, a path named twice, a JSON file that is no trace, a
 * damaged file, a CPU-only trace), two files of one rank become two profiler windows, two of one
 * rank at once are refused, and the library writes nothing to stderr. */
#include "testutil.h"
#include "parsers/assemble.h"
#include "parsers/inputs.h"
#include <fcntl.h>
#include <sys/stat.h>

#define BASE_NS "1700000000000000000" /* 2023 on the epoch clock */

static void write_text(const char *dir, const char *name, const char *text) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* A trace of one rank: two kernels at ts 10 and 200 µs after base_s seconds past BASE_NS. */
static void write_trace(const char *dir, const char *name, int rank, int base_s) {
    char text[1000];
    snprintf(text, sizeof text,
             "{\"distributedInfo\": {\"rank\": %d}, \"baseTimeNanoseconds\": %lld, \"traceEvents\": [\n"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"name\":\"k\",\"ts\":10,\"dur\":100},\n"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"name\":\"k2\",\"ts\":200,\"dur\":100}\n]}\n",
             rank, atoll(BASE_NS) + (long long)base_s * 1000000000LL);
    write_text(dir, name, text);
}

/* The job folder: what each file is for is in its name. */
static char *make_job(void) {
    char *dir = tu_tmpdir();
    write_text(dir, "a_not_a_trace.json", "{\"schemaVersion\": 1, \"traceEvents\": []}\n");
    char fifo[600];
    snprintf(fifo, sizeof fifo, "%s/b_fifo.json", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    char cut[1000];
    snprintf(cut, sizeof cut,
             "{\"distributedInfo\": {\"rank\": 1}, \"baseTimeNanoseconds\": %lld, \"traceEvents\": [\n"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"name\":\"k\",\"ts\":10,\"dur\":100},\n"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"name\":\"k2\",\"ts\":5,\"du",
             atoll(BASE_NS) + 10000000000LL);
    write_text(dir, "c_damaged.json", cut);
    write_text(dir, "d_cpu_only.json", "{\"traceEvents\": [\n"
               "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"name\":\"aten::mm\",\"ts\":10,\"dur\":100}\n]}\n");
    write_trace(dir, "rank0_w1.json", 0, 0);
    write_trace(dir, "rank0_w2.json", 0, 10);
    return dir;
}

static void rm_job(char *dir) {
    tu_sh(NULL, "rm -rf '%s'", dir);
    free(dir);
}

/* stderr into a temporary file while the library runs; stderr_back says what reached it. */
static int stderr_away(char *tmp) {
    fflush(stderr);
    int saved = dup(2);
    int fd = mkstemp(tmp);
    cr_assert(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    return saved;
}

static long stderr_back(int saved, char *tmp) {
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    struct stat st;
    cr_assert_eq(stat(tmp, &st), 0);
    unlink(tmp);
    return (long)st.st_size;
}

static void expect_note(const tc_notes *notes, size_t i, tc_note_code code, tc_note_kind kind, const char *path,
                        const char *text_has) {
    cr_assert_lt(i, notes->n, "note %zu missing", i);
    const tc_note *n = &notes->v[i];
    cr_expect_eq(n->code, code, "note %zu: code %d, not %d (%s)", i, (int)n->code, (int)code, n->text);
    cr_expect_eq(tc_note_kind_of(n->code), kind, "note %zu: kind", i);
    if (path) cr_expect(n->path && strstr(n->path, path), "note %zu: path %s, not %s", i, n->path ? n->path : "(none)", path);
    else cr_expect_null(n->path, "note %zu: path %s", i, n->path);
    cr_expect(strstr(n->text, text_has), "note %zu: '%s' lacks '%s'", i, n->text, text_has);
}

typedef struct { size_t calls, finished; } progress_seen;

static void on_progress(void *ctx, const tc_parse_progress *p) {
    progress_seen *s = ctx;
    s->calls++;
    s->finished += p->finished;
    cr_expect_eq(p->files, 5);
}

Test(assemble, notes_come_back_as_data_in_order) {
    char *dir = make_job();
    char again[700];
    snprintf(again, sizeof again, "%s/rank0_w1.json", dir);
    char *ops[2] = {dir, again};
    char tmp[] = "/tmp/tc-assemble-stderr-XXXXXX";
    int saved = stderr_away(tmp);
    tc_input_list in;
    tc_error e;
    tc_status st = tc_inputs_expand(ops, 2, false, &in, &e);
    tc_job j;
    tc_job_init(&j);
    tc_notes notes = {0};
    progress_seen seen = {0, 0};
    tc_assemble_options opt = {.jobs = 2, .progress = on_progress, .progress_ctx = &seen};
    tc_assembly_status as = st == TC_OK ? tc_job_assemble(&j, in.paths, in.from_folder, in.n, &opt, &notes)
                                        : TC_ASSEMBLY_NOTHING;
    long printed = stderr_back(saved, tmp);
    cr_assert_eq(st, TC_OK, "%s", e.msg);
    cr_expect_eq(printed, 0, "the library wrote %ld bytes to stderr", printed);

    /* expansion: the FIFO left out (not read: it would block), the path named twice read once */
    cr_expect_eq(in.n, 5, "a, c, d, rank0_w1, rank0_w2");
    cr_expect_eq(in.n_unusable, 1);
    cr_expect_eq(in.notes.n, 2);
    expect_note(&in.notes, 0, TC_NOTE_NOT_REGULAR, TC_NOTE_KIND_WARNING, "b_fifo.json", "a FIFO, not a trace file: skipped");
    expect_note(&in.notes, 1, TC_NOTE_NAMED_TWICE, TC_NOTE_KIND_NOTE, "rank0_w1.json", "is named twice: read once");

    /* assembly: each input's problem in input order; the rest one job of two windows */
    cr_expect_eq(as, TC_ASSEMBLY_DAMAGED);
    cr_expect_eq(notes.n, 3);
    cr_expect(!notes.lost);
    expect_note(&notes, 0, TC_NOTE_NOT_A_TRACE, TC_NOTE_KIND_NOTE, "a_not_a_trace.json", "not a trace (no trace events), skipped");
    expect_note(&notes, 1, TC_NOTE_DAMAGED, TC_NOTE_KIND_WARNING, "c_damaged.json", "(analyzing what was read)");
    expect_note(&notes, 2, TC_NOTE_NO_GPU, TC_NOTE_KIND_PROBLEM, "d_cpu_only.json", "a CPU-only trace?");
    cr_expect_eq(j.n_windows, 2, "rank 0 twice, 10 s apart: two profiler windows");
    cr_expect_eq(j.window, 2, "the most recent by default");
    cr_expect_eq(j.n_traces, 2, "the damaged rank 1 and rank0_w2");
    cr_expect_eq(j.windows[0].files, 1);
    cr_expect_eq(j.windows[1].files, 2);
    cr_expect_eq(seen.finished, 1, "one last progress call");
    cr_expect_geq(seen.calls, 1);
    tc_notes_free(&notes);
    tc_job_free(&j);
    tc_input_list_free(&in);
    rm_job(dir);
}

/* Every window at once; window K of the two; a window that is not there. */
Test(assemble, windows_and_refusals) {
    char *dir = make_job();
    char *ops[1] = {dir};
    tc_input_list in;
    tc_error e;
    cr_assert_eq(tc_inputs_expand(ops, 1, false, &in, &e), TC_OK, "%s", e.msg);
    tc_job *jobs = NULL;
    size_t n_jobs = 0;
    tc_notes notes = {0};
    tc_assemble_options opt = {.jobs = 1};
    cr_expect_eq(tc_job_assemble_all(&jobs, &n_jobs, in.paths, in.from_folder, in.n, &opt, &notes), TC_ASSEMBLY_DAMAGED);
    cr_expect_eq(n_jobs, 2);
    cr_expect_eq(notes.n, 3);
    for (size_t k = 0; k < n_jobs; k++) tc_job_free(&jobs[k]);
    free(jobs);
    tc_notes_free(&notes);

    opt.window = 3;
    tc_job j;
    tc_job_init(&j);
    cr_expect_eq(tc_job_assemble(&j, in.paths, in.from_folder, in.n, &opt, &notes), TC_ASSEMBLY_REFUSED);
    cr_assert_eq(notes.n, 4);
    expect_note(&notes, 3, TC_NOTE_NO_SUCH_WINDOW, TC_NOTE_KIND_PROBLEM, NULL, "the inputs hold 2 profiler windows");
    tc_notes_free(&notes);
    tc_job_free(&j);
    tc_input_list_free(&in);

    /* rank 0 twice at the same time: refused, naming both files */
    write_trace(dir, "rank0_w2_copy.json", 0, 10);
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/rank0_w2.json", dir);
    snprintf(b, sizeof b, "%s/rank0_w2_copy.json", dir);
    char *paths[2] = {a, b};
    tc_job_init(&j);
    opt.window = 0;
    cr_expect_eq(tc_job_assemble(&j, paths, NULL, 2, &opt, &notes), TC_ASSEMBLY_REFUSED);
    cr_assert_eq(notes.n, 1);
    expect_note(&notes, 0, TC_NOTE_RANK_TWICE, TC_NOTE_KIND_PROBLEM, NULL, "are both rank 0 at the same time");
    cr_expect(strstr(notes.v[0].text, "rank0_w2_copy.json"));
    tc_notes_free(&notes);
    tc_job_free(&j);
    rm_job(dir);
}
