"""WebSocket (RFC 6455) framing for the server side of pods/exec and
pods/attach, and the Kubernetes channel protocols carried over it.

Only what an API server needs: the handshake answer, an incremental frame
parser (the caller feeds it whatever bytes arrived, so a frame split
across TCP/TLS reads is fine), and frame encoding. No I/O happens here,
which keeps this module easy to test and to fuzz by hand.

Kubernetes' remote-command subprotocols put one channel byte in front of
every binary message: 0 stdin, 1 stdout, 2 stderr, 3 error (a Status in
v4/v5), 4 resize ({"Width":W,"Height":H}), and in v5 255 = "close this
channel" (the client closing stdin).
"""

import base64
import ctypes
import hashlib
import os
import struct

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

OP_CONT = 0x0
OP_TEXT = 0x1
OP_BINARY = 0x2
OP_CLOSE = 0x8
OP_PING = 0x9
OP_PONG = 0xA
_CONTROL = (OP_CLOSE, OP_PING, OP_PONG)
_KNOWN = (OP_CONT, OP_TEXT, OP_BINARY) + _CONTROL

# close codes
CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001
CLOSE_PROTOCOL_ERROR = 1002
CLOSE_TOO_BIG = 1009

# Kubernetes channels
STDIN, STDOUT, STDERR, ERROR, RESIZE, CLOSE_STREAM = 0, 1, 2, 3, 4, 255

# Subprotocols we speak, best first. "channel.k8s.io" (v1) has no resize
# channel and sends plain text on the error channel; v4 sends a Status
# there; v5 adds the close-stream channel.
V5 = "v5.channel.k8s.io"
V4 = "v4.channel.k8s.io"
V1 = "channel.k8s.io"
SUPPORTED = (V5, V4, V1)

# A message bigger than this is refused (close 1009): kubectl sends stdin
# in small pieces, and every buffer here must have a cap.
MAX_MESSAGE = 1 << 20


class ProtocolError(Exception):
    """The peer broke RFC 6455; `code` is the close code to answer with."""

    def __init__(self, message, code=CLOSE_PROTOCOL_ERROR):
        super().__init__(message)
        self.code = code


def accept_key(key):
    """Sec-WebSocket-Accept for a Sec-WebSocket-Key."""
    digest = hashlib.sha1((key.strip() + GUID).encode("ascii")).digest()
    return base64.b64encode(digest).decode("ascii")


def valid_key(key):
    """A client key is base64 of 16 bytes."""
    try:
        return len(base64.b64decode(key.strip(), validate=True)) == 16
    except (ValueError, TypeError):
        return False


def offered_protocols(header_values):
    """The subprotocols a client offered, in its order (the header may be
    repeated and each value may be a comma list)."""
    out = []
    for value in header_values or []:
        out += [p.strip() for p in value.split(",") if p.strip()]
    return out


def choose_protocol(offered, supported=SUPPORTED):
    """Our most preferred subprotocol among those offered, or None."""
    for proto in supported:
        if proto in offered:
            return proto
    return None


# XOR with each byte value, as bytes.translate tables: _mask_translate
# XORs every fourth byte with one table, which runs in C.
_XOR_TABLES = [bytes(b ^ k for b in range(256)) for k in range(256)]


def _mask_translate(data, key, start=0, end=None):
    """XORs data[start:end] (all of data by default) with the 4-byte key
    (masking and unmasking alike); returns the result as a bytearray.

    Four strided translate passes, one per key byte: about twice the
    speed of XOR on big integers for the 32 KiB and larger frames a
    client's stdin or upload sends, which the emulator relays for the
    benches. The strided slices are taken from data itself (bytes or a
    bytearray, not a memoryview, whose strided copies go byte by byte),
    so the frame is never copied whole first; nor is the result copied
    into bytes at the end (a fifth of the time on a 128 KiB frame)."""
    if not isinstance(data, (bytes, bytearray)):
        data = bytes(data)  # a memoryview: one copy, then the fast slices
    end = len(data) if end is None else end
    out = bytearray(end - start)
    for j in range(4):
        out[j::4] = data[start + j:end:4].translate(_XOR_TABLES[key[j]])
    return out


def _load_native_mask():
    """kubesim_mask() of _wsmask.so beside this module (make builds it
    from native/wsmask.c), or None where it is not built or will not load
    (kube-sim then masks in Python). KUBESIM_PURE_PYTHON=1 leaves it
    unloaded, to measure or test the Python path alone."""
    if os.environ.get("KUBESIM_PURE_PYTHON") == "1":
        return None
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_wsmask.so")
    if not os.path.exists(path):
        return None
    try:
        fn = ctypes.CDLL(path).kubesim_mask
    except (OSError, AttributeError):
        return None
    fn.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p)
    fn.restype = None
    return fn


NATIVE_MASK = _load_native_mask()

# Below this many bytes the ctypes call costs more than the translate
# passes save (measured here, C against Python: 2.6 against 1.7 us at
# 512 bytes, 3.0 against 2.9 at 1 KiB, 3.4 against 4.5 at 2 KiB).
_NATIVE_FROM = 1024


def _mask(data, key, start=0, end=None):
    """_mask_translate's result, computed in C where _wsmask.so is loaded
    (about 5.6 GB/s here against 0.9 GB/s for the translate passes, on
    the 128 KiB frames runai and kubectl send their stdin in)."""
    end = len(data) if end is None else end
    n = end - start
    if NATIVE_MASK is None or n < _NATIVE_FROM:
        return _mask_translate(data, key, start, end)
    if not isinstance(data, bytearray):
        with memoryview(data) as view:
            data = bytearray(view[start:end])  # bytes or a view: one copy
        start = 0
    out = bytearray(n)
    # ctypes views of both buffers, gone when this returns (a bytearray
    # cannot be resized while a view of it lives)
    dst = (ctypes.c_char * n).from_buffer(out)
    src = (ctypes.c_char * n).from_buffer(data, start)
    NATIVE_MASK(dst, src, n, bytes(key))
    return out


def _frame_head(opcode, n, fin=True, masked=False):
    """A frame's header up to (not including) a mask key, for n bytes."""
    first = (0x80 if fin else 0) | (opcode & 0x0F)
    mask_bit = 0x80 if masked else 0
    if n < 126:
        return bytes((first, mask_bit | n))
    if n < 1 << 16:
        return struct.pack("!BBH", first, mask_bit | 126, n)
    return struct.pack("!BBQ", first, mask_bit | 127, n)


def encode_frame(opcode, payload=b"", fin=True, mask_key=None):
    """One frame. Servers send unmasked frames; mask_key (4 bytes) is for
    tests that play the client."""
    head = _frame_head(opcode, len(payload), fin, mask_key is not None)
    if mask_key is not None:
        return b"".join((head, mask_key, _mask(payload, mask_key)))
    return b"".join((head, payload))


def binary_head(n):
    """The header of an unmasked binary message of n bytes."""
    return _frame_head(OP_BINARY, n)


def channel_head(channel, n):
    """The header of a channel message carrying n bytes of data: the
    frame's header and the channel byte."""
    return _frame_head(OP_BINARY, n + 1) + bytes((channel,))


def encode_channel(channel, data):
    """A Kubernetes channel message: a binary frame, channel byte first.
    data may be any bytes-like object (a memoryview slice): the frame is
    built with one copy, which is most of what relaying bulk data costs."""
    return b"".join((channel_head(channel, len(data)), data))


def encode_close(code=CLOSE_NORMAL, reason=""):
    return encode_frame(OP_CLOSE, struct.pack("!H", code) + reason.encode("utf-8")[:120])


def parse_close(payload):
    """(code, reason) of a close frame's payload; (None, "") when empty."""
    if len(payload) < 2:
        return None, ""
    code = struct.unpack("!H", payload[:2])[0]
    return code, payload[2:].decode("utf-8", "replace")


class FrameParser:
    """Incremental frame parser.

    feed(data) returns the complete messages the bytes finished, as
    (opcode, payload) pairs: data messages reassembled from their
    fragments, and control frames (ping, pong, close) as they come, even
    between the fragments of a data message.
    """

    def __init__(self, max_message=MAX_MESSAGE, require_mask=True):
        self.max_message = max_message
        self.require_mask = require_mask
        self.buf = bytearray()        # bytes received, not yet parsed
        self._frag_op = None          # opcode of the message being reassembled
        self._frag = bytearray()

    def feed(self, data=b""):
        """Adds data to buf (a reader may also append to buf itself and
        call feed() with nothing) and parses what buf holds."""
        self.buf += data
        out = []
        while True:
            frame = self._next_frame()
            if frame is None:
                return out
            msg = self._assemble(*frame)
            if msg is not None:
                out.append(msg)

    def _next_frame(self):
        """(fin, opcode, payload) of the first whole frame buffered, or None."""
        buf = self.buf
        if len(buf) < 2:
            return None
        b0, b1 = buf[0], buf[1]
        if b0 & 0x70:
            raise ProtocolError("reserved bits set (no extension was negotiated)")
        fin, opcode = bool(b0 & 0x80), b0 & 0x0F
        masked, n = bool(b1 & 0x80), b1 & 0x7F
        if opcode not in _KNOWN:
            raise ProtocolError("unknown opcode %d" % opcode)
        if self.require_mask and not masked:
            raise ProtocolError("client frames must be masked")
        pos = 2
        if n == 126:
            if len(buf) < 4:
                return None
            n = struct.unpack_from("!H", buf, 2)[0]
            pos = 4
        elif n == 127:
            if len(buf) < 10:
                return None
            n = struct.unpack_from("!Q", buf, 2)[0]
            pos = 10
        if opcode in _CONTROL and (n > 125 or not fin):
            raise ProtocolError("control frames must be short and unfragmented")
        if n + len(self._frag) > self.max_message:
            raise ProtocolError("message too big", CLOSE_TOO_BIG)
        key = None
        if masked:
            if len(buf) < pos + 4:
                return None
            key = bytes(buf[pos:pos + 4])
            pos += 4
        end = pos + n
        if len(buf) < end:
            return None
        if key is not None:
            payload = _mask(buf, key, pos, end)
        else:  # one copy, through a view released before buf shrinks
            with memoryview(buf) as view, view[pos:end] as body:
                payload = bytes(body)
        del buf[:end]
        return fin, opcode, payload

    def _assemble(self, fin, opcode, payload):
        if opcode in _CONTROL:
            return opcode, payload
        if opcode == OP_CONT:
            if self._frag_op is None:
                raise ProtocolError("continuation frame without a message to continue")
            self._frag += payload
            if not fin:
                return None
            msg = (self._frag_op, bytes(self._frag))
            self._frag_op, self._frag = None, bytearray()
            return msg
        if self._frag_op is not None:
            raise ProtocolError("new data message inside a fragmented one")
        if fin:
            return opcode, payload
        self._frag_op, self._frag = opcode, bytearray(payload)
        return None
