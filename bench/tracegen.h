/* tracegen.h: what the files of bench/tracegen share: options, the generation context, the buffered
 * output sink and JSON writer (inline: they are the hot path of the 300 MB benchmark), the per-rank
 * event writer and the record of what each rank's file holds, from which expected.json is computed.
 *
 *   tracegen.c     options, context, main        tg_out.c    sink, JSON writer, errors
 *   tg_events.c    Kineto events, the classic model   tg_file.c  a rank's file
 *   tg_md.c        multi-dimensional jobs (TP/DP/FSDP): the program and its simulation
 *   tg_idle.c      idle-cause jobs (issue 20)    tg_truth.c  expected.json
 *   tg_host.c      jobs with a PyTorch-like host on a given fabric (issue 29: pairs)
 *   tg_pp.c        pipeline-parallel jobs (issue 33: --pp, --microbatches)
 *   tg_ops.c       op-mix jobs (issue 34: --op-mix): op shapes, modules, the roofline's truth
 *
 * Times are integer nanoseconds of "true" time; rank r records true + off[r]. No global mutable state. */
#ifndef TRACEGEN_H
#define TRACEGEN_H
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define US 1000LL            /* ns per µs */
#define MS (1000LL * US)
#define MAX_RANKS 65536
#define MAX_DROPS 64
#define T0_NS 1717171717000000000LL /* true time of the first step start (2024-05-31) */
#define AUTOGRAD_TID_OFF 23        /* --autograd-thread: the autograd engine's thread id is pid + this */

/* LAYOUT_INDENT2SORTED: json.dumps(obj, indent=2, sort_keys=True), "args" first in every event */
enum { LAYOUT_KINETO, LAYOUT_ONELINE, LAYOUT_INDENT4, LAYOUT_INDENT2SORTED };
enum { DT_BF16, DT_FP16, DT_FP32, DT_FP8 };
enum { LIB_NCCL, LIB_DEEPEP, LIB_SYMM, LIB_VLLM };
enum { IDLE_NONE, IDLE_SYNC, IDLE_LAUNCH, IDLE_DATALOADER, IDLE_MIXED, IDLE_GRAPH, IDLE_CAUSES };
/* --idle-cause's names, by the enum above (NULL for IDLE_NONE): the option and expected.json */
extern const char *const tg_idle_names[IDLE_CAUSES];
enum { MODE_CLASSIC, MODE_MD, MODE_IDLE, MODE_HOST, MODE_PP, MODE_OPS };
enum { HSYNC_ITEM, HSYNC_STREAM, HSYNC_DEVICE };

/* ------------------------------------------------------------------ GPU table */
typedef struct {
  const char *key, *key2; /* name must contain key (and key2 when set) */
  const char *arch;       /* kernel-name prefix */
  int major, minor, sms;
  long long mem;
  double fp32, bf16, fp8; /* dense peak TFLOP/s; 0 = not supported */
} gpu_info;

/* ------------------------------------------------------------------ options */
typedef struct {
  const char *outdir;
  int ranks, steps, layers, buckets, straggler, gzip, gzlevel;
  uint64_t seed;
  const char *gpu;
  double busbw, bucket_mib, overlap, target_mb;
  int64_t strag_ns, offmax_ns, compute_ns, idle_ns, memcpy_ns, opt_ns, jitter_ns;
  long long gm, gn, gk;
  int dtype, shapes, seq, pg, pgconfig, collargs, layout, relative, meta_after, hostile;
  int a2a_hot, a2a_factor; /* --a2a-hot-rank R (-1 none), --a2a-factor F: the classic collective is an
                           * all-to-all whose rank R sends F times the others' bytes (issue 33) */
  int copy_d2d;            /* --copy-kind d2d: the per-step copy is device to device (issue 28) */
  /* added for issues 17, 19, 20; any of them makes expected.json the extended form */
  int extended;            /* 1 when any option below was given */
  int tp, fsdp, gpn;       /* tensor-parallel size (0 = not a multi-dimensional job), FSDP, GPUs per node */
  int handler_names;       /* file names: 0 rank{R}, 1 HOST_PID.<ms> (handler), 2 HOST_PID.rank{R} (tracecost
                            * record), 3 worker{R}_step_12.<ms> (a handler worker_name) */
  int trace_hosts;         /* top-level host_name "node{K}" */
  double tp_busbw, dp_busbw, tp_mib; /* GB/s (0 = --busbw-GBps); TP message MiB (0 = M·N elements) */
  int64_t tp_jitter_ns;
  int64_t spread_ns;        /* --end-spread-us: ranks leave each collective up to this far apart */
  int ndrop;
  int drop_rank[MAX_DROPS], drop_k[MAX_DROPS]; /* --drop-kernel R:K (K 1-based) */
  int cut_rank, cut_steps; /* -1 / 0 = none */
  int comm_lib, rocm, windows, negts, idle_cause;
  int gpu_set;             /* --gpu given */
  /* jobs with a PyTorch-like host and a fabric (issue 29, tg_host.c) */
  int host;                /* --host pytorch (implied by the fabric options) */
  double inter_bw;         /* --inter-GBps: bus bandwidth of inter-node groups */
  int64_t alpha_ns, intra_alpha_ns; /* --coll-latency-us (inter-node groups), --intra-latency-us */
  double strag_factor;     /* --straggler-factor: the straggler's GEMMs take this many times as long */
  int host_sync;           /* --host-sync item|stream|device: how each step ends */
  int sync_events;         /* --cuda-sync-events: cuda_sync events for synchronizing and event-wait calls */
  int autograd_thread;     /* --autograd-thread: backward runs on the autograd engine's own thread */
  int nccl_inspector;      /* --nccl-inspector: the NCCL Inspector logs of the job too (tg_nccl.c); 2: --nccl-inspector-v42, format v4.2 */
  int nccl_prom;           /* --nccl-prometheus: the Inspector's Prometheus textfiles too (tg_nccl.c) */
  int nccl_plugin;         /* --nccl-plugin-trace: the example profiler plugin's traces too (tg_nccl.c); 2: --nccl-plugin-trace-old, its format before 2.27 */
  char inter_algo[16], inter_proto[16]; /* --nccl-inter-mix: the plugin's main choice for inter-node groups' */
  int inter_ch;            /* messages of 1 MiB or more; inter_ch 0: not given (Tree/Simple/8 for all-reduce) */
  int nccl_exec_wait;      /* --nccl-exec-with-wait: Inspector exec times are the whole kernel, its wait included */
  double first_bucket_mib; /* --first-bucket-mib: DDP's first bucket (0: as the others) */
  int pp, microbatches;    /* --pp N --microbatches M: a pipeline-parallel job (tg_pp.c; 0 = none) */
  int pp_slow;             /* --pp-slow-stage S: the stage that computes slower */
  double pp_slow_factor;   /* --pp-slow-factor F: how many times as long its kernels take */
  int op_mix;              /* --op-mix: an op-mix job (tg_ops.c, issue 34) */
} options;

/* ------------------------------------------------------------------ process groups */
enum { G_WORLD, G_TP, G_DP };
enum { CT_ALLREDUCE, CT_ALLGATHER, CT_REDUCESCATTER };
/* collective kinds (tg_md.c); CI_DP_AR1: DDP's first bucket when it is smaller (--first-bucket-mib) */
enum { CI_TP_AR, CI_DP_AR, CI_DP_AG, CI_DP_RS, CI_WORLD_AR, CI_DP_AR1, CI_N };
typedef struct {
  char name[16];           /* pg_name: "0", "1", ... in creation order */
  const char *desc;        /* pg_desc: default_pg, TP, DP */
  int kind;                /* G_* */
  int size;
  int *ranks;              /* global ranks, ascending */
  char *ranks_str;         /* "[0, 1, ...]" as Process Group Ranks */
  int stride;              /* Global rank stride */
  int nodes;               /* distinct nodes among the ranks */
} pgroup;

/* one collective call of the program: what its kernels and record_param_comms carry */
typedef struct {
  int gkind, coll;         /* G_*, CT_* */
  const char *coll_name;   /* Collective name arg: allreduce, _allgather_base, _reduce_scatter_base */
  const char *cpu_name;    /* user_annotation under record_param_comms: nccl:all_reduce ... */
  const char *dtype;       /* dtype arg: BFloat16, Float ... */
  int esize;               /* bytes per element */
  long long in_nelems, out_nelems;
  int64_t T;               /* planted transfer time, ns */
  double sf;               /* S × busbw factor (bytes), nccl-tests convention */
  long long bytes;         /* S */
  int stream;
  char kname[160];         /* kernel name */
} collinfo;

/* ------------------------------------------------------------------ GPU ops */
enum { OP_MEMCPY, OP_MEMSET, OP_FWD, OP_BGI, OP_BGW, OP_COLL, OP_DELAY, OP_OPT };
typedef struct {
  int kind;
  int64_t t, d;            /* GPU start and duration, true time */
  int64_t seq;             /* collectives */
  int hostile;
  const collinfo *ci;      /* multi-dimensional jobs: the collective's kind (NULL: the classic allreduce) */
  int group;               /* collectives: index into ctx groups (-1: classic group 0) */
  int64_t wait;            /* collectives: planted wait of this rank (d - T) */
  int ord;                 /* multi-dimensional jobs: program order (ties in start time) */
} gop;

/* ------------------------------------------------------------------ context */
typedef struct ctx ctx_t;
struct ctx {
  options o;
  int mode;                /* MODE_* */
  const gpu_info *gi;      /* NULL when unknown */
  double peak;             /* FLOP/s for dtype, 0 when unknown */
  int64_t q;               /* time quantum */
  /* quantized model constants */
  int64_t C, I, Mc, OPT, J, D, T, MSET, DBASE, LA;
  int64_t *gd;             /* 3*layers GEMM durations */
  int64_t fwd_len;
  int H, E, K;             /* hidden, exposed, total buckets */
  int64_t Q, Qoff;         /* hidden slot length and offset of the nominal arrival in it */
  long long bucket_bytes, nelems;
  int esize;
  double flops_gemm, flops_step;
  int first_step;          /* ProfilerStep#first_step is the first recorded step */
  /* per-step model, common to all ranks */
  int S;
  int64_t *P;              /* S+1 step starts (true time); P[s+1] = end of step s */
  int64_t *X;              /* S*K collective ends */
  int64_t *Xstart;         /* S*K nominal start of each collective (hidden: nominal; exposed: cursor) */
  int64_t *Tmin;           /* S*K shortest kernel of each collective over the ranks (T without end spread) */
  int64_t SPR;             /* quantized --end-spread-us */
  int64_t *off;            /* per-rank clock offsets */
  int64_t *pid;            /* per-rank pids */
  /* names */
  char gemm_fwd[256], gemm_bgi[256], gemm_bgw[256], nccl_name[160];
  char *pg_ranks_str;      /* "[0, 1, ...]" */
  const char *itype, *cdtype, *ndt;
  /* process groups (every mode: the classic job has the world group only) */
  int ngroups;
  pgroup *groups;
  int *tp_of, *dp_of;      /* per rank: index of its TP / DP group, -1 none */
  /* windows: the model holds every step of every window and the unprofiled steps between them */
  int nwin, win_steps, win_gap;
  /* multi-dimensional jobs: the simulated GPU ops of every rank and step (tg_md.c) */
  struct md_model *md;
  /* idle-cause jobs (tg_idle.c) */
  struct idle_model *idle;
  /* jobs with a PyTorch-like host (tg_host.c) */
  struct host_model *host;
  /* pipeline-parallel jobs (tg_pp.c) */
  struct pp_model *pp;
  /* op-mix jobs (tg_ops.c) */
  struct ops_model *ops;
};

/* ------------------------------------------------------------------ output sink */
typedef struct {
  char *buf;
  size_t len, cap;
  FILE *fp;
  gzFile gz;
  uint64_t total; /* uncompressed bytes produced */
  const char *path;
  int grow;       /* a memory buffer that grows instead of flushing (jw's capture) */
} sink_t;

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n, size_t sz);
void mkdir_p(const char *dir);
uint64_t h4(uint64_t seed, uint64_t a, uint64_t b, uint64_t c);

void s_flush(sink_t *s);
void s_open(sink_t *s, const char *path, int gz, int level);
void s_close(sink_t *s);
void s_escaped(sink_t *s, const char *p);
void s_grow(sink_t *s, size_t need);

static inline void s_put(sink_t *s, const char *p, size_t n) {
  if (s->len + n > s->cap && s->grow) s_grow(s, s->len + n);
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

/* ------------------------------------------------------------------ JSON writer (4 layouts) */
/* LAYOUT_INDENT2SORTED: every object below the top one is written compactly into a capture buffer
 * and laid out, keys sorted, when it closes (jw_capture_end); the top object's members other than
 * traceEvents are captured together (jw_top_capture_begin) and written around the events array. */
#define JW_MAXD 32
typedef struct {
  sink_t *s;         /* where the next bytes go: out, or cap while capturing */
  sink_t *out;
  int layout, depth, after_key, brk;
  unsigned char first[JW_MAXD];
  signed char close_ind[JW_MAXD];
  sink_t cap;        /* sorted layout: the object being captured, compact */
  int capturing;     /* 1 while bytes go to cap */
  int cap_depth;     /* depth before the captured object opened; -1: the top object's members */
  char *top;         /* the top object's captured members, compact ("{...}"); NULL none */
} jw_t;

static inline void jw_init(jw_t *j, sink_t *s, int layout) {
  memset(j, 0, sizeof *j);
  j->s = j->out = s;
  j->layout = layout;
  j->brk = -1;
  j->cap.grow = 1;
}
void jw_capture_end(jw_t *j);
void jw_top_capture_begin(jw_t *j);
void jw_top_emit(jw_t *j, const char *split, int after);
void jw_free(jw_t *j);
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
  switch (j->capturing ? LAYOUT_ONELINE : j->layout) {
  case LAYOUT_ONELINE:
    if (!first) S_LIT(s, ", ");
    break;
  case LAYOUT_INDENT4:
  case LAYOUT_INDENT2SORTED:
    if (!first) s_ch(s, ',');
    s_ch(s, '\n');
    s_spaces(s, (j->layout == LAYOUT_INDENT4 ? 4 : 2) * j->depth);
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
  if (j->layout == LAYOUT_INDENT2SORTED && c == '{' && !j->capturing && j->depth >= 1) {
    j->capturing = 1;
    j->cap_depth = j->depth;
    j->cap.len = 0;
    j->s = &j->cap;
  }
  s_ch(j->s, c);
  if (++j->depth >= JW_MAXD) die("JSON nesting too deep");
  j->first[j->depth] = 1;
  j->close_ind[j->depth] = (signed char)close_ind;
}
static inline void jw_close(jw_t *j, char c) {
  if (j->capturing) {
    /* compact: laid out when the captured object closes */
  } else if (j->layout == LAYOUT_INDENT4 || j->layout == LAYOUT_INDENT2SORTED) {
    if (!j->first[j->depth]) {
      s_ch(j->s, '\n');
      s_spaces(j->s, (j->layout == LAYOUT_INDENT4 ? 4 : 2) * (j->depth - 1));
    }
  } else if (j->layout == LAYOUT_KINETO && j->close_ind[j->depth] >= 0) {
    s_ch(j->s, '\n');
    s_spaces(j->s, j->close_ind[j->depth]);
  }
  s_ch(j->s, c);
  j->depth--;
  j->brk = -1;
  if (j->capturing && j->depth == j->cap_depth) jw_capture_end(j);
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
static inline void jw_str(jw_t *j, const char *v) { jw_sep(j); s_escaped(j->s, v); }
/* literal value text (number, true, or a pre-quoted clean string) */
static inline void jw_rawn(jw_t *j, const char *v, size_t n) { jw_sep(j); s_put(j->s, v, n); }
#define JRAW(j, lit) jw_rawn((j), (lit), sizeof(lit) - 1)
static inline void jw_i64(jw_t *j, int64_t v) { jw_sep(j); s_i64(j->s, v); }
static inline void jw_fixed(jw_t *j, int64_t v, int dec) { jw_sep(j); s_fixed(j->s, v, dec); }

/* ------------------------------------------------------------------ what a rank's file holds */
enum { REC_COMPUTE, REC_COMM, REC_MEM };
typedef struct {
  int64_t t, d;            /* true time */
  int64_t wait;            /* comm: planted wait (the kernel's first `wait` ns); its transfer is d - wait */
  int64_t seq;             /* comm: Seq (the instance within its group) */
  int cls;                 /* REC_* */
  int group;               /* comm: index into ctx groups; -1 when the kernel names no group */
  int real_group;          /* comm: the group it ran on (for matching), whether named or not */
  int step;                /* model step index; -1 outside every step */
  int written;             /* 0: dropped from the file (--drop-kernel) */
  int gpu_event;           /* 1: counts in gpu_events (kernel, memcpy, memset) */
  const collinfo *ci;      /* comm: its kind (NULL: classic allreduce) */
} grec;

typedef struct {
  grec *v;
  size_t n, cap;
} grec_list;
void rec_add(grec_list *l, const grec *g);

/* ------------------------------------------------------------------ per-rank writer */
typedef struct {
  const ctx_t *c;
  jw_t j;
  sink_t *s;
  int r, dev;              /* rank, device index written on GPU events (agent id with --rocm-agent-ids) */
  int64_t pid, off, base;  /* base: baseTimeNanoseconds (relative) in recorded ns */
  int64_t tid;             /* the CPU thread of the next cpu_op, runtime call and launch flow (pid: the main one) */
  int64_t corr, ext;
  int64_t cpu;             /* CPU thread cursor, true time */
  long long n_kernels, n_comm, n_mem, n_gpu;
  int64_t step_ext;
  int cur_step;            /* step being written */
  long long comm_seen;     /* collective kernels met so far in file order, dropped ones included */
  grec_list rec;           /* every GPU event of the file (and the dropped ones) */
  int64_t *step_span;      /* per written step: ProfilerStep span length; filled by the writers */
  int nsteps_written;
  int64_t neg_events;      /* events written with negative relative ts */
} rw_t;

/* tg_nccl.c: --nccl-inspector's logs and their truth from the written ranks ws[0, ranks) */
void write_nccl_inspector(const ctx_t *c, rw_t *const *ws);
/* tg_nccl.c: --nccl-plugin-trace's plugin traces and their truth */
void write_nccl_plugin_trace(const ctx_t *c, rw_t *const *ws);
/* tg_nccl.c: --nccl-prometheus's Prometheus textfiles and their truth */
void write_nccl_prometheus(const ctx_t *c, rw_t *const *ws);

/* tg_events.c */
extern const gpu_info GPUS[];
extern const size_t NGPUS;
void ev_x(rw_t *w, const char *cat, const char *name, int64_t pid, int64_t tid, int64_t t, int64_t d);
void ev_open(rw_t *w, const char *ph, const char *cat, const char *name, int64_t pid, int64_t tid);
void args_open(rw_t *w);
void args_close(rw_t *w);
void ev_close(rw_t *w);
void w_ts(rw_t *w, int64_t t);
/* a recorded duration: ns as fractional µs (relative times) or whole µs */
static inline void w_dur(rw_t *w, int64_t d) {
  if (w->c->o.relative)
    jw_fixed(&w->j, d, 3);
  else
    jw_i64(&w->j, d / US);
}
void flow(rw_t *w, int start, int64_t id, int64_t pid, int64_t tid, int64_t t);
typedef void (*args_fn)(rw_t *, const void *);
int64_t cpu_span(rw_t *w, const char *cat, const char *name, int64_t t, int64_t d, args_fn fn, const void *arg);
void runtime_ev(rw_t *w, const char *name, int cbid, int64_t t, int64_t d, int64_t ext, int64_t corr);
void gpu_kernel_ev(rw_t *w, const char *name, int stream, int64_t t, int64_t d, int64_t ext, int64_t corr);
void gpu_copy_ev(rw_t *w, const char *name, int stream, int64_t t, int64_t d, int64_t ext, int64_t corr,
                 int64_t bytes, int is_memset);
void launch_op(rw_t *w, const gop *g);
int launch_nwrap(int kind);
int64_t launch_block(rw_t *w, const gop *g, int64_t bs, int64_t u);
void gpu_launched(rw_t *w, const gop *g, int64_t ext0, int64_t corr, int64_t rs);
void coll_args_cpu(rw_t *w, const void *g);
void step_head(rw_t *w, int s, int64_t Ps, int64_t Ge, int64_t gstart);
void step_head_at(rw_t *w, int s, int64_t Ps, int64_t Pe, int64_t dl_end, int64_t g0, int64_t g1);
void step_sync(rw_t *w, int64_t Ge);
void write_step(rw_t *w, int s); /* one step of the classic model (tg_events.c) */
void model_build(ctx_t *c, int S);
int64_t rank_base(const ctx_t *c, int r);
int64_t win_base(const ctx_t *c, int r, int win);
void write_rank(const ctx_t *c, int r, int win, sink_t *s, rw_t *w, uint64_t *step_end_bytes);
void rank_file_name(const ctx_t *c, int r, int win, char *buf, size_t n);
int64_t jitter(const ctx_t *c, int s, int r, int k);
int64_t end_spread(const ctx_t *c, int s, int r, int k);
int64_t classic_arrival(const ctx_t *c, int s, int r, int k);
int64_t classic_delay(const ctx_t *c, int s, int r, int k);
int win_first_step(const ctx_t *c, int win);
int win_last_step(const ctx_t *c, int r, int win); /* exclusive; the cut rank stops early */

/* tg_md.c */
void md_init(ctx_t *c);
void md_build(ctx_t *c, int S);
void md_write_step(rw_t *w, int s);
void md_free(ctx_t *c);
const collinfo *md_collinfo(const ctx_t *c, int *n);
/* --a2a-hot-rank: the elements rank r sends in each all-to-all, and its split into rows per peer */
long long a2a_nelems(const ctx_t *c, int r);
long long a2a_split(const ctx_t *c, int r, int peer);
collinfo *md_collinfo_mut(ctx_t *c);

/* tg_host.c */
void host_init(ctx_t *c);
void host_build(ctx_t *c, int S);
void host_write_step(rw_t *w, int s);
void host_write_expected(const ctx_t *c, FILE *f);
void host_free(ctx_t *c);

/* tg_pp.c */
void pp_init(ctx_t *c);
void pp_build(ctx_t *c, int S);
void pp_write_step(rw_t *w, int s);
void pp_write_expected(const ctx_t *c, const char *path);
/* --nccl-inspector with --pp: the Inspector's p2p_perf records and nccl_p2p_expected.json */
void pp_write_nccl(const ctx_t *c, rw_t *const *ws);
void pp_free(ctx_t *c);

/* tg_ops.c */
void ops_init(ctx_t *c);
void ops_build(ctx_t *c, int S);
void ops_write_step(rw_t *w, int s);
void ops_write_expected(const ctx_t *c, const char *path);
void ops_free(ctx_t *c);

/* tg_idle.c */
void idle_init(ctx_t *c);
void idle_build(ctx_t *c, int S);
void idle_write_steps(rw_t *w, int s0, int s1);
void idle_write_expected_rank(const ctx_t *c, FILE *f, const rw_t *w);
void idle_free(ctx_t *c);

/* tg_truth.c */
typedef struct {
  int64_t window, compute, comm, overlapped, exposed, mem_exposed, mem, idle, wait_exp, xfer_exp,
      wait_all, xfer_all, steps_total, first_gpu;
  long long kernels, comm_kernels, mem_events;
} rank_truth;
void rank_truth_build(const ctx_t *c, int r, rank_truth *t);
void truth_check_classic(const ctx_t *c, int r, const rw_t *w);
const char *fmt_us(char *b, int64_t ns);
void write_expected(const ctx_t *c, const char *path, long long *gpu_events);
void write_expected_ext(const ctx_t *c, const char *path, rw_t **ws);
#endif
