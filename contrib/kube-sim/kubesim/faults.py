"""Injected faults: make the next N matching requests misbehave.

A fault matches on a path prefix (and optionally a method and query
parameters) and is used up
after `count` requests. What it does, in order: wait `delay` seconds;
then either answer `status` with a chosen body (a Status, an HTML page,
nothing, garbage, or a body cut short of its Content-Length), or (no
status, or a 2xx with body "truncated") let the real answer through,
trickled one byte a second (`trickle`) or cut after `cut_after_bytes`.
A fault with a delay also counts the most requests inside its delay at
once (`most_waiting` in its listing): a client's concurrency, as the
server saw it. With `until` (a path prefix) the delay is a deadline: it
ends as soon as a request for that prefix has reached the server since
the fault was added, so that a test can tell that a client sent that
request while it waited for this answer, however fast or slow it runs.
"""

import threading
import time

from kubesim.errors import bad_request

BODIES = ("status", "html", "empty", "garbage", "truncated")


class Fault:
    def __init__(self, spec):
        if not isinstance(spec, dict):
            raise bad_request("a fault is a JSON object")
        self.path_prefix = spec.get("path_prefix", "/")
        self.method = (spec.get("method") or "").upper() or None
        # {"follow": "true"}: only requests whose query has each of these
        # (a log's follow stream, not its plain reads)
        self.query = spec.get("query") or {}
        if not isinstance(self.query, dict) or not all(
                isinstance(v, str) for v in self.query.values()):
            raise bad_request("fault query must map names to strings")
        self.count = int(spec.get("count", 1))
        self.status = int(spec["status"]) if spec.get("status") is not None else None
        self.retry_after = spec.get("retry_after")
        self.body = spec.get("body", "status")
        self.message = spec.get("message")
        self.delay = float(spec.get("delay") or 0)
        self.until = spec.get("until")
        if self.until is not None and (not isinstance(self.until, str)
                                       or not self.until.startswith("/")):
            raise bad_request("fault until must be a path prefix starting with /")
        self.arrived = threading.Event()
        # requests inside the delay now, and the most there were at once:
        # how a test sees a client's concurrency
        self.waiting = 0
        self.most_waiting = 0
        self._lock = threading.Lock()
        self.trickle = bool(spec.get("trickle", False))
        cut = spec.get("cut_after_bytes")
        self.cut_after_bytes = int(cut) if cut is not None else None
        if self.body not in BODIES:
            raise bad_request("fault body must be one of %s" % ", ".join(BODIES))
        if not self.path_prefix.startswith("/") or self.count < 1:
            raise bad_request("fault needs a path_prefix starting with / and count >= 1")

    def matches(self, method, path, query=None):
        """query: the request's parse_qs dict (name -> list of values)."""
        query = query or {}
        return (path.startswith(self.path_prefix) and self.method in (None, method)
                and all(v in query.get(k, ()) for k, v in self.query.items()))

    def hold(self, sleep):
        """Sleeps the delay with sleep(seconds), counting who waits in it."""
        with self._lock:
            self.waiting += 1
            self.most_waiting = max(self.most_waiting, self.waiting)
        try:
            if self.until is None:
                sleep(self.delay)
            else:
                self._wait_for_arrival(sleep)
        finally:
            with self._lock:
                self.waiting -= 1

    def _wait_for_arrival(self, sleep):
        """Sleeps in short steps until the awaited request has come, or
        the delay is over."""
        end = time.monotonic() + self.delay
        while not self.arrived.is_set():
            left = end - time.monotonic()
            if left <= 0:
                return
            sleep(min(left, 0.01))

    def answers_itself(self):
        """True when the fault replaces the real answer."""
        if self.status is None:
            return False
        return not (200 <= self.status < 300 and self.body in ("status", "truncated"))

    def to_json(self):
        out = {"path_prefix": self.path_prefix, "count": self.count, "body": self.body}
        for key in ("method", "status", "retry_after", "message", "cut_after_bytes", "until"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.query:
            out["query"] = dict(self.query)
        if self.delay:
            out["delay"] = self.delay
            out["most_waiting"] = self.most_waiting
        if self.trickle:
            out["trickle"] = True
        return out


class FaultInjector:
    def __init__(self):
        self._faults = []
        # faults with `until` whose request has not come yet (kept after
        # they are used up: the request may come before the one held)
        self._awaiting = []
        self._lock = threading.Lock()

    def add(self, spec):
        fault = Fault(spec)
        with self._lock:
            self._faults.append(fault)
            if fault.until is not None:
                self._awaiting.append(fault)
        return fault

    def clear(self):
        with self._lock:
            self._faults = []
            self._awaiting = []

    def list(self):
        with self._lock:
            return [f.to_json() for f in self._faults]

    def take(self, method, path, query=None):
        """The first fault matching this request, used up by one; or None."""
        with self._lock:
            for fault in [f for f in self._awaiting if path.startswith(f.until)]:
                fault.arrived.set()
                self._awaiting.remove(fault)
            for fault in self._faults:
                if fault.matches(method, path, query):
                    fault.count -= 1
                    if fault.count <= 0:
                        self._faults.remove(fault)
                    return fault
        return None
