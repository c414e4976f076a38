/* nccl_report.c: NCCL Inspector and profiler plugin figures in the JSON and text reports
 * (nccl_report.h). */
#include "nccl_report.h"
#include "findings_text.h"
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

enum { INSPECTOR_FILES, PLUGIN_FILES, PROM_FILES };

/* The files of the log of one kind (Inspector logs, plugin traces, Prometheus files) and their
 * records (Prometheus: rows). */
static size_t files_of(const tc_nccl_log *l, int kind, size_t *records) {
    size_t n = 0;
    *records = 0;
    for (size_t i = 0; i < l->n_files; i++)
        if ((l->files[i].prom ? PROM_FILES : l->files[i].plugin ? PLUGIN_FILES : INSPECTOR_FILES) == kind) {
            n++;
            *records += l->files[i].records;
        }
    return n;
}

/* The group's Prometheus buckets: {collective, message_size_min_bytes, message_size_max_bytes,
 * algorithm, protocol, ranks, busbw_GBps, exec_time_us}. */
static void prom_group(jw *w, const tc_nccl_result *r, size_t pg) {
    jw_key(w, "prometheus");
    jw_array_begin(w);
    for (size_t k = 0; k < r->n_prom_mix; k++) {
        const tc_nccl_prom_mix *m = &r->prom_mix[k];
        if (m->pg != pg) continue;
        jw_object_begin(w);
        jw_key(w, "collective"); jw_string(w, tc_nccl_coll_name((tc_nccl_coll)m->coll));
        jw_key(w, "message_size_min_bytes"); jw_int(w, m->size_lo);
        jw_key(w, "message_size_max_bytes"); jw_int(w, m->size_hi);
        jw_key(w, "algorithm"); jw_string(w, m->algorithm[0] ? m->algorithm : NULL);
        jw_key(w, "protocol"); jw_string(w, m->protocol[0] ? m->protocol : NULL);
        jw_key(w, "ranks"); jw_int(w, m->ranks);
        jw_key(w, "busbw_GBps"); if (m->has_busbw) jw_double(w, m->busbw_GBps); else jw_null(w);
        jw_key(w, "exec_time_us"); if (m->has_exec) jw_double(w, m->exec_us); else jw_null(w);
        jw_object_end(w);
    }
    jw_array_end(w);
}

/* key: rows {algorithm, protocol, channels, records} of the mixes with records. */
static void mix_rows(jw *w, const char *key, const tc_nccl_log *l, const int64_t *records) {
    jw_key(w, key);
    jw_array_begin(w);
    for (size_t m = 0; m < l->n_mixes; m++) {
        if (!records[m]) continue;
        jw_object_begin(w);
        jw_key(w, "algorithm"); jw_string(w, l->mixes[m].algorithm[0] ? l->mixes[m].algorithm : NULL);
        jw_key(w, "protocol"); jw_string(w, l->mixes[m].protocol[0] ? l->mixes[m].protocol : NULL);
        jw_key(w, "channels"); if (l->mixes[m].channels >= 0) jw_int(w, l->mixes[m].channels); else jw_null(w);
        jw_key(w, "records"); jw_int(w, records[m]);
        jw_object_end(w);
    }
    jw_array_end(w);
}

/* Whether an Inspector record names its algorithm and protocol (format v4.2+). */
static bool inspector_mixes(const tc_nccl_log *l) {
    for (size_t i = 0; i < l->n_records; i++)
        if (!l->records[i].plugin && l->records[i].mix != TC_NCCL_NO_MIX) return true;
    return false;
}

/* The plugin's figures of a group: joined, unjoined, the algorithm/protocol/channels mix. */
static void plugin_group(jw *w, const tc_nccl_log *l, const tc_nccl_group *g) {
    jw_key(w, "plugin_joined"); jw_int(w, g->plugin_joined);
    jw_key(w, "plugin_unjoined");
    jw_object_begin(w);
    jw_key(w, "dropped"); jw_int(w, g->plugin_dropped);
    jw_key(w, "size_mismatch"); jw_int(w, g->plugin_size_mismatch);
    jw_object_end(w);
    mix_rows(w, "mix", l, g->mix_records);
    jw_key(w, "proxy");
    if (!g->has_proxy) { jw_null(w); return; }
    jw_object_begin(w);
    jw_key(w, "steps"); jw_int(w, g->proxy_steps);
    jw_key(w, "time_ns"); jw_double(w, g->proxy_ns);
    jw_key(w, "gpu_wait_share"); jw_double(w, g->proxy_gpu_wait_share);
    jw_key(w, "peer_wait_share"); jw_double(w, g->proxy_peer_wait_share);
    jw_key(w, "net_share"); jw_double(w, g->proxy_net_share);
    jw_key(w, "other_share"); jw_double(w, g->proxy_other_share);
    jw_object_end(w);
}

void tc_nccl_json_mix(jw *w, const tc_nccl_log *l, const int64_t *mix_records) { mix_rows(w, "mix", l, mix_records); }

void tc_nccl_json_mix_key(jw *w, const char *key, const tc_nccl_log *l, const int64_t *mix_records) {
    mix_rows(w, key, l, mix_records);
}

/* Key p2p (only where the group has P2P kernels on ranks with Inspector logs, or p2p_perf records):
 * the point-to-point join's counts and the two P2P busbw figures. */
static void p2p_group(jw *w, const tc_nccl_group *g) {
    if (!g->has_p2p) return;
    jw_key(w, "p2p");
    jw_object_begin(w);
    counts(w, &g->p2p);
    jw_key(w, "peer_mismatch"); jw_int(w, g->p2p_peer_mismatch);
    jw_key(w, "bytes"); jw_double(w, g->p2p_bytes);
    jw_key(w, "exec_time_us"); jw_double(w, g->p2p_exec_us);
    jw_key(w, "busbw_GBps"); if (g->has_p2p_busbw) jw_double(w, g->p2p_busbw_GBps); else jw_null(w);
    jw_key(w, "trace_busbw_GBps"); if (g->has_trace_p2p_busbw) jw_double(w, g->trace_p2p_busbw_GBps); else jw_null(w);
    jw_object_end(w);
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
    if (inspector_mixes(&j->nccl.log)) mix_rows(w, "inspector_mix", &j->nccl.log, g->inspector_mix_records);
    size_t recs;
    if (files_of(&j->nccl.log, PLUGIN_FILES, &recs)) plugin_group(w, &j->nccl.log, g);
    if (files_of(&j->nccl.log, PROM_FILES, &recs)) prom_group(w, &j->nccl, pg);
    p2p_group(w, g);
    jw_object_end(w);
}

void tc_nccl_json_evidence(jw *w, const char *evidence_key, const char *settings_key, const tc_nccl_evidence *e) {
    jw_key(w, evidence_key);
    jw_array_begin(w);
    for (int k = 0; k < TC_NCCL_EV_KINDS; k++) if (e->evidence & (1u << k)) jw_string(w, tc_nccl_evidence_code(1u << k));
    jw_array_end(w);
    jw_key(w, settings_key);
    jw_array_begin(w);
    for (size_t i = 0; i < e->n_tries; i++) {
        jw_object_begin(w);
        jw_key(w, "name"); jw_string(w, tc_nccl_setting_name(e->tries[i].setting));
        jw_key(w, "value"); jw_string(w, e->tries[i].value);
        jw_key(w, "because"); jw_string(w, tc_nccl_evidence_code(e->tries[i].because));
        jw_object_end(w);
    }
    jw_array_end(w);
}

/* Key fabric: the verdict's fabric reason as NCCL's evidence tells it (tc_nccl_evidence), null when
 * the verdict has no fabric reason or its row has no NCCL record joined. */
static void fabric_evidence(jw *w, const tc_job *j) {
    const tc_reason *fr = NULL;
    for (size_t i = 0; i < j->findings.n_reasons; i++)
        if (j->findings.reasons[i].code == TC_REASON_FABRIC) fr = &j->findings.reasons[i];
    jw_key(w, "fabric");
    if (!fr || !fr->nccl.has || fr->row >= j->n_group_rows) { jw_null(w); return; }
    const tc_nccl_evidence *e = &fr->nccl;
    const tc_group_row *row = &j->group_rows[fr->row];
    jw_object_begin(w);
    jw_key(w, "process_groups");
    jw_array_begin(w);
    for (size_t g = 0; g < j->n_groups; g++) if (j->groups[g].row == fr->row) jw_string(w, j->groups[g].name);
    jw_array_end(w);
    jw_key(w, "share_of_rated"); if (row->f.has_share) jw_double(w, row->f.share_of_rated); else jw_null(w);
    jw_key(w, "saturated"); jw_bool(w, e->saturated);
    jw_key(w, "algorithm"); jw_string(w, e->has_mix && e->algorithm[0] ? e->algorithm : NULL);
    jw_key(w, "protocol"); jw_string(w, e->has_mix && e->protocol[0] ? e->protocol : NULL);
    jw_key(w, "channels"); if (e->has_mix && e->channels >= 0) jw_int(w, e->channels); else jw_null(w);
    jw_key(w, "mix_share"); if (e->has_mix && e->plugin_records) jw_double(w, (double)e->mix_records / (double)e->plugin_records); else jw_null(w);
    jw_key(w, "message_bytes"); if (e->message_bytes >= 0) jw_int(w, e->message_bytes); else jw_null(w);
    jw_key(w, "collective"); jw_string(w, e->message_bytes >= 0 ? tc_nccl_coll_name((tc_nccl_coll)e->coll) : NULL);
    jw_key(w, "nodes"); if (e->nodes > 0) jw_int(w, e->nodes); else jw_null(w);
    jw_key(w, "busbw_GBps"); if (e->has_busbw) jw_double(w, e->busbw_GBps); else jw_null(w);
    jw_key(w, "trace_busbw_GBps"); if (e->has_trace_busbw) jw_double(w, e->trace_busbw_GBps); else jw_null(w);
    tc_nccl_json_evidence(w, "evidence", "settings", e);
    jw_key(w, "no_setting_helps"); jw_bool(w, e->saturated);
    jw_object_end(w);
}

void tc_nccl_json_summary(jw *w, const tc_job *j) {
    const tc_nccl_result *r = &j->nccl;
    if (!r->present) return;
    jw_key(w, "nccl");
    jw_object_begin(w);
    size_t ins_records, plug_records, plug_files = files_of(&r->log, PLUGIN_FILES, &plug_records), prom_rows;
    size_t prom_files = files_of(&r->log, PROM_FILES, &prom_rows);
    jw_key(w, "inspector_files"); jw_uint(w, files_of(&r->log, INSPECTOR_FILES, &ins_records));
    jw_key(w, "inspector_records"); jw_uint(w, ins_records);
    if (plug_files) {
        jw_key(w, "plugin_files"); jw_uint(w, plug_files);
        jw_key(w, "plugin_records"); jw_uint(w, plug_records);
        jw_key(w, "plugin_records_unplaced"); jw_int(w, r->plugin_unplaced);
        jw_key(w, "plugin_records_outside_trace"); jw_int(w, r->plugin_outside);
        jw_key(w, "plugin_proxy_steps_unjoined"); jw_int(w, r->log.proxy_steps_p2p);
    }
    if (prom_files) {
        size_t other = 0;
        for (size_t i = 0; i < r->log.n_files; i++) other += r->log.files[i].prom_other;
        jw_key(w, "prometheus_files"); jw_uint(w, prom_files);
        jw_key(w, "prometheus_rows"); jw_uint(w, prom_rows);
        jw_key(w, "prometheus_rows_joined"); jw_int(w, r->prom_joined);
        jw_key(w, "prometheus_rows_unplaced"); jw_int(w, r->prom_unplaced);
        jw_key(w, "prometheus_other_lines"); jw_uint(w, other);
    }
    size_t skipped = 0;
    for (size_t i = 0; i < r->log.n_files; i++) skipped += r->log.files[i].skipped;
    jw_key(w, "inspector_skipped"); jw_uint(w, skipped); /* the objects of every NCCL file not read */
    size_t stats = 0;
    int64_t ring_dropped = 0;
    for (size_t i = 0; i < r->log.n_files; i++) { stats += r->log.files[i].dump_stats; ring_dropped += r->log.files[i].ring_dropped; }
    if (stats) {
        jw_key(w, "inspector_dump_stats"); jw_uint(w, stats);
        jw_key(w, "inspector_ring_dropped"); jw_int(w, ring_dropped);
    }
    const char *version = NULL; /* the first Inspector log's */
    for (size_t i = 0; i < r->log.n_files && !version; i++)
        if (!r->log.files[i].plugin && !r->log.files[i].prom && r->log.files[i].version[0]) version = r->log.files[i].version;
    jw_key(w, "inspector_format_version"); jw_string(w, version);
    jw_key(w, "min_size_bytes"); jw_int(w, r->min_size);
    counts(w, &r->c);
    jw_key(w, "records_unplaced"); jw_int(w, r->records_unplaced);
    jw_key(w, "records_outside_trace"); jw_int(w, r->outside_trace);
    if (r->log.n_p2ps) {
        jw_key(w, "p2p_records"); jw_uint(w, r->log.n_p2ps);
        jw_key(w, "p2p_records_unplaced"); jw_int(w, r->p2p_unplaced);
        jw_key(w, "p2p_records_outside_trace"); jw_int(w, r->p2p_outside);
    }
    jw_key(w, "notes");
    jw_array_begin(w);
    for (size_t i = 0; i < r->n_notes; i++) jw_string(w, r->notes[i]);
    jw_array_end(w);
    fabric_evidence(w, j);
    jw_object_end(w);
}

/* One wrapped line per group with NCCL records: "NCCL pg 1 (TP): Inspector 165 joined (0 below the
 * size floor, 19 dropped, 8 CPU-timed), busbw 360.8 GB/s (trace 360.0 GB/s); plugin 169 joined (23
 * dropped, 0 of another size): Ring/Simple 16 channels 145, Ring/Simple 8 channels 24; P2P 60
 * joined (0 below the size floor, 5 dropped, 2 CPU-timed), busbw 41.9 GB/s (trace 40.0 GB/s)" (each
 * part when its files were read; the P2P part where the group has P2P kernels or records). */
static void group_line(FILE *out, const tc_nccl_result *r, const tc_process_group *pg, const tc_nccl_group *g,
                       bool inspector, int width) {
    char line[1024];
    int n = snprintf(line, sizeof line, "NCCL pg %.60s%s%.60s%s:", pg->name, pg->desc ? " (" : "", pg->desc ? pg->desc : "",
                     pg->desc ? ")" : "");
    const tc_nccl_counts *c = &g->c; /* a group of point-to-point records alone: no collective part */
    bool colls = g->has_comm || !g->has_p2p || c->joined || c->below_min_size || c->dropped || c->cpu_timed || c->size_mismatch;
    if (inspector && colls && n > 0 && (size_t)n < sizeof line) {
        char nb[32] = "-", tb[32] = "-";
        if (g->has_busbw) snprintf(nb, sizeof nb, "%.1f GB/s", g->busbw_GBps);
        if (pg->f.has_busbw) snprintf(tb, sizeof tb, "%.1f GB/s", pg->f.busbw_GBps);
        n += snprintf(line + n, sizeof line - (size_t)n, " Inspector %" PRId64 " joined (%" PRId64 " below the size floor, %" PRId64
                      " dropped, %" PRId64 " CPU-timed), busbw %s (trace %s)%s", g->c.joined, g->c.below_min_size, g->c.dropped,
                      g->c.cpu_timed, nb, tb, g->has_plugin ? ";" : "");
    }
    if (g->has_plugin && n > 0 && (size_t)n < sizeof line) {
        n += snprintf(line + n, sizeof line - (size_t)n, " plugin %" PRId64 " joined (%" PRId64 " dropped, %" PRId64
                      " of another size)", g->plugin_joined, g->plugin_dropped, g->plugin_size_mismatch);
        n = tc_nccl_mix_text(line, sizeof line, n, ": ", &r->log, g->mix_records);
    }
    if (g->has_p2p && n > 0 && (size_t)n < sizeof line) {
        char nb[32] = "-", tb[32] = "-";
        if (g->has_p2p_busbw) snprintf(nb, sizeof nb, "%.1f GB/s", g->p2p_busbw_GBps);
        if (g->has_trace_p2p_busbw) snprintf(tb, sizeof tb, "%.1f GB/s", g->trace_p2p_busbw_GBps);
        n += snprintf(line + n, sizeof line - (size_t)n, "%s P2P %" PRId64 " joined (%" PRId64 " below the size floor, %" PRId64
                      " dropped, %" PRId64 " CPU-timed), busbw %s (trace %s)", (inspector && colls) || g->has_plugin ? ";" : "",
                      g->p2p.joined, g->p2p.below_min_size, g->p2p.dropped, g->p2p.cpu_timed, nb, tb);
    }
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
    size_t recs;
    bool inspector = files_of(&r->log, INSPECTOR_FILES, &recs) > 0;
    for (size_t i = 0; r->groups && i < j->n_groups; i++) {
        const tc_nccl_group *g = &r->groups[i];
        if (g->has && (inspector || g->has_plugin)) group_line(out, r, &j->groups[i], g, inspector, width);
    }
    for (size_t i = 0; i < r->n_notes; i++) tc_term_wrap(out, r->notes[i], 2, 4, width);
}
