"""Hostile peers for the security tests (t961x), all on loopback.

    hostile.py sink --host 127.0.0.2 --ready F --log L
        accepts TCP connections and appends every byte it receives to L;
        answers nothing. Whatever reaches it is what the client leaked.
    hostile.py idp --ready F --log L --token-endpoint URL
        an OIDC issuer http://127.0.0.1:PORT whose discovery document
        names URL as its token endpoint ("{port}" in URL is PORT); its own
        /token answers invalid_grant. One JSON line per request in L.
    hostile.py registry --ready F --log L --cert C --key K --realm URL
        an HTTPS registry whose GET /v2/ asks for a Bearer token at URL
        (--plain: plain HTTP, no certificate); with --upload-location
        URL instead of --realm, one that asks for no credentials and
        sends every upload to URL.

Each writes its port to the ready file once it listens, and runs until
it is killed.
"""
import argparse
import http.server
import json
import os
import socket
import ssl
import sys
import threading


def write_ready(path, port):
    with open(path + ".tmp", "w") as f:
        f.write("%d\n" % port)
    os.replace(path + ".tmp", path)


def run_sink(args):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((args.host, 0))
    srv.listen(16)
    open(args.log, "wb").close()
    write_ready(args.ready, srv.getsockname()[1])
    lock = threading.Lock()

    def drain(conn):
        # an HTTP client waits for an answer: hang up soon after the
        # request head, so that it fails fast instead of timing out
        conn.settimeout(5)
        seen = b""
        try:
            while True:
                data = conn.recv(65536)
                if not data:
                    break
                with lock, open(args.log, "ab") as f:
                    f.write(data)
                seen += data
                if b"\r\n\r\n" in seen:
                    conn.settimeout(0.5)
        except OSError:
            pass
        finally:
            conn.close()

    while True:
        conn, _ = srv.accept()
        with lock, open(args.log, "ab") as f:
            f.write(b"[connection]\n")
        threading.Thread(target=drain, args=(conn,), daemon=True).start()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def record(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode("utf-8", "replace") if n else ""
        line = {"method": self.command, "path": self.path, "body": body,
                "authorization": self.headers.get("Authorization") or ""}
        with open(self.server.args.log, "a") as f:
            f.write(json.dumps(line) + "\n")

    def answer(self, status, doc, headers=()):
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.record()
        self.server.route(self)

    do_POST = do_PUT = do_PATCH = do_GET

    def do_HEAD(self):
        self.record()
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()


def idp_route(h):
    base = "http://127.0.0.1:%d" % h.server.server_address[1]
    if h.path == "/.well-known/openid-configuration":
        tok = h.server.args.token_endpoint.replace(
            "{port}", str(h.server.server_address[1]))
        h.answer(200, {"issuer": base, "token_endpoint": tok,
                       "jwks_uri": base + "/jwks",
                       "authorization_endpoint": base + "/auth"})
    elif h.path == "/token":
        h.answer(400, {"error": "invalid_grant",
                       "error_description": "the test issuer grants nothing"})
    else:
        h.answer(404, {"error": "not_found"})


def registry_route(h):
    if h.server.args.upload_location:
        return open_registry_route(h)
    if h.path == "/v2/":
        realm = h.server.args.realm
        h.answer(401, {"errors": [{"code": "UNAUTHORIZED"}]}, [
            ("WWW-Authenticate",
             'Bearer realm="%s",service="hostile"' % realm)])
    else:
        h.answer(404, {"errors": [{"code": "NAME_UNKNOWN"}]})


def open_registry_route(h):
    """A registry that asks for no credentials and sends every upload
    to --upload-location (its blobs are not there: HEAD says 404)."""
    if h.path == "/v2/":
        h.answer(200, {})
    elif h.command == "POST" and "/blobs/uploads/" in h.path:
        h.answer(202, {}, [("Location", h.server.args.upload_location)])
    else:
        h.answer(404, {"errors": [{"code": "BLOB_UNKNOWN"}]})


def run_http(args, route, tls):
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.args, srv.route = args, route
    if tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.cert, args.key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    open(args.log, "w").close()
    write_ready(args.ready, srv.server_address[1])
    srv.serve_forever()


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="mode", required=True)
    for name in ("sink", "idp", "registry"):
        s = sub.add_parser(name)
        s.add_argument("--ready", required=True)
        s.add_argument("--log", required=True)
    sub.choices["sink"].add_argument("--host", default="127.0.0.1")
    sub.choices["idp"].add_argument("--token-endpoint", required=True)
    sub.choices["registry"].add_argument("--realm")
    sub.choices["registry"].add_argument("--upload-location")
    sub.choices["registry"].add_argument("--cert")
    sub.choices["registry"].add_argument("--key")
    sub.choices["registry"].add_argument("--plain", action="store_true")
    args = p.parse_args()
    if args.mode == "sink":
        run_sink(args)
    elif args.mode == "idp":
        run_http(args, idp_route, False)
    else:
        run_http(args, registry_route, not args.plain)


if __name__ == "__main__":
    sys.exit(main())
