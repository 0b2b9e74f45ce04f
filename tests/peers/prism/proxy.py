#!/usr/bin/python3
"""A loopback proxy between runai and `prism mock --errors` (Stoplight
Prism serving one release's control-plane document). Prism answers every
request with what the document allows: its examples, or data it makes up
from the schemas. The proxy keeps the exchange honest and the lists
finite, and writes down what it saw:

  * every request Prism calls invalid is a request violation: a 4xx of
    Prism's own (422 with its validation list, 401 for a missing bearer,
    404/405 for a path or method the document lacks), or any answer whose
    sl-violations header names a request location. These are runai's
    faults, and the suite counts them;
  * an answer Prism refuses to give because the document's own example
    breaks its schema (500 VIOLATIONS, response locations only) is asked
    for again with made-up data (Prefer: dynamic=true), up to 3 times;
  * the token endpoint falls under the document's global bearer
    requirement, which no client can meet before it has a token: the
    proxy sends a placeholder bearer there;
  * lists lose `next` (and pagination.nextOffset), so each is one page
    (--keep-next keeps them, for a test of runai's own paging guard);
  * a list asked for with filterBy FIELD==VALUE gets VALUE in FIELD of
    each item, as a server that honours the filter would answer, so a
    look-up by name finds an object to go on with: one (a name is one
    workload's in its project), asked for again with made-up data while
    the list is empty (up to 3 times); a workload found by name has a
    type runai manages (Training) where the made-up one is none, so
    delete, suspend and resume are sent and judged too;
  * a cluster's version is the document's release, so runai builds the
    requests of that release.

Usage: proxy.py --prism URL --release 2.24 --log FILE --ready FILE
                [--keep-next]
The ready file gets {"port": N} once it listens on 127.0.0.1.
"""

import argparse
import http.client
import json
import os
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PRISM_ERRORS = "https://stoplight.io/prism/errors#"
# Prism's own refusals of a request (its problem types)
REQUEST_PROBLEMS = ("UNPROCESSABLE_ENTITY", "UNAUTHORIZED", "NO_PATH_MATCHED_ERROR",
                    "NO_METHOD_MATCHED_ERROR", "INVALID_CONTENT_TYPE", "NOT_ACCEPTABLE",
                    "NO_SERVER_MATCHED_ERROR")
LIST_KEYS = ("projects", "workloads", "pods", "events", "nodes", "entries")
DYNAMIC_TRIES = 3
WORKLOAD_TYPES = ("Training", "Workspace", "Distributed", "Inference")


def request_violations(status, headers, body):
    """What Prism said is wrong with the request (a list of texts)."""
    out = []
    raw = headers.get("sl-violations")
    if raw:
        try:
            for v in json.loads(raw):
                loc = v.get("location") or []
                if loc[:1] != ["response"]:
                    out.append("%s: %s" % ("/".join(map(str, loc)), v.get("message")))
        except ValueError:
            out.append("unreadable sl-violations header")
    problem = body if isinstance(body, dict) else {}
    kind = str(problem.get("type") or "")
    if kind.startswith(PRISM_ERRORS) and kind[len(PRISM_ERRORS):] in REQUEST_PROBLEMS:
        found = [v for v in problem.get("validation") or []
                 if (v.get("location") or [])[:1] != ["response"]]
        out += ["%s: %s" % ("/".join(map(str, v.get("location") or [])), v.get("message"))
                for v in found] or ["%d %s" % (status, problem.get("title"))]
    return out


def response_only_defect(status, body):
    """Prism's 500 for an answer of its own that breaks the schema."""
    return status == 500 and isinstance(body, dict) and \
        body.get("type") == PRISM_ERRORS + "VIOLATIONS" and \
        all((v.get("location") or [])[:1] == ["response"] for v in body.get("validation") or [])


def empty_filtered_list(query, body):
    """A list asked for by filterBy ==, with nothing in it."""
    return bool(equality_filters(query)) and isinstance(body, dict) and any(
        isinstance(body.get(k), list) and not body[k] for k in LIST_KEYS)


def equality_filters(query):
    out = {}
    for raw in query.get("filterBy", []):
        for item in raw.split(","):
            field, sep, value = item.partition("==")
            if sep and field and value:
                out[field] = value
    return out


class Proxy:
    def __init__(self, prism, release, log, keep_next):
        self.prism = urllib.parse.urlsplit(prism)
        self.release = release
        self.keep_next = keep_next
        self.log_path = log
        self.lock = threading.Lock()

    def log(self, entry):
        with self.lock, open(self.log_path, "a") as f:
            f.write(json.dumps(entry, separators=(",", ":")) + "\n")

    def ask(self, method, target, headers, data):
        conn = http.client.HTTPConnection(self.prism.hostname, self.prism.port, timeout=60)
        try:
            conn.request(method, target, body=data, headers=headers)
            r = conn.getresponse()
            raw = r.read()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, raw
        finally:
            conn.close()

    def fix(self, path, query, body, fixes):
        """The answer as the suite needs it (see the module's text)."""
        if path == "/api/v1/clusters" and isinstance(body, list):
            for c in body:
                if isinstance(c, dict):
                    c["version"] = self.release + ".0"
            fixes.append("cluster version")
        if not isinstance(body, dict):
            return body
        if not self.keep_next:
            if body.pop("next", None) is not None:
                fixes.append("next stripped")
            if isinstance(body.get("pagination"), dict) and \
                    body["pagination"].pop("nextOffset", None) is not None:
                fixes.append("nextOffset stripped")
        wanted = equality_filters(query)
        for key in LIST_KEYS:
            if wanted and isinstance(body.get(key), list):
                if "name" in wanted:
                    del body[key][1:]
                for item in body[key]:
                    if not isinstance(item, dict):
                        continue
                    for field, value in wanted.items():
                        meta = item.get("meta")
                        if field not in item and isinstance(meta, dict):
                            meta[field] = value
                        else:
                            item[field] = value
                    if key == "workloads" and "name" in wanted and \
                            item.get("type") not in WORKLOAD_TYPES:
                        item["type"] = "Training"
                fixes.append("filterBy honoured")
        return body


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.relay()

    do_POST = do_DELETE = do_PUT = do_PATCH = do_GET

    def relay(self):
        px = self.server.proxy
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n) if n else None
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() not in ("host", "accept-encoding", "connection", "prefer")}
        fixes = []
        if url.path == "/api/v1/token" and "Authorization" not in headers:
            headers["Authorization"] = "Bearer proxy-placeholder"
            fixes.append("token endpoint bearer")
        status, rh, raw = px.ask(self.command, self.path, headers, data)
        body = parse(raw)
        violations = request_violations(status, rh, body)
        tries = 0
        while not violations and response_only_defect(status, body) and tries < DYNAMIC_TRIES:
            tries += 1
            status, rh, raw = px.ask(self.command, self.path,
                                     dict(headers, Prefer="dynamic=true"), data)
            body = parse(raw)
            violations = request_violations(status, rh, body)
        while not violations and status == 200 and empty_filtered_list(query, body) and \
                tries < 2 * DYNAMIC_TRIES:
            tries += 1
            status, rh, raw = px.ask(self.command, self.path,
                                     dict(headers, Prefer="dynamic=true"), data)
            body = parse(raw)
            violations = request_violations(status, rh, body)
        if tries:
            fixes.append("made-up answer (%d)" % tries)
        if 200 <= status < 300 and body is not None:
            body = px.fix(url.path, query, body, fixes)
            raw = json.dumps(body).encode()
        px.log({"method": self.command, "path": url.path, "query": url.query,
                "status": status, "violations": violations, "fixes": fixes,
                "defect": response_only_defect(status, body)})
        self.send_response(status)
        ctype = rh.get("content-type")
        if ctype and raw:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        if raw:
            self.wfile.write(raw)


def parse(raw):
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prism", required=True)
    ap.add_argument("--release", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--keep-next", action="store_true")
    a = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.proxy = Proxy(a.prism, a.release, a.log, a.keep_next)
    tmp = a.ready + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"port": server.server_address[1]}, f)
    os.replace(tmp, a.ready)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
