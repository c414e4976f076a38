/* load_job.c: a command's job loaded and what assembly said printed (see load_job.h). */
#include "load_job.h"
#include "diag.h"
#include "exitcodes.h"
#include <string.h>

void tc_cli_inputs_expand(tc_cli_inputs *in, char *const *operands, size_t n, bool recursive) {
    tc_inputs_expand(operands, n, recursive, &in->list, &in->error);
}

void tc_cli_inputs_free(tc_cli_inputs *in) { tc_input_list_free(&in->list); }

int tc_cli_inputs_report(const tc_cli_inputs *in, FILE *f, const char *who) {
    if (in->error.code != TC_OK) {
        tc_diag(f, "%s: %s\n", who, in->error.msg);
        return TC_EXIT_NOTHING;
    }
    tc_print_notes(f, &in->list.notes);
    return in->list.n_unusable ? TC_EXIT_DAMAGED : TC_EXIT_OK;
}

void tc_print_notes(FILE *f, const tc_notes *notes) {
    static const char *const word[] = {[TC_NOTE_KIND_NOTE] = "note: ", [TC_NOTE_KIND_WARNING] = "warning: ",
                                       [TC_NOTE_KIND_PROBLEM] = ""};
    for (size_t i = 0; i < notes->n; i++)
        tc_diag(f, "tracecost: %s%s\n", word[tc_note_kind_of(notes->v[i].code)], notes->v[i].text);
    if (notes->lost) fprintf(f, "tracecost: out of memory\n");
}

int tc_assembly_exit(tc_assembly_status s) {
    switch (s) {
    case TC_ASSEMBLY_OK: return TC_EXIT_OK;
    case TC_ASSEMBLY_DAMAGED: return TC_EXIT_DAMAGED;
    case TC_ASSEMBLY_REFUSED: return TC_EXIT_USAGE;
    default: return TC_EXIT_NOTHING;
    }
}

static void draw_progress(void *ctx, const tc_parse_progress *p) {
    tc_progress_line *l = ctx;
    if (p->finished) {
        if (l->printed) fprintf(l->err, "\r%*s\r", l->line_len, "");
        return;
    }
    if (p->elapsed_s < 1.0 || p->elapsed_s - l->last_print < 0.25) return;
    double mb = (double)p->read_bytes / 1e6;
    int len = fprintf(l->err, "\rtracecost: read %.1f", mb);
    if (p->total_bytes) len += fprintf(l->err, " of %.1f", (double)p->total_bytes / 1e6);
    len += fprintf(l->err, " MB (%.1f MB/s), %zu of %zu files done   ", mb / p->elapsed_s, p->files_done, p->files);
    if (len > l->line_len) l->line_len = len;
    fflush(l->err);
    l->last_print = p->elapsed_s;
    l->printed = true;
}

tc_assemble_options tc_load_assemble_options(const tc_load_options *opt, tc_progress_line *line) {
    memset(line, 0, sizeof *line);
    line->err = opt->err ? opt->err : stderr;
    tc_assemble_options a = {.jobs = opt->jobs, .comm = opt->comm, .window = opt->window};
    if (opt->progress) { a.progress = draw_progress; a.progress_ctx = line; }
    return a;
}

int tc_job_load(tc_job *j, const tc_input_list *in, const tc_load_options *opt) {
    tc_progress_line line;
    tc_assemble_options a = tc_load_assemble_options(opt, &line);
    tc_notes notes;
    memset(&notes, 0, sizeof notes);
    tc_assembly_status st = tc_job_assemble(j, in->paths, in->from_folder, in->n, &a, &notes);
    tc_print_notes(line.err, &notes);
    tc_notes_free(&notes);
    return tc_assembly_exit(st);
}

int tc_job_load_all(tc_job **jobs, size_t *n_jobs, const tc_input_list *in, const tc_load_options *opt) {
    tc_progress_line line;
    tc_assemble_options a = tc_load_assemble_options(opt, &line);
    tc_notes notes;
    memset(&notes, 0, sizeof notes);
    tc_assembly_status st = tc_job_assemble_all(jobs, n_jobs, in->paths, in->from_folder, in->n, &a, &notes);
    tc_print_notes(line.err, &notes);
    tc_notes_free(&notes);
    return tc_assembly_exit(st);
}
