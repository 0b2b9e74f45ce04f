"""Container logs: a bounded buffer of timestamped lines per (namespace,
pod, container), GET .../pods/P/log with kube's options (tailLines,
sinceSeconds, sinceTime, timestamps, limitBytes, previous, follow), and
/_sim/logs to append or read lines.

The kubelet appends a line per step for the pods it runs, tests append
with POST /_sim/logs, and an attach console appends what the pod's shell
prints. This module only keeps and serves lines: it knows nothing of who
writes them, so the writers depend on it and never the other way round.
"""

import collections
import datetime
import operator
import threading
import time

from kubesim.errors import ApiError, bad_request, invalid, not_found
from kubesim.objutil import PODS, is_finished, phase_of
from kubesim.podreq import (MAX_LINE, POLL, pod_still_running, query_flag, query_int,
                            query_value, resolve_container, stopping, stream_guard)

MAX_LINES = 5000             # per container buffer
MAX_BUFFER_BYTES = 1 << 20   # per container buffer
RENDER_BATCH = 512           # lines per part of a log answer
_TEXT = operator.itemgetter(2)  # an entry's line


def _waiting_reason(pod, container):
    for cs in (pod.get("status") or {}).get("containerStatuses") or []:
        if cs.get("name") == container:
            reason = ((cs.get("state") or {}).get("waiting") or {}).get("reason")
            if reason:
                return reason
    return "ContainerCreating"


def rfc3339nano(ts_ns):
    """kubelet's fixed-width RFC3339Nano, as `logs --timestamps` prints it."""
    secs, nanos = divmod(ts_ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + ".%09dZ" % nanos


def _parse_time(text):
    """RFC3339 (with or without fractions or an offset) to epoch ns."""
    try:
        dt = datetime.datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        raise bad_request('parsing time "%s" as "2006-01-02T15:04:05Z07:00": cannot parse'
                          % text)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=datetime.timezone.utc)
    return int(dt.timestamp() * 1e9)


# --- log buffers --------------------------------------------------------------

def _newer(entries, after_seq):
    """The entries (a deque, oldest first) after after_seq. Sequence
    numbers only grow, so the scan starts at the newest end and stops at
    the first entry already seen: a follower's wake-up costs the lines
    it gets, not the whole buffer (a million lines in a benchmark)."""
    if not entries or entries[0][0] > after_seq:
        return list(entries)
    out = []
    for entry in reversed(entries):
        if entry[0] <= after_seq:
            break
        out.append(entry)
    out.reverse()
    return out


class _Buffer:
    """One container's lines: (seq, timestamp ns, text), oldest first."""
    __slots__ = ("entries", "nbytes")

    def __init__(self):
        self.entries = collections.deque()
        self.nbytes = 0


class PodLogs:
    """Log buffers for every container (`sim.logs`).

    Followers wait on one condition variable. Lock order: whoever holds
    this lock never takes the store's lock, so the controller may append
    while it holds the store lock.
    """

    def __init__(self, sim):
        self.sim = sim
        self._cond = threading.Condition(threading.Lock())
        self._bufs = {}          # (ns, pod, container) -> _Buffer
        # --log-buffer-mib raises the per-container cap (benchmarks want
        # logs of 100 MiB); lines then count at one per 16 bytes
        mib = getattr(getattr(sim, "options", None), "log_buffer_mib", None)
        self.max_bytes = int(mib * (1 << 20)) if mib else MAX_BUFFER_BYTES
        self.max_lines = max(MAX_LINES, self.max_bytes // 16) if mib else MAX_LINES
        self._seq = 0
        sim.store.add_listener(self._on_change)

    # appending ------------------------------------------------------------

    def append(self, ns, pod, container, line, ts=None):
        """Adds one line (a string with newlines becomes several). `ts` is
        epoch seconds (float) or None for now."""
        ts_ns = int(ts * 1e9) if ts is not None else time.time_ns()
        texts = str(line).split("\n")
        if len(texts) > 1 and texts[-1] == "":
            texts.pop()  # "a\n" is one line, not two
        with self._cond:
            buf = self._bufs.setdefault((ns, pod, container), _Buffer())
            for text in texts:
                text = text[:MAX_LINE]
                self._seq += 1
                buf.entries.append((self._seq, ts_ns, text))
                buf.nbytes += len(text) + 1
            while buf.entries and (len(buf.entries) > self.max_lines
                                   or buf.nbytes > self.max_bytes):
                buf.nbytes -= len(buf.entries.popleft()[2]) + 1
            self._cond.notify_all()

    # reading --------------------------------------------------------------

    def entries(self, ns, pod, container, after_seq=0):
        """The buffered (seq, ts_ns, text) entries newer than after_seq."""
        with self._cond:
            buf = self._bufs.get((ns, pod, container))
            if buf is None:
                return []
            return _newer(buf.entries, after_seq)

    def wait(self, ns, pod, container, after_seq, timeout):
        """Waits up to `timeout` s for a line newer than after_seq (or any
        wake-up: the pod finished or went away); returns the new entries."""
        key = (ns, pod, container)
        with self._cond:
            buf = self._bufs.get(key)
            if buf is None or not buf.entries or buf.entries[-1][0] <= after_seq:
                self._cond.wait(timeout)
                buf = self._bufs.get(key)
            if buf is None:
                return []
            return _newer(buf.entries, after_seq)

    def wake(self):
        with self._cond:
            self._cond.notify_all()

    def drop(self, ns, pod):
        """Forgets a deleted pod's lines (a new pod of that name starts empty)."""
        with self._cond:
            for key in [k for k in self._bufs if k[0] == ns and k[1] == pod]:
                del self._bufs[key]
            self._cond.notify_all()

    # pods finishing or going away -----------------------------------------

    def _on_change(self, event_type, gvr, obj):
        if tuple(gvr) != PODS:
            return
        meta = obj.get("metadata") or {}
        ns, name = meta.get("namespace", ""), meta.get("name", "")
        if event_type == "DELETED":
            self.drop(ns, name)
        elif is_finished(obj):
            self.wake()  # followers end their streams

    def shutdown(self):
        self.wake()


# --- GET .../pods/P/log -------------------------------------------------------

class _LogOptions:
    def __init__(self, query, pod_name):
        self.follow = query_flag(query, "follow")
        self.timestamps = query_flag(query, "timestamps")
        self.previous = query_flag(query, "previous")
        self.tail = query_int(query, "tailLines")
        self.limit = query_int(query, "limitBytes")
        since_seconds = query_int(query, "sinceSeconds")
        since_time = query_value(query, "sinceTime")
        errs = []
        if self.tail is not None and self.tail < 0:
            errs.append(("tailLines", "FieldValueInvalid",
                         "Invalid value: %d: must be greater than or equal to 0" % self.tail))
        if self.limit is not None and self.limit < 1:
            errs.append(("limitBytes", "FieldValueInvalid",
                         "Invalid value: %d: must be greater than 0" % self.limit))
        if since_seconds is not None and since_seconds < 1:
            errs.append(("sinceSeconds", "FieldValueInvalid",
                         "Invalid value: %d: must be greater than 0" % since_seconds))
        if since_seconds is not None and since_time is not None:
            errs.append(("sinceSeconds", "FieldValueForbidden",
                         "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be "
                         "specified"))
        if errs:
            raise invalid("PodLogOptions", pod_name, errs)
        self.since_ns = None
        if since_seconds is not None:
            self.since_ns = time.time_ns() - since_seconds * 1_000_000_000
        elif since_time is not None:
            self.since_ns = _parse_time(since_time)

    def render(self, entries):
        """The lines as a list of parts of RENDER_BATCH lines each: one
        body of 100 MiB would cost more to allocate than to send, and one
        encode per part is cheaper than one per line."""
        parts = []
        for i in range(0, len(entries), RENDER_BATCH):
            batch = entries[i:i + RENDER_BATCH]
            if self.timestamps:
                text = "".join("%s %s\n" % (rfc3339nano(ts), t) for _, ts, t in batch)
            else:
                text = "\n".join(map(_TEXT, batch)) + "\n"
            parts.append(text.encode("utf-8", "replace"))
        return parts

    def line(self, entry):
        _, ts_ns, text = entry
        prefix = rfc3339nano(ts_ns) + " " if self.timestamps else ""
        return (prefix + text + "\n").encode("utf-8", "replace")

    def initial(self, entries):
        """The lines a request returns before following: since, then tail."""
        if self.since_ns is not None:
            entries = [e for e in entries if e[1] >= self.since_ns]
        if self.tail is not None:
            entries = entries[-self.tail:] if self.tail > 0 else []
        return entries


def handle_log(handler, sim, ns, pod_name, query):
    """GET /api/v1/namespaces/NS/pods/POD/log."""
    pod = sim.store.get(PODS, ns, pod_name)
    if pod is None:
        raise not_found("pods", pod_name)
    container = resolve_container(pod, query_value(query, "container"))
    opts = _LogOptions(query, pod_name)
    if opts.previous:
        raise bad_request('previous terminated container "%s" in pod "%s" not found'
                          % (container, pod_name))
    if not (pod.get("spec") or {}).get("nodeName") and not is_finished(pod):
        # an unscheduled pod has no kubelet to ask: kube answers an empty body
        return _send_text(handler, b"")
    if phase_of(pod) == "Pending":
        raise bad_request('container "%s" in pod "%s" is waiting to start: %s'
                          % (container, pod_name, _waiting_reason(pod, container)))
    everything = sim.logs.entries(ns, pod_name, container)
    entries = opts.initial(everything)
    if not opts.follow:
        return handler.send_streamed(200, _cut(opts.render(entries), opts.limit),
                                     "text/plain")
    # follow from the same snapshot, so no line falls between the two
    last_seq = everything[-1][0] if everything else 0
    with stream_guard(sim):
        _LogStream(handler, opts).follow(sim, ns, pod, container, entries, last_seq)


def _cut(parts, limit):
    """The parts' first `limit` bytes (all of them when limit is None)."""
    if limit is None:
        return parts
    out, left = [], limit
    for part in parts:
        if left <= 0:
            break
        out.append(part[:left])
        left -= len(part)
    return out


def _send_text(handler, body):
    handler.send_bytes(200, body, "text/plain")


class _LogStream:
    """A `follow=true` answer: chunks of lines, within limitBytes."""

    def __init__(self, handler, opts):
        self.handler = handler
        self.opts = opts
        self.sent = 0

    def emit(self, entries):
        """Writes lines; False once the stream is over (client gone, cut by
        a fault, or the byte limit reached and the stream ended)."""
        for entry in entries:
            data = self.opts.line(entry)
            if self.opts.limit is not None:
                data = data[:self.opts.limit - self.sent]
            if not self.handler.write_chunk(data):
                return False  # client gone or fault cut: the connection is closed
            self.sent += len(data)
            if self.opts.limit is not None and self.sent >= self.opts.limit:
                self.handler.end_chunked()
                return False
        return True

    def follow(self, sim, ns, pod, container, entries, last_seq):
        """Streams lines until the pod finishes or goes away, the client
        leaves, the byte limit is reached, or the server stops."""
        name, uid = pod["metadata"]["name"], pod["metadata"].get("uid")
        self.handler.start_chunked(200, "text/plain")
        pending = entries
        while True:
            if not self.emit(pending):
                return
            if not pod_still_running(sim, ns, name, uid) or stopping(sim):
                # the last lines, written just before the pod ended
                if self.emit(sim.logs.entries(ns, name, container, last_seq)):
                    self.handler.end_chunked()
                return
            client_gone = getattr(self.handler, "client_gone", None)
            if client_gone is not None and client_gone():
                self.handler.close_connection = True
                return
            pending = sim.logs.wait(ns, name, container, last_seq, POLL)
            if pending:
                last_seq = pending[-1][0]


# --- /_sim/logs ---------------------------------------------------------------

def _sim_logs(sim, body, handler):
    if not isinstance(body, dict) or not body.get("pod"):
        raise bad_request('expected {"namespace": NS, "pod": POD, "container": optional, '
                          '"lines": [...]}')
    ns = body.get("namespace") or "default"
    pod = sim.store.get(PODS, ns, body["pod"])
    if pod is None:
        raise not_found("pods", body["pod"])
    container = resolve_container(pod, body.get("container"))
    lines = body.get("lines")
    if isinstance(lines, str):
        lines = [lines]
    if not isinstance(lines, list):
        raise bad_request("lines must be a list of strings")
    for line in lines:
        sim.logs.append(ns, body["pod"], container, str(line))
    return {"namespace": ns, "pod": body["pod"], "container": container,
            "appended": len(lines)}


def _sim_logs_get(sim, handler):
    query = getattr(handler, "query", {}) or {}
    ns, name = query_value(query, "namespace", "default"), query_value(query, "pod")
    pod = sim.store.get(PODS, ns, name) if name else None
    if pod is None:
        raise not_found("pods", name or "")
    container = resolve_container(pod, query_value(query, "container"))
    return {"namespace": ns, "pod": name, "container": container,
            "lines": [{"time": rfc3339nano(ts), "line": text}
                      for _, ts, text in sim.logs.entries(ns, name, container)]}


def register_sim_routes(sim):
    """POST /_sim/logs appends lines; GET /_sim/logs?namespace=&pod= reads them."""
    def route(handler, method, path, body):
        if path.rstrip("/") != "/_sim/logs" or method not in ("GET", "POST"):
            return False
        try:
            if method == "POST":
                result = _sim_logs(sim, body, handler)
            else:
                result = _sim_logs_get(sim, handler)
        except ApiError as e:
            handler.send_api_error(e)
            return True
        handler.send_json(200, result)
        return True

    if getattr(sim, "sim_routes", None) is None:
        sim.sim_routes = []
    sim.sim_routes.append(route)
