/* tg_file.c: a rank's whole trace file as tracegen writes it: the metadata (deviceProperties,
 * distributedInfo, process and thread names), the negative-timestamp and top-level keys, the tail,
 * and write_rank, which puts the steps (tg_events.c) between them. */
#define _POSIX_C_SOURCE 200809L
#include "tracegen.h"

/* ------------------------------------------------------------------ metadata and the whole file */
static void write_metadata(rw_t *w) {
  const ctx_t *c = w->c;
  jw_t *j = &w->j;
  int ndev = c->o.ranks < c->o.gpn ? c->o.ranks : c->o.gpn;
  if (c->o.rocm) ndev = 1; /* as ROCm traces: only id 0, while kernels carry the HSA agent id */
  jw_brk(j, 2);
  JK(j, "deviceProperties");
  jw_open(j, '[', 2);
  for (int d = 0; d < ndev; d++) {
    jw_brk(j, 4);
    jw_open(j, '{', 4);
    jw_brk(j, 6);
    JK(j, "id"); jw_i64(j, d);
    JK(j, "name"); jw_str(j, c->o.gpu);
    JK(j, "totalGlobalMem"); jw_i64(j, c->gi ? c->gi->mem : 85899345920LL);
    jw_brk(j, 6);
    JK(j, "computeMajor"); jw_i64(j, c->gi ? c->gi->major : 9);
    JK(j, "computeMinor"); jw_i64(j, c->gi ? c->gi->minor : 0);
    jw_brk(j, 6);
    JK(j, "maxThreadsPerBlock"); jw_i64(j, 1024);
    JK(j, "maxThreadsPerMultiprocessor"); jw_i64(j, 2048);
    jw_brk(j, 6);
    JK(j, "regsPerBlock"); jw_i64(j, 65536);
    JK(j, "warpSize"); jw_i64(j, c->o.rocm ? 64 : 32);
    jw_brk(j, 6);
    JK(j, "sharedMemPerBlock"); jw_i64(j, c->o.rocm ? 65536 : 49152);
    JK(j, "numSms"); jw_i64(j, c->gi ? c->gi->sms : 132);
    jw_close(j, '}');
  }
  jw_close(j, ']');
  if (c->o.trace_hosts) {
    char host[32];
    snprintf(host, sizeof host, "node%d", w->r / c->o.gpn);
    jw_brk(j, 2);
    JK(j, "host_name"); jw_str(j, host);
  }
  jw_brk(j, 2);
  JK(j, "distributedInfo");
  jw_open(j, '{', -1);
  JK(j, "backend"); JRAW(j, "\"nccl\"");
  JK(j, "rank"); jw_i64(j, w->r);
  JK(j, "world_size"); jw_i64(j, c->o.ranks);
  if (c->o.pgconfig) { /* PyTorch before 2.2 wrote none: groups then come from kernel args alone */
    JK(j, "pg_count"); jw_i64(j, c->ngroups);
    JK(j, "pg_config");
    jw_open(j, '[', -1);
    /* as real PyTorch: only the groups this rank belongs to */
    for (int gi = 0; gi < c->ngroups; gi++) {
      const pgroup *pg = &c->groups[gi];
      int member = 0;
      for (int i = 0; i < pg->size && !member; i++) member = pg->ranks[i] == w->r;
      if (!member) continue;
      jw_open(j, '{', -1);
      JK(j, "pg_name"); jw_str(j, pg->name);
      JK(j, "pg_desc"); jw_str(j, pg->desc);
      JK(j, "backend_config"); JRAW(j, "\"cuda:nccl\"");
      JK(j, "pg_size"); jw_i64(j, pg->size);
      JK(j, "ranks");
      jw_open(j, '[', -1);
      for (int i = 0; i < pg->size; i++) jw_i64(j, pg->ranks[i]);
      jw_close(j, ']');
      jw_close(j, '}');
    }
    jw_close(j, ']');
  }
  JK(j, "nccl_version"); JRAW(j, "\"2.21.5\"");
  jw_close(j, '}');
}

static void meta_ev(rw_t *w, const char *name, int64_t pid, int64_t tid, int64_t t, const char *key,
                    const char *sval, int64_t ival) {
  jw_t *j = &w->j;
  jw_brk(j, 2);
  jw_open(j, '{', 2);
  jw_brk(j, 4);
  JK(j, "name"); jw_str(j, name);
  JK(j, "ph"); JRAW(j, "\"M\"");
  JK(j, "ts"); w_ts(w, t);
  JK(j, "pid"); jw_i64(j, pid);
  JK(j, "tid"); jw_i64(j, tid);
  args_open(w);
  jw_keyn(j, key, strlen(key));
  if (sval) jw_str(j, sval); else jw_i64(j, ival);
  args_close(w);
  ev_close(w);
}

/* file name of window win of rank r: rank{R}.pt.trace.json, or HOST_PID.<ms>.pt.trace.json as
 * tensorboard_trace_handler writes it (ms: the export time, 1 ms after the window's last step, on
 * the rank's clock), HOST_PID.rank{R}.pt.trace.json as tracecost record does, or
 * worker{R}_step_12.<ms>.pt.trace.json (a handler given worker_name: not a host) */
void rank_file_name(const ctx_t *c, int r, int win, char *buf, size_t n) {
  const char *gz = c->o.gzip ? ".gz" : "";
  if (!c->o.handler_names) {
    snprintf(buf, n, "rank%d.pt.trace.json%s", r, gz);
    return;
  }
  int64_t end = c->P[win_last_step(c, r, win)] + MS + c->off[r];
  if (c->o.handler_names == 2)
    snprintf(buf, n, "node%d_%" PRId64 ".rank%d.pt.trace.json%s", r / c->o.gpn, c->pid[r], r, gz);
  else if (c->o.handler_names == 3)
    snprintf(buf, n, "worker%d_step_12.%" PRId64 ".pt.trace.json%s", r, (int64_t)(end / MS), gz);
  else
    snprintf(buf, n, "node%d_%" PRId64 ".%" PRId64 ".pt.trace.json%s", r / c->o.gpn, c->pid[r], (int64_t)(end / MS), gz);
}

/* three warm-up kernels launched before the profiler started: before baseTimeNanoseconds (--negative-ts) */
static void write_negative_ts(rw_t *w, int64_t prof_start) {
  static const char *name = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                            "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";
  for (int i = 0; i < 3; i++) {
    int64_t t = prof_start - (60 - 20 * i) * US;
    gpu_kernel_ev(w, name, 7, t, 10 * US, -1, 1 + i); /* correlation ids no runtime call has */
    grec e;
    memset(&e, 0, sizeof e);
    e.t = t; e.d = 10 * US; e.cls = REC_COMPUTE; e.group = e.real_group = -1; e.step = -1; e.written = 1;
    e.gpu_event = 1;
    rec_add(&w->rec, &e);
    w->neg_events++;
  }
}

static void write_top_versions(rw_t *w) {
  jw_t *j = &w->j;
  const ctx_t *c = w->c;
  jw_brk(j, 2);
  JK(j, "record_shapes"); jw_i64(j, c->o.shapes);
  if (c->o.rocm) {
    jw_brk(j, 2);
    JK(j, "roctracer_version"); JRAW(j, "4.1");
    jw_brk(j, 2);
    JK(j, "hip_runtime_version"); jw_i64(j, 70253211);
    jw_brk(j, 2);
    JK(j, "hip_driver_version"); jw_i64(j, 70253211);
    return;
  }
  jw_brk(j, 2);
  JK(j, "cupti_version"); jw_i64(j, 24);
  jw_brk(j, 2);
  JK(j, "cuda_runtime_version"); jw_i64(j, 12040);
  jw_brk(j, 2);
  JK(j, "cuda_driver_version"); jw_i64(j, 12040);
}

static void write_tail(rw_t *w, int win, int64_t prof_start, int64_t end) {
  jw_t *j = &w->j;
  int64_t mt = prof_start;
  char lab[64];
  meta_ev(w, "process_name", w->pid, 0, mt, "name", "python3", 0);
  meta_ev(w, "process_labels", w->pid, 0, mt, "labels", "CPU", 0);
  meta_ev(w, "process_sort_index", w->pid, 0, mt, "sort_index", NULL, w->pid);
  meta_ev(w, "process_name", w->dev, 0, mt, "name", "python3", 0);
  snprintf(lab, sizeof lab, "GPU %d", w->dev);
  meta_ev(w, "process_labels", w->dev, 0, mt, "labels", lab, 0);
  meta_ev(w, "process_sort_index", w->dev, 0, mt, "sort_index", NULL, 16777216 + w->dev);
  static const int classic_streams[] = {7, 20, 24}, md_streams[] = {7, 20, 22, 23, 24};
  int md = w->c->mode == MODE_MD || w->c->mode == MODE_HOST;
  const int *streams = md ? md_streams : classic_streams;
  int nstreams = md ? 5 : 3;
  for (int i = 0; i < nstreams; i++) {
    snprintf(lab, sizeof lab, "stream %d ", streams[i]);
    meta_ev(w, "thread_name", w->dev, streams[i], mt, "name", lab, 0);
    meta_ev(w, "thread_sort_index", w->dev, streams[i], mt, "sort_index", NULL, streams[i]);
  }
  snprintf(lab, sizeof lab, "thread %" PRId64 " (python3)", w->pid);
  meta_ev(w, "thread_name", w->pid, w->pid, mt, "name", lab, 0);
  meta_ev(w, "thread_sort_index", w->pid, w->pid, mt, "sort_index", NULL, w->pid);
  if (w->c->o.autograd_thread) {
    int64_t at = w->pid + AUTOGRAD_TID_OFF;
    snprintf(lab, sizeof lab, "thread %" PRId64 " (pt_autograd_0)", at);
    meta_ev(w, "thread_name", w->pid, at, mt, "name", lab, 0);
    meta_ev(w, "thread_sort_index", w->pid, at, mt, "sort_index", NULL, at);
  }
  /* the profiler's own span and instants, with string pid/tid as Kineto writes them */
  jw_brk(j, 2);
  jw_open(j, '{', 2);
  jw_brk(j, 4);
  JK(j, "ph"); JRAW(j, "\"X\"");
  JK(j, "cat"); JRAW(j, "\"Trace\"");
  JK(j, "ts"); w_ts(w, prof_start);
  JK(j, "dur"); w_dur(w, end + MS - prof_start);
  jw_brk(j, 4);
  JK(j, "pid"); JRAW(j, "\"Spans\"");
  JK(j, "tid"); JRAW(j, "\"PyTorch Profiler\"");
  jw_brk(j, 4);
  snprintf(lab, sizeof lab, "PyTorch Profiler (%d)", win);
  JK(j, "name"); jw_str(j, lab);
  args_open(w);
  JK(j, "Op count"); jw_i64(j, 0);
  args_close(w);
  ev_close(w);
  jw_brk(j, 2);
  jw_open(j, '{', 2);
  jw_brk(j, 4);
  JK(j, "name"); JRAW(j, "\"Iteration Start: PyTorch Profiler\"");
  JK(j, "ph"); JRAW(j, "\"i\"");
  JK(j, "s"); JRAW(j, "\"g\"");
  jw_brk(j, 4);
  JK(j, "pid"); JRAW(j, "\"Traces\"");
  JK(j, "tid"); JRAW(j, "\"Trace PyTorch Profiler\"");
  JK(j, "ts"); w_ts(w, prof_start);
  ev_close(w);
  jw_brk(j, 2);
  jw_open(j, '{', 2);
  jw_brk(j, 4);
  JK(j, "name"); JRAW(j, "\"Record Window End\"");
  JK(j, "ph"); JRAW(j, "\"i\"");
  JK(j, "s"); JRAW(j, "\"g\"");
  jw_brk(j, 4);
  JK(j, "pid"); JRAW(j, "\"\"");
  JK(j, "tid"); JRAW(j, "\"\"");
  JK(j, "ts"); w_ts(w, end + MS);
  ev_close(w);
}

/* the top members before traceEvents, as Kineto writes them */
static void write_top_head(rw_t *w) {
  jw_t *j = &w->j;
  jw_brk(j, 2);
  JK(j, "schemaVersion"); jw_i64(j, 1);
  if (!w->c->o.meta_after) write_metadata(w);
  write_top_versions(w);
}

/* the top members after traceEvents */
static void write_top_tail(rw_t *w, int win) {
  const ctx_t *c = w->c;
  jw_t *j = &w->j;
  if (c->o.meta_after) write_metadata(w);
  jw_brk(j, 2);
  JK(j, "traceName");
  char tn[128];
  rank_file_name(c, w->r, win, tn, sizeof tn);
  size_t tl = strlen(tn);
  if (tl > 3 && !strcmp(tn + tl - 3, ".gz")) tn[tl - 3] = 0;
  jw_str(j, tn);
  jw_brk(j, 2);
  JK(j, "displayTimeUnit"); JRAW(j, "\"ms\"");
  if (c->o.relative) {
    jw_brk(j, 2);
    JK(j, "baseTimeNanoseconds"); jw_i64(j, w->base);
  }
}

/* writes window win of rank r's trace into sink s; w holds the counters and the record after it.
 * step_end_bytes (may be NULL): bytes produced after each step. */
void write_rank(const ctx_t *c, int r, int win, sink_t *s, rw_t *w, uint64_t *step_end_bytes) {
  memset(w, 0, sizeof *w);
  w->c = c;
  w->s = s;
  w->r = r;
  w->dev = (c->o.rocm ? 2 : 0) + r % c->o.gpn;
  w->pid = c->pid[r];
  w->tid = w->pid;
  w->off = c->off[r];
  w->base = win_base(c, r, win);
  w->corr = 1000 + r * 7;
  w->ext = 0;
  w->cur_step = -1;
  int s0 = win_first_step(c, win), s1 = win_last_step(c, r, win);
  w->step_span = xcalloc((size_t)(s1 - s0) + 1, sizeof(int64_t));
  jw_t *j = &w->j;
  jw_init(j, s, c->o.layout);
  jw_open(j, '{', c->o.layout == LAYOUT_KINETO ? 0 : -1);
  int sorted = c->o.layout == LAYOUT_INDENT2SORTED;
  if (sorted) { /* every top member but traceEvents, written in key order around it */
    jw_top_capture_begin(j);
    write_top_head(w);
    write_top_tail(w, win);
    jw_top_emit(j, "traceEvents", 0);
  } else {
    write_top_head(w);
  }
  jw_brk(j, 2);
  JK(j, "traceEvents");
  jw_open(j, '[', 2);

  int64_t prof_start = w->base - w->off; /* true time of the profiler start */
  if (c->o.negts) write_negative_ts(w, prof_start);
  if (c->mode == MODE_IDLE) {
    idle_write_steps(w, s0, s1);
  } else {
    for (int st = s0; st < s1; st++) {
      if (c->mode == MODE_MD)
        md_write_step(w, st);
      else if (c->mode == MODE_HOST)
        host_write_step(w, st);
      else if (c->mode == MODE_PP)
        pp_write_step(w, st);
      else if (c->mode == MODE_OPS)
        ops_write_step(w, st);
      else
        write_step(w, st);
      if (step_end_bytes) step_end_bytes[st - s0] = s->total + s->len;
    }
  }
  write_tail(w, win, prof_start, c->P[s1]);
  jw_close(j, ']');
  if (sorted)
    jw_top_emit(j, "traceEvents", 1);
  else
    write_top_tail(w, win);
  jw_close(j, '}');
  jw_free(j);
  if (c->o.layout != LAYOUT_ONELINE) s_ch(s, '\n');
}
