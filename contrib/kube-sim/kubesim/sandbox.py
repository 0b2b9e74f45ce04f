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
import stat
import subprocess

# bwrap as found on PATH; KUBE_SIM_BWRAP names another (tests name a
# missing one to see how a machine without namespaces behaves)
BWRAP = os.environ.get("KUBE_SIM_BWRAP") or "bwrap"
SETPRIV = "/usr/bin/setpriv"
PRLIMIT = "/usr/bin/prlimit"
NVIDIA_DIR = "/opt/nvidia"            # where a GPU pod finds nvidia-smi
NVIDIA_SPEC = "/run/nvidia/pod.json"   # the pod's GPUs, for that nvidia-smi
# Where a volume whose mountPath is inside a directory the pod writes is
# mounted; its mountPath is then a link to it (Volumes.links).
VOLUME_LINKS = "/run/kube-sim/volumes"

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

# A directory opened without following a link at its last component: the
# only way kube-sim opens anything below a pod's writable directories,
# where the pod may have put a link to any host path.
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
MAX_LINKS = 40                      # links followed in one path, as Linux's
# What stat() answers for a directory bwrap made in the pod's root to
# hold a mount (/etc, /home, /opt): it has no host directory behind it.
_MADE_DIR = os.stat_result((stat.S_IFDIR | 0o755, 0, 0, 2, 0, 0, 0, 0, 0, 0))


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
                 nvidia=None, volumes=(), tools=None):
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
        self.volumes = list(volumes)   # podvolumes.Mount of the container's volumeMounts
        self.tools = tools             # (host dir, dir in the pod) of kube-sim's programs
        self.skipped = []              # why a volume was not mounted, for the pod's log
        self._mount_table = None       # what stat() looks paths up in, made once

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
        """Makes the scratch directories and the generated /etc files.

        Everything below tmp, home and work is the pod's to write, so the
        pod may have put a link anywhere there, to any host path: nothing
        there is reached by a path on the host. Directories are opened
        one component at a time from a descriptor of the scratch
        directory, without following links, and made and chowned through
        descriptors (a makedirs and chown of the path followed such a
        link, as root: a pod could have any host directory chowned to
        its user, or directories made in it). A working directory behind
        a link is left for bwrap to find in the pod, where the link
        leads only to the pod's own files."""
        root = os.open(self.scratch, _DIR_FLAGS)
        try:
            etc = _subdir(root, ".etc", 0o755)
            try:
                self._write_etc(etc)
            finally:
                os.close(etc)
            for host, inside in self.dirs():
                # /tmp is the pod user's alone (not 1777: the host's other
                # users must not plant files there); home and work 0755
                private = inside == "/tmp"
                fd = _subdir(root, os.path.basename(host), 0o700 if private else 0o755)
                try:
                    if private:
                        os.fchmod(fd, 0o700)  # also one an older kube-sim made 1777
                    self._own(fd)
                    if self.workdir.startswith(inside + "/"):
                        self._make_workdir(fd, self.workdir[len(inside) + 1:].split("/"))
                finally:
                    os.close(fd)
        finally:
            os.close(root)
        self._place_links()

    def _volume_plan(self):
        """(direct, linked): the volumes bwrap mounts at their mountPath,
        and those mounted under VOLUME_LINKS with a link at their
        mountPath, as (Mount, host dir of the writable directory that
        holds the link, path below it). A mountPath inside a directory
        the pod writes (its /tmp, home, working directory or another
        volume) gets a link kube-sim places itself, never following the
        pod's links: bwrap would make the mount point's directories
        through whatever links the pod left there, on the host. One in
        or on a read-only system directory (/usr, /proc, /etc/passwd...)
        is not mounted."""
        writable = [(inside, host) for host, inside in self.dirs()]
        fixed = [d for _, d in _pairs(_system_binds(), "--ro-bind", "--symlink")] + \
            ["/proc", "/dev", "/run/nvidia", "/run/kube-sim", "/opt/nvidia", "/opt/kube-sim",
             "/etc/passwd", "/etc/group", "/etc/hostname", "/etc/hosts"]
        direct, linked = [], []
        for i, m in enumerate(sorted(self.volumes, key=lambda v: v.inside.count("/"))):
            path = m.inside
            if path == "/" or (any(path == d or path.startswith(d + "/") for d in fixed)
                               and not (path == "/dev/shm" or path.startswith("/dev/shm/"))):
                self.skipped.append("%s at %s: a system directory" % (m.volume, path))
                continue
            holder = max((w for w in writable if path.startswith(w[0] + "/")),
                         key=lambda w: len(w[0]), default=None)
            if holder is None:
                direct.append((m, path))
            else:
                linked.append((m, holder[1], path[len(holder[0]) + 1:],
                               "%s/%d-%s" % (VOLUME_LINKS, i, m.volume)))
            if not m.read_only:
                writable.append((path, m.host))
        return direct, linked

    def _place_links(self):
        """The links at the mountPaths of the linked volumes: each made
        from a descriptor of the writable directory, one component at a
        time, never through a link the pod made."""
        for m, host, rel, target in self._volume_plan()[1]:
            why = _place_link(host, rel.split("/"), target)
            if why:
                self.skipped.append("%s at %s: %s" % (m.volume, m.inside, why))

    def _make_workdir(self, top, names):
        """Makes the working directory `names` below the directory `top`
        (a descriptor), the pod user's; stops, leaving it to bwrap, at
        whatever is not a plain directory (a link or file of the pod's)."""
        fd = os.dup(top)
        try:
            for name in names:
                made = False
                try:
                    os.mkdir(name, 0o755, dir_fd=fd)
                    made = True
                except FileExistsError:
                    pass
                except OSError:
                    return  # (a directory the pod closed to kube-sim's user)
                try:
                    sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError:
                    return
                os.close(fd)
                fd = sub
                if made:
                    os.fchmod(fd, 0o755)  # mkdir's mode went through kube-sim's umask
            self._own(fd)
        finally:
            os.close(fd)

    def _write_etc(self, etc):
        users = "root:x:0:0:root:/root:/bin/sh\n"
        groups = "root:x:0:\n"
        if self.uid:
            users += "user:x:%d:%d:user:/home/user:/bin/sh\n" % (self.uid, self.gid)
            groups += "user:x:%d:\n" % self.gid
        files = {"passwd": users, "group": groups, "hostname": self.hostname + "\n",
                 "hosts": "127.0.0.1\tlocalhost\n::1\tlocalhost\n127.0.1.1\t%s\n"
                          % self.hostname}
        for name, text in files.items():
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW |
                         os.O_CLOEXEC, 0o644, dir_fd=etc)
            with os.fdopen(fd, "w") as f:
                os.fchmod(fd, 0o644)  # the pod's user reads them
                f.write(text)

    def _own(self, fd):
        if not self.uid:
            return
        try:
            os.fchown(fd, self.uid, self.gid)
        except PermissionError:
            pass  # kube-sim not run as root: the directory stays ours

    def _mounts(self):
        """bwrap's options that make the pod's root: the system's
        directories, /etc, the writable directories, nvidia-smi."""
        args = _system_binds()
        etc = os.path.join(self.scratch, ".etc")
        for name in ("passwd", "group", "hostname", "hosts"):
            args += ["--ro-bind", os.path.join(etc, name), "/etc/" + name]
        for host, inside in self.dirs():
            args += ["--bind", host, inside]
        direct, linked = self._volume_plan()
        for m, dest in direct:
            args += ["--ro-bind" if m.read_only else "--bind", m.host, dest]
        for m, _, _, target in linked:
            args += ["--ro-bind" if m.read_only else "--bind", m.host, target]
        if self.tools:
            args += ["--ro-bind", self.tools[0], self.tools[1]]
        if self.nvidia:
            args += ["--ro-bind", self.nvidia[0], NVIDIA_DIR,
                     "--ro-bind", self.nvidia[1], NVIDIA_SPEC]
        # bwrap (0.8, as root) makes the directories that hold these mounts
        # 0700, which kept a pod's non-root user out of /etc (its passwd),
        # its own home and /opt/nvidia: they are made 0755 first
        made = {d for _, d in _pairs(args, "--ro-bind", "--bind", "--symlink")} | \
            {"/proc", "/dev"}  # (wrap's)
        parents = set()
        for path in made:
            parent = posixpath.dirname(path)
            while parent != "/" and not any(parent == d or parent.startswith(d + "/")
                                            for d in made):
                parents.add(parent)
                parent = posixpath.dirname(parent)
        dirs = []
        for parent in sorted(parents, key=lambda p: (p.count("/"), p)):
            dirs += ["--perms", "0755", "--dir", parent]
        return dirs + args

    def stat(self, path):
        """os.stat_result of `path` as the pod sees it, or None where the
        pod has nothing (for finding a program before starting it). Links
        are followed as the pod's kernel follows them: a link in the
        pod's writable directories is read, never followed on the host,
        and where it points is looked up in the pod's view again."""
        if not path.startswith("/"):
            return None
        binds, links = self._table()
        todo, done, hops = path.split("/"), [], 0   # done: (name, stat) of each component
        while todo:
            name = todo.pop(0)
            if name in ("", "."):
                continue
            if name == "..":
                done = done[:-1]
                continue
            kind, value = _entry(binds, links, [n for n, _ in done] + [name])
            if kind is None:
                return None
            if kind == "link":
                hops += 1
                if hops > MAX_LINKS:
                    return None
                if value.startswith("/"):
                    done = []
                todo = value.split("/") + todo
                continue
            if any(n not in ("", ".") for n in todo) and not stat.S_ISDIR(value.st_mode):
                return None
            done.append((name, value))
        return done[-1][1] if done else _MADE_DIR

    def _table(self):
        """([(path in the pod, host path)] of every bind in mount order,
        {path in the pod: target} of the links at its root)."""
        if self._mount_table is None:
            args = self._mounts()
            self._mount_table = ([(d, s) for s, d in _pairs(args, "--ro-bind", "--bind")],
                                 {d: s for s, d in _pairs(args, "--symlink")})
        return self._mount_table

    def wrap(self, argv, env):
        """(command line, options) that run argv in the sandbox: bwrap
        reads its options from a descriptor (`--args`, given by the
        caller), so the pod's /proc/1/cmdline names no host path."""
        exe = shutil.which(BWRAP)
        args = ["--unshare-pid", "--unshare-uts", "--unshare-ipc", "--unshare-cgroup-try",
                "--hostname", self.hostname, "--die-with-parent",
                "--proc", "/proc", "--dev", "/dev"] + self._mounts()
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


def _pairs(args, *flags):
    """(source, destination) of every `FLAG SRC DEST` in bwrap's options."""
    return [(args[i + 1], args[i + 2]) for i, a in enumerate(args) if a in flags]


def _place_link(host, names, target):
    """Makes `names` below the directory `host` (directories, then a link
    to `target` at the last); None, or why not."""
    try:
        fd = os.open(host, _DIR_FLAGS)
    except OSError as e:
        return str(e)
    try:
        for name in names[:-1]:
            try:
                sub = _subdir(fd, name, 0o755)
            except OSError:
                return "the pod has something other than a directory at %s" % name
            os.close(fd)
            fd = sub
        last = names[-1]
        try:
            st = os.stat(last, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISLNK(st.st_mode):
            if os.readlink(last, dir_fd=fd) == target:
                return None
            os.unlink(last, dir_fd=fd)
        elif st is not None and stat.S_ISDIR(st.st_mode):
            try:
                os.rmdir(last, dir_fd=fd)   # an empty mount point, made earlier
            except OSError:
                return "the pod has files there"
        elif st is not None:
            return "the pod has a file there"
        os.symlink(target, last, dir_fd=fd)
        return None
    finally:
        os.close(fd)


def _subdir(dir_fd, name, mode):
    """A descriptor of the directory `name` in `dir_fd`, made with `mode`
    when missing; never through a link (OSError then)."""
    made = False
    try:
        os.mkdir(name, mode, dir_fd=dir_fd)
        made = True
    except FileExistsError:
        pass
    fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    if made:
        os.fchmod(fd, mode)  # mkdir's mode went through kube-sim's umask
    return fd


def _entry(binds, links, names):
    """("link", target), ("file", stat) or (None, None): what the pod has at
    the path `names`, whose components before the last are directories.
    Below a bind's source nothing is followed: each component is opened
    from the one before with O_NOFOLLOW, and the last is read with
    lstat/readlink."""
    path = "/" + "/".join(names)
    if path in links:
        return "link", links[path]
    source = rest = None
    for dest, host in binds:  # a later mount covers an earlier one
        if path == dest or path.startswith(dest + "/"):
            source, rest = host, path[len(dest):]
    if source is None:
        made = any(d.startswith(path + "/") for d, _ in binds) or \
            any(d.startswith(path + "/") for d in links)
        return ("file", _MADE_DIR) if made else (None, None)
    rest = [n for n in rest.split("/") if n]
    try:
        if not rest:
            return "file", os.stat(source)  # the host's or kube-sim's, as bwrap binds it
        fd = os.open(source, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for name in rest[:-1]:
                sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = sub
            st = os.stat(rest[-1], dir_fd=fd, follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                return "link", os.readlink(rest[-1], dir_fd=fd)
            return "file", st
        finally:
            os.close(fd)
    except OSError:
        return None, None


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
