"""The cluster as one controller step sees it, and what every part of the
runtime shares: `World` (a snapshot of pods, nodes, projects, workloads
and claims, taken once per step), the write and event helpers that keep
that snapshot current, `Part`, the base of the kubelet, scheduler,
volume, workload, training and service parts, and the Run:ai scheduler
annotations both kinds of workload controller write.

The parts read one snapshot and write through the store, so they agree on
the cluster within a step; this module is the ground they stand on, and it
imports none of them.
"""

import traceback

from kubesim.errors import ApiError
from kubesim.gpus import DEFAULT_GPU_MEMORY_MIB, GPU, fmt_gpus, node_gpu_memory, pod_gpus
from kubesim.objutil import (CLAIMS, LEADERWORKERSETS, NAMESPACES, NODES, PODS, PREEMPTED,
                             PROJECTS, RUNAI_SCHEDULER, STORAGECLASSES, TRAINING, WORKLOADS,
                             condition_of, condition_true, controller_uid, is_active, key_of,
                             label_of, meta_of, node_name_of, number, phase_of)


def stored(store, gvr):
    """Stored objects (refs when the store offers them: no copies of
    thousands of objects per step); [] when the kind isn't served."""
    try:
        fn = getattr(store, "select", None)
        return list(fn(gvr)) if fn is not None else store.list(gvr)
    except ApiError:
        return []


class World:
    def __init__(self, store):
        self.pods = {key_of(p): p for p in stored(store, PODS)}
        self.nodes = {meta_of(n).get("name"): n for n in stored(store, NODES)}
        self.ns_project = {}
        for ns in stored(store, NAMESPACES):
            project = label_of(ns, "runai/queue")
            if project:
                self.ns_project[meta_of(ns).get("name")] = project
        self.deserved = {meta_of(p).get("name"): number((p.get("spec") or {}).get("deservedGpus"),
                                                         None)
                         for p in stored(store, PROJECTS)}
        self.workloads = [(gvr, w) for gvr in WORKLOADS for w in stored(store, gvr)]
        # distributed training jobs: owners of pods (gangs), not batch workloads
        self.training = [(gvr, w) for gvr in TRAINING for w in stored(store, gvr)]
        # groups of a leader and its workers: owners of pods too
        self.leader_worker_sets = [(LEADERWORKERSETS, w)
                                   for w in stored(store, LEADERWORKERSETS)]
        self.by_uid = {meta_of(w).get("uid"): (gvr, w)
                       for gvr, w in self.workloads + self.training + self.leader_worker_sets}
        self.claims = {key_of(c): c for c in stored(store, CLAIMS)}
        self.classes = {meta_of(c).get("name"): c for c in stored(store, STORAGECLASSES)}
        gpu_nodes = [n for n in self.nodes.values()
                     if number(((n.get("status") or {}).get("allocatable") or {}).get(GPU),
                               0.0) >= 1]
        # a pod not yet on a node: counted against the smallest GPU it may get
        self.pending_gpu_memory = min((node_gpu_memory(n) for n in gpu_nodes),
                                      default=float(DEFAULT_GPU_MEMORY_MIB))

    def gpu_memory_of(self, pod):
        """MiB per GPU where the pod is (or, unbound, may be) placed."""
        node = self.nodes.get(node_name_of(pod))
        return node_gpu_memory(node) if node is not None else self.pending_gpu_memory

    def gpus_of(self, pod):
        """GPUs a pod takes, a gpu-memory request as a share of its GPU."""
        return pod_gpus(pod, self.gpu_memory_of(pod))

    def claim_of(self, pod, name):
        return self.claims.get((key_of(pod)[0], name))

    def owned(self):
        """workload uid -> its pods (by controller ownerReference)."""
        out = {}
        for pod in self.pods.values():
            uid = controller_uid(pod)
            if uid:
                out.setdefault(uid, []).append(pod)
        return out

    def live(self, workloads):
        """(gvr, workload, its pods) for those of `workloads` ([(gvr, obj)])
        not being deleted."""
        owned = self.owned()
        for gvr, wl in workloads:
            if not meta_of(wl).get("deletionTimestamp"):
                yield gvr, wl, owned.get(meta_of(wl).get("uid"), [])

    @staticmethod
    def fingerprint(wl, pods):
        """What a workload's reconciliation depends on, cheaply compared."""
        return (meta_of(wl).get("resourceVersion"),
                tuple(sorted((meta_of(p).get("name"), meta_of(p).get("resourceVersion"))
                             for p in pods)))

    def owner(self, pod):
        found = self.by_uid.get(controller_uid(pod))
        return found[1] if found else None


# --- writes and events --------------------------------------------------------

def store_write(store, world, gvr, obj):
    """Updates an object; a pod written is current in `world` at once. A
    refused write is printed and answers None: the next step tries again."""
    ns, name = key_of(obj)
    try:
        out = store.update(gvr, ns, obj)
    except ApiError:
        traceback.print_exc()
        return None
    if gvr == PODS:
        world.pods[(ns, name)] = out
    return out


def emit_event(store, obj, reason, message, type_="Normal", component=RUNAI_SCHEDULER):
    ns = meta_of(obj).get("namespace") or "default"
    try:
        store.add_event(ns, obj, reason, message, type_, component=component)
    except TypeError:  # a store without the component argument
        store.add_event(ns, obj, reason, message, type_)


class Part:
    """One part of the runtime, run by the controller within its step.

    `runtime` is the controller: it gives the store, the sim, the step
    count, and takes `timed = True` when a part has work that waits on the
    clock (so the next step is not skipped as idle). A part keeps its own
    memory per object uid and drops it in `forget` when the object goes."""

    def __init__(self, runtime):
        self.runtime = runtime
        self.store = runtime.store

    @property
    def sim(self):
        return self.runtime.sim

    def waits_on_clock(self):
        self.runtime.timed = True

    def write(self, world, gvr, obj):
        return store_write(self.store, world, gvr, obj)

    def event(self, obj, reason, message, type_="Normal", component=RUNAI_SCHEDULER):
        emit_event(self.store, obj, reason, message, type_, component)

    def forget(self, uid):
        """Drops what this part remembers about a deleted object."""


# --- Run:ai scheduler annotations ---------------------------------------------

def runai_annotations(wl, pods, world, suspended, requested, extra=None,
                      done="Complete"):
    """Writes the annotations Run:ai's scheduler keeps on a workload
    (any kind: RunaiJobs and Jobs here, the training operator's jobs in
    training.py) from its pods: the calculated status (`done` is the
    workload's success condition), running and pending pods, GPUs
    (`requested` in all), used nodes, and whether it waits for GPUs;
    `extra` annotations go right after the GPU ones."""
    ann = wl["metadata"].setdefault("annotations", {})
    active = [p for p in pods if is_active(p)]
    running = [p for p in active if phase_of(p) == "Running"]
    pending = [p for p in active if phase_of(p) == "Pending"]
    bound = [p for p in active if node_name_of(p)]
    if suspended:
        status = "Suspended"
    elif condition_true(wl, done):
        status = "Succeeded"
    elif condition_true(wl, "Failed"):
        status = "Failed"
    elif running:
        status = "Running"
    else:
        status = "Pending"
    ann.update({
        "runai-calculated-status": status,
        "runai-running-pods": str(len(running)),
        "runai-pending-pods": str(len(pending)),
        "runai-current-allocated-gpus": fmt_gpus(sum(world.gpus_of(p) for p in bound)),
        "runai-current-requested-gpus": fmt_gpus(sum(world.gpus_of(p) for p in active)),
        "runai-podgroup-requested-gpus": fmt_gpus(requested),
        "runai-total-requested-gpus": fmt_gpus(requested),
    })
    ann.update(extra or {})
    nodes = sorted({node_name_of(p) for p in bound})
    if nodes:
        ann["runai-used-nodes"] = ", ".join(nodes)  # kept after the pods end
    if running or suspended or status != "Pending":
        ann.pop(PREEMPTED, None)      # preempted, then placed again (or ended)
    if ann.get(PREEMPTED):
        ann.pop("unschedulable", None)  # it waits for its GPUs back: Pending
    elif any(condition_of(p, "PodScheduled") and condition_of(p, "PodScheduled").get("reason") ==
             "Unschedulable" and not node_name_of(p) for p in pending):
        ann["unschedulable"] = "true"
    else:
        ann.pop("unschedulable", None)
