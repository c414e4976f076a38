/* tg_host.c: jobs with a PyTorch-like host on a given fabric (issue 29: pairs of runs that differ
 * only in the inter-node bandwidth and per-collective latency). One CPU thread per rank runs the
 * program of a step (data loader, forward, backward with DDP's bucket hooks, optimizer, a
 * synchronizing call) and runs ahead of its GPU; the GPU ops are timed by a dependency simulation
 * of all ranks together: an op starts when its launch call has returned plus the launch latency,
 * its stream is free and the events it waits for have fired; a collective instance's transfer
 * starts when the last rank's kernel has started, lasts alpha + S·f/beta, and every rank's kernel
 * ends with it. The simulation keeps, for every stretch of time, what bound its start, so the
 * critical path of every step is known by construction and written to expected.json. */
#define _POSIX_C_SOURCE 200809L
#include "tracegen.h"

enum { HP_COPY, HP_GEMM, HP_COLL, HP_WAITB, HP_OPT, HP_BWD, HP_BWD_END };
/* critical-path classes, in the order of model/replay.h's tc_cp_class */
enum { NC_COMPUTE, NC_XINTRA, NC_XINTER, NC_LAUNCH, NC_SYNC, NC_CPU, NC_MEM, NC_IDLE, NC_N };
static const char *const NC_KEY[NC_N] = {"compute", "transfer_intra_node", "transfer_inter_node", "host_launch",
                                         "host_sync", "host_cpu", "memory", "idle"};
#define HS_STREAMS 4 /* per rank: 7 compute, 20 DP (the world when --tp 1), 22 TP, 23 world */

/* host constants (whole µs, so that epoch times hold them exactly) */
#define U_CALL (2 * US)  /* a unit of a CPU block: an event call, a cpu_op's own entry or exit */
#define PY_GAP (8 * US)  /* Python between two ops */
#define LAUNCH_LAT (3 * US) /* a launched op starts no earlier than its launch call's end + this */
#define EVENT_LAT (2 * US)  /* a stream waiting on another stream's event starts this after it fires */
#define SYNC_RET (6 * US)   /* a synchronizing call returns this after the GPU work it waits for */
#define SYNC_MIN (4 * US)   /* a synchronizing call that finds the GPU done */
#define STEP_TAIL (40 * US) /* Python after the sync, before prof.step() */
#define D2H_NS (2 * US)     /* the .item() copy */
#define HANDOFF (10 * US)   /* --autograd-thread: waking the other thread, at backward's start and end */

typedef struct {
  int kind;  /* HP_* */
  int gemm;  /* HP_GEMM: index into gd */
  int ck;    /* HP_COLL: CI_* */
  int sync;  /* HP_COLL: the compute stream waits for it */
  int seqi;  /* HP_COLL: index among its group slot's collectives in the step */
  int k;     /* HP_COLL: collective index in the step (end spread key) */
} hprog;

typedef struct { int64_t t; int node; } front; /* a stream's frontier: what the next op on it waits for */
typedef struct { int64_t t0, t1; int cls, gapcls, rank, pred; } hnode; /* a stretch of the simulation */

typedef struct {
  gop g;       /* the GPU op as written (recorded times; collectives: wait filled per instance) */
  int64_t bs;  /* its CPU block's start */
  int pk;      /* HP_* */
  int sync;    /* HP_COLL: the block ends with the compute stream's event wait */
  int nwait;   /* HP_WAITB: event waits */
  int thr;     /* 1: on the autograd engine's thread (--autograd-thread) */
} hop;

typedef struct {
  int64_t Ps, dl_end, g0, g1, sbs, ss, se, Pe; /* step span, data loader end, GPU span, sync block/call, step end */
  int64_t d2h_t;                               /* .item(): its copy's start */
  size_t op0, op1;                             /* this step's ops in ops[r] */
  int tail;                                    /* node that ends the step */
} hstep;

struct host_model {
  hprog *prog;
  int nprog, cap;
  int per_slot[3];
  hop **ops;
  size_t *nops, *capops;
  hstep *st;                /* [s * n + r] */
  hnode *nodes;
  size_t nn, capn;
  int64_t *cp, *cp_rank, *cp_rank_compute; /* per step: [s * NC_N], [s * n] */
  int inter[CI_N];          /* kind's groups span nodes */
  int64_t ref_step;         /* mean step with every inter-node transfer taking no time */
  double bw_intra;
  /* simulation state */
  int64_t *cpu;
  int *cpun, *thr;
  front *fr;                /* [r * HS_STREAMS + stream] */
  int64_t *k, *X;           /* collective: kernel start per rank, transfer end per group */
  int *bind, *bindcls, *xfer;
};

static int slot_of_kind(const ctx_t *c, int gkind) {
  if (gkind == G_TP) return 1;
  if (gkind == G_DP && c->o.tp > 1) return 2;
  return 0;
}
static int sidx(int stream) { return stream == 7 ? 0 : stream == 20 ? 1 : stream == 22 ? 2 : 3; }
static int group_of_kind(const ctx_t *c, int gkind, int r) {
  return gkind == G_TP ? c->tp_of[r] : gkind == G_DP ? c->dp_of[r] : 0;
}

static hprog *prog_add(struct host_model *m, int kind) {
  if (m->nprog == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 64;
    m->prog = xrealloc(m->prog, (size_t)m->cap, sizeof *m->prog);
  }
  hprog *p = &m->prog[m->nprog++];
  memset(p, 0, sizeof *p);
  p->kind = kind;
  return p;
}
static void add_coll(ctx_t *c, struct host_model *m, int ck, int sync, int *kc) {
  hprog *p = prog_add(m, HP_COLL);
  p->ck = ck;
  p->sync = sync;
  p->k = (*kc)++;
  p->seqi = m->per_slot[slot_of_kind(c, md_collinfo_mut(c)[ck].gkind)]++;
}

/* the program of a step: copy, forward (TP all-reduce after each GEMM), backward (TP all-reduce
 * after each grad-input GEMM; bucket h's hook after backward GEMM ceil((h+1)·2L/K) - 1), DDP's
 * waits, the grad-norm all-reduce on the world (TP jobs), the optimizer */
static void build_program(ctx_t *c, struct host_model *m) {
  int L = c->o.layers, K = c->K, tp = c->o.tp > 1, kc = 0;
  if (c->Mc > 0) prog_add(m, HP_COPY);
  for (int i = 0; i < L; i++) {
    prog_add(m, HP_GEMM)->gemm = i;
    if (tp) add_coll(c, m, CI_TP_AR, 1, &kc);
  }
  int h = 0;
  prog_add(m, HP_BWD);
  for (int j = 0; j < 2 * L; j++) {
    prog_add(m, HP_GEMM)->gemm = L + j;
    if (tp && j % 2 == 0) add_coll(c, m, CI_TP_AR, 1, &kc);
    while (h < K && ((long long)(h + 1) * 2 * L + K - 1) / K - 1 == j) {
      add_coll(c, m, h == 0 && c->o.first_bucket_mib > 0 ? CI_DP_AR1 : CI_DP_AR, 0, &kc);
      h++;
    }
  }
  if (K > 0) prog_add(m, HP_WAITB);
  prog_add(m, HP_BWD_END);
  if (tp) add_coll(c, m, CI_WORLD_AR, 1, &kc);
  prog_add(m, HP_OPT);
}

void host_init(ctx_t *c) {
  const options *o = &c->o;
  struct host_model *m = xcalloc(1, sizeof *m);
  c->host = m;
  m->bw_intra = o->tp_busbw;
  collinfo *ci = md_collinfo_mut(c);
  int groups_of[CI_N] = {c->o.tp > 1 ? c->tp_of[0] : -1, c->dp_of[0], c->dp_of[0], c->dp_of[0], 0, c->dp_of[0]};
  int64_t tmin = INT64_MAX;
  for (int k = 0; k < CI_N; k++) {
    if (groups_of[k] < 0 || ci[k].bytes == 0 || (k == CI_TP_AR && o->tp == 1)) continue;
    if ((k == CI_DP_AR || k == CI_DP_AG || k == CI_DP_RS || k == CI_DP_AR1) && c->K == 0) continue;
    m->inter[k] = c->groups[groups_of[k]].nodes > 1;
    double bw = m->inter[k] ? o->inter_bw : m->bw_intra;
    int64_t alpha = m->inter[k] ? o->alpha_ns : o->intra_alpha_ns;
    int64_t T = alpha + (int64_t)llround(ci[k].sf / bw);
    ci[k].T = (T + c->q / 2) / c->q * c->q;
    if (ci[k].T < c->q) ci[k].T = c->q;
    if ((k == CI_TP_AR || k == CI_DP_AR || k == CI_WORLD_AR || k == CI_DP_AR1) && ci[k].T < tmin) tmin = ci[k].T;
  }
  if (c->SPR && c->SPR >= tmin)
    die("--end-spread-us %.3f is not shorter than the shortest collective transfer %.3f us", c->SPR / 1e3, tmin / 1e3);
  build_program(c, m);
}

/* ------------------------------------------------------------------ the simulation */
static int add_node(struct host_model *m, int64_t t0, int64_t t1, int cls, int gapcls, int rank, int pred) {
  if (m->nn == m->capn) {
    m->capn = m->capn ? 2 * m->capn : 4096;
    m->nodes = xrealloc(m->nodes, m->capn, sizeof *m->nodes);
  }
  if (t1 < t0 || (pred >= 0 && m->nodes[pred].t1 > t0)) die("internal: host model: a stretch starts before what it waits for");
  m->nodes[m->nn] = (hnode){t0, t1, cls, gapcls, rank, pred};
  return (int)m->nn++;
}
/* the next dt of rank r's CPU thread */
static int cpu_seg(struct host_model *m, int r, int64_t dt, int cls) {
  int x = add_node(m, m->cpu[r], m->cpu[r] + dt, cls, NC_CPU, r, m->cpun[r]);
  m->cpu[r] += dt;
  m->cpun[r] = x;
  return x;
}
static front *fr_of(struct host_model *m, int r, int stream) { return &m->fr[(size_t)r * HS_STREAMS + sidx(stream)]; }
/* stream waits for an event recorded at f on another stream */
static void fr_wait(front *dst, front f) {
  if (f.node >= 0 && f.t + EVENT_LAT > dst->t) { dst->t = f.t + EVENT_LAT; dst->node = f.node; }
}
/* when an op launched by call on a stream whose frontier is f starts, and what bound it */
static int64_t op_start(const struct host_model *m, int call, front f, int *pred, int *gapcls) {
  int64_t ready = m->nodes[call].t1 + LAUNCH_LAT;
  if (f.node >= 0 && f.t >= ready) {
    *pred = f.node;
    *gapcls = NC_IDLE;
    return f.t;
  }
  *pred = call;
  *gapcls = NC_LAUNCH;
  return ready;
}

static void push_op(struct host_model *m, int r, const hop *h) {
  if (m->nops[r] == m->capops[r]) {
    m->capops[r] = m->capops[r] ? 2 * m->capops[r] : 256;
    m->ops[r] = xrealloc(m->ops[r], m->capops[r], sizeof(hop));
  }
  m->ops[r][m->nops[r]++] = *h;
  m->ops[r][m->nops[r] - 1].thr = m->thr[r];
}

static int64_t gemm_len(const ctx_t *c, int s, int r, int i) {
  int64_t d = c->gd[i];
  if (r == c->o.straggler) d = (int64_t)llround((double)d * c->o.strag_factor) / c->q * c->q;
  uint64_t n = (uint64_t)(c->o.tp_jitter_ns / c->q) + 1;
  if (n > 1) d += (int64_t)(h4(c->o.seed, 0x6E77, (uint64_t)s, (uint64_t)r * 65536u + (uint64_t)i) % n) * c->q;
  return d;
}

/* a GEMM, the copy or the optimizer on the compute stream */
static void sim_plain(ctx_t *c, struct host_model *m, int s, int r, const hprog *p) {
  int kind = p->kind == HP_COPY ? OP_MEMCPY : p->kind == HP_OPT ? OP_OPT
             : p->gemm < c->o.layers ? OP_FWD : ((p->gemm - c->o.layers) % 2 == 0 ? OP_BGI : OP_BGW);
  int nw = launch_nwrap(kind);
  hop h;
  memset(&h, 0, sizeof h);
  h.pk = p->kind;
  int wrap = m->thr[r] && (kind == OP_BGI || kind == OP_BGW) ? 2 : 0; /* evaluate_function > MmBackward0 */
  if (wrap) cpu_seg(m, r, wrap * U_CALL, NC_CPU);
  h.bs = m->cpu[r];
  cpu_seg(m, r, nw * U_CALL, NC_CPU);
  int call = cpu_seg(m, r, 3 * U_CALL, NC_LAUNCH);
  cpu_seg(m, r, (nw + wrap) * U_CALL + PY_GAP, NC_CPU);
  int pred, gc;
  front *f = fr_of(m, r, 7);
  int64_t t = op_start(m, call, *f, &pred, &gc);
  int64_t d = p->kind == HP_COPY ? c->Mc : p->kind == HP_OPT ? c->OPT : gemm_len(c, s, r, p->gemm);
  int x = add_node(m, t, t + d, p->kind == HP_COPY ? NC_MEM : NC_COMPUTE, gc, r, pred);
  *f = (front){t + d, x};
  h.g = (gop){kind, t, d, 0, 0, NULL, -1, 0, 0};
  push_op(m, r, &h);
}

/* one collective call on every rank: the event pair, the launch, the instance per group */
static void sim_coll(ctx_t *c, struct host_model *m, int s, const hprog *p) {
  const collinfo *ci = &md_collinfo_mut(c)[p->ck];
  int n = c->o.ranks;
  for (int r = 0; r < n; r++) {
    cpu_seg(m, r, 2 * U_CALL, NC_CPU);
    front e = *fr_of(m, r, 7); /* cudaEventRecord on the compute stream */
    cpu_seg(m, r, U_CALL, NC_LAUNCH);
    fr_wait(fr_of(m, r, ci->stream), e); /* cudaStreamWaitEvent on the collective's stream */
    cpu_seg(m, r, U_CALL, NC_LAUNCH);
    int call = cpu_seg(m, r, 3 * U_CALL, NC_LAUNCH);
    m->k[r] = op_start(m, call, *fr_of(m, r, ci->stream), &m->bind[r], &m->bindcls[r]);
    /* the work's end event on the collective's stream; a synchronous call's compute stream waits on it */
    cpu_seg(m, r, (p->sync ? 2 : 1) * U_CALL, NC_LAUNCH);
    cpu_seg(m, r, 2 * U_CALL + PY_GAP, NC_CPU);
  }
  for (int g = 0; g < c->ngroups; g++) m->xfer[g] = -1;
  for (int r = 0; r < n; r++) { /* the last arriver of each group, lowest rank on ties */
    int g = group_of_kind(c, ci->gkind, r);
    if (m->xfer[g] < 0 || m->k[r] > m->k[m->xfer[g]]) m->xfer[g] = r;
  }
  for (int g = 0; g < c->ngroups; g++) {
    int r = m->xfer[g];
    if (r < 0) continue;
    m->X[g] = m->k[r] + ci->T;
    m->xfer[g] = add_node(m, m->k[r], m->X[g], m->inter[p->ck] ? NC_XINTER : NC_XINTRA, m->bindcls[r], r, m->bind[r]);
  }
  int slot = slot_of_kind(c, ci->gkind);
  int64_t seq = 1 + (int64_t)(c->first_step + s) * m->per_slot[slot] + p->seqi;
  int64_t *tmin = xcalloc((size_t)c->ngroups, sizeof(int64_t));
  for (int g = 0; g < c->ngroups; g++) tmin[g] = INT64_MAX;
  for (int r = 0; r < n; r++) {
    int g = group_of_kind(c, ci->gkind, r);
    int64_t d = m->X[g] - end_spread(c, s, r, p->k) - m->k[r];
    if (d < tmin[g]) tmin[g] = d;
  }
  for (int r = 0; r < n; r++) {
    int g = group_of_kind(c, ci->gkind, r);
    int64_t d = m->X[g] - end_spread(c, s, r, p->k) - m->k[r];
    hop h;
    memset(&h, 0, sizeof h);
    h.pk = HP_COLL;
    h.sync = p->sync;
    h.bs = m->nodes[m->cpun[r]].t1 - (p->sync ? 11 : 10) * U_CALL - PY_GAP;
    h.g = (gop){OP_COLL, m->k[r], d, seq, 0, ci, g, d - tmin[g], 0};
    push_op(m, r, &h);
    *fr_of(m, r, ci->stream) = (front){m->X[g], m->xfer[g]};
    if (p->sync) fr_wait(fr_of(m, r, 7), *fr_of(m, r, ci->stream));
  }
  free(tmin);
}

/* DDP's end of backward: the compute stream waits on every bucket's end event */
static void sim_waitb(ctx_t *c, struct host_model *m, int r) {
  hop h;
  memset(&h, 0, sizeof h);
  h.pk = HP_WAITB;
  h.bs = m->cpu[r];
  h.nwait = c->K;
  int dps = md_collinfo_mut(c)[CI_DP_AR].stream;
  for (int b = 0; b < c->K; b++) { /* the end events fire in stream order: the last one binds */
    fr_wait(fr_of(m, r, 7), *fr_of(m, r, dps));
    cpu_seg(m, r, U_CALL, NC_LAUNCH);
    cpu_seg(m, r, U_CALL, NC_CPU);
  }
  cpu_seg(m, r, PY_GAP, NC_CPU);
  push_op(m, r, &h);
}

/* the step's synchronizing call: it returns SYNC_RET after the GPU work it waits for */
static void sim_sync(ctx_t *c, struct host_model *m, int r, hstep *st) {
  st->sbs = m->cpu[r];
  front g = *fr_of(m, r, 7);
  if (c->o.host_sync == HSYNC_ITEM) {
    cpu_seg(m, r, 2 * U_CALL, NC_CPU);
    int call = cpu_seg(m, r, 3 * U_CALL, NC_LAUNCH);
    int pred, gc;
    st->d2h_t = op_start(m, call, g, &pred, &gc);
    int x = add_node(m, st->d2h_t, st->d2h_t + D2H_NS, NC_MEM, gc, r, pred);
    g = *fr_of(m, r, 7) = (front){st->d2h_t + D2H_NS, x};
  } else if (c->o.host_sync == HSYNC_DEVICE) {
    for (int i = 1; i < HS_STREAMS; i++)
      if (m->fr[(size_t)r * HS_STREAMS + i].t > g.t) g = m->fr[(size_t)r * HS_STREAMS + i];
  }
  st->ss = m->cpu[r];
  st->g1 = g.t;
  if (g.node >= 0 && g.t + SYNC_RET >= st->ss + SYNC_MIN) {
    m->cpun[r] = add_node(m, g.t, g.t + SYNC_RET, NC_SYNC, NC_IDLE, r, g.node);
    m->cpu[r] = g.t + SYNC_RET;
  } else {
    cpu_seg(m, r, SYNC_MIN, NC_SYNC);
  }
  st->se = m->cpu[r];
  if (c->o.host_sync == HSYNC_ITEM) cpu_seg(m, r, U_CALL, NC_CPU);
  st->tail = cpu_seg(m, r, STEP_TAIL, NC_CPU);
  st->Pe = m->cpu[r];
}

static void sim_step(ctx_t *c, struct host_model *m, int s) {
  int n = c->o.ranks;
  for (int r = 0; r < n; r++) {
    hstep *st = &m->st[(size_t)s * n + r];
    st->Ps = m->cpu[r];
    st->op0 = m->nops[r];
    cpu_seg(m, r, c->I + jitter(c, s, r, 0x4000), NC_CPU); /* the data loader, per-rank jitter */
    st->dl_end = m->cpu[r];
  }
  for (int pi = 0; pi < m->nprog; pi++) {
    const hprog *p = &m->prog[pi];
    if (p->kind == HP_COLL) { sim_coll(c, m, s, p); continue; }
    for (int r = 0; r < n; r++) {
      if (p->kind == HP_BWD || p->kind == HP_BWD_END) {
        if (!c->o.autograd_thread) continue;
        cpu_seg(m, r, HANDOFF, NC_CPU); /* the main thread wakes the engine's, or the engine the main */
        m->thr[r] = p->kind == HP_BWD;
      } else if (p->kind == HP_WAITB) {
        sim_waitb(c, m, r);
      } else {
        sim_plain(c, m, s, r, p);
      }
    }
  }
  for (int r = 0; r < n; r++) {
    hstep *st = &m->st[(size_t)s * n + r];
    st->op1 = m->nops[r];
    st->g0 = m->ops[r][st->op0].g.t;
    sim_sync(c, m, r, st);
  }
}

/* the critical path of step s: walk back from the last step end over what bound each start */
static void critical_path(ctx_t *c, struct host_model *m, int s) {
  int n = c->o.ranks, re = 0;
  int64_t Pst = INT64_MAX;
  for (int r = 0; r < n; r++) {
    const hstep *st = &m->st[(size_t)s * n + r];
    if (st->Ps < Pst) Pst = st->Ps;
    if (st->Pe > m->st[(size_t)s * n + re].Pe) re = r;
  }
  int64_t *cls = m->cp + (size_t)s * NC_N, *rk = m->cp_rank + (size_t)s * n, *rc = m->cp_rank_compute + (size_t)s * n;
  int x = m->st[(size_t)s * n + re].tail;
  while (x >= 0) {
    const hnode *nd = &m->nodes[x];
    int64_t a = nd->t0 > Pst ? nd->t0 : Pst;
    cls[nd->cls] += nd->t1 - a;
    rk[nd->rank] += nd->t1 - a;
    if (nd->cls == NC_COMPUTE) rc[nd->rank] += nd->t1 - a;
    if (nd->t0 <= Pst) break;
    if (nd->pred < 0) die("internal: host model: the critical path of step %d ends before the step starts", s);
    const hnode *pd = &m->nodes[nd->pred];
    int64_t pe = pd->t1 > Pst ? pd->t1 : Pst;
    cls[nd->gapcls] += nd->t0 - pe;
    rk[nd->rank] += nd->t0 - pe;
    if (pd->t1 <= Pst) break;
    x = nd->pred;
  }
  int64_t sum = 0;
  for (int k = 0; k < NC_N; k++) sum += cls[k];
  if (sum != m->st[(size_t)s * n + re].Pe - Pst) die("internal: host model: step %d's critical path does not add up", s);
}

/* mean over ranks and steps of the ProfilerStep spans (rounded to the ns) */
static int64_t mean_step_ns(const struct host_model *m, int n, int S) {
  int64_t all = 0;
  for (size_t i = 0; i < (size_t)S * n; i++) all += m->st[i].Pe - m->st[i].Ps;
  return (all + (int64_t)n * S / 2) / ((int64_t)n * S);
}

static void results_free(struct host_model *m, int n) {
  for (int r = 0; r < n && m->ops; r++) free(m->ops[r]);
  free(m->ops); free(m->nops); free(m->capops); free(m->st); free(m->cp); free(m->cp_rank); free(m->cp_rank_compute);
  free(m->nodes);
  m->ops = NULL;
  m->nodes = NULL;
  m->nn = m->capn = 0;
}

/* simulates S steps of every rank from the job's start */
static void sim_run(ctx_t *c, struct host_model *m, int S) {
  int n = c->o.ranks;
  m->ops = xcalloc((size_t)n, sizeof *m->ops);
  m->nops = xcalloc((size_t)n, sizeof(size_t));
  m->capops = xcalloc((size_t)n, sizeof(size_t));
  m->st = xcalloc((size_t)S * n, sizeof *m->st);
  m->cp = xcalloc((size_t)S * NC_N, sizeof(int64_t));
  m->cp_rank = xcalloc((size_t)S * n, sizeof(int64_t));
  m->cp_rank_compute = xcalloc((size_t)S * n, sizeof(int64_t));
  m->cpu = xcalloc((size_t)n, sizeof(int64_t));
  m->cpun = xcalloc((size_t)n, sizeof(int));
  m->thr = xcalloc((size_t)n, sizeof(int));
  m->fr = xcalloc((size_t)n * HS_STREAMS, sizeof(front));
  m->k = xcalloc((size_t)n, sizeof(int64_t));
  m->bind = xcalloc((size_t)n, sizeof(int));
  m->bindcls = xcalloc((size_t)n, sizeof(int));
  m->X = xcalloc((size_t)c->ngroups, sizeof(int64_t));
  m->xfer = xcalloc((size_t)c->ngroups, sizeof(int));
  for (int r = 0; r < n; r++) {
    m->cpu[r] = T0_NS;
    m->cpun[r] = -1;
    for (int i = 0; i < HS_STREAMS; i++) m->fr[(size_t)r * HS_STREAMS + i] = (front){INT64_MIN, -1};
  }
  for (int s = 0; s < S; s++) {
    sim_step(c, m, s);
    critical_path(c, m, s);
  }
  free(m->cpu); free(m->cpun); free(m->thr); free(m->fr); free(m->k); free(m->bind); free(m->bindcls); free(m->X); free(m->xfer);
}

void host_build(ctx_t *c, int S) {
  struct host_model *m = c->host;
  int n = c->o.ranks;
  if (m->ops) results_free(m, n);
  /* the reference: the same job with every inter-node transfer taking no time */
  collinfo *ci = md_collinfo_mut(c);
  int64_t saved[CI_N];
  for (int k = 0; k < CI_N; k++) {
    saved[k] = ci[k].T;
    if (m->inter[k]) ci[k].T = 0;
  }
  sim_run(c, m, S);
  m->ref_step = mean_step_ns(m, n, S);
  results_free(m, n);
  for (int k = 0; k < CI_N; k++) ci[k].T = saved[k];
  sim_run(c, m, S);
  free(m->nodes);
  m->nodes = NULL;
  free(c->P);
  c->S = S;
  c->P = xcalloc((size_t)S + 1, sizeof(int64_t));
  for (int s = 0; s <= S; s++) c->P[s] = s < S ? m->st[(size_t)s * n].Ps : m->st[(size_t)(S - 1) * n].Pe;
}

/* ------------------------------------------------------------------ the events */
typedef struct {
  int64_t *bucket_end;  /* this step's bucket end events: correlation of their cudaEventRecord */
  int nb;
} hw_t;

/* Kineto's cuda_sync event for a synchronizing or waiting call (with --cuda-sync-events, as
 * PyTorch's enable_cuda_sync_events writes them); wait_stream < 0: not an event wait */
static void cuda_sync_ev(rw_t *w, const char *kind, int stream, int64_t t, int64_t d, int64_t ext, int64_t corr,
                         int wait_stream, int64_t rec_corr, int64_t ev_id) {
  jw_t *j = &w->j;
  if (!w->c->o.sync_events) return;
  ev_x(w, "cuda_sync", kind, w->dev, stream, t, d);
  args_open(w);
  if (ext >= 0) { JK(j, "External id"); jw_i64(j, ext); }
  JK(j, "cuda_sync_kind"); jw_str(j, kind);
  if (wait_stream >= 0) {
    JK(j, "wait_on_stream"); jw_i64(j, wait_stream);
    JK(j, "wait_on_cuda_event_record_corr_id"); jw_i64(j, rec_corr);
    JK(j, "wait_on_cuda_event_id"); jw_i64(j, ev_id);
  }
  JK(j, "stream"); jw_i64(j, stream);
  JK(j, "correlation"); jw_i64(j, corr);
  JK(j, "device"); jw_i64(j, w->dev);
  JK(j, "context"); jw_i64(j, 1);
  args_close(w);
  ev_close(w);
}

/* cudaStreamWaitEvent [t, t + U_CALL): stream waits on the event recorded by the call rec_corr on
 * wait_stream (event ids: a pool of 64, as PyTorch reuses its CUDA events) */
static void wait_ev(rw_t *w, int64_t t, int64_t ext, int stream, int wait_stream, int64_t rec_corr) {
  int64_t corr = ++w->corr;
  runtime_ev(w, "cudaStreamWaitEvent", 147, t, U_CALL, ext, corr);
  cuda_sync_ev(w, "Stream Wait Event", stream, t, U_CALL, ext, corr, wait_stream, rec_corr, 1 + rec_corr % 64);
}

static void write_coll(rw_t *w, hw_t *hw, const hop *h) {
  int64_t u = U_CALL, bs = h->bs, nin = h->sync ? 9 : 8;
  int cs = h->g.ci->stream;
  int64_t ext0 = cpu_span(w, "cpu_op", "record_param_comms", bs, (nin + 2) * u, coll_args_cpu, &h->g);
  cpu_span(w, "user_annotation", h->g.ci->cpu_name, bs + u, nin * u, NULL, NULL);
  int64_t rec = ++w->corr;
  runtime_ev(w, "cudaEventRecord", 135, bs + 2 * u, u, ext0, rec);
  wait_ev(w, bs + 3 * u, ext0, cs, 7, rec);
  int64_t corr = ++w->corr;
  runtime_ev(w, "cudaLaunchKernelExC", 430, bs + 4 * u, 3 * u, ext0, corr);
  gpu_launched(w, &h->g, ext0, corr, bs + 4 * u);
  rec = ++w->corr;
  runtime_ev(w, "cudaEventRecord", 135, bs + 7 * u, u, ext0, rec);
  if (h->sync)
    wait_ev(w, bs + 8 * u, ext0, 7, cs, rec);
  else if (hw->nb < w->c->K)
    hw->bucket_end[hw->nb++] = rec;
}

static void write_sync(rw_t *w, const hstep *st) {
  const ctx_t *c = w->c;
  int64_t u = U_CALL;
  if (c->o.host_sync == HSYNC_ITEM) {
    cpu_span(w, "cpu_op", "aten::item", st->sbs, st->se + u - st->sbs, NULL, NULL);
    int64_t ext = cpu_span(w, "cpu_op", "aten::_local_scalar_dense", st->sbs + u, st->se - st->sbs - u, NULL, NULL);
    int64_t corr = ++w->corr, rs = st->sbs + 2 * u;
    runtime_ev(w, "cudaMemcpyAsync", 41, rs, 3 * u, ext, corr);
    flow(w, 1, corr, w->pid, w->pid, rs);
    gpu_copy_ev(w, "Memcpy DtoH (Device -> Pageable)", 7, st->d2h_t, D2H_NS, ext, corr, 4, 0);
    flow(w, 0, corr, w->dev, 7, st->d2h_t);
    grec e;
    memset(&e, 0, sizeof e);
    e.t = st->d2h_t; e.d = D2H_NS; e.cls = REC_MEM; e.group = e.real_group = -1; e.step = w->cur_step;
    e.written = e.gpu_event = 1;
    rec_add(&w->rec, &e);
  }
  int dev = c->o.host_sync == HSYNC_DEVICE;
  int64_t corr = ++w->corr, ext = ++w->ext;
  runtime_ev(w, dev ? "cudaDeviceSynchronize" : "cudaStreamSynchronize", dev ? 165 : 131, st->ss, st->se - st->ss, ext, corr);
  cuda_sync_ev(w, dev ? "Context Sync" : "Stream Sync", dev ? -1 : 7, st->ss, st->se - st->ss, ext, corr, -1, 0, 0);
}

void host_write_step(rw_t *w, int s) {
  const ctx_t *c = w->c;
  const struct host_model *m = c->host;
  const hstep *st = &m->st[(size_t)s * c->o.ranks + w->r];
  hw_t hw = {xcalloc((size_t)c->K + 1, sizeof(int64_t)), 0};
  int nci;
  int dps = md_collinfo(c, &nci)[CI_DP_AR].stream;
  step_head_at(w, s, st->Ps, st->Pe, st->dl_end, st->g0, st->g1);
  for (size_t i = st->op0; i < st->op1; i++) {
    const hop *h = &m->ops[w->r][i];
    w->tid = h->thr ? w->pid + AUTOGRAD_TID_OFF : w->pid;
    if (h->thr && (h->g.kind == OP_BGI || h->g.kind == OP_BGW) && h->pk == HP_GEMM) {
      int64_t u = U_CALL, be = h->bs + (3 + 2 * launch_nwrap(h->g.kind)) * u;
      cpu_span(w, "cpu_op", "autograd::engine::evaluate_function: MmBackward0", h->bs - 2 * u, be - h->bs + 4 * u, NULL, NULL);
      cpu_span(w, "cpu_op", "MmBackward0", h->bs - u, be - h->bs + 2 * u, NULL, NULL);
    }
    if (h->pk == HP_COLL) {
      write_coll(w, &hw, h);
    } else if (h->pk == HP_WAITB) {
      for (int b = 0; b < h->nwait; b++)
        wait_ev(w, h->bs + 2 * b * U_CALL, -1, 7, dps, b < hw.nb ? hw.bucket_end[b] : 0);
    } else {
      launch_block(w, &h->g, h->bs, U_CALL);
    }
  }
  w->tid = w->pid;
  write_sync(w, st);
  free(hw.bucket_end);
}

/* ------------------------------------------------------------------ the truth */
static void write_cp(const ctx_t *c, FILE *f, const int64_t *cls, const int64_t *rk, const int64_t *rc, int nsteps) {
  char b[40];
  int n = c->o.ranks;
  int64_t tot = 0, comp = 0;
  for (int k = 0; k < NC_N; k++) tot += cls[k];
  int best = 0;
  for (int r = 0; r < n; r++) {
    comp += rc[r];
    if (rc[r] > rc[best]) best = r;
  }
  fprintf(f, "{\"step_us\": %s, \"shares\": {", fmt_us(b, (tot + nsteps / 2) / nsteps));
  for (int k = 0; k < NC_N; k++) fprintf(f, "%s\"%s\": %.6f", k ? ", " : "", NC_KEY[k], tot ? (double)cls[k] / tot : 0.0);
  fprintf(f, "}, \"class_us\": {");
  for (int k = 0; k < NC_N; k++) fprintf(f, "%s\"%s\": %s", k ? ", " : "", NC_KEY[k], fmt_us(b, (cls[k] + nsteps / 2) / nsteps));
  fprintf(f, "}, \"by_rank\": [");
  int first = 1;
  for (int r = 0; r < n; r++) {
    if (!rk[r]) continue;
    fprintf(f, "%s{\"rank\": %d, \"us\": %s", first ? "" : ", ", r, fmt_us(b, (rk[r] + nsteps / 2) / nsteps));
    fprintf(f, ", \"compute_us\": %s}", fmt_us(b, (rc[r] + nsteps / 2) / nsteps));
    first = 0;
  }
  fprintf(f, "], \"compute_rank\": %d, \"compute_rank_share\": %.6f}", best, comp ? (double)rc[best] / comp : 0.0);
}

void host_write_expected(const ctx_t *c, FILE *f) {
  const struct host_model *m = c->host;
  const options *o = &c->o;
  static const char *syncs[] = {"item", "stream", "device"};
  char b[40], b2[40];
  int n = o->ranks, S = c->S;
  fprintf(f, "  \"host\": {\"model\": \"pytorch\", \"sync\": \"%s\", \"launch_latency_us\": %s", syncs[o->host_sync],
          fmt_us(b, LAUNCH_LAT));
  fprintf(f, ", \"event_latency_us\": %s, \"sync_return_us\": %s},\n", fmt_us(b, EVENT_LAT), fmt_us(b2, SYNC_RET));
  fprintf(f, "  \"fabric\": {\"inter_node_GBps\": %.6f, \"inter_node_latency_us\": %s", o->inter_bw, fmt_us(b, o->alpha_ns));
  fprintf(f, ", \"intra_node_GBps\": %.6f, \"intra_node_latency_us\": %s},\n", m->bw_intra, fmt_us(b, o->intra_alpha_ns));
  fprintf(f, "  \"straggler_factor\": %s,\n", o->straggler >= 0 ? (snprintf(b2, sizeof b2, "%.6f", o->strag_factor), b2) : "null");
  fprintf(f, "  \"step_times_us\": [");
  for (int s = 0; s < S; s++) {
    int64_t sum = 0;
    for (int r = 0; r < n; r++) sum += m->st[(size_t)s * n + r].Pe - m->st[(size_t)s * n + r].Ps;
    fprintf(f, "%s%s", s ? ", " : "", fmt_us(b, (sum + n / 2) / n));
  }
  fprintf(f, "],\n  \"mean_step_time_us\": %s,\n", fmt_us(b, mean_step_ns(m, n, S)));
  fprintf(f, "  \"reference_instant_step_time_us\": %s,\n", fmt_us(b, m->ref_step));
  int64_t cls[NC_N] = {0}, *rk = xcalloc((size_t)n, sizeof(int64_t)), *rc = xcalloc((size_t)n, sizeof(int64_t));
  for (int s = 0; s < S; s++) {
    for (int k = 0; k < NC_N; k++) cls[k] += m->cp[(size_t)s * NC_N + k];
    for (int r = 0; r < n; r++) { rk[r] += m->cp_rank[(size_t)s * n + r]; rc[r] += m->cp_rank_compute[(size_t)s * n + r]; }
  }
  fprintf(f, "  \"critical_path\": ");
  write_cp(c, f, cls, rk, rc, S);
  fprintf(f, ",\n  \"critical_path_steps\": [");
  for (int s = 0; s < S; s++) {
    fprintf(f, "%s\n    ", s ? "," : "");
    write_cp(c, f, m->cp + (size_t)s * NC_N, m->cp_rank + (size_t)s * n, m->cp_rank_compute + (size_t)s * n, 1);
  }
  fprintf(f, "\n  ],\n");
  free(rk);
  free(rc);
}

void host_free(ctx_t *c) {
  struct host_model *m = c->host;
  if (!m) return;
  results_free(m, c->o.ranks);
  free(m->prog);
  free(m);
  c->host = NULL;
}
