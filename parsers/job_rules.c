/* job_rules.c: ranks, the one-job check and profiler windows of a job's traces (see job_rules.h). */
#include "job_rules.h"
#include "base/util.h"
#include "model/group_ranks.h"
#include "model/strtab.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t tc_rank_from_name(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int64_t found = -1;
    for (const char *s = base; *s; s++) {
        if (tolower((unsigned char)s[0]) == 'r' && tolower((unsigned char)s[1]) == 'a' &&
            tolower((unsigned char)s[2]) == 'n' && tolower((unsigned char)s[3]) == 'k') {
            const char *d = s + 4;
            if (*d == '-' || *d == '_') d++;
            if (!isdigit((unsigned char)*d)) continue;
            int64_t v = 0;
            bool fits = true; /* every digit counts: rank1000000000 and rank1000000001 differ */
            for (; isdigit((unsigned char)*d); d++)
                fits = fits && !__builtin_mul_overflow(v, 10, &v) && !__builtin_add_overflow(v, *d - '0', &v);
            if (fits) found = v; /* the last "rankN" of the name wins; one past int64 names no rank */
        }
    }
    return found;
}

void tc_job_assign_ranks(tc_trace *traces, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (traces[i].rank >= 0) continue;
        int64_t r = tc_rank_from_name(traces[i].path);
        traces[i].rank = r >= 0 ? r : (int64_t)i;
    }
}

/* Whether two pg_config ranks texts name the same ranks; a text that is not a plain list of ranks
 * (a truncated "[0, 1, ...]") says nothing, so it agrees with anything. */
static bool same_ranks(const char *x, const char *y) {
    int64_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    bool same = !tc_parse_group_ranks(x, &a, &na) || !tc_parse_group_ranks(y, &b, &nb) ||
                (na == nb && memcmp(a, b, na * sizeof *a) == 0);
    free(a);
    free(b);
    return same;
}

int tc_job_check_one(const tc_trace *traces, size_t n, char *err, size_t errlen) {
    const tc_trace *sized = NULL; /* the first input that gives a world size */
    for (size_t i = 0; i < n; i++) {
        const tc_trace *b = &traces[i];
        if (b->world_size <= 0) continue;
        if (!sized) { sized = b; continue; }
        if (b->world_size != sized->world_size) {
            snprintf(err, errlen, "%s says world_size %lld, %s says %lld: they are not the ranks of one job (analyze "
                     "each job separately)", sized->path, (long long)sized->world_size, b->path, (long long)b->world_size);
            return -1;
        }
    }
    /* each process group's members as the first input naming it lists them: by name, in one table */
    tc_strtab *names = tc_strtab_new();
    const tc_trace **first = NULL;
    const char **members = NULL;
    size_t cap_first = 0, cap_members = 0;
    int rc = names ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const tc_trace *b = &traces[i];
        for (size_t q = 0; rc == 0 && q < b->n_pgs; q++) {
            const tc_pg_info *y = &b->pgs[q];
            if (y->name == TC_NONE || y->ranks == TC_NONE) continue;
            const char *name = tc_trace_str(b, y->name), *ry = tc_trace_str(b, y->ranks);
            size_t known = tc_strtab_count(names);
            uint32_t id = tc_strtab_intern(names, name, tc_strtab_len(b->strings, y->name));
            if (id == TC_NONE || tc_grow((void **)&first, &cap_first, (size_t)id + 1, sizeof *first) ||
                tc_grow((void **)&members, &cap_members, (size_t)id + 1, sizeof *members)) { rc = -1; break; }
            if (id >= known) { first[id] = b; members[id] = ry; continue; }
            if (same_ranks(members[id], ry)) continue;
            snprintf(err, errlen, "%s and %s disagree on process group \"%.100s\": ranks %.200s vs %.200s: they are "
                     "not the ranks of one job (analyze each job separately)", first[id]->path, b->path, name, members[id], ry);
            rc = 1;
        }
    }
    if (rc < 0) snprintf(err, errlen, "out of memory");
    tc_strtab_free(names);
    free(first);
    free(members);
    return rc ? -1 : 0;
}

/* Inputs in the order windows are built: by epoch start, those without one after, by input. */
typedef struct { const tc_trace *t; size_t input; bool has; int64_t start, end; } timed_input;

static int cmp_timed(const void *x, const void *y) {
    const timed_input *a = x, *b = y;
    if (a->has != b->has) return a->has ? -1 : 1;
    if (a->has && a->start != b->start) return a->start < b->start ? -1 : 1;
    return (a->input > b->input) - (a->input < b->input);
}

/* Has window w (inputs by[0, m) assigned so far in window_of) a member of this rank? */
static const timed_input *rank_in_window(const timed_input *by, size_t m, const size_t *window_of, size_t w, int64_t rank) {
    for (size_t q = 0; q < m; q++)
        if (window_of[by[q].input] == w && by[q].t->rank == rank) return &by[q];
    return NULL;
}

long tc_job_windows(const tc_trace *traces, size_t n, size_t *window_of, char *err, size_t errlen) {
    bool repeated = false;
    for (size_t i = 0; i < n; i++) {
        window_of[i] = 0;
        for (size_t k = i + 1; k < n; k++) repeated |= traces[i].rank == traces[k].rank;
    }
    if (!repeated) return n ? 1 : 0;
    timed_input *by = calloc(n, sizeof *by);
    if (!by) { snprintf(err, errlen, "out of memory"); return -1; }
    for (size_t i = 0; i < n; i++) {
        by[i] = (timed_input){&traces[i], i, false, 0, 0};
        by[i].has = tc_trace_epoch_span(&traces[i], &by[i].start, &by[i].end);
    }
    tc_sort(by, n, sizeof *by, cmp_timed);
    long windows = 0;
    int64_t earliest_end = 0;
    for (size_t q = 0; q < n; q++) {
        const timed_input *same = windows ? rank_in_window(by, q, window_of, (size_t)windows - 1, by[q].t->rank) : NULL;
        bool after = windows && by[q].has && by[q].start >= earliest_end;
        if (same && (!same->has || !by[q].has || by[q].start < same->end)) {
            snprintf(err, errlen, "%s and %s are both rank %lld%s: the inputs of one analyze call must be the ranks of one "
                     "job, one file per rank and profiler window (analyze them separately)", same->t->path, by[q].t->path,
                     (long long)by[q].t->rank, same->has && by[q].has ? " at the same time" : ", and without absolute times "
                     "to tell profiler windows apart");
            free(by);
            return -1;
        }
        if (!windows || same || after) { windows++; earliest_end = by[q].has ? by[q].end : INT64_MAX; }
        else if (by[q].has && by[q].end < earliest_end) earliest_end = by[q].end;
        window_of[by[q].input] = (size_t)windows - 1;
    }
    free(by);
    return windows;
}
