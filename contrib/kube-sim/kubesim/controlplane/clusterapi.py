"""The cluster's own /cluster-api endpoint, which Run:ai's newer CLI
reaches on the cluster's domain (the `domain` of GET /api/v1/clusters)
for what the control plane's REST API lacks. It is in no published API
document; what is emulated is what clients are seen to use, with the
control plane's bearer token:

  GET /cluster-api/status            text containing "OK" when healthy
  GET /cluster-api/api/v1/<project>/workloads/training/runai/<name>/logs
                                     a WebSocket upgrade (no subprotocol);
                                     the training's log as messages, then
                                     a normal close

No query parameters are known for the log (follow, tail, container), so
none are read: the emulator sends the chief pod's log as it is when asked
and closes. A domain here is the control plane's own loopback URL, so
these paths are served beside /api/v1."""

import re

from kubesim import wsproto
from kubesim.objutil import meta_of

LOG_PATH = re.compile(r"^/cluster-api/api/v1/([^/]+)/workloads/training/runai/([^/]+)/logs$")
# bytes of whole lines per WebSocket message: few messages, none huge
CHUNK = 32 * 1024


class ClusterApiError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


def handles(path):
    return path.startswith("/cluster-api/")


def answer(handler, cp, path):
    """Serves one /cluster-api request on the control plane's handler,
    whose bearer token the caller checked; returns the status for the
    request log."""
    try:
        if path == "/cluster-api/status" and handler.command == "GET":
            handler.send_text(200, "OK")
            return 200
        m = LOG_PATH.match(path)
        if m is None or handler.command != "GET":
            raise ClusterApiError(404, "no such endpoint: %s %s" % (handler.command, path))
        return _logs(handler, cp, m.group(1), m.group(2))
    except ClusterApiError as e:
        handler.send_text(e.code, e.message)
        return e.code


def _training(cp, project, name):
    for wl in cp.state.all():
        if wl.name == name and wl.project["name"] == project and \
                wl.type == "Training" and wl.deleted_at is None:
            return wl
    raise ClusterApiError(404, "training %s not found in project %s" % (name, project))


def _chief_pod(cp, wl):
    """The newest pod of the workload, as runai's Kubernetes mode picks."""
    pods = cp.state.pods(wl)
    if not pods:
        raise ClusterApiError(404, "training %s has no pod yet" % wl.name)
    return max(pods, key=lambda p: meta_of(p).get("creationTimestamp") or "")


def _messages(cp, pod):
    """The pod's log as WebSocket text messages of whole lines (a text
    message must be valid UTF-8 on its own, so no line is split)."""
    meta = meta_of(pod)
    containers = (pod.get("spec") or {}).get("containers") or [{}]
    entries = cp.sim.logs.entries(meta["namespace"], meta["name"],
                                  containers[0].get("name", ""))
    out, cur = [], bytearray()
    for _, _, text in entries:
        cur += (text + "\n").encode("utf-8", "replace")
        if len(cur) >= CHUNK:
            out.append(bytes(cur))
            cur = bytearray()
    if cur:
        out.append(bytes(cur))
    return out


def _logs(handler, cp, project, name):
    headers = handler.headers
    if (headers.get("Upgrade") or "").lower() != "websocket" or \
            not wsproto.valid_key(headers.get("Sec-WebSocket-Key") or ""):
        raise ClusterApiError(400, "a WebSocket upgrade is required")
    messages = _messages(cp, _chief_pod(cp, _training(cp, project, name)))
    handler.send_response(101)
    handler.send_header("Upgrade", "websocket")
    handler.send_header("Connection", "Upgrade")
    handler.send_header("Sec-WebSocket-Accept",
                        wsproto.accept_key(headers["Sec-WebSocket-Key"]))
    handler.end_headers()
    out = handler.wfile
    for message in messages:
        out.write(wsproto.encode_frame(wsproto.OP_TEXT, message))
    out.write(wsproto.encode_close(wsproto.CLOSE_NORMAL))
    out.flush()
    handler.close_connection = True
    return 101
