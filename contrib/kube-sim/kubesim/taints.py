"""Taints and tolerations: whether a pod tolerates a node's taints, and the
taint manager, which deletes the pods that do not tolerate a NoExecute
taint of their node (at once, or after the smallest matching
tolerationSeconds, counted from when the taint was first seen).

The matching rules are shared by the scheduler (NoSchedule and NoExecute
keep pods off a node) and the taint manager (NoExecute evicts), so they
live apart from both.
"""

from kubesim.cluster import Part
from kubesim.objutil import PODS, meta_of, node_name_of, number, phase_of


def tolerates(tol, taint):
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


def untolerated(pod, taints, effects):
    """The first of `taints` with one of `effects` the pod does not
    tolerate, or None."""
    tols = (pod.get("spec") or {}).get("tolerations") or []
    for taint in taints:
        if taint.get("effect") in effects and not any(tolerates(t, taint) for t in tols):
            return taint
    return None


def toleration_seconds(pod, taints):
    """How long the pod may stay on a node with these NoExecute taints:
    0 when one is not tolerated, None for ever, else the smallest
    tolerationSeconds of the tolerations used (the taint manager's
    getMinTolerationTime)."""
    tols = (pod.get("spec") or {}).get("tolerations") or []
    used = []
    for taint in taints:
        if taint.get("effect") != "NoExecute":
            continue
        matching = [t for t in tols if tolerates(t, taint)]
        if not matching:
            return 0
        used.extend(matching)
    secs = [number(t.get("tolerationSeconds"), 0) for t in used
            if t.get("tolerationSeconds") is not None]
    return max(min(secs), 0) if secs else None


class TaintManager(Part):
    """NoExecute: evicts the pods that may no longer stay on their node."""

    def __init__(self, runtime):
        super().__init__(runtime)
        self._tainted_since = {}        # pod uid -> when a NoExecute taint was first seen

    def forget(self, uid):
        self._tainted_since.pop(uid, None)

    def evict_tainted(self, world, now):
        """Deletes the pods that do not tolerate their node's NoExecute
        taints (at once, or when their tolerationSeconds are up). Pods that
        have finished are left alone: the job controller counts them."""
        for key, pod in sorted(world.pods.items()):
            uid = meta_of(pod).get("uid")
            node = world.nodes.get(node_name_of(pod)) if node_name_of(pod) else None
            taints = [t for t in ((node or {}).get("spec") or {}).get("taints") or []
                      if isinstance(t, dict) and t.get("effect") == "NoExecute"]
            if not taints or phase_of(pod) in ("Succeeded", "Failed") or \
                    meta_of(pod).get("deletionTimestamp"):
                self._tainted_since.pop(uid, None)
                continue
            secs = toleration_seconds(pod, taints)
            if secs is None:
                self._tainted_since.pop(uid, None)
                continue
            since = self._tainted_since.setdefault(uid, now)
            if now < since + secs:
                self.waits_on_clock()
                continue
            ns, name = key
            self.event(pod, "TaintManagerEviction", "Marking for deletion Pod %s/%s"
                       % (ns, name), component="taint-eviction-controller")
            self.store.delete(PODS, ns, name)
            world.pods.pop(key, None)
