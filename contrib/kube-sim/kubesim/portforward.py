"""Port forwarding (GET .../pods/P/portforward?ports=N with a WebSocket
upgrade), as the API server serves it to clients that do not speak SPDY;
kubectl's SPDY (plain or tunnelled in a WebSocket) is handed to
kubesim.spdyforward.

The protocol (the kubelet's WebSocket port-forward): subprotocol
v4.channel.k8s.io (or the unversioned channel.k8s.io); for the i-th port
of `ports`, data travels on channel 2*i and the kubelet's error text on
channel 2*i+1; the server's first message on each channel is the port
number, two bytes little-endian. Clients send plain data (no port
prefix). When forwarding a port fails, the error channel carries the
kubelet's text ("error forwarding port N to pod ID, uid : ..."), and once
every port is done the server closes the WebSocket.

The pods' processes share this host's network (the sandbox makes no
network namespace), so "port N inside the pod" is 127.0.0.1:N here: a
`python3 -m http.server N` run by the pod's command (or an exec) is what
the tunnel reaches. The forward ends when its pod ends, like the pod's
other processes.
"""

import hashlib
import socket
import struct
import uuid

from kubesim import podnet, spdyforward, wsproto
from kubesim.channels import WsConn
from kubesim.errors import ApiError, bad_request, not_found
from kubesim.objutil import PODS, phase_of
from kubesim.podexec import _answer_upgrade, _upgrade_requested
from kubesim.podreq import POLL, READ_CHUNK, pod_still_running, stopping, stream_guard

SERVED = (wsproto.V4, wsproto.V1, spdyforward.TUNNEL)
TO_POD_MAX = 1 << 20     # client bytes held for a port before we stop reading the client
FROM_POD_READS = 8       # reads from the pod (a message each) sent in one write
HEAD_ROOM = 5            # a data message's head: WebSocket's (4 at most here), the channel
CONNECT_TIMEOUT = 5.0


def parse_ports(query):
    """The ports of a request: `ports` (the API server's name) or `port`
    (the kubelet's), each repeatable and comma-separated, checked with the
    kubelet's messages."""
    values = (query or {}).get("ports") or (query or {}).get("port") or []
    if not values:
        raise bad_request('query parameter "port" is required')
    ports = []
    for value in values:
        if value == "":
            raise bad_request('query parameter "port" cannot be empty')
        for text in value.split(","):
            try:
                port = int(text, 10)
            except ValueError:
                raise bad_request('unable to parse "%s" as a port: strconv.ParseUint: '
                                  'parsing "%s": invalid syntax' % (text, text))
            if not 0 < port < 65536:
                raise bad_request('port "%s" must be > 0' % text if port <= 0 else
                                  'unable to parse "%s" as a port: strconv.ParseUint: '
                                  'parsing "%s": value out of range' % (text, text))
            ports.append(port)
    return ports


def sandbox_id(pod):
    """The pod's sandbox id as a container runtime would show it (stable)."""
    uid = (pod.get("metadata") or {}).get("uid") or pod["metadata"]["name"]
    return hashlib.sha256(uid.encode()).hexdigest()


def connect_error(pod, port, err):
    """What the kubelet (containerd) writes on the error channel when
    nothing listens on the port."""
    sid = sandbox_id(pod)
    netns = "/var/run/netns/cni-%s" % uuid.UUID(sid[:32])
    why = err.strerror.lower() if isinstance(err, OSError) and err.strerror else str(err)
    return ('error forwarding port %d to pod %s, uid : failed to execute portforward in '
            'network namespace "%s": failed to connect to localhost:%d inside namespace '
            '"%s", IPv4: dial tcp4 127.0.0.1:%d: connect: %s IPv6 dial tcp6 [::1]:%d: '
            'connect: %s ' % (port, sid, netns, port, sid, port, why, port, why))


def gone_error(pod, port):
    """What the kubelet (containerd) writes on the error stream of a
    connection asked for after the pod ended: its sandbox's network
    namespace is closed (the sandbox itself is removed later)."""
    sid = sandbox_id(pod)
    return ('error forwarding port %d to pod %s, uid : network namespace for sandbox "%s" '
            'is closed' % (port, sid, sid))


class Target:
    """One forwarded port: its channels, the connection to the pod's
    server, and the client's bytes not yet written to it."""

    def __init__(self, index, port, pod=None):
        self.index = index
        self.port = port
        self.pod = pod or {}
        self.sock = None
        self.to_pod = bytearray()
        self.done = False

    @property
    def data_channel(self):
        return 2 * self.index

    def open(self):
        """Connects to the port; None, or the OSError it failed with."""
        try:
            sock = podnet.connect(self.pod, self.port, CONNECT_TIMEOUT)
        except OSError as e:
            self.done = True
            return e
        sock.setblocking(False)
        self.sock = sock
        return None

    def close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
            self.sock = None
        self.done = True


class Forward:
    """Moves bytes between the WebSocket and the ports' connections until
    every port is done, the client leaves, the pod ends or the server
    stops. One thread, one select loop; a client faster than the pod is
    held back by not reading it (TO_POD_MAX), a pod faster than the
    client by the bounded blocking sends of WsConn."""

    def __init__(self, ws, pod, ports, stopping=lambda: False):
        self.ws = ws
        self.pod = pod
        self.targets = [Target(i, port, pod) for i, port in enumerate(ports)]
        self.stopping = stopping
        self.killed = False
        # the pod's bytes are read into this and framed in place (see
        # spdyforward.Session._from_pod: the same cost, the same cure)
        self.out = memoryview(bytearray(FROM_POD_READS * (HEAD_ROOM + READ_CHUNK)))

    def kill(self):
        """The pod ended (called from another thread): stop."""
        self.killed = True

    def run(self):
        try:
            self._start()
            while not self._over():
                self._step()
            if not self.ws.eof and not self.ws.close_received:
                self.ws.close()
                self.ws.linger()
        finally:
            for t in self.targets:
                t.close()
            self.ws.finish()

    def _start(self):
        """The port on both channels of each port, then the connections
        (the kubelet connects as soon as the stream is set up)."""
        for t in self.targets:
            prefix = struct.pack("<H", t.port)
            self.ws.send(wsproto.encode_channel(t.data_channel, prefix))
            self.ws.send(wsproto.encode_channel(t.data_channel + 1, prefix))
        for t in self.targets:
            err = t.open()
            if err is not None:
                self.ws.send(wsproto.encode_channel(t.data_channel + 1,
                                                    connect_error(self.pod, t.port, err).encode()))

    def _over(self):
        if self.ws.eof or self.ws.close_received or self.killed or self.stopping():
            return True
        return all(t.done for t in self.targets)

    def _pending(self):
        return sum(len(t.to_pod) for t in self.targets)

    def _step(self):
        ws = self.ws
        readers = [t.sock for t in self.targets if t.sock is not None]
        writers = [t.sock for t in self.targets if t.sock is not None and t.to_pod]
        if self._pending() < TO_POD_MAX:
            readers.append(ws.sock)
        ready = ws.wait(readers, writers, POLL, self._from_client)
        if ready is None:
            return
        ready_r, ready_w = ready
        for t in self.targets:
            if t.sock is not None and t.sock in ready_w:
                self._to_pod(t)
            if t.sock is not None and t.sock in ready_r:
                self._from_pod(t)

    def _from_client(self, opcode, payload):
        if opcode != wsproto.OP_BINARY or not payload:
            return
        channel, data = payload[0], payload[1:]
        index = channel // 2
        if index >= len(self.targets) or channel % 2 or not data:
            return  # error channels and unknown ones carry nothing to the pod
        t = self.targets[index]
        if t.sock is not None:
            t.to_pod += data
            self._to_pod(t)

    def _to_pod(self, t):
        try:
            n = t.sock.send(t.to_pod[:READ_CHUNK * 4])
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            t.close()  # the pod's server went away: so does this port
            return
        del t.to_pod[:n]

    def _from_pod(self, t):
        """What the port's socket holds, a message of READ_CHUNK at most
        a read (as the kubelet frames a stream), as many as
        FROM_POD_READS, framed in one buffer and sent in one write."""
        end, ended = 0, False
        for _ in range(FROM_POD_READS):
            n = self._read_pod(t, end)
            if n <= 0:
                ended = n == 0
                break
            end = spdyforward.frame_in_place(self.out, end, wsproto.channel_head(
                t.data_channel, n), n, HEAD_ROOM)
            if n < READ_CHUNK:
                break              # drained: no use asking again
        if end and not self.ws.send(self.out[:end]):
            t.close()
        elif ended:
            t.close()  # the pod closed it: the port's forward is over

    def _read_pod(self, t, at):
        """Reads the port's bytes to self.out[at + HEAD_ROOM:]: how many,
        0 at the end of its stream, -1 when it has none now."""
        try:
            return t.sock.recv_into(self.out[at + HEAD_ROOM:at + HEAD_ROOM + READ_CHUNK])
        except (BlockingIOError, InterruptedError):
            return -1
        except OSError:
            return 0


def _negotiate(handler):
    h = handler.headers
    if (h.get("Sec-WebSocket-Version") or "").strip() != "13" or \
            not wsproto.valid_key(h.get("Sec-WebSocket-Key") or ""):
        raise bad_request("unable to upgrade: missing or malformed WebSocket handshake")
    offered = wsproto.offered_protocols(h.get_all("Sec-WebSocket-Protocol") or [])
    if not offered:
        return ""
    served = SERVED
    if getattr(handler.sim.options, "no_portforward_tunnel", False):
        served = tuple(p for p in SERVED if p != spdyforward.TUNNEL)
    # the API server hands a request that offers the tunnel to its
    # tunnelling handler before any other protocol is looked at
    if spdyforward.TUNNEL in offered and spdyforward.TUNNEL in served:
        return spdyforward.TUNNEL
    proto = wsproto.choose_protocol(offered, served)
    if proto is None:
        raise ApiError(403, "Forbidden",
                       "requested protocol(s) are not supported: [%s]; supports [%s]"
                       % (" ".join(offered), " ".join(served)))
    return proto


def _session(handler, pod, query):
    """Answers the upgrade; the session that then serves the connection.
    SPDY (plain or in a WebSocket) names its ports per stream, the
    channel protocol in the query."""
    if spdyforward.spdy_requested(handler):
        _check_running(pod)
        if not spdyforward.answer_spdy_upgrade(handler):
            raise bad_request("unable to upgrade: no common stream protocol: the client "
                              "offers %s, kube-sim serves %s"
                              % (handler.headers.get("X-Stream-Protocol-Version"),
                                 spdyforward.PROTOCOL))
        return spdyforward.Session(spdyforward.RawTransport(handler), pod, connect_error,
                                   gone_error)
    if handler.command != "GET" or not _upgrade_requested(handler):
        raise bad_request("Upgrade request required")
    proto = _negotiate(handler)
    if proto == spdyforward.TUNNEL:
        _check_running(pod)
        _answer_upgrade(handler, proto)
        return spdyforward.Session(spdyforward.TunnelTransport(handler), pod, connect_error,
                                   gone_error)
    ports = parse_ports(query)
    _check_running(pod)
    _answer_upgrade(handler, proto)
    return Forward(WsConn(handler, proto or wsproto.V1), pod, ports)


def _check_running(pod):
    if phase_of(pod) != "Running":
        raise bad_request("pod %s is not running (phase %s)"
                          % (pod["metadata"]["name"], phase_of(pod)))


def handle_portforward(handler, sim, ns, pod_name, query):
    """GET (WebSocket upgrade) .../pods/POD/portforward?ports=N[,M], or a
    SPDY upgrade (kubectl's; ports in each stream's headers)."""
    pod = sim.store.get(PODS, ns, pod_name)
    if pod is None:
        raise not_found("pods", pod_name)
    fwd = _session(handler, pod, query)
    fwd.stopping = lambda: stopping(sim)
    procs = getattr(sim, "processes", None)
    if procs is not None:
        procs.add(ns, pod_name, fwd)
    if not pod_still_running(sim, ns, pod_name, pod["metadata"].get("uid")):
        fwd.kill()
    try:
        with stream_guard(sim):
            fwd.run()
    finally:
        if procs is not None:
            procs.discard(ns, pod_name, fwd)
