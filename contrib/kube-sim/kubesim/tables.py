"""meta.k8s.io/v1 Table responses, what kubectl's human output prints.

Each kind has a list of columns: (name, type, priority, cell function).
Columns of priority 1 appear only with `kubectl get -o wide`. Rows carry
the object's metadata (PartialObjectMetadata) by default, which kubectl
needs for the NAMESPACE column (-A) and --show-labels.
"""

import calendar
import re
import time


def parse_time(ts):
    """Seconds since the epoch for an RFC 3339 `...Z` timestamp, or None."""
    if not ts or not isinstance(ts, str):
        return None
    try:
        return calendar.timegm(time.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return None


def human_duration(seconds):
    """The apimachinery HumanDuration rendering: 45s, 3m20s, 5h, 2d3h, ..."""
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return "%ds" % s
    minutes = s // 60
    if minutes < 10:
        return "%dm%ds" % (minutes, s % 60) if s % 60 else "%dm" % minutes
    if minutes < 180:
        return "%dm" % minutes
    hours = s // 3600
    if hours < 8:
        return "%dh%dm" % (hours, minutes % 60) if minutes % 60 else "%dh" % hours
    if hours < 48:
        return "%dh" % hours
    if hours < 24 * 8:
        return "%dd%dh" % (hours // 24, hours % 24) if hours % 24 else "%dd" % (hours // 24)
    if hours < 24 * 365 * 2:
        return "%dd" % (hours // 24)
    if hours < 24 * 365 * 8:
        days = (hours // 24) % 365
        years = hours // 24 // 365
        return "%dy%dd" % (years, days) if days else "%dy" % years
    return "%dy" % (hours // 24 // 365)


def since(ts, now=None):
    t = parse_time(ts)
    if t is None:
        return "<unknown>"
    return human_duration((now or time.time()) - t)


def _age(obj):
    return since(obj["metadata"].get("creationTimestamp"))


def _name(obj):
    return obj["metadata"].get("name", "")


def _get(obj, *path, default=None):
    cur = obj
    for p in path:
        if not isinstance(cur, dict):
            return default
        cur = cur.get(p)
    return default if cur is None else cur


# --- pods ---------------------------------------------------------------------

def _pod_ready(pod):
    total = len(_get(pod, "spec", "containers", default=[]))
    ready = sum(1 for c in _get(pod, "status", "containerStatuses", default=[])
                if c.get("ready"))
    return "%d/%d" % (ready, total)


def _terminated_reason(term, prefix=""):
    if term.get("reason"):
        return prefix + term["reason"]
    if term.get("signal"):
        return "%sSignal:%d" % (prefix, term["signal"])
    return "%sExitCode:%d" % (prefix, term.get("exitCode", 0))


def _pod_init_status(pod):
    """The `Init:...` status while init containers run, else None."""
    inits = _get(pod, "status", "initContainerStatuses", default=[])
    total = len(_get(pod, "spec", "initContainers", default=[]))
    for i, c in enumerate(inits):
        state = c.get("state") or {}
        term = state.get("terminated")
        if term and term.get("exitCode", 0) == 0:
            continue
        if term:
            return _terminated_reason(term, "Init:")
        wait = state.get("waiting") or {}
        if wait.get("reason") and wait["reason"] != "PodInitializing":
            return "Init:" + wait["reason"]
        return "Init:%d/%d" % (i, total)
    return None


def pod_status(pod):
    """The STATUS column, derived the way kubectl's pod printer does."""
    status = pod.get("status") or {}
    reason = status.get("reason") or status.get("phase") or "Unknown"
    init = _pod_init_status(pod)
    if init:
        reason = init
    else:
        running = False
        for c in reversed(status.get("containerStatuses") or []):
            state = c.get("state") or {}
            if (state.get("waiting") or {}).get("reason"):
                reason = state["waiting"]["reason"]
            elif state.get("terminated"):
                reason = _terminated_reason(state["terminated"])
            elif state.get("running") and c.get("ready"):
                running = True
        if reason == "Completed" and running:
            reason = "Running"
    if pod["metadata"].get("deletionTimestamp"):
        reason = "Unknown" if status.get("reason") == "NodeLost" else "Terminating"
    return reason


def _pod_restarts(pod):
    """The restarts, and how long ago the last one was when there was one
    (a string column since Kubernetes 1.22, as "2 (15s ago)")."""
    statuses = _get(pod, "status", "containerStatuses", default=[])
    count = sum(c.get("restartCount", 0) for c in statuses)
    ended = [parse_time(_get(c, "lastState", "terminated", "finishedAt"))
             for c in statuses]
    ended = [t for t in ended if t is not None]
    if count and ended:
        return "%d (%s ago)" % (count, human_duration(time.time() - max(ended)))
    return str(count)


# --- nodes --------------------------------------------------------------------

def node_status(node):
    ready = next((c for c in _get(node, "status", "conditions", default=[])
                  if c.get("type") == "Ready"), None)
    if ready is None:
        text = "Unknown"
    else:
        text = "Ready" if ready.get("status") == "True" else "NotReady"
    if _get(node, "spec", "unschedulable"):
        text += ",SchedulingDisabled"
    return text


def node_roles(node):
    labels = node["metadata"].get("labels") or {}
    roles = set()
    for key, value in labels.items():
        if key.startswith("node-role.kubernetes.io/"):
            roles.add(key.split("/", 1)[1])
        elif key == "kubernetes.io/role" and value:
            roles.add(value)
    return ",".join(sorted(r for r in roles if r)) or "<none>"


def _node_address(node, kind):
    for a in _get(node, "status", "addresses", default=[]):
        if a.get("type") == kind:
            return a.get("address", "")
    return "<none>"


# --- other built-ins ----------------------------------------------------------

def _service_ports(svc):
    out = []
    for p in _get(svc, "spec", "ports", default=[]):
        text = str(p.get("port", ""))
        if p.get("nodePort"):
            text += ":%s" % p["nodePort"]
        out.append("%s/%s" % (text, p.get("protocol", "TCP")))
    return ",".join(out) or "<none>"


def _service_external(svc):
    spec = svc.get("spec") or {}
    ips = list(spec.get("externalIPs") or [])
    if spec.get("type") == "LoadBalancer":
        ing = _get(svc, "status", "loadBalancer", "ingress", default=[])
        ips += [i.get("ip") or i.get("hostname") for i in ing]
        return ",".join(ips) or "<pending>"
    return ",".join(ips) or "<none>"


def _selector_text(sel):
    return ",".join("%s=%s" % kv for kv in sorted((sel or {}).items())) or "<none>"


def _job_status(job):
    for cond in ("Complete", "Failed", "Suspended", "FailureTarget"):
        if any(c.get("type") == cond and c.get("status") == "True"
               for c in _get(job, "status", "conditions", default=[])):
            return cond
    return "Running"


def _job_duration(job):
    start = parse_time(_get(job, "status", "startTime"))
    if start is None:
        return ""
    end = parse_time(_get(job, "status", "completionTime")) or time.time()
    return human_duration(end - start)


_ACCESS = {"ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX", "ReadWriteMany": "RWX",
           "ReadWriteOncePod": "RWOP"}


def _storage_class_name(sc):
    ann = sc["metadata"].get("annotations") or {}
    default = (ann.get("storageclass.kubernetes.io/is-default-class") == "true"
               or ann.get("storageclass.beta.kubernetes.io/is-default-class") == "true")
    return _name(sc) + (" (default)" if default else "")


def _ingress_hosts(ing):
    hosts = [r.get("host") for r in _get(ing, "spec", "rules", default=[]) if r.get("host")]
    return ",".join(hosts) or "*"


def _ingress_address(ing):
    lbs = _get(ing, "status", "loadBalancer", "ingress", default=[])
    return ",".join(i.get("ip") or i.get("hostname") or "" for i in lbs)


def _event_object(ev):
    inv = ev.get("involvedObject") or {}
    return "%s/%s" % (inv.get("kind", "").lower(), inv.get("name", ""))


def _event_last_seen(ev):
    return since(ev.get("lastTimestamp") or ev.get("eventTime")
                 or ev["metadata"].get("creationTimestamp"))


S, I, D = "string", "integer", "date"

# plural -> [(column name, type, priority, cell(obj))]; Name is implied first.
COLUMNS = {
    "pods": [("Ready", S, 0, _pod_ready), ("Status", S, 0, pod_status),
             ("Restarts", S, 0, _pod_restarts), ("Age", S, 0, _age),
             ("IP", S, 1, lambda p: _get(p, "status", "podIP", default="<none>")),
             ("Node", S, 1, lambda p: _get(p, "spec", "nodeName", default="<none>")),
             ("Nominated Node", S, 1,
              lambda p: _get(p, "status", "nominatedNodeName", default="<none>")),
             ("Readiness Gates", S, 1, lambda p: "<none>")],
    "nodes": [("Status", S, 0, node_status), ("Roles", S, 0, node_roles),
              ("Age", S, 0, _age),
              ("Version", S, 0, lambda n: _get(n, "status", "nodeInfo", "kubeletVersion",
                                               default="")),
              ("Internal-IP", S, 1, lambda n: _node_address(n, "InternalIP")),
              ("External-IP", S, 1, lambda n: _node_address(n, "ExternalIP")),
              ("OS-Image", S, 1, lambda n: _get(n, "status", "nodeInfo", "osImage",
                                                default="<unknown>")),
              ("Kernel-Version", S, 1, lambda n: _get(n, "status", "nodeInfo",
                                                      "kernelVersion", default="<unknown>")),
              ("Container-Runtime", S, 1,
               lambda n: _get(n, "status", "nodeInfo", "containerRuntimeVersion",
                              default="<unknown>"))],
    "namespaces": [("Status", S, 0, lambda n: _get(n, "status", "phase", default="Active")),
                   ("Age", S, 0, _age)],
    "configmaps": [("Data", I, 0, lambda c: len(c.get("data") or {})
                    + len(c.get("binaryData") or {})), ("Age", S, 0, _age)],
    "secrets": [("Type", S, 0, lambda s: s.get("type", "Opaque")),
                ("Data", I, 0, lambda s: len(s.get("data") or {})), ("Age", S, 0, _age)],
    "services": [("Type", S, 0, lambda s: _get(s, "spec", "type", default="ClusterIP")),
                 ("Cluster-IP", S, 0, lambda s: _get(s, "spec", "clusterIP",
                                                     default="<none>")),
                 ("External-IP", S, 0, _service_external),
                 ("Port(s)", S, 0, _service_ports), ("Age", S, 0, _age),
                 ("Selector", S, 1, lambda s: _selector_text(_get(s, "spec", "selector")))],
    "events": [("Last Seen", S, 0, _event_last_seen), ("Type", S, 0, lambda e: e.get("type", "")),
               ("Reason", S, 0, lambda e: e.get("reason", "")),
               ("Object", S, 0, _event_object),
               ("Message", S, 0, lambda e: e.get("message", ""))],
    "persistentvolumeclaims": [
        ("Status", S, 0, lambda c: _get(c, "status", "phase", default="Pending")),
        ("Volume", S, 0, lambda c: _get(c, "spec", "volumeName", default="")),
        ("Capacity", S, 0, lambda c: _get(c, "status", "capacity", "storage", default="")),
        ("Access Modes", S, 0, lambda c: ",".join(
            _ACCESS.get(m, m) for m in _get(c, "status", "accessModes", default=[]))),
        ("StorageClass", S, 0, lambda c: _get(c, "spec", "storageClassName", default="")),
        ("VolumeAttributesClass", S, 0, lambda c: "<unset>"), ("Age", S, 0, _age)],
    "serviceaccounts": [("Secrets", I, 0, lambda a: len(a.get("secrets") or [])),
                        ("Age", S, 0, _age)],
    "jobs": [("Status", S, 0, _job_status),
             ("Completions", S, 0, lambda j: "%d/%d" % (
                 _get(j, "status", "succeeded", default=0),
                 _get(j, "spec", "completions", default=1))),
             ("Duration", S, 0, _job_duration), ("Age", S, 0, _age)],
    "deployments": [("Ready", S, 0, lambda d: "%d/%d" % (
                        _get(d, "status", "readyReplicas", default=0),
                        _get(d, "spec", "replicas", default=1))),
                    ("Up-to-date", I, 0, lambda d: _get(d, "status", "updatedReplicas",
                                                        default=0)),
                    ("Available", I, 0, lambda d: _get(d, "status", "availableReplicas",
                                                       default=0)),
                    ("Age", S, 0, _age)],
    "statefulsets": [("Ready", S, 0, lambda d: "%d/%d" % (
                         _get(d, "status", "readyReplicas", default=0),
                         _get(d, "spec", "replicas", default=1))), ("Age", S, 0, _age)],
    "replicasets": [("Desired", I, 0, lambda r: _get(r, "spec", "replicas", default=1)),
                    ("Current", I, 0, lambda r: _get(r, "status", "replicas", default=0)),
                    ("Ready", I, 0, lambda r: _get(r, "status", "readyReplicas", default=0)),
                    ("Age", S, 0, _age)],
    "daemonsets": [("Desired", I, 0, lambda r: _get(r, "status", "desiredNumberScheduled",
                                                    default=0)),
                   ("Current", I, 0, lambda r: _get(r, "status", "currentNumberScheduled",
                                                    default=0)),
                   ("Ready", I, 0, lambda r: _get(r, "status", "numberReady", default=0)),
                   ("Age", S, 0, _age)],
    "ingresses": [("Class", S, 0, lambda i: _get(i, "spec", "ingressClassName",
                                                 default="<none>")),
                  ("Hosts", S, 0, _ingress_hosts), ("Address", S, 0, _ingress_address),
                  ("Ports", S, 0, lambda i: "80, 443" if _get(i, "spec", "tls") else "80"),
                  ("Age", S, 0, _age)],
    "ingressclasses": [("Controller", S, 0, lambda i: _get(i, "spec", "controller",
                                                           default="")),
                       ("Parameters", S, 0, lambda i: "<none>"), ("Age", S, 0, _age)],
    "storageclasses": [("Provisioner", S, 0, lambda c: c.get("provisioner", "")),
                       ("ReclaimPolicy", S, 0, lambda c: c.get("reclaimPolicy", "Delete")),
                       ("VolumeBindingMode", S, 0,
                        lambda c: c.get("volumeBindingMode", "Immediate")),
                       ("AllowVolumeExpansion", "boolean", 0,
                        lambda c: bool(c.get("allowVolumeExpansion", False))),
                       ("Age", S, 0, _age)],
    "customresourcedefinitions": [
        ("Created At", D, 0, lambda c: c["metadata"].get("creationTimestamp"))],
}

# A few kinds print something other than the plain name in the NAME cell.
_NAME_CELL = {"storageclasses": _storage_class_name}


# --- CRD printer columns ------------------------------------------------------

_PATH_PART = re.compile(r"\.([^.\[]+)|\[\s*'([^']*)'\s*\]|\[(-?\d+):?\]")


def json_path(obj, path):
    """Evaluates the simple JSONPath subset CRD printer columns use."""
    cur = obj
    for m in _PATH_PART.finditer(path or ""):
        key, quoted, index = m.groups()
        if index is not None:   # [i], and [-1:] (the last item) as the operator's columns
            i = int(index)
            cur = cur[i] if isinstance(cur, list) and -len(cur) <= i < len(cur) else None
        else:
            cur = cur.get(key if key is not None else quoted) if isinstance(cur, dict) else None
        if cur is None:
            return None
    return cur


def _crd_columns(columns):
    out = []
    for col in columns or [{"name": "Age", "type": "date",
                            "jsonPath": ".metadata.creationTimestamp"}]:
        path, ctype = col.get("jsonPath"), col.get("type", "string")

        def cell(obj, path=path, ctype=ctype):
            value = json_path(obj, path)
            if ctype == "date" and value is not None:
                return since(value)
            return value
        out.append((col.get("name", ""), "string" if ctype == "date" else ctype,
                    col.get("priority", 0), cell))
    return out


def columns_for(resource):
    if resource.crd:
        return _crd_columns(resource.columns)
    return COLUMNS.get(resource.plural, [("Age", S, 0, _age)])


# --- assembling ---------------------------------------------------------------

def partial_metadata(obj):
    meta = {k: v for k, v in obj["metadata"].items() if k != "managedFields"}
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": meta}


def column_definitions(resource):
    defs = [{"name": "Name", "type": "string", "format": "name", "priority": 0,
             "description": "Name must be unique within a namespace."}]
    for name, ctype, prio, _ in columns_for(resource):
        defs.append({"name": name, "type": ctype, "format": "", "priority": prio,
                     "description": ""})
    return defs


def row(resource, obj, include_object="Metadata", columns=None):
    columns = columns if columns is not None else columns_for(resource)
    name_cell = _NAME_CELL.get(resource.plural, _name)
    cells = [name_cell(obj)] + [fn(obj) for _, _, _, fn in columns]
    out = {"cells": cells}
    if include_object == "Object":
        out["object"] = obj
    elif include_object != "None":
        out["object"] = partial_metadata(obj)
    return out


def table(resource, objs, metadata, include_object="Metadata"):
    columns = columns_for(resource)
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": metadata,
            "columnDefinitions": column_definitions(resource),
            "rows": [row(resource, o, include_object, columns) for o in objs]}
