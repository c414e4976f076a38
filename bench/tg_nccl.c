/* tg_nccl.c: --nccl-inspector and --nccl-plugin-trace (below). --nccl-inspector: the NCCL Inspector logs of the planted job (docs/nccl.md), one
 * DIR/node<N>-pid<P>.log per rank as NCCL's Inspector plugin names them (rank 0's pretty-printed,
 * the others one object per line), and DIR/nccl_expected.json, the truth: per process group the
 * records joined, below the size floor, dropped and CPU-timed (summed over its ranks), NCCL's busbw
 * = Σ S·factor / Σ coll_exec_time_us over the joined records, and the records written before the
 * traced window. The mess of real logs: two records per communicator and kind from before the
 * profiler window, collectives under NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES (8192) not written, about
 * one in 13 of the others dropped (the ring buffer), one in 31 timed on the CPU (kernel_cpu),
 * exec times rounded to whole µs, each record dumped 1 to 200 µs after its kernel ended (the
 * rank's clock). */
#include "tracegen.h"
#include <math.h>

#define NCCL_FLOOR 8192
#define NCCL_PRE 2 /* records per communicator and kind from before the traced window */

typedef struct { const char *algo, *proto; int ch; } plug_mix;
#define MAX_TRUTH_MIX 8
/* per group: the records planted; v4.2 (--nccl-inspector-v42): the joined records' choices, the ring's drops */
typedef struct {
  int64_t joined, below, dropped, cpu; double sf, us;
  int64_t n_mix; plug_mix mix[MAX_TRUTH_MIX]; int64_t mix_n[MAX_TRUTH_MIX];
} grp_truth;

static void mix_count(plug_mix *mix, int64_t *mix_n, int64_t *n_mix, plug_mix m) {
  int64_t k = 0;
  while (k < *n_mix && !(mix[k].ch == m.ch && !strcmp(mix[k].algo, m.algo) && !strcmp(mix[k].proto, m.proto))) k++;
  if (k == *n_mix) { if (k == MAX_TRUTH_MIX) die("more than %d planted mixes", MAX_TRUTH_MIX); mix[(*n_mix)++] = m; }
  mix_n[k]++;
}

static plug_mix mix_for(const options *o, const pgroup *g, const collinfo *ci, int alt);

/* --nccl-exec-with-wait: every record written, for nccl_alone_expected.json (the logs alone). */
typedef struct { int gi, coll, grank, cpu, last; int64_t sn, us, bytes; double sf; } alone_rec;
typedef struct { alone_rec *v; size_t n, cap; } alone_recs;

static void alone_add(alone_recs *a, alone_rec r) {
  if (!a) return;
  if (a->n == a->cap) a->v = xrealloc(a->v, a->cap = a->cap ? 2 * a->cap : 256, sizeof *a->v);
  a->v[a->n++] = r;
}

static const char *coll_word(int coll) {
  return coll == CT_ALLGATHER ? "AllGather" : coll == CT_REDUCESCATTER ? "ReduceScatter" : "AllReduce";
}

/* What the Inspector writes as coll_msg_size_bytes: count x the datatype's size, NCCL's count being per
 * rank for AllGather and ReduceScatter (plugins/profiler/inspector/inspector_plugin.cc; its busbw takes
 * S = that x n_ranks), S for the others. The size floor is held to the same figure. */
static long long inspector_bytes(const pgroup *g, const collinfo *ci) {
  return ci->coll == CT_ALLGATHER || ci->coll == CT_REDUCESCATTER ? ci->bytes / g->size : ci->bytes;
}

static int cmp_rec(const void *a, const void *b) {
  const grec *x = *(const grec *const *)a, *y = *(const grec *const *)b;
  if (x->real_group != y->real_group) return x->real_group < y->real_group ? -1 : 1;
  if (x->ci->coll != y->ci->coll) return x->ci->coll < y->ci->coll ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The rank's collectives on a known group, by group, kind and sequence (*n of them; free it). */
static const grec **comm_records(const rw_t *w, size_t *n) {
  const grec **v = xcalloc(w->rec.n ? w->rec.n : 1, sizeof *v);
  *n = 0;
  for (size_t i = 0; i < w->rec.n; i++)
    if (w->rec.v[i].cls == REC_COMM && w->rec.v[i].ci && w->rec.v[i].real_group >= 0) v[(*n)++] = &w->rec.v[i];
  qsort(v, *n, sizeof *v, cmp_rec);
  return v;
}

static void record(FILE *f, int pretty, const pgroup *g, int gi, int grank, const char *host, int64_t pid,
                   const collinfo *ci, int64_t sn, int64_t us, int cpu, int64_t ts_us) {
  const char *nl = pretty ? "\n" : "", *i1 = pretty ? "  " : "", *i2 = pretty ? "    " : "", *sp = pretty ? " " : "";
  double algbw = us > 0 ? (double)ci->bytes / (double)us / 1e3 : 0, busbw = us > 0 ? ci->sf / (double)us / 1e3 : 0;
  fprintf(f, "{%s%s\"header\":%s{%s%s\"id\":%s\"0x%llx\",%s%s\"rank\":%s%d,%s%s\"n_ranks\":%s%d,%s%s\"nnodes\":%s%d%s%s},%s",
          nl, i1, sp, nl, i2, sp, 0x7f8c496ae9f600ULL + 0x1111ULL * (unsigned)gi, nl, i2, sp, grank, nl, i2, sp,
          g->size, nl, i2, sp, g->nodes, nl, i1, nl);
  fprintf(f, "%s\"metadata\":%s{%s%s\"inspector_output_format_version\":%s\"v4.0\",%s%s\"git_rev\":%s\"\",%s%s"
             "\"rec_mechanism\":%s\"nccl_profiler_interface\",%s%s\"dump_timestamp_us\":%s%lld,%s%s\"hostname\":%s\"%s\",%s%s"
             "\"pid\":%s%lld%s%s},%s",
          i1, sp, nl, i2, sp, nl, i2, sp, nl, i2, sp, nl, i2, sp, (long long)ts_us, nl, i2, sp, host, nl, i2, sp,
          (long long)pid, nl, i1, nl);
  fprintf(f, "%s\"coll_perf\":%s{%s%s\"coll\":%s\"%s\",%s%s\"coll_sn\":%s%lld,%s%s\"coll_msg_size_bytes\":%s%lld,%s%s"
             "\"coll_exec_time_us\":%s%lld,%s%s\"coll_timing_source\":%s\"%s\",%s%s\"coll_algobw_gbs\":%s%.6f,%s%s"
             "\"coll_busbw_gbs\":%s%.6f%s%s}%s}\n",
          i1, sp, nl, i2, sp, coll_word(ci->coll), nl, i2, sp, (long long)sn, nl, i2, sp, inspector_bytes(g, ci), nl, i2, sp,
          (long long)us, nl, i2, sp, cpu ? "kernel_cpu" : "kernel_gpu", nl, i2, sp, algbw, nl, i2, sp, busbw, nl, i1, nl);
}

/* A record in format v4.2, one line: header.comm_name, coll_algo / coll_proto, and with `verbose` the
 * event traces (one kernel_events entry per channel, m.ch of them). */
static void record_v42(FILE *f, const pgroup *g, int gi, int grank, const char *host, int64_t pid, const collinfo *ci,
                       int64_t sn, int64_t us, int cpu, int64_t ts_us, plug_mix m, int verbose) {
  fprintf(f, "{\"header\":{\"id\":\"0x%llx\",\"comm_name\":\"%s\",\"rank\":%d,\"n_ranks\":%d,\"nnodes\":%d},"
             "\"metadata\":{\"inspector_output_format_version\":\"v4.2\",\"git_rev\":\"\",\"rec_mechanism\":"
             "\"nccl_profiler_interface\",\"dump_timestamp_us\":%lld,\"hostname\":\"%s\",\"pid\":%lld},",
          0x7f8c496ae9f600ULL + 0x1111ULL * (unsigned)gi, "unknown", grank, g->size, g->nodes, (long long)ts_us, host, (long long)pid);
  if (!ci) { /* a dump_stats record: `sn` the records of this dump, `us` the ring's drops since the last */
    fprintf(f, "\"dump_stats\":{\"coll_records\":%lld,\"coll_dropped_total\":%lld,\"coll_dropped_since_last_dump\":%lld,"
               "\"p2p_records\":0,\"p2p_dropped_total\":0,\"p2p_dropped_since_last_dump\":0}}\n", (long long)sn, (long long)us,
            (long long)us);
    return;
  }
  double algbw = us > 0 ? (double)ci->bytes / (double)us / 1e3 : 0, busbw = us > 0 ? ci->sf / (double)us / 1e3 : 0;
  fprintf(f, "\"coll_perf\":{\"coll\":\"%s\",\"coll_algo\":\"%s\",\"coll_proto\":\"%s\",\"coll_sn\":%lld,"
             "\"coll_msg_size_bytes\":%lld,\"coll_exec_time_us\":%lld,\"coll_timing_source\":\"%s\",\"coll_algobw_gbs\":%.6f,"
             "\"coll_busbw_gbs\":%.6f", coll_word(ci->coll), m.algo, m.proto, (long long)sn, inspector_bytes(g, ci), (long long)us,
          cpu ? "kernel_cpu" : "kernel_gpu", algbw, busbw);
  if (verbose) {
    fprintf(f, ",\"event_trace_sn\":{\"coll_start_sn\":%lld,\"coll_stop_sn\":%lld,\"kernel_events\":[", (long long)sn * 9,
            (long long)sn * 9 + 8);
    for (int ch = 0; ch < m.ch; ch++)
      fprintf(f, "%s{\"channel_id\":%d,\"kernel_start_sn\":%lld,\"kernel_stop_sn\":%lld,\"kernel_record_sn\":%lld}", ch ? "," : "", ch,
              (long long)sn * 9 + 1, (long long)sn * 9 + 2, (long long)sn * 9 + 3);
    fprintf(f, "]},\"event_trace_ts\":{\"coll_start_ts\":%lld,\"coll_stop_ts\":%lld,\"kernel_events\":[", (long long)(ts_us - us - 9),
            (long long)ts_us - 1);
    for (int ch = 0; ch < m.ch; ch++)
      fprintf(f, "%s{\"channel_id\":%d,\"kernel_start_ts\":%lld,\"kernel_stop_ts\":%lld,\"kernel_record_ts\":%lld}", ch ? "," : "", ch,
              (long long)(ts_us - us - 5 + ch % 3), (long long)(ts_us - 5 + ch % 3), (long long)(ts_us - 4 + ch % 3));
    fprintf(f, "]}");
  }
  fprintf(f, "}}\n");
}

/* One rank's log; adds what it plants to t (per group). Returns the records written before the window. */
static int64_t write_log(const ctx_t *c, const rw_t *w, int r, grp_truth *t, alone_recs *ar) {
  char host[32], path[4096];
  snprintf(host, sizeof host, "node%d", r / c->o.gpn);
  snprintf(path, sizeof path, "%s/%s-pid%lld.log", c->o.outdir, host, (long long)c->pid[r]);
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s", path);
  size_t n;
  const grec **v = comm_records(w, &n);
  int64_t pre = 0;
  for (size_t a = 0, b; a < n; a = b) {
    for (b = a + 1; b < n && v[b]->real_group == v[a]->real_group && v[b]->ci->coll == v[a]->ci->coll; b++) {}
    int gi = v[a]->real_group;
    const pgroup *g = &c->groups[gi];
    int grank = 0;
    while (grank < g->size && g->ranks[grank] != r) grank++;
    int64_t sn0 = 100 + 7 * gi; /* NCCL's count of the kind before the window */
    int64_t with_wait = c->o.nccl_exec_wait; /* NCCL's GPU timer: the whole kernel, wait included */
    int v42 = c->o.nccl_inspector == 2, verbose = v42 && r == 1;
    if (inspector_bytes(g, v[a]->ci) >= NCCL_FLOOR)
      for (int k = 0; k < NCCL_PRE; k++, pre++) {
        int64_t us = llround((double)(v[a]->d - (with_wait ? 0 : v[a]->wait)) / 1e3), ts = (v[a]->t - 100 * MS + w->off) / US;
        if (v42) record_v42(f, g, gi, grank, host, c->pid[r], v[a]->ci, sn0 - NCCL_PRE + k, us, 0, ts, mix_for(&c->o, g, v[a]->ci, 0), verbose);
        else record(f, r == 0, g, gi, grank, host, c->pid[r], v[a]->ci, sn0 - NCCL_PRE + k, us, 0, ts);
        alone_add(ar, (alone_rec){gi, v[a]->ci->coll, grank, 0, v[a]->wait == 0, sn0 - NCCL_PRE + k, us, v[a]->ci->bytes, v[a]->ci->sf});
      }
    int64_t written = 0, lost = 0, last_ts = 0;
    for (size_t i = a; i < b; i++) {
      const grec *e = v[i];
      int64_t k = (int64_t)(i - a), us = llround((double)(e->d - (with_wait ? 0 : e->wait)) / 1e3);
      uint64_t h = h4(c->o.seed ^ 0x6e63636cULL, (uint64_t)r, (uint64_t)gi * 8 + (uint64_t)e->ci->coll, (uint64_t)k);
      if (inspector_bytes(g, e->ci) < NCCL_FLOOR) { t[gi].below++; continue; }
      if (h % 13 == 0) { t[gi].dropped++; lost++; continue; }
      int cpu = h % 31 == 5;
      plug_mix m = mix_for(&c->o, g, e->ci, h % 5 == 1);
      int64_t ts = (e->t + e->d + w->off) / US + 1 + (int64_t)(h % 200);
      if (v42) record_v42(f, g, gi, grank, host, c->pid[r], e->ci, sn0 + k, us, cpu, ts, m, verbose);
      else record(f, r == 0, g, gi, grank, host, c->pid[r], e->ci, sn0 + k, us, cpu, ts);
      alone_add(ar, (alone_rec){gi, e->ci->coll, grank, cpu, e->wait == 0, sn0 + k, us, e->ci->bytes, e->ci->sf});
      written++;
      last_ts = ts;
      if (cpu) { t[gi].cpu++; continue; }
      t[gi].joined++;
      t[gi].sf += e->ci->sf;
      t[gi].us += (double)us;
      if (v42) mix_count(t[gi].mix, t[gi].mix_n, &t[gi].n_mix, (plug_mix){m.algo, m.proto, verbose ? m.ch : -1});
    }
    if (v42 && (written || lost)) /* the dump's stats record: its records and the ring's drops */
      record_v42(f, g, gi, grank, host, c->pid[r], NULL, written, lost, 0, last_ts + 1, mix_for(&c->o, g, v[a]->ci, 0), 0);
  }
  free(v);
  if (fclose(f)) die("cannot write %s", path);
  return pre;
}

static int cmp_alone(const void *a, const void *b) {
  const alone_rec *x = a, *y = b;
  if (x->gi != y->gi) return x->gi - y->gi;
  if (x->coll != y->coll) return x->coll - y->coll;
  if (x->sn != y->sn) return x->sn < y->sn ? -1 : 1;
  return x->grank - y->grank;
}

/* nccl_alone_expected.json: per communicator (header.id) what its records alone plant: records,
 * CPU-timed, busbw = Σ S·factor / Σ exec µs over the GPU-timed ones, per message size the same; of
 * the collectives with the GPU-timed record of every rank, those whose last arrival (the rank the
 * plant gives no wait) has the strictly shortest rounded exec (decided), each rank's count of them
 * and the others' extra µs charged to it; and the --straggler rank's place in it (or null). */
static void write_alone_truth(const ctx_t *c, alone_recs *ar) {
  qsort(ar->v, ar->n, sizeof *ar->v, cmp_alone);
  char path[4096];
  snprintf(path, sizeof path, "%s/nccl_alone_expected.json", c->o.outdir);
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s", path);
  fprintf(f, "{\"communicators\": {");
  for (int gi = 0, first = 1; gi < c->ngroups; gi++) {
    const pgroup *g = &c->groups[gi];
    int64_t recs = 0, cpu = 0, decided = 0, complete = 0, *last = xcalloc((size_t)g->size, sizeof *last);
    int64_t *caused = xcalloc((size_t)g->size, sizeof *caused);
    double sf = 0, us = 0;
    int64_t sizes[16][3] = {{0}}; /* bytes, records, us */
    double size_sf[16] = {0};
    int n_sizes = 0;
    for (size_t a = 0, b; a < ar->n; a = b) {
      for (b = a + 1; b < ar->n && ar->v[b].gi == ar->v[a].gi && ar->v[b].coll == ar->v[a].coll && ar->v[b].sn == ar->v[a].sn; b++) {}
      if (ar->v[a].gi != gi) continue;
      int n_gpu = 0, lastr = -1;
      for (size_t i = a; i < b; i++) {
        const alone_rec *x = &ar->v[i];
        recs++;
        if (x->cpu) { cpu++; continue; }
        n_gpu++;
        sf += x->sf;
        us += (double)x->us;
        int64_t bytes = x->bytes;
        int k = 0;
        while (k < n_sizes && sizes[k][0] != bytes) k++;
        if (k == n_sizes) { if (n_sizes == 16) die("more than 16 planted sizes"); sizes[n_sizes++][0] = bytes; }
        sizes[k][1]++;
        sizes[k][2] += x->us;
        size_sf[k] += x->sf;
        if (x->last) lastr = (int)(i - a);
      }
      if (n_gpu != g->size || (int64_t)(b - a) != g->size || lastr < 0) continue;
      complete++;
      int64_t low = ar->v[a + (size_t)lastr].us, charged = 0;
      int alone = 1;
      for (size_t i = a; i < b; i++) {
        if (i != a + (size_t)lastr && ar->v[i].us <= low) alone = 0;
        charged += ar->v[i].us - low;
      }
      if (!alone) continue;
      decided++;
      last[ar->v[a + (size_t)lastr].grank]++;
      caused[ar->v[a + (size_t)lastr].grank] += charged;
    }
    if (!recs) { free(last); free(caused); continue; }
    int strag = -1;
    for (int k = 0; k < g->size; k++)
      if (g->ranks[k] == c->o.straggler) strag = k;
    fprintf(f, "%s\n  \"0x%llx\": {\"group\": \"%s\", \"n_ranks\": %d, \"nnodes\": %d, \"records\": %lld, \"cpu_timed\": %lld, "
               "\"busbw_GBps\": %.17g, \"complete\": %lld, \"decided\": %lld, \"planted_straggler_rank\": ",
            first ? "" : ",", 0x7f8c496ae9f600ULL + 0x1111ULL * (unsigned)gi, g->name, g->size, g->nodes, (long long)recs,
            (long long)cpu, us > 0 ? sf / us / 1e3 : 0, (long long)complete, (long long)decided);
    if (strag >= 0) fprintf(f, "%d", strag); else fprintf(f, "null");
    fprintf(f, ", \"last\": [");
    for (int k = 0; k < g->size; k++) fprintf(f, "%s%lld", k ? ", " : "", (long long)last[k]);
    fprintf(f, "], \"caused_wait_us\": [");
    for (int k = 0; k < g->size; k++) fprintf(f, "%s%lld", k ? ", " : "", (long long)caused[k]);
    fprintf(f, "], \"sizes\": [");
    for (int k = 0; k < n_sizes; k++)
      fprintf(f, "%s{\"bytes\": %lld, \"records\": %lld, \"busbw_GBps\": %.17g}", k ? ", " : "", (long long)sizes[k][0],
              (long long)sizes[k][1], size_sf[k] / (double)sizes[k][2] / 1e3);
    fprintf(f, "]}");
    first = 0;
    free(last);
    free(caused);
  }
  fprintf(f, "\n}}\n");
  if (fclose(f)) die("cannot write %s", path);
}

void write_nccl_inspector(const ctx_t *c, rw_t *const *ws) {
  grp_truth *t = xcalloc((size_t)c->ngroups, sizeof *t);
  int64_t pre = 0;
  alone_recs ar = {0};
  for (int r = 0; r < c->o.ranks; r++) pre += write_log(c, ws[r], r, t, c->o.nccl_exec_wait ? &ar : NULL);
  if (c->o.nccl_exec_wait) write_alone_truth(c, &ar);
  free(ar.v);
  char path[4096];
  snprintf(path, sizeof path, "%s/nccl_expected.json", c->o.outdir);
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s", path);
  fprintf(f, "{\"min_size_bytes\": %d, \"records_outside_trace\": %lld, \"groups\": {", NCCL_FLOOR, (long long)pre);
  for (int g = 0; g < c->ngroups; g++) {
    const grp_truth *x = &t[g];
    fprintf(f, "%s\n  \"%s\": {\"joined\": %lld, \"below_min_size\": %lld, \"dropped\": %lld, \"cpu_timed\": %lld, "
               "\"busbw_GBps\": ", g ? "," : "", c->groups[g].name, (long long)x->joined, (long long)x->below,
            (long long)x->dropped, (long long)x->cpu);
    if (x->us > 0) fprintf(f, "%.17g", x->sf / x->us / 1e3); else fprintf(f, "null");
    fprintf(f, ", \"inspector_mix\": [");
    for (int64_t k = 0; k < x->n_mix; k++) {
      fprintf(f, "%s{\"algorithm\": \"%s\", \"protocol\": \"%s\", \"channels\": ", k ? ", " : "", x->mix[k].algo, x->mix[k].proto);
      if (x->mix[k].ch >= 0) fprintf(f, "%d", x->mix[k].ch); else fprintf(f, "null");
      fprintf(f, ", \"records\": %lld}", (long long)x->mix_n[k]);
    }
    fprintf(f, "]}");
  }
  fprintf(f, "\n}}\n");
  if (fclose(f)) die("cannot write %s", path);
  free(t);
}

/* ---- --nccl-plugin-trace ------------------------------------------------------------------------
 * The example profiler plugin's trace of the planted job (NCCL 2.27+: one file per communicator and
 * rank, DIR/nccl_profile_<commHash>_<rank>.json, a JSON array of events, each "b" with its "e",
 * ending in "{}]"), and DIR/nccl_plugin_expected.json, the truth: per process group the COLL
 * records joined and dropped (summed over its ranks) and the algorithm/protocol/channels mix of the
 * joined ones. Rank 0 writes the older spelling (unquoted datatype and bare stream pointers in its
 * COLL_API and KERNEL_LAUNCH events). The mess: NCCL_PRE COLL records per communicator and kind
 * from before the traced window, about one in 11 of the others lost (the plugin's event pool). */

/* proxy steps planted: steps whose last state ended, time per class (gpu, peer, net, other; ns) */
typedef struct { int64_t steps; double ns[4]; } px_truth;
typedef struct {
  int64_t joined, dropped, n_mix; plug_mix mix[MAX_TRUTH_MIX]; int64_t mix_n[MAX_TRUTH_MIX];
  px_truth px;
} plug_truth;

/* What NCCL would choose for ci on g (planted, not NCCL's tuner); alt: one in 5, another choice
 * (channels halved on the node, Ring/LL128 across nodes), so groups have a mix of rows; --nccl-inter-mix
 * sets the main choice across nodes for messages of 1 MiB or more. */
static plug_mix mix_for(const options *o, const pgroup *g, const collinfo *ci, int alt) {
  if (alt) return g->nodes <= 1 ? (plug_mix){"Ring", "Simple", 8} : (plug_mix){"Ring", "LL128", 4};
  if (g->nodes <= 1) return ci->bytes >= (1 << 20) ? (plug_mix){"Ring", "Simple", 16} : (plug_mix){"Ring", "LL", 4};
  if (o->inter_ch && ci->bytes >= (1 << 20)) return (plug_mix){o->inter_algo, o->inter_proto, o->inter_ch};
  if (ci->coll == CT_ALLREDUCE && ci->bytes >= (1 << 20)) return (plug_mix){"Tree", "Simple", 8};
  return (plug_mix){"Ring", "LL128", 2};
}

static void truth_add(plug_truth *t, plug_mix m) {
  mix_count(t->mix, t->mix_n, &t->n_mix, m);
  t->joined++;
}

/* A NET step state: "b" at ts, "e" at ts + us (lost: no "e"); *at moves on by us. */
static void net_state(FILE *f, const char *name, int id, long long pid, double *at, int us, int lost) {
  fprintf(f, "{\"name\": \"%s\", \"cat\": \"NET\", \"ph\": \"b\", \"id\": %d, \"pid\": %lld, \"tid\": 1, \"ts\": %f, "
             "\"args\": {\"Step\": %d}},\n", name, id, pid, *at, id % 8);
  *at += us;
  if (!lost) fprintf(f, "{\"name\": \"%s\", \"cat\": \"NET\", \"ph\": \"e\", \"id\": %d, \"pid\": %lld, \"tid\": 1, \"ts\": %f},\n",
                     name, id, pid, *at);
}

/* The proxy ops of one collective on a network group: a send op and a receive op on channel 0, 2
 * steps each, their NET step states as the plugin writes them (2.27+: SendGpuWait, SendPeerWait,
 * SendWait / RecvWait, RecvFlushWait, RecvGpuWait; older: SendBufferWait, SendGpuWait, SendWait /
 * RecvBufferWait, RecvWait, RecvFlushWait, RecvGpuWait), whole-µs states from ts; adds what it
 * writes to px. The mess: about one step in 9 loses its last state's "e" (not counted). */
static void plug_proxy(FILE *f, int old, long long pid, int *step_id, double ts, uint64_t h, px_truth *px) {
  static const char *const send_new[] = {"SendGpuWait", "SendPeerWait", "SendWait"};
  static const char *const recv_new[] = {"RecvWait", "RecvFlushWait", "RecvGpuWait"};
  static const char *const send_old[] = {"SendBufferWait", "SendGpuWait", "SendWait"};
  static const char *const recv_old[] = {"RecvBufferWait", "RecvWait", "RecvFlushWait", "RecvGpuWait"};
  static const int send_cls_new[] = {0, 1, 2}, recv_cls_new[] = {2, 3, 0}, send_cls_old[] = {3, 0, 2}, recv_cls_old[] = {3, 2, 3, 0};
  for (int dir = 0; dir < 2; dir++) {
    const char *op = old ? (dir ? "Recv" : "Send") : (dir ? "ScheduleRecv" : "ScheduleSend");
    double at = ts + 10 + 40 * dir;
    fprintf(f, "{\"name\": \"%s\", \"cat\": \"PROXY\", \"ph\": \"b\", \"id\": %d, \"pid\": %lld, \"tid\": 1, \"ts\": %f, "
               "\"args\": {\"Channel\": 0, \"Peer\": 1, \"Steps\": 2, \"ChunkSize\": 524288, \"transSize\": 1048576%s}},\n",
            op, *step_id, pid, at, old ? ", \"POSTED\": {\"step\": 2, \"ts\": 0.000000}, \"DONE\": {\"step\": 2, \"ts\": 0.000000}" : "");
    if (!old) {
      fprintf(f, "{\"name\": \"%s\", \"cat\": \"PROXY\", \"ph\": \"e\", \"id\": %d, \"pid\": %lld, \"tid\": 1, \"ts\": %f},\n", op,
              *step_id, pid, at + 1);
      op = dir ? "ProgressRecv" : "ProgressSend";
      fprintf(f, "{\"name\": \"%s\", \"cat\": \"PROXY\", \"ph\": \"b\", \"id\": %d, \"pid\": %lld, \"tid\": 1, \"ts\": %f, "
                 "\"args\": {\"Channel\": 0, \"Peer\": 1, \"Steps\": 2, \"ChunkSize\": 524288, \"transSize\": 1048576}},\n",
              op, *step_id, pid, at + 1);
    }
    for (int st = 0; st < 2; st++) {
      uint64_t g = h4(h, (uint64_t)dir, (uint64_t)st, 0x9e7);
      int lost = g % 9 == 4;
      const char *const *names = dir ? (old ? recv_old : recv_new) : (old ? send_old : send_new);
      const int *cls = dir ? (old ? recv_cls_old : recv_cls_new) : (old ? send_cls_old : send_cls_new);
      int n = dir && old ? 4 : 3;
      for (int k = 0; k < n; k++) {
        int us = 1 + (int)((g >> (8 * k)) % 9) + (cls[k] == 1 ? 6 : 0); /* the peer waits longest */
        int l = lost && k == n - 1;
        net_state(f, names[k], *step_id, pid, &at, us, l);
        if (!l && px) px->ns[cls[k]] += us * 1e3;
      }
      if (!lost && px) px->steps++;
      (*step_id)++;
    }
    fprintf(f, "{\"name\": \"%s\", \"cat\": \"PROXY\", \"ph\": \"e\", \"id\": %d, \"pid\": %lld, \"tid\": 1, \"ts\": %f},\n",
            old ? op : dir ? "ProgressRecv" : "ProgressSend", *step_id, pid, at + 1);
  }
}

/* One collective's events: its COLL_API and KERNEL_LAUNCH (old spelling: bare values; not in the
 * pre-2.27 format, which has neither), the COLL with SeqNum, CommHash, Rank, Count, Datatype
 * (pre-2.27 format: its number), Algorithm, Protocol, nChannels (nMaxChannels), and on a group
 * across nodes its proxy steps (px: where they are counted, NULL not counted). */
static void plug_events(FILE *f, int old, int fmt, int64_t pid, int id, double ts, uint64_t hash, int grank, const pgroup *g,
                        const collinfo *ci, int64_t sn, plug_mix m, uint64_t h, int *step_id, px_truth *px) {
  const char *word = coll_word(ci->coll), *q = old ? "" : "\"";
  int es = ci->bytes % (2LL * g->size) == 0 ? 2 : 1;
  long long count = (long long)(ci->bytes / es / (ci->coll == CT_ALLREDUCE ? 1 : g->size));
  const char *dt = es == 2 ? "ncclBfloat16" : "ncclUint8";
  if (!fmt) {
    fprintf(f, "{\"name\": \"%s\", \"cat\": \"COLL_API\", \"ph\": \"b\", \"id\": %d, \"pid\": %lld, \"tid\": 1, \"ts\": %f, \"args\": "
               "{\"count\": %lld, \"datatype\": %s%s%s, \"root\": 0, \"GraphCaptured\": 0, \"Stream\": %s0x7f3a%08x%s}},\n",
            word, id, (long long)pid, ts, count, q, dt, q, q, 0x1000u * (unsigned)ci->stream, q);
    fprintf(f, "{\"name\": \"KernelLaunch\", \"cat\": \"KERNEL_LAUNCH\", \"ph\": \"b\", \"id\": %d, \"pid\": %lld, \"tid\": 1, "
               "\"ts\": %f, \"args\": {\"groupId\": %d, \"Stream\": %s0x7f3a%08x%s}},\n",
            id, (long long)pid, ts + 2, id, q, 0x1000u * (unsigned)ci->stream, q);
  }
  char dtype[24];
  if (fmt) snprintf(dtype, sizeof dtype, "%d", es == 2 ? 9 : 1); /* ncclBfloat16 = 9, ncclUint8 = 1 */
  else snprintf(dtype, sizeof dtype, "\"%s\"", dt);
  if (fmt) fprintf(f, "{\"name\": \"Group\", \"cat\": \"GROUP\", \"ph\": \"b\", \"id\": %d, \"pid\": %lld, \"tid\": 1, \"ts\": %f, "
                      "\"args\": {\"groupId\": %d}},\n", id, (long long)pid, ts, id);
  fprintf(f, "{\"name\": \"%s\", \"cat\": \"COLL\", \"ph\": \"b\", \"id\": %d, \"pid\": %lld, \"tid\": 1, \"ts\": %f, \"args\": "
             "{\"SeqNum\": %lld, \"CommHash\": %llu, \"Rank\": %d, \"Count\": %lld, \"Datatype\": %s, \"Algorithm\": \"%s\", "
             "\"Protocol\": \"%s\", \"%s\": %d}},\n",
          word, id, (long long)pid, ts + 5, (long long)sn, (unsigned long long)hash, grank, count, dtype, m.algo, m.proto,
          fmt ? "nMaxChannels" : "nChannels", m.ch);
  if (g->nodes > 1) plug_proxy(f, fmt, (long long)pid, step_id, ts + 5, h, px);
  fprintf(f, "{\"name\": \"%s\", \"cat\": \"COLL\", \"ph\": \"e\", \"id\": %d, \"pid\": %lld, \"tid\": 1, \"ts\": %f},\n", word, id,
          (long long)pid, ts + 150);
  if (fmt) fprintf(f, "{\"name\": \"Group\", \"cat\": \"GROUP\", \"ph\": \"e\", \"id\": %d, \"pid\": %lld, \"tid\": 1, \"ts\": %f},\n",
                   id, (long long)pid, ts + 151);
}

/* The plugin's time of trace time t (ns): µs since its start, on the rank's clock. */
static double plug_ts(const rw_t *w, int64_t t) { return (double)(t + w->off - 1717171700000000000LL) / 1e3; }

/* Rank r's files, one per communicator it is in; adds what it plants to t. Returns the records
 * written before the window. */
static int64_t write_plugin_rank(const ctx_t *c, const rw_t *w, int r, plug_truth *t) {
  size_t n;
  const grec **v = comm_records(w, &n);
  int64_t pre = 0;
  for (size_t a = 0, b; a < n; a = b) {
    int gi = v[a]->real_group;
    for (b = a + 1; b < n && v[b]->real_group == gi; b++) {}
    const pgroup *g = &c->groups[gi];
    int grank = 0;
    while (grank < g->size && g->ranks[grank] != r) grank++;
    uint64_t hash = 0x7f8c496ae9f600ULL + 0x1111ULL * (unsigned)gi;
    char path[4096];
    int fmt = c->o.nccl_plugin == 2, old = r == 0 && !fmt, step_id = 0;
    if (fmt) /* before 2.27: PREFIX-<hostname>-<tid>.txt, one per communicator's finalizing thread */
      snprintf(path, sizeof path, "%s/nccl_profile-node%d.cluster-%lld.txt", c->o.outdir, r / c->o.gpn,
               (long long)c->pid[r] + 1 + gi);
    else snprintf(path, sizeof path, "%s/nccl_profile_%llu_%d.json", c->o.outdir, (unsigned long long)hash, grank);
    FILE *f = fopen(path, "w");
    if (!f) die("cannot write %s", path);
    fprintf(f, "[\n");
    int id = 0;
    for (size_t k0 = a, k1; k0 < b; k0 = k1) { /* one kind */
      for (k1 = k0 + 1; k1 < b && v[k1]->ci->coll == v[k0]->ci->coll; k1++) {}
      int64_t sn0 = 40 + 3 * gi;
      for (int k = 0; k < NCCL_PRE; k++, pre++) /* their proxy steps are not the window's: not counted */
        plug_events(f, old, fmt, c->pid[r], id++, plug_ts(w, v[k0]->t - 250 * MS - 11 * MS * k), hash, grank, g, v[k0]->ci,
                    sn0 - NCCL_PRE + k, mix_for(&c->o, g, v[k0]->ci, 0), (uint64_t)k, &step_id, NULL);
      for (size_t i = k0; i < k1; i++) {
        const grec *e = v[i];
        int64_t k = (int64_t)(i - k0);
        uint64_t h = h4(c->o.seed ^ 0x706c7567ULL, (uint64_t)r, (uint64_t)gi * 8 + (uint64_t)e->ci->coll, (uint64_t)k);
        if (h % 11 == 3) { t[gi].dropped++; continue; }
        plug_mix m = mix_for(&c->o, g, e->ci, h % 5 == 1);
        plug_events(f, old, fmt, c->pid[r], id++, plug_ts(w, e->t) + (double)(h % 7), hash, grank, g, e->ci, sn0 + k, m, h,
                    &step_id, &t[gi].px);
        truth_add(&t[gi], m);
      }
    }
    fprintf(f, "{}]\n");
    if (fclose(f)) die("cannot write %s", path);
  }
  free(v);
  return pre;
}

void write_nccl_plugin_trace(const ctx_t *c, rw_t *const *ws) {
  plug_truth *t = xcalloc((size_t)c->ngroups, sizeof *t);
  int64_t pre = 0;
  for (int r = 0; r < c->o.ranks; r++) pre += write_plugin_rank(c, ws[r], r, t);
  char path[4096];
  snprintf(path, sizeof path, "%s/nccl_plugin_expected.json", c->o.outdir);
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s", path);
  fprintf(f, "{\"records_outside_trace\": %lld, \"groups\": {", (long long)pre);
  for (int g = 0; g < c->ngroups; g++) {
    const plug_truth *x = &t[g];
    fprintf(f, "%s\n  \"%s\": {\"joined\": %lld, \"dropped\": %lld, \"mix\": [", g ? "," : "", c->groups[g].name,
            (long long)x->joined, (long long)x->dropped);
    for (int64_t k = 0; k < x->n_mix; k++)
      fprintf(f, "%s{\"algorithm\": \"%s\", \"protocol\": \"%s\", \"channels\": %d, \"records\": %lld}", k ? ", " : "",
              x->mix[k].algo, x->mix[k].proto, x->mix[k].ch, (long long)x->mix_n[k]);
    fprintf(f, "], \"proxy\": ");
    double ns = x->px.ns[0] + x->px.ns[1] + x->px.ns[2] + x->px.ns[3];
    if (ns > 0)
      fprintf(f, "{\"steps\": %lld, \"time_ns\": %.17g, \"gpu_wait_share\": %.17g, \"peer_wait_share\": %.17g, "
                 "\"net_share\": %.17g, \"other_share\": %.17g}}", (long long)x->px.steps, ns, x->px.ns[0] / ns,
              x->px.ns[1] / ns, x->px.ns[2] / ns, x->px.ns[3] / ns);
    else fprintf(f, "null}");
  }
  fprintf(f, "\n}}\n");
  if (fclose(f)) die("cannot write %s", path);
  free(t);
}

/* ---- --nccl-prometheus ---------------------------------------------------------------------------
 * The Inspector's Prometheus textfiles of the planted job (NCCL_INSPECTOR_PROM_DUMP): one
 * DIR/nccl_inspector_metrics_GPU-<uuid>.prom per rank (GPU), a bucket per communicator, kind,
 * message-size range (the Inspector's "2-3MB": [2 MiB, 3 MiB)) and algo_proto ("Ring_Simple", the
 * plugin trace's choices), each bucket's nccl_bus_bandwidth_gbs (geometric mean of its records'
 * busbw) and nccl_collective_exec_time_microseconds (their mean) as "%.6g", then the p2p-less
 * per-device totals (read past). comm_name "unknown" (as NCCL writes a communicator without a
 * name), node and gpu the rank's host (node<N>) and device. The records as --nccl-inspector's: under
 * the floor not written, about one in 13 dropped. DIR/nccl_prom_expected.json: per group its
 * buckets {collective, message_size_min_bytes, algorithm, protocol, ranks, busbw_GBps (the
 * geometric mean of the ranks' printed values), exec_time_us (their mean)}, with --trace-hosts (the
 * join needs each trace's host to tell the GPUs apart). */

#define MAX_BUCKETS 256
typedef struct {
  int gi, coll; int64_t lo; plug_mix m;
  int64_t n; double logbw, us;            /* one rank's records */
  int64_t ranks; double rlog, rus;        /* the truth: over ranks, of the printed values */
} bucket;

static int64_t size_lo(int64_t bytes, int64_t *hi, char *label, size_t cap) {
  static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
  int k = 0;
  double v = (double)bytes;
  while (v >= 1024.0 && k < 4) { v /= 1024.0; k++; }
  int64_t lower = v < 1 ? 1 : (int64_t)floor(v), unit = (int64_t)1 << (10 * k);
  snprintf(label, cap, "%lld-%lld%s", (long long)lower, (long long)lower + 1, units[k]);
  *hi = (lower + 1) * unit;
  return lower * unit;
}

/* Rank r's file; folds its buckets into the truth (tb, *ntb). */
static void write_prom_rank(const ctx_t *c, const rw_t *w, int r, bucket *tb, int *ntb) {
  size_t n;
  const grec **v = comm_records(w, &n);
  bucket b[MAX_BUCKETS];
  int nb = 0;
  for (size_t i = 0; i < n; i++) {
    const grec *e = v[i];
    int gi = e->real_group;
    size_t k = i;
    while (k > 0 && v[k - 1]->real_group == gi && v[k - 1]->ci->coll == e->ci->coll) k--;
    uint64_t h = h4(c->o.seed ^ 0x6e63636cULL, (uint64_t)r, (uint64_t)gi * 8 + (uint64_t)e->ci->coll, (uint64_t)(i - k));
    if (e->ci->bytes < NCCL_FLOOR || h % 13 == 0) continue;
    int64_t hi, us = llround((double)(e->d - e->wait) / 1e3);
    char label[32];
    int64_t lo = size_lo(e->ci->bytes, &hi, label, sizeof label);
    plug_mix m = mix_for(&c->o, &c->groups[gi], e->ci, h % 5 == 1);
    int q = 0;
    while (q < nb && !(b[q].gi == gi && b[q].coll == e->ci->coll && b[q].lo == lo && /* channels are no label */
                       !strcmp(b[q].m.algo, m.algo) && !strcmp(b[q].m.proto, m.proto))) q++;
    if (q == nb) {
      if (nb == MAX_BUCKETS) die("more than %d Prometheus buckets", MAX_BUCKETS);
      memset(&b[nb++], 0, sizeof *b);
      b[q].gi = gi; b[q].coll = e->ci->coll; b[q].lo = lo; b[q].m = m;
    }
    b[q].n++;
    b[q].logbw += log(us > 0 ? e->ci->sf / (double)us / 1e3 : 1);
    b[q].us += (double)us;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/nccl_inspector_metrics_GPU-%08x-5d3c-4a1b-9e2f-%012d.prom", c->o.outdir,
           (unsigned)h4(c->o.seed, 0x9b0, (uint64_t)r, 0), r);
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s", path);
  for (int q = 0; q < nb; q++) {
    const pgroup *g = &c->groups[b[q].gi];
    int64_t hi;
    char label[32], bus[32], ex[32];
    size_lo(b[q].lo, &hi, label, sizeof label);
    snprintf(bus, sizeof bus, "%.6g", exp(b[q].logbw / (double)b[q].n));
    snprintf(ex, sizeof ex, "%.6g", b[q].us / (double)b[q].n);
    const char *lab = "version=\"v5.1\",slurm_job_id=\"unknown\",node=\"node%d\",gpu=\"GPU%d\",comm_name=\"unknown\","
                      "n_nodes=\"%d\",nranks=\"%d\",collective=\"%s\",message_size=\"%s\",algo_proto=\"%s_%s\"";
    char labels[512];
    snprintf(labels, sizeof labels, lab, r / c->o.gpn, r % c->o.gpn, g->nodes, g->size, coll_word(b[q].coll), label,
             b[q].m.algo, b[q].m.proto);
    fprintf(f, "nccl_bus_bandwidth_gbs{%s} %s\nnccl_collective_exec_time_microseconds{%s} %s\n", labels, bus, labels, ex);
    int t = 0; /* the truth: one bucket per group, kind, range, algorithm and protocol */
    while (t < *ntb && !(tb[t].gi == b[q].gi && tb[t].coll == b[q].coll && tb[t].lo == b[q].lo &&
                         !strcmp(tb[t].m.algo, b[q].m.algo) && !strcmp(tb[t].m.proto, b[q].m.proto))) t++;
    if (t == *ntb) {
      if (*ntb == MAX_BUCKETS) die("more than %d Prometheus buckets", MAX_BUCKETS);
      tb[(*ntb)++] = b[q];
      tb[t].ranks = 0; tb[t].rlog = tb[t].rus = 0;
    }
    tb[t].ranks++;
    tb[t].rlog += log(strtod(bus, NULL));
    tb[t].rus += strtod(ex, NULL);
  }
  fprintf(f, "nccl_collectives_total{version=\"v5.1\",slurm_job_id=\"unknown\",node=\"node%d\",gpu=\"GPU%d\"} %zu\n",
          r / c->o.gpn, r % c->o.gpn, n);
  if (fclose(f)) die("cannot write %s", path);
  free(v);
}

void write_nccl_prometheus(const ctx_t *c, rw_t *const *ws) {
  bucket *tb = xcalloc(MAX_BUCKETS, sizeof *tb);
  int ntb = 0;
  for (int r = 0; r < c->o.ranks; r++) write_prom_rank(c, ws[r], r, tb, &ntb);
  char path[4096];
  snprintf(path, sizeof path, "%s/nccl_prom_expected.json", c->o.outdir);
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s", path);
  fprintf(f, "{\"groups\": {");
  for (int g = 0; g < c->ngroups; g++) {
    fprintf(f, "%s\n  \"%s\": [", g ? "," : "", c->groups[g].name);
    int first = 1;
    for (int t = 0; t < ntb; t++) {
      if (tb[t].gi != g) continue;
      fprintf(f, "%s{\"collective\": \"%s\", \"message_size_min_bytes\": %lld, \"algorithm\": \"%s\", \"protocol\": \"%s\", "
                 "\"ranks\": %lld, \"busbw_GBps\": %.17g, \"exec_time_us\": %.17g}", first ? "" : ", ", coll_word(tb[t].coll),
              (long long)tb[t].lo, tb[t].m.algo, tb[t].m.proto, (long long)tb[t].ranks, exp(tb[t].rlog / (double)tb[t].ranks),
              tb[t].rus / (double)tb[t].ranks);
      first = 0;
    }
    fprintf(f, "]");
  }
  fprintf(f, "\n}}\n");
  if (fclose(f)) die("cannot write %s", path);
  free(tb);
}
