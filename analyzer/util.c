/* util.c: growable arrays and small shared helpers (see util.h). */
#include "util.h"
#include <stdlib.h>
#include <string.h>

int tc_grow(void **ptr, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) return -1;
        ncap *= 2;
    }
    if (elem && ncap > SIZE_MAX / elem) return -1;
    void *p = realloc(*ptr, ncap * elem);
    if (!p) return -1;
    *ptr = p;
    *cap = ncap;
    return 0;
}

char *tc_strdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void tc_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
    if (n < 2 || !base) return;
    /* traces are mostly written in order: skip the sort when the data already is */
    const char *b = base;
    size_t i = 1;
    while (i < n && cmp(b + (i - 1) * size, b + i * size) <= 0) i++;
    if (i < n) qsort(base, n, size, cmp);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tc_median(const double *v, size_t n) {
    if (n == 0) return 0;
    double *c = malloc(n * sizeof *c);
    if (!c) return v[0];
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    double m = (n % 2) ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}
