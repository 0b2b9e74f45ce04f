"""The HTTP(S) server: connections, TLS, bodies, responses, faults, logging.

One thread per connection (ThreadingHTTPServer), HTTP/1.1 keep-alive with
an exact Content-Length, chunked transfer for streams. TLS is negotiated in
the connection's own thread, so a client that never finishes its handshake
cannot stall the accept loop. What the Kubernetes API means lives in
api.py; this module only moves bytes.

Methods the runtime (logs, podexec) relies on: send_json, send_api_error,
send_streamed, start_chunked, write_chunk, end_chunked, fault_cut_after,
and the raw rfile / wfile / connection for a WebSocket upgrade.
"""

import json
import select
import socket
import ssl
import sys
import threading
import time
import traceback
import urllib.parse
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from kubesim import api, auth, protobuf
from kubesim.errors import ApiError, internal, reason_for, too_large
from kubesim.reqlog import body_for_log

MAX_BODY = 3 * 1024 * 1024          # kube-apiserver's request size limit
MAX_SIM_BODY = 256 * 1024 * 1024    # /_sim/seed may carry big fixtures
GZIP_THRESHOLD = 128 * 1024         # kube-apiserver compresses above this
WRITE_BATCH = 64 * 1024             # bytes per write of a body sent in parts
IDLE_TIMEOUT = 120                  # seconds a silent connection is kept
HANDSHAKE_TIMEOUT = 10

_CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError,
                ssl.SSLError, socket.timeout, TimeoutError)


class ApiServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address, sim, ssl_context=None):
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.sim = sim
        self.ssl_context = ssl_context
        # a simulated restart of the API server (state kept, as etcd
        # keeps it): see outage()
        self._reopen_at = 0.0
        self._closed = threading.Event()
        self._stopping = False
        self._live = set()
        self._live_lock = threading.Lock()
        super().__init__(address, Handler)

    def track(self, sock, alive):
        with self._live_lock:
            (self._live.add if alive else self._live.discard)(sock)

    def serve(self):
        """serve_forever, through any number of outages."""
        while True:
            self.serve_forever(poll_interval=0.2)
            if self._stopping:
                return
            self._closed.wait()  # outage() has closed the socket
            self._closed.clear()
            time.sleep(max(0.0, self._reopen_at - time.monotonic()))
            if self._stopping:
                return
            self._listen_again()

    def _listen_again(self):
        sock = socket.socket(self.address_family, self.socket_type)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(self.server_address)
        sock.listen(self.request_queue_size)
        self.socket = sock

    def shutdown(self):
        self._stopping = True
        self._closed.set()
        super().shutdown()

    def outage(self, seconds, spare=None):
        """Goes away for seconds like a restarting API server: new
        connections are refused (the listening socket is closed, then
        opened again on the same port) and every open connection but
        spare is cut. Returns how many were cut. Called from a handler
        thread; it returns once the socket is closed."""
        self._reopen_at = time.monotonic() + seconds
        super().shutdown()  # serve_forever returns (within its poll)
        self.socket.close()
        self._closed.set()
        with self._live_lock:
            victims = [c for c in self._live if c is not spare]
        for c in victims:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        return len(victims)

    def handle_error(self, request, client_address):
        # a client hanging up or failing TLS is routine, not a server error
        if isinstance(sys.exc_info()[1], _CLIENT_GONE + (OSError,)):
            return
        super().handle_error(request, client_address)


def make_ssl_context(pki):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(pki.server_crt, pki.server_key)
    # client certificates are optional: bearer tokens work without one
    ctx.load_verify_locations(pki.ca_crt)
    ctx.verify_mode = ssl.CERT_OPTIONAL
    return ctx


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kube-sim"
    sys_version = ""
    timeout = IDLE_TIMEOUT
    # Headers and body go out in separate writes; without TCP_NODELAY each
    # answer waits ~40 ms on the client's delayed ACK. Go's net/http (and
    # so kube-apiserver) sets it on every connection.
    disable_nagle_algorithm = True

    # --- connection -------------------------------------------------------

    def setup(self):
        ctx = self.server.ssl_context
        if ctx is not None:
            self.request.settimeout(HANDSHAKE_TIMEOUT)
            self.request = ctx.wrap_socket(self.request, server_side=True)
        super().setup()
        self.server.track(self.connection, True)
        self.sim = self.server.sim
        # defaults for a request that fails before _dispatch (a malformed
        # request line is answered by BaseHTTPRequestHandler.send_error)
        self._reset()

    def finish(self):
        self.server.track(self.connection, False)
        try:
            super().finish()
        except _CLIENT_GONE + (OSError,):
            pass
        try:
            self.connection.close()
        except OSError:
            pass

    def log_message(self, format, *args):
        pass  # requests.jsonl is the access log

    def peercert(self):
        try:
            return self.connection.getpeercert() if self.server.ssl_context else None
        except (ValueError, OSError):
            return None

    def client_gone(self):
        """True when the client has closed its end (used while a stream idles:
        a client sends nothing while it reads a response)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
        except (ValueError, OSError):
            return True
        return bool(readable)

    # --- request ----------------------------------------------------------

    def _reset(self):
        self.fault = None
        self.fault_cut_after = None
        self.fault_trickle = False
        self.fault_truncate = False
        self.identity = None
        self.body_raw = b""
        self.status_sent = None
        self._logging = False
        self._logged = False
        self._chunked = False
        self._chunk_bytes = 0

    def _read_body(self, cap):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            return self._read_chunked_body(cap)
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise ApiError(400, "BadRequest", "invalid Content-Length")
        if length > cap:
            raise too_large(cap)
        return self.rfile.read(length) if length > 0 else b""

    def _read_chunked_body(self, cap):
        out = bytearray()
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline().strip():
                    pass  # trailers
                return bytes(out)
            if len(out) + size > cap:
                raise too_large(cap)
            out += self.rfile.read(size)
            self.rfile.readline()

    def body_json(self):
        """The request body parsed (JSON, or YAML when sent as YAML)."""
        if not self.body_raw:
            return None
        ctype = self.headers.get("Content-Type", "")
        if ctype.startswith(protobuf.CONTENT_TYPE):
            return protobuf.decode(self.body_raw, ctype)
        if "yaml" in ctype and "json" not in ctype:
            try:
                import yaml
                return yaml.safe_load(self.body_raw)
            except Exception as e:
                raise ApiError(400, "BadRequest", "error decoding YAML: %s" % e)
        try:
            return json.loads(self.body_raw)
        except ValueError as e:
            raise ApiError(400, "BadRequest",
                           "the object provided is unrecognized (must be of type JSON): %s" % e)

    def do_GET(self):
        self._dispatch()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    def _dispatch(self):
        self._reset()
        url = urllib.parse.urlsplit(self.path)
        self.req_path = urllib.parse.unquote(url.path) or "/"
        self.query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        is_sim = self.req_path == "/_sim" or self.req_path.startswith("/_sim/")
        self._logging = not is_sim
        try:
            if is_sim:
                self._check_sim_auth()
            try:
                self.body_raw = self._read_body(MAX_SIM_BODY if is_sim else MAX_BODY)
            except ApiError:
                self.close_connection = True  # the rest of the body is unread
                raise
            if is_sim:
                self._serve_sim()
            else:
                self._serve_api()
        except ApiError as e:
            self.send_api_error(e)
        except _CLIENT_GONE:
            self.close_connection = True
        except Exception as e:
            traceback.print_exc()
            if self.status_sent is None:
                self.send_api_error(internal("%s: %s" % (type(e).__name__, e)))
            else:
                self.close_connection = True
        finally:
            if self._logging and not self._logged:
                self._log_request(self.status_sent or 0)

    def _check_sim_auth(self):
        """The /_sim credential, checked before the body is even read."""
        if auth.sim_authorized(self.headers.get("Authorization"), self.sim.sim_token):
            return
        self.close_connection = True  # the body stays unread
        raise ApiError(401, "Unauthorized",
                       "the /_sim API needs Authorization: Bearer with the token "
                       "in the state directory's %s" % auth.SIM_TOKEN_FILE)

    def _serve_sim(self):
        body = None
        if self.body_raw:
            body = self.body_json()
        if not self.sim.route_sim(self, self.command, self.req_path.rstrip("/") or "/", body):
            raise ApiError(404, "NotFound", "no /_sim route %s %s" % (self.command, self.req_path))

    def _serve_api(self):
        fault = self.sim.faults.take(self.command, self.req_path, self.query)
        if fault is not None and self._apply_fault(fault):
            return
        self.identity = self.sim.authn.authenticate(self.headers.get("Authorization"),
                                                    self.peercert())
        api.serve(self)

    # --- faults -----------------------------------------------------------

    def _sleep(self, seconds):
        """Sleeps, waking early if the server stops."""
        self.sim.stop_event.wait(seconds)

    def _apply_fault(self, fault):
        """Applies a fault; True when it has answered the request itself."""
        self.fault = fault
        if fault.delay:
            fault.hold(self._sleep)
        self.fault_cut_after = fault.cut_after_bytes
        self.fault_trickle = fault.trickle
        self.fault_truncate = fault.body == "truncated"
        if not fault.answers_itself():
            return False
        headers = {}
        if fault.retry_after is not None:
            headers["Retry-After"] = str(int(fault.retry_after))
        code = fault.status
        if fault.body in ("status", "truncated"):
            details = {}
            if fault.retry_after is not None:
                details["retryAfterSeconds"] = int(fault.retry_after)
            err = ApiError(code, reason_for(code),
                           fault.message or _fault_message(code), details or None)
            self.send_json(code, err.status(), headers)
        elif fault.body == "html":
            page = ("<html><head><title>%d %s</title></head><body><h1>%d %s</h1>"
                    "<hr><center>nginx</center></body></html>\n"
                    % (code, self.responses.get(code, ("",))[0], code,
                       self.responses.get(code, ("",))[0]))
            self.send_bytes(code, page.encode(), "text/html", headers)
        elif fault.body == "empty":
            self.send_bytes(code, b"", "application/json", headers)
        else:  # garbage
            self.send_bytes(code, b"\x00\xffthis is not JSON {{{\n", "application/json", headers)
        return True

    # --- responses --------------------------------------------------------

    def send_response(self, code, message=None):
        self.status_sent = code
        if self._logging and not self._logged:
            self._log_request(code)
        super().send_response(code, message)

    def _log_request(self, status):
        self._logged = True
        url = urllib.parse.urlsplit(self.path)
        if self.identity is not None:
            user = None if self.identity.anonymous else self.identity.user
            auth = self.identity.method
        else:
            user = None
            auth = "bearer" if self.headers.get("Authorization") else (
                "cert" if self.peercert() else "none")
        self.sim.reqlog.record(self.command, urllib.parse.unquote(url.path),
                               urllib.parse.parse_qs(url.query, keep_blank_values=True),
                               user, auth, self.headers.items(),
                               body_for_log(self.body_raw, self.headers.get("Content-Type")),
                               status, getattr(self.connection, "session_reused", None))

    def _common_headers(self):
        self.send_header("Cache-Control", "no-cache, private")
        self.send_header("Audit-Id", str(uuid.uuid4()))

    def send_json(self, code, obj, headers=None, content_type="application/json"):
        body = json.dumps(obj, separators=(",", ":")).encode("utf-8") + b"\n"
        self.send_bytes(code, body, content_type, headers)

    def send_api_error(self, err):
        headers = {}
        if err.details and err.details.get("retryAfterSeconds") is not None:
            headers["Retry-After"] = str(err.details["retryAfterSeconds"])
        self.send_json(err.code, err.status(), headers)

    def send_text(self, code, text, content_type="text/plain; charset=utf-8"):
        self.send_bytes(code, text.encode("utf-8"), content_type)

    def _gzip_ok(self, length):
        return (length > GZIP_THRESHOLD and self.fault is None
                and "gzip" in self.headers.get("Accept-Encoding", ""))

    def send_bytes(self, code, body, content_type, headers=None):
        """Sends body: bytes, or a list of byte strings sent as their
        concatenation (a list's items, see api._list_json)."""
        parts = body if isinstance(body, list) else [body]
        if self.fault is not None and len(parts) > 1:
            parts = [b"".join(parts)]  # a fault cuts or trickles one body
        encoding, length = None, sum(map(len, parts))
        if self._gzip_ok(length):
            if self.command != "HEAD":
                return self._send_gzip_stream(code, parts, content_type, headers)
            parts, encoding = _gzip_parts(parts), "gzip"
            length = sum(map(len, parts))
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self._common_headers()
        if encoding:
            self.send_header("Content-Encoding", encoding)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(length))
        self.end_headers()
        if self.command == "HEAD":
            return
        if len(parts) == 1:
            self._write_body(parts[0])
        else:
            self._write_parts(parts)

    def _send_gzip_stream(self, code, parts, content_type, headers):
        """Sends the parts gzip'ed as kube-apiserver does: without a
        Content-Length, in chunks written as the compressor hands them
        over, so the client reads the start of a large list while the end
        is still being compressed (one gzip member of the whole, level 1)."""
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self._common_headers()
        self.send_header("Content-Encoding", "gzip")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        z = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        for batch in _batches(parts):
            self._write_raw_chunk(z.compress(batch))
        self._write_raw_chunk(z.flush())
        self.wfile.write(b"0\r\n\r\n")

    def _write_raw_chunk(self, data):
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _write_parts(self, parts):
        for batch in _batches(parts):
            self.wfile.write(batch)

    def _write_body(self, body):
        """Writes a response body, as any armed fault wants it."""
        cut = self.fault_cut_after
        if self.fault_truncate and cut is None:
            cut = len(body) // 2
        short = cut is not None and cut < len(body)
        if short:
            body = body[:cut]
        if self.fault_trickle:
            self._write_slowly(body)
        else:
            self.wfile.write(body)
        if short:
            self.hang_up()

    def _write_slowly(self, body):
        """The slow-loris fault: one byte a second."""
        for i in range(len(body)):
            if self.sim.stopping:
                self.hang_up()
                return
            self.wfile.write(body[i:i + 1])
            self.wfile.flush()
            if i + 1 < len(body):
                time.sleep(1)

    def hang_up(self):
        """Closes the connection abruptly (after a cut or truncated body)."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # --- streams ----------------------------------------------------------

    def send_streamed(self, code, parts, content_type):
        """Sends the parts as kube-apiserver (1.32) relays a stream it
        copies from elsewhere, such as a pod's log from its kubelet: it
        flushes the headers first, so the body goes chunked, and it never
        compresses it, whatever the client accepts. Faults act as on any
        body: cut after some bytes ("truncated": half of them), or the
        whole trickled."""
        if self.fault_truncate and self.fault_cut_after is None:
            self.fault_cut_after = sum(map(len, parts)) // 2
        self.start_chunked(code, content_type)
        if self.fault_trickle:
            self._chunked = False
            body = b"".join(parts)
            self._write_slowly((b"%x\r\n%s\r\n" % (len(body), body) if body else b"")
                               + b"0\r\n\r\n")
            return
        for batch in _batches(parts):
            if not self.write_chunk(batch):
                return
        self.end_chunked()

    def start_chunked(self, code, content_type):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self._common_headers()
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self._chunked = True
        self._chunk_bytes = 0

    def write_chunk(self, data):
        """Sends one chunk; False once the client is gone (or a fault cut it)."""
        if not data:
            return True
        budget = self.fault_cut_after
        try:
            if budget is not None and self._chunk_bytes + len(data) >= budget:
                part = data[:max(0, budget - self._chunk_bytes)]
                if part:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                self.hang_up()
                return False
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
            self._chunk_bytes += len(data)
            return True
        except _CLIENT_GONE + (OSError, ValueError):
            self.close_connection = True
            return False

    def end_chunked(self):
        if not self._chunked:
            return
        self._chunked = False
        try:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except _CLIENT_GONE + (OSError, ValueError):
            self.close_connection = True


def _batches(parts):
    """The parts joined into pieces of about WRITE_BATCH bytes each (the
    last may be smaller): fewer TLS records than a write per part, and no
    buffer the size of the whole body (allocating megabytes at once costs
    more than the copying itself)."""
    batch, size = [], 0
    for part in parts:
        batch.append(part)
        size += len(part)
        if size >= WRITE_BATCH:
            yield b"".join(batch)
            batch, size = [], 0
    if batch:
        yield b"".join(batch)


def _gzip_parts(parts):
    """The gzip member of the parts' concatenation, compressed part by
    part (level 1, as kube-apiserver's compression is fast)."""
    z = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out = [z.compress(part) for part in parts]
    out.append(z.flush())
    return [chunk for chunk in out if chunk]


def _fault_message(code):
    return {
        429: "Too many requests, please try again later.",
        500: "Internal error occurred: injected fault",
        503: "the server is currently unable to handle the request",
        504: "the server was unable to return a response in the time allotted, "
             "but may still be processing the request",
        403: "forbidden: injected fault",
        404: "the server could not find the requested resource",
    }.get(code, "injected fault (%d)" % code)
