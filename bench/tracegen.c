/* tracegen: writes a synthetic multi-rank PyTorch Profiler (Kineto) job with planted,
 * analytically known figures, plus DIR/expected.json with the truth.
 *
 * Build: gcc -std=c11 -O2 -Wall -Wextra -Werror bench/tracegen.c -o build/tracegen -lz -lm
 * The model and the expected.json keys are documented in bench/TRACEGEN.md.
 *
 * All times are integer nanoseconds of "true" time internally; a rank's recorded times are
 * true time + that rank's clock offset. Every duration is a multiple of the time quantum q
 * (1 ns for --time-format relative, 1000 ns for epoch, whose integer microseconds cannot hold
 * less), so what is written is exactly what the model says. No global mutable state. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <zlib.h>

#define US 1000LL            /* ns per µs */
#define MS (1000LL * US)
#define MAX_RANKS 65536
#define T0_NS 1717171717000000000LL /* true time of the first step start (2024-05-31) */

enum { LAYOUT_KINETO, LAYOUT_ONELINE, LAYOUT_INDENT4 };
enum { DT_BF16, DT_FP16, DT_FP32, DT_FP8 };

/* ------------------------------------------------------------------ GPU table */
typedef struct {
  const char *key, *key2; /* name must contain key (and key2 when set) */
  const char *arch;       /* kernel-name prefix */
  int major, minor, sms;
  long long mem;
  double fp32, bf16, fp8; /* dense peak TFLOP/s; 0 = not supported */
} gpu_info;

static const gpu_info GPUS[] = {
  {"H100", "PCIe", "sm90", 9, 0, 114, 85520809984LL, 51.2, 756.0, 1513.0},
  {"H100", NULL, "sm90", 9, 0, 132, 84987740160LL, 66.9, 989.4, 1978.9},
  {"H200", NULL, "sm90", 9, 0, 132, 150754820096LL, 66.9, 989.4, 1978.9},
  {"A100", NULL, "sm80", 8, 0, 108, 85196873728LL, 19.5, 312.0, 0},
  {"B200", NULL, "sm100", 10, 0, 148, 191503138816LL, 75.0, 2250.0, 4500.0},
  {"MI300X", NULL, "gfx942", 9, 4, 304, 205822885888LL, 163.4, 1307.4, 2614.9},
};

/* ------------------------------------------------------------------ options + context */
typedef struct {
  const char *outdir;
  int ranks, steps, layers, buckets, straggler, gzip, gzlevel;
  uint64_t seed;
  const char *gpu;
  double busbw, bucket_mib, overlap, target_mb;
  int64_t strag_ns, offmax_ns, compute_ns, idle_ns, memcpy_ns, opt_ns, jitter_ns;
  long long gm, gn, gk;
  int dtype, shapes, seq, pg, collargs, layout, relative, meta_after, hostile;
} options;

typedef struct {
  options o;
  const gpu_info *gi;  /* NULL when unknown */
  double peak;         /* FLOP/s for dtype, 0 when unknown */
  int64_t q;           /* time quantum */
  /* quantized model constants */
  int64_t C, I, Mc, OPT, J, D, T, MSET, DBASE, LA;
  int64_t *gd;         /* 3*layers GEMM durations */
  int64_t fwd_len;
  int H, E, K;         /* hidden, exposed, total buckets */
  int64_t Q, Qoff;     /* hidden slot length and offset of the nominal arrival in it */
  long long bucket_bytes, nelems;
  int esize;
  double flops_gemm, flops_step;
  int first_step;      /* ProfilerStep#first_step is the first recorded step */
  /* per-step model, common to all ranks */
  int S;
  int64_t *P;          /* S+1 step starts (true time); P[s+1] = end of step s */
  int64_t *X;          /* S*K collective ends */
  int64_t *Xstart;     /* S*K nominal start of each collective (hidden: nominal; exposed: cursor) */
  int64_t *off;        /* per-rank clock offsets */
  /* names */
  char gemm_fwd[256], gemm_bgi[256], gemm_bgw[256], nccl_name[160];
  char *pg_ranks_str;  /* "[0, 1, ...]" */
  const char *itype, *cdtype, *ndt;
} ctx_t;

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tracegen: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

static void *xcalloc(size_t n, size_t sz) {
  void *p = calloc(n ? n : 1, sz ? sz : 1);
  if (!p) die("out of memory");
  return p;
}

/* ------------------------------------------------------------------ PRNG (splitmix64 hash) */
static uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static uint64_t h4(uint64_t seed, uint64_t a, uint64_t b, uint64_t c) {
  return mix64(seed ^ mix64(a ^ mix64(b ^ mix64(c + 0x51ed27ULL))));
}

/* ------------------------------------------------------------------ output sink */
typedef struct {
  char *buf;
  size_t len, cap;
  FILE *fp;
  gzFile gz;
  uint64_t total; /* uncompressed bytes produced */
  const char *path;
} sink_t;

static void s_flush(sink_t *s) {
  if (s->len == 0) return;
  if (s->fp) {
    if (fwrite(s->buf, 1, s->len, s->fp) != s->len) die("write %s: %s", s->path, strerror(errno));
  } else if (s->gz) {
    size_t done = 0;
    while (done < s->len) {
      unsigned chunk = (unsigned)((s->len - done) > (1u << 30) ? (1u << 30) : (s->len - done));
      int w = gzwrite(s->gz, s->buf + done, chunk);
      if (w <= 0) {
        int e;
        die("gzwrite %s: %s", s->path, gzerror(s->gz, &e));
      }
      done += (size_t)w;
    }
  }
  s->total += s->len;
  s->len = 0;
}
static inline void s_put(sink_t *s, const char *p, size_t n) {
  if (s->len + n > s->cap) {
    s_flush(s);
    if (n > s->cap) { /* very long string: write through */
      s->len = 0;
      char *save = s->buf;
      size_t savecap = s->cap;
      s->buf = (char *)p;
      s->len = n;
      s->cap = n;
      s_flush(s);
      s->buf = save;
      s->cap = savecap;
      return;
    }
  }
  memcpy(s->buf + s->len, p, n);
  s->len += n;
}
#define S_LIT(s, lit) s_put((s), (lit), sizeof(lit) - 1)
static inline void s_ch(sink_t *s, char c) {
  if (s->len + 1 > s->cap) s_flush(s);
  s->buf[s->len++] = c;
}
static inline void s_spaces(sink_t *s, int n) {
  static const char sp[] = "                                                                ";
  while (n > 0) {
    int k = n > 64 ? 64 : n;
    s_put(s, sp, (size_t)k);
    n -= k;
  }
}
static inline void s_i64(sink_t *s, int64_t v) {
  char t[24];
  int i = 24;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do { t[--i] = (char)('0' + u % 10); u /= 10; } while (u);
  if (v < 0) t[--i] = '-';
  s_put(s, t + i, (size_t)(24 - i));
}
/* v / 10^dec with exactly dec decimals */
static inline void s_fixed(sink_t *s, int64_t v, int dec) {
  char t[32];
  int i = 32;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  for (int d = 0; d < dec; d++) { t[--i] = (char)('0' + u % 10); u /= 10; }
  if (dec) t[--i] = '.';
  do { t[--i] = (char)('0' + u % 10); u /= 10; } while (u);
  if (v < 0) t[--i] = '-';
  s_put(s, t + i, (size_t)(32 - i));
}
static void s_open(sink_t *s, const char *path, int gz, int level) {
  memset(s, 0, sizeof *s);
  s->cap = 8u << 20;
  s->buf = xcalloc(1, s->cap);
  s->path = path;
  if (!path) return; /* counting sink */
  if (gz) {
    char mode[8];
    snprintf(mode, sizeof mode, "wb%d", level);
    s->gz = gzopen(path, mode);
    if (!s->gz) die("cannot create %s", path);
    gzbuffer(s->gz, 1u << 20);
  } else {
    s->fp = fopen(path, "wb");
    if (!s->fp) die("cannot create %s: %s", path, strerror(errno));
  }
}
static void s_close(sink_t *s) {
  s_flush(s);
  if (s->fp && fclose(s->fp) != 0) die("close %s: %s", s->path, strerror(errno));
  if (s->gz && gzclose(s->gz) != Z_OK) die("gzclose %s failed", s->path);
  free(s->buf);
  s->buf = NULL;
}

/* ------------------------------------------------------------------ JSON writer (3 layouts) */
#define JW_MAXD 32
typedef struct {
  sink_t *s;
  int layout, depth, after_key, brk;
  unsigned char first[JW_MAXD];
  signed char close_ind[JW_MAXD];
} jw_t;

static void jw_init(jw_t *j, sink_t *s, int layout) {
  memset(j, 0, sizeof *j);
  j->s = s;
  j->layout = layout;
  j->brk = -1;
}
/* kineto layout: the next item separator is a newline and ind spaces */
static inline void jw_brk(jw_t *j, int ind) {
  if (j->layout == LAYOUT_KINETO) j->brk = ind;
}
static inline void jw_sep(jw_t *j) {
  if (j->after_key) { j->after_key = 0; return; }
  if (j->depth == 0) return;
  int first = j->first[j->depth];
  j->first[j->depth] = 0;
  sink_t *s = j->s;
  switch (j->layout) {
  case LAYOUT_ONELINE:
    if (!first) S_LIT(s, ", ");
    break;
  case LAYOUT_INDENT4:
    if (!first) s_ch(s, ',');
    s_ch(s, '\n');
    s_spaces(s, 4 * j->depth);
    break;
  default:
    if (!first) s_ch(s, ',');
    if (j->brk >= 0) {
      s_ch(s, '\n');
      s_spaces(s, j->brk);
      j->brk = -1;
    } else if (!first)
      s_ch(s, ' ');
  }
}
/* close_ind: kineto layout only; -1 = close on the same line, else newline + close_ind spaces */
static inline void jw_open(jw_t *j, char c, int close_ind) {
  jw_sep(j);
  s_ch(j->s, c);
  if (++j->depth >= JW_MAXD) die("JSON nesting too deep");
  j->first[j->depth] = 1;
  j->close_ind[j->depth] = (signed char)close_ind;
}
static inline void jw_close(jw_t *j, char c) {
  if (j->layout == LAYOUT_INDENT4) {
    if (!j->first[j->depth]) {
      s_ch(j->s, '\n');
      s_spaces(j->s, 4 * (j->depth - 1));
    }
  } else if (j->layout == LAYOUT_KINETO && j->close_ind[j->depth] >= 0) {
    s_ch(j->s, '\n');
    s_spaces(j->s, j->close_ind[j->depth]);
  }
  s_ch(j->s, c);
  j->depth--;
  j->brk = -1;
}
/* key is a literal known to need no escaping */
static inline void jw_keyn(jw_t *j, const char *k, size_t n) {
  jw_sep(j);
  s_ch(j->s, '"');
  s_put(j->s, k, n);
  S_LIT(j->s, "\": ");
  j->after_key = 1;
}
#define JK(j, lit) jw_keyn((j), (lit), sizeof(lit) - 1)

static void s_escaped(sink_t *s, const char *p) {
  static const char hex[] = "0123456789abcdef";
  s_ch(s, '"');
  const char *run = p;
  for (; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    s_put(s, run, (size_t)(p - run));
    run = p + 1;
    switch (c) {
    case '"': S_LIT(s, "\\\""); break;
    case '\\': S_LIT(s, "\\\\"); break;
    case '\n': S_LIT(s, "\\n"); break;
    case '\t': S_LIT(s, "\\t"); break;
    default: {
      char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      s_put(s, u, 6);
    }
    }
  }
  s_put(s, run, (size_t)(p - run));
  s_ch(s, '"');
}
static inline void jw_str(jw_t *j, const char *v) { jw_sep(j); s_escaped(j->s, v); }
/* literal value text (number, true, or a pre-quoted clean string) */
static inline void jw_rawn(jw_t *j, const char *v, size_t n) { jw_sep(j); s_put(j->s, v, n); }
#define JRAW(j, lit) jw_rawn((j), (lit), sizeof(lit) - 1)
static inline void jw_i64(jw_t *j, int64_t v) { jw_sep(j); s_i64(j->s, v); }
static inline void jw_fixed(jw_t *j, int64_t v, int dec) { jw_sep(j); s_fixed(j->s, v, dec); }

/* ------------------------------------------------------------------ per-rank writer */
typedef struct {
  const ctx_t *c;
  jw_t j;
  sink_t *s;
  int r, dev;
  int64_t pid, off, base; /* base: baseTimeNanoseconds (relative) in recorded ns */
  int64_t corr, ext;
  int64_t cpu;            /* CPU thread cursor, true time */
  long long n_kernels, n_comm, n_mem, n_gpu;
  int64_t step_ext;
} rw_t;

/* a recorded timestamp (true time t) */
static inline void w_ts(rw_t *w, int64_t t) {
  int64_t rec = t + w->off;
  if (w->c->o.relative)
    jw_fixed(&w->j, rec - w->base, 3);
  else
    jw_i64(&w->j, rec / US);
}
static inline void w_dur(rw_t *w, int64_t d) {
  if (w->c->o.relative)
    jw_fixed(&w->j, d, 3);
  else
    jw_i64(&w->j, d / US);
}

/* opens an event: "ph", "cat", "name", "pid", "tid" on the first line (kineto layout) */
static void ev_open(rw_t *w, const char *ph, const char *cat, const char *name, int64_t pid, int64_t tid) {
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
static void ev_x(rw_t *w, const char *cat, const char *name, int64_t pid, int64_t tid, int64_t t, int64_t d) {
  ev_open(w, "X", cat, name, pid, tid);
  jw_brk(&w->j, 4);
  JK(&w->j, "ts"); w_ts(w, t);
  JK(&w->j, "dur"); w_dur(w, d);
}
static void args_open(rw_t *w) {
  jw_brk(&w->j, 4);
  JK(&w->j, "args");
  jw_open(&w->j, '{', 4);
  jw_brk(&w->j, 6);
}
static void args_close(rw_t *w) { jw_close(&w->j, '}'); }
static void ev_close(rw_t *w) { jw_close(&w->j, '}'); }

static void flow(rw_t *w, int start, int64_t id, int64_t pid, int64_t tid, int64_t t) {
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
typedef void (*args_fn)(rw_t *, const void *);
static int64_t cpu_span(rw_t *w, const char *cat, const char *name, int64_t t, int64_t d, args_fn fn,
                        const void *arg) {
  int64_t ext = ++w->ext;
  ev_x(w, cat, name, w->pid, w->pid, t, d);
  args_open(w);
  JK(&w->j, "External id"); jw_i64(&w->j, ext);
  JK(&w->j, "Record function id"); jw_i64(&w->j, 0);
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

/* ---- collective args (record_param_comms and, unless --no-coll-args, NCCL kernels) */
static void coll_args(rw_t *w, int64_t seq, int on_kernel) {
  const ctx_t *c = w->c;
  jw_t *j = &w->j;
  JK(j, "Collective name"); JRAW(j, "\"allreduce\"");
  JK(j, "In msg nelems"); jw_i64(j, c->nelems);
  JK(j, "Out msg nelems"); jw_i64(j, c->nelems);
  JK(j, "Group size"); jw_i64(j, c->o.ranks);
  JK(j, "dtype"); jw_str(j, c->cdtype);
  JK(j, "In split size"); JRAW(j, "\"[]\"");
  JK(j, "Out split size"); JRAW(j, "\"[]\"");
  if (c->o.pg) {
    JK(j, "Process Group Name"); JRAW(j, "\"0\"");
    JK(j, "Process Group Description"); JRAW(j, "\"default_pg\"");
    JK(j, "Process Group Ranks"); jw_str(j, c->pg_ranks_str);
    if (c->o.seq) { JK(j, "Seq"); jw_i64(j, seq); }
  }
  if (!on_kernel) {
    JK(j, "Rank"); jw_i64(j, w->r);
    JK(j, "Global rank start"); jw_i64(j, 0);
    JK(j, "Global rank stride"); jw_i64(j, 1);
  }
}
typedef struct { int64_t seq; } coll_arg;
static void coll_args_cpu(rw_t *w, const void *p) { coll_args(w, ((const coll_arg *)p)->seq, 0); }

/* ---- GPU ops */
enum { OP_MEMCPY, OP_MEMSET, OP_FWD, OP_BGI, OP_BGW, OP_COLL, OP_DELAY, OP_OPT };
typedef struct {
  int kind;
  int64_t t, d;   /* GPU start and duration, true time */
  int64_t seq;    /* collectives */
  int hostile;
} gop;

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

static void gpu_event(rw_t *w, const gop *g, int64_t ext, int64_t corr) {
  const ctx_t *c = w->c;
  jw_t *j = &w->j;
  int stream = g->kind == OP_COLL ? 20 : g->kind == OP_MEMSET ? 24 : 7;
  const char *cat = "kernel", *name = NULL;
  switch (g->kind) {
  case OP_MEMCPY: cat = "gpu_memcpy"; name = "Memcpy HtoD (Pinned -> Device)"; break;
  case OP_MEMSET: cat = "gpu_memset"; name = "Memset (Device)"; break;
  case OP_FWD: name = c->gemm_fwd; break;
  case OP_BGI: name = c->gemm_bgi; break;
  case OP_BGW: name = c->gemm_bgw; break;
  case OP_COLL: name = c->nccl_name; break;
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
      JK(j, "grid"); JRAW(j, "[24, 1, 1]");
      JK(j, "block"); JRAW(j, "[544, 1, 1]");
      JK(j, "est. achieved occupancy %"); JRAW(j, "0");
      if (c->o.collargs) coll_args(w, g->seq, 1);
      w->n_comm++;
    } else {
      JK(j, "registers per thread"); JRAW(j, "168");
      JK(j, "shared memory"); JRAW(j, "213248");
      JK(j, "blocks per SM"); JRAW(j, "1");
      JK(j, "warps per SM"); JRAW(j, "12");
      JK(j, "grid"); JRAW(j, "[132, 1, 1]");
      JK(j, "block"); JRAW(j, "[384, 1, 1]");
      JK(j, "est. achieved occupancy %"); JRAW(j, "19");
    }
    w->n_kernels++;
  }
  w->n_gpu++;
  args_close(w);
  ev_close(w);
}

static void runtime_ev(rw_t *w, const char *name, int cbid, int64_t t, int64_t d, int64_t ext, int64_t corr) {
  jw_t *j = &w->j;
  ev_x(w, "cuda_runtime", name, w->pid, w->pid, t, d);
  args_open(w);
  JK(j, "External id"); jw_i64(j, ext);
  JK(j, "cbid"); jw_i64(j, cbid);
  JK(j, "correlation"); jw_i64(j, corr);
  args_close(w);
  ev_close(w);
}

/* The CPU block that launches one GPU op: nwrap nested spans around the runtime call.
 * Nominal unit u = 2 µs; block = (3 + 2*nwrap) units; shrunk when the GPU op starts too soon. */
static void launch_op(rw_t *w, const gop *g) {
  const ctx_t *c = w->c;
  int nwrap;
  switch (g->kind) {
  case OP_FWD: case OP_COLL: case OP_OPT: nwrap = 2; break;
  default: nwrap = 1;
  }
  int64_t units = 3 + 2 * nwrap;
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
  int64_t be = bs + units * u;
  int64_t corr = ++w->corr;
  int64_t ext0 = 0;
  const char *rt = "cudaLaunchKernel";
  int cbid = 211;
  shape_arg sa;
  coll_arg ca;
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
    ca.seq = g->seq;
    ext0 = cpu_span(w, "cpu_op", "record_param_comms", bs, be - bs, coll_args_cpu, &ca);
    cpu_span(w, "user_annotation", "nccl:all_reduce", bs + u, be - bs - 2 * u, NULL, NULL);
    rt = "cudaLaunchKernelExC"; cbid = 430;
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
  flow(w, 1, corr, w->pid, w->pid, rs);
  gpu_event(w, g, ext0, corr);
  flow(w, 0, corr, w->dev, g->kind == OP_COLL ? 20 : g->kind == OP_MEMSET ? 24 : 7, g->t);
  w->cpu = be + u;
}

/* ------------------------------------------------------------------ the model */
static inline int64_t jitter(const ctx_t *c, int s, int r, int k) {
  if (c->J == 0) return 0;
  uint64_t n = (uint64_t)(c->J / c->q) + 1;
  return (int64_t)(h4(c->o.seed, 1 + (uint64_t)s, (uint64_t)r, (uint64_t)k) % n) * c->q;
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

static void model_build(ctx_t *c, int S) {
  free(c->P); free(c->X); free(c->Xstart);
  c->S = S;
  c->P = xcalloc((size_t)S + 1, sizeof(int64_t));
  c->X = xcalloc((size_t)S * (size_t)(c->K ? c->K : 1), sizeof(int64_t));
  c->Xstart = xcalloc((size_t)S * (size_t)(c->K ? c->K : 1), sizeof(int64_t));
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
    }
    c->P[s + 1] = x + c->OPT;
  }
}

/* pid of rank r's process, deterministic from the seed */
static int64_t rank_pid(const ctx_t *c, int r) {
  return 1000 + (int64_t)(h4(c->o.seed, 0x919, (uint64_t)r, 0) % 3000000);
}
static int64_t rank_base(const ctx_t *c, int r) {
  /* the profiler start of rank r, before any of its events; deliberately not equal to its clock offset */
  return T0_NS - c->o.offmax_ns - 5 * MS - (int64_t)r * 1234567;
}

static void write_step(rw_t *w, int s) {
  const ctx_t *c = w->c;
  jw_t *j = &w->j;
  int r = w->r;
  int64_t Ps = c->P[s], Ge = c->P[s + 1];
  int64_t gstart = Ps + c->I;
  char name[48];
  snprintf(name, sizeof name, "ProfilerStep#%d", c->first_step + s);

  /* CPU step span, the step's GPU annotation */
  int64_t sext = cpu_span(w, "user_annotation", name, Ps, Ge - Ps, NULL, NULL);
  ev_x(w, "gpu_user_annotation", name, w->dev, 7, gstart, Ge - gstart);
  args_open(w);
  JK(j, "External id"); jw_i64(j, sext);
  args_close(w);
  ev_close(w);

  /* data loader (CPU only, GPU idle) and some non-GPU noise */
  int64_t dl_end = gstart - 12 * US;
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
  int64_t fwd_start = t, bwd_start = t + c->fwd_len;
  int h = 0;
  for (int i = 0; i < 3 * L; i++) {
    g.kind = i < L ? OP_FWD : ((i - L) % 2 == 0 ? OP_BGI : OP_BGW);
    g.t = t; g.d = c->gd[i];
    launch_op(w, &g);
    if (i == 0) { /* hidden memset on a side stream, under the first GEMM */
      gop m = {OP_MEMSET, fwd_start + (c->gd[0] / 2) / c->q * c->q, c->MSET, 0, 0};
      launch_op(w, &m);
    }
    int64_t kend = t + c->gd[i];
    /* hidden collectives whose arrival falls inside this kernel */
    while (h < c->H && i >= L) {
      int64_t a = arrival(c, s, r, h);
      if (a >= kend) break;
      if (a < t) die("internal: hidden collective before its backward kernel");
      gop cg = {OP_COLL, a, c->X[(size_t)s * c->K + h] - a, 1 + (int64_t)(c->first_step + s) * c->K + h, 0};
      launch_op(w, &cg);
      h++;
    }
    t = kend;
  }
  (void)bwd_start;
  if (h != c->H) die("internal: %d of %d hidden collectives placed", h, c->H);
  for (int k = c->H; k < c->K; k++) {
    int64_t dl = delay_len(c, s, r, k);
    gop dg = {OP_DELAY, t, dl, 0, 0};
    launch_op(w, &dg);
    int64_t a = t + dl;
    int64_t xe = c->X[(size_t)s * c->K + k];
    gop cg = {OP_COLL, a, xe - a, 1 + (int64_t)(c->first_step + s) * c->K + k, 0};
    launch_op(w, &cg);
    t = xe;
  }
  gop og = {OP_OPT, t, c->OPT, 0, c->o.hostile && s == 0};
  launch_op(w, &og);
  if (t + c->OPT != Ge) die("internal: step %d end mismatch", s);

  /* host waits for the GPU: cudaStreamSynchronize + the cuda_sync event (not GPU work) */
  int64_t ss = w->cpu;
  int64_t corr = ++w->corr;
  int64_t ext = ++w->ext;
  runtime_ev(w, "cudaStreamSynchronize", 131, ss, Ge - ss, ext, corr);
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

static void write_metadata(rw_t *w) {
  const ctx_t *c = w->c;
  jw_t *j = &w->j;
  int ndev = c->o.ranks < 8 ? c->o.ranks : 8;
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
    JK(j, "warpSize"); jw_i64(j, 32);
    jw_brk(j, 6);
    JK(j, "sharedMemPerBlock"); jw_i64(j, 49152);
    JK(j, "numSms"); jw_i64(j, c->gi ? c->gi->sms : 132);
    jw_close(j, '}');
  }
  jw_close(j, ']');
  jw_brk(j, 2);
  JK(j, "distributedInfo");
  jw_open(j, '{', -1);
  JK(j, "backend"); JRAW(j, "\"nccl\"");
  JK(j, "rank"); jw_i64(j, w->r);
  JK(j, "world_size"); jw_i64(j, c->o.ranks);
  JK(j, "pg_count"); jw_i64(j, 1);
  JK(j, "pg_config");
  jw_open(j, '[', -1);
  jw_open(j, '{', -1);
  JK(j, "pg_name"); JRAW(j, "\"0\"");
  JK(j, "pg_desc"); JRAW(j, "\"default_pg\"");
  JK(j, "backend_config"); JRAW(j, "\"cuda:nccl\"");
  JK(j, "pg_size"); jw_i64(j, c->o.ranks);
  JK(j, "ranks");
  jw_open(j, '[', -1);
  for (int i = 0; i < c->o.ranks; i++) jw_i64(j, i);
  jw_close(j, ']');
  jw_close(j, '}');
  jw_close(j, ']');
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


/* writes rank r's whole trace into sink s; returns counters in w */
static void write_rank(const ctx_t *c, int r, sink_t *s, rw_t *w, uint64_t *step_end_bytes) {
  memset(w, 0, sizeof *w);
  w->c = c;
  w->s = s;
  w->r = r;
  w->dev = r % 8;
  w->pid = rank_pid(c, r);
  w->off = c->off[r];
  w->base = rank_base(c, r);
  w->corr = 1000 + r * 7;
  w->ext = 0;
  jw_t *j = &w->j;
  jw_init(j, s, c->o.layout);
  jw_open(j, '{', c->o.layout == LAYOUT_KINETO ? 0 : -1);
  jw_brk(j, 2);
  JK(j, "schemaVersion"); jw_i64(j, 1);
  if (!c->o.meta_after) write_metadata(w);
  jw_brk(j, 2);
  JK(j, "record_shapes"); jw_i64(j, c->o.shapes);
  jw_brk(j, 2);
  JK(j, "cupti_version"); jw_i64(j, 24);
  jw_brk(j, 2);
  JK(j, "cuda_runtime_version"); jw_i64(j, 12040);
  jw_brk(j, 2);
  JK(j, "cuda_driver_version"); jw_i64(j, 12040);
  jw_brk(j, 2);
  JK(j, "traceEvents");
  jw_open(j, '[', 2);

  int64_t prof_start = rank_base(c, r) - w->off; /* true time of the profiler start */
  for (int st = 0; st < c->S; st++) {
    write_step(w, st);
    if (step_end_bytes) step_end_bytes[st] = s->total + s->len;
  }
  int64_t end = c->P[c->S];
  /* metadata events, like Kineto writes them at the end */
  int64_t mt = prof_start;
  char lab[32];
  meta_ev(w, "process_name", w->pid, 0, mt, "name", "python3", 0);
  meta_ev(w, "process_labels", w->pid, 0, mt, "labels", "CPU", 0);
  meta_ev(w, "process_sort_index", w->pid, 0, mt, "sort_index", NULL, w->pid);
  meta_ev(w, "process_name", w->dev, 0, mt, "name", "python3", 0);
  snprintf(lab, sizeof lab, "GPU %d", w->dev);
  meta_ev(w, "process_labels", w->dev, 0, mt, "labels", lab, 0);
  meta_ev(w, "process_sort_index", w->dev, 0, mt, "sort_index", NULL, 16777216 + w->dev);
  static const int streams[] = {7, 20, 24};
  for (int i = 0; i < 3; i++) {
    snprintf(lab, sizeof lab, "stream %d ", streams[i]);
    meta_ev(w, "thread_name", w->dev, streams[i], mt, "name", lab, 0);
    meta_ev(w, "thread_sort_index", w->dev, streams[i], mt, "sort_index", NULL, streams[i]);
  }
  snprintf(lab, sizeof lab, "thread %" PRId64 " (python3)", w->pid);
  meta_ev(w, "thread_name", w->pid, w->pid, mt, "name", lab, 0);
  meta_ev(w, "thread_sort_index", w->pid, w->pid, mt, "sort_index", NULL, w->pid);
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
  JK(j, "name"); JRAW(j, "\"PyTorch Profiler (0)\"");
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
  jw_close(j, ']');
  if (c->o.meta_after) write_metadata(w);
  jw_brk(j, 2);
  JK(j, "traceName");
  char tn[64];
  snprintf(tn, sizeof tn, "rank%d.pt.trace.json", r);
  jw_str(j, tn);
  jw_brk(j, 2);
  JK(j, "displayTimeUnit"); JRAW(j, "\"ms\"");
  if (c->o.relative) {
    jw_brk(j, 2);
    JK(j, "baseTimeNanoseconds"); jw_i64(j, w->base);
  }
  jw_close(j, '}');
  if (c->o.layout != LAYOUT_ONELINE) s_ch(s, '\n');
}

/* ------------------------------------------------------------------ expected.json */
typedef struct {
  int64_t window, compute, comm, overlapped, exposed, mem_exposed, mem, idle, wait_exp, xfer_exp,
      wait_all, xfer_all, steps_total, first_gpu;
  long long kernels, comm_kernels, mem_events;
} rank_truth;

static void rank_truth_build(const ctx_t *c, int r, rank_truth *t) {
  memset(t, 0, sizeof *t);
  int S = c->S;
  t->first_gpu = c->P[0] + c->I;
  t->window = c->P[S] - t->first_gpu;
  for (int s = 0; s < S; s++) {
    t->compute += c->C + c->OPT;
    for (int k = 0; k < c->K; k++) {
      int64_t a = arrival(c, s, r, k), x = c->X[(size_t)s * c->K + k];
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
        t->compute += delay_len(c, s, r, k);
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

static const char *fmt_us(char *b, int64_t ns) {
  int64_t a = ns < 0 ? -ns : ns;
  snprintf(b, 40, "%s%" PRId64 ".%03" PRId64, ns < 0 ? "-" : "", a / 1000, a % 1000);
  return b;
}

static void write_expected(const ctx_t *c, const char *path, long long *gpu_events) {
  FILE *f = fopen(path, "w");
  if (!f) die("cannot create %s: %s", path, strerror(errno));
  char b1[40];
  static const char *dtn[] = {"bf16", "fp16", "fp32", "fp8"};
  static const char *lay[] = {"kineto", "oneline", "indent4"};
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
    fprintf(f, "    {\"rank\": %d, \"pid\": %" PRId64 ", \"device\": %d", r, rank_pid(c, r), r % 8);
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

/* ------------------------------------------------------------------ options */
static void usage(FILE *f) {
  fputs(
      "usage: tracegen -o DIR [options]\n"
      "Writes DIR/rank{R}.pt.trace.json[.gz] (a synthetic multi-GPU PyTorch Profiler job) and\n"
      "DIR/expected.json (the planted truth). See bench/TRACEGEN.md.\n"
      "\n"
      "  -o DIR                 output folder (created if missing; required)\n"
      "  --ranks N              ranks = files (default 4; 1 = no collectives)\n"
      "  --steps S              profiler steps per rank (default 3)\n"
      "  --seed X               seed for jitter, clock offsets, pids (default 1)\n"
      "  --gzip                 write .pt.trace.json.gz (zlib)\n"
      "  --gzip-level L         1..9 (default 6)\n"
      "  --gpu NAME             deviceProperties name (default \"NVIDIA H100 80GB HBM3\"); known peaks:\n"
      "                         H100 SXM/PCIe, H200, A100, B200, MI300X (others need --no-shapes)\n"
      "  --straggler R          rank R is slow (default none)\n"
      "  --straggler-delay-us D its extra compute before each exposed collective (default 3000)\n"
      "  --clock-offset-us MAX  per-rank recorded clock offset in [-MAX,+MAX], rank 0 = 0 (default 0)\n"
      "  --busbw-GBps B         planted link bus bandwidth, GB = 1e9 B (default 50)\n"
      "  --bucket-mib M         bytes per gradient allreduce bucket, MiB (default 25)\n"
      "  --buckets K            gradient buckets (allreduces) per step (default 4)\n"
      "  --overlap F            fraction of buckets hidden under backward compute, 0..1 (default 0.5)\n"
      "  --jitter-us J          max per-rank arrival jitter per collective (default 200)\n"
      "  --layers L             forward GEMMs per step; backward has 2L (default 8)\n"
      "  --compute-us C         forward+backward GEMM time per step (default 20000)\n"
      "  --optimizer-us O       optimizer kernel per step (default 200)\n"
      "  --idle-us I            data-loader GPU gap per step, >= 20 (default 2000)\n"
      "  --memcpy-us M          exposed H2D copy per step, 0 = none (default 300)\n"
      "  --gemm M,N,K           planted GEMM shape (default 4096,4096,4096)\n"
      "  --dtype bf16|fp16|fp32|fp8  GEMM dtype (default bf16)\n"
      "  --no-shapes            omit Input Dims / Input type\n"
      "  --no-seq               omit Seq\n"
      "  --no-pg                omit process-group args (and Seq) from kernels and record_param_comms\n"
      "  --no-coll-args         NCCL kernels carry no collective args (record_param_comms keeps them)\n"
      "  --layout kineto|oneline|indent4   (default kineto)\n"
      "  --time-format epoch|relative      (default relative)\n"
      "  --metadata-after       deviceProperties/distributedInfo after traceEvents\n"
      "  --target-mb X          repeat steps until every rank file is >= X MiB (uncompressed)\n"
      "  --hostile-name         the first optimizer kernel is named with HTML/JS metacharacters\n"
      "  -h, --help             this text\n",
      f);
}

static double parse_num(const char *opt, const char *v, double lo, double hi) {
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (errno || end == v || *end || !isfinite(x)) die("%s: not a number: '%s'", opt, v);
  if (x < lo || x > hi) die("%s: %s out of range [%g, %g]", opt, v, lo, hi);
  return x;
}
static int64_t us_to_ns(const char *opt, const char *v, double lo, double hi) {
  return (int64_t)llround(parse_num(opt, v, lo, hi) * 1000.0);
}

static void parse_args(options *o, int argc, char **argv) {
  memset(o, 0, sizeof *o);
  o->ranks = 4; o->steps = 3; o->layers = 8; o->buckets = 4; o->straggler = -1; o->gzlevel = 6;
  o->seed = 1; o->gpu = "NVIDIA H100 80GB HBM3";
  o->busbw = 50; o->bucket_mib = 25; o->overlap = 0.5;
  o->strag_ns = 3000 * US; o->compute_ns = 20000 * US; o->idle_ns = 2000 * US; o->memcpy_ns = 300 * US;
  o->opt_ns = 200 * US; o->jitter_ns = 200 * US;
  o->gm = o->gn = o->gk = 4096;
  o->dtype = DT_BF16; o->shapes = o->seq = o->pg = o->collargs = 1;
  o->layout = LAYOUT_KINETO; o->relative = 1;
  for (int i = 1; i < argc; i++) {
    char *a = argv[i], *val = NULL, name[64];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); exit(0); }
    const char *eq = strchr(a, '=');
    if (!strncmp(a, "--", 2) && eq) {
      size_t n = (size_t)(eq - a);
      if (n >= sizeof name) die("unknown option %s", a);
      memcpy(name, a, n);
      name[n] = 0;
      val = (char *)eq + 1;
    } else {
      snprintf(name, sizeof name, "%s", a);
    }
#define FLAG(s) (!strcmp(name, s))
#define NEEDV()                                                   \
  do {                                                            \
    if (!val) {                                                   \
      if (i + 1 >= argc) die("%s needs a value", name);          \
      val = argv[++i];                                            \
    }                                                             \
  } while (0)
    if (FLAG("-o")) { NEEDV(); o->outdir = val; }
    else if (FLAG("--ranks")) { NEEDV(); o->ranks = (int)parse_num(name, val, 1, MAX_RANKS); }
    else if (FLAG("--steps")) { NEEDV(); o->steps = (int)parse_num(name, val, 1, 10000000); }
    else if (FLAG("--seed")) {
      NEEDV();
      char *end;
      errno = 0;
      o->seed = strtoull(val, &end, 0);
      if (errno || end == val || *end) die("--seed: not an integer: '%s'", val);
    }
    else if (FLAG("--gzip")) o->gzip = 1;
    else if (FLAG("--gzip-level")) { NEEDV(); o->gzlevel = (int)parse_num(name, val, 1, 9); }
    else if (FLAG("--gpu")) { NEEDV(); o->gpu = val; }
    else if (FLAG("--straggler")) { NEEDV(); o->straggler = (int)parse_num(name, val, 0, MAX_RANKS); }
    else if (FLAG("--straggler-delay-us")) { NEEDV(); o->strag_ns = us_to_ns(name, val, 0, 1e9); }
    else if (FLAG("--clock-offset-us")) { NEEDV(); o->offmax_ns = us_to_ns(name, val, 0, 1e12); }
    else if (FLAG("--busbw-GBps")) { NEEDV(); o->busbw = parse_num(name, val, 1e-6, 1e9); if (o->busbw <= 0) die("--busbw-GBps must be > 0"); }
    else if (FLAG("--bucket-mib")) { NEEDV(); o->bucket_mib = parse_num(name, val, 1e-6, 1e6); }
    else if (FLAG("--buckets")) { NEEDV(); o->buckets = (int)parse_num(name, val, 0, 100000); }
    else if (FLAG("--overlap")) { NEEDV(); o->overlap = parse_num(name, val, 0, 1); }
    else if (FLAG("--jitter-us")) { NEEDV(); o->jitter_ns = us_to_ns(name, val, 0, 1e9); }
    else if (FLAG("--layers")) { NEEDV(); o->layers = (int)parse_num(name, val, 1, 100000); }
    else if (FLAG("--compute-us")) { NEEDV(); o->compute_ns = us_to_ns(name, val, 0, 1e12); }
    else if (FLAG("--optimizer-us")) { NEEDV(); o->opt_ns = us_to_ns(name, val, 0, 1e12); }
    else if (FLAG("--idle-us")) { NEEDV(); o->idle_ns = us_to_ns(name, val, 20, 1e12); }
    else if (FLAG("--memcpy-us")) { NEEDV(); o->memcpy_ns = us_to_ns(name, val, 0, 1e12); }
    else if (FLAG("--gemm")) {
      NEEDV();
      if (sscanf(val, "%lld,%lld,%lld", &o->gm, &o->gn, &o->gk) != 3 || o->gm < 1 || o->gn < 1 || o->gk < 1 ||
          o->gm > 100000000 || o->gn > 100000000 || o->gk > 100000000)
        die("--gemm: want M,N,K positive integers, got '%s'", val);
    }
    else if (FLAG("--dtype")) {
      NEEDV();
      if (!strcmp(val, "bf16")) o->dtype = DT_BF16;
      else if (!strcmp(val, "fp16")) o->dtype = DT_FP16;
      else if (!strcmp(val, "fp32")) o->dtype = DT_FP32;
      else if (!strcmp(val, "fp8")) o->dtype = DT_FP8;
      else die("--dtype: want bf16|fp16|fp32|fp8, got '%s'", val);
    }
    else if (FLAG("--no-shapes")) o->shapes = 0;
    else if (FLAG("--no-seq")) o->seq = 0;
    else if (FLAG("--no-pg")) o->pg = 0;
    else if (FLAG("--no-coll-args")) o->collargs = 0;
    else if (FLAG("--layout")) {
      NEEDV();
      if (!strcmp(val, "kineto")) o->layout = LAYOUT_KINETO;
      else if (!strcmp(val, "oneline")) o->layout = LAYOUT_ONELINE;
      else if (!strcmp(val, "indent4")) o->layout = LAYOUT_INDENT4;
      else die("--layout: want kineto|oneline|indent4, got '%s'", val);
    }
    else if (FLAG("--time-format")) {
      NEEDV();
      if (!strcmp(val, "epoch")) o->relative = 0;
      else if (!strcmp(val, "relative")) o->relative = 1;
      else die("--time-format: want epoch|relative, got '%s'", val);
    }
    else if (FLAG("--metadata-after")) o->meta_after = 1;
    else if (FLAG("--target-mb")) { NEEDV(); o->target_mb = parse_num(name, val, 0, 1e6); }
    else if (FLAG("--hostile-name")) o->hostile = 1;
    else die("unknown option '%s' (see --help)", a);
#undef FLAG
#undef NEEDV
  }
  if (!o->outdir) { usage(stderr); die("-o DIR is required"); }
  if (o->straggler >= o->ranks) die("--straggler %d: only %d ranks", o->straggler, o->ranks);
}

static int64_t qround(int64_t v, int64_t q) { return (v + q / 2) / q * q; }

static void ctx_init(ctx_t *c) {
  options *o = &c->o;
  c->q = o->relative ? 1 : US;
  int64_t q = c->q;
  /* GPU */
  for (size_t i = 0; i < sizeof GPUS / sizeof GPUS[0]; i++) {
    if (strstr(o->gpu, GPUS[i].key) && (!GPUS[i].key2 || strstr(o->gpu, GPUS[i].key2))) {
      c->gi = &GPUS[i];
      break;
    }
  }
  double tf = 0;
  if (c->gi) tf = o->dtype == DT_FP32 ? c->gi->fp32 : o->dtype == DT_FP8 ? c->gi->fp8 : c->gi->bf16;
  c->peak = tf * 1e12;
  if (o->shapes && !c->gi) die("--gpu '%s': unknown peak FLOP/s (known: H100, H200, A100, B200, MI300X); use --no-shapes", o->gpu);
  if (o->shapes && c->peak <= 0) die("--gpu '%s' has no %s peak", o->gpu, o->dtype == DT_FP8 ? "fp8" : "dtype");
  static const char *it[] = {"c10::BFloat16", "c10::Half", "float", "c10::Float8_e4m3fn"};
  static const char *gt[] = {"bf16", "f16", "f32", "e4m3"};
  c->itype = it[o->dtype];
  /* gradients (the allreduce payload) are in the GEMM dtype, bf16 for fp8 training */
  c->cdtype = o->dtype == DT_FP16 ? "Half" : o->dtype == DT_FP32 ? "Float" : "BFloat16";
  c->ndt = o->dtype == DT_FP16 ? "f16" : o->dtype == DT_FP32 ? "f32" : "bf16";
  c->esize = o->dtype == DT_FP32 ? 4 : 2;
  const char *arch = c->gi ? c->gi->arch : "sm90";
  static const char *lay[] = {"tn", "nn", "nt"};
  char *dst[] = {c->gemm_fwd, c->gemm_bgi, c->gemm_bgw};
  for (int i = 0; i < 3; i++)
    snprintf(dst[i], sizeof c->gemm_fwd,
             "%s_xmma_gemm_%s%s_%sf32_f32_%s_n_tilesize128x128x64_warpgroupsize1x1_execute_segment_k_off_kernel__5x_cublas",
             arch, gt[o->dtype], gt[o->dtype], gt[o->dtype], lay[i]);
  snprintf(c->nccl_name, sizeof c->nccl_name, "ncclDevKernel_AllReduce_Sum_%s_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
           c->ndt);
  /* Process Group Ranks string */
  size_t cap = (size_t)o->ranks * 8 + 4;
  c->pg_ranks_str = xcalloc(1, cap);
  size_t len = 0;
  c->pg_ranks_str[len++] = '[';
  for (int r = 0; r < o->ranks; r++) len += (size_t)snprintf(c->pg_ranks_str + len, cap - len, "%s%d", r ? ", " : "", r);
  c->pg_ranks_str[len++] = ']';
  c->pg_ranks_str[len] = 0;

  /* quantized durations */
  c->C = qround(o->compute_ns, q);
  c->I = qround(o->idle_ns, q);
  c->Mc = qround(o->memcpy_ns, q);
  c->OPT = qround(o->opt_ns, q);
  c->J = o->jitter_ns / q * q;
  c->D = qround(o->strag_ns, q);
  c->MSET = 4 * US;
  c->DBASE = 20 * US;
  c->LA = 1 * MS;
  c->first_step = 2;
  if (c->OPT < 10 * US) die("--optimizer-us must be >= 10");
  int L = o->layers;
  c->gd = xcalloc((size_t)3 * L, sizeof(int64_t));
  int64_t units = c->C / q, base = units / (3 * L), rem = units % (3 * L);
  for (int i = 0; i < 3 * L; i++) c->gd[i] = (base + (i < rem)) * q;
  if (base * q < 20 * US)
    die("--compute-us %.3f over %d GEMMs gives %.3f us each; need >= 20 us (lower --layers)",
        c->C / 1e3, 3 * L, base * q / 1e3);
  c->fwd_len = 0;
  for (int i = 0; i < L; i++) c->fwd_len += c->gd[i];
  /* collectives */
  c->K = o->ranks > 1 ? o->buckets : 0;
  c->H = (int)lround(o->overlap * c->K);
  if (c->H > c->K) c->H = c->K;
  c->E = c->K - c->H;
  c->bucket_bytes = (long long)llround(o->bucket_mib * 1048576.0) / c->esize * c->esize;
  if (c->bucket_bytes < c->esize) die("--bucket-mib too small");
  c->nelems = c->bucket_bytes / c->esize;
  if (c->K > 0) {
    double tns = (double)c->bucket_bytes * 2.0 * (o->ranks - 1) / o->ranks / o->busbw;
    c->T = qround((int64_t)llround(tns), q);
    if (c->T < q) c->T = q;
    if (c->T < 2 * US)
      die("collective transfer time %.3f us is too short (need >= 2 us): raise --bucket-mib or lower --busbw-GBps", c->T / 1e3);
  }
  if (c->H > 0) {
    int64_t bwd = c->C - c->fwd_len;
    c->Q = bwd / c->H / q * q;
    c->Qoff = c->Q / 10 / q * q;
    if (c->Qoff + c->J + c->T >= c->Q)
      die("%d hidden collectives of %.3f us (+%.3f us jitter) do not fit under %.3f us of backward compute: "
          "lower --overlap/--buckets/--bucket-mib/--jitter-us or raise --compute-us or --busbw-GBps",
          c->H, c->T / 1e3, c->J / 1e3, bwd / 1e3);
  }
  if (o->straggler >= 0 && c->E == 0)
    fprintf(stderr, "tracegen: note: no exposed collectives, so --straggler has no effect\n");
  c->flops_gemm = 2.0 * (double)o->gm * (double)o->gn * (double)o->gk;
  c->flops_step = 3.0 * L * c->flops_gemm;
  /* clock offsets */
  c->off = xcalloc((size_t)o->ranks, sizeof(int64_t));
  int64_t M = o->offmax_ns / q;
  for (int r = 1; r < o->ranks && M > 0; r++)
    c->off[r] = ((int64_t)(h4(o->seed, 0xC10C, (uint64_t)r, 0) % (uint64_t)(2 * M + 1)) - M) * q;
}

static void mkdir_p(const char *dir) {
  char *p = strdup(dir);
  if (!p) die("out of memory");
  for (char *s = p + 1; *s; s++) {
    if (*s == '/') {
      *s = 0;
      if (mkdir(p, 0777) != 0 && errno != EEXIST) die("mkdir %s: %s", p, strerror(errno));
      *s = '/';
    }
  }
  if (mkdir(p, 0777) != 0 && errno != EEXIST) die("mkdir %s: %s", p, strerror(errno));
  free(p);
}

int main(int argc, char **argv) {
  ctx_t *c = xcalloc(1, sizeof *c);
  parse_args(&c->o, argc, argv);
  ctx_init(c);
  const options *o = &c->o;
  int S = o->steps;
  uint64_t target = (uint64_t)(o->target_mb * 1048576.0);
  if (target > 0) {
    /* size one step per rank in a counting sink, then choose the step count */
    model_build(c, 2);
    uint64_t minb = UINT64_MAX, se[2];
    for (int r = 0; r < o->ranks; r++) {
      sink_t s;
      s_open(&s, NULL, 0, 0);
      rw_t w;
      write_rank(c, r, &s, &w, se);
      uint64_t b = se[1] - se[0];
      if (b < minb) minb = b;
      s.len = 0;
      free(s.buf);
    }
    uint64_t need = (uint64_t)ceil((double)target / ((double)minb * 0.998)) + 1;
    if (need > 10000000) die("--target-mb too large");
    if ((int)need > S) S = (int)need;
  }
  model_build(c, S);
  mkdir_p(o->outdir);
  size_t plen = strlen(o->outdir) + 64;
  char *path = xcalloc(1, plen);
  long long *gpu_events = xcalloc((size_t)o->ranks, sizeof(long long));
  for (int r = 0; r < o->ranks; r++) {
    snprintf(path, plen, "%s/rank%d.pt.trace.json%s", o->outdir, r, o->gzip ? ".gz" : "");
    sink_t s;
    s_open(&s, path, o->gzip, o->gzlevel);
    rw_t w;
    write_rank(c, r, &s, &w, NULL);
    s_close(&s);
    if (s.total < target) die("internal: %s is %" PRIu64 " bytes, below --target-mb", path, s.total);
    gpu_events[r] = w.n_gpu;
    rank_truth t;
    rank_truth_build(c, r, &t);
    if (w.n_kernels != t.kernels || w.n_comm != t.comm_kernels || w.n_mem != t.mem_events)
      die("internal: rank %d wrote %lld kernels/%lld comm/%lld memory events, model says %lld/%lld/%lld", r,
          w.n_kernels, w.n_comm, w.n_mem, t.kernels, t.comm_kernels, t.mem_events);
  }
  snprintf(path, plen, "%s/expected.json", o->outdir);
  write_expected(c, path, gpu_events);
  free(path);
  free(gpu_events);
  free(c->P); free(c->X); free(c->Xstart); free(c->off); free(c->gd); free(c->pg_ranks_str);
  free(c);
  return 0;
}
