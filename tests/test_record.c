/* test_record.c: `tracecost record` (tc_record_main) and the injected tracer library.
 *
 * Launcher tests run ordinary programs (sh) and check exit codes, signals, pass-through output
 * and the child's environment. Library tests (not built with -DTC_NO_CUPTI) dlopen
 * build/libtracecost_cupti.so in this GPU-less process, and run build/cupti-fake-app under
 * tc_record_main: the fake app plays the CUDA driver (dlopen + InitializeInjection) against a
 * stand-in libcupti, so the real tracer's windows, signals, files and drops are exercised. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cupti/envutil.h"
#include "cupti/record.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifndef TC_NO_CUPTI
#include "cupti/test/tjson.h"
#endif

/* ---------- helpers ---------- */

typedef struct run_result {
    int rc;       /* tc_record_main's return */
    char *out;    /* everything written to fd 1 (launcher and child) */
    char *err;    /* everything written to fd 2 */
} run_result;

static char *slurp_fd(int fd) {
    lseek(fd, 0, SEEK_SET);
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    ssize_t n;
    while ((n = read(fd, s + len, cap - len - 1)) > 0) {
        len += (size_t)n;
        if (cap - len < 2) s = realloc(s, cap *= 2);
    }
    s[len] = 0;
    return s;
}

/* Runs tc_record_main(args) with fds 1 and 2 captured in temporary files. stdin_text, when not
 * NULL, becomes the child's stdin. */
static run_result run_record_in(const char *stdin_text, const char **args) {
    int argc = 0;
    while (args[argc]) argc++;
    char **argv = calloc((size_t)argc + 1, sizeof *argv);
    for (int i = 0; i < argc; i++) argv[i] = (char *)args[i];
    char o[] = "/tmp/tc-rec-out-XXXXXX", e[] = "/tmp/tc-rec-err-XXXXXX", in[] = "/tmp/tc-rec-in-XXXXXX";
    int fo = mkstemp(o), fe = mkstemp(e), fi = -1;
    cr_assert(fo >= 0 && fe >= 0);
    fflush(stdout);
    fflush(stderr);
    int save1 = dup(1), save2 = dup(2), save0 = -1;
    dup2(fo, 1);
    dup2(fe, 2);
    if (stdin_text) {
        fi = mkstemp(in);
        cr_assert(write(fi, stdin_text, strlen(stdin_text)) == (ssize_t)strlen(stdin_text));
        lseek(fi, 0, SEEK_SET);
        save0 = dup(0);
        dup2(fi, 0);
    }
    run_result r;
    r.rc = tc_record_main(argc, argv, stderr);
    fflush(stdout);
    fflush(stderr);
    dup2(save1, 1);
    dup2(save2, 2);
    close(save1);
    close(save2);
    if (save0 >= 0) {
        dup2(save0, 0);
        close(save0);
        close(fi);
        unlink(in);
    }
    r.out = slurp_fd(fo);
    r.err = slurp_fd(fe);
    close(fo);
    close(fe);
    unlink(o);
    unlink(e);
    free(argv);
    return r;
}

#define RUN(...) run_record_in(NULL, (const char *[]){"record", __VA_ARGS__, NULL})

static void run_free(run_result *r) {
    free(r->out);
    free(r->err);
}

static char *make_tmpdir(void) {
    char *d = strdup("/tmp/tc-rec-dir-XXXXXX");
    cr_assert_not_null(mkdtemp(d));
    return d;
}

static void rm_rf(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[PATH_MAX];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* Ends a test that ran the launcher or the tracer in dir (a make_tmpdir result). */
static void finish_run(char *dir, run_result *r) {
    run_free(r);
    rm_rf(dir);
    free(dir);
}

/* A file standing in for the tracer library in launcher-only tests. */
static void fake_lib_env(const char *dir) {
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/fake-lib.so", dir);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fclose(f);
    setenv("TRACECOST_CUPTI_LIB", p, 1);
}

static void clear_rank_env(void) {
    const char *v[] = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK",
                       "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_PROCID",
                       "SLURM_NTASKS", "SLURM_LOCALID", "PMI_RANK", "PMI_SIZE", "PMIX_RANK",
                       "MPI_LOCALRANKID", "TRACECOST_STEP_RANGE", "TRACECOST_GZIP",
                       "TRACECOST_DELAY_S", "TRACECOST_DURATION_S", "TRACECOST_CUPTI_LIB", NULL};
    for (int i = 0; v[i]; i++) unsetenv(v[i]);
}

/* No GPU here: libc stands in for the CUDA driver the launcher looks for first. */
static void launcher_init(void) {
    clear_rank_env();
    setenv("TRACECOST_CUDA_DRIVER", "libc.so.6", 1);
}

TestSuite(record, .init = launcher_init);

/* ---------- launcher ---------- */

Test(record, passes_output_and_exit_status_through) {
    char *dir = make_tmpdir();
    fake_lib_env(dir);
    run_result r = RUN("-o", dir, "--", "sh", "-c", "echo hi; echo oops >&2; exit 7");
    cr_expect_eq(r.rc, 7);
    cr_expect_str_eq(r.out, "hi\n");
    cr_expect(strstr(r.err, "oops\n") != NULL, "stderr: %s", r.err);
    cr_expect(strstr(r.err, "tracecost: no trace written to") != NULL, "stderr: %s", r.err);
    run_free(&r);
    r = RUN("-o", dir, "true");
    cr_expect_eq(r.rc, 0);
    finish_run(dir, &r);
}

Test(record, stdin_passes_through) {
    char *dir = make_tmpdir();
    fake_lib_env(dir);
    run_result r = run_record_in("line one\n", (const char *[]){"record", "-o", dir, "--", "sh",
                                                                "-c", "read x; echo got $x", NULL});
    cr_expect_eq(r.rc, 0);
    cr_expect_str_eq(r.out, "got line one\n");
    finish_run(dir, &r);
}

Test(record, signal_death_maps_to_128_plus_signal) {
    char *dir = make_tmpdir();
    fake_lib_env(dir);
    run_result r = RUN("-o", dir, "--", "sh", "-c", "kill -TERM $$");
    cr_expect_eq(r.rc, 128 + SIGTERM);
    run_free(&r);
    r = RUN("-o", dir, "--", "sh", "-c", "kill -KILL $$");
    cr_expect_eq(r.rc, 128 + SIGKILL);
    finish_run(dir, &r);
}

Test(record, sigterm_to_the_launcher_is_forwarded) {
    char *dir = make_tmpdir();
    fake_lib_env(dir);
    /* the child asks its parent (the launcher, this process) to be terminated */
    run_result r = RUN("-o", dir, "--", "sh", "-c",
                       "trap 'exit 42' TERM; kill -TERM $PPID; sleep 5 & wait");
    cr_expect_eq(r.rc, 42, "stderr: %s", r.err);
    finish_run(dir, &r);
}

Test(record, sigusr2_is_ignored_by_the_launcher_only) {
    char *dir = make_tmpdir();
    fake_lib_env(dir);
    run_result r = RUN("-o", dir, "--", "sh", "-c", "kill -USR2 $PPID; sleep 0.2; echo alive");
    cr_expect_eq(r.rc, 0, "stderr: %s", r.err);
    cr_expect_str_eq(r.out, "alive\n");
    run_free(&r);
    r = RUN("-o", dir, "--", "sh", "-c", "kill -USR2 $$"); /* the command keeps the default */
    cr_expect_eq(r.rc, 128 + SIGUSR2);
    finish_run(dir, &r);
}

Test(record, no_command_is_a_usage_error) {
    run_result r = RUN("--gzip");
    cr_expect_eq(r.rc, TC_RECORD_EXIT_USAGE);
    cr_expect(strstr(r.err, "no command to run") != NULL, "stderr: %s", r.err);
    cr_expect(strstr(r.err, "usage: tracecost record") != NULL);
    run_free(&r);
    r = run_record_in(NULL, (const char *[]){"record", NULL});
    cr_expect_eq(r.rc, TC_RECORD_EXIT_USAGE);
    run_free(&r);
    r = RUN("--");
    cr_expect_eq(r.rc, TC_RECORD_EXIT_USAGE);
    run_free(&r);
}

Test(record, bad_options_are_usage_errors) {
    const char *bad[][3] = {
        {"--frobnicate", "true", NULL}, {"--delay", "abc", "true"}, {"--delay", "-1", "true"},
        {"--duration", "0", "true"},    {"--delay=1e3", "true", NULL}, {"-o", NULL, NULL},
        {"--outputx", "d", "true"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run_result r = run_record_in(NULL, (const char *[]){"record", bad[i][0], bad[i][1],
                                                            bad[i][2], NULL});
        cr_expect_eq(r.rc, TC_RECORD_EXIT_USAGE, "case %zu (%s): rc %d", i, bad[i][0], r.rc);
        cr_expect(strncmp(r.err, "tracecost record: ", 18) == 0, "case %zu: %s", i, r.err);
        run_free(&r);
    }
}

Test(record, help_goes_to_stdout) {
    run_result r = RUN("--help");
    cr_expect_eq(r.rc, 0);
    cr_expect(strncmp(r.out, "usage: tracecost record", 23) == 0);
    cr_expect_str_eq(r.err, "");
    run_free(&r);
}

Test(record, child_environment_is_set) {
    char *dir = make_tmpdir();
    fake_lib_env(dir);
    char sub[PATH_MAX], want[PATH_MAX * 3];
    snprintf(sub, sizeof sub, "%s/traces/nested", dir);
    run_result r = RUN("-o", sub, "--gzip", "--delay", "1.5", "--duration=2", "sh", "-c",
                       "echo $CUDA_INJECTION64_PATH; echo $NVTX_INJECTION64_PATH; "
                       "echo $TRACECOST_OUT_DIR; echo $TRACECOST_GZIP $TRACECOST_DELAY_S "
                       "$TRACECOST_DURATION_S");
    cr_expect_eq(r.rc, 0, "stderr: %s", r.err);
    const char *lib = getenv("TRACECOST_CUPTI_LIB");
    snprintf(want, sizeof want, "%s\n%s\n%s\n1 1.5 2\n", lib, lib, sub);
    cr_expect_str_eq(r.out, want);
    struct stat st; /* nothing was written: the directory is not made */
    cr_expect(stat(sub, &st) != 0, "the directory was made though no trace was written");
    cr_expect(strstr(r.err, "no trace written to") && strstr(r.err, "the directory was not made"), "%s", r.err);
    run_free(&r);
    rm_rf(sub);
    snprintf(sub, sizeof sub, "%s/traces", dir);
    rmdir(sub);
    rm_rf(dir);
    free(dir);
}

Test(record, relative_output_dir_becomes_absolute) {
    char *dir = make_tmpdir();
    fake_lib_env(dir);
    cr_assert(chdir(dir) == 0);
    run_result r = RUN("-o", "rel", "sh", "-c", "echo $TRACECOST_OUT_DIR");
    char want[PATH_MAX + 16], real[PATH_MAX];
    cr_assert_not_null(realpath(dir, real));
    snprintf(want, sizeof want, "%s/rel\n", real);
    cr_expect_str_eq(r.out, want);
    run_free(&r);
    cr_assert(chdir("/") == 0);
    char rel[PATH_MAX];
    snprintf(rel, sizeof rel, "%s/rel", dir);
    rmdir(rel);
    rm_rf(dir);
    free(dir);
}

/* Without a CUDA driver the launcher says so plainly, runs nothing and makes no directory. */
Test(record, no_cuda_driver_is_said_plainly) {
    char *dir = make_tmpdir();
    fake_lib_env(dir);
    setenv("TRACECOST_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    char sub[PATH_MAX], ran[PATH_MAX], cmd[PATH_MAX + 16];
    snprintf(sub, sizeof sub, "%s/traces", dir);
    snprintf(ran, sizeof ran, "%s/ran", dir);
    snprintf(cmd, sizeof cmd, "touch %s", ran);
    run_result r = RUN("-o", sub, "--", "sh", "-c", cmd);
    cr_expect_eq(r.rc, TC_RECORD_EXIT_USAGE);
    cr_expect(strstr(r.err, "tracecost: no CUDA driver on this machine (/nonexistent/libcuda.so.1 cannot be loaded)") != NULL,
              "%s", r.err);
    cr_expect(strstr(r.err, "nothing was run") != NULL, "%s", r.err);
    cr_expect(access(ran, F_OK) != 0, "the command ran");
    cr_expect(access(sub, F_OK) != 0, "the directory was made");
    /* a directory that cannot be made is said before the run too */
    setenv("TRACECOST_CUDA_DRIVER", "libc.so.6", 1);
    run_free(&r);
    char under_file[PATH_MAX + 32];
    snprintf(under_file, sizeof under_file, "%s/fake-lib.so/traces", dir); /* a folder under a file */
    r = RUN("-o", under_file, "--", "sh", "-c", cmd);
    cr_expect_eq(r.rc, TC_RECORD_EXIT_USAGE);
    cr_expect(strstr(r.err, "cannot write the trace directory") && strstr(r.err, "Not a directory"), "%s", r.err);
    cr_expect(access(ran, F_OK) != 0, "the command ran");
    finish_run(dir, &r);
}

Test(record, missing_or_unrunnable_commands) {
    char *dir = make_tmpdir();
    fake_lib_env(dir);
    run_result r = RUN("-o", dir, "--", "/nonexistent/tc-no-such-program");
    cr_expect_eq(r.rc, TC_RECORD_EXIT_NOTFOUND);
    cr_expect(strstr(r.err, "cannot run /nonexistent/tc-no-such-program") != NULL, "%s", r.err);
    run_free(&r);
    r = RUN("-o", dir, "--", dir); /* a directory */
    cr_expect_eq(r.rc, TC_RECORD_EXIT_NOEXEC);
    finish_run(dir, &r);
}

Test(record, missing_library_is_a_clear_error) {
    setenv("TRACECOST_CUPTI_LIB", "/nonexistent/libtracecost_cupti.so", 1);
    run_result r = RUN("true");
    cr_expect_eq(r.rc, TC_RECORD_EXIT_USAGE);
    cr_expect(strstr(r.err, "TRACECOST_CUPTI_LIB=/nonexistent/libtracecost_cupti.so") != NULL,
              "%s", r.err);
    run_free(&r);
}

Test(record, seconds_are_parsed_exactly) {
    struct { const char *s; int ok; uint64_t ns; } c[] = {
        {"2", 1, 2000000000ull},     {"0.5", 1, 500000000ull},  {"1.25", 1, 1250000000ull},
        {".5", 1, 500000000ull},     {"5.", 1, 5000000000ull},  {"0.000000001", 1, 1},
        {"0", 1, 0},                 {"1.0000000001", 0, 0},    {"-1", 0, 0},
        {"1e3", 0, 0},               {"", 0, 0},                {".", 0, 0},
        {" 1", 0, 0},                {"1 ", 0, 0},              {"99999999999999999999", 0, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        uint64_t ns = 77;
        int rc = tc_parse_seconds_ns(c[i].s, &ns);
        cr_expect_eq(rc == 0, c[i].ok, "'%s'", c[i].s);
        cr_expect_eq(ns, c[i].ns, "'%s' -> %llu", c[i].s, (unsigned long long)ns);
    }
}

Test(record, rank_comes_from_the_first_launcher_variable) {
    tc_dist_env d;
    tc_dist_env_read(&d);
    cr_expect(d.rank == -1 && d.world_size == -1 && d.local_rank == -1);
    setenv("SLURM_PROCID", "9", 1);
    setenv("PMI_RANK", "8", 1);
    setenv("SLURM_NTASKS", "16", 1);
    tc_dist_env_read(&d);
    cr_expect_eq(d.rank, 9);
    cr_expect_eq(d.world_size, 16);
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    setenv("RANK", "x", 1); /* not a number: skipped */
    tc_dist_env_read(&d);
    cr_expect_eq(d.rank, 3);
    setenv("RANK", "1", 1);
    setenv("LOCAL_RANK", "0", 1);
    tc_dist_env_read(&d);
    cr_expect_eq(d.rank, 1);
    cr_expect_eq(d.local_rank, 0);
}

#ifndef TC_NO_CUPTI
/* ---------- the tracer library ---------- */

static void exe_dir_path(char *out, size_t cap, const char *name) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert(n > 0);
    exe[n] = 0;
    *strrchr(exe, '/') = 0;
    snprintf(out, cap, "%s/%s", exe, name);
}

static int have_cuda_driver(void) {
    void *h = dlopen("libcuda.so.1", RTLD_LAZY);
    if (h) dlclose(h);
    return h != NULL;
}

Test(library, loads_and_initializes_without_a_gpu) {
    char lib[PATH_MAX];
    exe_dir_path(lib, sizeof lib, "libtracecost_cupti.so");
    char *dir = make_tmpdir();
    setenv("TRACECOST_OUT_DIR", dir, 1);
    /* with a driver, tracing would really start in this process: keep it from capturing */
    if (have_cuda_driver()) setenv("TRACECOST_DELAY_S", "1000000", 1);
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(h, "dlopen: %s", dlerror());
    int (*init)(void) = NULL;
    *(void **)&init = dlsym(h, "InitializeInjection");
    cr_assert_not_null(init);
    cr_expect_not_null(dlsym(h, "InitializeInjectionNvtx2"));
    cr_expect_null(dlsym(h, "tc_conv_new"), "internal symbols stay hidden");

    char e[] = "/tmp/tc-inj-err-XXXXXX";
    int fe = mkstemp(e);
    fflush(stderr);
    int save2 = dup(2);
    dup2(fe, 2);
    int rc = init();
    int rc2 = init(); /* a second call is a no-op */
    dup2(save2, 2);
    close(save2);
    char *err = slurp_fd(fe);
    close(fe);
    unlink(e);
    cr_expect_eq(rc, 1);
    cr_expect_eq(rc2, 1);
    if (!have_cuda_driver()) {
        /* exactly one plain line naming the failed call and the missing driver */
        cr_expect(strncmp(err, "tracecost: CUPTI cuptiActivityEnable(CONCURRENT_KERNEL): ", 57) == 0,
                  "stderr: %s", err);
        cr_expect(strstr(err, "; tracing disabled") != NULL, "stderr: %s", err);
        cr_expect(strstr(err, "no GPU") != NULL, "stderr: %s", err);
        cr_expect(strchr(err, '\n') == err + strlen(err) - 1, "one line: %s", err);
        DIR *d = opendir(dir);
        int entries = 0;
        for (struct dirent *x; d && (x = readdir(d));) entries += x->d_name[0] != '.';
        if (d) closedir(d);
        cr_expect_eq(entries, 0, "no file is written when tracing is disabled");
    }
    free(err);
    rm_rf(dir);
    free(dir);
}

/* Runs the fake app scenario under tc_record_main with the real library. */
static run_result run_fake(const char *dir, const char *scenario, const char *extra_opt) {
    char app[PATH_MAX];
    exe_dir_path(app, sizeof app, "cupti-fake-app");
    if (extra_opt)
        return run_record_in(NULL, (const char *[]){"record", "-o", dir, extra_opt, "--", app,
                                                    scenario, NULL});
    return run_record_in(NULL, (const char *[]){"record", "-o", dir, "--", app, scenario, NULL});
}

/* Names of the files in dir, sorted, NULL-terminated; *n their count. */
static char **list_dir(const char *dir, int *n) {
    char **v = calloc(64, sizeof *v);
    *n = 0;
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d)) && *n < 63;)
        if (e->d_name[0] != '.') v[(*n)++] = strdup(e->d_name);
    closedir(d);
    for (int i = 0; i < *n; i++)
        for (int j = i + 1; j < *n; j++)
            if (strcmp(v[i], v[j]) > 0) {
                char *t = v[i];
                v[i] = v[j];
                v[j] = t;
            }
    return v;
}

static void free_list(char **v) {
    for (int i = 0; v[i]; i++) free(v[i]);
    free(v);
}

static yajl_val load_trace(const char *dir, const char *name) {
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    char *text = tj_read_file(p, NULL);
    cr_assert_not_null(text, "%s", p);
    char err[256] = "";
    yajl_val root = yajl_tree_parse(text, err, sizeof err);
    cr_assert_not_null(root, "%s: invalid JSON: %s", p, err);
    free(text);
    return root;
}

static int ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int starts_with_host(const char *name) {
    char host[256];
    gethostname(host, sizeof host);
    size_t n = strlen(host);
    return strncmp(name, host, n) == 0 && name[n] == '_';
}

TestSuite(tracer, .init = launcher_init, .timeout = 60);

Test(tracer, records_a_fake_cuda_program) {
    char *dir = make_tmpdir();
    run_result r = run_fake(dir, "basic", NULL);
    cr_expect_eq(r.rc, 3, "stderr: %s", r.err);
    cr_expect(strstr(r.out, "nvtx forwarded\n") != NULL, "stdout: %s", r.out);
    cr_expect(strstr(r.out, "fake app: done\n") != NULL);
    cr_expect(strstr(r.err, "tracecost: 1 trace file in ") != NULL, "stderr: %s", r.err);
    int n;
    char **files = list_dir(dir, &n);
    cr_assert_eq(n, 1, "files: %s ...", n ? files[0] : "");
    cr_expect(starts_with_host(files[0]), "%s", files[0]);
    cr_expect(ends_with(files[0], ".pt.trace.json"), "%s", files[0]);
    cr_expect(strstr(files[0], ".rank") == NULL);
    yajl_val root = load_trace(dir, files[0]);
    cr_expect_eq(tj_count(root, "X", "kernel"), 7);
    cr_expect_eq(tj_count(root, "X", "gpu_memcpy"), 3);
    cr_expect_eq(tj_count(root, "X", "cuda_runtime"), 10); /* the 3 cudaGetDevice are off */
    cr_expect_null(tj_find(root, "X", "cudaGetDevice", 0));
    for (int k = 1; k <= 3; k++) {
        char step[32];
        snprintf(step, sizeof step, "ProfilerStep#%d", k);
        yajl_val s = tj_find(root, "X", step, 0);
        cr_expect_not_null(s, "%s", step);
        cr_expect_str_eq(tj_str(s, "cat"), "user_annotation");
    }
    cr_expect_not_null(tj_find(root, "X", "bad\"name\\ \x01 \xef\xbf\xbd\xef\xbf\xbd end", 0));
    yajl_val dp = tj_key(root, "deviceProperties");
    cr_assert(dp && YAJL_IS_ARRAY(dp) && dp->u.array.len == 1);
    cr_expect_str_eq(tj_str(dp->u.array.values[0], "name"), "Fake GPU");
    yajl_val di = tj_key(root, "distributedInfo");
    cr_expect_str_eq(tj_str(di, "backend"), "nccl");
    cr_expect_null(tj_key(di, "rank"));
    cr_expect_eq(tj_int(root, "cupti_version", -1), 130001);
    yajl_tree_free(root);
    free_list(files);
    finish_run(dir, &r);
}

Test(tracer, rank_in_name_and_gzip) {
    char *dir = make_tmpdir();
    setenv("RANK", "5", 1);
    setenv("WORLD_SIZE", "8", 1);
    setenv("LOCAL_RANK", "1", 1);
    run_result r = run_fake(dir, "basic", "--gzip");
    cr_expect_eq(r.rc, 3, "stderr: %s", r.err);
    int n;
    char **files = list_dir(dir, &n);
    cr_assert_eq(n, 1);
    cr_expect(ends_with(files[0], ".rank5.pt.trace.json.gz"), "%s", files[0]);
    yajl_val root = load_trace(dir, files[0]);
    yajl_val di = tj_key(root, "distributedInfo");
    cr_expect_eq(tj_int(di, "rank", -1), 5);
    cr_expect_eq(tj_int(di, "world_size", -1), 8);
    cr_expect_eq(tj_int(di, "local_rank", -1), 1);
    cr_expect_eq(tj_count(root, "X", "kernel"), 7);
    yajl_tree_free(root);
    free_list(files);
    finish_run(dir, &r);
}

static void expect_steps(yajl_val root, int s1, int s2, int s3) {
    int want[3] = {s1, s2, s3};
    for (int k = 0; k < 3; k++) {
        char step[32];
        snprintf(step, sizeof step, "ProfilerStep#%d", k + 1);
        cr_expect_eq(tj_find(root, "X", step, 0) != NULL, want[k], "%s", step);
    }
}

/* The run's trace in dir, asserted to be the only file there; its name goes to name (when not
 * NULL). Returns it parsed: free with yajl_tree_free. */
static yajl_val only_trace(const char *dir, const run_result *r, char *name, size_t name_len) {
    int n;
    char **files = list_dir(dir, &n);
    cr_assert_eq(n, 1, "stderr: %s", r->err);
    if (name) snprintf(name, name_len, "%s", files[0]);
    yajl_val root = load_trace(dir, files[0]);
    free_list(files);
    return root;
}

Test(tracer, sigusr2_toggles_windows_into_files) {
    char *dir = make_tmpdir();
    run_result r = run_fake(dir, "toggle", NULL);
    cr_expect_eq(r.rc, 0, "stderr: %s", r.err);
    int n;
    char **files = list_dir(dir, &n);
    cr_assert_eq(n, 2, "stderr: %s", r.err);
    /* sorted: "<host>_<pid>-2.pt..." sorts before "<host>_<pid>.pt..." */
    cr_expect(strstr(files[0], "-2.pt.trace.json") != NULL, "%s", files[0]);
    yajl_val second = load_trace(dir, files[0]), first = load_trace(dir, files[1]);
    expect_steps(first, 1, 0, 0);
    expect_steps(second, 0, 0, 1);
    cr_expect_eq(tj_int(tj_key(second, "tracecost"), "window", -1), 2);
    yajl_tree_free(first);
    yajl_tree_free(second);
    free_list(files);
    finish_run(dir, &r);
}

Test(tracer, delay_skips_the_start) {
    char *dir = make_tmpdir();
    char app[PATH_MAX];
    exe_dir_path(app, sizeof app, "cupti-fake-app");
    run_result r = run_record_in(NULL, (const char *[]){"record", "-o", dir, "--delay", "0.3", "--", app,
                                             "delay", NULL});
    cr_expect_eq(r.rc, 0, "stderr: %s", r.err);
    yajl_val root = only_trace(dir, &r, NULL, 0);
    expect_steps(root, 0, 1, 0);
    yajl_tree_free(root);
    finish_run(dir, &r);
}

Test(tracer, duration_ends_the_window) {
    char *dir = make_tmpdir();
    char app[PATH_MAX];
    exe_dir_path(app, sizeof app, "cupti-fake-app");
    run_result r = run_record_in(NULL, (const char *[]){"record", "-o", dir, "--duration", "0.2",
                                                        "--", app, "duration", NULL});
    cr_expect_eq(r.rc, 0, "stderr: %s", r.err);
    yajl_val root = only_trace(dir, &r, NULL, 0);
    expect_steps(root, 1, 0, 0);
    yajl_tree_free(root);
    finish_run(dir, &r);
}

Test(tracer, sigterm_writes_the_trace_then_kills) {
    char *dir = make_tmpdir();
    run_result r = run_fake(dir, "sigterm", NULL);
    cr_expect_eq(r.rc, 128 + SIGTERM, "stderr: %s", r.err);
    char name[PATH_MAX];
    yajl_val root = only_trace(dir, &r, name, sizeof name);
    cr_expect(ends_with(name, ".pt.trace.json"), "%s", name);
    expect_steps(root, 1, 0, 0);
    yajl_tree_free(root);
    finish_run(dir, &r);
}

Test(tracer, forked_child_leaves_the_trace_alone) {
    char *dir = make_tmpdir();
    run_result r = run_fake(dir, "fork", NULL);
    cr_expect_eq(r.rc, 0, "stderr: %s", r.err);
    yajl_val root = only_trace(dir, &r, NULL, 0);
    expect_steps(root, 1, 1, 0);
    yajl_tree_free(root);
    finish_run(dir, &r);
}

Test(tracer, step_range_renames_nvtx_ranges) {
    char *dir = make_tmpdir();
    setenv("TRACECOST_STEP_RANGE", "train_step", 1);
    run_result r = run_fake(dir, "steprange", NULL);
    cr_expect_eq(r.rc, 0, "stderr: %s", r.err);
    yajl_val root = only_trace(dir, &r, NULL, 0);
    expect_steps(root, 1, 1, 1);
    cr_expect_null(tj_find(root, "X", "train_step", 0));
    yajl_tree_free(root);
    finish_run(dir, &r);
}

Test(tracer, bounded_pool_counts_every_dropped_record) {
    char *dir = make_tmpdir();
    setenv("TRACECOST_BUFFERS", "2", 1);
    setenv("TRACECOST_BUFFER_MB", "1", 1);
    setenv("FAKE_CUPTI_SLOW_BUFFER_MS", "400", 1); /* the consumer lags: the pool runs dry */
    run_result r = run_fake(dir, "drop", NULL);
    cr_expect_eq(r.rc, 0, "stderr: %s", r.err);
    unsigned long long appended = 0, dropped = 0;
    cr_assert_eq(sscanf(r.out, "appended=%llu dropped=%llu", &appended, &dropped), 2, "%s", r.out);
    int n;
    char **files = list_dir(dir, &n);
    cr_assert_eq(n, 1);
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, files[0]);
    char *text = tj_read_file(p, NULL);
    cr_assert_not_null(text);
    cr_expect(tj_valid(text), "%s is not valid JSON", p);
    yajl_val tc = tj_tail_object(text, "tracecost");
    cr_assert_not_null(tc);
    cr_expect_eq((unsigned long long)tj_int(tc, "records", -1), appended);
    cr_expect_eq((unsigned long long)tj_int(tc, "dropped_records", -1), dropped);
    cr_expect_gt(dropped, 0);
    cr_expect(strstr(r.err, "activity records dropped (buffer pool full") != NULL, "%s", r.err);
    yajl_tree_free(tc);
    free(text);
    free_list(files);
    finish_run(dir, &r);
}

Test(tracer, cupti_failure_is_one_line_and_the_program_runs) {
    char *dir = make_tmpdir();
    setenv("FAKE_CUPTI_FAIL_ENABLE", "1", 1);
    run_result r = run_fake(dir, "fail", NULL);
    cr_expect_eq(r.rc, 0);
    cr_expect_str_eq(r.out, "fake app: still running\n");
    const char *line = "tracecost: CUPTI cuptiActivityEnable(CONCURRENT_KERNEL): "
                       "CUPTI_ERROR_UNKNOWN; tracing disabled";
    cr_expect(strstr(r.err, line) != NULL, "stderr: %s", r.err);
    cr_expect_eq(tj_occurrences(r.err, "tracecost: CUPTI"), 1);
    cr_expect(strstr(r.err, "tracecost: no trace written") != NULL);
    int n;
    char **files = list_dir(dir, &n);
    cr_expect_eq(n, 0);
    free_list(files);
    finish_run(dir, &r);
}
Test(tracer, wedged_cupti_at_exit_costs_at_most_the_timeout) {
    char *dir = make_tmpdir();
    setenv("FAKE_CUPTI_HANG_FLUSH", "1", 1);
    setenv("TRACECOST_EXIT_TIMEOUT_S", "0.5", 1);
    run_result r = run_fake(dir, "basic", NULL);
    cr_expect_eq(r.rc, 3, "stderr: %s", r.err);
    cr_expect(strstr(r.out, "fake app: done\n") != NULL);
    cr_expect(strstr(r.err, "the final trace flush did not finish in time") != NULL, "%s", r.err);
    int n;
    char **files = list_dir(dir, &n);
    cr_expect_eq(n, 1);
    if (n == 1) cr_expect(ends_with(files[0], ".tmp"), "%s", files[0]);
    free_list(files);
    run_free(&r);
    r = run_fake(dir, "sigterm", NULL); /* the signal handler waits as long, then re-raises */
    cr_expect_eq(r.rc, 128 + SIGTERM, "stderr: %s", r.err);
    finish_run(dir, &r);
}
#endif
