"""Pod I/O: container logs, exec and attach.

Logs: every (namespace, pod, container) has a bounded buffer of
timestamped lines. The controller appends a line per step for the pods it
runs, tests append with POST /_sim/logs, and the attach console appends
what the pod's shell prints. GET .../pods/P/log reads them with kube's
options (tailLines, sinceSeconds, sinceTime, timestamps, limitBytes,
previous, follow).

Exec runs a real process on this machine for each request, in a scratch
directory per pod (<state_dir>/pods/<ns>/<pod>/), over a WebSocket that
speaks the Kubernetes channel protocol (v5, v4 or v1, see wsproto).
With tty=true the process gets a PTY. Attach connects to one long-lived
`/bin/sh -i` per pod (its "console"), started on the first attach and
killed with the pod.

Every child runs in its own session (process group) and is killed when
its client goes away, when its pod finishes or is deleted, on
Controller.stop(), and at interpreter exit.
"""

import atexit
import collections
import contextlib
import datetime
import fcntl
import json
import os
import select
import shutil
import signal
import ssl
import struct
import subprocess
import termios
import threading
import time
import weakref

from kubesim import wsproto
from kubesim.errors import ApiError, bad_request, invalid, not_found

PODS = ("", "v1", "pods")

MAX_LINES = 5000             # per container buffer
MAX_BUFFER_BYTES = 1 << 20   # per container buffer
MAX_LINE = 16 * 1024         # longer lines are cut
READ_CHUNK = 32 * 1024       # one stdout/stderr frame at most
MAX_STDIN_PENDING = 1 << 20  # stdin bytes accepted but not yet taken by the process
WRITE_TIMEOUT = 30.0         # a client that reads nothing this long is dropped
POLL = 0.2                   # seconds between checks while a stream idles
EXEC_PATH = "/usr/local/bin:/usr/bin:/bin"


# --- small helpers ------------------------------------------------------------

def _q(query, key, default=None):
    """One query value; an empty value counts as absent (the runai CLI sends
    `follow=&tailLines=` when an option is unset)."""
    values = (query or {}).get(key) or []
    return values[-1] if values and values[-1] != "" else default


def _flag(query, key, default=False):
    """A boolean parameter, accepting Go's strconv.ParseBool spellings."""
    value = _q(query, key)
    if value is None:
        return default
    if value in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if value in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise bad_request('invalid value for %s: strconv.ParseBool: parsing "%s": invalid syntax'
                      % (key, value))


def _int(query, key):
    value = _q(query, key)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise bad_request('invalid value for %s: strconv.ParseInt: parsing "%s": invalid syntax'
                          % (key, value))


def _phase(pod):
    return (pod.get("status") or {}).get("phase") or "Pending"


def _finished(pod):
    return _phase(pod) in ("Succeeded", "Failed")


def _container_names(pod, init=False):
    spec = pod.get("spec") or {}
    return [c.get("name", "") for c in spec.get("initContainers" if init else "containers") or []]


def _container(pod, name):
    for c in ((pod.get("spec") or {}).get("containers") or []) + \
            ((pod.get("spec") or {}).get("initContainers") or []):
        if c.get("name") == name:
            return c
    return {}


def resolve_container(pod, name):
    """The container a log/exec/attach request means, checked the way the
    API server checks it (same messages)."""
    pod_name = pod["metadata"]["name"]
    names, inits = _container_names(pod), _container_names(pod, init=True)
    if not name:
        if len(names) == 1:
            return names[0]
        if not names:
            raise bad_request("pod %s does not have any containers" % pod_name)
        msg = "a container name must be specified for pod %s, choose one of: [%s]" % (
            pod_name, " ".join(names))
        if inits:
            msg += " or one of the init containers: [%s]" % " ".join(inits)
        raise bad_request(msg)
    if name not in names and name not in inits:
        raise bad_request("container %s is not valid for pod %s" % (name, pod_name))
    return name


def _waiting_reason(pod, container):
    for cs in (pod.get("status") or {}).get("containerStatuses") or []:
        if cs.get("name") == container:
            reason = ((cs.get("state") or {}).get("waiting") or {}).get("reason")
            if reason:
                return reason
    return "ContainerCreating"


def _rfc3339nano(ts_ns):
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


@contextlib.contextmanager
def _stream_guard(sim):
    """sim.stream_started() when the core offers it (lets shutdown wait)."""
    started = getattr(sim, "stream_started", None)
    if started is None:
        yield
    else:
        with started():
            yield


def _stopping(sim):
    return bool(getattr(sim, "stopping", False))


# --- log buffers --------------------------------------------------------------

class _Buffer:
    """One container's lines: (seq, timestamp ns, text), oldest first."""
    __slots__ = ("entries", "nbytes")

    def __init__(self):
        self.entries = collections.deque()
        self.nbytes = 0


class PodLogs:
    """Log buffers for every container, plus the pod processes (exec
    sessions and attach consoles) in `self.processes`.

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
        self.processes = ProcessTable(sim, self)
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
            return [e for e in buf.entries if e[0] > after_seq]

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
            return [e for e in buf.entries if e[0] > after_seq]

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
            self.processes.pod_ended(ns, name)
            self.drop(ns, name)
            self.processes.remove_scratch(ns, name)
        elif _finished(obj):
            self.processes.pod_ended(ns, name)
            self.wake()

    def shutdown(self):
        self.processes.kill_all()
        self.wake()


# --- GET .../pods/P/log -------------------------------------------------------

class _LogOptions:
    def __init__(self, query, pod_name):
        self.follow = _flag(query, "follow")
        self.timestamps = _flag(query, "timestamps")
        self.previous = _flag(query, "previous")
        self.tail = _int(query, "tailLines")
        self.limit = _int(query, "limitBytes")
        since_seconds = _int(query, "sinceSeconds")
        since_time = _q(query, "sinceTime")
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
        return b"".join(self.line(e) for e in entries)

    def line(self, entry):
        _, ts_ns, text = entry
        prefix = _rfc3339nano(ts_ns) + " " if self.timestamps else ""
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
    container = resolve_container(pod, _q(query, "container"))
    opts = _LogOptions(query, pod_name)
    if opts.previous:
        raise bad_request('previous terminated container "%s" in pod "%s" not found'
                          % (container, pod_name))
    if not (pod.get("spec") or {}).get("nodeName") and not _finished(pod):
        # an unscheduled pod has no kubelet to ask: kube answers an empty body
        return _send_text(handler, b"")
    if _phase(pod) == "Pending":
        raise bad_request('container "%s" in pod "%s" is waiting to start: %s'
                          % (container, pod_name, _waiting_reason(pod, container)))
    everything = sim.logs.entries(ns, pod_name, container)
    entries = opts.initial(everything)
    if not opts.follow:
        body = opts.render(entries)
        if opts.limit is not None:
            body = body[:opts.limit]
        return _send_text(handler, body)
    # follow from the same snapshot, so no line falls between the two
    last_seq = everything[-1][0] if everything else 0
    with _stream_guard(sim):
        _LogStream(handler, opts).follow(sim, ns, pod, container, entries, last_seq)


def _send_text(handler, body):
    handler.send_bytes(200, body, "text/plain")


def _pod_still_running(sim, ns, name, uid):
    """True while the same pod (same uid) exists and has not finished."""
    ref = sim.store.get_ref(PODS, ns, name) if hasattr(sim.store, "get_ref") \
        else sim.store.get(PODS, ns, name)
    if ref is None or (ref.get("metadata") or {}).get("uid") != uid:
        return False
    return not _finished(ref)


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
            if not _pod_still_running(sim, ns, name, uid) or _stopping(sim):
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


# --- processes ----------------------------------------------------------------

# Every child we started, for the last-resort cleanup at exit.
_LIVE = weakref.WeakSet()


def _session_members(sid):
    """Pids whose session id is `sid` (from /proc): an interactive shell puts
    each job in a process group of its own, so the group is not enough."""
    out = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 3 and fields[3] == str(sid).encode():
            out.append(int(name))
    return out


def _kill_group(proc, sig=signal.SIGKILL):
    """Signals everything in the child's session (the child leads it)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            pass
    for pid in _session_members(proc.pid):
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def _reap(proc, timeout=2.0):
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        pass


@atexit.register
def _kill_everything():
    for proc in list(_LIVE):
        _kill_group(proc)


def _set_ctty():
    """In the child (after setsid): make the PTY on fd 0 its controlling
    terminal, so ^C and job control reach it as on a real terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _set_winsize(fd, rows, cols):
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    except OSError:
        pass


def _nonblocking(fd):
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)


def _close(fd):
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass


class ExecNotFound(Exception):
    pass


def _lookup(argv0, path):
    """The executable for argv[0], like Go's exec.LookPath (what runc uses)."""
    if "/" in argv0:
        if not os.path.exists(argv0):
            raise ExecNotFound('exec: "%s": stat %s: no such file or directory' % (argv0, argv0))
        return argv0
    found = shutil.which(argv0, path=path)
    if found is None:
        raise ExecNotFound('exec: "%s": executable file not found in $PATH' % argv0)
    return found


# Images known to ship without bash: exec of bash there fails as runc
# reports it, so clients' fallbacks to /bin/sh can be tested.
_IMAGES_WITHOUT_BASH = ("busybox", "alpine")


def _check_image_has(pod, container, argv0):
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


def _spawn(argv, cwd, env, tty, stdin, stdout=True, stderr=True):
    """Starts argv in its own session. Returns (proc, in_fd, {fd: channel});
    with a tty, one PTY master carries input and merged output."""
    exe = _lookup(argv[0], env.get("PATH", EXEC_PATH))
    if tty:
        master, slave = os.openpty()
        _set_winsize(slave, 24, 80)
        try:
            proc = subprocess.Popen(argv, executable=exe, stdin=slave, stdout=slave,
                                    stderr=slave, cwd=cwd, env=env, close_fds=True,
                                    start_new_session=True, preexec_fn=_set_ctty)
        except OSError:
            _close(master)
            raise
        finally:
            _close(slave)
        _nonblocking(master)
        _LIVE.add(proc)
        return proc, master, {master: wsproto.STDOUT}
    proc = subprocess.Popen(argv, executable=exe,
                            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                            stdout=subprocess.PIPE if stdout else subprocess.DEVNULL,
                            stderr=subprocess.PIPE if stderr else subprocess.DEVNULL,
                            cwd=cwd, env=env, close_fds=True, start_new_session=True)
    _LIVE.add(proc)
    outputs = {}
    # detach the fds from the Popen file objects: we own and close them
    in_fd = os.dup(proc.stdin.fileno()) if stdin else None
    for stream, channel in ((proc.stdout, wsproto.STDOUT), (proc.stderr, wsproto.STDERR)):
        if stream is not None:
            outputs[os.dup(stream.fileno())] = channel
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    for fd in list(outputs) + ([in_fd] if in_fd is not None else []):
        _nonblocking(fd)
    return proc, in_fd, outputs


def pod_env(pod, container, tty, home):
    """A small, predictable environment plus the container's own env."""
    env = {"PATH": EXEC_PATH, "HOME": home, "HOSTNAME": pod["metadata"]["name"]}
    if tty:
        env["TERM"] = "xterm"
    for item in _container(pod, container).get("env") or []:
        if isinstance(item, dict) and item.get("name") and "value" in item:
            env[item["name"]] = str(item["value"])
    return env


class ProcessTable:
    """The live exec sessions and attach consoles, by pod."""

    def __init__(self, sim, logs):
        self.sim = sim
        self.logs = logs
        self._lock = threading.Lock()
        self._sessions = {}      # (ns, pod) -> set of backends
        self._consoles = {}      # (ns, pod) -> Console

    def scratch_dir(self, ns, pod):
        path = os.path.join(self.sim.state_dir, "pods", ns, pod)
        os.makedirs(path, exist_ok=True)
        return path

    def remove_scratch(self, ns, pod):
        shutil.rmtree(os.path.join(self.sim.state_dir, "pods", ns, pod), ignore_errors=True)

    def add(self, ns, pod, backend):
        with self._lock:
            self._sessions.setdefault((ns, pod), set()).add(backend)

    def discard(self, ns, pod, backend):
        with self._lock:
            group = self._sessions.get((ns, pod))
            if group is not None:
                group.discard(backend)
                if not group:
                    del self._sessions[(ns, pod)]

    def console(self, pod, container):
        """The pod's console, started now if it has none (or it exited)."""
        ns, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        with self._lock:
            con = self._consoles.get((ns, name))
            if con is not None and con.alive():
                return con
            cwd = self.scratch_dir(ns, name)
            con = Console(self.logs, ns, name, container, cwd,
                          pod_env(pod, container, True, cwd))
            self._consoles[(ns, name)] = con
            return con

    def pod_ended(self, ns, pod):
        """Kills everything running "in" the pod. Never blocks: called from
        store listeners, possibly under the store lock."""
        with self._lock:
            backends = list(self._sessions.get((ns, pod), ()))
            con = self._consoles.pop((ns, pod), None)
        for backend in backends:
            backend.kill()
        if con is not None:
            con.kill()

    def kill_all(self):
        with self._lock:
            backends = [b for group in self._sessions.values() for b in group]
            consoles = list(self._consoles.values())
            self._consoles.clear()
        for backend in backends:
            backend.kill()
        for con in consoles:
            con.kill()
        _kill_everything()


class Console:
    """A pod's long-lived shell for attach: `/bin/sh -i` on a PTY.

    A reader thread copies its output to every attached session (through
    a pipe per session, dropping output a stalled session cannot take) and
    into the pod log, so `kubectl logs` shows the console like a
    container's stdout."""

    def __init__(self, logs, ns, pod, container, cwd, env):
        self.logs, self.ns, self.pod, self.container = logs, ns, pod, container
        self._lock = threading.Lock()
        self._subscribers = set()    # write ends of the sessions' pipes
        self._pairs = {}             # read end -> write end
        self._partial = b""
        # Input that comes before the shell's first prompt is held back:
        # an interactive shell flushes its terminal's input queue when it
        # starts, so early keystrokes (a client that types the moment the
        # upgrade answer arrives) would be lost.
        self._started = False
        self._early = b""
        self.proc, self.master, _ = _spawn(["/bin/sh", "-i"], cwd, env, tty=True, stdin=True)
        self._thread = threading.Thread(target=self._pump, name="console-%s" % pod,
                                        daemon=True)
        self._thread.start()

    def alive(self):
        return self.proc.poll() is None and self.master is not None

    def subscribe(self):
        """A read fd that receives the console's output from now on."""
        r, w = os.pipe()
        _nonblocking(r)
        _nonblocking(w)
        with self._lock:
            if self.master is None:
                _close(w)  # already gone: the reader sees EOF at once
            else:
                self._subscribers.add(w)
                self._pairs[r] = w
        return r

    def unsubscribe(self, rfd):
        with self._lock:
            w = self._pairs.pop(rfd, None)
            if w is not None and w in self._subscribers:
                self._subscribers.discard(w)
                _close(w)
        _close(rfd)

    def write(self, data):
        """Writes what it can of `data` to the shell; returns the count,
        or -1 once the console is gone."""
        with self._lock:
            if self.master is None:
                return -1
            if not self._started:
                if len(self._early) + len(data) > MAX_LINE:
                    return 0  # the session waits, as on a full PTY
                self._early += data
                return len(data)
            try:
                return os.write(self.master, data)
            except (BlockingIOError, InterruptedError):
                return 0
            except OSError:
                return -1

    def resize(self, cols, rows):
        with self._lock:
            if self.master is not None:
                _set_winsize(self.master, rows, cols)

    def kill(self):
        _kill_group(self.proc)

    def _pump(self):
        try:
            while True:
                try:
                    ready, _, _ = select.select([self.master], [], [], 1.0)
                except (OSError, ValueError):
                    break
                if not ready:
                    if self.proc.poll() is not None:
                        break
                    continue
                try:
                    data = os.read(self.master, READ_CHUNK)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    break  # EIO: the shell and everything on its PTY are gone
                if not data:
                    break
                self._broadcast(data)
                self._log(data)
                self._release_early_input()
        finally:
            self._log(b"", flush=True)
            with self._lock:
                _close(self.master)
                self.master = None
                for w in self._subscribers:
                    _close(w)
                self._subscribers.clear()
                self._pairs.clear()
            _kill_group(self.proc)
            _reap(self.proc)

    def _release_early_input(self):
        """The shell has spoken, so its terminal is set up: send what was
        typed before."""
        with self._lock:
            if self._started or self.master is None:
                return
            self._started = True
            early, self._early = self._early, b""
            while early:
                try:
                    early = early[os.write(self.master, early):]
                except (BlockingIOError, InterruptedError):
                    select.select([], [self.master], [], 1.0)
                except OSError:
                    return

    def _broadcast(self, data):
        with self._lock:
            for w in list(self._subscribers):
                try:
                    os.write(w, data)
                except (BlockingIOError, InterruptedError):
                    pass  # that session is not reading: it misses this output
                except OSError:
                    self._subscribers.discard(w)
                    for r in [r for r, pw in self._pairs.items() if pw == w]:
                        del self._pairs[r]  # so unsubscribe won't close a reused fd
                    _close(w)

    def _log(self, data, flush=False):
        """Complete lines go to the pod log; a partial one waits (bounded)."""
        buf = self._partial + data
        lines = buf.split(b"\n")
        self._partial = lines.pop()
        if flush or len(self._partial) > MAX_LINE:
            if self._partial:
                lines.append(self._partial)
            self._partial = b""
        for line in lines:
            text = line.rstrip(b"\r").decode("utf-8", "replace")
            self.logs.append(self.ns, self.pod, self.container, text)


# --- the WebSocket connection -------------------------------------------------

_WANT = (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError, InterruptedError)


class WsConn:
    """The upgraded connection, driven from one thread: non-blocking reads
    fed to a frame parser, writes that wait (bounded) for the socket.
    One thread only, so TLS never sees concurrent reads and writes."""

    def __init__(self, handler, protocol):
        self.sock = handler.connection
        self.protocol = protocol
        self.parser = wsproto.FrameParser()
        self.eof = False             # the peer is gone (or broke the protocol)
        self.close_received = False
        self.close_sent = False
        self.sock.settimeout(0)
        self._early = self._drain_rfile(handler.rfile)

    @staticmethod
    def _drain_rfile(rfile):
        """Bytes the HTTP parser had already buffered past the headers."""
        try:
            return rfile.read1(65536) or b""
        except (OSError, ValueError):
            return b""

    def fileno(self):
        return self.sock.fileno()

    def buffered(self):
        """Decrypted bytes waiting inside the TLS layer (select can't see them)."""
        pending = getattr(self.sock, "pending", None)
        return bool(self._early) or (pending is not None and pending() > 0)

    def read_messages(self, limit=256 * 1024):
        """Reads what has arrived; returns the data messages it completed.
        Answers pings and closes itself."""
        data, self._early = bytearray(self._early), b""
        while len(data) < limit:
            try:
                chunk = self.sock.recv(65536)
            except _WANT:
                break
            except (OSError, ValueError):
                self.eof = True
                break
            if not chunk:
                self.eof = True
                break
            data += chunk
        try:
            messages = self.parser.feed(bytes(data))
        except wsproto.ProtocolError as e:
            self.close(e.code, str(e))
            self.eof = True
            return []
        out = []
        for opcode, payload in messages:
            if opcode == wsproto.OP_PING:
                self.send(wsproto.encode_frame(wsproto.OP_PONG, payload))
            elif opcode == wsproto.OP_CLOSE:
                self.close_received = True
                code, _ = wsproto.parse_close(payload)
                self.close(code or wsproto.CLOSE_NORMAL)
            elif opcode in (wsproto.OP_BINARY, wsproto.OP_TEXT):
                out.append((opcode, payload))
        return out

    def send(self, data):
        """Sends all of `data`; False (and eof) if the peer can't take it."""
        if self.eof:
            return False
        view = memoryview(data)
        deadline = time.monotonic() + WRITE_TIMEOUT
        while view:
            try:
                n = self.sock.send(view)
            except _WANT:
                n = 0
            except (OSError, ValueError):
                self.eof = True
                return False
            view = view[n:]
            if view:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.eof = True
                    return False
                try:
                    select.select([], [self.sock], [], min(left, 1.0))
                except (OSError, ValueError):
                    self.eof = True
                    return False
        return True

    def send_channel(self, channel, data):
        for i in range(0, max(len(data), 1), READ_CHUNK):
            if not self.send(wsproto.encode_channel(channel, data[i:i + READ_CHUNK])):
                return False
        return True

    def send_status(self, status):
        """The final word on the error channel: a Status in v4/v5, the
        message as text in v1 (and nothing there on success)."""
        if self.protocol in (wsproto.V5, wsproto.V4):
            return self.send_channel(wsproto.ERROR, json.dumps(status, separators=(",", ":"))
                                     .encode())
        if status.get("status") != "Success":
            return self.send_channel(wsproto.ERROR, status.get("message", "").encode())
        return True

    def close(self, code=wsproto.CLOSE_NORMAL, reason=""):
        if not self.close_sent:
            self.close_sent = True
            self.send(wsproto.encode_close(code, reason))

    def linger(self, seconds=1.0):
        """After our close frame: waits briefly for the client's close (or
        EOF), so the client reads everything before the TCP close."""
        deadline = time.monotonic() + seconds
        while not (self.eof or self.close_received):
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                ready, _, _ = select.select([self.sock], [], [], left)
            except (OSError, ValueError):
                return
            if ready or self.buffered():
                self.read_messages()

    def finish(self):
        """Hands the socket back to the HTTP handler, which closes it."""
        try:
            self.sock.settimeout(5)
        except OSError:
            pass


# --- exec and attach backends -------------------------------------------------

def _success():
    return {"metadata": {}, "status": "Success"}


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

    def __init__(self, argv, cwd, env, tty, stdin, stdout, stderr):
        self.argv = argv
        self.tty = tty
        self.proc, self.in_fd, self.outputs = _spawn(argv, cwd, env, tty, stdin,
                                                     stdout, stderr)

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
            _close(self.in_fd)
            self.in_fd = None

    def resize(self, cols, rows):
        if self.tty:
            _set_winsize(self.in_fd, rows, cols)

    def exited(self):
        return self.proc.poll() is not None

    def status(self):
        code = self.proc.returncode
        if code is None:
            return _exit_status(self.argv, 137)
        if code < 0:
            code = 128 - code  # killed by signal N: the shell's 128+N
        return _success() if code == 0 else _exit_status(self.argv, code)

    def kill(self):
        _kill_group(self.proc)

    def close(self):
        self.kill()
        _reap(self.proc)
        if self.tty:
            self.outputs.clear()
            _close(self.in_fd)
        else:
            for fd in list(self.outputs):
                _close(fd)
            self.outputs.clear()
            _close(self.in_fd)
        self.in_fd = None


class AttachBackend:
    """One `attach`: a subscriber of the pod's console."""

    def __init__(self, console, stdin):
        self.console = console
        self.stdin = stdin
        self.out_fd = console.subscribe()
        self.outputs = {self.out_fd: wsproto.STDOUT}
        self._gone = False

    @property
    def in_fd(self):
        return None  # input goes through console.write, never through select

    def write(self, data):
        if not self.stdin:
            return len(data)
        return self.console.write(data)

    def close_stdin(self):
        self.stdin = False  # the console is shared: closing it is not ours to do

    def resize(self, cols, rows):
        self.console.resize(cols, rows)

    def exited(self):
        return self._gone or not self.console.alive()

    def status(self):
        return _success()

    def kill(self):
        self._gone = True  # detach; the console lives on

    def close(self):
        self.console.unsubscribe(self.out_fd)
        self.outputs.clear()


class Session:
    """Moves bytes between the WebSocket and a backend until the process
    (or console) ends or the client leaves. Single-threaded select loop."""

    def __init__(self, ws, backend, want_stdin, stopping=lambda: False):
        self.ws = ws
        self.backend = backend
        self.want_stdin = want_stdin
        self.stopping = stopping
        self.stdin_pending = bytearray()
        self.stdin_closing = False

    def run(self):
        try:
            while not self.ws.eof and not self.ws.close_received:
                if self.stopping():
                    self.backend.kill()  # the server stops: so does the process
                if self.backend.exited():
                    self._drain_outputs()
                    self.ws.send_status(self.backend.status())
                    self.ws.close()
                    self.ws.linger()
                    return
                self._step()
            # the client left first: whatever runs for it dies
        finally:
            self.backend.close()
            self.ws.finish()

    def _step(self):
        ws, backend = self.ws, self.backend
        readers = list(backend.outputs)
        if len(self.stdin_pending) < MAX_STDIN_PENDING:
            readers.append(ws.sock)
        writers = []
        if self.stdin_pending and backend.in_fd is not None:
            writers.append(backend.in_fd)
        timeout = 0 if ws.buffered() else (0.05 if self.stdin_pending else POLL)
        try:
            ready_r, ready_w, _ = select.select(readers, writers, [], timeout)
        except (OSError, ValueError):
            ws.eof = True
            return
        if ws.sock in ready_r or ws.buffered():
            for opcode, payload in ws.read_messages():
                self._on_message(opcode, payload)
        for fd in ready_r:
            if fd in backend.outputs:
                self._forward_output(fd)
        if self.stdin_pending and (ready_w or backend.in_fd is None):
            self._feed_stdin()

    def _on_message(self, opcode, payload):
        if opcode != wsproto.OP_BINARY or not payload:
            return  # base64 (text) subprotocols are not offered
        channel, data = payload[0], payload[1:]
        if channel == wsproto.STDIN and self.want_stdin and not self.stdin_closing:
            if data:
                self.stdin_pending += data
                self._feed_stdin()
        elif channel == wsproto.RESIZE and self.ws.protocol in (wsproto.V4, wsproto.V5):
            self._resize(data)
        elif channel == wsproto.CLOSE_STREAM and self.ws.protocol == wsproto.V5:
            if data[:1] == bytes([wsproto.STDIN]):
                self.stdin_closing = True
                self._feed_stdin()

    def _resize(self, data):
        try:
            size = json.loads(data)
            cols, rows = int(size.get("Width", 0)), int(size.get("Height", 0))
        except (ValueError, TypeError, AttributeError):
            return
        if 0 <= cols < 65536 and 0 <= rows < 65536:
            self.backend.resize(cols, rows)

    def _feed_stdin(self):
        if self.stdin_pending:
            n = self.backend.write(bytes(self.stdin_pending[:65536]))
            if n < 0:
                self.stdin_pending.clear()  # the process closed its stdin
            elif n:
                del self.stdin_pending[:n]
        if self.stdin_closing and not self.stdin_pending:
            self.backend.close_stdin()

    def _forward_output(self, fd):
        channel = self.backend.outputs[fd]
        try:
            data = os.read(fd, READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""  # EIO from a PTY whose other side is closed
        if not data:
            self._drop_output(fd)
            return
        self.ws.send_channel(channel, data)

    def _drop_output(self, fd):
        self.backend.outputs.pop(fd, None)
        if not (isinstance(self.backend, ExecBackend) and self.backend.tty):
            _close(fd)  # the PTY master is closed with the backend

    def _drain_outputs(self):
        """After the process ended: what it wrote is in the pipes; send it."""
        for fd in list(self.backend.outputs):
            while fd in self.backend.outputs and not self.ws.eof:
                try:
                    data = os.read(fd, READ_CHUNK)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError:
                    data = b""
                if not data:
                    self._drop_output(fd)
                    break
                self.ws.send_channel(self.backend.outputs[fd], data)


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
    if _phase(pod) != "Running":
        # the kubelet answers this in plain text, not as a Status; kubectl
        # shows it as `unable to upgrade connection: container not found ("c")`
        handler.send_bytes(500, ('container not found ("%s")' % container).encode(),
                           "text/plain; charset=utf-8")
        return True
    if attach and stdin and not _container(pod, container).get("stdin"):
        raise bad_request("cannot attach to stdin of container %s in pod %s: it was not "
                          "started with stdin: true" % (container, name))
    return False


def handle_exec(handler, sim, ns, pod_name, query, attach=False):
    """GET (WebSocket upgrade) .../pods/POD/exec or .../attach."""
    pod = sim.store.get(PODS, ns, pod_name)
    if pod is None:
        raise not_found("pods", pod_name)
    container = resolve_container(pod, _q(query, "container"))
    stdin, stdout = _flag(query, "stdin"), _flag(query, "stdout")
    stderr, tty = _flag(query, "stderr"), _flag(query, "tty")
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
    procs = sim.logs.processes
    cwd = procs.scratch_dir(ns, pod_name)
    _answer_upgrade(handler, proto)
    ws = WsConn(handler, proto or wsproto.V1)
    try:
        if attach:
            backend = AttachBackend(procs.console(pod, container), stdin)
        else:
            _check_image_has(pod, container, argv[0])
            backend = ExecBackend(argv, cwd, pod_env(pod, container, tty, cwd), tty, stdin,
                                  stdout, stderr)
    except (ExecNotFound, OSError) as e:
        message = str(e) if isinstance(e, ExecNotFound) else \
            'exec: "%s": %s' % (argv[0] if argv else "/bin/sh", e.strerror or e)
        ws.send_status(_internal_status(message))
        ws.close()
        ws.linger()
        ws.finish()
        return
    procs.add(ns, pod_name, backend)
    if not _pod_still_running(sim, ns, pod_name, pod["metadata"].get("uid")):
        backend.kill()  # the pod ended while the process started
    try:
        with _stream_guard(sim):
            Session(ws, backend, stdin, lambda: _stopping(sim)).run()
    finally:
        procs.discard(ns, pod_name, backend)


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
    ns, name = _q(query, "namespace", "default"), _q(query, "pod")
    pod = sim.store.get(PODS, ns, name) if name else None
    if pod is None:
        raise not_found("pods", name or "")
    container = resolve_container(pod, _q(query, "container"))
    return {"namespace": ns, "pod": name, "container": container,
            "lines": [{"time": _rfc3339nano(ts), "line": text}
                      for _, ts, text in sim.logs.entries(ns, name, container)]}


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
    """POST /_sim/logs appends lines; GET /_sim/logs?namespace=&pod= reads them;
    GET/POST /_sim/ws reads or sets the exec subprotocols served."""
    def route(handler, method, path, body):
        if path.rstrip("/") == "/_sim/ws" and method in ("GET", "POST"):
            try:
                handler.send_json(200, _sim_ws(body if method == "POST" else None))
            except ApiError as e:
                handler.send_api_error(e)
            return True
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
