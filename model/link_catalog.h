/* link_catalog.h: the link catalog compiled from links.def: per link (NVLink generations, AMD
 * Infinity Fabric, PCIe inside a node; InfiniBand and Ethernet between nodes, one NIC per GPU) the
 * bandwidth one GPU is rated to send in one direction, with its source and date, and the link each
 * catalog GPU has inside its node. Read-only static data: every pointer returned points into the
 * catalog and lives for the whole program. `tracecost gpus` lists it (reports/catalog_report.h). */
#ifndef TC_LINK_CATALOG_H
#define TC_LINK_CATALOG_H
#include <stdbool.h>
#include <stddef.h>
#include "gpu_catalog.h"

/* Where a link runs. */
typedef enum {
    TC_LINK_INTRA = 0, /* a GPU's own interconnect inside its node */
    TC_LINK_INTER      /* a fabric between nodes (one NIC per GPU) */
} tc_link_scope;

typedef struct tc_link_spec {
    const char *id;          /* "nvlink4", "eth-100g": for --fabric and --fabric-target */
    const char *name;        /* display name, "NVLink 4", "Ethernet 100 Gb/s" */
    tc_link_scope scope;
    double rated_GBps;       /* per GPU, one direction, GB/s (1e9 bytes/s) */
    double line_Gbps;        /* a NIC's line rate, Gb/s; 0 inside a node */
    const char *source;      /* where rated_GBps comes from */
    const char *date;        /* when that source was published, "YYYY-MM" */
} tc_link_spec;

/* Number of links, and link i (NULL when i >= tc_link_count()). File order. */
size_t tc_link_count(void);
const tc_link_spec *tc_link_at(size_t i);

/* The link whose id is id, compared case-insensitively and ignoring everything but letters and
 * digits ("IB-NDR", "ib_ndr" and "ibndr" all work); NULL when none. */
const tc_link_spec *tc_link_find(const char *id);

/* The link inside a node of a catalog GPU; NULL for NULL or a GPU links.def gives none. */
const tc_link_spec *tc_link_of_gpu(const tc_gpu_spec *gpu);

/* The ids of the links of one scope, ", "-separated, into buf ("ib-edr, ib-hdr, ..."): for
 * messages and help. Returns buf. */
const char *tc_link_ids(char *buf, size_t n, tc_link_scope scope);
#endif
