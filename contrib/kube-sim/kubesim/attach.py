"""Attach: each pod has one long-lived console, an interactive `/bin/sh -i`
on a PTY in the pod's sandbox, started on the first attach and killed with the pod. Its output
goes to every attached session and into the pod's log (so `kubectl logs`
shows it like a container's stdout); an attached session's input, when
it asked for stdin, goes to the shell.

`AttachBackend` is what a channel session (channels.py) drives for one
attach; the request itself is checked and upgraded in podexec.py, which
serves exec and attach alike.
"""

import os
import select
import threading

from kubesim import wsproto
from kubesim.channels import success_status
from kubesim.podproc import close_fd, kill_group, nonblocking, reap, set_winsize, spawn
from kubesim.podreq import MAX_LINE, READ_CHUNK


def pod_console(sim, pod, container):
    """The pod's console (`sim.processes` keeps it), started now if the pod
    has none or it exited."""
    ns, name = pod["metadata"]["namespace"], pod["metadata"]["name"]

    def start(_scratch):
        cwd, env, view = sim.processes.place(pod, container, True)
        return Console(sim.logs, ns, name, container, cwd, env, view)
    return sim.processes.console(ns, name, start)


class Console:
    """A pod's long-lived shell for attach: `/bin/sh -i` on a PTY.

    A reader thread copies its output to every attached session (through
    a pipe per session, dropping output a stalled session cannot take) and
    into the pod log, so `kubectl logs` shows the console like a
    container's stdout."""

    def __init__(self, logs, ns, pod, container, cwd, env, view=None):
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
        self.proc, self.master, _ = spawn(["/bin/sh", "-i"], cwd, env, tty=True, stdin=True,
                                          view=view)
        self._thread = threading.Thread(target=self._pump, name="console-%s" % pod,
                                        daemon=True)
        self._thread.start()

    def alive(self):
        return self.proc.poll() is None and self.master is not None

    def subscribe(self):
        """A read fd that receives the console's output from now on."""
        r, w = os.pipe()
        nonblocking(r)
        nonblocking(w)
        with self._lock:
            if self.master is None:
                close_fd(w)  # already gone: the reader sees EOF at once
            else:
                self._subscribers.add(w)
                self._pairs[r] = w
        return r

    def unsubscribe(self, rfd):
        with self._lock:
            w = self._pairs.pop(rfd, None)
            if w is not None and w in self._subscribers:
                self._subscribers.discard(w)
                close_fd(w)
        close_fd(rfd)

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
                set_winsize(self.master, rows, cols)

    def kill(self):
        kill_group(self.proc)

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
                close_fd(self.master)
                self.master = None
                for w in self._subscribers:
                    close_fd(w)
                self._subscribers.clear()
                self._pairs.clear()
            kill_group(self.proc)
            reap(self.proc)

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
                    close_fd(w)

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


class AttachBackend:
    """One `attach`: a subscriber of the pod's console."""

    # the output fd is this session's own pipe, which the channel session
    # closes when it has read it to the end
    owns_outputs = False

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
        return success_status()

    def kill(self):
        self._gone = True  # detach; the console lives on

    def close(self):
        self.console.unsubscribe(self.out_fd)
        self.outputs.clear()

