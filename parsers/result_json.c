/* result_json.c: reader of a saved tracecost/1 result (see result_json.h), with yajl's tree API:
 * a result is small (a summary, not the events). */
#include "result_json.h"
#include "source.h"
#include "base/util.h"
#include "base/version.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

/* ---- telling a saved result from a trace -------------------------------------------------- */

static const char *skip_space(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

/* The object's first key is "schema" and its value "tracecost/1" (buf NUL-terminated); or an
 * array (analyze --window all --json) whose first object is one. */
static bool schema_first(const char *buf) {
    const char *o = skip_space(buf);
    if (*o == '[') o = skip_space(o + 1);
    if (*o != '{') return false;
    const char *k = strstr(o, "\"schema\"");
    if (!k || skip_space(o + 1) != k) return false;
    k += 8;
    while (*k == ' ' || *k == '\t' || *k == '\n' || *k == '\r' || *k == ':') k++;
    return !strncmp(k, "\"" TC_SCHEMA "\"", strlen(TC_SCHEMA) + 2);
}

bool tc_result_json_is_saved(const char *path) {
    struct stat st;
    if (!strcmp(path, "-") || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    char err[512], buf[4097];
    tc_source *src = tc_source_open(path, err, sizeof err);
    if (!src) return false;
    long n = tc_source_format_of(src) == TC_SOURCE_PLAIN ? tc_source_read(src, buf, sizeof buf - 1, err, sizeof err) : 0;
    tc_source_close(src);
    if (n <= 0) return false;
    buf[n] = '\0';
    return schema_first(buf);
}

/* ---- JSON access ------------------------------------------------------------------------- */

/* v's value for key; of a key given twice, the last (as for traces: docs/damage.md). */
static yajl_val get(yajl_val v, const char *key) {
    if (!v || !YAJL_IS_OBJECT(v)) return NULL;
    for (size_t i = v->u.object.len; i-- > 0;)
        if (!strcmp(v->u.object.keys[i], key)) return v->u.object.values[i];
    return NULL;
}

/* How many times v (an object) holds key. */
static size_t key_count(yajl_val v, const char *key) {
    size_t n = 0;
    for (size_t i = 0; v && YAJL_IS_OBJECT(v) && i < v->u.object.len; i++) n += !strcmp(v->u.object.keys[i], key);
    return n;
}

/* Why text is not valid JSON, on one line with the byte offset (yajl_tree_parse's own message
 * quotes the text around the error over several lines). */
static void json_error_line(const char *text, char *out, size_t n) {
    yajl_handle h = yajl_alloc(NULL, NULL, NULL);
    if (!h) { snprintf(out, n, "out of memory"); return; }
    size_t len = strlen(text);
    yajl_status st = yajl_parse(h, (const unsigned char *)text, len);
    if (st == yajl_status_ok) st = yajl_complete_parse(h);
    size_t at = yajl_get_bytes_consumed(h);
    unsigned char *msg = st == yajl_status_ok ? NULL : yajl_get_error(h, 0, (const unsigned char *)text, len);
    char what[128];
    snprintf(what, sizeof what, "%s", msg ? (const char *)msg : "parse error");
    if (msg) yajl_free_error(h, msg);
    yajl_free(h);
    size_t w = strlen(what); /* yajl ends its message with a newline */
    while (w > 0 && (what[w - 1] == '\n' || what[w - 1] == ' ' || what[w - 1] == '.')) what[--w] = 0;
    for (char *c = what; *c; c++) if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
    /* yajl may report the error one byte past the offending one, as for traces */
    snprintf(out, n, "byte %zu: %s", at > 0 && at <= len ? at - 1 : at, what);
}

/* A finite number into *out (a non-finite one is still stored, and false returned). */
static bool num(yajl_val v, double *out) {
    if (!v || !YAJL_IS_NUMBER(v)) return false;
    *out = YAJL_GET_DOUBLE(v);
    return isfinite(*out);
}

/* A number that fits a long long (counts, bytes, ranks). */
static bool whole(yajl_val v, double *out) { return num(v, out) && fabs(*out) < 9.2e18; }

/* The first saved figure out of range, for the message ("ranks[2].step_time_us is -1: ..."). */
typedef struct { char why[200]; } bad_figure;

#define TIME_MAX_US 9.2e15 /* 2^63 ns */
#define COUNT_MAX 9.2e18   /* what an int64 holds */

/* obj.key when it is a figure tracecost can have written: absent or null is unknown (false); a
 * finite number in [lo, hi] (whole when `whole_only`) is true with *out set; anything else sets
 * b->why (the first one kept) naming where.key and its text, and is false. */
static bool ranged(yajl_val obj, const char *key, const char *where, double lo, double hi, bool whole_only,
                   double *out, bad_figure *b) {
    yajl_val v = get(obj, key);
    if (!v || YAJL_IS_NULL(v)) return false;
    double d = v && YAJL_IS_NUMBER(v) ? YAJL_GET_DOUBLE(v) : NAN;
    if (YAJL_IS_NUMBER(v) && isfinite(d) && d >= lo && d <= hi && (!whole_only || d == floor(d))) {
        *out = d;
        return true;
    }
    if (!b->why[0]) {
        char text[48];
        if (YAJL_IS_NUMBER(v)) snprintf(text, sizeof text, "%.40s", v->u.number.r ? v->u.number.r : "?");
        else snprintf(text, sizeof text, "not a number");
        snprintf(b->why, sizeof b->why, "%s.%s is %s: %s", where, key, text,
                 !YAJL_IS_NUMBER(v) ? "a figure is a number or null"
                 : !isfinite(d) ? "not a finite number" : d < lo ? "negative"
                 : d > hi ? (whole_only ? "more than a count can hold" : "longer than 292 years")
                 : "a count is a whole number");
    }
    return false;
}

/* A time in µs (0 to 2^63 ns). */
static bool time_us(yajl_val obj, const char *key, const char *where, double *out, bad_figure *b) {
    return ranged(obj, key, where, 0, TIME_MAX_US, false, out, b);
}

/* A step time in µs: a time, and 1 ns or more when not 0 (no step is shorter than the clock's
 * resolution, and a smaller one would make steps per second pass any number). */
static bool step_time(yajl_val obj, const char *where, double *out, bad_figure *b) {
    if (!time_us(obj, "step_time_us", where, out, b)) return false;
    if (*out == 0 || *out >= 1e-3) return true;
    if (!b->why[0])
        snprintf(b->why, sizeof b->why, "%s.step_time_us is %g: shorter than 1 ns, the traces' resolution", where, *out);
    return false;
}

static const char *str(yajl_val v) { return v && YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL; }

/* A copy of v's string into *dst (NULL when v is no string, or `fallback` when given). False only
 * out of memory. */
static bool take_str(char **dst, yajl_val v, const char *fallback) {
    const char *s = str(v) ? str(v) : fallback;
    *dst = tc_strdup(s);
    return !s || *dst;
}

/* ---- the parts of a result --------------------------------------------------------------- */

/* "YYYY-MM-DDTHH:MM:SSZ" as s since 1970-01-01 UTC; false when it is not one. */
static bool utc_time(const char *t, long long *out) {
    int y, mo, d, h, mi, se, n = 0;
    if (!t || sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 || t[n] || mo < 1 ||
        mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return false;
    *out = (long long)tc_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    return true;
}

/* One reason of summary.basis_summary ("2 of 128 ranks"), as reports/findings_text.c
 * tc_basis_list_text words it, back into its code and numbers; false when it is none of them. */
static bool basis_piece(const char *p, size_t len, tc_basis_reason *b) {
    char t[256];
    long long x = 0, y = 0;
    double v = 0;
    int n = -1;
    if (len >= sizeof t) return false;
    for (size_t i = 0, run = 0; i < len; i++) /* no number past what a long long holds */
        if ((run = p[i] >= '0' && p[i] <= '9' ? run + 1 : 0) > 18) return false;
    memcpy(t, p, len);
    t[len] = '\0';
    memset(b, 0, sizeof *b);
#define WHOLE(fmt, ...) (n = -1, sscanf(t, fmt "%n", __VA_ARGS__, &n) >= 1 && n == (int)len)
    if (WHOLE("%lld of %lld ranks of a process group", &x, &y)) { b->code = TC_BASIS_GROUP_RANKS; b->present = x; b->size = y; }
    else if (WHOLE("%lld of %lld ranks", &x, &y)) { b->code = TC_BASIS_WORLD_SIZE; b->count = x; b->of = y; }
    else if (WHOLE("%lld of %lld collectives unmatched, %lf%% of exposed communication", &x, &y, &v) && isfinite(v)) {
        b->code = TC_BASIS_UNMATCHED; b->count = x; b->of = y; b->share = v / 100;
    } /* before issue 28: */
    else if (WHOLE("%lf%% of exposed communication unmatched", &v) && isfinite(v)) { b->code = TC_BASIS_UNMATCHED; b->share = v / 100; }
    else if (WHOLE("%lld of %lld inputs cut short", &x, &y)) { b->code = TC_BASIS_SALVAGED; b->count = x; b->of = y; }
    else if (!strcmp(t, "one rank, wait and transfer not split")) { b->code = TC_BASIS_NOT_SPLIT; b->count = 1; }
    else if (!strcmp(t, "collectives unmatched, wait and transfer not split")) { b->code = TC_BASIS_NOT_SPLIT; b->count = 2; }
    else return false;
#undef WHOLE
    return true;
}

/* summary.basis_summary back into codes and numbers (s->basis); words tracecost does not write
 * are left out. */
static void read_basis_summary(tc_run_summary *s, const char *text) {
    for (const char *p = text; p && *p && s->n_basis < TC_MAX_BASIS;) {
        const char *end = strstr(p, "; ");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (basis_piece(p, len, &s->basis[s->n_basis])) s->n_basis++;
        p = end ? end + 2 : NULL;
    }
}

/* The process groups between nodes: summary.inter_node_* and the inter-node rows of
 * process_groups[] with collectives. */
static void read_inter_node(tc_run_summary *s, yajl_val sm, yajl_val groups, bad_figure *b) {
    double d;
    time_us(sm, "window_us", "summary", &s->window_us, b);
    s->groups_scoped = time_us(sm, "inter_node_exposed_transfer_us", "summary", &s->inter_exposed_transfer_us, b);
    if (!s->groups_scoped) s->inter_exposed_transfer_us = 0;
    s->has_inter_busbw = num(get(sm, "inter_node_busbw_GBps"), &s->inter_busbw_GBps);
    if (!num(get(sm, "fabric_rated_busbw_GBps"), &s->fabric_rated_GBps) || !(s->fabric_rated_GBps > 0)) s->fabric_rated_GBps = 0;
    if (!groups || !YAJL_IS_ARRAY(groups)) return;
    for (size_t i = 0; i < groups->u.array.len && s->inter_groups < 1000000000; i++) {
        yajl_val g = groups->u.array.values[i];
        const char *scope = str(get(g, "scope"));
        if (scope && !strcmp(scope, "inter-node") && num(get(g, "comm_us"), &d) && d > 0) s->inter_groups++;
    }
}

/* The summary's basis, nodes and capture date (absent in results of older versions: unknown). */
static void read_basis(tc_run_summary *s, yajl_val sm) {
    double d;
    const char *basis = str(get(sm, "basis")), *rule = str(get(sm, "node_rule"));
    s->partial = basis && !strcmp(basis, "partial");
    if (s->partial) read_basis_summary(s, str(get(sm, "basis_summary")));
    yajl_val ub = get(sm, "transfer_upper_bound");
    s->transfer_upper_bound = ub && YAJL_IS_TRUE(ub);
    s->nodes = whole(get(sm, "nodes"), &d) && d >= 1 && d <= 1e9 ? (int)d : 0;
    yajl_val assumed = get(sm, "nodes_assumed"); /* before 2026-12: a nodes note meant assumed */
    s->nodes_assumed = assumed ? YAJL_IS_TRUE(assumed) : str(get(sm, "nodes_note")) != NULL;
    s->gpus_per_node = rule && strcmp(rule, "assumed") && !s->nodes_assumed && whole(get(sm, "gpus_per_node"), &d) && d >= 1 && d <= 1e9
                           ? (int)d : 0;
    s->has_capture_time = utc_time(str(get(sm, "captured_at")), &s->capture_unix_s);
}

/* summary.replay's step times (absent before issue 29, available false without a replay: unknown).
 * False only out of memory. */
static bool read_replay(tc_run_summary *s, yajl_val r, bad_figure *b) {
    yajl_val av = get(r, "available");
    if (!av || !YAJL_IS_TRUE(av)) return true;
    s->has_replay = time_us(r, "measured_step_us", "summary.replay", &s->replay_measured_step_us, b) &&
                    time_us(r, "replayed_step_us", "summary.replay", &s->replay_replayed_step_us, b);
    if (!s->has_replay) return true;
    ranged(r, "identity_error", "summary.replay", 0, 1e300, false, &s->replay_identity_error, b);
    s->has_replay_reference = str(get(r, "reference")) &&
                              time_us(r, "reference_step_us", "summary.replay", &s->replay_reference_step_us, b);
    if (s->has_replay_reference && !take_str(&s->replay_reference, get(r, "reference"), NULL)) return false;
    s->has_replay_projected = time_us(r, "projected_step_us", "summary.replay", &s->replay_projected_step_us, b);
    return true;
}

/* "summary": world size, step time, shares, MFU, fabric bandwidth, straggler, verdict. */
static bool read_summary(tc_run_summary *s, yajl_val sm, bad_figure *b) {
    double d;
    s->world_size = whole(get(sm, "ranks"), &d) && d >= 1 && d <= 1e9 ? (int)d : 1;
    s->has_step_time = step_time(sm, "summary", &s->step_time_us, b) && s->step_time_us > 0;
    yajl_val sh = get(sm, "shares");
    num(get(sh, "compute"), &s->share_compute);
    num(get(sh, "exposed_comm"), &s->share_exposed_comm);
    num(get(sh, "memory_exposed"), &s->share_memory);
    if (!num(get(sh, "memory_host_exposed"), &s->share_memory_host)) /* before issue 28: not split */
        s->share_memory_host = s->share_memory;
    num(get(sh, "idle"), &s->share_idle);
    s->split_known = num(get(sh, "exposed_transfer"), &s->share_exposed_transfer) &&
                     num(get(sh, "exposed_wait"), &s->share_exposed_wait);
    if (!s->split_known) { s->share_exposed_transfer = 0; s->share_exposed_wait = 0; }
    yajl_val st = get(sm, "step_shares"); /* null without steps, absent before issue 28 */
    s->has_step_shares = st && YAJL_IS_OBJECT(st) && num(get(st, "compute"), &s->step_share_compute);
    if (s->has_step_shares) {
        num(get(st, "exposed_comm"), &s->step_share_exposed_comm);
        num(get(st, "memory_exposed"), &s->step_share_memory);
        if (!num(get(st, "memory_host_exposed"), &s->step_share_memory_host)) s->step_share_memory_host = s->step_share_memory;
        num(get(st, "idle"), &s->step_share_idle);
        if (s->split_known) {
            num(get(st, "exposed_transfer"), &s->step_share_exposed_transfer);
            num(get(st, "exposed_wait"), &s->step_share_exposed_wait);
        }
        time_us(sm, "step_window_us", "summary", &s->step_window_us, b);
    }
    s->has_mfu = num(get(sm, "mfu"), &s->mfu);
    s->has_busbw = num(get(sm, "fabric_busbw_GBps"), &s->fabric_busbw_GBps);
    s->has_straggler = whole(get(sm, "straggler_rank"), &d);
    s->straggler_rank = s->has_straggler ? (long long)d : -1;
    if (whole(get(sm, "world_size"), &d) && d > s->world_size && d <= 1e9) s->world_size = (int)d;
    read_basis(s, sm);
    return read_replay(s, get(sm, "replay"), b) && take_str(&s->verdict, get(sm, "verdict"), "unknown");
}

/* "ranks[]": the first rank's device, the mean FLOPs per step over the ranks that have them, and
 * each rank's window and where it went (tc_cmp_rank); the most steps of a rank. */
static bool read_ranks(tc_run_summary *s, yajl_val ranks, bad_figure *b) {
    if (!ranks || !YAJL_IS_ARRAY(ranks)) return true;
    double fsum = 0, d;
    size_t fn = 0;
    if (ranks->u.array.len && !(s->ranks = calloc(ranks->u.array.len, sizeof *s->ranks))) return false;
    for (size_t i = 0; i < ranks->u.array.len; i++) {
        yajl_val r = ranks->u.array.values[i], steps = get(r, "steps");
        if (!s->device && str(get(r, "device")) && !take_str(&s->device, get(r, "device"), NULL)) return false;
        char at[40];
        snprintf(at, sizeof at, "ranks[%zu]", i);
        /* FLOPs past 1e30 per GPU per step: no GPU does that (an MFU of 1 is at most ~1e23) */
        if (ranged(r, "flops_per_step", at, 0, 1e30, false, &d, b) && d > 0) { fsum += d; fn++; }
        tc_cmp_rank *o = &s->ranks[s->n_ranks++];
        o->rank = whole(get(r, "rank"), &d) ? (long long)d : (long long)i;
        time_us(r, "window_us", at, &o->window_us, b);
        time_us(r, "compute_us", at, &o->compute_us, b);
        time_us(r, "exposed_comm_us", at, &o->exposed_comm_us, b);
        time_us(r, "memory_exposed_us", at, &o->memory_us, b);
        time_us(r, "idle_us", at, &o->idle_us, b);
        o->has_step_time = step_time(r, at, &o->step_time_us, b);
        if (steps && YAJL_IS_ARRAY(steps) && steps->u.array.len > s->steps) s->steps = steps->u.array.len;
    }
    if (fn) { s->has_flops = true; s->flops_per_step = fsum / (double)fn; }
    return true;
}

/* "collectives[]": one tc_cmp_coll each. */
static bool read_colls(tc_run_summary *s, yajl_val colls, bad_figure *b) {
    if (!colls || !YAJL_IS_ARRAY(colls) || !colls->u.array.len) return true;
    s->colls = calloc(colls->u.array.len, sizeof *s->colls);
    if (!s->colls) return false;
    for (size_t i = 0; i < colls->u.array.len; i++) {
        yajl_val c = colls->u.array.values[i];
        tc_cmp_coll *o = &s->colls[s->n_colls++];
        double d;
        if (!take_str(&o->name, get(c, "name"), "?") || !take_str(&o->process_group, get(c, "process_group"), NULL))
            return false;
        o->bytes = whole(get(c, "bytes"), &d) ? (long long)d : -1;
        char at[40];
        snprintf(at, sizeof at, "collectives[%zu]", i);
        o->count = ranged(c, "count", at, 0, COUNT_MAX, true, &d, b) ? (unsigned long long)d : 0;
        time_us(c, "transfer_us_median", at, &o->transfer_us_median, b);
        o->has_busbw = num(get(c, "busbw_GBps"), &o->busbw_GBps);
    }
    return true;
}

/* "top_kernels[]": one tc_cmp_kernel each. */
static bool read_kernels(tc_run_summary *s, yajl_val top, bad_figure *b) {
    if (!top || !YAJL_IS_ARRAY(top) || !top->u.array.len) return true;
    if (!(s->kernels = calloc(top->u.array.len, sizeof *s->kernels))) return false;
    for (size_t i = 0; i < top->u.array.len; i++) {
        yajl_val k = top->u.array.values[i];
        tc_cmp_kernel *o = &s->kernels[s->n_kernels++];
        double d;
        if (!take_str(&o->name, get(k, "name"), "?")) return false;
        char at[40];
        snprintf(at, sizeof at, "top_kernels[%zu]", i);
        time_us(k, "time_us", at, &o->time_us, b);
        o->count = ranged(k, "count", at, 0, COUNT_MAX, true, &d, b) ? (unsigned long long)d : 0;
        o->has_share = num(get(k, "share_of_compute"), &o->share_of_compute);
    }
    return true;
}

/* The row of cost_inputs.def whose JSON key is key; NULL when none is. */
static const tc_cost_input_desc *input_by_key(const char *key) {
    for (int id = 0; id < TC_COST_INPUT_COUNT; id++)
        if (!strcmp(tc_cost_input((tc_cost_input_id)id)->key, key)) return tc_cost_input((tc_cost_input_id)id);
    return NULL;
}

/* Appends a saved cost input: a number for row d, or (d NULL) the catalog GPU gpu. */
static bool add_cost_input(tc_run_summary *s, const tc_cost_input_desc *d, double value, const char *gpu) {
    tc_saved_cost_input *n = realloc(s->saved_cost, (s->n_saved_cost + 1) * sizeof *n);
    if (!n) return false;
    s->saved_cost = n;
    tc_saved_cost_input in = {d, d ? value : 0, d ? NULL : tc_strdup(gpu)};
    if (!d && !in.gpu) return false;
    s->saved_cost[s->n_saved_cost++] = in;
    return true;
}

/* "cost.inputs": the trace's world size (source "trace"), and the values the user set at analyze
 * time (source "flag..." or "config...": the numbers of cost_inputs.def and the GPU). */
static bool read_cost_inputs(tc_run_summary *s, yajl_val in) {
    if (!in || !YAJL_IS_OBJECT(in)) return true;
    for (size_t i = 0; i < in->u.object.len; i++) {
        const char *key = in->u.object.keys[i];
        yajl_val e = in->u.object.values[i];
        const char *src = str(get(e, "source"));
        yajl_val val = get(e, "value");
        const tc_cost_input_desc *d = input_by_key(key);
        double v;
        if (!src || !val) continue;
        if (!strcmp(key, "gpus") && !strncmp(src, "trace", 5) && num(val, &v) && v > s->world_size && v <= 1e9)
            s->world_size = (int)v;
        if (strncmp(src, "flag", 4) && strncmp(src, "config", 6)) continue;
        if (!strcmp(key, "gpu") && str(val) && !add_cost_input(s, NULL, 0, str(val))) return false;
        if (d && num(val, &v) && !add_cost_input(s, d, v, NULL)) return false;
        if (d && num(val, &v) && d->id == TC_COST_INPUT_fabric_target_GBps) { s->projected_has_GBps = true; s->projected_GBps = v; }
        if (d && num(val, &v) && d->id == TC_COST_INPUT_fabric_target_latency_us) {
            s->projected_has_latency = true;
            s->projected_latency_us = v;
        }
    }
    return true;
}

/* A saved figure that tracecost cannot have written (a share outside 0..1, shares that do not add
 * up, a negative time or bandwidth): *why says which; false. A result edited by hand or by
 * another tool is refused, never compared as if it were measured. */
static bool figures_possible(const tc_run_summary *s, char *why, size_t n) {
    static const double eps = 1e-3; /* the JSON keeps 10 significant digits: far closer than this */
    const struct { const char *key; double v; } shares[] = {
        {"compute", s->share_compute}, {"exposed_comm", s->share_exposed_comm}, {"memory_exposed", s->share_memory},
        {"idle", s->share_idle}, {"exposed_transfer", s->share_exposed_transfer}, {"exposed_wait", s->share_exposed_wait},
    };
    for (size_t i = 0; i < sizeof shares / sizeof shares[0]; i++)
        if (!(shares[i].v >= 0 && shares[i].v <= 1 + eps)) {
            snprintf(why, n, "summary.shares.%s is %g: a share lies between 0 and 1", shares[i].key, shares[i].v);
            return false;
        }
    double sum = s->share_compute + s->share_exposed_comm + s->share_memory + s->share_idle;
    if (sum != 0 && fabs(sum - 1) > eps) {
        snprintf(why, n, "summary.shares add up to %g: compute, exposed_comm, memory_exposed and idle make the whole "
                 "window (1)", sum);
        return false;
    }
    if (s->split_known && fabs(s->share_exposed_transfer + s->share_exposed_wait - s->share_exposed_comm) > eps) {
        snprintf(why, n, "summary.shares: exposed_transfer + exposed_wait is not exposed_comm");
        return false;
    }
    if (s->has_step_time && !(s->step_time_us < 9.2e15)) { /* 2^63 ns */
        snprintf(why, n, "summary.step_time_us is %g: longer than 292 years", s->step_time_us);
        return false;
    }
    if ((s->has_mfu && s->mfu < 0) || (s->has_busbw && s->fabric_busbw_GBps < 0)) {
        snprintf(why, n, "summary.%s is negative", s->has_mfu && s->mfu < 0 ? "mfu" : "fabric_busbw_GBps");
        return false;
    }
    for (size_t i = 0; i < s->n_colls; i++)
        if (s->colls[i].transfer_us_median < 0 || (s->colls[i].has_busbw && s->colls[i].busbw_GBps < 0)) {
            snprintf(why, n, "collectives[%zu] has a negative transfer time or bandwidth", i);
            return false;
        }
    return true;
}

tc_status tc_result_json_parse(tc_run_summary *s, const char *text, const char *label, tc_error *e) {
    memset(s, 0, sizeof *s);
    char perr[256] = "";
    yajl_val root = yajl_tree_parse(text, perr, sizeof perr);
    if (!root) {
        json_error_line(text, perr, sizeof perr);
        return tc_error_set(e, TC_ERR_INPUT, "%s: not valid JSON: %s", label, perr);
    }
    tc_status rc = TC_OK;
    const char *schema = str(get(root, "schema"));
    yajl_val sm = get(root, "summary");
    bad_figure bad = {""};
    if (YAJL_IS_ARRAY(root))
        rc = tc_error_set(e, TC_ERR_INPUT, "%s: a result of %zu profiler windows (analyze --window all --json): compare "
                          "one window: save it with analyze --window K --json", label, root->u.array.len);
    else if (key_count(root, "schema") > 1)
        rc = tc_error_set(e, TC_ERR_INPUT, "%s: \"schema\" is given %zu times: a tracecost result names it once",
                          label, key_count(root, "schema"));
    else if (!schema || strcmp(schema, TC_SCHEMA))
        rc = tc_error_set(e, TC_ERR_INPUT, "%s: not a tracecost result (schema \"%s\", want \"%s\")", label,
                          schema ? schema : "missing", TC_SCHEMA);
    else if (!sm || !YAJL_IS_OBJECT(sm)) rc = tc_error_set(e, TC_ERR_INPUT, "%s: no \"summary\" object", label);
    else {
        s->from_json = true;
        s->label = tc_strdup(label);
        read_inter_node(s, sm, get(root, "process_groups"), &bad);
        if (!s->label || !take_str(&s->tool_version, get(root, "tool_version"), NULL) || !read_summary(s, sm, &bad) ||
            !read_ranks(s, get(root, "ranks"), &bad) || !read_colls(s, get(root, "collectives"), &bad) ||
            !read_kernels(s, get(root, "top_kernels"), &bad) ||
            !read_cost_inputs(s, get(get(root, "cost"), "inputs")))
            rc = tc_error_set(e, TC_ERR_NOMEM, "out of memory");
        char why[200];
        if (rc == TC_OK && bad.why[0]) snprintf(why, sizeof why, "%s", bad.why);
        if (rc == TC_OK && (bad.why[0] || !figures_possible(s, why, sizeof why)))
            rc = tc_error_set(e, TC_ERR_INPUT, "%s: %s; not a result tracecost wrote", label, why);
    }
    yajl_tree_free(root);
    if (rc != TC_OK) tc_run_summary_free(s);
    return rc;
}

tc_status tc_result_json_read(tc_run_summary *s, const char *path, tc_error *e) {
    memset(s, 0, sizeof *s);
    char err[TC_ERROR_MSG];
    tc_source *src = tc_source_open(path, err, sizeof err);
    if (!src) return tc_error_set(e, TC_ERR_INPUT, "%s", err);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    long got = 0;
    while (buf) {
        if (n + 1 >= cap && tc_grow((void **)&buf, &cap, cap * 2, 1)) { free(buf); buf = NULL; break; }
        got = tc_source_read(src, buf + n, cap - n - 1, err, sizeof err);
        if (got <= 0) break;
        n += (size_t)got;
    }
    tc_source_close(src);
    if (!buf) return tc_error_set(e, TC_ERR_NOMEM, "%s: out of memory", path);
    if (got < 0) { free(buf); return tc_error_set(e, TC_ERR_INPUT, "%s", err); }
    buf[n] = '\0';
    tc_status rc = tc_result_json_parse(s, buf, path, e);
    free(buf);
    return rc;
}
