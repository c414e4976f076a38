/* tg_out.c: tracegen's output side: errors, allocation, folders, the seeded hash, and the buffered
 * sink (plain file or zlib gzip) that every trace byte goes through. The JSON writer on top of it is
 * inline in tracegen.h. */
#define _POSIX_C_SOURCE 200809L
#include "tracegen.h"
#include <sys/stat.h>
#include <sys/types.h>

void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tracegen: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

void *xcalloc(size_t n, size_t sz) {
  void *p = calloc(n ? n : 1, sz ? sz : 1);
  if (!p) die("out of memory");
  return p;
}

void *xrealloc(void *p, size_t n, size_t sz) {
  if (sz && n > SIZE_MAX / sz) die("out of memory");
  size_t bytes = n * sz;
  void *q = realloc(p, bytes ? bytes : 1);
  if (!q) die("out of memory");
  return q;
}

void rec_add(grec_list *l, const grec *g) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 1024;
    l->v = xrealloc(l->v, l->cap, sizeof *l->v);
  }
  l->v[l->n++] = *g;
}

void mkdir_p(const char *dir) {
  char *p = strdup(dir);
  if (!p) die("out of memory");
  for (char *s = p + 1; *s; s++) {
    if (*s == '/') {
      *s = 0;
      if (mkdir(p, 0777) != 0 && errno != EEXIST) die("mkdir %s: %s", p, strerror(errno));
      *s = '/';
    }
  }
  if (mkdir(p, 0777) != 0 && errno != EEXIST) die("mkdir %s: %s", p, strerror(errno));
  free(p);
}

/* ------------------------------------------------------------------ PRNG (splitmix64 hash) */
static uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
uint64_t h4(uint64_t seed, uint64_t a, uint64_t b, uint64_t c) {
  return mix64(seed ^ mix64(a ^ mix64(b ^ mix64(c + 0x51ed27ULL))));
}

/* ------------------------------------------------------------------ output sink */
void s_flush(sink_t *s) {
  if (s->grow) { /* a memory buffer: room for one more byte */
    s_grow(s, s->len + 1);
    return;
  }
  if (s->len == 0) return;
  if (s->fp) {
    if (fwrite(s->buf, 1, s->len, s->fp) != s->len) die("write %s: %s", s->path, strerror(errno));
  } else if (s->gz) {
    size_t done = 0;
    while (done < s->len) {
      unsigned chunk = (unsigned)((s->len - done) > (1u << 30) ? (1u << 30) : (s->len - done));
      int w = gzwrite(s->gz, s->buf + done, chunk);
      if (w <= 0) {
        int e;
        die("gzwrite %s: %s", s->path, gzerror(s->gz, &e));
      }
      done += (size_t)w;
    }
  }
  s->total += s->len;
  s->len = 0;
}

void s_open(sink_t *s, const char *path, int gz, int level) {
  memset(s, 0, sizeof *s);
  s->cap = 8u << 20;
  s->buf = xcalloc(1, s->cap);
  s->path = path;
  if (!path) return; /* counting sink */
  if (gz) {
    char mode[8];
    snprintf(mode, sizeof mode, "wb%d", level);
    s->gz = gzopen(path, mode);
    if (!s->gz) die("cannot create %s", path);
    gzbuffer(s->gz, 1u << 20);
  } else {
    s->fp = fopen(path, "wb");
    if (!s->fp) die("cannot create %s: %s", path, strerror(errno));
  }
}

void s_close(sink_t *s) {
  s_flush(s);
  if (s->fp && fclose(s->fp) != 0) die("close %s: %s", s->path, strerror(errno));
  if (s->gz && gzclose(s->gz) != Z_OK) die("gzclose %s failed", s->path);
  free(s->buf);
  s->buf = NULL;
}

void s_escaped(sink_t *s, const char *p) {
  static const char hex[] = "0123456789abcdef";
  s_ch(s, '"');
  const char *run = p;
  for (; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    s_put(s, run, (size_t)(p - run));
    run = p + 1;
    switch (c) {
    case '"': S_LIT(s, "\\\""); break;
    case '\\': S_LIT(s, "\\\\"); break;
    case '\n': S_LIT(s, "\\n"); break;
    case '\t': S_LIT(s, "\\t"); break;
    default: {
      char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      s_put(s, u, 6);
    }
    }
  }
  s_put(s, run, (size_t)(p - run));
  s_ch(s, '"');
}

/* a memory sink (grow set) holds at least need bytes */
void s_grow(sink_t *s, size_t need) {
  size_t cap = s->cap ? s->cap : 4096;
  while (cap < need) cap *= 2;
  s->buf = xrealloc(s->buf, cap, 1);
  s->cap = cap;
}

/* ------------------------------------------------------------------ sorted layout (indent 2, sorted keys) */
/* The compact JSON jw writes while capturing (", " and ": " separators, strings as s_escaped
 * writes them) is laid out again as Python's json.dumps(obj, indent=2, sort_keys=True) lays it out:
 * one member or element per line, indented 2 spaces per depth, "," ending every line but a
 * container's last, keys in code-point order (byte order: keys are UTF-8), "{}" and "[]" empty. */
#define JW_MAX_MEMBERS 128

static size_t fmt_ws(const char *t, size_t i) {
  while (t[i] == ' ') i++;
  return i;
}

/* end of the string token at t[i] ('"') */
static size_t fmt_string_end(const char *t, size_t i) {
  for (i++; t[i] != '"'; i++)
    if (t[i] == '\\') i++;
  return i + 1;
}

/* end of the value at t[i] */
static size_t fmt_skip(const char *t, size_t i) {
  if (t[i] == '"') return fmt_string_end(t, i);
  if (t[i] != '{' && t[i] != '[') {
    while (t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' && t[i]) i++;
    return i;
  }
  int depth = 0;
  for (;;) {
    char c = t[i];
    if (c == '"') { i = fmt_string_end(t, i); continue; }
    if (c == '{' || c == '[') depth++;
    else if ((c == '}' || c == ']') && --depth == 0) return i + 1;
    i++;
  }
}

typedef struct {
  size_t key, key_len; /* the key's text between its quotes */
  size_t val;          /* where its value starts */
} fmt_member;

static int fmt_member_cmp(const char *t, const fmt_member *a, const fmt_member *b) {
  size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
  int c = memcmp(t + a->key, t + b->key, n);
  return c ? c : (a->key_len > b->key_len) - (a->key_len < b->key_len);
}

/* the members of the object at t[i] ('{'), sorted by key; returns their number */
static int fmt_members(const char *t, size_t i, fmt_member *m) {
  int n = 0;
  i = fmt_ws(t, i + 1);
  while (t[i] != '}') {
    if (n == JW_MAX_MEMBERS) die("internal: an object of more than %d members", JW_MAX_MEMBERS);
    size_t ke = fmt_string_end(t, i);
    fmt_member x = {i + 1, ke - i - 2, 0};
    i = fmt_ws(t, ke);
    x.val = fmt_ws(t, i + 1); /* past ':' */
    i = fmt_ws(t, fmt_skip(t, x.val));
    if (t[i] == ',') i = fmt_ws(t, i + 1);
    int k = n++; /* insertion sort: a few dozen members at most */
    while (k > 0 && fmt_member_cmp(t, &m[k - 1], &x) > 0) { m[k] = m[k - 1]; k--; }
    m[k] = x;
  }
  return n;
}

static void fmt_line(sink_t *s, int depth) {
  s_ch(s, '\n');
  s_spaces(s, 2 * depth);
}

/* writes the value at t[i], at depth `depth` (its members or elements at depth + 1) */
static void fmt_value(sink_t *s, const char *t, size_t i, int depth) {
  if (t[i] == '{') {
    fmt_member m[JW_MAX_MEMBERS];
    int n = fmt_members(t, i, m);
    s_ch(s, '{');
    for (int k = 0; k < n; k++) {
      if (k) s_ch(s, ',');
      fmt_line(s, depth + 1);
      s_put(s, t + m[k].key - 1, m[k].key_len + 2);
      S_LIT(s, ": ");
      fmt_value(s, t, m[k].val, depth + 1);
    }
    if (n) fmt_line(s, depth);
    s_ch(s, '}');
  } else if (t[i] == '[') {
    s_ch(s, '[');
    int n = 0;
    for (i = fmt_ws(t, i + 1); t[i] != ']'; n++) {
      if (n) s_ch(s, ',');
      fmt_line(s, depth + 1);
      fmt_value(s, t, i, depth + 1);
      i = fmt_ws(t, fmt_skip(t, i));
      if (t[i] == ',') i = fmt_ws(t, i + 1);
    }
    if (n) fmt_line(s, depth);
    s_ch(s, ']');
  } else {
    s_put(s, t + i, fmt_skip(t, i) - i);
  }
}

/* the captured object closed: lay it out into the real sink */
void jw_capture_end(jw_t *j) {
  s_ch(&j->cap, '\0');
  j->capturing = 0;
  j->s = j->out;
  fmt_value(j->out, j->cap.buf, 0, j->cap_depth);
}

/* from here the top object's members are captured (jw_top_emit writes them) */
void jw_top_capture_begin(jw_t *j) {
  j->capturing = 1;
  j->cap_depth = -1; /* no close ends it */
  j->cap.len = 0;
  j->s = &j->cap;
  s_ch(j->s, '{');
}

/* Writes the captured top members whose keys sort before `split` (after = 0; the capture ends
 * here) or after it (after = 1), as members of the top object. */
void jw_top_emit(jw_t *j, const char *split, int after) {
  if (!after) {
    s_ch(&j->cap, '}');
    s_ch(&j->cap, '\0');
    j->capturing = 0;
    j->s = j->out;
    j->first[j->depth] = 1; /* the captured members set it */
    free(j->top);
    j->top = xcalloc(1, j->cap.len);
    memcpy(j->top, j->cap.buf, j->cap.len);
  }
  if (!j->top) return;
  fmt_member m[JW_MAX_MEMBERS];
  int n = fmt_members(j->top, 0, m);
  size_t sl = strlen(split);
  for (int k = 0; k < n; k++) {
    size_t kl = m[k].key_len;
    int cmp = memcmp(j->top + m[k].key, split, kl < sl ? kl : sl);
    if (!cmp) cmp = (kl > sl) - (kl < sl);
    if ((cmp > 0) != (after != 0)) continue;
    jw_sep(j);
    s_put(j->s, j->top + m[k].key - 1, kl + 2);
    S_LIT(j->s, ": ");
    fmt_value(j->s, j->top, m[k].val, j->depth);
  }
}

void jw_free(jw_t *j) {
  free(j->cap.buf);
  free(j->top);
  j->cap.buf = j->top = NULL;
}
