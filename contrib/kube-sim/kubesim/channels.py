"""The Kubernetes channel protocol over an upgraded connection, for exec
and attach alike: `WsConn` (the WebSocket connection: frames in and out,
pings, close, the final Status on the error channel) and `Session`, the
select loop that moves bytes between the connection and a backend (an
exec process or an attach console) until one side ends.

A backend offers `outputs` ({fd: channel}), `in_fd`, `write`,
`close_stdin`, `resize`, `exited`, `status`, `kill`, `close`, and
`owns_outputs` (True when it closes its output fds itself). This module
knows backends only by that interface, so exec and attach depend on it
and it on neither.
"""

import json
import os
import select
import ssl
import time

from kubesim import wsproto
from kubesim.podproc import close_fd
from kubesim.podreq import BULK_READ, POLL, READ_CHUNK

MAX_STDIN_PENDING = 1 << 20  # stdin bytes accepted but not yet taken by the process
EXIT_CHECK = 0.02            # seconds between checks for the process's end while busy
WRITE_TIMEOUT = 30.0         # a client that reads nothing this long is dropped


def success_status():
    return {"metadata": {}, "status": "Success"}


WOULD_BLOCK = (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError, InterruptedError)


def read_available(sock, data, limit):
    """Appends to `data` what the non-blocking `sock` has, up to `limit`
    bytes in all; True when the peer has gone (end of stream or error).
    Each read lands in one scratch buffer: a TLS socket hands over one
    record (16 KiB) a call, and a fresh 64 KiB object for each would cost
    more than the copy into `data`."""
    scratch = bytearray(65536)
    with memoryview(scratch) as view:
        while len(data) < limit:
            try:
                n = sock.recv_into(view)
            except WOULD_BLOCK:
                return False
            except (OSError, ValueError):
                return True
            if not n:
                return True
            data += view[:n]
    return False


def send_all(sock, data, deadline):
    """Writes all of `data` to the non-blocking `sock`, waiting for it to
    take more until `deadline` (time.monotonic()); False when the peer
    broke the connection or took too long."""
    view = memoryview(data)
    while view:
        try:
            view = view[sock.send(view):]
            continue
        except WOULD_BLOCK:
            pass
        except (OSError, ValueError):
            return False
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        try:
            select.select([], [sock], [], min(left, 1.0))
        except (OSError, ValueError):
            return False
    return True


class WsConn:
    """The upgraded connection, driven from one thread: non-blocking reads
    fed to a frame parser, writes that wait (bounded) for the socket.
    One thread only, so TLS never sees concurrent reads and writes."""

    def __init__(self, handler, protocol):
        self.sock = handler.connection
        self.protocol = protocol
        self.parser = wsproto.FrameParser()
        self.eof = False             # the peer is gone (or broke the protocol)
        self.close_received = False
        self.close_sent = False
        self.sock.settimeout(0)
        self._early = self.drain_rfile(handler.rfile)

    @staticmethod
    def drain_rfile(rfile):
        """Bytes the HTTP parser had already buffered past the headers."""
        try:
            return rfile.read1(65536) or b""
        except (OSError, ValueError):
            return b""

    def fileno(self):
        return self.sock.fileno()

    def buffered(self):
        """Decrypted bytes waiting inside the TLS layer (select can't see them)."""
        pending = getattr(self.sock, "pending", None)
        return bool(self._early) or (pending is not None and pending() > 0)

    def read_messages(self, limit=256 * 1024):
        """Reads what has arrived, up to `limit` bytes; returns the data
        messages it completed. Answers pings and closes itself. The bytes
        go straight into the parser's buffer: bulk input is copied as
        little as possible, which is most of what relaying it costs."""
        buf = self.parser.buf
        buf += self._early
        self._early = b""
        if read_available(self.sock, buf, len(buf) + limit):
            self.eof = True
        try:
            messages = self.parser.feed()
        except wsproto.ProtocolError as e:
            self.close(e.code, str(e))
            self.eof = True
            return []
        out = []
        for opcode, payload in messages:
            if opcode == wsproto.OP_PING:
                self.send(wsproto.encode_frame(wsproto.OP_PONG, payload))
            elif opcode == wsproto.OP_CLOSE:
                self.close_received = True
                code, _ = wsproto.parse_close(payload)
                self.close(code or wsproto.CLOSE_NORMAL)
            elif opcode in (wsproto.OP_BINARY, wsproto.OP_TEXT):
                out.append((opcode, payload))
        return out

    def wait(self, readers, writers, timeout, on_message):
        """One select over readers (the WebSocket among them) and writers;
        the client's data messages go to on_message. Returns the ready
        readers and writers, or None when the connection broke."""
        if self.buffered():
            timeout = 0
        try:
            ready_r, ready_w, _ = select.select(readers, writers, [], timeout)
        except (OSError, ValueError):
            self.eof = True
            return None
        if self.sock in ready_r or self.buffered():
            for opcode, payload in self.read_messages():
                on_message(opcode, payload)
        return ready_r, ready_w

    def send(self, data):
        """Sends all of `data`; False (and eof) if the peer can't take it."""
        if self.eof:
            return False
        if not send_all(self.sock, data, time.monotonic() + WRITE_TIMEOUT):
            self.eof = True
            return False
        return True

    def send_channel(self, channel, data):
        """data on a channel, in messages of READ_CHUNK bytes at most (as
        the kubelet frames a stream), sent with one write."""
        view = memoryview(data)
        parts = []
        for i in range(0, max(len(view), 1), READ_CHUNK):
            piece = view[i:i + READ_CHUNK]
            parts += (wsproto.channel_head(channel, len(piece)), piece)
        return self.send(b"".join(parts))

    def send_status(self, status):
        """The final word on the error channel: a Status in v4/v5, the
        message as text in v1 (and nothing there on success)."""
        if self.protocol in (wsproto.V5, wsproto.V4):
            return self.send_channel(wsproto.ERROR, json.dumps(status, separators=(",", ":"))
                                     .encode())
        if status.get("status") != "Success":
            return self.send_channel(wsproto.ERROR, status.get("message", "").encode())
        return True

    def close(self, code=wsproto.CLOSE_NORMAL, reason=""):
        if not self.close_sent:
            self.close_sent = True
            self.send(wsproto.encode_close(code, reason))

    def linger(self, seconds=1.0):
        """After our close frame: waits briefly for the client's close (or
        EOF), so the client reads everything before the TCP close."""
        deadline = time.monotonic() + seconds
        while not (self.eof or self.close_received):
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                ready, _, _ = select.select([self.sock], [], [], left)
            except (OSError, ValueError):
                return
            if ready or self.buffered():
                self.read_messages()

    def finish(self):
        """Hands the socket back to the HTTP handler, which closes it."""
        try:
            self.sock.settimeout(5)
        except OSError:
            pass


class Session:
    """Moves bytes between the WebSocket and a backend until the process
    (or console) ends or the client leaves. Single-threaded select loop."""

    def __init__(self, ws, backend, want_stdin, stopping=lambda: False):
        self.ws = ws
        self.backend = backend
        self.want_stdin = want_stdin
        self.stopping = stopping
        self.stdin_pending = bytearray()
        self.stdin_closing = False
        self.moved = False           # the last step moved bytes
        self.exit_check_due = 0.0    # time.monotonic() of the next check while busy

    def _process_ended(self):
        """Whether the process (or console) has ended. Asking costs a
        system call, so while bytes flow it is asked every EXIT_CHECK
        seconds; when a step moved nothing (an output closed, a timeout),
        at once."""
        if self.moved and time.monotonic() < self.exit_check_due:
            return False
        self.exit_check_due = time.monotonic() + EXIT_CHECK
        return self.backend.exited()

    def run(self):
        try:
            while not self.ws.eof and not self.ws.close_received:
                if self.stopping():
                    self.backend.kill()  # the server stops: so does the process
                if self._process_ended():
                    self._drain_outputs()
                    self.ws.send_status(self.backend.status())
                    self.ws.close()
                    self.ws.linger()
                    return
                self._step()
            # the client left first: whatever runs for it dies
        finally:
            self.backend.close()
            self.ws.finish()

    def _step(self):
        ws, backend = self.ws, self.backend
        self.moved = False
        readers = list(backend.outputs)
        if len(self.stdin_pending) < MAX_STDIN_PENDING:
            readers.append(ws.sock)
        writers = []
        if self.stdin_pending and backend.in_fd is not None:
            writers.append(backend.in_fd)
        ready = ws.wait(readers, writers, 0.05 if self.stdin_pending else POLL,
                        self._on_message)
        if ready is None:
            return
        ready_r, ready_w = ready
        for fd in ready_r:
            if fd in backend.outputs:
                self._forward_output(fd)
        if self.stdin_pending and (ready_w or backend.in_fd is None):
            self._feed_stdin()

    def _on_message(self, opcode, payload):
        if opcode != wsproto.OP_BINARY or not payload:
            return  # base64 (text) subprotocols are not offered
        channel, data = payload[0], memoryview(payload)[1:]
        if channel == wsproto.STDIN and self.want_stdin and not self.stdin_closing:
            if data:
                self.moved = True
                self._take_stdin(data)
        elif channel == wsproto.RESIZE and self.ws.protocol in (wsproto.V4, wsproto.V5):
            self._resize(data)
        elif channel == wsproto.CLOSE_STREAM and self.ws.protocol == wsproto.V5:
            if data[:1] == bytes([wsproto.STDIN]):
                self.stdin_closing = True
                self._feed_stdin()

    def _resize(self, data):
        try:
            size = json.loads(bytes(data))
            cols, rows = int(size.get("Width", 0)), int(size.get("Height", 0))
        except (ValueError, TypeError, AttributeError):
            return
        if 0 <= cols < 65536 and 0 <= rows < 65536:
            self.backend.resize(cols, rows)

    def _take_stdin(self, data):
        """A stdin message's bytes: straight to the process when nothing
        waits before them (no copy), what it cannot take yet kept."""
        if not self.stdin_pending:
            n = self.backend.write(data)
            if n < 0:
                return  # the process closed its stdin
            data = data[n:]
        self.stdin_pending += data
        self._feed_stdin()

    def _feed_stdin(self):
        if self.stdin_pending:
            # a view, released before stdin_pending shrinks: no copy
            with memoryview(self.stdin_pending) as view:
                n = self.backend.write(view)
            if n < 0:
                self.stdin_pending.clear()  # the process closed its stdin
            elif n:
                del self.stdin_pending[:n]
        if self.stdin_closing and not self.stdin_pending:
            self.backend.close_stdin()

    def _forward_output(self, fd):
        channel = self.backend.outputs[fd]
        try:
            data = os.read(fd, BULK_READ)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""  # EIO from a PTY whose other side is closed
        if not data:
            self._drop_output(fd)
            return
        self.moved = True
        self.ws.send_channel(channel, data)

    def _drop_output(self, fd):
        self.backend.outputs.pop(fd, None)
        if not self.backend.owns_outputs:
            close_fd(fd)  # else (an exec's PTY master) it is closed with the backend

    def _drain_outputs(self):
        """After the process ended: what it wrote is in the pipes; send it."""
        for fd in list(self.backend.outputs):
            while fd in self.backend.outputs and not self.ws.eof:
                try:
                    data = os.read(fd, BULK_READ)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError:
                    data = b""
                if not data:
                    self._drop_output(fd)
                    break
                self.ws.send_channel(self.backend.outputs[fd], data)


