/* tg_truth.c: expected.json. The classic job's figures in closed form (write_expected, pinned by
 * the golden tests); and, for every job, the same figures measured on what each rank's file holds
 * (its record of GPU events) by interval arithmetic with the definitions of docs/definitions.md and
 * issue 19: the extended expected.json written when any newer option is used. For classic jobs the
 * two are compared (truth_check_classic), so the interval code is checked against the closed form. */
#define _POSIX_C_SOURCE 200809L
#include "tracegen.h"

/* ------------------------------------------------------------------ closed form (classic jobs) */

void rank_truth_build(const ctx_t *c, int r, rank_truth *t) {
  memset(t, 0, sizeof *t);
  int S = c->S;
  t->first_gpu = c->P[0] + c->I;
  t->window = c->P[S] - t->first_gpu;
  for (int s = 0; s < S; s++) {
    t->compute += c->C + c->OPT;
    for (int k = 0; k < c->K; k++) {
      int64_t a = classic_arrival(c, s, r, k), x = c->X[(size_t)s * c->K + k];
      int64_t d = x - a, wait = d - c->T;
      t->comm += d;
      t->wait_all += wait;
      t->xfer_all += c->T;
      if (k < c->H) {
        t->overlapped += d;
      } else {
        t->exposed += d;
        t->wait_exp += wait;
        t->xfer_exp += c->T;
        t->compute += classic_delay(c, s, r, k);
      }
    }
    t->mem_exposed += c->Mc;
    t->mem += c->Mc + c->MSET;
    t->steps_total += c->P[s + 1] - c->P[s];
  }
  t->idle = (int64_t)(S - 1) * c->I;
  t->kernels = (long long)S * (3 * c->o.layers + (c->K - c->H) + 1 + c->K);
  t->comm_kernels = (long long)S * c->K;
  t->mem_events = (long long)S * ((c->Mc > 0) + 1);
  int64_t sum = t->compute + t->exposed + t->mem_exposed + t->idle;
  if (sum != t->window)
    die("model violated for rank %d: compute %" PRId64 " + exposed comm %" PRId64 " + memory %" PRId64
        " + idle %" PRId64 " = %" PRId64 " ns != window %" PRId64 " ns",
        r, t->compute, t->exposed, t->mem_exposed, t->idle, sum, t->window);
  if (t->comm != t->overlapped + t->exposed) die("model violated for rank %d: comm split", r);
}

const char *fmt_us(char *b, int64_t ns) {
  int64_t a = ns < 0 ? -ns : ns;
  snprintf(b, 40, "%s%" PRId64 ".%03" PRId64, ns < 0 ? "-" : "", a / 1000, a % 1000);
  return b;
}

/* --a2a-hot-rank: the planted all-to-all imbalance (docs/definitions.md "All-to-all imbalance"): every
 * instance's ratio and the hot rank are the same; its caused wait is its transfer (the shortest kernel)
 * × Σ over the other ranks of (1 − 1/F), summed over the steps written */
static void write_a2a_truth(const ctx_t *c, FILE *f, int steps) {
  if (c->o.a2a_hot < 0) return;
  int n = c->o.ranks;
  double F = c->o.a2a_factor, wait_ns = 0;
  for (int s = 0; s < steps; s++)
    for (int k = 0; k < c->K; k++) wait_ns += (double)c->Tmin[(size_t)s * c->K + k] * (n - 1) * (1.0 - 1.0 / F);
  fprintf(f, "  \"all_to_all\": {\"hot_rank\": %d, \"factor\": %d, \"instances\": %d, \"imbalance_ratio\": %.9f, ",
          c->o.a2a_hot, c->o.a2a_factor, steps * c->K, F * n / (F + n - 1));
  fprintf(f, "\"caused_wait_us\": %.6f, \"bytes_sent\": [", wait_ns / 1e3);
  for (int r = 0; r < n; r++) fprintf(f, "%s%lld", r ? ", " : "", a2a_nelems(c, r) * c->esize);
  fprintf(f, "], \"pair_bytes\": [");
  for (int r = 0; r < n; r++) {
    fprintf(f, "%s[", r ? ", " : "");
    long long rows = 0;
    for (int p = 0; p < n; p++) rows += a2a_split(c, r, p);
    for (int p = 0; p < n; p++)
      fprintf(f, "%s%lld", p ? ", " : "", a2a_nelems(c, r) / rows * a2a_split(c, r, p) * c->esize * steps * c->K);
    fprintf(f, "]");
  }
  fprintf(f, "]},\n");
}

void write_expected(const ctx_t *c, const char *path, long long *gpu_events) {
  FILE *f = fopen(path, "w");
  if (!f) die("cannot create %s: %s", path, strerror(errno));
  char b1[40];
  static const char *dtn[] = {"bf16", "fp16", "fp32", "fp8"};
  static const char *lay[] = {"kineto", "oneline", "indent4", "indent2sorted"};
  const options *o = &c->o;
  fprintf(f, "{\n  \"generator\": \"tracegen\",\n  \"version\": 1,\n");
  fprintf(f, "  \"ranks\": %d,\n  \"steps\": %d,\n  \"first_step_number\": %d,\n", o->ranks, c->S, c->first_step);
  fprintf(f, "  \"seed\": %" PRIu64 ",\n", o->seed);
  fprintf(f, "  \"files\": [");
  for (int r = 0; r < o->ranks; r++)
    fprintf(f, "%s\"rank%d.pt.trace.json%s\"", r ? ", " : "", r, o->gzip ? ".gz" : "");
  fprintf(f, "],\n");
  fprintf(f, "  \"layout\": \"%s\",\n  \"time_format\": \"%s\",\n  \"time_quantum_ns\": %" PRId64 ",\n",
          lay[o->layout], o->relative ? "relative" : "epoch", c->q);
  fprintf(f, "  \"gpu\": ");
  {
    /* the GPU name may contain anything: escape it */
    fputc('"', f);
    for (const char *p = o->gpu; *p; p++) {
      if (*p == '"' || *p == '\\') fputc('\\', f);
      if ((unsigned char)*p < 0x20) fprintf(f, "\\u%04x", (unsigned char)*p); else fputc(*p, f);
    }
    fputs("\",\n", f);
  }
  fprintf(f, "  \"dtype\": \"%s\",\n  \"gemm\": [%lld, %lld, %lld],\n  \"layers\": %d,\n", dtn[o->dtype], o->gm,
          o->gn, o->gk, o->layers);
  if (c->peak > 0) fprintf(f, "  \"peak_flops\": %.1f,\n", c->peak); else fprintf(f, "  \"peak_flops\": null,\n");
  fprintf(f, "  \"shapes_recorded\": %s,\n  \"seq_recorded\": %s,\n  \"pg_recorded\": %s,\n"
             "  \"coll_args_on_kernels\": %s,\n",
          o->shapes ? "true" : "false", (o->seq && o->pg) ? "true" : "false", o->pg ? "true" : "false",
          o->collargs ? "true" : "false");
  fprintf(f, "  \"busbw_GBps\": %.6f,\n  \"bucket_bytes\": %lld,\n  \"buckets\": %d,\n"
             "  \"hidden_buckets\": %d,\n  \"exposed_buckets\": %d,\n",
          o->busbw, c->bucket_bytes, c->K, c->H, c->E);
  if (o->straggler >= 0)
    fprintf(f, "  \"straggler_rank\": %d,\n  \"straggler_delay_us\": %s,\n", o->straggler, fmt_us(b1, c->D));
  else
    fprintf(f, "  \"straggler_rank\": null,\n  \"straggler_delay_us\": 0.000,\n");
  fprintf(f, "  \"jitter_max_us\": %s,\n", fmt_us(b1, c->J));
  fprintf(f, "  \"flops_per_step\": %.0f,\n", c->flops_step);
  int64_t steps_total = c->P[c->S] - c->P[0];
  fprintf(f, "  \"step_time_us\": %s,\n", fmt_us(b1, (steps_total + c->S / 2) / c->S));
  fprintf(f, "  \"per_rank\": [\n");
  for (int r = 0; r < o->ranks; r++) {
    rank_truth t;
    rank_truth_build(c, r, &t);
    fprintf(f, "    {\"rank\": %d, \"pid\": %" PRId64 ", \"device\": %d", r, c->pid[r], r % 8);
    fprintf(f, ", \"clock_offset_us\": %s", fmt_us(b1, c->off[r]));
    fprintf(f, ", \"window_start_us\": %s", fmt_us(b1, t.first_gpu + c->off[r] - (o->relative ? rank_base(c, r) : 0)));
    fprintf(f, ", \"window_us\": %s", fmt_us(b1, t.window));
    fprintf(f, ", \"compute_us\": %s", fmt_us(b1, t.compute));
    fprintf(f, ", \"comm_us\": %s", fmt_us(b1, t.comm));
    fprintf(f, ", \"overlapped_comm_us\": %s", fmt_us(b1, t.overlapped));
    fprintf(f, ", \"exposed_comm_us\": %s", fmt_us(b1, t.exposed));
    fprintf(f, ", \"memory_us\": %s", fmt_us(b1, t.mem));
    fprintf(f, ", \"memory_exposed_us\": %s", fmt_us(b1, t.mem_exposed));
    fprintf(f, ", \"idle_us\": %s", fmt_us(b1, t.idle));
    fprintf(f, ", \"exposed_wait_us\": %s", fmt_us(b1, t.wait_exp));
    fprintf(f, ", \"exposed_transfer_us\": %s", fmt_us(b1, t.xfer_exp));
    fprintf(f, ", \"comm_wait_us\": %s", fmt_us(b1, t.wait_all));
    fprintf(f, ", \"comm_transfer_us\": %s", fmt_us(b1, t.xfer_all));
    fprintf(f, ", \"step_time_us\": %s", fmt_us(b1, (t.steps_total + c->S / 2) / c->S));
    double st = (double)t.steps_total / c->S * 1e-9;
    if (c->peak > 0)
      fprintf(f, ", \"mfu\": %.9f", c->flops_step / c->peak / st);
    else
      fprintf(f, ", \"mfu\": null");
    fprintf(f, ", \"flops_per_step\": %.0f", c->flops_step);
    fprintf(f, ", \"kernels\": %lld, \"comm_kernels\": %lld, \"memory_events\": %lld", t.kernels, t.comm_kernels,
            t.mem_events);
    fprintf(f, ", \"gpu_events\": %lld}%s\n", gpu_events ? gpu_events[r] : t.kernels + t.mem_events,
            r + 1 < o->ranks ? "," : "");
  }
  fprintf(f, "  ],\n");
  write_a2a_truth(c, f, c->S);
  fprintf(f, "  \"collectives\": {\"name\": \"allreduce\", \"count\": %lld, \"per_step\": %d, \"bytes\": %lld",
          (long long)c->S * c->K, c->K, c->bucket_bytes);
  if (c->K > 0) {
    double algbw = (double)c->bucket_bytes / (double)c->T; /* bytes/ns = GB/s */
    double factor = 2.0 * (o->ranks - 1) / o->ranks;
    fprintf(f, ", \"factor\": %.6f, \"transfer_us\": %s, \"algbw_GBps\": %.6f, \"busbw_GBps\": %.6f}\n", factor,
            fmt_us(b1, c->T), algbw, algbw * factor);
  } else {
    fprintf(f, ", \"factor\": null, \"transfer_us\": null, \"algbw_GBps\": null, \"busbw_GBps\": null}\n");
  }
  fprintf(f, "}\n");
  if (fclose(f) != 0) die("write %s: %s", path, strerror(errno));
}

/* ------------------------------------------------------------------ interval arithmetic */
typedef struct { int64_t a, b; } ivl;
typedef struct {
  ivl *v;
  size_t n, cap;
} ivls;

static void iv_add(ivls *l, int64_t a, int64_t b) {
  if (b <= a) return;
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 256;
    l->v = xrealloc(l->v, l->cap, sizeof *l->v);
  }
  l->v[l->n].a = a;
  l->v[l->n].b = b;
  l->n++;
}
static int cmp_ivl(const void *x, const void *y) {
  const ivl *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  return (p->b > q->b) - (p->b < q->b);
}
/* sorts and merges: a union of disjoint, ordered intervals */
static void iv_norm(ivls *l) {
  if (l->n == 0) return;
  qsort(l->v, l->n, sizeof *l->v, cmp_ivl);
  size_t k = 0;
  for (size_t i = 1; i < l->n; i++) {
    if (l->v[i].a <= l->v[k].b) {
      if (l->v[i].b > l->v[k].b) l->v[k].b = l->v[i].b;
    } else {
      l->v[++k] = l->v[i];
    }
  }
  l->n = k + 1;
}
static int64_t iv_len(const ivls *l) {
  int64_t s = 0;
  for (size_t i = 0; i < l->n; i++) s += l->v[i].b - l->v[i].a;
  return s;
}
/* |A ∩ B| of two normalized unions */
static int64_t iv_inter(const ivls *A, const ivls *B) {
  int64_t s = 0;
  size_t i = 0, j = 0;
  while (i < A->n && j < B->n) {
    int64_t lo = A->v[i].a > B->v[j].a ? A->v[i].a : B->v[j].a;
    int64_t hi = A->v[i].b < B->v[j].b ? A->v[i].b : B->v[j].b;
    if (hi > lo) s += hi - lo;
    if (A->v[i].b < B->v[j].b) i++; else j++;
  }
  return s;
}
/* out = A ∪ B (normalized) */
static void iv_union(const ivls *A, const ivls *B, ivls *out) {
  out->n = 0;
  for (size_t i = 0; i < A->n; i++) iv_add(out, A->v[i].a, A->v[i].b);
  for (size_t i = 0; i < B->n; i++) iv_add(out, B->v[i].a, B->v[i].b);
  iv_norm(out);
}
static void iv_free(ivls *l) { free(l->v); memset(l, 0, sizeof *l); }

/* ------------------------------------------------------------------ matching */
/* an instance is (the group it ran on, Seq); it is matched when every rank of that group wrote it */
typedef struct { int g; int64_t seq; int count; } inst;
typedef struct {
  inst *v;
  size_t n;
} inst_set;

static int cmp_inst(const void *x, const void *y) {
  const inst *p = x, *q = y;
  if (p->g != q->g) return p->g < q->g ? -1 : 1;
  return (p->seq > q->seq) - (p->seq < q->seq);
}
static void inst_build(rw_t **ws, int n, inst_set *out) {
  size_t tot = 0;
  for (int r = 0; r < n; r++) tot += ws[r]->rec.n;
  out->v = xcalloc(tot + 1, sizeof *out->v);
  out->n = 0;
  for (int r = 0; r < n; r++)
    for (size_t i = 0; i < ws[r]->rec.n; i++) {
      const grec *e = &ws[r]->rec.v[i];
      if (e->cls != REC_COMM || !e->written) continue;
      out->v[out->n].g = e->real_group;
      out->v[out->n].seq = e->seq;
      out->v[out->n].count = 1;
      out->n++;
    }
  qsort(out->v, out->n, sizeof *out->v, cmp_inst);
  size_t k = 0;
  for (size_t i = 0; i < out->n; i++) {
    if (k > 0 && out->v[k - 1].g == out->v[i].g && out->v[k - 1].seq == out->v[i].seq)
      out->v[k - 1].count++;
    else
      out->v[k++] = out->v[i];
  }
  out->n = k;
}
static int inst_count(const inst_set *s, int g, int64_t seq) {
  inst key = {g, seq, 0};
  const inst *f = bsearch(&key, s->v, s->n, sizeof *s->v, cmp_inst);
  return f ? f->count : 0;
}
static int rec_matched(const ctx_t *c, const inst_set *s, const grec *e) {
  return inst_count(s, e->real_group, e->seq) == c->groups[e->real_group].size;
}

/* ------------------------------------------------------------------ figures of one rank's file */
typedef struct {
  int64_t window, compute, comm, overlapped, exposed, mem, mem_exposed, idle, wait_exp, xfer_exp, wait_all, xfer_all;
  int64_t first_gpu;
  int64_t matched_wait, matched_xfer, unmatched_comm;
} figs;
typedef struct {
  int64_t comm, exposed, xfer_exp, wait_exp; /* ns, summed over ranks */
  double sf, tsum;                            /* busbw: Σ S×factor, Σ transfer over matched instances >= 1 MiB */
} gfigs;

/* group: -1 = all collectives (the rank's figures), else only those naming that group */
static void comm_lists(const ctx_t *c, const rw_t *w, const inst_set *is, int group, ivls *comm, ivls *heads,
                       ivls *tails) {
  for (size_t i = 0; i < w->rec.n; i++) {
    const grec *e = &w->rec.v[i];
    if (e->cls != REC_COMM || !e->written) continue;
    if (group >= 0 && e->group != group) continue;
    int64_t wt = rec_matched(c, is, e) ? e->wait : 0; /* unmatched: all transfer */
    iv_add(comm, e->t, e->t + e->d);
    iv_add(heads, e->t, e->t + wt);
    iv_add(tails, e->t + wt, e->t + e->d);
  }
  iv_norm(comm);
  iv_norm(heads);
  iv_norm(tails);
}

static void rank_figs(const ctx_t *c, const rw_t *w, const inst_set *is, figs *f) {
  memset(f, 0, sizeof *f);
  ivls cp = {0}, cm = {0}, mem = {0}, hd = {0}, tl = {0}, u1 = {0}, u2 = {0};
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t i = 0; i < w->rec.n; i++) {
    const grec *e = &w->rec.v[i];
    if (!e->written) continue;
    if (e->t < lo) lo = e->t;
    if (e->t + e->d > hi) hi = e->t + e->d;
    if (e->cls == REC_COMPUTE) iv_add(&cp, e->t, e->t + e->d);
    if (e->cls == REC_MEM) iv_add(&mem, e->t, e->t + e->d);
    if (e->cls == REC_COMM) {
      int m = rec_matched(c, is, e);
      int64_t wt = m ? e->wait : 0;
      f->wait_all += wt;
      f->xfer_all += e->d - wt;
      if (m) { f->matched_wait += e->wait; f->matched_xfer += e->d - e->wait; }
      else f->unmatched_comm += e->d;
    }
  }
  iv_norm(&cp);
  iv_norm(&mem);
  comm_lists(c, w, is, -1, &cm, &hd, &tl);
  f->first_gpu = lo;
  f->window = hi > lo ? hi - lo : 0;
  f->compute = iv_len(&cp);
  f->comm = iv_len(&cm);
  f->overlapped = iv_inter(&cp, &cm);
  f->exposed = f->comm - f->overlapped;
  f->mem = iv_len(&mem);
  iv_union(&cp, &cm, &u1);
  f->mem_exposed = f->mem - iv_inter(&mem, &u1);
  iv_union(&u1, &mem, &u2);
  f->idle = f->window - iv_len(&u2);
  f->xfer_exp = iv_len(&tl) - iv_inter(&tl, &cp);
  iv_union(&cp, &tl, &u1);
  f->wait_exp = iv_len(&hd) - iv_inter(&hd, &u1);
  if (f->compute + f->exposed + f->mem_exposed + f->idle != f->window)
    die("internal: rank %d: compute + exposed comm + memory exposed + idle != window", w->r);
  if (f->wait_exp + f->xfer_exp != f->exposed) die("internal: rank %d: exposed wait + transfer != exposed comm", w->r);
  iv_free(&cp); iv_free(&cm); iv_free(&mem); iv_free(&hd); iv_free(&tl); iv_free(&u1); iv_free(&u2);
}

static void group_figs(const ctx_t *c, const rw_t *w, const inst_set *is, int g, gfigs *out) {
  ivls cp = {0}, cm = {0}, hd = {0}, tl = {0}, u = {0};
  for (size_t i = 0; i < w->rec.n; i++) {
    const grec *e = &w->rec.v[i];
    if (!e->written) continue;
    if (e->cls == REC_COMPUTE) iv_add(&cp, e->t, e->t + e->d);
    if (e->cls == REC_COMM && e->group == g && rec_matched(c, is, e)) {
      long long bytes = e->ci ? e->ci->bytes : c->bucket_bytes;
      double sf = e->ci ? e->ci->sf : (double)c->bucket_bytes * 2.0 * (c->o.ranks - 1) / c->o.ranks;
      if (bytes >= 1048576) { out->sf += sf; out->tsum += (double)(e->d - e->wait); }
    }
  }
  iv_norm(&cp);
  comm_lists(c, w, is, g, &cm, &hd, &tl);
  out->comm += iv_len(&cm);
  out->exposed += iv_len(&cm) - iv_inter(&cm, &cp);
  out->xfer_exp += iv_len(&tl) - iv_inter(&tl, &cp);
  iv_union(&cp, &tl, &u);
  out->wait_exp += iv_len(&hd) - iv_inter(&hd, &u);
  iv_free(&cp); iv_free(&cm); iv_free(&hd); iv_free(&tl); iv_free(&u);
}

/* the classic job: interval figures of the file == closed form */
void truth_check_classic(const ctx_t *c, int r, const rw_t *w) {
  rank_truth t;
  rank_truth_build(c, r, &t);
  const rw_t *one[1] = {w};
  inst_set is = {0};
  /* every classic instance is on every rank: count this rank's only, as if all ranks had it */
  inst_build((rw_t **)one, 1, &is);
  for (size_t i = 0; i < is.n; i++) is.v[i].count = c->groups[0].size;
  figs f;
  rank_figs(c, w, &is, &f);
  free(is.v);
  if (f.window != t.window || f.compute != t.compute || f.comm != t.comm || f.overlapped != t.overlapped ||
      f.exposed != t.exposed || f.mem != t.mem || f.mem_exposed != t.mem_exposed || f.idle != t.idle ||
      f.wait_exp != t.wait_exp || f.xfer_exp != t.xfer_exp || f.wait_all != t.wait_all || f.xfer_all != t.xfer_all)
    die("internal: rank %d: interval figures differ from the closed form", r);
}

/* ------------------------------------------------------------------ extended expected.json */
static void fput_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const char *p = s; *p; p++) {
    if (*p == '"' || *p == '\\') fputc('\\', f);
    if ((unsigned char)*p < 0x20) fprintf(f, "\\u%04x", (unsigned char)*p); else fputc(*p, f);
  }
  fputc('"', f);
}
static void fput_num_or_null(FILE *f, int ok, double v, const char *fmt) {
  if (ok) fprintf(f, fmt, v); else fputs("null", f);
}
static int64_t mean_step(const rw_t *w) {
  int64_t s = 0;
  for (int i = 0; i < w->nsteps_written; i++) s += w->step_span[i];
  return w->nsteps_written ? (s + w->nsteps_written / 2) / w->nsteps_written : 0;
}
static double mfu_of(const ctx_t *c, const rw_t *w) {
  int64_t s = 0;
  for (int i = 0; i < w->nsteps_written; i++) s += w->step_span[i];
  double st = (double)s / w->nsteps_written * 1e-9;
  return c->flops_step / c->peak / st;
}
static int has_mfu(const ctx_t *c) { return c->peak > 0 && c->mode != MODE_IDLE; }

static void write_rank_entry(const ctx_t *c, FILE *f, const rw_t *w, const inst_set *is, int win) {
  char b[40], fn[160];
  figs x;
  rank_figs(c, w, is, &x);
  int r = w->r;
  fprintf(f, "    {\"rank\": %d, \"pid\": %" PRId64 ", \"device\": %d", r, c->pid[r], w->dev);
  fprintf(f, ", \"clock_offset_us\": %s", fmt_us(b, c->off[r]));
  fprintf(f, ", \"window_start_us\": %s", fmt_us(b, x.first_gpu + c->off[r] - (c->o.relative ? w->base : 0)));
  fprintf(f, ", \"window_us\": %s", fmt_us(b, x.window));
  fprintf(f, ", \"compute_us\": %s", fmt_us(b, x.compute));
  fprintf(f, ", \"comm_us\": %s", fmt_us(b, x.comm));
  fprintf(f, ", \"overlapped_comm_us\": %s", fmt_us(b, x.overlapped));
  fprintf(f, ", \"exposed_comm_us\": %s", fmt_us(b, x.exposed));
  fprintf(f, ", \"memory_us\": %s", fmt_us(b, x.mem));
  fprintf(f, ", \"memory_exposed_us\": %s", fmt_us(b, x.mem_exposed));
  fprintf(f, ", \"idle_us\": %s", fmt_us(b, x.idle));
  fprintf(f, ", \"exposed_wait_us\": %s", fmt_us(b, x.wait_exp));
  fprintf(f, ", \"exposed_transfer_us\": %s", fmt_us(b, x.xfer_exp));
  fprintf(f, ", \"comm_wait_us\": %s", fmt_us(b, x.wait_all));
  fprintf(f, ", \"comm_transfer_us\": %s", fmt_us(b, x.xfer_all));
  fprintf(f, ", \"step_time_us\": %s", fmt_us(b, mean_step(w)));
  fprintf(f, ", \"mfu\": ");
  fput_num_or_null(f, has_mfu(c) && c->o.shapes, has_mfu(c) ? mfu_of(c, w) : 0, "%.9f");
  fprintf(f, ", \"flops_per_step\": %.0f", c->mode == MODE_IDLE ? 0.0 : c->flops_step);
  fprintf(f, ", \"kernels\": %lld, \"comm_kernels\": %lld, \"memory_events\": %lld", w->n_kernels, w->n_comm, w->n_mem);
  fprintf(f, ", \"gpu_events\": %lld", w->n_gpu);
  rank_file_name(c, r, win, fn, sizeof fn);
  fprintf(f, ", \"file\": ");
  fput_str(f, fn);
  fprintf(f, ", \"node\": %d, \"host\": \"node%d\", \"local_rank\": %d", r / c->o.gpn, r / c->o.gpn, r % c->o.gpn);
  if (c->o.rocm) fprintf(f, ", \"agent_id\": %d, \"device_properties_id\": 0", w->dev);
  fprintf(f, ", \"groups\": [");
  int first = 1;
  for (int g = 0; g < c->ngroups; g++)
    for (int i = 0; i < c->groups[g].size; i++)
      if (c->groups[g].ranks[i] == r) { fprintf(f, "%s\"%s\"", first ? "" : ", ", c->groups[g].name); first = 0; }
  fprintf(f, "], \"steps_in_file\": %d", w->nsteps_written);
  fprintf(f, ", \"matched_wait_us\": %s", fmt_us(b, x.matched_wait));
  fprintf(f, ", \"matched_transfer_us\": %s", fmt_us(b, x.matched_xfer));
  fprintf(f, ", \"unmatched_comm_us\": %s", fmt_us(b, x.unmatched_comm));
  fprintf(f, ", \"negative_ts_events\": %" PRId64, w->neg_events);
  if (c->mode == MODE_IDLE) idle_write_expected_rank(c, f, w);
  fprintf(f, "}");
}

static int cmp_group_name(const void *x, const void *y) {
  const pgroup *const *p = x, *const *q = y;
  return strcmp((*p)->name, (*q)->name);
}

static void write_groups(const ctx_t *c, FILE *f, rw_t **ws, const inst_set *is, const char *ind) {
  char b[40];
  const pgroup **order = xcalloc((size_t)c->ngroups, sizeof *order);
  for (int g = 0; g < c->ngroups; g++) order[g] = &c->groups[g];
  qsort(order, (size_t)c->ngroups, sizeof *order, cmp_group_name);
  fprintf(f, "[\n");
  for (int oi = 0; oi < c->ngroups; oi++) {
    const pgroup *pg = order[oi];
    int g = (int)(pg - c->groups);
    gfigs x;
    memset(&x, 0, sizeof x);
    for (int i = 0; i < pg->size; i++) group_figs(c, ws[pg->ranks[i]], is, g, &x);
    fprintf(f, "%s  {\"name\": \"%s\", \"desc\": \"%s\", \"ranks\": [", ind, pg->name, pg->desc);
    for (int i = 0; i < pg->size; i++) fprintf(f, "%s%d", i ? ", " : "", pg->ranks[i]);
    fprintf(f, "], \"size\": %d, \"ranks_present\": %d, \"nodes\": %d, \"scope\": \"%s\"", pg->size, pg->size, pg->nodes,
            pg->nodes > 1 ? "inter-node" : "intra-node");
    fprintf(f, ", \"comm_us\": %s", fmt_us(b, x.comm));
    fprintf(f, ", \"exposed_comm_us\": %s", fmt_us(b, x.exposed));
    if (pg->size > 1) {
      fprintf(f, ", \"exposed_transfer_us\": %s", fmt_us(b, x.xfer_exp));
      fprintf(f, ", \"exposed_wait_us\": %s", fmt_us(b, x.wait_exp));
    } else {
      fprintf(f, ", \"exposed_transfer_us\": null, \"exposed_wait_us\": null");
    }
    fprintf(f, ", \"busbw_GBps\": ");
    fput_num_or_null(f, x.tsum > 0, x.tsum > 0 ? x.sf / x.tsum : 0, "%.6f");
    if (c->mode == MODE_HOST) { /* the planted time model: transfer = alpha + S·f / beta */
      int inter = pg->nodes > 1;
      fprintf(f, ", \"model\": {\"alpha_us\": %s, \"beta_GBps\": %.6f}",
              fmt_us(b, inter ? c->o.alpha_ns : c->o.intra_alpha_ns), inter ? c->o.inter_bw : c->o.tp_busbw);
    }
    fprintf(f, "}%s\n", oi + 1 < c->ngroups ? "," : "");
  }
  fprintf(f, "%s]", ind);
  free(order);
}

static void write_damage(const ctx_t *c, FILE *f, rw_t **ws, const inst_set *is) {
  int n = c->o.ranks;
  fprintf(f, "  \"damage\": {\"dropped_kernels\": [");
  for (int d = 0; d < c->o.ndrop; d++) {
    const rw_t *w = ws[c->o.drop_rank[d]];
    long long k = 0;
    const grec *hit = NULL;
    for (size_t i = 0; i < w->rec.n && !hit; i++)
      if (w->rec.v[i].cls == REC_COMM && ++k == c->o.drop_k[d]) hit = &w->rec.v[i];
    if (!hit) die("--drop-kernel %d:%d: rank %d has only %lld collective kernels", c->o.drop_rank[d], c->o.drop_k[d],
                  c->o.drop_rank[d], k);
    fprintf(f, "%s{\"rank\": %d, \"index\": %d, \"step_number\": %d, \"group\": \"%s\", \"seq\": %" PRId64 "}",
            d ? ", " : "", c->o.drop_rank[d], c->o.drop_k[d], c->first_step + hit->step,
            c->groups[hit->real_group].name, hit->seq);
  }
  fprintf(f, "], \"cut\": ");
  if (c->o.cut_rank >= 0)
    fprintf(f, "{\"rank\": %d, \"steps_kept\": %d, \"last_step_number\": %d}", c->o.cut_rank, c->o.cut_steps,
            c->first_step + win_first_step(c, c->nwin - 1) + c->o.cut_steps - 1);
  else
    fprintf(f, "null");
  /* instances some rank of their group lacks: every (group, seq) any rank wrote or dropped */
  fprintf(f, ", \"unmatched_instances\": [");
  int first = 1;
  for (size_t i = 0; i < is->n; i++) {
    const inst *x = &is->v[i];
    const pgroup *pg = &c->groups[x->g];
    if (x->count == pg->size) continue;
    int step = -1;
    for (int r = 0; r < n && step < 0; r++)
      for (size_t k = 0; k < ws[r]->rec.n; k++)
        if (ws[r]->rec.v[k].cls == REC_COMM && ws[r]->rec.v[k].real_group == x->g && ws[r]->rec.v[k].seq == x->seq) {
          step = ws[r]->rec.v[k].step;
          break;
        }
    fprintf(f, "%s{\"group\": \"%s\", \"seq\": %" PRId64 ", \"step_number\": %d, \"missing_ranks\": [", first ? "" : ", ",
            pg->name, x->seq, c->first_step + step);
    first = 0;
    int fm = 1;
    for (int m = 0; m < pg->size; m++) {
      const rw_t *w = ws[pg->ranks[m]];
      int has = 0;
      for (size_t k = 0; k < w->rec.n && !has; k++)
        has = w->rec.v[k].cls == REC_COMM && w->rec.v[k].written && w->rec.v[k].real_group == x->g &&
              w->rec.v[k].seq == x->seq;
      if (!has) { fprintf(f, "%s%d", fm ? "" : ", ", pg->ranks[m]); fm = 0; }
    }
    fprintf(f, "]}");
  }
  fprintf(f, "]},\n");
}

/* the instances of the window, counting the dropped kernels as absent and the cut rank's missing steps */
static void window_insts(rw_t **ws, int n, inst_set *is, inst_set *all) {
  inst_build(ws, n, is);
  /* all: every instance any rank met, written or not (for the damage list) */
  size_t tot = 0;
  for (int r = 0; r < n; r++) tot += ws[r]->rec.n;
  all->v = xcalloc(tot + 1, sizeof *all->v);
  all->n = 0;
  for (int r = 0; r < n; r++)
    for (size_t i = 0; i < ws[r]->rec.n; i++) {
      const grec *e = &ws[r]->rec.v[i];
      if (e->cls != REC_COMM) continue;
      all->v[all->n].g = e->real_group;
      all->v[all->n].seq = e->seq;
      all->n++;
    }
  qsort(all->v, all->n, sizeof *all->v, cmp_inst);
  size_t k = 0;
  for (size_t i = 0; i < all->n; i++)
    if (k == 0 || all->v[k - 1].g != all->v[i].g || all->v[k - 1].seq != all->v[i].seq) all->v[k++] = all->v[i];
  all->n = k;
  for (size_t i = 0; i < all->n; i++) all->v[i].count = inst_count(is, all->v[i].g, all->v[i].seq);
}

static void write_window_body(const ctx_t *c, FILE *f, rw_t **ws, const inst_set *is, int win, const char *ind) {
  int n = c->o.ranks;
  fprintf(f, "%s\"per_rank\": [\n", ind);
  for (int r = 0; r < n; r++) {
    fputs(ind, f);
    write_rank_entry(c, f, ws[r], is, win);
    fprintf(f, "%s\n", r + 1 < n ? "," : "");
  }
  fprintf(f, "%s],\n%s\"process_groups\": ", ind, ind);
  write_groups(c, f, ws, is, ind);
}

static void write_collective_kinds(const ctx_t *c, FILE *f, const rw_t *w0) {
  char b[40];
  int nci = 0;
  const collinfo *ci = md_collinfo(c, &nci);
  fprintf(f, "  \"collective_kinds\": [");
  int first = 1;
  for (int k = 0; k < nci; k++) {
    long long cnt = 0;
    for (size_t i = 0; i < w0->rec.n; i++) cnt += w0->rec.v[i].cls == REC_COMM && w0->rec.v[i].ci == &ci[k];
    if (cnt == 0) continue;
    const char *desc = ci[k].gkind == G_TP ? "TP" : ci[k].gkind == G_DP ? (c->o.tp == 1 ? "default_pg" : "DP") : "default_pg";
    fprintf(f, "%s\n    {\"collective\": \"%s\", \"group_desc\": \"%s\", \"per_step\": %lld, \"bytes\": %lld", first ? "" : ",",
            ci[k].coll_name, desc, cnt / w0->nsteps_written, ci[k].bytes);
    fprintf(f, ", \"in_nelems\": %lld, \"out_nelems\": %lld, \"dtype\": \"%s\", \"stream\": %d", ci[k].in_nelems,
            ci[k].out_nelems, ci[k].dtype, ci[k].stream);
    double factor = ci[k].sf / (double)ci[k].bytes, algbw = (double)ci[k].bytes / (double)ci[k].T;
    fprintf(f, ", \"factor\": %.6f, \"transfer_us\": %s, \"algbw_GBps\": %.6f, \"busbw_GBps\": %.6f, \"kernel\": \"%s\"}",
            factor, fmt_us(b, ci[k].T), algbw, algbw * factor, ci[k].kname);
    first = 0;
  }
  fprintf(f, "\n  ],\n");
}

static const char *LIBS[] = {"nccl", "deepep", "symm", "vllm"};
const char *const tg_idle_names[IDLE_CAUSES] = {NULL, "sync", "launch", "dataloader", "mixed", "graph"};

static void write_header(const ctx_t *c, FILE *f) {
  char b1[40];
  static const char *dtn[] = {"bf16", "fp16", "fp32", "fp8"};
  static const char *lay[] = {"kineto", "oneline", "indent4", "indent2sorted"};
  const options *o = &c->o;
  int last = c->nwin - 1, n = o->ranks;
  fprintf(f, "{\n  \"generator\": \"tracegen\",\n  \"version\": 1,\n");
  fprintf(f, "  \"ranks\": %d,\n  \"steps\": %d,\n  \"first_step_number\": %d,\n", n, c->nwin > 1 ? c->win_steps : c->S,
          c->first_step + win_first_step(c, last));
  fprintf(f, "  \"seed\": %" PRIu64 ",\n", o->seed);
  fprintf(f, "  \"files\": [");
  char fn[160];
  for (int w = 0; w < c->nwin; w++)
    for (int r = 0; r < n; r++) {
      rank_file_name(c, r, w, fn, sizeof fn);
      fprintf(f, "%s", w || r ? ", " : "");
      fput_str(f, fn);
    }
  fprintf(f, "],\n");
  fprintf(f, "  \"layout\": \"%s\",\n  \"time_format\": \"%s\",\n  \"time_quantum_ns\": %" PRId64 ",\n", lay[o->layout],
          o->relative ? "relative" : "epoch", c->q);
  fprintf(f, "  \"gpu\": ");
  fput_str(f, o->gpu);
  fprintf(f, ",\n  \"dtype\": \"%s\",\n  \"gemm\": [%lld, %lld, %lld],\n  \"layers\": %d,\n", dtn[o->dtype], o->gm, o->gn,
          o->gk, o->layers);
  if (c->peak > 0) fprintf(f, "  \"peak_flops\": %.1f,\n", c->peak); else fprintf(f, "  \"peak_flops\": null,\n");
  int shapes = o->shapes && c->mode != MODE_IDLE;
  fprintf(f, "  \"shapes_recorded\": %s,\n  \"seq_recorded\": %s,\n  \"pg_recorded\": %s,\n  \"coll_args_on_kernels\": %s,\n",
          shapes ? "true" : "false", (o->seq && o->pg) ? "true" : "false", o->pg ? "true" : "false",
          (o->collargs && o->comm_lib == LIB_NCCL) ? "true" : "false");
  fprintf(f, "  \"busbw_GBps\": %.6f,\n  \"bucket_bytes\": %lld,\n  \"buckets\": %d,\n  \"hidden_buckets\": %d,\n"
             "  \"exposed_buckets\": %d,\n",
          o->busbw, c->bucket_bytes, c->K, c->H, c->E);
  if (o->straggler >= 0)
    fprintf(f, "  \"straggler_rank\": %d,\n  \"straggler_delay_us\": %s,\n", o->straggler, fmt_us(b1, c->D));
  else
    fprintf(f, "  \"straggler_rank\": null,\n  \"straggler_delay_us\": 0.000,\n");
  fprintf(f, "  \"jitter_max_us\": %s,\n", fmt_us(b1, c->J));
  fprintf(f, "  \"flops_per_step\": %.0f,\n", c->mode == MODE_IDLE ? 0.0 : c->flops_step);
  int s0 = win_first_step(c, last), s1 = s0 + (c->nwin > 1 ? c->win_steps : c->S);
  fprintf(f, "  \"step_time_us\": %s,\n", fmt_us(b1, (c->P[s1] - c->P[s0] + (s1 - s0) / 2) / (s1 - s0)));
}

void write_expected_ext(const ctx_t *c, const char *path, rw_t **ws) {
  FILE *f = fopen(path, "w");
  if (!f) die("cannot create %s: %s", path, strerror(errno));
  const options *o = &c->o;
  int n = o->ranks, last = c->nwin - 1;
  char b1[40];
  write_header(c, f);
  inst_set is, all;
  window_insts(ws + (size_t)last * n, n, &is, &all);
  write_window_body(c, f, ws + (size_t)last * n, &is, last, "  ");
  fprintf(f, ",\n");
  /* collectives: the classic allreduce (multi-dimensional jobs: collective_kinds) */
  write_a2a_truth(c, f, ws[(size_t)last * n]->nsteps_written);
  if (c->mode == MODE_CLASSIC && c->K > 0) {
    double algbw = (double)c->bucket_bytes / (double)c->T, factor = 2.0 * (n - 1) / n;
    fprintf(f, "  \"collectives\": {\"name\": \"allreduce\", \"count\": %lld, \"per_step\": %d, \"bytes\": %lld",
            (long long)ws[(size_t)last * n]->nsteps_written * c->K, c->K, c->bucket_bytes);
    fprintf(f, ", \"factor\": %.6f, \"transfer_us\": %s, \"algbw_GBps\": %.6f, \"busbw_GBps\": %.6f},\n", factor,
            fmt_us(b1, c->T), algbw, algbw * factor);
  } else {
    fprintf(f, "  \"collectives\": null,\n");
  }
  fprintf(f, "  \"mode\": \"%s\",\n", c->mode == MODE_MD     ? "multi-dim"
                                       : c->mode == MODE_IDLE ? "idle-cause"
                                       : c->mode == MODE_HOST ? "pytorch-host"
                                                              : "classic");
  int nodes = (n + o->gpn - 1) / o->gpn;
  fprintf(f, "  \"gpus_per_node\": %d,\n  \"nodes\": %d,\n  \"file_names\": \"%s\",\n", o->gpn, nodes,
          (const char *[]){"rank", "handler", "record", "worker"}[o->handler_names]);
  fprintf(f, "  \"comm_lib\": \"%s\",\n  \"rocm_agent_ids\": %s,\n  \"negative_ts\": %s,\n", LIBS[o->comm_lib],
          o->rocm ? "true" : "false", o->negts ? "true" : "false");
  if (c->mode == MODE_MD || c->mode == MODE_HOST) {
    int dp = n / o->tp;
    fprintf(f, "  \"parallel\": {\"tp\": %d, \"dp\": %d, \"fsdp\": %s, \"tp_busbw_GBps\": %.6f, \"dp_busbw_GBps\": %.6f"
               ", \"tp_jitter_max_us\": %s},\n",
            o->tp, dp, o->fsdp ? "true" : "false", o->tp_busbw, o->dp_busbw, fmt_us(b1, o->tp_jitter_ns));
    write_collective_kinds(c, f, ws[(size_t)last * n]);
  } else {
    fprintf(f, "  \"parallel\": null,\n");
  }
  if (o->ndrop || o->cut_rank >= 0) write_damage(c, f, ws + (size_t)last * n, &all);
  else fprintf(f, "  \"damage\": null,\n");
  if (c->mode == MODE_HOST) host_write_expected(c, f);
  fprintf(f, "  \"idle_cause\": ");
  if (o->idle_cause) fprintf(f, "\"%s\"", tg_idle_names[o->idle_cause]); else fprintf(f, "null");
  free(is.v);
  free(all.v);
  if (c->nwin > 1) {
    fprintf(f, ",\n  \"windows\": [\n");
    for (int w = 0; w < c->nwin; w++) {
      rw_t **ww = ws + (size_t)w * n;
      window_insts(ww, n, &is, &all);
      int s0 = win_first_step(c, w), s1 = s0 + c->win_steps;
      fprintf(f, "    {\"index\": %d, \"first_step_number\": %d, \"steps\": %d, \"step_time_us\": %s, \"files\": [", w + 1,
              c->first_step + s0, c->win_steps, fmt_us(b1, (c->P[s1] - c->P[s0] + (s1 - s0) / 2) / (s1 - s0)));
      char fn[160];
      for (int r = 0; r < n; r++) {
        rank_file_name(c, r, w, fn, sizeof fn);
        fprintf(f, "%s", r ? ", " : "");
        fput_str(f, fn);
      }
      fprintf(f, "],\n");
      write_window_body(c, f, ww, &is, w, "     ");
      fprintf(f, "}%s\n", w + 1 < c->nwin ? "," : "");
      free(is.v);
      free(all.v);
    }
    fprintf(f, "  ]");
  }
  fprintf(f, "\n}\n");
  if (fclose(f) != 0) die("write %s: %s", path, strerror(errno));
}
