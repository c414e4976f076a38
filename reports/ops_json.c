/* ops_json.c: the keys ops[], modules[] and op_attribution of the JSON report (see ops_json.h). */
#include "ops_json.h"

static void group(jw *w, const tc_op_group *g) {
    jw_object_begin(w);
    jw_key(w, "op"); jw_string(w, g->op);
    jw_key(w, "shapes"); jw_string(w, g->shapes);
    jw_key(w, "dtype"); if (g->dtype != TC_DTYPE_UNKNOWN) jw_string(w, tc_dtype_name(g->dtype)); else jw_null(w);
    jw_key(w, "family"); jw_string(w, tc_op_family_name((tc_op_family)g->family));
    jw_key(w, "count"); jw_int(w, g->count);
    jw_key(w, "kernels"); jw_int(w, g->kernels);
    jw_key(w, "gpu_time_us"); jw_ns_as_us(w, g->gpu_ns);
    jw_key(w, "median_kernel_us"); jw_ns_as_us(w, g->median_kernel_ns);
    jw_key(w, "flops"); if (g->has_flops) jw_double(w, g->flops); else jw_null(w);
    jw_key(w, "bytes"); if (g->has_bytes) jw_double(w, g->bytes); else jw_null(w);
    bool ib = g->has_flops && g->has_bytes && g->bytes > 0 && g->flops > 0;
    jw_key(w, "intensity"); if (ib) jw_double(w, g->intensity); else jw_null(w);
    jw_key(w, "achieved_tflops"); if (g->has_flops && g->gpu_ns > 0) jw_double(w, g->achieved_flops / 1e12); else jw_null(w);
    jw_key(w, "achieved_tbps"); if (g->has_bytes && g->gpu_ns > 0) jw_double(w, g->achieved_bytes / 1e12); else jw_null(w);
    jw_key(w, "class");
    if (g->has_roofline) jw_string(w, g->compute_bound ? "compute-bound" : "memory-bound"); else jw_null(w);
    jw_key(w, "attainable_tflops"); if (g->has_roofline && g->compute_bound) jw_double(w, g->attainable / 1e12); else jw_null(w);
    jw_key(w, "attainable_tbps"); if (g->has_roofline && !g->compute_bound) jw_double(w, g->attainable / 1e12); else jw_null(w);
    jw_key(w, "share_of_attainable"); if (g->has_roofline) jw_double(w, g->share_of_attainable); else jw_null(w);
    jw_key(w, "lost_us"); if (g->has_roofline) jw_ns_as_us(w, g->lost_ns); else jw_null(w);
    jw_key(w, "launch_bound"); jw_bool(w, g->launch_bound);
    jw_key(w, "differing_rank"); if (g->differing_rank >= 0) jw_int(w, g->differing_rank); else jw_null(w);
    jw_key(w, "parent"); jw_string(w, g->parent);
    jw_object_end(w);
}

static void attribution(jw *w, const tc_op_result *r) {
    jw_key(w, "op_attribution");
    jw_object_begin(w);
    jw_key(w, "compute_us"); jw_ns_as_us(w, r->compute_ns);
    jw_key(w, "attributed_us"); jw_ns_as_us(w, r->attributed_ns);
    jw_key(w, "unattributed_us"); jw_ns_as_us(w, r->compute_ns - r->attributed_ns);
    jw_key(w, "unknown_shapes_us"); jw_ns_as_us(w, r->unknown_shapes_ns);
    jw_key(w, "module_source");
    if (r->module_source == TC_MODULES_NN_MODULE) jw_string(w, "nn.Module");
    else if (r->module_source == TC_MODULES_USER_ANNOTATION) jw_string(w, "user_annotation");
    else jw_null(w);
    jw_key(w, "families");
    jw_array_begin(w);
    for (int f = 0; f < TC_OPF_COUNT; f++) {
        if (r->family_ns[f] == 0 && r->family_flops[f] == 0) continue;
        jw_object_begin(w);
        jw_key(w, "family"); jw_string(w, tc_op_family_name((tc_op_family)f));
        jw_key(w, "gpu_time_us"); jw_ns_as_us(w, r->family_ns[f]);
        jw_key(w, "flops"); jw_double(w, r->family_flops[f]);
        jw_key(w, "mfu"); if (r->has_family_mfu) jw_double(w, r->family_mfu[f]); else jw_null(w);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_key(w, "fusion_candidates");
    jw_array_begin(w);
    for (size_t i = 0; i < r->n_fusions; i++) {
        const tc_fusion_row *f = &r->fusions[i];
        jw_object_begin(w);
        jw_key(w, "kernels"); jw_string(w, f->kernels);
        jw_key(w, "length"); jw_uint(w, f->length);
        jw_key(w, "occurrences"); jw_int(w, f->occurrences);
        jw_key(w, "gpu_time_us"); jw_ns_as_us(w, f->gpu_ns);
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_object_end(w);
}

void tc_ops_json(jw *w, const tc_job *j) {
    const tc_op_result *r = &j->ops;
    if (!r->has) return;
    jw_key(w, "ops");
    jw_array_begin(w);
    for (size_t i = 0; i < r->n_groups; i++) group(w, &r->groups[i]);
    jw_array_end(w);
    jw_key(w, "modules");
    if (!r->has_modules) jw_null(w);
    else {
        jw_array_begin(w);
        for (size_t i = 0; i < r->n_modules; i++) {
            jw_object_begin(w);
            jw_key(w, "path"); jw_string(w, r->modules[i].path);
            jw_key(w, "self_us"); jw_ns_as_us(w, r->modules[i].self_ns);
            jw_key(w, "total_us"); jw_ns_as_us(w, r->modules[i].total_ns);
            jw_object_end(w);
        }
        jw_array_end(w);
    }
    attribution(w, r);
}
