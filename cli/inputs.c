/* inputs.c: operand expansion and rank assignment (see inputs.h). */
#define _POSIX_C_SOURCE 200809L
#include "inputs.h"
#include "model/group_ranks.h"
#include "diag.h"
#include "exitcodes.h"
#include "base/util.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static bool is_trace_name(const char *name) {
    return name[0] != '.' && (ends_with(name, ".json") || ends_with(name, ".json.gz"));
}

static int add_owned(tc_input_list *l, char *d, bool from_folder) {
    size_t n = l->n;
    if (!d || tc_grow((void **)&l->from_folder, &l->cap_from, n + 1, sizeof *l->from_folder) ||
        TC_PUSH(l->paths, l->n, l->cap, d)) { free(d); return -1; }
    l->from_folder[n] = from_folder;
    return 0;
}

static int add(tc_input_list *l, const char *p) { return add_owned(l, tc_strdup(p), false); }

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A note line (printf-style) for the caller to print; dropped out of memory. */
static void note(tc_input_list *l, const char *fmt, ...) TC_FORMAT_LIKE(2, 3);
static void note(tc_input_list *l, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = tc_vformat_alloc(fmt, ap);
    va_end(ap);
    if (s && TC_PUSH(l->notes, l->n_notes, l->cap_notes, s)) free(s);
}

static const char *file_kind(mode_t m) {
    return S_ISDIR(m) ? "a folder" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a regular file";
}

#define MAX_DEPTH 32 /* subfolder levels --recursive descends */

/* Adds the traces of dir (and with `recursive` those of its subfolders, not following symbolic
 * links to folders; names starting with "." are passed over) to l. An entry with a trace's name
 * that stat cannot follow (dangling link, link loop) stays, so loading says why it fails; one that
 * is not a regular file is never opened (reading a FIFO could wait forever): a note, counted in
 * n_unusable. Returns 0, or -1 when out of memory or dir cannot be opened (message). */
static int walk_folder(tc_input_list *l, const char *dir, bool recursive, int depth, char *err, size_t errlen) {
    DIR *d = opendir(dir);
    if (!d) {
        if (depth == 0) snprintf(err, errlen, "%s: cannot open folder: %s", dir, strerror(errno));
        return depth == 0 ? -1 : 0; /* an unreadable subfolder is passed over */
    }
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        char *p = malloc(len);
        if (!p) { rc = -1; break; }
        snprintf(p, len, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", de->d_name);
        struct stat st;
        if (recursive && depth < MAX_DEPTH && lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            rc = walk_folder(l, p, true, depth + 1, err, errlen);
            free(p);
        } else if (!is_trace_name(de->d_name)) {
            free(p);
        } else if (stat(p, &st) != 0 || S_ISREG(st.st_mode)) {
            rc = add_owned(l, p, true);
        } else {
            note(l, "warning: %s: %s, not a trace file: skipped", p, file_kind(st.st_mode));
            l->n_unusable++;
            free(p);
        }
    }
    closedir(d);
    return rc;
}

static int add_folder(tc_input_list *l, const char *dir, bool recursive, char *err, size_t errlen) {
    size_t first = l->n, unusable = l->n_unusable, first_note = l->n_notes;
    if (walk_folder(l, dir, recursive, 0, err, errlen)) return -1;
    tc_sort(l->notes + first_note, l->n_notes - first_note, sizeof *l->notes, cmp_str); /* by name, as the paths */
    if (l->n == first) {
        tc_input_list below; /* none here: are there in its subfolders? */
        memset(&below, 0, sizeof below);
        size_t n = !recursive && walk_folder(&below, dir, true, 0, err, errlen) == 0 ? below.n : 0;
        tc_input_list_free(&below);
        if (n)
            snprintf(err, errlen, "%s: folder holds no traces (*.json, *.json.gz), but its subfolders hold %zu: pass "
                     "--recursive to read them", dir, n);
        else
            snprintf(err, errlen, "%s: folder holds no traces (*.json, *.json.gz)%s", dir,
                     l->n_unusable > unusable ? "; the entries with those names are not regular files" : "");
        return -1;
    }
    tc_sort(l->paths + first, l->n - first, sizeof *l->paths, cmp_str); /* from_folder[] is all true there */
    return 0;
}

typedef struct { dev_t dev; ino_t ino; size_t at; } file_id;

static int cmp_file_id(const void *a, const void *b) {
    const file_id *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* Keeps the first of the inputs that are one file (same device and inode; "-" by its descriptor),
 * with a note for each one left out. Inputs stat cannot reach are kept (loading reports them).
 * 0, or -1 out of memory. */
static int drop_same_files(tc_input_list *l) {
    file_id *ids = malloc((l->n ? l->n : 1) * sizeof *ids);
    size_t *same_as = malloc((l->n ? l->n : 1) * sizeof *same_as); /* the input it repeats, or SIZE_MAX */
    if (!ids || !same_as) { free(ids); free(same_as); return -1; }
    size_t m = 0;
    for (size_t i = 0; i < l->n; i++) {
        struct stat st;
        same_as[i] = SIZE_MAX;
        if ((strcmp(l->paths[i], "-") == 0 ? fstat(STDIN_FILENO, &st) : stat(l->paths[i], &st)) != 0) continue;
        ids[m++] = (file_id){st.st_dev, st.st_ino, i};
    }
    tc_sort(ids, m, sizeof *ids, cmp_file_id); /* a file's first place first among its copies */
    for (size_t k = 1, first = 0; k < m; k++) {
        if (ids[k].dev != ids[first].dev || ids[k].ino != ids[first].ino) first = k;
        else same_as[ids[k].at] = ids[first].at;
    }
    for (size_t i = 0; i < l->n; i++) { /* notes in input order, before the list moves */
        if (same_as[i] == SIZE_MAX) continue;
        if (strcmp(l->paths[i], l->paths[same_as[i]]) == 0) note(l, "note: %s is named twice: read once", l->paths[i]);
        else note(l, "note: %s is the same file as %s: read once", l->paths[i], l->paths[same_as[i]]);
    }
    size_t kept = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (same_as[i] != SIZE_MAX) { free(l->paths[i]); continue; }
        l->from_folder[kept] = l->from_folder[i];
        l->paths[kept++] = l->paths[i];
    }
    l->n = kept;
    free(ids);
    free(same_as);
    return 0;
}

static int expand_operands(char *const *ops, size_t n, bool recursive, tc_input_list *out, char *err, size_t errlen) {
    bool stdin_used = false;
    for (size_t i = 0; i < n; i++) {
        const char *op = ops[i];
        struct stat st;
        if (strcmp(op, "-") == 0) {
            if (stdin_used) { snprintf(err, errlen, "-: standard input can be read only once"); return -1; }
            stdin_used = true;
            if (add(out, op)) goto oom;
        } else if (stat(op, &st) == 0) {
            if (S_ISDIR(st.st_mode)) { if (add_folder(out, op, recursive, err, errlen)) return -1; }
            else if (add(out, op)) goto oom;
        } else if (strpbrk(op, "*?[")) {
            glob_t g;
            int grc = glob(op, 0, NULL, &g);
            if (grc != 0) {
                snprintf(err, errlen, "%s: no file matches", op);
                if (grc == GLOB_NOMATCH || grc == 0) globfree(&g);
                return -1;
            }
            for (size_t k = 0; k < g.gl_pathc; k++)
                if (add(out, g.gl_pathv[k])) { globfree(&g); goto oom; }
            globfree(&g);
        } else {
            snprintf(err, errlen, "%s: cannot open: %s", op, strerror(errno));
            return -1;
        }
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

int tc_inputs_expand(char *const *ops, size_t n, bool recursive, tc_input_list *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    snprintf(err, errlen, "out of memory"); /* unless a failure says more */
    int rc = expand_operands(ops, n, recursive, out, err, errlen);
    if (rc == 0 && drop_same_files(out)) rc = -1;
    if (rc) tc_input_list_free(out);
    return rc;
}

int tc_inputs_print_notes(const tc_input_list *l, FILE *f) {
    for (size_t i = 0; i < l->n_notes; i++) tc_diag(f, "tracecost: %s\n", l->notes[i]);
    return l->n_unusable ? TC_EXIT_DAMAGED : TC_EXIT_OK;
}

void tc_input_list_free(tc_input_list *l) {
    for (size_t i = 0; i < l->n; i++) free(l->paths[i]);
    free(l->paths);
    free(l->from_folder);
    for (size_t i = 0; i < l->n_notes; i++) free(l->notes[i]);
    free(l->notes);
    memset(l, 0, sizeof *l);
}

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

void tc_inputs_assign_ranks(tc_trace *traces, size_t n) {
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

int tc_inputs_check_job(const tc_trace *traces, size_t n, char *err, size_t errlen) {
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

long tc_inputs_windows(const tc_trace *traces, size_t n, size_t *window_of, char *err, size_t errlen) {
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
