"""Sandboxes for the processes of emulated pods.

A pod's command, its execs and its attach console run real programs on
this machine, so each runs inside bubblewrap (`bwrap`): its own mount,
PID, IPC and UTS namespaces (hostname = the pod's name), a root that
holds only the system directories read-only (/usr and its links, a few
files of /etc), a fresh /proc and /dev, and three writable directories
of the pod's own, kept in its scratch directory and shared by all its
processes: /tmp, the home directory and the working directory. The
host's home directories, /root, the checkout, the emulator's state and
everything else are simply not there. A pod with `runAsUser` runs as
that user (setpriv, after bwrap; a user namespace when kube-sim is not
root); root in a pod keeps only a container
runtime's default capabilities (no mount, no mknod). Memory and
ephemeral-storage limits become RLIMIT_AS and RLIMIT_FSIZE (prlimit).

`probe()` checks once, at start, that this kernel lets bwrap make the
namespaces; where it does not, `Policy` refuses to run pod processes
unless kube-sim was started with --unsandboxed, which runs them on the
host as plain children (tests may; the demo never does).
"""

import os
import posixpath
import shutil
import subprocess

# bwrap as found on PATH; KUBE_SIM_BWRAP names another (tests name a
# missing one to see how a machine without namespaces behaves)
BWRAP = os.environ.get("KUBE_SIM_BWRAP") or "bwrap"
SETPRIV = "/usr/bin/setpriv"
PRLIMIT = "/usr/bin/prlimit"
NVIDIA_DIR = "/opt/nvidia"            # where a GPU pod finds nvidia-smi
NVIDIA_SPEC = "/run/nvidia/pod.json"   # the pod's GPUs, for that nvidia-smi

# The host's /etc entries a program needs; everything else of /etc (shadow,
# ssh keys, the machine's configuration) stays out.
ETC_ENTRIES = ("alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "nsswitch.conf",
               "localtime", "bash.bashrc", "profile", "inputrc", "terminfo", "ssl",
               "ca-certificates", "mime.types", "protocols", "services", "debian_version",
               "os-release", "host.conf", "gai.conf", "python3", "python3.11", "vim")
# What a container runtime leaves root (Docker's default set, less MKNOD
# and NET_RAW).
ROOT_CAPS = ("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
             "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
             "CAP_SYS_CHROOT", "CAP_AUDIT_WRITE", "CAP_SETFCAP")


def _system_binds():
    """/usr read-only, and /bin, /lib... as the host has them (links into
    /usr on a merged-/usr system, else read-only directories)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = "/" + name
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for name in ETC_ENTRIES:
        if os.path.exists("/etc/" + name):
            args += ["--ro-bind", "/etc/" + name, "/etc/" + name]
    return args


def probe(bwrap=BWRAP):
    """None when bwrap can make a pod's namespaces here, else why not."""
    exe = shutil.which(bwrap)
    if exe is None:
        return "bwrap (Debian package bubblewrap) is not installed"
    argv = [exe, "--unshare-pid", "--unshare-uts", "--unshare-ipc", "--hostname", "probe",
            "--die-with-parent", "--proc", "/proc", "--dev", "/dev"] + _system_binds() + \
        ["/bin/sh", "-c", "test \"$(cat /proc/sys/kernel/hostname)\" = probe"]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "bwrap could not run: %s" % e
    if done.returncode != 0:
        text = done.stdout.decode("utf-8", "replace").strip().splitlines()
        return "the kernel refused the namespaces bwrap asked for: %s" % \
            (text[-1] if text else "exit status %d" % done.returncode)
    return None


class Policy:
    """How pod processes run here: "sandbox", "host" (--unsandboxed) or
    "refuse" (no namespaces and no --unsandboxed); `reason` says why."""

    def __init__(self, unsandboxed, reason):
        self.reason = reason
        if unsandboxed:
            self.mode = "host"
        else:
            self.mode = "refuse" if reason else "sandbox"

    def describe(self):
        return {"mode": self.mode, "reason": self.reason}

    def refusal(self):
        return ("pods are not sandboxed on this machine (%s); kube-sim runs no pod process "
                "unless started with --unsandboxed" % self.reason)


def start_policy(unsandboxed, warn):
    """The policy for this run, saying once (through `warn`) when pods are
    not sandboxed."""
    reason = None if unsandboxed else probe()
    policy = Policy(unsandboxed, reason)
    if policy.mode == "host":
        warn("kube-sim: --unsandboxed: pod processes run on this host, unisolated")
    elif policy.mode == "refuse":
        warn("kube-sim: " + policy.refusal())
    return policy


class View:
    """What one pod looks like from inside: its name, user, home and
    working directories, the scratch directories behind them, limits, and
    for a GPU pod the nvidia-smi files to show."""

    def __init__(self, hostname, scratch, uid=None, gid=None, workdir=None, limits=None,
                 nvidia=None):
        self.hostname = hostname
        self.scratch = scratch
        self.uid = uid
        self.gid = gid if gid is not None else uid
        self.home = "/root" if not uid else "/home/user"
        # an absolute, normalised path ("/tmp/../etc" is /etc), else home
        self.workdir = posixpath.normpath(workdir) if (workdir or "").startswith("/") \
            else self.home
        self.limits = limits or {}
        self.nvidia = nvidia           # (host dir of bin/ and lib/, host spec file) or None

    def dirs(self):
        """(host dir, dir in the pod) for the writable directories."""
        out = [(os.path.join(self.scratch, "tmp"), "/tmp"),
               (os.path.join(self.scratch, "home"), self.home)]
        inside = [d for _, d in out]
        if not any(self.workdir == d or self.workdir.startswith(d + "/") for d in inside) and \
                self.workdir != "/":
            out.append((os.path.join(self.scratch, "work"), self.workdir))
        return out

    def prepare(self):
        """Makes the scratch directories and the generated /etc files."""
        etc = os.path.join(self.scratch, ".etc")
        os.makedirs(etc, exist_ok=True)
        for host, inside in self.dirs():
            os.makedirs(host, exist_ok=True)
            if inside == "/tmp":
                os.chmod(host, 0o1777)
            elif self.uid:
                self._own(host)
        for host, base in self.dirs():
            if self.workdir.startswith(base + "/"):
                sub = os.path.join(host, self.workdir[len(base) + 1:])
                os.makedirs(sub, exist_ok=True)
                if self.uid:
                    self._own(sub)
        users = "root:x:0:0:root:/root:/bin/sh\n"
        groups = "root:x:0:\n"
        if self.uid:
            users += "user:x:%d:%d:user:/home/user:/bin/sh\n" % (self.uid, self.gid)
            groups += "user:x:%d:\n" % self.gid
        files = {"passwd": users, "group": groups, "hostname": self.hostname + "\n",
                 "hosts": "127.0.0.1\tlocalhost\n::1\tlocalhost\n127.0.1.1\t%s\n"
                          % self.hostname}
        for name, text in files.items():
            with open(os.path.join(etc, name), "w") as f:
                f.write(text)

    def _own(self, path):
        try:
            os.chown(path, self.uid, self.gid)
        except PermissionError:
            pass  # kube-sim not run as root: the directory stays ours

    def lookup_path(self, path):
        """The host path behind `path` as the pod sees it, or None when the
        pod has nothing there (for finding executables before starting)."""
        for host, inside in self.dirs():
            if path == inside or path.startswith(inside + "/"):
                return host + path[len(inside):]
        if self.nvidia and (path == NVIDIA_DIR or path.startswith(NVIDIA_DIR + "/")):
            return self.nvidia[0] + path[len(NVIDIA_DIR):]
        top = path.split("/")[1] if path.startswith("/") else ""
        if top in ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            return path
        return None

    def wrap(self, argv, env):
        """(command line, options) that run argv in the sandbox: bwrap
        reads its options from a descriptor (`--args`, given by the
        caller), so the pod's /proc/1/cmdline names no host path."""
        exe = shutil.which(BWRAP)
        args = ["--unshare-pid", "--unshare-uts", "--unshare-ipc", "--unshare-cgroup-try",
                "--hostname", self.hostname, "--die-with-parent",
                "--proc", "/proc", "--dev", "/dev"] + _system_binds()
        etc = os.path.join(self.scratch, ".etc")
        for name in ("passwd", "group", "hostname", "hosts"):
            args += ["--ro-bind", os.path.join(etc, name), "/etc/" + name]
        for host, inside in self.dirs():
            args += ["--bind", host, inside]
        if self.nvidia:
            args += ["--ro-bind", self.nvidia[0], NVIDIA_DIR,
                     "--ro-bind", self.nvidia[1], NVIDIA_SPEC]
        rootless = os.geteuid() != 0
        if rootless:  # a user namespace does what setpriv does as root
            args += ["--unshare-user", "--uid", str(self.uid or 0),
                     "--gid", str(self.gid or 0)]
        args += ["--chdir", self.workdir, "--cap-drop", "ALL"]
        for cap in ROOT_CAPS:
            args += ["--cap-add", cap]
        args += ["--clearenv"]
        for key, value in sorted(env.items()):
            args += ["--setenv", key, value]
        line = [exe, "--args", "{fd}", "--"]
        if self.uid and not rootless:
            line += [SETPRIV, "--reuid=%d" % self.uid, "--regid=%d" % self.gid,
                     "--clear-groups", "--inh-caps=-all", "--"]
        line += argv
        limits = []
        if self.limits.get("memory"):
            limits.append("--as=%d" % max(int(self.limits["memory"]), 256 << 20))
        if self.limits.get("ephemeral-storage"):
            limits.append("--fsize=%d" % int(self.limits["ephemeral-storage"]))
        if limits and os.path.exists(PRLIMIT):
            line = [PRLIMIT] + limits + ["--"] + line
        return line, args


def options_fd(options):
    """A pipe's read end holding bwrap's options, NUL-separated (they fit
    in the pipe's buffer); the caller passes it to bwrap and closes it."""
    data = b"".join(a.encode() + b"\0" for a in options)
    r, w = os.pipe()
    try:
        os.write(w, data)
    finally:
        os.close(w)
    return r
