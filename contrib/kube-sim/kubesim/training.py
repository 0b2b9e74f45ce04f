"""The Kubeflow training operator: PyTorchJobs, TFJobs and XGBoostJobs
(kubeflow.org/v1) and MPIJobs (kubeflow.org/v2beta1).

A job names replica types (Master/Worker, Chief/PS/Worker, Launcher/
Worker), each with a count and a pod template. This part gives a job its
pods (`<job>-<type>-<index>`; the MPI launcher is `<job>-launcher`), all
created in one step so the scheduler sees them as one gang (they share
the job as their controller owner: all of them are placed, or none), and
the headless Services the pods find each other by (one per pod; one for
all MPI workers), with the operator's labels and the environment it
injects (MASTER_ADDR/MASTER_PORT/WORLD_SIZE/RANK, TF_CONFIG, the MPI
hostfile in a ConfigMap `<job>-config` and the OMPI_* variables).

Its status follows the pods: conditions Created, Running, Restarting,
Succeeded or Failed with the operator's reasons and messages, and
replicaStatuses. Pods of OnFailure and Always replicas are restarted in
place by the kubelet; the job fails once their containers' restarts
reach runPolicy.backoffLimit, as the operator counts them. A pod that
fails all the same (forced, evicted) or under ExitCode with a retryable
code (128 and above) is replaced while backoffLimit allows; otherwise the
job fails. A finished job
removes pods and Services by runPolicy.cleanPodPolicy (Running: the
unfinished ones; All; None). runPolicy.suspend removes them all.

Run:ai's scheduler annotations (runai-calculated-status, running and
pending pods, GPUs, used nodes) are kept on the job as on a RunaiJob.
Deleting a job takes its pods, Services and ConfigMap with it (owner
references; the store collects dependents).
"""

import json

from kubesim.cluster import Part, runai_annotations
from kubesim.errors import ApiError
from kubesim.objutil import (CONFIGMAPS, MPIJOBS, PODS, PYTORCHJOBS, SERVICES, TFJOBS,
                             XGBOOSTJOBS, annotation_of, clone, condition_of, condition_true,
                             is_active, key_of, meta_of, number, phase_of, rfc3339,
                             set_condition)

LABEL = "training.kubeflow.org/"
JOB_NAME, REPLICA_TYPE, REPLICA_INDEX, JOB_ROLE, OPERATOR = (
    LABEL + "job-name", LABEL + "replica-type", LABEL + "replica-index",
    LABEL + "job-role", LABEL + "operator-name")
MPI_CONFIG_DIR = "/etc/mpi"
MPI_HOSTFILE = MPI_CONFIG_DIR + "/hostfile"


class Framework:
    """What differs between the four kinds."""

    def __init__(self, kind, specs_key, container, port_name, port, chiefs, operator):
        self.kind = kind
        self.specs_key = specs_key      # spec.<key>: {ReplicaType: ReplicaSpec}
        self.container = container      # the default container's name
        self.port_name = port_name
        self.port = port
        self.chiefs = chiefs            # replica types whose success is the job's
        self.operator = operator


FRAMEWORKS = {
    PYTORCHJOBS: Framework("PyTorchJob", "pytorchReplicaSpecs", "pytorch", "pytorchjob-port",
                           23456, ("Master",), "pytorchjob-controller"),
    TFJOBS: Framework("TFJob", "tfReplicaSpecs", "tensorflow", "tfjob-port", 2222,
                      ("Chief", "Master"), "tfjob-controller"),
    XGBOOSTJOBS: Framework("XGBoostJob", "xgbReplicaSpecs", "xgboost", "xgboostjob-port",
                           9999, ("Master",), "xgboostjob-controller"),
    MPIJOBS: Framework("MPIJob", "mpiReplicaSpecs", "mpi", None, None, ("Launcher",),
                       "mpi-operator"),
}

# Replica types in the order their pods are made and ranked.
TYPE_ORDER = ("Launcher", "Chief", "Master", "PS", "Worker", "Evaluator")


# --- the pure part: replicas, names, env ---------------------------------------

def replica_specs(fw, job):
    specs = (job.get("spec") or {}).get(fw.specs_key) or {}
    return {t: s for t, s in specs.items() if isinstance(s, dict)}


def replica_count(spec):
    return max(0, int(number(spec.get("replicas"), 1)))


def ordered_types(specs):
    return sorted(specs, key=lambda t: (TYPE_ORDER.index(t) if t in TYPE_ORDER
                                        else len(TYPE_ORDER), t))


def run_policy(job):
    spec = job.get("spec") or {}
    policy = dict(spec.get("runPolicy") or {})
    if "cleanPodPolicy" not in policy and spec.get("cleanPodPolicy"):
        policy["cleanPodPolicy"] = spec["cleanPodPolicy"]   # the v1 kinds' old place
    return policy


def pod_name(gvr, job_name, rtype, index):
    if gvr == MPIJOBS and rtype == "Launcher":
        return "%s-launcher" % job_name
    return "%s-%s-%d" % (job_name, rtype.lower(), index)


def replicas(gvr, job):
    """[(replica type, index, pod name)] of the whole job, in rank order."""
    fw = FRAMEWORKS[gvr]
    name = meta_of(job).get("name")
    specs = replica_specs(fw, job)
    return [(t, i, pod_name(gvr, name, t, i))
            for t in ordered_types(specs) for i in range(replica_count(specs[t]))]


def worker_service(job_name):
    return "%s-worker" % job_name


def hostfile(job, slots):
    """The MPI hostfile: one line per worker, by its DNS name."""
    name, ns = meta_of(job).get("name"), meta_of(job).get("namespace")
    specs = replica_specs(FRAMEWORKS[MPIJOBS], job)
    n = replica_count(specs.get("Worker") or {"replicas": 0})
    return "".join("%s-worker-%d.%s.%s.svc slots=%d\n" % (name, i, worker_service(name), ns,
                                                           slots) for i in range(n))


def _tf_config(job, rtype, index):
    name, ns = meta_of(job).get("name"), meta_of(job).get("namespace")
    fw = FRAMEWORKS[TFJOBS]
    cluster = {}
    for t, spec in replica_specs(fw, job).items():
        if t == "Evaluator":
            continue    # not part of the cluster, as the operator leaves it out
        cluster[t.lower()] = ["%s-%s-%d.%s.svc:%d" % (name, t.lower(), i, ns, fw.port)
                              for i in range(replica_count(spec))]
    return json.dumps({"cluster": cluster, "task": {"type": rtype.lower(), "index": index},
                       "environment": "cloud"}, sort_keys=True, separators=(",", ":"))


def _pytorch_like_env(gvr, job, rtype, index):
    """MASTER_ADDR and friends; the rank counts the master first."""
    fw = FRAMEWORKS[gvr]
    name = meta_of(job).get("name")
    specs = replica_specs(fw, job)
    masters = replica_count(specs["Master"]) if "Master" in specs else 0
    world = sum(replica_count(s) for s in specs.values())
    rank = index if rtype == "Master" else masters + index
    master = ("%s-master-0" % name) if masters else ("%s-worker-0" % name)
    env = [("PYTHONUNBUFFERED", "1"), ("MASTER_PORT", str(fw.port)),
           ("MASTER_ADDR", master), ("WORLD_SIZE", str(world)), ("RANK", str(rank))]
    if gvr == XGBOOSTJOBS:
        workers = replica_count(specs.get("Worker") or {"replicas": 0})
        env += [("WORKER_PORT", str(fw.port)),
                ("WORKER_ADDRS", ",".join("%s-worker-%d" % (name, i) for i in range(workers)))]
    elif gvr == PYTORCHJOBS:
        env += [("PET_MASTER_ADDR", master), ("PET_MASTER_PORT", str(fw.port)),
                ("PET_NNODES", str(world)), ("PET_NODE_RANK", str(rank))]
    return env


def _mpi_env(job, rtype):
    if rtype == "Launcher":
        return [("OMPI_MCA_orte_default_hostfile", MPI_HOSTFILE),
                ("OMPI_MCA_plm_rsh_args", "-o ConnectionAttempts=10"),
                ("OMPI_MCA_orte_keep_fqdn_hostnames", "true"),
                ("OMPI_MCA_orte_set_default_slots", str(slots_per_worker(job))),
                ("K_MPI_JOB_ROLE", "launcher")]
    return [("K_MPI_JOB_ROLE", "worker")]


def slots_per_worker(job):
    return max(1, int(number((job.get("spec") or {}).get("slotsPerWorker"), 1)))


def injected_env(gvr, job, rtype, index):
    """[(name, value)] the operator adds to every container of the pod."""
    if gvr == TFJOBS:
        return [("TF_CONFIG", _tf_config(job, rtype, index))]
    if gvr == MPIJOBS:
        return _mpi_env(job, rtype)
    return _pytorch_like_env(gvr, job, rtype, index)


def job_labels(gvr, job, rtype, index):
    fw = FRAMEWORKS[gvr]
    labels = {JOB_NAME: meta_of(job).get("name"), OPERATOR: fw.operator,
              REPLICA_TYPE: rtype.lower(), REPLICA_INDEX: str(index)}
    if rtype in fw.chiefs or gvr == MPIJOBS:
        labels[JOB_ROLE] = "master" if rtype in ("Master", "Chief") else rtype.lower()
    return labels


def _owner_ref(gvr, job):
    group, version, _ = gvr
    return {"apiVersion": "%s/%s" % (group, version), "kind": FRAMEWORKS[gvr].kind,
            "name": meta_of(job).get("name"), "uid": meta_of(job).get("uid", ""),
            "controller": True, "blockOwnerDeletion": True}


def _add_env(container, env):
    have = container.setdefault("env", [])
    names = {e.get("name") for e in have if isinstance(e, dict)}
    have.extend({"name": k, "value": v} for k, v in env if k not in names)


def build_pod(gvr, job, rtype, index, project=None):
    """The pod of one replica, from its template (not stored here)."""
    fw = FRAMEWORKS[gvr]
    meta = meta_of(job)
    spec = replica_specs(fw, job)[rtype]
    tmpl = spec.get("template") or {}
    tmeta = tmpl.get("metadata") or {}
    labels = dict(tmeta.get("labels") or {})
    labels.update(job_labels(gvr, job, rtype, index))
    if project:
        labels["project"] = project
    annotations = dict(tmeta.get("annotations") or {})
    annotations["pod-group-name"] = "pg-%s-%s" % (meta.get("name"), meta.get("uid", "")[:8])
    pspec = clone(tmpl.get("spec") or {})
    policy = spec.get("restartPolicy") or "Never"
    # ExitCode is the operator's own: the pod never restarts in place
    pspec["restartPolicy"] = "Never" if policy == "ExitCode" else policy
    name = pod_name(gvr, meta.get("name"), rtype, index)
    pspec.setdefault("hostname", name)
    pspec.setdefault("subdomain", worker_service(meta.get("name")) if gvr == MPIJOBS else name)
    env = injected_env(gvr, job, rtype, index)
    for c in pspec.get("containers") or []:
        if isinstance(c, dict):
            _add_env(c, env)
            if fw.port and c.get("name") == fw.container and not c.get("ports"):
                c["ports"] = [{"name": fw.port_name, "containerPort": fw.port,
                               "protocol": "TCP"}]
    if gvr == MPIJOBS and rtype == "Launcher":
        _mount_mpi_config(pspec, meta.get("name"))
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": meta.get("namespace"),
                         "labels": labels, "annotations": annotations,
                         "ownerReferences": [_owner_ref(gvr, job)]},
            "spec": pspec, "status": {"phase": "Pending"}}


def _mount_mpi_config(pspec, job_name):
    """The launcher's /etc/mpi: the hostfile (0444) and discover_hosts.sh
    (0555) of the job's ConfigMap, as the MPI operator mounts them."""
    volume = "mpi-job-config"
    pspec.setdefault("volumes", []).append({
        "name": volume, "configMap": {"name": "%s-config" % job_name, "items": [
            {"key": "hostfile", "path": "hostfile", "mode": 0o444},
            {"key": "discover_hosts.sh", "path": "discover_hosts.sh", "mode": 0o555}]}})
    for c in pspec.get("containers") or []:
        if isinstance(c, dict):
            c.setdefault("volumeMounts", []).append({"name": volume,
                                                     "mountPath": MPI_CONFIG_DIR})


def discover_hosts(job):
    """discover_hosts.sh: prints each worker's name, one a line (Horovod's
    elastic mode runs it)."""
    name, ns = meta_of(job).get("name"), meta_of(job).get("namespace")
    n = replica_count(replica_specs(FRAMEWORKS[MPIJOBS], job).get("Worker") or {"replicas": 0})
    return "#!/bin/sh\n" + "".join("echo %s-worker-%d.%s.%s.svc\n" % (name, i, worker_service(name),
                                                                     ns) for i in range(n))


def build_services(gvr, job):
    """The headless Services: one per pod (MPI: one for all workers)."""
    fw = FRAMEWORKS[gvr]
    meta = meta_of(job)
    name, ns = meta.get("name"), meta.get("namespace")
    out = []

    def svc(svc_name, selector, ports):
        spec = {"clusterIP": "None", "selector": selector, "publishNotReadyAddresses": True}
        if ports:
            spec["ports"] = ports
        return {"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": svc_name, "namespace": ns,
                             "labels": {JOB_NAME: name, OPERATOR: fw.operator},
                             "ownerReferences": [_owner_ref(gvr, job)]},
                "spec": spec}
    if gvr == MPIJOBS:
        if "Worker" in replica_specs(fw, job):
            out.append(svc(worker_service(name), {JOB_NAME: name, JOB_ROLE: "worker"}, None))
        return out
    port = [{"name": fw.port_name, "port": fw.port, "targetPort": fw.port, "protocol": "TCP"}]
    for rtype, index, pname in replicas(gvr, job):
        out.append(svc(pname, {JOB_NAME: name, REPLICA_TYPE: rtype.lower(),
                               REPLICA_INDEX: str(index)}, port))
    return out


def build_hostfile_configmap(job):
    meta = meta_of(job)
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "%s-config" % meta.get("name"),
                         "namespace": meta.get("namespace"),
                         "labels": {"app": meta.get("name")},
                         "ownerReferences": [_owner_ref(MPIJOBS, job)]},
            "data": {"hostfile": hostfile(job, slots_per_worker(job)),
                     "discover_hosts.sh": discover_hosts(job)}}


def restartable(policy, code):
    """May a pod that failed with `code` be replaced under `policy`?"""
    if policy in ("OnFailure", "Always"):
        return True
    if policy == "ExitCode":
        return code >= 128      # signals and the like; 1-127 are the program's own
    return False


def exit_code(pod):
    for cs in (pod.get("status") or {}).get("containerStatuses") or []:
        term = (cs.get("state") or {}).get("terminated") or {}
        if "exitCode" in term:
            return int(number(term.get("exitCode"), 1))
    return 1


def in_place_restarts(gvr, job, pods):
    """The container restarts the kubelet made in the Running pods of
    replica types whose restartPolicy is OnFailure or Always: what the
    operator holds against runPolicy.backoffLimit (pods it replaced count
    apart, in the controller)."""
    counted = {t.lower() for t, spec in replica_specs(FRAMEWORKS[gvr], job).items()
               if spec.get("restartPolicy") in ("OnFailure", "Always")}
    total = 0
    for pod in pods:
        rtype = (meta_of(pod).get("labels") or {}).get(REPLICA_TYPE)
        if phase_of(pod) != "Running" or rtype not in counted:
            continue
        status = pod.get("status") or {}
        for cs in (status.get("initContainerStatuses") or []) + \
                (status.get("containerStatuses") or []):
            total += int(number(cs.get("restartCount"), 0))
    return total


def past_backoff_limit(gvr, job, pods):
    """("Failed", message) once the in-place restarts reach the job's
    backoffLimit (a limit of 0 allows none), else None."""
    limit = run_policy(job).get("backoffLimit")
    if limit is None:
        return None
    limit, restarts = int(number(limit, 0)), in_place_restarts(gvr, job, pods)
    if restarts > 0 if limit == 0 else restarts >= limit:
        return "Failed", "Job %s has failed because it has reached the specified " \
            "backoff limit" % meta_of(job).get("name")
    return None


def replica_statuses(pods):
    out = {}
    for pod in pods:
        rtype = (meta_of(pod).get("labels") or {}).get(REPLICA_TYPE) or ""
        key = rtype.capitalize() if rtype != "ps" else "PS"
        st = out.setdefault(key, {})
        field = {"Pending": "active", "Running": "active", "Succeeded": "succeeded",
                 "Failed": "failed"}[phase_of(pod)]
        st[field] = st.get(field, 0) + 1
    return out


def outcome(gvr, job, pods):
    """("Succeeded" | "Failed", message) once the pods decide it, else None.
    The chief's (master, chief, launcher) success is the job's; without
    one, every worker's (TF: worker 0's). A failed pod is the job's
    failure (the caller replaced the ones it could)."""
    fw = FRAMEWORKS[gvr]
    ns, name = key_of(job)
    by_name = {meta_of(p).get("name"): p for p in pods}
    failed = [(t, i) for t, i, n in replicas(gvr, job)
              if n in by_name and phase_of(by_name[n]) == "Failed"]
    if failed:
        rtype = failed[0][0]
        count = sum(1 for t, _ in failed if t == rtype)
        return "Failed", "%s %s/%s has failed because %d %s replica(s) failed." % (
            fw.kind, ns, name, count, rtype)
    all_replicas = replicas(gvr, job)
    chiefs = [n for t, _, n in all_replicas if t in fw.chiefs]
    if not chiefs:
        if gvr == TFJOBS:
            chiefs = [n for t, i, n in all_replicas if t == "Worker" and i == 0]
        else:
            chiefs = [n for t, _, n in all_replicas if t == "Worker"]
    if chiefs and all(n in by_name and phase_of(by_name[n]) == "Succeeded" for n in chiefs):
        return "Succeeded", "%s %s/%s successfully completed." % (fw.kind, ns, name)
    return None


def finished(job):
    return condition_true(job, "Succeeded") or condition_true(job, "Failed")


def cleanup_victims(policy, pods):
    """The pods cleanPodPolicy removes from a finished job."""
    if policy == "All":
        return list(pods)
    if policy == "None":
        return []
    return [p for p in pods if is_active(p)]       # Running, the default


# --- the controller part -------------------------------------------------------

class TrainingController(Part):
    """Pods, Services, restarts, cleanup and status of training jobs."""

    def __init__(self, runtime):
        super().__init__(runtime)
        self._restarts = {}     # job uid -> pods replaced so far
        self._cleaned = set()   # job uids whose cleanPodPolicy ran
        # job uid -> fingerprint of the job and its pods when last seen to
        # need nothing: with thousands of jobs most steps change none
        self._settled = {}
        self._status_seen = {}

    def forget(self, uid):
        self._restarts.pop(uid, None)
        self._cleaned.discard(uid)
        self._settled.pop(uid, None)
        self._status_seen.pop(uid, None)

    def reconcile(self, world, now):
        for gvr, job, pods in world.live(world.training):
            uid = meta_of(job).get("uid")
            seen = world.fingerprint(job, pods)
            if self._settled.get(uid) == seen:
                continue
            if finished(job):
                self._clean(world, gvr, job, pods)
            elif run_policy(job).get("suspend"):
                for pod in pods:
                    self._delete(world, PODS, pod)
            else:
                kept = self._replace_failed(world, job, pods)
                if self._create_missing(world, gvr, job, kept) or len(kept) < len(pods):
                    continue    # its pods changed: look again next step
            self._settled[uid] = seen

    def _replace_failed(self, world, job, pods):
        """Deletes the failed pods their policy restarts (within
        backoffLimit); the rest are kept, to fail the job."""
        uid = meta_of(job).get("uid")
        keep = []
        for pod in pods:
            if self._will_restart(job, pod):
                self._restarts[uid] = self._restarts.get(uid, 0) + 1
                self.event(job, "Restarting", "%s %s is restarting because %s failed." % (
                    job.get("kind"), meta_of(job).get("name"), meta_of(pod).get("name")),
                    "Warning", component=operator_of(job))
                self._delete(world, PODS, pod)
            else:
                keep.append(pod)
        return keep

    def _will_restart(self, job, pod):
        """A failed pod its restartPolicy replaces, backoffLimit allowing."""
        if phase_of(pod) != "Failed":
            return False
        limit = run_policy(job).get("backoffLimit")
        return restartable(self._policy_of(job, pod), exit_code(pod)) and (
            limit is None or
            self._restarts.get(meta_of(job).get("uid"), 0) < int(number(limit, 0)))

    @staticmethod
    def _policy_of(job, pod):
        rtype = (meta_of(pod).get("labels") or {}).get(REPLICA_TYPE) or ""
        for fw in FRAMEWORKS.values():
            if fw.kind == job.get("kind"):
                for t, spec in replica_specs(fw, job).items():
                    if t.lower() == rtype:
                        return spec.get("restartPolicy") or "Never"
        return "Never"

    def _create_missing(self, world, gvr, job, pods):
        """Every missing pod in this one step: the scheduler then sees
        the whole gang at once. True when the job's pods are not (yet)
        all there: made now, or still missing."""
        have = {meta_of(p).get("name") for p in pods}
        ns = meta_of(job).get("namespace")
        project = world.ns_project.get(ns)
        if gvr == MPIJOBS:
            self._ensure(build_hostfile_configmap(job), CONFIGMAPS)
        made = 0
        for svc in build_services(gvr, job):
            self._ensure(svc, SERVICES)
        for rtype, index, name in replicas(gvr, job):
            if name in have:
                continue
            if (ns, name) in world.pods:
                continue        # another owner's pod holds the name
            try:
                out = self.store.create(PODS, ns, build_pod(gvr, job, rtype, index, project))
            except ApiError as e:
                self.event(job, "FailedCreatePod", "Error creating: %s" % e.message,
                           "Warning", component=operator_of(job))
                continue
            world.pods[key_of(out)] = out
            made += 1
            self.event(job, "SuccessfulCreatePod", "Created pod: %s" % name,
                       component=operator_of(job))
        return made > 0 or len(have) < len(replicas(gvr, job))

    def _ensure(self, obj, gvr):
        ns, name = key_of(obj)
        if self.store.get_ref(gvr, ns, name) if hasattr(self.store, "get_ref") \
                else self.store.get(gvr, ns, name):
            return
        try:
            self.store.create(gvr, ns, obj)
        except ApiError:
            pass    # made meanwhile, or refused: tried again next step

    def _delete(self, world, gvr, obj):
        ns, name = key_of(obj)
        try:
            self.store.delete(gvr, ns, name)
        except ApiError:
            pass
        if gvr == PODS:
            world.pods.pop((ns, name), None)
            if self.store.get(SERVICES, ns, name) is not None:
                self._delete(world, SERVICES, {"metadata": {"namespace": ns, "name": name}})

    def _clean(self, world, gvr, job, pods):
        uid = meta_of(job).get("uid")
        if uid in self._cleaned:
            return
        self._cleaned.add(uid)
        policy = run_policy(job).get("cleanPodPolicy") or "Running"
        for pod in cleanup_victims(policy, pods):
            self._delete(world, PODS, pod)
        if policy == "All" and gvr == MPIJOBS:
            for s in build_services(gvr, job):
                self._delete(world, SERVICES, s)

    # status ---------------------------------------------------------------

    def update_status(self, world, now):
        owned = world.owned()
        for gvr, job in world.training:
            ns, name = key_of(job)
            uid = meta_of(job).get("uid")
            current = self.store.get_ref(gvr, ns, name) if hasattr(self.store, "get_ref") \
                else self.store.get(gvr, ns, name)
            if current is None or meta_of(current).get("uid") != uid:
                continue    # deleted in this step
            pods = owned.get(uid, [])
            if self._status_seen.get(uid) == world.fingerprint(current, pods):
                continue
            new = self.job_state(gvr, current, pods, world, now)
            if new != current:
                new = self.write(world, gvr, new) or current
            self._status_seen[uid] = world.fingerprint(new, pods)

    def job_state(self, gvr, job, pods, world, now):
        """The job as its pods say it is now (a copy; not written)."""
        fw = FRAMEWORKS[gvr]
        new = clone(job)
        ns, name = key_of(job)
        status = new.setdefault("status", {})
        conds = status.setdefault("conditions", [])
        if not condition_of(new, "Created"):
            set_condition(conds, "Created", "True", now, fw.kind + "Created",
                          "%s %s is created." % (fw.kind, name))
        suspended = bool(run_policy(job).get("suspend")) and not finished(job)
        if suspended != condition_true(job, "Suspended"):
            set_condition(conds, "Suspended", "True" if suspended else "False", now,
                          fw.kind + ("Suspended" if suspended else "Resumed"),
                          "%s %s is %s." % (fw.kind, name,
                                            "suspended" if suspended else "resumed"))
        if not finished(job) and not suspended:
            self._progress(gvr, new, conds, pods, now)
        status["replicaStatuses"] = replica_statuses(pods)
        status["lastReconcileTime"] = status.get("lastReconcileTime") or rfc3339(now)
        self._annotate(new, pods, world, suspended)
        return new

    def _progress(self, gvr, job, conds, pods, now):
        fw = FRAMEWORKS[gvr]
        ns, name = key_of(job)
        status = job["status"]
        expected = {n for _, _, n in replicas(gvr, job)}
        running = [p for p in pods if phase_of(p) == "Running"]
        if running and not status.get("startTime"):
            status["startTime"] = rfc3339(now)
        # a failed pod about to be replaced is not the job's failure
        result = past_backoff_limit(gvr, job, pods) or \
            outcome(gvr, job, [p for p in pods if not self._will_restart(job, p)])
        if result is not None:
            phase, message = result
            set_condition(conds, phase, "True", now, fw.kind + phase, message)
            if condition_of(job, "Running"):
                set_condition(conds, "Running", "False", now, fw.kind + phase, message)
            status["completionTime"] = rfc3339(now)
            self.event(job, fw.kind + phase, message,
                       "Normal" if phase == "Succeeded" else "Warning",
                       component=fw.operator)
        elif expected and {meta_of(p).get("name") for p in running} >= expected:
            if not condition_true(job, "Running"):
                set_condition(conds, "Running", "True", now, fw.kind + "Running",
                              "%s %s/%s is running." % (fw.kind, ns, name))
            if condition_true(job, "Restarting"):
                set_condition(conds, "Restarting", "False", now, fw.kind + "Running",
                              "%s %s/%s is running." % (fw.kind, ns, name))
        elif self._restarts.get(meta_of(job).get("uid")) and \
                len([p for p in pods if is_active(p)]) < len(expected):
            set_condition(conds, "Restarting", "True", now, fw.kind + "Restarting",
                          "%s %s/%s is restarting because a replica failed." % (
                              fw.kind, ns, name))

    @staticmethod
    def _annotate(job, pods, world, suspended):
        """The annotations Run:ai's scheduler keeps on a workload; the
        GPUs requested are those of the pods the job has (or last had)."""
        active = [p for p in pods if is_active(p)]
        requested = sum(world.gpus_of(p) for p in active) if active else number(
            annotation_of(job, "runai-total-requested-gpus"), 0.0)
        runai_annotations(job, pods, world, suspended, requested, done="Succeeded")


def operator_of(job):
    """The event source of a job's kind: its operator's name."""
    for fw in FRAMEWORKS.values():
        if fw.kind == job.get("kind"):
            return fw.operator
    return "training-operator"
