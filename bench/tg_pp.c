/* tg_pp.c: pipeline-parallel jobs (issue 33, --pp N --microbatches M): D = ranks / N pipelines of N
 * stages, stage s of pipeline d on rank s·D + d (Megatron-LM's order), running a GPipe schedule
 * (every microbatch's forward, then every backward) with blocking point-to-point send/recv kernels
 * between neighbouring stages, as Megatron-LM without overlapped P2P waits for each: a rank's
 * kernels never overlap. One stage (--pp-slow-stage) computes --pp-slow-factor times as long. The
 * P2P kernels carry PyTorch's args (Collective name send/recv, Dst Rank / Src Rank, Seq 1); forward
 * kernels run under aten::linear, backward ones under autograd::engine::evaluate_function:
 * MmBackward0. A simulation places every kernel; expected.json's pipeline truth is computed from
 * those kernels by the definitions of docs/definitions.md "Pipeline bubble". */
#define _POSIX_C_SOURCE 200809L
#include "tracegen.h"

enum { PK_FWD, PK_BGI, PK_BGW, PK_OPT, PK_SEND, PK_RECV };

typedef struct {
  int kind, mb, peer;      /* PK_*, microbatch, peer's global rank (P2P) */
  int64_t t, d;            /* true time */
  int64_t arrival;         /* P2P: the later start of the pair */
  int charged_to;          /* P2P: the rank whose kernel arrived later (-1: none waited) */
  int64_t partner_wait;    /* P2P: the partner kernel's wait (charged to this rank when it arrived later) */
  int step;
  int prank;               /* P2P: the partner's rank; pidx its index in that rank's list */
  size_t pidx;
  int lost;                /* --drop-kernel: the profiler lost this kernel (its CPU ops stay) */
} pk;

typedef struct {
  pk *v;
  size_t n, cap;
} pk_list;

struct pp_model {
  int P, M, D;             /* stages, microbatches, pipelines */
  int64_t F, X;            /* forward kernel time per microbatch (backward: two of them); P2P transfer */
  long long act_nelems;    /* elements of an activation (M·N of the GEMM) */
  pk_list *k;              /* per rank: every kernel in time order */
  size_t *step_first;      /* per rank, per step: first kernel index; S+1 entries each */
};

static void pk_add(pk_list *l, const pk *k) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    l->v = xrealloc(l->v, l->cap, sizeof *l->v);
  }
  l->v[l->n++] = *k;
}

static int stage_of(const struct pp_model *m, int r) { return r / m->D; }
static int rank_of(const struct pp_model *m, int d, int s) { return s * m->D + d; }

void pp_init(ctx_t *c) {
  const options *o = &c->o;
  if (o->ranks % o->pp) die("--pp %d: --ranks %d is not a multiple of it", o->pp, o->ranks);
  struct pp_model *m = xcalloc(1, sizeof *m);
  c->pp = m;
  m->P = o->pp;
  m->M = o->microbatches;
  m->D = o->ranks / o->pp;
  m->F = (o->compute_ns / (3LL * m->M) + c->q / 2) / c->q * c->q;
  if (m->F < 20 * US) die("--compute-us over 3 x %d microbatch kernels is under 20 us each", m->M);
  m->act_nelems = o->gm * o->gn;
  double xns = (double)m->act_nelems * c->esize / o->busbw;
  m->X = ((int64_t)llround(xns) + c->q / 2) / c->q * c->q;
  if (m->X < 20 * US) die("P2P transfer %.3f us is under 20 us: raise --gemm or lower --busbw-GBps", m->X / 1e3);
  if (2 * c->SPR >= m->X) die("--end-spread-us must be under half the P2P transfer (%.3f us)", m->X / 1e3);
  if (c->I < 50 * US) die("--idle-us must be >= 50 with --pp");
  if (o->pp_slow >= m->P) die("--pp-slow-stage %d: only %d stages", o->pp_slow, m->P);
  /* the process groups: the world, then one PP group per pipeline */
  c->groups = xrealloc(c->groups, (size_t)(1 + m->D), sizeof *c->groups);
  for (int d = 0; d < m->D; d++) {
    pgroup *g = &c->groups[1 + d];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%d", 1 + d);
    g->desc = "PP";
    g->kind = G_DP;
    g->size = m->P;
    g->stride = m->D;
    g->ranks = xcalloc((size_t)m->P, sizeof(int));
    size_t cap = (size_t)m->P * 8 + 4, len = 0;
    g->ranks_str = xcalloc(1, cap);
    g->ranks_str[len++] = '[';
    for (int s = 0; s < m->P; s++) {
      g->ranks[s] = rank_of(m, d, s);
      len += (size_t)snprintf(g->ranks_str + len, cap - len, "%s%d", s ? ", " : "", g->ranks[s]);
    }
    g->ranks_str[len++] = ']';
    g->nodes = 1 + (g->ranks[m->P - 1] / o->gpn) - (g->ranks[0] / o->gpn);
  }
  c->ngroups = 1 + m->D;
}

void pp_free(ctx_t *c) {
  struct pp_model *m = c->pp;
  if (!m) return;
  for (int r = 0; m->k && r < c->o.ranks; r++) free(m->k[r].v);
  free(m->k);
  free(m->step_first);
  free(m);
  c->pp = NULL;
}

/* One program op of a stage: compute (PK_FWD/PK_BGI/PK_BGW/PK_OPT) or a blocking P2P with a peer. */
typedef struct { int kind, mb, peer_stage; } pop;

/* Stage s's GPipe program: forwards (recv, F, send), backwards (recv, two GEMMs, send), optimizer. */
static size_t program(const struct pp_model *m, int s, pop *out) {
  size_t n = 0;
  for (int b = 0; b < m->M; b++) {
    if (s > 0) out[n++] = (pop){PK_RECV, b, s - 1};
    out[n++] = (pop){PK_FWD, b, -1};
    if (s < m->P - 1) out[n++] = (pop){PK_SEND, b, s + 1};
  }
  for (int b = 0; b < m->M; b++) {
    if (s < m->P - 1) out[n++] = (pop){PK_RECV, b, s + 1};
    out[n++] = (pop){PK_BGI, b, -1};
    out[n++] = (pop){PK_BGW, b, -1};
    if (s > 0) out[n++] = (pop){PK_SEND, b, s - 1};
  }
  out[n++] = (pop){PK_OPT, 0, -1};
  return n;
}

/* the time quantum's share of a leave-early: rank r leaves transfer k of step st up to SPR early */
static int64_t pp_spread(const ctx_t *c, int st, int r, int k) {
  if (!c->SPR) return 0;
  return (int64_t)(h4(c->o.seed, 0x9905 + (uint64_t)st, (uint64_t)r, (uint64_t)k) % (uint64_t)(c->SPR / c->q + 1)) * c->q;
}

/* One step of pipeline d from true time t0 (every stage's first op); returns its last end. */
static int64_t simulate_step(ctx_t *c, int d, int st, int64_t t0) {
  struct pp_model *m = c->pp;
  int P = m->P;
  size_t cap = (size_t)m->M * 7 + 4;
  pop **prog = xcalloc((size_t)P, sizeof *prog);
  size_t *n = xcalloc((size_t)P, sizeof *n), *pc = xcalloc((size_t)P, sizeof *pc);
  int64_t *cur = xcalloc((size_t)P, sizeof *cur), end = t0;
  for (int s = 0; s < P; s++) {
    prog[s] = xcalloc(cap, sizeof **prog);
    n[s] = program(m, s, prog[s]);
    cur[s] = t0;
  }
  for (int progress = 1; progress;) {
    progress = 0;
    for (int s = 0; s < P; s++)
      while (pc[s] < n[s]) {
        const pop *op = &prog[s][pc[s]];
        int r = rank_of(m, d, s);
        double f = s == c->o.pp_slow ? c->o.pp_slow_factor : 1.0;
        if (op->kind != PK_SEND && op->kind != PK_RECV) {
          int64_t dur = op->kind == PK_OPT ? c->OPT : ((int64_t)llround((double)m->F * f) + c->q / 2) / c->q * c->q;
          pk k = {op->kind, op->mb, -1, cur[s], dur, 0, -1, 0, st, -1, 0, 0};
          pk_add(&m->k[r], &k);
          cur[s] += dur;
          pc[s]++;
          progress = 1;
          continue;
        }
        int q = op->peer_stage;
        const pop *po = pc[q] < n[q] ? &prog[q][pc[q]] : NULL;
        int want = op->kind == PK_SEND ? PK_RECV : PK_SEND;
        if (!po || po->kind != want || po->mb != op->mb || po->peer_stage != s) break; /* blocked */
        int rq = rank_of(m, d, q);
        int64_t a = cur[s] > cur[q] ? cur[s] : cur[q];
        int later = cur[s] == cur[q] ? -1 : cur[s] > cur[q] ? r : rq;
        int kx = (int)m->k[r].n;
        int64_t es = pp_spread(c, st, r, kx), eq = pp_spread(c, st, rq, kx);
        pk ks = {op->kind, op->mb, rq, cur[s], a + m->X - es - cur[s], a, later, a - cur[q], st, rq, m->k[rq].n, 0};
        pk kq = {po->kind, po->mb, r, cur[q], a + m->X - eq - cur[q], a, later, a - cur[s], st, r, m->k[r].n, 0};
        pk_add(&m->k[r], &ks);
        pk_add(&m->k[rq], &kq);
        cur[s] = a + m->X - es;
        cur[q] = a + m->X - eq;
        pc[s]++;
        pc[q]++;
        progress = 1;
      }
  }
  for (int s = 0; s < P; s++) {
    if (pc[s] != n[s]) die("internal: the pipeline schedule deadlocks at stage %d", s);
    if (cur[s] > end) end = cur[s];
    free(prog[s]);
  }
  free(prog); free(n); free(pc); free(cur);
  return end;
}

void pp_build(ctx_t *c, int S) {
  struct pp_model *m = c->pp;
  int R = c->o.ranks;
  free(c->P);
  c->S = S;
  c->P = xcalloc((size_t)S + 1, sizeof(int64_t));
  m->k = xcalloc((size_t)R, sizeof *m->k);
  m->step_first = xcalloc((size_t)R * (size_t)(S + 1), sizeof *m->step_first);
  c->P[0] = T0_NS;
  for (int st = 0; st < S; st++) {
    for (int r = 0; r < R; r++) m->step_first[(size_t)r * (S + 1) + st] = m->k[r].n;
    int64_t end = c->P[st];
    for (int d = 0; d < m->D; d++) {
      int64_t e = simulate_step(c, d, st, c->P[st] + c->I);
      if (e > end) end = e;
    }
    c->P[st + 1] = end + 20 * US; /* the host's sync returns, the next step starts */
  }
  for (int r = 0; r < R; r++) m->step_first[(size_t)r * (S + 1) + S] = m->k[r].n;
  for (int i = 0; i < c->o.ndrop; i++) { /* --drop-kernel R:K: rank R's K-th P2P kernel is lost */
    pk_list *l = &m->k[c->o.drop_rank[i]];
    int seen = 0;
    for (size_t k = 0; k < l->n; k++)
      if ((l->v[k].kind == PK_SEND || l->v[k].kind == PK_RECV) && ++seen == c->o.drop_k[i]) l->v[k].lost = 1;
    if (seen < c->o.drop_k[i]) die("--drop-kernel %d:%d: rank %d has %d P2P kernels", c->o.drop_rank[i], c->o.drop_k[i],
                                   c->o.drop_rank[i], seen);
  }
}

/* a P2P kernel whose partner is written too */
static int paired(const struct pp_model *m, const pk *k) {
  return (k->kind == PK_SEND || k->kind == PK_RECV) && !k->lost && !m->k[k->prank].v[k->pidx].lost;
}

/* ---- writing ------------------------------------------------------------------------------------ */

typedef struct { const pk *k; int r; const struct pp_model *m; } p2p_arg;

static void p2p_args(rw_t *w, const void *p) {
  const p2p_arg *a = p;
  const ctx_t *c = w->c;
  jw_t *j = &w->j;
  int send = a->k->kind == PK_SEND;
  const pgroup *g = &c->groups[1 + a->r % a->m->D];
  JK(j, "Collective name"); jw_str(j, send ? "send" : "recv");
  JK(j, "In msg nelems"); jw_i64(j, a->m->act_nelems);
  JK(j, "Out msg nelems"); jw_i64(j, a->m->act_nelems);
  JK(j, "Group size"); jw_i64(j, a->m->P);
  JK(j, "dtype"); jw_str(j, c->cdtype);
  JK(j, "In split size"); JRAW(j, "\"[]\"");
  JK(j, "Out split size"); JRAW(j, "\"[]\"");
  JK(j, "Global rank start"); jw_i64(j, g->ranks[0]);
  JK(j, "Global rank stride"); jw_i64(j, g->stride);
  JK(j, "Process Group Name"); jw_str(j, g->name);
  JK(j, "Process Group Description"); jw_str(j, g->desc);
  JK(j, "Process Group Ranks"); jw_str(j, g->ranks_str);
  JK(j, "Rank"); jw_i64(j, stage_of(a->m, a->r));
  if (send) JK(j, "Dst Rank"); else JK(j, "Src Rank");
  jw_i64(j, a->k->peer);
  JK(j, "Seq"); jw_i64(j, 1); /* PyTorch writes 1 on every P2P op */
}

/* kernel k of rank r: its CPU ops and launch in [t − 15 µs, t − 5 µs], the flows, the kernel */
static void write_kernel(rw_t *w, const pk *k) {
  const ctx_t *c = w->c;
  const struct pp_model *m = c->pp;
  jw_t *j = &w->j;
  int64_t t = k->t, corr = ++w->corr, ext;
  int p2p = k->kind == PK_SEND || k->kind == PK_RECV;
  p2p_arg pa = {k, w->r, m};
  if (p2p) {
    ext = cpu_span(w, "cpu_op", "record_param_comms", t - 15 * US, 10 * US, p2p_args, &pa);
    cpu_span(w, "user_annotation", k->kind == PK_SEND ? "nccl:send" : "nccl:recv", t - 14 * US, 8 * US, NULL, NULL);
  } else if (k->kind == PK_FWD) {
    ext = cpu_span(w, "cpu_op", "aten::linear", t - 15 * US, 10 * US, NULL, NULL);
    cpu_span(w, "cpu_op", "aten::addmm", t - 14 * US, 8 * US, NULL, NULL);
  } else if (k->kind == PK_OPT) {
    ext = cpu_span(w, "user_annotation", "Optimizer.step#AdamW.step", t - 15 * US, 10 * US, NULL, NULL);
    cpu_span(w, "cpu_op", "aten::_fused_adamw_", t - 14 * US, 8 * US, NULL, NULL);
  } else {
    ext = cpu_span(w, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", t - 15 * US, 10 * US, NULL, NULL);
    cpu_span(w, "cpu_op", "MmBackward0", t - 14 * US, 8 * US, NULL, NULL);
    cpu_span(w, "cpu_op", "aten::mm", t - 13 * US, 6 * US, NULL, NULL);
  }
  runtime_ev(w, p2p ? "cudaLaunchKernelExC" : "cudaLaunchKernel", p2p ? 430 : 211, t - 12 * US, 4 * US, ext, corr);
  flow(w, 1, corr, w->pid, w->tid, t - 12 * US);
  int stream = p2p ? 20 : 7;
  if (k->lost) return; /* the launch is there, the kernel is not */
  flow(w, 0, corr, w->dev, stream, t);
  if (!p2p) {
    const char *name = k->kind == PK_FWD ? c->gemm_fwd : k->kind == PK_BGI ? c->gemm_bgi : k->kind == PK_BGW ? c->gemm_bgw
                       : "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<FusedAdamMathFunctor>";
    gpu_kernel_ev(w, name, stream, t, k->d, ext, corr);
    return;
  }
  ev_x(w, "kernel", "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", w->dev, stream, t, k->d);
  args_open(w);
  JK(j, "External id"); jw_i64(j, ext);
  JK(j, "queued"); JRAW(j, "0");
  JK(j, "device"); jw_i64(j, w->dev);
  JK(j, "context"); JRAW(j, "1");
  JK(j, "stream"); jw_i64(j, stream);
  JK(j, "correlation"); jw_i64(j, corr);
  p2p_args(w, &pa);
  args_close(w);
  ev_close(w);
  w->n_kernels++;
  w->n_comm++;
  w->n_gpu++;
}

void pp_write_step(rw_t *w, int s) {
  const ctx_t *c = w->c;
  const struct pp_model *m = c->pp;
  int S = c->S;
  size_t a = m->step_first[(size_t)w->r * (S + 1) + s], b = m->step_first[(size_t)w->r * (S + 1) + s + 1];
  const pk *v = m->k[w->r].v;
  int64_t Ps = c->P[s], Pe = c->P[s + 1];
  step_head_at(w, s, Ps, Pe, Ps + c->I - 20 * US, v[a].t, v[b - 1].t + v[b - 1].d);
  for (size_t i = a; i < b; i++) write_kernel(w, &v[i]);
  w->cpu = v[b - 1].t - 5 * US;
  step_sync(w, Pe - 10 * US);
}

/* ---- truth -------------------------------------------------------------------------------------- */

typedef struct { int64_t window, fwd, bwd, bubble, wait, xfer, charged; } ppfig;

static void fig_add(ppfig *a, const ppfig *b) {
  a->window += b->window; a->fwd += b->fwd; a->bwd += b->bwd; a->bubble += b->bubble;
  a->wait += b->wait; a->xfer += b->xfer; a->charged += b->charged;
}

/* stage rank r's figures over step s, within its pipeline's window [w0, w1) */
static ppfig step_fig(const ctx_t *c, int r, int s) {
  const struct pp_model *m = c->pp;
  int S = c->S, d = r % m->D;
  ppfig f = {0, 0, 0, 0, 0, 0, 0};
  int64_t w0 = INT64_MAX, w1 = INT64_MIN;
  for (int q = 0; q < m->P; q++) {
    int rq = rank_of(m, d, q);
    size_t a = m->step_first[(size_t)rq * (S + 1) + s], b = m->step_first[(size_t)rq * (S + 1) + s + 1];
    for (size_t i = a; i < b; i++) {
      const pk *k = &m->k[rq].v[i];
      if (k->lost) continue;
      if (k->t < w0) w0 = k->t;
      if (k->t + k->d > w1) w1 = k->t + k->d;
    }
  }
  f.window = w1 - w0;
  size_t a = m->step_first[(size_t)r * (S + 1) + s], b = m->step_first[(size_t)r * (S + 1) + s + 1];
  for (size_t i = a; i < b; i++) {
    const pk *k = &m->k[r].v[i];
    if (k->kind == PK_FWD || k->kind == PK_OPT) f.fwd += k->d;
    else if (k->kind == PK_BGI || k->kind == PK_BGW) f.bwd += k->d;
    else if (paired(m, k)) {
      f.wait += k->arrival - k->t;
      f.xfer += k->t + k->d - k->arrival;
      if (k->charged_to == r) f.charged += k->partner_wait;
    }
  }
  f.bubble = f.window - f.fwd - f.bwd - f.xfer;
  return f;
}

static void fig_json(FILE *f, const ppfig *x) {
  char b[40];
  fprintf(f, "\"window_us\": %s", fmt_us(b, x->window));
  fprintf(f, ", \"forward_us\": %s", fmt_us(b, x->fwd));
  fprintf(f, ", \"backward_us\": %s", fmt_us(b, x->bwd));
  fprintf(f, ", \"bubble_us\": %s", fmt_us(b, x->bubble));
  fprintf(f, ", \"p2p_wait_us\": %s", fmt_us(b, x->wait));
  fprintf(f, ", \"p2p_transfer_us\": %s", fmt_us(b, x->xfer));
  fprintf(f, ", \"charged_wait_us\": %s", fmt_us(b, x->charged));
}

void pp_write_expected(const ctx_t *c, const char *path) {
  const struct pp_model *m = c->pp;
  const options *o = &c->o;
  FILE *f = fopen(path, "w");
  if (!f) die("cannot create %s: %s", path, strerror(errno));
  char b[40], fn[160];
  fprintf(f, "{\n  \"mode\": \"pipeline\",\n  \"schedule\": \"gpipe\",\n  \"ranks\": %d,\n  \"steps\": %d,\n", o->ranks, c->S);
  fprintf(f, "  \"first_step_number\": %d,\n  \"time_quantum_ns\": %" PRId64 ",\n", c->first_step, c->q);
  fprintf(f, "  \"files\": [");
  for (int r = 0; r < o->ranks; r++) {
    rank_file_name(c, r, 0, fn, sizeof fn);
    fprintf(f, "%s\"%s\"", r ? ", " : "", fn);
  }
  fprintf(f, "],\n  \"clock_offset_us\": [");
  for (int r = 0; r < o->ranks; r++) fprintf(f, "%s%s", r ? ", " : "", fmt_us(b, c->off[r]));
  fprintf(f, "],\n  \"pp\": %d,\n  \"microbatches\": %d,\n  \"pipelines\": %d,\n", m->P, m->M, m->D);
  fprintf(f, "  \"slow_stage\": %d,\n  \"slow_factor\": %.6f,\n", o->pp_slow, o->pp_slow_factor);
  fprintf(f, "  \"forward_kernel_us\": %s,\n", fmt_us(b, m->F));
  fprintf(f, "  \"p2p_transfer_us\": %s,\n", fmt_us(b, m->X));
  fprintf(f, "  \"end_spread_us\": %s,\n", fmt_us(b, c->SPR));
  ppfig all = {0, 0, 0, 0, 0, 0, 0};
  int64_t *per = xcalloc((size_t)m->P, sizeof *per);
  fprintf(f, "  \"pipeline\": {\n    \"stages\": [\n");
  for (int d = 0; d < m->D; d++)
    for (int s = 0; s < m->P; s++) {
      int r = rank_of(m, d, s);
      ppfig tot = {0, 0, 0, 0, 0, 0, 0};
      fprintf(f, "      {\"pipeline\": %d, \"stage\": %d, \"rank\": %d, \"steps\": [", d, s, r);
      for (int st = 0; st < c->S; st++) {
        ppfig x = step_fig(c, r, st);
        fig_add(&tot, &x);
        fprintf(f, "%s{\"step\": %d, ", st ? ", " : "", c->first_step + st);
        fig_json(f, &x);
        fprintf(f, "}");
      }
      fprintf(f, "], ");
      fig_json(f, &tot);
      fprintf(f, "}%s\n", d == m->D - 1 && s == m->P - 1 ? "" : ",");
      fig_add(&all, &tot);
      per[s] += tot.charged;
    }
  int slow = -1;
  int64_t best = 0;
  for (int s = 0; s < m->P; s++) if (per[s] > best) { best = per[s]; slow = s; }
  long long pairs = 0, unpaired = 0;
  for (int r = 0; r < o->ranks; r++)
    for (size_t i = 0; i < m->k[r].n; i++) {
      const pk *k = &m->k[r].v[i];
      pairs += k->kind == PK_SEND && paired(m, k);
      unpaired += (k->kind == PK_SEND || k->kind == PK_RECV) && !k->lost && !paired(m, k);
    }
  fprintf(f, "    ],\n    \"slowest_stage\": %d,\n    \"p2p_pairs\": %lld,\n", slow, pairs);
  fprintf(f, "    \"p2p_unpaired\": %lld,\n", unpaired);
  fprintf(f, "    \"window_us\": %s,\n", fmt_us(b, all.window));
  fprintf(f, "    \"bubble_us\": %s,\n", fmt_us(b, all.bubble));
  fprintf(f, "    \"bubble_share\": %.9f\n  }\n}\n", all.window ? (double)all.bubble / (double)all.window : 0.0);
  free(per);
  if (fclose(f) != 0) die("write %s: %s", path, strerror(errno));
}

/* ---- --nccl-inspector with --pp: the Inspector's p2p_perf records -------------------------------
 * One DIR/node<N>-pid<P>.log per rank, as inspector_json.cc writes them (header, metadata,
 * p2p_perf {p2p Send/Recv, p2p_sn, p2p_peer, p2p_msg_size_bytes, p2p_exec_time_us,
 * p2p_timing_source, p2p_algobw_gbs, p2p_busbw_gbs}), the communicator being the pipeline's process
 * group (p2p_peer the peer's stage) and p2p_sn counting the rank's P2P operations on it; and
 * DIR/nccl_p2p_expected.json, the truth per group: records joined, below the size floor, dropped,
 * CPU-timed (summed over its ranks), NCCL's P2P busbw = Σ bytes / Σ p2p_exec_time_us over the
 * joined records (bus factor 1), the trace's = the same bytes over their kernels' transfer (end −
 * arrival), and the records written before the window. The mess: two records per rank from before
 * the window, about one in 13 of the others dropped (the ring buffer), one in 31 timed on the CPU,
 * exec times rounded to whole µs (the transfer, without the wait), each dumped 1 to 200 µs after its
 * kernel ended (the rank's clock), rank 0's log pretty-printed. */

#define P2P_FLOOR 8192 /* NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES's default */

typedef struct { int64_t joined, below, dropped, cpu; double bytes, us, xfer_ns; } p2p_truth;

static void p2p_record(FILE *f, int pretty, const pgroup *g, int gi, int grank, const char *host, int64_t pid, int send,
                       int peer, int64_t sn, long long bytes, int64_t us, int cpu, int64_t ts_us) {
  const char *nl = pretty ? "\n  " : "";
  double bw = us > 0 ? (double)bytes / (double)us / 1e3 : 0;
  fprintf(f, "{%s\"header\":{\"id\":\"0x%llx\",\"comm_name\":\"unknown\",\"rank\":%d,\"n_ranks\":%d,\"nnodes\":%d},%s"
             "\"metadata\":{\"inspector_output_format_version\":\"v4.0\",\"git_rev\":\"\",\"rec_mechanism\":"
             "\"nccl_profiler_interface\",\"dump_timestamp_us\":%lld,\"hostname\":\"%s\",\"pid\":%lld},%s"
             "\"p2p_perf\":{\"p2p\":\"%s\",\"p2p_sn\":%lld,\"p2p_peer\":%d,\"p2p_msg_size_bytes\":%lld,"
             "\"p2p_exec_time_us\":%lld,\"p2p_timing_source\":\"%s\",\"p2p_algobw_gbs\":%.6f,\"p2p_busbw_gbs\":%.6f}%s}\n",
          nl, 0x7f8c496ae9f600ULL + 0x1111ULL * (unsigned)gi, grank, g->size, g->nodes, nl, (long long)ts_us, host,
          (long long)pid, nl, send ? "Send" : "Recv", (long long)sn, peer, bytes, (long long)us, cpu ? "kernel_cpu" : "kernel_gpu",
          bw, bw, pretty ? "\n" : "");
}

static int cmp_start(const void *a, const void *b) {
  const pk *x = *(const pk *const *)a, *y = *(const pk *const *)b;
  return (x->t > y->t) - (x->t < y->t);
}

/* Rank r's log; adds what it plants to t (per group). Returns the records written before the window. */
static int64_t pp_write_log(const ctx_t *c, const rw_t *w, int r, p2p_truth *t) {
  const struct pp_model *m = c->pp;
  char host[32], path[4096];
  snprintf(host, sizeof host, "node%d", r / c->o.gpn);
  snprintf(path, sizeof path, "%s/%s-pid%lld.log", c->o.outdir, host, (long long)c->pid[r]);
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s", path);
  int gi = 1 + r % m->D, grank = stage_of(m, r);
  const pgroup *g = &c->groups[gi];
  long long bytes = m->act_nelems * c->esize;
  int64_t sn = 100 + 7 * gi, pre = 0, i = 0;
  /* NCCL numbers them in the order they run on the rank's one P2P stream: by start */
  const pk **v = xcalloc(m->k[r].n + 1, sizeof *v);
  size_t n = 0;
  for (size_t e = 0; e < m->k[r].n; e++)
    if (m->k[r].v[e].kind == PK_SEND || m->k[r].v[e].kind == PK_RECV) v[n++] = &m->k[r].v[e];
  qsort(v, n, sizeof *v, cmp_start);
  for (size_t e = 0; e < n; e++) {
    const pk *k = v[e];
    int send = k->kind == PK_SEND, peer = stage_of(m, k->peer);
    int64_t xfer = k->t + k->d - k->arrival, us = llround((double)xfer / 1e3);
    if (i++ == 0 && bytes >= P2P_FLOOR) /* the communicator's operations before the profiler window */
      for (int q = 2; q > 0; q--, pre++)
        p2p_record(f, r == 0, g, gi, grank, host, c->pid[r], send, peer, sn - q, bytes, us, 0, (k->t - 100 * MS + w->off) / US);
    uint64_t h = h4(c->o.seed ^ 0x70327050ULL, (uint64_t)r, (uint64_t)gi, (uint64_t)i);
    int64_t my_sn = sn++;
    if (bytes < P2P_FLOOR) { t[gi].below++; continue; }
    if (h % 13 == 0) { t[gi].dropped++; continue; }
    int cpu = h % 31 == 5;
    p2p_record(f, r == 0, g, gi, grank, host, c->pid[r], send, peer, my_sn, bytes, us, cpu,
               (k->t + k->d + w->off) / US + 1 + (int64_t)(h % 200));
    if (cpu) { t[gi].cpu++; continue; }
    t[gi].joined++;
    t[gi].bytes += (double)bytes;
    t[gi].us += (double)us;
    t[gi].xfer_ns += (double)xfer;
  }
  free(v);
  if (fclose(f)) die("cannot write %s", path);
  return pre;
}

void pp_write_nccl(const ctx_t *c, rw_t *const *ws) {
  p2p_truth *t = xcalloc((size_t)c->ngroups, sizeof *t);
  int64_t pre = 0;
  for (int r = 0; r < c->o.ranks; r++) pre += pp_write_log(c, ws[r], r, t);
  char path[4096];
  snprintf(path, sizeof path, "%s/nccl_p2p_expected.json", c->o.outdir);
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s", path);
  fprintf(f, "{\"min_size_bytes\": %d, \"p2p_records_outside_trace\": %lld, \"groups\": {", P2P_FLOOR, (long long)pre);
  for (int g = 1, first = 1; g < c->ngroups; g++, first = 0) {
    const p2p_truth *x = &t[g];
    fprintf(f, "%s\n  \"%s\": {\"joined\": %lld, \"below_min_size\": %lld, \"dropped\": %lld, \"cpu_timed\": %lld, "
               "\"busbw_GBps\": ", first ? "" : ",", c->groups[g].name, (long long)x->joined, (long long)x->below,
            (long long)x->dropped, (long long)x->cpu);
    if (x->us > 0) fprintf(f, "%.17g", x->bytes / x->us / 1e3); else fprintf(f, "null");
    fprintf(f, ", \"trace_busbw_GBps\": ");
    if (x->xfer_ns > 0) fprintf(f, "%.17g}", x->bytes / x->xfer_ns); else fprintf(f, "null}");
  }
  fprintf(f, "\n}}\n");
  if (fclose(f)) die("cannot write %s", path);
  free(t);
}
