/* roofline.h: the roofline of one op or op group, pure arithmetic: from a GPU's catalog entry (its
 * dense peak for a dtype and its memory bandwidth), the FLOPs and bytes the shapes give
 * (ops.h tc_op_cost_of) and the GPU time they took, the attainable rate min(peak, intensity ×
 * bandwidth), the class (compute-bound at or above the ridge peak / bandwidth, memory-bound under
 * it), the achieved rates, the share of attainable and the time lost against the roof. Reads only
 * the catalog; keeps no state. Definitions: docs/definitions.md "Ops and the roofline". */
#ifndef TC_ROOFLINE_H
#define TC_ROOFLINE_H
#include <stdbool.h>
#include "gpu_catalog.h"

typedef struct {
    bool has;               /* a roofline: false when the GPU, the time or both rates are unknown */
    const char *note;       /* static sentence: why there is none, or the fallback it used; NULL none */
    bool compute_bound;     /* the class: intensity >= ridge (FLOPs only: always; bytes only: never) */
    double peak_flops;      /* the dtype's dense peak after the catalog's fallback, FLOP/s; 0 unknown */
    double bandwidth;       /* memory bandwidth, byte/s; 0 unknown */
    double ridge;           /* peak_flops / bandwidth, FLOP/byte; 0 when either is unknown */
    bool has_intensity;     /* FLOPs and bytes both known and non-zero */
    double intensity;       /* flops / bytes, FLOP/byte */
    double achieved_flops;  /* flops / time, FLOP/s; 0 without FLOPs */
    double achieved_bytes;  /* bytes / time, byte/s; 0 without bytes */
    double attainable_flops;/* min(peak, intensity × bandwidth), FLOP/s; 0 without FLOPs */
    double attainable;      /* the roof in the class's unit: FLOP/s when compute-bound, byte/s
                             * (the bandwidth) when memory-bound */
    double share;           /* achieved / attainable in that unit; above 1 when the formulas
                             * undercount (data served from cache); not capped */
    double lost_s;          /* time × (1 − share), 0 when share >= 1 */
} tc_roofline;

/* The roofline of work of dtype that did flops FLOPs (when has_flops) and moved bytes bytes (when
 * has_bytes) in time_s seconds of GPU time on gpu. Fallbacks (note says which): a dtype without
 * its own peak uses the catalog's (tc_gpu_peak_flops: BF16/FP16/TF32 -> FP32, FP8 -> FP16); no
 * peak for the dtype (integers, fp64, an unsourced figure) with bytes known: the memory roof
 * alone, memory-bound; no bandwidth with FLOPs known: the compute roof alone, compute-bound; an
 * unknown GPU (NULL), no time (time_s <= 0) or neither rate: has false. FLOPs of 0 count as
 * unknown (a copy), and so do bytes of 0. */
void tc_roofline_of(const tc_gpu_spec *gpu, tc_dtype dtype, bool has_flops, double flops, bool has_bytes,
                    double bytes, double time_s, tc_roofline *out);

#endif
