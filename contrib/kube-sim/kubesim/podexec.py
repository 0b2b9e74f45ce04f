"""Exec and attach requests (GET .../pods/P/exec and .../attach with a
WebSocket upgrade), and the exec backend.

The request is checked as the API server and the kubelet check it, the
subprotocol negotiated (v5, v4 or the older ones; POST /_sim/ws narrows
what is served, as an older API server would), and the connection handed
to a channel session (channels.py) with a backend: for exec a fresh
process, on a PTY when tty=true, in the pod's sandbox (podproc.place) with
the container's environment, ending with the Status kubelet sends; for attach
a subscriber of the pod's console (attach.py).

This is the top of the pod I/O modules: it uses attach, channels, podproc
and podreq, and none of them uses it.
"""

import os

from kubesim import wsproto
from kubesim.attach import AttachBackend, pod_console
from kubesim.channels import Session, WsConn, success_status
from kubesim.errors import ApiError, bad_request, not_found
from kubesim.objutil import PODS, phase_of
from kubesim.podproc import ExecNotFound, Refused, close_fd, kill_group, reap, set_winsize, spawn
from kubesim.podreq import (container_spec, pod_still_running, query_flag, query_value,
                            resolve_container, stopping, stream_guard)

# Images known to ship without bash: exec of bash there fails as runc
# reports it, so clients' fallbacks to /bin/sh can be tested.
_IMAGES_WITHOUT_BASH = ("busybox", "alpine")


def check_image_has(pod, container, argv0):
    image = ""
    for c in (pod.get("spec") or {}).get("containers") or []:
        if c.get("name") == container:
            image = c.get("image") or ""
    repo = image.rsplit("/", 1)[-1].split("@", 1)[0].split(":", 1)[0]
    if repo in _IMAGES_WITHOUT_BASH and argv0.rsplit("/", 1)[-1] == "bash":
        if "/" in argv0:
            raise ExecNotFound('exec: "%s": stat %s: no such file or directory'
                               % (argv0, argv0))
        raise ExecNotFound('exec: "%s": executable file not found in $PATH' % argv0)


def _exit_status(argv, code):
    return {"metadata": {}, "status": "Failure",
            "message": "command terminated with non-zero exit code: error executing command "
                       "[%s], exit code %d" % (" ".join(argv), code),
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]}}


def _internal_status(message):
    """containerd's answer when the exec can't start, as the kubelet wraps it."""
    inner = ("error executing command in container: failed to exec in container: failed to "
             "start exec \"%s\": OCI runtime exec failed: exec failed: unable to start "
             "container process: %s: unknown" % (os.urandom(32).hex(), message))
    return {"metadata": {}, "status": "Failure",
            "message": "Internal error occurred: " + inner,
            "reason": "InternalError",
            "details": {"causes": [{"message": inner}]},
            "code": 500}


class ExecBackend:
    """One `exec`: a fresh process."""

    @property
    def owns_outputs(self):
        return self.tty  # a PTY master is also the input: close() closes it

    def __init__(self, argv, cwd, env, tty, stdin, stdout, stderr, view=None):
        self.argv = argv
        self.tty = tty
        self.proc, self.in_fd, self.outputs = spawn(argv, cwd, env, tty, stdin,
                                                    stdout, stderr, view)

    def write(self, data):
        if self.in_fd is None:
            return len(data)  # no stdin: input is dropped, as kube does
        try:
            return os.write(self.in_fd, data)
        except (BlockingIOError, InterruptedError):
            return 0
        except OSError:
            return -1

    def close_stdin(self):
        if self.in_fd is None:
            return
        if self.tty:
            self.write(b"\x04")  # ^D: the PTY master is also the output
        else:
            close_fd(self.in_fd)
            self.in_fd = None

    def resize(self, cols, rows):
        if self.tty:
            set_winsize(self.in_fd, rows, cols)

    def exited(self):
        return self.proc.poll() is not None

    def status(self):
        code = self.proc.returncode
        if code is None:
            return _exit_status(self.argv, 137)
        if code < 0:
            code = 128 - code  # killed by signal N: the shell's 128+N
        return success_status() if code == 0 else _exit_status(self.argv, code)

    def kill(self):
        kill_group(self.proc)

    def close(self):
        self.kill()
        reap(self.proc)
        if self.tty:
            self.outputs.clear()
            close_fd(self.in_fd)
        else:
            for fd in list(self.outputs):
                close_fd(fd)
            self.outputs.clear()
            close_fd(self.in_fd)
        self.in_fd = None


# --- GET .../pods/P/exec and .../attach ---------------------------------------

def _upgrade_requested(handler):
    return "websocket" in (handler.headers.get("Upgrade") or "").lower()


def _negotiate(handler):
    """Checks the WebSocket handshake headers; returns the subprotocol.
    Raises ApiError for a bad handshake."""
    h = handler.headers
    if (h.get("Sec-WebSocket-Version") or "").strip() != "13":
        raise ApiError(400, "BadRequest",
                       "unsupported websocket version: only version 13 is supported")
    if not wsproto.valid_key(h.get("Sec-WebSocket-Key") or ""):
        raise bad_request("missing or malformed Sec-WebSocket-Key")
    offered = wsproto.offered_protocols(h.get_all("Sec-WebSocket-Protocol") or [])
    if not offered:
        return ""  # the legacy protocol (kube's "" = channel.k8s.io)
    proto = wsproto.choose_protocol(offered, _served_protocols)
    if proto is None:
        raise ApiError(403, "Forbidden",
                       "requested protocol(s) are not supported: [%s]; supports [%s]"
                       % (" ".join(offered), " ".join(wsproto.SUPPORTED)))
    return proto


def _answer_upgrade(handler, proto):
    key = handler.headers.get("Sec-WebSocket-Key")
    handler.send_response(101, "Switching Protocols")
    handler.send_header("Upgrade", "websocket")
    handler.send_header("Connection", "Upgrade")
    handler.send_header("Sec-WebSocket-Accept", wsproto.accept_key(key))
    if proto:
        handler.send_header("Sec-WebSocket-Protocol", proto)
    handler.end_headers()
    handler.wfile.flush()
    handler.close_connection = True  # the connection is the stream's now


def _check_pod_ready(handler, pod, container, attach, stdin):
    """The API server's and the kubelet's checks before an upgrade. Returns
    True when it has answered the request itself."""
    name = pod["metadata"]["name"]
    if not (pod.get("spec") or {}).get("nodeName"):
        raise bad_request("pod %s does not have a host assigned" % name)
    if phase_of(pod) != "Running":
        # the kubelet answers this in plain text, not as a Status; kubectl
        # shows it as `unable to upgrade connection: container not found ("c")`
        handler.send_bytes(500, ('container not found ("%s")' % container).encode(),
                           "text/plain; charset=utf-8")
        return True
    if attach and stdin and not container_spec(pod, container).get("stdin"):
        raise bad_request("cannot attach to stdin of container %s in pod %s: it was not "
                          "started with stdin: true" % (container, name))
    return False


def handle_exec(handler, sim, ns, pod_name, query, attach=False):
    """GET (WebSocket upgrade) .../pods/POD/exec or .../attach."""
    pod = sim.store.get(PODS, ns, pod_name)
    if pod is None:
        raise not_found("pods", pod_name)
    container = resolve_container(pod, query_value(query, "container"))
    stdin, stdout = query_flag(query, "stdin"), query_flag(query, "stdout")
    stderr, tty = query_flag(query, "stderr"), query_flag(query, "tty")
    argv = [c for c in (query or {}).get("command") or []]
    if not (stdin or stdout or stderr):
        raise bad_request("you must specify at least 1 of stdin, stdout, stderr")
    if not attach and not argv:
        raise bad_request("you must specify at least one command for the container")
    if _check_pod_ready(handler, pod, container, attach, stdin):
        return
    if handler.command != "GET" or not _upgrade_requested(handler):
        raise bad_request("Upgrade request required")
    proto = _negotiate(handler)
    procs = sim.processes
    try:
        cwd, env, view = procs.place(pod, container, tty) if not attach else (None, None, None)
        if attach:
            procs.check_allowed()
    except Refused as e:
        raise ApiError(500, "InternalError", "Internal error occurred: %s" % e)
    _answer_upgrade(handler, proto)
    ws = WsConn(handler, proto or wsproto.V1)
    try:
        if attach:
            backend = AttachBackend(pod_console(sim, pod, container), stdin)
        else:
            check_image_has(pod, container, argv[0])
            backend = ExecBackend(argv, cwd, env, tty, stdin, stdout, stderr, view)
    except (ExecNotFound, OSError, Refused) as e:
        message = str(e) if isinstance(e, ExecNotFound) else \
            'exec: "%s": %s' % (argv[0] if argv else "/bin/sh", e.strerror or e)
        ws.send_status(_internal_status(message))
        ws.close()
        ws.linger()
        ws.finish()
        return
    procs.add(ns, pod_name, backend)
    if not pod_still_running(sim, ns, pod_name, pod["metadata"].get("uid")):
        backend.kill()  # the pod ended while the process started
    try:
        with stream_guard(sim):
            Session(ws, backend, stdin, lambda: stopping(sim)).run()
    finally:
        procs.discard(ns, pod_name, backend)


# The exec/attach subprotocols served, most preferred first: an API server
# older than 1.30 has no v5 (POST /_sim/ws {"protocols": [...]}).
_served_protocols = wsproto.SUPPORTED


def _sim_ws(body):
    global _served_protocols
    if body is not None:
        protos = body.get("protocols") if isinstance(body, dict) else None
        if not isinstance(protos, list) or not protos or \
                any(p not in wsproto.SUPPORTED for p in protos):
            raise bad_request("protocols must be a non-empty list out of [%s]"
                              % " ".join(wsproto.SUPPORTED))
        _served_protocols = tuple(protos)
    return {"protocols": list(_served_protocols)}


def register_sim_routes(sim):
    """GET/POST /_sim/ws reads or sets the exec subprotocols served; GET
    /_sim/sandbox says how pod processes run ({"mode": "sandbox"|"host"|
    "refuse", "reason": ...})."""
    def route(handler, method, path, body):
        if path.rstrip("/") == "/_sim/sandbox" and method == "GET":
            handler.send_json(200, sim.processes.policy.describe())
            return True
        if path.rstrip("/") == "/_sim/ws" and method in ("GET", "POST"):
            try:
                handler.send_json(200, _sim_ws(body if method == "POST" else None))
            except ApiError as e:
                handler.send_api_error(e)
            return True
        return False

    if getattr(sim, "sim_routes", None) is None:
        sim.sim_routes = []
    sim.sim_routes.append(route)
