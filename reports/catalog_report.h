/* catalog_report.h: the GPU catalog (model/gpu_catalog.h) and the link catalog
 * (model/link_catalog.h) as `tracecost gpus` shows them: aligned tables with every entry's sources
 * and name patterns, or JSON arrays. Writers only. */
#ifndef TC_CATALOG_REPORT_H
#define TC_CATALOG_REPORT_H
#include <stdio.h>
#include "jsonw.h"

/* Writes the catalog for `tracecost gpus`: an aligned table no wider than 100 columns, then the
 * sources, name patterns and link of every entry, then the link catalog (tc_link_catalog_print).
 * Write errors show in ferror(out). */
void tc_gpu_catalog_print(FILE *out);

/* Writes the link catalog (`tracecost gpus --links`): a table of every link (id, name, scope, rated
 * GB/s per GPU in one direction, a NIC's line rate, date) and each one's source. */
void tc_link_catalog_print(FILE *out);

/* Writes the link catalog as one JSON array value: per link {id, name, scope ("intra-node" or
 * "inter-node"), rated_busbw_GBps, line_rate_Gbps (null inside a node), source, date}. */
void tc_link_catalog_json(jw *w);

/* Writes the catalog as one JSON array value (the caller writes any key before it): per GPU
 * {id, name, patterns[], peak_tflops{fp32..fp8, null when unsupported}, memory_bandwidth_GBps,
 * tdp_W, flops_source, spec_source, rent{usd_per_gpu_hour, date, source},
 * purchase{usd_per_gpu, date, source}, link (the id of its link inside a node, or null)}. */
void tc_gpu_catalog_json(jw *w);
#endif
