"""A body sent in parts (a list's items, api._list_json) reaches the
client as the parts' concatenation: gzip'ed above the threshold when the
client accepts it, streamed in chunks as kube-apiserver does; otherwise
written in batches, with an exact Content-Length."""

import email.message
import gzip
import hashlib
import io
import unittest

import support  # noqa: F401  (sys.path)
from kubesim import server


class Recorder(io.BytesIO):
    """The connection's write side, remembering each write."""

    def __init__(self):
        super().__init__()
        self.writes = []

    def write(self, data):
        self.writes.append(bytes(data))
        return super().write(data)


def handler(command="GET", accept="gzip"):
    h = server.Handler.__new__(server.Handler)
    h.wfile = Recorder()
    h.command, h.path, h.request_version = command, "/", "HTTP/1.1"
    h.requestline = "%s / HTTP/1.1" % command
    h.headers = email.message.Message()
    if accept:
        h.headers["Accept-Encoding"] = accept
    h._reset()
    return h


def answer(h):
    """(headers as a dict, body) of what h wrote."""
    head, _, body = h.wfile.getvalue().partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")[1:]
    return dict(line.split(": ", 1) for line in lines), body


def dechunk(body):
    """The data of each chunk of a chunked body, which must end with the
    empty last chunk and nothing after it."""
    chunks = []
    while True:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            if body != b"\r\n":
                raise AssertionError("bytes after the last chunk: %r" % body[:20])
            return chunks
        chunks.append(body[:size])
        if body[size:size + 2] != b"\r\n":
            raise AssertionError("chunk of %d bytes not followed by CRLF" % size)
        body = body[size + 2:]


def items(n, size):
    parts = [b'{"items":[']
    for i in range(n):
        if i:
            parts.append(b",")
        parts.append(b'{"n":%d,"pad":"%s"}' % (i, b"x" * size))
    parts.append(b"]}\n")
    return parts


class SendParts(unittest.TestCase):
    def test_large_list_is_one_gzip_member_of_the_whole(self):
        parts = items(1000, 300)
        whole = b"".join(parts)
        self.assertGreater(len(whole), server.GZIP_THRESHOLD)
        h = handler()
        h.send_bytes(200, parts, "application/json")
        headers, body = answer(h)
        self.assertEqual(headers["Content-Encoding"], "gzip")
        self.assertEqual(headers["Transfer-Encoding"], "chunked")
        self.assertNotIn("Content-Length", headers)
        chunks = dechunk(body)
        self.assertEqual(gzip.decompress(b"".join(chunks)), whole)

    def test_gzip_goes_out_while_the_list_is_compressed(self):
        # items that compress poorly: the compressor hands over blocks as
        # it goes, and each is written as it comes, not the whole at the end
        parts = [b'{"items":[']
        for i in range(4000):
            parts.append(b'%s{"n":%d,"h":"%s"}' % (b"," if i else b"", i,
                         hashlib.sha256(b"%d" % i).hexdigest().encode()))
        parts.append(b"]}\n")
        h = handler()
        h.send_bytes(200, parts, "application/json")
        headers, body = answer(h)
        chunks = dechunk(body)
        self.assertGreater(len(chunks), 3)
        self.assertEqual(len(h.wfile.writes), 1 + len(chunks) + 1)
        self.assertEqual(gzip.decompress(b"".join(chunks)), b"".join(parts))

    def test_head_of_a_large_list_gives_the_gzip_length(self):
        parts = items(1000, 300)
        h = handler(command="HEAD")
        h.send_bytes(200, parts, "application/json")
        headers, body = answer(h)
        self.assertEqual(headers["Content-Encoding"], "gzip")
        self.assertEqual(body, b"")
        self.assertEqual(int(headers["Content-Length"]),
                         len(b"".join(server._gzip_parts(parts))))

    def test_without_gzip_the_parts_go_out_batched(self):
        parts = items(1000, 300)
        h = handler(accept=None)
        h.send_bytes(200, parts, "application/json")
        headers, body = answer(h)
        self.assertNotIn("Content-Encoding", headers)
        self.assertEqual(int(headers["Content-Length"]), len(body))
        self.assertEqual(body, b"".join(parts))
        body_writes = h.wfile.writes[1:]  # the first is the header block
        self.assertLess(len(body_writes), len(parts) // 10)
        self.assertTrue(all(len(w) < 2 * server.WRITE_BATCH for w in body_writes))

    def test_small_list_is_sent_as_it_is(self):
        parts = items(3, 10)
        h = handler()
        h.send_bytes(200, parts, "application/json")
        headers, body = answer(h)
        self.assertNotIn("Content-Encoding", headers)
        self.assertEqual(body, b"".join(parts))

    def test_head_sends_the_length_alone(self):
        parts = items(10, 10)
        h = handler(command="HEAD", accept=None)
        h.send_bytes(200, parts, "application/json")
        headers, body = answer(h)
        self.assertEqual(int(headers["Content-Length"]), len(b"".join(parts)))
        self.assertEqual(body, b"")


class Hangup:
    """The socket under wfile: records that the server hung up."""

    def __init__(self):
        self.shut = False

    def shutdown(self, how):
        self.shut = True


class SendStreamed(unittest.TestCase):
    """A relayed stream (a pod's log) goes as kube-apiserver 1.32 sends
    one: chunked, never compressed."""

    def test_chunked_and_never_gzip_even_when_the_client_asks(self):
        parts = items(1000, 300)
        h = handler(accept="gzip")
        h.send_streamed(200, parts, "text/plain")
        headers, body = answer(h)
        self.assertEqual(headers["Content-Type"], "text/plain")
        self.assertEqual(headers["Transfer-Encoding"], "chunked")
        self.assertNotIn("Content-Encoding", headers)
        self.assertNotIn("Content-Length", headers)
        chunks = dechunk(body)
        self.assertEqual(b"".join(chunks), b"".join(parts))
        self.assertLess(len(chunks), len(parts) // 10)
        self.assertTrue(all(len(c) < 2 * server.WRITE_BATCH for c in chunks))

    def test_an_empty_stream_is_the_last_chunk_alone(self):
        h = handler()
        h.send_streamed(200, [], "text/plain")
        self.assertEqual(dechunk(answer(h)[1]), [])

    def test_a_truncated_fault_sends_half_and_hangs_up(self):
        parts = items(1000, 300)
        whole = b"".join(parts)
        h = handler()
        h.connection = Hangup()
        h.fault_truncate = True
        h.send_streamed(200, parts, "text/plain")
        _, body = answer(h)
        self.assertTrue(h.connection.shut)
        self.assertFalse(body.endswith(b"0\r\n\r\n"))
        data = b"".join(dechunk(body + b"0\r\n\r\n"))
        self.assertEqual(data, whole[:len(whole) // 2])


if __name__ == "__main__":
    unittest.main()
