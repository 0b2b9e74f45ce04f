"""Port forwarding over SPDY/3.1, the protocol kubectl speaks to
.../pods/P/portforward: either a plain HTTP upgrade (`Upgrade: SPDY/3.1`,
`X-Stream-Protocol-Version: portforward.k8s.io`), or, kubectl's default
since 1.31, the same SPDY bytes carried in the binary messages of a
WebSocket whose subprotocol is `SPDY/3.1+portforward.k8s.io`.

In the session the client opens two streams per forwarded connection,
each a SYN_STREAM whose headers name streamType ("error" or "data"), the
port and a requestID shared by the pair. Once both are there the server
(the kubelet) connects to the port inside the pod; bytes then travel as
DATA frames on the data stream, and a FIN there half-closes. A port that
cannot be reached gets the kubelet's text on the error stream; either
way both streams end (FIN) when the pod's side is done.

The session outlives its pod, as the kubelet's does (neither it nor the
API server watches the pod for a session's sake): when the pod ends,
the connections in flight end as its server goes (what it sent still
passed on, then FIN, no error), and each pair asked for afterwards gets
the runtime's word that the pod's network is gone on its error stream.
kubectl ends the whole session after such an error ("lost connection
to pod"); a client that asks nothing more keeps the session.
"""

import select
import socket
import time

from kubesim import podnet, spdy, wsproto
from kubesim.channels import WRITE_TIMEOUT, WsConn, read_available, send_all
from kubesim.podreq import POLL, READ_CHUNK

PROTOCOL = "portforward.k8s.io"
UPGRADE = "SPDY/3.1"
TUNNEL = "SPDY/3.1+portforward.k8s.io"
TO_POD_MAX = 1 << 20       # client bytes held for one connection before we stop reading
PAIR_TIMEOUT = 30.0        # the kubelet's wait for a pair's second stream
GONE_GRACE = 1.0           # after the pod ends, what its server still sends
FRAME_MAX = READ_CHUNK * 2  # the pod's bytes in one DATA frame at most
FROM_POD_READS = 4         # reads from the pod (a frame each) sent in one write
HEAD_ROOM = 18             # the largest WebSocket head (10) and SPDY's (8)


def frame_in_place(buf, at, head, n, room=HEAD_ROOM):
    """buf[at:] becomes head and the n bytes that were read to
    buf[at + room:] (room: the longest head); returns where they end.
    The pod's bytes are framed where they were read, without a fresh
    object for each read (see Session._from_pod)."""
    start = at + len(head)
    buf[at:start] = head
    if start != at + room:
        buf[start:start + n] = buf[at + room:at + room + n]
    return start + n


class RawTransport:
    """The upgraded socket itself."""

    def __init__(self, handler):
        self.sock = handler.connection
        self.sock.settimeout(0)
        self.eof = False
        self._early = WsConn.drain_rfile(handler.rfile)

    def buffered(self):
        pending = getattr(self.sock, "pending", None)
        return bool(self._early) or (pending is not None and pending() > 0)

    def read(self, limit=256 * 1024):
        data, self._early = bytearray(self._early), b""
        if read_available(self.sock, data, limit):
            self.eof = True
        return bytes(data)

    def send(self, data):
        """All of data, waiting (bounded) for the socket; False when it broke."""
        return self.send_framed(data)

    def send_framed(self, data):
        """As send: no framing of the transport's own."""
        if self.eof:
            return False
        if not send_all(self.sock, data, time.monotonic() + WRITE_TIMEOUT):
            self.eof = True
            return False
        return True

    @staticmethod
    def frame_data(buf, at, stream_id, n):
        """Frames in place the n bytes of the pod's at buf[at + HEAD_ROOM:]
        as a DATA frame starting at buf[at]; returns where it ends."""
        return frame_in_place(buf, at, spdy.Codec.data_head(stream_id, n), n)

    def close(self):
        pass

    def finish(self):
        try:
            self.sock.settimeout(5)
        except OSError:
            pass


class TunnelTransport:
    """SPDY's bytes in a WebSocket's binary messages (any split)."""

    def __init__(self, handler):
        self.ws = WsConn(handler, TUNNEL)
        self.sock = self.ws.sock

    @property
    def eof(self):
        return self.ws.eof or self.ws.close_received

    @eof.setter
    def eof(self, value):
        self.ws.eof = value

    def buffered(self):
        return self.ws.buffered()

    def read(self):
        return b"".join(payload for opcode, payload in self.ws.read_messages()
                        if opcode == wsproto.OP_BINARY)

    def send(self, data):
        return self.ws.send(wsproto.encode_frame(wsproto.OP_BINARY, data))

    def send_framed(self, data):
        """Bytes framed already (frame_data's)."""
        return self.ws.send(data)

    @staticmethod
    def frame_data(buf, at, stream_id, n):
        """As RawTransport.frame_data, the DATA frame in a binary message
        of its own."""
        head = spdy.Codec.data_head(stream_id, n)
        return frame_in_place(buf, at, wsproto.binary_head(len(head) + n) + head, n)

    def close(self):
        if not self.ws.eof and not self.ws.close_received:
            self.ws.close()
            self.ws.linger()

    def finish(self):
        self.ws.finish()


class Pair:
    """One forwarded connection: its two streams and the pod's socket."""

    def __init__(self, request_id, port):
        self.request_id = request_id
        self.port = port
        self.error_id = None
        self.data_id = None
        self.sock = None
        self.to_pod = bytearray()
        self.client_fin = False    # the client ended its half
        self.done = False
        self.started = time.monotonic()


class Session:
    """One SPDY session: streams in, pairs connected to the pod's ports,
    until the client leaves, the pod ends or the server stops. One thread,
    one select loop, as kubesim.portforward.Forward."""

    def __init__(self, transport, pod, connect_error, gone_error, stopping=lambda: False):
        self.t = transport
        self.pod = pod
        self.connect_error = connect_error   # (pod, port, OSError) -> the kubelet's text
        self.gone_error = gone_error         # (pod, port) -> the text once the pod ended
        self.stopping = stopping
        self.codec = spdy.Codec()
        self.pairs = {}            # requestID -> Pair
        self.by_stream = {}        # stream id -> Pair
        self.last_id = 0
        self.pod_ended_at = None   # time.monotonic() when the pod ended
        self.gone_away = False
        # the pod's bytes are read into this and framed in place: a fresh
        # object for each 64 KiB cost more than the relaying (see _from_pod)
        self.out = memoryview(bytearray(FROM_POD_READS * (HEAD_ROOM + FRAME_MAX)))

    def kill(self):
        """The pod ended (called from another thread): the session stays
        (see the module's text)."""
        if self.pod_ended_at is None:
            self.pod_ended_at = time.monotonic()

    def run(self):
        try:
            while not (self.t.eof or self.gone_away or self.stopping()):
                self._step()
            if not self.t.eof:
                self.t.send(self.codec.goaway(self.last_id))
                self.t.close()
        finally:
            for p in list(self.pairs.values()):
                self._close_pod(p)
            self.t.finish()

    # ---- the loop ----

    def _step(self):
        socks = [p.sock for p in self.pairs.values() if p.sock is not None]
        readers = list(socks)
        if sum(len(p.to_pod) for p in self.pairs.values()) < TO_POD_MAX:
            readers.append(self.t.sock)
        writers = [p.sock for p in self.pairs.values() if p.sock is not None and p.to_pod]
        try:
            ready_r, ready_w, _ = select.select(readers, writers, [],
                                                0 if self.t.buffered() else POLL)
        except (OSError, ValueError):
            self.t.eof = True
            return
        if self.t.sock in ready_r or self.t.buffered():
            try:
                for frame in self.codec.feed(self.t.read()):
                    self._on_frame(frame)
            except spdy.ProtocolError:
                self.t.send(self.codec.goaway(self.last_id, spdy.PROTOCOL_ERROR))
                self.gone_away = True
                return
        for p in list(self.pairs.values()):
            if p.sock is not None and p.sock in ready_w:
                self._to_pod(p)
            if p.sock is not None and p.sock in ready_r:
                self._from_pod(p)
        self._expire_lone_streams()
        self._end_pod_connections()

    # ---- frames from the client ----

    def _on_frame(self, f):
        if f.kind == 0:
            self._on_data(f)
        elif f.kind == spdy.SYN_STREAM:
            self._on_syn(f)
        elif f.kind == spdy.RST_STREAM:
            p = self.by_stream.get(f.stream_id)
            if p is not None:
                self._end_pair(p, reset=True)
        elif f.kind == spdy.PING:
            if f.ping_id & 1:      # the client's (odd): ours would be even
                self.t.send(self.codec.ping(f.ping_id))
        elif f.kind == spdy.GOAWAY:
            self.gone_away = True
        # SETTINGS, WINDOW_UPDATE, HEADERS, SYN_REPLY: nothing to do (see spdy.py)

    def _on_syn(self, f):
        sid, h = f.stream_id, f.headers

        def one(name):
            values = h.get(name.lower()) or [""]
            return values[0]
        if sid <= self.last_id or not sid & 1:
            self.t.send(self.codec.rst_stream(sid, spdy.PROTOCOL_ERROR))
            return
        self.last_id = sid
        kind, request_id = one("streamType"), one("requestID")
        try:
            port = int(one("port"), 10)
        except ValueError:
            port = 0
        if kind not in ("error", "data") or not 0 < port < 65536:
            self.t.send(self.codec.rst_stream(sid, spdy.PROTOCOL_ERROR))
            return
        p = self.pairs.get(request_id)
        if p is None:
            p = self.pairs[request_id] = Pair(request_id, port)
        if getattr(p, kind + "_id") is not None or p.port != port:
            self.t.send(self.codec.rst_stream(sid, spdy.PROTOCOL_ERROR))
            return
        setattr(p, kind + "_id", sid)
        self.by_stream[sid] = p
        self.t.send(self.codec.syn_reply(sid))
        if p.error_id is not None and p.data_id is not None:
            self._connect(p)

    def _on_data(self, f):
        p = self.by_stream.get(f.stream_id)
        if p is None or p.done:
            return
        if f.stream_id == p.data_id and f.data and p.sock is not None:
            p.to_pod += f.data
            self._to_pod(p)
        if f.stream_id == p.data_id and f.fin:
            p.client_fin = True
            self._to_pod(p)

    # ---- the pod's side ----

    def _connect(self, p):
        if self.pod_ended_at is not None:
            self.t.send(self.codec.data(p.error_id, self.gone_error(self.pod, p.port).encode()))
            self._end_pair(p)
            return
        try:
            sock = podnet.connect(self.pod, p.port, 5.0)
        except OSError as e:
            self.t.send(self.codec.data(p.error_id, self.connect_error(self.pod, p.port, e)
                                        .encode()))
            self._end_pair(p)
            return
        sock.setblocking(False)
        p.sock = sock

    def _to_pod(self, p):
        if p.to_pod:
            try:
                n = p.sock.send(p.to_pod[:READ_CHUNK * 4])
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self._end_pair(p)
                return
            del p.to_pod[:n]
        if p.client_fin and not p.to_pod and p.sock is not None:
            try:
                p.sock.shutdown(socket.SHUT_WR)  # the client's half ended
            except OSError:
                pass

    def _from_pod(self, p):
        """What the pod's socket holds, a DATA frame a read (as many as
        FROM_POD_READS), framed in one buffer and sent in one write. A
        select, a write and two fresh 64 KiB objects per frame were most
        of the session's cost in a download, whatever the client: each
        object freed made glibc give a thread arena's pages back and the
        next one fault them in again."""
        end, ended = 0, False
        for _ in range(FROM_POD_READS):
            n = self._read_pod(p, end)
            if n <= 0:
                ended = n == 0
                break
            end = self.t.frame_data(self.out, end, p.data_id, n)
            if n < FRAME_MAX:
                break              # drained: no use asking again
        if end and not self.t.send_framed(self.out[:end]):
            self._end_pair(p, reset=True)
        elif ended:
            self._end_pair(p)

    def _read_pod(self, p, at):
        """Reads the pod's bytes to self.out[at + HEAD_ROOM:]: how many, 0
        at the end of its stream, -1 when it has none now."""
        try:
            return p.sock.recv_into(self.out[at + HEAD_ROOM:at + HEAD_ROOM + FRAME_MAX])
        except (BlockingIOError, InterruptedError):
            return -1
        except OSError:
            return 0

    def _end_pair(self, p, reset=False):
        """Both streams end: FIN (the kubelet closes them), or nothing more
        after a reset."""
        if p.done:
            return
        p.done = True
        self._close_pod(p)
        if not reset:
            for sid in (p.data_id, p.error_id):
                if sid is not None:
                    self.t.send(self.codec.data(sid, b"", fin=True))
        self.pairs.pop(p.request_id, None)
        for sid in (p.data_id, p.error_id):
            self.by_stream.pop(sid, None)

    @staticmethod
    def _close_pod(p):
        if p.sock is not None:
            try:
                p.sock.close()
            except OSError:
                pass
            p.sock = None

    def _end_pod_connections(self):
        """The pod ended a while ago: a connection its server did not close
        (one to a process outside the pod's own) ends as the network goes."""
        if self.pod_ended_at is None or time.monotonic() - self.pod_ended_at < GONE_GRACE:
            return
        for p in list(self.pairs.values()):
            if p.sock is not None:
                self._end_pair(p)

    def _expire_lone_streams(self):
        """A stream whose partner never came is reset, as the kubelet does."""
        now = time.monotonic()
        for p in list(self.pairs.values()):
            if p.sock is None and not p.done and now - p.started > PAIR_TIMEOUT:
                for sid in (p.data_id, p.error_id):
                    if sid is not None:
                        self.t.send(self.codec.rst_stream(sid, spdy.REFUSED_STREAM))
                self._end_pair(p, reset=True)


def spdy_requested(handler):
    return UPGRADE.lower() in (handler.headers.get("Upgrade") or "").lower()


def answer_spdy_upgrade(handler):
    """101 for a plain SPDY upgrade; the protocol version is checked first."""
    offered = [v.strip() for v in
               ",".join(handler.headers.get_all("X-Stream-Protocol-Version") or []).split(",")
               if v.strip()]
    if offered and PROTOCOL not in offered:
        return False
    handler.send_response(101, "Switching Protocols")
    handler.send_header("Connection", "Upgrade")
    handler.send_header("Upgrade", UPGRADE)
    handler.send_header("X-Stream-Protocol-Version", PROTOCOL)
    handler.end_headers()
    handler.wfile.flush()
    handler.close_connection = True
    return True
