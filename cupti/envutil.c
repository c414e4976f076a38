/* envutil.c: exact seconds parsing, rank discovery from launcher variables, and making the output
 * folder (see envutil.h). No CUDA, no allocation. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "envutil.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int tc_parse_seconds_ns(const char *text, uint64_t *ns) {
    *ns = 0;
    if (!text || !*text) return -1;
    const uint64_t max_whole = UINT64_MAX / 1000000000u - 1;
    uint64_t whole = 0, frac = 0;
    const char *p = text;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        whole = whole * 10 + (uint64_t)(*p - '0');
        if (whole > max_whole) return -1;
    }
    if (*p == '.') {
        p++;
        int fd = 0;
        for (; *p >= '0' && *p <= '9'; p++, fd++) {
            if (fd >= 9) return -1;
            frac = frac * 10 + (uint64_t)(*p - '0');
        }
        if (fd == 0 && digits == 0) return -1;
        for (int i = fd; i < 9; i++) frac *= 10;
        digits += fd;
    }
    if (*p != '\0' || digits == 0) return -1;
    *ns = whole * 1000000000u + frac;
    return 0;
}

int tc_parse_nonneg_int(const char *text) {
    if (!text || !*text) return -1;
    long v = 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
        if (v > 0x7fffffffL) return -1;
    }
    return (int)v;
}

static int first_int_env(const char *const *names) {
    for (; *names; names++) {
        int v = tc_parse_nonneg_int(getenv(*names));
        if (v >= 0) return v;
    }
    return -1;
}

void tc_dist_env_read(tc_dist_env *out) {
    static const char *const rank[] = {"RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID",
                                       "PMI_RANK", "PMIX_RANK", NULL};
    static const char *const size[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS",
                                       "PMI_SIZE", NULL};
    static const char *const local[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                                        "MPI_LOCALRANKID", "SLURM_LOCALID", NULL};
    out->rank = first_int_env(rank);
    out->world_size = first_int_env(size);
    out->local_rank = first_int_env(local);
}

int tc_mkdir_p(const char *path) {
    char tmp[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof tmp) return ENAMETOOLONG;
    memcpy(tmp, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (tmp[i] != '/' && tmp[i] != 0) continue;
        char saved = tmp[i];
        tmp[i] = 0;
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return errno;
        tmp[i] = saved;
    }
    struct stat st;
    if (stat(path, &st) != 0) return errno;
    return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}
