/* nccl_report.c: NCCL Inspector and profiler plugin figures in the JSON and text reports
 * (nccl_report.h). */
#include "nccl_report.h"
#include "termtext.h"
#include <inttypes.h>

static void counts(jw *w, const tc_nccl_counts *c) {
    jw_key(w, "inspector_joined"); jw_int(w, c->joined);
    jw_key(w, "unjoined");
    jw_object_begin(w);
    jw_key(w, "below_min_size"); jw_int(w, c->below_min_size);
    jw_key(w, "dropped"); jw_int(w, c->dropped);
    jw_key(w, "cpu_timed"); jw_int(w, c->cpu_timed);
    jw_key(w, "size_mismatch"); jw_int(w, c->size_mismatch);
    jw_object_end(w);
}

static void comm_id(jw *w, const tc_nccl_group *g) {
    char hex[24];
    snprintf(hex, sizeof hex, "0x%" PRIx64, g->comm_id);
    jw_key(w, "communicator_id"); jw_string(w, g->has_comm || g->has_plugin ? hex : NULL);
}

/* The files of the log that are plugin traces (plugin) or Inspector logs, and their records. */
static size_t files_of(const tc_nccl_log *l, bool plugin, size_t *records) {
    size_t n = 0;
    *records = 0;
    for (size_t i = 0; i < l->n_files; i++)
        if (l->files[i].plugin == plugin) { n++; *records += l->files[i].records; }
    return n;
}

/* The plugin's figures of a group: joined, unjoined, the algorithm/protocol/channels mix. */
static void plugin_group(jw *w, const tc_nccl_log *l, const tc_nccl_group *g) {
    jw_key(w, "plugin_joined"); jw_int(w, g->plugin_joined);
    jw_key(w, "plugin_unjoined");
    jw_object_begin(w);
    jw_key(w, "dropped"); jw_int(w, g->plugin_dropped);
    jw_key(w, "size_mismatch"); jw_int(w, g->plugin_size_mismatch);
    jw_object_end(w);
    tc_nccl_json_mix(w, l, g->mix_records);
}

void tc_nccl_json_mix(jw *w, const tc_nccl_log *l, const int64_t *mix_records) {
    jw_key(w, "mix");
    jw_array_begin(w);
    for (size_t m = 0; m < l->n_mixes; m++) {
        if (!mix_records[m]) continue;
        jw_object_begin(w);
        jw_key(w, "algorithm"); jw_string(w, l->mixes[m].algorithm[0] ? l->mixes[m].algorithm : NULL);
        jw_key(w, "protocol"); jw_string(w, l->mixes[m].protocol[0] ? l->mixes[m].protocol : NULL);
        jw_key(w, "channels"); if (l->mixes[m].channels >= 0) jw_int(w, l->mixes[m].channels); else jw_null(w);
        jw_key(w, "records"); jw_int(w, mix_records[m]);
        jw_object_end(w);
    }
    jw_array_end(w);
}

void tc_nccl_json_group(jw *w, const tc_job *j, size_t pg) {
    if (!j->nccl.present) return;
    jw_key(w, "nccl");
    const tc_nccl_group *g = j->nccl.groups ? &j->nccl.groups[pg] : NULL;
    if (!g || !g->has) { jw_null(w); return; }
    jw_object_begin(w);
    comm_id(w, g);
    counts(w, &g->c);
    jw_key(w, "busbw_GBps"); if (g->has_busbw) jw_double(w, g->busbw_GBps); else jw_null(w);
    jw_key(w, "trace_busbw_GBps");
    if (j->groups[pg].f.has_busbw) jw_double(w, j->groups[pg].f.busbw_GBps); else jw_null(w);
    size_t recs;
    if (files_of(&j->nccl.log, true, &recs)) plugin_group(w, &j->nccl.log, g);
    jw_object_end(w);
}

void tc_nccl_json_summary(jw *w, const tc_job *j) {
    const tc_nccl_result *r = &j->nccl;
    if (!r->present) return;
    jw_key(w, "nccl");
    jw_object_begin(w);
    size_t ins_records, plug_records, plug_files = files_of(&r->log, true, &plug_records);
    jw_key(w, "inspector_files"); jw_uint(w, files_of(&r->log, false, &ins_records));
    jw_key(w, "inspector_records"); jw_uint(w, ins_records);
    if (plug_files) {
        jw_key(w, "plugin_files"); jw_uint(w, plug_files);
        jw_key(w, "plugin_records"); jw_uint(w, plug_records);
        jw_key(w, "plugin_records_unplaced"); jw_int(w, r->plugin_unplaced);
        jw_key(w, "plugin_records_outside_trace"); jw_int(w, r->plugin_outside);
    }
    size_t skipped = 0;
    for (size_t i = 0; i < r->log.n_files; i++) skipped += r->log.files[i].skipped;
    jw_key(w, "inspector_skipped"); jw_uint(w, skipped); /* the objects of every NCCL file not read */
    const char *version = NULL; /* the first Inspector log's */
    for (size_t i = 0; i < r->log.n_files && !version; i++)
        if (!r->log.files[i].plugin && r->log.files[i].version[0]) version = r->log.files[i].version;
    jw_key(w, "inspector_format_version"); jw_string(w, version);
    jw_key(w, "min_size_bytes"); jw_int(w, r->min_size);
    counts(w, &r->c);
    jw_key(w, "records_unplaced"); jw_int(w, r->records_unplaced);
    jw_key(w, "records_outside_trace"); jw_int(w, r->outside_trace);
    jw_key(w, "notes");
    jw_array_begin(w);
    for (size_t i = 0; i < r->n_notes; i++) jw_string(w, r->notes[i]);
    jw_array_end(w);
    jw_object_end(w);
}

/* "NCCL pg 1 (TP): plugin: 120 COLL records joined (4 dropped, 0 of another size); Ring/LL 2 channels
 * 80, Tree/Simple 8 channels 40" */
static void plugin_line(FILE *out, const tc_nccl_log *l, const tc_process_group *pg, const tc_nccl_group *g, int width) {
    char line[1024];
    int n = snprintf(line, sizeof line, "NCCL pg %.60s%s%.60s%s: plugin: %" PRId64 " COLL records joined (%" PRId64
                     " dropped, %" PRId64 " of another size)", pg->name, pg->desc ? " (" : "", pg->desc ? pg->desc : "",
                     pg->desc ? ")" : "", g->plugin_joined, g->plugin_dropped, g->plugin_size_mismatch);
    tc_nccl_mix_text(line, sizeof line, n, "; ", l, g->mix_records);
    tc_term_wrap(out, line, 2, 4, width);
}

int tc_nccl_mix_text(char *line, size_t cap, int n, const char *sep, const tc_nccl_log *l, const int64_t *mix_records) {
    for (size_t m = 0; m < l->n_mixes && n >= 0 && (size_t)n < cap; m++) {
        if (!mix_records[m]) continue;
        const tc_nccl_mix *x = &l->mixes[m];
        char ch[24] = "? channels";
        if (x->channels >= 0) snprintf(ch, sizeof ch, "%d channel%s", (int)x->channels, x->channels == 1 ? "" : "s");
        n += snprintf(line + n, cap - (size_t)n, "%s%.15s/%.15s %s %" PRId64, sep, x->algorithm[0] ? x->algorithm : "?",
                      x->protocol[0] ? x->protocol : "?", ch, mix_records[m]);
        sep = ", ";
    }
    return n;
}

void tc_nccl_text_lines(FILE *out, const tc_job *j, int width) {
    const tc_nccl_result *r = &j->nccl;
    if (!r->present) return;
    char line[512];
    for (size_t i = 0; r->groups && i < j->n_groups; i++) {
        const tc_nccl_group *g = &r->groups[i];
        const tc_process_group *pg = &j->groups[i];
        if (!g->has) continue;
        if (g->has_plugin) plugin_line(out, &r->log, pg, g, width);
        size_t recs;
        if (!files_of(&r->log, false, &recs)) continue;
        char nb[32] = "-", tb[32] = "-";
        if (g->has_busbw) snprintf(nb, sizeof nb, "%.1f GB/s", g->busbw_GBps);
        if (pg->f.has_busbw) snprintf(tb, sizeof tb, "%.1f GB/s", pg->f.busbw_GBps);
        snprintf(line, sizeof line, "NCCL pg %.60s%s%.60s%s: %" PRId64 " Inspector records joined; unjoined: %" PRId64
                 " below the size floor, %" PRId64 " dropped, %" PRId64 " CPU-timed; NCCL busbw %s (trace %s)",
                 pg->name, pg->desc ? " (" : "", pg->desc ? pg->desc : "", pg->desc ? ")" : "", g->c.joined,
                 g->c.below_min_size, g->c.dropped, g->c.cpu_timed, nb, tb);
        tc_term_wrap(out, line, 2, 4, width);
    }
    for (size_t i = 0; i < r->n_notes; i++) tc_term_wrap(out, r->notes[i], 2, 4, width);
}
