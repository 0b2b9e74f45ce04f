"""A pod's volumes in its sandbox: where each of a container's
volumeMounts comes from on this host.

Every source is a directory kube-sim keeps under its state directory,
never a path of the host's own:

- persistentVolumeClaim: the claim's bound volume, `STATE/volumes/NS/VOLUME/`
  (the volume `pvc-<uid>` the binder gave it), kept after the pod ends
  and shared by every pod that mounts the claim; gone with the claim.
- hostPath: `STATE/hostpath/NAME/`, NAME the normalised path with each
  "/" written "%2F" ("/data/x" is `%2Fdata%2Fx`). Each path is a
  directory of its own: "/data/x" is not the "x" inside "/data", so a
  pod that writes links into one hostPath never changes where another
  path leads. Its `type` is not checked (Directory, File...: always a
  directory).
- configMap and secret: their keys (or `items`) written as files, mode
  `defaultMode` or 0644, into the pod's scratch directory
  (`.vol/NAME/`, kube-sim's), afresh for every process, mounted
  read-only.
- emptyDir: `.empty/NAME/` in the pod's scratch directory, shared by the
  pod's processes and removed with the pod. `medium: Memory` (what
  `--large-shm` asks for at /dev/shm) is the same directory: the host's
  memory is not the emulated node's.

Other sources (nfs, csi, projected...) are not mounted. `mounts` says
what it left out, for the pod's log.
"""

import base64
import os
import urllib.parse

from kubesim.objutil import CLAIMS, CONFIGMAPS
from kubesim.podreq import container_spec

SECRETS = ("", "v1", "secrets")
DEFAULT_MODE = 0o644
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Mount:
    """One volumeMount: the host directory behind it, where it appears,
    whether it is read-only, and its volume's name and kind."""

    def __init__(self, host, inside, read_only, volume, kind):
        self.host = host
        self.inside = inside
        self.read_only = read_only
        self.volume = volume
        self.kind = kind

    def __repr__(self):
        return "Mount(%r -> %r%s)" % (self.host, self.inside, " ro" if self.read_only else "")


def hostpath_name(path):
    """The directory name that stands for a hostPath: the normalised
    absolute path with "/" and "%" escaped, so it is one name (never a
    path) below STATE/hostpath; None for a path that is not absolute."""
    if not isinstance(path, str) or not path.startswith("/") or "\0" in path:
        return None
    norm = os.path.normpath(path)
    if norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    return urllib.parse.quote(norm, safe="")


def _subdir(dir_fd, name, mode):
    """A descriptor of the directory `name` in `dir_fd` (made with `mode`
    when missing); never through a link."""
    try:
        os.mkdir(name, mode, dir_fd=dir_fd)
        fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
        os.fchmod(fd, mode)   # mkdir's mode went through the umask
        return fd
    except FileExistsError:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)


def _safe_name(name):
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and \
        "\0" not in name


def state_dir_for(state, names, mode=0o777):
    """STATE/names[0]/names[1]/...: made one component at a time from a
    descriptor, never through a link (OSError where one is met). The last
    is `mode` (volumes are the pods', whatever user they run as; nobody
    else reaches into the 0700 state directory)."""
    fd = os.open(state, _DIR_FLAGS)
    try:
        for i, name in enumerate(names):
            if not _safe_name(name):
                raise OSError("not a plain name: %r" % (name,))
            sub = _subdir(fd, name, mode if i == len(names) - 1 else 0o700)
            os.close(fd)
            fd = sub
    finally:
        os.close(fd)
    return os.path.join(state, *names)


def _relative_parts(path):
    """A key's file path as names, or None if it leaves its directory."""
    parts = [p for p in str(path).split("/") if p not in ("", ".")]
    if not parts or ".." in parts or str(path).startswith("/"):
        return None
    return parts


def write_files(top, files):
    """Replaces the directory `top` (kube-sim's) with `files`:
    [(relative path, bytes, mode)]. Written through descriptors, never
    following a link."""
    parent, name = os.path.dirname(top), os.path.basename(top)
    pfd = os.open(parent, _DIR_FLAGS)
    try:
        _remove_tree(pfd, name)
        root = _subdir(pfd, name, 0o755)
    finally:
        os.close(pfd)
    try:
        for rel, data, mode in files:
            parts = _relative_parts(rel)
            if parts is None:
                continue
            fd = os.dup(root)
            try:
                for d in parts[:-1]:
                    sub = _subdir(fd, d, 0o755)
                    os.close(fd)
                    fd = sub
                out = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW |
                              os.O_CLOEXEC, 0o600, dir_fd=fd)
                with os.fdopen(out, "wb") as f:
                    os.fchmod(out, mode & 0o777)
                    f.write(data)
            finally:
                os.close(fd)
    finally:
        os.close(root)


def _remove_tree(dir_fd, name):
    """rm -r of `name` in `dir_fd`, never following a link."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not os.path.stat.S_ISDIR(st.st_mode):
        os.unlink(name, dir_fd=dir_fd)
        return
    fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    try:
        for entry in os.listdir(fd):
            _remove_tree(fd, entry)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dir_fd)


def _key_files(data, items, default_mode, decode):
    """[(path, bytes, mode)] of a ConfigMap's or Secret's keys."""
    mode = default_mode if isinstance(default_mode, int) else DEFAULT_MODE
    if items:
        out = []
        for item in items:
            if isinstance(item, dict) and item.get("key") in data:
                m = item.get("mode")
                out.append((item.get("path") or item["key"], decode(data[item["key"]]),
                            m if isinstance(m, int) else mode))
        return out
    return [(k, decode(v), mode) for k, v in sorted(data.items())]


def _object_files(store, kind, ns, source):
    if kind == "configMap":
        obj = store.get(CONFIGMAPS, ns, source.get("name") or "")
        if obj is None:
            return None
        data = {k: v for k, v in (obj.get("data") or {}).items()}
        files = _key_files(data, source.get("items"), source.get("defaultMode"),
                           lambda v: str(v).encode())
        binary = obj.get("binaryData") or {}
        files += _key_files(binary, [i for i in source.get("items") or []
                                     if isinstance(i, dict) and i.get("key") in binary],
                            source.get("defaultMode"), base64.b64decode) \
            if source.get("items") else _key_files(binary, None, source.get("defaultMode"),
                                                   base64.b64decode)
        return files
    obj = store.get(SECRETS, ns, source.get("secretName") or "")
    if obj is None:
        return None
    data = dict(obj.get("data") or {})
    return _key_files(data, source.get("items"), source.get("defaultMode"), base64.b64decode)


def _claim_dir(sim, ns, source):
    pvc = sim.store.get(CLAIMS, ns, source.get("claimName") or "")
    volume = ((pvc or {}).get("spec") or {}).get("volumeName")
    if not volume:
        return None
    return state_dir_for(sim.state_dir, ["volumes", ns, volume])


def source_dir(sim, pod, scratch, volume):
    """(host directory, kind, forced read-only) of one of the pod's
    volumes, or (None, kind, reason) when it is not mounted here."""
    ns = pod["metadata"]["namespace"]
    name = volume.get("name")
    if not _safe_name(name):
        return None, "?", "bad volume name"
    if isinstance(volume.get("persistentVolumeClaim"), dict):
        src = volume["persistentVolumeClaim"]
        path = _claim_dir(sim, ns, src)
        return (path, "pvc", bool(src.get("readOnly"))) if path else \
            (None, "pvc", "claim %r is not bound" % src.get("claimName"))
    if isinstance(volume.get("hostPath"), dict):
        host = hostpath_name(volume["hostPath"].get("path"))
        if host is None:
            return None, "hostPath", "the path is not absolute"
        return state_dir_for(sim.state_dir, ["hostpath", host]), "hostPath", False
    for kind in ("configMap", "secret"):
        if isinstance(volume.get(kind), dict):
            files = _object_files(sim.store, kind, ns, volume[kind])
            if files is None:
                return None, kind, "%s not found" % kind
            top = state_dir_for(scratch, [".vol"], 0o755)
            write_files(os.path.join(top, name), files)
            return os.path.join(top, name), kind, True
    if isinstance(volume.get("emptyDir"), dict):
        path = state_dir_for(scratch, [".empty", name])
        return path, "emptyDir", False
    return None, "other", "this source is not emulated"


def mounts(sim, pod, container, scratch):
    """([Mount] of the container's volumeMounts, [what was left out])."""
    volumes = {v.get("name"): v for v in (pod.get("spec") or {}).get("volumes") or []
               if isinstance(v, dict)}
    out, skipped, sources = [], [], {}
    for vm in container_spec(pod, container).get("volumeMounts") or []:
        if not isinstance(vm, dict):
            continue
        name, inside = vm.get("name"), vm.get("mountPath")
        if not isinstance(inside, str) or not inside.startswith("/") or name not in volumes:
            skipped.append("%s: no such volume or no absolute mountPath" % name)
            continue
        if vm.get("subPath"):
            skipped.append("%s at %s: subPath is not emulated" % (name, inside))
            continue
        if name not in sources:
            try:
                sources[name] = source_dir(sim, pod, scratch, volumes[name])
            except OSError as e:
                sources[name] = (None, "?", str(e))
        host, kind, extra = sources[name]
        if host is None:
            skipped.append("%s at %s: %s" % (name, inside, extra))
            continue
        out.append(Mount(host, os.path.normpath(inside), bool(vm.get("readOnly")) or extra is True,
                         name, kind))
    return out, skipped
