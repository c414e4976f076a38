/* inputs.c: operands to the paths of a job (see inputs.h). */
#define _POSIX_C_SOURCE 200809L
#include "inputs.h"
#include "base/util.h"
#include "nccl_inspector.h"
#include <dirent.h>
#include <errno.h>
#include <glob.h>
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

static int cmp_note_text(const void *a, const void *b) {
    return strcmp(((const tc_note *)a)->text, ((const tc_note *)b)->text);
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
        } else if ((ends_with(de->d_name, ".log") || ends_with(de->d_name, ".json") || ends_with(de->d_name, ".txt") ||
                    ends_with(de->d_name, ".prom")) && stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
                   (ends_with(de->d_name, ".log") || tc_nccl_file_sniff(p))) {
            /* NCCL's own files: Inspector logs, plugin traces (*.json, *.txt before 2.27, by content),
             * Inspector Prometheus textfiles (*.prom, by content) */
            if (TC_PUSH(l->logs, l->n_logs, l->cap_logs, p)) { free(p); rc = -1; }
        } else if (!is_trace_name(de->d_name)) {
            free(p);
        } else if (stat(p, &st) != 0 || S_ISREG(st.st_mode)) {
            rc = add_owned(l, p, true);
        } else {
            tc_notes_add(&l->notes, TC_NOTE_NOT_REGULAR, p, "%s: %s, not a trace file: skipped", p, file_kind(st.st_mode));
            l->n_unusable++;
            free(p);
        }
    }
    closedir(d);
    return rc;
}

/* Whether one of the logs from the first on is an NCCL file by content (nccl_inspector.h). */
static bool nccl_files_from(const tc_input_list *l, size_t first) {
    for (size_t i = first; i < l->n_logs; i++)
        if (tc_nccl_file_sniff(l->logs[i])) return true;
    return false;
}

static int add_folder(tc_input_list *l, const char *dir, bool recursive, bool nccl_alone, char *err, size_t errlen) {
    size_t first = l->n, unusable = l->n_unusable, first_note = l->notes.n, first_log = l->n_logs;
    if (walk_folder(l, dir, recursive, 0, err, errlen)) return -1;
    tc_sort(l->notes.v + first_note, l->notes.n - first_note, sizeof *l->notes.v, cmp_note_text); /* by name, as the paths */
    if (l->n == first && !(nccl_alone && nccl_files_from(l, first_log))) {
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
    tc_sort(l->logs, l->n_logs, sizeof *l->logs, cmp_str);
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
        if (strcmp(l->paths[i], l->paths[same_as[i]]) == 0)
            tc_notes_add(&l->notes, TC_NOTE_NAMED_TWICE, l->paths[i], "%s is named twice: read once", l->paths[i]);
        else
            tc_notes_add(&l->notes, TC_NOTE_SAME_FILE, l->paths[i], "%s is the same file as %s: read once", l->paths[i],
                         l->paths[same_as[i]]);
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

static int expand_operands(char *const *ops, size_t n, bool recursive, bool nccl_alone, tc_input_list *out, char *err,
                           size_t errlen) {
    bool stdin_used = false;
    for (size_t i = 0; i < n; i++) {
        const char *op = ops[i];
        struct stat st;
        if (strcmp(op, "-") == 0) {
            if (stdin_used) { snprintf(err, errlen, "-: standard input can be read only once"); return -1; }
            stdin_used = true;
            if (add(out, op)) goto oom;
        } else if (stat(op, &st) == 0) {
            if (S_ISDIR(st.st_mode)) { if (add_folder(out, op, recursive, nccl_alone, err, errlen)) return -1; }
            else if (nccl_alone && S_ISREG(st.st_mode) && tc_nccl_file_sniff(op)) {
                char *d = tc_strdup(op); /* an NCCL log named alone: beside the traces, not one */
                if (!d || TC_PUSH(out->logs, out->n_logs, out->cap_logs, d)) { free(d); goto oom; }
            } else if (add(out, op)) goto oom;
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

static tc_status expand(char *const *ops, size_t n, bool recursive, bool nccl_alone, tc_input_list *out, tc_error *e) {
    memset(out, 0, sizeof *out);
    tc_error_set(e, TC_ERR_NOMEM, "out of memory"); /* unless a failure says more */
    int rc = expand_operands(ops, n, recursive, nccl_alone, out, e->msg, sizeof e->msg);
    if (rc == 0 && drop_same_files(out)) rc = -1;
    if (rc == 0) { tc_error_clear(e); return TC_OK; }
    if (strcmp(e->msg, "out of memory") != 0) e->code = TC_ERR_INPUT;
    tc_input_list_free(out);
    return e->code;
}

void tc_input_list_free(tc_input_list *l) {
    for (size_t i = 0; i < l->n; i++) free(l->paths[i]);
    free(l->paths);
    free(l->from_folder);
    for (size_t i = 0; i < l->n_logs; i++) free(l->logs[i]);
    free(l->logs);
    tc_notes_free(&l->notes);
    memset(l, 0, sizeof *l);
}


tc_status tc_inputs_expand(char *const *ops, size_t n, bool recursive, tc_input_list *out, tc_error *e) {
    return expand(ops, n, recursive, false, out, e);
}

tc_status tc_inputs_expand_nccl(char *const *ops, size_t n, bool recursive, tc_input_list *out, tc_error *e) {
    return expand(ops, n, recursive, true, out, e);
}
