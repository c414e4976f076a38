/* roofline.c: the roofline arithmetic of roofline.h: attainable rate, class, share of attainable
 * and time lost, with the catalog's fallbacks. Pure: no state, no output. */
#include "roofline.h"
#include <string.h>

void tc_roofline_of(const tc_gpu_spec *gpu, tc_dtype dtype, bool has_flops, double flops, bool has_bytes,
                    double bytes, double time_s, tc_roofline *out) {
    memset(out, 0, sizeof *out);
    has_flops = has_flops && flops > 0;
    has_bytes = has_bytes && bytes > 0;
    if (!gpu) { out->note = "GPU not in the catalog: no roofline"; return; }
    if (!(time_s > 0)) { out->note = "no GPU time: no roofline"; return; }
    if (!has_flops && !has_bytes) { out->note = "the shapes give neither FLOPs nor bytes: no roofline"; return; }
    const char *peak_note = NULL;
    out->peak_flops = has_flops ? tc_gpu_peak_flops(gpu, dtype, &peak_note) : 0;
    out->bandwidth = gpu->mem_bandwidth_GBps > 0 ? gpu->mem_bandwidth_GBps * 1e9 : 0;
    if (out->peak_flops > 0 && out->bandwidth > 0) out->ridge = out->peak_flops / out->bandwidth;
    out->note = peak_note;
    if (has_flops) out->achieved_flops = flops / time_s;
    if (has_bytes) out->achieved_bytes = bytes / time_s;
    if (has_flops && has_bytes) {
        out->has_intensity = true;
        out->intensity = flops / bytes;
    }
    bool compute_roof = has_flops && out->peak_flops > 0, memory_roof = has_bytes && out->bandwidth > 0;
    if (!compute_roof && !memory_roof) {
        if (!out->note) out->note = has_flops ? "no peak for this dtype: no roofline" : "no memory bandwidth: no roofline";
        return;
    }
    out->has = true;
    if (compute_roof && memory_roof) {
        out->compute_bound = out->intensity >= out->ridge;
        out->attainable_flops = out->compute_bound ? out->peak_flops : out->intensity * out->bandwidth;
    } else if (compute_roof) { /* FLOPs only, or no bandwidth */
        out->compute_bound = true;
        out->attainable_flops = out->peak_flops;
        if (has_bytes) out->note = "no memory bandwidth in the catalog: the compute roof alone";
    } else {                   /* bytes only, or no peak for the dtype */
        out->compute_bound = false;
        if (has_flops) {
            out->note = "no peak for this dtype: the memory roof alone";
            out->attainable_flops = out->intensity * out->bandwidth;
        }
    }
    out->attainable = out->compute_bound ? out->attainable_flops : out->bandwidth;
    out->share = (out->compute_bound ? out->achieved_flops : out->achieved_bytes) / out->attainable;
    out->lost_s = out->share < 1 ? time_s * (1 - out->share) : 0;
}
