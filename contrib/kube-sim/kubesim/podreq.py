"""What the pod I/O requests (logs, exec, attach) have in common: query
parameters read the way the API server reads them, the container a
request means (checked with the API server's messages), the limits shared
by every stream, and the bookkeeping that lets a stream end cleanly when
its pod ends or the server stops.

logs.py, podexec.py and attach.py all use these and none of them owns the
others, so they live here, below the three.
"""

import contextlib

from kubesim.errors import bad_request
from kubesim.objutil import PODS, is_finished

MAX_LINE = 16 * 1024         # longer log lines are cut
READ_CHUNK = 32 * 1024       # one stdout/stderr frame at most
BULK_READ = 8 * READ_CHUNK   # one read of an exec's output (its pipe holds 1 MiB):
                             # sent in frames of READ_CHUNK, as the kubelet frames
                             # it, but with one read and one write, since relaying
                             # costs the emulator per call more than per byte
POLL = 0.2                   # seconds between checks while a stream idles


def query_value(query, key, default=None):
    """One query value; an empty value counts as absent (the runai CLI sends
    `follow=&tailLines=` when an option is unset)."""
    values = (query or {}).get(key) or []
    return values[-1] if values and values[-1] != "" else default


def query_flag(query, key, default=False):
    """A boolean parameter, accepting Go's strconv.ParseBool spellings."""
    value = query_value(query, key)
    if value is None:
        return default
    if value in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if value in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise bad_request('invalid value for %s: strconv.ParseBool: parsing "%s": invalid syntax'
                      % (key, value))


def query_int(query, key):
    value = query_value(query, key)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise bad_request('invalid value for %s: strconv.ParseInt: parsing "%s": invalid syntax'
                          % (key, value))


def container_names(pod, init=False):
    spec = pod.get("spec") or {}
    return [c.get("name", "") for c in spec.get("initContainers" if init else "containers") or []]


def container_spec(pod, name):
    """The container (or init container) called `name`; {} if none is."""
    for c in ((pod.get("spec") or {}).get("containers") or []) + \
            ((pod.get("spec") or {}).get("initContainers") or []):
        if c.get("name") == name:
            return c
    return {}


def resolve_container(pod, name):
    """The container a log/exec/attach request means, checked the way the
    API server checks it (same messages)."""
    pod_name = pod["metadata"]["name"]
    names, inits = container_names(pod), container_names(pod, init=True)
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


@contextlib.contextmanager
def stream_guard(sim):
    """sim.stream_started() when the core offers it (lets shutdown wait)."""
    started = getattr(sim, "stream_started", None)
    if started is None:
        yield
    else:
        with started():
            yield


def stopping(sim):
    return bool(getattr(sim, "stopping", False))


def pod_still_running(sim, ns, name, uid):
    """True while the same pod (same uid) exists and has not finished."""
    ref = sim.store.get_ref(PODS, ns, name) if hasattr(sim.store, "get_ref") \
        else sim.store.get(PODS, ns, name)
    if ref is None or (ref.get("metadata") or {}).get("uid") != uid:
        return False
    return not is_finished(ref)
