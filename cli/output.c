/* output.c: checking (no clash, no input-like file replaced without --force), opening (a temporary
 * file beside a regular target), finishing (renamed over it) and announcing every output (see output.h). */
#define _GNU_SOURCE /* memmem */
#include "output.h"
#include "async_file.h"
#include "base/version.h"
#include "diag.h"
#include "exitcodes.h"
#include "reports/compare_report.h"
#include "reports/termtext.h"
#include "reports/textfmt.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The first bytes of a file tracecost wrote itself: optional whitespace, optionally "[" (a --window
 * all array) and "{", then the schema key first with one of our schemas. */
static bool ours_at_start(const char *p, const char *end) {
    static const char *const schemas[] = {"\"" TC_SCHEMA "\"", "\"" TC_COMPARE_SCHEMA "\""};
    while (p < end && strchr(" \t\r\n", *p)) p++;
    if (p < end && *p == '[') p++;
    while (p < end && strchr(" \t\r\n", *p)) p++;
    if (p >= end || *p++ != '{') return false;
    while (p < end && strchr(" \t\r\n", *p)) p++;
    if ((size_t)(end - p) < 8 || memcmp(p, "\"schema\"", 8)) return false;
    p += 8;
    while (p < end && strchr(" \t\r\n:", *p)) p++;
    for (size_t k = 0; k < sizeof schemas / sizeof schemas[0]; k++) {
        size_t n = strlen(schemas[k]);
        if ((size_t)(end - p) >= n && !memcmp(p, schemas[k], n)) return true;
    }
    return false;
}

/* Whether the last bytes of the open file fd (size bytes) hold a tracecost timeline's otherData. */
static bool timeline_at_end(int fd, off_t size) {
    static const char mark[] = "\"otherData\":{\"schema\":\"tracecost-timeline/1\"";
    enum { TAIL = 1 << 20 }; /* otherData grows with the ranks' clock offsets: ~30 bytes each */
    off_t from = size > TAIL ? size - TAIL : 0;
    char *buf = malloc(TAIL);
    if (!buf) return false;
    ssize_t got = pread(fd, buf, (size_t)(size - from), from);
    bool found = got > 0 && memmem(buf, (size_t)got, mark, sizeof mark - 1) != NULL;
    free(buf);
    return found;
}

/* What the regular file path holds that a reader would take for an input ("a trace (gzip)"), or NULL
 * when it may be replaced: it does not exist, is not a regular file, cannot be read (the write
 * says why), or holds none (docs/cli.md, "Outputs"). */
static const char *input_like(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    char head[4096];
    ssize_t n = pread(fd, head, sizeof head, 0);
    const char *what = NULL;
    const char *p = head, *end = head + (n > 0 ? n : 0);
    if (end - p >= 2 && (unsigned char)p[0] == 0x1f && (unsigned char)p[1] == 0x8b) what = "a trace (gzip)";
    if (end - p >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) p += 3; /* a BOM */
    while (!what && p < end && strchr(" \t\r\n", *p)) p++;
    if (!what && p < end && (*p == '{' || *p == '[') && !ours_at_start(p, end) && !timeline_at_end(fd, st.st_size)) {
        if (*p == '[') what = "a trace (a JSON array of events)";
        else if (memmem(p, (size_t)(end - p), "\"traceEvents\"", 13)) what = "a trace (Chrome trace JSON)";
        else what = "JSON that tracecost did not write (a trace, an NCCL log)";
    }
    close(fd);
    return what;
}

int tc_output_check_existing(const tc_output_spec *outs, size_t n_outs, bool force, char *err, size_t errlen) {
    if (force) return 0;
    file_id *ids = NULL;
    size_t n = 0;
    int rc = output_files(outs, n_outs, &ids, &n);
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *what = input_like(ids[i].shown);
        if (!what) continue;
        char a[512];
        snprintf(err, errlen, "%s %s: the file is %s: refusing to overwrite it; pass --force to replace it",
                 ids[i].option, tc_term_clean(a, sizeof a, ids[i].shown, 200), what);
        rc = 1;
    }
    if (rc < 0) snprintf(err, errlen, "out of memory");
    for (size_t i = 0; i < n; i++) free_id(&ids[i]);
    free(ids);
    return rc ? -1 : 0;
}

/* Opens a temporary file beside o->target: "DIR/.NAME.tracecost-PID-K", the first K that does not
 * exist (O_EXCL), with the mode of the file it replaces (mode; 0 when none: 0666 less the umask).
 * The stream, or NULL with errno set. */
static FILE *open_beside(tc_output *o, mode_t mode) {
    const char *slash = strrchr(o->target, '/');
    int dlen = slash ? (int)(slash - o->target + 1) : 0;
    size_t n = strlen(o->target) + 64;
    o->tmp = malloc(n);
    if (!o->tmp) return NULL;
    int fd = -1;
    for (int k = 0; k < 1000 && fd < 0; k++) {
        snprintf(o->tmp, n, "%.*s.%s.tracecost-%ld-%d", dlen, o->target, o->target + dlen, (long)getpid(), k);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    int why = errno;
    FILE *f = NULL;
    if (fd >= 0) {
        if (mode) (void)fchmod(fd, mode & 07777);
        f = tc_async_open(fd, &o->async); /* else written by this thread */
        if (f) o->fd = fd;
        else f = fdopen(fd, "w");
        if (!f) { why = errno; close(fd); unlink(o->tmp); }
    }
    if (!f) { free(o->tmp); o->tmp = NULL; }
    errno = why;
    return f;
}

int tc_output_open(tc_output *o, const char *cmd, const char *path) {
    memset(o, 0, sizeof *o);
    o->path = path;
    o->fd = -1;
    if (!strcmp(path, "-")) { o->f = stdout; return 0; }
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) o->f = fopen(path, "w"); /* a device, a FIFO: in place */
    else if (exists && access(path, W_OK) != 0) o->f = NULL;     /* a file we may not write: as fopen would say */
    else {
        o->target = exists ? realpath(path, NULL) : strdup(path); /* a link: the file it names is replaced */
        o->f = o->target ? open_beside(o, exists ? st.st_mode : 0) : NULL;
    }
    if (o->f) return 0;
    int why = errno;
    free(o->target);
    o->target = NULL;
    tc_diag(stderr, "tracecost %s: %s: cannot write: %s\n", cmd, path, strerror(why));
    return -1;
}

int tc_output_close(tc_output *o, const char *cmd, int write_rc, bool tell) {
    FILE *f = o->f;
    const char *path = o->path;
    errno = 0;
    int bad = write_rc != 0 || ferror(f);
    int why = errno;
    long size = -1;
    if (f == stdout) {
        if (fflush(f) != 0) { bad = 1; why = errno; }
    } else if (o->async) { /* every byte written by the thread, then the file's size */
        struct stat st;
        if (tc_async_finish(f, o->async) != 0 && !bad) { bad = 1; why = errno; }
        if (fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode)) size = (long)st.st_size;
        if (close(o->fd) != 0 && !bad) { bad = 1; why = errno; }
    } else {
        struct stat st; /* the size of a regular file, to tell; a device or pipe has none */
        if (fflush(f) == 0 && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) size = (long)st.st_size;
        if (fclose(f) != 0 && !bad) { bad = 1; why = errno; }
    }
    if (o->tmp && !bad && rename(o->tmp, o->target) != 0) { bad = 1; why = errno; }
    if (o->tmp && bad) unlink(o->tmp); /* the old file stays whole */
    free(o->tmp);
    free(o->target);
    memset(o, 0, sizeof *o);
    if (!bad) {
        if (tell && size >= 0) {
            char shown[1024], bytes[32];
            tc_fmt_grouped(bytes, sizeof bytes, (double)size, 0);
            fprintf(stderr, "tracecost %s: wrote %s (%s byte%s)\n", cmd, tc_term_clean(shown, sizeof shown, path, 0), bytes,
                    size == 1 ? "" : "s");
        }
        return TC_EXIT_OK;
    }
    tc_diag(stderr, "tracecost %s: %s: write failed%s%s\n", cmd, strcmp(path, "-") ? path : "standard output",
            why ? ": " : "", why ? strerror(why) : "");
    return TC_EXIT_OUTPUT;
}

int tc_output_close_stdout(const char *cmd, int write_rc) {
    tc_output o = {.f = stdout, .path = "-", .fd = -1};
    return tc_output_close(&o, cmd, write_rc, false);
}

int tc_output_finish_stdout(void) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return TC_EXIT_OK;
    int why = errno;
    fprintf(stderr, "tracecost: standard output: write failed%s%s\n", why ? ": " : "", why ? strerror(why) : "");
    return TC_EXIT_OUTPUT;
}
