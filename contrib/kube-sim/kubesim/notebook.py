"""The notebook server that notebook images run in kube-sim's pods: on
the wire it behaves like a Jupyter Server, so `runai submit --jupyter`,
`runai port-forward` and a browser work against the emulator.

It runs inside the pod's sandbox (copied to the state directory and bound
read-only at /opt/kube-sim), with no kubesim imports. It reads the options
a notebook image's start script passes on (`--ServerApp.base_url=` or
`--NotebookApp.base_url=`, `--port=`, `--ServerApp.token=`; JUPYTER_TOKEN
in the environment), makes a random token otherwise, and logs the way
Jupyter does: lines `[I <time> ServerApp] ...` on stderr, the URLs with
`?token=` each on a line of their own. Taken ports are skipped upwards,
as Jupyter's port retries do (pods share this host's loopback).

HTTP, under the base URL: `/api` answers the version without a token;
`/api/status`, `/api/kernels`, `/api/sessions` and `/lab`, `/tree` need
the token (the `token` query parameter, an `Authorization: token T`
header, or the cookie set after a good one); without it the API answers
403 and the pages redirect to `/login`. `/login` takes the token from
a form and sets the cookie.
"""

import datetime
import hmac
import http.server
import json
import os
import secrets
import socket
import sys
import time
import urllib.parse

VERSION = "2.14.2"
PORT_RETRIES = 50
COOKIE = "kube-sim-notebook"


def log(level, text):
    now = datetime.datetime.now()
    sys.stderr.write("[%s %s.%03d ServerApp] %s\n" % (level, now.strftime("%Y-%m-%d %H:%M:%S"),
                                                      now.microsecond // 1000, text))
    sys.stderr.flush()


def options(argv, env):
    """{base_url, port, ip, token} from the command line and environment."""
    opts = {"base_url": "/", "port": 8888, "ip": env.get("KUBE_SIM_POD_ADDRESS") or "127.0.0.1",
            "token": env.get("JUPYTER_TOKEN") or None}
    args = list(argv)
    while args:
        arg = args.pop(0)
        if not arg.startswith("--"):
            continue        # "lab", "notebook", "jupyter": the subcommand
        key, sep, value = arg[2:].partition("=")
        if not sep and args and not args[0].startswith("--"):
            value = args.pop(0)
        key = key.split(".", 1)[1] if key.startswith(("ServerApp.", "NotebookApp.")) else key
        if key == "base_url":
            opts["base_url"] = "/" + value.strip("/") + "/" if value.strip("/") else "/"
        elif key == "port" and value.isdigit():
            opts["port"] = int(value)
        elif key == "token":
            opts["token"] = value
    if opts["token"] is None:
        opts["token"] = secrets.token_hex(24)
    return opts


class Notebook(http.server.BaseHTTPRequestHandler):
    server_version = "TornadoServer/6.4.1"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    opts = {}
    started = ""

    def log_message(self, fmt, *args):
        pass        # Jupyter logs requests at debug level only

    def _send(self, code, body, ctype="application/json", headers=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _token_given(self, query):
        token = self.opts["token"]
        if not token:
            return True
        given = (query.get("token") or [""])[0]
        auth = self.headers.get("Authorization", "")
        if auth.lower().startswith("token "):
            given = given or auth[6:].strip()
        for part in self.headers.get("Cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == COOKIE:
                given = given or value
        return bool(given) and hmac.compare_digest(given, token)

    def _cookie(self):
        return ("Set-Cookie", "%s=%s; Path=%s; HttpOnly; SameSite=Lax"
                % (COOKIE, self.opts["token"], self.opts["base_url"]))

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        base = self.opts["base_url"]
        if not (url.path + "/").startswith(base):
            return self._send(404, "404: Not Found", "text/plain")
        rest = "/" + url.path[len(base):].strip("/")
        if rest == "/api":
            return self._send(200, json.dumps({"version": VERSION}))
        if rest.startswith("/api/"):
            return self._api(rest, query)
        if rest == "/login":
            return self._send(200, LOGIN_PAGE % {"base": base}, "text/html; charset=UTF-8")
        if rest in ("/", "/lab", "/tree") or rest.startswith(("/lab/", "/tree/")):
            if not self._token_given(query):
                target = "%slogin?next=%s" % (base, urllib.parse.quote(base + rest.lstrip("/")))
                return self._send(302, "", "text/plain", [("Location", target)])
            if rest == "/":
                return self._send(302, "", "text/plain", [("Location", base + "lab"),
                                                         self._cookie()])
            return self._send(200, LAB_PAGE % {"base": base, "version": VERSION},
                              "text/html; charset=UTF-8", [self._cookie()])
        return self._send(404, "404: Not Found", "text/plain")

    do_HEAD = do_GET

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        base = self.opts["base_url"]
        if url.path.rstrip("/") != base + "login":
            return self._send(405, "405: Method Not Allowed", "text/plain")
        length = int(self.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(self.rfile.read(min(length, 65536)).decode("utf-8",
                                                                                 "replace"))
        given = (form.get("password") or [""])[0]
        if not hmac.compare_digest(given, self.opts["token"] or ""):
            log("W", "401 POST %slogin: not the token" % base)
            return self._send(401, LOGIN_PAGE % {"base": base}, "text/html; charset=UTF-8")
        return self._send(302, "", "text/plain", [("Location", base + "lab"), self._cookie()])

    def _api(self, rest, query):
        if not self._token_given(query):
            return self._send(403, json.dumps({"message": "Forbidden", "reason": None}))
        if rest == "/api/status":
            return self._send(200, json.dumps({"connections": 0, "kernels": 0,
                                               "last_activity": self.started,
                                               "started": self.started}))
        if rest in ("/api/kernels", "/api/sessions", "/api/terminals"):
            return self._send(200, "[]")
        if rest == "/api/me":
            return self._send(200, json.dumps({"identity": {"username": "jovyan",
                                                            "name": "jovyan"}}))
        return self._send(404, json.dumps({"message": "Not Found", "reason": None}))


LOGIN_PAGE = """<!DOCTYPE html>
<html><head><title>Jupyter Server</title></head><body>
<form action="%(base)slogin" method="post">
<label for="password_input">Password or token:</label>
<input type="password" name="password" id="password_input">
<button type="submit">Log in</button>
</form></body></html>
"""

LAB_PAGE = """<!DOCTYPE html>
<html><head><title>JupyterLab</title>
<script id="jupyter-config-data" type="application/json">{"baseUrl": "%(base)s",
"appName": "JupyterLab", "serverVersion": "%(version)s"}</script></head>
<body><p>JupyterLab (kube-sim's notebook: no kernels run here)</p></body></html>
"""


def bind(opts):
    """The server on the first free port from opts["port"] up."""
    for port in range(opts["port"], opts["port"] + PORT_RETRIES + 1):
        try:
            server = http.server.ThreadingHTTPServer((opts["ip"], port), Notebook)
            server.daemon_threads = True
            return server, port
        except OSError:
            log("I", "The port %d is already in use, trying another port." % port)
    return None, None


def main(argv, env):
    opts = options(argv, env)
    Notebook.opts = opts
    Notebook.started = datetime.datetime.now(datetime.timezone.utc).isoformat() \
        .replace("+00:00", "Z")
    log("I", "Writing Jupyter server cookie secret to "
        "/home/jovyan/.local/share/jupyter/runtime/jupyter_cookie_secret")
    server, port = bind(opts)
    if server is None:
        log("C", "ERROR: the Jupyter server could not be started because no available port "
            "could be found.")
        return 1
    host = socket.gethostname()
    url = "http://%s:%d%slab?token=%s"
    log("I", "Serving notebooks from local directory: %s" % os.getcwd())
    log("I", "Jupyter Server %s is running at:" % VERSION)
    log("I", url % (host, port, opts["base_url"], opts["token"]))
    log("I", "    " + url % ("127.0.0.1", port, opts["base_url"], opts["token"]))
    log("I", "Use Control-C to stop this server and shut down all kernels "
        "(twice to skip confirmation).")
    log("C", "\n\n    To access the server, open this file in a browser:\n"
        "        file:///home/jovyan/.local/share/jupyter/runtime/jpserver-%d-open.html\n"
        "    Or copy and paste one of these URLs:\n        %s\n        %s"
        % (os.getpid(), url % (host, port, opts["base_url"], opts["token"]),
           url % ("127.0.0.1", port, opts["base_url"], opts["token"])))
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        log("I", "Interrupted...")
    return 0


if __name__ == "__main__":
    time.tzset()
    sys.exit(main(sys.argv[1:], os.environ))
