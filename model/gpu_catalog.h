/* gpu_catalog.h: the GPU catalog compiled from gpus.def: per GPU, name patterns for detection,
 * dense peak FLOP/s per dtype, memory bandwidth, TDP and dated default prices, each with its
 * source, and the lookups on it. Read-only static data: every pointer returned here points into the
 * catalog, lives for the whole program and must not be freed. No function keeps state, prints or
 * exits; `tracecost gpus` writes the catalog with reports/catalog_report.h. */
#ifndef TC_GPU_CATALOG_H
#define TC_GPU_CATALOG_H
#include <stdbool.h>
#include <stddef.h>

/* Numeric formats whose peak the catalog knows. TC_DTYPE_UNKNOWN is for everything else (fp64,
 * integers, complex, fp4, names we do not recognise): no peak, so no MFU. */
typedef enum {
    TC_DTYPE_UNKNOWN = -1,
    TC_DTYPE_FP32 = 0,
    TC_DTYPE_TF32,
    TC_DTYPE_BF16,
    TC_DTYPE_FP16,
    TC_DTYPE_FP8,
    TC_DTYPE_COUNT
} tc_dtype;

/* A peak in gpus.def that no vendor figure could be found for: unknown, so MFU against it is
 * unknown too (never a guess). tc_gpu_peak_flops gives 0 with a note for it. */
#define TC_GPU_UNSOURCED (-1.0)

typedef struct tc_gpu_spec {
    const char *id;                 /* short name for --gpu, e.g. "h100-sxm" */
    const char *name;               /* display name, e.g. "NVIDIA H100 SXM 80GB" */
    const char *patterns;           /* '|'-separated device-name patterns (see gpus.def) */
    double peak_tflops[TC_DTYPE_COUNT]; /* dense peak per dtype, TFLOP/s (1e12 FLOP/s); 0 = unsupported,
                                     * TC_GPU_UNSOURCED = unknown */
    double mem_bandwidth_GBps;      /* memory bandwidth, GB/s (1e9 bytes/s) */
    double tdp_W;                   /* board power limit, W */
    const char *flops_source;       /* origin of peak_tflops */
    const char *spec_source;        /* origin of mem_bandwidth_GBps and tdp_W */
    double rent_usd_per_hour;       /* default rent, $ per GPU-hour */
    const char *rent_date;          /* when that price held, "YYYY-MM" */
    const char *rent_source;        /* origin of the rent price */
    double purchase_usd;            /* default purchase price, $ per GPU */
    const char *purchase_date;      /* when that price held, "YYYY-MM" */
    const char *purchase_source;    /* origin of the purchase price */
} tc_gpu_spec;

/* Number of catalog entries, and entry i (NULL when i >= tc_gpu_count()). File order. */
size_t tc_gpu_count(void);
const tc_gpu_spec *tc_gpu_at(size_t i);

/* The entry whose patterns match a trace's deviceProperties[].name ("NVIDIA H100 80GB HBM3"),
 * trying entries in file order; NULL when none matches or device_name is NULL/empty. */
const tc_gpu_spec *tc_gpu_find_by_device_name(const char *device_name);

/* The entry for a --gpu value: its id or display name compared case-insensitively and ignoring
 * everything but letters and digits ("H100-SXM", "h100 sxm", "NVIDIA H100 SXM 80GB" all work),
 * else a device name as a trace writes it (tc_gpu_find_by_device_name). NULL when unknown. */
const tc_gpu_spec *tc_gpu_find_by_id(const char *id_or_name);

/* Why tc_gpu_find_by_id(word) found nothing, with what the user may have meant, into buf (n > 0:
 * always NUL-terminated): "unknown GPU 'h100'; did you mean h100-pcie or h100-sxm? (tracecost gpus
 * lists them all)" when up to 6 entries' ids or names hold the word's letters and digits, else
 * "unknown GPU 'x'; known: h100-pcie, ... (tracecost gpus lists them)". Returns the length. */
size_t tc_gpu_unknown_text(char *buf, size_t n, const char *word);

/* Peak FLOP/s (not TFLOP/s) of gpu for dtype. When the figure is TC_GPU_UNSOURCED (or the
 * fallback below would use one), 0 with a note saying it is unknown. When the GPU lacks hardware support for dtype, the
 * peak it falls back to is returned and *note (if note is non-NULL) is set to a static sentence
 * saying so: TF32, BF16 and FP16 fall back to the FP32 peak (no tensor cores for that format: the
 * work runs on the FP32 units or is converted); FP8 falls back to the FP16 peak (FP8 tensors are
 * then upcast and multiplied at 16 bits). *note is NULL when no fallback was needed. Returns 0 with
 * a note for a NULL gpu or TC_DTYPE_UNKNOWN. */
double tc_gpu_peak_flops(const tc_gpu_spec *gpu, tc_dtype dtype, const char **note);

/* Maps a PyTorch profiler "Input type" string to a dtype: "float" -> FP32, "c10::BFloat16" ->
 * BF16, "c10::Half" -> FP16, "c10::Float8_*" -> FP8. A "c10::" or "torch." prefix is optional and
 * case is ignored, so "BFloat16", "torch.float16" and "half" work too. "double" and everything
 * else -> TC_DTYPE_UNKNOWN (the catalog has no FP64 peaks). TF32 is never returned: whether an
 * fp32 GEMM ran on TF32 tensor cores is a runtime setting the trace does not record. */
tc_dtype tc_dtype_from_torch(const char *input_type);

/* True when a and b are equal keeping only their letters and digits, case-insensitively
 * ("H100-SXM" and "h100 sxm"): how catalog ids (GPUs, links) are matched. */
bool tc_catalog_same_id(const char *a, const char *b);

/* Lower-case name of a dtype ("bf16"); "unknown" for anything out of range. */
const char *tc_dtype_name(tc_dtype dtype);
#endif
