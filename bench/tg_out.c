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
