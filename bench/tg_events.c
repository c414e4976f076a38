/* tg_events.c: the Kineto events tracegen writes (CPU ops, runtime calls, flows, GPU activity) and
 * the classic data-parallel model (model_build, write_step) whose bytes the golden tests pin; the
 * metadata and a rank's whole file are tg_file.c's. Every GPU event written (or dropped) is also appended to the rank's
 * record, from which tg_truth.c computes expected.json. */
#define _POSIX_C_SOURCE 200809L
#include "tracegen.h"

const gpu_info GPUS[] = {
  {"H100", "PCIe", "sm90", 9, 0, 114, 85520809984LL, 51.2, 756.0, 1513.0},
  {"H100", NULL, "sm90", 9, 0, 132, 84987740160LL, 66.9, 989.4, 1978.9},
  {"H200", NULL, "sm90", 9, 0, 132, 150754820096LL, 66.9, 989.4, 1978.9},
  {"A100", NULL, "sm80", 8, 0, 108, 85196873728LL, 19.5, 312.0, 0},
  {"B200", NULL, "sm100", 10, 0, 148, 191503138816LL, 75.0, 2250.0, 4500.0},
  {"MI300X", NULL, "gfx942", 9, 4, 304, 205822885888LL, 163.4, 1307.4, 2614.9},
};
const size_t NGPUS = sizeof GPUS / sizeof GPUS[0];

/* a recorded timestamp (true time t) */
void w_ts(rw_t *w, int64_t t) {
  int64_t rec = t + w->off;
  if (w->c->o.relative)
    jw_fixed(&w->j, rec - w->base, 3);
  else
    jw_i64(&w->j, rec / US);
}
/* opens an event: "ph", "cat", "name", "pid", "tid" on the first line (kineto layout) */
void ev_open(rw_t *w, const char *ph, const char *cat, const char *name, int64_t pid, int64_t tid) {
  jw_t *j = &w->j;
  jw_brk(j, 2);
  jw_open(j, '{', 2);
  jw_brk(j, 4);
  JK(j, "ph"); jw_str(j, ph);
  if (cat) { JK(j, "cat"); jw_str(j, cat); }
  JK(j, "name"); jw_str(j, name);
  JK(j, "pid"); jw_i64(j, pid);
  JK(j, "tid"); jw_i64(j, tid);
}
void ev_x(rw_t *w, const char *cat, const char *name, int64_t pid, int64_t tid, int64_t t, int64_t d) {
  ev_open(w, "X", cat, name, pid, tid);
  jw_brk(&w->j, 4);
  JK(&w->j, "ts"); w_ts(w, t);
  JK(&w->j, "dur"); w_dur(w, d);
}
void args_open(rw_t *w) {
  jw_brk(&w->j, 4);
  JK(&w->j, "args");
  jw_open(&w->j, '{', 4);
  jw_brk(&w->j, 6);
}
void args_close(rw_t *w) { jw_close(&w->j, '}'); }
void ev_close(rw_t *w) { jw_close(&w->j, '}'); }

void flow(rw_t *w, int start, int64_t id, int64_t pid, int64_t tid, int64_t t) {
  jw_t *j = &w->j;
  jw_brk(j, 2);
  jw_open(j, '{', 2);
  jw_brk(j, 4);
  JK(j, "ph"); if (start) JRAW(j, "\"s\""); else JRAW(j, "\"f\"");
  JK(j, "id"); jw_i64(j, id);
  JK(j, "pid"); jw_i64(j, pid);
  JK(j, "tid"); jw_i64(j, tid);
  JK(j, "ts"); w_ts(w, t);
  jw_brk(j, 4);
  JK(j, "cat"); JRAW(j, "\"ac2g\"");
  JK(j, "name"); JRAW(j, "\"ac2g\"");
  if (!start) { JK(j, "bp"); JRAW(j, "\"e\""); }
  ev_close(w);
}

/* a cpu_op / user_annotation with a fresh External id; args_extra writes extra args */
int64_t cpu_span(rw_t *w, const char *cat, const char *name, int64_t t, int64_t d, args_fn fn, const void *arg) {
  int64_t ext = ++w->ext;
  ev_x(w, cat, name, w->pid, w->tid, t, d);
  args_open(w);
  JK(&w->j, "External id"); jw_i64(&w->j, ext);
  if (fn) fn(w, arg);
  args_close(w);
  ev_close(w);
  return ext;
}

/* ---- shapes on GEMM cpu_ops */
typedef struct { int kind; } shape_arg; /* 0 linear, 1 addmm, 2 mm grad-input, 3 mm grad-weight */
static void dims2(jw_t *j, long long a, long long b) {
  jw_open(j, '[', -1); jw_i64(j, a); jw_i64(j, b); jw_close(j, ']');
}
static void dims1(jw_t *j, long long a) { jw_open(j, '[', -1); jw_i64(j, a); jw_close(j, ']'); }
static void dims0(jw_t *j) { jw_open(j, '[', -1); jw_close(j, ']'); }
static void dims3(jw_t *j, long long a, long long b, long long c) {
  jw_open(j, '[', -1); jw_i64(j, a); jw_i64(j, b); jw_i64(j, c); jw_close(j, ']');
}
static void shape_args(rw_t *w, const void *p) {
  const ctx_t *c = w->c;
  int kind = ((const shape_arg *)p)->kind;
  if (!c->o.shapes) return;
  jw_t *j = &w->j;
  long long M = c->o.gm, N = c->o.gn, K = c->o.gk;
  JK(j, "Input Dims");
  jw_open(j, '[', -1);
  int n = 0;
  switch (kind) {
  case 0: dims2(j, M, K); dims2(j, N, K); dims1(j, N); n = 3; break;
  case 1: dims1(j, N); dims2(j, M, K); dims2(j, K, N); dims0(j); dims0(j); n = 5; break;
  case 2: dims2(j, M, N); dims2(j, N, K); n = 2; break;
  default: dims2(j, N, M); dims2(j, M, K); n = 2; break;
  }
  jw_close(j, ']');
  JK(j, "Input type");
  jw_open(j, '[', -1);
  for (int i = 0; i < n; i++) {
    if (kind == 1 && i >= 3)
      JRAW(j, "\"Scalar\"");
    else
      jw_str(j, c->itype);
  }
  jw_close(j, ']');
}

/* ---- collective args (record_param_comms and, unless --no-coll-args, NCCL kernels).
 * g == NULL: the classic allreduce on the world group. */
/* --a2a-hot-rank: rank r sends split(r, p) = k_r·(p + 1) rows of nelems / (N(N+1)/2) elements to peer
 * p, k_r = --a2a-factor on the hot rank and 1 elsewhere: uneven splits, the hot rank F times the bytes */
static long long a2a_row(const ctx_t *c) {
  long long n = c->o.ranks, rows = n * (n + 1) / 2;
  return c->nelems / rows > 0 ? c->nelems / rows : 1;
}
long long a2a_split(const ctx_t *c, int r, int peer) {
  return (long long)(r == c->o.a2a_hot ? c->o.a2a_factor : 1) * (peer + 1);
}
long long a2a_nelems(const ctx_t *c, int r) {
  long long rows = 0;
  for (int p = 0; p < c->o.ranks; p++) rows += a2a_split(c, r, p);
  return rows * a2a_row(c);
}
static void a2a_args(rw_t *w) {
  const ctx_t *c = w->c;
  jw_t *j = &w->j;
  JK(j, "Collective name"); JRAW(j, "\"all_to_all\"");
  JK(j, "In msg nelems"); jw_i64(j, a2a_nelems(c, w->r));
  JK(j, "Out msg nelems"); jw_i64(j, a2a_nelems(c, w->r));
  JK(j, "Group size"); jw_i64(j, c->o.ranks);
  JK(j, "dtype"); jw_str(j, c->cdtype);
  size_t cap = 24 * (size_t)c->o.ranks + 3, at = 1;
  char *list = xcalloc(cap, 1);
  list[0] = '[';
  for (int p = 0; p < c->o.ranks; p++)
    at += (size_t)snprintf(list + at, cap - at, "%s%lld", p ? ", " : "", a2a_split(c, w->r, p));
  snprintf(list + at, cap - at, "]");
  JK(j, "In split size"); jw_str(j, list);
  free(list);
  JK(j, "Out split size"); JRAW(j, "\"[]\"");
}

static void coll_args(rw_t *w, int64_t seq, int on_kernel, const gop *g) {
  const ctx_t *c = w->c;
  jw_t *j = &w->j;
  const collinfo *ci = g ? g->ci : NULL;
  const pgroup *pg = ci ? &c->groups[g->group] : NULL;
  if (!ci && c->o.a2a_hot >= 0) {
    a2a_args(w);
  } else if (!ci) {
    JK(j, "Collective name"); JRAW(j, "\"allreduce\"");
    JK(j, "In msg nelems"); jw_i64(j, c->nelems);
    JK(j, "Out msg nelems"); jw_i64(j, c->nelems);
    JK(j, "Group size"); jw_i64(j, c->o.ranks);
    JK(j, "dtype"); jw_str(j, c->cdtype);
  } else {
    JK(j, "Collective name"); jw_str(j, ci->coll_name);
    JK(j, "In msg nelems"); jw_i64(j, ci->in_nelems);
    JK(j, "Out msg nelems"); jw_i64(j, ci->out_nelems);
    JK(j, "Group size"); jw_i64(j, pg->size);
    JK(j, "dtype"); jw_str(j, ci->dtype);
  }
  if (ci || c->o.a2a_hot < 0) {
    JK(j, "In split size"); JRAW(j, "\"[]\"");
    JK(j, "Out split size"); JRAW(j, "\"[]\"");
  }
  if (c->o.pg) {
    if (!ci) {
      JK(j, "Process Group Name"); JRAW(j, "\"0\"");
      JK(j, "Process Group Description"); JRAW(j, "\"default_pg\"");
      JK(j, "Process Group Ranks"); jw_str(j, c->pg_ranks_str);
    } else {
      JK(j, "Process Group Name"); jw_str(j, pg->name);
      JK(j, "Process Group Description"); jw_str(j, pg->desc);
      JK(j, "Process Group Ranks"); jw_str(j, pg->ranks_str);
    }
    if (c->o.seq) { JK(j, "Seq"); jw_i64(j, seq); }
  }
  if (!on_kernel) {
    int rank_in = w->r, start = 0, stride = 1;
    if (pg) {
      for (int i = 0; i < pg->size; i++)
        if (pg->ranks[i] == w->r) rank_in = i;
      start = pg->ranks[0];
      stride = pg->stride;
    }
    JK(j, "Rank"); jw_i64(j, rank_in);
    JK(j, "Global rank start"); jw_i64(j, start);
    JK(j, "Global rank stride"); jw_i64(j, stride);
  }
}
void coll_args_cpu(rw_t *w, const void *p) {
  const gop *g = p;
  coll_args(w, g->seq, 0, g->ci ? g : NULL);
}

/* ---- GPU ops */
#define DELAY_KERNEL                                                                              \
  "void at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor<float, float, float, " \
  "at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >(int, "           \
  "at::native::BUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, " \
  "at::detail::Array<char*, 2>)"
#define OPT_KERNEL                                                                                 \
  "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "       \
  "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, " \
  "4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, double, double, bool, "     \
  "float*, float*>(at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous " \
  "namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float*, double, "   \
  "double, double, double, double, bool, float*, float*)"
#define HOSTILE_NAME "<script>alert(1)</script><img src=x onerror=alert(2)>&\"'"
#define DEEPEP_DISPATCH                                                                            \
  "void deep_ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*, float*, "             \
  "deep_ep::internode::SourceMeta*, int4 const*, float const*, long const*, float const*, int*, "   \
  "int*, int*, int*, int const*, int const*, int const*, int const*, int, int, int, int, int, bool " \
  "const*, void*, int, int, void**, int, int, int, int, int*)"
#define DEEPEP_COMBINE                                                                             \
  "void deep_ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*, bool "     \
  "const*, int4 const*, float const*, int4 const*, int4 const*, int const*, int const*, "            \
  "deep_ep::internode::SourceMeta const*, int const*, int const*, int, int, int, int, void*, int, "   \
  "int, void**, int, int, int, int)"

static int gop_stream(const gop *g) {
  if (g->kind == OP_COLL) return g->ci ? g->ci->stream : 20;
  return g->kind == OP_MEMSET ? 24 : 7;
}

/* the classic allreduce kernel's name under --comm-lib (bucket k of its step) */
static const char *lib_kernel_name(const ctx_t *c, int k) {
  switch (c->o.comm_lib) {
  case LIB_DEEPEP: return k % 2 == 0 ? DEEPEP_DISPATCH : DEEPEP_COMBINE;
  case LIB_SYMM:
    return c->esize == 4 ? "void (anonymous namespace)::multimem_all_reduce_kernel<float, 16>(float*, unsigned long, "
                           "unsigned int**, unsigned long, unsigned long)"
           : c->o.dtype == DT_FP16
               ? "void (anonymous namespace)::multimem_all_reduce_kernel<c10::Half, 16>(c10::Half*, unsigned long, "
                 "unsigned int**, unsigned long, unsigned long)"
               : "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, "
                 "unsigned long, unsigned int**, unsigned long, unsigned long)";
  case LIB_VLLM: {
    int one = c->bucket_bytes <= 512 * 1024;
    if (c->esize == 4)
      return one ? "void vllm::cross_device_reduce_1stage<float, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, "
                   "float*, int, int)"
                 : "void vllm::cross_device_reduce_2stage<float, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, "
                   "float*, int, int)";
    if (c->o.dtype == DT_FP16)
      return one ? "void vllm::cross_device_reduce_1stage<half, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, "
                   "half*, int, int)"
                 : "void vllm::cross_device_reduce_2stage<half, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, "
                   "half*, int, int)";
    return one ? "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, "
                 "vllm::Signal*, __nv_bfloat16*, int, int)"
               : "void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, "
                 "vllm::Signal*, __nv_bfloat16*, int, int)";
  }
  default: return c->nccl_name;
  }
}

/* a kernel as ROCm's roctracer writes it (--rocm-agent-ids): no CUPTI occupancy fields */
static void rocm_kernel_args(rw_t *w, int stream, int64_t corr, int gx, int bx) {
  jw_t *j = &w->j;
  JK(j, "device"); jw_i64(j, w->dev);
  JK(j, "stream"); jw_i64(j, stream);
  JK(j, "correlation"); jw_i64(j, corr);
  JK(j, "kind"); JRAW(j, "\"Dispatch Kernel\"");
  JK(j, "grid"); dims3(j, gx, 1, 1);
  JK(j, "block"); dims3(j, bx, 1, 1);
}

static void gpu_event(rw_t *w, const gop *g, int64_t ext, int64_t corr) {
  const ctx_t *c = w->c;
  jw_t *j = &w->j;
  int stream = gop_stream(g);
  const char *cat = "kernel", *name = NULL;
  switch (g->kind) {
  case OP_MEMCPY:
    cat = "gpu_memcpy";
    name = c->o.copy_d2d ? "Memcpy DtoD (Device -> Device)" : "Memcpy HtoD (Pinned -> Device)";
    break;
  case OP_MEMSET: cat = "gpu_memset"; name = "Memset (Device)"; break;
  case OP_FWD: name = c->gemm_fwd; break;
  case OP_BGI: name = c->gemm_bgi; break;
  case OP_BGW: name = c->gemm_bgw; break;
  case OP_COLL: name = g->ci ? g->ci->kname : lib_kernel_name(c, (int)(g->seq - 1)); break;
  case OP_DELAY: name = DELAY_KERNEL; break;
  default: name = g->hostile ? HOSTILE_NAME : OPT_KERNEL; break;
  }
  ev_x(w, cat, name, w->dev, stream, g->t, g->d);
  args_open(w);
  JK(j, "External id"); jw_i64(j, ext);
  if (g->kind == OP_MEMCPY || g->kind == OP_MEMSET) {
    /* bytes chosen so that the bandwidth is a round 25 GB/s (copy) or 400 GB/s (memset) */
    int64_t bw = g->kind == OP_MEMCPY ? 25 : 400;
    JK(j, "device"); jw_i64(j, w->dev);
    JK(j, "context"); JRAW(j, "1");
    JK(j, "stream"); jw_i64(j, stream);
    JK(j, "correlation"); jw_i64(j, corr);
    JK(j, "bytes"); jw_i64(j, g->d * bw);
    JK(j, "memory bandwidth (GB/s)"); jw_i64(j, bw);
    w->n_mem++;
  } else if (c->o.rocm) {
    int gemm = g->kind == OP_FWD || g->kind == OP_BGI || g->kind == OP_BGW;
    rocm_kernel_args(w, stream, corr, gemm ? 304 : g->kind == OP_COLL ? 24 : 512, gemm ? 256 : 128);
    if (g->kind == OP_COLL) {
      if (c->o.collargs) coll_args(w, g->seq, 1, g->ci ? g : NULL);
      w->n_comm++;
    }
    w->n_kernels++;
  } else if (g->kind == OP_FWD || g->kind == OP_BGI || g->kind == OP_BGW) {
    /* GEMMs are most of the events: the lean arg set keeps 300 MB files at >= 250k GPU events */
    JK(j, "device"); jw_i64(j, w->dev);
    JK(j, "stream"); jw_i64(j, stream);
    JK(j, "correlation"); jw_i64(j, corr);
    JK(j, "grid"); dims3(j, 132, 1, 1);
    JK(j, "block"); dims3(j, 384, 1, 1);
    w->n_kernels++;
  } else {
    JK(j, "queued"); JRAW(j, "0");
    JK(j, "device"); jw_i64(j, w->dev);
    JK(j, "context"); JRAW(j, "1");
    JK(j, "stream"); jw_i64(j, stream);
    JK(j, "correlation"); jw_i64(j, corr);
    if (g->kind == OP_COLL) {
      JK(j, "registers per thread"); JRAW(j, "96");
      JK(j, "shared memory"); JRAW(j, "87568");
      JK(j, "blocks per SM"); JRAW(j, "0.181818");
      JK(j, "warps per SM"); JRAW(j, "3.090909");
      JK(j, "grid"); dims3(j, 24, 1, 1);
      JK(j, "block"); dims3(j, 544, 1, 1);
      JK(j, "est. achieved occupancy %"); JRAW(j, "0");
      if (c->o.collargs && c->o.comm_lib == LIB_NCCL) coll_args(w, g->seq, 1, g->ci ? g : NULL);
      w->n_comm++;
    } else {
      JK(j, "registers per thread"); JRAW(j, "32");
      JK(j, "shared memory"); JRAW(j, "0");
      JK(j, "blocks per SM"); JRAW(j, "3.878788");
      JK(j, "warps per SM"); JRAW(j, "15.515152");
      JK(j, "grid"); dims3(j, 512, 1, 1);
      JK(j, "block"); dims3(j, 128, 1, 1);
      JK(j, "est. achieved occupancy %"); JRAW(j, "24");
    }
    w->n_kernels++;
  }
  w->n_gpu++;
  args_close(w);
  ev_close(w);
}

/* a kernel or copy written outside the op model (idle-cause jobs, --negative-ts); corr < 0: no correlation */
void gpu_kernel_ev(rw_t *w, const char *name, int stream, int64_t t, int64_t d, int64_t ext, int64_t corr) {
  jw_t *j = &w->j;
  ev_x(w, "kernel", name, w->dev, stream, t, d);
  args_open(w);
  if (ext >= 0) { JK(j, "External id"); jw_i64(j, ext); }
  if (w->c->o.rocm) {
    rocm_kernel_args(w, stream, corr, 512, 128);
  } else {
    JK(j, "queued"); JRAW(j, "0");
    JK(j, "device"); jw_i64(j, w->dev);
    JK(j, "context"); JRAW(j, "1");
    JK(j, "stream"); jw_i64(j, stream);
    JK(j, "correlation"); jw_i64(j, corr);
    JK(j, "registers per thread"); JRAW(j, "32");
    JK(j, "shared memory"); JRAW(j, "0");
    JK(j, "grid"); dims3(j, 512, 1, 1);
    JK(j, "block"); dims3(j, 128, 1, 1);
  }
  args_close(w);
  ev_close(w);
  w->n_kernels++;
  w->n_gpu++;
}
void gpu_copy_ev(rw_t *w, const char *name, int stream, int64_t t, int64_t d, int64_t ext, int64_t corr,
                 int64_t bytes, int is_memset) {
  jw_t *j = &w->j;
  ev_x(w, is_memset ? "gpu_memset" : "gpu_memcpy", name, w->dev, stream, t, d);
  args_open(w);
  JK(j, "External id"); jw_i64(j, ext);
  JK(j, "device"); jw_i64(j, w->dev);
  JK(j, "context"); JRAW(j, "1");
  JK(j, "stream"); jw_i64(j, stream);
  JK(j, "correlation"); jw_i64(j, corr);
  JK(j, "bytes"); jw_i64(j, bytes);
  args_close(w);
  ev_close(w);
  w->n_mem++;
  w->n_gpu++;
}

/* the runtime call's name as ROCm spells it */
static const char *rt_name(const ctx_t *c, const char *cuda) {
  if (!c->o.rocm) return cuda;
  if (!strcmp(cuda, "cudaLaunchKernel")) return "hipLaunchKernel";
  if (!strcmp(cuda, "cudaLaunchKernelExC")) return "hipExtLaunchKernel";
  if (!strcmp(cuda, "cudaMemcpyAsync")) return "hipMemcpyAsync";
  if (!strcmp(cuda, "cudaMemsetAsync")) return "hipMemsetAsync";
  if (!strcmp(cuda, "cudaStreamSynchronize")) return "hipStreamSynchronize";
  if (!strcmp(cuda, "cudaDeviceSynchronize")) return "hipDeviceSynchronize";
  if (!strcmp(cuda, "cudaMalloc")) return "hipMalloc";
  return cuda;
}

void runtime_ev(rw_t *w, const char *name, int cbid, int64_t t, int64_t d, int64_t ext, int64_t corr) {
  jw_t *j = &w->j;
  ev_x(w, "cuda_runtime", rt_name(w->c, name), w->pid, w->tid, t, d);
  args_open(w);
  if (ext >= 0) { JK(j, "External id"); jw_i64(j, ext); }
  if (w->c->o.rocm) { JK(j, "cid"); } else { JK(j, "cbid"); }
  jw_i64(j, cbid);
  JK(j, "correlation"); jw_i64(j, corr);
  args_close(w);
  ev_close(w);
}

static int is_dropped(const ctx_t *c, int r, long long k) {
  for (int i = 0; i < c->o.ndrop; i++)
    if (c->o.drop_rank[i] == r && c->o.drop_k[i] == k) return 1;
  return 0;
}

/* appends g to the rank's record */
static void record_gop(rw_t *w, const gop *g, int written) {
  const ctx_t *c = w->c;
  grec e;
  memset(&e, 0, sizeof e);
  e.t = g->t;
  e.d = g->d;
  e.step = w->cur_step;
  e.written = written;
  e.gpu_event = 1;
  e.group = -1;
  e.real_group = -1;
  if (g->kind == OP_MEMCPY || g->kind == OP_MEMSET) {
    e.cls = REC_MEM;
  } else if (g->kind == OP_COLL) {
    e.cls = REC_COMM;
    e.seq = g->seq;
    e.ci = g->ci;
    e.real_group = g->ci ? g->group : 0;
    e.wait = g->wait;
    /* a kernel's group is known from its own args or its record_param_comms (NCCL only) */
    if (c->o.pg && c->o.comm_lib == LIB_NCCL) e.group = e.real_group;
  } else {
    e.cls = REC_COMPUTE;
  }
  rec_add(&w->rec, &e);
}

/* nested spans around an op's launch call: the block is (3 + 2*nwrap) units, the call its middle 3 */
int launch_nwrap(int kind) {
  switch (kind) {
  case OP_FWD: case OP_COLL: case OP_OPT: return 2;
  default: return 1;
  }
}

/* what follows a launch call [rs, ...) with correlation corr: the flows and the GPU event (unless
 * dropped), and the op in the rank's record */
void gpu_launched(rw_t *w, const gop *g, int64_t ext0, int64_t corr, int64_t rs) {
  const ctx_t *c = w->c;
  int written = 1;
  if (g->kind == OP_COLL && c->o.ndrop) written = !is_dropped(c, w->r, ++w->comm_seen);
  if (written) {
    flow(w, 1, corr, w->pid, w->tid, rs);
    gpu_event(w, g, ext0, corr);
    flow(w, 0, corr, w->dev, gop_stream(g), g->t);
  }
  record_gop(w, g, written);
}

/* The CPU block [bs, bs + (3 + 2*nwrap)·u) that launches g: its cpu_ops, the runtime call, the GPU
 * event; returns the block's end. */
int64_t launch_block(rw_t *w, const gop *g, int64_t bs, int64_t u) {
  const ctx_t *c = w->c;
  int nwrap = launch_nwrap(g->kind);
  int64_t be = bs + (3 + 2 * nwrap) * u;
  int64_t corr = ++w->corr;
  int64_t ext0 = 0;
  const char *rt = "cudaLaunchKernel";
  int cbid = 211;
  shape_arg sa;
  switch (g->kind) {
  case OP_MEMCPY:
    ext0 = cpu_span(w, "cpu_op", "aten::copy_", bs, be - bs, NULL, NULL);
    rt = "cudaMemcpyAsync"; cbid = 41;
    break;
  case OP_MEMSET:
    ext0 = cpu_span(w, "cpu_op", "aten::zero_", bs, be - bs, NULL, NULL);
    rt = "cudaMemsetAsync"; cbid = 51;
    break;
  case OP_FWD:
    sa.kind = 0;
    ext0 = cpu_span(w, "cpu_op", "aten::linear", bs, be - bs, shape_args, &sa);
    sa.kind = 1;
    cpu_span(w, "cpu_op", "aten::addmm", bs + u, be - bs - 2 * u, shape_args, &sa);
    break;
  case OP_BGI: case OP_BGW:
    sa.kind = g->kind == OP_BGI ? 2 : 3;
    ext0 = cpu_span(w, "cpu_op", "aten::mm", bs, be - bs, shape_args, &sa);
    break;
  case OP_COLL:
    switch (g->ci ? LIB_NCCL : c->o.comm_lib) {
    case LIB_DEEPEP: {
      int disp = (g->seq - 1) % 2 == 0;
      cpu_span(w, "user_annotation", disp ? "dispatch(B)" : "combine(B)", bs, be - bs, NULL, NULL);
      ext0 = cpu_span(w, "cpu_op", disp ? "deep_ep::internode_dispatch" : "deep_ep::internode_combine", bs + u,
                      be - bs - 2 * u, NULL, NULL);
      rt = "cudaLaunchKernelExC"; cbid = 430;
      break;
    }
    case LIB_SYMM: case LIB_VLLM:
      cpu_span(w, "user_annotation", "all_reduce_grads", bs, be - bs, NULL, NULL);
      ext0 = cpu_span(w, "cpu_op", c->o.comm_lib == LIB_SYMM ? "symm_mem::multimem_all_reduce_" : "_C_custom_ar::all_reduce",
                      bs + u, be - bs - 2 * u, NULL, NULL);
      break;
    default:
      ext0 = cpu_span(w, "cpu_op", "record_param_comms", bs, be - bs, coll_args_cpu, g);
      cpu_span(w, "user_annotation", g->ci ? g->ci->cpu_name : "nccl:all_reduce", bs + u, be - bs - 2 * u, NULL, NULL);
      rt = "cudaLaunchKernelExC"; cbid = 430;
    }
    break;
  case OP_DELAY:
    ext0 = cpu_span(w, "cpu_op", "aten::mul_", bs, be - bs, NULL, NULL);
    break;
  default:
    cpu_span(w, "user_annotation", "Optimizer.step#AdamW.step", bs, be - bs, NULL, NULL);
    ext0 = cpu_span(w, "cpu_op", "aten::_fused_adamw_", bs + u, be - bs - 2 * u, NULL, NULL);
    break;
  }
  int64_t rs = bs + nwrap * u, rd = be - bs - 2 * nwrap * u;
  runtime_ev(w, rt, cbid, rs, rd, ext0, corr);
  gpu_launched(w, g, ext0, corr, rs);
  return be;
}

/* The CPU block that launches one GPU op in the classic and multi-dimensional models: at most LA
 * ahead of the op. Nominal unit u = 2 µs; shrunk when the GPU op starts too soon. */
void launch_op(rw_t *w, const gop *g) {
  const ctx_t *c = w->c;
  int64_t units = 3 + 2 * launch_nwrap(g->kind);
  int64_t bs = w->cpu;
  if (bs < g->t - c->LA) bs = g->t - c->LA;
  int64_t avail = g->t - bs;
  int64_t u = 2 * US;
  if (avail < units * u + u) {
    u = (avail / (units + 1)) / c->q * c->q;
    if (u < c->q)
      die("the CPU cannot launch GPU op %d of rank %d in time (GPU ops too short); use longer durations",
          g->kind, w->r);
  }
  int64_t be = launch_block(w, g, bs, u);
  w->cpu = be + u;
}

/* ------------------------------------------------------------------ the classic model */
int64_t jitter(const ctx_t *c, int s, int r, int k) {
  if (c->J == 0) return 0;
  uint64_t n = (uint64_t)(c->J / c->q) + 1;
  return (int64_t)(h4(c->o.seed, 1 + (uint64_t)s, (uint64_t)r, (uint64_t)k) % n) * c->q;
}
/* how much earlier than the collective's end X rank r's kernel of collective k of step s ends:
 * uniform in [0, --end-spread-us], in the time quantum (0 without the option) */
int64_t end_spread(const ctx_t *c, int s, int r, int k) {
  if (c->SPR == 0) return 0;
  uint64_t n = (uint64_t)(c->SPR / c->q) + 1;
  return (int64_t)(h4(c->o.seed ^ 0x5E5EADULL, 1 + (uint64_t)s, (uint64_t)r, (uint64_t)k) % n) * c->q;
}
/* arrival of rank r at collective k of step s (true time) */
static inline int64_t arrival(const ctx_t *c, int s, int r, int k) {
  int64_t a = c->Xstart[(size_t)s * c->K + k] + jitter(c, s, r, k);
  if (k >= c->H) a += c->DBASE + (r == c->o.straggler ? c->D : 0);
  return a;
}
/* delay kernel before exposed collective k (k >= H) */
static inline int64_t delay_len(const ctx_t *c, int s, int r, int k) {
  return c->DBASE + jitter(c, s, r, k) + (r == c->o.straggler ? c->D : 0);
}
int64_t classic_arrival(const ctx_t *c, int s, int r, int k) { return arrival(c, s, r, k); }
int64_t classic_delay(const ctx_t *c, int s, int r, int k) { return delay_len(c, s, r, k); }

/* the shortest kernel over the ranks of collective k of step s ending at x: the instance's transfer
 * (docs/definitions.md); T when every rank leaves at x */
static int64_t min_kernel(const ctx_t *c, int s, int k, int64_t x) {
  int64_t m = INT64_MAX;
  for (int r = 0; r < c->o.ranks; r++) {
    int64_t d = x - end_spread(c, s, r, k) - arrival(c, s, r, k);
    if (d < m) m = d;
  }
  return m;
}

void model_build(ctx_t *c, int S) {
  if (c->mode == MODE_MD) { md_build(c, S); return; }
  if (c->mode == MODE_IDLE) { idle_build(c, S); return; }
  if (c->mode == MODE_HOST) { host_build(c, S); return; }
  if (c->mode == MODE_PP) { pp_build(c, S); return; }
  if (c->mode == MODE_OPS) { ops_build(c, S); return; }
  free(c->P); free(c->X); free(c->Xstart); free(c->Tmin);
  c->S = S;
  c->P = xcalloc((size_t)S + 1, sizeof(int64_t));
  c->X = xcalloc((size_t)S * (size_t)(c->K ? c->K : 1), sizeof(int64_t));
  c->Xstart = xcalloc((size_t)S * (size_t)(c->K ? c->K : 1), sizeof(int64_t));
  c->Tmin = xcalloc((size_t)S * (size_t)(c->K ? c->K : 1), sizeof(int64_t));
  c->P[0] = T0_NS;
  int n = c->o.ranks;
  for (int s = 0; s < S; s++) {
    int64_t fwd_start = c->P[s] + c->I + c->Mc;
    int64_t bwd_start = fwd_start + c->fwd_len;
    int64_t bwd_end = fwd_start + c->C;
    for (int h = 0; h < c->H; h++) {
      size_t ix = (size_t)s * c->K + h;
      c->Xstart[ix] = bwd_start + h * c->Q + c->Qoff;
      int64_t last = INT64_MIN;
      for (int r = 0; r < n; r++) {
        int64_t a = arrival(c, s, r, h);
        if (a > last) last = a;
      }
      c->X[ix] = last + c->T;
      c->Tmin[ix] = min_kernel(c, s, h, c->X[ix]);
      if (c->X[ix] >= bwd_start + (h + 1) * c->Q || c->X[ix] >= bwd_end)
        die("internal: hidden collective %d of step %d does not end under compute", h, s);
    }
    int64_t x = bwd_end;
    for (int k = c->H; k < c->K; k++) {
      size_t ix = (size_t)s * c->K + k;
      c->Xstart[ix] = x;
      int64_t last = INT64_MIN;
      for (int r = 0; r < n; r++) {
        int64_t a = arrival(c, s, r, k);
        if (a > last) last = a;
      }
      x = c->X[ix] = last + c->T;
      c->Tmin[ix] = min_kernel(c, s, k, x);
    }
    c->P[s + 1] = x + c->OPT;
  }
}

/* the profiler start of rank r, before any of its events; deliberately not equal to its clock offset */
int64_t rank_base(const ctx_t *c, int r) {
  return T0_NS - c->o.offmax_ns - 5 * MS - (int64_t)r * 1234567;
}
/* baseTimeNanoseconds of window win of rank r (recorded clock); window 0 without --negative-ts: rank_base */
int64_t win_base(const ctx_t *c, int r, int win) {
  int64_t p = c->P[win_first_step(c, win)];
  if (c->o.negts) return p - 200 * US + c->off[r];
  return p - T0_NS + rank_base(c, r);
}
int win_first_step(const ctx_t *c, int win) { return win * (c->win_steps + c->win_gap); }
int win_last_step(const ctx_t *c, int r, int win) {
  if (r == c->o.cut_rank && win == c->nwin - 1) return win_first_step(c, win) + c->o.cut_steps;
  return c->nwin > 1 ? win_first_step(c, win) + c->win_steps : c->S;
}

/* the step's CPU header: ProfilerStep span [Ps, Pe) and its GPU annotation [g0, g1), the data loader
 * (ending at dl_end, where the CPU goes on), memory noise */
void step_head_at(rw_t *w, int s, int64_t Ps, int64_t Pe, int64_t dl_end, int64_t g0, int64_t g1) {
  const ctx_t *c = w->c;
  jw_t *j = &w->j;
  char name[48];
  snprintf(name, sizeof name, "ProfilerStep#%d", c->first_step + s);
  w->cur_step = s;
  if (w->step_span) w->step_span[w->nsteps_written] = Pe - Ps;
  w->nsteps_written++;

  /* CPU step span, the step's GPU annotation */
  int64_t sext = cpu_span(w, "user_annotation", name, Ps, Pe - Ps, NULL, NULL);
  ev_x(w, "gpu_user_annotation", name, w->dev, 7, g0, g1 - g0);
  args_open(w);
  JK(j, "External id"); jw_i64(j, sext);
  args_close(w);
  ev_close(w);

  /* data loader (CPU only, GPU idle) and some non-GPU noise */
  if (dl_end - Ps >= 4 * US) {
    cpu_span(w, "user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", Ps + US,
             dl_end - Ps - US, NULL, NULL);
    ev_x(w, "python_function", "torch/utils/data/dataloader.py(628): __next__", w->pid, w->pid, Ps + 2 * US,
         dl_end - Ps - 3 * US);
    args_open(w);
    JK(j, "Python parent id"); jw_i64(j, 1);
    JK(j, "Python id"); jw_i64(j, 2 + s);
    JK(j, "Ev Idx"); jw_i64(j, w->ext);
    args_close(w);
    ev_close(w);
  }
  ev_open(w, "i", "cpu_instant_event", "[memory]", w->pid, w->pid);
  JK(j, "ts"); w_ts(w, Ps + US);
  JK(j, "s"); JRAW(j, "\"t\"");
  args_open(w);
  JK(j, "Total Reserved"); jw_i64(j, 2147483648LL);
  JK(j, "Total Allocated"); jw_i64(j, 1073741824LL + (int64_t)s * 4096);
  JK(j, "Bytes"); jw_i64(j, 4096);
  JK(j, "Addr"); jw_i64(j, 139872419020800LL);
  JK(j, "Device Type"); jw_i64(j, 1);
  JK(j, "Device Id"); jw_i64(j, w->dev);
  args_close(w);
  ev_close(w);
  ev_open(w, "C", NULL, "GPU Memory Allocated (MB)", w->pid, 0);
  JK(j, "ts"); w_ts(w, Ps + US);
  args_open(w);
  JK(j, "value"); jw_i64(j, 1024 + (s % 7));
  args_close(w);
  ev_close(w);
  w->cpu = dl_end;
}
void step_head(rw_t *w, int s, int64_t Ps, int64_t Ge, int64_t gstart) {
  step_head_at(w, s, Ps, Ge, gstart - 12 * US, gstart, Ge);
}

/* host waits for the GPU: cudaStreamSynchronize + the cuda_sync event (not GPU work; not on ROCm) */
void step_sync(rw_t *w, int64_t Ge) {
  jw_t *j = &w->j;
  int64_t ss = w->cpu;
  int64_t corr = ++w->corr;
  int64_t ext = ++w->ext;
  runtime_ev(w, "cudaStreamSynchronize", 131, ss, Ge - ss, ext, corr);
  if (w->c->o.rocm) return;
  ev_x(w, "cuda_sync", "Stream Sync", w->dev, 7, ss, Ge - ss);
  args_open(w);
  JK(j, "External id"); jw_i64(j, ext);
  JK(j, "cuda_sync_kind"); JRAW(j, "\"Stream Sync\"");
  JK(j, "stream"); jw_i64(j, 7);
  JK(j, "correlation"); jw_i64(j, corr);
  JK(j, "device"); jw_i64(j, w->dev);
  JK(j, "context"); jw_i64(j, 1);
  args_close(w);
  ev_close(w);
}

void write_step(rw_t *w, int s) {
  const ctx_t *c = w->c;
  int r = w->r;
  int64_t Ps = c->P[s], Ge = c->P[s + 1];
  int64_t gstart = Ps + c->I;
  step_head(w, s, Ps, Ge, gstart);

  /* GPU ops in start order */
  gop g;
  memset(&g, 0, sizeof g);
  int64_t t = gstart;
  if (c->Mc > 0) {
    g.kind = OP_MEMCPY; g.t = t; g.d = c->Mc;
    launch_op(w, &g);
    t += c->Mc;
  }
  int L = c->o.layers;
  int64_t fwd_start = t;
  int h = 0;
  for (int i = 0; i < 3 * L; i++) {
    g.kind = i < L ? OP_FWD : ((i - L) % 2 == 0 ? OP_BGI : OP_BGW);
    g.t = t; g.d = c->gd[i];
    launch_op(w, &g);
    if (i == 0) { /* hidden memset on a side stream, under the first GEMM */
      gop m = {OP_MEMSET, fwd_start + (c->gd[0] / 2) / c->q * c->q, c->MSET, 0, 0, NULL, -1, 0, 0};
      launch_op(w, &m);
    }
    int64_t kend = t + c->gd[i];
    /* hidden collectives whose arrival falls inside this kernel */
    while (h < c->H && i >= L) {
      int64_t a = arrival(c, s, r, h);
      if (a >= kend) break;
      if (a < t) die("internal: hidden collective before its backward kernel");
      size_t ix = (size_t)s * c->K + h;
      int64_t d = c->X[ix] - end_spread(c, s, r, h) - a;
      gop cg = {OP_COLL, a, d, 1 + (int64_t)(c->first_step + s) * c->K + h, 0, NULL, -1, d - c->Tmin[ix], 0};
      launch_op(w, &cg);
      h++;
    }
    t = kend;
  }
  if (h != c->H) die("internal: %d of %d hidden collectives placed", h, c->H);
  for (int k = c->H; k < c->K; k++) {
    int64_t dl = delay_len(c, s, r, k);
    gop dg = {OP_DELAY, t, dl, 0, 0, NULL, -1, 0, 0};
    launch_op(w, &dg);
    int64_t a = t + dl;
    size_t ix = (size_t)s * c->K + k;
    int64_t xe = c->X[ix], d = xe - end_spread(c, s, r, k) - a;
    gop cg = {OP_COLL, a, d, 1 + (int64_t)(c->first_step + s) * c->K + k, 0, NULL, -1, d - c->Tmin[ix], 0};
    launch_op(w, &cg);
    t = xe;
  }
  gop og = {OP_OPT, t, c->OPT, 0, c->o.hostile && s == 0, NULL, -1, 0, 0};
  launch_op(w, &og);
  if (t + c->OPT != Ge) die("internal: step %d end mismatch", s);
  step_sync(w, Ge);
}
