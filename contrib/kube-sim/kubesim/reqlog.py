"""The request log: one JSON line per API request, in DIR/requests.jsonl.

Tests read it to assert what a client sent. Secrets never reach it: the
Authorization and Cookie values are replaced by "<redacted>" (keeping the
scheme word, as in "Bearer <redacted>"), and so is a bearer token carried
in a WebSocket subprotocol.
"""

import json
import os
import threading
import time

BODY_TEXT_CAP = 4096
_WS_TOKEN_PREFIX = "base64url.bearer.authorization.k8s.io."


def redact_header(name, value):
    if name in ("authorization", "proxy-authorization"):
        scheme, sep, _ = value.partition(" ")
        return "%s <redacted>" % scheme if sep else "<redacted>"
    if name in ("cookie", "set-cookie"):
        return "<redacted>"
    if name == "sec-websocket-protocol" and _WS_TOKEN_PREFIX in value:
        return ", ".join(_WS_TOKEN_PREFIX + "<redacted>" if p.strip().startswith(_WS_TOKEN_PREFIX)
                         else p.strip() for p in value.split(","))
    return value


def body_for_log(raw, content_type):
    """Parsed JSON for a JSON body, else text capped at 4 KiB; None if empty."""
    if not raw:
        return None
    if "json" in (content_type or "") or raw[:1] in (b"{", b"["):
        try:
            return json.loads(raw)
        except ValueError:
            pass
    return raw[:BODY_TEXT_CAP].decode("utf-8", "replace")


def open_private(path, truncate=False):
    """A log of the state directory, opened for appending (emptied first
    with `truncate`), mode 0600 even if an earlier run left it wider: its
    lines hold whole request bodies, a Secret's password among them."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
    fd = os.open(path, flags | (os.O_TRUNC if truncate else 0), 0o600)
    try:
        os.fchmod(fd, 0o600)
    except OSError:
        os.close(fd)
        raise
    return os.fdopen(fd, "a", encoding="utf-8")


class RequestLog:
    def __init__(self, path):
        self.path = path
        self._lock = threading.Lock()
        self._file = open_private(path)

    def record(self, method, path, query, user, auth, headers, body, status,
               tls_resumed=None):
        """One request; tls_resumed: whether its connection's TLS session
        was resumed (None: not TLS)."""
        entry = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
                  + ".%03dZ" % (int(time.time() * 1000) % 1000),
            "method": method, "path": path, "query": query, "user": user, "auth": auth,
            "headers": {k.lower(): redact_header(k.lower(), v) for k, v in headers},
            "body": body, "status": status, "tls_resumed": tls_resumed,
        }
        line = json.dumps(entry, separators=(",", ":")) + "\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()

    def read_all(self):
        with self._lock:
            self._file.flush()
            with open(self.path, encoding="utf-8") as f:
                return [json.loads(line) for line in f if line.strip()]

    def clear(self):
        with self._lock:
            self._file.truncate(0)
            self._file.seek(0)

    def close(self):
        with self._lock:
            self._file.close()
