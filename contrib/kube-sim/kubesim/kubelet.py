"""The kubelet: the pod runtime on the nodes.

A pod bound in an earlier step starts Running (pod and host IPs, QoS
class, conditions, container statuses, and kubelet's Pulled/Created/
Started events). A pod whose image the host can run and that names a
command runs it for real, in its sandbox (podproc.start_main): its output
is the pod's log and its exit status ends the pod. A Running pod whose
`kube-sim/duration` (seconds; on the pod, else on its workload's
template) has elapsed finishes with
`kube-sim/exit-code` (default 0): Succeeded, or Failed with terminated
container statuses, unless the pod's restartPolicy restarts it in place
(Always: on any exit; OnFailure: on a non-zero one). A restart is the
kubelet's: the pod stays Running, its containers wait in CrashLoopBackOff
with the exit as lastState, and start again after a back-off (none the
first time, then `kube-sim/restart-backoff` seconds, default 10, doubled
each time up to five minutes) with restartCount one higher. While they run, the pods this kubelet started print a
training-like log line every step into `sim.logs`.

An image from a registry under the reserved top-level domain .invalid
(RFC 2606: no such host can exist) cannot be pulled: the pod stays
Pending on its node, its container waiting in ErrImagePull, then
ImagePullBackOff, with kubelet's Failed and BackOff events.

It only reads placements (`spec.nodeName`) the scheduler wrote, and owns
nothing of it; the controller calls `start` and `finish` directly when a
test forces a phase.
"""

import hashlib
import random

from kubesim.cluster import Part
from kubesim.objutil import (DURATION, EXIT_CODE, HOLD, PODS, RESTART_BACKOFF, annotation_of,
                             clone, key_of, meta_of, node_name_of, number, parse_rfc3339,
                             phase_of, rfc3339, runai_pod_status, set_condition)

# Above this many log-printing pods, the per-step lines stop (benchmarks
# seed thousands of pods; their logs would only fill memory).
MAX_LOGGING_PODS = 256
# The kubelet's restart back-off: 10 s, doubled per restart, at most 5 min.
BACKOFF_SECONDS, BACKOFF_MAX = 10.0, 300.0


def qos_class(pod):
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


def image_id(image):
    return "%s@sha256:%s" % (image.split(":")[0], hashlib.sha256(image.encode()).hexdigest())


def running_status(container, now):
    return {"name": container.get("name"), "image": container.get("image", ""),
            "imageID": image_id(container.get("image", "")),
            "containerID": "containerd://%064x" % random.getrandbits(256),
            "ready": True, "started": True, "restartCount": 0,
            "state": {"running": {"startedAt": rfc3339(now)}}}


def terminated_status(container, old, code, reason, now):
    old = old or {}
    started = ((old.get("state") or {}).get("running") or {}).get("startedAt") or rfc3339(now)
    cid = old.get("containerID") or "containerd://%064x" % random.getrandbits(256)
    return {"name": container.get("name"), "image": container.get("image", ""),
            "imageID": old.get("imageID") or image_id(container.get("image", "")),
            "containerID": cid, "ready": False, "started": False, "restartCount": 0,
            "state": {"terminated": {"exitCode": code, "reason": reason, "startedAt": started,
                                     "finishedAt": rfc3339(now), "containerID": cid}}}


def restarts_in_place(pod, code):
    """Does the kubelet restart this pod's container after it exited
    with `code`, rather than end the pod?"""
    policy = (pod.get("spec") or {}).get("restartPolicy") or "Always"
    return policy == "Always" or (policy == "OnFailure" and code != 0)


def restart_count(pod):
    counts = [int(number(cs.get("restartCount"), 0))
              for cs in (pod.get("status") or {}).get("containerStatuses") or []]
    return max(counts) if counts else 0


def backing_off_status(container, old, code, reason, pod, delay, now):
    """A container that exited and is to be started again: terminated
    until the first restart (which comes at once), then waiting out the
    back-off with its exit as lastState."""
    last = terminated_status(container, old, code, reason, now)
    last["restartCount"] = int(number((old or {}).get("restartCount"), 0))
    if (old or {}).get("lastState"):
        last["lastState"] = old["lastState"]
    if delay <= 0:
        return last
    meta = meta_of(pod)
    return {"name": last["name"], "image": last["image"], "imageID": last["imageID"],
            "containerID": last["containerID"], "ready": False, "started": False,
            "restartCount": last["restartCount"],
            "lastState": {"terminated": last["state"]["terminated"]},
            "state": {"waiting": {
                "reason": "CrashLoopBackOff",
                "message": "back-off %ds restarting failed container=%s pod=%s_%s(%s)" % (
                    delay, last["name"], meta.get("name"), meta.get("namespace"),
                    meta.get("uid"))}}}


def unpullable(image):
    """An image whose registry is under .invalid: no pull can succeed.
    As docker reads a reference, the first part names a registry only
    with a dot or a port in it ("invalid/x" is Docker Hub's)."""
    first = (image or "").split("/", 1)
    if len(first) < 2 or not ("." in first[0] or ":" in first[0]):
        return False
    return first[0].split(":", 1)[0].rstrip(".").endswith(".invalid")


def pull_failing_status(container, waited):
    """A container whose image is not pulled: ErrImagePull the first
    time, ImagePullBackOff once kubelet has waited."""
    image = container.get("image", "")
    if waited:
        state = {"reason": "ImagePullBackOff",
                 "message": 'Back-off pulling image "%s"' % image}
    else:
        host = image.split("/", 1)[0]
        state = {"reason": "ErrImagePull",
                 "message": 'failed to pull and unpack image "%s": failed to resolve '
                            'reference "%s": dial tcp: lookup %s: no such host'
                            % (image, image, host)}
    return {"name": container.get("name"), "image": image, "imageID": "",
            "ready": False, "started": False, "restartCount": 0,
            "state": {"waiting": state}}


def host_ip(node):
    for addr in (node.get("status") or {}).get("addresses") or []:
        if addr.get("type") == "InternalIP":
            return addr.get("address")
    return "10.0.0.1"


class Kubelet(Part):
    def __init__(self, runtime):
        super().__init__(runtime)
        self._running_since = {}        # pod uid -> when it started Running
        self._printing = {}             # pod uid -> log lines printed (pods we run)
        self._durations = {}            # pod uid -> (resourceVersion, duration)
        self._ips = {}                  # node -> last host part handed out
        self._mains = {}                # pod uid -> podproc.MainProcess (real commands)
        self._backoff_until = {}        # pod uid -> when its containers start again

    def forget(self, uid):
        main = self._mains.pop(uid, None)
        if main is not None:
            main.kill()
        for table in (self._running_since, self._printing, self._durations,
                      self._backoff_until):
            table.pop(uid, None)

    def stopped(self, uid):
        """A pod forced back to Pending: its run time counts anew, and its
        command, if it runs one, is stopped."""
        self._running_since.pop(uid, None)
        self._backoff_until.pop(uid, None)
        main = self._mains.pop(uid, None)
        if main is not None:
            main.kill()

    def progress_pods(self, world, now):
        # a snapshot: pods the scheduler binds later in this step start in the next
        for key, pod in sorted(world.pods.items()):
            if meta_of(pod).get("deletionTimestamp"):
                continue
            phase = phase_of(pod)
            if phase == "Pending" and node_name_of(pod) and not annotation_of(pod, HOLD):
                if any(unpullable(c.get("image")) for c in
                       (pod.get("spec") or {}).get("containers") or []):
                    self.pull_fails(world, pod, now)
                else:
                    self.start(world, pod, now)
            elif phase == "Running" and not self._backing_off(world, pod, now):
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

    def start(self, world, pod, now):
        new = clone(pod)
        node = world.nodes.get(node_name_of(pod)) or {}
        status = new.setdefault("status", {})
        hip, pod_ip = host_ip(node), self._pod_ip(node_name_of(pod), world)
        status.update({"phase": "Running", "hostIP": hip, "hostIPs": [{"ip": hip}],
                       "podIP": pod_ip, "podIPs": [{"ip": pod_ip}], "qosClass": qos_class(pod)})
        status.setdefault("startTime", rfc3339(now))
        conds = status.setdefault("conditions", [])
        for ctype in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                      "PodScheduled"):
            set_condition(conds, ctype, "True", now)
        status["containerStatuses"] = [running_status(c, now) for c in
                                       (new.get("spec") or {}).get("containers") or []]
        runai_pod_status(new, "Running")
        out = self.write(world, PODS, new)
        if out is None:
            return
        uid = meta_of(out).get("uid")
        self._running_since[uid] = now
        self._printing.setdefault(uid, 0)
        self._start_main(out, uid)
        self._started_events(out)

    def pull_fails(self, world, pod, now):
        """The pod's images are not pulled: it stays Pending on its node,
        its containers waiting; each change once, with kubelet's events."""
        old = (pod.get("status") or {}).get("containerStatuses") or []
        waited = bool(old)  # tried once already: now it backs off
        if waited and all(((c.get("state") or {}).get("waiting") or {}).get("reason") ==
                          "ImagePullBackOff" for c in old):
            return
        new = clone(pod)
        node = world.nodes.get(node_name_of(pod)) or {}
        status = new.setdefault("status", {})
        status.update({"phase": "Pending", "hostIP": host_ip(node), "qosClass": qos_class(pod)})
        status.setdefault("startTime", rfc3339(now))
        conds = status.setdefault("conditions", [])
        set_condition(conds, "Initialized", "True", now)
        containers = (new.get("spec") or {}).get("containers") or []
        names = " ".join(c.get("name", "") for c in containers)
        for ctype in ("Ready", "ContainersReady"):
            set_condition(conds, ctype, "False", now, "ContainersNotReady",
                          "containers with unready status: [%s]" % names)
        status["containerStatuses"] = [pull_failing_status(c, waited) for c in containers]
        out = self.write(world, PODS, new)
        if out is None:
            return
        for cs in status["containerStatuses"]:
            w = cs["state"]["waiting"]
            if waited:
                self.event(out, "BackOff", w["message"], "Warning", component="kubelet")
            else:
                self.event(out, "Failed", 'Failed to pull image "%s": %s'
                           % (cs["image"], w["message"]), "Warning", component="kubelet")

    def _started_events(self, pod):
        for c in (pod.get("spec") or {}).get("containers") or []:
            self.event(pod, "Pulled", 'Container image "%s" already present on machine'
                       % c.get("image", ""), component="kubelet")
            self.event(pod, "Created", "Created container %s" % c.get("name"),
                       component="kubelet")
            self.event(pod, "Started", "Started container %s" % c.get("name"),
                       component="kubelet")

    def _start_main(self, pod, uid):
        procs = getattr(self.sim, "processes", None)
        old = self._mains.pop(uid, None)
        if old is not None:
            old.kill()
        main = procs.start_main(pod) if procs is not None else None
        if main is not None:
            self._mains[uid] = main
            self._printing.pop(uid, None)  # its log is its own output

    def _maybe_finish(self, world, pod, now):
        uid = meta_of(pod).get("uid")
        main = self._mains.get(uid)
        if main is not None:
            self.waits_on_clock()
            code = main.exit_code()
            if code is not None:
                del self._mains[uid]
                self._exited(world, pod, code, "StartError" if main.error else None, now)
                return
        since = self._running_since.get(uid)
        if since is None:
            # running when we first saw it (seeded): count from its startTime
            since = parse_rfc3339((pod.get("status") or {}).get("startTime")) or now
            self._running_since[uid] = since
        duration = self._duration(world, pod)
        if duration is None:
            return
        self.waits_on_clock()
        if now - since < duration:
            return
        code = int(number(self._template_annotation(world, pod, EXIT_CODE), 0))
        self._exited(world, pod, code, None, now)

    def _exited(self, world, pod, code, reason, now):
        """The pod's command ended: restarted in place, or the pod ends."""
        if restarts_in_place(pod, code):
            self.back_off(world, pod, code, reason, now)
        else:
            self.finish(world, pod, code, reason, now)

    def back_off(self, world, pod, code, reason, now):
        """The containers exited under a restartPolicy that restarts them:
        the pod stays Running but not Ready; they wait (CrashLoopBackOff)
        and start again. The first restart comes at once, as the
        kubelet's."""
        n = restart_count(pod)
        base = number(self._template_annotation(world, pod, RESTART_BACKOFF), BACKOFF_SECONDS)
        delay = 0.0 if n == 0 else min(max(base, 0.0) * 2 ** (n - 1), BACKOFF_MAX)
        reason = reason or ("Completed" if code == 0 else "Error")
        new = clone(pod)
        status = new.setdefault("status", {})
        old = {c.get("name"): c for c in status.get("containerStatuses") or []}
        containers = (new.get("spec") or {}).get("containers") or []
        status["containerStatuses"] = [
            backing_off_status(c, old.get(c.get("name")), code, reason, pod, delay, now)
            for c in containers]
        names = " ".join(c.get("name", "") for c in containers)
        conds = status.setdefault("conditions", [])
        for ctype in ("Ready", "ContainersReady"):
            set_condition(conds, ctype, "False", now, "ContainersNotReady",
                          "containers with unready status: [%s]" % names)
        out = self.write(world, PODS, new)
        if out is None:
            return
        uid = meta_of(out).get("uid")
        self._backoff_until[uid] = now + delay
        self._running_since.pop(uid, None)
        meta = meta_of(out)
        for c in containers if delay > 0 else ():
            self.event(out, "BackOff", "Back-off restarting failed container %s in pod "
                       "%s_%s(%s)" % (c.get("name"), meta.get("name"), meta.get("namespace"),
                                      uid), "Warning", component="kubelet")

    def _backing_off(self, world, pod, now):
        """True while the pod's containers wait to restart; starts them
        again when the back-off is over."""
        uid = meta_of(pod).get("uid")
        until = self._backoff_until.get(uid)
        if until is None:
            return False
        self.waits_on_clock()
        if now >= until:
            del self._backoff_until[uid]
            self._restart(world, pod, now)
        return True

    def _restart(self, world, pod, now):
        new = clone(pod)
        status = new.setdefault("status", {})
        old = {c.get("name"): c for c in status.get("containerStatuses") or []}
        fresh = []
        for c in (new.get("spec") or {}).get("containers") or []:
            prev = old.get(c.get("name")) or {}
            cs = running_status(c, now)
            cs["restartCount"] = int(number(prev.get("restartCount"), 0)) + 1
            ended = (prev.get("state") or {}).get("terminated")
            if ended:
                cs["lastState"] = {"terminated": ended}
            elif prev.get("lastState"):
                cs["lastState"] = prev["lastState"]
            fresh.append(cs)
        status["containerStatuses"] = fresh
        conds = status.setdefault("conditions", [])
        for ctype in ("Ready", "ContainersReady"):
            set_condition(conds, ctype, "True", now)
        out = self.write(world, PODS, new)
        if out is None:
            return
        uid = meta_of(out).get("uid")
        self._running_since[uid] = now
        self._start_main(out, uid)
        self._started_events(out)

    @staticmethod
    def _template_annotation(world, pod, key):
        """A pod's annotation, else its workload template's."""
        value = annotation_of(pod, key)
        if value is None:
            owner = world.owner(pod)
            if owner is not None:
                tmeta = ((owner.get("spec") or {}).get("template") or {}).get("metadata") or {}
                value = (tmeta.get("annotations") or {}).get(key)
        return value

    def _duration(self, world, pod):
        meta = meta_of(pod)
        cached = self._durations.get(meta.get("uid"))
        if cached is not None and cached[0] == meta.get("resourceVersion"):
            return cached[1]
        value = self._template_annotation(world, pod, DURATION)
        d = number(value, -1) if value is not None else -1
        d = d if d >= 0 else None
        self._durations[meta.get("uid")] = (meta.get("resourceVersion"), d)
        return d

    def finish(self, world, pod, code, reason, now):
        new = clone(pod)
        phase = "Succeeded" if code == 0 else "Failed"
        reason = reason or ("Completed" if code == 0 else "Error")
        status = new.setdefault("status", {})
        status["phase"] = phase
        status.setdefault("startTime", rfc3339(now))
        conds = status.setdefault("conditions", [])
        why = "PodCompleted" if code == 0 else "PodFailed"
        for ctype in ("Ready", "ContainersReady"):
            set_condition(conds, ctype, "False", now, why)
        set_condition(conds, "PodReadyToStartContainers", "False", now)
        old = {c.get("name"): c for c in status.get("containerStatuses") or []}
        status["containerStatuses"] = [
            terminated_status(c, old.get(c.get("name")), code, reason, now)
            for c in (new.get("spec") or {}).get("containers") or []]
        runai_pod_status(new, phase)
        self.write(world, PODS, new)

    def print_logs(self, world):
        """One line per step for each Running pod this kubelet started."""
        logs = getattr(self.sim, "logs", None)
        if logs is None:
            return
        running = [p for p in world.pods.values()
                   if phase_of(p) == "Running" and meta_of(p).get("uid") in self._printing]
        if len(running) > MAX_LOGGING_PODS:
            return
        if running:
            self.waits_on_clock()
        for pod in sorted(running, key=key_of):
            uid = meta_of(pod).get("uid")
            n = self._printing[uid] = self._printing[uid] + 1
            containers = (pod.get("spec") or {}).get("containers") or [{}]
            ns, name = key_of(pod)
            logs.append(ns, name, containers[0].get("name", ""),
                        "step %d: loss=%.3f" % (n, 2.0 * 0.95 ** n))
