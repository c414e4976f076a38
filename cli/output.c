/* output.c: checking, opening, finishing and announcing every output (see output.h). */
#include "output.h"
#include "diag.h"
#include "exitcodes.h"
#include "reports/termtext.h"
#include "reports/textfmt.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What names one file: its device and inode when it exists, else the real path of the nearest
 * existing folder above it joined with the rest of the path. */
typedef struct {
    const char *option;  /* the output's option ("--json"), or NULL for an input */
    char *shown;         /* the path as the user spelled it (DIR/NAME for a folder output's file); malloc'd */
    bool exists;         /* stat succeeded */
    bool chardev;        /* a character device (/dev/null): several outputs may name it */
    dev_t dev;
    ino_t ino;
    char *where;         /* a path that does not exist: its canonical spelling (malloc'd); else NULL */
} file_id;

/* The canonical spelling of a path that may not exist: realpath of the longest existing folder
 * above it, then the rest as written. malloc'd, or NULL when out of memory. */
static char *canonical(const char *path) {
    char *r = realpath(path, NULL);
    if (r) return r;
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--; /* "out/" is "out" */
    size_t cut = len;
    while (cut > 0 && path[cut - 1] != '/') cut--;
    char *dir = cut == 0 ? strdup(".") : strndup(path, cut > 1 ? cut - 1 : 1);
    char *above = dir ? canonical(dir) : NULL;
    free(dir);
    if (!above) return NULL;
    size_t n = strlen(above) + (len - cut) + 2;
    char *out = malloc(n);
    if (out) snprintf(out, n, "%s%s%.*s", above, strcmp(above, "/") ? "/" : "", (int)(len - cut), path + cut);
    free(above);
    return out;
}

/* Fills id for path (shown: how to name it; malloc'd copy taken). -1 when out of memory. */
static int identify(file_id *id, const char *option, const char *shown) {
    memset(id, 0, sizeof *id);
    id->option = option;
    id->shown = strdup(shown);
    if (!id->shown) return -1;
    struct stat st;
    if (stat(shown, &st) == 0) {
        id->exists = true;
        id->chardev = S_ISCHR(st.st_mode);
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        return 0;
    }
    id->where = canonical(shown);
    return id->where ? 0 : -1;
}

static bool same_file(const file_id *a, const file_id *b) {
    if (a->exists != b->exists) return false;
    if (a->exists) return !a->chardev && !b->chardev && a->dev == b->dev && a->ino == b->ino;
    return strcmp(a->where, b->where) == 0;
}

/* The outputs' files: one per file output (none for "-"), one per name of a folder output. */
static int output_files(const tc_output_spec *outs, size_t n_outs, file_id **ids, size_t *n_ids) {
    size_t cap = 0;
    for (size_t i = 0; i < n_outs; i++) {
        if (!strcmp(outs[i].path, "-")) continue;
        for (size_t k = 0; outs[i].files && outs[i].files[k]; k++) cap++;
        if (!outs[i].files) cap++;
    }
    *ids = calloc(cap ? cap : 1, sizeof **ids);
    *n_ids = 0;
    if (!*ids) return -1;
    for (size_t i = 0; i < n_outs; i++) {
        const tc_output_spec *o = &outs[i];
        if (!strcmp(o->path, "-")) continue;
        if (!o->files) {
            if (identify(&(*ids)[(*n_ids)++], o->option, o->path)) return -1;
            continue;
        }
        size_t plen = strlen(o->path);
        for (size_t k = 0; o->files[k]; k++) {
            size_t n = plen + strlen(o->files[k]) + 2;
            char *p = malloc(n);
            if (!p) return -1;
            snprintf(p, n, "%s%s%s", o->path, plen && o->path[plen - 1] == '/' ? "" : "/", o->files[k]);
            int rc = identify(&(*ids)[(*n_ids)++], o->option, p);
            free(p);
            if (rc) return -1;
        }
    }
    return 0;
}

static void free_id(file_id *id) {
    free(id->shown);
    free(id->where);
}

/* The first clash between outputs, or of an output with an input, into err; 1 when there is one. */
static int find_clash(const file_id *ids, size_t n, char *const *inputs, size_t n_inputs, char *err, size_t errlen) {
    char a[512], b[512];
    for (size_t i = 0; i < n; i++)
        for (size_t k = i + 1; k < n; k++) {
            if (!same_file(&ids[i], &ids[k])) continue;
            snprintf(err, errlen, "%s %s and %s %s are the same file: give each output its own", ids[i].option,
                     tc_term_clean(a, sizeof a, ids[i].shown, 200), ids[k].option, tc_term_clean(b, sizeof b, ids[k].shown, 200));
            return 1;
        }
    for (size_t q = 0; q < n_inputs; q++) {
        if (!strcmp(inputs[q], "-")) continue;
        file_id in;
        if (identify(&in, NULL, inputs[q])) return -1;
        for (size_t i = 0; i < n && in.exists; i++) {
            if (!same_file(&ids[i], &in)) continue;
            snprintf(err, errlen, "%s %s is the input %s: writing it would destroy that input; name another file",
                     ids[i].option, tc_term_clean(a, sizeof a, ids[i].shown, 200), tc_term_clean(b, sizeof b, in.shown, 200));
            free_id(&in);
            return 1;
        }
        free_id(&in);
    }
    return 0;
}

int tc_output_check(const tc_output_spec *outs, size_t n_outs, char *const *inputs, size_t n_inputs, char *err,
                    size_t errlen) {
    const tc_output_spec *to_stdout = NULL;
    for (size_t i = 0; i < n_outs; i++) {
        if (strcmp(outs[i].path, "-")) continue;
        if (to_stdout) {
            snprintf(err, errlen, "%s and %s both write to standard output (-): only one output can go there",
                     to_stdout->option, outs[i].option);
            return -1;
        }
        to_stdout = &outs[i];
    }
    file_id *ids = NULL;
    size_t n = 0;
    int rc = output_files(outs, n_outs, &ids, &n);
    if (rc == 0) rc = find_clash(ids, n, inputs, n_inputs, err, errlen);
    if (rc < 0) snprintf(err, errlen, "out of memory");
    for (size_t i = 0; i < n; i++) free_id(&ids[i]);
    free(ids);
    return rc ? -1 : 0;
}

FILE *tc_output_open(const char *cmd, const char *path) {
    if (!strcmp(path, "-")) return stdout;
    FILE *f = fopen(path, "w");
    if (!f) tc_diag(stderr, "tracecost %s: %s: cannot write: %s\n", cmd, path, strerror(errno));
    return f;
}

int tc_output_close(const char *cmd, const char *path, FILE *f, int write_rc, bool tell) {
    errno = 0;
    int bad = write_rc != 0 || ferror(f);
    int why = errno;
    long size = -1;
    bool to_stdout = f == stdout;
    if (to_stdout) {
        if (fflush(f) != 0) { bad = 1; why = errno; }
    } else {
        struct stat st; /* the size of a regular file, to tell; a device or pipe has none */
        if (fflush(f) == 0 && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) size = (long)st.st_size;
        if (fclose(f) != 0) { bad = 1; why = errno; }
    }
    if (!bad) {
        if (tell && size >= 0) {
            char shown[1024], bytes[32];
            tc_fmt_grouped(bytes, sizeof bytes, (double)size, 0);
            fprintf(stderr, "tracecost %s: wrote %s (%s byte%s)\n", cmd, tc_term_clean(shown, sizeof shown, path, 0), bytes,
                    size == 1 ? "" : "s");
        }
        return TC_EXIT_OK;
    }
    if (!bad) return TC_EXIT_OK;
    tc_diag(stderr, "tracecost %s: %s: write failed%s%s\n", cmd, strcmp(path, "-") ? path : "standard output",
            why ? ": " : "", why ? strerror(why) : "");
    return TC_EXIT_OUTPUT;
}

int tc_output_finish_stdout(void) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return TC_EXIT_OK;
    int why = errno;
    fprintf(stderr, "tracecost: standard output: write failed%s%s\n", why ? ": " : "", why ? strerror(why) : "");
    return TC_EXIT_OUTPUT;
}
