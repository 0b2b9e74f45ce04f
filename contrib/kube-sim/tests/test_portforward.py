"""Port forwarding (kubesim/portforward.py): the ports parameter, the
kubelet's error text, and the forwarding loop against a real TCP server
on loopback, with the test playing the WebSocket client over a socket
pair."""

import io
import socket
import struct
import threading
import time
import unittest

import support  # noqa: F401  (sys.path)
from kubesim import portforward, wsproto
from kubesim.channels import WsConn, send_all
from kubesim.errors import ApiError
from kubesim.podreq import READ_CHUNK

POD = {"metadata": {"name": "web", "namespace": "ns", "uid": "1234"}}
MASK = b"\x11\x22\x33\x44"


class Ports(unittest.TestCase):
    def test_repeated_and_comma_separated(self):
        self.assertEqual(portforward.parse_ports({"ports": ["80,8080", "9"]}), [80, 8080, 9])
        self.assertEqual(portforward.parse_ports({"port": ["22"]}), [22])

    def test_bad_ports_get_the_kubelet_messages(self):
        cases = [({}, 'query parameter "port" is required'),
                 ({"ports": [""]}, 'query parameter "port" cannot be empty'),
                 ({"ports": ["x"]}, 'unable to parse "x" as a port: strconv.ParseUint: '
                                    'parsing "x": invalid syntax'),
                 ({"ports": ["0"]}, 'port "0" must be > 0'),
                 ({"ports": ["70000"]}, 'unable to parse "70000" as a port: '
                                        'strconv.ParseUint: parsing "70000": value out of '
                                        'range')]
        for query, message in cases:
            with self.subTest(query=query):
                with self.assertRaises(ApiError) as cm:
                    portforward.parse_ports(query)
                self.assertEqual((cm.exception.code, cm.exception.message), (400, message))

    def test_connect_error_is_containerds_text(self):
        text = portforward.connect_error(POD, 8888, ConnectionRefusedError(111, "Connection "
                                                                            "refused"))
        sid = portforward.sandbox_id(POD)
        self.assertRegex(text, r'^error forwarding port 8888 to pod %s, uid : failed to execute '
                               r'portforward in network namespace "/var/run/netns/cni-[0-9a-f-]{36}": '
                               r'failed to connect to localhost:8888 inside namespace "%s", IPv4: '
                               r'dial tcp4 127.0.0.1:8888: connect: connection refused IPv6 dial '
                               r'tcp6 \[::1\]:8888: connect: connection refused $' % (sid, sid))


class FakeHandler:
    def __init__(self, sock):
        self.connection = sock
        self.rfile = io.BufferedReader(io.BytesIO(b""))


class Client:
    """The test's end of the WebSocket: masked frames out, messages in."""

    def __init__(self, sock):
        self.sock = sock
        self.parser = wsproto.FrameParser(max_message=1 << 30, require_mask=False)
        self.messages = []

    def send(self, channel, data):
        self.sock.sendall(wsproto.encode_frame(wsproto.OP_BINARY, bytes([channel]) + data,
                                               mask_key=MASK))

    def read_until(self, done, timeout=5.0):
        self.sock.settimeout(timeout)
        while not done():
            chunk = self.sock.recv(65536)
            if not chunk:
                return False
            self.messages += self.parser.feed(chunk)
        return True

    def channel(self, n):
        return b"".join(p[1:] for op, p in self.messages if op == wsproto.OP_BINARY and p[0] == n)

    def closed(self):
        return any(op == wsproto.OP_CLOSE for op, _ in self.messages)


def echo_server(replies=None):
    """A loopback server: answers each connection's bytes (upper-cased),
    or `replies` then closes. Returns (port, thread)."""
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(1)

    def serve():
        conn, _ = lsock.accept()
        with conn:
            if replies is not None:
                conn.sendall(replies)
            else:
                while True:
                    data = conn.recv(65536)
                    if not data:
                        break
                    conn.sendall(data.upper())
        lsock.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return lsock.getsockname()[1], t


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_forward(ports):
    ours, theirs = socket.socketpair()
    fwd = portforward.Forward(WsConn(FakeHandler(ours), wsproto.V4), POD, ports)
    t = threading.Thread(target=fwd.run, daemon=True)
    t.start()
    return Client(theirs), fwd, t


class Forwarding(unittest.TestCase):
    def test_each_channel_starts_with_its_port_then_data_flows_both_ways(self):
        port, _ = echo_server()
        client, fwd, t = start_forward([port])
        client.send(0, b"hello ")
        client.send(0, b"pod")
        self.assertTrue(client.read_until(lambda: client.channel(0)[2:] == b"HELLO POD"))
        firsts = [p for op, p in client.messages if op == wsproto.OP_BINARY][:2]
        self.assertEqual(sorted(firsts), [bytes([0]) + struct.pack("<H", port),
                                          bytes([1]) + struct.pack("<H", port)])
        client.sock.close()  # the client leaves: the forward ends
        t.join(5)
        self.assertFalse(t.is_alive())

    def test_the_pod_closing_ends_the_stream_after_its_data(self):
        sent = bytes(range(256)) * 1200
        port, _ = echo_server(replies=sent)
        client, _, t = start_forward([port])
        self.assertTrue(client.read_until(client.closed))
        self.assertEqual(client.channel(0)[2:], sent)
        # in messages of READ_CHUNK at most, as the kubelet frames a stream
        sizes = [len(p) - 1 for op, p in client.messages if op == wsproto.OP_BINARY and p[0] == 0]
        self.assertLessEqual(max(sizes), READ_CHUNK)
        self.assertEqual(client.channel(1), struct.pack("<H", port))
        t.join(5)

    def test_a_port_nothing_listens_on_gets_the_error_text_and_a_close(self):
        port = free_port()
        client, _, t = start_forward([port])
        self.assertTrue(client.read_until(client.closed))
        error = client.channel(1)[2:].decode()
        self.assertIn("error forwarding port %d to pod" % port, error)
        self.assertIn("connect: connection refused", error)
        t.join(5)

    def test_two_ports_on_one_stream(self):
        good, _ = echo_server()
        bad = free_port()
        client, _, t = start_forward([bad, good])
        client.send(2, b"abc")
        self.assertTrue(client.read_until(lambda: client.channel(2)[2:] == b"ABC" and
                                          len(client.channel(1)) > 2))
        self.assertIn("localhost:%d" % bad, client.channel(1).decode("latin-1"))
        client.sock.close()
        t.join(5)

    def test_kill_ends_the_forward(self):
        port, _ = echo_server()
        client, fwd, t = start_forward([port])
        fwd.kill()
        self.assertTrue(client.read_until(client.closed))
        t.join(5)
        self.assertFalse(t.is_alive())


class SendAll(unittest.TestCase):
    """channels.send_all, the bounded write both the WebSocket and the
    SPDY connections use."""

    def test_all_bytes_arrive_though_the_socket_takes_them_in_parts(self):
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        data = bytes(range(256)) * 8192          # 2 MiB: more than the buffers hold
        got = bytearray()

        def read():
            while len(got) < len(data):
                chunk = theirs.recv(65536)
                if not chunk:
                    break
                got.extend(chunk)
        t = threading.Thread(target=read, daemon=True)
        t.start()
        self.assertTrue(send_all(ours, data, time.monotonic() + 10))
        t.join(10)
        self.assertEqual(bytes(got), data)
        ours.close()
        theirs.close()

    def test_a_peer_that_reads_nothing_fails_at_the_deadline(self):
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        start = time.monotonic()
        self.assertFalse(send_all(ours, b"x" * (8 << 20), start + 0.3))
        self.assertGreaterEqual(time.monotonic() - start, 0.3)
        ours.close()
        theirs.close()

    def test_a_peer_that_left_fails_at_once(self):
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        theirs.close()
        self.assertFalse(send_all(ours, b"x", time.monotonic() + 10))
        ours.close()


class Headers:
    def __init__(self, values):
        self.values = values

    def get(self, name):
        v = self.values.get(name.lower())
        return v[0] if v else None

    def get_all(self, name):
        return self.values.get(name.lower())


class UpgradeHandler:
    """What _negotiate reads of a request: its headers and the options."""

    def __init__(self, protocols, no_tunnel=False):
        self.headers = Headers({"sec-websocket-version": ["13"],
                                "sec-websocket-key": ["dGhlIHNhbXBsZSBub25jZQ=="],
                                "sec-websocket-protocol": protocols})
        self.sim = type("Sim", (), {})()
        self.sim.options = type("Options", (), {"no_portforward_tunnel": no_tunnel})()


class Negotiation(unittest.TestCase):
    TUNNEL = "SPDY/3.1+portforward.k8s.io"

    def test_the_tunnel_wins_wherever_it_is_offered(self):
        for offered in (["%s, v4.channel.k8s.io" % self.TUNNEL],
                        ["v4.channel.k8s.io, %s" % self.TUNNEL],
                        ["v4.channel.k8s.io", self.TUNNEL]):
            with self.subTest(offered=offered):
                self.assertEqual(portforward._negotiate(UpgradeHandler(offered)), self.TUNNEL)

    def test_channels_alone_get_channels(self):
        self.assertEqual(portforward._negotiate(UpgradeHandler(["v4.channel.k8s.io"])),
                         "v4.channel.k8s.io")

    def test_a_server_before_1_31_answers_the_tunnel_with_channels(self):
        h = UpgradeHandler(["%s, v4.channel.k8s.io" % self.TUNNEL], no_tunnel=True)
        self.assertEqual(portforward._negotiate(h), "v4.channel.k8s.io")
        with self.assertRaises(ApiError) as cm:
            portforward._negotiate(UpgradeHandler([self.TUNNEL], no_tunnel=True))
        self.assertEqual(cm.exception.code, 403)
        self.assertNotIn(self.TUNNEL, cm.exception.message.split("supports")[1])


if __name__ == "__main__":
    unittest.main()
