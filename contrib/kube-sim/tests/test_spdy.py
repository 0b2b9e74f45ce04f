"""SPDY/3.1 framing (kubesim/spdy.py): frames a client sends are parsed,
header blocks inflate across frames with the SPDY/3 dictionary, and what
the server sends decodes the way a client would decode it; and the port
forwarding session over it (kubesim/spdyforward.py) when its pod ends."""

import io
import socket
import struct
import threading
import time
import unittest
import zlib

import support  # noqa: F401  (sys.path)
from kubesim import portforward, spdy, spdyforward, wsproto


class Client:
    """The client's half, written here from the framing rules: its own
    deflate stream for SYN_STREAM, its own inflate stream for replies."""

    def __init__(self):
        self.deflate = zlib.compressobj(9, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY,
                                        spdy.DICTIONARY)
        self.inflate = zlib.decompressobj(zdict=spdy.DICTIONARY)

    def block(self, headers):
        raw = struct.pack(">I", len(headers))
        for k, v in headers:
            raw += struct.pack(">I", len(k)) + k.encode() + struct.pack(">I", len(v)) + v.encode()
        return self.deflate.compress(raw) + self.deflate.flush(zlib.Z_SYNC_FLUSH)

    @staticmethod
    def control(kind, flags, payload):
        return struct.pack(">HHB", 0x8000 | 3, kind, flags) + len(payload).to_bytes(3, "big") + \
            payload

    def syn_stream(self, sid, headers, fin=False):
        payload = struct.pack(">IIBB", sid, 0, 0, 0) + self.block(headers)
        return self.control(spdy.SYN_STREAM, 1 if fin else 0, payload)


def pf_headers(kind, port, request_id):
    return [("streamtype", kind), ("port", str(port)), ("requestid", str(request_id))]


class Dictionary(unittest.TestCase):
    def test_the_spec_dictionary(self):
        self.assertEqual(len(spdy.DICTIONARY), 1423)
        self.assertTrue(spdy.DICTIONARY.startswith(b"\0\0\0\x07options\0\0\0\x04head"))
        self.assertTrue(spdy.DICTIONARY.endswith(b",*,enq=0."))


class FramesIn(unittest.TestCase):
    def test_syn_streams_inflate_in_order_across_frames(self):
        c, codec = Client(), spdy.Codec()
        wire = c.syn_stream(1, pf_headers("error", 8080, 0)) + \
            c.syn_stream(3, pf_headers("data", 8080, 0))
        frames = codec.feed(wire[:5]) + codec.feed(wire[5:])  # any split
        self.assertEqual([(f.kind, f.stream_id) for f in frames],
                         [(spdy.SYN_STREAM, 1), (spdy.SYN_STREAM, 3)])
        self.assertEqual(frames[1].headers,
                         {"streamtype": ["data"], "port": ["8080"], "requestid": ["0"]})

    def test_header_names_are_lowercased_and_values_split_on_nul(self):
        c, codec = Client(), spdy.Codec()
        f, = codec.feed(c.syn_stream(5, [("Port", "1\x002")]))
        self.assertEqual(f.headers, {"port": ["1", "2"]})

    def test_data_ping_goaway_window_update_settings_rst(self):
        c, codec = Client(), spdy.Codec()
        wire = struct.pack(">IB", 3, 1) + (2).to_bytes(3, "big") + b"hi"
        wire += c.control(spdy.PING, 0, struct.pack(">I", 7))
        wire += c.control(spdy.WINDOW_UPDATE, 0, struct.pack(">II", 3, 1 << 20))
        wire += c.control(spdy.SETTINGS, 0, struct.pack(">III", 1, 7, 1 << 17))
        wire += c.control(spdy.RST_STREAM, 0, struct.pack(">II", 3, spdy.CANCEL))
        wire += c.control(spdy.GOAWAY, 0, struct.pack(">II", 3, 0))
        d, p, w, s, r, g = codec.feed(wire)
        self.assertEqual((d.kind, d.stream_id, d.data, d.fin), (0, 3, b"hi", True))
        self.assertEqual((p.kind, p.ping_id), (spdy.PING, 7))
        self.assertEqual((w.stream_id, w.delta), (3, 1 << 20))
        self.assertEqual(s.settings, {7: 1 << 17})
        self.assertEqual((r.stream_id, r.status), (3, spdy.CANCEL))
        self.assertEqual((g.kind, g.stream_id), (spdy.GOAWAY, 3))

    def test_broken_frames_are_protocol_errors(self):
        c = Client()
        for wire in (struct.pack(">HHB", 0x8000 | 2, 6, 0) + b"\0\0\4" + b"\0\0\0\1",  # SPDY/2
                     c.control(spdy.PING, 0, b"\0"),                               # short
                     c.control(spdy.SYN_STREAM, 0, b"\0" * 10 + b"not zlib")):
            with self.assertRaises(spdy.ProtocolError):
                spdy.Codec().feed(wire)


class FramesOut(unittest.TestCase):
    def test_syn_reply_and_data_decode_as_a_client_would(self):
        c, codec = Client(), spdy.Codec()
        wire = codec.syn_reply(1) + codec.syn_reply(3, {"X-A": "b"}) + \
            codec.data(3, b"x" * 10) + codec.data(1, b"", fin=True)
        word, kind, flags = struct.unpack(">HHB", wire[:5])
        self.assertEqual((word, kind, flags), (0x8000 | 3, spdy.SYN_REPLY, 0))
        n = int.from_bytes(wire[5:8], "big")
        self.assertEqual(struct.unpack(">I", wire[8:12])[0], 1)
        self.assertEqual(c.inflate.decompress(wire[12:8 + n]), b"\0\0\0\0")
        rest = wire[8 + n:]
        m = int.from_bytes(rest[5:8], "big")
        self.assertEqual(c.inflate.decompress(rest[12:8 + m]),
                         b"\0\0\0\1\0\0\0\3x-a\0\0\0\1b")
        rest = rest[8 + m:]
        self.assertEqual(rest[:18], struct.pack(">IB", 3, 0) + b"\0\0\x0a" + b"x" * 10)
        self.assertEqual(rest[18:], struct.pack(">IB", 1, spdy.FLAG_FIN) + b"\0\0\0")

    def test_a_data_head_and_its_bytes_are_a_data_frame(self):
        for n in (0, 1, 125, 65536, 300000):
            with self.subTest(n=n):
                payload = bytes(range(256)) * (n // 256) + bytes(n % 256)
                self.assertEqual(spdy.Codec.data_head(7, n) + payload,
                                 spdy.Codec.data(7, payload))
        self.assertEqual(spdy.Codec.data_head(7, 0, fin=True), spdy.Codec.data(7, b"", fin=True))

    def test_ping_goaway_rst(self):
        codec = spdy.Codec()
        p, g, r = codec.feed(codec.ping(9) + codec.goaway(5, 1) + codec.rst_stream(3, 2))
        self.assertEqual((p.ping_id, g.stream_id, g.status, r.stream_id, r.status),
                         (9, 5, 1, 3, 2))


POD = {"metadata": {"name": "web", "namespace": "ns", "uid": "1234"}}


class FakeHandler:
    def __init__(self, sock):
        self.connection = sock
        self.rfile = io.BufferedReader(io.BytesIO(b""))


class Peer:
    """The client's end of a SPDY session on a socket: its SYN_STREAMs
    out; the server's data frames gathered per stream, with their FINs."""

    def __init__(self, sock):
        self.sock = sock
        self.c = Client()
        self.buf = b""
        self.data = {}
        self.fin = set()
        self.largest = 0           # the largest data frame's length
        self.next_id = 1

    def pair(self, port, request_id):
        """Asks for one forwarded connection; its (error, data) stream ids."""
        ids = (self.next_id, self.next_id + 2)
        self.next_id += 4
        for sid, kind in zip(ids, ("error", "data")):
            self.sock.sendall(self.c.syn_stream(sid, pf_headers(kind, port, request_id)))
        return ids

    def send(self, sid, data, fin=False):
        self.sock.sendall(struct.pack(">IB", sid, 1 if fin else 0) +
                          len(data).to_bytes(3, "big") + data)

    def read_until(self, done, timeout=5.0):
        self.sock.settimeout(timeout)
        while not done():
            chunk = self.sock.recv(65536)
            if not chunk:
                return False
            self.buf += chunk
            while len(self.buf) >= 8:
                n = int.from_bytes(self.buf[5:8], "big")
                if len(self.buf) < 8 + n:
                    break
                head, payload, self.buf = self.buf[:8], self.buf[8:8 + n], self.buf[8 + n:]
                if not head[0] & 0x80:               # a data frame
                    self.largest = max(self.largest, n)
                    sid = struct.unpack(">I", head[:4])[0]
                    self.data[sid] = self.data.get(sid, b"") + payload
                    if head[4] & spdy.FLAG_FIN:
                        self.fin.add(sid)
        return True


def upper_server():
    """A loopback server answering each connection's bytes upper-cased;
    (port, the listening socket)."""
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(4)

    def serve():
        while True:
            try:
                conn, _ = lsock.accept()
            except OSError:
                return
            threading.Thread(target=echo, args=(conn,), daemon=True).start()

    def echo(conn):
        with conn:
            while True:
                data = conn.recv(65536)
                if not data:
                    return
                conn.sendall(data.upper())
    threading.Thread(target=serve, daemon=True).start()
    return lsock.getsockname()[1], lsock


class SessionWhenThePodEnds(unittest.TestCase):
    def setUp(self):
        ours, theirs = socket.socketpair()
        self.session = spdyforward.Session(spdyforward.RawTransport(FakeHandler(ours)), POD,
                                           portforward.connect_error, portforward.gone_error)
        self.thread = threading.Thread(target=self.session.run, daemon=True)
        self.thread.start()
        self.peer = Peer(theirs)
        self.port, self.lsock = upper_server()

    def tearDown(self):
        self.peer.sock.close()
        self.thread.join(5)
        self.lsock.close()

    def test_in_flight_ends_without_error_then_new_pairs_get_the_runtimes_text(self):
        peer = self.peer
        err, data = peer.pair(self.port, 0)
        peer.send(data, b"hello")
        self.assertTrue(peer.read_until(lambda: peer.data.get(data) == b"HELLO"))
        self.session.kill()
        # the connection in flight ends (FIN on both streams), with no error text
        self.assertTrue(peer.read_until(lambda: {err, data} <= peer.fin))
        self.assertEqual(peer.data.get(err, b""), b"")
        # the session stays; the next pair is told the pod's network is gone
        err2, data2 = peer.pair(self.port, 1)
        self.assertTrue(peer.read_until(lambda: {err2, data2} <= peer.fin))
        sid = portforward.sandbox_id(POD)
        self.assertEqual(peer.data[err2].decode(),
                         'error forwarding port %d to pod %s, uid : network namespace for '
                         'sandbox "%s" is closed' % (self.port, sid, sid))
        self.assertEqual(peer.data.get(data2, b""), b"")
        self.assertTrue(self.thread.is_alive())
        # the client leaving ends it
        peer.sock.shutdown(socket.SHUT_RDWR)
        self.thread.join(5)
        self.assertFalse(self.thread.is_alive())

    def test_before_the_pod_ends_pairs_reach_its_server(self):
        peer = self.peer
        for i in range(3):
            _, data = peer.pair(self.port, i)
            peer.send(data, b"n%d" % i, fin=True)
            self.assertTrue(peer.read_until(lambda: data in peer.fin))
            self.assertEqual(peer.data[data], b"N%d" % i)


class ThePodsBytesFramedInPlace(unittest.TestCase):
    """What the session reads from the pod is framed in its own buffer,
    several frames to a write: the frames are those built one at a time."""

    def framed(self, transport, chunks):
        buf, end = bytearray(len(chunks) * (spdyforward.HEAD_ROOM + spdyforward.FRAME_MAX)), 0
        for chunk in chunks:
            buf[end + spdyforward.HEAD_ROOM:end + spdyforward.HEAD_ROOM + len(chunk)] = chunk
            end = transport.frame_data(buf, end, 5, len(chunk))
        return bytes(buf[:end])

    def test_raw_frames(self):
        chunks = [b"a" * spdyforward.FRAME_MAX, b"tail"]
        self.assertEqual(self.framed(spdyforward.RawTransport, chunks),
                         b"".join(spdy.Codec.data_head(5, len(c)) + c for c in chunks))

    def test_each_frame_in_a_binary_message_of_its_own(self):
        chunks = [b"b" * spdyforward.FRAME_MAX, b"x" * 200, b"tail"]   # 10, 4, 2-byte heads
        self.assertEqual(self.framed(spdyforward.TunnelTransport, chunks),
                         b"".join(wsproto.binary_head(8 + len(c)) + spdy.Codec.data_head(5, len(c))
                                  + c for c in chunks))

    def test_a_download_arrives_whole_in_frames_of_at_most_frame_max(self):
        ours, theirs = socket.socketpair()
        session = spdyforward.Session(spdyforward.RawTransport(FakeHandler(ours)), POD,
                                      portforward.connect_error, portforward.gone_error)
        thread = threading.Thread(target=session.run, daemon=True)
        thread.start()
        port, lsock = upper_server()
        peer = Peer(theirs)
        try:
            sent = bytes(range(97, 123)) * 20000      # 520,000 bytes
            _, data = peer.pair(port, 0)
            for i in range(0, len(sent), 60000):
                peer.send(data, sent[i:i + 60000], fin=i + 60000 >= len(sent))
            self.assertTrue(peer.read_until(lambda: data in peer.fin))
            self.assertEqual(peer.data[data], sent.upper())
            self.assertLessEqual(peer.largest, spdyforward.FRAME_MAX)
        finally:
            theirs.close()
            thread.join(5)
            lsock.close()


if __name__ == "__main__":
    unittest.main()
