/* record.c: `tracecost record [options] -- CMD ARGS...` (see record.h). Checks that a CUDA driver
 * is installed, finds the tracer library, names the output directory (the tracer makes it when it
 * writes a trace) and the child's environment, runs the command and maps its status to
 * tracecost's exit code. No CUDA here: the tracer is only named, the driver only looked for. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "record.h"
#include "envutil.h"
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LIB_NAME "libtracecost_cupti.so"

/* The options, TC_RECORD_OPTIONS as rows. */
typedef enum {
#define TC_RECORD_ID(id, shortn, longn, arg, help) OPT_##id,
    TC_RECORD_OPTIONS(TC_RECORD_ID)
#undef TC_RECORD_ID
} opt_id;
typedef struct {
    opt_id id;
    const char *short_name, *name, *arg, *help;
} record_option;
static const record_option options[] = {
#define TC_RECORD_ROW(id, shortn, longn, arg, help) {OPT_##id, shortn, longn, arg, help},
    TC_RECORD_OPTIONS(TC_RECORD_ROW)
#undef TC_RECORD_ROW
};
#define N_OPTIONS (sizeof options / sizeof options[0])

void tc_record_usage(FILE *out) {
    fputs("usage: tracecost record [-o DIR] [--gzip] [--delay S] [--duration S] -- CMD [ARGS...]\n"
          "\n"
          "Runs CMD with the CUPTI tracer injected into every CUDA process it starts (torchrun\n"
          "workers, mpirun ranks). Each process writes DIR/<host>_<pid>.rank<R>.pt.trace.json\n"
          "(Kineto format) when it exits or is stopped by SIGTERM/SIGINT.\n"
          "\n",
          out);
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const record_option *r = &options[i];
        char label[64];
        snprintf(label, sizeof label, "%s%s%s%s%s", r->short_name ? r->short_name : "",
                 r->short_name ? ", " : "", r->name, r->arg ? " " : "", r->arg ? r->arg : "");
        fprintf(out, "  %-16s  %s\n", label, r->help);
    }
    fputs("\n"
          "Send SIGUSR2 to the traced CUDA processes to stop or restart capture (e.g.\n"
          "nvidia-smi --query-compute-apps=pid --format=csv,noheader | xargs kill -USR2);\n"
          "each new window is another file. TRACECOST_STEP_RANGE=NAME turns NVTX ranges named\n"
          "NAME into ProfilerStep#k steps. Exit status: CMD's, or 128+N if signal N killed it.\n",
          out);
}

static int usage_error(FILE *err, const char *fmt, const char *arg) {
    fputs("tracecost record: ", err);
    fprintf(err, fmt, arg);
    fputs("\n", err);
    tc_record_usage(err);
    return TC_RECORD_EXIT_USAGE;
}

static int is_file(const char *p) {
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Absolute path of the tracer library into out (PATH_MAX); 0, or -1 with a message. */
static int find_library(char *out, FILE *err) {
    const char *env = getenv("TRACECOST_CUPTI_LIB");
    if (env && *env) {
        if (!is_file(env) || !realpath(env, out)) {
            fprintf(err, "tracecost: TRACECOST_CUPTI_LIB=%s: %s\n", env,
                    errno ? strerror(errno) : "not a file");
            return -1;
        }
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        fprintf(err, "tracecost: cannot find my own executable: %s\n", strerror(errno));
        return -1;
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    char a[PATH_MAX + 64], b[PATH_MAX + 64];
    snprintf(a, sizeof a, "%s/%s", exe, LIB_NAME);
    snprintf(b, sizeof b, "%s/../lib/tracecost/%s", exe, LIB_NAME);
    if (is_file(a) && realpath(a, out)) return 0;
    if (is_file(b) && realpath(b, out)) return 0;
    fprintf(err,
            "tracecost: the CUPTI tracer library was not found (looked for %s and %s).\n"
            "tracecost: build it where the CUDA toolkit is installed (make; CUDA_HOME=...), or\n"
            "tracecost: point TRACECOST_CUPTI_LIB at libtracecost_cupti.so\n",
            a, b);
    return -1;
}

/* Whether a CUDA driver is installed: the library TRACECOST_CUDA_DRIVER names (default
 * libcuda.so.1, the NVIDIA driver's) can be loaded; *name is the one looked for. */
static int have_cuda_driver(const char **name) {
    const char *lib = getenv("TRACECOST_CUDA_DRIVER");
    *name = lib && *lib ? lib : "libcuda.so.1";
    void *h = dlopen(*name, RTLD_LAZY | RTLD_LOCAL);
    if (h) dlclose(h);
    return h != NULL;
}

/* The absolute path of the trace directory d into out (PATH_MAX bytes), without making it: its
 * real path when it exists, else d from the current directory. Fails (errno set) when the nearest
 * existing folder above it cannot be written, so a run does not end with its traces lost. */
static int trace_dir(const char *d, char *out) {
    if (realpath(d, out)) return access(out, W_OK | X_OK);
    char cwd[PATH_MAX];
    if (d[0] != '/' && !getcwd(cwd, sizeof cwd)) return -1;
    int n = d[0] == '/' ? snprintf(out, PATH_MAX, "%s", d) : snprintf(out, PATH_MAX, "%s/%s", cwd, d);
    if (n < 0 || n >= PATH_MAX) { errno = ENAMETOOLONG; return -1; }
    char above[PATH_MAX];
    memcpy(above, out, (size_t)n + 1);
    for (;;) { /* the nearest existing folder above */
        char *slash = strrchr(above, '/');
        if (!slash) break;
        if (slash == above) { above[1] = 0; break; }
        *slash = 0;
        struct stat st;
        if (stat(above, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) { errno = ENOTDIR; return -1; }
            break;
        }
    }
    return access(above, W_OK | X_OK);
}

/* Number of finished trace files in dir (names containing ".pt.trace.json"). */
static long count_traces(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".pt.trace.json")) n++;
    closedir(d);
    return n;
}

typedef struct record_opts {
    const char *dir;      /* -o */
    int gzip;             /* --gzip */
    const char *delay;    /* --delay text, validated */
    const char *duration; /* --duration text, validated */
    int cmd;              /* index in argv of the command */
} record_opts;

/* The row a names ("--delay", "--delay=2", "-o", "-oDIR"), with its inline value in *inline_value
 * (NULL when none); NULL when a is no option, or a flag given a value. */
static const record_option *find_option(const char *a, const char **inline_value) {
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const record_option *r = &options[i];
        size_t n = strlen(r->name);
        const char *rest = NULL;
        if (strncmp(a, r->name, n) == 0 && (a[n] == 0 || a[n] == '=')) rest = a[n] ? a + n + 1 : NULL;
        else if (r->short_name && strncmp(a, r->short_name, 2) == 0) rest = a[2] ? a + 2 : NULL;
        else continue;
        if (rest && !r->arg) return NULL;
        *inline_value = rest;
        return r;
    }
    return NULL;
}

/* Sets one option with value v (NULL when missing) into o. Returns 0, or -1 after the usage error. */
static int set_option(record_opts *o, const record_option *r, const char *a, const char *v, FILE *err,
                      int *rc) {
    uint64_t ns;
    switch (r->id) {
    case OPT_GZIP: o->gzip = 1; return 0;
    case OPT_HELP: return 0;
    case OPT_OUTPUT:
        o->dir = v;
        if (v && *v) return 0;
        *rc = usage_error(err, "%s needs a directory", a);
        return -1;
    case OPT_DELAY:
        o->delay = v;
        if (v && tc_parse_seconds_ns(v, &ns) == 0) return 0;
        *rc = usage_error(err, "--delay needs a number of seconds (got '%s')", v ? v : "");
        return -1;
    case OPT_DURATION:
        o->duration = v;
        if (v && tc_parse_seconds_ns(v, &ns) == 0 && ns > 0) return 0;
        *rc = usage_error(err, "--duration needs a positive number of seconds (got '%s')", v ? v : "");
        return -1;
    }
    return 0;
}

/* Parses options; returns -1 for usage errors (message printed), 0 ok, 1 for --help. The first
 * argument that is not an option, or the one after "--", is the command. */
static int parse(int argc, char **argv, record_opts *o, FILE *err, int *rc) {
    memset(o, 0, sizeof *o);
    o->dir = "tracecost-traces";
    o->cmd = -1;
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == 0) break; /* the command */
        const record_option *r = find_option(a, &v);
        if (!r) {
            *rc = usage_error(err, "unknown option '%s'", a);
            return -1;
        }
        if (r->id == OPT_HELP) return 1;
        if (r->arg && !v && i + 1 < argc) v = argv[++i];
        if (set_option(o, r, a, v, err, rc) != 0) return -1;
    }
    if (i >= argc) {
        *rc = usage_error(err, "%s", "no command to run (usage: tracecost record -- CMD ...)");
        return -1;
    }
    o->cmd = i;
    return 0;
}

/* In the child: environment, signal mask, exec. Reports errno through fd on failure. */
typedef struct saved_signals {
    struct sigaction intr, quit, chld, usr2; /* the caller's dispositions */
    sigset_t mask;                     /* the caller's signal mask */
} saved_signals;

static void child_exec(char **cmd, const char *lib, const char *dir, const record_opts *o,
                       const saved_signals *sv, int fd) {
    int e = 0;
    if (setenv("CUDA_INJECTION64_PATH", lib, 1) || setenv("NVTX_INJECTION64_PATH", lib, 1) ||
        setenv("TRACECOST_OUT_DIR", dir, 1) || (o->gzip && setenv("TRACECOST_GZIP", "1", 1)) ||
        (o->delay && setenv("TRACECOST_DELAY_S", o->delay, 1)) ||
        (o->duration && setenv("TRACECOST_DURATION_S", o->duration, 1)))
        e = errno;
    if (!e) {
        sigaction(SIGINT, &sv->intr, NULL);
        sigaction(SIGQUIT, &sv->quit, NULL);
        sigaction(SIGCHLD, &sv->chld, NULL);
        sigaction(SIGUSR2, &sv->usr2, NULL);
        sigprocmask(SIG_SETMASK, &sv->mask, NULL);
        execvp(cmd[0], cmd);
        e = errno;
    }
    ssize_t w = write(fd, &e, sizeof e);
    (void)w;
    _exit(e == ENOENT ? TC_RECORD_EXIT_NOTFOUND : TC_RECORD_EXIT_NOEXEC);
}

/* Waits for pid, forwarding SIGTERM/SIGHUP. Returns the wait status, or -1. */
static int wait_child(pid_t pid, const sigset_t *waitset) {
    int status;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) return status;
        if (r < 0 && errno != EINTR) return -1;
        struct timespec ts = {1, 0}; /* also re-checks if SIGCHLD was taken by someone else */
        siginfo_t si;
        int sig = sigtimedwait(waitset, &si, &ts);
        if (sig == SIGTERM || sig == SIGHUP) kill(pid, sig);
    }
}

int tc_record_main(int argc, char **argv, FILE *err) {
    record_opts o;
    int rc = 0;
    int p = parse(argc, argv, &o, err, &rc);
    if (p < 0) return rc;
    if (p > 0) {
        tc_record_usage(stdout);
        return 0;
    }
    char lib[PATH_MAX], dir[PATH_MAX];
    const char *driver;
    if (!have_cuda_driver(&driver)) {
        fprintf(err, "tracecost: no CUDA driver on this machine (%s cannot be loaded): record traces CUDA "
                     "programs on an NVIDIA GPU with its driver installed; nothing was run\n", driver);
        return TC_RECORD_EXIT_USAGE;
    }
    if (find_library(lib, err) != 0) return TC_RECORD_EXIT_USAGE;
    if (trace_dir(o.dir, dir) != 0) {
        fprintf(err, "tracecost: cannot write the trace directory %s: %s\n", o.dir, strerror(errno));
        return TC_RECORD_EXIT_USAGE;
    }
    const char *prev = getenv("CUDA_INJECTION64_PATH");
    if (prev && *prev && strcmp(prev, lib) != 0)
        fprintf(err, "tracecost: replacing CUDA_INJECTION64_PATH=%s (another profiler?)\n", prev);
    long before = count_traces(dir);

    /* The launcher ignores terminal signals and SIGUSR2, forwards SIGTERM/SIGHUP. */
    sigset_t waitset;
    saved_signals sv;
    sigemptyset(&waitset);
    sigaddset(&waitset, SIGCHLD);
    sigaddset(&waitset, SIGTERM);
    sigaddset(&waitset, SIGHUP);
    struct sigaction ign, dfl;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    dfl = ign;
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGINT, &ign, &sv.intr);
    sigaction(SIGQUIT, &ign, &sv.quit);
    sigaction(SIGUSR2, &ign, &sv.usr2); /* meant for traced processes: must not kill us */
    sigaction(SIGCHLD, &dfl, &sv.chld); /* SIG_IGN would reap the child for us */
    sigprocmask(SIG_BLOCK, &waitset, &sv.mask);

    int pipefd[2];
    pid_t pid = -1;
    int status = -1, exec_errno = 0;
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        fprintf(err, "tracecost: pipe: %s\n", strerror(errno));
        rc = TC_RECORD_EXIT_USAGE;
        goto out;
    }
    fflush(stdout);
    fflush(err);
    pid = fork();
    if (pid < 0) {
        fprintf(err, "tracecost: fork: %s\n", strerror(errno));
        close(pipefd[0]);
        close(pipefd[1]);
        rc = TC_RECORD_EXIT_USAGE;
        goto out;
    }
    if (pid == 0) {
        close(pipefd[0]);
        child_exec(argv + o.cmd, lib, dir, &o, &sv, pipefd[1]);
    }
    close(pipefd[1]);
    ssize_t n;
    do n = read(pipefd[0], &exec_errno, sizeof exec_errno);
    while (n < 0 && errno == EINTR);
    close(pipefd[0]);
    status = wait_child(pid, &waitset);
    if (n == (ssize_t)sizeof exec_errno) {
        fprintf(err, "tracecost: cannot run %s: %s\n", argv[o.cmd], strerror(exec_errno));
        rc = exec_errno == ENOENT ? TC_RECORD_EXIT_NOTFOUND : TC_RECORD_EXIT_NOEXEC;
        goto out;
    }
    if (status < 0) {
        fprintf(err, "tracecost: waiting for %s: %s\n", argv[o.cmd], strerror(errno));
        rc = TC_RECORD_EXIT_USAGE;
    } else if (WIFEXITED(status)) {
        rc = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        rc = 128 + WTERMSIG(status);
    } else {
        rc = TC_RECORD_EXIT_USAGE;
    }
    long made = count_traces(dir) - before;
    if (made > 0)
        fprintf(err, "tracecost: %ld trace file%s in %s\n", made, made == 1 ? "" : "s", dir);
    else
        fprintf(err, "tracecost: no trace written to %s (did %s use CUDA?)%s\n", dir, argv[o.cmd],
                access(dir, F_OK) == 0 ? "" : "; the directory was not made");
out:
    sigprocmask(SIG_SETMASK, &sv.mask, NULL);
    sigaction(SIGINT, &sv.intr, NULL);
    sigaction(SIGQUIT, &sv.quit, NULL);
    sigaction(SIGUSR2, &sv.usr2, NULL);
    sigaction(SIGCHLD, &sv.chld, NULL);
    return rc;
}
