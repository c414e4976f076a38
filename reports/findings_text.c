/* findings_text.c: the sentences of the verdict reasons and actions (see findings_text.h). */
#include "findings_text.h"
#include "termtext.h"
#include "base/status.h"
#include <string.h>

const char *tc_reason_text(char *buf, size_t n, const tc_reason *r) {
    switch (r->code) {
    case TC_REASON_NETWORK:
        tc_format(buf, n, "exposed %s is %.1f%% of GPU time (threshold %.0f%%)",
                  r->split_known ? "transfer (collectives moving bytes, not hidden by compute)"
                                 : "communication (not split into wait and transfer: one rank)",
                  100 * r->network, 100 * r->threshold);
        break;
    case TC_REASON_STRAGGLER:
        tc_format(buf, n, "exposed wait for slower ranks is %.1f%% of GPU time (threshold %.0f%%)", 100 * r->straggler,
                  100 * r->threshold);
        break;
    case TC_REASON_HOST:
        tc_format(buf, n, "GPUs idle or copying memory %.1f%% of the time (idle %.1f%% + exposed memory %.1f%%; "
                  "threshold %.0f%%)", 100 * r->host, 100 * r->idle, 100 * r->memory, 100 * r->threshold);
        break;
    case TC_REASON_COMPUTE:
        tc_format(buf, n, "no loss reaches %.0f%% of GPU time: network %.1f%%, stragglers %.1f%%, host %.1f%%",
                  100 * r->threshold, 100 * r->network, 100 * r->straggler, 100 * r->host);
        break;
    case TC_REASON_SPEEDUP:
        tc_format(buf, n, "removing that time would make the job %.2fx faster", r->speedup);
        break;
    case TC_REASON_OTHER_LOSSES:
        tc_format(buf, n, "other losses: network %.1f%%, stragglers %.1f%%%s, host %.1f%%", 100 * r->network,
                  100 * r->straggler, r->split_known ? "" : " (unknown with one rank)", 100 * r->host);
        break;
    case TC_REASON_STRAGGLER_RANK:
        tc_format(buf, n, "rank %lld causes %.0f%% of the waiting (it arrives last at %.0f%% of collectives): the others "
                  "wait %.3f ms per step for it", (long long)r->rank, 100 * r->caused_wait_share,
                  100 * r->last_arrival_share, (double)r->wait_ns_per_step / 1e6);
        break;
    default:
        tc_format(buf, n, "?");
    }
    return buf;
}

/* The actions that carry no number. */
static const char *action_fixed(tc_action_code code) {
    switch (code) {
    case TC_ACTION_HIDE_COMM:
        return "Hide communication behind compute: bigger DDP buckets (bucket_cap_mb), gradient accumulation (fewer "
               "all-reduces per sample), overlap with compute (FSDP forward/backward prefetch).";
    case TC_ACTION_MEASURE_FABRIC:
        return "Check the fabric: measure bus bandwidth with nccl-tests (all_reduce_perf) on the same nodes and "
               "compare with what the links should give.";
    case TC_ACTION_FEWER_BYTES:
        return "Send fewer bytes: bf16 gradients or compression hooks, a larger batch per GPU, or keep tensor "
               "parallelism within a node.";
    case TC_ACTION_BALANCE_WORK:
        return "No single rank arrives last: waits are spread, so balance the work per rank (sequence lengths, "
               "uneven batches, pipeline stages).";
    case TC_ACTION_COMPARE_RANKS:
        return "Compare per-rank compute in the table above; a rank whose host is busy (logging, checkpointing, "
               "evaluation on rank 0) delays every collective.";
    case TC_ACTION_FEED_GPUS:
        return "Feed the GPUs faster: more DataLoader workers (num_workers), pin_memory=True, prefetch_factor, "
               "non_blocking copies.";
    case TC_ACTION_CUT_LAUNCHES:
        return "Cut launch overhead: CUDA graphs (torch.compile mode=\"reduce-overhead\"), fused kernels, a larger "
               "batch per step.";
    case TC_ACTION_AVOID_SYNCS:
        return "Avoid host-device syncs in the step: .item(), .cpu(), printing losses, torch.cuda.synchronize().";
    case TC_ACTION_KERNEL_WORK:
        return "The GPUs are busy: speed-ups come from kernel-level work (Nsight Compute on the top kernels, fusion, "
               "torch.compile, bf16/fp8 math).";
    case TC_ACTION_MEASURE_MFU:
        return "Measure MFU (record shapes with record_shapes=True) to see how far kernels are from the GPU's peak.";
    default:
        return NULL;
    }
}

const char *tc_action_text(char *buf, size_t n, const tc_action *a, const tc_job *j) {
    const char *fixed = action_fixed(a->code);
    if (fixed) { tc_format(buf, n, "%s", fixed); return buf; }
    switch (a->code) {
    case TC_ACTION_FABRIC_BUSBW:
        tc_format(buf, n, "Check the fabric: collectives reach %.1f GB/s bus bandwidth; compare with what the links "
                  "should give (nccl-tests all_reduce_perf on the same nodes).", a->value);
        break;
    case TC_ACTION_LOOK_AT_STRAGGLER: {
        const char *file = a->input < j->n_traces ? j->traces[a->input].path : "?";
        const char *base = strrchr(file, '/');
        char clean[256];
        tc_term_clean(clean, sizeof clean, base ? base + 1 : file, 80);
        tc_format(buf, n, "Look at rank %lld (trace %s; its host is the machine that wrote that file): its data loader, "
                  "CPU contention, GPU clocks and thermals (nvidia-smi -q), PCIe and NIC errors.", (long long)a->rank, clean);
        break;
    }
    case TC_ACTION_STRAGGLER_MORE_WORK:
    case TC_ACTION_STRAGGLER_HOST_SIDE:
        tc_format(buf, n, "Its compute is %.3f ms per step against a median of %.3f ms: %s",
                  (double)a->compute_ns_per_step / 1e6, (double)a->median_compute_ns_per_step / 1e6,
                  a->code == TC_ACTION_STRAGGLER_MORE_WORK
                      ? "more GPU work or a slower GPU (uneven batches or sequence lengths, throttling)."
                      : "the GPU work is the same, so the delay comes from its host side (input, CPU, launch).");
        break;
    case TC_ACTION_MFU_GAP:
        tc_format(buf, n, "MFU is %.1f%% of the GPU's peak: the gap to peak is what kernel work can win.", 100 * a->value);
        break;
    default:
        tc_format(buf, n, "?");
    }
    return buf;
}
