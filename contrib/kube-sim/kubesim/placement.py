"""Node fit and GPU placement, pure: which node (and which shared GPU) a
pod can go to, given the GPUs the bound pods already hold, and kube's
words for why it can go nowhere.

The GPU scheduler (scheduler.py) and the fair-share planner
(fairshare.py) both ask these questions, the planner also on trial
copies with some pods taken away; keeping them here lets both import
them without importing each other.
"""

from kubesim.gpus import EPS, GPU, gpu_memory_request, gpu_request, node_gpu_memory
from kubesim.objutil import annotation_of, bound_active, meta_of, node_name_of, number
from kubesim.taints import untolerated


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

    def usable(self):
        """Takes new pods at all: ready and not cordoned."""
        return self.ready and not self.cordoned

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

    def give_back(self, whole, frac, idx=None):
        """Undoes `take`: a pod preempted (on a trial copy) frees its GPUs."""
        if frac and idx in self.shared:
            left = self.shared[idx] - frac
            if left > EPS:
                self.shared[idx] = left
            else:
                del self.shared[idx]
        elif not frac:
            self.whole = max(0.0, self.whole - whole)

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


def most_free(pod, states):
    """(GPUs, node name) of the most GPUs one node has free for this pod:
    whole free GPUs, or for a fraction the most room left on one GPU;
    only nodes that take it but for their GPUs count. None when no node
    would take it at all, or it asks for no GPUs."""
    best = None
    for name in sorted(states):
        st = states[name]
        whole, frac = gpu_request(pod, st.gpu_memory)
        if not (whole or frac) or st.why_not(pod, 0, 0) is not None:
            continue
        free = st.free_whole()
        if frac and free < 1 - EPS:
            free = max([1 - used for used in st.shared.values()] or [0.0])
        free = max(free, 0.0)
        if best is None or free > best[0] + EPS:
            best = (free, name)
    return best


def pod_slot(pod, states):
    """(NodeState, whole, fraction, GPU index) of a bound pod, or None."""
    st = states.get(node_name_of(pod))
    if st is None:
        return None
    whole, frac = gpu_request(pod, st.gpu_memory)
    idx = annotation_of(pod, "runai-gpu")
    return st, whole, frac, (int(number(idx, 0)) if idx is not None and frac else None)


def release(pod, states):
    """Frees a bound pod's GPUs on `states` (a trial copy)."""
    slot = pod_slot(pod, states)
    if slot is not None:
        st, whole, frac, idx = slot
        st.give_back(whole, frac, idx)


def copy_states(states):
    return {n: s.copy() for n, s in states.items()}
