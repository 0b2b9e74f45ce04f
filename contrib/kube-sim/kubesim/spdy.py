"""SPDY/3.1 framing, as kubectl and the kubelet use it for port forwarding
(the spdystream library on both sides): frames in and out of a byte
stream, header blocks compressed with zlib and SPDY/3's dictionary.
Pure: no sockets here (kubesim.spdyforward moves the bytes).

A frame is 8 bytes of head and a payload. A control frame's head has the
high bit set, the version (3) and a type; a data frame's head is the
stream id. Both end with 8 bits of flags and a 24-bit length.
Header blocks are a count, then length-prefixed names and values (32-bit
big-endian), compressed by one zlib stream per direction that starts with
the SPDY/3 dictionary and is flushed (sync) after each block.

Flow control: SPDY/3.1 has per-stream windows (64 KiB at first) that the
receiver opens with WINDOW_UPDATE. spdystream neither sends nor heeds
WINDOW_UPDATE (nor SETTINGS), so a peer that waited for one would stall;
WINDOW_UPDATE and SETTINGS are parsed and their values kept, and sending
is bounded by the transport's back-pressure instead, as between kubectl
and a kubelet.
"""

import struct
import zlib

VERSION = 3

SYN_STREAM = 1
SYN_REPLY = 2
RST_STREAM = 3
SETTINGS = 4
PING = 6
GOAWAY = 7
HEADERS = 8
WINDOW_UPDATE = 9

FLAG_FIN = 0x01

# RST_STREAM status codes
PROTOCOL_ERROR = 1
INVALID_STREAM = 2
REFUSED_STREAM = 3
CANCEL = 5

MAX_LENGTH = (1 << 24) - 1
INITIAL_WINDOW = 64 * 1024
HEADER_BLOCK_MAX = 1 << 20


class ProtocolError(Exception):
    """The peer broke SPDY: the session ends (with GOAWAY)."""


def _dictionary():
    """SPDY/3's zlib dictionary: common header words, each with a 32-bit
    length in front, then status lines, dates and media types as one run
    of text (1423 bytes in all)."""
    words = (
        "options head post put delete trace accept accept-charset "
        "accept-encoding accept-language accept-ranges age allow "
        "authorization cache-control connection content-base "
        "content-encoding content-language content-length content-location "
        "content-md5 content-range content-type date etag expect expires from "
        "host if-match if-modified-since if-none-match if-range "
        "if-unmodified-since last-modified location max-forwards pragma "
        "proxy-authenticate proxy-authorization range referer retry-after "
        "server te trailer transfer-encoding upgrade user-agent vary via "
        "warning www-authenticate method get status").split()
    words += ["200 OK", "version", "HTTP/1.1", "url", "public", "set-cookie",
              "keep-alive", "origin"]
    out = b"".join(struct.pack(">I", len(w)) + w.encode() for w in words)
    codes = ("100 101 201 202 205 206 300 302 303 304 305 306 307 402 405 406 "
             "407 408 409 410 411 412 413 414 415 416 417 502 504 505").split()
    reasons = ("203 Non-Authoritative Information", "204 No Content",
               "301 Moved Permanently", "400 Bad Request", "401 Unauthorized",
               "403 Forbidden", "404 Not Found", "500 Internal Server Error",
               "501 Not Implemented", "503 Service Unavailable")
    tail = "".join(codes) + "".join(reasons)
    tail += "Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 "
    tail += "Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT"
    tail += ("chunked,text/html,image/png,image/jpg,image/gif,application/xml,"
             "application/xhtml+xml,text/plain,text/javascript,public")
    tail += "privatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0."
    return out + tail.encode()


DICTIONARY = _dictionary()
# what the spec prints, byte for byte
assert len(DICTIONARY) == 1423 and zlib.adler32(DICTIONARY) == 0xE3C6A7C2


class Frame:
    """One frame: kind is a control type, or 0 for data."""

    __slots__ = ("kind", "flags", "stream_id", "data", "headers", "status", "delta",
                 "ping_id", "settings")

    def __init__(self, kind, flags, stream_id=0, data=b""):
        self.kind = kind
        self.flags = flags
        self.stream_id = stream_id
        self.data = data
        self.headers = None
        self.status = 0
        self.delta = 0
        self.ping_id = 0
        self.settings = None

    @property
    def fin(self):
        return bool(self.flags & FLAG_FIN)


class Codec:
    """One side of a session: frames parsed from the bytes fed in, frames
    encoded for sending, each direction with its own zlib stream."""

    def __init__(self):
        self._buf = bytearray()
        self._inflate = zlib.decompressobj(zdict=DICTIONARY)
        self._deflate = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, 15, 8,
                                         zlib.Z_DEFAULT_STRATEGY, DICTIONARY)

    # ---- in ----

    def feed(self, data):
        """The frames that `data` completes."""
        self._buf += data
        frames = []
        while len(self._buf) >= 8:
            length = int.from_bytes(self._buf[5:8], "big")
            if len(self._buf) < 8 + length:
                break
            head, payload = bytes(self._buf[:8]), bytes(self._buf[8:8 + length])
            del self._buf[:8 + length]
            frames.append(self._parse(head, payload))
        return frames

    def _parse(self, head, payload):
        word, flags = struct.unpack(">I", head[:4])[0], head[4]
        if not word & 0x80000000:
            return Frame(0, flags, word & 0x7FFFFFFF, payload)
        version, kind = (word >> 16) & 0x7FFF, word & 0xFFFF
        if version != VERSION:
            raise ProtocolError("SPDY version %d, not 3" % version)
        frame = Frame(kind, flags)
        if kind in (SYN_STREAM, SYN_REPLY, RST_STREAM, HEADERS, WINDOW_UPDATE):
            self._need(payload, 4 if kind != RST_STREAM else 8, kind)
            frame.stream_id = struct.unpack(">I", payload[:4])[0] & 0x7FFFFFFF
        if kind == SYN_STREAM:
            self._need(payload, 10, kind)
            frame.headers = self._headers(payload[10:])
        elif kind in (SYN_REPLY, HEADERS):
            frame.headers = self._headers(payload[4:])
        elif kind == RST_STREAM:
            frame.status = struct.unpack(">I", payload[4:8])[0]
        elif kind == WINDOW_UPDATE:
            self._need(payload, 8, kind)
            frame.delta = struct.unpack(">I", payload[4:8])[0] & 0x7FFFFFFF
        elif kind == PING:
            self._need(payload, 4, kind)
            frame.ping_id = struct.unpack(">I", payload[:4])[0]
        elif kind == GOAWAY:
            self._need(payload, 8, kind)
            frame.stream_id = struct.unpack(">I", payload[:4])[0] & 0x7FFFFFFF
            frame.status = struct.unpack(">I", payload[4:8])[0]
        elif kind == SETTINGS:
            frame.settings = self._settings(payload)
        return frame

    @staticmethod
    def _need(payload, n, kind):
        if len(payload) < n:
            raise ProtocolError("a control frame of type %d is %d bytes, too short"
                                % (kind, len(payload)))

    @staticmethod
    def _settings(payload):
        Codec._need(payload, 4, SETTINGS)
        count = struct.unpack(">I", payload[:4])[0]
        if len(payload) < 4 + 8 * count:
            raise ProtocolError("SETTINGS names more entries than it holds")
        out = {}
        for i in range(count):
            word, value = struct.unpack(">II", payload[4 + 8 * i:12 + 8 * i])
            out[word & 0xFFFFFF] = value
        return out

    def _headers(self, block):
        """A header block: {lowercase name: [values]}. The zlib stream goes
        on across blocks, so every block must be inflated, in order."""
        try:
            raw = self._inflate.decompress(block, HEADER_BLOCK_MAX)
        except zlib.error as e:
            raise ProtocolError("a header block does not inflate: %s" % e)
        if self._inflate.unconsumed_tail:
            raise ProtocolError("a header block over %d bytes" % HEADER_BLOCK_MAX)
        headers, pos = {}, 4
        if len(raw) < 4:
            raise ProtocolError("a header block without its count")
        for _ in range(struct.unpack(">I", raw[:4])[0]):
            name, pos = self._string(raw, pos)
            value, pos = self._string(raw, pos)
            headers.setdefault(name.decode("latin-1").lower(), []).extend(
                v.decode("latin-1") for v in value.split(b"\0"))
        return headers

    @staticmethod
    def _string(raw, pos):
        if pos + 4 > len(raw):
            raise ProtocolError("a header block ends inside a length")
        n = struct.unpack(">I", raw[pos:pos + 4])[0]
        if pos + 4 + n > len(raw):
            raise ProtocolError("a header block ends inside a name or value")
        return raw[pos + 4:pos + 4 + n], pos + 4 + n

    # ---- out ----

    @staticmethod
    def _control(kind, flags, payload):
        return struct.pack(">IB", 0x80000000 | VERSION << 16 | kind, flags) + \
            len(payload).to_bytes(3, "big") + payload

    def _block(self, headers):
        raw = struct.pack(">I", len(headers))
        for name, value in headers.items():
            n, v = name.lower().encode("latin-1"), value.encode("latin-1")
            raw += struct.pack(">I", len(n)) + n + struct.pack(">I", len(v)) + v
        return self._deflate.compress(raw) + self._deflate.flush(zlib.Z_SYNC_FLUSH)

    def syn_reply(self, stream_id, headers=None, fin=False):
        payload = struct.pack(">I", stream_id) + self._block(headers or {})
        return self._control(SYN_REPLY, FLAG_FIN if fin else 0, payload)

    @staticmethod
    def data_head(stream_id, n, fin=False):
        """The 8-byte head of a DATA frame of n bytes (n <= MAX_LENGTH)."""
        return (struct.pack(">IB", stream_id & 0x7FFFFFFF, FLAG_FIN if fin else 0) +
                n.to_bytes(3, "big"))

    @staticmethod
    def data(stream_id, data, fin=False):
        """DATA frames for `data` (one empty frame when there is none)."""
        out, view = [], memoryview(data)
        while True:
            piece, view = view[:MAX_LENGTH], view[MAX_LENGTH:]
            last = not view
            out.append(struct.pack(">IB", stream_id & 0x7FFFFFFF,
                                   FLAG_FIN if fin and last else 0) +
                       len(piece).to_bytes(3, "big") + piece)
            if last:
                return b"".join(out)

    def rst_stream(self, stream_id, status):
        return self._control(RST_STREAM, 0, struct.pack(">II", stream_id, status))

    def ping(self, ping_id):
        return self._control(PING, 0, struct.pack(">I", ping_id))

    def goaway(self, last_stream_id, status=0):
        return self._control(GOAWAY, 0, struct.pack(">II", last_stream_id, status))
