/* tg_md.c: multi-dimensional jobs (issue 19): tensor parallel groups of T consecutive ranks, data
 * parallel groups of the ranks with the same TP index (DDP all-reduce buckets, or with --fsdp
 * all-gather / reduce-scatter), and a small world all-reduce before the optimizer. One program of
 * GPU ops per step is simulated for every rank at once: a collective ends for every member of its
 * group at the last arrival + its planted transfer time; compute waits for synchronous collectives;
 * asynchronous ones run beside compute on their group's stream. Steps start together on every rank
 * (the world all-reduce ends together), so the classic step header and sync apply unchanged. */
#define _POSIX_C_SOURCE 200809L
#include "tracegen.h"

enum { P_MEMCPY, P_GEMM, P_MEMSET, P_DELAY, P_COLL, P_WAIT, P_WAITALL, P_OPT };
enum { SLOT_WORLD, SLOT_TP, SLOT_DP, SLOT_N };
#define MD_STREAMS 3  /* per rank: 20 (DP / world when DP is the world), 22 (TP), 23 (world) */
#define MAX_HANDLES 4096

typedef struct {
  int kind;     /* P_* */
  int gemm;     /* P_GEMM: index into gd (0..3L-1) */
  int tpj;      /* P_GEMM: gets the TP arrival jitter (it precedes a TP all-reduce) */
  int ck;       /* P_COLL: CI_* */
  int async;    /* P_COLL: runs beside compute (1) or compute waits for it (0) */
  int handle;   /* P_COLL async / P_WAIT */
  int jk;       /* jitter key: async arrival, delay kernel */
  int seqi;     /* P_COLL: index among its group's collectives in the step */
} pop;

struct md_model {
  pop *prog;
  int nprog, cap;
  int nhandles;
  int per_step[SLOT_N];     /* collectives per step on each group slot */
  collinfo ci[CI_N];
  gop **ops;                /* per rank: every step's GPU ops, each step sorted by start */
  size_t **step_off;        /* per rank: S+1 offsets into ops[r] */
};

static int slot_of(const ctx_t *c, int gkind) {
  if (gkind == G_DP && c->o.tp == 1) return SLOT_WORLD;
  return gkind == G_TP ? SLOT_TP : gkind == G_DP ? SLOT_DP : SLOT_WORLD;
}
static int stream_index(int stream) { return stream == 20 ? 0 : stream == 22 ? 1 : 2; }

static pop *prog_add(struct md_model *m, int kind) {
  if (m->nprog == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 64;
    m->prog = xrealloc(m->prog, (size_t)m->cap, sizeof *m->prog);
  }
  pop *p = &m->prog[m->nprog++];
  memset(p, 0, sizeof *p);
  p->kind = kind;
  p->handle = -1;
  return p;
}
static void add_coll(const ctx_t *c, struct md_model *m, int ck, int async, int handle, int jk) {
  pop *p = prog_add(m, P_COLL);
  p->ck = ck;
  p->async = async;
  p->handle = handle;
  p->jk = jk;
  p->seqi = m->per_step[slot_of(c, m->ci[ck].gkind)]++;
  if (handle >= m->nhandles) m->nhandles = handle + 1;
}
static void add_gemm(const ctx_t *c, struct md_model *m, int i, int tp_after) {
  pop *p = prog_add(m, P_GEMM);
  p->gemm = i;
  p->tpj = tp_after && c->o.tp > 1;
  if (i == 0) prog_add(m, P_MEMSET);
  if (p->tpj) add_coll(c, m, CI_TP_AR, 0, -1, 0);
}

/* unit of forward GEMM i under --fsdp (K units over L layers) */
static int unit_of(const ctx_t *c, int i) { return (int)((long long)i * c->K / c->o.layers); }

static void build_program(const ctx_t *c, struct md_model *m) {
  int L = c->o.layers, K = c->K;
  if (c->Mc > 0) prog_add(m, P_MEMCPY);
  if (!c->o.fsdp) {
    for (int i = 0; i < L; i++) add_gemm(c, m, i, 1);
    int h = 0;
    for (int j = 0; j < 2 * L; j++) {
      /* hidden bucket h starts in backward GEMM b_h = h*2L/H, a tenth of a GEMM in */
      while (h < c->H && (long long)h * 2 * L / c->H == j) { add_coll(c, m, CI_DP_AR, 1, h, h); h++; }
      add_gemm(c, m, L + j, j % 2 == 0);
    }
    for (int k = c->H; k < K; k++) {
      pop *d = prog_add(m, P_DELAY);
      d->jk = k;
      add_coll(c, m, CI_DP_AR, 0, -1, k);
    }
  } else if (K > 0) {
    int hnd = 0;
    add_coll(c, m, CI_DP_AG, 0, -1, 0); /* unit 0's parameters: the GPU waits */
    for (int i = 0; i < L; i++) {
      int u = unit_of(c, i);
      int first = i == 0 || unit_of(c, i - 1) != u, last = i == L - 1 || unit_of(c, i + 1) != u;
      if (first && u + 1 < K) { add_coll(c, m, CI_DP_AG, 1, hnd, 100 + u); hnd++; }
      add_gemm(c, m, i, 1);
      if (last && u + 1 < K) { pop *w = prog_add(m, P_WAIT); w->handle = hnd - 1; }
    }
    /* backward: layers in reverse, two GEMMs each; unit K-1 stays gathered after forward */
    for (int j = 0; j < 2 * L; j++) {
      int layer = L - 1 - j / 2, u = unit_of(c, layer);
      int first = j == 0 || unit_of(c, L - 1 - (j - 1) / 2) != u;
      int last = j == 2 * L - 1 || unit_of(c, L - 1 - (j + 1) / 2) != u;
      if (first && u - 1 >= 0) add_coll(c, m, CI_DP_AG, 1, hnd++, 200 + u);
      add_gemm(c, m, L + j, j % 2 == 0);
      if (last) {
        pop *d = prog_add(m, P_DELAY);
        d->jk = 300 + u;
        add_coll(c, m, CI_DP_RS, 1, hnd++, 400 + u);
        if (u - 1 >= 0) {
          /* before the next unit's backward: its parameters must be gathered */
          pop *w = prog_add(m, P_WAIT);
          w->handle = hnd - 2;
        }
      }
    }
  }
  prog_add(m, P_WAITALL);
  add_coll(c, m, CI_WORLD_AR, 0, -1, 0);
  prog_add(m, P_OPT);
  if (m->nhandles > MAX_HANDLES) die("too many asynchronous collectives per step (lower --buckets)");
}

static int64_t quant_T(const ctx_t *c, double bytes_times_factor, double busbw, const char *what) {
  int64_t T = (int64_t)llround(bytes_times_factor / busbw);
  T = (T + c->q / 2) / c->q * c->q;
  if (T < 2 * US)
    die("%s transfer time %.3f us is too short (need >= 2 us): raise the message size or lower its bus bandwidth",
        what, T / 1e3);
  return T;
}

static void ci_set(const ctx_t *c, collinfo *ci, int gkind, int coll, const char *coll_name, const char *cpu_name, const char *dtype,
                   int esize, long long in, long long out, int stream, const char *kname) {
  ci->gkind = gkind;
  ci->coll = coll;
  ci->coll_name = coll_name;
  ci->cpu_name = cpu_name;
  ci->dtype = dtype;
  ci->esize = esize;
  ci->in_nelems = in;
  ci->out_nelems = out;
  ci->stream = stream;
  snprintf(ci->kname, sizeof ci->kname, "%s", c->o.rocm ? c->nccl_name : kname); /* RCCL: one generic kernel */
}

/* the collective kinds of the job and their planted transfer times */
static void build_collinfo(const ctx_t *c, struct md_model *m) {
  int T = c->o.tp, n = c->o.ranks, D = n / T;
  char k[160];
  double tpbw = c->o.tp_busbw, dpbw = c->o.dp_busbw;
  /* TP all-reduce: the GEMM output, M×N elements of the gradient dtype (or --tp-mib) */
  long long tp_bytes = c->o.tp_mib > 0 ? (long long)llround(c->o.tp_mib * 1048576.0) : c->o.gm * c->o.gn * c->esize;
  long long tp_ne = tp_bytes / c->esize;
  if (tp_ne < 1) die("--tp-mib too small");
  snprintf(k, sizeof k, "ncclDevKernel_AllReduce_Sum_%s_RING_LL128(ncclDevKernelArgsStorage<4096ul>)", c->ndt);
  ci_set(c, &m->ci[CI_TP_AR], G_TP, CT_ALLREDUCE, "allreduce", "nccl:all_reduce", c->cdtype, c->esize, tp_ne, tp_ne, 22, k);
  if (T > 1) {
    collinfo *ci = &m->ci[CI_TP_AR];
    ci->bytes = tp_ne * c->esize;
    ci->sf = (double)ci->bytes * 2.0 * (T - 1) / T;
    ci->T = quant_T(c, ci->sf, tpbw, "TP all-reduce");
  }
  int dp_stream = 20;
  ci_set(c, &m->ci[CI_DP_AR], G_DP, CT_ALLREDUCE, "allreduce", "nccl:all_reduce", c->cdtype, c->esize, c->nelems, c->nelems,
         dp_stream, c->nccl_name);
  long long full = c->nelems / D * D;
  if (full < D) die("--bucket-mib too small for %d data-parallel ranks", D);
  snprintf(k, sizeof k, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  ci_set(c, &m->ci[CI_DP_AG], G_DP, CT_ALLGATHER, "_allgather_base", "nccl:_all_gather_base", c->cdtype, c->esize, full / D,
         full, dp_stream, k);
  snprintf(k, sizeof k, "ncclDevKernel_ReduceScatter_Sum_%s_RING_LL(ncclDevKernelArgsStorage<4096ul>)", c->ndt);
  ci_set(c, &m->ci[CI_DP_RS], G_DP, CT_REDUCESCATTER, "_reduce_scatter_base", "nccl:_reduce_scatter_base", c->cdtype,
         c->esize, full, full / D, dp_stream, k);
  if (D > 1) {
    collinfo *ar = &m->ci[CI_DP_AR], *ag = &m->ci[CI_DP_AG], *rs = &m->ci[CI_DP_RS];
    ar->bytes = c->nelems * c->esize;
    ar->sf = (double)ar->bytes * 2.0 * (D - 1) / D;
    ar->T = quant_T(c, ar->sf, dpbw, "DP all-reduce");
    ag->bytes = full * c->esize;
    ag->sf = (double)ag->bytes * (D - 1) / D;
    ag->T = quant_T(c, ag->sf, dpbw, "DP all-gather");
    rs->bytes = full * c->esize;
    rs->sf = (double)rs->bytes * (D - 1) / D;
    rs->T = quant_T(c, rs->sf, dpbw, "DP reduce-scatter");
  }
  if (c->o.first_bucket_mib > 0 && D > 1) { /* DDP's first bucket (jobs with a PyTorch host) */
    collinfo *f = &m->ci[CI_DP_AR1];
    long long ne = (long long)llround(c->o.first_bucket_mib * 1048576.0) / c->esize;
    if (ne < 1) die("--first-bucket-mib too small");
    ci_set(c, f, G_DP, CT_ALLREDUCE, "allreduce", "nccl:all_reduce", c->cdtype, c->esize, ne, ne, dp_stream, c->nccl_name);
    f->bytes = ne * c->esize;
    f->sf = (double)f->bytes * 2.0 * (D - 1) / D;
    f->T = quant_T(c, f->sf, dpbw, "DP all-reduce (first bucket)");
  }
  /* the loss / grad-norm all-reduce: one float on the world group, latency-bound (12 µs) */
  ci_set(c, &m->ci[CI_WORLD_AR], G_WORLD, CT_ALLREDUCE, "allreduce", "nccl:all_reduce", "Float", 4, 1, 1,
         T == 1 ? 20 : 23, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  m->ci[CI_WORLD_AR].bytes = 4;
  m->ci[CI_WORLD_AR].sf = 4.0 * 2.0 * (n - 1) / n;
  m->ci[CI_WORLD_AR].T = 12 * US;
}

/* creates the process groups: "0" world, then TP groups, then DP groups, as new_group numbers them */
static void build_groups(ctx_t *c) {
  int n = c->o.ranks, T = c->o.tp, D = n / T;
  int ntp = T > 1 ? D : 0, ndp = (T > 1 && D > 1) ? T : 0;
  c->ngroups = 1 + ntp + ndp;
  pgroup *old = c->groups;
  c->groups = xcalloc((size_t)c->ngroups, sizeof *c->groups);
  c->groups[0] = old[0];
  free(old);
  for (int r = 0; r < n; r++) {
    c->tp_of[r] = T > 1 ? 1 + r / T : -1;
    c->dp_of[r] = T == 1 ? 0 : D > 1 ? 1 + ntp + r % T : -1;
  }
  for (int g = 0; g < ntp + ndp; g++) {
    pgroup *pg = &c->groups[1 + g];
    int is_tp = g < ntp;
    snprintf(pg->name, sizeof pg->name, "%d", 1 + g);
    pg->desc = is_tp ? "TP" : "DP";
    pg->kind = is_tp ? G_TP : G_DP;
    pg->size = is_tp ? T : D;
    pg->stride = is_tp ? 1 : T;
    pg->ranks = xcalloc((size_t)pg->size, sizeof(int));
    for (int i = 0; i < pg->size; i++) pg->ranks[i] = is_tp ? g * T + i : (g - ntp) + i * T;
  }
  for (int g = 1; g < c->ngroups; g++) {
    pgroup *pg = &c->groups[g];
    size_t cap = (size_t)pg->size * 8 + 4, len = 0;
    pg->ranks_str = xcalloc(1, cap);
    pg->ranks_str[len++] = '[';
    for (int i = 0; i < pg->size; i++)
      len += (size_t)snprintf(pg->ranks_str + len, cap - len, "%s%d", i ? ", " : "", pg->ranks[i]);
    pg->ranks_str[len++] = ']';
    int nodes = 0;
    for (int i = 0; i < pg->size; i++)
      if (i == 0 || pg->ranks[i] / c->o.gpn != pg->ranks[i - 1] / c->o.gpn) nodes++;
    pg->nodes = nodes;
  }
}

void md_init(ctx_t *c) {
  int T = c->o.tp, n = c->o.ranks;
  if (n % T) die("--tp %d does not divide --ranks %d", T, n);
  if (n < 2) die("a multi-dimensional job needs at least 2 ranks");
  int D = n / T;
  if (D == 1) c->K = c->H = c->E = 0; /* no data parallelism: no gradient collectives */
  if (c->o.fsdp && c->K > c->o.layers) die("--fsdp: --buckets %d (units) exceeds --layers %d", c->K, c->o.layers);
  if (c->o.fsdp) { c->H = 0; c->E = c->K; }
  struct md_model *m = xcalloc(1, sizeof *m);
  c->md = m;
  build_groups(c);
  build_collinfo(c, m);
  build_program(c, m);
  c->Qoff = c->gd[0] / 10 / c->q * c->q;
  if (c->Qoff < c->q) c->Qoff = c->q;
}

static int64_t tp_jitter(const ctx_t *c, int s, int r, int i) {
  uint64_t n = (uint64_t)(c->o.tp_jitter_ns / c->q) + 1;
  if (n <= 1) return 0;
  return (int64_t)(h4(c->o.seed, 0x7A1, (uint64_t)s, (uint64_t)r * 65536u + (uint64_t)i) % n) * c->q;
}

static int group_of(const ctx_t *c, int gkind, int r) {
  return gkind == G_TP ? c->tp_of[r] : gkind == G_DP ? c->dp_of[r] : 0;
}

static int cmp_gop(const void *a, const void *b) {
  const gop *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return (x->ord > y->ord) - (x->ord < y->ord);
}

typedef struct {
  int64_t *cur, *sfree, *hend, *arr, *gend, *g0;
  size_t *n, *cap;
} md_state;

static void push(ctx_t *c, md_state *st, int r, const gop *g) {
  struct md_model *m = c->md;
  if (st->n[r] == st->cap[r]) {
    st->cap[r] = st->cap[r] ? 2 * st->cap[r] : 256;
    m->ops[r] = xrealloc(m->ops[r], st->cap[r], sizeof(gop));
  }
  gop *d = &m->ops[r][st->n[r]];
  *d = *g;
  st->n[r]++;
}

static void sim_coll(ctx_t *c, md_state *st, int s, const pop *p) {
  struct md_model *m = c->md;
  const collinfo *ci = &m->ci[p->ck];
  int n = c->o.ranks, si = stream_index(ci->stream);
  for (int g = 0; g < c->ngroups; g++) st->gend[g] = INT64_MIN;
  for (int r = 0; r < n; r++) {
    int64_t a = st->cur[r];
    if (p->async) a += c->Qoff + jitter(c, s, r, p->jk);
    if (a < st->sfree[(size_t)r * MD_STREAMS + si]) a = st->sfree[(size_t)r * MD_STREAMS + si];
    st->arr[r] = a;
    int g = group_of(c, ci->gkind, r);
    if (a > st->gend[g]) st->gend[g] = a;
  }
  int slot = slot_of(c, ci->gkind);
  int64_t seq = 1 + (int64_t)(c->first_step + s) * m->per_step[slot] + p->seqi;
  for (int r = 0; r < n; r++) {
    int grp = group_of(c, ci->gkind, r);
    int64_t end = st->gend[grp] + ci->T;
    gop g = {OP_COLL, st->arr[r], end - st->arr[r], seq, 0, ci, grp, end - st->arr[r] - ci->T, 0};
    push(c, st, r, &g);
    st->sfree[(size_t)r * MD_STREAMS + si] = end;
    if (p->async)
      st->hend[(size_t)r * MAX_HANDLES + p->handle] = end;
    else
      st->cur[r] = end;
  }
}

static void sim_step(ctx_t *c, md_state *st, int s) {
  struct md_model *m = c->md;
  int n = c->o.ranks, L = c->o.layers;
  for (int r = 0; r < n; r++) {
    st->cur[r] = c->P[s] + c->I;
    for (int i = 0; i < MD_STREAMS; i++) st->sfree[(size_t)r * MD_STREAMS + i] = INT64_MIN;
    m->step_off[r][s] = st->n[r];
  }
  for (int pi = 0; pi < m->nprog; pi++) {
    const pop *p = &m->prog[pi];
    if (p->kind == P_COLL) { sim_coll(c, st, s, p); continue; }
    for (int r = 0; r < n; r++) {
      int64_t *cur = &st->cur[r];
      gop g = {OP_MEMCPY, *cur, 0, 0, 0, NULL, -1, 0, 0};
      switch (p->kind) {
      case P_MEMCPY: g.d = c->Mc; push(c, st, r, &g); *cur += g.d; break;
      case P_GEMM:
        g.kind = p->gemm < L ? OP_FWD : ((p->gemm - L) % 2 == 0 ? OP_BGI : OP_BGW);
        g.d = c->gd[p->gemm] + (p->tpj ? tp_jitter(c, s, r, p->gemm) : 0);
        if (p->gemm == 0) st->g0[r] = *cur;
        push(c, st, r, &g);
        *cur += g.d;
        break;
      case P_MEMSET:
        g.kind = OP_MEMSET; g.t = st->g0[r] + (c->gd[0] / 2) / c->q * c->q; g.d = c->MSET;
        push(c, st, r, &g);
        break;
      case P_DELAY:
        g.kind = OP_DELAY;
        g.d = c->DBASE + jitter(c, s, r, 2000 + p->jk) + (r == c->o.straggler ? c->D : 0);
        push(c, st, r, &g);
        *cur += g.d;
        break;
      case P_WAIT: {
        int64_t e = st->hend[(size_t)r * MAX_HANDLES + p->handle];
        if (e > *cur) *cur = e;
        break;
      }
      case P_WAITALL:
        for (int i = 0; i < MD_STREAMS; i++)
          if (st->sfree[(size_t)r * MD_STREAMS + i] > *cur) *cur = st->sfree[(size_t)r * MD_STREAMS + i];
        break;
      default:
        g.kind = OP_OPT; g.d = c->OPT;
        push(c, st, r, &g);
        *cur += g.d;
      }
    }
  }
  for (int r = 0; r < n; r++) {
    if (st->cur[r] != st->cur[0]) die("internal: ranks 0 and %d end step %d apart", r, s);
    size_t a = m->step_off[r][s], k = st->n[r] - a;
    gop *v = m->ops[r] + a;
    for (size_t i = 0; i < k; i++) {
      v[i].ord = (int)i; /* program order breaks ties: a stable sort */
      v[i].hostile = v[i].kind == OP_OPT && c->o.hostile && s == 0;
    }
    qsort(v, k, sizeof *v, cmp_gop);
    /* one stream never runs two ops at once */
    for (size_t i = 0; i < k; i++)
      for (size_t q = i + 1; q < k && v[q].t < v[i].t + v[i].d; q++)
        if ((v[q].kind == OP_COLL) == (v[i].kind == OP_COLL) && v[q].kind != OP_MEMSET && v[i].kind != OP_MEMSET &&
            (v[q].kind != OP_COLL || v[q].ci->stream == v[i].ci->stream))
          die("internal: rank %d step %d: two ops overlap on one stream", r, s);
  }
  c->P[s + 1] = st->cur[0];
}

void md_build(ctx_t *c, int S) {
  struct md_model *m = c->md;
  int n = c->o.ranks;
  if (m->ops) { /* rebuilt with another step count (--target-mb) */
    for (int r = 0; r < n; r++) { free(m->ops[r]); free(m->step_off[r]); }
    free(m->ops); free(m->step_off);
    m->ops = NULL;
  }
  free(c->P);
  c->S = S;
  c->P = xcalloc((size_t)S + 1, sizeof(int64_t));
  c->P[0] = T0_NS;
  m->ops = xcalloc((size_t)n, sizeof *m->ops);
  m->step_off = xcalloc((size_t)n, sizeof *m->step_off);
  md_state st;
  st.cur = xcalloc((size_t)n, sizeof(int64_t));
  st.arr = xcalloc((size_t)n, sizeof(int64_t));
  st.g0 = xcalloc((size_t)n, sizeof(int64_t));
  st.gend = xcalloc((size_t)c->ngroups, sizeof(int64_t));
  st.sfree = xcalloc((size_t)n * MD_STREAMS, sizeof(int64_t));
  st.hend = xcalloc((size_t)n * MAX_HANDLES, sizeof(int64_t));
  st.n = xcalloc((size_t)n, sizeof(size_t));
  st.cap = xcalloc((size_t)n, sizeof(size_t));
  for (int r = 0; r < n; r++) m->step_off[r] = xcalloc((size_t)S + 1, sizeof(size_t));
  for (int s = 0; s < S; s++) sim_step(c, &st, s);
  for (int r = 0; r < n; r++) m->step_off[r][S] = st.n[r];
  free(st.cur); free(st.arr); free(st.g0); free(st.gend); free(st.sfree); free(st.hend); free(st.n); free(st.cap);
}

void md_write_step(rw_t *w, int s) {
  const ctx_t *c = w->c;
  const struct md_model *m = c->md;
  int64_t Ps = c->P[s], Ge = c->P[s + 1];
  step_head(w, s, Ps, Ge, Ps + c->I);
  for (size_t i = m->step_off[w->r][s]; i < m->step_off[w->r][s + 1]; i++) launch_op(w, &m->ops[w->r][i]);
  step_sync(w, Ge);
}

/* the job's collective kinds, to re-time (jobs with a PyTorch host: tg_host.c) */
collinfo *md_collinfo_mut(ctx_t *c) { return c->md->ci; }

const collinfo *md_collinfo(const ctx_t *c, int *n) {
  *n = CI_N;
  return c->md->ci;
}

void md_free(ctx_t *c) {
  struct md_model *m = c->md;
  if (!m) return;
  for (int r = 0; r < c->o.ranks && m->ops; r++) { free(m->ops[r]); free(m->step_off[r]); }
  free(m->ops); free(m->step_off); free(m->prog);
  free(m);
  c->md = NULL;
}
