/* test_comm_kernels.c: which kernels are communication (model/comm_kernels.h): every NCCL/RCCL name
 * generation and every other library of the catalog by real kernel names, the local compute kernels
 * it carves out, names that stay compute, the docs' list held to comm_kernels.def, user patterns
 * (--comm-kernel) and the one classifier that applies them with the catalog, and what the parser
 * makes of a kernel by its name, its args or a pattern, with -j1 and -j2. */
#include "testutil.h"
#include "model/comm_kernels.h"
#include "model/trace.h"
#include "parsers/chrome_trace.h"
#include "parsers/load.h"
#include "parsers/parallel.h"
#include "parsers/source.h"
#include <regex.h>

typedef struct { const char *name; uint8_t lib; } named;

/* Real names (from traces, or the kernels' sources as Kineto spells them) and their library. */
static const named comm[] = {
    {"ncclAllReduceRingLLKernel_sum_f32(ncclColl)", TC_COMM_NCCL},
    {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", TC_COMM_NCCL},
    {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", TC_COMM_NCCL},
    {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", TC_COMM_NCCL},
    {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", TC_COMM_NCCL},
    {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", TC_COMM_NCCL},
    {"ncclSymDevKernel_AllReduce_AGxLL_R_bf16(ncclSymDevArgs)", TC_COMM_NCCL},
    {"ncclSymkDevKernel_AllGather_LL(ncclSymkDevWorkArgs4K)", TC_COMM_NCCL},
    {"void ncclKernel_AllReduce_RING_LL_Sum_half(ncclDevComm*, unsigned long, ncclWork*)", TC_COMM_NCCL},
    {"void ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", TC_COMM_NCCL},
    {"ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)", TC_COMM_RCCL},
    {"ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)", TC_COMM_RCCL},
    {"rcclGenericKernel<1>(ncclDevComm*)", TC_COMM_RCCL},
    {"mscclKernel_Sum_bf16_LL128(ncclDevComm*, mscclAlgo*, mscclWork*)", TC_COMM_RCCL},
    /* the B200 trace in tests/data/ref */
    {"void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, unsigned int**, unsigned long, unsigned long)", TC_COMM_SYMM_MEM},
    {"void (anonymous namespace)::one_shot_all_reduce_kernel<c10::BFloat16, 16, 8>(c10::BFloat16**, c10::BFloat16*, c10::BFloat16*, unsigned long, unsigned long, unsigned int**, unsigned long, unsigned long)", TC_COMM_SYMM_MEM},
    {"void (anonymous namespace)::multimem_all_gather_kernel<16>(char*, char*, unsigned long, unsigned int**, unsigned long, unsigned long)", TC_COMM_SYMM_MEM},
    {"void c10d::intra_node_comm::oneShotAllReduceKernel<8u, true>(c10::BFloat16*, unsigned long, unsigned long, c10d::intra_node_comm::P2pState**, c10::BFloat16**, unsigned long)", TC_COMM_INTRA_NODE_COMM},
    /* open-source DeepEP, and DeepSeek's own build (its V3 training profile) */
    {"void deep_ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*, float*)", TC_COMM_DEEPEP},
    {"void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(__nv_bfloat16*, float*)", TC_COMM_DEEPEP},
    {"void deep_ep::internode_ll::dispatch<true, 3, 7168>(void*, float*, int*, long*)", TC_COMM_DEEPEP},
    {"void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*, bool const*)", TC_COMM_DEEPEP},
    {"void dpsk::ep::internode::cached_notify<false>(int, int, int, int, int*, int, int, int const*)", TC_COMM_DEEPEP},
    {"void dpsk::ep::internode::notify_dispatch<false, 8>(int const*, long*, int, int const*)", TC_COMM_DEEPEP},
    {"void allreduce8<__nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*, mscclpp::DeviceHandle<mscclpp::MemoryChannel>*, unsigned long)", TC_COMM_MSCCLPP},
    {"void fcollect_on_stream_kernel<int>(nvshmem_team_t, int*, int const*, unsigned long)", TC_COMM_NVSHMEM},
    {"void rocshmem::rocshmem_reduce_on_stream_kernel<float, (rocshmem::ROCSHMEM_OP)0>(int, float*)", TC_COMM_ROCSHMEM},
    {"void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)", TC_COMM_VLLM},
    {"void quickreduce::allreduce_prototype_twoshot<quickreduce::AllReduceTwoshot<__hip_bfloat16, quickreduce::CodecQ4<__hip_bfloat16, 8>, true>>(__hip_bfloat16 const*, __hip_bfloat16*, unsigned int, int, int, unsigned char**, unsigned int, unsigned int)", TC_COMM_VLLM},
    {"void sglang::cross_device_reduce_1stage<__nv_bfloat16, 8>(sglang::RankData*, sglang::RankSignals, sglang::Signal*, __nv_bfloat16*, int, int)", TC_COMM_SGLANG},
    {"void aiter::cross_device_reduce_1stage<__hip_bfloat16, 8>(aiter::RankData*, aiter::RankSignals, aiter::Signal*, __hip_bfloat16*, int, int)", TC_COMM_AITER},
    {"void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8, false, false>(tensorrt_llm::kernels::AllReduceParams)", TC_COMM_TRTLLM},
    {"void flashinfer::trtllm_allreduce_fusion::allreduce_fusion_kernel_oneshot_lamport<__nv_bfloat16, 8, (flashinfer::trtllm_allreduce_fusion::AllReduceFusionPattern)1>(flashinfer::trtllm_allreduce_fusion::AllReduceFusionParams<__nv_bfloat16>)", TC_COMM_TRTLLM},
    {"void cross_device_reduce_1stage<half, 4>(RankData*, RankSignals, Signal*, half*, int, int)", TC_COMM_CUSTOM_AR},
};

static const char *const compute[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float>>",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
    "Memcpy HtoD (Pageable -> Device)",
    "NCCL_helper_like_but_not_nccl_prefix",
    "bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x64_cga1x1x1_16dp256b_TN_transOut_schedS",
    /* layout kernels of expert-parallel libraries: local compute (DeepSeek's, DeepEP's, an old DeepEP's) */
    "void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int, int)",
    "void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int, int)",
    "void deep_ep::internode::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int, int)",
    "void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>(dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel::Params)",
    "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1",
};

Test(comm_kernels, every_library_by_real_names) {
    for (size_t i = 0; i < sizeof comm / sizeof *comm; i++) {
        uint8_t lib = tc_comm_kernel_lib(NULL, comm[i].name, strlen(comm[i].name));
        cr_expect_eq(lib, comm[i].lib, "%s: %s, expected %s", comm[i].name, tc_comm_lib_name(lib), tc_comm_lib_name(comm[i].lib));
    }
    for (size_t i = 0; i < sizeof compute / sizeof *compute; i++)
        cr_expect_eq(tc_comm_kernel_lib(NULL, compute[i], strlen(compute[i])), TC_COMM_NO, "%s is compute", compute[i]);
    /* a name's bytes, not its C string: a NUL inside does not end it */
    cr_expect_eq(tc_comm_kernel_lib(NULL, "x\0ncclKernel_x", 14), TC_COMM_NCCL);
    cr_expect_str_eq(tc_comm_lib_name(TC_COMM_ARGS), "collective args");
    cr_expect_str_eq(tc_comm_lib_name(TC_COMM_USER), "--comm-kernel");
    cr_expect_str_eq(tc_comm_lib_name(TC_COMM_NO), "");
    cr_expect_str_eq(tc_comm_lib_name(200), "");
}

/* The catalog's rule, tried the plain way: the first rule whose text starts (PREFIX) or occurs
 * anywhere in (CONTAINS) the name's bytes. */
static uint8_t first_rule(const char *name, size_t len) {
    for (size_t i = 0; i < tc_comm_rule_count(); i++) {
        const char *text, *why;
        bool prefix;
        uint8_t lib;
        tc_comm_rule_at(i, &text, &prefix, &lib, &why);
        size_t m = strlen(text);
        bool hit = false;
        for (size_t at = 0; !hit && at + m <= len && (at == 0 || !prefix); at++) hit = memcmp(name + at, text, m) == 0;
        if (hit) return lib;
    }
    return TC_COMM_NO;
}

/* With the index (the byte masks a parser keeps) and without, every name gets the first rule that
 * matches it: the real names above, each rule's text alone, cut by a byte, inside noise of every byte
 * value (0x80 and up, NUL, the text's bytes with the bit 6 flipped, which the old 64-bit fold
 * mistook for others), and two rules in one name (the first in the catalog decides). */
Test(comm_kernels, the_byte_masks_only_skip_rules_that_cannot_match) {
    tc_comm_index ix;
    tc_comm_index_init(&ix);
    char name[400];
    unsigned seed = 12345;
    size_t checked = 0;
    for (size_t i = 0; i < sizeof comm / sizeof *comm + sizeof compute / sizeof *compute; i++) {
        const char *n = i < sizeof comm / sizeof *comm ? comm[i].name : compute[i - sizeof comm / sizeof *comm];
        cr_expect_eq(tc_comm_kernel_lib(&ix, n, strlen(n)), first_rule(n, strlen(n)), "%s", n);
    }
    for (size_t r = 0; r < tc_comm_rule_count(); r++)
        for (size_t q = 0; q < tc_comm_rule_count(); q++)
            for (int noise = 0; noise < 6; noise++) {
                const char *a, *b, *why;
                bool prefix;
                uint8_t lib;
                tc_comm_rule_at(r, &a, &prefix, &lib, &why);
                tc_comm_rule_at(q, &b, &prefix, &lib, &why);
                size_t len = 0;
                for (int k = 0; k < noise * 7; k++) { /* noise: any byte, or a letter of a text with bit 6 flipped */
                    seed = seed * 1103515245u + 12345u;
                    unsigned v = seed >> 16;
                    name[len++] = (char)(v & 1 ? (v >> 1) & 0xff : (unsigned char)a[(v >> 1) % strlen(a)] ^ 0x40);
                }
                size_t la = strlen(a) - (noise == 5), lb = strlen(b); /* noise 5: the first text cut short */
                memcpy(name + len, a, la);
                len += la;
                if (noise % 2) { name[len++] = (char)0xC3; memcpy(name + len, b, lb); len += lb; }
                cr_expect_eq(tc_comm_kernel_lib(&ix, name, len), first_rule(name, len), "rules %zu and %zu, noise %d", r, q, noise);
                cr_expect_eq(tc_comm_kernel_lib(NULL, name, len), first_rule(name, len));
                checked++;
            }
    cr_expect_gt(checked, 1000);
}

/* docs/definitions.md lists every rule of comm_kernels.def (its text, in backquotes, on a row that
 * names the library) and every library. */
Test(comm_kernels, definitions_md_lists_the_catalog) {
    char *doc = tu_read_file("docs/definitions.md", NULL);
    char *sect = strstr(doc, "## Communication kernels");
    cr_assert(sect, "docs/definitions.md has no \"## Communication kernels\" section");
    char *end = strstr(sect + 3, "\n## ");
    if (end) *end = 0;
    for (size_t i = 0; i < tc_comm_rule_count(); i++) {
        const char *text, *why;
        bool prefix;
        uint8_t lib;
        cr_assert(tc_comm_rule_at(i, &text, &prefix, &lib, &why));
        char want[200];
        snprintf(want, sizeof want, "`%s`", text);
        char *row = strstr(sect, want);
        cr_expect(row, "the docs do not list %s", want);
        if (!row) continue;
        char *eol = strchr(row, '\n'), *bol = row;
        while (bol > sect && bol[-1] != '\n') bol--;
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)((eol ? eol : row + strlen(row)) - bol), bol);
        const char *libname = lib ? tc_comm_lib_name(lib) : "not communication";
        cr_expect(strstr(line, libname), "the docs' row of %s does not name %s: %s", want, libname, line);
        cr_expect(strstr(line, prefix ? "starts with" : "contains"), "the docs' row of %s does not say how it matches", want);
    }
    for (uint8_t lib = 1; lib < TC_COMM_LIB_COUNT; lib++)
        cr_expect(strstr(sect, tc_comm_lib_name(lib)), "the docs do not name %s", tc_comm_lib_name(lib));
    free(doc);
}

/* One parse of doc (in one feed) with the user's patterns p. */
static void parse_with(tc_trace *t, const char *doc, const tc_comm_patterns *p) {
    cr_assert_eq(tc_trace_init(t, "x"), 0);
    tc_ct_parser *ps = tc_ct_parser_new(t);
    tc_ct_parser_set_comm(ps, p);
    cr_assert_eq(tc_ct_parser_feed(ps, doc, strlen(doc)), 0);
    cr_assert_eq(tc_ct_parser_finish(ps), 0);
    tc_ct_parser_free(ps);
}

Test(comm_kernels, user_patterns_are_checked_and_classify_kernels_after_the_catalog_and_args) {
    tc_comm_patterns *p = tc_comm_patterns_new();
    char err[400];
    cr_assert_eq(tc_comm_patterns_add(p, "([unclosed", err, sizeof err), -1);
    cr_expect(strstr(err, "'([unclosed' is not a valid regular expression"), "%s", err);
    cr_assert_eq(tc_comm_patterns_add(p, "", err, sizeof err), -1);
    cr_expect(strstr(err, "an empty pattern would make every kernel communication"), "%s", err);
    cr_assert_eq(tc_comm_patterns_add(p, "nccl|", err, sizeof err), -1);
    cr_expect(strstr(err, "'nccl|' matches the empty string"), "%s", err);
    cr_assert_eq(tc_comm_patterns_add(p, "(a*)\\1b", err, sizeof err), -1);
    cr_expect(strstr(err, "back-references"), "%s", err);
    cr_expect_eq(tc_comm_patterns_count(p), 0);
    cr_assert_eq(tc_comm_patterns_add(p, "^my_allreduce", err, sizeof err), 0, "%s", err);
    cr_assert_eq(tc_comm_patterns_add(p, "alltoall_v[0-9]+", err, sizeof err), 0, "%s", err);
    cr_assert_eq(tc_comm_patterns_add(p, "SendRecv|get_dispatch_layout", err, sizeof err), 0, "%s", err);
    cr_expect_eq(tc_comm_patterns_count(p), 3);
    cr_expect_str_eq(tc_comm_patterns_at(p, 1), "alltoall_v[0-9]+");
    const char *doc = "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"my_allreduce_bf16\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2},"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"x_my_allreduce\",\"pid\":0,\"tid\":7,\"ts\":3,\"dur\":2},"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void ep::alltoall_v2<8>(int)\",\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":2},"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"my_allreduce_bf16\",\"pid\":0,\"tid\":7,\"ts\":7,\"dur\":2},"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_SendRecv()\",\"pid\":0,\"tid\":7,\"ts\":9,\"dur\":2},"
                      "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"my_allreduce\",\"pid\":0,\"tid\":7,\"ts\":11,\"dur\":2},"
                      /* excluded by the catalog (local compute), then matched by a pattern */
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void deep_ep::layout::get_dispatch_layout<256>()\",\"pid\":0,"
                      "\"tid\":7,\"ts\":13,\"dur\":2},"
                      /* its args make it communication before any pattern */
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"my_allreduce_bf16\",\"pid\":0,\"tid\":7,\"ts\":15,\"dur\":2,"
                      "\"args\":{\"Collective name\":\"allreduce\"}}]";
    tc_trace t;
    parse_with(&t, doc, p);
    cr_assert_eq(t.n_gpu, 8);
    uint8_t want[] = {TC_COMM_USER, TC_COMM_NO, TC_COMM_USER, TC_COMM_USER, TC_COMM_NCCL, TC_COMM_NO, TC_COMM_USER, TC_COMM_ARGS};
    for (size_t i = 0; i < 8; i++) cr_expect_eq(t.gpu[i].is_comm, want[i], "event %zu: %d", i, t.gpu[i].is_comm);
    tc_trace_free(&t);
    /* without patterns: the catalog and the args only */
    parse_with(&t, doc, NULL);
    uint8_t want_none[] = {TC_COMM_NO, TC_COMM_NO, TC_COMM_NO, TC_COMM_NO, TC_COMM_NCCL, TC_COMM_NO, TC_COMM_NO, TC_COMM_ARGS};
    for (size_t i = 0; i < 8; i++) cr_expect_eq(t.gpu[i].is_comm, want_none[i], "event %zu: %d", i, t.gpu[i].is_comm);
    tc_trace_free(&t);
    /* the classifier itself: the catalog first, then the args, then the patterns */
    cr_expect_eq(tc_comm_classify(NULL, p, "ncclDevKernel_SendRecv()", 24, false), TC_COMM_NCCL);
    cr_expect_eq(tc_comm_classify(NULL, p, "ncclDevKernel_SendRecv()", 24, true), TC_COMM_NCCL);
    cr_expect_eq(tc_comm_classify(NULL, p, "my_allreduce", 12, true), TC_COMM_ARGS);
    cr_expect_eq(tc_comm_classify(NULL, p, "my_allreduce", 12, false), TC_COMM_USER);
    cr_expect_eq(tc_comm_classify(NULL, NULL, "my_allreduce", 12, false), TC_COMM_NO);
    cr_expect_eq(tc_comm_classify(NULL, p, "gemm", 4, false), TC_COMM_NO);
    /* patterns read a name up to its first NUL, the catalog all of it */
    cr_expect_eq(tc_comm_classify(NULL, p, "x\0my_allreduce", 14, false), TC_COMM_NO);
    cr_expect_eq(tc_comm_classify(NULL, p, "my_allreduce\0ncclKernel_x", 24, false), TC_COMM_NCCL);
    tc_comm_patterns_free(p);
}

/* A kernel only a user pattern makes communication keeps no args from the op that launched it
 * (as when the patterns were applied after the load); a catalog kernel gets them. */
Test(comm_kernels, a_user_kernel_gets_no_args_of_its_launching_op) {
    char *dir = tu_tmpdir(), path[300];
    snprintf(path, sizeof path, "%s/linked.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (int k = 0; k < 2; k++) /* a user kernel under external id 9, a catalog kernel under 10 */
        fprintf(f, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                "\"dur\":5,\"args\":{\"External id\":%d,\"Collective name\":\"allreduce\"}},"
                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                "\"dur\":1,\"args\":{\"correlation\":%d,\"External id\":%d}},"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":2,"
                "\"args\":{\"correlation\":%d}}%s",
                k ? "" : "[", 10 * k + 1, 9 + k, 10 * k + 2, 5 + k, 9 + k, k ? "ncclDevKernel_AllReduce()" : "my_allreduce",
                10 * k + 3, 5 + k, k ? "]" : ",");
    fclose(f);
    tc_comm_patterns *p = tc_comm_patterns_new();
    char err[400], msg[600];
    cr_assert_eq(tc_comm_patterns_add(p, "allreduce|AllReduce", err, sizeof err), 0, "%s", err);
    tc_trace t;
    cr_assert_eq(tc_trace_init(&t, path), 0);
    tc_load_trace_options o = {.threads = 1, .comm = p};
    cr_assert_eq(tc_load_trace_opts(&t, path, &o, msg, sizeof msg), TC_LOAD_OK, "%s", msg);
    cr_assert_eq(t.n_gpu, 2);
    cr_expect_eq(t.gpu[0].is_comm, TC_COMM_USER);
    cr_expect_eq(t.gpu[0].coll, TC_NONE);
    cr_expect_eq(t.gpu[1].is_comm, TC_COMM_NCCL);
    cr_expect_neq(t.gpu[1].coll, TC_NONE);
    tc_trace_free(&t);
    tc_comm_patterns_free(p);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}

/* How --comm-kernel patterns were applied before they moved into the parse (cli/load_job.c called
 * it after each load): every kernel that is not communication yet and whose name matches one of
 * the patterns becomes TC_COMM_USER. The reference the parse is held to. */
static void mark_after_load(tc_trace *t, const char *const *patterns, size_t n) {
    regex_t re[8];
    cr_assert(n <= 8);
    for (size_t i = 0; i < n; i++) cr_assert_eq(regcomp(&re[i], patterns[i], REG_EXTENDED | REG_NOSUB), 0);
    for (size_t e = 0; e < t->n_gpu; e++) {
        tc_gpu_event *g = &t->gpu[e];
        if (g->kind != TC_GPU_KERNEL || g->is_comm) continue;
        for (size_t i = 0; i < n; i++)
            if (regexec(&re[i], tc_trace_str(t, g->name), 0, NULL, 0) == 0) { g->is_comm = TC_COMM_USER; break; }
    }
    for (size_t i = 0; i < n; i++) regfree(&re[i]);
}

static void load_with(tc_trace *t, const char *path, int threads, const tc_comm_patterns *p) {
    char msg[600];
    cr_assert_eq(tc_trace_init(t, path), 0);
    tc_load_trace_options o = {.threads = threads, .comm = p};
    cr_assert_eq(tc_load_trace_opts(t, path, &o, msg, sizeof msg), TC_LOAD_OK, "%s", msg);
}

Test(comm_kernels, patterns_mark_the_same_kernels_with_j1_and_j2_as_after_the_load) {
    static const char *const patterns[] = {"_NNT$", "AllReduce", "elementwise"};
    tc_comm_patterns *p = tc_comm_patterns_new();
    char err[400];
    for (size_t i = 0; i < 3; i++) cr_assert_eq(tc_comm_patterns_add(p, patterns[i], err, sizeof err), 0, "%s", err);
    char *dir = tu_tmpdir();
    /* NCCL kernels without args of their own: they get record_param_comms's when the trace is read */
    tu_gen_job(dir, "job", "--ranks 2 --steps 40 --no-coll-args");
    char path[300];
    snprintf(path, sizeof path, "%s/job/rank0.pt.trace.json", dir);
    cr_assert_eq(tu_sh(NULL, "gzip -kf %s", path), 0);
    for (int gz = 0; gz < 2; gz++) {
        if (gz) strcat(path, ".gz");
        tc_trace j1, j2, after;
        load_with(&j1, path, 1, p);
        load_with(&j2, path, 2, p);
        load_with(&after, path, 1, NULL);
        mark_after_load(&after, patterns, 3);
        tu_assert_same_trace(&j1, &j2, path);
        tu_assert_same_trace(&j1, &after, path);
        size_t user = 0, nccl = 0;
        for (size_t e = 0; e < j1.n_gpu; e++) {
            user += j1.gpu[e].is_comm == TC_COMM_USER;
            nccl += j1.gpu[e].is_comm == TC_COMM_NCCL && j1.gpu[e].coll != TC_NONE;
        }
        cr_expect_gt(user, 40, "%zu kernels marked by the patterns", user);
        cr_expect_gt(nccl, 0, "NCCL kernels stay NCCL, with their op's args");
        /* the parallel parse itself, in pieces, classifies as the sequential one */
        tc_trace par;
        cr_assert_eq(tc_trace_init(&par, path), 0);
        tc_source *src = tc_source_open(path, err, sizeof err);
        cr_assert_not_null(src, "%s", err);
        tc_par_info info;
        tc_read_options ro = {.comm = p};
        cr_assert_eq(tc_parallel_load(&par, src, 2, 64 * 1024, &ro, NULL, NULL, &info), TC_PAR_OK, "%s", info.why);
        cr_assert_gt(info.pieces, 1);
        tc_source_close(src);
        cr_assert_eq(par.n_gpu, j1.n_gpu);
        for (size_t e = 0; e < j1.n_gpu; e++) cr_assert_eq(par.gpu[e].is_comm, j1.gpu[e].is_comm, "kernel %zu", e);
        tc_trace_free(&par);
        tc_trace_free(&j1);
        tc_trace_free(&j2);
        tc_trace_free(&after);
    }
    tc_comm_patterns_free(p);
    tu_sh(NULL, "rm -rf %s", dir);
    free(dir);
}
