/* tg_ops.c: op-mix jobs (issue 34 item 5, --op-mix): every rank runs, per step, a model of
 * OM_LAYERS decoder layers under nn.Module python_function spans, each layer a memory-bound
 * aten::layer_norm (its aten::native_layer_norm launches the kernel), a compute-bound addmm
 * (aten::linear > aten::t, aten::addmm), a gated activation of repeated back-to-back silu > mul
 * kernel pairs (a fusion candidate), a compute-bound aten::mm (aten::linear > aten::t,
 * aten::matmul > aten::mm) and a launch-bound chain of tiny aten::add kernels in the layer itself.
 * The cpu_ops carry Input Dims / Input type / Concrete Inputs as PyTorch writes them with
 * record_shapes; each kernel's launch (cudaLaunchKernel, correlation, ac2g flows) lies inside its
 * op. The mess: host time before each step's first kernel, per-rank jitter (the ranks end apart),
 * µs-rounded timestamps with --time-format epoch, one kernel whose launch call was lost (the
 * first add of rank 1, or 0 with one rank, in the first step); with --straggler R, rank R's GEMM
 * kernels take --straggler-factor times as long (the groups' differing rank). expected.json's truth is computed
 * from the planted shapes and durations by the formulas of docs/definitions.md "Ops and the
 * roofline", written out here, with this file's own peak and bandwidth table. */
#define _POSIX_C_SOURCE 200809L
#include "tracegen.h"

#define OM_LAYERS 2
#define OM_PAIRS 4   /* silu > mul pairs per layer and step */
#define OM_ADDS 12   /* tiny adds per layer and step */

enum { OG_LN, OG_ADDMM, OG_SILU, OG_MUL, OG_MM, OG_ADD, OG_N };

typedef struct {
  const char *op, *dims, *types, *concrete, *kernel;
  double flops, bytes;     /* one call, from its shapes */
  int64_t d;               /* planted kernel duration, ns */
} om_group;

/* a CPU span of one step: a module (python_function) or an op (cpu_op) */
typedef struct {
  int module;              /* 1: nn.Module python_function */
  const char *name;        /* op name, or the module's "Class_instance" */
  const char *dims, *types, *concrete; /* op args (NULL: none) */
  int64_t t, e;
  int64_t pyid, pyparent, pymod;
} om_span;

typedef struct {
  int g;                   /* OG_* */
  size_t op;               /* its op span */
  int64_t lt, kt, d;       /* launch start, kernel start, kernel duration */
  int lost;                /* the launch call was lost */
} om_launch;

struct ops_model {
  om_group g[OG_N];
  double peak, bw;         /* bf16 dense peak FLOP/s, memory bandwidth byte/s */
  int lost_rank;
  int64_t slow_d[OG_N];    /* --straggler: its kernel durations (the GEMMs slower, the rest as g[].d) */
  om_span *sp;
  size_t nsp, capsp;
  om_launch *ln;
  size_t nln, capln;
  int64_t cpu, gcur;       /* CPU cursor, GPU cursor (the last kernel's end) */
  int prev_g;
  int64_t pyid;
};

/* memory bandwidth by tracegen's GPU names (the catalog's figures: model/gpus.def) */
static double om_bandwidth(const char *gpu) {
  if (strstr(gpu, "H100") && strstr(gpu, "PCIe")) return 2.0e12;
  if (strstr(gpu, "H100")) return 3.35e12;
  if (strstr(gpu, "H200") && !strstr(gpu, "NVL")) return 4.8e12;
  return 0;
}

static int64_t om_q(const ctx_t *c, double ns) { return ((int64_t)llround(ns) + c->q / 2) / c->q * c->q; }

void ops_init(ctx_t *c) {
  const options *o = &c->o;
  struct ops_model *m = xcalloc(1, sizeof *m);
  c->ops = m;
  m->bw = om_bandwidth(o->gpu);
  if (!c->gi || m->bw <= 0) die("--op-mix needs an H100 (SXM or PCIe) or H200 SXM --gpu name");
  if (o->dtype != DT_BF16) die("--op-mix plants bf16 ops");
  m->peak = c->gi->bf16 * 1e12;
  m->lost_rank = o->ranks > 1 ? 1 : 0;
  /* shapes: x [8, 512, 4096] (n = 16,777,216, C = 4096, rows = 4096); GEMMs 4096 x 4096 x 4096 and
   * 4096 x 1024 x 4096; the gate [256, 1024]; the adds [1024] */
  const double n = 8.0 * 512 * 4096, C = 4096, rows = n / C, e = 2;
  om_group *g = m->g;
  g[OG_LN] = (om_group){"aten::native_layer_norm", "[[8, 512, 4096], [], [4096], [4096], []]",
                        "[\"c10::BFloat16\", \"\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
                        "[\"\", \"[4096]\", \"\", \"\", \"1e-05\"]",
                        "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, "
                        "float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, "
                        "c10::BFloat16*)",
                        /* 5n + 3 rows, + n (weight), + n (bias); x, weight, bias read; y, mean, rstd written */
                        7 * n + 3 * rows, (n + C + C) * e + n * e + 2 * rows * 4, 0};
  g[OG_ADDMM] = (om_group){"aten::addmm", "[[4096], [4096, 4096], [4096, 4096], [], []]",
                           "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
                           "[\"\", \"\", \"\", \"1\", \"1\"]", c->gemm_fwd,
                           2.0 * 4096 * 4096 * 4096, (4096.0 + 2 * 4096.0 * 4096 + 4096.0 * 4096) * e, 0};
  g[OG_SILU] = (om_group){"aten::silu", "[[256, 1024]]", "[\"c10::BFloat16\"]", "[\"\"]",
                          "void at::native::vectorized_elementwise_kernel<4, at::native::silu_kernel_cuda, "
                          "at::detail::Array<char*, 2> >(int, at::native::silu_kernel_cuda, at::detail::Array<char*, 2>)",
                          256.0 * 1024, 2 * 256.0 * 1024 * e, 4 * US};
  g[OG_MUL] = (om_group){"aten::mul", "[[256, 1024], [256, 1024]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]",
                         "[\"\", \"\"]",
                         "void at::native::vectorized_elementwise_kernel<4, at::native::binary_internal::MulFunctor<float>, "
                         "at::detail::Array<char*, 3> >(int, at::native::binary_internal::MulFunctor<float>, "
                         "at::detail::Array<char*, 3>)",
                         256.0 * 1024, 3 * 256.0 * 1024 * e, 5 * US};
  g[OG_MM] = (om_group){"aten::mm", "[[4096, 1024], [1024, 4096]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]",
                        "[\"\", \"\"]", c->gemm_bgw,
                        2.0 * 4096 * 1024 * 4096, (2 * 4096.0 * 1024 + 4096.0 * 4096) * e, 0};
  g[OG_ADD] = (om_group){"aten::add", "[[1024], [1024], []]", "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
                         "[\"\", \"\", \"1\"]",
                         "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
                         "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
                         "at::detail::Array<char*, 3>)",
                         1024.0, 3 * 1024.0 * e, 3 * US};
  /* planted rates: the norm at 35% of the bandwidth, the addmm at 62% of the peak, the mm at 45% */
  g[OG_LN].d = om_q(c, g[OG_LN].bytes / (0.35 * m->bw) * 1e9);
  g[OG_ADDMM].d = om_q(c, g[OG_ADDMM].flops / (0.62 * m->peak) * 1e9);
  g[OG_MM].d = om_q(c, g[OG_MM].flops / (0.45 * m->peak) * 1e9);
  for (int k = 0; k < OG_N; k++) m->slow_d[k] = g[k].d;
  m->slow_d[OG_ADDMM] = om_q(c, (double)g[OG_ADDMM].d * o->strag_factor);
  m->slow_d[OG_MM] = om_q(c, (double)g[OG_MM].d * o->strag_factor);
}

void ops_free(ctx_t *c) {
  struct ops_model *m = c->ops;
  if (!m) return;
  free(m->sp);
  free(m->ln);
  free(m);
  c->ops = NULL;
}

static size_t om_open(struct ops_model *m, int module, const char *name, const om_group *g, int64_t pyparent,
                      int64_t pymod) {
  if (m->nsp == m->capsp) {
    m->capsp = m->capsp ? 2 * m->capsp : 64;
    m->sp = xrealloc(m->sp, m->capsp, sizeof *m->sp);
  }
  om_span *s = &m->sp[m->nsp];
  memset(s, 0, sizeof *s);
  s->module = module;
  s->name = name;
  if (g) { s->dims = g->dims; s->types = g->types; s->concrete = g->concrete; }
  s->t = m->cpu;
  s->pyid = module ? ++m->pyid : 0;
  s->pyparent = pyparent;
  s->pymod = pymod;
  m->cpu += 2 * US;
  return m->nsp++;
}
static void om_close(struct ops_model *m, size_t i) {
  m->cpu += 2 * US;
  m->sp[i].e = m->cpu;
  m->cpu += US;
}

/* one leaf op of group g: its span, launch and kernel. Back to back (silu > mul): the kernel starts
 * 1 µs after the previous one ends; otherwise at least 12 µs after, so tiny kernels run alone. */
static void om_leaf(const ctx_t *c, struct ops_model *m, int r, int g, int lost) {
  size_t op = om_open(m, 0, m->g[g].op, &m->g[g], 0, 0);
  int64_t lt = m->cpu;
  m->cpu += 6 * US;
  int fused = g == OG_MUL && m->prev_g == OG_SILU;
  int64_t kt = m->gcur + (fused ? US : 12 * US);
  if (kt < m->cpu + US) kt = m->cpu + US;
  if (fused && kt - m->gcur >= 10 * US) die("internal: the CPU does not run ahead of the silu > mul pair");
  kt = (kt + c->q - 1) / c->q * c->q;
  om_close(m, op);
  if (m->nln == m->capln) {
    m->capln = m->capln ? 2 * m->capln : 64;
    m->ln = xrealloc(m->ln, m->capln, sizeof *m->ln);
  }
  int64_t d = r == c->o.straggler ? m->slow_d[g] : m->g[g].d;
  m->ln[m->nln++] = (om_launch){g, op, lt, kt, d, lost};
  m->gcur = kt + d;
  m->prev_g = g;
}

/* an op that runs no kernel (aten::t, the wrappers' own spans are om_open) */
static void om_view(struct ops_model *m, const char *name, const char *dims, const char *types) {
  static const om_group none = {0};
  size_t i = om_open(m, 0, name, &none, 0, 0);
  m->sp[i].dims = dims;
  m->sp[i].types = types;
  om_close(m, i);
}

static const char *const BF1 = "[\"c10::BFloat16\"]", *const BF2 = "[\"c10::BFloat16\", \"c10::BFloat16\"]";

/* Lays out rank r's step s from its data-loader end t0: fills m->sp and m->ln; returns the GPU end. */
static int64_t om_step(const ctx_t *c, int r, int s, int64_t t0) {
  struct ops_model *m = c->ops;
  m->nsp = m->nln = 0;
  m->cpu = t0;
  m->gcur = t0;
  m->prev_g = -1;
  m->pyid = 100;
  size_t model = om_open(m, 1, "Model_0", NULL, 1, 0);
  for (int l = 0; l < OM_LAYERS; l++) {
    static const char *const layer_names[] = {"DecoderLayer_0", "DecoderLayer_1"};
    static const char *const ln_names[] = {"LayerNorm_0", "LayerNorm_1"};
    static const char *const lin_names[] = {"Linear_0", "Linear_1", "Linear_2", "Linear_3"};
    static const char *const act_names[] = {"GatedAct_0", "GatedAct_1"};
    size_t layer = om_open(m, 1, layer_names[l], NULL, m->sp[model].pyid, l);
    int64_t lp = m->sp[layer].pyid;
    size_t mi = om_open(m, 1, ln_names[l], NULL, lp, l), w = om_open(m, 0, "aten::layer_norm", NULL, 0, 0);
    m->sp[w].dims = "[[8, 512, 4096], [], [4096], [4096], [], []]";
    m->sp[w].types = "[\"c10::BFloat16\", \"\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]";
    m->sp[w].concrete = "[\"\", \"[4096]\", \"\", \"\", \"1e-05\", \"True\"]";
    om_leaf(c, m, r, OG_LN, 0);
    om_close(m, w);
    om_close(m, mi);
    mi = om_open(m, 1, lin_names[2 * l], NULL, lp, 2 * l);
    w = om_open(m, 0, "aten::linear", NULL, 0, 0);
    m->sp[w].dims = "[[4096, 4096], [4096, 4096], [4096]]";
    m->sp[w].types = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]";
    om_view(m, "aten::t", "[[4096, 4096]]", BF1);
    om_leaf(c, m, r, OG_ADDMM, 0);
    om_close(m, w);
    om_close(m, mi);
    mi = om_open(m, 1, act_names[l], NULL, lp, l);
    for (int p = 0; p < OM_PAIRS; p++) {
      om_leaf(c, m, r, OG_SILU, 0);
      om_leaf(c, m, r, OG_MUL, 0);
    }
    om_close(m, mi);
    mi = om_open(m, 1, lin_names[2 * l + 1], NULL, lp, 2 * l + 1);
    w = om_open(m, 0, "aten::linear", NULL, 0, 0);
    m->sp[w].dims = "[[4096, 1024], [4096, 1024]]";
    m->sp[w].types = BF2;
    om_view(m, "aten::t", "[[4096, 1024]]", BF1);
    size_t mat = om_open(m, 0, "aten::matmul", NULL, 0, 0);
    m->sp[mat].dims = m->g[OG_MM].dims;
    m->sp[mat].types = BF2;
    om_leaf(c, m, r, OG_MM, 0);
    om_close(m, mat);
    om_close(m, w);
    om_close(m, mi);
    for (int a = 0; a < OM_ADDS; a++) om_leaf(c, m, r, OG_ADD, r == m->lost_rank && s == 0 && l == 0 && a == 0);
    om_close(m, layer);
  }
  om_close(m, model);
  return m->gcur;
}

/* the host time before the step's first kernel: the data loader, plus up to --jitter-us per rank */
static int64_t om_host(const ctx_t *c, int r, int s) {
  int64_t j = c->J / c->q;
  return c->I + (j ? (int64_t)(h4(c->o.seed, 0x0951, (uint64_t)s, (uint64_t)r) % (uint64_t)(j + 1)) * c->q : 0);
}

void ops_build(ctx_t *c, int S) {
  free(c->P);
  c->S = S;
  c->P = xcalloc((size_t)S + 1, sizeof(int64_t));
  c->P[0] = T0_NS;
  for (int s = 0; s < S; s++) {
    int64_t end = 0;
    for (int r = 0; r < c->o.ranks; r++) {
      int64_t e = om_step(c, r, s, c->P[s] + om_host(c, r, s));
      if (c->ops->cpu > e) e = c->ops->cpu;
      if (e > end) end = e;
    }
    c->P[s + 1] = end + 100 * US;
  }
}

static void om_raw(rw_t *w, const char *key, const char *v) {
  if (!v) return;
  jw_keyn(&w->j, key, strlen(key));
  jw_rawn(&w->j, v, strlen(v));
}

void ops_write_step(rw_t *w, int s) {
  const ctx_t *c = w->c;
  struct ops_model *m = c->ops;
  int64_t Ps = c->P[s], dl = Ps + om_host(c, w->r, s);
  int64_t ge = om_step(c, w->r, s, dl);
  int64_t g0 = m->ln[0].kt;
  step_head_at(w, s, Ps, c->P[s + 1] - 10 * US, dl, g0, ge);
  int64_t *ext = xcalloc(m->nsp, sizeof *ext);
  for (size_t i = 0; i < m->nsp; i++) {
    const om_span *sp = &m->sp[i];
    jw_t *j = &w->j;
    if (sp->module) {
      char name[64];
      snprintf(name, sizeof name, "nn.Module: %s", sp->name);
      ev_x(w, "python_function", name, w->pid, w->tid, sp->t, sp->e - sp->t);
      args_open(w);
      JK(j, "Python parent id"); jw_i64(j, sp->pyparent);
      JK(j, "Python id"); jw_i64(j, sp->pyid);
      JK(j, "Python module id"); jw_i64(j, sp->pymod);
      args_close(w);
      ev_close(w);
      continue;
    }
    ext[i] = ++w->ext;
    ev_x(w, "cpu_op", sp->name, w->pid, w->tid, sp->t, sp->e - sp->t);
    args_open(w);
    JK(j, "External id"); jw_i64(j, ext[i]);
    JK(j, "Record function id"); JRAW(j, "0");
    om_raw(w, "Concrete Inputs", sp->concrete);
    om_raw(w, "Input type", sp->types);
    om_raw(w, "Input Dims", sp->dims);
    args_close(w);
    ev_close(w);
  }
  for (size_t i = 0; i < m->nln; i++) {
    const om_launch *l = &m->ln[i];
    int64_t corr = ++w->corr;
    if (!l->lost) {
      runtime_ev(w, "cudaLaunchKernel", 211, l->lt, 5 * US, ext[l->op], corr);
      flow(w, 1, corr, w->pid, w->tid, l->lt);
    }
    gpu_kernel_ev(w, m->g[l->g].kernel, 7, l->kt, l->d, ext[l->op], corr);
    if (!l->lost) flow(w, 0, corr, w->dev, 7, l->kt);
  }
  free(ext);
  w->cpu = m->cpu;
  step_sync(w, ge);
}

/* ---- expected.json ---------------------------------------------------------------------------- */

static void om_num(FILE *f, const char *key, double v, int last) { fprintf(f, "\"%s\": %.17g%s", key, v, last ? "" : ", "); }

/* one group over the job: calls, GPU time, median kernel, the differing rank (docs/definitions.md:
 * the rank furthest from the ranks' median GPU time, the first of equals, when more than 10% of it) */
typedef struct { long long calls; int64_t gpu, median; int differing; } om_truth;

static void om_group_truth(const ctx_t *c, int g, om_truth *t) {
  const struct ops_model *m = c->ops;
  static const long long per_layer[OG_N] = {1, 1, OM_PAIRS, OM_PAIRS, 1, OM_ADDS};
  int n = c->o.ranks, slow = c->o.straggler;
  double *rt = xcalloc((size_t)n, sizeof *rt), *sorted = xcalloc((size_t)n, sizeof *sorted);
  memset(t, 0, sizeof *t);
  long long fast_k = 0, slow_k = 0;
  for (int r = 0; r < n; r++) {
    long long k = per_layer[g] * OM_LAYERS * c->S - (g == OG_ADD && r == m->lost_rank);
    int64_t d = r == slow ? m->slow_d[g] : m->g[g].d;
    t->calls += k;
    t->gpu += k * d;
    rt[r] = sorted[r] = (double)(k * d);
    if (r == slow) slow_k = k; else fast_k += k;
  }
  /* the median kernel: fast_k kernels of d, then (the straggler's) slow_k of slow_d */
  long long N = fast_k + slow_k;
  int64_t lo = m->g[g].d, hi = slow >= 0 ? m->slow_d[g] : lo;
  int64_t a = N / 2 - 1 < fast_k ? lo : hi, b = N / 2 < fast_k ? lo : hi;
  t->median = N % 2 ? b : a + (b - a) / 2;
  for (int i = 1; i < n; i++) /* insertion sort: the ranks' times */
    for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) { double x = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = x; }
  double med = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2, far = 0;
  t->differing = -1;
  for (int r = 0; n > 1 && r < n; r++)
    if (fabs(rt[r] - med) > far) { far = fabs(rt[r] - med); t->differing = r; }
  if (far <= 0.1 * med) t->differing = -1;
  free(rt);
  free(sorted);
}

/* module rows: path, self and total ns over the job */
typedef struct { char path[96]; int64_t self, total; } om_mod;

void ops_write_expected(const ctx_t *c, const char *path) {
  const struct ops_model *m = c->ops;
  const options *o = &c->o;
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s: %s", path, strerror(errno));
  om_truth tr[OG_N];
  int64_t gpu[OG_N], compute = 0;
  for (int g = 0; g < OG_N; g++) {
    om_group_truth(c, g, &tr[g]);
    gpu[g] = tr[g].gpu;
    compute += gpu[g];
  }
  int64_t orphan = m->g[OG_ADD].d;
  compute += orphan;
  char b1[32], b2[32], b3[32];
  fprintf(f, "{\n  \"mode\": \"op-mix\", \"gpu\": \"%s\", \"ranks\": %d, \"steps\": %d,\n", o->gpu, o->ranks, c->S);
  fprintf(f, "  \"peak_tflops\": %.17g, \"bandwidth_tbps\": %.17g, \"ridge\": %.17g,\n", m->peak / 1e12, m->bw / 1e12,
          m->peak / m->bw);
  fprintf(f, "  \"lost_launch_rank\": %d,\n", m->lost_rank);
  fprintf(f, "  \"op_attribution\": {\"compute_us\": %s, \"attributed_us\": %s, \"unattributed_us\": %s},\n",
          fmt_us(b1, compute), fmt_us(b2, compute - orphan), fmt_us(b3, orphan));
  fprintf(f, "  \"ops\": [\n");
  for (int g = 0; g < OG_N; g++) {
    const om_group *G = &m->g[g];
    long long calls = tr[g].calls;
    double fl = G->flops * calls, by = G->bytes * calls, t = gpu[g] * 1e-9, I = G->flops / G->bytes;
    int cb = I >= m->peak / m->bw;
    double share = cb ? fl / t / m->peak : by / t / m->bw;
    double lost = share >= 1 ? 0 : gpu[g] / 1e3 * (1 - share);
    int lb = calls >= 10 && tr[g].median < 10 * US;
    fprintf(f, "    {\"op\": \"%s\", \"shapes\": \"%s\", \"dtype\": \"bf16\", \"count\": %lld, \"kernels\": %lld, ",
            G->op, G->dims, calls, calls);
    fprintf(f, "\"gpu_time_us\": %s, \"median_kernel_us\": %s, ", fmt_us(b1, gpu[g]), fmt_us(b2, tr[g].median));
    om_num(f, "flops", fl, 0);
    om_num(f, "bytes", by, 0);
    om_num(f, "intensity", I, 0);
    om_num(f, "achieved_tflops", fl / t / 1e12, 0);
    om_num(f, "achieved_tbps", by / t / 1e12, 0);
    fprintf(f, "\"class\": \"%s\", ", cb ? "compute-bound" : "memory-bound");
    om_num(f, "share_of_attainable", share, 0);
    om_num(f, "lost_us", lost, 0);
    fprintf(f, "\"launch_bound\": %s, \"differing_rank\": ", lb ? "true" : "false");
    if (tr[g].differing >= 0) fprintf(f, "%d}", tr[g].differing); else fprintf(f, "null}");
    fprintf(f, "%s\n", g + 1 < OG_N ? "," : "");
  }
  fprintf(f, "  ],\n");
  /* modules: per layer l, its norm, linears and gate hold their groups' time; the layer itself the adds */
  om_mod mods[2 + 5 * OM_LAYERS];
  size_t nm = 0;
  int64_t per = (int64_t)c->S * o->ranks;
  int64_t act = (gpu[OG_SILU] + gpu[OG_MUL]) / OM_LAYERS; /* every layer runs the same kernels */
  mods[nm++] = (om_mod){"", orphan, orphan};
  mods[nm++] = (om_mod){"Model_0", 0, compute - orphan};
  for (int l = 0; l < OM_LAYERS; l++) {
    int64_t ln = gpu[OG_LN] / OM_LAYERS, a1 = gpu[OG_ADDMM] / OM_LAYERS, a2 = gpu[OG_MM] / OM_LAYERS;
    int64_t adds = (per * OM_ADDS - (l == 0)) * m->g[OG_ADD].d; /* the lost launch is layer 0's */
    om_mod *x = &mods[nm];
    snprintf(x[0].path, sizeof x[0].path, "Model_0/DecoderLayer_%d", l);
    x[0].self = adds;
    x[0].total = adds + ln + a1 + a2 + act;
    snprintf(x[1].path, sizeof x[1].path, "Model_0/DecoderLayer_%d/LayerNorm_%d", l, l);
    x[1].self = x[1].total = ln;
    snprintf(x[2].path, sizeof x[2].path, "Model_0/DecoderLayer_%d/Linear_%d", l, 2 * l);
    x[2].self = x[2].total = a1;
    snprintf(x[3].path, sizeof x[3].path, "Model_0/DecoderLayer_%d/GatedAct_%d", l, l);
    x[3].self = x[3].total = act;
    snprintf(x[4].path, sizeof x[4].path, "Model_0/DecoderLayer_%d/Linear_%d", l, 2 * l + 1);
    x[4].self = x[4].total = a2;
    nm += 5;
  }
  fprintf(f, "  \"modules\": [\n");
  for (size_t i = 0; i < nm; i++) {
    if (mods[i].path[0])
      fprintf(f, "    {\"path\": \"%s\", ", mods[i].path);
    else
      fprintf(f, "    {\"path\": null, ");
    fprintf(f, "\"self_us\": %s, \"total_us\": %s}%s\n", fmt_us(b1, mods[i].self), fmt_us(b2, mods[i].total),
            i + 1 < nm ? "," : "");
  }
  fprintf(f, "  ],\n");
  long long occ = (long long)OM_PAIRS * OM_LAYERS * per;
  fprintf(f, "  \"fusion_candidates\": [");
  if (occ >= 10)
    fprintf(f, "\n    {\"kernels\": \"%s > %s\", \"length\": 2, \"occurrences\": %lld, \"gpu_time_us\": %s}\n  ",
            m->g[OG_SILU].kernel, m->g[OG_MUL].kernel, occ, fmt_us(b1, occ * (m->g[OG_SILU].d + m->g[OG_MUL].d)));
  fprintf(f, "]\n}\n");
  if (fclose(f)) die("cannot write %s", path);
}
