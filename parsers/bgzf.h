/* bgzf.h: BGZF gzip files (samtools' blocked gzip: every member carries its compressed size in a
 * "BC" extra subfield, decodes to at most 64 KiB and needs nothing from the members before it), so
 * a reader can find the members without inflating and inflate runs of them on several threads.
 * A file is BGZF here when its members so far say so; one that does not, or whose data is
 * damaged, makes the caller fall back to the one-stream reader (source.h), which decides what the
 * damage means and says where it is. Plain multi-member gzip (cat a.gz b.gz) and pigz
 * --independent are not found without inflating: gzsplit.h splits them at speculative candidates. */
#ifndef TC_BGZF_H
#define TC_BGZF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when the file at fd (size bytes) begins with a BGZF member. */
bool tc_bgzf_detect(int fd, uint64_t size);
/* The whole members from `from` (a member's start) on whose decoded bytes fit in cap: *to is the
 * compressed offset after them, *decoded their decoded size (the trailers' lengths). 1 when there
 * is at least one, 0 at the end of the file, -1 when the bytes at a member's start are no BGZF
 * member (or a read fails). */
int tc_bgzf_span(int fd, uint64_t size, uint64_t from, size_t cap, uint64_t *to, size_t *decoded);
/* Inflates the members in [from, to) into out (exactly `decoded` bytes), each checked against its
 * CRC-32 and length; in: scratch of to - from bytes. ISA-L when isal (and built with it), else
 * zlib. 0, or -1 on damage or a read error. */
int tc_bgzf_inflate(int fd, uint64_t from, uint64_t to, unsigned char *in, char *out, size_t decoded, bool isal);
#endif
