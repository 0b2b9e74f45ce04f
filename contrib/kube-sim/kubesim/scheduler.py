"""The GPU scheduler: places pending pods on nodes and binds them.

It decides by whole GPUs (limits nvidia.com/gpu) and fractions (annotation
gpu-fraction, or gpu-memory in MB as a share of the node GPU's memory;
packed onto shared GPUs and recorded as annotation runai-gpu), node
readiness, cordons, taints, node selectors, the pod's claims, and project
quota for non-preemptible interactive work. A workload's pods are placed
all together or not at all (Run:ai's gang scheduling). A pod that cannot
go anywhere gets PodScheduled=False with kube's wording, and one event
per new reason.

`NodeState`, `node_states` and `place` are pure: they take a snapshot and
answer, so the fit decisions can be exercised without a server. GPU use
is recomputed from the pods every step, so a deleted workload frees its
GPUs for the next one.
"""

from kubesim.cluster import Part
from kubesim.gpus import (EPS, GPU, fmt_gpus, gpu_memory_request, gpu_request, node_gpu_memory,
                          pod_gpus)
from kubesim.objutil import (HOLD, PODS, RUNAI_SCHEDULER, annotation_of, bound_active, clone,
                             condition_of, controller_uid, key_of, label_of, meta_of,
                             node_name_of, number, phase_of, set_condition)
from kubesim.taints import untolerated
from kubesim.volumes import claims_problem


class NodeState:
    """GPU bookkeeping of one node: whole GPUs in use, and the shared GPUs
    (by index) with the fraction of each that is taken."""

    def __init__(self, node):
        meta, spec, status = meta_of(node), node.get("spec") or {}, node.get("status") or {}
        self.name = meta.get("name")
        self.labels = meta.get("labels") or {}
        self.ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                         for c in status.get("conditions") or [])
        self.cordoned = bool(spec.get("unschedulable"))
        self.taints = [t for t in spec.get("taints") or [] if isinstance(t, dict)]
        alloc = status.get("allocatable") or status.get("capacity") or {}
        self.gpus = number(alloc.get(GPU), 0.0)
        self.gpu_memory = node_gpu_memory(node)
        self.whole = 0.0
        self.shared = {}

    def copy(self):
        c = NodeState.__new__(NodeState)
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
        taint = untolerated(pod, self.taints, ("NoSchedule", "NoExecute"))
        if taint is not None:
            return "node(s) had untolerated taint {%s: %s}" % (taint.get("key", ""),
                                                                taint.get("value", ""))
        selector = (pod.get("spec") or {}).get("nodeSelector") or {}
        if any(self.labels.get(k) != v for k, v in selector.items()):
            return "node(s) didn't match Pod's node affinity/selector"
        mb = gpu_memory_request(pod)
        if mb is not None and self.gpus >= 1 and mb > self.gpu_memory + EPS:
            return ("node(s) had GPUs with less memory than the %d MB requested (gpu-memory)"
                    % mb)
        if frac and self.shared_slot(frac) is None and self.new_slot() is None:
            return "Insufficient " + GPU
        if whole and self.free_whole() < whole - EPS:
            return "Insufficient " + GPU
        return None


def node_states(world):
    """name -> NodeState, with the GPUs of the bound, unfinished pods taken."""
    states = {name: NodeState(node) for name, node in world.nodes.items()}
    # pods with a GPU index first, so unindexed fractions pack around them
    bound = [p for p in world.pods.values() if bound_active(p)]
    bound.sort(key=lambda p: annotation_of(p, "runai-gpu") is None)
    for pod in bound:
        st = states.get(node_name_of(pod))
        if st is None:
            continue
        whole, frac = gpu_request(pod, st.gpu_memory)
        idx = annotation_of(pod, "runai-gpu")
        st.take(whole, frac, int(number(idx, 0)) if idx is not None and frac else None)
    return states


def project_use(world):
    """project -> GPUs its bound, unfinished pods take."""
    use = {}
    for pod in world.pods.values():
        project = world.ns_project.get(key_of(pod)[0])
        if project and bound_active(pod):
            use[project] = use.get(project, 0.0) + world.gpus_of(pod)
    return use


def non_preemptible(world, pod):
    """Interactive (`build`) work must stay within quota; training and
    interactive-preemptible work may borrow idle GPUs over quota."""
    owner = world.owner(pod)
    cls = label_of(owner, "priorityClassName") if owner is not None else None
    return (cls or label_of(pod, "priorityClassName")) == "build"


def place(pod, states):
    """Picks a node for one pod and takes its GPUs there (on `states`):
    returns (node name, GPU index or None, None), or (None, None, why)."""
    reasons = {}
    names = sorted(states)
    asks = {name: gpu_request(pod, states[name].gpu_memory) for name in names}
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


def place_group(world, group, states, use):
    """Places every pod of a group (tentatively, on `states`): returns
    ([(pod, node, gpu index)], None) or (None, why)."""
    ns = key_of(group[0])[0]
    project = world.ns_project.get(ns)
    deserved = world.deserved.get(project) if project else None
    for pod in group:
        why = claims_problem(world, pod)
        if why:
            return None, "0/%d nodes are available: %s." % (len(world.nodes), why)
    asked = sum(world.gpus_of(p) for p in group)
    if deserved is not None and asked > 0 and non_preemptible(world, group[0]) \
            and use.get(project, 0.0) + asked > deserved + EPS:
        return None, ("Non-preemptible workload is over quota: project %s has %s deserved "
                      "GPUs, %s allocated, and the workload requests %s more"
                      % (project, fmt_gpus(deserved), fmt_gpus(use.get(project, 0.0)),
                         fmt_gpus(asked)))
    placed = []
    for pod in group:
        node, idx, why = place(pod, states)
        if node is None:
            return None, why
        placed.append((pod, node, idx))
    return placed, None


class Scheduler(Part):
    """Binds the pending pods it can place; marks the others Unschedulable."""

    def __init__(self, runtime):
        super().__init__(runtime)
        self._unsched_msg = {}          # pod uid -> last Unschedulable message

    def forget(self, uid):
        self._unsched_msg.pop(uid, None)

    def schedule(self, world, now):
        waiting = [p for p in world.pods.values()
                   if phase_of(p) == "Pending" and not node_name_of(p)
                   and not annotation_of(p, HOLD) and not meta_of(p).get("deletionTimestamp")]
        if not waiting:
            return
        groups = {}
        for pod in waiting:
            groups.setdefault(controller_uid(pod) or key_of(pod), []).append(pod)
        order = sorted(groups.values(), key=lambda g: min(
            (meta_of(p).get("creationTimestamp") or "", key_of(p)) for p in g))
        states = node_states(world)
        use = project_use(world)
        for group in order:
            group.sort(key=key_of)
            trial = {n: s.copy() for n, s in states.items()}
            placed, why = place_group(world, group, trial, use)
            if placed is None:
                for pod in group:
                    self._unschedulable(world, pod, why, now)
                continue
            states = trial
            for pod, node, idx in placed:
                self.bind(world, pod, node, idx, now)
                project = world.ns_project.get(key_of(pod)[0])
                if project:
                    use[project] = use.get(project, 0.0) + pod_gpus(
                        pod, node_gpu_memory(world.nodes.get(node)))

    def bind(self, world, pod, node, idx, now):
        new = clone(pod)
        new.setdefault("spec", {})["nodeName"] = node
        if idx is not None:
            new["metadata"].setdefault("annotations", {})["runai-gpu"] = str(idx)
        conds = new.setdefault("status", {}).setdefault("conditions", [])
        set_condition(conds, "PodScheduled", "True", now)
        out = self.write(world, PODS, new)
        if out is None:
            return
        self._unsched_msg.pop(meta_of(out).get("uid"), None)
        ns, name = key_of(out)
        self.event(out, "Scheduled", "Successfully assigned %s/%s to %s" % (ns, name, node),
                   component=(out.get("spec") or {}).get("schedulerName") or RUNAI_SCHEDULER)

    def _unschedulable(self, world, pod, why, now):
        uid = meta_of(pod).get("uid")
        cond = condition_of(pod, "PodScheduled")
        if cond and cond.get("status") == "False" and cond.get("message") == why \
                and self._unsched_msg.get(uid) == why:
            return
        new = clone(pod)
        conds = new.setdefault("status", {}).setdefault("conditions", [])
        set_condition(conds, "PodScheduled", "False", now, "Unschedulable", why)
        out = self.write(world, PODS, new)
        if out is None:
            return
        if self._unsched_msg.get(uid) != why:
            self._unsched_msg[uid] = why
            self.event(out, "Unschedulable", why, "Warning",
                       component=(out.get("spec") or {}).get("schedulerName") or
                       RUNAI_SCHEDULER)
