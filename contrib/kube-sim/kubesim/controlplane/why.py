"""Why a workload waits or stopped, as the control plane tells it: the
workload's phaseMessage, phaseReason and conditions, and the detailed
view's pendingSchedulingMessages, read from its cluster objects each
time (the scheduler's PodScheduled condition on a waiting pod, the
Preempted event of a workload waiting for its GPUs back, a container
that cannot pull its image, the exit of the container that failed).

Only what each release's document knows is given: phaseReason and
pendingSchedulingMessages appeared in 2.21, and the latter names only
the reasons of its enum (NonPreemptibleOverQuota, OverLimit)."""

from kubesim.objutil import PREEMPTED, annotation_of, condition_of, meta_of, phase_of

OVER_QUOTA = "Non-preemptible workload is over quota"
PULL_FAILING = ("ErrImagePull", "ImagePullBackOff")


def _since(profile, version):
    return tuple(map(int, profile["version"].split("."))) >= \
        tuple(map(int, version.split(".")))


def _condition(ctype, status, reason, message, at):
    out = {"type": ctype, "status": status, "reason": reason, "message": message}
    if at:
        out["lastTransitionTime"] = at
    return out


def _preempted(state, wl, job):
    """The latest Preempted event about the workload, if it waits for
    the GPUs that were taken back (its cluster object says so)."""
    if job is None or not annotation_of(job, PREEMPTED):
        return None
    events = [e for e in state.events(wl) if e.get("reason") == "Preempted" and
              (e.get("involvedObject") or {}).get("name") == wl.name]
    events.sort(key=lambda e: e.get("lastTimestamp") or "")
    return events[-1] if events else None


def _waiting_pod_condition(pods):
    for p in sorted(pods, key=lambda p: meta_of(p).get("name", "")):
        c = condition_of(p, "PodScheduled")
        if c and c.get("status") == "False" and not (p.get("spec") or {}).get("nodeName"):
            return c
    return None


def _pull_failing(pods):
    for p in sorted(pods, key=lambda p: meta_of(p).get("name", "")):
        for cs in (p.get("status") or {}).get("containerStatuses") or []:
            w = (cs.get("state") or {}).get("waiting") or {}
            if w.get("reason") in PULL_FAILING:
                return w
    return None


def _failed_exit(pods):
    """(pod, container status) of the container that ended the workload."""
    # the newest first; pods made in the same second by name, the last first
    for p in sorted(pods, key=lambda p: (meta_of(p).get("creationTimestamp") or "",
                                         meta_of(p).get("name") or ""), reverse=True):
        if phase_of(p) != "Failed":
            continue
        for cs in (p.get("status") or {}).get("containerStatuses") or []:
            if ((cs.get("state") or {}).get("terminated") or {}).get("exitCode"):
                return p, cs
    return None


def _pending(state, wl, job, pods, out):
    ev = _preempted(state, wl, job)
    if ev is not None:
        out["phaseMessage"] = ev.get("message") or ""
        out["conditions"].append(_condition("Preempted", "True", "Preempted",
                                            out["phaseMessage"], ev.get("lastTimestamp")))
    cond = _waiting_pod_condition(pods)
    if cond is None:
        return
    msg = cond.get("message") or ""
    out.setdefault("phaseMessage", msg)
    out["conditions"].append(_condition("PodScheduled", "False",
                                        cond.get("reason") or "Unschedulable", msg,
                                        cond.get("lastTransitionTime")))
    if msg.startswith(OVER_QUOTA):
        out["phaseReason"] = "NonPreemptibleOverQuota"


def _failed(job, pods, out):
    ended = _failed_exit(pods)
    if ended is not None:
        p, cs = ended
        t = cs["state"]["terminated"]
        out["phaseMessage"] = "Pod %s: container %s exited with code %s (%s)" % (
            meta_of(p).get("name"), cs.get("name"), t.get("exitCode"),
            t.get("reason") or "Error")
    c = condition_of(job or {}, "Failed")
    if c is not None:
        out["conditions"].append(_condition("Failed", "True", c.get("reason") or "Failed",
                                            c.get("message") or "",
                                            c.get("lastTransitionTime")))


def fields(state, profile, wl, phase, detailed):
    """The workload's phaseMessage, phaseReason and conditions (and, in
    detail, pendingSchedulingMessages) for its phase now."""
    job, pods = state.kube_object(wl), state.pods(wl)
    out = {"conditions": []}
    if phase in ("Creating", "Pending", "Resuming"):
        _pending(state, wl, job, pods, out)
    elif phase == "Initializing":
        w = _pull_failing(pods)
        if w is not None:
            out["phaseMessage"] = w.get("message") or w.get("reason")
            out["conditions"].append(_condition("ContainersReady", "False", w.get("reason"),
                                                out["phaseMessage"], None))
    elif phase == "Failed":
        _failed(job, pods, out)
    reason = out.pop("phaseReason", None)
    if _since(profile, "2.21"):
        if reason:
            out["phaseReason"] = reason
        if detailed:
            out["pendingSchedulingMessages"] = [
                {"nodePool": "default", "phaseReason": reason,
                 "reason": out.get("phaseMessage", "")}] if reason else []
    return out
