#!/usr/bin/env bash
# gpu-check.sh: end-to-end check of the CUPTI tracer on a machine with an NVIDIA GPU and PyTorch.
#
# Runs one short training loop (bf16 matmuls; an NCCL all_reduce of the gradients when NCCL and
# at least 2 GPUs are present, otherwise no collective) four ways:
#   1. under `tracecost record`, capture toggled with SIGUSR2 around the measured steps;
#   2. under torch.profiler (Kineto) over the same steps, no tracecost;
#   3. plain, timing steps;  4. under `tracecost record` capturing everything, timing steps.
# Then it runs `tracecost analyze --json` on the traces of 1 and 2 and checks:
#   - kernel events counted in the trace files agree within 2%;
#   - GPU events reported by the analyzer (inputs[].gpu_events) agree within 2%;
#   - compute share (sum ranks[].compute_us / sum ranks[].window_us) agrees within 2 points;
#   - the tracer adds at most 3% to the median step time (run 4 vs run 3).
# Prints a table; exits 0 when every check passes, 1 when one fails, 2 when it cannot run.
#
# Usage: cupti/gpu-check.sh [--steps N] [--keep] [--tracecost PATH]
#   from the repository root after `make` (needs build/tracecost and build/libtracecost_cupti.so).
# Environment: PYTHON (default python3), GC_MAX_OVERHEAD_PCT (3), GC_TOLERANCE_PCT (2).
set -euo pipefail

steps=20
keep=0
tc=build/tracecost
python=${PYTHON:-python3}
max_overhead=${GC_MAX_OVERHEAD_PCT:-3}
tolerance=${GC_TOLERANCE_PCT:-2}

die() { echo "gpu-check: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps=${2:?--steps needs a number}; shift 2 ;;
    --keep) keep=1; shift ;;
    --tracecost) tc=${2:?--tracecost needs a path}; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case "$steps" in ''|*[!0-9]*) die "--steps needs a positive integer" ;; esac

[ -x "$tc" ] || die "$tc not found: run make first (or pass --tracecost PATH)"
lib="$(dirname "$tc")/libtracecost_cupti.so"
[ -f "$lib" ] || [ -n "${TRACECOST_CUPTI_LIB:-}" ] || die "$lib not found: build with the CUDA toolkit"
command -v nvidia-smi >/dev/null 2>&1 || die "nvidia-smi not found: no NVIDIA driver here"
"$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
  die "PyTorch with CUDA is not available to $python"

ngpu=$("$python" -c 'import torch; print(torch.cuda.device_count())')
nccl=$("$python" -c 'import torch.distributed as d; print(1 if d.is_available() and d.is_nccl_available() else 0)')
if [ "$ngpu" -ge 2 ] && [ "$nccl" = 1 ]; then
  nproc=2
  launch=("$python" -m torch.distributed.run --standalone --nproc_per_node=2)
  collective="nccl all_reduce, 2 ranks"
else
  nproc=1
  launch=("$python")
  collective="none (needs NCCL and 2 GPUs)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tc-gpu-check-XXXXXX")
# shellcheck disable=SC2317 # called through the EXIT trap
cleanup() { if [ "$keep" = 1 ]; then echo "gpu-check: kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT

# ---------- the workload ----------
cat > "$work/train.py" <<'PY'
"""Short training loop for gpu-check.sh. argv: MODE OUT_DIR; MODE in plain, record, toggle, torchprof."""
import json, os, signal, statistics, sys, time
import torch

mode, out_dir = sys.argv[1], sys.argv[2]
steps = int(os.environ.get("GC_STEPS", "20"))
warmup = int(os.environ.get("GC_WARMUP", "5"))
world = int(os.environ.get("WORLD_SIZE", "1"))
rank = int(os.environ.get("RANK", "0"))
dist = world > 1
if dist:
    import torch.distributed as td
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    td.init_process_group("nccl")
dev = torch.device("cuda")
torch.manual_seed(0)
layers = [torch.nn.Linear(4096, 4096, bias=False) for _ in range(6)]
model = torch.nn.Sequential(*layers).to(dev, torch.bfloat16)
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
x = torch.randn(8192, 4096, device=dev, dtype=torch.bfloat16)

def step():
    torch.cuda.nvtx.range_push("train_step")
    loss = model(x).float().pow(2).mean()
    loss.backward()
    if dist:
        for p in model.parameters():
            td.all_reduce(p.grad)
    opt.step()
    opt.zero_grad(set_to_none=True)
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()

for _ in range(warmup):
    step()
if dist:
    td.barrier()
torch.cuda.synchronize()

times = []
def timed():
    t = time.perf_counter()
    step()
    times.append(time.perf_counter() - t)

if mode == "toggle":  # tracecost: capture starts off (long --delay); SIGUSR2 on and off
    os.kill(os.getpid(), signal.SIGUSR2)
    time.sleep(0.5)  # the tracer acts on the signal within 100 ms
    for _ in range(steps):
        timed()
    os.kill(os.getpid(), signal.SIGUSR2)
    time.sleep(0.5)
elif mode == "torchprof":
    from torch.profiler import ProfilerActivity, profile, schedule
    def ready(p):
        p.export_chrome_trace(os.path.join(out_dir, f"torchprof.rank{rank}.pt.trace.json"))
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=0, warmup=1, active=steps, repeat=1),
                 on_trace_ready=ready) as prof:
        for _ in range(steps + 1):
            timed()
            prof.step()
else:  # plain, record
    for _ in range(steps):
        timed()
if dist:
    td.barrier()
    td.destroy_process_group()
if rank == 0:
    print("TIMING " + json.dumps({"median_ms": statistics.median(times) * 1e3}), flush=True)
PY

run() { # run NAME: logs to $work/NAME.log, returns the command's status
  local name=$1; shift
  if ! timeout 900 "$@" >"$work/$name.log" 2>&1; then
    echo "gpu-check: run '$name' failed; last lines of $work/$name.log:" >&2
    tail -n 20 "$work/$name.log" >&2
    keep=1
    return 1
  fi
}

median_ms() { # median step time in ms printed by rank 0 of run $1
  local line
  line=$(sed -n 's/^TIMING //p' "$work/$1.log" | head -n 1)
  [ -n "$line" ] || die "run '$1' printed no timing (see $work/$1.log)"
  "$python" -c 'import json,sys; print(json.loads(sys.argv[1])["median_ms"])' "$line"
}

mkdir -p "$work/tc" "$work/tp" "$work/tc-all"
export GC_STEPS=$steps
echo "gpu-check: $ngpu GPU(s), collective: $collective, $steps steps; work dir $work"

# 1. tracecost, capture only the measured steps
run toggle "$tc" record -o "$work/tc" --delay 86400 -- "${launch[@]}" "$work/train.py" toggle "$work/tc" ||
  die "the traced run failed"
# 2. torch.profiler over the same steps (no tracecost: one CUPTI subscriber per process)
run torchprof "${launch[@]}" "$work/train.py" torchprof "$work/tp" || die "the torch.profiler run failed"
# 3 and 4: overhead, plain then traced, twice each; the best median of each counts
for i in 1 2; do
  run "plain$i" "${launch[@]}" "$work/train.py" plain "$work" || die "the plain run failed"
  rm -rf "$work/tc-all" && mkdir -p "$work/tc-all"
  run "record$i" "$tc" record -o "$work/tc-all" -- "${launch[@]}" "$work/train.py" record "$work/tc-all" ||
    die "the traced timing run failed"
done

shopt -s nullglob
tc_files=("$work"/tc/*.pt.trace.json)
tp_files=("$work"/tp/*.pt.trace.json)
[ "${#tc_files[@]}" -eq "$nproc" ] || die "expected $nproc tracecost trace(s), found ${#tc_files[@]} in $work/tc"
[ "${#tp_files[@]}" -eq "$nproc" ] || die "expected $nproc torch.profiler trace(s), found ${#tp_files[@]} in $work/tp"

# analyze FILES... -> $work/NAME.json; supports `analyze --json OUT FILES` and `--json` to stdout
analyze() {
  local name=$1; shift
  local out="$work/$name.analysis.json"
  if "$tc" analyze -q --json "$out" "$@" >"$work/$name.analyze.log" 2>&1 && [ -s "$out" ]; then return 0; fi
  "$tc" analyze --json "$@" >"$out" 2>"$work/$name.analyze.log" && [ -s "$out" ] && return 0
  echo "gpu-check: tracecost analyze failed on $name:" >&2
  cat "$work/$name.analyze.log" >&2
  return 1
}
analyze tc "${tc_files[@]}" || die "analyze failed on the tracecost traces"
analyze tp "${tp_files[@]}" || die "analyze failed on the torch.profiler traces"

plain_ms=$( (median_ms plain1; median_ms plain2) | sort -g | head -1)
traced_ms=$( (median_ms record1; median_ms record2) | sort -g | head -1)

status=0
"$python" - "$work" "$tolerance" "$max_overhead" "$plain_ms" "$traced_ms" <<'PY' || status=$?
import glob, json, os, sys
work, tol, max_ovh, plain_ms, traced_ms = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])

def kernels(d):
    n = 0
    for f in glob.glob(os.path.join(work, d, "*.pt.trace.json")):
        with open(f) as fh:
            n += sum(1 for e in json.load(fh).get("traceEvents", [])
                     if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel"))
    return n

def analysis(name):
    with open(os.path.join(work, name + ".analysis.json")) as fh:
        a = json.load(fh)
    ranks = a.get("ranks", [])
    comp = sum(r.get("compute_us", 0) for r in ranks)
    win = sum(r.get("window_us", 0) for r in ranks)
    ev = sum(i.get("gpu_events", 0) for i in a.get("inputs", []))
    return ev, (100.0 * comp / win if win else float("nan"))

def rel(a, b):
    return abs(a - b) * 100.0 / max(a, b, 1)

k_tc, k_tp = kernels("tc"), kernels("tp")
(ev_tc, share_tc), (ev_tp, share_tp) = analysis("tc"), analysis("tp")
ovh = (traced_ms - plain_ms) * 100.0 / plain_ms
rows = [
    ("kernel events in traces", f"{k_tc}", f"{k_tp}", f"{tol:g}%", k_tc > 0 and rel(k_tc, k_tp) <= tol),
    ("GPU events (analyzer)", f"{ev_tc}", f"{ev_tp}", f"{tol:g}%", ev_tc > 0 and rel(ev_tc, ev_tp) <= tol),
    ("compute share (analyzer)", f"{share_tc:.2f}%", f"{share_tp:.2f}%", f"{tol:g} pts",
     abs(share_tc - share_tp) <= tol),
    ("median step, traced vs plain", f"{traced_ms:.2f} ms", f"{plain_ms:.2f} ms",
     f"{max_ovh:g}%", ovh <= max_ovh),
]
print(f"{'check':30} {'tracecost':>14} {'reference':>14} {'limit':>8}  result")
for name, a, b, lim, ok in rows:
    print(f"{name:30} {a:>14} {b:>14} {lim:>8}  {'ok' if ok else 'FAIL'}")
print(f"tracer overhead on step time: {ovh:+.2f}%  (reference column: torch.profiler; plain run for the step time)")
sys.exit(0 if all(r[4] for r in rows) else 1)
PY
[ "$status" -eq 0 ] || keep=1
exit "$status"
