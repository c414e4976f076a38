/* fake_app.c: a "CUDA program" for tracer tests without a GPU. It does what the CUDA driver
 * does at cuInit (dlopen CUDA_INJECTION64_PATH, call InitializeInjection), then runs a scenario
 * of fake kernels, copies and NVTX ranges through the stand-in libcupti (fake_cupti.c).
 * Usage: cupti-fake-app SCENARIO; scenarios are listed in main(). Test-only code. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fake_cupti.h"
#include <dlfcn.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void *inject(void) {
    const char *path = getenv("CUDA_INJECTION64_PATH");
    if (!path) {
        fprintf(stderr, "fake app: CUDA_INJECTION64_PATH is not set\n");
        exit(90);
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "fake app: %s\n", dlerror());
        exit(91);
    }
    int (*init)(void) = NULL;
    *(void **)&init = dlsym(h, "InitializeInjection");
    if (!init || init() != 1) exit(92);
    return h;
}

/* One training step: an NVTX range around a GEMM, a copy, a noise call and an all-reduce. */
static void step(const char *range, int k) {
    char name[64];
    if (range) snprintf(name, sizeof name, "%s", range);
    else snprintf(name, sizeof name, "ProfilerStep#%d", k);
    uint32_t id = fake_cupti_range_push(name);
    fake_cupti_kernel("void gemm_kernel<float>(float const*, float*)", 7, 20000);
    fake_cupti_memcpy(1 << 20, 4000);
    fake_cupti_noise_api();
    fake_cupti_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                      20, 30000);
    fake_cupti_range_pop(id);
}

int main(int argc, char **argv) {
    const char *sc = argc > 1 ? argv[1] : "basic";
    void *lib = inject();
    if (strcmp(sc, "basic") == 0) { /* 3 steps, odd kernel name, NVTX forwarding; exit 3 */
        for (int k = 1; k <= 3; k++) step(NULL, k);
        fake_cupti_kernel("bad\"name\\ \x01 \xff\xfe end", 7, 1000);
        int (*nvtx)(const void *) = NULL;
        *(void **)&nvtx = dlsym(lib, "InitializeInjectionNvtx2");
        if (nvtx && nvtx(NULL) == 1 && fake_cupti_nvtx_inits() == 1) printf("nvtx forwarded\n");
        printf("fake app: done\n");
        return 3;
    }
    if (strcmp(sc, "steprange") == 0) { /* TRACECOST_STEP_RANGE=train_step */
        for (int k = 1; k <= 3; k++) step("train_step", k);
        return 0;
    }
    if (strcmp(sc, "toggle") == 0) { /* window 1: step 1; off: step 2; window 2: step 3 */
        step(NULL, 1);
        raise(SIGUSR2);
        sleep_ms(400);
        step(NULL, 2);
        raise(SIGUSR2);
        sleep_ms(400);
        step(NULL, 3);
        return 0;
    }
    if (strcmp(sc, "delay") == 0) { /* TRACECOST_DELAY_S=0.3: only step 2 is captured */
        step(NULL, 1);
        sleep_ms(700);
        step(NULL, 2);
        return 0;
    }
    if (strcmp(sc, "duration") == 0) { /* TRACECOST_DURATION_S=0.2: only step 1 is captured */
        step(NULL, 1);
        sleep_ms(700);
        step(NULL, 2);
        return 0;
    }
    if (strcmp(sc, "sigterm") == 0) { /* the trace is written, then the default action kills */
        step(NULL, 1);
        raise(SIGTERM);
        return 0;
    }
    if (strcmp(sc, "fork") == 0) { /* a forked child exits through atexit: no effect on the trace */
        step(NULL, 1);
        pid_t p = fork();
        if (p == 0) exit(0);
        int st;
        waitpid(p, &st, 0);
        step(NULL, 2);
        return 0;
    }
    if (strcmp(sc, "drop") == 0) { /* 2 x 1 MiB buffers, slow conversion: overflow */
        for (int i = 0; i < 20000; i++) fake_cupti_kernel("tiny_kernel", 7, 100);
        sleep_ms(300); /* let the worker's periodic flush run once */
        printf("appended=%" PRIu64 " dropped=%" PRIu64 "\n", fake_cupti_appended_total(),
               fake_cupti_dropped_total());
        fflush(stdout);
        return 0;
    }
    if (strcmp(sc, "fail") == 0) { /* FAKE_CUPTI_FAIL_ENABLE=1: tracing off, program fine */
        step(NULL, 1);
        printf("fake app: still running\n");
        return 0;
    }
    fprintf(stderr, "fake app: unknown scenario %s\n", sc);
    return 99;
}
