"""The processes that run "in" a pod: children started in their own
session on pipes or a PTY, killed with everything they started, and the
table of what runs for each pod (exec sessions and attach consoles), with
the pod's scratch directory (<state_dir>/pods/<ns>/<pod>/). Each process
runs in the pod's sandbox (sandbox.py) as the policy chosen at start says:
`ProcessTable.place` gives the working directory, environment and sandbox
view of a new process (podenv.py), or raises `Refused`.

Every child is killed when its client goes away, when its pod finishes or
is deleted, on Controller.stop() (through `shutdown`), and at interpreter
exit. Exec and attach both start their processes here; what a process is
for (a command, or the pod's console) is theirs to say, so this module
imports neither of them.
"""

import atexit
import fcntl
import os
import queue
import shutil
import signal
import stat
import struct
import subprocess
import sys
import termios
import threading
import weakref

from kubesim import podenv, sandbox, wsproto
from kubesim.objutil import PODS, is_finished
from kubesim.podenv import EXEC_PATH, pod_env, runnable_argv  # noqa: F401 (re-exported)


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


def kill_group(proc, sig=signal.SIGKILL):
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


def reap(proc, timeout=2.0):
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        pass


@atexit.register
def _kill_everything():
    for proc in list(_LIVE):
        kill_group(proc)


def _set_ctty():
    """In the child (after setsid): make the PTY on fd 0 its controlling
    terminal, so ^C and job control reach it as on a real terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def set_winsize(fd, rows, cols):
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    except OSError:
        pass


def nonblocking(fd):
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)


def close_fd(fd):
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass


class ExecNotFound(Exception):
    pass


class Refused(Exception):
    """No pod process may run here (no sandbox and no --unsandboxed)."""


def lookup(argv0, path, view=None):
    """The executable for argv[0], like Go's exec.LookPath (what runc uses).
    With a view, as the pod sees its files (sandbox.View.stat: a link of
    the pod's is followed in the pod, never on the host), and the answer
    is the program's path in the pod; without one, the host's path."""
    if "/" in argv0:
        found = argv0.startswith("/") and (os.path.exists(argv0) if view is None
                                           else view.stat(argv0) is not None)
        if not found:
            raise ExecNotFound('exec: "%s": stat %s: no such file or directory' % (argv0, argv0))
        return argv0
    for d in path.split(":"):
        if not d.startswith("/"):
            continue
        cand = os.path.join(d, argv0)
        if view is None:
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                return cand
            continue
        st = view.stat(cand)
        if st is not None and stat.S_ISREG(st.st_mode) and st.st_mode & 0o111:
            return cand
    raise ExecNotFound('exec: "%s": executable file not found in $PATH' % argv0)


def spawn(argv, cwd, env, tty, stdin, stdout=True, stderr=True, view=None):
    """Starts argv in its own session (in the pod's sandbox when `view` is
    given). Returns (proc, in_fd, {fd: channel}); with a tty, one PTY
    master carries input and merged output."""
    exe = lookup(argv[0], env.get("PATH", EXEC_PATH), view)
    if view is None:
        return _spawn(argv, exe, cwd, env, tty, stdin, stdout, stderr, ())
    line, options = view.wrap(argv, env)
    fd = sandbox.options_fd(options)
    try:
        line[line.index("{fd}")] = str(fd)
        return _spawn(line, line[0], view.scratch, {"PATH": EXEC_PATH}, tty, stdin, stdout,
                      stderr, (fd,))
    finally:
        close_fd(fd)


class _Spawner:
    """Forks every child from one long-lived thread. bwrap's
    --die-with-parent (PR_SET_PDEATHSIG) follows the thread that forked
    it, so a child forked by a connection's thread (an attach console)
    would die with that connection."""

    def __init__(self):
        self._jobs = queue.Queue()
        self._lock = threading.Lock()
        self._thread = None

    def run(self, fn):
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="pod-spawner",
                                                daemon=True)
                self._thread.start()
        box, done = {}, threading.Event()
        self._jobs.put((fn, box, done))
        done.wait()
        if "error" in box:
            raise box["error"]
        return box["value"]

    def _loop(self):
        while True:
            fn, box, done = self._jobs.get()
            try:
                box["value"] = fn()
            except BaseException as e:  # handed to the caller
                box["error"] = e
            finally:
                done.set()


_SPAWNER = _Spawner()


# A container runtime's umask for the pods' processes: kube-sim's own
# (077, for its state directory) is not theirs.
POD_UMASK = 0o022


def _spawn(argv, exe, cwd, env, tty, stdin, stdout, stderr, pass_fds):
    if tty:
        master, slave = os.openpty()
        set_winsize(slave, 24, 80)
        try:
            proc = _SPAWNER.run(lambda: subprocess.Popen(
                argv, executable=exe, stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
                env=env, close_fds=True, pass_fds=pass_fds, start_new_session=True,
                umask=POD_UMASK, preexec_fn=_set_ctty))
        except OSError:
            close_fd(master)
            raise
        finally:
            close_fd(slave)
        nonblocking(master)
        _LIVE.add(proc)
        return proc, master, {master: wsproto.STDOUT}
    proc = _SPAWNER.run(lambda: subprocess.Popen(
        argv, executable=exe, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE if stdout else subprocess.DEVNULL,
        stderr=subprocess.PIPE if stderr else subprocess.DEVNULL,
        cwd=cwd, env=env, close_fds=True, pass_fds=pass_fds, start_new_session=True,
        umask=POD_UMASK))
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
        nonblocking(fd)
        widen_pipe(fd)
    return proc, in_fd, outputs


PIPE_SIZE = 1 << 20  # Linux's default limit for an unprivileged F_SETPIPE_SZ


def widen_pipe(fd):
    """Gives a pipe PIPE_SIZE bytes of room where Linux allows it, so bulk
    stdin and output cross it in fewer, larger reads and writes (the
    emulator's cost is per call more than per byte). Best effort: a pipe
    that keeps its 64 KiB works the same, only slower."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
    except (OSError, AttributeError):
        pass


class MainProcess:
    """A pod's own command, run for real in the pod's sandbox: its stdout
    and stderr lines go to the pod's log, its exit status ends the pod
    (the kubelet asks `exit_code`). A command that cannot start ends it
    with 128, the runtime's StartError."""

    def __init__(self, sim, pod, container, argv):
        self.logs = sim.logs
        self.ns, self.pod = pod["metadata"]["namespace"], pod["metadata"]["name"]
        self.container = container
        self.proc, self.error, self._readers = None, None, []
        cwd, env, view = sim.processes.place(pod, container, False)
        try:
            self.proc, _, outputs = spawn(argv, cwd, env, False, False, True, True, view)
        except (ExecNotFound, OSError) as e:
            self.error = str(e) if isinstance(e, ExecNotFound) else \
                'exec: "%s": %s' % (argv[0], e.strerror or e)
            self._line(self.error)
            return
        for fd in outputs:
            t = threading.Thread(target=self._pump, args=(fd,), daemon=True,
                                 name="main-%s" % self.pod)
            t.start()
            self._readers.append(t)

    def _line(self, text):
        if self.logs is not None:
            self.logs.append(self.ns, self.pod, self.container, text)

    def _pump(self, fd):
        import select
        partial = b""
        try:
            while True:
                select.select([fd], [], [], 1.0)
                try:
                    data = os.read(fd, 65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    break
                if not data:
                    break
                lines = (partial + data).split(b"\n")
                partial = lines.pop()
                if len(partial) > 16384:
                    lines.append(partial)
                    partial = b""
                for line in lines:
                    self._line(line.rstrip(b"\r").decode("utf-8", "replace"))
        finally:
            if partial:
                self._line(partial.decode("utf-8", "replace"))
            close_fd(fd)

    def exit_code(self):
        """None while it runs (or its output is still being read)."""
        if self.proc is None:
            return 128
        code = self.proc.poll()
        if code is None or any(t.is_alive() for t in self._readers):
            return None
        return 128 - code if code < 0 else code

    def kill(self):
        """Never blocks (store listeners call it); the next poll reaps."""
        if self.proc is not None:
            kill_group(self.proc)


class ProcessTable:
    """The live exec sessions and attach consoles, by pod (`sim.processes`).

    A session or console is any object with `kill()` (and, for a console,
    `alive()`); the table kills them when their pod finishes or goes."""

    def __init__(self, sim):
        self.sim = sim
        self._lock = threading.Lock()
        self._sessions = {}      # (ns, pod) -> set of backends
        self._consoles = {}      # (ns, pod) -> console
        sim.store.add_listener(self._on_change)

    @property
    def policy(self):
        return getattr(self.sim, "sandbox", None) or sandbox.Policy(True, None)

    def start_main(self, pod):
        """Runs the pod's first container's command for real, when the host
        can run its image and pods may run here; returns the MainProcess
        (kept in the table, so it dies with its pod) or None."""
        containers = (pod.get("spec") or {}).get("containers") or [{}]
        name = containers[0].get("name", "")
        argv = runnable_argv(pod, name) if self.policy.mode != "host" else \
            runnable_argv(pod, name, os.path.join(podenv.tool_files(self.sim.state_dir),
                                                  "notebook.py"))
        if argv is None or self.policy.mode == "refuse":
            return None
        main = MainProcess(self.sim, pod, name, argv)
        self.add(pod["metadata"]["namespace"], pod["metadata"]["name"], main)
        return main

    def check_allowed(self):
        if self.policy.mode == "refuse":
            raise Refused(self.policy.refusal())

    def place(self, pod, container, tty):
        """(cwd, env, view) for a new process of `pod`: in its sandbox, or on
        the host under --unsandboxed (view None). Raises Refused."""
        self.check_allowed()
        scratch = self.scratch_dir(pod["metadata"]["namespace"], pod["metadata"]["name"])
        cwd, env, view = podenv.placement(self.sim, pod, container, tty, scratch, self.policy)
        for why in (view.skipped if view else ()):
            sys.stderr.write("kube-sim: pod %s/%s: volume not mounted: %s\n"
                             % (pod["metadata"]["namespace"], pod["metadata"]["name"], why))
        return cwd, env, view

    def scratch_dir(self, ns, pod):
        """The pod's scratch directory, made if missing. It and the
        directories above it in the state directory are kube-sim's alone
        (0700): the pods reach their parts only through bwrap's binds.
        No pod can write on this path (its names are the API's, checked
        as DNS names), so it is safe to use as a path."""
        path = self.sim.state_dir
        for name in ("pods", ns, pod):
            if name in ("", ".", "..") or "/" in name:  # (a seeded object's)
                raise ValueError("no scratch directory for pod %r in %r" % (pod, ns))
            path = os.path.join(path, name)
            try:
                os.mkdir(path, 0o700)
            except FileExistsError:
                pass
            os.chmod(path, 0o700)  # also one an older kube-sim made 0755
        return path

    def remove_scratch(self, ns, pod):
        if any(name in ("", ".", "..") or "/" in name for name in (ns, pod)):
            return
        # rmtree removes what the pod made without following its links
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

    def console(self, ns, pod, start):
        """The pod's console, or, if it has none (or it exited), the one
        `start(scratch directory)` returns, kept from now on."""
        with self._lock:
            con = self._consoles.get((ns, pod))
            if con is not None and con.alive():
                return con
            con = start(self.scratch_dir(ns, pod))
            self._consoles[(ns, pod)] = con
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

    def shutdown(self):
        self.kill_all()

    def _on_change(self, event_type, gvr, obj):
        """Store listener: a pod that finished, went back to Pending (forced,
        or preempted) or went away takes its processes with it; a deleted
        one its scratch directory too."""
        if tuple(gvr) != PODS:
            return
        meta = obj.get("metadata") or {}
        ns, name = meta.get("namespace", ""), meta.get("name", "")
        if event_type == "DELETED":
            self.pod_ended(ns, name)
            self.remove_scratch(ns, name)
        elif is_finished(obj) or (event_type == "MODIFIED" and
                                  (obj.get("status") or {}).get("phase") == "Pending"):
            self.pod_ended(ns, name)
