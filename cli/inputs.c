/* inputs.c: operand expansion and rank assignment (see inputs.h). */
#define _POSIX_C_SOURCE 200809L
#include "inputs.h"
#include "base/util.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static int add_folder(tc_input_list *l, const char *dir, char *err, size_t errlen) {
    DIR *d = opendir(dir);
    if (!d) { snprintf(err, errlen, "%s: cannot open folder: %s", dir, strerror(errno)); return -1; }
    size_t first = l->n;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!is_trace_name(de->d_name)) continue;
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        char *p = malloc(len);
        if (!p) { closedir(d); return -1; }
        snprintf(p, len, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", de->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            if (add_owned(l, p, true)) { closedir(d); return -1; }
        } else free(p);
    }
    closedir(d);
    if (l->n == first) {
        snprintf(err, errlen, "%s: folder holds no traces (*.json, *.json.gz)", dir);
        return -1;
    }
    tc_sort(l->paths + first, l->n - first, sizeof *l->paths, cmp_str); /* from_folder[] is all true there */
    return 0;
}

int tc_inputs_expand(char *const *ops, size_t n, tc_input_list *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    bool stdin_used = false;
    for (size_t i = 0; i < n; i++) {
        const char *op = ops[i];
        struct stat st;
        if (strcmp(op, "-") == 0) {
            if (stdin_used) { snprintf(err, errlen, "-: standard input can be read only once"); return -1; }
            stdin_used = true;
            if (add(out, op)) goto oom;
        } else if (stat(op, &st) == 0) {
            if (S_ISDIR(st.st_mode)) { if (add_folder(out, op, err, errlen)) return -1; }
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

void tc_input_list_free(tc_input_list *l) {
    for (size_t i = 0; i < l->n; i++) free(l->paths[i]);
    free(l->paths);
    free(l->from_folder);
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
            while (isdigit((unsigned char)*d) && v < 100000000) v = v * 10 + (*d++ - '0');
            found = v; /* the last "rankN" of the name wins */
        }
    }
    return found;
}

int tc_inputs_assign_ranks(tc_trace *traces, size_t n, char *err, size_t errlen) {
    for (size_t i = 0; i < n; i++) {
        if (traces[i].rank >= 0) continue;
        int64_t r = tc_rank_from_name(traces[i].path);
        traces[i].rank = r >= 0 ? r : (int64_t)i;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = i + 1; k < n; k++)
            if (traces[i].rank == traces[k].rank) {
                snprintf(err, errlen, "%s and %s are both rank %lld: the inputs of one analyze call must be the ranks "
                         "of one job (analyze them separately)", traces[i].path, traces[k].path, (long long)traces[i].rank);
                return -1;
            }
    return 0;
}
