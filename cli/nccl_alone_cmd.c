/* nccl_alone_cmd.c: NCCL logs without a trace, end to end (nccl_alone_cmd.h). */
#include "nccl_alone_cmd.h"
#include "commands.h"
#include "exitcodes.h"
#include "load_job.h"
#include "output.h"
#include "analyzer/nccl_alone.h"
#include "parsers/nccl_inspector.h"
#include "reports/nccl_alone_report.h"
#include <string.h>

int tc_nccl_alone_run(const tc_nccl_alone_args *a) {
    tc_nccl_log log;
    memset(&log, 0, sizeof log);
    tc_notes notes;
    memset(&notes, 0, sizeof notes);
    tc_status st = tc_nccl_read_paths(a->nccl, a->n_nccl, true, &log, &notes);
    tc_status st2 = st == TC_ERR_NOMEM ? st : tc_nccl_read_paths(a->logs, a->n_logs, false, &log, &notes);
    bool damaged = st != TC_OK || st2 != TC_OK;
    for (size_t i = 0; i < notes.n; i++) damaged |= notes.v[i].code == TC_NOTE_DAMAGED;
    tc_print_notes(stderr, &notes);
    tc_notes_free(&notes);
    int rc = damaged ? TC_EXIT_DAMAGED : TC_EXIT_OK;
    tc_nccl_alone res;
    memset(&res, 0, sizeof res);
    if (st == TC_ERR_NOMEM || st2 == TC_ERR_NOMEM || tc_nccl_alone_analyze(&log, a->aopt, &res)) {
        fprintf(stderr, "tracecost: out of memory\n");
        tc_nccl_log_free(&log);
        return TC_EXIT_NOTHING;
    }
    if (res.records == 0) {
        fprintf(stderr, "tracecost analyze: no trace and no NCCL Inspector record to analyze (%zu NCCL file%s read)\n",
                log.n_files, log.n_files == 1 ? "" : "s");
        rc = TC_EXIT_NOTHING;
    } else {
        if (a->json_path) {
            tc_output o;
            int w = tc_output_open(&o, "analyze", a->json_path)
                        ? TC_EXIT_OUTPUT
                        : tc_output_close(&o, "analyze", tc_nccl_alone_json_write(o.f, &log, &res), !a->quiet);
            if (w != TC_EXIT_OK) rc = w;
        }
        if (!a->quiet && !(a->json_path && !strcmp(a->json_path, "-"))) {
            tc_term_opts o = tc_term_for(stdout);
            tc_nccl_alone_text_write(stdout, &log, &res, &o);
        }
    }
    tc_nccl_alone_free(&res);
    tc_nccl_log_free(&log);
    return rc;
}
