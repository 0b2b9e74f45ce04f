"""The emulator as one object: the store, the options, the helpers the
HTTP layer shares, and the chain of /_sim route handlers.

The runtime modules (controller, logs, podproc, podexec) attach
themselves here: `sim.controller`, `sim.logs`, `sim.processes`, and
extra /_sim handlers through `sim.add_sim_route(fn)` (or by appending to
`sim.sim_routes`), where fn(handler, method, path, body_obj) returns True
once it has answered.
"""

import contextlib
import importlib
import importlib.util
import threading
import time

from kubesim.faults import FaultInjector


def runtime_module(name):
    """kubesim.<name> if that module exists, else None. An error inside an
    existing module is not hidden."""
    full = "kubesim." + name
    if importlib.util.find_spec(full) is None:
        return None
    return importlib.import_module(full)


class Sim:
    def __init__(self, store, state_dir, options):
        self.store = store
        self.registry = store.registry
        self.state_dir = state_dir
        self.options = options
        self.logs = None          # logs.PodLogs, when the runtime is present
        self.processes = None     # podproc.ProcessTable, likewise
        self.controller = None    # controller.Controller, likewise
        self.faults = FaultInjector()
        self.reqlog = None        # reqlog.RequestLog
        self.authn = None         # auth.Authenticator
        self.authz = None         # auth.Authorizer
        self.tokens = None        # auth.TokenFile
        self.admin_token = None
        self.sim_token = None     # the /_sim credential (auth.ensure_sim_token)
        self.sim_token_file = None
        self.url = None
        self.server_address = None  # "127.0.0.1:PORT", for discovery
        self.sim_routes = []
        self.stop_event = threading.Event()
        self.started = time.time()
        self._streams = 0
        self._streams_lock = threading.Lock()

    def add_sim_route(self, fn):
        self.sim_routes.append(fn)

    register_sim_route = add_sim_route

    def route_sim(self, handler, method, path, body):
        """Offers a /_sim request to each handler in turn; True if answered."""
        from kubesim import simapi
        if simapi.handle(self, handler, method, path, body):
            return True
        for fn in list(self.sim_routes):
            if fn(handler, method, path, body):
                return True
        return False

    @property
    def stopping(self):
        return self.stop_event.is_set()

    @contextlib.contextmanager
    def stream_started(self):
        """Wraps a long-lived response (watch, log -f) so that shutdown can
        let it end cleanly first."""
        with self._streams_lock:
            self._streams += 1
        try:
            yield
        finally:
            with self._streams_lock:
                self._streams -= 1

    def stop(self, grace=2.0):
        """Asks every stream to end and waits up to `grace` s for them."""
        self.stop_event.set()
        with self.store.changed:
            self.store.changed.notify_all()  # wake idle watches now
        deadline = time.monotonic() + grace
        while self._streams and time.monotonic() < deadline:
            time.sleep(0.05)
