"""The GPU scheduler part: each step it builds the fair-share planner's
inputs from the cluster snapshot (node states, projects' deserved GPUs,
running and pending jobs: a workload's pods form one gang, each group
of a LeaderWorkerSet one of its own), asks
`fairshare.decide`, and applies the answer: preempted pods are deleted
with a `Preempted` event (their workload makes them again, Pending),
placed pods are bound (a shared GPU's index in annotation runai-gpu),
and the others get PodScheduled=False with reason Unschedulable and the
scheduler's words, numbers included (the quota, the fair share, the
gang's room, kube's per-node summary, the most free GPUs on one node):
a Warning event on each pod and a Normal one on its workload (where
Run:ai's scheduler tells the pod group) per new message.

Node fit is placement.py's, the fair-share rules fairshare.py's (see
FAIRSHARE.md); this module only reads and writes the cluster. GPU use is
recomputed from the pods every step, so a deleted workload frees its
GPUs for the next one.
"""

from kubesim import fairshare
from kubesim.cluster import Part
from kubesim.errors import ApiError
from kubesim.objutil import (HOLD, LWS_GROUP_INDEX, PODS, PREEMPTED, RUNAI_SCHEDULER,
                             annotation_of, bound_active, clone, condition_of, controller_uid,
                             key_of, label_of, meta_of, node_name_of, phase_of, set_condition)
from kubesim.placement import NodeState, node_states, place  # noqa: F401  (the controller's)
from kubesim.volumes import claims_problem


def project_use(world):
    """project -> GPUs its bound, unfinished pods take."""
    use = {}
    for pod in world.pods.values():
        project = world.ns_project.get(key_of(pod)[0])
        if project and bound_active(pod):
            use[project] = use.get(project, 0.0) + world.gpus_of(pod)
    return use


def priority_class(world, pod):
    """Run:ai's class of the pod's workload (label priorityClassName):
    `build` (interactive) is not preemptible and stays within quota;
    training (none) and `interactive-preemptible` may borrow over quota."""
    owner = world.owner(pod)
    cls = label_of(owner, "priorityClassName") if owner is not None else None
    return cls or label_of(pod, "priorityClassName")


def fair_share_projects(world):
    """project -> deserved GPUs, for the projects with a Project object
    and a namespace (work elsewhere is outside fair share)."""
    with_ns = set(world.ns_project.values())
    return {p: (d or 0.0) for p, d in world.deserved.items() if p in with_ns}


def gang_of(pod):
    """The key of the gang a pod is placed with: its workload, or its
    group within a LeaderWorkerSet (a group serves on its own: one placed
    while another waits is of use); a pod of no workload alone."""
    uid = controller_uid(pod)
    if not uid:
        return key_of(pod)
    group = label_of(pod, LWS_GROUP_INDEX)
    return uid if group is None else (uid, group)


def jobs_of(world, pods, running, deserved):
    """Pods grouped into fair-share jobs, by gang (gang_of)."""
    groups = {}
    for pod in pods:
        groups.setdefault(gang_of(pod), []).append(pod)
    jobs = []
    for key, group in groups.items():
        group.sort(key=key_of)
        first = group[0]
        project = world.ns_project.get(key_of(first)[0])
        owner = world.owner(first)
        cls = priority_class(world, first)
        jobs.append(fairshare.Job(
            key, project if project in deserved else None, group,
            sum(world.gpus_of(p) for p in group), preemptible=cls != "build",
            priority=fairshare.PRIORITY.get(cls, fairshare.PRIORITY["train"]),
            created="%s %s/%s" % (meta_of(owner if owner is not None else first).get(
                "creationTimestamp") or "", *key_of(owner if owner is not None else first)),
            running=running, owned=owner is not None,
            name=meta_of(owner if owner is not None else first).get("name")))
    return jobs


class Scheduler(Part):
    """Binds the pending pods it can place; marks the others Unschedulable."""

    def __init__(self, runtime):
        super().__init__(runtime)
        self._unsched_msg = {}          # pod uid -> last Unschedulable message
        self._told_workload = {}        # workload uid -> the last one it was told

    def forget(self, uid):
        self._unsched_msg.pop(uid, None)
        self._told_workload.pop(uid, None)

    def schedule(self, world, now):
        waiting = [p for p in world.pods.values()
                   if phase_of(p) == "Pending" and not node_name_of(p)
                   and not annotation_of(p, HOLD) and not meta_of(p).get("deletionTimestamp")]
        if not waiting:
            return
        deserved = fair_share_projects(world)
        pending = []
        for job in jobs_of(world, waiting, False, deserved):
            why = next((w for w in (claims_problem(world, p) for p in job.pods) if w), None)
            if why:
                why = "0/%d nodes are available: %s." % (len(world.nodes), why)
                for pod in job.pods:
                    self._unschedulable(world, pod, why, now)
                self._tell_workload(world, job, why)
            else:
                pending.append(job)
        if not pending:
            return
        bound = [p for p in world.pods.values()
                 if bound_active(p) and not meta_of(p).get("deletionTimestamp")]
        decision = fairshare.decide(node_states(world), deserved,
                                    jobs_of(world, bound, True, deserved) + pending)
        for victim, job, why in decision.preemptions:
            self.preempt(world, victim, job.project, why)
        for job, placed in decision.placements:
            for pod, node, idx in placed:
                self.bind(world, pod, node, idx, now)
        for job, why in decision.waiting:
            for pod in job.pods:
                self._unschedulable(world, pod, why, now)
            self._tell_workload(world, job, why)

    def _tell_workload(self, world, job, why):
        """The workload of a waiting job hears why, once per new message."""
        owner = world.owner(job.pods[0])
        uid = meta_of(owner).get("uid") if owner is not None else None
        if uid is None or self._told_workload.get(uid) == why:
            return
        self._told_workload[uid] = why
        self.event(owner, "Unschedulable", why)

    def preempt(self, world, victim, by, why):
        """A preempted job's pods go (their workload makes them again, to
        wait as Pending); the workload and each pod get the event, and the
        workload the PREEMPTED annotation until it runs again."""
        found = world.by_uid.get(controller_uid(victim.pods[0]))
        if found is not None:
            gvr, owner = found
            self.event(owner, "Preempted", why, "Warning")
            current = self.store.get(gvr, *key_of(owner))
            if current is not None:
                current["metadata"].setdefault("annotations", {})[PREEMPTED] = by
                self.write(world, gvr, current)
        for pod in victim.pods:
            self.event(pod, "Preempted", why, "Warning")
            ns, name = key_of(pod)
            try:
                self.store.delete(PODS, ns, name)
            except ApiError:  # already gone: nothing to free
                pass
            world.pods.pop((ns, name), None)

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
        owner = world.owner(out)
        if owner is not None:  # placed: a later wait is news again
            self._told_workload.pop(meta_of(owner).get("uid"), None)
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
