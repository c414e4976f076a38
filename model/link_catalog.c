/* link_catalog.c: the link table and the GPU-to-link table built from links.def, and their lookups
 * (see link_catalog.h). All data is const. */
#include "link_catalog.h"
#include <ctype.h>
#include <string.h>

#define INTRA TC_LINK_INTRA
#define INTER TC_LINK_INTER
static const tc_link_spec links[] = {
#define LINK(id, name, scope, rated, line, source, date) {id, name, scope, rated, line, source, date},
#include "links.def"
};
#undef INTRA
#undef INTER

static const struct { const char *gpu, *link; } gpu_links[] = {
#define GPU_LINK(gpu_id, link_id) {gpu_id, link_id},
#include "links.def"
};

#define N_LINKS (sizeof links / sizeof links[0])
#define N_GPU_LINKS (sizeof gpu_links / sizeof gpu_links[0])

size_t tc_link_count(void) { return N_LINKS; }

const tc_link_spec *tc_link_at(size_t i) { return i < N_LINKS ? &links[i] : NULL; }

const tc_link_spec *tc_link_find(const char *id) {
    if (!id) return NULL;
    bool any = false;
    for (const char *p = id; *p; p++) any |= isalnum((unsigned char)*p) != 0;
    if (!any) return NULL;
    for (size_t i = 0; i < N_LINKS; i++)
        if (tc_catalog_same_id(id, links[i].id)) return &links[i];
    return NULL;
}

const tc_link_spec *tc_link_of_gpu(const tc_gpu_spec *gpu) {
    if (!gpu) return NULL;
    for (size_t i = 0; i < N_GPU_LINKS; i++)
        if (strcmp(gpu_links[i].gpu, gpu->id) == 0) return tc_link_find(gpu_links[i].link);
    return NULL;
}

const char *tc_link_ids(char *buf, size_t n, tc_link_scope scope) {
    size_t len = 0;
    if (n) buf[0] = '\0';
    for (size_t i = 0; i < N_LINKS; i++) {
        if (links[i].scope != scope) continue;
        size_t need = strlen(links[i].id) + (len ? 2 : 0);
        if (len + need + 1 > n) break;
        if (len) { memcpy(buf + len, ", ", 2); len += 2; }
        memcpy(buf + len, links[i].id, strlen(links[i].id));
        len += strlen(links[i].id);
        buf[len] = '\0';
    }
    return buf;
}
