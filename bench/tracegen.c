/* tracegen: writes a synthetic multi-rank PyTorch Profiler (Kineto) job with planted,
 * analytically known figures, plus DIR/expected.json with the truth. This file: options, the
 * generation context, main. tracegen.h lists the other files.
 *
 * Build: make tools (or: cc -std=c11 -O2 -Wall -Wextra -Werror bench/tracegen.c bench/tg_*.c -o build/tracegen -lz -lm)
 * The model and the expected.json keys are documented in bench/TRACEGEN.md.
 *
 * All times are integer nanoseconds of "true" time internally; a rank's recorded times are
 * true time + that rank's clock offset. Every duration is a multiple of the time quantum q
 * (1 ns for --time-format relative, 1000 ns for epoch, whose integer microseconds cannot hold
 * less), so what is written is exactly what the model says. No global mutable state. */
#define _POSIX_C_SOURCE 200809L
#include "tracegen.h"

static void usage(FILE *f);

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
      "  --a2a-hot-rank R       the gradient collective is an all-to-all (SendRecv kernels, In split size)\n"
      "                         in which rank R sends --a2a-factor times the bytes of each other rank\n"
      "  --a2a-factor F         the hot rank's bytes over another rank's, a whole number (default 4)\n"
      "  --op-mix               an op-mix job: shapes, modules, a norm, GEMMs, tiny kernels (issue 34)\n"
      "  --pp N                 a pipeline job: ranks / N pipelines of N stages (GPipe, blocking P2P)\n"
      "  --microbatches M       microbatches per step of a --pp job (default 4)\n"
      "  --pp-slow-stage S      the --pp stage that computes slower (default 1)\n"
      "  --pp-slow-factor F     its kernels take F times as long (default 1.5)\n"
      "  --clock-offset-us MAX  per-rank recorded clock offset in [-MAX,+MAX], rank 0 = 0 (default 0)\n"
      "  --busbw-GBps B         planted link bus bandwidth, GB = 1e9 B (default 50)\n"
      "  --bucket-mib M         bytes per gradient allreduce bucket, MiB (default 25)\n"
      "  --buckets K            gradient buckets (allreduces) per step (default 4)\n"
      "  --overlap F            fraction of buckets hidden under backward compute, 0..1 (default 0.5)\n"
      "  --jitter-us J          max per-rank arrival jitter per collective (default 200)\n"
      "  --layers L             forward GEMMs per step; backward has 2L (default 16)\n"
      "  --compute-us C         forward+backward GEMM time per step (default 20000)\n"
      "  --optimizer-us O       optimizer kernel per step (default 200)\n"
      "  --idle-us I            data-loader GPU gap per step, >= 20 (default 2000)\n"
      "  --memcpy-us M          exposed H2D copy per step, 0 = none (default 300)\n"
      "  --copy-kind h2d|d2d    that copy: pinned host to device (default) or device to device\n"
      "  --gemm M,N,K           planted GEMM shape (default 4096,4096,4096)\n"
      "  --dtype bf16|fp16|fp32|fp8  GEMM dtype (default bf16)\n"
      "  --no-shapes            omit Input Dims / Input type\n"
      "  --no-seq               omit Seq\n"
      "  --no-pg                omit process-group args (and Seq) from kernels and record_param_comms\n"
      "  --no-coll-args         NCCL kernels carry no collective args (record_param_comms keeps them)\n"
      "  --no-pg-config         no distributedInfo.pg_config (PyTorch before 2.2): groups only from kernel args\n"
      "  --layout kineto|oneline|indent4|indent2sorted   (default kineto)\n"
      "  --time-format epoch|relative      (default relative)\n"
      "  --metadata-after       deviceProperties/distributedInfo after traceEvents\n"
      "  --target-mb X          repeat steps until every rank file is >= X MiB (uncompressed)\n"
      "  --hostile-name         the first optimizer kernel is named with HTML/JS metacharacters\n"
      "Multi-dimensional jobs (issue 19):\n"
      "  --tp T                 tensor parallel: groups of T consecutive ranks all-reduce in forward and\n"
      "                         backward; data-parallel groups (ranks/T ranks, same TP index) run the buckets\n"
      "  --fsdp                 data-parallel groups all-gather (forward, backward) and reduce-scatter\n"
      "  --gpus-per-node G      node of rank r = r / G, device = r %% G (default 8)\n"
      "  --tp-busbw-GBps B      planted TP bus bandwidth (default 360)\n"
      "  --dp-busbw-GBps B      planted DP bus bandwidth (default: --busbw-GBps)\n"
      "  --tp-mib M             TP all-reduce size, MiB (default: M*N elements of the GEMM output)\n"
      "  --tp-jitter-us J       max extra time of the GEMM before each TP all-reduce (default 10)\n"
      "  --file-names rank|handler|record|worker  rank{R}.pt.trace.json, HOST_PID.<ms>.pt.trace.json,\n"
      "                         HOST_PID.rank{R}.pt.trace.json or worker{R}_step_12.<ms>.pt.trace.json\n"
      "  --trace-hosts          each trace records its host (top-level host_name \"node{K}\")\n"
      "Damage and other real-world shapes (issue 17):\n"
      "  --end-spread-us X      ranks leave each collective up to X us apart (before its end; default 0)\n"
      "  --drop-kernel R:K      delete rank R's K-th collective kernel (1-based, file order); repeatable\n"
      "  --cut-rank R --cut-after-step S   rank R's file stops after its first S steps\n"
      "  --comm-lib nccl|deepep|symm|vllm  communication kernels of that library (no collective args)\n"
      "  --rocm-agent-ids       ROCm trace: kernels carry the HSA agent id (2 + local rank) as device,\n"
      "                         deviceProperties lists only id 0 (default GPU: AMD Instinct MI300X)\n"
      "  --windows N            N profiler windows per rank, one file each (HOST_PID.<ms>.pt.trace.json)\n"
      "  --negative-ts          three GPU events before baseTimeNanoseconds (negative relative ts)\n"
      "A PyTorch-like host on a given fabric (issue 29: pairs; bench/pairs.sh):\n"
      "  --host pytorch         the CPU runs ahead of the GPU; DDP hooks launch the buckets behind event\n"
      "                         waits; each step ends in a synchronizing call (implied by the next two)\n"
      "  --inter-GBps B         bus bandwidth of inter-node groups (default --busbw-GBps)\n"
      "  --coll-latency-us A    per-collective latency of inter-node groups (default 20)\n"
      "  --intra-latency-us A   per-collective latency of intra-node groups, at --tp-busbw-GBps (default 8)\n"
      "  --straggler-factor F   the --straggler rank's GEMMs take F times as long (default 1.6)\n"
      "  --host-sync item|stream|device   how each step ends: loss.item(), cudaStreamSynchronize,\n"
      "                         cudaDeviceSynchronize (default item)\n"
      "  --cuda-sync-events     cuda_sync events for the synchronizing and event-wait calls (PyTorch's\n"
      "                         enable_cuda_sync_events): each wait names the cudaEventRecord it waits on\n"
      "  --nccl-inspector       with --tp/--fsdp: DIR/node<N>-pid<P>.log, the NCCL Inspector logs of the job,\n"
      "                         and DIR/nccl_expected.json, their truth (tg_nccl.c)\n"
      "  --nccl-exec-with-wait  with --nccl-inspector: exec times are the whole kernel (its wait for the last\n"
      "                         rank too, as NCCL's GPU timer), and DIR/nccl_alone_expected.json (tg_nccl.c)\n"
      "  --nccl-inspector-v42   the same in format v4.2: coll_algo/coll_proto, dump_stats records,\n"
      "                         rank 1's records verbose (per-channel kernel_events)\n"
      "  --nccl-plugin-trace    with --tp/--fsdp: DIR/nccl_profile_<commHash>_<rank>.json, the NCCL example\n"
      "                         profiler plugin's traces, and DIR/nccl_plugin_expected.json (tg_nccl.c)\n"
      "  --nccl-plugin-trace-old  the same in the plugin's format before NCCL 2.27: one\n"
      "                         DIR/nccl_profile-<hostname>-<tid>.txt per communicator and rank\n"
      "  --nccl-prometheus      with --tp/--fsdp: DIR/nccl_inspector_metrics_GPU-<uuid>.prom, the NCCL\n"
      "                         Inspector's Prometheus files, and DIR/nccl_prom_expected.json (tg_nccl.c)\n"
      "  --nccl-inter-mix A/P/C  the plugin's main choice for inter-node groups' messages of 1 MiB or\n"
      "                         more: algorithm/protocol/channels (default Tree/Simple/8 for all-reduce)\n"
      "  --autograd-thread      backward (its ops, DDP's hooks and finalize) runs on the autograd engine's\n"
      "                         thread, each op under autograd::engine::evaluate_function; the main waits\n"
      "  --first-bucket-mib M   DDP's first bucket (the first all-reduced) holds M MiB (default: --bucket-mib)\n"
      "Idle causes (issue 20):\n"
      "  --idle-cause sync|launch|dataloader|mixed|graph   one rank whose GPU gaps have a planted cause\n"
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
static int parse_int(const char *opt, const char *v, int lo, int hi) {
  double x = parse_num(opt, v, lo, hi);
  if (x != floor(x)) die("%s: want an integer, got '%s'", opt, v);
  return (int)x;
}
static int64_t us_to_ns(const char *opt, const char *v, double lo, double hi) {
  return (int64_t)llround(parse_num(opt, v, lo, hi) * 1000.0);
}

/* the options added for issues 17, 19, 20: 1 = flag, 2 = takes a value, 0 = not one of them */
static int new_option(const char *name) {
  static const char *flags[] = {"--fsdp", "--rocm-agent-ids", "--negative-ts", "--trace-hosts", "--cuda-sync-events",
                                "--autograd-thread", "--nccl-inspector", "--nccl-plugin-trace", "--nccl-plugin-trace-old", "--nccl-prometheus",
                                "--nccl-inspector-v42", "--nccl-exec-with-wait"};
  static const char *valued[] = {"--tp", "--gpus-per-node", "--tp-busbw-GBps", "--dp-busbw-GBps", "--tp-mib",
                                 "--tp-jitter-us", "--end-spread-us", "--file-names", "--drop-kernel", "--cut-rank", "--cut-after-step",
                                 "--comm-lib", "--windows", "--idle-cause", "--host", "--inter-GBps", "--coll-latency-us",
                                 "--intra-latency-us", "--straggler-factor", "--host-sync", "--first-bucket-mib",
                                 "--nccl-inter-mix", "--pp", "--microbatches", "--pp-slow-stage", "--pp-slow-factor"};
  for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
    if (!strcmp(name, flags[i])) return 1;
  for (size_t i = 0; i < sizeof valued / sizeof *valued; i++)
    if (!strcmp(name, valued[i])) return 2;
  return 0;
}

static int pick(const char *opt, const char *val, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (names[i] && !strcmp(val, names[i])) return i;
  die("%s: unknown value '%s'", opt, val);
}

static void parse_new(options *o, const char *name, const char *val) {
  static const char *libs[] = {"nccl", "deepep", "symm", "vllm"};
  static const char *fnames[] = {"rank", "handler", "record", "worker"};
  if (!strcmp(name, "--fsdp")) o->fsdp = 1;
  else if (!strcmp(name, "--rocm-agent-ids")) o->rocm = 1;
  else if (!strcmp(name, "--negative-ts")) o->negts = 1;
  else if (!strcmp(name, "--trace-hosts")) o->trace_hosts = 1;
  else if (!strcmp(name, "--cuda-sync-events")) o->sync_events = 1;
  else if (!strcmp(name, "--autograd-thread")) o->autograd_thread = 1;
  else if (!strcmp(name, "--nccl-inspector")) o->nccl_inspector = 1;
  else if (!strcmp(name, "--nccl-inspector-v42")) o->nccl_inspector = 2;
  else if (!strcmp(name, "--nccl-plugin-trace")) o->nccl_plugin = 1;
  else if (!strcmp(name, "--nccl-exec-with-wait")) o->nccl_exec_wait = 1;
  else if (!strcmp(name, "--nccl-plugin-trace-old")) o->nccl_plugin = 2;
  else if (!strcmp(name, "--nccl-prometheus")) o->nccl_prom = 1;
  else if (!strcmp(name, "--nccl-inter-mix")) {
    char tail;
    if (sscanf(val, "%15[A-Za-z]/%15[A-Za-z0-9]/%d%c", o->inter_algo, o->inter_proto, &o->inter_ch, &tail) != 3 ||
        o->inter_ch < 1 || o->inter_ch > 64)
      die("--nccl-inter-mix: want ALGO/PROTO/CHANNELS (Ring/LL/2), got '%s'", val);
  }
  else if (!strcmp(name, "--tp")) o->tp = parse_int(name, val, 1, MAX_RANKS);
  else if (!strcmp(name, "--gpus-per-node")) o->gpn = parse_int(name, val, 1, 1024);
  else if (!strcmp(name, "--tp-busbw-GBps")) o->tp_busbw = parse_num(name, val, 1e-6, 1e9);
  else if (!strcmp(name, "--dp-busbw-GBps")) o->dp_busbw = parse_num(name, val, 1e-6, 1e9);
  else if (!strcmp(name, "--tp-mib")) o->tp_mib = parse_num(name, val, 1e-6, 1e6);
  else if (!strcmp(name, "--tp-jitter-us")) o->tp_jitter_ns = us_to_ns(name, val, 0, 1e9);
  else if (!strcmp(name, "--end-spread-us")) o->spread_ns = us_to_ns(name, val, 0, 1e6);
  else if (!strcmp(name, "--file-names")) o->handler_names = pick(name, val, fnames, 4);
  else if (!strcmp(name, "--drop-kernel")) {
    int r, k;
    char tail;
    if (sscanf(val, "%d:%d%c", &r, &k, &tail) != 2 || r < 0 || k < 1) die("--drop-kernel: want R:K (K >= 1), got '%s'", val);
    if (o->ndrop == MAX_DROPS) die("--drop-kernel: at most %d", MAX_DROPS);
    o->drop_rank[o->ndrop] = r;
    o->drop_k[o->ndrop++] = k;
  }
  else if (!strcmp(name, "--cut-rank")) o->cut_rank = parse_int(name, val, 0, MAX_RANKS);
  else if (!strcmp(name, "--cut-after-step")) o->cut_steps = parse_int(name, val, 1, 10000000);
  else if (!strcmp(name, "--comm-lib")) o->comm_lib = pick(name, val, libs, 4);
  else if (!strcmp(name, "--windows")) o->windows = parse_int(name, val, 1, 1000);
  else if (!strcmp(name, "--host")) o->host = pick(name, val, (const char *const[]){"tracegen", "pytorch"}, 2);
  else if (!strcmp(name, "--inter-GBps")) { o->inter_bw = parse_num(name, val, 1e-3, 1e6); o->host = 1; }
  else if (!strcmp(name, "--coll-latency-us")) { o->alpha_ns = us_to_ns(name, val, 0, 1e6); o->host = 1; }
  else if (!strcmp(name, "--intra-latency-us")) o->intra_alpha_ns = us_to_ns(name, val, 0, 1e6);
  else if (!strcmp(name, "--straggler-factor")) o->strag_factor = parse_num(name, val, 0.1, 100);
  else if (!strcmp(name, "--first-bucket-mib")) o->first_bucket_mib = parse_num(name, val, 1e-6, 1e6);
  else if (!strcmp(name, "--pp")) o->pp = parse_int(name, val, 2, MAX_RANKS);
  else if (!strcmp(name, "--microbatches")) o->microbatches = parse_int(name, val, 1, 10000);
  else if (!strcmp(name, "--pp-slow-stage")) o->pp_slow = parse_int(name, val, 0, MAX_RANKS);
  else if (!strcmp(name, "--pp-slow-factor")) o->pp_slow_factor = parse_num(name, val, 0.1, 100);
  else if (!strcmp(name, "--host-sync")) o->host_sync = pick(name, val, (const char *const[]){"item", "stream", "device"}, 3);
  else o->idle_cause = pick(name, val, tg_idle_names, IDLE_CAUSES);
}

/* combinations the newer options support */
static void check_new(options *o) {
  if (!o->extended) return;
  if (o->tp && o->idle_cause) die("--idle-cause writes a single rank; it does not combine with --tp");
  if ((o->tp || o->fsdp) && o->comm_lib != LIB_NCCL) die("--comm-lib applies to jobs without --tp/--fsdp");
  if (o->fsdp && !o->tp) o->tp = 1;
  if (o->dp_busbw == 0) o->dp_busbw = o->busbw;
  for (int i = 0; i < o->ndrop; i++)
    if (o->drop_rank[i] >= o->ranks) die("--drop-kernel %d:%d: only %d ranks", o->drop_rank[i], o->drop_k[i], o->ranks);
  if ((o->cut_rank >= 0) != (o->cut_steps > 0)) die("--cut-rank and --cut-after-step go together");
  if ((o->nccl_inspector || o->nccl_plugin || o->nccl_prom) && ((!o->tp && !o->fsdp && !o->pp) || o->windows > 1 || o->ndrop || o->cut_rank >= 0))
    die("--nccl-inspector and --nccl-plugin-trace write the files of a --tp/--fsdp/--pp job of one window without dropped kernels");
  if (o->pp && (o->nccl_plugin || o->nccl_prom || o->nccl_inspector == 2 || o->nccl_exec_wait))
    die("--pp takes --nccl-inspector alone (its p2p_perf records)");
  if (o->nccl_exec_wait && !o->nccl_inspector) die("--nccl-exec-with-wait goes with --nccl-inspector");
  if (o->cut_rank >= o->ranks) die("--cut-rank %d: only %d ranks", o->cut_rank, o->ranks);
  if (o->cut_rank >= 0 && o->cut_steps >= o->steps) die("--cut-after-step %d: the job has %d steps", o->cut_steps, o->steps);
  if (o->windows > 1 && (o->ndrop || o->cut_rank >= 0)) die("--windows does not combine with --drop-kernel/--cut-rank");
  if (o->windows > 1 || o->idle_cause) {
    if (o->target_mb > 0) die("--target-mb does not combine with --windows or --idle-cause");
  }
  if (o->windows > 1) o->handler_names = 1; /* tensorboard_trace_handler writes one file per window */
  if (o->negts && !o->relative) die("--negative-ts needs --time-format relative (epoch times have no base)");
  if (o->idle_cause && (o->ndrop || o->cut_rank >= 0 || o->rocm || o->negts || o->comm_lib != LIB_NCCL))
    die("--idle-cause does not combine with the damage, ROCm and --comm-lib options");
  if (o->spread_ns && ((o->tp && !o->host) || o->idle_cause)) die("--end-spread-us applies to jobs without --tp/--fsdp/--idle-cause");
  if (o->rocm && !o->gpu_set) o->gpu = "AMD Instinct MI300X";
  if ((o->microbatches || o->pp_slow >= 0 || o->pp_slow_factor) && !o->pp)
    die("--microbatches, --pp-slow-stage and --pp-slow-factor apply to --pp jobs");
  if (o->op_mix && (o->pp || o->tp || o->fsdp || o->host || o->idle_cause || o->windows > 1 || o->cut_rank >= 0 ||
                   o->ndrop || o->rocm || o->negts || o->comm_lib != LIB_NCCL || o->a2a_hot >= 0 || o->target_mb > 0 ||
                   o->nccl_inspector || o->nccl_plugin || o->nccl_prom))
    die("--op-mix does not combine with the job-shape options (--pp, --tp, --fsdp, --host, --idle-cause, --windows, "
        "--a2a-hot-rank, --target-mb, --comm-lib, NCCL logs) or the damage and ROCm options");
  if (o->pp) {
    if (o->tp || o->fsdp || o->host || o->idle_cause || o->windows > 1 || o->cut_rank >= 0 || o->rocm ||
        o->negts || o->comm_lib != LIB_NCCL || o->target_mb > 0 || o->a2a_hot >= 0 || o->straggler >= 0)
      die("--pp does not combine with --tp, --fsdp, --host, --idle-cause, --windows, --cut-rank, "
          "--rocm-agent-ids, --negative-ts, --comm-lib, --target-mb, --a2a-hot-rank or --straggler");
    if (!o->microbatches) o->microbatches = 4;
    if (!o->pp_slow_factor) o->pp_slow_factor = 1.5;
    if (o->pp_slow < 0) o->pp_slow = 1;
  }
  if (o->host) {
    if (o->fsdp || o->comm_lib != LIB_NCCL || o->windows > 1 || o->cut_rank >= 0 || o->rocm || o->idle_cause ||
        o->target_mb > 0)
      die("--host pytorch (and --inter-GBps, --coll-latency-us) does not combine with --fsdp, --comm-lib, --windows, "
          "--cut-rank, --rocm-agent-ids, --idle-cause or --target-mb");
    if (o->ranks < 2) die("--host pytorch needs at least 2 ranks");
    if (!o->tp) o->tp = 1;
    if (o->inter_bw == 0) o->inter_bw = o->busbw;
    o->dp_busbw = o->inter_bw;
  } else if (o->sync_events || o->autograd_thread || o->first_bucket_mib > 0) {
    die("--cuda-sync-events, --autograd-thread and --first-bucket-mib apply to --host pytorch jobs");
  }
}

static void parse_args(options *o, int argc, char **argv) {
  memset(o, 0, sizeof *o);
  o->ranks = 4; o->steps = 3; o->layers = 16; o->buckets = 4; o->straggler = -1; o->gzlevel = 6; o->a2a_hot = -1; o->a2a_factor = 4; o->pp_slow = -1;
  o->seed = 1; o->gpu = "NVIDIA H100 80GB HBM3";
  o->busbw = 50; o->bucket_mib = 25; o->overlap = 0.5;
  o->strag_ns = 3000 * US; o->compute_ns = 20000 * US; o->idle_ns = 2000 * US; o->memcpy_ns = 300 * US;
  o->opt_ns = 200 * US; o->jitter_ns = 200 * US;
  o->gm = o->gn = o->gk = 4096;
  o->dtype = DT_BF16; o->shapes = o->seq = o->pg = o->pgconfig = o->collargs = 1;
  o->layout = LAYOUT_KINETO; o->relative = 1;
  o->gpn = 8; o->tp_busbw = 360; o->tp_jitter_ns = 10 * US; o->cut_rank = -1; o->windows = 1;
  o->alpha_ns = 20 * US; o->intra_alpha_ns = 8 * US; o->strag_factor = 1.6;
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
    else if (FLAG("--ranks")) { NEEDV(); o->ranks = parse_int(name, val, 1, MAX_RANKS); }
    else if (FLAG("--steps")) { NEEDV(); o->steps = parse_int(name, val, 1, 10000000); }
    else if (FLAG("--seed")) {
      NEEDV();
      char *end;
      errno = 0;
      o->seed = strtoull(val, &end, 0);
      if (errno || end == val || *end) die("--seed: not an integer: '%s'", val);
    }
    else if (FLAG("--gzip")) o->gzip = 1;
    else if (FLAG("--gzip-level")) { NEEDV(); o->gzlevel = parse_int(name, val, 1, 9); }
    else if (FLAG("--gpu")) { NEEDV(); o->gpu = val; o->gpu_set = 1; }
    else if (FLAG("--straggler")) { NEEDV(); o->straggler = parse_int(name, val, 0, MAX_RANKS); }
    else if (FLAG("--a2a-hot-rank")) { NEEDV(); o->a2a_hot = parse_int(name, val, 0, MAX_RANKS); }
    else if (FLAG("--a2a-factor")) { NEEDV(); o->a2a_factor = parse_int(name, val, 1, 1000); }
    else if (FLAG("--straggler-delay-us")) { NEEDV(); o->strag_ns = us_to_ns(name, val, 0, 1e9); }
    else if (FLAG("--clock-offset-us")) { NEEDV(); o->offmax_ns = us_to_ns(name, val, 0, 1e12); }
    else if (FLAG("--busbw-GBps")) { NEEDV(); o->busbw = parse_num(name, val, 1e-6, 1e9); if (o->busbw <= 0) die("--busbw-GBps must be > 0"); }
    else if (FLAG("--bucket-mib")) { NEEDV(); o->bucket_mib = parse_num(name, val, 1e-6, 1e6); }
    else if (FLAG("--buckets")) { NEEDV(); o->buckets = parse_int(name, val, 0, 100000); }
    else if (FLAG("--overlap")) { NEEDV(); o->overlap = parse_num(name, val, 0, 1); }
    else if (FLAG("--jitter-us")) { NEEDV(); o->jitter_ns = us_to_ns(name, val, 0, 1e9); }
    else if (FLAG("--layers")) { NEEDV(); o->layers = parse_int(name, val, 1, 100000); }
    else if (FLAG("--compute-us")) { NEEDV(); o->compute_ns = us_to_ns(name, val, 0, 1e12); }
    else if (FLAG("--optimizer-us")) { NEEDV(); o->opt_ns = us_to_ns(name, val, 0, 1e12); }
    else if (FLAG("--idle-us")) { NEEDV(); o->idle_ns = us_to_ns(name, val, 20, 1e12); }
    else if (FLAG("--memcpy-us")) { NEEDV(); o->memcpy_ns = us_to_ns(name, val, 0, 1e12); }
    else if (FLAG("--copy-kind")) {
      NEEDV();
      if (!strcmp(val, "h2d")) o->copy_d2d = 0;
      else if (!strcmp(val, "d2d")) o->copy_d2d = 1;
      else die("--copy-kind: want h2d|d2d, got '%s'", val);
    }
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
    else if (FLAG("--no-pg-config")) o->pgconfig = 0;
    else if (FLAG("--layout")) {
      NEEDV();
      if (!strcmp(val, "kineto")) o->layout = LAYOUT_KINETO;
      else if (!strcmp(val, "oneline")) o->layout = LAYOUT_ONELINE;
      else if (!strcmp(val, "indent4")) o->layout = LAYOUT_INDENT4;
      else if (!strcmp(val, "indent2sorted")) o->layout = LAYOUT_INDENT2SORTED;
      else die("--layout: want kineto|oneline|indent4|indent2sorted, got '%s'", val);
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
    else if (FLAG("--op-mix")) o->op_mix = 1;
    else if (new_option(name) == 1) { parse_new(o, name, NULL); o->extended = 1; }
    else if (new_option(name) == 2) { NEEDV(); parse_new(o, name, val); o->extended = 1; }
    else die("unknown option '%s' (see --help)", a);
#undef FLAG
#undef NEEDV
  }
  if (!o->outdir) { usage(stderr); die("-o DIR is required"); }
  if (o->straggler >= o->ranks) die("--straggler %d: only %d ranks", o->straggler, o->ranks);
  if (o->a2a_hot >= o->ranks) die("--a2a-hot-rank %d: only %d ranks", o->a2a_hot, o->ranks);
  if (o->a2a_hot >= 0 && (o->tp || o->fsdp || o->host || o->idle_cause || o->windows > 1 || o->comm_lib != LIB_NCCL ||
                          o->ranks < 2 || !o->pg || o->ndrop || o->cut_rank >= 0))
    die("--a2a-hot-rank applies to classic jobs of 2 ranks or more with process groups, one window, NCCL, no damage");
  check_new(o);
}

static int64_t qround(int64_t v, int64_t q) { return (v + q / 2) / q * q; }

/* pids (unique per node with handler file names), the world group, the mode, windows */
static void ctx_init_new(ctx_t *c) {
  const options *o = &c->o;
  int n = o->ranks;
  c->pid = xcalloc((size_t)n, sizeof(int64_t));
  for (int r = 0; r < n; r++) {
    c->pid[r] = 10000 + (int64_t)(h4(o->seed, 0x919, (uint64_t)r, 0) % 90000);
    for (int q = r - 1; o->handler_names && q >= 0 && q / o->gpn == r / o->gpn; q--)
      if (c->pid[q] == c->pid[r]) { c->pid[r] = 10000 + (c->pid[r] - 10000 + 1) % 90000; q = r; }
  }
  c->ngroups = 1;
  c->groups = xcalloc(1, sizeof *c->groups);
  pgroup *w = &c->groups[0];
  snprintf(w->name, sizeof w->name, "0");
  w->desc = "default_pg";
  w->kind = G_WORLD;
  w->size = n;
  w->stride = 1;
  w->ranks = xcalloc((size_t)n, sizeof(int));
  for (int r = 0; r < n; r++) w->ranks[r] = r;
  w->ranks_str = c->pg_ranks_str;
  w->nodes = (n + o->gpn - 1) / o->gpn;
  c->tp_of = xcalloc((size_t)n, sizeof(int));
  c->dp_of = xcalloc((size_t)n, sizeof(int));
  c->nwin = o->windows;
  c->win_steps = o->steps;
  c->win_gap = o->windows > 1 ? 2 : 0; /* schedule(wait=1, warmup=1): two unprofiled steps between windows */
  c->mode = o->op_mix ? MODE_OPS : o->pp ? MODE_PP : o->idle_cause ? MODE_IDLE : o->host ? MODE_HOST : o->tp ? MODE_MD : MODE_CLASSIC;
  if (o->rocm) {
    /* hipBLASLt GEMM names and RCCL's generic kernel */
    static const char *dt[] = {"BBS", "HHS", "SSS", "F8BS"};
    static const char *ab[] = {"Alik_Bljk", "Ailk_Bljk", "Alik_Bjlk"};
    char *dst[] = {c->gemm_fwd, c->gemm_bgi, c->gemm_bgw};
    for (int i = 0; i < 3; i++)
      snprintf(dst[i], sizeof c->gemm_fwd, "Cijk_%s_%s_BH_MT256x256x64_MI16x16x16x1_SN_K1_MIWT8_8_WG32_8_1", ab[i],
               dt[o->dtype]);
    snprintf(c->nccl_name, sizeof c->nccl_name, "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)");
  }
  if (c->mode == MODE_MD || c->mode == MODE_HOST) md_init(c);
  if (c->mode == MODE_HOST) host_init(c);
  if (c->mode == MODE_IDLE) idle_init(c);
  if (c->mode == MODE_PP) pp_init(c);
  if (c->mode == MODE_OPS) ops_init(c);
}

static void ctx_init(ctx_t *c) {
  options *o = &c->o;
  c->q = o->relative ? 1 : US;
  int64_t q = c->q;
  /* GPU */
  for (size_t i = 0; i < NGPUS; i++) {
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
  /* GEMM kernel names as cuBLAS 12.x names them: nvjet on Hopper/Blackwell, sm80 kernels on Ampere */
  const char *arch = c->gi ? c->gi->arch : "sm90";
  static const char *lay[] = {"TNT", "NNT", "NTN"};
  static const char *nvt[] = {"tst", "hsh", "sss", "qqtst"};
  char *dst[] = {c->gemm_fwd, c->gemm_bgi, c->gemm_bgw};
  for (int i = 0; i < 3; i++) {
    if (!strcmp(arch, "sm80"))
      snprintf(dst[i], sizeof c->gemm_fwd, "ampere_%s_s16816gemm_%s_128x128_ldg8_f2f_stages_64x3_%s", gt[o->dtype],
               gt[o->dtype], i == 0 ? "tn" : i == 1 ? "nn" : "nt");
    else
      snprintf(dst[i], sizeof c->gemm_fwd, "nvjet_%s_128x256_64x4_2x1_v_bz_coopA_%s", nvt[o->dtype], lay[i]);
  }
  snprintf(c->nccl_name, sizeof c->nccl_name, "ncclDevKernel_AllReduce_Sum_%s_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
           c->ndt);
  if (o->a2a_hot >= 0) /* NCCL runs all_to_all as grouped send/recv */
    snprintf(c->nccl_name, sizeof c->nccl_name, "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)");
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
  c->SPR = o->spread_ns / q * q;
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
  if (c->K > 0 && !o->tp) { /* multi-dimensional jobs: tg_md.c sizes their collectives */
    double tns = (double)c->bucket_bytes * 2.0 * (o->ranks - 1) / o->ranks / o->busbw;
    c->T = qround((int64_t)llround(tns), q);
    if (c->T < q) c->T = q;
    if (c->T < 2 * US)
      die("collective transfer time %.3f us is too short (need >= 2 us): raise --bucket-mib or lower --busbw-GBps", c->T / 1e3);
    if (c->SPR >= c->T)
      die("--end-spread-us %.3f is not shorter than the collective transfer time %.3f us", c->SPR / 1e3, c->T / 1e3);
  }
  if (c->H > 0 && !o->tp) {
    int64_t bwd = c->C - c->fwd_len;
    c->Q = bwd / c->H / q * q;
    c->Qoff = c->Q / 10 / q * q;
    if (c->Qoff + c->J + c->T >= c->Q)
      die("%d hidden collectives of %.3f us (+%.3f us jitter) do not fit under %.3f us of backward compute: "
          "lower --overlap/--buckets/--bucket-mib/--jitter-us or raise --compute-us or --busbw-GBps",
          c->H, c->T / 1e3, c->J / 1e3, bwd / 1e3);
  }
  if (o->straggler >= 0 && c->E == 0 && !o->tp)
    fprintf(stderr, "tracegen: note: no exposed collectives, so --straggler has no effect\n");
  c->flops_gemm = 2.0 * (double)o->gm * (double)o->gn * (double)o->gk;
  c->flops_step = 3.0 * L * c->flops_gemm;
  /* clock offsets */
  c->off = xcalloc((size_t)o->ranks, sizeof(int64_t));
  int64_t M = o->offmax_ns / q;
  for (int r = 1; r < o->ranks && M > 0; r++)
    c->off[r] = ((int64_t)(h4(o->seed, 0xC10C, (uint64_t)r, 0) % (uint64_t)(2 * M + 1)) - M) * q;
  ctx_init_new(c);
}


/* sizes one step per rank in a counting sink, then chooses the step count for --target-mb */
static int steps_for_target(ctx_t *c, uint64_t target) {
  const options *o = &c->o;
  model_build(c, 2);
  uint64_t minb = UINT64_MAX, se[2];
  for (int r = 0; r < o->ranks; r++) {
    sink_t s;
    s_open(&s, NULL, 0, 0);
    rw_t w;
    write_rank(c, r, 0, &s, &w, se);
    uint64_t b = se[1] - se[0];
    if (b < minb) minb = b;
    s.len = 0;
    free(s.buf);
    free(w.rec.v);
    free(w.step_span);
  }
  uint64_t need = (uint64_t)ceil((double)target / ((double)minb * 0.998)) + 1;
  if (need > 10000000) die("--target-mb too large");
  return (int)need;
}

int main(int argc, char **argv) {
  ctx_t *c = xcalloc(1, sizeof *c);
  parse_args(&c->o, argc, argv);
  ctx_init(c);
  const options *o = &c->o;
  int S = o->steps;
  uint64_t target = (uint64_t)(o->target_mb * 1048576.0);
  if (target > 0) {
    int need = steps_for_target(c, target);
    if (need > S) S = need;
  }
  if (c->nwin > 1) S = c->nwin * o->steps + (c->nwin - 1) * c->win_gap;
  if (c->nwin == 1) c->win_steps = S;
  model_build(c, S);
  mkdir_p(o->outdir);
  size_t plen = strlen(o->outdir) + 200;
  char *path = xcalloc(1, plen);
  int n = o->ranks;
  long long *gpu_events = xcalloc((size_t)n, sizeof(long long));
  rw_t **ws = xcalloc((size_t)n * (size_t)c->nwin, sizeof *ws);
  for (int win = 0; win < c->nwin; win++)
    for (int r = 0; r < n; r++) {
      size_t dl = (size_t)snprintf(path, plen, "%s/", o->outdir);
      rank_file_name(c, r, win, path + dl, plen - dl);
      sink_t s;
      s_open(&s, path, o->gzip, o->gzlevel);
      rw_t *w = xcalloc(1, sizeof *w);
      write_rank(c, r, win, &s, w, NULL);
      s_close(&s);
      if (s.total < target) die("internal: %s is %" PRIu64 " bytes, below --target-mb", path, s.total);
      gpu_events[r] = w->n_gpu;
      if (c->mode == MODE_CLASSIC && !o->ndrop && o->cut_rank < 0 && !o->negts && c->nwin == 1) {
        rank_truth t;
        rank_truth_build(c, r, &t);
        if (w->n_kernels != t.kernels || w->n_comm != t.comm_kernels || w->n_mem != t.mem_events)
          die("internal: rank %d wrote %lld kernels/%lld comm/%lld memory events, model says %lld/%lld/%lld", r,
              w->n_kernels, w->n_comm, w->n_mem, t.kernels, t.comm_kernels, t.mem_events);
        if (!c->SPR) truth_check_classic(c, r, w); /* the closed form plants one end per collective */
      }
      if (!o->extended) { /* the classic expected.json needs no record: keep memory flat for big jobs */
        free(w->rec.v);
        memset(&w->rec, 0, sizeof w->rec);
      }
      ws[(size_t)win * n + r] = w;
    }
  if (o->nccl_inspector && c->mode == MODE_PP) pp_write_nccl(c, ws);
  else if (o->nccl_inspector) write_nccl_inspector(c, ws);
  if (o->nccl_plugin) write_nccl_plugin_trace(c, ws);
  if (o->nccl_prom) write_nccl_prometheus(c, ws);
  snprintf(path, plen, "%s/expected.json", o->outdir);
  if (c->mode == MODE_PP)
    pp_write_expected(c, path);
  else if (c->mode == MODE_OPS)
    ops_write_expected(c, path);
  else if (o->extended)
    write_expected_ext(c, path, ws);
  else
    write_expected(c, path, gpu_events);
  for (size_t i = 0; i < (size_t)n * c->nwin; i++) {
    free(ws[i]->rec.v);
    free(ws[i]->step_span);
    free(ws[i]);
  }
  free(ws);
  free(path);
  free(gpu_events);
  md_free(c);
  idle_free(c);
  host_free(c);
  pp_free(c);
  ops_free(c);
  for (int g = 0; g < c->ngroups; g++) {
    free(c->groups[g].ranks);
    if (c->groups[g].ranks_str != c->pg_ranks_str) free(c->groups[g].ranks_str);
  }
  free(c->groups); free(c->tp_of); free(c->dp_of); free(c->pid);
  free(c->P); free(c->X); free(c->Xstart); free(c->Tmin); free(c->off); free(c->gd); free(c->pg_ranks_str);
  free(c);
  return 0;
}
