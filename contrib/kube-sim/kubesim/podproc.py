"""The processes that run "in" a pod: children started in their own
session on pipes or a PTY, killed with everything they started, and the
table of what runs for each pod (exec sessions and attach consoles), with
the pod's scratch directory (<state_dir>/pods/<ns>/<pod>/).

Every child is killed when its client goes away, when its pod finishes or
is deleted, on Controller.stop() (through `shutdown`), and at interpreter
exit. Exec and attach both start their processes here; what a process is
for (a command, or the pod's console) is theirs to say, so this module
imports neither of them.
"""

import atexit
import fcntl
import os
import shutil
import signal
import struct
import subprocess
import termios
import threading
import weakref

from kubesim import wsproto
from kubesim.objutil import PODS, is_finished
from kubesim.podreq import container_spec

EXEC_PATH = "/usr/local/bin:/usr/bin:/bin"

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


def lookup(argv0, path):
    """The executable for argv[0], like Go's exec.LookPath (what runc uses)."""
    if "/" in argv0:
        if not os.path.exists(argv0):
            raise ExecNotFound('exec: "%s": stat %s: no such file or directory' % (argv0, argv0))
        return argv0
    found = shutil.which(argv0, path=path)
    if found is None:
        raise ExecNotFound('exec: "%s": executable file not found in $PATH' % argv0)
    return found


def spawn(argv, cwd, env, tty, stdin, stdout=True, stderr=True):
    """Starts argv in its own session. Returns (proc, in_fd, {fd: channel});
    with a tty, one PTY master carries input and merged output."""
    exe = lookup(argv[0], env.get("PATH", EXEC_PATH))
    if tty:
        master, slave = os.openpty()
        set_winsize(slave, 24, 80)
        try:
            proc = subprocess.Popen(argv, executable=exe, stdin=slave, stdout=slave,
                                    stderr=slave, cwd=cwd, env=env, close_fds=True,
                                    start_new_session=True, preexec_fn=_set_ctty)
        except OSError:
            close_fd(master)
            raise
        finally:
            close_fd(slave)
        nonblocking(master)
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
        nonblocking(fd)
    return proc, in_fd, outputs


def pod_env(pod, container, tty, home):
    """A small, predictable environment plus the container's own env."""
    env = {"PATH": EXEC_PATH, "HOME": home, "HOSTNAME": pod["metadata"]["name"]}
    if tty:
        env["TERM"] = "xterm"
    for item in container_spec(pod, container).get("env") or []:
        if isinstance(item, dict) and item.get("name") and "value" in item:
            env[item["name"]] = str(item["value"])
    return env


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
        """Store listener: a pod that finished or went away takes its
        processes with it; a deleted one its scratch directory too."""
        if tuple(gvr) != PODS:
            return
        meta = obj.get("metadata") or {}
        ns, name = meta.get("namespace", ""), meta.get("name", "")
        if event_type == "DELETED":
            self.pod_ended(ns, name)
            self.remove_scratch(ns, name)
        elif is_finished(obj):
            self.pod_ended(ns, name)
