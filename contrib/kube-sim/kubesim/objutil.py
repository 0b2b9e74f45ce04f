"""Reading and writing the plain-dict API objects the runtime works on:
metadata, phases, conditions, times, numbers as clients spell them, and
the group/version/resource tuples of the kinds the runtime touches.

Every runtime module (the controller's parts and the pod I/O) needs these,
so they live here, below all of them; this module imports nothing of
kubesim, so it can never be part of an import circle.
"""

import calendar
import time

PODS = ("", "v1", "pods")
NODES = ("", "v1", "nodes")
NAMESPACES = ("", "v1", "namespaces")
PROJECTS = ("run.ai", "v1", "projects")
RUNAIJOBS = ("run.ai", "v1", "runaijobs")
JOBS = ("batch", "v1", "jobs")
WORKLOADS = (RUNAIJOBS, JOBS)
# The Kubeflow training operator's jobs (training.py): many pods each.
PYTORCHJOBS = ("kubeflow.org", "v1", "pytorchjobs")
TFJOBS = ("kubeflow.org", "v1", "tfjobs")
XGBOOSTJOBS = ("kubeflow.org", "v1", "xgboostjobs")
MPIJOBS = ("kubeflow.org", "v2beta1", "mpijobs")
TRAINING = (PYTORCHJOBS, TFJOBS, XGBOOSTJOBS, MPIJOBS)
# Groups of a leader and its workers (lws.py): a distributed inference.
LEADERWORKERSETS = ("leaderworkerset.x-k8s.io", "v1", "leaderworkersets")
# the label of a LeaderWorkerSet's pod that says its group (the
# scheduler places each group as a gang of its own)
LWS_GROUP_INDEX = "leaderworkerset.sigs.k8s.io/group-index"
SERVICES = ("", "v1", "services")
CONFIGMAPS = ("", "v1", "configmaps")
CLAIMS = ("", "v1", "persistentvolumeclaims")
STORAGECLASSES = ("storage.k8s.io", "v1", "storageclasses")

RUNAI_SCHEDULER = "runai-scheduler"

# Test knobs, as pod (or pod template) annotations.
HOLD = "kube-sim/hold"                # a pod forced to Pending stays unscheduled
DURATION = "kube-sim/duration"        # seconds a pod runs before it finishes
EXIT_CODE = "kube-sim/exit-code"      # how it finishes (default 0)
# The kubelet's first restart back-off in seconds (default 10, as the
# kubelet's); doubled on each further restart up to five minutes.
RESTART_BACKOFF = "kube-sim/restart-backoff"
# Set by the scheduler on a workload it preempted (the reclaiming project);
# while it waits again it shows Pending, not Unschedulable.
PREEMPTED = "kube-sim/preempted-by"


def rfc3339(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def parse_rfc3339(text):
    try:
        return calendar.timegm(time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S"))
    except (TypeError, ValueError):
        return None


def meta_of(obj):
    return obj.get("metadata") or {}


def key_of(obj):
    meta = meta_of(obj)
    return meta.get("namespace", ""), meta.get("name", "")


def phase_of(pod):
    return (pod.get("status") or {}).get("phase") or "Pending"


def is_finished(pod):
    return phase_of(pod) in ("Succeeded", "Failed")


def node_name_of(pod):
    return (pod.get("spec") or {}).get("nodeName") or ""


def annotation_of(obj, key, default=None):
    return (meta_of(obj).get("annotations") or {}).get(key, default)


def label_of(obj, key, default=None):
    return (meta_of(obj).get("labels") or {}).get(key, default)


def is_active(pod):
    return phase_of(pod) in ("Pending", "Running")


def bound_active(pod):
    """Holds resources on its node: bound and not finished."""
    return is_active(pod) and bool(node_name_of(pod))


def controller_uid(obj):
    for ref in meta_of(obj).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref.get("uid")
    return None


def number(value, default=0.0):
    try:
        return float(str(value).strip())
    except (TypeError, ValueError):
        return default


def set_condition(conds, ctype, status, now, reason=None, message=None):
    """Sets one condition in a list, keeping lastTransitionTime unless the
    status flips."""
    for c in conds:
        if c.get("type") == ctype:
            if c.get("status") != status:
                c["lastTransitionTime"] = rfc3339(now)
            c["status"] = status
            for key, value in (("reason", reason), ("message", message)):
                if value is None:
                    c.pop(key, None)
                else:
                    c[key] = value
            return
    cond = {"type": ctype, "status": status, "lastProbeTime": None,
            "lastTransitionTime": rfc3339(now)}
    if reason is not None:
        cond["reason"] = reason
    if message is not None:
        cond["message"] = message
    conds.append(cond)


def condition_of(obj, ctype):
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return None


def condition_true(obj, ctype):
    c = condition_of(obj, ctype)
    return c is not None and c.get("status") == "True"


def clone(o):
    if isinstance(o, dict):
        return {k: clone(v) for k, v in o.items()}
    if isinstance(o, list):
        return [clone(v) for v in o]
    return o


def runai_pod_status(pod, phase):
    """The phase as Run:ai's scheduler mirrors it onto the pods it owns."""
    if (pod.get("spec") or {}).get("schedulerName") == RUNAI_SCHEDULER:
        pod["metadata"].setdefault("annotations", {})["runai-calculated-status"] = phase
