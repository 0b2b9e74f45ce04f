"""The runtime: a job controller, a GPU scheduler and a kubelet, in one
reconcile pass (`Controller.step`) that runs every `--tick` seconds, or on
demand through POST /_sim/tick.

One step, under the store lock:
  1. pods bound in an earlier step start Running; Running pods whose
     `kube-sim/duration` (seconds) has elapsed finish with
     `kube-sim/exit-code` (default 0): Succeeded or Failed;
  2. workloads (run.ai/v1 RunaiJobs, batch/v1 Jobs) get the pods they lack,
     lose them when suspended, retry failed ones up to backoffLimit;
  3. persistent volume claims are bound (the PV controller and a dynamic
     provisioner): a claim of an existing StorageClass gets a volume, one
     of a WaitForFirstConsumer class once a pod using it is scheduled;
  4. pending pods are placed on nodes: whole GPUs (limits nvidia.com/gpu)
     and fractions (annotation gpu-fraction, or gpu-memory in MB as a
     share of the node GPU's memory; packed onto shared GPUs, recorded
     as annotation runai-gpu), node capacity, the pod's claims, and
     project quota for non-preemptible interactive work. A workload's
     pods are placed all together or not at all (Run:ai's gang
     scheduling);
  5. pods this controller started print a log line;
  6. workloads get their status and the Run:ai scheduler annotations
     (runai-calculated-status, runai-running-pods, ...);
  7. LoadBalancer services get an ingress IP (127.0.0.N) one step after
     they are first seen, as from a cloud's load balancer controller.

Between 1 and 2, the taint manager: a pod bound to a node with a
NoExecute taint it does not tolerate is deleted (after the smallest
matching tolerationSeconds, counted from when it was first seen so),
with a TaintManagerEviction event; step 4 places no pod on a node with
a NoSchedule or NoExecute taint it does not tolerate.

Writes happen only when something changed, so resourceVersions mean
something to watchers. GPU use is recomputed from the pods each step, so
deleting a workload (the store cascades to its pods) frees its GPUs for
the next step.

Test knobs: POST /_sim/tick {"steps": N}, POST /_sim/controller
{"paused": true|false}, POST /_sim/phase (force a pod's or a workload's
phase). A pod forced to Pending is held (annotation kube-sim/hold) until
forced again.
"""

import calendar
import hashlib
import random
import threading
import time
import traceback

from kubesim import admission
from kubesim.errors import ApiError, bad_request, not_found

PODS = ("", "v1", "pods")
NODES = ("", "v1", "nodes")
NAMESPACES = ("", "v1", "namespaces")
PROJECTS = ("run.ai", "v1", "projects")
RUNAIJOBS = ("run.ai", "v1", "runaijobs")
JOBS = ("batch", "v1", "jobs")
WORKLOADS = (RUNAIJOBS, JOBS)
SERVICES = ("", "v1", "services")
CLAIMS = ("", "v1", "persistentvolumeclaims")
STORAGECLASSES = ("storage.k8s.io", "v1", "storageclasses")

RUNAI_SCHEDULER = "runai-scheduler"
GPU = "nvidia.com/gpu"
# MiB of memory per GPU, as NVIDIA GPU feature discovery labels a node;
# nodes without the label have an A100-80GB's.
GPU_MEMORY_LABEL = "nvidia.com/gpu.memory"
DEFAULT_GPU_MEMORY_MIB = 81920
EPS = 1e-6
HOLD = "kube-sim/hold"
DURATION = "kube-sim/duration"
EXIT_CODE = "kube-sim/exit-code"

# Above this many log-printing pods, the per-step lines stop (benchmarks
# seed thousands of pods; their logs would only fill memory).
MAX_LOGGING_PODS = 256
MAX_TICK_STEPS = 1000

_SUFFIX_CHARS = "bcdfghjklmnpqrstvwxz2456789"  # kube's generateName alphabet


# --- small helpers ------------------------------------------------------------

def _rfc3339(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _parse_rfc3339(text):
    try:
        return calendar.timegm(time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S"))
    except (TypeError, ValueError):
        return None


def _meta(obj):
    return obj.get("metadata") or {}


def _key(obj):
    meta = _meta(obj)
    return meta.get("namespace", ""), meta.get("name", "")


def _phase(pod):
    return (pod.get("status") or {}).get("phase") or "Pending"


def _node_name(pod):
    return (pod.get("spec") or {}).get("nodeName") or ""


def _annotation(obj, key, default=None):
    return (_meta(obj).get("annotations") or {}).get(key, default)


def _label(obj, key, default=None):
    return (_meta(obj).get("labels") or {}).get(key, default)


def _active(pod):
    return _phase(pod) in ("Pending", "Running")


def _bound_active(pod):
    """Holds resources on its node: bound and not finished."""
    return _active(pod) and bool(_node_name(pod))


def _controller_uid(obj):
    for ref in _meta(obj).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref.get("uid")
    return None


def _number(value, default=0.0):
    try:
        return float(str(value).strip())
    except (TypeError, ValueError):
        return default


def fmt_gpus(x):
    """GPU amounts as the scheduler writes them: "2", "0.5", "1.25"."""
    return "%g" % round(x, 4)


def _set_condition(conds, ctype, status, now, reason=None, message=None):
    """Sets one condition in a list, keeping lastTransitionTime unless the
    status flips."""
    for c in conds:
        if c.get("type") == ctype:
            if c.get("status") != status:
                c["lastTransitionTime"] = _rfc3339(now)
            c["status"] = status
            for key, value in (("reason", reason), ("message", message)):
                if value is None:
                    c.pop(key, None)
                else:
                    c[key] = value
            return
    cond = {"type": ctype, "status": status, "lastProbeTime": None,
            "lastTransitionTime": _rfc3339(now)}
    if reason is not None:
        cond["reason"] = reason
    if message is not None:
        cond["message"] = message
    conds.append(cond)


def _condition(obj, ctype):
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == ctype:
            return c
    return None


def _condition_true(obj, ctype):
    c = _condition(obj, ctype)
    return c is not None and c.get("status") == "True"


def _clone(o):
    if isinstance(o, dict):
        return {k: _clone(v) for k, v in o.items()}
    if isinstance(o, list):
        return [_clone(v) for v in o]
    return o


def _gpu_memory_request(pod):
    """Run:ai's gpu-memory annotation: whole megabytes of one GPU, or None."""
    try:
        mb = int(str(_annotation(pod, "gpu-memory")).strip())
    except (TypeError, ValueError):
        return None
    return mb if mb > 0 else None


def _node_gpu_memory(node):
    mib = _number(_label(node or {}, GPU_MEMORY_LABEL), 0.0)
    return mib if mib > 0 else float(DEFAULT_GPU_MEMORY_MIB)


def _gpu_request(pod, gpu_memory=DEFAULT_GPU_MEMORY_MIB):
    """(whole GPUs, fraction) a pod (or a pod template) asks for. Memory
    (annotation gpu-memory) is the share of a GPU of `gpu_memory` MiB it
    needs (more than 1 when it cannot fit); else a fraction in (0, 1) from
    annotation gpu-fraction wins over whole GPUs."""
    mb = _gpu_memory_request(pod)
    if mb is not None:
        return 0.0, mb / float(gpu_memory)
    frac = _number(_annotation(pod, "gpu-fraction"), 0.0)
    if 0 < frac < 1:
        return 0.0, frac
    whole = 0.0
    for c in (pod.get("spec") or {}).get("containers") or []:
        res = c.get("resources") or {}
        amount = (res.get("limits") or {}).get(GPU, (res.get("requests") or {}).get(GPU))
        whole += _number(amount, 0.0)
    if frac >= 1:
        whole = max(whole, frac)
    return whole, 0.0


def _gpus(pod, gpu_memory=DEFAULT_GPU_MEMORY_MIB):
    whole, frac = _gpu_request(pod, gpu_memory)
    return whole + frac


def _claim_names(pod):
    """The persistentVolumeClaims a pod's volumes name."""
    out = []
    for v in (pod.get("spec") or {}).get("volumes") or []:
        claim = (v.get("persistentVolumeClaim") or {}) if isinstance(v, dict) else {}
        if isinstance(claim, dict) and claim.get("claimName"):
            out.append(claim["claimName"])
    return out


def _claim_class(pvc):
    spec = pvc.get("spec") or {}
    name = spec.get("storageClassName")
    if name is None:
        name = (_meta(pvc).get("annotations") or {}).get(admission.BETA_CLASS_ANNOTATION)
    return name


def _claim_bound(pvc):
    return bool((pvc.get("spec") or {}).get("volumeName")) or \
        (pvc.get("status") or {}).get("phase") == "Bound"


# --- a snapshot of the cluster for one step -----------------------------------

def _tolerates(tol, taint):
    """v1 Toleration.ToleratesTaint."""
    effect = tol.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = tol.get("key") or ""
    if key and key != taint.get("key"):
        return False
    op = tol.get("operator") or "Equal"
    if op == "Equal":
        return (tol.get("value") or "") == (taint.get("value") or "")
    return op == "Exists"


def _untolerated(pod, taints, effects):
    """The first of `taints` with one of `effects` the pod does not
    tolerate, or None."""
    tols = (pod.get("spec") or {}).get("tolerations") or []
    for taint in taints:
        if taint.get("effect") in effects and not any(_tolerates(t, taint) for t in tols):
            return taint
    return None


def _toleration_seconds(pod, taints):
    """How long the pod may stay on a node with these NoExecute taints:
    0 when one is not tolerated, None for ever, else the smallest
    tolerationSeconds of the tolerations used (the taint manager's
    getMinTolerationTime)."""
    tols = (pod.get("spec") or {}).get("tolerations") or []
    used = []
    for taint in taints:
        if taint.get("effect") != "NoExecute":
            continue
        matching = [t for t in tols if _tolerates(t, taint)]
        if not matching:
            return 0
        used.extend(matching)
    secs = [_number(t.get("tolerationSeconds"), 0) for t in used
            if t.get("tolerationSeconds") is not None]
    return max(min(secs), 0) if secs else None


def _select(store, gvr):
    """Stored objects (refs when the store offers them: no copies of
    thousands of objects per step); [] when the kind isn't served."""
    try:
        fn = getattr(store, "select", None)
        return list(fn(gvr)) if fn is not None else store.list(gvr)
    except ApiError:
        return []


class _World:
    def __init__(self, store):
        self.pods = {_key(p): p for p in _select(store, PODS)}
        self.nodes = {_meta(n).get("name"): n for n in _select(store, NODES)}
        self.ns_project = {}
        for ns in _select(store, NAMESPACES):
            project = _label(ns, "runai/queue")
            if project:
                self.ns_project[_meta(ns).get("name")] = project
        self.deserved = {_meta(p).get("name"): _number((p.get("spec") or {}).get("deservedGpus"),
                                                        None)
                         for p in _select(store, PROJECTS)}
        self.workloads = [(gvr, w) for gvr in WORKLOADS for w in _select(store, gvr)]
        self.by_uid = {_meta(w).get("uid"): (gvr, w) for gvr, w in self.workloads}
        self.claims = {_key(c): c for c in _select(store, CLAIMS)}
        self.classes = {_meta(c).get("name"): c for c in _select(store, STORAGECLASSES)}
        gpu_nodes = [n for n in self.nodes.values()
                     if _number(((n.get("status") or {}).get("allocatable") or {}).get(GPU),
                                0.0) >= 1]
        # a pod not yet on a node: counted against the smallest GPU it may get
        self.pending_gpu_memory = min((_node_gpu_memory(n) for n in gpu_nodes),
                                      default=float(DEFAULT_GPU_MEMORY_MIB))

    def gpu_memory_of(self, pod):
        """MiB per GPU where the pod is (or, unbound, may be) placed."""
        node = self.nodes.get(_node_name(pod))
        return _node_gpu_memory(node) if node is not None else self.pending_gpu_memory

    def gpus_of(self, pod):
        """GPUs a pod takes, a gpu-memory request as a share of its GPU."""
        return _gpus(pod, self.gpu_memory_of(pod))

    def claim_of(self, pod, name):
        return self.claims.get((_key(pod)[0], name))

    def owned(self):
        """workload uid -> its pods (by controller ownerReference)."""
        out = {}
        for pod in self.pods.values():
            uid = _controller_uid(pod)
            if uid:
                out.setdefault(uid, []).append(pod)
        return out

    @staticmethod
    def fingerprint(wl, pods):
        """What a workload's reconciliation depends on, cheaply compared."""
        return (_meta(wl).get("resourceVersion"),
                tuple(sorted((_meta(p).get("name"), _meta(p).get("resourceVersion"))
                             for p in pods)))

    def owner(self, pod):
        found = self.by_uid.get(_controller_uid(pod))
        return found[1] if found else None


class _NodeState:
    """GPU bookkeeping of one node: whole GPUs in use, and the shared GPUs
    (by index) with the fraction of each that is taken."""

    def __init__(self, node):
        meta, spec, status = _meta(node), node.get("spec") or {}, node.get("status") or {}
        self.name = meta.get("name")
        self.labels = meta.get("labels") or {}
        self.ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                         for c in status.get("conditions") or [])
        self.cordoned = bool(spec.get("unschedulable"))
        self.taints = [t for t in spec.get("taints") or [] if isinstance(t, dict)]
        alloc = status.get("allocatable") or status.get("capacity") or {}
        self.gpus = _number(alloc.get(GPU), 0.0)
        self.gpu_memory = _node_gpu_memory(node)
        self.whole = 0.0
        self.shared = {}

    def copy(self):
        c = _NodeState.__new__(_NodeState)
        c.__dict__.update(self.__dict__)
        c.shared = dict(self.shared)
        return c

    def free_whole(self):
        return self.gpus - self.whole - len(self.shared)

    def shared_slot(self, frac):
        """A shared GPU with room for `frac` (fullest first, to pack)."""
        fits = [(used, idx) for idx, used in self.shared.items() if used + frac <= 1 + EPS]
        if fits:
            return sorted(fits, key=lambda t: (-t[0], t[1]))[0][1]
        return None

    def new_slot(self):
        if self.free_whole() < 1 - EPS:
            return None
        idx = 0
        while idx in self.shared:
            idx += 1
        return idx

    def take(self, whole, frac, idx=None):
        if frac:
            if idx is None:
                idx = self.shared_slot(frac)
                if idx is None:
                    idx = self.new_slot() if self.new_slot() is not None else len(self.shared)
            self.shared[idx] = self.shared.get(idx, 0.0) + frac
            return idx
        self.whole += whole
        return None

    def why_not(self, pod, whole, frac):
        """Why the pod can't go here (kube's wording), or None if it can."""
        if self.cordoned:
            return "node(s) were unschedulable"
        if not self.ready:
            return "node(s) were not ready"
        taint = _untolerated(pod, self.taints, ("NoSchedule", "NoExecute"))
        if taint is not None:
            return "node(s) had untolerated taint {%s: %s}" % (taint.get("key", ""),
                                                                taint.get("value", ""))
        selector = (pod.get("spec") or {}).get("nodeSelector") or {}
        if any(self.labels.get(k) != v for k, v in selector.items()):
            return "node(s) didn't match Pod's node affinity/selector"
        mb = _gpu_memory_request(pod)
        if mb is not None and self.gpus >= 1 and mb > self.gpu_memory + EPS:
            return ("node(s) had GPUs with less memory than the %d MB requested (gpu-memory)"
                    % mb)
        if frac and self.shared_slot(frac) is None and self.new_slot() is None:
            return "Insufficient " + GPU
        if whole and self.free_whole() < whole - EPS:
            return "Insufficient " + GPU
        return None


# --- the controller -----------------------------------------------------------

class Controller:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store
        self.clock = time.time          # tests may replace it
        self.paused = False
        self.steps = 0
        self._thread = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._local = threading.local()  # marks the thread doing a step
        self._running_since = {}        # pod uid -> when it started Running
        self._printing = {}             # pod uid -> log lines printed (pods we run)
        self._unsched_msg = {}          # pod uid -> last Unschedulable message
        self._failed_create = {}        # workload uid -> last FailedCreate message
        self._claim_said = {}           # claim uid -> reason of the last event about it
        self._lb_seen = {}              # LoadBalancer service uid -> step first seen
        # workload uid -> fingerprint of the inputs last seen to need no
        # work: at benchmark scale (10k jobs) most steps change nothing
        self._settled = {}              # ... by the job controller
        self._status_seen = {}          # ... by the status writer
        self._durations = {}            # pod uid -> (resourceVersion, duration)
        # a step that changed nothing, with nothing waiting on the clock,
        # leaves the store's resourceVersion here: while the store stays
        # at it, the next step would do nothing too and is skipped
        self._idle_rv = None
        self._timed = False             # this step saw work that waits on the clock
        self._ips = {}                  # node -> last host part handed out
        self._tainted_since = {}        # pod uid -> when a NoExecute taint was first seen
        self.store.add_listener(self._on_change)

    # thread ---------------------------------------------------------------

    @property
    def tick(self):
        return float(getattr(self.sim.options, "tick", 1.0) or 1.0)

    def start(self):
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="kube-sim-controller",
                                        daemon=True)
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)
        logs = getattr(self.sim, "logs", None)
        if logs is not None and hasattr(logs, "shutdown"):
            logs.shutdown()

    def _run(self):
        while not self._stop.is_set():
            woken = self._wake.wait(self.tick)
            if self._stop.is_set():
                return
            if woken:
                self._wake.clear()
                self._stop.wait(0.05)  # let a burst of changes settle first
            if self.paused:
                continue
            try:
                self.step()
            except Exception:  # a bug in one step must not stop the cluster
                traceback.print_exc()

    def _on_change(self, event_type, gvr, obj):
        """Store listener: forget deleted pods; wake up early when a client
        (not this controller) changes a workload, a node or a project."""
        gvr = tuple(gvr)
        if event_type == "DELETED":
            uid = _meta(obj).get("uid")
            for table in (self._running_since, self._printing, self._unsched_msg,
                          self._durations, self._settled, self._status_seen,
                          self._failed_create, self._claim_said, self._lb_seen,
                          self._tainted_since):
                table.pop(uid, None)
        if getattr(self._local, "active", False):
            return
        if gvr in WORKLOADS or gvr in (NODES, PROJECTS, SERVICES, CLAIMS, STORAGECLASSES) or \
                (gvr == PODS and event_type in ("ADDED", "DELETED")):
            self._wake.set()

    # one reconcile pass ---------------------------------------------------

    def step(self):
        with self.store.lock:
            self.steps += 1
            rv_before = self._store_rv()
            if rv_before is not None and rv_before == self._idle_rv:
                return
            self._local.active = True
            self._timed = False
            try:
                now = self.clock()
                world = _World(self.store)
                self._progress_pods(world, now)
                self._evict_tainted(world, now)
                self._reconcile_workloads(world, now)
                self._bind_claims(world, now)
                self._schedule(world, now)
                self._bind_claims(world, now)   # claims waiting for a pod just placed
                self._print_logs(world)
                self._update_workloads(world, now)
                self._annotate_pods(world)
                self._load_balancers(now)
            finally:
                self._local.active = False
            rv_after = self._store_rv()
            self._idle_rv = rv_after if rv_after == rv_before and not self._timed else None

    def _store_rv(self):
        current = getattr(self.store, "current_rv", None)
        return current() if current is not None else None

    # writes and events ----------------------------------------------------

    def _write(self, world, gvr, obj):
        ns, name = _key(obj)
        try:
            out = self.store.update(gvr, ns, obj)
        except ApiError:
            traceback.print_exc()
            return None
        if gvr == PODS:
            world.pods[(ns, name)] = out
        return out

    def _event(self, obj, reason, message, type_="Normal", component="runai-scheduler"):
        ns = _meta(obj).get("namespace") or "default"
        try:
            self.store.add_event(ns, obj, reason, message, type_, component=component)
        except TypeError:  # a store without the component argument
            self.store.add_event(ns, obj, reason, message, type_)

    # 1. kubelet: start and finish pods -------------------------------------

    def _progress_pods(self, world, now):
        # a snapshot: pods the scheduler binds later in this step start in the next
        for key, pod in sorted(world.pods.items()):
            if _meta(pod).get("deletionTimestamp"):
                continue
            phase = _phase(pod)
            if phase == "Pending" and _node_name(pod) and not _annotation(pod, HOLD):
                self._start(world, pod, now)
            elif phase == "Running":
                self._maybe_finish(world, pod, now)

    def _pod_ip(self, node_name, world):
        node = world.nodes.get(node_name) or {}
        cidr = (node.get("spec") or {}).get("podCIDR") or ""
        prefix = cidr.rsplit(".", 1)[0] if cidr.count(".") == 3 else \
            "10.244.%d" % (sorted(world.nodes).index(node_name) + 1
                           if node_name in world.nodes else 0)
        n = self._ips.get(node_name, 1) % 253 + 1
        self._ips[node_name] = n
        return "%s.%d" % (prefix, n)

    @staticmethod
    def _host_ip(node):
        for addr in (node.get("status") or {}).get("addresses") or []:
            if addr.get("type") == "InternalIP":
                return addr.get("address")
        return "10.0.0.1"

    def _start(self, world, pod, now):
        new = _clone(pod)
        node = world.nodes.get(_node_name(pod)) or {}
        status = new.setdefault("status", {})
        host_ip, pod_ip = self._host_ip(node), self._pod_ip(_node_name(pod), world)
        status.update({"phase": "Running", "hostIP": host_ip, "hostIPs": [{"ip": host_ip}],
                       "podIP": pod_ip, "podIPs": [{"ip": pod_ip}], "qosClass": _qos(pod)})
        status.setdefault("startTime", _rfc3339(now))
        conds = status.setdefault("conditions", [])
        for ctype in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                      "PodScheduled"):
            _set_condition(conds, ctype, "True", now)
        status["containerStatuses"] = [_running_status(c, now) for c in
                                       (new.get("spec") or {}).get("containers") or []]
        _runai_pod_status(new, "Running")
        out = self._write(world, PODS, new)
        if out is None:
            return
        uid = _meta(out).get("uid")
        self._running_since[uid] = now
        self._printing.setdefault(uid, 0)
        for c in (out.get("spec") or {}).get("containers") or []:
            self._event(out, "Pulled", 'Container image "%s" already present on machine'
                        % c.get("image", ""), component="kubelet")
            self._event(out, "Created", "Created container %s" % c.get("name"),
                        component="kubelet")
            self._event(out, "Started", "Started container %s" % c.get("name"),
                        component="kubelet")

    def _maybe_finish(self, world, pod, now):
        uid = _meta(pod).get("uid")
        since = self._running_since.get(uid)
        if since is None:
            # running when we first saw it (seeded): count from its startTime
            since = _parse_rfc3339((pod.get("status") or {}).get("startTime")) or now
            self._running_since[uid] = since
        duration = self._duration(world, pod)
        if duration is None:
            return
        self._timed = True
        if now - since < duration:
            return
        code = int(_number(self._template_annotation(world, pod, EXIT_CODE), 0))
        self._finish(world, pod, code, None, now)

    def _template_annotation(self, world, pod, key):
        """A pod's annotation, else its workload template's."""
        value = _annotation(pod, key)
        if value is None:
            owner = world.owner(pod)
            if owner is not None:
                tmeta = ((owner.get("spec") or {}).get("template") or {}).get("metadata") or {}
                value = (tmeta.get("annotations") or {}).get(key)
        return value

    def _duration(self, world, pod):
        meta = _meta(pod)
        cached = self._durations.get(meta.get("uid"))
        if cached is not None and cached[0] == meta.get("resourceVersion"):
            return cached[1]
        value = self._template_annotation(world, pod, DURATION)
        d = _number(value, -1) if value is not None else -1
        d = d if d >= 0 else None
        self._durations[meta.get("uid")] = (meta.get("resourceVersion"), d)
        return d

    def _finish(self, world, pod, code, reason, now):
        new = _clone(pod)
        phase = "Succeeded" if code == 0 else "Failed"
        reason = reason or ("Completed" if code == 0 else "Error")
        status = new.setdefault("status", {})
        status["phase"] = phase
        status.setdefault("startTime", _rfc3339(now))
        conds = status.setdefault("conditions", [])
        why = "PodCompleted" if code == 0 else "PodFailed"
        for ctype in ("Ready", "ContainersReady"):
            _set_condition(conds, ctype, "False", now, why)
        _set_condition(conds, "PodReadyToStartContainers", "False", now)
        old = {c.get("name"): c for c in status.get("containerStatuses") or []}
        status["containerStatuses"] = [
            _terminated_status(c, old.get(c.get("name")), code, reason, now)
            for c in (new.get("spec") or {}).get("containers") or []]
        _runai_pod_status(new, phase)
        self._write(world, PODS, new)

    # 1b. taint manager: NoExecute ----------------------------------------

    def _evict_tainted(self, world, now):
        """Deletes the pods that do not tolerate their node's NoExecute
        taints (at once, or when their tolerationSeconds are up). Pods that
        have finished are left alone: the job controller counts them."""
        for key, pod in sorted(world.pods.items()):
            uid = _meta(pod).get("uid")
            node = world.nodes.get(_node_name(pod)) if _node_name(pod) else None
            taints = [t for t in ((node or {}).get("spec") or {}).get("taints") or []
                      if isinstance(t, dict) and t.get("effect") == "NoExecute"]
            if not taints or _phase(pod) in ("Succeeded", "Failed") or \
                    _meta(pod).get("deletionTimestamp"):
                self._tainted_since.pop(uid, None)
                continue
            secs = _toleration_seconds(pod, taints)
            if secs is None:
                self._tainted_since.pop(uid, None)
                continue
            since = self._tainted_since.setdefault(uid, now)
            if now < since + secs:
                self._timed = True
                continue
            ns, name = key
            self._event(pod, "TaintManagerEviction", "Marking for deletion Pod %s/%s"
                        % (ns, name), component="taint-eviction-controller")
            self.store.delete(PODS, ns, name)
            world.pods.pop(key, None)

    # 2. job controller -----------------------------------------------------

    def _reconcile_workloads(self, world, now):
        owned = world.owned()
        for gvr, wl in world.workloads:
            if _meta(wl).get("deletionTimestamp"):
                continue
            uid = _meta(wl).get("uid")
            pods = owned.get(uid, [])
            spec = wl.get("spec") or {}
            if _finished_workload(wl):
                self._expire(gvr, wl, now)
                continue
            seen = world.fingerprint(wl, pods)
            if self._settled.get(uid) == seen:
                continue
            if spec.get("suspend"):
                for pod in pods:
                    self._delete_pod(world, wl, pod)
            elif not self._create_missing(world, gvr, wl, pods):
                self._settled[uid] = seen

    def _create_missing(self, world, gvr, wl, pods):
        spec = wl.get("spec") or {}
        succeeded = sum(1 for p in pods if _phase(p) == "Succeeded")
        failed = sum(1 for p in pods if _phase(p) == "Failed")
        completions = int(_number(spec.get("completions"), 1))
        parallelism = int(_number(spec.get("parallelism"), 1))
        if failed > int(_number(spec.get("backoffLimit"), 6)) or succeeded >= completions:
            return False  # finishing: _update_workloads marks it
        active = [p for p in pods if _active(p)]
        missing = min(parallelism, completions - succeeded) - len(active)
        for _ in range(missing):
            self._create_pod(world, gvr, wl)
        return missing > 0

    def _create_pod(self, world, gvr, wl):
        pod = _pod_from_template(gvr, wl, world)
        ns = _meta(wl).get("namespace")
        while (ns, pod["metadata"]["name"]) in world.pods:
            pod["metadata"]["name"] = "%s-%s" % (_meta(wl).get("name"), _suffix())
        uid = _meta(wl).get("uid")
        try:
            out = self.store.create(PODS, ns, pod)
        except ApiError as e:
            # one event per cause, not per random pod name it was tried with
            said = e.message.replace(pod["metadata"]["name"], "")
            if self._failed_create.get(uid) != said:
                self._failed_create[uid] = said
                self._event(wl, "FailedCreate", "Error creating: %s" % e.message, "Warning",
                            component="job-controller")
            return
        self._failed_create.pop(uid, None)
        world.pods[_key(out)] = out
        self._event(wl, "SuccessfulCreate", "Created pod: %s" % _meta(out)["name"],
                    component="job-controller")

    def _delete_pod(self, world, wl, pod):
        ns, name = _key(pod)
        self.store.delete(PODS, ns, name)
        world.pods.pop((ns, name), None)
        self._event(wl, "SuccessfulDelete", "Deleted pod: %s" % name,
                    component="job-controller")

    def _expire(self, gvr, wl, now):
        """ttlSecondsAfterFinished: delete a finished workload when due."""
        ttl = (wl.get("spec") or {}).get("ttlSecondsAfterFinished")
        if ttl is not None:
            self._timed = True
        done = _parse_rfc3339((wl.get("status") or {}).get("completionTime"))
        if ttl is None or done is None or now < done + _number(ttl, 0):
            return
        ns, name = _key(wl)
        self.store.delete(gvr, ns, name, propagation="Background")

    # 3. scheduler ----------------------------------------------------------

    def _node_states(self, world):
        states = {name: _NodeState(node) for name, node in world.nodes.items()}
        # pods with a GPU index first, so unindexed fractions pack around them
        bound = [p for p in world.pods.values() if _bound_active(p)]
        bound.sort(key=lambda p: _annotation(p, "runai-gpu") is None)
        for pod in bound:
            st = states.get(_node_name(pod))
            if st is None:
                continue
            whole, frac = _gpu_request(pod, st.gpu_memory)
            idx = _annotation(pod, "runai-gpu")
            st.take(whole, frac, int(_number(idx, 0)) if idx is not None and frac else None)
        return states

    def _project_use(self, world):
        use = {}
        for pod in world.pods.values():
            project = world.ns_project.get(_key(pod)[0])
            if project and _bound_active(pod):
                use[project] = use.get(project, 0.0) + world.gpus_of(pod)
        return use

    def _schedule(self, world, now):
        waiting = [p for p in world.pods.values()
                   if _phase(p) == "Pending" and not _node_name(p)
                   and not _annotation(p, HOLD) and not _meta(p).get("deletionTimestamp")]
        if not waiting:
            return
        groups = {}
        for pod in waiting:
            groups.setdefault(_controller_uid(pod) or _key(pod), []).append(pod)
        order = sorted(groups.values(), key=lambda g: min(
            (_meta(p).get("creationTimestamp") or "", _key(p)) for p in g))
        states = self._node_states(world)
        use = self._project_use(world)
        for group in order:
            group.sort(key=_key)
            trial = {n: s.copy() for n, s in states.items()}
            placed, why = self._place_group(world, group, trial, use)
            if placed is None:
                for pod in group:
                    self._unschedulable(world, pod, why, now)
                continue
            states = trial
            for pod, node, idx in placed:
                self._bind(world, pod, node, idx, now)
                project = world.ns_project.get(_key(pod)[0])
                if project:
                    use[project] = use.get(project, 0.0) + _gpus(
                        pod, _node_gpu_memory(world.nodes.get(node)))

    def _place_group(self, world, group, states, use):
        """Places every pod of a group (tentatively, on `states`): returns
        ([(pod, node, gpu index)], None) or (None, why)."""
        ns = _key(group[0])[0]
        project = world.ns_project.get(ns)
        deserved = world.deserved.get(project) if project else None
        for pod in group:
            why = self._claims_problem(world, pod)
            if why:
                return None, "0/%d nodes are available: %s." % (len(world.nodes), why)
        asked = sum(world.gpus_of(p) for p in group)
        if deserved is not None and asked > 0 and self._non_preemptible(world, group[0]) \
                and use.get(project, 0.0) + asked > deserved + EPS:
            return None, ("Non-preemptible workload is over quota: project %s has %s deserved "
                          "GPUs, %s allocated, and the workload requests %s more"
                          % (project, fmt_gpus(deserved), fmt_gpus(use.get(project, 0.0)),
                             fmt_gpus(asked)))
        placed = []
        for pod in group:
            node, idx, why = self._place(pod, states)
            if node is None:
                return None, why
            placed.append((pod, node, idx))
        return placed, None

    @staticmethod
    def _non_preemptible(world, pod):
        """Interactive (`build`) work must stay within quota; training and
        interactive-preemptible work may borrow idle GPUs over quota."""
        owner = world.owner(pod)
        cls = _label(owner, "priorityClassName") if owner is not None else None
        return (cls or _label(pod, "priorityClassName")) == "build"

    @staticmethod
    def _claims_problem(world, pod):
        """The volume binding check: every claim the pod names exists, and is
        bound unless its class waits for the first consumer (then it is
        bound once the pod has a node). The scheduler's own wording."""
        unbound = False
        for name in _claim_names(pod):
            pvc = world.claim_of(pod, name)
            if pvc is None:
                return 'persistentvolumeclaim "%s" not found' % name
            if _meta(pvc).get("deletionTimestamp"):
                return 'persistentvolumeclaim "%s" is being deleted' % name
            if _claim_bound(pvc):
                continue
            sc = world.classes.get(_claim_class(pvc) or "")
            if sc is None or sc.get("volumeBindingMode") != "WaitForFirstConsumer":
                unbound = True
        return "pod has unbound immediate PersistentVolumeClaims" if unbound else None

    @staticmethod
    def _place(pod, states):
        reasons = {}
        names = sorted(states)
        asks = {name: _gpu_request(pod, states[name].gpu_memory) for name in names}
        # a fraction: first a GPU already shared that has room, then a free one
        for name in names:
            st = states[name]
            frac = asks[name][1]
            if frac and st.why_not(pod, 0, 0) is None and st.shared_slot(frac) is not None:
                return name, st.take(0, frac, st.shared_slot(frac)), None
        for name in names:
            st = states[name]
            whole, frac = asks[name]
            why = st.why_not(pod, whole, frac)
            if why is None:
                idx = st.take(whole, frac, st.new_slot() if frac else None)
                return name, idx, None
            reasons[why] = reasons.get(why, 0) + 1
        detail = ", ".join("%d %s" % (n, why) for why, n in sorted(reasons.items()))
        return None, None, "0/%d nodes are available: %s." % (len(names), detail or
                                                              "no nodes in the cluster")

    def _bind(self, world, pod, node, idx, now):
        new = _clone(pod)
        new.setdefault("spec", {})["nodeName"] = node
        if idx is not None:
            new["metadata"].setdefault("annotations", {})["runai-gpu"] = str(idx)
        conds = new.setdefault("status", {}).setdefault("conditions", [])
        _set_condition(conds, "PodScheduled", "True", now)
        out = self._write(world, PODS, new)
        if out is None:
            return
        self._unsched_msg.pop(_meta(out).get("uid"), None)
        ns, name = _key(out)
        self._event(out, "Scheduled", "Successfully assigned %s/%s to %s" % (ns, name, node),
                    component=(out.get("spec") or {}).get("schedulerName") or RUNAI_SCHEDULER)

    def _unschedulable(self, world, pod, why, now):
        uid = _meta(pod).get("uid")
        cond = _condition(pod, "PodScheduled")
        if cond and cond.get("status") == "False" and cond.get("message") == why \
                and self._unsched_msg.get(uid) == why:
            return
        new = _clone(pod)
        conds = new.setdefault("status", {}).setdefault("conditions", [])
        _set_condition(conds, "PodScheduled", "False", now, "Unschedulable", why)
        out = self._write(world, PODS, new)
        if out is None:
            return
        if self._unsched_msg.get(uid) != why:
            self._unsched_msg[uid] = why
            self._event(out, "Unschedulable", why, "Warning",
                        component=(out.get("spec") or {}).get("schedulerName") or
                        RUNAI_SCHEDULER)

    # volumes: the PV controller and a dynamic provisioner ---------------------

    def _bind_claims(self, world, now):
        """Binds pending claims as a cluster with a dynamic provisioner does:
        a claim with no class at all first gets the default class (the PV
        controller's retroactive assignment); a claim of an existing class is
        bound to a new volume `pvc-<uid>` at once, or, for a
        WaitForFirstConsumer class, once a pod using it is on a node. A
        missing class is a ProvisioningFailed warning; "" (no class) waits
        for a static volume, which never comes here."""
        for key in sorted(world.claims):
            pvc = world.claims[key]
            if _meta(pvc).get("deletionTimestamp") or _claim_bound(pvc):
                continue
            if _claim_class(pvc) is None:
                pvc = self._assign_default_class(world, pvc)
            name = _claim_class(pvc)
            sc = world.classes.get(name) if name else None
            if not name:
                self._claim_event(pvc, "FailedBinding", "no persistent volumes available for "
                                  "this claim and no storage class is set")
            elif sc is None:
                self._claim_event(pvc, "ProvisioningFailed",
                                  'storageclass.storage.k8s.io "%s" not found' % name, "Warning")
            elif sc.get("volumeBindingMode") == "WaitForFirstConsumer":
                node = self._consumer_node(world, pvc)
                if node is None:
                    self._claim_event(pvc, "WaitForFirstConsumer", "waiting for first consumer "
                                      "to be created before binding")
                else:
                    self._provision(world, pvc, sc, node)
            else:
                self._provision(world, pvc, sc, None)

    def _assign_default_class(self, world, pvc):
        default = admission.default_storage_class(self.store)
        if not default:
            return pvc
        new = _clone(pvc)
        new.setdefault("spec", {})["storageClassName"] = default
        out = self._write(world, CLAIMS, new)
        if out is None:
            return pvc
        world.claims[_key(out)] = out
        return out

    def _claim_event(self, pvc, reason, message, type_="Normal",
                     component="persistentvolume-controller"):
        """An event about a claim, once per reason (not every step)."""
        uid = _meta(pvc).get("uid")
        if self._claim_said.get(uid) == reason:
            return
        self._claim_said[uid] = reason
        self._event(pvc, reason, message, type_, component=component)

    @staticmethod
    def _consumer_node(world, pvc):
        ns, name = _key(pvc)
        for (pns, _), pod in sorted(world.pods.items()):
            if pns == ns and _bound_active(pod) and name in _claim_names(pod):
                return _node_name(pod)
        return None

    def _provision(self, world, pvc, sc, node):
        """The claim bound to a freshly provisioned volume of its size."""
        new = _clone(pvc)
        meta, spec = new["metadata"], new.setdefault("spec", {})
        provisioner = sc.get("provisioner") or ""
        ann = meta.setdefault("annotations", {})
        ann.update({"pv.kubernetes.io/bind-completed": "yes",
                    "pv.kubernetes.io/bound-by-controller": "yes",
                    "volume.beta.kubernetes.io/storage-provisioner": provisioner,
                    "volume.kubernetes.io/storage-provisioner": provisioner})
        if node:
            ann["volume.kubernetes.io/selected-node"] = node
        volume = "pvc-%s" % meta.get("uid", "")
        spec["volumeName"] = volume
        storage = ((spec.get("resources") or {}).get("requests") or {}).get("storage")
        new["status"] = {"phase": "Bound", "accessModes": list(spec.get("accessModes") or []),
                         "capacity": {"storage": storage}}
        out = self._write(world, CLAIMS, new)
        if out is None:
            return
        world.claims[_key(out)] = out
        ns, name = _key(out)
        self._claim_event(out, "ExternalProvisioning", "Waiting for a volume to be created "
                          "either by the external provisioner '%s' or manually by the system "
                          "administrator. If volume creation is delayed, please verify that the "
                          "provisioner is running and correctly registered." % provisioner)
        self._event(out, "Provisioning", 'External provisioner is provisioning volume for '
                    'claim "%s/%s"' % (ns, name), component=provisioner)
        self._event(out, "ProvisioningSucceeded", "Successfully provisioned volume %s" % volume,
                    component=provisioner)

    # load balancers: a cloud's service controller ------------------------------

    def _load_balancers(self, now):
        """A LoadBalancer service (without a loadBalancerClass, which names
        some other controller) gets `status.loadBalancer.ingress[0].ip`, a
        loopback address of its own, one step after this controller first
        sees it: clients see <pending> first, as on a cloud."""
        services = _select(self.store, SERVICES)
        taken = {ing.get("ip") for svc in services
                 for ing in ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress")
                 or [] if isinstance(ing, dict)}
        for svc in services:
            uid, spec = _meta(svc).get("uid"), svc.get("spec") or {}
            if spec.get("type") != "LoadBalancer" or spec.get("loadBalancerClass"):
                self._lb_seen.pop(uid, None)
                continue
            if ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress"):
                continue
            self._timed = True
            if uid not in self._lb_seen:
                self._lb_seen[uid] = self.steps
                self._event(svc, "EnsuringLoadBalancer", "Ensuring load balancer",
                            component="service-controller")
                continue
            ip = next(("127.0.0.%d" % n for n in range(2, 255)
                       if "127.0.0.%d" % n not in taken), None)
            if ip is None:
                continue
            new = _clone(svc)
            new["status"] = {"loadBalancer": {"ingress": [{"ip": ip, "ipMode": "VIP"}]}}
            try:
                self.store.update(SERVICES, _key(svc)[0], new, status_only=True)
            except (ApiError, TypeError):
                traceback.print_exc()
                continue
            taken.add(ip)
            self._event(svc, "EnsuredLoadBalancer", "Ensured load balancer",
                        component="service-controller")

    # 4. log lines ----------------------------------------------------------

    def _print_logs(self, world):
        logs = getattr(self.sim, "logs", None)
        if logs is None:
            return
        running = [p for p in world.pods.values()
                   if _phase(p) == "Running" and _meta(p).get("uid") in self._printing]
        if len(running) > MAX_LOGGING_PODS:
            return
        self._timed = self._timed or bool(running)
        for pod in sorted(running, key=_key):
            uid = _meta(pod).get("uid")
            n = self._printing[uid] = self._printing[uid] + 1
            containers = (pod.get("spec") or {}).get("containers") or [{}]
            ns, name = _key(pod)
            logs.append(ns, name, containers[0].get("name", ""),
                        "[%s] step %d: loss=%.3f" % (name, n, 2.0 * 0.95 ** n))

    # 5. workload status and scheduler annotations --------------------------

    def _update_workloads(self, world, now):
        owned = world.owned()
        for gvr, wl in world.workloads:
            ns, name = _key(wl)
            current = self.store.get_ref(gvr, ns, name) if hasattr(self.store, "get_ref") \
                else self.store.get(gvr, ns, name)
            uid = _meta(wl).get("uid")
            if current is None or _meta(current).get("uid") != uid:
                continue  # deleted in this step (ttl)
            pods = owned.get(uid, [])
            seen = world.fingerprint(current, pods)
            if self._status_seen.get(uid) == seen:
                continue
            new = self._workload_state(world, gvr, current, pods, now)
            if new != current:
                new = self._write(world, gvr, new) or current
            self._status_seen[uid] = world.fingerprint(new, pods)

    def _workload_state(self, world, gvr, wl, pods, now):
        new = _clone(wl)
        spec = new.get("spec") or {}
        status = new.setdefault("status", {})
        conds = status.setdefault("conditions", [])
        counts = {k: sum(1 for p in pods if f(p)) for k, f in (
            ("active", _active), ("succeeded", lambda p: _phase(p) == "Succeeded"),
            ("failed", lambda p: _phase(p) == "Failed"))}
        suspended = bool(spec.get("suspend")) and not _finished_workload(wl)
        self._suspension(new, conds, suspended, now)
        if not suspended and not _finished_workload(wl):
            self._maybe_complete(new, conds, counts, now)
        for k, v in counts.items():
            if v:  # omitempty, as the Job API
                status[k] = v
            else:
                status.pop(k, None)
        if counts["active"] and not status.get("startTime"):
            status["startTime"] = _rfc3339(now)
        if not conds:
            status.pop("conditions")
        if not status:
            new.pop("status")
        if gvr == RUNAIJOBS or _template_scheduler(wl) == RUNAI_SCHEDULER:
            _scheduler_annotations(new, pods, suspended, world)
        return new

    def _suspension(self, wl, conds, suspended, now):
        was = _condition_true(wl, "Suspended")
        if suspended and not was:
            _set_condition(conds, "Suspended", "True", now, "JobSuspended", "Job suspended")
            wl["status"].pop("startTime", None)
            self._event(wl, "Suspended", "Job suspended", component="job-controller")
        elif not suspended and was:
            _set_condition(conds, "Suspended", "False", now, "JobResumed", "Job resumed")
            self._event(wl, "Resumed", "Job resumed", component="job-controller")

    def _maybe_complete(self, wl, conds, counts, now):
        spec = wl.get("spec") or {}
        if counts["succeeded"] >= int(_number(spec.get("completions"), 1)) and \
                not counts["active"]:
            _set_condition(conds, "Complete", "True", now)
            wl["status"]["completionTime"] = _rfc3339(now)
            self._event(wl, "Completed", "Job completed", component="job-controller")
        elif counts["failed"] > int(_number(spec.get("backoffLimit"), 6)):
            _set_condition(conds, "Failed", "True", now, "BackoffLimitExceeded",
                           "Job has reached the specified backoff limit")
            self._event(wl, "BackoffLimitExceeded", "Job has reached the specified backoff "
                        "limit", "Warning", component="job-controller")

    def _annotate_pods(self, world):
        """runai-calculated-status on Run:ai pods that lack a current one
        (pods seeded or changed by a client)."""
        for pod in list(world.pods.values()):
            if (pod.get("spec") or {}).get("schedulerName") != RUNAI_SCHEDULER:
                continue
            if _annotation(pod, "runai-calculated-status") != _phase(pod):
                new = _clone(pod)
                _runai_pod_status(new, _phase(pod))
                self._write(world, PODS, new)

    # /_sim/phase -----------------------------------------------------------

    def force_phase(self, body):
        if not isinstance(body, dict) or not (body.get("pod") or body.get("workload")):
            raise bad_request('expected {"namespace": NS, "pod": NAME | "workload": NAME, '
                              '"phase": "Pending|Running|Succeeded|Failed", "exit_code": N, '
                              '"reason": R}')
        phase = body.get("phase")
        if phase not in ("Pending", "Running", "Succeeded", "Failed"):
            raise bad_request("phase must be one of Pending, Running, Succeeded, Failed")
        ns = body.get("namespace") or "default"
        code = body.get("exit_code")
        code = int(code) if code is not None else (0 if phase != "Failed" else 1)
        if phase == "Succeeded":
            code = 0
        elif phase == "Failed" and code == 0:
            code = 1
        with self.store.lock:
            self._local.active = True
            try:
                return self._force(ns, body, phase, code)
            finally:
                self._local.active = False

    def _force(self, ns, body, phase, code):
        now = self.clock()
        world = _World(self.store)
        workload = None
        if body.get("pod"):
            pod = world.pods.get((ns, body["pod"]))
            if pod is None:
                raise not_found("pods", body["pod"])
            targets = [pod]
        else:
            gvr, workload = self._find_workload(world, ns, body["workload"])
            pods = world.owned().get(_meta(workload).get("uid"), [])
            if not pods and not _finished_workload(workload):
                self._create_missing(world, gvr, workload, [])
                pods = world.owned().get(_meta(workload).get("uid"), [])
            targets = [p for p in pods if _active(p)] or pods
        for pod in sorted(targets, key=_key):
            self._force_pod(world, world.pods[_key(pod)], phase, code, body.get("reason"), now)
        if workload is not None:
            self._force_workload(world, gvr, workload, phase, now)
        else:
            self._refresh_owner(world, targets[0], now)
        return {"kind": "List", "apiVersion": "v1",
                "items": [world.pods[_key(p)] for p in sorted(targets, key=_key)
                          if _key(p) in world.pods]}

    def _find_workload(self, world, ns, name):
        for gvr in WORKLOADS:
            for g, wl in world.workloads:
                if g == gvr and _key(wl) == (ns, name):
                    return gvr, wl
        raise not_found("runaijobs", name, "run.ai")

    def _force_pod(self, world, pod, phase, code, reason, now):
        if phase == "Pending":
            new = _clone(pod)
            new["metadata"].setdefault("annotations", {})[HOLD] = "true"
            new["metadata"]["annotations"].pop("runai-gpu", None)
            (new.get("spec") or {}).pop("nodeName", None)
            new["status"] = {"phase": "Pending"}
            _runai_pod_status(new, "Pending")
            self._running_since.pop(_meta(pod).get("uid"), None)
            self._write(world, PODS, new)
            return
        if _annotation(pod, HOLD):
            new = _clone(pod)
            new["metadata"]["annotations"].pop(HOLD)
            pod = self._write(world, PODS, new) or pod
        if phase == "Running":
            if _phase(pod) == "Running":
                return
            if not _node_name(pod):
                node, idx, _ = self._place(pod, self._node_states(world))
                if node is None:  # forced: any node will do
                    node, idx = (sorted(world.nodes) or ["node-1"])[0], None
                self._bind(world, pod, node, idx, now)
                pod = world.pods[_key(pod)]
            self._start(world, pod, now)
            return
        self._finish(world, pod, code, reason, now)

    def _refresh_owner(self, world, pod, now):
        """A forced pod's workload shows the change at once, not next step."""
        found = world.by_uid.get(_controller_uid(pod))
        if found is None:
            return
        gvr, wl = found
        current = self.store.get(gvr, *_key(wl))
        if current is not None:
            pods = world.owned().get(_meta(wl).get("uid"), [])
            new = self._workload_state(world, gvr, current, pods, now)
            if new != current:
                self._write(world, gvr, new)

    def _force_workload(self, world, gvr, wl, phase, now):
        """A workload forced to a final phase is final (no retries)."""
        current = self.store.get(gvr, *_key(wl))
        if current is None:
            return
        if phase in ("Succeeded", "Failed") and not _finished_workload(current):
            status = current.setdefault("status", {})
            conds = status.setdefault("conditions", [])
            if phase == "Succeeded":
                _set_condition(conds, "Complete", "True", now)
            else:
                _set_condition(conds, "Failed", "True", now, "BackoffLimitExceeded",
                               "Job has reached the specified backoff limit")
            status["completionTime"] = _rfc3339(now)
        pods = world.owned().get(_meta(wl).get("uid"), [])
        new = self._workload_state(world, gvr, current, pods, now)
        self._write(world, gvr, new)


# --- object builders ----------------------------------------------------------

def _suffix(n=5):
    return "".join(random.choice(_SUFFIX_CHARS) for _ in range(n))


def _template_scheduler(wl):
    return (((wl.get("spec") or {}).get("template") or {}).get("spec") or {}).get(
        "schedulerName")


def _finished_workload(wl):
    return _condition_true(wl, "Complete") or _condition_true(wl, "Failed")


def _pod_from_template(gvr, wl, world):
    meta = _meta(wl)
    name, ns, uid = meta.get("name"), meta.get("namespace"), meta.get("uid", "")
    tmpl = (wl.get("spec") or {}).get("template") or {}
    tmeta = tmpl.get("metadata") or {}
    labels = dict(tmeta.get("labels") or {})
    labels.update({"controller-uid": uid, "job-name": name})
    labels.setdefault("release", name)
    if gvr == JOBS:
        labels.update({"batch.kubernetes.io/controller-uid": uid,
                       "batch.kubernetes.io/job-name": name})
    project = world.ns_project.get(ns)
    if project:
        labels["project"] = project
    annotations = dict(tmeta.get("annotations") or {})
    annotations["pod-group-name"] = "pg-%s-%s" % (name, uid[:8])
    api_version = "run.ai/v1" if gvr == RUNAIJOBS else "batch/v1"
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "%s-%s" % (name, _suffix()), "namespace": ns,
                     "labels": labels, "annotations": annotations,
                     "ownerReferences": [{"apiVersion": api_version,
                                          "kind": wl.get("kind") or (
                                              "RunaiJob" if gvr == RUNAIJOBS else "Job"),
                                          "name": name, "uid": uid, "controller": True,
                                          "blockOwnerDeletion": True}]},
        "spec": _clone(tmpl.get("spec") or {}),
        "status": {"phase": "Pending"},
    }


def _runai_pod_status(pod, phase):
    if (pod.get("spec") or {}).get("schedulerName") == RUNAI_SCHEDULER:
        pod["metadata"].setdefault("annotations", {})["runai-calculated-status"] = phase


def _qos(pod):
    """BestEffort without cpu/memory requests or limits; Guaranteed when
    every container's limits are set and equal its requests."""
    containers = (pod.get("spec") or {}).get("containers") or []
    any_set, guaranteed = False, bool(containers)
    for c in containers:
        res = c.get("resources") or {}
        limits, requests = res.get("limits") or {}, res.get("requests") or {}
        for r in ("cpu", "memory"):
            if r in limits or r in requests:
                any_set = True
            if r not in limits or requests.get(r, limits.get(r)) != limits.get(r):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def _image_id(image):
    return "%s@sha256:%s" % (image.split(":")[0], hashlib.sha256(image.encode()).hexdigest())


def _running_status(container, now):
    return {"name": container.get("name"), "image": container.get("image", ""),
            "imageID": _image_id(container.get("image", "")),
            "containerID": "containerd://%064x" % random.getrandbits(256),
            "ready": True, "started": True, "restartCount": 0,
            "state": {"running": {"startedAt": _rfc3339(now)}}}


def _terminated_status(container, old, code, reason, now):
    old = old or {}
    started = ((old.get("state") or {}).get("running") or {}).get("startedAt") or _rfc3339(now)
    cid = old.get("containerID") or "containerd://%064x" % random.getrandbits(256)
    return {"name": container.get("name"), "image": container.get("image", ""),
            "imageID": old.get("imageID") or _image_id(container.get("image", "")),
            "containerID": cid, "ready": False, "started": False, "restartCount": 0,
            "state": {"terminated": {"exitCode": code, "reason": reason, "startedAt": started,
                                     "finishedAt": _rfc3339(now), "containerID": cid}}}


def _scheduler_annotations(wl, pods, suspended, world):
    """The annotations Run:ai's scheduler keeps on a workload, which
    `runai list` and `describe` read (runai-cli-contract §2.3, §3.2).
    GPU counts are fractions of a GPU also for gpu-memory requests (the
    share of the GPU of the node each pod is on); the *-gpus-memory ones,
    in MB, are kept for workloads that ask by memory."""
    ann = wl["metadata"].setdefault("annotations", {})
    active = [p for p in pods if _active(p)]
    running = [p for p in active if _phase(p) == "Running"]
    pending = [p for p in active if _phase(p) == "Pending"]
    bound = [p for p in active if _node_name(p)]
    if suspended:
        status = "Suspended"
    elif _condition_true(wl, "Complete"):
        status = "Succeeded"
    elif _condition_true(wl, "Failed"):
        status = "Failed"
    elif running:
        status = "Running"
    else:
        status = "Pending"
    tmpl = (wl.get("spec") or {}).get("template") or {}
    tmpl_pod = {"metadata": tmpl.get("metadata") or {}, "spec": tmpl.get("spec") or {}}
    per_pod = _gpus(tmpl_pod, world.gpu_memory_of(bound[0]) if bound
                    else world.pending_gpu_memory)
    parallelism = int(_number((wl.get("spec") or {}).get("parallelism"), 1))
    ann.update({
        "runai-calculated-status": status,
        "runai-running-pods": str(len(running)),
        "runai-pending-pods": str(len(pending)),
        "runai-current-allocated-gpus": fmt_gpus(sum(world.gpus_of(p) for p in bound)),
        "runai-current-requested-gpus": fmt_gpus(sum(world.gpus_of(p) for p in active)),
        "runai-podgroup-requested-gpus": fmt_gpus(per_pod * parallelism),
        "runai-total-requested-gpus": fmt_gpus(per_pod * parallelism),
    })
    mb = _gpu_memory_request(tmpl_pod)
    if mb is not None:
        ann.update({
            "runai-current-allocated-gpus-memory": str(
                sum(_gpu_memory_request(p) or 0 for p in bound)),
            "runai-podgroup-requested-gpus-memory": str(mb * parallelism),
            "runai-total-requested-gpus-memory": str(mb * parallelism),
        })
    nodes = sorted({_node_name(p) for p in bound})
    if nodes:
        ann["runai-used-nodes"] = ", ".join(nodes)  # kept after the pods end
    if any(_condition(p, "PodScheduled") and _condition(p, "PodScheduled").get("reason") ==
           "Unschedulable" and not _node_name(p) for p in pending):
        ann["unschedulable"] = "true"
    else:
        ann.pop("unschedulable", None)


# --- /_sim routes -------------------------------------------------------------

def _tick(controller, body):
    steps = int((body or {}).get("steps", 1)) if isinstance(body or {}, dict) else 1
    if not 0 <= steps <= MAX_TICK_STEPS:
        raise bad_request("steps must be between 0 and %d" % MAX_TICK_STEPS)
    for _ in range(steps):
        controller.step()
    return {"steps": steps, "total": controller.steps, "paused": controller.paused}


def _set_controller(controller, body):
    if body is not None:
        if not isinstance(body, dict):
            raise bad_request('expected {"paused": true|false}')
        if "paused" in body:
            if not isinstance(body["paused"], bool):
                raise bad_request('"paused" must be true or false')
            controller.paused = body["paused"]
            if not controller.paused:
                controller._wake.set()
    return {"paused": controller.paused, "tick": controller.tick, "steps": controller.steps}


def register_sim_routes(sim):
    """POST /_sim/tick, POST /_sim/phase, GET|POST /_sim/controller."""
    def route(handler, method, path, body):
        controller = sim.controller
        path = path.rstrip("/")
        table = {
            ("POST", "/_sim/tick"): lambda: _tick(controller, body),
            ("POST", "/_sim/phase"): lambda: controller.force_phase(body),
            ("POST", "/_sim/controller"): lambda: _set_controller(controller, body),
            ("GET", "/_sim/controller"): lambda: _set_controller(controller, None),
        }
        fn = table.get((method, path))
        if fn is None or controller is None:
            return False
        try:
            result = fn()
        except ApiError as e:
            handler.send_api_error(e)
            return True
        except (TypeError, ValueError) as e:
            handler.send_api_error(bad_request(str(e)))
            return True
        handler.send_json(200, result)
        return True

    if getattr(sim, "sim_routes", None) is None:
        sim.sim_routes = []
    sim.sim_routes.append(route)
