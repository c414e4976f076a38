/* nccl_alone_report.c: NCCL logs without a trace in JSON and text (nccl_alone_report.h). */
#include "nccl_alone_report.h"
#include "jsonw.h"
#include "nccl_report.h"
#include "base/numfmt.h"
#include "base/version.h"
#include <inttypes.h>
#include <string.h>

const char tc_nccl_alone_cannot_know[] =
    "Without a PyTorch trace, what NCCL's logs cannot tell is not guessed: how much of this communication was "
    "exposed and how much hidden behind compute, the compute itself, the verdict (what limits the step) and the "
    "cost; analyze the ranks' traces with these logs for them";

static const char straggler_rule[] =
    "stragglers from NCCL's timings: in a collective (one kind and coll_sn) with the GPU-timed record of every rank "
    "of its communicator, the rank whose exec time alone is the shortest arrived last (the others' kernels ran while "
    "they waited for it) and is charged their extra time; the straggler is the rank charged the most, named when "
    "that is at least clamp(2/n, 0.5, 0.75) of all charged time and 1% of the communicator's exec time. Limits: "
    "kernel_gpu records only (CPU-timed ones are in no figure), collectives missing a rank's record (dropped, below "
    "the size floor) are not counted, and the wait is a difference of exec times, not measured";

static const char *scope_word(const tc_nccl_comm *c) {
    return !c->scope_known ? NULL : c->scope == TC_SCOPE_INTER ? "inter" : "intra";
}

static const char *scope_from_word(const tc_nccl_comm *c) {
    return c->scope_from == TC_NCCL_SCOPE_FROM_NNODES ? "nnodes" : c->scope_from == TC_NCCL_SCOPE_FROM_HOSTS ? "hostnames" : NULL;
}

static void opt_num(jw *w, const char *key, bool has, double v) {
    jw_key(w, key);
    if (has) jw_double(w, v); else jw_null(w);
}

static void hex_id(char *buf, size_t n, uint64_t id) { snprintf(buf, n, "0x%" PRIx64, id); }

static void json_row(jw *w, const tc_nccl_size_row *r) {
    jw_object_begin(w);
    jw_key(w, "collective"); jw_string(w, tc_nccl_coll_name((tc_nccl_coll)r->coll));
    jw_key(w, "min_bytes"); jw_int(w, r->lo);
    jw_key(w, "max_bytes"); jw_int(w, r->hi);
    jw_key(w, "records"); jw_int(w, r->records);
    opt_num(w, "busbw_GBps", r->has_busbw, r->busbw_GBps);
    opt_num(w, "share_of_rated", r->has_share, r->share_of_rated);
    jw_object_end(w);
}

static void json_comm(jw *w, const tc_nccl_log *log, const tc_nccl_comm *c) {
    char id[24];
    hex_id(id, sizeof id, c->id);
    jw_object_begin(w);
    jw_key(w, "id"); jw_string(w, id);
    jw_key(w, "n_ranks"); jw_int(w, c->n_ranks);
    jw_key(w, "nnodes"); if (c->nnodes > 0) jw_int(w, c->nnodes); else jw_null(w);
    jw_key(w, "ranks_seen"); jw_uint(w, c->n_seen);
    jw_key(w, "hostnames");
    jw_array_begin(w);
    for (size_t i = 0; i < c->n_hosts; i++) jw_string(w, c->hosts[i]);
    jw_array_end(w);
    jw_key(w, "records"); jw_int(w, c->records);
    jw_key(w, "gpu_timed_records"); jw_int(w, c->gpu_records);
    jw_key(w, "cpu_timed_records"); jw_int(w, c->cpu_timed);
    opt_num(w, "busbw_GBps", c->has_busbw, c->busbw_GBps);
    jw_key(w, "scope"); jw_string(w, scope_word(c));
    jw_key(w, "scope_from"); jw_string(w, scope_from_word(c));
    jw_key(w, "link");
    if (!c->link.id) jw_null(w);
    else {
        jw_object_begin(w);
        jw_key(w, "id"); jw_string(w, c->link.id);
        jw_key(w, "name"); jw_string(w, c->link.name);
        jw_key(w, "rated_GBps"); jw_double(w, c->link.rated_GBps);
        jw_object_end(w);
    }
    opt_num(w, "share_of_rated", c->has_share, c->share_of_rated);
    jw_key(w, "size_rows"); jw_string(w, c->exact_sizes ? "exact" : "power_of_two");
    jw_key(w, "sizes");
    jw_array_begin(w);
    for (size_t i = 0; i < c->n_rows; i++) json_row(w, &c->rows[i]);
    jw_array_end(w);
    jw_key(w, "sequences"); jw_int(w, c->sequences);
    jw_key(w, "complete_sequences"); jw_int(w, c->complete);
    jw_key(w, "decided_sequences"); jw_int(w, c->decided);
    jw_key(w, "charged_wait_us"); jw_double(w, c->charged_us);
    jw_key(w, "straggler_rank"); if (c->has_straggler) jw_int(w, c->ranks[c->straggler].rank); else jw_null(w);
    jw_key(w, "plugin_records"); jw_int(w, c->plugin_records);
    tc_nccl_json_mix(w, log, c->mix_records);
    tc_nccl_json_mix_key(w, "inspector_mix", log, c->inspector_mix_records);
    jw_object_end(w);
}

static void json_straggler(jw *w, const tc_nccl_log *log, const tc_nccl_comm *c) {
    const tc_nccl_comm_rank *r = &c->ranks[c->straggler];
    const tc_nccl_file *f = &log->files[r->file];
    char id[24];
    hex_id(id, sizeof id, c->id);
    jw_object_begin(w);
    jw_key(w, "communicator_id"); jw_string(w, id);
    jw_key(w, "rank"); jw_int(w, r->rank);
    jw_key(w, "hostname"); jw_string(w, f->hostname);
    jw_key(w, "pid"); if (f->pid >= 0) jw_int(w, f->pid); else jw_null(w);
    jw_key(w, "last_arrivals"); jw_int(w, r->last);
    jw_key(w, "decided_sequences"); jw_int(w, c->decided);
    jw_key(w, "caused_wait_us"); jw_double(w, r->caused_wait_us);
    jw_key(w, "share_of_charged_wait"); jw_double(w, r->caused_wait_us / c->charged_us);
    jw_object_end(w);
}

static void json_files(jw *w, const tc_nccl_log *log) {
    jw_key(w, "files");
    jw_array_begin(w);
    for (size_t i = 0; i < log->n_files; i++) {
        const tc_nccl_file *f = &log->files[i];
        jw_object_begin(w);
        jw_key(w, "path"); jw_string(w, f->path);
        jw_key(w, "kind"); jw_string(w, f->plugin ? "plugin_trace" : "inspector");
        jw_key(w, "hostname"); jw_string(w, f->hostname);
        jw_key(w, "pid"); if (f->pid >= 0) jw_int(w, f->pid); else jw_null(w);
        jw_key(w, "records"); jw_uint(w, f->records);
        jw_key(w, "skipped"); jw_uint(w, f->skipped);
        jw_object_end(w);
    }
    jw_array_end(w);
}

int tc_nccl_alone_json_write(FILE *out, const tc_nccl_log *log, const tc_nccl_alone *a) {
    jw w;
    jw_init(&w, out, true);
    jw_object_begin(&w);
    jw_key(&w, "schema"); jw_string(&w, TC_SCHEMA);
    jw_key(&w, "tool_version"); jw_string(&w, TC_VERSION);
    jw_key(&w, "inputs"); jw_array_begin(&w); jw_array_end(&w); /* no trace */
    jw_key(&w, "summary"); jw_null(&w);
    jw_key(&w, "nccl");
    jw_object_begin(&w);
    jw_key(&w, "without_trace"); jw_bool(&w, true);
    jw_key(&w, "inspector_files"); jw_uint(&w, a->inspector_files);
    jw_key(&w, "inspector_records"); jw_int(&w, a->records);
    jw_key(&w, "plugin_files"); jw_uint(&w, a->plugin_files);
    jw_key(&w, "plugin_records"); jw_int(&w, a->plugin_records);
    jw_key(&w, "plugin_records_unplaced"); jw_int(&w, a->plugin_unplaced);
    jw_key(&w, "prometheus_files"); jw_uint(&w, a->prom_files);
    jw_key(&w, "prometheus_rows"); jw_uint(&w, a->prom_rows);
    json_files(&w, log);
    jw_key(&w, "communicators");
    jw_array_begin(&w);
    for (size_t i = 0; i < a->n_comms; i++) json_comm(&w, log, &a->comms[i]);
    jw_array_end(&w);
    jw_key(&w, "stragglers");
    jw_array_begin(&w);
    for (size_t i = 0; i < a->n_comms; i++)
        if (a->comms[i].has_straggler) json_straggler(&w, log, &a->comms[i]);
    jw_array_end(&w);
    jw_key(&w, "unknown_without_trace");
    jw_array_begin(&w);
    static const char *const unknown[] = {"exposed_comm", "overlapped_comm", "compute", "verdict", "cost"};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) jw_string(&w, unknown[i]);
    jw_array_end(&w);
    jw_key(&w, "notes");
    jw_array_begin(&w);
    jw_string(&w, tc_nccl_alone_cannot_know);
    jw_string(&w, straggler_rule);
    jw_array_end(&w);
    jw_object_end(&w);
    jw_key(&w, "warnings"); jw_array_begin(&w); jw_array_end(&w);
    jw_key(&w, "cost"); jw_null(&w);
    jw_object_end(&w);
    return jw_finish(&w);
}

/* ---- text --------------------------------------------------------------------------------------- */

/* bytes as NCCL users write sizes: "32 MiB", "8 KiB", else "12,345 B". */
static const char *size_text(char *buf, size_t n, int64_t bytes) {
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB"};
    int u = -1;
    int64_t v = bytes;
    while (u < 3 && v > 0 && v % 1024 == 0) { v /= 1024; u++; }
    char num[32];
    tc_fmt_grouped(num, sizeof num, (double)v, 0);
    snprintf(buf, n, "%s %s", num, u < 0 ? "B" : unit[u]);
    return buf;
}

static void row_line(FILE *out, const char *coll, const char *size, int64_t records, bool has_bw, double bw,
                     bool has_share, double share) {
    char rec[32], b[32] = "-", s[TC_PCT_LEN] = "-";
    tc_fmt_grouped(rec, sizeof rec, (double)records, 0);
    if (has_bw) tc_fmt_num(b, sizeof b, bw, 1);
    if (has_share) TC_PCT1(s, share);
    fprintf(out, "  %-13.13s %-17.17s %9s %11s %9s\n", coll, size, rec, b, s);
}

static void comm_head(FILE *out, const tc_nccl_comm *c, int width) {
    char line[1200], hosts[600] = "";
    size_t k = 0;
    for (size_t i = 0; i < c->n_hosts && i < 4; i++)
        k += (size_t)snprintf(hosts + k, sizeof hosts - k, "%s%.100s", i ? ", " : "", c->hosts[i]);
    if (c->n_hosts > 4) snprintf(hosts + k, sizeof hosts - k, ", ... (%zu hosts)", c->n_hosts);
    char nodes[48] = "nodes unknown";
    if (c->nnodes > 0) snprintf(nodes, sizeof nodes, "%d node%s", (int)c->nnodes, c->nnodes == 1 ? "" : "s");
    const char *scope = !c->scope_known ? "scope unknown (no nnodes, and its logs do not say)"
                        : c->scope == TC_SCOPE_INTER
                            ? (c->scope_from == TC_NCCL_SCOPE_FROM_NNODES ? "between nodes (header nnodes)" : "between nodes (its logs' hostnames)")
                            : (c->scope_from == TC_NCCL_SCOPE_FROM_NNODES ? "inside a node (header nnodes)" : "inside a node (every rank's log on one host)");
    char link[96] = "rated link unknown";
    char rated[32];
    if (c->link.id) snprintf(link, sizeof link, "link %s, rated %s GB/s", c->link.name, tc_fmt_num(rated, sizeof rated, c->link.rated_GBps, 1));
    snprintf(line, sizeof line, "Communicator 0x%" PRIx64 ": %d ranks (%zu with records), %s%s%s%s; %s; %s", c->id,
             (int)c->n_ranks, c->n_seen, nodes, c->n_hosts ? " (" : "", hosts, c->n_hosts ? ")" : "", scope, link);
    tc_term_wrap(out, line, 0, 2, width);
}

static void comm_table(FILE *out, const tc_nccl_comm *c) {
    fprintf(out, "  %-13s %-17s %9s %11s %9s\n", "collective", c->exact_sizes ? "size" : "size (bin)", "records",
            "busbw GB/s", "of rated");
    for (size_t i = 0; i < c->n_rows; i++) {
        const tc_nccl_size_row *r = &c->rows[i];
        char size[40], lo[20], hi[20];
        if (r->lo == r->hi) size_text(size, sizeof size, r->lo);
        else snprintf(size, sizeof size, "%s-%s", size_text(lo, sizeof lo, r->lo), size_text(hi, sizeof hi, r->hi + 1));
        row_line(out, tc_nccl_coll_name((tc_nccl_coll)r->coll), size, r->records, r->has_busbw, r->busbw_GBps, r->has_share,
                 r->share_of_rated);
    }
    row_line(out, "all", "", c->gpu_records, c->has_busbw, c->busbw_GBps, c->has_share, c->share_of_rated);
}

static void comm_straggler(FILE *out, const tc_nccl_log *log, const tc_nccl_comm *c, int width) {
    char line[800], dec[32], tot[32], pct[TC_PCT_LEN];
    tc_fmt_grouped(dec, sizeof dec, (double)c->decided, 0);
    if (!c->complete) {
        snprintf(line, sizeof line, "stragglers unknown: no collective has the GPU-timed record of each of its %d ranks "
                 "(logs of %zu read)", (int)c->n_ranks, c->n_seen);
        tc_term_wrap(out, line, 2, 4, width);
        return;
    }
    if (!c->has_straggler) {
        snprintf(line, sizeof line, "no straggler: %s of %" PRId64 " collectives with every rank's GPU-timed record have one "
                 "rank alone last, and none is charged enough of their wait", dec, c->complete);
        tc_term_wrap(out, line, 2, 4, width);
        return;
    }
    const tc_nccl_comm_rank *r = &c->ranks[c->straggler];
    const tc_nccl_file *f = &log->files[r->file];
    char who[200] = "";
    if (f->hostname || f->pid >= 0) {
        char pid[32] = "";
        if (f->pid >= 0) snprintf(pid, sizeof pid, "pid %" PRId64, f->pid);
        snprintf(who, sizeof who, " (%.100s%s%s)", f->hostname ? f->hostname : "", f->hostname && f->pid >= 0 ? ", " : "", pid);
    }
    tc_fmt_num(tot, sizeof tot, r->caused_wait_us / 1e3, 3);
    snprintf(line, sizeof line, "straggler: rank %d%s arrived last in %" PRId64 " of the %s collectives with one rank alone "
             "last; the other ranks' extra time charged to it: %s ms in total (%s of all charged)", (int)r->rank, who, r->last,
             dec, tot, TC_PCT1(pct, r->caused_wait_us / c->charged_us));
    tc_term_wrap(out, line, 2, 4, width);
}

void tc_nccl_alone_text_write(FILE *out, const tc_nccl_log *log, const tc_nccl_alone *a, const tc_term_opts *o) {
    char line[800], recs[32];
    tc_fmt_grouped(recs, sizeof recs, (double)a->records, 0);
    char plug[96] = "";
    if (a->plugin_files)
        snprintf(plug, sizeof plug, ", %zu profiler plugin trace%s (%" PRId64 " COLL records)", a->plugin_files,
                 a->plugin_files == 1 ? "" : "s", a->plugin_records);
    snprintf(line, sizeof line, "NCCL logs alone (no PyTorch trace): %zu Inspector log%s, %s records%s, %zu communicator%s",
             a->inspector_files, a->inspector_files == 1 ? "" : "s", recs, plug, a->n_comms, a->n_comms == 1 ? "" : "s");
    tc_term_wrap(out, line, 0, 2, o->width);
    bool unknown_link = false, bins = false;
    for (size_t i = 0; i < a->n_comms; i++) {
        const tc_nccl_comm *c = &a->comms[i];
        fputc('\n', out);
        comm_head(out, c, o->width);
        comm_table(out, c);
        comm_straggler(out, log, c, o->width);
        int64_t with_mix = 0;
        for (size_t m = 0; m < TC_NCCL_MAX_MIXES; m++) with_mix += c->inspector_mix_records[m];
        if (with_mix) {
            char mix[600];
            int n = snprintf(mix, sizeof mix, "NCCL's choices (Inspector, %" PRId64 " records naming them)", with_mix);
            tc_nccl_mix_text(mix, sizeof mix, n, ": ", log, c->inspector_mix_records);
            tc_term_wrap(out, mix, 2, 4, o->width);
        }
        if (c->plugin_records) {
            char mix[600];
            int n = snprintf(mix, sizeof mix, "NCCL's choices (profiler plugin, %" PRId64 " COLL records of every rank)",
                             c->plugin_records);
            tc_nccl_mix_text(mix, sizeof mix, n, ": ", log, c->mix_records);
            tc_term_wrap(out, mix, 2, 4, o->width);
        }
        unknown_link |= !c->link.id;
        bins |= !c->exact_sizes;
    }
    fputc('\n', out);
    tc_term_wrap(out, "busbw = NCCL's bus bandwidth, Σ (bytes x bus factor) / Σ coll_exec_time_us over the GPU-timed "
                 "records of every rank (bus factor per nccl-tests); of rated = busbw / the link's rated GB/s; MiB = 2^20 B, "
                 "GB = 1e9 B", 0, 2, o->width);
    if (bins) {
        snprintf(line, sizeof line, "size (bin): a communicator with more than %d distinct sizes gets power-of-two bins, "
                 "1 MiB-2 MiB holding the sizes from 1 MiB up to under 2 MiB", TC_NCCL_EXACT_SIZES);
        tc_term_wrap(out, line, 0, 2, o->width);
    }
    if (unknown_link)
        tc_term_wrap(out, "rated link unknown: --gpu names the GPU (its link inside a node), --fabric or --nic-gbps the "
                     "fabric between nodes", 0, 2, o->width);
    if (a->prom_rows) {
        snprintf(line, sizeof line, "%zu Inspector Prometheus row%s read: their per-bucket means are in no figure here "
                 "(the JSON logs' records are summed instead)", a->prom_rows, a->prom_rows == 1 ? "" : "s");
        tc_term_wrap(out, line, 0, 2, o->width);
    }
    if (a->plugin_unplaced) {
        snprintf(line, sizeof line, "%" PRId64 " NCCL profiler plugin COLL record%s of a CommHash no Inspector log has: "
                 "in no figure", a->plugin_unplaced, a->plugin_unplaced == 1 ? "" : "s");
        tc_term_wrap(out, line, 0, 2, o->width);
    }
    tc_term_wrap(out, straggler_rule, 0, 2, o->width);
    snprintf(line, sizeof line, "%s.", tc_nccl_alone_cannot_know);
    tc_term_wrap(out, line, 0, 2, o->width);
}
