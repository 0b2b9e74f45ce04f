"""The workload controllers: run.ai/v1 RunaiJobs and batch/v1 Jobs.

A workload gets the pods it lacks (from its template, with the labels and
owner references its real controller sets), loses them when suspended,
replaces failed ones up to backoffLimit, completes or fails, and is
deleted ttlSecondsAfterFinished after it finished. Its status (counts,
conditions, times) and, for Run:ai work, the annotations Run:ai's
scheduler keeps on it (runai-calculated-status, runai-running-pods, GPU
amounts, ...) follow its pods; Run:ai pods get runai-calculated-status.
A workload the scheduler preempted (annotation kube-sim/preempted-by)
shows Pending, not Unschedulable, until it runs again.

It reads placements and pod phases only; it never binds, starts or
finishes a pod itself.
"""

import random

from kubesim.cluster import Part, runai_annotations
from kubesim.errors import ApiError
from kubesim.gpus import gpu_memory_request, pod_gpus
from kubesim.objutil import (JOBS, PODS, RUNAI_SCHEDULER, RUNAIJOBS, annotation_of, clone,
                             condition_true, is_active, key_of, meta_of, node_name_of, number,
                             parse_rfc3339, phase_of, rfc3339, runai_pod_status, set_condition)

_SUFFIX_CHARS = "bcdfghjklmnpqrstvwxz2456789"  # kube's generateName alphabet


def name_suffix(n=5):
    return "".join(random.choice(_SUFFIX_CHARS) for _ in range(n))


def template_scheduler(wl):
    return (((wl.get("spec") or {}).get("template") or {}).get("spec") or {}).get(
        "schedulerName")


def finished_workload(wl):
    return condition_true(wl, "Complete") or condition_true(wl, "Failed")


def pod_from_template(gvr, wl, world):
    meta = meta_of(wl)
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
        "metadata": {"name": "%s-%s" % (name, name_suffix()), "namespace": ns,
                     "labels": labels, "annotations": annotations,
                     "ownerReferences": [{"apiVersion": api_version,
                                          "kind": wl.get("kind") or (
                                              "RunaiJob" if gvr == RUNAIJOBS else "Job"),
                                          "name": name, "uid": uid, "controller": True,
                                          "blockOwnerDeletion": True}]},
        "spec": clone(tmpl.get("spec") or {}),
        "status": {"phase": "Pending"},
    }


def scheduler_annotations(wl, pods, suspended, world):
    """The annotations Run:ai's scheduler keeps on a workload, which
    `runai list` and `describe` read for the GPU and status columns.
    GPU counts are fractions of a GPU also for gpu-memory requests (the
    share of the GPU of the node each pod is on); the *-gpus-memory ones,
    in MB, are kept for workloads that ask by memory."""
    bound = [p for p in pods if is_active(p) and node_name_of(p)]
    tmpl = (wl.get("spec") or {}).get("template") or {}
    tmpl_pod = {"metadata": tmpl.get("metadata") or {}, "spec": tmpl.get("spec") or {}}
    per_pod = pod_gpus(tmpl_pod, world.gpu_memory_of(bound[0]) if bound
                       else world.pending_gpu_memory)
    parallelism = int(number((wl.get("spec") or {}).get("parallelism"), 1))
    extra = {}
    mb = gpu_memory_request(tmpl_pod)
    if mb is not None:
        extra = {
            "runai-current-allocated-gpus-memory": str(
                sum(gpu_memory_request(p) or 0 for p in bound)),
            "runai-podgroup-requested-gpus-memory": str(mb * parallelism),
            "runai-total-requested-gpus-memory": str(mb * parallelism),
        }
    runai_annotations(wl, pods, world, suspended, per_pod * parallelism, extra)


class WorkloadController(Part):
    """The job controller and the workload status writer."""

    def __init__(self, runtime):
        super().__init__(runtime)
        self._failed_create = {}        # workload uid -> last FailedCreate message
        # workload uid -> fingerprint of the inputs last seen to need no
        # work: at benchmark scale (10k jobs) most steps change nothing
        self._settled = {}              # ... by the job controller
        self._status_seen = {}          # ... by the status writer

    def forget(self, uid):
        for table in (self._settled, self._status_seen, self._failed_create):
            table.pop(uid, None)

    # the job controller: pods, suspension, ttl --------------------------------

    def reconcile(self, world, now):
        for gvr, wl, pods in world.live(world.workloads):
            uid = meta_of(wl).get("uid")
            spec = wl.get("spec") or {}
            if finished_workload(wl):
                self._expire(gvr, wl, now)
                continue
            seen = world.fingerprint(wl, pods)
            if self._settled.get(uid) == seen:
                continue
            if spec.get("suspend"):
                for pod in pods:
                    self._delete_pod(world, wl, pod)
            elif not self.create_missing(world, gvr, wl, pods):
                self._settled[uid] = seen

    def create_missing(self, world, gvr, wl, pods):
        """Creates the pods the workload lacks; True if it created any."""
        spec = wl.get("spec") or {}
        succeeded = sum(1 for p in pods if phase_of(p) == "Succeeded")
        failed = sum(1 for p in pods if phase_of(p) == "Failed")
        completions = int(number(spec.get("completions"), 1))
        parallelism = int(number(spec.get("parallelism"), 1))
        if failed > int(number(spec.get("backoffLimit"), 6)) or succeeded >= completions:
            return False  # finishing: update_status marks it
        active = [p for p in pods if is_active(p)]
        missing = min(parallelism, completions - succeeded) - len(active)
        for _ in range(missing):
            self._create_pod(world, gvr, wl)
        return missing > 0

    def _create_pod(self, world, gvr, wl):
        pod = pod_from_template(gvr, wl, world)
        ns = meta_of(wl).get("namespace")
        while (ns, pod["metadata"]["name"]) in world.pods:
            pod["metadata"]["name"] = "%s-%s" % (meta_of(wl).get("name"), name_suffix())
        uid = meta_of(wl).get("uid")
        try:
            out = self.store.create(PODS, ns, pod)
        except ApiError as e:
            # one event per cause, not per random pod name it was tried with
            said = e.message.replace(pod["metadata"]["name"], "")
            if self._failed_create.get(uid) != said:
                self._failed_create[uid] = said
                self.event(wl, "FailedCreate", "Error creating: %s" % e.message, "Warning",
                           component="job-controller")
            return
        self._failed_create.pop(uid, None)
        world.pods[key_of(out)] = out
        self.event(wl, "SuccessfulCreate", "Created pod: %s" % meta_of(out)["name"],
                   component="job-controller")

    def _delete_pod(self, world, wl, pod):
        ns, name = key_of(pod)
        self.store.delete(PODS, ns, name)
        world.pods.pop((ns, name), None)
        self.event(wl, "SuccessfulDelete", "Deleted pod: %s" % name,
                   component="job-controller")

    def _expire(self, gvr, wl, now):
        """ttlSecondsAfterFinished: delete a finished workload when due."""
        ttl = (wl.get("spec") or {}).get("ttlSecondsAfterFinished")
        if ttl is not None:
            self.waits_on_clock()
        done = parse_rfc3339((wl.get("status") or {}).get("completionTime"))
        if ttl is None or done is None or now < done + number(ttl, 0):
            return
        ns, name = key_of(wl)
        self.store.delete(gvr, ns, name, propagation="Background")

    # status and the scheduler's annotations ----------------------------------

    def update_status(self, world, now):
        owned = world.owned()
        for gvr, wl in world.workloads:
            ns, name = key_of(wl)
            current = self.store.get_ref(gvr, ns, name) if hasattr(self.store, "get_ref") \
                else self.store.get(gvr, ns, name)
            uid = meta_of(wl).get("uid")
            if current is None or meta_of(current).get("uid") != uid:
                continue  # deleted in this step (ttl)
            pods = owned.get(uid, [])
            seen = world.fingerprint(current, pods)
            if self._status_seen.get(uid) == seen:
                continue
            new = self.workload_state(world, gvr, current, pods, now)
            if new != current:
                new = self.write(world, gvr, new) or current
            self._status_seen[uid] = world.fingerprint(new, pods)

    def workload_state(self, world, gvr, wl, pods, now):
        """The workload as its pods say it is now (a copy; not written)."""
        new = clone(wl)
        spec = new.get("spec") or {}
        status = new.setdefault("status", {})
        conds = status.setdefault("conditions", [])
        counts = {k: sum(1 for p in pods if f(p)) for k, f in (
            ("active", is_active), ("succeeded", lambda p: phase_of(p) == "Succeeded"),
            ("failed", lambda p: phase_of(p) == "Failed"))}
        suspended = bool(spec.get("suspend")) and not finished_workload(wl)
        self._suspension(new, conds, suspended, now)
        if not suspended and not finished_workload(wl):
            self._maybe_complete(new, conds, counts, now)
        for k, v in counts.items():
            if v:  # omitempty, as the Job API
                status[k] = v
            else:
                status.pop(k, None)
        if counts["active"] and not status.get("startTime"):
            status["startTime"] = rfc3339(now)
        if not conds:
            status.pop("conditions")
        if not status:
            new.pop("status")
        if gvr == RUNAIJOBS or template_scheduler(wl) == RUNAI_SCHEDULER:
            scheduler_annotations(new, pods, suspended, world)
        return new

    def _suspension(self, wl, conds, suspended, now):
        was = condition_true(wl, "Suspended")
        if suspended and not was:
            set_condition(conds, "Suspended", "True", now, "JobSuspended", "Job suspended")
            wl["status"].pop("startTime", None)
            self.event(wl, "Suspended", "Job suspended", component="job-controller")
        elif not suspended and was:
            set_condition(conds, "Suspended", "False", now, "JobResumed", "Job resumed")
            self.event(wl, "Resumed", "Job resumed", component="job-controller")

    def _maybe_complete(self, wl, conds, counts, now):
        spec = wl.get("spec") or {}
        if counts["succeeded"] >= int(number(spec.get("completions"), 1)) and \
                not counts["active"]:
            set_condition(conds, "Complete", "True", now)
            wl["status"]["completionTime"] = rfc3339(now)
            self.event(wl, "Completed", "Job completed", component="job-controller")
        elif counts["failed"] > int(number(spec.get("backoffLimit"), 6)):
            set_condition(conds, "Failed", "True", now, "BackoffLimitExceeded",
                          "Job has reached the specified backoff limit")
            self.event(wl, "BackoffLimitExceeded", "Job has reached the specified backoff "
                       "limit", "Warning", component="job-controller")

    def annotate_pods(self, world):
        """runai-calculated-status on Run:ai pods that lack a current one
        (pods seeded or changed by a client)."""
        for pod in list(world.pods.values()):
            if (pod.get("spec") or {}).get("schedulerName") != RUNAI_SCHEDULER:
                continue
            if annotation_of(pod, "runai-calculated-status") != phase_of(pod):
                new = clone(pod)
                runai_pod_status(new, phase_of(pod))
                self.write(world, PODS, new)
