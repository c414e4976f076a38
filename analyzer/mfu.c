/* mfu.c: MFU, HFU and the top-kernels table (see mfu.h and docs/mfu.md).
 * Per rank: each counted op (flops.h nesting rule) adds flops and flops/peak(dtype) ("ideal
 * seconds") to the ProfilerStep whose CPU span holds its start; a step's MFU is its ideal seconds
 * over its step time; the rank's MFU is the mean over its steps. HFU divides the ideal seconds of
 * every counted op of the trace by the rank's GPU window. */
#include "mfu.h"
#include "analyze_phases.h"
#include "flops.h"
#include "steps.h"
#include "base/status.h"
#include "base/util.h"
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

double tc_mfu_user_flops(const tc_analyze_options *opt, int64_t world_size) {
    if (opt->model_flops_per_step > 0) return opt->model_flops_per_step;
    if (opt->params > 0 && opt->tokens_per_step > 0)
        return 6.0 * opt->params * opt->tokens_per_step / (double)(world_size >= 1 ? world_size : 1);
    return 0;
}

/* Job-level facts gathered while analyzing ranks, turned into one note at the end. */
typedef struct {
    uint64_t shaped_ops, unshaped_ops, counted_ops, unknown_flops_ops, unknown_dtype_ops;
    bool any_record_shapes;
    const char *unknown_device;   /* first rank's device name missing from the catalog */
    bool no_device_name;
    bool bad_gpu_option;
    bool no_steps;
    double over_peak;             /* largest step MFU above 1 of any rank (left out); 0 none */
    char fallback[128];           /* first catalog fallback note ("" none) */
    char fallback_dtype[16];
} mfu_facts;

/* Span (sorted by start) containing ts, or -1 (spans of one thread do not overlap). */
static long span_of(const tc_step_span *s, size_t n, int64_t ts) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].start_ns <= ts) lo = mid + 1; else hi = mid;
    }
    for (size_t i = lo; i-- > 0 && lo - i <= 4;)
        if (ts < s[i].start_ns + s[i].dur_ns) return (long)i;
    return -1;
}

typedef struct { int64_t number; size_t index; } step_key;

static int cmp_step_key(const void *a, const void *b) {
    const step_key *x = a, *y = b;
    if (x->number != y->number) return x->number < y->number ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Index in rr->steps of occurrence `occ` of step `number` (keys: sorted by number, index; the k-th
 * span of a number is the k-th step of it, steps.h), or -1. */
static long step_index(const step_key *keys, size_t n, int64_t number, size_t occ) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (keys[mid].number < number) lo = mid + 1; else hi = mid;
    }
    return lo + occ < n && keys[lo + occ].number == number ? (long)keys[lo + occ].index : -1;
}

int tc_mfu_rank(tc_job *j, tc_rank_result *rr, const tc_analyze_options *opt, double user_flops, tc_mfu_rank_facts *f) {
    tc_trace *t = &j->traces[rr->input];
    f->shaped_ops += t->ops_with_shapes;
    f->unshaped_ops += t->ops_without_shapes;
    f->record_shapes |= t->record_shapes;

    const tc_gpu_spec *gpu = NULL;
    if (opt->gpu) {
        gpu = tc_gpu_find_by_id(opt->gpu);
        if (!gpu) f->bad_gpu_option = true;
    } else {
        gpu = tc_gpu_find_by_device_name(rr->device);
        if (!gpu && rr->device) f->unknown_device = true;
        if (!gpu && !rr->device) f->no_device_name = true;
    }
    rr->gpu = gpu;

    /* the step (index into rr->steps) of each CPU or GPU ProfilerStep span */
    const tc_step_span *spans = t->n_cpu_steps ? t->cpu_steps : t->gpu_steps;
    size_t n_spans = t->n_cpu_steps ? t->n_cpu_steps : t->n_gpu_steps;
    long *span_step = n_spans ? malloc(n_spans * sizeof *span_step) : NULL;
    size_t *occ = n_spans ? malloc(n_spans * sizeof *occ) : NULL;
    double *ideal = rr->n_steps ? calloc(rr->n_steps, sizeof *ideal) : NULL;
    step_key *keys = rr->n_steps ? malloc(rr->n_steps * sizeof *keys) : NULL;
    if ((n_spans && (!span_step || !occ || tc_steps_occurrence(spans, n_spans, occ))) || (rr->n_steps && (!ideal || !keys))) {
        free(span_step); free(occ); free(ideal); free(keys); return -1;
    }
    for (size_t i = 0; i < rr->n_steps; i++) keys[i] = (step_key){rr->steps[i].number, i};
    tc_sort(keys, rr->n_steps, sizeof *keys, cmp_step_key);
    for (size_t i = 0; i < n_spans; i++) span_step[i] = step_index(keys, rr->n_steps, spans[i].number, occ[i]);
    free(keys);
    free(occ);

    double all_flops = 0, all_ideal = 0;
    for (size_t i = 0; i < t->n_ops; i++) {
        const tc_cpu_op *o = &t->ops[i];
        if (!o->counted) {
            if (o->flops < 0 && !o->covered) f->unknown_flops_ops++;
            continue;
        }
        f->counted_ops++;
        const char *note = NULL;
        double peak = gpu ? tc_gpu_peak_flops(gpu, (tc_dtype)o->dtype, &note) : 0;
        if (gpu && o->dtype == TC_DTYPE_UNKNOWN) { f->unknown_dtype_ops++; continue; }
        if (note && !f->fallback[0]) {
            tc_format(f->fallback, sizeof f->fallback, "%s", note);
            tc_format(f->fallback_dtype, sizeof f->fallback_dtype, "%s", tc_dtype_name((tc_dtype)o->dtype));
        }
        all_flops += o->flops;
        if (peak <= 0) continue;
        double sec = o->flops / peak;
        all_ideal += sec;
        long sp = n_spans ? span_of(spans, n_spans, o->ts_ns) : -1;
        long k = sp >= 0 ? span_step[sp] : -1;
        if (k >= 0) {
            rr->steps[k].flops += o->flops;
            ideal[k] += sec;
        }
    }
    free(span_step);
    rr->shape_flops = all_flops;

    if (gpu) {
        rr->has_peak = true;
        rr->peak_flops = all_ideal > 0 ? all_flops / all_ideal : tc_gpu_peak_flops(gpu, TC_DTYPE_BF16, NULL);
    }
    if (all_ideal > 0 && rr->b.window_ns > 0) {
        rr->has_hfu = true;
        rr->hfu = all_ideal / ((double)rr->b.window_ns * 1e-9);
    }
    if (rr->n_steps == 0) f->no_steps = true;
    bool from_user = user_flops > 0;
    if (gpu && (from_user || all_ideal > 0)) {
        double mfu_sum = 0, flops_sum = 0;
        size_t n = 0;
        for (size_t s = 0; s < rr->n_steps; s++) {
            tc_step_result *st = &rr->steps[s];
            if (st->step_time_ns <= 0) continue;
            double secs = (double)st->step_time_ns * 1e-9;
            if (from_user) {
                st->flops = user_flops;
                st->mfu = user_flops / rr->peak_flops / secs;
            } else {
                st->mfu = ideal[s] / secs;
            }
            /* an MFU above 1 (or past any double) is not a result: the FLOPs exceed the peak */
            if (!(st->mfu <= 1)) {
                if (!(st->mfu <= f->over_peak)) f->over_peak = isfinite(st->mfu) ? st->mfu : HUGE_VAL;
                st->mfu = 0;
                continue;
            }
            st->has_mfu = true;
            mfu_sum += st->mfu;
            flops_sum += st->flops;
            n++;
        }
        if (f->over_peak > 0) {
            /* one impossible step makes the rank's FLOPs figure untrustworthy: no MFU at all */
            for (size_t s = 0; s < rr->n_steps; s++) rr->steps[s].has_mfu = false;
        } else if (n) {
            rr->has_mfu = true;
            rr->mfu = mfu_sum / (double)n;
            rr->flops_per_step = flops_sum / (double)n;
            rr->flops_source = from_user ? "user" : "shapes";
        }
    }
    free(ideal);
    return 0;
}

/* ---- notes ---------------------------------------------------------------------------------- */

typedef struct { char buf[2048]; size_t len; } note_buf;

static void note_add(note_buf *n, const char *fmt, ...) TC_FORMAT_LIKE(2, 3);
static void note_add(note_buf *n, const char *fmt, ...) {
    if (n->len >= sizeof n->buf - 1) return;
    if (n->len) n->len += tc_format(n->buf + n->len, sizeof n->buf - n->len, "; ");
    if (n->len >= sizeof n->buf - 1) return;
    va_list ap;
    va_start(ap, fmt);
    n->len += tc_vformat(n->buf + n->len, sizeof n->buf - n->len, fmt, ap);
    va_end(ap);
    if (n->len > sizeof n->buf - 1) n->len = sizeof n->buf - 1;
}

static char *make_note(const mfu_facts *f, const tc_analyze_options *opt, bool user) {
    note_buf n;
    n.len = 0;
    n.buf[0] = 0;
    if (!user && f->counted_ops == 0) {
        if (f->shaped_ops == 0)
            note_add(&n, "no operator shapes in the trace%s: profile with torch.profiler.profile(record_shapes=True), "
                     "or give the model's FLOPs with --model-flops-per-step F (per GPU) or --params N --tokens-per-step T",
                     f->unshaped_ops ? " (GEMM ops carry no Input Dims)" : "");
        else
            note_add(&n, "no GEMM, convolution or attention op had shapes its FLOPs could be computed from; give the "
                     "model's FLOPs with --model-flops-per-step F (per GPU) or --params N --tokens-per-step T");
    }
    if (f->bad_gpu_option)
        note_add(&n, "--gpu '%s' is not in the GPU catalog: pass --gpu NAME with a name from `tracecost gpus`", opt->gpu);
    else if (f->unknown_device)
        note_add(&n, "device '%s' is not in the GPU catalog, so its peak FLOP/s is unknown: pass --gpu NAME "
                 "(`tracecost gpus` lists the names)", f->unknown_device);
    else if (f->no_device_name)
        note_add(&n, "the trace names no device (deviceProperties), so its peak FLOP/s is unknown: pass --gpu NAME "
                 "(`tracecost gpus` lists the names)");
    if (f->over_peak > 0) {
        const char *by = opt->model_flops_per_step > 0 ? "--model-flops-per-step"
                       : user ? "--params with --tokens-per-step (6 N T over the ranks)" : "the operator shapes";
        char times[48];
        if (isfinite(f->over_peak) && f->over_peak < 1e6) tc_format(times, sizeof times, "%.4g times", f->over_peak);
        else tc_format(times, sizeof times, "over a million times");
        note_add(&n, "the FLOPs per step given by %s exceed the GPU's peak FLOP/s over the step time (%s): "
                 "an MFU above 100%% is not a result, so mfu is null; check the %s", by, times,
                 user ? "flags (per GPU, per step)" : "shapes and --gpu");
    }
    if (f->no_steps)
        note_add(&n, "no ProfilerStep spans, so no step time: mfu needs them (call prof.step() each step); "
                 "hardware_flops_utilization uses the GPU window instead");
    if (f->fallback[0]) note_add(&n, "%s ops: %s", f->fallback_dtype, f->fallback);
    if (f->unknown_dtype_ops)
        note_add(&n, "%llu ops in a dtype without a catalog peak (fp64, integer, unknown) are left out",
                 (unsigned long long)f->unknown_dtype_ops);
    if (f->unknown_flops_ops && (f->counted_ops || user))
        note_add(&n, "%llu GEMM/convolution/attention ops had shapes that give no FLOP count (e.g. a forward "
                 "convolution without Concrete Inputs, varlen attention) and are left out",
                 (unsigned long long)f->unknown_flops_ops);
    if (f->unshaped_ops && f->counted_ops)
        note_add(&n, "%llu GEMM/convolution/attention ops carried no shapes and are left out",
                 (unsigned long long)f->unshaped_ops);
    return n.len ? tc_strdup(n.buf) : NULL;
}

/* ---- top kernels ---------------------------------------------------------------------------- */

typedef struct {
    int64_t time_ns, flops_time_ns;
    uint64_t count;
    double flops;
} kagg;

typedef struct { uint32_t ext; uint32_t op; } ext_index;
static int cmp_ext(const void *a, const void *b) {
    const ext_index *x = a, *y = b;
    if (x->ext != y->ext) return x->ext < y->ext ? -1 : 1;
    return (x->op > y->op) - (x->op < y->op);
}
static long op_of_ext(const ext_index *ix, size_t n, uint32_t ext) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix[mid].ext < ext) lo = mid + 1; else hi = mid;
    }
    return (lo < n && ix[lo].ext == ext) ? (long)ix[lo].op : -1;
}

/* FLOPs an op hands to its kernels: its own when counted, else those of the counted ops inside. */
static double op_kernel_flops(const tc_cpu_op *o) { return o->counted ? o->flops : o->inner_flops; }

void tc_kernel_parts_free(tc_kernel_parts *p) {
    for (size_t i = 0; !p->borrowed && i < p->n; i++) free(p->rows[i].name);
    free(p->rows);
    memset(p, 0, sizeof *p);
}

/* Finds, for GPU events, the op whose FLOPs they share: ops indexed by External id (ix sorted, or
 * the direct table ext_slot over [base, base + span)). */
typedef struct {
    ext_index *ix; size_t nix;
    uint32_t *ext_slot, base; size_t span;
} op_finder;

static int op_finder_init(tc_trace *t, op_finder *f) {
    memset(f, 0, sizeof *f);
    f->ix = t->n_ops ? tc_big_alloc(t->n_ops, sizeof *f->ix, false) : NULL;
    if (t->n_ops && !f->ix) return -1;
    for (size_t i = 0; i < t->n_ops; i++)
        if (t->ops[i].external_id != TC_NONE) f->ix[f->nix++] = (ext_index){t->ops[i].external_id, (uint32_t)i};
    if (f->nix) tc_sort(f->ix, f->nix, sizeof *f->ix, cmp_ext); /* ops sorted by thread and time: usually sorted already */
    f->ext_slot = tc_dense_index(f->ix, f->nix, sizeof *f->ix, offsetof(ext_index, ext), &f->base, &f->span);
    tc_trace_sort_launches(t);
    return 0;
}

static void op_finder_free(op_finder *f) { free(f->ext_slot); free(f->ix); }

/* The op whose FLOPs compute kernel g shares (by its launch's External id), or -1. */
static long kernel_op(const tc_trace *t, const op_finder *f, const tc_gpu_event *g) {
    if (!f->nix || g->correlation == TC_NONE) return -1;
    const tc_launch *l = tc_trace_find_launch(t, g->correlation);
    if (!l || l->external_id == TC_NONE) return -1;
    long k;
    if (!f->ext_slot) k = op_of_ext(f->ix, f->nix, l->external_id);
    else if (l->external_id < f->base || l->external_id - f->base >= f->span) k = -1;
    else k = f->ext_slot[l->external_id - f->base] == TC_NONE ? -1 : (long)f->ix[f->ext_slot[l->external_id - f->base]].op;
    return k >= 0 && op_kernel_flops(&t->ops[k]) > 0 ? k : -1;
}

static bool is_compute(const tc_gpu_event *g) { return g->kind == TC_GPU_KERNEL && !g->is_comm; }

/* Of n rows whose summed times lie every `stride` bytes from `time`, the `keep` longest (ties: the
 * first row) into best[], longest first; returns how many (keep at most). */
static size_t longest_rows(const void *time, size_t stride, size_t n, size_t keep, size_t *best) {
    size_t kept = 0;
    const char *at = time;
    int64_t tb[TC_TOP_KERNELS]; /* the times of best[] */
    for (size_t r = 0; r < n; r++) {
        int64_t tr;
        memcpy(&tr, at + r * stride, sizeof tr);
        size_t q = kept;
        while (q > 0 && tb[q - 1] < tr) q--;
        if (q >= keep) continue;
        size_t last = kept < keep ? kept : keep - 1;
        memmove(&best[q + 1], &best[q], (last - q) * sizeof *best);
        memmove(&tb[q + 1], &tb[q], (last - q) * sizeof *tb);
        best[q] = r;
        tb[q] = tr;
        if (kept < keep) kept++;
    }
    return kept;
}

/* p->rows from the rows' summed times: every row (keep 0 or >= n_rows), else the keep longest;
 * row_of (a name id's row) becomes a name id's place in p->rows, TC_NONE for a row left out. */
static int keep_rows(const tc_trace *t, uint32_t *row_of, size_t n_names, const int64_t *row_time, size_t n_rows,
                     size_t keep, tc_kernel_parts *p) {
    size_t best[TC_TOP_KERNELS];
    size_t n_keep = keep && keep < n_rows ? longest_rows(row_time, sizeof *row_time, n_rows, keep, best) : n_rows;
    for (size_t a = 1; a < n_keep && n_keep < n_rows; a++) /* in row order: at most TC_TOP_KERNELS */
        for (size_t b = a; b > 0 && best[b - 1] > best[b]; b--) { size_t x = best[b]; best[b] = best[b - 1]; best[b - 1] = x; }
    p->rows = calloc(n_keep ? n_keep : 1, sizeof *p->rows);
    if (!p->rows) return -1;
    p->cap = p->n = n_keep;
    p->borrowed = true; /* t outlives its parts: they are merged (tc_job_finish) or packed before it goes */
    for (size_t i = 0; i < n_names; i++) {
        uint32_t r = row_of[i], k = r;
        if (r == TC_NONE) continue;
        if (n_keep < n_rows) { /* best is sorted: find r among the kept */
            size_t lo = 0, hi = n_keep;
            while (lo < hi) { size_t mid = (lo + hi) / 2; if (best[mid] < r) lo = mid + 1; else hi = mid; }
            row_of[i] = k = lo < n_keep && best[lo] == r ? (uint32_t)lo : TC_NONE;
            if (k == TC_NONE) continue;
        }
        p->rows[k].name = (char *)tc_trace_str(t, (uint32_t)i);
        p->rows[k].time_ns = row_time[r];
    }
    return 0;
}

/* Trace t's compute kernels summed by name, in order of first appearance (p zeroed by the caller);
 * keep > 0: only the `keep` longest rows (ties: the first to appear), which is exact for the top
 * kernels when t is the job's only trace. Memory: 4 bytes per string of t and 8 per row while it
 * sums, 8 per CPU op, then the rows kept (docs/performance.md). */
int tc_kernel_parts_trace(tc_trace *t, size_t keep, tc_kernel_parts *p) {
    int rc = -1;
    size_t n_names = tc_strtab_count(t->strings), n_rows = 0, cap = 0;
    int64_t *op_ns = t->n_ops ? tc_big_alloc(t->n_ops, sizeof *op_ns, true) : NULL;
    /* rows by first appearance; row_of: a name id's row (names are interned once per trace) */
    uint32_t *row_of = n_names ? tc_big_alloc(n_names, sizeof *row_of, false) : NULL;
    int64_t *row_time = NULL, total = 0;
    op_finder f;
    if (keep > TC_TOP_KERNELS) keep = TC_TOP_KERNELS;
    if (op_finder_init(t, &f) || (t->n_ops && !op_ns) || (n_names && !row_of)) goto out;
    for (size_t i = 0; i < n_names; i++) row_of[i] = TC_NONE;
    /* pass 1: each op's summed kernel time; the rows and their summed times */
    for (size_t e = 0; e < t->n_gpu; e++) {
        const tc_gpu_event *g = &t->gpu[e];
        if (!is_compute(g)) continue;
        long k = kernel_op(t, &f, g);
        if (k >= 0) op_ns[k] += g->dur_ns;
        if (g->name >= n_names) continue;
        if (row_of[g->name] == TC_NONE) {
            if (tc_grow((void **)&row_time, &cap, n_rows + 1, sizeof *row_time)) goto out;
            row_time[n_rows] = 0;
            row_of[g->name] = (uint32_t)n_rows++;
        }
        row_time[row_of[g->name]] += g->dur_ns;
        total += g->dur_ns;
    }
    if (keep_rows(t, row_of, n_names, row_time, n_rows, keep, p)) goto out;
    free(row_time);
    row_time = NULL;
    /* pass 2: launches and FLOPs of the rows kept; an op's FLOPs split over its kernels by duration */
    for (size_t e = 0; e < t->n_gpu; e++) {
        const tc_gpu_event *g = &t->gpu[e];
        if (!is_compute(g) || g->name >= n_names || row_of[g->name] == TC_NONE) continue;
        tc_kernel_part *a = &p->rows[row_of[g->name]];
        a->count++;
        long k = kernel_op(t, &f, g);
        if (k >= 0 && op_ns[k] > 0) {
            a->flops += op_kernel_flops(&t->ops[k]) * (double)g->dur_ns / (double)op_ns[k];
            a->flops_time_ns += g->dur_ns;
        }
    }
    p->total_ns = total;
    rc = 0;
out:
    op_finder_free(&f);
    free(op_ns);
    free(row_of);
    free(row_time);
    if (rc) tc_kernel_parts_free(p);
    return rc;
}

/* A kernel name's summed time over the traces (top_kernels); the name is borrowed from a part.
 * 24 bytes: the other sums are taken for the 20 longest only (a job may hold millions of names). */
typedef struct {
    const char *name;
    uint32_t len;   /* bytes (a kernel name is cut at 64 KiB when parsed) */
    uint32_t hash;  /* tc_strtab_hash of the name */
    int64_t time_ns;
} kname;

/* Rebuilds the index of rows (slot: row + 1, 0 empty) with n_slot slots, a power of two. */
static int kname_reindex(const kname *rows, size_t n, uint32_t **slot, size_t n_slot) {
    uint32_t *s = tc_big_alloc(n_slot, sizeof *s, true);
    if (!s) return -1;
    for (size_t r = 0; r < n; r++) {
        size_t k = rows[r].hash & (n_slot - 1);
        while (s[k]) k = (k + 1) & (n_slot - 1);
        s[k] = (uint32_t)(r + 1);
    }
    free(*slot);
    *slot = s;
    return 0;
}

/* Pass 1 of top_kernels: the parts' rows summed by name into *rows (*n of them, in order of first
 * appearance in input order), through an index on the names' bytes; the names stay in the parts.
 * 0, or -1 out of memory. */
static int sum_times_by_name(const tc_job *j, const tc_kernel_parts *const *parts, kname **rows_out, size_t *n_out) {
    kname *rows = NULL;
    size_t n = 0, cap = 0, n_slot = 0;
    uint32_t *slot = NULL;
    for (size_t i = 0; i < j->n_traces; i++) cap += parts[i] ? parts[i]->n : 0; /* distinct names at most */
    if (cap && !(rows = malloc(cap * sizeof *rows))) return -1;
    for (size_t i = 0; i < j->n_traces; i++) {
        const tc_kernel_parts *p = parts[i];
        for (size_t k = 0; p && k < p->n; k++) {
            const tc_kernel_part *kp = &p->rows[k];
            size_t len = strlen(kp->name);
            uint32_t h = tc_strtab_hash(kp->name, len);
            if (len > UINT32_MAX) goto oom;
            if (2 * (n + 1) > n_slot) {
                n_slot = n_slot ? 2 * n_slot : 1024;
                if (n >= UINT32_MAX || kname_reindex(rows, n, &slot, n_slot)) goto oom;
            }
            size_t s = h & (n_slot - 1);
            for (; slot[s]; s = (s + 1) & (n_slot - 1)) {
                const kname *q = &rows[slot[s] - 1];
                if (q->hash == h && q->len == len && memcmp(q->name, kp->name, len) == 0) break;
            }
            if (!slot[s]) {
                rows[n++] = (kname){kp->name, (uint32_t)len, h, 0}; /* n <= cap: rows of the parts */
                slot[s] = (uint32_t)n;
            }
            rows[slot[s] - 1].time_ns += kp->time_ns;
        }
    }
    free(slot);
    *rows_out = rows;
    *n_out = n;
    return 0;
oom:
    free(slot);
    free(rows);
    return -1;
}

/* Merges the traces' partial rows in input order (parts[i] belongs to trace i) by name: their
 * summed times (sum_times_by_name), then the TC_TOP_KERNELS longest (ties: the first to appear)
 * become j->top_kernels, whose other sums are taken from the parts in the same order. */
static int top_kernels(tc_job *j, const tc_kernel_parts *const *parts) {
    kname *rows = NULL;
    size_t n = 0;
    int64_t total = 0;
    if (sum_times_by_name(j, parts, &rows, &n)) return -1;
    for (size_t i = 0; i < j->n_traces; i++) total += parts[i] ? parts[i]->total_ns : 0;
    /* the longest rows, best first: time descending, then order of appearance */
    size_t best[TC_TOP_KERNELS];
    size_t keep = n ? longest_rows(&rows[0].time_ns, sizeof *rows, n, TC_TOP_KERNELS, best) : 0;
    /* pass 2: the kept names' other sums, part by part in input order (the order pass 1 summed in) */
    kagg a[TC_TOP_KERNELS];
    memset(a, 0, sizeof a);
    for (size_t i = 0; i < j->n_traces && keep; i++) {
        const tc_kernel_parts *p = parts[i];
        for (size_t k = 0; p && k < p->n; k++) {
            const tc_kernel_part *kp = &p->rows[k];
            size_t len = strlen(kp->name);
            uint32_t h = tc_strtab_hash(kp->name, len);
            for (size_t r = 0; r < keep; r++) {
                const kname *q = &rows[best[r]];
                if (q->hash != h || q->len != len || memcmp(q->name, kp->name, len)) continue;
                a[r].time_ns += kp->time_ns;
                a[r].flops_time_ns += kp->flops_time_ns;
                a[r].count += kp->count;
                a[r].flops += kp->flops;
                break;
            }
        }
    }
    int rc = -1;
    if (keep && !(j->top_kernels = calloc(keep, sizeof *j->top_kernels))) goto out;
    for (size_t r = 0; r < keep; r++) {
        tc_kernel_row *row = &j->top_kernels[j->n_top_kernels];
        row->name = tc_strdup(rows[best[r]].name);
        if (!row->name) goto out;
        j->n_top_kernels++;
        row->time_ns = a[r].time_ns;
        row->count = a[r].count;
        row->share_of_compute = total > 0 ? (double)a[r].time_ns / (double)total : 0;
        if (a[r].flops_time_ns > 0 && a[r].flops > 0) {
            row->has_tflops = true;
            row->achieved_tflops = a[r].flops / ((double)a[r].flops_time_ns * 1e-9) / 1e12;
        }
    }
    rc = 0;
out:
    free(rows);
    return rc;
}

/* ---- job ------------------------------------------------------------------------------------ */

int tc_mfu_finish(tc_job *j, const tc_analyze_options *opt, double user, const tc_rank_extra *x) {
    mfu_facts f;
    memset(&f, 0, sizeof f);
    tc_summary *sm = &j->summary;
    double mfu = 0, fps = 0, peak = 0, ideal = 0;
    int64_t win = 0;
    size_t n_mfu = 0, n_peak = 0;
    const tc_kernel_parts **parts = calloc(j->n_traces ? j->n_traces : 1, sizeof *parts);
    if (!parts) return -1;
    for (size_t r = 0; r < j->n_ranks; r++) {
        const tc_rank_result *rr = &j->ranks[r];
        const tc_mfu_rank_facts *rf = &x[r].mfu;
        if (rr->input < j->n_traces) parts[rr->input] = &x[r].kernels;
        f.shaped_ops += rf->shaped_ops;
        f.unshaped_ops += rf->unshaped_ops;
        f.counted_ops += rf->counted_ops;
        f.unknown_flops_ops += rf->unknown_flops_ops;
        f.unknown_dtype_ops += rf->unknown_dtype_ops;
        f.any_record_shapes |= rf->record_shapes;
        if (rf->unknown_device && !f.unknown_device) f.unknown_device = rr->device;
        f.no_device_name |= rf->no_device_name;
        f.bad_gpu_option |= rf->bad_gpu_option;
        f.no_steps |= rf->no_steps;
        if (rf->over_peak > f.over_peak) f.over_peak = rf->over_peak;
        if (rf->fallback[0] && !f.fallback[0]) {
            memcpy(f.fallback, rf->fallback, sizeof f.fallback);
            memcpy(f.fallback_dtype, rf->fallback_dtype, sizeof f.fallback_dtype);
        }
        if (rr->has_mfu) { mfu += rr->mfu; fps += rr->flops_per_step; n_mfu++; }
        if (rr->has_peak) { peak += rr->peak_flops; n_peak++; }
        if (rr->has_hfu) { ideal += rr->hfu * (double)rr->b.window_ns; win += rr->b.window_ns; }
    }
    if (n_mfu) {
        sm->has_mfu = true;
        sm->mfu = mfu / (double)n_mfu;
        sm->flops_per_step = fps / (double)n_mfu;
        sm->flops_source = user > 0 ? "user" : "shapes";
    }
    if (n_peak) { sm->has_peak = true; sm->peak_flops = peak / (double)n_peak; }
    if (win > 0) { sm->has_hfu = true; sm->hfu = ideal / (double)win; }
    sm->mfu_over_peak = f.over_peak > 0;
    sm->mfu_note = make_note(&f, opt, user > 0);
    int rc = top_kernels(j, parts);
    free(parts);
    return rc;
}
