#!/usr/bin/env python3
"""A fault-injecting HTTP proxy in front of a real docker-registry, for the
runai-adm images push tests. Standard library only; loopback only.

    registry-fault-proxy.py --upstream 127.0.0.1:5000 --ready-file F
        [--log requests.jsonl]
        [--fault KIND:COUNT:STATUS[:RETRY_AFTER]]...   answer STATUS to the
              first COUNT requests of KIND instead of forwarding them
        [--bearer USER:PASSWORD] [--token-ttl S] [--token-uses N]
              require Bearer tokens from our own token endpoint (/token):
              Basic USER:PASSWORD there; a token expires after S seconds
              or N requests, whichever comes first
        [--kill-pid PID --kill-after-puts N]
              SIGKILL PID (the registry) once N blob uploads completed
        [--kill-pid PID --kill-after-bytes N]
              SIGKILL PID (the registry) once N bytes of upload bodies came
              in: a restart for real, which the test finishes by starting
              the registry again (meanwhile the proxy answers 502)
        [--outage-after-bytes N --outage-seconds S]
              the registry going away mid-blob, as in a restart: once N
              bytes of upload bodies came in, that connection is reset
              and so is every new one for S seconds (once)
        [--throttle BYTES_PER_SECOND]
              a slow link: upload bodies are read no faster than this
        [--flip-byte-after N]
              the bytes changed on the way: byte N of the upload bodies
              (counted across all of them) reaches the registry inverted

KIND is one of: ping, head-blob, post-upload, patch-upload, put-upload,
put-manifest, head-manifest, delete-upload, token, other.

The listening port goes to the ready file. Every request is logged as one
JSON line: {"method","path","kind","status","auth"} (auth: the scheme word
only, never the credentials).
"""
import argparse
import base64
import http.client
import http.server
import json
import os
import re
import secrets
import signal
import socket
import socketserver
import struct
import sys
import threading
import time

LOCK = threading.Lock()


def kind_of(method, path):
    p = path.split("?", 1)[0]
    if p == "/v2/" or p == "/v2":
        return "ping"
    if p == "/token":
        return "token"
    if "/blobs/uploads/" in p:
        if method == "POST":
            return "post-upload"
        return {"PATCH": "patch-upload", "PUT": "put-upload",
                "DELETE": "delete-upload"}.get(method, "other")
    if re.search(r"/blobs/sha256:", p) and method in ("HEAD", "GET"):
        return "head-blob"
    if "/manifests/" in p:
        return "put-manifest" if method == "PUT" else "head-manifest"
    return "other"


class State:
    def __init__(self, args):
        self.args = args
        self.faults = []  # [kind, remaining, status, retry_after]
        for f in args.fault or []:
            parts = f.split(":")
            self.faults.append([parts[0], int(parts[1]), int(parts[2]),
                                parts[3] if len(parts) > 3 else None])
        self.tokens = {}  # token -> [expiry, uses left]
        self.puts_done = 0
        self.killed = False
        self.body_bytes = 0
        self.outage_until = None    # None: not yet; then a time
        self.flipped = False
        self.log = open(args.log, "a") if args.log else None

    def fault_for(self, kind):
        with LOCK:
            for f in self.faults:
                if f[0] == kind and f[1] > 0:
                    f[1] -= 1
                    return f[2], f[3]
        return None

    def record(self, entry):
        if self.log:
            with LOCK:
                self.log.write(json.dumps(entry) + "\n")
                self.log.flush()


class Outage(Exception):
    """The registry goes away now."""


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fault-proxy"

    def log_message(self, *a):
        pass

    def read_part(self, n):
        """Up to n body bytes; starts the outage when the count is reached."""
        st = self.server.st
        data = self.rfile.read(min(n, 65536))
        if st.args.throttle:
            # a slow link: progress lines have time to show
            time.sleep(len(data) / st.args.throttle)
        with LOCK:
            at = st.args.flip_byte_after
            if (at is not None and not st.flipped
                    and st.body_bytes <= at < st.body_bytes + len(data)):
                st.flipped = True
                i = at - st.body_bytes
                data = data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1:]
            st.body_bytes += len(data)
            start = (st.args.outage_after_bytes is not None and st.outage_until is None
                     and st.body_bytes >= st.args.outage_after_bytes)
            if start:
                st.outage_until = time.time() + st.args.outage_seconds
            kill = (st.args.kill_after_bytes is not None and st.args.kill_pid
                    and not st.killed and st.body_bytes >= st.args.kill_after_bytes)
            if kill:
                st.killed = True
        if kill:
            os.kill(st.args.kill_pid, signal.SIGKILL)
        if start:
            raise Outage()
        return data

    def read_exact(self, n):
        out = bytearray()
        while len(out) < n:
            data = self.read_part(n - len(out))
            if not data:
                break
            out += data
        return bytes(out)

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                line = self.rfile.readline()
                n = int(line.split(b";")[0].strip() or b"0", 16)
                if n == 0:
                    # trailers end with an empty line
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += self.read_exact(n)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.read_exact(n) if n else b""

    def reset(self):
        """Drops the connection with a TCP reset, as a dying server does."""
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass
        self.close_connection = True

    def in_outage(self):
        st = self.server.st
        with LOCK:
            return st.outage_until is not None and time.time() < st.outage_until

    def reply(self, status, headers=None, body=b""):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)

    def error_json(self, status, code, msg):
        return json.dumps({"errors": [{"code": code, "message": msg}]}).encode()

    def handle_token(self, st):
        want = "Basic " + base64.b64encode(st.args.bearer.encode()).decode()
        if self.headers.get("Authorization") != want:
            self.reply(401, {"Content-Type": "application/json"},
                       self.error_json(401, "UNAUTHORIZED", "bad credentials"))
            return 401
        tok = secrets.token_hex(16)
        with LOCK:
            st.tokens[tok] = [time.time() + st.args.token_ttl, st.args.token_uses]
        body = json.dumps({"token": tok, "expires_in": st.args.token_ttl}).encode()
        self.reply(200, {"Content-Type": "application/json"}, body)
        return 200

    def bearer_ok(self, st):
        a = self.headers.get("Authorization", "")
        if not a.startswith("Bearer "):
            return False
        with LOCK:
            t = st.tokens.get(a[7:])
            if t is None or t[0] < time.time() or t[1] <= 0:
                return False
            t[1] -= 1
        return True

    def challenge(self, st):
        realm = "http://%s/token" % self.headers.get("Host")
        self.reply(401, {"Content-Type": "application/json",
                         "WWW-Authenticate": 'Bearer realm="%s",service="fault-proxy",scope="x"' % realm},
                   self.error_json(401, "UNAUTHORIZED", "authentication required"))

    def forward(self, body):
        st = self.server.st
        conn = http.client.HTTPConnection(st.args.upstream, timeout=60)
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() not in ("transfer-encoding", "content-length",
                                        "authorization", "connection", "expect")}
        if self.command in ("PUT", "PATCH", "POST"):
            headers["Content-Length"] = str(len(body))
        try:
            conn.request(self.command, self.path, body=body if body else None,
                         headers=headers)
            r = conn.getresponse()
            data = r.read()
        except OSError:
            conn.close()
            self.reply(502, {"Content-Type": "text/plain"}, b"upstream down\n")
            return 502
        out = {k: v for k, v in r.getheaders()
               if k.lower() not in ("content-length", "transfer-encoding", "connection")}
        conn.close()
        self.send_response(r.status)
        for k, v in out.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        return r.status

    def handle_any(self):
        st = self.server.st
        kind = kind_of(self.command, self.path)
        if self.in_outage():
            st.record({"method": self.command, "path": self.path.split("?", 1)[0],
                       "kind": kind, "status": "reset", "auth": "", "bytes": 0})
            self.reset()
            return
        try:
            body = self.read_body()
        except Outage:
            st.record({"method": self.command, "path": self.path.split("?", 1)[0],
                       "kind": kind, "status": "reset", "auth": "", "bytes": 0})
            self.reset()
            return
        auth = self.headers.get("Authorization", "").split(" ")[0]
        status = None
        if kind == "token" and st.args.bearer:
            status = self.handle_token(st)
        elif (f := st.fault_for(kind)) is not None:
            status, ra = f
            h = {"Content-Type": "application/json"}
            if ra is not None:
                h["Retry-After"] = ra
            self.reply(status, h, self.error_json(status, "TOOMANYREQUESTS"
                                                  if status == 429 else "UNAVAILABLE",
                                                  "injected fault"))
        elif st.args.bearer and not self.bearer_ok(st):
            self.challenge(st)
            status = 401
        else:
            status = self.forward(body)
        st.record({"method": self.command, "path": self.path.split("?", 1)[0],
                   "kind": kind, "status": status, "auth": auth,
                   "bytes": len(body)})
        if kind == "put-upload" and status == 201 and st.args.kill_pid:
            with LOCK:
                st.puts_done += 1
                kill = st.puts_done >= st.args.kill_after_puts and not st.killed
                if kill:
                    st.killed = True
            if kill:
                os.kill(st.args.kill_pid, signal.SIGKILL)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--ready-file", required=True)
    ap.add_argument("--log")
    ap.add_argument("--fault", action="append")
    ap.add_argument("--bearer")
    ap.add_argument("--token-ttl", type=int, default=300)
    ap.add_argument("--token-uses", type=int, default=1 << 30)
    ap.add_argument("--kill-pid", type=int)
    ap.add_argument("--kill-after-puts", type=int, default=1)
    ap.add_argument("--kill-after-bytes", type=int)
    ap.add_argument("--outage-after-bytes", type=int)
    ap.add_argument("--outage-seconds", type=float, default=5.0)
    ap.add_argument("--flip-byte-after", type=int)
    ap.add_argument("--throttle", type=int)
    args = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    srv.st = State(args)
    tmp = args.ready_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, args.ready_file)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    srv.serve_forever()


if __name__ == "__main__":
    main()
