/* nccl_prom.c: the reader of NCCL Inspector's Prometheus textfile output (nccl_inspector.h,
 * docs/nccl.md "Prometheus textfiles"): the nccl_inspector_metrics_<GPU UUID>.prom files the
 * Inspector writes with NCCL_INSPECTOR_PROM_DUMP, one GPU each, a line per metric and bucket
 * (`name{label="value",...} number`). The collective buckets' two metrics (bus bandwidth, exec
 * time) become one tc_nccl_prom row with their labels (communicator name, size, nodes, collective,
 * message-size range, algo_proto); p2p and per-device total metrics are counted; a line that cannot
 * be read is skipped with a warning naming its byte offset. */
#define _POSIX_C_SOURCE 200809L
#include "nccl_inspector.h"
#include "base/util.h"
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool tc_nccl_prom_sniff(const char *head, size_t len) {
    size_t i = 0;
    while (i < len) { /* comment lines (# HELP, # TYPE) and blank lines first */
        while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n')) i++;
        if (i >= len || head[i] != '#') break;
        while (i < len && head[i] != '\n') i++;
    }
    if (len - i < 6 || memcmp(head + i, "nccl_", 5) != 0) return false;
    for (; i < len && head[i] != '\n' && head[i] != ' '; i++)
        if (head[i] == '{') return true;
    return false;
}

/* The labels the reader keeps, and the metric's value. */
typedef struct {
    char comm_name[64], node[64], gpu[32], collective[48], size[32], algo_proto[40], nranks[16], nnodes[16];
} prom_labels;

/* Parses `{k="v",...}` at *s (end e) into lb; false when malformed. */
static bool labels(const char **s, const char *e, prom_labels *lb) {
    const char *p = *s;
    if (p >= e || *p != '{') return false;
    p++;
    while (p < e && *p != '}') {
        const char *k = p;
        while (p < e && *p != '=' && *p != '}') p++;
        if (p >= e || *p != '=' || p + 1 >= e || p[1] != '"') return false;
        size_t kn = (size_t)(p - k);
        p += 2;
        char v[128];
        size_t n = 0;
        for (; p < e && *p != '"'; p++) {
            char c = *p;
            if (c == '\\' && p + 1 < e) { p++; c = *p == 'n' ? '\n' : *p; }
            if (n + 1 < sizeof v) v[n++] = c;
        }
        if (p >= e) return false;
        v[n] = '\0';
        p++;
        static const struct { const char *key; size_t off, cap; } keep[] = {
            {"comm_name", offsetof(prom_labels, comm_name), sizeof ((prom_labels *)0)->comm_name},
            {"node", offsetof(prom_labels, node), sizeof ((prom_labels *)0)->node},
            {"gpu", offsetof(prom_labels, gpu), sizeof ((prom_labels *)0)->gpu},
            {"collective", offsetof(prom_labels, collective), sizeof ((prom_labels *)0)->collective},
            {"message_size", offsetof(prom_labels, size), sizeof ((prom_labels *)0)->size},
            {"algo_proto", offsetof(prom_labels, algo_proto), sizeof ((prom_labels *)0)->algo_proto},
            {"nranks", offsetof(prom_labels, nranks), sizeof ((prom_labels *)0)->nranks},
            {"n_nodes", offsetof(prom_labels, nnodes), sizeof ((prom_labels *)0)->nnodes}};
        for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
            if (strlen(keep[i].key) == kn && memcmp(k, keep[i].key, kn) == 0)
                snprintf((char *)lb + keep[i].off, keep[i].cap, "%s", v);
        if (p < e && *p == ',') p++;
    }
    if (p >= e) return false;
    *s = p + 1;
    return true;
}

/* "2-3MB" into [lo, hi) bytes ("0B": [0, 1)); false when it is not one. */
static bool size_range(const char *s, int64_t *lo, int64_t *hi) {
    if (strcmp(s, "0B") == 0) { *lo = 0; *hi = 1; return true; }
    char *e;
    long a = strtol(s, &e, 10);
    if (e == s || *e != '-') return false;
    const char *u = e + 1;
    long b = strtol(u, &e, 10);
    if (e == u || a < 0 || b <= a) return false;
    static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
    for (int k = 0; k < 5; k++)
        if (strcmp(e, units[k]) == 0) {
            int64_t unit = (int64_t)1 << (10 * k);
            *lo = (int64_t)a * unit;
            *hi = (int64_t)b * unit;
            return true;
        }
    return false;
}

/* One collective metric line's labels and value into log: a new row, or the previous row of the same
 * labels that lacks this metric. why: what is wrong, NULL when read. */
static const char *take_row(tc_nccl_log *log, size_t file, const prom_labels *lb, bool bus, double v) {
    int64_t lo, hi;
    char *e;
    long nr = strtol(lb->nranks, &e, 10);
    if (!lb->nranks[0] || *e || nr < 1) return "no nranks label";
    long nn = strtol(lb->nnodes, &e, 10);
    if (!lb->nnodes[0] || *e || nn < 0) nn = 0;
    if (!size_range(lb->size, &lo, &hi)) return "no message_size label of the Inspector's form (2-3MB)";
    char algo[16] = "", proto[16] = "";
    const char *us = strrchr(lb->algo_proto, '_');
    if (us) {
        snprintf(algo, sizeof algo, "%.*s", (int)(us - lb->algo_proto), lb->algo_proto);
        snprintf(proto, sizeof proto, "%s", us + 1);
    }
    uint8_t coll = (uint8_t)tc_nccl_coll_of(lb->collective);
    if (log->n_proms && log->proms[log->n_proms - 1].file == file) {
        tc_nccl_prom *last = &log->proms[log->n_proms - 1];
        if (last->coll == coll && last->size_lo == lo && last->n_ranks == nr && !strcmp(last->comm_name, lb->comm_name) &&
            !strcmp(last->algorithm, algo) && !strcmp(last->protocol, proto) && (bus ? last->busbw_GBps : last->exec_us) < 0) {
            *(bus ? &last->busbw_GBps : &last->exec_us) = v;
            return NULL;
        }
    }
    tc_nccl_prom row;
    memset(&row, 0, sizeof row);
    snprintf(row.comm_name, sizeof row.comm_name, "%s", lb->comm_name);
    snprintf(row.node, sizeof row.node, "%s", lb->node);
    memcpy(row.algorithm, algo, sizeof algo);
    memcpy(row.protocol, proto, sizeof proto);
    row.size_lo = lo;
    row.size_hi = hi;
    row.busbw_GBps = bus ? v : -1;
    row.exec_us = bus ? -1 : v;
    row.n_ranks = (int32_t)nr;
    row.n_nodes = (int32_t)nn;
    row.file = (uint16_t)file;
    row.coll = coll;
    char *gpu_end;
    long dev = strncmp(lb->gpu, "GPU", 3) == 0 ? strtol(lb->gpu + 3, &gpu_end, 10) : -1;
    row.device = dev >= 0 && lb->gpu[3] && !*gpu_end ? (int32_t)dev : -1;
    return TC_PUSH(log->proms, log->n_proms, log->cap_proms, row) ? "" : NULL;
}

/* One line (without its newline) at byte offset at. 0, or -1 out of memory. */
static int take_line(const char *path, tc_nccl_log *log, size_t file, tc_notes *notes, const char *s, const char *e,
                     uint64_t at) {
    while (e > s && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t')) e--;
    while (s < e && (*s == ' ' || *s == '\t')) s++;
    if (s >= e || *s == '#') return 0;
    const char *name = s;
    while (s < e && *s != '{' && *s != ' ') s++;
    size_t nn = (size_t)(s - name);
    prom_labels lb;
    memset(&lb, 0, sizeof lb);
    const char *why = NULL;
    if (s < e && *s == '{' && !labels(&s, e, &lb)) why = "labels that cannot be read";
    char num[64];
    size_t k = 0;
    while (s < e && *s == ' ') s++;
    while (!why && s < e && *s != ' ' && k + 1 < sizeof num) num[k++] = *s++;
    num[k] = '\0';
    char *end;
    errno = 0;
    double v = why ? 0 : strtod(num, &end);
    if (!why && (!k || *end || errno == ERANGE)) why = "no number after the labels";
    bool bus = nn == 22 && memcmp(name, "nccl_bus_bandwidth_gbs", nn) == 0;
    bool exec = nn == 38 && memcmp(name, "nccl_collective_exec_time_microseconds", nn) == 0;
    if (!why && (bus || exec) && isfinite(v)) why = take_row(log, file, &lb, bus, v);
    if (why && !why[0]) return -1;
    if (!why && nn >= 5 && memcmp(name, "nccl_", 5) != 0) why = "not an NCCL Inspector metric";
    if (why) {
        log->files[file].skipped++;
        tc_notes_add(notes, TC_NOTE_DAMAGED, path, "%s: byte %llu: not an NCCL Inspector Prometheus line (%s): line skipped",
                     path, (unsigned long long)at, why);
    } else if (!bus && !exec) {
        log->files[file].prom_other++; /* p2p buckets, per-device totals */
    }
    return 0;
}

tc_status tc_nccl_prom_read(const char *path, FILE *fp, size_t file, tc_nccl_log *log, tc_notes *notes, tc_error *e) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    uint64_t at = 0;
    tc_status st = TC_OK;
    size_t before = log->n_proms;
    while ((got = getline(&line, &cap, fp)) > 0) {
        const char *end = line + got;
        if (end[-1] == '\n') end--;
        if (take_line(path, log, file, notes, line, end, at)) { st = tc_error_set(e, TC_ERR_NOMEM, "out of memory"); break; }
        at += (uint64_t)got;
    }
    if (st == TC_OK && ferror(fp)) st = tc_error_set(e, TC_ERR_INPUT, "%s: read error: %s", path, strerror(errno));
    free(line);
    log->files[file].records = log->n_proms - before;
    return st;
}
