/* test_gpu_catalog.c: the GPU catalog: real device names resolve to the right entry (and ambiguous
 * or unknown ones to none), no entry shadows another, --gpu spellings, dtype mapping, peak
 * fallbacks, that every figure has a source, and the writers of reports/catalog_report.h (table
 * width, valid JSON); the link catalog (model/links.def): its figures, sources, every GPU's link,
 * and `tracecost gpus` listing it. */
#include <criterion/criterion.h>
#include "testutil.h"
#include <ctype.h>
#include <string.h>
#include <yajl/yajl_tree.h>
#include "model/gpu_catalog.h"
#include "model/link_catalog.h"
#include "reports/catalog_report.h"
#include "reports/textfmt.h"

/* Device names as real traces write them, and the entry each must resolve to (NULL: none). */
static const struct { const char *device; const char *id; } device_cases[] = {
    {"NVIDIA H100 80GB HBM3", "h100-sxm"},
    {"NVIDIA H100 PCIe", "h100-pcie"},
    {"NVIDIA H100 SXM5 80GB", "h100-sxm"},
    {"NVIDIA A100-SXM4-80GB", "a100-sxm"},
    {"NVIDIA A100-SXM4-40GB", "a100-sxm"},
    {"NVIDIA A100-PG509-200", "a100-sxm"},
    {"NVIDIA A100 80GB PCIe", "a100-pcie"},
    {"NVIDIA A100-PCIE-40GB", "a100-pcie"},
    {"Tesla V100-SXM2-32GB", "v100-sxm2"},
    {"Tesla V100-SXM2-16GB", "v100-sxm2"},
    {"Tesla V100-DGXS-32GB", "v100-sxm2"},
    {"NVIDIA B200", "b200"},
    {"NVIDIA H200", "h200"},
    {"NVIDIA H200 NVL", "h200-nvl"},
    {"NVIDIA L40S", "l40s"},
    {"AMD Instinct MI300X", "mi300x"},
    {"AMD Instinct MI250X", "mi250x"},
    {"AMD Instinct MI250X/MI250", "mi250x"},
    {"nvidia h100 80gb hbm3", "h100-sxm"},
    /* issue 17: names from real traces and vendors' tools */
    {"NVIDIA H800", "h800"},                 /* DeepSeek's profile-data */
    {"NVIDIA H20", "h20"},
    {"NVIDIA A800-SXM4-80GB", "a800-sxm"},
    {"NVIDIA A800 80GB PCIe", "a800-pcie"},
    {"NVIDIA PG509-210", "a100-sxm"},
    {"NVIDIA B300 SXM6 AC", "b300"},
    {"NVIDIA GB300", "gb300"},
    {"AMD Instinct MI210", "mi210"},
    {"AMD Instinct MI325X", "mi325x"},
    {"AMD Instinct MI355X", "mi355x"},
    /* Ambiguous or absent from the catalog: no guess. */
    {"AMD Radeon Graphics", NULL},
    {"NVIDIA GH200 480GB", NULL},
    {"NVIDIA GB200", NULL},
    {"NVIDIA H100 NVL", NULL},
    {"NVIDIA L40", NULL},
    {"Tesla V100S-PCIE-32GB", NULL},
    {"NVIDIA GeForce RTX 4090", NULL},
    {"NVIDIA H800 PCIe", NULL},               /* not the SXM part: its figures are not sourced */
    {"", NULL},
};

Test(gpu_catalog, every_listed_device_name_resolves_to_its_entry) {
    for (size_t i = 0; i < sizeof device_cases / sizeof device_cases[0]; i++) {
        const tc_gpu_spec *g = tc_gpu_find_by_device_name(device_cases[i].device);
        if (!device_cases[i].id) {
            cr_expect_null(g, "'%s' should match nothing, matched %s", device_cases[i].device,
                           g ? g->id : "");
        } else {
            cr_expect_not_null(g, "'%s' matched nothing", device_cases[i].device);
            if (g)
                cr_expect_str_eq(g->id, device_cases[i].id, "'%s' -> %s, expected %s",
                                 device_cases[i].device, g->id, device_cases[i].id);
        }
    }
    cr_expect_null(tc_gpu_find_by_device_name(NULL));
}

/* Regression guard for ordering: a name built from each pattern of an entry (a vendor word in
 * front, '*' replaced by a word) must resolve to that entry, not to one listed earlier. */
Test(gpu_catalog, no_entry_is_shadowed_by_an_earlier_one) {
    for (size_t i = 0; i < tc_gpu_count(); i++) {
        const tc_gpu_spec *g = tc_gpu_at(i);
        const char *p = g->patterns;
        while (*p) {
            char name[128] = "Vendor ";
            size_t o = strlen(name);
            for (; *p && *p != '|' && o + 4 < sizeof name; p++) {
                if (*p == '*') { memcpy(name + o, " X ", 3); o += 3; }
                else if (*p != '$') name[o++] = *p; /* '$': the name ends there */
            }
            name[o] = '\0';
            const tc_gpu_spec *found = tc_gpu_find_by_device_name(name);
            cr_expect(found == g, "'%s' (pattern of %s) resolved to %s", name, g->id,
                      found ? found->id : "nothing");
            if (*p == '|') p++;
        }
    }
}

Test(gpu_catalog, gpu_flag_accepts_id_display_name_and_device_name) {
    static const struct { const char *arg; const char *id; } cases[] = {
        {"h100-sxm", "h100-sxm"},           {"H100-SXM", "h100-sxm"},
        {"h100 sxm", "h100-sxm"},           {"h100_sxm", "h100-sxm"},
        {"NVIDIA H100 SXM 80GB", "h100-sxm"}, {"MI300X", "mi300x"},
        {"b200", "b200"},                   {"NVIDIA H100 80GB HBM3", "h100-sxm"},
        {"AMD MI250X (one GCD)", "mi250x"}, {"nvidia a100 pcie 80gb", "a100-pcie"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tc_gpu_spec *g = tc_gpu_find_by_id(cases[i].arg);
        cr_expect_not_null(g, "--gpu '%s' found nothing", cases[i].arg);
        if (g) cr_expect_str_eq(g->id, cases[i].id, "--gpu '%s' -> %s", cases[i].arg, g->id);
    }
    cr_expect_null(tc_gpu_find_by_id("h100"));
    cr_expect_null(tc_gpu_find_by_id("tpu-v5"));
    cr_expect_null(tc_gpu_find_by_id("---"));
    cr_expect_null(tc_gpu_find_by_id(""));
    cr_expect_null(tc_gpu_find_by_id(NULL));
    for (size_t i = 0; i < tc_gpu_count(); i++) {
        cr_expect_eq(tc_gpu_find_by_id(tc_gpu_at(i)->id), tc_gpu_at(i));
        cr_expect_eq(tc_gpu_find_by_id(tc_gpu_at(i)->name), tc_gpu_at(i));
    }
}

Test(gpu_catalog, torch_input_types_map_to_dtypes) {
    static const struct { const char *s; tc_dtype d; } cases[] = {
        {"c10::BFloat16", TC_DTYPE_BF16},      {"c10::Half", TC_DTYPE_FP16},
        {"float", TC_DTYPE_FP32},              {"c10::Float8_e4m3fn", TC_DTYPE_FP8},
        {"c10::Float8_e5m2", TC_DTYPE_FP8},    {"c10::Float8_e4m3fnuz", TC_DTYPE_FP8},
        {"c10::Float8_e5m2fnuz", TC_DTYPE_FP8}, {"BFloat16", TC_DTYPE_BF16},
        {"torch.float16", TC_DTYPE_FP16},      {"torch.bfloat16", TC_DTYPE_BF16},
        {"Float", TC_DTYPE_FP32},              {"double", TC_DTYPE_UNKNOWN},
        {"long int", TC_DTYPE_UNKNOWN},        {"int", TC_DTYPE_UNKNOWN},
        {"bool", TC_DTYPE_UNKNOWN},            {"c10::complex<float>", TC_DTYPE_UNKNOWN},
        {"Scalar", TC_DTYPE_UNKNOWN},          {"", TC_DTYPE_UNKNOWN},
        {"c10::Float4_e2m1fn_x2", TC_DTYPE_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_eq(tc_dtype_from_torch(cases[i].s), cases[i].d, "'%s' -> %d, expected %d",
                     cases[i].s, tc_dtype_from_torch(cases[i].s), cases[i].d);
    cr_expect_eq(tc_dtype_from_torch(NULL), TC_DTYPE_UNKNOWN);
    cr_expect_str_eq(tc_dtype_name(TC_DTYPE_BF16), "bf16");
    cr_expect_str_eq(tc_dtype_name(TC_DTYPE_UNKNOWN), "unknown");
}

Test(gpu_catalog, peak_flops_with_fallback_notes) {
    const char *note = "sentinel";
    const tc_gpu_spec *h100 = tc_gpu_find_by_id("h100-sxm");
    const tc_gpu_spec *v100 = tc_gpu_find_by_id("v100-sxm2");
    const tc_gpu_spec *a100 = tc_gpu_find_by_id("a100-sxm");
    const tc_gpu_spec *mi250 = tc_gpu_find_by_id("mi250x");
    cr_assert(h100 && v100 && a100 && mi250);

    cr_expect_float_eq(tc_gpu_peak_flops(h100, TC_DTYPE_BF16, &note), 989.4e12, 1e6);
    cr_expect_null(note);
    cr_expect_float_eq(tc_gpu_peak_flops(h100, TC_DTYPE_FP8, &note), 1978.9e12, 1e6);
    cr_expect_null(note);
    cr_expect_float_eq(tc_gpu_peak_flops(h100, TC_DTYPE_TF32, &note), 494.7e12, 1e6);
    cr_expect_float_eq(tc_gpu_peak_flops(h100, TC_DTYPE_FP32, &note), 66.9e12, 1e6);

    /* V100: no TF32 or BF16 tensor cores -> FP32; FP8 -> FP16 tensor peak. */
    cr_expect_float_eq(tc_gpu_peak_flops(v100, TC_DTYPE_TF32, &note), 15.7e12, 1e6);
    cr_expect(note && strstr(note, "TF32") && strstr(note, "FP32"));
    cr_expect_float_eq(tc_gpu_peak_flops(v100, TC_DTYPE_BF16, &note), 15.7e12, 1e6);
    cr_expect(note && strstr(note, "BF16"));
    cr_expect_float_eq(tc_gpu_peak_flops(v100, TC_DTYPE_FP16, &note), 125e12, 1e6);
    cr_expect_null(note);
    cr_expect_float_eq(tc_gpu_peak_flops(v100, TC_DTYPE_FP8, &note), 125e12, 1e6);
    cr_expect(note && strstr(note, "FP8") && strstr(note, "FP16"));

    /* A100: FP8 -> FP16 peak with a note. */
    cr_expect_float_eq(tc_gpu_peak_flops(a100, TC_DTYPE_FP8, &note), 312e12, 1e6);
    cr_expect(note && strstr(note, "FP8"));
    /* MI250X (per GCD): TF32 -> FP32 matrix peak. */
    cr_expect_float_eq(tc_gpu_peak_flops(mi250, TC_DTYPE_TF32, &note), 47.85e12, 1e6);
    cr_expect_not_null(note);

    /* an unsourced figure is unknown, and so is a fallback onto one (never a guess) */
    const tc_gpu_spec *mi355 = tc_gpu_find_by_id("mi355x");
    cr_assert(mi355);
    cr_expect_eq(tc_gpu_peak_flops(mi355, TC_DTYPE_BF16, &note), 0);
    cr_expect(note && strstr(note, "no sourced peak"));
    cr_expect_eq(tc_gpu_peak_flops(mi355, TC_DTYPE_FP8, &note), 0);
    cr_expect(note && strstr(note, "no sourced peak"));

    cr_expect_eq(tc_gpu_peak_flops(NULL, TC_DTYPE_BF16, &note), 0);
    cr_expect(note && strstr(note, "--gpu"));
    cr_expect_eq(tc_gpu_peak_flops(h100, TC_DTYPE_UNKNOWN, &note), 0);
    cr_expect_not_null(note);
    cr_expect_float_eq(tc_gpu_peak_flops(h100, TC_DTYPE_BF16, NULL), 989.4e12, 1e6);
}

/* The datasheet figures marked [REF] in gpus.def, pinned so an edit there cannot drift from them. */
Test(gpu_catalog, reference_md_figures) {
    static const struct { const char *id; double fp32, tf32, bf16, fp8, tdp; } ref[] = {
        {"a100-sxm", 19.5, 156, 312, 0, 400},       {"h100-sxm", 66.9, 494.7, 989.4, 1978.9, 700},
        {"h200", 66.9, 494.7, 989.4, 1978.9, 700},  {"b200", 75, 1100, 2250, 4500, 1000},
        {"mi300x", 163.4, 653.7, 1307.4, 2614.9, 750}, {"v100-sxm2", 15.7, 0, 0, 0, 300},
        {"h100-pcie", 51.2, 378, 756, 1513, 350},
    };
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        const tc_gpu_spec *g = tc_gpu_find_by_id(ref[i].id);
        cr_assert_not_null(g, "%s missing", ref[i].id);
        cr_expect_float_eq(g->peak_tflops[TC_DTYPE_FP32], ref[i].fp32, 1e-9, "%s fp32", ref[i].id);
        cr_expect_float_eq(g->peak_tflops[TC_DTYPE_TF32], ref[i].tf32, 1e-9, "%s tf32", ref[i].id);
        cr_expect_float_eq(g->peak_tflops[TC_DTYPE_BF16], ref[i].bf16, 1e-9, "%s bf16", ref[i].id);
        cr_expect_float_eq(g->peak_tflops[TC_DTYPE_FP8], ref[i].fp8, 1e-9, "%s fp8", ref[i].id);
        cr_expect_float_eq(g->tdp_W, ref[i].tdp, 1e-9, "%s tdp", ref[i].id);
        cr_expect(strstr(g->flops_source, "[REF]") != NULL, "%s flops source not marked", ref[i].id);
    }
    cr_expect_float_eq(tc_gpu_find_by_id("v100-sxm2")->peak_tflops[TC_DTYPE_FP16], 125, 1e-9);
    cr_expect_float_eq(tc_gpu_find_by_id("h200")->mem_bandwidth_GBps, 4800, 1e-9);
}

static bool is_yyyy_mm(const char *s) {
    return strlen(s) == 7 && isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1]) &&
           isdigit((unsigned char)s[2]) && isdigit((unsigned char)s[3]) && s[4] == '-' &&
           isdigit((unsigned char)s[5]) && isdigit((unsigned char)s[6]);
}

Test(gpu_catalog, every_entry_is_complete_and_sourced) {
    static const char *const required[] = {"h100-sxm", "h100-pcie", "h200", "a100-sxm",
                                           "a100-pcie", "b200", "l40s", "v100-sxm2",
                                           "mi300x", "mi250x", /* issue 17: */ "h800", "h20",
                                           "a800-sxm", "a800-pcie", "b300", "gb300", "mi210",
                                           "mi325x", "mi355x"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        cr_expect_not_null(tc_gpu_find_by_id(required[i]), "%s missing", required[i]);
    cr_expect_null(tc_gpu_at(tc_gpu_count()));
    for (size_t i = 0; i < tc_gpu_count(); i++) {
        const tc_gpu_spec *g = tc_gpu_at(i);
        cr_expect(g->id && *g->id && g->name && *g->name && g->patterns && *g->patterns);
        cr_expect(strlen(g->name) <= 22, "%s: display name longer than its column", g->id);
        for (size_t j = 0; j < i; j++) cr_expect_str_neq(g->id, tc_gpu_at(j)->id);
        /* FP32 and FP16 are given, or marked unsourced (unknown): never left as "unsupported" */
        cr_expect(g->peak_tflops[TC_DTYPE_FP32] != 0, "%s: no FP32 peak", g->id);
        cr_expect(g->peak_tflops[TC_DTYPE_FP16] != 0, "%s: no FP16 peak", g->id);
        for (int d = 0; d < TC_DTYPE_COUNT; d++)
            cr_expect((g->peak_tflops[d] >= 0 || g->peak_tflops[d] == TC_GPU_UNSOURCED) && g->peak_tflops[d] < 100000,
                      "%s: peak %d", g->id, d);
        bool unsourced = false;
        for (int d = 0; d < TC_DTYPE_COUNT; d++) unsourced |= g->peak_tflops[d] == TC_GPU_UNSOURCED;
        if (unsourced) cr_expect(strstr(g->flops_source, "unsourced") != NULL, "%s: say which figures are unsourced", g->id);
        cr_expect(g->mem_bandwidth_GBps > 0 && g->tdp_W > 0, "%s: bandwidth/TDP", g->id);
        cr_expect(g->rent_usd_per_hour > 0 && g->purchase_usd > 0, "%s: prices", g->id);
        cr_expect(g->flops_source && strlen(g->flops_source) > 5, "%s: flops source", g->id);
        cr_expect(g->spec_source && strlen(g->spec_source) > 5, "%s: spec source", g->id);
        cr_expect(g->rent_source && strlen(g->rent_source) > 5, "%s: rent source", g->id);
        cr_expect(g->purchase_source && strlen(g->purchase_source) > 5, "%s: buy source", g->id);
        cr_expect(is_yyyy_mm(g->rent_date), "%s: rent date '%s'", g->id, g->rent_date);
        cr_expect(is_yyyy_mm(g->purchase_date), "%s: buy date '%s'", g->id, g->purchase_date);
    }
}

Test(gpu_catalog, table_fits_100_columns_and_lists_every_gpu_and_source) {
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    tc_gpu_catalog_print(f);
    cr_assert(!ferror(f));
    char *text = tu_read_stream(f);
    fclose(f);
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char save = line[len];
        line[len] = '\0';
        cr_expect(tc_fmt_width(line) <= 100, "line of %zu columns: %s", tc_fmt_width(line), line);
        line[len] = save;
        line += len + (nl ? 1 : 0);
    }
    for (size_t i = 0; i < tc_gpu_count(); i++) {
        cr_expect(strstr(text, tc_gpu_at(i)->id) != NULL);
        cr_expect(strstr(text, tc_gpu_at(i)->rent_date) != NULL);
    }
    cr_expect(strstr(text, "AWS capacity blocks") != NULL);
    free(text);
}

Test(gpu_catalog, json_is_valid_and_complete) {
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    jw w;
    jw_init(&w, f, false);
    tc_gpu_catalog_json(&w);
    cr_assert_eq(jw_finish(&w), 0);
    char *text = tu_read_stream(f);
    fclose(f);
    char errbuf[256];
    yajl_val root = yajl_tree_parse(text, errbuf, sizeof errbuf);
    cr_assert_not_null(root, "invalid JSON: %s", errbuf);
    cr_assert(YAJL_IS_ARRAY(root));
    cr_expect_eq(root->u.array.len, tc_gpu_count());
    const char *fp8_path[] = {"peak_tflops", "fp8", NULL};
    const char *rent_path[] = {"rent", "usd_per_gpu_hour", NULL};
    const char *date_path[] = {"purchase", "date", NULL};
    for (size_t i = 0; i < root->u.array.len; i++) {
        yajl_val g = root->u.array.values[i];
        const char *id_path[] = {"id", NULL};
        yajl_val id = yajl_tree_get(g, id_path, yajl_t_string);
        cr_assert_not_null(id);
        const tc_gpu_spec *spec = tc_gpu_find_by_id(YAJL_GET_STRING(id));
        cr_assert_not_null(spec);
        yajl_val fp8 = yajl_tree_get(g, fp8_path, yajl_t_any);
        cr_assert_not_null(fp8);
        if (spec->peak_tflops[TC_DTYPE_FP8] > 0) cr_expect(YAJL_IS_NUMBER(fp8));
        else cr_expect(YAJL_IS_NULL(fp8));
        cr_expect_not_null(yajl_tree_get(g, rent_path, yajl_t_number));
        cr_expect_not_null(yajl_tree_get(g, date_path, yajl_t_string));
    }
    yajl_tree_free(root);
    free(text);
}

/* ---- the link catalog (model/links.def) ---- */

/* The figures issue 19 fixes: per GPU, one direction, GB = 1e9 B; a NIC's line rate / 8. */
Test(link_catalog, rated_figures) {
    static const struct { const char *id; double rated; tc_link_scope scope; } want[] = {
        {"nvlink2", 150, TC_LINK_INTRA},  {"nvlink3", 300, TC_LINK_INTRA},   {"nvlink4", 450, TC_LINK_INTRA},
        {"nvlink5", 900, TC_LINK_INTRA},  {"if-mi300x", 448, TC_LINK_INTRA}, {"pcie4", 32, TC_LINK_INTRA},
        {"pcie5", 64, TC_LINK_INTRA},     {"ib-edr", 12.5, TC_LINK_INTER},   {"ib-hdr", 25, TC_LINK_INTER},
        {"ib-ndr", 50, TC_LINK_INTER},    {"ib-xdr", 100, TC_LINK_INTER},    {"eth-25g", 3.125, TC_LINK_INTER},
        {"eth-100g", 12.5, TC_LINK_INTER}, {"eth-200g", 25, TC_LINK_INTER},  {"eth-400g", 50, TC_LINK_INTER},
        {"eth-800g", 100, TC_LINK_INTER},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const tc_link_spec *l = tc_link_find(want[i].id);
        cr_assert_not_null(l, "%s missing", want[i].id);
        cr_expect_eq(l->rated_GBps, want[i].rated, "%s: %g GB/s", want[i].id, l->rated_GBps);
        cr_expect_eq(l->scope, want[i].scope, "%s", want[i].id);
    }
    cr_expect_eq(tc_link_find("IB_NDR"), tc_link_find("ib-ndr"), "ids match as --gpu's do");
    cr_expect_null(tc_link_find("ib-qdr"));
    cr_expect_null(tc_link_find("--"));
    cr_expect_str_eq(tc_link_of_gpu(tc_gpu_find_by_id("h100-sxm"))->id, "nvlink4");
    cr_expect_str_eq(tc_link_of_gpu(tc_gpu_find_by_id("b200"))->id, "nvlink5");
    cr_expect_str_eq(tc_link_of_gpu(tc_gpu_find_by_id("mi300x"))->id, "if-mi300x");
    cr_expect_str_eq(tc_link_of_gpu(tc_gpu_find_by_id("l40s"))->id, "pcie4");
    cr_expect_null(tc_link_of_gpu(NULL));
}

Test(link_catalog, every_link_is_sourced_and_every_gpu_has_one) {
    for (size_t i = 0; i < tc_link_count(); i++) {
        const tc_link_spec *l = tc_link_at(i);
        cr_expect(l->id && *l->id && l->name && *l->name);
        cr_expect(strlen(l->name) <= 18, "%s: display name longer than its column", l->id);
        for (size_t j = 0; j < i; j++) cr_expect_str_neq(l->id, tc_link_at(j)->id);
        cr_expect(l->rated_GBps > 0, "%s: no rated figure", l->id);
        cr_expect(l->source && strlen(l->source) > 10, "%s: no source", l->id);
        cr_expect(is_yyyy_mm(l->date), "%s: date '%s'", l->id, l->date);
        if (l->scope == TC_LINK_INTER) cr_expect_eq(l->rated_GBps, l->line_Gbps / 8, "%s: a NIC's line rate / 8", l->id);
        else cr_expect_eq(l->line_Gbps, 0, "%s", l->id);
    }
    cr_expect_null(tc_link_at(tc_link_count()));
    for (size_t i = 0; i < tc_gpu_count(); i++) {
        const tc_link_spec *l = tc_link_of_gpu(tc_gpu_at(i));
        cr_expect_not_null(l, "%s has no link in model/links.def (GPU_LINK)", tc_gpu_at(i)->id);
        if (l) cr_expect_eq(l->scope, TC_LINK_INTRA, "%s: its own link is inside a node", tc_gpu_at(i)->id);
    }
    char ids[256];
    cr_expect_str_eq(tc_link_ids(ids, sizeof ids, TC_LINK_INTER),
                     "ib-edr, ib-hdr, ib-ndr, ib-xdr, eth-25g, eth-100g, eth-200g, eth-400g, eth-800g");
}

/* `tracecost gpus` lists every link with its source (text, 100 columns) and --json / --links --json
 * give each GPU's link and the whole link catalog. */
Test(link_catalog, gpus_command_lists_the_links) {
    char *out = NULL;
    cr_assert_eq(tu_sh(&out, "%s gpus", tu_bin()), 0);
    tu_expect_width(out, 100);
    for (char *p = out, *o = out;; p++) { /* unwrapped: a source may take two lines */
        if (*p == '\n') { while (p[1] == ' ') p++; *o++ = ' '; } else if (!(*o++ = *p)) break;
    }
    for (size_t i = 0; i < tc_link_count(); i++) {
        cr_expect_not_null(strstr(out, tc_link_at(i)->id), "%s not listed", tc_link_at(i)->id);
        cr_expect_not_null(strstr(out, tc_link_at(i)->source), "%s: source not listed", tc_link_at(i)->id);
    }
    cr_expect_not_null(strstr(out, "link inside a node: nvlink4 (NVLink 4, 450 GB/s a direction)"), "%s", out);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s gpus --json", tu_bin()), 0);
    char err[256];
    yajl_val v = yajl_tree_parse(out, err, sizeof err);
    cr_assert_not_null(v, "%s", err);
    for (size_t i = 0; i < v->u.array.len; i++) {
        yajl_val g = v->u.array.values[i];
        yajl_val id = tu_get(g, "id", NULL), link = tu_get(g, "link", NULL);
        cr_assert(link && YAJL_IS_STRING(link), "%s: no link", YAJL_GET_STRING(id));
        cr_expect_eq(tc_link_find(YAJL_GET_STRING(link)), tc_link_of_gpu(tc_gpu_find_by_id(YAJL_GET_STRING(id))));
    }
    yajl_tree_free(v);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s gpus --links --json", tu_bin()), 0);
    v = yajl_tree_parse(out, err, sizeof err);
    cr_assert_not_null(v, "%s", err);
    cr_assert(YAJL_IS_ARRAY(v));
    cr_assert_eq(v->u.array.len, tc_link_count());
    yajl_val ndr = v->u.array.values[tc_link_find("ib-ndr") - tc_link_at(0)];
    cr_expect_str_eq(YAJL_GET_STRING(tu_get(ndr, "scope", NULL)), "inter-node");
    cr_expect_eq(tu_num(tu_get(ndr, "rated_busbw_GBps", NULL)), 50);
    cr_expect_eq(tu_num(tu_get(ndr, "line_rate_Gbps", NULL)), 400);
    cr_expect(YAJL_IS_NULL(tu_get(v->u.array.values[0], "line_rate_Gbps", NULL)));
    yajl_tree_free(v);
    free(out);
    cr_assert_eq(tu_sh(&out, "%s gpus --links", tu_bin()), 0);
    cr_expect_null(strstr(out, "h100-sxm"), "--links lists only the links");
    cr_expect_not_null(strstr(out, "eth-800g"));
    free(out);
}

/* True when text has a line "ID<spaces>NAME<space>..." whose fields start in the header's columns
 * (hdr_id at 0, hdr_name at the name column). */
static bool row_whole(const char *text, const char *hdr, const char *id, const char *name) {
    const char *h = strstr(text, hdr);
    if (!h) return false;
    h++; /* hdr starts with its newline */
    size_t name_col = (size_t)(strstr(h, " name") + 1 - h);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        size_t n = strlen(id);
        if (strncmp(p, id, n) || p[n] != ' ') continue;
        return !strncmp(p + name_col, name, strlen(name)) && p[name_col + strlen(name)] == ' ' && p[name_col - 1] == ' ';
    }
    return false;
}

/* Issue 31 item 6: the id and name columns of the gpus and links tables are as wide as the longest
 * entry, at every terminal width: `nvlink4-h800` is never `nvlink4-h8`. */
Test(link_catalog, ids_and_names_are_never_cut) {
    static const int widths[] = {80, 100, 120};
    for (size_t c = 0; c < sizeof widths / sizeof *widths; c++) {
        char *out = NULL;
        cr_assert_eq(tu_sh(&out, "COLUMNS=%d %s gpus", widths[c], tu_bin()), 0);
        for (size_t i = 0; i < tc_gpu_count(); i++)
            cr_expect(row_whole(out, "\nid ", tc_gpu_at(i)->id, tc_gpu_at(i)->name), "%d columns: gpu row %s (%s) cut",
                      widths[c], tc_gpu_at(i)->id, tc_gpu_at(i)->name);
        for (size_t i = 0; i < tc_link_count(); i++)
            cr_expect(row_whole(out, "\nlink ", tc_link_at(i)->id, tc_link_at(i)->name), "%d columns: link row %s (%s) cut",
                      widths[c], tc_link_at(i)->id, tc_link_at(i)->name);
        cr_expect_null(strstr(out, "nvlink4-h8 "));
        free(out);
    }
}
