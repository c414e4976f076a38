/* tg_idle.c: idle-cause jobs (issue 20, --idle-cause): one rank whose GPU gaps have a cause known by
 * construction: a loop drained by cudaStreamSynchronize (sync), a launch-bound loop of tiny kernels
 * (launch), a DataLoader stall (dataloader), every cause in one step (mixed), or CUDA-graph replays
 * (graph: one cudaGraphLaunch, many kernels). The host thread's
 * events (ProfilerStep, DataLoader, cpu_ops, runtime calls) and the GPU events are built with exact
 * times; idle_causes() then splits every gap by the definition of issue 20 (bench/TRACEGEN.md), over
 * these planted events. */
#define _POSIX_C_SOURCE 200809L
#include "tracegen.h"

enum { H_ANNOT, H_CPUOP, H_RT, H_STEP };          /* host event kinds */
enum { RT_LAUNCH, RT_SYNC, RT_MEM, RT_OTHER, RT_COPY, RT_GRAPH }; /* runtime call classes of issue 20; RT_COPY:
                                                                   * an async copy call (issue 28); RT_GRAPH:
                                                                   * cudaGraphLaunch (issue 33) */
enum { GK_KERNEL, GK_H2D, GK_D2H };
enum { C_GPU, C_SYNC, C_DATA, C_MEM, C_MODULE, C_LAUNCH, C_OTHER, C_UNATTR, C_N };

#define LAT (5 * US)        /* a kernel starts 5 µs after its launch call returns when the GPU is idle */
#define SYNC_RET (10 * US)  /* a synchronizing call returns 10 µs after the GPU work it waits for ends */

typedef struct {
  int64_t t, d;
  int kind, rt;            /* H_*, RT_* */
  const char *name;
  int cbid;
  int64_t corr, ext;
  int gpu;                 /* H_RT launch: index of the GPU event it launches, -1 */
  int step;
} hev;
typedef struct {
  int64_t t, d;
  int kind;                /* GK_* */
  const char *name;
  int64_t corr;
  int launch;              /* index of its runtime call, -1: launched outside the trace */
  int step;
} gev;

struct idle_model {
  hev *h;
  size_t nh, caph;
  gev *g;
  size_t ng, capg;
  size_t *h_off, *g_off;   /* per step: first host / GPU event; S+1 entries */
  int64_t host, gfree;     /* host thread cursor; end of the GPU's queued work */
  int64_t corr, ext;
  int step;
};

#define K_MM "nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT"
#define K_ADD                                                                                          \
  "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "               \
  "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"
#define K_GELU                                                                                         \
  "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, " \
  "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, " \
  "at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "                  \
  "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, " \
  "at::detail::Array<char*, 2>)"
#define K_CAT                                                                                          \
  "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<4u>, " \
  "unsigned int, 1, 128, 1>(at::native::(anonymous namespace)::OpaqueType<4u>*, at::native::(anonymous "         \
  "namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<4u>, unsigned int, 128, 1>, " \
  "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)"
#define K_ADAM "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, double, double, bool, float*, float*>(at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, double, bool, float*, float*)"
#define DL_NAME "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"

static hev *h_add(struct idle_model *m, int kind, const char *name, int64_t t, int64_t d) {
  if (m->nh == m->caph) {
    m->caph = m->caph ? 2 * m->caph : 256;
    m->h = xrealloc(m->h, m->caph, sizeof *m->h);
  }
  hev *e = &m->h[m->nh++];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->name = name;
  e->t = t;
  e->d = d;
  e->gpu = -1;
  e->ext = ++m->ext;
  e->step = m->step;
  return e;
}
static gev *g_add(struct idle_model *m, int kind, const char *name, int64_t t, int64_t d) {
  if (m->ng == m->capg) {
    m->capg = m->capg ? 2 * m->capg : 256;
    m->g = xrealloc(m->g, m->capg, sizeof *m->g);
  }
  gev *e = &m->g[m->ng++];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->name = name;
  e->t = t;
  e->d = d;
  e->launch = -1;
  e->step = m->step;
  if (t + d > m->gfree) m->gfree = t + d;
  return e;
}

/* a runtime call at the host cursor + pre; a launch (gkind >= 0) queues GPU work of kd ns that starts
 * when the GPU is free and LAT after the call returns, plus delay_ns (GPU-side wait) */
static int rt_call(struct idle_model *m, const char *name, int cbid, int rtclass, int64_t t, int64_t d, int gkind,
                   const char *kname, int64_t kd, int64_t delay_ns) {
  hev *r = h_add(m, H_RT, name, t, d);
  r->rt = rtclass;
  r->cbid = cbid;
  r->corr = ++m->corr;
  int hi = (int)(m->nh - 1);
  if (gkind >= 0) {
    int64_t st = t + d + LAT;
    if (st < m->gfree) st = m->gfree;
    gev *g = g_add(m, gkind, kname, st + delay_ns, kd);
    g->corr = r->corr;
    g->launch = hi;
    m->h[hi].gpu = (int)(m->ng - 1);
  }
  return hi;
}

/* cpu_op [cursor, +pre+rt+post) around a launch call [+pre, +pre+rt); the cursor moves past it.
 * annot: an enclosing user_annotation 2 µs wider on each side (NULL: none). */
static void op_launch(struct idle_model *m, const char *annot, const char *op, const char *rtname, int64_t rt,
                      int gkind, const char *kname, int64_t kd, int64_t gpu_delay) {
  const int64_t pre = 8 * US, post = 4 * US;
  int64_t t = m->host;
  if (annot) { h_add(m, H_ANNOT, annot, t, pre + rt + post + 4 * US); t += 2 * US; }
  h_add(m, H_CPUOP, op, t, pre + rt + post);
  int cbid = !strcmp(rtname, "cudaMemcpyAsync") ? 41 : 211;
  rt_call(m, rtname, cbid, cbid == 41 ? RT_COPY : RT_LAUNCH, t + pre, rt, gkind, kname, kd, gpu_delay);
  m->host = t + pre + rt + post + (annot ? 2 * US : 0);
}

/* aten::item: a 4-byte D2H copy, then cudaStreamSynchronize until the copy is done + SYNC_RET */
static void item_sync(struct idle_model *m) {
  int64_t t = m->host;
  h_add(m, H_CPUOP, "aten::item", t, 0); /* lengths set once the sync's return is known */
  size_t ii = m->nh - 1;
  h_add(m, H_CPUOP, "aten::_local_scalar_dense", t + 2 * US, 0);
  size_t li = m->nh - 1;
  rt_call(m, "cudaMemcpyAsync", 41, RT_COPY, t + 4 * US, 6 * US, GK_D2H, "Memcpy DtoH (Device -> Pageable)", 2 * US, 0);
  int64_t s0 = t + 12 * US, s1 = m->gfree + SYNC_RET;
  if (s1 < s0 + US) s1 = s0 + US;
  rt_call(m, "cudaStreamSynchronize", 131, RT_SYNC, s0, s1 - s0, -1, NULL, 0, 0);
  m->h[li].d = s1 + 2 * US - m->h[li].t;
  m->h[ii].d = s1 + 4 * US - m->h[ii].t;
  m->host = s1 + 4 * US;
}

static void optimizer(struct idle_model *m) {
  op_launch(m, "Optimizer.step#AdamW.step", "aten::_fused_adamw_", "cudaLaunchKernel", 6 * US, GK_KERNEL, K_ADAM,
            200 * US, 0);
}

/* A CUDA-graph replay (issue 33): a cpu_op around a 40 µs cudaGraphLaunch whose graph runs nk kernels
 * of 4 µs, 2 µs apart on the GPU (the graph's own dependencies), the first 30 µs after the call starts
 * (inside it, as in real traces) or when the GPU is free. lost (0-based, -1 none): a kernel the
 * profiler lost: it runs, but is not written. */
static void graph_launch(struct idle_model *m, int nk, int lost) {
  const int64_t pre = 8 * US, rt = 40 * US, post = 4 * US;
  int64_t t = m->host;
  h_add(m, H_CPUOP, "CUDAGraph::replay", t, pre + rt + post);
  hev *r = h_add(m, H_RT, "cudaGraphLaunch", t + pre, rt);
  r->rt = RT_GRAPH;
  r->cbid = 311;
  r->corr = ++m->corr;
  int hi = (int)(m->nh - 1);
  int64_t st = t + pre + 30 * US;
  if (st < m->gfree) st = m->gfree;
  for (int k = 0; k < nk; k++, st += 6 * US) {
    if (k == lost) { m->gfree = st + 4 * US; continue; }
    gev *g = g_add(m, GK_KERNEL, K_ADD, st, 4 * US);
    g->corr = m->h[hi].corr;
    g->launch = hi;
    if (m->h[hi].gpu < 0) m->h[hi].gpu = (int)(m->ng - 1);
  }
  m->host = t + pre + rt + post;
}

static void step_dataloader(struct idle_model *m, int64_t dl) {
  m->host += US;
  h_add(m, H_ANNOT, DL_NAME, m->host, dl);
  m->host += dl + 2 * US;
  op_launch(m, NULL, "aten::copy_", "cudaMemcpyAsync", 6 * US, GK_H2D, "Memcpy HtoD (Pinned -> Device)", 300 * US, 0);
  m->host += 2 * US;
}

static void build_step(ctx_t *c, struct idle_model *m, int s) {
  int mode = c->o.idle_cause;
  m->step = s;
  int64_t P = m->host;
  h_add(m, H_STEP, NULL, P, 0); /* its length is set at the step's end */
  size_t psi = m->nh - 1;
  if (mode == IDLE_DATALOADER) {
    /* two micro-batches (gradient accumulation), each fetched from the DataLoader: the host runs
     * ahead, then waits 6 ms for the next batch while the GPU finishes 4.3 ms of queued work */
    for (int mb = 0; mb < 2; mb++) {
      step_dataloader(m, 6 * MS);
      for (int i = 0; i < 10; i++) {
        op_launch(m, NULL, "aten::mm", "cudaLaunchKernel", 6 * US, GK_KERNEL, K_MM, 400 * US, 0);
        m->host += 2 * US;
      }
    }
    optimizer(m);
    m->host += 2 * US;
  } else if (mode == IDLE_SYNC) {
    m->host += 2 * US;
    for (int i = 0; i < 4; i++) {
      op_launch(m, NULL, "aten::mm", "cudaLaunchKernel", 6 * US, GK_KERNEL, K_MM, 1000 * US, 0);
      m->host += 2 * US;
      item_sync(m);
      m->host += 30 * US; /* user Python on the scalar */
    }
    optimizer(m);
    m->host += 2 * US;
    int64_t s0 = m->host, s1 = m->gfree + SYNC_RET;
    rt_call(m, "cudaStreamSynchronize", 131, RT_SYNC, s0, s1 - s0, -1, NULL, 0, 0);
    m->host = s1 + 2 * US;
  } else if (mode == IDLE_LAUNCH) {
    m->host += 2 * US;
    for (int i = 0; i < 100; i++) {
      op_launch(m, NULL, "aten::add", "cudaLaunchKernel", 6 * US, GK_KERNEL, K_ADD, 4 * US, 0);
      m->host += 2 * US;
    }
    optimizer(m);
    m->host += 2 * US;
  } else if (mode == IDLE_GRAPH) {
    /* three graphs of 5, 8 and 12 kernels per step; step 1 lost the third kernel of its second graph */
    static const int nk[3] = {5, 8, 12};
    m->host += 2 * US;
    for (int i = 0; i < 3; i++) {
      graph_launch(m, nk[i], s == 1 && i == 1 ? 2 : -1);
      m->host += 20 * US; /* Python between replays */
    }
    optimizer(m);
    m->host += 2 * US;
  } else { /* mixed */
    step_dataloader(m, 3 * MS);
    for (int i = 0; i < 4; i++) {
      op_launch(m, NULL, "aten::mm", "cudaLaunchKernel", 6 * US, GK_KERNEL, K_MM, 500 * US, 0);
      m->host += 2 * US;
    }
    item_sync(m);
    m->host += 30 * US;
    op_launch(m, NULL, "aten::mm", "cudaLaunchKernel", 6 * US, GK_KERNEL, K_MM, 500 * US, 0);
    m->host += 2 * US;
    /* the caching allocator grows: cudaMalloc 800 µs while the GPU runs dry */
    h_add(m, H_CPUOP, "aten::empty", m->host, 804 * US);
    rt_call(m, "cudaMalloc", 20, RT_MEM, m->host + 2 * US, 800 * US, -1, NULL, 0, 0);
    m->host += 806 * US;
    op_launch(m, NULL, "aten::mm", "cudaLaunchKernel", 6 * US, GK_KERNEL, K_MM, 500 * US, 0);
    m->host += 2 * US;
    /* first call of a kernel: lazy module loading makes the launch last 1.5 ms (step 0 only) */
    op_launch(m, NULL, "aten::gelu", "cudaLaunchKernel", s == 0 ? 1500 * US : 6 * US, GK_KERNEL, K_GELU, 300 * US, 0);
    m->host += 2 * US;
    /* host-side Python: logging */
    h_add(m, H_ANNOT, "log_metrics", m->host, 1500 * US);
    m->host += 1502 * US;
    /* a launch-bound burst: 20 tiny kernels, the host 20 µs per op, the GPU 4 µs */
    for (int i = 0; i < 20; i++) {
      op_launch(m, NULL, "aten::add", "cudaLaunchKernel", 6 * US, GK_KERNEL, K_ADD, 4 * US, 0);
      m->host += 2 * US;
    }
    /* a kernel launched by a thread the profiler did not follow: no launch call in the trace */
    gev *u = g_add(m, GK_KERNEL, K_CAT, m->gfree + 50 * US, 100 * US);
    u->corr = 0;
    /* a kernel that waits on the GPU side (an event from another stream/process) after its launch */
    rt_call(m, "cudaStreamWaitEvent", 147, RT_OTHER, m->host, 3 * US, -1, NULL, 0, 0);
    m->host += 5 * US;
    op_launch(m, NULL, "aten::mm", "cudaLaunchKernel", 6 * US, GK_KERNEL, K_MM, 300 * US, 40 * US);
    m->host += 2 * US;
    optimizer(m);
    m->host += 2 * US;
  }
  m->h[psi].d = m->host - P;
}

void idle_init(ctx_t *c) {
  if (c->o.ranks != 1) die("--idle-cause writes a single rank: use --ranks 1");
  c->K = c->H = c->E = 0;
  c->idle = xcalloc(1, sizeof *c->idle);
}

void idle_build(ctx_t *c, int S) {
  struct idle_model *m = c->idle;
  free(m->h); free(m->g); free(m->h_off); free(m->g_off);
  memset(m, 0, sizeof *m);
  free(c->P);
  c->S = S;
  c->P = xcalloc((size_t)S + 1, sizeof(int64_t));
  m->h_off = xcalloc((size_t)S + 1, sizeof(size_t));
  m->g_off = xcalloc((size_t)S + 1, sizeof(size_t));
  m->host = T0_NS;
  m->corr = 1000;
  for (int s = 0; s < S; s++) {
    c->P[s] = m->host;
    m->h_off[s] = m->nh;
    m->g_off[s] = m->ng;
    build_step(c, m, s);
  }
  c->P[S] = m->host;
  m->h_off[S] = m->nh;
  m->g_off[S] = m->ng;
  /* quantize check: every planted time is whole µs, so --time-format epoch holds it exactly */
  for (size_t i = 0; i < m->ng; i++)
    if (m->g[i].t % c->q || m->g[i].d % c->q) die("internal: idle-cause event not on the time quantum");
}

/* ------------------------------------------------------------------ writing */
void idle_write_steps(rw_t *w, int s0, int s1) {
  const ctx_t *c = w->c;
  const struct idle_model *m = c->idle;
  jw_t *j = &w->j;
  for (int s = s0; s < s1; s++) {
    char name[48];
    snprintf(name, sizeof name, "ProfilerStep#%d", c->first_step + s);
    w->cur_step = s;
    w->step_span[w->nsteps_written++] = c->P[s + 1] - c->P[s];
    int64_t gs = INT64_MAX, ge = INT64_MIN;
    for (size_t i = m->g_off[s]; i < m->g_off[s + 1]; i++) {
      if (m->g[i].t < gs) gs = m->g[i].t;
      if (m->g[i].t + m->g[i].d > ge) ge = m->g[i].t + m->g[i].d;
    }
    int64_t sext = -1;
    for (size_t i = m->h_off[s]; i < m->h_off[s + 1]; i++) {
      const hev *h = &m->h[i];
      if (h->kind == H_STEP) {
        sext = cpu_span(w, "user_annotation", name, h->t, h->d, NULL, NULL);
        ev_x(w, "gpu_user_annotation", name, w->dev, 7, gs, ge - gs);
        args_open(w);
        JK(j, "External id"); jw_i64(j, sext);
        args_close(w);
        ev_close(w);
      } else if (h->kind != H_RT) {
        cpu_span(w, h->kind == H_ANNOT ? "user_annotation" : "cpu_op", h->name, h->t, h->d, NULL, NULL);
      } else {
        runtime_ev(w, h->name, h->cbid, h->t, h->d, w->ext, h->corr);
        if (h->gpu >= 0) flow(w, 1, h->corr, w->pid, w->pid, h->t);
        if (h->rt == RT_SYNC) {
          ev_x(w, "cuda_sync", "Stream Sync", w->dev, 7, h->t, h->d);
          args_open(w);
          JK(j, "cuda_sync_kind"); JRAW(j, "\"Stream Sync\"");
          JK(j, "stream"); jw_i64(j, 7);
          JK(j, "correlation"); jw_i64(j, h->corr);
          JK(j, "device"); jw_i64(j, w->dev);
          args_close(w);
          ev_close(w);
        }
      }
    }
    for (size_t i = m->g_off[s]; i < m->g_off[s + 1]; i++) {
      const gev *g = &m->g[i];
      if (g->kind == GK_KERNEL)
        gpu_kernel_ev(w, g->name, 7, g->t, g->d, g->launch >= 0 ? sext : -1, g->corr);
      else
        gpu_copy_ev(w, g->name, 7, g->t, g->d, sext, g->corr, g->kind == GK_H2D ? g->d * 25 : 4, 0);
      if (g->launch >= 0) flow(w, 0, g->corr, w->dev, 7, g->t);
      grec e;
      memset(&e, 0, sizeof e);
      e.t = g->t; e.d = g->d; e.cls = g->kind == GK_KERNEL ? REC_COMPUTE : REC_MEM;
      e.group = e.real_group = -1; e.step = s; e.written = 1; e.gpu_event = 1;
      rec_add(&w->rec, &e);
    }
  }
}

/* ------------------------------------------------------------------ idle causes (issue 20) */
typedef struct {
  int64_t c[C_N];          /* per cause, ns */
  int64_t after_sync, idle;
} causes;

static int is_dl(const hev *h) { return (h->kind == H_ANNOT || h->kind == H_CPUOP) && h->name && strstr(h->name, "DataLoader"); }
static int inside(const hev *h, int64_t x) { return h->t <= x && x < h->t + h->d; }

/* the cause of instant x of a gap whose first later GPU event was launched by host event R (index ri),
 * whose innermost enclosing cpu_op is P (index pi, -1 none); events lo..hi are the candidates */
static int cause_at(const struct idle_model *m, size_t lo, size_t hi, int64_t x, size_t ri, long pi) {
  int dl = 0, sync = 0, mem = 0, mod = 0, launch = 0;
  for (size_t i = lo; i < hi; i++) {
    const hev *h = &m->h[i];
    if (!inside(h, x)) continue;
    if (is_dl(h)) dl = 1;
    if (h->kind == H_RT && h->rt == RT_SYNC && i != ri) sync = 1;
    if (h->kind == H_RT && h->rt == RT_MEM) mem = 1;
    if (h->kind == H_RT && h->rt == RT_COPY) { /* issue 28: a copy call of 1 ms or more held the host */
      if (h->d >= MS) sync = 1; else launch = 1;
    } else if (h->kind == H_RT && (h->rt == RT_LAUNCH || h->rt == RT_GRAPH)) {
      if (h->d >= MS) mod = 1; else launch = 1; /* a kernel launch call of 1 ms or more: lazy module loading */
    } else if (h->kind == H_RT && i == ri) launch = 1;
    if ((long)i == pi) launch = 1;
  }
  return dl ? C_DATA : sync ? C_SYNC : mem ? C_MEM : mod ? C_MODULE : launch ? C_LAUNCH : C_OTHER;
}

static void attribute_gap(const struct idle_model *m, int64_t a, int64_t b, int gi, causes *out) {
  const gev *E = &m->g[gi];
  out->idle += b - a;
  if (E->launch < 0) { out->c[C_UNATTR] += b - a; return; }
  size_t ri = (size_t)E->launch;
  const hev *R = &m->h[ri];
  int64_t Ls = R->t, Le = R->t + R->d;
  /* issue 33: a graph's kernel after its first was launched by the GPU, not by the host */
  if (Le <= a || (R->rt == RT_GRAPH && R->gpu != gi)) { out->c[C_GPU] += b - a; return; }
  /* innermost cpu_op enclosing R: the latest-starting one that contains it */
  long pi = -1;
  for (size_t i = 0; i < m->nh; i++) {
    const hev *h = &m->h[i];
    if (h->kind == H_CPUOP && h->t <= Ls && h->t + h->d >= Le && (pi < 0 || h->t >= m->h[pi].t)) pi = (long)i;
  }
  int64_t hend = Le < b ? Le : b;
  /* elementary pieces between host event boundaries */
  int64_t *pts = xcalloc(2 * m->nh + 2, sizeof(int64_t));
  size_t np = 0;
  pts[np++] = a;
  pts[np++] = hend;
  for (size_t i = 0; i < m->nh; i++) {
    int64_t e0 = m->h[i].t, e1 = m->h[i].t + m->h[i].d;
    if (e0 > a && e0 < hend) pts[np++] = e0;
    if (e1 > a && e1 < hend) pts[np++] = e1;
  }
  for (size_t i = 1; i < np; i++) /* insertion sort: few points */
    for (size_t k = i; k > 0 && pts[k - 1] > pts[k]; k--) { int64_t t = pts[k]; pts[k] = pts[k - 1]; pts[k - 1] = t; }
  for (size_t i = 0; i + 1 < np; i++) {
    if (pts[i + 1] <= pts[i]) continue;
    out->c[cause_at(m, 0, m->nh, pts[i], ri, pi)] += pts[i + 1] - pts[i];
  }
  free(pts);
  if (Le < b) out->c[C_GPU] += b - Le;
  for (size_t i = 0; i < m->nh; i++) {
    const hev *h = &m->h[i];
    if (h->kind == H_RT && h->rt == RT_SYNC && i != ri && inside(h, a)) { out->after_sync += b - a; break; }
  }
}

/* idle causes of the GPU events of steps [s0, s1): whole window (step < 0) or one step's window */
static void idle_causes(const ctx_t *c, int s0, int s1, int step, causes *out) {
  const struct idle_model *m = c->idle;
  memset(out, 0, sizeof *out);
  size_t g0 = m->g_off[s0], g1 = m->g_off[s1];
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t i = g0; i < g1; i++) {
    if (step >= 0 && m->g[i].step != step) continue;
    if (m->g[i].t < lo) lo = m->g[i].t;
    if (m->g[i].t + m->g[i].d > hi) hi = m->g[i].t + m->g[i].d;
  }
  /* the GPU events of the file are on one stream in start order: gaps are between consecutive ones */
  int64_t end = INT64_MIN;
  for (size_t i = g0; i < g1; i++) {
    const gev *g = &m->g[i];
    if (i > g0 && g->t < m->g[i - 1].t) die("internal: idle-cause GPU events out of order");
    if (end != INT64_MIN && g->t > end && end >= lo && g->t <= hi) attribute_gap(m, end, g->t, (int)i, out);
    if (g->t + g->d > end) end = g->t + g->d;
  }
  int64_t sum = 0;
  for (int k = 0; k < C_N; k++) sum += out->c[k];
  if (sum != out->idle) die("internal: idle causes add up to %" PRId64 " ns, idle is %" PRId64, sum, out->idle);
}

static void write_causes(FILE *f, const causes *k) {
  static const char *keys[C_N] = {"gpu_side_us", "sync_us", "data_loading_us", "memory_management_us", "module_load_us",
                                  "launch_overhead_us", "cpu_other_us", "unattributed_us"};
  char b[40];
  fputs("{", f);
  for (int i = 0; i < C_N; i++) fprintf(f, "%s\"%s\": %s", i ? ", " : "", keys[i], fmt_us(b, k->c[i]));
  fputs("}", f);
}

/* issue 33: "graph_launches", "graph_kernels" and "kernels_per_graph_launch" {mean, min, max} (null
 * without graph launches) of the graph launches of steps [s0, s1) */
static void write_graph_stats(const struct idle_model *m, FILE *f, int s0, int s1) {
  long long launches = 0, kernels = 0, lo = 0, hi = 0;
  for (size_t i = m->h_off[s0]; i < m->h_off[s1]; i++) {
    if (m->h[i].kind != H_RT || m->h[i].rt != RT_GRAPH) continue;
    long long n = 0;
    for (size_t g = m->g_off[s0]; g < m->g_off[s1]; g++) n += m->g[g].launch == (int)i && m->g[g].kind == GK_KERNEL;
    if (!launches || n < lo) lo = n;
    if (n > hi) hi = n;
    launches++;
    kernels += n;
  }
  fprintf(f, ", \"graph_launches\": %lld, \"graph_kernels\": %lld, \"kernels_per_graph_launch\": ", launches, kernels);
  if (launches) fprintf(f, "{\"mean\": %.10g, \"min\": %lld, \"max\": %lld}", (double)kernels / (double)launches, lo, hi);
  else fputs("null", f);
}

/* the idle-cause keys of a rank's expected.json entry (steps of the file w wrote) */
void idle_write_expected_rank(const ctx_t *c, FILE *f, const rw_t *w) {
  int s0 = -1, s1 = -1;
  for (size_t i = 0; i < w->rec.n; i++) {
    int s = w->rec.v[i].step;
    if (s < 0) continue;
    if (s0 < 0 || s < s0) s0 = s;
    if (s + 1 > s1) s1 = s + 1;
  }
  causes k;
  idle_causes(c, s0, s1, -1, &k);
  char b[40];
  fprintf(f, ", \"idle_causes\": ");
  write_causes(f, &k);
  fprintf(f, ", \"idle_after_sync_us\": %s", fmt_us(b, k.after_sync));
  write_graph_stats(c->idle, f, s0, s1);
  fprintf(f, ", \"steps\": [");
  for (int s = s0; s < s1; s++) {
    causes ks;
    idle_causes(c, s0, s1, s, &ks);
    fprintf(f, "%s{\"step_number\": %d, \"idle_us\": %s, \"idle_causes\": ", s > s0 ? ", " : "", c->first_step + s,
            fmt_us(b, ks.idle));
    write_causes(f, &ks);
    fprintf(f, ", \"idle_after_sync_us\": %s}", fmt_us(b, ks.after_sync));
  }
  fprintf(f, "]");
}

void idle_free(ctx_t *c) {
  struct idle_model *m = c->idle;
  if (!m) return;
  free(m->h); free(m->g); free(m->h_off); free(m->g_off);
  free(m);
  c->idle = NULL;
}
