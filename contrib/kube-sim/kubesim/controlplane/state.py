"""The control plane's view of the emulator's cluster.

Projects, nodes, pods and events are read from the store each time; a
workload submitted here becomes a RunaiJob (with its pods made by the
emulator's own controller; an inference's replicas too, see objects.py),
a training-operator job or a LeaderWorkerSet (a distributed inference),
so kubectl, logs and exec see it as any other. What the control plane
alone knows - the workload's UUID, type,
submitter, submitted spec, desired phase, deletion time - is kept in
`workloads`, keyed by UUID. The phase is derived from the cluster
objects on every read, so it moves over the controller's ticks."""

import contextlib
import threading
import uuid

from kubesim import quantity
from kubesim.errors import ApiError
from kubesim.gpus import GPU, pod_gpus
from kubesim.objutil import (NODES, PODS, PROJECTS, RUNAIJOBS, bound_active,
                             condition_true, meta_of, node_name_of, phase_of)
from kubesim.store import clone, now_rfc3339

EVENTS = ("", "v1", "events")
# Run:ai's node pools on the cluster (resources.py serves the kind)
NODEPOOLS = ("run.ai", "v1alpha1", "nodepools")
DEFAULT_POOL = "default"
TENANT_ID = 1001
TYPES = {"trainings": "Training", "workspaces": "Workspace", "distributed": "Distributed",
         "inferences": "Inference"}


class Workload:
    def __init__(self, kind, name, project, cluster_id, created_by, spec):
        self.id = str(uuid.uuid4())
        # Training | Workspace | Distributed | Inference | DistributedInference
        self.type = kind
        self.gvr = RUNAIJOBS            # the cluster object's resource
        self.name = name
        self.project = project          # the project view (dict)
        self.cluster_id = cluster_id
        self.created_by = created_by
        self.created_at = now_rfc3339()
        self.spec = spec
        self.desired = "Running"
        self.deleted_at = None
        self.phase = "Creating"
        self.phase_at = self.created_at
        self.requested_name = name

    @property
    def namespace(self):
        return self.project["namespace"]


def suspended(job):
    """A RunaiJob's spec.suspend, a training-operator job's runPolicy's."""
    spec = job.get("spec") or {}
    return bool(spec.get("suspend") or (spec.get("runPolicy") or {}).get("suspend"))


def set_suspended(job, stop):
    spec = job.setdefault("spec", {})
    if "runPolicy" in spec:
        spec["runPolicy"]["suspend"] = stop
    else:
        spec["suspend"] = stop


class State:
    def __init__(self, store, cluster_id, cluster_name="kube-sim"):
        self.store = store
        self.cluster_id = cluster_id
        self.cluster_name = cluster_name
        self.lock = threading.Lock()
        self.workloads = {}         # id -> Workload
        self.project_ids = {}       # name -> numeric string
        self.pool_ids = {DEFAULT_POOL: "1"}     # node pool name -> numeric string
        self._read_once = threading.local()     # pods_read_once's index

    # ---- projects ----

    def projects(self):
        out = []
        for p in sorted(self.store.list(PROJECTS), key=lambda p: meta_of(p).get("name", "")):
            name = meta_of(p)["name"]
            with self.lock:
                pid = self.project_ids.setdefault(name, str(len(self.project_ids) + 1))
            spec = p.get("spec") or {}
            out.append({"id": pid, "name": name, "namespace": "runai-" + name,
                        "gpus": float(spec.get("deservedGpus") or 0),
                        "createdAt": meta_of(p).get("creationTimestamp") or now_rfc3339()})
        return out

    def project_by_id(self, pid):
        return next((p for p in self.projects() if p["id"] == pid), None)

    def project_gpus(self, namespace):
        """(allocated, requested): the GPUs of the namespace's unfinished
        pods bound to a node, and of all its unfinished pods."""
        allocated = requested = 0.0
        for p in self.store.list(PODS, namespace):
            if phase_of(p) in ("Succeeded", "Failed"):
                continue
            try:
                gpus = float(pod_gpus(p) or 0)
            except (TypeError, ValueError):
                gpus = 0.0
            requested += gpus
            if bound_active(p):
                allocated += gpus
        return allocated, requested

    # ---- node pools ----

    def node_pools(self):
        """Every node pool with its nodes, by name: the NodePool objects
        (a node belongs to the first, by name, whose spec.labelKey and
        labelValue it carries) and the default pool, which holds the
        nodes no other pool takes."""
        pools = {}
        for np in self.store.list(NODEPOOLS):
            spec = np.get("spec") or {}
            name = meta_of(np)["name"]
            pools[name] = {"name": name, "labelKey": spec.get("labelKey") or "",
                           "labelValue": spec.get("labelValue") or "", "nodes": [],
                           "createdAt": meta_of(np).get("creationTimestamp") or now_rfc3339()}
        pools.setdefault(DEFAULT_POOL, {"name": DEFAULT_POOL, "labelKey": "", "labelValue": "",
                                        "nodes": [], "createdAt": now_rfc3339()})
        for n in sorted(self.nodes(), key=lambda n: meta_of(n)["name"]):
            pools[self._pool_of(pools, n)]["nodes"].append(meta_of(n)["name"])
        with self.lock:
            for name in sorted(pools):
                pools[name]["id"] = self.pool_ids.setdefault(name, str(len(self.pool_ids) + 1))
        return [pools[k] for k in sorted(pools)]

    @staticmethod
    def _pool_of(pools, node):
        labels = meta_of(node).get("labels") or {}
        for name in sorted(pools):
            p = pools[name]
            if p["labelKey"] and labels.get(p["labelKey"]) == p["labelValue"]:
                return name
        return DEFAULT_POOL

    def node_pool_of(self, node_name):
        return next((p["name"] for p in self.node_pools() if node_name in p["nodes"]),
                    DEFAULT_POOL)

    # ---- workloads ----

    def add(self, wl):
        with self.lock:
            clash = any(w.name == wl.name and w.project["id"] == wl.project["id"] and
                        w.deleted_at is None for w in self.workloads.values())
            if clash:
                raise ApiError(400, "BadRequest", "a workload named %s already exists in "
                               "project %s" % (wl.name, wl.project["name"]))
            self.workloads[wl.id] = wl

    def get(self, wid):
        with self.lock:
            return self.workloads.get(wid)

    def all(self):
        with self.lock:
            return list(self.workloads.values())

    def kube_object(self, wl):
        return self.store.get(wl.gvr, wl.namespace, wl.name)

    def pods(self, wl):
        index = getattr(self._read_once, "pods", None)
        if index is not None:
            return [clone(p) for p in index.get((wl.namespace, wl.name), ())]
        return [p for p in self.store.list(PODS, wl.namespace)
                if (meta_of(p).get("labels") or {}).get("release") == wl.name]

    @contextlib.contextmanager
    def pods_read_once(self):
        """Within it, this thread's pods(wl) come from one read of every
        pod, grouped by namespace and release label: a list of thousands
        of workloads reads the pods once, not once (or three times) per
        workload. The same pods, in the same order (by name)."""
        index = {}
        for p in self.store.select(PODS):
            m = meta_of(p)
            key = (m.get("namespace"), (m.get("labels") or {}).get("release"))
            index.setdefault(key, []).append(p)
        self._read_once.pods = index
        try:
            yield
        finally:
            self._read_once.pods = None

    def events(self, wl):
        names = {wl.name} | {meta_of(p)["name"] for p in self.pods(wl)}
        return [e for e in self.store.list(EVENTS, wl.namespace)
                if (e.get("involvedObject") or {}).get("name") in names]

    def nodes(self):
        return self.store.list(NODES)

    def node_usage(self):
        """Per node name: what it offers (allocatable) and what the pods
        bound to it and not finished ask for, as the node telemetry
        reports them."""
        def amount(res, key):
            try:
                return float(quantity.parse(res[key])[0]) if key in res else 0.0
            except (quantity.QuantityError, TypeError, ValueError):
                return 0.0

        out = {}
        for n in self.nodes():
            alloc = (n.get("status") or {}).get("allocatable") or {}
            out[meta_of(n)["name"]] = {
                "TOTAL_GPUS": amount(alloc, GPU), "ALLOCATED_GPUS": 0.0,
                "TOTAL_CPU_CORES": amount(alloc, "cpu"), "ALLOCATED_CPU_CORES": 0.0,
                "TOTAL_CPU_MEMORY_BYTES": amount(alloc, "memory"),
                "ALLOCATED_CPU_MEMORY_BYTES": 0.0}
        for p in self.store.list(PODS):
            use = out.get(node_name_of(p))
            if use is None or not bound_active(p):
                continue
            for c in (p.get("spec") or {}).get("containers") or []:
                req = (c.get("resources") or {}).get("requests") or {}
                use["ALLOCATED_CPU_CORES"] += amount(req, "cpu")
                use["ALLOCATED_CPU_MEMORY_BYTES"] += amount(req, "memory")
            use["ALLOCATED_GPUS"] += pod_gpus(p)
        for use in out.values():
            use["FREE_GPUS"] = max(use["TOTAL_GPUS"] - use["ALLOCATED_GPUS"], 0.0)
        return out

    def refresh_phase(self, wl):
        """The phase as the cluster shows it now; remembers when it last
        changed (phaseUpdatedAt)."""
        phase = self._phase(wl)
        if phase != wl.phase:
            wl.phase, wl.phase_at = phase, now_rfc3339()
        return phase

    def _phase(self, wl):
        job = self.kube_object(wl)
        pods = self.pods(wl)
        if wl.deleted_at is not None:
            return "Deleting"
        if job is None:
            return "Creating"
        if condition_true(job, "Complete") or condition_true(job, "Succeeded"):
            return "Completed"
        if condition_true(job, "Failed"):
            return "Failed"
        if suspended(job):
            return "Stopping" if pods else "Stopped"
        phases = [phase_of(p) for p in pods]
        if "Running" in phases:
            return "Running"
        if not pods and wl.type == "DistributedInference" and not wl.spec.get("replicas"):
            return "Running"    # scaled to no groups: nothing to wait for
        if not pods:
            return "Resuming" if wl.desired == "Running" and wl.phase in (
                "Stopped", "Stopping", "Resuming") else "Creating"
        if any((p.get("spec") or {}).get("nodeName") for p in pods):
            return "Initializing"
        return "Pending"

    def forget_deleted(self):
        """A deleted workload whose cluster object is gone leaves the
        default list (it stays visible with deleted=true)."""
        for wl in self.all():
            if wl.deleted_at is not None and wl.phase != "Deleted" and \
                    self.kube_object(wl) is None and not self.pods(wl):
                wl.phase = "Deleted"
