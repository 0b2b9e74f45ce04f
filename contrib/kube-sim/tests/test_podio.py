"""The pure parts of pod I/O: request parameters and container choice
(podreq.py), the log buffers and log options (logs.py), the answers
exec gives when a command cannot start (podexec.py), and the relay of a
stream's bytes (channels.py) against a fake socket and process."""

import fcntl
import os
import types
import unittest

import support  # noqa: F401  (sys.path)
from kubesim import channels, logs, podexec, podnet, podproc, podreq, wsproto
from kubesim.errors import ApiError

POD = {"metadata": {"name": "p", "namespace": "ns"},
       "spec": {"containers": [{"name": "main", "image": "busybox:1.36",
                                "env": [{"name": "A", "value": 1}, {"name": "B"}]},
                               {"name": "side", "image": "python:3"}],
                "initContainers": [{"name": "init"}]}}


class Params(unittest.TestCase):
    def test_query_value_takes_the_last_and_ignores_empty(self):
        self.assertEqual(podreq.query_value({"a": ["1", "2"]}, "a"), "2")
        self.assertEqual(podreq.query_value({"a": [""]}, "a", "d"), "d")
        self.assertEqual(podreq.query_value(None, "a"), None)

    def test_flags_take_go_spellings(self):
        for text, value in (("1", True), ("t", True), ("TRUE", True), ("True", True),
                            ("0", False), ("f", False), ("false", False)):
            self.assertIs(podreq.query_flag({"x": [text]}, "x"), value, text)
        self.assertIs(podreq.query_flag({}, "x", default=True), True)
        with self.assertRaises(ApiError) as cm:
            podreq.query_flag({"follow": ["yes"]}, "follow")
        self.assertEqual((cm.exception.code, cm.exception.message),
                         (400, 'invalid value for follow: strconv.ParseBool: parsing "yes": '
                               'invalid syntax'))

    def test_int(self):
        self.assertEqual(podreq.query_int({"n": ["-3"]}, "n"), -3)
        self.assertIsNone(podreq.query_int({"n": [""]}, "n"))
        with self.assertRaises(ApiError) as cm:
            podreq.query_int({"tailLines": ["x"]}, "tailLines")
        self.assertEqual(cm.exception.message,
                         'invalid value for tailLines: strconv.ParseInt: parsing "x": '
                         'invalid syntax')

    def test_resolve_container(self):
        single = {"metadata": {"name": "one"}, "spec": {"containers": [{"name": "c"}]}}
        self.assertEqual(podreq.resolve_container(single, None), "c")
        self.assertEqual(podreq.resolve_container(POD, "side"), "side")
        self.assertEqual(podreq.resolve_container(POD, "init"), "init")
        cases = [
            (POD, None, "a container name must be specified for pod p, choose one of: "
                        "[main side] or one of the init containers: [init]"),
            (POD, "nope", "container nope is not valid for pod p"),
            ({"metadata": {"name": "e"}, "spec": {}}, "",
             "pod e does not have any containers"),
        ]
        for pod, name, message in cases:
            with self.subTest(name=name):
                with self.assertRaises(ApiError) as cm:
                    podreq.resolve_container(pod, name)
                self.assertEqual((cm.exception.code, cm.exception.message), (400, message))

    def test_pod_env(self):
        self.assertEqual(podproc.pod_env(POD, "main", True, "/h"),
                         {"PATH": podproc.EXEC_PATH, "HOME": "/h", "HOSTNAME": "p",
                          "KUBE_SIM_POD_ADDRESS": podnet.pod_address(POD),
                          "TERM": "xterm", "A": "1"})
        self.assertRegex(podnet.pod_address(POD), r"^127\.(1[3-8][0-9]|19[01]|12[89])\.")
        self.assertNotIn("TERM", podproc.pod_env(POD, "side", False, "/h"))


class FakeStore:
    def __init__(self):
        self.listeners = []

    def add_listener(self, fn):
        self.listeners.append(fn)


def fake_sim(mib=None):
    return types.SimpleNamespace(store=FakeStore(),
                                 options=types.SimpleNamespace(log_buffer_mib=mib))


class Buffers(unittest.TestCase):
    def test_append_splits_lines_and_numbers_them(self):
        buf = logs.PodLogs(fake_sim())
        buf.append("ns", "p", "c", "one\ntwo\n", ts=1.5)
        buf.append("ns", "p", "c", "three", ts=2)
        self.assertEqual(buf.entries("ns", "p", "c"),
                         [(1, 1500000000, "one"), (2, 1500000000, "two"), (3, 2000000000, "three")])
        self.assertEqual(buf.entries("ns", "p", "c", after_seq=2), [(3, 2000000000, "three")])
        self.assertEqual(buf.entries("ns", "p", "other"), [])

    def test_lines_after_a_number_across_gaps_and_trimming(self):
        buf = logs.PodLogs(fake_sim())
        for i in range(logs.MAX_LINES * 3 // 2 + 90):  # c gets 5,060: 60 dropped
            buf.append("ns", "p", "c" if i % 3 else "d", str(i))
        kept = buf.entries("ns", "p", "c")
        self.assertEqual(len(kept), logs.MAX_LINES)
        last = kept[-1][0]
        for after in (0, 1, kept[0][0] - 1, kept[0][0], kept[10][0] + 1, last - 1, last,
                      last + 5):
            with self.subTest(after=after):
                self.assertEqual(buf.entries("ns", "p", "c", after_seq=after),
                                 [e for e in kept if e[0] > after])

    def test_long_lines_are_cut(self):
        buf = logs.PodLogs(fake_sim())
        buf.append("ns", "p", "c", "x" * (podreq.MAX_LINE + 10))
        self.assertEqual(len(buf.entries("ns", "p", "c")[0][2]), podreq.MAX_LINE)

    def test_the_oldest_lines_go_first(self):
        buf = logs.PodLogs(fake_sim())
        for i in range(logs.MAX_LINES + 3):
            buf.append("ns", "p", "c", str(i))
        entries = buf.entries("ns", "p", "c")
        self.assertEqual(len(entries), logs.MAX_LINES)
        self.assertEqual(entries[0][2], "3")

    def test_byte_cap_from_the_option(self):
        buf = logs.PodLogs(fake_sim(mib=1 / 1024))       # 1 KiB
        self.assertEqual(buf.max_bytes, 1024)
        for _ in range(20):
            buf.append("ns", "p", "c", "y" * 99)         # 100 bytes with the newline
        self.assertEqual(len(buf.entries("ns", "p", "c")), 10)

    def test_a_deleted_pod_loses_its_lines(self):
        sim = fake_sim()
        buf = logs.PodLogs(sim)
        buf.append("ns", "p", "c", "a")
        buf.append("ns", "q", "c", "b")
        listener, = sim.store.listeners
        listener("DELETED", ("", "v1", "pods"), {"metadata": {"namespace": "ns", "name": "p"}})
        self.assertEqual(buf.entries("ns", "p", "c"), [])
        self.assertEqual(len(buf.entries("ns", "q", "c")), 1)

    def test_wait_returns_at_once_when_lines_are_there(self):
        buf = logs.PodLogs(fake_sim())
        buf.append("ns", "p", "c", "a")
        self.assertEqual([e[2] for e in buf.wait("ns", "p", "c", 0, 5.0)], ["a"])
        self.assertEqual(buf.wait("ns", "p", "c", 1, 0.01), [])


class LogOptions(unittest.TestCase):
    ENTRIES = [(1, 1_000_000_000, "a"), (2, 2_000_000_000, "b"), (3, 3_000_000_000, "c")]

    def test_tail_since_and_render(self):
        opts = logs._LogOptions({"tailLines": ["2"], "timestamps": ["true"]}, "p")
        chosen = opts.initial(self.ENTRIES)
        self.assertEqual([e[2] for e in chosen], ["b", "c"])
        self.assertEqual(b"".join(opts.render(chosen)),
                         b"1970-01-01T00:00:02.000000000Z b\n1970-01-01T00:00:03.000000000Z c\n")
        since = logs._LogOptions({"sinceTime": ["1970-01-01T00:00:02Z"]}, "p")
        self.assertEqual([e[2] for e in since.initial(self.ENTRIES)], ["b", "c"])
        self.assertEqual(logs._LogOptions({"tailLines": ["0"]}, "p").initial(self.ENTRIES), [])

    def test_a_long_log_renders_in_parts_as_line_by_line(self):
        entries = [(i, i * 1_000_003, "line %d \u00e9 \ud800" % i)
                   for i in range(3 * logs.RENDER_BATCH + 7)]
        for query in ({}, {"timestamps": ["true"]}):
            with self.subTest(query=query):
                opts = logs._LogOptions(query, "p")
                parts = opts.render(entries)
                self.assertEqual(len(parts), 4)
                self.assertEqual(b"".join(parts), b"".join(opts.line(e) for e in entries))
        self.assertEqual(logs._LogOptions({}, "p").render([]), [])

    def test_limit_bytes_cuts_across_parts(self):
        parts = [b"abc\n", b"defg\n", b"h\n"]
        for limit in (None, 1, 4, 5, 8, 10, 11, 100):
            with self.subTest(limit=limit):
                whole = b"".join(parts)
                want = whole if limit is None else whole[:limit]
                self.assertEqual(b"".join(logs._cut(parts, limit)), want)

    def test_rfc3339nano_is_fixed_width(self):
        self.assertEqual(logs.rfc3339nano(1700000000123456789), "2023-11-14T22:13:20.123456789Z")
        self.assertEqual(logs.rfc3339nano(5), "1970-01-01T00:00:00.000000005Z")

    def test_invalid_options_are_422_with_causes(self):
        cases = [
            ({"tailLines": ["-1"]}, "tailLines", "FieldValueInvalid",
             "Invalid value: -1: must be greater than or equal to 0"),
            ({"limitBytes": ["0"]}, "limitBytes", "FieldValueInvalid",
             "Invalid value: 0: must be greater than 0"),
            ({"sinceSeconds": ["0"]}, "sinceSeconds", "FieldValueInvalid",
             "Invalid value: 0: must be greater than 0"),
            ({"sinceSeconds": ["5"], "sinceTime": ["2020-01-01T00:00:00Z"]}, "sinceSeconds",
             "FieldValueForbidden",
             "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"),
        ]
        for query, field, reason, message in cases:
            with self.subTest(query=query):
                with self.assertRaises(ApiError) as cm:
                    logs._LogOptions(query, "p")
                e = cm.exception
                self.assertEqual((e.code, e.reason), (422, "Invalid"))
                self.assertEqual(e.message, 'PodLogOptions "p" is invalid: %s: %s'
                                 % (field, message))
                self.assertEqual(e.details["causes"],
                                 [{"reason": reason, "message": message, "field": field}])

    def test_bad_since_time_is_400(self):
        with self.assertRaises(ApiError) as cm:
            logs._LogOptions({"sinceTime": ["yesterday"]}, "p")
        self.assertEqual((cm.exception.code, cm.exception.message),
                         (400, 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": '
                               'cannot parse'))


class ExecAnswers(unittest.TestCase):
    def test_images_without_bash(self):
        podexec.check_image_has(POD, "main", "/bin/sh")
        podexec.check_image_has(POD, "side", "bash")
        with self.assertRaises(podproc.ExecNotFound) as cm:
            podexec.check_image_has(POD, "main", "bash")
        self.assertEqual(str(cm.exception), 'exec: "bash": executable file not found in $PATH')
        with self.assertRaises(podproc.ExecNotFound) as cm:
            podexec.check_image_has(POD, "main", "/bin/bash")
        self.assertEqual(str(cm.exception),
                         'exec: "/bin/bash": stat /bin/bash: no such file or directory')

    def test_lookup(self):
        self.assertEqual(podproc.lookup("sh", podproc.EXEC_PATH).rsplit("/", 1)[-1], "sh")
        with self.assertRaises(podproc.ExecNotFound) as cm:
            podproc.lookup("no-such-command-here", "/nonexistent")
        self.assertEqual(str(cm.exception),
                         'exec: "no-such-command-here": executable file not found in $PATH')

    def test_exit_status(self):
        self.assertEqual(podexec._exit_status(["sh", "-c", "exit 3"], 3), {
            "metadata": {}, "status": "Failure",
            "message": "command terminated with non-zero exit code: error executing command "
                       "[sh -c exit 3], exit code 3",
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": "3"}]}})


class _Sock:
    """What WsConn asks of a socket, recording each send."""

    def __init__(self):
        self.sends = []

    def settimeout(self, _):
        pass

    def send(self, data):
        self.sends.append(bytes(data))
        return len(data)


class _Backend:
    """An exec backend whose stdin takes at most `room` bytes a write."""

    def __init__(self, room):
        self.room, self.got, self.closed = room, bytearray(), False

    def write(self, data):
        if self.closed:
            return -1
        n = min(len(data), self.room)
        self.got += data[:n]
        return n

    def close_stdin(self):
        self.closed = True


def _ws():
    handler = types.SimpleNamespace(connection=_Sock(),
                                    rfile=types.SimpleNamespace(read1=lambda n: b""))
    return channels.WsConn(handler, wsproto.V5)


class Relay(unittest.TestCase):
    def test_output_goes_in_kubelet_sized_messages_with_one_write(self):
        ws = _ws()
        data = bytes(range(256)) * 400 + b"tail"  # 102,404 bytes: four messages
        self.assertTrue(ws.send_channel(wsproto.STDOUT, data))
        self.assertEqual(len(ws.sock.sends), 1)
        messages = wsproto.FrameParser(require_mask=False).feed(ws.sock.sends[0])
        self.assertEqual([len(p) for _, p in messages],
                         [podreq.READ_CHUNK + 1] * 3 + [len(data) - 3 * podreq.READ_CHUNK + 1])
        self.assertTrue(all(p[0] == wsproto.STDOUT for _, p in messages))
        self.assertEqual(b"".join(p[1:] for _, p in messages), data)

    def test_stdin_reaches_the_process_whole_and_in_order_when_it_takes_little(self):
        backend = _Backend(room=1000)
        session = channels.Session(_ws(), backend, want_stdin=True)
        sent = [bytes([i]) * (700 * i + 1) for i in range(1, 8)]
        for piece in sent:
            session._on_message(wsproto.OP_BINARY, bytes([wsproto.STDIN]) + piece)
        while session.stdin_pending:
            session._feed_stdin()
        self.assertEqual(bytes(backend.got), b"".join(sent))

    def test_stdin_after_the_process_closed_it_is_dropped(self):
        backend = _Backend(room=10)
        session = channels.Session(_ws(), backend, want_stdin=True)
        session._on_message(wsproto.OP_BINARY, bytes([wsproto.STDIN]) + b"x" * 25)
        self.assertEqual((len(backend.got), len(session.stdin_pending)), (20, 5))
        backend.closed = True
        session._feed_stdin()
        session._on_message(wsproto.OP_BINARY, bytes([wsproto.STDIN]) + b"more")
        self.assertEqual((bytes(backend.got), bytes(session.stdin_pending)), (b"x" * 20, b""))

    def test_exec_pipes_are_widened_where_linux_allows(self):
        r, w = os.pipe()
        try:
            podproc.widen_pipe(w)
            self.assertEqual(fcntl.fcntl(r, fcntl.F_GETPIPE_SZ), podproc.PIPE_SIZE)
        finally:
            os.close(r)
            os.close(w)


if __name__ == "__main__":
    unittest.main()
