#!/usr/bin/env python3
"""The deterministic block gzip of runai-adm images push --compress gzip,
written again from its description (lib/adm/reg_gzip.h) with Python's
zlib, so the tests can check the C code's bytes and digests:

    detgzip.py FILE...     prints "sha256:<hex> SIZE" of each file's gzip

A fixed 10-byte header (mtime 0, XFL 4, OS 255); the input in blocks of
256 KiB, each raw deflate at level 1 primed with the 32 KiB before it and
ended by a sync flush, or stored when a level 1 deflate of its first
8 KiB saves less than 1/32; an empty final block; crc32 and size.
"""
import hashlib
import struct
import sys
import zlib

BLOCK = 256 << 10
DICT = 32 << 10
SAMPLE = 8 << 10
HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x04\xff"


def raw_deflate(dictionary=b""):
    if dictionary:
        return zlib.compressobj(1, zlib.DEFLATED, -15, 8, 0, zdict=dictionary)
    return zlib.compressobj(1, zlib.DEFLATED, -15, 8, 0)


def incompressible(block):
    s = block[:SAMPLE]
    c = raw_deflate()
    return len(c.compress(s) + c.flush()) * 32 > len(s) * 31


def stored(block):
    out = []
    for i in range(0, len(block), 65535):
        part = block[i:i + 65535]
        n = len(part)
        out.append(struct.pack("<BHH", 0, n, n ^ 0xffff) + part)
    return b"".join(out)


def gzip_bytes(data):
    out = [HEADER]
    for at in range(0, len(data), BLOCK):
        block = data[at:at + BLOCK]
        if incompressible(block):
            out.append(stored(block))
        else:
            c = raw_deflate(data[max(0, at - DICT):at])
            out.append(c.compress(block) + c.flush(zlib.Z_SYNC_FLUSH))
    out.append(b"\x03\x00" + struct.pack("<II", zlib.crc32(data),
                                         len(data) & 0xffffffff))
    return b"".join(out)


def main():
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            g = gzip_bytes(f.read())
        print("sha256:%s %d" % (hashlib.sha256(g).hexdigest(), len(g)))


if __name__ == "__main__":
    main()
