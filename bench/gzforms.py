#!/usr/bin/env python3
"""gzforms.py: the gzip forms tracecost splits on the pool (docs/performance.md, "gzip on every
core"), written from a plain file with Python's zlib (no pigz or bgzip needed), level 6:
  flush  one gzip member with a full flush every 128 KiB of input, as `pigz --independent` writes
         (each flush ends in an empty stored block, 00 00 ff ff: tracecost's split candidates);
  bgzf   BGZF as `bgzip` writes it: members of at most 65280 input bytes, each with its BC extra
         subfield (the member's size), then the empty end-of-file member.
Usage: gzforms.py flush|bgzf IN OUT"""
import struct
import sys
import zlib


def flush(src, out):
    c = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: a gzip header and trailer
    while True:
        b = src.read(128 * 1024)
        if not b:
            break
        out.write(c.compress(b))
        out.write(c.flush(zlib.Z_FULL_FLUSH))
    out.write(c.flush())


def bgzf_member(out, b):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)  # raw deflate: the header is written here
    d = c.compress(b) + c.flush()
    # ID1 ID2 CM=8 FLG=FEXTRA, MTIME 0, XFL 0, OS 255, XLEN 6, subfield BC of 2 bytes: BSIZE - 1
    out.write(b"\x1f\x8b\x08\x04\0\0\0\0\0\xff" + struct.pack("<H", 6) + b"BC" + struct.pack("<HH", 2, len(d) + 25))
    out.write(d)
    out.write(struct.pack("<II", zlib.crc32(b), len(b)))


def bgzf(src, out):
    while True:
        b = src.read(65280)
        if not b:
            break
        bgzf_member(out, b)
    bgzf_member(out, b"")


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("flush", "bgzf"):
        sys.exit(__doc__.split("\n")[-1])
    with open(sys.argv[2], "rb") as src, open(sys.argv[3], "wb") as out:
        (flush if sys.argv[1] == "flush" else bgzf)(src, out)


if __name__ == "__main__":
    main()
